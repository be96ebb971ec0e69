#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# vm_preload.sh: selftest of smc_run and libsmc-preload.so in the test VM
# (busybox ash; also runs under dash and bash).
#
#   vm_preload.sh [--expect-smc | --expect-tcp]
#
# Runs smc-preload-probe under 'smc_run -d': a loopback TCP connection whose
# sockets stay open while this script looks at them from outside:
#   - with AF_SMC available, new AF_INET and AF_INET6 stream sockets must be
#     AF_SMC (SO_DOMAIN 43, protocol 0 or 1); of the connection, the listener
#     must be AF_SMC, and the listening, connecting and accepted sockets must
#     be sockets of the probe process (/proc/PID/fd) that are not TCP sockets
#     (their inodes are not in /proc/net/tcp or /proc/net/tcp6: after an SMC
#     fallback Linux's smc hands a connected fd over to its internal TCP
#     socket, so SO_DOMAIN may then say 2, but the inode stays the SMC one);
#     the SMC/SMC6 rows of /proc/net/protocols must count them (outside a
#     test VM with a module loaded: if the module counts sockets at all);
#   - without AF_SMC (module not loaded), the same program must still work
#     over plain TCP (SO_DOMAIN 2, the listener in /proc/net/tcp).
# If our module (af_smc) is loaded and can be removed, the script removes it,
# runs the fallback check and loads it again ($SMC_MODULE_FILE).
#
# Default: check whatever the VM has. --expect-smc fails if AF_SMC is missing,
# --expect-tcp fails if it is there.
#
# Environment: SMC_RUN (default: smc_run in PATH), SMC_PRELOAD_PROBE (default:
# next to this script), SMC_MODULE_FILE and SMC_MODULE_NAME (set by the VM's init).
# Output: TAP. Exit status: 0 pass, 1 fail, 4 (kselftest skip) when nothing
# could be checked.

expect=auto
case ${1-} in
--expect-smc) expect=smc ;;
--expect-tcp) expect=tcp ;;
'') ;;
*) echo "usage: vm_preload.sh [--expect-smc | --expect-tcp]" >&2; exit 2 ;;
esac

unset CDPATH
here=$(cd "$(dirname "$0")" && pwd)
probe=${SMC_PRELOAD_PROBE:-$here/smc-preload-probe}
smc_run=${SMC_RUN:-$(command -v smc_run)}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/vm_preload.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $*"; }
check() { # check DESCRIPTION COMMAND...
	desc=$1
	shift
	if "$@"; then ok "$desc"; else not_ok "$desc"; fi
}
note() { echo "# $*"; }

# Both are in the image we build: missing in a test VM with a module is a
# failure, not a skip.
if [ ! -x "$probe" ] || [ -z "$smc_run" ] || [ ! -x "$smc_run" ]; then
	if [ "${SMC_MODULE:-}" = ours ] || [ "${SMC_MODULE:-}" = intree ]; then
		echo "not ok 1 - smc_run ('$smc_run') and the probe ('$probe') are installed"
		echo "1..1"
		exit 1
	fi
	echo "1..0 # SKIP smc_run ('$smc_run') or the probe ('$probe') is missing"
	exit 4
fi

has_smc() { "$probe" has-smc >/dev/null 2>&1; }

