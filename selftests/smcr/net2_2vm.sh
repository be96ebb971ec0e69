#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# smcr/net2_2vm.sh: the second test network of topology 2+net2 (vm/run
# --vms 2 --test-nets 2; Documentation/vm-harness.md, "Topologies"), the
# two independent wires that link groups with two links need (issue 20):
#   - the environment names the topology (SMC_TEST_NETS=2, 2+net2);
#   - eth2 on each VM: its MAC (52:54:00:44:00:0i), up, 10.44.0.(i+1)/24
#     and fd44::(i+1)/64; eth0 keeps 10.43.0.(i+1) and fd43::(i+1) only;
#   - pings over eth2 both ways, IPv4 and IPv6;
#   - the wires are separate: pings over eth2 move the packet counters of
#     eth2 on both VMs and not eth0's, pings over eth0 the other way round;
#   - VM 1's eth2 down: 10.44.0.2 no longer answers, 10.43.0.2 still does,
#     and again after eth2 is up; VM 0's eth0 down: the same the other way;
#   - topo_vm_rxe2: rxe0 on eth0 and rxe1 on eth2 of both VMs, ACTIVE,
#     each with the RoCEv2 GID of its own netdev's address only, and
#     af_smc's registry (debugfs rdma) lists both;
#   - SMC-R over eth2 (af_smc smcr=1 loopback_ism=0 on both VMs): a
#     byte-exact 1 MiB echo 10.44.0.1 -> 10.44.0.2, SMCR by sock_diag;
#     rxe1's packet counters move by a packet per KiB each way on both
#     VMs and rxe0's do not move; a connection held open has its link
#     group on rxe1 (debugfs smcr_lgr, smcss -R with rxe1's GIDs);
#   - rmmod and insmod of af_smc on both VMs afterwards.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/topology.sh"

topo_require_ours_2vm "smcr=1 is af_smc's own parameter"
T=$SMC_SELFTESTS/tools
B=/smc/bin
L=/sys/kernel/debug/af_smc/smcr_lgr
R=/sys/kernel/debug/af_smc/rdma
port=4461

cleanup() {
	topo_stop_2vm /tmp/net2srv.pid
	# Whatever a case left down comes up again for the suite's next entries.
	for vm in 0 1; do topo_on $vm "ip link set eth0 up; ip link set eth2 up" 2>/dev/null; done
	topo_cleanup
	topo_reload_2vm || tap_diag "could not reload af_smc without smcr"
}
tap_at_exit cleanup

# gid_of A.B.C.D: the RoCEv2 GID of an IPv4 address as sysfs prints it.
gid_of() {
	# shellcheck disable=SC2046 # four numbers
	set -- $(echo "$1" | tr . ' ')
	printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x\n' "$1" "$2" "$3" "$4"
}

environment() {
	tap_expect "SMC_TEST_NETS is 2" test "${SMC_TEST_NETS-}" = 2
	tap_expect "SMC_TOPOLOGY is 2+net2" test "${SMC_TOPOLOGY-}" = 2+net2
	tap_expect "VM 1 has SMC_TEST_NETS=2 too" smc-vm-exec 1 'test "$SMC_TEST_NETS" = 2'
	return 0
}

# addresses VM: eth2 and eth0 of VM as vm/guest/init set them up.
addresses() {
	n=$(($1 + 1))
	topo_on "$1" "ip -o link show dev eth2; ip -o addr show dev eth2" >"$TMPDIR/eth2" 2>&1 ||
		{ tap_fail "VM $1 has no eth2: $(cat "$TMPDIR/eth2")"; return 0; }
	topo_on "$1" "ip -o addr show dev eth0" >"$TMPDIR/eth0" 2>&1
	sed "s/^/VM $1: /" "$TMPDIR/eth2" "$TMPDIR/eth0"
	grep -q "link/ether 52:54:00:44:00:0$1 " "$TMPDIR/eth2" || tap_fail "VM $1: eth2's MAC is not 52:54:00:44:00:0$1"
	grep -q 'state UP' "$TMPDIR/eth2" || tap_fail "VM $1: eth2 is not UP"
	grep -q " inet 10\.44\.0\.$n/24 " "$TMPDIR/eth2" || tap_fail "VM $1: eth2 has no 10.44.0.$n/24"
	grep -q " inet6 fd44::$n/64 " "$TMPDIR/eth2" || tap_fail "VM $1: eth2 has no fd44::$n/64"
	grep -q ' inet 10\.43\.' "$TMPDIR/eth2" && tap_fail "VM $1: eth2 has an address of eth0's network"
	grep -q " inet 10\.43\.0\.$n/24 " "$TMPDIR/eth0" || tap_fail "VM $1: eth0 lost 10.43.0.$n/24"
	grep -q " inet6 fd43::$n/64 " "$TMPDIR/eth0" || tap_fail "VM $1: eth0 lost fd43::$n/64"
	grep -q ' inet6\{0,1\} \(10\.44\.\|fd44:\)' "$TMPDIR/eth0" && tap_fail "VM $1: eth0 has an address of eth2's network"
	return 0
}

