// SPDX-License-Identifier: GPL-2.0
/*
 * socket/fastopen: TCP Fast Open. TCP_FASTOPEN on a listener,
 * TCP_FASTOPEN_CONNECT on a client that writes while still connecting, and
 * sendto(MSG_FASTOPEN). SMC does not carry data in a SYN, so AF_SMC falls
 * back to TCP here; the program must still see what TCP gives it (diff.h).
 * That it did fall back, for the reason it must, is checked by sock_diag on
 * both ends of every connection (diff_check_fallback): the cases claim no
 * SMC, and an SMC connection here would be a bug, not a pass.
 *
 * The server side of Fast Open needs net.ipv4.tcp_fastopen bit 2; a case
 * sets it to 3 (client and server) for its own run and puts the old value
 * back.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "diff.h"
#include "family.h"
#include "tap.h"

#define SYSCTL "/proc/sys/net/ipv4/tcp_fastopen"

/* SMC_CLC_DECL_*: Fast Open on the socket, or a listener that never offers SMC. */
#define DECL_OPTUNSUPP 0x03060000
#define DECL_PEERNOSMC 0x03010000

#ifndef MSG_FASTOPEN
#define MSG_FASTOPEN 0x20000000
#endif

static int sysctl_old = -1;

static int sysctl_rw(int value)
{
	FILE *fp = fopen(SYSCTL, "r+");
	int old = -1;

	if (!fp)
		return -1;
	if (fscanf(fp, "%d", &old) != 1)
		old = -1;
	rewind(fp);
	if (value >= 0 && fprintf(fp, "%d\n", value) < 0)
		old = -1;
	if (fclose(fp))
		old = -1;
	return old;
}

static void enable_fastopen(void)
{
	sysctl_old = sysctl_rw(3);
	if (sysctl_old < 0)
		tap_skip("cannot set %s to 3 (need root in the test VM)", SYSCTL);
	/*
	 * Cookies are cached per destination: without a flush the second run
	 * of a case (SMC after its oracle) would start with the first run's
	 * cookie and see a different first round.
	 */
	if (system("ip tcp_metrics flush all >/dev/null 2>&1") != 0)
		tap_skip("cannot flush the Fast Open cookie cache (ip tcp_metrics flush)");
}

static void restore_fastopen(void)
{
	if (sysctl_old >= 0)
		sysctl_rw(sysctl_old);
}

static int fastopen_listener(const struct sf_family *f, struct obs *o,
			     struct sockaddr_storage *addr)
{
	int qlen = 5, v = -1, lfd;
	socklen_t len = sizeof(v);

	lfd = (int)ASSERT_SYS(sf_socket(f, SOCK_CLOEXEC));
	sf_addr(f, NULL, 0, addr);
	ASSERT_SYS(bind(lfd, (struct sockaddr *)addr, sf_addr_len(addr)));
	OBS_RET(o, "listener TCP_FASTOPEN=5", setsockopt(lfd, IPPROTO_TCP, TCP_FASTOPEN, &qlen, sizeof(qlen)));
	ASSERT_SYS(listen(lfd, 8));
	OBS_RET(o, "get TCP_FASTOPEN", getsockopt(lfd, IPPROTO_TCP, TCP_FASTOPEN, &v, &len));
	obs_int(o, "TCP_FASTOPEN value", v);
	len = sizeof(*addr);
	ASSERT_SYS(getsockname(lfd, (struct sockaddr *)addr, &len));
	return lfd;
}

