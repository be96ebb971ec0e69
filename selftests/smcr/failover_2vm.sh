#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# smcr/failover_2vm.sh: failover between two VMs (issue 20's topology
# 2+net2: rxe0 on eth0 and rxe1 on eth2 of each VM, two independent wires,
# the PNET ID SMCNET2 on all four), af_smc with smcr=1 loopback_ism=0
# lgr_linger=0 on both:
#   - a connection 10.43.0.1 -> 10.43.0.2 held open makes the groups (VM 1
#     the server) and stays on their first link (rxe0); the server adds
#     the second (rxe1), as addlink_2vm.sh shows;
#   - an echo (byte-exact both ways, at least 64 MiB: it runs until the
#     move has been checked, smc-echo -e, -m) then goes to the second link,
#     which has fewer connections; while it runs, VM 1's eth2 goes down:
#     VM 1's port goes down with it, VM 0's does not (the wire between
#     two QEMUs has no carrier), so VM 0 hears of the failure only from
#     VM 1's DELETE_LINK over the first link (deletes_sent 1 on VM 1,
#     deletes_taken 1 on VM 0), not from its QP, which sees nothing fail
#     in time; both move the echo to the first link (slot 0, failovers 1;
#     smcss -R on VM 0 names rxe0), the pause until rxe0 carried 500
#     more packets printed, and the echo ends byte-exact;
#   - VM 1's eth2 up again: its port comes up, the server adds a link
#     over rxe1 again (links_added 2 on both; VM 0's may count more,
#     topo_links_added), and a 1 MiB echo crosses
#     it;
#   - then VM 0's (the client's) eth2 down: VM 0 tells VM 1 with a
#     DELETE_LINK (deletes_taken on VM 1), VM 1's ADD_LINKs, its port
#     never down, are refused (add_failed grows by its three tries); eth2
#     up again: VM 0 asks VM 1 for a link (an ADD_LINK request with no
#     QP, Linux's "add link invite"; invites_sent on VM 0, invites_taken
#     on VM 1), both groups have two ready links again (the time from
#     "ip link set up" printed), and a 1 MiB echo crosses rxe1; on the
#     module before the invite no link came back;
#   - the connections closed: both VMs' groups gone, nothing freed while
#     posted; af_smc reloaded as the harness had it.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/topology.sh"

topo_require_ours_2vm "smcr=1 is af_smc's own parameter"
[ "${SMC_TEST_NETS:-1}" = 2 ] || tap_skip_all "needs --test-nets 2 (topology 2+net2)"
T=$SMC_SELFTESTS/tools
B=/smc/bin
L=/sys/kernel/debug/af_smc/smcr_lgr
C=/sys/kernel/debug/af_smc/smcr_conns
SRV=10.43.0.2
port=4476

cleanup() {
	kill "$(cat "$TMPDIR/probe.pid" 2>/dev/null)" 2>/dev/null
	kill "$(cat "$TMPDIR/c.pid" 2>/dev/null)" 2>/dev/null
	topo_on 1 "ip link set eth2 up" 2>/dev/null
	ip link set eth2 up 2>/dev/null
	topo_stop_2vm /tmp/fo-echo.pid
	topo_stop_2vm /tmp/fo-hold.pid
	topo_smcr_net2_cleanup
}
tap_at_exit cleanup

# slot_of VM DEV: the slot of VM's link on DEV.
slot_of() {
	sed -n "s/^link \([0-9]\) .* dev $2 .*/\1/p" "$TMPDIR/lgr$1" | head -n 1
}

# echo_on VM SLOT FAILOVERS: VM's debugfs lists one connection on link
# SLOT that moved FAILOVERS times (the echo; the held one never moves).
echo_on() {
	[ "$(topo_on "$1" "grep -c ' slot $2 failovers $3 ' $C")" = 1 ]
}

