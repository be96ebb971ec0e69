#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# smcr/failover_topo1.sh: failover (issue 20; kernel/smcr_conn.c, "Failover"):
# a connection whose link fails goes on over its group's other link, and no
# byte is lost or doubled. Topology 1 with two veth pairs and PNET IDs, as in
# addlink_topo1.sh, so that the server adds a second link to each group.
# Five times, each time with new groups:
#   - a stream is the groups' first contact, so its RMBs are in
#     the second link's ADD_LINK_CONTINUATIONs and each end knows the other's
#     rkey on both links; it runs until the case has checked the move and
#     carries at least 64 MiB (smc-echo -e, -m; tap_volume divides it); it
#     is checked byte for byte by smc-echo:
#       down: an echo, every byte that comes back compared with the stream
#             sent, both ways through one connection;
#       drop, break: one way, the server comparing every byte with the
#             stream;
#   - once both groups have two ready links, while the echo runs on the
#     first, that link fails:
#       down: the first links' pair goes down (its near end): both ports go
#             down, both ends fail the link at once;
#       drop: everything the client's end of that pair sends is dropped
#             (netem loss 100%): the ports stay up, and each QP fails when
#             its retries run out (the first end to see it tells the
#             other with a DELETE_LINK over the second link); what each
#             end wrote again is printed, not asserted: the client may
#             have nothing queued (its WRITEs all acknowledged, and the
#             CDC naming their bytes the one that was dropped);
#       break: the client's next WRITE breaks its link right after the
#             post (debugfs smcr_conns "break", as a QP error): that
#             WRITE is queued and its CDC never sent, so the client
#             writes bytes again (resent > 0), and tells the server
#             (deletes_sent 1 there, deletes_taken 1 on the server);
#     both ends move the connection to the second links (debugfs
#     smcr_conns: slot 1, failovers 1; each group counts one failover;
#     sock_diag, smcss -R, names the second pair's devices where it named
#     the first's) and the stream ends byte-exact with no error;
#   - urgent: a connection's link broken under the WRITE of an urgent
#     byte (MSG_OOB, smc-oob), so that the CDC that alone carries the mark
#     is lost with it: the failover sends that CDC again (its own sequence
#     number: a peer that had it drops it), and the server reads the byte
#     with recv(MSG_OOB), the other 1003 bytes in line;
#   - twice: an echo, its first pair down as above (or, the second
#     time, the client's rxe device of that pair removed: rdma link del,
#     ib_core's remove of the device); that pair up (the device added)
#     again, each group adds a link over it in the failed first link's
#     slot (smcr_lgr_llc_prune()); then the other pair down: the echo moves
#     to the new link (slot 0, failovers 2, links_added 2 each: the
#     client's may count more, topo_links_added), byte-exact;
#   - many (after the del case, so rxev1 is registered after rxew1): its
#     group's first link on pair v, the connection's route, where the
#     PNET ID alone would take rxew1 first; 200 connections in one group
#     (smc-conns), spread over both
#     links by the fewer-connections rule, each with 1000 bytes echoed and
#     verified; the first pair down: each connection that was on it moves
#     (failovers 1, as many as the groups count), all 200 are on the
#     second link, and each echoes its next 1000 bytes, verified.
#   - measured and printed: the pause (from the failure's command returning
#     until the second pair has carried 500 more packets) and the bytes
#     written again (the groups' resent);
#   - the pair working again and the stream done: the groups go, no buffer
#     was freed while a posted WR named it, none is left deferred.
# Between two VMs (the peer told by DELETE_LINK): failover_2vm.sh.
# A connection made after the second link learns the peer's rkey on the other
# link from CONFIRM_RKEY, and moves too: addlink_topo1.sh shows it.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/topology.sh"
. "$here/../lib/module.sh"

smc_own_module_all "failover is af_smc's own"
command -v rdma >/dev/null || smc_missing_all "no rdma command"
T=$SMC_SELFTESTS/tools
B=/smc/bin
L=/sys/kernel/debug/af_smc/smcr_lgr
C=/sys/kernel/debug/af_smc/smcr_conns
A=$TOPO_VETH_IP4_2
port=4471
# The stream's least bytes (smc-echo -m), asked for and checked: 64 MiB,
# divided on a debug run.
stream_min=$(tap_volume 67108864)

