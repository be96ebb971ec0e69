#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# smcr/hs_2vm.sh: the SMC-Rv1 handshake between our modules on two VMs,
# rxe0 on eth0 of each, af_smc loaded with smcr_probe=1 (the old name of
# smcr=1, which must keep working) on both (kernel/smcr_hs.c): the client
# proposes SMC-R, the server accepts with its QP data and RMB, the client
# confirms, LLC CONFIRM_LINK goes over the QP and is answered, and the
# connection is SMC-R (smcr/data_2vm checks the data path itself):
#   - debugfs counters: a first link confirmed on each side;
#   - the client's sock_diag: mode SMC-R, no fallback; 64 KiB echo
#     byte-exact, SMC-R by sock_diag, rxe0 counters of both VMs moving by
#     at least a packet per KiB;
#   - ten connections at once: all SMC-R, one link group on the server;
#   - with the loopback ISM device on as well (smcr=1 alone, the module's
#     other defaults): the client offers SMC-Dv2 and SMC-R in one
#     Proposal; VM 1 cannot reach VM 0's ISM device, so the connection is
#     SMC-R, while a connection inside VM 0 gets SMC-D from the same offer;
#   - a client closed while it waits for the server's CONFIRM_LINK
#     (delayed 4 s on the server by smcr_probe_confirm_delay_ms): close()
#     returns within a second, its link counted as not confirmed;
#   - server without RDMA (rxe0 deleted on VM 1): the client still
#     proposes SMC-R and falls back with peer diagnosis 0x03030002, and no
#     link is counted;
#   - client without RDMA either: it declines 0x03030000 itself.
# The modules are reloaded without the parameter at the end.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/topology.sh"

topo_require_ours_2vm "smcr_probe is af_smc's own parameter"
T=$SMC_SELFTESTS/tools
D=/sys/kernel/debug/af_smc/smcr_hs
L=/sys/kernel/debug/af_smc/smcr_lgr
port=4455

cleanup() {
	# The echo server holds AF_SMC sockets: it must go before rmmod.
	topo_stop_2vm /tmp/echo.pid
	topo_cleanup
	topo_reload_2vm || tap_diag "could not reload af_smc without smcr_probe"
}
tap_at_exit cleanup

cleanup_case() {
	smc-vm-exec 1 'kill $(cat /tmp/echo.pid)' || tap_fail "no echo server to stop"
	tap_wait_for 10 smc-vm-exec 1 '! kill -0 $(cat /tmp/echo.pid) 2>/dev/null' || tap_fail "the echo server does not end"
	tap_expect "rmmod and insmod on both VMs" topo_reload_2vm
	return 0
}

# groups VM: how many SMC-R link groups VM has.
groups() {
	if [ "$1" = 0 ]; then cat $L; else smc-vm-exec 1 "cat $L"; fi | grep -c '^lgr '
}
no_groups() {
	[ "$(groups 0)" = 0 ] && [ "$(groups 1)" = 0 ]
}

# counter VM NAME: the value of NAME in VM's smcr_hs file.
counter() {
	if [ "$1" = 0 ]; then line=$(cat $D); else line=$(smc-vm-exec 1 "cat $D"); fi
	echo "$line" | sed -n "s/.* $2 \([0-9]*\).*/\1/p"
}

# counter_is VM NAME VALUE
counter_is() {
	[ "$(counter "$1" "$2")" = "$3" ]
}

serve() {
	smc-vm-exec 1 "rm -f /tmp/ready; $T/smc-echo -s -k 0 -f smc -a 10.43.0.2 -p $port -r /tmp/ready -t 120 >/tmp/echo.log 2>&1 </dev/null & echo \$! >/tmp/echo.pid" &&
		smc-vm-exec 1 "n=0; until [ -e /tmp/ready ]; do n=\$((n+1)); [ \$n -lt 600 ] || exit 1; sleep 0.05; done"
}

setup() {
	# Without the loopback ISM device first: the cases before
	# combined_offer are about SMC-R alone.
	tap_assert "af_smc smcr_probe=1 on both VMs" topo_reload_2vm smcr_probe=1 loopback_ism=0
	for vm in 0 1; do
		c="grep -q ' /sys/kernel/debug debugfs' /proc/mounts || mount -t debugfs none /sys/kernel/debug"
		if [ $vm = 0 ]; then sh -c "$c"; else smc-vm-exec 1 "$c"; fi
	done
	tap_assert "rxe0 on eth0 of both VMs" topo_vm_rxe
	tap_assert "echo server on VM 1" serve
	tap_diag "VM 0: $(cat $D)"
	return 0
}

