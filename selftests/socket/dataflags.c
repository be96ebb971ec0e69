// SPDX-License-Identifier: GPL-2.0
/*
 * socket/dataflags: how data calls behave: MSG_PEEK, MSG_WAITALL,
 * MSG_DONTWAIT, MSG_TRUNC, SO_RCVTIMEO and SO_SNDTIMEO on recv and send,
 * SIOCINQ/SIOCOUTQ, readv/writev. Every case is differential (diff.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/sockios.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "diff.h"
#include "family.h"
#include "tap.h"

static void observe_peek(const struct sf_family *f, struct obs *o)
{
	struct sf_conn c;
	char buf[32];

	diff_establish(f, &c);
	OBS_RET(o, "recv(MSG_PEEK|MSG_DONTWAIT) empty", recv(c.server, buf, sizeof(buf), MSG_PEEK | MSG_DONTWAIT));
	ASSERT_SYS(send(c.client, "0123456789", 10, 0));
	diff_wait_inq(c.server, 10);
	memset(buf, 0, sizeof(buf));
	OBS_RET(o, "peek 4", recv(c.server, buf, 4, MSG_PEEK));
	obs_int(o, "peeked right", memcmp(buf, "0123", 4) == 0);
	OBS_RET(o, "peek all", recv(c.server, buf, sizeof(buf), MSG_PEEK));
	obs_int(o, "still queued", diff_wait_inq(c.server, 10));
	OBS_RET(o, "recv 3", recv(c.server, buf, 3, 0));
	OBS_RET(o, "peek rest", recv(c.server, buf, sizeof(buf), MSG_PEEK));
	obs_int(o, "peek starts after what was read", memcmp(buf, "3456789", 7) == 0);
	OBS_RET(o, "recv rest", recv(c.server, buf, sizeof(buf), 0));
	obs_int(o, "read right", memcmp(buf, "3456789", 7) == 0);
	OBS_RET(o, "peek after all read", recv(c.server, buf, sizeof(buf), MSG_PEEK | MSG_DONTWAIT));
	diff_conn_close(&c);
	obs_want(o, "recv(MSG_PEEK|MSG_DONTWAIT) empty errno", EAGAIN);
	obs_want(o, "peek 4", 4);
	obs_want(o, "peeked right", 1);
	obs_want(o, "still queued", 10);
	obs_want(o, "peek starts after what was read", 1);
	obs_want(o, "read right", 1);
}
DIFF_CASE(peek)

/* The peer writes in slow pieces; MSG_WAITALL returns only with the whole buffer. */
static void observe_waitall(const struct sf_family *f, struct obs *o)
{
	struct sf_conn c;
	char buf[4000];
	pid_t pid;
	int status;

	diff_establish(f, &c);
	pid = fork();
	ASSERT(pid >= 0);
	if (pid == 0) {
		for (int i = 0; i < 4; i++) {
			memset(buf, 'a' + i, 1000);
			if (sf_write_all(c.client, buf, 1000))
				_exit(1);
			usleep(50000);
		}
		shutdown(c.client, SHUT_WR);
		_exit(0);
	}
	OBS_RET(o, "recv(MSG_WAITALL, 4000)", recv(c.server, buf, 4000, MSG_WAITALL));
	obs_int(o, "bytes in order", buf[0] == 'a' && buf[999] == 'a' && buf[1000] == 'b' && buf[3999] == 'd');
	OBS_RET(o, "recv(MSG_WAITALL) at EOF", recv(c.server, buf, 4000, MSG_WAITALL));
	ASSERT_SYS(waitpid(pid, &status, 0));
	obs_int(o, "writer status", status);
	diff_conn_close(&c);
	obs_want(o, "recv(MSG_WAITALL, 4000)", 4000);
	obs_want(o, "bytes in order", 1);
	obs_want(o, "recv(MSG_WAITALL) at EOF", 0);
}
DIFF_CASE(waitall)

