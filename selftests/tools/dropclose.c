// SPDX-License-Identifier: GPL-2.0
/*
 * smc-dropclose: one SMC-R connection that streams, a command that makes
 * the peer stop acknowledging (it drops our RoCE packets), more data sent,
 * then close(): for the test of issue 17's hole 2 (smcr/dropclose_2vm).
 *
 *	smc-dropclose -a ADDR -p PORT -e COMMAND [-w SECONDS] [-s SECONDS]
 *		      [-t SECONDS]
 *
 * Connects to an echo server (smc-conns -s -n 1), checks with sock_diag
 * that the connection is SMC-R, then writes and reads the echo without
 * blocking for -w SECONDS (default 3). COMMAND runs (sh -c) and must
 * return once the peer drops our traffic. Then the connection goes on
 * writing (and reading whatever still comes) for -s SECONDS (default 3),
 * or until a call fails, so RDMA WRITEs are in flight that the peer never
 * acknowledges; then close(). Prints
 *	streamed BYTES
 *	command exited STATUS at MS
 *	after BYTES bytes written, ended ERRNO-NAME|open
 *	close returned RC ERRNO-NAME after MS ms at MS
 * where "at MS" is CLOCK_BOOTTIME in ms (the clock of /proc/uptime, so a
 * script can time what follows from the same origin). Exit 0 once close()
 * returned, 1 when nothing was streamed before the command, 2 on a set-up
 * failure (a connection that is not SMC-R included). -t SECONDS (default
 * 120, times SMC_TIMEOUT_SCALE) bounds the whole run (SIGALRM: a close()
 * that never returns).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/smc_diag.h>

#include "family.h"
#include "smcdiag.h"
#include "tap.h"

#define CHUNK 65536

static long long clock_ms(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void __attribute__((noreturn)) setup_fail(const char *what)
{
	fprintf(stderr, "smc-dropclose: %s: %s\n", what, strerror(errno));
	exit(2);
}

/*
 * Write and read without blocking for ms milliseconds, or until a call
 * fails (its errno in *err). Returns the bytes written.
 */
static long long pump(int fd, char *buf, long long ms, int *err)
{
	long long end = clock_ms(CLOCK_MONOTONIC) + ms, wrote = 0;
	struct pollfd p = { .fd = fd, .events = POLLIN | POLLOUT };
	ssize_t r;

	while (!*err && clock_ms(CLOCK_MONOTONIC) < end) {
		if (poll(&p, 1, 100) <= 0)
			continue;
		if (p.revents & (POLLIN | POLLERR | POLLHUP)) {
			r = read(fd, buf, CHUNK);
			if (r == 0)
				*err = -1;
			else if (r < 0 && errno != EAGAIN && errno != EINTR)
				*err = errno;
		}
		if (!*err && (p.revents & POLLOUT)) {
			r = write(fd, buf, CHUNK);
			if (r > 0)
				wrote += r;
			else if (r < 0 && errno != EAGAIN && errno != EINTR)
				*err = errno;
		}
	}
	return wrote;
}

int main(int argc, char **argv)
{
	const struct sf_family *f = sf_find("smc");
	const char *addr = NULL, *command = NULL;
	int warm = 3, send_s = 3, limit = 120, c, err = 0, status, rc, close_errno, fl;
	unsigned int port = 0;
	long long streamed, after, t0;
	struct sockaddr_storage ss;
	struct sd_sock sd;
	char *buf = calloc(1, CHUNK);
	int fd;

	while ((c = getopt(argc, argv, "a:p:e:w:s:t:")) != -1) {
		switch (c) {
		case 'a': addr = optarg; break;
		case 'p': port = (unsigned int)atoi(optarg); break;
		case 'e': command = optarg; break;
		case 'w': warm = atoi(optarg); break;
		case 's': send_s = atoi(optarg); break;
		case 't': limit = atoi(optarg); break;
		default: addr = NULL; optind = argc; break;
		}
	}
	if (!addr || !port || !command || warm < 1 || send_s < 1 || limit < 1 || !buf) {
		fprintf(stderr, "usage: smc-dropclose -a ADDR -p PORT -e COMMAND"
				" [-w SECONDS] [-s SECONDS] [-t SECONDS]\n");
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	alarm(tap_scaled_seconds((unsigned int)limit));	/* times SMC_TIMEOUT_SCALE */
	if (!sf_addr(f, addr, port, &ss)) {
		fprintf(stderr, "smc-dropclose: bad address %s\n", addr);
		return 2;
	}
	fd = sf_connect(f, &ss);
	if (fd < 0)
		setup_fail("connect");
	rc = sd_find_fd(fd, &sd);
	if (rc) {
		errno = -rc;
		setup_fail("sock_diag");
	}
	if (sd.mode != SMC_DIAG_MODE_SMCR) {
		fprintf(stderr, "smc-dropclose: the connection is not SMC-R (mode %u)\n",
			sd.mode);
		return 2;
	}
	fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK))
		setup_fail("O_NONBLOCK");

	streamed = pump(fd, buf, warm * 1000LL, &err);
	printf("streamed %lld\n", streamed);
	if (err || !streamed) {
		printf("the stream ended before the command: %s\n",
		       err > 0 ? strerrorname_np(err) : "eof");
		return 1;
	}
	fflush(stdout);
	status = system(command);
	printf("command exited %d at %lld\n",
	       WIFEXITED(status) ? WEXITSTATUS(status) : -1, clock_ms(CLOCK_BOOTTIME));

	after = pump(fd, buf, send_s * 1000LL, &err);
	printf("after %lld bytes written, ended %s\n", after,
	       err > 0 ? strerrorname_np(err) : err ? "eof" : "open");
	fflush(stdout);

	t0 = clock_ms(CLOCK_MONOTONIC);
	rc = close(fd);
	close_errno = rc ? errno : 0;
	printf("close returned %d %s after %lld ms at %lld\n", rc,
	       close_errno ? strerrorname_np(close_errno) : "-",
	       clock_ms(CLOCK_MONOTONIC) - t0, clock_ms(CLOCK_BOOTTIME));
	return 0;
}
