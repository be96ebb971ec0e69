// SPDX-License-Identifier: GPL-2.0
/*
 * handshake/badpeer: af_smc against peers that offer SMC in the TCP
 * handshake and then break the CLC exchange (the smc_badpeer module, see
 * smc_badpeer.c). Whatever the peer does, the application gets either a
 * working connection or a clean error, within the CLC wait time (2 s)
 * plus a margin, and closing a socket mid-handshake never waits for it.
 *
 * Expected errors (our choice, Documentation/decisions.md): bytes that are
 * no CLC message EPROTO; no message in time ETIMEDOUT; the peer closing or
 * resetting ECONNRESET.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <smc/af_smc.h>

#include "family.h"
#include "smcdiag.h"
#include "tap.h"

#define BASE_PORT 7700		/* smc_badpeer's base_port, set by badpeer.sh */

struct bad_server {
	const char *name;
	int mode;		/* listens on BASE_PORT + mode */
	int err;		/* what connect() reports */
	int alt_err;		/* or this, which TCP may give instead */
	int waits;		/* the error comes only after the CLC wait */
};

/*
 * A server that closes or resets: TCP reports the reset around our Proposal
 * as ECONNRESET, or as EPIPE when the FIN got there first (CLOSE_WAIT). A
 * blocking connect() whose TCP part wakes after the CLC read has already
 * taken the reset sees a closed socket with no error left and says
 * ECONNABORTED, as TCP's own connect() does in that case; also clean.
 */
static const struct bad_server servers[] = {
	{ "garbage", 0, EPROTO, EPROTO, 0 },
	{ "silent", 1, ETIMEDOUT, ETIMEDOUT, 1 },
	{ "close", 2, ECONNRESET, EPIPE, 0 },
	{ "late decline", 3, ETIMEDOUT, ETIMEDOUT, 1 },
	{ "truncated decline", 4, ETIMEDOUT, ETIMEDOUT, 1 },
	{ "reset", 5, ECONNRESET, EPIPE, 0 },
};

static void bad_addr(int port, struct sockaddr_in *sin)
{
	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	sin->sin_port = htons(port);
	sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
}

/* The elapsed time fits what the peer does: quick, or about the CLC wait. */
static void check_time(const struct bad_server *b, long ms)
{
	long slack = (long)(1500 * tap_timeout_scale());
	long wait = sf_clc_wait_ms();

	tap_diag("%s: result after %ld ms", b->name, ms);
	if (b->waits)
		EXPECT(ms >= wait - 100 && ms <= wait + slack);
	else
		EXPECT(ms <= slack);
}

/*
 * A client waits for the server's CLC answer only when it proposes SMC.
 * Without an SMC device it declines at once ("no SMC device") and never
 * reads what a server sends, so the bad servers could not trouble it and
 * the client cases would prove nothing. badpeer.sh loads af_smc with the
 * loopback ISM device, so a client that does not wait is a regression of
 * that device or of the client's Proposal: the client cases fail, with
 * what the probe saw. Probed once, in main(): a blocking connect to the
 * silent server must fail after the CLC wait, not succeed at once.
 */
static char client_never_waits[160];

static void probe_client(void)
{
	struct sockaddr_in sin;
	struct sd_sock s;
	int fd = socket(AF_SMC, SOCK_STREAM, SMCPROTO_SMC);

	bad_addr(BASE_PORT + 1, &sin);	/* silent: answers nothing */
	if (fd < 0)
		return;
	if (!connect(fd, (struct sockaddr *)&sin, sizeof(sin))) {
		if (sd_find_fd(fd, &s))
			snprintf(client_never_waits, sizeof(client_never_waits),
				 "connected at once, mode unknown to sock_diag");
		else
			snprintf(client_never_waits, sizeof(client_never_waits),
				 "connected at once, mode %u, fallback 0x%08x/0x%08x%s",
				 s.mode, s.reason, s.peer_diagnosis,
				 s.reason == 0x03030000 ? " (no SMC device)" : "");
	}
	close(fd);
}

static void require_client_waits(void)
{
	sf_require(sf_find("smc"));
	if (client_never_waits[0]) {
		tap_fail("our client did not propose SMC-D and wait for the silent server's CLC "
			 "answer, though badpeer.sh loaded af_smc with loopback_ism=1: %s",
			 client_never_waits);
		tap_end();
	}
}

