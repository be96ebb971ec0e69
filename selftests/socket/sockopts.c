// SPDX-License-Identifier: GPL-2.0
/*
 * socket/sockopts: socket options that AF_SMC passes to TCP: TCP_NODELAY,
 * TCP_CORK (and its effect), SO_KEEPALIVE with TCP_KEEPIDLE/INTVL/CNT,
 * TCP_INFO, TCP_MAXSEG, buffer sizes, TCP_CONGESTION, TCP_USER_TIMEOUT,
 * unknown options and short option buffers. Every case is differential.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/sockios.h>
#include <linux/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "diff.h"
#include "family.h"
#include "tap.h"

/* set an int option, read it back: both outcomes and the value. */
static void set_get(struct obs *o, int fd, int level, int opt, const char *name, int value)
{
	char n[56];
	int v = -12345;
	socklen_t len = sizeof(v);

	snprintf(n, sizeof(n), "set %s=%d", name, value);
	OBS_RET(o, n, setsockopt(fd, level, opt, &value, sizeof(value)));
	snprintf(n, sizeof(n), "get %s", name);
	if (OBS_RET(o, n, getsockopt(fd, level, opt, &v, &len)) == 0) {
		snprintf(n, sizeof(n), "%s value", name);
		obs_int(o, n, v);
		snprintf(n, sizeof(n), "%s len", name);
		obs_int(o, n, len);
	}
}

static void observe_nodelay(const struct sf_family *f, struct obs *o)
{
	struct sf_conn c;
	int fd = (int)ASSERT_SYS(sf_socket(f, SOCK_CLOEXEC));

	/* Before connecting (stored for later), and on a live connection. */
	set_get(o, fd, IPPROTO_TCP, TCP_NODELAY, "unconnected TCP_NODELAY", 1);
	set_get(o, fd, IPPROTO_TCP, TCP_NODELAY, "unconnected TCP_NODELAY", 0);
	close(fd);
	diff_establish(f, &c);
	set_get(o, c.client, IPPROTO_TCP, TCP_NODELAY, "TCP_NODELAY", 1);
	set_get(o, c.client, IPPROTO_TCP, TCP_NODELAY, "TCP_NODELAY", 7);
	set_get(o, c.client, IPPROTO_TCP, TCP_NODELAY, "TCP_NODELAY", 0);
	set_get(o, c.server, IPPROTO_TCP, TCP_NODELAY, "accepted TCP_NODELAY", 1);
	obs_int(o, "data", diff_transfer_ok(c.client, c.server, 1000, 31));
	diff_conn_close(&c);
	obs_want(o, "TCP_NODELAY value", 0);
	obs_want(o, "accepted TCP_NODELAY value", 1);
	obs_want(o, "data", 1);
}
DIFF_CASE(nodelay)

/*
 * TCP_CORK holds small writes back until uncorked, for 200 ms at most:
 * TCP's until its probe timer (the RTO, at least 200 ms), ours 200 ms from
 * the first corked write (smc_tx.c). A look at the peer later than that
 * says nothing of the cork, and across two VMs the look reaches VM 1
 * through the control connection, which a slow kernel may take past
 * 200 ms. So the look is timed from before the first write to after the
 * answer, on VM 0's clock on both sides (diff_now_ms()), the time is
 * logged, and a late look is made again, at most CORK_LOOKS times,
 * unrecorded: the bytes read, the cork set again. When every look was
 * late the cork cannot be judged here, and the case says so (a skip that
 * scripts/allowed-skips names). On the debug kernel beside two busy
 * loops (2026-12-05, three runs) 48 of 52 looks came after 185 to 1466 ms
 * and found 0, 8, 12, 16 or 20 bytes, TCP's peer as SMC-R's; the 4 in
 * time (144 to 170 ms) found none. Alone, the debug kernel looks after
 * 93 to 105 ms, the stock kernel after 50 to 72.
 */
#define CORK_LOOKS	10
#define CORK_LOOK_MS	180	/* under the 200 ms, less a jiffy's slack */

