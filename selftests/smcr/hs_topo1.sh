#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# smcr/hs_topo1.sh: the SMC-Rv1 handshake of smcr/hs_2vm
# inside ONE VM, between two endpoints that each have their own address,
# veth end and soft-RoCE device (topology 1, topo_veth_rxe):
#   client 10.43.2.1 on smcv1 with rxev1, server 10.43.2.2 on smcv2 with
#   rxev2; policy routing sends traffic between the two addresses over the
#   veth instead of "local" (Documentation/smc-r.md, "soft-RoCE in one VM").
# af_smc is loaded with smcr_probe=1 loopback_ism=0. Shown:
#   - the TCP connection really crosses the veth (smcv1 sends, smcv2
#     receives), and af_smc maps smcv1 to rxev1 and smcv2 to rxev2;
#   - one connection: a first link confirmed on the client and on the
#     server (LLC CONFIRM_LINK over the QPs), and the connection is SMC-R
#     (no fallback); and the RoCE packet counters
#     (sysfs hw_counters sent_pkts/rcvd_pkts) of BOTH rxe devices moved:
#     rxev2 can only receive what came in on smcv2, so the link's packets
#     crossed the veth and did not loop back inside one rxe device;
#   - 64 KiB echoed byte-exact over SMC-R;
#   - five connections at once: all SMC-R, in the link group of the first
#     (at most one new link on each side);
#   - IPv6 (fd43:2::1 -> fd43:2::2, SMC-Rv1 with the IPv6 prefix area):
#     SMC-R in the group the IPv4 connections made (the RoCE GIDs are the
#     ports' IPv4 ones), 64 KiB echoed byte-exact; with the client's
#     address as a /128 (a prefix the server does not have) the server
#     declines 0x03070000 and the echo still works over TCP;
#   - the same connection without the policy rules (plain routing: the
#     route is local over lo and its source is the server's own address,
#     both ends on smcv2): af_smc takes smcv2's port for both ends, a new
#     link loops back inside rxev2, and rxev1 counts no RoCE packet: the
#     topology, not luck, carried the links above across the veth;
#   - rmmod af_smc and insmod afterwards, with the rxe devices still there,
#     and again after they are gone.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/topology.sh"
. "$here/../lib/module.sh"

[ "$(id -u)" = 0 ] || tap_skip_all "needs root"
[ "${SMC_MODULE:-ours}" = ours ] || tap_skip_all "smcr_probe is af_smc's own parameter"
command -v rdma >/dev/null || tap_skip_all "no rdma command"
module=${SMC_MODULE_FILE:-}
[ -f "$module" ] || tap_skip_all "no module file (SMC_MODULE_FILE)"
T=$SMC_SELFTESTS/tools
D=/sys/kernel/debug/af_smc/smcr_hs
M=/sys/kernel/debug/af_smc/rdma_match
SRV=$TOPO_VETH_IP4_2
SRV6=$TOPO_VETH_IP6_2
port=4456
port6=4457

# shellcheck disable=SC2120 # tap_assert/tap_expect pass it options
reload() {
	smc_module_rmmod && insmod "$module" "$@"
}
stop_server() {
	for f in "$TMPDIR/echo.pid" "$TMPDIR/echo6.pid"; do
		[ -s "$f" ] || continue
		kill "$(cat "$f")" 2>/dev/null
		tap_wait_for 10 sh -c "! kill -0 $(cat "$f") 2>/dev/null" || return 1
	done
}
cleanup() {
	# The echo server holds AF_SMC sockets: it must go before rmmod.
	stop_server
	topo_cleanup
	reload || tap_diag "could not reload af_smc without smcr_probe"
}
tap_at_exit cleanup

# counter NAME: the value of NAME in smcr_hs.
counter() {
	sed -n "s/.* $1 \([0-9]*\).*/\1/p" $D
}
# hw DEV COUNTER: an rxe port counter.
hw() {
	cat "/sys/class/infiniband/$1/ports/1/hw_counters/$2"
}
# rxe_snapshot: "sent1 rcvd1 sent2 rcvd2" of rxev1 and rxev2.
rxe_snapshot() {
	echo "$(hw rxev1 sent_pkts) $(hw rxev1 rcvd_pkts) $(hw rxev2 sent_pkts) $(hw rxev2 rcvd_pkts)"
}
# netdev_stat DEV tx|rx: packets of DEV.
netdev_stat() {
	cat "/sys/class/net/$1/statistics/$2_packets"
}
# match IFNAME: the RDMA device af_smc picks for IFNAME ("none" if none).
match() {
	echo "$1" > $M && cut -d' ' -f2 $M
}

