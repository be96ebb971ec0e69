#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# smcr/link.sh: SMC-R links (kernel/smcr_link.c, their LLC in
# kernel/smcr_llc.c) driven by hand through af_smc's debugfs file "link",
# without the CLC handshake: two links, A and B, are created, given each
# other's QP number, PSN, MTU, GID and MAC, and brought to RTS with their
# RMBs registered; then
#   - CONFIRM_LINK from A is answered by B (and B saw A's request);
#   - TEST_LINK both ways;
#   - the keepalive interval from net.smc.smcr_testlink_time of the
#     namespace that sets it ("keepalive ID net"): 1 s in the initial
#     namespace makes an idle A send TEST_LINKs that B answers; 0 in
#     another namespace turns it off (no more messages either way);
#   - an RDMA WRITE of 64 KiB from A's RMB into B's RMB, with B's rkey,
#     arrives byte for byte;
#   - a WRITE with a wrong rkey fails and leaves the link in error, and
#     A's kernel log says why (the completion's status);
#   - destroying A, active, sends DELETE_LINK: B fails at once, and A's
#     destroy takes no longer than an acknowledged SEND; B logs no failure
#     for that orderly end;
#   - the netdev of A's port goes down: A fails at once (ERROR, by the
#     port event, not after the QP's retries), and up again: new links
#     work;
#   - rmmod af_smc with a live link works (the link ends with DELETE_LINK);
#   - rdma link del under a live link: the link is GONE at once, calls on
#     it fail at once; the peer (2 VMs), with a 1 s keepalive and nobody
#     calling, ends its link by its unacknowledged or unanswered TEST_LINK
#     and logs why; its next request fails within its bound; rmmod af_smc
#     works afterwards.
# One VM (no argument): both links on one rxe device (rxe0 on a veth end in
# the initial namespace; rxe of Linux 6.1 only carries RoCE traffic in the
# initial namespace, see Documentation/smc-r.md). "2vm": A on VM 0, B on
# VM 1, rxe0 on eth0 of each (topo_vm_rxe). "topo1": one VM, A on rxev1
# (smcv1), B on rxev2 (smcv2), two devices whose RoCE crosses a veth
# (topo_veth_rxe); B is then a separate peer as on two VMs, except that
# rmmod takes both links.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/topology.sh"

mode=${1:-1vm}
[ "$(id -u)" = 0 ] || tap_skip_all "needs root"
[ "${SMC_MODULE:-ours}" = ours ] || tap_skip_all "the link file is af_smc's own"
command -v rdma >/dev/null || tap_skip_all "no rdma command"
module=${SMC_MODULE_FILE:-}
[ -f "$module" ] || tap_skip_all "no module file (SMC_MODULE_FILE)"
if [ "$mode" = 2vm ]; then
	[ "${SMC_VM_COUNT:-1}" -ge 2 ] || tap_skip_all "needs --vms 2"
	VMA=0 VMB=1 IFA=eth0 IFB=eth0 DEV=rxe0
elif [ "$mode" = topo1 ]; then
	VMA=0 VMB=0 IFA=smcv1 IFB=smcv2 DEV=rxev1
else
	VMA=0 VMB=0 IFA=smcrl0 IFB=smcrl0 DEV=rxe9
fi
L=/sys/kernel/debug/af_smc/link
# The bounds below on how long a call may take grow with the module's own
# on the debug kernel (tap_scaled; kernel/smc_wait.h), and stay below them.

# on VM CMD: run CMD (a shell string) on VM.
on() {
	_vm=$1
	shift
	if [ "$_vm" = 0 ]; then sh -c "$*"; else smc-vm-exec "$_vm" "$*"; fi
}
# lk VM COMMAND: one link command; prints the answer; fails as the write did.
lk() {
	on "$1" "echo '$2' > $L; rc=\$?; cat $L; exit \$rc"
}

# mark VM NAME: a line in VM's kernel log, unique to this call (one VM runs
# this script in several modes); logged_since VM NAME: the kernel log of
# VM after that line.
mark() {
	cat /proc/sys/kernel/random/uuid >"$TMPDIR/mark-$2"
	on "$1" "echo 'smc-selftest: $2 $(cat "$TMPDIR/mark-$2")' > /dev/kmsg"
}
logged_since() {
	on "$1" "dmesg" | sed -n "/smc-selftest: $2 $(cat "$TMPDIR/mark-$2")\$/,\$p"
}

