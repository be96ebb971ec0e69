// SPDX-License-Identifier: GPL-2.0
/*
 * af_smc: the net.smc.* sysctls, one set per network namespace.
 *
 * Names, types, proc handlers, ranges and defaults are those of Linux for
 * the same names (6.1 where it has them, later kernels for
 * smcr_max_links_per_lgr, smcr_max_conns_per_lgr, smcr_max_send_wr and
 * smcr_max_recv_wr), so a write that Linux
 * refuses is refused here with the same EINVAL and leaves the value as it
 * was. Each namespace gets its own copy of the table pointing into its own
 * struct smc_net, registered at namespace creation (or at module load for
 * namespaces that exist already).
 */
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/sysctl.h>
#include <net/net_namespace.h>

#include "smc_mem.h"
#include "smc_netns.h"
#include "smc_v21.h"

/* Smallest send and receive buffer SMC uses (Linux's SMC_BUF_MIN_SIZE). */
#define SMC_SYSCTL_BUF_MIN		16384
/*
 * wmem and rmem default: 64 KiB. (Linux 6.0 took tcp_wmem[1]/tcp_rmem[1];
 * Debian's 6.1 has the fixed 64 KiB of later kernels.)
 */
#define SMC_SYSCTL_BUF_DEFAULT		(64 * 1024)
/* autocorking_size default: 64 KiB. */
#define SMC_SYSCTL_AUTOCORKING_DEFAULT	(64 * 1024)
/* smcr_testlink_time default: 30 s (it is kept in jiffies). */
#define SMC_SYSCTL_TESTLINK_DEFAULT	(30 * HZ)
/*
 * smcr_max_links_per_lgr 1..2 and smcr_max_conns_per_lgr 16..255, each
 * defaulting to its maximum: the ranges of SMC v2.1 (smc_v21.h).
 */

/* Bounds for the minmax handlers; they only read them. */
static unsigned int smc_buf_type_min = SMCR_PHYS_CONT_BUFS;
static unsigned int smc_buf_type_max = SMCR_MIXED_BUFS;
static int smc_buf_min = SMC_SYSCTL_BUF_MIN;
/*
 * wmem/rmem: Linux's bound, INT_MAX / 2 (1 GiB - 1), so 1 GiB is EINVAL
 * and 513 MiB is taken, as there. A connection's buffer is the class
 * that holds the value, at most its transport's ceiling (smc_conn.h:
 * SMC-R 512 MiB since Linux 6.11, SMC-D 1 MiB); Documentation/decisions.md.
 */
static int smc_buf_max = INT_MAX / 2;
static int smc_bool_min;
static int smc_bool_max = 1;
static int smc_links_min = SMC_V21_LINKS_MIN;
static int smc_links_max = SMC_V21_LINKS_MAX;
static int smc_conns_min = SMC_V21_CONNS_MIN;
static int smc_conns_max = SMC_V21_CONNS_MAX;
static unsigned int smc_slots_min = SMCR_SLOTS_MIN;
static unsigned int smc_slots_max = SMCR_SLOTS_MAX;

/*
 * The template: .data holds nothing yet; smc_sysctl_fields[] says which
 * field of struct smc_net each entry points at once copied.
 */
