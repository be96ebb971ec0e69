#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# smcr/rxe_one_vm.sh: the measurements behind Documentation/smc-r.md,
# "soft-RoCE in one VM". Not a test (not in tests.list): it prints what
# each set-up does, for a person to read. Run it in a VM:
#
#   vm/run --include build/kernel-image/$VER/root/lib/modules/$VER/kernel/drivers/net/vrf.ko:/root/vrf.ko \
#       -- /smc/libexec/smc-linux/selftests/smcr/rxe_one_vm.sh [VARIANT...]
#
# VARIANTs (default: all): N L L2 P V1 V2 V2smc, as in smc-r.md. Each one
# builds a veth pair va (10.43.2.1, rxea) / vb (10.43.2.2, rxeb), runs
# ibv_rc_pingpong between rxea (server) and rxeb (client), RoCE over the
# two IPv4 GIDs and the out-of-band exchange over 127.0.0.1, prints both
# rxe devices' sent_pkts/rcvd_pkts before and after, and removes it all.
# V2smc is V2 with af_smc (smcr_probe=1) and smc-echo/smc-fbprobe under
# "ip vrf exec". Without /root/vrf.ko the VRF variants are left out.
A=10.43.2.1
B=10.43.2.2
T=${SMC_SELFTESTS:-/smc/libexec/smc-linux/selftests}/tools
PNET=/smc/bin/smc_pnet

# gid_idx DEV IP: the GID index of ::ffff:IP on DEV's port 1.
gid_idx() {
	hex=$(echo "$2" | awk -F. '{printf "%02x%02x:%02x%02x", $1, $2, $3, $4}')
	i=0
	while [ $i -lt 16 ]; do
		[ "$(cat "/sys/class/infiniband/$1/ports/1/gids/$i" 2>/dev/null)" = \
			"0000:0000:0000:0000:0000:ffff:$hex" ] && { echo $i; return 0; }
		i=$((i + 1))
	done
	echo none
	return 1
}
counters() {
	for d in rxea rxeb; do
		printf '%s sent_pkts %s rcvd_pkts %s; ' $d \
			"$(cat /sys/class/infiniband/$d/ports/1/hw_counters/sent_pkts)" \
			"$(cat /sys/class/infiniband/$d/ports/1/hw_counters/rcvd_pkts)"
	done
	echo
}
active() {
	n=0
	until rdma link show "$1/1" | grep -q 'state ACTIVE'; do
		n=$((n + 1))
		[ $n -lt 600 ] || { echo "$1 not ACTIVE"; return 1; }
		sleep 0.05
	done
}
rxe_pair() { # NETDEV_A NETDEV_B [NETNS_A NETNS_B]
	if [ -n "$3" ]; then
		ip netns exec "$3" rdma link add rxea type rxe netdev "$1"
		ip netns exec "$4" rdma link add rxeb type rxe netdev "$2"
	else
		rdma link add rxea type rxe netdev "$1"
		rdma link add rxeb type rxe netdev "$2"
	fi
	active rxea && active rxeb
}
pingpong() {
	ga=$(gid_idx rxea $A) gb=$(gid_idx rxeb $B)
	echo "GID index: rxea $ga, rxeb $gb"
	echo "before: $(counters)"
	timeout 25 ibv_rc_pingpong -d rxea -g "$ga" -n 5 -s 64 >/tmp/rxe1vm.srv 2>&1 &
	srv=$!
	sleep 1
	timeout 20 ibv_rc_pingpong -d rxeb -g "$gb" -n 5 -s 64 127.0.0.1 >/tmp/rxe1vm.cli 2>&1
	echo "client exit $?:"
	sed 's/^/  /' /tmp/rxe1vm.cli
	wait $srv
	echo "server exit $?:"
	sed 's/^/  /' /tmp/rxe1vm.srv
	echo "after: $(counters)"
	echo "neighbours: $(ip neigh show | tr '\n' ';')"
}
veth_pair() {
	ip link add va type veth peer name vb
	ip addr add $A/24 dev va
	ip addr add $B/24 dev vb
	ip link set va up
	ip link set vb up
}
teardown() {
	rdma link del rxea 2>/dev/null
	rdma link del rxeb 2>/dev/null
	ip link del va 2>/dev/null
	ip link del vrfa 2>/dev/null
	ip link del vrfb 2>/dev/null
	ip netns del n1 2>/dev/null
	ip netns del n2 2>/dev/null
}

