// SPDX-License-Identifier: GPL-2.0
/*
 * af_smc: REG_MR and RDMA WRITE requests on a link, and the buffers of
 * SMC-R connections (see smcr_link.h).
 *
 * An RMB is a page-aligned buffer with an MR of its own on each link
 * (IB_MR_TYPE_MEM_REG, registered with REG_MR, access LOCAL_WRITE |
 * REMOTE_WRITE): the peer gets the rkey of that buffer and can write
 * nowhere else. A physically contiguous send buffer has no MR: it is
 * DMA-mapped and read by the device through the PD's local DMA lkey as
 * the source of RDMA WRITEs. A buffer's mapping on a link (struct
 * smcr_buf_map: the DMA mapping, the MR, the link's requests that name
 * it) is listed on that link (under the device's links_mutex, which the
 * link's teardown holds), so a link that goes with its device releases
 * its MRs and mappings before its PD; the pages stay with their owner
 * until smcr_buf_free(), and after it until the last mapping is gone
 * (b->refs). The mappings have their own scatterlists: a DMA mapping
 * writes its device's addresses into the list it maps.
 *
 * Where the pages come from is net.smc.smcr_buf_type's (the caller
 * passes the connection namespace's value): one block of pages only
 * (physically contiguous, at most SMCR_BUF_BLOCK_MAX), vmalloc only, or
 * mixed: a block up to SMCR_BUF_PHYS_MAX (1 MiB), vmalloc past it and
 * when no such block is free. A vmalloc'd buffer (virt) has its pages
 * listed one per SG entry, and the MR's page list (ib_map_mr_sg) makes
 * them one range for the device, iova to iova + size. Such a send buffer
 * has an MR too, with local access only, registered like an RMB's, and
 * WRITEs name it by its lkey and iova: a single SGE cannot span pages
 * that are not contiguous.
 *
 * A mapping outlives its owner's smcr_buf_free() while a posted request
 * names it (m->posted): a WRITE whose waiter gave up is still in the
 * send queue, and the device reads its source again for every
 * retransmission (rxe copies it into each packet). Such a mapping
 * becomes an orphan; the completion that takes its count to 0 (a flush
 * error once the failed link's QP is in the error state) queues the
 * link's reap_work, which destroys it in process context (the MR's
 * deregistration may sleep; the list is under links_mutex). When the QP
 * is destroyed (GONE), nothing reads any buffer of the link any more and
 * the teardown destroys the orphans left.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dma-mapping.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "smc_mem.h"
#include "smcr_link.h"

atomic_t smcr_bufs_freed_posted, smcr_bufs_deferred;

/*
 * Under l->lock: c no longer names its mapping (completed, or not
 * posted). True when that was the last request on an orphan: reap it.
 */
static bool smcr_wr_put_map(struct smcr_wr_ctx *c)
{
	struct smcr_buf_map *m = c->map;

	c->map = NULL;
	return m && !--m->posted && m->orphan;
}

/* A REG_MR or RDMA WRITE completed: its waiter, if any, takes the result. */
void smcr_wr_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct smcr_link *l = cq->cq_context;
	struct smcr_wr_ctx *c = container_of(wc->wr_cqe, struct smcr_wr_ctx, cqe);
	bool reap;

	spin_lock_bh(&l->lock);
	reap = smcr_wr_put_map(c);
	smcr_link_sq_done(l);
	c->status = wc->status ? -EIO : 0;
	if (wc->status)
		smcr_link_wc_error(l, wc);
	if (c->abandoned)
		__set_bit(c - l->wr_ctx, &l->wr_free);
	/* The link's teardown cancels it only after the CQ (no handler) went. */
	if (reap)
		queue_work(system_wq, &l->reap_work);
	spin_unlock_bh(&l->lock);
	wake_up(&l->wait);
}

/*
 * The wait condition of smcr_link_post_wr: a request taken (*ctx >= 0)
 * or the link unusable (*ctx = -ENOLINK). Takes l->lock.
 */