static void observe_cork(const struct sf_family *f, struct obs *o)
{
	int v = -1, on = 1, off = 0, look;
	int64_t took = 0;
	struct sf_conn c;
	char buf[20];

	diff_establish(f, &c);
	set_get(o, c.client, IPPROTO_TCP, TCP_CORK, "TCP_CORK", 1);
	for (look = 0; look < CORK_LOOKS; look++) {
		int64_t start = diff_now_ms();

		for (int i = 0; i < 5; i++)
			ASSERT_EQ(send(c.client, "cork", 4, 0), 4);
		usleep(50000);
		ASSERT_SYS(ioctl(c.server, SIOCINQ, &v));
		took = diff_now_ms() - start;
		tap_diag("%s: look %d at the corked peer after %lld ms, %d bytes there", f->label,
			 look + 1, (long long)took, v);
		if (took < CORK_LOOK_MS)
			break;
		if (look == CORK_LOOKS - 1)
			tap_skip("every look at the corked peer came after the cork's 200 ms "
				 "(%d looks, the last after %lld ms): too slow here to judge the cork",
				 CORK_LOOKS, (long long)took);
		ASSERT_SYS(setsockopt(c.client, IPPROTO_TCP, TCP_CORK, &off, sizeof(off)));
		ASSERT_EQ(sf_read_all(c.server, buf, sizeof(buf)), 0);
		ASSERT_SYS(setsockopt(c.client, IPPROTO_TCP, TCP_CORK, &on, sizeof(on)));
	}
	obs_int(o, "peer's SIOCINQ while corked", v);
	set_get(o, c.client, IPPROTO_TCP, TCP_CORK, "TCP_CORK", 0);
	obs_int(o, "peer's SIOCINQ after uncork", diff_wait_inq(c.server, 20));
	diff_conn_close(&c);
	obs_want(o, "peer's SIOCINQ while corked", 0);
	obs_want(o, "peer's SIOCINQ after uncork", 20);
}
DIFF_CASE(cork)

static void observe_keepalive(const struct sf_family *f, struct obs *o)
{
	struct sf_conn c;
	int fd = (int)ASSERT_SYS(sf_socket(f, SOCK_CLOEXEC));

	set_get(o, fd, SOL_SOCKET, SO_KEEPALIVE, "unconnected SO_KEEPALIVE", 1);
	set_get(o, fd, IPPROTO_TCP, TCP_KEEPIDLE, "unconnected TCP_KEEPIDLE", 30);
	close(fd);
	diff_establish(f, &c);
	set_get(o, c.client, SOL_SOCKET, SO_KEEPALIVE, "SO_KEEPALIVE", 1);
	set_get(o, c.client, IPPROTO_TCP, TCP_KEEPIDLE, "TCP_KEEPIDLE", 7);
	set_get(o, c.client, IPPROTO_TCP, TCP_KEEPINTVL, "TCP_KEEPINTVL", 3);
	set_get(o, c.client, IPPROTO_TCP, TCP_KEEPCNT, "TCP_KEEPCNT", 4);
	set_get(o, c.client, IPPROTO_TCP, TCP_KEEPIDLE, "TCP_KEEPIDLE", 0);
	set_get(o, c.client, IPPROTO_TCP, TCP_KEEPCNT, "TCP_KEEPCNT", 1000);
	set_get(o, c.client, SOL_SOCKET, SO_KEEPALIVE, "SO_KEEPALIVE", 0);
	set_get(o, c.server, SOL_SOCKET, SO_KEEPALIVE, "accepted SO_KEEPALIVE", 0);
	diff_conn_close(&c);
	obs_want(o, "SO_KEEPALIVE value", 0);
	obs_want(o, "TCP_KEEPINTVL value", 3);
}
DIFF_CASE(keepalive)

/*
 * Keepalive probes really go out: with TCP_KEEPIDLE 1 s, TCP_INFO's probe
 * count falls back to 0 while the peer answers, and the connection
 * survives idle.
 */
static void observe_keepalive_idle(const struct sf_family *f, struct obs *o)
{
	struct tcp_info ti;
	socklen_t len = sizeof(ti);
	struct sf_conn c;
	int64_t deadline;
	int one = 1;

	diff_establish(f, &c);
	ASSERT_SYS(setsockopt(c.client, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one)));
	ASSERT_SYS(setsockopt(c.client, IPPROTO_TCP, TCP_KEEPIDLE, &one, sizeof(one)));
	ASSERT_SYS(setsockopt(c.client, IPPROTO_TCP, TCP_KEEPINTVL, &one, sizeof(one)));
	sleep(3);
	/*
	 * A probe counts as unanswered from its sending until its ACK is
	 * back, one round trip, which a loaded host stretches: TCP itself
	 * read 1 here between two VMs under load. So wait, bounded, for the
	 * count to be 0; it gets there only while the peer answers (a silent
	 * peer's count grows with every interval).
	 */
	deadline = diff_now_ms() + 2000LL * tap_scaled_seconds(1);
	for (;;) {
		len = sizeof(ti);
		ASSERT_SYS(getsockopt(c.client, IPPROTO_TCP, TCP_INFO, &ti, &len));
		if (!ti.tcpi_probes || diff_now_ms() >= deadline)
			break;
		usleep(20 * 1000);
	}
	obs_int(o, "state after 3 s idle", ti.tcpi_state);
	obs_int(o, "unanswered probes", ti.tcpi_probes);
	obs_int(o, "data", diff_transfer_ok(c.server, c.client, 1000, 32));
	diff_conn_close(&c);
	obs_want(o, "state after 3 s idle", 1);
	obs_want(o, "unanswered probes", 0);
	obs_want(o, "data", 1);
}
DIFF_CASE(keepalive_idle)

