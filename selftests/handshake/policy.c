// SPDX-License-Identifier: GPL-2.0
/*
 * handshake/policy: the handshake policy of a network namespace (issue 22,
 * item 3; Documentation/handshake-policy.md), set over SMC_GEN_NETLINK
 * with af_smc's own commands and applied where it can be:
 *
 *  - a client whose peer or service port a rule keeps on TCP sends its
 *    SYN without the SMC option (client reason POLICY; the server sees a
 *    client without SMC, PEERNOSMC);
 *  - a server whose listener port a rule for every peer keeps on TCP
 *    leaves the option out of its SYN-ACK (server reason POLICY at once:
 *    a client that never sends its Proposal is accepted without the CLC
 *    wait);
 *  - a server whose rule needs the client's address declines the Proposal
 *    with SMC_CLC_DECL_POLICY (client PEERDECL with the peer's POLICY).
 *
 * Every connection uses the loopback ISM device (badpeer.sh loads it) and
 * local addresses of 127/8, so that the client's peer (the server's
 * address) and the server's peer (the client's) can be told apart by
 * prefix rules. The outcomes come from sock_diag and the fallback
 * statistics; the table's rules from raw netlink, with errno and extack.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
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

#define SERVER		"127.0.0.2"
#define CLIENT		"127.0.0.3"
#define SILENT_MS	1000	/* a child excluded at its SYN is ready well within */
#define DECL_PEERNOSMC	0x03010000u
#define DECL_PEERDECL	0x05000000u
#define DECL_POLICY	0x03800000u	/* af_smc's own (kernel/wire/smc_decline.h) */

/* ---- the table over netlink ---- */

struct rule {
	uint8_t action;
	uint8_t family;		/* 0: any peer */
	const char *addr;	/* for family */
	uint8_t plen;
	uint16_t lo, hi;	/* 0, 0: no port attribute */
};

static int gnl_family(int fd, unsigned int *hdrsize)
{
	return ASSERT_SYS(genl_family(fd, SMC_GENL_FAMILY_NAME, NULL, hdrsize, NULL));
}

static void put_u16(struct genl_req *r, uint16_t type, uint16_t v)
{
	genl_put_raw(r, type, &v, sizeof(v));
}

/* One request of cmd; res gets the kernel's answer (error and extack). */
static void policy_cmd(uint8_t cmd, const struct rule *ru, int id, uint16_t flags,
		       struct genl_result *res)
{
	unsigned char addr[16];
	struct genl_req r;
	int fd = ASSERT_SYS(genl_open());
	int fam = gnl_family(fd, NULL);

	genl_req_init(&r, (uint16_t)fam, cmd, 1, flags);
	if (id >= 0)
		genl_put_u32(&r, SMC_NLA_POLICY_ID, (uint32_t)id);
	if (ru) {
		genl_put_u8(&r, SMC_NLA_POLICY_ACTION, ru->action);
		if (ru->lo || ru->hi) {
			put_u16(&r, SMC_NLA_POLICY_PORT_LO, ru->lo);
			put_u16(&r, SMC_NLA_POLICY_PORT_HI, ru->hi);
		}
		if (ru->family) {
			/* A family that is neither gets an IPv4 address. */
			int v6 = ru->family == AF_INET6;

			genl_put_u8(&r, SMC_NLA_POLICY_FAMILY, ru->family);
			ASSERT_EQ(inet_pton(v6 ? AF_INET6 : AF_INET, ru->addr, addr), 1);
			genl_put_raw(&r, SMC_NLA_POLICY_ADDR, addr, v6 ? 16 : 4);
			genl_put_u8(&r, SMC_NLA_POLICY_PREFIXLEN, ru->plen);
		}
	}
	memset(res, 0, sizeof(*res));
	ASSERT_SYS(genl_exchange(fd, &r, res));
	close(fd);
}

/* Add a rule that must be taken. */
static void add(const struct rule *ru)
{
	struct genl_result res;

	policy_cmd(SMC_NETLINK_ADD_POLICY, ru, -1, 0, &res);
	if (res.error)
		tap_diag("add: %s (%s)", tap_errno_name(res.error), res.extack);
	ASSERT_EQ(res.error, 0);
	genl_result_free(&res);
}

