// SPDX-License-Identifier: GPL-2.0
/*
 * af_smc: statistics counters and their netlink dumps (see smc_stats.h).
 *
 * Reply layouts, in the attribute order Linux 6.1 uses (a tool reading
 * either module sees the same messages), plus 6.12's two usage levels:
 *   GET_STATS: one message, SMC_GEN_STATS { SMCD_TECH { TX_RMB_STATS,
 *     RX_RMB_STATS, TXPLOAD_SIZE, RXPLOAD_SIZE, TX_RMB_SIZE, RX_RMB_SIZE,
 *     CLNT_V1_SUCC .. SRV_V2_SUCC, RX_BYTES, TX_BYTES, RX_RMB_USAGE,
 *     TX_RMB_USAGE, RX_CNT, TX_CNT,
 *     SENDPAGE, CORK, NDLY, SPLICE, URG_DATA }, SMCR_TECH { same },
 *     CLNT_HS_ERR_CNT, SRV_HS_ERR_CNT }.
 *   GET_FBACK_STATS: one message per recorded reason,
 *     SMC_GEN_FBACK_STATS { TYPE (1 server, 0 client), [SRV_CNT, CLNT_CNT],
 *     RSN_CODE, RSN_CNT }, the totals in the first message of the dump
 *     only; nothing when no connection fell back.
 *   GET_LINK_STATS (ours): one message, FAILOVERS, RESENT.
 */
#include <linux/log2.h>
#include <net/genetlink.h>
#include <net/netlink.h>
#include <net/sock.h>

#include <linux/smc.h>

#include "smc.h"
#include "smc_gnl.h"
#include "smc_netns.h"
#include "smc_stats.h"
#include "smcr_lgr.h"

int smc_stats_net_init(struct net *net)
{
	struct smc_net *sn = smc_net(net);

	sn->stats = alloc_percpu(struct smc_stats);
	if (!sn->stats)
		return -ENOMEM;
	spin_lock_init(&sn->fback.lock);
	return 0;
}

void smc_stats_net_exit(struct net *net)
{
	free_percpu(smc_net(net)->stats);
}

static struct smc_stats __percpu *smc_stats_of(const struct smc_sock *smc)
{
	return smc_net(sock_net(&smc->sk))->stats;
}

/* The technology a connection counts under: SMC-R has its transport state. */
static enum smc_stats_tech smc_stats_tech_of(const struct smc_sock *smc)
{
	return READ_ONCE(smc->conn.smcr) ? SMC_STATS_TECH_R : SMC_STATS_TECH_D;
}

#define SMC_STATS_INC(smc, field) \
	this_cpu_inc(smc_stats_of(smc)->tech[smc_stats_tech_of(smc)].field)

/* Linux's buckets: up to 8K is 0, up to 16K is 1, ..., beyond 1M is 8. */
static unsigned int smc_stats_bucket(u64 len)
{
	unsigned int pos = fls64((len - 1) >> 13);

	return min_t(unsigned int, pos, SMC_STATS_BUCKETS - 1);
}

static void smc_stats_fback_add(struct smc_stats_fback_rsn *tab, u32 code)
{
	int i;

	for (i = 0; i < SMC_STATS_FBACK_RSNS; i++) {
		if (tab[i].code == code) {
			if (tab[i].count < U16_MAX)
				tab[i].count++;
			return;
		}
		if (!tab[i].code) {
			tab[i].code = code;
			tab[i].count = 1;
			return;
		}
	}
	/* Table full: the total still counts it, as in Linux. */
}

void smc_stats_fallback(struct smc_sock *smc, bool server)
{
	struct smc_stats_fback *fb = &smc_net(sock_net(&smc->sk))->fback;
	u32 code = smc->fallback_rsn;

	if (!code)
		return;
	spin_lock_bh(&fb->lock);
	if (server) {
		smc_stats_fback_add(fb->srv, code);
		fb->srv_cnt++;
	} else {
		smc_stats_fback_add(fb->clnt, code);
		fb->clnt_cnt++;
	}
	spin_unlock_bh(&fb->lock);
}

