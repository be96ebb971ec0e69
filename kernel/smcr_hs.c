// SPDX-License-Identifier: GPL-2.0
/*
 * af_smc: the SMC-R handshake (client and server), v1 and v2, first
 * contact and not, up to an SMC-R connection (Documentation/smc-r.md,
 * "The handshake (SMC-Rv1)" and "SMC-Rv2").
 *
 * With the module parameter smcr=1 (off by default; smcr_probe=1 is the
 * same switch under its old name), a client with no ISM device but an
 * RDMA port for its route's netdev (smcr_ib_find) proposes SMC-Rv1: its
 * GID, MAC and IP prefixes (smc_prefix.c; IPv4 or IPv6). A server with a
 * port for its side of the connection, on the same subnet, joins the usable link group to
 * that peer or makes a new one with a new link (first contact), gives the
 * connection its RMB and send buffer, and answers with an Accept carrying
 * its QP number, PSN, MTU, GID, MAC and the connection's RMB rkey,
 * address, size and alert token. The client, on first contact, makes its
 * group and link and brings the link to RTS; otherwise it joins its
 * group whose link goes to the QP the Accept names. It sends the Confirm
 * with the same data of its own. On first contact the server then brings
 * its link to RTS and sends LLC CONFIRM_LINK over the QP, which the
 * client answers. Both sides then use SMC-R.
 *
 * SMC-Rv2 (routable RoCEv2) is the same exchange with CLC v2 messages: a
 * client with a UEID offers it next to v1, with its GID again in the v2
 * extension; a server takes it when a UEID is shared and the route to the
 * client's GID has a known next hop (smcr_v2.c), else v1. The Accept and
 * Confirm add the negotiated EID, on first contact the first contact
 * extension and (Confirm) the GID list; the group's link then speaks LLC
 * with the v2 header, and its QP sends to the route's next hop.
 *
 * After its Confirm the client never declines: the server alone decides
 * how a first contact ends (a failed link step: Decline), and the client
 * waits (bounded) for that word when its link was not confirmed, so no
 * two Declines ever cross in the stream.
 *
 * A socket closed in the middle (or its listener) must not wait for the
 * LLC bounds: while a handshake has a new link it is on smcr_hs_running,
 * and smcr_hs_abort() ends that link's LLC waits. The entry lives on the
 * handshake's stack and leaves the list, under smcr_hs_lock, before the
 * handshake lets go of the group, so the walker never sees a freed link.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/etherdevice.h>
#include <linux/inetdevice.h>
#include <linux/log2.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/seq_file.h>
#include <net/addrconf.h>
#include <net/inet_sock.h>
#include <net/ipv6.h>
#include <net/sock.h>

#include "smc.h"
#include "smc_clc_io.h"
#include "smc_eid.h"
#include "smc_mem.h"
#include "smc_netns.h"
#include "smc_prefix.h"
#include "smcr_hs.h"
#include "smcr_ib.h"
#include "smcr_lgr.h"
#include "smcr_link.h"
#include "smc_v21.h"

static bool smcr_on;
module_param_named(smcr, smcr_on, bool, 0444);
MODULE_PARM_DESC(smcr, "SMC-R (v1, and v2 with a UEID): propose and accept it (off by default)");
/* The name of the days before the data path; the same switch. */
module_param_named(smcr_probe, smcr_on, bool, 0444);
MODULE_PARM_DESC(smcr_probe, "old name of smcr");

/*
 * SMC-Rv1 may be switched off (SMC-Rv2 only): a client then proposes
 * SMC-Rv2 alone, and a server takes up no SMC-Rv1 offer.
 */
static bool smcr_v1_on = true;
module_param_named(smcr_v1, smcr_v1_on, bool, 0644);
MODULE_PARM_DESC(smcr_v1, "SMC-Rv1 proposed and accepted (default on); off: SMC-Rv2 only");

/*
 * Test plumbing: the server waits this long (ms, at most 10 s) before
 * its CONFIRM_LINK, so a test can close the client while it waits for it.
 */
static unsigned int smcr_probe_confirm_delay_ms;
module_param(smcr_probe_confirm_delay_ms, uint, 0644);
MODULE_PARM_DESC(smcr_probe_confirm_delay_ms,
		 "tests only: delay of the probe server's LLC CONFIRM_LINK, ms (max 10000)");

/* A handshake with a link: smc and its link, on smcr_hs_running. */
struct smcr_hs_op {
	struct list_head	list;
	struct smc_sock		*smc;
	struct smcr_link	*link;
};

/* Few at a time (one per handshake in flight): a list is enough. */
static LIST_HEAD(smcr_hs_running);
static DEFINE_SPINLOCK(smcr_hs_lock);	/* the list; taken with bh off */

/*
 * Publish op; if the socket was aborted before (the flag is set before
 * smcr_hs_abort() takes the lock, so either it sees op or we see the
 * flag), end the link's waits ourselves.
 */
static void smcr_hs_op_start(struct smcr_hs_op *op, struct smc_sock *smc,
			     struct smcr_link *l)
{
	op->smc = smc;
	op->link = l;
	spin_lock_bh(&smcr_hs_lock);
	list_add(&op->list, &smcr_hs_running);
	spin_unlock_bh(&smcr_hs_lock);
	if (test_bit(SMC_F_HS_ABORT, &smc->flags))
		smcr_link_abort_waits(l);
}

