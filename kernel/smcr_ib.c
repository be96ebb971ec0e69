// SPDX-License-Identifier: GPL-2.0
/*
 * af_smc: the registry of RDMA devices for SMC-R (see smcr_ib.h).
 *
 * Locking:
 *   smcr_ib_mutex guards the list of devices (add, remove, lookups, the
 *   debugfs dump). dev->lock (a spinlock, never held across a sleep)
 *   guards a device's port snapshots: the refresh work builds a new
 *   snapshot without it and copies it in under it. dev->links_mutex
 *   guards "gone" and the device's links: remove sets gone under it, so
 *   a link is either created before remove (and torn down by it) or
 *   refused. Order: smcr_ib_mutex -> dev->links_mutex -> dev->lock.
 *
 * Lifetime: the list holds one reference on each smcr_dev; every path
 * smcr_ib_find hands out holds another. ib_core calls our remove when a
 * device goes (rdma link del, driver unload) and for every device when we
 * unregister the client at module unload; remove stops the event handler
 * and the refresh work, tears down the device's links, unlists it and
 * drops the list's reference. The struct may outlive the device (a path
 * still referenced), but nothing touches ibdev once gone is set.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/etherdevice.h>
#include <linux/ipv6.h>
#include <linux/netdevice.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <net/ipv6.h>
#include <rdma/ib_cache.h>

#include "smc_pnet.h"
#include "smcr_ib.h"
#include "smcr_lgr.h"
#include "smcr_link.h"

static DEFINE_MUTEX(smcr_ib_mutex);
static LIST_HEAD(smcr_devs);

static struct ib_client smcr_ib_client;

static void smcr_dev_release(struct kref *ref)
{
	kfree(container_of(ref, struct smcr_dev, ref));
}

void smcr_dev_put(struct smcr_dev *dev)
{
	kref_put(&dev->ref, smcr_dev_release);
}

/* One port's snapshot, built from ib_core's caches. May sleep. */
static void smcr_port_read(struct ib_device *ibdev, u32 port,
			   struct smcr_port *snap)
{
	struct ib_port_attr attr;
	enum ib_port_state state;
	int i;

	memset(snap, 0, sizeof(*snap));
	if (!rdma_protocol_roce(ibdev, port))
		return;
	if (!ib_get_cached_port_state(ibdev, port, &state))
		snap->active = state == IB_PORT_ACTIVE;
	if (ib_query_port(ibdev, port, &attr))
		return;
	for (i = 0; i < attr.gid_tbl_len && snap->ngids < SMCR_MAX_GIDS; i++) {
		const struct ib_gid_attr *ga = rdma_get_gid_attr(ibdev, port, i);
		struct smcr_gid *g = &snap->gids[snap->ngids];
		struct net_device *ndev;

		if (IS_ERR(ga))
			continue;	/* an empty slot */
		if (ga->gid_type != IB_GID_TYPE_ROCE_UDP_ENCAP ||
		    !ipv6_addr_v4mapped((const struct in6_addr *)ga->gid.raw)) {
			rdma_put_gid_attr(ga);
			continue;
		}
		g->gid = ga->gid;
		g->index = ga->index;
		rcu_read_lock();
		ndev = rdma_read_gid_attr_ndev_rcu(ga);
		if (!IS_ERR(ndev)) {
			g->ifindex = ndev->ifindex;
			g->net_cookie = dev_net(ndev)->net_cookie;
			ether_addr_copy(g->mac, ndev->dev_addr);
		}
		rcu_read_unlock();
		rdma_put_gid_attr(ga);
		if (g->ifindex)
			snap->ngids++;
	}
}

