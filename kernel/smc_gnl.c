// SPDX-License-Identifier: GPL-2.0
/*
 * af_smc: the SMC_GEN_NETLINK generic netlink family.
 *
 * Commands, attributes and reply layouts are Linux's (uapi/linux/smc.h;
 * Documentation/netlink.md lists each reply). Each part lives with what
 * it reports: the counters in smc_stats.c, the EID table in smc_eid.c;
 * this file has the family, the system information, the devices, the
 * SMC-D link groups and the handshake limitation; the SMC-R link groups
 * and links are smcr_gnl.c's.
 *
 * Dumps show a namespace only what is its own (Documentation/security.md,
 * hole 7): the link groups and links of the netns of the requesting
 * socket, the RDMA devices that netns may use, and device counts of its
 * own connections and links only. Linux lists every namespace's groups.
 *
 * Requests are checked strictly (this is a new family to the netlink
 * core: resv_start_op 0): a command that takes no attribute refuses any,
 * the UEID commands take one NUL-terminated string of at most 32 characters.
 * Reading needs no privilege; changes need CAP_NET_ADMIN over the
 * network namespace of the socket (GENL_UNS_ADMIN_PERM), whose state
 * they change, as for SMC_PNETID (Documentation/decisions.md).
 */

#include <linux/pci.h>
#include <linux/utsname.h>
#include <net/genetlink.h>
#include <net/netlink.h>
#include <net/sock.h>
#include <rdma/ib_verbs.h>

#include <linux/smc.h>

#include "smc.h"
#include "smc_eid.h"
#include "smc_gnl.h"
#include "smcd_ism.h"
#include "smcd_lgr.h"
#include "smc_netns.h"
#include "smc_offer.h"
#include "smc_pnet.h"
#include "smc_policy.h"
#include "smc_stats.h"
#include "smcr_hs.h"
#include "smcr_ib.h"

/* The highest SMC version and release we speak (smc_v21.h). */
#define SMC_GNL_VERSION		2
#define SMC_GNL_RELEASE		SMC_CLC_RELEASE_1
/* RDMA ports SMC-R uses per device, as Linux. */
#define SMC_GNL_MAX_PORTS	2

struct genl_family smc_gnl_family;

static void *smc_gnl_put(struct sk_buff *skb, struct netlink_callback *cb,
			 u8 cmd)
{
	return genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			   &smc_gnl_family, NLM_F_MULTI, cmd);
}

/* ---- SYS_INFO ---- */

