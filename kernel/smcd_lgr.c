// SPDX-License-Identifier: GPL-2.0
/*
 * af_smc: SMC-D link groups and their DMB pools (see smcd_lgr.h for the
 * rules and the locking).
 *
 * Lifetime of a group: made by smcd_lgr_conn_add() when no group matches,
 * listed on smcd_lgrs until freed. When its last connection leaves, the
 * free work is armed for smc_lgr_linger seconds; a connection joining
 * before it runs keeps the group (the work then finds connections and
 * does nothing). Only the free work frees a group, under the lock, so a
 * group found on the list under the lock is alive. smcd_lgr_exit() runs
 * every pending free work at once and waits for them.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/log2.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "smc.h"
#include "smc_conn.h"
#include "smcd_conn.h"
#include "smcd_lgr.h"
#include "smc_mem.h"

/*
 * Pool bounds: a group keeps at most this many bytes of free DMBs, and
 * all groups together at most SMCD_POOL_MAX_TOTAL. 4 MiB is 64 DMBs of the
 * default 64 KiB: more than a burst of reconnects needs, and little
 * memory for an idle peer.
 */
#define SMCD_POOL_MAX_LGR	(4U << 20)
#define SMCD_POOL_MAX_TOTAL	(16U << 20)

struct smcd_lgr {
	struct list_head	list;		/* smcd_lgrs */
	u32			id;
	enum smc_lgr_role	role;
	struct smcd_ism_dev	*ism;		/* with a reference */
	u64			net_cookie;	/* its connections' netns */
	struct smcd_gid		peer_gid;
	u16			vlan_id;
	struct list_head	conns;		/* smcd_conn.lgr_entry */
	u32			conns_num;
	u64			dmb_bytes;	/* in use and pooled */
	/* Free DMBs by size class, each list newest first. */
	struct list_head	pool[SMCD_DMB_MAX_CLASS + 1];
	u32			pool_bytes;
	u32			pool_num;
	struct delayed_work	free_work;
	struct smc_lgr_peer	peer;
};

/* A free DMB in a pool: what the device needs to find it again. */
struct smcd_pool_dmb {
	struct list_head	entry;
	struct smcd_dmb		dmb;
	/*
	 * The memcg its pages are charged to (smc_mem_id()): only a
	 * connection of that memcg gets it again, so no container uses
	 * memory another one pays for.
	 */
	u64			memcg_id;
};

static DEFINE_MUTEX(smcd_lgr_lock);
static LIST_HEAD(smcd_lgrs);
static u32 smcd_lgr_next_id;
static unsigned int smcd_lgr_seqno;
static u32 smcd_pool_total;		/* bytes, all pools */
static struct workqueue_struct *smcd_lgr_wq;

atomic_t smc_obj_conns, smc_obj_dmbs, smc_obj_pool, smc_obj_lgrs;

static int smcd_dmb_register(struct smc_conn *conn, struct smcd_ism_dev *ism,
			    struct smcd_dmb *dmb, u8 class,
			    smcd_dmb_signal_t handler, void *owner,
			    const struct smcd_dmb_tuple *tuple)
{
	struct mem_cgroup *old;
	int rc;

	dmb->len = SMC_BUF_MIN_SIZE << class;
	/* The device charges the DMB to the active memcg: conn's. */
	old = smc_mem_enter(conn);
	rc = ism->ops->register_dmb(ism, dmb, handler, owner, tuple);
	smc_mem_leave(old);
	if (!rc)
		atomic_inc(&smc_obj_dmbs);
	return rc;
}

static void smcd_dmb_unregister(struct smcd_ism_dev *ism, struct smcd_dmb *dmb)
{
	ism->ops->unregister_dmb(ism, dmb);
	atomic_dec(&smc_obj_dmbs);
}

/* An id no listed group has; never 0. Lock held. */
static u32 smcd_lgr_new_id(void)
{
	struct smcd_lgr *lgr;

again:
	if (!++smcd_lgr_next_id)
		++smcd_lgr_next_id;
	list_for_each_entry(lgr, &smcd_lgrs, list)
		if (lgr->id == smcd_lgr_next_id)
			goto again;
	return smcd_lgr_next_id;
}

