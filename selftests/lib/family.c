// SPDX-License-Identifier: GPL-2.0
/* family.c: the socket families of family.h and their address helpers. */
#define _GNU_SOURCE
#include "family.h"

#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <smc/af_smc.h>

#include "tap.h"

const struct sf_family sf_families[SF_MAX] = {
	{ "inet", "tcp ipv4", AF_INET, 0, AF_INET, NULL },
	{ "inet6", "tcp ipv6", AF_INET6, 0, AF_INET6, NULL },
	{ "smc", "smc ipv4", AF_SMC, SMCPROTO_SMC, AF_INET, "inet" },
	{ "smc6", "smc ipv6", AF_SMC, SMCPROTO_SMC6, AF_INET6, "inet6" },
	{ "smcin", "ipproto_smc ipv4", AF_INET, IPPROTO_SMC, AF_INET, "inet" },
	{ "smcin6", "ipproto_smc ipv6", AF_INET6, IPPROTO_SMC, AF_INET6, "inet6" },
};

const struct sf_family *sf_find(const char *name)
{
	for (int i = 0; i < SF_MAX; i++)
		if (strcmp(sf_families[i].name, name) == 0)
			return &sf_families[i];
	return NULL;
}

const struct sf_family *sf_oracle(const struct sf_family *f)
{
	return f->oracle ? sf_find(f->oracle) : NULL;
}

const struct sf_family *sf_kind(const struct sf_family *f, int addr_family)
{
	for (int i = 0; i < SF_MAX; i++) {
		const struct sf_family *k = &sf_families[i];

		if (k->addr_family == addr_family && !k->oracle == !f->oracle &&
		    (k->domain == AF_SMC) == (f->domain == AF_SMC))
			return k;
	}
	return NULL;
}

int sf_parse_list(const char *arg, const struct sf_family **list, int *count)
{
	char copy[256], *save = NULL, *name;

	snprintf(copy, sizeof(copy), "%s", arg);
	for (name = strtok_r(copy, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
		const struct sf_family *f = sf_find(name);
		int dup = 0;

		if (!f)
			return -1;
		for (int i = 0; i < *count; i++)
			dup |= list[i] == f;
		if (!dup && *count < SF_MAX)
			list[(*count)++] = f;
	}
	return 0;
}

int sf_socket(const struct sf_family *f, int flags)
{
	return socket(f->domain, SOCK_STREAM | flags, f->protocol);
}

int sf_probe(const struct sf_family *f)
{
	int fd = sf_socket(f, SOCK_CLOEXEC);

	if (fd < 0)
		return errno;
	close(fd);
	return 0;
}

/* 1 when this is a VM whose harness loaded the SMC module "name". */
static int vm_module_is(const char *name)
{
	const char *module = getenv("SMC_MODULE");

	return getenv("SMC_VM_COUNT") && module && !strcmp(module, name);
}

int sf_smc_promised(void)
{
	return vm_module_is("ours") || vm_module_is("intree");
}

int sf_smc_ours(void)
{
	return vm_module_is("ours");
}

void sf_require(const struct sf_family *f)
{
	int err = sf_probe(f);

	if (!err)
		return;
	/*
	 * TCP is always there; AF_SMC is there wherever a module was loaded,
	 * IPPROTO_SMC wherever ours was (Debian's smc.ko predates it).
	 */
	if (!f->oracle || (f->domain == AF_SMC && sf_smc_promised()) ||
	    (f->domain != AF_SMC && sf_smc_ours())) {
		tap_fail("%s sockets must exist here (SMC_MODULE=%s): socket(%d, SOCK_STREAM, %d): %s",
			 f->label, getenv("SMC_MODULE") ?: "unset", f->domain, f->protocol,
			 tap_errno_name(err));
		tap_abort();
	}
	tap_skip("%s sockets are not available here: socket(%d, SOCK_STREAM, %d): %s",
		 f->label, f->domain, f->protocol, tap_errno_name(err));
}

socklen_t sf_addr(const struct sf_family *f, const char *host, unsigned int port,
		  struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (f->addr_family == AF_INET) {
		struct sockaddr_in *sin = (struct sockaddr_in *)ss;

		sin->sin_family = AF_INET;
		sin->sin_port = htons((uint16_t)port);
		if (!host || !*host) {
			/*
			 * SMC_TEST_LOCAL4: an address of this host to use as
			 * "loopback", so connections to it take a real netdev
			 * (SMC-R needs an RDMA port under the route).
			 */
			const char *local = getenv("SMC_TEST_LOCAL4");

			if (!local || inet_pton(AF_INET, local, &sin->sin_addr) != 1)
				sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		} else if (strcmp(host, "any") == 0)
			sin->sin_addr.s_addr = htonl(INADDR_ANY);
		else if (inet_pton(AF_INET, host, &sin->sin_addr) != 1)
			return 0;
		return sizeof(*sin);
	} else {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;

		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons((uint16_t)port);
		if (!host || !*host) {
			/* SMC_TEST_LOCAL6: as SMC_TEST_LOCAL4, for IPv6. */
			const char *local = getenv("SMC_TEST_LOCAL6");

			if (!local || inet_pton(AF_INET6, local, &sin6->sin6_addr) != 1)
				sin6->sin6_addr = in6addr_loopback;
		}
		else if (strcmp(host, "any") == 0)
			sin6->sin6_addr = in6addr_any;
		else if (inet_pton(AF_INET6, host, &sin6->sin6_addr) != 1)
			return 0;
		return sizeof(*sin6);
	}
}

socklen_t sf_addr_len(const struct sockaddr_storage *ss)
{
	return ss->ss_family == AF_INET6 ? sizeof(struct sockaddr_in6)
					 : sizeof(struct sockaddr_in);
}

unsigned int sf_port(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET6)
		return ntohs(((const struct sockaddr_in6 *)ss)->sin6_port);
	return ntohs(((const struct sockaddr_in *)ss)->sin_port);
}

