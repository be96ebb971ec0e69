#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# smcr/v2_intree.sh: SMC-Rv2 between af_smc (smcr=1 loopback_ism=0) and
# Debian's smc.ko, two VMs, rxe0 on eth0 of each, the same UEID on both,
# and on the smc.ko side a PNET ID for eth0 and rxe0 port 1 (Linux 6.1
# ties rxe0 to eth0 no other way). The client is VM 0, the server VM 1;
# the topologies 2@ours,intree and 2@intree,ours run both directions.
#
# Both sides agree on the CLC (our debugfs counter v2_agreed; and Linux
# takes our SMC-Rv2 Proposal, Accept or
# Confirm and goes on to the first link. They cannot finish the link:
# Debian's 6.1 rxe lets smc.ko neither send its first LLC message (server:
# smc_llc_send_confirm_link -ENOLINK, rxe leaves cur_qp_state unset) nor
# see a received one (its receive CQ handler never runs), see
# Documentation/smc-r.md, "Interoperability with Linux's smc.ko over rxe",
# and smcr/intree_pair. So this test asserts what happens, per direction:
#   ours -> Linux: Linux reads our Proposal and Confirm (smc_clc_wait_msg
#     0 twice) and fails its CONFIRM_LINK send with -ENOLINK; ours waits
#     for the CONFIRM_LINK, gives up within 30 s, counts a failed
#     handshake and frees its link group; Linux's worker stays blocked.
#   Linux -> ours: ours sends CONFIRM_LINK (its rxe0 sends, Linux's rxe0
#     receives and acknowledges), smc.ko never sees it (no receive CQ
#     handler run), waits, and gets our Decline (smc_clc_wait_msg returns
#     SMC_CLC_DECL_PEERDECL 0x05000000); ours frees its link group within
#     30 s; Linux's connect() never returns.
# On our side every step is bounded and the module unloads afterwards. The wire is decoded by
# selftests/capture/smcr_intree_pcap.sh (ours intree / intree ours).
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/topology.sh"

[ "$(id -u)" = 0 ] || tap_skip_all "needs root"
[ "${SMC_VM_COUNT:-1}" -ge 2 ] || tap_skip_all "needs --vms 2"
case "${SMC_MODULE:-}/${SMC_PEER_MODULE:-}" in
ours/intree) OURS=0 LINUX=1 ;;
intree/ours) OURS=1 LINUX=0 ;;
*) tap_skip_all "runs with af_smc on one VM and Debian's smc.ko on the other" ;;
esac
module=${SMC_MODULE_FILE:-/smc/kernel/af_smc.ko}
T=$SMC_SELFTESTS/tools
EID=SMCRV2.INTEROP
port=4458
work=${TMPDIR:-/tmp}
. "$here/intree_probes.sh"

# on VM COMMAND: run COMMAND on VM 0 (here) or VM 1.
on() {
	if [ "$1" = 0 ]; then
		sh -c "$2"
	else
		smc-vm-exec 1 "$2"
	fi
}

cleanup() {
	smc-vm-exec 1 'kill $(cat /tmp/echo.pid) 2>/dev/null' >/dev/null 2>&1
	on $LINUX "$unprobe" >/dev/null 2>&1
	on $OURS 'smcd ueid flush' >/dev/null 2>&1
	# Linux's link group never goes (see above): its rxe0, PNET IDs and
	# UEID stay; removing rxe0 would block on smc.ko's device removal.
	on $OURS "rmmod af_smc; insmod $module" >/dev/null 2>&1
}
tap_at_exit cleanup

dbg='grep -q " /sys/kernel/debug debugfs" /proc/mounts || mount -t debugfs none /sys/kernel/debug'
hs_stats() { on $OURS "cat /sys/kernel/debug/af_smc/smcr_hs"; }
lgrs() { on $OURS "sed -n 's/^lgrs \([0-9]*\).*/\1/p' /sys/kernel/debug/af_smc/smcr_lgr"; }
no_lgr() { [ "$(lgrs)" = 0 ]; }

setup() {
	# af_smc's file has the same path on both VMs (vm/guest/init).
	tap_assert "af_smc smcr=1 on VM $OURS" on $OURS \
		"rmmod af_smc && insmod $module smcr=1 loopback_ism=0"
	tap_assert "debugfs on VM $OURS" on $OURS "$dbg"
	tap_assert "rxe0 on eth0 of both VMs" topo_vm_rxe
	tap_assert "PNET ID for eth0 and rxe0 on VM $LINUX (smc.ko)" on $LINUX \
		"smc_pnet -a NETX -I eth0 && smc_pnet -a NETX -D rxe0 -P 1"
	tap_assert "UEID $EID on VM 0" on 0 "smcd ueid add $EID"
	tap_assert "UEID $EID on VM 1" on 1 "smcd ueid add $EID"
	tap_assert "kprobes on smc.ko's VM $LINUX" on $LINUX "$probes"
	tap_assert "echo server on VM 1" smc-vm-exec 1 \
		"rm -f /tmp/ready; $T/smc-echo -s -k 0 -f smc -a 10.43.0.2 -p $port -r /tmp/ready -t 300 >/tmp/echo.log 2>&1 </dev/null & echo \$! >/tmp/echo.pid"
	tap_assert "the server is ready" smc-vm-exec 1 \
		"n=0; until [ -e /tmp/ready ]; do n=\$((n+1)); [ \$n -lt 600 ] || exit 1; sleep 0.05; done"
	return 0
}

