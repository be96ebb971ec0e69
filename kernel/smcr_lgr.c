// SPDX-License-Identifier: GPL-2.0
/*
 * af_smc: SMC-R link groups (see smcr_lgr.h for the rules and the locks).
 *
 * Lifetime: a group is made by smcr_lgr_join() with its connection in
 * it, listed on smcr_lgrs until the free work takes it off. The free work
 * is armed when the last connection leaves (lgr_linger seconds, at once
 * for a dead group) and frees the group only if it is still empty, under
 * smcr_lgr_lock; so a group found on the list under the lock is alive,
 * and a connection in a group keeps it alive.
 *
 * The RMB pool: a connection's RMB stays registered when it leaves and
 * goes to its group's pool (at most SMCR_POOL_MAX buffers and
 * SMCR_POOL_BYTES bytes per group, so that a group keeps no 512 MiB
 * RMB, nor eight of 64 MiB, for a connection that may never come), for the
 * next connection of the same size: no new MR, no new pages, no new DMA
 * mapping. The rkey does not go with it (Linux's smc.ko keeps it): the
 * old connection's peer knew it, and a WRITE with it, late or on
 * purpose, would land in the new connection's ring. The buffer leaves
 * the pool marked for a new key (rekey), and smcr_buf_register()
 * invalidates the old one (LOCAL_INV) and registers the MR under the
 * next (ib_inc_rkey, REG_MR) before the handshake announces it; the
 * device then refuses the old key (an RDMA WRITE with it fails with a
 * remote access error at the writer). While the buffer sits in the pool
 * the old key still works: nothing reads the ring there, and a late
 * WRITE of the closing connection's peer does not take the link down.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/etherdevice.h>
#include <linux/random.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/wait.h>
#include <net/sock.h>

#include "smc.h"
#include "smc_clc_io.h"
#include "smc_mem.h"
#include "smc_netns.h"
#include "smcr_lgr.h"
#include "wire/smc_cdc.h"

#define SMCR_POOL_MAX	64
/*
 * 64 MiB: all the old pool could hold (64 RMBs of 1 MiB, the largest
 * class before SMC-R buffers grew to 512 MiB), in bytes now; a larger
 * RMB, or one that would take the pool past it, is freed when its
 * connection leaves (Documentation/decisions.md).
 */
#define SMCR_POOL_BYTES	(64ULL * 1024 * 1024)

DEFINE_MUTEX(smcr_lgr_lock);
static LIST_HEAD(smcr_lgrs);
/*
 * Server first contacts: one group per key, made by one handshake at a
 * time, and no lock held while that handshake waits for the network.
 *
 * A server handshake that finds no usable group for its key claims the
 * key: its new group goes on smcr_lgr_firsts (lgr->first) in the same
 * smcr_lgr_lock section that found neither a usable group nor a claim,
 * before its link is made, and leaves it in smcr_lgr_first_done() (link
 * confirmed or failed) or when making the link fails. So for one key
 * there is at most one claim, and no group is made beside a usable one.
 * A second handshake for a claimed key waits on smcr_lgr_first_wq with
 * no lock held, until a claim ends (smcr_lgr_first_gen moves; it then
 * looks again: it joins the new group, or claims the key itself if that
 * group failed), its socket is closed (SMC_F_HS_ABORT, with
 * smcr_lgr_first_wake()), or SMCR_LGR_FIRST_WAIT has passed since it
 * started (it declines: clean TCP). Handshakes for other keys never wait
 * for a claim, so a peer that stalls its own first contact stalls only
 * first contacts under its own key, each for at most that bound.
 * smcr_lgr_firsts and smcr_lgr_first_gen are under smcr_lgr_lock; the gen
 * is read without it only as the wait's condition.
 */
static LIST_HEAD(smcr_lgr_firsts);
static unsigned int smcr_lgr_first_gen;
static DECLARE_WAIT_QUEUE_HEAD(smcr_lgr_first_wq);
/*
 * The client waits SMC_CLC_WAIT_TIME for our Accept from its Proposal on;
 * giving up a quarter earlier leaves our Decline time to reach it, so it
 * falls back to TCP instead of failing its connect.
 */
#define SMCR_LGR_FIRST_WAIT	(SMC_CLC_WAIT_TIME * 3 / 4)
static u32 smcr_lgr_next_id;
/* Bumped under smcr_lgr_lock when a group is listed or unlisted. */
unsigned int smcr_lgr_seqno;
/* The free works; flushed at module exit. */
static struct workqueue_struct *smcr_lgr_wq;

atomic_t smc_obj_smcr_lgrs, smc_obj_smcr_bufs;

static void smcr_lgr_free_work(struct work_struct *work);
static void smcr_lgr_down_work(struct work_struct *work);

static bool smcr_lgr_key_eq(const struct smcr_lgr_key *a,
			    const struct smcr_lgr_key *b)
{
	return a->dev == b->dev && a->port == b->port && a->vlan == b->vlan &&
	       a->role == b->role && a->net_cookie == b->net_cookie &&
	       a->version == b->version &&
	       !memcmp(a->peer_id, b->peer_id, sizeof(a->peer_id)) &&
	       !memcmp(a->peer_gid.raw, b->peer_gid.raw, sizeof(a->peer_gid.raw));
}

/* A token no connection of lgr has; never 0. conns_lock held. */
static u32 smcr_lgr_new_token(struct smcr_lgr *lgr)
{
	struct smcr_conn *sc;
	u32 t;

again:
	t = get_random_u32();
	if (!t)
		goto again;
	list_for_each_entry(sc, &lgr->conns, lgr_entry)
		if (sc->token == t)
			goto again;
	return t;
}

/*
 * The slot of lgr's active, confirmed link with the fewest connections
 * (the first of equals), or -1 when there is none. smcr_lgr_lock held.
 */
static int smcr_lgr_pick_link(const struct smcr_lgr *lgr)
{
	struct smcr_link *l;
	int i, best = -1;

	smcr_lgr_for_each_link(lgr, l, i)
		if (smcr_link_active(l) && lgr->link_ready[i] &&
		    (best < 0 || lgr->link_conns[i] < lgr->link_conns[best]))
			best = i;
	return best;
}

bool smcr_lgr_has_ready(const struct smcr_lgr *lgr)
{
	const struct smcr_link *l;
	bool ready = false;
	int i;

	mutex_lock(&smcr_lgr_lock);
	smcr_lgr_for_each_link(lgr, l, i)
		if (smcr_link_active(l) && lgr->link_ready[i])
			ready = true;
	mutex_unlock(&smcr_lgr_lock);
	return ready;
}

