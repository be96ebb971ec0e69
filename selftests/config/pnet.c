// SPDX-License-Identifier: GPL-2.0
/*
 * config/pnet: the SMC_PNETID generic netlink family, request by request.
 *
 * Runs against our af_smc and against Debian's smc.ko: each answer (errno,
 * table contents, reply layout) must be Linux 6.1's; where we differ on
 * purpose (Documentation/decisions.md: the admin permission, requests that
 * change nothing when refused) each module's own answer is asserted. With
 * af_smc every refusal must also carry our extack message.
 *
 *   pnet -n NETDEV -r RDMADEV
 * NETDEV: an existing network device; RDMADEV: an RDMA device with one
 * port (pnet.sh sets both up).
 *   pnet -f COUNT
 * adds COUNT netdev entries (F0 smcpf0, ...) to the table of the caller's
 * netns and exits: pnet_cycles.sh fills tables with it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/smc.h>

#include "pnet_nl.h"
#include "tap.h"

#define ETH(id, dev) { id, dev, "n/a", 255 }
#define IB(id, dev, port) { id, "n/a", dev, port }

static const char *netdev;	/* exists */
static const char *rdmadev;	/* exists, one port */

static void start(void)
{
	pn_open();
	pn_flush();
}

static void family(const void *arg)
{
	unsigned int version, hdrsize, maxattr, flags;
	/* DO | HASPOL, and the admin check: 6.1's is GENL_ADMIN_PERM. */
	unsigned int admin = pn_module == SMC_MODULE_OURS ?
			     GENL_UNS_ADMIN_PERM | GENL_CMD_CAP_DO | GENL_CMD_CAP_HASPOL :
			     GENL_ADMIN_PERM | GENL_CMD_CAP_DO | GENL_CMD_CAP_HASPOL;
	int fd = ASSERT_SYS(genl_open());

	(void)arg;
	tap_diag("module: %s", smc_module_label(pn_module));
	ASSERT_SYS(genl_family(fd, SMCR_GENL_FAMILY_NAME, &version, &hdrsize, &maxattr));
	EXPECT_EQ(version, 1);
	EXPECT_EQ(hdrsize, 0);
	EXPECT_EQ(maxattr, SMC_PNETID_MAX);
	EXPECT_EQ(SMC_PNETID_MAX, 4);
	ASSERT_SYS(genl_op_flags(fd, SMCR_GENL_FAMILY_NAME, SMC_PNETID_GET, &flags));
	EXPECT_EQ(flags, GENL_CMD_CAP_DO | GENL_CMD_CAP_DUMP | GENL_CMD_CAP_HASPOL);
	for (unsigned int cmd = SMC_PNETID_ADD; cmd <= SMC_PNETID_FLUSH; cmd++) {
		tap_diag("command %u", cmd);
		if (EXPECT_SYS(genl_op_flags(fd, SMCR_GENL_FAMILY_NAME, cmd, &flags)) == 0)
			EXPECT_EQ(flags, admin);
	}
	EXPECT_ERRNO(genl_op_flags(fd, SMCR_GENL_FAMILY_NAME, SMC_PNETID_FLUSH + 1, &flags),
		     ENOENT);
	close(fd);
}

static void add_show(const void *arg)
{
	const struct pn_want want[] = { ETH("NET1", "lo"), ETH("NET2", netdev) };

	(void)arg;
	start();
	pn_expect("add net1 lo", SMC_PNETID_ADD, "net1", "lo", NULL, -1, 0, NULL);
	pn_expect("add NET2 to the test device", SMC_PNETID_ADD, "NET2", netdev, NULL, -1, 0,
		  NULL);
	pn_expect_table("after two adds", want, 2);
	pn_flush();
	pn_expect_table("after flush", NULL, 0);
}

