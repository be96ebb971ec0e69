// SPDX-License-Identifier: GPL-2.0
/*
 * config/gnl: the SMC_GEN_NETLINK family, command by command, with values.
 *
 * Runs against our af_smc and against Debian's smc.ko (1@intree): for what
 * Linux 6.1 has, the answers must be the same; where we differ on purpose
 * (Documentation/netlink.md: permission flag, per-namespace EIDs, strict
 * attribute checks, SMC-R not there yet) each module's own answer is
 * asserted. Counters are checked in a fresh network namespace, where they
 * start at zero, so a connection must move them by exactly what it did.
 *
 *   gnl        the cases that need no SMC-D connection
 *   gnl -d     the SMC-D cases (af_smc loaded with loopback_ism=1)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/inet_diag.h>
#include <linux/smc.h>
#include <linux/smc_diag.h>
#include <linux/sock_diag.h>
#include <sys/stat.h>

#include "genl.h"
#include "smc_module.h"
#include "stream.h"
#include "tap.h"

#ifndef AF_SMC
#define AF_SMC 43
#endif

static enum smc_module mod;
static int fam;

static int fd = -1;

static int gfd(void)
{
	if (fd < 0) {
		fd = genl_open();
		if (fd < 0 || (fam = genl_family(fd, SMC_GENL_FAMILY_NAME, NULL, NULL, NULL)) < 0)
			tap_abort();
	}
	return fd;
}

/* A netlink socket belongs to the namespace it was opened in: reopen. */
static void gfd_reset(void)
{
	if (fd >= 0)
		close(fd);
	fd = -1;
}

/* Send cmd (a dump when dump), with an optional string attribute. */
static int req(struct genl_result *res, uint8_t cmd, int dump, int atype,
	       const void *data, size_t len)
{
	struct genl_req r;
	int s = gfd();

	genl_req_init(&r, fam, cmd, 1, dump ? NLM_F_DUMP : 0);
	if (atype >= 0)
		genl_put_raw(&r, atype, data, len);
	memset(res, 0, sizeof(*res));
	return genl_exchange(s, &r, res);
}

/* The errno of a command (0 = done); the extack message in msg. */
static int do_cmd(uint8_t cmd, int atype, const void *data, size_t len, char *msg)
{
	struct genl_result res;

	if (req(&res, cmd, 0, atype, data, len) < 0)
		tap_abort();
	if (msg)
		snprintf(msg, 256, "%s", res.extack);
	genl_result_free(&res);
	return res.error;
}

/* An EID as the tools send it: 32 bytes blank-padded, then NUL. */
static const char *padded(const char *eid)
{
	static char buf[SMC_MAX_EID_LEN + 1];

	memset(buf, ' ', SMC_MAX_EID_LEN);
	memcpy(buf, eid, strlen(eid));
	buf[SMC_MAX_EID_LEN] = 0;
	return buf;
}

static int eid_cmd(uint8_t cmd, const char *eid, char *msg)
{
	return do_cmd(cmd, SMC_NLA_EID_TABLE_ENTRY, padded(eid), SMC_MAX_EID_LEN + 1, msg);
}

static int cmd_msg(uint8_t cmd, int atype, const void *d, size_t l, int err, const char *what)
{
	char msg[256];
	int e = do_cmd(cmd, atype, d, l, msg);

	if (e != err)
		tap_fail("%s: %s, not %s", what, tap_errno_name(e), tap_errno_name(err));
	if (err && mod == SMC_MODULE_OURS && !msg[0])
		tap_fail("%s: no extack message", what);
	if (msg[0])
		tap_diag("%s: extack \"%s\"", what, msg);
	return e;
}

/* ---- attribute walking ---- */

static uint64_t attr_uint(const struct nlattr *a)
{
	uint64_t v = 0;
	int n = a ? a->nla_len - NLA_HDRLEN : 0;

	if (n == 1) v = *(const uint8_t *)((const char *)a + NLA_HDRLEN);
	else if (n == 2) v = *(const uint16_t *)((const char *)a + NLA_HDRLEN);
	else if (n == 4) v = *(const uint32_t *)((const char *)a + NLA_HDRLEN);
	else if (n == 8) memcpy(&v, (const char *)a + NLA_HDRLEN, 8);
	return v;
}

static int dump(struct genl_result *res, uint8_t cmd)
{
	if (req(res, cmd, 1, -1, NULL, 0) < 0)
		tap_abort();
	return res->error;
}

/* ---- the family ---- */

static void family(const void *arg)
{
	static const uint8_t admin[] = {
		SMC_NETLINK_ADD_UEID, SMC_NETLINK_REMOVE_UEID, SMC_NETLINK_FLUSH_UEID,
		SMC_NETLINK_ENABLE_SEID, SMC_NETLINK_DISABLE_SEID,
		SMC_NETLINK_ENABLE_HS_LIMITATION, SMC_NETLINK_DISABLE_HS_LIMITATION,
	};
	unsigned int version, hdrsize, flags;
	int s = gfd();
	unsigned int want_admin = mod == SMC_MODULE_OURS ? GENL_UNS_ADMIN_PERM : GENL_ADMIN_PERM;

	(void)arg;
	ASSERT_SYS(genl_family(s, SMC_GENL_FAMILY_NAME, &version, &hdrsize, NULL));
	EXPECT_EQ(version, 1);
	EXPECT_EQ(hdrsize, 0);
	for (unsigned int cmd = SMC_NETLINK_GET_SYS_INFO; cmd <= SMC_NETLINK_DISABLE_HS_LIMITATION; cmd++) {
		int is_admin = memchr(admin, cmd, sizeof(admin)) != NULL;

		if (EXPECT_SYS(genl_op_flags(s, SMC_GENL_FAMILY_NAME, cmd, &flags)))
			continue;
		if (is_admin) {
			if (!(flags & GENL_CMD_CAP_DO) || !(flags & want_admin))
				tap_fail("command %u: flags %#x", cmd, flags);
		} else if (!(flags & GENL_CMD_CAP_DUMP) || (flags & (GENL_ADMIN_PERM | GENL_UNS_ADMIN_PERM))) {
			tap_fail("command %u: flags %#x", cmd, flags);
		}
	}
	EXPECT_ERRNO(genl_op_flags(s, SMC_GENL_FAMILY_NAME, SMC_NETLINK_DISABLE_HS_LIMITATION + 1, &flags), ENOENT);
}

/* ---- SYS_INFO, devices ---- */

static int count_msgs(uint8_t cmd)
{
	struct genl_result res;
	int n;

	if (dump(&res, cmd))
		tap_fail("dump %u: %s", cmd, tap_errno_name(res.error));
	n = res.n_msgs;
	genl_result_free(&res);
	return n;
}

static void sys_info(const void *arg)
{
	struct genl_result res;
	const struct nlmsghdr *m;
	const struct nlattr *s, *a;
	struct utsname u;
	char host[SMC_MAX_HOSTNAME_LEN + 1];
	int ism_v2;

	(void)arg;
	ASSERT_EQ(dump(&res, SMC_NETLINK_GET_SYS_INFO), 0);
	ASSERT_EQ(res.n_msgs, 1);
	m = genl_next_msg(&res, NULL);
	s = genl_attr(m, 0, SMC_GEN_SYS_INFO);
	ASSERT(s != NULL);
	EXPECT_EQ(attr_uint(genl_nest(s, SMC_NLA_SYS_VER)), 2);
	/* Linux 6.1 speaks SMC v2.0; we speak v2.1 (kernel/smc_v21.h) */
	EXPECT_EQ(attr_uint(genl_nest(s, SMC_NLA_SYS_REL)), mod == SMC_MODULE_OURS);
	uname(&u);
	memset(host, ' ', SMC_MAX_HOSTNAME_LEN);
	memcpy(host, u.nodename, strnlen(u.nodename, SMC_MAX_HOSTNAME_LEN));
	host[SMC_MAX_HOSTNAME_LEN] = 0;
	a = genl_nest(s, SMC_NLA_SYS_LOCAL_HOST);
	ASSERT(a != NULL);
	if (strcmp(genl_attr_str(a), host))
		tap_fail("host \"%s\", want \"%s\"", genl_attr_str(a), host);
	/* SMC-R v2 is there in Linux, not yet in ours. */
	EXPECT_EQ(attr_uint(genl_nest(s, SMC_NLA_SYS_IS_SMCR_V2)), mod == SMC_MODULE_INTREE);
	ism_v2 = attr_uint(genl_nest(s, SMC_NLA_SYS_IS_ISM_V2));
	tap_diag("ISM v2: %d", ism_v2);
	/* SMC-Dv2 iff there is an ISM device; then the SEID is shown. */
	EXPECT_EQ(ism_v2, count_msgs(SMC_NETLINK_GET_DEV_SMCD) > 0);
	a = genl_nest(s, SMC_NLA_SYS_SEID);
	EXPECT_EQ(a != NULL, ism_v2);
	if (a)
		EXPECT_EQ(strlen(genl_attr_str(a)), SMC_MAX_EID_LEN);
	genl_result_free(&res);
}