/* Echo round: the client's first write goes out while it may still be connecting. */
static void tfo_connect_round(const struct sf_family *f, struct obs *o, int lfd,
			      const struct sockaddr_storage *addr, int round)
{
	char name[56], buf[64] = { 0 };
	int one = 1, fd, a;
	struct tcp_info ti;
	ssize_t rc;
	socklen_t len;

	fd = (int)ASSERT_SYS(sf_socket(f, SOCK_CLOEXEC | SOCK_NONBLOCK));
	snprintf(name, sizeof(name), "round %d: TCP_FASTOPEN_CONNECT", round);
	OBS_RET(o, name, setsockopt(fd, IPPROTO_TCP, TCP_FASTOPEN_CONNECT, &one, sizeof(one)));
	snprintf(name, sizeof(name), "round %d: connect", round);
	OBS_RET(o, name, connect(fd, (const struct sockaddr *)addr, sf_addr_len(addr)));
	/* Right away, without waiting for POLLOUT: data in the SYN if a cookie is known. */
	snprintf(name, sizeof(name), "round %d: send at once", round);
	errno = 0;
	rc = send(fd, "fast open data", 14, MSG_NOSIGNAL);
	if (round > 1) {
		obs_errno(o, name, rc < 0 ? errno : 0);
	} else {
		/*
		 * No cookie yet: the SYN went without data, and whether the
		 * handshake is over by now is a race (between two VMs the
		 * SYN-ACK may still be on its way): the whole write and
		 * EAGAIN are both right.
		 */
		obs_int(o, "round 1: send at once: sent or EAGAIN",
			rc == 14 || (rc < 0 && errno == EAGAIN));
	}
	if (rc < 0) {
		diff_wait(fd, POLLOUT);
		ASSERT_EQ(send(fd, "fast open data", 14, MSG_NOSIGNAL), 14);
	}
	a = (int)ASSERT_SYS(accept4(lfd, NULL, NULL, SOCK_CLOEXEC));
	snprintf(name, sizeof(name), "round %d: server read", round);
	obs_int(o, name, sf_read_all(a, buf, 14) == 0 && memcmp(buf, "fast open data", 14) == 0);
	ASSERT_SYS(sf_write_all(a, "reply", 5));
	diff_set_nonblock(fd, 0);
	snprintf(name, sizeof(name), "round %d: client read", round);
	obs_int(o, name, sf_read_all(fd, buf, 5) == 0 && memcmp(buf, "reply", 5) == 0);
	len = sizeof(ti);
	ASSERT_SYS(getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len));
	tap_diag("%s round %d: data in SYN %s, SYN-ACK acked it %s", f->label, round,
		 ti.tcpi_options & TCPI_OPT_SYN_DATA ? "yes" : "no",
		 ti.tcpi_state == TCP_ESTABLISHED ? "(established)" : "(not established)");
	/* Fast Open on either side: both ends are TCP, for that reason. */
	diff_check_fallback(f, fd, DECL_OPTUNSUPP);
	diff_check_fallback(f, a, DECL_OPTUNSUPP);
	close(a);
	close(fd);
}

static void observe_fastopen_connect(const struct sf_family *f, struct obs *o)
{
	struct sockaddr_storage addr;
	int lfd;

	enable_fastopen();
	lfd = fastopen_listener(f, o, &addr);
	/* The first round fetches a cookie, the second uses it. */
	tfo_connect_round(f, o, lfd, &addr, 1);
	tfo_connect_round(f, o, lfd, &addr, 2);
	close(lfd);
	restore_fastopen();
	obs_want(o, "TCP_FASTOPEN value", 5);
	obs_want(o, "round 1: send at once: sent or EAGAIN", 1);
	obs_want(o, "round 1: server read", 1);
	obs_want(o, "round 1: client read", 1);
	obs_want(o, "round 2: server read", 1);
	obs_want(o, "round 2: client read", 1);
}
DIFF_CASE(fastopen_connect)

