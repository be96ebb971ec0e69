// SPDX-License-Identifier: GPL-2.0
/*
 * af_smc: SMC-R links (see smcr_link.h): the QP and CQ of a link and their
 * life, the posting of its SENDs and its REG_MR/RDMA WRITE requests, their
 * completions, its receive buffers, its creation, connection and teardown.
 * The LLC protocol that a link speaks over all this (the messages, their
 * answers, the keepalive, DELETE_LINK before teardown) is in smcr_llc.c.
 *
 * Completions: one CQ per link, polled in softirq by ib_core, each work
 * request carrying its own ib_cqe. Send and receive completions run under
 * link->lock (bh); received LLC messages go through a small ring to
 * rx_work (smcr_llc.c, process context), which decodes them and answers
 * requests.
 *
 * Teardown never waits for the hardware (Linux 6.1's smc.ko, over rxe,
 * hangs for ever in smc_wr_drain_cq: Documentation/smc-r.md, "Why Linux
 * 6.1 declines our SMC-Rv1 over rxe"). smcr_link_release_verbs
 * destroys the QP *first*, without draining it: the provider then stops
 * processing it, and the completions it would have flushed never matter,
 * because the CQ goes next, and ib_free_cq() discards what is left in it
 * without running our handlers (it disables the softirq poller first).
 * Between the two, a barrier waits out the tasklets every CPU has pending
 * (smcr_tasklet_barrier()): rxe signals a CQ from a tasklet inside the CQ.
 * Only then are the buffers unmapped and the MR and PD released. Waiters
 * are woken with the state set to GONE and find nothing of the link they
 * need: buffers are touched by handlers only, and those are gone.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/etherdevice.h>
#include <linux/interrupt.h>
#include <linux/log2.h>
#include <linux/percpu.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <rdma/ib_cache.h>

#include "smc_netns.h"
#include "smcr_ib.h"
#include "smcr_link.h"

/*
 * Bounds (rxe under TCG: ~45 ms per RC round trip). A free send slot
 * comes back with the send's completion, which an RC QP delivers within
 * its retry budget even when the peer is gone: ack timeout 4.096 us << 16
 * = 268 ms, retry_cnt 6, so a WR that the peer stops acknowledging ends
 * with IB_WC_RETRY_EXC_ERR (and the QP in error) after at most 7 sends
 * 268 ms apart, about 1.9 s after the last ACK (rxe starts the count again
 * on every ACK that makes progress, reset_retry_counters()). Not 7: the
 * spec's 7 is seven retries, but rxe (rxe_comp.c, COMPST_ERROR_RETRY) never
 * decrements a retry_cnt of 7, so the QP would retransmit for ever, read
 * its source buffer every time, and never complete the WR. 5 s covers the
 * budget; a wait that outlives it takes the link down (smcr_link_timed_out).
 * rnr_retry stays 7, "infinite" in the spec and in rxe alike: an RNR NAK
 * comes from a live peer short of receive buffers, and a peer that NAKs
 * for ever only keeps its WRs' waits running into their 5 s bound, which
 * takes the link down and the QP to the error state, ending the retries.
 * An LLC answer needs one round trip through the peer's rx_work
 * (SMCR_LLC_WAIT, in smcr_llc.c).
 * A debug build multiplies every one of these bounds (smc_wait.h).
 */
/* A longer wait for the network: the exponent grows by log2 of the factor. */
#define SMCR_QP_TIMEOUT		(16 + ilog2(SMC_WAIT_SCALE))
#define SMCR_QP_RETRY		6
#define SMCR_QP_RNR_RETRY	7
/*
 * A failed link's flush: rxe completes every WR with a flush error as soon
 * as its completer task runs after the QP went to the error state.
 */
#define SMCR_FLUSH_WAIT		(2 * HZ * SMC_WAIT_SCALE)
/* The send queue: the send slots, plus the REG_MR/RDMA WRITE requests. */
static unsigned int smcr_sq_size(const struct smcr_link *l)
{
	return l->send_slots + SMCR_WR_CTX;
}

/* One CQ for both queues: room for every WR of both (an overrun kills it). */
static unsigned int smcr_cq_size(const struct smcr_link *l)
{
	return smcr_sq_size(l) + l->recv_slots + 4;
}

struct workqueue_struct *smcr_wq;

/*
 * Under l->lock: the link cannot carry anything any more (ERROR), and its
 * owner hears of it once, through its down work. GONE stays GONE. @why,
 * when the cause is a failure rather than an orderly end (the peer's
 * DELETE_LINK, our port going down), goes to the kernel log: every
 * connection of the group ends with ECONNRESET, and the log line is the
 * one place that says why.
 */
void smcr_link_broken(struct smcr_link *l, const char *why)
{
	if (l->state != SMCR_LINK_ACTIVE && l->state != SMCR_LINK_INIT)
		return;
	if (why)
		pr_info_ratelimited("link QP %u (%s port %u, peer QP %u) failed: %s\n",
				    l->local.qpn, l->dev->name, l->port,
				    l->peer.qpn, why);
	l->state = SMCR_LINK_ERROR;
	/* No WR may stay posted (and read its buffer) on a failed link. */
	queue_work(smcr_wq, &l->err_work);
	if (l->down_work)
		queue_work(system_wq, l->down_work);
}