int smcr_lgr_move(struct smcr_conn *sc)
{
	struct smc_conn *conn = &sc->smc->conn;
	struct smcr_lgr *lgr = sc->lgr;
	struct smcr_link *l;
	int i, best = -1;

	mutex_lock(&smcr_lgr_lock);
	smcr_lgr_for_each_link(lgr, l, i)
		if (l != sc->link && smcr_link_active(l) && lgr->link_ready[i] &&
		    sc->peer_rkey[i] &&
		    (best < 0 || lgr->link_conns[i] < lgr->link_conns[best]))
			best = i;
	if (best < 0) {
		mutex_unlock(&smcr_lgr_lock);
		return -ENOLINK;
	}
	/* The last connection of a failed link: its slot can go. */
	if (!--lgr->link_conns[sc->slot] && !lgr->link_ready[sc->slot])
		smcr_lgr_llc_kick(lgr);
	lgr->link_conns[best]++;
	lgr->failovers++;
	spin_lock_bh(&conn->lock);	/* smc_diag reads sc->link under it */
	sc->link = lgr->links[best];
	sc->slot = best;
	spin_unlock_bh(&conn->lock);
	mutex_unlock(&smcr_lgr_lock);
	return 0;
}

/* sc into lgr on links[slot], with a new token. smcr_lgr_lock held. */
static void smcr_lgr_add(struct smcr_lgr *lgr, struct smcr_conn *sc, int slot)
{
	lgr->conns_num++;
	lgr->link_conns[slot]++;
	sc->link = lgr->links[slot];
	sc->slot = slot;
	/* A linger in progress ends here; the free work rechecks anyway. */
	cancel_delayed_work(&lgr->free_work);
	write_lock_bh(&lgr->conns_lock);
	sc->token = smcr_lgr_new_token(lgr);
	list_add_tail(&sc->lgr_entry, &lgr->conns);
	sc->in_group = true;
	write_unlock_bh(&lgr->conns_lock);
	sc->lgr = lgr;
}

/*
 * A new group for key, with no link yet: nobody else knows it. Its
 * connection limit is the one net (key's) has now, as in Linux: a
 * later change of the sysctl is for groups made after it.
 */
static struct smcr_lgr *smcr_lgr_alloc(const struct smcr_lgr_key *key,
				       struct net *net)
{
	struct smcr_lgr *lgr = kzalloc(sizeof(*lgr), GFP_KERNEL);

	if (!lgr)
		return NULL;
	lgr->key = *key;
	lgr->max_conns = READ_ONCE(smc_net(net)->sysctl_smcr_max_conns_per_lgr);
	lgr->max_links = READ_ONCE(smc_net(net)->sysctl_smcr_max_links_per_lgr);
	INIT_LIST_HEAD(&lgr->first);
	INIT_LIST_HEAD(&lgr->pool);
	INIT_LIST_HEAD(&lgr->bufs);
	INIT_LIST_HEAD(&lgr->retired);
	init_rwsem(&lgr->bufs_sem);
	smcr_lgr_llc_init(lgr);
	INIT_LIST_HEAD(&lgr->conns);
	rwlock_init(&lgr->conns_lock);
	INIT_WORK(&lgr->down_work, smcr_lgr_down_work);
	INIT_DELAYED_WORK(&lgr->free_work, smcr_lgr_free_work);
	return lgr;
}

/*
 * lgr's first link (links[0]) on path, before anybody else knows the
 * group. 0, or -errno and lgr is as it was.
 */
static int smcr_lgr_make_link(struct smcr_lgr *lgr, struct smcr_path *path,
			      struct net *net)
{
	struct smcr_link *l = smcr_link_create(path, net);

	if (IS_ERR(l))
		return PTR_ERR(l);
	l->v2 = lgr->key.version >= SMC_CLC_V2;	/* before anything is sent */
	l->llc_max_links = lgr->max_links;
	lgr->links[0] = l;
	strscpy(lgr->pnetid, path->pnetid, sizeof(lgr->pnetid));
	/* Nothing arrives before the QP is connected, after this. */
	l->cdc_arg = lgr;
	l->cdc_rx = smcr_lgr_cdc_rx;
	l->llc_rx = smcr_lgr_llc_rx;
	smcr_link_set_down_work(l, &lgr->down_work);
	return 0;
}

/*
 * The usable group of key with room for one more, if any, and in *slot
 * the link to use. smcr_lgr_lock held.
 */
static struct smcr_lgr *smcr_lgr_find_usable(const struct smcr_lgr_key *key,
					     int *slot)
{
	struct smcr_lgr *lgr;

	list_for_each_entry(lgr, &smcr_lgrs, list) {
		if (!lgr->usable || lgr->dead ||
		    lgr->conns_num >= lgr->max_conns ||
		    !smcr_lgr_key_eq(&lgr->key, key))
			continue;
		*slot = smcr_lgr_pick_link(lgr);
		if (*slot >= 0)
			return lgr;
	}
	return NULL;
}

/* Whether a server first contact for key is in progress. smcr_lgr_lock held. */
static bool smcr_lgr_claimed(const struct smcr_lgr_key *key)
{
	struct smcr_lgr *lgr;

	list_for_each_entry(lgr, &smcr_lgr_firsts, first)
		if (smcr_lgr_key_eq(&lgr->key, key))
			return true;
	return false;
}

/* A claim ended (smcr_lgr_lock held): its waiters look again. */
static void smcr_lgr_unclaim(struct smcr_lgr *lgr)
{
	list_del_init(&lgr->first);
	smcr_lgr_first_gen++;
}

/*
 * Server: join the usable group of key (NULL), or claim key with a new
 * group, no link yet (returned), waiting for another handshake's claim
 * on key as the rule at smcr_lgr_firsts says. ERR_PTR: -ETIMEDOUT (that
 * claim outlasted SMCR_LGR_FIRST_WAIT), -ECONNABORTED (sc's socket is
 * being closed), -ENOMEM; nothing was done.
 */