static void smcr_hs_op_end(struct smcr_hs_op *op)
{
	spin_lock_bh(&smcr_hs_lock);
	list_del(&op->list);
	spin_unlock_bh(&smcr_hs_lock);
}

void smcr_hs_abort(struct smc_sock *smc)
{
	struct smcr_hs_op *op;

	spin_lock_bh(&smcr_hs_lock);
	list_for_each_entry(op, &smcr_hs_running, list)
		if (op->smc == smc)
			smcr_link_abort_waits(op->link);
	spin_unlock_bh(&smcr_hs_lock);
	/* Nor its wait for another first contact to the same peer. */
	smcr_lgr_first_wake();
}

static atomic_t smcr_hs_confirmed_client = ATOMIC_INIT(0);
static atomic_t smcr_hs_confirmed_server = ATOMIC_INIT(0);
static atomic_t smcr_hs_failed = ATOMIC_INIT(0);
static atomic_t smcr_hs_n_v2_client = ATOMIC_INIT(0);	/* SMC-Rv2 connections */
static atomic_t smcr_hs_n_v2_server = ATOMIC_INIT(0);
/* CLC exchanges that agreed on SMC-Rv2, whether the link then came up or not */
static atomic_t smcr_hs_n_v2_agreed = ATOMIC_INIT(0);

/* What an SMC-Rv2 handshake adds: the EID both share, the route's kind. */
struct smcr_hs_v2 {
	bool	on;
	bool	direct;			/* no gateway between the peers */
	u8	eid[SMC_CLC_EID_LEN];
	struct smc_v21 v21;		/* first contact: release and limits */
};

bool smcr_hs_enabled(void)
{
	return READ_ONCE(smcr_on);
}

bool smcr_hs_wanted(const struct smc_clc_proposal *p)
{
	if (!smcr_hs_enabled())
		return false;
	return smc_clc_smcr_indicated(p->hdr.typev1) ||
	       (p->hdr.version >= SMC_CLC_V2 &&
		smc_clc_smcr_indicated(p->hdr.typev2));
}

void smcr_hs_show(struct seq_file *m)
{
	seq_printf(m, "smcr %d confirmed_client %d confirmed_server %d failed %d v2_client %d v2_server %d v2_agreed %d smcr_v1 %d\n",
		   smcr_hs_enabled(), atomic_read(&smcr_hs_confirmed_client),
		   atomic_read(&smcr_hs_confirmed_server),
		   atomic_read(&smcr_hs_failed),
		   atomic_read(&smcr_hs_n_v2_client),
		   atomic_read(&smcr_hs_n_v2_server),
		   atomic_read(&smcr_hs_n_v2_agreed), READ_ONCE(smcr_v1_on));
}

/*
 * The netdev of smc's clcsock's route (referenced), or NULL. A connection
 * between two addresses of one netdev of this host is routed over lo; its
 * RDMA port is that netdev's: both ends use the port, and rxe loops RoCE
 * back inside the device (the destination MAC is its own). Addresses on
 * two netdevs get no SMC-R over lo: RoCE sent to a local address of
 * another netdev comes in on lo, which no RDMA device serves.
 */
static struct net_device *smcr_hs_route_dev(struct sock *clcsk)
{
	struct net_device *dev = NULL, *ddev;
	struct net *net = sock_net(clcsk);
	struct dst_entry *dst;

	dst = sk_dst_get(clcsk);
	if (!dst)
		return NULL;
	if (!dst->dev)
		goto out;
	if (!(dst->dev->flags & IFF_LOOPBACK)) {
		dev = dst->dev;
		dev_hold(dev);
		goto out;
	}
	if (smc_prefix_conn_ipv4(clcsk)) {
		dev = ip_dev_find(net, inet_sk(clcsk)->inet_saddr); /* referenced */
		ddev = ip_dev_find(net, inet_sk(clcsk)->inet_daddr);
		if (ddev != dev) {
			dev_put(dev);		/* NULL-safe */
			dev = NULL;
		}
		dev_put(ddev);
		goto out;
	}
	rcu_read_lock();	/* ipv6_dev_find takes no reference */
	dev = ipv6_dev_find(net, &clcsk->sk_v6_rcv_saddr, NULL);
	ddev = ipv6_dev_find(net, &clcsk->sk_v6_daddr, NULL);
	if (dev != ddev)
		dev = NULL;
	dev_hold(dev);			/* NULL-safe */
	rcu_read_unlock();
out:
	dst_release(dst);
	return dev;
}

/*
 * The route of smc's clcsock: its device's RDMA path and the IP prefixes
 * of the connection there (IPv4: the source address's subnet; IPv6: the
 * device's prefixes). 0 or an SMC_CLC_DECL_* code.
 *
 * The RoCE GID does not depend on the connection's family: it is the
 * port's RoCEv2 GID on the device, for IPv4 the one of the source address
 * if the port has it. rxe's RoCE thus runs over IPv4 for an IPv6
 * connection too, as Linux's SMC-Rv1 uses a RoCE GID of the port whatever
 * the TCP connection is (Documentation/smc-r.md, "IPv6").
 */
static u32 smcr_hs_route(struct smc_sock *smc, struct smcr_path *path,
			 struct smc_prefix *pfx)
{
	struct sock *clcsk = smc->clcsock->sk;
	__be32 saddr = smc_prefix_conn_ipv4(clcsk) ? inet_sk(clcsk)->inet_saddr : 0;
	struct net_device *dev;
	u32 code = SMC_CLC_DECL_NOSMCRDEV;

