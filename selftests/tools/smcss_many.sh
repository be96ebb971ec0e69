#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# tools/smcss_many.sh [--require-diag] [COUNT]: smcss with COUNT AF_SMC
# sockets (default 10000: all but 200 of them listening, each on a port of
# its own, and 100 connected pairs over loopback: SMC-D with our module's
# defaults, TCP with Debian's).
#   - the sockets exist: /proc/net/protocols counts exactly COUNT SMC sockets;
#   - "smcss -a" and "smcss -a -j" list every one of them: COUNT rows, the
#     right number of LISTEN and ACTIVE rows, and exactly the listeners' ports;
#     the wall time of each is printed as a diagnostic.
# A module without sock_diag for AF_SMC (smcss says so) skips the listing
# cases with smcss's message, unless --require-diag (Debian's smc_diag) makes
# that a failure. In a test VM with a module loaded, a missing tool or
# AF_SMC is a failure too (lib/module.sh).
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/module.sh"

require_diag=
if [ "${1-}" = --require-diag ]; then require_diag=1; shift; fi
count=${1:-10000}
pairs=100
[ "$count" -gt $((4 * pairs)) ] || pairs=$((count / 4))
listeners=$((count - 2 * pairs))

MANY=$here/smc-manysock
[ -x "$MANY" ] || MANY=$(command -v smc-manysock)
command -v smcss >/dev/null || smc_missing_all "smcss is not installed"
[ -x "$MANY" ] || smc_missing_all "smc-manysock not found"
[ "$(id -u)" = 0 ] || tap_skip_all "needs root (RLIMIT_NOFILE above the hard limit)"
probe=$("$here/smc-sockprobe" smc 2>&1)
[ "$probe" = ok ] || smc_missing_all "no AF_SMC in this kernel: socket(AF_SMC) gives $probe"

# Centiseconds since boot (busybox date has no sub-second format).
now_cs() {
	read -r up _ </proc/uptime
	cs=${up%.*}${up#*.}
	cs=${cs#"${cs%%[!0]*}"}
	echo "${cs:-0}"
}
secs() { printf '%d.%02d' $(($1 / 100)) $(($1 % 100)); }

# The sockets stay open for all cases: the holder is not part of any case.
# Ports from 20000 up, below the ephemeral range the connections use: the
# kernel's own choice slows down as the range fills.
"$MANY" -l "$listeners" -c "$pairs" -b 20000 -p "$TMPDIR/ports" -r "$TMPDIR/ready" \
	>"$TMPDIR/holder.out" 2>&1 </dev/null &
holder=$!
tap_at_exit "kill $holder 2>/dev/null"

# The "sockets" column of the SMC row (IPv4 and IPv6 AF_SMC sockets).
smc_socket_count() {
	awk '$1 == "SMC" { n += $3 } $1 == "SMC6" { n += $3 } END { print n + 0 }' /proc/net/protocols
}

ready_or_gone() { test -e "$TMPDIR/ready" || ! tap_alive $holder; }

open_sockets() {
	tap_wait_for 300 ready_or_gone
	cat "$TMPDIR/holder.out"
	[ -e "$TMPDIR/ready" ] || { tap_fail "smc-manysock did not open $count sockets"; return 1; }
	sort -n "$TMPDIR/ports" >"$TMPDIR/ports.sorted"
	n=$(sort -u "$TMPDIR/ports.sorted" | wc -l)
	[ "$n" = "$listeners" ] || tap_fail "$n distinct listener ports, not $listeners"
	n=$(smc_socket_count)
	[ "$n" = "$count" ] || tap_fail "/proc/net/protocols counts $n AF_SMC sockets, not $count"
	return 0
}
tap_case "hold $count AF_SMC sockets ($listeners listening, $pairs connected pairs)" 300 open_sockets

# listing DESC ARGS...: run smcss ARGS (with all sockets held), time it; the
# output in $TMPDIR/list. Ends the case as skipped when smcss says that the
# module has no sock_diag handler for AF_SMC (unless --require-diag).
listing() {
	[ -e "$TMPDIR/ready" ] || { tap_fail "the sockets are not open"; exit 1; }
	t0=$(now_cs)
	smcss "$@" >"$TMPDIR/list" 2>"$TMPDIR/err"
	rc=$?
	t=$(( $(now_cs) - t0 ))
	if [ $rc != 0 ] && grep -q "no sock_diag handler for AF_SMC" "$TMPDIR/err"; then
		[ -n "$require_diag" ] || tap_skip_case "$(head -n 1 "$TMPDIR/err")"
		tap_fail "smcss $*: $(cat "$TMPDIR/err")"
		exit 1
	fi
	if [ $rc != 0 ]; then
		tap_fail "smcss $* exited $rc: $(head -n 5 "$TMPDIR/err")"
		exit 1
	fi
	tap_diag "smcss $*: $(($(wc -l <"$TMPDIR/list"))) lines, $(wc -c <"$TMPDIR/list") bytes in $(secs $t) s wall time"
}

# same_ports FILE: FILE holds exactly the listeners' ports.
same_ports() {
	sort -n "$1" >"$1.sorted"
	cmp -s "$1.sorted" "$TMPDIR/ports.sorted" && return 0
	tap_fail "the listed LISTEN ports differ from the listeners' ports:"
	diff "$1.sorted" "$TMPDIR/ports.sorted" | head -n 10
	return 1
}

text_listing() {
	listing -a
	# A header, then one row per socket.
	rows=$(($(wc -l <"$TMPDIR/list") - 1))
	[ "$rows" = "$count" ] || tap_fail "$rows rows, not $count"
	n=$(grep -c '^LISTEN ' "$TMPDIR/list")
	[ "$n" = "$listeners" ] || tap_fail "$n LISTEN rows, not $listeners"
	n=$(grep -c '^ACTIVE .* 127\.0\.0\.1:[0-9]* ' "$TMPDIR/list")
	[ "$n" = $((2 * pairs)) ] || tap_fail "$n ACTIVE rows with a loopback peer, not $((2 * pairs))"
	awk '$1 == "LISTEN" { n = split($4, a, ":"); print a[n] }' "$TMPDIR/list" >"$TMPDIR/listed"
	same_ports "$TMPDIR/listed"
}
tap_case "smcss -a lists all $count sockets" 600 text_listing

json_listing() {
	listing -a -j
	# One line: an array of objects, each with one "state".
	n=$(grep -o '"state":"[A-Z_]*"' "$TMPDIR/list" | wc -l)
	[ "$n" = "$count" ] || tap_fail "$n objects, not $count"
	n=$(grep -o '"state":"LISTEN"' "$TMPDIR/list" | wc -l)
	[ "$n" = "$listeners" ] || tap_fail "$n LISTEN objects, not $listeners"
	n=$(grep -o '"state":"ACTIVE"' "$TMPDIR/list" | wc -l)
	[ "$n" = $((2 * pairs)) ] || tap_fail "$n ACTIVE objects, not $((2 * pairs))"
	grep -o '"state":"LISTEN","uid":[0-9]*,"inode":[0-9]*,"local":{"address":"127\.0\.0\.1","port":[0-9]*' \
		"$TMPDIR/list" | sed 's/.*"port"://' >"$TMPDIR/listed"
	same_ports "$TMPDIR/listed"
}
tap_case "smcss -a -j lists all $count sockets" 600 json_listing

tap_done
