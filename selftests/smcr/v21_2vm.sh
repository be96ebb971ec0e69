#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# smcr/v21_2vm.sh: what SMC v2.1 negotiates in the SMC-Rv2 handshake
# (kernel/smc_v21.h), between our modules on two VMs (rxe0 on eth0 of
# each, the same UEID on both, af_smc smcr=1 loopback_ism=0 lgr_linger=0,
# so no group outlives its connections into the next case). Each VM has
# its own net.smc sysctls, so the two ends offer different limits:
#   - defaults: release 1 (v2.1) and limits 255 and 2 in the groups of
#     both sides (debugfs smcr_lgr), and smcr linkgroup says 2.1 with the
#     same limits (SMC_NLA_LGR_R_V2_MAX_CONNS/_MAX_LINKS);
#   - the client offers 16 connections per group, the server has 255: the
#     server's groups take 16 and no more, so 20 connections are groups
#     of 16 and 4 on both VMs, and rxe on VM 1 has one RC QP per group (the
#     oracle that does not read our counters). The server's own sysctl
#     allows 255: only the negotiation caps it;
#   - the server has 20, the client 255: 21 connections are groups of 20
#     and 1, both sides saying 20;
#   - the client offers 1 link per group, the server 2: both groups say 1;
#   - without a UEID the connection is SMC-Rv1: no release negotiated
#     (release 0 in debugfs), the server's group capped by its own sysctls
#     (32 connections, 1 link: smcr_max_links_per_lgr decides whether a
#     v1 group gets a second link).
# On the module before SMC v2.1 the second case put all 20 connections
# in one group of the server (its own 255) and every release was 0.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/topology.sh"

topo_require_ours_2vm "smcr= and lgr_linger= are af_smc's own parameters"
command -v rdma >/dev/null || tap_skip_all "no rdma command"
command -v smcr >/dev/null || tap_skip_all "no smcr tool (ueid)"
T=$SMC_SELFTESTS/tools
L=/sys/kernel/debug/af_smc/smcr_lgr
C=/proc/sys/net/smc/smcr_max_conns_per_lgr
K=/proc/sys/net/smc/smcr_max_links_per_lgr
SRV=10.43.0.2
EID=SMCV21.SELFTEST

stop_conns() {
	topo_on 1 'kill $(cat /tmp/conns.pid 2>/dev/null) 2>/dev/null; true'
	[ -s "$TMPDIR/cli.pid" ] && kill "$(cat "$TMPDIR/cli.pid")" 2>/dev/null
	rm -f "$TMPDIR/cli.pid"
	return 0
}
cleanup() {
	stop_conns
	for vm in 0 1; do topo_on $vm "echo 255 >$C; echo 2 >$K; smcr ueid flush >/dev/null 2>&1"; done
	topo_cleanup
	topo_reload_ours_2vm
}
tap_at_exit cleanup

# open PORT N: N SMC-R connections from VM 0 to VM 1, each verified and
# held open until stop_conns.
open_conns() {
	topo_on 1 "rm -f /tmp/ready; $T/smc-conns -s -a $SRV -p $1 -n $2 -r /tmp/ready -t 300 >/tmp/conns.log 2>&1 </dev/null & echo \$! >/tmp/conns.pid" ||
		tap_assert "the server starts on VM 1" false
	tap_wait_for 30 topo_on 1 "test -e /tmp/ready" || tap_assert "the server listens" false
	$T/smc-conns -c -a $SRV -p "$1" -n "$2" -H 120 -t 300 >"$TMPDIR/cli.log" 2>&1 </dev/null &
	echo $! >"$TMPDIR/cli.pid"
	tap_wait_for 180 grep -q "^open $2 verified $2" "$TMPDIR/cli.log" ||
		tap_assert "$2 connections verified: $(cat "$TMPDIR/cli.log")" false
	tap_diag "client: $(cat "$TMPDIR/cli.log")"
	grep -q "modes smcr=$2 smcd=0 tcp=0" "$TMPDIR/cli.log" ||
		tap_fail "not every connection is SMC-R: $(cat "$TMPDIR/cli.log")"
}

# groups VM: "CONNS/MAX_CONNS/MAX_LINKS/RELEASE" of each of VM's groups, sorted.
groups() {
	topo_on "$1" "cat $L" | grep '^lgr ' |
		sed 's/.* conns \([0-9]*\) .* max_conns \([0-9]*\) max_links \([0-9]*\) release \([0-9]*\).*/\1\/\2\/\3\/\4/' |
		sort -n | tr '\n' ' '
}

