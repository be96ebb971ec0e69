/* SPDX-License-Identifier: GPL-2.0 */
/*
 * af_smc: SMC-R link groups (smcr_lgr.c) and the SMC-R side of a
 * connection (smcr_conn.c).
 *
 * A group is a set of links (RC QPs) between local RDMA ports and one
 * peer, shared by every SMC-R connection of one role (client or server)
 * between the two: key (the first link's device and port, peer system
 * id, peer GID, VLAN, role, namespace). The first connection makes it
 * and its first link (CLC first contact); later ones join, each on the
 * link with the fewest connections, and only bring their own buffers.
 * Once the first link is confirmed, the server adds a second one when
 * both ends have a second port with the first one's PNET ID (ADD_LINK,
 * smcr_lgr_llc.c); every buffer of the group is mapped and registered on
 * every link. When its last connection leaves, a group lingers
 * lgr_linger seconds (the module parameter SMC-D groups use too), then
 * its links end with DELETE_LINK. A link that fails takes no new
 * connections, and its own move to another working link of the group
 * whose rkey of the peer's RMB they know (failover, smcr_conn.c); one
 * that cannot move is reset (smc_close_peer_gone()). A group whose last
 * working link failed is "dead": nobody joins it, every connection in it
 * is reset and it is freed once empty.
 *
 * Connections are found by their alert token (ours, unique in the group)
 * when a CDC arrives. Locking:
 *   smcr_lgr_lock (mutex, smcr_lgr.c): the list of groups, each group's
 *     flags, connection count and RMB pool. Process context only.
 *   lgr->bufs_sem (rw_semaphore): the group's buffers against a new
 *     link. A connection holds it for reading while it makes, registers
 *     or frees its buffers (each on every link the group has), so that
 *     an ADD_LINK, which holds it for writing from the new link's slot
 *     being set until the link is confirmed or gone, maps and registers
 *     every buffer there is, and no buffer is made or freed meanwhile.
 *     Taken before smcr_lgr_lock, never under it.
 *   lgr->conns_lock (rwlock, bh): the group's connection list. The CDC
 *     handler (softirq) holds it for reading while it hands a message to
 *     the connection, so a connection that left the list (write lock)
 *     gets no more CDCs. Taken under smcr_lgr_lock, never the other way.
 *   The server's first contacts are serialised per key, not by a lock
 *     held across the handshake: the handshake making a group claims its
 *     key (smcr_lgr_firsts, under smcr_lgr_lock) until the link is
 *     confirmed or failed; another one for the same key waits, bounded
 *     and with no lock held, then joins (the rule is at smcr_lgr_firsts
 *     in smcr_lgr.c). Other keys never wait for it.
 */
#ifndef _SMCR_LGR_H
#define _SMCR_LGR_H

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/rwsem.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/workqueue.h>

#include "smc_lgr.h"
#include "smcr_ib.h"
#include "smcr_link.h"
#include "smc_v21.h"
#include "wire/smc_cdc.h"
#include "wire/smc_clc.h"

struct seq_file;
struct smc_sock;
struct smc_cdc_msg;

/* What makes two connections share a group. */
struct smcr_lgr_key {
	struct smcr_dev	*dev;
	u8		port;
	u8		peer_id[8];	/* the peer's system id (CLC peer_id) */
	union ib_gid	peer_gid;
	u16		vlan;
	u8		role;		/* enum smc_lgr_role */
	u64		net_cookie;
	/*
	 * SMC_CLC_V1 or SMC_CLC_V2 (SMC-Rv2): a group has one version, its
	 * link's LLC header follows it; v1 and v2 connections to one peer
	 * never share a group.
	 */
	u8		version;
};

/* The most links a group has: SMC v2.1's largest max_links. */
#define SMCR_LGR_LINKS		SMC_V21_LINKS_MAX
/* A link's number on the wire is one byte. */
#define SMCR_LGR_LINK_NUMS	256
/* The group's LLC messages waiting for its flow (smcr_lgr_llc.c). */
#define SMCR_LGR_LLC_Q		8
/* The peer's CONFIRM_RKEYs kept until a handshake takes them. */
#define SMCR_LGR_RKEYS		16

