// SPDX-License-Identifier: GPL-2.0
/*
 * socket/fallback: every AF_SMC socket that ends up on TCP says why, and
 * sock_diag reports it: the local reason and the peer's diagnosis (the
 * numbers smcss prints as 0x<local>/0x<remote>).
 *
 * The manifest runs it with the loopback ISM device off (loopback_ism=0,
 * smc-module-opts.sh): with no SMC device, between two AF_SMC sockets the client
 * declines with "no SMC device" (0x03030000) instead of proposing, and the
 * server falls back because the peer declined (0x05000000), keeping the
 * client's code as the peer diagnosis. A peer without the SMC option in
 * its SYN gives 0x03010000 and TCP Fast Open 0x03060000. Values come from
 * a sock_diag reader of this test's own (lib/smcdiag.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/smc_diag.h>

#include "family.h"
#include "smcdiag.h"
#include "tap.h"

#define DECL_PEERNOSMC	0x03010000u
#define DECL_NOSMCDEV	0x03030000u
#define DECL_OPTUNSUPP	0x03060000u
#define DECL_PEERDECL	0x05000000u
#define STATE_ACTIVE	1
#define STATE_INIT	2
#define STATE_LISTEN	10

/* The diag entry of fd; ends the case when there is none. */
static struct sd_sock diag_of(int fd, const char *what)
{
	struct sd_sock s;
	int rc = sd_find_fd(fd, &s);

	if (rc) {
		tap_fail("%s: no sock_diag entry: %s", what, strerror(-rc));
		tap_abort();
	}
	tap_diag("%s: state %u mode %u fallback 0x%08x/0x%08x%s", what, s.state,
		 s.mode, s.reason, s.peer_diagnosis, s.has_fallback ? "" : " (no attribute)");
	return s;
}

static void expect_fallback(int fd, const char *what, uint32_t reason, uint32_t peer)
{
	struct sd_sock s = diag_of(fd, what);

	EXPECT_EQ(s.state, STATE_ACTIVE);
	EXPECT_EQ(s.mode, SMC_DIAG_MODE_FALLBACK_TCP);
	EXPECT(s.has_fallback);
	EXPECT_EQ(s.reason, reason);
	EXPECT_EQ(s.peer_diagnosis, peer);
}

/* A connection from a client of family cf to a listener of family lf. */
struct conn {
	int lfd, cfd, afd;
};

static void connect_pair(const struct sf_family *cf, const struct sf_family *lf,
			 struct conn *c, void (*before_listen)(int lfd))
{
	struct sockaddr_storage addr;
	socklen_t len;

	sf_require(cf);
	sf_require(lf);
	c->lfd = ASSERT_SYS(sf_socket(lf, SOCK_CLOEXEC));
	len = sf_addr(lf, NULL, 0, &addr);
	ASSERT_SYS(bind(c->lfd, (struct sockaddr *)&addr, len));
	if (before_listen)
		before_listen(c->lfd);
	ASSERT_SYS(listen(c->lfd, 8));
	len = sizeof(addr);
	ASSERT_SYS(getsockname(c->lfd, (struct sockaddr *)&addr, &len));
	c->cfd = ASSERT_SYS(sf_connect(cf, &addr));
	c->afd = ASSERT_SYS(accept4(c->lfd, NULL, NULL, SOCK_CLOEXEC));
	/* The stream works after the handshake, both ways. */
	ASSERT_EQ(write(c->cfd, "ping", 4), 4);
	{
		char buf[4];

		ASSERT_EQ(sf_read_all(c->afd, buf, 4), 0);
		EXPECT(!memcmp(buf, "ping", 4));
		ASSERT_EQ(write(c->afd, "pong", 4), 4);
		ASSERT_EQ(sf_read_all(c->cfd, buf, 4), 0);
		EXPECT(!memcmp(buf, "pong", 4));
	}
}

static void smc_to_smc(const void *arg)
{
	const struct sf_family *f = sf_find(arg);
	struct conn c;

	connect_pair(f, f, &c, NULL);
	expect_fallback(c.cfd, "client", DECL_NOSMCDEV, 0);
	expect_fallback(c.afd, "accepted", DECL_PEERDECL, DECL_NOSMCDEV);
}

static void smc_to_tcp(const void *arg)
{
	struct conn c;

	(void)arg;
	connect_pair(sf_find("smc"), sf_find("inet"), &c, NULL);
	expect_fallback(c.cfd, "client", DECL_PEERNOSMC, 0);
}

static void tcp_to_smc(const void *arg)
{
	struct conn c;

	(void)arg;
	connect_pair(sf_find("inet"), sf_find("smc"), &c, NULL);
	expect_fallback(c.afd, "accepted", DECL_PEERNOSMC, 0);
}

static void listener_and_unconnected(const void *arg)
{
	const struct sf_family *f = sf_find("smc");
	struct sd_sock s;
	int fd, lfd;

	(void)arg;
	sf_require(f);
	fd = ASSERT_SYS(sf_socket(f, SOCK_CLOEXEC));
	lfd = ASSERT_SYS(sf_listen(f, NULL, 0, 4, NULL));
	s = diag_of(fd, "unconnected");
	EXPECT_EQ(s.state, STATE_INIT);
	EXPECT_EQ(s.reason, 0);
	s = diag_of(lfd, "listener");
	EXPECT_EQ(s.state, STATE_LISTEN);
	EXPECT_EQ(s.mode, SMC_DIAG_MODE_SMCR); /* not fallen back, as Linux says */
	EXPECT_EQ(s.reason, 0);
}

