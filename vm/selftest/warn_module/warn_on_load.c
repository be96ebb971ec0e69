// SPDX-License-Identifier: GPL-2.0
/*
 * A module that exists only to be a failing test: loading it hits a WARN_ON,
 * which the test kernel (panic_on_warn=1) turns into a panic. The harness
 * self-test loads it and expects vm/run and the selftest runner to report a
 * failure. Never shipped, never loaded outside that test.
 */
#include <linux/bug.h>
#include <linux/module.h>

static bool trigger = true;
module_param(trigger, bool, 0444);
MODULE_PARM_DESC(trigger, "hit a WARN_ON at load time (default: yes)");

static int __init warn_on_load_init(void)
{
	WARN_ON(trigger);
	return 0;
}

static void __exit warn_on_load_exit(void)
{
}

module_init(warn_on_load_init);
module_exit(warn_on_load_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("smc-linux harness self-test: a deliberate WARN_ON");
