# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# bench/qperf.sh: qperf runs for the in-guest bench scripts, sourced by
# guest-bench.sh and guest-ab-smcr.sh. The caller sets t (seconds per run),
# limit (a run's bound in seconds) and work (a scratch directory), and
# starts the qperf servers (under smc_run for SMC).

# qperf's option for TEST: raw verbs connect through the RDMA CM (rxe has
# no LIDs; the guest needs rdma_ucm, chk_load_rdma_cm), the socket tests
# need nothing.
qperf_cm() { case "$1" in rc_*) echo -cm1 ;; esac; }

# qlat HOST PORT [smc_run] [TEST]: 1-byte latency, qperf's tcp_lat by
# default (unmodified, under smc_run for SMC) with -m 1; -v echoes the
# message size, which must be 1. The listing taken while the run goes on
# proves what the measured connections were: with smc_run, every ACTIVE
# AF_SMC connection (qperf's control and data connections, both ends) is
# printed as "COUNT MODE" into $work/qmodes; for TCP the list must be
# empty. TEST rc_rdma_write_lat: raw verbs. Prints the average latency in
# usec (nothing if the run failed).
qlat() {
	# shellcheck disable=SC2046 # qperf_cm prints no word or one
	timeout "$limit" $3 qperf $(qperf_cm "${4:-}") -lp "$2" -uu -v -m 1 -t "$t" "$1" "${4:-tcp_lat}" \
		>"$work/qperf" 2>&1 &
	_q=$!
	sleep $(( (t + 1) / 2 ))
	smcss -a | awk '$1 == "ACTIVE" { print $NF }' | sort | uniq -c | tr -s ' \n' ' ' >"$work/qmodes"
	wait $_q
	grep -q 'msg_size *= *1 bytes' "$work/qperf" &&
		sed -n 's/^ *latency *= *\([0-9.]*\) ns.*/\1/p' "$work/qperf" |
		awk '{ printf "%.1f\n", $1 / 1000 }'
}

# qbw HOST PORT TEST [smc_run]: 64 KiB messages, in MB/s (qperf's -uu
# gives bytes/s); TEST tcp_bw (under smc_run for SMC) or rc_rdma_write_bw.
qbw() {
	# shellcheck disable=SC2046 # qperf_cm prints no word or one
	timeout "$limit" $4 qperf $(qperf_cm "$3") -lp "$2" -uu -m 64K -t "$t" "$1" "$3" 2>&1 |
		sed -n 's/^ *bw *= *\([0-9.]*\) bytes\/sec.*/\1/p' |
		awk '{ printf "%.3f\n", $1 / 1000000 }'
}