# Inodes of all TCP sockets the kernel lists.
tcp_inodes() {
	cat /proc/net/tcp /proc/net/tcp6 2>/dev/null | awk 'NR > 1 && $10 != "" { print $10 }'
}
in_tcp() { tcp_inodes | grep -qx "$1"; }
# Is socket inode $2 open in process $1?
owns() {
	for fd in /proc/"$1"/fd/*; do
		[ "$(readlink "$fd" 2>/dev/null)" = "socket:[$2]" ] && return 0
	done
	return 1
}
# Sockets in use in the SMC and SMC6 rows of /proc/net/protocols ("" if none).
smc_in_use() {
	awk '$1 == "SMC" || $1 == "SMC6" { s += $3; found = 1 } END { if (found) print s }' \
		/proc/net/protocols
}

# run_probe WANT: WANT is smc (sockets must be AF_SMC) or tcp (must be TCP).
run_probe() {
	want=$1
	before=$(smc_in_use)
	rm -f "$tmp/hold" "$tmp/out" "$tmp/err"
	mkfifo "$tmp/hold" || { not_ok "$want: mkfifo"; return; }
	"$smc_run" -d "$probe" loopback hold <"$tmp/hold" >"$tmp/out" 2>"$tmp/err" &
	bg=$!
	exec 3>"$tmp/hold"	# the probe holds its sockets until this closes
	tries=0
	until grep -q '^ready pid=' "$tmp/out" 2>/dev/null; do
		tries=$((tries + 1))
		if [ $tries -gt 200 ] || ! kill -0 "$bg" 2>/dev/null; then
			break
		fi
		sleep 0.1
	done
	pid=$(sed -n 's/^ready pid=//p' "$tmp/out")
	if [ -z "$pid" ]; then
		exec 3>&-
		kill "$bg" 2>/dev/null
		wait "$bg"
		not_ok "$want: the probe under smc_run did not get ready (exit $?)"
		sed 's/^/#   /' "$tmp/out" "$tmp/err"
		return
	fi
	during=$(smc_in_use)

	domain_ok=1 fd_ok=1 tcp_ok=1 count=0
	while read -r line; do
		[ -n "$line" ] || continue
		count=$((count + 1))
		role=$(echo "$line" | sed -n 's/.*role=\([a-z]*\).*/\1/p')
		domain=$(echo "$line" | sed -n 's/.* domain=\([0-9-]*\).*/\1/p')
		inode=$(echo "$line" | sed -n 's/.* inode=\([0-9]*\).*/\1/p')
		owns "$pid" "$inode" || { fd_ok=0; note "$role: inode $inode is not open in $pid"; }
		if [ "$want" = smc ]; then
			# A connection that SMC could not use falls back to TCP, and
			# Linux's smc then hands the fd over to its internal TCP
			# socket (SO_DOMAIN 2/10); a listener stays AF_SMC.
			if [ "$domain" != 43 ]; then
				if [ "$role" = listen ]; then
					domain_ok=0
					note "listener: SO_DOMAIN $domain, not 43"
				else
					note "$role: SO_DOMAIN $domain (switched over to TCP after an SMC fallback)"
				fi
			fi
			! in_tcp "$inode" || { tcp_ok=0; note "$role: inode $inode is a TCP socket"; }
		else
			[ "$domain" = 2 ] || { domain_ok=0; note "$role: SO_DOMAIN $domain, not 2"; }
			# Only the listener is sure to be listed (the others may be
			# gone from the hash tables in odd states; they are not here).
			if [ "$role" = listen ] && ! in_tcp "$inode"; then
				tcp_ok=0
				note "listener inode $inode is not in /proc/net/tcp"
			fi
		fi
	done <<EOF
$(grep '^sock role=' "$tmp/out")
EOF
	exec 3>&-
	wait "$bg"
	status=$?

	check "$want: the program under smc_run worked (exit $status)" \
		[ "$status:$count" = 0:3 ]
	if [ "$want" = smc ]; then
		check "smc: the listening socket is AF_SMC" [ $domain_ok = 1 ]
		check "smc: the sockets belong to the program (/proc/$pid/fd)" [ $fd_ok = 1 ]
		check "smc: none of the three was created as a TCP socket (/proc/net/tcp*)" [ $tcp_ok = 1 ]
		check "smc: smc_run -d logged the conversion" \
			grep -q 'converted to socket(AF_SMC, SOCK_STREAM, SMCPROTO_SMC)' "$tmp/err"
		# Ours and Debian's both count their sockets there (smcss_many
		# relies on it too): in a test VM with either loaded, a count
		# that did not move is a regression, not a module that cannot.
		if [ -n "$during" ] && [ $((during - ${before:-0})) -ge 3 ]; then
			ok "smc: /proc/net/protocols counted them (SMC+SMC6 sockets $before -> $during)"
		elif [ "${SMC_MODULE:-}" = ours ] || [ "${SMC_MODULE:-}" = intree ]; then
			not_ok "smc: /proc/net/protocols counted them (SMC+SMC6 sockets '$before' -> '$during', SMC_MODULE=$SMC_MODULE)"
		elif [ -z "$during" ]; then
			note "no SMC row in /proc/net/protocols"
		else
			ok "smc: /proc/net/protocols # SKIP the module does not count sockets ($before -> $during)"
		fi
	else
		check "tcp: the sockets are AF_INET" [ $domain_ok = 1 ]
		check "tcp: the sockets belong to the program (/proc/$pid/fd)" [ $fd_ok = 1 ]
		check "tcp: the listener is a TCP socket (/proc/net/tcp)" [ $tcp_ok = 1 ]
		check "tcp: smc_run -d logged the fallback" \
			grep -q 'AF_SMC failed (.*), fallback to the original socket' "$tmp/err"
	fi
	if [ "$status" != 0 ]; then
		sed 's/^/#   /' "$tmp/out" "$tmp/err"
	fi
}

