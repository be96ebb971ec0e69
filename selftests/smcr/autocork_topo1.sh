#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# smcr/autocork_topo1.sh: net.smc.autocorking_size holds small writes back
# while a CDC is on its way, and 0 turns that off, counted by rxe
# (selftests/smcr/autocork.c says how). One VM, topology 1 (topo_veth_rxe:
# client 10.43.2.1 on smcv1/rxev1, server 10.43.2.2 on smcv2/rxev2), af_smc
# with smcr=1 loopback_ism=0; reloaded as the harness had it afterwards.
# smcv2 sends through netem with 5 ms of delay: the server's rxe ACKs,
# which complete the client's CDCs, come back as over a real link. In one
# VM under TCG they otherwise come back in about the time one 64-byte
# write takes (rxe builds its packets inside the writer's call), and only
# about one write in five found a CDC in flight (829 packets against
# 1042 with autocorking off).
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/module.sh"
. "$here/../lib/topology.sh"

# netem on the server's side: what smcv2 sends waits 5 ms.
netem() {
	topo_netem_load && tc qdisc add dev smcv2 root netem delay 5ms
}
topo_smcr_run --setup netem "$here/autocork" "$TOPO_VETH_IP4_2" "$TOPO_VETH_IP4_1" rxev1
rc=$?
rmmod sch_netem 2>/dev/null
exit $rc
