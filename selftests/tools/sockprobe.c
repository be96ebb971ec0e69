// SPDX-License-Identifier: GPL-2.0
/*
 * smc-sockprobe: create sockets from a shell script and report the outcome,
 * because a shell cannot call socket() itself. Used by the module life-cycle
 * test to see whether AF_SMC is registered, and to hold AF_SMC sockets open
 * while it tries to unload the module.
 *
 *   smc-sockprobe [-t TYPE] [-p PROTO] FAMILY...
 *	For each FAMILY (inet, inet6, smc, smc6, or a domain number) print
 *	"ok" or the errno name (e.g. EAFNOSUPPORT) of socket(domain, TYPE,
 *	PROTO), one word per family on one line. TYPE: stream (default),
 *	dgram, seqpacket, raw or a number; PROTO defaults to the family's own.
 *	Exit status 0 when every socket could be created, 1 otherwise.
 *
 *   smc-sockprobe -H MODE [-r FILE] FAMILY
 *	Hold sockets of FAMILY until killed: MODE "open" (one unbound socket),
 *	"listen" (a listener on loopback) or "connected" (a listener, a client
 *	and the accepted socket over loopback). FILE is created once they exist,
 *	so a script can wait for it instead of sleeping.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "family.h"
#include "tap.h"

static void usage(void)
{
	fprintf(stderr, "usage: smc-sockprobe [-t TYPE] [-p PROTO] FAMILY...\n"
			"       smc-sockprobe -H open|listen|connected [-r FILE] FAMILY\n");
	exit(2);
}

static int parse_type(const char *s)
{
	static const struct { const char *name; int type; } types[] = {
		{ "stream", SOCK_STREAM }, { "dgram", SOCK_DGRAM },
		{ "seqpacket", SOCK_SEQPACKET }, { "raw", SOCK_RAW },
	};

	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (strcmp(s, types[i].name) == 0)
			return types[i].type;
	return atoi(s);
}

static void fail(const char *what)
{
	printf("%s\n", tap_errno_name(errno));
	fprintf(stderr, "smc-sockprobe: %s: %s\n", what, strerror(errno));
	exit(1);
}

static int __attribute__((noreturn)) hold(const struct sf_family *f, const char *mode, const char *ready)
{
	struct sockaddr_storage addr;
	int lfd, cfd, afd;

	if (strcmp(mode, "open") == 0) {
		if (sf_socket(f, 0) < 0)
			fail("socket");
	} else if (strcmp(mode, "listen") == 0 || strcmp(mode, "connected") == 0) {
		lfd = sf_listen(f, NULL, 0, 4, &addr);
		if (lfd < 0)
			fail("listen");
		if (strcmp(mode, "connected") == 0) {
			cfd = sf_connect(f, &addr);
			if (cfd < 0)
				fail("connect");
			afd = accept(lfd, NULL, NULL);
			if (afd < 0)
				fail("accept");
			/* Some data in flight makes the connection more than a handshake. */
			if (sf_write_all(cfd, "hold", 4) || sf_write_all(afd, "held", 4))
				fail("write");
		}
	} else {
		usage();
	}
	if (ready) {
		FILE *r = fopen(ready, "w");

		if (!r || fclose(r))
			fail(ready);
	}
	printf("holding %s %s sockets\n", mode, f->name);
	fflush(stdout);
	/* Until a signal ends us; the kernel closes everything at exit. */
	for (;;)
		pause();
}

int main(int argc, char **argv)
{
	const char *hold_mode = NULL, *ready = NULL;
	int type = SOCK_STREAM, proto = -1, c, all_ok = 1;

	while ((c = getopt(argc, argv, "t:p:H:r:h")) != -1) {
		switch (c) {
		case 't': type = parse_type(optarg); break;
		case 'p': proto = atoi(optarg); break;
		case 'H': hold_mode = optarg; break;
		case 'r': ready = optarg; break;
		default: usage();
		}
	}
	if (optind >= argc)
		usage();
	if (hold_mode) {
		const struct sf_family *f = sf_find(argv[optind]);

		if (!f || optind + 1 != argc)
			usage();
		return hold(f, hold_mode, ready);
	}
	for (int i = optind; i < argc; i++) {
		const struct sf_family *f = sf_find(argv[i]);
		int domain = f ? f->domain : atoi(argv[i]);
		int p = proto >= 0 ? proto : f ? f->protocol : 0;
		int fd = socket(domain, type, p);

		if (!f && domain <= 0)
			usage();
		printf("%s%s", i > optind ? " " : "", fd >= 0 ? "ok" : tap_errno_name(errno));
		if (fd < 0)
			all_ok = 0;
		else
			close(fd);
	}
	printf("\n");
	return all_ok ? 0 : 1;
}