# create_check FAMILY PROTOCOL: an unconnected socket(FAMILY, SOCK_STREAM, 0)
# under smc_run must be socket(AF_SMC, SOCK_STREAM, PROTOCOL).
create_check() {
	out=$("$smc_run" "$probe" create "$1" 1 0 2>&1)
	case $out in
	*" domain=43 type=1 protocol=$2 "*) ok "smc: socket($1, SOCK_STREAM, 0) became AF_SMC protocol $2" ;;
	*"errno=97 "*)
		if [ "$1" = 10 ] && [ ! -e /proc/net/if_inet6 ]; then
			ok "smc: socket(AF_INET6) # SKIP no IPv6 in this kernel"
		else
			not_ok "smc: socket($1, SOCK_STREAM, 0): $out"
		fi
		;;
	*) not_ok "smc: socket($1, SOCK_STREAM, 0) under smc_run: $out" ;;
	esac
}

if has_smc; then
	[ "$expect" != tcp ] || not_ok "AF_SMC is available but --expect-tcp was given"
	create_check 2 0
	create_check 10 1
	run_probe smc
	# Unload our module (not the in-tree one) to see the fallback, then reload.
	name=${SMC_MODULE_NAME:-af_smc}
	if [ -n "${SMC_MODULE_FILE-}" ] && [ -f "$SMC_MODULE_FILE" ] && grep -q "^$name " /proc/modules; then
		tries=0
		until rmmod "$name" 2>/dev/null; do
			tries=$((tries + 1))
			[ $tries -lt 50 ] || break
			sleep 0.2
		done
		if grep -q "^$name " /proc/modules; then
			not_ok "rmmod $name after the SMC run (a socket or reference leaked?)"
		else
			if has_smc; then
				note "AF_SMC still available after rmmod $name (in-tree smc?)"
			else
				run_probe tcp
			fi
			check "insmod $SMC_MODULE_FILE again" insmod "$SMC_MODULE_FILE"
		fi
	elif [ "${SMC_MODULE:-}" = ours ]; then
		not_ok "the fallback check runs: SMC_MODULE=ours, but no loaded $name with \$SMC_MODULE_FILE ('${SMC_MODULE_FILE-}') to remove"
	else
		note "SKIP fallback check: no removable module ${name} with \$SMC_MODULE_FILE set"
	fi
else
	[ "$expect" != smc ] || not_ok "AF_SMC is not available but --expect-smc was given"
	note "SKIP conversion check: AF_SMC is not available"
	run_probe tcp
fi

echo "1..$n"
if [ $failed -gt 0 ]; then
	echo "# $failed of $n failed"
	exit 1
fi
[ $n -gt 0 ] || exit 4
exit 0
