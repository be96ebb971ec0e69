/* SPDX-License-Identifier: GPL-2.0 */
/*
 * af_smc: per-network-namespace state.
 *
 * Everything af_smc configures per network namespace lives in one struct
 * smc_net, reached with smc_net(net). It is allocated by the pernet
 * machinery (net_generic), so it exists for every namespace, including
 * ones created before the module was loaded, from module init until module
 * exit. We deliberately do not use the netns_smc fields in struct net:
 * those belong to the kernel's own smc module.
 *
 * Readers of a sysctl value use READ_ONCE(smc_net(net)->sysctl_xxx): the
 * value can change at any time through /proc/sys/net/smc and no lock
 * protects it; each use takes one snapshot.
 */
#ifndef _SMC_NETNS_H
#define _SMC_NETNS_H

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/types.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>

#include "smc_eid.h"
#include "smc_policy.h"
#include "smc_stats.h"

struct ctl_table;
struct ctl_table_header;

/* The PNET table of one namespace (see smc_pnet.c). */
struct smc_pnettable {
	/* Serialises changes; readers use RCU. */
	struct mutex		lock;
	/* struct smc_pnetentry, in the order they were added; RCU list. */
	struct list_head	entries;
	/* Changes with every change of the list, so dumps see them. */
	unsigned int		gen;
};

struct smc_net {
	/*
	 * net.smc.* sysctls (smc_sysctl.c has their ranges and defaults).
	 * The types are what the proc handlers of Linux use for the same
	 * names, so reads and writes behave alike.
	 */
	unsigned int	sysctl_autocorking_size;	/* bytes, 0 = off */
	unsigned int	sysctl_smcr_buf_type;		/* enum smcr_buf_type */
	int		sysctl_smcr_testlink_time;	/* jiffies, 0 = off */
	int		sysctl_wmem;			/* bytes */
	int		sysctl_rmem;			/* bytes */
	int		sysctl_limit_smc_hs;		/* 0 or 1 */
	int		sysctl_smcr_max_links_per_lgr;
	int		sysctl_smcr_max_conns_per_lgr;
	/*
	 * A new SMC-R link's LLC/CDC SENDs in flight at most (send slots)
	 * and receive WRs posted (receive slots), SMCR_SLOTS_* below.
	 */
	unsigned int	sysctl_smcr_max_send_wr;
	unsigned int	sysctl_smcr_max_recv_wr;
	unsigned long	sysctl_mem_limit;		/* bytes */
	/* Bytes of buffers this namespace's connections hold (smc_mem.c). */
	atomic_long_t	mem_used;

	struct ctl_table_header	*sysctl_hdr;
	struct ctl_table	*sysctl_table;

	struct smc_pnettable	pnettable;

	/* SMC_GEN_NETLINK state: counters and the EID table. */
	struct smc_stats __percpu	*stats;
	struct smc_stats_use		use[SMC_STATS_TECHS];
	struct smc_stats_fback		fback;
	struct smc_eid_table		eids;
	/* Which connections may try SMC (smc_policy.h). */
	struct smc_policy_table		policy;
};

/*
 * net.smc.smcr_max_send_wr and smcr_max_recv_wr: Linux 6.19's names, range
 * and defaults. The defaults are the counts Linux and we had fixed before.
 */
#define SMCR_SEND_SLOTS_DEFAULT	16
#define SMCR_RECV_SLOTS_DEFAULT	48
#define SMCR_SLOTS_MIN		2
#define SMCR_SLOTS_MAX		2048

/* Values of net.smc.smcr_buf_type. */
enum smcr_buf_type {
	SMCR_PHYS_CONT_BUFS	= 0,
	SMCR_VIRT_CONT_BUFS	= 1,
	SMCR_MIXED_BUFS		= 2,
};

extern unsigned int smc_net_id;

/* The af_smc state of net; valid while the module is loaded. */
static inline struct smc_net *smc_net(const struct net *net)
{
	return net_generic(net, smc_net_id);
}

/*
 * Module init and exit: the pernet state of every namespace (with its
 * sysctls and PNET table), the netdevice notifier and the SMC_PNETID
 * generic netlink family. smc_netns_init() undoes its own steps on failure.
 */
int smc_netns_init(void);
void smc_netns_exit(void);

/* smc_sysctl.c */
void smc_sysctl_defaults(struct smc_net *sn);
int smc_sysctl_net_init(struct net *net, struct smc_net *sn);
void smc_sysctl_net_exit(struct smc_net *sn);

#endif /* _SMC_NETNS_H */