static int smcr_wr_get(struct smcr_link *l, int *ctx, bool local_op)
{
	int c;

	spin_lock_bh(&l->lock);
	if (!(l->state == SMCR_LINK_ACTIVE)) {
		spin_unlock_bh(&l->lock);
		*ctx = -ENOLINK;
		return 1;
	}
	/* A REG_MR or LOCAL_INV has the queue to itself: only it goes on. */
	if (l->sq_local_op && !local_op) {
		spin_unlock_bh(&l->lock);
		return 0;
	}
	c = find_first_bit(&l->wr_free, SMCR_WR_CTX);
	if (c < SMCR_WR_CTX) {
		__clear_bit(c, &l->wr_free);
		l->wr_ctx[c].status = 1;
		l->wr_ctx[c].abandoned = false;
		l->wr_ctx[c].seq++;
	}
	spin_unlock_bh(&l->lock);
	*ctx = c < SMCR_WR_CTX ? c : -EBUSY;
	return c < SMCR_WR_CTX;
}

static bool smcr_wr_finished(struct smcr_link *l, struct smcr_wr_ctx *c)
{
	bool done;

	spin_lock_bh(&l->lock);
	done = c->status != 1 || !(l->state == SMCR_LINK_ACTIVE);
	spin_unlock_bh(&l->lock);
	return done;
}

/*
 * Fills in what a request takes from the link's verbs objects (the PD's
 * lkey, an MR, a DMA address, the device for a sync) just before the post,
 * under verbs_sem (read) with the link ACTIVE: 0, or -errno and nothing
 * posted.
 */
typedef int (*smcr_wr_prep_t)(struct smcr_link *l, struct ib_send_wr *wr,
			      struct smcr_buf_map *m);

/*
 * The request's memory is the link's, not the caller's: a waiter that
 * gives up (bound, link failed) marks it abandoned and the completion
 * handler, if it ever runs, frees it. After the link's teardown no
 * handler runs and nothing is posted any more, so nothing leaks that
 * matters. Its buffer stays until the completion (see the top of this
 * file), and a wait that times out takes the link down: its QP goes to
 * the error state, which completes the request with a flush error.
 */
static int __smcr_post_wr(struct smcr_link *l, struct ib_send_wr *wr,
			  struct smcr_buf_map *m, smcr_wr_prep_t prep, bool wait,
			  bool local_op, struct smcr_wr_ticket *t)
{
	struct smcr_wr_ctx *c;
	int i, rc;

	/* Every request in flight for the whole bound: none is acknowledged. */
	if (!wait_event_timeout(l->wait, smcr_wr_get(l, &i, local_op), SMCR_SLOT_WAIT)) {
		smcr_link_timed_out(l);
		return -ETIMEDOUT;
	}
	if (i < 0)
		return i;
	c = &l->wr_ctx[i];
	wr->wr_cqe = &c->cqe;
	if (t) {
		/* Ours until posted: seq cannot change meanwhile. */
		t->ctx = i;
		t->seq = c->seq;
	}
	/* Counted before the post: the completion may run before it returns. */
	spin_lock_bh(&l->lock);
	c->map = m;
	m->posted++;
	l->sq_posted++;
	spin_unlock_bh(&l->lock);
	/*
	 * The link's teardown (its device's removal tears it down too) sets
	 * GONE, then destroys the QP under verbs_sem (write), and releases
	 * the buffers' MRs and mappings and the PD after that: ACTIVE seen
	 * under the read side keeps all of them until up_read().
	 */
	down_read(&l->verbs_sem);
	rc = -ENOLINK;
	if (l->state == SMCR_LINK_ACTIVE)
		rc = prep(l, wr, m);
	if (!rc) {
		rc = smcr_post_send(l->qp, wr);
		if (rc)
			smcr_link_post_failed(l, wr, rc);
	}
	up_read(&l->verbs_sem);
	if (rc) {
		/* Not posted: m was its owner's all along, never an orphan. */
		spin_lock_bh(&l->lock);
		smcr_wr_put_map(c);
		smcr_link_sq_done(l);
		__set_bit(i, &l->wr_free);
		spin_unlock_bh(&l->lock);
		return rc;
	}
	if (wait && !wait_event_timeout(l->wait, smcr_wr_finished(l, c),
					SMCR_SLOT_WAIT)) {
		smcr_link_timed_out(l);
		rc = -ETIMEDOUT;
	}
	spin_lock_bh(&l->lock);
	if (!wait) {
		rc = 0;
		if (c->status == 1)
			c->abandoned = true;
		else
			__set_bit(i, &l->wr_free);
	} else if (c->status == 1) {
		c->abandoned = true;
		if (!rc)
			rc = -ENOLINK;
	} else {
		rc = c->status;
		__set_bit(i, &l->wr_free);
	}
	spin_unlock_bh(&l->lock);
	return rc;
}

