#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# smcr/ib_registry.sh: af_smc's registry of RDMA devices (kernel/smcr_ib.c)
# as its debugfs view shows it, against what rdma(8) and ip(8) say, in one
# VM with two namespaces and an rxe device on each veth end:
#   - both devices are listed, port 1 ACTIVE, with the RoCEv2 GID of the
#     veth end's IPv4 address and that netdev's ifindex and MAC;
#   - matching a netdev to a port (rdma_match): by the GID's netdev without
#     PNET IDs; by PNET ID when the netdev has one (and then only by it),
#     but never to a port whose GIDs are all on netdevs of another
#     namespace (security.md, hole 7);
#   - a port whose netdev goes down is DOWN and matches nothing; up again,
#     it is ACTIVE again;
#   - rdma link del removes the device's rows; a device added later appears;
#   - rmmod af_smc with an rxe device present works, and insmod lists the
#     device again.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/topology.sh"

[ "$(id -u)" = 0 ] || tap_skip_all "needs root"
[ "${SMC_MODULE:-ours}" = ours ] || tap_skip_all "the registry is af_smc's own"
why=$(topo_check_netns) || tap_skip_all "$why"
command -v rdma >/dev/null || tap_skip_all "no rdma command"
module=${SMC_MODULE_FILE:-}
[ -f "$module" ] || tap_skip_all "no module file (SMC_MODULE_FILE)"

dbg=$TMPDIR/debugfs
mkdir -p "$dbg"
mount -t debugfs none "$dbg" || tap_skip_all "cannot mount debugfs"
tap_at_exit "topo_cleanup; grep -q '^af_smc ' /proc/modules || insmod $module; umount $dbg"
reg=$dbg/af_smc/rdma
match=$dbg/af_smc/rdma_match

# match NS IFNAME: what the module answers for IFNAME in namespace NS.
match() {
	ip netns exec "$1" sh -c "echo $2 > $match && cat $match"
}

# The ifindex and MAC of IFNAME in NS.
ifindex() { ip netns exec "$1" cat "/sys/class/net/$2/ifindex"; }
mac() { ip netns exec "$1" cat "/sys/class/net/$2/address"; }

setup() {
	tap_assert "two namespaces with a veth pair" topo_netns_pair
	tap_assert "rxe1 and rxe2 on the veth ends" topo_netns_rxe
}

listed() {
	sed 's/^/# /' "$reg"
	for i in 1 2; do
		ns=smc-ns$i
		grep -qx "rxe$i port 1 ACTIVE pnetid - gids [1-9]" "$reg" ||
			tap_fail "rxe$i port 1 is not listed ACTIVE without PNET ID"
		want="rxe$i port 1 gid ::ffff:10.43.1.$i index [0-9]* ifindex $(ifindex $ns veth$i) mac $(mac $ns veth$i)"
		grep -qx "$want" "$reg" || tap_fail "no line '$want'"
	done
	return 0
}

by_gid() {
	for i in 1 2; do
		got=$(match smc-ns$i veth$i)
		tap_diag "$got"
		[ "$got" = "veth$i rxe$i 1 ::ffff:10.43.1.$i -" ] || tap_fail "veth$i: '$got'"
	done
	got=$(match smc-ns1 lo)
	[ "$got" = "lo none" ] || tap_fail "lo: '$got'"
	return 0
}

by_pnetid() {
	command -v smc_pnet >/dev/null || tap_skip_case "smc_pnet is not installed"
	tap_assert "veth1 gets PNET ID NETA" ip netns exec smc-ns1 smc_pnet -a NETA -I veth1
	# The netdev has a PNET ID now and no port has it: no match at all,
	# although rxe1 has a GID on veth1.
	got=$(match smc-ns1 veth1)
	tap_diag "$got"
	[ "$got" = "veth1 none" ] || tap_fail "PNET ID without a port: '$got'"
	# rxe2 port 1 gets NETA: its one GID is on veth2, in smc-ns2, so a
	# connection in smc-ns1 must not use it (hole 7), PNET ID or not.
	tap_assert "rxe2 port 1 gets PNET ID NETA" smc_pnet -a NETA -D rxe2 -P 1
	got=$(match smc-ns1 veth1)
	tap_diag "$got"
	[ "$got" = "veth1 none" ] || tap_fail "by PNET ID, a port of another namespace: '$got'"
	grep -qx "rxe2 port 1 ACTIVE pnetid NETA gids [1-9]" "$reg" || tap_fail "rxe2 does not show NETA"
	# veth2 has no PNET ID, and rxe2 has one now: no match for veth2.
	got=$(match smc-ns2 veth2)
	[ "$got" = "veth2 none" ] || tap_fail "veth2 against a port with a PNET ID: '$got'"
	# By PNET ID alone in one namespace: smcp1 (a second veth pair inside
	# smc-ns1, no address, no RDMA device) with NETB maps to rxe1 port 1
	# with NETB, whose GID is on veth1.
	tap_assert "a veth pair smcp1/smcp2 in smc-ns1" \
		ip -n smc-ns1 link add smcp1 type veth peer name smcp2
	tap_assert "smcp1 gets PNET ID NETB" ip netns exec smc-ns1 smc_pnet -a NETB -I smcp1
	tap_assert "rxe1 port 1 gets PNET ID NETB" smc_pnet -a NETB -D rxe1 -P 1
	got=$(match smc-ns1 smcp1)
	tap_diag "$got"
	[ "$got" = "smcp1 rxe1 1 ::ffff:10.43.1.1 NETB" ] || tap_fail "by PNET ID: '$got'"
	smc_pnet -d NETA
	smc_pnet -d NETB
	ip netns exec smc-ns1 smc_pnet -d NETA
	ip netns exec smc-ns1 smc_pnet -d NETB
	ip -n smc-ns1 link del smcp1
	got=$(match smc-ns1 veth1)
	[ "$got" = "veth1 rxe1 1 ::ffff:10.43.1.1 -" ] || tap_fail "after removing the PNET IDs: '$got'"
	return 0
}