/*
 * The QP of a failed link to the error state: the provider completes
 * every WR still posted with IB_WC_WR_FLUSH_ERR (the handlers see the
 * link in ERROR already) and sends nothing more. ib_modify_qp() may
 * sleep, hence a work. The QP goes only under verbs_sem (write).
 */
static void smcr_link_err_work(struct work_struct *work)
{
	struct smcr_link *l = container_of(work, struct smcr_link, err_work);
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };
	int rc = 0;

	down_read(&l->verbs_sem);
	if (l->qp && READ_ONCE(l->state) == SMCR_LINK_ERROR)
		rc = ib_modify_qp(l->qp, &attr, IB_QP_STATE);
	up_read(&l->verbs_sem);
	/* Then only the QP's destruction stops it; buffers wait for that. */
	if (rc)
		pr_warn_ratelimited("link QP %u: to the error state: %d\n",
				    l->local.qpn, rc);
}

/*
 * The provider refused a work request on a link we hold usable: our slot
 * and request accounting should make that impossible (the queue has room
 * for all of them). Only the caller's request fails (for a connection's
 * WRITE or CDC, a reset of that connection); the link carries on.
 * Logged, as nothing else says why.
 */
void smcr_link_post_failed(struct smcr_link *l, const struct ib_send_wr *wr, int rc)
{
	pr_info_ratelimited("link QP %u (%s port %u): posting a work request (opcode %d) failed: %d\n",
			    l->local.qpn, l->dev->name, l->port, wr->opcode, rc);
}

void smcr_link_timed_out(struct smcr_link *l)
{
	spin_lock_bh(&l->lock);
	l->timeouts++;
	smcr_link_broken(l, "a send or RDMA request timed out");
	spin_unlock_bh(&l->lock);
	wake_up_all(&l->wait);
}

static bool smcr_link_flushed(struct smcr_link *l)
{
	bool done;

	spin_lock_bh(&l->lock);
	done = !l->sq_posted || l->state == SMCR_LINK_GONE;
	spin_unlock_bh(&l->lock);
	return done;
}

void smcr_link_await_flush(struct smcr_link *l)
{
	/* Queued when the link failed; after this the QP is in error. */
	flush_work(&l->err_work);
	wait_event_timeout(l->wait, smcr_link_flushed(l), SMCR_FLUSH_WAIT);
}

void smcr_link_set_down_work(struct smcr_link *l, struct work_struct *w)
{
	spin_lock_bh(&l->lock);
	l->down_work = w;
	/* Already broken: the owner must hear it all the same. */
	if (w && l->state != SMCR_LINK_ACTIVE && l->state != SMCR_LINK_INIT)
		queue_work(system_wq, w);
	spin_unlock_bh(&l->lock);
}

/*
 * In a completion handler, under l->lock: a failed WR ends the link. A
 * flushed one too: the QP is in error then (the peer's QP may have put it
 * there, e.g. after our bad rkey). Teardown sets GONE before it destroys
 * anything, and GONE stays.
 */
void smcr_link_wc_error(struct smcr_link *l, struct ib_wc *wc)
{
	if (wc->status != IB_WC_WR_FLUSH_ERR || !l->last_wc_status)
		l->last_wc_status = wc->status;
	smcr_link_broken(l, ib_wc_status_msg(wc->status));
}

/*
 * Asynchronous QP errors (ib_core calls this from the provider's context,
 * softirq at worst): the QP is unusable, so is the link.
 */
static void smcr_qp_event(struct ib_event *event, void *context)
{
	struct smcr_link *l = context;

	switch (event->event) {
	case IB_EVENT_QP_FATAL:
	case IB_EVENT_QP_REQ_ERR:
	case IB_EVENT_QP_ACCESS_ERR:
	case IB_EVENT_PATH_MIG_ERR:
		spin_lock_bh(&l->lock);
		smcr_link_broken(l, ib_event_msg(event->event));
		spin_unlock_bh(&l->lock);
		wake_up(&l->wait);
		break;
	default:
		break;
	}
}

/* ---- completions (softirq) ---- */

/* Slot's SEND is over (completed, or never posted): uncount it. Lock held. */
static void smcr_send_cb_put(struct smcr_link *l, int slot)
{
	struct smcr_send_cb *cb = l->send_cb[slot];

	l->send_cb[slot] = NULL;
	if (cb && !--cb->posted && cb->armed) {
		cb->armed = false;
		cb->done(cb);
	}
}

static void smcr_send_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct smcr_link *l = cq->cq_context;
	int slot = wc->wr_cqe - l->send_cqe;

	spin_lock_bh(&l->lock);
	smcr_link_sq_done(l);
	if (wc->status)
		smcr_link_wc_error(l, wc);
	smcr_send_cb_put(l, slot);
	if (slot == l->send_ext_slot)
		l->send_ext_slot = -1;
	__set_bit(slot, l->send_free);
	spin_unlock_bh(&l->lock);
	wake_up(&l->wait);
}

