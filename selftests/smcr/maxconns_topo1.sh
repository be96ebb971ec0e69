#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# smcr/maxconns_topo1.sh: net.smc.smcr_max_conns_per_lgr caps the
# connections of a link group the server makes; the next connection for
# the same peer gets a group (and a link) of its own. One VM, topology 1
# (topo_veth_rxe): client 10.43.2.1 on smcv1/rxev1, server 10.43.2.2 on
# smcv2/rxev2; af_smc with smcr=1 loopback_ism=0 and lgr_linger 0, so no
# group outlives its last connection into the next case.
#   - 16 (Linux's least): 20 connections (smc-conns, 1000 bytes echoed on
#     each, all SMC-R) are in two groups on each side, one of 16 and one
#     of 4, both made with max_conns 16 (debugfs smcr_lgr);
#   - 255 (the default): the same 20 are in one group on each side;
#   - a group made under 16 keeps its cap when the sysctl goes to 255.
# The oracle for "another group" is independent of the counts: each group
# has a link of its own, so rxe lists one RC QP per group (rdma(8)).
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/topology.sh"
. "$here/../lib/module.sh"

smc_own_module_all "smcr=1 is af_smc's own parameter"
command -v rdma >/dev/null || smc_missing_all "no rdma command"
T=$SMC_SELFTESTS/tools
L=/sys/kernel/debug/af_smc/smcr_lgr
S=/proc/sys/net/smc/smcr_max_conns_per_lgr
SRV=$TOPO_VETH_IP4_2
N=20

tap_at_exit topo_smcr_cleanup

setup() {
	topo_smcr_setup lgr_linger=0
	[ "$(cat $S)" = 255 ] || tap_fail "smcr_max_conns_per_lgr is $(cat $S) after a load, not 255"
	return 0
}

# open PORT COUNT: COUNT connections held open (each verified, all
# SMC-R) until the case ends; the server and client logs in $TMPDIR.
open_conns() {
	rm -f "$TMPDIR/ready"
	$T/smc-conns -s -a $SRV -p "$1" -n "$2" -r "$TMPDIR/ready" -t 300 \
		>"$TMPDIR/srv.log" 2>&1 </dev/null &
	tap_wait_for 30 test -e "$TMPDIR/ready" || tap_assert "the server listens" false
	$T/smc-conns -c -a $SRV -p "$1" -n "$2" -H 120 -t 300 \
		>"$TMPDIR/cli.log" 2>&1 </dev/null &
	tap_wait_for 180 grep -q "^open $2 verified $2" "$TMPDIR/cli.log" ||
		tap_assert "$2 connections verified: $(cat "$TMPDIR/cli.log")" false
	tap_diag "client: $(cat "$TMPDIR/cli.log")"
	grep -q "modes smcr=$2 smcd=0 tcp=0" "$TMPDIR/cli.log" ||
		tap_fail "not every connection is SMC-R: $(cat "$TMPDIR/cli.log")"
}

# groups ROLE: "CONNS/MAX_CONNS" of each of ROLE's groups, sorted.
groups() {
	grep "^lgr .* role $1 " $L |
		sed 's/.* conns \([0-9]*\) .* max_conns \([0-9]*\) .*/\1\/\2/' | sort -n | tr '\n' ' '
}

# expect_groups WANT: both sides' groups are WANT ("16/16 4/16 " etc.),
# and rxe has one RC QP per group on each device.
expect_groups() {
	sed 's/^/  debugfs: /' $L
	for role in client server; do
		got=$(groups $role)
		tap_diag "$role groups (connections/cap): $got"
		[ "$got" = "$1" ] || tap_fail "$role groups '$got', not '$1'"
	done
	want=$(echo "$1" | wc -w)
	for dev in rxev1 rxev2; do
		qps=$(rdma resource show qp | grep -c "^link $dev/1 .* type RC state RTS .*comm \[af_smc\]")
		[ "$qps" = "$want" ] || tap_fail "rdma lists $qps af_smc RC QPs on $dev, not $want"
	done
}

no_groups() {
	tap_wait_for 60 sh -c "! grep -q '^lgr ' $L" || tap_fail "groups left: $(cat $L)"
}

cap16() {
	echo 16 >$S || tap_assert "write 16 to smcr_max_conns_per_lgr" false
	open_conns 4480 $N
	expect_groups "4/16 16/16 "
	echo 255 >$S
}

cap255() {
	no_groups
	[ "$(cat $S)" = 255 ] || tap_fail "smcr_max_conns_per_lgr is $(cat $S)"
	open_conns 4481 $N
	expect_groups "20/255 "
}

# A group keeps the cap it was made with: 16 connections under 16, then
# the sysctl goes to 255 and 4 more come; they make a group of 255 beside.
keeps() {
	no_groups
	echo 16 >$S || tap_assert "write 16 to smcr_max_conns_per_lgr" false
	open_conns 4482 16
	expect_groups "16/16 "
	echo 255 >$S
	$T/smc-conns -s -a $SRV -p 4483 -n 4 -r "$TMPDIR/ready2" -t 300 >/dev/null 2>&1 </dev/null &
	tap_wait_for 30 test -e "$TMPDIR/ready2" || tap_assert "the second server listens" false
	$T/smc-conns -c -a $SRV -p 4483 -n 4 -H 120 -t 300 >"$TMPDIR/cli2.log" 2>&1 </dev/null &
	tap_wait_for 180 grep -q "^open 4 verified 4 modes smcr=4 " "$TMPDIR/cli2.log" ||
		tap_assert "4 more SMC-R connections: $(cat "$TMPDIR/cli2.log")" false
	expect_groups "4/255 16/16 "
}

restore() {
	echo 255 >$S
	no_groups
	tap_expect "rmmod af_smc after the cases" smc_module_restore
}

tap_plan 5
tap_case "setup: af_smc with SMC-R, topology 1, smcr_max_conns_per_lgr 255" 120 setup
tap_case "smcr_max_conns_per_lgr 16: $N connections in groups of 16 and 4 on each side" 300 cap16
tap_case "smcr_max_conns_per_lgr 255: $N connections in one group on each side" 300 cap255
tap_case "a group keeps the cap it was made with (16) when the sysctl goes to 255" 300 keeps
tap_case "no group left; af_smc unloads" 120 restore
tap_done
