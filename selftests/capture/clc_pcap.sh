#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# selftests/capture/clc_pcap.sh CLIENT_MODULE SERVER_MODULE [ism]
#
# Runs on the host. Boots two VMs with a capture of VM 0's eth0 (vm/run
# --pcap), makes one AF_SMC connection from VM 0 (module CLIENT_MODULE) to
# VM 1 (SERVER_MODULE), each "ours" or "intree", echoes data over it, and
# then asks tshark, a decoder we did not write, what went over the wire:
#   - the SYN and the SYN-ACK carry the SMC experimental option (ExID E2D4);
#   - the CLC messages decode as SMC with no malformed or expert warning;
#   - without "ism" (our module reloaded with loopback_ism=0 on both VMs):
#     the client has no SMC device, so its only CLC message is a Decline
#     saying so (0x03030000) and both sides fall back;
#   - with "ism" (our module with its default, the loopback ISM device): the
#     client proposes SMC-Dv2 with its loopback device's GID and CHID and
#     the system EID, and the server declines: a loopback device reaches
#     no other machine (our server: 0x03030007, no SMC-Dv2 device; Linux
#     6.1: 0x03030003, no ISMv2 hardware);
#   - the echoed bytes went over the same TCP connection, after the CLC.
# Prints TAP. Needs the built tree (make) and tshark.
# shellcheck disable=SC2034 # variables read in check's quoted conditions
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
client_mod=${1:-ours} server_mod=${2:-ours} ism=${3:-}
build=${BUILD:-$top/build}
out=$build/capture/$client_mod-$server_mod${ism:+-$ism}
port=4400 bytes=65536
mkdir -p "$out"
rm -f "$out/hs.pcap"

. "$here/lib.sh"

echo "TAP version 13"
echo "# capture: client module $client_mod on VM 0, server module $server_mod on VM 1${ism:+, loopback ISM}"
command -v tshark >/dev/null || { notok "tshark is installed"; finish; }

# The guest side: the echo server on VM 1, the client here on VM 0.
reload='
if grep -q "^af_smc " /proc/modules; then rmmod af_smc && insmod "$SMC_MODULE_FILE" loopback_ism=0 || exit 4; fi
smc-vm-exec 1 "if grep -q \"^af_smc \" /proc/modules; then rmmod af_smc && insmod \"\$SMC_MODULE_FILE\" loopback_ism=0; fi" || exit 5
'
[ -z "$ism" ] || reload=
guest=$reload'
smc-vm-exec 1 "($SMC_SELFTESTS/tools/smc-echo -s -k 2 -f smc -a 10.43.0.2 -p '$port' -r /tmp/ready -t 60 >/tmp/echo.log 2>&1 &) </dev/null >/dev/null 2>&1" || exit 2
smc-vm-exec 1 "n=0; until [ -e /tmp/ready ]; do n=\$((n+1)); [ \$n -lt 600 ] || exit 1; sleep 0.05; done" || exit 3
$SMC_SELFTESTS/tools/smc-echo -c -f smc -a 10.43.0.2 -p '$port' -n '$bytes' -w 10 || exit 1
# A second connection, held open: what each side says about it (diag).
$SMC_SELFTESTS/tools/smc-fbprobe 10.43.0.2 '$port' 3 | sed "s/^/client-diag: /" &
sleep 1.5
smc-vm-exec 1 "smcss -a" | sed "s/^/server-smcss: /"
wait
'
"$top/vm/run" --vms 2 --module "$client_mod" --peer-module "$server_mod" \
	--timeout 300 --pcap "$out/hs.pcap" -- sh -c "$guest" >"$out/vm.log" 2>&1
rc=$?
sed 's/^/# vm: /' "$out/vm.log" | grep -v '^# vm: qemu-system' | tail -n 8
check "AF_SMC echo of $bytes bytes from VM 0 to VM 1 succeeded (vm/run status $rc)" '[ $rc = 0 ]'
[ -s "$out/hs.pcap" ] || { notok "the capture has packets"; finish; }

# The wire checks look at the first connection, the echo; the second one
# (held open for the diag checks below) repeats its handshake.
stream=$(tshark -r "$out/hs.pcap" -Y "tcp.dstport == $port && tcp.flags.syn == 1" \
	-T fields -e tcp.stream 2>/dev/null | head -n 1)
conn="tcp.stream == ${stream:-0}"
fields() { "${TSHARK[@]}" -r "$out/hs.pcap" -Y "$conn && $1" -T fields "${@:2}" 2>/dev/null; }

syn=$(fields 'tcp.flags.syn == 1 && tcp.flags.ack == 0' -e tcp.options.experimental.exid | head -n 1)
synack=$(fields 'tcp.flags.syn == 1 && tcp.flags.ack == 1' -e tcp.options.experimental.exid | head -n 1)
echo "# SYN ExID: '$syn', SYN-ACK ExID: '$synack'"
check "the SYN carries the SMC option (ExID 0xe2d4)" '[ "$syn" = 0xe2d4 ]'
check "the SYN-ACK carries the SMC option (ExID 0xe2d4)" '[ "$synack" = 0xe2d4 ]'

bad=$(tshark_reports "$out/hs.pcap" "$conn")
check "tshark finds nothing malformed on the connection ($bad reports)" '[ "$bad" = 0 ]'

