/* SPDX-License-Identifier: GPL-2.0 */
/*
 * af_smc: an SMC-R link, one RC queue pair between two RDMA ports, its
 * registered RMB (smcr_link.c, smcr_buf.c), and the LLC messages it
 * carries (smcr_llc.c).
 *
 * Life of a link:
 *   smcr_link_create()   PD, CQ, RC QP in INIT, receive buffers posted, an
 *                        RMB allocated and an MR for it allocated (its rkey
 *                        is known from here on and goes into the CLC)
 *   smcr_link_connect()  QP to RTR and RTS from the peer's QP number, PSN,
 *                        GID, MAC and MTU (what the CLC carries), then the
 *                        RMB registered (REG_MR) with remote write access
 *   smcr_llc_*()         LLC messages; CONFIRM_LINK and TEST_LINK requests
 *                        of the peer are answered by the link itself
 *   smcr_link_destroy()  an active link first sends DELETE_LINK (orderly,
 *                        all) and waits, bounded, for it to be acked; then
 *                        every verbs object is released, without waiting
 *                        for the hardware (see smcr_link_release_verbs)
 * The device may go at any time (smcr_link_dev_gone): the verbs objects
 * are released then and every call fails with -ENOLINK; the owner still
 * destroys the link.
 * A link that fails (ERROR: a completion with an error, a wait for a WR
 * or SEND that timed out, its port, the peer's DELETE_LINK, the keepalive)
 * has its QP moved to the error state (err_work), which completes every
 * posted WR with a flush error; a buffer a posted WR names outlives its
 * owner's smcr_buf_free() until then (struct smcr_buf_map).
 *
 * Every wait has a bound (Documentation/smc-r.md has the figures).
 */
#ifndef _SMCR_LINK_H
#define _SMCR_LINK_H

#include <linux/bottom_half.h>
#include <linux/completion.h>
#include <linux/mmzone.h>
#include <linux/refcount.h>
#include <linux/rwsem.h>
#include <linux/scatterlist.h>
#include <linux/wait.h>
#include <rdma/ib_verbs.h>

#include "smc_netns.h"
#include "smc_wait.h"
#include "smcr_ib.h"
#include "wire/smc_llc.h"

struct dentry;
struct net;

#define SMCR_MSG_SIZE		44	/* LLC v1 and CDC messages */
/*
 * An SMC-Rv2 LLC message may be longer (v2 extensions, up to 8192 bytes).
 * Every receive has a second SGE for the bytes past 44, into one shared
 * overflow buffer, as Linux does: a long message must not end the QP with
 * a length error. Of the long ones only an ADD_LINK's tail is read (its
 * rkeys, the group's flow takes them): copied out of the overflow buffer
 * in the completion handler, one at a time (rx_ext). A peer runs one
 * ADD_LINK flow at a time, so a second long message before the first
 * tail was taken is a peer's fault, and dropped. Long messages are sent
 * from one buffer of their own (send_ext), again one at a time.
 */
#define SMCR_MSG_V2_MAX		SMC_LLC_V2_MAX_LEN
#define SMCR_RECV_OVF		(SMCR_MSG_V2_MAX - SMCR_MSG_SIZE)
#define SMCR_RX_RING		16	/* received LLC messages awaiting the work */
#define SMCR_WR_CTX		16	/* REG_MR and RDMA WRITE requests in flight */
#define SMCR_RKEY_RESPS		8	/* CONFIRM_RKEY answers kept for waiters */
/*
 * The most bytes one RDMA WRITE carries (the port's max_msg_sz if less):
 * a push of a large ring is split into WRITEs of this size, each with its
 * own completion (smcr_conn.c), so that a send buffer's bytes go back to
 * the writer as they complete, not all at the end of one large message,
 * and no request outlives a retry far longer than the others.
 */
#define SMCR_WRITE_MAX		(1024 * 1024)
/*
 * net.smc.smcr_buf_type (the connection's namespace) says where a buffer's
 * pages come from (smcr_buf.c): one block of pages (physically
 * contiguous), vmalloc (virtually contiguous, registered page by page),
 * or mixed. Mixed tries a block up to SMCR_BUF_PHYS_MAX (order 8 on 4 KiB
 * pages) and takes vmalloc past it or when no such block is free; it is
 * also the smallest class the handshake steps down to (smcr_hs.c).
 */