/* The RDMA devices are those of /sys/class/infiniband; ports as rdma says. */
static void dev_smcr(const void *arg)
{
	struct genl_result res;
	const struct nlmsghdr *m = NULL;
	int n = 0;

	(void)arg;
	ASSERT_EQ(system("ip link add smcgv0 type veth peer name smcgv1 && "
			 "ip link set smcgv0 up && ip link set smcgv1 up && "
			 "rdma link add smcgnlrxe type rxe netdev smcgv0"), 0);
	ASSERT_EQ(dump(&res, SMC_NETLINK_GET_DEV_SMCR), 0);
	while ((m = genl_next_msg(&res, m))) {
		const struct nlattr *d = genl_attr(m, 0, SMC_GEN_DEV_SMCR);
		const struct nlattr *p;

		if (!d || strcmp(genl_attr_str(genl_nest(d, SMC_NLA_DEV_IB_NAME)), "smcgnlrxe"))
			continue;
		n++;
		EXPECT_EQ(attr_uint(genl_nest(d, SMC_NLA_DEV_IS_CRIT)), 0);
		p = genl_nest(d, SMC_NLA_DEV_PORT);
		ASSERT(p != NULL);
		EXPECT(genl_nest(d, SMC_NLA_DEV_PORT2) == NULL);	/* rxe: one port */
		EXPECT_EQ(attr_uint(genl_nest(p, SMC_NLA_DEV_PORT_PNET_USR)), 0);
		EXPECT_EQ(strlen(genl_attr_str(genl_nest(p, SMC_NLA_DEV_PORT_PNETID))), 0);
		EXPECT_EQ(attr_uint(genl_nest(p, SMC_NLA_DEV_PORT_VALID)), 1);
		EXPECT_EQ(attr_uint(genl_nest(p, SMC_NLA_DEV_PORT_LNK_CNT)), 0);
	}
	EXPECT_EQ(n, 1);
	genl_result_free(&res);
	/* A PNET ID set for it shows, marked as the user's. */
	ASSERT_EQ(system("smc_pnet -a SMCGNL -D smcgnlrxe -P 1 >/dev/null 2>&1 || "
			 "/smc/bin/smc_pnet -a SMCGNL -D smcgnlrxe -P 1"), 0);
	ASSERT_EQ(dump(&res, SMC_NETLINK_GET_DEV_SMCR), 0);
	n = 0;
	m = NULL;
	while ((m = genl_next_msg(&res, m))) {
		const struct nlattr *d = genl_attr(m, 0, SMC_GEN_DEV_SMCR), *p;

		if (!d || strcmp(genl_attr_str(genl_nest(d, SMC_NLA_DEV_IB_NAME)), "smcgnlrxe"))
			continue;
		n++;
		p = genl_nest(d, SMC_NLA_DEV_PORT);
		EXPECT_EQ(attr_uint(genl_nest(p, SMC_NLA_DEV_PORT_PNET_USR)), 1);
		if (strcmp(genl_attr_str(genl_nest(p, SMC_NLA_DEV_PORT_PNETID)), "SMCGNL"))
			tap_fail("pnetid \"%s\"", genl_attr_str(genl_nest(p, SMC_NLA_DEV_PORT_PNETID)));
	}
	EXPECT_EQ(n, 1);
	genl_result_free(&res);
	if (system("smc_pnet -d SMCGNL >/dev/null 2>&1 || /smc/bin/smc_pnet -d SMCGNL; "
		   "rdma link delete smcgnlrxe; ip link del smcgv0"))
		tap_fail("cleaning up the rxe device failed");
	ASSERT_EQ(dump(&res, SMC_NETLINK_GET_DEV_SMCR), 0);
	for (m = NULL; (m = genl_next_msg(&res, m));)
		if (!strcmp(genl_attr_str(genl_nest(genl_attr(m, 0, SMC_GEN_DEV_SMCR),
						   SMC_NLA_DEV_IB_NAME)), "smcgnlrxe"))
			tap_fail("a removed device is still listed");
	genl_result_free(&res);
}

static void lgr_empty(const void *arg)
{
	(void)arg;
	/* No SMC-R and no SMC-D link groups in this VM (no SMC connection). */
	EXPECT_EQ(count_msgs(SMC_NETLINK_GET_LGR_SMCR), 0);
	EXPECT_EQ(count_msgs(SMC_NETLINK_GET_LINK_SMCR), 0);
	EXPECT_EQ(count_msgs(SMC_NETLINK_GET_LGR_SMCD), 0);
}

/* ---- UEID, SEID ---- */

/* The UEIDs a dump lists, joined by ','. */
static const char *ueids(void)
{
	static char out[512];
	struct genl_result res;
	const struct nlmsghdr *m = NULL;

	out[0] = 0;
	if (dump(&res, SMC_NETLINK_DUMP_UEID))
		tap_fail("ueid dump: %s", tap_errno_name(res.error));
	while ((m = genl_next_msg(&res, m))) {
		const struct nlattr *a = genl_attr(m, 0, SMC_NLA_EID_TABLE_ENTRY);
		const char *s = genl_attr_str(a);
		size_t n = strlen(s);

		if (!a || n != SMC_MAX_EID_LEN)
			tap_fail("an entry of %zu bytes", n);
		while (n && s[n - 1] == ' ')
			n--;
		snprintf(out + strlen(out), sizeof(out) - strlen(out), "%s%.*s",
			 out[0] ? "," : "", (int)n, s);
	}
	genl_result_free(&res);
	return out;
}

#define EXPECT_STR(a, b) do {                                                  \
	const char *a_ = (a), *b_ = (b);                                       \
	if (strcmp(a_, b_))                                                    \
		tap_fail("%s:%d: %s is \"%s\", want \"%s\"", __FILE__, __LINE__, #a, a_, b_); \
} while (0)

static void ueid(const void *arg)
{
	(void)arg;
	EXPECT_EQ(do_cmd(SMC_NETLINK_FLUSH_UEID, -1, NULL, 0, NULL), 0);
	EXPECT_STR(ueids(), "");
	EXPECT_EQ(eid_cmd(SMC_NETLINK_ADD_UEID, "SELFTEST.UEID-1", NULL), 0);
	EXPECT_STR(ueids(), "SELFTEST.UEID-1");
	cmd_msg(SMC_NETLINK_ADD_UEID, SMC_NLA_EID_TABLE_ENTRY, padded("SELFTEST.UEID-1"), 33, EEXIST, "a second add");
	EXPECT_EQ(eid_cmd(SMC_NETLINK_ADD_UEID, "B2", NULL), 0);
	EXPECT_EQ(eid_cmd(SMC_NETLINK_ADD_UEID, "C-3", NULL), 0);
	EXPECT_EQ(eid_cmd(SMC_NETLINK_ADD_UEID, "0123456789ABCDEF0123456789ABCDEF", NULL), 0);
	cmd_msg(SMC_NETLINK_ADD_UEID, SMC_NLA_EID_TABLE_ENTRY, padded("E5"), 33, ERANGE, "a fifth");
	EXPECT_STR(ueids(), "SELFTEST.UEID-1,B2,C-3,0123456789ABCDEF0123456789ABCDEF");
	EXPECT_EQ(eid_cmd(SMC_NETLINK_REMOVE_UEID, "B2", NULL), 0);
	cmd_msg(SMC_NETLINK_REMOVE_UEID, SMC_NLA_EID_TABLE_ENTRY, padded("B2"), 33, ENOENT, "removing it again");
	EXPECT_STR(ueids(), "SELFTEST.UEID-1,C-3,0123456789ABCDEF0123456789ABCDEF");
	EXPECT_EQ(do_cmd(SMC_NETLINK_FLUSH_UEID, -1, NULL, 0, NULL), 0);
	EXPECT_STR(ueids(), "");
	EXPECT_EQ(do_cmd(SMC_NETLINK_FLUSH_UEID, -1, NULL, 0, NULL), 0);
}

