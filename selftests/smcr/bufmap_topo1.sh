#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# smcr/bufmap_topo1.sh: one SMC-R buffer mapped on two links on two RDMA
# devices (struct smcr_buf_map, kernel/smcr_buf.c), what a link group
# with a second link needs (issue 20): its DMA mapping, MR and rkey on
# each link. Driven through af_smc's debugfs "link" file, in topology 1
# with two veth pairs (topo_veth_rxe2): links 0 (rxev1) and 1 (rxev2)
# are one pair of peers, links 2 (rxew1) and 3 (rxew2) the other. Then
#   - "share 2 0" maps link 0's RMB on link 2 too and registers it there:
#     an rkey of rxew1's;
#   - link 3 WRITEs 64 KiB with that rkey over rxew1/rxew2: they land in
#     the pages of link 0's RMB, not in link 2's own RMB, and rxev1/rxev2
#     move no packet; link 1 then WRITEs over rxev1/rxev2 with link 0's
#     own rkey into the same pages;
#   - "unshare 2 0" drops link 2's mapping of RMB 0 while RMB 0 and
#     link 2 live on: link 3's next WRITE with that rkey fails (the MR
#     is gone: a remote access error, link 3 in error), the pages keep
#     the earlier bytes, and link 1 still writes RMB 0;
#   - no mapping went while a WRITE named it, none is left deferred, and
#     af_smc unloads.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/topology.sh"
. "$here/../lib/module.sh"

smc_own_module_all "the link file is af_smc's own"
command -v rdma >/dev/null || smc_missing_all "no rdma command"
L=/sys/kernel/debug/af_smc/link
G=/sys/kernel/debug/af_smc/smcr_lgr

cleanup() {
	for id in 3 2 1 0; do echo "destroy $id" >$L 2>/dev/null; done
	topo_smcr_cleanup
}
tap_at_exit cleanup

# lk COMMAND: one link command; prints the answer; fails as the write did.
lk() {
	# The write's error is the answer's ("error CMD ERRNO"), not echo's.
	echo "$1" 2>/dev/null >$L
	rc=$?
	cat $L
	return $rc
}

# info ID: QPN PSN MTU GID MAC of link ID's "created ID QPN PSN MTU GID
# MAC RKEY ADDR" answer, for its peer's connect.
info() {
	cut -d' ' -f3-7 "$TMPDIR/created-$1"
}

