#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# smcr-topo1.sh [NAME=VALUE...] COMMAND [ARG...]
#
# Runs COMMAND with SMC-R possible between the two endpoints of topology 1
# in this VM (topo_veth_rxe: 10.43.2.1 on smcv1 with rxev1, 10.43.2.2 on
# smcv2 with rxev2, policy routing over the veth; Documentation/smc-r.md),
# with our af_smc reloaded as "smcr=1 loopback_ism=0" (a client proposes
# SMC-R only when it has no SMC-D device), then puts the module and the
# network back as they were. COMMAND's environment gets:
#   SMC_DIFF_MODE=smcr       the differential suite wants every AF_SMC
#                            connection in mode SMC-R (sock_diag)
#   SMC_TEST_LOCAL4=10.43.2.2 "this host" for IPv4 (lib/family.c), so
#                            listeners sit on smcv2 and clients reach them
#                            from 10.43.2.1 over smcv1
#   SMC_TEST_LOCAL6=fd43:2::2 the same for IPv6 (from fd43:2::1)
#   SMC_DIFF_RXE="rxev1 rxev2"  whose RoCE counters must move (lib/diff.c)
#   SMC_TOPO1_SERVER, SMC_TOPO1_CLIENT  the two addresses, for scripts
# NAME=VALUE words before COMMAND go into its environment too. COMMAND is
# taken from the current directory (the test's area) when it is there,
# else from PATH. Exits with COMMAND's status, or 1 when the set-up or the
# restore failed.
. "$SMC_SELFTESTS/lib/module.sh"
. "$SMC_SELFTESTS/lib/topology.sh"

while [ $# -gt 0 ]; do
	# $1 is NAME=VALUE: export assigns it.
	# shellcheck disable=SC2163
	case "$1" in
	*=*) export "$1"; shift ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || { echo "Bail out! usage: smcr-topo1.sh [NAME=VALUE...] COMMAND"; exit 1; }
cmd=$1
shift
[ -x "./$cmd" ] && cmd=./$cmd

smc_module_ours ||
	{ echo "Bail out! our af_smc is not loaded (SMC_MODULE=$SMC_MODULE): SMC-R needs it"; exit 1; }
smc_module_reload smcr=1 loopback_ism=0 ||
	{ echo "Bail out! cannot reload af_smc with smcr=1 loopback_ism=0"; exit 1; }
if ! err=$(topo_veth_rxe 2>&1); then
	echo "Bail out! topology 1 (topo_veth_rxe): $err"
	topo_cleanup
	smc_module_restore
	exit 1
fi
echo "# af_smc reloaded with smcr=1 loopback_ism=0; topology 1: $TOPO_VETH_IP4_1 $TOPO_VETH_IP6_1 (smcv1, rxev1) -> $TOPO_VETH_IP4_2 $TOPO_VETH_IP6_2 (smcv2, rxev2)"
export SMC_DIFF_MODE=${SMC_DIFF_MODE:-smcr}
export SMC_TEST_LOCAL4=${SMC_TEST_LOCAL4:-$TOPO_VETH_IP4_2}
export SMC_TEST_LOCAL6=${SMC_TEST_LOCAL6:-$TOPO_VETH_IP6_2}
export SMC_DIFF_RXE=${SMC_DIFF_RXE:-rxev1 rxev2}
export SMC_TOPO1_SERVER=$TOPO_VETH_IP4_2 SMC_TOPO1_CLIENT=$TOPO_VETH_IP4_1
"$cmd" "$@"
rc=$?
for d in rxev1 rxev2; do
	c=/sys/class/infiniband/$d/ports/1/hw_counters
	echo "# $d: sent_pkts $(cat $c/sent_pkts) rcvd_pkts $(cat $c/rcvd_pkts) in all"
done
# Sockets are closed by now; the module goes first (its link groups with
# it, DELETE_LINK while both devices are still there), then the network.
smc_module_restore || { echo "# cannot reload af_smc with its defaults"; rc=1; }
topo_cleanup
exit $rc
