#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# smcr/data_2vm.sh: SMC-R connections that carry data, between our modules
# on two VMs, rxe0 on eth0 of each, af_smc loaded with smcr=1 loopback_ism=0
# (Documentation/smc-r.md):
#   - a connection is SMC-R on both ends: sock_diag mode SMCR (0) with no
#     fallback on the client, one server link group with one connection on
#     the server (debugfs smcr_lgr);
#   - byte-exact echoes of 1 B .. 4 MiB (client -> server -> client), with
#     rxe0's packet counters moving by at least one packet per KiB each
#     way, so the bytes went over RDMA and not over TCP;
#   - every connection after the first reuses the link group: one group on
#     each side, the same QP number throughout;
#   - 200 connections open at once, each echoing 1000 verified bytes, all
#     SMC-R, in one link group (one QP) on each side;
#   - the client's rdma link del under live connections: they end with an
#     error at once, the server's group ends by keepalive/DELETE_LINK;
#   - rmmod works afterwards on both VMs.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/topology.sh"

[ "$(id -u)" = 0 ] || tap_skip_all "needs root"
[ "${SMC_VM_COUNT:-1}" -ge 2 ] || tap_skip_all "needs --vms 2"
[ "${SMC_MODULE:-ours}" = ours ] && [ "${SMC_PEER_MODULE:-ours}" = ours ] ||
	tap_skip_all "smcr=1 is af_smc's own parameter"
module=${SMC_MODULE_FILE:-}
[ -f "$module" ] || tap_skip_all "no module file (SMC_MODULE_FILE)"
T=$SMC_SELFTESTS/tools
L=/sys/kernel/debug/af_smc/smcr_lgr
C=/sys/class/infiniband/rxe0/ports/1/hw_counters
port=4456

on() {
	# on VM CMD: run CMD on VM 0 (here) or 1.
	if [ "$1" = 0 ]; then sh -c "$2"; else smc-vm-exec "$1" "$2"; fi
}
reload() {
	cmd="rmmod af_smc 2>/dev/null; insmod $module $*"
	on 0 "$cmd" && on 1 "$cmd"
}
stop_server() {
	on 1 'kill $(cat /tmp/srv.pid 2>/dev/null) 2>/dev/null; n=0; while kill -0 $(cat /tmp/srv.pid 2>/dev/null) 2>/dev/null && [ $n -lt 100 ]; do n=$((n+1)); sleep 0.05; done; true'
}
cleanup() {
	stop_server
	topo_cleanup
	reload || tap_diag "could not reload af_smc without smcr"
}
tap_at_exit cleanup

# serve TOOL-ARGS: a server on VM 1 that writes /tmp/ready when listening.
serve() {
	stop_server
	on 1 "rm -f /tmp/ready; $* >/tmp/srv.log 2>&1 </dev/null & echo \$! >/tmp/srv.pid" &&
		on 1 "n=0; until [ -e /tmp/ready ]; do n=\$((n+1)); [ \$n -lt 600 ] || exit 1; sleep 0.05; done"
}

# lgr_field VM ROLE FIELD: FIELD of the first ROLE group on VM.
lgr_field() {
	on "$1" "cat $L" | sed -n "s/^lgr .* role $2 .* $3 \([^ ]*\).*/\1/p" | head -n 1
}
# lgr_count VM ROLE: how many ROLE groups VM has.
lgr_count() {
	on "$1" "cat $L" | grep -c "^lgr .* role $2 "
}
counter() {
	on "$1" "cat $C/$2"
}

setup() {
	tap_assert "af_smc smcr=1 loopback_ism=0 on both VMs" reload smcr=1 loopback_ism=0
	for vm in 0 1; do
		on $vm "grep -q ' /sys/kernel/debug debugfs' /proc/mounts || mount -t debugfs none /sys/kernel/debug"
	done
	# A link notices a vanished peer by TEST_LINK after 1 s of silence
	# (+ 4 s for the answer); read when a group's link comes up.
	for vm in 0 1; do
		on $vm "sysctl -qw net.smc.smcr_testlink_time=1" || tap_fail "no smcr_testlink_time sysctl"
	done
	tap_assert "rxe0 on eth0 of both VMs" topo_vm_rxe
	tap_assert "echo server on VM 1" serve "$T/smc-echo -s -k 0 -f smc -a 10.43.0.2 -p $port -r /tmp/ready -t 300"
	return 0
}

