// SPDX-License-Identifier: GPL-2.0
/*
 * socket/shutdown: half-close. After one side's shutdown(SHUT_WR) its peer
 * reads everything sent before, then EOF (read returns 0, again and again),
 * while the other direction still carries data. Run on every family (-f); on
 * an SMC family the poll() events seen around the EOF must equal those of its
 * TCP oracle.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>

#include "family.h"
#include "stream.h"
#include "tap.h"

/* Small enough that both directions fit in socket buffers without a reader. */
#define CHUNK (16 * 1024)
#define WAIT_MS 10000

struct conn {
	int lfd, client, server;
};

static void establish(const struct sf_family *f, struct conn *c)
{
	struct sockaddr_storage addr;

	c->lfd = ASSERT_SYS(sf_listen(f, NULL, 0, 4, &addr));
	c->client = ASSERT_SYS(sf_connect(f, &addr));
	c->server = ASSERT_SYS(accept4(c->lfd, NULL, NULL, SOCK_CLOEXEC));
}

static void send_pattern(int fd, uint64_t seed)
{
	static char buf[CHUNK];

	pattern_fill(buf, sizeof(buf), seed, 0);
	ASSERT_SYS(sf_write_all(fd, buf, sizeof(buf)));
}

static void expect_pattern(int fd, uint64_t seed)
{
	static char buf[CHUNK];
	size_t bad;

	ASSERT_SYS(sf_read_all(fd, buf, sizeof(buf)));
	bad = pattern_mismatch(buf, sizeof(buf), seed, 0);
	if (bad < sizeof(buf))
		tap_fail("received data differs at byte %zu", bad);
}

/* Wait for EOF: it may still be in flight right after the peer's shutdown. */
static short wait_readable(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN | POLLRDHUP };

	ASSERT_EQ(ASSERT_SYS(poll(&pfd, 1, WAIT_MS)), 1);
	return pfd.revents;
}

static short poll_now(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN | POLLOUT | POLLRDHUP };

	ASSERT_SYS(poll(&pfd, 1, 0));
	return pfd.revents;
}

struct half_close_obs {
	short closer_after_shut;  /* the side that shut down, right after */
	short peer_at_eof;        /* the other side, once its EOF is there */
	short closer_at_end;      /* the closer, once the peer closed too */
};

/*
 * "closer" shuts down its sending side; "peer" must see data then EOF and can
 * still send to the closer. Returns the poll events seen on the way.
 */
static void half_close(const struct sf_family *f, int server_closes,
		       struct half_close_obs *o)
{
	struct conn c;
	int closer, peer;
	char byte, ev[3][128];

	establish(f, &c);
	closer = server_closes ? c.server : c.client;
	peer = server_closes ? c.client : c.server;

	send_pattern(closer, 1);
	ASSERT_SYS(shutdown(closer, SHUT_WR));
	o->closer_after_shut = poll_now(closer);
	/* Writing after SHUT_WR is refused with EPIPE, as on TCP. */
	EXPECT_ERRNO(send(closer, "x", 1, MSG_NOSIGNAL), EPIPE);

	expect_pattern(peer, 1);
	wait_readable(peer);
	o->peer_at_eof = poll_now(peer);
	EXPECT_EQ(read(peer, &byte, 1), 0);
	EXPECT_EQ(read(peer, &byte, 1), 0); /* EOF stays */

	/* The other direction is still open. */
	send_pattern(peer, 2);
	expect_pattern(closer, 2);
	ASSERT_SYS(close(peer));
	wait_readable(closer);
	o->closer_at_end = poll_now(closer);
	EXPECT_EQ(read(closer, &byte, 1), 0);

	tap_diag("%s: poll: closer after shutdown %s; peer at EOF %s; closer at end %s",
		 f->label, sf_poll_str(o->closer_after_shut, ev[0], sizeof(ev[0])),
		 sf_poll_str(o->peer_at_eof, ev[1], sizeof(ev[1])),
		 sf_poll_str(o->closer_at_end, ev[2], sizeof(ev[2])));
	close(closer);
	close(c.lfd);
}

static void half_close_case(const struct sf_family *f, int server_closes)
{
	const struct sf_family *oracle = sf_oracle(f);
	struct half_close_obs o, ref;

	sf_require(f);
	half_close(f, server_closes, &o);
	EXPECT(o.peer_at_eof & POLLIN);
	EXPECT(o.peer_at_eof & POLLRDHUP);
	if (!oracle || tap_failed())
		return;
	half_close(oracle, server_closes, &ref);
	if (o.closer_after_shut != ref.closer_after_shut ||
	    o.peer_at_eof != ref.peer_at_eof || o.closer_at_end != ref.closer_at_end)
		tap_fail("poll events of %s differ from its oracle %s (see above)",
			 f->label, oracle->label);
}

static void client_half_close(const struct sf_family *f)
{
	half_close_case(f, 0);
}

static void server_half_close(const struct sf_family *f)
{
	half_close_case(f, 1);
}

/* SHUT_RDWR ends both directions at once; the peer sees EOF. */
static void full_shutdown(const struct sf_family *f)
{
	struct conn c;
	char byte;

	sf_require(f);
	establish(f, &c);
	send_pattern(c.client, 3);
	ASSERT_SYS(shutdown(c.client, SHUT_RDWR));
	EXPECT_ERRNO(send(c.client, "x", 1, MSG_NOSIGNAL), EPIPE);
	expect_pattern(c.server, 3);
	wait_readable(c.server);
	EXPECT_EQ(read(c.server, &byte, 1), 0);
	/* A read on the side that shut down its receiving end returns EOF too. */
	EXPECT_EQ(read(c.client, &byte, 1), 0);
	close(c.client);
	close(c.server);
	close(c.lfd);
}

static const struct sf_case cases[] = {
	{ "client shutdown(SHUT_WR): server reads data then EOF, can still send",
	  client_half_close, 0 },
	{ "server shutdown(SHUT_WR): client reads data then EOF, can still send",
	  server_half_close, 0 },
	{ "shutdown(SHUT_RDWR): peer reads data then EOF, writes fail with EPIPE",
	  full_shutdown, 0 },
};

int main(int argc, char **argv)
{
	return sf_test_main(argc, argv, cases, sizeof(cases) / sizeof(cases[0]));
}
