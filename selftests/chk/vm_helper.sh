#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# chk/vm_helper.sh COMMAND: what rdma_path_2vm.sh has VM 1 do through
# smc-vm-exec (not a test of its own):
#   load-rdma-cm           load rdma_ucm and its dependencies
#   add-rxe0 | del-rxe0    rxe0 on eth0, waited for until ACTIVE / removed
#   start-server ARGS...   smc_chk -S ARGS in the background, once listening
#   stop-server            stop it and print its log
here=$(cd "$(dirname "$0")" && pwd)
# tap.sh only for its waiting helper; its TAP header goes nowhere.
. "$here/../lib/tap.sh" >/dev/null
. "$here/lib.sh"
TMPDIR=/tmp/smc-chk-vm1
mkdir -p "$TMPDIR"

cmd=$1
shift
case $cmd in
load-rdma-cm) chk_load_rdma_cm ;;
add-rxe0) chk_add_rxe0 ;;
del-rxe0) rdma link delete rxe0 2>/dev/null; true ;;
start-server)
	# Detached from smc-vm-exec, which returns once this shell is done.
	smc_chk -S "$@" </dev/null >"$TMPDIR/server.log" 2>&1 &
	echo $! >"$TMPDIR/server.pid"
	tap_wait_for 20 _chk_listening || { cat "$TMPDIR/server.log"; exit 1; }
	;;
stop-server)
	[ -f "$TMPDIR/server.pid" ] || exit 0
	kill "$(cat "$TMPDIR/server.pid")" 2>/dev/null
	tap_wait_for 10 sh -c "! kill -0 \$(cat $TMPDIR/server.pid) 2>/dev/null"
	rm -f "$TMPDIR/server.pid"
	cat "$TMPDIR/server.log"
	;;
*) echo "vm_helper.sh: unknown command '$cmd'" >&2; exit 2 ;;
esac
