// SPDX-License-Identifier: GPL-2.0
/*
 * handshake/hsflood: a few hundred clients that offer SMC in the TCP
 * handshake and then never send their CLC Proposal must not delay
 * anybody else's handshake (issue 17, hole 4; Documentation/security.md).
 *
 * The silent clients are smc_badpeer's ("silent PORT" written to its
 * connect parameter, one connection each): kernel TCP sockets with the
 * SMC option, from 127.0.0.1, held open and mute. FLOOD of them (more
 * than smc_hs_wq's 256 workers) go to one AF_SMC listener; then a good
 * AF_SMC client connects, to another listener and to the flooded one,
 * and must be connected within GOOD_MS, over SMC-D (the loopback ISM
 * device, which badpeer.sh loads). GOOD_MS is not scaled for slow VMs:
 * a stalled handshake waits for a worker that a silent client frees only
 * after the CLC wait (2 s, scaled as the module scales it on a debug
 * build), and that is what the case must tell apart.
 *
 * With net.smc.limit_smc_hs 1 (Linux's handshake limitation) a flooded
 * listener is congested: new connections get no SMC option in the
 * SYN-ACK and are TCP at once, SMC_CLC_DECL_PEERNOSMC on both ends, as in
 * Linux; a listener that is not congested still gives SMC-D.
 *
 * The other way round: our own clients, FLOOD of them, connect to
 * smc_badpeer's silent server (which never answers their Proposal); a
 * good client connecting to our own listener must still get SMC-D within
 * GOOD_MS, and closing the waiting ones returns at once.
 *
 * Clients that do send their Proposal and then never confirm (smc_badpeer's
 * "propose", with a Proposal our own client made) hold a worker each for
 * the CLC wait; af_smc admits PEER_MAX of them per client address and
 * declines the rest with SMC_CLC_DECL_HSLIMIT, whatever limit_smc_hs
 * says: they go on over TCP, and so does a good client from that
 * address, while one from another address still gets SMC-D.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <linux/smc.h>
#include <linux/smc_diag.h>
#include <smc/af_smc.h>

#include "family.h"
#include "genl.h"
#include "smcdiag.h"
#include "tap.h"

#define FLOOD		300	/* silent clients, more than smc_hs_wq's workers */
#define GOOD_MS		1000	/* a good client's connect, not scaled */
#define BUILD_MS	1500	/* the flood must be in place before its CLC wait ends */
#define CONGESTED	64	/* af_smc's SMC_HS_CONGESTED */
#define PEER_MAX	16	/* af_smc's SMC_HS_MAX_PEER */
#define LISTENER_MAX	64	/* af_smc's SMC_HS_MAX_LISTENER */
#define HOST_MAX	128	/* af_smc's SMC_HS_MAX_ALL */
#define ADDRS		5	/* addresses per listener: more than LISTENER_MAX / PEER_MAX */
#define STALLERS	40
#define SILENT_PORT	7701	/* smc_badpeer's "silent" server (base_port 7700 + 1) */
#define KEEP_PORT	7706	/* smc_badpeer's "keep" server (base_port 7700 + 6) */
#define DECL_PEERNOSMC	0x03010000u
#define DECL_HSLIMIT	0x01020000u
#define DECL_PEERDECL	0x05000000u
#define MAX_SOCKS	2048

/*
 * BUILD_MS, scaled: a debug build of af_smc scales its CLC wait by the
 * same factor (kernel/smc_wait.h), and the flood must still be in place
 * before that wait ends.
 */
static long build_ms(void)
{
	return (long)(BUILD_MS * tap_timeout_scale());
}

/* One smc_badpeer client, from src if not NULL: 0, or the errno of the write. */
static int bad_client_from(const char *mode, unsigned int port, const char *src)
{
	char cmd[48];
	int fd, len, err = 0;

	len = snprintf(cmd, sizeof(cmd), "%s %u %s", mode, port, src ? src : "");
	fd = ASSERT_SYS(open("/sys/module/smc_badpeer/parameters/connect", O_WRONLY));
	if (write(fd, cmd, len) != len)
		err = errno ? errno : EIO;
	close(fd);
	return err;
}

