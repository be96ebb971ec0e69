#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# smcr/slots_topo1.sh: net.smc.smcr_max_send_wr and smcr_max_recv_wr size
# a new SMC-R link's send and receive slots and its QP (selftests/smcr/
# slots.c says how it is checked). One VM, topology 1 (topo_veth_rxe:
# client 10.43.2.1 on smcv1/rxev1, server 10.43.2.2 on smcv2/rxev2), af_smc
# with smcr=1 loopback_ism=0; reloaded as the harness had it afterwards.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/module.sh"
. "$here/../lib/topology.sh"

topo_smcr_run "$here/slots" "$TOPO_VETH_IP4_2" "$TOPO_VETH_IP4_1"
