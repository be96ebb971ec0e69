// SPDX-License-Identifier: GPL-2.0
/*
 * af_smc: QEMU's ivshmem-doorbell device (PCI 1af4:1110) as an ISM device
 * between VMs (Documentation/smc-d.md, "Between VMs").
 *
 * The device: BAR0 holds its registers (IVPosition, this VM's peer ID from
 * the host's ivshmem server; Doorbell, which interrupts vector v of peer p
 * when written (p << 16) | v), BAR1 its MSI-X table, BAR2 the region every
 * VM on the server maps. The region is cut into ivshmem_peers partitions
 * of equal size. A VM claims a free one (a compare-and-swap of the
 * partition's claim word with a random value of its own), or one whose
 * owner's heartbeat has stood still for IVSH_PEER_TIMEOUT_S: peer IDs
 * are the server's to give and may grow without bound (QEMU's server
 * counts up), so they cannot name partitions. A partition starts with a
 * header area (struct smcd_ivsh_header, IVSH_HDR_SIZE bytes) and holds its
 * owner's DMBs after it, carved in 16 KiB units by an allocator whose
 * state is ours alone (kernel memory). A GID is the region's identity
 * with the partition's index in its low 16 bits.
 *
 * The header area is its owner's to write, except the signal bits, which
 * a writer sets for the DMB it wrote into before it rings the owner's
 * doorbell (vector 0); the owner takes them word by word with xchg() and
 * runs the handlers of the DMBs it has. Each DMB has a slot there with its
 * token, place and the owner's TCP connection (struct smcd_ivsh_slot): a
 * writer reads the slot once, and copies only if the token is the one it
 * was given, the DMB lies within the owner's partition and the owner's
 * connection is the other end of its own (as the loopback device checks,
 * smcd_dmb_tuple_is_peer(), less the user namespace, which is the other
 * kernel's business).
 *
 * Trust: another VM can write anything anywhere in the region at any
 * time. Everything read from it is read once into a local, checked, and
 * never used as a kernel address; what it can do is write into DMBs of
 * the region, which every VM on it can reach anyway (the trust model,
 * Documentation/security.md). A peer ID read from a header is only ever a
 * doorbell's target.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/interrupt.h>
#include <linux/io.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/random.h>
#include <linux/seq_file.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

#include "smcd_ism.h"
#include "smcd_ivshmem.h"
#include "smcd_lgr.h"
#include "smc_wait.h"

/*
 * Off unless asked for: an ivshmem device may carry another program's
 * shared memory, and binding it means writing our header into its region.
 */
static bool ivshmem;
module_param(ivshmem, bool, 0444);
MODULE_PARM_DESC(ivshmem, "bind QEMU's ivshmem-doorbell devices (PCI 1af4:1110) for SMC-D between VMs (default: off)");

/*
 * How many partitions a region is cut into, at most one VM in each: every
 * VM on one region must load the module with the same value, or their
 * partitions do not line up.
 */
static unsigned int ivshmem_peers = 2;
module_param(ivshmem_peers, uint, 0444);
MODULE_PARM_DESC(ivshmem_peers, "partitions of an ivshmem region, one per VM (2 to 16, the same in every VM; default 2)");

#define IVSH_REG_IVPOSITION	8
#define IVSH_REG_DOORBELL	12
#define IVSH_VECTORS		2
#define IVSH_VEC_SIGNAL		0	/* a DMB of ours was written with a signal */
#define IVSH_MAX_PEERS		16
/*
 * A partition's header area, then its DMBs in units of 16 KiB. 64 KiB
 * holds the slots of 1020 DMBs: a VM with 1000 connections to VMs of its
 * region has a DMB for each.
 */
#define IVSH_HDR_SIZE		(64 * 1024)
#define IVSH_UNIT		(16 * 1024)
/* The smallest partition: the header area and a 64 KiB DMB. */
#define IVSH_MIN_PART		(IVSH_HDR_SIZE + 64 * 1024)
#define IVSH_MAGIC		0x34485344434d53ULL	/* "SMCDSH4" */
#define IVSH_HEARTBEAT_MS	1000
/*
 * A partition whose heartbeat stood still this long has lost its VM.
 * Generous: a TCG guest on a loaded host can miss a few beats, and a
 * false alarm resets live connections (or lets a new VM take a live VM's
 * partition); a VM that really stopped is found within it.
 */
#define IVSH_PEER_TIMEOUT_S	(15 * SMC_WAIT_SCALE)
#define IVSH_SIG_WORDS		16
#define IVSH_SLOTS		1020	/* what fits after the header, < 64 * IVSH_SIG_WORDS */
/* A token's low 10 bits are its slot, the rest random. */
#define IVSH_TOKEN_SLOTS	0x3ffULL
#define IVSH_TOKEN_SLOT(t)	((u32)((t) & IVSH_TOKEN_SLOTS))

