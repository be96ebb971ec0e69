#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# smcr/obs_topo1.sh: what sock_diag, SMC_GEN_NETLINK and the tools say
# about live SMC-R connections, checked against other sources. One VM,
# topology 1 (topo_veth_rxe): client 10.43.2.1 on smcv1/rxev1, server
# 10.43.2.2 on smcv2/rxev2; af_smc loaded with smcr=1 loopback_ism=0.
# N connections (smc-conns, 1000 bytes echoed on each) are held open
# while we look:
#   - sock_diag (smcss -R, smcss -R -d): every connection is SMCR, the
#     client's on rxev1 port 1 as CLNT, the server's on rxev2 as SERV;
#     the GIDs are the RoCEv2 GIDs of 10.43.2.1 and 10.43.2.2, computed
#     from the addresses and found in the rxe devices' sysfs GID tables;
#     CONNINFO: tokens non-zero and distinct per side, each side's Peerbuf
#     is the other side's Rcvbuf, and the cursors say 1000 bytes went each
#     way and were consumed, the server's view of the client's reading
#     excepted (below the update limit, not announced: Txcons 0);
#   - SMC_NETLINK_GET_LGR_SMCR (smcr -j linkgroup): two groups (this VM
#     is both ends), one CLNT and one SERV, each with N connections, their
#     ids, roles and counts equal to the debugfs smcr_lgr lines;
#   - SMC_NETLINK_GET_LINK_SMCR (smcr -j -dd linkgroup link-show): one
#     active link per group with the device, port, netdev and GIDs above;
#     the QP numbers (not a netlink attribute) from debugfs are the ones
#     rdma(8) lists for the device's RC QPs (rdma must list them: the
#     test needs the rdma command);
#   - SMC_NETLINK_GET_DEV_SMCR (smcr -j device): rxev1 and rxev2 port 1
#     count one link each and are critical; after rmmod/insmod neither;
#   - smcr stats: the SMC-R connection counters moved by N per role;
#   - buffer bytes (Linux 6.12's attributes): each group's SNDBUF_ALLOC
#     and RMB_ALLOC (smcr -j linkgroup) are the sums of sock_diag's
#     Sndbuf and Rcvbuf over that side's N connections, and the
#     namespace's TX/RX_RMB_USAGE (smcr -j stats) the sums over both
#     sides;
#   - after the connections closed, the groups still linger, with 0
#     connections, in the dump (lgr_linger), holding no send buffer and
#     their RMBs pooled (RMB_ALLOC as before), and the usage is 0; rmmod
#     works afterwards.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/topology.sh"
. "$here/../lib/module.sh"
. "$here/../lib/tool_run.sh"

smc_own_module_all "smcr=1 is af_smc's own parameter"
command -v rdma >/dev/null || smc_missing_all "no rdma command"
T=$SMC_SELFTESTS/tools
command -v smcr >/dev/null && command -v smcss >/dev/null || tap_skip_all "smcr/smcss not installed"
B=$(dirname "$(command -v smcr)")
L=/sys/kernel/debug/af_smc/smcr_lgr
SRV=$TOPO_VETH_IP4_2
CLI=$TOPO_VETH_IP4_1
port=4470
N=3

stop_pid() {
	[ -s "$1" ] || return 0
	kill "$(cat "$1")" 2>/dev/null
	tap_wait_for 10 sh -c "! kill -0 $(cat "$1") 2>/dev/null"
}
cleanup() {
	stop_pid "$TMPDIR/cli.pid"
	stop_pid "$TMPDIR/srv.pid"
	topo_smcr_cleanup
}
tap_at_exit cleanup

