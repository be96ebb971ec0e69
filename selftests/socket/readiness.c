// SPDX-License-Identifier: GPL-2.0
/*
 * socket/readiness: what poll, epoll (level- and edge-triggered) and select
 * report on a connected socket as data arrives and is read, as the send
 * buffer fills and drains, when the peer closes, on a fresh socket and on a
 * listener. Every case is differential (diff.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <unistd.h>

#include "diff.h"
#include "family.h"
#include "tap.h"

#define ALL_EPOLL (EPOLLIN | EPOLLOUT | EPOLLPRI | EPOLLRDHUP | EPOLLERR | EPOLLHUP)

/* epoll_wait with timeout ms: the number of events and, through *ev, the first one's mask. */
static int ep_wait(int ep, uint32_t *ev, int ms)
{
	struct epoll_event out[4];
	int n = (int)ASSERT_SYS(epoll_wait(ep, out, 4, ms));

	*ev = n ? out[0].events : 0;
	return n;
}

static int ep_add(int fd, uint32_t events)
{
	int ep = (int)ASSERT_SYS(epoll_create1(EPOLL_CLOEXEC));
	struct epoll_event ev = { .events = events, .data.fd = fd };

	ASSERT_SYS(epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev));
	return ep;
}

static void observe_poll_level(const struct sf_family *f, struct obs *o)
{
	struct sf_conn c;
	char buf[16];

	diff_establish(f, &c);
	obs_poll(o, "server, idle", diff_poll_now(c.server));
	ASSERT_SYS(send(c.client, "abcd", 4, 0));
	obs_poll(o, "server, data arrived", diff_wait(c.server, POLLIN));
	obs_poll(o, "server, again (level)", diff_poll_now(c.server));
	ASSERT_EQ(recv(c.server, buf, 2, 0), 2);
	obs_poll(o, "server, half read", diff_poll_now(c.server));
	ASSERT_EQ(recv(c.server, buf, sizeof(buf), 0), 2);
	obs_poll(o, "server, all read", diff_poll_now(c.server));
	obs_poll(o, "client", diff_poll_now(c.client));
	diff_conn_close(&c);
	obs_want(o, "server, data arrived", POLLIN);
	obs_want(o, "server, again (level)", POLLIN | POLLOUT);
	obs_want(o, "server, half read", POLLIN | POLLOUT);
	obs_want(o, "server, all read", POLLOUT);
}
DIFF_CASE(poll_level)

static void observe_epoll_level(const struct sf_family *f, struct obs *o)
{
	struct sf_conn c;
	uint32_t ev;
	char buf[16];
	int ep;

	diff_establish(f, &c);
	ep = ep_add(c.server, EPOLLIN | EPOLLRDHUP);
	obs_int(o, "idle: events", ep_wait(ep, &ev, 0));
	ASSERT_SYS(send(c.client, "abcd", 4, 0));
	obs_int(o, "data: events", ep_wait(ep, &ev, DIFF_WAIT_MS));
	obs_epoll(o, "data: mask", ev);
	obs_int(o, "again: events", ep_wait(ep, &ev, 0));
	obs_epoll(o, "again: mask", ev);
	ASSERT_EQ(recv(c.server, buf, sizeof(buf), 0), 4);
	obs_int(o, "drained: events", ep_wait(ep, &ev, 0));
	close(ep);
	diff_conn_close(&c);
	obs_want(o, "data: events", 1);
	obs_want(o, "again: events", 1);
	obs_want(o, "drained: events", 0);
}
DIFF_CASE(epoll_level)