static int smc_gnl_dump_sys_info(struct sk_buff *skb, struct netlink_callback *cb)
{
	char host[SMC_MAX_HOSTNAME_LEN + 1], seid[SMC_MAX_EID_LEN + 1];
	bool ism_v2 = smcd_ism_available();
	const char *node;
	struct nlattr *n;
	void *hdr;

	if (cb->args[0])
		return 0;
	/* The host name as the CLC sends it: 32 bytes, blank-padded. */
	memset(host, ' ', SMC_MAX_HOSTNAME_LEN);
	node = init_utsname()->nodename;
	memcpy(host, node, strnlen(node, SMC_MAX_HOSTNAME_LEN));
	host[SMC_MAX_HOSTNAME_LEN] = 0;

	hdr = smc_gnl_put(skb, cb, SMC_NETLINK_GET_SYS_INFO);
	if (!hdr)
		return -EMSGSIZE;
	n = nla_nest_start(skb, SMC_GEN_SYS_INFO);
	if (!n ||
	    nla_put_u8(skb, SMC_NLA_SYS_VER, SMC_GNL_VERSION) ||
	    nla_put_u8(skb, SMC_NLA_SYS_REL, SMC_GNL_RELEASE) ||
	    nla_put_u8(skb, SMC_NLA_SYS_IS_ISM_V2, ism_v2) ||
	    /*
	     * SMC-Rv2 whenever SMC-R is on (smcr=1; smcr_hs.c), as Linux
	     * 6.1 always says 1.
	     */
	    nla_put_u8(skb, SMC_NLA_SYS_IS_SMCR_V2, smcr_hs_enabled()) ||
	    nla_put_string(skb, SMC_NLA_SYS_LOCAL_HOST, host))
		goto cancel;
	if (ism_v2) {
		smc_offer_system_eid((u8 *)seid);
		seid[SMC_MAX_EID_LEN] = 0;
		if (nla_put_string(skb, SMC_NLA_SYS_SEID, seid))
			goto cancel;
	}
	nla_nest_end(skb, n);
	genlmsg_end(skb, hdr);
	cb->args[0] = 1;
	return skb->len;
cancel:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

/* ---- DEV_SMCD, DEV_SMCR ---- */

/* A port nest: its PNET ID from our table, the rest as given. */
static int smc_gnl_put_port(struct sk_buff *skb, int type, const char *name,
			    u8 port, bool rdma, bool active, u32 links)
{
	char pnetid[SMC_MAX_PNETID_LEN + 1] = "";
	bool by_user;
	struct nlattr *n;

	by_user = !smc_pnetid_by_ibdev(name, port, pnetid);
	n = nla_nest_start(skb, type);
	if (!n ||
	    nla_put_u8(skb, SMC_NLA_DEV_PORT_PNET_USR, by_user) ||
	    nla_put_string(skb, SMC_NLA_DEV_PORT_PNETID, pnetid))
		return -EMSGSIZE;
	/*
	 * RDMA ports: the netdev is what ib_core's get_netdev would say,
	 * which it does not export to modules; rxe (the device we can test)
	 * has none in 6.1 either, so 0 like Linux's answer. LNK_CNT: the
	 * SMC-R links on the port.
	 */
	if (rdma &&
	    (nla_put_u32(skb, SMC_NLA_DEV_PORT_NETDEV, 0) ||
	     nla_put_u8(skb, SMC_NLA_DEV_PORT_VALID, 1) ||
	     nla_put_u8(skb, SMC_NLA_DEV_PORT_STATE, active) ||
	     nla_put_u32(skb, SMC_NLA_DEV_PORT_LNK_CNT, links)))
		return -EMSGSIZE;
	nla_nest_end(skb, n);
	return 0;
}

struct smc_gnl_dev_ctx {
	struct sk_buff			*skb;
	struct netlink_callback		*cb;
	struct net			*net;	/* the requester's */
};

/*
 * One ISM device. The loopback device has no PCI function, so its PCI
 * attributes are left out; an ivshmem device has its function's vendor,
 * device and address. The CHID is the device's. The loopback
 * device serves every namespace, so every namespace sees it, but USE_CNT
 * counts the requester's connections only: how busy the device is in
 * another namespace is none of its business.
 */
static int smc_gnl_put_smcd_dev(struct smcd_ism_dev *dev, void *arg)
{
	struct smc_gnl_dev_ctx *c = arg;
	struct sk_buff *skb = c->skb;
	unsigned int use = smcd_lgr_dev_conns(dev, c->net->net_cookie);
	struct nlattr *n;
	void *hdr;

	hdr = smc_gnl_put(skb, c->cb, SMC_NETLINK_GET_DEV_SMCD);
	if (!hdr)
		return -EMSGSIZE;
	n = nla_nest_start(skb, SMC_GEN_DEV_SMCD);
	if (!n ||
	    nla_put_u32(skb, SMC_NLA_DEV_USE_CNT, use) ||
	    nla_put_u8(skb, SMC_NLA_DEV_IS_CRIT, use > 0) ||
	    nla_put_u16(skb, SMC_NLA_DEV_PCI_CHID, dev->chid) ||
	    (dev->pdev &&
	     (nla_put_u16(skb, SMC_NLA_DEV_PCI_VENDOR, dev->pdev->vendor) ||
	      nla_put_u16(skb, SMC_NLA_DEV_PCI_DEVICE, dev->pdev->device) ||
	      nla_put_string(skb, SMC_NLA_DEV_PCI_ID, pci_name(dev->pdev)))) ||
	    smc_gnl_put_port(skb, SMC_NLA_DEV_PORT, dev->name, 0, false, false,
			     0)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, n);
	genlmsg_end(skb, hdr);
	return 0;
}

static int smc_gnl_put_pci(struct sk_buff *skb, struct device *parent)
{
	struct pci_dev *pdev;

	if (!parent || !dev_is_pci(parent))
		return 0;
	pdev = to_pci_dev(parent);
	/* FID and CHID are s390 notions: 0 elsewhere, as in Linux. */
	if (nla_put_u32(skb, SMC_NLA_DEV_PCI_FID, 0) ||
	    nla_put_u16(skb, SMC_NLA_DEV_PCI_CHID, 0) ||
	    nla_put_u16(skb, SMC_NLA_DEV_PCI_VENDOR, pdev->vendor) ||
	    nla_put_u16(skb, SMC_NLA_DEV_PCI_DEVICE, pdev->device) ||
	    nla_put_string(skb, SMC_NLA_DEV_PCI_ID, pci_name(pdev)))
		return -EMSGSIZE;
	return 0;
}

static int smc_gnl_put_smcr_dev(struct ib_device *ibdev, void *arg)
{
	struct smc_gnl_dev_ctx *c = arg;
	struct sk_buff *skb = c->skb;
	const char *name = dev_name(&ibdev->dev);
	u32 links[SMCR_MAX_PORTS];
	struct nlattr *n;
	void *hdr;
	u32 port;

	/*
	 * A device in another namespace (ib_core's exclusive netns mode) is
	 * not listed, as rdma(8) does not list it there.
	 */
	if (!rdma_dev_access_netns(ibdev, c->net))
		return 0;
	/* Under smcr_ib_mutex (smcr_ib_walk), which comes before smcr_lgr_lock. */
	smcr_gnl_dev_links(ibdev, c->net->net_cookie, links);
	hdr = smc_gnl_put(skb, c->cb, SMC_NETLINK_GET_DEV_SMCR);
	if (!hdr)
		return -EMSGSIZE;
	n = nla_nest_start(skb, SMC_GEN_DEV_SMCR);
	if (!n ||
	    /*
	     * Critical: a link group would lose its last link with the
	     * device; each of our groups has one link, so any link counts.
	     */
	    nla_put_u8(skb, SMC_NLA_DEV_IS_CRIT, links[0] || links[1]) ||
	    smc_gnl_put_pci(skb, ibdev->dev.parent) ||
	    nla_put_string(skb, SMC_NLA_DEV_IB_NAME, name))
		goto cancel;
	for (port = rdma_start_port(ibdev);
	     port <= rdma_end_port(ibdev) && port <= SMC_GNL_MAX_PORTS; port++) {
		struct ib_port_attr attr;
		bool active;

		/* May sleep; the device list's mutex is all we hold. */
		active = !ib_query_port(ibdev, port, &attr) &&
			 attr.state == IB_PORT_ACTIVE;
		if (smc_gnl_put_port(skb, SMC_NLA_DEV_PORT + port - 1, name,
				     port, true, active, links[port - 1]))
			goto cancel;
	}
	nla_nest_end(skb, n);
	genlmsg_end(skb, hdr);
	return 0;
cancel:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

/*
 * Device dumps resume at the device index in cb->args[0]; a device that
 * does not fit goes into the next part, unless it is alone in this one.
 */
static int smc_gnl_dev_result(struct sk_buff *skb, int rc)
{
	if (rc == -EMSGSIZE && skb->len)
		return skb->len;
	return rc ?: skb->len;
}

static int smc_gnl_dump_dev_smcd(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct smc_gnl_dev_ctx c = { .skb = skb, .cb = cb,
				     .net = sock_net(skb->sk) };

	return smc_gnl_dev_result(skb, smcd_ism_walk(&cb->args[0],
						    smc_gnl_put_smcd_dev, &c));
}

static int smc_gnl_dump_dev_smcr(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct smc_gnl_dev_ctx c = { .skb = skb, .cb = cb,
				     .net = sock_net(skb->sk) };

	return smc_gnl_dev_result(skb, smcr_ib_walk(&cb->args[0],
						    smc_gnl_put_smcr_dev, &c));
}

/* ---- link groups ---- */

int smc_gnl_put_lgr_v2(struct sk_buff *skb, int attrtype,
		       const struct smc_lgr_peer *p)
{
	struct nlattr *n = nla_nest_start(skb, attrtype);

	if (!n ||
	    nla_put_u8(skb, SMC_NLA_LGR_V2_VER, p->smc_version) ||
	    nla_put_u8(skb, SMC_NLA_LGR_V2_REL, p->release) ||
	    nla_put_u8(skb, SMC_NLA_LGR_V2_OS, p->os) ||
	    nla_put_string(skb, SMC_NLA_LGR_V2_NEG_EID, p->neg_eid) ||
	    nla_put_string(skb, SMC_NLA_LGR_V2_PEER_HOST, p->host))
		return -EMSGSIZE;
	nla_nest_end(skb, n);
	return 0;
}

/*
 * One SMC-D link group, in Linux's attribute order, plus the bytes of
 * send buffers and DMBs it holds (Linux 6.12's SNDBUF_ALLOC and
 * DMB_ALLOC). Runs under the link group lock: nothing here sleeps or
 * allocates.
 */
static int smc_gnl_put_lgr_smcd(const struct smcd_lgr_info *i, void *arg)
{
	struct smc_gnl_dev_ctx *c = arg;
	struct sk_buff *skb = c->skb;
	char pnetid[SMC_MAX_PNETID_LEN + 1] = "";
	struct nlattr *n;
	void *hdr;

	if (i->net_cookie != c->net->net_cookie)
		return 0;	/* another namespace's */
	smc_pnetid_by_ibdev(i->dev_name, 0, pnetid);
	hdr = smc_gnl_put(skb, c->cb, SMC_NETLINK_GET_LGR_SMCD);
	if (!hdr)
		return -EMSGSIZE;
	genl_dump_check_consistent(c->cb, hdr);
	n = nla_nest_start(skb, SMC_GEN_LGR_SMCD);
	if (!n ||
	    nla_put_u32(skb, SMC_NLA_LGR_D_ID, i->id) ||
	    nla_put_u64_64bit(skb, SMC_NLA_LGR_D_GID, i->gid.gid, SMC_NLA_LGR_D_PAD) ||
	    nla_put_u64_64bit(skb, SMC_NLA_LGR_D_PEER_GID, i->peer_gid.gid,
			      SMC_NLA_LGR_D_PAD) ||
	    nla_put_u64_64bit(skb, SMC_NLA_LGR_D_EXT_GID, i->gid.ext,
			      SMC_NLA_LGR_D_PAD) ||
	    nla_put_u64_64bit(skb, SMC_NLA_LGR_D_PEER_EXT_GID, i->peer_gid.ext,
			      SMC_NLA_LGR_D_PAD) ||
	    nla_put_u8(skb, SMC_NLA_LGR_D_VLAN_ID, i->vlan_id) ||
	    nla_put_u32(skb, SMC_NLA_LGR_D_CONNS_NUM, i->conns) ||
	    nla_put_u16(skb, SMC_NLA_LGR_D_CHID, i->chid) ||
	    nla_put_string(skb, SMC_NLA_LGR_D_PNETID, pnetid) ||
	    (i->peer.known &&
	     smc_gnl_put_lgr_v2(skb, SMC_NLA_LGR_D_V2_COMMON, &i->peer)) ||
	    smc_gnl_put_uint(skb, SMC_NLA_LGR_D_SNDBUF_ALLOC, i->sndbuf_bytes) ||
	    smc_gnl_put_uint(skb, SMC_NLA_LGR_D_DMB_ALLOC, i->dmb_bytes)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, n);
	genlmsg_end(skb, hdr);
	return 0;
}

/*
 * The SMC-D link groups of the requester's namespace (Linux lists every
 * namespace's); a dump that spans a group made or freed is marked
 * NLM_F_DUMP_INTR.
 */
static int smc_gnl_dump_lgr_smcd(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct smc_gnl_dev_ctx c = { .skb = skb, .cb = cb,
				     .net = sock_net(skb->sk) };
	unsigned long pos = cb->args[0];
	int rc;

	cb->seq = smcd_lgr_seq();
	rc = smcd_lgr_for_each(&pos, smc_gnl_put_lgr_smcd, &c);
	cb->args[0] = pos;
	return smc_gnl_dev_result(skb, rc);
}

/* ---- HS_LIMITATION: the net.smc.limit_smc_hs sysctl ---- */

static int smc_gnl_dump_hs_limitation(struct sk_buff *skb,
				      struct netlink_callback *cb)
{
	struct smc_net *sn = smc_net(sock_net(skb->sk));
	void *hdr;

	if (cb->args[0])
		return 0;
	hdr = smc_gnl_put(skb, cb, SMC_NETLINK_DUMP_HS_LIMITATION);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_u8(skb, SMC_NLA_HS_LIMITATION_ENABLED,
		       !!READ_ONCE(sn->sysctl_limit_smc_hs))) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	cb->args[0] = 1;
	return skb->len;
}

static int smc_gnl_enable_hs_limitation(struct sk_buff *skb,
					struct genl_info *info)
{
	WRITE_ONCE(smc_net(genl_info_net(info))->sysctl_limit_smc_hs, 1);
	return 0;
}

static int smc_gnl_disable_hs_limitation(struct sk_buff *skb,
					 struct genl_info *info)
{
	WRITE_ONCE(smc_net(genl_info_net(info))->sysctl_limit_smc_hs, 0);
	return 0;
}

/* ---- the family ---- */

static const struct nla_policy smc_gnl_eid_policy[SMC_NLA_EID_TABLE_MAX + 1] = {
	/* As Linux's: over 32 characters is ERANGE; smc_eid.c wants a NUL. */
	[SMC_NLA_EID_TABLE_ENTRY] = { .type = NLA_STRING,
				      .len = SMC_MAX_EID_LEN },
};

#define SMC_GNL_DUMP(c, fn)	{ .cmd = (c), .dumpit = (fn) }
#define SMC_GNL_ADMIN(c, fn)	{ .cmd = (c), .doit = (fn), \
				  .flags = GENL_UNS_ADMIN_PERM }