static void smcr_dev_refresh(struct smcr_dev *dev)
{
	struct smcr_port *snap;
	bool up = false;
	u8 p;

	snap = kmalloc(sizeof(*snap), GFP_KERNEL);
	if (!snap)
		return;		/* the old snapshot stays; the next event retries */
	for (p = 0; p < dev->nports; p++) {
		smcr_port_read(dev->ibdev, p + 1, snap);
		spin_lock_bh(&dev->lock);
		up |= snap->active && !dev->ports[p].active;
		dev->ports[p] = *snap;
		spin_unlock_bh(&dev->lock);
		if (!snap->active)
			smcr_link_port_down(dev, p + 1);
	}
	kfree(snap);
	/* A group whose second link failed may have a path again. */
	if (up)
		smcr_lgr_port_up();
}

bool smcr_ib_port_active(struct smcr_dev *dev, u8 port)
{
	bool active = false;

	spin_lock_bh(&dev->lock);
	if (port >= 1 && port <= dev->nports)
		active = dev->ports[port - 1].active;
	spin_unlock_bh(&dev->lock);
	return active;
}

static void smcr_dev_port_work(struct work_struct *work)
{
	smcr_dev_refresh(container_of(work, struct smcr_dev, port_work));
}

/* ib_core calls this in atomic context: only schedule the refresh. */
static void smcr_dev_event(struct ib_event_handler *handler,
			   struct ib_event *event)
{
	struct smcr_dev *dev = container_of(handler, struct smcr_dev, events);

	switch (event->event) {
	case IB_EVENT_PORT_ACTIVE:
	case IB_EVENT_PORT_ERR:
	case IB_EVENT_GID_CHANGE:
	case IB_EVENT_DEVICE_FATAL:
		schedule_work(&dev->port_work);
		break;
	default:
		break;
	}
}

static int smcr_ib_add(struct ib_device *ibdev)
{
	struct smcr_dev *dev;

	if (!rdma_protocol_roce(ibdev, rdma_start_port(ibdev)))
		return -EOPNOTSUPP;	/* SMC-R runs over RoCE only */
	dev = kzalloc(sizeof(*dev), GFP_KERNEL);
	if (!dev)
		return -ENOMEM;
	kref_init(&dev->ref);
	dev->ibdev = ibdev;
	strscpy(dev->name, dev_name(&ibdev->dev), sizeof(dev->name));
	spin_lock_init(&dev->lock);
	mutex_init(&dev->links_mutex);
	INIT_LIST_HEAD(&dev->links);
	INIT_WORK(&dev->port_work, smcr_dev_port_work);
	dev->nports = min_t(u32, rdma_end_port(ibdev), SMCR_MAX_PORTS);
	smcr_dev_refresh(dev);
	INIT_IB_EVENT_HANDLER(&dev->events, ibdev, smcr_dev_event);
	ib_register_event_handler(&dev->events);
	/* An event between the refresh and the registration would be lost. */
	schedule_work(&dev->port_work);
	ib_set_client_data(ibdev, &smcr_ib_client, dev);
	mutex_lock(&smcr_ib_mutex);
	list_add_tail(&dev->list, &smcr_devs);
	mutex_unlock(&smcr_ib_mutex);
	return 0;
}

static void smcr_ib_remove(struct ib_device *ibdev, void *client_data)
{
	struct smcr_dev *dev = client_data;

	mutex_lock(&smcr_ib_mutex);
	list_del(&dev->list);
	mutex_unlock(&smcr_ib_mutex);
	ib_unregister_event_handler(&dev->events);
	cancel_work_sync(&dev->port_work);
	/* No new link after this; the existing ones release their verbs. */
	mutex_lock(&dev->links_mutex);
	dev->gone = true;
	mutex_unlock(&dev->links_mutex);
	smcr_link_dev_gone(dev);
	spin_lock_bh(&dev->lock);
	memset(dev->ports, 0, sizeof(dev->ports));
	spin_unlock_bh(&dev->lock);
	smcr_dev_put(dev);
}

static void smcr_ib_rename(struct ib_device *ibdev, void *client_data)
{
	struct smcr_dev *dev = client_data;

	mutex_lock(&smcr_ib_mutex);
	strscpy(dev->name, dev_name(&ibdev->dev), sizeof(dev->name));
	mutex_unlock(&smcr_ib_mutex);
}