#define SMCR_BUF_PHYS_MAX	(1024 * 1024)
/*
 * The largest block the page allocator gives at all: order MAX_ORDER - 1
 * (MAX_ORDER is exclusive in 6.1), 4 MiB on 4 KiB pages. A physically
 * contiguous buffer is never larger.
 */
#define SMCR_BUF_BLOCK_ORDER	(MAX_ORDER - 1)
#define SMCR_BUF_BLOCK_MAX	((u32)(PAGE_SIZE << SMCR_BUF_BLOCK_ORDER))

/* What one side tells the other about its QP (CLC Accept/Confirm). */
struct smcr_qp_info {
	u32		qpn;		/* 24 bits */
	u32		psn;		/* 24 bits */
	enum ib_mtu	mtu;
	union ib_gid	gid;
	u8		mac[ETH_ALEN];
	/*
	 * Not on the wire: where our QP's packets go (the address vector's
	 * dmac) when that is not mac, i.e. an SMC-Rv2 peer behind a router
	 * (its route's next hop). Zero: mac.
	 */
	u8		nexthop_mac[ETH_ALEN];
};

/* The links a buffer may be mapped on at once: a group's (smcr_lgr.h). */
#define SMCR_BUF_LINKS		2

/*
 * A buffer's mapping on one link (smcr_buf.c): its DMA mapping on the
 * link's device, and an MR in the link's PD. A link is a QP of its own
 * device and PD, so an RMB has an rkey per link (the peer uses each on
 * its own QP), and a WRITE reads a send buffer through the mapping of
 * the link it goes over. Listed on its link, so that the link's teardown
 * can release its MR and mapping before the PD goes.
 *
 * No mapping goes while its device may still use it: smcr_buf_free() of
 * a buffer whose mapping a posted request still names only marks that
 * mapping an orphan, left on its link's list; the last of those requests
 * to complete (or to be flushed, once the QP is in error) has the link's
 * reap_work destroy it, and the link's teardown destroys what is left
 * once the QP is destroyed. The pages go with the last mapping.
 */
struct smcr_buf_map {
	struct list_head	list;		/* link->bufs, under links_mutex */
	/*
	 * NULL: a free slot. Set under the link's links_mutex before
	 * anybody else can reach the buffer (smcr_buf_add_link()), cleared
	 * when the mapping is destroyed.
	 */
	struct smcr_link	*link;
	struct smcr_buf		*buf;
	struct scatterlist	sg;		/* !virt: the one entry */
	struct sg_table		sgt;		/* virt: an entry per page */
	int			dma_nents;	/* entries once DMA-mapped */
	bool			mapped;
	/* Some mapped entry needs a sync between the CPU and the device. */
	bool			need_sync;
	struct ib_mr		*mr;
	bool			registered;	/* REG_MR done */
	/*
	 * Handed on from a group's RMB pool: the rkey its last connection's
	 * peer knew must be invalidated, and the MR registered under a new
	 * one, before the buffer's rkey is announced again.
	 */
	bool			rekey;
	/*
	 * Under the link's lock: posted REG_MR and RDMA WRITE requests that
	 * name this mapping (its MR, or its pages as their source) and have
	 * not completed yet. The device may read the pages while it is not 0.
	 */
	unsigned int		posted;
	bool			orphan;		/* its owner freed it; under lock */
};

/*
 * A buffer of a connection (smcr_buf.c): an RMB the peer writes into (an
 * MR on each link, remote write access to this buffer only) or a send
 * buffer (the source of RDMA WRITEs). Physically contiguous up to
 * SMCR_BUF_PHYS_MAX: one SG entry, and a send buffer has no MR (the PD's
 * local DMA lkey reaches it). Otherwise virtually contiguous (virt): one
 * SG entry per page, and an MR even for a send buffer, with local access
 * only, through which WRITEs read it. The pages stay until
 * smcr_buf_free() and the last of its mappings is gone.
 */
struct smcr_buf {
	struct list_head	pool;		/* the owner's (a group's RMB pool) */
	struct list_head	grp;		/* the owner's (a group's buffers) */
	void			*cpu;
	u32			size;		/* power of two, at least a page */
	bool			remote;		/* an RMB: has an MR */
	bool			virt;		/* vmalloc'd: sgt, and an MR */
	/* An RMB: the memcg its pages are charged to (smc_mem_id()). */
	u64			memcg_id;
	/* One per mapping not destroyed yet, and the owner's until free. */
	refcount_t		refs;
	struct smcr_buf_map	maps[SMCR_BUF_LINKS];
};

