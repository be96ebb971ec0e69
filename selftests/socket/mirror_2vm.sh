#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# socket/mirror_2vm.sh MODE PROGRAM [ARG...]: a differential program of this
# area across two VMs, by mirrored execution (lib/mirror.h): PROGRAM runs
# here on VM 0 (the clients) and on VM 1 (the listeners and the sockets
# they accept), in lockstep over a control connection on eth1 (10.42.0.x);
# the connections of the cases cross eth0 (10.43.0.1 -> 10.43.0.2).
#
# MODE tcp: the TCP families only (default -f inet,inet6): the mechanism
#   itself, as TCP must behave across two hosts as it does in one.
# MODE smcr: af_smc reloaded as "smcr=1 loopback_ism=0" on both VMs, rxe0 on
#   eth0 of both, SMC_DIFF_MODE=smcr (default -f smc): every AF_SMC
#   connection must be SMC-R by sock_diag on the VM that holds it, and rxe0's
#   RoCE counters must move on both VMs while the AF_SMC half runs; IPv4
#   (10.43.0.x) and IPv6 (fd43::x) connections both (default -f smc,smc6).
# MODE smcd: in topology 2+ivshmem (af_smc with ivshmem=1 on both VMs, one
#   region between them), a UEID in common on both VMs, SMC_DIFF_MODE=smcd
#   (default -f smc,smc6): every AF_SMC connection must be SMC-D by
#   sock_diag on the VM that holds it, over the region: VM 1's ivshmem
#   signal vector must count interrupts while the program runs.
#
# ARGs go to PROGRAM on both VMs (e.g. -f inet). VM 1's log follows VM 0's
# results as "# VM 1: ..." lines; VM 1's exit status is part of the verdict.
# PROGRAM is a program of this area, or a path under $SMC_SELFTESTS
# ("tools/smc-tapcheck": the harness self-test's VM 1 that fails).
. "$SMC_SELFTESTS/lib/module.sh"
. "$SMC_SELFTESTS/lib/topology.sh"

mode=$1 prog=$2
[ $# -ge 2 ] || { echo "Bail out! usage: mirror_2vm.sh tcp|smcr|smcd PROGRAM [ARG...]"; exit 1; }
shift 2
case "$mode" in
tcp) [ $# -gt 0 ] || set -- -f inet,inet6 ;;
smcr|smcd) [ $# -gt 0 ] || set -- -f smc,smc6 ;;
*) echo "Bail out! mode $mode: want tcp, smcr or smcd"; exit 1 ;;
esac
if [ "${SMC_VM_COUNT:-1}" -lt 2 ] || ! command -v smc-vm-exec >/dev/null; then
	echo "1..0 # SKIP needs two VMs (vm/run --vms 2)"
	exit 0
fi

