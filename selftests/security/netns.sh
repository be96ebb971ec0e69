#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# security/netns.sh: what SMC_GEN_NETLINK shows of one network namespace's
# link groups, and the groups themselves, stay in that namespace
# (Documentation/security.md, hole 7). Topology 1, namespaces smc-ns1 and
# smc-ns2 joined by a veth pair (topo_netns_pair). Shown:
#   - SMC-D (the loopback ISM device, af_smc's defaults): one connection
#     inside smc-ns1. There `smcd linkgroup` lists its two groups (client
#     and server, one connection each) and `smcd device` two connections
#     on the device; from smc-ns2 and from the initial namespace none of
#     those groups (the initial namespace may still have groups of its own
#     from the entries before, lingering without connections) and no use
#     of the device (#LGs 0, InUse No). The bytes of buffers too (Linux
#     6.12's attributes): in smc-ns1 each group's DMB_ALLOC is its end's
#     DMB (sock_diag's Rcvbuf plus the 32-byte CDC header), SNDBUF_ALLOC
#     0 (1000 bytes echoed never wait, so no send buffer is allocated),
#     and the namespace's RX/TX_RMB_USAGE (smcd -j stats) the sums of
#     both ends' DMBs and Sndbufs; smc-ns2 uses none.
#   - SMC-D link groups keyed by namespace: a connection inside each
#     namespace and one from smc-ns2 to smc-ns1 over the veth, all SMC-D.
#     Each namespace lists two groups with three connections in all (its
#     own connection's two ends, and its end of the shared one), and no
#     group id is listed in both.
#   - SMC-R (af_smc smcr=1 loopback_ism=0, topo_veth_rxe: rxev1 and rxev2
#     in the initial namespace): one connection there. The initial
#     namespace lists its two groups and their links, and links on the
#     devices; a new namespace lists no group, no link, and no link on any
#     device (the devices themselves it may see: ib_core shares them).
#   - SMC-R in ib_core's exclusive netns mode (`rdma system set netns
#     exclusive`): rxe1 on veth1 and rxe2 on veth2 are made from inside
#     smc-ns1 and smc-ns2, yet belong to the initial namespace, as every
#     device ib_core registers does in that mode. smc-ns1 lists neither
#     device (`smcr -j device`), the initial namespace lists both, and a
#     client in smc-ns1 connecting to smc-ns2 finds no RDMA device: its
#     own decline code is "no SMC-R device" (or "no SMC device"), no
#     proposal offering SMC-R leaves it. The control, in shared mode with
#     the same set-up: smc-ns1 lists both devices and its client proposes
#     SMC-R (its code is anything but those two). The mode goes back to
#     shared at the end.
#   - af_smc unloads and loads again.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/topology.sh"
. "$here/../lib/module.sh"
. "$here/../lib/tool_run.sh"

[ "$(id -u)" = 0 ] || tap_skip_all "needs root"
[ "${SMC_MODULE:-ours}" = ours ] || tap_skip_all "Linux lists every namespace's link groups; the check is af_smc's"
why=$(topo_check_netns) || tap_skip_all "$why"
module=${SMC_MODULE_FILE:-}
[ -f "$module" ] || tap_skip_all "no module file (SMC_MODULE_FILE)"
command -v smcd >/dev/null || smc_missing_all "no smcd tool"
command -v rdma >/dev/null || smc_missing_all "no rdma command"
T=$SMC_SELFTESTS/tools
NS1=$TOPO_NS1
NS2=$TOPO_NS2

reload() {
	smc_module_rmmod && insmod "$module" "$@"
}
# ib_core back in shared mode too (smcr_exclusive): the entries after this
# one make rxe devices in namespaces.
tap_at_exit "topo_cleanup; rdma_mode shared; smc_module_rmmod; insmod $module"

# nsrun NS CMD...: CMD in namespace NS ("-": the initial one).
nsrun() {
	_ns=$1
	shift
	if [ "$_ns" = - ]; then "$@"; else ip netns exec "$_ns" "$@"; fi
}