static int bad_client(const char *mode, unsigned int port)
{
	return bad_client_from(mode, port, NULL);
}

static void flood(unsigned int port)
{
	int i;

	for (i = 0; i < FLOOD; i++)
		ASSERT_EQ(bad_client("silent", port), 0);
}

/*
 * AF_SMC connections on local port "port" (the children of our listener
 * there), or with remote port -port (our clients of a server there): in
 * their handshake (SMC_INIT) into *hs, all of them into *all.
 */
static void count_conns(int port, int *hs, int *all)
{
	static struct sd_sock socks[MAX_SOCKS];
	int n = sd_dump(socks, MAX_SOCKS), i;

	*hs = *all = 0;
	ASSERT(n >= 0 && n <= MAX_SOCKS);
	for (i = 0; i < n; i++) {
		if (port > 0 ? socks[i].sport != port || !socks[i].dport :
			       socks[i].dport != -port)
			continue;
		(*all)++;
		*hs += socks[i].state == 2;	/* SMC_INIT */
	}
}

static void count_children(unsigned int port, int *hs, int *all)
{
	count_conns((int)port, hs, all);
}

/*
 * Wait up to build_ms() until the listener on port has n connections;
 * returns how many of them are in their handshake.
 */
static int wait_conns(unsigned int port, int n, long t0)
{
	int hs, all;

	do {
		count_children(port, &hs, &all);
		if (all >= n)
			break;
		usleep(20 * 1000);
	} while (tap_now_ms() - t0 < build_ms());
	tap_diag("port %u after %ld ms: %d connections, %d in their handshake",
		 port, tap_now_ms() - t0, all, hs);
	if (all < n) {
		tap_fail("only %d of %d bad clients connected in %ld ms: too slow to be a flood",
			 all, n, build_ms());
		tap_end();
	}
	return hs;
}

static int wait_flood(unsigned int port, long t0)
{
	return wait_conns(port, FLOOD, t0);
}

/* An unsigned attribute of 1, 2 or 4 bytes inside a nest; 0 when absent. */
static uint32_t nest_uint(const struct nlattr *nest, int type)
{
	const struct nlattr *a = genl_nest(nest, type);
	const unsigned char *p = a ? (const unsigned char *)a + NLA_HDRLEN : NULL;
	uint16_t v16;
	uint32_t v32;

	switch (a ? a->nla_len - NLA_HDRLEN : 0) {
	case 1:
		return *p;
	case 2:
		memcpy(&v16, p, 2);
		return v16;
	case 4:
		memcpy(&v32, p, 4);
		return v32;
	}
	return 0;
}

/* How many server-side fallbacks with reason code the stats counted. */
static unsigned int srv_fallbacks(uint32_t code)
{
	const struct nlmsghdr *m = NULL;
	struct genl_result res = { 0 };
	unsigned int hdrsize = 0, count = 0;
	struct genl_req r;
	int fd, fam;

	fd = ASSERT_SYS(genl_open());
	fam = ASSERT_SYS(genl_family(fd, SMC_GENL_FAMILY_NAME, NULL, &hdrsize, NULL));
	genl_req_init(&r, (uint16_t)fam, SMC_NETLINK_GET_FBACK_STATS, 1, NLM_F_DUMP);
	ASSERT_SYS(genl_exchange(fd, &r, &res));
	ASSERT_EQ(res.error, 0);
	while ((m = genl_next_msg(&res, m))) {
		const struct nlattr *f = genl_attr(m, hdrsize, SMC_GEN_FBACK_STATS);

		if (f && nest_uint(f, SMC_NLA_FBACK_STATS_TYPE) == 1 &&
		    nest_uint(f, SMC_NLA_FBACK_STATS_RSN_CODE) == code)
			count += nest_uint(f, SMC_NLA_FBACK_STATS_RSN_CNT);
	}
	genl_result_free(&res);
	close(fd);
	return count;
}

/* What a good client must see, on its end and on the accepted one. */
struct outcome {
	int mode;
	unsigned int client_reason, client_peer_diag, server_reason;
};

