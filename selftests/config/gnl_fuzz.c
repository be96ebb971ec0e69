// SPDX-License-Identifier: GPL-2.0
/*
 * config/gnl_fuzz: random generic netlink requests to SMC_GEN_NETLINK and
 * SMC_PNETID, as root: any command number (also unknown ones), do or dump,
 * random header version and reserved byte, 0 to 5 attributes of any type
 * (nested flag too; mostly the types the families know), lengths 0 to 64,
 * payloads that are random bytes or
 * text of the characters EIDs and PNET IDs use, and now and then an
 * attribute whose length runs past the message. Every request must be
 * answered (an ack, an error or a dump that ends); the guest runs with
 * panic_on_warn, and the harness unloads the module afterwards, so a WARN,
 * a crash or a leaked reference fails the run.
 *
 *   gnl_fuzz COUNT [SEED]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <sys/wait.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <linux/smc.h>

#include "genl.h"
#include "tap.h"

static uint64_t rng;
static long count;

static uint32_t rnd(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return n ? (uint32_t)(rng % n) : 0;
}

static void payload(unsigned char *p, size_t len)
{
	static const char text[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.- abcz_";

	switch (rnd(3)) {
	case 0:
		for (size_t i = 0; i < len; i++)
			p[i] = rnd(256);
		break;
	default:
		for (size_t i = 0; i < len; i++)
			p[i] = text[rnd(sizeof(text) - 1)];
		if (len && rnd(4))
			p[len - 1 - rnd(len)] = 0;	/* a NUL somewhere */
		break;
	}
}

/*
 * Mostly commands the family has, with few attributes of the types it
 * knows, so that requests get past the first checks; the rest anything.
 */
static void build(struct genl_req *r, int fam, int ncmds)
{
	unsigned char data[64];
	int nattrs = rnd(3) ? rnd(3) : rnd(6);
	uint8_t cmd = rnd(4) ? 1 + rnd(ncmds) : rnd(256);
	struct genlmsghdr *g;

	genl_req_init(r, fam, cmd, rnd(4) ? 1 : rnd(256), rnd(2) ? NLM_F_DUMP : 0);
	g = NLMSG_DATA(&r->nlh);
	if (!rnd(16))
		g->reserved = rnd(65536);
	for (int i = 0; i < nattrs; i++) {
		size_t len = rnd(4) ? rnd(40) : rnd(65);
		uint16_t type = rnd(4) ? rnd(5) : rnd(65536) & NLA_TYPE_MASK;

		if (!rnd(8))
			type |= NLA_F_NESTED;
		if (rnd(4) == 0 && len >= 8) {
			/* A nest with one inner attribute. */
			struct nlattr *in = (struct nlattr *)data;

			in->nla_type = rnd(8);
			in->nla_len = len - rnd(8);
			payload(data + NLA_HDRLEN, len - NLA_HDRLEN);
			type |= NLA_F_NESTED;
		} else {
			payload(data, len);
		}
		genl_put_raw(r, type, data, len);
	}
	if (!rnd(32)) {
		/* The last attribute claims more than the message has. */
		struct nlattr *a = (struct nlattr *)(r->buf + NLMSG_ALIGN(r->nlh.nlmsg_len));

		a->nla_type = rnd(6);
		a->nla_len = 200;
		r->nlh.nlmsg_len = NLMSG_ALIGN(r->nlh.nlmsg_len) + NLA_HDRLEN + rnd(8);
	}
}