static void smcd_lgr_free_work(struct work_struct *work);

/* How long an empty group lingers: not at all on a device going away. */
static unsigned long smcd_lgr_linger_of(const struct smcd_ism_dev *ism)
{
	return ism->gone ? 0 : READ_ONCE(smc_lgr_linger) * HZ;
}

/*
 * The namespace is part of the key: on the loopback device every
 * connection of the host has the same peer GID, so without it the
 * connections of all namespaces would share one group per role, and so
 * its DMB pool and the peer's self-description (hole 7).
 */
static struct smcd_lgr *smcd_lgr_find(struct smcd_ism_dev *ism, u64 net_cookie,
				    const struct smcd_gid *peer_gid, u16 vlan_id,
				    enum smc_lgr_role role)
{
	struct smcd_lgr *lgr;

	list_for_each_entry(lgr, &smcd_lgrs, list)
		if (lgr->ism == ism && lgr->net_cookie == net_cookie &&
		    smcd_gid_eq(&lgr->peer_gid, peer_gid) && lgr->vlan_id == vlan_id &&
		    lgr->role == role)
			return lgr;
	return NULL;
}

static struct smcd_lgr *smcd_lgr_create(struct smcd_ism_dev *ism,
				      u64 net_cookie, const struct smcd_gid *peer_gid,
				      u16 vlan_id, enum smc_lgr_role role)
{
	struct smcd_lgr *lgr = kzalloc(sizeof(*lgr), GFP_KERNEL);
	int i;

	if (!lgr)
		return NULL;
	lgr->id = smcd_lgr_new_id();
	lgr->role = role;
	refcount_inc(&ism->ref);	/* the caller holds one: cannot be 0 */
	lgr->ism = ism;
	lgr->net_cookie = net_cookie;
	lgr->peer_gid = *peer_gid;
	lgr->vlan_id = vlan_id;
	INIT_LIST_HEAD(&lgr->conns);
	for (i = 0; i <= SMCD_DMB_MAX_CLASS; i++)
		INIT_LIST_HEAD(&lgr->pool[i]);
	INIT_DELAYED_WORK(&lgr->free_work, smcd_lgr_free_work);
	list_add_tail(&lgr->list, &smcd_lgrs);
	smcd_lgr_seqno++;
	atomic_inc(&smc_obj_lgrs);
	return lgr;
}

/* Unregister a pooled DMB. Lock held. */
static void smcd_pool_drop(struct smcd_lgr *lgr, struct smcd_pool_dmb *p)
{
	list_del(&p->entry);
	lgr->pool_bytes -= p->dmb.len;
	lgr->pool_num--;
	smcd_pool_total -= p->dmb.len;
	lgr->dmb_bytes -= p->dmb.len;
	atomic_dec(&smc_obj_pool);
	smcd_dmb_unregister(lgr->ism, &p->dmb);
	kfree(p);
}

/*
 * A pooled DMB of this class nobody else holds any more, owned by
 * handler(owner) on the TCP connection tuple from now on; NULL if there
 * is none. Lock held.
 */
static struct smcd_pool_dmb *smcd_pool_take(struct smcd_lgr *lgr, u8 class,
					  u64 memcg_id,
					  smcd_dmb_signal_t handler,
					  void *owner,
					  const struct smcd_dmb_tuple *tuple)
{
	const struct smcd_ism_ops *ops = lgr->ism->ops;
	struct smcd_pool_dmb *p;

	list_for_each_entry(p, &lgr->pool[class], entry) {
		if (p->memcg_id != memcg_id)
			continue;
		/* A peer still attached could write into the new ring. */
		if (ops->dmb_busy(lgr->ism, &p->dmb))
			continue;
		list_del(&p->entry);
		lgr->pool_bytes -= p->dmb.len;
		lgr->pool_num--;
		smcd_pool_total -= p->dmb.len;
		atomic_dec(&smc_obj_pool);
		/*
		 * The old connection's cursors and flags must not reach the
		 * new one: the header is all smc_cdc_rx() reads before the
		 * peer writes its first CDC, and the ring is read only up to
		 * what that CDC announces.
		 */
		memset(p->dmb.cpu_addr, 0, SMC_CDC_D_LEN);
		ops->set_dmb_owner(lgr->ism, &p->dmb, handler, owner, tuple);
		return p;
	}
	return NULL;
}

