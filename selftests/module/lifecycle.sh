#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# module/lifecycle.sh [CYCLES]: loading and unloading our module
# ($SMC_MODULE_FILE, named $SMC_MODULE_NAME; set by the test VM's init).
#   - CYCLES (default 100; tap_volume divides it) rmmod/insmod rounds:
#     AF_SMC must be gone after each rmmod (EAFNOSUPPORT) and work again
#     after each insmod;
#   - while an AF_SMC socket is open (unbound, listening, connected), rmmod
#     must be refused and the module must stay; after the close it must go;
#   - afterwards the "SMC" slab (when /proc/slabinfo lists it) has no
#     objects left, and the kernel logged no warning and has no new taint.
# The module is left loaded. The VM runs with panic_on_warn, so a leak that
# kmem_cache_destroy() warns about ends the run before this script can.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"

cycles=$(tap_volume "${1:-100}")
module=${SMC_MODULE_FILE:-}
name=${SMC_MODULE_NAME:-af_smc}
PROBE=$here/../tools/smc-sockprobe
[ -x "$PROBE" ] || PROBE=$(command -v smc-sockprobe)

[ -n "$module" ] && [ -f "$module" ] ||
	tap_skip_all "no module file (SMC_MODULE_FILE='$module'); this runs in the test VM"
[ "$(id -u)" = 0 ] || tap_skip_all "loading modules needs root"
[ -x "$PROBE" ] || tap_skip_all "smc-sockprobe not found"

loaded() {
	grep -q "^$name " /proc/modules
}
# Another module (Linux's own smc) may provide AF_SMC; then ours cannot load.
if ! loaded && [ "$("$PROBE" smc)" = ok ]; then
	tap_skip_all "AF_SMC is provided by another module than $name"
fi

# Whatever happens, leave the module loaded for the tests after this one.
ensure_loaded() {
	loaded || insmod "$module" || tap_diag "cannot load $module again"
}
tap_at_exit ensure_loaded

marker="smc-selftests: module lifecycle start $$"
echo "$marker" >/dev/kmsg 2>/dev/null || marker=
taint_before=$(cat /proc/sys/kernel/tainted)

# probe_is EXPECTED: AF_SMC with both protocols gives EXPECTED ("ok" or errno).
probe_is() {
	probe_out=$("$PROBE" smc smc6 2>/dev/null)
	[ "$probe_out" = "$1 $1" ]
}

initial() {
	ensure_loaded
	loaded || { tap_fail "$name is not loaded"; return 1; }
	probe_is ok || tap_fail "socket(AF_SMC) with $name loaded: $probe_out"
}

cycle() {
	i=1
	while [ $i -le "$cycles" ]; do
		if ! out=$(rmmod "$name" 2>&1); then
			tap_fail "cycle $i: rmmod $name failed: $out"
			break
		fi
		if ! probe_is EAFNOSUPPORT; then
			tap_fail "cycle $i: after rmmod socket(AF_SMC) gives '$probe_out', not EAFNOSUPPORT"
			loaded && tap_diag "$name is still in /proc/modules"
			break
		fi
		if ! out=$(insmod "$module" 2>&1); then
			tap_fail "cycle $i: insmod $module failed: $out"
			break
		fi
		if ! probe_is ok; then
			tap_fail "cycle $i: after insmod socket(AF_SMC) gives '$probe_out'"
			break
		fi
		i=$((i + 1))
	done
	tap_diag "$((i - 1)) of $cycles cycles done"
	ensure_loaded
}

try_rmmod() {
	rmmod "$name" 2>/dev/null
}

# held MODE: rmmod is refused while sockets of MODE are open, works after.
held() {
	ensure_loaded
	ready=$TMPDIR/held-$1
	rm -f "$ready"
	"$PROBE" -H "$1" -r "$ready" smc >"$TMPDIR/holder-$1" 2>&1 &
	holder=$!
	tap_wait_for 30 ready_or_gone "$ready" $holder
	if [ ! -e "$ready" ]; then
		cat "$TMPDIR/holder-$1"
		tap_fail "could not open $1 AF_SMC sockets"
		return 1
	fi
	if try_rmmod; then
		tap_fail "rmmod $name succeeded with $1 AF_SMC sockets open"
		kill $holder
		wait $holder
		return 1
	fi
	loaded || tap_fail "$name is gone from /proc/modules while sockets are open"
	probe_is ok || tap_fail "socket(AF_SMC) fails while $name is in use: $probe_out"

	kill $holder
	wait $holder 2>/dev/null
	if ! try_rmmod; then
		# Closing may finish asynchronously; give it a moment, but say so.
		tap_diag "rmmod refused right after the close; retrying for 5 s"
		tap_wait_for 5 try_rmmod ||
			{ tap_fail "rmmod $name still refused after the sockets were closed"; return 1; }
	fi
	probe_is EAFNOSUPPORT || tap_fail "after rmmod socket(AF_SMC) gives '$probe_out'"
	insmod "$module" || { tap_fail "insmod $module failed"; return 1; }
	probe_is ok || tap_fail "after insmod socket(AF_SMC) gives '$probe_out'"
}