static void record_info(struct obs *o, const char *what, int fd)
{
	struct tcp_info ti;
	socklen_t len = sizeof(ti);
	char n[56];

	memset(&ti, 0, sizeof(ti));
	snprintf(n, sizeof(n), "%s TCP_INFO", what);
	if (OBS_RET(o, n, getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len)))
		return;
	snprintf(n, sizeof(n), "%s len", what);
	obs_int(o, n, len);
	snprintf(n, sizeof(n), "%s state", what);
	obs_int(o, n, ti.tcpi_state);
	snprintf(n, sizeof(n), "%s snd_mss > 0", what);
	obs_int(o, n, ti.tcpi_snd_mss > 0);
	snprintf(n, sizeof(n), "%s rtt > 0", what);
	obs_int(o, n, ti.tcpi_rtt > 0);
}

/*
 * Poll FD's TCP_INFO state until it is no longer STATE, for at most 2 s
 * times the time scale. Under the two-VM mirror both halves poll the same
 * rounds (diff_now_ms() is VM 0's clock on both).
 */
static void wait_state_leaves(int fd, int state)
{
	int64_t deadline = diff_now_ms() + 2000LL * tap_scaled_seconds(1);
	struct tcp_info ti;
	socklen_t len;

	for (;;) {
		len = sizeof(ti);
		ASSERT_SYS(getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len));
		if (ti.tcpi_state != state || diff_now_ms() >= deadline)
			return;
		usleep(20 * 1000);
	}
}

static void observe_tcp_info(const struct sf_family *f, struct obs *o)
{
	struct tcp_info ti;
	socklen_t len;
	struct sf_conn c;
	int fd = (int)ASSERT_SYS(sf_socket(f, SOCK_CLOEXEC));

	record_info(o, "fresh", fd);
	close(fd);
	diff_establish(f, &c);
	record_info(o, "listener", c.lfd);
	record_info(o, "client", c.client);
	record_info(o, "server", c.server);
	ASSERT_SYS(sf_write_all(c.client, "twelve bytes", 12));
	diff_wait_inq(c.server, 12);
	usleep(50000);
	len = sizeof(ti);
	ASSERT_SYS(getsockopt(c.client, IPPROTO_TCP, TCP_INFO, &ti, &len));
	/* SMC's CLC messages travel on the same TCP connection: compare only our own bytes. */
	obs_int(o, "client bytes_acked >= 12", ti.tcpi_bytes_acked >= 12);
	len = sizeof(ti);
	ASSERT_SYS(getsockopt(c.server, IPPROTO_TCP, TCP_INFO, &ti, &len));
	obs_int(o, "server bytes_received >= 12", ti.tcpi_bytes_received >= 12);
	len = 8; /* a short buffer gets the start of the structure */
	OBS_RET(o, "TCP_INFO len 8", getsockopt(c.client, IPPROTO_TCP, TCP_INFO, &ti, &len));
	obs_int(o, "len after", len);
	obs_int(o, "state in 8 bytes", ti.tcpi_state);
	ASSERT_SYS(shutdown(c.client, SHUT_WR));
	/*
	 * The client is in FIN_WAIT1 until the FIN's ACK is back and the
	 * server in ESTABLISHED until the FIN is in: a round trip, which a
	 * loaded host stretches past any fixed sleep (TCP itself read
	 * FIN_WAIT1 after 50 ms between two VMs under make soak). So wait,
	 * bounded, for both; a peer that never answers leaves them there.
	 */
	wait_state_leaves(c.client, 4);	/* TCP_FIN_WAIT1 */
	wait_state_leaves(c.server, 1);	/* TCP_ESTABLISHED */
	record_info(o, "client after SHUT_WR", c.client);
	record_info(o, "server after peer's SHUT_WR", c.server);
	diff_conn_close(&c);
	obs_want(o, "fresh state", 7);
	obs_want(o, "listener state", 10);
	obs_want(o, "client state", 1);
	obs_want(o, "server state", 1);
	obs_want(o, "client bytes_acked >= 12", 1);
	obs_want(o, "client after SHUT_WR state", 5);
}
DIFF_CASE(tcp_info)

