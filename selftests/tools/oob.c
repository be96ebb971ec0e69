// SPDX-License-Identifier: GPL-2.0
/*
 * smc-oob: one urgent byte over an AF_SMC connection, sent when the test
 * says so (so that it can break the link under it first) and looked for
 * on the other end.
 *
 *	smc-oob -s ADDR PORT READY SECONDS
 *
 * Listens (READY is created once it does), accepts one connection and
 * reads it: the urgent byte with recv(MSG_OOB) as soon as poll() reports
 * POLLPRI, printed as "oob C", and the other bytes until end of file,
 * counted as "bytes N". Exits 0 once the peer closed after an urgent byte,
 * 1 when SECONDS (scaled, tap_scaled_seconds()) ran out or no urgent byte
 * came.
 *
 *	smc-oob -c ADDR PORT GO DONE SECONDS
 *
 * Connects, writes 1000 bytes, waits for the file GO, then sends "abcU"
 * with MSG_OOB (the 'U' urgent, as on TCP) and prints "sent"; waits for
 * the file DONE and closes. The server then counts 1003 bytes and "oob U".
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <smc/af_smc.h>

#include "tap.h"

static int fail(const char *what)
{
	fprintf(stderr, "smc-oob: %s: %s\n", what, strerror(errno));
	return 1;
}

/* Until the file exists: 0, or -1 at the deadline. */
static int wait_file(const char *path, long deadline)
{
	while (access(path, F_OK)) {
		if (tap_now_ms() >= deadline)
			return -1;
		usleep(20000);
	}
	return 0;
}

static int serve(int fd, long deadline)
{
	unsigned long long bytes = 0;
	bool oob = false;
	char buf[4096];

	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN | POLLPRI };
		long left = deadline - tap_now_ms();
		ssize_t n;

		if (left <= 0 || poll(&p, 1, left) == 0) {
			printf("bytes %llu\n", bytes);
			fprintf(stderr, "smc-oob: time ran out%s\n",
				oob ? "" : " with no urgent byte");
			return 1;
		}
		if ((p.revents & POLLPRI) && !oob) {
			n = recv(fd, buf, 1, MSG_OOB);
			if (n == 1) {
				printf("oob %c\n", buf[0]);
				fflush(stdout);
				oob = true;
				continue;
			}
			if (n < 0 && errno != EINVAL && errno != EAGAIN)
				return fail("recv MSG_OOB");
		}
		if (!(p.revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (n < 0)
			return fail("recv");
		if (n == 0)
			break;
		bytes += n;
	}
	printf("bytes %llu\n", bytes);
	if (!oob)
		fprintf(stderr, "smc-oob: the peer closed, and no urgent byte came\n");
	return oob ? 0 : 1;
}

int main(int argc, char **argv)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	bool server = argc == 6 && !strcmp(argv[1], "-s");
	bool client = argc == 7 && !strcmp(argv[1], "-c");
	char data[1000];
	long deadline;
	int fd, c, one = 1;

	if ((!server && !client) || inet_pton(AF_INET, argv[2], &a.sin_addr) != 1) {
		fprintf(stderr, "usage: smc-oob -s ADDR PORT READY SECONDS | -c ADDR PORT GO DONE SECONDS\n");
		return 2;
	}
	a.sin_port = htons(atoi(argv[3]));
	deadline = tap_now_ms() + 1000L * tap_scaled_seconds(atoi(argv[argc - 1]));
	fd = socket(AF_SMC, SOCK_STREAM, SMCPROTO_SMC);
	if (fd < 0)
		return fail("socket");
	if (server) {
		FILE *f;

		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(fd, (struct sockaddr *)&a, sizeof(a)) || listen(fd, 1))
			return fail("bind/listen");
		f = fopen(argv[4], "w");
		if (!f)
			return fail(argv[4]);
		fclose(f);
		c = accept(fd, NULL, NULL);
		if (c < 0)
			return fail("accept");
		return serve(c, deadline);
	}
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)))
		return fail("connect");
	memset(data, 'a', sizeof(data));
	if (send(fd, data, sizeof(data), 0) != sizeof(data))
		return fail("send");
	if (wait_file(argv[4], deadline)) {
		fprintf(stderr, "smc-oob: no %s in time\n", argv[4]);
		return 1;
	}
	if (send(fd, "abcU", 4, MSG_OOB) != 4)
		return fail("send MSG_OOB");
	printf("sent\n");
	fflush(stdout);
	if (wait_file(argv[5], deadline)) {
		fprintf(stderr, "smc-oob: no %s in time\n", argv[5]);
		return 1;
	}
	close(fd);
	return 0;
}
