// SPDX-License-Identifier: GPL-2.0
/*
 * smc-conns: many AF_SMC connections open at the same time, each moving a
 * little verified data, for tests of link groups shared by connections.
 *
 *	smc-conns -s [-a ADDR] -p PORT -n N [-r READY] [-t SECONDS]
 *
 * Server: accept N connections and echo each one (poll over all of them)
 * until every client closed. READY is created once listening.
 *
 *	smc-conns -c -a ADDR -p PORT -n N [-b BYTES] [-H HOLD] [-W FILE] [-t SECONDS]
 *
 * Client: open N connections one after the other (all stay open), then
 * send BYTES (default 1000) of a per-connection pattern on each, read the
 * echo back and compare it byte for byte. Then sock_diag says in which
 * mode each one is; it prints
 *	open N verified N modes smcr=A smcd=B tcp=C
 * and keeps them all open HOLD seconds (default 0) before closing them,
 * so a script can look at the link groups meanwhile. With -W FILE it then
 * waits until FILE exists (a script made a link fail meanwhile), sends the
 * next BYTES of each connection's pattern, compares the echo again, and
 * prints
 *	again N verified N
 * before the hold. Exit 0 when all N were verified (each time), 1
 * otherwise (the reason on stderr). -t SECONDS (default
 * 600, times SMC_TIMEOUT_SCALE) bounds the whole run.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/smc_diag.h>

#include "family.h"
#include "smcdiag.h"
#include "tap.h"
#include "stream.h"

static void __attribute__((noreturn)) die(const char *what)
{
	fprintf(stderr, "smc-conns: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void raise_nofile(long n)
{
	struct rlimit r;

	if (getrlimit(RLIMIT_NOFILE, &r))
		return;
	if (r.rlim_cur < (rlim_t)n + 16) {
		r.rlim_cur = r.rlim_max = n + 16;
		setrlimit(RLIMIT_NOFILE, &r);
	}
}

static int server(const struct sf_family *f, const char *addr, unsigned int port,
		  long n, const char *ready)
{
	struct pollfd *p = calloc(n + 1, sizeof(*p));
	long accepted = 0, open = 0;
	char buf[4096];
	int lfd;

	if (!p)
		die("calloc");
	lfd = sf_listen(f, addr, port, 512, NULL);
	if (lfd < 0)
		die("listen");
	if (ready) {
		FILE *r = fopen(ready, "w");

		if (r)
			fclose(r);
	}
	p[0].fd = lfd;
	p[0].events = POLLIN;
	while (accepted < n || open) {
		if (poll(p, accepted + 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			die("poll");
		}
		if (accepted < n && (p[0].revents & POLLIN)) {
			int fd = accept(lfd, NULL, NULL);

			if (fd < 0)
				die("accept");
			accepted++;
			open++;
			p[accepted].fd = fd;
			p[accepted].events = POLLIN;
			if (accepted == n)
				p[0].events = 0;
		}
		for (long i = 1; i <= accepted; i++) {
			ssize_t r;

			if (p[i].fd < 0 || !(p[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			r = read(p[i].fd, buf, sizeof(buf));
			if (r < 0 && (errno == EAGAIN || errno == EINTR))
				continue;
			/* Echo in full (a blocking socket: write waits for room). */
			for (ssize_t done = 0; r > 0 && done < r;) {
				ssize_t w = write(p[i].fd, buf + done, r - done);

				if (w <= 0)
					die("write");
				done += w;
			}
			if (r <= 0) {
				close(p[i].fd);
				p[i].fd = -1;
				open--;
			}
		}
	}
	printf("served %ld\n", accepted);
	return 0;
}

/* Whether inode is the socket behind one of fds[0..n). */
static int own_inode(const int *fds, long n, uint64_t inode)
{
	struct stat st;

	for (long i = 0; i < n; i++)
		if (fds[i] >= 0 && fstat(fds[i], &st) == 0 && (uint64_t)st.st_ino == inode)
			return 1;
	return 0;
}

/*
 * BYTES of each connection's pattern from off, sent on it and its echo
 * compared, one connection after the other; the number that matched.
 */
