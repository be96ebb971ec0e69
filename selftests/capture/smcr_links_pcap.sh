#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# selftests/capture/smcr_links_pcap.sh
#
# Runs on the host. Boots two VMs with two test networks (rxe0 on eth0 and
# rxe1 on eth2 of each, the PNET ID SMCNET2 on all four, as the failover
# tests have them), captures both of VM 0's wires (vm/run --pcap, --pcap2),
# our module on both with smcr=1 loopback_ism=0 lgr_linger=0, and asks
# tshark, a decoder we did not write, what a group's second link looks like
# on the wire (kernel/smcr_lgr_llc.c; issue 20):
#   - a held connection makes the groups; over eth0 the server (VM 1)
#     sends an ADD_LINK request naming its eth2 GID (10.44.0.2) and a QP,
#     the client answers with an ADD_LINK response naming its own
#     (10.44.0.1) and the same link number, and an ADD_LINK_CONTINUATION
#     goes each way for that link with the rkey of the held connection's
#     RMB;
#   - over eth2: CONFIRM_LINK from the QP the server's ADD_LINK named,
#     answered from the QP the client's named;
#   - a second connection (an echo of 1 MiB) goes to the new link, which
#     has no connection yet: each end announces its new RMB with a
#     CONFIRM_RKEY over eth2 naming one other link (the first), each is
#     answered, and RDMA WRITEs go both ways over eth2; when the echo
#     ends, each end withdraws its RMB with a DELETE_RKEY over eth2 naming
#     the rkey its CONFIRM_RKEY had named there, each answered;
#   - VM 1's eth2 down: VM 1 tells VM 0 with a DELETE_LINK over eth0 for
#     that link alone (not all, reason 0x00010000, lost path); eth2 up
#     again, the link is added again;
#   - the held connection closed: its RMB withdrawn by DELETE_RKEY over
#     eth0 by the end whose connection went first (the other's group may
#     be gone by then), then the orderly DELETE_LINK (all) over eth0;
#   - nothing malformed in either capture.
# With the argument "v2" (capture/smcr-links-v2-ours-ours), both VMs get
# the same UEID first and the groups are SMC-Rv2: the same flow with the
# v2 header (types 0x2N), and no ADD_LINK_CONTINUATION: the server's
# ADD_LINK request carries its RMBs in its v2 extension, which tshark
# shows as direct (no gateway), the target GID its new link's, one rkey
# pair whose rkey on the first link is the one the server's CLC Accept
# named (the held connection's RMB); the client's response is as long
# (its own RMB; tshark reads no extension on a response).
# Rings do not grow here (net.ipv4.tcp_moderate_rcvbuf 0 on both VMs): a
# ring that grows is announced and withdrawn with the same messages, and
# the counts above are those of each connection's first RMB.
# Prints TAP. Needs the built tree (make) and tshark.
# shellcheck disable=SC2034 # variables read in check's quoted conditions
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
build=${BUILD:-$top/build}
v2=0
[ "${1:-}" = v2 ] && v2=1
out=$build/capture/smcr-links-ours-ours
[ $v2 = 1 ] && out=$build/capture/smcr-links-v2-ours-ours
EID=SMCR.LINKS.V2
cli=10.43.0.1 srv=10.43.0.2 cli2=10.44.0.1 srv2=10.44.0.2
port=4402
mkdir -p "$out"
rm -f "$out/eth0.pcap" "$out/eth2.pcap"

. "$here/lib.sh"

echo "TAP version 13"
ver=SMC-Rv1
[ $v2 = 1 ] && ver="SMC-Rv2 (UEID $EID)"
echo "# capture: a group's second link between our modules (smcr=1, $ver), rxe0 on eth0 and rxe1 on eth2 of both VMs"
command -v tshark >/dev/null || { notok "tshark is installed"; finish; }