	dev = smcr_hs_route_dev(clcsk);
	if (!dev)
		return code;
	if (!smcr_ib_find(dev, saddr, path)) {
		code = smc_prefix_get(clcsk, dev, pfx);
		if (code)
			smcr_path_put(path);
	}
	dev_put(dev);
	return code;
}

u32 smcr_hs_propose(struct smc_sock *smc, struct smc_clc_proposal *p,
		    struct smcr_path *path)
{
	struct net *net = sock_net(&smc->sk);
	bool v1 = READ_ONCE(smcr_v1_on);
	/* as Linux: SMC-Rv2 only with a UEID (the SEID does not count) */
	bool v2 = smc_eid_ueid_count(net) > 0;
	bool smcd = p->hdr.type == SMC_CLC_PROPOSAL;	/* SMC-Dv2 offered */
	struct smc_prefix pfx;
	u32 code;

	/*
	 * As Linux: SMC-Rv2 for IPv4 connections only (its RoCEv2 GID must
	 * be on the subnet of the connection's IPv4 source address).
	 */
	if (!smc_prefix_conn_ipv4(smc->clcsock->sk))
		v2 = false;
	if (!smcr_hs_enabled() || (!v1 && !v2))
		return SMC_CLC_DECL_NOSMCDEV;
	code = smcr_hs_route(smc, path, &pfx);
	if (code)
		return SMC_CLC_DECL_NOSMCDEV;	/* as Linux: nothing to offer */
	if (!smcd) {
		p->hdr.type = SMC_CLC_PROPOSAL;
		p->hdr.version = SMC_CLC_V1;
		p->hdr.typev2 = SMC_CLC_TYPE_N;
		p->hdr.eyecatcher = SMC_CLC_EC_SMCR;
		p->hdr.trl_eyecatcher = SMC_CLC_EC_SMCR;
		memcpy(p->peer_id, smc_clc_local_peer_id, sizeof(p->peer_id));
	}
	/*
	 * SMC-Rv2 alongside SMC-Rv1, as Linux proposes: a v2 header, the v1
	 * offer in typev1 (with the IP prefix area), the v2 offer in typev2
	 * (R, or B next to SMC-Dv2) with our RoCEv2 GID and UEIDs in the v2
	 * extension. SMC-Rv1 next to SMC-Dv2 is a v2 Proposal with typev1 R.
	 */
	p->hdr.typev1 = v1 ? SMC_CLC_TYPE_R : SMC_CLC_TYPE_N;
	memcpy(p->gid, path->gid.gid.raw, sizeof(p->gid));
	memcpy(p->mac, path->gid.mac, sizeof(p->mac));
	/*
	 * The 40-byte SMC-D area, zero, before the IP area: Linux 6.1 takes
	 * both forms, Wireshark 4.0 dissects only this one (a v2 Proposal
	 * always has it).
	 */
	p->v1_smcd_area = true;
	smc_prefix_propose(&pfx, p);
	if (v2) {
		p->hdr.version = SMC_CLC_V2;
		p->hdr.typev2 = smcd ? SMC_CLC_TYPE_B : SMC_CLC_TYPE_R;
		memcpy(p->roce_gid, path->gid.gid.raw, sizeof(p->roce_gid));
		smc_eid_propose(net, p);
	}
	return 0;
}

bool smcr_hs_proposed_v2(const struct smc_clc_proposal *p)
{
	return p->hdr.version >= SMC_CLC_V2 &&
	       smc_clc_smcr_indicated(p->hdr.typev2);
}

static void smcr_hs_key(struct smc_sock *smc, const struct smcr_path *path,
			const u8 *peer_id, const u8 *peer_gid,
			enum smc_lgr_role role, u8 version,
			struct smcr_lgr_key *key)
{
	memset(key, 0, sizeof(*key));
	key->dev = path->dev;
	key->port = path->port;
	memcpy(key->peer_id, peer_id, sizeof(key->peer_id));
	memcpy(key->peer_gid.raw, peer_gid, sizeof(key->peer_gid.raw));
	key->vlan = smc_clcsock_vlan(smc);
	key->role = role;
	key->net_cookie = sock_net(&smc->sk)->net_cookie;
	key->version = version;
}

/*
 * An RMB (remote) or a send buffer of size bytes, else of the largest
 * smaller class that can be had, one class at a time (as Linux does):
 * no memory for vmalloc, no free block of pages, an MR the device
 * refuses at that size. The pages are of the kind type says
 * (net.smc.smcr_buf_type, smcr_buf.c); physically contiguous ones start
 * at the largest block the page allocator has at all, SMCR_BUF_BLOCK_MAX
 * (4 MiB), when more is asked for. The connection uses what it got; the
 * CLC names the RMB's real class (smcr_hs_fill). Never below
 * SMCR_BUF_PHYS_MAX (1 MiB), nor for a buffer that asks for that or less,
 * whatever the type: a buffer that fails there means the memory (mostly
 * a memcg) is at its end, and the connection falls back to TCP as it
 * always did. Squeezing on to 16 KiB, as Linux does, filled a memcg to
 * its last page and had its owner OOM-killed at its next page fault
 * (smcr/memlimit_topo1; security.md, hole 6). A link that is going
 * (-ENOLINK) ends the search.
 */
