/* SPDX-License-Identifier: GPL-2.0 */
/* af_smc: the SMC_GEN_NETLINK family (smc_gnl.c). */
#ifndef _SMC_GNL_H
#define _SMC_GNL_H

struct genl_family;
extern struct genl_family smc_gnl_family;

struct sk_buff;
struct netlink_callback;
/* smcr_gnl.c: GET_LGR_SMCR and GET_LINK_SMCR. */
int smcr_gnl_dump_lgr(struct sk_buff *skb, struct netlink_callback *cb);
int smcr_gnl_dump_links(struct sk_buff *skb, struct netlink_callback *cb);

int smc_gnl_init(void);
void smc_gnl_exit(void);

#endif
