// SPDX-License-Identifier: GPL-2.0
/* diff.c: differential observation (diff.h) and the socket helpers of observers. */
#define _GNU_SOURCE
#include "diff.h"

#include <fcntl.h>
#include <linux/sockios.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <linux/smc_diag.h>
#include <stdlib.h>

#include "mirror.h"
#include "smcdiag.h"
#include "stream.h"
#include "tap.h"

static void obs_put(struct obs *o, const char *name, enum obs_kind kind, long long v)
{
	if (o->n == OBS_MAX) {
		/* A full record would hide later differences: that is a test bug. */
		tap_fail("diff: more than %d observations; raise OBS_MAX", OBS_MAX);
		tap_abort();
	}
	snprintf(o->item[o->n].name, sizeof(o->item[o->n].name), "%s", name);
	o->item[o->n].kind = kind;
	o->item[o->n].v = v;
	o->n++;
}

void obs_int(struct obs *o, const char *name, long long v)
{
	obs_put(o, name, OBS_INT, v);
}

void obs_errno(struct obs *o, const char *name, int err)
{
	obs_put(o, name, OBS_ERRNO, err);
}

void obs_poll(struct obs *o, const char *name, short revents)
{
	obs_put(o, name, OBS_POLL, (unsigned short)revents);
}

void obs_epoll(struct obs *o, const char *name, uint32_t events)
{
	obs_put(o, name, OBS_EPOLL, events);
}

void obs_result(struct obs *o, const char *name, long long ret, int err)
{
	char n[sizeof(o->item[0].name)];

	obs_int(o, name, ret);
	snprintf(n, sizeof(n), "%s errno", name);
	obs_errno(o, n, err);
}

static const char *epoll_str(uint32_t ev, char *buf, size_t size)
{
	static const struct { uint32_t bit; const char *name; } bits[] = {
		{ EPOLLIN, "EPOLLIN" }, { EPOLLPRI, "EPOLLPRI" }, { EPOLLOUT, "EPOLLOUT" },
		{ EPOLLERR, "EPOLLERR" }, { EPOLLHUP, "EPOLLHUP" },
		{ EPOLLRDNORM, "EPOLLRDNORM" }, { EPOLLWRNORM, "EPOLLWRNORM" },
		{ EPOLLRDHUP, "EPOLLRDHUP" },
	};
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(bits) / sizeof(bits[0]) && used < size; i++)
		if (ev & bits[i].bit)
			used += (size_t)snprintf(buf + used, size - used, "%s%s",
						 used ? "|" : "", bits[i].name);
	if (!used)
		snprintf(buf, size, "0");
	return buf;
}

static const char *value_str(enum obs_kind kind, long long v, char *buf, size_t size)
{
	switch (kind) {
	case OBS_ERRNO:
		snprintf(buf, size, "%s", tap_errno_name((int)v));
		return buf;
	case OBS_POLL:
		return sf_poll_str((short)v, buf, size);
	case OBS_EPOLL:
		return epoll_str((uint32_t)v, buf, size);
	default:
		snprintf(buf, size, "%lld", v);
		return buf;
	}
}

void obs_want(struct obs *o, const char *name, long long v)
{
	char a[128], b[128];

	for (unsigned int i = o->n; i-- > 0;) {
		if (strcmp(o->item[i].name, name) != 0)
			continue;
		if (o->item[i].v != v)
			tap_fail("expected %s to be %s, got %s", name,
				 value_str(o->item[i].kind, v, a, sizeof(a)),
				 value_str(o->item[i].kind, o->item[i].v, b, sizeof(b)));
		return;
	}
	tap_fail("expected %s to be %lld, but it was not observed", name, v);
}

static void obs_print(const struct sf_family *f, const struct obs *o)
{
	char line[1024], val[128];
	size_t used = 0;

	/* Several entries a line keeps the output readable. */
	for (unsigned int i = 0; i < o->n; i++) {
		if (used > 600) {
			tap_diag("%s: %s", f->label, line);
			used = 0;
		}
		used += (size_t)snprintf(line + used, sizeof(line) - used, "%s%s=%s",
					 used ? ", " : "", o->item[i].name,
					 value_str(o->item[i].kind, o->item[i].v, val,
						   sizeof(val)));
	}
	if (used)
		tap_diag("%s: %s", f->label, line);
}

enum diff_mode diff_mode(void)
{
	const char *m = getenv("SMC_DIFF_MODE");

