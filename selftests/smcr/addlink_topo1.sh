#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# smcr/addlink_topo1.sh: a link group with a second link (ADD_LINK, issue
# 20; kernel/smcr_lgr_llc.c), in topology 1 with two veth pairs
# (topo_veth_rxe2): the client's end smcv1/rxev1 and smcw1/rxew1 with
# PNET ID SMCNETC, the server's end smcv2/rxev2 and smcw2/rxew2 with
# SMCNETS, so that each end has two ports on the same network. Then
#   - without PNET IDs a group gets no second link (the first path was
#     matched by its GID's netdev: nothing says another port reaches the
#     peer);
#   - with them (one case from here on: its server and held connections
#     end with it), the first connection (held open) makes both groups and
#     the server adds a second link: each group lists two links, both
#     ready, one on each of its end's devices, links_added 1 (debugfs
#     smcr_lgr), and the netlink link dump (smcr linkgroup link-show)
#     shows both, the groups' type SYM;
#   - a 1 MiB echo then goes to the link with fewer connections, the new
#     one: byte-exact, its packets on the new link's pair of devices and
#     (nearly) none on the first's; with a second connection held on the
#     new link, the next echo goes to the first link's pair;
#   - the second links' pair taken down (its near end) under two held
#     connections, one on each link: the second links leave use (ready
#     0), the connection on them fails over to the first links and stays
#     ACTIVE (it was made after the second link: its RMBs were announced
#     on the first with CONFIRM_RKEY), as does the one already there, the
#     groups stay usable, and an echo still goes (over the first pair);
#     the failed links give up their slots, and when the pair comes back
#     the server adds a second link again (one QP pair, both ends ready),
#     which the next echo uses;
#   - the server's DELETE_LINK for the second link alone (debugfs
#     smcr_conns "delete", as a flow that failed on one end sends it):
#     both ends drop that link, its connection fails over to the first
#     links, both stay ACTIVE, and an echo still goes (over either pair:
#     the server may have added a link again);
#   - a client flooding its server with invites (ADD_LINK requests
#     without a QP, debugfs smcr_conns "invite") gets one taken per 2 s;
#   - SMC-Rv2 groups (a UEID configured): the second link as in v1, its
#     ADD_LINK request and response carrying the rkeys in their v2
#     extension (v2 has no CONTINUATION); a connection made before the
#     second link (which knows the peer's RMB there from the extension
#     only) moves to it when the first pair goes down, byte-exact echo
#     over it; the pair back, a link again (the rkeys again in the
#     extensions); then the second pair down, and that connection and
#     one made after the second link (its RMBs announced with a v2
#     CONFIRM_RKEY) move to the new link;
#   - no buffer was freed while a posted WR named it, none is left
#     deferred, and af_smc unloads with both links' groups gone.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/topology.sh"
. "$here/../lib/module.sh"

smc_own_module_all "a second link is af_smc's own"
command -v rdma >/dev/null || smc_missing_all "no rdma command"
T=$SMC_SELFTESTS/tools
L=/sys/kernel/debug/af_smc/smcr_lgr
C=/sys/kernel/debug/af_smc/smcr_conns
PNET=/smc/bin/smc_pnet
SMCR=/smc/bin/smcr
SMCD=/smc/bin/smcd
B=/smc/bin
A=$TOPO_VETH_IP4_2
port=4463 port_n=4463

stop_all() { topo_stop_all; }
cleanup() {
	stop_all
	$PNET -f 2>/dev/null
	$SMCD ueid flush 2>/dev/null
	topo_smcr_cleanup
}
tap_at_exit cleanup

# server NAME PORT: an echo server on PORT until stop_all. It serves one
# connection at a time: each held connection gets a server of its own.
server() { topo_echo_server "$1" $A "$2"; }

# hold NAME: a connection held open (smc-fbprobe, with a server of its
# own on the next port) until stop_all.
hold() {
	port_n=$((port_n + 1))
	topo_hold "$1" $A $port_n
}

# ready_links: the number of "link" lines of debugfs smcr_lgr with ready 1.
ready_links() {
	grep -c '^link .* ready 1 ' $L
}