/* Malformed EIDs: EINVAL (with our extack), and the table stays as it was. */
static void ueid_bad(const void *arg)
{
	static const char *bad[] = { "lower", " LEADING", "A_B", "A B", "", "   ", "ÄÖ" };
	char over[64];

	(void)arg;
	do_cmd(SMC_NETLINK_FLUSH_UEID, -1, NULL, 0, NULL);
	EXPECT_EQ(eid_cmd(SMC_NETLINK_ADD_UEID, "KEEP", NULL), 0);
	for (unsigned int i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		tap_diag("bad EID \"%s\"", bad[i]);
		cmd_msg(SMC_NETLINK_ADD_UEID, SMC_NLA_EID_TABLE_ENTRY, padded(bad[i]), 33, EINVAL, "add");
		/* Linux: no such EID can be in the table. */
		cmd_msg(SMC_NETLINK_REMOVE_UEID, SMC_NLA_EID_TABLE_ENTRY, padded(bad[i]), 33, ENOENT, "remove");
	}
	cmd_msg(SMC_NETLINK_ADD_UEID, -1, NULL, 0, EINVAL, "add without the attribute");
	cmd_msg(SMC_NETLINK_REMOVE_UEID, -1, NULL, 0, EINVAL, "remove without the attribute");
	memset(over, 'A', sizeof(over));
	over[40] = 0;
	/* Longer than the policy's 33 bytes: ERANGE from the netlink core. */
	cmd_msg(SMC_NETLINK_ADD_UEID, SMC_NLA_EID_TABLE_ENTRY, over, 41, ERANGE, "40 characters");
	over[33] = 0;
	cmd_msg(SMC_NETLINK_ADD_UEID, SMC_NLA_EID_TABLE_ENTRY, over, 34, ERANGE, "33 characters");
	over[32] = 0;
	cmd_msg(SMC_NETLINK_ADD_UEID, SMC_NLA_EID_TABLE_ENTRY, over, 32, EINVAL, "32 characters, no NUL");
	cmd_msg(SMC_NETLINK_ADD_UEID, SMC_NLA_EID_TABLE_ENTRY, "ABCD", 4, EINVAL, "no NUL (a u32)");
	if (mod == SMC_MODULE_OURS) {
		uint32_t v = 7;

		/* Strict checks of ours; Linux 6.1 ignores these. */
		cmd_msg(SMC_NETLINK_ADD_UEID, 7, &v, 4, EINVAL, "an unknown attribute");
		cmd_msg(SMC_NETLINK_ENABLE_HS_LIMITATION, 1, &v, 4, EINVAL, "an attribute where none is taken");
		cmd_msg(SMC_NETLINK_FLUSH_UEID, SMC_NLA_EID_TABLE_ENTRY, padded("KEEP"), 33, EINVAL, "flush with an attribute");
		/* Unpadded, as long as it is valid, is taken by ours. */
		EXPECT_EQ(do_cmd(SMC_NETLINK_ADD_UEID, SMC_NLA_EID_TABLE_ENTRY, "SHORT", 6, NULL), 0);
		EXPECT_STR(ueids(), "KEEP,SHORT");
		EXPECT_EQ(do_cmd(SMC_NETLINK_REMOVE_UEID, SMC_NLA_EID_TABLE_ENTRY, "SHORT", 6, NULL), 0);
	} else {
		/* Linux wants exactly 33 bytes. */
		cmd_msg(SMC_NETLINK_ADD_UEID, SMC_NLA_EID_TABLE_ENTRY, "SHORT", 6, EINVAL, "unpadded");
	}
	EXPECT_STR(ueids(), "KEEP");
	do_cmd(SMC_NETLINK_FLUSH_UEID, -1, NULL, 0, NULL);
}

/* SEID: (present, enabled) from a dump; present is 0 without SMC-Dv2. */
static void seid_state(int *present, int *enabled)
{
	struct genl_result res;
	const struct nlmsghdr *m;

	ASSERT_EQ(dump(&res, SMC_NETLINK_DUMP_SEID), 0);
	ASSERT_EQ(res.n_msgs, 1);
	m = genl_next_msg(&res, NULL);
	*present = genl_attr(m, 0, SMC_NLA_SEID_ENTRY) != NULL;
	*enabled = attr_uint(genl_attr(m, 0, SMC_NLA_SEID_ENABLED));
	genl_result_free(&res);
}

static void seid(const void *arg)
{
	int present, enabled, v2 = count_msgs(SMC_NETLINK_GET_DEV_SMCD) > 0;

	(void)arg;
	do_cmd(SMC_NETLINK_FLUSH_UEID, -1, NULL, 0, NULL);
	seid_state(&present, &enabled);
	EXPECT_EQ(present, v2);
	if (!v2) {
		EXPECT_EQ(enabled, 0);
		cmd_msg(SMC_NETLINK_ENABLE_SEID, -1, NULL, 0, EOPNOTSUPP, "enable without ISM");
		cmd_msg(SMC_NETLINK_DISABLE_SEID, -1, NULL, 0, EOPNOTSUPP, "disable without ISM");
		return;
	}
	EXPECT_EQ(enabled, 1);
	cmd_msg(SMC_NETLINK_DISABLE_SEID, -1, NULL, 0, ENOENT, "disable without a UEID");
	EXPECT_EQ(eid_cmd(SMC_NETLINK_ADD_UEID, "SEIDTEST", NULL), 0);
	EXPECT_EQ(do_cmd(SMC_NETLINK_DISABLE_SEID, -1, NULL, 0, NULL), 0);
	seid_state(&present, &enabled);
	EXPECT_EQ(enabled, 0);
	/* The last UEID goes: the SEID comes back, said with EAGAIN. */
	EXPECT_EQ(eid_cmd(SMC_NETLINK_REMOVE_UEID, "SEIDTEST", NULL), EAGAIN);
	seid_state(&present, &enabled);
	EXPECT_EQ(enabled, 1);
	EXPECT_EQ(eid_cmd(SMC_NETLINK_ADD_UEID, "SEIDTEST", NULL), 0);
	EXPECT_EQ(do_cmd(SMC_NETLINK_DISABLE_SEID, -1, NULL, 0, NULL), 0);
	EXPECT_EQ(do_cmd(SMC_NETLINK_ENABLE_SEID, -1, NULL, 0, NULL), 0);
	seid_state(&present, &enabled);
	EXPECT_EQ(enabled, 1);
	do_cmd(SMC_NETLINK_FLUSH_UEID, -1, NULL, 0, NULL);
}

/* ---- HS_LIMITATION ---- */

static int hs_limit(void)
{
	struct genl_result res;
	int v;

	ASSERT_EQ(dump(&res, SMC_NETLINK_DUMP_HS_LIMITATION), 0);
	ASSERT_EQ(res.n_msgs, 1);
	v = attr_uint(genl_attr(genl_next_msg(&res, NULL), 0, SMC_NLA_HS_LIMITATION_ENABLED));
	genl_result_free(&res);
	return v;
}

/* net.smc.limit_smc_hs, or -1 where the kernel has no such sysctl (6.1). */
static int hs_sysctl(void)
{
	FILE *f = fopen("/proc/sys/net/smc/limit_smc_hs", "r");
	int v = -1;

	if (f) {
		if (fscanf(f, "%d", &v) != 1)
			v = -2;
		fclose(f);
	}
	return v;
}