/* One DMB of the partition's owner, as writers find it. */
struct smcd_ivsh_slot {
	__le64	token;		/* 0: free; written last, cleared first */
	__le32	offset;		/* from the partition's start */
	__le32	len;
	u8	laddr[16];	/* the owner's TCP connection (v4 mapped) */
	u8	raddr[16];
	__be16	lport, rport;
	u8	pad[12];
};

/* The start of each partition; its owner writes all but signals. */
struct smcd_ivsh_header {
	__le64	magic;		/* IVSH_MAGIC while the owner uses it */
	__le32	peer_id;	/* the owner's IVPosition: its doorbell */
	__le32	partitions;
	__le64	heartbeat;	/* counts up every IVSH_HEARTBEAT_MS */
	/*
	 * Partition 0 only: the region's identity, a random value set once
	 * by the first VM to come up (cmpxchg), the high bits of every GID
	 * on the region. Nobody writes it after.
	 */
	__le64	region_id;
	/*
	 * Who owns the partition: 0 nobody, else the owner's random value,
	 * set by cmpxchg (so two VMs never both take it), compared only.
	 */
	u64	claim;
	u8	pad0[24];
	unsigned long signals[IVSH_SIG_WORDS];	/* a bit per slot */
	u8	pad1[64];
	struct smcd_ivsh_slot slots[IVSH_SLOTS];
};

/* How a partition's header looked to the heartbeat work last time. */
struct smcd_ivsh_watch {
	u64		claim;		/* its owner then (0: none) */
	bool		up;		/* the owner's magic was there */
	u64		beat;		/* its heartbeat then */
	unsigned long	changed;	/* jiffies, when beat or claim last moved */
};

/* What we keep of each DMB slot of ours; ours alone, under lock. */
struct smcd_ivsh_dmb {
	u64			token;		/* 0: free */
	bool			busy;		/* being set up */
	u32			first, units;	/* where, in IVSH_UNITs */
	smcd_dmb_signal_t	handler;
	void			*owner;
};

struct smcd_ivsh {
	struct list_head	list;		/* smcd_ivsh_devs */
	struct pci_dev		*pdev;
	void __iomem		*regs;		/* BAR0 */
	void			*region;	/* BAR2, mapped write-back */
	resource_size_t		size;
	resource_size_t		part_size;
	u16			id;		/* IVPosition */
	u64			region_id;
	/* Our partition (-1 until claimed) and our claim on it. */
	int			part;
	u64			claim;
	bool			lost;		/* another VM took it over */
	u64			beats;
	struct delayed_work	beat;		/* heartbeat, watch, claim */
	struct smcd_ivsh_watch	watch[IVSH_MAX_PEERS];
	/* Partitions whose heartbeat stopped: unreachable till it moves. */
	unsigned long		dead;
	atomic64_t		irqs[IVSH_VECTORS];
	/*
	 * Vector 0's Linux irq, looked up once at probe: pci_irq_vector()
	 * takes the MSI descriptors' mutex, which the hard irq handler
	 * must not (the debug kernel's "sleeping function called from
	 * invalid context" in smcd_ivsh_irq, 2026-12-02).
	 */
	int			signal_irq;
	/*
	 * Vector 0's scan of the signal bits, as a tasklet: it runs as the
	 * irq returns, on the CPU that took it, where an irq thread would
	 * cost a switch to the thread and back before the reader's wakeup.
	 */
	struct tasklet_struct	signals;
	struct smcd_ism_dev	ism;
	bool			ism_registered;
	/*
	 * Our DMBs: the slots and the units of our partition they use.
	 * Handlers run under it, so none runs once a DMB's slot is cleared
	 * (unregister_dmb). bh: the signal scan is a tasklet.
	 */
	spinlock_t		lock;
	struct smcd_ivsh_dmb	dmbs[IVSH_SLOTS];
	unsigned long		*units;		/* allocated units */
	u32			nunits;
};

static LIST_HEAD(smcd_ivsh_devs);
static DEFINE_MUTEX(smcd_ivsh_lock);	/* the list, for debugfs */

static struct smcd_ivsh_header *smcd_ivsh_part(struct smcd_ivsh *iv, unsigned int i)
{
	return iv->region + (size_t)i * iv->part_size;
}

static struct smcd_ivsh *smcd_ivsh_of(struct smcd_ism_dev *dev)
{
	return container_of(dev, struct smcd_ivsh, ism);
}

/*
 * The GID of partition part's owner, whose claim is claim. Our CHIDs are
 * emulated devices' (SMCv2.1), whose GIDs have 128 bits: the region and
 * the partition in the first half, the claim in the second, so a VM that
 * takes a partition over is another peer, never the one that stopped.
 */
