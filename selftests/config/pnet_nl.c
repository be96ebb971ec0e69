// SPDX-License-Identifier: GPL-2.0
/* pnet_nl.c: SMC_PNETID requests and checks for config/pnet (see pnet_nl.h). */
#define _GNU_SOURCE
#include "pnet_nl.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/smc.h>

#include "tap.h"

enum smc_module pn_module;
static int pn_fd = -1;
static int pn_family;

void pn_open(void)
{
	if (pn_fd >= 0)
		close(pn_fd);
	pn_fd = ASSERT_SYS(genl_open());
	pn_family = genl_family(pn_fd, SMCR_GENL_FAMILY_NAME, NULL, NULL, NULL);
	if (pn_family < 0) {
		tap_fail("family %s: %s", SMCR_GENL_FAMILY_NAME, strerror(errno));
		tap_abort();
	}
}

void pn_req_init(struct genl_req *r, int cmd, int flags)
{
	genl_req_init(r, pn_family, cmd, SMCR_GENL_FAMILY_VERSION, flags);
}

void pn_send(struct genl_req *r, struct genl_result *res)
{
	ASSERT_SYS(genl_exchange(pn_fd, r, res));
}

void pn_req(int cmd, const char *name, const char *eth, const char *ib, int port,
	    struct genl_result *res)
{
	struct genl_req r;

	pn_req_init(&r, cmd, 0);
	if (name)
		genl_put_str(&r, SMC_PNETID_NAME, name);
	if (eth)
		genl_put_str(&r, SMC_PNETID_ETHNAME, eth);
	if (ib)
		genl_put_str(&r, SMC_PNETID_IBNAME, ib);
	if (port >= 0)
		genl_put_u8(&r, SMC_PNETID_IBPORT, (uint8_t)port);
	pn_send(&r, res);
}

int pn_answer(const char *what, const struct genl_result *r, int err, const char *ours_msg)
{
	const char *want = "";
	int ok = 1;

	if (ours_msg && (pn_module == SMC_MODULE_OURS || !strcmp(ours_msg, PN_POLICY)))
		want = ours_msg;
	if (r->error != err) {
		tap_fail("%s: answered %s, expected %s", what, tap_errno_name(r->error),
			 tap_errno_name(err));
		ok = 0;
	}
	if (strcmp(r->extack, want)) {
		tap_fail("%s: extack '%s', expected '%s'", what, r->extack, want);
		ok = 0;
	}
	return ok;
}

int pn_expect(const char *what, int cmd, const char *name, const char *eth,
	      const char *ib, int port, int err, const char *ours_msg)
{
	struct genl_result res;
	int ok;

	pn_req(cmd, name, eth, ib, port, &res);
	ok = pn_answer(what, &res, err, ours_msg);
	genl_result_free(&res);
	return ok;
}

int pn_expect_raw_name(const char *what, const void *name, size_t len, const char *eth,
		       int err, const char *ours_msg)
{
	struct genl_req r;
	struct genl_result res;
	int ok;

	pn_req_init(&r, SMC_PNETID_ADD, 0);
	genl_put_raw(&r, SMC_PNETID_NAME, name, len);
	if (eth)
		genl_put_str(&r, SMC_PNETID_ETHNAME, eth);
	pn_send(&r, &res);
	ok = pn_answer(what, &res, err, ours_msg);
	genl_result_free(&res);
	return ok;
}

/* A string attribute must be exactly the string and its NUL. */
static int pn_str(const struct nlmsghdr *m, int type, char *out, size_t size)
{
	const struct nlattr *a = genl_attr(m, 0, type);
	const char *s;

	if (!a) {
		tap_fail("reply without attribute %d", type);
		return 0;
	}
	s = genl_attr_str(a);
	if (a->nla_len != NLA_HDRLEN + strlen(s) + 1 || strlen(s) >= size) {
		tap_fail("attribute %d: length %u for '%s'", type, a->nla_len, s);
		return 0;
	}
	memcpy(out, s, strlen(s) + 1);
	return 1;
}

