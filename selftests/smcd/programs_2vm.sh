#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# smcd/programs_2vm.sh: unmodified programs between two VMs of topology
# 2+ivshmem, under smc_run on both, over SMC-D through af_smc's ivshmem
# device (Documentation/smc-d.md, "Between VMs"; issue 21): the servers on
# VM 1 (10.43.0.2), the clients on VM 0. For each program:
#   - its own result: iperf3 with 1 and with 8 streams moves data and says
#     how much; redis-cli reads back byte-exact a 60,000-byte value it set,
#     and redis-benchmark reports its SET and GET rates;
#   - the path: while the client runs, smcss on VM 0 lists ACTIVE
#     connections on the server's port in mode SMCD and none in TCP, and
#     VM 1's smcss lists them SMCD too; VM 1's ivshmem signal vector counts
#     interrupts; and VM 0's eth0 (the virtio-net test network) sends less
#     than 1/100 of the bytes iperf3 moved (the CLC handshake and the
#     close cross it, the data does not).
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/topology.sh"
# shellcheck source=../lib/ports.sh
. "$here/../lib/ports.sh"

topo_require_ours_2vm "the ivshmem driver is af_smc's own"
[ -n "${SMC_IVSHMEM:-}" ] || tap_skip_all "no ivshmem region (vm/run --ivshmem, topology 2+ivshmem)"
for p in smc_run smcss iperf3 redis-server redis-benchmark redis-cli; do
	command -v "$p" >/dev/null 2>&1 ||
		{ echo "Bail out! $p is not in the VM (scripts/packages.list, vm/initramfs)"; exit 1; }
done
D=/sys/kernel/debug/af_smc/ivshmem
B=$(dirname "$(command -v smcd)")
SRV=10.43.0.2
# SMC-Dv2 between two systems needs an EID in common: their SEIDs differ.
EID=SMC-IVSHMEM.PROGRAMS
work=$(mktemp -d /tmp/programs_2vm.XXXXXX) || exit 1

cleanup() {
	topo_stop_2vm /tmp/prog.pid
	for vm in 0 1; do topo_on $vm "$B/smcd ueid del $EID" >/dev/null 2>&1; done
	rm -rf "$work"
}
tap_at_exit cleanup

eth_tx() { cat /sys/class/net/eth0/statistics/tx_bytes; }

# serve PORT CMD: CMD under smc_run on VM 1, in the background (its pid in
# VM 1's /tmp/prog.pid, its output in /tmp/prog.log), listening on PORT
# within 20 s.
serve() {
	topo_stop_2vm /tmp/prog.pid
	topo_on 1 "smc_run $2 >/tmp/prog.log 2>&1 </dev/null & echo \$! >/tmp/prog.pid" ||
		{ tap_fail "cannot start '$2' on VM 1"; return 1; }
	topo_on 1 ". $here/../lib/ports.sh; n=0; until port_listening $1; do n=\$((n+1)); [ \$n -lt 200 ] || exit 1; sleep 0.1; done" &&
		return 0
	tap_fail "nothing listens on VM 1's port $1; the server said:"
	topo_on 1 "cat /tmp/prog.log" | sed 's/^/#   /'
	return 1
}

# watch PORT PID: until PID (a client on VM 0) ends, sample smcss for the
# connections on PORT here, and once on VM 1, as soon as a sample here has
# an ACTIVE SMCD connection (not after a fixed count of samples: on the
# debug kernel four samples outlasted iperf3's 3 s, and VM 1's came too
# late to list anything); then require SMCD and no TCP on both, and VM
# 1's signal vector moving.
watch() {
	_log=$work/watch.$1
	: >"$_log"
	_i0=$(topo_ivshmem_irqs 1 0)
	_n=0 _peer=
	while tap_alive "$2"; do
		smcss -a 2>/dev/null | port_conns "$1" >>"$_log"
		_n=$((_n + 1))
		[ -n "$_peer" ] || ! grep -q '^ACTIVE SMCD$' "$_log" ||
			_peer=$(topo_on 1 "smcss -a" | port_conns "$1" | sort | uniq -c | tr -s ' \n' ' ')
		sleep 0.3
	done
	_i1=$(topo_ivshmem_irqs 1 0)
	_smc=$(grep -c '^ACTIVE SMCD$' "$_log")
	_tcp=$(grep -c ' TCP$' "$_log")
	tap_diag "port $1: $_n smcss samples on VM 0: $_smc SMCD, $_tcp TCP; VM 1 listed:${_peer:- nothing}; VM 1's signal vector $_i0 -> $_i1"
	[ "$_tcp" = 0 ] || { tap_fail "connections on port $1 fell back to TCP:"; sort -u "$_log"; }
	[ "$_smc" -gt 0 ] || { tap_fail "no ACTIVE SMCD connection on port $1 while the client ran:"; sort -u "$_log"; }
	case "$_peer" in
	*ACTIVE\ SMCD*) echo "$_peer" | grep -q ' TCP' && tap_fail "VM 1 listed TCP connections on port $1" ;;
	*) tap_fail "VM 1 listed no ACTIVE SMCD connection on port $1" ;;
	esac
	[ -n "$_i0" ] && [ -n "$_i1" ] && [ "$_i1" -gt "$_i0" ] ||
		tap_fail "VM 1's ivshmem signal vector did not move ($_i0 -> $_i1)"
}

