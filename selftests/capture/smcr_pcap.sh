#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# selftests/capture/smcr_pcap.sh
#
# Runs on the host. Boots two VMs with a capture of VM 0's eth0 (vm/run
# --pcap), our module on both with smcr=1 and rxe0 on eth0 of each,
# makes one AF_SMC connection from VM 0 to VM 1 that echoes one byte, and
# asks tshark, a decoder we did not write, what went over the wire (see
# kernel/smcr_hs.c, smcr_conn.c):
#   - CLC: an SMC-Rv1 Proposal from the client, an SMC-R Accept with the
#     server's QP number, an SMC-R Confirm with the client's, and nothing
#     else: no Decline, the connection is SMC-R;
#   - RoCEv2 (UDP 4791): an LLC CONFIRM_LINK request whose sender QP is the
#     server's QP of the Accept, and a CONFIRM_LINK response whose sender
#     QP is the client's of the Confirm;
#   - the data: RDMA WRITEs both ways, and CDC messages both ways whose
#     alert token is the receiver's from its Accept/Confirm;
#   - with lgr_linger=0, once the connection is gone, an orderly
#     DELETE_LINK for the whole group (all, orderly, reason 0x00030000);
#   - nothing malformed, on the TCP connection or in the RoCEv2 packets.
# With the argument "v2" (capture/smcr-v2-ours-ours), both VMs get the
# same UEID first, and the connection is SMC-Rv2; tshark must then also
# show: a CLC v2 Proposal offering SMC-Rv2 (v2 type R) with the client's
# RoCEv2 GID (10.43.0.1) and the UEID, an Accept and a Confirm of v2 with
# that EID as negotiated, the Confirm's GID list (one GID, the client's),
# and the LLC messages with the v2 header (CONFIRM_LINK 0x21, DELETE_LINK
# 0x24); and SMC v2.1 (kernel/smc_v21.h) at the defaults of both ends:
# release 1 in the Proposal and the Accept, 255 connections and 2 links
# per group offered, accepted and confirmed, and CONFIRM_LINK naming the
# same two. tshark 4.0 decodes the two releases and CONFIRM_LINK's max
# links; the rest is read as bytes where Linux 6.8 puts them (the
# Proposal's v2 extension after its RoCEv2 GID, the 16 bytes after the
# first contact extension of the Accept and the Confirm, CONFIRM_LINK's
# byte after max links).
# With "both" (capture/smcr-both-ours-ours), as "v2" but with the loopback
# ISM device on as well (smcr=1 alone): the one Proposal offers SMC-Dv2
# and SMC-R (v1 type R, v2 type B, the ISM device in the SMC-Dv2
# extension), and VM 1, which cannot reach VM 0's ISM device, answers
# SMC-Rv2; everything above must hold the same.
# With "v6" (capture/smcr-v6-ours-ours), as without an argument but over
# IPv6 (fd43::1 -> fd43::2): the SMC-Rv1 Proposal carries the IPv6 prefix
# area (one prefix, fd43::/64) and a zero IPv4 subnet, and the link runs
# over the ports' IPv4 RoCEv2 GIDs as for IPv4 (Documentation/smc-r.md,
# "IPv6").
# Prints TAP. Needs the built tree (make) and tshark.
# shellcheck disable=SC2034 # variables read in check's quoted conditions
set -uo pipefail
v2=0 both=0 v6=0
[ "${1:-}" = v2 ] && v2=1
[ "${1:-}" = both ] && v2=1 both=1
[ "${1:-}" = v6 ] && v6=1
# The TCP connection's ends (the CLC); RoCE runs over IPv4 either way.
clc_src=ip.src cli=10.43.0.1 srv=10.43.0.2 fam=smc probe=
[ $v6 = 1 ] && clc_src=ipv6.src cli=fd43::1 srv=fd43::2 fam=smc6 probe=-6
EID=SMCRV2.CAPTURE
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
build=${BUILD:-$top/build}
out=$build/capture/smcr-ours-ours
[ $v2 = 1 ] && out=$build/capture/smcr-v2-ours-ours
[ $both = 1 ] && out=$build/capture/smcr-both-ours-ours
[ $v6 = 1 ] && out=$build/capture/smcr-v6-ours-ours
port=4401
mkdir -p "$out"
rm -f "$out/hs.pcap"

