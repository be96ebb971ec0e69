// SPDX-License-Identifier: GPL-2.0
/*
 * af_smc: the IP prefix area of CLC Proposals (see smc_prefix.h).
 */
#include <linux/inetdevice.h>
#include <linux/netdevice.h>
#include <net/addrconf.h>
#include <net/if_inet6.h>
#include <net/inet_sock.h>
#include <net/ipv6.h>
#include <net/sock.h>

#include "smc_prefix.h"

bool smc_prefix_conn_ipv4(const struct sock *clcsk)
{
	/*
	 * TCP keeps inet_saddr and an IPv4 route for an AF_INET6 socket
	 * whose peer is v4-mapped, as for AF_INET.
	 */
	return clcsk->sk_family == AF_INET ||
	       ipv6_addr_v4mapped(&clcsk->sk_v6_daddr);
}

static u32 smc_prefix_get4(const struct sock *clcsk, struct net_device *ndev,
			   struct smc_prefix *pfx)
{
	__be32 saddr = inet_sk(clcsk)->inet_saddr;
	struct in_device *in_dev;
	struct in_ifaddr *ifa;
	u32 code = SMC_CLC_DECL_DIFFPREFIX;

	rcu_read_lock();
	in_dev = __in_dev_get_rcu(ndev);
	if (in_dev) {
		in_dev_for_each_ifa_rcu(ifa, in_dev) {
			if (!inet_ifa_match(saddr, ifa))
				continue;
			pfx->subnet = ifa->ifa_local & ifa->ifa_mask;
			pfx->plen = inet_mask_len(ifa->ifa_mask);
			code = 0;
			break;
		}
	}
	rcu_read_unlock();
	return code;
}

static u32 smc_prefix_get6(struct net_device *ndev, struct smc_prefix *pfx)
{
	struct inet6_ifaddr *ifa;
	struct inet6_dev *idev;

	rcu_read_lock();
	idev = __in6_dev_get(ndev);
	if (idev) {
		/* idev->lock guards addr_list; taken as addrconf's readers do */
		read_lock_bh(&idev->lock);
		list_for_each_entry(ifa, &idev->addr_list, if_list) {
			struct smc_clc_ipv6_prefix *e = &pfx->v6[pfx->n6];
			struct in6_addr net;

			if (pfx->n6 == SMC_CLC_MAX_V6_PREFIX)
				break;
			if (ipv6_addr_type(&ifa->addr) & IPV6_ADDR_LINKLOCAL)
				continue;
			ipv6_addr_prefix(&net, &ifa->addr, ifa->prefix_len);
			memcpy(e->prefix, &net, sizeof(e->prefix));
			e->prefix_len = ifa->prefix_len;
			pfx->n6++;
		}
		read_unlock_bh(&idev->lock);
	}
	rcu_read_unlock();
	return pfx->n6 ? 0 : SMC_CLC_DECL_DIFFPREFIX;
}

u32 smc_prefix_get(const struct sock *clcsk, struct net_device *ndev,
		   struct smc_prefix *pfx)
{
	memset(pfx, 0, sizeof(*pfx));
	if (smc_prefix_conn_ipv4(clcsk))
		return smc_prefix_get4(clcsk, ndev, pfx);
	pfx->ipv6 = true;
	return smc_prefix_get6(ndev, pfx);
}

void smc_prefix_propose(const struct smc_prefix *pfx, struct smc_clc_proposal *p)
{
	if (!pfx->ipv6) {
		p->ipv4_subnet = ntohl(pfx->subnet);
		p->ipv4_prefix_len = pfx->plen;
		return;
	}
	/* as Linux: an IPv6 Proposal's IPv4 subnet and length are zero */
	p->ipv6_prefix_cnt = pfx->n6;
	memcpy(p->ipv6_prefix, pfx->v6, pfx->n6 * sizeof(pfx->v6[0]));
}

bool smc_prefix_match(const struct smc_prefix *pfx,
		      const struct smc_clc_proposal *p)
{
	unsigned int i, j;

	if (!pfx->ipv6)
		return ntohl(pfx->subnet) == p->ipv4_subnet &&
		       pfx->plen == p->ipv4_prefix_len;
	/* the peer's count: capped by the decoder, and here again */
	for (i = 0; i < p->ipv6_prefix_cnt && i < SMC_CLC_MAX_V6_PREFIX; i++)
		for (j = 0; j < pfx->n6; j++)
			if (p->ipv6_prefix[i].prefix_len == pfx->v6[j].prefix_len &&
			    !memcmp(p->ipv6_prefix[i].prefix, pfx->v6[j].prefix,
				    sizeof(pfx->v6[j].prefix)))
				return true;
	return false;
}