static struct smcr_buf *smcr_hs_buf(struct smcr_conn *sc, u32 size, bool remote,
				    enum smcr_buf_type type)
{
	struct smcr_buf *b;

	if (type == SMCR_PHYS_CONT_BUFS)
		size = min(size, SMCR_BUF_BLOCK_MAX);
	for (;;) {
		b = smcr_lgr_buf_get(sc, size, remote, type);
		if (!IS_ERR(b) || PTR_ERR(b) == -ENOLINK ||
		    size <= SMCR_BUF_PHYS_MAX)
			return b;
		size /= 2;
	}
}

/*
 * The connection's buffers, in its group (the RMB maybe from the pool),
 * sized by SO_RCVBUF/SO_SNDBUF or net.smc.rmem/wmem up to SMC-R's class
 * 15 (512 MiB). net.smc.mem_limit is charged what was asked for, before
 * anything is allocated, and keeps it for the connection's life even
 * when a smaller buffer was all there was: an upper bound, released by
 * smcr_lgr_leave(). With reg (not first contact: the group's links are
 * confirmed), also registered on the group's links. The group's bufs_sem
 * is held throughout, so that an ADD_LINK maps the buffers on its new
 * link before or after, never halfway; at first contact nobody adds a
 * link before the first is confirmed, after the registration. 0, or the
 * decline code: SMC_CLC_DECL_MEM, or SMC_CLC_DECL_ERR_REGBUF when a
 * registration failed (a failing link, not memory; the peer is told
 * which, as Linux does).
 */
static u32 smcr_hs_bufs(struct smc_sock *smc, struct smcr_conn *sc, bool reg)
{
	u32 rmb_size = smc_rx_rmb_size_for(&smc->sk, SMCR_BUF_MAX_CLASS);
	/* The send buffer: the connection layer's size (SO_SNDBUF, wmem). */
	u32 sndbuf_size = smc_tx_sndbuf_size_for(&smc->sk, SMCR_BUF_MAX_CLASS);
	/* One snapshot for both buffers: the sysctl may change meanwhile. */
	enum smcr_buf_type type =
		READ_ONCE(smc_net(sock_net(&smc->sk))->sysctl_smcr_buf_type);
	struct mem_cgroup *old;
	struct smcr_buf *b;
	int rc;

	/* Before anything is allocated; smcr_lgr_leave() gives it back. */
	if (smc_mem_reserve(smc, rmb_size + sndbuf_size))
		return SMC_CLC_DECL_MEM;
	smcr_lgr_bufs_hold(sc);
	/* In the handshake's kworker: the sock's memcg pays (smc_mem.h). */
	old = smc_mem_enter(&smc->conn);
	rc = SMC_CLC_DECL_MEM;
	b = smcr_hs_buf(sc, rmb_size, true, type);
	if (IS_ERR(b))
		goto out;
	sc->rmb = b;
	b = smcr_hs_buf(sc, sndbuf_size, false, type);
	if (IS_ERR(b))
		goto out;
	sc->sndbuf = b;
	rc = 0;
	if (reg && smcr_lgr_bufs_register(sc))
		rc = SMC_CLC_DECL_ERR_REGBUF;
out:
	smc_mem_leave(old);
	smcr_lgr_bufs_release(sc);
	return rc;
}

/*
 * An SMC-Rv1 or -Rv2 Accept or Confirm with the link's and the
 * connection's data; v2 adds the EID, on first contact the first contact
 * extension and (Confirm) the GID list: our one GID, no alternates.
 */
static void smcr_hs_fill(struct smcr_conn *sc, u8 type, bool first,
			 const struct smcr_hs_v2 *v2,
			 struct smc_clc_accept_confirm *ac)
{
	struct smcr_link *l = sc->link;

	memset(ac, 0, sizeof(*ac));
	ac->hdr.type = type;
	ac->hdr.version = v2->on ? SMC_CLC_V2 : SMC_CLC_V1;
	ac->hdr.typev1 = SMC_CLC_TYPE_R;
	ac->hdr.typev2 = first ? SMC_CLC_FIRST_CONTACT : 0;
	ac->hdr.eyecatcher = SMC_CLC_EC_SMCR;
	ac->hdr.trl_eyecatcher = SMC_CLC_EC_SMCR;
	memcpy(ac->r.peer_id, smc_clc_local_peer_id, sizeof(ac->r.peer_id));
	memcpy(ac->r.gid, l->local.gid.raw, sizeof(ac->r.gid));
	memcpy(ac->r.mac, l->local.mac, sizeof(ac->r.mac));
	ac->r.qpn = l->local.qpn;
	ac->r.rmb_rkey = smcr_buf_rkey(l, sc->rmb);
	ac->r.rmbe_idx = 1;
	ac->r.rmbe_alert_token = sc->token;
	ac->r.rmbe_size = ilog2(sc->rmb->size / SMC_BUF_MIN_SIZE);
	ac->r.qp_mtu = l->local.mtu;
	ac->r.rmb_dma_addr = smcr_buf_addr(l, sc->rmb);
	sc->rmb_rkey = ac->r.rmb_rkey;
	sc->rmb_addr = ac->r.rmb_dma_addr;
	ac->r.psn = l->local.psn;
	/* The server offers it; the client says yes when it was offered. */
	ac->r.grows = type == SMC_CLC_ACCEPT || sc->grows;
	if (!v2->on)
		return;
	memcpy(ac->eid, v2->eid, sizeof(ac->eid));
	if (!first)
		return;
	smcr_v2_fill_fce(&ac->fce, v2->direct, &v2->v21);
	if (type == SMC_CLC_CONFIRM) {
		ac->gid_cnt = 1;
		memcpy(ac->gid_list[0], l->local.gid.raw, sizeof(ac->gid_list[0]));
	}
}