/*
 * A DMB of class for sc, owned by handler(sc) on sc's TCP connection:
 * from lgr's pool, else a new one. Lock held.
 */
static int smcd_lgr_dmb_get(struct smcd_lgr *lgr, struct smcd_conn *sc,
			    u8 class, smcd_dmb_signal_t handler,
			    struct smcd_dmb *dmb)
{
	struct smc_conn *conn = &sc->smc->conn;
	struct smcd_pool_dmb *p;
	int rc;

	p = smcd_pool_take(lgr, class, smc_mem_id(conn), handler, sc,
			   &sc->tuple);
	if (p) {
		*dmb = p->dmb;
		kfree(p);
		return 0;
	}
	rc = smcd_dmb_register(conn, lgr->ism, dmb, class, handler, sc,
			       &sc->tuple);
	if (!rc)
		lgr->dmb_bytes += dmb->len;
	return rc;
}

/* sc is done with dmb: into lgr's pool, or unregistered. Lock held. */
static void smcd_lgr_dmb_put(struct smcd_lgr *lgr, struct smcd_conn *sc,
			     struct smcd_dmb *dmb)
{
	struct smcd_ism_dev *ism = lgr->ism;
	struct smcd_pool_dmb *p;

	if (ism->ops->dmb_busy && ism->ops->set_dmb_owner &&
	    lgr->pool_bytes + dmb->len <= SMCD_POOL_MAX_LGR &&
	    smcd_pool_total + dmb->len <= SMCD_POOL_MAX_TOTAL) {
		p = kmalloc(sizeof(*p), GFP_KERNEL);
		if (p) {
			/* No smc_cdc_rx() for the old owner after this. */
			ism->ops->set_dmb_owner(ism, dmb, NULL, NULL, NULL);
			p->dmb = *dmb;
			p->memcg_id = smc_mem_id(&sc->smc->conn);
			list_add(&p->entry, &lgr->pool[ilog2(p->dmb.len /
							     SMC_BUF_MIN_SIZE)]);
			lgr->pool_bytes += p->dmb.len;
			lgr->pool_num++;
			smcd_pool_total += p->dmb.len;
			atomic_inc(&smc_obj_pool);
			dmb->cpu_addr = NULL;
			return;
		}
	}
	lgr->dmb_bytes -= dmb->len;
	smcd_dmb_unregister(ism, dmb);
	dmb->cpu_addr = NULL;
}

int smcd_lgr_dmb_add(struct smcd_conn *sc, u8 class,
		     smcd_dmb_signal_t handler, struct smcd_dmb *dmb)
{
	int rc = -ENOTCONN;

	if (class > SMCD_DMB_MAX_CLASS)
		return -EINVAL;
	mutex_lock(&smcd_lgr_lock);
	if (sc->lgr)
		rc = smcd_lgr_dmb_get(sc->lgr, sc, class, handler, dmb);
	mutex_unlock(&smcd_lgr_lock);
	return rc;
}

void smcd_lgr_dmb_del(struct smcd_conn *sc, struct smcd_dmb *dmb)
{
	if (!dmb->cpu_addr)
		return;
	mutex_lock(&smcd_lgr_lock);
	if (!WARN_ON_ONCE(!sc->lgr))
		smcd_lgr_dmb_put(sc->lgr, sc, dmb);
	mutex_unlock(&smcd_lgr_lock);
}