	if (!m || !*m || strcmp(m, "smcd") == 0)
		return DIFF_MODE_SMCD;
	if (strcmp(m, "smcr") == 0)
		return DIFF_MODE_SMCR;
	if (strcmp(m, "fallback") == 0)
		return DIFF_MODE_FALLBACK;
	tap_fail("SMC_DIFF_MODE=%s: want smcd, smcr or fallback", m);
	tap_abort();
	return DIFF_MODE_SMCD;
}

/* SMC-R connections checked by diff_check_mode() so far. */
static unsigned int diff_smcr_conns;

#define DIFF_RXE_MAX 4
struct rxe_counts {
	unsigned int n;
	char dev[DIFF_RXE_MAX][32];
	unsigned long long sent[DIFF_RXE_MAX], rcvd[DIFF_RXE_MAX];
};

static unsigned long long rxe_counter(const char *dev, const char *name)
{
	char path[160];
	unsigned long long v = 0;
	FILE *fp;

	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/ports/1/hw_counters/%s",
		 dev, name);
	fp = fopen(path, "r");
	if (!fp) {
		tap_fail("SMC_DIFF_RXE: cannot read %s", path);
		return 0;
	}
	if (fscanf(fp, "%llu", &v) != 1)
		tap_fail("SMC_DIFF_RXE: no number in %s", path);
	fclose(fp);
	return v;
}

static void rxe_read_local(struct rxe_counts *c);

/*
 * The packet counters of the devices in $SMC_DIFF_RXE; across two VMs
 * (mirror.h) VM 0's devices and then VM 1's, the same list on both.
 */
static void rxe_read(struct rxe_counts *c)
{
	struct rxe_counts mine, theirs;
	const struct rxe_counts *vm[2];

	if (!MIRROR_ON()) {
		rxe_read_local(c);
		return;
	}
	rxe_read_local(&mine);
	mirror_exchange(&mine, &theirs, sizeof(mine));
	vm[0] = mirror_side() == 0 ? &mine : &theirs;
	vm[1] = mirror_side() == 0 ? &theirs : &mine;
	memset(c, 0, sizeof(*c));
	for (int k = 0; k < 2; k++) {
		for (unsigned int i = 0; i < vm[k]->n && c->n < DIFF_RXE_MAX; i++, c->n++) {
			snprintf(c->dev[c->n], sizeof(c->dev[0]), "VM %d %.20s", k, vm[k]->dev[i]);
			c->sent[c->n] = vm[k]->sent[i];
			c->rcvd[c->n] = vm[k]->rcvd[i];
		}
	}
}

static void rxe_read_local(struct rxe_counts *c)
{
	const char *list = getenv("SMC_DIFF_RXE");
	const char *p = list ? list : "";

	memset(c, 0, sizeof(*c));
	while (*p && c->n < DIFF_RXE_MAX) {
		size_t len = strcspn(p, " ,");

		if (len && len < sizeof(c->dev[0])) {
			memcpy(c->dev[c->n], p, len);
			c->sent[c->n] = rxe_counter(c->dev[c->n], "sent_pkts");
			c->rcvd[c->n] = rxe_counter(c->dev[c->n], "rcvd_pkts");
			c->n++;
		}
		p += len;
		p += strspn(p, " ,");
	}
}

/*
 * SMC-R mode: the RoCE packets that must have crossed while the AF_SMC half
 * ran. Every SMC-R connection moves some (CDC messages at least at close);
 * the last of them may still be on its way, so this waits a little.
 */
static void rxe_check_moved(const struct rxe_counts *before)
{
	int64_t end = diff_now_ms() + 3000;
	struct rxe_counts now;
	unsigned int i, still;

	if (!before->n)
		return;	/* no devices named (smcr/diff.sh): sock_diag only */
	for (;;) {
		rxe_read(&now);
		still = 0;
		for (i = 0; i < now.n && i < before->n; i++)
			if (now.sent[i] == before->sent[i] || now.rcvd[i] == before->rcvd[i])
				still++;
		/* Across two VMs diff_now_ms() is VM 0's clock on both. */
		if (!still || diff_now_ms() >= end)
			break;
		usleep(50000);
	}
	for (i = 0; i < now.n && i < before->n; i++) {
		tap_diag("%s: %llu RoCE packets sent, %llu received during the SMC-R run",
			 now.dev[i], now.sent[i] - before->sent[i], now.rcvd[i] - before->rcvd[i]);
		if (now.sent[i] == before->sent[i] || now.rcvd[i] == before->rcvd[i])
			tap_fail("%s: no RoCE packet sent or received, yet %u connections said SMC-R",
				 now.dev[i], diff_smcr_conns);
	}
}