/* EPOLLET: one event per arrival, none while nothing new comes. */
static void observe_epoll_edge(const struct sf_family *f, struct obs *o)
{
	struct sf_conn c;
	uint32_t ev;
	char buf[16];
	int ep;

	diff_establish(f, &c);
	ep = ep_add(c.server, EPOLLIN | EPOLLRDHUP | EPOLLET);
	obs_int(o, "idle: events", ep_wait(ep, &ev, 0));
	ASSERT_SYS(send(c.client, "a", 1, 0));
	obs_int(o, "1st arrival: events", ep_wait(ep, &ev, DIFF_WAIT_MS));
	obs_epoll(o, "1st arrival: mask", ev);
	obs_int(o, "unread, nothing new: events", ep_wait(ep, &ev, 100));
	ASSERT_SYS(send(c.client, "b", 1, 0));
	obs_int(o, "2nd arrival: events", ep_wait(ep, &ev, DIFF_WAIT_MS));
	obs_epoll(o, "2nd arrival: mask", ev);
	obs_int(o, "then: events", ep_wait(ep, &ev, 100));
	ASSERT_EQ(recv(c.server, buf, sizeof(buf), 0), 2);
	obs_int(o, "after read: events", ep_wait(ep, &ev, 0));
	ASSERT_SYS(close(c.client));
	c.client = -1;
	obs_int(o, "peer closed: events", ep_wait(ep, &ev, DIFF_WAIT_MS));
	usleep(20000);
	obs_epoll(o, "peer closed: mask", ev);
	obs_int(o, "then: events", ep_wait(ep, &ev, 100));
	close(ep);
	diff_conn_close(&c);
	obs_want(o, "1st arrival: events", 1);
	obs_want(o, "unread, nothing new: events", 0);
	obs_want(o, "2nd arrival: events", 1);
	obs_want(o, "peer closed: events", 1);
	obs_want(o, "then: events", 0);
}
DIFF_CASE(epoll_edge)

/* EPOLLOUT edge-triggered: once after connect, again only after the buffer drained. */
static void observe_epoll_edge_out(const struct sf_family *f, struct obs *o)
{
	struct sf_conn c;
	uint32_t ev;
	int ep;

	diff_establish(f, &c);
	ep = ep_add(c.client, EPOLLOUT | EPOLLET);
	obs_int(o, "connected: events", ep_wait(ep, &ev, DIFF_WAIT_MS));
	obs_epoll(o, "connected: mask", ev);
	obs_int(o, "nothing new: events", ep_wait(ep, &ev, 100));
	obs_int(o, "filled send buffer", diff_fill(c.client) > 0);
	obs_int(o, "full: events", ep_wait(ep, &ev, 100));
	diff_set_nonblock(c.server, 1);
	/* Drain the peer: writability comes back, as one edge. */
	for (int64_t end = diff_now_ms() + 2000; diff_now_ms() < end;) {
		char buf[65536];

		if (read(c.server, buf, sizeof(buf)) < 0 && errno == EAGAIN)
			usleep(10000);
	}
	obs_int(o, "drained: events", ep_wait(ep, &ev, DIFF_WAIT_MS) > 0);
	obs_epoll(o, "drained: mask", ev);
	close(ep);
	diff_conn_close(&c);
	obs_want(o, "connected: events", 1);
	obs_want(o, "nothing new: events", 0);
	obs_want(o, "full: events", 0);
	obs_want(o, "drained: events", 1);
}
DIFF_CASE(epoll_edge_out)

static void observe_select_data(const struct sf_family *f, struct obs *o)
{
	struct timeval tv;
	struct sf_conn c;
	fd_set rd, wr, ex;
	char buf[8];
	int n;

	diff_establish(f, &c);
	for (int step = 0; step < 3; step++) {
		static const char *const names[] = { "idle", "data", "read" };
		char name[56];

		if (step == 1) {
			ASSERT_SYS(send(c.client, "xy", 2, 0));
			diff_wait(c.server, POLLIN);
		}
		if (step == 2)
			ASSERT_EQ(recv(c.server, buf, sizeof(buf), 0), 2);
		FD_ZERO(&rd);
		FD_ZERO(&wr);
		FD_ZERO(&ex);
		FD_SET(c.server, &rd);
		FD_SET(c.server, &wr);
		FD_SET(c.server, &ex);
		tv = (struct timeval){ 0 };
		n = (int)ASSERT_SYS(select(c.server + 1, &rd, &wr, &ex, &tv));
		snprintf(name, sizeof(name), "%s: ready", names[step]);
		obs_int(o, name, n);
		snprintf(name, sizeof(name), "%s: r/w/x", names[step]);
		obs_int(o, name, FD_ISSET(c.server, &rd) * 100 + FD_ISSET(c.server, &wr) * 10 +
			  FD_ISSET(c.server, &ex));
	}
	/* select blocks until data, and times out without. */
	FD_ZERO(&rd);
	FD_SET(c.server, &rd);
	tv = (struct timeval){ .tv_usec = 100000 };
	obs_int(o, "select timeout, no data", ASSERT_SYS(select(c.server + 1, &rd, NULL, NULL, &tv)));
	diff_conn_close(&c);
	obs_want(o, "idle: r/w/x", 10);
	obs_want(o, "data: r/w/x", 110);
	obs_want(o, "select timeout, no data", 0);
}
DIFF_CASE(select_data)

