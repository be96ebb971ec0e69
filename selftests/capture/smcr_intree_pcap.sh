#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# selftests/capture/smcr_intree_pcap.sh [CLIENT_MODULE SERVER_MODULE]
#
# Runs on the host. Boots two VMs, the client's module on VM 0 and the
# server's on VM 1 (default: Debian's smc.ko on both, 2@intree), with a
# capture of VM 0's eth0 (vm/run --pcap), runs the guest test there
# (smcr/intree_pair for intree/intree, smcr/v2_intree for ours/intree and
# intree/ours: SMC-Rv2 over rxe, PNET IDs and a UEID on both VMs; they
# assert where the link setup stops and why, with kprobes on smc.ko) and
# asks tshark, a decoder we did not write, what went over the wire.
# intree/intree:
#   - the client's Proposal is SMC-Rv2 only (v2 type SMC-R, v1 type NONE),
#     with the UEID as its one EID and its RoCEv2 GID (10.43.0.1);
#   - the server's Accept is SMC-Rv2 first contact, 160 bytes, with the
#     negotiated EID, the V2-direct flag, OS type Linux and its GID;
#   - the client's Confirm is SMC-Rv2 first contact, 180 bytes, with the
#     same EID and a GID list of one entry, its own GID;
#   - then nothing: no Decline, and no RoCEv2 packet (UDP 4791) at all;
#   - nothing malformed.
# (tshark 4.0 names the first-contact flag of the Accept
# smc.proposal.first.contact, the Confirm's smc.confirm.first.contact.)
# These are the facts Documentation/smc-r.md gives for Linux <-> Linux.
# ours/intree and intree/ours also show SMC v2.1 talking down to Linux
# 6.1's v2.0: whoever proposes, the Accept and the Confirm say release 0
# (the fce's release nibble, byte 105) with no limits (bytes 140 and 141
# zero), and our Proposal offers release 1 (tshark's release number).
# Prints TAP. Needs the built tree (make) and tshark.
# shellcheck disable=SC2034 # variables read in check's quoted conditions
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
build=${BUILD:-$top/build}
client_mod=${1:-intree} server_mod=${2:-intree}
out=$build/capture/smcr-$client_mod-$server_mod
case "$client_mod/$server_mod" in
intree/intree) port=4470 test=smcr/intree_pair ;;
ours/intree|intree/ours) port=4458 test=smcr/v2_intree ;;
*) echo "usage: $0 [intree intree|ours intree|intree ours]" >&2; exit 2 ;;
esac
mkdir -p "$out"
rm -f "$out/hs.pcap"

. "$here/lib.sh"

echo "TAP version 13"
echo "# capture: client $client_mod on VM 0, server $server_mod on VM 1, SMC-Rv2 over rxe ($test)"
command -v tshark >/dev/null || { notok "tshark is installed"; finish; }

# The guest leaves Linux's tasks blocked for good; vm/guest/init restarts a
# VM whose poweroff blocks, so the run ends within its time limit.
"$top/vm/run" --vms 2 --module "$client_mod" --peer-module "$server_mod" --timeout 600 \
	--pcap "$out/hs.pcap" -- /smc/libexec/smc-linux/selftests/run "$test" \
	>"$out/vm.log" 2>&1
rc=$?
grep -E '^(ok|not ok|# summary|# failed)' "$out/vm.log" | sed 's/^/# vm: /'
check "the guest test $test passed (vm/run status $rc)" '[ $rc = 0 ]'
[ -s "$out/hs.pcap" ] || { notok "the capture has packets"; finish; }