static void observe_waitall_eof(const struct sf_family *f, struct obs *o)
{
	struct sf_conn c;
	char buf[4000];

	diff_establish(f, &c);
	ASSERT_SYS(send(c.client, "partial", 7, 0));
	ASSERT_SYS(shutdown(c.client, SHUT_WR));
	OBS_RET(o, "recv(MSG_WAITALL, 4000) with 7 then EOF", recv(c.server, buf, sizeof(buf), MSG_WAITALL));
	OBS_RET(o, "then", recv(c.server, buf, sizeof(buf), MSG_WAITALL));
	diff_conn_close(&c);
	obs_want(o, "recv(MSG_WAITALL, 4000) with 7 then EOF", 7);
	obs_want(o, "then", 0);
}
DIFF_CASE(waitall_eof)

static void observe_dontwait(const struct sf_family *f, struct obs *o)
{
	struct sf_conn c;
	char buf[32];

	diff_establish(f, &c);
	OBS_RET(o, "recv(MSG_DONTWAIT) on a blocking socket, no data",
		recv(c.server, buf, sizeof(buf), MSG_DONTWAIT));
	ASSERT_SYS(send(c.client, "abc", 3, 0));
	diff_wait_inq(c.server, 3);
	OBS_RET(o, "recv(MSG_DONTWAIT) with data", recv(c.server, buf, sizeof(buf), MSG_DONTWAIT));
	obs_int(o, "send buffer filled with MSG_DONTWAIT", diff_fill(c.client) > 0);
	OBS_RET(o, "send(MSG_DONTWAIT) when full", send(c.client, buf, 1, MSG_DONTWAIT));
	obs_poll(o, "sender poll", diff_poll_now(c.client));
	diff_conn_close(&c);
	obs_want(o, "recv(MSG_DONTWAIT) on a blocking socket, no data errno", EAGAIN);
	obs_want(o, "recv(MSG_DONTWAIT) with data", 3);
	obs_want(o, "send(MSG_DONTWAIT) when full errno", EAGAIN);
}
DIFF_CASE(dontwait)

static void observe_rcvtimeo(const struct sf_family *f, struct obs *o)
{
	struct timeval tv = { .tv_sec = 0, .tv_usec = 250000 }, got;
	socklen_t len = sizeof(got);
	struct sf_conn c;
	char buf[8];
	int64_t t0;

	diff_establish(f, &c);
	OBS_RET(o, "setsockopt(SO_RCVTIMEO)", setsockopt(c.server, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)));
	OBS_RET(o, "getsockopt(SO_RCVTIMEO)", getsockopt(c.server, SOL_SOCKET, SO_RCVTIMEO, &got, &len));
	obs_int(o, "timeout read back (us)", got.tv_sec * 1000000 + got.tv_usec);
	t0 = diff_now_ms();
	OBS_RET(o, "recv", recv(c.server, buf, sizeof(buf), 0));
	obs_int(o, "waited >= 200 ms", diff_now_ms() - t0 >= 200);
	obs_int(o, "waited < 5 s", diff_now_ms() - t0 < 5000);
	ASSERT_SYS(send(c.client, "k", 1, 0));
	OBS_RET(o, "recv with data", recv(c.server, buf, sizeof(buf), 0));
	tv.tv_usec = 1000000; /* out of range */
	OBS_RET(o, "setsockopt(SO_RCVTIMEO, tv_usec 1e6)", setsockopt(c.server, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)));
	diff_conn_close(&c);
	obs_want(o, "recv errno", EAGAIN);
	obs_want(o, "waited >= 200 ms", 1);
	obs_want(o, "waited < 5 s", 1);
	obs_want(o, "recv with data", 1);
}
DIFF_CASE(rcvtimeo)