variant_N() {
	echo "== N: va in namespace n1, vb in n2, rxea/rxeb made there"
	ip netns add n1
	ip netns add n2
	ip link add va netns n1 type veth peer name vb netns n2
	ip -n n1 addr add $A/24 dev va
	ip -n n2 addr add $B/24 dev vb
	ip -n n1 link set va up
	ip -n n2 link set vb up
	rxe_pair va vb n1 n2
	pingpong
}
variant_L() {
	echo "== L: both ends in the initial namespace, plain routing"
	veth_pair
	rxe_pair va vb
	echo "route: $(ip route get $B | head -n 1); with oif va: $(ip route get $B oif va | head -n 1)"
	pingpong
}
variant_L2() {
	echo "== L2: as L, accept_local=1 on va and vb"
	veth_pair
	echo 1 >/proc/sys/net/ipv4/conf/va/accept_local
	echo 1 >/proc/sys/net/ipv4/conf/vb/accept_local
	rxe_pair va vb
	pingpong
}
variant_P() {
	echo "== P: as L, policy rules (the set-up of topo_veth_rxe), rp_filter=${RPF:-0}"
	echo "${RPF:-0}" >/proc/sys/net/ipv4/conf/all/rp_filter
	veth_pair
	ip route add $B dev va src $A table 4301
	ip route add $A dev vb src $B table 4302
	ip rule add pref 10 to $B iif lo lookup 4301
	ip rule add pref 11 to $A iif lo lookup 4302
	ip rule add pref 20 lookup local
	ip rule del pref 0 lookup local
	echo "route: $(ip route get $B | head -n 1)"
	rxe_pair va vb
	pingpong
	ip rule add pref 0 lookup local
	ip rule del pref 20 lookup local
	ip rule del pref 10
	ip rule del pref 11
	echo 0 >/proc/sys/net/ipv4/conf/all/rp_filter
}
vrfs() { # MTU
	echo 1 >/proc/sys/net/ipv4/udp_l3mdev_accept
	echo 1 >/proc/sys/net/ipv4/tcp_l3mdev_accept
	ip link add vrfa type vrf table 10
	ip link add vrfb type vrf table 20
	[ -n "$1" ] && ip link set vrfa mtu "$1" && ip link set vrfb mtu "$1"
	ip link set vrfa up
	ip link set vrfb up
	ip link add va type veth peer name vb
	ip link set va master vrfa
	ip link set vb master vrfb
	ip link set va up
	ip link set vb up
}
variant_V1() {
	echo "== V1: VRFs vrfa/vrfb, va and vb enslaved, addresses and rxe on va/vb"
	vrfs
	ip addr add $A/24 dev va
	ip addr add $B/24 dev vb
	rxe_pair va vb
	echo "route: $(ip route get $B oif va | head -n 1)"
	pingpong
	echo "va: $(cat /sys/class/net/va/statistics/rx_packets) packets in"
}
v2_setup() {
	vrfs 1500
	ip addr add $A/32 dev vrfa
	ip addr add $B/32 dev vrfb
	ip route add $B/32 dev va vrf vrfa
	ip route add $A/32 dev vb vrf vrfb
	rxe_pair vrfa vrfb
}
variant_V2() {
	echo "== V2: VRFs, addresses (/32) and rxe on the VRF devices, the peer via the veth"
	v2_setup
	pingpong
}
variant_V2smc() {
	echo "== V2smc: V2 with af_smc smcr_probe=1, programs under ip vrf exec"
	rmmod af_smc
	insmod "$SMC_MODULE_FILE" smcr_probe=1 loopback_ism=0 || { echo "insmod failed"; return 1; }
	grep -q ' /sys/kernel/debug debugfs' /proc/mounts || mount -t debugfs none /sys/kernel/debug
	v2_setup
	m=/sys/kernel/debug/af_smc/rdma_match
	for d in va vb vrfa vrfb; do echo $d >$m; echo "rdma_match: $(cat $m)"; done
	ip vrf exec vrfa "$T/smc-echo" -s -k 0 -f smc -a $A -p 4457 -r /tmp/rxe1vm.ready -t 30 \
		>/tmp/rxe1vm.echo 2>&1 &
	n=0
	until [ -e /tmp/rxe1vm.ready ] || [ $n -ge 100 ]; do n=$((n + 1)); sleep 0.1; done
	echo "client: $(ip vrf exec vrfb "$T/smc-fbprobe" $A 4457 0 2>&1)"
	$PNET -a NETA -I va && $PNET -a NETA -D rxea -P 1 &&
		$PNET -a NETB -I vb && $PNET -a NETB -D rxeb -P 1
	for d in va vb; do echo $d >$m; echo "with PNET IDs, rdma_match: $(cat $m)"; done
	echo "client: $(ip vrf exec vrfb "$T/smc-fbprobe" $A 4457 0 2>&1)"
	echo "smcr_hs: $(cat /sys/kernel/debug/af_smc/smcr_hs)"
	echo "counters: $(counters)"
	$PNET -f
	kill %1 2>/dev/null
	wait
	rm -f /tmp/rxe1vm.ready
	teardown
	rmmod af_smc
	insmod "$SMC_MODULE_FILE"
}

[ -e /root/vrf.ko ] && ! grep -q '^vrf ' /proc/modules && insmod /root/vrf.ko
variants=${*:-N L L2 P V1 V2 V2smc}
for v in $variants; do
	case $v in
	V*) grep -q '^vrf ' /proc/modules || { echo "== $v: left out, no vrf module"; continue; } ;;
	esac
	teardown
	"variant_$v" 2>&1
	teardown
	echo
done
