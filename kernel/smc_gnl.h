/* SPDX-License-Identifier: GPL-2.0 */
/* af_smc: the SMC_GEN_NETLINK family (smc_gnl.c). */
#ifndef _SMC_GNL_H
#define _SMC_GNL_H

#include <net/netlink.h>

struct genl_family;
extern struct genl_family smc_gnl_family;

/*
 * An attribute Linux declares "uint" (NLA_UINT, 6.7 on): 4 bytes while the
 * value fits, else 8. 6.1 has no nla_put_uint(); tools read either size.
 */
static inline int smc_gnl_put_uint(struct sk_buff *skb, int attrtype, u64 v)
{
	u32 v32 = v;

	if (v32 == v)
		return nla_put_u32(skb, attrtype, v32);
	return nla_put(skb, attrtype, sizeof(v), &v);
}

struct sk_buff;
struct netlink_callback;
struct smc_lgr_peer;
/*
 * SMC_NLA_LGR_{D,R}_V2_COMMON (attrtype): what an SMCv2 peer said about
 * itself, the same nest for both transports' groups.
 */
int smc_gnl_put_lgr_v2(struct sk_buff *skb, int attrtype,
		       const struct smc_lgr_peer *p);
/* smcr_gnl.c: GET_LGR_SMCR and GET_LINK_SMCR. */
int smcr_gnl_dump_lgr(struct sk_buff *skb, struct netlink_callback *cb);
int smcr_gnl_dump_links(struct sk_buff *skb, struct netlink_callback *cb);
/*
 * The usable links (active or activating) on each port (index port - 1)
 * of ibdev in groups of the netns net_cookie names, for DEV_SMCR. Takes
 * smcr_lgr_lock: the caller may hold smcr_ib_mutex (that order), nothing
 * of smcr_lgr.c.
 */
struct ib_device;
void smcr_gnl_dev_links(const struct ib_device *ibdev, u64 net_cookie,
			u32 *links);

int smc_gnl_init(void);
void smc_gnl_exit(void);

#endif
