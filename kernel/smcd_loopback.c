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
 *
 * Who may write: a DMB is made for one TCP connection (its owner's
 * clcsock, struct smcd_dmb_tuple), and only the connection at the other
 * end of that TCP connection, in a network namespace of the same user
 * namespace (smcd_dmb_tuple_is_peer() says why), may attach it or move
 * data into it; the token only finds the DMB. Tokens are random 64-bit values
 * all the same (never 0, unique among live DMBs), so they tell nothing
 * about other DMBs and cannot be guessed from one's own.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/random.h>
#include <linux/rhashtable.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "smcd_ism.h"
#include "smc_mem.h"

/*
 * On by default: every AF_SMC connection inside this kernel becomes SMC-D.
 * loopback_ism=0 leaves the device out, so connections fall back to TCP
 * (for tests of the fallback path, or to compare).
 */
static bool loopback_ism = true;
module_param(loopback_ism, bool, 0444);
MODULE_PARM_DESC(loopback_ism, "register the in-kernel loopback ISM device, so connections inside this kernel use SMC-D (default: on)");

struct smcd_lo_dmb {
	u64			token;
	struct rhash_head	node;		/* smcd_lo_dmbs, by token */
	void			*mem;
	u32			len;
	refcount_t		ref;
	struct rcu_head		rcu;
	spinlock_t		lock;		/* handler, owner, tuple, dead */
	smcd_dmb_signal_t	handler;
	void			*owner;
	struct smcd_dmb_tuple	tuple;		/* the owner's TCP connection */
	bool			dead;
};

/* Live DMBs by token: O(1) lookups under RCU, whatever the tokens. */
static struct rhashtable smcd_lo_dmbs;
static const struct rhashtable_params smcd_lo_params = {
	.key_len	= sizeof(u64),
	.key_offset	= offsetof(struct smcd_lo_dmb, token),
	.head_offset	= offsetof(struct smcd_lo_dmb, node),
	.automatic_shrinking = true,
};

static struct smcd_lo_dmb *smcd_lo_get(u64 token)
{
	struct smcd_lo_dmb *d;

	rcu_read_lock();
	d = rhashtable_lookup(&smcd_lo_dmbs, &token, smcd_lo_params);
	if (d && !refcount_inc_not_zero(&d->ref))
		d = NULL;
	rcu_read_unlock();
	return d;
}

static void smcd_lo_put(struct smcd_lo_dmb *d)
{
	if (!refcount_dec_and_test(&d->ref))
		return;
	rhashtable_remove_fast(&smcd_lo_dmbs, &d->node, smcd_lo_params);
	kvfree(d->mem);
	kfree_rcu(d, rcu);	/* lookups run under RCU */
}

/*
 * Whether from may write into d: 0 for its owner's TCP peer; -ENOENT when
 * d is parked or unregistered (the peer is gone: smc_cdc.c takes that
 * for a reset, so it must stay -ENOENT); -EACCES for anybody else.
 */
static int smcd_lo_may_write(struct smcd_lo_dmb *d,
			    const struct smcd_dmb_tuple *from)
{
	int rc = 0;

	spin_lock_bh(&d->lock);
	if (d->dead)
		rc = -ENOENT;
	else if (!smcd_dmb_tuple_is_peer(&d->tuple, from))
		rc = -EACCES;
	spin_unlock_bh(&d->lock);
	return rc;
}

static int smcd_lo_register_dmb(struct smcd_ism_dev *dev, struct smcd_dmb *dmb,
			       smcd_dmb_signal_t handler, void *owner,
			       const struct smcd_dmb_tuple *tuple)
{
	struct smcd_lo_dmb *d;
	int rc;

	d = kzalloc(sizeof(*d), GFP_KERNEL);
	if (!d)
		return -ENOMEM;
	/*
	 * The memory of the DMB, charged to the active memcg (the owner's,
	 * smc_mem.h): a memcg at its limit fails it, never OOM-kills.
	 */
	d->mem = kvzalloc(dmb->len, SMC_MEM_GFP);
	if (!d->mem) {
		kfree(d);
		return -ENOMEM;
	}
	d->len = dmb->len;
	refcount_set(&d->ref, 1);
	spin_lock_init(&d->lock);
	d->handler = handler;
	d->owner = owner;
	d->tuple = *tuple;
	/*
	 * Publish only the finished object, under a token no live DMB has
	 * (0 means "none" to sock_diag). Two random 64-bit values meet
	 * about never; the loop is for correctness, not for speed.
	 */
	do {
		d->token = get_random_u64();
		rc = d->token ? rhashtable_lookup_insert_fast(&smcd_lo_dmbs,
							      &d->node,
							      smcd_lo_params) :
				-EEXIST;
	} while (rc == -EEXIST);
	if (rc) {
		kvfree(d->mem);
		kfree(d);
		return rc;
	}
	dmb->token = d->token;
	dmb->cpu_addr = d->mem;
	return 0;
}

static void smcd_lo_unregister_dmb(struct smcd_ism_dev *dev, struct smcd_dmb *dmb)
{
	struct smcd_lo_dmb *d = smcd_lo_get(dmb->token);

	if (WARN_ON_ONCE(!d))
		return;
	spin_lock_bh(&d->lock);
	d->dead = true;
	d->handler = NULL;
	d->owner = NULL;
	memset(&d->tuple, 0, sizeof(d->tuple));
	spin_unlock_bh(&d->lock);
	smcd_lo_put(d);		/* ours from smcd_lo_get() */
	smcd_lo_put(d);		/* the owner's */
	dmb->cpu_addr = NULL;
}

