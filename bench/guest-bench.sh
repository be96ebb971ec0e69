#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# bench/guest-bench.sh SECONDS: runs inside one VM (scripts/bench starts it).
# TCP over loopback against SMC-D over the loopback ISM device, measured in
# the same run with unmodified sockperf and qperf (moved onto AF_SMC by
# smc_run), smc-connrate and the programs of guest-programs.sh, then TCP
# against SMC-R over the same veth of topology 1, at MTU 1500 and 9000.
# Prints "RESULT name tcp smc unit" (SMC-D), "RESULT_R ..." (SMC-R) and
# "RESULT_J ..." (SMC-R, jumbo frames) lines for scripts/bench.
t=${1:-5}
here=$(cd "$(dirname "$0")" && pwd)
# The loopback ISM device is on by default; say so if it is not.
[ "$(cat /sys/module/af_smc/parameters/loopback_ism)" = Y ] ||
	{ echo "bench: af_smc has no loopback ISM device (loopback_ism=0)"; exit 1; }

sockperf server -i 127.0.0.1 -p 11111 --tcp >/dev/null 2>&1 &
tcp_server=$!
smc_run sockperf server -i 127.0.0.1 -p 11112 --tcp >/dev/null 2>&1 &
smc_server=$!
sleep 1

# One sockperf client run; prints its summary value (nothing if it failed,
# which the table shows as n/a). A hung run is cut off.
limit=$((t + 20))
tp() {	# port [smc_run] -> MBps; 65506 B is sockperf's largest TCP message
	timeout "$limit" $2 sockperf tp -i 127.0.0.1 -p "$1" --tcp -m 65506 -t "$t" 2>&1 |
		sed -n 's/.*BandWidth is \([0-9.]*\) MBps.*/\1/p' | tail -n 1
}
pp() {	# port msgsize [smc_run] -> average latency in usec
	timeout "$limit" $3 sockperf pp -i 127.0.0.1 -p "$1" --tcp -m "$2" -t "$t" 2>&1 |
		sed -n 's/.*avg-latency=\([0-9.]*\).*/\1/p' | tail -n 1
}

# 1-byte latency: sockperf cannot send less than its 14-byte header, so
# qperf's tcp_lat (qlat, bench/qperf.sh) does it.
work=$(mktemp -d)
# shellcheck source=qperf.sh
. "$here/qperf.sh"
qperf -lp 19765 >/dev/null 2>&1 &
qtcp_server=$!
smc_run qperf -lp 19766 >/dev/null 2>&1 &
qsmc_server=$!

# Prove the SMC side is SMC-D: a connection held open during a listing.
timeout 20 smc_run sockperf pp -i 127.0.0.1 -p 11112 --tcp -m 14 -t 3 >/dev/null 2>&1 &
sleep 1
mode=$(smcss -a | awk '$1 == "ACTIVE" { print $NF; exit }')
echo "MODE $mode"
wait $!

echo "RESULT throughput_64KiB $(tp 11111) $(tp 11112 smc_run) MB/s"
# sockperf's smallest message is 14 bytes (its header).
echo "RESULT latency_14B $(pp 11111 14) $(pp 11112 14 smc_run) us"
echo "RESULT latency_1KiB $(pp 11111 1024) $(pp 11112 1024 smc_run) us"
q_tcp=$(qlat 127.0.0.1 19765)
echo "MODE_1B_TCP $(cat "$work/qmodes")"
q_smc=$(qlat 127.0.0.1 19766 smc_run)
echo "MODE_1B $(cat "$work/qmodes")"
echo "RESULT latency_1B_qperf $q_tcp $q_smc us"
# Connection set-up: smc-connrate over TCP, then over SMC, its rate and
# where a connection's time went (its phases line). Lines "RESULT$1
# connections tcp smc conn/s", "PHASES$1 TCP ...", "PHASES$1 $2 ...".
connrate() {	# line-suffix smc-name [smc-connrate options]
	sfx=$1 name=$2
	shift 2
	"$here/smc-connrate" -f inet -s "$t" "$@" >"$work/cr_tcp"
	"$here/smc-connrate" -f smc -s "$t" "$@" >"$work/cr_smc"
	echo "RESULT$sfx connections $(sed -n 's/.*rate \([0-9.]*\).*/\1/p' "$work/cr_tcp")" \
		"$(sed -n 's/.*rate \([0-9.]*\).*/\1/p' "$work/cr_smc") conn/s"
	echo "PHASES$sfx TCP $(sed -n 's/^phases_us //p' "$work/cr_tcp")"
	echo "PHASES$sfx $name $(sed -n 's/^phases_us //p' "$work/cr_smc")"
}
connrate "" SMC-D

