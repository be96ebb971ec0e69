// SPDX-License-Identifier: GPL-2.0
/*
 * smc-manysock: hold many sockets of one family open, for tests of tools
 * that list them (smcss with 10,000 AF_SMC sockets).
 *
 *   smc-manysock [-f FAMILY] -l LISTENERS [-c PAIRS] [-b BASEPORT] [-p PORTFILE] [-r READY]
 *
 * Opens LISTENERS listening sockets on loopback, each on a port of its own:
 * the first free ones from BASEPORT up, or ports the kernel picks without
 * -b (which slows down as the ephemeral range fills: 10,000 TCP listeners
 * took 45 s in the test VM, against 0.9 s from a base port). Then PAIRS
 * connected pairs (a client and the socket accept() returned, both of
 * FAMILY, on the first listener), so there are
 * LISTENERS + 2 * PAIRS sockets. RLIMIT_NOFILE is raised to fit. The
 * listeners' ports go to PORTFILE, one per line; READY is created once
 * everything is open. Then it holds them until a signal ends it, and exits 1
 * with the errno name on stdout if anything could not be opened.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "family.h"
#include "tap.h"

static void usage(void)
{
	fprintf(stderr, "usage: smc-manysock [-f FAMILY] -l LISTENERS [-c PAIRS] [-b BASEPORT] [-p PORTFILE] [-r READY]\n");
	exit(2);
}

static void __attribute__((noreturn)) fail(const char *what, long done)
{
	int e = errno;

	printf("%s\n", tap_errno_name(e));
	fprintf(stderr, "smc-manysock: %s (after %ld sockets): %s\n", what, done, strerror(e));
	exit(1);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static long parse_count(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*s == '\0' || *end != '\0' || v < 0 || v > 1000000)
		usage();
	return v;
}

int main(int argc, char **argv)
{
	const char *family = "smc", *portfile = NULL, *ready = NULL;
	long listeners = -1, pairs = 0, open_count = 0, port = 0;
	const struct sf_family *f;
	struct sockaddr_storage first;
	int first_fd = -1;
	struct rlimit rl;
	FILE *ports = NULL;
	double start;
	int c;

	while ((c = getopt(argc, argv, "f:l:c:b:p:r:h")) != -1) {
		switch (c) {
		case 'f': family = optarg; break;
		case 'l': listeners = parse_count(optarg); break;
		case 'c': pairs = parse_count(optarg); break;
		case 'b': port = parse_count(optarg); break;
		case 'p': portfile = optarg; break;
		case 'r': ready = optarg; break;
		default: usage();
		}
	}
	f = sf_find(family);
	if (!f || optind != argc || listeners < 1)
		usage();

	/* Every socket is a descriptor; leave room for stdio and the like. */
	rl.rlim_cur = rl.rlim_max = (rlim_t)(listeners + 2 * pairs + 64);
	if (setrlimit(RLIMIT_NOFILE, &rl))
		fail("setrlimit(RLIMIT_NOFILE)", 0);
	if (portfile && !(ports = fopen(portfile, "w")))
		fail(portfile, 0);

	start = now();
	for (long i = 0; i < listeners; i++) {
		struct sockaddr_storage bound;
		int fd;

		if (port > 65535) {
			errno = EADDRNOTAVAIL;
			fail("no port left", open_count);
		}
		/* The first listener takes the pairs' connections. */
		fd = sf_listen(f, NULL, (unsigned int)port, i ? 1 : 16, &bound);

		/* A port something else holds is passed over. */
		while (fd < 0 && errno == EADDRINUSE && port && port < 65535)
			fd = sf_listen(f, NULL, (unsigned int)++port, i ? 1 : 16, &bound);
		if (fd < 0)
			fail("listen", open_count);
		if (port)
			port++;
		open_count++;
		if (i == 0) {
			first_fd = fd;
			first = bound;
		}
		if (ports)
			fprintf(ports, "%u\n", sf_port(&bound));
	}
	if (ports && fclose(ports))
		fail(portfile, open_count);
	for (long i = 0; i < pairs; i++) {
		int cfd = sf_connect(f, &first), afd;

		if (cfd < 0)
			fail("connect", open_count);
		open_count++;
		afd = accept(first_fd, NULL, NULL);
		if (afd < 0)
			fail("accept", open_count);
		open_count++;
	}
	if (ready) {
		FILE *r = fopen(ready, "w");

		if (!r || fclose(r))
			fail(ready, open_count);
	}
	printf("holding %ld %s sockets (%ld listening, %ld connected pairs), opened in %.2f s\n",
	       open_count, f->name, listeners, pairs, now() - start);
	fflush(stdout);
	/* Until a signal ends us; the kernel closes everything at exit. */
	for (;;)
		pause();
}
