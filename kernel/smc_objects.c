// SPDX-License-Identifier: GPL-2.0
/*
 * af_smc: counts of the module's live objects, for tests.
 *
 * /sys/kernel/debug/af_smc/objects (mount debugfs first) reads
 *
 *   socks N       AF_SMC socks (smc_live_socks)
 *   conns N       SMC-D connections with a DMB
 *   dmbs N        registered DMBs: in use and pooled
 *   pool_dmbs N   of which pooled, free for the next connection
 *   lgrs N        link groups, lingering ones included
 *
 * debugfs, not a module parameter or /proc: these are a test aid with no
 * ABI promise, /proc/net mirrors Linux's names only, and a module
 * parameter is configuration that modinfo lists. A test that finds every
 * line at 0 after its sockets are closed (and the link groups' linger
 * time has passed) has shown that nothing leaked.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/seq_file.h>

#include "smc.h"
#include "smc_lgr.h"

static struct dentry *smc_debugfs_dir;

static int smc_objects_show(struct seq_file *m, void *v)
{
	seq_printf(m, "socks %d\n", atomic_read(&smc_live_socks));
	seq_printf(m, "conns %d\n", atomic_read(&smc_obj_conns));
	seq_printf(m, "dmbs %d\n", atomic_read(&smc_obj_dmbs));
	seq_printf(m, "pool_dmbs %d\n", atomic_read(&smc_obj_pool));
	seq_printf(m, "lgrs %d\n", atomic_read(&smc_obj_lgrs));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(smc_objects);

/* Best effort: without debugfs the module works, tests skip. */
void smc_objects_init(void)
{
	smc_debugfs_dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_file("objects", 0444, smc_debugfs_dir, NULL,
			    &smc_objects_fops);
}

void smc_objects_exit(void)
{
	debugfs_remove_recursive(smc_debugfs_dir);
}
