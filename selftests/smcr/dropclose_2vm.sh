#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# smcr/dropclose_2vm.sh: issue 17, hole 2 (Documentation/security.md): a
# send buffer must not be freed while an RDMA WRITE that the peer never
# acknowledges still reads it. Our modules on two VMs (rxe0 on eth0 of
# each, af_smc smcr=1 loopback_ism=0). An SMC-R connection from VM 0
# streams to an echo server on VM 1 (smc-dropclose); VM 1 then drops every
# RoCE packet it receives (iptables -A INPUT -p udp --dport 4791 -j DROP),
# VM 0 sends on and closes. Checked on VM 0:
#   - close() returns within CLOSE_BOUND_MS;
#   - the link goes down (no group left that is not "dead") within
#     LINK_BOUND_MS of the drop: a WR the peer never acknowledges ends the
#     link, through rxe's retry budget (retry_cnt 6: ~1.9 s) or the 5 s
#     bound of the WRITE's wait;
#   - rxe0's sent_pkts stops moving within RETX_BOUND_MS of the close:
#     nothing is retransmitted (from a freed buffer or any other);
#   - debugfs smcr_lgr's bufs_freed_posted is 0 (no buffer was freed while
#     a posted WR named it: the direct signal; page_poison would not see a
#     device reading freed pages) and bufs_deferred goes back to 0;
#   - every object count goes back to 0;
# then, with the rule removed, rmmod af_smc works on both VMs.
# VM 0 runs with lgr_linger=60 and no keepalive (smcr_testlink_time 0), so
# neither the group's end after its linger nor a TEST_LINK can be what
# ends the link or the retransmissions within the bounds: only the link
# failing by its own WRs can.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/topology.sh"

topo_require_ours_2vm "smcr=1 is af_smc's own parameter"
T=$SMC_SELFTESTS/tools
L=/sys/kernel/debug/af_smc/smcr_lgr
O=/sys/kernel/debug/af_smc/objects
C=/sys/class/infiniband/rxe0/ports/1/hw_counters
SRV=10.43.0.2
PORT=4471
RULE="INPUT -p udp --dport 4791 -j DROP"
# The netfilter modules vm/initramfs lists for this (not loaded at boot).
NF_LIST=/smc-run/modules.netfilter
# Each bound follows from af_smc's own (the 5 s send bound, the QP's retry
# budget), which make check-debug scales (kernel/smc_wait.h); so are these.
CLOSE_BOUND_MS=$(tap_scaled 6000)
LINK_BOUND_MS=$(tap_scaled 10000)
RETX_BOUND_MS=$(tap_scaled 10000)
# A window this long without a packet sent counts as "stopped"; rxe
# retransmits every 268 ms (the ack timeout; 1.07 s on the debug kernel)
# while a WR is outstanding.
QUIET_S=3

uptime_ms() {
	read -r up rest </proc/uptime
	echo $(( ${up%.*} * 1000 + $(echo "${up#*.}" | sed 's/^0*//;s/^$/0/') * 10 ))
}

settings() {
	cmd="rmmod af_smc 2>/dev/null; insmod $module smcr=1 loopback_ism=0 $2 || exit 1
	grep -q ' /sys/kernel/debug debugfs' /proc/mounts || mount -t debugfs none /sys/kernel/debug
	$3"
	if [ "$1" = 0 ]; then sh -c "$cmd"; else smc-vm-exec "$1" "$cmd"; fi
}
# iptables and its modules on VM 1; the rule not yet there.
vm1_iptables() {
	smc-vm-exec 1 "[ -s $NF_LIST ] || { echo 'no $NF_LIST in the image'; exit 1; }
	while read -r ko; do insmod \$ko 2>/dev/null ||
		grep -q \"^\$(basename \$ko .ko | tr - _) \" /proc/modules || exit 1; done <$NF_LIST
	command -v iptables >/dev/null || { echo 'no iptables in the image'; exit 1; }
	iptables -L INPUT -n >/dev/null"
}
cleanup() {
	smc-vm-exec 1 "iptables -D $RULE 2>/dev/null; kill \$(cat /tmp/srv.pid) 2>/dev/null; true" \
		>/dev/null 2>&1
	smc-vm-exec 1 "for m in iptable_filter xt_tcpudp ip_tables x_tables; do rmmod \$m 2>/dev/null; done; true" \
		>/dev/null 2>&1
	topo_cleanup
	topo_reload_ours_2vm
}
tap_at_exit cleanup

setup() {
	tap_assert "af_smc smcr=1 lgr_linger=60, no keepalive, on VM 0" \
		settings 0 lgr_linger=60 "sysctl -qw net.smc.smcr_testlink_time=0"
	tap_assert "af_smc smcr=1 on VM 1" settings 1 "" ""
	tap_assert "rxe0 on eth0 of both VMs" topo_vm_rxe
	tap_assert "iptables on VM 1" vm1_iptables
	return 0
}