# serve [6]: the AF_SMC echo server on $SRV:$port, or (6) on $SRV6:$port6.
serve() {
	if [ "${1:-}" = 6 ]; then
		set -- 6 $SRV6 $port6
	else
		set -- "" $SRV $port
	fi
	rm -f "$TMPDIR/ready$1"
	$T/smc-echo -s -k 0 -f "smc$1" -a "$2" -p "$3" -r "$TMPDIR/ready$1" -t 300 \
		>"$TMPDIR/echo$1.log" 2>&1 </dev/null &
	echo $! >"$TMPDIR/echo$1.pid"
	tap_wait_for 30 test -e "$TMPDIR/ready$1"
}

setup() {
	# Without the loopback ISM device: a client with an SMC-D device
	# proposes SMC-Dv2 only (the SMC-R probe is not combined with it yet).
	tap_assert "af_smc smcr_probe=1 loopback_ism=0" reload smcr_probe=1 loopback_ism=0
	grep -q ' /sys/kernel/debug debugfs' /proc/mounts ||
		tap_assert "debugfs" mount -t debugfs none /sys/kernel/debug
	tap_assert "topology 1: smcv1/rxev1, smcv2/rxev2, routed over the veth" topo_veth_rxe
	tap_diag "$(ip rule show | tr '\n' ';')"
	tap_diag "route to $SRV: $(ip route get $SRV | head -n 1)"
	tap_diag "route to $TOPO_VETH_IP4_1: $(ip route get $TOPO_VETH_IP4_1 | head -n 1)"
	[ "$(match smcv1)" = rxev1 ] || tap_fail "af_smc maps smcv1 to $(cat $M), not rxev1"
	[ "$(match smcv2)" = rxev2 ] || tap_fail "af_smc maps smcv2 to $(cat $M), not rxev2"
	return 0
}

first_link() {
	c0=$(counter confirmed_client) s0=$(counter confirmed_server)
	# shellcheck disable=SC2046 # four numbers, split on purpose
	set -- $(rxe_snapshot)
	tx0=$(netdev_stat smcv1 tx) rx0=$(netdev_stat smcv2 rx)
	out=$($T/smc-fbprobe $SRV $port 0) || tap_fail "smc-fbprobe: $out"
	tap_diag "client: $out"
	tap_diag "smcr_hs: $(cat $D)"
	[ "$out" = "mode 0 fallback 0x00000000/0x00000000" ] ||
		tap_fail "the client is not SMC-R (mode 0, no fallback)"
	[ "$(counter confirmed_client)" = $((c0 + 1)) ] || tap_fail "no first link confirmed on the client"
	[ "$(counter confirmed_server)" = $((s0 + 1)) ] || tap_fail "no first link confirmed on the server"
	# shellcheck disable=SC2046 # four more
	set -- "$@" $(rxe_snapshot)
	tap_diag "rxev1 sent +$(($5 - $1)) rcvd +$(($6 - $2)), rxev2 sent +$(($7 - $3)) rcvd +$(($8 - $4))"
	tap_diag "smcv1 tx +$(($(netdev_stat smcv1 tx) - tx0)), smcv2 rx +$(($(netdev_stat smcv2 rx) - rx0)) packets"
	# The LLC CONFIRM_LINK exchange alone is a SEND each way, plus acks.
	[ $(($5 - $1)) -gt 0 ] || tap_fail "rxev1 sent no RoCE packet"
	[ $(($6 - $2)) -gt 0 ] || tap_fail "rxev1 received no RoCE packet"
	[ $(($7 - $3)) -gt 0 ] || tap_fail "rxev2 sent no RoCE packet"
	[ $(($8 - $4)) -gt 0 ] || tap_fail "rxev2 received no RoCE packet"
	# Besides rxev2's RoCE packets, the client's TCP segments came in on
	# smcv2 (SYN, ACK, Proposal, Confirm, FIN and acks: at least 5; over
	# lo, only an ARP or two would): the connection took the veth, not lo.
	other=$(($(netdev_stat smcv2 rx) - rx0 - ($8 - $4)))
	[ "$other" -ge 5 ] ||
		tap_fail "smcv2 received $other packets besides RoCE: the TCP connection did not cross the veth"
	return 0
}

