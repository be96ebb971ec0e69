/* SPDX-License-Identifier: GPL-2.0 */
/*
 * af_smc: the ISM device layer, what SMC-D needs from a device.
 *
 * An ISM device moves bytes into DMBs (direct memory buffers) that the
 * owner of each DMB registered, and tells the owner when a write asked
 * for a signal. SMC-D connections use nothing else, so a second device
 * type (memory shared between VMs, say) is one more struct smcd_ism_ops.
 *
 * A DMB is identified on its device by a 64-bit token, which the owner
 * hands to its peer in the CLC handshake. A device reaches peers by GID;
 * two devices can talk when their CHIDs match and the peer's GID is known
 * to the device (for the loopback device: only itself; for an ivshmem
 * device: the other VMs on its region, smcd_ivshmem.c).
 */
#ifndef _SMCD_ISM_H
#define _SMCD_ISM_H

#include <linux/in6.h>
#include <linux/list.h>
#include <linux/refcount.h>
#include <linux/types.h>

struct pci_dev;
struct smcd_ism_dev;
struct sock;

/*
 * The TCP connection a DMB was made for, as its owner's clcsock sees it:
 * the user namespace that owns its network namespace, and both ends, IPv4
 * as v4-mapped IPv6 so that the two ends of one connection compare equal
 * whatever family each socket has. The token alone names a DMB; only the
 * connection at the other end of this very TCP connection may write
 * into it (see Documentation/security.md).
 */
struct smcd_dmb_tuple {
	/*
	 * The user namespace owning that netns: compared only, never
	 * dereferenced; the owner's netns holds it while the owner lives.
	 */
	const void	*userns;
	struct in6_addr	laddr, raddr;
	__be16		lport, rport;
};

/* The tuple of a connected TCP socket. */
void smcd_dmb_tuple_of(struct sock *sk, struct smcd_dmb_tuple *t);
/* Whether b is the other end of a's TCP connection. */
bool smcd_dmb_tuple_is_peer(const struct smcd_dmb_tuple *a,
			   const struct smcd_dmb_tuple *b);

/* The owner's handler of signalled writes; may run in any context. */
typedef void (*smcd_dmb_signal_t)(void *owner);

/*
 * A device's GID. An emulated device's (SMCv2.1: a CHID of 0xFF00..0xFFFF,
 * smc_clc_chid_emulated()) has 128 bits, the rest in ext; any other
 * device's ext is 0. Every comparison takes both halves.
 */
struct smcd_gid {
	u64	gid;
	u64	ext;
};

static inline bool smcd_gid_eq(const struct smcd_gid *a, const struct smcd_gid *b)
{
	return a->gid == b->gid && a->ext == b->ext;
}

struct smcd_dmb {
	u64		token;		/* set by register_dmb */
	void		*cpu_addr;	/* the owner's view of the buffer */
	u32		len;		/* asked for by the owner */
};

