#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# bench/guest-ab-smcr.sh ROUNDS SECONDS MODULE...: runs inside one VM
# (scripts/bench-ab starts it). Two or more builds of af_smc, loaded in
# turn ROUNDS times (A, B, A, B, ...), each measured over SMC-R on topology
# 1 beside raw RDMA WRITEs on the same rxe pair, in the same breath: qperf
# tcp_lat (1 byte) and tcp_bw (64 KiB) under smc_run against
# rc_rdma_write_lat and rc_rdma_write_bw. One change's effect shows in the
# ratios to the raw verbs of its own turn, which the boot, the host's load
# and rxe's moods move alike. Prints one "AB" line per turn.
rounds=$1 t=$2
shift 2
here=$(cd "$(dirname "$0")" && pwd)
limit=$((t + 20))
work=$(mktemp -d)
# shellcheck source=qperf.sh
. "$here/qperf.sh"
# shellcheck source=../selftests/lib/tap.sh
. "$here/../selftests/lib/tap.sh"
# shellcheck source=../selftests/lib/topology.sh
. "$here/../selftests/lib/topology.sh"
# shellcheck source=../selftests/lib/module.sh
. "$here/../selftests/lib/module.sh"
# shellcheck source=../selftests/chk/lib.sh
. "$here/../selftests/chk/lib.sh"
srv=$TOPO_VETH_IP4_2

# The client link's WRITEs and, where the build counts them, how many went
# unsignaled (debugfs smcr_lgr; "-" where it has no such field).
writes() {
	awk '$1 == "lgr" && / role client / {
		for (i = 1; i < NF; i++) {
			if ($i == "writes") w += $(i + 1)
			if ($i == "writes_unsignaled") { u += $(i + 1); seen = 1 }
		}
	} END { printf "%d %s\n", w, seen ? u : "-" }' /sys/kernel/debug/af_smc/smcr_lgr 2>/dev/null
}

# The first load makes the topology, which outlives later reloads.
SMC_MODULE_FILE=$1 smc_module_reload smcr=1 loopback_ism=0 ||
	{ echo "ab: cannot load $1"; exit 1; }
topo_veth_rxe || { echo "ab: topology 1 could not be set up"; exit 1; }
why=$(chk_load_rdma_cm) || { echo "ab: no raw verbs: $why"; exit 1; }
round=1
while [ "$round" -le "$rounds" ]; do
	for mod in "$@"; do
		# A reload: each turn's groups are its own (debugfs counts).
		SMC_MODULE_FILE=$mod smc_module_reload smcr=1 loopback_ism=0 ||
			{ echo "ab: cannot load $mod"; exit 1; }
		qperf -lp 19795 >/dev/null 2>&1 &
		vsrv=$!
		smc_run qperf -lp 19796 >/dev/null 2>&1 &
		ssrv=$!
		sleep 1
		v_lat=$(qlat "$srv" 19795 "" rc_rdma_write_lat)
		s_lat=$(qlat "$srv" 19796 smc_run)
		modes=$(cat "$work/qmodes")
		w0=$(writes)
		s_bw=$(qbw "$srv" 19796 tcp_bw smc_run)
		w1=$(writes)
		v_bw=$(qbw "$srv" 19795 rc_rdma_write_bw)
		kill "$vsrv" "$ssrv" 2>/dev/null
		wait "$vsrv" "$ssrv" 2>/dev/null
		echo "AB round $round module $(basename "$mod") lat_verbs ${v_lat:-0}" \
			"lat_smcr ${s_lat:-0} bw_verbs ${v_bw:-0} bw_smcr ${s_bw:-0}" \
			"writes_after_lat $w0 writes_after_bw $w1 modes $modes"
	done
	round=$((round + 1))
done
rm -rf "$work"
echo "LOAD $(cat /proc/loadavg)"