static void observe_fresh_socket(const struct sf_family *f, struct obs *o)
{
	struct sockaddr_storage addr;
	int fd = (int)ASSERT_SYS(sf_socket(f, SOCK_CLOEXEC));
	int ep;
	uint32_t ev;

	obs_poll(o, "fresh", diff_poll_now(fd));
	ep = ep_add(fd, ALL_EPOLL);
	obs_int(o, "fresh epoll: events", ep_wait(ep, &ev, 0));
	obs_epoll(o, "fresh epoll: mask", ev);
	close(ep);
	sf_addr(f, NULL, 0, &addr);
	ASSERT_SYS(bind(fd, (struct sockaddr *)&addr, sf_addr_len(&addr)));
	obs_poll(o, "bound", diff_poll_now(fd));
	ASSERT_SYS(listen(fd, 4));
	obs_poll(o, "listening", diff_poll_now(fd));
	close(fd);
	obs_want(o, "listening", 0);
}
DIFF_CASE(fresh_socket)

static void observe_listener_readiness(const struct sf_family *f, struct obs *o)
{
	struct sockaddr_storage addr;
	int lfd = (int)ASSERT_SYS(sf_listen(f, NULL, 0, 8, &addr));
	int ep = ep_add(lfd, EPOLLIN | EPOLLET);
	int c1, c2, a;
	uint32_t ev;

	obs_int(o, "empty: events", ep_wait(ep, &ev, 0));
	c1 = (int)ASSERT_SYS(diff_connect(f, &addr));
	obs_int(o, "1st connection: events", ep_wait(ep, &ev, DIFF_WAIT_MS));
	obs_epoll(o, "1st connection: mask", ev);
	obs_int(o, "nothing new: events", ep_wait(ep, &ev, 100));
	c2 = (int)ASSERT_SYS(diff_connect(f, &addr));
	obs_int(o, "2nd connection: events", ep_wait(ep, &ev, DIFF_WAIT_MS));
	obs_poll(o, "poll, two queued", diff_poll_now(lfd));
	a = (int)ASSERT_SYS(diff_accept(f, lfd));
	close(a);
	obs_poll(o, "poll, one queued", diff_poll_now(lfd));
	a = (int)ASSERT_SYS(diff_accept(f, lfd));
	close(a);
	obs_poll(o, "poll, none queued", diff_poll_now(lfd));
	close(c1);
	close(c2);
	close(ep);
	close(lfd);
	obs_want(o, "1st connection: events", 1);
	obs_want(o, "nothing new: events", 0);
	obs_want(o, "2nd connection: events", 1);
	obs_want(o, "poll, one queued", POLLIN);
	obs_want(o, "poll, none queued", 0);
}
DIFF_CASE(listener_readiness)

