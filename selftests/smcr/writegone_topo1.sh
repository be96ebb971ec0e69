#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# smcr/writegone_topo1.sh: an RDMA WRITE whose link's device is removed
# while the WRITE is on its way to the post (Documentation/security.md,
# "An RDMA WRITE read the PD and device without the teardown's lock").
# One VM, topology 1 (topo_veth_rxe): link A on rxev1 (smcv1), link B on
# rxev2 (smcv2), driven by af_smc's debugfs file "link" as smcr/link.sh
# does, to RTS and confirmed. A's "write" is smcr_buf_write(), the WRITE
# of every connection's data. smc_window.ko (window=write) holds that
# WRITE once at a given point ("at" plus "at_offset") until af_smc has
# released a PD, and meanwhile the test runs `rdma link del rxev1`:
#   - held at the entry of down_read() (the lock the post takes; the point
#     exists in the code before the fix too): the whole teardown runs in
#     the window (smc_window's pd_freed: A's PD went while the WRITE was
#     held); the WRITE then fails with ENOLINK, nothing reached B's RMB,
#     A is GONE, no report;
#   - held inside the fill-in (smcr_buf_write_prep(), under verbs_sem with
#     the link ACTIVE): the removal reaches verbs_sem in the hold
#     (smc_window's waited) and waits for the post (no PD went while the
#     WRITE was held), and the WRITE either completed (B has the bytes) or
#     ended with ENOLINK when the QP went;
#   - smc_window and af_smc unload, af_smc loads again.
# With arguments AT [OFFSET] only the first case runs, held at AT+OFFSET:
# on the code before the fix, AT=smcr_buf_write and OFFSET the instruction
# that loads the link's PD (after the buffer's "mapped" check) is the
# window the fix closed (security.md gives the figures).
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/topology.sh"
. "$here/../lib/module.sh"

AT=${1:-down_read}
AT_OFFSET=${2:-0}
[ "$(id -u)" = 0 ] || tap_skip_all "needs root"
[ "${SMC_MODULE:-ours}" = ours ] || tap_skip_all "the link file is af_smc's own"
module=${SMC_MODULE_FILE:-}
[ -f "$module" ] || smc_missing_all "no module file (SMC_MODULE_FILE)"
window=$(dirname "$module")/smc_window.ko
[ -f "$window" ] || smc_missing_all "no smc_window.ko next to $module"
[ "$(grep -c '^processor' /proc/cpuinfo)" -ge 2 ] ||
	tap_skip_all "one CPU: the held WRITE would hold the CPU the removal needs"
L=/sys/kernel/debug/af_smc/link
P=/sys/module/smc_window/parameters
LEN=65536
SEED=11
# The holds' bounds (ms): until the PD goes, which the removal of rxev1
# must reach in it under TCG; under verbs_sem, until the removal reached
# the lock (smc_window's until_waiter ends the hold there; "waited" checks
# that it did), this only the bound. Both scaled as every bound of a run:
# on the debug kernel `rdma link del` took 2.5 s (session 42). The hold
# under the lock once ended at a fixed 1 s, counted from its start: under
# load the removal began 400 ms into it and came to the lock after it
# (session 43), hence the event.
HOLD_MS=$(tap_scaled 3000)
HOLD_LOCKED_MS=$(tap_scaled 4000)

# lk COMMAND: one link command; prints the answer; fails as the write did.
lk() {
	echo "$1" >$L
	rc=$?
	cat $L
	return $rc
}

cleanup() {
	rmmod smc_window 2>/dev/null
	echo 'destroy 0' >$L 2>/dev/null
	echo 'destroy 1' >$L 2>/dev/null
	topo_cleanup
	smc_module_ours || insmod "$module"
}
tap_at_exit cleanup

# Links A (0, rxev1) and B (1, rxev2) to RTS, confirmed, A's RMB filled;
# B's "created" answer (its rkey and RMB address) in $TMPDIR/link_b.
links_up() {
	grep -q ' /sys/kernel/debug debugfs' /proc/mounts ||
		tap_assert "debugfs" mount -t debugfs none /sys/kernel/debug
	tap_assert "rxev1 on smcv1, rxev2 on smcv2, routed over the veth" topo_veth_rxe
	a=$(lk "create 0 smcv1") || { tap_fail "create A: $a"; exit 1; }
	b=$(lk "create 1 smcv2") || { tap_fail "create B: $b"; exit 1; }
	echo "$b" >$TMPDIR/link_b
	set -- $a
	a_info="$3 $4 $5 $6 $7"
	set -- $b
	b_info="$3 $4 $5 $6 $7"
	r=$(lk "connect 0 $b_info") || { tap_fail "connect A: $r"; exit 1; }
	r=$(lk "connect 1 $a_info") || { tap_fail "connect B: $r"; exit 1; }
	r=$(lk "confirm 0") || { tap_fail "CONFIRM_LINK from A: $r"; exit 1; }
	r=$(lk "await 1") || { tap_fail "B saw no CONFIRM_LINK: $r"; exit 1; }
	r=$(lk "fill 0 $LEN $SEED") || { tap_fail "fill A's RMB: $r"; exit 1; }
	return 0
}

counter() {
	cat $P/$1
}

