// SPDX-License-Identifier: GPL-2.0
/*
 * af_smc: the handshake policy of a network namespace (see smc_policy.h).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/in.h>
#include <linux/in6.h>
#include <linux/slab.h>
#include <net/genetlink.h>
#include <net/inet_sock.h>
#include <net/ipv6.h>
#include <net/netlink.h>
#include <net/sock.h>

#include "smc_gnl.h"
#include "smc_netns.h"
#include "smc_policy.h"

void smc_policy_init(struct smc_policy_table *t)
{
	mutex_init(&t->lock);
	RCU_INIT_POINTER(t->rules, NULL);
	t->next_id = 1;
	/* Never 0: netlink's dump check takes 0 for "not seen yet". */
	t->gen = 1;
}

/* The namespace is going: nobody reads the table any more. */
void smc_policy_destroy(struct smc_policy_table *t)
{
	kfree(rcu_dereference_protected(t->rules, 1));
	RCU_INIT_POINTER(t->rules, NULL);
}

static struct smc_policy_table *smc_policy_table(const struct net *net)
{
	return &smc_net(net)->policy;
}

/* The prefix length of r in IPv6 terms, over its v4-mapped form. */
static unsigned int smc_policy_plen6(const struct smc_policy_rule *r)
{
	return r->family == AF_INET ? 96 + r->plen : r->plen;
}

static bool smc_policy_addr_matches(const struct smc_policy_rule *r,
				    const struct in6_addr *peer)
{
	if (r->family == AF_UNSPEC)
		return true;
	/* IPv6 rules leave IPv4 peers alone, whatever their prefix. */
	if (r->family == AF_INET6 && ipv6_addr_v4mapped(peer))
		return false;
	return ipv6_prefix_equal(&r->addr, peer, smc_policy_plen6(r));
}

static bool smc_policy_port_matches(const struct smc_policy_rule *r, u16 port)
{
	return port >= r->port_lo && port <= r->port_hi;
}

bool smc_policy_allows(const struct net *net, const struct in6_addr *peer,
		       u16 port)
{
	const struct smc_policy_rules *rules;
	bool allows = true;
	unsigned int i;

	rcu_read_lock();
	rules = rcu_dereference(smc_policy_table(net)->rules);
	for (i = 0; rules && i < rules->n; i++) {
		const struct smc_policy_rule *r = &rules->rule[i];

		if (smc_policy_port_matches(r, port) &&
		    smc_policy_addr_matches(r, peer)) {
			allows = r->action == SMC_POLICY_SMC;
			break;
		}
	}
	rcu_read_unlock();
	return allows;
}

bool smc_policy_excludes_port(const struct net *net, u16 port)
{
	const struct smc_policy_rules *rules;
	bool excludes = false;
	unsigned int i;

	rcu_read_lock();
	rules = rcu_dereference(smc_policy_table(net)->rules);
	for (i = 0; rules && i < rules->n; i++) {
		const struct smc_policy_rule *r = &rules->rule[i];

		if (!smc_policy_port_matches(r, port))
			continue;
		/*
		 * The first rule for the port decides for every client only
		 * if it matches every address; else the Proposal decides.
		 */
		excludes = r->family == AF_UNSPEC &&
			   r->action == SMC_POLICY_TCP;
		break;
	}
	rcu_read_unlock();
	return excludes;
}

bool smc_policy_excludes_addr(const struct net *net,
			      const struct sockaddr *addr, int alen)
{
	const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *)addr;
	const struct sockaddr_in *sin = (const struct sockaddr_in *)addr;
	struct in6_addr peer;

	if (alen >= (int)sizeof(*sin) && addr->sa_family == AF_INET) {
		ipv6_addr_set_v4mapped(sin->sin_addr.s_addr, &peer);
		return !smc_policy_allows(net, &peer, ntohs(sin->sin_port));
	}
	if (alen >= SIN6_LEN_RFC2133 && addr->sa_family == AF_INET6)
		return !smc_policy_allows(net, &sin6->sin6_addr,
					  ntohs(sin6->sin6_port));
	return false;
}

bool smc_policy_excludes_sock(const struct sock *sk)
{
	struct in6_addr peer;

	if (sk->sk_family == AF_INET)
		ipv6_addr_set_v4mapped(inet_sk(sk)->inet_daddr, &peer);
	else
		peer = sk->sk_v6_daddr;
	return !smc_policy_allows(sock_net(sk), &peer,
				  ntohs(inet_sk(sk)->inet_sport));
}

/* ---- SMC_GEN_NETLINK ---- */

const struct nla_policy smc_policy_nl_policy[SMC_NLA_POLICY_MAX + 1] = {
	[SMC_NLA_POLICY_ID]		= { .type = NLA_U32 },
	[SMC_NLA_POLICY_ACTION]		= NLA_POLICY_RANGE(NLA_U8, SMC_POLICY_SMC,
							   SMC_POLICY_TCP),
	[SMC_NLA_POLICY_FAMILY]		= { .type = NLA_U8 },
	[SMC_NLA_POLICY_ADDR]		= { .type = NLA_BINARY,
					    .len = sizeof(struct in6_addr) },
	[SMC_NLA_POLICY_PREFIXLEN]	= NLA_POLICY_MAX(NLA_U8, 128),
	[SMC_NLA_POLICY_PORT_LO]	= { .type = NLA_U16 },
	[SMC_NLA_POLICY_PORT_HI]	= { .type = NLA_U16 },
};

