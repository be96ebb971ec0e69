// SPDX-License-Identifier: GPL-2.0
/*
 * af_smc: the PNET table of each network namespace (see smc_pnet.h) and
 * the lookups the SMC-R and SMC-D code use.
 *
 * What the table accepts is what Linux 6.1 accepts (checked against the
 * kernel's own smc module by selftests/config/pnet): names of devices that
 * do not exist yet are taken, because the device may come later, and the
 * entry applies from then on. smc_pnet_nl.c is the netlink side.
 *
 * Locking:
 *   table->lock (a mutex) serialises every change of the table: adding,
 *   removing, and binding or unbinding a network device entry from the
 *   netdevice notifier (which runs under RTNL, so the order is RTNL ->
 *   table->lock; nothing here takes RTNL while holding table->lock).
 *   The list is an RCU list and an entry is freed after a grace period, so
 *   lookups and netlink dumps only need rcu_read_lock(). Fields that change
 *   while an entry is listed (eth.ifindex) are written with WRITE_ONCE
 *   under the mutex and read with READ_ONCE.
 *
 * Binding network devices: an entry's device is looked up by name, under
 * table->lock, when the entry is added; the notifier binds it on
 * NETDEV_REGISTER or NETDEV_CHANGENAME to the name, and unbinds it on
 * NETDEV_UNREGISTER (also sent when a device leaves the namespace). Since
 * a device is listed before its REGISTER event and unlisted before its
 * UNREGISTER event, and both events wait for table->lock, an add that
 * races with either ends bound exactly when the device exists.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ctype.h>
#include <linux/netdevice.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <net/netlink.h>
#include <rdma/ib_verbs.h>

#include "smc_netns.h"
#include "smc_pnet.h"
#include "smc_pnet_table.h"

void smc_pnettable_init(struct smc_pnettable *table)
{
	mutex_init(&table->lock);
	INIT_LIST_HEAD(&table->entries);
	/* Dumps use it as cb->seq, where 0 means "not set". */
	table->gen = 1;
}

/* Called at namespace exit: no netlink user or lookup can reach it. */
void smc_pnettable_destroy(struct smc_pnettable *table)
{
	smc_pnet_remove(table, NULL);
	mutex_destroy(&table->lock);
}

struct smc_pnettable *smc_pnettable(const struct net *net)
{
	return &smc_net(net)->pnettable;
}

/*
 * A PNET ID as given by a user: surrounding white space is dropped, the
 * rest must be 1 to 16 letters or digits, and is kept in upper case (the
 * kernel's ctype, as in Linux). out gets it NUL-padded. False if invalid.
 */
bool smc_pnetid_parse(const char *in, char out[SMC_MAX_PNETID_LEN + 1])
{
	size_t len;

	while (isspace(*in))
		in++;
	len = strlen(in);
	while (len && isspace(in[len - 1]))
		len--;
	if (!len || len > SMC_MAX_PNETID_LEN)
		return false;
	memset(out, 0, SMC_MAX_PNETID_LEN + 1);
	for (size_t i = 0; i < len; i++) {
		if (!isalnum(in[i]))
			return false;
		out[i] = toupper(in[i]);
	}
	return true;
}

/*
 * Whether a stored PNET ID is the one a GET or DEL names. The given one is
 * not normalised: Linux compares the bytes as sent, where a NUL or a blank
 * ends either string, and we answer the same.
 */
bool smc_pnetid_match(const char *stored, const char *given)
{
	for (int i = 0; i < SMC_MAX_PNETID_LEN; i++) {
		bool end_s = !stored[i] || stored[i] == ' ';
		bool end_g = !given[i] || given[i] == ' ';

		if (end_s && end_g)
			return true;
		if (stored[i] != given[i])
			return false;
	}
	return true;
}

static void smc_pnet_changed(struct smc_pnettable *table)
{
	lockdep_assert_held(&table->lock);
	WRITE_ONCE(table->gen, table->gen + 1 ? table->gen + 1 : 1);
}

static const char *smc_pnet_devname(const struct smc_pnetentry *e)
{
	return e->type == SMC_PNET_ETH ? e->eth.name : e->ib.name;
}

/* Under table->lock: whether a device of this type and name is listed. */
static bool smc_pnet_listed(struct smc_pnettable *table,
			    const struct smc_pnetentry *new)
{
	struct smc_pnetentry *e;

	list_for_each_entry(e, &table->entries, list)
		if (e->type == new->type &&
		    !strcmp(smc_pnet_devname(e), smc_pnet_devname(new)))
			return true;
	return false;
}

