/* SPDX-License-Identifier: GPL-2.0 */
/*
 * af_smc: the handshake policy of a network namespace.
 *
 * An ordered list of at most SMC_POLICY_MAX_RULES rules. A rule matches a
 * peer prefix (or any address) and a range of service ports: the port a
 * server listens on, the port a client connects to. It says whether a
 * matching connection may use SMC (SMC_POLICY_SMC) or stays TCP
 * (SMC_POLICY_TCP). The first rule that matches decides; a connection no
 * rule matches may use SMC, as with no rules at all. An AF_INET rule
 * matches IPv4 peers, also those of AF_INET6 sockets (v4-mapped); an
 * AF_INET6 rule matches IPv6 peers only.
 *
 * Linux 6.19 lets a BPF program take this decision (smc_hs_ctrl); 6.1
 * cannot load one, so the table is set over SMC_GEN_NETLINK with af_smc's
 * own commands (uapi/smc/af_smc.h) and shown by `smcd policy`.
 *
 * Where it is applied (Documentation/handshake-policy.md):
 *  - a client, at connect(): an excluded connection sends its SYN without
 *    the SMC option, and is TCP from the start;
 *  - a server, at each SYN: when the first rule matching the listener's
 *    port matches every address, its answer needs no address, and an
 *    excluded listener leaves the option out of its SYN-ACK;
 *  - a server, at the client's Proposal: other rules need the client's
 *    address, which TCP does not hand the SYN hook; an excluded child
 *    declines with SMC_CLC_DECL_POLICY and both ends go on over TCP.
 * Either way the fallback is counted with reason SMC_CLC_DECL_POLICY.
 *
 * Readers walk an immutable copy of the rules under RCU (the SYN hook runs
 * in softirq); writers replace the copy under the table's mutex.
 */
#ifndef _SMC_POLICY_H
#define _SMC_POLICY_H

#include <linux/in6.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/types.h>
#include <net/netlink.h>

#include <smc/af_smc.h>

struct net;
struct sock;
struct sk_buff;
struct genl_info;
struct netlink_callback;

struct smc_policy_rule {
	struct in6_addr	addr;		/* IPv4 as v4-mapped; host bits 0 */
	u32		id;
	u16		port_lo;	/* host order, inclusive */
	u16		port_hi;
	u8		family;		/* AF_UNSPEC: any address */
	u8		plen;		/* as given: up to 32 for AF_INET */
	u8		action;		/* SMC_POLICY_SMC or SMC_POLICY_TCP */
};

/* One version of the rules; never changed once published. */
struct smc_policy_rules {
	struct rcu_head		rcu;
	unsigned int		n;
	struct smc_policy_rule	rule[];
};

struct smc_policy_table {
	struct mutex			lock;	/* writers */
	struct smc_policy_rules __rcu	*rules;	/* NULL: no rule */
	u32				next_id;
	/* Changes with every change, so a dump can see one happened. */
	unsigned int			gen;
};

void smc_policy_init(struct smc_policy_table *t);
void smc_policy_destroy(struct smc_policy_table *t);

/*
 * May a connection of net with this peer (IPv4 as v4-mapped) and service
 * port (host order) use SMC? Any context.
 */
bool smc_policy_allows(const struct net *net, const struct in6_addr *peer,
		       u16 port);
/*
 * A client's connect() to addr (sockaddr_in or sockaddr_in6, alen bytes):
 * true when the policy keeps it on TCP. An address too short to read is
 * TCP's to refuse: false.
 */
bool smc_policy_excludes_addr(const struct net *net,
			      const struct sockaddr *addr, int alen);
/*
 * A connected TCP socket (a server's child): true when the policy keeps it
 * on TCP, by its peer's address and its local port.
 */
bool smc_policy_excludes_sock(const struct sock *sk);
/*
 * A listener's port: true when the policy keeps every connection to it on
 * TCP whatever the client's address. Softirq (TCP's SYN hook), RCU.
 */
bool smc_policy_excludes_port(const struct net *net, u16 port);

/* SMC_GEN_NETLINK */
extern const struct nla_policy smc_policy_nl_policy[SMC_NLA_POLICY_MAX + 1];
int smc_policy_nl_dump(struct sk_buff *skb, struct netlink_callback *cb);
int smc_policy_nl_add(struct sk_buff *skb, struct genl_info *info);
int smc_policy_nl_del(struct sk_buff *skb, struct genl_info *info);
int smc_policy_nl_flush(struct sk_buff *skb, struct genl_info *info);

#endif /* _SMC_POLICY_H */