static struct smcd_gid smcd_ivsh_gid(struct smcd_ivsh *iv, unsigned int part, u64 claim)
{
	return (struct smcd_gid){
		.gid = (iv->region_id & ~0xffffULL) | part,
		.ext = claim,
	};
}

/*
 * Whether the header says an owner uses the partition: claimed, and its
 * magic there (read once each; another VM may change them any time).
 */
static bool smcd_ivsh_hdr_up(const struct smcd_ivsh_header *h)
{
	return READ_ONCE(h->claim) && le64_to_cpu(READ_ONCE(h->magic)) == IVSH_MAGIC;
}

/* Whether partition p has a live owner: up, and its heartbeat moving. */
static bool smcd_ivsh_part_up(struct smcd_ivsh *iv, unsigned int p)
{
	return smcd_ivsh_hdr_up(smcd_ivsh_part(iv, p)) && !test_bit(p, &iv->dead);
}

/*
 * The partition of gid on our region, or -1: another region's, or none,
 * or an owner other than the one gid names (a claim that has moved on).
 */
static int smcd_ivsh_part_of(struct smcd_ivsh *iv, const struct smcd_gid *gid)
{
	u64 p = gid->gid & 0xffff;

	if ((gid->gid ^ iv->region_id) & ~0xffffULL || p >= ivshmem_peers ||
	    !gid->ext || READ_ONCE(smcd_ivsh_part(iv, p)->claim) != gid->ext)
		return -1;
	return p;
}

static bool smcd_ivsh_reaches(struct smcd_ism_dev *dev, const struct smcd_gid *gid)
{
	struct smcd_ivsh *iv = smcd_ivsh_of(dev);
	int p = smcd_ivsh_part_of(iv, gid);

	return !READ_ONCE(iv->lost) && p >= 0 && smcd_ivsh_part_up(iv, p);
}

static int smcd_ivsh_register_dmb(struct smcd_ism_dev *dev, struct smcd_dmb *dmb,
				  smcd_dmb_signal_t handler, void *owner,
				  const struct smcd_dmb_tuple *tuple)
{
	struct smcd_ivsh *iv = smcd_ivsh_of(dev);
	struct smcd_ivsh_header *h = smcd_ivsh_part(iv, iv->part);
	u32 units = DIV_ROUND_UP(dmb->len, IVSH_UNIT), first, i;
	struct smcd_ivsh_slot *slot;
	struct smcd_ivsh_dmb *d;
	void *mem;
	u64 token;

	if (READ_ONCE(iv->lost))
		return -ENODEV;
	spin_lock_bh(&iv->lock);
	for (i = 0; i < IVSH_SLOTS; i++)
		if (!iv->dmbs[i].token && !iv->dmbs[i].busy)
			break;
	first = bitmap_find_next_zero_area(iv->units, iv->nunits, 0, units, 0);
	if (i == IVSH_SLOTS || first >= iv->nunits) {
		spin_unlock_bh(&iv->lock);
		return -ENOSPC;		/* the connection falls back to TCP */
	}
	bitmap_set(iv->units, first, units);
	d = &iv->dmbs[i];
	d->busy = true;
	d->first = first;
	d->units = units;
	spin_unlock_bh(&iv->lock);

	/* Nothing of the DMB's last connection shows through to the next. */
	mem = (void *)h + IVSH_HDR_SIZE + (size_t)first * IVSH_UNIT;
	memset(mem, 0, dmb->len);
	do {
		token = (get_random_u64() & ~IVSH_TOKEN_SLOTS) | i;
	} while (!(token & ~IVSH_TOKEN_SLOTS));

	spin_lock_bh(&iv->lock);
	d->handler = handler;
	d->owner = owner;
	d->token = token;
	d->busy = false;
	spin_unlock_bh(&iv->lock);

	/* Published for writers: the fields, then the token vouching for them. */
	slot = &h->slots[i];
	WRITE_ONCE(slot->offset, cpu_to_le32(IVSH_HDR_SIZE + first * IVSH_UNIT));
	WRITE_ONCE(slot->len, cpu_to_le32(dmb->len));
	memcpy(slot->laddr, &tuple->laddr, 16);
	memcpy(slot->raddr, &tuple->raddr, 16);
	WRITE_ONCE(slot->lport, tuple->lport);
	WRITE_ONCE(slot->rport, tuple->rport);
	smp_wmb();	/* the fields before the token; pairs with move_data's rmb */
	WRITE_ONCE(slot->token, cpu_to_le64(token));

	dmb->token = token;
	dmb->cpu_addr = mem;
	return 0;
}