/* PNET IDs that are taken, and how they are stored. */
static void pnetid_valid(const void *arg)
{
	static const struct { const char *in, *stored; } ids[] = {
		{ "abc", "ABC" },
		{ " net3 ", "NET3" },
		{ "\tTab9\n", "TAB9" },
		{ "aBcDeFgHiJkLmNoP", "ABCDEFGHIJKLMNOP" },	/* 16 */
		{ "ABCDEFGHIJKLMNO ", "ABCDEFGHIJKLMNO" },	/* 15 and a blank */
		{ "0123456789", "0123456789" },
	};
	static char devs[6][16];
	struct pn_want want[6];
	char what[64];

	(void)arg;
	start();
	for (int i = 0; i < 6; i++) {
		snprintf(devs[i], sizeof(devs[i]), "smcpid%d", i);
		snprintf(what, sizeof(what), "add PNET ID %d", i);
		pn_expect(what, SMC_PNETID_ADD, ids[i].in, devs[i], NULL, -1, 0, PN_NO_NETDEV);
		want[i] = (struct pn_want)ETH(ids[i].stored, devs[i]);
	}
	pn_expect_table("after the adds", want, 6);
}

/* PNET IDs that are refused, and nothing changes. */
static void pnetid_invalid(const void *arg)
{
	static const struct { const char *desc, *id; const char *msg; } ids[] = {
		{ "empty", "", PN_BAD_ID },
		{ "blanks only", "   ", PN_BAD_ID },
		{ "a dash", "a-b", PN_BAD_ID },
		{ "an inner blank", "a b", PN_BAD_ID },
		{ "a dot", "x.y", PN_BAD_ID },
		{ "UTF-8", "caf\xc3\xa9", PN_BAD_ID },
		{ "17 characters", "ABCDEFGHIJKLMNOPQ", PN_POLICY },
		{ "15 characters in blanks", " ABCDEFGHIJKLMNO ", PN_POLICY },
	};
	const struct pn_want want[] = { ETH("KEEP", "lo") };

	(void)arg;
	start();
	pn_expect("add KEEP lo", SMC_PNETID_ADD, "KEEP", "lo", NULL, -1, 0, NULL);
	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
		pn_expect(ids[i].desc, SMC_PNETID_ADD, ids[i].id, "smcpbad", NULL, -1,
			  EINVAL, ids[i].msg);
	pn_expect("no PNET ID", SMC_PNETID_ADD, NULL, "smcpbad", NULL, -1, EINVAL, PN_MISSING);

	/* Attributes of the wrong shape. */
	pn_expect_raw_name("PNET ID without NUL", "ABC", 3, "smcpbad", EINVAL, PN_POLICY);
	pn_expect_raw_name("empty PNET ID attribute", NULL, 0, "smcpbad", EINVAL, PN_POLICY);
	pn_expect_raw_name("PNET ID as u8", "\x07", 1, "smcpbad", EINVAL, PN_POLICY);

	pn_expect("16-character netdev name", SMC_PNETID_ADD, "X", "abcdefghijklmnop", NULL, -1,
		  EINVAL, PN_POLICY);
	pn_expect("64-character RDMA name", SMC_PNETID_ADD, "X", NULL,
		  "0123456789012345678901234567890123456789012345678901234567890123", 1,
		  EINVAL, PN_POLICY);
	pn_expect_table("after the refusals", want, 1);
}

static void duplicates(const void *arg)
{
	const struct pn_want want[] = { ETH("NET1", "lo") };

	(void)arg;
	start();
	pn_expect("add NET1 lo", SMC_PNETID_ADD, "NET1", "lo", NULL, -1, 0, NULL);
	pn_expect("add NET1 lo again", SMC_PNETID_ADD, "NET1", "lo", NULL, -1, EEXIST,
		  PN_DUP_ETH);
	pn_expect("add NET2 lo", SMC_PNETID_ADD, "NET2", "lo", NULL, -1, EEXIST, PN_DUP_ETH);
	pn_expect("a PNET ID alone", SMC_PNETID_ADD, "NET3", NULL, NULL, -1, EEXIST,
		  PN_NOTHING);
	pn_expect("a port without device", SMC_PNETID_ADD, "NET3", NULL, NULL, 1, EEXIST,
		  PN_NOTHING);
	pn_expect_table("after the refusals", want, 1);
}