static void observe_sndtimeo(const struct sf_family *f, struct obs *o)
{
	struct timeval tv = { .tv_sec = 0, .tv_usec = 250000 };
	struct sf_conn c;
	static char buf[1000];
	ssize_t r = 0;
	int64_t t0 = 0;
	int tries;

	diff_establish(f, &c);
	OBS_RET(o, "setsockopt(SO_SNDTIMEO)", setsockopt(c.client, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)));
	obs_int(o, "filled", diff_fill(c.client) > 0);
	/*
	 * Nothing fits: -1 EAGAIN after the timeout.  A TCP receiver that
	 * collapses its queue may open a window of a few bytes; the send then
	 * returns those after the timeout instead.  Send until one places
	 * nothing (each try is bounded by the 250 ms timeout).
	 */
	for (tries = 0; tries < 10; tries++) {
		t0 = diff_now_ms();
		r = send(c.client, buf, sizeof(buf), MSG_NOSIGNAL);
		if (r < 0)
			break;
	}
	obs_int(o, "send when full: failed", r < 0);
	obs_errno(o, "send when full: errno", r < 0 ? errno : 0);
	obs_int(o, "waited >= 200 ms", diff_now_ms() - t0 >= 200);
	obs_int(o, "waited < 5 s", diff_now_ms() - t0 < 5000);
	diff_conn_close(&c);
	obs_want(o, "send when full: errno", EAGAIN);
	obs_want(o, "waited >= 200 ms", 1);
	obs_want(o, "waited < 5 s", 1);
}
DIFF_CASE(sndtimeo)

static void observe_inq_outq(const struct sf_family *f, struct obs *o)
{
	struct sf_conn c;
	int v = -1;
	size_t filled;
	char buf[1000];

	diff_establish(f, &c);
	OBS_RET(o, "SIOCINQ empty", ioctl(c.server, SIOCINQ, &v));
	obs_int(o, "SIOCINQ empty value", v);
	ASSERT_SYS(sf_write_all(c.client, buf, 777));
	obs_int(o, "SIOCINQ after 777", diff_wait_inq(c.server, 777));
	ASSERT_EQ(recv(c.server, buf, 300, 0), 300);
	OBS_RET(o, "SIOCINQ after reading 300", ioctl(c.server, SIOCINQ, &v));
	obs_int(o, "SIOCINQ value", v);
	/* Everything sent gets acknowledged: SIOCOUTQ goes to 0. */
	obs_int(o, "SIOCOUTQ value, all acked", diff_wait_outq_empty(c.client));
	OBS_RET(o, "SIOCOUTQ", ioctl(c.client, SIOCOUTQ, &v));
	OBS_RET(o, "SIOCOUTQNSD", ioctl(c.client, SIOCOUTQNSD, &v));
	obs_int(o, "SIOCOUTQNSD value", v);
	filled = diff_fill(c.client);
	ASSERT_SYS(ioctl(c.client, SIOCOUTQ, &v));
	obs_int(o, "SIOCOUTQ > 0 with the peer's window full", v > 0);
	obs_int(o, "SIOCOUTQ <= bytes queued", (size_t)v <= filled);
	OBS_RET(o, "SIOCINQ on a listener", ioctl(c.lfd, SIOCINQ, &v));
	OBS_RET(o, "SIOCATMARK", ioctl(c.server, SIOCATMARK, &v));
	obs_int(o, "SIOCATMARK value", v);
	diff_conn_close(&c);
	c.client = (int)ASSERT_SYS(sf_socket(f, SOCK_CLOEXEC));
	OBS_RET(o, "SIOCINQ unconnected", ioctl(c.client, SIOCINQ, &v));
	OBS_RET(o, "SIOCOUTQ unconnected", ioctl(c.client, SIOCOUTQ, &v));
	obs_int(o, "SIOCOUTQ unconnected value", v);
	close(c.client);
	obs_want(o, "SIOCINQ empty value", 0);
	obs_want(o, "SIOCINQ after 777", 777);
	obs_want(o, "SIOCINQ value", 477);
	obs_want(o, "SIOCOUTQ value, all acked", 0);
	obs_want(o, "SIOCOUTQ > 0 with the peer's window full", 1);
	obs_want(o, "SIOCINQ on a listener errno", EINVAL);
}
DIFF_CASE(inq_outq)