/* The send buffer fills: POLLOUT goes away, and comes back when the peer reads. */
static void observe_pollout_full(const struct sf_family *f, struct obs *o)
{
	struct sf_conn c;
	size_t filled, drained;

	diff_establish(f, &c);
	obs_poll(o, "connected", diff_poll_now(c.client));
	filled = diff_fill(c.client);
	obs_int(o, "filled something", filled > 0);
	obs_poll(o, "full", diff_poll_now(c.client));
	OBS_RET(o, "send(MSG_DONTWAIT) when full",
		send(c.client, "z", 1, MSG_DONTWAIT | MSG_NOSIGNAL));
	diff_set_nonblock(c.server, 1);
	for (drained = 0; drained < filled;) {
		static char buf[65536];
		ssize_t n = read(c.server, buf, sizeof(buf));

		if (n < 0 && errno == EAGAIN && diff_poll(c.server, POLLIN, DIFF_WAIT_MS))
			continue;
		if (n <= 0)
			break;
		drained += (size_t)n;
	}
	obs_int(o, "peer read all that was queued", drained == filled);
	obs_poll(o, "after the peer read", diff_wait(c.client, POLLOUT));
	diff_conn_close(&c);
	obs_want(o, "full", 0);
	obs_want(o, "send(MSG_DONTWAIT) when full errno", EAGAIN);
	obs_want(o, "peer read all that was queued", 1);
	obs_want(o, "after the peer read", POLLOUT);
}
DIFF_CASE(pollout_full)

static void observe_peer_close_events(const struct sf_family *f, struct obs *o)
{
	struct sf_conn c;
	int ep;
	uint32_t ev;
	char buf[8];

	diff_establish(f, &c);
	ep = ep_add(c.server, EPOLLIN | EPOLLRDHUP);
	ASSERT_SYS(send(c.client, "q", 1, 0));
	ASSERT_SYS(close(c.client));
	c.client = -1;
	obs_poll(o, "poll: data then close", diff_wait(c.server, POLLRDHUP));
	obs_int(o, "epoll: events", ep_wait(ep, &ev, 0));
	obs_epoll(o, "epoll: mask", ev);
	obs_int(o, "read", read(c.server, buf, sizeof(buf)));
	obs_int(o, "read at EOF", read(c.server, buf, sizeof(buf)));
	obs_poll(o, "poll at EOF", diff_poll_now(c.server));
	/* Writing into a connection the peer closed: accepted once, then the RST. */
	OBS_RET(o, "1st send", send(c.server, "w", 1, MSG_NOSIGNAL));
	/*
	 * The peer's RST is on its way (from another VM, maybe): wait, bounded,
	 * for the error or hang-up poll always reports, then look.
	 */
	diff_poll(c.server, 0, 2000 * (int)tap_scaled_seconds(1));
	obs_poll(o, "poll after RST", diff_poll_now(c.server));
	OBS_RET(o, "2nd send", send(c.server, "w", 1, MSG_NOSIGNAL));
	OBS_RET(o, "3rd send", send(c.server, "w", 1, MSG_NOSIGNAL));
	close(ep);
	diff_conn_close(&c);
	obs_want(o, "read", 1);
	obs_want(o, "read at EOF", 0);
	obs_want(o, "2nd send errno", EPIPE);
}
DIFF_CASE(peer_close_events)

static const struct sf_case cases[] = {
	{ "poll is level-triggered: POLLIN while unread data remains", poll_level, 0 },
	{ "epoll level-triggered reports EPOLLIN until the data is read", epoll_level, 0 },
	{ "epoll EPOLLET: one event per arrival, and one for the peer's close", epoll_edge, 0 },
	{ "epoll EPOLLET EPOLLOUT: once when connected, again after a full buffer drained",
	  epoll_edge_out, 0 },
	{ "select: readable with data, writable, times out when idle", select_data, 0 },
	{ "poll and epoll on a fresh, a bound and a listening socket", fresh_socket, 0 },
	{ "listener readiness: EPOLLET per connection, POLLIN while connections queue",
	  listener_readiness, 0 },
	{ "full send buffer: no POLLOUT, MSG_DONTWAIT EAGAIN; POLLOUT after the peer reads",
	  pollout_full, 0 },
	{ "peer closes: POLLIN|POLLRDHUP, data then EOF, then writes meet the RST",
	  peer_close_events, 0 },
};

int main(int argc, char **argv)
{
	return sf_test_main(argc, argv, cases, sizeof(cases) / sizeof(cases[0]));
}
