/* SPDX-License-Identifier: GPL-2.0 */
/*
 * af_smc: SMC-D link groups.
 *
 * A link group holds the SMC-D connections of one role (client or
 * server) between one ISM device of ours and one peer GID on one VLAN,
 * in one network namespace: groups of two namespaces share nothing (not
 * their DMB pools, not what the peer said about itself), and a
 * namespace's dumps list only its own.
 * It is made by the first connection that needs it (the CLC "first
 * contact"), keeps a pool of freed DMBs for the next connections, and
 * lingers for smc_lgr_linger seconds after its last connection left
 * before it and its pool are freed (see Documentation/smc-d.md).
 *
 * An SMC-D link group shares no state with the peer: no links, no LLC,
 * tokens travel per connection in the CLC. Each side's first-contact flag
 * says only whether that side made a new group for the connection, and
 * a side that hears "first contact" while it has a group (or the other
 * way round) simply goes on; nothing can get out of sync.
 *
 * Locking: one mutex (smcd_lgr_lock, in smcd_lgr.c) guards the list of
 * groups and, in each group, its connection list, counts and pool. Every
 * user runs in process context (handshake work, close, the free work,
 * netlink dumps). The mutex is never taken under a socket lock's
 * spinlock or a DMB's lock, and nothing else is taken under it but a
 * DMB's lock (inside the device ops).
 */
#ifndef _SMCD_LGR_H
#define _SMCD_LGR_H

#include <linux/types.h>

#include "smc_lgr.h"
#include "smcd_ism.h"

struct smcd_conn;

/*
 * What a reader outside smcd_lgr.c may know of a group: a snapshot taken
 * under the lock, handed to smcd_lgr_for_each()'s callback.
 * SMC_GEN_NETLINK's LGR_SMCD dump and smc_diag read these fields.
 */
struct smcd_lgr_info {
	u32		id;		/* SMC_NLA_LGR_D_ID; never 0 */
	u64		net_cookie;	/* the netns of its connections */
	u8		role;		/* enum smc_lgr_role */
	struct smcd_gid	gid;		/* our device's GID */
	struct smcd_gid	peer_gid;
	u16		chid;
	u16		vlan_id;	/* 0: none */
	u32		conns;		/* SMC_NLA_LGR_D_CONNS_NUM */
	u64		dmb_bytes;	/* SMC_NLA_LGR_D_DMB_ALLOC: in use + pooled */
	u64		sndbuf_bytes;	/* SMC_NLA_LGR_D_SNDBUF_ALLOC: allocated */
	u32		pool_dmbs;	/* of which pooled, free */
	const char	*dev_name;	/* the ISM device; static string */
	struct smc_lgr_peer peer;	/* SMC_NLA_LGR_D_V2_COMMON */
};

/*
 * Visit the groups in creation order, under the lock. Starts at the
 * *pos-th group (0 for the first call of a dump) and leaves *pos at the
 * group where it stopped: fn returns 0 to go on, non-zero to stop (say,
 * the netlink skb is full) and that group is visited again by the next
 * call. Returns fn's non-zero value, or 0 when every group was visited.
 * fn must not sleep long and must not call back into smcd_lgr_*.
 * Groups made or freed between two calls may shift positions: compare
 * smcd_lgr_seq() before and after to flag a dump as interrupted.
 */
int smcd_lgr_for_each(unsigned long *pos,
		     int (*fn)(const struct smcd_lgr_info *info, void *arg),
		     void *arg);
/* Changes with every group made or freed. */
unsigned int smcd_lgr_seq(void);
/*
 * The connections on ism of the groups of the netns net_cookie names:
 * the netlink device dump's USE_CNT, which may say nothing of other
 * namespaces. Takes the lock; the device dump calls it under the ISM
 * registry's mutex, which is never taken under the lock.
 */
unsigned int smcd_lgr_dev_conns(const struct smcd_ism_dev *ism, u64 net_cookie);

/*
 * Put sc into the group for (ism, peer_gid, vlan_id, role) of the
 * network namespace net_cookie names (the socket's), made for it if there
 * is none (then sc->first_contact is set), and give it a DMB (sc->rmb)
 * of 16 KiB << class from the group's pool or the device, with signals to
 * handler(sc), which only the other end of sc's TCP connection
 * (sc->tuple) may write into. 0, or -errno and sc is in no group.
 */
int smcd_lgr_conn_add(struct smcd_conn *sc, struct smcd_ism_dev *ism,
		     u64 net_cookie, const struct smcd_gid *peer_gid, u16 vlan_id,
		     enum smc_lgr_role role, u8 class, smcd_dmb_signal_t handler);
/*
 * sc leaves its group; its DMB goes to the group's pool or back to the
 * device. The group lingers if this was its last connection.
 */
void smcd_lgr_conn_del(struct smcd_conn *sc);
/*
 * One more DMB of class for sc (its ring grows, Documentation/smc-d.md),
 * in its group, owned by handler(sc) on sc's TCP connection; and its end
 * (pooled or unregistered, like the DMB smcd_lgr_conn_del() ends). A DMB
 * still held at smcd_lgr_conn_del() as sc->rmb_next or sc->rmb_old ends
 * there. Process context.
 */
int smcd_lgr_dmb_add(struct smcd_conn *sc, u8 class,
		     smcd_dmb_signal_t handler, struct smcd_dmb *dmb);
void smcd_lgr_dmb_del(struct smcd_conn *sc, struct smcd_dmb *dmb);
/*
 * The device says peer_gid is gone (a VM that stopped), or every peer
 * (NULL: the device lost its own place among them): every connection
 * of ism's groups with it is reset, as when a CDC finds the peer's DMB
 * gone. Process context; takes the lock, and each connection's own lock
 * outside it.
 */
void smcd_lgr_peer_gone(struct smcd_ism_dev *ism, const struct smcd_gid *peer_gid);
/*
 * ism is going away (unbound, unplugged; smcd_ism_unregister()): no
 * connection joins a group on it from now on; every connection on it is
 * reset as in smcd_lgr_peer_gone() and lets go of the device at once
 * (smcd_conn_detach()), whether or not its owner ever closes it; groups
 * left empty are freed without their linger. A connection still in its
 * handshake is waited for (its CLC waits are bounded). Process context;
 * takes each connection's socket lock, outside the group lock.
 */
void smcd_lgr_dev_gone(struct smcd_ism_dev *ism);
/* What the peer said about itself in its first-contact CLC message. */
void smcd_lgr_set_peer(struct smcd_conn *sc, u8 os, u8 release,
		      const u8 *host, const u8 *eid);

int smcd_lgr_init(void);
/* Frees every group at once; no connection may be left. */
void smcd_lgr_exit(void);

/*
 * Live objects of the module, for tests (debugfs af_smc/objects, see
 * smc_objects.c): connections with a DMB, registered DMBs (in use and
 * pooled), pooled DMBs, link groups.
 */
extern atomic_t smc_obj_conns, smc_obj_dmbs, smc_obj_pool, smc_obj_lgrs;
/*
 * The first three read together under the lock that changes them, so a
 * reader who finds no connections also finds every DMB pooled or gone.
 */
void smcd_lgr_objects(int *conns, int *dmbs, int *pool);

#endif
