/* SPDX-License-Identifier: GPL-2.0 */
/* af_smc: the SMC_GEN_NETLINK family (smc_gnl.c). */
#ifndef _SMC_GNL_H
#define _SMC_GNL_H

struct genl_family;
extern struct genl_family smc_gnl_family;

int smc_gnl_init(void);
void smc_gnl_exit(void);

#endif