static void blocking_connect(const void *arg)
{
	const struct bad_server *b = arg;
	struct sockaddr_in sin;
	long t0;
	int fd;

	require_client_waits();
	bad_addr(BASE_PORT + b->mode, &sin);
	fd = ASSERT_SYS(socket(AF_SMC, SOCK_STREAM, SMCPROTO_SMC));
	t0 = tap_now_ms();
	errno = 0;
	EXPECT_EQ(connect(fd, (struct sockaddr *)&sin, sizeof(sin)), -1);
	tap_diag("%s: connect failed with %s", b->name, tap_errno_name(errno));
	EXPECT(errno == b->err || errno == b->alt_err ||
	       (b->alt_err == EPIPE && errno == ECONNABORTED));
	check_time(b, tap_now_ms() - t0);
	/* The error was reported once; the socket is closed for good. */
	EXPECT_ERRNO(send(fd, "x", 1, MSG_NOSIGNAL), EPIPE);
	EXPECT_SYS(close(fd));
}

static void nonblocking_connect(const void *arg)
{
	const struct bad_server *b = arg;
	struct sockaddr_in sin;
	struct pollfd pfd;
	socklen_t len;
	char ev[128];
	int fd, err = 0;
	long t0;

	require_client_waits();
	bad_addr(BASE_PORT + b->mode, &sin);
	fd = ASSERT_SYS(socket(AF_SMC, SOCK_STREAM | SOCK_NONBLOCK, SMCPROTO_SMC));
	t0 = tap_now_ms();
	ASSERT_ERRNO(connect(fd, (struct sockaddr *)&sin, sizeof(sin)), EINPROGRESS);
	EXPECT(tap_now_ms() - t0 < 500);	/* the handshake never blocks the caller */
	pfd = (struct pollfd){ .fd = fd, .events = POLLOUT };
	ASSERT_EQ(poll(&pfd, 1, (int)(10000 * tap_timeout_scale())), 1);
	check_time(b, tap_now_ms() - t0);
	tap_diag("poll: %s", sf_poll_str(pfd.revents, ev, sizeof(ev)));
	EXPECT(pfd.revents & POLLERR);
	len = sizeof(err);
	EXPECT_SYS(getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len));
	tap_diag("SO_ERROR %s", tap_errno_name(err));
	EXPECT(err == b->err || err == b->alt_err);
	EXPECT_SYS(close(fd));
}

/* Closing while the CLC wait runs returns at once, blocking or not. */
static void close_mid_handshake(const void *arg)
{
	struct sockaddr_in sin;
	long t0;
	int fd;

	(void)arg;
	require_client_waits();
	bad_addr(BASE_PORT + 1, &sin);	/* silent */
	fd = ASSERT_SYS(socket(AF_SMC, SOCK_STREAM | SOCK_NONBLOCK, SMCPROTO_SMC));
	ASSERT_ERRNO(connect(fd, (struct sockaddr *)&sin, sizeof(sin)), EINPROGRESS);
	usleep(300 * 1000);	/* TCP is up, the CLC wait has begun */
	t0 = tap_now_ms();
	EXPECT_SYS(close(fd));
	tap_diag("close took %ld ms", tap_now_ms() - t0);
	EXPECT(tap_now_ms() - t0 < 500);
}

/* Data calls of a connecting socket wait for the outcome, or EAGAIN. */
static void data_calls_wait(const void *arg)
{
	struct sockaddr_in sin;
	char c;
	int fd;
	long t0;

	(void)arg;
	require_client_waits();
	bad_addr(BASE_PORT + 1, &sin);	/* silent */
	fd = ASSERT_SYS(socket(AF_SMC, SOCK_STREAM | SOCK_NONBLOCK, SMCPROTO_SMC));
	ASSERT_ERRNO(connect(fd, (struct sockaddr *)&sin, sizeof(sin)), EINPROGRESS);
	usleep(200 * 1000);
	EXPECT_ERRNO(connect(fd, (struct sockaddr *)&sin, sizeof(sin)), EALREADY);
	EXPECT_ERRNO(send(fd, "x", 1, MSG_NOSIGNAL), EAGAIN);
	EXPECT_ERRNO(recv(fd, &c, 1, 0), EAGAIN);
	EXPECT_ERRNO(getpeername(fd, (struct sockaddr *)&sin, &(socklen_t){ sizeof(sin) }),
		     ENOTCONN);
	/* A blocking recv waits for the outcome, then reports it. */
	ASSERT_SYS(fcntl(fd, F_SETFL, 0));
	t0 = tap_now_ms();
	EXPECT_ERRNO(recv(fd, &c, 1, 0), ETIMEDOUT);
	tap_diag("blocking recv ended after %ld ms", tap_now_ms() - t0);
	EXPECT_SYS(close(fd));
}

/* ---- our listener against misbehaving clients ---- */

static void bad_client(const char *mode, int port)
{
	char cmd[64];
	int fd = ASSERT_SYS(open("/sys/module/smc_badpeer/parameters/connect", O_WRONLY));

	snprintf(cmd, sizeof(cmd), "%s %d", mode, port);
	ASSERT_EQ(write(fd, cmd, strlen(cmd)), (long)strlen(cmd));
	close(fd);
}

