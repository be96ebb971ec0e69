# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# capture/lib.sh: the TAP results of the host-side capture scripts (bash).
#	ok DESC / notok DESC     one result
#	check DESC 'CONDITION'   ok when CONDITION, one string of shell run by
#	                         eval (single-quote it), is true, else notok
#	finish                   the plan; exit 1 if anything failed
# The whole condition is one argument so that "[ a ] && [ b ]" is all of
# it: written as the words check DESC [ a ] && [ b ], the shell would give
# check "[ a ]" alone and test "[ b ]" after it, its result seen by no one.
# check refuses more than one condition word (a not ok) to catch that.
n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
notok() { n=$((n + 1)); failed=1; echo "not ok $n - $*"; }
check() {
	if [ $# != 2 ]; then
		notok "${1:-}: check takes one quoted condition, was given $(($# - 1)) words: ${*:2}"
		return 1
	fi
	if eval "$2"; then ok "$1"; else notok "$1"; return 1; fi
}
finish() { echo "1..$n"; exit $failed; }

# tshark's view of a capture. tcp.try_heuristic_first: SMC's dissector (a
# heuristic: the CLC eyecatcher) gets a TCP segment before any dissector
# that owns one of its port numbers. Without it, a client whose ephemeral
# port was 34980 (0x88a4, EtherCAT's) had its Decline decoded as EtherCAT
# (CI, 2026-11-29: no CLC message seen, 80 "malformed" reports).
TSHARK=(tshark -o tcp.try_heuristic_first:TRUE)
# tshark_reports PCAP FILTER: how many Malformed and Error/Warning expert
# reports tshark makes on the frames of FILTER that are ours to judge: SMC,
# RoCEv2 and TCP without payload; TCP's Sequence notes (a retransmission,
# the closing RST) do not count. TCP payload that is not SMC is a program's
# data, which tshark decodes as whatever protocol owns a port number.
tshark_reports() {
	"${TSHARK[@]}" -r "$1" -Y "($2) && !(tcp.len > 0 && !smc)" -V 2>/dev/null |
		grep -E 'Malformed|Expert Info \((Error|Warning)/' | grep -v -c '/Sequence)'
}
