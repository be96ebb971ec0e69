# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# chk/lib.sh: helpers of the chk area (smc_chk, smc_rnics, smc_dbg); source
# it after ../lib/tap.sh.
#
#   chk_load_rdma_cm      load rdma_ucm and the modules it needs, in the
#                         order of /smc-run/modules.rdmacm (vm/initramfs
#                         takes them from the kernel image the VM boots;
#                         the base image loads only rdma_rxe and ib_uverbs);
#                         prints why not and returns 1 when that cannot be
#                         done
#   chk_add_rxe0          rxe0 on eth0 of this VM, waited for until ACTIVE
#   chk_start_server ARGS start "smc_chk -S ARGS" here in the background, its
#                         output in $TMPDIR/server.log; waits for it to listen
#   chk_stop_server       stop it

CHK_RDMA_CM_LIST=/smc-run/modules.rdmacm

chk_module_loaded() {
	grep -q "^$1 " /proc/modules || [ -d "/sys/module/$1" ]
}

chk_load_rdma_cm() {
	[ -s "$CHK_RDMA_CM_LIST" ] ||
		{ echo "no $CHK_RDMA_CM_LIST (the VM image lists no RDMA CM modules)"; return 1; }
	while read -r ko; do
		chk_module_loaded "$(basename "$ko" .ko | tr - _)" && continue
		insmod "$ko" 2>&1 || { echo "insmod $ko failed"; return 1; }
	done <"$CHK_RDMA_CM_LIST"
	# devtmpfs creates the node; wait for it rather than assume.
	tap_wait_for 10 test -c /dev/infiniband/rdma_cm ||
		{ echo "no /dev/infiniband/rdma_cm after loading rdma_ucm"; return 1; }
}

_chk_port_active() {
	rdma link show "$1/1" 2>/dev/null | grep -q 'state ACTIVE'
}

chk_add_rxe0() {
	rdma link add rxe0 type rxe netdev eth0 || return 1
	tap_wait_for 30 _chk_port_active rxe0 || { echo "rxe0 did not become ACTIVE"; return 1; }
}

_chk_listening() {
	grep -q "^smc_chk: server on port" "$TMPDIR/server.log" 2>/dev/null
}

chk_start_server() {
	smc_chk -S "$@" >"$TMPDIR/server.log" 2>&1 &
	CHK_SERVER_PID=$!
	tap_wait_for 20 _chk_listening || {
		sed 's/^/server: /' "$TMPDIR/server.log"
		echo "smc_chk -S did not start"
		return 1
	}
}

chk_stop_server() {
	[ -n "$CHK_SERVER_PID" ] || return 0
	kill "$CHK_SERVER_PID" 2>/dev/null
	wait "$CHK_SERVER_PID" 2>/dev/null
	CHK_SERVER_PID=
}

# Milliseconds since boot.
chk_now_ms() {
	read -r _chk_up _chk_rest </proc/uptime
	echo $(( ${_chk_up%.*} * 1000 + $(echo "${_chk_up#*.}" | sed 's/^0*//;s/^$/0/') * 10 ))
}
