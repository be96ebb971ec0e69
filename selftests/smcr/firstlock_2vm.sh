#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# smcr/firstlock_2vm.sh: a peer that stalls its own SMC-R first contact
# stalls no other peer's (Documentation/security.md, hole 5). Server
# af_smc on VM 1 (smcr=1, lgr_linger=0, so that every connection here is
# a first contact), rxe0 on eth0 of both VMs. The silent peer is
# smc_badpeer.ko's silent_r on VM 0: a TCP connection with the SMC option
# that proposes SMC-Rv1 under a made-up peer identity (peer id "badpeer",
# GID ::ffff:10.43.0.99), takes the server's first contact Accept and
# never sends its Confirm, so the server waits SMC_CLC_WAIT_TIME (2 s)
# for it. To the server that is another peer than VM 0's af_smc: a link
# group's key is the peer's system id and GID (with our device, port,
# VLAN, role, version and netns), which the forger chooses; a second IP
# address or namespace would change none of it.
#   - baseline: VM 0's real client connects (first contact), timed; then
#     the silent peer's first contact, and as soon as its Accept is in,
#     the real client again: SMC-R, within 1 s of the baseline, and done
#     while the silent first contact still waited (VM 1 still shows its
#     group as a first contact in progress once the probe is done);
#   - the same silent peer twice in a row: the second first contact under
#     the same key does not make a second group while the first one's is
#     pending: it waits, bounded (1.5 s), and is declined with
#     SMC_CLC_DECL_TIMEOUT_CL (0x02010000), in time for a clean fallback;
#   - five real first contacts at once: all SMC-R, one link group and one
#     link confirmed on the server (the per-key claim still serialises);
#   - teardown: smc_badpeer and af_smc unload on both VMs.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/topology.sh"

topo_require_ours_2vm "smcr=1 is af_smc's own parameter"
ko=/smc/kernel/smc_badpeer.ko
T=$SMC_SELFTESTS/tools
D=/sys/kernel/debug/af_smc/smcr_hs
L=/sys/kernel/debug/af_smc/smcr_lgr
B=/sys/module/smc_badpeer/parameters
port=4457

cleanup() {
	topo_stop_2vm /tmp/echo.pid
	rmmod smc_badpeer 2>/dev/null
	topo_cleanup
	topo_reload_2vm || tap_diag "could not reload af_smc without smcr"
}
tap_at_exit cleanup

serve() {
	topo_on 1 "rm -f /tmp/ready; $T/smc-echo -s -k 0 -f smc -a 10.43.0.2 -p $port -r /tmp/ready -t 300 >/tmp/echo.log 2>&1 </dev/null & echo \$! >/tmp/echo.pid" &&
		topo_on 1 "n=0; until [ -e /tmp/ready ]; do n=\$((n+1)); [ \$n -lt 600 ] || exit 1; sleep 0.05; done"
}

