// SPDX-License-Identifier: GPL-2.0
/*
 * socket/connect_state: the states of connect() beyond the basics of
 * connect.c: a connect still pending (EALREADY, SO_SNDTIMEO, close while
 * pending), repeated connects, connect on a listener, bad addresses, and
 * waiting for the outcome with epoll and select. Every case is differential
 * (diff.h): AF_SMC must observe what its TCP oracle observes.
 *
 * A connect is kept pending deterministically by a listener whose accept
 * queue is full (backlog 0 and one connection not accepted): TCP drops the
 * SYN and the client retries it after a second, so accepting the queued
 * connection lets the pending one complete.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <unistd.h>

#include "diff.h"
#include "family.h"
#include "tap.h"

#define SYN_RETRY_WAIT_MS 10000 /* SYN retries at 1 s and 3 s after the first */

struct full {
	int lfd, filler;
	struct sockaddr_storage addr;
};

static void full_listener(const struct sf_family *f, struct full *q)
{
	q->lfd = (int)ASSERT_SYS(sf_listen(f, NULL, 0, 0, &q->addr));
	q->filler = (int)ASSERT_SYS(diff_connect(f, &q->addr));
	usleep(50000); /* the queued connection is complete on the server side too */
}

static int connect_to(int fd, const struct sockaddr_storage *a)
{
	return connect(fd, (const struct sockaddr *)a, sf_addr_len(a));
}

/* Accept the filler so the pending connect can get in; close everything. */
static void unblock(struct full *q)
{
	int afd = (int)ASSERT_SYS(accept4(q->lfd, NULL, NULL, SOCK_CLOEXEC));

	close(afd);
}

static void observe_pending_ealready(const struct sf_family *f, struct obs *o)
{
	struct full q;
	int fd, afd;

	full_listener(f, &q);
	fd = (int)ASSERT_SYS(sf_socket(f, SOCK_NONBLOCK | SOCK_CLOEXEC));
	OBS_RET(o, "connect", connect_to(fd, &q.addr));
	OBS_RET(o, "connect again", connect_to(fd, &q.addr));
	obs_poll(o, "poll while pending", diff_poll(fd, POLLIN | POLLOUT | POLLRDHUP, 300));
	unblock(&q);
	obs_poll(o, "poll(POLLOUT) after accept",
		 diff_poll(fd, POLLOUT, SYN_RETRY_WAIT_MS));
	obs_int(o, "SO_ERROR", diff_so_error(fd));
	OBS_RET(o, "connect after completion", connect_to(fd, &q.addr));
	OBS_RET(o, "connect once more", connect_to(fd, &q.addr));
	afd = (int)ASSERT_SYS(diff_accept(f, q.lfd));
	obs_int(o, "data", diff_transfer_ok(fd, afd, 3000, 11));
	close(afd);
	close(fd);
	close(q.filler);
	close(q.lfd);
	obs_want(o, "connect errno", EINPROGRESS);
	obs_want(o, "connect again errno", EALREADY);
	obs_want(o, "poll while pending", 0);
	obs_want(o, "poll(POLLOUT) after accept", POLLOUT);
	obs_want(o, "SO_ERROR", 0);
	obs_want(o, "connect after completion", 0);
	obs_want(o, "connect once more errno", EISCONN);
	obs_want(o, "data", 1);
}
DIFF_CASE(pending_ealready)

static void observe_sndtimeo(const struct sf_family *f, struct obs *o)
{
	struct timeval tv = { .tv_sec = 0, .tv_usec = 300000 };
	struct full q;
	int64_t t0;
	int fd;

	full_listener(f, &q);
	fd = (int)ASSERT_SYS(sf_socket(f, SOCK_CLOEXEC));
	ASSERT_SYS(setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)));
	t0 = diff_now_ms();
	OBS_RET(o, "blocking connect with SO_SNDTIMEO 300 ms", connect_to(fd, &q.addr));
	obs_int(o, "waited >= 250 ms", diff_now_ms() - t0 >= 250);
	OBS_RET(o, "connect again", connect_to(fd, &q.addr));
	unblock(&q);
	obs_poll(o, "poll(POLLOUT)", diff_poll(fd, POLLOUT, SYN_RETRY_WAIT_MS));
	obs_int(o, "SO_ERROR", diff_so_error(fd));
	close(fd);
	close(q.filler);
	close(q.lfd);
	obs_want(o, "blocking connect with SO_SNDTIMEO 300 ms errno", EINPROGRESS);
	obs_want(o, "waited >= 250 ms", 1);
	obs_want(o, "connect again errno", EALREADY);
	obs_want(o, "poll(POLLOUT)", POLLOUT);
}
DIFF_CASE(sndtimeo)

