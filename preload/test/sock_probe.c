// SPDX-License-Identifier: GPL-2.0
/*
 * smc-preload-probe: a small TCP program to run under libsmc-preload.so, for
 * the host tests and for vm_preload.sh in the test VM. It calls only socket()
 * and friends directly (no name resolution), so the first socket() call of the
 * process is the one the mode makes.
 *
 *   has-smc                   exit 0 if socket(AF_SMC, SOCK_STREAM, 0) works
 *   create DOMAIN TYPE PROTO  one socket() call with these numbers; prints
 *                             "fd=.. domain=.. type=.. protocol=.. sndbuf=..
 *                             rcvbuf=.. nonblock=.. cloexec=.." or "error errno=.."
 *   loopback [4|6] [hold] [port P] [bindfirst]
 *                             listen on the loopback address (port P, or
 *                             one the kernel picks), connect, accept, move
 *                             256 KiB each way; prints one "sock ..." line
 *                             per socket and "ok"; with hold, prints
 *                             "ready pid=N" and keeps the sockets open until
 *                             stdin reaches end of file; with bindfirst the
 *                             client binds to the loopback address, port 0,
 *                             before it connects. The listener sets
 *                             SO_REUSEADDR and the client TCP_NODELAY and
 *                             SO_KEEPALIVE before bind and connect.
 *   threads N [domains]       N threads call socket(AF_INET, SOCK_STREAM, 0)
 *                             at the same instant, as the process's first call;
 *                             with "domains", also how many of the sockets
 *                             say SO_DOMAIN AF_SMC (" af_smc=K")
 *
 * Exit status: 0 success, 1 failure, 2 usage.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef AF_SMC
#define AF_SMC 43
#endif

/*
 * The client writes all of it before it reads the echo, so both directions
 * together must buffer it with nobody reading: 128 KiB fits into SMC's
 * rings and send buffers (64 KiB each by default, two of each on the way
 * out and back) as into TCP's buffers.
 */
#define PAYLOAD (128 * 1024)

static int int_opt(int fd, int level, int name)
{
	int value = -1;
	socklen_t len = sizeof(value);

	if (getsockopt(fd, level, name, &value, &len) < 0)
		return -errno;
	return value;
}

/* The socket's local address and port, as "local=ADDR lport=N". */
static void local_text(int fd, char *buf, size_t size)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	char addr[INET6_ADDRSTRLEN] = "?";
	int port = -1;

	if (getsockname(fd, (struct sockaddr *)&ss, &len) == 0) {
		if (ss.ss_family == AF_INET) {
			struct sockaddr_in *a = (struct sockaddr_in *)&ss;

			inet_ntop(AF_INET, &a->sin_addr, addr, sizeof(addr));
			port = ntohs(a->sin_port);
		} else if (ss.ss_family == AF_INET6) {
			struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;

			inet_ntop(AF_INET6, &a->sin6_addr, addr, sizeof(addr));
			port = ntohs(a->sin6_port);
		}
	}
	snprintf(buf, size, "local=%s lport=%d", addr, port);
}

static void describe(const char *prefix, int fd)
{
	struct stat st;
	int fl = fcntl(fd, F_GETFL), fdfl = fcntl(fd, F_GETFD);
	char local[96];

	if (fstat(fd, &st) < 0)
		st.st_ino = 0;
	local_text(fd, local, sizeof(local));
	printf("%sfd=%d domain=%d type=%d protocol=%d sndbuf=%d rcvbuf=%d "
	       "nonblock=%d cloexec=%d inode=%lu reuseaddr=%d nodelay=%d keepalive=%d %s\n",
	       prefix, fd,
	       int_opt(fd, SOL_SOCKET, SO_DOMAIN), int_opt(fd, SOL_SOCKET, SO_TYPE),
	       int_opt(fd, SOL_SOCKET, SO_PROTOCOL), int_opt(fd, SOL_SOCKET, SO_SNDBUF),
	       int_opt(fd, SOL_SOCKET, SO_RCVBUF), fl >= 0 && (fl & O_NONBLOCK) ? 1 : 0,
	       fdfl >= 0 && (fdfl & FD_CLOEXEC) ? 1 : 0, (unsigned long)st.st_ino,
	       int_opt(fd, SOL_SOCKET, SO_REUSEADDR), int_opt(fd, IPPROTO_TCP, TCP_NODELAY),
	       int_opt(fd, SOL_SOCKET, SO_KEEPALIVE), local);
}

