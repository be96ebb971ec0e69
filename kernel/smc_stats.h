/* SPDX-License-Identifier: GPL-2.0 */
/*
 * af_smc: statistics, per network namespace, as SMC_GEN_NETLINK reports
 * them (SMC_NETLINK_GET_STATS, SMC_NETLINK_GET_FBACK_STATS, and our own
 * SMC_NETLINK_GET_LINK_STATS for SMC-R's failovers).
 *
 * The counters are the ones Linux keeps (see Documentation/netlink.md for
 * what each one counts here). Connection, byte and buffer counters are
 * per CPU (this_cpu_*; any context) and summed when read, so a dump taken
 * while connections run is a consistent-enough snapshot, never a torn
 * u64. Fallback reasons are a small table of (code, count) pairs, one for
 * clients and one for servers, under a spinlock: a fallback can be decided
 * in the clcsock's softirq callback (peer without the SMC option).
 *
 * The ring-buffer usage (Linux 6.12's RX/TX_RMB_USAGE) is not a counter of
 * events but a level: the bytes of buffers the namespace's live SMC
 * connections hold, one atomic64 per technology and direction, raised
 * when a handshake ends in SMC and lowered when the connection goes.
 *
 * The code that runs connections calls the smc_stats_*() hooks below, one
 * line each, at the point where the event happens.
 */
#ifndef _SMC_STATS_H
#define _SMC_STATS_H

#include <linux/atomic.h>
#include <linux/percpu.h>
#include <linux/spinlock.h>
#include <linux/types.h>

struct net;
struct sk_buff;
struct netlink_callback;
struct smc_sock;

/* Index of the per-technology counters: Linux's SMC_TYPE_R and _D. */
enum smc_stats_tech {
	SMC_STATS_TECH_R = 0,
	SMC_STATS_TECH_D = 1,
	SMC_STATS_TECHS,
};

/* Size buckets: <= 8K, <= 16K, ... <= 1024K, larger. */
#define SMC_STATS_BUCKETS	9

struct smc_stats_bufev {
	u64	size_small_peer;	/* peer's buffer smaller than wanted */
	u64	size_small;		/* ours smaller than wanted */
	u64	full_peer;		/* the peer's buffer was full */
	u64	full;			/* ours was full */
	u64	reuse;			/* a buffer was reused */
	u64	alloc;			/* a buffer was allocated */
	u64	dgrade;			/* a smaller buffer was taken */
};

struct smc_stats_tech_cnt {
	u64			tx_bufsize[SMC_STATS_BUCKETS];
	u64			rx_bufsize[SMC_STATS_BUCKETS];
	u64			tx_pload[SMC_STATS_BUCKETS];
	u64			rx_pload[SMC_STATS_BUCKETS];
	struct smc_stats_bufev	tx_buf, rx_buf;
	u64			clnt_v1_succ, clnt_v2_succ;
	u64			srv_v1_succ, srv_v2_succ;
	u64			sendpage, splice, cork, nodelay, urg_data;
	u64			rx_bytes, tx_bytes, rx_cnt, tx_cnt;
};

struct smc_stats {
	struct smc_stats_tech_cnt	tech[SMC_STATS_TECHS];
	u64				clnt_hs_err;
	u64				srv_hs_err;
	/* SMC-R failovers (af_smc's own SMC_NETLINK_GET_LINK_STATS). */
	u64				failovers;	/* connections moved */
	u64				resent;		/* bytes written again */
};

/* Bytes held by live connections, per technology (struct smc_net). */
struct smc_stats_use {
	atomic64_t	rx;	/* receive rings: RMBs, DMBs with their header */
	atomic64_t	tx;	/* send buffers, at their size (smc_tx.c) */
};

/* As many distinct reasons per role as Linux keeps; more are not listed. */
#define SMC_STATS_FBACK_RSNS	30

struct smc_stats_fback_rsn {
	u32	code;	/* SMC_CLC_DECL_*; 0 = free slot */
	u16	count;	/* u16 in the ABI; saturates */
};

struct smc_stats_fback {
	spinlock_t			lock;	/* bh: the fields below */
	struct smc_stats_fback_rsn	srv[SMC_STATS_FBACK_RSNS];
	struct smc_stats_fback_rsn	clnt[SMC_STATS_FBACK_RSNS];
	u64				srv_cnt, clnt_cnt;
};

/* Per-namespace set-up and teardown (smc_netns.c). */
int smc_stats_net_init(struct net *net);
void smc_stats_net_exit(struct net *net);

/* Hooks. "server" is the accepting side of a connection. */
void smc_stats_fallback(struct smc_sock *smc, bool server);
void smc_stats_hs_err(struct smc_sock *smc, bool server);
void smc_stats_hs_ok(struct smc_sock *smc, bool server);
/*
 * A CLC handshake ended: rc < 0 is a handshake error (the connection is
 * reset or dropped), else an SMC-D connection or a fallback by reason.
 */
void smc_stats_hs_done(struct smc_sock *smc, bool server, int rc);
/*
 * The connection lets go of its buffers (smc_conn_destroy()): what
 * smc_stats_hs_done() added to the usage goes off it. The handshake work
 * that adds is over by then: smc_release() cancels it, waiting.
 */
void smc_stats_conn_unuse(struct smc_sock *smc);
/*
 * A sendmsg/recvmsg on an SMC connection: asked for len, got rc; a len
 * past our send buffer, the peer's ring or our ring counts "too small".
 */
void smc_stats_tx(struct smc_sock *smc, size_t len, long rc);
void smc_stats_rx(struct smc_sock *smc, size_t len, long rc);
/* Our DMB (rx) or the peer's ring we write into (tx), per connection. */
void smc_stats_buf_alloc(struct smc_sock *smc, bool rx, u32 size);
/*
 * The connection's receive buffer is use_rx bytes now (a ring that grew):
 * the namespace's usage follows, and the new buffer is counted by size.
 */
void smc_stats_rx_resized(struct smc_sock *smc, u32 use_rx);
/*
 * Buffers full: a push found bytes waiting and no room in the peer's
 * ring (or a write without a send buffer found none); a write found our
 * send buffer full; a CDC filled our ring.
 */
void smc_stats_peer_buf_full(struct smc_sock *smc);
void smc_stats_buf_full(struct smc_sock *smc);
void smc_stats_rx_full(struct smc_sock *smc);
/* An SMC-R connection moved to another link, writing resent bytes again. */
void smc_stats_failover(struct smc_sock *smc, u64 resent);
/* TCP_CORK ended, TCP_NODELAY set on, or MSG_OOB asked for. */
void smc_stats_cork(struct smc_sock *smc);
void smc_stats_nodelay(struct smc_sock *smc);
void smc_stats_urgent(struct smc_sock *smc);
void smc_stats_splice(struct smc_sock *smc);
void smc_stats_sendpage(struct smc_sock *smc);

/* The dumps (smc_gnl.c registers them). */
int smc_stats_nl_dump(struct sk_buff *skb, struct netlink_callback *cb);
int smc_stats_nl_dump_fback(struct sk_buff *skb, struct netlink_callback *cb);
int smc_stats_nl_dump_links(struct sk_buff *skb, struct netlink_callback *cb);

#endif