/*
 * Across two VMs (mirror.h): VM 1 sends its records and whether it failed a
 * check; VM 0 fails the case unless they are its own. Both halves saw the
 * same answers, so any difference is a fault of the mirroring.
 */
static void mirror_compare(const struct obs *ref, const struct obs *got)
{
	static struct { int failed; struct obs ref, got; } mine, theirs;

	mine.failed = tap_failed();
	mine.ref = *ref;
	mine.got = *got;
	mirror_exchange(&mine, &theirs, sizeof(mine));
	if (mirror_side() != 0)
		return;
	if (theirs.failed)
		tap_fail("VM 1's half of the case failed a check (its log follows the results)");
	if (memcmp(&mine.ref, &theirs.ref, sizeof(mine.ref)) ||
	    memcmp(&mine.got, &theirs.got, sizeof(mine.got)))
		tap_fail("mirror: VM 1 recorded something else than VM 0 (its log follows the results)");
}

void diff_run(const struct sf_family *f, obs_fn fn)
{
	const struct sf_family *oracle = sf_oracle(f);
	static struct obs ref, got;
	char a[128], b[128];

	sf_require(f);
	memset(&ref, 0, sizeof(ref));
	memset(&got, 0, sizeof(got));
	if (oracle) {
		tap_diag("oracle %s:", oracle->label);
		fn(oracle, &ref);
		obs_print(oracle, &ref);
		if (tap_failed())
			tap_diag("the oracle itself failed a check: the case is wrong");
	}
	tap_diag("%s:", f->label);
	if (oracle && diff_mode() == DIFF_MODE_SMCR) {
		static struct rxe_counts before;
		unsigned int conns = diff_smcr_conns;

		rxe_read(&before);
		fn(f, &got);
		if (diff_smcr_conns != conns) {
			tap_diag("%u AF_SMC sockets SMC-R by sock_diag%s", diff_smcr_conns - conns,
				 MIRROR_ON() ? " (each on the VM that holds it)" : "");
			rxe_check_moved(&before);
		}
	} else {
		fn(f, &got);
	}
	obs_print(f, &got);
	if (MIRROR_ON())
		mirror_compare(&ref, &got);
	if (!oracle)
		return;
	for (unsigned int i = 0; i < got.n || i < ref.n; i++) {
		if (i >= got.n || i >= ref.n) {
			tap_fail("AF_SMC DIFFERS FROM TCP: %s recorded %u observations, %s %u",
				 f->label, got.n, oracle->label, ref.n);
			return;
		}
		if (strcmp(got.item[i].name, ref.item[i].name) != 0) {
			tap_fail("AF_SMC DIFFERS FROM TCP: observation %u is \"%s\" on %s, \"%s\" on %s",
				 i, got.item[i].name, f->label, ref.item[i].name, oracle->label);
			return;
		}
		if (got.item[i].v != ref.item[i].v)
			tap_fail("AF_SMC DIFFERS FROM TCP: %s: %s gives %s, %s gives %s",
				 got.item[i].name, f->label,
				 value_str(got.item[i].kind, got.item[i].v, a, sizeof(a)),
				 oracle->label,
				 value_str(ref.item[i].kind, ref.item[i].v, b, sizeof(b)));
	}
}

/* TcpExtSyncookiesSent from /proc/net/netstat, or -1. */
static long long diff_syncookies_sent(void)
{
	char names[4096], values[4096];
	long long v = -1;
	FILE *fp = fopen("/proc/net/netstat", "r");

	if (!fp)
		return -1;
	while (fgets(names, sizeof(names), fp) && fgets(values, sizeof(values), fp)) {
		char *n_save, *v_save;
		char *n = strtok_r(names, " \n", &n_save);
		char *val = strtok_r(values, " \n", &v_save);

		if (!n || !val || strcmp(n, "TcpExt:"))
			continue;
		while ((n = strtok_r(NULL, " \n", &n_save)) &&
		       (val = strtok_r(NULL, " \n", &v_save)))
			if (!strcmp(n, "SyncookiesSent")) {
				v = strtoll(val, NULL, 10);
				break;
			}
		break;
	}
	fclose(fp);
	return v;
}

/*
 * TcpExtSyncookiesSent where the listener is: here, or, across two VMs,
 * on VM 1, which owns every listener (mirror.h). Both sides call this in
 * lockstep (their cases take the same path) and get VM 1's count.
 */
static long long diff_listener_syncookies(void)
{
	long long mine = diff_syncookies_sent(), theirs = -1;

	if (!MIRROR_ON())
		return mine;
	mirror_exchange(&mine, &theirs, sizeof(mine));
	return mirror_side() == 1 ? mine : theirs;
}

