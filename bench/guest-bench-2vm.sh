#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# bench/guest-bench-2vm.sh SECONDS: runs on VM 0 of two VMs that share an
# ivshmem region (scripts/bench starts them: vm/run --vms 2 --ivshmem 16).
# TCP between the VMs over their virtio-net test network (10.43.0.1 to
# 10.43.0.2, eth0) against SMC-D between the same addresses over af_smc's
# ivshmem device (Documentation/smc-d.md, "Between VMs"), measured in the
# same run with unmodified sockperf and qperf (moved onto AF_SMC by
# smc_run on both VMs) and smc-connrate's two halves. Prints
# "RESULT_I name tcp smc unit" lines for scripts/bench, and what proves
# the SMC side's path: "MODE_I" (smcss on each VM during a run), "IRQ_I"
# (VM 1's ivshmem interrupts during the SMC-D throughput run) and "ETH_I"
# (bytes VM 0's eth0 sent during the TCP and the SMC-D throughput runs).
t=${1:-5}
here=$(cd "$(dirname "$0")" && pwd)
srv=10.43.0.2
D=/sys/kernel/debug/af_smc/ivshmem
# SMC-Dv2 between two systems needs an EID in common: their SEIDs differ.
eid=SMC-IVSHMEM.BENCH

[ "${SMC_IVSHMEM:-}" ] || { echo "bench: no ivshmem region (vm/run --ivshmem)"; exit 1; }
# shellcheck source=../selftests/lib/topology.sh
. "$here/../selftests/lib/topology.sh"
# Both VMs' partitions up in both VMs' eyes: each VM's driver has bound and
# claimed one (within a few heartbeats of boot).
topo_ivshmem_up 30 || { echo "bench: the ivshmem partitions are not both up:"; cat $D; exit 1; }
smcd ueid add $eid >/dev/null && topo_on 1 "smcd ueid add $eid >/dev/null" ||
	{ echo "bench: cannot add the UEID $eid"; exit 1; }

# The servers on VM 1; by pid file, so that they can be stopped before the
# harness's rmmod there.
topo_on 1 "sockperf server -i $srv -p 11111 --tcp >/dev/null 2>&1 & echo \$! >/tmp/b.pids
smc_run sockperf server -i $srv -p 11112 --tcp >/dev/null 2>&1 & echo \$! >>/tmp/b.pids
qperf -lp 19765 >/dev/null 2>&1 & echo \$! >>/tmp/b.pids
smc_run qperf -lp 19766 >/dev/null 2>&1 & echo \$! >>/tmp/b.pids
$here/smc-connrate -l -f inet -a $srv -p 17001 >/dev/null 2>&1 & echo \$! >>/tmp/b.pids
$here/smc-connrate -l -f smc -a $srv -p 17002 >/dev/null 2>&1 & echo \$! >>/tmp/b.pids" ||
	{ echo "bench: cannot start the servers on VM 1"; exit 1; }
sleep 2

limit=$((t + 20))
work=$(mktemp -d)
tp() {	# port [smc_run] -> MBps; 65506 B is sockperf's largest TCP message
	timeout "$limit" $2 sockperf tp -i $srv -p "$1" --tcp -m 65506 -t "$t" 2>&1 |
		sed -n 's/.*BandWidth is \([0-9.]*\) MBps.*/\1/p' | tail -n 1
}
pp() {	# port msgsize [smc_run] -> average latency in usec
	timeout "$limit" $3 sockperf pp -i $srv -p "$1" --tcp -m "$2" -t "$t" 2>&1 |
		sed -n 's/.*avg-latency=\([0-9.]*\).*/\1/p' | tail -n 1
}
qlat() {	# port [smc_run] -> qperf tcp_lat of 1-byte messages, usec
	timeout "$limit" $2 qperf -lp "$1" -uu -v -m 1 -t "$t" $srv tcp_lat >"$work/qperf" 2>&1
	grep -q 'msg_size *= *1 bytes' "$work/qperf" &&
		sed -n 's/^ *latency *= *\([0-9.]*\) ns.*/\1/p' "$work/qperf" |
		awk '{ printf "%.1f\n", $1 / 1000 }'
}
# The ACTIVE AF_SMC connections smcss lists, as "COUNT MODE" pairs.
modes() { smcss -a | awk '$1 == "ACTIVE" { print $NF }' | sort | uniq -c | tr -s ' \n' ' '; }
eth_tx() { cat /sys/class/net/eth0/statistics/tx_bytes; }

# Prove the SMC side is SMC-D over the region: a connection held open
# while each VM lists its connections.
timeout 20 smc_run sockperf pp -i $srv -p 11112 --tcp -m 14 -t 3 >/dev/null 2>&1 &
sleep 1.5
echo "MODE_I $(modes) / $(topo_on 1 "smcss -a" | awk '$1 == "ACTIVE" { print $NF }' | sort | uniq -c | tr -s ' \n' ' ')"
wait $!

e0=$(eth_tx)
r_tcp=$(tp 11111)
e1=$(eth_tx)
i0=$(topo_ivshmem_irqs 1 0)
r_smc=$(tp 11112 smc_run)
i1=$(topo_ivshmem_irqs 1 0)
e2=$(eth_tx)
echo "ETH_I tcp $((e1 - e0)) smc $((e2 - e1))"
echo "IRQ_I ${i0:-?} ${i1:-?}"
echo "RESULT_I throughput_64KiB $r_tcp $r_smc MB/s"
echo "RESULT_I latency_14B $(pp 11111 14) $(pp 11112 14 smc_run) us"
echo "RESULT_I latency_1KiB $(pp 11111 1024) $(pp 11112 1024 smc_run) us"
echo "RESULT_I latency_1B_qperf $(qlat 19765) $(qlat 19766 smc_run) us"
"$here/smc-connrate" -r -f inet -a $srv -p 17001 -s "$t" >"$work/cr_tcp"
"$here/smc-connrate" -r -f smc -a $srv -p 17002 -s "$t" >"$work/cr_smc"
echo "RESULT_I connections $(sed -n 's/.*rate \([0-9.]*\).*/\1/p' "$work/cr_tcp")" \
	"$(sed -n 's/.*rate \([0-9.]*\).*/\1/p' "$work/cr_smc") conn/s"
echo "PHASES_I TCP $(sed -n 's/^phases_us //p' "$work/cr_tcp")"
echo "PHASES_I SMC-D $(sed -n 's/^phases_us //p' "$work/cr_smc")"
# af_smc's own count of the SMC-D connections and fallbacks on VM 0.
echo "STATS_I $(smcd stats 2>/dev/null | grep -iE 'connections|fallback' | tr -s ' \n' ' ')"

topo_on 1 "kill \$(cat /tmp/b.pids) 2>/dev/null; sleep 1; smcd ueid del $eid >/dev/null 2>&1; true"
smcd ueid del $eid >/dev/null 2>&1
echo "LOAD_I $(cut -d' ' -f1-3 /proc/loadavg)"
rm -rf "$work"
