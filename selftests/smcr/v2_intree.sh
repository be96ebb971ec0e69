#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# smcr/v2_intree.sh: SMC-Rv2 between af_smc and Debian's smc.ko, two VMs,
# rxe0 on eth0 of each, the same UEID on both, and on the smc.ko side a
# PNET ID for eth0 and rxe0 port 1 (Linux 6.1 ties rxe0 to eth0 no other
# way). The client is VM 0, the server VM 1; the topologies
# 2@ours,intree and 2@intree,ours run both directions. af_smc gets
# smcr=1 loopback_ism=0. Both sides can agree on SMC-Rv2 over rxe (RoCEv2
# GIDs, a shared UEID), so the test asks for it: the client's connection
# SMC-R without fallback, 64 KiB echoed byte-exact, and no side hangs
# (every step bounded). What each side said is printed (Documentation/
# smc-r.md, "SMC-Rv2").
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/topology.sh"

[ "$(id -u)" = 0 ] || tap_skip_all "needs root"
[ "${SMC_VM_COUNT:-1}" -ge 2 ] || tap_skip_all "needs --vms 2"
case "${SMC_MODULE:-}/${SMC_PEER_MODULE:-}" in
ours/intree) OURS=0 LINUX=1 ;;
intree/ours) OURS=1 LINUX=0 ;;
*) tap_skip_all "runs with af_smc on one VM and Debian's smc.ko on the other" ;;
esac
module=${SMC_MODULE_FILE:-/smc/kernel/af_smc.ko}
T=$SMC_SELFTESTS/tools
EID=SMCRV2.INTEROP
port=4458

# on VM COMMAND: run COMMAND on VM 0 (here) or VM 1.
on() {
	if [ "$1" = 0 ]; then
		sh -c "$2"
	else
		smc-vm-exec 1 "$2"
	fi
}

cleanup() {
	smc-vm-exec 1 'kill $(cat /tmp/echo.pid) 2>/dev/null' >/dev/null 2>&1
	on $LINUX 'smc_pnet -f; smcd ueid flush' >/dev/null 2>&1
	on $OURS 'smcd ueid flush' >/dev/null 2>&1
	topo_cleanup
	on $OURS "rmmod af_smc; insmod $module" >/dev/null 2>&1
}
tap_at_exit cleanup

setup() {
	# af_smc's file has the same path on both VMs (vm/guest/init).
	tap_assert "af_smc smcr=1 on VM $OURS" on $OURS \
		"rmmod af_smc && insmod $module smcr=1 loopback_ism=0"
	tap_assert "rxe0 on eth0 of both VMs" topo_vm_rxe
	tap_assert "PNET ID for eth0 and rxe0 on VM $LINUX (smc.ko)" on $LINUX \
		"smc_pnet -a NETX -I eth0 && smc_pnet -a NETX -D rxe0 -P 1"
	tap_assert "UEID $EID on VM 0" on 0 "smcd ueid add $EID"
	tap_assert "UEID $EID on VM 1" on 1 "smcd ueid add $EID"
	tap_assert "echo server on VM 1" smc-vm-exec 1 \
		"$T/smc-echo -s -k 0 -f smc -a 10.43.0.2 -p $port -r /tmp/ready -t 120 >/tmp/echo.log 2>&1 </dev/null & echo \$! >/tmp/echo.pid"
	tap_assert "the server is ready" smc-vm-exec 1 \
		"n=0; until [ -e /tmp/ready ]; do n=\$((n+1)); [ \$n -lt 600 ] || exit 1; sleep 0.05; done"
	return 0
}

show() {
	for v in 0 1; do
		tap_diag "VM $v: $(on $v 'smcr -j linkgroup 2>&1; cat /sys/kernel/debug/af_smc/smcr_hs 2>/dev/null; cat /sys/class/infiniband/rxe0/ports/1/hw_counters/sent_pkts /sys/class/infiniband/rxe0/ports/1/hw_counters/rcvd_pkts' | tr '\n' ' ')"
	done
}

agree() {
	grep -q ' /sys/kernel/debug debugfs' /proc/mounts || mount -t debugfs none /sys/kernel/debug
	smc-vm-exec 1 "grep -q ' /sys/kernel/debug debugfs' /proc/mounts || mount -t debugfs none /sys/kernel/debug"
	out=$($T/smc-fbprobe 10.43.0.2 $port 0) || tap_fail "smc-fbprobe: $out"
	tap_diag "client (VM 0): $out"
	show
	[ "$out" = "mode 0 fallback 0x00000000/0x00000000" ] ||
		tap_fail "the connection is not SMC-R: $out"
	tap_expect "64 KiB echoed byte-exact" \
		$T/smc-echo -c -f smc -a 10.43.0.2 -p $port -n 65536 -w 30
	return 0
}

tap_case "setup: af_smc smcr=1, Debian's smc.ko with PNET IDs, one UEID on both" 180 setup
tap_case "SMC-Rv2 between af_smc and smc.ko: SMC-R, 64 KiB echoed" 120 agree
tap_done