clc=$(fields smc -e ip.src -e _ws.col.Info -e smc.peer.diag.info -e smc.decline.os.type)
echo "$clc" | sed 's/^/# clc: /'
from_client=$(awk -F'\t' '$1 == "10.43.0.1"' <<<"$clc")
from_server=$(awk -F'\t' '$1 == "10.43.0.2"' <<<"$clc")
if [ -z "$ism" ] || [ "$client_mod" != ours ]; then
	check "the client's one CLC message is a Decline" \
		'[ "$(grep -c . <<<"$from_client")" = 1 ] && grep -q Decline <<<"$from_client"'
	diag=$(cut -f3 <<<"$from_client" | cut -d, -f1)
	check "its diagnosis is 0x03030000, no SMC device (got '$diag')" '[ "$diag" = 0x03030000 ]'
	check "the server sends no CLC message: both fall back" '[ -z "$from_server" ]'
else
	check "the client's one CLC message is a Proposal" \
		'[ "$(grep -c . <<<"$from_client")" = 1 ] && grep -q Proposal <<<"$from_client"'
	prop=$(fields smc.proposal.smcv2.type -e smc.proposal.smc.version -e smc.proposal.smc.type \
		-e smc.proposal.smcv2.type -e smc.proposal.smc.chid -e smc.proposal.ism.gid \
		-e smc.proposal.smc.seid -e smc.proposal.sender.client.peer.id)
	echo "# proposal (version, v1 type, v2 type, chid, ism gid, seid, peer id): $prop"
	IFS=$'\t' read -r p_ver p_t1 p_t2 p_chid p_gid p_seid p_peer <<<"$prop"
	check "it is SMCv2, v1 type none (2), v2 type SMC-D (1)" \
		'[ "$p_ver" = 2 ] && [ "$p_t1" = 2 ] && [ "$p_t2" = 1 ]'
	# The SMC-D area (v1 device) is empty; the SMC-Dv2 list follows. The
	# loopback device is an emulated one (SMCv2.1), whose GID has 128 bits:
	# two entries with its CHID, the GID's halves, neither zero.
	IFS=, read -r g0 g1 g2 <<<"$p_gid"
	check "the SMC-D area is zero, the SMC-Dv2 list has the 128-bit GID of CHID 0xffff in two entries" \
		'[ "$p_chid" = 0x0000,0xffff,0xffff ] && [ "$g0" = 0x0000000000000000 ] &&
		[ -n "$g1" ] && [ "$g1" != 0x0000000000000000 ] &&
		[ -n "$g2" ] && [ "$g2" != 0x0000000000000000 ]'
	check "it indicates the system EID" '[ "$p_seid" = 1 ] || [ "$p_seid" = True ]'
	check "the server's one CLC message is a Decline" \
		'[ "$(grep -c . <<<"$from_server")" = 1 ] && grep -q Decline <<<"$from_server"'
	diag=$(cut -f3 <<<"$from_server" | cut -d, -f1)
	echo "# server decline diagnosis: $diag"
	if [ "$server_mod" = ours ]; then
		check "its diagnosis is 0x03030007, no SMC-Dv2 device (got '$diag')" \
			'[ "$diag" = 0x03030007 ]'
	else
		# Linux 6.1 on x86 has no SMC-Dv2 capable ISM hardware.
		check "its diagnosis is 0x03030003, no ISMv2 support (got '$diag')" \
			'[ "$diag" = 0x03030003 ]'
	fi
fi

# The reasons each side keeps, read through sock_diag on each VM: the
# client with our own reader (selftests/lib/smcdiag.c), the server with
# smcss. Both work against either module, which share the ABI.
client_diag=$(sed -n 's/^client-diag: mode [0-9]* fallback //p' "$out/vm.log")
server_diag=$(awk '/^server-smcss: ACTIVE/ && $0 ~ /:'$port' / { print $NF }' "$out/vm.log")
echo "# diag: client $client_diag, server $server_diag"
if [ -z "$ism" ] || [ "$client_mod" != ours ]; then
	want_client=0x03030000/0x00000000 want_server=0x05000000/0x03030000
elif [ "$server_mod" = ours ]; then
	want_client=0x05000000/0x03030007 want_server=0x03030007
else
	want_client=0x05000000/0x03030003 want_server=0x03030003
fi
check "the client fell back with $want_client (local/peer)" '[ "$client_diag" = "$want_client" ]'
check "the server fell back with $want_server" '[ "$server_diag" = "$want_server" ]'

# Payload after the CLC: the echo's bytes, both ways, on this connection.
# Stream bytes per direction: the highest relative sequence reached by a
# data segment (retransmissions count once this way).
decl_len=$(fields 'smc && ip.src == 10.43.0.1' -e tcp.len | awk '{s += $1} END {print s + 0}')
srv_len=$(fields 'smc && ip.src == 10.43.0.2' -e tcp.len | awk '{s += $1} END {print s + 0}')
stream_bytes() {
	fields "ip.src == $1 && tcp.len > 0" -e tcp.seq -e tcp.len |
		awk '{ e = $1 + $2 - 1; if (e > m) m = e } END { print m + 0 }'
}
up=$(stream_bytes 10.43.0.1)
down=$(stream_bytes 10.43.0.2)
echo "# payload: client to server $up bytes (CLC $decl_len), server to client $down bytes"
check "the client's $bytes bytes follow the CLC on the same connection" \
	'[ "$up" = $((bytes + ${decl_len:-0})) ]'
check "the server's echo of $bytes bytes comes back on it" '[ "$down" = $((bytes + srv_len)) ]'
finish