static void smcd_ivsh_unregister_dmb(struct smcd_ism_dev *dev, struct smcd_dmb *dmb)
{
	struct smcd_ivsh *iv = smcd_ivsh_of(dev);
	struct smcd_ivsh_header *h = smcd_ivsh_part(iv, iv->part);
	u32 i = IVSH_TOKEN_SLOT(dmb->token);
	struct smcd_ivsh_dmb *d;

	if (WARN_ON_ONCE(i >= IVSH_SLOTS))
		return;
	d = &iv->dmbs[i];
	spin_lock_bh(&iv->lock);
	if (WARN_ON_ONCE(d->token != dmb->token)) {
		spin_unlock_bh(&iv->lock);
		return;
	}
	/*
	 * Writers stop finding it, and (under the lock) no handler of ours
	 * runs for it after this. The units go back now: a writer of
	 * another VM that read the slot before we cleared it may still be
	 * copying, but only the DMB's own peer passes the check, and it has
	 * ended its connection. A partition another VM took over is its
	 * now: we leave its slots alone.
	 */
	if (!READ_ONCE(iv->lost))
		WRITE_ONCE(h->slots[i].token, 0);
	bitmap_clear(iv->units, d->first, d->units);
	memset(d, 0, sizeof(*d));
	spin_unlock_bh(&iv->lock);
	dmb->cpu_addr = NULL;
}

/* Whether the owner's connection (slot, as read) is the other end of from. */
static bool smcd_ivsh_is_peer(const struct smcd_ivsh_slot *slot,
			      const struct smcd_dmb_tuple *from)
{
	return !memcmp(slot->laddr, &from->raddr, 16) &&
	       !memcmp(slot->raddr, &from->laddr, 16) &&
	       slot->lport == from->rport && slot->rport == from->lport;
}

static int smcd_ivsh_move_data(struct smcd_ism_dev *dev, const struct smcd_gid *peer, u64 token,
			       const struct smcd_dmb_tuple *from, u32 offset,
			       const void *data, u32 len, bool signal)
{
	struct smcd_ivsh *iv = smcd_ivsh_of(dev);
	int p = smcd_ivsh_part_of(iv, peer);
	u32 i = IVSH_TOKEN_SLOT(token);
	struct smcd_ivsh_header *h;
	struct smcd_ivsh_slot slot;
	u64 off, dlen, tok;
	u32 peer_id;

	if (p < 0)
		return -EHOSTUNREACH;
	/* An owner that left or stopped has taken its DMBs with it. */
	if (READ_ONCE(iv->lost) || !smcd_ivsh_part_up(iv, p) || i >= IVSH_SLOTS)
		return -ENOENT;
	h = smcd_ivsh_part(iv, p);
	/*
	 * The slot, once, into our copy: the owner rewrites it only with the
	 * token cleared, so the token the same before and after the copy
	 * means the copy is of one DMB (a hostile peer can make it anything;
	 * the checks below hold for anything).
	 */
	tok = le64_to_cpu(READ_ONCE(h->slots[i].token));
	smp_rmb();	/* the token before the fields it vouches for */
	memcpy(&slot, &h->slots[i], sizeof(slot));
	smp_rmb();	/* the fields before the second look at the token */
	if (tok != token || le64_to_cpu(READ_ONCE(h->slots[i].token)) != token)
		return -ENOENT;
	if (!smcd_ivsh_is_peer(&slot, from))
		return -EACCES;
	off = le32_to_cpu(slot.offset);
	dlen = le32_to_cpu(slot.len);
	/*
	 * Within the owner's partition, past its header; never a pointer. A
	 * slot that says otherwise describes no DMB: as gone (-ENOENT), so
	 * the connection is reset rather than left waiting for moves that
	 * will never go (a misstated size in the CLC gives -EINVAL alike).
	 */
	if (off < IVSH_HDR_SIZE || off + dlen > iv->part_size)
		return -ENOENT;
	if (offset > dlen || len > dlen - offset)
		return -EINVAL;
	if (len)
		memcpy((void *)h + off + offset, data, len);
	if (signal) {
		/* The doorbell the owner names: a wrong one wakes nobody of ours. */
		peer_id = le32_to_cpu(READ_ONCE(h->peer_id)) & 0xffff;
		smp_mb__before_atomic();	/* the bytes before the bit */
		set_bit(i, h->signals);
		smp_mb__after_atomic();		/* the bit before the doorbell */
		iowrite32(peer_id << 16 | IVSH_VEC_SIGNAL, iv->regs + IVSH_REG_DOORBELL);
	}
	return 0;
}