static const struct outcome smcd = { SMC_DIAG_MODE_SMCD, 0, 0, 0 };

/*
 * A good client connects to addr, from src (NULL: the kernel picks, that
 * is 127.0.0.1); lfd is the listener. Checks the time the connect took,
 * the outcome on both ends, and that bytes get through. Connections
 * queued on lfd before the good one are closed on the way.
 */
static void good_client(int lfd, const struct sockaddr_storage *addr, const char *src,
			const char *what, const struct outcome *want)
{
	const struct sf_family *f = sf_find("smc");
	struct sockaddr_storage local, peer;
	struct sd_sock cs, as;
	socklen_t len;
	char buf[5];
	long t0, ms;
	int cfd, afd;

	cfd = ASSERT_SYS(sf_socket(f, 0));
	if (src) {
		len = sf_addr(f, src, 0, &local);
		ASSERT(len > 0);
		ASSERT_SYS(bind(cfd, (struct sockaddr *)&local, len));
	}
	t0 = tap_now_ms();
	ASSERT_SYS(connect(cfd, (const struct sockaddr *)addr, sf_addr_len(addr)));
	ms = tap_now_ms() - t0;
	len = sizeof(local);
	ASSERT_SYS(getsockname(cfd, (struct sockaddr *)&local, &len));
	/* The flooded listener may have TCP connections queued before ours. */
	for (;;) {
		len = sizeof(peer);
		afd = ASSERT_SYS(accept(lfd, (struct sockaddr *)&peer, &len));
		if (sf_port(&peer) == sf_port(&local))
			break;
		close(afd);
	}
	ASSERT_EQ(sd_find_fd(cfd, &cs), 0);
	ASSERT_EQ(sd_find_fd(afd, &as), 0);
	tap_diag("%s: connected in %ld ms, mode %u/%u, reason 0x%08x (peer 0x%08x)/0x%08x "
		 "(client/server)", what, ms, cs.mode, as.mode, cs.reason, cs.peer_diagnosis,
		 as.reason);
	if (ms >= GOOD_MS)
		tap_fail("%s: connect took %ld ms, more than %d", what, ms, GOOD_MS);
	EXPECT_EQ(cs.mode, want->mode);
	EXPECT_EQ(as.mode, want->mode);
	if (want->mode == SMC_DIAG_MODE_FALLBACK_TCP) {
		EXPECT_EQ(cs.reason, want->client_reason);
		EXPECT_EQ(cs.peer_diagnosis, want->client_peer_diag);
		EXPECT_EQ(as.reason, want->server_reason);
	}
	ASSERT_EQ(write(cfd, "hello", 5), 5);
	EXPECT_EQ(sf_read_all(afd, buf, 5), 0);
	EXPECT(!memcmp(buf, "hello", 5));
	close(cfd);
	close(afd);
}

/* The flood ends within its CLC wait, and nothing of it was accepted. */
static void flood_ends(int lfd, unsigned int port)
{
	long t0 = tap_now_ms();
	int hs, all;

	do {
		count_children(port, &hs, &all);
		if (!hs)
			break;
		usleep(100 * 1000);
	} while (tap_now_ms() - t0 < sf_clc_wait_ms() + 1500 * tap_timeout_scale());
	EXPECT_EQ(hs, 0);
	ASSERT_SYS(fcntl(lfd, F_SETFL, O_NONBLOCK));
	EXPECT_ERRNO(accept(lfd, NULL, NULL), EAGAIN);
}

static void silent_flood(const void *arg)
{
	const struct sf_family *f = sf_find("smc");
	struct sockaddr_storage flooded, other;
	int lfd, ofd;
	long t0;

	(void)arg;
	sf_require(f);
	lfd = ASSERT_SYS(sf_listen(f, NULL, 0, 4 * FLOOD, &flooded));
	ofd = ASSERT_SYS(sf_listen(f, NULL, 0, 16, &other));
	t0 = tap_now_ms();
	flood(sf_port(&flooded));
	wait_flood(sf_port(&flooded), t0);
	good_client(ofd, &other, NULL, "other listener", &smcd);
	good_client(lfd, &flooded, NULL, "flooded listener", &smcd);
	flood_ends(lfd, sf_port(&flooded));
	close(ofd);
	close(lfd);
}