bool smcr_link_send_arm(struct smcr_link *l, struct smcr_send_cb *cb)
{
	bool busy;

	spin_lock_bh(&l->lock);
	busy = cb->posted && smcr_link_usable(l);
	cb->armed = busy;
	spin_unlock_bh(&l->lock);
	return busy;
}

void smcr_link_send_forget(struct smcr_link *l, struct smcr_send_cb *cb)
{
	unsigned int i;

	spin_lock_bh(&l->lock);
	for (i = 0; i < l->send_slots; i++)
		if (l->send_cb[i] == cb)
			l->send_cb[i] = NULL;
	cb->posted = 0;
	cb->armed = false;
	spin_unlock_bh(&l->lock);
}

static int smcr_post_recv(struct smcr_link *l, int slot)
{
	struct ib_sge sge[2] = {
		{
			.addr	= l->recv_dma + slot * SMCR_MSG_SIZE,
			.length	= SMCR_MSG_SIZE,
			.lkey	= l->pd->local_dma_lkey,
		}, {
			/* the tail of a long v2 LLC message: never read */
			.addr	= l->recv_ovf_dma,
			.length	= SMCR_RECV_OVF,
			.lkey	= l->pd->local_dma_lkey,
		},
	};
	struct ib_recv_wr wr = {
		.wr_cqe		= &l->recv_cqe[slot],
		.sg_list	= sge,
		.num_sge	= 2,
	};

	return ib_post_recv(l->qp, &wr, NULL);
}

static void smcr_recv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct smcr_link *l = cq->cq_context;
	int slot = wc->wr_cqe - l->recv_cqe;
	const u8 *msg = l->recv_buf + slot * SMCR_MSG_SIZE;
	bool queue = false, wake = false, cdc = false, ext;
	u8 cdc_msg[SMCR_MSG_SIZE];

	spin_lock_bh(&l->lock);
	if (wc->status) {
		smcr_link_wc_error(l, wc);
		spin_unlock_bh(&l->lock);
		wake_up(&l->wait);
		return;
	}
	ib_dma_sync_single_for_cpu(l->dev->ibdev, l->recv_dma + slot * SMCR_MSG_SIZE,
				   SMCR_MSG_SIZE, DMA_FROM_DEVICE);
	/* A v2 ADD_LINK with its extension: the one tail that is read. */
	ext = wc->byte_len > SMCR_MSG_SIZE && msg[0] == (0x20 | SMC_LLC_ADD_LINK);
	l->rx_msgs++;
	l->last_rx = jiffies;
	/* Longer than 44 bytes: only an SMC-Rv2 LLC message may be. */
	if (wc->byte_len < SMCR_MSG_SIZE ||
	    (wc->byte_len > SMCR_MSG_SIZE && msg[0] >> 4 != 2)) {
		l->rx_bad++;
	} else if (ext && (l->rx_ext_len || l->rx_head - l->rx_tail >= SMCR_RX_RING)) {
		/* Its tail cannot be kept: it is no use without. */
		l->rx_dropped++;
	} else if (msg[0] == 0xFE) {
		l->rx_cdc++;
		if (l->cdc_rx) {
			memcpy(cdc_msg, msg, SMCR_MSG_SIZE);
			cdc = true;
		}
	} else if ((msg[0] == SMC_LLC_DELETE_LINK ||
		    msg[0] == (0x20 | SMC_LLC_DELETE_LINK)) &&
		   l->state == SMCR_LINK_ACTIVE && smcr_llc_ends_link(l, msg)) {
		/*
		 * Taken here, not only in rx_work: from now on nothing is
		 * sent to a peer whose QP may already be gone (our own
		 * destroy would otherwise send DELETE_LINK back and wait).
		 * One that names another link of the group goes to rx_work.
		 */
		l->peer_deleted = true;
		smcr_link_broken(l, NULL);
		wake = true;
	} else if (l->rx_head - l->rx_tail >= SMCR_RX_RING) {
		l->rx_dropped++;
	} else {
		memcpy(l->rx_ring[l->rx_head % SMCR_RX_RING], msg, SMCR_MSG_SIZE);
		if (ext) {
			u32 n = wc->byte_len - SMCR_MSG_SIZE;

			ib_dma_sync_single_for_cpu(l->dev->ibdev, l->recv_ovf_dma, n,
						   DMA_FROM_DEVICE);
			memcpy(l->rx_ext, l->recv_ovf, n);
			ib_dma_sync_single_for_device(l->dev->ibdev, l->recv_ovf_dma, n,
						      DMA_FROM_DEVICE);
			l->rx_ext_len = n;
			l->rx_ext_at = l->rx_head;
		}
		l->rx_head++;
		queue = true;
	}
	ib_dma_sync_single_for_device(l->dev->ibdev, l->recv_dma + slot * SMCR_MSG_SIZE,
				      SMCR_MSG_SIZE, DMA_FROM_DEVICE);
	/* Give the buffer back to the QP; a failure means it is in error. */
	if (l->state != SMCR_LINK_GONE && smcr_post_recv(l, slot))
		smcr_link_broken(l, "a receive buffer could not be posted again");
	spin_unlock_bh(&l->lock);
	if (wake)
		wake_up(&l->wait);
	if (queue)
		queue_work(smcr_wq, &l->rx_work);
	/*
	 * CDCs go to the owner in order: ib_core polls one CQ on one CPU
	 * at a time, so completions of this link never run concurrently.
	 */
	if (cdc)
		l->cdc_rx(l->cdc_arg, l, cdc_msg);
}

