// SPDX-License-Identifier: GPL-2.0
/*
 * smc-failwait: live SMC connections, then a failure made by a command,
 * and how each connection ends: for the tests of link failures (the local
 * netdev going down, the peer VM killed).
 *
 *	smc-failwait -a ADDR -p PORT -n IDLE [-b BUSY] -e COMMAND [-w SECONDS]
 *		     [-t SECONDS]
 *
 * Opens IDLE + BUSY connections to an echo server (smc-conns -s with
 * -n IDLE+BUSY), echoes 1000 verified bytes on each, and checks with
 * sock_diag that every one is SMC-R. The BUSY ones then move data all the
 * time (write and read the echo, non-blocking); the idle ones wait in
 * poll() for input, as an idle application would. After the busy ones
 * moved data for -w SECONDS (default 2), COMMAND runs (sh -c) while they
 * go on; the clock starts when it returns, so the times below count from
 * the failure (COMMAND must return once it is made: smc-vm-host kill
 * returns once the peer's QEMU is dead). Each connection then must end with an error: a
 * read or write that fails (a POLLERR or POLLHUP is read to learn which
 * error). Prints one
 * line per connection
 *	conn I idle|busy ERRNO-NAME MS
 * (MS after the command returned, negative when it ended while the
 * command ran; "eof" for an orderly end, "open" when it was still open
 * after -t SECONDS, default 60) and then
 *	ended E of N with an error, max MS ms, busy moved BYTES bytes
 * Exit 0 when all N ended with an error, 1 otherwise, 2 on a set-up
 * failure (a connection that is not SMC-R included).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/smc_diag.h>

#include "family.h"
#include "smcdiag.h"
#include "stream.h"

#define CHUNK 65536

struct conn {
	int fd;
	int busy;
	int err;	/* errno it ended with; -1 for EOF; 0 while open */
	long long end_ms;
};

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void __attribute__((noreturn)) setup_fail(const char *what, long i)
{
	fprintf(stderr, "smc-failwait: %s (connection %ld): %s\n", what, i, strerror(errno));
	exit(2);
}

static int is_smcr(int fd)
{
	struct stat st;
	struct sd_sock *all;
	int found, ok = 0;

	if (fstat(fd, &st))
		return 0;
	all = calloc(4096, sizeof(*all));
	if (!all)
		return 0;
	found = sd_dump(all, 4096);
	for (int i = 0; i < found && i < 4096; i++)
		if (all[i].inode == (uint64_t)st.st_ino)
			ok = all[i].mode == SMC_DIAG_MODE_SMCR;
	free(all);
	return ok;
}

/* How a connection ended: a failed call's errno, -1 for EOF; and when. */
static void end(struct conn *c, int err)
{
	if (c->err)
		return;
	c->err = err;
	c->end_ms = now_ms();
}

/* One poll round over the open connections; returns the bytes moved. */
static long long pump(struct conn *cs, long n, char *buf, int timeout_ms)
{
	struct pollfd *p = calloc(n, sizeof(*p));
	long long moved = 0;

	if (!p)
		return 0;
	for (long i = 0; i < n; i++) {
		p[i].fd = cs[i].err ? -1 : cs[i].fd;
		p[i].events = POLLIN | (cs[i].busy ? POLLOUT : 0);
	}
	if (poll(p, n, timeout_ms) <= 0) {
		free(p);
		return 0;
	}
	for (long i = 0; i < n; i++) {
		struct conn *c = &cs[i];
		ssize_t r;

		if (p[i].fd < 0 || !p[i].revents)
			continue;
		if (p[i].revents & (POLLIN | POLLERR | POLLHUP)) {
			r = read(c->fd, buf, CHUNK);
			if (r > 0) {
				moved += r;
			} else if (r == 0) {
				end(c, -1);
				continue;
			} else if (errno != EAGAIN && errno != EINTR) {
				end(c, errno);
				continue;
			}
		}
		if (c->busy && (p[i].revents & POLLOUT)) {
			r = write(c->fd, buf, CHUNK);
			if (r > 0)
				moved += r;
			else if (r < 0 && errno != EAGAIN && errno != EINTR)
				end(c, errno);
		}
	}
	free(p);
	return moved;
}