port_down_up() {
	ip -n smc-ns2 link set veth2 down
	tap_wait_for 20 grep -qx "rxe2 port 1 DOWN pnetid - gids [0-9]" "$reg" ||
		{ sed 's/^/# /' "$reg"; tap_fail "rxe2 port 1 not DOWN after veth2 went down"; }
	got=$(match smc-ns2 veth2)
	[ "$got" = "veth2 none" ] || tap_fail "a DOWN port matched: '$got'"
	ip -n smc-ns2 link set veth2 up
	tap_wait_for 20 grep -qx "rxe2 port 1 ACTIVE pnetid - gids [1-9]" "$reg" ||
		{ sed 's/^/# /' "$reg"; tap_fail "rxe2 port 1 not ACTIVE again"; }
	tap_wait_for 20 sh -c "ip netns exec smc-ns2 sh -c 'echo veth2 > $match && cat $match' | grep -qx 'veth2 rxe2 1 ::ffff:10.43.1.2 -'" ||
		tap_fail "veth2 does not match rxe2 again: '$(match smc-ns2 veth2)'"
	return 0
}

link_del_add() {
	tap_assert "rdma link del rxe1" ip netns exec smc-ns1 rdma link del rxe1
	sed 's/^/# /' "$reg"
	grep -q '^rxe1 ' "$reg" && tap_fail "rxe1 still listed"
	grep -q '^rxe2 port 1 ACTIVE' "$reg" || tap_fail "rxe2 went too"
	got=$(match smc-ns1 veth1)
	[ "$got" = "veth1 none" ] || tap_fail "veth1 after rxe1 went: '$got'"
	tap_assert "rdma link add rxe1 again" ip netns exec smc-ns1 rdma link add rxe1 type rxe netdev veth1
	tap_wait_for 20 grep -q "^rxe1 port 1 gid ::ffff:10.43.1.1 " "$reg" ||
		tap_fail "rxe1 is not listed again with its GID"
	return 0
}

unload_reload() {
	tap_assert "rmmod af_smc with rxe1 and rxe2 present" rmmod af_smc
	tap_assert "insmod af_smc" insmod "$module"
	tap_wait_for 20 grep -q "^rxe2 port 1 gid ::ffff:10.43.1.2 " "$reg" ||
		tap_fail "rxe2 is not listed after the reload"
	sed 's/^/# /' "$reg"
	tap_assert "rdma link del of both, then rmmod" sh -c \
		"ip netns exec smc-ns1 rdma link del rxe1 && ip netns exec smc-ns2 rdma link del rxe2 && rmmod af_smc"
	[ -s "$reg" ] 2>/dev/null && tap_fail "the registry file outlived the module"
	tap_assert "insmod af_smc" insmod "$module"
	[ -s "$reg" ] && tap_fail "rows without devices: $(cat "$reg")"
	return 0
}

tap_case "setup: namespaces, veth pair, rxe1 and rxe2" 120 setup
tap_case "registry: both devices, port ACTIVE, IPv4 RoCEv2 GID on its netdev" 30 listed
tap_case "match by the GID's netdev without PNET IDs" 30 by_gid
tap_case "match by PNET ID when the netdev has one" 30 by_pnetid
tap_case "a port follows its netdev down and up" 60 port_down_up
tap_case "rdma link del removes a device, link add brings it back" 60 link_del_add
tap_case "rmmod with devices present, insmod finds them" 60 unload_reload
tap_done