static struct smcr_lgr *smcr_lgr_server_find(struct smcr_conn *sc,
					     const struct smcr_lgr_key *key)
{
	unsigned long deadline = jiffies + SMCR_LGR_FIRST_WAIT;
	struct smc_sock *smc = sc->smc;
	struct smcr_lgr *lgr;
	unsigned int gen;
	int slot;
	long left;

	for (;;) {
		mutex_lock(&smcr_lgr_lock);
		lgr = smcr_lgr_find_usable(key, &slot);
		if (lgr) {
			smcr_lgr_add(lgr, sc, slot);
			mutex_unlock(&smcr_lgr_lock);
			return NULL;
		}
		if (!smcr_lgr_claimed(key))
			break;
		gen = smcr_lgr_first_gen;
		mutex_unlock(&smcr_lgr_lock);
		/* The gen was read under the lock: no end of a claim is missed. */
		left = (long)(deadline - jiffies);
		if (left <= 0 ||
		    !wait_event_timeout(smcr_lgr_first_wq,
					READ_ONCE(smcr_lgr_first_gen) != gen ||
					test_bit(SMC_F_HS_ABORT, &smc->flags),
					left))
			return ERR_PTR(-ETIMEDOUT);
		if (test_bit(SMC_F_HS_ABORT, &smc->flags))
			return ERR_PTR(-ECONNABORTED);
	}
	/* Still under the lock that found no claim: the claim is ours alone. */
	lgr = smcr_lgr_alloc(key, sock_net(&smc->sk));
	if (lgr)
		list_add(&lgr->first, &smcr_lgr_firsts);
	mutex_unlock(&smcr_lgr_lock);
	return lgr ?: ERR_PTR(-ENOMEM);
}

int smcr_lgr_join(struct smcr_conn *sc, const struct smcr_lgr_key *key,
		  struct smcr_path *path, bool *first)
{
	bool server = key->role == SMC_LGR_SERVER;
	struct smcr_lgr *lgr;
	int rc;

	if (server) {
		lgr = smcr_lgr_server_find(sc, key);
		if (IS_ERR(lgr))
			return PTR_ERR(lgr);
		if (!lgr) {
			*first = false;
			return 0;
		}
	} else {
		lgr = smcr_lgr_alloc(key, sock_net(&sc->smc->sk));
		if (!lgr)
			return -ENOMEM;
	}
	/* A link is made without smcr_lgr_lock: it may sleep a while. */
	rc = smcr_lgr_make_link(lgr, path, sock_net(&sc->smc->sk));
	if (rc) {
		if (server) {
			mutex_lock(&smcr_lgr_lock);
			smcr_lgr_unclaim(lgr);
			mutex_unlock(&smcr_lgr_lock);
			wake_up_all(&smcr_lgr_first_wq);
		}
		kfree(lgr);
		return rc;
	}
	atomic_inc(&smc_obj_smcr_lgrs);
	mutex_lock(&smcr_lgr_lock);
	if (!++smcr_lgr_next_id)
		++smcr_lgr_next_id;
	lgr->id = smcr_lgr_next_id;
	list_add_tail(&lgr->list, &smcr_lgrs);
	smcr_lgr_seqno++;
	/* Its one link, not active yet: the handshake brings it up. */
	smcr_lgr_add(lgr, sc, 0);
	mutex_unlock(&smcr_lgr_lock);
	*first = true;
	return 0;
}

int smcr_lgr_join_qp(struct smcr_conn *sc, const struct smcr_lgr_key *key,
		     u32 peer_qpn, const u8 *peer_gid)
{
	struct smcr_lgr_key k = *key;
	struct smcr_lgr *lgr;
	struct smcr_link *l;
	int i;

	mutex_lock(&smcr_lgr_lock);
	list_for_each_entry(lgr, &smcr_lgrs, list) {
		/*
		 * Not "usable": the server may have had our CONFIRM_LINK
		 * answer before our own handshake marked the group. The
		 * server chose the link: its Accept names that link's QP and
		 * GID. The key's peer GID is the first link's, which a
		 * second link's Accept does not carry: the link must match.
		 */
		memcpy(k.peer_gid.raw, lgr->key.peer_gid.raw, sizeof(k.peer_gid.raw));
		if (lgr->dead || !smcr_lgr_key_eq(&lgr->key, &k))
			continue;
		smcr_lgr_for_each_link(lgr, l, i) {
			if (smcr_link_active(l) && l->peer.qpn == peer_qpn &&
			    !memcmp(l->peer.gid.raw, peer_gid, sizeof(l->peer.gid.raw))) {
				smcr_lgr_add(lgr, sc, i);
				mutex_unlock(&smcr_lgr_lock);
				return 0;
			}
		}
	}
	mutex_unlock(&smcr_lgr_lock);
	return -ENOENT;
}

void smcr_lgr_first_done(struct smcr_conn *sc, bool ok)
{
	struct smcr_lgr *lgr = sc->lgr;
	bool server = lgr->key.role == SMC_LGR_SERVER;

	mutex_lock(&smcr_lgr_lock);
	if (ok && !lgr->dead)
		lgr->usable = lgr->link_ready[0] = true;
	else
		lgr->dead = true;
	ok = lgr->usable;
	/* In the same section: a waiter finds the group usable, or no claim. */
	if (server)
		smcr_lgr_unclaim(lgr);
	mutex_unlock(&smcr_lgr_lock);
	if (server)
		wake_up_all(&smcr_lgr_first_wq);
	/* A client's answer to an early ADD_LINK waits for this. */
	wake_up(&lgr->llc_wait);
	/* The server adds the links (RFC 7609), after the first. */
	if (server && ok)
		smcr_lgr_llc_add(lgr);
}

void smcr_lgr_first_wake(void)
{
	wake_up_all(&smcr_lgr_first_wq);
}

void smcr_lgr_set_v2_peer(struct smcr_lgr *lgr, const struct smc_clc_fce *fce,
			  const u8 *eid, bool direct)
{
	mutex_lock(&smcr_lgr_lock);
	smc_lgr_peer_set(&lgr->v2_peer, fce->os_type, fce->release,
			 fce->hostname, eid);
	lgr->v2_direct = direct;
	/*
	 * SMC v2.1: the limits the handshake agreed (fce is the checked
	 * Accept or Confirm, smc_v21.c). Nobody joins the group before its
	 * link is confirmed, which is after this and after CONFIRM_LINK.
	 */
	if (fce->release >= SMC_CLC_RELEASE_1) {
		lgr->max_conns = fce->max_conns;
		lgr->max_links = fce->max_links;
		/* Its first link only, at first contact. */
		lgr->links[0]->llc_max_conns = fce->max_conns;
		lgr->links[0]->llc_max_links = fce->max_links;
	}
	mutex_unlock(&smcr_lgr_lock);
}

void smcr_lgr_bufs_hold(struct smcr_conn *sc)
{
	down_read(&sc->lgr->bufs_sem);
}

