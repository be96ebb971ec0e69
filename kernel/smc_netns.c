// SPDX-License-Identifier: GPL-2.0
/*
 * af_smc: per-network-namespace state (see smc_netns.h).
 *
 * Registered as a pernet subsystem, not a pernet device: at namespace
 * teardown the kernel runs device exits first, so every netdev of the
 * namespace is gone (and its NETDEV_UNREGISTER seen by the PNET table)
 * before smc_net_exit() frees the table.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/printk.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>

#include "smc_netns.h"
#include "smc_pnet.h"

unsigned int smc_net_id __read_mostly;

static int __net_init smc_net_init(struct net *net)
{
	struct smc_net *sn = smc_net(net);

	smc_pnettable_init(&sn->pnettable);
	smc_sysctl_defaults(net, sn);
	return smc_sysctl_net_init(net, sn);
}

static void __net_exit smc_net_exit(struct net *net)
{
	struct smc_net *sn = smc_net(net);

	smc_sysctl_net_exit(sn);
	smc_pnettable_destroy(&sn->pnettable);
}

static struct pernet_operations smc_net_ops = {
	.init	= smc_net_init,
	.exit	= smc_net_exit,
	.id	= &smc_net_id,
	.size	= sizeof(struct smc_net),
};

int smc_netns_init(void)
{
	int rc;

	rc = register_pernet_subsys(&smc_net_ops);
	if (rc) {
		pr_err("cannot set up the net.smc sysctls (%d); is the kernel's own smc module loaded?\n",
		       rc);
		return rc;
	}
	/* The PNET table's notifier and netlink family need the state. */
	rc = smc_pnet_init();
	if (rc) {
		unregister_pernet_subsys(&smc_net_ops);
		return rc;
	}
	return 0;
}

void smc_netns_exit(void)
{
	smc_pnet_exit();
	unregister_pernet_subsys(&smc_net_ops);
}