# The held connection's server on VM 1 at port+1, the echo's at port: one
# server serves one connection after the other.
guest='
. $SMC_SELFTESTS/lib/topology.sh
TMPDIR=/tmp
T=$SMC_SELFTESTS/tools
L=/sys/kernel/debug/af_smc/smcr_lgr
reload="rmmod af_smc && insmod $SMC_MODULE_FILE smcr=1 loopback_ism=0 lgr_linger=0"
grep -q " /sys/kernel/debug debugfs" /proc/mounts || mount -t debugfs none /sys/kernel/debug
sh -c "$reload" || exit 4
smc-vm-exec 1 "$reload" || exit 5
if [ '$v2' = 1 ]; then
	/smc/bin/smcd ueid add '$EID' || exit 18
	smc-vm-exec 1 "/smc/bin/smcd ueid add '$EID'" || exit 19
fi
# Rings that grow announce and withdraw their RMBs too: the counts and
# messages below are those of the first RMB of the echo connection alone.
sysctl -q -w net.ipv4.tcp_moderate_rcvbuf=0 || exit 16
smc-vm-exec 1 "sysctl -q -w net.ipv4.tcp_moderate_rcvbuf=0" || exit 17
topo_vm_rxe2 || exit 6
topo_vm_rxe2_pnet || exit 7
for p in '$port' $(('$port' + 1)); do
	smc-vm-exec 1 "rm -f /tmp/ready$p; $T/smc-echo -s -k 1 -f smc -a '$srv' -p $p -r /tmp/ready$p -t 120 >/tmp/echo$p.log 2>&1 </dev/null &" || exit 2
	smc-vm-exec 1 "n=0; until [ -e /tmp/ready$p ]; do n=\$((n+1)); [ \$n -lt 600 ] || exit 1; sleep 0.05; done" || exit 3
done
$T/smc-fbprobe '$srv' $(('$port' + 1)) 120 >/tmp/probe 2>&1 &
probe=$!
# ready VM: its group has a ready link on rxe0 and one on rxe1.
ready() { n=0; until topo_rxe2_ready_on $1; do n=$((n+1)); [ $n -lt 600 ] || return 1; sleep 0.05; done; }
ready 0 && ready 1 || exit 8
$T/smc-echo -c -f smc -a '$srv' -p '$port' -n 1M -w 20 -t 120 | sed "s/^/echo: /"
# The echo over: each end withdraws its RMB (DELETE_RKEY) before eth2 goes.
dels() { topo_field rkey_dels_sent "$(topo_on $1 "grep \"^lgr \" $L")"; }
n=0; until [ "$(dels 0)" = 1 ] && [ "$(dels 1)" = 1 ]; do
	n=$((n+1)); [ $n -lt 600 ] || exit 15; sleep 0.05
done
[ "$(topo_field deletes_taken "$(grep "^lgr " $L)")" = 0 ] || exit 9
smc-vm-exec 1 "ip link set eth2 down" || exit 10
n=0; until [ "$(topo_field deletes_taken "$(grep "^lgr " $L)")" = 1 ]; do
	n=$((n+1)); [ $n -lt 600 ] || exit 11; sleep 0.05
done
smc-vm-exec 1 "ip link set eth2 up" || exit 12
ready 0 && ready 1 || exit 13
kill $probe
wait $probe
sed "s/^/client-diag: /" /tmp/probe
# The groups go (linger 0) once both ends closed: DELETE_LINK (all).
n=0; while grep -q "^lgr " $L || smc-vm-exec 1 "grep -q \"^lgr \" $L"; do
	n=$((n+1)); [ $n -lt 600 ] || exit 14; sleep 0.05
done
for vm in 0 1; do topo_on $vm "/smc/bin/smc_pnet -f"; done
topo_cleanup
'
"$top/vm/run" --vms 2 --test-nets 2 --timeout 300 --pcap "$out/eth0.pcap" --pcap2 "$out/eth2.pcap" \
	-- sh -c "$guest" >"$out/vm.log" 2>&1