tsh() { "${TSHARK[@]}" -r "$out/hs.pcap" "$@" 2>/dev/null; }
# SMC v2.1 as the bytes of a CLC message (TYPE 1..3) show it: "RELEASE/CONNS/LINKS"
# of an Accept or Confirm (release nibble of the fce, the two limits after it).
v21() {
	_p=$(tsh -Y "tcp.port == $port && smc.clc_msg == $1" -T fields -e tcp.payload | head -n 1)
	[ ${#_p} -ge 284 ] || { echo none; return; }
	echo "$((16#${_p:211:1}))/$((16#${_p:280:2}))/$((16#${_p:282:2}))"
}
f() { tsh -Y "tcp.port == $port && $1" -T fields -e "$2" | head -n 1; }
# The same with the blank padding of an EID taken off.
ft() { f "$@" | sed 's/ *$//'; }
clc=$(tsh -Y "tcp.port == $port && smc" -T fields -e ip.src -e smc.length -e _ws.col.Info)
echo "$clc" | sed 's/^/# clc: /'

llc=$(tsh -Y "udp.port == 4791" -T fields -e ip.src -e _ws.col.Info | sed 's/QP=0x[0-9a-f]* //')
echo "$llc" | sort | uniq -c | sed 's/^/# roce: /'
seq=$(grep -oE 'SMC-Rv2-(Proposal|Accept|Confirm)|SMC-Decline' <<<"$clc" | paste -sd, -)
from() { awk -F'\t' -v s="$1" '$1 == s {print $2}' <<<"$llc"; }
case "$client_mod/$server_mod" in
intree/intree)
	check "the CLC messages: Proposal, Accept, Confirm, nothing else" \
		'[ "$seq" = SMC-Rv2-Proposal,SMC-Rv2-Accept,SMC-Rv2-Confirm ]'
	p='smc.clc_msg == 1'
	echo "# Proposal: version $(f "$p" smc.proposal.smc.version) v2 type $(f "$p" smc.proposal.smcv2.type) v1 type $(f "$p" smc.proposal.smc.type) EIDs $(f "$p" smc.proposal.eid.count) '$(f "$p" smc.proposal.eid)' GID $(f "$p" smc.proposal.rocev2.gid.ipv4)"
	check "Proposal: SMC version 2, v2 type SMC-R (0), v1 type NONE (2)" \
		'[ "$(f "$p" smc.proposal.smc.version)/$(f "$p" smc.proposal.smcv2.type)/$(f "$p" smc.proposal.smc.type)" = 2/0/2 ]'
	check "Proposal: one EID, the UEID SMCLINUXTEST (blank padded)" \
		'[ "$(f "$p" smc.proposal.eid.count)" = 1 ] && [ "$(ft "$p" smc.proposal.eid)" = SMCLINUXTEST ]'
	check "Proposal: the client's RoCEv2 GID is 10.43.0.1" '[ "$(f "$p" smc.proposal.rocev2.gid.ipv4)" = 10.43.0.1 ]'
	
	a='smc.clc_msg == 2'
	echo "# Accept: length $(f "$a" smc.length) first contact $(f "$a" smc.proposal.first.contact) GID $(f "$a" smc.accept.server.preferred.gid) EID '$(f "$a" smc.accept.eid)' LG type $(f "$a" smc.accept.v2_lg.type) OS $(f "$a" smc.accept.os.type) QP $(f "$a" smc.accept.server.qp.number)"
	check "Accept: 160 bytes, first contact, server GID ::ffff:10.43.0.2" \
		'[ "$(f "$a" smc.length)/$(f "$a" smc.proposal.first.contact)/$(f "$a" smc.accept.server.preferred.gid)" = "160/1/::ffff:10.43.0.2" ]'
	check "Accept: negotiated EID SMCLINUXTEST, V2 LG type direct (1), OS type Linux (2)" \
		'[ "$(ft "$a" smc.accept.eid)/$(f "$a" smc.accept.v2_lg.type)/$(f "$a" smc.accept.os.type)" = SMCLINUXTEST/1/2 ]'
	
	c='smc.clc_msg == 3'
	echo "# Confirm: length $(f "$c" smc.length) first contact $(f "$c" smc.confirm.first.contact) GID $(f "$c" smc.client.gid) EID '$(f "$c" smc.confirm.eid)' GID list $(f "$c" smc.confirm.gid.list.entry_count): $(f "$c" smc.confirm.gid.list.entry) QP $(f "$c" smc.confirm.client.qp.number)"
	check "Confirm: 180 bytes, first contact, client GID ::ffff:10.43.0.1, EID SMCLINUXTEST" \
		'[ "$(f "$c" smc.length)/$(f "$c" smc.confirm.first.contact)/$(f "$c" smc.client.gid)/$(ft "$c" smc.confirm.eid)" = \
			"180/1/::ffff:10.43.0.1/SMCLINUXTEST" ]'
	check "Confirm: a GID list of one entry, the client's own GID" \
		'[ "$(f "$c" smc.confirm.gid.list.entry_count)/$(f "$c" smc.confirm.gid.list.entry)" = "1/::ffff:10.43.0.1" ]'
	
	roce=$(tsh -Y "udp.port == 4791" | wc -l)
	check "no RoCEv2 packet (UDP 4791) at all (got $roce)" '[ "$roce" = 0 ]'
	;;
ours/intree)
	check "the CLC messages: SMC-Rv2 Proposal, Accept, Confirm, no Decline from anyone" \
		'[ "$seq" = SMC-Rv2-Proposal,SMC-Rv2-Accept,SMC-Rv2-Confirm ]'
	p='smc.clc_msg == 1'
	check "our Proposal offers SMC-Rv1 and SMC-Rv2 (v1 type R, v2 type R), EID SMCRV2.INTEROP" \
		'[ "$(f "$p" smc.proposal.smc.type)/$(f "$p" smc.proposal.smcv2.type)/$(ft "$p" smc.proposal.eid)" = 0/0/SMCRV2.INTEROP ]'
	check "smc.ko's Accept is SMC-Rv2 first contact with the EID (it took our v2 offer)" \
		'[ "$(ft "smc.clc_msg == 2" smc.accept.eid)/$(f "smc.clc_msg == 2" smc.proposal.first.contact)" = SMCRV2.INTEROP/1 ]'
	rel=$(f "smc.clc_msg == 1" smc.proposal.smc.version.relnum) acc=$(v21 2) con=$(v21 3)
	echo "# SMC v2.1: our Proposal's release $rel; release/conns/links: smc.ko's Accept $acc, our Confirm $con"
	check "SMC v2.1 talks down: we offer release 1, smc.ko accepts 0, our Confirm says 0, no limits" \
		'[ "$rel $acc $con" = "1 0/0/0 0/0/0" ]'
	check "no RoCEv2 packet from smc.ko (10.43.0.2): it never sends CONFIRM_LINK" '[ -z "$(from 10.43.0.2)" ]'
	check "our Delete Link (v2) to smc.ko's QP after the timeout, decoded by tshark" \
		'grep -q "Delete Link (v2)" <<<"$(from 10.43.0.1)"'
	check "our side ends the TCP connection (RST)" \
		'[ -n "$(tsh -Y "tcp.port == $port && tcp.flags.reset == 1 && ip.src == 10.43.0.1" | head -n 1)" ]'
	;;