static void hs_limitation(const void *arg)
{
	(void)arg;
	EXPECT_EQ(hs_limit(), 0);
	EXPECT_EQ(do_cmd(SMC_NETLINK_ENABLE_HS_LIMITATION, -1, NULL, 0, NULL), 0);
	EXPECT_EQ(hs_limit(), 1);
	if (mod == SMC_MODULE_OURS)
		EXPECT_EQ(hs_sysctl(), 1);
	EXPECT_EQ(do_cmd(SMC_NETLINK_DISABLE_HS_LIMITATION, -1, NULL, 0, NULL), 0);
	EXPECT_EQ(hs_limit(), 0);
	if (mod == SMC_MODULE_OURS) {
		EXPECT_EQ(hs_sysctl(), 0);
		/* And the other way: the sysctl is what the dump shows. */
		ASSERT_EQ(system("echo 1 > /proc/sys/net/smc/limit_smc_hs"), 0);
		EXPECT_EQ(hs_limit(), 1);
		ASSERT_EQ(system("echo 0 > /proc/sys/net/smc/limit_smc_hs"), 0);
	}
}

/* ---- statistics ---- */

struct stats {
	uint64_t t[2][SMC_NLA_STATS_T_MAX + 1];		/* [D=0/R=1][attr] scalars */
	uint64_t buf[2][SMC_NLA_STATS_T_MAX + 1][SMC_NLA_STATS_PLOAD_MAX + 1];	/* nests */
	uint64_t clnt_hs_err, srv_hs_err;
	/* fallback: totals and per (server, code) counts */
	uint64_t fb_srv, fb_clnt;
	unsigned int n_rsn;
	struct { int server; uint32_t code; uint16_t cnt; } rsn[64];
};

static void get_stats(struct stats *st)
{
	struct genl_result res;
	const struct nlmsghdr *m = NULL;
	const struct nlattr *s;

	memset(st, 0, sizeof(*st));
	ASSERT_EQ(dump(&res, SMC_NETLINK_GET_STATS), 0);
	ASSERT_EQ(res.n_msgs, 1);
	s = genl_attr(genl_next_msg(&res, NULL), 0, SMC_GEN_STATS);
	ASSERT(s != NULL);
	for (int tech = 0; tech < 2; tech++) {
		const struct nlattr *t = genl_nest(s, tech ? SMC_NLA_STATS_SMCR_TECH : SMC_NLA_STATS_SMCD_TECH);

		ASSERT(t != NULL);
		for (int a = SMC_NLA_STATS_T_CLNT_V1_SUCC; a <= SMC_NLA_STATS_T_TX_CNT; a++) {
			ASSERT(genl_nest(t, a) != NULL);
			st->t[tech][a] = attr_uint(genl_nest(t, a));
		}
		for (int a = SMC_NLA_STATS_T_TX_RMB_SIZE; a <= SMC_NLA_STATS_T_RX_RMB_STATS; a++) {
			const struct nlattr *n = genl_nest(t, a);
			int max = a >= SMC_NLA_STATS_T_TX_RMB_STATS ? SMC_NLA_STATS_RMB_MAX : SMC_NLA_STATS_PLOAD_MAX;

			ASSERT(n != NULL);
			for (int b = 1; b <= max; b++) {
				ASSERT(genl_nest(n, b) != NULL);
				st->buf[tech][a][b] = attr_uint(genl_nest(n, b));
			}
		}
	}
	st->clnt_hs_err = attr_uint(genl_nest(s, SMC_NLA_STATS_CLNT_HS_ERR_CNT));
	st->srv_hs_err = attr_uint(genl_nest(s, SMC_NLA_STATS_SRV_HS_ERR_CNT));
	genl_result_free(&res);

	ASSERT_EQ(dump(&res, SMC_NETLINK_GET_FBACK_STATS), 0);
	while ((m = genl_next_msg(&res, m)) && st->n_rsn < 64) {
		const struct nlattr *f = genl_attr(m, 0, SMC_GEN_FBACK_STATS);

		ASSERT(f != NULL);
		/* The totals come with the first message only. */
		if (genl_nest(f, SMC_NLA_FBACK_STATS_SRV_CNT) || genl_nest(f, SMC_NLA_FBACK_STATS_CLNT_CNT)) {
			if (st->n_rsn)
				tap_fail("fallback totals in message %u", st->n_rsn + 1);
			st->fb_srv = attr_uint(genl_nest(f, SMC_NLA_FBACK_STATS_SRV_CNT));
			st->fb_clnt = attr_uint(genl_nest(f, SMC_NLA_FBACK_STATS_CLNT_CNT));
		} else if (!st->n_rsn) {
			tap_fail("no fallback totals in the first message");
		}
		st->rsn[st->n_rsn].server = attr_uint(genl_nest(f, SMC_NLA_FBACK_STATS_TYPE));
		st->rsn[st->n_rsn].code = attr_uint(genl_nest(f, SMC_NLA_FBACK_STATS_RSN_CODE));
		st->rsn[st->n_rsn].cnt = attr_uint(genl_nest(f, SMC_NLA_FBACK_STATS_RSN_CNT));
		tap_diag("fallback %s 0x%08x x%u", st->rsn[st->n_rsn].server ? "server" : "client",
			 st->rsn[st->n_rsn].code, st->rsn[st->n_rsn].cnt);
		st->n_rsn++;
	}
	genl_result_free(&res);
}

static int stats_all_zero(const struct stats *st)
{
	static const struct stats zero;

	return !memcmp(st, &zero, sizeof(zero));
}

/* A fresh network namespace with lo up: its counters start at zero. */
static void fresh_netns(void)
{
	ASSERT_SYS(unshare(CLONE_NEWNET));
	ASSERT_SYS(sf_lo_up());
	/* A netlink socket is of the namespace it was opened in. */
	gfd_reset();
}

/* A connected AF_SMC pair over 127.0.0.1: *c client, *s accepted. */
static void smc_pair(int *c, int *s)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t al = sizeof(a);
	int l = ASSERT_SYS(socket(AF_SMC, SOCK_STREAM, 0));

	ASSERT_SYS(bind(l, (void *)&a, sizeof(a)));
	ASSERT_SYS(listen(l, 1));
	ASSERT_SYS(getsockname(l, (void *)&a, &al));
	*c = ASSERT_SYS(socket(AF_SMC, SOCK_STREAM, 0));
	ASSERT_SYS(connect(*c, (void *)&a, sizeof(a)));
	*s = ASSERT_SYS(accept(l, NULL, NULL));
	close(l);
}

static int fb_count(const struct stats *st, int server)
{
	int n = 0;

	for (unsigned int i = 0; i < st->n_rsn; i++)
		if (st->rsn[i].server == server)
			n += st->rsn[i].cnt;
	return n;
}

/* Without an ISM device both ends fall back: one reason each, counted once. */
static void stats_fallback(const void *arg)
{
	struct stats st;
	char b[100] = "x";
	int c, s;

	(void)arg;
	if (count_msgs(SMC_NETLINK_GET_DEV_SMCD) > 0)
		tap_skip("an ISM device is there: connections here would be SMC-D");
	fresh_netns();
	get_stats(&st);
	EXPECT(stats_all_zero(&st));
	smc_pair(&c, &s);
	/* Fallback data is TCP's: it must not count as SMC traffic. */
	EXPECT_EQ(write(c, b, 1), 1);
	EXPECT_EQ(read(s, b, sizeof(b)), 1);
	get_stats(&st);
	EXPECT_EQ(st.fb_clnt, 1);
	EXPECT_EQ(st.fb_srv, 1);
	EXPECT_EQ(fb_count(&st, 0), 1);
	EXPECT_EQ(fb_count(&st, 1), 1);
	EXPECT_EQ(st.t[0][SMC_NLA_STATS_T_TX_CNT] + st.t[0][SMC_NLA_STATS_T_RX_CNT], 0);
	EXPECT_EQ(st.t[0][SMC_NLA_STATS_T_CLNT_V2_SUCC] + st.t[0][SMC_NLA_STATS_T_SRV_V2_SUCC], 0);
	EXPECT_EQ(st.clnt_hs_err + st.srv_hs_err, 0);
	close(c);
	close(s);
	/* Two more: the same reasons, counted 3 times each, still one entry each. */
	for (int i = 0; i < 2; i++) {
		smc_pair(&c, &s);
		close(c);
		close(s);
	}
	get_stats(&st);
	EXPECT_EQ(st.fb_clnt, 3);
	EXPECT_EQ(st.fb_srv, 3);
	EXPECT_EQ(st.n_rsn, 2);
	EXPECT_EQ(fb_count(&st, 0), 3);
	EXPECT_EQ(fb_count(&st, 1), 3);
}

