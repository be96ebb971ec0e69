/* SPDX-License-Identifier: GPL-2.0 */
/*
 * af_smc: what this host can offer in a CLC Proposal, and what it answers
 * to a peer's (smc_offer.c). The device layers (SMC-D, SMC-R) plug in here.
 */
#ifndef _SMC_OFFER_H
#define _SMC_OFFER_H

#include "smc_clc_io.h"

struct smc_sock;

/*
 * Fill *p with a Proposal for smc's connection. 0 when there is something
 * to propose, else the SMC_CLC_DECL_* code to decline with instead.
 */
u32 smc_offer_propose(struct smc_sock *smc, struct smc_clc_proposal *p);

/*
 * The answer to a peer's Proposal: the SMC_CLC_DECL_* code of our
 * Decline. (Accepting comes with the first device layer.)
 */
u32 smc_offer_answer(struct smc_sock *smc, const struct smc_clc_proposal *p);

#endif