# The programs users run (nginx/wrk, redis-benchmark, iperf3), same VM.
"$here/guest-programs.sh" "$t"

# The same throughput with 256 KiB receive rings: net.smc.rmem sizes the
# ring of a socket that does not set SO_RCVBUF (default 64 KiB, as Linux),
# while TCP autotunes its buffers to megabytes. Upstream's loopback-ism
# figures were taken with 1 MB buffers. The sysctl is read when a
# connection is made, so a second server started now gets the big ring.
sysctl -q -w net.smc.rmem=262144
smc_run sockperf server -i 127.0.0.1 -p 11113 --tcp >/dev/null 2>&1 &
big_server=$!
sleep 1
echo "RESULT throughput_64KiB_rmem256K $(tp 11111) $(tp 11113 smc_run) MB/s"
sysctl -q -w net.smc.rmem=65536
kill "$big_server" 2>/dev/null
wait "$big_server" 2>/dev/null
# By pid: busybox ash has no job specs (%1) in a script, and a bare wait
# would then wait for the servers forever.
kill "$tcp_server" "$smc_server" "$qtcp_server" "$qsmc_server" 2>/dev/null
wait "$tcp_server" "$smc_server" "$qtcp_server" "$qsmc_server" 2>/dev/null

# ---- SMC-R against TCP over the same virtual link -------------------------
# Topology 1 (selftests/lib/topology.sh, topo_veth_rxe): 10.43.2.1 on smcv1
# with rxev1, 10.43.2.2 on smcv2 with rxev2, policy routing over the veth.
# TCP from 10.43.2.1 to 10.43.2.2 crosses the veth; SMC-R between the same
# addresses puts its data on rxev1/rxev2, whose RoCE packets cross the same
# veth. af_smc is reloaded with smcr=1 loopback_ism=0 (a client proposes
# SMC-R only without an SMC-D device). Lines: "MODE_R", "RESULT_R ...".
# shellcheck source=../selftests/lib/topology.sh
. "$here/../selftests/lib/topology.sh"
# shellcheck source=../selftests/lib/module.sh
. "$here/../selftests/lib/module.sh"
srv=$TOPO_VETH_IP4_2
smc_module_reload smcr=1 loopback_ism=0 ||
	{ echo "bench: cannot reload af_smc with smcr=1 loopback_ism=0"; exit 1; }
