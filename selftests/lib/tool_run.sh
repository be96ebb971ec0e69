# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# tool_run.sh: checks of a command-line tool's exit status and output, for
# the tap.sh cases that run our tools. Source it after tap.sh and set $out and
# $err to two file names first.
#
#	run STATUS CMD...     CMD must exit with STATUS; its stdout goes to
#	                      $out, its stderr to $err (both shown on failure)
#	lines FILE            the number of lines of FILE
#	has TEXT              $out contains TEXT (a grep pattern)
#	has_err TEXT          $err contains TEXT (a grep pattern)
#	one_line_error        the last run wrote one line to stderr and nothing
#	                      to stdout, as a tool's error must
#	json_vals FILE KEY    every value KEY has in the JSON a tool saved in
#	                      FILE, one a line, strings without their quotes
#	                      (needs neither $out nor $err)

run() {
	_want=$1
	shift
	"$@" >"$out" 2>"$err"
	_rc=$?
	[ $_rc = "$_want" ] && return 0
	tap_fail "'$*' exited $_rc, not $_want"
	sed 's/^/# stdout: /' "$out"
	sed 's/^/# stderr: /' "$err"
	return 1
}

lines() { wc -l <"$1" | tr -d ' '; }

json_vals() {
	grep -o "\"$2\":[^,}]*" "$1" | cut -d: -f2- | tr -d '"'
}

has() {
	grep -q -- "$1" "$out" && return 0
	tap_fail "output lacks '$1'"
	sed 's/^/# stdout: /' "$out"
	return 1
}

has_err() {
	grep -q -- "$1" "$err" && return 0
	tap_fail "stderr lacks '$1'"
	sed 's/^/# stderr: /' "$err"
	return 1
}

one_line_error() {
	[ "$(lines "$err")" = 1 ] || tap_fail "stderr is not one line: $(cat "$err")"
	[ -s "$out" ] && tap_fail "stdout not empty: $(cat "$out")"
	return 0
}