# expect_groups WANT: the groups of both VMs are WANT, and rxe0 on VM 1
# has one af_smc RC QP per group.
expect_groups() {
	for vm in 0 1; do
		topo_on $vm "cat $L" | sed "s/^/  VM $vm debugfs: /"
		got=$(groups $vm)
		tap_diag "VM $vm groups (conns/max_conns/max_links/release): $got"
		[ "$got" = "$1" ] || tap_fail "VM $vm groups '$got', not '$1'"
	done
	want=$(echo "$1" | wc -w)
	qps=$(topo_on 1 "rdma resource show qp" | grep -c "^link rxe0/1 .* type RC state RTS .*comm \[af_smc\]")
	[ "$qps" = "$want" ] || tap_fail "rdma lists $qps af_smc RC QPs on VM 1's rxe0, not $want"
}

no_groups() {
	tap_wait_for 60 sh -c "! grep -q '^lgr ' $L" || tap_fail "groups left on VM 0: $(cat $L)"
	tap_wait_for 60 topo_on 1 "! grep -q '^lgr ' $L" || tap_fail "groups left on VM 1"
}

# sysctls VM CONNS LINKS
sysctls() {
	topo_on "$1" "echo $2 >$C && echo $3 >$K" || tap_assert "net.smc limits $2 $3 on VM $1" false
}

setup() {
	tap_assert "af_smc smcr=1 loopback_ism=0 lgr_linger=0 on both VMs" \
		topo_reload_2vm smcr=1 loopback_ism=0 lgr_linger=0
	for vm in 0 1; do
		topo_on $vm "grep -q ' /sys/kernel/debug debugfs' /proc/mounts || mount -t debugfs none /sys/kernel/debug"
		tap_assert "UEID $EID on VM $vm" topo_on $vm "smcr ueid add $EID"
	done
	tap_assert "rxe0 on eth0 of both VMs" topo_vm_rxe
	return 0
}

defaults() {
	sysctls 0 255 2
	sysctls 1 255 2
	open_conns 4490 1
	expect_groups "1/255/2/1 "
	# The same through SMC_GEN_NETLINK, as the tool shows it.
	for vm in 0 1; do
		out=$(topo_on $vm "smcr -j linkgroup") || tap_fail "smcr -j linkgroup on VM $vm"
		tap_diag "VM $vm: $out"
		echo "$out" | grep -q '"smc_version":"2.1"' || tap_fail "VM $vm: smcr linkgroup does not say 2.1"
		echo "$out" | grep -q '"max_conns":255' || tap_fail "VM $vm: smcr linkgroup has no max_conns 255"
		echo "$out" | grep -q '"max_links":2' || tap_fail "VM $vm: smcr linkgroup has no max_links 2"
	done
	stop_conns
}

client16() {
	no_groups
	sysctls 0 16 2
	sysctls 1 255 2
	open_conns 4491 20
	expect_groups "4/16/2/1 16/16/2/1 "
	stop_conns
}

server20() {
	no_groups
	sysctls 0 255 2
	sysctls 1 20 2
	open_conns 4492 21
	expect_groups "1/20/2/1 20/20/2/1 "
	stop_conns
}

links1() {
	no_groups
	sysctls 0 255 1
	sysctls 1 255 2
	open_conns 4493 1
	expect_groups "1/255/1/1 "
	stop_conns
}

# SMC-Rv1 (no UEID): nothing negotiated; the server's cap is its own.
v1() {
	no_groups
	sysctls 0 255 2
	sysctls 1 32 1
	for vm in 0 1; do topo_on $vm "smcr ueid flush" || tap_fail "ueid flush on VM $vm"; done
	open_conns 4494 1
	for vm in 0 1; do
		topo_on $vm "cat $L" | sed "s/^/  VM $vm debugfs: /"
		topo_on $vm "cat $L" | grep -q '^lgr .* version 1 .* release 0' ||
			tap_fail "VM $vm: no SMC-Rv1 group with release 0"
	done
	# Both of its limits: the links one decides whether it adds a link.
	topo_on 1 "cat $L" | grep -q '^lgr .* max_conns 32 max_links 1 ' ||
		tap_fail "VM 1: the server's group is not capped by its own 32 connections and 1 link"
	stop_conns
	for vm in 0 1; do topo_on $vm "smcr ueid add $EID"; done
}

restore() {
	stop_conns
	no_groups
	for vm in 0 1; do sysctls $vm 255 2; done
	tap_expect "rmmod and insmod on both VMs" topo_reload_2vm
}

tap_plan 7
tap_case "setup: af_smc with SMC-R, rxe0 and UEID $EID on both VMs" 180 setup
tap_case "defaults: release 1, 255 connections and 2 links per group on both sides" 300 defaults
tap_case "client offers 16, server has 255: 20 connections in groups of 16 and 4" 300 client16
tap_case "server has 20, client offers 255: 21 connections in groups of 20 and 1" 300 server20
tap_case "client offers 1 link per group: both groups say 1" 300 links1
tap_case "SMC-Rv1 (no UEID): release 0, the server's group capped by its own sysctl" 300 v1
tap_case "no group left; af_smc reloads on both VMs" 120 restore
tap_done
