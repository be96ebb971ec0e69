// SPDX-License-Identifier: GPL-2.0
/*
 * socket/teardown: the ends of a connection beyond shutdown.c. shutdown in
 * each direction and its errors, close with unread data (the peer gets a
 * reset), SO_LINGER, SIGPIPE, and data calls on a socket that never
 * connected. Every case is differential (diff.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "diff.h"
#include "family.h"
#include "tap.h"

static void observe_shut_rd(const struct sf_family *f, struct obs *o)
{
	struct sf_conn c;
	char buf[64];

	diff_establish(f, &c);
	ASSERT_SYS(send(c.client, "before", 6, 0));
	diff_wait_inq(c.server, 6);
	OBS_RET(o, "shutdown(SHUT_RD)", shutdown(c.server, SHUT_RD));
	obs_poll(o, "poll after SHUT_RD", diff_poll_now(c.server));
	/* Linux TCP still hands out what was queued, then reports EOF. */
	OBS_RET(o, "recv queued", recv(c.server, buf, sizeof(buf), MSG_DONTWAIT));
	OBS_RET(o, "recv then", recv(c.server, buf, sizeof(buf), MSG_DONTWAIT));
	/* The other direction works. */
	obs_int(o, "server to client data", diff_transfer_ok(c.server, c.client, 4000, 1));
	obs_poll(o, "client poll", diff_poll_now(c.client));
	OBS_RET(o, "shutdown(SHUT_RD) again", shutdown(c.server, SHUT_RD));
	diff_conn_close(&c);
	obs_want(o, "shutdown(SHUT_RD)", 0);
	obs_want(o, "server to client data", 1);
}
DIFF_CASE(shut_rd)

static void observe_shutdown_errors(const struct sf_family *f, struct obs *o)
{
	struct sf_conn c;
	int fd = (int)ASSERT_SYS(sf_socket(f, SOCK_CLOEXEC));

	OBS_RET(o, "shutdown(SHUT_WR) unconnected", shutdown(fd, SHUT_WR));
	OBS_RET(o, "shutdown(SHUT_RDWR) unconnected", shutdown(fd, SHUT_RDWR));
	OBS_RET(o, "shutdown(3) unconnected", shutdown(fd, 3));
	close(fd);
	diff_establish(f, &c);
	OBS_RET(o, "shutdown(3) connected", shutdown(c.client, 3));
	OBS_RET(o, "shutdown(-1) connected", shutdown(c.client, -1));
	OBS_RET(o, "shutdown(SHUT_WR)", shutdown(c.client, SHUT_WR));
	OBS_RET(o, "shutdown(SHUT_WR) again", shutdown(c.client, SHUT_WR));
	OBS_RET(o, "shutdown(SHUT_RDWR) after", shutdown(c.client, SHUT_RDWR));
	obs_poll(o, "client poll", diff_wait(c.client, POLLIN));
	obs_poll(o, "server poll", diff_wait(c.server, POLLIN));
	diff_conn_close(&c);
	obs_want(o, "shutdown(SHUT_WR) unconnected errno", ENOTCONN);
	obs_want(o, "shutdown(3) connected errno", EINVAL);
	obs_want(o, "shutdown(SHUT_WR) again", 0);
}
DIFF_CASE(shutdown_errors)

/*
 * The peer's poll mask once a reset has landed, not the mask its poll woke
 * with: TCP itself sets sk_err before the shutdown bits, so a poll racing
 * the RST may read POLLERR alone (seen between two VMs, on tcp ipv6).
 * diff_wait() lets the rest arrive before the mask is taken.
 */
static short reset_poll(int fd, short events)
{
	diff_wait(fd, events);
	return diff_poll_now(fd);
}

/* Closing with data unread resets the connection: the peer sees ECONNRESET. */
static void observe_close_unread_recv(const struct sf_family *f, struct obs *o)
{
	struct sf_conn c;
	char buf[64];

	diff_establish(f, &c);
	ASSERT_SYS(send(c.client, "unread", 6, 0));
	diff_wait_inq(c.server, 6);
	ASSERT_SYS(close(c.server));
	c.server = -1;
	obs_poll(o, "peer poll", reset_poll(c.client, POLLIN | POLLRDHUP));
	OBS_RET(o, "peer recv", recv(c.client, buf, sizeof(buf), 0));
	OBS_RET(o, "peer recv again", recv(c.client, buf, sizeof(buf), 0));
	OBS_RET(o, "peer send", send(c.client, "x", 1, MSG_NOSIGNAL));
	obs_poll(o, "peer poll at end", diff_poll_now(c.client));
	diff_conn_close(&c);
	obs_want(o, "peer recv errno", ECONNRESET);
}
DIFF_CASE(close_unread_recv)

