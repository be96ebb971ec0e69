/* SPDX-License-Identifier: GPL-2.0 */
/* af_smc: debugfs views for tests (smc_debugfs.c). */
#ifndef _SMC_DEBUGFS_H
#define _SMC_DEBUGFS_H

void smc_debugfs_init(void);
void smc_debugfs_exit(void);

#endif /* _SMC_DEBUGFS_H */