static int mode_has_smc(void)
{
	int fd = socket(AF_SMC, SOCK_STREAM, 0);

	if (fd < 0) {
		printf("no AF_SMC: %s\n", strerror(errno));
		return 1;
	}
	close(fd);
	printf("AF_SMC available\n");
	return 0;
}

static int mode_create(int domain, int type, int protocol)
{
	int fd = socket(domain, type, protocol);

	if (fd < 0) {
		printf("error errno=%d (%s)\n", errno, strerror(errno));
		return 1;
	}
	describe("", fd);
	close(fd);
	return 0;
}

static int send_all(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = send(fd, buf, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

static int recv_all(int fd, char *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = recv(fd, buf, len, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

static char client_out[PAYLOAD], client_in[PAYLOAD], server_buf[PAYLOAD];

/* The accepted side echoes everything back, in its own thread. */
static void *echo_thread(void *arg)
{
	int fd = *(int *)arg;
	size_t done = 0;

	while (done < PAYLOAD) {
		ssize_t n = recv(fd, server_buf, sizeof(server_buf), 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0 || send_all(fd, server_buf, (size_t)n) < 0)
			return (void *)1;
		done += (size_t)n;
	}
	return NULL;
}

static int mode_loopback(int family, int hold, int port, int bindfirst)
{
	struct sockaddr_storage ss, cs;
	socklen_t len;
	int lfd, cfd, afd, one = 1, i;
	pthread_t echo;
	void *echo_ret;
	char line[16];

	memset(&ss, 0, sizeof(ss));
	if (family == AF_INET6) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;

		a->sin6_family = AF_INET6;
		a->sin6_addr = in6addr_loopback;
		a->sin6_port = htons((unsigned short)port);
		len = sizeof(*a);
	} else {
		struct sockaddr_in *a = (struct sockaddr_in *)&ss;

		a->sin_family = AF_INET;
		a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		a->sin_port = htons((unsigned short)port);
		len = sizeof(*a);
	}
	lfd = socket(family, SOCK_STREAM, 0);
	if (lfd < 0) {
		printf("socket: %s\n", strerror(errno));
		return 1;
	}
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(lfd, (struct sockaddr *)&ss, len) < 0 || listen(lfd, 4) < 0 ||
	    getsockname(lfd, (struct sockaddr *)&ss, &len) < 0) {
		printf("bind/listen: %s\n", strerror(errno));
		return 1;
	}
	cfd = socket(family, SOCK_STREAM, IPPROTO_TCP);
	if (cfd < 0) {
		printf("socket: %s\n", strerror(errno));
		return 1;
	}
	setsockopt(cfd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	setsockopt(cfd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one));
	if (bindfirst) {
		/* The listener's address with port 0: the loopback address. */
		memcpy(&cs, &ss, sizeof(cs));
		if (family == AF_INET6)
			((struct sockaddr_in6 *)&cs)->sin6_port = 0;
		else
			((struct sockaddr_in *)&cs)->sin_port = 0;
		if (bind(cfd, (struct sockaddr *)&cs, len) < 0) {
			printf("client bind: %s\n", strerror(errno));
			return 1;
		}
	}
	if (connect(cfd, (struct sockaddr *)&ss, len) < 0) {
		printf("connect: %s\n", strerror(errno));
		return 1;
	}
	afd = accept(lfd, NULL, NULL);
	if (afd < 0) {
		printf("accept: %s\n", strerror(errno));
		return 1;
	}
	describe("sock role=listen ", lfd);
	describe("sock role=client ", cfd);
	describe("sock role=accepted ", afd);

	for (i = 0; i < PAYLOAD; i++)
		client_out[i] = (char)(i * 7 + 3);
	if (pthread_create(&echo, NULL, echo_thread, &afd)) {
		printf("pthread_create failed\n");
		return 1;
	}
	if (send_all(cfd, client_out, PAYLOAD) < 0 || recv_all(cfd, client_in, PAYLOAD) < 0) {
		printf("transfer: %s\n", strerror(errno));
		return 1;
	}
	pthread_join(echo, &echo_ret);
	if (echo_ret || memcmp(client_out, client_in, PAYLOAD)) {
		printf("transfer: data mismatch\n");
		return 1;
	}
	printf("ok\n");
	if (hold) {
		printf("ready pid=%d\n", (int)getpid());
		fflush(stdout);
		while (read(STDIN_FILENO, line, sizeof(line)) > 0)
			;
	}
	close(afd);
	close(cfd);
	close(lfd);
	return 0;
}

static pthread_barrier_t start;
static int threads_af_smc;	/* sockets whose SO_DOMAIN is AF_SMC */

static void *socket_thread(void *arg)
{
	int fd;

	(void)arg;
	pthread_barrier_wait(&start);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0)
		return (void *)1;
	if (int_opt(fd, SOL_SOCKET, SO_DOMAIN) == AF_SMC)
		__atomic_add_fetch(&threads_af_smc, 1, __ATOMIC_RELAXED);
	close(fd);
	return NULL;
}

static int mode_threads(int n, int domains)
{
	pthread_t *threads = calloc((size_t)n, sizeof(*threads));
	int i, created = 0, failed = 0;
	void *ret;

	if (!threads || pthread_barrier_init(&start, NULL, (unsigned int)n))
		return 1;
	for (i = 0; i < n; i++) {
		if (pthread_create(&threads[i], NULL, socket_thread, NULL)) {
			/* Cannot happen in the tests; a stuck barrier would hang. */
			printf("pthread_create failed\n");
			_exit(1);
		}
		created++;
	}
	for (i = 0; i < created; i++) {
		pthread_join(threads[i], &ret);
		failed += ret != NULL;
	}
	if (domains)
		printf("threads=%d failed=%d af_smc=%d\n", created, failed, threads_af_smc);
	else
		printf("threads=%d failed=%d\n", created, failed);
	free(threads);
	return failed ? 1 : 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: smc-preload-probe has-smc | create DOMAIN TYPE PROTO |"
		" loopback [4|6] [hold] [port P] [bindfirst] | threads N [domains]\n");
	return 2;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 2)
		return usage();
	if (!strcmp(argv[1], "has-smc"))
		return mode_has_smc();
	if (!strcmp(argv[1], "create") && argc == 5)
		return mode_create((int)strtol(argv[2], NULL, 0), (int)strtol(argv[3], NULL, 0),
				   (int)strtol(argv[4], NULL, 0));
	if (!strcmp(argv[1], "loopback")) {
		int family = AF_INET, hold = 0, port = 0, bindfirst = 0, i;

		for (i = 2; i < argc; i++) {
			if (!strcmp(argv[i], "6"))
				family = AF_INET6;
			else if (!strcmp(argv[i], "hold"))
				hold = 1;
			else if (!strcmp(argv[i], "bindfirst"))
				bindfirst = 1;
			else if (!strcmp(argv[i], "port") && i + 1 < argc)
				port = atoi(argv[++i]);
			else if (strcmp(argv[i], "4"))
				return usage();
		}
		if (port < 0 || port > 65535)
			return usage();
		return mode_loopback(family, hold, port, bindfirst);
	}
	if (!strcmp(argv[1], "threads") && (argc == 3 || argc == 4)) {
		int n = atoi(argv[2]);

		if (n < 1 || n > 1024 || (argc == 4 && strcmp(argv[3], "domains")))
			return usage();
		return mode_threads(n, argc == 4);
	}
	return usage();
}