/* ---- sending ---- */

/*
 * The wait condition of smcr_link_send: true once a free slot was taken
 * (its index in *slot) or the link is unusable (*slot = -ENOLINK); false
 * while all slots are in flight. Takes l->lock.
 */
static int smcr_slot_get(struct smcr_link *l, bool ext, int *slot)
{
	int s;

	spin_lock_bh(&l->lock);
	if (!smcr_link_usable(l)) {
		spin_unlock_bh(&l->lock);
		*slot = -ENOLINK;
		return 1;
	}
	/*
	 * A REG_MR or LOCAL_INV has the queue to itself (smcr_post_wr());
	 * send_ext holds one long message until its SEND completed.
	 */
	if (l->sq_local_op || (ext && l->send_ext_slot >= 0)) {
		spin_unlock_bh(&l->lock);
		return 0;
	}
	s = find_first_bit(l->send_free, l->send_slots);
	if (s < l->send_slots) {
		__clear_bit(s, l->send_free);
		if (ext)
			l->send_ext_slot = s;
	}
	spin_unlock_bh(&l->lock);
	*slot = s < l->send_slots ? s : -EBUSY;
	return s < l->send_slots;
}

int smcr_link_send(struct smcr_link *l, const void *msg, size_t len,
		   struct smcr_send_cb *cb)
{
	bool ext = len > SMCR_MSG_SIZE;
	struct ib_sge sge;
	struct ib_send_wr wr = {};
	size_t size;
	u8 *buf;
	long left;
	int slot, rc;

	if (len > SMCR_MSG_V2_MAX || (ext && cb))
		return -EINVAL;
	left = wait_event_timeout(l->wait, smcr_slot_get(l, ext, &slot), SMCR_SLOT_WAIT);
	/* Every slot in flight for the whole bound: nothing is acknowledged. */
	if (!left) {
		smcr_link_timed_out(l);
		return -ETIMEDOUT;
	}
	if (slot < 0)
		return slot;
	down_read(&l->verbs_sem);
	if (!smcr_link_usable(l)) {
		rc = -ENOLINK;
		goto out;
	}
	size = ext ? len : SMCR_MSG_SIZE;
	buf = ext ? l->send_ext : l->send_buf + slot * SMCR_MSG_SIZE;
	sge.addr = ext ? l->send_ext_dma : l->send_dma + slot * SMCR_MSG_SIZE;
	memset(buf, 0, size);
	memcpy(buf, msg, len);
	ib_dma_sync_single_for_device(l->dev->ibdev, sge.addr, size, DMA_TO_DEVICE);
	sge.length = size;
	sge.lkey = l->pd->local_dma_lkey;
	wr.wr_cqe = &l->send_cqe[slot];
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IB_WR_SEND;
	wr.send_flags = IB_SEND_SIGNALED;
	/* Counted first: the completion may run before the post returns. */
	spin_lock_bh(&l->lock);
	l->sq_posted++;
	l->send_cb[slot] = cb;
	if (cb)
		cb->posted++;
	spin_unlock_bh(&l->lock);
	rc = smcr_post_send(l->qp, &wr);
	if (!rc)
		l->tx_msgs++;
	else
		smcr_link_post_failed(l, &wr, rc);
out:
	up_read(&l->verbs_sem);
	if (rc) {
		/* Not posted: the slot is ours to give back. */
		spin_lock_bh(&l->lock);
		if (wr.wr_cqe) {
			smcr_link_sq_done(l);
			smcr_send_cb_put(l, slot);	/* unless forgotten meanwhile */
		}
		if (slot == l->send_ext_slot)
			l->send_ext_slot = -1;
		__set_bit(slot, l->send_free);
		spin_unlock_bh(&l->lock);
	}
	return rc;
}

/* ---- creation ---- */

/*
 * rxe of Linux 6.1 calls a CQ's completion handler from a tasklet that is
 * part of the CQ (rxe_cq.c: rxe_cq_post() schedules cq->comp_task), and
 * destroying the CQ does not kill that tasklet: a CQ freed while it is
 * still pending leaves freed memory on a CPU's tasklet list, and the next
 * softirq there follows it (a general protection fault on 0x6b6b... in
 * tasklet_action_common(), which handshake/hostile_smcr hit; later
 * kernels call the handler directly). It is scheduled when a completion
 * is posted (a flush, after the link failed) and runs at the next softirq
 * of that CPU, which under load is ksoftirqd's turn, so it can outlive
 * our QP destroy. After ib_destroy_qp() nothing posts to the CQ any more,
 * so waiting for every tasklet pending at that point is enough.
 *
 * The barrier: on each online CPU a work item schedules a tasklet of ours
 * and waits until it has run (tasklet_kill()). A CPU runs its tasklets in
 * the order they were scheduled, so all that were pending there ran
 * before it, except one that was running on another CPU just then and
 * went back to the end of the list; the second round waits for that one.
 */