/*
 * The owner of SENDs that wants to hear when they have all completed
 * (a connection's CDCs, smcr_conn.c). The link counts them in posted
 * and, once armed (smcr_link_send_arm()), calls done when the last one
 * completes, successfully or flushed: in the CQ handler, under the link's
 * lock, so done must not sleep and must not take a lock that is ever held
 * while the link's lock is taken. The owner takes it off the link
 * (smcr_link_send_forget()) before it goes away.
 */
struct smcr_send_cb {
	void		(*done)(struct smcr_send_cb *cb);
	unsigned int	posted;		/* SENDs in flight; under lock */
	bool		armed;		/* call done at 0; under lock */
};

/* A REG_MR or RDMA WRITE in flight: where its completion lands. */
struct smcr_wr_ctx {
	struct ib_cqe		cqe;
	int			status;		/* 1 pending, 0 done, <0 failed */
	bool			abandoned;	/* nobody waits: the handler frees it */
	struct smcr_buf_map	*map;		/* the mapping it names, under lock */
	/* Counts the times it was taken: a ticket's request is this use. */
	u32			seq;
};

/*
 * A request posted without waiting, to wait for later (smcr_wr_wait()):
 * which request context and which use of it. The context goes back to
 * the link at its completion; a later use has another seq, so a ticket
 * never waits for somebody else's request.
 */
struct smcr_wr_ticket {
	int			ctx;
	u32			seq;
};

enum smcr_link_state {
	SMCR_LINK_INIT,		/* QP in INIT, receives posted */
	SMCR_LINK_ACTIVE,	/* QP in RTS */
	SMCR_LINK_ERROR,	/* a work request failed: nothing more is posted */
	SMCR_LINK_GONE,		/* verbs objects released */
};

struct smcr_link {
	struct list_head	dev_list;	/* dev->links, under dev->links_mutex */
	struct list_head	retired;	/* the owner's (a group's retired) */
	struct smcr_dev		*dev;		/* referenced */
	u8			port;
	struct smcr_gid		gid;		/* the local GID */
	struct smcr_qp_info	local;
	struct smcr_qp_info	peer;
	u8			link_num;
	u8			link_uid[SMC_LLC_LGR_ID_LEN];
	/* An SMC-Rv2 group's link: LLC with the v2 header. Set before connect. */
	bool			v2;
	/*
	 * The group's limits our CONFIRM_LINK names: SMC v2.1's agreed
	 * ones (smc_v21.h), else 1 link and 0. Set before the CLC Confirm
	 * (client) or CONFIRM_LINK (server) goes out.
	 */
	u8			llc_max_links;
	u8			llc_max_conns;

	/*
	 * verbs_sem: read while posting a work request (state checked under
	 * it), write while the verbs objects are released. Never held while
	 * waiting for a completion.
	 */
	struct rw_semaphore	verbs_sem;
	spinlock_t		lock;		/* state, slots, rx ring (bh) */
	enum smcr_link_state	state;
	wait_queue_head_t	wait;		/* slots, completions, LLC answers */

	struct ib_pd		*pd;
	struct ib_cq		*cq;		/* sends and receives, softirq */
	struct ib_qp		*qp;

	/* Fixed when the link is made (smcr_link_create()). */
	u32			write_max;	/* bytes per RDMA WRITE */
	unsigned int		send_slots;
	unsigned int		recv_slots;
	/* What the device gave the QP for them (ib_create_qp()'s answer). */
	struct ib_qp_cap	qp_cap;
	u8			*send_buf;	/* send_slots messages */
	u64			send_dma;
	bool			send_mapped;	/* a DMA address may be 0 */
	unsigned long		*send_free;	/* bitmap of free slots, lock */
	struct ib_cqe		*send_cqe;	/* [send_slots] */
	struct smcr_send_cb	**send_cb;	/* [send_slots], under lock */
	u8			*recv_buf;	/* recv_slots messages */
	u64			recv_dma;
	bool			recv_mapped;
	struct ib_cqe		*recv_cqe;	/* [recv_slots] */
	u8			*recv_ovf;	/* SMCR_RECV_OVF bytes, shared */
	u64			recv_ovf_dma;
	bool			recv_ovf_mapped;
	/*
	 * A long v2 ADD_LINK's tail (rx_ext_len bytes, 0: none), copied
	 * from recv_ovf for the rx_ring entry rx_ext_at; under lock, freed
	 * for the next once rx_work handled that entry.
	 */
	u8			*rx_ext;	/* SMCR_RECV_OVF bytes */
	unsigned int		rx_ext_len;
	unsigned int		rx_ext_at;
	/*
	 * The one message longer than 44 bytes in flight (SMCR_MSG_V2_MAX
	 * bytes), sent with slot send_ext_slot (-1: free, under lock).
	 */
	u8			*send_ext;
	u64			send_ext_dma;
	bool			send_ext_mapped;
	int			send_ext_slot;