echo_64k() {
	# shellcheck disable=SC2046 # two numbers, split on purpose
	set -- $(hw rxev1 sent_pkts) $(hw rxev2 rcvd_pkts)
	tap_expect "64 KiB echoed byte-exact" $T/smc-echo -c -f smc -a $SRV -p $port -n 65536 -w 20
	# 64 KiB each way in RoCE packets of at most 1 KiB (path MTU 1024).
	tap_diag "rxev1 sent +$(($(hw rxev1 sent_pkts) - $1)), rxev2 received +$(($(hw rxev2 rcvd_pkts) - $2)) packets"
	[ $(($(hw rxev1 sent_pkts) - $1)) -ge 64 ] || tap_fail "the 64 KiB did not go over RoCE"
	return 0
}

concurrent() {
	n=5
	c0=$(counter confirmed_client) s0=$(counter confirmed_server)
	i=0
	while [ $i -lt $n ]; do
		$T/smc-fbprobe $SRV $port 0 >"$TMPDIR/cc.$i" 2>&1 &
		i=$((i + 1))
	done
	wait
	i=0
	while [ $i -lt $n ]; do
		grep -q 'mode 0 fallback 0x00000000/0x00000000' "$TMPDIR/cc.$i" ||
			tap_fail "connection $i: $(cat "$TMPDIR/cc.$i")"
		i=$((i + 1))
	done
	c1=$(counter confirmed_client) s1=$(counter confirmed_server)
	tap_diag "first links confirmed: client +$((c1 - c0)), server +$((s1 - s0))"
	# The group of the connections before, or one new one.
	[ $((c1 - c0)) -le 1 ] || tap_fail "client confirmed $((c1 - c0)) links, not at most 1"
	[ $((s1 - s0)) -le 1 ] || tap_fail "server confirmed $((s1 - s0)) links, not at most 1"
	return 0
}

ipv6() {
	tap_diag "route to $SRV6: $(ip -6 route get $SRV6 | head -n 1)"
	# An IPv4 connection held open keeps its group from lingering out.
	$T/smc-fbprobe $SRV $port 30 >"$TMPDIR/hold" 2>&1 &
	hold=$!
	tap_wait_for 30 grep -q '^mode' "$TMPDIR/hold" || tap_fail "the IPv4 holder: $(cat "$TMPDIR/hold")"
	c0=$(counter confirmed_client)
	# shellcheck disable=SC2046 # four numbers, split on purpose
	set -- $(rxe_snapshot)
	out=$($T/smc-fbprobe -6 $SRV6 $port6 0) || tap_fail "smc-fbprobe -6: $out"
	tap_diag "client: $out"
	[ "$out" = "mode 0 fallback 0x00000000/0x00000000" ] ||
		tap_fail "the IPv6 client is not SMC-R (mode 0, no fallback)"
	# Same ports, same GIDs: the IPv4 connections' group, no new link.
	[ "$(counter confirmed_client)" = "$c0" ] ||
		tap_fail "a new link for IPv6: not the IPv4 connection's group"
	kill $hold 2>/dev/null
	wait $hold 2>/dev/null
	tap_expect "64 KiB echoed byte-exact over IPv6" \
		$T/smc-echo -c -f smc6 -a $SRV6 -p $port6 -n 65536 -w 20
	# shellcheck disable=SC2046 # four more
	set -- "$@" $(rxe_snapshot)
	tap_diag "rxev1 sent +$(($5 - $1)) rcvd +$(($6 - $2)), rxev2 sent +$(($7 - $3)) rcvd +$(($8 - $4))"
	[ $(($5 - $1)) -ge 64 ] && [ $(($8 - $4)) -ge 64 ] ||
		tap_fail "the IPv6 connection's 64 KiB did not go from rxev1 to rxev2"
	return 0
}

