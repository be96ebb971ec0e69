# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# ports.sh: a TCP port's listener and its AF_SMC connections, for the test
# and the bench that run real programs (preload/programs.sh,
# bench/guest-programs.sh).
#
# port_listening PORT: something listens on PORT, a TCP socket (ss) or an
# AF_SMC one (smcss -l).
port_listening() {
	ss -ltn 2>/dev/null | grep -q ":$1 " || smcss -l 2>/dev/null | grep -q ":$1\$"
}

# port_conns PORT: of the smcss -a listing on stdin (columns: State UID
# Inode Local Peer Intf Mode [reasons]), the connections on PORT, one
# "STATE MODE" line each.
port_conns() {
	awk -v p=":$1" '$1 != "State" && ($4 ~ p "$" || $5 ~ p "$") { print $1, $7 }'
}
