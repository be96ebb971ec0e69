#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# topology.sh MODULE [PEERMODULE]: this VM (and VM 1, when PEERMODULE is
# given) must run with exactly the SMC module the manifest asked for, and
# say so in its environment:
#   ours    af_smc loaded, out-of-tree ("O" taint), no smc
#   intree  Debian's smc and smc_diag loaded, not out-of-tree, no af_smc
#   none    no SMC module, and socket(AF_SMC) fails with EAFNOSUPPORT
# In every case but "none", socket(AF_SMC) works.
# topology.sh fail: one failing result, to prove an @-topology entry can fail
# the check. topology.sh --report: the facts the checks use, one per line
# (run on the peer through smc-vm-exec).
here=$(cd "$(dirname "$0")" && pwd)

report() {
	echo "env_module=${SMC_MODULE-unset}"
	echo "env_peer=${SMC_PEER_MODULE-unset}"
	for m in af_smc smc smc_diag; do
		if grep -q "^$m " /proc/modules; then
			echo "$m=loaded taint=$(cat "/sys/module/$m/taint" 2>/dev/null)"
		else
			echo "$m=absent"
		fi
	done
	echo "socket=$("$here/../tools/smc-sockprobe" smc 2>&1)"
}
if [ "$1" = --report ]; then
	report
	exit 0
fi

. "$here/../lib/tap.sh"

if [ "$1" = fail ]; then
	tap_not_ok "a deliberately failing entry in topology $SMC_TOPOLOGY"
	tap_done
fi

module=$1 peer=${2-}
if [ -n "$peer" ]; then count=2; else count=1; fi

# check_report FILE MODULE: the facts in FILE are those of MODULE.
check_report() {
	sed 's/^/# /' "$1"
	grep -q -x "env_module=$2" "$1" || tap_fail "SMC_MODULE is not $2"
	case "$2" in
	ours)
		grep -q '^af_smc=loaded taint=.*O' "$1" || tap_fail "af_smc is not loaded (out-of-tree)"
		grep -q '^smc=absent$' "$1" || tap_fail "Debian's smc is loaded too"
		grep -q -x 'socket=ok' "$1" || tap_fail "socket(AF_SMC) does not work"
		;;
	intree)
		# Debian's module is in-tree and signed: no "O" or "E" taint.
		grep -q -x 'smc=loaded taint=' "$1" || tap_fail "Debian's smc is not loaded (untainted)"
		grep -q -x 'smc_diag=loaded taint=' "$1" || tap_fail "Debian's smc_diag is not loaded"
		grep -q '^af_smc=absent$' "$1" || tap_fail "af_smc is loaded too"
		grep -q -x 'socket=ok' "$1" || tap_fail "socket(AF_SMC) does not work"
		;;
	none)
		grep -q '^af_smc=absent$' "$1" || tap_fail "af_smc is loaded"
		grep -q '^smc=absent$' "$1" || tap_fail "smc is loaded"
		# Nothing may load a module behind the topology's back either.
		grep -q -x 'socket=EAFNOSUPPORT' "$1" || tap_fail "socket(AF_SMC) does not fail with EAFNOSUPPORT"
		;;
	esac
}

environment() {
	tap_expect "SMC_VM_COUNT is $count" test "${SMC_VM_COUNT-}" = $count
	tap_expect "SMC_MODULE is $module" test "${SMC_MODULE-}" = "$module"
	# The runner's short form of the topology.
	if [ -n "$peer" ]; then
		tap_expect "SMC_PEER_MODULE is $peer" test "${SMC_PEER_MODULE-}" = "$peer"
		if [ "$module" = "$peer" ]; then want=2@$module; else want=2@$module,$peer; fi
		[ "$want" != 2@ours ] || want=2
	else
		tap_expect "SMC_PEER_MODULE is unset" test -z "${SMC_PEER_MODULE+set}"
		want=1@$module
		[ "$want" != 1@ours ] || want=1
	fi
	tap_expect "SMC_TOPOLOGY is $want" test "${SMC_TOPOLOGY-}" = "$want"
}
tap_case "the environment names topology $count@$module${peer:+,$peer}" 20 environment

this_vm() {
	report >"$TMPDIR/vm0"
	check_report "$TMPDIR/vm0" "$module"
}
tap_case "VM 0 runs with module '$module'" 30 this_vm

peer_vm() {
	smc-vm-exec 1 "sh $here/topology.sh --report" >"$TMPDIR/vm1" ||
		{ tap_fail "smc-vm-exec 1 failed: $(cat "$TMPDIR/vm1")"; return 1; }
	check_report "$TMPDIR/vm1" "$peer"
	grep -q -x "env_peer=$module" "$TMPDIR/vm1" || tap_fail "VM 1's SMC_PEER_MODULE is not $module"
}
[ -z "$peer" ] || tap_case "VM 1 runs with module '$peer'" 60 peer_vm

tap_done
