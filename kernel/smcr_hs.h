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

bool smcr_hs_enabled(void);
/* Whether we take up a peer's Proposal for SMC-R. */
bool smcr_hs_wanted(const struct smc_clc_proposal *p);

/*
 * Client: an SMC-Rv1 Proposal for smc's route into *p and, in *path, the
 * RDMA port (referenced); 0, or the SMC_CLC_DECL_* code to decline with.
 */
u32 smcr_hs_propose(struct smc_sock *smc, struct smc_clc_proposal *p,
		    struct smcr_path *path);
/*
 * Client: the server accepted (msg holds the Accept); bring up the link
 * and end as the server says. 0 when decided, else -errno.
 */
int smcr_hs_connect(struct smc_sock *smc, struct smcr_path *path,
		    struct smc_clc_msg *msg);
/* Server: answer the SMC-R Proposal in msg. 0 when decided, else -errno. */
int smcr_hs_listen(struct smc_sock *nsmc, struct smc_clc_msg *msg);

/*
 * smc is being closed: end the LLC waits of its handshake's link, if it
 * has one now (smc_hs_abort_wait() calls this after it set the abort
 * flag). Process or softirq context; takes spinlocks only.
 */
void smcr_hs_abort(struct smc_sock *smc);

/* debugfs "smcr_hs": counters. */
void smcr_hs_show(struct seq_file *m);

#endif /* _SMCR_HS_H */