# No group on VM 0 whose link is still up.
link_down0() {
	! grep -Eq '^lgr .* state (usable|new) ' $L
}
sent0() {
	cat $C/sent_pkts
}
# sent_pkts does not move for QUIET_S seconds.
quiet0() {
	a=$(sent0)
	sleep $QUIET_S
	[ "$(sent0)" = "$a" ]
}
clean0() {
	[ "$(awk '$2 != 0' $O | wc -l)" = 0 ] && [ "$(grep -c '^lgr ' $L)" = 0 ] &&
		grep -q '^lgrs 0 bufs 0 ' $L && ! grep -q 'bufs_deferred [1-9]' $L
}
rmmod0() {
	rmmod af_smc 2>/dev/null
}
counter0() {
	sed -n "s/^lgrs .* $1 \([0-9]*\).*/\1/p" $L
}
counters0() {
	for c in sent_pkts completer_retry_err retry_exceeded_err; do
		printf '%s %s ' $c "$(cat $C/$c)"
	done
}

drop_close() {
	smc-vm-exec 1 "rm -f /tmp/ready; $T/smc-conns -s -a $SRV -p $PORT -n 1 -r /tmp/ready -t 300 \
		>/tmp/srv.log 2>&1 </dev/null & echo \$! >/tmp/srv.pid" ||
		tap_fail "cannot start the echo server on VM 1"
	tap_assert "echo server on VM 1" smc-vm-exec 1 \
		"n=0; until [ -e /tmp/ready ]; do n=\$((n+1)); [ \$n -lt 600 ] || exit 1; sleep 0.05; done"
	tap_diag "VM 0 before: $(counters0)"
	$T/smc-dropclose -a $SRV -p $PORT -w 3 -s 3 -t 120 \
		-e "smc-vm-exec 1 'iptables -A $RULE'" >"$TMPDIR/dc" 2>&1
	rc=$?
	closed=$(uptime_ms)
	sed 's/^/dropclose: /' "$TMPDIR/dc" | while read -r line; do tap_diag "$line"; done
	[ $rc = 0 ] || tap_fail "smc-dropclose exited $rc"
	grep -q "^command exited 0 " "$TMPDIR/dc" || tap_fail "the drop rule could not be added on VM 1"
	dropped=$(sed -n 's/^command exited 0 at \([0-9]*\)$/\1/p' "$TMPDIR/dc")
	ms=$(sed -n 's/^close returned .* after \([0-9]*\) ms .*/\1/p' "$TMPDIR/dc")
	[ -n "$ms" ] && [ "$ms" -le $CLOSE_BOUND_MS ] ||
		tap_fail "close() returned after ${ms:-?} ms, more than $CLOSE_BOUND_MS ms"
	[ -n "$dropped" ] || dropped=$closed

	tap_wait_for $(( LINK_BOUND_MS / 1000 )) link_down0
	down=$(uptime_ms)
	if link_down0; then
		tap_diag "VM 0's link was down $(( down - dropped )) ms after the drop"
		[ $(( down - dropped )) -le $LINK_BOUND_MS ] ||
			tap_fail "VM 0's link went down after more than $LINK_BOUND_MS ms"
	else
		tap_fail "VM 0's link is still up $(( down - dropped )) ms after the drop: $(tr '\n' ';' <$L)"
	fi

	if tap_wait_for $(( RETX_BOUND_MS / 1000 )) quiet0; then
		tap_diag "rxe0 quiet for $QUIET_S s from $(( $(uptime_ms) - QUIET_S * 1000 - closed )) ms after close"
	else
		tap_fail "rxe0 still sends $RETX_BOUND_MS ms after close"
	fi
	tap_diag "VM 0 after: $(counters0)"
	tap_diag "VM 0 groups: $(tr '\n' ';' <$L)"

	n=$(counter0 bufs_freed_posted)
	[ "$n" = 0 ] || tap_fail "bufs_freed_posted ${n:-?}: a send buffer was freed while a posted WR named it"
	tap_wait_for 30 clean0 ||
		tap_fail "VM 0 keeps objects: $(tr '\n' ' ' <$O); groups: $(tr '\n' ';' <$L)"
	return 0
}

rmmod_both() {
	tap_expect "the drop rule removed on VM 1" smc-vm-exec 1 "iptables -D $RULE"
	smc-vm-exec 1 "kill \$(cat /tmp/srv.pid) 2>/dev/null; true" >/dev/null 2>&1
	tap_expect "rmmod af_smc on VM 0" tap_wait_for 20 rmmod0
	tap_expect "rmmod af_smc on VM 1" smc-vm-exec 1 \
		"n=0; until rmmod af_smc; do n=\$((n+1)); [ \$n -lt 40 ] || exit 1; sleep 0.5; done"
	return 0
}

tap_case "setup: smcr=1 on both VMs, rxe0 on eth0, iptables on VM 1" 180 setup
tap_case "VM 1 drops RoCE, VM 0 sends and closes: close within $CLOSE_BOUND_MS ms, link down within $LINK_BOUND_MS ms, no retransmission $RETX_BOUND_MS ms after close, no buffer freed under a WR, objects 0" 180 drop_close
tap_case "rule removed: rmmod af_smc works on both VMs" 120 rmmod_both
tap_done