/* ---- per-namespace state ---- */

static void netns_isolation(const void *arg)
{
	struct stats st;
	pid_t pid;
	int status;

	(void)arg;
	do_cmd(SMC_NETLINK_FLUSH_UEID, -1, NULL, 0, NULL);
	EXPECT_EQ(eid_cmd(SMC_NETLINK_ADD_UEID, "INITNS", NULL), 0);
	EXPECT_EQ(do_cmd(SMC_NETLINK_ENABLE_HS_LIMITATION, -1, NULL, 0, NULL), 0);
	pid = fork();
	if (pid == 0) {
		fresh_netns();
		if (mod == SMC_MODULE_OURS) {
			/* Ours: UEIDs are per namespace; Linux has one table. */
			EXPECT_STR(ueids(), "");
			EXPECT_EQ(eid_cmd(SMC_NETLINK_ADD_UEID, "CHILDNS", NULL), 0);
			EXPECT_STR(ueids(), "CHILDNS");
			EXPECT_EQ(hs_sysctl(), 0);
		} else {
			EXPECT_STR(ueids(), "INITNS");
		}
		/* The handshake limitation is per namespace in both. */
		EXPECT_EQ(hs_limit(), 0);
		get_stats(&st);
		EXPECT(stats_all_zero(&st));
		exit(tap_failed() ? 1 : 0);
	}
	ASSERT_SYS(waitpid(pid, &status, 0));
	EXPECT_EQ(status, 0);
	EXPECT_STR(ueids(), "INITNS");
	EXPECT_EQ(hs_limit(), 1);
	do_cmd(SMC_NETLINK_DISABLE_HS_LIMITATION, -1, NULL, 0, NULL);
	do_cmd(SMC_NETLINK_FLUSH_UEID, -1, NULL, 0, NULL);
}

/* ---- privilege ---- */

static void unprivileged(const void *arg)
{
	pid_t pid;
	int status;

	(void)arg;
	do_cmd(SMC_NETLINK_FLUSH_UEID, -1, NULL, 0, NULL);
	EXPECT_EQ(eid_cmd(SMC_NETLINK_ADD_UEID, "ROOTS", NULL), 0);
	pid = fork();
	if (pid == 0) {
		gfd_reset();
		if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
			exit(2);
		/* Anyone reads. */
		EXPECT_STR(ueids(), "ROOTS");
		EXPECT_EQ(hs_limit(), 0);
		EXPECT_EQ(count_msgs(SMC_NETLINK_GET_SYS_INFO), 1);
		/* Nobody changes. */
		EXPECT_EQ(eid_cmd(SMC_NETLINK_ADD_UEID, "NOBODY", NULL), EPERM);
		EXPECT_EQ(eid_cmd(SMC_NETLINK_REMOVE_UEID, "ROOTS", NULL), EPERM);
		EXPECT_EQ(do_cmd(SMC_NETLINK_FLUSH_UEID, -1, NULL, 0, NULL), EPERM);
		EXPECT_EQ(do_cmd(SMC_NETLINK_ENABLE_SEID, -1, NULL, 0, NULL), EPERM);
		EXPECT_EQ(do_cmd(SMC_NETLINK_DISABLE_SEID, -1, NULL, 0, NULL), EPERM);
		EXPECT_EQ(do_cmd(SMC_NETLINK_ENABLE_HS_LIMITATION, -1, NULL, 0, NULL), EPERM);
		EXPECT_EQ(do_cmd(SMC_NETLINK_DISABLE_HS_LIMITATION, -1, NULL, 0, NULL), EPERM);
		/* Malformed too: the permission comes first. */
		EXPECT_EQ(do_cmd(SMC_NETLINK_ADD_UEID, SMC_NLA_EID_TABLE_ENTRY, "x", 1, NULL), EPERM);
		exit(tap_failed() ? 1 : 0);
	}
	ASSERT_SYS(waitpid(pid, &status, 0));
	EXPECT_EQ(status, 0);
	EXPECT_STR(ueids(), "ROOTS");
	EXPECT_EQ(hs_limit(), 0);
	do_cmd(SMC_NETLINK_FLUSH_UEID, -1, NULL, 0, NULL);
}

/*
 * The root of a user namespace, in a network namespace it owns: ours lets
 * it configure that namespace (GENL_UNS_ADMIN_PERM); Linux 6.1 wants
 * CAP_NET_ADMIN in the initial user namespace.
 */
static void userns(const void *arg)
{
	pid_t pid;
	int status;

	(void)arg;
	do_cmd(SMC_NETLINK_FLUSH_UEID, -1, NULL, 0, NULL);
	pid = fork();
	if (pid == 0) {
		if (unshare(CLONE_NEWUSER | CLONE_NEWNET))
			exit(2);
		gfd_reset();
		if (mod == SMC_MODULE_OURS) {
			EXPECT_EQ(eid_cmd(SMC_NETLINK_ADD_UEID, "USERNS", NULL), 0);
			EXPECT_STR(ueids(), "USERNS");
			EXPECT_EQ(do_cmd(SMC_NETLINK_ENABLE_HS_LIMITATION, -1, NULL, 0, NULL), 0);
			EXPECT_EQ(hs_limit(), 1);
		} else {
			EXPECT_EQ(eid_cmd(SMC_NETLINK_ADD_UEID, "USERNS", NULL), EPERM);
			EXPECT_EQ(do_cmd(SMC_NETLINK_ENABLE_HS_LIMITATION, -1, NULL, 0, NULL), EPERM);
			EXPECT_STR(ueids(), "");
		}
		exit(tap_failed() ? 1 : 0);
	}
	ASSERT_SYS(waitpid(pid, &status, 0));
	EXPECT_EQ(status, 0);
	EXPECT_STR(ueids(), "");
	EXPECT_EQ(hs_limit(), 0);
}

/* ---- SMC-D (gnl -d) ---- */

static void smcd_stats(const void *arg)
{
	static char buf[10000];
	struct stats st;
	int c, s, n;
	size_t got = 0;

	(void)arg;
	fresh_netns();
	smc_pair(&c, &s);
	/* 5 writes of 10000 bytes: bucket "16K" ((10000 - 1) >> 13 is 1). */
	for (int i = 0; i < 5; i++)
		ASSERT_EQ(write(c, buf, sizeof(buf)), (ssize_t)sizeof(buf));
	while (got < 5 * sizeof(buf)) {
		n = ASSERT_SYS(read(s, buf, sizeof(buf)));
		ASSERT(n > 0);
		got += n;
	}
	get_stats(&st);
	EXPECT_EQ(st.t[0][SMC_NLA_STATS_T_CLNT_V2_SUCC], 1);
	EXPECT_EQ(st.t[0][SMC_NLA_STATS_T_SRV_V2_SUCC], 1);
	EXPECT_EQ(st.t[0][SMC_NLA_STATS_T_TX_CNT], 5);
	EXPECT_EQ(st.t[0][SMC_NLA_STATS_T_TX_BYTES], 50000);
	EXPECT_EQ(st.buf[0][SMC_NLA_STATS_T_TXPLOAD_SIZE][SMC_NLA_STATS_PLOAD_16K], 5);
	EXPECT_EQ(st.t[0][SMC_NLA_STATS_T_RX_BYTES], 50000);
	EXPECT(st.t[0][SMC_NLA_STATS_T_RX_CNT] >= 5);
	EXPECT_EQ(st.buf[0][SMC_NLA_STATS_T_RXPLOAD_SIZE][SMC_NLA_STATS_PLOAD_16K],
		  st.t[0][SMC_NLA_STATS_T_RX_CNT]);
	/* Each end made its DMB and attached the other's. */
	EXPECT_EQ(st.buf[0][SMC_NLA_STATS_T_RX_RMB_STATS][SMC_NLA_STATS_RMB_ALLOC_CNT], 2);
	EXPECT_EQ(st.buf[0][SMC_NLA_STATS_T_TX_RMB_STATS][SMC_NLA_STATS_RMB_ALLOC_CNT], 2);
	EXPECT_EQ(st.fb_clnt + st.fb_srv + st.n_rsn, 0);
	/* Nothing counts as SMC-R. */
	EXPECT_EQ(st.t[1][SMC_NLA_STATS_T_TX_CNT] + st.t[1][SMC_NLA_STATS_T_CLNT_V2_SUCC], 0);
	close(c);
	close(s);
}