# echo_over PAIR OTHER: a byte-exact 1 MiB echo whose packets cross the
# devices of PAIR (v or w), and nearly none OTHER's (keepalives may).
echo_over() {
	p=$(topo_pair_pkts "$1") o=$(topo_pair_pkts "$2")
	out=$($T/smc-echo -c -f smc -a $A -p $port -n 1048576 -w 20 -t 300 2>&1) ||
		{ tap_fail "1 MiB echo: $out"; return 1; }
	echo "$out"
	p=$(($(topo_pair_pkts "$1") - p)) o=$(($(topo_pair_pkts "$2") - o))
	tap_diag "1 MiB echo: pair $1 +$p, pair $2 +$o packets"
	echo "$out" | grep -qx 'mode SMCR reason 0x00000000 peer 0x00000000' ||
		tap_fail "the echo is not SMC-R: $(echo "$out" | grep '^mode' || echo 'no mode line')"
	[ $p -ge 2048 ] || tap_fail "pair $1 did not carry the echo"
	[ $o -le 40 ] || tap_fail "pair $2 moved $o packets during an echo over pair $1"
	return 0
}

no_pnet() {
	hold h0 || return 1
	# The server would have asked at once: give it the time of a flow.
	sleep "$(tap_scaled 2)"
	cat $L
	[ "$(grep -c '^link ' $L)" = 2 ] || tap_fail "not one link per group: $(grep '^link ' $L)"
	grep -q '^lgr .* links 1 .* links_added 0 add_failed 0$' $L ||
		tap_fail "a group tried a second link without PNET IDs"
	stop_all
	tap_wait_for 30 sh -c "! grep -q '^lgr ' $L" || tap_fail "groups left: $(cat $L)"
	return 0
}

# first_held: a held connection h1, and the groups' two links ready.
first_held() {
	hold h1 || return 1
	tap_wait_for 30 topo_lgr_links_ready 4 ||
		{ tap_fail "not two ready links per group: $(cat $L)"; return 1; }
}

two_links() {
	first_held || return 1
	cat $L
	for role in client server; do
		grep -q "^lgr .* role $role .* links 2 .* links_added 1 add_failed 0\$" $L ||
			tap_fail "the $role group did not add a link"
		d0=$(topo_lgr_link_pair $role 0) d1=$(topo_lgr_link_pair $role 1)
		tap_diag "$role: link 0 on pair $d0, link 1 on pair $d1"
		[ -n "$d0" ] && [ -n "$d1" ] && [ "$d0" != "$d1" ] ||
			tap_fail "the $role group's links are not on its two pairs: '$d0' '$d1'"
	done
	# Each end's links pair up: the client's second link with the server's.
	[ "$(topo_lgr_link_pair client 1)" = "$(topo_lgr_link_pair server 1)" ] ||
		tap_fail "the second links are on different pairs"
	$SMCR -dd linkgroup link-show >"$TMPDIR/ls" 2>&1 || tap_fail "smcr -dd linkgroup link-show: $(cat "$TMPDIR/ls")"
	cat "$TMPDIR/ls"
	for d in rxev1 rxew1 rxev2 rxew2; do
		grep -q "$d" "$TMPDIR/ls" || tap_fail "link-show does not list a link on $d"
	done
	# SMC_NLA_LGR_R_TYPE: symmetric (two links on each end).
	[ "$(grep -cE '^[0-9a-f]+ +(SERV|CLNT) +SYM ' "$TMPDIR/ls")" = 4 ] ||
		tap_fail "link-show does not call both groups SYM"

	# New connections: to the link with fewer connections.
	server echo $port || return 1
	new=$(topo_lgr_link_pair client 1) first=$(topo_lgr_link_pair client 0)
	# h1 is on the first link: the echo goes to the second.
	echo_over "$new" "$first"
	# h2 goes to the second (fewer connections), then the first is the one.
	hold h2 || return 1
	grep "^link " $L
	[ "$(grep -c '^link 1 .* ready 1 conns 1 ' $L)" = 2 ] ||
		tap_fail "the second held connection is not on the second links"
	echo_over "$first" "$new"
	stop_all
	return 0
}

# state_to PORT: the state smcss -a gives the client socket to $A:PORT.
state_to() {
	$B/smcss -a | awk -v f="$A:$1" '$5 == f { print $1 }' | head -n 1
}

# no_link SLOT: debugfs smcr_lgr lists no link in SLOT.
no_link() {
	! grep -q "^link $1 " $L
}

# second_links_pair: exactly two links in slot 1, ready, each one's QP the
# other's peer QP (the client's and the server's ends of one link).
second_links_pair() {
	grep '^link 1 .* ready 1 ' $L | awk '
		{ for (i = 1; i < NF; i++) { if ($i == "qpn") q[NR] = $(i + 1); if ($i == "peer_qpn") p[NR] = $(i + 1) } }
		END { exit !(NR == 2 && q[1] == p[2] && q[2] == p[1]) }'
}

