#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# config/pnet_tool.sh: the PNET table through our smc_pnet tool, against
# whichever SMC module the VM has (ours, or Debian's smc.ko): both must
# give the same output and exit status.
#   - add (netdev, RDMA device port, both), show (all, one PNET ID, JSON),
#     delete, flush;
#   - refused adds and deletes: status 1 and one line on stderr, the table
#     unchanged; bad command lines: status 2;
#   - another network namespace has its own table.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/tool_run.sh"

command -v smc_pnet >/dev/null || tap_skip_all "smc_pnet is not installed"
[ "$(id -u)" = 0 ] || tap_skip_all "needs root"
grep -qE '^(af_smc|smc) ' /proc/modules || tap_skip_all "no SMC module is loaded"

out=$TMPDIR/out
err=$TMPDIR/err
NS=smcp-tool

cleanup() {
	smc_pnet -f >/dev/null 2>&1
	ip netns del $NS 2>/dev/null
	rdma link delete smcprxe1 2>/dev/null
	ip link del smcpt0 2>/dev/null
}
tap_at_exit cleanup


# table EXPECTED: smc_pnet's listing must be exactly EXPECTED (lines).
table() {
	run 0 smc_pnet || return 1
	printf '%s' "$1" >"$TMPDIR/want"
	[ -n "$1" ] && echo >>"$TMPDIR/want"
	cmp -s "$out" "$TMPDIR/want" && return 0
	tap_fail "the table differs"
	sed 's/^/# expected: /' "$TMPDIR/want"
	sed 's/^/# got: /' "$out"
	return 1
}


setup() {
	ip link add smcpt0 type veth peer name smcpt1 &&
		ip link set smcpt0 up && ip link set smcpt1 up ||
		{ tap_fail "cannot create the veth pair"; return 1; }
	rdma link add smcprxe1 type rxe netdev smcpt0 ||
		{ tap_fail "cannot add rxe on smcpt0"; return 1; }
	run 0 smc_pnet -f
}
tap_case "set up a veth pair and an RDMA device; flush" 60 setup

add_show() {
	run 0 smc_pnet -a net1 -I lo || return 1
	run 0 smc_pnet -a netb -D smcprxe1 -P 1 || return 1
	run 0 smc_pnet -a both -I smcpt0 -D smcpdev -P 2 || return 1
	table "NET1 lo n/a n/a
NETB n/a smcprxe1 1
BOTH smcpt0 n/a n/a
BOTH n/a smcpdev 2"
	run 0 smc_pnet -s both || return 1
	printf 'BOTH smcpt0 n/a n/a\nBOTH n/a smcpdev 2\n' | cmp -s - "$out" ||
		tap_fail "smc_pnet -s both: $(cat "$out")"
	run 0 smc_pnet -j -s NETB || return 1
	[ "$(cat "$out")" = '[{"pnetid":"NETB","ibdevice":"smcprxe1","ibport":1}]' ] ||
		tap_fail "JSON: $(cat "$out")"
}
tap_case "add netdev and device entries, show them" 60 add_show

refused() {
	run 1 smc_pnet -a other -I lo && one_line_error
	run 1 smc_pnet -a other -D smcprxe1 -P 2 && one_line_error
	run 2 smc_pnet -a other -D smcpx -P 3 && one_line_error
	run 2 smc_pnet -a bad-id -I lo && one_line_error
	run 2 smc_pnet -a ABCDEFGHIJKLMNOPQ -I lo && one_line_error
	run 1 smc_pnet -d NOSUCH && one_line_error
	grep -q "NOSUCH is not defined" "$err" || tap_fail "delete: $(cat "$err")"
	run 1 su -s /bin/sh nobody -c "smc_pnet -a NOBODY -I lo" && one_line_error
	table "NET1 lo n/a n/a
NETB n/a smcprxe1 1
BOTH smcpt0 n/a n/a
BOTH n/a smcpdev 2"
}
tap_case "refused changes: status 1 or 2, one line, table unchanged" 90 refused

netns_table() {
	ip netns add $NS || { tap_fail "cannot add netns"; return 1; }
	run 0 ip netns exec $NS smc_pnet || return 1
	[ -s "$out" ] && tap_fail "a new netns sees entries: $(cat "$out")"
	run 0 ip netns exec $NS smc_pnet -a inns -I lo || return 1
	run 0 ip netns exec $NS smc_pnet || return 1
	[ "$(cat "$out")" = "INNS lo n/a n/a" ] || tap_fail "netns table: $(cat "$out")"
	table "NET1 lo n/a n/a
NETB n/a smcprxe1 1
BOTH smcpt0 n/a n/a
BOTH n/a smcpdev 2"
	ip netns del $NS
}
tap_case "another netns has its own table" 90 netns_table

delete_flush() {
	run 0 smc_pnet -d BOTH || return 1
	table "NET1 lo n/a n/a
NETB n/a smcprxe1 1"
	run 0 smc_pnet -f || return 1
	table ""
	run 0 smc_pnet -f || return 1
	table ""
}
tap_case "delete every entry of a PNET ID, then flush (twice)" 60 delete_flush

tap_done
