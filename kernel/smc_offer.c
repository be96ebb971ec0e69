// SPDX-License-Identifier: GPL-2.0
/*
 * af_smc: choosing what to propose and what to accept.
 *
 * Both answers follow from the devices this host can use for SMC: ISM
 * devices for SMC-D, RoCE ports for SMC-R. The module has no device
 * layer yet, so a client has nothing to propose and declines at once with
 * "no SMC device" (as Linux does when it finds none), and a server
 * declines every Proposal, naming the kind of device the peer asked for.
 */
#include "smc.h"
#include "smc_offer.h"

u32 smc_offer_propose(struct smc_sock *smc, struct smc_clc_proposal *p)
{
	return SMC_CLC_DECL_NOSMCDEV;
}

/* The SMC types a Proposal offers in v1 and in v2, as SMC_CLC_TYPE_*. */
static bool smc_offer_wants_d(const struct smc_clc_proposal *p)
{
	if (p->hdr.version >= SMC_CLC_V2 &&
	    smc_clc_smcd_indicated(p->hdr.typev2))
		return true;
	return smc_clc_smcd_indicated(p->hdr.typev1);
}

static bool smc_offer_wants_r(const struct smc_clc_proposal *p)
{
	if (p->hdr.version >= SMC_CLC_V2 &&
	    smc_clc_smcr_indicated(p->hdr.typev2))
		return true;
	return smc_clc_smcr_indicated(p->hdr.typev1);
}

u32 smc_offer_answer(struct smc_sock *smc, const struct smc_clc_proposal *p)
{
	bool want_d = smc_offer_wants_d(p), want_r = smc_offer_wants_r(p);

	if (want_d && !want_r)
		return p->hdr.version >= SMC_CLC_V2 &&
		       smc_clc_smcd_indicated(p->hdr.typev2) ?
		       SMC_CLC_DECL_NOSMCD2DEV : SMC_CLC_DECL_NOSMCDDEV;
	if (want_r && !want_d)
		return SMC_CLC_DECL_NOSMCRDEV;
	return SMC_CLC_DECL_NOSMCDEV;
}