topo_veth_rxe || { echo "bench: topology 1 could not be set up"; exit 1; }
tpr() {	# port [smc_run] -> MBps, to the server on smcv2
	timeout "$limit" $2 sockperf tp -i "$srv" -p "$1" --tcp -m 65506 -t "$t" 2>&1 |
		sed -n 's/.*BandWidth is \([0-9.]*\) MBps.*/\1/p' | tail -n 1
}
ppr() {	# port msgsize [smc_run] -> average latency in usec
	timeout "$limit" $3 sockperf pp -i "$srv" -p "$1" --tcp -m "$2" -t "$t" 2>&1 |
		sed -n 's/.*avg-latency=\([0-9.]*\).*/\1/p' | tail -n 1
}
rxe_pkts() {
	cat /sys/class/infiniband/rxev1/ports/1/hw_counters/sent_pkts
}
sockperf server -i "$srv" -p 11121 --tcp >/dev/null 2>&1 &
tcp_server=$!
smc_run sockperf server -i "$srv" -p 11122 --tcp >/dev/null 2>&1 &
smc_server=$!
sleep 1
timeout 30 smc_run sockperf pp -i "$srv" -p 11122 --tcp -m 14 -t 3 >/dev/null 2>&1 &
sleep 2
mode=$(smcss -a | awk '$1 == "ACTIVE" { print $NF; exit }')
echo "MODE_R $mode"
wait $!
r0=$(rxe_pkts)
tcp_tp=$(tpr 11121)
r1=$(rxe_pkts)
smc_tp=$(tpr 11122 smc_run)
r2=$(rxe_pkts)
# RoCE packets rxev1 sent during each run: ~0 for TCP, many for SMC-R.
echo "RXE_R tcp $((r1 - r0)) smcr $((r2 - r1))"
echo "RESULT_R throughput_64KiB $tcp_tp $smc_tp MB/s"
echo "RESULT_R latency_14B $(ppr 11121 14) $(ppr 11122 14 smc_run) us"
echo "RESULT_R latency_1KiB $(ppr 11121 1024) $(ppr 11122 1024 smc_run) us"
kill "$tcp_server" "$smc_server" 2>/dev/null
wait "$tcp_server" "$smc_server" 2>/dev/null
# 1 byte with qperf, as above (started now: the module was reloaded).
qperf -lp 19775 >/dev/null 2>&1 &
qtcp_server=$!
smc_run qperf -lp 19776 >/dev/null 2>&1 &
qsmc_server=$!
sleep 1
r0=$(rxe_pkts)
q_tcp=$(qlat "$srv" 19775)
echo "MODE_R_1B_TCP $(cat "$work/qmodes")"
r1=$(rxe_pkts)
q_smc=$(qlat "$srv" 19776 smc_run)
echo "MODE_R_1B $(cat "$work/qmodes")"
r2=$(rxe_pkts)
echo "RXE_R_1B tcp $((r1 - r0)) smcr $((r2 - r1))"
echo "RESULT_R latency_1B_qperf $q_tcp $q_smc us"
# Connection set-up over SMC-R, as above over SMC-D. That every connection
# of the SMC run was SMC-R comes from af_smc's own counters (smcr stats:
# SMC connections, counted by both ends here, and TCP fallbacks), read
# before and after (the TCP run moves neither): "CONNS_R count smc fallback".
smcr_stat() {	# the count on the "smcr stats" line that starts with $1
	smcr stats | awk -v k="$1" '$0 ~ "^ *" k " " { for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+$/) { print $i; exit } }'
}
s0=$(smcr_stat "SMC connections")
f0=$(smcr_stat "TCP fallback")
connrate _R SMC-R -a "$srv" -b "$TOPO_VETH_IP4_1"
s1=$(smcr_stat "SMC connections")
f1=$(smcr_stat "TCP fallback")
echo "CONNS_R $(sed -n 's/^connections \([0-9]*\).*/\1/p' "$work/cr_smc") smc $((s1 - s0)) fallback $((f1 - f0))"