void smcr_lgr_bufs_release(struct smcr_conn *sc)
{
	up_read(&sc->lgr->bufs_sem);
}

/*
 * Whether b is registered on every confirmed link of lgr: only such an
 * RMB goes to the pool and comes out of it. smcr_lgr_lock held.
 */
static bool smcr_lgr_buf_ok(const struct smcr_lgr *lgr, struct smcr_buf *b)
{
	struct smcr_link *l;
	int i;

	smcr_lgr_for_each_link(lgr, l, i)
		if (lgr->link_ready[i] && !smcr_buf_registered(l, b))
			return false;
	return true;
}

/* A pooled RMB for sc, if one fits. smcr_lgr_lock held. */
static struct smcr_buf *smcr_lgr_pool_take(struct smcr_lgr *lgr, u32 size,
					   enum smcr_buf_type type, u64 memcg_id)
{
	struct smcr_buf *b;

	list_for_each_entry(b, &lgr->pool, pool) {
		/*
		 * Only to the memcg its pages are charged to (smc_mem.h), and
		 * only of the kind net.smc.smcr_buf_type asks for now: the
		 * group's namespace may have changed it since b was made.
		 */
		if (b->size == size && smcr_lgr_buf_ok(lgr, b) &&
		    b->memcg_id == memcg_id && smcr_buf_is_type(b, type)) {
			list_del_init(&b->pool);
			lgr->pool_num--;
			lgr->pool_bytes -= b->size;
			smcr_buf_rekey(b);
			return b;
		}
	}
	return NULL;
}

struct smcr_buf *smcr_lgr_buf_get(struct smcr_conn *sc, u32 size, bool remote,
				  enum smcr_buf_type type)
{
	u64 memcg_id = smc_mem_id(&sc->smc->conn);
	struct smcr_lgr *lgr = sc->lgr;
	struct smcr_link *l;
	struct smcr_buf *b;
	int i, rc;

	if (remote) {
		mutex_lock(&smcr_lgr_lock);
		b = smcr_lgr_pool_take(lgr, size, type, memcg_id);
		mutex_unlock(&smcr_lgr_lock);
		if (b)
			return b;
	}
	/*
	 * Made on sc's link, then mapped on the other active ones: with
	 * bufs_sem held no link becomes active meanwhile (a failed one
	 * carries nothing any more), and a link added later maps the
	 * buffer itself (it is on lgr->bufs by then).
	 */
	b = smcr_buf_alloc(sc->link, size, remote, type);
	if (IS_ERR(b))
		return b;
	smcr_lgr_for_each_link(lgr, l, i) {
		if (l == sc->link || !smcr_link_active(l))
			continue;
		rc = smcr_buf_add_link(l, b);
		if (rc) {
			smcr_buf_free(b);
			return ERR_PTR(rc);
		}
	}
	b->memcg_id = memcg_id;
	atomic_inc(&smc_obj_smcr_bufs);
	mutex_lock(&smcr_lgr_lock);
	list_add_tail(&b->grp, &lgr->bufs);
	mutex_unlock(&smcr_lgr_lock);
	return b;
}

/*
 * REG_MR of b on every link that can take one: the peer may use an RMB
 * on each once told its rkey there (an ADD_LINK CONTINUATION).
 */
static int smcr_lgr_buf_register(struct smcr_conn *sc, struct smcr_buf *b)
{
	struct smcr_lgr *lgr = sc->lgr;
	struct smcr_link *l;
	int i, rc;

	smcr_lgr_for_each_link(lgr, l, i) {
		if (l != sc->link && !smcr_link_active(l))
			continue;
		rc = smcr_buf_register(l, b);
		if (rc)
			return rc;
	}
	return 0;
}

int smcr_lgr_bufs_register(struct smcr_conn *sc)
{
	return smcr_lgr_buf_register(sc, sc->rmb) ?:
	       smcr_lgr_buf_register(sc, sc->sndbuf);
}

/* b leaves lgr for good. bufs_sem held (read), or nobody else has lgr. */
static void smcr_lgr_buf_free(struct smcr_lgr *lgr, struct smcr_buf *b)
{
	mutex_lock(&smcr_lgr_lock);
	list_del_init(&b->grp);
	mutex_unlock(&smcr_lgr_lock);
	smcr_buf_free(b);
	atomic_dec(&smc_obj_smcr_bufs);
}

/* Whether b may go on lgr's pool now; if so, it is there. smcr_lgr_lock held. */
static bool smcr_lgr_pool_add(struct smcr_lgr *lgr, struct smcr_buf *b)
{
	if (!smcr_lgr_buf_ok(lgr, b) || lgr->dead ||
	    lgr->pool_num >= SMCR_POOL_MAX ||
	    lgr->pool_bytes + b->size > SMCR_POOL_BYTES)
		return false;
	list_add(&b->pool, &lgr->pool);
	lgr->pool_num++;
	lgr->pool_bytes += b->size;
	return true;
}

/* An RMB of sc's goes: the peer forgets it; the pool, else freed. bufs_sem held. */
static void smcr_lgr_rmb_put(struct smcr_conn *sc, struct smcr_buf *b)
{
	struct smcr_lgr *lgr = sc->lgr;
	bool pooled;

	smcr_lgr_rkey_forget(sc, b);
	mutex_lock(&smcr_lgr_lock);
	pooled = smcr_lgr_pool_add(lgr, b);
	mutex_unlock(&smcr_lgr_lock);
	if (!pooled)
		smcr_lgr_buf_free(lgr, b);
}

struct smcr_buf *smcr_lgr_ring_new(struct smcr_conn *sc, u32 size)
{
	/* One snapshot: the sysctl may change meanwhile. */
	enum smcr_buf_type type =
		READ_ONCE(smc_net(sock_net(&sc->smc->sk))->sysctl_smcr_buf_type);
	struct mem_cgroup *old;
	struct smcr_buf *b;
	int rc;

	smcr_lgr_bufs_hold(sc);
	old = smc_mem_enter(&sc->smc->conn);
	b = smcr_lgr_buf_get(sc, size, true, type);
	smc_mem_leave(old);
	if (!IS_ERR(b)) {
		rc = smcr_lgr_buf_register(sc, b);
		if (rc) {
			smcr_lgr_buf_free(sc->lgr, b);
			b = ERR_PTR(rc);
		}
	}
	smcr_lgr_bufs_release(sc);
	/* Without the answer the ring is offered, and not moved to. */
	if (!IS_ERR(b))
		smcr_lgr_rkey_announce(sc, b);
	return b;
}

