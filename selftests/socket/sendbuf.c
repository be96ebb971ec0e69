// SPDX-License-Identifier: GPL-2.0
/*
 * socket/sendbuf: what a writer that is ahead of its reader sees. TCP
 * queues what the peer cannot take yet in its send buffer; AF_SMC must
 * do the same (diff.h): write ahead without a reader, hold corked bytes
 * back (TCP_CORK, with its 200 ms ceiling, and MSG_MORE), keep an urgent
 * mark that is still queued, and send its FIN only after the queued
 * bytes, whether the writer shuts down or closes.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/sockios.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "diff.h"
#include "family.h"
#include "tap.h"

/* More than one SMC ring (64 KiB by default), less than ring + send buffer. */
#define AHEAD 100000

static int inq(int fd)
{
	int v = -1;

	ASSERT_SYS(ioctl(fd, SIOCINQ, &v));
	return v;
}

static void fill_pattern(char *buf, size_t len, unsigned int seed)
{
	for (size_t i = 0; i < len; i++)
		buf[i] = (char)(i * 31 + seed);
}

/* Read exactly len bytes and say whether they are the pattern of seed. */
static int read_pattern(int fd, size_t len, unsigned int seed)
{
	char *want = malloc(len), *got = malloc(len);
	int ok;

	ASSERT(want && got);
	fill_pattern(want, len, seed);
	ok = sf_read_all(fd, got, len) == 0 && memcmp(want, got, len) == 0;
	free(want);
	free(got);
	return ok;
}

static void write_pattern(int fd, size_t len, unsigned int seed)
{
	char *buf = malloc(len);

	ASSERT(buf);
	fill_pattern(buf, len, seed);
	ASSERT_EQ(sf_write_all(fd, buf, len), 0);
	free(buf);
}

/*
 * Every byte a write took is still counted by the writer (SIOCOUTQ) or
 * waits for the reader (SIOCINQ). Read in that order, a byte that left the
 * writer's count is in the reader's already (TCP: it was acknowledged), or
 * soon is (SMC: its CDC is on the way): wait, bounded, for the sum to
 * reach total, and return it. Whether the writer still holds any of them
 * depends on how soon the peer acknowledges, which is not a property of
 * the socket (the debug kernel's TCP had them all acknowledged).
 */
static int queued_somewhere(int writer, int reader, int total)
{
	int64_t end = diff_now_ms() + 2000LL * tap_scaled_seconds(1);
	int outq, sum;

	for (;;) {
		ASSERT_SYS(ioctl(writer, SIOCOUTQ, &outq));
		sum = outq + inq(reader);
		if (sum >= total || diff_now_ms() >= end)
			return sum;
		usleep(5000);
	}
}

/* A blocking write of more than the peer's ring returns with no reader. */
static void observe_write_ahead(const struct sf_family *f, struct obs *o)
{
	struct sf_conn c;

	diff_establish(f, &c);
	write_pattern(c.client, AHEAD, 3);
	obs_int(o, "write returned", 1);
	obs_int(o, "every byte at the writer or the reader",
		queued_somewhere(c.client, c.server, AHEAD) >= AHEAD);
	obs_int(o, "reader gets every byte", read_pattern(c.server, AHEAD, 3));
	/* The peer's ACK (TCP) or consumer update (SMC) is on its way. */
	obs_int(o, "SIOCOUTQ after the reader took all", diff_wait_outq_empty(c.client));
	diff_conn_close(&c);
	obs_want(o, "write returned", 1);
	obs_want(o, "every byte at the writer or the reader", 1);
	obs_want(o, "reader gets every byte", 1);
	obs_want(o, "SIOCOUTQ after the reader took all", 0);
}
DIFF_CASE(write_ahead)

/* TCP_CORK holds a small write back for at most 200 ms (tcp(7)). */
static void observe_cork_ceiling(const struct sf_family *f, struct obs *o)
{
	struct sf_conn c;
	int64_t sent;
	int one = 1, held;

	diff_establish(f, &c);
	ASSERT_SYS(setsockopt(c.client, IPPROTO_TCP, TCP_CORK, &one, sizeof(one)));
	ASSERT_EQ(send(c.client, "held", 4, 0), 4);
	sent = diff_now_ms();
	usleep(50000);
	/*
	 * Nothing arrived yet, unless this process was kept off the CPU past
	 * the ceiling (two busy loops and two VMs on two cores can do that):
	 * then the bytes may rightly be there.
	 */
	held = inq(c.server);
	obs_int(o, "held below 200 ms", !held || diff_now_ms() - sent >= 200);
	usleep(550000);
	obs_int(o, "peer's SIOCINQ after 600 ms", inq(c.server));
	diff_conn_close(&c);
	obs_want(o, "held below 200 ms", 1);
	obs_want(o, "peer's SIOCINQ after 600 ms", 4);
}
DIFF_CASE(cork_ceiling)