# gid_of A.B.C.D: the RoCEv2 GID of an IPv4 address as Linux prints it.
gid_of() {
	# shellcheck disable=SC2046 # four numbers
	set -- $(echo "$1" | tr . ' ')
	printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x\n' "$1" "$2" "$3" "$4"
}
# json_num FILE KEY: the numbers of "KEY":N in a one-line JSON file.
setup() {
	topo_smcr_setup
	gc=$(gid_of $CLI) gs=$(gid_of $SRV)
	# The oracle for the GIDs: the rxe devices' own tables.
	grep -qx "$gc" /sys/class/infiniband/rxev1/ports/1/gids/* ||
		tap_fail "rxev1 has no GID $gc: $(cat /sys/class/infiniband/rxev1/ports/1/gids/* | sort -u | tr '\n' ' ')"
	grep -qx "$gs" /sys/class/infiniband/rxev2/ports/1/gids/* ||
		tap_fail "rxev2 has no GID $gs"
	$B/smcr -j stats >"$TMPDIR/stats0" || tap_fail "smcr -j stats"
	return 0
}

# Started outside the cases: a case's leftover processes are killed at its end.
start_conns() {
	rm -f "$TMPDIR/ready"
	$T/smc-conns -s -a $SRV -p $port -n $N -r "$TMPDIR/ready" -t 300 \
		>"$TMPDIR/srv.log" 2>&1 </dev/null &
	echo $! >"$TMPDIR/srv.pid"
	tap_wait_for 30 test -e "$TMPDIR/ready" || return 1
	$T/smc-conns -c -a $SRV -p $port -n $N -H 90 -t 300 \
		>"$TMPDIR/cli.log" 2>&1 </dev/null &
	echo $! >"$TMPDIR/cli.pid"
	tap_wait_for 120 grep -q "^open $N verified $N" "$TMPDIR/cli.log" || {
		tap_diag "client: $(cat "$TMPDIR/cli.log")"
		return 1
	}
	tap_diag "client: $(cat "$TMPDIR/cli.log")"
	# smc-conns counts the modes of its own sockets (the client's N).
	grep -q "modes smcr=$N smcd=0 tcp=0" "$TMPDIR/cli.log"
}

diag() {
	$B/smcss -R >"$TMPDIR/ss" || tap_fail "smcss -R"
	$B/smcss -R -d >"$TMPDIR/ssd" || tap_fail "smcss -R -d"
	sed 's/^/  /' "$TMPDIR/ss"
	sed 's/^/  /' "$TMPDIR/ssd"
	gc=$(gid_of $CLI) gs=$(gid_of $SRV)
	# Client sockets: local 10.43.2.1, CLNT on rxev1 port 1.
	nc=$(awk -v a="$CLI:" -v g="$gc" -v p="$gs" \
		'$1 == "ACTIVE" && index($4, a) == 1 && $7 == "SMCR" && $8 == "CLNT" &&
		 $9 == "rxev1" && $10 == "01" && $12 == g && $13 == p' "$TMPDIR/ss" | wc -l)
	ns=$(awk -v a="$SRV:$port" -v g="$gs" -v p="$gc" \
		'$1 == "ACTIVE" && $4 == a && $7 == "SMCR" && $8 == "SERV" &&
		 $9 == "rxev2" && $10 == "01" && $12 == g && $13 == p' "$TMPDIR/ss" | wc -l)
	[ "$nc" = $N ] || tap_fail "$nc client connections as CLNT on rxev1 with its GID, not $N"
	[ "$ns" = $N ] || tap_fail "$ns server connections as SERV on rxev2 with its GID, not $N"
	# The link id is the one debugfs/netlink give (1: the first link).
	lid=$(awk '$7 == "SMCR" { print $11 }' "$TMPDIR/ss" | sort -u)
	[ "$lid" = 01 ] || tap_fail "link ids: $lid"
	return 0
}

conninfo() {
	$B/smcss -R -d >"$TMPDIR/ssd" || tap_fail "smcss -R -d"
	# Columns: 4 local, 5 peer, 9 token, 10 sndbuf, 11 rcvbuf, 12 peerbuf,
	# 13 rxprod 14 rxcons 15 rxflags 16 txprod 17 txcons 18 txflags.
	awk '$1 == "ACTIVE" && $7 == "SMCR"' "$TMPDIR/ssd" >"$TMPDIR/act"
	[ "$(wc -l <"$TMPDIR/act")" = $((2 * N)) ] || tap_fail "$(wc -l <"$TMPDIR/act") SMC-R lines, not $((2 * N))"
	for side in "$CLI:" "$SRV:$port"; do
		toks=$(awk -v a="$side" 'index($4, a) == 1 { print $9 }' "$TMPDIR/act")
		[ "$(echo "$toks" | sort -u | wc -l)" = $N ] || tap_fail "$side tokens not distinct: $toks"
		echo "$toks" | grep -qxE '0+' && tap_fail "$side has a token 0"
	done
	# Each client line with its server line (local and peer swapped).
	while read -r _ _ _ loc peer _ _ _ tok sb rb pb rxp rxc _ txp txc _; do
		case "$loc" in "$CLI:"*) ;; *) continue ;; esac
		other=$(awk -v l="$peer" -v p="$loc" '$4 == l && $5 == p' "$TMPDIR/act")
		[ -n "$other" ] || { tap_fail "no server line for $loc"; continue; }
		# shellcheck disable=SC2086 # fields
		set -- $other
		[ "$pb" = "${11}" ] || tap_fail "$loc: Peerbuf $pb, server's Rcvbuf ${11}"
		[ "${12}" = "$rb" ] || tap_fail "$loc: server's Peerbuf ${12}, our Rcvbuf $rb"
		[ "$tok" != "$9" ] || tap_diag "$loc: both sides have token $tok"
		# 1000 bytes each way, all of them read: (wrap 0, count 0x3e8).
		for c in "$rxp" "$rxc" "$txp" "$txc" "${13}" "${14}" "${16}"; do
			[ "$c" = "0000:000003e8" ] || tap_fail "$loc: a cursor reads $c, not 0000:000003e8"
		done
		# But the server has not heard that the client read the echo: a
		# read below SMC-R's update limit (a tenth of the ring, at most
		# 2 KiB) sends no CDC, and the client sent nothing since.
		[ "${17}" = "0000:00000000" ] ||
			tap_fail "$loc: the server's Txcons reads ${17}, not 0000:00000000 (1000 bytes read are below the update limit)"
		tap_diag "$loc: token $tok sndbuf $sb rcvbuf $rb peerbuf $pb; server token $9"
	done <"$TMPDIR/act"
	return 0
}

lgr_dump() {
	cat $L | sed 's/^/  debugfs: /'
	$B/smcr -j linkgroup >"$TMPDIR/lg" || tap_fail "smcr -j linkgroup"
	$B/smcr linkgroup | sed 's/^/  /'
	cat "$TMPDIR/lg"
	[ "$(grep -c '^lgr ' $L)" = 2 ] || tap_fail "debugfs has $(grep -c '^lgr ' $L) groups, not 2"
	[ "$(json_vals "$TMPDIR/lg" lg_id | wc -l)" = 2 ] || tap_fail "the dump has not 2 groups"
	for role in client server; do
		line=$(grep "^lgr .* role $role " $L)
		id=$(echo "$line" | sed 's/^lgr \([0-9]*\) .*/\1/')
		conns=$(echo "$line" | sed 's/.* conns \([0-9]*\) .*/\1/')
		[ "$conns" = $N ] || tap_fail "debugfs: $role group has $conns connections"
		hex=$(printf '0x%08x' "$id")
		r=$([ $role = client ] && echo CLNT || echo SERV)
		tr '{' '\n' <"$TMPDIR/lg" | grep -q "\"lg_id\":\"$hex\",\"role\":\"$r\",\"type\":\"SINGLE\",\"vlan\":0,\"conns\":$N" ||
			tap_fail "no group $hex $r SINGLE with $N connections in the dump"
	done
	return 0
}