/*
 * What the peer's CONFIRM_RKEY said of one of its RMBs: its rkey and
 * address on the link the message came over (link number via), which
 * the CLC message of the connection names, and on another (other).
 */
struct smcr_lgr_rkey {
	u8		via, other;
	u32		rkey, other_rkey;
	u64		addr, other_addr;
};

struct smcr_lgr {
	struct list_head	list;		/* smcr_lgrs, under smcr_lgr_lock */
	/* Server: on smcr_lgr_firsts while its first contact runs (same lock). */
	struct list_head	first;
	u32			id;
	struct smcr_lgr_key	key;
	/*
	 * The links, by slot. links[0] is made with the group (first
	 * contact), before the group is listed, on key's device and port;
	 * ADD_LINK adds the others (smcr_lgr_llc.c). A failed link, the
	 * first one too, gives up its slot once its connections have left
	 * it and while another link of the group is ready, and goes to
	 * retired, kept until the group is freed (key.dev is so kept too):
	 * so the group always has a link in some slot, and ADD_LINK can put
	 * a new one in any free slot. A slot is set under smcr_lgr_lock and
	 * cleared only by the group's own works (down, free, the LLC work),
	 * so those and a connection in the group (for its sc->link) read
	 * it without the lock. link_conns[i]: the connections on links[i];
	 * link_ready[i]: links[i] is confirmed and new connections may use
	 * it; both under smcr_lgr_lock.
	 */
	struct smcr_link	*links[SMCR_LGR_LINKS];
	u32			link_conns[SMCR_LGR_LINKS];
	bool			link_ready[SMCR_LGR_LINKS];
	/*
	 * The first path's PNET ID ("" when it was matched by its GID's
	 * netdev): a second link needs a port with the same one.
	 */
	char			pnetid[SMC_MAX_PNETID_LEN + 1];
	/* Under smcr_lgr_lock: */
	bool			usable;		/* link confirmed: others may join */
	bool			dead;		/* no link works: nobody joins */
	u32			conns_num;
	/*
	 * Server: conns_num at which the group takes no more connections
	 * (net.smc.smcr_max_conns_per_lgr when it was made); the next
	 * handshake for its key makes a group beside it.
	 */
	u32			max_conns;
	/*
	 * Links the group may have: SMC v2.1's agreed value, else the
	 * namespace's net.smc.smcr_max_links_per_lgr when the group was
	 * made. SMC v2.1 also sets max_conns from the handshake, at first
	 * contact (smcr_lgr_set_v2_peer()).
	 */
	u32			max_links;
	struct list_head	pool;		/* free registered RMBs */
	u32			pool_num;
	u64			pool_bytes;	/* their sizes, summed */
	/*
	 * Every buffer of the group (struct smcr_buf's grp): the
	 * connections' RMBs and send buffers and the pooled RMBs. Changed
	 * under bufs_sem (read) and smcr_lgr_lock; stable under bufs_sem
	 * (write).
	 */
	struct rw_semaphore	bufs_sem;
	struct list_head	bufs;
	/* The connections, for CDC dispatch by token. */
	rwlock_t		conns_lock;
	struct list_head	conns;
	/*
	 * SMC-Rv2, under smcr_lgr_lock: what the peer's first contact CLC
	 * said (its fce, the negotiated EID; SMC_NLA_LGR_R_V2_COMMON uses
	 * the v2 fields) and whether it is reachable without a gateway.
	 */
	struct smc_lgr_peer	v2_peer;
	bool			v2_direct;
	struct work_struct	down_work;	/* the link failed */
	struct delayed_work	free_work;	/* idle or dead: free */
	/*
	 * The group's LLC flows (smcr_lgr_llc.c), one at a time in
	 * llc_work: a failed link's slot freed, the server's ADD_LINK, the
	 * client's answer to one. The links hand the group's messages
	 * (ADD_LINK, ADD_LINK_CONT) to llc_q, under llc_lock, and wake
	 * llc_wait; llc_closed (same lock): the group is going, llc_work is
	 * not queued again. add_tries: the server's ADD_LINKs since the last
	 * port came up (a few are retried: the client's port may come up a
	 * moment after ours); llc_work only.
	 */
	struct delayed_work	llc_work;
	unsigned int		add_tries;
	/*
	 * Failed links out of their slot (their connections gone), on
	 * their retired list entry: destroyed with the group, once their
	 * port is back (see smcr_lgr_free_work()). Under smcr_lgr_lock.
	 */
	struct list_head	retired;
	spinlock_t		llc_lock;
	wait_queue_head_t	llc_wait;
	struct {
		struct smc_llc_msg	m;
		struct smcr_link	*l;	/* it came over */
		/* a v2 ADD_LINK's extension, the entry's own (kmalloc) */
		struct smc_llc_add_link_ext *ext;
	}			llc_q[SMCR_LGR_LLC_Q];
	unsigned int		llc_head, llc_tail;
	bool			llc_closed;
	/*
	 * The link numbers of the peer's DELETE_LINKs for single links,
	 * under llc_lock until llc_work takes them; the last number the
	 * server gave a new link (llc_work only).
	 */
	DECLARE_BITMAP(llc_del, SMCR_LGR_LINK_NUMS);
	u8			link_num_last;
	/* Links added and ADD_LINK flows that failed (debugfs smcr_lgr). */
	u32			links_added, add_failed;
	/*
	 * A client's invite (smcr_lgr_llc_invite()): pending while invite
	 * is set, from a port of ours coming up until it is sent or given
	 * up (llc_lock). invite_at: when the server last acted on one of
	 * the client's (llc_lock). Counted for debugfs: invites_sent under
	 * smcr_lgr_lock, invites_taken under llc_lock (it is read unlocked).
	 */
	bool			invite;
	unsigned long		invite_at;
	u32			invites_sent, invites_taken;
	/*
	 * Our failed links told to the peer, the peer's that ended one of
	 * ours (DELETE_LINK of a single link; debugfs; smcr_lgr_lock).
	 */
	u32			deletes_sent, deletes_taken;
	/*
	 * The peer's CONFIRM_RKEYs, the last SMCR_LGR_RKEYS, until the
	 * handshakes whose RMBs they name take them (smcr_lgr_rkey_take());
	 * under llc_lock. rkeys_sent, _taken: our CONFIRM_RKEYs the peer
	 * confirmed, and the peer's that a connection took (debugfs).
	 * rkey_dels_sent: our DELETE_RKEYs (smcr_lgr_lock); rkey_dels_taken:
	 * the peer's, answered (llc_lock, read unlocked).
	 */
	struct smcr_lgr_rkey	rkeys[SMCR_LGR_RKEYS];
	unsigned int		rkeys_next;
	u32			rkeys_sent, rkeys_taken;
	u32			rkey_dels_sent, rkey_dels_taken;
	/*
	 * Connections moved off a failed link (under smcr_lgr_lock), and
	 * the bytes their moves wrote again (debugfs smcr_lgr).
	 */
	u32			failovers;
	atomic64_t		resent;
};