/* MSG_MORE holds its bytes back until a send without it. */
static void observe_msg_more(const struct sf_family *f, struct obs *o)
{
	struct sf_conn c;

	diff_establish(f, &c);
	ASSERT_EQ(send(c.client, "more", 4, MSG_MORE), 4);
	usleep(50000);
	obs_int(o, "peer's SIOCINQ after MSG_MORE", inq(c.server));
	ASSERT_EQ(send(c.client, "done", 4, 0), 4);
	obs_int(o, "peer's SIOCINQ after the last send", diff_wait_inq(c.server, 8));
	diff_conn_close(&c);
	obs_want(o, "peer's SIOCINQ after the last send", 8);
}
DIFF_CASE(msg_more)

/* An urgent byte sent while the peer's window is full keeps its mark. */
static void observe_urgent_queued(const struct sf_family *f, struct obs *o)
{
	struct sf_conn c;
	char b = 0;
	int v = -1;

	diff_establish(f, &c);
	write_pattern(c.client, AHEAD, 5);
	ASSERT_EQ(send(c.client, "!", 1, MSG_OOB), 1);
	obs_int(o, "bytes before the mark", read_pattern(c.server, AHEAD, 5));
	diff_wait(c.server, POLLPRI);
	ASSERT_SYS(ioctl(c.server, SIOCATMARK, &v));
	obs_int(o, "SIOCATMARK", v);
	OBS_RET(o, "recv(MSG_OOB)", recv(c.server, &b, 1, MSG_OOB));
	obs_int(o, "urgent byte", b);
	diff_conn_close(&c);
	obs_want(o, "bytes before the mark", 1);
	obs_want(o, "SIOCATMARK", 1);
	obs_want(o, "urgent byte", '!');
}
DIFF_CASE(urgent_queued)

/* shutdown(SHUT_WR) with bytes queued: they come first, then EOF. */
static void observe_shutdown_queued(const struct sf_family *f, struct obs *o)
{
	struct sf_conn c;
	char b;

	diff_establish(f, &c);
	write_pattern(c.client, AHEAD, 7);
	OBS_RET(o, "shutdown(SHUT_WR)", shutdown(c.client, SHUT_WR));
	/*
	 * Not the reader's poll now: whether the FIN is in already depends
	 * on whether the receive buffer holds all AHEAD bytes (TCP's over a
	 * veth does, over loopback not; a 64 KiB SMC ring never).
	 */
	obs_int(o, "reader gets every byte", read_pattern(c.server, AHEAD, 7));
	OBS_RET(o, "then EOF", read(c.server, &b, 1));
	diff_conn_close(&c);
	obs_want(o, "shutdown(SHUT_WR)", 0);
	obs_want(o, "reader gets every byte", 1);
	obs_want(o, "then EOF", 0);
}
DIFF_CASE(shutdown_queued)

/* close() with bytes queued: the closed socket still sends them, then EOF. */
static void observe_close_queued(const struct sf_family *f, struct obs *o)
{
	struct sf_conn c;
	char b;

	diff_establish(f, &c);
	write_pattern(c.client, AHEAD, 9);
	OBS_RET(o, "close", close(c.client));
	c.client = -1;
	usleep(50000);
	obs_int(o, "reader gets every byte", read_pattern(c.server, AHEAD, 9));
	OBS_RET(o, "then EOF", read(c.server, &b, 1));
	diff_conn_close(&c);
	obs_want(o, "close", 0);
	obs_want(o, "reader gets every byte", 1);
	obs_want(o, "then EOF", 0);
}
DIFF_CASE(close_queued)

static const struct sf_case cases[] = {
	{ "a blocking write of 100000 bytes returns with no reader; no byte lost before the read, SIOCOUTQ 0 after", write_ahead, 0 },
	{ "TCP_CORK holds a small write back, for 200 ms at most", cork_ceiling, 0 },
	{ "MSG_MORE holds bytes back until a send without it", msg_more, 0 },
	{ "an urgent byte queued behind a full window keeps its mark", urgent_queued, 0 },
	{ "shutdown(SHUT_WR) with bytes queued: all of them, then EOF", shutdown_queued, 0 },
	{ "close() with bytes queued: all of them, then EOF", close_queued, 0 },
};

int main(int argc, char **argv)
{
	return sf_test_main(argc, argv, cases, sizeof(cases) / sizeof(cases[0]));
}
