#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# smcr/diff.sh PROGRAM [ARG...]
#
# A program of the differential socket suite (selftests/socket) in SMC-R
# mode: af_smc reloaded with smcr=1 loopback_ism=0, rxe0 on eth0, and
# every "loopback" IPv4 connection of the suite made to eth0's own address
# instead (SMC_TEST_LOCAL4, selftests/lib/family.c), whose route is lo
# but whose address is on eth0: af_smc takes rxe0's port for it, and rxe
# loops the RoCE packets back inside the device. Only the IPv4 families
# run (-f inet,smc): SMC-R here has IPv4 GIDs only. SMC_DIFF_MODE=smcr has
# every AF_SMC connection prove through sock_diag that it is SMC-R (no
# fallback), so a case cannot pass over TCP. Needs two VMs only for
# eth0 to have a carrier (rxe0's port is ACTIVE only then); VM 1 idles.
# Exits with PROGRAM's status (its TAP is the output).
. "$SMC_SELFTESTS/lib/module.sh"
. "$SMC_SELFTESTS/lib/topology.sh"

[ $# -ge 1 ] || { echo "Bail out! usage: diff.sh PROGRAM [ARG...]"; exit 1; }
if [ "${SMC_VM_COUNT:-1}" -lt 2 ]; then
	echo "1..0 # SKIP needs --vms 2 (eth0 with a carrier for rxe0)"
	exit 0
fi
if ! smc_module_ours; then
	echo "1..0 # SKIP smcr=1 is af_smc's own parameter"
	exit 0
fi
prog=$SMC_SELFTESTS/socket/$1
shift
[ -x "$prog" ] || { echo "Bail out! no $prog"; exit 1; }

smc_module_reload smcr=1 loopback_ism=0 || { echo "Bail out! cannot reload af_smc with smcr=1"; exit 1; }
if ! topo_vm_rxe >/dev/null 2>&1; then
	echo "Bail out! cannot set up rxe0 on eth0"
	smc_module_restore
	exit 1
fi
addr=$(ip -4 -o addr show dev eth0 | sed -n 's/.* inet \([0-9.]*\)\/.*/\1/p' | head -n 1)
if [ -z "$addr" ]; then
	echo "Bail out! eth0 has no IPv4 address"
	topo_cleanup
	smc_module_restore
	exit 1
fi
echo "# af_smc smcr=1 loopback_ism=0, rxe0 on eth0, local address $addr"
SMC_TEST_LOCAL4=$addr SMC_DIFF_MODE=smcr "$prog" -f inet,smc "$@"
rc=$?
topo_cleanup
smc_module_restore || { echo "# cannot reload af_smc with its defaults"; rc=1; }
exit $rc