/*
 * A connection's RDMA WRITEs in flight, at most (of the link's
 * SMCR_WR_CTX): a push is up to three ranges (the rings wrap), each one
 * WRITE per link->write_max bytes, so two pushes and more may overlap;
 * a longer push waits for its oldest WRITE before it posts the ninth.
 */
#define SMCR_CONN_WRITES	8

/* lgr's link in the first used slot from *i on (*i set to it), or NULL. */
static inline struct smcr_link *smcr_lgr_next_link(const struct smcr_lgr *lgr,
						   int *i)
{
	for (; *i < SMCR_LGR_LINKS; (*i)++)
		if (lgr->links[*i])
			return lgr->links[*i];
	return NULL;
}

/* Each link l (slot i) of lgr (smcr_lgr_lock held, or as links[] says). */
#define smcr_lgr_for_each_link(lgr, l, i)				\
	for ((i) = 0; ((l) = smcr_lgr_next_link(lgr, &(i))); (i)++)

/*
 * The link whose counters and QP the group's reports show (debugfs, the
 * netlink group): the one in the lowest slot, links[0] until a failed
 * first link gave its slot up. Never NULL (see links[]); smcr_lgr_lock
 * held. A retired link stays until the group is freed, so it may be
 * used after the lock while the caller holds the group.
 */
