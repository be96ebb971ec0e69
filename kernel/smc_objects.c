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
#include "smcd_lgr.h"

static int smc_objects_show(struct seq_file *m, void *v)
{
	int conns, dmbs, pool;

	smcd_lgr_objects(&conns, &dmbs, &pool);
	seq_printf(m, "socks %d\n", atomic_read(&smc_live_socks));
	seq_printf(m, "conns %d\n", conns);
	seq_printf(m, "dmbs %d\n", dmbs);
	seq_printf(m, "pool_dmbs %d\n", pool);
	seq_printf(m, "lgrs %d\n", atomic_read(&smc_obj_lgrs));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(smc_objects);

/* In af_smc's debugfs directory (smc_debugfs.c); best effort. */
void smc_objects_debugfs(struct dentry *dir)
{
	debugfs_create_file("objects", 0444, dir, NULL, &smc_objects_fops);
}