static const struct smcd_ism_ops smcd_ivsh_ops = {
	.register_dmb	= smcd_ivsh_register_dmb,
	.unregister_dmb	= smcd_ivsh_unregister_dmb,
	.move_data	= smcd_ivsh_move_data,
	.reaches	= smcd_ivsh_reaches,
	/*
	 * No attach_dmb: a mapping of a peer's DMB would outlive any check
	 * (the peer's kernel frees and reuses the memory, we cannot hold
	 * it), so every write goes through move_data's. No pool either.
	 */
};

/*
 * Vector 0's tasklet: take our signal bits word by word and run the
 * handlers of the DMBs they name (softirq context, bh off, as handlers
 * expect). A bit set for a slot we do not use is nobody's and is dropped.
 * A doorbell rung while this runs schedules it again, so a bit set after
 * its word was taken is not left behind.
 */
static void smcd_ivsh_signals(struct tasklet_struct *t)
{
	struct smcd_ivsh *iv = from_tasklet(iv, t, signals);
	struct smcd_ivsh_header *h;
	unsigned long bits;
	unsigned int w, b;
	int part = READ_ONCE(iv->part);

	if (part < 0 || READ_ONCE(iv->lost))
		return;
	h = smcd_ivsh_part(iv, part);
	for (w = 0; w < IVSH_SIG_WORDS; w++) {
		bits = xchg(&h->signals[w], 0);
		for_each_set_bit(b, &bits, BITS_PER_LONG) {
			struct smcd_ivsh_dmb *d;

			if (w * BITS_PER_LONG + b >= IVSH_SLOTS)
				break;
			d = &iv->dmbs[w * BITS_PER_LONG + b];
			spin_lock(&iv->lock);
			if (d->token && d->handler)
				d->handler(d->owner);
			spin_unlock(&iv->lock);
		}
	}
}

/* Every vector counts; vector 0 schedules the scan of the signal bits. */
static irqreturn_t smcd_ivsh_irq(int irq, void *arg)
{
	struct smcd_ivsh *iv = arg;
	unsigned int v = irq == iv->signal_irq ? IVSH_VEC_SIGNAL : 1;

	atomic64_inc(&iv->irqs[v]);
	if (v == IVSH_VEC_SIGNAL)
		tasklet_schedule(&iv->signals);
	return IRQ_HANDLED;
}

/* devres, after it freed the irqs (requested later): no schedule after. */
static void smcd_ivsh_signals_kill(void *arg)
{
	struct smcd_ivsh *iv = arg;

	tasklet_kill(&iv->signals);
}

/*
 * The connections with partition p's VM, the owner we watched there, end:
 * its DMBs are gone or unread.
 */
static void smcd_ivsh_part_gone(struct smcd_ivsh *iv, unsigned int p, const char *why)
{
	struct smcd_gid gid = smcd_ivsh_gid(iv, p, iv->watch[p].claim);

	dev_info(&iv->pdev->dev, "ivshmem: partition %u %s; its connections are reset\n", p, why);
	if (iv->ism_registered)
		smcd_lgr_peer_gone(&iv->ism, &gid);
}

/*
 * Partition p's header as it is now against last time. Another owner (or
 * none) or its heartbeat gone back: the VM we knew there has gone, and so
 * have the connections with it. Its heartbeat still for
 * IVSH_PEER_TIMEOUT_S: that VM stopped; the partition is unreachable until
 * the heartbeat moves again, and may be claimed by a VM without one.
 */
static void smcd_ivsh_watch_part(struct smcd_ivsh *iv, unsigned int p)
{
	struct smcd_ivsh_header *h = smcd_ivsh_part(iv, p);
	struct smcd_ivsh_watch *w = &iv->watch[p];
	u64 claim = READ_ONCE(h->claim);
	/* smcd_ivsh_hdr_up(), from the claim read once here */
	bool up = claim && le64_to_cpu(READ_ONCE(h->magic)) == IVSH_MAGIC;
	u64 beat = le64_to_cpu(READ_ONCE(h->heartbeat));

	if (claim != w->claim || up != w->up || (up && beat < w->beat)) {
		if (w->up)
			smcd_ivsh_part_gone(iv, p, up ? "has a new owner" : "was left");
		else if (test_bit(p, &iv->dead))
			dev_info(&iv->pdev->dev, "ivshmem: partition %u is back\n", p);
		w->claim = claim;
		w->up = up;
		w->beat = beat;
		w->changed = jiffies;
		clear_bit(p, &iv->dead);
		return;
	}
	if (beat != w->beat) {
		if (test_and_clear_bit(p, &iv->dead))
			dev_info(&iv->pdev->dev, "ivshmem: partition %u is back\n", p);
		w->beat = beat;
		w->changed = jiffies;
		return;
	}
	if (claim && !test_bit(p, &iv->dead) &&
	    time_after(jiffies, w->changed + IVSH_PEER_TIMEOUT_S * HZ)) {
		set_bit(p, &iv->dead);
		if (up)
			smcd_ivsh_part_gone(iv, p, "stopped (no heartbeat)");
	}
}

