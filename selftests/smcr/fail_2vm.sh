#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# smcr/fail_2vm.sh: SMC-R connections between our modules on two VMs (rxe0
# on eth0 of each, af_smc with smcr=1 loopback_ism=0) when the path fails
# under them, the peer saying nothing about it (Documentation/smc-r.md,
# "Failures"):
#   - eth0 of VM 0 set down under idle connections and one transferring;
#   - VM 1 killed (SIGKILL of its QEMU by vm/run, smc-vm-host kill 1: no
#     FIN, no DELETE_LINK, nothing more on the wire) under idle connections
#     only (so only the keepalive can notice), and again under idle ones
#     and one transferring.
# Each time smc-failwait (selftests/tools/failwait.c) checks that every
# connection was SMC-R and then ended with an error, and reports which
# and after how long; the test asserts the time bound, that af_smc's
# objects (debugfs af_smc/objects) and SMC-R link groups on VM 0 go back to
# zero, and (after each kill) that rmmod af_smc works on VM 0. VM 1 is
# booted again after each kill (smc-vm-host boot 1) for what follows.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/topology.sh"

topo_require_ours_2vm "smcr=1 is af_smc's own parameter"
command -v smc-vm-host >/dev/null || tap_skip_all "no smc-vm-host (vm/agent.c) in this VM"
T=$SMC_SELFTESTS/tools
L=/sys/kernel/debug/af_smc/smcr_lgr
O=/sys/kernel/debug/af_smc/objects
SRV=10.43.0.2
# net.smc.smcr_testlink_time on both VMs: a silent peer is noticed by an
# unanswered TEST_LINK after KEEPALIVE s of silence plus the LLC bound, 4 s.
KEEPALIVE=2
# make check-debug scales af_smc's bounds (the LLC and slot waits, the QP's
# ACK timeout: kernel/smc_wait.h), and tap_scaled the slack for a slow
# guest with them; the keepalive interval is a setting, not a bound, and
# is not scaled.
# What a kill may take: that, plus 2 s for TCG scheduling and the workers.
BOUND_MS=$(( (KEEPALIVE + $(tap_scaled $((4 + 2)))) * 1000 ))
# With a transfer the TEST_LINK may first wait for a send slot (5 s bound:
# the transfer's CDCs hold them until their completions fail) before its
# 4 s answer wait. (The transfer's own WRITE usually fails earlier.)
BUSY_BOUND_MS=$(( (KEEPALIVE + $(tap_scaled $((5 + 4 + 2)))) * 1000 ))
# A port that goes down fails its links at once (IB_EVENT_PORT_ERR).
DOWN_BOUND_MS=2000
DEAD=$TMPDIR/vm1-dead

# settings VM: what af_smc and the test need on VM (after each boot).
settings() {
	cmd="rmmod af_smc 2>/dev/null; insmod $module smcr=1 loopback_ism=0 || exit 1
	grep -q ' /sys/kernel/debug debugfs' /proc/mounts || mount -t debugfs none /sys/kernel/debug
	sysctl -qw net.smc.smcr_testlink_time=$KEEPALIVE"
	if [ "$1" = 0 ]; then sh -c "$cmd"; else smc-vm-exec "$1" "$cmd"; fi
}
vm1_rxe() {
	smc-vm-exec 1 "rdma link add rxe0 type rxe netdev eth0 || exit 1
	n=0; until rdma link show rxe0/1 | grep -q 'state ACTIVE'; do
		n=\$((n+1)); [ \$n -lt 400 ] || exit 1; sleep 0.05; done"
}
boot_vm1() { topo_vm1_boot "$DEAD"; }
cleanup() {
	[ ! -e "$DEAD" ] || boot_vm1 || tap_diag "VM 1 could not be booted again"
	topo_cleanup
	topo_reload_ours_2vm
}
tap_at_exit cleanup

# serve PORT N: smc-conns' echo server for N connections on VM 1.
serve() {
	smc-vm-exec 1 "rm -f /tmp/ready; $T/smc-conns -s -a $SRV -p $1 -n $2 -r /tmp/ready -t 300 \
		>/tmp/srv.log 2>&1 </dev/null & echo \$! >/tmp/srv.pid" &&
		smc-vm-exec 1 "n=0; until [ -e /tmp/ready ]; do n=\$((n+1)); [ \$n -lt 600 ] || exit 1; sleep 0.05; done"
}