# ---- SMC-R against raw verbs on the same rxe pair ---------------------------
# RDMA WRITEs between rxev1 and rxev2, with nothing on top, are the limit of
# SMC-R on this device: it moves data by RDMA WRITE and adds its CDC
# message, its copies and its wakeups. qperf's rc_rdma_write_bw (64 KiB
# messages) and rc_rdma_write_lat (1 byte) connect through the RDMA CM
# (-cm1: rxe has no LIDs), which needs rdma_ucm and what it loads (the chk
# area's copies of the image's modules; the base image loads only rdma_rxe
# and ib_uverbs). SMC-R is measured with qperf too, tcp_bw and tcp_lat
# under smc_run, in the same breath. Lines "RESULT_V name verbs smcr unit".
# shellcheck source=../selftests/lib/tap.sh
. "$here/../selftests/lib/tap.sh"
# shellcheck source=../selftests/chk/lib.sh
. "$here/../selftests/chk/lib.sh"
# rxe_resent: what rxev2 received twice (duplicate_request) and how often
# rxev1 went back to resend (completer_retry_err): "DUP RETRY".
rxe_resent() {
	echo "$(cat /sys/class/infiniband/rxev2/ports/1/hw_counters/duplicate_request)" \
		"$(cat /sys/class/infiniband/rxev1/ports/1/hw_counters/completer_retry_err)"
}
# resent_line NAME DUP0 RETRY0: "RESENT NAME dup D retry R" since DUP0 RETRY0.
resent_line() {
	# shellcheck disable=SC2046 # two numbers
	set -- "$1" "$2" "$3" $(rxe_resent)
	echo "RESENT $1 dup $(($4 - $2)) retry $(($5 - $3))"
}
if why=$(chk_load_rdma_cm); then
	v_bw=$(qbw "$srv" 19775 rc_rdma_write_bw)
	r0=$(rxe_pkts)
	# shellcheck disable=SC2046 # two numbers
	set -- $(rxe_resent)
	s_bw=$(qbw "$srv" 19776 tcp_bw smc_run)
	echo "RXE_V smcr $(($(rxe_pkts) - r0))"
	resent_line V "$1" "$2"
	v_lat=$(qlat "$srv" 19775 "" rc_rdma_write_lat)
	# A failed run is 0, which the table shows as n/a.
	echo "RESULT_V throughput_64KiB_qperf ${v_bw:-0} ${s_bw:-0} MB/s"
	echo "RESULT_V latency_1B_qperf ${v_lat:-0} ${q_smc:-0} us"
	# The same throughput with the RoCE packets kept in order. rxe sends
	# a QP's packets from the CPU that runs its requester at the time,
	# and veth queues each on that CPU's backlog: a burst posted from one
	# CPU can overtake one posted just before from the other. The
	# responder then NAKs the gap and the requester resends from it (go
	# back N). qperf's raw verbs post from one thread; SMC-R posts from
	# the writer, from the work its peer's consumer update kicks and
	# from the completion handler, so it meets this far more often.
	# RPS on both veths steers each UDP flow to one CPU, so a QP's
	# packets arrive in the order they left, as on a RoCE fabric (a
	# NIC's queue pair never reorders); it also adds a CPU hop to every
	# packet, which costs the raw verbs run too. SMC-R again with 512 KiB
	# rings (net.smc.wmem/rmem; 64 KiB by default): the ring bounds the
	# bytes in flight. Lines "RESENT NAME dup D retry R", "RESULT_VO".
	for dev in smcv1 smcv2; do
		echo 3 >"/sys/class/net/$dev/queues/rx-0/rps_cpus" ||
			{ echo "bench: cannot set RPS on $dev"; exit 1; }
	done
	v_bw=$(qbw "$srv" 19775 rc_rdma_write_bw)
	# shellcheck disable=SC2046 # two numbers
	set -- $(rxe_resent)
	s_bw=$(qbw "$srv" 19776 tcp_bw smc_run)
	resent_line VO "$1" "$2"
	wmem=$(sysctl -n net.smc.wmem) rmem=$(sysctl -n net.smc.rmem)
	sysctl -q -w net.smc.wmem=524288 net.smc.rmem=524288
	r0=$(rxe_pkts)
	s_big=$(qbw "$srv" 19776 tcp_bw smc_run)
	echo "RXE_VO smcr $(($(rxe_pkts) - r0))"
	sysctl -q -w net.smc.wmem="$wmem" net.smc.rmem="$rmem"
	for dev in smcv1 smcv2; do
		echo 0 >"/sys/class/net/$dev/queues/rx-0/rps_cpus"
	done
	echo "RESULT_VO throughput_64KiB_qperf ${v_bw:-0} ${s_bw:-0} MB/s"
	echo "RESULT_VO throughput_rings512K ${v_bw:-0} ${s_big:-0} MB/s"
else
	echo "bench: no raw verbs rows: $why"
	verbs_why=$why