static int smc_policy_put_rule(struct sk_buff *skb,
			       const struct smc_policy_rule *r)
{
	if (nla_put_u32(skb, SMC_NLA_POLICY_ID, r->id) ||
	    nla_put_u8(skb, SMC_NLA_POLICY_ACTION, r->action) ||
	    nla_put_u16(skb, SMC_NLA_POLICY_PORT_LO, r->port_lo) ||
	    nla_put_u16(skb, SMC_NLA_POLICY_PORT_HI, r->port_hi))
		return -EMSGSIZE;
	if (r->family == AF_UNSPEC)
		return 0;
	if (nla_put_u8(skb, SMC_NLA_POLICY_FAMILY, r->family) ||
	    nla_put_u8(skb, SMC_NLA_POLICY_PREFIXLEN, r->plen))
		return -EMSGSIZE;
	if (r->family == AF_INET)
		return nla_put_in_addr(skb, SMC_NLA_POLICY_ADDR,
				       r->addr.s6_addr32[3]);
	return nla_put_in6_addr(skb, SMC_NLA_POLICY_ADDR, &r->addr);
}

/* The rules in order, one message each; a change meanwhile marks it. */
int smc_policy_nl_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct smc_policy_table *t = smc_policy_table(sock_net(skb->sk));
	const struct smc_policy_rules *rules;
	unsigned long pos = cb->args[0];
	void *hdr;

	rcu_read_lock();
	cb->seq = READ_ONCE(t->gen);
	rules = rcu_dereference(t->rules);
	for (; rules && pos < rules->n; pos++) {
		hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid,
				  cb->nlh->nlmsg_seq, &smc_gnl_family,
				  NLM_F_MULTI, SMC_NETLINK_DUMP_POLICY);
		if (!hdr)
			break;
		genl_dump_check_consistent(cb, hdr);
		if (smc_policy_put_rule(skb, &rules->rule[pos])) {
			genlmsg_cancel(skb, hdr);
			break;
		}
		genlmsg_end(skb, hdr);
	}
	rcu_read_unlock();
	cb->args[0] = pos;
	return skb->len;
}

/* A rule from an ADD request; 0 or -EINVAL with the reason in extack. */
static int smc_policy_parse(struct genl_info *info, struct smc_policy_rule *r)
{
	struct netlink_ext_ack *extack = info->extack;
	struct nlattr **tb = info->attrs;
	struct in6_addr masked;
	unsigned int max_plen;
	struct nlattr *a;

	memset(r, 0, sizeof(*r));
	if (GENL_REQ_ATTR_CHECK(info, SMC_NLA_POLICY_ACTION))
		return -EINVAL;
	r->action = nla_get_u8(tb[SMC_NLA_POLICY_ACTION]);
	r->port_lo = tb[SMC_NLA_POLICY_PORT_LO] ?
		     nla_get_u16(tb[SMC_NLA_POLICY_PORT_LO]) : 0;
	r->port_hi = tb[SMC_NLA_POLICY_PORT_HI] ?
		     nla_get_u16(tb[SMC_NLA_POLICY_PORT_HI]) : U16_MAX;
	if (r->port_lo > r->port_hi) {
		NL_SET_ERR_MSG_ATTR(extack, tb[SMC_NLA_POLICY_PORT_HI],
				    "the port range ends before it starts");
		return -EINVAL;
	}
	if (tb[SMC_NLA_POLICY_ID]) {
		NL_SET_ERR_MSG_ATTR(extack, tb[SMC_NLA_POLICY_ID],
				    "the kernel gives rule ids");
		return -EINVAL;
	}
	if (!tb[SMC_NLA_POLICY_FAMILY]) {
		/* Any address: an address or a length would mean nothing. */
		a = tb[SMC_NLA_POLICY_ADDR] ?: tb[SMC_NLA_POLICY_PREFIXLEN];
		if (a) {
			NL_SET_ERR_MSG_ATTR(extack, a,
					    "an address needs its family");
			return -EINVAL;
		}
		r->family = AF_UNSPEC;
		return 0;
	}
	r->family = nla_get_u8(tb[SMC_NLA_POLICY_FAMILY]);
	if (r->family != AF_INET && r->family != AF_INET6) {
		NL_SET_ERR_MSG_ATTR(extack, tb[SMC_NLA_POLICY_FAMILY],
				    "the family is AF_INET or AF_INET6");
		return -EINVAL;
	}
	if (GENL_REQ_ATTR_CHECK(info, SMC_NLA_POLICY_ADDR) ||
	    GENL_REQ_ATTR_CHECK(info, SMC_NLA_POLICY_PREFIXLEN))
		return -EINVAL;
	a = tb[SMC_NLA_POLICY_ADDR];
	max_plen = r->family == AF_INET ? 32 : 128;
	if (nla_len(a) != (r->family == AF_INET ? 4 : 16)) {
		NL_SET_ERR_MSG_ATTR(extack, a,
				    "the address is not as long as its family's");
		return -EINVAL;
	}
	r->plen = nla_get_u8(tb[SMC_NLA_POLICY_PREFIXLEN]);
	if (r->plen > max_plen) {
		NL_SET_ERR_MSG_ATTR(extack, tb[SMC_NLA_POLICY_PREFIXLEN],
				    "the prefix is longer than the address");
		return -EINVAL;
	}
	if (r->family == AF_INET)
		ipv6_addr_set_v4mapped(nla_get_in_addr(a), &r->addr);
	else
		r->addr = nla_get_in6_addr(a);
	/* As ip route: a prefix with host bits set is a typing error. */
	ipv6_addr_prefix(&masked, &r->addr, smc_policy_plen6(r));
	if (!ipv6_addr_equal(&masked, &r->addr)) {
		NL_SET_ERR_MSG_ATTR(extack, a,
				    "the address has bits set past its prefix length");
		return -EINVAL;
	}
	return 0;
}