void smc_stats_hs_err(struct smc_sock *smc, bool server)
{
	if (server)
		this_cpu_inc(smc_stats_of(smc)->srv_hs_err);
	else
		this_cpu_inc(smc_stats_of(smc)->clnt_hs_err);
}

void smc_stats_hs_ok(struct smc_sock *smc, bool server)
{
	/* SMC-R: its group's version (smcr_hs.c); every SMC-D one is v2. */
	if (smc_stats_tech_of(smc) == SMC_STATS_TECH_R && !smcr_conn_is_v2(smc)) {
		if (server)
			SMC_STATS_INC(smc, srv_v1_succ);
		else
			SMC_STATS_INC(smc, clnt_v1_succ);
	} else if (server)
		SMC_STATS_INC(smc, srv_v2_succ);
	else
		SMC_STATS_INC(smc, clnt_v2_succ);
}

/*
 * An SMC connection has its buffers by now: our DMB or RMB (rx), and the send
 * buffer's size (tx), which is fixed although the buffer is allocated
 * only when a byte first has to wait (smc_tx.c). Counted here, once the
 * connection exists, so that smcd_conn.c needs no hook; a handshake that
 * fails after registering a DMB does not count it.
 */
static void smc_stats_conn_bufs(struct smc_sock *smc)
{
	struct smc_conn *conn = &smc->conn;
	struct smc_stats_use *use;

	/* SMC-D: the DMB with its CDC header; SMC-R: the RMB, all ring. */
	conn->use_rx = conn->smcr ? conn->rmb_size :
				    conn->rmb_size + SMC_CDC_D_LEN;
	conn->use_tx = conn->sndbuf_size;
	conn->use_tech = smc_stats_tech_of(smc);
	smc_stats_buf_alloc(smc, true, conn->use_rx);
	smc_stats_buf_alloc(smc, false, conn->use_tx);
	use = &smc_net(sock_net(&smc->sk))->use[conn->use_tech];
	atomic64_add(conn->use_rx, &use->rx);
	atomic64_add(conn->use_tx, &use->tx);
}

void smc_stats_conn_unuse(struct smc_sock *smc)
{
	struct smc_conn *conn = &smc->conn;
	struct smc_stats_use *use;

	if (!conn->use_rx && !conn->use_tx)
		return;
	use = &smc_net(sock_net(&smc->sk))->use[conn->use_tech];
	atomic64_sub(conn->use_rx, &use->rx);
	atomic64_sub(conn->use_tx, &use->tx);
	conn->use_rx = 0;
	conn->use_tx = 0;
}

void smc_stats_rx_resized(struct smc_sock *smc, u32 use_rx)
{
	struct smc_conn *conn = &smc->conn;
	struct smc_stats_use *use;

	if (!conn->use_rx || conn->use_rx == use_rx)
		return;		/* not counted (smc_stats_conn_bufs()), or same */
	use = &smc_net(sock_net(&smc->sk))->use[conn->use_tech];
	atomic64_add((s64)use_rx - conn->use_rx, &use->rx);
	conn->use_rx = use_rx;
	/* A new buffer, as Linux counts each RMB it makes by its size. */
	smc_stats_buf_alloc(smc, true, use_rx);
}

void smc_stats_hs_done(struct smc_sock *smc, bool server, int rc)
{
	if (rc) {
		smc_stats_hs_err(smc, server);
	} else if (smc_use_fallback(smc)) {
		smc_stats_fallback(smc, server);
	} else {
		smc_stats_hs_ok(smc, server);
		smc_stats_conn_bufs(smc);
	}
}

