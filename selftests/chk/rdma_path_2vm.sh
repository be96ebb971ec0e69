#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# chk/rdma_path_2vm.sh: smc_chk's RDMA path check names the failing step and
# ends in bounded time, between two VMs (the client on VM 0 with rxe0 on
# eth0, the server on VM 1):
#   - no route to the address (192.0.2.1) -> address resolution
#   - an address nobody answers on eth0 -> address resolution
#   - VM 1 without an RDMA device      -> connection (no answer)
#   - VM 1 with rxe0, a working path   -> ok, ESTABLISHED
#   - VM 1 rejecting (--reject)        -> connection, REJECTED status 28
#   - VM 1 without RDMA CM listener    -> connection, REJECTED status 8
# Each case prints "time to fail: N ms" (the whole smc_chk run).
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/lib.sh"

[ "${SMC_VM_COUNT:-1}" -ge 2 ] || tap_skip_all "needs two VMs (vm/run --vms 2)"
command -v smc-vm-exec >/dev/null || tap_skip_all "no smc-vm-exec (not in a test VM)"
command -v smc_chk >/dev/null || tap_skip_all "smc_chk is not installed"
why=$(chk_load_rdma_cm) || tap_skip_all "$why"
why=$(smc-vm-exec 1 "\$SMC_SELFTESTS/chk/vm_helper.sh load-rdma-cm" 2>&1) ||
	tap_skip_all "VM 1: $why"
chk_add_rxe0 >/dev/null 2>&1 || tap_skip_all "cannot add rxe0 on eth0"
tap_at_exit "rdma link delete rxe0 2>/dev/null; smc-vm-exec 1 '\$SMC_SELFTESTS/chk/vm_helper.sh stop-server >/dev/null; \$SMC_SELFTESTS/chk/vm_helper.sh del-rxe0'"

peer=10.43.0.2
timeout=3
out=$TMPDIR/out

vm1() {
	smc-vm-exec 1 "\$SMC_SELFTESTS/chk/vm_helper.sh $*"
}

# check HOST BOUND_S STEP TEXT...: smc_chk -C HOST must report the RDMA path
# failing at STEP (or "ok") with the sentence containing TEXT, within BOUND_S.
check() {
	host=$1 bound=$2 step=$3
	shift 3
	start=$(chk_now_ms)
	# --rdma-always: also where SMC-R works (Debian's module on both).
	smc_chk -C "$host" -t $timeout --rdma-always >"$out" 2>&1
	rc=$?
	took=$(( $(chk_now_ms) - start ))
	sed 's/^/# /' "$out"
	tap_diag "exit status $rc; time to fail: $took ms"
	if [ "$step" = ok ]; then
		grep -q "^RDMA path: ok" "$out" || tap_fail "the RDMA path is not reported working"
	else
		grep -q "^RDMA path: FAILED at $step after" "$out" ||
			tap_fail "the RDMA path does not fail at $step"
	fi
	for text in "$@"; do
		grep -qF -- "$text" "$out" || tap_fail "the report lacks '$text'"
	done
	[ "$took" -le $((bound * 1000)) ] || tap_fail "took $took ms, more than $bound s"
	return 0
}

no_route() {
	# TEST-NET-1: the VMs have no route there, so nothing is even sent.
	ip route get 192.0.2.1 >/dev/null 2>&1 && tap_skip_case "this VM has a route to 192.0.2.1"
	check 192.0.2.1 10 "address resolution" "Connection: FAILED" "There is no IP route to 192.0.2.1"
}

no_neighbour() {
	# TCP waits $timeout s for its SYN, address resolution $timeout s for ARP.
	check 10.43.0.99 $((3 * timeout + 5)) "address resolution" \
		"10.43.0.99 did not answer address resolution"
}

peer_without_rdma() {
	vm1 del-rxe0
	vm1 start-server || { tap_fail "no server on VM 1"; return 1; }
	check $peer $((3 * timeout + 5)) connection "address resolution: ok (rxe0 port 1)" \
		"route resolution: ok" "10.43.0.2 did not answer the RDMA connection request"
	vm1 stop-server | sed 's/^/# VM 1: /'
}

working() {
	vm1 add-rxe0 || { tap_fail "cannot add rxe0 on VM 1"; return 1; }
	vm1 start-server || { tap_fail "no server on VM 1"; return 1; }
	check $peer 20 ok "connection: ok (ESTABLISHED)" "An RDMA connection to 10.43.0.2 was established"
	vm1 stop-server >"$TMPDIR/log"
	sed 's/^/# VM 1: /' "$TMPDIR/log"
	grep -q "RDMA CM: accepted a connection from 10.43.0.1" "$TMPDIR/log" ||
		tap_fail "the server did not log the RDMA connection"
}

rejecting() {
	vm1 start-server --reject || { tap_fail "no server on VM 1"; return 1; }
	check $peer 20 connection "REJECTED, status 28 (consumer defined)" \
		"rejected the RDMA connection: the RDMA network works, the peer refuses"
	vm1 stop-server | sed 's/^/# VM 1: /'
}

no_listener() {
	vm1 start-server --no-rdma || { tap_fail "no server on VM 1"; return 1; }
	check $peer 20 connection "REJECTED, status 8 (invalid service ID)" \
		"nothing listens for RDMA connections on port 37373"
	vm1 stop-server | sed 's/^/# VM 1: /'
}

tap_case "no route: fails at address resolution" 60 no_route
tap_case "no host on the link: fails at address resolution" 60 no_neighbour
tap_case "peer without RDMA device: fails at connection" 90 peer_without_rdma
tap_case "peer with rxe0 and listener: path ok" 90 working
tap_case "peer rejects: fails at connection, REJECTED" 60 rejecting
tap_case "peer without listener: fails at connection, REJECTED" 60 no_listener
tap_done
