// SPDX-License-Identifier: GPL-2.0
/*
 * af_smc: SMC_GEN_NETLINK's SMC-R link group and link dumps
 * (SMC_NETLINK_GET_LGR_SMCR, SMC_NETLINK_GET_LINK_SMCR), from the groups
 * of smcr_lgr.c; the family itself is smc_gnl.c's.
 *
 * The replies are Linux 6.1's (uapi/linux/smc.h, Documentation/netlink.md):
 * one GET_LGR_SMCR message per group; the link dump sends each group's
 * message followed by one GET_LINK_SMCR message per usable link of it, so
 * a reader knows which group a link belongs to. A group and its link go
 * into the same part of a split dump (trimmed off together when they do
 * not fit); the walker resumes at that group, and a dump that spans a
 * group made or freed is marked NLM_F_DUMP_INTR. Only the groups of the
 * requesting socket's namespace are listed (a group's key has its netns):
 * Linux lists every namespace's, with their net cookies.
 *
 * What our groups cannot say as Linux does:
 *   - SMC_NLA_LINK_UID and SMC_NLA_LINK_PEER_UID: a link has one link_uid,
 *     the server's, which the client takes from CONFIRM_LINK; both
 *     attributes carry it (Linux's client keeps its own beside the peer's).
 *   - SMC_NLA_LGR_R_TYPE is derived from the links confirmed and active
 *     now, not kept as a state: SYMMETRIC (two, on two ports of each
 *     end), ASYMMETRIC_LOCAL (two on one port of ours), ASYMMETRIC_PEER
 *     (two on one port of the peer's), SINGLE (one), NONE (none).
 */

#include <net/genetlink.h>
#include <net/netlink.h>
#include <net/sock.h>

#include <linux/smc.h>

#include "smc.h"
#include "smc_gnl.h"
#include "smc_pnet.h"
#include "smcr_lgr.h"

/* Linux's enum smcd_lgr_type and enum smc_link_state values. */
#define SMCR_GNL_LGR_NONE	0
#define SMCR_GNL_LGR_SINGLE	1
#define SMCR_GNL_LGR_SYMMETRIC	2
#define SMCR_GNL_LGR_ASYM_PEER	3	/* the peer has one port, we two */
#define SMCR_GNL_LGR_ASYM_LOCAL	4	/* we have one port, the peer two */
#define SMCR_GNL_LNK_ACTIVATING	2
#define SMCR_GNL_LNK_ACTIVE	3

struct smcr_gnl_ctx {
	struct sk_buff		*skb;
	struct netlink_callback	*cb;
	u64			net_cookie;	/* the requester's netns */
	bool			links;
};

/* A GID as Linux prints it: eight 4-digit groups, no "::" shortening. */
static void smcr_gnl_gid(char buf[40], const union ib_gid *gid)
{
	snprintf(buf, 40, "%04x:%04x:%04x:%04x:%04x:%04x:%04x:%04x",
		 be16_to_cpu(((const __be16 *)gid->raw)[0]),
		 be16_to_cpu(((const __be16 *)gid->raw)[1]),
		 be16_to_cpu(((const __be16 *)gid->raw)[2]),
		 be16_to_cpu(((const __be16 *)gid->raw)[3]),
		 be16_to_cpu(((const __be16 *)gid->raw)[4]),
		 be16_to_cpu(((const __be16 *)gid->raw)[5]),
		 be16_to_cpu(((const __be16 *)gid->raw)[6]),
		 be16_to_cpu(((const __be16 *)gid->raw)[7]));
}

/* Linux lists only links that are or are becoming usable. */
static u32 smcr_gnl_link_state(const struct smcr_link *l)
{
	switch (READ_ONCE(l->state)) {
	case SMCR_LINK_INIT:
		return SMCR_GNL_LNK_ACTIVATING;
	case SMCR_LINK_ACTIVE:
		return SMCR_GNL_LNK_ACTIVE;
	default:
		return 0;
	}
}

static void *smcr_gnl_put(struct smcr_gnl_ctx *c, u8 cmd)
{
	return genlmsg_put(c->skb, NETLINK_CB(c->cb->skb).portid,
			   c->cb->nlh->nlmsg_seq, &smc_gnl_family, NLM_F_MULTI,
			   cmd);
}

/*
 * SMC-Rv2 groups: V2_COMMON (as SMC-D's) and R_V2 with DIRECT and the
 * group's limits (SMC v2.1's agreed ones, or ours; smcr_lgr.h).
 */