/* Linux takes names of devices that do not exist (yet); we warn. */
static void absent_netdev(const void *arg)
{
	const struct pn_want want[] = {
		ETH("LATER", "smcplater"), ETH("EMPTY", ""), ETH("LONG", "abcdefghijklmno"),
	};

	(void)arg;
	start();
	pn_expect("an absent netdev", SMC_PNETID_ADD, "LATER", "smcplater", NULL, -1, 0,
		  PN_NO_NETDEV);
	pn_expect("an empty netdev name", SMC_PNETID_ADD, "EMPTY", "", NULL, -1, 0,
		  PN_NO_NETDEV);
	pn_expect("a 15-character netdev name", SMC_PNETID_ADD, "LONG", "abcdefghijklmno",
		  NULL, -1, 0, PN_NO_NETDEV);
	pn_expect_table("after the adds", want, 3);
}

static int sh(const char *cmd)
{
	int rc = system(cmd);

	if (rc != 0)
		tap_fail("'%s' exited with %d", cmd, rc);
	return rc;
}

/*
 * An entry outlives its device: Linux keeps it listed when the device
 * goes (and binds it again when one of that name comes back).
 */
static void netdev_lifecycle(const void *arg)
{
	const struct pn_want want[] = { ETH("VETH", "smcpv9") };

	(void)arg;
	start();
	pn_expect("add the absent smcpv9", SMC_PNETID_ADD, "VETH", "smcpv9", NULL, -1, 0,
		  PN_NO_NETDEV);
	if (sh("ip link add smcpv9 type veth peer name smcpv8"))
		return;
	pn_expect_table("device created", want, 1);
	pn_expect("smcpv9 again", SMC_PNETID_ADD, "OTHER", "smcpv9", NULL, -1, EEXIST,
		  PN_DUP_ETH);
	pn_expect("its peer, which exists", SMC_PNETID_ADD, "PEER", "smcpv8", NULL, -1, 0,
		  NULL);
	sh("ip link set smcpv9 name smcpv7");
	sh("ip link del smcpv7");
	{
		const struct pn_want after[] = { ETH("VETH", "smcpv9"), ETH("PEER", "smcpv8") };

		pn_expect_table("devices deleted", after, 2);
		sh("ip link add smcpv9 type veth peer name smcpv8");
		sh("ip netns add smcpnet-life");
		sh("ip link set smcpv8 netns smcpnet-life");
		pn_expect_table("devices back, one moved away", after, 2);
		sh("ip netns del smcpnet-life");
		sh("ip link del smcpv9 2>/dev/null; true");
		pn_expect_table("all gone", after, 2);
	}
}

static void rdma_entries(const void *arg)
{
	const struct pn_want one[] = { IB("R1", rdmadev, 1) };
	const struct pn_want two[] = { IB("R2", rdmadev, 2) };
	const struct pn_want more[] = {
		IB("R3", rdmadev, 1), IB("ABSENT", "smcpnoib", 1), IB("TRIM", "spib", 2),
		IB("LONG", "012345678901234567890123456789012345678901234567890123456789012", 1),
	};

	(void)arg;
	start();
	pn_expect("port 1", SMC_PNETID_ADD, "R1", NULL, rdmadev, 1, 0, NULL);
	pn_expect_table("after port 1", one, 1);
	pn_expect("port 1 again", SMC_PNETID_ADD, "R2", NULL, rdmadev, 1, EEXIST, PN_DUP_IB);
	/* A device is listed once, whatever the port. */
	pn_expect("port 2 of it", SMC_PNETID_ADD, "R2", NULL, rdmadev, 2, EEXIST, PN_DUP_IB);
	pn_expect("port 0", SMC_PNETID_ADD, "R2", NULL, "smcpother", 0, EINVAL, PN_BAD_PORT);
	pn_expect("port 3", SMC_PNETID_ADD, "R2", NULL, "smcpother", 3, EINVAL, PN_BAD_PORT);
	pn_expect_table("after the refusals", one, 1);

	pn_flush();
	/* The device has one port; Linux takes 2 all the same. */
	pn_expect("port 2 of a 1-port device", SMC_PNETID_ADD, "R2", NULL, rdmadev, 2, 0,
		  PN_NO_PORT);
	pn_expect_table("after port 2", two, 1);

	pn_flush();
	pn_expect("no port: port 1", SMC_PNETID_ADD, "R3", NULL, rdmadev, -1, 0, NULL);
	pn_expect("an absent device", SMC_PNETID_ADD, "ABSENT", NULL, "smcpnoib", 1, 0,
		  PN_NO_IBDEV);
	pn_expect("a name in blanks", SMC_PNETID_ADD, "TRIM", NULL, " spib ", 2, 0,
		  PN_NO_IBDEV);
	pn_expect("a 63-character name", SMC_PNETID_ADD, "LONG", NULL,
		  "012345678901234567890123456789012345678901234567890123456789012", 1, 0,
		  PN_NO_IBDEV);
	pn_expect_table("after the adds", more, 4);
}

