// SPDX-License-Identifier: GPL-2.0
/*
 * af_smc: choosing what to propose and what to accept.
 *
 * Both answers follow from the devices this host can use for SMC: ISM
 * devices for SMC-D, RoCE ports for SMC-R. A client with ISM devices
 * (smcd_ism.h) proposes SMC-Dv2 over all of them (up to eight); without
 * one it has nothing to propose and declines at once with "no SMC
 * device", as Linux does. A server accepts SMC-Dv2 over one of its ISM
 * devices that reaches a device the Proposal lists (the loopback device
 * for a peer in this kernel, an ivshmem device for another VM on its
 * region), with an EID in common; otherwise it declines, naming what the
 * peer asked for. SMC-R has no device layer yet.
 */
#include <linux/kernel.h>
#include <linux/utsname.h>

#include "smc.h"
#include "smc_eid.h"
#include "smcd_conn.h"
#include "smcd_ism.h"
#include "smc_offer.h"
#include "smc_v21.h"

/*
 * Our system EID, sent in SMC-Dv2 proposals: an EID is 32 bytes of
 * upper-case text padded with blanks. Peers compare it; the loopback
 * device only ever reaches this very kernel, which always agrees.
 */
void smc_offer_system_eid(u8 eid[SMC_CLC_EID_LEN])
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
	memset(p, 0, sizeof(*p));
	if (!smcd_ism_list(p))
		return SMC_CLC_DECL_NOSMCDEV;
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
	 * (The list is filled above.)
	 */
	/* Our UEIDs, and the SEID while it is enabled. */
	smc_eid_propose(sock_net(&smc->sk), p);
	return 0;
}

/* Whether a Proposal offers SMC-D or SMC-R, in v1 or in v2. */
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

/* An SMC-Dv2 device of ours that the Proposal lists, or the decline code. */
static u32 smc_offer_match_d2(struct smc_sock *smc,
			      const struct smc_clc_proposal *p,
			      struct smcd_ism_dev **ismp, struct smcd_gid *peer_gid,
			      u8 *eid)
{
	struct smc_clc_ism_gid d;
	unsigned int pos = 0;

	if (p->hdr.version < SMC_CLC_V2 ||
	    !smc_clc_smcd_indicated(p->hdr.typev2))
		return SMC_CLC_DECL_NOSMCD2DEV;
	/*
	 * A shared EID: both SEIDs (when both offer theirs) or a UEID of
	 * the peer's that we have too. Unlike Linux 6.1 we also match UEIDs
	 * when the peer does not offer its SEID, which is what disabling
	 * the SEID is for (Documentation/netlink.md).
	 */
	if (!smc_eid_match(sock_net(&smc->sk), p, eid))
		return p->seid || p->eid_cnt ? SMC_CLC_DECL_NOSMCD2DEV :
					       SMC_CLC_DECL_NOSEID;
	while (smc_clc_ism_next(p, &pos, &d)) {
		peer_gid->gid = d.gid;
		peer_gid->ext = d.gid_ext;
		*ismp = smcd_ism_find(peer_gid, d.chid);
		if (*ismp)
			return 0;
	}
	return SMC_CLC_DECL_NOSMCD2DEV;
}

u32 smc_offer_choose(struct smc_sock *smc, const struct smc_clc_proposal *p,
		     struct smcd_ism_dev **ismp, struct smcd_gid *peer_gid, u8 *eid)
{
	bool want_d = smc_offer_wants_d(p), want_r = smc_offer_wants_r(p);
	u32 code;

	*ismp = NULL;
	if (want_d) {
		code = smc_offer_match_d2(smc, p, ismp, peer_gid, eid);
		if (!code)
			return 0;
		if (!want_r)
			return p->hdr.version >= SMC_CLC_V2 &&
			       smc_clc_smcd_indicated(p->hdr.typev2) ?
			       code : SMC_CLC_DECL_NOSMCDDEV;
	}
	/* No SMC-R device layer yet. */
	return want_d ? SMC_CLC_DECL_NOSMCDEV : SMC_CLC_DECL_NOSMCRDEV;
}

void smc_offer_peer_gid(const struct smc_clc_accept_confirm *ac,
			struct smcd_gid *gid)
{
	gid->gid = ac->d.gid;
	gid->ext = smc_clc_chid_emulated(ac->d.chid) ? ac->d.gid_ext : 0;
}

/*
 * Fill an SMC-Dv2 Accept (server) or Confirm (client) for smc's SMC-D
 * connection. First contact says that this side made a new link group
 * for it (smcd_lgr.h); the first-contact extension (fce) goes only then.
 */
void smc_offer_fill_smcd(struct smc_sock *smc, u8 type, const u8 *eid,
			 const struct smc_v21 *v21,
			 struct smc_clc_accept_confirm *ac)
{
	struct smcd_conn *sc = smc->conn.smcd;
	const char *host = init_utsname()->nodename;
	size_t n = strnlen(host, SMC_CLC_HOSTNAME_LEN);

	memset(ac, 0, sizeof(*ac));
	ac->hdr.type = type;
	ac->hdr.version = SMC_CLC_V2;
	ac->hdr.typev1 = SMC_CLC_TYPE_D;
	ac->hdr.typev2 = sc->first_contact ? SMC_CLC_FIRST_CONTACT : 0;
	ac->hdr.eyecatcher = SMC_CLC_EC_SMCD;
	ac->hdr.trl_eyecatcher = SMC_CLC_EC_SMCD;
	ac->d.gid = sc->ism->gid.gid;
	ac->d.gid_ext = sc->ism->gid.ext;
	ac->d.token = sc->rmb.token;
	ac->d.dmbe_idx = 0;
	ac->d.dmbe_size = smcd_conn_size_class(sc);
	ac->d.linkid = smc->conn.lgr_id;
	ac->d.chid = sc->ism->chid;
	memcpy(ac->eid, eid, SMC_CLC_EID_LEN);
	ac->fce.os_type = SMC_CLC_OS_LINUX;
	smc_v21_fill_fce(v21, false, &ac->fce);
	memset(ac->fce.hostname, ' ', sizeof(ac->fce.hostname));
	memcpy(ac->fce.hostname, host, n);
}