static void observe_maxseg(const struct sf_family *f, struct obs *o)
{
	struct sockaddr_storage addr;
	int lfd = (int)ASSERT_SYS(sf_listen(f, NULL, 0, 4, &addr));
	int fd = (int)ASSERT_SYS(sf_socket(f, SOCK_CLOEXEC));
	int v = 0, a;
	socklen_t len = sizeof(v);

	set_get(o, fd, IPPROTO_TCP, TCP_MAXSEG, "unconnected TCP_MAXSEG", 1000);
	OBS_RET(o, "set TCP_MAXSEG=10 (too small)", setsockopt(fd, IPPROTO_TCP, TCP_MAXSEG, &(int){ 10 }, sizeof(int)));
	ASSERT_SYS(connect(fd, (struct sockaddr *)&addr, sf_addr_len(&addr)));
	a = (int)ASSERT_SYS(diff_accept(f, lfd));
	diff_check_mode(f, fd);
	ASSERT_SYS(getsockopt(fd, IPPROTO_TCP, TCP_MAXSEG, &v, &len));
	obs_int(o, "connected TCP_MAXSEG <= 1000", v <= 1000 && v > 0);
	len = sizeof(v);
	ASSERT_SYS(getsockopt(a, IPPROTO_TCP, TCP_MAXSEG, &v, &len));
	obs_int(o, "peer TCP_MAXSEG <= 1000", v <= 1000 && v > 0);
	obs_int(o, "data in small segments", diff_transfer_ok(fd, a, 100000, 33));
	close(a);
	close(fd);
	close(lfd);
	obs_want(o, "connected TCP_MAXSEG <= 1000", 1);
	obs_want(o, "peer TCP_MAXSEG <= 1000", 1);
	obs_want(o, "data in small segments", 1);
}
DIFF_CASE(maxseg)

static void observe_buffers(const struct sf_family *f, struct obs *o)
{
	struct sf_conn c;
	int fd = (int)ASSERT_SYS(sf_socket(f, SOCK_CLOEXEC));

	/* Linux doubles the value for bookkeeping; the same on both. */
	set_get(o, fd, SOL_SOCKET, SO_SNDBUF, "SO_SNDBUF", 65536);
	set_get(o, fd, SOL_SOCKET, SO_RCVBUF, "SO_RCVBUF", 65536);
	set_get(o, fd, SOL_SOCKET, SO_RCVBUF, "SO_RCVBUF", 1);
	set_get(o, fd, SOL_SOCKET, SO_RCVLOWAT, "SO_RCVLOWAT", 4);
	close(fd);
	diff_establish(f, &c);
	set_get(o, c.server, SOL_SOCKET, SO_RCVLOWAT, "connected SO_RCVLOWAT", 5);
	ASSERT_SYS(send(c.client, "abc", 3, 0));
	usleep(50000);
	/* Below the low-water mark: not readable. */
	obs_poll(o, "poll with 3 of 5 bytes", diff_poll_now(c.server));
	ASSERT_SYS(send(c.client, "de", 2, 0));
	obs_poll(o, "poll with 5 of 5 bytes", diff_wait(c.server, POLLIN));
	diff_conn_close(&c);
	obs_want(o, "poll with 3 of 5 bytes", POLLOUT);
	obs_want(o, "poll with 5 of 5 bytes", POLLIN);
}
DIFF_CASE(buffers)

static long long name_hash(const char *s)
{
	long long h = 0;

	while (*s)
		h = h * 31 + (unsigned char)*s++;
	return h;
}