running() {
	tap_alive "$(cat "$TMPDIR/c.pid")" ||
		{ tap_fail "the echo ended too early: $(cat "$TMPDIR/c.log")"; return 1; }
}

# move: the held connection, then the echo, and VM 1's eth2 down under it
# (one case: a case's processes end with it).
move() {
	topo_hold_2vm fo-hold $SRV $((port + 1)) || return 1
	tap_assert "an echo server on VM 1" topo_echo_server_2vm fo-echo $SRV $port
	rm -f "$TMPDIR/end"
	$T/smc-echo -c -f smc -a $SRV -p $port -n 4G -e "$TMPDIR/end" -m 64M -w 20 -t 600 \
		>"$TMPDIR/c.log" 2>&1 </dev/null &
	echo $! >"$TMPDIR/c.pid"
	for vm in 0 1; do
		s1=$(slot_of $vm rxe1)
		tap_wait_for 30 echo_on $vm "$s1" 0 ||
			{ tap_fail "VM $vm: the echo is not on the rxe1 link (slot $s1): $(topo_on $vm "cat $C")"; return 1; }
	done
	running || return 1
	before=$(topo_rxe_pkts_on 0 rxe1)
	tap_assert "VM 1's eth2 down" topo_on 1 "ip link set eth2 down"
	pause=$(topo_pause_ms 30 500 topo_rxe_pkts_on 0 rxe0) ||
		tap_fail "no data over rxe0 within 30 s of the failure"
	tap_diag "rxe1 carried $before packets on VM 0 before; data flowed over rxe0 again after $pause ms"
	running || return 1
	for vm in 0 1; do
		s0=$(slot_of $vm rxe0)
		tap_wait_for 10 echo_on $vm "$s0" 1 ||
			tap_fail "VM $vm: the echo did not move to the rxe0 link (slot $s0): $(topo_on $vm "cat $C")"
		topo_on $vm "grep '^lgr ' $L" >"$TMPDIR/g$vm"
		tap_diag "VM $vm: failovers $(topo_field failovers "$(cat "$TMPDIR/g$vm")"), resent $(topo_field resent "$(cat "$TMPDIR/g$vm")"), DELETE_LINK sent $(topo_field deletes_sent "$(cat "$TMPDIR/g$vm")"), taken $(topo_field deletes_taken "$(cat "$TMPDIR/g$vm")")"
	done
	[ "$(topo_field deletes_sent "$(cat "$TMPDIR/g1")")" = 1 ] ||
		tap_fail "VM 1 did not tell VM 0 of its failed link"
	[ "$(topo_field deletes_taken "$(cat "$TMPDIR/g0")")" = 1 ] ||
		tap_fail "VM 0's link did not end by VM 1's DELETE_LINK"
	$B/smcss -R >"$TMPDIR/ss" || tap_fail "smcss -R"
	awk -v p=":$port\$" '$7 == "SMCR" && $5 ~ p' "$TMPDIR/ss" | grep -q ' rxe0 ' ||
		tap_fail "smcss -R does not show the echo on rxe0: $(cat "$TMPDIR/ss")"
	topo_echo_stop "$TMPDIR/end" "$TMPDIR/c.pid" "$TMPDIR/c.log" "the echo" &&
		tap_diag "the echo carried $topo_echo_bytes bytes"
	grep -qx 'mode SMCR reason 0x00000000 peer 0x00000000' "$TMPDIR/c.log" ||
		tap_fail "the echo was not SMC-R"
	back 1 && invite
}

# two_links ADDED: within 60 s both VMs' groups have two ready links
# again, each having added ADDED links (topo_links_added).
two_links() {
	for vm in 0 1; do
		tap_wait_for 60 topo_rxe2_ready_on $vm ||
			{ tap_fail "VM $vm's group has not two ready links again: $(cat "$TMPDIR/lgr$vm")"; return 1; }
		sed "s/^/VM $vm: /" "$TMPDIR/lgr$vm"
		[ $vm = 1 ] && role=server || role=client
		topo_links_added $role "$1" "$(grep '^lgr ' "$TMPDIR/lgr$vm")"
	done
}