static bool smcr_sq_empty(struct smcr_link *l)
{
	bool done;

	spin_lock_bh(&l->lock);
	done = !l->sq_posted || !(l->state == SMCR_LINK_ACTIVE);
	spin_unlock_bh(&l->lock);
	return done;
}

/*
 * rxe of Linux 6.1 runs a local operation (REG_MR, LOCAL_INV) again when
 * an earlier request of the send queue is retried: after an ACK timeout
 * req_retry() rewinds the requester to the first request not completed
 * yet, and req_next_wqe() hands it every one from there, the local
 * operations it already ran included. A second REG_MR finds its MR valid
 * ("rxe_reg_fast_mr: mr->lkey = ... not free"), fails, and takes the QP,
 * the link and all its connections with it; handshake/hostile_smcr lost
 * connections so whenever one joined (REG_MR of its RMB) a link busy with
 * the others' WRITEs and CDCs. So a local operation has the send queue to
 * itself: new requests and SENDs wait (sq_local_op), the ones in flight
 * complete (bounded as every wait), it goes alone and is waited for, and
 * then the queue is open again. No retry can start before it, nor run it
 * twice. A local op is always waited for, so the queue is never held
 * longer than the two bounds.
 */
static int smcr_post_wr(struct smcr_link *l, struct ib_send_wr *wr,
			struct smcr_buf_map *m, smcr_wr_prep_t prep, bool wait)
{
	int rc;

	if (wr->opcode != IB_WR_REG_MR && wr->opcode != IB_WR_LOCAL_INV)
		return __smcr_post_wr(l, wr, m, prep, wait, false, NULL);
	mutex_lock(&l->local_op_mutex);
	spin_lock_bh(&l->lock);
	l->sq_local_op = true;
	spin_unlock_bh(&l->lock);
	if (!wait_event_timeout(l->wait, smcr_sq_empty(l), SMCR_SLOT_WAIT)) {
		smcr_link_timed_out(l);
		rc = -ETIMEDOUT;
	} else {
		rc = __smcr_post_wr(l, wr, m, prep, true, true, NULL);
	}
	spin_lock_bh(&l->lock);
	l->sq_local_op = false;
	spin_unlock_bh(&l->lock);
	wake_up_all(&l->wait);
	mutex_unlock(&l->local_op_mutex);
	return rc;
}

/*
 * The wait condition of smcr_wr_wait(): t's request completed (*rc its
 * result) or the link is unusable (*rc -ENOLINK). A context taken again
 * since (another seq) means it completed; had it failed, the link would
 * be down, which the second test sees. Takes l->lock.
 */
static bool smcr_wr_ticket_done(struct smcr_link *l,
				const struct smcr_wr_ticket *t, int *rc)
{
	const struct smcr_wr_ctx *c = &l->wr_ctx[t->ctx];
	bool done = true;

	spin_lock_bh(&l->lock);
	if (l->state != SMCR_LINK_ACTIVE)
		*rc = -ENOLINK;
	else if (c->seq != t->seq)
		*rc = 0;
	else if (c->status != 1)
		*rc = c->status;
	else
		done = false;
	spin_unlock_bh(&l->lock);
	return done;
}

int smcr_wr_wait(struct smcr_link *l, const struct smcr_wr_ticket *t)
{
	int rc = 0;

	if (!wait_event_timeout(l->wait, smcr_wr_ticket_done(l, t, &rc),
				SMCR_SLOT_WAIT)) {
		smcr_link_timed_out(l);
		return -ETIMEDOUT;
	}
	return rc;
}

static struct scatterlist *smcr_buf_sgl(struct smcr_buf_map *m)
{
	return m->buf->virt ? m->sgt.sgl : &m->sg;
}

static unsigned int smcr_buf_nents(const struct smcr_buf_map *m)
{
	return m->buf->virt ? m->sgt.orig_nents : 1;
}

/* b's mapping on l, or NULL. */
static struct smcr_buf_map *smcr_buf_on(const struct smcr_link *l,
					struct smcr_buf *b)
{
	int i;

	/* A slot's link is cleared by the reap of an orphan: READ_ONCE. */
	for (i = 0; i < SMCR_BUF_LINKS; i++)
		if (READ_ONCE(b->maps[i].link) == l)
			return &b->maps[i];
	return NULL;
}