static inline struct smcr_link *smcr_lgr_first_link(const struct smcr_lgr *lgr)
{
	int i = 0;

	return smcr_lgr_next_link(lgr, &i);
}

/* The SMC-R state of one connection. */
struct smcr_conn {
	struct list_head	lgr_entry;	/* lgr->conns, under conns_lock */
	struct smcr_lgr		*lgr;
	/*
	 * The link our WRITEs and CDCs go over, lgr->links[slot]: set
	 * when sc joins the group, and by a failover (smcr_lgr_move()),
	 * under smcr_lgr_lock, conn->tx_mutex, conn->cdc_mutex and
	 * conn->lock: any one of them keeps it still.
	 */
	struct smcr_link	*link;
	u8			slot;
	struct smc_sock		*smc;		/* owns us */
	u32			token;		/* ours; the peer's CDCs carry it */
	u32			peer_token;	/* the peer's; our CDCs carry it */
	struct smcr_buf		*rmb;		/* ours, registered */
	struct smcr_buf		*sndbuf;	/* RDMA WRITE source */
	/*
	 * Rings that grow (smcr_conn.c): both ends said so in the CLC
	 * (SMC_CLC_R_GROWS in the Accept and the Confirm); the bigger RMB
	 * we offered, until the peer moves there (then it is rmb), and the
	 * one it left, until our next read lets it go. The CQ handler swaps
	 * them, under conn->lock; a reader of rmb under conns_lock sees the
	 * old or the new one, and the old one stays until
	 * smcr_lgr_ring_drop(). offer_slot: the link the peer's last offer
	 * came over, whose key it named (conn->lock).
	 */
	bool			grows;
	struct smcr_buf		*rmb_next, *rmb_old;
	u8			offer_slot;
	/*
	 * The peer's RMB on each of our links (by slot): the one on sc's
	 * link from its Accept or Confirm, another from the ADD_LINK
	 * CONTINUATION of the link that slot holds (0: not known).
	 */
	u32			peer_rkey[SMCR_LGR_LINKS];
	u64			peer_addr[SMCR_LGR_LINKS];
	u32			peer_size;
	/* Our RMB as our Accept or Confirm announced it (debugfs smcr_conns). */
	u32			rmb_rkey;
	u64			rmb_addr;
	/*
	 * RDMA WRITEs of the send buffer posted and not waited for yet,
	 * oldest first, each with the byte count of its first byte, its
	 * length and the link it went over (smcr_conn.c: a failover writes
	 * them again); under conn->tx_mutex.
	 */
	struct {
		struct smcr_wr_ticket	t;
		struct smcr_link	*link;
		u64			pos;
		u32			len;
	}			writes[SMCR_CONN_WRITES];
	u8			writes_head, writes_num;
	/* Our CDCs in flight, for autocorking (smcr_conn.c). */
	struct smcr_send_cb	cdc_cb;
	u16			tx_seqno;	/* under conn->cdc_mutex */
	/*
	 * Our last CDC that carried an urgent mark, as encoded (its
	 * sequence number urg_cdc_seq included); under conn->cdc_mutex. A
	 * failover sends it again (smcr_conn.c, "Failover").
	 */
	u8			urg_cdc[SMC_CDC_R_LEN];
	u16			urg_cdc_seq;
	bool			urg_cdc_held;
	/*
	 * rx_lock (bh): the CDC handlers of the group's links (each link
	 * has its CQ, and they may run at once on two CPUs) one at a time,
	 * so a stale CDC of a failed link is never taken after a newer one
	 * of its successor. Taken under lgr->conns_lock, before conn->lock.
	 */
	spinlock_t		rx_lock;
	u16			rx_seqno;	/* under rx_lock */
	bool			rx_seq_seen;
	/* Times sc moved off a failed link, bytes written again; tx_mutex. */
	u32			failovers;
	u64			resent;
	bool			in_group;	/* on lgr->conns */
	/*
	 * Under lgr->conns_lock: CDCs go to the connection layer once
	 * started; the latest one before that waits in early.
	 */
	bool			started;
	bool			has_early;
	struct smc_cdc_msg	early;
	bool			down_told;	/* down work only */
};