static void observe_trunc_and_zero(const struct sf_family *f, struct obs *o)
{
	struct sf_conn c;
	char buf[32];

	diff_establish(f, &c);
	ASSERT_SYS(send(c.client, "0123456789", 10, 0));
	diff_wait_inq(c.server, 10);
	OBS_RET(o, "recv(len 0)", recv(c.server, buf, 0, 0));
	OBS_RET(o, "recv(MSG_TRUNC, 4) discards", recv(c.server, NULL, 4, MSG_TRUNC));
	OBS_RET(o, "recv rest", recv(c.server, buf, sizeof(buf), 0));
	obs_int(o, "rest is 456789", memcmp(buf, "456789", 6) == 0);
	OBS_RET(o, "send(len 0)", send(c.client, buf, 0, 0));
	OBS_RET(o, "recv(MSG_ERRQUEUE)", recv(c.server, buf, sizeof(buf), MSG_ERRQUEUE));
	diff_conn_close(&c);
	obs_want(o, "recv(len 0)", 0);
	obs_want(o, "recv(MSG_TRUNC, 4) discards", 4);
	obs_want(o, "rest is 456789", 1);
}
DIFF_CASE(trunc_and_zero)

static void observe_vectors(const struct sf_family *f, struct obs *o)
{
	struct sf_conn c;
	char a[] = "alpha", b[] = "beta", g[] = "gamma", in[32] = { 0 }, x[4], y[32];
	struct iovec out[3] = { { a, 5 }, { b, 4 }, { g, 5 } };
	struct iovec iv[2] = { { x, 4 }, { y, sizeof(y) } };
	struct msghdr mh = { .msg_iov = iv, .msg_iovlen = 2 };

	diff_establish(f, &c);
	OBS_RET(o, "writev", writev(c.client, out, 3));
	diff_wait_inq(c.server, 14);
	OBS_RET(o, "recvmsg into 2 iovecs", recvmsg(c.server, &mh, 0));
	memcpy(in, x, 4);
	memcpy(in + 4, y, 10);
	obs_int(o, "data", memcmp(in, "alphabetagamma", 14) == 0);
	obs_int(o, "msg_flags", mh.msg_flags);
	OBS_RET(o, "sendmsg", sendmsg(c.client, &(struct msghdr){ .msg_iov = out, .msg_iovlen = 3 }, 0));
	diff_wait_inq(c.server, 14);
	iv[0] = (struct iovec){ in, 6 };
	iv[1] = (struct iovec){ in + 6, 8 };
	OBS_RET(o, "readv", readv(c.server, iv, 2));
	diff_conn_close(&c);
	obs_want(o, "writev", 14);
	obs_want(o, "recvmsg into 2 iovecs", 14);
	obs_want(o, "data", 1);
	obs_want(o, "readv", 14);
}
DIFF_CASE(vectors)

static const struct sf_case cases[] = {
	{ "MSG_PEEK leaves data queued; EAGAIN with MSG_DONTWAIT when empty", peek, 0 },
	{ "MSG_WAITALL waits for the whole buffer from a slow writer", waitall, 0 },
	{ "MSG_WAITALL returns what there is at EOF", waitall_eof, 0 },
	{ "MSG_DONTWAIT on a blocking socket: EAGAIN on recv and on a full send", dontwait, 0 },
	{ "SO_RCVTIMEO: recv fails with EAGAIN after the time; value read back", rcvtimeo, 0 },
	{ "SO_SNDTIMEO: send into a full buffer fails with EAGAIN after the time", sndtimeo, 0 },
	{ "SIOCINQ, SIOCOUTQ, SIOCOUTQNSD and SIOCATMARK values", inq_outq, 0 },
	{ "recv of 0 bytes, MSG_TRUNC discards, MSG_ERRQUEUE empty", trunc_and_zero, 0 },
	{ "writev, sendmsg, readv and recvmsg with several iovecs", vectors, 0 },
};

int main(int argc, char **argv)
{
	return sf_test_main(argc, argv, cases, sizeof(cases) / sizeof(cases[0]));
}