struct smcr_tl_barrier {
	struct work_struct	work;
	struct tasklet_struct	tasklet;
};

static DEFINE_PER_CPU(struct smcr_tl_barrier, smcr_tl_barriers);
static DEFINE_MUTEX(smcr_tl_barrier_lock);

static void smcr_tl_barrier_tasklet(struct tasklet_struct *t)
{
}

static void smcr_tl_barrier_work(struct work_struct *work)
{
	struct smcr_tl_barrier *b = container_of(work, struct smcr_tl_barrier, work);

	/* A bound worker: this CPU's list, behind what is pending there. */
	tasklet_schedule(&b->tasklet);
	/* Returns once it has run, and leaves it unscheduled for next time. */
	tasklet_kill(&b->tasklet);
}

static void smcr_tasklet_barrier(void)
{
	int round, cpu;

	mutex_lock(&smcr_tl_barrier_lock);
	for (round = 0; round < 2; round++) {
		for_each_online_cpu(cpu)
			queue_work_on(cpu, system_wq, &per_cpu_ptr(&smcr_tl_barriers, cpu)->work);
		for_each_online_cpu(cpu)
			flush_work(&per_cpu_ptr(&smcr_tl_barriers, cpu)->work);
	}
	mutex_unlock(&smcr_tl_barrier_lock);
}

static void smcr_link_release_verbs(struct smcr_link *l)
{
	struct ib_device *ibdev = l->dev->ibdev;

	spin_lock_bh(&l->lock);
	if ((l->state == SMCR_LINK_ACTIVE || l->state == SMCR_LINK_INIT) &&
	    l->down_work)
		queue_work(system_wq, l->down_work);
	l->state = SMCR_LINK_GONE;
	spin_unlock_bh(&l->lock);
	wake_up_all(&l->wait);

	down_write(&l->verbs_sem);
	/* QP first, no drain: see the comment at the top of this file. */
	if (l->qp)
		ib_destroy_qp(l->qp);
	l->qp = NULL;
	/* No handler of ours runs after this. */
	if (l->cq) {
		/* rxe's tasklet in the CQ, if pending, has run (see above). */
		smcr_tasklet_barrier();
		ib_free_cq(l->cq);
	}
	l->cq = NULL;
	up_write(&l->verbs_sem);
	/* Nothing queues it any more; it sees GONE and sends nothing. */
	cancel_work_sync(&l->rx_work);
	/* The same: it finds no QP. */
	cancel_work_sync(&l->err_work);
	/* Its waits ended with the wake-up above; it re-arms only if ACTIVE. */
	cancel_delayed_work_sync(&l->keepalive_work);

	/* The connections' MRs and mappings, before the PD goes. */
	smcr_buf_release_all(l);
	/* Nothing reads the orphans any more: they go now. */
	smcr_buf_reap(l);
	if (l->recv_mapped)
		ib_dma_unmap_single(ibdev, l->recv_dma,
				    l->recv_slots * SMCR_MSG_SIZE, DMA_FROM_DEVICE);
	l->recv_mapped = false;
	if (l->recv_ovf_mapped)
		ib_dma_unmap_single(ibdev, l->recv_ovf_dma, SMCR_RECV_OVF,
				    DMA_FROM_DEVICE);
	l->recv_ovf_mapped = false;
	if (l->send_ext_mapped)
		ib_dma_unmap_single(ibdev, l->send_ext_dma, SMCR_MSG_V2_MAX,
				    DMA_TO_DEVICE);
	l->send_ext_mapped = false;
	if (l->send_mapped)
		ib_dma_unmap_single(ibdev, l->send_dma,
				    l->send_slots * SMCR_MSG_SIZE, DMA_TO_DEVICE);
	l->send_mapped = false;
	if (l->pd)
		ib_dealloc_pd(l->pd);
	l->pd = NULL;
}

static void smcr_link_free_slots(struct smcr_link *l)
{
	kfree(l->send_buf);
	kfree(l->recv_buf);
	bitmap_free(l->send_free);
	kfree(l->send_cqe);
	kfree(l->send_cb);
	kfree(l->recv_cqe);
	l->send_buf = NULL;
	l->recv_buf = NULL;
	l->send_free = NULL;
	l->send_cqe = NULL;
	l->send_cb = NULL;
	l->recv_cqe = NULL;
}

/*
 * The slots' message buffers (DMA-mapped whole, so physically contiguous:
 * 2048 slots are 88 KiB) and their bookkeeping. No warning on failure:
 * the caller retries with fewer slots.
 */
