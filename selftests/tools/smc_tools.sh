#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# tools/smc_tools.sh: smcss, smc_pnet, smcd and smcr against the kernel.
#   - every tool either works or says in one line that the SMC module (its
#     sock_diag or generic netlink part) is not there, and exits 1 (with
#     --all-parts: every tool works, there being no missing part to see);
#   - wrong command lines end with status 2 and one line on stderr;
#   - smcss shows held listening and connected AF_SMC sockets, in text and
#     JSON, and honours -l and -a;
#   - smc_pnet adds, shows, deletes and flushes entries; smcd ueid adds and
#     deletes User EIDs; smcd policy adds, shows, deletes and flushes rules
#     (af_smc; Debian's module has no policy, and the tool says so);
#     changes are refused to an unprivileged user;
#   - smcd stats reset makes the next stats start from zero;
#   - smcr -d stats shows SMC-R's link failovers from af_smc only.
# Cases whose kernel part is missing are skipped with the reason; with
# --all-parts (Debian's module, which has them all) they fail instead, so a
# tool that cannot talk to a part that is there cannot hide behind a skip.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/tool_run.sh"
. "$here/../lib/module.sh"
all_parts=
[ "${1-}" = --all-parts ] && all_parts=1

PROBE=$here/smc-sockprobe
[ -x "$PROBE" ] || PROBE=$(command -v smc-sockprobe)
for t in smcss smc_pnet smcd smcr; do
	command -v $t >/dev/null || tap_skip_all "$t is not installed"
done
[ "$(id -u)" = 0 ] || tap_skip_all "needs root"
if [ "$("$PROBE" smc 2>/dev/null)" != ok ]; then
	[ -n "$all_parts" ] || tap_skip_all "no AF_SMC in this kernel"
	tap_not_ok "AF_SMC sockets exist (--all-parts)"
	tap_done
fi

out=$TMPDIR/out
err=$TMPDIR/err
export XDG_RUNTIME_DIR="$TMPDIR/xdg"
mkdir -p "$XDG_RUNTIME_DIR"


# Which parts of SMC the kernel offers.
smcss >/dev/null 2>&1 && have_diag=1 || have_diag=
smcd info >/dev/null 2>&1 && have_gen=1 || have_gen=
smc_pnet >/dev/null 2>&1 && have_pnet=1 || have_pnet=
tap_diag "sock_diag: ${have_diag:-no}, SMC_GEN_NETLINK: ${have_gen:-no}, SMC_PNETID: ${have_pnet:-no}"

# need HAVE REASON: a case needs a part of SMC (HAVE non-empty).
need() {
	[ -n "$1" ] && return 0
	[ -z "$all_parts" ] || { tap_fail "$2, but --all-parts requires it"; exit 1; }
	tap_skip_case "$2"
}

# With --all-parts nothing may be missing: say which part is not.
all_parts_there() {
	[ -n "$have_diag" ] || tap_fail "smcss fails: no sock_diag handler for AF_SMC"
	[ -n "$have_gen" ] || tap_fail "smcd info fails: no SMC_GEN_NETLINK family"
	[ -n "$have_pnet" ] || tap_fail "smc_pnet fails: no SMC_PNETID family"
	return 0
}

# A part that is missing is reported cleanly. Without one missing there is
# nothing to see; --all-parts runs all_parts_there instead.
missing_parts() {
	[ -n "$have_diag" ] && [ -n "$have_gen" ] && [ -n "$have_pnet" ] &&
		tap_skip_case "the kernel has every SMC part: none is missing to report"
	if [ -z "$have_diag" ]; then
		run 1 smcss -a && one_line_error
		grep -q "SMC module not loaded" "$err" || tap_fail "smcss: $(cat "$err")"
	fi
	if [ -z "$have_gen" ]; then
		for cmd in "smcd info" "smcr device" "smcd linkgroup" "smcr stats" "smcd ueid"; do
			# shellcheck disable=SC2086
			run 1 $cmd && one_line_error
			grep -q "SMC module not loaded" "$err" || tap_fail "$cmd: $(cat "$err")"
		done
	fi
	if [ -z "$have_pnet" ]; then
		run 1 smc_pnet && one_line_error
		grep -q "SMC module not loaded" "$err" || tap_fail "smc_pnet: $(cat "$err")"
	fi
	return 0
}
if [ -n "$all_parts" ]; then
	tap_case "smcss, smcd info and smc_pnet find their SMC parts (--all-parts)" 60 all_parts_there
else
	tap_case "a missing SMC part is one line and status 1" 60 missing_parts