/*
 * The peer's QP and RMB data from its Accept/Confirm into *peer and sc;
 * false if unusable.
 */
static bool smcr_hs_peer(const struct smc_clc_accept_confirm *ac, u8 type,
			 u8 version, struct smcr_qp_info *peer,
			 struct smcr_conn *sc)
{
	if (ac->hdr.type != type || ac->hdr.version != version ||
	    ac->hdr.typev1 != SMC_CLC_TYPE_R)
		return false;
	if (ac->r.qp_mtu < IB_MTU_256 || ac->r.qp_mtu > IB_MTU_4096 ||
	    ac->r.rmbe_size > SMCR_BUF_MAX_CLASS || ac->r.rmbe_idx != 1)
		return false;
	memset(peer, 0, sizeof(*peer));
	peer->qpn = ac->r.qpn;
	peer->psn = ac->r.psn;
	peer->mtu = ac->r.qp_mtu;
	memcpy(peer->gid.raw, ac->r.gid, sizeof(peer->gid.raw));
	memcpy(peer->mac, ac->r.mac, sizeof(peer->mac));
	if (sc) {
		sc->peer_token = ac->r.rmbe_alert_token;
		/* sc's link: smcr_lgr_join*() chose it before. */
		sc->peer_rkey[sc->slot] = ac->r.rmb_rkey;
		sc->peer_addr[sc->slot] = ac->r.rmb_dma_addr;
		sc->peer_size = SMC_BUF_MIN_SIZE << ac->r.rmbe_size;
		sc->grows = ac->r.grows;
	}
	return true;
}

/* Not first contact: the peer must be on the other end of our link. */
static bool smcr_hs_same_link(const struct smcr_link *l,
			      const struct smcr_qp_info *peer)
{
	return l->peer.qpn == peer->qpn &&
	       !memcmp(l->peer.gid.raw, peer->gid.raw, sizeof(peer->gid.raw));
}

/*
 * Server: does the Confirm come from the host the Proposal announced?
 * The group is keyed by the Proposal's peer id and GID (key), but its
 * link goes where the Confirm points (GID, MAC, QP): a Confirm that names
 * another host would let a client put a link to itself under somebody
 * else's key, and so into the group that host's later connections join.
 * The peer id must be the Proposal's when it had one (Linux's SMC-Rv2-only
 * Proposal has no v1 area, hence none), the GID the one the key holds
 * (the v2 extension's for SMC-Rv2), and for SMC-Rv1 the MAC the
 * Proposal's, which belongs to that GID. (An SMC-Rv2 Proposal's MAC is
 * its v1 GID's, which may be another port's than its RoCEv2 GID.) Not
 * first contact (joined: the link our Accept named), the GID and MAC are
 * that link's peer's instead: a second link's end is another port of the
 * host the group's first link goes to, tied to the group by ADD_LINK.
 */
static bool smcr_hs_confirm_is_proposer(const struct smcr_lgr_key *key,
					const u8 *proposal_mac, bool v2,
					const struct smcr_link *joined,
					const struct smc_clc_accept_confirm *ac)
{
	const u8 *gid = joined ? joined->peer.gid.raw : key->peer_gid.raw;
	const u8 *mac = joined ? joined->peer.mac : proposal_mac;

	if (memchr_inv(key->peer_id, 0, sizeof(key->peer_id)) &&
	    memcmp(ac->r.peer_id, key->peer_id, sizeof(key->peer_id)))
		return false;
	if (memcmp(ac->r.gid, gid, sizeof(key->peer_gid.raw)))
		return false;
	return v2 || ether_addr_equal(ac->r.mac, mac);
}

static int smcr_hs_decline(struct smc_sock *smc, u32 code)
{
	int rc = smc_clc_send_decline(smc, code, SMC_CLC_V1);

	if (!rc)
		smc_hs_set_fallback(smc, code, 0);
	return rc;
}

static struct smcr_conn *smcr_hs_conn_alloc(struct smc_sock *smc)
{
	struct smcr_conn *sc = kzalloc(sizeof(*sc), GFP_KERNEL);

	if (!sc)
		return NULL;
	INIT_LIST_HEAD(&sc->lgr_entry);
	spin_lock_init(&sc->rx_lock);
	sc->smc = smc;
	return sc;
}

/* Undo a handshake's connection: its group place and buffers. */
static void smcr_hs_conn_drop(struct smcr_conn *sc)
{
	smcr_lgr_leave(sc);
	kfree(sc);
}

/*
 * Client, SMC-Rv2 first contact: where our QP's packets go. A direct
 * peer (the Accept says so) gets them at the Accept's MAC; one behind a
 * router at the next hop's, which our route to its GID names. 0 or the
 * decline code.
 */
