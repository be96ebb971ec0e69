// SPDX-License-Identifier: GPL-2.0
/*
 * af_smc: the loopback ISM device, SMC-D inside one kernel.
 *
 * DMBs are plain kernel memory. Moving data is a memcpy into the target
 * DMB; a signal calls the owner's handler right away, in the mover's
 * context. Because both ends share the memory, a sender may also attach
 * the peer's DMB and write into it directly, which saves the copy into a
 * send buffer ("nocopy"; see Documentation/smc-d.md).
 *
 * Lifetime of a DMB: the owner holds one reference from register to
 * unregister, every attachment one more; the memory is freed with the
 * last. Unregistering also marks the DMB dead, so moves to it fail and no
 * handler runs after unregister_dmb() returns (the handler runs under
 * the DMB's lock, which unregister takes to clear it).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/xarray.h>

#include "smc_ism.h"

/*
 * Off by default while SMC-D connections are not implemented: a client
 * with the device proposes SMC-D, and no server can accept it yet.
 */
static bool loopback_ism;
module_param(loopback_ism, bool, 0444);
MODULE_PARM_DESC(loopback_ism, "register the in-kernel loopback ISM device, so clients propose SMC-D");

struct smc_lo_dmb {
	u64			token;
	void			*mem;
	u32			len;
	refcount_t		ref;
	struct rcu_head		rcu;
	spinlock_t		lock;		/* handler, owner, dead */
	smc_dmb_signal_t	handler;
	void			*owner;
	bool			dead;
};

/* Indexed by the low 32 bits of the token. */
static DEFINE_XARRAY_ALLOC(smc_lo_dmbs);
static u32 smc_lo_next_id;
/* High token bits, random per load, so stale tokens rarely match. */
static u32 smc_lo_token_hi;

static struct smc_lo_dmb *smc_lo_get(u64 token)
{
	struct smc_lo_dmb *d;

	rcu_read_lock();
	d = xa_load(&smc_lo_dmbs, (u32)token);
	if (d && (d->token != token || !refcount_inc_not_zero(&d->ref)))
		d = NULL;
	rcu_read_unlock();
	return d;
}

static void smc_lo_put(struct smc_lo_dmb *d)
{
	if (!refcount_dec_and_test(&d->ref))
		return;
	xa_erase(&smc_lo_dmbs, (u32)d->token);
	kvfree(d->mem);
	kfree_rcu(d, rcu);	/* lookups run under RCU */
}

static int smc_lo_register_dmb(struct smc_ism_dev *dev, struct smc_dmb *dmb,
			       smc_dmb_signal_t handler, void *owner)
{
	struct smc_lo_dmb *d;
	u32 id;
	int rc;

	d = kzalloc(sizeof(*d), GFP_KERNEL);
	if (!d)
		return -ENOMEM;
	d->mem = kvzalloc(dmb->len, GFP_KERNEL);
	if (!d->mem) {
		kfree(d);
		return -ENOMEM;
	}
	d->len = dmb->len;
	refcount_set(&d->ref, 1);
	spin_lock_init(&d->lock);
	d->handler = handler;
	d->owner = owner;
	rc = xa_alloc_cyclic(&smc_lo_dmbs, &id, NULL, xa_limit_32b,
			     &smc_lo_next_id, GFP_KERNEL);
	if (rc < 0) {
		kvfree(d->mem);
		kfree(d);
		return rc;
	}
	d->token = (u64)smc_lo_token_hi << 32 | id;
	/* Publish only the finished object. */
	xa_store(&smc_lo_dmbs, id, d, GFP_KERNEL);
	dmb->token = d->token;
	dmb->cpu_addr = d->mem;
	return 0;
}

static void smc_lo_unregister_dmb(struct smc_ism_dev *dev, struct smc_dmb *dmb)
{
	struct smc_lo_dmb *d = smc_lo_get(dmb->token);

	if (WARN_ON_ONCE(!d))
		return;
	spin_lock_bh(&d->lock);
	d->dead = true;
	d->handler = NULL;
	d->owner = NULL;
	spin_unlock_bh(&d->lock);
	smc_lo_put(d);		/* ours from smc_lo_get() */
	smc_lo_put(d);		/* the owner's */
	dmb->cpu_addr = NULL;
}