	/* REG_MR and RDMA WRITE requests; wr_free under lock. */
	struct smcr_wr_ctx	wr_ctx[SMCR_WR_CTX];
	unsigned long		wr_free;
	/* Send queue WRs (SENDs, REG_MR, WRITEs) posted, not completed; lock. */
	unsigned int		sq_posted;
	/*
	 * A REG_MR or LOCAL_INV has the send queue to itself (smcr_buf.c,
	 * smcr_post_wr()): nothing else is posted meanwhile; under lock.
	 * local_op_mutex makes them take turns.
	 */
	bool			sq_local_op;
	struct mutex		local_op_mutex;
	/*
	 * Connection buffers' mappings on this link (struct smcr_buf_map),
	 * under dev->links_mutex.
	 */
	struct list_head	bufs;
	/*
	 * Their bytes, send buffers and RMBs (in use, pooled, or freed and
	 * waiting for a posted WR): written under links_mutex, read by the
	 * netlink dump without it (SMC_NLA_LGR_R_SNDBUF_ALLOC, RMB_ALLOC).
	 */
	u64			sndbuf_bytes;
	u64			rmb_bytes;
	/* Frees the orphans nothing names any more (smcr_buf_reap). */
	struct work_struct	reap_work;
	/*
	 * Queued when the link fails (ERROR): the QP goes to the error state,
	 * so every WR still posted completes, with a flush error.
	 */
	struct work_struct	err_work;

	/*
	 * The owner's: queued (under lock) when the link stops being usable,
	 * from any context; cleared under lock before the owner destroys the
	 * link, so the owner can cancel it for good afterwards.
	 */
	struct work_struct	*down_work;
	/*
	 * The owner's: a received CDC message (44 bytes) and the link it
	 * came over, in the completion handler (softirq), no lock of the
	 * link held. Set before the link
	 * is connected; valid as long as the link (its CQ) exists.
	 */
	void			(*cdc_rx)(void *arg, struct smcr_link *l,
					  const u8 *msg);
	void			*cdc_arg;
	/*
	 * The owner's, with cdc_arg: an LLC message for the link group
	 * (ADD_LINK, ADD_LINK_CONTINUATION), from rx_work, with the bytes
	 * past 44 of a long v2 ADD_LINK (ext, ext_len; else NULL, 0), valid
	 * for the call. NULL: the link rejects ADD_LINK itself and ignores
	 * the rest.
	 */
	void			(*llc_rx)(void *arg, struct smcr_link *l,
					  const struct smc_llc_msg *m,
					  const u8 *ext, unsigned int ext_len);

	/* Received LLC messages, handled in process context by rx_work. */
	u8			rx_ring[SMCR_RX_RING][SMCR_MSG_SIZE];
	unsigned int		rx_head, rx_tail;
	struct work_struct	rx_work;
	unsigned long		last_rx;	/* jiffies of the last receive */

	/* TEST_LINK when idle this long (jiffies, 0 = off). */
	unsigned long		keepalive;
	struct delayed_work	keepalive_work;

	/* The last LLC response of each kind, for the waiters. */
	struct smc_llc_msg	confirm_resp;
	bool			confirm_done;
	struct smc_llc_msg	test_resp;
	unsigned int		test_resps;
	/*
	 * The peer's answers to our CONFIRM_RKEYs, the last SMCR_RKEY_RESPS
	 * of them (the first rtoken's rkey names the request), for the
	 * handshakes that wait for them at once (smcr_llc_confirm_rkey()).
	 */
	struct {
		u32		rkey;
		bool		negative;
	}			rkey_resp[SMCR_RKEY_RESPS];
	unsigned int		rkey_resps;