cleanup() {
	for f in "$TMPDIR"/*.pid; do
		[ -e "$f" ] && kill "$(cat "$f")" 2>/dev/null
	done
	mend 2>/dev/null
	echo "hold 0" >$C 2>/dev/null
	rmmod sch_netem 2>/dev/null
	/smc/bin/smc_pnet -f 2>/dev/null
	topo_smcr_cleanup
}
tap_at_exit cleanup

# fail HOW PAIR: make the link over PAIR fail (see the top).
fail() {
	case $1 in
	down) ip link set "smc${2}1" down ;;
	drop) topo_netem_load && tc qdisc add dev "smc${2}1" root netem loss 100% ;;
	break) echo "break client" >$C ;;
	del) rdma link del "rxe${2}1" ;;
	esac
}

# mend: both pairs up, no netem, the routes back, the client's rxe devices
# there again (their PNET IDs stay in the table: it names the device).
mend() {
	for x in v w; do
		tc qdisc del dev smc${x}1 root 2>/dev/null
		ip link set smc${x}1 up || return 1
		rdma link show rxe${x}1/1 >/dev/null 2>&1 ||
			rdma link add rxe${x}1 type rxe netdev smc${x}1 || return 1
	done
	topo_veth_rules on
}

# running: the stream has not ended (else a failure under it shows nothing).
running() {
	tap_alive "$(cat "$TMPDIR/c.pid")" ||
		{ tap_fail "the stream ended too early: $(cat "$TMPDIR/c.log")"; return 1; }
}

# on_pair PAIR: sock_diag (smcss -R) shows both ends of the stream, CLNT
# and SERV, on a device of PAIR (rxe<PAIR>1, rxe<PAIR>2): the link each
# uses now.
on_pair() {
	$B/smcss -R >"$TMPDIR/ss" || { tap_fail "smcss -R"; return 1; }
	n=$(awk -v p=":$port\$" -v d="^rxe$1[12]\$" \
		'$7 == "SMCR" && ($4 ~ p || $5 ~ p) && $9 ~ d { print $8 }' "$TMPDIR/ss" | sort | tr '\n' ' ')
	[ "$n" = "CLNT SERV " ] ||
		{ tap_fail "smcss -R does not show the stream's two ends on pair $1 ($n): $(cat "$TMPDIR/ss")"; return 1; }
}

# start HOW: the stream for HOW (see the top) as the groups' first
# contact, on their first links once each group has two ready links;
# their pairs in $first and $second. It runs until finish.
start() {
	case $1 in
	down) sopt='' copt='' ;;
	drop | break) sopt=-v copt=-o ;;
	esac
	rm -f "$TMPDIR/s.ready" "$TMPDIR/end"
	$T/smc-echo -s $sopt -k 1 -f smc -a $A -p $port -r "$TMPDIR/s.ready" -t 900 \
		>"$TMPDIR/s.log" 2>&1 </dev/null &
	echo $! >"$TMPDIR/s.pid"
	tap_wait_for 30 test -e "$TMPDIR/s.ready" || { tap_fail "no echo server"; return 1; }
	$T/smc-echo -c $copt -f smc -a $A -p $port -n 4G -e "$TMPDIR/end" -m "$stream_min" -w 20 -t 900 \
		>"$TMPDIR/c.log" 2>&1 </dev/null &
	echo $! >"$TMPDIR/c.pid"
	tap_wait_for 30 topo_lgr_links_ready 4 ||
		{ tap_fail "not two ready links per group: $(cat $L)"; return 1; }
	cat $L
	cat $C
	[ "$(grep -c 'slot 0 failovers 0 ' $C)" = 2 ] ||
		{ tap_fail "the stream is not on the first links: $(cat $C)"; return 1; }
	tap_wait_for 10 keys_known 2 ||
		{ tap_fail "an end does not know the peer's RMB on both links: $(cat $C)"; return 1; }
	first=$(topo_lgr_link_pair client 0) second=$(topo_lgr_link_pair client 1)
	[ -n "$first" ] && [ -n "$second" ] && [ "$first" != "$second" ] ||
		{ tap_fail "no two pairs: '$first' '$second'"; return 1; }
	on_pair "$first"
}

# keys_known N: N connections (debugfs lines) know the peer's RMB on both
# links (peer_slots: rkeys of the two slots), so each can move to the
# other link; the groups have two ready links. A ring switch clears the
# other slot's key for a moment, hence the callers' tap_wait_for.
keys_known() {
	[ "$(grep -c ' peer_slots 0x3$' $C)" = "$1" ]
}

# move HOW FROM TO: the link over pair FROM fails by HOW under the stream;
# data flows over pair TO again (the pause printed).
move() {
	running || return 1
	before=$(topo_pair_pkts "$2")
	tap_assert "$1 on pair $2" fail "$1" "$2"
	pause=$(topo_pause_ms 30 500 topo_pair_pkts "$3") || {
		tap_fail "no data over pair $3 within 30 s of the failure"
		cat $C
		cat $L
	}
	tap_diag "$1: pair $2 carried $before packets before; data flowed over pair $3 again after $pause ms"
	running
}

# moved SLOT N: both ends' connection is on link SLOT, moved N times
# (debugfs, read now: the groups may go once the stream ends, lgr_linger=0).
moved() {
	conns=$(cat $C) groups=$(grep '^lgr ' $L)
	echo "$conns"
	[ "$(echo "$conns" | grep -c "slot $1 failovers $2 ")" = 2 ] ||
		tap_fail "the connection is not on link $1 after $2 failovers on both ends"
}

# finish HOW: the stream ends, at least $stream_min bytes, byte-exact.
finish() {
	topo_echo_stop "$TMPDIR/end" "$TMPDIR/c.pid" "$TMPDIR/c.log" "the client" "$stream_min" ||
		return 1
	tap_diag "the stream carried $topo_echo_bytes bytes"
	grep -qx 'mode SMCR reason 0x00000000 peer 0x00000000' "$TMPDIR/c.log" ||
		tap_fail "the stream was not SMC-R"
	if [ $1 != down ]; then
		tap_reap 60 "$TMPDIR/s.pid" "$TMPDIR/s.log" "the server"
		grep -q "^connection 1: verified bytes=$topo_echo_bytes " "$TMPDIR/s.log" ||
			tap_fail "the server did not verify the $topo_echo_bytes bytes sent"
	fi
}

# counts HOW FAILOVERS: each group counted FAILOVERS; what each end wrote
# again and the DELETE_LINKs that told the other end are printed.
counts() {
	for role in client server; do
		g=$(echo "$groups" | grep " role $role ")
		f=$(topo_field failovers "$g")
		r=$(topo_field resent "$(echo "$conns" | grep " role $role ")")
		tap_diag "$1: $role: the group's failovers $f, the connection wrote $r bytes again; DELETE_LINK sent $(topo_field deletes_sent "$g"), taken $(topo_field deletes_taken "$g")"
		[ "$f" = "$2" ] || tap_fail "the $role group counted '$f' failovers, not $2"
	done
}

# failover HOW: a stream, its link failed by HOW while it runs.
failover() {
	start $1 || return 1
	move $1 "$first" "$second" || return 1
	moved 1 1
	on_pair "$second"
	finish $1
	counts $1 1
	if [ $1 = break ]; then
		r=$(topo_field resent "$(echo "$conns" | grep ' role client ')")
		[ "${r:-0}" -gt 0 ] ||
			tap_fail "the client wrote nothing again, though its link broke under a WRITE"
		[ "$(topo_field deletes_sent "$(echo "$groups" | grep ' role client ')")" = 1 ] ||
			tap_fail "the client did not tell the server with a DELETE_LINK"
		[ "$(topo_field deletes_taken "$(echo "$groups" | grep ' role server ')")" = 1 ] ||
			tap_fail "the server's link did not end by the client's DELETE_LINK"
	fi
	return 0
}

# both_moved: both ends' connection on link 1 after one failover.
both_moved() {
	[ "$(grep -c 'slot 1 failovers 1 ' $C)" = 2 ]
}

# urgent: a connection (smc-oob) on the groups' first links; the
# client's link broken under the WRITE of an urgent byte (debugfs
# smcr_conns "break"), so that the CDC that alone carries the mark is
# never sent on it: the failover sends that CDC again, and the server
# reads the byte with recv(MSG_OOB), the other 1003 in line.
urgent() {
	rm -f "$TMPDIR/s.ready" "$TMPDIR/go" "$TMPDIR/done"
	$T/smc-oob -s $A $port "$TMPDIR/s.ready" 120 >"$TMPDIR/s.log" 2>&1 </dev/null &
	echo $! >"$TMPDIR/s.pid"
	tap_wait_for 30 test -e "$TMPDIR/s.ready" || { tap_fail "no smc-oob server"; return 1; }
	$T/smc-oob -c $A $port "$TMPDIR/go" "$TMPDIR/done" 120 >"$TMPDIR/c.log" 2>&1 </dev/null &
	echo $! >"$TMPDIR/c.pid"
	tap_wait_for 30 topo_lgr_links_ready 4 ||
		{ tap_fail "not two ready links per group: $(cat $L)"; return 1; }
	[ "$(grep -c 'slot 0 failovers 0 ' $C)" = 2 ] ||
		{ tap_fail "the connection is not on the first links: $(cat $C)"; return 1; }
	tap_assert "break client" fail break
	touch "$TMPDIR/go"
	tap_wait_for 30 both_moved || tap_fail "the connection did not move on both ends: $(cat $C)"
	cat $C
	tap_wait_for 30 grep -q '^oob ' "$TMPDIR/s.log" ||
		tap_fail "the server got no urgent byte within 30 s: $(cat "$TMPDIR/s.log")"
	touch "$TMPDIR/done"
	tap_reap 60 "$TMPDIR/c.pid" "$TMPDIR/c.log" "the client"
	tap_reap 60 "$TMPDIR/s.pid" "$TMPDIR/s.log" "the server"
	grep -qx 'oob U' "$TMPDIR/s.log" || tap_fail "the urgent byte is not U"
	grep -qx 'bytes 1003' "$TMPDIR/s.log" || tap_fail "not 1003 bytes in line"
	return 0
}

# twice HOW: an echo leaves its first pair (HOW: down, or del: the
# client's rxe device of the pair removed), the pair comes back and each
# group adds a link over it again, in the first link's slot; then the
# other pair goes down and the echo moves to that new link. The server's
# flow for that link pauses 1 s before its CONFIRM_LINK (debugfs "hold"),
# the echo running on: a ring that grows meanwhile must not leave an end
# without the peer's RMB on the new link (a CI run saw this end with the
# echo reset: no link to move to).
twice() {
	start down || return 1
	move $1 "$first" "$second" || return 1
	moved 1 1
	on_pair "$second"
	echo "hold 1000" >$C || { tap_fail "debugfs hold"; return 1; }
	tap_assert "pair $first back" mend
	tap_wait_for 60 topo_lgr_links_ready 4 ||
		{ tap_fail "no second link again: $(cat $L)"; return 1; }
	cat $L
	for role in client server; do
		[ "$(topo_lgr_link_pair $role 0)" = "$first" ] ||
			tap_fail "the $role group's new link is not in slot 0 on pair $first: $(cat $L)"
	done
	tap_wait_for 10 keys_known 2 ||
		{ tap_fail "an end does not know the peer's RMB on the new link: $(cat $C)"; return 1; }
	move down "$second" "$first" || return 1
	moved 0 2
	on_pair "$first"
	finish down
	counts twice 2
	for role in client server; do
		topo_links_added $role 2 "$(echo "$groups" | grep " role $role ")"
	done
	return 0
}

# on_slot SLOT N: N connections of each end on link SLOT (debugfs).
on_slot() {
	[ "$(grep -c " role client .* slot $1 " $C)" = "$2" ] &&
		[ "$(grep -c " role server .* slot $1 " $C)" = "$2" ]
}

# link_stats: "MOVED BYTES", this namespace's SMC-R failover counters as
# smcr -d stats shows them (af_smc's SMC_NETLINK_GET_LINK_STATS).
link_stats() {
	$B/smcr -a -d stats | awk '/^  Connections moved / { m = $3 }
		/^  Bytes written again / { b = $4 } END { print m + 0, b + 0 }'
}

# stats_moved N: link_stats counts at least N more moves than $s0 did.
stats_moved() {
	_s=$(link_stats)
	[ $((${_s% *} - ${s0% *})) -ge "$1" ]
}

# many: 200 connections of one group (tap_volume divides them), each with
# an echo of 1000 bytes verified, spread over both links; the first pair
# down: every connection on the first link moves (failovers 1), all of
# them are on the second, and each one's next 1000 bytes come back
# verified.
many() {
	n=$many
	rm -f "$TMPDIR/s.ready" "$TMPDIR/go"
	$T/smc-conns -s -a $A -p $port -n $n -r "$TMPDIR/s.ready" -t 600 \
		>"$TMPDIR/s.log" 2>&1 </dev/null &
	echo $! >"$TMPDIR/s.pid"
	tap_wait_for 30 test -e "$TMPDIR/s.ready" || { tap_fail "no server"; return 1; }
	$T/smc-conns -c -a $A -p $port -n $n -W "$TMPDIR/go" -t 600 \
		>"$TMPDIR/c.log" 2>&1 </dev/null &
	echo $! >"$TMPDIR/c.pid"
	tap_wait_for 300 grep -q '^open ' "$TMPDIR/c.log" ||
		{ tap_fail "the connections did not open: $(cat "$TMPDIR/c.log")"; return 1; }
	cat "$TMPDIR/c.log"
	grep -qx "open $n verified $n modes smcr=$n smcd=0 tcp=0" "$TMPDIR/c.log" ||
		{ tap_fail "not $n verified SMC-R connections"; return 1; }
	tap_wait_for 30 topo_lgr_links_ready 4 ||
		{ tap_fail "not two ready links per group: $(cat $L)"; return 1; }
	grep '^lgr ' $L
	[ "$(grep -c '^lgr ' $L)" = 2 ] || { tap_fail "not one group per end"; return 1; }
	n0=$(grep -c ' role client .* slot 0 ' $C) n1=$(grep -c ' role client .* slot 1 ' $C)
	tap_diag "before: $n0 connections on link 0, $n1 on link 1"
	[ "$n0" -gt 0 ] && [ "$n1" -gt 0 ] && [ $((n0 + n1)) = $n ] ||
		{ tap_fail "the connections are not spread over both links"; return 1; }
	first=$(topo_lgr_link_pair client 0) second=$(topo_lgr_link_pair client 1)
	# After the del case rxev1 is the last RDMA device registered, rxew1
	# has the same PNET ID and comes first: the first link still takes
	# the port under the connection's own netdev (smcv1), not rxew1,
	# whose GID pair v cannot reach (the first contact then failed).
	[ "$first" = v ] ||
		{ tap_fail "the group's first link is on pair '$first', not on pair v under the connection's route"; return 1; }
	tap_wait_for 10 keys_known $((2 * n)) ||
		{ tap_fail "$(grep -vc ' peer_slots 0x3$' $C) ends do not know the peer's RMB on both links"; return 1; }
	s0=$(link_stats)
	t0=$(tap_now_ms)
	tap_assert "down on pair $first" fail down "$first"
	tap_wait_for 60 on_slot 1 $n || {
		tap_fail "not all $n connections on link 1: $(grep -c ' slot 1 ' $C); the others:"
		grep -v ' slot 1 ' $C
		cat $L
		return 1
	}
	tap_diag "all $n on link 1 after $(($(tap_now_ms) - t0)) ms"
	resent=0
	for role in client server; do
		f=$(grep -c " role $role .* slot 1 failovers 1 " $C)
		[ "$f" = "$n0" ] || tap_fail "$f $role connections moved, not $n0"
		g=$(grep "^lgr .* role $role " $L)
		[ "$(topo_field failovers "$g")" = "$n0" ] ||
			tap_fail "the $role group counted $(topo_field failovers "$g") failovers, not $n0"
		resent=$((resent + $(topo_field resent "$g")))
	done
	# The namespace's statistics: both ends' moves (both are in this
	# namespace) and the bytes the groups wrote again. A move is counted
	# there last, after its debugfs counts: wait for them, then no more.
	tap_wait_for 10 stats_moved $((2 * n0))
	s1=$(link_stats)
	tap_diag "smcr -d stats: connections moved ${s0% *} -> ${s1% *}, bytes written again ${s0#* } -> ${s1#* } (the groups: $resent)"
	[ $((${s1% *} - ${s0% *})) = $((2 * n0)) ] ||
		tap_fail "smcr -d stats counted $((${s1% *} - ${s0% *})) connections moved, not both ends' $n0"
	[ $((${s1#* } - ${s0#* })) = "$resent" ] ||
		tap_fail "smcr -d stats counted $((${s1#* } - ${s0#* })) bytes written again, not the groups' $resent"
	touch "$TMPDIR/go"
	tap_reap 300 "$TMPDIR/c.pid" "$TMPDIR/c.log" "the client"
	grep -qx "again $n verified $n" "$TMPDIR/c.log" ||
		tap_fail "not every connection echoed again after the failover"
	return 0
}

clean() {
	tap_assert "the pairs mended" mend
	tap_assert "no flow held" sh -c "echo 'hold 0' >$C"
	for f in "$TMPDIR"/*.pid; do
		[ -e "$f" ] && kill "$(cat "$f")" 2>/dev/null
	done
	tap_wait_for 60 sh -c "! grep -q '^lgr ' $L" || tap_fail "groups left: $(cat $L)"
	tail -n 1 $L
	tail -n 1 $L | grep -q ' bufs_freed_posted 0 bufs_deferred 0$' ||
		tap_fail "smcr_lgr says: $(tail -n 1 $L)"
	# The second pair carries the next test's first links: it is ready again.
	tap_wait_for 30 sh -c "rdma link show rxev1/1 | grep -q 'state ACTIVE'" ||
		tap_fail "rxev1 is not ACTIVE again"
	return 0
}

tap_case "setup: smcr=1 lgr_linger=0, two veth pairs with rxev1/rxev2 and rxew1/rxew2" 180 \
	topo_smcr_setup2 lgr_linger=0
tap_case "PNET IDs: SMCNETC on the client's end, SMCNETS on the server's" 30 \
	tap_assert "smc_pnet" topo_veth_rxe2_pnet
tap_case "its pair down under an echo: the echo moves to the other link, byte-exact" 600 failover down
tap_case "the pair back, the echo done: groups gone, no buffer freed while posted" 120 clean
tap_case "all its packets dropped under a one-way stream (retries run out): the stream moves, bytes written again, byte-exact" 600 failover drop
tap_case "the drop ended, the stream done: groups gone, no buffer freed while posted" 120 clean
tap_case "its link broken under a WRITE (debugfs smcr_conns break) in a one-way stream: the WRITE written again, the server told, byte-exact" 600 failover break
tap_case "the break done, the stream done: groups gone, no buffer freed while posted" 120 clean
tap_case "its link broken under the WRITE of an urgent byte (MSG_OOB): the failover sends the mark's CDC again, recv(MSG_OOB) reads the byte" 300 urgent
tap_case "the urgent byte read, the connection closed: groups gone, no buffer freed while posted" 120 clean
tap_case "its pair down, back (a link added again in the first one's slot), the other pair down, under an echo: it moves twice, byte-exact" 900 twice down
tap_case "the pairs back, the echo done: groups gone, no buffer freed while posted" 120 clean
tap_case "the client's device of its pair removed (rdma link del), added again (a link added again), the other pair down, under an echo: it moves twice, byte-exact" 900 twice del
tap_case "the pairs back, the echo done: groups gone, no buffer freed while posted" 120 clean
many=$(tap_volume 200)
tap_case "$many connections over both links, the first pair down: those on it move, all $many echo again" 600 many
tap_case "the pair back, the connections closed: groups gone, no buffer freed while posted" 120 clean
tap_done
