/* SPDX-License-Identifier: GPL-2.0 */
/*
 * af_smc: Enterprise IDs (EIDs), per network namespace.
 *
 * SMC-Dv2 peers connect only when they share an EID: the system EID
 * (SEID, smc_offer_system_eid(); offered while enabled) or one of up to
 * SMC_MAX_UEID user EIDs (UEIDs) the administrator defines through
 * SMC_GEN_NETLINK. An EID is 32 bytes of text padded with blanks: upper
 * case letters, digits, '.' and '-', not starting with a blank.
 *
 * Linux keeps one table for the whole system; ours is per namespace, like
 * every other piece of af_smc configuration (Documentation/netlink.md).
 */
#ifndef _SMC_EID_H
#define _SMC_EID_H

#include <linux/smc.h>
#include <linux/spinlock.h>
#include <linux/types.h>

struct net;
struct sk_buff;
struct genl_info;
struct netlink_callback;
struct smc_clc_proposal;

struct smc_eid_table {
	/*
	 * Writers are netlink requests, readers the handshake workers and
	 * dumps; all copy a few bytes, never sleep, so a spinlock. Never
	 * taken from softirq.
	 */
	spinlock_t	lock;
	u8		ueid[SMC_MAX_UEID][SMC_MAX_EID_LEN];	/* in order added */
	unsigned int	ueid_cnt;
	bool		seid_enabled;
};

void smc_eid_table_init(struct smc_eid_table *t);

/* A client's Proposal: our UEIDs, and the SEID flag and value. */
void smc_eid_propose(struct net *net, struct smc_clc_proposal *p);
/*
 * A server: the EID to accept the peer's Proposal with (the SEID when both
 * enabled it and they are equal, else the first of the peer's UEIDs that
 * we have too). true and eid set, or false.
 */
bool smc_eid_match(struct net *net, const struct smc_clc_proposal *p,
		   u8 eid[SMC_MAX_EID_LEN]);

/*
 * SMC-Rv2 (as Linux 6.1): only a UEID counts, never the SEID. The first
 * of the peer's UEIDs that we have too; how many UEIDs we have (a client
 * proposes SMC-Rv2 only with one); whether eid is one of ours.
 */
bool smc_eid_match_ueid(struct net *net, const struct smc_clc_proposal *p,
			u8 eid[SMC_MAX_EID_LEN]);
unsigned int smc_eid_ueid_count(struct net *net);
bool smc_eid_is_ueid(struct net *net, const u8 eid[SMC_MAX_EID_LEN]);

/* SMC_GEN_NETLINK requests (smc_gnl.c registers them). */
int smc_eid_nl_dump_ueid(struct sk_buff *skb, struct netlink_callback *cb);
int smc_eid_nl_add_ueid(struct sk_buff *skb, struct genl_info *info);
int smc_eid_nl_remove_ueid(struct sk_buff *skb, struct genl_info *info);
int smc_eid_nl_flush_ueid(struct sk_buff *skb, struct genl_info *info);
int smc_eid_nl_dump_seid(struct sk_buff *skb, struct netlink_callback *cb);
int smc_eid_nl_enable_seid(struct sk_buff *skb, struct genl_info *info);
int smc_eid_nl_disable_seid(struct sk_buff *skb, struct genl_info *info);

#endif