# The client's address as a /128 while the server's is in fd43:2::/64.
ipv6_prefix_mismatch() {
	tap_assert "fd43:2::1/128 on smcv1" sh -c \
		"ip -6 addr del $TOPO_VETH_IP6_1/64 dev smcv1 && ip -6 addr add $TOPO_VETH_IP6_1/128 dev smcv1 nodad"
	tap_assert "the rules' routes back" topo_veth_rules on
	out=$($T/smc-fbprobe -6 $SRV6 $port6 0) || tap_fail "smc-fbprobe -6: $out"
	tap_diag "client: $out"
	case "$out" in
	*"fallback 0x05000000/0x03070000") ;;
	*) tap_fail "not the server's Decline 0x03070000 (no common prefix)" ;;
	esac
	tap_expect "64 KiB echoed byte-exact over the TCP fallback" \
		$T/smc-echo -c -f smc6 -a $SRV6 -p $port6 -n 65536 -w 20
	tap_assert "fd43:2::1/64 back on smcv1" sh -c \
		"ip -6 addr del $TOPO_VETH_IP6_1/128 dev smcv1 && ip -6 addr add $TOPO_VETH_IP6_1/64 dev smcv1 nodad"
	tap_assert "the rules' routes back" topo_veth_rules on
	out=$($T/smc-fbprobe -6 $SRV6 $port6 0) || tap_fail "smc-fbprobe -6: $out"
	[ "$out" = "mode 0 fallback 0x00000000/0x00000000" ] || tap_fail "with the /64 back: $out"
	return 0
}

without_rules() {
	tap_assert "policy rules removed" topo_veth_rules off
	tap_diag "route to $SRV now: $(ip route get $SRV | head -n 1)"
	c0=$(counter confirmed_client)
	# shellcheck disable=SC2046 # four numbers, split on purpose
	set -- $(rxe_snapshot)
	out=$($T/smc-fbprobe $SRV $port 0) || tap_fail "smc-fbprobe: $out"
	tap_diag "client: $out"
	[ "$out" = "mode 0 fallback 0x00000000/0x00000000" ] ||
		tap_fail "the client is not SMC-R over rxev2's loopback: $out"
	# A new group: the client's peer GID is now smcv2's own.
	[ "$(counter confirmed_client)" = $((c0 + 1)) ] || tap_fail "no new link over lo"
	# shellcheck disable=SC2046 # four more
	set -- "$@" $(rxe_snapshot)
	tap_diag "rxev1 sent +$(($5 - $1)) rcvd +$(($6 - $2)), rxev2 sent +$(($7 - $3)) rcvd +$(($8 - $4))"
	[ "$5 $6" = "$1 $2" ] || tap_fail "rxev1 counted RoCE packets: the link did not stay in rxev2"
	[ $(($7 - $3)) -gt 0 ] && [ $(($8 - $4)) -gt 0 ] || tap_fail "rxev2 did not loop RoCE packets back"
	tap_assert "policy rules back" topo_veth_rules on
	out=$($T/smc-fbprobe $SRV $port 0) || tap_fail "smc-fbprobe: $out"
	[ "$out" = "mode 0 fallback 0x00000000/0x00000000" ] || tap_fail "with the rules back: $out"
	return 0
}

teardown() {
	tap_expect "the echo server ends" stop_server
	tap_expect "rmmod and insmod with rxev1/rxev2 present" reload
	topo_cleanup
	rdma link show | grep -q rxev && tap_fail "rxe devices left: $(rdma link show)"
	ip rule show | grep -q '^0:.*lookup local' || tap_fail "the local rule is not back at 0"
	tap_expect "rmmod and insmod without them" reload
	return 0
}

tap_case "setup: smcr_probe=1, topology 1 (two veth ends, two rxe)" 120 setup
# Started here, not in a case: a case's leftover processes are killed at its end.
if serve && serve 6; then
	tap_ok "echo servers on $SRV and $SRV6"
else
	tap_not_ok "echo servers on $SRV and $SRV6"
fi
tap_case "first link confirmed both sides across the veth, SMC-R, RoCE counters of both rxe moved" 60 first_link
tap_case "64 KiB echoed over SMC-R" 60 echo_64k
tap_case "five concurrent connections: SMC-R, one link group" 120 concurrent
tap_case "IPv6: SMC-R in the same link group, 64 KiB echoed" 90 ipv6
tap_case "IPv6 with no common prefix: the server declines 0x03070000, TCP works" 90 ipv6_prefix_mismatch
tap_case "without the policy rules (over lo, both ends on smcv2): SMC-R inside rxev2 alone" 60 without_rules
tap_case "teardown: rules and devices gone, af_smc unloads and reloads" 60 teardown
tap_done