	/* Counters, shown in debugfs. */
	unsigned int		tx_msgs, rx_msgs, rx_dropped, rx_bad, rx_cdc;
	unsigned int		timeouts;	/* WR or SEND waits that timed out */
	/*
	 * RDMA WRITEs posted and the largest of them (debugfs smcr_lgr: a
	 * push past write_max is split, smcr_conn.c); under lock.
	 */
	u64			writes;
	u32			write_largest;
	int			last_wc_status;
	bool			port_down;	/* ended by its port going down */
	bool			peer_deleted;	/* ended by the peer's DELETE_LINK */
	bool			keepalive_failed; /* ended by an unanswered TEST_LINK */
	/*
	 * The owner gave up (its socket is being closed): the LLC answer
	 * waits end with -ECONNABORTED. Under lock; never cleared.
	 */
	bool			aborted;
};

/*
 * A link with no buffers: its owner brings them (smcr_buf_alloc). Its
 * slots are net's net.smc.smcr_max_send_wr/smcr_max_recv_wr, fewer when
 * the device allows fewer or memory is short (smcr_link_size()).
 */
struct smcr_link *smcr_link_create(struct smcr_path *path, struct net *net);
int smcr_link_connect(struct smcr_link *l, const struct smcr_qp_info *peer);
void smcr_link_destroy(struct smcr_link *l);

/*
 * Send one message of len bytes: 44 (CDC, LLC), or up to SMCR_MSG_V2_MAX
 * for a long SMC-Rv2 LLC message (no cb: its buffer is the link's one,
 * send_ext). Waits (bounded) only for a free slot, and for a long one for
 * the previous long one to complete. cb, if not NULL, counts it until it
 * completed (struct smcr_send_cb).
 */
int smcr_link_send(struct smcr_link *l, const void *msg, size_t len,
		   struct smcr_send_cb *cb);
/*
 * Whether a SEND counted by cb is still in flight on a usable link; if
 * so, cb->done runs when the last of them completes. One answer and the
 * arming under the link's lock: no completion falls between them.
 */
bool smcr_link_send_arm(struct smcr_link *l, struct smcr_send_cb *cb);
/* cb's SENDs still in flight complete without it from now on. */
void smcr_link_send_forget(struct smcr_link *l, struct smcr_send_cb *cb);
/* Send an encoded LLC message. */
int smcr_llc_send(struct smcr_link *l, const struct smc_llc_msg *m);
/*
 * An SMC-Rv2 ADD_LINK m with its v2 extension e after the first 44 bytes
 * (one long message, smcr_link_send()). -EINVAL on a v1 link.
 */
int smcr_llc_send_add_ext(struct smcr_link *l, const struct smc_llc_msg *m,
			  const struct smc_llc_add_link_ext *e);
/*
 * CONFIRM_LINK request (the server's side of first contact) and wait,
 * bounded, for the response; checks that it names the peer's QP.
 */
int smcr_llc_confirm_link(struct smcr_link *l);
/* The client's side: wait, bounded, until the peer's request was answered. */
int smcr_llc_await_confirm(struct smcr_link *l);
/* TEST_LINK request and wait for the echo. */
int smcr_llc_test_link(struct smcr_link *l);
/*
 * CONFIRM_RKEY request m (its first rtoken our RMB on l) and wait, bounded,
 * for the answer that names it. 0, -EREMOTEIO (refused) or -errno.
 */
int smcr_llc_confirm_rkey(struct smcr_link *l, const struct smc_llc_msg *m);
/*
 * Keepalive (net.smc.smcr_testlink_time for socket links): TEST_LINK
 * after interval jiffies without a message from the peer; an unanswered
 * one ends the link. 0 turns it off.
 */
void smcr_link_set_keepalive(struct smcr_link *l, unsigned long interval);
/* The same with net's net.smc.smcr_testlink_time (0 there: off). */
void smcr_link_keepalive_net(struct smcr_link *l, const struct net *net);
/*
 * End the LLC answer waits on l now (they return -ECONNABORTED), for an
 * owner that is being closed. The link itself stays as it is: destroying
 * it afterwards still ends an active link with DELETE_LINK. Any context
 * but hard irq; takes l->lock.
 */
void smcr_link_abort_waits(struct smcr_link *l);

/*
 * Whether l can carry messages (ACTIVE). Lockless snapshot.
 */
static inline bool smcr_link_active(const struct smcr_link *l)
{
	return READ_ONCE(l->state) == SMCR_LINK_ACTIVE;
}
/* Set the owner's down work (NULL to clear; see struct smcr_link). */
void smcr_link_set_down_work(struct smcr_link *l, struct work_struct *w);

