// SPDX-License-Identifier: GPL-2.0
/*
 * af_smc: what SMC-Rv2 adds to the SMC-R handshake (smcr_hs.c calls it):
 * the peer's RoCEv2 GID as an IPv4 address, the route to it and the MAC
 * of its next hop, and the CLC v2 parts of the Accept/Confirm.
 *
 * SMC-Rv2 is routable RoCEv2: the peer's GID carries its IP address, and
 * a peer behind a router is reached through the router's MAC, which the
 * CLC cannot tell us. Each side therefore looks the route up itself: no
 * gateway means "direct" (the peer's own MAC, from the CLC, is the
 * destination of our QP's packets); with a gateway, the gateway's MAC
 * from the neighbour table. We never send an ARP request here: the
 * neighbour must be known (NUD_VALID); the TCP connection the handshake
 * runs over has just used the same route, so it is, unless the RoCE GID's
 * address takes another path than TCP's. Then we decline SMC_CLC_DECL_NOROUTE.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/etherdevice.h>
#include <linux/utsname.h>
#include <net/arp.h>
#include <net/neighbour.h>
#include <net/route.h>

#include "smc.h"
#include "smcr_hs.h"
#include "smc_v21.h"
#include "wire/smc_clc.h"

bool smcr_v2_gid_ipv4(const u8 *gid, __be32 *addr)
{
	static const u8 prefix[12] = { [10] = 0xff, [11] = 0xff };

	if (memcmp(gid, prefix, sizeof(prefix)))
		return false;
	memcpy(addr, gid + 12, sizeof(*addr));
	return *addr != 0;
}

int smcr_v2_nexthop(struct net *net, __be32 saddr, __be32 daddr, u8 *mac,
		    bool *gateway)
{
	struct flowi4 fl4 = { .daddr = daddr, .saddr = saddr };
	struct neighbour *n;
	struct rtable *rt;
	__be32 nh;
	int rc = -EHOSTUNREACH;

	rt = ip_route_output_key(net, &fl4);
	if (IS_ERR(rt))
		return PTR_ERR(rt);
	if (rt->rt_type != RTN_UNICAST && rt->rt_type != RTN_LOCAL)
		goto out;
	*gateway = rt->rt_uses_gateway;
	if (rt->rt_type == RTN_LOCAL || (rt->dst.dev->flags & IFF_LOOPBACK)) {
		/* This host: rxe loops back, the peer's own MAC is right. */
		*gateway = false;
		eth_zero_addr(mac);
		rc = 0;
		goto out;
	}
	nh = rt_nexthop(rt, daddr);
	n = __ipv4_neigh_lookup(rt->dst.dev, (__force u32)nh);	/* referenced */
	if (!n)
		goto out;
	if (n->nud_state & NUD_VALID) {
		neigh_ha_snapshot(mac, n, rt->dst.dev);
		rc = is_valid_ether_addr(mac) ? 0 : -EHOSTUNREACH;
	}
	neigh_release(n);
out:
	ip_rt_put(rt);
	return rc;
}

void smcr_v2_fill_fce(struct smc_clc_fce *fce, bool direct,
		      const struct smc_v21 *v21)
{
	const char *host = init_utsname()->nodename;
	size_t n = strnlen(host, SMC_CLC_HOSTNAME_LEN);

	memset(fce, 0, sizeof(*fce));
	fce->v2_direct = direct;
	fce->os_type = SMC_CLC_OS_LINUX;
	smc_v21_fill_fce(v21, true, fce);
	memset(fce->hostname, ' ', sizeof(fce->hostname));
	memcpy(fce->hostname, host, n);
}