/*
 * Take partition p if its claim word still holds old (0: free; else the
 * claim of an owner that stopped), make its header ours and offer the
 * device to SMC-D. Only the heartbeat work and probe call it, never at
 * once.
 */
static bool smcd_ivsh_claim(struct smcd_ivsh *iv, unsigned int p, u64 old)
{
	struct smcd_ivsh_header *h = smcd_ivsh_part(iv, p);

	if (cmpxchg(&h->claim, old, iv->claim) != old)
		return false;
	/* Ours: nothing of its last owner's DMBs or signals counts. */
	WRITE_ONCE(h->magic, 0);
	smp_wmb();	/* not up while we clear it */
	memset(h->slots, 0, sizeof(h->slots));
	memset(h->signals, 0, sizeof(h->signals));
	WRITE_ONCE(h->peer_id, cpu_to_le32(iv->id));
	WRITE_ONCE(h->partitions, cpu_to_le32(ivshmem_peers));
	WRITE_ONCE(h->heartbeat, 0);
	smp_wmb();	/* the fields before the magic that vouches for them */
	WRITE_ONCE(h->magic, cpu_to_le64(IVSH_MAGIC));
	iv->ism.gid = smcd_ivsh_gid(iv, p, iv->claim);
	WRITE_ONCE(iv->part, p);
	clear_bit(p, &iv->dead);
	dev_info(&iv->pdev->dev, "ivshmem: peer ID %u, partition %u of %u (%pa bytes)%s\n",
		 iv->id, p, ivshmem_peers, &iv->part_size,
		 old ? ", taken over from a VM that stopped" : "");
	smcd_ism_register(&iv->ism);
	iv->ism_registered = true;
	return true;
}

/* Without a partition: a free one, else one whose VM stopped. */
static void smcd_ivsh_try_claim(struct smcd_ivsh *iv)
{
	unsigned int p;

	for (p = 0; p < ivshmem_peers; p++)
		if (!READ_ONCE(smcd_ivsh_part(iv, p)->claim) && smcd_ivsh_claim(iv, p, 0))
			return;
	for (p = 0; p < ivshmem_peers; p++)
		if (test_bit(p, &iv->dead) && smcd_ivsh_claim(iv, p, iv->watch[p].claim))
			return;
}

static void smcd_ivsh_heartbeat(struct work_struct *work)
{
	struct smcd_ivsh *iv = container_of(to_delayed_work(work), struct smcd_ivsh, beat);
	unsigned int p;

	if (iv->part >= 0 && !iv->lost) {
		struct smcd_ivsh_header *h = smcd_ivsh_part(iv, iv->part);

		if (READ_ONCE(h->claim) != iv->claim) {
			/*
			 * Another VM took our partition, taking us for
			 * stopped (we missed IVSH_PEER_TIMEOUT_S of beats):
			 * it is that VM's now. Our connections end; the
			 * device reaches nobody until it is bound again.
			 */
			WRITE_ONCE(iv->lost, true);
			dev_err(&iv->pdev->dev, "ivshmem: partition %u was taken over; SMC-D over this device stops\n",
				iv->part);
			smcd_lgr_peer_gone(&iv->ism, NULL);
		} else {
			WRITE_ONCE(h->heartbeat, cpu_to_le64(++iv->beats));
		}
	}
	for (p = 0; p < ivshmem_peers; p++)
		if (p != iv->part)
			smcd_ivsh_watch_part(iv, p);
	if (iv->part < 0)
		smcd_ivsh_try_claim(iv);
	schedule_delayed_work(&iv->beat, msecs_to_jiffies(IVSH_HEARTBEAT_MS));
}