/* The SMC-D buffer event st counts: SMC_NLA_STATS_RMB_* b of tx or rx. */
static uint64_t smcd_bufev(const struct stats *st, int tx, int b)
{
	return st->buf[0][tx ? SMC_NLA_STATS_T_TX_RMB_STATS : SMC_NLA_STATS_T_RX_RMB_STATS][b];
}

/*
 * The events on a connection: TCP_CORK ended and TCP_NODELAY set while it
 * is up (not before it, nor the other way round); a writer that nobody
 * reads fills the peer's ring (the reader's "full" once) and then its own
 * send buffer ("full", the writer's "peer full"); writes and reads of
 * 2 MiB, past every ring (at most 1 MiB, grown), are each "too small".
 */
static void smcd_stats_events(const void *arg)
{
	static char buf[2 << 20];
	int c, s, u, one = 1, zero = 0;
	uint64_t sent = 0, got = 0;
	unsigned int writes = 0, reads = 0;
	struct stats st;
	ssize_t n;

	(void)arg;
	fresh_netns();
	u = ASSERT_SYS(socket(AF_SMC, SOCK_STREAM, 0));
	ASSERT_SYS(setsockopt(u, SOL_TCP, TCP_NODELAY, &one, sizeof(one)));
	ASSERT_SYS(setsockopt(u, SOL_TCP, TCP_CORK, &zero, sizeof(zero)));
	close(u);
	smc_pair(&c, &s);
	ASSERT_SYS(setsockopt(c, SOL_TCP, TCP_NODELAY, &one, sizeof(one)));
	ASSERT_SYS(setsockopt(c, SOL_TCP, TCP_NODELAY, &zero, sizeof(zero)));
	ASSERT_SYS(setsockopt(c, SOL_TCP, TCP_CORK, &one, sizeof(one)));
	ASSERT_SYS(setsockopt(c, SOL_TCP, TCP_CORK, &zero, sizeof(zero)));
	get_stats(&st);
	EXPECT_EQ(st.t[0][SMC_NLA_STATS_T_NDLY_CNT], 1);
	EXPECT_EQ(st.t[0][SMC_NLA_STATS_T_CORK_CNT], 1);

	while ((n = send(c, buf, sizeof(buf), MSG_DONTWAIT)) > 0) {
		sent += n;
		writes++;
	}
	EXPECT_EQ(n, -1);
	EXPECT_EQ(errno, EAGAIN);
	writes++;
	for (int i = 0; i < 100; i++) {
		get_stats(&st);
		if (smcd_bufev(&st, 0, SMC_NLA_STATS_RMB_FULL_CNT))
			break;
		usleep(50000);
	}
	tap_diag("%llu bytes in %u writes; the writer's buffer full %llu, the peer's %llu",
		 (unsigned long long)sent, writes,
		 (unsigned long long)smcd_bufev(&st, 1, SMC_NLA_STATS_RMB_FULL_CNT),
		 (unsigned long long)smcd_bufev(&st, 1, SMC_NLA_STATS_RMB_FULL_PEER_CNT));
	EXPECT_EQ(smcd_bufev(&st, 0, SMC_NLA_STATS_RMB_FULL_CNT), 1);
	EXPECT(smcd_bufev(&st, 1, SMC_NLA_STATS_RMB_FULL_CNT) >= 1);
	EXPECT(smcd_bufev(&st, 1, SMC_NLA_STATS_RMB_FULL_PEER_CNT) >= 1);
	EXPECT_EQ(smcd_bufev(&st, 1, SMC_NLA_STATS_RMB_SIZE_SM_CNT), writes);
	EXPECT_EQ(smcd_bufev(&st, 1, SMC_NLA_STATS_RMB_SIZE_SM_PEER_CNT), writes);

	while (got < sent) {
		n = ASSERT_SYS(recv(s, buf, sizeof(buf), 0));
		ASSERT(n > 0);
		got += n;
		reads++;
	}
	get_stats(&st);
	EXPECT_EQ(smcd_bufev(&st, 0, SMC_NLA_STATS_RMB_SIZE_SM_CNT), reads);
	EXPECT_EQ(smcd_bufev(&st, 0, SMC_NLA_STATS_RMB_SIZE_SM_PEER_CNT), 0);
	/* Nothing counts as SMC-R. */
	EXPECT_EQ(st.t[1][SMC_NLA_STATS_T_CORK_CNT] + st.t[1][SMC_NLA_STATS_T_NDLY_CNT], 0);
	close(c);
	close(s);
}

static unsigned int smcd_use_count(void)
{
	struct genl_result res;
	unsigned int n = 0;
	const struct nlmsghdr *m = NULL;

	ASSERT_EQ(dump(&res, SMC_NETLINK_GET_DEV_SMCD), 0);
	ASSERT_EQ(res.n_msgs, 1);
	while ((m = genl_next_msg(&res, m))) {
		const struct nlattr *d = genl_attr(m, 0, SMC_GEN_DEV_SMCD);

		n += attr_uint(genl_nest(d, SMC_NLA_DEV_USE_CNT));
		EXPECT_EQ(attr_uint(genl_nest(d, SMC_NLA_DEV_PCI_CHID)), 0xffff);
		EXPECT_EQ(attr_uint(genl_nest(d, SMC_NLA_DEV_IS_CRIT)),
			  attr_uint(genl_nest(d, SMC_NLA_DEV_USE_CNT)) > 0);
	}
	genl_result_free(&res);
	return n;
}

static void smcd_device(const void *arg)
{
	unsigned int before;
	int c, s;

	(void)arg;
	before = smcd_use_count();
	smc_pair(&c, &s);
	EXPECT_EQ(smcd_use_count(), before + 2);
	close(c);
	close(s);
	for (int i = 0; i < 50 && smcd_use_count() != before; i++)
		usleep(100000);
	EXPECT_EQ(smcd_use_count(), before);
}

/* With the SEID disabled, only a shared UEID can make a connection SMC-D. */
static void smcd_ueid(const void *arg)
{
	struct stats st;
	int c, s;

	(void)arg;
	fresh_netns();
	EXPECT_EQ(eid_cmd(SMC_NETLINK_ADD_UEID, "SHARED.UEID", NULL), 0);
	EXPECT_EQ(do_cmd(SMC_NETLINK_DISABLE_SEID, -1, NULL, 0, NULL), 0);
	smc_pair(&c, &s);
	close(c);
	close(s);
	get_stats(&st);
	EXPECT_EQ(st.t[0][SMC_NLA_STATS_T_CLNT_V2_SUCC], 1);
	EXPECT_EQ(st.t[0][SMC_NLA_STATS_T_SRV_V2_SUCC], 1);
	EXPECT_EQ(st.n_rsn, 0);
}

/* ---- sock_diag CONNINFO of SMC-D connections ---- */

struct conn_diag {
	int found;
	uint8_t mode;
	struct smc_diag_conninfo ci;
	struct smcd_diag_dmbinfo dmb;
	int has_ci, has_dmb, has_lgr;
};

