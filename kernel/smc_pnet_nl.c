// SPDX-License-Identifier: GPL-2.0
/*
 * af_smc: the SMC_PNETID generic netlink family, ABI-identical to Linux
 * 6.1's: family name and version, commands, attributes, policy, reply
 * layout, and the errno of each request (selftests/config/pnet checks all
 * of these against the kernel's own smc module). What we add is an extack
 * message for every refusal, and a warning with a request that is taken
 * but cannot apply yet (a device that does not exist).
 *
 * Requests act on the table of the namespace of the requesting socket.
 * Changes need CAP_NET_ADMIN over that namespace (GENL_UNS_ADMIN_PERM);
 * Linux 6.1 asks for it in the initial user namespace instead
 * (Documentation/decisions.md says why we differ).
 *
 * Reply layout (one message per entry, flag NLM_F_MULTI, command GET):
 *   SMC_PNETID_NAME     the PNET ID
 *   SMC_PNETID_ETHNAME  the network device, or "n/a" for a device entry
 *   SMC_PNETID_IBNAME   the RDMA/ISM device, or "n/a" for a netdev entry
 *   SMC_PNETID_IBPORT   u8: its port, or 255 for a netdev entry
 */
#include <linux/if.h>
#include <linux/string.h>
#include <net/genetlink.h>
#include <net/netlink.h>
#include <rdma/ib_verbs.h>

#include <linux/smc.h>

#include "smc_netns.h"
#include "smc_pnet_table.h"

/* What a netdev entry shows for its absent RDMA port. */
#define SMC_PNET_NO_PORT	0xff

static const struct nla_policy smc_pnet_policy[SMC_PNETID_MAX + 1] = {
	[SMC_PNETID_NAME]	= { .type = NLA_NUL_STRING,
				    .len = SMC_MAX_PNETID_LEN },
	[SMC_PNETID_ETHNAME]	= { .type = NLA_NUL_STRING,
				    .len = IFNAMSIZ - 1 },
	[SMC_PNETID_IBNAME]	= { .type = NLA_NUL_STRING,
				    .len = IB_DEVICE_NAME_MAX - 1 },
	[SMC_PNETID_IBPORT]	= { .type = NLA_U8 },
};

static struct genl_family smc_pnet_family;

/* The largest message one entry needs. */
static size_t smc_pnet_msg_size(void)
{
	return nlmsg_total_size(GENL_HDRLEN +
				nla_total_size(SMC_MAX_PNETID_LEN + 1) +
				nla_total_size(IFNAMSIZ) +
				nla_total_size(IB_DEVICE_NAME_MAX) +
				nla_total_size(sizeof(u8)));
}

static int smc_pnet_put_entry(struct sk_buff *skb, u32 portid, u32 seq,
			      const struct smc_pnetentry *e,
			      struct netlink_callback *cb)
{
	bool eth = e->type == SMC_PNET_ETH;
	void *hdr;