static long echo_round(const int *fds, long n, long bytes, long off, char *sbuf, char *rbuf)
{
	long ok = 0;

	for (long i = 0; i < n; i++) {
		long got = 0;

		pattern_fill(sbuf, bytes, i + 1, off);
		if (write(fds[i], sbuf, bytes) != bytes) {
			fprintf(stderr, "smc-conns: write %ld: %s\n", i, strerror(errno));
			continue;
		}
		while (got < bytes) {
			ssize_t r = read(fds[i], rbuf + got, bytes - got);

			if (r <= 0)
				break;
			got += r;
		}
		if (got == bytes && !memcmp(sbuf, rbuf, bytes))
			ok++;
		else
			fprintf(stderr, "smc-conns: connection %ld: echo of %ld/%ld bytes %s\n",
				i, got, bytes, got == bytes ? "differs" : "short");
	}
	return ok;
}

static int client(const struct sf_family *f, const char *addr, unsigned int port,
		  long n, long bytes, int hold, const char *again)
{
	int *fds = calloc(n, sizeof(*fds));
	char *sbuf = malloc(bytes), *rbuf = malloc(bytes);
	struct sockaddr_storage ss;
	struct sd_sock *s;
	long ok = 0, modes[3] = { 0 };
	int found;

	if (!fds || !sbuf || !rbuf)
		die("malloc");
	if (!sf_addr(f, addr, port, &ss)) {
		fprintf(stderr, "smc-conns: bad address %s\n", addr);
		return 2;
	}
	for (long i = 0; i < n; i++) {
		fds[i] = sf_connect(f, &ss);
		if (fds[i] < 0) {
			fprintf(stderr, "smc-conns: connect %ld: %s\n", i, strerror(errno));
			return 1;
		}
	}
	ok = echo_round(fds, n, bytes, 0, sbuf, rbuf);
	/* Room for the server's sockets too, when it runs in this namespace. */
	s = calloc(2 * n + 64, sizeof(*s));
	if (!s)
		die("calloc");
	found = sd_dump(s, 2 * n + 64);
	if (found < 0) {
		errno = -found;
		die("sock_diag");
	}
	for (int i = 0; i < found && i < 2 * n + 64; i++) {
		if (s[i].state == 10)
			continue;	/* a listener */
		/*
		 * Only this client's sockets: with the server in the same
		 * namespace (topology 1) the dump holds its sockets too.
		 */
		if (!own_inode(fds, n, s[i].inode))
			continue;
		if (s[i].mode == SMC_DIAG_MODE_SMCR)
			modes[0]++;
		else if (s[i].mode == SMC_DIAG_MODE_SMCD)
			modes[1]++;
		else
			modes[2]++;
	}
	printf("open %ld verified %ld modes smcr=%ld smcd=%ld tcp=%ld\n", n, ok,
	       modes[0], modes[1], modes[2]);
	fflush(stdout);
	if (again) {
		long ok2;

		/* Bounded by the alarm (-t). */
		while (access(again, F_OK))
			usleep(100 * 1000);
		ok2 = echo_round(fds, n, bytes, bytes, sbuf, rbuf);
		printf("again %ld verified %ld\n", n, ok2);
		fflush(stdout);
		if (ok2 != n)
			ok = 0;
	}
	sleep(hold);
	for (long i = 0; i < n; i++)
		close(fds[i]);
	return ok == n ? 0 : 1;
}

int main(int argc, char **argv)
{
	const struct sf_family *f = sf_find("smc");
	const char *addr = NULL, *ready = NULL, *again = NULL;
	int srv = -1, hold = 0, c, limit = 600;
	unsigned int port = 0;
	long n = 1, bytes = 1000;

	while ((c = getopt(argc, argv, "sca:p:n:r:b:H:W:t:")) != -1) {
		switch (c) {
		case 's': srv = 1; break;
		case 'c': srv = 0; break;
		case 'a': addr = optarg; break;
		case 'p': port = atoi(optarg); break;
		case 'n': n = atol(optarg); break;
		case 'r': ready = optarg; break;
		case 'b': bytes = atol(optarg); break;
		case 'H': hold = atoi(optarg); break;
		case 'W': again = optarg; break;
		case 't': limit = atoi(optarg); break;
		default: srv = -1; optind = argc; break;
		}
	}
	if (srv < 0 || n < 1 || bytes < 1 || !port || (!srv && !addr)) {
		fprintf(stderr, "usage: smc-conns -s [-a ADDR] -p PORT -n N [-r READY] [-t S]\n"
				"       smc-conns -c -a ADDR -p PORT -n N [-b BYTES] [-H HOLD] [-W FILE] [-t S]\n");
		return 2;
	}
	raise_nofile(n);
	alarm(tap_scaled_seconds((unsigned int)limit));	/* times SMC_TIMEOUT_SCALE */
	return srv ? server(f, addr ? addr : "any", port, n, ready) :
		     client(f, addr, port, n, bytes, hold, again);
}
