#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# chk/dbg.sh: smc_dbg writes one tarball with every expected member; what a
# source could not give is recorded in index.txt, never fatal; the members
# hold what the system says (the modules, the sysctls, rxe0 in smc_rnics).
# A 2-VM entry: rxe0 sits on eth0 (topo_vm_rxe).
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/lib.sh"
. "$here/../lib/topology.sh"

command -v smc_dbg >/dev/null || tap_skip_all "smc_dbg is not installed"
command -v tar >/dev/null || tap_skip_all "no tar"
[ "$(id -u)" = 0 ] || tap_skip_all "needs root"
[ "${SMC_VM_COUNT:-1}" -ge 2 ] || tap_skip_all "needs eth0 for rxe0, which only runs with --vms 2 have"
tap_at_exit topo_cleanup

members="index.txt version.txt modules.txt protocols.txt sysctl.txt dmesg.txt smcss-a.txt
smcss-ad.txt smcss-aD.txt smcss-aR.txt smcss.json smc_pnet.txt smcd-info.txt smcr-device.txt
smcd-device.txt smcr-linkgroup.txt smcr-links.txt smcd-linkgroup.txt smcr-stats.txt
smcd-stats.txt smcd-ueid.txt smcd-seid.txt smc_rnics.txt smc_rnics.json ip-addr.txt
ip-route.txt ip6-route.txt rdma-dev.txt rdma-link.txt"

tarball() {
	topo_vm_rxe || tap_fail "cannot add rxe0 (topo_vm_rxe)"
	mkdir -p "$TMPDIR/out" "$TMPDIR/x"
	(cd "$TMPDIR" && smc_dbg -o out/report.tar) >"$TMPDIR/log" 2>&1
	rc=$?
	sed 's/^/# /' "$TMPDIR/log"
	[ $rc = 0 ] || { tap_fail "smc_dbg exited $rc"; return 1; }
	grep -q "^smc_dbg: wrote out/report.tar (29 files, " "$TMPDIR/log" || tap_fail "no summary line"
	tar -tf "$TMPDIR/out/report.tar" >"$TMPDIR/list" || { tap_fail "tar cannot list it"; return 1; }
	[ "$(head -n 1 "$TMPDIR/list")" = report/ ] || tap_fail "the first member is not report/"
	[ "$(wc -l <"$TMPDIR/list")" = 30 ] || tap_fail "$(wc -l <"$TMPDIR/list") members, not 30"
	for m in $members; do
		grep -qx "report/$m" "$TMPDIR/list" || tap_fail "no member $m"
	done
	tar -xf "$TMPDIR/out/report.tar" -C "$TMPDIR/x" || { tap_fail "tar cannot extract it"; return 1; }
	d=$TMPDIR/x/report
	sed 's/^/# index: /' "$d/index.txt"
	# Every member has a line in the index, ok or the error.
	for m in $members; do
		[ $m = index.txt ] && continue
		grep -Eq "^$m: (ok|ERROR: .+)$" "$d/index.txt" || tap_fail "index.txt has no line for $m"
	done
	for m in version.txt modules.txt smc_rnics.txt smc_rnics.json ip-addr.txt rdma-link.txt; do
		grep -q "^$m: ok$" "$d/index.txt" || tap_fail "$m is not ok"
	done
	# The contents are the system's.
	grep -q "^/proc/version: $(cut -c1-40 /proc/version)" "$d/version.txt" || tap_fail "version.txt"
	mod=$(sed -n 's/^\(rdma_rxe\) .*/\1/p' /proc/modules)
	[ -n "$mod" ] && ! grep -q "^rdma_rxe " "$d/modules.txt" && tap_fail "modules.txt lacks rdma_rxe"
	grep -Eq '^RoCE +rxe0 +rdma_rxe +1 +ACTIVE +eth0 ' "$d/smc_rnics.txt" || tap_fail "smc_rnics.txt lacks rxe0"
	grep -q 'link rxe0/1 state ACTIVE' "$d/rdma-link.txt" || tap_fail "rdma-link.txt lacks rxe0"
	# Each sysctl of the module is there with its value; without any, the
	# index says so.
	if [ -d /proc/sys/net/smc ]; then
		for f in /proc/sys/net/smc/*; do
			k=net.smc.$(basename "$f")
			grep -qx "$k = $(cat "$f" | sed 's/[[:space:]]*$//')" "$d/sysctl.txt" ||
				tap_fail "sysctl.txt lacks '$k = $(cat "$f")'"
		done
	else
		grep -q "^sysctl.txt: ERROR: no /proc/sys/net/smc" "$d/index.txt" || tap_fail "no sysctl error"
	fi
	# Kernel messages: only lines about smc, rxe, ism or rdma.
	if grep -q '^dmesg.txt: ok$' "$d/index.txt"; then
		grep -viE 'smc|rxe|ism|rdma' "$d/dmesg.txt" | grep -q . && tap_fail "dmesg.txt has other lines"
	fi
	# smcss: either its table or its one-line reason, never nothing.
	if grep -q '^smcss-a.txt: ok$' "$d/index.txt"; then
		grep -q '^State ' "$d/smcss-a.txt" || tap_fail "smcss-a.txt has no table"
	else
		grep -q '^smcss: ' "$d/smcss-a.txt" || tap_fail "smcss-a.txt has no error line"
	fi
	return 0
}

tap_case "smc_dbg: tarball with every member, errors recorded" 120 tarball
tap_done