# ping_ok VM ADDR: VM reaches ADDR (a few tries, for the first ARP/ND).
ping_ok() {
	topo_on "$1" "ping -c 1 -w 5 $2" >/dev/null 2>&1 ||
		topo_on "$1" "ping -c 2 -w 10 $2" >/dev/null 2>&1
}

pings() {
	tap_expect "VM 0 -> 10.44.0.2" ping_ok 0 10.44.0.2
	tap_expect "VM 1 -> 10.44.0.1" ping_ok 1 10.44.0.1
	tap_expect "VM 0 -> fd44::2" ping_ok 0 fd44::2
	tap_expect "VM 1 -> fd44::1" ping_ok 1 fd44::1
	return 0
}

# packets VM DEV: DEV's tx_packets + rx_packets on VM.
packets() {
	topo_on "$1" "cat /sys/class/net/$2/statistics/tx_packets /sys/class/net/$2/statistics/rx_packets" |
		awk '{ s += $1 } END { print s + 0 }'
}

# pings_on DEV ADDR OTHER: 30 pings from VM 0 out of DEV to ADDR (VM 1)
# move DEV's counters on both VMs by at least 60 packets (30 each way) and
# OTHER's by a few at most (IPv6's own chatter).
pings_on() {
	a0=$(packets 0 "$1") a1=$(packets 1 "$1") b0=$(packets 0 "$3") b1=$(packets 1 "$3")
	topo_on 0 "ping -c 30 -i 0.1 -w 30 -I $1 $2" >"$TMPDIR/ping" 2>&1 ||
		tap_fail "ping -I $1 $2: $(tail -n 2 "$TMPDIR/ping" | tr '\n' ' ')"
	da0=$(($(packets 0 "$1") - a0)) da1=$(($(packets 1 "$1") - a1))
	db0=$(($(packets 0 "$3") - b0)) db1=$(($(packets 1 "$3") - b1))
	tap_diag "30 pings over $1: $1 +$da0 (VM 0) +$da1 (VM 1), $3 +$db0 (VM 0) +$db1 (VM 1) packets"
	[ $da0 -ge 60 ] && [ $da1 -ge 60 ] || tap_fail "$1 did not carry the 60 packets on both VMs"
	[ $db0 -le 6 ] && [ $db1 -le 6 ] || tap_fail "$3 moved too while pinging over $1"
	return 0
}

separate() {
	pings_on eth2 10.44.0.2 eth0
	pings_on eth0 10.43.0.2 eth2
	return 0
}

# one_down VM DEV DOWNADDR OTHERADDR: DEV down on VM: DOWNADDR (on DEV's
# network) stops answering VM 0 or VM 1 (the one that is not VM), OTHERADDR
# (the other network) still does; after DEV is up again both do.
one_down() {
	peer=$((1 - $1))
	tap_assert "$2 down on VM $1" topo_on "$1" "ip link set $2 down"
	if topo_on $peer "ping -c 2 -w 3 $3" >/dev/null 2>&1; then
		tap_fail "$3 still answers VM $peer with $2 down on VM $1"
	fi
	tap_expect "$4 answers VM $peer with $2 down on VM $1" ping_ok $peer "$4"
	tap_assert "$2 up on VM $1" topo_on "$1" "ip link set $2 up"
	tap_wait_for 20 ping_ok $peer "$3" || tap_fail "$3 does not answer VM $peer after $2 is up again"
	tap_expect "$4 still answers VM $peer" ping_ok $peer "$4"
	return 0
}

