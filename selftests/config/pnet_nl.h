/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pnet_nl.h: SMC_PNETID requests and checks for config/pnet.
 *
 * Every check knows both modules: the errno must be the same for ours and
 * for Linux 6.1's smc.ko; the extack message is ours where we add one, and
 * Linux's own (the policy message, or none) otherwise.
 */
#ifndef SMC_SELFTESTS_PNET_NL_H
#define SMC_SELFTESTS_PNET_NL_H

#include <stddef.h>

#include "genl.h"
#include "smc_module.h"

/* What the netlink core says when an attribute breaks the policy. */
#define PN_POLICY "Attribute failed policy validation"

/* Our extack messages (kernel/smc_pnet*.c). */
#define PN_MISSING	"the PNET ID (SMC_PNETID_NAME) is missing"
#define PN_BAD_ID	"a PNET ID is 1 to 16 letters or digits"
#define PN_BAD_PORT	"the RDMA port must be 1 or 2"
#define PN_NOTHING	"nothing to map: give a network device (SMC_PNETID_ETHNAME) or an RDMA/ISM device (SMC_PNETID_IBNAME)"
#define PN_DUP_ETH	"the network device already has a PNET ID"
#define PN_DUP_IB	"the RDMA or ISM device already has a PNET ID"
#define PN_NO_NETDEV	"no network device of this name in this namespace yet: the entry applies once there is one"
#define PN_NO_IBDEV	"no RDMA device of this name now: the entry applies once there is one (or names an ISM device)"
#define PN_NO_PORT	"the RDMA device has no such port now: the entry applies if it gets one"
#define PN_INIT_NS	"RDMA and ISM devices get PNET IDs in the initial network namespace only"
#define PN_NO_ENTRY	"no entry has this PNET ID"

#define PN_MAX_ENTRIES 1100

struct pn_entry {
	char pnetid[20];
	char eth[20];
	char ib[68];
	int port;
};

/* An expected entry. */
struct pn_want {
	const char *pnetid;
	const char *eth;
	const char *ib;
	int port;
};

struct pn_table {
	int n;
	struct pn_entry e[PN_MAX_ENTRIES];
};

extern enum smc_module pn_module;

/* Open the socket and find the family; ends the case on failure. */
void pn_open(void);
/* A request built from strings; NULL leaves an attribute out, port < 0 too. */
void pn_req(int cmd, const char *name, const char *eth, const char *ib, int port,
	    struct genl_result *res);
/* Send a request built by the caller (malformed ones). */
void pn_send(struct genl_req *r, struct genl_result *res);
void pn_req_init(struct genl_req *r, int cmd, int flags);

/*
 * The answer must be errno err; the extack message ours_msg with af_smc,
 * and with smc.ko none, unless ours_msg is PN_POLICY (the core's, both).
 */
int pn_answer(const char *what, const struct genl_result *r, int err, const char *ours_msg);
/* pn_req + pn_answer, freeing the result. */
int pn_expect(const char *what, int cmd, const char *name, const char *eth,
	      const char *ib, int port, int err, const char *ours_msg);

/* An ADD whose PNET ID attribute is the given bytes (and eth, if any). */
int pn_expect_raw_name(const char *what, const void *name, size_t len, const char *eth,
		       int err, const char *ours_msg);

/* The entries of replies (a dump, or a GET's messages); checks the layout. */
int pn_parse(const struct genl_result *r, struct pn_table *t);
/* The whole table of the caller's namespace. */
void pn_dump(struct pn_table *t);
/* The table must be exactly want[0..n). */
int pn_expect_table(const char *when, const struct pn_want *want, int n);
void pn_flush(void);

/* Run fn in a forked child (in a new netns and/or as another user). */
enum { PN_AS_NOBODY = 1, PN_NEW_NETNS = 2, PN_NEW_USERNS = 4 };
void pn_in_child(int how, void (*fn)(void));

#endif