# Both VMs' partitions up in each VM's eyes, and a UEID in common.
ready() {
	topo_ivshmem_up "$(tap_scaled 60)" ||
		tap_fail "the partitions are not up: VM 0 $(tr '\n' ';' <$D) VM 1 $(topo_on 1 "cat $D" | tr '\n' ';')"
	for vm in 0 1; do
		topo_on $vm "$B/smcd ueid add $EID" || tap_assert "UEID $EID on VM $vm" false
	done
}

# iperf3 STREAMS: a 3 s run (times SMC_TIMEOUT_SCALE: on the debug kernel
# VM 1's smcss, asked for as soon as VM 0 saw the connection, came after
# a 3 s run had ended and listed nothing); the bytes it moved against
# what eth0 sent.
iperf3_case() {
	port=$((5210 + $1))
	serve $port "iperf3 -s -1 -B $SRV -p $port" || return 0
	e0=$(eth_tx)
	timeout "$(tap_scaled 120)" smc_run iperf3 -c $SRV -p $port -t "$(tap_scaled 3)" -P "$1" -f k >"$work/iperf3" 2>&1 &
	cpid=$!
	watch $port $cpid
	wait $cpid || { tap_fail "iperf3 client failed:"; sed 's/^/#   /' "$work/iperf3"; return 0; }
	e1=$(eth_tx)
	# The receiver's line of the sum (or of the one stream): bytes, unit.
	# %.0f: busybox awk's %d stops at 2^31 - 1, and the debug kernel's
	# 12 s run moved 2.03 GB ("-2147483648 bytes received").
	moved=$(awk '/receiver/ { n = $(NF - 4); u = $(NF - 3) } END {
		m = (u == "GBytes") ? 1073741824 : (u == "MBytes") ? 1048576 : (u == "KBytes") ? 1024 : 1
		printf "%.0f\n", n * m }' "$work/iperf3")
	rate=$(awk '/receiver/ { r = $(NF - 2) } END { print int(r) }' "$work/iperf3")
	tap_diag "iperf3, $1 stream(s): $rate Kbit/s, $moved bytes received; eth0 sent $((e1 - e0)) bytes meanwhile"
	[ "${moved:-0}" -gt 0 ] || { tap_fail "iperf3 moved no data:"; sed 's/^/#   /' "$work/iperf3"; return 0; }
	[ $((e1 - e0)) -lt $((moved / 100)) ] ||
		tap_fail "eth0 sent $((e1 - e0)) bytes for iperf3's $moved: the data crossed virtio-net"
}

redis_case() {
	port=6390
	serve $port "redis-server --port $port --bind $SRV --save '' --appendonly no --protected-mode no --daemonize no" ||
		return 0
	# A value that no single write carries, read back exactly.
	value=$(head -c 30000 /dev/urandom | od -An -tx1 | tr -d ' \n')
	[ "$(smc_run redis-cli -h $SRV -p $port set smc-key "$value")" = OK ] || tap_fail "redis-cli set"
	[ "$(smc_run redis-cli -h $SRV -p $port get smc-key)" = "$value" ] ||
		tap_fail "redis-cli get returned something else than was set"
	timeout "$(tap_scaled 120)" smc_run redis-benchmark -h $SRV -p $port -n 4000 -c 8 -d 1024 \
		-t set,get -q >"$work/redis" 2>&1 &
	cpid=$!
	watch $port $cpid
	wait $cpid || tap_fail "redis-benchmark failed"
	tr '\r' '\n' <"$work/redis" | grep 'requests per second' | sed 's/^/# /'
	n=$(tr '\r' '\n' <"$work/redis" | grep -c '^[A-Z]*: [0-9.]* requests per second')
	[ "$n" = 2 ] || { tap_fail "redis-benchmark did not report SET and GET:"; sed 's/^/#   /' "$work/redis"; }
}

tap_plan 4
tap_case "both partitions up on both VMs, a UEID in common (SMC-Dv2 between systems)" 120 ready
tap_case "iperf3, 1 stream, VM 0 to VM 1: SMCD on both VMs, through the region, not eth0" 120 iperf3_case 1
tap_case "iperf3, 8 streams: the same" 120 iperf3_case 8
tap_case "redis: a 60,000-byte value set and read back byte-exact, redis-benchmark SET and GET, SMCD on both VMs" 180 redis_case
tap_done