int smcd_lgr_conn_add(struct smcd_conn *sc, struct smcd_ism_dev *ism,
		     u64 net_cookie, const struct smcd_gid *peer_gid, u16 vlan_id,
		     enum smc_lgr_role role, u8 class, smcd_dmb_signal_t handler)
{
	struct smcd_lgr *lgr;
	bool first = false;
	int rc;

	if (class > SMCD_DMB_MAX_CLASS)
		return -EINVAL;
	mutex_lock(&smcd_lgr_lock);
	if (ism->gone) {
		mutex_unlock(&smcd_lgr_lock);
		return -ENODEV;
	}
	lgr = smcd_lgr_find(ism, net_cookie, peer_gid, vlan_id, role);
	if (!lgr) {
		lgr = smcd_lgr_create(ism, net_cookie, peer_gid, vlan_id, role);
		if (!lgr) {
			mutex_unlock(&smcd_lgr_lock);
			return -ENOMEM;
		}
		first = true;
	}
	rc = smcd_lgr_dmb_get(lgr, sc, class, handler, &sc->rmb);
	if (rc) {
		/* A new group stays empty: it lingers and goes. */
		if (!lgr->conns_num)
			mod_delayed_work(smcd_lgr_wq, &lgr->free_work,
					 smcd_lgr_linger_of(ism));
		mutex_unlock(&smcd_lgr_lock);
		return rc;
	}
	list_add_tail(&sc->lgr_entry, &lgr->conns);
	lgr->conns_num++;
	sc->lgr = lgr;
	sc->smc->conn.lgr_id = lgr->id;
	sc->first_contact = first;
	atomic_inc(&smc_obj_conns);
	mutex_unlock(&smcd_lgr_lock);
	return 0;
}

void smcd_lgr_conn_del(struct smcd_conn *sc)
{
	struct smcd_lgr *lgr = sc->lgr;

	if (!lgr)
		return;
	mutex_lock(&smcd_lgr_lock);
	list_del_init(&sc->lgr_entry);
	lgr->conns_num--;
	sc->lgr = NULL;
	atomic_dec(&smc_obj_conns);
	/* A ring that grew: the offered one and the one left, if any. */
	if (sc->rmb_next.cpu_addr)
		smcd_lgr_dmb_put(lgr, sc, &sc->rmb_next);
	if (sc->rmb_old.cpu_addr)
		smcd_lgr_dmb_put(lgr, sc, &sc->rmb_old);
	smcd_lgr_dmb_put(lgr, sc, &sc->rmb);
	if (!lgr->conns_num)
		mod_delayed_work(smcd_lgr_wq, &lgr->free_work,
				 smcd_lgr_linger_of(lgr->ism));
	mutex_unlock(&smcd_lgr_lock);
}

static void smcd_lgr_free_work(struct work_struct *work)
{
	struct smcd_lgr *lgr = container_of(to_delayed_work(work),
					   struct smcd_lgr, free_work);
	struct smcd_pool_dmb *p, *n;
	int i;

	mutex_lock(&smcd_lgr_lock);
	if (lgr->conns_num) {
		mutex_unlock(&smcd_lgr_lock);
		return;		/* someone joined while it lingered */
	}
	list_del(&lgr->list);
	/*
	 * The last connection may have left (and re-armed us) while this
	 * run waited for the lock: drop that pending run, nobody can arm
	 * another once the group is off the list.
	 */
	cancel_delayed_work(&lgr->free_work);
	smcd_lgr_seqno++;
	for (i = 0; i <= SMCD_DMB_MAX_CLASS; i++)
		list_for_each_entry_safe(p, n, &lgr->pool[i], entry)
			smcd_pool_drop(lgr, p);
	mutex_unlock(&smcd_lgr_lock);
	WARN_ON_ONCE(lgr->dmb_bytes);
	smcd_ism_put(lgr->ism);
	atomic_dec(&smc_obj_lgrs);
	kfree(lgr);
}

