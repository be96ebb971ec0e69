#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# smcr/asym_topo1.sh: asymmetric link groups (issue 20; kernel/
# smcr_lgr_llc.c): one end has one port, the other two, all three on one
# Ethernet (topo_veth_asym: smca1/rxea1 one end's, smcb1/rxeb1 and
# smcb2/rxeb2 the other's, a bridge between them). A group then gets a second link on the
# two-port end's second port and on the one-port end's only port again,
# so that it survives the loss of either of the two ports.
#   - each end with one port of its PNET ID (rxeb2 has a third): the
#     server asks once for a second link, the client rejects it (the
#     server's QP would be on the first link's port too), one link per
#     group, and the server does not ask again;
#   - the client with one port (smca1), the server with two: both
#     groups list two ready links, the client's both on rxea1, the
#     server's on rxeb1 and rxeb2, the QPs paired; the netlink dump calls
#     the client's group ASYML and the server's ASYMP; an echo goes to the
#     new link (fewer connections) and crosses rxeb2; rxeb2's port down
#     under a connection held on the second link: it moves to the first
#     link and stays ACTIVE, an echo goes; the port back: the server adds
#     a second link again;
#   - the server with one port (smca1), the client with two: the same
#     from the other side (the server asks on its one port, the client
#     answers from its second); the client's second port down and up
#     again: a second link again (the client invites the server, or the
#     server asks again once the failed link is gone);
#   - the one-port end's port down under a stream: both links of each
#     group are on it (at that end), so the stream ends with an error and
#     neither group stays usable, in bounded time; the port back, the
#     dead groups go, and a new connection makes new groups with two
#     links;
#   - no buffer was freed while a posted WR named it, none is left
#     deferred, and af_smc unloads with the groups gone.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/topology.sh"
. "$here/../lib/module.sh"

smc_own_module_all "asymmetric link groups are af_smc's own"
command -v rdma >/dev/null || smc_missing_all "no rdma command"
T=$SMC_SELFTESTS/tools
L=/sys/kernel/debug/af_smc/smcr_lgr
C=/sys/kernel/debug/af_smc/smcr_conns
B=/smc/bin
port=4463 port_n=4463

stop_all() { topo_stop_all; }
cleanup() {
	stop_all
	$B/smc_pnet -f 2>/dev/null
	topo_smcr_cleanup
}
tap_at_exit cleanup

# The server's address, set by each case: smca1's (the one-port end) or
# smcb1's (the two-port end); the client connects from the other end
# (topo_veth_asym's rules).
SA=

# server NAME PORT: an echo server on $SA:PORT until stop_all.
server() { topo_echo_server "$1" $SA "$2"; }

# hold NAME: a connection to $SA held open (smc-fbprobe, with a server of
# its own on the next port) until stop_all.
hold() {
	port_n=$((port_n + 1))
	topo_hold "$1" $SA $port_n
}

# g ROLE FIELD: FIELD of the ROLE group's debugfs line.
g() { topo_field "$2" "$(grep "^lgr .* role $1 " $L)"; }

# devs ROLE: the devices of ROLE's group's links, sorted, on one line.
devs() {
	id=$(sed -n "s/^lgr \([0-9]*\) role $1 .*/\1/p" $L | head -n 1)
	[ -n "$id" ] && grep "^link [0-9] lgr $id " $L |
		sed -n 's/.* dev \([a-z0-9]*\) .*/\1/p' | sort | tr '\n' ' '
}

# paired: the second links of both groups are one QP pair.
paired() {
	grep '^link 1 .* ready 1 ' $L | awk '
		{ for (i = 1; i < NF; i++) { if ($i == "qpn") q[NR] = $(i + 1); if ($i == "peer_qpn") p[NR] = $(i + 1) } }
		END { exit !(NR == 2 && q[1] == p[2] && q[2] == p[1]) }'
}

# echo_on DEV: a byte-exact 1 MiB echo to $SA whose packets cross DEV.
echo_on() {
	n=$(topo_rxe_pkts "$1")
	out=$($T/smc-echo -c -f smc -a $SA -p $port -n 1048576 -w 20 -t 300 2>&1) ||
		{ tap_fail "1 MiB echo: $out"; return 1; }
	echo "$out"
	n=$(($(topo_rxe_pkts "$1") - n))
	tap_diag "1 MiB echo: $1 +$n packets"
	echo "$out" | grep -qx 'mode SMCR reason 0x00000000 peer 0x00000000' ||
		tap_fail "the echo is not SMC-R: $(echo "$out" | grep '^mode' || echo 'no mode line')"
	[ $n -ge 1024 ] || tap_fail "$1 did not carry the echo"
	return 0
}

