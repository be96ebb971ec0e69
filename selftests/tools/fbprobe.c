// SPDX-License-Identifier: GPL-2.0
/*
 * smc-fbprobe: connect an AF_SMC socket, exchange one byte with an echo
 * server, print what sock_diag says about the socket, then keep the
 * connection open for a while so the server side can be inspected too.
 *
 *	smc-fbprobe [-6] ADDR PORT HOLD_SECONDS
 *
 * Prints "mode M fallback 0xLOCAL/0xPEER" (mode as SMC_DIAG_MODE_*), and
 * exits 0, or 1 with a message on stderr.
 *
 *	smc-fbprobe -T [-6] ADDR PORT HOLD_SECONDS
 *
 * The same, with a line "connect_ms N" first: how long the blocking
 * connect() took, which is the whole handshake.
 *
 *	smc-fbprobe -C MS ADDR PORT
 *
 * Close in the middle of the handshake: a non-blocking connect, MS ms of
 * sleep, close(). Prints "close_ms N", how long close() took; exits 1 if
 * the connect did not start (anything but EINPROGRESS).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <smc/af_smc.h>

#include "smcdiag.h"

static long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int close_early(char **argv)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	long ms = atol(argv[2]), t0;
	int fd;

	a.sin_port = htons(atoi(argv[4]));
	if (inet_pton(AF_INET, argv[3], &a.sin_addr) != 1) {
		fprintf(stderr, "smc-fbprobe: bad address %s\n", argv[3]);
		return 2;
	}
	fd = socket(AF_SMC, SOCK_STREAM | SOCK_NONBLOCK, SMCPROTO_SMC);
	if (fd < 0) {
		perror("smc-fbprobe: socket");
		return 1;
	}
	if (!connect(fd, (struct sockaddr *)&a, sizeof(a)) || errno != EINPROGRESS) {
		perror("smc-fbprobe: connect did not start");
		return 1;
	}
	usleep(ms * 1000);
	t0 = now_ms();
	close(fd);
	printf("close_ms %ld\n", now_ms() - t0);
	return 0;
}

int main(int argc, char **argv)
{
	int timed = argc > 1 && !strcmp(argv[1], "-T");
	int v6 = argc > 1 + timed && !strcmp(argv[1 + timed], "-6");
	struct sockaddr_storage ss = { 0 };
	struct sd_sock s;
	socklen_t len;
	char c = 'x';
	long t0 = 0;
	int fd, rc;

	if (argc == 5 && !strcmp(argv[1], "-C"))
		return close_early(argv);
	if (argc != 4 + timed + v6) {
		fprintf(stderr, "usage: smc-fbprobe [-T] [-6] ADDR PORT HOLD_SECONDS\n");
		return 2;
	}
	argv += timed + v6;
	if (v6) {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)&ss;

		a->sin6_family = AF_INET6;
		a->sin6_port = htons(atoi(argv[2]));
		rc = inet_pton(AF_INET6, argv[1], &a->sin6_addr);
		len = sizeof(*a);
	} else {
		struct sockaddr_in *a = (struct sockaddr_in *)&ss;

		a->sin_family = AF_INET;
		a->sin_port = htons(atoi(argv[2]));
		rc = inet_pton(AF_INET, argv[1], &a->sin_addr);
		len = sizeof(*a);
	}
	if (rc != 1) {
		fprintf(stderr, "smc-fbprobe: bad address %s\n", argv[1]);
		return 2;
	}
	fd = socket(AF_SMC, SOCK_STREAM, v6 ? SMCPROTO_SMC6 : SMCPROTO_SMC);
	if (fd >= 0)
		t0 = now_ms();
	if (fd < 0 || connect(fd, (struct sockaddr *)&ss, len)) {
		int e = errno;

		if (fd >= 0 && timed)
			fprintf(stderr, "smc-fbprobe: after %ld ms\n", now_ms() - t0);
		errno = e;
		perror("smc-fbprobe: connect");
		return 1;
	}
	if (timed)
		printf("connect_ms %ld\n", now_ms() - t0);
	if (write(fd, &c, 1) != 1 || read(fd, &c, 1) != 1) {
		perror("smc-fbprobe: echo");
		return 1;
	}
	rc = sd_find_fd(fd, &s);
	if (rc) {
		fprintf(stderr, "smc-fbprobe: sock_diag: %s\n", strerror(-rc));
		return 1;
	}
	printf("mode %u fallback 0x%08x/0x%08x\n", s.mode, s.reason, s.peer_diagnosis);
	fflush(stdout);
	sleep(atoi(argv[3]));
	close(fd);
	return 0;
}