# kprobe_records: smc.ko's kprobe records (but the rxe_cq_post ones), on
# stdout; fails, saying why, when they cannot be read or there are none, so
# that the checks that a record is absent never pass on an empty trace.
kprobe_records() {
	_all=$(on $LINUX "$records") ||
		{ tap_fail "cannot read smc.ko's kprobe records on VM $LINUX" >&2; return 1; }
	[ -n "$_all" ] || { tap_fail "smc.ko's kprobes on VM $LINUX recorded nothing" >&2; return 1; }
	echo "$_all" | grep -v '^cq_post'
	return 0
}
# no_rx_cq RECORDS: smc.ko's receive CQ handler never ran, with its kprobe
# enabled (the positive control: an absent probe records nothing either).
no_rx_cq() {
	[ "$(on $LINUX 'cat /sys/kernel/tracing/events/smcit/rx_cq/enable')" = 1 ] ||
		tap_fail "the kprobe on smc_wr_rx_cq_handler is not enabled"
	echo "$1" | grep -q '^rx_cq' && tap_fail "smc.ko's receive CQ handler ran"
	return 0
}
# counter NAME LINE: the number after NAME in "$counters" output, or "".
counter() { echo "$2" | sed -n "s/.*$1 \([0-9][0-9]*\).*/\1/p"; }

# Stacks are read only from a task that wchan (which looks at sleeping
# tasks only) finds in smc_wr_drain_cq, where smc.ko sleeps for good:
# Linux 6.1 WARNs when it unwinds a running task with a kretprobe frame
# (rethook_find_ret_addr), and panic_on_warn ends the VM.
wchan_of() { cat /proc/"$1"/wchan 2>/dev/null; }
stack_of() {
	[ "$(wchan_of "$1")" = smc_wr_drain_cq ] || { echo "(wchan: $(wchan_of "$1"))"; return; }
	cat /proc/"$1"/stack 2>/dev/null | sed 's/^\[<[0-9a-f]*>\] //; s/+0x.*//'
}

# ours (VM 0) -> Linux (VM 1)
ours_client() {
	t0=$(date +%s)
	out=$($T/smc-fbprobe 10.43.0.2 $port 0 2>&1)
	rc=$? t=$(( $(date +%s) - t0 ))
	tap_diag "our client after $t s: status $rc: $out"
	[ $t -le 30 ] || tap_fail "our connect() took $t s (bound 30)"
	[ $rc != 0 ] || tap_fail "our connect() succeeded: $out (Linux cannot confirm a link on rxe)"
	# It is connect() that failed, not the tool or its echo afterwards.
	case "$out" in
	*"smc-fbprobe: connect: "*) ;;
	*) tap_fail "smc-fbprobe did not fail in connect(): $out" ;;
	esac
	return 0
}

linux_server_saw() {
	rec=$(kprobe_records) || return 0
	tap_diag "smc.ko (VM $LINUX): $(echo "$rec" | tr '\n' ';')"
	# The Proposal and the Confirm: two CLC reads that succeeded.
	[ "$(echo "$rec" | grep -c '^clc_wait ret=0$')" -ge 2 ] ||
		tap_fail "smc.ko did not read our Proposal and Confirm"
	echo "$rec" | grep -q '^conf_link .*qp_state=3 cur_qp_state=0' ||
		tap_fail "smc.ko did not reach its CONFIRM_LINK with an RTS QP"
	echo "$rec" | grep -qx 'conf_link_ret ret=-67' ||
		tap_fail "smc.ko's CONFIRM_LINK send did not fail -ENOLINK"
	no_rx_cq "$rec"
}

# Linux (VM 0) -> ours (VM 1)
our_failed() { on $OURS 'grep -q " failed [1-9]" /sys/kernel/debug/af_smc/smcr_hs'; }
client_in_drain() { [ "$(wchan_of "$client")" = smc_wr_drain_cq ]; }

linux_client() {
	tap_wait_for 40 our_failed ||
		tap_fail "our server counted no failed handshake within 40 s: $(hs_stats)"
	tap_diag "our server: $(hs_stats | tr '\n' ' ')"
	return 0
}

