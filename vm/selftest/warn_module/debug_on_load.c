// SPDX-License-Identifier: GPL-2.0
/*
 * A module that exists only to be a failing test of the debug kernel's
 * detectors that neither panic nor taint (make check-debug; vm/selftest/run
 * loads it there):
 *   what=leak     kmalloc()s whose pointers are dropped at once: kmemleak's
 *                 scan after the command names them ("unreferenced object")
 *   what=lockdep  two mutexes taken in one order, then in the other: lockdep
 *                 reports the inversion ("possible circular locking
 *                 dependency") and turns itself off (debug_locks 0)
 * Never shipped, never loaded outside that test.
 */
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>

static char *what = "leak";
module_param(what, charp, 0444);
MODULE_PARM_DESC(what, "leak or lockdep: what to do at load time");

static DEFINE_MUTEX(debug_on_load_a);
static DEFINE_MUTEX(debug_on_load_b);

static noinline void leak(void)
{
	int i;

	/*
	 * Sixteen, each written through so that it is not optimized away: the
	 * last pointer may linger in a register or in a stack the kernel
	 * keeps for reuse, where kmemleak's scan still finds it; the others
	 * are referenced by nothing.
	 */
	for (i = 0; i < 16; i++) {
		char *p = kmalloc(512, GFP_KERNEL);

		if (p)
			memset(p, 0x5a, 512);
		OPTIMIZER_HIDE_VAR(p);
	}
}

static void invert(void)
{
	mutex_lock(&debug_on_load_a);
	mutex_lock(&debug_on_load_b);
	mutex_unlock(&debug_on_load_b);
	mutex_unlock(&debug_on_load_a);

	mutex_lock(&debug_on_load_b);
	mutex_lock(&debug_on_load_a);
	mutex_unlock(&debug_on_load_a);
	mutex_unlock(&debug_on_load_b);
}

static int __init debug_on_load_init(void)
{
	if (!strcmp(what, "lockdep"))
		invert();
	else
		leak();
	return 0;
}

static void __exit debug_on_load_exit(void)
{
}

module_init(debug_on_load_init);
module_exit(debug_on_load_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("smc-linux harness self-test: a deliberate leak or lock inversion");