/*
 * One connection of ism's groups with a reference on its sock, NULL when
 * none is left: not reset yet, in peer_gid's groups (every peer's when
 * peer_gid is NULL) (all false); or any connection of any group (all true).
 */
static struct smc_sock *smcd_lgr_next_conn(struct smcd_ism_dev *ism,
					   const struct smcd_gid *peer_gid, bool all)
{
	struct smc_sock *smc = NULL;
	struct smcd_lgr *lgr;
	struct smcd_conn *sc;

	mutex_lock(&smcd_lgr_lock);
	list_for_each_entry(lgr, &smcd_lgrs, list) {
		if (lgr->ism != ism ||
		    (!all && peer_gid && !smcd_gid_eq(&lgr->peer_gid, peer_gid)))
			continue;
		list_for_each_entry(sc, &lgr->conns, lgr_entry) {
			/* Reset already (smc_close_peer_gone() sets neither then). */
			if (!all && (READ_ONCE(sc->smc->conn.peer_gone) ||
				     READ_ONCE(sc->smc->conn.peer_abort)))
				continue;
			smc = sc->smc;
			/*
			 * Listed means not destroyed yet, and a connection is
			 * destroyed before its owner drops its last reference
			 * (smc_close.c), so the sock has one to share.
			 */
			sock_hold(&smc->sk);
			goto out;
		}
	}
out:
	mutex_unlock(&smcd_lgr_lock);
	return smc;
}

void smcd_lgr_peer_gone(struct smcd_ism_dev *ism, const struct smcd_gid *peer_gid)
{
	struct smc_sock *smc;

	/*
	 * One at a time, the lock dropped for each reset (which takes the
	 * connection's lock and wakes its waiters); a reset connection is
	 * peer_gone, so the next look skips it. A group holds at most a
	 * device's DMBs, so this ends.
	 */
	while ((smc = smcd_lgr_next_conn(ism, peer_gid, false))) {
		smc_close_peer_gone(smc);
		sock_put(&smc->sk);
	}
}

void smcd_lgr_dev_gone(struct smcd_ism_dev *ism)
{
	struct smcd_lgr *lgr;
	struct smc_sock *smc;
	bool done;

	mutex_lock(&smcd_lgr_lock);
	ism->gone = true;
	mutex_unlock(&smcd_lgr_lock);
	/*
	 * Each one detached leaves its group's list; one in its handshake
	 * stays listed until the handshake ends it or finishes (its CLC
	 * waits are bounded), and is looked at again after a pause.
	 */
	while ((smc = smcd_lgr_next_conn(ism, NULL, true))) {
		lock_sock(&smc->sk);
		done = smc_hs_state(smc) == SMC_HS_DONE;
		if (done) {
			smc_close_peer_gone(smc);
			smcd_conn_detach(smc);
		}
		release_sock(&smc->sk);
		sock_put(&smc->sk);
		/*
		 * A detached one has left the list; one its owner is closing
		 * at this moment may still be listed for a moment more, so
		 * even a done pass yields rather than spin on it.
		 */
		if (!done)
			msleep(20);
		else
			cond_resched();
	}
	/* Empty groups hold the device too: they go now, not after linger. */
	mutex_lock(&smcd_lgr_lock);
	list_for_each_entry(lgr, &smcd_lgrs, list)
		if (lgr->ism == ism && !lgr->conns_num)
			mod_delayed_work(smcd_lgr_wq, &lgr->free_work, 0);
	mutex_unlock(&smcd_lgr_lock);
}

void smcd_lgr_set_peer(struct smcd_conn *sc, u8 os, u8 release,
		      const u8 *host, const u8 *eid)
{
	if (!sc->lgr)
		return;
	mutex_lock(&smcd_lgr_lock);
	smc_lgr_peer_set(&sc->lgr->peer, os, release, host, eid);
	mutex_unlock(&smcd_lgr_lock);
}

/*
 * The send buffers the group's connections hold now. smc_tx.c allocates
 * one only when a byte first has to wait (SMC-D writes into the peer's
 * DMB directly otherwise), so this is read off the connections rather
 * than counted. Lock held: a connection on the list is alive; its
 * pointer may change meanwhile, which only moves the figure.
 */