static int write_sysctl(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY), rc;

	if (fd < 0)
		return -1;
	rc = write(fd, val, strlen(val)) == (ssize_t)strlen(val) ? 0 : -1;
	close(fd);
	return rc;
}

static void limited_flood(const void *arg)
{
	const struct sf_family *f = sf_find("smc");
	struct sockaddr_storage flooded, other;
	int lfd, ofd, hs;
	long t0;

	(void)arg;
	sf_require(f);
	/* A listener takes net.smc.limit_smc_hs when it is made, as in Linux. */
	ASSERT_SYS(write_sysctl("/proc/sys/net/smc/limit_smc_hs", "1"));
	lfd = EXPECT_SYS(sf_listen(f, NULL, 0, 4 * FLOOD, &flooded));
	ofd = EXPECT_SYS(sf_listen(f, NULL, 0, 16, &other));
	ASSERT_SYS(write_sysctl("/proc/sys/net/smc/limit_smc_hs", "0"));
	ASSERT(lfd >= 0 && ofd >= 0);
	t0 = tap_now_ms();
	flood(sf_port(&flooded));
	hs = wait_flood(sf_port(&flooded), t0);
	/*
	 * Congested from CONGESTED connections on (a few more may pass,
	 * their SYNs racing the count): the rest got no SMC option.
	 */
	EXPECT(hs >= CONGESTED && hs < FLOOD);
	good_client(lfd, &flooded, NULL, "congested listener", &(const struct outcome){
		SMC_DIAG_MODE_FALLBACK_TCP, DECL_PEERNOSMC, 0, DECL_PEERNOSMC });
	good_client(ofd, &other, NULL, "listener not congested", &smcd);
	close(ofd);
	close(lfd);
}

static void silent_servers(const void *arg)
{
	const struct sf_family *f = sf_find("smc");
	struct sockaddr_in sin = {
		.sin_family = AF_INET,
		.sin_port = htons(SILENT_PORT),
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};
	struct sockaddr_storage addr;
	static int fds[FLOOD];
	int lfd, i, hs = 0, all = 0;
	long t0;

	(void)arg;
	sf_require(f);
	t0 = tap_now_ms();
	for (i = 0; i < FLOOD; i++) {
		fds[i] = ASSERT_SYS(socket(AF_SMC, SOCK_STREAM | SOCK_NONBLOCK, SMCPROTO_SMC));
		ASSERT_ERRNO(connect(fds[i], (struct sockaddr *)&sin, sizeof(sin)), EINPROGRESS);
	}
	do {
		count_conns(-SILENT_PORT, &hs, &all);
		if (hs >= FLOOD)
			break;
		usleep(20 * 1000);
	} while (tap_now_ms() - t0 < build_ms());
	tap_diag("our clients of the silent server after %ld ms: %d, %d in their handshake",
		 tap_now_ms() - t0, all, hs);
	if (hs < FLOOD) {
		tap_fail("only %d of %d clients waiting for the silent server in %ld ms",
			 hs, FLOOD, build_ms());
		tap_end();
	}
	lfd = ASSERT_SYS(sf_listen(f, NULL, 0, 16, &addr));
	good_client(lfd, &addr, NULL, "good client, own listener", &smcd);
	close(lfd);
	t0 = tap_now_ms();
	for (i = 0; i < FLOOD; i++)
		close(fds[i]);
	tap_diag("closing %d clients mid-handshake took %ld ms", FLOOD, tap_now_ms() - t0);
	EXPECT(tap_now_ms() - t0 < 1000 * tap_timeout_scale());
}

