# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# tap.sh: TAP 13 for shell test scripts (busybox ash, dash, bash). Source it:
#
#	. "$(dirname "$0")/../lib/tap.sh"
#	my_case() {                      # runs in a subshell
#		tap_assert "module loads" insmod "$SMC_MODULE_FILE"
#		[ -e /proc/foo ] || tap_skip_case "no /proc/foo"
#		tap_expect "bar works" bar
#	}
#	tap_case "description" 60 my_case [ARG...]
#	tap_done
#
# tap_case runs FUNCTION ARG... in a subshell with a time limit (seconds,
# multiplied by $SMC_TIMEOUT_SCALE); the whole process tree is killed when it
# runs out. The case passes when the function returns 0 and nothing called
# tap_fail. Its output is collected and printed before the result line, every
# line that is not already a "#" diagnostic prefixed with "# ", so stray
# command output cannot break the TAP stream. Whatever the case leaves running
# is killed when it ends. A case that took 2 s or more says how long
# ("# case took 12.34 s"), so a suite's slow parts show in any log.
#
# Inside a case:
#	tap_diag MSG...              "# MSG"
#	tap_fail MSG...              diagnostic, and the case fails (goes on)
#	tap_expect DESC CMD...       run CMD; on failure tap_fail with its status
#	tap_assert DESC CMD...       the same, and the case ends at once
#	tap_skip_case REASON...      end the case as skipped (reason required)
# Anywhere:
#	tap_ok / tap_not_ok DESC, tap_skip DESC REASON   report a result directly
#	tap_skip_all REASON          before any result: "1..0 # SKIP", exit 0
#	tap_wait_for SECONDS CMD...  poll CMD until it succeeds; 1 on timeout
#	tap_alive PID                whether PID runs (a zombie does not count)
#	tap_kill_tree PID            SIGKILL PID and all its descendants
#	tap_now_ms                   milliseconds since boot, for measured pauses
#	tap_reap SECONDS PIDFILE LOG WHAT
#	                             wait up to SECONDS for this shell's child
#	                             whose pid PIDFILE holds, print LOG, and
#	                             tap_fail unless it exited 0; its status
#	                             returned (1 if it did not end), PIDFILE gone
#	tap_at_exit COMMAND          run COMMAND (a string) when the script exits
#	tap_done                     print the plan and exit 0 (all passed or
#	                             skipped) or 1
#
# exit, tap_assert and tap_skip_case end the case only when called from the
# case's own shell, not from inside a further subshell or pipeline.

_tap_count=0
_tap_failed=0
_tap_planned=
_tap_in_case=
_tap_exit_hooks=
_tap_work=$(mktemp -d "${TMPDIR:-/tmp}/tap.XXXXXX") || exit 1
trap 'eval "$_tap_exit_hooks"; rm -rf "$_tap_work"' EXIT
trap 'exit 130' INT TERM

echo "TAP version 13"

tap_diag() {
	printf '# %s\n' "$*"
}

tap_plan() {
	_tap_planned=$1
	echo "1..$1"
}

# One result line; descriptions must not contain '#' or newlines.
_tap_result() {
	_tap_count=$((_tap_count + 1))
	printf '%s %d %s%s\n' "$1" "$_tap_count" "$(printf '%s' "$2" | tr '#\n' '  ')" "$3"
}

tap_ok() {
	_tap_result ok "$1" ""
}

tap_not_ok() {
	_tap_failed=$((_tap_failed + 1))
	_tap_result "not ok" "$1" ""
}

tap_skip() {
	[ -n "$2" ] || { tap_diag "skip of '$1' without a reason"; tap_not_ok "$1"; return; }
	_tap_result ok "$1" " # SKIP $2"
}

tap_skip_all() {
	echo "1..0 # SKIP $*"
	exit 0
}

# A file, not a variable, so that failures in nested subshells count too.
tap_fail() {
	tap_diag "$@"
	: >"$_tap_work/failed"
}

tap_expect() {
	_tap_desc=$1
	shift
	"$@"
	_tap_rc=$?
	[ $_tap_rc = 0 ] && return 0
	tap_fail "failed: $_tap_desc: '$*' exited with status $_tap_rc"
	return 1
}