static enum dma_data_direction smcr_buf_dir(const struct smcr_buf *b)
{
	return b->remote ? DMA_BIDIRECTIONAL : DMA_TO_DEVICE;
}

/*
 * Sync bytes [off, off + len) of a mapping for the device or for the
 * CPU, entry by entry (the DMA entries cover the buffer in order). Only
 * when a mapped entry needs it (need_sync): never for rxe, whose DMA
 * addresses are kernel addresses, nor for a coherent device without
 * bounce buffers. Any context.
 */
static void smcr_buf_sync(struct ib_device *ibdev, struct smcr_buf_map *m,
			  u32 off, u32 len, bool for_device)
{
	enum dma_data_direction dir = smcr_buf_dir(m->buf);
	struct scatterlist *sg;
	u32 pos = 0, from, to;
	int i;

	if (!m->need_sync)
		return;
	for_each_sg(smcr_buf_sgl(m), sg, m->dma_nents, i) {
		if (pos >= off + len)
			break;
		if (pos + sg_dma_len(sg) > off) {
			from = max(pos, off);
			to = min(pos + sg_dma_len(sg), off + len);
			if (for_device)
				ib_dma_sync_single_for_device(ibdev,
							      sg_dma_address(sg) + from - pos,
							      to - from, dir);
			else
				ib_dma_sync_single_for_cpu(ibdev,
							   sg_dma_address(sg) + from - pos,
							   to - from, dir);
		}
		pos += sg_dma_len(sg);
	}
}

/* m's MR and DMA mapping go; its scatterlist stays. */
static void smcr_buf_release(struct smcr_link *l, struct smcr_buf_map *m)
{
	struct ib_device *ibdev = l->dev->ibdev;

	if (m->mr)
		ib_dereg_mr(m->mr);
	m->mr = NULL;
	m->registered = false;
	if (m->mapped)
		ib_dma_unmap_sg(ibdev, smcr_buf_sgl(m), smcr_buf_nents(m),
				smcr_buf_dir(m->buf));
	m->mapped = false;
	m->need_sync = false;
}

void smcr_buf_release_all(struct smcr_link *l)
{
	struct smcr_buf_map *m;

	list_for_each_entry(m, &l->bufs, list)
		smcr_buf_release(l, m);
}

/* Under links_mutex: m joins (add) or leaves the link's list. */
static void smcr_buf_count(struct smcr_link *l, const struct smcr_buf_map *m,
			   bool add)
{
	const struct smcr_buf *b = m->buf;
	u64 *bytes = b->remote ? &l->rmb_bytes : &l->sndbuf_bytes;

	WRITE_ONCE(*bytes, add ? *bytes + b->size : *bytes - b->size);
}

/* b's pages as one block of order, with gfp; 0 or -ENOMEM. */
static int smcr_buf_block(struct smcr_buf *b, unsigned int order, gfp_t gfp)
{
	b->cpu = (void *)__get_free_pages(gfp, order);
	return b->cpu ? 0 : -ENOMEM;
}

/* b's pages from vmalloc; 0 or -ENOMEM. */
static int smcr_buf_vpages(struct smcr_buf *b)
{
	b->cpu = __vmalloc(b->size, SMC_MEM_GFP | __GFP_ZERO);
	if (!b->cpu)
		return -ENOMEM;
	b->virt = true;
	return 0;
}

/* m's scatterlist over its buffer's pages: one entry, or one per page. */
static int smcr_buf_sg(struct smcr_buf_map *m)
{
	struct smcr_buf *b = m->buf;
	unsigned int i, n = b->size >> PAGE_SHIFT;
	struct scatterlist *sg;

	if (!b->virt) {
		sg_init_one(&m->sg, b->cpu, b->size);
		return 0;
	}
	if (sg_alloc_table(&m->sgt, n, GFP_KERNEL_ACCOUNT))
		return -ENOMEM;
	for_each_sg(m->sgt.sgl, sg, n, i)
		sg_set_page(sg, vmalloc_to_page(b->cpu + i * PAGE_SIZE),
			    PAGE_SIZE, 0);
	return 0;
}

static void smcr_buf_sg_free(struct smcr_buf_map *m)
{
	if (m->buf->virt)
		sg_free_table(&m->sgt);
}

