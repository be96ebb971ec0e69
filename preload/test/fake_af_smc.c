// SPDX-License-Identifier: GPL-2.0
/*
 * libsmc-fake-af.so, a test-only shim preloaded AFTER libsmc-preload.so
 * (LD_PRELOAD=libsmc-preload.so:libsmc-fake-af.so), so the preload library's
 * dlsym(RTLD_NEXT, "socket") finds this socket(). It lets the host tests see
 * exactly which socket(AF_SMC, ...) call the preload library makes, on a host
 * with or without AF_SMC:
 *
 *   SMC_FAKE_LOG   file to which each AF_SMC call is appended as
 *                  "AF_SMC domain=43 type=T protocol=P fd=F errno=E", and
 *                  each IPPROTO_SMC call (AF_INET/AF_INET6, protocol 256)
 *                  as "IPPROTO_SMC domain=D type=T protocol=256 fd=F errno=E"
 *   SMC_FAKE_MODE  "tcp" (default): answer with a TCP socket of the family
 *                  the SMC protocol stands for (SMCPROTO_SMC6: AF_INET6),
 *                  with the same flags; "fail": fail, AF_SMC with
 *                  EAFNOSUPPORT, IPPROTO_SMC with EPROTONOSUPPORT (a
 *                  kernel without SMC); "noinet": IPPROTO_SMC fails with
 *                  EPROTONOSUPPORT, AF_SMC works (a kernel before 6.11)
 *
 * Other sockets go to the real socket() untouched. Never installed.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <smc/af_smc.h>

typedef int (*socket_fn)(int, int, int);

static socket_fn real_socket;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void resolve(void)
{
	real_socket = (socket_fn)dlsym(RTLD_NEXT, "socket");
}

static void record(int domain, int type, int protocol, int fd, int err)
{
	const char *path = getenv("SMC_FAKE_LOG");
	char line[128];
	int lfd, n;

	if (!path || !*path)
		return;
	n = snprintf(line, sizeof(line), "%s domain=%d type=%d protocol=%d fd=%d errno=%d\n",
		     domain == AF_SMC ? "AF_SMC" : "IPPROTO_SMC", domain, type, protocol, fd, err);
	lfd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (lfd < 0)
		return;
	if (write(lfd, line, (size_t)n) != n)
		abort();	/* a lost record would make a test lie */
	close(lfd);
}

__attribute__((visibility("default")))
int socket(int domain, int type, int protocol)
{
	const char *mode = getenv("SMC_FAKE_MODE");
	int fd, err = 0;

	pthread_once(&once, resolve);
	if ((domain == AF_INET || domain == AF_INET6) && protocol == IPPROTO_SMC) {
		if (mode && (!strcmp(mode, "fail") || !strcmp(mode, "noinet"))) {
			fd = -1;
			err = EPROTONOSUPPORT;
		} else {
			fd = real_socket(domain, type, IPPROTO_TCP);
			if (fd < 0)
				err = errno;
		}
	} else if (domain != AF_SMC) {
		return real_socket(domain, type, protocol);
	} else if (mode && !strcmp(mode, "fail")) {
		fd = -1;
		err = EAFNOSUPPORT;
	} else if (protocol != SMCPROTO_SMC && protocol != SMCPROTO_SMC6) {
		fd = -1;
		err = EPROTONOSUPPORT;
	} else {
		fd = real_socket(protocol == SMCPROTO_SMC6 ? AF_INET6 : AF_INET, type,
				 IPPROTO_TCP);
		if (fd < 0)
			err = errno;
	}
	record(domain, type, protocol, fd, err);
	if (fd < 0)
		errno = err;
	return fd;
}
