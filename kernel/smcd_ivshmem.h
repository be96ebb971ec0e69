/* SPDX-License-Identifier: GPL-2.0 */
/* af_smc: QEMU's ivshmem-doorbell device, for SMC-D between VMs (smcd_ivshmem.c). */
#ifndef _SMCD_IVSHMEM_H
#define _SMCD_IVSHMEM_H

struct seq_file;

int smcd_ivshmem_init(void);
void smcd_ivshmem_exit(void);
/* debugfs "ivshmem": each bound device, its peers' headers, its interrupts. */
void smcd_ivshmem_show(struct seq_file *m);
/* Ring vector of peer through the first bound device's doorbell. */
int smcd_ivshmem_ring(unsigned int peer, unsigned int vector);

#endif