/*
 * b's pages as type says (net.smc.smcr_buf_type):
 * - SMCR_PHYS_CONT_BUFS: one block, nothing else. None past the largest
 *   block the page allocator has (SMCR_BUF_BLOCK_MAX, 4 MiB; asking would
 *   only fail). Up to SMCR_BUF_PHYS_MAX the allocator tries hard
 *   (reclaim, compaction), since the only way out is a fallback to TCP;
 *   past it (orders 9 and 10) it does not (__GFP_NORETRY): the handshake
 *   tries the next smaller class instead (smcr_hs_buf()).
 * - SMCR_VIRT_CONT_BUFS: vmalloc, whatever the size.
 * - SMCR_MIXED_BUFS: a block up to SMCR_BUF_PHYS_MAX, without trying hard
 *   above PAGE_ALLOC_COSTLY_ORDER (vmalloc is the way out), else vmalloc.
 * They go to the active memcg: the connection's, which smcr_hs_bufs()
 * makes active; failing at its limit, not OOM-killing (neither flag
 * lets the allocator OOM-kill). Process context.
 */
static int smcr_buf_pages(struct smcr_buf *b, enum smcr_buf_type type)
{
	unsigned int order = get_order(b->size);
	gfp_t gfp = SMC_MEM_GFP | __GFP_ZERO;
	gfp_t noretry = (gfp & ~__GFP_RETRY_MAYFAIL) | __GFP_NORETRY;

	switch (type) {
	case SMCR_PHYS_CONT_BUFS:
		if (order > SMCR_BUF_BLOCK_ORDER)
			return -ENOMEM;
		if (b->size > SMCR_BUF_PHYS_MAX)
			gfp = noretry;
		return smcr_buf_block(b, order, gfp);
	case SMCR_VIRT_CONT_BUFS:
		return smcr_buf_vpages(b);
	default:
		if (b->size <= SMCR_BUF_PHYS_MAX &&
		    !smcr_buf_block(b, order, order > PAGE_ALLOC_COSTLY_ORDER ?
					      noretry : gfp))
			return 0;
		return smcr_buf_vpages(b);
	}
}

bool smcr_buf_is_type(const struct smcr_buf *b, enum smcr_buf_type type)
{
	switch (type) {
	case SMCR_PHYS_CONT_BUFS:
		return !b->virt;
	case SMCR_VIRT_CONT_BUFS:
		return b->virt;
	default:
		return true;
	}
}

/* What smcr_buf_pages() took; process context (vfree). */
static void smcr_buf_free_pages(struct smcr_buf *b)
{
	if (b->virt)
		vfree(b->cpu);
	else
		free_pages((unsigned long)b->cpu, get_order(b->size));
}

/* A reference to b goes: the last one (no mapping, no owner) frees it. */
static void smcr_buf_put(struct smcr_buf *b)
{
	if (!refcount_dec_and_test(&b->refs))
		return;
	smcr_buf_free_pages(b);
	kfree(b);
}

/* Under links_mutex, the link not GONE: m's DMA mapping. */
static int smcr_buf_map(struct ib_device *ibdev, struct smcr_buf_map *m)
{
	struct scatterlist *sg;
	int i, n;

	n = ib_dma_map_sg(ibdev, smcr_buf_sgl(m), smcr_buf_nents(m),
			  smcr_buf_dir(m->buf));
	if (n <= 0)
		return -ENOMEM;
	m->mapped = true;
	m->dma_nents = n;
	/* A physically contiguous buffer without an MR is one DMA range. */
	if (!m->buf->virt && n != 1)
		return -EINVAL;
	if (ib_uses_virt_dma(ibdev))
		return 0;
	for_each_sg(smcr_buf_sgl(m), sg, n, i) {
		if (dma_need_sync(ibdev->dma_device, sg_dma_address(sg))) {
			m->need_sync = true;
			break;
		}
	}
	return 0;
}