rc=$?
sed 's/^/# vm: /' "$out/vm.log" | grep -v '^# vm: qemu-system' | tail -n 8
check "the guest script ran (vm/run status $rc)" '[ $rc = 0 ]'
diag=$(sed -n 's/^client-diag: mode [0-9]* fallback //p' "$out/vm.log")
check "the held connection is SMC-R without fallback (got '$diag')" \
	'[ "$diag" = 0x00000000/0x00000000 ]'
check "the echo over the new link verified 1 MiB" 'grep -q "^echo: verified 1048576 bytes" "$out/vm.log"'
[ -s "$out/eth0.pcap" ] && [ -s "$out/eth2.pcap" ] || { notok "both captures have packets"; finish; }

# llc PCAP TYPE FIELD...: the RoCEv2 LLC messages of TYPE (its v1 number;
# with v2 the header's 0x2N) in PCAP, a line each: the source address,
# then FIELDs.
llc() {
	local pcap=$1 type=$(($2 | (v2 << 5))) f args=()
	shift 2
	for f in ip.src "$@"; do args+=(-e "$f"); done
	"${TSHARK[@]}" -r "$out/$pcap" -Y "udp.port == 4791 && smc.llc_msg == $type" -T fields "${args[@]}" 2>/dev/null
}
# is_true VALUE: tshark's boolean, 1 or True.
is_true() { [[ $1 =~ ^(1|True)$ ]]; }

add=$(llc eth0.pcap 0x02 smc.add.link.response smc.add.link.link.number smc.add.link.sender.gid \
	smc.add.link.sender.qp.number)
echo "$add" | sed 's/^/# ADD_LINK over eth0 (src, response, link, GID, QP): /'
IFS=$'\t' read -r q_src q_resp q_num q_gid q_qpn <<<"$(awk -F'\t' -v s=$srv '$1 == s' <<<"$add" | head -n 1)"
IFS=$'\t' read -r r_src r_resp r_num r_gid r_qpn <<<"$(awk -F'\t' -v s=$cli '$1 == s' <<<"$add" | head -n 1)"
check "an ADD_LINK request from the server naming its eth2 GID ($srv2) and a QP" \
	'[ -n "$q_src" ] && ! is_true "$q_resp" && [ "$q_gid" = "::ffff:$srv2" ] && [ -n "$q_qpn" ]'
check "the client's ADD_LINK response names its eth2 GID ($cli2), a QP and the same link number" \
	'[ -n "$r_src" ] && is_true "$r_resp" && [ "$r_gid" = "::ffff:$cli2" ] && [ -n "$r_qpn" ] &&
	[ -n "$q_num" ] && [ "$r_num" = "$q_num" ]'
cont=$(llc eth0.pcap 0x03 smc.add.link.cont.link.number smc.add.link.cont.rkey.number)
echo "$cont" | sed 's/^/# ADD_LINK_CONT over eth0 (src, link, rkeys): /'
# cont_from SRC: an ADD_LINK_CONT from SRC for the new link with an rkey.
cont_from() { awk -F'\t' -v s="$1" -v n="$q_num" '$1 == s && $2 == n && $3 >= 1 {f=1} END {exit !f}' <<<"$cont"; }
if [ $v2 = 0 ]; then
	check "an ADD_LINK_CONTINUATION each way for the new link, each with the held connection's rkey" \
		'cont_from $srv && cont_from $cli'
