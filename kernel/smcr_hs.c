// SPDX-License-Identifier: GPL-2.0
/*
 * af_smc: the SMC-Rv1 first-contact handshake, link bring-up only.
 *
 * With the module parameter smcr_probe=1 (off by default), a client with no
 * ISM device but an RDMA port for its route's netdev (smcr_ib_find)
 * proposes SMC-Rv1: its GID, MAC and IPv4 prefix. A server with a port for
 * its side of the connection, on the same IPv4 subnet, creates a link and
 * answers with an Accept carrying its QP number, PSN, MTU, GID, MAC and its
 * RMB's rkey, address and size; the client creates its link, brings it to
 * RTS and sends the Confirm with the same data; the server brings its link
 * to RTS and sends LLC CONFIRM_LINK over the QP, which the client answers.
 * That is a working first SMC-R link.
 *
 * There is no SMC-R data path yet, so the server then ends the handshake
 * with a Decline SMC_CLC_DECL_INTERR (0x09990000) and both sides use TCP:
 * the application sees a working TCP connection, and the link is released.
 * Because the server alone decides how it ends, the client never sends a
 * Decline after its Confirm: it waits (bounded) for the server's, so the
 * two never both put a Decline into the stream. Counters in debugfs
 * ("smcr_hs") say how many first links were confirmed on each side.
 *
 * A socket closed in the middle (or its listener) must not wait for the
 * LLC bounds: while a handshake has a link it is on smcr_hs_running, and
 * smcr_hs_abort() ends that link's LLC waits. The entry lives on the
 * handshake's stack; it leaves the list, under smcr_hs_lock, before its
 * link is destroyed, so the walker never sees a freed link.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/inetdevice.h>
#include <linux/module.h>
#include <linux/random.h>
#include <linux/seq_file.h>
#include <net/inet_sock.h>
#include <net/sock.h>

#include "smc.h"
#include "smc_clc_io.h"
#include "smcr_hs.h"
#include "smcr_ib.h"
#include "smcr_link.h"

static bool smcr_probe;
module_param(smcr_probe, bool, 0444);
MODULE_PARM_DESC(smcr_probe,
		 "SMC-Rv1: propose and accept SMC-R, bring up and confirm the first link, then decline 0x09990000 and use TCP (no SMC-R data path yet)");

/* The RMB of a probe link: 64 KiB, size class 2 (16 KiB << 2). */
#define SMCR_HS_RMB_SIZE	(64 * 1024)
#define SMCR_HS_RMB_CLASS	2
/* The decline that ends a probe handshake whose link came up. */
#define SMCR_HS_NO_DATA_PATH	SMC_CLC_DECL_INTERR

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
}

static atomic_t smcr_hs_confirmed_client = ATOMIC_INIT(0);
static atomic_t smcr_hs_confirmed_server = ATOMIC_INIT(0);
static atomic_t smcr_hs_failed = ATOMIC_INIT(0);

bool smcr_hs_enabled(void)
{
	return READ_ONCE(smcr_probe);
}

bool smcr_hs_wanted(const struct smc_clc_proposal *p)
{
	return smcr_hs_enabled() && smc_clc_smcr_indicated(p->hdr.typev1);
}

void smcr_hs_show(struct seq_file *m)
{
	seq_printf(m, "probe %d confirmed_client %d confirmed_server %d failed %d\n",
		   smcr_hs_enabled(), atomic_read(&smcr_hs_confirmed_client),
		   atomic_read(&smcr_hs_confirmed_server),
		   atomic_read(&smcr_hs_failed));
}

/*
 * The route of smc's clcsock: its device's RDMA path for the local IPv4
 * address, and that address's subnet. 0 or an SMC_CLC_DECL_* code.
 */
static u32 smcr_hs_route(struct smc_sock *smc, struct smcr_path *path,
			 __be32 *subnet, u8 *prefix_len)
{
	struct sock *clcsk = smc->clcsock->sk;
	__be32 saddr = inet_sk(clcsk)->inet_saddr;
	struct in_device *in_dev;
	struct dst_entry *dst;
	struct in_ifaddr *ifa;
	u32 code = SMC_CLC_DECL_NOSMCRDEV;

	if (clcsk->sk_family != AF_INET)
		return SMC_CLC_DECL_NOSMCRDEV;	/* IPv4 GIDs only, for now */
	dst = sk_dst_get(clcsk);
	if (!dst)
		return SMC_CLC_DECL_NOSMCRDEV;
	if (!dst->dev || smcr_ib_find(dst->dev, saddr, path))
		goto out;
	code = SMC_CLC_DECL_DIFFPREFIX;
	rcu_read_lock();
	in_dev = __in_dev_get_rcu(dst->dev);
	if (in_dev) {
		in_dev_for_each_ifa_rcu(ifa, in_dev) {
			if (!inet_ifa_match(saddr, ifa))
				continue;
			*subnet = ifa->ifa_local & ifa->ifa_mask;
			*prefix_len = inet_mask_len(ifa->ifa_mask);
			code = 0;
			break;
		}
	}
	rcu_read_unlock();
	if (code)
		smcr_path_put(path);
out:
	dst_release(dst);
	return code;
}

