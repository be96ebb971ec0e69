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

topo_smcr_run "$SMC_SELFTESTS/smcd/memlimit" smcr "$TOPO_VETH_IP4_2"