int smcr_buf_add_link(struct smcr_link *l, struct smcr_buf *b)
{
	struct smcr_buf_map *m = smcr_buf_on(NULL, b);
	u32 pages = b->size >> PAGE_SHIFT;
	int rc;

	if (!m || smcr_buf_on(l, b))
		return -EINVAL;
	/* A slot may have held a mapping before (its link deleted). */
	memset(m, 0, sizeof(*m));
	m->buf = b;
	rc = smcr_buf_sg(m);
	if (rc)
		return rc;
	mutex_lock(&l->dev->links_mutex);
	rc = -ENOLINK;
	if (l->state == SMCR_LINK_GONE)
		goto fail;
	rc = smcr_buf_map(l->dev->ibdev, m);
	if (rc)
		goto fail;
	if (b->remote || b->virt) {
		/* Nothing posted names it yet: every step here unwinds below. */
		m->mr = ib_alloc_mr(l->pd, IB_MR_TYPE_MEM_REG, pages);
		if (IS_ERR(m->mr)) {
			rc = PTR_ERR(m->mr);
			m->mr = NULL;
			goto fail;
		}
		rc = ib_map_mr_sg(m->mr, smcr_buf_sgl(m), m->dma_nents, NULL,
				  PAGE_SIZE);
		if (rc != m->dma_nents) {
			rc = rc < 0 ? rc : -EINVAL;
			goto fail;
		}
	}
	list_add_tail(&m->list, &l->bufs);
	smcr_buf_count(l, m, true);
	refcount_inc(&b->refs);
	WRITE_ONCE(m->link, l);		/* the slot is taken */
	mutex_unlock(&l->dev->links_mutex);
	return 0;
fail:
	smcr_buf_release(l, m);
	mutex_unlock(&l->dev->links_mutex);
	smcr_buf_sg_free(m);
	m->buf = NULL;
	return rc;
}

struct smcr_buf *smcr_buf_alloc(struct smcr_link *l, u32 size, bool remote,
				enum smcr_buf_type type)
{
	struct smcr_buf *b;
	int rc;

	if (size < PAGE_SIZE || size > SZ_512M || !is_power_of_2(size))
		return ERR_PTR(-EINVAL);
	b = kzalloc(sizeof(*b), GFP_KERNEL);
	if (!b)
		return ERR_PTR(-ENOMEM);
	INIT_LIST_HEAD(&b->pool);
	INIT_LIST_HEAD(&b->grp);
	b->size = size;
	b->remote = remote;
	refcount_set(&b->refs, 1);	/* the owner's */
	rc = smcr_buf_pages(b, type);
	if (rc) {
		kfree(b);
		return ERR_PTR(rc);
	}
	rc = smcr_buf_add_link(l, b);
	if (rc) {
		smcr_buf_put(b);
		return ERR_PTR(rc);
	}
	return b;
}

/*
 * REG_MR's MR and key, read where the teardown cannot release the MR. A
 * mapping whose old key is invalidated (rekey) gets the next one: the
 * same MR index, the low 8 bits counted on (ib_inc_rkey), which is all
 * the key a REG_MR may change; the device takes it from this request.
 */
static int smcr_buf_register_prep(struct smcr_link *l, struct ib_send_wr *wr,
				  struct smcr_buf_map *m)
{
	struct ib_reg_wr *reg = container_of(wr, struct ib_reg_wr, wr);

	if (!m->mr)
		return -ENOLINK;
	if (m->rekey) {
		ib_update_fast_reg_key(m->mr, ib_inc_rkey(m->mr->rkey));
		m->rekey = false;
	}
	reg->mr = m->mr;
	reg->key = m->mr->rkey;
	return 0;
}

/* LOCAL_INV of the key the MR has now, under the same rule. */
static int smcr_buf_invalidate_prep(struct smcr_link *l, struct ib_send_wr *wr,
				    struct smcr_buf_map *m)
{
	if (!m->mr)
		return -ENOLINK;
	wr->ex.invalidate_rkey = m->mr->rkey;
	return 0;
}

/*
 * The rkey of a buffer's last connection dies on l: after this the
 * device refuses it (the MR is "free" until the next REG_MR, which takes
 * a new key). A local operation: no round trip to the peer.
 */
static int smcr_buf_invalidate(struct smcr_link *l, struct smcr_buf_map *m)
{
	struct ib_send_wr wr = {
		.opcode		= IB_WR_LOCAL_INV,
		.send_flags	= IB_SEND_SIGNALED,
	};

	return smcr_post_wr(l, &wr, m, smcr_buf_invalidate_prep, true);
}