static void observe_misc_options(const struct sf_family *f, struct obs *o)
{
	char name[32] = "";
	socklen_t len = sizeof(name);
	struct sf_conn c;
	int v;

	diff_establish(f, &c);
	OBS_RET(o, "get TCP_CONGESTION", getsockopt(c.client, IPPROTO_TCP, TCP_CONGESTION, name, &len));
	/* The system default (cubic on Debian): the same name on both. */
	obs_int(o, "default congestion name hash", name_hash(name));
	OBS_RET(o, "set TCP_CONGESTION reno", setsockopt(c.client, IPPROTO_TCP, TCP_CONGESTION, "reno", 4));
	OBS_RET(o, "set TCP_CONGESTION nonsense", setsockopt(c.client, IPPROTO_TCP, TCP_CONGESTION, "no-such-cc", 10));
	len = sizeof(name);
	ASSERT_SYS(getsockopt(c.client, IPPROTO_TCP, TCP_CONGESTION, name, &len));
	obs_int(o, "congestion is reno", strcmp(name, "reno") == 0);
	set_get(o, c.client, IPPROTO_TCP, TCP_USER_TIMEOUT, "TCP_USER_TIMEOUT", 5000);
	set_get(o, c.client, IPPROTO_TCP, TCP_USER_TIMEOUT, "TCP_USER_TIMEOUT", -1);
	set_get(o, c.client, IPPROTO_TCP, TCP_QUICKACK, "TCP_QUICKACK", 1);
	set_get(o, c.lfd, IPPROTO_TCP, TCP_DEFER_ACCEPT, "listener TCP_DEFER_ACCEPT", 0);
	set_get(o, c.client, SOL_SOCKET, SO_PRIORITY, "SO_PRIORITY", 3);
	set_get(o, c.client, SOL_SOCKET, SO_OOBINLINE, "SO_OOBINLINE", 1);
	set_get(o, c.client, IPPROTO_TCP, TCP_NOTSENT_LOWAT, "TCP_NOTSENT_LOWAT", 4096);
	set_get(o, c.client, IPPROTO_TCP, TCP_WINDOW_CLAMP, "TCP_WINDOW_CLAMP", 40000);
	if (f->addr_family == AF_INET)
		set_get(o, c.client, IPPROTO_IP, IP_TOS, "IP_TOS", 0x10);
	else
		set_get(o, c.client, IPPROTO_IPV6, IPV6_TCLASS, "IPV6_TCLASS", 0x10);
	/* Unknown options and bad buffers. */
	v = 1;
	OBS_RET(o, "set TCP option 9999", setsockopt(c.client, IPPROTO_TCP, 9999, &v, sizeof(v)));
	len = sizeof(v);
	OBS_RET(o, "get TCP option 9999", getsockopt(c.client, IPPROTO_TCP, 9999, &v, &len));
	OBS_RET(o, "set TCP_NODELAY len 2", setsockopt(c.client, IPPROTO_TCP, TCP_NODELAY, &v, 2));
	len = 0;
	OBS_RET(o, "get TCP_NODELAY len 0", getsockopt(c.client, IPPROTO_TCP, TCP_NODELAY, &v, &len));
	obs_int(o, "len after", len);
	len = (socklen_t)-1;
	OBS_RET(o, "get TCP_NODELAY len -1", getsockopt(c.client, IPPROTO_TCP, TCP_NODELAY, &v, &len));
	OBS_RET(o, "set level 9999", setsockopt(c.client, 9999, 1, &v, sizeof(v)));
	obs_int(o, "data still flows", diff_transfer_ok(c.client, c.server, 5000, 34));
	diff_conn_close(&c);
	obs_want(o, "congestion is reno", 1);
	obs_want(o, "set TCP option 9999 errno", ENOPROTOOPT);
	obs_want(o, "data still flows", 1);
}
DIFF_CASE(misc_options)

static const struct sf_case cases[] = {
	{ "TCP_NODELAY set and read back, before and after connect", nodelay, 0 },
	{ "TCP_CORK holds small writes back until uncorked", cork, 0 },
	{ "SO_KEEPALIVE, TCP_KEEPIDLE, TCP_KEEPINTVL, TCP_KEEPCNT, with range checks", keepalive,
	  0 },
	{ "keepalive with 1 s idle: probes answered, connection alive", keepalive_idle, 0 },
	{ "TCP_INFO state and fields on fresh, listening, connected, half-closed sockets",
	  tcp_info, 0 },
	{ "TCP_MAXSEG before connect bounds the segment size on both sides", maxseg, 0 },
	{ "SO_SNDBUF, SO_RCVBUF, SO_RCVLOWAT values and effect on poll", buffers, 0 },
	{ "TCP_CONGESTION, TCP_USER_TIMEOUT, other options; unknown options, short buffers",
	  misc_options, 0 },
};

int main(int argc, char **argv)
{
	return sf_test_main(argc, argv, cases, sizeof(cases) / sizeof(cases[0]));
}
