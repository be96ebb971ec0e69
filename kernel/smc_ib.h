/* SPDX-License-Identifier: GPL-2.0 */
/*
 * af_smc: the RDMA devices SMC-R may use, as an ib_core client.
 *
 * ib_core tells its clients about every RDMA device that comes and goes;
 * we keep the list, so that SMC_GEN_NETLINK can list the devices now and
 * the SMC-R device layer (issue 5) can pick one later.
 */
#ifndef _SMC_IB_H
#define _SMC_IB_H

struct ib_device;

int smc_ib_init(void);
void smc_ib_exit(void);
/*
 * Call fn for each RDMA device from index *pos on, under the list's mutex
 * (fn may sleep; a device is not removed meanwhile); stop at the first
 * non-zero return, returned, with *pos the index of that device.
 */
int smc_ib_walk(long *pos, int (*fn)(struct ib_device *ibdev, void *arg),
		void *arg);

#endif