# rows NS TOOL ARGS...: the table of TOOL ARGS in NS without its header
# (our tools print the header alone when there is nothing to list).
rows() {
	_ns=$1
	shift
	nsrun "$_ns" "$@" >"$TMPDIR/rows" 2>&1 || {
		sed 's/^/# failed: /' "$TMPDIR/rows" >&2
		return 1
	}
	sed 1d "$TMPDIR/rows"
}

# hold NS ADDR PORT NAME [SERVER_NS]: an echo server for one connection
# on ADDR:PORT in SERVER_NS (default NS), and a client in NS holding one
# verified connection to it for 60 s (until the case ends); returns once
# the client said its mode, which is in $TMPDIR/NAME.
hold() {
	_ns=$1 _addr=$2 _port=$3 _name=$4 _sns=${5:-$1}
	rm -f "$TMPDIR/$_name.ready"
	nsrun "$_sns" "$T/smc-conns" -s -a "$_addr" -p "$_port" -n 1 -r "$TMPDIR/$_name.ready" \
		-t 120 >"$TMPDIR/$_name.srv" 2>&1 </dev/null &
	tap_wait_for 30 test -e "$TMPDIR/$_name.ready" ||
		{ tap_fail "$_name: no server on $_addr:$_port in $_sns"; return 1; }
	nsrun "$_ns" "$T/smc-conns" -c -a "$_addr" -p "$_port" -n 1 -H 60 -t 120 \
		>"$TMPDIR/$_name" 2>&1 </dev/null &
	tap_wait_for 60 grep -qs '^open' "$TMPDIR/$_name" ||
		{ tap_fail "$_name: no connection: $(tail -n 3 "$TMPDIR/$_name")"; return 1; }
	tap_diag "$_name: $(head -n 1 "$TMPDIR/$_name")"
}

# is_mode NAME WHAT: the held connection NAME was verified in mode WHAT
# (smcd or smcr) by sock_diag.
is_mode() {
	grep -q "^open 1 verified 1 modes .*$2=1" "$TMPDIR/$1" ||
		tap_fail "$1 is not $2: '$(head -n 1 "$TMPDIR/$1")'"
}

# smcd_lgrs NS: "COUNT SUM" of the SMC-D groups NS lists and their
# connections; the ids go to $TMPDIR/ids-NS.
smcd_lgrs() {
	rows "$1" smcd linkgroup >"$TMPDIR/lgrs" || { echo "error"; return; }
	sed 's/^/# '"$1"': /' "$TMPDIR/lgrs" >&2
	awk '{ print $1 }' "$TMPDIR/lgrs" >"$TMPDIR/ids-$1"
	awk '{ n++; c += $3 } END { print n + 0, c + 0 }' "$TMPDIR/lgrs"
}

# smcd_use NS: "INUSE LGS" of the (one) ISM device as NS sees it
# (smcd -j device: in_use true/false, linkgroups USE_CNT).
smcd_use() {
	nsrun "$1" smcd -j device >"$TMPDIR/dev" 2>&1 || { echo "error"; return; }
	sed 's/^/# '"$1"' device: /' "$TMPDIR/dev" >&2
	echo "$(grep -o '"in_use":[a-z]*' "$TMPDIR/dev" | head -n 1 | cut -d: -f2)" \
		"$(grep -o '"linkgroups":[0-9]*' "$TMPDIR/dev" | head -n 1 | cut -d: -f2)"
}

# jsum FILE KEY: the sum of KEY's numbers in the JSON of FILE.
jsum() {
	json_vals "$1" "$2" | awk '{ s += $1 } END { print s + 0 }'
}

# smcd_usage NS: "TX RX" buffer usage of the namespace's SMC-D
# connections (smcd -j stats: SMC_TX_RMB_USAGE, SMC_RX_RMB_USAGE).
smcd_usage() {
	nsrun "$1" smcd -j stats >"$TMPDIR/st" 2>&1 || { echo "error"; return; }
	echo "$(jsum "$TMPDIR/st" SMC_TX_RMB_USAGE) $(jsum "$TMPDIR/st" SMC_RX_RMB_USAGE)"
}