# held_write AT OFFSET MS [PARAM...]: A's WRITE of $LEN bytes into B's RMB,
# held by smc_window (PARAMs added) at AT+OFFSET (MS at most) while rxev1
# is removed. Leaves the WRITE's answer in $TMPDIR/answer, its status in
# $TMPDIR/status, and the counters in $held, $pd_freed and $waited.
held_write() {
	# A case that failed while it held may have left it loaded.
	if [ -d /sys/module/smc_window ]; then
		tap_assert "rmmod a smc_window left behind" rmmod smc_window
	fi
	at=$1 at_offset=$2 delay_ms=$3
	shift 3
	tap_assert "insmod smc_window window=write at=$at at_offset=$at_offset $*" \
		insmod "$window" window=write at="$at" at_offset="$at_offset" \
		delay_ms="$delay_ms" "$@"
	# shellcheck disable=SC2046 # the line's fields, split on purpose
	set -- $(cat $TMPDIR/link_b)
	rkey=$8 addr=$9
	(
		echo "write 0 $LEN $rkey $addr" 2>/dev/null >$L
		echo $? >$TMPDIR/status
		cat $L >$TMPDIR/answer
	) &
	writer=$!
	tap_wait_for 10 sh -c "[ \$(cat $P/busy) = 1 ]" ||
		{ tap_fail "smc_window held no WRITE within 10 s (held $(counter held))"; exit 1; }
	t0=$(_tap_now_cs)
	rdma link del rxev1 || tap_fail "rdma link del rxev1"
	t1=$(_tap_now_cs)
	wait $writer
	t2=$(_tap_now_cs)
	held=$(counter held) pd_freed=$(counter pd_freed) waited=$(counter waited)
	tap_diag "held $held, pd_freed $pd_freed, waited $waited; rdma link del took $(((t1 - t0) * 10)) ms, the WRITE returned $(((t2 - t0) * 10)) ms after it began: status $(cat $TMPDIR/status), '$(cat $TMPDIR/answer)'"
	tap_expect "rmmod smc_window" rmmod smc_window
	s=$(lk "stats 0")
	tap_diag "A: $s"
	echo "$s" | grep -q ' state 3 ' || tap_fail "link A is not GONE after its device's removal"
	[ "$held" = 1 ] || tap_fail "the WRITE was held $held times, not once"
	# The teardown took (or waited for) verbs_sem while the WRITE was held.
	[ "$waited" -ge 1 ] || tap_fail "the teardown did not reach verbs_sem while the WRITE was held"
	return 0
}

# ENOLINK is 67: a failed command's answer is "error CMD -ERRNO", with
# CMD cut to 15 characters.
enolink() {
	[ "$(cat $TMPDIR/status)" != 0 ] && grep -q '^error write .* -67$' $TMPDIR/answer
}

before_lock() {
	links_up
	held_write "$AT" "$AT_OFFSET" $HOLD_MS
	# The teardown set the link GONE and took verbs_sem while the WRITE was
	# held before it (held_write checks "waited"): the WRITE comes to the
	# lock after the removal, which is what the case is about. The PD
	# itself now goes only after the hold: between the QP and the CQ the
	# teardown waits for a tasklet on every CPU (smcr_tasklet_barrier()),
	# the held one included, so pd_freed is 0 here; on the old code, held
	# inside its window, the PD went during the hold.
	enolink || tap_fail "the WRITE did not fail with ENOLINK: status $(cat $TMPDIR/status), '$(cat $TMPDIR/answer)'"
	# Nothing was posted: B's RMB never got the bytes.
	r=$(lk "check 1 $LEN $SEED") && tap_fail "B's RMB has the bytes of a WRITE on a removed device"
	tap_diag "B's RMB: $r"
	lk "destroy 0" >/dev/null || tap_fail "destroy A"
	lk "destroy 1" >/dev/null || tap_fail "destroy B"
	return 0
}

under_lock() {
	links_up
	held_write smcr_buf_write_prep 0 $HOLD_LOCKED_MS until_waiter=1
	# verbs_sem kept the PD for the whole hold: the removal waited.
	[ "$pd_freed" = 0 ] || tap_fail "a PD of af_smc's went while the WRITE held verbs_sem"
	if [ "$(cat $TMPDIR/status)" = 0 ]; then
		r=$(lk "check 1 $LEN $SEED") || tap_fail "the WRITE succeeded but B's RMB: $r"
	else
		enolink || tap_fail "the WRITE failed other than with ENOLINK: '$(cat $TMPDIR/answer)'"
	fi
	lk "destroy 0" >/dev/null || tap_fail "destroy A"
	lk "destroy 1" >/dev/null || tap_fail "destroy B"
	return 0
}

unloads() {
	smc_module_rmmod || tap_fail "rmmod af_smc"
	tap_expect "insmod af_smc" insmod "$module"
	return 0
}

tap_case "a WRITE held at $AT+$AT_OFFSET while rxev1 is removed: ENOLINK, nothing posted" 180 before_lock
[ $# = 0 ] &&
	tap_case "a WRITE held in its fill-in, under verbs_sem: the removal waits for the post" 180 under_lock
tap_case "af_smc unloads and loads again" 60 unloads
tap_done