/* Every call counts; bytes and the size bucket only when data moved. */
void smc_stats_tx(struct smc_sock *smc, size_t len, long rc)
{
	struct smc_stats_tech_cnt __percpu *t =
		&smc_stats_of(smc)->tech[smc_stats_tech_of(smc)];

	this_cpu_inc(t->tx_cnt);
	/* A write bigger than our send buffer, or than the peer's ring. */
	if (len > READ_ONCE(smc->conn.sndbuf_size))
		this_cpu_inc(t->tx_buf.size_small);
	if (len > READ_ONCE(smc->conn.peer_size))
		this_cpu_inc(t->tx_buf.size_small_peer);
	if (rc <= 0 || !len)
		return;
	this_cpu_inc(t->tx_pload[smc_stats_bucket(len)]);
	this_cpu_add(t->tx_bytes, rc);
}

void smc_stats_rx(struct smc_sock *smc, size_t len, long rc)
{
	struct smc_stats_tech_cnt __percpu *t =
		&smc_stats_of(smc)->tech[smc_stats_tech_of(smc)];

	this_cpu_inc(t->rx_cnt);
	/* A read that asked for more than our ring holds. */
	if (len > READ_ONCE(smc->conn.rmb_size))
		this_cpu_inc(t->rx_buf.size_small);
	if (rc <= 0 || !len)
		return;
	this_cpu_inc(t->rx_pload[smc_stats_bucket(len)]);
	this_cpu_add(t->rx_bytes, rc);
}

void smc_stats_buf_alloc(struct smc_sock *smc, bool rx, u32 size)
{
	struct smc_stats_tech_cnt __percpu *t =
		&smc_stats_of(smc)->tech[smc_stats_tech_of(smc)];

	if (rx) {
		this_cpu_inc(t->rx_bufsize[smc_stats_bucket(size)]);
		this_cpu_inc(t->rx_buf.alloc);
	} else {
		this_cpu_inc(t->tx_bufsize[smc_stats_bucket(size)]);
		this_cpu_inc(t->tx_buf.alloc);
	}
}

void smc_stats_peer_buf_full(struct smc_sock *smc)
{
	SMC_STATS_INC(smc, tx_buf.full_peer);
}

void smc_stats_buf_full(struct smc_sock *smc)
{
	SMC_STATS_INC(smc, tx_buf.full);
}

void smc_stats_rx_full(struct smc_sock *smc)
{
	SMC_STATS_INC(smc, rx_buf.full);
}

void smc_stats_cork(struct smc_sock *smc)
{
	SMC_STATS_INC(smc, cork);
}

void smc_stats_nodelay(struct smc_sock *smc)
{
	SMC_STATS_INC(smc, nodelay);
}

void smc_stats_urgent(struct smc_sock *smc)
{
	SMC_STATS_INC(smc, urg_data);
}

void smc_stats_failover(struct smc_sock *smc, u64 resent)
{
	/* The bytes first: a reader that sees the move sees its bytes. */
	this_cpu_add(smc_stats_of(smc)->resent, resent);
	this_cpu_inc(smc_stats_of(smc)->failovers);
}

void smc_stats_splice(struct smc_sock *smc)
{
	SMC_STATS_INC(smc, splice);
}

void smc_stats_sendpage(struct smc_sock *smc)
{
	SMC_STATS_INC(smc, sendpage);
}

/* ---- the dumps ---- */

/* The sum over all CPUs, field by field (every field is a u64). */
static void smc_stats_sum(struct smc_stats __percpu *pcpu, struct smc_stats *sum)
{
	int cpu;

	BUILD_BUG_ON(sizeof(*sum) % sizeof(u64));
	memset(sum, 0, sizeof(*sum));
	for_each_possible_cpu(cpu) {
		const u64 *src = (const u64 *)per_cpu_ptr(pcpu, cpu);
		u64 *dst = (u64 *)sum;
		size_t i;

		for (i = 0; i < sizeof(*sum) / sizeof(u64); i++)
			dst[i] += READ_ONCE(src[i]);
	}
}

