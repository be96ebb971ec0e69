#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# config/pnet_race.sh [ROUNDS]: PNET table changes racing with the network
# devices they name. While one loop creates, renames and deletes veth
# devices named in the table (and moves one into another netns), another
# fills and flushes the table, and a third dumps it. Nothing may hang,
# crash or warn (the VM panics on a WARN), every fill must be taken whole,
# and the table must be empty after a last flush.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"

rounds=${1:-40}
PNET=$here/pnet
NS=smcp-race

command -v smc_pnet >/dev/null || tap_skip_all "smc_pnet is not installed"
[ "$(id -u)" = 0 ] || tap_skip_all "needs root"
grep -qE '^(af_smc|smc) ' /proc/modules || tap_skip_all "no SMC module is loaded"

cleanup() {
	i=0
	while [ $i -lt 20 ]; do
		ip link del smcpf$i 2>/dev/null
		ip link del smcpr$i 2>/dev/null
		i=$((i + 1))
	done
	ip netns del $NS 2>/dev/null
	smc_pnet -f >/dev/null 2>&1
}
tap_at_exit cleanup

devices() {
	i=0
	while [ $i -lt "$rounds" ]; do
		d=$((i % 20))
		ip link add smcpf$d type veth peer name smcpg$d 2>/dev/null
		ip link set smcpf$d name smcpr$d 2>/dev/null
		ip link set smcpr$d name smcpf$d 2>/dev/null
		[ $d = 0 ] && ip link set smcpg$d netns $NS 2>/dev/null
		ip link del smcpf$d 2>/dev/null
		i=$((i + 1))
	done
}

fills() {
	i=0
	while [ $i -lt "$rounds" ]; do
		"$PNET" -f 20 || { echo "fill $i failed"; return 1; }
		smc_pnet -f || { echo "flush $i failed"; return 1; }
		i=$((i + 1))
	done
}

# A dump that meets a change is flagged by the kernel (NLM_F_DUMP_INTR) and
# reported by smc_pnet as such: the one failure a racing dump may have.
dumps() {
	i=0 intr=0
	while [ $i -lt "$rounds" ]; do
		if ! smc_pnet >/dev/null 2>"$TMPDIR/dump.err"; then
			grep -q "changed during the dump" "$TMPDIR/dump.err" ||
				{ echo "dump $i failed: $(cat "$TMPDIR/dump.err")"; return 1; }
			intr=$((intr + 1))
		fi
		i=$((i + 1))
	done
	echo "$intr of $rounds dumps were interrupted by a change"
}

race() {
	ip netns add $NS || { tap_fail "cannot add netns"; return 1; }
	devices &
	dev_pid=$!
	fills >"$TMPDIR/fills" 2>&1 &
	fill_pid=$!
	dumps >"$TMPDIR/dumps" 2>&1 &
	dump_pid=$!
	wait $fill_pid || tap_fail "the fill loop failed: $(cat "$TMPDIR/fills")"
	wait $dump_pid || tap_fail "the dump loop failed: $(cat "$TMPDIR/dumps")"
	wait $dev_pid
	smc_pnet -f || tap_fail "last flush failed"
	[ -z "$(smc_pnet)" ] || tap_fail "table not empty: $(smc_pnet)"
	ip netns exec $NS smc_pnet -f || tap_fail "flush in $NS failed"
	ip netns del $NS
}
tap_case "$rounds rounds of fills, flushes and dumps against netdev churn" \
	$((rounds * 10 + 60)) race

tap_done