/*
 * Append e to the table of net unless its device is listed already (then
 * free it: -EEXIST). A netdev entry is bound to the device of its name if
 * there is one. Returns 0, or 1 when a netdev entry found no device. Once
 * the lock is dropped e may be gone (a concurrent DEL), so the caller must
 * not touch it after this.
 */
static int smc_pnet_insert(struct net *net, struct smc_pnetentry *e)
{
	struct smc_pnettable *table = smc_pnettable(net);
	struct net_device *dev;
	int rc = 0;

	mutex_lock(&table->lock);
	if (smc_pnet_listed(table, e)) {
		mutex_unlock(&table->lock);
		kfree(e);
		return -EEXIST;
	}
	if (e->type == SMC_PNET_ETH) {
		rcu_read_lock();
		dev = dev_get_by_name_rcu(net, e->eth.name);
		e->eth.ifindex = dev ? dev->ifindex : 0;
		rcu_read_unlock();
		rc = !e->eth.ifindex;
	}
	list_add_tail_rcu(&e->list, &table->entries);
	smc_pnet_changed(table);
	mutex_unlock(&table->lock);
	return rc;
}

static struct smc_pnetentry *smc_pnet_new(enum smc_pnet_type type,
					  const char *pnetid)
{
	/* Charged to the caller: any namespace owner may fill its table. */
	struct smc_pnetentry *e = kzalloc(sizeof(*e), GFP_KERNEL_ACCOUNT);

	if (!e)
		return NULL;
	e->type = type;
	memcpy(e->pnetid, pnetid, sizeof(e->pnetid));
	return e;
}

int smc_pnet_add_eth(struct net *net, const char *pnetid, const char *name,
		     struct netlink_ext_ack *extack)
{
	struct smc_pnetentry *e = smc_pnet_new(SMC_PNET_ETH, pnetid);
	int rc;

	if (!e)
		return -ENOMEM;
	strscpy(e->eth.name, name, sizeof(e->eth.name));
	rc = smc_pnet_insert(net, e);
	if (rc == -EEXIST)
		NL_SET_ERR_MSG(extack, "the network device already has a PNET ID");
	if (rc == 1)
		NL_SET_ERR_MSG(extack,
			       "no network device of this name in this namespace yet: the entry applies once there is one");
	return rc < 0 ? rc : 0;
}

/*
 * Tell the user when an RDMA device name or port does not exist (yet): the
 * entry is taken all the same, as Linux takes it. ISM devices are not
 * registered anywhere we could look yet, so only RDMA devices are checked.
 */
static void smc_pnet_check_ibdev(const char *name, u8 port,
				 struct netlink_ext_ack *extack)
{
	struct ib_device *ibdev = ib_device_get_by_name(name, RDMA_DRIVER_UNKNOWN);

	if (!ibdev) {
		NL_SET_ERR_MSG(extack,
			       "no RDMA device of this name now: the entry applies once there is one (or names an ISM device)");
		return;
	}
	if (port > rdma_end_port(ibdev))
		NL_SET_ERR_MSG(extack,
			       "the RDMA device has no such port now: the entry applies if it gets one");
	ib_device_put(ibdev);
}

int smc_pnet_add_ib(struct net *net, const char *pnetid, const char *name,
		    u8 port, struct netlink_ext_ack *extack)
{
	struct smc_pnetentry *e = smc_pnet_new(SMC_PNET_IB, pnetid);
	int rc;

	if (!e)
		return -ENOMEM;
	strscpy(e->ib.name, name, sizeof(e->ib.name));
	e->ib.port = port;
	rc = smc_pnet_insert(net, e);
	if (rc == -EEXIST) {
		NL_SET_ERR_MSG(extack, "the RDMA or ISM device already has a PNET ID");
		return rc;
	}
	/* name, not e->ib.name: e may be gone already. */
	smc_pnet_check_ibdev(name, port, extack);
	return 0;
}

int smc_pnet_remove(struct smc_pnettable *table, const char *pnetid)
{
	struct smc_pnetentry *e, *tmp;
	int removed = 0;

	mutex_lock(&table->lock);
	list_for_each_entry_safe(e, tmp, &table->entries, list) {
		if (pnetid && !smc_pnetid_match(e->pnetid, pnetid))
			continue;
		list_del_rcu(&e->list);
		kfree_rcu(e, rcu);
		removed++;
	}
	if (removed)
		smc_pnet_changed(table);
	mutex_unlock(&table->lock);
	return removed;
}