fi
kill "$qtcp_server" "$qsmc_server" 2>/dev/null
wait "$qtcp_server" "$qsmc_server" 2>/dev/null

# ---- The same SMC-R rows over jumbo frames ----------------------------------
# RoCE fabrics run jumbo frames. With the veth's MTU at 9000, rxe's ports
# take a path MTU of 4096 (1024 at 1500), so an RDMA WRITE of 64 KiB is 16
# packets instead of 64. TCP runs over the same 9000-byte veth. A link's
# MTU is fixed when it is made: af_smc is reloaded so that no group made
# at 1500 is reused. Lines "MTU_J", "MODE_J_1B", "RESULT_J name tcp smcr
# unit", "RESULT_JV name verbs smcr unit".
active_mtu() {	# rxe device -> its port's active MTU in bytes
	ibv_devinfo -d "$1" 2>/dev/null | sed -n 's/^[[:space:]]*active_mtu:[[:space:]]*\([0-9]*\).*/\1/p'
}
# Right after the SMC-R runs their sockets may still hold af_smc for a
# moment (their close goes on in the module's work): smc_module_reload
# tries rmmod for up to 10 s, as the selftests do. A plain rmmod failed
# here once (2026-12-02, EAGAIN right after the 512 KiB-ring row).
smc_module_reload smcr=1 loopback_ism=0 ||
	{ echo "bench: cannot reload af_smc for the jumbo-frame rows"; exit 1; }
ip link set smcv1 mtu 9000 && ip link set smcv2 mtu 9000 ||
	{ echo "bench: cannot set the veth's MTU to 9000"; exit 1; }
# rxe follows the netdev's MTU change from its notifier; bounded wait.
tries=100
until [ "$(active_mtu rxev1)" = 4096 ] && [ "$(active_mtu rxev2)" = 4096 ]; do
	tries=$((tries - 1))
	[ $tries -gt 0 ] || break
	sleep 0.1
done
echo "MTU_J $(ip -o link show smcv1 | sed -n 's/.* mtu \([0-9]*\) .*/\1/p') $(active_mtu rxev1) $(active_mtu rxev2)"
sockperf server -i "$srv" -p 11131 --tcp >/dev/null 2>&1 &
tcp_server=$!
smc_run sockperf server -i "$srv" -p 11132 --tcp >/dev/null 2>&1 &
smc_server=$!
qperf -lp 19785 >/dev/null 2>&1 &
qtcp_server=$!
smc_run qperf -lp 19786 >/dev/null 2>&1 &
qsmc_server=$!
sleep 1
echo "RESULT_J throughput_64KiB $(tpr 11131) $(tpr 11132 smc_run) MB/s"
echo "RESULT_J latency_1KiB $(ppr 11131 1024) $(ppr 11132 1024 smc_run) us"
q_tcp=$(qlat "$srv" 19785)
echo "MODE_J_1B_TCP $(cat "$work/qmodes")"
q_smc=$(qlat "$srv" 19786 smc_run)
echo "MODE_J_1B $(cat "$work/qmodes")"
echo "RESULT_J latency_1B_qperf $q_tcp $q_smc us"
if [ -z "${verbs_why:-}" ]; then
	v_bw=$(qbw "$srv" 19785 rc_rdma_write_bw)
	s_bw=$(qbw "$srv" 19786 tcp_bw smc_run)
	v_lat=$(qlat "$srv" 19785 "" rc_rdma_write_lat)
	echo "RESULT_JV throughput_64KiB_qperf ${v_bw:-0} ${s_bw:-0} MB/s"
	echo "RESULT_JV latency_1B_qperf ${v_lat:-0} ${q_smc:-0} us"
fi
kill "$tcp_server" "$smc_server" "$qtcp_server" "$qsmc_server" 2>/dev/null
wait "$tcp_server" "$smc_server" "$qtcp_server" "$qsmc_server" 2>/dev/null
rm -rf "$work"
echo "LOAD $(cat /proc/loadavg)"
exit 0
