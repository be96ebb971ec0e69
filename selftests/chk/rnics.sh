#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# chk/rnics.sh: smc_rnics in a VM with rxe0 over eth0 (topo_vm_rxe: a
# 2-VM run, as only those have eth0). Its row and its JSON
# object carry the values sysfs and rdma(8) report (driver, port state,
# interface, GID types); the row goes when the device goes; the PNET ID set
# with smc_pnet shows (both modules have SMC_PNETID: in a test VM with one
# loaded, smc_pnet failing is a failure), and with the module unloaded a
# note says smc_rnics cannot tell, with status 0 either way. smc_chk -i
# eth0 finds rxe0 usable for SMC-R.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/lib.sh"
. "$here/../lib/topology.sh"
. "$here/../lib/module.sh"

for t in smc_rnics smc_pnet rdma; do
	command -v $t >/dev/null || smc_missing_all "$t is not installed"
done
[ "$(id -u)" = 0 ] || tap_skip_all "needs root"
[ "${SMC_VM_COUNT:-1}" -ge 2 ] || tap_skip_all "needs eth0, which only runs with --vms 2 have"
tap_at_exit topo_cleanup

out=$TMPDIR/out
err=$TMPDIR/err
sys=/sys/class/infiniband/rxe0/ports/1

# The distinct GID types of rxe0 port 1 in GID index order, joined by ",".
# One cat for the whole table (rxe has 1024 entries; an unset one fails its
# read, which cat reports and passes over): a process per entry took most
# of this test's time, and minutes on the debug kernel.
sysfs_gid_types() {
	(cd "$sys/gid_attrs/types" && ls | sort -n | xargs cat 2>/dev/null) |
		awk '!seen[$0]++' | paste -sd, -
}

rxe_row() {
	tap_assert "rxe0 on eth0 (topo_vm_rxe)" topo_vm_rxe
	tap_expect "smc_rnics runs" smc_rnics >"$out" 2>"$err"
	sed 's/^/# /' "$out"
	row=$(grep '^[A-Za-z]* *rxe0 ' "$out")
	[ -n "$row" ] || { tap_fail "no rxe0 row"; return 1; }
	# What rdma(8) and sysfs say, to compare with.
	link=$(rdma link show rxe0/1)
	state=$(echo "$link" | sed -n 's/.* state \([A-Z_]*\) .*/\1/p')
	netdev=$(echo "$link" | sed -n 's/.* netdev \([^ ]*\).*/\1/p')
	types=$(sysfs_gid_types)
	tap_diag "rdma: $link"
	tap_diag "sysfs GID types: $types"
	[ "$state" = ACTIVE ] || tap_fail "rdma says rxe0/1 is '$state'"
	[ -n "$types" ] || tap_fail "sysfs lists no GID types for rxe0/1"
	want="RoCE +rxe0 +rdma_rxe +1 +$state +$netdev +$types( |\$)"
	echo "$row" | grep -Eq "^$want" || tap_fail "row '$row' is not '$want'"
	return 0
}

json_object() {
	tap_expect "smc_rnics -j runs" smc_rnics -j >"$out" 2>"$err"
	obj=$(grep -o '{[^{}]*"device":"rxe0"[^{}]*}' "$out")
	tap_diag "$obj"
	[ -n "$obj" ] || { tap_fail "no rxe0 object in $(cat "$out")"; return 1; }
	types=$(sysfs_gid_types | sed 's/,/","/g')
	for member in '"type":"RoCE"' '"driver":"rdma_rxe"' '"port":1' '"state":"ACTIVE"' \
		'"phys_state":"LinkUp"' '"link_layer":"Ethernet"' '"netdev":"eth0"' \
		"\"gid_types\":[\"$types\"]"; do
		case "$obj" in *"$member"*) ;; *) tap_fail "the object lacks $member" ;; esac
	done
	case "$obj" in *'"bus_id"'*) tap_fail "a software device has no bus id" ;; esac
	return 0
}