# smcd_bufs NS: each end's DMB and send buffer against what the groups
# and the namespace's usage say (see the head of this file).
smcd_bufs() {
	nsrun "$1" smcss -D -d -j >"$TMPDIR/ssd" 2>&1 || { tap_fail "smcss -D -d -j in $1"; return; }
	nsrun "$1" smcd -j linkgroup >"$TMPDIR/lgd" 2>&1 || { tap_fail "smcd -j linkgroup in $1"; return; }
	nsrun "$1" smcd -d linkgroup | sed 's/^/# '"$1"': /' >&2
	dmbs=$(json_vals "$TMPDIR/ssd" rcvbuf | awk '{ print $1 + 32 }' | sort -n | tr '\n' ' ')
	alloc=$(json_vals "$TMPDIR/lgd" dmb_alloc | sort -n | tr '\n' ' ')
	[ -n "$dmbs" ] && [ "$alloc" = "$dmbs" ] ||
		tap_fail "$1: the groups' dmb_alloc '$alloc', sock_diag's DMBs '$dmbs'"
	snd=$(json_vals "$TMPDIR/lgd" sndbuf_alloc | tr '\n' ' ')
	[ "$snd" = "0 0 " ] || tap_fail "$1: the groups' sndbuf_alloc '$snd', not '0 0 '"
	want="$(jsum "$TMPDIR/ssd" sndbuf) $(echo "$dmbs" | tr ' ' '\n' | awk '{ s += $1 } END { print s + 0 }')"
	got=$(smcd_usage "$1")
	tap_diag "$1: usage (tx rx) $got, sock_diag $want"
	[ "$got" = "$want" ] || tap_fail "$1: usage (tx rx) '$got', sock_diag's sizes add up to '$want'"
}

setup() {
	tap_assert "two namespaces with a veth pair" topo_netns_pair
	return 0
}

smcd_dump() {
	hold $NS1 127.0.0.1 5301 d1 || return 1
	is_mode d1 smcd
	got=$(smcd_lgrs $NS1)
	[ "$got" = "2 2" ] || tap_fail "$NS1 lists '$got' (groups, connections), not its own '2 2'"
	got=$(smcd_use $NS1)
	[ "$got" = "true 2" ] || tap_fail "$NS1's device: '$got', not 'true 2'"
	cp "$TMPDIR/ids-$NS1" "$TMPDIR/ids-d1"
	# smc-ns2 is new: it has no group at all.
	got=$(smcd_lgrs $NS2)
	[ "$got" = "0 0" ] || tap_fail "$NS2 lists '$got' (groups, connections) of $NS1's"
	# The initial namespace may still have groups of the entries run
	# before, lingering without connections: none of them is $NS1's.
	got=$(smcd_lgrs -)
	[ "${got#* }" = 0 ] || tap_fail "the initial namespace lists '$got' (groups, connections)"
	shared=$(grep -xFf "$TMPDIR/ids-d1" "$TMPDIR/ids--" | tr '\n' ' ')
	[ -z "$shared" ] || tap_fail "the initial namespace lists $NS1's groups $shared"
	for ns in $NS2 -; do
		got=$(smcd_use $ns)
		[ "$got" = "false 0" ] || tap_fail "namespace '$ns' sees the device in use: '$got'"
	done
	smcd_bufs $NS1
	# smc-ns2 is new; the initial namespace may hold connections of the
	# entries before that are still closing, so it is not asked.
	got=$(smcd_usage $NS2)
	[ "$got" = "0 0" ] || tap_fail "$NS2 has buffer usage '$got' (tx rx), not '0 0'"
	return 0
}