/*
 * Server: join the usable group for key (0, *first false), or make a new
 * group with a new link on path (0, *first true), its key claimed until
 * smcr_lgr_first_done(); while another handshake has key claimed, wait
 * for it (at most SMCR_LGR_FIRST_WAIT, no lock held). -errno: nothing
 * was done; -ETIMEDOUT: that claim did not end in time (decline),
 * -ECONNABORTED: sc's socket is being closed.
 * Client: a new group, always (the server's first-contact flag decides
 * when to call this); no claim, no wait.
 */
int smcr_lgr_join(struct smcr_conn *sc, const struct smcr_lgr_key *key,
		  struct smcr_path *path, bool *first);
/*
 * Client, not first contact: join the group of key (whatever its peer
 * GID) on its link that goes to the peer's QP peer_qpn at peer_gid.
 * -ENOENT if there is none we can use.
 */
int smcr_lgr_join_qp(struct smcr_conn *sc, const struct smcr_lgr_key *key,
		     u32 peer_qpn, const u8 *peer_gid);
/*
 * Failover: sc (conn->tx_mutex and conn->cdc_mutex held) goes from its
 * link, which failed, to a working, confirmed link of its group whose
 * rkey of the peer's RMB it knows, the one with the fewest connections.
 * 0, or -ENOLINK: there is none, sc stays.
 */
int smcr_lgr_move(struct smcr_conn *sc);
/* Whether lgr has a working, confirmed link (takes smcr_lgr_lock). */
bool smcr_lgr_has_ready(const struct smcr_lgr *lgr);
/* The new group's link is confirmed (ok) or failed; ends the claim (server). */
void smcr_lgr_first_done(struct smcr_conn *sc, bool ok);
/* A handshake's socket is being closed: its wait for a claim ends. */
void smcr_lgr_first_wake(void);
/*
 * SMC-Rv2 first contact: the peer's fce and the EID, for netlink, and
 * SMC v2.1's limits (the fce's, checked by the handshake) for the group.
 */
void smcr_lgr_set_v2_peer(struct smcr_lgr *lgr, const struct smc_clc_fce *fce,
			  const u8 *eid, bool direct);
/*
 * sc leaves its group (no CDC reaches it after this returns) and its
 * buffers go (the RMB to the group's pool). Process context. Safe when
 * sc never joined.
 */
void smcr_lgr_leave(struct smcr_conn *sc);
/*
 * sc's buffers against a new link (bufs_sem, read): from before the
 * first smcr_lgr_buf_get() until its buffers are registered, and around
 * smcr_lgr_leave()'s freeing (which takes it itself).
 */
void smcr_lgr_bufs_hold(struct smcr_conn *sc);
void smcr_lgr_bufs_release(struct smcr_conn *sc);
/*
 * A buffer of size bytes for sc, of the kind type asks for
 * (net.smc.smcr_buf_type), mapped on every link of the group: an RMB
 * (remote) from the group's pool or a new one, or a send buffer.
 * smcr_lgr_bufs_hold() held.
 */