link_dump() {
	$B/smcr -dd linkgroup link-show | sed 's/^/  /'
	$B/smcr -j linkgroup link-show >"$TMPDIR/lk" || tap_fail "smcr -j linkgroup link-show"
	cat "$TMPDIR/lk"
	tr '{' '\n' <"$TMPDIR/lk" | grep '"lg_id"' >"$TMPDIR/lk1"
	[ "$(wc -l <"$TMPDIR/lk1")" = 2 ] || tap_fail "$(wc -l <"$TMPDIR/lk1") links, not 2"
	gc=$(gid_of $CLI) gs=$(gid_of $SRV)
	for role in client server; do
		if [ $role = client ]; then r=CLNT nd=smcv1 ib=rxev1 g=$gc p=$gs; else r=SERV nd=smcv2 ib=rxev2 g=$gs p=$gc; fi
		id=$(printf '0x%08x' "$(grep "^lgr .* role $role " $L | cut -d' ' -f2)")
		grep -q "\"lg_id\":\"$id\",\"role\":\"$r\",\"type\":\"SINGLE\",\"netdev\":\"$nd\",\"state\":\"LINK_ACTIVE\",\"conns\":$N,.*\"ib_device\":\"$ib\",\"ib_port\":1,\"gid\":\"$g\",\"peer_gid\":\"$p\",\"link_id\":1" "$TMPDIR/lk1" ||
			tap_fail "no active link of $id ($r) on $ib port 1 over $nd with GIDs $g/$p"
	done
	# Our link has one uid both ends agree on (the server's): the client's
	# and the server's links show the same one.
	[ "$(json_vals "$TMPDIR/lk1" link_uid | sort -u | wc -l)" = 1 ] ||
		tap_fail "the two ends show different link uids: $(json_vals "$TMPDIR/lk1" link_uid)"
	# The QP numbers are in debugfs only; rdma(8) is the oracle for them:
	# a QP check that rdma cannot make is a failure, not a pass.
	rdma resource show qp >"$TMPDIR/qp" 2>&1 ||
		tap_fail "rdma resource show qp failed: $(cat "$TMPDIR/qp")"
	sed 's/^/  rdma: /' "$TMPDIR/qp"
	grep -q '^link rxev[12]/1 .* type RC ' "$TMPDIR/qp" ||
		tap_fail "rdma lists no RC QP on rxev1 or rxev2"
	for role in client server; do
		line=$(grep "^lgr .* role $role " $L)
		dev=$(echo "$line" | sed 's/.* dev \([^ ]*\) .*/\1/')
		q=$(echo "$line" | sed 's/.* qpn \([0-9]*\) .*/\1/')
		pq=$(echo "$line" | sed 's/.* peer_qpn \([0-9]*\) .*/\1/')
		grep -q "^link $dev/1 lqpn $q rqpn $pq type RC state RTS .*comm \[af_smc\]" "$TMPDIR/qp" ||
			tap_fail "rdma lists no RC QP $q (peer $pq) in RTS on $dev/1"
	done
	return 0
}