static int smc_nl_u64(struct sk_buff *skb, int type, u64 v, int pad)
{
	return nla_put_u64_64bit(skb, type, v, pad);
}

static int smc_stats_put_bufev(struct sk_buff *skb, int type,
			       const struct smc_stats_bufev *e)
{
	struct nlattr *n = nla_nest_start(skb, type);
	const int pad = SMC_NLA_STATS_RMB_PAD;

	if (!n)
		return -EMSGSIZE;
	if (smc_nl_u64(skb, SMC_NLA_STATS_RMB_REUSE_CNT, e->reuse, pad) ||
	    smc_nl_u64(skb, SMC_NLA_STATS_RMB_SIZE_SM_PEER_CNT, e->size_small_peer, pad) ||
	    smc_nl_u64(skb, SMC_NLA_STATS_RMB_SIZE_SM_CNT, e->size_small, pad) ||
	    smc_nl_u64(skb, SMC_NLA_STATS_RMB_FULL_PEER_CNT, e->full_peer, pad) ||
	    smc_nl_u64(skb, SMC_NLA_STATS_RMB_FULL_CNT, e->full, pad) ||
	    smc_nl_u64(skb, SMC_NLA_STATS_RMB_ALLOC_CNT, e->alloc, pad) ||
	    smc_nl_u64(skb, SMC_NLA_STATS_RMB_DGRADE_CNT, e->dgrade, pad)) {
		nla_nest_cancel(skb, n);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, n);
	return 0;
}

static int smc_stats_put_buckets(struct sk_buff *skb, int type, const u64 *b)
{
	struct nlattr *n = nla_nest_start(skb, type);
	int i;

	if (!n)
		return -EMSGSIZE;
	for (i = 0; i < SMC_STATS_BUCKETS; i++) {
		/* SMC_NLA_STATS_PLOAD_8K is 1, and so on. */
		if (smc_nl_u64(skb, SMC_NLA_STATS_PLOAD_8K + i, b[i],
			       SMC_NLA_STATS_PLOAD_PAD)) {
			nla_nest_cancel(skb, n);
			return -EMSGSIZE;
		}
	}
	nla_nest_end(skb, n);
	return 0;
}

static int smc_stats_put_tech(struct sk_buff *skb, int type,
			      const struct smc_stats_tech_cnt *t,
			      const struct smc_stats_use *use)
{
	struct nlattr *n = nla_nest_start(skb, type);
	const int pad = SMC_NLA_STATS_T_PAD;

	if (!n)
		return -EMSGSIZE;
	if (smc_stats_put_bufev(skb, SMC_NLA_STATS_T_TX_RMB_STATS, &t->tx_buf) ||
	    smc_stats_put_bufev(skb, SMC_NLA_STATS_T_RX_RMB_STATS, &t->rx_buf) ||
	    smc_stats_put_buckets(skb, SMC_NLA_STATS_T_TXPLOAD_SIZE, t->tx_pload) ||
	    smc_stats_put_buckets(skb, SMC_NLA_STATS_T_RXPLOAD_SIZE, t->rx_pload) ||
	    smc_stats_put_buckets(skb, SMC_NLA_STATS_T_TX_RMB_SIZE, t->tx_bufsize) ||
	    smc_stats_put_buckets(skb, SMC_NLA_STATS_T_RX_RMB_SIZE, t->rx_bufsize) ||
	    smc_nl_u64(skb, SMC_NLA_STATS_T_CLNT_V1_SUCC, t->clnt_v1_succ, pad) ||
	    smc_nl_u64(skb, SMC_NLA_STATS_T_CLNT_V2_SUCC, t->clnt_v2_succ, pad) ||
	    smc_nl_u64(skb, SMC_NLA_STATS_T_SRV_V1_SUCC, t->srv_v1_succ, pad) ||
	    smc_nl_u64(skb, SMC_NLA_STATS_T_SRV_V2_SUCC, t->srv_v2_succ, pad) ||
	    smc_nl_u64(skb, SMC_NLA_STATS_T_RX_BYTES, t->rx_bytes, pad) ||
	    smc_nl_u64(skb, SMC_NLA_STATS_T_TX_BYTES, t->tx_bytes, pad) ||
	    smc_gnl_put_uint(skb, SMC_NLA_STATS_T_RX_RMB_USAGE,
			     atomic64_read(&use->rx)) ||
	    smc_gnl_put_uint(skb, SMC_NLA_STATS_T_TX_RMB_USAGE,
			     atomic64_read(&use->tx)) ||
	    smc_nl_u64(skb, SMC_NLA_STATS_T_RX_CNT, t->rx_cnt, pad) ||
	    smc_nl_u64(skb, SMC_NLA_STATS_T_TX_CNT, t->tx_cnt, pad) ||
	    smc_nl_u64(skb, SMC_NLA_STATS_T_SENDPAGE_CNT, t->sendpage, pad) ||
	    smc_nl_u64(skb, SMC_NLA_STATS_T_CORK_CNT, t->cork, pad) ||
	    smc_nl_u64(skb, SMC_NLA_STATS_T_NDLY_CNT, t->nodelay, pad) ||
	    smc_nl_u64(skb, SMC_NLA_STATS_T_SPLICE_CNT, t->splice, pad) ||
	    smc_nl_u64(skb, SMC_NLA_STATS_T_URG_DATA_CNT, t->urg_data, pad)) {
		nla_nest_cancel(skb, n);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, n);
	return 0;
}

