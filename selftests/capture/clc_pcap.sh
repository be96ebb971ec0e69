#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# selftests/capture/clc_pcap.sh CLIENT_MODULE SERVER_MODULE
#
# Runs on the host. Boots two VMs with a capture of VM 0's eth0 (vm/run
# --pcap), makes one AF_SMC connection from VM 0 (module CLIENT_MODULE) to
# VM 1 (SERVER_MODULE), each "ours" or "intree", echoes data over it, and
# then asks tshark, a decoder we did not write, what went over the wire:
#   - the SYN and the SYN-ACK carry the SMC experimental option (ExID E2D4);
#   - the CLC messages decode as SMC with no malformed or expert warning,
#     and the client's Decline says "no SMC device" (0x03030000): neither
#     side has an SMC device, so both fall back to TCP;
#   - the echoed bytes went over the same TCP connection, after the CLC.
# Prints TAP. Needs the built tree (make) and tshark.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
client_mod=${1:-ours} server_mod=${2:-ours}
build=${BUILD:-$top/build}
out=$build/capture/$client_mod-$server_mod
port=4400 bytes=65536
mkdir -p "$out"
rm -f "$out/hs.pcap"

n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
notok() { n=$((n + 1)); failed=1; echo "not ok $n - $*"; }
check() { local what=$1; shift; if "$@"; then ok "$what"; else notok "$what"; fi; }
finish() { echo "1..$n"; exit $failed; }

echo "TAP version 13"
echo "# capture: client module $client_mod on VM 0, server module $server_mod on VM 1"
command -v tshark >/dev/null || { notok "tshark is installed"; finish; }

# The guest side: the echo server on VM 1, the client here on VM 0.
guest='
smc-vm-exec 1 "($SMC_SELFTESTS/tools/smc-echo -s -f smc -a 10.43.0.2 -p '$port' -r /tmp/ready -t 60 >/tmp/echo.log 2>&1 &) </dev/null >/dev/null 2>&1" || exit 2
smc-vm-exec 1 "n=0; until [ -e /tmp/ready ]; do n=\$((n+1)); [ \$n -lt 600 ] || exit 1; sleep 0.05; done" || exit 3
$SMC_SELFTESTS/tools/smc-echo -c -f smc -a 10.43.0.2 -p '$port' -n '$bytes' -w 10
'
"$top/vm/run" --vms 2 --module "$client_mod" --peer-module "$server_mod" \
	--timeout 300 --pcap "$out/hs.pcap" -- sh -c "$guest" >"$out/vm.log" 2>&1
rc=$?
sed 's/^/# vm: /' "$out/vm.log" | grep -v '^# vm: qemu-system' | tail -n 8
check "AF_SMC echo of $bytes bytes from VM 0 to VM 1 succeeded (vm/run status $rc)" [ $rc = 0 ]
[ -s "$out/hs.pcap" ] || { notok "the capture has packets"; finish; }

conn="tcp.port == $port"
fields() { tshark -r "$out/hs.pcap" -Y "$conn && $1" -T fields "${@:2}" 2>/dev/null; }

syn=$(fields 'tcp.flags.syn == 1 && tcp.flags.ack == 0' -e tcp.options.experimental.exid | head -n 1)
synack=$(fields 'tcp.flags.syn == 1 && tcp.flags.ack == 1' -e tcp.options.experimental.exid | head -n 1)
echo "# SYN ExID: '$syn', SYN-ACK ExID: '$synack'"
check "the SYN carries the SMC option (ExID 0xe2d4)" [ "$syn" = 0xe2d4 ]
check "the SYN-ACK carries the SMC option (ExID 0xe2d4)" [ "$synack" = 0xe2d4 ]

bad=$(tshark -r "$out/hs.pcap" -Y "$conn" -V 2>/dev/null |
	grep -c -E 'Malformed|Expert Info \((Error|Warning)')
check "tshark finds nothing malformed on the connection ($bad reports)" [ "$bad" = 0 ]

clc=$(fields smc -e ip.src -e _ws.col.Info -e smc.peer.diag.info -e smc.decline.os.type)
echo "$clc" | sed 's/^/# clc: /'
decl=$(awk -F'\t' '$1 == "10.43.0.1" && $2 ~ /Decline/' <<<"$clc" | head -n 1)
check "the client sends a CLC Decline" [ -n "$decl" ]
diag=$(cut -f3 <<<"$decl" | cut -d, -f1)
check "its diagnosis is 0x03030000, no SMC device (got '$diag')" [ "$diag" = 0x03030000 ]
others=$(awk -F'\t' '!($1 == "10.43.0.1" && $2 ~ /Decline/)' <<<"$clc" | grep -c .)
check "no other CLC message: both sides fall back after it ($others others)" [ "$others" = 0 ]

# Payload after the CLC: the echo's bytes, both ways, on this connection.
decl_len=$(fields 'smc' -e tcp.len | head -n 1)
up=$(fields 'ip.src == 10.43.0.1 && tcp.len > 0' -e tcp.len | awk '{s += $1} END {print s + 0}')
down=$(fields 'ip.src == 10.43.0.2 && tcp.len > 0' -e tcp.len | awk '{s += $1} END {print s + 0}')
echo "# payload: client to server $up bytes (CLC $decl_len), server to client $down bytes"
check "the client's $bytes bytes follow the CLC on the same connection" \
	[ "$up" = $((bytes + ${decl_len:-0})) ]
check "the server's echo of $bytes bytes comes back on it" [ "$down" = $bytes ]
finish