mode_smcr() {
	$T/smc-fbprobe 10.43.0.2 $port 3 >"$TMPDIR/probe" 2>&1 &
	pid=$!
	tap_wait_for 20 grep -q mode "$TMPDIR/probe" || tap_fail "no answer: $(cat "$TMPDIR/probe")"
	out=$(cat "$TMPDIR/probe")
	tap_diag "client: $out"
	tap_diag "VM 0: $(on 0 "cat $L" | tr '\n' ';')"
	tap_diag "VM 1: $(on 1 "cat $L" | tr '\n' ';')"
	[ "$out" = "mode 0 fallback 0x00000000/0x00000000" ] ||
		tap_fail "the client is not SMC-R (mode 0, no fallback)"
	[ "$(lgr_count 1 server)" = 1 ] || tap_fail "the server has not one server group"
	[ "$(lgr_field 1 server conns)" = 1 ] || tap_fail "the server's group has not one connection"
	[ "$(lgr_count 0 client)" = 1 ] || tap_fail "the client has not one client group"
	wait $pid || tap_fail "smc-fbprobe failed"
	lgr_field 0 client qpn >"$TMPDIR/qpn0"
	lgr_field 1 server qpn >"$TMPDIR/qpn1"
	return 0
}

# echo_n BYTES: a byte-exact echo over SMC-R, rxe counters moving with it.
echo_n() {
	s0=$(counter 0 sent_pkts) r0=$(counter 0 rcvd_pkts)
	out=$($T/smc-echo -c -f smc -a 10.43.0.2 -p $port -n "$1" -w 20 -t 300 2>&1) ||
		tap_fail "echo of $1 bytes: $out"
	s1=$(counter 0 sent_pkts) r1=$(counter 0 rcvd_pkts)
	tap_diag "$1 B: $(echo "$out" | tail -n 1); rxe0 sent +$((s1 - s0)) rcvd +$((r1 - r0)) packets"
	min=$(( $1 / 1024 ))
	[ $((s1 - s0)) -ge $min ] && [ $((s1 - s0)) -gt 0 ] ||
		tap_fail "rxe0 sent $((s1 - s0)) packets for $1 bytes"
	[ $((r1 - r0)) -ge $min ] && [ $((r1 - r0)) -gt 0 ] ||
		tap_fail "rxe0 received $((r1 - r0)) packets for $1 bytes"
	return 0
}

echoes() {
	for n in 1 1000 65536 65537 1048576 4194304; do
		echo_n $n
	done
	return 0
}

same_group() {
	tap_diag "VM 0: $(on 0 "cat $L" | tr '\n' ';')"
	tap_diag "VM 1: $(on 1 "cat $L" | tr '\n' ';')"
	[ "$(lgr_count 0 client)" = 1 ] || tap_fail "the client has $(lgr_count 0 client) groups"
	[ "$(lgr_count 1 server)" = 1 ] || tap_fail "the server has $(lgr_count 1 server) groups"
	[ "$(lgr_field 0 client qpn)" = "$(cat "$TMPDIR/qpn0")" ] ||
		tap_fail "the client's QP changed: $(cat "$TMPDIR/qpn0") -> $(lgr_field 0 client qpn)"
	[ "$(lgr_field 1 server qpn)" = "$(cat "$TMPDIR/qpn1")" ] ||
		tap_fail "the server's QP changed"
	return 0
}

many() {
	tap_assert "conns server on VM 1" serve "$T/smc-conns -s -a 10.43.0.2 -p $((port + 1)) -n 200 -r /tmp/ready -t 300"
	$T/smc-conns -c -a 10.43.0.2 -p $((port + 1)) -n 200 -H 4 -t 300 >"$TMPDIR/many" 2>&1 &
	pid=$!
	tap_wait_for 240 grep -q "^open" "$TMPDIR/many" || tap_fail "no result: $(tail -n 3 "$TMPDIR/many")"
	tap_diag "client: $(cat "$TMPDIR/many" | tail -n 3 | tr '\n' ';')"
	tap_diag "VM 0: $(on 0 "cat $L" | tr '\n' ';')"
	tap_diag "VM 1: $(on 1 "cat $L" | tr '\n' ';')"
	grep -q "^open 200 verified 200 modes smcr=200 smcd=0 tcp=0" "$TMPDIR/many" ||
		tap_fail "not 200 verified SMC-R connections"
	[ "$(lgr_count 0 client)" = 1 ] || tap_fail "the client has $(lgr_count 0 client) groups"
	[ "$(lgr_field 0 client conns)" = 200 ] || tap_fail "the client's group has $(lgr_field 0 client conns) connections"
	[ "$(lgr_field 1 server conns)" = 200 ] || tap_fail "the server's group has $(lgr_field 1 server conns) connections"
	[ "$(lgr_field 0 client links)" = 1 ] || tap_fail "not one link"
	[ "$(lgr_field 0 client qpn)" = "$(cat "$TMPDIR/qpn0")" ] || tap_fail "a new QP on the client"
	wait $pid || tap_fail "smc-conns failed"
	return 0
}