int smcr_buf_register(struct smcr_link *l, struct smcr_buf *b)
{
	struct smcr_buf_map *m = smcr_buf_on(l, b);
	struct ib_reg_wr wr = {
		.wr = {
			.opcode		= IB_WR_REG_MR,
			.send_flags	= IB_SEND_SIGNALED,
		},
		/* A send buffer's MR: the device reads it, nobody else. */
		.access	= b->remote ?
			  IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE :
			  IB_ACCESS_LOCAL_WRITE,
	};
	int rc;

	if (!m)
		return -ENOLINK;
	/* A physically contiguous send buffer goes by the local DMA lkey. */
	if (!b->remote && !b->virt)
		return 0;
	if (m->rekey) {
		/*
		 * From the pool: registered under the old key. On failure
		 * it is left unregistered, so it is freed, not pooled again.
		 */
		m->registered = false;
		rc = smcr_buf_invalidate(l, m);
		if (rc)
			return rc;
	}
	if (m->registered)
		return 0;
	/*
	 * Once posted, the MR stays until the WR is done: only the link's
	 * teardown or our owner releases it, and the teardown destroys the
	 * QP first, so the WR would simply never complete (and the wait ends
	 * with the link).
	 */
	rc = smcr_post_wr(l, &wr.wr, m, smcr_buf_register_prep, true);
	if (!rc)
		m->registered = true;
	return rc;
}

bool smcr_buf_registered(const struct smcr_link *l, struct smcr_buf *b)
{
	const struct smcr_buf_map *m = smcr_buf_on(l, b);

	return m && m->registered;
}

void smcr_buf_rekey(struct smcr_buf *b)
{
	int i;

	for (i = 0; i < SMCR_BUF_LINKS; i++)
		if (b->maps[i].link)
			b->maps[i].rekey = true;
}

/*
 * Under l->lock: m is about to go. A request still naming it would read
 * (or register) memory about to be freed unless the QP is destroyed
 * (GONE, under links_mutex): count that (the deferral below makes it
 * impossible; the count is the regression test's direct signal), and let
 * the requests forget m, so their completions do not touch it.
 */
static void smcr_buf_forget(struct smcr_link *l, struct smcr_buf_map *m)
{
	int i;

	if (m->posted && l->state != SMCR_LINK_GONE)
		atomic_inc(&smcr_bufs_freed_posted);
	for (i = 0; i < SMCR_WR_CTX; i++)
		if (l->wr_ctx[i].map == m)
			l->wr_ctx[i].map = NULL;
	m->posted = 0;
}

/*
 * Under links_mutex: m off the link, its MR and mapping gone, and its
 * reference to the buffer (the last one frees the pages). m is not
 * touched afterwards: it is part of the buffer.
 */
static void smcr_buf_destroy(struct smcr_link *l, struct smcr_buf_map *m)
{
	struct smcr_buf *b = m->buf;

	spin_lock_bh(&l->lock);
	smcr_buf_forget(l, m);
	spin_unlock_bh(&l->lock);
	list_del(&m->list);
	smcr_buf_count(l, m, false);
	if (l->state != SMCR_LINK_GONE)
		smcr_buf_release(l, m);
	smcr_buf_sg_free(m);
	/* The slot is free from here on (smcr_buf_add_link() may take it). */
	WRITE_ONCE(m->link, NULL);
	smcr_buf_put(b);
}

/*
 * m goes now, or is left as an orphan while a request names it (the
 * reap destroys it then). m is no orphan yet, so nothing else destroys
 * it meanwhile; the caller holds a reference to the buffer.
 */
static void smcr_buf_unmap(struct smcr_buf_map *m)
{
	struct smcr_link *l = m->link;
	bool busy;

	mutex_lock(&l->dev->links_mutex);
	/* Under links_mutex, GONE means the QP is destroyed: nothing reads m. */
	spin_lock_bh(&l->lock);
	busy = m->posted && l->state != SMCR_LINK_GONE;
	m->orphan = busy;
	spin_unlock_bh(&l->lock);
	if (busy)
		atomic_inc(&smcr_bufs_deferred);
	else
		smcr_buf_destroy(l, m);
	mutex_unlock(&l->dev->links_mutex);
}

void smcr_buf_drop_link(struct smcr_link *l, struct smcr_buf *b)
{
	struct smcr_buf_map *m = smcr_buf_on(l, b);

	if (m)
		smcr_buf_unmap(m);
}

/* The owner's reference keeps b while its mappings go. */
void smcr_buf_free(struct smcr_buf *b)
{
	int i;

	if (!b)
		return;
	for (i = 0; i < SMCR_BUF_LINKS; i++)
		if (b->maps[i].link)
			smcr_buf_unmap(&b->maps[i]);
	smcr_buf_put(b);
}