. "$here/lib.sh"

echo "TAP version 13"
if [ $both = 1 ]; then
	echo "# capture: SMC-Dv2 and SMC-R offered in one Proposal (smcr=1, loopback ISM on, UEID $EID), SMC-Rv2 taken, rxe0 on both VMs"
elif [ $v6 = 1 ]; then
	echo "# capture: an SMC-Rv1 connection over IPv6 between our modules (smcr=1), rxe0 on both VMs"
elif [ $v2 = 1 ]; then
	echo "# capture: an SMC-Rv2 connection between our modules (smcr=1, UEID $EID), rxe0 on both VMs"
else
	echo "# capture: an SMC-Rv1 connection between our modules (smcr=1), rxe0 on both VMs"
fi
command -v tshark >/dev/null || { notok "tshark is installed"; finish; }

guest='
. $SMC_SELFTESTS/lib/topology.sh
ism=loopback_ism=0
[ '$both' = 1 ] && ism=
reload="rmmod af_smc && insmod $SMC_MODULE_FILE smcr=1 $ism lgr_linger=0"
sh -c "$reload" || exit 4
smc-vm-exec 1 "$reload" || exit 5
if [ '$v2' = 1 ]; then
	smcd ueid add '$EID' || exit 9
	smc-vm-exec 1 "smcd ueid add '$EID'" || exit 10
fi
topo_vm_rxe || exit 6
smc-vm-exec 1 "$SMC_SELFTESTS/tools/smc-echo -s -k 1 -f '$fam' -a '$srv' -p '$port' -r /tmp/ready -t 60 >/tmp/echo.log 2>&1 </dev/null & echo \$! >/tmp/echo.pid" || exit 2
smc-vm-exec 1 "n=0; until [ -e /tmp/ready ]; do n=\$((n+1)); [ \$n -lt 600 ] || exit 1; sleep 0.05; done" || exit 3
$SMC_SELFTESTS/tools/smc-fbprobe '$probe' '$srv' '$port' 0 | sed "s/^/client-diag: /"
smc-vm-exec 1 "n=0; while kill -0 \$(cat /tmp/echo.pid) 2>/dev/null; do n=\$((n+1)); [ \$n -lt 200 ] || exit 1; sleep 0.05; done" || exit 7
# The groups go (linger 0) once both ends closed: DELETE_LINK.
grep -q " /sys/kernel/debug debugfs" /proc/mounts || mount -t debugfs none /sys/kernel/debug
n=0; while grep -q "^lgr " /sys/kernel/debug/af_smc/smcr_lgr; do
	n=$((n+1)); [ $n -lt 200 ] || exit 8; sleep 0.05
done
topo_cleanup
'
"$top/vm/run" --vms 2 --timeout 300 --pcap "$out/hs.pcap" -- sh -c "$guest" >"$out/vm.log" 2>&1
rc=$?
sed 's/^/# vm: /' "$out/vm.log" | grep -v '^# vm: qemu-system' | tail -n 8
check "the guest script ran (vm/run status $rc)" '[ $rc = 0 ]'
diag=$(sed -n 's/^client-diag: mode [0-9]* fallback //p' "$out/vm.log")
check "the client is SMC-R without fallback (got '$diag')" \
	'[ "$diag" = 0x00000000/0x00000000 ]'
[ -s "$out/hs.pcap" ] || { notok "the capture has packets"; finish; }