/* The sock_diag record of the AF_SMC socket fd, with CONNINFO and DMBINFO. */
static void diag_of(int sfd, struct conn_diag *d)
{
	struct {
		struct nlmsghdr nlh;
		struct smc_diag_req req;
	} q = {
		.nlh = { .nlmsg_len = sizeof(q), .nlmsg_type = SOCK_DIAG_BY_FAMILY,
			 .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP },
		.req = { .diag_family = AF_SMC,
			 .diag_ext = 1 << (SMC_DIAG_CONNINFO - 1) | 1 << (SMC_DIAG_LGRINFO - 1) |
				     1 << (SMC_DIAG_DMBINFO - 1) },
	};
	static char buf[65536];
	struct stat st;
	int nl, done = 0;

	memset(d, 0, sizeof(*d));
	ASSERT_SYS(fstat(sfd, &st));
	nl = ASSERT_SYS(socket(AF_NETLINK, SOCK_RAW, NETLINK_SOCK_DIAG));
	ASSERT_SYS(send(nl, &q, sizeof(q), 0));
	while (!done) {
		int n = ASSERT_SYS(recv(nl, buf, sizeof(buf), 0));
		struct nlmsghdr *h;

		for (h = (void *)buf; NLMSG_OK(h, (unsigned int)n); h = NLMSG_NEXT(h, n)) {
			struct smc_diag_msg *m = NLMSG_DATA(h);
			struct nlattr *a;
			int rem;

			if (h->nlmsg_type == NLMSG_DONE || h->nlmsg_type == NLMSG_ERROR) {
				done = 1;
				break;
			}
			if (m->diag_inode != st.st_ino)
				continue;
			d->found = 1;
			d->mode = m->diag_mode;
			a = (void *)((char *)m + NLMSG_ALIGN(sizeof(*m)));
			rem = h->nlmsg_len - NLMSG_LENGTH(NLMSG_ALIGN(sizeof(*m)));
			for (; rem >= (int)NLA_HDRLEN && a->nla_len >= NLA_HDRLEN && a->nla_len <= rem;
			     rem -= NLA_ALIGN(a->nla_len), a = (void *)((char *)a + NLA_ALIGN(a->nla_len))) {
				void *p = (char *)a + NLA_HDRLEN;
				size_t l = a->nla_len - NLA_HDRLEN;

				if (a->nla_type == SMC_DIAG_CONNINFO) {
					d->has_ci = 1;
					memcpy(&d->ci, p, l < sizeof(d->ci) ? l : sizeof(d->ci));
				} else if (a->nla_type == SMC_DIAG_DMBINFO) {
					d->has_dmb = 1;
					memcpy(&d->dmb, p, l < sizeof(d->dmb) ? l : sizeof(d->dmb));
				} else if (a->nla_type == SMC_DIAG_LGRINFO) {
					d->has_lgr = 1;
				}
			}
		}
	}
	close(nl);
}

/* The send buffer net.smc.wmem asks for: the smallest 16 KiB << n, n <= 6, holding it. */
static uint32_t sndbuf_for_wmem(void)
{
	FILE *f = fopen("/proc/sys/net/smc/wmem", "r");
	uint32_t size = 16384;
	long want = 0;

	if (f) {
		if (fscanf(f, "%ld", &want) != 1)
			want = 0;
		fclose(f);
	}
	while (size < want && size < (16384u << 6))
		size <<= 1;
	return size;
}

static void expect_cursor(const char *what, const struct smc_diag_cursor *c, uint64_t bytes,
			  uint32_t size)
{
	if (!size || c->wrap != bytes / size || c->count != bytes % size)
		tap_fail("%s: wrap %u count %u, want %llu bytes in a ring of %u", what, c->wrap,
			 c->count, (unsigned long long)bytes, size);
}

/*
 * Both ends of one connection, checked against each other and against
 * what the test moved: 40000 bytes sent, 30000 of them read.
 */
static void smcd_conninfo(const void *arg)
{
	static char buf[40000];
	struct conn_diag cd, sd;
	size_t got = 0;
	int c, s;

	(void)arg;
	smc_pair(&c, &s);
	diag_of(c, &cd);
	ASSERT(cd.found && cd.has_ci && cd.has_dmb);
	EXPECT_EQ(cd.mode, SMC_DIAG_MODE_SMCD);
	/* The ring must hold what we send without waiting for the reader. */
	ASSERT(cd.ci.peer_rmbe_size >= sizeof(buf));
	ASSERT_EQ(write(c, buf, sizeof(buf)), (ssize_t)sizeof(buf));
	while (got < 30000) {
		ssize_t n = read(s, buf, 30000 - got);

		ASSERT(n > 0);
		got += n;
	}
	diag_of(c, &cd);
	diag_of(s, &sd);
	ASSERT(sd.found && sd.has_ci && sd.has_dmb);
	EXPECT_EQ(cd.has_lgr + sd.has_lgr, 0);		/* SMC-R only */
	/* Each end's buffers are the other's view of them. */
	EXPECT_EQ(cd.ci.peer_rmbe_size, sd.ci.rmbe_size);
	EXPECT_EQ(sd.ci.peer_rmbe_size, cd.ci.rmbe_size);
	/* The send buffer is sized by net.smc.wmem (no SO_SNDBUF here). */
	EXPECT_EQ(cd.ci.sndbuf_size, sndbuf_for_wmem());
	/*
	 * CONNINFO's token is a connection id anyone may see: never a part
	 * of the DMB token, which only CAP_NET_ADMIN may (security.md). A
	 * random 64-bit token has a given low half once in 2^32.
	 */
	EXPECT(cd.ci.token && sd.ci.token);
	EXPECT(cd.ci.token != sd.ci.token);
	EXPECT(cd.dmb.token && cd.dmb.peer_token);
	EXPECT((uint64_t)cd.ci.token != (uint32_t)cd.dmb.token);
	EXPECT((uint64_t)sd.ci.token != (uint32_t)cd.dmb.peer_token);
	/* Cursors: 40000 written by the client, 30000 consumed by the server. */
	expect_cursor("client tx_prod", &cd.ci.tx_prod, 40000, cd.ci.peer_rmbe_size);
	expect_cursor("client tx_cons", &cd.ci.tx_cons, 30000, cd.ci.peer_rmbe_size);
	/* The send buffer's cursors: all of it went into the peer's ring. */
	expect_cursor("client tx_prep", &cd.ci.tx_prep, 40000, cd.ci.sndbuf_size);
	expect_cursor("client tx_sent", &cd.ci.tx_sent, 40000, cd.ci.sndbuf_size);
	expect_cursor("client tx_fin", &cd.ci.tx_fin, 40000, cd.ci.sndbuf_size);
	expect_cursor("server rx_prod", &sd.ci.rx_prod, 40000, sd.ci.rmbe_size);
	expect_cursor("server rx_cons", &sd.ci.rx_cons, 30000, sd.ci.rmbe_size);
	expect_cursor("server tx_prod", &sd.ci.tx_prod, 0, sd.ci.peer_rmbe_size);
	expect_cursor("client rx_prod", &cd.ci.rx_prod, 0, cd.ci.rmbe_size);
	EXPECT_EQ(cd.ci.tx_conn_state_flags | sd.ci.rx_conn_state_flags, 0);
	/* The client stops writing: its flag, and the server's view of it. */
	ASSERT_SYS(shutdown(c, SHUT_WR));
	diag_of(c, &cd);
	diag_of(s, &sd);
	EXPECT_EQ(cd.ci.tx_conn_state_flags, 0x80);
	EXPECT_EQ(sd.ci.rx_conn_state_flags, 0x80);
	close(c);
	close(s);
}

/*
 * LGR_SMCD while one SMC-D connection is open: its two ends sit in a
 * client and a server group on the loopback device, whose GIDs are what
 * sock_diag says, with the SEID negotiated and our host name as the peer's.
 */