intree/ours)
	check "the CLC messages: SMC-Rv2 Proposal, Accept, Confirm, then our Decline" \
		'[ "$seq" = SMC-Rv2-Proposal,SMC-Rv2-Accept,SMC-Rv2-Confirm,SMC-Decline ]'
	d=$(f 'smc.clc_msg == 4' smc.peer.diag.info)
	check "our Decline says confirm-link timeout 0x02010000 (got $d)" '[ "$((d))" = $((0x02010000)) ]'
	rel=$(f "smc.clc_msg == 1" smc.proposal.smc.version.relnum) acc=$(v21 2) con=$(v21 3)
	echo "# SMC v2.1: smc.ko's Proposal's release $rel; release/conns/links: our Accept $acc, smc.ko's Confirm $con"
	check "SMC v2.1 talks down: smc.ko offers release 0, our Accept and its Confirm say 0, no limits" \
		'[ "$rel $acc $con" = "0 0/0/0 0/0/0" ]'
	check "our Confirm Link (v2) request went to smc.ko, decoded by tshark" \
		'grep -q "Confirm Link (v2)" <<<"$(from 10.43.0.2)"'
	check "smc.ko's rxe0 acknowledged it on the transport (RC Acknowledge)" \
		'grep -q Acknowledge <<<"$(from 10.43.0.1)"'
	check "and smc.ko sent no LLC message at all (no CONFIRM_LINK response)" \
		'[ -n "$(from 10.43.0.1)" ] && [ -z "$(grep -v Acknowledge <<<"$(from 10.43.0.1)")" ]'
	;;
esac
bad=$(tshark_reports "$out/hs.pcap" "tcp.port == $port")
check "tshark finds nothing malformed in the CLC messages ($bad reports)" '[ "$bad" = 0 ]'
finish
