// SPDX-License-Identifier: GPL-2.0
/*
 * smc_window: holds af_smc in one race window on purpose, so the selftest
 * of that race hits it every time instead of once in a million. Test-only;
 * never part of af_smc. The parameter "window" (at load) selects it:
 *
 *   listener  (default) a listener's handshake work held right after it
 *             unlocked the listener (security/listener)
 *   write     an SMC-R RDMA WRITE held at one point of its way to the post
 *             while its link's device goes (smcr/writegone_topo1)
 *   move      an SMC-D writer held right after it switched to the ring its
 *             reader offered, before its cursors follow (smcd/movewin_2vm)
 *
 * Both are read by the counters below ("held", "busy", and each window's
 * own), so a test can show it really was inside the window.
 *
 * Window "listener". A listener's child, its handshake done, is put on the
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
 * Its counters:
 *   held   how many times a work was held after the unlock (one at a time)
 *   freed  how many times the socket whose lock that work had just released
 *          lost its last reference (sk_free()) while the work was held
 *   busy   1 while a work is held (a test waits for 0 before its next
 *          cycle: a work arriving meanwhile is let through unheld)
 * Only sockets of family PF_SMC are looked at; everything else passes.
 *
 * Window "write". smcr_buf_write() (an RDMA WRITE of a connection's data,
 * or of the debugfs link file's "write") needs the link's PD, the buffer's
 * DMA mapping and the device until its post; the link's teardown (also
 * when the device is removed) releases them (Documentation/security.md,
 * "An RDMA WRITE read the PD and device without the teardown's lock").
 * We hold the WRITE once, at the point given by "at" (a function, entered
 * from inside smcr_buf_write(), default down_read: the entry of the lock
 * the post takes) plus "at_offset" (bytes into it: an instruction, for a
 * point between two loads), until af_smc has released a PD (the
 * teardown's last step) and SW_SETTLE_MS more, or delay_ms. With
 * until_waiter=1 the hold also ends (SW_SETTLE_MS after) once the teardown
 * entered down_write(): for a WRITE held under verbs_sem, which the
 * teardown cannot pass, that is the event the case waits for, and a bound
 * counted from the hold's start would let a slow removal arrive after it
 * (session 43: under load `rdma link del` began 400 ms into a 1 s hold and
 * reached the lock after it). The WRITE is
 * told by current: a kretprobe on smcr_buf_write() names the task in it.
 * A kprobe handler cannot sleep, hence a busy wait, bounded by the clock
 * (a delay loop's length follows the host's load under TCG); the device's
 * removal runs on the other CPU meanwhile.
 *
 * Its counters:
 *   held      how many WRITEs were held (one at a time, once each)
 *   pd_freed  how many PDs af_smc released (ib_dealloc_pd() returned)
 *             while a WRITE was held
 *   waited    how many down_write()s af_smc entered while a WRITE was held
 *             (its only one is the link teardown's, on verbs_sem), counted
 *             when they return: the teardown reached the lock in the window.
 *             af_smc's is told by the return address on the stack at the
 *             entry (x86: the probe fires at the call's target), since a
 *             shell's exec takes other down_write()s meanwhile
 *   busy      1 while a WRITE is held
 *
 * Window "move". A reader that grows its ring offers a bigger DMB; its
 * writer moves there in smc_tx_move_ring(): smcd_switch_tx() points the
 * connection's CDCs at the new DMB, then the cursors are made to count in
 * the new ring. A CDC sent in between (the same socket's reads send them)
 * would count in the old ring and land in the new one (Documentation/
 * smc-d.md, "Rings that grow"). A kretprobe on smcd_switch_tx() holds every
 * successful return for delay_ms, and counts the CDCs af_smc sends
 * (smcd_cdc_send()) from other tasks meanwhile.
 *
 * Its counters:
 *   held      how many switches were held
 *   cdcs      how many CDCs went out from another task while one was
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/atomic.h>
#include <linux/delay.h>
#include <linux/kallsyms.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/ptrace.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <linux/timekeeping.h>
#include <linux/workqueue.h>
#include <net/sock.h>

static char sw_window[16] = "listener";
module_param_string(window, sw_window, sizeof(sw_window), 0444);
MODULE_PARM_DESC(window, "the window to widen: listener (default), write or move");

static unsigned int delay_ms = 20;
module_param(delay_ms, uint, 0644);
MODULE_PARM_DESC(delay_ms, "listener, move: how long a handshake work is held after it unlocked the listener, a writer after its switch (ms, at most 200); write: how long a WRITE is held at most (ms, at most 5000)");

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
MODULE_PARM_DESC(held, "times a handshake work (listener), a WRITE (write) or a switch to a new ring (move) was held in the window");
module_param_cb(freed, &sw_count_ops, &sw_freed_count, 0444);
MODULE_PARM_DESC(freed, "times the unlocked socket was freed while its work was held");

/* The socket whose unlock a work is held after; NULL when none is. */
static struct sock *sw_sk;
/* The task held in its WRITE; NULL when none is. */
static struct task_struct *sw_held_task;