static const struct ctl_table smc_sysctl_template[] = {
	{
		.procname	= "autocorking_size",
		.maxlen		= sizeof(unsigned int),
		.mode		= 0644,
		.proc_handler	= proc_douintvec,
	},
	{
		.procname	= "smcr_buf_type",
		.maxlen		= sizeof(unsigned int),
		.mode		= 0644,
		.proc_handler	= proc_douintvec_minmax,
		.extra1		= &smc_buf_type_min,
		.extra2		= &smc_buf_type_max,
	},
	{
		/* Written and read in seconds, kept in jiffies. */
		.procname	= "smcr_testlink_time",
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_jiffies,
	},
	{
		.procname	= "wmem",
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= &smc_buf_min,
		.extra2		= &smc_buf_max,
	},
	{
		.procname	= "rmem",
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= &smc_buf_min,
		.extra2		= &smc_buf_max,
	},
	{
		.procname	= "limit_smc_hs",
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= &smc_bool_min,
		.extra2		= &smc_bool_max,
	},
	{
		.procname	= "smcr_max_links_per_lgr",
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= &smc_links_min,
		.extra2		= &smc_links_max,
	},
	{
		.procname	= "smcr_max_conns_per_lgr",
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= &smc_conns_min,
		.extra2		= &smc_conns_max,
	},
	{
		/*
		 * An unsigned int under proc_dointvec_minmax, as Linux has
		 * it: both read the same.
		 */
		.procname	= "smcr_max_send_wr",
		.maxlen		= sizeof(unsigned int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= &smc_slots_min,
		.extra2		= &smc_slots_max,
	},
	{
		.procname	= "smcr_max_recv_wr",
		.maxlen		= sizeof(unsigned int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= &smc_slots_min,
		.extra2		= &smc_slots_max,
	},
	{
		/*
		 * Ours (Linux has no such cap): bytes of SMC buffers the
		 * namespace's connections may hold; past it a new connection
		 * falls back to TCP (smc_mem.h). Unsigned long, so that
		 * more than 4 GiB can be given; 0 lets no connection have
		 * buffers.
		 */
		.procname	= "mem_limit",
		.maxlen		= sizeof(unsigned long),
		.mode		= 0644,
		.proc_handler	= proc_doulongvec_minmax,
	},
	{ }	/* 6.1 still ends a table with an empty entry */
};

/* Where entry i of the template points in a namespace's struct smc_net. */
static const size_t smc_sysctl_fields[] = {
	offsetof(struct smc_net, sysctl_autocorking_size),
	offsetof(struct smc_net, sysctl_smcr_buf_type),
	offsetof(struct smc_net, sysctl_smcr_testlink_time),
	offsetof(struct smc_net, sysctl_wmem),
	offsetof(struct smc_net, sysctl_rmem),
	offsetof(struct smc_net, sysctl_limit_smc_hs),
	offsetof(struct smc_net, sysctl_smcr_max_links_per_lgr),
	offsetof(struct smc_net, sysctl_smcr_max_conns_per_lgr),
	offsetof(struct smc_net, sysctl_smcr_max_send_wr),
	offsetof(struct smc_net, sysctl_smcr_max_recv_wr),
	offsetof(struct smc_net, sysctl_mem_limit),
};

static_assert(ARRAY_SIZE(smc_sysctl_fields) == ARRAY_SIZE(smc_sysctl_template) - 1);

/*
 * A new namespace starts from the defaults, never from another namespace's
 * values (as in Linux).
 */
void smc_sysctl_defaults(struct smc_net *sn)
{
	sn->sysctl_autocorking_size = SMC_SYSCTL_AUTOCORKING_DEFAULT;
	sn->sysctl_smcr_buf_type = SMCR_PHYS_CONT_BUFS;
	sn->sysctl_smcr_testlink_time = SMC_SYSCTL_TESTLINK_DEFAULT;
	sn->sysctl_wmem = SMC_SYSCTL_BUF_DEFAULT;
	sn->sysctl_rmem = SMC_SYSCTL_BUF_DEFAULT;
	sn->sysctl_limit_smc_hs = 0;
	sn->sysctl_smcr_max_links_per_lgr = SMC_V21_LINKS_MAX;
	sn->sysctl_smcr_max_conns_per_lgr = SMC_V21_CONNS_MAX;
	sn->sysctl_smcr_max_send_wr = SMCR_SEND_SLOTS_DEFAULT;
	sn->sysctl_smcr_max_recv_wr = SMCR_RECV_SLOTS_DEFAULT;
	sn->sysctl_mem_limit = smc_mem_limit_default();
}

int smc_sysctl_net_init(struct net *net, struct smc_net *sn)
{
	struct ctl_table *table;
	size_t i;

	table = kmemdup(smc_sysctl_template, sizeof(smc_sysctl_template),
			GFP_KERNEL);
	if (!table)
		return -ENOMEM;
	for (i = 0; i < ARRAY_SIZE(smc_sysctl_fields); i++)
		table[i].data = (char *)sn + smc_sysctl_fields[i];

	sn->sysctl_hdr = register_net_sysctl(net, "net/smc", table);
	if (!sn->sysctl_hdr) {
		kfree(table);
		/* No memory, or a taken name (see smc_netns.c). */
		return -ENOMEM;
	}
	sn->sysctl_table = table;
	return 0;
}

void smc_sysctl_net_exit(struct smc_net *sn)
{
	/* Waits for every reader and writer of the files to leave. */
	unregister_net_sysctl_table(sn->sysctl_hdr);
	kfree(sn->sysctl_table);
	sn->sysctl_hdr = NULL;
	sn->sysctl_table = NULL;
}
