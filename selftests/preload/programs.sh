#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# preload/programs.sh: unmodified Debian programs under smc_run really use
# SMC-D over the loopback ISM device in one VM, and the same commands still
# work over TCP with af_smc unloaded.
#
# Programs: iperf3, sockperf, redis-server with redis-benchmark and
# redis-cli, nginx with curl and wrk. Every server and client runs under
# smc_run. "Really SMC-D" is not assumed: while each client runs, smcss (our
# tool, over sock_diag) must list an ACTIVE connection on the server's port in
# mode SMCD, and no connection on that port may have fallen back to TCP.
# Each program's own result is checked too (bytes moved, requests answered,
# a file fetched byte-exact).
#
# Needs our module (topology 1): it reloads af_smc with loopback_ism=1 when
# the device is off, and puts the module back as it found it at the end.
#
# programs.sh smcr: the same programs over SMC-R between the two endpoints
# of topology 1 (run it under tools/smcr-topo1.sh, which sets the module
# and the network up): every server listens on $SMC_TOPO1_SERVER
# (10.43.2.2, smcv2/rxev2), every client connects to it from 10.43.2.1
# (smcv1/rxev1), and smcss must see mode SMCR on the server's port; the
# RoCE counters of rxev1 and rxev2 must move during each program. The runs
# without the module are left to the SMC-D mode.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
# shellcheck source=../lib/nginx.sh
. "$here/../lib/nginx.sh"
# shellcheck source=../lib/ports.sh
. "$here/../lib/ports.sh"

want=SMCD
host=127.0.0.1
if [ "${1-}" = smcr ]; then
	want=SMCR
	host=${SMC_TOPO1_SERVER-}
	[ -n "$host" ] || { echo "Bail out! programs.sh smcr runs under smcr-topo1.sh (no SMC_TOPO1_SERVER)"; exit 1; }
fi

export PATH="/smc/bin:$PATH"
work=$(mktemp -d /tmp/programs.XXXXXX) || exit 1
tap_at_exit "rm -rf '$work'"
probe=$here/smc-preload-probe

for p in smc_run smcss iperf3 sockperf redis-server redis-benchmark redis-cli nginx curl wrk; do
	command -v "$p" >/dev/null 2>&1 ||
		{ echo "Bail out! $p is not in the VM (scripts/packages.list, vm/initramfs)"; exit 1; }
done
[ -n "${SMC_MODULE_FILE-}" ] && [ -f "$SMC_MODULE_FILE" ] ||
	{ echo "Bail out! SMC_MODULE_FILE is not set; this test needs af_smc"; exit 1; }

param=/sys/module/af_smc/parameters/loopback_ism
load_with_ism() {
	rmmod af_smc 2>/dev/null
	insmod "$SMC_MODULE_FILE" loopback_ism=1
}
if [ $want = SMCD ] && [ "$(cat "$param" 2>/dev/null)" != Y ]; then
	load_with_ism || { echo "Bail out! cannot load af_smc with loopback_ism=1"; exit 1; }
	# The next tests in this VM expect af_smc as the harness loaded it.
	tap_at_exit 'rmmod af_smc 2>/dev/null; insmod "$SMC_MODULE_FILE"'
fi

# Connections on TCP port $1, one "STATE MODE" line each, from smcss -a.
conns_on_port() {
	# A failed smcss shows in the sample (it would look like "no connection").
	smcss -a 2>"$work/smcss.err" >"$work/smcss.out" ||
		echo "smcss-failed: $(head -n 1 "$work/smcss.err")"
	port_conns "$1" <"$work/smcss.out"
}

# rxe_counts: "DEV sent rcvd" RoCE packets of rxev1 and rxev2, one line each.
rxe_counts() {
	for _d in rxev1 rxev2; do
		_c=/sys/class/infiniband/$_d/ports/1/hw_counters
		echo "$_d $(cat $_c/sent_pkts) $(cat $_c/rcvd_pkts)"
	done
}