/* TcpExtSyncookiesSent at diff_syncookies_allow(); -1: not allowed. */
static long long diff_syncookies_base = -1;

void diff_syncookies_allow(void)
{
	diff_syncookies_base = diff_listener_syncookies();
}

void diff_syncookies_end(void)
{
	diff_syncookies_base = -1;
}

/* A fallback that SYN cookies explain (see diff.h), said as such. */
static int diff_syncookie_fallback(const struct sf_family *f, const struct sd_sock *s)
{
	long long now;

	if (diff_syncookies_base < 0 || s->mode != SMC_DIAG_MODE_FALLBACK_TCP ||
	    s->reason != 0x03010000 /* SMC_CLC_DECL_PEERNOSMC */)
		return 0;
	now = diff_listener_syncookies();
	if (now <= diff_syncookies_base)
		return 0;
	tap_diag("the %s connection fell back to TCP (0x%08x): TCP sent SYN cookies meanwhile "
		 "(TcpExtSyncookiesSent +%lld), whose SYN-ACK has no SMC option",
		 f->label, s->reason, now - diff_syncookies_base);
	return 1;
}

void diff_check_mode(const struct sf_family *f, int fd)
{
	struct sd_sock s;
	int rc;

	if (!f->oracle)
		return;		/* TCP: nothing to prove */
	/* Across two VMs: on the VM that holds the socket. */
	rc = MIRROR_ON() ? mirror_sd_find_fd(fd, &s) : sd_find_fd(fd, &s);
	if (rc) {
		tap_fail("sock_diag has no entry for the connected %s socket: %s",
			 f->label, tap_errno_name(-rc));
		return;
	}
	if (diff_mode() != DIFF_MODE_FALLBACK && diff_syncookie_fallback(f, &s))
		return;
	if (diff_mode() == DIFF_MODE_SMCD) {
		if (s.mode != SMC_DIAG_MODE_SMCD)
			tap_fail("the %s connection is not SMC-D: mode %u, fallback reason 0x%08x, peer 0x%08x",
				 f->label, s.mode, s.reason, s.peer_diagnosis);
	} else if (diff_mode() == DIFF_MODE_SMCR) {
		/* Undecided sockets say SMCR too: no fallback reason either. */
		if (s.mode != SMC_DIAG_MODE_SMCR || s.reason || s.peer_diagnosis)
			tap_fail("the %s connection is not SMC-R: mode %u, fallback reason 0x%08x, peer 0x%08x",
				 f->label, s.mode, s.reason, s.peer_diagnosis);
		else
			diff_smcr_conns++;
	} else if (s.mode != SMC_DIAG_MODE_FALLBACK_TCP) {
		tap_fail("the %s connection did not fall back to TCP: mode %u",
			 f->label, s.mode);
	}
}

void diff_check_fallback(const struct sf_family *f, int fd, uint32_t reason)
{
	struct sd_sock s;
	int rc;

	if (!f->oracle)
		return;
	rc = MIRROR_ON() ? mirror_sd_find_fd(fd, &s) : sd_find_fd(fd, &s);
	if (rc) {
		tap_fail("sock_diag has no entry for the connected %s socket: %s",
			 f->label, tap_errno_name(-rc));
		return;
	}
	if (s.mode != SMC_DIAG_MODE_FALLBACK_TCP || s.reason != reason)
		tap_fail("the %s connection is not a TCP fallback for reason 0x%08x: mode %u, "
			 "fallback reason 0x%08x, peer 0x%08x",
			 f->label, reason, s.mode, s.reason, s.peer_diagnosis);
}

int diff_connect(const struct sf_family *f, const struct sockaddr_storage *addr)
{
	int fd = sf_connect(f, addr);

	if (fd >= 0)
		diff_check_mode(f, fd);
	return fd;
}

int diff_accept(const struct sf_family *f, int lfd)
{
	int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);

	if (fd >= 0)
		diff_check_mode(f, fd);
	return fd;
}

void diff_establish(const struct sf_family *f, struct sf_conn *c)
{
	c->lfd = ASSERT_SYS(sf_listen(f, NULL, 0, 8, &c->addr));
	c->client = ASSERT_SYS(diff_connect(f, &c->addr));
	c->server = ASSERT_SYS(diff_accept(f, c->lfd));
}

void diff_conn_close(struct sf_conn *c)
{
	if (c->client >= 0)
		close(c->client);
	if (c->server >= 0)
		close(c->server);
	if (c->lfd >= 0)
		close(c->lfd);
	c->client = c->server = c->lfd = -1;
}