static int smcr_gnl_put_lgr_v2(struct sk_buff *skb, const struct smcr_lgr *lgr)
{
	struct nlattr *n;

	if (lgr->key.version < SMC_CLC_V2 || !lgr->v2_peer.known)
		return 0;
	if (smc_gnl_put_lgr_v2(skb, SMC_NLA_LGR_R_V2_COMMON, &lgr->v2_peer))
		return -EMSGSIZE;
	n = nla_nest_start(skb, SMC_NLA_LGR_R_V2);
	if (!n || nla_put_u8(skb, SMC_NLA_LGR_R_V2_DIRECT, lgr->v2_direct) ||
	    nla_put_u8(skb, SMC_NLA_LGR_R_V2_MAX_CONNS, lgr->max_conns) ||
	    nla_put_u8(skb, SMC_NLA_LGR_R_V2_MAX_LINKS, lgr->max_links))
		return -EMSGSIZE;
	nla_nest_end(skb, n);
	return 0;
}

/*
 * SMC_NLA_LGR_R_TYPE: by lgr's usable links and their ports, ours and
 * the peer's (a group has two links at most: the first two compared).
 */
static u8 smcr_gnl_lgr_type(const struct smcr_lgr *lgr)
{
	const struct smcr_link *l, *u[2] = {};
	unsigned int n = 0;
	bool ours, peers;
	int i;

	if (lgr->dead)
		return SMCR_GNL_LGR_NONE;
	smcr_lgr_for_each_link(lgr, l, i) {
		if (!lgr->link_ready[i] || !smcr_link_active(l))
			continue;
		if (n < ARRAY_SIZE(u))
			u[n] = l;
		n++;
	}
	if (n < 2)
		return n ? SMCR_GNL_LGR_SINGLE : SMCR_GNL_LGR_NONE;
	ours = u[0]->dev != u[1]->dev || u[0]->port != u[1]->port;
	peers = memcmp(u[0]->peer.gid.raw, u[1]->peer.gid.raw, sizeof(u[0]->peer.gid.raw));
	if (ours && !peers)
		return SMCR_GNL_LGR_ASYM_PEER;
	if (!ours && peers)
		return SMCR_GNL_LGR_ASYM_LOCAL;
	return SMCR_GNL_LGR_SYMMETRIC;
}

