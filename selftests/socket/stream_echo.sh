#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# socket/stream_echo.sh MODE [BYTES]: a bulk stream echoed and verified by
# smc-echo (default 64M; tap_volume_size divides it), on TCP (the
# reference) and on AF_SMC, IPv4 and IPv6.
#   MODE loopback  server and client in this namespace, over lo
#   MODE netns     server in smc-ns1, client in smc-ns2, over a veth pair
# The client checks every byte, the count and the checksum; the script also
# requires the server's checksum of what it echoed to equal what was sent.
# An AF_SMC echo must be SMC-D (the loopback ISM device, on by default) at
# both ends by sock_diag, with no fallback reason: a fallback to TCP would
# move the same bytes and prove nothing about SMC.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/topology.sh"
. "$here/../lib/module.sh"

mode=$1
bytes=$(tap_volume_size "${2:-64M}")
case "$mode" in
loopback|netns) ;;
*) echo "usage: $0 loopback|netns [BYTES]" >&2; exit 2 ;;
esac
case "$bytes" in
*[KMG]) size=${bytes}iB ;;
*) size="$bytes bytes" ;;
esac

# The installed layout has tools/ beside the areas; otherwise use PATH.
tools=$here/../tools
[ -x "$tools/smc-echo" ] || tools=$(dirname "$(command -v smc-echo || echo ./smc-echo)")
ECHO=$tools/smc-echo
PROBE=$tools/smc-sockprobe
[ -x "$ECHO" ] && [ -x "$PROBE" ] || smc_missing_all "smc-echo or smc-sockprobe not found"

label() {
	case "$1" in
	inet) echo "tcp ipv4" ;; inet6) echo "tcp ipv6" ;;
	smc) echo "smc ipv4" ;; smc6) echo "smc ipv6" ;;
	esac
}

# What a case says it moves the data over.
over() {
	case "$1" in smc|smc6) echo " over SMC-D" ;; esac
}

# mode_is FILE PREFIX END: the "PREFIXmode" line of smc-echo's output in FILE
# (END's) says SMC-D with no fallback reason (tools/echo.c).
mode_is() {
	line=$(grep "^${2}mode " "$1" | head -n 1)
	[ "$line" = "${2}mode SMCD reason 0x00000000 peer 0x00000000" ] && return 0
	tap_fail "the ${3} end is not SMC-D by sock_diag: '${line:-no mode line}'"
	return 1
}

# The value of "KEY=" in the line of FILE that starts with PREFIX.
field() {
	sed -n "s/^$2.* $3=\([^ ]*\).*/\1/p" "$1" | head -n 1
}

gone() {
	! tap_alive "$1"
}

server_ready_or_gone() {
	[ -s "$1" ] || ! tap_alive "$2"
}

# echo_case FAMILY SERVER_ADDR [NAMESPACE_SERVER NAMESPACE_CLIENT]
echo_case() {
	fam=$1 addr=$2
	run_server='' run_client=''
	[ -z "$3" ] || run_server="ip netns exec $3"
	[ -z "$4" ] || run_client="ip netns exec $4"
	# Only a family missing here altogether is a reason to skip (and not
	# in a test VM with a module); one that works here but not inside a
	# namespace is a failure.
	probe=$("$PROBE" "$fam")
	[ "$probe" = ok ] || smc_missing "$(label "$fam") sockets are not available here: $probe"

	ready=$TMPDIR/ready-$fam
	rm -f "$ready"
	$run_server "$ECHO" -s -f "$fam" -a "$addr" -r "$ready" -t 600 >"$TMPDIR/server-$fam" 2>&1 &
	server=$!
	tap_wait_for 60 server_ready_or_gone "$ready" "$server"
	if [ ! -s "$ready" ]; then
		cat "$TMPDIR/server-$fam"
		tap_fail "the $(label "$fam") echo server did not start"
		return 1
	fi
	$run_client "$ECHO" -c -f "$fam" -a "$addr" -p "$(cat "$ready")" -n "$bytes" \
		>"$TMPDIR/client-$fam" 2>&1
	client_rc=$?
	# After the client's EOF the server finishes its only connection.
	tap_wait_for 30 gone "$server"
	wait "$server"
	server_rc=$?
	sed 's/^/server: /' "$TMPDIR/server-$fam"
	sed 's/^/client: /' "$TMPDIR/client-$fam"
	[ $client_rc = 0 ] || tap_fail "client failed with status $client_rc"
	[ $server_rc = 0 ] || tap_fail "server failed with status $server_rc"
	sent=$(field "$TMPDIR/client-$fam" sent checksum)
	echoed=$(field "$TMPDIR/server-$fam" connection checksum)
	[ -n "$sent" ] && [ "$sent" = "$echoed" ] ||
		tap_fail "server echoed checksum '$echoed', client sent '$sent'"
	[ -z "$(over "$fam")" ] && return 0
	mode_is "$TMPDIR/client-$fam" "" client
	mode_is "$TMPDIR/server-$fam" "connection 1 " server
	return 0
}

case "$mode" in
loopback)
	for fam in inet smc; do
		tap_case "$(label $fam) loopback $size$(over $fam)" 300 echo_case $fam 127.0.0.1
	done
	for fam in inet6 smc6; do
		tap_case "$(label $fam) loopback $size$(over $fam)" 300 echo_case $fam ::1
	done
	;;
netns)
	reason=$(topo_check_netns) || tap_skip_all "$reason"
	tap_at_exit topo_cleanup
	set_up() {
		topo_netns_pair || tap_fail "could not set up the namespaces"
	}
	tap_case "namespaces $TOPO_NS1 and $TOPO_NS2 joined by a veth pair" 120 set_up
	for fam in inet smc; do
		tap_case "$(label $fam) netns veth $size$(over $fam)" 300 \
			echo_case $fam "$TOPO_IP4_1" "$TOPO_NS1" "$TOPO_NS2"
	done
	for fam in inet6 smc6; do
		tap_case "$(label $fam) netns veth $size$(over $fam)" 300 \
			echo_case $fam "$TOPO_IP6_1" "$TOPO_NS1" "$TOPO_NS2"
	done
	;;
esac
tap_done