port_down() {
	# ip link set eth0 down on VM 0: its rxe0 port goes down, the link on
	# it fails at once, and so does every connection of its group. The
	# VMs' command channel is on eth1.
	tap_assert "echo server on VM 1" serve "$T/smc-echo -s -k 0 -f smc -a 10.43.0.2 -p $port -r /tmp/ready -t 300"
	$T/smc-echo -c -f smc -a 10.43.0.2 -p $port -n 256M -w 20 -t 300 >"$TMPDIR/down" 2>&1 &
	pid=$!
	sleep 3
	kill -0 $pid 2>/dev/null || tap_fail "the transfer ended early: $(cat "$TMPDIR/down")"
	tap_expect "eth0 down on VM 0" ip link set eth0 down
	t0=$(date +%s)
	tap_wait_for 15 sh -c "! kill -0 $pid 2>/dev/null" || tap_fail "the transfer did not end"
	wait $pid && tap_fail "the transfer succeeded without its port"
	tap_diag "client after $(( $(date +%s) - t0 )) s: $(tail -n 1 "$TMPDIR/down")"
	tap_diag "VM 0: $(on 0 "cat $L" | tr '\n' ';')"
	tap_expect "eth0 up on VM 0" ip link set eth0 up
	# A new connection makes a new group once the port is back.
	tap_wait_for 30 sh -c "rdma link show rxe0/1 | grep -q 'state ACTIVE'" || tap_fail "rxe0 is not active again"
	tap_wait_for 30 sh -c "[ \"\$(cat $L | grep -c '^lgr .* state dead')\" = 0 ]" ||
		tap_fail "the dead group stays: $(on 0 "cat $L" | tr '\n' ';')"
	# The server's group ends by its keepalive (1 s + 4 s): until then it
	# would offer its old link, which the client no longer has.
	tap_wait_for 30 sh -c "[ \"\$(smc-vm-exec 1 'cat $L' | grep -c '^lgr ')\" = 0 ]" ||
		tap_fail "the server's group stays: $(on 1 "cat $L" | tr '\n' ';')"
	echo_n 65536
	return 0
}

link_del() {
	# The server's keepalive (1 s, setup) finds the client gone within 1 s + 4 s.
	tap_assert "echo server on VM 1" serve "$T/smc-echo -s -k 0 -f smc -a 10.43.0.2 -p $port -r /tmp/ready -t 300"
	$T/smc-echo -c -f smc -a 10.43.0.2 -p $port -n 256M -w 20 -t 300 >"$TMPDIR/big" 2>&1 &
	pid=$!
	sleep 3
	kill -0 $pid 2>/dev/null || tap_fail "the transfer ended early: $(cat "$TMPDIR/big")"
	tap_expect "rdma link del rxe0 on VM 0" rdma link del rxe0
	t0=$(date +%s)
	tap_wait_for 15 sh -c "! kill -0 $pid 2>/dev/null" || tap_fail "the transfer did not end"
	wait $pid && tap_fail "the transfer succeeded without its link"
	tap_diag "client after $(( $(date +%s) - t0 )) s: $(tail -n 1 "$TMPDIR/big")"
	t0=$(date +%s)
	tap_wait_for 30 sh -c "[ \"\$(smc-vm-exec 1 'cat $L' | grep -c '^lgr ')\" = 0 ]" ||
		tap_fail "the server still has groups: $(on 1 "cat $L" | tr '\n' ';')"
	tap_diag "the server's groups went within $(( $(date +%s) - t0 )) s more"
	return 0
}

unload() {
	c="! grep -q '^af_smc ' /proc/modules || rmmod af_smc"
	on 0 "$c" && on 1 "$c"
}
teardown() {
	stop_server
	# Closed sockets may wait a little for their (gone) peer first.
	tap_wait_for 30 unload || tap_fail "af_smc does not unload: $(on 1 'cat /proc/modules' | grep af_smc)"
	tap_expect "insmod on both VMs" reload
	return 0
}

tap_case "setup: smcr=1, rxe0 on both VMs, echo server" 180 setup
tap_case "a connection is SMC-R on both ends" 60 mode_smcr
tap_case "byte-exact echoes of 1 B to 4 MiB over RDMA" 300 echoes
tap_case "later connections reuse the link group (same QP)" 30 same_group
tap_case "200 connections at once share one link group" 300 many
tap_case "eth0 down under a transfer: error at once, then a new group" 120 port_down
tap_case "rdma link del under a transfer: error, groups freed" 90 link_del
tap_case "teardown: af_smc unloads and reloads on both VMs" 60 teardown
tap_done