# dev_line IBDEV: the JSON object of IBDEV's port 1 in smcr -j device.
dev_line() {
	$B/smcr -j device | tr '{' '\n' | grep "\"ib_device\":\"$1\",\"ib_port\":1,"
}

devices() {
	$B/smcr -d device | sed 's/^/  /'
	for d in rxev1 rxev2; do
		line=$(dev_line $d)
		tap_diag "$line"
		echo "$line" | grep -q '"critical":true' || tap_fail "$d is not critical with a link on it"
		echo "$line" | grep -q '"links":1,' || tap_fail "$d port 1 does not count 1 link"
	done
	return 0
}

stats() {
	$B/smcr -j stats >"$TMPDIR/stats1" || tap_fail "smcr -j stats"
	$B/smcr stats | sed 's/^/  /'
	for k in SMC_CLNT_V1_SUCC_CNT SMC_SRV_V1_SUCC_CNT; do
		a=$(json_vals "$TMPDIR/stats0" "$k" | head -n 1)
		b=$(json_vals "$TMPDIR/stats1" "$k" | head -n 1)
		tap_diag "$k: $a -> $b"
		[ -n "$a" ] && [ -n "$b" ] && [ $((b - a)) = $N ] ||
			tap_fail "$k moved from '$a' to '$b', not by $N"
	done
	return 0
}

# side_sum FIELD ADDR: the sum of sock_diag's hex column FIELD (10
# Sndbuf, 11 Rcvbuf) over the SMC-R connections whose local address
# starts with ADDR.
side_sum() {
	_sum=0
	for _h in $(awk -v a="$2" -v f="$1" '$1 == "ACTIVE" && $7 == "SMCR" && index($4, a) == 1 { print $f }' "$TMPDIR/ssb"); do
		_sum=$((_sum + 0x$_h))
	done
	echo $_sum
}

buffers() {
	$B/smcss -R -d >"$TMPDIR/ssb" || tap_fail "smcss -R -d"
	$B/smcr -j linkgroup >"$TMPDIR/lgb" || tap_fail "smcr -j linkgroup"
	$B/smcr -j stats >"$TMPDIR/stb" || tap_fail "smcr -j stats"
	$B/smcr -d linkgroup | sed 's/^/  /'
	all_sb=0 all_rb=0
	for r in CLNT SERV; do
		if [ $r = CLNT ]; then a="$CLI:"; else a="$SRV:$port"; fi
		sb=$(side_sum 10 "$a") rb=$(side_sum 11 "$a")
		all_sb=$((all_sb + sb)) all_rb=$((all_rb + rb))
		tr '{' '\n' <"$TMPDIR/lgb" | grep "\"role\":\"$r\"" >"$TMPDIR/lg-$r"
		got_sb=$(json_vals "$TMPDIR/lg-$r" sndbuf_alloc) got_rb=$(json_vals "$TMPDIR/lg-$r" rmb_alloc)
		tap_diag "$r: sock_diag sndbufs $sb rmbs $rb; group sndbuf_alloc $got_sb rmb_alloc $got_rb"
		[ "$sb" -gt 0 ] && [ "$rb" -gt 0 ] || tap_fail "$r: sock_diag shows no buffer sizes"
		[ "$got_sb" = "$sb" ] || tap_fail "$r group: sndbuf_alloc '$got_sb', sock_diag's Sndbufs add up to $sb"
		[ "$got_rb" = "$rb" ] || tap_fail "$r group: rmb_alloc '$got_rb', sock_diag's Rcvbufs add up to $rb"
		echo "$got_rb" >"$TMPDIR/rmb-$r"
	done
	tx=$(json_vals "$TMPDIR/stb" SMC_TX_RMB_USAGE) rx=$(json_vals "$TMPDIR/stb" SMC_RX_RMB_USAGE)
	tap_diag "usage: tx $tx rx $rx; sock_diag: $all_sb $all_rb"
	[ "$tx" = $all_sb ] || tap_fail "SMC_TX_RMB_USAGE '$tx', sock_diag's Sndbufs add up to $all_sb"
	[ "$rx" = $all_rb ] || tap_fail "SMC_RX_RMB_USAGE '$rx', sock_diag's Rcvbufs add up to $all_rb"
	return 0
}

