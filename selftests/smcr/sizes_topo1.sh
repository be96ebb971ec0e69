#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# smcr/sizes_topo1.sh: SMC-R buffers past 1 MiB, up to Linux 6.11's
# 512 MiB, through net.smc.wmem/rmem and SO_SNDBUF/SO_RCVBUF, and the
# sysctls' bounds, and net.smc.smcr_buf_type 0, 1 and 2 acting on where
# the buffers' pages come from (selftests/smcr/sizes.c says how each is
# checked; it puts smcr_buf_type back as it found it). One
# VM, topology 1 (topo_veth_rxe: client 10.43.2.1 on smcv1/rxev1, server
# 10.43.2.2 on smcv2/rxev2), af_smc with smcr=1 loopback_ism=0; reloaded
# as the harness had it afterwards (a failing rmmod fails the entry).
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/module.sh"
. "$here/../lib/topology.sh"

topo_smcr_run "$here/sizes" "$TOPO_VETH_IP4_2" "$TOPO_VETH_IP4_1"