const char *sf_addr_str(const struct sockaddr_storage *ss, char *buf, size_t size)
{
	char host[INET6_ADDRSTRLEN] = "?";

	if (ss->ss_family == AF_INET6)
		inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)ss)->sin6_addr,
			  host, sizeof(host));
	else if (ss->ss_family == AF_INET)
		inet_ntop(AF_INET, &((const struct sockaddr_in *)ss)->sin_addr,
			  host, sizeof(host));
	snprintf(buf, size, "%s port %u (family %d)", host, sf_port(ss), ss->ss_family);
	return buf;
}

int sf_listen(const struct sf_family *f, const char *host, unsigned int port,
	      int backlog, struct sockaddr_storage *bound)
{
	struct sockaddr_storage ss;
	socklen_t len = sf_addr(f, host, port, &ss);
	int fd, one = 1, err;

	if (!len) {
		errno = EINVAL;
		return -1;
	}
	fd = sf_socket(f, SOCK_CLOEXEC);
	if (fd < 0)
		return -1;
	/* Fixed ports must be reusable right after a previous run; best effort. */
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&ss, len) || listen(fd, backlog))
		goto fail;
	if (bound) {
		len = sizeof(*bound);
		if (getsockname(fd, (struct sockaddr *)bound, &len))
			goto fail;
	}
	return fd;
fail:
	err = errno;
	close(fd);
	errno = err;
	return -1;
}

int sf_connect(const struct sf_family *f, const struct sockaddr_storage *addr)
{
	int fd = sf_socket(f, SOCK_CLOEXEC), err;

	if (fd < 0)
		return -1;
	if (connect(fd, (const struct sockaddr *)addr, sf_addr_len(addr)) == 0)
		return fd;
	err = errno;
	close(fd);
	errno = err;
	return -1;
}

long sf_clc_wait_ms(void)
{
	return (long)(2000 * tap_timeout_scale());
}

const char *sf_poll_str(short events, char *buf, size_t size)
{
	static const struct { short bit; const char *name; } bits[] = {
		{ POLLIN, "POLLIN" }, { POLLPRI, "POLLPRI" }, { POLLOUT, "POLLOUT" },
		{ POLLERR, "POLLERR" }, { POLLHUP, "POLLHUP" }, { POLLNVAL, "POLLNVAL" },
		{ POLLRDNORM, "POLLRDNORM" }, { POLLWRNORM, "POLLWRNORM" },
		{ POLLRDHUP, "POLLRDHUP" },
	};
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(bits) / sizeof(bits[0]) && used < size; i++)
		if (events & bits[i].bit)
			used += (size_t)snprintf(buf + used, size - used, "%s%s",
						 used ? "|" : "", bits[i].name);
	if (!used)
		snprintf(buf, size, "0");
	return buf;
}

/*
 * A non-blocking descriptor that would block: wait (bounded) until it is
 * ready. The data or the room is on its way, from another thread or, in
 * the two-VM topologies, from the peer VM, and a read that runs ahead of it
 * must not pass for the peer's failure. errno is EAGAIN again if it never
 * comes.
 */
static int wait_ready(int fd, short events)
{
	struct pollfd p = { .fd = fd, .events = events };

	if (errno != EAGAIN && errno != EWOULDBLOCK)
		return 0;
	if (poll(&p, 1, SF_IO_WAIT_MS) > 0)
		return 1;
	errno = EAGAIN;
	return 0;
}

int sf_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && wait_ready(fd, POLLOUT))
			continue;
		if (n < 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int sf_read_all(int fd, void *buf, size_t len)
{
	char *p = buf;

	while (len) {
		ssize_t n = read(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && wait_ready(fd, POLLIN))
			continue;
		if (n == 0)
			errno = EPIPE; /* the caller wanted more than the peer sent */
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

struct bound_case {
	const struct sf_case *c;
	const struct sf_family *f;
};

static void run_bound_case(const void *arg)
{
	const struct bound_case *b = arg;

	b->c->fn(b->f);
}

int sf_test_main(int argc, char **argv, const struct sf_case *cases, unsigned int count)
{
	const struct sf_family *list[SF_MAX];
	int n = 0, opt;

	const char *env = getenv("SMC_FAMILIES");

	while ((opt = getopt(argc, argv, "f:h")) != -1) {
		if (opt != 'f' || sf_parse_list(optarg, list, &n)) {
			fprintf(stderr, "usage: %s [-f inet,inet6,smc,smc6,smcin,smcin6]\n"
				"  runs every case on each family given (default: $SMC_FAMILIES,\n"
				"  else inet,inet6,smc,smc6)\n",
				argv[0]);
			return 2;
		}
	}
	if (n == 0 && env && *env && sf_parse_list(env, list, &n)) {
		printf("Bail out! SMC_FAMILIES=%s names an unknown family\n", env);
		return 1;
	}
	if (n == 0)
		for (n = 0; n < SF_DEFAULT; n++)
			list[n] = &sf_families[n];
	for (unsigned int i = 0; i < count; i++) {
		for (int j = 0; j < n; j++) {
			struct bound_case *b = malloc(sizeof(*b));

			if (!b)
				return 1;
			*b = (struct bound_case){ &cases[i], list[j] };
			tap_add(run_bound_case, b, cases[i].timeout, "%s: %s",
				list[j]->label, cases[i].description);
		}
	}
	return tap_run();
}