static int smcd_ivsh_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct smcd_ivsh_header *h;
	struct smcd_ivsh *iv;
	u64 region_id;
	int rc, v;

	iv = devm_kzalloc(&pdev->dev, sizeof(*iv), GFP_KERNEL);
	if (!iv)
		return -ENOMEM;
	iv->pdev = pdev;
	iv->part = -1;
	rc = pcim_enable_device(pdev);
	if (rc)
		return rc;
	rc = pcim_iomap_regions(pdev, BIT(0), KBUILD_MODNAME);
	if (rc)
		return rc;
	iv->regs = pcim_iomap_table(pdev)[0];
	iv->size = pci_resource_len(pdev, 2);
	if (!iv->size || iv->size / ivshmem_peers < IVSH_MIN_PART) {
		dev_err(&pdev->dev, "ivshmem: a region of %pa bytes is too small for %u partitions\n",
			&iv->size, ivshmem_peers);
		return -ENOSPC;
	}
	iv->part_size = rounddown(iv->size / ivshmem_peers, PAGE_SIZE);
	/*
	 * Only a device configured for interrupts has a server and so a
	 * peer ID; one without MSI-X (ivshmem-plain) is not ours.
	 */
	if (!pdev->msix_cap) {
		dev_err(&pdev->dev, "ivshmem: no MSI-X, so no doorbells (ivshmem-plain?)\n");
		return -ENODEV;
	}
	iv->id = ioread32(iv->regs + IVSH_REG_IVPOSITION) & 0xffff;
	/* Managed, as the device is: released when the driver lets go. */
	rc = pci_request_region(pdev, 2, KBUILD_MODNAME);
	if (rc)
		return rc;
	iv->region = devm_memremap(&pdev->dev, pci_resource_start(pdev, 2), iv->size,
				   MEMREMAP_WB);
	if (IS_ERR(iv->region))
		return PTR_ERR(iv->region);
	/*
	 * An MSI-X interrupt is a memory write by the device: without bus
	 * mastering QEMU drops it, and no doorbell would ever arrive.
	 */
	pci_set_master(pdev);
	rc = pci_alloc_irq_vectors(pdev, IVSH_VECTORS, IVSH_VECTORS, PCI_IRQ_MSIX);
	if (rc < 0)
		return rc;
	BUILD_BUG_ON(sizeof(struct smcd_ivsh_header) > IVSH_HDR_SIZE);
	BUILD_BUG_ON(IVSH_SIG_WORDS * BITS_PER_LONG < IVSH_SLOTS);
	BUILD_BUG_ON(IVSH_SLOTS > IVSH_TOKEN_SLOTS);	/* a token's low bits */
	/* The layout the tests' scribbler writes to (ivshmem_scribble.sh). */
	BUILD_BUG_ON(offsetof(struct smcd_ivsh_header, signals) != 64);
	BUILD_BUG_ON(offsetof(struct smcd_ivsh_header, slots) != 256);
	spin_lock_init(&iv->lock);
	iv->nunits = (iv->part_size - IVSH_HDR_SIZE) / IVSH_UNIT;
	iv->units = devm_bitmap_zalloc(&pdev->dev, iv->nunits, GFP_KERNEL);
	if (!iv->units)
		return -ENOMEM;
	iv->signal_irq = pci_irq_vector(pdev, IVSH_VEC_SIGNAL);
	/*
	 * Before the irqs: devres releases in reverse, so the tasklet is
	 * killed once no irq can schedule it, and before iv goes.
	 */
	tasklet_setup(&iv->signals, smcd_ivsh_signals);
	rc = devm_add_action_or_reset(&pdev->dev, smcd_ivsh_signals_kill, iv);
	if (rc)
		return rc;
	for (v = 0; v < IVSH_VECTORS; v++) {
		rc = devm_request_irq(&pdev->dev, pci_irq_vector(pdev, v), smcd_ivsh_irq,
				      0, KBUILD_MODNAME "-ivshmem", iv);
		if (rc)
			return rc;	/* devres frees the vectors and the irqs */
	}

	/*
	 * The region's identity: the first VM's random value, whoever that
	 * was; a VM never changes it after. The top bit makes it non-zero.
	 */
	region_id = get_random_u64() | BIT_ULL(63);
	h = smcd_ivsh_part(iv, 0);
	cmpxchg((u64 *)&h->region_id, 0, cpu_to_le64(region_id));
	iv->region_id = le64_to_cpu(READ_ONCE(h->region_id));
	/* Linux's range for emulated ISM devices; the same on the region. */
	iv->ism.chid = 0xff00 + (iv->region_id >> 16) % 0xff;
	iv->ism.name = dev_name(&pdev->dev);
	iv->ism.pdev = pdev;
	iv->ism.ops = &smcd_ivsh_ops;
	do {
		iv->claim = get_random_u64();
	} while (!iv->claim);

	pci_set_drvdata(pdev, iv);
	mutex_lock(&smcd_ivsh_lock);
	list_add_tail(&iv->list, &smcd_ivsh_devs);
	mutex_unlock(&smcd_ivsh_lock);
	/*
	 * A free partition now; else the heartbeat work watches them all
	 * and takes one whose VM has stopped, once it has stood still for
	 * IVSH_PEER_TIMEOUT_S.
	 */
	smcd_ivsh_try_claim(iv);
	if (iv->part < 0)
		dev_info(&pdev->dev, "ivshmem: peer ID %u, no free partition of %u: waiting for one whose VM stopped\n",
			 iv->id, ivshmem_peers);
	INIT_DELAYED_WORK(&iv->beat, smcd_ivsh_heartbeat);
	schedule_delayed_work(&iv->beat, 0);
	return 0;
}