/* ---- lookups for the SMC-R and SMC-D code ---- */

/* Under RCU: the PNET ID bound to ifindex in table, copied to pnetid. */
static bool smc_pnet_lookup_ifindex(struct smc_pnettable *table, int ifindex,
				    char *pnetid)
{
	struct smc_pnetentry *e;

	list_for_each_entry_rcu(e, &table->entries, list) {
		if (e->type == SMC_PNET_ETH && READ_ONCE(e->eth.ifindex) == ifindex) {
			memcpy(pnetid, e->pnetid, SMC_MAX_PNETID_LEN + 1);
			return true;
		}
	}
	return false;
}

struct smc_pnet_walk {
	struct smc_pnettable	*table;
	char			*pnetid;
};

static int smc_pnet_lower_cb(struct net_device *lower,
			     struct netdev_nested_priv *priv)
{
	struct smc_pnet_walk *w = priv->data;

	/* Non-zero stops the walk. */
	return smc_pnet_lookup_ifindex(w->table, lower->ifindex, w->pnetid);
}

int smc_pnetid_by_netdev(struct net_device *dev,
			 char pnetid[SMC_MAX_PNETID_LEN + 1])
{
	struct smc_pnettable *table = smc_pnettable(dev_net(dev));
	struct smc_pnet_walk w = { .table = table, .pnetid = pnetid };
	struct netdev_nested_priv priv = { .data = &w };
	bool found;

	rcu_read_lock();
	found = smc_pnet_lookup_ifindex(table, dev->ifindex, pnetid) ||
		netdev_walk_all_lower_dev_rcu(dev, smc_pnet_lower_cb, &priv);
	rcu_read_unlock();
	return found ? 0 : -ENOENT;
}

int smc_pnetid_by_ibdev(const char *ibname, u8 port,
			char pnetid[SMC_MAX_PNETID_LEN + 1])
{
	/* RDMA and ISM devices get PNET IDs in the initial namespace only. */
	struct smc_pnettable *table = smc_pnettable(&init_net);
	struct smc_pnetentry *e;
	int rc = -ENOENT;

	rcu_read_lock();
	list_for_each_entry_rcu(e, &table->entries, list) {
		if (e->type != SMC_PNET_IB ||
		    strncmp(e->ib.name, ibname, IB_DEVICE_NAME_MAX))
			continue;
		if (!port || e->ib.port == port) {
			memcpy(pnetid, e->pnetid, SMC_MAX_PNETID_LEN + 1);
			rc = 0;
		}
		break;	/* a device name is listed at most once */
	}
	rcu_read_unlock();
	return rc;
}

/* ---- network devices coming and going ---- */

static int smc_pnet_netdev_event(struct notifier_block *nb,
				 unsigned long event, void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);
	struct smc_pnettable *table;
	struct smc_pnetentry *e;

	if (event != NETDEV_REGISTER && event != NETDEV_CHANGENAME &&
	    event != NETDEV_UNREGISTER)
		return NOTIFY_DONE;

	table = smc_pnettable(dev_net(dev));
	mutex_lock(&table->lock);
	list_for_each_entry(e, &table->entries, list) {
		if (e->type != SMC_PNET_ETH)
			continue;
		if (event == NETDEV_UNREGISTER) {
			if (e->eth.ifindex == dev->ifindex)
				WRITE_ONCE(e->eth.ifindex, 0);
		} else if (!e->eth.ifindex &&
			   !strncmp(e->eth.name, dev->name, IFNAMSIZ)) {
			WRITE_ONCE(e->eth.ifindex, dev->ifindex);
		}
	}
	mutex_unlock(&table->lock);
	return NOTIFY_DONE;
}

static struct notifier_block smc_pnet_netdev_nb = {
	.notifier_call = smc_pnet_netdev_event,
};

int smc_pnet_init(void)
{
	int rc;

	rc = register_netdevice_notifier(&smc_pnet_netdev_nb);
	if (rc)
		return rc;
	rc = smc_pnet_nl_init();
	if (rc) {
		unregister_netdevice_notifier(&smc_pnet_netdev_nb);
		return rc;
	}
	return 0;
}

void smc_pnet_exit(void)
{
	smc_pnet_nl_exit();
	unregister_netdevice_notifier(&smc_pnet_netdev_nb);
}