	hdr = genlmsg_put(skb, portid, seq, &smc_pnet_family, NLM_F_MULTI,
			  SMC_PNETID_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (cb)
		genl_dump_check_consistent(cb, hdr);
	if (nla_put_string(skb, SMC_PNETID_NAME, e->pnetid) ||
	    nla_put_string(skb, SMC_PNETID_ETHNAME, eth ? e->eth.name : "n/a") ||
	    nla_put_string(skb, SMC_PNETID_IBNAME, eth ? "n/a" : e->ib.name) ||
	    nla_put_u8(skb, SMC_PNETID_IBPORT, eth ? SMC_PNET_NO_PORT : e->ib.port)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

/* GET as a dump: every entry of the namespace, in the order added. */
static int smc_pnet_nl_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct smc_pnettable *table = smc_pnettable(sock_net(skb->sk));
	struct smc_pnetentry *e;
	long idx = 0;

	rcu_read_lock();
	/* Entries added or removed between two parts mark the dump. */
	cb->seq = READ_ONCE(table->gen);
	list_for_each_entry_rcu(e, &table->entries, list) {
		if (idx < cb->args[0]) {
			idx++;
			continue;
		}
		if (smc_pnet_put_entry(skb, NETLINK_CB(cb->skb).portid,
				       cb->nlh->nlmsg_seq, e, cb))
			break;
		idx++;
	}
	rcu_read_unlock();
	cb->args[0] = idx;
	return skb->len;
}

/* GET with a PNET ID: the entries that have it, in one reply. */
static int smc_pnet_nl_get(struct sk_buff *skb, struct genl_info *info)
{
	struct smc_pnettable *table = smc_pnettable(genl_info_net(info));
	struct nlattr *name = info->attrs[SMC_PNETID_NAME];
	struct smc_pnetentry *e;
	struct sk_buff *msg;
	size_t n = 0;
	int rc = 0;

	if (!name) {
		NL_SET_ERR_MSG(info->extack, "the PNET ID (SMC_PNETID_NAME) is missing");
		NL_SET_ERR_ATTR_MISS(info->extack, NULL, SMC_PNETID_NAME);
		return -EINVAL;
	}
	/* Under the lock, so the count and the entries put agree. */
	mutex_lock(&table->lock);
	list_for_each_entry(e, &table->entries, list)
		n += smc_pnetid_match(e->pnetid, nla_data(name));
	if (!n)
		goto out;	/* no entry: an ack and nothing else, as Linux */
	msg = nlmsg_new(n * smc_pnet_msg_size(), GFP_KERNEL);
	if (!msg) {
		rc = -ENOMEM;
		goto out;
	}
	list_for_each_entry(e, &table->entries, list) {
		if (!smc_pnetid_match(e->pnetid, nla_data(name)))
			continue;
		rc = smc_pnet_put_entry(msg, info->snd_portid, info->snd_seq, e, NULL);
		if (WARN_ON_ONCE(rc))	/* the size above is the bound */
			break;
	}
	mutex_unlock(&table->lock);
	if (rc) {
		nlmsg_free(msg);
		return rc;
	}
	return genlmsg_reply(msg, info);
out:
	mutex_unlock(&table->lock);
	return rc;
}

static int smc_pnet_nl_add(struct sk_buff *skb, struct genl_info *info)
{
	struct netlink_ext_ack *extack = info->extack;
	struct net *net = genl_info_net(info);
	struct nlattr **tb = info->attrs;
	char pnetid[SMC_MAX_PNETID_LEN + 1];
	char ibname[IB_DEVICE_NAME_MAX];
	bool added = false;
	u8 port = 1;
	int rc;

	if (!tb[SMC_PNETID_NAME]) {
		NL_SET_ERR_MSG(extack, "the PNET ID (SMC_PNETID_NAME) is missing");
		NL_SET_ERR_ATTR_MISS(extack, NULL, SMC_PNETID_NAME);
		return -EINVAL;
	}
	if (!smc_pnetid_parse(nla_data(tb[SMC_PNETID_NAME]), pnetid)) {
		NL_SET_ERR_MSG_ATTR(extack, tb[SMC_PNETID_NAME],
				    "a PNET ID is 1 to 16 letters or digits");
		return -EINVAL;
	}
	/*
	 * RDMA and ISM devices are mapped in the initial namespace only;
	 * elsewhere Linux ignores them, so their port is not checked there.
	 * Everything else is checked before the first change, so a refused
	 * request changes nothing.
	 */
	if (net_eq(net, &init_net) && tb[SMC_PNETID_IBNAME] && tb[SMC_PNETID_IBPORT]) {
		port = nla_get_u8(tb[SMC_PNETID_IBPORT]);
		if (port < 1 || port > SMC_PNET_MAX_PORTS) {
			NL_SET_ERR_MSG_ATTR(extack, tb[SMC_PNETID_IBPORT],
					    "the RDMA port must be 1 or 2");
			return -EINVAL;
		}
	}

	if (tb[SMC_PNETID_ETHNAME]) {
		rc = smc_pnet_add_eth(net, pnetid, nla_data(tb[SMC_PNETID_ETHNAME]),
				      extack);
		if (rc && rc != -EEXIST)
			return rc;
		added = !rc;
	}
	if (tb[SMC_PNETID_IBNAME] && !net_eq(net, &init_net)) {
		NL_SET_ERR_MSG_ATTR(extack, tb[SMC_PNETID_IBNAME],
				    "RDMA and ISM devices get PNET IDs in the initial network namespace only");
	} else if (tb[SMC_PNETID_IBNAME]) {
		/* Linux drops blanks around the device name. */
		strscpy(ibname, nla_data(tb[SMC_PNETID_IBNAME]), sizeof(ibname));
		rc = smc_pnet_add_ib(net, pnetid, strim(ibname), port, extack);
		if (rc && rc != -EEXIST)
			return rc;
		added |= !rc;
	}
	if (!tb[SMC_PNETID_ETHNAME] && !tb[SMC_PNETID_IBNAME])
		NL_SET_ERR_MSG(extack,
			       "nothing to map: give a network device (SMC_PNETID_ETHNAME) or an RDMA/ISM device (SMC_PNETID_IBNAME)");
	/* Linux answers EEXIST whenever no entry was added. */
	return added ? 0 : -EEXIST;
}

static int smc_pnet_nl_del(struct sk_buff *skb, struct genl_info *info)
{
	struct smc_pnettable *table = smc_pnettable(genl_info_net(info));
	struct nlattr *name = info->attrs[SMC_PNETID_NAME];

	if (!name) {
		NL_SET_ERR_MSG(info->extack, "the PNET ID (SMC_PNETID_NAME) is missing");
		NL_SET_ERR_ATTR_MISS(info->extack, NULL, SMC_PNETID_NAME);
		return -EINVAL;
	}
	if (!smc_pnet_remove(table, nla_data(name))) {
		NL_SET_ERR_MSG_ATTR(info->extack, name, "no entry has this PNET ID");
		return -ENOENT;
	}
	return 0;
}

static int smc_pnet_nl_flush(struct sk_buff *skb, struct genl_info *info)
{
	smc_pnet_remove(smc_pnettable(genl_info_net(info)), NULL);
	return 0;
}

/*
 * Linux parses these requests leniently (unknown attributes are ignored,
 * a longer integer is taken), and so must we to answer alike.
 */
#define SMC_PNET_VALIDATE	(GENL_DONT_VALIDATE_STRICT | GENL_DONT_VALIDATE_DUMP)

static const struct genl_small_ops smc_pnet_ops[] = {
	{
		/* Reading the table needs no privilege. */
		.cmd		= SMC_PNETID_GET,
		.validate	= SMC_PNET_VALIDATE,
		.doit		= smc_pnet_nl_get,
		.dumpit		= smc_pnet_nl_dump,
	},
	{
		.cmd		= SMC_PNETID_ADD,
		.validate	= SMC_PNET_VALIDATE,
		.flags		= GENL_UNS_ADMIN_PERM,
		.doit		= smc_pnet_nl_add,
	},
	{
		.cmd		= SMC_PNETID_DEL,
		.validate	= SMC_PNET_VALIDATE,
		.flags		= GENL_UNS_ADMIN_PERM,
		.doit		= smc_pnet_nl_del,
	},
	{
		.cmd		= SMC_PNETID_FLUSH,
		.validate	= SMC_PNET_VALIDATE,
		.flags		= GENL_UNS_ADMIN_PERM,
		.doit		= smc_pnet_nl_flush,
	},
};

static struct genl_family smc_pnet_family = {
	.name		= SMCR_GENL_FAMILY_NAME,
	.version	= SMCR_GENL_FAMILY_VERSION,
	.hdrsize	= 0,
	.maxattr	= SMC_PNETID_MAX,
	.policy		= smc_pnet_policy,
	.netnsok	= true,
	.module		= THIS_MODULE,
	.small_ops	= smc_pnet_ops,
	.n_small_ops	= ARRAY_SIZE(smc_pnet_ops),
	/* Old commands: the reserved header byte is not checked, as in 6.1. */
	.resv_start_op	= SMC_PNETID_FLUSH + 1,
};

int smc_pnet_nl_init(void)
{
	return genl_register_family(&smc_pnet_family);
}

void smc_pnet_nl_exit(void)
{
	genl_unregister_family(&smc_pnet_family);
}