first_link() {
	c0=$(counter 0 confirmed_client) s0=$(counter 1 confirmed_server)
	out=$($T/smc-fbprobe 10.43.0.2 $port 0) || tap_fail "smc-fbprobe: $out"
	tap_diag "client: $out"
	tap_diag "VM 0: $(cat $D)"
	tap_diag "VM 1: $(smc-vm-exec 1 "cat $D")"
	[ "$out" = "mode 0 fallback 0x00000000/0x00000000" ] ||
		tap_fail "the client is not SMC-R (mode 0, no fallback)"
	[ "$(counter 0 confirmed_client)" = $((c0 + 1)) ] || tap_fail "no first link confirmed on the client"
	[ "$(counter 1 confirmed_server)" = $((s0 + 1)) ] || tap_fail "no first link confirmed on the server"
	return 0
}

# rxe VM NAME: RoCE packet counter NAME (sent_pkts, rcvd_pkts) of rxe0 on VM.
rxe() {
	c="cat /sys/class/infiniband/rxe0/ports/1/hw_counters/$2"
	if [ "$1" = 0 ]; then sh -c "$c"; else smc-vm-exec 1 "$c"; fi
}

# Byte-exact, and SMC-R indeed: the client by sock_diag (smc-echo's mode
# line), and rxe0 of both VMs sending and receiving at least a packet per
# KiB echoed each way (rxe's path MTU on a 1500-byte netdev is 1024), as
# smcr/data_2vm's echo_n.
echo_64k() {
	s0=$(rxe 0 sent_pkts) r0=$(rxe 0 rcvd_pkts) t0=$(rxe 1 sent_pkts) q0=$(rxe 1 rcvd_pkts)
	out=$($T/smc-echo -c -f smc -a 10.43.0.2 -p $port -n 65536 -w 20 2>&1) ||
		tap_fail "64 KiB echo: $out"
	s1=$(rxe 0 sent_pkts) r1=$(rxe 0 rcvd_pkts) t1=$(rxe 1 sent_pkts) q1=$(rxe 1 rcvd_pkts)
	echo "$out"
	tap_diag "VM 0 rxe0 sent +$((s1 - s0)) rcvd +$((r1 - r0)), VM 1 rxe0 sent +$((t1 - t0)) rcvd +$((q1 - q0)) packets"
	echo "$out" | grep -qx 'mode SMCR reason 0x00000000 peer 0x00000000' ||
		tap_fail "the client is not SMC-R by sock_diag: $(echo "$out" | grep '^mode' || echo 'no mode line')"
	for d in $((s1 - s0)) $((r1 - r0)) $((t1 - t0)) $((q1 - q0)); do
		[ "$d" -ge 64 ] || tap_fail "an rxe0 counter moved by $d packets for 64 KiB each way"
	done
	return 0
}

concurrent() {
	c0=$(counter 0 confirmed_client) s0=$(counter 1 confirmed_server)
	i=0
	while [ $i -lt 10 ]; do
		$T/smc-fbprobe 10.43.0.2 $port 0 >"$TMPDIR/cc.$i" 2>&1 &
		i=$((i + 1))
	done
	wait
	i=0
	while [ $i -lt 10 ]; do
		grep -q 'mode 0 fallback 0x00000000/0x00000000' "$TMPDIR/cc.$i" ||
			tap_fail "connection $i: $(cat "$TMPDIR/cc.$i")"
		i=$((i + 1))
	done
	c1=$(counter 0 confirmed_client) s1=$(counter 1 confirmed_server)
	tap_diag "first links confirmed: client +$((c1 - c0)), server +$((s1 - s0))"
	tap_diag "VM 0: $(cat $D)"
	# One group per side, made by the first connection at most.
	[ $((c1 - c0)) -le 1 ] || tap_fail "client confirmed $((c1 - c0)) links, not at most 1"
	[ $((s1 - s0)) -le 1 ] || tap_fail "server confirmed $((s1 - s0)) links, not at most 1"
	[ "$(groups 1)" = 1 ] || tap_fail "the server has $(groups 1) groups"
	return 0
}

# The echo server on VM 1 stops, af_smc is reloaded with ARGS on both VMs,
# and the server starts again.
reload_serving() {
	smc-vm-exec 1 'kill $(cat /tmp/echo.pid)' &&
		tap_wait_for 10 smc-vm-exec 1 '! kill -0 $(cat /tmp/echo.pid) 2>/dev/null' &&
		topo_reload_2vm "$@" && serve
}

