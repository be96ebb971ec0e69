// SPDX-License-Identifier: GPL-2.0
/*
 * socket/urgent: TCP urgent data. send(MSG_OOB) marks its last byte urgent;
 * the receiver sees POLLPRI, SIOCATMARK, reads that byte with recv(MSG_OOB)
 * out of the stream, or in the stream with SO_OOBINLINE. Whatever Linux TCP
 * does here AF_SMC must do too (diff.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/sockios.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "diff.h"
#include "family.h"
#include "tap.h"

static int at_mark(int fd)
{
	int v = -1;

	EXPECT_SYS(ioctl(fd, SIOCATMARK, &v));
	return v;
}

/* Record a recv: its result and, when it got bytes, which ones (as a number). */
static void record_recv(struct obs *o, const char *what, int fd, int flags)
{
	char buf[16] = { 0 }, n[56];
	long long r = OBS_RET(o, what, recv(fd, buf, sizeof(buf) - 1, flags));
	long long word = 0;

	if (r <= 0)
		return;
	for (long long i = 0; i < r && i < 7; i++)
		word = word * 256 + (unsigned char)buf[i];
	snprintf(n, sizeof(n), "%s bytes", what);
	obs_int(o, n, word);
	tap_diag("%s: \"%.*s\"", what, (int)r, buf);
}

static void send_with_urgent(int fd)
{
	ASSERT_EQ(send(fd, "ab", 2, 0), 2);
	ASSERT_EQ(send(fd, "c", 1, MSG_OOB), 1);
	ASSERT_EQ(send(fd, "de", 2, 0), 2);
}

static void observe_oob(const struct sf_family *f, struct obs *o)
{
	struct sf_conn c;

	diff_establish(f, &c);
	send_with_urgent(c.client);
	/* SIOCINQ stops short of an unread urgent byte: wait for POLLPRI instead. */
	diff_wait(c.server, POLLPRI);
	diff_wait_inq(c.server, 2);
	usleep(20000);
	obs_poll(o, "poll", diff_poll_now(c.server));
	{
		int v = -1;

		OBS_RET(o, "SIOCINQ", ioctl(c.server, SIOCINQ, &v));
		obs_int(o, "SIOCINQ value", v);
	}
	obs_int(o, "SIOCATMARK before reading", at_mark(c.server));
	record_recv(o, "recv(MSG_OOB|MSG_PEEK)", c.server, MSG_OOB | MSG_PEEK);
	record_recv(o, "recv(MSG_OOB)", c.server, MSG_OOB);
	record_recv(o, "recv(MSG_OOB) again", c.server, MSG_OOB);
	obs_poll(o, "poll after the urgent byte", diff_poll_now(c.server));
	record_recv(o, "recv 1st", c.server, MSG_DONTWAIT);
	obs_int(o, "SIOCATMARK", at_mark(c.server));
	record_recv(o, "recv 2nd", c.server, MSG_DONTWAIT);
	record_recv(o, "recv 3rd", c.server, MSG_DONTWAIT);
	diff_conn_close(&c);
	obs_want(o, "recv(MSG_OOB) bytes", 99);
	obs_want(o, "recv(MSG_OOB) again errno", EINVAL);
}
DIFF_CASE(oob)

static void observe_oobinline(const struct sf_family *f, struct obs *o)
{
	struct sf_conn c;
	int one = 1;

	diff_establish(f, &c);
	OBS_RET(o, "setsockopt(SO_OOBINLINE)", setsockopt(c.server, SOL_SOCKET, SO_OOBINLINE, &one, sizeof(one)));
	send_with_urgent(c.client);
	diff_wait_inq(c.server, 5);
	usleep(20000);
	obs_poll(o, "poll", diff_poll_now(c.server));
	record_recv(o, "recv(MSG_OOB) inline", c.server, MSG_OOB);
	record_recv(o, "recv 1st", c.server, MSG_DONTWAIT);
	obs_int(o, "SIOCATMARK", at_mark(c.server));
	record_recv(o, "recv 2nd", c.server, MSG_DONTWAIT);
	record_recv(o, "recv 3rd", c.server, MSG_DONTWAIT);
	diff_conn_close(&c);
	obs_want(o, "recv(MSG_OOB) inline errno", EINVAL);
}
DIFF_CASE(oobinline)

static void observe_oob_none(const struct sf_family *f, struct obs *o)
{
	struct sf_conn c;
	int fd = (int)ASSERT_SYS(sf_socket(f, SOCK_CLOEXEC));

	record_recv(o, "recv(MSG_OOB) unconnected", fd, MSG_OOB);
	OBS_RET(o, "send(MSG_OOB) unconnected", send(fd, "u", 1, MSG_OOB));
	close(fd);
	diff_establish(f, &c);
	record_recv(o, "recv(MSG_OOB), no urgent data", c.server, MSG_OOB);
	ASSERT_EQ(send(c.client, "plain", 5, 0), 5);
	diff_wait_inq(c.server, 5);
	record_recv(o, "recv(MSG_OOB), plain data only", c.server, MSG_OOB);
	obs_int(o, "SIOCATMARK", at_mark(c.server));
	/* Two urgent sends before a read: only the last mark counts. */
	ASSERT_EQ(send(c.client, "x", 1, MSG_OOB), 1);
	ASSERT_EQ(send(c.client, "y", 1, MSG_OOB), 1);
	diff_wait_inq(c.server, 6);
	usleep(20000);
	record_recv(o, "recv(MSG_OOB) after two", c.server, MSG_OOB);
	record_recv(o, "recv", c.server, MSG_DONTWAIT);
	record_recv(o, "recv more", c.server, MSG_DONTWAIT);
	diff_conn_close(&c);
	obs_want(o, "recv(MSG_OOB), no urgent data errno", EINVAL);
}
DIFF_CASE(oob_none)

static const struct sf_case cases[] = {
	{ "MSG_OOB: POLLPRI, SIOCATMARK, recv(MSG_OOB) takes the byte out of the stream", oob,
	  0 },
	{ "SO_OOBINLINE: the urgent byte stays in the stream, recv(MSG_OOB) fails", oobinline,
	  0 },
	{ "recv(MSG_OOB) without urgent data; two urgent sends, the last mark wins", oob_none,
	  0 },
};

int main(int argc, char **argv)
{
	return sf_test_main(argc, argv, cases, sizeof(cases) / sizeof(cases[0]));
}