# fail PORT IDLE BUSY COMMAND BOUND-MS: the connections, the failure, the
# verdict on how they ended.
fail() {
	tap_assert "echo server on VM 1" serve "$1" $(($2 + $3))
	$T/smc-failwait -a $SRV -p "$1" -n "$2" -b "$3" -e "$4" -t 60 >"$TMPDIR/fw" 2>&1
	topo_failwait_verdict "$TMPDIR/fw" $? "$5" "'$4'"
	return 0
}

expect_clean0() {
	t0=$(date +%s)
	tap_wait_for 30 topo_af_smc_empty ||
		tap_fail "VM 0 keeps objects: $(tr '\n' ' ' <$O); groups: $(tr '\n' ';' <$L)"
	tap_diag "VM 0 clean $(( $(date +%s) - t0 )) s later: $(tr '\n' ' ' <$O)"
}

setup() {
	tap_assert "af_smc smcr=1 loopback_ism=0 on VM 0" settings 0
	tap_assert "af_smc smcr=1 loopback_ism=0 on VM 1" settings 1
	tap_assert "rxe0 on eth0 of both VMs" topo_vm_rxe
	return 0
}

# While the port is down the dead group keeps its link (smcr_lgr_free_work:
# destroying a QP whose packets the down netdev holds makes rxe WARN), so
# until eth0 is up again only the sockets must be gone, and the group
# must be dead and empty.
socks0() {
	[ "$(sed -n 's/^socks //p' $O)" = 0 ] && [ "$(sed -n 's/^conns //p' $O)" = 0 ]
}
netdev_down() {
	fail 4461 4 1 "ip link set eth0 down" $DOWN_BOUND_MS
	tap_wait_for 10 socks0 || tap_fail "VM 0 keeps sockets: $(tr '\n' ' ' <$O)"
	tap_diag "VM 0 with eth0 down: $(tr '\n' ' ' <$O); $(tr '\n' ';' <$L)"
	[ "$(grep -c '^lgr .* state dead conns 0 ' $L)" = "$(grep -c '^lgr ' $L)" ] ||
		tap_fail "a group is not dead and empty"
	tap_expect "eth0 up on VM 0" ip link set eth0 up
	tap_wait_for 30 sh -c "rdma link show rxe0/1 | grep -q 'state ACTIVE'" ||
		tap_fail "rxe0 is not active again"
	expect_clean0
	# The server's group ends by its keepalive (KEEPALIVE s + 4 s).
	tap_wait_for 30 sh -c "[ \"\$(smc-vm-exec 1 'cat $L' | grep -c '^lgr ')\" = 0 ]" ||
		tap_fail "VM 1 keeps its group: $(smc-vm-exec 1 "cat $L" | tr '\n' ';')"
	return 0
}

# kill_vm1 PORT IDLE BUSY BOUND-MS
kill_vm1() {
	: >"$DEAD"
	fail "$1" "$2" "$3" "smc-vm-host kill 1" "$4"
	timeout 5 smc-vm-exec -w 2 1 true >/dev/null 2>&1 && tap_fail "VM 1 still answers after the kill"
	expect_clean0
	tap_expect "rmmod af_smc on VM 0 after the kill" rmmod af_smc
	tap_expect "insmod again" settings 0
	tap_assert "VM 1 boots again" boot_vm1
	tap_assert "af_smc smcr=1 on VM 1 again" settings 1
	tap_assert "rxe0 on VM 1 again" vm1_rxe
	return 0
}
kill_idle() {
	kill_vm1 4462 4 0 $BOUND_MS
}
kill_busy() {
	kill_vm1 4463 4 1 $BUSY_BOUND_MS
}

tap_case "setup: smcr=1, keepalive $KEEPALIVE s, rxe0 on both VMs" 180 setup
tap_case "eth0 down under 4 idle + 1 busy connections: all end with an error within $DOWN_BOUND_MS ms, VM 0 clean once eth0 is up" 180 netdev_down
tap_case "VM 1 killed under 4 idle connections: all end with an error within $BOUND_MS ms (keepalive), VM 0 clean, rmmod works" 300 kill_idle
tap_case "VM 1 killed under 4 idle + 1 busy connections: all end with an error within $BUSY_BOUND_MS ms, VM 0 clean, rmmod works" 300 kill_busy
tap_done
