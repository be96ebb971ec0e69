#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# smcr/v2_topo1.sh: the SMC-Rv2 handshake (routable RoCEv2, UEID) between
# the two endpoints of topology 1 (topo_veth_rxe: client 10.43.2.1 on smcv1
# with rxev1, server 10.43.2.2 on smcv2 with rxev2), af_smc loaded with
# smcr=1 loopback_ism=0. Shown (Documentation/smc-r.md, "SMC-Rv2"):
#   - with a UEID configured, a connection is SMC-Rv2: the handshake
#     counters of both sides (debugfs smcr_hs v2_client/v2_server) move,
#     the two new link groups say version 2, SMC_GEN_NETLINK's statistics
#     count it under SMC_CLNT_V2_SUCC_CNT/SMC_SRV_V2_SUCC_CNT, smcr
#     linkgroup shows both groups as 2.1 (both ends speak SMC v2.1) with
#     the negotiated EID, the group's
#     destination MAC is the peer's (smcv2's for the client), and the RoCE
#     counters of both rxe devices moved both ways (LLC v2 CONFIRM_LINK);
#   - 64 KiB echoed byte-exact over it;
#   - a second connection joins the group (no new link, no new group);
#   - IPv4 over AF_INET6 sockets (Linux 6.14: Java's clients stopped
#     falling back to SMC-Rv1 or TCP): an AF_INET6 client to ::ffff:SRV, an
#     AF_INET client to a dual-stack AF_INET6 listener and an AF_INET6 client
#     to it are each SMC-Rv2 on both sides, in the existing groups;
#   - without a UEID the client proposes SMC-Rv1 only and the connection
#     is SMC-Rv1 in a group of its own (version 1);
#   - with SMC-Rv1 switched off (smcr_v1=0) and no UEID the client has
#     nothing to offer: it declines 0x03030000 itself;
#   - two namespaces (topo_netns_pair, rxe in each), SMC-Rv1 off, a UEID
#     each but none in common: the server declines 0x03030000, as Linux
#     6.1 does (the client sees 0x05000000/0x03030000). No RoCE has to
#     flow for that (rxe does not carry RoCE between namespaces);
#   - rmmod with the v2 groups present.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/topology.sh"
. "$here/../lib/module.sh"
. "$here/../lib/tool_run.sh"

[ "$(id -u)" = 0 ] || tap_skip_all "needs root"
[ "${SMC_MODULE:-ours}" = ours ] || tap_skip_all "smcr and smcr_v1 are af_smc's own parameters"
command -v rdma >/dev/null || tap_skip_all "no rdma command"
command -v smcd >/dev/null || tap_skip_all "no smcd tool (ueid)"
module=${SMC_MODULE_FILE:-}
[ -f "$module" ] || tap_skip_all "no module file (SMC_MODULE_FILE)"
T=$SMC_SELFTESTS/tools
B=$(dirname "$(command -v smcd)")
D=/sys/kernel/debug/af_smc/smcr_hs
L=/sys/kernel/debug/af_smc/smcr_lgr
P=/sys/module/af_smc/parameters/smcr_v1
SRV=$TOPO_VETH_IP4_2
port=4457
EID=SMCRV2.SELFTEST

# shellcheck disable=SC2120 # tap_assert/tap_expect pass it options
reload() {
	smc_module_rmmod && insmod "$module" "$@"
}
stop_server() {
	[ -s "$TMPDIR/echo.pid" ] || return 0
	kill "$(cat "$TMPDIR/echo.pid")" 2>/dev/null
	tap_wait_for 10 sh -c "! kill -0 $(cat "$TMPDIR/echo.pid") 2>/dev/null"
}
cleanup() {
	stop_server
	topo_cleanup
	reload || tap_diag "could not reload af_smc"
}
tap_at_exit cleanup

counter() {
	sed -n "s/.* $1 \([0-9]*\).*/\1/p" $D
}
hw() {
	cat "/sys/class/infiniband/$1/ports/1/hw_counters/$2"
}
rxe_snapshot() {
	echo "$(hw rxev1 sent_pkts) $(hw rxev1 rcvd_pkts) $(hw rxev2 sent_pkts) $(hw rxev2 rcvd_pkts)"
}
# groups VERSION: how many link groups of that SMC-R version exist.
groups() {
	grep -c "^lgr .* version $1 " $L
}
# stat NAME FILE: a counter of "smcr -j stats" saved in FILE.
stat() {
	json_vals "$2" "$1" | head -n 1
}
probe() {
	$T/smc-fbprobe "$@" 0
}

