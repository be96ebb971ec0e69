#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# handshake/v21lie.sh: peers that lie about SMC v2.1 (kernel/smc_v21.h)
# get a Decline with the code of what they broke, and a connection stays
# TCP. One VM, topology 1 (client 10.43.2.1 on smcv1/rxev1, server
# 10.43.2.2 on smcv2/rxev2), af_smc smcr=1 loopback_ism=0, a UEID, so our
# client proposes SMC-Rv2 at release 1 with 255 connections and 2 links.
# smc_badpeer.ko plays the other end:
#   - r21_accept, a server answering our client with an SMC-Rv2 Accept
#     naming a release and limits of its choosing. Our client declines a
#     release above 1 (0x03030009), fewer than 16 or more than it offered
#     connections (0x0303000a), 0 or more than 2 links (0x0303000b), each
#     also its own fallback reason (smc-fbprobe); it confirms release 0
#     with no limits (talking down to v2.0) and a lower offer (1, 200, 1)
#     by repeating it;
#   - r21_confirm, a client proposing as our client did (the Proposal
#     r21_accept kept) whose Confirm names other values than our server's
#     Accept (release 1, 255, 2): our server declines release 0
#     (0x03030009), 100 connections (0x0303000a), 1 link (0x0303000b), at
#     once; a Confirm that repeats the Accept passes those checks and is
#     declined for its made-up link only (CONFIRM_LINK timeout, 0x02010000).
# On the module before SMC v2.1 each lying Accept was confirmed and each
# lying Confirm got the link timeout: nothing was checked.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/topology.sh"
. "$here/../lib/module.sh"

smc_own_module_all "smc_badpeer and smcr=1 need our af_smc"
ko=/smc/kernel/smc_badpeer.ko
[ -f "$ko" ] || smc_missing_all "$ko"
command -v smcr >/dev/null || smc_missing_all "no smcr tool (ueid)"
T=$SMC_SELFTESTS/tools
B=/sys/module/smc_badpeer/parameters
CLI=$TOPO_VETH_IP4_1
SRV=$TOPO_VETH_IP4_2
EID=SMCV21.LIES

cleanup() {
	[ -s "$TMPDIR/echo.pid" ] && kill "$(cat "$TMPDIR/echo.pid")" 2>/dev/null
	rmmod smc_badpeer 2>/dev/null
	smcr ueid flush >/dev/null 2>&1
	topo_smcr_cleanup
}
tap_at_exit cleanup

setup() {
	topo_smcr_setup
	tap_assert "UEID $EID" smcr ueid add $EID
	tap_assert "smc_badpeer loaded" insmod $ko base_port=7700
	return 0
}

# result: forge_result once it is in (15 s at most).
result() {
	tap_wait_for 15 sh -c "! grep -qx pending $B/forge_result" ||
		{ tap_fail "no result in 15 s: $(cat $B/forge_result)"; return 1; }
	cat $B/forge_result
}

# accept PORT REL CONNS LINKS WANT [FALLBACK]: our client against a lying
# Accept; the liar saw WANT, our client's socket fell back with FALLBACK.
accept() {
	echo "$1 $2 $3 $4" >$B/r21_accept || { tap_fail "r21_accept refused '$*'"; return 1; }
	# The liar echoes a declined client's byte; a confirmed one waits
	# for a link that never comes (4 s), then fails.
	out=$(timeout 30 $T/smc-fbprobe $SRV "$1" 0 2>&1)
	r=$(result) || return 0
	tap_diag "Accept $2/$3/$4: the liar saw '$r'; our client: $out"
	[ "$r" = "$5" ] || tap_fail "the liar saw '$r', not '$5'"
	if [ -n "${6:-}" ]; then
		echo "$out" | grep -q "fallback $6/" || tap_fail "our client's fallback reason is not $6: $out"
	fi
	return 0
}

# confirm REL CONNS LINKS WANT: a lying Confirm to our echo server; its Decline.
confirm() {
	port=$((4470 + $1 * 3 + $3))
	rm -f "$TMPDIR/ready"
	$T/smc-echo -s -k 0 -f smc -a $SRV -p $port -r "$TMPDIR/ready" -t 300 \
		>"$TMPDIR/echo.log" 2>&1 </dev/null &
	echo $! >"$TMPDIR/echo.pid"
	tap_wait_for 30 test -e "$TMPDIR/ready" || tap_assert "echo server on $SRV:$port" false
	echo "$CLI $SRV $port $1 $2 $3" >$B/r21_confirm || { tap_fail "r21_confirm refused"; return 1; }
	r=$(result) || return 0
	tap_diag "Confirm $1/$2/$3: our server answered '$r'"
	case "$r" in
	"decline $4 "*) ;;
	*) tap_fail "our server answered '$r', not a Decline $4" ;;
	esac
	if [ "$4" != 0x02010000 ]; then
		ms=${r##* }
		[ "$ms" -lt 1000 ] || tap_fail "declined only $ms ms after the Confirm"
	fi
	kill "$(cat "$TMPDIR/echo.pid")" 2>/dev/null
	return 0
}

accepts() {
	accept 7801 2 255 2 "decline 0x03030009" 0x03030009
	accept 7802 1 15 2 "decline 0x0303000a" 0x0303000a
	accept 7803 1 255 0 "decline 0x0303000b" 0x0303000b
	accept 7804 1 255 3 "decline 0x0303000b" 0x0303000b
}

# Above our offer: the server may lower it, never raise it.
above_offer() {
	echo 16 >/proc/sys/net/smc/smcr_max_conns_per_lgr
	echo 1 >/proc/sys/net/smc/smcr_max_links_per_lgr
	accept 7805 1 17 1 "decline 0x0303000a" 0x0303000a
	accept 7806 1 16 2 "decline 0x0303000b" 0x0303000b
	echo 255 >/proc/sys/net/smc/smcr_max_conns_per_lgr
	echo 2 >/proc/sys/net/smc/smcr_max_links_per_lgr
	return 0
}

agreeable() {
	accept 7807 0 0 0 "confirm 0/0/0"
	accept 7808 1 200 1 "confirm 1/200/1"
}

confirms() {
	confirm 0 255 2 0x03030009
	confirm 1 100 2 0x0303000a
	confirm 1 255 1 0x0303000b
}

control() {
	confirm 1 255 2 0x02010000
}

unload() {
	tap_expect "rmmod smc_badpeer" rmmod smc_badpeer
}

tap_plan 7
tap_case "setup: af_smc with SMC-R, topology 1, UEID, smc_badpeer" 120 setup
tap_case "lying Accepts (release 2, 15 connections, 0 and 3 links): our client declines each" 300 accepts
tap_case "an Accept above our offer (17 of 16 connections, 2 of 1 link): declined" 300 above_offer
tap_case "release 0 and a lower offer (1/200/1): our client confirms them as named" 300 agreeable
tap_case "lying Confirms (release 0, 100 connections, 1 link): our server declines at once" 300 confirms
tap_case "a Confirm that repeats the Accept passes the v2.1 checks (declined for its link)" 300 control
tap_case "smc_badpeer unloads" 60 unload
tap_done
