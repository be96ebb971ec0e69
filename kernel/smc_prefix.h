/* SPDX-License-Identifier: GPL-2.0 */
/*
 * af_smc: the IP prefix area of a CLC Proposal (RFC 7609, 3.3.4.1): which
 * subnet (IPv4) or prefixes (IPv6) a side's end of the TCP connection is
 * on, and whether the peer's Proposal names one of ours. SMC-Rv1 requires
 * both peers on one subnet; this is where that is decided.
 *
 * IPv4 (also an AF_INET6 socket whose connection is v4-mapped): the subnet
 * of the interface address that is the connection's source address.
 * IPv6: every prefix of the interface's addresses that are not link-local
 * (at most SMC_CLC_MAX_V6_PREFIX, as many as a Proposal carries); the
 * prefixes match when the two lists share one (address and length).
 */
#ifndef _SMC_PREFIX_H
#define _SMC_PREFIX_H

#include <linux/types.h>

#include "wire/smc_clc.h"
#include "wire/smc_decline.h"

struct net_device;
struct sock;

struct smc_prefix {
	bool	ipv6;
	__be32	subnet;		/* IPv4 */
	u8	plen;		/* IPv4 */
	u8	n6;		/* IPv6: entries of v6[] */
	struct smc_clc_ipv6_prefix v6[SMC_CLC_MAX_V6_PREFIX];
};

/* Whether clcsk's connection runs over IPv4 (AF_INET or v4-mapped). */
bool smc_prefix_conn_ipv4(const struct sock *clcsk);

/*
 * The prefixes of ndev for clcsk's connection into *pfx: 0, or
 * SMC_CLC_DECL_DIFFPREFIX when ndev has none that qualifies.
 */
u32 smc_prefix_get(const struct sock *clcsk, struct net_device *ndev,
		   struct smc_prefix *pfx);

/* The prefix area of Proposal p from *pfx. */
void smc_prefix_propose(const struct smc_prefix *pfx, struct smc_clc_proposal *p);

/* Whether Proposal p names a subnet or prefix of ours (*pfx). */
bool smc_prefix_match(const struct smc_prefix *pfx,
		      const struct smc_clc_proposal *p);

#endif /* _SMC_PREFIX_H */