static void observe_close_pending(const struct sf_family *f, struct obs *o)
{
	struct full q;
	int fd, c2, afd;

	full_listener(f, &q);
	fd = (int)ASSERT_SYS(sf_socket(f, SOCK_NONBLOCK | SOCK_CLOEXEC));
	OBS_RET(o, "connect", connect_to(fd, &q.addr));
	usleep(100000);
	OBS_RET(o, "close while pending", close(fd));
	unblock(&q);
	/* The listener is unharmed: a new client gets in and moves data. */
	c2 = (int)ASSERT_SYS(diff_connect(f, &q.addr));
	afd = (int)ASSERT_SYS(diff_accept(f, q.lfd));
	obs_int(o, "next connection data", diff_transfer_ok(c2, afd, 5000, 12));
	close(afd);
	close(c2);
	close(q.filler);
	close(q.lfd);
	obs_want(o, "close while pending", 0);
	obs_want(o, "next connection data", 1);
}
DIFF_CASE(close_pending)

static void observe_connect_twice(const struct sf_family *f, struct obs *o)
{
	struct sockaddr_storage other;
	struct sf_conn c;
	int reserve;

	diff_establish(f, &c);
	reserve = diff_closed_port(f, &other);
	OBS_RET(o, "connect to the same address", connect_to(c.client, &c.addr));
	OBS_RET(o, "connect elsewhere", connect_to(c.client, &other));
	obs_int(o, "still connected: data", diff_transfer_ok(c.client, c.server, 2000, 13));
	close(reserve);
	diff_conn_close(&c);
	obs_want(o, "connect to the same address errno", EISCONN);
	obs_want(o, "connect elsewhere errno", EISCONN);
	obs_want(o, "still connected: data", 1);
}
DIFF_CASE(connect_twice)

static void observe_connect_listener(const struct sf_family *f, struct obs *o)
{
	struct sockaddr_storage addr, other;
	int lfd = (int)ASSERT_SYS(sf_listen(f, NULL, 0, 4, &addr));
	int l2 = (int)ASSERT_SYS(sf_listen(f, NULL, 0, 4, &other));
	int c, afd;

	OBS_RET(o, "connect on a listener to itself", connect_to(lfd, &addr));
	OBS_RET(o, "connect on a listener to another", connect_to(lfd, &other));
	/* It still listens. */
	c = (int)ASSERT_SYS(diff_connect(f, &addr));
	afd = (int)OBS_ERR(o, "accept", diff_accept(f, lfd));
	if (afd >= 0)
		close(afd);
	close(c);
	close(l2);
	close(lfd);
	obs_want(o, "connect on a listener to itself errno", EISCONN);
	obs_want(o, "accept", 0);
}
DIFF_CASE(connect_listener)

/*
 * connect() in a child process, given ms to return: a call that TCP answers
 * at once must not hang the whole case when another family blocks in it.
 * Records "name" (the result, or -2 when it hung and was killed), "name
 * errno" and "name returned".
 */
static void bounded_connect(struct obs *o, const char *name, int fd,
			    const struct sockaddr *sa, socklen_t len, int ms)
{
	int p[2], v[2] = { -2, 0 }, status;
	char n[56];
	pid_t pid;

	ASSERT_SYS(pipe(p));
	pid = fork();
	ASSERT(pid >= 0);
	if (pid == 0) {
		v[0] = connect(fd, sa, len);
		v[1] = v[0] ? errno : 0;
		_exit(write(p[1], v, sizeof(v)) == sizeof(v) ? 0 : 1);
	}
	close(p[1]);
	if (diff_poll(p[0], POLLIN, ms) & POLLIN) {
		if (read(p[0], v, sizeof(v)) != sizeof(v))
			v[0] = -3;
	} else {
		kill(pid, SIGKILL);
		tap_diag("%s did not return within %d ms", name, ms);
	}
	waitpid(pid, &status, 0);
	close(p[0]);
	obs_result(o, name, v[0], v[1]);
	snprintf(n, sizeof(n), "%s returned", name);
	obs_int(o, n, v[0] != -2);
}

