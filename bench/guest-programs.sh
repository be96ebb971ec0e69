#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# bench/guest-programs.sh SECONDS: the programs users run, TCP over
# loopback against SMC-D over the loopback ISM device, in one VM and one
# run (guest-bench.sh calls it with af_smc loaded, loopback_ism on): nginx
# with wrk (16 keep-alive connections, and 16 with "Connection: close", a
# 1 KiB file), redis-benchmark SET and GET (20 clients, 1 KiB values) and
# iperf3 with 1 and 32 parallel streams. Unmodified programs; SMC by
# smc_run on both ends. Prints "RESULT name tcp smc unit" lines and, for
# every run, "PROGMODE name SMCD n TCP m": the ACTIVE AF_SMC connections
# on the run's port that smcss showed while the client ran, by mode, with
# name "name@tcp" for the TCP run (scripts/bench requires n > 0 and m = 0
# of an SMC run, n = m = 0 of a TCP run). Both runs are watched alike: a
# watcher in the SMC runs only took CPU from them alone (session 43).
t=${1:-5}
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=../selftests/lib/nginx.sh
. "$here/../selftests/lib/nginx.sh"
# shellcheck source=../selftests/lib/ports.sh
. "$here/../selftests/lib/ports.sh"
host=127.0.0.1
work=$(mktemp -d)
limit=$((t + 60))

# Until PID ends, sample smcss for the connections on PORT once a second;
# then add the PROGMODE line for NAME to $work/modes (printed at the end:
# the rows' values are read from these functions' output).
watch_mode() {	# name port pid
	: >"$work/watch"
	while kill -0 "$3" 2>/dev/null; do
		smcss -a 2>/dev/null | port_conns "$2" | awk '$1 == "ACTIVE" { print $2 }' >>"$work/watch"
		sleep 1
	done
	echo "PROGMODE $1 SMCD $(grep -c '^SMCD$' "$work/watch") TCP $(grep -c '^TCP$' "$work/watch")" \
		>>"$work/modes"
}

# Run CLIENT... in the background under RUN (empty or smc_run), cut off
# after $limit s, and watch the port as it runs (NAME@tcp for TCP's run).
# Output in $work/out.
client() {	# name port run client...
	_name=$1 _port=$2 _run=$3
	shift 3
	[ -n "$_run" ] || _name=$_name@tcp
	# shellcheck disable=SC2086 # an empty RUN is no word
	timeout "$limit" $_run "$@" >"$work/out" 2>&1 &
	_pid=$!
	watch_mode "$_name" "$_port" "$_pid"
	wait "$_pid"
}

# A figure, or 0 when the run gave none (the table shows n/a).
or0() { echo "${1:-0}"; }

listening() {	# port: something listens there within 20 s
	_n=0
	until port_listening "$1"; do
		_n=$((_n + 1))
		[ $_n -lt 200 ] || return 1
		sleep 0.1
	done
}

# ---- nginx with wrk -----------------------------------------------------
mkdir -p "$work/www"
head -c 1024 /dev/urandom >"$work/www/1k"
wrk_rate() {	# name port run [wrk options]
	_n=$1 _p=$2 _r=$3
	shift 3
	client "$_n" "$_p" "$_r" wrk -t 1 -c 16 -d "$t" --timeout 30s "$@" "http://$host:$_p/1k" &&
		! grep -q -E 'Socket errors|Non-2xx' "$work/out" &&
		sed -n 's/^Requests\/sec: *\([0-9.]*\).*/\1/p' "$work/out"
}
nginx -c "$(nginx_conf "$work/nginx.18080" $host:18080 "$work/www")" >/dev/null 2>&1 &
ntcp=$!
smc_run nginx -c "$(nginx_conf "$work/nginx.18081" $host:18081 "$work/www")" >/dev/null 2>&1 &
nsmc=$!
listening 18080 && listening 18081 || echo "bench: nginx did not listen"
echo "RESULT nginx_wrk_keepalive $(or0 "$(wrk_rate nginx_wrk_keepalive 18080 "")")" \
	"$(or0 "$(wrk_rate nginx_wrk_keepalive 18081 smc_run)")" req/s
echo "RESULT nginx_wrk_close $(or0 "$(wrk_rate nginx_wrk_close 18080 "" -H 'Connection: close')")" \
	"$(or0 "$(wrk_rate nginx_wrk_close 18081 smc_run -H 'Connection: close')")" req/s
kill "$ntcp" "$nsmc" 2>/dev/null
wait "$ntcp" "$nsmc" 2>/dev/null

# ---- redis-benchmark ------------------------------------------------------
redis-server --port 16380 --bind $host --save '' --appendonly no --protected-mode no >/dev/null 2>&1 &
rtcp=$!
smc_run redis-server --port 16381 --bind $host --save '' --appendonly no --protected-mode no >/dev/null 2>&1 &
rsmc=$!
listening 16380 && listening 16381 || echo "bench: redis-server did not listen"
redis_rates() {	# name port run -> "SET GET" requests/s
	client "$1" "$2" "$3" redis-benchmark -h $host -p "$2" -c 20 -d 1024 -n $((t * 4000)) -t set,get -q &&
		tr '\r' '\n' <"$work/out" | awk '/^SET: / { s = $2 } /^GET: / { g = $2 } END { print s + 0, g + 0 }'
}
tcp=$(redis_rates redis_set_get 16380 "")
smc=$(redis_rates redis_set_get 16381 smc_run)
# shellcheck disable=SC2086 # "SET GET" split on purpose
set -- ${tcp:-0 0} ${smc:-0 0}
echo "RESULT redis_set_1KiB $1 $3 req/s"
echo "RESULT redis_get_1KiB $2 $4 req/s"
kill "$rtcp" "$rsmc" 2>/dev/null
wait "$rtcp" "$rsmc" 2>/dev/null

# ---- iperf3 ----------------------------------------------------------------
iperf3 -s -p 15201 >/dev/null 2>&1 &
itcp=$!
smc_run iperf3 -s -p 15202 >/dev/null 2>&1 &
ismc=$!
listening 15201 && listening 15202 || echo "bench: iperf3 did not listen"
iperf_rate() {	# name port run streams -> Mbit/s at the receiver
	client "$1" "$2" "$3" iperf3 -c $host -p "$2" -t "$t" -P "$4" -f m &&
		awk '/receiver/ { r = $(NF - 2) } END { print r }' "$work/out"
}
for p in 1 32; do
	echo "RESULT iperf3_${p}_streams $(or0 "$(iperf_rate iperf3_${p}_streams 15201 "" $p)")" \
		"$(or0 "$(iperf_rate iperf3_${p}_streams 15202 smc_run $p)")" Mbit/s
done
kill "$itcp" "$ismc" 2>/dev/null
wait "$itcp" "$ismc" 2>/dev/null
cat "$work/modes" 2>/dev/null
rm -rf "$work"
