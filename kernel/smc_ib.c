// SPDX-License-Identifier: GPL-2.0
/*
 * af_smc: the list of RDMA devices (see smc_ib.h).
 *
 * ib_core calls add() and remove() in process context, with no lock of
 * ours held; remove() takes our mutex before it unlinks the device and
 * returns, and ib_core frees the device only after remove() returned, so
 * a walker under the mutex always sees live devices.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>

#include "smc_ib.h"

struct smc_ib_dev {
	struct list_head	list;
	struct ib_device	*ibdev;
};

static LIST_HEAD(smc_ib_devices);
static DEFINE_MUTEX(smc_ib_lock);

static int smc_ib_add(struct ib_device *ibdev)
{
	struct smc_ib_dev *d;

	/* SMC-R runs over RoCE (and soft-RoCE) only, as in Linux. */
	if (ibdev->node_type != RDMA_NODE_IB_CA)
		return -EOPNOTSUPP;
	d = kzalloc(sizeof(*d), GFP_KERNEL);
	if (!d)
		return -ENOMEM;
	d->ibdev = ibdev;
	mutex_lock(&smc_ib_lock);
	list_add_tail(&d->list, &smc_ib_devices);
	mutex_unlock(&smc_ib_lock);
	return 0;
}

static void smc_ib_remove(struct ib_device *ibdev, void *client_data)
{
	struct smc_ib_dev *d, *found = NULL;

	mutex_lock(&smc_ib_lock);
	list_for_each_entry(d, &smc_ib_devices, list) {
		if (d->ibdev == ibdev) {
			list_del(&d->list);
			found = d;
			break;
		}
	}
	mutex_unlock(&smc_ib_lock);
	kfree(found);
}

static struct ib_client smc_ib_client = {
	.name	= "af_smc",
	.add	= smc_ib_add,
	.remove	= smc_ib_remove,
};

int smc_ib_walk(long *pos, int (*fn)(struct ib_device *ibdev, void *arg),
		void *arg)
{
	struct smc_ib_dev *d;
	long i = 0;
	int rc = 0;

	mutex_lock(&smc_ib_lock);
	list_for_each_entry(d, &smc_ib_devices, list) {
		if (i++ < *pos)
			continue;
		rc = fn(d->ibdev, arg);
		if (rc)
			break;
		(*pos)++;
	}
	mutex_unlock(&smc_ib_lock);
	return rc;
}

int smc_ib_init(void)
{
	return ib_register_client(&smc_ib_client);
}

/* ib_core calls remove() for every device before this returns. */
void smc_ib_exit(void)
{
	ib_unregister_client(&smc_ib_client);
}