static struct ib_client smcr_ib_client = {
	.name	= "af_smc_r",
	.add	= smcr_ib_add,
	.remove	= smcr_ib_remove,
	.rename	= smcr_ib_rename,
};

/* ---- matching a network device to a port ---- */

static bool smcr_gid_on(const struct smcr_gid *g, const struct net_device *ndev)
{
	return g->ifindex == ndev->ifindex &&
	       g->net_cookie == dev_net(ndev)->net_cookie;
}

static bool smcr_gid_is(const struct smcr_gid *g, __be32 saddr)
{
	return !memcmp(&g->gid.raw[12], &saddr, 4);
}

/*
 * Under dev->lock: the GID of port p to use for ndev, or NULL. With
 * any_gid (a PNET match) a GID on another netdev of the port will do when
 * none is on ndev itself, but only one in ndev's namespace: RoCE from a
 * GID of another namespace's netdev would leave through that namespace's
 * interface, with its addresses (hole 7).
 */
static const struct smcr_gid *smcr_port_gid(const struct smcr_port *p,
					    const struct net_device *ndev,
					    __be32 saddr, bool any_gid)
{
	u64 net_cookie = dev_net(ndev)->net_cookie;
	const struct smcr_gid *on_ndev = NULL, *in_net = NULL;
	int i;

	for (i = 0; i < p->ngids; i++) {
		const struct smcr_gid *g = &p->gids[i];

		if (g->net_cookie != net_cookie)
			continue;
		if (!in_net)
			in_net = g;
		if (!smcr_gid_on(g, ndev))
			continue;
		if (saddr && smcr_gid_is(g, saddr))
			return g;
		if (!on_ndev)
			on_ndev = g;
	}
	if (!on_ndev && any_gid)
		on_ndev = in_net;
	return on_ndev;
}

/* path (its port and GID set) is on dev (referenced), with pnetid. */
static void smcr_path_take(struct smcr_path *path, struct smcr_dev *dev,
			   const char *pnetid)
{
	kref_get(&dev->ref);
	path->dev = dev;
	strscpy(path->pnetid, pnetid, sizeof(path->pnetid));
}

int smcr_ib_find(struct net_device *ndev, __be32 saddr, struct smcr_path *path)
{
	char nd_pnetid[SMC_MAX_PNETID_LEN + 1], port_pnetid[SMC_MAX_PNETID_LEN + 1];
	bool nd_has = !smc_pnetid_by_netdev(ndev, nd_pnetid);
	struct smcr_dev *dev, *found = NULL;
	bool own = false;	/* found's GID is on ndev itself */
	u8 p;

	memset(path, 0, sizeof(*path));
	mutex_lock(&smcr_ib_mutex);
	list_for_each_entry(dev, &smcr_devs, list) {
		/* Listed, so not removed yet: ibdev is live. */
		if (!rdma_dev_access_netns(dev->ibdev, dev_net(ndev)))
			continue;
		for (p = 0; p < dev->nports && !own; p++) {
			const struct smcr_gid *g;
			bool port_has = !smc_pnetid_by_ibdev(dev->name, p + 1,
							     port_pnetid);

			if (nd_has != port_has ||
			    (nd_has && strcmp(nd_pnetid, port_pnetid)))
				continue;
			spin_lock_bh(&dev->lock);
			/* Once a port of another netdev's GID is found, only ndev's own. */
			g = dev->ports[p].active ?
				smcr_port_gid(&dev->ports[p], ndev, saddr,
					      nd_has && !found) :
				NULL;
			if (g) {
				path->gid = *g;
				path->port = p + 1;
				found = dev;
				own = smcr_gid_on(g, ndev);
			}
			spin_unlock_bh(&dev->lock);
		}
		if (own)
			break;
	}
	if (found)
		smcr_path_take(path, found, nd_has ? nd_pnetid : "");
	mutex_unlock(&smcr_ib_mutex);
	return found ? 0 : -ENODEV;
}