/* Add a rule that must be refused with err; the extack must say why. */
static void add_refused(const struct rule *ru, int id, int err, const char *why)
{
	struct genl_result res;

	policy_cmd(SMC_NETLINK_ADD_POLICY, ru, id, 0, &res);
	tap_diag("refused: %s (%s)", tap_errno_name(res.error), res.extack);
	EXPECT_EQ(res.error, err);
	if (why && !strstr(res.extack, why))
		tap_fail("extack '%s' does not say '%s'", res.extack, why);
	genl_result_free(&res);
}

static int flush_err(void)
{
	struct genl_result res;
	int err;

	policy_cmd(SMC_NETLINK_FLUSH_POLICY, NULL, -1, 0, &res);
	err = res.error;
	genl_result_free(&res);
	return err;
}

static void flush(void)
{
	ASSERT_EQ(flush_err(), 0);
}

/* The ids of the rules in order (at most max); the count, or -errno. */
static int dump_ids(uint32_t *ids, int max)
{
	const struct nlmsghdr *m = NULL;
	struct genl_result res = { 0 };
	unsigned int hdrsize = 0;
	struct genl_req r;
	int fd, n = 0;

	fd = ASSERT_SYS(genl_open());
	genl_req_init(&r, (uint16_t)gnl_family(fd, &hdrsize), SMC_NETLINK_DUMP_POLICY, 1,
		      NLM_F_DUMP);
	ASSERT_SYS(genl_exchange(fd, &r, &res));
	close(fd);
	if (res.error) {
		n = -res.error;
		goto out;
	}
	while ((m = genl_next_msg(&res, m))) {
		const struct nlattr *a = genl_attr(m, hdrsize, SMC_NLA_POLICY_ID);
		uint32_t id = 0;

		ASSERT(a && a->nla_len == NLA_HDRLEN + 4);
		memcpy(&id, (const char *)a + NLA_HDRLEN, 4);
		if (n < max)
			ids[n] = id;
		n++;
	}
out:
	genl_result_free(&res);
	return n;
}

/* ---- statistics ---- */

static uint32_t nest_u32(const struct nlattr *nest, int type)
{
	const struct nlattr *a = genl_nest(nest, type);
	uint32_t v = 0;
	uint8_t v8;

	if (a && a->nla_len == NLA_HDRLEN + 4)
		memcpy(&v, (const char *)a + NLA_HDRLEN, 4);
	else if (a && !genl_attr_u8(a, &v8))
		v = v8;
	return v;
}

/* Fallbacks counted with reason code on the server (1) or client (0) side. */
static unsigned int fallbacks(int server, uint32_t code)
{
	const struct nlmsghdr *m = NULL;
	struct genl_result res = { 0 };
	unsigned int hdrsize = 0, count = 0;
	struct genl_req r;
	int fd;

	fd = ASSERT_SYS(genl_open());
	genl_req_init(&r, (uint16_t)gnl_family(fd, &hdrsize), SMC_NETLINK_GET_FBACK_STATS, 1,
		      NLM_F_DUMP);
	ASSERT_SYS(genl_exchange(fd, &r, &res));
	ASSERT_EQ(res.error, 0);
	while ((m = genl_next_msg(&res, m))) {
		const struct nlattr *f = genl_attr(m, hdrsize, SMC_GEN_FBACK_STATS);

		if (f && nest_u32(f, SMC_NLA_FBACK_STATS_TYPE) == (uint32_t)server &&
		    nest_u32(f, SMC_NLA_FBACK_STATS_RSN_CODE) == code)
			count += nest_u32(f, SMC_NLA_FBACK_STATS_RSN_CNT);
	}
	genl_result_free(&res);
	close(fd);
	return count;
}

/* ---- connections ---- */

struct outcome {
	int mode;
	uint32_t client_reason, client_peer_diag, server_reason;
};

static const struct outcome smcd = { SMC_DIAG_MODE_SMCD, 0, 0, 0 };

