/* SPDX-License-Identifier: GPL-2.0 */
/*
 * af_smc: the PNET table, and the SMC_PNETID generic netlink family that
 * edits it.
 *
 * A PNET ID names a physical network. SMC uses a local device (an RDMA
 * port for SMC-R, an ISM device for SMC-D) for a TCP connection only when
 * the device has the same PNET ID as the network device the connection
 * runs over. Hardware-defined PNET IDs exist only on s390; everywhere else
 * the administrator assigns them in this table, per network namespace.
 *
 * Each entry maps one device to a PNET ID:
 *   - a network device, by name, in the namespace that added it. The entry
 *     is bound to the device of that name while one exists (it follows the
 *     device across renames, like Linux does) and unbound when the device
 *     unregisters or leaves the namespace; it stays listed and binds again
 *     to a device registered under its name later;
 *   - an RDMA device port or an ISM device, by device name (and port).
 *     Those live only in the initial namespace's table, as in Linux.
 * A device name appears at most once per table.
 */
#ifndef _SMC_PNET_H
#define _SMC_PNET_H

#include <linux/types.h>

struct net;
struct net_device;
struct smc_pnettable;

/* Longest PNET ID; the lookups below fill a buffer one byte longer. */
#define SMC_MAX_PNETID_LEN	16

/*
 * The user-defined PNET ID of dev (or, when dev has none, of the first
 * device below it that has one: a VLAN or bond member inherits it), as a
 * NUL-terminated upper-case string in pnetid. 0, or -ENOENT when there is
 * none. Any context; takes no lock but RCU.
 */
int smc_pnetid_by_netdev(struct net_device *dev,
			 char pnetid[SMC_MAX_PNETID_LEN + 1]);

/*
 * The user-defined PNET ID of port "port" (1-based) of RDMA device
 * "ibname", or of ISM device "ibname" when port is 0 (ISM devices have no
 * ports). 0, or -ENOENT. Any context; takes no lock but RCU.
 */
int smc_pnetid_by_ibdev(const char *ibname, u8 port,
			char pnetid[SMC_MAX_PNETID_LEN + 1]);

/* smc_netns.c calls these. */
void smc_pnettable_init(struct smc_pnettable *table);
void smc_pnettable_destroy(struct smc_pnettable *table);
int smc_pnet_init(void);
void smc_pnet_exit(void);

#endif /* _SMC_PNET_H */