combined_offer() {
	tap_assert "af_smc smcr=1 (loopback ISM on) on both VMs" reload_serving smcr=1
	c0=$(counter 0 confirmed_client)
	out=$($T/smc-fbprobe 10.43.0.2 $port 0) || tap_fail "smc-fbprobe: $out"
	tap_diag "client to VM 1: $out; VM 0: $(cat $D)"
	[ "$out" = "mode 0 fallback 0x00000000/0x00000000" ] ||
		tap_fail "to VM 1: not SMC-R (mode 0, no fallback)"
	[ "$(counter 0 confirmed_client)" = $((c0 + 1)) ] || tap_fail "no SMC-R link confirmed"
	# Inside VM 0 the server can take the SMC-Dv2 part of the same offer.
	rm -f "$TMPDIR/ready"
	$T/smc-echo -s -k 0 -f smc -a 10.43.0.1 -p $port -r "$TMPDIR/ready" -t 60 \
		>"$TMPDIR/echo0.log" 2>&1 </dev/null &
	pid=$!
	tap_wait_for 30 test -e "$TMPDIR/ready" || tap_fail "no echo server on VM 0"
	out=$($T/smc-fbprobe 10.43.0.1 $port 0) || tap_fail "smc-fbprobe: $out"
	tap_diag "client inside VM 0: $out"
	[ "$out" = "mode 2 fallback 0x00000000/0x00000000" ] ||
		tap_fail "inside VM 0: not SMC-D (mode 2, no fallback)"
	kill $pid
	wait $pid 2>/dev/null
	tap_assert "af_smc smcr_probe=1 loopback_ism=0 on both VMs again" \
		reload_serving smcr_probe=1 loopback_ism=0
	return 0
}

close_in_llc_wait() {
	P=/sys/module/af_smc/parameters/smcr_probe_confirm_delay_ms
	# A first contact again: no group may linger from the cases before.
	c="echo 0 > /sys/module/af_smc/parameters/lgr_linger"
	sh -c "$c" && smc-vm-exec 1 "$c" || tap_fail "no lgr_linger parameter"
	tap_wait_for 30 no_groups || tap_fail "groups linger: $(groups 0)/$(groups 1)"
	smc-vm-exec 1 "echo 4000 > $P" || { tap_fail "no delay parameter"; return 1; }
	f0=$(counter 0 failed) fs0=$(counter 1 failed)
	out=$($T/smc-fbprobe -C 1500 10.43.0.2 $port) || tap_fail "smc-fbprobe -C: $out"
	tap_diag "client: $out; VM 0: $(cat $D)"
	ms=$(echo "$out" | sed -n 's/^close_ms \([0-9]*\)$/\1/p')
	[ -n "$ms" ] && [ "$ms" -lt 1000 ] || tap_fail "close() in the LLC wait took ${ms:-?} ms"
	# The client was in the LLC wait (not a CLC one): it gave up its link.
	[ "$(counter 0 failed)" = $((f0 + 1)) ] || tap_fail "the client's link wait did not end as aborted"
	# The server's CONFIRM_LINK then finds the client's link gone.
	tap_wait_for 15 counter_is 1 failed $((fs0 + 1)) ||
		tap_fail "the server's handshake did not end as failed"
	smc-vm-exec 1 "echo 0 > $P"
	return 0
}

server_no_rdma() {
	tap_assert "rxe0 deleted on VM 1" smc-vm-exec 1 "rdma link del rxe0"
	c0=$(counter 0 confirmed_client)
	out=$($T/smc-fbprobe 10.43.0.2 $port 0) || tap_fail "smc-fbprobe: $out"
	tap_diag "client: $out"
	case "$out" in
	*"fallback 0x05000000/0x03030002") ;;
	*) tap_fail "client fallback is not peer-declined 0x03030002 (no SMC-R device)" ;;
	esac
	[ "$(counter 0 confirmed_client)" = "$c0" ] || tap_fail "a link was counted without the peer's RDMA"
	return 0
}

client_no_rdma() {
	tap_assert "rxe0 deleted on VM 0" rdma link del rxe0
	out=$($T/smc-fbprobe 10.43.0.2 $port 0) || tap_fail "smc-fbprobe: $out"
	tap_diag "client: $out"
	case "$out" in
	*"fallback 0x03030000/0x00000000") ;;
	*) tap_fail "client fallback is not 0x03030000 (no SMC device)" ;;
	esac
	return 0
}

tap_case "setup: smcr_probe=1, rxe0 on both VMs, echo server" 180 setup
tap_case "first link confirmed both sides, the connection is SMC-R" 60 first_link
tap_case "64 KiB echoed over SMC-R: byte-exact, SMC-R by sock_diag, RoCE packets both ways" 60 echo_64k
tap_case "ten concurrent connections: SMC-R, one link group" 120 concurrent
tap_case "loopback ISM on too: one Proposal offers SMC-Dv2 and SMC-R; SMC-R to VM 1, SMC-D inside VM 0" 120 combined_offer
tap_case "close() while waiting for CONFIRM_LINK returns at once" 60 close_in_llc_wait
tap_case "server without RDMA: peer declines 0x03030002" 60 server_no_rdma
tap_case "client without RDMA: declines 0x03030000" 60 client_no_rdma
tap_case "teardown: af_smc unloads and reloads on both VMs" 60 cleanup_case
tap_done