cleanup() {
	on $VMA "echo 'destroy 0' > $L" 2>/dev/null
	on $VMB "echo 'destroy 1' > $L" 2>/dev/null
	if [ "$mode" != 1vm ]; then
		topo_cleanup
	else
		rdma link del rxe9 2>/dev/null
		ip link del smcrl0 2>/dev/null
	fi
	grep -q '^af_smc ' /proc/modules || insmod "$module"
}
tap_at_exit cleanup

setup() {
	for vm in $VMA $VMB; do
		on $vm "grep -q ' /sys/kernel/debug debugfs' /proc/mounts || mount -t debugfs none /sys/kernel/debug" ||
			tap_fail "no debugfs on VM $vm"
	done
	if [ "$mode" = 2vm ]; then
		tap_assert "rxe0 on eth0 of both VMs" topo_vm_rxe
	elif [ "$mode" = topo1 ]; then
		tap_assert "rxev1 on smcv1, rxev2 on smcv2, routed over the veth" topo_veth_rxe
	else
		tap_assert "a veth pair" ip link add smcrl0 type veth peer name smcrl1
		ip addr add 10.44.0.1/24 dev smcrl0
		ip link set smcrl1 up
		ip link set smcrl0 up
		tap_assert "rxe9 on smcrl0" rdma link add rxe9 type rxe netdev smcrl0
		tap_wait_for 30 sh -c "rdma link show rxe9/1 | grep -q 'state ACTIVE'" ||
			tap_fail "rxe9 not ACTIVE"
	fi
	return 0
}

# Every GID entry rxe has is RoCE v2: Linux's SMC-Rv1 wants a RoCE v1 GID
# and so finds none on rxe (Documentation/smc-r.md).
gid_types() {
	# One shell for the whole table (rxe has 1024 entries); reading an
	# unused entry fails and prints nothing.
	types=$(on $VMA "cat /sys/class/infiniband/$DEV/ports/1/gid_attrs/types/* 2>/dev/null")
	tap_diag "$DEV port 1 GID types: $(echo "$types" | sort | uniq -c | tr '\n' ';')"
	v2=$(echo "$types" | grep -c '^RoCE v2$')
	other=$(echo "$types" | grep -v '^RoCE v2$' | grep -c .)
	[ "$v2" -ge 1 ] || tap_fail "no RoCE v2 GID on $DEV"
	[ "$other" = 0 ] || tap_fail "$DEV has $other GIDs of another type"
	return 0
}

# Fields of a "created" answer: ID QPN PSN MTU GID MAC RKEY ADDR.
create_connect() {
	a=$(lk $VMA "create 0 $IFA") || { tap_fail "create A: $a"; return 1; }
	b=$(lk $VMB "create 1 $IFB") || { tap_fail "create B: $b"; return 1; }
	tap_diag "A: $a"
	tap_diag "B: $b"
	set -- $a
	[ "$1" = created ] || { tap_fail "A: $a"; return 1; }
	a_info="$3 $4 $5 $6 $7"
	set -- $b
	[ "$1" = created ] || { tap_fail "B: $b"; return 1; }
	b_info="$3 $4 $5 $6 $7"
	echo "$b" >$TMPDIR/link_b
	r=$(lk $VMA "connect 0 $b_info") || tap_fail "connect A: $r"
	r=$(lk $VMB "connect 1 $a_info") || tap_fail "connect B: $r"
	return 0
}

confirm() {
	r=$(lk $VMA "confirm 0") || tap_fail "CONFIRM_LINK from A: $r"
	r=$(lk $VMB "await 1") || tap_fail "B saw no CONFIRM_LINK: $r"
	return 0
}

testlink() {
	r=$(lk $VMA "test 0") || tap_fail "TEST_LINK from A: $r"
	r=$(lk $VMB "test 1") || tap_fail "TEST_LINK from B: $r"
	return 0
}

# tx_of VM ID: the "tx" counter of link ID.
tx_of() {
	lk "$1" "stats $2" | sed -n 's/.* tx \([0-9]*\) .*/\1/p'
}