void smcr_lgr_ring_drop(struct smcr_conn *sc, struct smcr_buf *b)
{
	struct smcr_lgr *lgr = sc->lgr;

	/*
	 * The readers of sc's RMB under conns_lock (debugfs, the rkeys an
	 * ADD_LINK sends) may have taken b before the CQ handler replaced
	 * it: none still looks at it after this.
	 */
	write_lock_bh(&lgr->conns_lock);
	write_unlock_bh(&lgr->conns_lock);
	smcr_lgr_bufs_hold(sc);
	smcr_lgr_rmb_put(sc, b);
	smcr_lgr_bufs_release(sc);
}

bool smcr_lgr_peer_keys_known(struct smcr_conn *sc)
{
	struct smcr_lgr *lgr = sc->lgr;
	struct smcr_link *l;
	bool known = true;
	int i;

	mutex_lock(&smcr_lgr_lock);
	smcr_lgr_for_each_link(lgr, l, i) {
		enum smcr_link_state state = READ_ONCE(l->state);

		if (lgr->link_ready[i] && state == SMCR_LINK_ACTIVE && !sc->peer_rkey[i])
			known = false;
		/*
		 * A link being added (not ready, not failed): its flow names
		 * the RMB we write into now (smcr_lgr_llc_take()), and nothing
		 * would name a new one there. Moving meanwhile would leave the
		 * link ready with no key of ours for it: no failover there.
		 */
		if (!lgr->link_ready[i] &&
		    (state == SMCR_LINK_INIT || state == SMCR_LINK_ACTIVE))
			known = false;
	}
	mutex_unlock(&smcr_lgr_lock);
	return known;
}

/*
 * One holder of lgr (a connection, or a test's hold) lets go; the last
 * one starts the free work, at once for a dead group, else after the
 * linger time. smcr_lgr_lock held; lgr may be gone once it is dropped.
 */
static void smcr_lgr_put(struct smcr_lgr *lgr)
{
	if (!--lgr->conns_num)
		mod_delayed_work(smcr_lgr_wq, &lgr->free_work,
				 lgr->dead ? 0 : READ_ONCE(smc_lgr_linger) * HZ);
}

void smcr_lgr_leave(struct smcr_conn *sc)
{
	struct smcr_lgr *lgr = sc->lgr;
	struct smcr_buf *rmb = sc->rmb;
	struct smcr_link *l;
	int i;

	/* The bytes smcr_hs_bufs() took, whatever came of the buffers. */
	smc_mem_unreserve(sc->smc);
	if (!lgr)
		return;
	/* After this the CDC handler cannot reach sc. */
	write_lock_bh(&lgr->conns_lock);
	if (sc->in_group)
		list_del_init(&sc->lgr_entry);
	sc->in_group = false;
	write_unlock_bh(&lgr->conns_lock);
	/*
	 * No WRITE or CDC of ours starts any more (the caller holds the
	 * conn's locks); one the link still has posted keeps the send buffer
	 * until it completes or is flushed (smcr_buf_free). No link is
	 * added while the buffers go (bufs_sem).
	 */
	down_read(&lgr->bufs_sem);
	if (sc->sndbuf)
		smcr_lgr_buf_free(lgr, sc->sndbuf);
	sc->sndbuf = NULL;
	/*
	 * Our count keeps the group, its link and the link's device until
	 * the decrement below: once it reaches 0, the free work (at once for
	 * a dead group) may destroy all three, so nothing of the group is
	 * touched after it. A ring that grew may leave two more RMBs: the
	 * one offered and not moved to, the one left and not let go yet.
	 */
	if (rmb)
		smcr_lgr_rmb_put(sc, rmb);
	if (sc->rmb_next)
		smcr_lgr_rmb_put(sc, sc->rmb_next);
	if (sc->rmb_old)
		smcr_lgr_rmb_put(sc, sc->rmb_old);
	sc->rmb = sc->rmb_next = sc->rmb_old = NULL;
	up_read(&lgr->bufs_sem);
	mutex_lock(&smcr_lgr_lock);
	smcr_lgr_for_each_link(lgr, l, i) {
		if (l != sc->link)
			continue;
		/* The last connection of a failed link: its slot can go. */
		if (!--lgr->link_conns[i] && !lgr->link_ready[i])
			smcr_lgr_llc_kick(lgr);
	}
	smcr_lgr_put(lgr);
	mutex_unlock(&smcr_lgr_lock);
	sc->lgr = NULL;
	sc->link = NULL;
}

/* Off the list already; nobody else can reach it. */
static void smcr_lgr_destroy(struct smcr_lgr *lgr)
{
	struct smcr_buf *b, *tmp;
	struct smcr_link *l, *lt;
	int i;

	/* After this no link queues down_work, and no LLC flow runs. */
	smcr_lgr_for_each_link(lgr, l, i)
		smcr_link_set_down_work(l, NULL);
	cancel_work_sync(&lgr->down_work);
	smcr_lgr_llc_close(lgr);
	list_for_each_entry_safe(l, lt, &lgr->retired, retired) {
		list_del(&l->retired);
		smcr_link_destroy(l);
	}
	list_for_each_entry_safe(b, tmp, &lgr->pool, pool) {
		list_del(&b->pool);
		smcr_lgr_buf_free(lgr, b);
	}
	/*
	 * An active link ends with DELETE_LINK: the peer's group goes too.
	 * The buffers' link last: their mappings and MRs go with it.
	 */
	for (i = SMCR_LGR_LINKS - 1; i >= 0; i--)
		if (lgr->links[i])
			smcr_link_destroy(lgr->links[i]);
	atomic_dec(&smc_obj_smcr_lgrs);
	kfree(lgr);
}

/* Whether l's teardown must wait for its port to be back (free work). */
static bool smcr_lgr_port_wait(const struct smcr_link *l)
{
	return READ_ONCE(l->port_down) && READ_ONCE(l->state) != SMCR_LINK_GONE &&
	       !smcr_ib_port_active(l->dev, l->port);
}

void smcr_lgr_port_up(void)
{
	struct smcr_lgr *lgr;

	mutex_lock(&smcr_lgr_lock);
	list_for_each_entry(lgr, &smcr_lgrs, list)
		if (lgr->usable && !lgr->dead)
			smcr_lgr_llc_add(lgr);
	mutex_unlock(&smcr_lgr_lock);
}