u32 smcr_hs_propose(struct smc_sock *smc, struct smc_clc_proposal *p,
		    struct smcr_path *path)
{
	__be32 subnet;
	u8 plen;
	u32 code;

	if (!smcr_hs_enabled())
		return SMC_CLC_DECL_NOSMCDEV;
	code = smcr_hs_route(smc, path, &subnet, &plen);
	if (code)
		return SMC_CLC_DECL_NOSMCDEV;	/* as Linux: nothing to offer */
	memset(p, 0, sizeof(*p));
	p->hdr.type = SMC_CLC_PROPOSAL;
	p->hdr.version = SMC_CLC_V1;
	p->hdr.typev1 = SMC_CLC_TYPE_R;
	p->hdr.typev2 = SMC_CLC_TYPE_N;
	p->hdr.eyecatcher = SMC_CLC_EC_SMCR;
	p->hdr.trl_eyecatcher = SMC_CLC_EC_SMCR;
	memcpy(p->peer_id, smc_clc_local_peer_id, sizeof(p->peer_id));
	memcpy(p->gid, path->gid.gid.raw, sizeof(p->gid));
	memcpy(p->mac, path->gid.mac, sizeof(p->mac));
	/*
	 * The 40-byte SMC-D area, zero, before the IP area: Linux 6.1 takes
	 * both forms, Wireshark 4.0 dissects only this one.
	 */
	p->v1_smcd_area = true;
	p->ipv4_subnet = ntohl(subnet);
	p->ipv4_prefix_len = plen;
	return 0;
}

/* An SMC-Rv1 first-contact Accept or Confirm with l's data. */
static void smcr_hs_fill(struct smcr_link *l, u8 type, u32 token,
			 struct smc_clc_accept_confirm *ac)
{
	memset(ac, 0, sizeof(*ac));
	ac->hdr.type = type;
	ac->hdr.version = SMC_CLC_V1;
	ac->hdr.typev1 = SMC_CLC_TYPE_R;
	ac->hdr.typev2 = SMC_CLC_FIRST_CONTACT;
	ac->hdr.eyecatcher = SMC_CLC_EC_SMCR;
	ac->hdr.trl_eyecatcher = SMC_CLC_EC_SMCR;
	memcpy(ac->r.peer_id, smc_clc_local_peer_id, sizeof(ac->r.peer_id));
	memcpy(ac->r.gid, l->local.gid.raw, sizeof(ac->r.gid));
	memcpy(ac->r.mac, l->local.mac, sizeof(ac->r.mac));
	ac->r.qpn = l->local.qpn;
	ac->r.rmb_rkey = smcr_link_rkey(l);
	ac->r.rmbe_idx = 1;
	ac->r.rmbe_alert_token = token;
	ac->r.rmbe_size = SMCR_HS_RMB_CLASS;
	ac->r.qp_mtu = l->local.mtu;
	ac->r.rmb_dma_addr = smcr_link_rmb_addr(l);
	ac->r.psn = l->local.psn;
}

/* The peer's QP data from its Accept/Confirm; false if unusable. */
static bool smcr_hs_peer(const struct smc_clc_accept_confirm *ac, u8 type,
			 struct smcr_qp_info *peer)
{
	if (ac->hdr.type != type || ac->hdr.version != SMC_CLC_V1 ||
	    ac->hdr.typev1 != SMC_CLC_TYPE_R)
		return false;
	if (ac->r.qp_mtu < IB_MTU_256 || ac->r.qp_mtu > IB_MTU_4096)
		return false;
	memset(peer, 0, sizeof(*peer));
	peer->qpn = ac->r.qpn;
	peer->psn = ac->r.psn;
	peer->mtu = ac->r.qp_mtu;
	memcpy(peer->gid.raw, ac->r.gid, sizeof(peer->gid.raw));
	memcpy(peer->mac, ac->r.mac, sizeof(peer->mac));
	return true;
}

static int smcr_hs_decline(struct smc_sock *smc, u32 code)
{
	int rc = smc_clc_send_decline(smc, code, SMC_CLC_V1);

	if (!rc)
		smc_hs_set_fallback(smc, code, 0);
	return rc;
}

int smcr_hs_connect(struct smc_sock *smc, struct smcr_path *path,
		    struct smc_clc_msg *msg)
{
	struct smc_clc_accept_confirm *ac = &msg->accept_confirm;
	struct smcr_qp_info peer;
	struct smcr_hs_op op;
	struct smcr_link *l;
	int rc;

