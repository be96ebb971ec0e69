/* SPDX-License-Identifier: GPL-2.0 */
/*
 * af_smc: the SMC-Rv1 first-contact handshake, link bring-up only
 * (smcr_hs.c; off unless the module parameter smcr_probe is set).
 */
#ifndef _SMCR_HS_H
#define _SMCR_HS_H

#include <linux/types.h>

struct seq_file;
struct smc_sock;
struct smc_clc_msg;
struct smc_clc_proposal;
struct smcr_path;
struct smc_clc_fce;
struct smc_v21;
struct net;

bool smcr_hs_enabled(void);
/* Whether we take up a peer's Proposal for SMC-R. */
bool smcr_hs_wanted(const struct smc_clc_proposal *p);

/*
 * Client: add SMC-R for smc's route to Proposal *p (SMC-Rv1, and SMC-Rv2
 * with a UEID), which is either all zero or offers SMC-Dv2 already
 * (smc_offer_propose); the RDMA port in *path (referenced). 0, or the
 * SMC_CLC_DECL_* code to decline with (*p is then as it was).
 */
u32 smcr_hs_propose(struct smc_sock *smc, struct smc_clc_proposal *p,
		    struct smcr_path *path);
/* Whether Proposal p offers SMC-Rv2. */
bool smcr_hs_proposed_v2(const struct smc_clc_proposal *p);
/*
 * Client: the server accepted (msg holds the Accept); bring up the link
 * and end as the server says. v2: our Proposal offered SMC-Rv2; offer:
 * its SMC v2.1 part. 0 when decided, else -errno.
 */
int smcr_hs_connect(struct smc_sock *smc, struct smcr_path *path,
		    struct smc_clc_msg *msg, bool v2, const struct smc_v21 *offer);
/* Server: answer the SMC-R Proposal in msg. 0 when decided, else -errno. */
int smcr_hs_listen(struct smc_sock *nsmc, struct smc_clc_msg *msg);

/*
 * smc is being closed: end the LLC waits of its handshake's link, if it
 * has one now (smc_hs_abort_wait() calls this after it set the abort
 * flag). Process or softirq context; takes spinlocks only.
 */
void smcr_hs_abort(struct smc_sock *smc);

/* smcr_v2.c: SMC-Rv2's additions. */
/* The IPv4 address of an IPv4-mapped GID; false if it is none. */
bool smcr_v2_gid_ipv4(const u8 *gid, __be32 *addr);
/*
 * The route from saddr to daddr: whether it uses a gateway, and the MAC
 * of its next hop from the neighbour table (zero when daddr is local).
 * 0, or -errno when there is no route or the next hop's MAC is unknown.
 */
int smcr_v2_nexthop(struct net *net, __be32 saddr, __be32 daddr, u8 *mac,
		    bool *gateway);
/* The first contact extension of an SMC-Rv2 Accept/Confirm (smc_v21.h). */
void smcr_v2_fill_fce(struct smc_clc_fce *fce, bool direct,
		      const struct smc_v21 *v21);

/* debugfs "smcr_hs": counters. */
void smcr_hs_show(struct seq_file *m);

#endif /* _SMCR_HS_H */