/* Sockets of this netns in state INIT: children still in their handshake. */
static int children_in_handshake(void)
{
	struct sd_sock all[256];
	int n = sd_dump(all, 256), i, count = 0;

	for (i = 0; i < n && i < 256; i++)
		count += all[i].state == 2 && all[i].dport != 0;
	return count;
}

static void listener_vs_bad_client(const void *arg)
{
	const char *mode = arg;
	const struct sf_family *f = sf_find("smc");
	struct sockaddr_storage addr, peer, local;
	socklen_t len;
	long t0;
	int lfd, cfd, afd;

	sf_require(f);
	lfd = ASSERT_SYS(sf_listen(f, NULL, 0, 8, &addr));
	bad_client(mode, sf_port(&addr));
	usleep(300 * 1000);
	tap_diag("%s client: %d connection(s) in their handshake", mode,
		 children_in_handshake());
	if (!strcmp(mode, "silent"))
		EXPECT_EQ(children_in_handshake(), 1);
	/* A good client is served at once, whatever the bad one does. */
	t0 = tap_now_ms();
	cfd = ASSERT_SYS(sf_connect(f, &addr));
	afd = ASSERT_SYS(accept(lfd, (struct sockaddr *)&peer, &(socklen_t){ sizeof(peer) }));
	tap_diag("good client accepted after %ld ms", tap_now_ms() - t0);
	EXPECT(tap_now_ms() - t0 < 1000 * tap_timeout_scale());
	len = sizeof(local);
	ASSERT_SYS(getsockname(cfd, (struct sockaddr *)&local, &len));
	EXPECT_EQ(sf_port(&peer), sf_port(&local));
	ASSERT_EQ(write(cfd, "hi", 2), 2);
	{
		char buf[2];

		EXPECT_EQ(sf_read_all(afd, buf, 2), 0);
	}
	/* The bad one is dropped within the CLC wait, never accepted. */
	usleep((sf_clc_wait_ms() + 700) * 1000);
	EXPECT_EQ(children_in_handshake(), 0);
	ASSERT_SYS(fcntl(lfd, F_SETFL, O_NONBLOCK));
	EXPECT_ERRNO(accept(lfd, NULL, NULL), EAGAIN);
	close(cfd);
	close(afd);
	close(lfd);
}

static void close_listener_mid_handshake(const void *arg)
{
	const struct sf_family *f = sf_find("smc");
	struct sockaddr_storage addr;
	long t0;
	int lfd;

	(void)arg;
	sf_require(f);
	lfd = ASSERT_SYS(sf_listen(f, NULL, 0, 8, &addr));
	bad_client("silent", sf_port(&addr));
	usleep(300 * 1000);
	EXPECT_EQ(children_in_handshake(), 1);
	t0 = tap_now_ms();
	EXPECT_SYS(close(lfd));
	EXPECT(tap_now_ms() - t0 < 500);
	/* The child ends its wait and frees itself, well before the CLC wait. */
	usleep(300 * 1000);
	EXPECT_EQ(children_in_handshake(), 0);
}

int main(void)
{
	unsigned int i;

	probe_client();
	for (i = 0; i < sizeof(servers) / sizeof(servers[0]); i++) {
		const struct bad_server *b = &servers[i];
		char errs[64];

		snprintf(errs, sizeof(errs), "%s%s%s", tap_errno_name(b->err),
			 b->alt_err != b->err ? " or " : "",
			 b->alt_err != b->err ? tap_errno_name(b->alt_err) : "");
		tap_add((tap_case_fn)blocking_connect, b, 20,
			"server %s: blocking connect fails with %s", b->name, errs);
		tap_add((tap_case_fn)nonblocking_connect, b, 20,
			"server %s: non-blocking connect, POLLERR and SO_ERROR %s",
			b->name, errs);
	}
	tap_add(close_mid_handshake, NULL, 20, "closing a socket mid-handshake returns at once");
	tap_add(data_calls_wait, NULL, 20,
		"during the handshake: EALREADY, EAGAIN, ENOTCONN; blocking recv gets the outcome");
	tap_add(listener_vs_bad_client, "garbage", 30,
		"client sends garbage: dropped, a good client is served");
	tap_add(listener_vs_bad_client, "silent", 30,
		"client stays silent: dropped after the CLC wait, a good client is served meanwhile");
	tap_add(listener_vs_bad_client, "close", 30,
		"client closes mid-handshake: dropped, a good client is served");
	tap_add(close_listener_mid_handshake, NULL, 30,
		"closing the listener with a child mid-handshake returns at once");
	return tap_run();
}