keepalive_sysctl() {
	S=/proc/sys/net/smc/smcr_testlink_time
	on $VMA "echo 1 > $S" || { tap_fail "smcr_testlink_time=1"; return 1; }
	lk $VMA "keepalive 0 net" >/dev/null || tap_fail "keepalive from the namespace"
	a0=$(tx_of $VMA 0) b0=$(tx_of $VMB 1)
	sleep 5
	a1=$(tx_of $VMA 0) b1=$(tx_of $VMB 1)
	tap_diag "idle 5 s with smcr_testlink_time=1: A sent $((a1 - a0)), B sent $((b1 - b0))"
	[ $((a1 - a0)) -ge 2 ] || tap_fail "A sent $((a1 - a0)) TEST_LINKs in 5 s, not at least 2"
	[ $((b1 - b0)) -ge 2 ] || tap_fail "B answered $((b1 - b0)), not at least 2"
	# 0 in another namespace: the writer's namespace is the one read.
	on $VMA "ip netns add smcka && ip netns exec smcka sh -c 'echo 0 > $S && mount -t debugfs none /sys/kernel/debug && echo \"keepalive 0 net\" > $L'" ||
		tap_fail "keepalive from namespace smcka (smcr_testlink_time=0)"
	on $VMA "ip netns del smcka"
	sleep 1.5	# a TEST_LINK already under way may still be answered
	a0=$(tx_of $VMA 0) b0=$(tx_of $VMB 1)
	sleep 4
	a1=$(tx_of $VMA 0) b1=$(tx_of $VMB 1)
	tap_diag "idle 4 s after smcr_testlink_time=0: A sent $((a1 - a0)), B sent $((b1 - b0))"
	[ "$a1" = "$a0" ] && [ "$b1" = "$b0" ] || tap_fail "messages flowed with the keepalive off"
	[ "$(on $VMA "cat $S")" = 1 ] || tap_fail "the initial namespace's value changed"
	on $VMA "echo 30 > $S"
	return 0
}

write64k() {
	# shellcheck disable=SC2046 # the line's fields, split on purpose
	set -- $(cat $TMPDIR/link_b)
	rkey=$8 addr=$9
	r=$(lk $VMB "check 1 65536 7") && tap_fail "B's RMB has the pattern before the write"
	lk $VMA "fill 0 65536 7" >/dev/null || tap_fail "fill"
	r=$(lk $VMA "write 0 65536 $rkey $addr") || tap_fail "RDMA WRITE: $r"
	r=$(lk $VMB "check 1 65536 7") || tap_fail "B's RMB: $r"
	for vm in A B; do
		if [ $vm = A ]; then s=$(lk $VMA "stats 0"); else s=$(lk $VMB "stats 1"); fi
		tap_diag "$vm: $s"
		echo "$s" | grep -q ' state 1 ' || tap_fail "link $vm not active"
		echo "$s" | grep -q ' rx_bad 0 ' || tap_fail "link $vm saw bad messages"
	done
	return 0
}

bad_rkey() {
	# shellcheck disable=SC2046 # the line's fields, split on purpose
	set -- $(cat $TMPDIR/link_b)
	rkey=$8 addr=$9
	mark $VMA bad_rkey
	r=$(lk $VMA "write 0 16 $((rkey ^ 0x100)) $addr") && tap_fail "a WRITE with a wrong rkey succeeded"
	tap_diag "$r"
	s=$(lk $VMA "stats 0")
	tap_diag "$s"
	echo "$s" | grep -q ' state 2 ' || tap_fail "link A is not in error"
	# The kernel log says why the link failed: the completion's status.
	why=$(logged_since $VMA bad_rkey | grep 'af_smc: link QP .* failed: ')
	tap_diag "A logged: $why"
	echo "$why" | grep -q 'failed: remote access error$' ||
		tap_fail "A's log does not say the link failed by a remote access error"
	r=$(lk $VMA "test 0") && tap_fail "TEST_LINK on a link in error succeeded"
	lk $VMA "destroy 0" >/dev/null || tap_fail "destroy A"
	lk $VMB "destroy 1" >/dev/null || tap_fail "destroy B"
	return 0
}