static void observe_close_unread_so_error(const struct sf_family *f, struct obs *o)
{
	struct sf_conn c;
	char buf[64];

	diff_establish(f, &c);
	ASSERT_SYS(send(c.client, "unread", 6, 0));
	diff_wait_inq(c.server, 6);
	ASSERT_SYS(close(c.server));
	c.server = -1;
	obs_poll(o, "peer poll", reset_poll(c.client, POLLIN | POLLRDHUP));
	obs_errno(o, "peer SO_ERROR", diff_so_error(c.client));
	obs_errno(o, "peer SO_ERROR again", diff_so_error(c.client));
	OBS_RET(o, "peer recv after SO_ERROR", recv(c.client, buf, sizeof(buf), MSG_DONTWAIT));
	obs_poll(o, "peer poll at end", diff_poll_now(c.client));
	diff_conn_close(&c);
	obs_want(o, "peer SO_ERROR", ECONNRESET);
	obs_want(o, "peer SO_ERROR again", 0);
}
DIFF_CASE(close_unread_so_error)

static void observe_linger_zero(const struct sf_family *f, struct obs *o)
{
	struct linger l = { .l_onoff = 1, .l_linger = 0 }, got;
	socklen_t len = sizeof(got);
	struct sf_conn c;
	char buf[64];

	diff_establish(f, &c);
	OBS_RET(o, "setsockopt(SO_LINGER 1,0)", setsockopt(c.client, SOL_SOCKET, SO_LINGER, &l, sizeof(l)));
	OBS_RET(o, "getsockopt(SO_LINGER)", getsockopt(c.client, SOL_SOCKET, SO_LINGER, &got, &len));
	obs_int(o, "l_onoff", got.l_onoff);
	obs_int(o, "l_linger", got.l_linger);
	ASSERT_SYS(send(c.client, "sent", 4, 0));
	diff_wait_inq(c.server, 4);
	OBS_RET(o, "close", close(c.client));
	c.client = -1;
	/*
	 * Wait for the reset itself: POLLIN is already true from the 4 queued
	 * bytes, so waiting for it would record whatever the race between the
	 * reset and this poll gave (between two VMs it differed run to run).
	 */
	obs_poll(o, "peer poll", reset_poll(c.server, POLLRDHUP));
	OBS_RET(o, "peer recv", recv(c.server, buf, sizeof(buf), 0));
	OBS_RET(o, "peer recv again", recv(c.server, buf, sizeof(buf), 0));
	diff_conn_close(&c);
	obs_want(o, "l_onoff", 1);
	obs_want(o, "l_linger", 0);
	obs_want(o, "peer recv", 4);
	obs_want(o, "peer recv again errno", ECONNRESET);
}
DIFF_CASE(linger_zero)

/*
 * A positive linger: close waits for the data to leave; the peer reads it
 * all, then EOF. 60000 bytes fit into the peer's receive buffer on both
 * transports (an SMC ring is 64 KiB by default), so close returns without
 * waiting out the linger time on either.
 */
static void observe_linger_graceful(const struct sf_family *f, struct obs *o)
{
	struct linger l = { .l_onoff = 1, .l_linger = 5 };
	struct sf_conn c;
	static char buf[200000];
	size_t got = 0;
	ssize_t n;

	diff_establish(f, &c);
	OBS_RET(o, "setsockopt(SO_LINGER 1,5)", setsockopt(c.client, SOL_SOCKET, SO_LINGER, &l, sizeof(l)));
	memset(buf, 'L', sizeof(buf));
	ASSERT_SYS(sf_write_all(c.client, buf, 60000));
	OBS_RET(o, "close", close(c.client));
	c.client = -1;
	while ((n = read(c.server, buf + got, sizeof(buf) - got)) > 0)
		got += (size_t)n;
	obs_int(o, "peer read bytes", (long long)got);
	obs_int(o, "peer final read", n);
	diff_conn_close(&c);
	obs_want(o, "peer read bytes", 60000);
	obs_want(o, "peer final read", 0);
}
DIFF_CASE(linger_graceful)

/* Run fn in a child with SIGPIPE at its default; returns the signal that ended it, or 0. */
static int child_signal(void (*fn)(int), int fd)
{
	int status;
	pid_t pid = fork();

	ASSERT(pid >= 0);
	if (pid == 0) {
		signal(SIGPIPE, SIG_DFL);
		fn(fd);
		_exit(0);
	}
	ASSERT_SYS(waitpid(pid, &status, 0));
	return WIFSIGNALED(status) ? WTERMSIG(status) : 0;
}