static u32 smcr_hs_v2_client_route(struct smc_sock *smc,
				   const struct smc_clc_accept_confirm *ac,
				   struct smcr_qp_info *peer, bool *direct)
{
	__be32 daddr;
	bool gw;

	*direct = ac->fce.v2_direct;
	if (*direct)
		return 0;
	if (!smcr_v2_gid_ipv4(ac->r.gid, &daddr) ||
	    smcr_v2_nexthop(sock_net(&smc->sk), inet_sk(smc->clcsock->sk)->inet_saddr,
			    daddr, peer->nexthop_mac, &gw))
		return SMC_CLC_DECL_NOROUTE;
	/* as Linux: the server says indirect, our route says direct */
	return gw ? 0 : SMC_CLC_DECL_NOINDIRECT;
}

int smcr_hs_connect(struct smc_sock *smc, struct smcr_path *path,
		    struct smc_clc_msg *msg, bool proposed_v2,
		    const struct smc_v21 *offer)
{
	struct smc_clc_accept_confirm *ac = &msg->accept_confirm;
	bool first = smc_clc_first_contact(&ac->hdr), made;
	struct smcr_hs_v2 v2 = {};
	struct smcr_lgr_key key;
	struct smcr_qp_info peer;
	struct smcr_hs_op op;
	struct smcr_conn *sc;
	struct smcr_link *l;
	bool confirmed;
	u32 code;
	int rc;

	sc = smcr_hs_conn_alloc(smc);
	if (!sc)
		return smcr_hs_decline(smc, SMC_CLC_DECL_MEM);
	/* An SMC-Rv2 Accept: to our v2 offer, with one of our UEIDs. */
	if (ac->hdr.version >= SMC_CLC_V2) {
		if (!proposed_v2 || !smc_eid_is_ueid(sock_net(&smc->sk), ac->eid)) {
			kfree(sc);
			return smcr_hs_decline(smc, SMC_CLC_DECL_MODEUNSUPP);
		}
		v2.on = true;
		memcpy(v2.eid, ac->eid, sizeof(v2.eid));
		atomic_inc(&smcr_hs_n_v2_agreed);
	}
	if (!smcr_hs_peer(ac, SMC_CLC_ACCEPT, v2.on ? SMC_CLC_V2 : SMC_CLC_V1,
			  &peer, sc)) {
		kfree(sc);
		return smcr_hs_decline(smc, SMC_CLC_DECL_MODEUNSUPP);
	}
	if (v2.on && first) {
		code = smc_v21_check_accept(offer, true, &ac->fce, &v2.v21) ?:
		       smcr_hs_v2_client_route(smc, ac, &peer, &v2.direct);
		if (code) {
			kfree(sc);
			return smcr_hs_decline(smc, code);
		}
	}
	smcr_hs_key(smc, path, ac->r.peer_id, ac->r.gid, SMC_LGR_CLIENT,
		    v2.on ? SMC_CLC_V2 : SMC_CLC_V1, &key);
	if (first)
		rc = smcr_lgr_join(sc, &key, path, &made);
	else
		rc = smcr_lgr_join_qp(sc, &key, peer.qpn, peer.gid.raw);
	if (rc) {
		kfree(sc);
		return smcr_hs_decline(smc, rc == -ENOENT ? SMC_CLC_DECL_SYNCERR :
				       SMC_CLC_DECL_MEM);
	}
	l = sc->link;
	if (sc->slot) {
		/* smcr_hs_peer() read the Accept before the join chose sc's link. */
		sc->peer_rkey[sc->slot] = sc->peer_rkey[0];
		sc->peer_addr[sc->slot] = sc->peer_addr[0];
		sc->peer_rkey[0] = 0;
		sc->peer_addr[0] = 0;
	}
	/* The Accept's RMB on the group's other link, if the server said. */
	if (!first)
		smcr_lgr_rkey_take(sc);
	if (v2.on && first)	/* before the Confirm overwrites ac */
		smcr_lgr_set_v2_peer(sc->lgr, &ac->fce, v2.eid, v2.direct);
	if (!first) {
		/* The group's links, confirmed long ago: just our buffers. */
		code = smcr_hs_bufs(smc, sc, true);
		if (code) {
			smcr_hs_conn_drop(sc);
			return smcr_hs_decline(smc, code);
		}
		/* Our RMB on the other link; without it, no failover. */
		smcr_lgr_rkey_announce(sc, sc->rmb);
		smcr_hs_fill(sc, SMC_CLC_CONFIRM, false, &v2, ac);
		rc = smc_clc_send(smc, msg);
		if (!rc)
			rc = smcr_conn_start(smc, sc);
		if (rc)
			smcr_hs_conn_drop(sc);
		else if (v2.on)
			atomic_inc(&smcr_hs_n_v2_client);
		return rc;
	}

	smcr_hs_op_start(&op, smc, l);
	code = smcr_hs_bufs(smc, sc, false);
	if (code) {
		rc = smcr_hs_decline(smc, code);
		goto fail;
	}
	if (smcr_link_connect(l, &peer) || smcr_lgr_bufs_register(sc)) {
		rc = smcr_hs_decline(smc, SMC_CLC_DECL_ERR_RDYLNK);
		goto fail;
	}
	smcr_link_keepalive_net(l, sock_net(&smc->sk));
	smcr_hs_fill(sc, SMC_CLC_CONFIRM, true, &v2, ac);
	rc = smc_clc_send(smc, msg);
	if (rc)
		goto fail;
	/*
	 * The server sends CONFIRM_LINK now; our link answers it. If that
	 * did not happen, the server has the last word (a Decline).
	 */
	confirmed = !smcr_llc_await_confirm(l);
	if (!confirmed) {
		atomic_inc(&smcr_hs_failed);
		rc = smc_clc_recv(smc, msg, SMC_CLC_WAIT_TIME);
		if (!rc && msg->hdr.type == SMC_CLC_DECLINE)
			smc_hs_set_fallback(smc, SMC_CLC_DECL_PEERDECL,
					    msg->decline.diagnosis);
		else if (!rc)
			rc = -EPROTO;
		goto fail;
	}
	atomic_inc(&smcr_hs_confirmed_client);
	smcr_hs_op_end(&op);
	smcr_lgr_first_done(sc, true);
	rc = smcr_conn_start(smc, sc);
	if (rc)
		smcr_hs_conn_drop(sc);
	else if (v2.on)
		atomic_inc(&smcr_hs_n_v2_client);
	return rc;
fail:
	smcr_hs_op_end(&op);
	smcr_lgr_first_done(sc, false);
	smcr_hs_conn_drop(sc);
	return rc;
}