pnet_id() {
	smc_pnet >/dev/null 2>&1 || smc_missing "the module has no SMC_PNETID family: $(smc_pnet 2>&1)"
	tap_assert "smc_pnet adds rxe0 port 1" smc_pnet -a NETCHK -D rxe0 -P 1
	smc_rnics >"$out" 2>"$err"
	smc_rnics -j >"$out.json" 2>>"$err"
	smc_pnet -d NETCHK
	sed 's/^/# /' "$out"
	grep ' rxe0 ' "$out" | grep -q ' \*NETCHK$' || tap_fail "the rxe0 row does not end in *NETCHK"
	grep -o '{[^{}]*"device":"rxe0"[^{}]*}' "$out.json" | grep -q '"pnetid":"NETCHK"' ||
		tap_fail "the rxe0 object has no pnetid NETCHK"
	# Both modules have SMC_PNETID and SMC_GEN_NETLINK: no note at all.
	[ -s "$err" ] && tap_fail "unexpected notes: $(cat "$err")"
	return 0
}

# The SMC module out of the way (the harness's, unloaded for the case and
# loaded again after): its netlink families are gone, and smc_rnics says so.
# Debian's is two modules, loaded from the image's list (vm/initramfs).
smc_unload() {
	case "${SMC_MODULE:-}" in
	ours) smc_module_rmmod ;;
	intree) rmmod smc_diag && rmmod smc ;;
	*) return 1 ;;
	esac
}
smc_load() {
	case "${SMC_MODULE:-}" in
	ours) insmod "$SMC_MODULE_FILE" ;;
	intree)
		for ko in $(grep -E '/smc(_diag)?\.ko' /smc-run/modules.intree); do
			insmod "$ko" || return 1
		done
		;;
	esac
}
module_note() {
	smc_vm_has_module ||
		tap_skip_case "no SMC module of the test VM's to unload (SMC_MODULE=${SMC_MODULE:-unset})"
	tap_assert "the SMC module unloads" smc_unload
	smc_pnet >/dev/null 2>&1 && tap_fail "smc_pnet still works with the module unloaded"
	smc_rnics >"$out" 2>"$err"
	rc=$?
	tap_expect "the SMC module loads again" smc_load
	sed 's/^/# /' "$out" "$err"
	[ $rc = 0 ] || tap_fail "status $rc"
	grep -q ' rxe0 ' "$out" || tap_fail "rxe0 is missing without the module parts"
	grep -q '^smc_rnics: note: PNET IDs and ISM devices unknown: SMC module not loaded' "$err" ||
		tap_fail "note: $(cat "$err")"
	return 0
}

# smc_chk -i: the interface's index, its RDMA port, and the verdict.
iface_report() {
	command -v smc_chk >/dev/null || smc_missing "smc_chk is not installed"
	smc_chk -i eth0 >"$out" 2>"$err"
	rc=$?
	sed 's/^/# /' "$out"
	[ $rc = 0 ] || tap_fail "status $rc"
	grep -qx "Interface eth0 (index $(cat /sys/class/net/eth0/ifindex))" "$out" || tap_fail "no interface line"
	grep -q "^  rxe0 port 1: ACTIVE, interface eth0, PNET ID -: usable " "$out" || tap_fail "rxe0 is not usable"
	grep -qx "SMC-R: possible over rxe0 port 1" "$out" || tap_fail "no SMC-R verdict"
	if smc_pnet >/dev/null 2>&1; then
		grep -qx "  PNET ID: none" "$out" || tap_fail "eth0 should have no PNET ID"
	else
		grep -q "^Note: PNET IDs and ISM devices unknown: SMC module not loaded" "$out" ||
			tap_fail "no note about the module"
	fi
	smc_chk -i nosuch0 >"$out" 2>&1
	rc=$?
	[ $rc = 1 ] || tap_fail "an unknown interface gives status $rc, not 1"
	grep -qx "Interface nosuch0: no such interface" "$out" || tap_fail "$(cat "$out")"
	return 0
}

row_goes() {
	rdma link delete rxe0 || tap_fail "cannot delete rxe0"
	tap_wait_for 10 sh -c '! [ -e /sys/class/infiniband/rxe0 ]'
	smc_rnics -r >"$out" 2>"$err" || tap_fail "status $?"
	grep -q ' rxe0 ' "$out" && tap_fail "rxe0 is still listed"
	return 0
}

tap_case "smc_rnics: rxe0 row matches rdma and sysfs" 90 rxe_row
tap_case "smc_rnics -j: rxe0 object matches" 60 json_object
tap_case "smc_rnics: PNET ID from smc_pnet" 60 pnet_id
tap_case "smc_rnics with the SMC module unloaded: note, status 0" 60 module_note
tap_case "smc_chk -i eth0: rxe0 usable for SMC-R" 60 iface_report
tap_case "smc_rnics: deleted device is gone" 60 row_goes
tap_done
