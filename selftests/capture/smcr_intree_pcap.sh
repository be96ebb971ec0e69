#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# selftests/capture/smcr_intree_pcap.sh
#
# Runs on the host. Boots two VMs with Debian's smc.ko on both (2@intree)
# and a capture of VM 0's eth0 (vm/run --pcap), runs the guest test
# smcr/intree_pair there (SMC-Rv2 over rxe, PNET IDs and a UEID on both
# VMs; it asserts where Linux's link setup stops and why, with kprobes),
# and asks tshark, a decoder we did not write, what Linux put on the wire:
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
# Prints TAP. Needs the built tree (make) and tshark.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
build=${BUILD:-$top/build}
out=$build/capture/smcr-intree-intree
port=4470
mkdir -p "$out"
rm -f "$out/hs.pcap"

. "$here/lib.sh"

echo "TAP version 13"
echo "# capture: Debian's smc.ko on both VMs, SMC-Rv2 over rxe (smcr/intree_pair)"
command -v tshark >/dev/null || { notok "tshark is installed"; finish; }

# The guest leaves Linux's tasks blocked for good; vm/guest/init restarts a
# VM whose poweroff blocks, so the run ends within its time limit.
"$top/vm/run" --vms 2 --module intree --peer-module intree --timeout 600 \
	--pcap "$out/hs.pcap" -- /smc/libexec/smc-linux/selftests/run smcr/intree_pair \
	>"$out/vm.log" 2>&1
rc=$?
grep -E '^(ok|not ok|# summary|# failed)' "$out/vm.log" | sed 's/^/# vm: /'
check "the guest test smcr/intree_pair passed (vm/run status $rc)" [ $rc = 0 ]
[ -s "$out/hs.pcap" ] || { notok "the capture has packets"; finish; }

tsh() { tshark -r "$out/hs.pcap" "$@" 2>/dev/null; }
f() { tsh -Y "tcp.port == $port && $1" -T fields -e "$2" | head -n 1; }
clc=$(tsh -Y "tcp.port == $port && smc" -T fields -e ip.src -e smc.length -e _ws.col.Info)
echo "$clc" | sed 's/^/# clc: /'
check "the CLC messages: Proposal, Accept, Confirm, nothing else" \
	[ "$(grep -oE 'SMC-Rv2-(Proposal|Accept|Confirm)|Decline' <<<"$clc" | paste -sd, -)" = \
		SMC-Rv2-Proposal,SMC-Rv2-Accept,SMC-Rv2-Confirm ]

p='smc.clc_msg == 1'
echo "# Proposal: version $(f "$p" smc.proposal.smc.version) v2 type $(f "$p" smc.proposal.smcv2.type) v1 type $(f "$p" smc.proposal.smc.type) EIDs $(f "$p" smc.proposal.eid.count) '$(f "$p" smc.proposal.eid)' GID $(f "$p" smc.proposal.rocev2.gid.ipv4)"
check "Proposal: SMC version 2, v2 type SMC-R (0), v1 type NONE (2)" \
	[ "$(f "$p" smc.proposal.smc.version)/$(f "$p" smc.proposal.smcv2.type)/$(f "$p" smc.proposal.smc.type)" = 2/0/2 ]
check "Proposal: one EID, the UEID SMCLINUXTEST (blank padded)" \
	[ "$(f "$p" smc.proposal.eid.count)" = 1 ] && [ "$(f "$p" smc.proposal.eid | sed 's/ *$//')" = SMCLINUXTEST ]
check "Proposal: the client's RoCEv2 GID is 10.43.0.1" [ "$(f "$p" smc.proposal.rocev2.gid.ipv4)" = 10.43.0.1 ]

a='smc.clc_msg == 2'
echo "# Accept: length $(f "$a" smc.length) first contact $(f "$a" smc.proposal.first.contact) GID $(f "$a" smc.accept.server.preferred.gid) EID '$(f "$a" smc.accept.eid)' LG type $(f "$a" smc.accept.v2_lg.type) OS $(f "$a" smc.accept.os.type) QP $(f "$a" smc.accept.server.qp.number)"
check "Accept: 160 bytes, first contact, server GID ::ffff:10.43.0.2" \
	[ "$(f "$a" smc.length)/$(f "$a" smc.proposal.first.contact)/$(f "$a" smc.accept.server.preferred.gid)" = "160/1/::ffff:10.43.0.2" ]
check "Accept: negotiated EID SMCLINUXTEST, V2 LG type direct (1), OS type Linux (2)" \
	[ "$(f "$a" smc.accept.eid | sed 's/ *$//')/$(f "$a" smc.accept.v2_lg.type)/$(f "$a" smc.accept.os.type)" = SMCLINUXTEST/1/2 ]

c='smc.clc_msg == 3'
echo "# Confirm: length $(f "$c" smc.length) first contact $(f "$c" smc.confirm.first.contact) GID $(f "$c" smc.client.gid) EID '$(f "$c" smc.confirm.eid)' GID list $(f "$c" smc.confirm.gid.list.entry_count): $(f "$c" smc.confirm.gid.list.entry) QP $(f "$c" smc.confirm.client.qp.number)"
check "Confirm: 180 bytes, first contact, client GID ::ffff:10.43.0.1, EID SMCLINUXTEST" \
	[ "$(f "$c" smc.length)/$(f "$c" smc.confirm.first.contact)/$(f "$c" smc.client.gid)/$(f "$c" smc.confirm.eid | sed 's/ *$//')" = \
		"180/1/::ffff:10.43.0.1/SMCLINUXTEST" ]
check "Confirm: a GID list of one entry, the client's own GID" \
	[ "$(f "$c" smc.confirm.gid.list.entry_count)/$(f "$c" smc.confirm.gid.list.entry)" = "1/::ffff:10.43.0.1" ]

roce=$(tsh -Y "udp.port == 4791" | wc -l)
check "no RoCEv2 packet (UDP 4791) at all (got $roce)" [ "$roce" = 0 ]
bad=$(tsh -Y "tcp.port == $port" -V | grep -E 'Malformed|Expert Info \((Error|Warning)/' | grep -v -c '/Sequence)')
check "tshark finds nothing malformed in the CLC messages ($bad reports)" [ "$bad" = 0 ]
finish