# watch_port PORT PID: until PID ends, sample the connections on PORT; then
# require that $want (SMCD or SMCR) was seen and no fallback, and for SMC-R
# that both rxe devices sent and received RoCE packets meanwhile. Output in
# $work/watch.PORT.
watch_port() {
	_port=$1 _pid=$2 _log=$work/watch.$1
	: >"$_log"
	[ $want = SMCR ] && rxe_counts >"$work/rxe.before"
	_n=0
	while tap_alive "$_pid"; do
		conns_on_port "$_port" >>"$_log"
		_n=$((_n + 1))
		sleep 0.3
	done
	_smc=$(grep -c "^ACTIVE $want\$" "$_log")
	_tcp=$(grep -c ' TCP$' "$_log")
	tap_diag "port $_port: $_n smcss samples: $_smc $want, $_tcp TCP"
	! grep -q '^smcss-failed' "$_log" || { tap_fail "smcss failed while the client ran:"; grep '^smcss-failed' "$_log" | sort -u; }
	[ "$_tcp" = 0 ] || { tap_fail "connections on port $_port fell back to TCP:"; sort -u "$_log"; }
	[ "$_smc" -gt 0 ] || { tap_fail "no ACTIVE $want connection on port $_port while the client ran:"; sort -u "$_log"; }
	[ $want = SMCR ] || return 0
	rxe_counts >"$work/rxe.after"
	for _d in rxev1 rxev2; do
		# shellcheck disable=SC2046 # "dev sent rcvd" split on purpose
		set -- $(grep "^$_d " "$work/rxe.before") $(grep "^$_d " "$work/rxe.after")
		tap_diag "$_d: $(($5 - $2)) RoCE packets sent, $(($6 - $3)) received while the client ran"
		[ "$5" -gt "$2" ] && [ "$6" -gt "$3" ] ||
			tap_fail "$_d sent or received no RoCE packet while the client ran"
	done
}

# wait_listen PORT LOG: the server on PORT accepts connections (LOG: its output).
wait_listen() {
	tap_wait_for 20 port_listening "$1" && return 0
	tap_fail "nothing listens on port $1; the server said:"
	sed 's/^/#   /' "$2"
	return 1
}
# Each case uses its own ports in each mode, so that nothing a previous run
# left (a TIME_WAIT, a slow exit) stands in the way.
port_of() { [ "$mode" = tcp ] && echo $(($1 + 100)) || echo "$1"; }

# ---- iperf3 --------------------------------------------------------------
iperf3_case() {
	mode=$1 port=$(port_of 5201)
	$run iperf3 -s -1 -p $port >"$work/iperf3.s" 2>&1 &
	wait_listen $port "$work/iperf3.s"
	$run iperf3 -c $host -p $port -t 3 -f k >"$work/iperf3.c" 2>&1 &
	cpid=$!
	[ "$mode" = tcp ] || watch_port $port $cpid
	wait $cpid || { tap_fail "iperf3 client failed"; cat "$work/iperf3.c"; }
	rate=$(awk '/receiver/ { print int($(NF-2)) }' "$work/iperf3.c")
	tap_diag "iperf3 over $mode: ${rate:-?} Kbit/s"
	[ "${rate:-0}" -gt 0 ] || { tap_fail "iperf3 moved no data"; cat "$work/iperf3.c"; }
}

# ---- sockperf ------------------------------------------------------------
sockperf_case() {
	mode=$1 port=$(port_of 11111)
	$run sockperf server -i $host -p $port --tcp >"$work/sp.s" 2>&1 &
	spid=$!
	wait_listen $port "$work/sp.s"
	$run sockperf tp -i $host -p $port --tcp -m 65506 -t 3 >"$work/sp.tp" 2>&1 &
	cpid=$!
	[ "$mode" = tcp ] || watch_port $port $cpid
	wait $cpid || tap_fail "sockperf tp failed"
	bw=$(sed -n 's/.*BandWidth is \([0-9.]*\) MBps.*/\1/p' "$work/sp.tp" | tail -n 1)
	$run sockperf pp -i $host -p $port --tcp -m 1024 -t 2 >"$work/sp.pp" 2>&1 ||
		tap_fail "sockperf pp failed"
	lat=$(sed -n 's/.*avg-latency=\([0-9.]*\).*/\1/p' "$work/sp.pp" | tail -n 1)
	tap_diag "sockperf over $mode: ${bw:-?} MB/s with 64 KiB messages, ${lat:-?} us ping-pong 1 KiB"
	# Any positive figure: the debug kernel moves SMC-R at 0.2 MB/s.
	[ -n "$bw" ] && awk -v b="$bw" 'BEGIN { exit !(b > 0) }' ||
		{ tap_fail "no throughput figure (got '${bw}')"; cat "$work/sp.tp"; }
	[ -n "$lat" ] || { tap_fail "no latency figure"; cat "$work/sp.pp"; }
	kill $spid
}