tsh() { "${TSHARK[@]}" -r "$out/hs.pcap" "$@" 2>/dev/null; }
clc=$(tsh -Y "tcp.port == $port && smc" -T fields -e $clc_src -e _ws.col.Info -e smc.peer.diag.info)
echo "$clc" | sed 's/^/# clc: /'
c_seq=$(awk -F'\t' -v a=$cli '$1 == a {print $2}' <<<"$clc" | grep -oE 'Proposal|Confirm' | paste -sd, -)
s_seq=$(awk -F'\t' -v a=$srv '$1 == a {print $2}' <<<"$clc" | grep -oE 'Accept|Decline' | paste -sd, -)
check "the client's CLC messages: a Proposal, then a Confirm (got '$c_seq')" '[ "$c_seq" = Proposal,Confirm ]'
check "the server's CLC messages: an Accept, and no Decline (got '$s_seq')" '[ "$s_seq" = Accept ]'
p_type=$(tsh -Y "tcp.port == $port && smc.proposal.smc.type" -T fields -e smc.proposal.smc.type | head -n 1)
check "the Proposal is SMC-R (v1 type 0, got '$p_type')" '[ "$p_type" = 0 ]'
if [ $v6 = 1 ]; then
	pfx=$(tsh -Y "tcp.port == $port && smc.proposal.ipv6.prefix.count" -T fields \
		-e smc.outgoing.interface.subnet.mask.number.of.significant.bits -e smc.proposal.ipv6.prefix.count \
		-e smc.proposal.ipv6.prefix.value -e smc.proposal.ipv6.prefix.length | head -n 1)
	echo "# Proposal IP prefix area (IPv4 prefix length, IPv6 count, prefix, length): $pfx"
	IFS=$'\t' read -r p4len p6cnt p6val p6len <<<"$pfx"
	check "the Proposal's IP area: IPv4 length 0, one IPv6 prefix fd43::/64" \
		'[ "${p4len:-0}" = 0 ] && [ "$p6cnt" = 1 ] && [ "$p6val" = fd43:: ] && [ "$p6len" = 64 ]'
fi
if [ $both = 1 ]; then
	nism=$(tsh -Y "tcp.port == $port && smc.proposal.ismv2_gid_count" -T fields -e smc.proposal.ismv2_gid_count | head -n 1)
	# One device, the loopback one: an emulated device (SMCv2.1), whose
	# 128-bit GID takes two entries of the list.
	check "the Proposal's SMC-Dv2 extension lists one ISM device, in two entries for its 128-bit GID (got '$nism')" '[ "$nism" = 2 ]'