tap_assert() {
	tap_expect "$@" || exit 1
}

tap_skip_case() {
	[ -n "$_tap_in_case" ] || { tap_diag "tap_skip_case outside a case: $*"; exit 1; }
	printf '%s' "$*" | tr '\n' ' ' >"$_tap_work/skip"
	exit 77
}

tap_at_exit() {
	_tap_exit_hooks="$_tap_exit_hooks $1;"
}

# kill -0 succeeds on a zombie, which a waiting script must see as gone.
tap_alive() {
	read -r _tap_line 2>/dev/null </proc/"$1"/stat || return 1
	_tap_line=${_tap_line##*) }
	[ "${_tap_line%% *}" != Z ]
}

# Centiseconds since boot, for deadlines (busybox date has no sub-second %N).
_tap_now_cs() {
	read -r _tap_up _tap_rest </proc/uptime
	_tap_cs=${_tap_up%.*}${_tap_up#*.}
	_tap_cs=${_tap_cs#"${_tap_cs%%[!0]*}"}
	echo "${_tap_cs:-0}"
}

tap_now_ms() {
	echo $(( $(_tap_now_cs) * 10 ))
}

_tap_gone() {
	! tap_alive "$1"
}

tap_reap() {
	_tap_rpid=$(cat "$2")
	if ! tap_wait_for "$1" _tap_gone "$_tap_rpid"; then
		tap_fail "$4 did not end within $1 s: $(cat "$3")"
		return 1
	fi
	wait "$_tap_rpid"
	_tap_rrc=$?
	rm -f "$2"
	cat "$3"
	[ $_tap_rrc = 0 ] || tap_fail "$4 failed ($_tap_rrc): $(cat "$3")"
	return $_tap_rrc
}

tap_wait_for() {
	_tap_end=$(( $(_tap_now_cs) + $1 * 100 ))
	shift
	until "$@"; do
		[ "$(_tap_now_cs)" -lt "$_tap_end" ] || return 1
		sleep 0.05
	done
}

# The PIDs of all descendants of $1, from the parent links in /proc.
_tap_descendants() {
	for _tap_stat in /proc/[0-9]*/stat; do
		read -r _tap_line 2>/dev/null <"$_tap_stat" || continue
		# The command name is in parentheses and may hold spaces.
		echo "${_tap_line%% *} ${_tap_line##*) }"
	done 2>/dev/null | awk -v root="$1" '
		{ parent[$1] = $3 }
		END {
			found[root] = 1
			do {
				more = 0
				for (p in parent)
					if (!(p in found) && (parent[p] in found)) {
						found[p] = 1
						more = 1
						print p
					}
			} while (more)
		}'
}

# Stop the tree first, so nothing forks while it is being killed.
_tap_kill_descendants() {
	_tap_victims=$(_tap_descendants "$1")
	[ -n "$_tap_victims" ] || return 0
	# shellcheck disable=SC2086
	kill -STOP $_tap_victims 2>/dev/null
	_tap_victims="$_tap_victims $(_tap_descendants "$1")"
	# shellcheck disable=SC2086
	kill -KILL $_tap_victims 2>/dev/null
	return 0
}

tap_kill_tree() {
	kill -STOP "$1" 2>/dev/null
	_tap_kill_descendants "$1"
	kill -KILL "$1" 2>/dev/null
	return 0
}

# tap_scaled N: N times $SMC_TIMEOUT_SCALE (taken as 1 below 1), rounded to
# an integer: a bound that must grow as the debug kernel's do (make
# check-debug scales af_smc's own waits by the same factor).
tap_scaled() {
	awk -v t="$1" -v s="${SMC_TIMEOUT_SCALE:-1}" \
		'BEGIN { if (s + 0 < 1) s = 1; printf "%d\n", t * s + 0.5 }'
}

# tap_volume N: N divided by $SMC_VOLUME_DIV (taken as 1 below 1), rounded
# down but at least 1 (0 stays 0): how many bytes, connections or rounds a
# case moves. make check-debug divides them by its scale (selftests/README.md
# says why).
tap_volume() {
	awk -v n="$1" -v d="${SMC_VOLUME_DIV:-1}" \
		'BEGIN { if (d + 0 < 1) d = 1; v = int(n / d); if (v < 1 && n + 0 > 0) v = 1; printf "%d\n", v }'
}

# tap_volume_size SIZE: tap_volume of a size as smc-echo takes it, a number
# with an optional K, M or G (64M: 16M when the divisor is 4).
tap_volume_size() {
	_tap_n=${1%[KMG]}
	echo "$(tap_volume "$_tap_n")${1#"$_tap_n"}"
}

# Runs as the case subshell's EXIT trap, so exit and tap_assert clean up too.
_tap_case_exit() {
	trap - EXIT
	# Our own PID: the shell opens the redirection itself, so /proc/self is
	# this subshell (a $(...) would be another process; ash has no $BASHPID).
	read -r _tap_line </proc/self/stat
	_tap_kill_descendants "${_tap_line%% *}"
	# A skip after a failed check is still a failure, as in tap.c.
	if [ "$1" = 77 ] && [ -e "$_tap_work/failed" ]; then
		tap_diag "skip requested after a failure: $(cat "$_tap_work/skip" 2>/dev/null)"
		exit 1
	fi
	[ "$1" = 77 ] && exit 77
	[ "$1" = 0 ] && [ ! -e "$_tap_work/failed" ] && exit 0
	[ "$1" = 0 ] || [ -e "$_tap_work/failed" ] || tap_diag "case ended with status $1"
	exit 1
}

# Seconds since boot in hundredths, from /proc/uptime (no fork).
_tap_uptime_cs() {
	read -r _tap_up _tap_idle </proc/uptime
	echo "${_tap_up%.*}${_tap_up#*.}"
}

tap_case() {
	_tap_desc=$1
	_tap_limit=$(tap_scaled "$2")
	shift 2
	_tap_began=$(_tap_uptime_cs)
	rm -f "$_tap_work/skip" "$_tap_work/timeout" "$_tap_work/failed"
	(
		_tap_in_case=1
		trap '_tap_case_exit $?' EXIT
		"$@"
	) </dev/null >"$_tap_work/out" 2>&1 &
	_tap_pid=$!
	(
		sleep "$_tap_limit"
		: >"$_tap_work/timeout"
		tap_kill_tree "$_tap_pid"
	) </dev/null >/dev/null 2>&1 &
	_tap_watchdog=$!
	wait "$_tap_pid" 2>/dev/null
	_tap_rc=$?
	tap_kill_tree "$_tap_watchdog"
	wait "$_tap_watchdog" 2>/dev/null
	sed 's/^\([^#]\)/# \1/; s/^$/#/' "$_tap_work/out"
	_tap_took=$(( $(_tap_uptime_cs) - _tap_began ))
	[ $_tap_took -lt 200 ] ||
		tap_diag "case took $((_tap_took / 100)).$(printf '%02d' $((_tap_took % 100))) s"
	if [ -e "$_tap_work/timeout" ]; then
		tap_diag "timed out after $_tap_limit s"
		tap_not_ok "$_tap_desc"
	elif [ $_tap_rc = 0 ]; then
		tap_ok "$_tap_desc"
	elif [ $_tap_rc = 77 ] && [ -s "$_tap_work/skip" ] && [ ! -e "$_tap_work/failed" ]; then
		tap_skip "$_tap_desc" "$(cat "$_tap_work/skip")"
	else
		[ $_tap_rc -gt 128 ] && tap_diag "case killed by signal $((_tap_rc - 128))"
		tap_not_ok "$_tap_desc"
	fi
}

tap_done() {
	[ -n "$_tap_planned" ] || echo "1..$_tap_count"
	if [ -n "$_tap_planned" ] && [ "$_tap_planned" != "$_tap_count" ]; then
		tap_diag "planned $_tap_planned results, reported $_tap_count"
		exit 1
	fi
	[ "$_tap_failed" = 0 ]
	exit $?
}