setup_rxe() {
	tap_assert "af_smc smcr=1 loopback_ism=0 on both VMs" topo_reload_2vm smcr=1 loopback_ism=0
	for vm in 0 1; do
		topo_on $vm "grep -q ' /sys/kernel/debug debugfs' /proc/mounts || mount -t debugfs none /sys/kernel/debug"
	done
	tap_assert "rxe0 on eth0 and rxe1 on eth2 of both VMs" topo_vm_rxe2
	for vm in 0 1; do
		n=$((vm + 1))
		topo_on $vm "rdma link show" >"$TMPDIR/rdma" 2>&1
		sed "s/^/VM $vm: /" "$TMPDIR/rdma"
		grep -q '^link rxe0/1 state ACTIVE .*netdev eth0 *$' "$TMPDIR/rdma" ||
			tap_fail "VM $vm: rxe0 is not ACTIVE on eth0"
		grep -q '^link rxe1/1 state ACTIVE .*netdev eth2 *$' "$TMPDIR/rdma" ||
			tap_fail "VM $vm: rxe1 is not ACTIVE on eth2"
		# Each device's RoCEv2 GID is its own netdev's IPv4 address.
		topo_on $vm "cat /sys/class/infiniband/rxe0/ports/1/gids/*" >"$TMPDIR/g0" 2>/dev/null
		topo_on $vm "cat /sys/class/infiniband/rxe1/ports/1/gids/*" >"$TMPDIR/g1" 2>/dev/null
		grep -qx "$(gid_of 10.43.0.$n)" "$TMPDIR/g0" || tap_fail "VM $vm: rxe0 has no GID of 10.43.0.$n"
		grep -qx "$(gid_of 10.44.0.$n)" "$TMPDIR/g1" || tap_fail "VM $vm: rxe1 has no GID of 10.44.0.$n"
		grep -qx "$(gid_of 10.44.0.$n)" "$TMPDIR/g0" && tap_fail "VM $vm: rxe0 has eth2's GID"
		grep -qx "$(gid_of 10.43.0.$n)" "$TMPDIR/g1" && tap_fail "VM $vm: rxe1 has eth0's GID"
		# af_smc's own registry sees both ports with their GIDs.
		tap_wait_for 10 topo_on $vm "grep -q '^rxe1 port 1 gid ::ffff:10.44.0.$n ' $R && grep -q '^rxe0 port 1 gid ::ffff:10.43.0.$n ' $R" ||
			tap_fail "VM $vm: af_smc's registry lacks rxe0's or rxe1's GID: $(topo_on $vm "cat $R" | tr '\n' ';')"
	done
	return 0
}

serve() {
	topo_stop_2vm /tmp/net2srv.pid
	topo_on 1 "rm -f /tmp/net2ready; $T/smc-echo -s -k 0 -f smc -a 10.44.0.2 -p $port -r /tmp/net2ready -t 300 >/tmp/net2srv.log 2>&1 </dev/null & echo \$! >/tmp/net2srv.pid" &&
		topo_on 1 "n=0; until [ -e /tmp/net2ready ]; do n=\$((n+1)); [ \$n -lt 600 ] || exit 1; sleep 0.05; done"
}