smcd_keyed() {
	hold $NS1 127.0.0.1 5311 k1 || return 1
	hold $NS2 127.0.0.1 5312 k2 || return 1
	hold $NS2 $TOPO_IP4_1 5313 k12 $NS1 || return 1
	for c in k1 k2 k12; do is_mode $c smcd; done
	for ns in $NS1 $NS2; do
		got=$(smcd_lgrs $ns)
		[ "$got" = "2 3" ] ||
			tap_fail "$ns lists '$got' (groups, connections), not its own '2 3'"
	done
	shared=$(grep -xFf "$TMPDIR/ids-$NS1" "$TMPDIR/ids-$NS2" | tr '\n' ' ')
	[ -z "$shared" ] || tap_fail "groups listed in both namespaces: $shared"
	return 0
}

# smcr_count NS ARGS...: the rows of "smcr ARGS" in NS.
smcr_count() {
	_ns=$1
	shift
	rows "$_ns" smcr "$@" >"$TMPDIR/r" || { echo "error"; return; }
	sed 's/^/# '"$_ns $*"': /' "$TMPDIR/r" >&2
	grep -c . "$TMPDIR/r"
}

# smcr_dev_links NS: the sum of the links NS counts on the RDMA ports it
# lists (smcr -j device: "links" per port).
smcr_dev_links() {
	nsrun "$1" smcr -j device >"$TMPDIR/dev" 2>&1 || { echo "error"; return; }
	sed 's/^/# '"$1"' device: /' "$TMPDIR/dev" >&2
	grep -o '"links":[0-9]*' "$TMPDIR/dev" | cut -d: -f2 |
		awk '{ n += $1 } END { print n + 0 }'
}

smcr_dump() {
	topo_cleanup
	tap_assert "af_smc smcr=1 loopback_ism=0" reload smcr=1 loopback_ism=0
	tap_assert "topology 1 endpoints with rxev1, rxev2" topo_veth_rxe
	tap_assert "an empty namespace $NS1" ip netns add $NS1
	hold - $TOPO_VETH_IP4_2 5321 r1 || return 1
	is_mode r1 smcr
	got=$(smcr_count - linkgroup)
	[ "$got" = 2 ] || tap_fail "the initial namespace lists $got SMC-R groups, not its 2"
	got=$(smcr_count - linkgroup link-show)
	[ "$got" = 2 ] || tap_fail "the initial namespace lists $got SMC-R links, not its 2"
	got=$(smcr_dev_links -)
	[ "$got" = 2 ] || tap_fail "the initial namespace counts $got links on the devices, not 2"
	got=$(smcr_count $NS1 linkgroup)
	[ "$got" = 0 ] || tap_fail "$NS1 lists $got SMC-R groups of the initial namespace"
	got=$(smcr_count $NS1 linkgroup link-show)
	[ "$got" = 0 ] || tap_fail "$NS1 lists $got SMC-R links of the initial namespace"
	got=$(smcr_dev_links $NS1)
	[ "$got" = 0 ] || tap_fail "$NS1 counts $got links of the initial namespace on the devices"
	return 0
}

# rdma_mode shared|exclusive: ib_core's netns mode. It can change only
# while the initial namespace is the only one (EBUSY otherwise), and a
# deleted namespace goes away asynchronously (cleanup_net), hence the wait.
rdma_mode() {
	tap_wait_for 30 sh -c "rdma system set netns $1 2>/dev/null" &&
		rdma system show | grep -q "netns $1"
}

# ns_rxe: rxe1 on veth1 made from smc-ns1, rxe2 on veth2 from smc-ns2;
# waited for from the initial namespace, which sees the devices in either
# mode (topo_netns_rxe waits from the namespaces, blind in exclusive mode).
ns_rxe() {
	for i in 1 2; do
		ip netns exec smc-ns$i rdma link add rxe$i type rxe netdev veth$i || return 1
	done
	for i in 1 2; do
		tap_wait_for 30 sh -c "rdma link show rxe$i/1 | grep -q 'state ACTIVE'" || return 1
	done
}

