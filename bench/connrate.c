// SPDX-License-Identifier: GPL-2.0
/*
 * smc-connrate: connection set-up rate, for bench/.
 *
 *	smc-connrate -f inet|smc [-s SECONDS] [-a SERVER_IP] [-b CLIENT_IP]
 *		     [-p PORT] [-l | -r]
 *
 * A listener on SERVER_IP (default 127.0.0.1, PORT or any free port) and a
 * client, bound to CLIENT_IP if given, in one process: connect (blocking),
 * accept, exchange one byte each way so both ends are fully set up, close
 * both; as many times as fit in SECONDS (default 5). Prints
 * "connections N seconds S rate R/s", then where a connection's time went
 * on average: "phases_us socket+connect C accept A exchange E close X".
 *
 * Between two machines the two halves run apart: -l is the listener alone
 * (on SERVER_IP:PORT, one connection at a time, until killed), -r the
 * client alone (to SERVER_IP:PORT), whose phases then have no accept.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <smc/af_smc.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * -l: the listener's half for a client elsewhere (-r): accept, answer its
 * byte, close; a connection that fails is the client's to report.
 */
static int serve(int lfd)
{
	for (;;) {
		int a = accept(lfd, NULL, NULL);
		char b;

		if (a < 0) {
			perror("smc-connrate: accept");
			return 1;
		}
		if (read(a, &b, 1) == 1 && write(a, &b, 1) != 1)
			perror("smc-connrate: write");
		close(a);
	}
}

int main(int argc, char **argv)
{
	int domain = AF_INET, proto = 0, opt, lfd = -1, one = 1;
	struct sockaddr_in sin = { .sin_family = AF_INET };
	struct sockaddr_in cin = { .sin_family = AF_INET };
	int bind_client = 0, listen_only = 0, remote = 0;
	double seconds = 5, start, end;
	socklen_t len = sizeof(sin);
	/* Seconds spent in each phase, summed over the connections. */
	double t_connect = 0, t_accept = 0, t_exchange = 0, t_close = 0;
	long count = 0;

	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	while ((opt = getopt(argc, argv, "f:s:a:b:p:lr")) != -1) {
		switch (opt) {
		case 'f':
			if (!strcmp(optarg, "smc"))
				domain = AF_SMC, proto = SMCPROTO_SMC;
			else if (strcmp(optarg, "inet"))
				goto usage;
			break;
		case 's':
			seconds = atof(optarg);
			break;
		case 'a':
			if (inet_pton(AF_INET, optarg, &sin.sin_addr) != 1)
				goto usage;
			break;
		case 'b':
			if (inet_pton(AF_INET, optarg, &cin.sin_addr) != 1)
				goto usage;
			bind_client = 1;
			break;
		case 'p':
			sin.sin_port = htons((unsigned short)atoi(optarg));
			break;
		case 'l':
			listen_only = 1;
			break;
		case 'r':
			remote = 1;
			break;
		default:
			goto usage;
		}
	}
	if ((listen_only && remote) || (remote && !sin.sin_port))
		goto usage;
	if (!remote) {
		lfd = socket(domain, SOCK_STREAM, proto);
		if (lfd < 0 || setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
		    bind(lfd, (struct sockaddr *)&sin, sizeof(sin)) || listen(lfd, 128) ||
		    getsockname(lfd, (struct sockaddr *)&sin, &len)) {
			perror("smc-connrate: listener");
			return 1;
		}
	}
	if (listen_only)
		return serve(lfd);
	start = now();
	end = start + seconds;
	while (now() < end) {
		double t0 = now(), t1, t2, t3;
		int c = socket(domain, SOCK_STREAM, proto), a = -1;
		char b = 'x';

		if (c < 0 ||
		    (bind_client && bind(c, (struct sockaddr *)&cin, sizeof(cin))) ||
		    connect(c, (struct sockaddr *)&sin, sizeof(sin)))
			goto fail;
		t1 = now();
		a = remote ? -1 : accept(lfd, NULL, NULL);
		if (a < 0 && !remote)
			goto fail;
		t2 = now();
		if (write(c, &b, 1) != 1 ||
		    (!remote && (read(a, &b, 1) != 1 || write(a, &b, 1) != 1)) ||
		    read(c, &b, 1) != 1)
			goto fail;
		t3 = now();
		close(c);
		if (a >= 0)
			close(a);
		t_connect += t1 - t0;
		t_accept += t2 - t1;
		t_exchange += t3 - t2;
		t_close += now() - t3;
		count++;
	}
	end = now();
	printf("connections %ld seconds %.2f rate %.1f/s\n", count, end - start,
	       count / (end - start));
	if (count)
		printf("phases_us socket+connect %.0f accept %.0f exchange %.0f close %.0f\n",
		       t_connect / count * 1e6, t_accept / count * 1e6,
		       t_exchange / count * 1e6, t_close / count * 1e6);
	return 0;
fail:
	perror("smc-connrate: connection");
	return 1;
usage:
	fprintf(stderr, "usage: smc-connrate -f inet|smc [-s SECONDS] [-a SERVER_IP] [-b CLIENT_IP] "
		"[-p PORT] [-l | -r]\n");
	return 2;
}