ready_or_gone() {
	[ -e "$1" ] || ! tap_alive "$2"
}

# Active objects of the "SMC" slab cache, or nothing when it is not listed
# (SLUB merges compatible caches, and merged ones are not listed by name).
smc_slab_active() {
	# SLUB counts free objects of per-CPU slabs as active until a shrink.
	[ -w /sys/kernel/slab/SMC/shrink ] && echo 1 >/sys/kernel/slab/SMC/shrink 2>/dev/null
	awk '$1 == "SMC" { print $2 }' /proc/slabinfo 2>/dev/null
}

slab_is_empty() {
	[ "$(smc_slab_active)" = 0 ]
}

slab_has_objects() {
	[ "$(smc_slab_active)" -gt 0 ]
}

slab() {
	ensure_loaded
	active=$(smc_slab_active)
	[ -n "$active" ] || tap_skip_case "no \"SMC\" cache in /proc/slabinfo (merged, or not used by $name)"
	# First prove the count sees our sockets, or a zero would mean nothing.
	ready=$TMPDIR/held-slab
	rm -f "$ready"
	"$PROBE" -H connected -r "$ready" smc >"$TMPDIR/holder-slab" 2>&1 &
	holder=$!
	tap_wait_for 30 ready_or_gone "$ready" $holder
	[ -e "$ready" ] || { cat "$TMPDIR/holder-slab"; tap_fail "could not open AF_SMC sockets"; return 1; }
	slab_has_objects ||
		tap_fail "the SMC slab shows no active objects while AF_SMC sockets are open"
	tap_diag "SMC slab: $(smc_slab_active) active objects with a connected pair and its listener open"
	kill $holder
	wait $holder 2>/dev/null
	tap_wait_for 5 slab_is_empty ||
		tap_fail "the SMC slab still has $(smc_slab_active) active objects with no socket open"
}

# The log is read from the marker on: without the marker in the ring buffer
# (not written, or pushed out by what came after) there is nothing to read,
# and an empty grep would prove nothing, so that fails.
kernel_clean() {
	[ -n "$marker" ] || { tap_fail "/dev/kmsg was not writable: the kernel log cannot be checked"; return 1; }
	dmesg >"$TMPDIR/dmesg"
	grep -qF "$marker" "$TMPDIR/dmesg" ||
		{ tap_fail "the marker '$marker' is no longer in the kernel log: it cannot be checked"; return 1; }
	log=$(sed -n "/$marker/,\$p" "$TMPDIR/dmesg" | grep -E 'WARNING:|BUG:|Oops|still has objects|leak|refcount')
	[ -z "$log" ] || tap_fail "kernel messages since the start: $log"
	tap_diag "$(sed -n "/$marker/,\$p" "$TMPDIR/dmesg" | wc -l) kernel log lines since the marker checked"
	taint=$(cat /proc/sys/kernel/tainted)
	# Out-of-tree (O, 4096) and unsigned (E, 8192) are expected of our module.
	new=$(( (taint & ~taint_before) & ~(4096 | 8192) ))
	[ "$new" = 0 ] || tap_fail "the kernel got tainted: $taint_before -> $taint"
}

tap_case "$name loaded: socket(AF_SMC) works with protocols 0 and 1" 60 initial
tap_case "$cycles rmmod/insmod cycles: EAFNOSUPPORT after rmmod, AF_SMC after insmod" \
	$((cycles * 3 + 60)) cycle
tap_case "rmmod refused with an open AF_SMC socket, works after close" 120 held open
tap_case "rmmod refused with a listening AF_SMC socket, works after close" 120 held listen
tap_case "rmmod refused with a connected AF_SMC pair, works after close" 120 held connected
tap_case "the SMC slab counts open sockets and has none left after the close" 60 slab
tap_case "no kernel warning or new taint during the cycles" 60 kernel_clean
tap_done