static int smcd_lo_move_data(struct smcd_ism_dev *dev, const struct smcd_gid *peer, u64 token,
			    const struct smcd_dmb_tuple *from, u32 offset,
			    const void *data, u32 len, bool signal)
{
	struct smcd_lo_dmb *d;
	int rc = 0;

	if (!smcd_gid_eq(peer, &dev->gid))
		return -EHOSTUNREACH;
	d = smcd_lo_get(token);
	if (!d)
		return -ENOENT;
	if (offset > d->len || len > d->len - offset) {
		rc = -EINVAL;
		goto out;
	}
	/*
	 * Checked before the copy: a DMB handed to another connection (the
	 * pool) or someone else's DMB gets no byte. The owner can change
	 * right after the check only to a pooled state (tuple cleared),
	 * which the pool hands out again only when nobody holds the DMB:
	 * our reference from smcd_lo_get() counts (dmb_busy).
	 */
	rc = smcd_lo_may_write(d, from);
	if (rc)
		goto out;
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
	smcd_lo_put(d);
	return rc;
}

static void *smcd_lo_attach_dmb(struct smcd_ism_dev *dev, u64 token,
			       const struct smcd_dmb_tuple *from, u32 *len)
{
	struct smcd_lo_dmb *d = smcd_lo_get(token);
	int rc;

	if (!d)
		return ERR_PTR(-ENOENT);
	rc = smcd_lo_may_write(d, from);
	if (rc) {
		smcd_lo_put(d);
		return ERR_PTR(rc);
	}
	*len = d->len;
	return d->mem;		/* the reference stays until detach */
}

static void smcd_lo_detach_dmb(struct smcd_ism_dev *dev, u64 token)
{
	struct smcd_lo_dmb *d = smcd_lo_get(token);

	if (WARN_ON_ONCE(!d))
		return;
	smcd_lo_put(d);		/* from smcd_lo_get() */
	smcd_lo_put(d);		/* the attachment's */
}

static void smcd_lo_set_dmb_owner(struct smcd_ism_dev *dev, struct smcd_dmb *dmb,
				 smcd_dmb_signal_t handler, void *owner,
				 const struct smcd_dmb_tuple *tuple)
{
	struct smcd_lo_dmb *d = smcd_lo_get(dmb->token);

	if (WARN_ON_ONCE(!d))
		return;
	/* Handlers run under d->lock: none of the old owner's is left. */
	spin_lock_bh(&d->lock);
	d->handler = handler;
	d->owner = owner;
	d->dead = !handler;
	if (tuple)
		d->tuple = *tuple;
	else
		memset(&d->tuple, 0, sizeof(d->tuple));
	spin_unlock_bh(&d->lock);
	smcd_lo_put(d);
}

static bool smcd_lo_dmb_busy(struct smcd_ism_dev *dev, struct smcd_dmb *dmb)
{
	struct smcd_lo_dmb *d = smcd_lo_get(dmb->token);
	bool busy;

	if (WARN_ON_ONCE(!d))
		return true;
	/* The owner's reference and ours: any more is someone else's. */
	busy = refcount_read(&d->ref) > 2;
	smcd_lo_put(d);
	return busy;
}

static const struct smcd_ism_ops smcd_lo_ops = {
	.register_dmb	= smcd_lo_register_dmb,
	.unregister_dmb	= smcd_lo_unregister_dmb,
	.move_data	= smcd_lo_move_data,
	.attach_dmb	= smcd_lo_attach_dmb,
	.detach_dmb	= smcd_lo_detach_dmb,
	.set_dmb_owner	= smcd_lo_set_dmb_owner,
	.dmb_busy	= smcd_lo_dmb_busy,
};

static struct smcd_ism_dev smcd_lo_dev = {
	.ops	= &smcd_lo_ops,
	.name	= "loopback-ism",
	.chid	= SMCD_ISM_CHID_LOOPBACK,
};

int smcd_loopback_init(void)
{
	int rc;

	if (!loopback_ism)
		return 0;
	rc = rhashtable_init(&smcd_lo_dmbs, &smcd_lo_params);
	if (rc)
		return rc;
	/*
	 * A random GID: unlike a hardware ISM, nothing else names it. CHID
	 * 0xFFFF is an emulated device's, whose GIDs have 128 bits (SMCv2.1);
	 * neither half is 0, which means "none" (smcd_ism.h).
	 */
	do {
		smcd_lo_dev.gid.gid = get_random_u64();
		smcd_lo_dev.gid.ext = get_random_u64();
	} while (!smcd_lo_dev.gid.gid || !smcd_lo_dev.gid.ext);
	rc = smcd_ism_register(&smcd_lo_dev);
	if (rc)
		rhashtable_destroy(&smcd_lo_dmbs);
	return rc;
}

void smcd_loopback_exit(void)
{
	if (!loopback_ism)
		return;
	smcd_ism_unregister(&smcd_lo_dev);
	WARN_ON_ONCE(atomic_read(&smcd_lo_dmbs.nelems));
	rhashtable_destroy(&smcd_lo_dmbs);
}
