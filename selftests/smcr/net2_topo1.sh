#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# smcr/net2_topo1.sh: topology 1 with two independent RoCE paths between
# its two endpoints (topo_veth_rxe2, lib/topology.sh): the one-VM form of
# issue 20's two test networks:
#   - smcv1/smcv2 (10.43.2.x, fd43:2::x) and smcw1/smcw2 (10.43.3.x,
#     fd43:3::x) are addressed, and this host routes each address through
#     the other end of its own pair (rules pref 10-13, tables 4301-4304);
#   - rxev1/rxev2 on smcv1/smcv2 and rxew1/rxew2 on smcw1/smcw2 are
#     ACTIVE, each with the RoCEv2 GID of its own netdev's address only;
#   - pings to each pair's far end, IPv4 and IPv6, cross that pair's veth
#     and not the other's (packet counters);
#   - smcw1 down: rxew1 goes DOWN, rxev1 stays ACTIVE and pair 1 still
#     carries pings; smcw1 up (topo_veth_rules on puts the routes back):
#     rxew1 ACTIVE, routed over smcw1 again;
#   - SMC-R over the second pair (af_smc smcr=1 loopback_ism=0): a
#     byte-exact 1 MiB echo 10.43.3.1 -> 10.43.3.2, SMCR by sock_diag,
#     rxew1/rxew2 counters moving a packet per KiB each way, rxev1/rxev2's
#     not moving; a held connection's groups are on rxew1 (client) and
#     rxew2 (server).
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/topology.sh"
. "$here/../lib/module.sh"

smc_own_module_all "smcr=1 is af_smc's own parameter"
command -v rdma >/dev/null || smc_missing_all "no rdma command"
T=$SMC_SELFTESTS/tools
L=/sys/kernel/debug/af_smc/smcr_lgr
port=4462

stop_server() {
	kill "$(cat "$TMPDIR/srv.pid" 2>/dev/null)" 2>/dev/null
	tap_wait_for 5 sh -c "! kill -0 \$(cat '$TMPDIR/srv.pid' 2>/dev/null) 2>/dev/null"
	return 0
}
cleanup() {
	stop_server
	topo_smcr_cleanup
}
tap_at_exit cleanup

# gid_of A.B.C.D: the RoCEv2 GID of an IPv4 address as sysfs prints it.
gid_of() {
	# shellcheck disable=SC2046 # four numbers
	set -- $(echo "$1" | tr . ' ')
	printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x\n' "$1" "$2" "$3" "$4"
}

# routed_via ADDR DEV SRC: this host sends to ADDR out of DEV from SRC.
routed_via() {
	r=$(ip route get "$1" | head -n 1)
	echo "$1: $r"
	case "$r" in
	*" dev $2 "*" src $3 "* | *" dev $2 "*" src $3") ;;
	*) tap_fail "$1 is not routed out of $2 from $3" ;;
	esac
}

routes() {
	routed_via $TOPO_VETH_IP4_2 smcv1 $TOPO_VETH_IP4_1
	routed_via $TOPO_VETH_IP4_1 smcv2 $TOPO_VETH_IP4_2
	routed_via $TOPO_VETH2_IP4_2 smcw1 $TOPO_VETH2_IP4_1
	routed_via $TOPO_VETH2_IP4_1 smcw2 $TOPO_VETH2_IP4_2
	routed_via $TOPO_VETH_IP6_2 smcv1 $TOPO_VETH_IP6_1
	routed_via $TOPO_VETH_IP6_1 smcv2 $TOPO_VETH_IP6_2
	routed_via $TOPO_VETH2_IP6_2 smcw1 $TOPO_VETH2_IP6_1
	routed_via $TOPO_VETH2_IP6_1 smcw2 $TOPO_VETH2_IP6_2
	for r in 10 11 12 13; do
		ip rule show pref $r | grep -q . || tap_fail "no IPv4 rule at pref $r"
		ip -6 rule show pref $r | grep -q . || tap_fail "no IPv6 rule at pref $r"
	done
	return 0
}