int main(int argc, char **argv)
{
	const struct sf_family *f = sf_find("smc");
	const char *addr = NULL, *command = NULL;
	long idle = 0, busy = 0, n, errors = 0;
	int warm = 2, limit = 60, c, status = 0;
	pid_t pid;
	unsigned int port = 0;
	long long t0, moved = 0, max_ms = 0, stop, cmd_start;
	struct sockaddr_storage ss;
	char *buf = malloc(CHUNK), *rbuf = malloc(1000);
	struct conn *cs;

	while ((c = getopt(argc, argv, "a:p:n:b:e:w:t:")) != -1) {
		switch (c) {
		case 'a': addr = optarg; break;
		case 'p': port = (unsigned int)atoi(optarg); break;
		case 'n': idle = atol(optarg); break;
		case 'b': busy = atol(optarg); break;
		case 'e': command = optarg; break;
		case 'w': warm = atoi(optarg); break;
		case 't': limit = atoi(optarg); break;
		default: addr = NULL; optind = argc; break;
		}
	}
	n = idle + busy;
	if (!addr || !port || !command || idle < 0 || busy < 0 || n < 1 || n > 1000 || !buf ||
	    !rbuf) {
		fprintf(stderr, "usage: smc-failwait -a ADDR -p PORT -n IDLE [-b BUSY] -e COMMAND"
				" [-w SECONDS] [-t SECONDS]\n");
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	if (!sf_addr(f, addr, port, &ss)) {
		fprintf(stderr, "smc-failwait: bad address %s\n", addr);
		return 2;
	}
	cs = calloc(n, sizeof(*cs));
	if (!cs)
		return 2;
	alarm((unsigned int)(warm + limit + 120));
	for (long i = 0; i < n; i++) {
		long got = 0;

		cs[i].busy = i >= idle;
		cs[i].fd = sf_connect(f, &ss);
		if (cs[i].fd < 0)
			setup_fail("connect", i);
		pattern_fill(buf, 1000, i + 1, 0);
		if (sf_write_all(cs[i].fd, buf, 1000))
			setup_fail("write", i);
		while (got < 1000) {
			ssize_t r = read(cs[i].fd, rbuf + got, 1000 - got);

			if (r <= 0)
				setup_fail("read of the echo", i);
			got += r;
		}
		if (memcmp(buf, rbuf, 1000)) {
			fprintf(stderr, "smc-failwait: connection %ld: the echo differs\n", i);
			return 2;
		}
		if (!is_smcr(cs[i].fd)) {
			fprintf(stderr, "smc-failwait: connection %ld is not SMC-R\n", i);
			return 2;
		}
		if (cs[i].busy)
			fcntl(cs[i].fd, F_SETFL, O_NONBLOCK);
	}
	printf("ready idle %ld busy %ld, all SMC-R\n", idle, busy);
	fflush(stdout);
	/* The busy ones move data before the failure: they are transferring. */
	pattern_fill(buf, CHUNK, 99, 0);
	stop = now_ms() + warm * 1000LL;
	while (now_ms() < stop)
		moved += pump(cs, n, buf, 100);
	for (long i = 0; i < n; i++) {
		if (cs[i].err) {
			fprintf(stderr, "smc-failwait: connection %ld ended before the command\n", i);
			return 2;
		}
	}
	if (busy && !moved) {
		fprintf(stderr, "smc-failwait: the busy connections moved nothing\n");
		return 2;
	}
	printf("busy moved %lld bytes before the command\n", moved);
	fflush(stdout);

	/* Busy connections keep moving data while the command runs. */
	cmd_start = now_ms();
	pid = fork();
	if (pid < 0)
		setup_fail("fork", 0);
	if (pid == 0) {
		execl("/bin/sh", "sh", "-c", command, (char *)NULL);
		_exit(127);
	}
	while (waitpid(pid, &status, WNOHANG) == 0)
		moved += pump(cs, n, buf, 50);
	t0 = now_ms();
	printf("command exited %d after %lld ms: %s\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1,
	       t0 - cmd_start, command);
	fflush(stdout);
	stop = t0 + limit * 1000LL;
	for (;;) {
		long open = 0;

		for (long i = 0; i < n; i++)
			open += !cs[i].err;
		if (!open || now_ms() >= stop)
			break;
		moved += pump(cs, n, buf, 100);
	}
	for (long i = 0; i < n; i++) {
		const char *how = cs[i].err > 0 ? strerrorname_np(cs[i].err) :
				  cs[i].err < 0 ? "eof" : "open";

		long long ms = cs[i].err ? cs[i].end_ms - t0 : -1;

		/* Negative: it ended while the command still ran. */
		printf("conn %ld %s %s %lld\n", i, cs[i].busy ? "busy" : "idle", how ? how : "?", ms);
		if (cs[i].err > 0) {
			errors++;
			if (ms > max_ms)
				max_ms = ms;
		}
		close(cs[i].fd);
	}
	printf("ended %ld of %ld with an error, max %lld ms, busy moved %lld bytes\n", errors, n,
	       max_ms, moved);
	return errors == n ? 0 : 1;
}