/*
 * A client of family cf ("smc" or "smc6") from src connects to host:port
 * of the listener lfd; both ends must have the outcome want, and bytes
 * must get through.
 */
static void conn(const char *cf, const char *src, const char *host, int lfd, unsigned int port,
		 const char *what, const struct outcome *want)
{
	const struct sf_family *f = sf_find(cf);
	struct sockaddr_storage local, peer, to;
	struct sd_sock cs, as;
	socklen_t len;
	char buf[5];
	int cfd, afd;

	cfd = ASSERT_SYS(sf_socket(f, 0));
	len = sf_addr(f, src, 0, &local);
	ASSERT(len > 0);
	ASSERT_SYS(bind(cfd, (struct sockaddr *)&local, len));
	len = sf_addr(f, host, port, &to);
	ASSERT(len > 0);
	ASSERT_SYS(connect(cfd, (struct sockaddr *)&to, len));
	len = sizeof(local);
	ASSERT_SYS(getsockname(cfd, (struct sockaddr *)&local, &len));
	len = sizeof(peer);
	afd = ASSERT_SYS(accept(lfd, (struct sockaddr *)&peer, &len));
	ASSERT_EQ(sf_port(&peer), sf_port(&local));
	ASSERT_EQ(sd_find_fd(cfd, &cs), 0);
	ASSERT_EQ(sd_find_fd(afd, &as), 0);
	tap_diag("%s: mode %u/%u, reason 0x%08x (peer 0x%08x)/0x%08x (client/server)", what,
		 cs.mode, as.mode, cs.reason, cs.peer_diagnosis, as.reason);
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

static int listener(const char *fam, const char *host, unsigned int *port)
{
	struct sockaddr_storage a;
	int fd = ASSERT_SYS(sf_listen(sf_find(fam), host, 0, 16, &a));

	*port = sf_port(&a);
	return fd;
}

/* ---- cases ---- */

/* A rule on the server's address: only the client is bound by it. */
static void client_rule(const void *arg)
{
	struct rule tcp_server = { SMC_POLICY_TCP, AF_INET, SERVER, 32, 0, 0 };
	unsigned int port, before_c, before_s;
	int lfd;

	(void)arg;
	sf_require(sf_find("smc"));
	flush();
	lfd = listener("smc", SERVER, &port);
	conn("smc", CLIENT, SERVER, lfd, port, "no rule", &smcd);
	add(&tcp_server);
	before_c = fallbacks(0, DECL_POLICY);
	before_s = fallbacks(1, DECL_PEERNOSMC);
	conn("smc", CLIENT, SERVER, lfd, port, "client's peer excluded",
	     &(const struct outcome){ SMC_DIAG_MODE_FALLBACK_TCP, DECL_POLICY, 0, DECL_PEERNOSMC });
	/* An IPv4 rule binds an AF_INET6 socket's v4-mapped peer too. */
	conn("smc6", "::ffff:" CLIENT, "::ffff:" SERVER, lfd, port, "v4-mapped peer excluded",
	     &(const struct outcome){ SMC_DIAG_MODE_FALLBACK_TCP, DECL_POLICY, 0, DECL_PEERNOSMC });
	EXPECT_EQ(fallbacks(0, DECL_POLICY) - before_c, 2);
	EXPECT_EQ(fallbacks(1, DECL_PEERNOSMC) - before_s, 2);
	/* Another server address is not excluded. */
	close(lfd);
	lfd = listener("smc", "127.0.0.4", &port);
	conn("smc", CLIENT, "127.0.0.4", lfd, port, "other server", &smcd);
	close(lfd);
	flush();
}

/* A rule on the client's address: only the server is bound, at the Proposal. */
static void server_peer_rule(const void *arg)
{
	struct rule tcp_client = { SMC_POLICY_TCP, AF_INET, "127.0.0.0", 30, 0, 0 };
	unsigned int port, before;
	int lfd;

	(void)arg;
	sf_require(sf_find("smc"));
	flush();
	add(&tcp_client);	/* 127.0.0.0/30: .1 .. .3 */
	lfd = listener("smc", "127.0.0.9", &port);
	before = fallbacks(1, DECL_POLICY);
	conn("smc", CLIENT, "127.0.0.9", lfd, port, "server's peer excluded",
	     &(const struct outcome){ SMC_DIAG_MODE_FALLBACK_TCP, DECL_PEERDECL, DECL_POLICY,
				      DECL_POLICY });
	EXPECT_EQ(fallbacks(1, DECL_POLICY) - before, 1);
	conn("smc", "127.0.0.5", "127.0.0.9", lfd, port, "client outside the prefix", &smcd);
	close(lfd);
	flush();
}

/*
 * A rule for every peer on the listener's port: decided at the SYN. A
 * client that never sends its Proposal (smc_badpeer's "silent") is ready
 * for accept() at once, TCP with reason POLICY; without the rule it waits
 * in its handshake for the CLC wait.
 */
static int bad_client(const char *mode, unsigned int port)
{
	char cmd[48];
	int fd, len, err = 0;

	len = snprintf(cmd, sizeof(cmd), "%s %u", mode, port);
	fd = ASSERT_SYS(open("/sys/module/smc_badpeer/parameters/connect", O_WRONLY));
	if (write(fd, cmd, len) != len)
		err = errno ? errno : EIO;
	close(fd);
	return err;
}

static int ready_within(int lfd, int ms)
{
	struct pollfd p = { .fd = lfd, .events = POLLIN };

	return poll(&p, 1, ms) == 1;
}

static void server_port_rule(const void *arg)
{
	struct rule tcp_port = { SMC_POLICY_TCP, 0, NULL, 0, 0, 0 };
	unsigned int port;
	struct sd_sock s;
	long t0;
	int lfd, afd;

	(void)arg;
	sf_require(sf_find("smc"));
	flush();
	/* Without a rule: the silent client's child waits for its Proposal. */
	lfd = listener("smc", "127.0.0.1", &port);
	ASSERT_EQ(bad_client("silent", port), 0);
	EXPECT(!ready_within(lfd, SILENT_MS));
	close(lfd);
	/* Another listener, whose port has the rule. */
	lfd = listener("smc", "127.0.0.1", &port);
	tcp_port.lo = tcp_port.hi = (uint16_t)port;
	add(&tcp_port);
	t0 = tap_now_ms();
	ASSERT_EQ(bad_client("silent", port), 0);
	EXPECT(ready_within(lfd, SILENT_MS));
	tap_diag("a silent client's child was ready after %ld ms", tap_now_ms() - t0);
	afd = ASSERT_SYS(accept4(lfd, NULL, NULL, SOCK_NONBLOCK));
	ASSERT_EQ(sd_find_fd(afd, &s), 0);
	EXPECT_EQ(s.mode, SMC_DIAG_MODE_FALLBACK_TCP);
	EXPECT_EQ(s.reason, DECL_POLICY);
	close(afd);
	/* Our own client is bound by the port rule too. */
	conn("smc", "127.0.0.1", "127.0.0.1", lfd, port, "own client, excluded port",
	     &(const struct outcome){ SMC_DIAG_MODE_FALLBACK_TCP, DECL_POLICY, 0, DECL_POLICY });
	close(lfd);
	flush();
}

/* "Only these": an smc rule first, a tcp rule for the rest. */
static void allow_list(const void *arg)
{
	struct rule smc_one = { SMC_POLICY_SMC, 0, NULL, 0, 0, 0 };
	struct rule tcp_all = { SMC_POLICY_TCP, 0, NULL, 0, 0, 0 };
	unsigned int p1, p2;
	int l1, l2;

	(void)arg;
	sf_require(sf_find("smc"));
	flush();
	l1 = listener("smc", "127.0.0.1", &p1);
	l2 = listener("smc", "127.0.0.1", &p2);
	smc_one.lo = smc_one.hi = (uint16_t)p1;
	add(&smc_one);
	add(&tcp_all);
	conn("smc", "127.0.0.1", "127.0.0.1", l1, p1, "listed port", &smcd);
	conn("smc", "127.0.0.1", "127.0.0.1", l2, p2, "any other port",
	     &(const struct outcome){ SMC_DIAG_MODE_FALLBACK_TCP, DECL_POLICY, 0, DECL_POLICY });
	close(l1);
	close(l2);
	flush();
}

/* An IPv6 rule leaves IPv4 peers alone, v4-mapped ones too. */
static void v6_rule(const void *arg)
{
	struct rule tcp_v6 = { SMC_POLICY_TCP, AF_INET6, "::", 0, 0, 0 };
	unsigned int p4, p6;
	int l4, l6;

	(void)arg;
	sf_require(sf_find("smc6"));
	flush();
	add(&tcp_v6);
	l4 = listener("smc6", "::", &p4);
	conn("smc6", "::ffff:127.0.0.1", "::ffff:127.0.0.1", l4, p4, "v4-mapped under ::/0", &smcd);
	conn("smc", "127.0.0.1", "127.0.0.1", l4, p4, "IPv4 under ::/0", &smcd);
	l6 = listener("smc6", "::1", &p6);
	conn("smc6", "::1", "::1", l6, p6, "IPv6 under ::/0",
	     &(const struct outcome){ SMC_DIAG_MODE_FALLBACK_TCP, DECL_POLICY, 0, DECL_POLICY });
	close(l4);
	close(l6);
	flush();
}

/* The table's own rules: validation, order, ids, limits. */
static void table(const void *arg)
{
	struct rule ok4 = { SMC_POLICY_TCP, AF_INET, "10.1.0.0", 16, 80, 80 };
	struct rule r;
	struct genl_result res;
	uint32_t ids[80];
	int i, n;

	(void)arg;
	flush();
	EXPECT_EQ(dump_ids(ids, 80), 0);
	r = ok4;
	r.addr = "10.1.0.1";
	add_refused(&r, -1, EINVAL, "past its prefix length");
	r = ok4;
	r.plen = 33;
	add_refused(&r, -1, EINVAL, "longer than the address");
	r = ok4;
	r.lo = 90;
	add_refused(&r, -1, EINVAL, "ends before it starts");
	r = ok4;
	r.family = 7;
	add_refused(&r, -1, EINVAL, "AF_INET or AF_INET6");
	r = ok4;
	r.action = 3;
	/* The attribute policy's range: the netlink core's ERANGE. */
	add_refused(&r, -1, ERANGE, "out of range");
	add_refused(&ok4, 5, EINVAL, "gives rule ids");
	/* An IPv6 address under an AF_INET family is the wrong length. */
	{
		struct genl_req q;
		unsigned char a6[16] = { 0 };
		int fd = ASSERT_SYS(genl_open());

		genl_req_init(&q, (uint16_t)gnl_family(fd, NULL), SMC_NETLINK_ADD_POLICY, 1, 0);
		genl_put_u8(&q, SMC_NLA_POLICY_ACTION, SMC_POLICY_TCP);
		genl_put_u8(&q, SMC_NLA_POLICY_FAMILY, AF_INET);
		genl_put_raw(&q, SMC_NLA_POLICY_ADDR, a6, 16);
		genl_put_u8(&q, SMC_NLA_POLICY_PREFIXLEN, 0);
		ASSERT_SYS(genl_exchange(fd, &q, &res));
		EXPECT_EQ(res.error, EINVAL);
		tap_diag("16 bytes for AF_INET: %s (%s)", tap_errno_name(res.error), res.extack);
		genl_result_free(&res);
		close(fd);
	}
	EXPECT_EQ(dump_ids(ids, 80), 0);
	add(&ok4);
	add_refused(&ok4, -1, EEXIST, "exists");
	for (i = 1; i < SMC_POLICY_MAX_RULES; i++) {
		r = ok4;
		r.lo = r.hi = (uint16_t)(1000 + i);
		add(&r);
	}
	r = ok4;
	r.lo = r.hi = 999;
	add_refused(&r, -1, ENOSPC, "full");
	n = dump_ids(ids, 80);
	EXPECT_EQ(n, SMC_POLICY_MAX_RULES);
	for (i = 1; i < n && i < 80; i++)
		EXPECT(ids[i] > ids[i - 1]);
	/* Delete the second: the rest keep their ids and order. */
	policy_cmd(SMC_NETLINK_DEL_POLICY, NULL, (int)ids[1], 0, &res);
	EXPECT_EQ(res.error, 0);
	genl_result_free(&res);
	policy_cmd(SMC_NETLINK_DEL_POLICY, NULL, (int)ids[1], 0, &res);
	EXPECT_EQ(res.error, ENOENT);
	genl_result_free(&res);
	{
		uint32_t after[80];

		EXPECT_EQ(dump_ids(after, 80), SMC_POLICY_MAX_RULES - 1);
		EXPECT_EQ(after[0], ids[0]);
		EXPECT_EQ(after[1], ids[2]);
	}
	flush();
	EXPECT_EQ(dump_ids(ids, 80), 0);
}

/* Anybody reads the table; only CAP_NET_ADMIN over the netns changes it. */
static void privilege(const void *arg)
{
	struct rule tcp_all = { SMC_POLICY_TCP, 0, NULL, 0, 0, 0 };
	struct genl_result res;
	uint32_t ids[4];

	(void)arg;
	flush();
	add(&tcp_all);
	ASSERT_SYS(setgid(65534));
	ASSERT_SYS(setuid(65534));
	EXPECT_EQ(dump_ids(ids, 4), 1);
	policy_cmd(SMC_NETLINK_ADD_POLICY, &tcp_all, -1, 0, &res);
	EXPECT_EQ(res.error, EPERM);
	genl_result_free(&res);
	policy_cmd(SMC_NETLINK_DEL_POLICY, NULL, (int)ids[0], 0, &res);
	EXPECT_EQ(res.error, EPERM);
	genl_result_free(&res);
	EXPECT_EQ(flush_err(), EPERM);
	/*
	 * In a user namespace of its own the same user owns a new netns:
	 * its table is empty, its own to change, and the first one's stays.
	 */
	if (unshare(CLONE_NEWUSER | CLONE_NEWNET)) {
		tap_fail("unshare(CLONE_NEWUSER | CLONE_NEWNET): %s", tap_errno_name(errno));
		tap_end();
	}
	EXPECT_EQ(dump_ids(ids, 4), 0);
	add(&tcp_all);
	add(&(struct rule){ SMC_POLICY_SMC, AF_INET6, "fd00::", 8, 0, 0 });
	EXPECT_EQ(dump_ids(ids, 4), 2);
}

/* The rule of the case before stays in the first netns. */
static void privilege_after(const void *arg)
{
	uint32_t ids[4];

	(void)arg;
	EXPECT_EQ(dump_ids(ids, 4), 1);
	/* Left in place on purpose: badpeer.sh's rmmod must free a table with rules. */
}

int main(void)
{
	tap_add(client_rule, NULL, 30,
		"tcp rule on the server's prefix: the client's SYN has no SMC option "
		"(client POLICY, server PEERNOSMC), AF_INET6 v4-mapped too");
	tap_add(server_peer_rule, NULL, 30,
		"tcp rule on the client's prefix: the server declines the Proposal with POLICY");
	tap_add(server_port_rule, NULL, 30,
		"tcp rule on a listener's port: its SYN-ACK has no SMC option, a silent "
		"client is accepted within %d ms with POLICY", SILENT_MS);
	tap_add(allow_list, NULL, 30, "smc rule for one port, then tcp for all: only that port gets SMC-D");
	tap_add(v6_rule, NULL, 30, "an IPv6 rule for ::/0 leaves IPv4 and v4-mapped peers alone");
	tap_add(table, NULL, 60,
		"rules are validated (EINVAL/ERANGE with extack), unique (EEXIST), at most %d (ENOSPC), "
		"dumped in order, deleted by id (ENOENT), flushed", SMC_POLICY_MAX_RULES);
	tap_add(privilege, NULL, 30,
		"an unprivileged user reads the table and gets EPERM changing it; in its own "
		"user and network namespace it has a table of its own");
	tap_add(privilege_after, NULL, 30, "a namespace's rules are not another's");
	return tap_run();
}