devices() {
	rdma link show >"$TMPDIR/rdma"
	cat "$TMPDIR/rdma"
	for d in v1 v2 w1 w2; do
		grep -q "^link rxe$d/1 state ACTIVE .*netdev smc$d *\$" "$TMPDIR/rdma" ||
			tap_fail "rxe$d is not ACTIVE on smc$d"
	done
	# Each device has its own netdev's GID, and not the other pair's.
	for d in v1:$TOPO_VETH_IP4_1:$TOPO_VETH2_IP4_1 v2:$TOPO_VETH_IP4_2:$TOPO_VETH2_IP4_2 \
		w1:$TOPO_VETH2_IP4_1:$TOPO_VETH_IP4_1 w2:$TOPO_VETH2_IP4_2:$TOPO_VETH_IP4_2; do
		dev=rxe${d%%:*} own=${d#*:} own=${own%%:*} other=${d##*:}
		cat /sys/class/infiniband/$dev/ports/1/gids/* 2>/dev/null >"$TMPDIR/gids"
		grep -qx "$(gid_of "$own")" "$TMPDIR/gids" || tap_fail "$dev has no GID of $own"
		grep -qx "$(gid_of "$other")" "$TMPDIR/gids" && tap_fail "$dev has the GID of $other"
	done
	return 0
}

# tx DEV: DEV's tx_packets.
tx() {
	cat "/sys/class/net/$1/statistics/tx_packets"
}

# pings_over ADDR DEV OTHER: 20 pings to ADDR leave through DEV (the near
# end of its pair) and not through OTHER (the near end of the other pair).
pings_over() {
	a=$(tx "$2") b=$(tx "$3")
	ping -c 20 -i 0.05 -w 20 "$1" >"$TMPDIR/ping" 2>&1 ||
		tap_fail "ping $1: $(tail -n 2 "$TMPDIR/ping" | tr '\n' ' ')"
	da=$(($(tx "$2") - a)) db=$(($(tx "$3") - b))
	tap_diag "20 pings to $1: $2 sent +$da, $3 +$db packets"
	[ $da -ge 20 ] || tap_fail "$2 did not carry the pings to $1"
	[ $db -le 5 ] || tap_fail "$3 moved too while pinging $1"
	return 0
}

pings() {
	pings_over $TOPO_VETH_IP4_2 smcv1 smcw1
	pings_over $TOPO_VETH2_IP4_2 smcw1 smcv1
	pings_over $TOPO_VETH_IP6_2 smcv1 smcw1
	pings_over $TOPO_VETH2_IP6_2 smcw1 smcv1
	# And the other way: to the first end, out of the second.
	pings_over $TOPO_VETH2_IP4_1 smcw2 smcv2
	pings_over $TOPO_VETH_IP4_1 smcv2 smcw2
	return 0
}

port_state() {
	rdma link show "$1/1" | sed -n 's/.* state \([A-Z_]*\) .*/\1/p'
}

one_down() {
	tap_assert "smcw1 down" ip link set smcw1 down
	tap_wait_for 10 sh -c "rdma link show rxew1/1 | grep -q 'state DOWN'" ||
		tap_fail "rxew1 is $(port_state rxew1) with smcw1 down"
	[ "$(port_state rxev1)" = ACTIVE ] || tap_fail "rxev1 is $(port_state rxev1) with smcw1 down"
	pings_over $TOPO_VETH_IP4_2 smcv1 smcw1
	tap_assert "smcw1 up" ip link set smcw1 up
	tap_wait_for 10 sh -c "ip link show smcw1 | grep -q 'state UP'" || tap_fail "smcw1 is not UP again"
	tap_assert "the rules and routes back" topo_veth_rules on
	tap_wait_for 10 sh -c "rdma link show rxew1/1 | grep -q 'state ACTIVE'" ||
		tap_fail "rxew1 is $(port_state rxew1) with smcw1 up again"
	routed_via $TOPO_VETH2_IP4_2 smcw1 $TOPO_VETH2_IP4_1
	pings_over $TOPO_VETH2_IP4_2 smcw1 smcv1
	return 0
}

smcr_w() {
	rm -f "$TMPDIR/ready"
	$T/smc-echo -s -k 0 -f smc -a $TOPO_VETH2_IP4_2 -p $port -r "$TMPDIR/ready" -t 300 \
		>"$TMPDIR/srv.log" 2>&1 </dev/null &
	echo $! >"$TMPDIR/srv.pid"
	tap_wait_for 30 test -e "$TMPDIR/ready" || tap_fail "no echo server on $TOPO_VETH2_IP4_2"
	w1=$(topo_rxe_pkts rxew1) w2=$(topo_rxe_pkts rxew2)
	v1=$(topo_rxe_pkts rxev1) v2=$(topo_rxe_pkts rxev2)
	out=$($T/smc-echo -c -f smc -a $TOPO_VETH2_IP4_2 -p $port -n 1048576 -w 20 -t 300 2>&1) ||
		tap_fail "1 MiB echo to $TOPO_VETH2_IP4_2: $out"
	echo "$out"
	w1=$(($(topo_rxe_pkts rxew1) - w1)) w2=$(($(topo_rxe_pkts rxew2) - w2))
	v1=$(($(topo_rxe_pkts rxev1) - v1)) v2=$(($(topo_rxe_pkts rxev2) - v2))
	tap_diag "1 MiB each way: rxew1 +$w1, rxew2 +$w2, rxev1 +$v1, rxev2 +$v2 packets"
	echo "$out" | grep -qx 'mode SMCR reason 0x00000000 peer 0x00000000' ||
		tap_fail "the client is not SMC-R by sock_diag: $(echo "$out" | grep '^mode' || echo 'no mode line')"
	[ $w1 -ge 2048 ] && [ $w2 -ge 2048 ] || tap_fail "rxew1/rxew2 did not carry the echo"
	[ $v1 = 0 ] && [ $v2 = 0 ] || tap_fail "rxev1/rxev2 moved during an echo over the second pair"

	: >"$TMPDIR/probe"
	$T/smc-fbprobe $TOPO_VETH2_IP4_2 $port "$(tap_scaled 20)" >"$TMPDIR/probe" 2>&1 &
	pid=$!
	tap_wait_for 30 grep -q mode "$TMPDIR/probe" || tap_fail "no answer: $(cat "$TMPDIR/probe")"
	tap_diag "client: $(cat "$TMPDIR/probe")"
	cat $L
	grep -q '^lgr .* role client dev rxew1 port 1 ' $L || tap_fail "no client group on rxew1"
	grep -q '^lgr .* role server dev rxew2 port 1 ' $L || tap_fail "no server group on rxew2"
	grep -q '^lgr .* dev rxev[12] ' $L && tap_fail "a group is on the first pair"
	kill $pid 2>/dev/null
	wait $pid 2>/dev/null
	return 0
}

tap_case "setup: smcr=1, two veth pairs with rxev1/rxev2 and rxew1/rxew2" 180 topo_smcr_setup2
tap_case "each address routed through its own pair, rules at pref 10-13 (IPv4, IPv6)" 30 routes
tap_case "rxev1/rxev2 on smcv1/smcv2, rxew1/rxew2 on smcw1/smcw2: ACTIVE, own GIDs" 30 devices
tap_case "pings to each end cross their own pair only (IPv4, IPv6)" 120 pings
tap_case "smcw1 down: rxew1 DOWN, pair 1 carries on; up: rxew1 ACTIVE, routed again" 120 one_down
tap_case "SMC-R over the second pair: 1 MiB echo on rxew1/rxew2, none on rxev1/rxev2" 240 smcr_w
tap_done