static void smcd_ivsh_remove(struct pci_dev *pdev)
{
	struct smcd_ivsh *iv = pci_get_drvdata(pdev);
	struct smcd_ivsh_header *h;

	/* No claim, no watch after this. */
	cancel_delayed_work_sync(&iv->beat);
	/*
	 * No new connection after this; the live ones are reset and let go
	 * of their DMBs in the region now, whether or not their owners
	 * close them (smcd_lgr_dev_gone()), so devres may unmap it after.
	 */
	if (iv->ism_registered)
		smcd_ism_unregister(&iv->ism);
	mutex_lock(&smcd_ivsh_lock);
	list_del(&iv->list);
	mutex_unlock(&smcd_ivsh_lock);
	/* Free again, for whoever looks next: the magic, then the claim. */
	if (iv->part >= 0 && !iv->lost) {
		h = smcd_ivsh_part(iv, iv->part);
		WRITE_ONCE(h->magic, 0);
		smp_wmb();	/* not up, before free */
		cmpxchg(&h->claim, iv->claim, 0);
	}
	/* devres then frees the irqs, the vectors and both mappings. */
}

static const struct pci_device_id smcd_ivsh_ids[] = {
	{ PCI_DEVICE(PCI_VENDOR_ID_REDHAT_QUMRANET, 0x1110) },
	{ }
};
MODULE_DEVICE_TABLE(pci, smcd_ivsh_ids);

static struct pci_driver smcd_ivsh_driver = {
	.name		= KBUILD_MODNAME "-ivshmem",
	.id_table	= smcd_ivsh_ids,
	.probe		= smcd_ivsh_probe,
	.remove		= smcd_ivsh_remove,
};

void smcd_ivshmem_show(struct seq_file *m)
{
	struct smcd_ivsh *iv;
	unsigned int i, v;

	mutex_lock(&smcd_ivsh_lock);
	list_for_each_entry(iv, &smcd_ivsh_devs, list) {
		unsigned int dmbs = 0;

		spin_lock_bh(&iv->lock);
		for (i = 0; i < IVSH_SLOTS; i++)
			dmbs += !!iv->dmbs[i].token;
		spin_unlock_bh(&iv->lock);
		seq_printf(m, "%s id %u part %d size %llu partitions %u gid %016llx%016llx chid %04x dmbs %u irqs",
			   pci_name(iv->pdev), iv->id, READ_ONCE(iv->part), (u64)iv->size,
			   ivshmem_peers, iv->ism.gid.gid, iv->ism.gid.ext, iv->ism.chid, dmbs);
		for (v = 0; v < IVSH_VECTORS; v++)
			seq_printf(m, " %lld", (s64)atomic64_read(&iv->irqs[v]));
		seq_putc(m, '\n');
		/* Numbers as read, once each: the region is the peers' too. */
		for (i = 0; i < ivshmem_peers; i++) {
			struct smcd_ivsh_header *h = smcd_ivsh_part(iv, i);

			if (!smcd_ivsh_hdr_up(h))
				seq_printf(m, "  part %u free\n", i);
			else
				seq_printf(m, "  part %u %s id %u heartbeat %llu\n", i,
					   test_bit(i, &iv->dead) ? "dead" : "up",
					   le32_to_cpu(READ_ONCE(h->peer_id)),
					   le64_to_cpu(READ_ONCE(h->heartbeat)));
		}
	}
	mutex_unlock(&smcd_ivsh_lock);
}

/* Debugfs "ring PEER VECTOR": the first device's doorbell, for the tests. */
int smcd_ivshmem_ring(unsigned int peer, unsigned int vector)
{
	struct smcd_ivsh *iv;
	int rc = -ENODEV;

	if (peer > 0xffff || vector >= IVSH_VECTORS)
		return -EINVAL;
	mutex_lock(&smcd_ivsh_lock);
	iv = list_first_entry_or_null(&smcd_ivsh_devs, struct smcd_ivsh, list);
	if (iv) {
		iowrite32(peer << 16 | vector, iv->regs + IVSH_REG_DOORBELL);
		rc = 0;
	}
	mutex_unlock(&smcd_ivsh_lock);
	return rc;
}

int smcd_ivshmem_init(void)
{
	if (!ivshmem)
		return 0;
	if (ivshmem_peers < 2 || ivshmem_peers > IVSH_MAX_PEERS) {
		pr_err("ivshmem_peers=%u: 2 to %u, please\n", ivshmem_peers, IVSH_MAX_PEERS);
		return -EINVAL;
	}
	return pci_register_driver(&smcd_ivsh_driver);
}

void smcd_ivshmem_exit(void)
{
	if (ivshmem)
		pci_unregister_driver(&smcd_ivsh_driver);
}
