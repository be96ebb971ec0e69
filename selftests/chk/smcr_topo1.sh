#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# chk/smcr_topo1.sh: smc_chk -C against smc_chk -S over SMC-R, in one VM
# between the two endpoints of topology 1 (run under tools/smcr-topo1.sh:
# client 10.43.2.1 on smcv1/rxev1, server 10.43.2.2 on smcv2/rxev2, af_smc
# with smcr=1 loopback_ism=0). Both sides must report SMC-R (each from its
# own sock_diag), the exit status must say SMC, the server's log must agree,
# and the RoCE counters of both rxe devices must have moved.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/lib.sh"

command -v smc_chk >/dev/null || { echo "Bail out! smc_chk is not installed"; exit 1; }
[ -n "${SMC_TOPO1_SERVER-}" ] ||
	{ echo "Bail out! runs under smcr-topo1.sh (no SMC_TOPO1_SERVER)"; exit 1; }
tap_at_exit chk_stop_server
out=$TMPDIR/out

rxe() {
	for d in rxev1 rxev2; do
		c=/sys/class/infiniband/$d/ports/1/hw_counters
		printf '%s %s ' "$(cat $c/sent_pkts)" "$(cat $c/rcvd_pkts)"
	done
}

smcr() {
	chk_start_server -p 37375 || { tap_fail "no server"; return 1; }
	# shellcheck disable=SC2046 # four numbers
	set -- $(rxe)
	smc_chk -C "$SMC_TOPO1_SERVER" -p 37375 >"$out" 2>&1
	rc=$?
	chk_stop_server
	# shellcheck disable=SC2046 # four more
	set -- "$@" $(rxe)
	sed 's/^/# /' "$out"
	sed 's/^/# server: /' "$TMPDIR/server.log"
	tap_diag "rxev1 sent +$(($5 - $1)) rcvd +$(($6 - $2)), rxev2 sent +$(($7 - $3)) rcvd +$(($8 - $4))"
	[ $rc = 0 ] || tap_fail "exit status $rc, not 0 (SMC)"
	tap_expect "client line" grep -qx 'Client: SMC-R' "$out"
	tap_expect "server line" grep -qx 'Server: SMC-R' "$out"
	tap_expect "result line" grep -qx 'Result: SMC-R' "$out"
	tap_expect "the server's log says SMC-R" grep -q '^connection from .*: SMC-R' "$TMPDIR/server.log"
	[ $(($5 - $1)) -gt 0 ] && [ $(($6 - $2)) -gt 0 ] || tap_fail "rxev1 sent or received no RoCE packet"
	[ $(($7 - $3)) -gt 0 ] && [ $(($8 - $4)) -gt 0 ] || tap_fail "rxev2 sent or received no RoCE packet"
	return 0
}

tap_case "smc_chk -C $SMC_TOPO1_SERVER over topology 1: SMC-R on both sides" 120 smcr
tap_done