static int smcr_link_alloc_slots(struct smcr_link *l)
{
	const gfp_t gfp = GFP_KERNEL | __GFP_NOWARN;
	unsigned int i;

	l->send_buf = kcalloc(l->send_slots, SMCR_MSG_SIZE, gfp);
	l->recv_buf = kcalloc(l->recv_slots, SMCR_MSG_SIZE, gfp);
	l->send_free = bitmap_zalloc(l->send_slots, gfp);
	l->send_cqe = kcalloc(l->send_slots, sizeof(*l->send_cqe), gfp);
	l->send_cb = kcalloc(l->send_slots, sizeof(*l->send_cb), gfp);
	l->recv_cqe = kcalloc(l->recv_slots, sizeof(*l->recv_cqe), gfp);
	if (!l->send_buf || !l->recv_buf || !l->send_free || !l->send_cqe ||
	    !l->send_cb || !l->recv_cqe) {
		smcr_link_free_slots(l);
		return -ENOMEM;
	}
	bitmap_fill(l->send_free, l->send_slots);
	for (i = 0; i < l->send_slots; i++)
		l->send_cqe[i].done = smcr_send_done;
	for (i = 0; i < l->recv_slots; i++)
		l->recv_cqe[i].done = smcr_recv_done;
	return 0;
}

/*
 * Halves both slot counts for another try, neither below the smaller of
 * its default and what was asked for, as Linux 6.19 does when the memory
 * is short. False when neither can shrink.
 */
static bool smcr_link_shrink(struct smcr_link *l, unsigned int send_floor,
			     unsigned int recv_floor)
{
	unsigned int send = max(l->send_slots / 2, send_floor);
	unsigned int recv = max(l->recv_slots / 2, recv_floor);

	if (send == l->send_slots && recv == l->recv_slots)
		return false;
	l->send_slots = send;
	l->recv_slots = recv;
	return true;
}

static bool smcr_link_fits(const struct smcr_link *l)
{
	const struct ib_device_attr *attrs = &l->dev->ibdev->attrs;

	return smcr_sq_size(l) <= attrs->max_qp_wr &&
	       l->recv_slots <= attrs->max_qp_wr &&
	       smcr_cq_size(l) <= attrs->max_cqe;
}

/*
 * Under dev->links_mutex, the device present (its attributes are read):
 * settles send_slots and recv_slots, set to what the namespace asks for,
 * and allocates their buffers. Fewer when the device's queues or the
 * memory cannot hold that many (smcr_link_shrink()).
 */
static int smcr_link_size(struct smcr_link *l)
{
	unsigned int send_floor = min(l->send_slots, SMCR_SEND_SLOTS_DEFAULT);
	unsigned int recv_floor = min(l->recv_slots, SMCR_RECV_SLOTS_DEFAULT);

	while (!smcr_link_fits(l))
		if (!smcr_link_shrink(l, send_floor, recv_floor))
			return -EINVAL;
	while (smcr_link_alloc_slots(l))
		if (!smcr_link_shrink(l, send_floor, recv_floor))
			return -ENOMEM;
	return 0;
}

static void smcr_link_free(struct smcr_link *l)
{
	/* A keepalive set after the verbs went would still be queued. */
	cancel_delayed_work_sync(&l->keepalive_work);
	/* Queued by a completion before the CQ went; the orphans are gone. */
	cancel_work_sync(&l->reap_work);
	smcr_link_free_slots(l);
	kfree(l->recv_ovf);
	kfree(l->rx_ext);
	kfree(l->send_ext);
	smcr_dev_put(l->dev);
	kfree(l);
}

static int smcr_link_map(struct smcr_link *l)
{
	struct ib_device *ibdev = l->dev->ibdev;
	u64 dma;

	dma = ib_dma_map_single(ibdev, l->send_buf, l->send_slots * SMCR_MSG_SIZE,
				DMA_TO_DEVICE);
	if (ib_dma_mapping_error(ibdev, dma))
		return -ENOMEM;
	l->send_dma = dma;
	l->send_mapped = true;
	dma = ib_dma_map_single(ibdev, l->recv_buf, l->recv_slots * SMCR_MSG_SIZE,
				DMA_FROM_DEVICE);
	if (ib_dma_mapping_error(ibdev, dma))
		return -ENOMEM;
	l->recv_dma = dma;
	l->recv_mapped = true;
	dma = ib_dma_map_single(ibdev, l->recv_ovf, SMCR_RECV_OVF, DMA_FROM_DEVICE);
	if (ib_dma_mapping_error(ibdev, dma))
		return -ENOMEM;
	l->recv_ovf_dma = dma;
	l->recv_ovf_mapped = true;
	dma = ib_dma_map_single(ibdev, l->send_ext, SMCR_MSG_V2_MAX, DMA_TO_DEVICE);
	if (ib_dma_mapping_error(ibdev, dma))
		return -ENOMEM;
	l->send_ext_dma = dma;
	l->send_ext_mapped = true;
	return 0;
}

