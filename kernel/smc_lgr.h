/* SPDX-License-Identifier: GPL-2.0 */
/*
 * af_smc: what SMC-D and SMC-R link groups have in common.
 *
 * Each transport keeps its own groups (smcd_lgr.h, smcr_lgr.h); they
 * share the role a group has, what an SMCv2 peer said about itself in its
 * first-contact CLC message (reported in SMC_NLA_LGR_*_V2_COMMON), and
 * how long an empty group lingers.
 */
#ifndef _SMC_LGR_H
#define _SMC_LGR_H

#include <linux/types.h>

enum smc_lgr_role {
	SMC_LGR_CLIENT	= 0,	/* the values Linux's netlink reports */
	SMC_LGR_SERVER	= 1,
};

/* From the peer's first-contact CLC message (SMCv2 only). */
struct smc_lgr_peer {
	bool		known;		/* false until that arrived */
	u8		smc_version;	/* 2 */
	u8		os;		/* SMC_CLC_OS_* */
	u8		release;
	char		host[33];	/* NUL-terminated, blanks trimmed */
	char		neg_eid[33];	/* NUL-terminated, blanks trimmed */
};

/*
 * The peer's host name and EID as they came (32 bytes each, blank
 * padded), made printable, since dumps hand them to users.
 */
void smc_lgr_peer_set(struct smc_lgr_peer *p, u8 os, u8 release,
		      const u8 *host, const u8 *eid);

/* Module parameter lgr_linger: seconds an empty group stays (default 10). */
extern unsigned int smc_lgr_linger;

#endif