# both_moved: both ends' first links hold both held connections, one of
# which moved there on each end (CONFIRM_RKEY had given it the rkey).
both_moved() {
	[ "$(grep -c '^link 0 .* ready 1 conns 2 ' $L)" = 2 ] &&
		[ "$(grep -c ' slot 0 failovers 1 ' $C)" = 2 ] &&
		[ "$(grep -c '^lgr .* rkeys_sent [1-9]' $L)" = 2 ]
}
moved_to_first() {
	tap_wait_for 30 both_moved
}

# A link fails under its connection (its pair's near end down): that
# connection moves to the other link, the group lives on with it.
one_down() {
	first_held || return 1
	hold h2 || return 1
	new=$(topo_lgr_link_pair client 1) first=$(topo_lgr_link_pair client 0)
	[ "$(grep -c '^link 1 .* ready 1 conns 1 ' $L)" = 2 ] ||
		tap_fail "h2 is not on the second links: $(grep '^link ' $L)"
	tap_assert "smc${new}1 down" ip link set "smc${new}1" down
	tap_wait_for 30 topo_lgr_links_ready 2 ||
		tap_fail "the second links are still ready: $(grep '^link ' $L)"
	cat $L
	# Usable; how many links each still lists depends on how soon its
	# failed link's connection was closed (then the link gives up its slot).
	for role in client server; do
		grep -q "^lgr .* role $role .* state usable " $L ||
			tap_fail "the $role group did not live on"
	done
	# h1 on the first link lives on, h2 on the failed one moved there.
	moved_to_first || tap_fail "h2 did not move to the first links: $(cat $L $C)"
	$B/smcss -a
	s1=$(state_to 4464) s2=$(state_to 4465)
	tap_diag "h1 (first link): $s1, h2 (moved from the failed link): $s2"
	[ "$s1" = ACTIVE ] || tap_fail "h1 on the first link is $s1"
	[ "$s2" = ACTIVE ] || tap_fail "h2, moved to the first link, is $s2"
	server echo $port || return 1
	echo_over "$first" "$new"
	# The failed links have no connection left and give up their slots.
	tap_wait_for 30 no_link 1 || tap_fail "the failed links kept their slots: $(grep '^link ' $L)"
	tap_assert "smc${new}1 up" ip link set "smc${new}1" up
	tap_assert "the rules and routes back" topo_veth_rules on
	tap_wait_for 30 sh -c "rdma link show rxe${new}1/1 | grep -q 'state ACTIVE'" ||
		tap_fail "rxe${new}1 is not ACTIVE again"
	# The port is back: the server adds a link again. A flow that failed
	# on one end after the other had finished (the routes come back a
	# moment after the port) is ended on both by its DELETE_LINK, so
	# what counts is that the two ends' second links are one QP pair.
	tap_wait_for 30 topo_lgr_links_ready 4 || tap_fail "no second link again: $(cat $L)"
	tap_wait_for 30 second_links_pair || tap_fail "the second links are not one QP pair: $(grep '^link ' $L)"
	cat $L
	for role in client server; do
		grep -q "^lgr .* role $role .* links 2 " $L ||
			tap_fail "the $role group does not have two links again"
	done
	echo_over "$new" "$first"
	stop_all
	tap_wait_for 30 sh -c "! grep -q '^lgr ' $L" || tap_fail "groups left: $(cat $L)"
	return 0
}

clean() {
	stop_all
	tap_wait_for 30 sh -c "! grep -q '^lgr ' $L" || tap_fail "groups left: $(cat $L)"
	tail -n 1 $L
	tail -n 1 $L | grep -q ' bufs_freed_posted 0 bufs_deferred 0$' ||
		tap_fail "smcr_lgr says: $(tail -n 1 $L)"
	return 0
}