orderly_delete() {
	create_connect || return 1
	confirm
	mark $VMB orderly_delete
	t0=$(date +%s)
	lk $VMA "destroy 0" >/dev/null || tap_fail "destroy A"
	t1=$(date +%s)
	tap_diag "destroy of active A took $((t1 - t0)) s"
	[ $((t1 - t0)) -le "$(tap_scaled 2)" ] || tap_fail "destroying A took $((t1 - t0)) s"
	n=0
	until s=$(lk $VMB "stats 1") && echo "$s" | grep -q ' state 2 .* peer_deleted 1'; do
		n=$((n + 1))
		[ $n -lt 20 ] || break
		sleep 0.1
	done
	tap_diag "B: $s (polled $n times)"
	echo "$s" | grep -q ' state 2 .* peer_deleted 1' || tap_fail "B did not learn of the DELETE_LINK"
	# Timed inside B's VM (uptime in centiseconds): the command channel to
	# another VM is not the module, and on the debug kernel beside other
	# guests the two calls took 11 s through it (2026-12-03).
	r=$(on $VMB "a=\$(cut -d' ' -f1 /proc/uptime); echo 'test 1' >$L 2>/dev/null && echo test-ok
		echo 'destroy 1' >$L || echo destroy-failed; echo took \$a \$(cut -d' ' -f1 /proc/uptime)")
	case $r in *test-ok*) tap_fail "TEST_LINK on a deleted link succeeded" ;; esac
	case $r in *destroy-failed*) tap_fail "destroy B" ;; esac
	ms=$(echo "$r" | awk '$1 == "took" { printf "%d\n", ($3 - $2) * 1000 }')
	tap_diag "B's TEST_LINK and destroy after the DELETE_LINK: ${ms:-?} ms, in B's VM"
	[ -n "$ms" ] && [ "$ms" -le $(($(tap_scaled 1) * 1000)) ] ||
		tap_fail "B's calls after DELETE_LINK took ${ms:-?} ms"
	# An orderly end is no failure: B logs none.
	why=$(logged_since $VMB orderly_delete | grep 'af_smc: link QP .* failed: ')
	[ -z "$why" ] || tap_fail "B logged a failure for the peer's DELETE_LINK: $why"
	return 0
}

netdev_down() {
	create_connect || return 1
	confirm
	on $VMA "ip link set $IFA down" || tap_fail "ip link set $IFA down"
	n=0
	until s=$(lk $VMA "stats 0") && echo "$s" | grep -q ' state 2 .* port_down 1'; do
		n=$((n + 1))
		[ $n -lt 50 ] || break
		sleep 0.1
	done
	tap_diag "A after $IFA down: $s (polled $n times)"
	echo "$s" | grep -q ' state 2 .* port_down 1' || tap_fail "link A did not fail with its port within 5 s"
	r=$(lk $VMA "test 0") && tap_fail "TEST_LINK on a link whose port is down succeeded"
	on $VMA "ip link set $IFA up" || tap_fail "ip link set $IFA up"
	[ "$mode" = 1vm ] && on $VMA "ip link set smcrl1 up"
	# The down took the routes of topo_veth_rxe's table with it.
	[ "$mode" = topo1 ] && { topo_veth_rules on || tap_fail "topology 1 routes not back"; }
	lk $VMA "destroy 0" >/dev/null || tap_fail "destroy A"
	lk $VMB "destroy 1" >/dev/null || tap_fail "destroy B"
	tap_wait_for 30 sh -c "rdma link show $DEV/1 | grep -q 'state ACTIVE'" ||
		tap_fail "$DEV not ACTIVE again"
	# The veth's other end lost its carrier too: B's device went down with it.
	if [ "$mode" = topo1 ]; then
		tap_wait_for 30 sh -c "rdma link show rxev2/1 | grep -q 'state ACTIVE'" ||
			tap_fail "rxev2 not ACTIVE again"
	fi
	# A new pair of links works over the port that came back.
	tap_wait_for 30 sh -c "echo 'create 0 $IFA' > $L" || { tap_fail "no new link on $IFA"; return 1; }
	lk $VMA "destroy 0" >/dev/null
	create_connect || return 1
	confirm
	testlink
	lk $VMA "destroy 0" >/dev/null || tap_fail "destroy A"
	lk $VMB "destroy 1" >/dev/null || tap_fail "destroy B"
	return 0
}