static void smcr_lgr_free_work(struct work_struct *work)
{
	struct smcr_lgr *lgr = container_of(to_delayed_work(work),
					    struct smcr_lgr, free_work);
	struct smcr_link *l;
	int i;

	mutex_lock(&smcr_lgr_lock);
	/* Someone joined meanwhile, or module exit took it off the list. */
	if (lgr->conns_num || list_empty(&lgr->list)) {
		mutex_unlock(&smcr_lgr_lock);
		return;
	}
	/*
	 * rxe keeps a reference to a QP for each packet it handed to the
	 * netdev, and a netdev that went down holds its packets until it is
	 * up again; destroying the QP meanwhile makes rxe wait for them and
	 * WARN (rxe_pool.c, Linux 6.1). So the link of a port that went down
	 * stays until the port is back (or its device goes: then its verbs
	 * are released anyway), and its group with it. Its connections are
	 * gone already.
	 */
	smcr_lgr_for_each_link(lgr, l, i) {
		if (smcr_lgr_port_wait(l)) {
			mod_delayed_work(smcr_lgr_wq, &lgr->free_work, HZ);
			mutex_unlock(&smcr_lgr_lock);
			return;
		}
	}
	list_for_each_entry(l, &lgr->retired, retired) {
		if (smcr_lgr_port_wait(l)) {
			mod_delayed_work(smcr_lgr_wq, &lgr->free_work, HZ);
			mutex_unlock(&smcr_lgr_lock);
			return;
		}
	}
	list_del_init(&lgr->list);
	/*
	 * The down work, or a connection that joined and left, may have
	 * queued us again while this run waited for the lock: drop that
	 * pending run, or it would start on the freed group. Every arming
	 * holds smcr_lgr_lock and needs the group on the list, so none
	 * comes after this.
	 */
	cancel_delayed_work(&lgr->free_work);
	smcr_lgr_seqno++;
	mutex_unlock(&smcr_lgr_lock);
	smcr_lgr_destroy(lgr);
}

/* next moved to a working link: a later failure of that one counts again. */
static void smcr_lgr_down_untell(struct smcr_lgr *lgr, struct smc_sock *next)
{
	struct smcr_conn *sc;

	read_lock_bh(&lgr->conns_lock);
	list_for_each_entry(sc, &lgr->conns, lgr_entry)
		if (sc->smc == next)
			sc->down_told = false;
	read_unlock_bh(&lgr->conns_lock);
}

/*
 * A link failed (its CQ, the peer's DELETE_LINK, its port, its device,
 * the keepalive): its connections move to another working link of the
 * group (failover, smcr_conn_link_failed()), and one that cannot is
 * reset; when it was the group's last working link, nobody joins the
 * group any more and every connection in it is reset. One at a time,
 * holding the socket, since both may sleep and the list may change
 * meanwhile.
 */
static void smcr_lgr_down_work(struct work_struct *work)
{
	struct smcr_lgr *lgr = container_of(work, struct smcr_lgr, down_work);
	struct smcr_link *l, *via = NULL;
	u8 failed[SMCR_LGR_LINKS];
	struct smc_sock *next;
	struct smcr_conn *sc;
	int i, nfailed = 0;
	bool all = true;

	mutex_lock(&smcr_lgr_lock);
	/*
	 * A link that failed takes no new connection. While another
	 * confirmed link works, the group lives on with it, and the failed
	 * link keeps its slot until its connections have left it. One that
	 * was ready until now and that the peer did not delete itself is
	 * told to the peer below.
	 */
	smcr_lgr_for_each_link(lgr, l, i) {
		if (!smcr_link_active(l)) {
			if (lgr->link_ready[i] && !READ_ONCE(l->peer_deleted))
				failed[nfailed++] = l->link_num;
			lgr->link_ready[i] = false;
		} else if (lgr->link_ready[i]) {
			all = false;
			via = via ?: l;
		}
	}
	if (all) {
		lgr->dead = true;
		lgr->usable = false;
		/* Off the list: its free work runs (or module exit has it). */
		if (!lgr->conns_num && !list_empty(&lgr->list))
			mod_delayed_work(smcr_lgr_wq, &lgr->free_work, 0);
	}
	mutex_unlock(&smcr_lgr_lock);
	/* An LLC flow of the group stops waiting for the peer. */
	wake_up(&lgr->llc_wait);
	/*
	 * The peer's side of each link that failed here fails over at once.
	 * via stays: only a flow's own link that never was ready, or the
	 * group's end, destroys a link (and that cancels this work first).
	 */
	for (i = 0; !all && i < nfailed; i++)
		smcr_lgr_llc_tell_failed(lgr, via, failed[i]);
	/* A failed link with no connection gives up its slot at once. */
	if (!all)
		smcr_lgr_llc_kick(lgr);
	/*
	 * Every WR still posted flushed first (bounded): the resets below
	 * free send buffers that nothing reads (one still named by a WR
	 * after the bound waits for it, smcr_buf_free), and a failover
	 * writes again what the dead QP can no longer send.
	 */
	smcr_lgr_for_each_link(lgr, l, i)
		if (!smcr_link_active(l))
			smcr_link_await_flush(l);
	for (;;) {
		next = NULL;
		read_lock_bh(&lgr->conns_lock);
		list_for_each_entry(sc, &lgr->conns, lgr_entry) {
			if (!sc->down_told &&
			    (all || !smcr_link_active(READ_ONCE(sc->link)))) {
				sc->down_told = true;
				next = sc->smc;
				sock_hold(&next->sk);
				break;
			}
		}
		read_unlock_bh(&lgr->conns_lock);
		if (!next)
			break;
		/*
		 * sc may be gone by now (its socket closed); the socket is
		 * not. A connection that moved may fail again on its new
		 * link: this work looks at it again then.
		 */
		if (all || smcr_conn_link_failed(next))
			smcr_conn_link_down(next);
		else
			smcr_lgr_down_untell(lgr, next);
		sock_put(&next->sk);
	}
}

/*
 * A CDC arrived on link l of lgr (softirq; the completions of one link
 * never run at once, those of two links may): to the connection whose
 * token it carries, in order. Repeated or stale sequence numbers are
 * dropped: a CDC of a failed link that arrives after its successor's
 * newer ones (a failover), or a confused peer's.
 */