# The peer's DELETE_LINK for one link (what a flow that failed on one end
# sends, after the other end had finished it): both ends take that link
# down, its connection is reset, the first link's connection and the
# groups live on.
delete_one() {
	first_held || return 1
	hold h2 || return 1
	[ "$(grep -c '^link 1 .* ready 1 conns 1 ' $L)" = 2 ] ||
		tap_fail "h2 is not on the second links: $(grep '^link ' $L)"
	num=$(sed -n 's/^link 1 lgr [0-9]* num \([0-9]*\) .*/\1/p' $L | sort -u)
	[ "$(echo "$num" | wc -l)" = 1 ] || tap_fail "the second links have different numbers: $num"
	tap_diag "the server deletes link number $num"
	echo "delete server $num" >/sys/kernel/debug/af_smc/smcr_conns ||
		{ tap_fail "debugfs smcr_conns refused 'delete server $num'"; return 1; }
	# Gone on both ends (a new second link may come at once: another number).
	tap_wait_for 30 sh -c "! grep -q '^link .* num $num ' $L" ||
		tap_fail "link number $num is still there: $(grep '^link ' $L)"
	moved_to_first || tap_fail "h2 did not move to the first links: $(cat $L $C)"
	$B/smcss -a
	[ "$(state_to 4464)" = ACTIVE ] || tap_fail "h1 on the first link is $(state_to 4464)"
	[ "$(state_to 4465)" = ACTIVE ] || tap_fail "h2, moved to the first link, is $(state_to 4465)"
	grep '^link ' $L
	for role in client server; do
		grep -q "^lgr .* role $role .* state usable " $L ||
			tap_fail "the $role group did not live on"
	done
	# The second link's slot is free at once (its connection moved), so
	# the server may add a link again before the echo: either pair.
	server echo $port || return 1
	out=$($T/smc-echo -c -f smc -a $A -p $port -n 1048576 -w 20 -t 300 2>&1) ||
		tap_fail "1 MiB echo: $out"
	echo "$out"
	echo "$out" | grep -qx 'mode SMCR reason 0x00000000 peer 0x00000000' ||
		tap_fail "the echo is not SMC-R"
	stop_all
	tap_wait_for 30 sh -c "! grep -q '^lgr ' $L" || tap_fail "groups left: $(cat $L)"
	return 0
}

# invites: the client's group sends 10 invites at once (debugfs smcr_conns
# "invite 10", as a client flooding its server would), and 10 more 2.5 s
# later. The server takes the first of each burst (invites_taken) and no
# more than one per 2 s (smcr_lgr_llc_invited()): a flood gets no more
# flows than a flapping port. Its group has both links, so a flow it
# starts finds nothing to add; the links stay as they were.
# g ROLE FIELD: FIELD of the ROLE group's debugfs line.
g() { topo_field "$2" "$(grep "^lgr .* role $1 " $L)"; }
taken_more() { [ "$(g server invites_taken)" -gt "$1" ]; }
invites() {
	first_held || return 1
	s0=$(g client invites_sent) k0=$(g server invites_taken)
	t0=$(tap_now_ms)
	for burst in 1 2; do
		[ $burst = 1 ] || sleep 2.5
		k=$(g server invites_taken)
		echo "invite 10" >$C || { tap_fail "debugfs smcr_conns refused 'invite 10'"; return 1; }
		tap_wait_for 10 taken_more "$k" ||
			{ tap_fail "burst $burst: the server took no invite ($(g server invites_taken))"; return 1; }
	done
	# Time for the last invites to arrive: the bound below grows with it.
	sleep "$(tap_scaled 1)"
	k1=$(g server invites_taken) t1=$(tap_now_ms)
	sent=$(($(g client invites_sent) - s0)) took=$((k1 - k0))
	most=$((1 + (t1 - t0) / 2000))
	tap_diag "the client sent $sent invites in two bursts 2.5 s apart; the server took $took in $((t1 - t0)) ms (at most $most)"
	[ "$sent" = 20 ] || tap_fail "the client sent $sent invites, not 20"
	[ "$took" -le "$most" ] || tap_fail "the server took $took invites in $((t1 - t0)) ms"
	[ "$(ready_links)" = 4 ] || tap_fail "the links changed: $(grep '^link ' $L)"
	stop_all
	tap_wait_for 30 sh -c "! grep -q '^lgr ' $L" || tap_fail "groups left: $(cat $L)"
	return 0
}

# on_link_conns PAIR N: both ends' links on PAIR are ready with N
# connections each.
on_link_conns() {
	n=0
	for role in client server; do
		for s in 0 1; do
			[ "$(topo_lgr_link_pair $role $s)" = "$1" ] || continue
			grep "^link $s " $L | grep -q " ready 1 conns $2 " && n=$((n + 1))
		done
	done
	[ $n = 2 ]
}