/* A netdev and a device in one request are two entries. */
static void both_in_one(const void *arg)
{
	const struct pn_want want[] = {
		ETH("BOTH", "smcpa"), IB("BOTH", "smcpib", 1), IB("BOTH2", "smcpib2", 2),
		ETH("BOTH3", "smcpb"),
	};
	const struct pn_want quirk[] = {
		ETH("BOTH", "smcpa"), IB("BOTH", "smcpib", 1), IB("BOTH2", "smcpib2", 2),
		ETH("BOTH3", "smcpb"), ETH("BAD", "smcpc"),
	};

	(void)arg;
	start();
	pn_expect("both new", SMC_PNETID_ADD, "BOTH", "smcpa", "smcpib", 1, 0, PN_NO_IBDEV);
	pn_expect("netdev listed, device new", SMC_PNETID_ADD, "BOTH2", "smcpa", "smcpib2", 2,
		  0, PN_NO_IBDEV);
	pn_expect("netdev new, device listed", SMC_PNETID_ADD, "BOTH3", "smcpb", "smcpib", 1,
		  0, PN_DUP_IB);
	pn_expect("both listed", SMC_PNETID_ADD, "BOTH4", "smcpa", "smcpib", 1, EEXIST,
		  PN_DUP_IB);
	pn_expect_table("after the adds", want, 4);
	/*
	 * A bad port with a new netdev: refused alike, but Linux 6.1 has added
	 * the netdev before it looks at the port; we change nothing.
	 */
	pn_expect("a new netdev with port 3", SMC_PNETID_ADD, "BAD", "smcpc", "smcpib3", 3,
		  EINVAL, PN_BAD_PORT);
	if (pn_module == SMC_MODULE_OURS)
		pn_expect_table("after the refusal", want, 4);
	else
		pn_expect_table("after the refusal (6.1 added the netdev)", quirk, 5);
}

static void fill_r_and_s(void)
{
	start();
	pn_expect("add R lo", SMC_PNETID_ADD, "R", "lo", NULL, -1, 0, NULL);
	pn_expect("add S", SMC_PNETID_ADD, "S", NULL, "smcps", 2, 0, PN_NO_IBDEV);
	pn_expect("add R device", SMC_PNETID_ADD, "R", NULL, "smcpr", 1, 0, PN_NO_IBDEV);
}