void smcr_lgr_cdc_rx(void *arg, struct smcr_link *l, const u8 *msg)
{
	struct smcr_lgr *lgr = arg;
	struct smc_cdc_msg m;
	struct smcr_conn *sc;

	if (smc_cdc_decode_r(msg, SMC_CDC_R_LEN, &m))
		return;
	read_lock(&lgr->conns_lock);
	list_for_each_entry(sc, &lgr->conns, lgr_entry) {
		if (sc->token != m.token)
			continue;
		spin_lock(&sc->rx_lock);
		if (sc->rx_seq_seen && !smc_cdc_seqno_before(sc->rx_seqno, m.seqno)) {
			spin_unlock(&sc->rx_lock);
			break;
		}
		sc->rx_seqno = m.seqno;
		sc->rx_seq_seen = true;
		if (sc->started) {
			smcr_conn_cdc_rx(sc, l, &m);
		} else {
			/*
			 * The peer's side of the connection is up before ours
			 * (its last handshake step was sending to us). A CDC
			 * carries whole cursors and states, so the latest one
			 * says it all; smcr_conn_start() hands it on.
			 */
			sc->early = m;
			sc->has_early = true;
		}
		spin_unlock(&sc->rx_lock);
		break;
	}
	read_unlock(&lgr->conns_lock);
}

static const char *smcr_lgr_state(const struct smcr_lgr *lgr)
{
	if (lgr->dead)
		return "dead";
	return lgr->usable ? "usable" : "new";
}

/* The number of links lgr has; smcr_lgr_lock held. */
static unsigned int smcr_lgr_links_num(const struct smcr_lgr *lgr)
{
	const struct smcr_link *l;
	unsigned int n = 0;
	int i;

	smcr_lgr_for_each_link(lgr, l, i)
		n++;
	return n;
}

/*
 * A line per link of lgr, after the group's: its slot, number, device,
 * QPs, state, whether new connections may use it, and their count.
 * smcr_lgr_lock held.
 */
static void smcr_lgr_show_links(struct seq_file *m, const struct smcr_lgr *lgr)
{
	const struct smcr_link *l;
	int i;

	smcr_lgr_for_each_link(lgr, l, i)
		seq_printf(m, "link %d lgr %u num %u dev %s port %u qpn %u peer_qpn %u state %d ready %d conns %u gid %pI6 peer_gid %pI6\n",
			   i, lgr->id, l->link_num, l->dev->name, l->port, l->local.qpn,
			   l->peer.qpn, READ_ONCE(l->state), lgr->link_ready[i],
			   lgr->link_conns[i], l->local.gid.raw, l->peer.gid.raw);
}

/*
 * One line per group, then one per link (smcr_lgr_show_links()). The
 * group line's link fields are its first link's (the line predates a
 * second one; the tests parse it by name).
 */
void smcr_lgr_show(struct seq_file *m)
{
	const struct smcr_link *l;
	struct smcr_lgr *lgr;

	mutex_lock(&smcr_lgr_lock);
	list_for_each_entry(lgr, &smcr_lgrs, list) {
		l = smcr_lgr_first_link(lgr);
		seq_printf(m, "lgr %u role %s dev %s port %u state %s conns %u pool %u links %u qpn %u peer_qpn %u link_state %d peer_gid %pI6 version %u dmac %pM wc_status %d timeouts %u send_slots %u recv_slots %u qp_send_wr %u qp_recv_wr %u pool_bytes %llu write_max %u writes %llu write_largest %u max_conns %u max_links %u release %u failovers %u resent %llu rkeys_sent %u rkeys_taken %u rkey_dels_sent %u rkey_dels_taken %u deletes_sent %u deletes_taken %u invites_sent %u invites_taken %u links_added %u add_failed %u\n",
			   lgr->id, lgr->key.role == SMC_LGR_SERVER ? "server" : "client",
			   lgr->key.dev->name, lgr->key.port, smcr_lgr_state(lgr),
			   lgr->conns_num, lgr->pool_num, smcr_lgr_links_num(lgr),
			   l->local.qpn, l->peer.qpn, READ_ONCE(l->state),
			   lgr->key.peer_gid.raw, lgr->key.version,
			   is_zero_ether_addr(l->peer.nexthop_mac) ?
			   l->peer.mac : l->peer.nexthop_mac,
			   READ_ONCE(l->last_wc_status), READ_ONCE(l->timeouts),
			   l->send_slots, l->recv_slots, l->qp_cap.max_send_wr,
			   l->qp_cap.max_recv_wr, lgr->pool_bytes, l->write_max,
			   READ_ONCE(l->writes), READ_ONCE(l->write_largest),
			   lgr->max_conns, lgr->max_links, lgr->v2_peer.release,
			   lgr->failovers, (u64)atomic64_read(&lgr->resent),
			   lgr->rkeys_sent, lgr->rkeys_taken, lgr->rkey_dels_sent,
			   READ_ONCE(lgr->rkey_dels_taken), lgr->deletes_sent,
			   lgr->deletes_taken, lgr->invites_sent,
			   READ_ONCE(lgr->invites_taken), lgr->links_added,
			   lgr->add_failed);
		smcr_lgr_show_links(m, lgr);
	}
	mutex_unlock(&smcr_lgr_lock);
	seq_printf(m, "lgrs %d bufs %d bufs_freed_posted %d bufs_deferred %d\n",
		   atomic_read(&smc_obj_smcr_lgrs), atomic_read(&smc_obj_smcr_bufs),
		   atomic_read(&smcr_bufs_freed_posted),
		   atomic_read(&smcr_bufs_deferred));
}

void smcr_lgr_conns_show(struct seq_file *m)
{
	struct smcr_conn *sc;
	struct smcr_lgr *lgr;

	mutex_lock(&smcr_lgr_lock);
	list_for_each_entry(lgr, &smcr_lgrs, list) {
		read_lock_bh(&lgr->conns_lock);
		list_for_each_entry(sc, &lgr->conns, lgr_entry) {
			/*
			 * Set by the handshake while listed (maybe not yet);
			 * freed only after smcr_lgr_leave() unlisted sc.
			 */
			const struct smcr_buf *rmb = READ_ONCE(sc->rmb);
			const struct smcr_buf *snd = READ_ONCE(sc->sndbuf);
			unsigned int peer_slots = 0;
			int i;

			/* The slots it could fail over to: the peer's RMB known there. */
			for (i = 0; i < SMCR_LGR_LINKS; i++)
				if (READ_ONCE(sc->peer_rkey[i]))
					peer_slots |= 1U << i;
			seq_printf(m, "lgr %u role %s token %u rmb_rkey 0x%08x rmb_addr 0x%llx rmb_size %u rmb_virt %d sndbuf_size %u sndbuf_virt %d slot %u failovers %u resent %llu peer_slots 0x%x\n",
				   lgr->id, lgr->key.role == SMC_LGR_SERVER ?
				   "server" : "client", sc->token, sc->rmb_rkey,
				   sc->rmb_addr, rmb ? rmb->size : 0,
				   rmb ? rmb->virt : 0, snd ? snd->size : 0,
				   snd ? snd->virt : 0, READ_ONCE(sc->slot),
				   READ_ONCE(sc->failovers), READ_ONCE(sc->resent),
				   peer_slots);
		}
		read_unlock_bh(&lgr->conns_lock);
	}
	mutex_unlock(&smcr_lgr_lock);
}