#define SMC_GNL_ADMIN_EID(c, fn) { .cmd = (c), .doit = (fn), \
				   .flags = GENL_UNS_ADMIN_PERM, \
				   .policy = smc_gnl_eid_policy, \
				   .maxattr = SMC_NLA_EID_TABLE_MAX }
#define SMC_GNL_ADMIN_POLICY(c, fn) { .cmd = (c), .doit = (fn), \
				      .flags = GENL_UNS_ADMIN_PERM, \
				      .policy = smc_policy_nl_policy, \
				      .maxattr = SMC_NLA_POLICY_MAX }

/* Commands without a policy take no attribute at all (resv_start_op 0). */
static const struct genl_ops smc_gnl_ops[] = {
	SMC_GNL_DUMP(SMC_NETLINK_GET_SYS_INFO, smc_gnl_dump_sys_info),
	SMC_GNL_DUMP(SMC_NETLINK_GET_LGR_SMCR, smcr_gnl_dump_lgr),
	SMC_GNL_DUMP(SMC_NETLINK_GET_LINK_SMCR, smcr_gnl_dump_links),
	SMC_GNL_DUMP(SMC_NETLINK_GET_LGR_SMCD, smc_gnl_dump_lgr_smcd),
	SMC_GNL_DUMP(SMC_NETLINK_GET_DEV_SMCD, smc_gnl_dump_dev_smcd),
	SMC_GNL_DUMP(SMC_NETLINK_GET_DEV_SMCR, smc_gnl_dump_dev_smcr),
	SMC_GNL_DUMP(SMC_NETLINK_GET_STATS, smc_stats_nl_dump),
	SMC_GNL_DUMP(SMC_NETLINK_GET_FBACK_STATS, smc_stats_nl_dump_fback),
	SMC_GNL_DUMP(SMC_NETLINK_DUMP_UEID, smc_eid_nl_dump_ueid),
	SMC_GNL_ADMIN_EID(SMC_NETLINK_ADD_UEID, smc_eid_nl_add_ueid),
	SMC_GNL_ADMIN_EID(SMC_NETLINK_REMOVE_UEID, smc_eid_nl_remove_ueid),
	SMC_GNL_ADMIN(SMC_NETLINK_FLUSH_UEID, smc_eid_nl_flush_ueid),
	SMC_GNL_DUMP(SMC_NETLINK_DUMP_SEID, smc_eid_nl_dump_seid),
	SMC_GNL_ADMIN(SMC_NETLINK_ENABLE_SEID, smc_eid_nl_enable_seid),
	SMC_GNL_ADMIN(SMC_NETLINK_DISABLE_SEID, smc_eid_nl_disable_seid),
	SMC_GNL_DUMP(SMC_NETLINK_DUMP_HS_LIMITATION, smc_gnl_dump_hs_limitation),
	SMC_GNL_ADMIN(SMC_NETLINK_ENABLE_HS_LIMITATION, smc_gnl_enable_hs_limitation),
	SMC_GNL_ADMIN(SMC_NETLINK_DISABLE_HS_LIMITATION, smc_gnl_disable_hs_limitation),
	/* af_smc's own (uapi/smc/af_smc.h): the handshake policy. */
	SMC_GNL_DUMP(SMC_NETLINK_DUMP_POLICY, smc_policy_nl_dump),
	SMC_GNL_ADMIN_POLICY(SMC_NETLINK_ADD_POLICY, smc_policy_nl_add),
	SMC_GNL_ADMIN_POLICY(SMC_NETLINK_DEL_POLICY, smc_policy_nl_del),
	SMC_GNL_ADMIN(SMC_NETLINK_FLUSH_POLICY, smc_policy_nl_flush),
	/* af_smc's own: SMC-R's failovers. */
	SMC_GNL_DUMP(SMC_NETLINK_GET_LINK_STATS, smc_stats_nl_dump_links),
};

struct genl_family smc_gnl_family = {
	.name		= SMC_GENL_FAMILY_NAME,
	.version	= SMC_GENL_FAMILY_VERSION,
	.hdrsize	= 0,
	.netnsok	= true,
	.module		= THIS_MODULE,
	.ops		= smc_gnl_ops,
	.n_ops		= ARRAY_SIZE(smc_gnl_ops),
};

/* After smcr_ib_init(): the device dump walks its registry. */
int smc_gnl_init(void)
{
	return genl_register_family(&smc_gnl_family);
}

void smc_gnl_exit(void)
{
	genl_unregister_family(&smc_gnl_family);
}
