#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# socket/echo_2vm.sh [BYTES]: smc-echo between two VMs over the test network
# (eth0, 10.43.0.x): the client on VM 0 (here), the server on VM 1 (started
# through smc-vm-exec), default 16M (tap_volume_size divides it), on TCP
# first (the reference), then on AF_SMC. Besides the client's own checks,
# the server's checksum of what it echoed must equal the client's checksum
# of what it sent.
#
# The AF_SMC echo is a TCP fallback, and is named so: with the module's
# defaults each VM has only its own loopback ISM device, which the other
# cannot reach, and no RDMA device, so the server declines the client's
# SMC-Dv2 Proposal (0x03030007, no SMC-Dv2 device). Both ends must say so by
# sock_diag (mode TCP, the server with that reason, the client with
# PEER_DECLINED and the server's reason as the peer diagnosis): an echo that
# became SMC here would be news to look at, not a pass. SMC-R between two VMs,
# data checked, is smcr/data_2vm.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/module.sh"

bytes=$(tap_volume_size "${1:-16M}")
server_ip=10.43.0.2
ECHO=$here/../tools/smc-echo
PROBE=$here/../tools/smc-sockprobe

[ "${SMC_VM_COUNT:-1}" -ge 2 ] || tap_skip_all "needs two VMs (vm/run --vms 2)"
command -v smc-vm-exec >/dev/null || smc_missing_all "no smc-vm-exec (not in a test VM)"

label() {
	case "$1" in inet) echo "tcp ipv4" ;; smc) echo "smc ipv4" ;; esac
}

# vm1 SHELL-COMMAND: run it on VM 1 (its output comes back on stdout).
vm1() {
	smc-vm-exec 1 "$1"
}

vm_echo() {
	fam=$1 port=$2
	dir=/tmp/echo-2vm-$fam
	probe=$("$PROBE" "$fam")
	[ "$probe" = ok ] || smc_missing "$(label "$fam") sockets are not available on VM 0: $probe"

	# The server runs detached on VM 1, its output in files there; the
	# agent returns once the starting shell is done.
	vm1 "rm -rf $dir && mkdir -p $dir && ( \"\$SMC_SELFTESTS/tools/smc-echo\" -s -f $fam \
-a $server_ip -p $port -r $dir/ready -t 600 >$dir/log 2>&1 & echo \$! >$dir/pid; wait \$!; \
echo \$? >$dir/rc ) </dev/null >/dev/null 2>&1 &" ||
		{ tap_fail "cannot start the server on VM 1"; return 1; }
	# Wait on VM 1 for the server to listen, or to have exited.
	if ! vm1 "n=0; until [ -e $dir/ready ] || [ -e $dir/rc ]; do n=\$((n + 1)); \
[ \$n -lt 1200 ] || exit 1; sleep 0.05; done; [ -e $dir/ready ]"; then
		vm1 "cat $dir/log"
		tap_fail "the $(label "$fam") server on VM 1 did not start"
		return 1
	fi
	"$ECHO" -c -f "$fam" -a $server_ip -p "$port" -n "$bytes" -w 10 >"$TMPDIR/client" 2>&1
	client_rc=$?
	sed 's/^/client: /' "$TMPDIR/client"
	# The server ends after its one connection; a failed client may leave it
	# waiting, so stop it then.
	[ $client_rc = 0 ] || vm1 "kill \$(cat $dir/pid) 2>/dev/null; true"
	vm1 "n=0; until [ -e $dir/rc ]; do n=\$((n + 1)); [ \$n -lt 600 ] || break; sleep 0.05; done; \
cat $dir/log; exit \$(cat $dir/rc 2>/dev/null || echo 124)" >"$TMPDIR/server"
	server_rc=$?
	sed 's/^/server (VM 1): /' "$TMPDIR/server"
	[ $client_rc = 0 ] || tap_fail "client failed with status $client_rc"
	[ $server_rc = 0 ] || tap_fail "server failed with status $server_rc"
	sent=$(sed -n 's/^sent .*checksum=\([0-9a-f]*\).*/\1/p' "$TMPDIR/client")
	echoed=$(sed -n 's/^connection .*checksum=\([0-9a-f]*\).*/\1/p' "$TMPDIR/server")
	[ -n "$sent" ] && [ "$sent" = "$echoed" ] ||
		tap_fail "server echoed checksum '$echoed', client sent '$sent'"
	vm1 "rm -rf $dir"
	[ "$fam" = smc ] || return 0
	# smc-echo's mode lines (tools/echo.c): both ends fell back.
	client_mode=$(sed -n 's/^mode //p' "$TMPDIR/client")
	server_mode=$(sed -n 's/^connection 1 mode //p' "$TMPDIR/server")
	tap_diag "sock_diag: client $client_mode; server $server_mode"
	set -- $client_mode
	c_mode=$1 c_reason=$3 c_peer=$5
	set -- $server_mode
	s_mode=$1 s_reason=$3
	[ "$c_mode" = TCP ] && [ "$s_mode" = TCP ] ||
		tap_fail "not a TCP fallback at both ends: client '$client_mode', server '$server_mode'"
	# The server found no SMC-Dv2 device it shares with the client
	# (0x03030007) and declined; the client learnt it as PEER_DECLINED.
	[ "$s_reason" = 0x03030007 ] || tap_fail "the server's reason is $s_reason, not 0x03030007 (no SMC-Dv2 device)"
	[ "$c_reason" = 0x05000000 ] || tap_fail "the client's reason is $c_reason, not PEER_DECLINED"
	[ "$c_peer" = "$s_reason" ] ||
		tap_fail "the client's peer diagnosis $c_peer is not the server's reason $s_reason"
	return 0
}

case_size=${bytes}iB
case "$bytes" in *[!0-9KMG]*|*[0-9]) case_size="$bytes bytes" ;; esac
tap_case "tcp ipv4 vm0 -> vm1 $case_size" 300 vm_echo inet 4380
tap_case "smc ipv4 vm0 -> vm1 $case_size, a TCP fallback at both ends (no SMC device in common)" 300 vm_echo smc 4381
tap_done