/*
 * The server's part after the Confirm, first contact: 0 when the link is
 * confirmed, 1 when it failed and we declined, or -errno.
 */
static int smcr_hs_listen_first(struct smc_sock *nsmc, struct smcr_conn *sc,
				const struct smcr_qp_info *peer)
{
	struct smcr_link *l = sc->link;
	unsigned int delay;

	if (smcr_link_connect(l, peer) || smcr_lgr_bufs_register(sc)) {
		atomic_inc(&smcr_hs_failed);
		return smcr_hs_decline(nsmc, SMC_CLC_DECL_ERR_RDYLNK) ?: 1;
	}
	smcr_link_keepalive_net(l, sock_net(&nsmc->sk));
	delay = READ_ONCE(smcr_probe_confirm_delay_ms);
	if (delay)
		schedule_timeout_uninterruptible(msecs_to_jiffies(min(delay, 10000U)));
	if (smcr_llc_confirm_link(l)) {
		atomic_inc(&smcr_hs_failed);
		return smcr_hs_decline(nsmc, SMC_CLC_DECL_TIMEOUT_CL) ?: 1;
	}
	atomic_inc(&smcr_hs_confirmed_server);
	return 0;
}

/*
 * Server: can we take up the Proposal's SMC-Rv2 offer? As Linux 6.1: a
 * UEID both have (the SEID does not count for SMC-Rv2; a Proposal with
 * none gets SMC_CLC_DECL_NOUEID, one with none in common
 * SMC_CLC_DECL_NOSMCDEV), and a route to the client's RoCEv2 GID whose
 * next hop's MAC we know. 0 and *v2 filled, or the decline code.
 */
static u32 smcr_hs_v2_server(struct smc_sock *nsmc,
			     const struct smc_clc_proposal *p,
			     struct smcr_hs_v2 *v2, u8 *nexthop_mac)
{
	struct net *net = sock_net(&nsmc->sk);
	__be32 daddr;
	bool gw;

	if (!p->eid_cnt)
		return SMC_CLC_DECL_NOUEID;
	if (!smc_eid_match_ueid(net, p, v2->eid))
		return SMC_CLC_DECL_NOSMCDEV;
	if (!smc_prefix_conn_ipv4(nsmc->clcsock->sk))
		return SMC_CLC_DECL_NOSMCRDEV;	/* as the client's rule */
	if (!smcr_v2_gid_ipv4(p->roce_gid, &daddr))
		return SMC_CLC_DECL_NOSMCRDEV;	/* IPv6 GIDs: not yet */
	if (smcr_v2_nexthop(net, inet_sk(nsmc->clcsock->sk)->inet_saddr, daddr,
			    nexthop_mac, &gw))
		return SMC_CLC_DECL_NOROUTE;
	v2->direct = !gw;
	if (v2->direct)		/* the client's own MAC, from its Confirm */
		eth_zero_addr(nexthop_mac);
	v2->on = true;
	return 0;
}

/*
 * Server: SMC-Rv2 if the Proposal offers it and we can, else SMC-Rv1 if
 * it offers that, we do it and the subnets match. 0, or the decline code
 * (the v2 reason when v1 was not an option).
 */
static u32 smcr_hs_choose(struct smc_sock *nsmc, const struct smc_clc_proposal *p,
			  const struct smc_prefix *pfx, struct smcr_hs_v2 *v2,
			  u8 *nexthop_mac)
{
	u32 code = SMC_CLC_DECL_NOSMCRDEV;

	if (p->hdr.version >= SMC_CLC_V2 &&
	    smc_clc_smcr_indicated(p->hdr.typev2)) {
		code = smcr_hs_v2_server(nsmc, p, v2, nexthop_mac);
		if (!code)
			return 0;
	}
	if (!smc_clc_smcr_indicated(p->hdr.typev1) || !READ_ONCE(smcr_v1_on))
		return code;
	if (!smc_prefix_match(pfx, p))
		return SMC_CLC_DECL_DIFFPREFIX;
	return 0;
}

