#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# smcr/rkey_topo1.sh: an RMB handed on from a link group's pool gets a new
# rkey (Documentation/security.md, hole 8). One VM (topology 1,
# topo_veth_rxe: client 10.43.2.1 on smcv1/rxev1, server 10.43.2.2 on
# smcv2/rxev2), af_smc with smcr=1 loopback_ism=0 lgr_linger=60, so that
# consecutive connections share one group on each side and each new one
# takes the RMB the last one left in the pool (same size: the same
# socket buffers). debugfs smcr_conns shows each connection's RMB as its
# Accept (server) or Confirm (client) announced it: rkey and address.
#   - three connections one after the other (smc-fbprobe, SMC-R each),
#     both sides' lines read while each is open: in each role the RMB's
#     address is the same all three times (the pool handed it on, else
#     the case proves nothing and fails), and its three rkeys all differ:
#     the key the last connection's peer knew is not the new one's;
#   - a fourth connection: its client's group WRITEs one byte (debugfs
#     smcr_conns "write", from a page of its own over the same link) into
#     the server's RMB, first with the key the server announced for it:
#     taken (the path works), then with the key it had announced for the
#     third connection, as that connection's peer could: refused by
#     rxev2 (the WRITE fails, and the link with it);
#   - af_smc unloads.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/topology.sh"
. "$here/../lib/module.sh"

smc_own_module_all "smcr=1 is af_smc's own parameter"
T=$SMC_SELFTESTS/tools
C=/sys/kernel/debug/af_smc/smcr_conns
SRV=$TOPO_VETH_IP4_2

tap_at_exit topo_smcr_cleanup

setup() {
	topo_smcr_setup lgr_linger=60
}

# both_open: a client and a server connection in smcr_conns.
both_open() {
	grep -q ' role client ' $C && grep -q ' role server ' $C
}
none_open() {
	! grep -q '^lgr ' $C
}
# field ROLE NAME FILE: NAME's value in ROLE's line of FILE.
field() {
	awk -v r="$1" -v f="$2" '$3 == "role" && $4 == r {
		for (i = 5; i < NF; i++) if ($i == f) print $(i + 1) }' "$3"
}
# serve N: the echo server on $SRV, port 4470 + N (killed with its case).
serve() {
	rm -f "$TMPDIR/ready"
	$T/smc-echo -s -k 0 -f smc -a $SRV -p $((4470 + $1)) -r "$TMPDIR/ready" -t 300 \
		>"$TMPDIR/echo.log" 2>&1 </dev/null &
	port=$((4470 + $1))
	tap_wait_for 30 test -e "$TMPDIR/ready"
}

reuse() {
	serve 0
	tap_assert "echo server on $SRV" test -e "$TMPDIR/ready"
	for i in 1 2 3; do
		tap_assert "no connection open before connection $i" tap_wait_for 10 none_open
		$T/smc-fbprobe $SRV $port 3 >"$TMPDIR/probe.$i" 2>&1 &
		pid=$!
		tap_wait_for 10 both_open || tap_fail "connection $i: not in smcr_conns on both sides"
		cat $C >"$TMPDIR/conns.$i"
		tap_diag "connection $i: $(tr '\n' ';' <"$TMPDIR/conns.$i")"
		wait $pid || tap_fail "connection $i: smc-fbprobe failed: $(cat "$TMPDIR/probe.$i")"
		grep -qx 'mode 0 fallback 0x00000000/0x00000000' "$TMPDIR/probe.$i" ||
			tap_fail "connection $i is not SMC-R: $(cat "$TMPDIR/probe.$i")"
	done
	for role in server client; do
		a1=$(field $role rmb_addr "$TMPDIR/conns.1")
		k1=$(field $role rmb_rkey "$TMPDIR/conns.1")
		k2=$(field $role rmb_rkey "$TMPDIR/conns.2")
		k3=$(field $role rmb_rkey "$TMPDIR/conns.3")
		for i in 2 3; do
			a=$(field $role rmb_addr "$TMPDIR/conns.$i")
			[ -n "$a1" ] && [ "$a" = "$a1" ] ||
				tap_fail "$role: connection $i's RMB is at '$a', connection 1's at '$a1': not handed on from the pool"
		done
		tap_diag "$role: RMB $a1, rkeys $k1 $k2 $k3"
		[ -n "$k1" ] && [ -n "$k2" ] && [ -n "$k3" ] ||
			{ tap_fail "$role: an rkey is missing"; continue; }
		[ "$k2" != "$k1" ] && [ "$k3" != "$k2" ] && [ "$k3" != "$k1" ] ||
			tap_fail "$role: the pooled RMB kept an rkey its last connection's peer knew ($k1, $k2, $k3)"
	done
	return 0
}

stale() {
	tap_assert "the third connection's lines" test -s "$TMPDIR/conns.3"
	k3=$(field server rmb_rkey "$TMPDIR/conns.3")
	serve 1
	tap_assert "echo server on $SRV" test -e "$TMPDIR/ready"
	tap_assert "no connection open before connection 4" tap_wait_for 10 none_open
	$T/smc-fbprobe $SRV $port 5 >"$TMPDIR/probe.4" 2>&1 &
	pid=$!
	tap_assert "connection 4 in smcr_conns on both sides" tap_wait_for 10 both_open
	cat $C >"$TMPDIR/conns.4"
	tap_diag "connection 4: $(tr '\n' ';' <"$TMPDIR/conns.4")"
	t=$(field client token "$TMPDIR/conns.4")
	k4=$(field server rmb_rkey "$TMPDIR/conns.4")
	a=$(field server rmb_addr "$TMPDIR/conns.4")
	tap_assert "connection 4's fields" test -n "$t" -a -n "$k4" -a -n "$a" -a -n "$k3"
	out=$(echo "write client $t $k4 $a 1" 2>&1 >$C) ||
		tap_fail "a WRITE with connection 4's own key $k4 failed: $out"
	if out=$(echo "write client $t $k3 $a 1" 2>&1 >$C); then
		tap_fail "rxev2 took a WRITE with the last connection's key $k3 into connection 4's RMB"
	else
		tap_diag "the WRITE with the last connection's key $k3: ${out##*: }"
	fi
	# Its link failed with the refused WRITE: the connection may be reset.
	wait $pid
	tap_diag "connection 4's client: $(tr '\n' ';' <"$TMPDIR/probe.4")"
	return 0
}

teardown() {
	tap_expect "no connection left" tap_wait_for 10 none_open
	topo_cleanup
	tap_expect "af_smc unloads and loads" smc_module_restore
	return 0
}

tap_case "setup: smcr=1 lgr_linger=60, rxev1/rxev2 over a veth" 120 setup
tap_case "three connections reuse the pooled RMB on each side, each under a new rkey" 120 reuse
tap_case "a WRITE with the last connection's rkey is refused, with the new one taken" 60 stale
tap_case "teardown: af_smc unloads" 60 teardown
tap_done
