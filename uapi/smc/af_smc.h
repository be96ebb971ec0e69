/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * Socket-level constants of AF_SMC that Linux does not export in a uapi header
 * (glibc's <sys/socket.h> has AF_SMC; the protocol numbers live only in the
 * kernel's private net/smc/smc.h and in af_smc(7)).
 */
#ifndef _UAPI_SMC_AF_SMC_H
#define _UAPI_SMC_AF_SMC_H

#ifndef AF_SMC
#define AF_SMC 43
#endif
#ifndef PF_SMC
#define PF_SMC AF_SMC
#endif

/* The "protocol" argument of socket(AF_SMC, SOCK_STREAM, protocol). */
#define SMCPROTO_SMC	0	/* address format of AF_INET */
#define SMCPROTO_SMC6	1	/* address format of AF_INET6 */

/*
 * The "protocol" argument of socket(AF_INET or AF_INET6, SOCK_STREAM,
 * protocol) that makes an SMC socket looking like an inet one (Linux
 * 6.11's IPPROTO_SMC; <linux/in.h> has it from 6.11 on).
 */
#ifndef IPPROTO_SMC
#define IPPROTO_SMC	256
#endif

/*
 * af_smc's own SMC_GEN_NETLINK commands: the handshake policy of a network
 * namespace (Documentation/handshake-policy.md) and, below, SMC-R's link
 * failover statistics. Linux numbers its commands from 1 up (18 in 6.1,
 * the same in 6.19); ours sit at the top of the 8-bit command space so
 * that Linux's next ones cannot meet them. The dumps need no privilege;
 * the others need CAP_NET_ADMIN over the netns.
 */
#define SMC_NETLINK_DUMP_POLICY		0xf0	/* one message per rule */
#define SMC_NETLINK_ADD_POLICY		0xf1	/* append a rule */
#define SMC_NETLINK_DEL_POLICY		0xf2	/* SMC_NLA_POLICY_ID */
#define SMC_NETLINK_FLUSH_POLICY	0xf3	/* no attribute */

/* Attributes of a rule (top level in each message). */
enum {
	SMC_NLA_POLICY_UNSPEC,
	SMC_NLA_POLICY_ID,		/* u32, given by the kernel */
	SMC_NLA_POLICY_ACTION,		/* u8, SMC_POLICY_* */
	SMC_NLA_POLICY_FAMILY,		/* u8: AF_INET, AF_INET6; absent: any */
	SMC_NLA_POLICY_ADDR,		/* 4 or 16 bytes, network order */
	SMC_NLA_POLICY_PREFIXLEN,	/* u8 */
	SMC_NLA_POLICY_PORT_LO,		/* u16, host order; absent: 0 */
	SMC_NLA_POLICY_PORT_HI,		/* u16, host order; absent: 65535 */
	__SMC_NLA_POLICY_MAX,
	SMC_NLA_POLICY_MAX = __SMC_NLA_POLICY_MAX - 1
};

/* What a matching connection does. */
#define SMC_POLICY_SMC	1	/* may use SMC (as with no rule) */
#define SMC_POLICY_TCP	2	/* stays TCP, from the SYN on where it can */

/* Rules a namespace may hold. */
#define SMC_POLICY_MAX_RULES	64

/*
 * SMC-R link failover statistics of the caller's network namespace, which
 * Linux's SMC_NETLINK_GET_STATS has no attribute for (Documentation/
 * netlink.md). A dump of one message, attributes at the top level; no
 * privilege needed, as for Linux's statistics. Counters since the module
 * was loaded (or the namespace made); "smcr stats reset" keeps its own
 * snapshot, as for the others.
 */
#define SMC_NETLINK_GET_LINK_STATS	0xf4

enum {
	SMC_NLA_LINK_STATS_UNSPEC,
	SMC_NLA_LINK_STATS_PAD,
	SMC_NLA_LINK_STATS_FAILOVERS,	/* u64: connections moved to another link */
	SMC_NLA_LINK_STATS_RESENT,	/* u64: bytes those moves wrote again */
	__SMC_NLA_LINK_STATS_MAX,
	SMC_NLA_LINK_STATS_MAX = __SMC_NLA_LINK_STATS_MAX - 1
};

#endif /* _UAPI_SMC_AF_SMC_H */