/* Our own client proposes to smc_badpeer's "keep" server, which keeps it. */
static void make_template(void)
{
	struct sockaddr_in sin = {
		.sin_family = AF_INET,
		.sin_port = htons(KEEP_PORT),
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};
	int fd, err = 0;
	long t0;

	fd = ASSERT_SYS(socket(AF_SMC, SOCK_STREAM | SOCK_NONBLOCK, SMCPROTO_SMC));
	ASSERT_ERRNO(connect(fd, (struct sockaddr *)&sin, sizeof(sin)), EINPROGRESS);
	/* "propose" is refused (ENOENT) until the server has the Proposal. */
	t0 = tap_now_ms();
	while (tap_now_ms() - t0 < 1500 * tap_timeout_scale() && (err = bad_client("propose", 9)) == ENOENT)
		usleep(20 * 1000);
	close(fd);
	if (err) {
		tap_fail("smc_badpeer got no Proposal from our client: %s", tap_errno_name(err));
		tap_end();
	}
}

static void stalled_peer(const void *arg)
{
	const struct sf_family *f = sf_find("smc");
	struct sockaddr_storage addr, peer;
	struct sd_sock s;
	int lfd, afd, hs, i, limited = 0;
	unsigned int counted;
	long t0;

	(void)arg;
	sf_require(f);
	counted = srv_fallbacks(DECL_HSLIMIT);
	make_template();
	lfd = ASSERT_SYS(sf_listen(f, NULL, 0, 4 * STALLERS, &addr));
	t0 = tap_now_ms();
	for (i = 0; i < STALLERS; i++)
		ASSERT_EQ(bad_client("propose", sf_port(&addr)), 0);
	hs = wait_conns(sf_port(&addr), STALLERS, t0);
	/* The declined ones leave their handshake at once; wait for that. */
	while (hs > PEER_MAX && tap_now_ms() - t0 < build_ms()) {
		int all;

		usleep(20 * 1000);
		count_children(sf_port(&addr), &hs, &all);
	}
	tap_diag("after %ld ms in their handshake: %d", tap_now_ms() - t0, hs);
	/* PEER_MAX wait for a Confirm; the rest were declined, and are TCP. */
	EXPECT_EQ(hs, PEER_MAX);
	ASSERT_SYS(fcntl(lfd, F_SETFL, O_NONBLOCK));
	for (i = 0; i < STALLERS - PEER_MAX; i++) {
		afd = accept(lfd, (struct sockaddr *)&peer, &(socklen_t){ sizeof(peer) });
		if (afd < 0)
			break;
		if (!sd_find_fd(afd, &s) && s.mode == SMC_DIAG_MODE_FALLBACK_TCP &&
		    s.reason == DECL_HSLIMIT)
			limited++;
		close(afd);
	}
	tap_diag("%d of %d stalling clients declined with HSLIMIT", limited, STALLERS);
	EXPECT_EQ(limited, STALLERS - PEER_MAX);
	ASSERT_SYS(fcntl(lfd, F_SETFL, 0));
	good_client(lfd, &addr, NULL, "good client, same address", &(const struct outcome){
		SMC_DIAG_MODE_FALLBACK_TCP, DECL_PEERDECL, DECL_HSLIMIT, DECL_HSLIMIT });
	good_client(lfd, &addr, "127.0.0.2", "good client, another address", &smcd);
	/* Counted in the stats as server fallbacks, reason HSLIMIT. */
	counted = srv_fallbacks(DECL_HSLIMIT) - counted;
	tap_diag("stats: %u more server fallbacks with HSLIMIT", counted);
	EXPECT_EQ(counted, STALLERS - PEER_MAX + 1);
	close(lfd);
}

/*
 * Stalling clients from ADDRS addresses each (PEER_MAX from each) on two
 * listeners: 2 * ADDRS * PEER_MAX, more than HOST_MAX, and per listener
 * more than LISTENER_MAX. Exactly LISTENER_MAX must wait on each (which is
 * HOST_MAX in all), the rest get TCP with HSLIMIT, and so does a good
 * client of a third address on a third listener: the host is full.
 */
