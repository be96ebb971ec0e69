#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# handshake/confirmid.sh: an SMC-R server takes a first contact's Confirm
# only from the identity its Proposal announced (Documentation/security.md,
# hole 8). One VM (topology 1, topo_veth_rxe: 10.43.2.1 on smcv1/rxev1,
# 10.43.2.2 on smcv2/rxev2), af_smc with smcr=1 loopback_ism=0, an AF_SMC
# echo server on 10.43.2.2. The liar is smc_badpeer.ko's confirm_r: it
# proposes SMC-Rv1 as peer id "badpeer", GID ::ffff:10.43.0.99, MAC
# 02:ba:d0:00:00:99, takes the server's first contact Accept and confirms
# with one of those replaced by another host's (peer id "forged", GID
# ::ffff:10.43.0.98, MAC 02:ba:d0:00:00:98). The server's group is keyed
# by the Proposal's id and GID, its link goes where the Confirm says: a
# Confirm that differs would put a link to one host under another's key.
# smcr_probe_confirm_delay_ms=3000 holds a server that goes on with a
# Confirm for 3 s before its CONFIRM_LINK, with the link to the Confirm's
# MAC in debugfs smcr_lgr (dmac), which the cases poll meanwhile.
#   - control: a Confirm true to the Proposal: the server goes on (its link
#     to 02:ba:d0:00:00:99 shows) and then fails the link (the QP data is
#     made up): a Decline, not 0x04000000. This shows the poll sees such
#     a link when there is one;
#   - peer id, GID, MAC differ: a Decline with SMC_CLC_DECL_SYNCERR
#     (0x04000000) within 1 s of the Confirm, no link to either MAC ever
#     in smcr_lgr, and afterwards no group keyed under either GID;
#   - an af_smc client (smc-fbprobe, 10.43.2.1) still gets SMC-R;
#   - smc_badpeer and af_smc unload.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/topology.sh"
. "$here/../lib/module.sh"

[ "$(id -u)" = 0 ] || tap_skip_all "needs root"
[ "${SMC_MODULE:-}" = ours ] || tap_skip_all "smc_badpeer and smcr=1 need our af_smc"
module=${SMC_MODULE_FILE:-}
[ -f "$module" ] || smc_missing_all "no module file (SMC_MODULE_FILE)"
ko=/smc/kernel/smc_badpeer.ko
[ -f "$ko" ] || smc_missing_all "$ko"
T=$SMC_SELFTESTS/tools
L=/sys/kernel/debug/af_smc/smcr_lgr
B=/sys/module/smc_badpeer/parameters
DELAY=/sys/module/af_smc/parameters/smcr_probe_confirm_delay_ms
SRV=$TOPO_VETH_IP4_2

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
	rmmod smc_badpeer 2>/dev/null
	topo_cleanup
	reload || tap_diag "could not reload af_smc without smcr"
}
tap_at_exit cleanup

# serve N: the echo server on $SRV, port 4460 + N: one per case (a case's
# end kills it, with everything else the case started).
serve() {
	port=$((4460 + $1))
	rm -f "$TMPDIR/ready"
	$T/smc-echo -s -k 0 -f smc -a $SRV -p $port -r "$TMPDIR/ready" -t 300 \
		>"$TMPDIR/echo.log" 2>&1 </dev/null &
	echo $! >"$TMPDIR/echo.pid"
	tap_wait_for 30 test -e "$TMPDIR/ready"
}

setup() {
	tap_assert "af_smc smcr=1 loopback_ism=0" reload smcr=1 loopback_ism=0
	grep -q ' /sys/kernel/debug debugfs' /proc/mounts ||
		tap_assert "debugfs" mount -t debugfs none /sys/kernel/debug
	tap_assert "topology 1: smcv1/rxev1, smcv2/rxev2, routed over the veth" topo_veth_rxe
	tap_assert "smc_badpeer loaded" insmod $ko base_port=7700
	tap_assert "CONFIRM_LINK held 3 s" sh -c "echo 3000 >$DELAY"
	return 0
}