static u64 smcd_lgr_sndbuf_bytes(const struct smcd_lgr *lgr)
{
	const struct smcd_conn *sc;
	u64 sum = 0;

	list_for_each_entry(sc, &lgr->conns, lgr_entry) {
		const struct smc_conn *conn = &sc->smc->conn;

		if (READ_ONCE(conn->sndbuf))
			sum += conn->sndbuf_size;
	}
	return sum;
}

static void smcd_lgr_fill_info(const struct smcd_lgr *lgr,
			      struct smcd_lgr_info *info)
{
	info->peer = lgr->peer;
	info->id = lgr->id;
	info->net_cookie = lgr->net_cookie;
	info->role = lgr->role;
	info->gid = lgr->ism->gid;
	info->peer_gid = lgr->peer_gid;
	info->chid = lgr->ism->chid;
	info->vlan_id = lgr->vlan_id;
	info->conns = lgr->conns_num;
	info->dmb_bytes = lgr->dmb_bytes;
	info->sndbuf_bytes = smcd_lgr_sndbuf_bytes(lgr);
	info->pool_dmbs = lgr->pool_num;
	info->dev_name = lgr->ism->name;
}

int smcd_lgr_for_each(unsigned long *pos,
		     int (*fn)(const struct smcd_lgr_info *info, void *arg),
		     void *arg)
{
	struct smcd_lgr_info *info;
	struct smcd_lgr *lgr;
	unsigned long i = 0;
	int rc = 0;

	info = kmalloc(sizeof(*info), GFP_KERNEL);
	if (!info)
		return -ENOMEM;
	mutex_lock(&smcd_lgr_lock);
	list_for_each_entry(lgr, &smcd_lgrs, list) {
		if (i++ < *pos)
			continue;
		smcd_lgr_fill_info(lgr, info);
		rc = fn(info, arg);
		if (rc)
			break;
		(*pos)++;
	}
	mutex_unlock(&smcd_lgr_lock);
	kfree(info);
	return rc;
}

unsigned int smcd_lgr_seq(void)
{
	return READ_ONCE(smcd_lgr_seqno);
}

unsigned int smcd_lgr_dev_conns(const struct smcd_ism_dev *ism, u64 net_cookie)
{
	unsigned int n = 0;
	struct smcd_lgr *lgr;

	mutex_lock(&smcd_lgr_lock);
	list_for_each_entry(lgr, &smcd_lgrs, list)
		if (lgr->ism == ism && lgr->net_cookie == net_cookie)
			n += lgr->conns_num;
	mutex_unlock(&smcd_lgr_lock);
	return n;
}

void smcd_lgr_objects(int *conns, int *dmbs, int *pool)
{
	mutex_lock(&smcd_lgr_lock);
	*conns = atomic_read(&smc_obj_conns);
	*dmbs = atomic_read(&smc_obj_dmbs);
	*pool = atomic_read(&smc_obj_pool);
	mutex_unlock(&smcd_lgr_lock);
}

int smcd_lgr_init(void)
{
	smcd_lgr_wq = alloc_workqueue("af_smcd_lgr", 0, 0);
	return smcd_lgr_wq ? 0 : -ENOMEM;
}

void smcd_lgr_exit(void)
{
	struct smcd_lgr *lgr;

	/* No sockets are left, so every group waits for its free work. */
	mutex_lock(&smcd_lgr_lock);
	list_for_each_entry(lgr, &smcd_lgrs, list) {
		WARN_ON_ONCE(lgr->conns_num);
		mod_delayed_work(smcd_lgr_wq, &lgr->free_work, 0);
	}
	mutex_unlock(&smcd_lgr_lock);
	/* Waits for every queued and delayed item, then frees the queue. */
	destroy_workqueue(smcd_lgr_wq);
	WARN_ON_ONCE(!list_empty(&smcd_lgrs));
}