# After close, the buffers the groups hold: no send buffer (one a posted
# WRITE still named is freed when it completes), the N RMBs pooled.
buffers_after() {
	for r in CLNT SERV; do
		tap_wait_for 30 sh -c "$B/smcr -j linkgroup | tr '{' '\n' | grep '\"role\":\"$r\"' | grep -q '\"sndbuf_alloc\":0,'" ||
			tap_fail "$r group still holds send buffers: $($B/smcr -j linkgroup)"
		$B/smcr -j linkgroup | tr '{' '\n' | grep "\"role\":\"$r\"" >"$TMPDIR/lg-$r"
		got=$(json_vals "$TMPDIR/lg-$r" rmb_alloc)
		[ "$got" = "$(cat "$TMPDIR/rmb-$r")" ] ||
			tap_fail "$r group: rmb_alloc '$got' after close, $(cat "$TMPDIR/rmb-$r") before (all $N RMBs pooled)"
	done
	$B/smcr -j stats >"$TMPDIR/stb" || tap_fail "smcr -j stats"
	usage="$(json_vals "$TMPDIR/stb" SMC_TX_RMB_USAGE) $(json_vals "$TMPDIR/stb" SMC_RX_RMB_USAGE)"
	[ "$usage" = "0 0" ] || tap_fail "usage (tx rx) after close: '$usage', not '0 0'"
}

after_close() {
	tap_wait_for 120 sh -c "! kill -0 $(cat "$TMPDIR/cli.pid") 2>/dev/null" ||
		tap_fail "the client did not end"
	tap_wait_for 30 sh -c "! kill -0 $(cat "$TMPDIR/srv.pid") 2>/dev/null" ||
		tap_fail "the server did not end"
	tap_wait_for 30 sh -c "$B/smcr -j linkgroup | grep -q '\"conns\":0.*\"conns\":0'" ||
		tap_fail "the groups do not show 0 connections: $($B/smcr -j linkgroup)"
	$B/smcss -R -a | sed 's/^/  /'
	# An smcss that fails prints no SMCR line either: its status counts.
	$B/smcss -R >"$TMPDIR/ss_after" || tap_fail "smcss -R"
	[ "$(grep -c SMCR "$TMPDIR/ss_after")" = 0 ] || tap_fail "SMC-R sockets left"
	buffers_after
	return 0
}

teardown() {
	tap_expect "rmmod and insmod with the groups lingering" smc_module_restore
	[ "$($B/smcr -j linkgroup)" = "[]" ] || tap_fail "groups after reload: $($B/smcr -j linkgroup)"
	line=$(dev_line rxev1)
	echo "$line" | grep -q '"critical":false' && echo "$line" | grep -q '"links":0,' ||
		tap_fail "rxev1 without groups: $line"
	return 0
}

tap_case "setup: smcr=1, topology 1, the rxe GIDs of both addresses" 120 setup
if start_conns; then tap_ok "$N SMC-R connections held open"; else tap_not_ok "$N SMC-R connections held open"; fi
tap_case "sock_diag: mode SMCR, LGRINFO device, port, role, GIDs" 60 diag
tap_case "sock_diag: CONNINFO tokens, buffer sizes, cursors" 60 conninfo
tap_case "LGR_SMCR: two groups with $N connections each, as debugfs says" 60 lgr_dump
tap_case "LINK_SMCR: the active links, device, port, netdev, GIDs, QPs" 60 link_dump
tap_case "DEV_SMCR: each rxe port counts its link and is critical" 60 devices
tap_case "smcr stats count the SMC-R connections" 60 stats
tap_case "buffer bytes: each group's sndbuf/rmb_alloc and the usage add up sock_diag's sizes" 60 buffers
tap_case "after close: no SMC-R socket, groups linger with 0 connections, RMBs pooled, no usage" 180 after_close
tap_case "teardown: af_smc unloads and reloads" 60 teardown
tap_done