static void get_one(const void *arg)
{
	static const struct { const char *desc, *id; int n; } gets[] = {
		{ "R", "R", 2 }, { "S and a blank", "S ", 1 }, { "lower case r", "r", 0 },
		{ "blank and S", " S", 0 }, { "unknown", "NOSUCH", 0 },
	};
	const struct pn_want r_entries[] = { ETH("R", "lo"), IB("R", "smcpr", 1) };
	static struct pn_table t;
	struct genl_result res;

	(void)arg;
	fill_r_and_s();
	for (size_t i = 0; i < sizeof(gets) / sizeof(gets[0]); i++) {
		pn_req(SMC_PNETID_GET, gets[i].id, NULL, NULL, -1, &res);
		if (pn_answer(gets[i].desc, &res, 0, NULL) && pn_parse(&res, &t)) {
			if (t.n != gets[i].n)
				tap_fail("GET %s: %d entries, expected %d", gets[i].desc, t.n,
					 gets[i].n);
			else if (i == 0)
				for (int k = 0; k < 2; k++)
					if (strcmp(t.e[k].eth, r_entries[k].eth) ||
					    strcmp(t.e[k].ib, r_entries[k].ib) ||
					    t.e[k].port != r_entries[k].port)
						tap_fail("GET R: entry %d differs", k);
		}
		genl_result_free(&res);
	}
	pn_expect("GET without PNET ID", SMC_PNETID_GET, NULL, NULL, NULL, -1, EINVAL,
		  PN_MISSING);
}

static void del(const void *arg)
{
	const struct pn_want s_only[] = { IB("S", "smcps", 2) };

	(void)arg;
	fill_r_and_s();
	pn_expect("DEL lower case r", SMC_PNETID_DEL, "r", NULL, NULL, -1, ENOENT, PN_NO_ENTRY);
	pn_expect("DEL blank and R", SMC_PNETID_DEL, " R", NULL, NULL, -1, ENOENT, PN_NO_ENTRY);
	pn_expect("DEL unknown", SMC_PNETID_DEL, "NOSUCH", NULL, NULL, -1, ENOENT, PN_NO_ENTRY);
	pn_expect("DEL a-b", SMC_PNETID_DEL, "a-b", NULL, NULL, -1, ENOENT, PN_NO_ENTRY);
	pn_expect("DEL without PNET ID", SMC_PNETID_DEL, NULL, NULL, NULL, -1, EINVAL,
		  PN_MISSING);
	pn_expect("DEL R", SMC_PNETID_DEL, "R", NULL, NULL, -1, 0, NULL);
	pn_expect_table("after DEL R", s_only, 1);
	pn_expect("DEL R again", SMC_PNETID_DEL, "R", NULL, NULL, -1, ENOENT, PN_NO_ENTRY);
	pn_expect("DEL S and a blank", SMC_PNETID_DEL, "S ", NULL, NULL, -1, 0, NULL);
	pn_expect_table("after DEL S", NULL, 0);
}

static void flush(const void *arg)
{
	(void)arg;
	start();
	pn_expect("flush an empty table", SMC_PNETID_FLUSH, NULL, NULL, NULL, -1, 0, NULL);
	fill_r_and_s();
	pn_expect("flush", SMC_PNETID_FLUSH, NULL, NULL, NULL, -1, 0, NULL);
	pn_expect_table("after flush", NULL, 0);
	fill_r_and_s();
	pn_expect("flush with a PNET ID", SMC_PNETID_FLUSH, "R", NULL, NULL, -1, 0, NULL);
	pn_expect_table("after flush with a PNET ID", NULL, 0);
}

/* Linux parses these requests leniently; so must we. */
static void lenient(const void *arg)
{
	const struct pn_want want[] = { ETH("U", "lo"), IB("W", "smcpw", 1) };
	struct genl_req r;
	struct genl_result res;
	uint32_t port = 1;

	(void)arg;
	start();
	pn_req_init(&r, SMC_PNETID_ADD, 0);
	genl_put_str(&r, SMC_PNETID_NAME, "U");
	genl_put_str(&r, SMC_PNETID_ETHNAME, "lo");
	genl_put_u8(&r, 9, 1);
	pn_send(&r, &res);
	pn_answer("an unknown attribute", &res, 0, NULL);
	genl_result_free(&res);
	pn_req_init(&r, SMC_PNETID_ADD, 0);
	genl_put_str(&r, SMC_PNETID_NAME, "W");
	genl_put_str(&r, SMC_PNETID_IBNAME, "smcpw");
	genl_put_u32(&r, SMC_PNETID_IBPORT, port);	/* its first byte counts */
	pn_send(&r, &res);
	pn_answer("a u32 port", &res, 0, PN_NO_IBDEV);
	genl_result_free(&res);
	pn_expect_table("after the adds", want, 2);
	pn_expect("command 0", 0, NULL, NULL, NULL, -1, EOPNOTSUPP, NULL);
	pn_expect("command 5", SMC_PNETID_FLUSH + 1, NULL, NULL, NULL, -1, EOPNOTSUPP, NULL);
}

