#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# config/pnet_cycles.sh [CYCLES] (divided by tap_volume): our module
# unloads with full PNET tables and frees them. Each cycle fills the table
# of the initial netns and of another netns (with PER entries each),
# deletes a third netns with its full table while the module stays, then
# removes af_smc (which must work), loads it again and finds every table
# empty. Afterwards the kmalloc-cg-128
# slab (where entries live: they are charged to the caller's memory cgroup)
# must be back within PER/2 objects of where it started: a leak of even one
# table's entries shows. That the entries do live there is proved first
# (a positive control, as module/lifecycle.sh's slab case): one full table
# must raise the cache's count by at least 3/4 PER, and its flush lower it
# again; without that the leak check would watch an unrelated cache, and
# it fails too.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"

cycles=$(tap_volume "${1:-10}")
PER=200
module=${SMC_MODULE_FILE:-${SMC_MODULE:-}}
name=${SMC_MODULE_NAME:-af_smc}
PNET=$here/pnet
NS=smcp-cyc
NS2=smcp-gone

grep -q "^$name " /proc/modules || tap_skip_all "this loads and unloads $name, which is not loaded"
[ -f "$module" ] || tap_skip_all "no module file (SMC_MODULE_FILE='$module')"
[ "$(id -u)" = 0 ] || tap_skip_all "needs root"

cleanup() {
	ip netns del $NS 2>/dev/null
	ip netns del $NS2 2>/dev/null
	grep -q "^$name " /proc/modules || insmod "$module"
}
tap_at_exit cleanup

CACHE=kmalloc-cg-128
active() {
	[ -w /sys/kernel/slab/$CACHE/shrink ] && echo 1 >/sys/kernel/slab/$CACHE/shrink
	awk -v c=$CACHE '$1 == c { print $2 }' /proc/slabinfo
}

entries() {
	"$@" smc_pnet | wc -l
}

control() {
	before=$(active)
	[ -n "$before" ] || { tap_fail "no $CACHE in /proc/slabinfo"; return 1; }
	ip netns add $NS || { tap_fail "cannot add netns"; return 1; }
	ip netns exec $NS "$PNET" -f $PER || { tap_fail "cannot fill $NS"; return 1; }
	full=$(active)
	ip netns exec $NS smc_pnet -f || tap_fail "cannot flush $NS"
	ip netns del $NS
	grown=$((full - before))
	dropped() {
		after=$(active)
		[ $((full - after)) -ge $((PER * 3 / 4)) ]
	}
	tap_wait_for 30 dropped
	tap_diag "$CACHE: $before active objects, $full with $PER entries, $after after the flush"
	[ $grown -ge $((PER * 3 / 4)) ] ||
		{ tap_fail "$PER entries added only $grown objects to $CACHE: they do not live there"; return 1; }
	dropped || { tap_fail "the flush freed only $((full - after)) of them"; return 1; }
	: >"$TMPDIR/control-passed"
}
tap_case "$PER PNET entries are $PER more objects in $CACHE, and fewer again once flushed" 120 control

cycle() {
	[ -e "$TMPDIR/control-passed" ] ||
		{ tap_fail "the positive control failed: a flat $CACHE would prove nothing"; return 1; }
	before=$(active)
	[ -n "$before" ] || { tap_fail "no $CACHE in /proc/slabinfo"; return 1; }
	i=1
	while [ $i -le "$cycles" ]; do
		ip netns add $NS && ip netns add $NS2 || { tap_fail "cycle $i: cannot add netns"; return 1; }
		"$PNET" -f $PER || { tap_fail "cycle $i: cannot fill the initial table"; return 1; }
		ip netns exec $NS "$PNET" -f $PER || { tap_fail "cycle $i: cannot fill $NS"; return 1; }
		ip netns exec $NS2 "$PNET" -f $PER || { tap_fail "cycle $i: cannot fill $NS2"; return 1; }
		n=$(entries) n2=$(entries ip netns exec $NS)
		[ "$n" = $PER ] && [ "$n2" = $PER ] || { tap_fail "cycle $i: tables hold $n and $n2"; return 1; }
		ip netns del $NS2
		out=$(rmmod "$name" 2>&1) || { tap_fail "cycle $i: rmmod with full tables: $out"; return 1; }
		insmod "$module" || { tap_fail "cycle $i: insmod failed"; return 1; }
		n=$(entries) n2=$(entries ip netns exec $NS)
		[ "$n" = 0 ] && [ "$n2" = 0 ] || { tap_fail "cycle $i: after reload the tables hold $n and $n2"; return 1; }
		ip netns del $NS
		i=$((i + 1))
	done
	made=$((cycles * PER * 3))
	# Frees wait for an RCU grace period and namespaces die in a workqueue.
	settled() {
		after=$(active)
		[ $((after - before)) -lt $((PER / 2)) ]
	}
	start=$(date +%s)
	tap_wait_for 60 settled
	tap_diag "$CACHE: $before active objects before, $after after $made entries ($(($(date +%s) - start)) s to settle)"
	settled || tap_fail "$CACHE grew by $((after - before)) objects over $made entries"
}
tap_case "$cycles cycles: full tables, rmmod, insmod, empty tables, nothing leaked" \
	$((cycles * 60 + 90)) cycle

tap_done
