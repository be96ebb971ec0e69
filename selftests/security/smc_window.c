// SPDX-License-Identifier: GPL-2.0
/*
 * smc_window: holds af_smc in one race window on purpose, so the selftest
 * of that race (security/listener) hits it every time instead of once in
 * a million. Test-only; never part of af_smc.
 *
 * The window: a listener's child, its handshake done, is put on the
 * listener's "ready" list in smc_listen_child_done(), which then releases
 * the listener's socket lock. From that unlock on, accept() may take the
 * child and drop the child's reference on the listener, and the listener's
 * close() may drop the last one: the handshake work must not touch the
 * listener after it (Documentation/security.md, "The listener freed under
 * its handshake work"). In real time the gap is a few instructions.
 *
 * We widen it: a kretprobe on release_sock() holds, for delay_ms, the
 * return of every release_sock() of a PF_SMC socket that a worker makes
 * while it runs smc_listen_child_work(); in that work the only such socket
 * is the listener, released by smc_listen_child_done(). The work is told
 * by current_work(), not by the return address: the compiler may inline
 * smc_listen_child_done() or make release_sock() its tail call, and then
 * the call returns straight into the workqueue. A return handler runs with
 * preemption off and cannot sleep, hence mdelay(): the VM has two CPUs, so
 * the test's accept() and close() run on the other one meanwhile.
 *
 * Read-only, so a test can show it really was inside the window:
 *   held   how many times a work was held after the unlock (one at a time)
 *   freed  how many times the socket whose lock that work had just released
 *          lost its last reference (sk_free()) while the work was held
 *   busy   1 while a work is held (a test waits for 0 before its next
 *          cycle: a work arriving meanwhile is let through unheld)
 * Only sockets of family PF_SMC are looked at; everything else passes.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/delay.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/ptrace.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <linux/workqueue.h>
#include <net/sock.h>

static unsigned int delay_ms = 20;
module_param(delay_ms, uint, 0644);
MODULE_PARM_DESC(delay_ms, "how long a handshake work is held after it unlocked the listener (ms, at most 200)");

static atomic_t sw_held_count = ATOMIC_INIT(0);
static atomic_t sw_freed_count = ATOMIC_INIT(0);

static int sw_get_count(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", atomic_read((atomic_t *)kp->arg));
}

static const struct kernel_param_ops sw_count_ops = {
	.get = sw_get_count,
};
module_param_cb(held, &sw_count_ops, &sw_held_count, 0444);
MODULE_PARM_DESC(held, "times a handshake work was held in the window");
module_param_cb(freed, &sw_count_ops, &sw_freed_count, 0444);
MODULE_PARM_DESC(freed, "times the unlocked socket was freed while its work was held");

/* The socket whose unlock a work is held after; NULL when none is. */
static struct sock *sw_sk;

static int sw_get_busy(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", READ_ONCE(sw_sk) != NULL);
}

static const struct kernel_param_ops sw_busy_ops = {
	.get = sw_get_busy,
};
module_param_cb(busy, &sw_busy_ops, NULL, 0444);
MODULE_PARM_DESC(busy, "1 while a handshake work is held");

/* Whether the current task is a worker running a listener's child work. */
static bool sw_in_child_work(void)
{
	static const char name[] = "smc_listen_child_work";
	struct work_struct *work = current_work();
	char sym[64];
	size_t n = strlen(name);

	if (!work)
		return false;
	snprintf(sym, sizeof(sym), "%ps", work->func);
	/* "name", "name [af_smc]", or a clone such as "name.isra.0" */
	return !strncmp(sym, name, n) &&
	       (!sym[n] || sym[n] == ' ' || sym[n] == '.');
}

static int sw_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct sock *sk = (struct sock *)regs_get_kernel_argument(regs, 0);

	/* Not ours: no return probe for this call. */
	if (READ_ONCE(sk->sk_family) != PF_SMC || !sw_in_child_work())
		return 1;
	*(struct sock **)ri->data = sk;
	return 0;
}

static int sw_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct sock *sk = *(struct sock **)ri->data;

	/* One at a time: a second work passes, so nothing piles up. */
	if (cmpxchg(&sw_sk, NULL, sk))
		return 0;
	atomic_inc(&sw_held_count);
	/* sk is only compared from here on, never read: it may be gone. */
	mdelay(min(READ_ONCE(delay_ms), 200U));
	WRITE_ONCE(sw_sk, NULL);
	return 0;
}

static struct kretprobe sw_unlock_probe = {
	.kp.symbol_name = "release_sock",
	.entry_handler	= sw_entry,
	.handler	= sw_return,
	.data_size	= sizeof(struct sock *),
	.maxactive	= 64,
};

/* sk_free() is entered when a socket's last reference goes. */
static int sw_sk_free(struct kprobe *p, struct pt_regs *regs)
{
	struct sock *sk = (struct sock *)regs_get_kernel_argument(regs, 0);

	if (sk == READ_ONCE(sw_sk))
		atomic_inc(&sw_freed_count);
	return 0;
}

static struct kprobe sw_free_probe = {
	.symbol_name	= "sk_free",
	.pre_handler	= sw_sk_free,
};

static int __init sw_init(void)
{
	int rc;

	/* The free probe first: every hold must be seen by it. */
	rc = register_kprobe(&sw_free_probe);
	if (rc) {
		pr_err("cannot probe sk_free: %d\n", rc);
		return rc;
	}
	rc = register_kretprobe(&sw_unlock_probe);
	if (rc) {
		pr_err("cannot probe release_sock: %d\n", rc);
		unregister_kprobe(&sw_free_probe);
		return rc;
	}
	return 0;
}

static void __exit sw_exit(void)
{
	/* Waits until no handler of ours runs any more. */
	unregister_kretprobe(&sw_unlock_probe);
	unregister_kprobe(&sw_free_probe);
}

module_init(sw_init);
module_exit(sw_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("widens af_smc's listener race window, for af_smc selftests");