static void large_dump(const void *arg)
{
	enum { N = 1000 };
	static char ids[N][8], devs[N][16];
	static struct pn_want want[N];
	int failed = 0;

	(void)arg;
	start();
	for (int i = 0; i < N && !failed; i++) {
		struct genl_result res;

		snprintf(ids[i], sizeof(ids[i]), "D%d", i);
		snprintf(devs[i], sizeof(devs[i]), "smcpd%d", i);
		want[i] = (struct pn_want)ETH(ids[i], devs[i]);
		pn_req(SMC_PNETID_ADD, ids[i], devs[i], NULL, -1, &res);
		failed = !pn_answer(ids[i], &res, 0, PN_NO_NETDEV);
		genl_result_free(&res);
	}
	/* About 56 KiB of replies: the dump comes in several parts. */
	pn_expect_table("the dump of 1000 entries", want, N);
	pn_flush();
}

/* ---- namespaces and permissions ---- */

static void child_netns(void)
{
	const struct pn_want mine[] = { ETH("NS1", "lo") };

	pn_expect_table("a new netns", NULL, 0);
	pn_expect("add NS1 lo", SMC_PNETID_ADD, "NS1", "lo", NULL, -1, 0, NULL);
	pn_expect("an RDMA device outside the initial netns", SMC_PNETID_ADD, "NS2", NULL,
		  "smcpns", 1, EEXIST, PN_INIT_NS);
	/* Linux does not look at the port there either. */
	pn_expect("port 3 outside the initial netns", SMC_PNETID_ADD, "NS2", NULL, "smcpns", 3,
		  EEXIST, PN_INIT_NS);
	pn_expect_table("the new netns after the adds", mine, 1);
}

static void child_flush(void)
{
	pn_expect_table("another new netns", NULL, 0);
	pn_expect("add NS3 lo", SMC_PNETID_ADD, "NS3", "lo", NULL, -1, 0, NULL);
	pn_flush();
}

/*
 * The initial netns has one entry; fn runs in a child (how: pn_in_child);
 * the initial netns must still have just that entry afterwards.
 */
static void around_init_entry(int how, void (*fn)(void))
{
	const struct pn_want init[] = { ETH("INIT", "lo") };

	start();
	pn_expect("add INIT lo", SMC_PNETID_ADD, "INIT", "lo", NULL, -1, 0, NULL);
	pn_in_child(how, fn);
	pn_expect_table("the initial netns afterwards", init, 1);
}

static void netns(const void *arg)
{
	(void)arg;
	around_init_entry(PN_NEW_NETNS, child_netns);
	/* That netns is gone; a new one starts empty again. */
	around_init_entry(PN_NEW_NETNS, child_flush);
}

static void child_nobody(void)
{
	const struct pn_want init[] = { ETH("INIT", "lo") };

	pn_expect("add", SMC_PNETID_ADD, "NOBODY", "lo2", NULL, -1, EPERM, NULL);
	pn_expect("del", SMC_PNETID_DEL, "INIT", NULL, NULL, -1, EPERM, NULL);
	pn_expect("flush", SMC_PNETID_FLUSH, NULL, NULL, NULL, -1, EPERM, NULL);
	pn_expect_raw_name("a malformed add", "X", 1, NULL, EPERM, NULL);
	pn_expect_table("what nobody sees", init, 1);
	pn_expect("get", SMC_PNETID_GET, "INIT", NULL, NULL, -1, 0, NULL);
}

static void unprivileged(const void *arg)
{
	(void)arg;
	around_init_entry(PN_AS_NOBODY, child_nobody);
}