smcr_eth2() {
	tap_assert "echo server on VM 1 at 10.44.0.2" serve
	a0=$(topo_rxe_pkts_on 0 rxe1) a1=$(topo_rxe_pkts_on 1 rxe1) b0=$(topo_rxe_pkts_on 0 rxe0) b1=$(topo_rxe_pkts_on 1 rxe0)
	out=$($T/smc-echo -c -f smc -a 10.44.0.2 -p $port -n 1048576 -w 20 -t 300 2>&1) ||
		tap_fail "1 MiB echo to 10.44.0.2: $out"
	echo "$out"
	da0=$(($(topo_rxe_pkts_on 0 rxe1) - a0)) da1=$(($(topo_rxe_pkts_on 1 rxe1) - a1))
	db0=$(($(topo_rxe_pkts_on 0 rxe0) - b0)) db1=$(($(topo_rxe_pkts_on 1 rxe0) - b1))
	tap_diag "1 MiB each way: rxe1 +$da0 (VM 0) +$da1 (VM 1), rxe0 +$db0 (VM 0) +$db1 (VM 1) packets"
	echo "$out" | grep -qx 'mode SMCR reason 0x00000000 peer 0x00000000' ||
		tap_fail "the client is not SMC-R by sock_diag: $(echo "$out" | grep '^mode' || echo 'no mode line')"
	# 1 MiB each way in packets of at most 1 KiB (rxe's path MTU here),
	# sent and received: 2048 packets at least on each side.
	[ $da0 -ge 2048 ] && [ $da1 -ge 2048 ] || tap_fail "rxe1 did not carry the echo on both VMs"
	[ $db0 = 0 ] && [ $db1 = 0 ] || tap_fail "rxe0 moved during an echo over eth2"

	# A connection held open: its link group is on rxe1 on both sides.
	: >"$TMPDIR/probe"
	$T/smc-fbprobe 10.44.0.2 $port "$(tap_scaled 20)" >"$TMPDIR/probe" 2>&1 &
	pid=$!
	tap_wait_for 30 grep -q mode "$TMPDIR/probe" || tap_fail "no answer: $(cat "$TMPDIR/probe")"
	tap_diag "client: $(cat "$TMPDIR/probe")"
	grep -qx 'mode 0 fallback 0x00000000/0x00000000' "$TMPDIR/probe" ||
		tap_fail "the held connection is not SMC-R"
	topo_on 0 "cat $L" >"$TMPDIR/lgr0"
	topo_on 1 "cat $L" >"$TMPDIR/lgr1"
	sed 's/^/VM 0: /' "$TMPDIR/lgr0"
	sed 's/^/VM 1: /' "$TMPDIR/lgr1"
	grep -q '^lgr .* role client dev rxe1 port 1 ' "$TMPDIR/lgr0" || tap_fail "VM 0 has no client group on rxe1"
	grep -q '^lgr .* role server dev rxe1 port 1 ' "$TMPDIR/lgr1" || tap_fail "VM 1 has no server group on rxe1"
	grep -q '^lgr .* dev rxe0 ' "$TMPDIR/lgr0" "$TMPDIR/lgr1" && tap_fail "a group is on rxe0"
	$B/smcss -R >"$TMPDIR/ss" || tap_fail "smcss -R"
	sed 's/^/smcss -R: /' "$TMPDIR/ss"
	gc=$(gid_of 10.44.0.1) gs=$(gid_of 10.44.0.2)
	nc=$(awk -v g="$gc" -v p="$gs" -v s="10.44.0.2:$port" '$1 == "ACTIVE" &&
		index($4, "10.44.0.1:") == 1 && $5 == s && $7 == "SMCR" && $8 == "CLNT" &&
		$9 == "rxe1" && $10 == "01" && $12 == g && $13 == p' "$TMPDIR/ss" | wc -l)
	[ "$nc" = 1 ] || tap_fail "smcss -R shows $nc connections 10.44.0.1 -> 10.44.0.2 as CLNT on rxe1 with its GIDs, not 1"
	kill $pid 2>/dev/null
	wait $pid 2>/dev/null
	return 0
}

teardown() {
	topo_stop_2vm /tmp/net2srv.pid
	tap_expect "rmmod and insmod on both VMs" topo_reload_2vm
	return 0
}

tap_case "the environment names topology 2+net2" 20 environment
tap_case "VM 0: eth2 up with 52:54:00:44:00:00, 10.44.0.1/24, fd44::1/64; eth0 as before" 30 addresses 0
tap_case "VM 1: eth2 up with 52:54:00:44:00:01, 10.44.0.2/24, fd44::2/64; eth0 as before" 30 addresses 1
tap_case "pings over eth2 both ways, IPv4 and IPv6" 90 pings
tap_case "separate wires: pings over eth2 move eth2's counters only, over eth0 eth0's only" 120 separate
tap_case "eth2 down on VM 1: 10.44.0.2 silent, 10.43.0.2 answers; eth2 up: both" 120 one_down 1 eth2 10.44.0.2 10.43.0.2
tap_case "eth0 down on VM 0: 10.43.0.1 silent, 10.44.0.1 answers; eth0 up: both" 120 one_down 0 eth0 10.43.0.1 10.44.0.1
tap_case "rxe0 on eth0 and rxe1 on eth2 of both VMs: ACTIVE, own GIDs, in af_smc's registry" 180 setup_rxe
tap_case "SMC-R over eth2: 1 MiB echo 10.44.0.1 -> 10.44.0.2 on rxe1, none on rxe0; smcss -R" 240 smcr_eth2
tap_case "teardown: af_smc unloads and reloads on both VMs" 60 teardown
tap_done