void smcr_buf_reap(struct smcr_link *l)
{
	struct smcr_buf_map *m, *tmp;
	bool idle;

	list_for_each_entry_safe(m, tmp, &l->bufs, list) {
		spin_lock_bh(&l->lock);
		idle = m->orphan && (!m->posted || l->state == SMCR_LINK_GONE);
		spin_unlock_bh(&l->lock);
		if (!idle)
			continue;
		smcr_buf_destroy(l, m);
		atomic_dec(&smcr_bufs_deferred);
	}
}

void smcr_buf_reap_work(struct work_struct *work)
{
	struct smcr_link *l = container_of(work, struct smcr_link, reap_work);

	mutex_lock(&l->dev->links_mutex);
	smcr_buf_reap(l);
	mutex_unlock(&l->dev->links_mutex);
}

u32 smcr_buf_rkey(const struct smcr_link *l, struct smcr_buf *b)
{
	const struct smcr_buf_map *m = smcr_buf_on(l, b);

	return m && m->mr ? m->mr->rkey : 0;
}

u64 smcr_buf_addr(const struct smcr_link *l, struct smcr_buf *b)
{
	const struct smcr_buf_map *m = smcr_buf_on(l, b);

	return m && m->mr ? m->mr->iova : 0;
}

void smcr_buf_sync_cpu(struct smcr_link *l, struct smcr_buf *b)
{
	struct smcr_buf_map *m = smcr_buf_on(l, b);

	/*
	 * Lockless: a mapping goes only after the link's CQ (our caller).
	 * All of it: a CDC does not say which bytes the WRITEs before it
	 * filled (a walk of every entry only where syncs are needed at all).
	 */
	if (m && m->mapped)
		smcr_buf_sync(l->dev->ibdev, m, 0, b->size, false);
}

/*
 * The WRITE's source: sge->addr holds the offset into the buffer until
 * here. The PD, the DMA mapping and the device are the link's verbs
 * objects, which the teardown releases (the device's removal tears its
 * links down): smcr_post_wr() calls this under verbs_sem with the link
 * ACTIVE, which the teardown waits for, as every other user of the
 * link's verbs objects does (smcr_link_send(), err_work). Read before,
 * as this code once did, the lkey could come from a freed PD and the
 * sync go to a device that had been removed.
 */
static int smcr_buf_write_prep(struct smcr_link *l, struct ib_send_wr *wr,
			       struct smcr_buf_map *m)
{
	struct ib_sge *sge = wr->sg_list;
	u32 off = sge->addr;

	if (!m->mapped)
		return -ENOLINK;
	if (m->buf->virt) {
		/*
		 * Pages that are not contiguous: through the MR's page list,
		 * registered (smcr_buf_register) before the first WRITE.
		 */
		if (!m->mr || !m->registered)
			return -ENOLINK;
		sge->addr = m->mr->iova + off;
		sge->lkey = m->mr->lkey;
	} else {
		/* The source goes through the PD's local key, never the MR's. */
		sge->addr = sg_dma_address(&m->sg) + off;
		sge->lkey = l->pd->local_dma_lkey;
	}
	smcr_buf_sync(l->dev->ibdev, m, off, sge->length, true);
	return 0;
}

int smcr_buf_write(struct smcr_link *l, struct smcr_buf *b, u32 off, u32 len,
		   u32 rkey, u64 raddr, struct smcr_wr_ticket *t)
{
	struct smcr_buf_map *m = smcr_buf_on(l, b);
	struct ib_sge sge = { .addr = off, .length = len };
	struct ib_rdma_wr wr = {
		.wr = {
			.opcode		= IB_WR_RDMA_WRITE,
			.send_flags	= IB_SEND_SIGNALED,
			.sg_list	= &sge,
			.num_sge	= 1,
		},
		.remote_addr	= raddr,
		.rkey		= rkey,
	};
	int rc;

	if (off > b->size || len > b->size - off || !len)
		return -EINVAL;
	if (!m)
		return -ENOLINK;
	/* Not a local operation: never the queue to itself (smcr_post_wr). */
	rc = __smcr_post_wr(l, &wr.wr, m, smcr_buf_write_prep, !t, false, t);
	if (!rc) {
		spin_lock_bh(&l->lock);
		l->writes++;
		l->write_largest = max(l->write_largest, len);
		spin_unlock_bh(&l->lock);
	}
	return rc;
}