fi

usage_errors() {
	for cmd in "smcss -x" "smcss -l -a" "smcss -R -D" "smc_pnet -a NET1" "smc_pnet -a N -I lo -P 3" \
		"smcd bogus" "smcr seid" "smcd ueid add lower" "smcr linkgroup show zz" "smcd stats nope"; do
		# shellcheck disable=SC2086
		run 2 $cmd && one_line_error
	done
	run 0 smcd help && has "Usage: smcd"
	run 0 smcr device help && has "Usage: smcr device"
	run 0 smcss --version && has "smcss (smc-linux)"
}
tap_case "usage errors are one line and status 2; help works" 60 usage_errors

# Hold AF_SMC sockets: a listener (IPv4) and a connected pair (IPv6).
hold() {
	"$PROBE" -H "$1" -r "$TMPDIR/$1.$2" "$2" >/dev/null 2>&1 &
	tap_wait_for 20 test -e "$TMPDIR/$1.$2" || tap_fail "smc-sockprobe -H $1 $2 did not start"
}

smcss_sockets() {
	need "$have_diag" "the kernel has no sock_diag handler for AF_SMC"
	hold listen smc
	hold connected smc6
	run 0 smcss -l || return 1
	has "^LISTEN .* 127\.0\.0\.1:"
	grep -q "^ACTIVE" "$out" && tap_fail "smcss -l shows an ACTIVE socket"
	run 0 smcss -a || return 1
	has "^LISTEN" && has "^ACTIVE .*::1:"
	run 0 smcss || return 1
	grep -q "^LISTEN" "$out" && tap_fail "plain smcss shows listening sockets"
	has "^ACTIVE"
	run 0 smcss -a -j || return 1
	has '"state":"LISTEN"' && has '"address":"::1"'
	run 0 smcss -d || return 1
	has "Shutd"
}
tap_case "smcss shows held AF_SMC sockets" 120 smcss_sockets

pnet_table() {
	need "$have_pnet" "the kernel has no SMC_PNETID family"
	run 0 smc_pnet -f || return 1
	run 0 smc_pnet -a selftest1 -I lo || return 1
	run 0 smc_pnet || return 1
	has "^SELFTEST1 lo n/a n/a$"
	run 0 smc_pnet -s SELFTEST1 -j || return 1
	has '"pnetid":"SELFTEST1","interface":"lo"'
	run 1 smc_pnet -a SELFTEST2 -I lo && one_line_error
	run 1 su -s /bin/sh nobody -c "smc_pnet -a SELFTEST3 -I lo" && one_line_error
	grep -q "CAP_NET_ADMIN" "$err" || tap_fail "unprivileged add: $(cat "$err")"
	run 0 smc_pnet -d SELFTEST1 || return 1
	run 1 smc_pnet -d SELFTEST1 && one_line_error
	run 0 smc_pnet || return 1
	[ -s "$out" ] && tap_fail "table not empty after delete: $(cat "$out")"
	return 0
}
tap_case "smc_pnet add, show, delete" 120 pnet_table

ueids() {
	need "$have_gen" "the kernel has no SMC_GEN_NETLINK family"
	run 0 smcd ueid flush || return 1
	run 0 smcd ueid add SELFTEST.EID-1 || return 1
	run 0 smcr ueid || return 1
	has "^SELFTEST.EID-1$"
	run 1 smcd ueid add SELFTEST.EID-1 && one_line_error
	run 1 su -s /bin/sh nobody -c "smcd ueid add OTHER" && one_line_error
	run 0 smcd ueid del SELFTEST.EID-1 || return 1
	run 1 smcd ueid del SELFTEST.EID-1 && one_line_error
	run 0 smcd -j ueid && has "^\[\]$"
}
tap_case "smcd ueid add, show, delete" 120 ueids