struct smcr_buf *smcr_lgr_buf_get(struct smcr_conn *sc, u32 size, bool remote,
				  enum smcr_buf_type type);
/*
 * REG_MR of sc's buffers on every active link of the group (a no-op
 * where done). smcr_lgr_bufs_hold() held. 0 or -errno.
 */
int smcr_lgr_bufs_register(struct smcr_conn *sc);
/*
 * Rings that grow (smcr_conn.c): a new RMB of size bytes for sc, from the
 * pool or made, registered on every active link and announced where the
 * group has another (smcr_lgr_rkey_announce()); charged to the socket's
 * memcg. Process context, sc->smc's tx_mutex held. The RMB or an ERR_PTR.
 */
struct smcr_buf *smcr_lgr_ring_new(struct smcr_conn *sc, u32 size);
/*
 * An RMB of sc's that the peer left for a bigger one (or that sc
 * offered and no longer needs): the peer is told to forget its keys
 * (smcr_lgr_rkey_forget()), and it goes to the pool or is freed.
 * Process context, and nothing may still name it in sc.
 */
void smcr_lgr_ring_drop(struct smcr_conn *sc, struct smcr_buf *b);
/*
 * Whether sc knows the peer's RMB on each ready, active link of its
 * group, and no link is being added: a ring it cannot fail over in is
 * not moved to.
 */
bool smcr_lgr_peer_keys_known(struct smcr_conn *sc);

/* The link groups for sock_diag/netlink-like views: debugfs "smcr_lgr". */
void smcr_lgr_show(struct seq_file *m);
/* debugfs smcr_conns: each group's connections and their RMBs' rkeys. */
void smcr_lgr_conns_show(struct seq_file *m);
/* Test plumbing (debugfs smcr_conns): an RDMA WRITE to rkey at addr. */
int smcr_lgr_dbg_write(bool server, u32 token, u32 rkey, u64 addr, u32 len);
/* Test plumbing (debugfs smcr_conns): the oldest group in role drops link num. */
int smcr_lgr_dbg_delete(bool server, u8 num);
/* Test plumbing (debugfs smcr_conns): the oldest client group sends n invites. */
int smcr_lgr_dbg_invite(unsigned int n);
/*
 * Test plumbing (debugfs smcr_conns "hold"): the next ADD_LINK flow of a
 * server pauses ms after its rkeys, before its CONFIRM_LINK; 0 disarms.
 */
void smcr_lgr_dbg_hold(unsigned int ms);
/*
 * Test plumbing (debugfs smcr_conns "break"): the next RDMA WRITE that a
 * connection in a group of role server (or client) posts breaks its link
 * right after the post, as a QP error would (smcr_conn.c), so that a
 * failover certainly finds that WRITE queued and its CDC not sent.
 */
void smcr_conn_dbg_break(bool server);
/*
 * For SMC_GEN_NETLINK's dumps (smcr_gnl.c): visit the listed groups in
 * creation order, from the *pos-th on, under smcr_lgr_lock, so a visited
 * group, its link and its device stay while fn runs and the fields
 * marked "under smcr_lgr_lock" hold still. fn returns 0 to go on; a
 * non-zero return stops the walk with *pos at that group (visited again
 * by the next call) and is returned. fn must not sleep for long nor call
 * smcr_lgr_*. Positions shift when groups come or go between two calls:
 * smcr_lgr_seq() changes then, for NLM_F_DUMP_INTR.
 */
int smcr_lgr_for_each(unsigned long *pos,
		      int (*fn)(const struct smcr_lgr *lgr, void *arg), void *arg);
unsigned int smcr_lgr_seq(void);

/*
 * smcr_conn.c. The handshake is done: sc becomes smc's connection (its
 * transport ops, rings, cursors) and smc uses SMC-R. 0, or -errno and
 * the caller still owns sc.
 */