struct smcd_ism_ops {
	/*
	 * Allocate and register dmb->len bytes; signals go to handler(owner).
	 * tuple is the owner's TCP connection: a device that can tell who
	 * writes (the loopback device) lets only its peer attach or move.
	 */
	int (*register_dmb)(struct smcd_ism_dev *dev, struct smcd_dmb *dmb,
			    smcd_dmb_signal_t handler, void *owner,
			    const struct smcd_dmb_tuple *tuple);
	/* No handler runs once this returns; the memory may outlive it. */
	void (*unregister_dmb)(struct smcd_ism_dev *dev, struct smcd_dmb *dmb);
	/*
	 * Copy len bytes into the DMB token of peer at offset, then, if
	 * signal, run its owner's handler. from is the sender's connection.
	 * -ENOENT if the DMB is gone, -EACCES if it belongs to a connection
	 * whose peer is not from. len 0 (data may be NULL): the checks only.
	 */
	int (*move_data)(struct smcd_ism_dev *dev, const struct smcd_gid *peer, u64 token,
			 const struct smcd_dmb_tuple *from, u32 offset,
			 const void *data, u32 len, bool signal);
	/*
	 * Devices whose DMBs the peer's memory is: map the peer's DMB so the
	 * sender writes into it directly ("nocopy"). NULL when unsupported.
	 * The mapping keeps the memory alive until detach_dmb(). from is the
	 * attacher's connection; the result is ERR_PTR(-ENOENT) for no such
	 * DMB, ERR_PTR(-EACCES) for one whose owner's peer is not from.
	 */
	void *(*attach_dmb)(struct smcd_ism_dev *dev, u64 token,
			    const struct smcd_dmb_tuple *from, u32 *len);
	void (*detach_dmb)(struct smcd_ism_dev *dev, u64 token);
	/*
	 * For the DMB pool of a link group (smcd_lgr.c): hand a registered
	 * DMB to a new owner on the TCP connection tuple, or park it with
	 * handler and tuple NULL (moves into a parked DMB fail with -ENOENT,
	 * as into a gone one, and nobody may attach it). No call of the old
	 * handler runs once this returns.
	 */
	void (*set_dmb_owner)(struct smcd_ism_dev *dev, struct smcd_dmb *dmb,
			      smcd_dmb_signal_t handler, void *owner,
			      const struct smcd_dmb_tuple *tuple);
	/*
	 * Whether anyone but the owner still holds the DMB: a peer's
	 * attachment or a move in progress. A pooled DMB is handed out
	 * again only when this says no. NULL: the device cannot tell, and
	 * its DMBs are never pooled.
	 */
	bool (*dmb_busy)(struct smcd_ism_dev *dev, struct smcd_dmb *dmb);
	/*
	 * Whether the device can move data to gid now. NULL: only to
	 * itself (gid is its own), as a software device in one kernel.
	 */
	bool (*reaches)(struct smcd_ism_dev *dev, const struct smcd_gid *gid);
};

struct smcd_ism_dev {
	struct list_head		list;	/* smcd_ism_devices */
	const struct smcd_ism_ops	*ops;
	const char			*name;
	struct pci_dev			*pdev;	/* NULL: a software device */
	struct smcd_gid			gid;
	u16				chid;
	refcount_t			ref;	/* held by each connection */
	/*
	 * Being unregistered: no connection joins a group on it any more
	 * (smcd_lgr_dev_gone()). Under smcd_lgr.c's lock.
	 */
	bool				gone;
};

/* The virtual CHID of software ISM devices, as in Linux's loopback-ism. */
#define SMCD_ISM_CHID_LOOPBACK	0xffff

int smcd_ism_register(struct smcd_ism_dev *dev);
void smcd_ism_unregister(struct smcd_ism_dev *dev);
/* The device with this CHID that can reach gid, with a reference; or NULL. */
struct smcd_ism_dev *smcd_ism_find(const struct smcd_gid *gid, u16 chid);
/*
 * Fill p's SMC-Dv2 GID list with the devices, in registration order, as
 * many as fit (an emulated device takes two entries); how many devices.
 */
struct smc_clc_proposal;
int smcd_ism_list(struct smc_clc_proposal *p);
void smcd_ism_put(struct smcd_ism_dev *dev);
/* Whether any ISM device is registered (SMC-Dv2 is possible). */
bool smcd_ism_available(void);
/*
 * Call fn for each device from index *pos on, in registration order,
 * under the registry's mutex (fn may sleep, must not register devices);
 * stop at the first non-zero return, which is returned, with *pos the
 * index of that device. Used by the netlink device dump.
 */
int smcd_ism_walk(long *pos, int (*fn)(struct smcd_ism_dev *dev, void *arg),
		 void *arg);
/* smcd_loopback.c */
int smcd_loopback_init(void);
void smcd_loopback_exit(void);

#endif
