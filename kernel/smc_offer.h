/* SPDX-License-Identifier: GPL-2.0 */
/*
 * af_smc: what this host can offer in a CLC Proposal, and what it answers
 * to a peer's (smc_offer.c). The device layers (SMC-D, SMC-R) plug in here.
 */
#ifndef _SMC_OFFER_H
#define _SMC_OFFER_H

#include "smc_clc_io.h"

struct smc_sock;
struct smc_v21;
struct smcd_gid;
struct smcd_ism_dev;

/*
 * Fill *p with an SMC-Dv2 Proposal for smc's connection over every ISM
 * device of ours: 0; else the SMC_CLC_DECL_* code to decline with instead.
 * The server's Accept names the device (smcd_ism_find()).
 */
u32 smc_offer_propose(struct smc_sock *smc, struct smc_clc_proposal *p);

/*
 * The answer to a peer's Proposal: 0, an ISM device of ours it listed
 * (with a reference) with the peer's GID on it, and the EID both share
 * (SMC_CLC_EID_LEN bytes, for the Accept); or the SMC_CLC_DECL_* code of
 * our Decline.
 */
u32 smc_offer_choose(struct smc_sock *smc, const struct smc_clc_proposal *p,
		     struct smcd_ism_dev **ism, struct smcd_gid *peer_gid, u8 *eid);

/*
 * An SMC-Dv2 Accept or Confirm (type) for smc's connection; on first
 * contact its fce has the release v21 names (smc_v21.h).
 */
void smc_offer_fill_smcd(struct smc_sock *smc, u8 type, const u8 *eid,
			 const struct smc_v21 *v21,
			 struct smc_clc_accept_confirm *ac);
void smc_offer_system_eid(u8 eid[SMC_CLC_EID_LEN]);

/*
 * The sender's GID in an SMC-Dv2 Accept or Confirm: gid_ext counts only
 * for an emulated device's CHID, and is 0 for any other, whatever it says.
 */
void smc_offer_peer_gid(const struct smc_clc_accept_confirm *ac,
			struct smcd_gid *gid);

#endif
