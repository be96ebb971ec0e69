#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# smcr/killpeer_2vm.sh: the peer VM killed under a link group with two
# links (issue 20: "killing the peer VM still ends every connection in
# bounded time"), in topology 2+net2 (rxe0 on eth0 and rxe1 on eth2 of
# each VM, the PNET ID SMCNET2 on all four, af_smc with smcr=1
# loopback_ism=0 lgr_linger=0 and net.smc.smcr_testlink_time 2 on both):
#   - 4 idle connections and 1 busy one (smc-failwait) make VM 0's group,
#     which gets its second link; once both are ready, VM 1 is killed
#     (SIGKILL of its QEMU, smc-vm-host kill 1: nothing more on either
#     wire). The busy connection's WRITEs go unanswered, its link fails,
#     it moves to the other, which fails too: every connection ends with
#     an error within the bound, and none is left open;
#   - again with the 4 idle connections only: now each link notices by its
#     own keepalive (an unanswered TEST_LINK);
#   - each time VM 0's af_smc holds nothing afterwards (debugfs objects 0,
#     no group) and unloads, and VM 1 is booted again (for the second
#     kill, and the topology's next entries).
# smcr/fail_2vm does the same with one link per group.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/topology.sh"

topo_require_ours_2vm "smcr=1 is af_smc's own parameter"
[ "${SMC_TEST_NETS:-1}" = 2 ] || tap_skip_all "needs --test-nets 2 (topology 2+net2)"
command -v smc-vm-host >/dev/null || tap_skip_all "no smc-vm-host (vm/agent.c) in this VM"
T=$SMC_SELFTESTS/tools
L=/sys/kernel/debug/af_smc/smcr_lgr
O=/sys/kernel/debug/af_smc/objects
SRV=10.43.0.2
port=4478
KEEPALIVE=2
# What the kill may take: each link's silence noticed after KEEPALIVE s and
# the TEST_LINK's 4 s answer wait, a send slot's 5 s wait first under the
# busy connection's CDCs, and once more for the link the first one's
# connections moved to, if its own keepalive had not ended it yet; 2 s for
# TCG scheduling and the workers. Scaled as smcr/fail_2vm's bounds.
BOUND_MS=$(( (KEEPALIVE + $(tap_scaled $((5 + 4 + 5 + 4 + 2)))) * 1000 ))
DEAD=$TMPDIR/vm1-dead

boot_vm1() { topo_vm1_boot "$DEAD"; }
cleanup() {
	[ ! -e "$DEAD" ] || boot_vm1 || tap_diag "VM 1 could not be booted again"
	topo_smcr_net2_cleanup
}
tap_at_exit cleanup

keepalive() {
	for vm in 0 1; do
		topo_on $vm "sysctl -qw net.smc.smcr_testlink_time=$KEEPALIVE" || return 1
	done
}

# The topology again, VM 0's rxe devices and PNET IDs from before removed.
again() {
	topo_smcr_net2_cleanup
	topo_smcr_net2_setup
}

# kill_two_links IDLE BUSY
kill_two_links() {
	tap_assert "smc-conns server for $(($1 + $2)) connections on VM 1" topo_on 1 \
		"rm -f /tmp/ready; $T/smc-conns -s -a $SRV -p $port -n $(($1 + $2)) -r /tmp/ready -t 300 \
		>/tmp/srv.log 2>&1 </dev/null &
		n=0; until [ -e /tmp/ready ]; do n=\$((n+1)); [ \$n -lt 600 ] || exit 1; sleep 0.05; done"
	# The kill once VM 0's group has both links ready (the server adds the
	# second after the first connection); its links' lines are kept.
	two="n=0; until [ \$(grep -c '^link .* ready 1 ' $L) = 2 ]; do
		n=\$((n+1)); [ \$n -lt 600 ] || exit 1; sleep 0.05; done
		grep '^link ' $L >$TMPDIR/links; : >$DEAD; smc-vm-host kill 1"
	$T/smc-failwait -a $SRV -p $port -n "$1" -b "$2" -e "$two" -t 60 >"$TMPDIR/fw" 2>&1
	topo_failwait_verdict "$TMPDIR/fw" $? "$BOUND_MS" "the kill (after two links)"
	tap_diag "links when VM 1 was killed: $(tr '\n' ';' <"$TMPDIR/links" 2>/dev/null)"
	[ "$(grep -c ' ready 1 ' "$TMPDIR/links" 2>/dev/null)" = 2 ] ||
		tap_fail "VM 0's group did not have two ready links before the kill"
	timeout 5 smc-vm-exec -w 2 1 true >/dev/null 2>&1 && tap_fail "VM 1 still answers after the kill"
	t0=$(date +%s)
	tap_wait_for 30 topo_af_smc_empty ||
		tap_fail "VM 0 keeps objects: $(tr '\n' ' ' <$O); groups: $(tr '\n' ';' <$L)"
	tap_diag "VM 0 clean $(( $(date +%s) - t0 )) s later"
	tap_expect "rmmod af_smc on VM 0 after the kill" rmmod af_smc
	tap_expect "insmod again" insmod "$module" smcr=1 loopback_ism=0 lgr_linger=0
	tap_assert "VM 1 boots again" boot_vm1
	return 0
}

tap_case "setup: rxe0/rxe1 on eth0/eth2 of both VMs, PNET ID SMCNET2, smcr=1 lgr_linger=0" 180 topo_smcr_net2_setup
tap_case "keepalive $KEEPALIVE s on both VMs" 30 tap_assert "net.smc.smcr_testlink_time" keepalive
tap_case "VM 1 killed under 4 idle + 1 busy connections of a group with two links: all end with an error within $BOUND_MS ms, VM 0 clean, rmmod works" 300 kill_two_links 4 1
tap_case "setup again on both VMs (VM 1 booted anew)" 180 again
tap_case "keepalive $KEEPALIVE s on both VMs again" 30 tap_assert "net.smc.smcr_testlink_time" keepalive
tap_case "VM 1 killed under 4 idle connections of a group with two links: each link's keepalive notices, all end with an error within $BOUND_MS ms, VM 0 clean, rmmod works" 300 kill_two_links 4 0
tap_done