int pn_parse(const struct genl_result *r, struct pn_table *t)
{
	const struct nlmsghdr *m;

	t->n = 0;
	for (m = genl_next_msg(r, NULL); m; m = genl_next_msg(r, m)) {
		const struct genlmsghdr *g = NLMSG_DATA(m);
		const struct nlattr *port;
		struct pn_entry *e;
		uint8_t p;

		if (t->n == PN_MAX_ENTRIES) {
			tap_fail("more than %d entries", PN_MAX_ENTRIES);
			return 0;
		}
		e = &t->e[t->n++];
		if (g->cmd != SMC_PNETID_GET || !(m->nlmsg_flags & NLM_F_MULTI))
			tap_fail("reply with command %u, flags %#x", g->cmd, m->nlmsg_flags);
		if (!pn_str(m, SMC_PNETID_NAME, e->pnetid, sizeof(e->pnetid)) ||
		    !pn_str(m, SMC_PNETID_ETHNAME, e->eth, sizeof(e->eth)) ||
		    !pn_str(m, SMC_PNETID_IBNAME, e->ib, sizeof(e->ib)))
			return 0;
		port = genl_attr(m, 0, SMC_PNETID_IBPORT);
		if (!port || port->nla_len != NLA_HDRLEN + 1 || genl_attr_u8(port, &p)) {
			tap_fail("reply without a u8 SMC_PNETID_IBPORT");
			return 0;
		}
		e->port = p;
	}
	return 1;
}

void pn_dump(struct pn_table *t)
{
	struct genl_req r;
	struct genl_result res;

	pn_req_init(&r, SMC_PNETID_GET, NLM_F_DUMP);
	pn_send(&r, &res);
	if (res.error) {
		tap_fail("dump: %s", tap_errno_name(res.error));
		tap_abort();
	}
	if (!pn_parse(&res, t))
		tap_abort();
	genl_result_free(&res);
}

int pn_expect_table(const char *when, const struct pn_want *want, int n)
{
	static struct pn_table t;
	int same;

	pn_dump(&t);
	same = t.n == n;
	for (int i = 0; same && i < n; i++)
		same = !strcmp(t.e[i].pnetid, want[i].pnetid) &&
		       !strcmp(t.e[i].eth, want[i].eth) &&
		       !strcmp(t.e[i].ib, want[i].ib) && t.e[i].port == want[i].port;
	if (!same) {
		tap_fail("%s: the table differs", when);
		for (int i = 0; i < n; i++)
			tap_diag("  expected %d: %s %s %s %d", i, want[i].pnetid, want[i].eth,
				 want[i].ib, want[i].port);
		for (int i = 0; i < t.n; i++)
			tap_diag("  got %d: %s %s %s %d", i, t.e[i].pnetid, t.e[i].eth,
				 t.e[i].ib, t.e[i].port);
	}
	return same;
}

void pn_flush(void)
{
	struct genl_result res;

	pn_req(SMC_PNETID_FLUSH, NULL, NULL, NULL, -1, &res);
	if (res.error) {
		tap_fail("flush: %s", tap_errno_name(res.error));
		tap_abort();
	}
	genl_result_free(&res);
}

void pn_in_child(int how, void (*fn)(void))
{
	pid_t pid = fork();
	int status;

	ASSERT(pid >= 0);
	if (pid == 0) {
		int flags = (how & PN_NEW_USERNS ? CLONE_NEWUSER : 0) |
			    (how & PN_NEW_NETNS ? CLONE_NEWNET : 0);

		if (flags && unshare(flags) < 0) {
			tap_fail("unshare: %s", strerror(errno));
			_exit(1);
		}
		if ((how & PN_AS_NOBODY) &&
		    (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))) {
			tap_fail("cannot become nobody: %s", strerror(errno));
			_exit(1);
		}
		/* A socket of the new identity and namespace. */
		pn_open();
		fn();
		_exit(tap_failed() ? 1 : 0);
	}
	ASSERT_SYS(waitpid(pid, &status, 0));
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		tap_fail("the checks in the child failed (status %#x)", status);
}