else
	check "no ADD_LINK_CONTINUATION (SMC-Rv2 has none)" '[ -z "$cont" ]'
	ext=$(llc eth0.pcap 0x02 smc.add.link.response smc.add.link.direct_link smc.add.link.client_target_gid \
		smc.add.link.rkey_count smc.add.link.rmb.RTok.Rkey1 udp.length | awk -F'\t' -v s=$srv '$1 == s')
	echo "$ext" | sed 's/^/# v2 ADD_LINK request over eth0 (src, response, direct, target GID, rkeys, rkey on link 1, UDP length): /'
	IFS=$'\t' read -r x_src x_resp x_direct x_gid x_n x_rkey x_len <<<"$(head -n 1 <<<"$ext")"
	acc=$("${TSHARK[@]}" -r "$out/eth0.pcap" -Y "tcp.port == $((port + 1)) && smc.accept.server.rmb.rkey" \
		-T fields -e smc.accept.server.rmb.rkey 2>/dev/null | head -n 1)
	check "its v2 extension: direct, target GID ::ffff:$srv2, one rkey pair, for the RMB the Accept named ($acc; got '$x_rkey')" \
		'is_true "$x_direct" && [ "$x_gid" = "::ffff:$srv2" ] && [ "$x_n" = 1 ] && [ -n "$acc" ] && [ "$((x_rkey))" = "$((acc))" ]'
	r_len=$(llc eth0.pcap 0x02 smc.add.link.response udp.length | awk -F'\t' -v s=$cli '$1 == s {print $3; exit}')
	c_len=$(llc eth2.pcap 0x01 udp.length | awk -F'\t' 'NR == 1 {print $2}')
	check "the request and the client's response are 28 + 16 bytes longer than a 44-byte CONFIRM_LINK ($x_len, $r_len, $c_len)" \
		'[ -n "$c_len" ] && [ "$x_len" = $((c_len + 44)) ] && [ "$r_len" = "$x_len" ]'
fi

conf=$(llc eth2.pcap 0x01 smc.confirm.link.response smc.confirm.link.sender.qp.number)
echo "$conf" | sed 's/^/# CONFIRM_LINK over eth2 (src, response, QP): /'
check "over eth2 a CONFIRM_LINK request from the server's new QP ($q_qpn)" \
	'awk -F"\t" -v s=$srv2 -v q="$q_qpn" "\$1 == s && \$2 !~ /^(1|True)\$/ && \$3 == q {f=1} END {exit !f}" <<<"$conf"'
check "and its response from the client's new QP ($r_qpn)" \
	'awk -F"\t" -v s=$cli2 -v q="$r_qpn" "\$1 == s && \$2 ~ /^(1|True)\$/ && \$3 == q {f=1} END {exit !f}" <<<"$conf"'
rkey=$(llc eth2.pcap 0x06 smc.confirm.rkey.response smc.confirm.rkey.number.qp smc.confirm.rkey.link.number)
echo "$rkey" | sed 's/^/# CONFIRM_RKEY over eth2 (src, response, other links, their numbers): /'
# rkey_from SRC RESPONSE: a CONFIRM_RKEY from SRC with that response flag;
# a request names one other link, the first (number 1, tshark: 0x01).
rkey_from() {
	awk -F'\t' -v s="$1" -v r="$2" '$1 == s && ($2 ~ /^(1|True)$/) == r &&
		(r || ($3 == 1 && $4 ~ /^(0x0*)?1(,|$)/)) {f=1} END {exit !f}' <<<"$rkey"
}
check "CONFIRM_RKEY requests from both ends over the new link, each naming the first link" \
	'rkey_from $cli2 0 && rkey_from $srv2 0'
check "and an answer from each end" 'rkey_from $cli2 1 && rkey_from $srv2 1'
# The CONFIRM_RKEY requests over the new link: source, then the rkeys
# they name, the one on the link the request went over first.
named=$(llc eth2.pcap 0x06 smc.confirm.rkey.response smc.confirm.rkey.new.rkey |
	awk -F'\t' '$2 !~ /^(1|True)$/ {print $1 "\t" $3}')
drk=$(llc eth2.pcap 0x09 smc.delete.rkey.response smc.delete.rkey.count smc.delete.rkey.deleted \
	smc.delete.rkey.count.invalid)