# ---- redis ---------------------------------------------------------------
redis_case() {
	mode=$1 port=$(port_of 6380)
	$run redis-server --port $port --bind $host --save '' --appendonly no \
		--protected-mode no --daemonize no >"$work/redis.s" 2>&1 &
	spid=$!
	wait_listen $port "$work/redis.s"
	# A value that is not a whole number of small writes, read back exactly.
	value=$(head -c 30000 /dev/urandom | od -An -tx1 | tr -d ' \n')
	[ "$($run redis-cli -h $host -p $port set smc-key "$value")" = OK ] || tap_fail "redis-cli set"
	[ "$($run redis-cli -h $host -p $port get smc-key)" = "$value" ] ||
		tap_fail "redis-cli get returned something else than was set"
	# 5000 requests of each kind: enough for smcss to sample the eight
	# connections many times (make bench measures the rate; 20000 took
	# 43 s of this entry over SMC-R).
	$run redis-benchmark -h $host -p $port -n 5000 -c 8 -t set,get -q >"$work/redis.b" 2>&1 &
	cpid=$!
	[ "$mode" = tcp ] || watch_port $port $cpid
	wait $cpid || tap_fail "redis-benchmark failed"
	tr '\r' '\n' <"$work/redis.b" | grep 'requests per second' | sed 's/^/# /'
	n=$(tr '\r' '\n' <"$work/redis.b" | grep -c '^[A-Z]*: [0-9.]* requests per second')
	[ "$n" = 2 ] || { tap_fail "redis-benchmark did not report SET and GET"; cat "$work/redis.b"; }
	kill $spid
}

# ---- nginx ---------------------------------------------------------------
nginx_case() {
	mode=$1 port=$(port_of 8080) d=$work/nginx.$1
	mkdir -p "$d/www"
	head -c 3000017 /dev/urandom >"$d/www/big"
	echo hello >"$d/www/index.html"
	# sendfile on: nginx then sends the file with sendfile(2) to the socket.
	conf=$(nginx_conf "$d" "$host:$port${listen_opts:+ $listen_opts}" "$d/www" \
		"sendfile on;" "limit_rate 1m;")
	$run nginx -e "$d/error.log" -c "$conf" >"$work/nginx.s" 2>&1 &
	spid=$!
	wait_listen $port "$work/nginx.s"
	# nginx sends at most 1 MB/s (limit_rate), so that the download lasts
	# the 3 s or so that watch_port needs to see its connection's mode:
	# the file must come over $want too, not only wrk's requests. (curl's
	# --limit-rate did not hold it back: on an idle host the whole file
	# came within one sample.)
	$run curl -sS -o "$d/got" "http://$host:$port/big" 2>"$work/curl" &
	cpid=$!
	[ "$mode" = tcp ] || watch_port $port $cpid
	wait $cpid || { tap_fail "curl failed"; cat "$work/curl"; }
	cmp -s "$d/www/big" "$d/got" || tap_fail "curl: the 3 MB file came back different"
	# wrk counts a request unanswered after --timeout (2 s by default) as
	# a socket error. A loaded TCG guest with the memory detectors on can
	# take that long by itself; 30 s leaves only a real stall to count.
	$run wrk -t 1 -c 4 -d 3 --timeout 30s "http://$host:$port/index.html" >"$work/wrk" 2>&1 &
	cpid=$!
	[ "$mode" = tcp ] || watch_port $port $cpid
	wait $cpid || tap_fail "wrk failed"
	sed -n 's/^Requests\/sec: *//p' "$work/wrk" | sed "s/^/# wrk over $mode: requests\/s /"
	grep -q 'Requests/sec' "$work/wrk" || { tap_fail "wrk printed no rate"; cat "$work/wrk"; }
	! grep -q -E 'Socket errors|Non-2xx' "$work/wrk" || { tap_fail "wrk saw errors"; cat "$work/wrk"; }
	kill $spid
	grep -E '\[(alert|crit|emerg)\]' "$d/error.log" && tap_fail "nginx logged errors"
	return 0
}

