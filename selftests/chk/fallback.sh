#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# chk/fallback.sh: smc_chk -C against smc_chk -S in one VM, where SMC cannot
# be used (no ISM, no RDMA device): the connection falls back to TCP and both
# sides' reasons are reported, consistently: the server's peer diagnosis is
# the client's own reason, and its own reason says the peer declined. Needs
# a module with AF_SMC sock_diag, which both ours and Debian's have: in a
# test VM with either loaded, smc_chk unable to tell is a failure; elsewhere
# the cases skip with the reason smc_chk gives.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/lib.sh"
. "$here/../lib/module.sh"

command -v smc_chk >/dev/null || smc_missing_all "smc_chk is not installed"
[ "$(id -u)" = 0 ] || tap_skip_all "needs root"
tap_at_exit chk_stop_server

out=$TMPDIR/out

# fallback ADDRESS [-6]
fallback() {
	addr=$1
	shift
	chk_start_server -p 37373 --no-rdma "$@" || { tap_fail "no server"; return 1; }
	smc_chk -C "$addr" -p 37373 --no-rdma "$@" >"$out" 2>&1
	rc=$?
	chk_stop_server
	sed 's/^/# /' "$out"
	sed 's/^/# server: /' "$TMPDIR/server.log"
	if grep -q '^Client: cannot tell: .*sock_diag' "$out"; then
		smc_missing "smc_chk cannot tell the mode: $(sed -n 's/^Client: cannot tell: //p' "$out")"
	fi
	grep -q '^smc_chk: server on port 37373 .*: AF_SMC;' "$TMPDIR/server.log" ||
		tap_fail "the server did not listen on AF_SMC"
	[ $rc = 3 ] || tap_fail "exit status $rc, not 3 (TCP)"
	client=$(sed -n 's|^Client: TCP fallback, reasons \(0x[0-9a-f]*\)/\(0x[0-9a-f]*\)$|\1 \2|p' "$out")
	server=$(sed -n 's|^Server: TCP fallback, reasons \(0x[0-9a-f]*\)/\(0x[0-9a-f]*\)$|\1 \2|p' "$out")
	[ -n "$client" ] || { tap_fail "no client fallback line"; return 1; }
	[ -n "$server" ] || { tap_fail "no server fallback line"; return 1; }
	set -- $client
	c_local=$1 c_peer=$2
	set -- $server
	s_local=$1 s_peer=$2
	tap_diag "client $c_local/$c_peer, server $s_local/$s_peer"
	[ "$c_local" != 0x00000000 ] || tap_fail "the client gives no reason"
	[ "$s_local" = 0x05000000 ] || tap_fail "the server's reason is $s_local, not PEER_DECLINED"
	[ "$s_peer" = "$c_local" ] || tap_fail "the server's peer diagnosis $s_peer is not the client's reason $c_local"
	# Every code is spelled out.
	grep -q "^  local reason:   $c_local [A-Z_]*: ." "$out" || tap_fail "the client's reason is not spelled out"
	grep -q "^  peer diagnosis: $c_local [A-Z_]*: ." "$out" || tap_fail "the server's peer diagnosis is not spelled out"
	grep -q "^  local reason:   0x05000000 PEER_DECLINED: Peer declined during handshake$" "$out" ||
		tap_fail "the server's reason is not spelled out"
	grep -q "^Result: TCP fallback ($c_local/$c_peer)$" "$out" || tap_fail "no result line"
	grep -q "^connection from .*: TCP fallback 0x05000000/$c_local$" "$TMPDIR/server.log" ||
		tap_fail "the server's log line is missing"
	return 0
}

tap_case "smc_chk -C 127.0.0.1: TCP fallback with both reasons" 60 fallback 127.0.0.1
tap_case "smc_chk -C ::1 -6: TCP fallback with both reasons" 60 fallback ::1 -6
tap_done