int smcr_hs_listen(struct smc_sock *nsmc, struct smc_clc_msg *msg)
{
	struct smc_clc_proposal *p = &msg->proposal;
	struct smc_clc_accept_confirm *ac = &msg->accept_confirm;
	u8 nexthop_mac[ETH_ALEN] = {};
	u8 proposal_mac[ETH_ALEN];
	struct smcr_hs_v2 v2 = {};
	struct smcr_lgr_key key;
	struct smcr_qp_info peer;
	struct smcr_path path;
	struct smcr_hs_op op;
	struct smc_prefix pfx;
	struct smcr_conn *sc;
	bool first;
	u32 code;
	int rc;

	code = smcr_hs_route(nsmc, &path, &pfx);
	if (!code) {
		code = smcr_hs_choose(nsmc, p, &pfx, &v2, nexthop_mac);
		if (!code && v2.on)
			code = smc_v21_agree(sock_net(&nsmc->sk), p, true, &v2.v21);
		if (code)
			smcr_path_put(&path);
	}
	if (code)
		return smcr_hs_decline(nsmc, code);
	sc = smcr_hs_conn_alloc(nsmc);
	if (!sc) {
		smcr_path_put(&path);
		return smcr_hs_decline(nsmc, SMC_CLC_DECL_MEM);
	}
	smcr_hs_key(nsmc, &path, p->peer_id, v2.on ? p->roce_gid : p->gid,
		    SMC_LGR_SERVER, v2.on ? SMC_CLC_V2 : SMC_CLC_V1, &key);
	/* The Proposal's identity, for its Confirm: msg becomes our Accept. */
	ether_addr_copy(proposal_mac, p->mac);
	rc = smcr_lgr_join(sc, &key, &path, &first);
	smcr_path_put(&path);
	if (rc) {
		kfree(sc);
		if (rc == -ECONNABORTED)
			return rc;	/* closed: nobody to tell */
		/*
		 * Another first contact to this peer did not end in time:
		 * its link is not confirmed yet, and the client still waits
		 * for our answer long enough to fall back cleanly.
		 */
		return smcr_hs_decline(nsmc, rc == -ETIMEDOUT ?
				       SMC_CLC_DECL_TIMEOUT_CL : SMC_CLC_DECL_MEM);
	}
	if (first)
		smcr_hs_op_start(&op, nsmc, sc->link);
	code = smcr_hs_bufs(nsmc, sc, !first);
	if (code) {
		rc = smcr_hs_decline(nsmc, code);
		goto fail;
	}
	/* Our RMB on the other link; without it, no failover. */
	if (!first)
		smcr_lgr_rkey_announce(sc, sc->rmb);
	smcr_hs_fill(sc, SMC_CLC_ACCEPT, first, &v2, ac);
	rc = smc_clc_send(nsmc, msg);
	if (!rc)
		rc = smc_clc_recv(nsmc, msg, SMC_CLC_WAIT_TIME);
	if (rc)
		goto fail;
	if (msg->hdr.type == SMC_CLC_DECLINE) {
		smc_hs_set_fallback(nsmc, SMC_CLC_DECL_PEERDECL,
				    msg->decline.diagnosis);
		goto fail;
	}
	if (!smcr_hs_peer(ac, SMC_CLC_CONFIRM, v2.on ? SMC_CLC_V2 : SMC_CLC_V1,
			  &peer, sc)) {
		rc = -EPROTO;
		goto fail;
	}
	if (!smcr_hs_confirm_is_proposer(&key, proposal_mac, v2.on,
					 first ? NULL : sc->link, ac)) {
		/*
		 * Only a lying client gets here: nothing of its Confirm is
		 * used (no link is pointed at it), and the stream stays TCP.
		 */
		rc = smcr_hs_decline(nsmc, SMC_CLC_DECL_SYNCERR);
		goto fail;
	}
	if (v2.on && first) {
		/* The client's Confirm must repeat what our Accept agreed. */
		code = smc_v21_check_confirm(&v2.v21, true, &ac->fce);
		if (code) {
			rc = smcr_hs_decline(nsmc, code);
			goto fail;
		}
	}
	ether_addr_copy(peer.nexthop_mac, nexthop_mac);
	if (v2.on)	/* the client's Confirm v2 */
		atomic_inc(&smcr_hs_n_v2_agreed);
	if (v2.on && first)
		smcr_lgr_set_v2_peer(sc->lgr, &ac->fce, v2.eid, v2.direct);
	if (first) {
		rc = smcr_hs_listen_first(nsmc, sc, &peer);
		if (rc) {
			if (rc == 1)
				rc = 0;		/* decided: TCP */
			goto fail;
		}
		smcr_hs_op_end(&op);
		smcr_lgr_first_done(sc, true);
	} else if (!smcr_hs_same_link(sc->link, &peer)) {
		rc = -EPROTO;	/* a client out of step with its own Accept */
		smcr_hs_conn_drop(sc);
		return rc;
	}
	/* The Confirm's RMB on the group's other link, if the client said. */
	if (!first)
		smcr_lgr_rkey_take(sc);
	rc = smcr_conn_start(nsmc, sc);
	if (rc)
		smcr_hs_conn_drop(sc);
	else if (v2.on)
		atomic_inc(&smcr_hs_n_v2_server);
	return rc;
fail:
	if (first) {
		smcr_hs_op_end(&op);
		smcr_lgr_first_done(sc, false);
	}
	smcr_hs_conn_drop(sc);
	return rc;
}