linux_client_saw() {
	# smc.ko waits a fixed time for our Decline, which we send when our
	# own CONFIRM_LINK wait (4 s) runs out; a debug build scales that wait
	# (SMC_WAIT_SCALE, kernel/smc_wait.h) and smc.ko's not, so there
	# smc.ko stopped waiting first (make check-debug, 2026-12-05: its wait
	# returned -EAGAIN).
	[ "${SMC_TIMEOUT_SCALE:-1}" = 1 ] ||
		tap_skip_case "our bounds are scaled by $SMC_TIMEOUT_SCALE and smc.ko's are not: our Decline comes after its wait"
	rec=$(kprobe_records) || return 0
	tap_diag "smc.ko (VM $LINUX): $(echo "$rec" | tr '\n' ';')"
	echo "$rec" | grep -q '^clc_wait ret=0$' || tap_fail "smc.ko did not read our Accept"
	echo "$rec" | grep -q '^arm flags=3$' || tap_fail "smc.ko armed no receive CQ with 3"
	echo "$rec" | grep -q '^llc_wait ret=0x0$' ||
		tap_fail "smc.ko's wait for CONFIRM_LINK did not time out empty"
	# SMC_CLC_DECL_PEERDECL: the wait for a Decline got ours.
	echo "$rec" | grep -qx 'clc_wait ret=83886080' ||
		tap_fail "smc.ko did not get our Decline (smc_clc_wait_msg 0x05000000)"
	no_rx_cq "$rec"
	c=$(on $OURS "$counters" | tr '\n' ' ') l=$(on $LINUX "$counters" | tr '\n' ' ')
	tap_diag "rxe0: ours (VM $OURS): $c; smc.ko's (VM $LINUX): $l"
	# Counts read and above 0: an unread counter is no pass.
	[ "$(counter sent_pkts "$c")" -gt 0 ] 2>/dev/null ||
		tap_fail "our rxe0 sent nothing (no CONFIRM_LINK), or its counter is unread: '$c'"
	[ "$(counter rcvd_pkts "$l")" -gt 0 ] 2>/dev/null ||
		tap_fail "smc.ko's rxe0 received nothing, or its counter is unread: '$l'"
	tap_wait_for 20 client_in_drain
	st=$(stack_of "$client" | tr '\n' ' ')
	tap_diag "smc.ko client stack: $st"
	case "$st" in
	"smc_wr_drain_cq smc_wr_free_link smcr_link_clear smc_lgr_free __smc_connect "*) ;;
	*) tap_fail "smc.ko's connect() is not in its link group cleanup" ;;
	esac
	return 0
}

ours_clean() {
	tap_wait_for 30 no_lgr || tap_fail "our link group is still there after 30 s: $(lgrs)"
	st=$(hs_stats)
	# The CLC agreed on SMC-Rv2: our side took smc.ko's v2 Accept (we are
	# the client) or v2 Confirm (we are the server) with the shared UEID.
	case "$st" in *" v2_agreed 1 "*) ;; *) tap_fail "af_smc did not count one SMC-Rv2 CLC agreement" ;; esac
	tap_diag "our handshakes: $(echo "$st" | tr '\n' ' ')"
	case "$st" in *" failed "[1-9]*) ;; *) tap_fail "no failed handshake counted" ;; esac
	# Nothing of ours is left holding the module (the echo server is
	# ours in 2@intree,ours: it goes first).
	[ $OURS = 1 ] && smc-vm-exec 1 'kill $(cat /tmp/echo.pid); sleep 0.5' >/dev/null 2>&1
	tap_expect "rmmod af_smc on VM $OURS, then insmod again" on $OURS \
		"rmmod af_smc && insmod $module"
	return 0
}

tap_case "setup: af_smc smcr=1, smc.ko with PNET IDs and kprobes, one UEID on both" 180 setup
if [ $OURS = 0 ]; then
	tap_case "ours -> smc.ko: our connect() fails within 30 s (no link confirmed)" 60 ours_client
	tap_case "smc.ko server: read our SMC-Rv2 Proposal and Confirm, CONFIRM_LINK send -ENOLINK" 60 linux_server_saw
else
	# smc.ko's connect() blocks for good: started outside any case (a case
	# would kill it on exit, a SIGKILL a D-state task never acts on).
	$T/smc-fbprobe 10.43.0.2 $port 0 </dev/null >"$work/client.out" 2>&1 &
	client=$!
	tap_case "smc.ko -> ours: our server gives the handshake up within 40 s" 60 linux_client
	tap_case "smc.ko client: read our Accept, got our CONFIRM_LINK on rxe0 but never saw it, got our Decline" 60 linux_client_saw
fi
tap_case "ours: SMC-Rv2 agreed in the CLC, the group freed within 30 s, the failure counted, rmmod works" 60 ours_clean
tap_done