# lie WHAT N: one lying first contact (echo server N); the final result into $r, and
# $seen: the smcr_lgr lines with a link to one of the liar's MACs that
# showed while the server had the Confirm (empty if none).
lie() {
	seen=
	tap_assert "echo server on $SRV" serve "$2"
	echo "$SRV $port $1" >$B/confirm_r || { tap_fail "confirm_r refused '$1'"; return 1; }
	n=0
	while :; do
		r=$(cat $B/confirm_r_result)
		case "$r" in
		pending | "confirm sent")
			l=$(grep 'dmac 02:ba:d0:00:00:9[89]' $L)
			[ -n "$l" ] && seen="$seen$l;" ;;
		*) break ;;
		esac
		n=$((n + 1))
		[ $n -lt 300 ] || { tap_fail "no answer to the Confirm ($1) in 15 s: $r"; return 1; }
		sleep 0.05
	done
	tap_diag "confirm_r $1: $r"
	[ -z "$seen" ] || tap_diag "links to the liar while the server had its Confirm: $(echo "$seen" | tr ';' '\n' | sort -u | head -n 2)"
	return 0
}
no_liar_groups() {
	! grep -q 'peer_gid ::ffff:10.43.0.9[89] ' $L
}

control() {
	lie none 1 || return 0
	[ -n "$seen" ] ||
		tap_fail "no link to 02:ba:d0:00:00:99 showed in smcr_lgr while the server went on: the poll sees nothing"
	case "$r" in
	"decline 0x04000000 "*) tap_fail "a Confirm true to the Proposal was declined as a mismatch: $r" ;;
	"decline "*) ;;
	*) tap_fail "the server did not decline the made-up link: $r" ;;
	esac
	tap_expect "no group of the liar's left" tap_wait_for 10 no_liar_groups
	return 0
}

mismatch() {
	lie "$1" "$2" || return 0
	[ -z "$seen" ] ||
		tap_fail "the server pointed a link at the lying Confirm's QP ($1 differs from the Proposal)"
	case "$r" in
	"decline 0x04000000 "*)
		ms=${r##* }
		[ "$ms" -lt 1000 ] || tap_fail "declined only $ms ms after the Confirm" ;;
	*) tap_fail "a Confirm whose $1 is not the Proposal's: $r, not a Decline 0x04000000" ;;
	esac
	tap_expect "no group keyed under either identity" tap_wait_for 10 no_liar_groups
	return 0
}

honest() {
	echo 0 >$DELAY
	tap_assert "echo server on $SRV" serve 5
	out=$($T/smc-fbprobe $SRV $port 0 2>&1) || { tap_fail "smc-fbprobe: $(echo $out)"; return 0; }
	echo "$out" | grep -qx "mode 0 fallback 0x00000000/0x00000000" ||
		tap_fail "af_smc's own client is not SMC-R: $(echo $out)"
	return 0
}

teardown() {
	stop_server
	tap_expect "rmmod smc_badpeer" rmmod smc_badpeer
	topo_cleanup
	tap_expect "af_smc unloads and loads" reload
	return 0
}

tap_case "setup: smcr=1, rxev1/rxev2 over a veth, smc_badpeer" 120 setup
tap_case "control: a Confirm true to its Proposal is taken up (then its made-up link fails)" 60 control
tap_case "a Confirm with another peer id than the Proposal's: Decline 0x04000000, no link" 60 mismatch id 2
tap_case "a Confirm with another GID than the Proposal's: Decline 0x04000000, no link" 60 mismatch gid 3
tap_case "a Confirm with another MAC than the Proposal's: Decline 0x04000000, no link" 60 mismatch mac 4
tap_case "af_smc's own client still gets SMC-R" 60 honest
tap_case "teardown: smc_badpeer and af_smc unload" 60 teardown
tap_done