static int smcr_gnl_put_lgr(struct smcr_gnl_ctx *c, const struct smcr_lgr *lgr)
{
	char pnetid[SMC_MAX_PNETID_LEN + 1] = "";
	/*
	 * Every buffer of the group is mapped on every link, so each link
	 * counts them all: the first link's counts are the group's.
	 */
	const struct smcr_link *l = smcr_lgr_first_link(lgr);
	struct sk_buff *skb = c->skb;
	struct nlattr *n;
	void *hdr;

	smc_pnetid_by_ibdev(lgr->key.dev->name, lgr->key.port, pnetid);
	hdr = smcr_gnl_put(c, SMC_NETLINK_GET_LGR_SMCR);
	if (!hdr)
		return -EMSGSIZE;
	genl_dump_check_consistent(c->cb, hdr);
	n = nla_nest_start(skb, SMC_GEN_LGR_SMCR);
	if (!n ||
	    nla_put_u32(skb, SMC_NLA_LGR_R_ID, lgr->id) ||
	    nla_put_u32(skb, SMC_NLA_LGR_R_CONNS_NUM, lgr->conns_num) ||
	    nla_put_u8(skb, SMC_NLA_LGR_R_ROLE, lgr->key.role) ||
	    nla_put_u8(skb, SMC_NLA_LGR_R_TYPE, smcr_gnl_lgr_type(lgr)) ||
	    /* A u8 in Linux too: VLAN ids above 255 are cut, as there. */
	    nla_put_u8(skb, SMC_NLA_LGR_R_VLAN_ID, lgr->key.vlan) ||
	    nla_put_u64_64bit(skb, SMC_NLA_LGR_R_NET_COOKIE,
			      lgr->key.net_cookie, SMC_NLA_LGR_R_PAD) ||
	    nla_put_string(skb, SMC_NLA_LGR_R_PNETID, pnetid) ||
	    smc_gnl_put_uint(skb, SMC_NLA_LGR_R_SNDBUF_ALLOC,
			     READ_ONCE(l->sndbuf_bytes)) ||
	    smc_gnl_put_uint(skb, SMC_NLA_LGR_R_RMB_ALLOC,
			     READ_ONCE(l->rmb_bytes)) ||
	    smcr_gnl_put_lgr_v2(skb, lgr))
		goto cancel;
	nla_nest_end(skb, n);
	genlmsg_end(skb, hdr);
	return 0;
cancel:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

/* lgr's link in slot i. */
static int smcr_gnl_put_link(struct smcr_gnl_ctx *c, const struct smcr_lgr *lgr,
			     int i)
{
	const struct smcr_link *l = lgr->links[i];
	u32 state = smcr_gnl_link_state(l);
	struct sk_buff *skb = c->skb;
	char gid[40], peer_gid[40];
	struct nlattr *n;
	u32 uid;
	void *hdr;

	if (!state)
		return 0;
	smcr_gnl_gid(gid, &l->gid.gid);
	smcr_gnl_gid(peer_gid, &l->peer.gid);
	/* The 4 bytes as they are, read as a host u32: what Linux sends. */
	memcpy(&uid, l->link_uid, sizeof(uid));
	hdr = smcr_gnl_put(c, SMC_NETLINK_GET_LINK_SMCR);
	if (!hdr)
		return -EMSGSIZE;
	n = nla_nest_start(skb, SMC_GEN_LINK_SMCR);
	if (!n ||
	    nla_put_u8(skb, SMC_NLA_LINK_ID, l->link_num) ||
	    nla_put_u32(skb, SMC_NLA_LINK_STATE, state) ||
	    nla_put_u32(skb, SMC_NLA_LINK_CONN_CNT, lgr->link_conns[i]) ||
	    nla_put_u8(skb, SMC_NLA_LINK_IB_PORT, l->port) ||
	    nla_put_u32(skb, SMC_NLA_LINK_NET_DEV, l->gid.ifindex) ||
	    nla_put_string(skb, SMC_NLA_LINK_IB_DEV, l->dev->name) ||
	    nla_put_u32(skb, SMC_NLA_LINK_UID, uid) ||
	    nla_put_u32(skb, SMC_NLA_LINK_PEER_UID, uid) ||
	    nla_put_string(skb, SMC_NLA_LINK_GID, gid) ||
	    nla_put_string(skb, SMC_NLA_LINK_PEER_GID, peer_gid))
		goto cancel;
	nla_nest_end(skb, n);
	genlmsg_end(skb, hdr);
	return 0;
cancel:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

/* Under smcr_lgr_lock (smcr_lgr_for_each): the group holds still. */
static int smcr_gnl_put_group(const struct smcr_lgr *lgr, void *arg)
{
	struct smcr_gnl_ctx *c = arg;
	unsigned int start = c->skb->len;
	const struct smcr_link *l;
	int i;

	if (lgr->key.net_cookie != c->net_cookie)
		return 0;	/* another namespace's */
	if (smcr_gnl_put_lgr(c, lgr))
		goto trim;
	if (c->links) {
		smcr_lgr_for_each_link(lgr, l, i)
			if (smcr_gnl_put_link(c, lgr, i))
				goto trim;
	}
	return 0;
trim:
	/* The group's messages go together, or into the next part. */
	skb_trim(c->skb, start);
	return -EMSGSIZE;
}

static int smcr_gnl_dump(struct sk_buff *skb, struct netlink_callback *cb,
			 bool links)
{
	struct smcr_gnl_ctx c = { .skb = skb, .cb = cb, .links = links,
				  .net_cookie = sock_net(skb->sk)->net_cookie };
	unsigned long pos = cb->args[0];
	int rc;

	cb->seq = smcr_lgr_seq();
	rc = smcr_lgr_for_each(&pos, smcr_gnl_put_group, &c);
	cb->args[0] = pos;
	/* A group that does not fit an empty part cannot be sent at all. */
	if (rc == -EMSGSIZE && skb->len)
		return skb->len;
	return rc ?: skb->len;
}

struct smcr_gnl_dev_count {
	const struct ib_device	*ibdev;
	u64			net_cookie;
	u32			*links;
};

static int smcr_gnl_count_link(const struct smcr_lgr *lgr, void *arg)
{
	struct smcr_gnl_dev_count *c = arg;
	const struct smcr_link *l;
	int i;

	if (lgr->key.net_cookie != c->net_cookie)
		return 0;
	/* Pointers compared only: the device may be going, it is not read. */
	smcr_lgr_for_each_link(lgr, l, i)
		if (l->dev->ibdev == c->ibdev && l->port >= 1 &&
		    l->port <= SMCR_MAX_PORTS && smcr_gnl_link_state(l))
			c->links[l->port - 1]++;
	return 0;
}

void smcr_gnl_dev_links(const struct ib_device *ibdev, u64 net_cookie,
			u32 *links)
{
	struct smcr_gnl_dev_count c = { .ibdev = ibdev,
					.net_cookie = net_cookie,
					.links = links };
	unsigned long pos = 0;

	memset(links, 0, SMCR_MAX_PORTS * sizeof(*links));
	smcr_lgr_for_each(&pos, smcr_gnl_count_link, &c);
}

int smcr_gnl_dump_lgr(struct sk_buff *skb, struct netlink_callback *cb)
{
	return smcr_gnl_dump(skb, cb, false);
}

int smcr_gnl_dump_links(struct sk_buff *skb, struct netlink_callback *cb)
{
	return smcr_gnl_dump(skb, cb, true);
}