/*
 * The link went down (ERROR): wait, bounded, until its QP is in the error
 * state and every WR posted on it has completed or been flushed, so the
 * connections reset next find their buffers idle. Process context. Not a
 * guarantee, only an orderly end: a buffer still named by a WR after the
 * bound is freed later all the same (see struct smcr_buf).
 */
void smcr_link_await_flush(struct smcr_link *l);

/* Internal to smcr_link.c and smcr_buf.c. */
#define SMCR_SLOT_WAIT		(5 * HZ * SMC_WAIT_SCALE)	/* a free send slot or request */
void smcr_link_wc_error(struct smcr_link *l, struct ib_wc *wc);
void smcr_wr_done(struct ib_cq *cq, struct ib_wc *wc);
/*
 * A wait for a WR or SEND (its completion, or a free slot) timed out: the
 * peer or the path no longer acknowledges, so the link goes down (ERROR,
 * the owner's down work, the QP to the error state). Process context.
 */
void smcr_link_timed_out(struct smcr_link *l);
void smcr_link_post_failed(struct smcr_link *l, const struct ib_send_wr *wr, int rc);

/*
 * ib_post_send() with bottom halves off. A provider may hand a kernel QP's
 * requests to a tasklet (rxe does), and a tasklet scheduled with bottom
 * halves on from process context wakes ksoftirqd, which sends the packet
 * only after a switch to it: two context switches per message of ours,
 * which qperf's raw verbs (user QPs, sent in the caller's context) do not
 * pay. With them off, local_bh_enable() runs the tasklet at once, here
 * (Documentation/smc-r.md, "The data path"). Any context, no lock held
 * that a completion handler takes.
 */
static inline int smcr_post_send(struct ib_qp *qp, const struct ib_send_wr *wr)
{
	int rc;

	local_bh_disable();
	rc = ib_post_send(qp, wr, NULL);
	local_bh_enable();
	return rc;
}

/* Under l->lock: a send queue WR completed or was not posted after all. */
static inline void smcr_link_sq_done(struct smcr_link *l)
{
	if (l->sq_posted)
		l->sq_posted--;
}

/* Internal to smcr_link.c and smcr_llc.c. */
/* The links' workqueue (rx_work, err_work, keepalive); smcr_link_init(). */
extern struct workqueue_struct *smcr_wq;
/* Under l->lock: whether l can carry messages (ACTIVE). */
static inline bool smcr_link_usable(const struct smcr_link *l)
{
	return l->state == SMCR_LINK_ACTIVE;
}

/*
 * Under l->lock: the link fails (ERROR; the owner's down work, the QP to
 * the error state), once. why, if not NULL, goes to the kernel log.
 */
void smcr_link_broken(struct smcr_link *l, const char *why);
/* The link's rx_work: handles the LLC messages on its ring. Process context. */
void smcr_rx_work(struct work_struct *work);
/* The link's keepalive_work: TEST_LINK when the peer went quiet. Process context. */
void smcr_keepalive_work(struct work_struct *work);
/*
 * An active link's orderly end, before its teardown: DELETE_LINK to the
 * peer, then a wait (bounded) for our sends to complete. Process context,
 * no lock held.
 */
void smcr_llc_delete_link(struct smcr_link *l);
/*
 * Whether the DELETE_LINK msg (SMCR_MSG_SIZE bytes) received on l ends l:
 * the whole group's, one naming l, or one we cannot read. One naming
 * another link of l's group does not (smcr_lgr_llc.c takes that link
 * down). Any context.
 */
bool smcr_llc_ends_link(const struct smcr_link *l, const u8 *msg);

/*
 * smcr_buf.c: connection buffers and their mappings on links.
 * smcr_buf_alloc() takes the pages as type says (net.smc.smcr_buf_type):
 * a block only, vmalloc only, or a block up to SMCR_BUF_PHYS_MAX and
 * vmalloc past it or for want of a block; -ENOMEM for a block past
 * SMCR_BUF_BLOCK_MAX. The buffer comes mapped on l.
 */
struct smcr_buf *smcr_buf_alloc(struct smcr_link *l, u32 size, bool remote,
				enum smcr_buf_type type);
/*
 * Map b on another link l as well (its own DMA mapping, and an MR for
 * an RMB or a virt buffer). The owner serialises it with smcr_buf_free()
 * of b. Process context.
 */
