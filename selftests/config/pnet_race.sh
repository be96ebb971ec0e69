#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# config/pnet_race.sh [ROUNDS] (divided by tap_volume): PNET table changes
# racing with the network devices they name. While one loop creates, renames
# and deletes veth devices named in the table (and moves one into another
# netns), another fills and flushes the table, and a third dumps it. Nothing
# may hang, crash or warn (the VM panics on a WARN), every fill must be taken
# whole, and the table must be empty after a last flush. The churn must have
# happened: every device operation is counted, and each one of every round
# must have worked (a loop whose commands all failed would race nothing).
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/module.sh"

rounds=$(tap_volume "${1:-40}")
PNET=$here/pnet
NS=smcp-race

command -v smc_pnet >/dev/null || smc_missing_all "smc_pnet is not installed"
[ "$(id -u)" = 0 ] || tap_skip_all "needs root"
grep -qE '^(af_smc|smc) ' /proc/modules || smc_missing_all "no SMC module is loaded"

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

# Prints "adds A renames R moves M deletes D", the operations that worked,
# and the first error of each kind.
devices() {
	i=0 adds=0 renames=0 moves=0 dels=0
	while [ $i -lt "$rounds" ]; do
		d=$((i % 20))
		ip link add smcpf$d type veth peer name smcpg$d 2>>"$TMPDIR/dev.err" && adds=$((adds + 1))
		ip link set smcpf$d name smcpr$d 2>>"$TMPDIR/dev.err" && renames=$((renames + 1))
		ip link set smcpr$d name smcpf$d 2>>"$TMPDIR/dev.err" && renames=$((renames + 1))
		if [ $d = 0 ]; then
			ip link set smcpg$d netns $NS 2>>"$TMPDIR/dev.err" && moves=$((moves + 1))
		fi
		ip link del smcpf$d 2>>"$TMPDIR/dev.err" && dels=$((dels + 1))
		i=$((i + 1))
	done
	echo "adds $adds renames $renames moves $moves deletes $dels"
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
	devices >"$TMPDIR/devices" &
	dev_pid=$!
	fills >"$TMPDIR/fills" 2>&1 &
	fill_pid=$!
	dumps >"$TMPDIR/dumps" 2>&1 &
	dump_pid=$!
	wait $fill_pid || tap_fail "the fill loop failed: $(cat "$TMPDIR/fills")"
	wait $dump_pid || tap_fail "the dump loop failed: $(cat "$TMPDIR/dumps")"
	wait $dev_pid
	churn=$(cat "$TMPDIR/devices")
	tap_diag "device operations that worked: $churn; $(cat "$TMPDIR/dumps")"
	want="adds $rounds renames $((rounds * 2)) moves $(((rounds + 19) / 20)) deletes $rounds"
	[ "$churn" = "$want" ] ||
		tap_fail "no full churn: '$churn', not '$want': $(sort -u "$TMPDIR/dev.err" | head -n 5)"
	smc_pnet -f || tap_fail "last flush failed"
	[ -z "$(smc_pnet)" ] || tap_fail "table not empty: $(smc_pnet)"
	ip netns exec $NS smc_pnet -f || tap_fail "flush in $NS failed"
	ip netns del $NS
}
tap_case "$rounds rounds of fills, flushes and dumps against netdev churn" \
	$((rounds * 10 + 60)) race

tap_done