unload_live() {
	create_connect || return 1
	confirm
	t0=$(date +%s)
	tap_expect "rmmod af_smc with a live link" rmmod af_smc
	t1=$(date +%s)
	tap_diag "rmmod took $((t1 - t0)) s"
	tap_expect "insmod af_smc" insmod "$module"
	on $VMA "grep -q ' /sys/kernel/debug debugfs' /proc/mounts" || tap_fail "debugfs gone"
	if [ "$mode" = 2vm ]; then
		# The unload destroyed A in order: B was told.
		s=$(lk $VMB "stats 1")
		tap_diag "B: $s"
		echo "$s" | grep -q ' state 2 .* peer_deleted 1' || tap_fail "B was not told by DELETE_LINK"
		lk $VMB "destroy 1" >/dev/null || tap_fail "destroy B"
	fi
	return 0
}

dev_gone() {
	create_connect || return 1
	confirm
	rdel="rdma link del $DEV"
	[ "$mode" != 1vm ] && { lk $VMB "keepalive 1 1000" >/dev/null || tap_fail "keepalive on B"; }
	mark $VMB dev_gone
	t0=$(date +%s)
	on $VMA "$rdel" || tap_fail "rdma link del on VM $VMA"
	t1=$(date +%s)
	tap_diag "rdma link del took $((t1 - t0)) s"
	s=$(lk $VMA "stats 0")
	tap_diag "A: $s"
	echo "$s" | grep -q ' state 3 ' || tap_fail "link A is not GONE"
	r=$(lk $VMA "test 0") && tap_fail "TEST_LINK on a GONE link succeeded"
	if [ "$mode" != 1vm ]; then
		# B, left alone, notices through its keepalive (1 s idle, then
		# a TEST_LINK that gets no answer within 4 s, scaled).
		n=0 polls=$(tap_scaled 100)
		until s=$(lk $VMB "stats 1") && echo "$s" | grep -q ' state 2 .* keepalive_failed 1'; do
			n=$((n + 1))
			[ $n -lt "$polls" ] || break
			sleep 0.1
		done
		tap_diag "B: $s (polled $n times)"
		echo "$s" | grep -q ' state 2 .* keepalive_failed 1' ||
			tap_fail "B's keepalive did not end the link within $(tap_scaled 10) s"
		# The log names the first cause: the TEST_LINK's SEND, never
		# acknowledged by a device that is gone, runs out of retries
		# (about 1.9 s) before the answer's wait (4 s) ends.
		why=$(logged_since $VMB dev_gone | grep 'af_smc: link QP .* failed: ')
		tap_diag "B logged: $why"
		echo "$why" | grep -qE 'failed: (transport retry counter exceeded|the peer did not answer TEST_LINK)$' ||
			tap_fail "B's log does not say its TEST_LINK went unacknowledged or unanswered"
		# B's peer has vanished: its request must fail within the bound.
		t0=$(date +%s)
		r=$(lk $VMB "test 1") && tap_fail "TEST_LINK to a vanished peer succeeded"
		t1=$(date +%s)
		tap_diag "B: $r after $((t1 - t0)) s"
		[ $((t1 - t0)) -le "$(tap_scaled 12)" ] || tap_fail "B's request took $((t1 - t0)) s"
	fi
	lk $VMA "destroy 0" >/dev/null || tap_fail "destroy A"
	lk $VMB "destroy 1" >/dev/null || tap_fail "destroy B"
	tap_expect "rmmod af_smc" rmmod af_smc
	tap_expect "insmod af_smc" insmod "$module"
	return 0
}

tap_case "setup: rxe device(s), debugfs" 120 setup
tap_case "rxe's GIDs are all of type RoCE v2" 30 gid_types
tap_case "two links to RTS with each other's QP data" 60 create_connect
tap_case "CONFIRM_LINK answered over the QP" 60 confirm
tap_case "TEST_LINK both ways" 60 testlink
tap_case "keepalive interval from net.smc.smcr_testlink_time, per namespace; 0 is off" 60 keepalive_sysctl
tap_case "RDMA WRITE of 64 KiB into the peer's RMB with its rkey" 60 write64k
tap_case "a wrong rkey fails the WRITE and the link" 60 bad_rkey
tap_case "destroying an active link tells the peer (DELETE_LINK)" 60 orderly_delete
tap_case "netdev down: the links on its port fail at once; up: new links work" 120 netdev_down
tap_case "rmmod with a live link: it ends in order" 60 unload_live
tap_case "rdma link del under a live link: bounded, rmmod works" 90 dev_gone
tap_done