static void observe_bad_address(const struct sf_family *f, struct obs *o)
{
	struct sockaddr_storage addr, wrong, unspec;
	const struct sf_family *other = sf_find(f->addr_family == AF_INET ? "inet6" : "inet");
	int lfd = (int)ASSERT_SYS(sf_listen(f, NULL, 0, 4, &addr));
	int fd = (int)ASSERT_SYS(sf_socket(f, SOCK_CLOEXEC));
	int afd;

	OBS_RET(o, "connect(len 0)", connect(fd, (struct sockaddr *)&addr, 0));
	OBS_RET(o, "connect(len 4)", connect(fd, (struct sockaddr *)&addr, 4));
	OBS_RET(o, "connect(NULL, len 16)", connect(fd, NULL, 16));
	sf_addr(other, NULL, sf_port(&addr), &wrong);
	OBS_RET(o, "connect(other family's address)", connect_to(fd, &wrong));
	memset(&unspec, 0, sizeof(unspec));
	unspec.ss_family = AF_UNSPEC;
	bounded_connect(o, "connect(AF_UNSPEC) unconnected", fd, (struct sockaddr *)&unspec,
			sizeof(struct sockaddr_in), 5000);
	/* None of this broke the socket. */
	bounded_connect(o, "connect(good)", fd, (struct sockaddr *)&addr, sf_addr_len(&addr), 5000);
	afd = (int)OBS_ERR(o, "accept", accept4(lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK));
	if (afd >= 0) {
		diff_set_nonblock(afd, 0);
		obs_int(o, "data", diff_transfer_ok(afd, fd, 1000, 14));
		close(afd);
	}
	close(fd);
	close(lfd);
	obs_want(o, "connect(len 0) errno", EINVAL);
	obs_want(o, "connect(AF_UNSPEC) unconnected returned", 1);
	obs_want(o, "connect(AF_UNSPEC) unconnected", 0);
	obs_want(o, "connect(good)", 0);
	obs_want(o, "data", 1);
}
DIFF_CASE(bad_address)

static void observe_reconnect_after_refused(const struct sf_family *f, struct obs *o)
{
	struct sockaddr_storage closed, addr;
	int reserve = diff_closed_port(f, &closed);
	int lfd = (int)ASSERT_SYS(sf_listen(f, NULL, 0, 4, &addr));
	int fd = (int)ASSERT_SYS(sf_socket(f, SOCK_CLOEXEC));
	int afd;

	OBS_RET(o, "connect to a closed port", connect_to(fd, &closed));
	OBS_RET(o, "connect the same socket to a listener", connect_to(fd, &addr));
	afd = (int)OBS_ERR(o, "accept", accept4(lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK));
	if (afd >= 0) {
		diff_set_nonblock(afd, 0);
		obs_int(o, "data", diff_transfer_ok(fd, afd, 1000, 15));
		close(afd);
	}
	close(fd);
	close(lfd);
	close(reserve);
	obs_want(o, "connect to a closed port errno", ECONNREFUSED);
	obs_want(o, "connect the same socket to a listener", 0);
	obs_want(o, "data", 1);
}
DIFF_CASE(reconnect_after_refused)

/* epoll for the outcome of a non-blocking connect, to a listener or a closed port. */
static void epoll_connect(const struct sf_family *f, struct obs *o, int refused)
{
	struct sockaddr_storage addr;
	struct epoll_event ev = { .events = EPOLLOUT | EPOLLRDHUP }, out;
	int lfd = -1, reserve = -1, fd, ep, n;

	if (refused)
		reserve = diff_closed_port(f, &addr);
	else
		lfd = (int)ASSERT_SYS(sf_listen(f, NULL, 0, 4, &addr));
	fd = (int)ASSERT_SYS(sf_socket(f, SOCK_NONBLOCK | SOCK_CLOEXEC));
	ep = (int)ASSERT_SYS(epoll_create1(EPOLL_CLOEXEC));
	ASSERT_SYS(epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev));
	OBS_RET(o, "connect", connect_to(fd, &addr));
	n = (int)ASSERT_SYS(epoll_wait(ep, &out, 1, DIFF_WAIT_MS));
	usleep(20000);
	n = (int)ASSERT_SYS(epoll_wait(ep, &out, 1, 0));
	obs_int(o, "epoll_wait (level) events", n);
	obs_epoll(o, "epoll events", n ? out.events : 0);
	obs_int(o, "SO_ERROR", diff_so_error(fd));
	obs_int(o, "SO_ERROR again", diff_so_error(fd));
	close(ep);
	close(fd);
	if (lfd >= 0)
		close(lfd);
	if (reserve >= 0)
		close(reserve);
}

