#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# smcr/hs_intree.sh: our SMC-Rv1 Proposal (af_smc smcr_probe=1 on VM 0)
# to Debian's smc.ko (VM 1), rxe0 on eth0 of each, and on VM 1 a PNET ID
# for both eth0 and rxe0 port 1 (Linux 6.1 finds rxe0 for a netdev no
# other way: rxe has no get_netdev). Linux answers our Proposal, so it
# parsed it, with Decline 0x03030000 (no SMC device): Linux 6.1 uses
# RoCEv1 GIDs for SMC-Rv1, and rxe has only RoCEv2 ones (see
# Documentation/smc-r.md). The connection is TCP and works; no side hangs.
# In 2@intree,ours the other direction: Debian's smc.ko as client on VM 0
# (PNET IDs, no UEID), af_smc smcr=1 serving on VM 1: Linux finds no
# SMC-R device for SMC-Rv1 either, so its only CLC message is its own
# Decline 0x03030000 and both use TCP.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/topology.sh"

[ "$(id -u)" = 0 ] || tap_skip_all "needs root"
[ "${SMC_VM_COUNT:-1}" -ge 2 ] || tap_skip_all "needs --vms 2"
case "${SMC_MODULE:-}/${SMC_PEER_MODULE:-}" in
ours/intree | intree/ours) ;;
*) tap_skip_all "runs with ours on one VM and Debian's smc.ko on the other" ;;
esac
module=${SMC_MODULE_FILE:-}
[ -f "$module" ] || tap_skip_all "no module file (SMC_MODULE_FILE)"
T=$SMC_SELFTESTS/tools
port=4456

cleanup() {
	if [ "$SMC_MODULE" = ours ]; then
		smc-vm-exec 1 'kill $(cat /tmp/echo.pid) 2>/dev/null; smc_pnet -f' >/dev/null 2>&1
		topo_cleanup
		rmmod af_smc 2>/dev/null
		insmod "$module"
	else
		smc-vm-exec 1 'kill $(cat /tmp/echo.pid) 2>/dev/null' >/dev/null 2>&1
		smc_pnet -f >/dev/null 2>&1
		topo_cleanup
		smc-vm-exec 1 "rmmod af_smc; insmod $module" >/dev/null 2>&1
	fi
}
tap_at_exit cleanup

setup() {
	tap_assert "af_smc smcr_probe=1 on VM 0" sh -c "rmmod af_smc && insmod $module smcr_probe=1 loopback_ism=0"
	tap_assert "rxe0 on eth0 of both VMs" topo_vm_rxe
	tap_assert "PNET ID for eth0 and rxe0 on VM 1" \
		smc-vm-exec 1 "smc_pnet -a NETX -I eth0 && smc_pnet -a NETX -D rxe0 -P 1"
	tap_assert "echo server on VM 1" smc-vm-exec 1 \
		"$T/smc-echo -s -k 0 -f smc -a 10.43.0.2 -p $port -r /tmp/ready -t 120 >/tmp/echo.log 2>&1 </dev/null & echo \$! >/tmp/echo.pid"
	tap_assert "the server is ready" smc-vm-exec 1 \
		"n=0; until [ -e /tmp/ready ]; do n=\$((n+1)); [ \$n -lt 600 ] || exit 1; sleep 0.05; done"
	return 0
}

declined() {
	out=$($T/smc-fbprobe 10.43.0.2 $port 0) || tap_fail "smc-fbprobe: $out"
	tap_diag "client: $out"
	case "$out" in
	*"fallback 0x05000000/0x03030000") ;;
	*) tap_fail "not Linux's Decline 0x03030000" ;;
	esac
	tap_expect "64 KiB echoed byte-exact over the fallback" \
		$T/smc-echo -c -f smc -a 10.43.0.2 -p $port -n 65536 -w 20
	return 0
}

linux_client_setup() {
	tap_assert "af_smc smcr=1 on VM 1" smc-vm-exec 1 "rmmod af_smc && insmod $module smcr=1 loopback_ism=0"
	tap_assert "rxe0 on eth0 of both VMs" topo_vm_rxe
	tap_assert "PNET ID for eth0 and rxe0 on VM 0 (smc.ko)" \
		sh -c "smc_pnet -a NETX -I eth0 && smc_pnet -a NETX -D rxe0 -P 1"
	tap_assert "echo server on VM 1" smc-vm-exec 1 \
		"$T/smc-echo -s -k 0 -f smc -a 10.43.0.2 -p $port -r /tmp/ready -t 120 >/tmp/echo.log 2>&1 </dev/null & echo \$! >/tmp/echo.pid"
	tap_assert "the server is ready" smc-vm-exec 1 \
		"n=0; until [ -e /tmp/ready ]; do n=\$((n+1)); [ \$n -lt 600 ] || exit 1; sleep 0.05; done"
	return 0
}

linux_declines() {
	out=$($T/smc-fbprobe 10.43.0.2 $port 0) || tap_fail "smc-fbprobe: $out"
	tap_diag "client (smc.ko): $out"
	case "$out" in
	*"fallback 0x03030000/"*) ;;
	*) tap_fail "smc.ko did not decline 0x03030000 itself" ;;
	esac
	tap_expect "64 KiB echoed byte-exact over the fallback" \
		$T/smc-echo -c -f smc -a 10.43.0.2 -p $port -n 65536 -w 20
	return 0
}

if [ "$SMC_MODULE" = ours ]; then
	tap_case "setup: smcr_probe=1 here, Debian's smc.ko with PNET IDs there" 180 setup
	tap_case "Linux 6.1 declines our SMC-Rv1 Proposal 0x03030000; TCP works" 60 declined
else
	tap_case "setup: Debian's smc.ko with PNET IDs here, af_smc smcr=1 there" 180 linux_client_setup
	tap_case "smc.ko as client finds no SMC-Rv1 device, declines 0x03030000 itself; TCP works" 60 linux_declines
fi
tap_done