/* Under dev->links_mutex, with the device present. */
static int smcr_link_verbs(struct smcr_link *l)
{
	struct ib_device *ibdev = l->dev->ibdev;
	struct ib_qp_init_attr qp_attr = {};
	struct ib_qp_attr attr = {};
	struct ib_port_attr pattr;
	int rc, i;

	l->pd = ib_alloc_pd(ibdev, 0);
	if (IS_ERR(l->pd)) {
		rc = PTR_ERR(l->pd);
		l->pd = NULL;
		return rc;
	}
	rc = smcr_link_map(l);
	if (rc)
		return rc;
	l->cq = ib_alloc_cq(ibdev, l, smcr_cq_size(l), 0, IB_POLL_SOFTIRQ);
	if (IS_ERR(l->cq)) {
		rc = PTR_ERR(l->cq);
		l->cq = NULL;
		return rc;
	}
	qp_attr.qp_context = l;
	qp_attr.event_handler = smcr_qp_event;
	qp_attr.send_cq = l->cq;
	qp_attr.recv_cq = l->cq;
	qp_attr.sq_sig_type = IB_SIGNAL_REQ_WR;
	qp_attr.qp_type = IB_QPT_RC;
	qp_attr.cap.max_send_wr = smcr_sq_size(l);
	qp_attr.cap.max_recv_wr = l->recv_slots;
	qp_attr.cap.max_send_sge = 1;
	qp_attr.cap.max_recv_sge = 2;	/* the v2 overflow, smcr_post_recv */
	l->qp = ib_create_qp(l->pd, &qp_attr);
	if (IS_ERR(l->qp)) {
		rc = PTR_ERR(l->qp);
		l->qp = NULL;
		return rc;
	}
	/* The driver wrote back what it gave, which may be more. */
	l->qp_cap = qp_attr.cap;
	attr.qp_state = IB_QPS_INIT;
	attr.pkey_index = 0;
	attr.port_num = l->port;
	attr.qp_access_flags = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE;
	rc = ib_modify_qp(l->qp, &attr, IB_QP_STATE | IB_QP_PKEY_INDEX |
			  IB_QP_PORT | IB_QP_ACCESS_FLAGS);
	if (rc)
		return rc;
	for (i = 0; i < l->recv_slots; i++) {
		rc = smcr_post_recv(l, i);
		if (rc)
			return rc;
	}
	rc = ib_query_port(ibdev, l->port, &pattr);
	if (rc)
		return rc;
	l->local.qpn = l->qp->qp_num;
	l->local.psn = get_random_u32() & 0xffffff;
	l->local.mtu = pattr.active_mtu;
	l->local.gid = l->gid.gid;
	ether_addr_copy(l->local.mac, l->gid.mac);
	return 0;
}

/*
 * Bytes per RDMA WRITE: SMCR_WRITE_MAX, or the port's max_msg_sz when a
 * device allows less. Under links_mutex with the device not gone.
 */
static u32 smcr_link_write_max(struct smcr_link *l)
{
	struct ib_port_attr attr;

	if (ib_query_port(l->dev->ibdev, l->port, &attr) || !attr.max_msg_sz)
		return SMCR_WRITE_MAX;
	return min_t(u32, attr.max_msg_sz, SMCR_WRITE_MAX);
}

struct smcr_link *smcr_link_create(struct smcr_path *path, struct net *net)
{
	struct smc_net *sn = smc_net(net);
	struct smcr_link *l;
	int rc, i;

	l = kzalloc(sizeof(*l), GFP_KERNEL);
	if (!l)
		return ERR_PTR(-ENOMEM);
	kref_get(&path->dev->ref);
	l->dev = path->dev;
	l->port = path->port;
	l->gid = path->gid;
	l->link_num = 1;
	get_random_bytes(l->link_uid, sizeof(l->link_uid));
	init_rwsem(&l->verbs_sem);
	mutex_init(&l->local_op_mutex);
	spin_lock_init(&l->lock);
	init_waitqueue_head(&l->wait);
	INIT_WORK(&l->rx_work, smcr_rx_work);
	INIT_WORK(&l->err_work, smcr_link_err_work);
	INIT_WORK(&l->reap_work, smcr_buf_reap_work);
	INIT_DELAYED_WORK(&l->keepalive_work, smcr_keepalive_work);
	INIT_LIST_HEAD(&l->dev_list);
	l->wr_free = GENMASK(SMCR_WR_CTX - 1, 0);
	for (i = 0; i < SMCR_WR_CTX; i++)
		l->wr_ctx[i].cqe.done = smcr_wr_done;
	INIT_LIST_HEAD(&l->bufs);
	l->state = SMCR_LINK_INIT;
	l->send_slots = READ_ONCE(sn->sysctl_smcr_max_send_wr);
	l->recv_slots = READ_ONCE(sn->sysctl_smcr_max_recv_wr);
	l->send_ext_slot = -1;
	l->recv_ovf = kmalloc(SMCR_RECV_OVF, GFP_KERNEL);
	l->rx_ext = kmalloc(SMCR_RECV_OVF, GFP_KERNEL);
	l->send_ext = kmalloc(SMCR_MSG_V2_MAX, GFP_KERNEL);
	if (!l->recv_ovf || !l->rx_ext || !l->send_ext) {
		smcr_link_free(l);
		return ERR_PTR(-ENOMEM);
	}

	mutex_lock(&l->dev->links_mutex);
	if (l->dev->gone) {
		rc = -ENODEV;
		goto fail;
	}
	l->write_max = smcr_link_write_max(l);
	rc = smcr_link_size(l);
	if (rc)
		goto fail;
	rc = smcr_link_verbs(l);
	if (rc) {
		smcr_link_release_verbs(l);
		goto fail;
	}
	list_add_tail(&l->dev_list, &l->dev->links);
	mutex_unlock(&l->dev->links_mutex);
	return l;
fail:
	mutex_unlock(&l->dev->links_mutex);
	smcr_link_free(l);
	return ERR_PTR(rc);
}

