// SPDX-License-Identifier: GPL-2.0
/*
 * af_smc: per-network-namespace state (see smc_netns.h).
 *
 * Registered as pernet subsystems, not pernet devices: at namespace
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
	int rc;

	rc = smc_stats_net_init(net);
	if (rc)
		return rc;
	smc_pnettable_init(&sn->pnettable);
	smc_eid_table_init(&sn->eids);
	smc_policy_init(&sn->policy);
	smc_sysctl_defaults(sn);
	return 0;
}

static void __net_exit smc_net_exit(struct net *net)
{
	smc_pnettable_destroy(&smc_net(net)->pnettable);
	smc_policy_destroy(&smc_net(net)->policy);
	smc_stats_net_exit(net);
}

/* The state itself: allocated for every namespace, and initialised. */
static struct pernet_operations smc_net_ops = {
	.init	= smc_net_init,
	.exit	= smc_net_exit,
	.id	= &smc_net_id,
	.size	= sizeof(struct smc_net),
};

static int __net_init smc_net_sysctl_init(struct net *net)
{
	return smc_sysctl_net_init(net, smc_net(net));
}

static void __net_exit smc_net_sysctl_exit(struct net *net)
{
	smc_sysctl_net_exit(smc_net(net));
}

/*
 * The sysctl files, registered after the state (pernet inits run in
 * registration order, exits in reverse) and after SMC_PNETID: while the
 * kernel's own smc module is loaded, registering its family name fails
 * quietly with EEXIST, whereas registering its net/smc sysctl names would
 * make the kernel log a stack dump.
 */
static struct pernet_operations smc_net_sysctl_ops = {
	.init	= smc_net_sysctl_init,
	.exit	= smc_net_sysctl_exit,
};

int smc_netns_init(void)
{
	int rc;

	rc = register_pernet_subsys(&smc_net_ops);
	if (rc)
		return rc;
	/* The PNET table's notifier and netlink family need the state. */
	rc = smc_pnet_init();
	if (rc) {
		if (rc == -EEXIST)
			pr_err("SMC_PNETID is already registered, most likely by the kernel's own smc module; unload it (rmmod smc_diag smc) before loading af_smc\n");
		goto out_state;
	}
	rc = register_pernet_subsys(&smc_net_sysctl_ops);
	if (rc)
		goto out_pnet;
	return 0;

out_pnet:
	smc_pnet_exit();
out_state:
	unregister_pernet_subsys(&smc_net_ops);
	return rc;
}

void smc_netns_exit(void)
{
	unregister_pernet_subsys(&smc_net_sysctl_ops);
	smc_pnet_exit();
	unregister_pernet_subsys(&smc_net_ops);
}