int smcr_conn_start(struct smc_sock *smc, struct smcr_conn *sc);
/* Whether smc is an SMC-R connection in an SMC-Rv2 group. */
bool smcr_conn_is_v2(struct smc_sock *smc);
/* The connection layer's hooks, called by smcr_lgr.c. */
void smcr_conn_cdc_rx(struct smcr_conn *sc, struct smcr_link *l,
		      const struct smc_cdc_msg *m);
void smcr_conn_link_down(struct smc_sock *smc);
/*
 * smc's link failed (down work, process context): move it to another
 * link of its group (failover). 0 when it moved, or was moved already;
 * -errno when it cannot, and the caller resets it.
 */
int smcr_conn_link_failed(struct smc_sock *smc);

/* smcr_lgr_llc.c, for smcr_lgr.c: the group's LLC flows. */
void smcr_lgr_llc_init(struct smcr_lgr *lgr);
/* A link's group-level LLC message (struct smcr_link's llc_rx). */
void smcr_lgr_llc_rx(void *arg, struct smcr_link *l, const struct smc_llc_msg *m,
		     const u8 *ext, unsigned int ext_len);
/* The server's first link is confirmed: add a second if the group may. */
void smcr_lgr_llc_add(struct smcr_lgr *lgr);
/*
 * A connection's RMB b (sc->rmb, or the bigger one its ring grows into)
 * in a group with another ready link, registered on it: tell the peer
 * its rkey there (CONFIRM_RKEY over sc's link, answer awaited, bounded),
 * before the CLC message or the CDC that names the RMB goes out, so that
 * the connection can fail over to that link. 0, or -errno and the
 * connection goes on without (it is reset if its link fails; a ring
 * offered without is not moved to, smcr_conn.c).
 */
int smcr_lgr_rkey_announce(struct smcr_conn *sc, struct smcr_buf *b);
/*
 * sc's RMB b leaves it (smcr_lgr_leave(), a ring the peer left; bufs_sem
 * held for reading): a peer that knows it on more than one link is told
 * to forget it.
 */
void smcr_lgr_rkey_forget(struct smcr_conn *sc, struct smcr_buf *b);
/*
 * sc learnt the peer's RMB on its link from the CLC: take what the
 * peer's CONFIRM_RKEY said of it on the group's other links.
 */
void smcr_lgr_rkey_take(struct smcr_conn *sc);
/* The group is going: no flow starts, a running one ended. */
void smcr_lgr_llc_close(struct smcr_lgr *lgr);
/* A link of lgr failed, or its last connection left a failed link. */
void smcr_lgr_llc_kick(struct smcr_lgr *lgr);
/* Test plumbing: lgr (held) ends its link number num on both ends. */
int smcr_lgr_llc_delete(struct smcr_lgr *lgr, u8 num);
/* Test plumbing: lgr (held, a client's) sends n invites at once. */
int smcr_lgr_llc_dbg_invite(struct smcr_lgr *lgr, unsigned int n);
/*
 * Our link number num failed while via works: the peer hears it over
 * via (DELETE_LINK, lost path) and fails over now, not when its own
 * QP's retries run out or its keepalive times out. The down work.
 */
void smcr_lgr_llc_tell_failed(struct smcr_lgr *lgr, struct smcr_link *via, u8 num);
/* smcr_ib.c: a port came up; groups that could use it try again. */
void smcr_lgr_port_up(void);
/* The CDC handler for the group's links (smcr_lgr.c). */
void smcr_lgr_cdc_rx(void *arg, struct smcr_link *l, const u8 *msg);
extern struct mutex smcr_lgr_lock;
extern unsigned int smcr_lgr_seqno;

int smcr_lgr_init(void);
/* No connection may be left; frees every group now. */
void smcr_lgr_exit(void);

extern atomic_t smc_obj_smcr_lgrs, smc_obj_smcr_bufs;

#endif /* _SMCR_LGR_H */