serve() {
	rm -f "$TMPDIR/ready"
	$T/smc-echo -s -k 0 -f smc -a $SRV -p $port -r "$TMPDIR/ready" -t 300 \
		>"$TMPDIR/echo.log" 2>&1 </dev/null &
	echo $! >"$TMPDIR/echo.pid"
	tap_wait_for 30 test -e "$TMPDIR/ready"
}

setup() {
	# The v2 group must outlive the cases between its first connection
	# and the AF_INET6 ones that join it: 10 s (the default linger) was
	# too short on the debug kernel.
	tap_assert "af_smc smcr=1 loopback_ism=0 lgr_linger=600" reload smcr=1 loopback_ism=0 lgr_linger=600
	grep -q ' /sys/kernel/debug debugfs' /proc/mounts ||
		tap_assert "debugfs" mount -t debugfs none /sys/kernel/debug
	tap_assert "topology 1: smcv1/rxev1, smcv2/rxev2, routed over the veth" topo_veth_rxe
	tap_assert "UEID $EID" $B/smcd ueid add $EID
	tap_diag "$($B/smcd ueid | tr '\n' ' ')"
	[ "$(cat $P)" = Y ] || tap_fail "smcr_v1 is not on by default: $(cat $P)"
	return 0
}

first_v2() {
	$B/smcr -j stats >"$TMPDIR/stats0" || tap_fail "smcr -j stats"
	c0=$(counter confirmed_client) s0=$(counter confirmed_server)
	v0=$(counter v2_client) w0=$(counter v2_server)
	# shellcheck disable=SC2046 # four numbers, split on purpose
	set -- $(rxe_snapshot)
	out=$(probe $SRV $port) || tap_fail "smc-fbprobe: $out"
	tap_diag "client: $out"
	tap_diag "smcr_hs: $(cat $D)"
	sed 's/^/  /' $L
	[ "$out" = "mode 0 fallback 0x00000000/0x00000000" ] ||
		tap_fail "the client is not SMC-R (mode 0, no fallback)"
	[ "$(counter v2_client)" = $((v0 + 1)) ] || tap_fail "the client's connection is not SMC-Rv2"
	[ "$(counter v2_server)" = $((w0 + 1)) ] || tap_fail "the server's connection is not SMC-Rv2"
	[ "$(counter confirmed_client)" = $((c0 + 1)) ] || tap_fail "no first link confirmed on the client"
	[ "$(counter confirmed_server)" = $((s0 + 1)) ] || tap_fail "no first link confirmed on the server"
	[ "$(groups 2)" = 2 ] || tap_fail "$(groups 2) version 2 groups, not 2 (client, server)"
	[ "$(groups 1)" = 0 ] || tap_fail "an SMC-Rv1 group exists"
	# SMC_GEN_NETLINK: both groups say v2, with the EID both share.
	$B/smcr -j linkgroup >"$TMPDIR/lg" || tap_fail "smcr -j linkgroup"
	tap_diag "$(cat "$TMPDIR/lg")"
	n=$(grep -o '"smc_version":"2.1"' "$TMPDIR/lg" | wc -l)
	e=$(grep -o "\"negotiated_eid\":\"$EID\"" "$TMPDIR/lg" | wc -l)
	[ "$n $e" = "2 2" ] ||
		tap_fail "smcr linkgroup: $n groups of version 2.1, $e with EID $EID, not 2 and 2"
	# The client's QP sends to smcv2's MAC (direct: no gateway).
	mac2=$(cat /sys/class/net/smcv2/address)
	grep "^lgr .* role client .* version 2 " $L | grep -q " dmac $mac2\( \|\$\)" ||
		tap_fail "the client's group does not send to smcv2's MAC $mac2"
	# shellcheck disable=SC2046 # four more
	set -- "$@" $(rxe_snapshot)
	tap_diag "rxev1 sent +$(($5 - $1)) rcvd +$(($6 - $2)), rxev2 sent +$(($7 - $3)) rcvd +$(($8 - $4))"
	[ $(($5 - $1)) -gt 0 ] && [ $(($6 - $2)) -gt 0 ] &&
		[ $(($7 - $3)) -gt 0 ] && [ $(($8 - $4)) -gt 0 ] ||
		tap_fail "the RoCE counters of rxev1/rxev2 did not move both ways"
	return 0
}

