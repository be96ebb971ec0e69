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

#include "smc.h"
#include "smc_netns.h"

/*
 * Live smc socks (allocated and not yet destructed). Every sock also pins
 * the module, so a leak shows as an af_smc that rmmod refuses to unload;
 * this count says how many socks are behind it.
 */
atomic_t smc_live_socks = ATOMIC_INIT(0);

static int __init smc_init(void)
{
	int rc;

	rc = proto_register(&smc_proto, 1);
	if (rc)
		goto out;
	rc = proto_register(&smc_proto6, 1);
	if (rc)
		goto out_proto;
	rc = smc_netns_init();
	if (rc)
		goto out_proto6;
	rc = sock_register(&smc_family);
	if (rc) {
		if (rc == -EEXIST)
			pr_err("AF_SMC is already registered, most likely by the kernel's own smc module; unload it (rmmod smc_diag smc) before loading af_smc\n");
		goto out_netns;
	}
	return 0;

out_netns:
	smc_netns_exit();
out_proto6:
	proto_unregister(&smc_proto6);
out_proto:
	proto_unregister(&smc_proto);
out:
	return rc;
}

static void __exit smc_exit(void)
{
	/* No new sockets after this; sock_unregister waits out creators. */
	sock_unregister(PF_SMC);
	/*
	 * Every sock holds a module reference, so none can be left here. If
	 * one were, kmem_cache_destroy() in proto_unregister() would report
	 * the leftover objects.
	 */
	WARN_ON_ONCE(atomic_read(&smc_live_socks));
	smc_netns_exit();
	proto_unregister(&smc_proto6);
	proto_unregister(&smc_proto);
}

module_init(smc_init);
module_exit(smc_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Shared Memory Communications (AF_SMC) sockets");