int smcr_buf_add_link(struct smcr_link *l, struct smcr_buf *b);
/*
 * b is mapped on l no more (l is going, b stays): the mapping goes now,
 * or once no posted request names it. Serialised by the owner as
 * smcr_buf_add_link(). Every buffer mapped on a link is freed or
 * dropped from it before the link is destroyed. Process context.
 */
void smcr_buf_drop_link(struct smcr_link *l, struct smcr_buf *b);
/* A buffer of the kind type asks for (an RMB from a group's pool). */
bool smcr_buf_is_type(const struct smcr_buf *b, enum smcr_buf_type type);
/*
 * REG_MR of b's MR on l (an RMB, or a send buffer that has an MR: virt;
 * a no-op for one that has none); the link must be ACTIVE; bounded wait.
 */
int smcr_buf_register(struct smcr_link *l, struct smcr_buf *b);
/* Whether b's MR on l is registered (false where b is not mapped on l). */
bool smcr_buf_registered(const struct smcr_link *l, struct smcr_buf *b);
/*
 * b leaves its owner, from a group's pool, for a new connection: the
 * next smcr_buf_register() on each link gives its MR a new rkey.
 */
void smcr_buf_rekey(struct smcr_buf *b);
/* The owner is done with b: every mapping goes, and then the pages. */
void smcr_buf_free(struct smcr_buf *b);
/* b's rkey and address on l, for the peer (0 where b has none there). */
u32 smcr_buf_rkey(const struct smcr_link *l, struct smcr_buf *b);
u64 smcr_buf_addr(const struct smcr_link *l, struct smcr_buf *b);
/* The CPU may read what the peer wrote into b over l (DMA sync). */
void smcr_buf_sync_cpu(struct smcr_link *l, struct smcr_buf *b);
/*
 * RDMA WRITE len bytes of b at off to the peer's RMB (rkey, raddr) over
 * l. b is a send buffer, or (tests) an RMB. t NULL: wait (bounded) for
 * the completion and return its result. Else return once posted, with
 * *t naming the request for smcr_wr_wait(); the mapping's posted count
 * keeps it, and b's pages, until the request completes.
 */
int smcr_buf_write(struct smcr_link *l, struct smcr_buf *b, u32 off, u32 len,
		   u32 rkey, u64 raddr, struct smcr_wr_ticket *t);
/*
 * Wait, bounded, for t's request to complete: 0 once it completed well;
 * -ENOLINK when the link failed (the request may still be posted: its
 * buffer stays by its posted count, not by this wait); -ETIMEDOUT when
 * the bound ran out, which took the link down. Process context.
 */
int smcr_wr_wait(struct smcr_link *l, const struct smcr_wr_ticket *t);
/* In the link's teardown, under links_mutex: MRs and mappings go. */
void smcr_buf_release_all(struct smcr_link *l);
/*
 * Under links_mutex: destroy the link's orphan mappings that no posted
 * WR names any more, or all of them once the QP is destroyed (GONE).
 */
void smcr_buf_reap(struct smcr_link *l);
void smcr_buf_reap_work(struct work_struct *work);
/* Orphan mappings not destroyed yet (0 once every link is gone). */
extern atomic_t smcr_bufs_deferred;
/*
 * Mappings destroyed while a posted WR still named them and the QP was
 * alive: the device could read (RDMA WRITE) or write (REG_MR) freed
 * memory. Must stay 0; shown in debugfs smcr_lgr.
 */
extern atomic_t smcr_bufs_freed_posted;

/*
 * Port "port" of dev is no longer ACTIVE (its netdev went down, say):
 * every link on it fails at once (state ERROR, waiters woken) instead of
 * after its QP's retries. A link does not come back with the port; its
 * owner destroys it and makes a new one.
 */
void smcr_link_port_down(struct smcr_dev *dev, u8 port);

/*
 * The device is going (smcr_ib_remove): every link on it releases its
 * verbs objects before this returns. Links stay allocated for their
 * owners, in state SMCR_LINK_GONE.
 */
void smcr_link_dev_gone(struct smcr_dev *dev);

/* debugfs files of the link layer (smcr_link_dbg.c), and their links. */
void smcr_link_debugfs(struct dentry *dir);
void smcr_link_debugfs_exit(void);

int smcr_link_init(void);
void smcr_link_exit(void);

#endif /* _SMCR_LINK_H */