	if (!smcr_hs_peer(ac, SMC_CLC_ACCEPT, &peer))
		return smcr_hs_decline(smc, SMC_CLC_DECL_MODEUNSUPP);
	l = smcr_link_create(path, SMCR_HS_RMB_SIZE);
	if (IS_ERR(l))
		return smcr_hs_decline(smc, SMC_CLC_DECL_MEM);
	smcr_hs_op_start(&op, smc, l);
	if (smcr_link_connect(l, &peer)) {
		rc = smcr_hs_decline(smc, SMC_CLC_DECL_ERR_RDYLNK);
		goto out;
	}
	smcr_link_keepalive_net(l, sock_net(&smc->sk));
	smcr_hs_fill(l, SMC_CLC_CONFIRM, get_random_u32(), ac);
	rc = smc_clc_send(smc, msg);
	if (rc)
		goto out;
	/*
	 * The server sends CONFIRM_LINK now; our link answers it. Whatever
	 * happens, the server has the last word (see the top of the file).
	 */
	if (!smcr_llc_await_confirm(l))
		atomic_inc(&smcr_hs_confirmed_client);
	else
		atomic_inc(&smcr_hs_failed);
	rc = smc_clc_recv(smc, msg, SMC_CLC_WAIT_TIME);
	if (rc)
		goto out;
	if (msg->hdr.type != SMC_CLC_DECLINE) {
		rc = -EPROTO;	/* an SMC-R connection we cannot carry */
		goto out;
	}
	smc_hs_set_fallback(smc, SMC_CLC_DECL_PEERDECL, msg->decline.diagnosis);
out:
	smcr_hs_op_end(&op);
	smcr_link_destroy(l);
	return rc;
}

int smcr_hs_listen(struct smc_sock *nsmc, struct smc_clc_msg *msg)
{
	struct smc_clc_proposal *p = &msg->proposal;
	struct smc_clc_accept_confirm *ac = &msg->accept_confirm;
	struct smcr_qp_info peer;
	struct smcr_path path;
	struct smcr_hs_op op;
	struct smcr_link *l;
	unsigned int delay;
	__be32 subnet;
	u8 plen;
	u32 code;
	int rc;

	code = smcr_hs_route(nsmc, &path, &subnet, &plen);
	if (!code && (ntohl(subnet) != p->ipv4_subnet || plen != p->ipv4_prefix_len)) {
		smcr_path_put(&path);
		code = SMC_CLC_DECL_DIFFPREFIX;
	}
	if (code)
		return smcr_hs_decline(nsmc, code);
	l = smcr_link_create(&path, SMCR_HS_RMB_SIZE);
	smcr_path_put(&path);
	if (IS_ERR(l))
		return smcr_hs_decline(nsmc, SMC_CLC_DECL_MEM);
	smcr_hs_op_start(&op, nsmc, l);
	smcr_hs_fill(l, SMC_CLC_ACCEPT, get_random_u32(), ac);
	rc = smc_clc_send(nsmc, msg);
	if (!rc)
		rc = smc_clc_recv(nsmc, msg, SMC_CLC_WAIT_TIME);
	if (rc)
		goto out;
	if (msg->hdr.type == SMC_CLC_DECLINE) {
		smc_hs_set_fallback(nsmc, SMC_CLC_DECL_PEERDECL,
				    msg->decline.diagnosis);
		goto out;
	}
	if (!smcr_hs_peer(ac, SMC_CLC_CONFIRM, &peer)) {
		rc = -EPROTO;
		goto out;
	}
	if (smcr_link_connect(l, &peer)) {
		atomic_inc(&smcr_hs_failed);
		rc = smcr_hs_decline(nsmc, SMC_CLC_DECL_ERR_RDYLNK);
		goto out;
	}
	smcr_link_keepalive_net(l, sock_net(&nsmc->sk));
	delay = READ_ONCE(smcr_probe_confirm_delay_ms);
	if (delay)
		schedule_timeout_uninterruptible(msecs_to_jiffies(min(delay, 10000U)));
	if (smcr_llc_confirm_link(l)) {
		atomic_inc(&smcr_hs_failed);
		rc = smcr_hs_decline(nsmc, SMC_CLC_DECL_TIMEOUT_CL);
		goto out;
	}
	atomic_inc(&smcr_hs_confirmed_server);
	/*
	 * The link goes first (its DELETE_LINK acked by the client's QP,
	 * which lives until the client reads our Decline), then the Decline.
	 */
	smcr_hs_op_end(&op);
	smcr_link_destroy(l);
	return smcr_hs_decline(nsmc, SMCR_HS_NO_DATA_PATH);
out:
	smcr_hs_op_end(&op);
	smcr_link_destroy(l);
	return rc;
}