# types: the groups' roles and types as the netlink dump (smcr
# linkgroup) lists them, sorted, on one line.
types() {
	$B/smcr -d linkgroup >"$TMPDIR/lg" 2>&1 ||
		{ tap_fail "smcr -d linkgroup: $(cat "$TMPDIR/lg")"; return 1; }
	cat "$TMPDIR/lg" >&2
	awk '$2 == "SERV" || $2 == "CLNT" { print $2, $3 }' "$TMPDIR/lg" | sort | tr '\n' ' '
}

groups_gone() {
	stop_all
	tap_wait_for 30 sh -c "! grep -q '^lgr ' $L" || tap_fail "groups left: $(cat $L)"
	return 0
}

# Each end has one port of its PNET ID: the server's ADD_LINK on its one port
# is rejected by the client, which has no second port either; one try.
one_port_each() {
	tap_assert "SMCNETA on smca1/rxea1, SMCNETB on smcb1/rxeb1, SMCNETC on smcb2/rxeb2" \
		topo_veth_asym_pnet SMCNETC
	SA=$TOPO_ASYM_IP4_2
	hold h1 || return 1
	tap_wait_for 30 sh -c "[ \"\$(grep -c '^lgr .* add_failed 1\$' $L)\" = 1 ]" ||
		tap_fail "the server did not try a second link once: $(cat $L)"
	# Its tries again would come 2 and 4 s later.
	sleep "$(tap_scaled 5)"
	cat $L
	for role in client server; do
		grep -q "^lgr .* role $role .* links 1 .* links_added 0 " $L ||
			tap_fail "the $role group has not one link"
	done
	[ "$(g server add_failed)" = 1 ] || tap_fail "the server tried $(g server add_failed) times"
	[ "$(g client add_failed)" = 0 ] || tap_fail "the client made a link: $(g client add_failed)"
	groups_gone
}

# asym ONEROLE TWOROLE: both groups have two ready links, ONEROLE's (the
# one-port end's) both on rxea1, TWOROLE's on rxeb1 and rxeb2, paired.
asym() {
	tap_wait_for 30 topo_lgr_links_ready 4 ||
		{ tap_fail "not two ready links per group: $(cat $L)"; return 1; }
	tap_wait_for 10 paired || tap_fail "the second links are not one QP pair: $(grep '^link ' $L)"
	cat $L
	d1=$(devs "$1") d2=$(devs "$2")
	tap_diag "$1 (one port): $d1; $2 (two ports): $d2"
	[ "$d1" = "rxea1 rxea1 " ] || tap_fail "the $1's links are not both on rxea1: $d1"
	[ "$d2" = "rxeb1 rxeb2 " ] || tap_fail "the $2's links are not on rxeb1 and rxeb2: $d2"
	grep -q "^lgr .* role server .* links_added 1 " $L || tap_fail "the server added no link"
}

# down_up: a connection held on the second links, rxeb2's port (smcb2)
# down: the connection moves to the first links and stays ACTIVE, an echo
# goes over rxeb1; the port up again: two links again.
down_up() {
	hold h2 || return 1
	[ "$(grep -c '^link 1 .* ready 1 conns 1 ' $L)" = 2 ] ||
		tap_fail "h2 is not on the second links: $(grep '^link ' $L)"
	tap_assert "smcb2 down" ip link set smcb2 down
	tap_wait_for 30 topo_lgr_links_ready 2 ||
		tap_fail "the second links are still ready: $(grep '^link ' $L)"
	tap_wait_for 30 sh -c "[ \"\$(grep -c ' slot 0 failovers 1 ' $C)\" = 2 ]" ||
		tap_fail "h2 did not move to the first links: $(cat $L $C)"
	for role in client server; do
		grep -q "^lgr .* role $role .* state usable " $L ||
			tap_fail "the $role group did not live on"
	done
	st=$($B/smcss -a | awk -v f="$SA:$port_n" '$5 == f { print $1 }' | head -n 1)
	tap_diag "h2, moved from the failed link: $st"
	[ "$st" = ACTIVE ] || tap_fail "h2, moved to the first link, is $st"
	echo_on rxeb1
	tap_assert "smcb2 up" ip link set smcb2 up
	tap_assert "its routes back" topo_veth_asym_rules
	tap_wait_for 30 _topo_port_active "" rxeb2 || tap_fail "rxeb2 is not ACTIVE again"
	tap_wait_for 60 topo_lgr_links_ready 4 || tap_fail "no second link again: $(cat $L)"
	tap_wait_for 30 paired || tap_fail "the second links are not one QP pair: $(grep '^link ' $L)"
	cat $L
}