# ---- IPPROTO_SMC: a program AF_SMC cannot run ---------------------------
# nginx with "listen ... reuseport" sets SO_REUSEPORT on its listener, which
# the 6.1 core refuses on any socket but an inet one: under smc_run's default
# mode (AF_SMC) this nginx does not start. Under smc_run -f inet its sockets
# are IPPROTO_SMC, inet sockets to the core, and the same nginx serves the
# download and wrk's requests over SMC-D (nginx_case, with listen_opts).
reuseport_afsmc_case() {
	port=$(port_of 8090) d=$work/nginx.reuse
	mkdir -p "$d/www"
	conf=$(nginx_conf "$d" "$host:$port reuseport" "$d/www")
	timeout 30 smc_run nginx -e "$d/error.log" -c "$conf" >"$d/out" 2>&1
	rc=$?
	tap_diag "nginx with reuseport under smc_run (AF_SMC): exit status $rc"
	{ [ $rc != 0 ] && [ $rc != 124 ]; } ||
		tap_fail "nginx with reuseport under smc_run did not fail at start (status $rc)"
	grep -q 'SO_REUSEPORT' "$d/error.log" ||
		{ tap_fail "nginx's error log does not name SO_REUSEPORT:"; sed 's/^/#   /' "$d/error.log"; }
}

# ---- smc_run's filters: only the listed port, only the listed program ----
# One nginx listens on two ports under smc_run -p PA: wrk's connections to PA
# must be SMC-D (watch_port), those to PB plain TCP (ss sees them established,
# smcss never lists one). Then smc_run -P wrk: the same nginx is not listed,
# so its sockets, and a curl started by the listed wrk's shell, stay TCP.
filter_case() {
	pa=$(port_of 8070) pb=$(port_of 8071) d=$work/nginx.filter
	mkdir -p "$d/www"
	echo filtered >"$d/www/index.html"
	conf=$(nginx_conf "$d" "$host:$pa" "$d/www" "server { listen $host:$pb; root $d/www; }")
	smc_run -p "$pa" nginx -e "$d/error.log" -c "$conf" >"$d/out" 2>&1 &
	spid=$!
	if ! wait_listen "$pa" "$d/out" || ! wait_listen "$pb" "$d/out"; then
		kill $spid
		return 0
	fi
	smcss -l 2>/dev/null | grep -q ":$pa\$" || tap_fail "the listener on $pa (listed) is not an SMC socket"
	! smcss -l 2>/dev/null | grep -q ":$pb\$" || tap_fail "the listener on $pb (not listed) is an SMC socket"
	smc_run -p "$pa" wrk -t 1 -c 4 -d 3 --timeout 30s "http://$host:$pa/index.html" >"$d/wrk.a" 2>&1 &
	cpid=$!
	watch_port "$pa" $cpid
	wait $cpid || { tap_fail "wrk to the listed port failed"; cat "$d/wrk.a"; }
	smc_run -p "$pa" wrk -t 1 -c 4 -d 3 --timeout 30s "http://$host:$pb/index.html" >"$d/wrk.b" 2>&1 &
	cpid=$!
	seen_smc=0 seen_tcp=0
	while tap_alive $cpid; do
		[ -z "$(conns_on_port "$pb")" ] || seen_smc=$((seen_smc + 1))
		ss -Htn state established "( sport = :$pb )" 2>/dev/null | grep -q . && seen_tcp=$((seen_tcp + 1))
		sleep 0.3
	done
	wait $cpid || { tap_fail "wrk to the port not listed failed"; cat "$d/wrk.b"; }
	tap_diag "port $pb (not listed): $seen_tcp samples with TCP connections, $seen_smc with SMC ones"
	[ "$seen_smc" = 0 ] || tap_fail "smcss listed connections on port $pb, which -p $pa leaves to TCP"
	[ "$seen_tcp" -gt 0 ] || tap_fail "ss saw no TCP connection on port $pb while wrk ran"
	for f in "$d/wrk.a" "$d/wrk.b"; do
		grep -q 'Requests/sec' "$f" || { tap_fail "wrk printed no rate"; cat "$f"; }
	done
	kill $spid
	wait $spid 2>/dev/null

	# -P: only the program named converts; nginx and curl are not named.
	smc_run -P wrk nginx -e "$d/error.log" -c "$conf" >"$d/out" 2>&1 &
	spid=$!
	wait_listen "$pa" "$d/out" || { kill $spid; return 0; }
	! smcss -l 2>/dev/null | grep -q ":$pa\$" || tap_fail "smc_run -P wrk converted nginx's listener"
	out=$(smc_run -P wrk sh -c "curl -sS http://$host:$pa/index.html" 2>&1)
	[ "$out" = filtered ] || tap_fail "curl under smc_run -P wrk: '$out'"
	out=$(smc_run -d -P wrk "$probe" create 2 1 0 2>&1)
	case $out in
	*" domain=2 "*"is not in SMC_PROGRAMS='wrk'"* | *"is not in SMC_PROGRAMS='wrk'"*" domain=2 "*) ;;
	*) tap_fail "smc_run -d -P wrk smc-preload-probe: $out" ;;
	esac
	out=$(smc_run -P smc-preload-probe "$probe" create 2 1 0 2>&1)
	case $out in
	*" domain=43 "*) ;;
	*) tap_fail "smc_run -P smc-preload-probe smc-preload-probe: $out" ;;
	esac
	kill $spid
	wait $spid 2>/dev/null
	return 0
}