# pair A IFA B IFB: links A and B created on IFA and IFB and connected to
# each other; each "created" answer goes to $TMPDIR/created-ID.
pair() {
	for x in "$1:$2" "$3:$4"; do
		id=${x%%:*} ifname=${x#*:}
		r=$(lk "create $id $ifname") || { tap_fail "create $id on $ifname: $r"; return 1; }
		tap_diag "$r"
		echo "$r" >"$TMPDIR/created-$id"
	done
	r=$(lk "connect $1 $(info "$3")") || tap_fail "connect $1: $r"
	r=$(lk "connect $3 $(info "$1")") || tap_fail "connect $3: $r"
	return 0
}

links() {
	pair 0 smcv1 1 smcv2 || return 1
	pair 2 smcw1 3 smcw2 || return 1
	for id in 0 1 2 3; do
		s=$(lk "stats $id")
		echo "$s" | grep -q ' state 1 ' || tap_fail "link $id is not active: $s"
	done
	return 0
}

share() {
	r=$(lk "share 2 0") || { tap_fail "share 2 0: $r"; return 1; }
	tap_diag "$r"
	echo "$r" >"$TMPDIR/shared"
	# shellcheck disable=SC2046 # "shared 2 0 RKEY ADDR"
	set -- $(cat "$TMPDIR/shared")
	[ "$1 $2 $3" = "shared 2 0" ] && [ "$4" -gt 0 ] || tap_fail "no rkey on link 2: $r"
	# A second mapping on the same link is refused.
	r=$(lk "share 2 0") && tap_fail "RMB 0 mapped on link 2 twice: $r"
	return 0
}

# write_check WRITER RKEY ADDR SEED: WRITER's RMB filled with SEED's
# pattern and written (64 KiB) to RKEY at ADDR; RMB 0 must hold it.
write_check() {
	lk "fill $1 65536 $4" >/dev/null || tap_fail "fill $1"
	r=$(lk "write $1 65536 $2 $3") || { tap_fail "WRITE from link $1: $r"; return 1; }
	r=$(lk "check 0 65536 $4") || tap_fail "RMB 0 after link $1's WRITE: $r"
	return 0
}

second_link() {
	# shellcheck disable=SC2046 # "shared 2 0 RKEY ADDR"
	set -- $(cat "$TMPDIR/shared")
	r=$(lk "check 0 65536 21") && tap_fail "RMB 0 has the pattern before the WRITE"
	v=$(topo_pair_pkts v) w=$(topo_pair_pkts w)
	write_check 3 "$4" "$5" 21
	v=$(($(topo_pair_pkts v) - v)) w=$(($(topo_pair_pkts w) - w))
	tap_diag "64 KiB over link 3: rxew1+rxew2 +$w, rxev1+rxev2 +$v packets"
	[ $w -ge 64 ] || tap_fail "rxew1/rxew2 did not carry the WRITE"
	[ $v -le 4 ] || tap_fail "rxev1/rxev2 moved during a WRITE over the second pair"
	r=$(lk "check 2 65536 21") && tap_fail "link 2's own RMB got the bytes meant for RMB 0"
	# The first link's own rkey still reaches the same pages.
	# shellcheck disable=SC2046 # "created 0 QPN PSN MTU GID MAC RKEY ADDR"
	set -- $(cat "$TMPDIR/created-0")
	write_check 1 "$8" "$9" 22
	return 0
}

drop() {
	lk "unshare 2 0" >/dev/null || tap_fail "unshare 2 0"
	r=$(lk "unshare 2 0") && tap_fail "unshare 2 0 twice: $r"
	s=$(lk "stats 2")
	echo "$s" | grep -q ' state 1 ' || tap_fail "link 2 is not active after the unshare: $s"
	# shellcheck disable=SC2046 # "shared 2 0 RKEY ADDR"
	set -- $(cat "$TMPDIR/shared")
	lk "fill 3 65536 23" >/dev/null || tap_fail "fill 3"
	r=$(lk "write 3 65536 $4 $5") && tap_fail "a WRITE with the dropped mapping's rkey succeeded: $r"
	s=$(lk "stats 3")
	tap_diag "link 3 after it: $s"
	echo "$s" | grep -q ' state 2 ' || tap_fail "link 3 is not in error after the refused WRITE"
	r=$(lk "check 0 65536 22") || tap_fail "RMB 0 changed by the refused WRITE: $r"
	# shellcheck disable=SC2046 # "created 0 QPN PSN MTU GID MAC RKEY ADDR"
	set -- $(cat "$TMPDIR/created-0")
	write_check 1 "$8" "$9" 24
	return 0
}

teardown() {
	for id in 3 2 1 0; do
		lk "destroy $id" >/dev/null || tap_fail "destroy link $id"
	done
	c=$(sed -n 's/^lgrs .*\(bufs_freed_posted [0-9]* bufs_deferred [0-9]*\)$/\1/p' $G)
	tap_diag "$c"
	[ "$c" = "bufs_freed_posted 0 bufs_deferred 0" ] ||
		tap_fail "smcr_lgr says: $(tail -n 1 $G)"
	topo_smcr_cleanup
	tap_assert "rmmod af_smc" smc_module_restore
	return 0
}

tap_case "setup: smcr=1, two veth pairs with rxev1/rxev2 and rxew1/rxew2" 180 topo_smcr_setup2
tap_case "links 0-1 on rxev1/rxev2 and 2-3 on rxew1/rxew2, active" 60 links
tap_case "link 0's RMB mapped and registered on link 2 (rxew1) too, once" 30 share
tap_case "WRITEs reach RMB 0 over link 3 with link 2's rkey (rxew only) and over link 1 with link 0's" 60 second_link
tap_case "link 2's mapping of RMB 0 dropped: its rkey refused, RMB 0 intact and written over link 1" 60 drop
tap_case "no mapping freed under a WRITE, none deferred; rmmod af_smc" 60 teardown
tap_done