int smcr_ib_find_alt(const char *pnetid, const struct net *net,
		     const struct smcr_dev *not_dev, u8 not_port,
		     struct smcr_path *path)
{
	char port_pnetid[SMC_MAX_PNETID_LEN + 1];
	struct smcr_dev *dev;
	int rc = -ENODEV;
	u8 p, i;

	memset(path, 0, sizeof(*path));
	if (!pnetid[0])
		return -ENODEV;
	mutex_lock(&smcr_ib_mutex);
	list_for_each_entry(dev, &smcr_devs, list) {
		if (!rdma_dev_access_netns(dev->ibdev, net))
			continue;
		for (p = 0; p < dev->nports && rc; p++) {
			const struct smcr_port *sp = &dev->ports[p];

			if ((dev == not_dev && p + 1 == not_port) ||
			    smc_pnetid_by_ibdev(dev->name, p + 1, port_pnetid) ||
			    strcmp(pnetid, port_pnetid))
				continue;
			rc = -EAGAIN;	/* there is one; usable unless said below */
			spin_lock_bh(&dev->lock);
			/* Only a GID of net's own netdevs (hole 7, as above). */
			for (i = 0; sp->active && i < sp->ngids && rc; i++) {
				if (sp->gids[i].net_cookie != net->net_cookie)
					continue;
				path->gid = sp->gids[i];
				path->port = p + 1;
				rc = 0;
			}
			spin_unlock_bh(&dev->lock);
		}
		if (!rc) {
			smcr_path_take(path, dev, pnetid);
			break;
		}
	}
	mutex_unlock(&smcr_ib_mutex);
	return rc;
}

void smcr_path_put(struct smcr_path *path)
{
	if (path->dev)
		smcr_dev_put(path->dev);
	path->dev = NULL;
}

int smcr_ib_walk(long *pos, int (*fn)(struct ib_device *ibdev, void *arg),
		 void *arg)
{
	struct smcr_dev *dev;
	long i = 0;
	int rc = 0;

	mutex_lock(&smcr_ib_mutex);
	list_for_each_entry(dev, &smcr_devs, list) {
		if (i++ < *pos)
			continue;
		rc = fn(dev->ibdev, arg);
		if (rc)
			break;
		(*pos)++;
	}
	mutex_unlock(&smcr_ib_mutex);
	return rc;
}

/* ---- debugfs ---- */

void smcr_ib_show(struct seq_file *m)
{
	char pnetid[SMC_MAX_PNETID_LEN + 1];
	struct smcr_dev *dev;
	u8 p;
	int i;

	mutex_lock(&smcr_ib_mutex);
	list_for_each_entry(dev, &smcr_devs, list) {
		for (p = 0; p < dev->nports; p++) {
			const struct smcr_port *port = &dev->ports[p];

			if (smc_pnetid_by_ibdev(dev->name, p + 1, pnetid))
				strcpy(pnetid, "-");
			spin_lock_bh(&dev->lock);
			seq_printf(m, "%s port %u %s pnetid %s gids %u\n",
				   dev->name, p + 1,
				   port->active ? "ACTIVE" : "DOWN", pnetid,
				   port->ngids);
			for (i = 0; i < port->ngids; i++) {
				const struct smcr_gid *g = &port->gids[i];

				seq_printf(m, "%s port %u gid %pI6c index %u ifindex %d mac %pM\n",
					   dev->name, p + 1, g->gid.raw, g->index,
					   g->ifindex, g->mac);
			}
			spin_unlock_bh(&dev->lock);
		}
	}
	mutex_unlock(&smcr_ib_mutex);
}

int smcr_ib_init(void)
{
	return ib_register_client(&smcr_ib_client);
}

void smcr_ib_exit(void)
{
	/* Calls smcr_ib_remove for every device still registered. */
	ib_unregister_client(&smcr_ib_client);
}