# back VM: VM's eth2 up under the held connection (still in this case):
# two links again, and an echo crosses the one added again.
back() {
	tap_assert "VM $1's eth2 up" topo_on $1 "ip link set eth2 up"
	two_links 2 || return 1
	cross
}

# cross: a 1 MiB echo goes over rxe1 (the link with no connection).
cross() {
	a0=$(topo_rxe_pkts_on 0 rxe1)
	out=$($T/smc-echo -c -f smc -a $SRV -p $port -n 1048576 -w 20 -t 300 2>&1) ||
		tap_fail "1 MiB echo to $SRV: $out"
	echo "$out"
	da0=$(($(topo_rxe_pkts_on 0 rxe1) - a0))
	tap_diag "1 MiB each way: rxe1 +$da0 packets on VM 0"
	# 1 MiB each way in packets of at most 1 KiB.
	[ $da0 -ge 2048 ] || tap_fail "rxe1 (the link added again) did not carry the echo"
	return 0
}

# lgr_of VM NAME: NAME's value on VM's group line.
lgr_of() {
	topo_field "$2" "$(topo_on "$1" "grep '^lgr ' $L")"
}

# tries_done FAILED: VM 1's group counts three failed ADD_LINKs more than FAILED.
tries_done() {
	[ "$(lgr_of 1 add_failed)" -ge $(($1 + 3)) ]
}

# one_link: VM 0's group has one link left.
one_link() {
	[ "$(grep -c '^link ' $L)" = 1 ]
}

# invite: VM 0's eth2 down (VM 1 told; its ADD_LINKs refused, VM 1's own
# port never down), then up: VM 0 invites, the link is added again.
invite() {
	dt0=$(lgr_of 1 deletes_taken) f1=$(lgr_of 1 add_failed)
	is0=$(lgr_of 0 invites_sent) it1=$(lgr_of 1 invites_taken)
	tap_assert "VM 0's eth2 down" ip link set eth2 down
	tap_wait_for 30 one_link || { tap_fail "VM 0 kept its rxe1 link: $(cat $L)"; return 1; }
	tap_wait_for 30 tries_done "$f1" ||
		{ tap_fail "VM 1 did not try its three ADD_LINKs: $(topo_on 1 "cat $L")"; return 1; }
	[ "$(lgr_of 1 deletes_taken)" = $((dt0 + 1)) ] ||
		tap_fail "VM 1 was not told by VM 0's DELETE_LINK"
	[ "$(lgr_of 0 invites_sent)" = "$is0" ] || tap_fail "VM 0 invited with its port down"
	t0=$(tap_now_ms)
	tap_assert "VM 0's eth2 up" ip link set eth2 up
	two_links 3 || return 1
	tap_diag "two ready links on both VMs $(($(tap_now_ms) - t0)) ms after VM 0's eth2 came up"
	[ "$(lgr_of 0 invites_sent)" -gt "$is0" ] || tap_fail "VM 0 sent no invite"
	[ "$(lgr_of 1 invites_taken)" -gt "$it1" ] || tap_fail "VM 1 took no invite"
	cross
}

closed() {
	topo_unhold_2vm fo-echo fo-hold
	return 0
}

tap_case "setup: rxe0/rxe1 on eth0/eth2 of both VMs, PNET ID SMCNET2, smcr=1 lgr_linger=0" 180 topo_smcr_net2_setup
tap_case "a held connection, two links; VM 1's eth2 down under an echo on rxe1: VM 0 told by DELETE_LINK, both move it to rxe0, byte-exact; eth2 up: a link over rxe1 again, an echo crosses it; VM 0's eth2 down and up: VM 0 invites, a link again, an echo crosses it" 900 move
tap_case "connections closed: both VMs' groups gone, nothing freed while posted" 60 closed
tap_done