static void listener_and_host_bounds(const void *arg)
{
	const struct sf_family *f = sf_find("smc");
	struct sockaddr_storage addr[3], peer;
	int lfd[3], hs[2] = { 0 }, all, i, a, j, n = ADDRS * PEER_MAX;
	char src[16];
	struct sd_sock s;
	long t0;

	(void)arg;
	sf_require(f);
	make_template();
	/* The handshakes of the case before end with its listener. */
	t0 = tap_now_ms();
	do {
		static struct sd_sock socks[MAX_SOCKS];
		int k, busy = 0, got = sd_dump(socks, MAX_SOCKS);

		for (k = 0; k < got && k < MAX_SOCKS; k++)
			busy += socks[k].state == 2 && socks[k].dport;
		if (!busy)
			break;
		usleep(50 * 1000);
	} while (tap_now_ms() - t0 < 3000);
	for (i = 0; i < 3; i++)
		lfd[i] = ASSERT_SYS(sf_listen(f, NULL, 0, 4 * n, &addr[i]));
	t0 = tap_now_ms();
	for (i = 0; i < 2; i++)
		for (a = 0; a < ADDRS; a++) {
			snprintf(src, sizeof(src), "127.0.0.%d", 11 + 10 * i + a);
			for (j = 0; j < PEER_MAX; j++)
				ASSERT_EQ(bad_client_from("propose", sf_port(&addr[i]), src), 0);
		}
	for (i = 0; i < 2; i++)
		wait_conns(sf_port(&addr[i]), n, t0);
	/* The declined ones leave their handshake at once; wait for that. */
	do {
		count_children(sf_port(&addr[0]), &hs[0], &all);
		count_children(sf_port(&addr[1]), &hs[1], &all);
		if (hs[0] <= LISTENER_MAX && hs[1] <= LISTENER_MAX)
			break;
		usleep(20 * 1000);
	} while (tap_now_ms() - t0 < build_ms());
	tap_diag("after %ld ms in their handshake: %d and %d", tap_now_ms() - t0, hs[0], hs[1]);
	EXPECT_EQ(hs[0], LISTENER_MAX);
	EXPECT_EQ(hs[1], LISTENER_MAX);
	EXPECT_EQ(hs[0] + hs[1], HOST_MAX);
	good_client(lfd[2], &addr[2], "127.0.0.99", "good client, host full", &(const struct outcome){
		SMC_DIAG_MODE_FALLBACK_TCP, DECL_PEERDECL, DECL_HSLIMIT, DECL_HSLIMIT });
	for (i = 0; i < 2; i++) {
		int limited = 0;

		ASSERT_SYS(fcntl(lfd[i], F_SETFL, O_NONBLOCK));
		for (;;) {
			int afd = accept(lfd[i], (struct sockaddr *)&peer,
					 &(socklen_t){ sizeof(peer) });

			if (afd < 0)
				break;
			limited += !sd_find_fd(afd, &s) && s.reason == DECL_HSLIMIT;
			close(afd);
		}
		tap_diag("listener %d: %d declined with HSLIMIT", i + 1, limited);
		EXPECT_EQ(limited, n - LISTENER_MAX);
	}
	for (i = 0; i < 3; i++)
		close(lfd[i]);
}

int main(void)
{
	tap_add(silent_flood, NULL, 30,
		"%d silent SMC clients on one listener: good clients on it and on another get SMC-D within %d ms",
		FLOOD, GOOD_MS);
	tap_add(limited_flood, NULL, 30,
		"limit_smc_hs 1: a flooded listener's new connections are TCP (PEERNOSMC) within %d ms, another's SMC-D",
		GOOD_MS);
	tap_add(silent_servers, NULL, 30,
		"%d of our clients wait for a silent server: a good client of our own listener "
		"gets SMC-D within %d ms", FLOOD, GOOD_MS);
	tap_add(stalled_peer, NULL, 30,
		"%d clients of one address stall after their Proposal: %d wait, the rest and a good "
		"client of that address get TCP (HSLIMIT), another address SMC-D", STALLERS, PEER_MAX);
	tap_add(listener_and_host_bounds, NULL, 30,
		"%d stalling clients of %d addresses on two listeners: %d wait on each (%d on the "
		"host), the rest and a good client of a third listener get TCP (HSLIMIT)",
		2 * ADDRS * PEER_MAX, 2 * ADDRS, LISTENER_MAX, HOST_MAX);
	return tap_run();
}