int64_t diff_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	if (MIRROR_ON())
		return mirror_agree((int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

short diff_poll(int fd, short events, int ms)
{
	struct pollfd pfd = { .fd = fd, .events = events };
	int r = (int)ASSERT_SYS(poll(&pfd, 1, ms));

	return r ? pfd.revents : 0;
}

short diff_poll_now(int fd)
{
	return diff_poll(fd, POLLIN | POLLPRI | POLLOUT | POLLRDHUP, 0);
}

short diff_wait(int fd, short events)
{
	short r = diff_poll(fd, events, DIFF_WAIT_MS);

	if (!r)
		tap_fail("poll: none of the awaited events within %d ms", DIFF_WAIT_MS);
	/* The first event may be one of several on their way (error, then hang-up). */
	usleep(20000);
	return r;
}

int diff_so_error(int fd)
{
	int err = -1;
	socklen_t len = sizeof(err);

	EXPECT_SYS(getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len));
	return err;
}

void diff_set_nonblock(int fd, int on)
{
	int fl = (int)ASSERT_SYS(fcntl(fd, F_GETFL));

	ASSERT_SYS(fcntl(fd, F_SETFL, on ? fl | O_NONBLOCK : fl & ~O_NONBLOCK));
}

/*
 * The send queue has stopped draining when SIOCOUTQ holds still for
 * three samples 100 ms apart.  Between two VMs under TCG, data is still
 * on its way to the peer well after the first EAGAIN, and a fixed pause
 * let a later send find room (seen once in CI: TCP over IPv6).  Gives up
 * after 3 s, or at once where SIOCOUTQ is not supported.
 */
static void diff_wait_outq_still(int fd)
{
	int64_t end = diff_now_ms() + 3000;
	int prev = -1, v, still = 0;

	while (still < 3 && diff_now_ms() < end) {
		usleep(100000);
		if (ioctl(fd, SIOCOUTQ, &v) < 0)
			return;
		still = v == prev ? still + 1 : 0;
		prev = v;
	}
}

size_t diff_fill(int fd)
{
	static char buf[65536];
	size_t total = 0;

	for (;;) {
		ssize_t n = send(fd, buf, sizeof(buf), MSG_DONTWAIT | MSG_NOSIGNAL);

		if (n < 0 && errno == EAGAIN) {
			diff_wait_outq_still(fd);
			n = send(fd, buf, sizeof(buf), MSG_DONTWAIT | MSG_NOSIGNAL);
			if (n < 0 && errno == EAGAIN)
				return total;
		}
		ASSERT_SYS(n);
		total += (size_t)n;
	}
}

int diff_wait_inq(int fd, int n)
{
	int64_t end = diff_now_ms() + DIFF_WAIT_MS;
	int inq = -1;

	while (diff_now_ms() < end) {
		ASSERT_SYS(ioctl(fd, SIOCINQ, &inq));
		if (inq >= n)
			break;
		usleep(5000);
	}
	return inq;
}

int diff_wait_outq_empty(int fd)
{
	int64_t end = diff_now_ms() + DIFF_WAIT_MS;
	int outq = -1;

	while (diff_now_ms() < end) {
		ASSERT_SYS(ioctl(fd, SIOCOUTQ, &outq));
		if (!outq)
			break;
		usleep(5000);
	}
	return outq;
}

size_t diff_drain(int fd)
{
	static char buf[65536];
	size_t total = 0;
	ssize_t n;

	while ((n = read(fd, buf, sizeof(buf))) > 0)
		total += (size_t)n;
	return total;
}

int diff_transfer_ok(int from, int to, size_t len, uint64_t seed)
{
	static char buf[1 << 16];
	size_t done = 0;

	while (done < len) {
		size_t chunk = len - done < sizeof(buf) ? len - done : sizeof(buf);

		pattern_fill(buf, chunk, seed, done);
		if (sf_write_all(from, buf, chunk) || sf_read_all(to, buf, chunk) ||
		    pattern_mismatch(buf, chunk, seed, done) != chunk)
			return 0;
		done += chunk;
	}
	return 1;
}

int diff_closed_port(const struct sf_family *f, struct sockaddr_storage *addr)
{
	const struct sf_family *tcp = sf_find(f->addr_family == AF_INET ? "inet" : "inet6");
	socklen_t len = sf_addr(tcp, NULL, 0, addr);
	int fd = (int)ASSERT_SYS(sf_socket(tcp, SOCK_CLOEXEC));

	ASSERT_SYS(bind(fd, (struct sockaddr *)addr, len));
	len = sizeof(*addr);
	ASSERT_SYS(getsockname(fd, (struct sockaddr *)addr, &len));
	return fd;
}