fi
if [ $v2 = 1 ]; then
	pv=$(tsh -Y "tcp.port == $port && smc.proposal.smcv2.type" -T fields \
		-e smc.proposal.smc.version -e smc.proposal.smcv2.type \
		-e smc.proposal.rocev2.gid.ipv4 -e smc.proposal.eid | head -n 1)
	echo "# Proposal v2 (version, v2 type, RoCEv2 GID, EIDs): $pv"
	IFS=$'\t' read -r pv_ver pv_type pv_gid pv_eid <<<"$pv"
	want_type=0 what="SMC-Rv2 (v2 type 0)"
	[ $both = 1 ] && want_type=3 what="SMC-Rv2 and SMC-Dv2 (v2 type 3, both)"
	pv_eid=$(echo "$pv_eid" | tr -d ' ')
	check "the Proposal is CLC v2 offering $what with GID 10.43.0.1 and the UEID" \
		'[ "$pv_ver" = 2 ] && [ "$pv_type" = $want_type ] && [ "$pv_gid" = 10.43.0.1 ] &&
		[ "$pv_eid" = "$EID" ]'
	a_eid=$(tsh -Y "tcp.port == $port && smc.accept.eid" -T fields -e smc.accept.eid | head -n 1 | tr -d ' ')
	c_eid=$(tsh -Y "tcp.port == $port && smc.confirm.eid" -T fields -e smc.confirm.eid | head -n 1 | tr -d ' ')
	gl=$(tsh -Y "tcp.port == $port && smc.confirm.gid.list.entry_count" -T fields \
		-e smc.confirm.gid.list.entry_count -e smc.confirm.gid.list.entry | head -n 1)
	echo "# negotiated EID: Accept '$a_eid', Confirm '$c_eid'; Confirm GID list: $gl"
	check "the Accept and the Confirm are v2 with the negotiated EID" \
		'[ "$a_eid" = "$EID" ] && [ "$c_eid" = "$EID" ]'
	gl=$(printf '%s' "$gl" | tr '\t' ' ')
	check "the Confirm's GID list is the client's GID alone" '[ "$gl" = "1 ::ffff:10.43.0.1" ]'
	types=$(tsh -Y "udp.port == 4791 && smc.llc_msg" -T fields -e smc.llc_msg | sort -u | paste -sd, -)
	echo "# LLC message types over RoCEv2: $types"
	check "the LLC messages have the v2 header (CONFIRM_LINK 0x21, DELETE_LINK 0x24, no v1 type)" \
		'grep -q 0x21 <<<"$types" && grep -q 0x24 <<<"$types" && ! grep -qE "0x0[1-9]" <<<"$types"'
	# byte HEX OFFSET: the byte at OFFSET of a hex string, in decimal.
	byte() { echo $((16#${1:$(($2 * 2)):2})); }
	payload() { tsh -Y "tcp.port == $port && smc.clc_msg == $1" -T fields -e tcp.payload | head -n 1; }
	rel=$(tsh -Y "tcp.port == $port && smc.proposal.smc.version.relnum" -T fields \
		-e smc.proposal.smc.version.relnum | head -n 1)/$(tsh -Y "tcp.port == $port && smc.accept.smc.version.relnum" \
		-T fields -e smc.accept.smc.version.relnum | head -n 1)
	check "SMC v2.1: release 1 in the Proposal and in the Accept (tshark: $rel)" '[ "$rel" = 1/1 ]'
	p=$(payload 1)
	gid=00000000000000000000ffff0a2b0001
	after=${p##*"$gid"}	# the v2 extension after the RoCEv2 GID
	plim=$(byte "$after" 0)/$(byte "$after" 1)
	a=$(payload 2) c=$(payload 3)
	alim=$(byte "$a" 140)/$(byte "$a" 141) clim=$(byte "$c" 140)/$(byte "$c" 141)
	echo "# SMC v2.1 limits (connections/links): Proposal $plim, Accept $alim, Confirm $clim"
	check "SMC v2.1: 255 connections and 2 links per group offered, accepted and confirmed" \
		'[ "$plim $alim $clim" = "255/2 255/2 255/2" ]'
	cl=$(tsh -Y "udp.port == 4791 && smc.llc_msg == 0x21" -T fields -e smc.confirm.link.max.links -e udp.payload |
		while IFS=$'\t' read -r ml up; do echo "$((ml))/$(byte "$up" $((12 + 35)))"; done | sort -u | paste -sd, -)
	echo "# CONFIRM_LINK request and response (max links/max conns): $cl"
	check "SMC v2.1: CONFIRM_LINK names 2 links and 255 connections, both ways" '[ "$cl" = 2/255 ]'
fi
s_qpn=$(tsh -Y "tcp.port == $port && smc.accept.server.qp.number" -T fields -e smc.accept.server.qp.number | head -n 1)
c_qpn=$(tsh -Y "tcp.port == $port && smc.confirm.client.qp.number" -T fields -e smc.confirm.client.qp.number | head -n 1)
echo "# QP numbers: server (Accept) '$s_qpn', client (Confirm) '$c_qpn'"
check "the Accept and the Confirm carry QP numbers" '[ -n "$s_qpn" ] && [ -n "$c_qpn" ]'
s_tok=$(tsh -Y "tcp.port == $port && smc.accept.server.rmb.element.alert.token" -T fields -e smc.accept.server.rmb.element.alert.token | head -n 1)
c_tok=$(tsh -Y "tcp.port == $port && smc.client.rmb.element.alert.token" -T fields -e smc.client.rmb.element.alert.token | head -n 1)
echo "# alert tokens: server (Accept) '$s_tok', client (Confirm) '$c_tok'"

llc=$(tsh -Y "udp.port == 4791 && smc.confirm.link.sender.qp.number" -T fields \
	-e ip.src -e smc.confirm.link.response -e smc.confirm.link.sender.qp.number)
echo "$llc" | sed 's/^/# llc CONFIRM_LINK (src, response, sender qp): /'
req=$(awk -F'\t' '$1 == "10.43.0.2" && ($2 == 0 || $2 == "False")' <<<"$llc" | head -n 1)
resp=$(awk -F'\t' '$1 == "10.43.0.1" && ($2 == 1 || $2 == "True")' <<<"$llc" | head -n 1)
check "an LLC CONFIRM_LINK request from the server over RoCEv2, sender QP = Accept's" \
	'[ -n "$req" ] && [ "$(cut -f3 <<<"$req")" = "$s_qpn" ]'
check "an LLC CONFIRM_LINK response from the client, sender QP = Confirm's" \
	'[ -n "$resp" ] && [ "$(cut -f3 <<<"$resp")" = "$c_qpn" ]'
cdc=$(tsh -Y "udp.port == 4791 && smc.rmbe.ctrl.alert.token" -T fields -e ip.src \
	-e smc.rmbe.ctrl.alert.token -e smc.rmbe.ctrl.seqno)
echo "$cdc" | sed 's/^/# CDC (src, alert token, seqno): /'
# has_cdc SRC TOKEN: a CDC message from SRC carries TOKEN.
has_cdc() { awk -F'\t' -v s="$1" -v t="$2" '$1 == s && $2 == t {f=1} END {exit !f}' <<<"$cdc"; }
check "CDC messages from the client carry the server's alert token" \
	'[ -n "$s_tok" ] && has_cdc 10.43.0.1 "$s_tok"'
check "CDC messages from the server carry the client's alert token" \
	'[ -n "$c_tok" ] && has_cdc 10.43.0.2 "$c_tok"'
# RC RDMA WRITE opcodes: first 6, middle 7, last 8, only 10 (11 with immediate).
wr=$(tsh -Y "udp.port == 4791 && infiniband.bth.opcode in {6, 7, 8, 10, 11}" -T fields -e ip.src | sort | uniq -c | tr '\n' ' ')
echo "# RDMA WRITE packets by source: $wr"
check "RDMA WRITEs from the client and from the server" \
	'grep -q "10.43.0.1" <<<"$wr" && grep -q "10.43.0.2" <<<"$wr"'
del=$(tsh -Y "udp.port == 4791 && smc.delete.link.reason.code" -T fields -e ip.src \
	-e smc.delete.link.all -e smc.delete.link.orderly -e smc.delete.link.reason.code -e frame.time_epoch)
echo "$del" | sed 's/^/# llc DELETE_LINK (src, all, orderly, reason, time): /'
IFS=$'\t' read -r d_src d_all d_ord d_rsn d_time <<<"$(head -n 1 <<<"$del")"
check "an orderly DELETE_LINK (all) when the idle group goes, reason 0x00030000" \
	'[ -n "$d_src" ] && [[ "$d_all" =~ ^(1|True)$ ]] && [[ "$d_ord" =~ ^(1|True)$ ]] &&
	[ "$((d_rsn))" = $((0x00030000)) ]'
bad=$(tshark_reports "$out/hs.pcap" "(tcp.port == $port) || (udp.port == 4791)")
check "tshark finds nothing malformed in the CLC or RoCEv2 packets ($bad reports)" '[ "$bad" = 0 ]'
finish