/* Under dev->links_mutex: INIT -> RTR -> RTS. */
static int smcr_qp_ready(struct smcr_link *l, const struct smcr_qp_info *peer)
{
	struct ib_qp_attr attr = {};
	int rc;

	attr.qp_state = IB_QPS_RTR;
	attr.path_mtu = min(l->local.mtu, peer->mtu);
	attr.ah_attr.type = RDMA_AH_ATTR_TYPE_ROCE;
	rdma_ah_set_port_num(&attr.ah_attr, l->port);
	/* hop limit 64: a RoCEv2 packet is an IP packet and may be routed. */
	rdma_ah_set_grh(&attr.ah_attr, (union ib_gid *)&peer->gid, 0, l->gid.index, 64, 0);
	memcpy(attr.ah_attr.roce.dmac, is_zero_ether_addr(peer->nexthop_mac) ?
	       peer->mac : peer->nexthop_mac, ETH_ALEN);
	attr.dest_qp_num = peer->qpn;
	attr.rq_psn = peer->psn;
	attr.max_dest_rd_atomic = 1;
	attr.min_rnr_timer = 12;	/* 0.64 ms */
	rc = ib_modify_qp(l->qp, &attr, IB_QP_STATE | IB_QP_AV | IB_QP_PATH_MTU |
			  IB_QP_DEST_QPN | IB_QP_RQ_PSN |
			  IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER);
	if (rc)
		return rc;
	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IB_QPS_RTS;
	attr.timeout = SMCR_QP_TIMEOUT;
	attr.retry_cnt = SMCR_QP_RETRY;
	attr.rnr_retry = SMCR_QP_RNR_RETRY;
	attr.sq_psn = l->local.psn;
	attr.max_rd_atomic = 1;
	return ib_modify_qp(l->qp, &attr, IB_QP_STATE | IB_QP_TIMEOUT |
			    IB_QP_RETRY_CNT | IB_QP_RNR_RETRY | IB_QP_SQ_PSN |
			    IB_QP_MAX_QP_RD_ATOMIC);
}

int smcr_link_connect(struct smcr_link *l, const struct smcr_qp_info *peer)
{
	int rc;

	if (peer->qpn > 0xffffff || peer->psn > 0xffffff ||
	    peer->mtu < IB_MTU_256 || peer->mtu > IB_MTU_4096)
		return -EINVAL;
	mutex_lock(&l->dev->links_mutex);
	if (l->state != SMCR_LINK_INIT) {
		mutex_unlock(&l->dev->links_mutex);
		return -ENOLINK;
	}
	l->peer = *peer;
	rc = smcr_qp_ready(l, peer);
	if (!rc) {
		spin_lock_bh(&l->lock);
		if (l->state == SMCR_LINK_INIT)
			l->state = SMCR_LINK_ACTIVE;
		else
			rc = -ENOLINK;
		spin_unlock_bh(&l->lock);
	}
	mutex_unlock(&l->dev->links_mutex);
	return rc;
}

void smcr_link_destroy(struct smcr_link *l)
{
	struct smcr_dev *dev = l->dev;

	/* No lock: a state change meanwhile only makes the send fail. */
	if (READ_ONCE(l->state) == SMCR_LINK_ACTIVE)
		smcr_llc_delete_link(l);

	mutex_lock(&dev->links_mutex);
	list_del_init(&l->dev_list);
	if (l->state != SMCR_LINK_GONE)
		smcr_link_release_verbs(l);
	mutex_unlock(&dev->links_mutex);
	smcr_link_free(l);
}

void smcr_link_port_down(struct smcr_dev *dev, u8 port)
{
	struct smcr_link *l;

	mutex_lock(&dev->links_mutex);
	list_for_each_entry(l, &dev->links, dev_list) {
		if (l->port != port)
			continue;
		spin_lock_bh(&l->lock);
		if (l->state == SMCR_LINK_ACTIVE || l->state == SMCR_LINK_INIT) {
			smcr_link_broken(l, NULL);
			l->port_down = true;
		}
		spin_unlock_bh(&l->lock);
		wake_up(&l->wait);
	}
	mutex_unlock(&dev->links_mutex);
}

void smcr_link_dev_gone(struct smcr_dev *dev)
{
	struct smcr_link *l;

	mutex_lock(&dev->links_mutex);
	list_for_each_entry(l, &dev->links, dev_list)
		if (l->state != SMCR_LINK_GONE)
			smcr_link_release_verbs(l);
	mutex_unlock(&dev->links_mutex);
}

int smcr_link_init(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct smcr_tl_barrier *b = per_cpu_ptr(&smcr_tl_barriers, cpu);

		INIT_WORK(&b->work, smcr_tl_barrier_work);
		tasklet_setup(&b->tasklet, smcr_tl_barrier_tasklet);
	}
	/* rx_work answers LLC requests, which waits (bounded) for send slots. */
	smcr_wq = alloc_workqueue("af_smc_llc", WQ_UNBOUND, 0);
	return smcr_wq ? 0 : -ENOMEM;
}

void smcr_link_exit(void)
{
	destroy_workqueue(smcr_wq);
}