static void observe_epoll_connected(const struct sf_family *f, struct obs *o)
{
	epoll_connect(f, o, 0);
	obs_want(o, "connect errno", EINPROGRESS);
	obs_want(o, "epoll events", EPOLLOUT);
	obs_want(o, "SO_ERROR", 0);
}
DIFF_CASE(epoll_connected)

static void observe_epoll_refused(const struct sf_family *f, struct obs *o)
{
	epoll_connect(f, o, 1);
	obs_want(o, "SO_ERROR", ECONNREFUSED);
	obs_want(o, "SO_ERROR again", 0);
}
DIFF_CASE(epoll_refused)

static void select_connect(const struct sf_family *f, struct obs *o, int refused)
{
	struct sockaddr_storage addr;
	struct timeval tv = { .tv_sec = DIFF_WAIT_MS / 1000 };
	fd_set rd, wr, ex;
	int lfd = -1, reserve = -1, fd;

	if (refused)
		reserve = diff_closed_port(f, &addr);
	else
		lfd = (int)ASSERT_SYS(sf_listen(f, NULL, 0, 4, &addr));
	fd = (int)ASSERT_SYS(sf_socket(f, SOCK_NONBLOCK | SOCK_CLOEXEC));
	OBS_RET(o, "connect", connect_to(fd, &addr));
	FD_ZERO(&wr);
	FD_SET(fd, &wr);
	ASSERT_SYS(select(fd + 1, NULL, &wr, NULL, &tv));
	usleep(20000);
	FD_ZERO(&rd);
	FD_ZERO(&wr);
	FD_ZERO(&ex);
	FD_SET(fd, &rd);
	FD_SET(fd, &wr);
	FD_SET(fd, &ex);
	tv = (struct timeval){ 0 };
	obs_int(o, "select ready", ASSERT_SYS(select(fd + 1, &rd, &wr, &ex, &tv)));
	obs_int(o, "readable", FD_ISSET(fd, &rd));
	obs_int(o, "writable", FD_ISSET(fd, &wr));
	obs_int(o, "exceptional", FD_ISSET(fd, &ex));
	obs_int(o, "SO_ERROR", diff_so_error(fd));
	close(fd);
	if (lfd >= 0)
		close(lfd);
	if (reserve >= 0)
		close(reserve);
}

static void observe_select_connected(const struct sf_family *f, struct obs *o)
{
	select_connect(f, o, 0);
	obs_want(o, "writable", 1);
	obs_want(o, "readable", 0);
	obs_want(o, "SO_ERROR", 0);
}
DIFF_CASE(select_connected)

static void observe_select_refused(const struct sf_family *f, struct obs *o)
{
	select_connect(f, o, 1);
	obs_want(o, "readable", 1);
	obs_want(o, "writable", 1);
	obs_want(o, "SO_ERROR", ECONNREFUSED);
}
DIFF_CASE(select_refused)

static const struct sf_case cases[] = {
	{ "connect pending (full listener): EINPROGRESS, EALREADY, no POLLOUT; completes later, then 0 and EISCONN",
	  pending_ealready, 0 },
	{ "blocking connect with SO_SNDTIMEO to a full listener returns EINPROGRESS after the timeout",
	  sndtimeo, 0 },
	{ "closing a socket whose connect is pending; the listener still serves", close_pending,
	  0 },
	{ "connect on a connected socket: EISCONN, to any address", connect_twice, 0 },
	{ "connect on a listening socket fails; it still listens", connect_listener, 0 },
	{ "connect with short, NULL, foreign-family and AF_UNSPEC addresses; then a good one",
	  bad_address, 0 },
	{ "after ECONNREFUSED the same socket connects to a listener", reconnect_after_refused,
	  0 },
	{ "epoll waits for a non-blocking connect: EPOLLOUT, SO_ERROR 0", epoll_connected, 0 },
	{ "epoll on a refused non-blocking connect: EPOLLERR|EPOLLHUP, SO_ERROR ECONNREFUSED",
	  epoll_refused, 0 },
	{ "select waits for a non-blocking connect: writable", select_connected, 0 },
	{ "select on a refused non-blocking connect: readable and writable, SO_ERROR",
	  select_refused, 0 },
};

int main(int argc, char **argv)
{
	return sf_test_main(argc, argv, cases, sizeof(cases) / sizeof(cases[0]));
}