# groups VM: how many SMC-R link groups VM has.
groups() {
	topo_on "$1" "cat $L" | grep -c '^lgr '
}
no_groups() {
	[ "$(groups 0)" = 0 ] && [ "$(groups 1)" = 0 ]
}
# counter VM NAME: NAME in VM's smcr_hs file.
counter() {
	topo_on "$1" "cat $D" | sed -n "s/.* $2 \([0-9]*\).*/\1/p"
}
# Centiseconds since boot (busybox date has no %N).
now_cs() {
	read -r up _ </proc/uptime
	echo $((${up%.*} * 100 + 1${up#*.} - 100))
}
silent_done() {
	r=$(cat $B/silent_r_result) && [ "$r" != pending ]
}

setup() {
	tap_assert "af_smc smcr=1 loopback_ism=0 lgr_linger=0 on both VMs" \
		topo_reload_2vm smcr=1 loopback_ism=0 lgr_linger=0
	for vm in 0 1; do
		topo_on $vm "grep -q ' /sys/kernel/debug debugfs' /proc/mounts || mount -t debugfs none /sys/kernel/debug"
	done
	tap_assert "rxe0 on eth0 of both VMs" topo_vm_rxe
	tap_assert "echo server on VM 1" serve
	tap_assert "smc_badpeer loaded on VM 0" insmod $ko base_port=7700
	return 0
}

# probe: a timed SMC-R connect of VM 0's client into $out; fails the case
# unless it is SMC-R.
probe() {
	ms=
	out=$($T/smc-fbprobe -T 10.43.0.2 $port 0 2>&1) || { tap_fail "smc-fbprobe: $(echo $out)"; return 1; }
	ms=$(echo "$out" | sed -n 's/^connect_ms \([0-9]*\)$/\1/p')
	echo "$out" | grep -qx "mode 0 fallback 0x00000000/0x00000000" ||
		{ tap_fail "not SMC-R: $(echo $out)"; return 1; }
	return 0
}

other_peer() {
	tap_assert "no link groups before the baseline" tap_wait_for 30 no_groups
	probe || return 0
	base=$ms
	tap_diag "baseline: first contact in $base ms"
	tap_assert "no link groups after the baseline" tap_wait_for 30 no_groups
	echo "10.43.0.2 $port 1" >$B/silent_r
	tap_wait_for 10 silent_done || { tap_fail "the silent peer got no answer"; return 0; }
	t_acc=$(now_cs)
	r=$(cat $B/silent_r_result)
	probe
	t_done=$(now_cs)
	groups=$(topo_on 1 "cat $L" | tr '\n' ';')
	tap_diag "silent peer: $r; then VM 0's client: connect in ${ms:-?} ms, done $(((t_done - t_acc) * 10)) ms after the silent peer's Accept"
	tap_diag "VM 1: $groups"
	case "$r" in
	"accept first "*) ;;
	*) tap_fail "the silent peer's Proposal was not taken as a first contact: $r" ;;
	esac
	[ -n "$ms" ] || return 0
	[ "$ms" -lt $((base + 1000)) ] ||
		tap_fail "the connect took $ms ms, baseline $base ms: held up by the other peer's first contact"
	# Else it proves nothing: the server waits 2 s for the Confirm. Not
	# by the clock (on a loaded host the probe took 1.5 s, and the 2 s
	# are the server's), but by the server's own state: once the probe is
	# done, the silent peer's
	# group (its forged GID 10.43.0.99) must still be a first contact in
	# progress, so the probe ran inside it.
	echo "$groups" | tr ';' '\n' |
		grep -q 'state new .*peer_gid 0000:0000:0000:0000:0000:ffff:0a2b:0063 ' ||
		tap_fail "the silent peer's first contact was over when the probe was done (not within it)"
	return 0
}

same_peer() {
	tap_assert "no link groups before" tap_wait_for 30 no_groups
	echo "10.43.0.2 $port 2" >$B/silent_r
	tap_wait_for 15 silent_done || { tap_fail "the silent peer got no answers"; return 0; }
	r=$(cat $B/silent_r_result)
	tap_diag "silent peer, twice: $r"
	first=${r%%, *} second=${r#*, }
	case "$first" in
	"accept first "*) ;;
	*) tap_fail "the first was not taken as a first contact: $first" ;;
	esac
	case "$second" in
	"decline 0x02010000 "*)
		ms=${second##* }
		# Declined by the bounded wait, before the peer's own 2 s.
		# make check-debug scales af_smc's waits (kernel/smc_wait.h),
		# and so these bounds (tap_scaled).
		[ "$ms" -ge "$(tap_scaled 1000)" ] && [ "$ms" -lt "$(tap_scaled 2000)" ] ||
			tap_fail "declined after $ms ms, not after the 1.5 s wait" ;;
	*) tap_fail "the second was not declined with 0x02010000 while the first was pending: $second" ;;
	esac
	# The declined one fell back to TCP and, held open by the silent peer,
	# would keep the echo server (one connection at a time) from the next.
	tap_expect "smc_badpeer reloaded, its held connections closed" \
		sh -c "rmmod smc_badpeer && insmod $ko base_port=7700"
	return 0
}

concurrent() {
	tap_assert "no link groups before" tap_wait_for 30 no_groups
	s0=$(counter 1 confirmed_server)
	i=0
	while [ $i -lt 5 ]; do
		$T/smc-fbprobe 10.43.0.2 $port 2 >"$TMPDIR/cc.$i" 2>&1 &
		i=$((i + 1))
	done
	# While they hold their connections (2 s): the server's groups.
	sleep 1
	g=$(groups 1)
	wait
	s1=$(counter 1 confirmed_server)
	tap_diag "server: $g group(s), first links confirmed +$((s1 - s0))"
	i=0
	while [ $i -lt 5 ]; do
		grep -qx 'mode 0 fallback 0x00000000/0x00000000' "$TMPDIR/cc.$i" ||
			tap_fail "connection $i: $(cat "$TMPDIR/cc.$i")"
		i=$((i + 1))
	done
	[ "$g" = 1 ] || tap_fail "the server has $g groups for one peer"
	[ $((s1 - s0)) = 1 ] || tap_fail "the server confirmed $((s1 - s0)) first links, not 1"
	return 0
}

teardown() {
	topo_stop_2vm /tmp/echo.pid
	tap_expect "rmmod smc_badpeer" rmmod smc_badpeer
	tap_expect "af_smc unloads and loads on both VMs" topo_reload_2vm
	return 0
}

tap_case "setup: smcr=1 lgr_linger=0, rxe0 on both VMs, echo server, smc_badpeer" 180 setup
tap_case "a silent first contact does not hold up another peer's: SMC-R within 1 s of the baseline" 60 other_peer
tap_case "a second first contact of the silent peer waits bounded, then declines 0x02010000" 60 same_peer
tap_case "five first contacts at once from one peer: all SMC-R, one group" 60 concurrent
tap_case "teardown: smc_badpeer and af_smc unload on both VMs" 60 teardown
tap_done
