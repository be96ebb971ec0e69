#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# smcr/memlimit_topo1.sh: smcd/memlimit's memory cgroup case over SMC-R,
# in ONE VM between the two endpoints of topology 1 (topo_veth_rxe: client
# 10.43.2.1 on smcv1 with rxev1, server 10.43.2.2 on smcv2 with rxev2),
# af_smc with smcr=1 loopback_ism=0: RMBs and send buffers, made in the
# handshake's kworker, are charged to the memcg of the sockets' owner, and
# past memory.max a connection falls back to TCP (Documentation/security.md,
# hole 6). The TAP is memlimit's; a setup that fails bails out, and af_smc
# is put back as the harness loaded it (a failing rmmod fails the entry).
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/topology.sh"
. "$here/../lib/module.sh"

module=${SMC_MODULE_FILE:-}
[ -f "$module" ] || { echo "Bail out! no module file (SMC_MODULE_FILE)"; exit 1; }
smc_module_rmmod && insmod "$module" smcr=1 loopback_ism=0 ||
	{ echo "Bail out! cannot reload af_smc with smcr=1 loopback_ism=0"; exit 1; }
if topo_veth_rxe; then
	"$SMC_SELFTESTS/smcd/memlimit" smcr "$TOPO_VETH_IP4_2"
	rc=$?
else
	echo "Bail out! topology 1 (smcv1/rxev1, smcv2/rxev2) could not be set up"
	rc=1
fi
topo_cleanup
smc_module_rmmod || { echo "# rmmod af_smc failed after memlimit"; rc=1; }
insmod "$module" || { echo "# cannot reload af_smc"; rc=1; }
exit $rc