echo_64k() {
	# shellcheck disable=SC2046 # two numbers, split on purpose
	set -- $(hw rxev1 sent_pkts) $(counter v2_client)
	tap_expect "64 KiB echoed byte-exact" $T/smc-echo -c -f smc -a $SRV -p $port -n 65536 -w 20
	tap_diag "rxev1 sent +$(($(hw rxev1 sent_pkts) - $1)) packets"
	[ $(($(hw rxev1 sent_pkts) - $1)) -ge 64 ] || tap_fail "the 64 KiB did not go over RoCE"
	[ "$(counter v2_client)" = $(($2 + 1)) ] || tap_fail "the echo's connection was not SMC-Rv2"
	return 0
}

second_joins() {
	c0=$(counter confirmed_client) v0=$(counter v2_client)
	out=$(probe $SRV $port) || tap_fail "smc-fbprobe: $out"
	[ "$out" = "mode 0 fallback 0x00000000/0x00000000" ] || tap_fail "second: $out"
	[ "$(counter v2_client)" = $((v0 + 1)) ] || tap_fail "the second connection is not SMC-Rv2"
	[ "$(counter confirmed_client)" = "$c0" ] || tap_fail "the second connection made a new link"
	[ "$(groups 2)" = 2 ] || tap_fail "$(groups 2) version 2 groups after the second connection"
	return 0
}

stats_v2() {
	$B/smcr -j stats >"$TMPDIR/stats1" || tap_fail "smcr -j stats"
	for k in SMC_CLNT_V2_SUCC_CNT SMC_SRV_V2_SUCC_CNT SMC_CLNT_V1_SUCC_CNT SMC_SRV_V1_SUCC_CNT; do
		a=$(stat $k "$TMPDIR/stats0") b=$(stat $k "$TMPDIR/stats1")
		tap_diag "$k: $a -> $b"
		case $k in
		*V2*) want=3 ;;		# first, the echo, the second
		*) want=0 ;;
		esac
		[ -n "$a" ] && [ -n "$b" ] && [ $((b - a)) = $want ] ||
			tap_fail "$k moved from '$a' to '$b', not by $want"
	done
	return 0
}

# mapped_one NAME PROBE-ARGUMENTS...: one connection, SMC-Rv2 on both sides.
mapped_one() {
	name=$1
	shift
	v0=$(counter v2_client) w0=$(counter v2_server) c0=$(counter confirmed_client)
	out=$($T/smc-fbprobe "$@" 0) || tap_fail "$name: smc-fbprobe: $out"
	tap_diag "$name: $out"
	[ "$out" = "mode 0 fallback 0x00000000/0x00000000" ] || tap_fail "$name: not SMC-R: $out"
	[ "$(counter v2_client)" = $((v0 + 1)) ] || tap_fail "$name: the client's side is not SMC-Rv2"
	[ "$(counter v2_server)" = $((w0 + 1)) ] || tap_fail "$name: the server's side is not SMC-Rv2"
	[ "$(counter confirmed_client)" = "$c0" ] || tap_fail "$name: a new link, not the v2 group's"
}

v4mapped_v2() {
	port6=$((port + 1))
	rm -f "$TMPDIR/ready6"
	$T/smc-echo -s -k 0 -f smc6 -a any -p $port6 -r "$TMPDIR/ready6" -t 120 \
		>"$TMPDIR/echo6.log" 2>&1 </dev/null &
	pid6=$!
	tap_wait_for 30 test -e "$TMPDIR/ready6" || tap_fail "no AF_INET6 server: $(cat "$TMPDIR/echo6.log")"
	mapped_one "AF_INET6 client to ::ffff:$SRV, AF_INET server" -6 "::ffff:$SRV" $port
	mapped_one "AF_INET client, dual-stack AF_INET6 server" $SRV $port6
	mapped_one "AF_INET6 client to ::ffff:$SRV, AF_INET6 server" -6 "::ffff:$SRV" $port6
	[ "$(groups 2)" = 2 ] || tap_fail "$(groups 2) version 2 groups, not the 2 of before"
	[ "$(groups 1)" = 0 ] || tap_fail "an SMC-Rv1 group exists"
	kill $pid6
	wait $pid6 2>/dev/null
	return 0
}