/* GET_STATS's attributes: the SMC_GEN_STATS nest. */
static int smc_stats_fill(struct sk_buff *skb, struct smc_net *sn,
			  const struct smc_stats *sum)
{
	struct nlattr *n = nla_nest_start(skb, SMC_GEN_STATS);

	if (!n ||
	    smc_stats_put_tech(skb, SMC_NLA_STATS_SMCD_TECH,
			       &sum->tech[SMC_STATS_TECH_D],
			       &sn->use[SMC_STATS_TECH_D]) ||
	    smc_stats_put_tech(skb, SMC_NLA_STATS_SMCR_TECH,
			       &sum->tech[SMC_STATS_TECH_R],
			       &sn->use[SMC_STATS_TECH_R]) ||
	    smc_nl_u64(skb, SMC_NLA_STATS_CLNT_HS_ERR_CNT, sum->clnt_hs_err,
		       SMC_NLA_STATS_PAD) ||
	    smc_nl_u64(skb, SMC_NLA_STATS_SRV_HS_ERR_CNT, sum->srv_hs_err,
		       SMC_NLA_STATS_PAD))
		return -EMSGSIZE;	/* the caller cancels the message */
	nla_nest_end(skb, n);
	return 0;
}

/*
 * GET_LINK_STATS's (af_smc's own: SMC-R's failovers, which Linux's
 * GET_STATS has no attribute for), at the top level.
 */
static int smc_stats_fill_links(struct sk_buff *skb, struct smc_net *sn,
				const struct smc_stats *sum)
{
	if (smc_nl_u64(skb, SMC_NLA_LINK_STATS_FAILOVERS, sum->failovers,
		       SMC_NLA_LINK_STATS_PAD) ||
	    smc_nl_u64(skb, SMC_NLA_LINK_STATS_RESENT, sum->resent,
		       SMC_NLA_LINK_STATS_PAD))
		return -EMSGSIZE;
	return 0;
}

/*
 * A dump of one message, cmd, of the namespace's counters summed over the
 * CPUs, its attributes put by fill.
 */
