// SPDX-License-Identifier: GPL-2.0
/*
 * af_smc: choosing what to propose and what to accept.
 *
 * Both answers follow from the devices this host can use for SMC: ISM
 * devices for SMC-D, RoCE ports for SMC-R. A client with an ISM device
 * (smc_ism.h) proposes SMC-Dv2 over it; without one it has nothing to
 * propose and declines at once with "no SMC device", as Linux does. The
 * server cannot run SMC-D or SMC-R connections yet, so it declines every
 * Proposal, naming the kind of device the peer asked for.
 */
#include <linux/kernel.h>

#include "smc.h"
#include "smc_ism.h"
#include "smc_offer.h"

/*
 * Our system EID, sent in SMC-Dv2 proposals: an EID is 32 bytes of
 * upper-case text padded with blanks. Peers compare it; the loopback
 * device only ever reaches this very kernel, which always agrees.
 */
static void smc_offer_seid(u8 eid[SMC_CLC_EID_LEN])
{
	char text[SMC_CLC_EID_LEN + 1];
	int n;

	n = scnprintf(text, sizeof(text), "SMC-SYSTEMID-AFSMC-%02X%02X%02X%02X",
		      smc_clc_local_peer_id[0], smc_clc_local_peer_id[1],
		      smc_clc_local_peer_id[2], smc_clc_local_peer_id[3]);
	memset(eid, ' ', SMC_CLC_EID_LEN);
	memcpy(eid, text, n);
}

u32 smc_offer_propose(struct smc_sock *smc, struct smc_clc_proposal *p)
{
	struct smc_ism_dev *ism = smc_ism_first();

	if (!ism)
		return SMC_CLC_DECL_NOSMCDEV;
	memset(p, 0, sizeof(*p));
	p->hdr.type = SMC_CLC_PROPOSAL;
	p->hdr.version = SMC_CLC_V2;
	p->hdr.typev1 = SMC_CLC_TYPE_N;		/* software ISM is v2 only */
	p->hdr.typev2 = SMC_CLC_TYPE_D;
	p->hdr.eyecatcher = SMC_CLC_EC_SMCR;	/* Linux proposes so, R or D */
	p->hdr.trl_eyecatcher = SMC_CLC_EC_SMCR;
	memcpy(p->peer_id, smc_clc_local_peer_id, sizeof(p->peer_id));
	/*
	 * SMC-Dv2 devices go in the SMC-Dv2 extension's list; the SMC-D
	 * area holds only a v1 device and stays zero. Linux 6.1 reads an
	 * absent IP area's prefix count from that area's last GID byte,
	 * so anything else there makes it drop the Proposal unanswered.
	 */
	p->ism_gid_cnt = 1;
	p->ism_dev[0].gid = ism->gid;
	p->ism_dev[0].chid = ism->chid;
	p->release = SMC_CLC_RELEASE_0;
	p->seid = true;
	smc_offer_seid(p->system_eid);
	smc_ism_put(ism);
	return 0;
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