static void identity(const void *arg)
{
	struct sockaddr_storage a, p;
	socklen_t len = sizeof(a);
	struct sd_sock s;
	struct stat st;
	struct conn c;

	(void)arg;
	connect_pair(sf_find("smc"), sf_find("smc"), &c, NULL);
	s = diag_of(c.cfd, "client");
	ASSERT_SYS(fstat(c.cfd, &st));
	EXPECT_EQ(s.inode, st.st_ino);
	EXPECT_EQ(s.uid, getuid());
	ASSERT_SYS(getsockname(c.cfd, (struct sockaddr *)&a, &len));
	len = sizeof(p);
	ASSERT_SYS(getpeername(c.cfd, (struct sockaddr *)&p, &len));
	EXPECT_EQ(s.sport, sf_port(&a));
	EXPECT_EQ(s.dport, sf_port(&p));
	shutdown(c.cfd, SHUT_WR);
	s = diag_of(c.cfd, "client after SHUT_WR");
	EXPECT_EQ(s.shutdown, 2); /* SEND_SHUTDOWN */
}

static void fastopen_client(const void *arg)
{
	const struct sf_family *f = sf_find("smc");
	struct sockaddr_storage addr;
	int one = 1, lfd, cfd, afd;

	(void)arg;
	sf_require(f);
	lfd = ASSERT_SYS(sf_listen(f, NULL, 0, 4, &addr));
	cfd = ASSERT_SYS(sf_socket(f, SOCK_CLOEXEC));
	ASSERT_SYS(setsockopt(cfd, SOL_TCP, TCP_FASTOPEN_CONNECT, &one, sizeof(one)));
	ASSERT_SYS(connect(cfd, (struct sockaddr *)&addr, sf_addr_len(&addr)));
	ASSERT_EQ(write(cfd, "x", 1), 1);
	afd = ASSERT_SYS(accept(lfd, NULL, NULL));
	expect_fallback(cfd, "client", DECL_OPTUNSUPP, 0);
	expect_fallback(afd, "accepted", DECL_PEERNOSMC, 0);
}

static void set_fastopen(int lfd)
{
	int qlen = 5;

	ASSERT_SYS(setsockopt(lfd, SOL_TCP, TCP_FASTOPEN, &qlen, sizeof(qlen)));
}

static void fastopen_listener_before(const void *arg)
{
	struct conn c;

	(void)arg;
	connect_pair(sf_find("smc"), sf_find("smc"), &c, set_fastopen);
	expect_fallback(c.afd, "accepted", DECL_OPTUNSUPP, 0);
	/* The listener never offered SMC: the client saw no option. */
	expect_fallback(c.cfd, "client", DECL_PEERNOSMC, 0);
}

static void fastopen_listener_after(const void *arg)
{
	const struct sf_family *f = sf_find("smc");
	struct sockaddr_storage addr;
	int lfd, cfd, afd;

	(void)arg;
	sf_require(f);
	lfd = ASSERT_SYS(sf_listen(f, NULL, 0, 4, &addr));
	set_fastopen(lfd);
	cfd = ASSERT_SYS(sf_connect(f, &addr));
	afd = ASSERT_SYS(accept(lfd, NULL, NULL));
	expect_fallback(afd, "accepted", DECL_OPTUNSUPP, 0);
	expect_fallback(cfd, "client", DECL_PEERNOSMC, 0);
}

static const struct tap_case cases[] = {
	{ "smc ipv4 to smc: client NOSMCDEV, server PEERDECL with peer NOSMCDEV",
	  smc_to_smc, "smc", 0 },
	{ "smc ipv6 to smc6: client NOSMCDEV, server PEERDECL with peer NOSMCDEV",
	  smc_to_smc, "smc6", 0 },
	{ "smc client to a TCP server: PEERNOSMC", smc_to_tcp, NULL, 0 },
	{ "TCP client to an smc server: accepted socket PEERNOSMC", tcp_to_smc, NULL, 0 },
	{ "listener LISTEN and unconnected INIT, neither fallen back",
	  listener_and_unconnected, NULL, 0 },
	{ "diag inode, uid, ports and shutdown match the socket", identity, NULL, 0 },
	{ "TCP_FASTOPEN_CONNECT: client OPTUNSUPP, server PEERNOSMC",
	  fastopen_client, NULL, 0 },
	{ "TCP_FASTOPEN before listen: accepted OPTUNSUPP, client PEERNOSMC",
	  fastopen_listener_before, NULL, 0 },
	{ "TCP_FASTOPEN after listen: later accepted OPTUNSUPP, client PEERNOSMC",
	  fastopen_listener_after, NULL, 0 },
};

int main(void)
{
	tap_add_table(cases, sizeof(cases) / sizeof(cases[0]));
	return tap_run();
}