/* As smcr_lgr_leave() lets go: nothing of the group after this. */
static void smcr_lgr_dbg_put(struct smcr_lgr *lgr)
{
	mutex_lock(&smcr_lgr_lock);
	smcr_lgr_put(lgr);
	mutex_unlock(&smcr_lgr_lock);
}

/*
 * Test plumbing: what a peer that still knows an old rkey can do. The
 * group that has connection token in its role writes len bytes of 'X'
 * (from a page of its own, not a connection's buffer) to rkey at addr,
 * over its link, and waits for the device's verdict: 0 when the WRITE
 * was acknowledged, else -errno (a refused key is a remote access error,
 * which takes the link down, as any failed WRITE does). The group is held
 * as a connection holds it, by its count, so no lock is held across the
 * wait.
 */
int smcr_lgr_dbg_write(bool server, u32 token, u32 rkey, u64 addr, u32 len)
{
	struct smcr_lgr *lgr, *found = NULL;
	struct smcr_link *l = NULL;
	struct smcr_conn *sc;
	struct smcr_buf *b;
	int rc;

	if (!len || len > PAGE_SIZE)
		return -EINVAL;
	mutex_lock(&smcr_lgr_lock);
	list_for_each_entry(lgr, &smcr_lgrs, list) {
		if (lgr->dead || (lgr->key.role == SMC_LGR_SERVER) != server)
			continue;
		read_lock_bh(&lgr->conns_lock);
		list_for_each_entry(sc, &lgr->conns, lgr_entry)
			if (sc->token == token)
				found = lgr;
		read_unlock_bh(&lgr->conns_lock);
		if (found)
			break;
	}
	if (found) {
		found->conns_num++;
		l = smcr_lgr_first_link(found);
	}
	mutex_unlock(&smcr_lgr_lock);
	if (!found)
		return -ENOENT;
	/*
	 * A page, not a connection's: whichever kind the allocator has, on
	 * the group's first link (the tests' connections are on it).
	 */
	b = smcr_buf_alloc(l, PAGE_SIZE, false, SMCR_MIXED_BUFS);
	rc = PTR_ERR_OR_ZERO(b);
	if (!rc) {
		memset(b->cpu, 'X', len);
		rc = smcr_buf_write(l, b, 0, len, rkey, addr, NULL);
		smcr_buf_free(b);
	}
	smcr_lgr_dbg_put(found);
	return rc;
}

/*
 * Test plumbing: the first usable group in role (the tests have one),
 * held as a connection holds it until smcr_lgr_dbg_put(), or NULL.
 */
static struct smcr_lgr *smcr_lgr_dbg_get(bool server)
{
	struct smcr_lgr *lgr, *found = NULL;

	mutex_lock(&smcr_lgr_lock);
	list_for_each_entry(lgr, &smcr_lgrs, list) {
		if (!lgr->dead && lgr->usable && (lgr->key.role == SMC_LGR_SERVER) == server) {
			found = lgr;
			found->conns_num++;
			break;
		}
	}
	mutex_unlock(&smcr_lgr_lock);
	return found;
}

/* Test plumbing: that group ends its link number num on both ends. */
int smcr_lgr_dbg_delete(bool server, u8 num)
{
	struct smcr_lgr *lgr = smcr_lgr_dbg_get(server);
	int rc;

	if (!lgr)
		return -ENOENT;
	rc = smcr_lgr_llc_delete(lgr, num);
	smcr_lgr_dbg_put(lgr);
	return rc;
}

/* Test plumbing: the client's group floods its server with n invites. */
int smcr_lgr_dbg_invite(unsigned int n)
{
	struct smcr_lgr *lgr = smcr_lgr_dbg_get(false);
	int rc;

	if (!lgr)
		return -ENOENT;
	rc = smcr_lgr_llc_dbg_invite(lgr, n);
	smcr_lgr_dbg_put(lgr);
	return rc;
}

int smcr_lgr_for_each(unsigned long *pos,
		      int (*fn)(const struct smcr_lgr *lgr, void *arg), void *arg)
{
	const struct smcr_lgr *lgr;
	unsigned long i = 0;
	int rc = 0;

	mutex_lock(&smcr_lgr_lock);
	list_for_each_entry(lgr, &smcr_lgrs, list) {
		if (i++ < *pos)
			continue;
		rc = fn(lgr, arg);
		if (rc)
			break;
		(*pos)++;
	}
	mutex_unlock(&smcr_lgr_lock);
	return rc;
}

unsigned int smcr_lgr_seq(void)
{
	return READ_ONCE(smcr_lgr_seqno);
}

int smcr_lgr_init(void)
{
	smcr_lgr_wq = alloc_workqueue("af_smcr_lgr", WQ_UNBOUND, 0);
	return smcr_lgr_wq ? 0 : -ENOMEM;
}

void smcr_lgr_exit(void)
{
	struct smcr_lgr *lgr;

	/*
	 * Every socket is gone, so every group is empty. Taken off the list
	 * under the lock (list_del_init), a group's free work finds it gone
	 * and leaves it to us; one that took its group earlier is waited for
	 * by the flush below.
	 */
	for (;;) {
		mutex_lock(&smcr_lgr_lock);
		lgr = list_first_entry_or_null(&smcr_lgrs, struct smcr_lgr, list);
		if (lgr) {
			list_del_init(&lgr->list);
			smcr_lgr_seqno++;
		}
		mutex_unlock(&smcr_lgr_lock);
		if (!lgr)
			break;
		cancel_delayed_work_sync(&lgr->free_work);
		smcr_lgr_destroy(lgr);
	}
	/* Every handshake has ended: so have their claims. */
	WARN_ON(!list_empty(&smcr_lgr_firsts));
	flush_workqueue(smcr_lgr_wq);
	destroy_workqueue(smcr_lgr_wq);
}
