/* SPDX-License-Identifier: GPL-2.0 */
/*
 * af_smc: the RDMA devices SMC-R can use (an IB client of ib_core).
 *
 * Every RDMA device ib_core registers gets a struct smcr_dev here, with a
 * snapshot of each port: whether it is ACTIVE, and its RoCEv2 GIDs that
 * carry an IPv4 address, each with the network device it belongs to.
 * Snapshots are refreshed from port and GID-change events. rxe in Linux
 * 6.1 has no get_netdev, so the GID's own netdev is the only automatic
 * link between an RDMA port and an IP interface.
 *
 * Which port serves a network device (smcr_ib_find), the rule in
 * Documentation/smc-r.md:
 *   - the netdev has a PNET ID: only active ports with the same PNET ID;
 *   - it has none: only active ports without a PNET ID that have a GID
 *     whose netdev is this netdev (same namespace, same ifindex).
 * In both cases the GID used is one of that port's RoCEv2 IPv4 GIDs on
 * the netdev, the one equal to the connection's source address if there
 * is one; with a PNET ID, failing that on every port of the PNET ID, one
 * on another netdev of the netdev's namespace (the first such port). So
 * the port under the connection's own netdev is taken whenever it can
 * be, not whichever device ib_core registered first: a device removed
 * and added again goes to the end of the list. A GID whose netdev is in
 * another namespace is never used, and a device ib_core keeps from the
 * netdev's namespace (rdma_dev_access_netns(), exclusive netns mode) is
 * never looked at: a PNET ID, which a namespace's admin sets for its own
 * netdevs, must not reach another namespace's RoCE
 * (Documentation/security.md, hole 7).
 */
#ifndef _SMCR_IB_H
#define _SMCR_IB_H

#include <linux/if_ether.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>

#include "smc_pnet.h"

struct net;
struct net_device;
struct seq_file;

#define SMCR_MAX_PORTS	2	/* ports of a device we track, as Linux */
#define SMCR_MAX_GIDS	8	/* RoCEv2 IPv4 GIDs kept per port */

struct smcr_gid {
	union ib_gid	gid;		/* ::ffff:a.b.c.d */
	u16		index;		/* in the port's GID table */
	int		ifindex;	/* the GID's netdev ... */
	u64		net_cookie;	/* ... in this namespace */
	u8		mac[ETH_ALEN];	/* the netdev's address */
};

struct smcr_port {
	bool		active;		/* IB_PORT_ACTIVE */
	u8		ngids;
	struct smcr_gid	gids[SMCR_MAX_GIDS];
};

struct smcr_dev {
	struct list_head	list;		/* smcr_devs, under smcr_ib_mutex */
	struct kref		ref;		/* the list's, and one per user */
	/*
	 * Valid until ib_core calls our remove for the device; users check
	 * "gone" under links_mutex and must have released every verbs object
	 * of the device by the time remove returns (smcr_link.c does it).
	 */
	struct ib_device	*ibdev;
	char			name[IB_DEVICE_NAME_MAX];	/* copied at add/rename */
	struct ib_event_handler	events;
	struct work_struct	port_work;	/* refreshes ports[] */
	spinlock_t		lock;		/* ports[] */
	bool			gone;		/* under links_mutex */
	u8			nports;
	struct smcr_port	ports[SMCR_MAX_PORTS];	/* index = port - 1 */
	/* Links on this device (smcr_link.c), under links_mutex. */
	struct mutex		links_mutex;
	struct list_head	links;
};

/* What smcr_ib_find returns: a device (referenced), a port and a GID. */
struct smcr_path {
	struct smcr_dev	*dev;
	u8		port;		/* 1-based */
	struct smcr_gid	gid;
	char		pnetid[SMC_MAX_PNETID_LEN + 1];	/* "" when matched by the GID's netdev */
};

/*
 * The RDMA port and GID for a connection over ndev from IPv4 source
 * address saddr (0: any), by the rule above. 0 with path->dev holding a
 * reference (smcr_path_put), or -ENODEV. Process context.
 */
int smcr_ib_find(struct net_device *ndev, __be32 saddr, struct smcr_path *path);
/*
 * A second path for a link group (issue 20): an active port with PNET ID
 * pnetid other than port not_port of not_dev, and its first RoCEv2 IPv4
 * GID on a netdev of net. The PNET ID is what says two ports reach the
 * same network; a group made without one (matched by the GID's netdev)
 * gets no second path. 0 with path->dev referenced; -EAGAIN when such a
 * port exists but is not usable now (down, or no such GID yet); -ENODEV
 * when there is none.
 */
int smcr_ib_find_alt(const char *pnetid, const struct net *net,
		     const struct smcr_dev *not_dev, u8 not_port,
		     struct smcr_path *path);
void smcr_path_put(struct smcr_path *path);
/* Whether port (1-based) of dev is ACTIVE in the latest snapshot. */
bool smcr_ib_port_active(struct smcr_dev *dev, u8 port);

void smcr_dev_put(struct smcr_dev *dev);

/*
 * Call fn for each RDMA device from index *pos on, under the device list's
 * mutex (fn may sleep; no device is removed meanwhile, so ibdev is live);
 * stop at the first non-zero return, returned, with *pos the index of that
 * device. For SMC_GEN_NETLINK's device dump.
 */
int smcr_ib_walk(long *pos, int (*fn)(struct ib_device *ibdev, void *arg),
		 void *arg);

/* debugfs: one line per port and GID. */
void smcr_ib_show(struct seq_file *m);

int smcr_ib_init(void);
void smcr_ib_exit(void);

#endif /* _SMCR_IB_H */