static int smc_lo_move_data(struct smc_ism_dev *dev, u64 peer_gid, u64 token,
			    u32 offset, const void *data, u32 len, bool signal)
{
	struct smc_lo_dmb *d;
	int rc = 0;

	if (peer_gid != dev->gid)
		return -EHOSTUNREACH;
	d = smc_lo_get(token);
	if (!d)
		return -ENOENT;
	if (offset > d->len || len > d->len - offset) {
		rc = -EINVAL;
		goto out;
	}
	memcpy(d->mem + offset, data, len);
	if (signal) {
		spin_lock_bh(&d->lock);
		if (d->dead)
			rc = -ENOENT;
		else
			d->handler(d->owner);
		spin_unlock_bh(&d->lock);
	}
out:
	smc_lo_put(d);
	return rc;
}

static void *smc_lo_attach_dmb(struct smc_ism_dev *dev, u64 token, u32 *len)
{
	struct smc_lo_dmb *d = smc_lo_get(token);

	if (!d)
		return NULL;
	*len = d->len;
	return d->mem;		/* the reference stays until detach */
}

static void smc_lo_detach_dmb(struct smc_ism_dev *dev, u64 token)
{
	struct smc_lo_dmb *d = smc_lo_get(token);

	if (WARN_ON_ONCE(!d))
		return;
	smc_lo_put(d);		/* from smc_lo_get() */
	smc_lo_put(d);		/* the attachment's */
}

static void smc_lo_set_dmb_owner(struct smc_ism_dev *dev, struct smc_dmb *dmb,
				 smc_dmb_signal_t handler, void *owner)
{
	struct smc_lo_dmb *d = smc_lo_get(dmb->token);

	if (WARN_ON_ONCE(!d))
		return;
	/* Handlers run under d->lock: none of the old owner's is left. */
	spin_lock_bh(&d->lock);
	d->handler = handler;
	d->owner = owner;
	d->dead = !handler;
	spin_unlock_bh(&d->lock);
	smc_lo_put(d);
}

static bool smc_lo_dmb_busy(struct smc_ism_dev *dev, struct smc_dmb *dmb)
{
	struct smc_lo_dmb *d = smc_lo_get(dmb->token);
	bool busy;

	if (WARN_ON_ONCE(!d))
		return true;
	/* The owner's reference and ours: any more is someone else's. */
	busy = refcount_read(&d->ref) > 2;
	smc_lo_put(d);
	return busy;
}

static const struct smc_ism_ops smc_lo_ops = {
	.register_dmb	= smc_lo_register_dmb,
	.unregister_dmb	= smc_lo_unregister_dmb,
	.move_data	= smc_lo_move_data,
	.attach_dmb	= smc_lo_attach_dmb,
	.detach_dmb	= smc_lo_detach_dmb,
	.set_dmb_owner	= smc_lo_set_dmb_owner,
	.dmb_busy	= smc_lo_dmb_busy,
};

static struct smc_ism_dev smc_lo_dev = {
	.ops	= &smc_lo_ops,
	.name	= "loopback-ism",
	.chid	= SMC_ISM_CHID_LOOPBACK,
};

int smc_loopback_init(void)
{
	if (!loopback_ism)
		return 0;
	smc_lo_token_hi = get_random_u32();
	/* A random GID: unlike a hardware ISM, nothing else names it. */
	do {
		smc_lo_dev.gid = get_random_u64();
	} while (!smc_lo_dev.gid);
	return smc_ism_register(&smc_lo_dev);
}

void smc_loopback_exit(void)
{
	if (!loopback_ism)
		return;
	smc_ism_unregister(&smc_lo_dev);
	WARN_ON_ONCE(!xa_empty(&smc_lo_dmbs));
}