# pair_back PAIR: PAIR's near end up, its rules back, its rxe ACTIVE, and
# a second link again on both ends.
pair_back() {
	tap_assert "smc${1}1 up" ip link set "smc${1}1" up
	tap_assert "the rules and routes back" topo_veth_rules on
	tap_wait_for 30 sh -c "rdma link show rxe${1}1/1 | grep -q 'state ACTIVE'" ||
		tap_fail "rxe${1}1 is not ACTIVE again"
	tap_wait_for 30 topo_lgr_links_ready 4 || { tap_fail "no second link again: $(cat $L)"; return 1; }
	tap_wait_for 30 second_links_pair || tap_fail "the second links are not one QP pair: $(grep '^link ' $L)"
}

v2_links() {
	tap_assert "UEID" $SMCD ueid add SMCR.ADDLINK.V2 || return 1
	first_held || return 1
	cat $L
	for role in client server; do
		line=$(grep "^lgr .* role $role " $L)
		[ "$(topo_field version "$line")" = 2 ] && [ "$(topo_field links "$line")" = 2 ] &&
			[ "$(topo_field links_added "$line")" = 1 ] && [ "$(topo_field add_failed "$line")" = 0 ] ||
			tap_fail "the $role group is not an SMC-Rv2 group with a second link"
	done
	first=$(topo_lgr_link_pair client 0) new=$(topo_lgr_link_pair client 1)
	hold h2 || return 1
	on_link_conns "$new" 1 || tap_fail "h2 is not on the second links: $(grep '^link ' $L)"
	[ "$(grep -c '^lgr .* rkeys_sent [1-9]' $L)" = 2 ] ||
		tap_fail "h2's RMBs were not announced with CONFIRM_RKEY: $(grep '^lgr ' $L)"
	# h1 knows the peer's RMB on the second link from the ADD_LINK only.
	tap_assert "smc${first}1 down" ip link set "smc${first}1" down
	tap_wait_for 30 on_link_conns "$new" 2 ||
		tap_fail "h1 did not move to the second links: $(cat $L $C)"
	$B/smcss -a
	[ "$(state_to 4464)" = ACTIVE ] || tap_fail "h1, moved to the second link, is $(state_to 4464)"
	[ "$(state_to 4465)" = ACTIVE ] || tap_fail "h2 on the second link is $(state_to 4465)"
	server echo $port || return 1
	echo_over "$new" "$first"
	tap_wait_for 30 no_link 0 || tap_fail "the failed links kept their slots: $(grep '^link ' $L)"
	pair_back "$first" || return 1
	cat $L
	# Now the other pair: h1 and h2 move to the link just added.
	tap_assert "smc${new}1 down" ip link set "smc${new}1" down
	tap_wait_for 30 on_link_conns "$first" 2 ||
		tap_fail "h1 and h2 did not move to the new link: $(cat $L $C)"
	[ "$(state_to 4464)" = ACTIVE ] || tap_fail "h1 is $(state_to 4464)"
	[ "$(state_to 4465)" = ACTIVE ] || tap_fail "h2 is $(state_to 4465)"
	echo_over "$first" "$new"
	pair_back "$new" || return 1
	stop_all
	tap_wait_for 30 sh -c "! grep -q '^lgr ' $L" || tap_fail "groups left: $(cat $L)"
	tap_assert "UEID gone" $SMCD ueid del SMCR.ADDLINK.V2
	return 0
}

tap_case "setup: smcr=1 lgr_linger=0, two veth pairs with rxev1/rxev2 and rxew1/rxew2" 180 \
	topo_smcr_setup2 lgr_linger=0
tap_case "without PNET IDs: one link per group" 120 no_pnet
tap_case "PNET IDs: SMCNETC on the client's end, SMCNETS on the server's" 30 \
	tap_assert "smc_pnet" topo_veth_rxe2_pnet
tap_case "the server adds a second link, both ends list two; new connections go to the one with fewer (1 MiB echoes)" 360 two_links
tap_case "the server deletes the second link (DELETE_LINK for it alone): both ends drop it, its connection moves to the first link" 240 delete_one
tap_case "a client floods its server with invites (20 ADD_LINK requests without a QP, debugfs smcr_conns invite): the server takes one per 2 s" 120 invites
tap_case "a second link fails (its pair down): its connection moves to the first link; the pair back: a link again" 300 one_down
tap_case "SMC-Rv2 groups: ADD_LINKs with the rkeys in their v2 extension; a connection from before the second link moves there, both move back to a new first link" 360 v2_links
tap_case "connections closed: groups gone, no buffer freed while posted, none deferred" 60 clean
tap_done