static void send_one(int fd)
{
	if (send(fd, "p", 1, 0) < 0)
		_exit(10);
}

static void write_one(int fd)
{
	if (write(fd, "p", 1) < 0)
		_exit(10);
}

static void send_nosignal(int fd)
{
	if (send(fd, "p", 1, MSG_NOSIGNAL) < 0)
		_exit(errno == EPIPE ? 11 : 12);
}

static void observe_sigpipe(const struct sf_family *f, struct obs *o)
{
	struct sf_conn c;
	int fd;

	diff_establish(f, &c);
	ASSERT_SYS(shutdown(c.client, SHUT_WR));
	obs_int(o, "send after SHUT_WR: signal", child_signal(send_one, c.client));
	obs_int(o, "write after SHUT_WR: signal", child_signal(write_one, c.client));
	obs_int(o, "send(MSG_NOSIGNAL): signal", child_signal(send_nosignal, c.client));
	diff_conn_close(&c);
	fd = (int)ASSERT_SYS(sf_socket(f, SOCK_CLOEXEC));
	obs_int(o, "send unconnected: signal", child_signal(send_one, fd));
	close(fd);
	obs_want(o, "send after SHUT_WR: signal", 13);
	obs_want(o, "write after SHUT_WR: signal", 13);
	obs_want(o, "send(MSG_NOSIGNAL): signal", 0);
	obs_want(o, "send unconnected: signal", 13);
}
DIFF_CASE(sigpipe)

static void observe_never_connected(const struct sf_family *f, struct obs *o)
{
	struct sockaddr_storage addr;
	char buf[8];
	int fd = (int)ASSERT_SYS(sf_socket(f, SOCK_CLOEXEC));

	/* SIGPIPE is ignored by the harness: EPIPE comes back instead. */
	OBS_RET(o, "recv", recv(fd, buf, sizeof(buf), 0));
	OBS_RET(o, "recv(MSG_DONTWAIT)", recv(fd, buf, sizeof(buf), MSG_DONTWAIT));
	OBS_RET(o, "read", read(fd, buf, sizeof(buf)));
	OBS_RET(o, "send", send(fd, "x", 1, 0));
	OBS_RET(o, "write", write(fd, "x", 1));
	OBS_RET(o, "send(0 bytes)", send(fd, "x", 0, 0));
	sf_addr(f, NULL, 0, &addr);
	OBS_RET(o, "sendto(an address)", sendto(fd, "x", 1, 0, (struct sockaddr *)&addr, sf_addr_len(&addr)));
	ASSERT_SYS(bind(fd, (struct sockaddr *)&addr, sf_addr_len(&addr)));
	OBS_RET(o, "recv bound", recv(fd, buf, sizeof(buf), 0));
	OBS_RET(o, "send bound", send(fd, "x", 1, 0));
	ASSERT_SYS(listen(fd, 1));
	OBS_RET(o, "recv listening", recv(fd, buf, sizeof(buf), 0));
	OBS_RET(o, "send listening", send(fd, "x", 1, 0));
	close(fd);
	obs_want(o, "recv errno", ENOTCONN);
	obs_want(o, "read errno", ENOTCONN);
	obs_want(o, "send errno", EPIPE);
	obs_want(o, "write errno", EPIPE);
}
DIFF_CASE(never_connected)

static const struct sf_case cases[] = {
	{ "shutdown(SHUT_RD): queued data then EOF, the other direction still works", shut_rd, 0 },
	{ "shutdown on an unconnected socket, bad 'how', repeated shutdowns", shutdown_errors,
	  0 },
	{ "close with unread data: the peer's recv fails with ECONNRESET", close_unread_recv, 0 },
	{ "close with unread data: the peer's SO_ERROR is ECONNRESET", close_unread_so_error,
	  0 },
	{ "SO_LINGER {1, 0}: close resets, the peer gets ECONNRESET", linger_zero, 0 },
	{ "SO_LINGER {1, 5}: close delivers all data, then EOF", linger_graceful, 0 },
	{ "SIGPIPE is delivered by default on a write after shutdown, not with MSG_NOSIGNAL",
	  sigpipe, 0 },
	{ "recv on a never-connected socket fails with ENOTCONN, send with EPIPE",
	  never_connected, 0 },
};

int main(int argc, char **argv)
{
	return sf_test_main(argc, argv, cases, sizeof(cases) / sizeof(cases[0]));
}