echo "$drk" | sed 's/^/# DELETE_RKEY over eth2 (src, response, count, rkeys, v2: not found): /'
# drk_from SRC PEER: a DELETE_RKEY request from SRC naming one rkey, the
# one SRC's CONFIRM_RKEY named on that link, and PEER's answer: naming it
# (v1), or with no rkey not found (v2, whose answer lists those only).
drk_from() {
	local k n
	k=$(awk -F'\t' -v s="$1" '$1 == s && $2 !~ /^(1|True)$/ && $3 == 1 {print $4; exit}' <<<"$drk")
	n=$(awk -F'\t' -v s="$1" '$1 == s {split($2, k, ","); print k[1]; exit}' <<<"$named")
	[ -n "$k" ] && [ -n "$n" ] && [ "$((k))" = "$((n))" ] &&
		awk -F'\t' -v s="$2" -v k="$k" -v v2=$v2 '$1 == s && $2 ~ /^(1|True)$/ &&
			(v2 ? $4 == "" && $5 == 0 : $4 == k) {f=1} END {exit !f}' <<<"$drk"
}
check "the echo done: a DELETE_RKEY from each end over the new link for the RMB its CONFIRM_RKEY named, each answered" \
	'drk_from $cli2 $srv2 && drk_from $srv2 $cli2'
# RC RDMA WRITE opcodes: first 6, middle 7, last 8, only 10 (11 with immediate).
wr=$("${TSHARK[@]}" -r "$out/eth2.pcap" -Y "udp.port == 4791 && infiniband.bth.opcode in {6, 7, 8, 10, 11}" \
	-T fields -e ip.src 2>/dev/null | sort | uniq -c | tr '\n' ' ')
echo "# RDMA WRITE packets over eth2 by source: $wr"
check "the echo's RDMA WRITEs go both ways over eth2" \
	'grep -q "$cli2" <<<"$wr" && grep -q "$srv2" <<<"$wr"'

drk0=$(llc eth0.pcap 0x09 smc.delete.rkey.response smc.delete.rkey.count)
echo "$drk0" | sed 's/^/# DELETE_RKEY over eth0 (src, response, count): /'
# The end whose connection goes first withdraws its RMB; the other may
# find its group ended by then (the first end's orderly DELETE_LINK of
# all links, with no connection left there), and then sends none.
check "the held connection closed: a DELETE_RKEY request over eth0, from either end" \
	'awk -F"\t" "\$2 !~ /^(1|True)\$/ && \$3 == 1" <<<"$drk0" | grep -q .'
del=$(llc eth0.pcap 0x04 smc.delete.link.all smc.delete.link.orderly smc.delete.link.number \
	smc.delete.link.reason.code)
echo "$del" | sed 's/^/# DELETE_LINK over eth0 (src, all, orderly, link, reason): /'
IFS=$'\t' read -r d_src d_all d_ord d_num d_rsn <<<"$(head -n 1 <<<"$del")"
check "VM 1's eth2 down: its DELETE_LINK for link $q_num alone, lost path (0x00010000)" \
	'[ "$d_src" = $srv ] && ! is_true "$d_all" && [ "$d_num" = "$q_num" ] && [ "$((d_rsn))" = $((0x00010000)) ]'
IFS=$'\t' read -r e_src e_all e_ord e_num e_rsn <<<"$(tail -n 1 <<<"$del")"
check "the groups gone: the orderly DELETE_LINK of all links, reason 0x00030000" \
	'[ -n "$e_src" ] && is_true "$e_all" && is_true "$e_ord" && [ "$((e_rsn))" = $((0x00030000)) ]'
for c in eth0 eth2; do
	bad=$(tshark_reports "$out/$c.pcap" "(tcp.port == $port) || (tcp.port == $((port + 1))) || (udp.port == 4791)")
	check "tshark finds nothing malformed over $c ($bad reports)" '[ "$bad" = 0 ]'
done
finish