CTL=10.42.0.2:4470
dir=/tmp/mirror-${prog##*/}
# Where PROGRAM is on both VMs, relative to $SMC_SELFTESTS.
case "$prog" in */*) rel=$prog ;; *) rel=socket/$prog ;; esac
env="SMC_MIRROR_CTL=$CTL SMC_TEST_LOCAL4=10.43.0.2 SMC_TEST_LOCAL6=fd43::2"
env="$env SMC_TIMEOUT_SCALE=${SMC_TIMEOUT_SCALE:-1}"
[ "$mode" = smcr ] && env="$env SMC_DIFF_MODE=smcr SMC_DIFF_RXE=rxe0"
[ "$mode" = smcd ] && env="$env SMC_DIFF_MODE=smcd"
# smcd: the ivshmem device's state in debugfs, a UEID both VMs have.
D=/sys/kernel/debug/af_smc/ivshmem
EID=SMC-IVSHMEM.MIRROR

vm1() {
	smc-vm-exec 1 "$1"
}
reload_both() {
	smc_module_reload "$@" || return 1
	vm1 "rmmod ${SMC_MODULE_NAME:-af_smc} 2>/dev/null; n=0; while grep -q '^${SMC_MODULE_NAME:-af_smc} ' /proc/modules; do n=\$((n+1)); [ \$n -lt 50 ] || exit 1; sleep 0.2; rmmod ${SMC_MODULE_NAME:-af_smc} 2>/dev/null; done; insmod \$SMC_MODULE_FILE $*"
}
# The VMs' init puts fd43::N on eth0 (vm/guest/init); the IPv6 cases use it.
v6_up() {
	ip -6 addr show dev eth0 | grep -q 'fd43::1/' && vm1 "ip -6 addr show dev eth0 | grep -q 'fd43::2/'"
}
restore() {
	restore_rc=0
	vm1 "kill \$(cat $dir/pid 2>/dev/null) 2>/dev/null; true"
	if [ "$mode" = smcr ]; then
		for d in 0 1; do
			echo "# VM $d rxe0: $( [ $d = 0 ] && sh -c 'cd /sys/class/infiniband/rxe0/ports/1/hw_counters && echo sent_pkts $(cat sent_pkts) rcvd_pkts $(cat rcvd_pkts)' ||
				vm1 'cd /sys/class/infiniband/rxe0/ports/1/hw_counters && echo sent_pkts $(cat sent_pkts) rcvd_pkts $(cat rcvd_pkts)') in all"
		done
		reload_both || { echo "# cannot reload af_smc with its defaults"; restore_rc=1; }
		topo_cleanup
	fi
	if [ "$mode" = smcd ]; then
		smcd ueid del $EID >/dev/null 2>&1
		vm1 "smcd ueid del $EID >/dev/null 2>&1; true"
	fi
	return $restore_rc
}

if [ "$mode" = smcr ]; then
	smc_module_ours ||
		{ echo "Bail out! our af_smc is not loaded (SMC_MODULE=$SMC_MODULE): SMC-R needs it"; exit 1; }
	reload_both smcr=1 loopback_ism=0 ||
		{ echo "Bail out! cannot reload af_smc with smcr=1 loopback_ism=0 on both VMs"; restore; exit 1; }
	if ! err=$(topo_vm_rxe 2>&1); then
		echo "Bail out! rxe0 on both VMs: $err"
		restore
		exit 1
	fi
	echo "# af_smc reloaded with smcr=1 loopback_ism=0 on both VMs; rxe0 on eth0 of both"
fi
if [ "$mode" = smcd ]; then
	smc_module_ours && [ -n "${SMC_IVSHMEM:-}" ] ||
		{ echo "Bail out! smcd across two VMs needs our af_smc and an ivshmem region (topology 2+ivshmem)"; exit 1; }
	# Both partitions up in both VMs' eyes.
	topo_ivshmem_up $((60 * ${SMC_TIMEOUT_SCALE:-1})) ||
		{ echo "Bail out! the ivshmem partitions are not both up: $(tr '\n' ';' <$D)"; exit 1; }
	smcd ueid add $EID >/dev/null && vm1 "smcd ueid add $EID >/dev/null" ||
		{ echo "Bail out! cannot add the UEID $EID on both VMs"; restore; exit 1; }
	irqs_before=$(topo_ivshmem_irqs 1 0)
	echo "# a UEID in common ($EID); VM 1's ivshmem signal vector at $irqs_before"
fi

v6_up || { echo "Bail out! fd43::1 or fd43::2 is missing on eth0 (vm/guest/init puts them there)"; restore; exit 1; }

# VM 1's half: serves the cases VM 0 starts, until VM 0 says it is done.
# The same cases on both (TAP_CASES, when set, may hold blanks).
cases=
[ -n "${TAP_CASES+set}" ] && cases="TAP_CASES='$TAP_CASES'"
vm1 "rm -rf $dir && mkdir -p $dir && cd \$SMC_SELFTESTS/socket && ( env $env $cases SMC_MIRROR=server \
SMC_MIRROR_READY=$dir/ready TMPDIR=$dir \$SMC_SELFTESTS/$rel $* >$dir/log 2>&1 & echo \$! >$dir/pid; wait \$!; \
echo \$? >$dir/rc ) </dev/null >/dev/null 2>&1 &" ||
	{ echo "Bail out! cannot start $prog on VM 1"; restore; exit 1; }
if ! vm1 "n=0; until [ -e $dir/ready ] || [ -e $dir/rc ]; do n=\$((n + 1)); \
[ \$n -lt 1200 ] || exit 1; sleep 0.05; done; [ -e $dir/ready ]"; then
	echo "Bail out! $prog did not start on VM 1"
	vm1 "cat $dir/log" | sed 's/^/# VM 1: /'
	restore
	exit 1
fi

cmd=$SMC_SELFTESTS/$rel
# shellcheck disable=SC2086
env $env SMC_MIRROR=client SMC_MIRROR_CLIENT4=10.43.0.1 SMC_MIRROR_CLIENT6=fd43::1 "$cmd" "$@"
rc=$?

# VM 0 told VM 1 it is done; VM 1 ends within a moment. Its half is part
# of the verdict: an exit status other than 0 (or none) fails the entry.
vm1 "n=0; until [ -e $dir/rc ]; do n=\$((n + 1)); [ \$n -lt 200 ] || break; sleep 0.05; done; \
cat $dir/log" | sed 's/^#* *//; s/^/# VM 1: /'
vm1_rc=$(vm1 "cat $dir/rc 2>/dev/null")
echo "# VM 1: exit status ${vm1_rc:-none: still running}"
if [ "$vm1_rc" != 0 ]; then
	echo "# VM 1's half of $prog failed (exit status ${vm1_rc:-none}): the entry fails"
	rc=1
fi
if [ "$mode" = smcd ]; then
	irqs_after=$(topo_ivshmem_irqs 1 0)
	echo "# VM 1's ivshmem signal vector: $irqs_before -> $irqs_after"
	[ -n "$irqs_after" ] && [ "$irqs_after" -gt "${irqs_before:-0}" ] ||
		{ echo "# no interrupt on VM 1's ivshmem device: the SMC-D half did not cross the region"; rc=1; }
fi
restore || rc=1
exit $rc
