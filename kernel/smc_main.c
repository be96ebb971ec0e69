// SPDX-License-Identifier: GPL-2.0
/*
 * af_smc: module load and unload.
 *
 * Loading registers the two struct protos (each with its own slab cache)
 * and then the PF_SMC family; every step is undone in reverse order on
 * failure and at unload.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/init.h>
#include <linux/module.h>
#include <linux/printk.h>
#include <linux/workqueue.h>
#include <net/tcp.h>

#include "smc.h"
#include "smc_clc_io.h"
#include "smc_debugfs.h"
#include "smcd_ivshmem.h"
#include "smc_gnl.h"
#include "smc_netns.h"
#include "smcd_ism.h"
#include "smcd_lgr.h"
#include "smcr_ib.h"
#include "smcr_lgr.h"
#include "smcr_link.h"

/*
 * Live smc socks (allocated and not yet destructed). Every sock also pins
 * the module, so a leak shows as an af_smc that rmmod refuses to unload;
 * this count says how many socks are behind it.
 */
atomic_t smc_live_socks = ATOMIC_INIT(0);

/*
 * Handshakes sleep in bounded CLC waits, so each needs its own worker;
 * listeners' accept work gets a queue of its own so that it is never
 * stuck behind them.
 */
struct workqueue_struct *smc_hs_wq;
struct workqueue_struct *smc_accept_wq;
/* Closed SMC connections waiting for their peer (smc_close.c). */
struct workqueue_struct *smc_close_wq;
/* Pushes of send buffers (smc_tx.c). */
struct workqueue_struct *smc_tx_wq;

static int __init smc_init(void)
{
	int rc;

	smc_clc_io_init();
	rc = -ENOMEM;
	smc_hs_wq = alloc_workqueue("af_smc_hs", WQ_UNBOUND, 0);
	if (!smc_hs_wq)
		goto out;
	smc_accept_wq = alloc_workqueue("af_smc_accept", 0, 0);
	if (!smc_accept_wq)
		goto out_hs_wq;
	smc_close_wq = alloc_workqueue("af_smc_close", 0, 0);
	if (!smc_close_wq)
		goto out_accept_wq;
	smc_tx_wq = alloc_workqueue("af_smc_tx", 0, 0);
	if (!smc_tx_wq)
		goto out_close_wq;
	rc = proto_register(&smc_proto, 1);
	if (rc)
		goto out_tx_wq;
	rc = proto_register(&smc_proto6, 1);
	if (rc)
		goto out_proto;
	rc = smc_netns_init();
	if (rc)
		goto out_proto6;
	/* After the PNET table, which matching RDMA ports reads. */
	rc = smcr_link_init();
	if (rc)
		goto out_netns;
	rc = smcr_ib_init();
	if (rc)
		goto out_link;
	rc = smcr_lgr_init();
	if (rc)
		goto out_ib;
	smc_debugfs_init();
	/* SMC_GEN_NETLINK reads the namespace state and the RDMA devices. */
	rc = smc_gnl_init();
	if (rc)
		goto out_smcr_lgr;
	rc = sock_register(&smc_family);
	if (rc) {
		if (rc == -EEXIST)
			pr_err("AF_SMC is already registered, most likely by the kernel's own smc module; unload it (rmmod smc_diag smc) before loading af_smc\n");
		goto out_gnl;
	}
	rc = smc_inet_init();
	if (rc)
		goto out_sock;
	rc = smc_diag_init();
	if (rc)
		goto out_inet;
	rc = smcd_lgr_init();
	if (rc)
		goto out_diag;
	rc = smcd_loopback_init();
	if (rc)
		goto out_lgr;
	rc = smcd_ivshmem_init();
	if (rc)
		goto out_loopback;
	/* From here on TCP puts the SMC option into SYNs we ask it to. */
	static_branch_inc(&tcp_have_smc);
	if (SMC_WAIT_SCALE != 1)
		pr_info("network wait bounds scaled by %d (a debug build, smc_wait.h)\n",
			SMC_WAIT_SCALE);
	return 0;

out_loopback:
	smcd_loopback_exit();
out_lgr:
	smcd_lgr_exit();
out_diag:
	smc_diag_exit();
out_inet:
	smc_inet_exit();
out_sock:
	sock_unregister(PF_SMC);
out_gnl:
	smc_gnl_exit();
out_smcr_lgr:
	smc_debugfs_exit();
	smcr_lgr_exit();
out_ib:
	smcr_ib_exit();
out_link:
	smcr_link_exit();
out_netns:
	smc_netns_exit();
out_proto6:
	proto_unregister(&smc_proto6);
out_proto:
	proto_unregister(&smc_proto);
out_tx_wq:
	destroy_workqueue(smc_tx_wq);
out_close_wq:
	destroy_workqueue(smc_close_wq);
out_accept_wq:
	destroy_workqueue(smc_accept_wq);
out_hs_wq:
	destroy_workqueue(smc_hs_wq);
out:
	return rc;
}

static void __exit smc_exit(void)
{
	smc_diag_exit();
	/* Link groups hold device references: they go first. */
	smcd_lgr_exit();
	smcd_ivshmem_exit();
	smcd_loopback_exit();
	/* No new sockets after this; sock_unregister waits out creators. */
	smc_inet_exit();
	sock_unregister(PF_SMC);
	/*
	 * Every sock holds a module reference, so none can be left here. If
	 * one were, kmem_cache_destroy() in proto_unregister() would report
	 * the leftover objects.
	 */
	WARN_ON_ONCE(atomic_read(&smc_live_socks));
	static_branch_dec(&tcp_have_smc);
	/*
	 * A work item may still be returning from the sock_put() that freed
	 * the last sock (and so allowed this unload); destroying the queues
	 * waits for it.
	 */
	destroy_workqueue(smc_tx_wq);
	destroy_workqueue(smc_close_wq);
	destroy_workqueue(smc_accept_wq);
	destroy_workqueue(smc_hs_wq);
	smc_gnl_exit();
	smc_debugfs_exit();
	/* SMC-R groups (empty now) end their links while the devices are there. */
	smcr_lgr_exit();
	/* Removes our state of every RDMA device still registered. */
	smcr_ib_exit();
	smcr_link_exit();
	smc_netns_exit();
	proto_unregister(&smc_proto6);
	proto_unregister(&smc_proto);
}

module_init(smc_init);
module_exit(smc_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Shared Memory Communications (AF_SMC) sockets");