static void smcd_lgr(const void *arg)
{
	struct genl_result res;
	const struct nlmsghdr *m = NULL;
	struct conn_diag cd;
	struct utsname u;
	char seid[64] = "";
	int c, s, groups = 0, conns = 0;

	(void)arg;
	ASSERT_EQ(dump(&res, SMC_NETLINK_GET_SYS_INFO), 0);
	snprintf(seid, sizeof(seid), "%s", genl_attr_str(genl_nest(genl_attr(genl_next_msg(&res, NULL), 0,
				SMC_GEN_SYS_INFO), SMC_NLA_SYS_SEID)));
	genl_result_free(&res);
	/* The EID in a group is shown without its blank padding. */
	for (size_t n = strlen(seid); n && seid[n - 1] == ' '; n--)
		seid[n - 1] = 0;
	uname(&u);
	smc_pair(&c, &s);
	diag_of(c, &cd);
	ASSERT(cd.has_dmb);
	ASSERT_EQ(dump(&res, SMC_NETLINK_GET_LGR_SMCD), 0);
	while ((m = genl_next_msg(&res, m))) {
		const struct nlattr *g = genl_attr(m, 0, SMC_GEN_LGR_SMCD), *v2;
		unsigned int n = attr_uint(genl_nest(g, SMC_NLA_LGR_D_CONNS_NUM));

		ASSERT(g != NULL);
		tap_diag("group %u: %u connections", (unsigned int)attr_uint(genl_nest(g, SMC_NLA_LGR_D_ID)), n);
		if (!n)
			continue;	/* lingering after an earlier case */
		groups++;
		conns += n;
		EXPECT(attr_uint(genl_nest(g, SMC_NLA_LGR_D_ID)) != 0);
		EXPECT_EQ(attr_uint(genl_nest(g, SMC_NLA_LGR_D_GID)), cd.dmb.my_gid);
		EXPECT_EQ(attr_uint(genl_nest(g, SMC_NLA_LGR_D_PEER_GID)), cd.dmb.peer_gid);
		/* CHID 0xffff is an emulated device's: GIDs of 128 bits (6.8's attributes). */
		EXPECT(cd.dmb.my_gid_ext != 0);
		EXPECT_EQ(attr_uint(genl_nest(g, SMC_NLA_LGR_D_EXT_GID)), cd.dmb.my_gid_ext);
		EXPECT_EQ(attr_uint(genl_nest(g, SMC_NLA_LGR_D_PEER_EXT_GID)), cd.dmb.peer_gid_ext);
		EXPECT_EQ(attr_uint(genl_nest(g, SMC_NLA_LGR_D_CHID)), 0xffff);
		EXPECT_EQ(attr_uint(genl_nest(g, SMC_NLA_LGR_D_VLAN_ID)), 0);
		EXPECT(attr_uint(genl_nest(g, SMC_NLA_LGR_D_DMB_ALLOC)) > 0);
		v2 = genl_nest(g, SMC_NLA_LGR_D_V2_COMMON);
		ASSERT(v2 != NULL);
		EXPECT_EQ(attr_uint(genl_nest(v2, SMC_NLA_LGR_V2_VER)), 2);
		EXPECT_STR(genl_attr_str(genl_nest(v2, SMC_NLA_LGR_V2_NEG_EID)), seid);
		EXPECT_STR(genl_attr_str(genl_nest(v2, SMC_NLA_LGR_V2_PEER_HOST)), u.nodename);
	}
	genl_result_free(&res);
	EXPECT_EQ(groups, 2);
	EXPECT_EQ(conns, 2);
	close(c);
	close(s);
}

/*
 * Handshake errors, with handshake/smc_badpeer loaded (gnl_smcd.sh does,
 * base_port 7800): our client gets garbage instead of a CLC answer, and
 * our server gets garbage instead of a Proposal. Each counts once on its
 * side, in the initial namespace where the bad peers live.
 */
static void hs_errors(const void *arg)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK),
				 .sin_port = htons(7800) };
	struct stats before, after;
	socklen_t al = sizeof(a);
	char cmd[64];
	int c, l;
	FILE *f;

	(void)arg;
	if (access("/sys/module/smc_badpeer", F_OK))
		tap_skip("smc_badpeer is not loaded");
	get_stats(&before);
	c = ASSERT_SYS(socket(AF_SMC, SOCK_STREAM, 0));
	EXPECT_ERRNO(connect(c, (void *)&a, sizeof(a)), EPROTO);
	close(c);
	get_stats(&after);
	EXPECT_EQ(after.clnt_hs_err - before.clnt_hs_err, 1);
	EXPECT_EQ(after.srv_hs_err - before.srv_hs_err, 0);
	EXPECT_EQ(after.fb_clnt - before.fb_clnt, 0);

	l = ASSERT_SYS(socket(AF_SMC, SOCK_STREAM, 0));
	a.sin_port = 0;
	ASSERT_SYS(bind(l, (void *)&a, sizeof(a)));
	ASSERT_SYS(listen(l, 1));
	ASSERT_SYS(getsockname(l, (void *)&a, &al));
	snprintf(cmd, sizeof(cmd), "garbage %u", ntohs(a.sin_port));
	f = fopen("/sys/module/smc_badpeer/parameters/connect", "w");
	ASSERT(f != NULL);
	fputs(cmd, f);
	ASSERT_EQ(fclose(f), 0);
	for (int i = 0; i < 100; i++) {
		get_stats(&after);
		if (after.srv_hs_err != before.srv_hs_err)
			break;
		usleep(50000);
	}
	EXPECT_EQ(after.srv_hs_err - before.srv_hs_err, 1);
	EXPECT_EQ(after.clnt_hs_err - before.clnt_hs_err, 1);
	EXPECT_EQ(after.t[0][SMC_NLA_STATS_T_SRV_V2_SUCC], before.t[0][SMC_NLA_STATS_T_SRV_V2_SUCC]);
	close(l);
}

static const struct tap_case cases[] = {
	{ "the family: version, commands and their flags", family, NULL, 60 },
	{ "SYS_INFO: version, release, host name, ISM and SEID", sys_info, NULL, 60 },
	{ "DEV_SMCR: an rxe device, its port and PNET ID", dev_smcr, NULL, 120 },
	{ "link group dumps are empty without connections", lgr_empty, NULL, 60 },
	{ "UEID add, dump, remove, flush, full table", ueid, NULL, 60 },
	{ "bad EIDs and attributes: EINVAL, nothing changes", ueid_bad, NULL, 60 },
	{ "SEID dump, enable, disable", seid, NULL, 60 },
	{ "HS_LIMITATION dump, enable, disable, and the sysctl", hs_limitation, NULL, 60 },
	{ "fallback connections count exactly once per side", stats_fallback, NULL, 120 },
	{ "UEIDs, limitation and counters are per namespace", netns_isolation, NULL, 60 },
	{ "nobody reads but changes nothing", unprivileged, NULL, 60 },
	{ "root of a user namespace and its own netns", userns, NULL, 60 },
};

static const struct tap_case smcd_cases[] = {
	{ "SMC-D counters: connections, bytes, calls, sizes, buffers", smcd_stats, NULL, 120 },
	{ "SMC-D event counters: cork, nodelay, buffers full, too small", smcd_stats_events, NULL, 120 },
	{ "DEV_SMCD: the loopback device and its users", smcd_device, NULL, 60 },
	{ "SMC-D by a shared UEID with the SEID disabled", smcd_ueid, NULL, 60 },
	{ "sock_diag CONNINFO of both ends: sizes, tokens, cursors, flags", smcd_conninfo, NULL, 60 },
	{ "handshake errors count once, client and server", hs_errors, NULL, 60 },
	{ "LGR_SMCD: the client and server groups of a connection", smcd_lgr, NULL, 60 },
	{ "SEID dump, enable, disable with an ISM device", seid, NULL, 60 },
	{ "SYS_INFO with an ISM device", sys_info, NULL, 60 },
};

int main(int argc, char **argv)
{
	mod = smc_module_or_skip();
	if (argc > 1 && !strcmp(argv[1], "-d"))
		tap_add_table(smcd_cases, sizeof(smcd_cases) / sizeof(smcd_cases[0]));
	else
		tap_add_table(cases, sizeof(cases) / sizeof(cases[0]));
	return tap_run();
}
