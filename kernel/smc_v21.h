/* SPDX-License-Identifier: GPL-2.0 */
/*
 * af_smc: what SMC v2.1 negotiates in the CLC handshake (smc_v21.c).
 *
 * Three values, agreed once per link group, on first contact:
 *   release    the SMC release both ends speak: the client's Proposal
 *              offers its highest (v2 extension), the server's Accept
 *              names the lower of the two, the client's Confirm repeats
 *              it (first contact extension of both);
 *   max_conns  SMC-Rv2 at release 1 only: connections per link group,
 *   max_links  links per link group. The Proposal offers the client's
 *              net.smc.smcr_max_conns_per_lgr / smcr_max_links_per_lgr,
 *              the Accept names the smaller of each and the server's
 *              sysctl, the Confirm repeats them.
 * A v2.0 peer (Linux before 6.8, Debian's 6.1 smc.ko) offers or answers
 * release 0 and no limits; the group is then a v2.0 one, bound by our own
 * sysctls. SMC-D at release 1 carries the 16 bytes after the first
 * contact extension, with no limits in them (Linux does the same).
 *
 * Where a peer breaks the rules (an Accept above what we offered, a limit
 * out of range, a Confirm that does not repeat the Accept) we decline
 * with the code of what failed; Documentation/decisions.md says why the
 * client checks against its own offer, which Linux does not.
 */
#ifndef _SMC_V21_H
#define _SMC_V21_H

#include <linux/types.h>

struct net;
struct smc_clc_proposal;
struct smc_clc_fce;

/* The ranges of the two limits (and of their net.smc sysctls). */
#define SMC_V21_LINKS_MIN	1
#define SMC_V21_LINKS_MAX	2
#define SMC_V21_CONNS_MIN	16
#define SMC_V21_CONNS_MAX	255

struct smc_v21 {
	u8	release;	/* SMC_CLC_RELEASE_* */
	u8	max_conns;	/* SMC-R at release 1; else 0 */
	u8	max_links;	/* SMC-R at release 1; else 0 */
};

/*
 * Client: our offer into Proposal p (which must have its v2 extension to
 * carry it): our highest release, and net's limits when p offers
 * SMC-Rv2. *offer keeps it for the Accept.
 */
void smc_v21_propose(struct net *net, bool smcr_v2, struct smc_clc_proposal *p,
		     struct smc_v21 *offer);
/*
 * Server: what we answer Proposal p with for SMC-Rv2 (smcr) or SMC-Dv2.
 * 0 and *agreed filled, or the decline code.
 */
u32 smc_v21_agree(struct net *net, const struct smc_clc_proposal *p, bool smcr,
		  struct smc_v21 *agreed);
/*
 * Client: check a first-contact Accept's fce against our offer. 0 and
 * *agreed filled (what our Confirm repeats), or the decline code.
 */
u32 smc_v21_check_accept(const struct smc_v21 *offer, bool smcr,
			 const struct smc_clc_fce *fce, struct smc_v21 *agreed);
/* Server: does a first-contact Confirm's fce repeat our Accept? 0 or the code. */
u32 smc_v21_check_confirm(const struct smc_v21 *agreed, bool smcr,
			  const struct smc_clc_fce *fce);
/* The release and limits of an Accept's or Confirm's fce. */
void smc_v21_fill_fce(const struct smc_v21 *agreed, bool smcr,
		      struct smc_clc_fce *fce);

#endif /* _SMC_V21_H */