# af_smc's handshake policy (Documentation/handshake-policy.md); Linux's
# smc.ko has none, and the tool must say so instead of showing an empty table.
policy() {
	need "$have_gen" "the kernel has no SMC_GEN_NETLINK family"
	if [ "${SMC_MODULE:-}" = intree ]; then
		run 1 smcd policy && one_line_error
		has_err "has no handshake policy"
		return 0
	fi
	run 0 smcd policy flush || return 1
	run 0 smcd policy add smc peer 192.168.10.0/24 || return 1
	run 0 smcr policy add tcp port 8000-8099 || return 1
	run 0 smcd policy add tcp peer fd00::/8 port 443 || return 1
	run 0 smcd policy || return 1
	has "^ID   ACTION PEER                     PORTS$"
	has "^[0-9]* *smc    192.168.10.0/24 *any$"
	has "^[0-9]* *tcp    any *8000-8099$"
	has "^[0-9]* *tcp    fd00::/8 *443$"
	[ "$(lines "$out")" = 4 ] || tap_fail "smcd policy: $(lines "$out") lines, not 4"
	run 0 smcr -j policy || return 1
	cp "$out" "$TMPDIR/policy.json"
	[ "$(json_vals "$TMPDIR/policy.json" action | tr '\n' ' ')" = "smc tcp tcp " ] ||
		tap_fail "actions in JSON: $(cat "$TMPDIR/policy.json")"
	[ "$(json_vals "$TMPDIR/policy.json" port_low | tr '\n' ' ')" = "0 8000 443 " ] ||
		tap_fail "port_low in JSON: $(cat "$TMPDIR/policy.json")"
	second=$(json_vals "$TMPDIR/policy.json" id | sed -n 2p)
	run 1 smcd policy add tcp port 8000-8099 && one_line_error
	has_err "exists already"
	run 2 smcd policy add tcp peer 10.0.0.1/8 && one_line_error
	run 1 su -s /bin/sh nobody -c "smcd policy add tcp" && one_line_error
	has_err "needs CAP_NET_ADMIN"
	run 0 su -s /bin/sh nobody -c "smcd policy" && has "8000-8099"
	run 0 smcd policy del "$second" || return 1
	run 1 smcd policy del "$second" && one_line_error
	has_err "no rule has id $second"
	run 0 smcd policy && [ "$(lines "$out")" = 3 ] || tap_fail "after del: $(cat "$out")"
	run 0 smcd policy flush || return 1
	run 0 smcd -j policy && has "^\[\]$"
}
tap_case "smcd policy add, show, delete, flush" 120 policy

info_devices() {
	need "$have_gen" "the kernel has no SMC_GEN_NETLINK family"
	run 0 smcd info && has "^SMC Version:" && has "^RoCE:"
	run 0 smcr -j info && has '"kernel":{"smc_version":'
	run 0 smcr -d device && has "^Net-Dev"
	run 0 smcd device && has "^FID"
	run 0 smcr linkgroup link-show && has "^LG-ID"
	run 0 smcd -j linkgroup && has "^\["
}
tap_case "smcd/smcr info, device, linkgroup" 120 info_devices

stats_reset() {
	need "$have_gen" "the kernel has no SMC_GEN_NETLINK family"
	run 0 smcd stats reset || return 1
	run 0 smcd stats || return 1
	has "Total connections handled  *0$"
	# A new connection counts again: SMC-D over the loopback ISM device with
	# ours, a fallback to TCP with Debian's (no ISM device on x86). Each end
	# counts, in both modules: exactly 2.
	hold connected smc
	run 0 smcd -d stats || return 1
	has "Total connections handled  *2$"
	run 0 smcd -a stats json && has '"SMCD":{"SMC_INT_TX_BUF_8K":'
	[ "$(stat -c %a "$XDG_RUNTIME_DIR/smc-tools")" = 700 ] ||
		tap_fail "snapshot directory is not private"
	return 0
}
tap_case "smcd stats reset starts from zero" 120 stats_reset

# SMC-R's link failover counters are af_smc's own (SMC_NETLINK_GET_LINK_STATS):
# smcr -d stats and its JSON show them from ours; from Debian's module, which
# answers the command with EOPNOTSUPP, nothing (no line, no key, no error).
# The counts themselves: smcr/failover_topo1.
link_failovers() {
	need "$have_gen" "the kernel has no SMC_GEN_NETLINK family"
	run 0 smcr -d stats || return 1
	if smc_module_ours; then
		has "^Link Failovers$" && has "^  Connections moved  *[0-9][0-9]*$" &&
			has "^  Bytes written again  *[0-9][0-9]* ("
		run 0 smcr stats json || return 1
		has '"SMC_LINK_FAILOVER_CNT":[0-9]' && has '"SMC_LINK_RESENT_BYTES":[0-9]'
	else
		! grep -q "Link Failovers" "$out" ||
			tap_fail "smcr -d stats shows link failovers the kernel did not report"
		run 0 smcr stats json || return 1
		! grep -q "SMC_LINK_" "$out" ||
			tap_fail "smcr stats json has link failover keys the kernel did not report"
	fi
	return 0
}
tap_case "smcr -d stats: link failovers from af_smc, nothing from a module without them" 60 link_failovers

tap_done
