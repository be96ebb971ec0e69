#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# smcd/movewin_2vm.sh: a writer that moves to the bigger ring its reader
# offered (Documentation/smc-d.md, "Rings that grow") while the same
# connection's reads send CDCs, between two VMs over the ivshmem region
# (topology 2+ivshmem). smc_window.ko (window=move) holds every switch on
# both VMs for 20 ms right after smcd_switch_tx() pointed the connection's
# CDCs at the new DMB; a CDC sent meanwhile must still count in the ring
# it lands in. Five echoes of 16 MiB from VM 0 to VM 1, both ways at once,
# so both ends' rings grow while both read: each must come back
# byte-exact, and the window must have held switches.
#
# Between VMs the reader takes the writer's CDCs from its DMB's header
# after a doorbell, so it may see only the last of several: a read's CDC
# counted in the old ring and written into the new DMB, then the writer's
# own CDCs, cost the reader the bytes before the last one it saw. Before
# smc_tx_move_ring() switched under cdc_mutex an echo ended 65536 bytes
# short (once in smcd/ivshmem_2vm); with this window held, see
# Documentation/smc-d.md for what the old module did.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/topology.sh"

topo_require_ours_2vm "rings that grow are af_smc's own"
[ -n "${SMC_IVSHMEM:-}" ] || tap_skip_all "no ivshmem region (vm/run --ivshmem, topology 2+ivshmem)"
window=$(dirname "$module")/smc_window.ko
[ -f "$window" ] || tap_skip_all "no smc_window.ko next to $module"
B=$(dirname "$(command -v smcd)")
T=$SMC_SELFTESTS/tools
P=/sys/module/smc_window/parameters
SRV=10.43.0.2
port=4472
EID=SMC-IVSHMEM.MOVEWIN

cleanup() {
	topo_stop_2vm /tmp/movewin.pid
	for vm in 0 1; do
		topo_on $vm "rmmod smc_window 2>/dev/null; $B/smcd ueid del $EID >/dev/null 2>&1; true"
	done
}
tap_at_exit cleanup

setup() {
	topo_ivshmem_up "$(tap_scaled 60)" || tap_fail "the ivshmem partitions are not up"
	for vm in 0 1; do
		topo_on $vm "$B/smcd ueid add $EID >/dev/null && insmod $window window=move delay_ms=20" ||
			tap_fail "VM $vm: the UEID or smc_window"
	done
}

echoes() {
	topo_on 1 "rm -f /tmp/movewin.ready; $T/smc-echo -s -k 0 -f smc -a $SRV -p $port -r /tmp/movewin.ready -t $(tap_scaled 300) >/tmp/movewin.log 2>&1 </dev/null & echo \$! >/tmp/movewin.pid" &&
		topo_on 1 "n=0; until [ -e /tmp/movewin.ready ]; do n=\$((n+1)); [ \$n -lt 600 ] || exit 1; sleep 0.05; done" ||
		tap_assert "echo server on VM 1" false
	i=0
	while [ $i -lt 5 ]; do
		out=$($T/smc-echo -c -f smc -a $SRV -p $port -n 16777216 -w 20 -t "$(tap_scaled 120)" 2>&1) ||
			tap_fail "echo $i of 16 MiB: $(echo "$out" | grep -E '^(received|smc-echo)' | tr '\n' ' ')"
		echo "$out" | grep -q '^mode SMCD ' || tap_fail "echo $i is not SMCD"
		i=$((i + 1))
	done
	held=0
	for vm in 0 1; do
		h=$(topo_on $vm "cat $P/held") c=$(topo_on $vm "cat $P/cdcs")
		tap_diag "VM $vm: switches held ${h:-?}, CDCs sent by other tasks meanwhile ${c:-?}"
		held=$((held + ${h:-0}))
	done
	[ $held -gt 0 ] || tap_fail "no switch to a bigger ring was held: the rings did not grow"
}

tap_case "both partitions up, a UEID in common, smc_window.ko with window=move on both VMs" 120 setup
tap_case "5 echoes of 16 MiB between the VMs, byte-exact while each writer is held after its switch" 600 echoes
tap_done
