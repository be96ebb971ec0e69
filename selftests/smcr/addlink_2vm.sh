#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# smcr/addlink_2vm.sh: a link group with a second link between two VMs
# (issue 20's topology 2+net2: rxe0 on eth0 and rxe1 on eth2 of each VM,
# two independent wires). Both VMs give eth0, eth2, rxe0 and rxe1 the
# PNET ID SMCNET2, af_smc runs with smcr=1 loopback_ism=0 lgr_linger=0;
# then
#   - a connection 10.43.0.1 -> 10.43.0.2 (over eth0) held open: the
#     server (VM 1) adds a second link, and both groups list two ready
#     links, on rxe0 and rxe1 (debugfs smcr_lgr on each VM);
#   - a 1 MiB echo to the same address goes to the new link (it has no
#     connection yet): byte-exact, rxe1 carries it on both VMs and rxe0
#     does not (packet counters);
#   - the connections closed: both VMs' groups gone, nothing freed while
#     posted; af_smc reloaded as the harness had it.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/topology.sh"

topo_require_ours_2vm "smcr=1 is af_smc's own parameter"
[ "${SMC_TEST_NETS:-1}" = 2 ] || tap_skip_all "needs --test-nets 2 (topology 2+net2)"
T=$SMC_SELFTESTS/tools
SRV=10.43.0.2
port=4466

cleanup() {
	kill "$(cat "$TMPDIR/probe.pid" 2>/dev/null)" 2>/dev/null
	topo_stop_2vm /tmp/addl-echo.pid
	topo_stop_2vm /tmp/addl-hold.pid
	topo_smcr_net2_cleanup
}
tap_at_exit cleanup

second_link() {
	topo_hold_2vm addl-hold $SRV $((port + 1)) || return 1
	for vm in 0 1; do
		grep -q '^lgr .* links 2 .* links_added 1 add_failed 0$' "$TMPDIR/lgr$vm" ||
			tap_fail "VM $vm's group did not add one link"
	done
	grep -q '^link 0 .* dev rxe0 .* conns 1 ' "$TMPDIR/lgr0" ||
		tap_fail "the held connection is not on VM 0's first link (rxe0)"

	tap_assert "an echo server on VM 1" topo_echo_server_2vm addl-echo $SRV $port
	a0=$(topo_rxe_pkts_on 0 rxe1) a1=$(topo_rxe_pkts_on 1 rxe1) b0=$(topo_rxe_pkts_on 0 rxe0) b1=$(topo_rxe_pkts_on 1 rxe0)
	out=$($T/smc-echo -c -f smc -a $SRV -p $port -n 1048576 -w 20 -t 300 2>&1) ||
		tap_fail "1 MiB echo to $SRV: $out"
	echo "$out"
	da0=$(($(topo_rxe_pkts_on 0 rxe1) - a0)) da1=$(($(topo_rxe_pkts_on 1 rxe1) - a1))
	db0=$(($(topo_rxe_pkts_on 0 rxe0) - b0)) db1=$(($(topo_rxe_pkts_on 1 rxe0) - b1))
	tap_diag "1 MiB each way: rxe1 +$da0 (VM 0) +$da1 (VM 1), rxe0 +$db0 (VM 0) +$db1 (VM 1) packets"
	echo "$out" | grep -qx 'mode SMCR reason 0x00000000 peer 0x00000000' ||
		tap_fail "the echo is not SMC-R: $(echo "$out" | grep '^mode' || echo 'no mode line')"
	# 1 MiB each way in packets of at most 1 KiB: 2048 at least per VM.
	[ $da0 -ge 2048 ] && [ $da1 -ge 2048 ] || tap_fail "rxe1 (the new link) did not carry the echo"
	# The keepalive may send a TEST_LINK on the idle first link.
	[ $db0 -le 20 ] && [ $db1 -le 20 ] || tap_fail "rxe0 moved during the echo"
	return 0
}

closed() {
	topo_unhold_2vm addl-echo addl-hold
	return 0
}

tap_case "setup: rxe0/rxe1 on eth0/eth2 of both VMs, PNET ID SMCNET2, smcr=1 lgr_linger=0" 180 topo_smcr_net2_setup
tap_case "a held connection over eth0: the server adds a link on eth2; an echo goes over it" 300 second_link
tap_case "connections closed: both VMs' groups gone, nothing freed while posted" 60 closed
tap_done
