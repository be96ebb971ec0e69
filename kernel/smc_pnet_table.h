/* SPDX-License-Identifier: GPL-2.0 */
/*
 * af_smc: the PNET table's entries and the operations the SMC_PNETID
 * netlink family (smc_pnet_nl.c) performs on them. Private to smc_pnet*.c;
 * the rest of the module uses the lookups in smc_pnet.h.
 */
#ifndef _SMC_PNET_TABLE_H
#define _SMC_PNET_TABLE_H

#include <linux/if.h>
#include <linux/list.h>
#include <linux/rcupdate.h>
#include <rdma/ib_verbs.h>	/* IB_DEVICE_NAME_MAX */

#include "smc_pnet.h"

struct netlink_ext_ack;
struct smc_pnettable;

/* Ports of an RDMA device an entry may name, as in Linux (SMC_MAX_PORTS). */
#define SMC_PNET_MAX_PORTS	2

enum smc_pnet_type {
	SMC_PNET_ETH,		/* a network device */
	SMC_PNET_IB,		/* an RDMA device port or an ISM device */
};

struct smc_pnetentry {
	struct list_head	list;	/* in smc_pnettable.entries (RCU) */
	struct rcu_head		rcu;
	enum smc_pnet_type	type;
	/* Upper case, NUL-padded. */
	char			pnetid[SMC_MAX_PNETID_LEN + 1];
	union {
		struct {
			char	name[IFNAMSIZ];	/* as the user gave it */
			/* The bound device, 0 while none (see smc_pnet.c). */
			int	ifindex;
		} eth;
		struct {
			char	name[IB_DEVICE_NAME_MAX];
			u8	port;		/* 1-based; ISM devices: 1 */
		} ib;
	};
};

struct smc_pnettable *smc_pnettable(const struct net *net);
bool smc_pnetid_parse(const char *in, char out[SMC_MAX_PNETID_LEN + 1]);
bool smc_pnetid_match(const char *stored, const char *given);

/*
 * Add an entry. 0 (extack may then carry a warning), -EEXIST when the
 * device is listed already (nothing changes), or -ENOMEM.
 */
int smc_pnet_add_eth(struct net *net, const char *pnetid, const char *name,
		     struct netlink_ext_ack *extack);
int smc_pnet_add_ib(struct net *net, const char *pnetid, const char *name,
		    u8 port, struct netlink_ext_ack *extack);
/* Remove the entries whose PNET ID matches pnetid (all when NULL); how many. */
int smc_pnet_remove(struct smc_pnettable *table, const char *pnetid);

/* smc_pnet_nl.c */
int smc_pnet_nl_init(void);
void smc_pnet_nl_exit(void);

#endif /* _SMC_PNET_TABLE_H */