no_ueid_v1() {
	tap_assert "UEIDs flushed" $B/smcd ueid flush
	v0=$(counter v2_client) c0=$(counter confirmed_client)
	out=$(probe $SRV $port) || tap_fail "smc-fbprobe: $out"
	tap_diag "client: $out"
	[ "$out" = "mode 0 fallback 0x00000000/0x00000000" ] || tap_fail "without a UEID: $out"
	[ "$(counter v2_client)" = "$v0" ] || tap_fail "SMC-Rv2 without a UEID"
	[ "$(counter confirmed_client)" = $((c0 + 1)) ] || tap_fail "no new (v1) link"
	[ "$(groups 1)" = 2 ] || tap_fail "$(groups 1) version 1 groups, not 2"
	return 0
}

v1_off_decline() {
	echo 0 >$P || tap_fail "cannot set smcr_v1"
	out=$(probe $SRV $port) || tap_fail "smc-fbprobe: $out"
	echo 1 >$P
	tap_diag "client: $out"
	case $out in
	*"fallback 0x03030000/"*) ;;
	*) tap_fail "SMC-Rv1 off, no UEID: '$out', not the client's 0x03030000" ;;
	esac
	return 0
}

netns_no_common_ueid() {
	stop_server
	topo_cleanup
	tap_assert "two namespaces" topo_netns_pair
	tap_assert "rxe1, rxe2 in them" topo_netns_rxe
	tap_assert "UEID A in smc-ns1" ip netns exec $TOPO_NS1 $B/smcd ueid add SMCRV2.A
	tap_assert "UEID B in smc-ns2" ip netns exec $TOPO_NS2 $B/smcd ueid add SMCRV2.B
	echo 0 >$P || tap_fail "cannot set smcr_v1"
	rm -f "$TMPDIR/ready2"
	ip netns exec $TOPO_NS2 $T/smc-echo -s -k 0 -f smc -a $TOPO_IP4_2 -p $port \
		-r "$TMPDIR/ready2" -t 60 >"$TMPDIR/echo2.log" 2>&1 </dev/null &
	echo $! >"$TMPDIR/echo.pid"
	tap_wait_for 30 test -e "$TMPDIR/ready2" || tap_fail "no server in smc-ns2"
	out=$(ip netns exec $TOPO_NS1 $T/smc-fbprobe $TOPO_IP4_2 $port 0) ||
		tap_fail "smc-fbprobe: $out"
	echo 1 >$P
	tap_diag "client: $out"
	[ "${out#* fallback }" = "0x05000000/0x03030000" ] ||
		tap_fail "no common UEID: '$out', not the server's 0x03030000"
	stop_server
	return 0
}

teardown() {
	tap_expect "the echo server ends" stop_server
	topo_cleanup
	tap_expect "rmmod and insmod" reload
	return 0
}

tap_case "setup: topology 1, a UEID" 120 setup
# Started here, not in a case: a case's leftover processes are killed at its end.
if serve; then tap_ok "echo server on $SRV"; else tap_not_ok "echo server on $SRV"; fi
tap_case "a connection is SMC-Rv2 (both sides, version 2 groups, RoCE both ways)" 90 first_v2
tap_case "64 KiB echoed over SMC-Rv2" 90 echo_64k
tap_case "a second connection joins the SMC-Rv2 group" 60 second_joins
tap_case "statistics count SMC-Rv2 connections as v2" 30 stats_v2
tap_case "IPv4 over AF_INET6 sockets (v4-mapped) is SMC-Rv2 on both sides" 90 v4mapped_v2
tap_case "without a UEID the connection is SMC-Rv1" 90 no_ueid_v1
tap_case "SMC-Rv1 off, no UEID: the client declines 0x03030000" 60 v1_off_decline
tap_case "two namespaces, no common UEID, SMC-Rv1 off: the server declines 0x03030000" 120 netns_no_common_ueid
tap_case "teardown: rmmod with the groups present" 120 teardown
tap_done
