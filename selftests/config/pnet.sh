#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# config/pnet.sh: runs the SMC_PNETID request tests (pnet) with a network
# device and a one-port RDMA device to name: a veth pair, and an rxe device
# on one end. Removes both afterwards.
here=$(cd "$(dirname "$0")" && pwd)

cleanup() {
	rdma link delete smcprxe0 2>/dev/null
	ip link del smcpv0 2>/dev/null
}
trap cleanup EXIT

bail() {
	echo "TAP version 13"
	echo "Bail out! $*"
	exit 1
}

ip link add smcpv0 type veth peer name smcpv1 || bail "cannot create a veth pair"
ip link set smcpv0 up && ip link set smcpv1 up || bail "cannot set the veth pair up"
rdma link add smcprxe0 type rxe netdev smcpv0 || bail "cannot add rxe on smcpv0 (rdma_rxe loaded?)"
"$here/pnet" -n smcpv0 -r smcprxe0