# ---- out of LD_PRELOAD's reach: said, not silent ----------------------------
# busybox in the VM is busybox-static.
static_case() {
	out=$(smc_run /bin/busybox true 2>&1)
	tap_expect "smc_run /bin/busybox: '$out'" \
		[ "$out" = "smc_run: warning: /bin/busybox is statically linked: LD_PRELOAD cannot reach its sockets, which stay TCP" ]
	out=$(smc_run nginx -v 2>&1)
	case $out in
	*warning*) tap_fail "smc_run warned about the dynamic nginx: $out" ;;
	esac
	return 0
}

# ---- 64 threads creating their first sockets at once ----------------------
threads_case() {
	out=$(smc_run -d "$probe" threads 64 domains 2>"$work/threads.err")
	tap_expect "64 threads under smc_run, every socket AF_SMC by SO_DOMAIN: $out" \
		[ "$out" = "threads=64 failed=0 af_smc=64" ]
	n=$(grep -c 'converted to socket(AF_SMC' "$work/threads.err")
	[ "$n" = 64 ] || tap_fail "smc_run -d logged $n conversions, not 64"
}

# ---- SMC_SNDBUF / SMC_RCVBUF reach the socket -------------------------------
# Linux doubles SO_SNDBUF/SO_RCVBUF values for overhead, and so does AF_SMC.
buffers_case() {
	out=$(smc_run -t 96k -r 200k "$probe" create 2 1 0)
	tap_diag "$out"
	case $out in
	*" domain=43 "*" sndbuf=196608 rcvbuf=409600 "*) ;;
	*) tap_fail "smc_run -t 96k -r 200k: $out" ;;
	esac
}

run=smc_run
if [ $want = SMCR ]; then
	tap_case "iperf3 under smc_run uses SMC-R" 300 iperf3_case smcr
	tap_case "sockperf under smc_run uses SMC-R" 300 sockperf_case smcr
	tap_case "redis-server and redis-benchmark under smc_run use SMC-R" 400 redis_case smcr
	tap_case "nginx with curl and wrk under smc_run use SMC-R (the download and the requests)" 400 nginx_case smcr
	tap_done
fi
tap_case "iperf3 under smc_run uses SMC-D" 120 iperf3_case smcd
tap_case "sockperf under smc_run uses SMC-D" 120 sockperf_case smcd
tap_case "redis-server and redis-benchmark under smc_run use SMC-D" 180 redis_case smcd
tap_case "nginx with curl and wrk under smc_run use SMC-D (the download and the requests)" 180 nginx_case smcd
tap_case "nginx with listen reuseport cannot start under smc_run (AF_SMC refuses SO_REUSEPORT)" 60 \
	reuseport_afsmc_case
run="smc_run -f inet" listen_opts=reuseport
tap_case "the same nginx under smc_run -f inet (IPPROTO_SMC) serves curl and wrk over SMC-D" 180 \
	nginx_case smcd
run=smc_run listen_opts=
tap_case "smc_run -p converts only the listed port, -P only the listed program (nginx, wrk, curl)" 180 \
	filter_case
tap_case "smc_run warns that a statically linked program keeps TCP" 30 static_case
tap_case "64 threads' first socket() calls are all converted" 60 threads_case
tap_case "smc_run -t/-r sizes reach SO_SNDBUF/SO_RCVBUF" 30 buffers_case

# The same commands without the module: smc_run falls back to TCP.
if rmmod af_smc; then
	tap_at_exit 'grep -q "^af_smc " /proc/modules || insmod "$SMC_MODULE_FILE"'
	tap_case "iperf3 under smc_run without af_smc (TCP)" 120 iperf3_case tcp
	tap_case "sockperf under smc_run without af_smc (TCP)" 120 sockperf_case tcp
	tap_case "redis under smc_run without af_smc (TCP)" 180 redis_case tcp
	tap_case "nginx, curl, wrk under smc_run without af_smc (TCP)" 180 nginx_case tcp
	load_with_ism || tap_not_ok "insmod af_smc again"
else
	tap_not_ok "rmmod af_smc after the SMC-D runs (a socket or reference leaked?)"
fi
tap_done