static void child_userns(void)
{
	const struct pn_want mine[] = { ETH("USERNS", "lo") };

	if (pn_module == SMC_MODULE_OURS) {
		pn_expect("add in an owned netns", SMC_PNETID_ADD, "USERNS", "lo", NULL, -1, 0,
			  NULL);
		pn_expect_table("the owned netns", mine, 1);
		pn_expect("flush in an owned netns", SMC_PNETID_FLUSH, NULL, NULL, NULL, -1, 0,
			  NULL);
	} else {
		/* 6.1 wants CAP_NET_ADMIN in the initial user namespace. */
		pn_expect("add in an owned netns", SMC_PNETID_ADD, "USERNS", "lo", NULL, -1,
			  EPERM, NULL);
		pn_expect_table("the owned netns", NULL, 0);
	}
}

static void userns(const void *arg)
{
	(void)arg;
	around_init_entry(PN_NEW_USERNS | PN_NEW_NETNS, child_userns);
	pn_flush();
}

static void leave_empty(const void *arg)
{
	(void)arg;
	start();
	pn_expect_table("at the end", NULL, 0);
}

static const struct tap_case cases[] = {
	{ "the family: name, version, attributes, commands and their flags", family, NULL, 60 },
	{ "add and show netdev entries", add_show, NULL, 60 },
	{ "PNET IDs are trimmed and kept in upper case", pnetid_valid, NULL, 60 },
	{ "bad PNET IDs and attributes: EINVAL, nothing changes", pnetid_invalid, NULL, 60 },
	{ "a listed netdev and empty requests: EEXIST, nothing changes", duplicates, NULL, 60 },
	{ "names of absent netdevs are taken, with a warning", absent_netdev, NULL, 60 },
	{ "entries outlive their netdev: rename, delete, move", netdev_lifecycle, NULL, 120 },
	{ "RDMA device entries: ports 1..2, one entry per device", rdma_entries, NULL, 60 },
	{ "a netdev and a device in one request", both_in_one, NULL, 60 },
	{ "GET with a PNET ID: its entries, bytes compared as Linux", get_one, NULL, 60 },
	{ "DEL removes every entry of a PNET ID; unknown: ENOENT", del, NULL, 60 },
	{ "FLUSH empties the table, also when empty", flush, NULL, 60 },
	{ "lenient parsing as Linux: unknown attributes, longer port", lenient, NULL, 60 },
	{ "a dump of 1000 entries comes whole and in order", large_dump, NULL, 300 },
	{ "each netns has its own table", netns, NULL, 60 },
	{ "nobody may read but not change the table", unprivileged, NULL, 60 },
	{ "root of a user namespace and its netns", userns, NULL, 60 },
	{ "the table is left empty", leave_empty, NULL, 60 },
};

/* -f COUNT: fill the table; 0 when every add was taken. */
static int fill(int count)
{
	char id[16], dev[16];

	pn_open();
	for (int i = 0; i < count; i++) {
		struct genl_result res;

		snprintf(id, sizeof(id), "F%d", i);
		snprintf(dev, sizeof(dev), "smcpf%d", i);
		pn_req(SMC_PNETID_ADD, id, dev, NULL, -1, &res);
		if (res.error) {
			fprintf(stderr, "pnet: add %s %s: %s\n", id, dev, strerror(res.error));
			return 1;
		}
		genl_result_free(&res);
	}
	return 0;
}

int main(int argc, char **argv)
{
	int opt;

	while ((opt = getopt(argc, argv, "n:r:f:")) != -1) {
		switch (opt) {
		case 'n': netdev = optarg; break;
		case 'r': rdmadev = optarg; break;
		case 'f': return fill(atoi(optarg));
		default:
			fprintf(stderr, "usage: pnet -n NETDEV -r RDMADEV | pnet -f COUNT\n");
			return 2;
		}
	}
	if (!netdev || !rdmadev) {
		fprintf(stderr, "usage: pnet -n NETDEV -r RDMADEV\n");
		return 2;
	}
	pn_module = smc_module_or_skip();
	tap_add_table(cases, sizeof(cases) / sizeof(cases[0]));
	return tap_run();
}