static void observe_msg_fastopen(const struct sf_family *f, struct obs *o)
{
	struct sockaddr_storage addr;
	char buf[16] = { 0 };
	int lfd, fd, a;

	enable_fastopen();
	lfd = fastopen_listener(f, o, &addr);
	for (int round = 1; round <= 2; round++) {
		char name[56];

		fd = (int)ASSERT_SYS(sf_socket(f, SOCK_CLOEXEC));
		snprintf(name, sizeof(name), "round %d: sendto(MSG_FASTOPEN)", round);
		OBS_RET(o, name, sendto(fd, "tfo!", 4, MSG_FASTOPEN | MSG_NOSIGNAL,
					(struct sockaddr *)&addr, sf_addr_len(&addr)));
		snprintf(name, sizeof(name), "round %d: then sendto again", round);
		OBS_RET(o, name, sendto(fd, "more", 4, MSG_NOSIGNAL, NULL, 0));
		a = (int)ASSERT_SYS(accept4(lfd, NULL, NULL, SOCK_CLOEXEC));
		snprintf(name, sizeof(name), "round %d: server read", round);
		obs_int(o, name, sf_read_all(a, buf, 8) == 0 && memcmp(buf, "tfo!more", 8) == 0);
		diff_check_fallback(f, fd, DECL_OPTUNSUPP);
		diff_check_fallback(f, a, DECL_OPTUNSUPP);
		close(a);
		close(fd);
	}
	/* MSG_FASTOPEN with an address on a connected socket: EISCONN. */
	/* A TCP_FASTOPEN listener never offers SMC: this one falls back. */
	fd = (int)ASSERT_SYS(sf_connect(f, &addr));
	a = (int)ASSERT_SYS(accept4(lfd, NULL, NULL, SOCK_CLOEXEC));
	/* The client offered SMC and got no answer; the listener's child kept its reason. */
	diff_check_fallback(f, fd, DECL_PEERNOSMC);
	diff_check_fallback(f, a, DECL_OPTUNSUPP);
	OBS_RET(o, "MSG_FASTOPEN on a connected socket",
		sendto(fd, "x", 1, MSG_FASTOPEN | MSG_NOSIGNAL, (struct sockaddr *)&addr, sf_addr_len(&addr)));
	close(a);
	close(fd);
	close(lfd);
	restore_fastopen();
	obs_want(o, "round 1: sendto(MSG_FASTOPEN)", 4);
	obs_want(o, "round 1: server read", 1);
	obs_want(o, "round 2: server read", 1);
}
DIFF_CASE(msg_fastopen)

static void observe_fastopen_options(const struct sf_family *f, struct obs *o)
{
	int fd = (int)ASSERT_SYS(sf_socket(f, SOCK_CLOEXEC));
	struct sf_conn c;
	int v = -1, one = 1;
	socklen_t len = sizeof(v);

	OBS_RET(o, "get TCP_FASTOPEN_CONNECT fresh", getsockopt(fd, IPPROTO_TCP, TCP_FASTOPEN_CONNECT, &v, &len));
	obs_int(o, "value", v);
	OBS_RET(o, "set TCP_FASTOPEN_CONNECT=1", setsockopt(fd, IPPROTO_TCP, TCP_FASTOPEN_CONNECT, &one, sizeof(one)));
	len = sizeof(v);
	OBS_RET(o, "get TCP_FASTOPEN_CONNECT", getsockopt(fd, IPPROTO_TCP, TCP_FASTOPEN_CONNECT, &v, &len));
	obs_int(o, "value", v);
	OBS_RET(o, "set TCP_FASTOPEN=-1", setsockopt(fd, IPPROTO_TCP, TCP_FASTOPEN, &(int){ -1 }, sizeof(int)));
	close(fd);
	diff_establish(f, &c);
	OBS_RET(o, "set TCP_FASTOPEN_CONNECT connected", setsockopt(c.client, IPPROTO_TCP, TCP_FASTOPEN_CONNECT, &one, sizeof(one)));
	OBS_RET(o, "set TCP_FASTOPEN connected", setsockopt(c.client, IPPROTO_TCP, TCP_FASTOPEN, &one, sizeof(one)));
	obs_int(o, "data", diff_transfer_ok(c.client, c.server, 1000, 51));
	diff_conn_close(&c);
	obs_want(o, "set TCP_FASTOPEN_CONNECT=1", 0);
	obs_want(o, "data", 1);
}
DIFF_CASE(fastopen_options)

static const struct sf_case cases[] = {
	{ "TCP_FASTOPEN listener, TCP_FASTOPEN_CONNECT client writing while connecting "
	  "(AF_SMC: a TCP fallback at both ends)", fastopen_connect, 0 },
	{ "sendto(MSG_FASTOPEN) connects and sends; EISCONN on a connected socket "
	  "(AF_SMC: a TCP fallback at both ends)", msg_fastopen, 0 },
	{ "TCP_FASTOPEN and TCP_FASTOPEN_CONNECT values and states", fastopen_options, 0 },
};

int main(int argc, char **argv)
{
	return sf_test_main(argc, argv, cases, sizeof(cases) / sizeof(cases[0]));
}