# asym_case ADDR ONE TWO TYPES: a server on ADDR (smcb1's: the client
# is the one-port end; smca1's: the server is), ONE and TWO the roles of
# the one-port and the two-port end, TYPES the roles and types the
# netlink dump gives; the second links carry an echo, then fail over and
# come back (down_up). When the client has two ports, the link comes back
# by whichever is first: its invite once its port is up, or the server's
# try once the failed link left (rejected while the port was down).
asym_case() {
	tap_assert "SMCNETA on smca1/rxea1, SMCNETB on smcb1/rxeb1 and smcb2/rxeb2" topo_veth_asym_pnet
	SA=$1
	hold h1 || return 1
	asym "$2" "$3" || return 1
	t=$(types)
	[ "$t" = "$4" ] || tap_fail "the groups are not $4: $t"
	server echo $port || return 1
	echo_on rxeb2
	i0=$(g client invites_sent)
	down_up
	tap_diag "the client sent $(($(g client invites_sent) - i0)) invites"
	echo_on rxeb2
	groups_gone
}

# The one-port end (the client, smca1) loses its port under a stream.
none_usable() { ! grep -q '^lgr .* state usable ' $L; }
one_port_down() {
	tap_assert "SMCNETA on smca1/rxea1, SMCNETB on smcb1/rxeb1 and smcb2/rxeb2" topo_veth_asym_pnet
	SA=$TOPO_ASYM_IP4_2
	hold h1 || return 1
	asym client server || return 1
	server echo $port || return 1
	$T/smc-echo -c -f smc -a $SA -p $port -n 1073741824 -w 20 -t 600 >"$TMPDIR/stream.log" 2>&1 &
	echo $! >"$TMPDIR/stream.pid"
	tap_wait_for 30 grep -q '^mode SMCR' "$TMPDIR/stream.log" ||
		{ tap_fail "no SMC-R stream: $(cat "$TMPDIR/stream.log")"; return 1; }
	t0=$(tap_now_ms)
	tap_assert "smca1 down" ip link set smca1 down
	tap_wait_for 60 sh -c "! kill -0 \$(cat '$TMPDIR/stream.pid') 2>/dev/null" ||
		tap_fail "the stream is still running 60 s after its end's only port went down"
	tap_wait_for 60 none_usable || tap_fail "a group is still usable: $(cat $L)"
	tap_diag "the stream ended and no group was usable after $(($(tap_now_ms) - t0)) ms"
	cat "$TMPDIR/stream.log"
	grep -q '^verified' "$TMPDIR/stream.log" && tap_fail "the stream verified all its bytes"
	rm -f "$TMPDIR/stream.pid"
	stop_all
	# A link of a port that is down stays until the port is back, and its
	# group with it (rxe holds the QP's packets: smcr_lgr_free_work()).
	tap_assert "smca1 up" ip link set smca1 up
	tap_assert "its routes back" topo_veth_asym_rules
	tap_wait_for 30 _topo_port_active "" rxea1 || tap_fail "rxea1 is not ACTIVE again"
	tap_wait_for 60 sh -c "! grep -q '^lgr ' $L" || tap_fail "groups left: $(cat $L)"
	hold h3 || return 1
	asym client server || return 1
	groups_gone
}

# A buffer a WRITE still named when its port went down (the stream's) is
# freed once its link is destroyed, when the group goes: a moment after.
settled() { tail -n 1 $L | grep -q '^lgrs 0 .* bufs_freed_posted 0 bufs_deferred 0$'; }
clean() {
	groups_gone
	t0=$(tap_now_ms)
	tap_wait_for 30 settled || tap_fail "smcr_lgr says: $(tail -n 1 $L)"
	tap_diag "settled after $(($(tap_now_ms) - t0)) ms: $(tail -n 1 $L)"
	return 0
}

tap_case "setup: smcr=1 lgr_linger=0, one end with one port, the other with two, one Ethernet" 180 \
	_topo_smcr_setup topo_veth_asym "topo_veth_asym: rxea1; rxeb1 and rxeb2" lgr_linger=0
tap_case "each end with one port of its PNET ID: the server asks once, the client rejects, one link" 120 \
	one_port_each
tap_case "the client with one port: a second link on it and the server's second port; failover and back" 360 \
	asym_case $TOPO_ASYM_IP4_2 client server "CLNT ASYML SERV ASYMP "
tap_case "the server with one port: the same from the other side; failover and back" 360 \
	asym_case $TOPO_ASYM_IP4_1 server client "CLNT ASYMP SERV ASYML "
tap_case "the one-port end's port down under a stream: it ends, no group stays usable; the port back: two links again" 360 \
	one_port_down
tap_case "connections closed: groups gone, no buffer freed while posted, none deferred" 60 clean
tap_done