static int sw_get_busy(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", READ_ONCE(sw_sk) || READ_ONCE(sw_held_task));
}

static const struct kernel_param_ops sw_busy_ops = {
	.get = sw_get_busy,
};
module_param_cb(busy, &sw_busy_ops, NULL, 0444);
MODULE_PARM_DESC(busy, "1 while a handshake work or a WRITE is held");

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

/* ---- window "write" ---- */

/* The hold ends this long after the PD went: the teardown's last stores. */
#define SW_SETTLE_MS	20
#define SW_WRITE_MAX_MS	5000U

static char sw_at[KSYM_NAME_LEN] = "down_read";
module_param_string(at, sw_at, sizeof(sw_at), 0444);
MODULE_PARM_DESC(at, "write: the function, entered inside smcr_buf_write(), where the WRITE is held (default down_read)");
static unsigned int sw_at_offset;
module_param_named(at_offset, sw_at_offset, uint, 0444);
MODULE_PARM_DESC(at_offset, "write: bytes into \"at\" (an instruction boundary; default 0, its entry)");

static bool sw_until_waiter;
module_param_named(until_waiter, sw_until_waiter, bool, 0444);
MODULE_PARM_DESC(until_waiter, "write: the hold also ends once af_smc entered down_write() (the teardown reached verbs_sem)");

static atomic_t sw_pd_freed_count = ATOMIC_INIT(0);
module_param_cb(pd_freed, &sw_count_ops, &sw_pd_freed_count, 0444);
MODULE_PARM_DESC(pd_freed, "PDs af_smc released while a WRITE was held");
static atomic_t sw_waited_count = ATOMIC_INIT(0);
module_param_cb(waited, &sw_count_ops, &sw_waited_count, 0444);
MODULE_PARM_DESC(waited, "down_write()s af_smc entered while a WRITE was held");

/* The task inside smcr_buf_write() we follow, one at a time. */
static struct task_struct *sw_writer;
/* Whether sw_writer was held already (written by sw_writer only). */
static bool sw_writer_held;
/* Set when af_smc released a PD during the current hold. */
static bool sw_pd_gone;
/* Set when af_smc entered down_write() from another task during the hold. */
static bool sw_waiter_in;

static int sw_write_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	if (cmpxchg(&sw_writer, NULL, current))
		return 1;	/* another WRITE is followed: this one passes */
	sw_writer_held = false;
	return 0;
}

static int sw_write_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	WRITE_ONCE(sw_writer, NULL);
	return 0;
}

static struct kretprobe sw_write_probe = {
	.kp.symbol_name = "smcr_buf_write",
	.entry_handler	= sw_write_entry,
	.handler	= sw_write_return,
	.maxactive	= 16,
};

/* Whether the event the hold waits for came. */
static bool sw_hold_done(void)
{
	return READ_ONCE(sw_pd_gone) ||
	       (sw_until_waiter && READ_ONCE(sw_waiter_in));
}

static int sw_write_hold(struct kprobe *p, struct pt_regs *regs)
{
	u64 end;

	/* Only the followed WRITE, and only at its first pass. */
	if (current != READ_ONCE(sw_writer) || sw_writer_held)
		return 0;
	sw_writer_held = true;
	WRITE_ONCE(sw_pd_gone, false);
	WRITE_ONCE(sw_waiter_in, false);
	WRITE_ONCE(sw_held_task, current);
	atomic_inc(&sw_held_count);
	end = ktime_get_mono_fast_ns() +
	      (u64)min(READ_ONCE(delay_ms), SW_WRITE_MAX_MS) * NSEC_PER_MSEC;
	while (!sw_hold_done() && ktime_get_mono_fast_ns() < end)
		udelay(100);
	if (sw_hold_done())
		mdelay(SW_SETTLE_MS);
	WRITE_ONCE(sw_held_task, NULL);
	return 0;
}

static struct kprobe sw_hold_probe = {
	.pre_handler	= sw_write_hold,
};

/* Whether an address is af_smc's code. */
static bool sw_in_af_smc(unsigned long addr)
{
	char sym[KSYM_SYMBOL_LEN];

	sprint_symbol(sym, addr);
	return strstr(sym, "[af_smc]") != NULL;
}

/* Whether the probed call returns into af_smc. */
static bool sw_from_af_smc(struct kretprobe_instance *ri)
{
	return sw_in_af_smc(get_kretprobe_retaddr(ri));
}

/* ib_dealloc_pd() returned: a PD is gone; counted if af_smc's, in a hold. */
static int sw_pd_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	if (!READ_ONCE(sw_held_task) || !sw_from_af_smc(ri))
		return 0;
	atomic_inc(&sw_pd_freed_count);
	WRITE_ONCE(sw_pd_gone, true);
	return 0;
}

static struct kretprobe sw_pd_probe = {
	.kp.symbol_name = "ib_dealloc_pd_user",
	.handler	= sw_pd_return,
	.maxactive	= 16,
};