# rxe_listed NS: how many of rxe1 and rxe2 `smcr -j device` lists in NS.
rxe_listed() {
	nsrun "$1" smcr -j device >"$TMPDIR/dev" 2>&1 || { echo "error"; return; }
	sed 's/^/# '"$1"' device: /' "$TMPDIR/dev" >&2
	grep -o '"ib_device": *"rxe[12]"' "$TMPDIR/dev" | sort -u | grep -c .
}

# probe_ns1 PORT: an echo server in smc-ns2 on PORT, a client in smc-ns1
# (smc-fbprobe); prints the client's "mode M fallback 0xLOCAL/0xPEER".
probe_ns1() {
	rm -f "$TMPDIR/ready-x"
	ip netns exec $NS2 $T/smc-echo -s -k 0 -f smc -a $TOPO_IP4_2 -p "$1" \
		-r "$TMPDIR/ready-x" -t 120 >"$TMPDIR/echo-x.log" 2>&1 </dev/null &
	_pid=$!
	tap_wait_for 30 test -e "$TMPDIR/ready-x" || { kill $_pid; echo "no server"; return 1; }
	ip netns exec $NS1 $T/smc-fbprobe $TOPO_IP4_2 "$1" 0
	_rc=$?
	kill $_pid 2>/dev/null
	wait $_pid 2>/dev/null
	return $_rc
}

# exclusive_run MODE PORT: the set-up in MODE, then the listings and the
# probe, checked against what MODE must give.
exclusive_run() {
	_mode=$1 _port=$2
	topo_cleanup
	tap_expect "ib_core in $_mode netns mode" rdma_mode "$_mode" || return 1
	tap_expect "$_mode: two namespaces" topo_netns_pair || return 1
	tap_expect "$_mode: rxe1, rxe2 made from them" ns_rxe || return 1
	got=$(rxe_listed -)
	[ "$got" = 2 ] || tap_fail "$_mode: the initial namespace lists $got of rxe1, rxe2, not both"
	got=$(rxe_listed $NS1)
	if [ "$_mode" = exclusive ]; then
		[ "$got" = 0 ] || tap_fail "exclusive: $NS1 lists $got of the initial namespace's rxe1, rxe2"
	else
		[ "$got" = 2 ] || tap_fail "shared: $NS1 lists $got of rxe1, rxe2, not both"
	fi
	out=$(probe_ns1 "$_port") || { tap_fail "$_mode: smc-fbprobe: $out"; return 1; }
	tap_diag "$_mode: client in $NS1: $out"
	case "${out#* fallback }" in
	0x03030000/0x00000000|0x03030002/0x00000000) no_dev=1 ;;
	*) no_dev=0 ;;
	esac
	if [ "$_mode" = exclusive ]; then
		[ $no_dev = 1 ] || tap_fail "exclusive: the client in $NS1 used a device of the initial namespace: '$out'"
	else
		[ $no_dev = 0 ] || tap_fail "shared: the client in $NS1 found no device ('$out'): the control shows nothing"
	fi
	return 0
}

smcr_exclusive() {
	tap_assert "af_smc smcr=1 loopback_ism=0" reload smcr=1 loopback_ism=0
	exclusive_run shared 5331
	exclusive_run exclusive 5332
	topo_cleanup
	tap_expect "ib_core back in shared netns mode" rdma_mode shared
	return 0
}

teardown() {
	topo_cleanup
	rdma_mode shared || tap_diag "ib_core stays in exclusive netns mode"
	tap_expect "rmmod and insmod" reload
	return 0
}

tap_case "setup: namespaces $NS1 and $NS2" 120 setup
tap_case "SMC-D: $NS1's groups, device use and buffer bytes are seen from $NS1 only" 180 smcd_dump
tap_case "SMC-D: each namespace has groups of its own, none shared" 240 smcd_keyed
tap_case "SMC-R: the initial namespace's groups and links are not seen from another" 300 smcr_dump
tap_case "SMC-R: a device ib_core keeps from $NS1 (exclusive mode) is neither listed nor used there" 300 smcr_exclusive
tap_case "teardown: af_smc unloads and loads again" 120 teardown
tap_done