static void fuzz(const void *arg)
{
	int fd = ASSERT_SYS(genl_open());
	int fams[2];
	long errs[2] = { 0, 0 }, msgs = 0;
	struct genl_req r;
	struct genl_result res;

	(void)arg;
	fams[0] = ASSERT_SYS(genl_family(fd, SMC_GENL_FAMILY_NAME, NULL, NULL, NULL));
	fams[1] = ASSERT_SYS(genl_family(fd, SMCR_GENL_FAMILY_NAME, NULL, NULL, NULL));
	for (long i = 0; i < count; i++) {
		int f = rnd(2);

		build(&r, fams[f], f ? SMC_PNETID_FLUSH : SMC_NETLINK_DISABLE_HS_LIMITATION);
		if (genl_exchange(fd, &r, &res) < 0) {
			tap_fail("request %ld: the exchange failed: %s", i, strerror(errno));
			return;
		}
		errs[f] += res.error != 0;
		msgs += res.n_msgs;
		genl_result_free(&res);
	}
	tap_diag("%ld requests: %ld and %ld refused (SMC_GEN_NETLINK, SMC_PNETID), %ld reply messages",
		 count, errs[0], errs[1], msgs);
	/* Both families still answer a plain request. */
	genl_req_init(&r, fams[0], SMC_NETLINK_GET_SYS_INFO, 1, NLM_F_DUMP);
	ASSERT_SYS(genl_exchange(fd, &r, &res));
	EXPECT_EQ(res.error, 0);
	EXPECT_EQ(res.n_msgs, 1);
	genl_result_free(&res);
	/* Leave the tables as found: empty. */
	genl_req_init(&r, fams[0], SMC_NETLINK_FLUSH_UEID, 1, 0);
	ASSERT_SYS(genl_exchange(fd, &r, &res));
	EXPECT_EQ(res.error, 0);
	genl_req_init(&r, fams[0], SMC_NETLINK_DISABLE_HS_LIMITATION, 1, 0);
	ASSERT_SYS(genl_exchange(fd, &r, &res));
	genl_req_init(&r, fams[1], SMC_PNETID_FLUSH, 1, 0);
	ASSERT_SYS(genl_exchange(fd, &r, &res));
	EXPECT_EQ(res.error, 0);
	close(fd);
}

/*
 * The same from three processes at once while a fourth makes namespaces,
 * dumps their counters and EIDs, adds a UEID and lets them go, over and
 * over: namespace state is freed while requests run elsewhere.
 */
static void parallel(const void *arg)
{
	pid_t pids[4];
	int status, failed = 0;

	(void)arg;
	for (int i = 0; i < 4; i++) {
		pids[i] = fork();
		ASSERT(pids[i] >= 0);
		if (pids[i])
			continue;
		rng = rng * 6364136223846793005ull + i + 1;
		if (i < 3) {
			count /= 4;
			fuzz(NULL);
			_exit(tap_failed() ? 1 : 0);
		}
		for (int n = 0; n < 300; n++) {
			pid_t p = fork();

			if (p == 0) {
				struct genl_req r;
				struct genl_result res;
				int fd, fam;

				if (unshare(CLONE_NEWNET))
					_exit(1);
				fd = genl_open();
				fam = fd < 0 ? -1 : genl_family(fd, SMC_GENL_FAMILY_NAME, NULL, NULL, NULL);
				if (fam < 0)
					_exit(1);
				genl_req_init(&r, fam, SMC_NETLINK_ADD_UEID, 1, 0);
				genl_put_str(&r, SMC_NLA_EID_TABLE_ENTRY, "NETNS.CHURN");
				if (genl_exchange(fd, &r, &res) < 0 || res.error)
					_exit(1);
				genl_req_init(&r, fam, SMC_NETLINK_GET_STATS, 1, NLM_F_DUMP);
				if (genl_exchange(fd, &r, &res) < 0 || res.error || res.n_msgs != 1)
					_exit(1);
				genl_result_free(&res);
				_exit(0);
			}
			if (p < 0 || waitpid(p, &status, 0) < 0 || status)
				_exit(1);
		}
		_exit(0);
	}
	for (int i = 0; i < 4; i++) {
		ASSERT_SYS(waitpid(pids[i], &status, 0));
		if (status) {
			tap_diag("worker %d: status %#x", i, status);
			failed = 1;
		}
	}
	EXPECT_EQ(failed, 0);
}

int main(int argc, char **argv)
{
	static const struct tap_case c[] = {
		{ "random requests to SMC_GEN_NETLINK and SMC_PNETID", fuzz, NULL, 3000 },
		{ "three fuzzers at once, namespaces coming and going", parallel, NULL, 3000 },
	};

	count = (long)tap_volume(argc > 1 ? strtoul(argv[1], NULL, 0) : 100000);
	rng = argc > 2 ? strtoull(argv[2], NULL, 0) : (uint64_t)time(NULL) * 2654435761u | 1;
	printf("# seed %llu, %ld requests\n", (unsigned long long)rng, count);
	if (getuid() != 0) {
		printf("TAP version 13\n1..0 # SKIP needs root\n");
		return 0;
	}
	tap_add_table(c, 2);
	return tap_run();
}
