// SPDX-License-Identifier: GPL-2.0
/*
 * af_smc: the SMC v2.1 negotiation of release and link group limits
 * (the rules are in smc_v21.h).
 */
#include <linux/kernel.h>
#include <net/net_namespace.h>

#include "smc.h"
#include "smc_netns.h"
#include "smc_v21.h"
#include "wire/smc_clc.h"
#include "wire/smc_decline.h"

/* The highest release we speak. */
#define SMC_V21_RELEASE		SMC_CLC_RELEASE_1

void smc_v21_propose(struct net *net, bool smcr_v2, struct smc_clc_proposal *p,
		     struct smc_v21 *offer)
{
	struct smc_net *sn = smc_net(net);

	memset(offer, 0, sizeof(*offer));
	offer->release = SMC_V21_RELEASE;
	if (smcr_v2) {
		offer->max_conns = READ_ONCE(sn->sysctl_smcr_max_conns_per_lgr);
		offer->max_links = READ_ONCE(sn->sysctl_smcr_max_links_per_lgr);
	}
	p->release = offer->release;
	p->max_conns = offer->max_conns;
	p->max_links = offer->max_links;
}

u32 smc_v21_agree(struct net *net, const struct smc_clc_proposal *p, bool smcr,
		  struct smc_v21 *agreed)
{
	struct smc_net *sn = smc_net(net);

	memset(agreed, 0, sizeof(*agreed));
	agreed->release = min_t(u8, p->release, SMC_V21_RELEASE);
	if (!smcr || agreed->release < SMC_CLC_RELEASE_1)
		return 0;
	/*
	 * The smaller of the client's and ours. Ours is never below the
	 * minimum (the sysctl's range), so a value under it is the
	 * client's: a v2.1 Proposal without limits, which Linux declines.
	 */
	agreed->max_conns = min_t(u8, p->max_conns,
				  READ_ONCE(sn->sysctl_smcr_max_conns_per_lgr));
	if (agreed->max_conns < SMC_V21_CONNS_MIN)
		return SMC_CLC_DECL_MAXCONNERR;
	agreed->max_links = min_t(u8, p->max_links,
				  READ_ONCE(sn->sysctl_smcr_max_links_per_lgr));
	if (agreed->max_links < SMC_V21_LINKS_MIN)
		return SMC_CLC_DECL_MAXLINKERR;
	return 0;
}

u32 smc_v21_check_accept(const struct smc_v21 *offer, bool smcr,
			 const struct smc_clc_fce *fce, struct smc_v21 *agreed)
{
	memset(agreed, 0, sizeof(*agreed));
	if (fce->release > offer->release)
		return SMC_CLC_DECL_RELEASEERR;
	agreed->release = fce->release;
	if (!smcr || agreed->release < SMC_CLC_RELEASE_1)
		return 0;
	/* The server may lower what we offered, never raise it. */
	if (fce->max_conns < SMC_V21_CONNS_MIN || fce->max_conns > offer->max_conns)
		return SMC_CLC_DECL_MAXCONNERR;
	if (fce->max_links < SMC_V21_LINKS_MIN || fce->max_links > offer->max_links)
		return SMC_CLC_DECL_MAXLINKERR;
	agreed->max_conns = fce->max_conns;
	agreed->max_links = fce->max_links;
	return 0;
}

u32 smc_v21_check_confirm(const struct smc_v21 *agreed, bool smcr,
			  const struct smc_clc_fce *fce)
{
	if (fce->release != agreed->release)
		return SMC_CLC_DECL_RELEASEERR;
	if (!smcr || agreed->release < SMC_CLC_RELEASE_1)
		return 0;
	if (fce->max_conns != agreed->max_conns)
		return SMC_CLC_DECL_MAXCONNERR;
	if (fce->max_links != agreed->max_links)
		return SMC_CLC_DECL_MAXLINKERR;
	return 0;
}

void smc_v21_fill_fce(const struct smc_v21 *agreed, bool smcr,
		      struct smc_clc_fce *fce)
{
	fce->release = agreed->release;
	/*
	 * SMC-R's fce always has the 16 bytes after it (zero in v2.0);
	 * SMC-D's only from release 1 on.
	 */
	fce->has_v2x = smcr || agreed->release >= SMC_CLC_RELEASE_1;
	fce->max_conns = agreed->max_conns;
	fce->max_links = agreed->max_links;
}