static bool smc_policy_same(const struct smc_policy_rule *a,
			    const struct smc_policy_rule *b)
{
	return a->family == b->family && a->plen == b->plen &&
	       ipv6_addr_equal(&a->addr, &b->addr) &&
	       a->port_lo == b->port_lo && a->port_hi == b->port_hi;
}

/* Publish next (NULL: no rule) in place of the current rules; t->lock. */
static void smc_policy_publish(struct smc_policy_table *t,
			       struct smc_policy_rules *next)
{
	struct smc_policy_rules *old;

	old = rcu_replace_pointer(t->rules, next, lockdep_is_held(&t->lock));
	WRITE_ONCE(t->gen, t->gen + 1 ?: 1);
	if (old)
		kfree_rcu(old, rcu);
}

int smc_policy_nl_add(struct sk_buff *skb, struct genl_info *info)
{
	struct smc_policy_table *t = smc_policy_table(genl_info_net(info));
	struct smc_policy_rules *cur, *next;
	struct smc_policy_rule r;
	unsigned int i, n;
	int rc;

	rc = smc_policy_parse(info, &r);
	if (rc)
		return rc;
	mutex_lock(&t->lock);
	cur = rcu_dereference_protected(t->rules, lockdep_is_held(&t->lock));
	n = cur ? cur->n : 0;
	for (i = 0; i < n; i++) {
		if (smc_policy_same(&cur->rule[i], &r)) {
			NL_SET_ERR_MSG(info->extack,
				       "a rule for this address and these ports exists");
			rc = -EEXIST;
			goto out;
		}
	}
	if (n >= SMC_POLICY_MAX_RULES) {
		NL_SET_ERR_MSG(info->extack, "the table is full");
		rc = -ENOSPC;
		goto out;
	}
	next = kmalloc(struct_size(next, rule, n + 1), GFP_KERNEL);
	if (!next) {
		rc = -ENOMEM;
		goto out;
	}
	next->n = n + 1;
	if (n)
		memcpy(next->rule, cur->rule, n * sizeof(r));
	r.id = t->next_id++;
	next->rule[n] = r;
	smc_policy_publish(t, next);
out:
	mutex_unlock(&t->lock);
	return rc;
}

int smc_policy_nl_del(struct sk_buff *skb, struct genl_info *info)
{
	struct smc_policy_table *t = smc_policy_table(genl_info_net(info));
	struct smc_policy_rules *cur, *next = NULL;
	unsigned int i, n, at;
	int rc = 0;
	u32 id;

	if (GENL_REQ_ATTR_CHECK(info, SMC_NLA_POLICY_ID))
		return -EINVAL;
	id = nla_get_u32(info->attrs[SMC_NLA_POLICY_ID]);
	mutex_lock(&t->lock);
	cur = rcu_dereference_protected(t->rules, lockdep_is_held(&t->lock));
	n = cur ? cur->n : 0;
	for (at = 0; at < n && cur->rule[at].id != id; at++)
		;
	if (at == n) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[SMC_NLA_POLICY_ID],
				    "no rule has this id");
		rc = -ENOENT;
		goto out;
	}
	if (n > 1) {
		next = kmalloc(struct_size(next, rule, n - 1), GFP_KERNEL);
		if (!next) {
			rc = -ENOMEM;
			goto out;
		}
		next->n = 0;
		for (i = 0; i < n; i++)
			if (i != at)
				next->rule[next->n++] = cur->rule[i];
	}
	smc_policy_publish(t, next);
out:
	mutex_unlock(&t->lock);
	return rc;
}

int smc_policy_nl_flush(struct sk_buff *skb, struct genl_info *info)
{
	struct smc_policy_table *t = smc_policy_table(genl_info_net(info));

	mutex_lock(&t->lock);
	smc_policy_publish(t, NULL);
	mutex_unlock(&t->lock);
	return 0;
}
