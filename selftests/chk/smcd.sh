#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# chk/smcd.sh: smc_chk -C against smc_chk -S in one VM with the loopback ISM
# device: both sides must report SMC-D (from sock_diag, on each side), the
# exit status must say SMC, and the server's log must agree. Reloads af_smc
# with loopback_ism=1 when the device is off and puts it back after.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/lib.sh"

command -v smc_chk >/dev/null || { echo "Bail out! smc_chk is not installed"; exit 1; }
[ -n "${SMC_MODULE_FILE-}" ] || { echo "Bail out! needs af_smc (SMC_MODULE_FILE)"; exit 1; }
tap_at_exit chk_stop_server
if [ "$(cat /sys/module/af_smc/parameters/loopback_ism 2>/dev/null)" != Y ]; then
	{ rmmod af_smc && insmod "$SMC_MODULE_FILE" loopback_ism=1; } ||
		{ echo "Bail out! cannot load af_smc with loopback_ism=1"; exit 1; }
	tap_at_exit 'rmmod af_smc; insmod "$SMC_MODULE_FILE"'
fi
out=$TMPDIR/out

# smcd ADDRESS [-6]
smcd() {
	addr=$1
	shift
	chk_start_server -p 37374 "$@" || { tap_fail "no server"; return 1; }
	smc_chk -C "$addr" -p 37374 "$@" >"$out" 2>&1
	rc=$?
	chk_stop_server
	sed 's/^/# /' "$out"
	sed 's/^/# server: /' "$TMPDIR/server.log"
	[ $rc = 0 ] || tap_fail "exit status $rc, not 0 (SMC)"
	tap_expect "client line" grep -qx 'Client: SMC-D' "$out"
	tap_expect "server line" grep -qx 'Server: SMC-D' "$out"
	tap_expect "result line" grep -qx 'Result: SMC-D' "$out"
	tap_expect "the server's log says SMC-D" grep -q '^connection from .*: SMC-D' "$TMPDIR/server.log"
}

tap_case "smc_chk -C 127.0.0.1: SMC-D on both sides" 60 smcd 127.0.0.1
tap_case "smc_chk -C ::1 -6: SMC-D on both sides" 60 smcd ::1 -6
tap_done