/* Only a down_write() entered by another task during a hold is followed. */
static int sw_down_write_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct task_struct *held = READ_ONCE(sw_held_task);

	if (!held || held == current)
		return 1;
	/* At the entry the return address is the top of the stack. */
	if (sw_in_af_smc(regs_get_kernel_stack_nth(regs, 0)))
		WRITE_ONCE(sw_waiter_in, true);
	return 0;
}

static int sw_down_write_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	if (sw_from_af_smc(ri))
		atomic_inc(&sw_waited_count);
	return 0;
}

static struct kretprobe sw_down_write_probe = {
	.kp.symbol_name = "down_write",
	.entry_handler	= sw_down_write_entry,
	.handler	= sw_down_write_return,
	.maxactive	= 16,
};

static int sw_write_init(void)
{
	int rc;

	/* The teardown's probes first: every hold must see them. */
	rc = register_kretprobe(&sw_pd_probe);
	if (rc) {
		pr_err("cannot probe ib_dealloc_pd_user: %d\n", rc);
		return rc;
	}
	rc = register_kretprobe(&sw_down_write_probe);
	if (rc) {
		pr_err("cannot probe down_write: %d\n", rc);
		goto out_pd;
	}
	sw_hold_probe.symbol_name = sw_at;
	sw_hold_probe.offset = sw_at_offset;
	rc = register_kprobe(&sw_hold_probe);
	if (rc) {
		pr_err("cannot probe %s+%#x: %d\n", sw_at, sw_at_offset, rc);
		goto out_down_write;
	}
	rc = register_kretprobe(&sw_write_probe);
	if (rc) {
		pr_err("cannot probe smcr_buf_write (is af_smc loaded?): %d\n", rc);
		goto out_hold;
	}
	return 0;
out_hold:
	unregister_kprobe(&sw_hold_probe);
out_down_write:
	unregister_kretprobe(&sw_down_write_probe);
out_pd:
	unregister_kretprobe(&sw_pd_probe);
	return rc;
}

static void sw_write_exit(void)
{
	/* Each waits until no handler of ours runs any more. */
	unregister_kretprobe(&sw_write_probe);
	unregister_kprobe(&sw_hold_probe);
	unregister_kretprobe(&sw_down_write_probe);
	unregister_kretprobe(&sw_pd_probe);
}

/* ---- window "move" ---- */

static atomic_t sw_cdcs_count = ATOMIC_INIT(0);
module_param_cb(cdcs, &sw_count_ops, &sw_cdcs_count, 0444);
MODULE_PARM_DESC(cdcs, "move: CDCs sent by other tasks while a switch was held");

/* The task held after its switch; NULL when none is. */
static struct task_struct *sw_mover;

static int sw_move_return(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	if (regs_return_value(regs) || cmpxchg(&sw_mover, NULL, current))
		return 0;	/* a failed switch, or one held already */
	atomic_inc(&sw_held_count);
	mdelay(min(delay_ms, 200u));
	WRITE_ONCE(sw_mover, NULL);
	return 0;
}

static struct kretprobe sw_move_probe = {
	.kp.symbol_name	= "smcd_switch_tx",
	.handler	= sw_move_return,
	.maxactive	= 16,
};

static int sw_cdc_send(struct kprobe *p, struct pt_regs *regs)
{
	struct task_struct *t = READ_ONCE(sw_mover);

	if (t && t != current)
		atomic_inc(&sw_cdcs_count);
	return 0;
}

static struct kprobe sw_cdc_probe = {
	.symbol_name	= "smcd_cdc_send",
	.pre_handler	= sw_cdc_send,
};

static int sw_move_init(void)
{
	int rc;

	rc = register_kprobe(&sw_cdc_probe);
	if (rc) {
		pr_err("cannot probe smcd_cdc_send: %d\n", rc);
		return rc;
	}
	rc = register_kretprobe(&sw_move_probe);
	if (rc) {
		pr_err("cannot probe smcd_switch_tx: %d\n", rc);
		unregister_kprobe(&sw_cdc_probe);
	}
	return rc;
}

static void sw_move_exit(void)
{
	unregister_kretprobe(&sw_move_probe);
	unregister_kprobe(&sw_cdc_probe);
}

/* ---- window "listener" ---- */

static int sw_listener_init(void)
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

static void sw_listener_exit(void)
{
	/* Waits until no handler of ours runs any more. */
	unregister_kretprobe(&sw_unlock_probe);
	unregister_kprobe(&sw_free_probe);
}

static bool sw_write_window, sw_move_window;

static int __init sw_init(void)
{
	if (!strcmp(sw_window, "write")) {
		sw_write_window = true;
		return sw_write_init();
	}
	if (!strcmp(sw_window, "move")) {
		sw_move_window = true;
		return sw_move_init();
	}
	if (!strcmp(sw_window, "listener"))
		return sw_listener_init();
	pr_err("unknown window \"%s\" (listener, write or move)\n", sw_window);
	return -EINVAL;
}

static void __exit sw_exit(void)
{
	if (sw_write_window)
		sw_write_exit();
	else if (sw_move_window)
		sw_move_exit();
	else
		sw_listener_exit();
}

module_init(sw_init);
module_exit(sw_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("widens one of af_smc's race windows, for af_smc selftests");