static int smc_stats_dump_one(struct sk_buff *skb, struct netlink_callback *cb,
			      u8 cmd,
			      int (*fill)(struct sk_buff *skb, struct smc_net *sn,
					  const struct smc_stats *sum))
{
	struct smc_net *sn = smc_net(sock_net(skb->sk));
	struct smc_stats *sum;
	void *hdr;
	int rc = -EMSGSIZE;

	if (cb->args[0])
		return 0;	/* the one message went out */
	sum = kmalloc(sizeof(*sum), GFP_KERNEL);
	if (!sum)
		return -ENOMEM;
	smc_stats_sum(sn->stats, sum);
	hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			  &smc_gnl_family, NLM_F_MULTI, cmd);
	if (hdr && fill(skb, sn, sum)) {
		genlmsg_cancel(skb, hdr);
	} else if (hdr) {
		genlmsg_end(skb, hdr);
		cb->args[0] = 1;
		rc = skb->len;
	}
	kfree(sum);
	return rc;
}

int smc_stats_nl_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	return smc_stats_dump_one(skb, cb, SMC_NETLINK_GET_STATS,
				  smc_stats_fill);
}

int smc_stats_nl_dump_links(struct sk_buff *skb, struct netlink_callback *cb)
{
	return smc_stats_dump_one(skb, cb, SMC_NETLINK_GET_LINK_STATS,
				  smc_stats_fill_links);
}

static int smc_stats_put_fback(struct sk_buff *skb, struct netlink_callback *cb,
			       const struct smc_stats_fback *fb, bool server,
			       const struct smc_stats_fback_rsn *r, bool totals)
{
	struct nlattr *n;
	void *hdr;

	hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			  &smc_gnl_family, NLM_F_MULTI,
			  SMC_NETLINK_GET_FBACK_STATS);
	if (!hdr)
		return -EMSGSIZE;
	n = nla_nest_start(skb, SMC_GEN_FBACK_STATS);
	if (!n ||
	    nla_put_u8(skb, SMC_NLA_FBACK_STATS_TYPE, server) ||
	    (totals &&
	     (smc_nl_u64(skb, SMC_NLA_FBACK_STATS_SRV_CNT, fb->srv_cnt,
			 SMC_NLA_FBACK_STATS_PAD) ||
	      smc_nl_u64(skb, SMC_NLA_FBACK_STATS_CLNT_CNT, fb->clnt_cnt,
			 SMC_NLA_FBACK_STATS_PAD))) ||
	    nla_put_u32(skb, SMC_NLA_FBACK_STATS_RSN_CODE, r->code) ||
	    nla_put_u16(skb, SMC_NLA_FBACK_STATS_RSN_CNT, r->count)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, n);
	genlmsg_end(skb, hdr);
	return 0;
}

/*
 * One message per reason, slot by slot, a slot's server reason before its
 * client reason (as Linux); cb->args[0] counts the positions done (2 per
 * slot), cb->args[1] whether the totals went out already. A copy is taken under the
 * lock, so no message is built with a lock held.
 */
int smc_stats_nl_dump_fback(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct smc_stats_fback *live = &smc_net(sock_net(skb->sk))->fback;
	struct smc_stats_fback *fb;
	long pos;

	fb = kmalloc(sizeof(*fb), GFP_KERNEL);
	if (!fb)
		return -ENOMEM;
	spin_lock_bh(&live->lock);
	memcpy(fb->srv, live->srv, sizeof(fb->srv));
	memcpy(fb->clnt, live->clnt, sizeof(fb->clnt));
	fb->srv_cnt = live->srv_cnt;
	fb->clnt_cnt = live->clnt_cnt;
	spin_unlock_bh(&live->lock);

	for (pos = cb->args[0]; pos < 2 * SMC_STATS_FBACK_RSNS; pos++) {
		bool server = !(pos & 1);
		const struct smc_stats_fback_rsn *r = server ?
			&fb->srv[pos / 2] : &fb->clnt[pos / 2];

		if (!r->code)
			continue;
		if (smc_stats_put_fback(skb, cb, fb, server, r, !cb->args[1]))
			break;
		cb->args[1] = 1;
	}
	cb->args[0] = pos;
	kfree(fb);
	return skb->len;
}
