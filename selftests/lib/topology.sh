# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# topology.sh: the network set-ups of the selftests (busybox ash). Source it;
# it needs iproute2's ip (and rdma for the rxe helpers) and root.
#
#   topo_check_netns      print why namespaces cannot be used here; 1 if so
#   topo_netns_pair       namespaces smc-ns1 and smc-ns2 joined by a veth pair:
#                           smc-ns1: veth1 10.43.1.1/24 fd43:1::1/64
#                           smc-ns2: veth2 10.43.1.2/24 fd43:1::2/64
#                         IPv6 without DAD; returns once both ends are up
#   topo_netns_rxe        a soft-RoCE device on each veth end: rxe1 on veth1
#                         (in smc-ns1), rxe2 on veth2 (in smc-ns2); returns
#                         once both ports are ACTIVE
#   topo_vm_rxe           for --vms N runs: rxe0 on eth0 of every VM (the
#                         others through smc-vm-exec); returns once all ACTIVE
#   topo_vm_rxe2          for --vms N --test-nets 2 runs (topology N+net2):
#                         topo_vm_rxe, and rxe1 on eth2 (the second test
#                         network, 10.44.0.(i+1)/24) of every VM; returns
#                         once all ACTIVE
#   topo_vm_rxe2_pnet     on VMs 0 and 1 of topology 2+net2: the PNET ID
#                         SMCNET2 on eth0, eth2, rxe0 and rxe1, so that an
#                         SMC-R group between them adds a second link (on
#                         the other wire); "smc_pnet -f" on each undoes it
#   topo_veth_rxe         topology 1 without namespaces: both ends of one veth
#                         pair in the initial namespace, each an endpoint of
#                         its own with its own soft-RoCE device:
#                           smcv1 10.43.2.1/24 fd43:2::1/64, rxev1 on it
#                           smcv2 10.43.2.2/24 fd43:2::2/64, rxev2 on it
#                         plus policy routing, so that whatever this host
#                         sends to one of the two addresses leaves through the
#                         other's veth end and arrives on that one's:
#                           pref 10: to 10.43.2.2 iif lo -> table 4301
#                                    (10.43.2.2 dev smcv1 src 10.43.2.1)
#                           pref 11: to 10.43.2.1 iif lo -> table 4302
#                                    (10.43.2.1 dev smcv2 src 10.43.2.2)
#                           pref 20: the local table (moved from pref 0)
#                         and the same rules for fd43:2::1/fd43:2::2 (ip -6).
#                         A TCP connection to 10.43.2.2 thus goes out smcv1
#                         from 10.43.2.1 with no bind needed, not over lo
#                         (to fd43:2::2 from fd43:2::1 likewise). The IPv6
#                         addresses stay when a veth end goes down
#                         (keep_addr_on_down), as the IPv4 ones do.
#                         Received packets ("iif smcvN") skip the rules and
#                         are delivered locally; their source passes the
#                         martian check, as its reverse route leads out the
#                         veth end they came in on (without the rules, ARP
#                         between the ends fails on that). RoCE between rxev1
#                         and rxev2 (rxe routes in init_net with oif = its
#                         netdev) so crosses the veth. Returns
#                         once both ports are ACTIVE and both routes go
#                         through the veth. Why not namespaces or VRFs:
#                         Documentation/smc-r.md, "soft-RoCE in one VM".
#   topo_veth_rxe2        topo_veth_rxe, and a second veth pair set up the
#                         same way, so that the two endpoints have two
#                         independent RoCE paths:
#                           smcw1 10.43.3.1/24 fd43:3::1/64, rxew1 on it
#                           smcw2 10.43.3.2/24 fd43:3::2/64, rxew2 on it
#                           pref 12: to 10.43.3.2 iif lo -> table 4303
#                                    (10.43.3.2 dev smcw1 src 10.43.3.1)
#                           pref 13: to 10.43.3.1 iif lo -> table 4304
#                                    (10.43.3.1 dev smcw2 src 10.43.3.2)
#                         and the same for fd43:3::1/fd43:3::2; returns once
#                         all four ports are ACTIVE and every route goes
#                         through its own veth
#   topo_veth_rules on|off  add or remove the rules of topo_veth_rxe, and of
#                         topo_veth_rxe2's second pair when it exists (off:
#                         the addresses reach each other over "local", lo);
#                         "on" also puts back the routes of 4301..4304, which
#                         go when their device goes down
#   topo_veth_asym        three ports on one Ethernet (the bridge smcbr),
#                         all in the initial namespace: smca1 10.43.5.1/24
#                         (rxea1), smcb1 10.43.5.2/24 (rxeb1), smcb2
#                         10.43.5.3/24 (rxeb2), with rules as above:
#                           pref 14: from .3 to .1 iif lo -> table 4307
#                                    (.1 dev smcb2 src .3)
#                           pref 15: to .1 iif lo -> table 4306
#                                    (.1 dev smcb1 src .2)
#                           pref 16, 17: to .2, .3 iif lo -> table 4305
#                                    (.2, .3 dev smca1 src .1)
#                         so smca1 is one end's one port, smcb1 and smcb2
#                         the other's two; each answers ARP for its own
#                         address only; returns once all three are ACTIVE
#   topo_veth_asym_rules  its routes and rules again (a port that went down
#                         lost its routes)
#   topo_veth_asym_pnet [ID_B2]
#                         PNET IDs on its ports, one per end: SMCNETA on
#                         smca1/rxea1, SMCNETB on smcb1/rxeb1 and smcb2/
#                         rxeb2, or ID_B2 on smcb2/rxeb2 (each end one port)
#   topo_echo_server NAME ADDR PORT
#                         (needs tap.sh) smc-echo's server on ADDR:PORT, one
#                         connection at a time, its pid in $TMPDIR/NAME.pid
#                         (topo_stop_all stops it), its output in
#                         $TMPDIR/NAME.log; returns once it listens
#   topo_hold NAME ADDR PORT
#                         (needs tap.sh) a connection to ADDR:PORT held open
#                         (smc-fbprobe, its pid in $TMPDIR/NAME.pid, its
#                         output in NAME.out) with a server of its own
#                         (sNAME); tap_fail unless it is SMC-R
#   topo_stop_all         (needs tap.sh) stops every process of a
#                         $TMPDIR/*.pid file and waits (5 s each) for it
#   topo_cleanup          remove everything the above create (idempotent)
#   topo_smcr_run [--setup FN] CMD [ARG...]
#                         a TAP program between the ends of topology 1 over
#                         SMC-R: af_smc reloaded with smcr=1 loopback_ism=0
#                         (needs module.sh), topo_veth_rxe, then the shell
#                         function FN if given (its output is the reason it
#                         failed); each failure a "Bail out!". Afterwards the
#                         topology is gone and af_smc loaded as the harness
#                         had it. CMD's status, or 1.
#   topo_smcr_setup [OPTION...]
#                         the same set-up for a TAP script's case (needs
#                         tap.sh and module.sh): af_smc reloaded with smcr=1
#                         loopback_ism=0 OPTION..., debugfs mounted,
#                         topo_veth_rxe; a step that fails ends the case
#   topo_smcr_setup2 [OPTION...]
#                         the same with topo_veth_rxe2 (two veth pairs)
#   topo_smcr_cleanup     its undoing, for tap_at_exit: the topology gone,
#                         af_smc loaded as the harness had it
#   topo_rxe_pkts DEV     sent_pkts + rcvd_pkts of rxe device DEV, port 1
#   topo_rxe_pkts_on VM DEV  the same on VM (topo_on)
#   topo_pair_pkts v|w    the same summed over rxeX1 and rxeX2, the two ends
#                         of one of topo_veth_rxe2's pairs
#   topo_field NAME LINE  the word after the word NAME in LINE (a debugfs
#                         line of "name value" pairs)
#   topo_echo_server_2vm NAME ADDR PORT
#                         smc-echo's server on VM 1 at ADDR:PORT (one
#                         connection after the other), its pid in VM 1's
#                         /tmp/NAME.pid, its output in /tmp/NAME.log; returns
#                         once it listens; topo_stop_2vm /tmp/NAME.pid stops it
#   topo_smcr_net2_setup  (needs tap.sh) for a TAP case in topology 2+net2:
#                         topo_vm_rxe2, af_smc reloaded on both VMs with
#                         smcr=1 loopback_ism=0 lgr_linger=0, then
#                         topo_vm_rxe2_pnet; tap_fail on what failed
#   topo_smcr_net2_cleanup  its undoing, for tap_at_exit (with
#                         topo_require_ours_2vm's $module)
#   topo_hold_2vm NAME ADDR PORT
#                         (needs tap.sh) in topology 2+net2: a server on VM 1
#                         (topo_echo_server_2vm NAME ADDR PORT) and a
#                         connection to it held open by smc-fbprobe (its pid
#                         in $TMPDIR/probe.pid, its output in $TMPDIR/probe),
#                         which must be SMC-R; returns once both VMs' groups
#                         have two ready links (topo_rxe2_ready_on, their
#                         lines printed); tap_fail and 1 otherwise
#   topo_unhold_2vm NAME...  its end: the held connection closed, VM 1's
#                         servers /tmp/NAME.pid stopped, topo_smcr_gone_2vm
#   topo_rxe2_ready_on VM  VM's debugfs smcr_lgr lists one ready link on
#                         rxe0 and one on rxe1 (topo_vm_rxe2_pnet's group),
#                         its copy left in $TMPDIR/lgrVM
#   topo_pause_ms SECONDS N CMD...
#                         (needs tap.sh) the milliseconds until the number
#                         CMD prints has grown by N from what it printed at
#                         the start (a packet counter: data flows again);
#                         1 and nothing printed if not within SECONDS
#   topo_smcr_gone_2vm    (needs tap.sh) within 30 s neither VM lists an
#                         SMC-R link group, and neither freed a buffer that a
#                         posted WR named or left one deferred; tap_fail
#                         otherwise
#   topo_lgr_links_ready N  debugfs smcr_lgr (mounted) lists exactly N
#                         links with ready 1, over all groups
#   topo_lgr_link_pair ROLE SLOT
#                         the pair (v or w) of link SLOT of the first group
#                         of ROLE (client, server) in debugfs smcr_lgr;
#                         nothing when there is no such link
#   topo_links_added ROLE N LINE
#                         (needs tap.sh) ROLE's group, whose debugfs lgr
#                         line is LINE, added N links: the server exactly
#                         N, the client N or more (see the function);
#                         tap_fail otherwise
#   topo_echo_stop END PIDFILE LOG WHAT [MIN]
#                         (needs tap.sh) ends the stream of an smc-echo
#                         client started with -e END -m MIN (touches END),
#                         reaps it (tap_reap, 600 s: not in a subshell,
#                         which cannot wait for it) and sets topo_echo_bytes
#                         to the bytes it verified (or sent one way, for a
#                         server with -v to verify); tap_fail if it failed
#                         or carried less than MIN bytes (default 64 MiB)
#
# Run something in a namespace with "ip netns exec smc-ns1 COMMAND". All
# functions print what went wrong on stderr and return 1 on failure; they
# wait on conditions (link state, port state), not for fixed times.

TOPO_NS1=smc-ns1
TOPO_NS2=smc-ns2
TOPO_IP4_1=10.43.1.1
TOPO_IP4_2=10.43.1.2
TOPO_IP6_1=fd43:1::1
TOPO_IP6_2=fd43:1::2
# How long a link or port may take to come up (TCG is slow).
TOPO_WAIT=${TOPO_WAIT:-30}

_topo_err() {
	echo "topology: $*" >&2
	return 1
}

# _topo_wait SECONDS COMMAND...: poll COMMAND until it succeeds.
_topo_wait() {
	_topo_tries=$(($1 * 20))
	shift
	until "$@" >/dev/null 2>&1; do
		_topo_tries=$((_topo_tries - 1))
		[ $_topo_tries -gt 0 ] || return 1
		sleep 0.05
	done
}

# topo_require_ours_2vm WHY: the preconditions of a test between two VMs
# that both run af_smc (WHY: what of af_smc's own it needs, the reason the
# whole test skips elsewhere); sets module to the module file.
topo_require_ours_2vm() {
	[ "$(id -u)" = 0 ] || tap_skip_all "needs root"
	[ "${SMC_VM_COUNT:-1}" -ge 2 ] || tap_skip_all "needs --vms 2"
	[ "${SMC_MODULE:-ours}" = ours ] && [ "${SMC_PEER_MODULE:-ours}" = ours ] ||
		tap_skip_all "$1"
	module=${SMC_MODULE_FILE:-}
	[ -f "$module" ] || tap_skip_all "no module file (SMC_MODULE_FILE)"
}

# topo_on VM CMD: CMD in the shell of VM (0 is this one, the others
# through smc-vm-exec); its status. With TOPO_ONE_VM=1 every VM is this
# one: the one-VM form of a two-VM test (data_2vm.sh topo1).
topo_on() {
	if [ "$1" = 0 ] || [ "${TOPO_ONE_VM:-}" = 1 ]; then sh -c "$2"; else smc-vm-exec "$1" "$2"; fi
}

# topo_ivshmem_irqs VM VECTOR: the interrupts VM's ivshmem device counted on
# VECTOR (0 the signal vector), from af_smc's debugfs; nothing without one.
topo_ivshmem_irqs() {
	topo_on "$1" "sed -n 's/.* irqs \([0-9]*\) \([0-9]*\)\$/\1 \2/p' /sys/kernel/debug/af_smc/ivshmem | head -n 1" |
		cut -d' ' -f$(($2 + 1))
}

# topo_ivshmem_up SECONDS: within SECONDS, both VMs see both partitions of
# the ivshmem region up (af_smc's debugfs). An entry before may have left
# one taken over, which its VM gets back once the claim stood still for
# 15 s. 1 otherwise, naming the VM on stderr.
topo_ivshmem_up() {
	_topo_end=$(($(date +%s) + $1))
	for _topo_vm in 0 1; do
		until [ "$(topo_on $_topo_vm "grep -c '^  part [0-9]* up ' /sys/kernel/debug/af_smc/ivshmem 2>/dev/null")" = 2 ]; do
			[ "$(date +%s)" -lt $_topo_end ] ||
				{ echo "VM $_topo_vm does not see both ivshmem partitions up" >&2; return 1; }
			sleep 0.5
		done
	done
}

# topo_reload_2vm [ARG...]: af_smc ($module) loaded again with the
# harness's arguments (SMC_MODULE_ARGS) and ARGs on VM 0, then on VM 1; 1 as
# soon as one fails.
topo_reload_2vm() {
	_topo_c="rmmod af_smc 2>/dev/null; insmod $module ${SMC_MODULE_ARGS:-} $*"
	topo_on 0 "$_topo_c" && topo_on 1 "$_topo_c"
}

# topo_stop_2vm PIDFILE: the process whose pid VM 1's PIDFILE holds killed
# and waited for (5 s at most), so that its AF_SMC sockets are gone before
# an rmmod; 0, also when there was none.
topo_stop_2vm() {
	topo_on 1 "kill \$(cat $1 2>/dev/null) 2>/dev/null; n=0; while kill -0 \$(cat $1 2>/dev/null) 2>/dev/null && [ \$n -lt 100 ]; do n=\$((n+1)); sleep 0.05; done; true"
}

# topo_reload_ours_2vm: af_smc ($module, from topo_require_ours_2vm) loaded
# again on both VMs as the harness loaded it (SMC_MODULE_ARGS); for a
# test's cleanup, so a failure is a diagnostic.
topo_reload_ours_2vm() {
	for _vm in 0 1; do
		topo_on $_vm "rmmod af_smc 2>/dev/null; insmod $module ${SMC_MODULE_ARGS:-}" ||
			tap_diag "could not reload af_smc on VM $_vm"
	done
}

topo_check_netns() {
	command -v ip >/dev/null 2>&1 || { echo "no ip command (iproute2)"; return 1; }
	[ "$(id -u)" = 0 ] || { echo "network namespaces need root"; return 1; }
	[ -e /proc/self/ns/net ] || { echo "the kernel has no network namespaces"; return 1; }
	return 0
}

_topo_link_up() {
	# $1: namespace or "" for the current one; $2: link
	if [ -n "$1" ]; then
		ip -n "$1" link show "$2" | grep -q 'state UP'
	else
		ip link show "$2" | grep -q 'state UP'
	fi
}

topo_netns_pair() {
	topo_cleanup
	ip netns add $TOPO_NS1 || _topo_err "cannot create namespace $TOPO_NS1" || return 1
	ip netns add $TOPO_NS2 || _topo_err "cannot create namespace $TOPO_NS2" || return 1
	# Created in place in both namespaces: no name clash with the host's links.
	ip link add veth1 netns $TOPO_NS1 type veth peer name veth2 netns $TOPO_NS2 ||
		_topo_err "cannot create the veth pair (is the veth module loaded?)" || return 1
	for _topo_i in 1 2; do
		_topo_ns=smc-ns$_topo_i
		if [ $_topo_i = 1 ]; then
			_topo_ip4=$TOPO_IP4_1 _topo_ip6=$TOPO_IP6_1
		else
			_topo_ip4=$TOPO_IP4_2 _topo_ip6=$TOPO_IP6_2
		fi
		ip -n "$_topo_ns" link set lo up &&
			ip -n "$_topo_ns" addr add "$_topo_ip4/24" dev "veth$_topo_i" &&
			ip -n "$_topo_ns" -6 addr add "$_topo_ip6/64" dev "veth$_topo_i" nodad &&
			ip -n "$_topo_ns" link set "veth$_topo_i" up ||
			_topo_err "cannot configure veth$_topo_i in $_topo_ns" || return 1
	done
	# The carrier of a veth end is up only once both ends are.
	_topo_wait "$TOPO_WAIT" _topo_link_up $TOPO_NS1 veth1 &&
		_topo_wait "$TOPO_WAIT" _topo_link_up $TOPO_NS2 veth2 ||
		_topo_err "the veth pair did not come up within $TOPO_WAIT s" || return 1
}

_topo_port_active() {
	# $1: namespace or "" for the current one; $2: rdma device
	if [ -n "$1" ]; then
		ip netns exec "$1" rdma link show "$2/1" | grep -q 'state ACTIVE'
	else
		rdma link show "$2/1" | grep -q 'state ACTIVE'
	fi
}

topo_netns_rxe() {
	command -v rdma >/dev/null 2>&1 || _topo_err "no rdma command (iproute2)" || return 1
	for _topo_i in 1 2; do
		_topo_ns=smc-ns$_topo_i
		ip netns exec "$_topo_ns" rdma link add "rxe$_topo_i" type rxe netdev "veth$_topo_i" ||
			_topo_err "cannot add rxe$_topo_i on veth$_topo_i in $_topo_ns (rdma_rxe loaded?)" ||
			return 1
	done
	for _topo_i in 1 2; do
		_topo_wait "$TOPO_WAIT" _topo_port_active "smc-ns$_topo_i" "rxe$_topo_i" ||
			_topo_err "rxe$_topo_i did not become ACTIVE within $TOPO_WAIT s" || return 1
	done
}

# _topo_vm_rxe_script DEV NETDEV: the shell command a peer VM runs: add DEV
# on NETDEV and wait until it is ACTIVE.
_topo_vm_rxe_script() {
	echo "rdma link add $1 type rxe netdev $2 || exit 1
n=$((TOPO_WAIT * 20))
until rdma link show $1/1 | grep -q 'state ACTIVE'; do
	n=\$((n - 1)); [ \$n -gt 0 ] || { echo '$1 not ACTIVE'; exit 1; }
	sleep 0.05
done"
}

# _topo_vm_rxe_on DEV NETDEV: DEV on NETDEV of every VM, all ACTIVE.
_topo_vm_rxe_on() {
	rdma link add "$1" type rxe netdev "$2" ||
		_topo_err "cannot add $1 on $2 (rdma_rxe loaded?)" || return 1
	_topo_i=1
	while [ $_topo_i -lt "$SMC_VM_COUNT" ]; do
		smc-vm-exec "$_topo_i" "$(_topo_vm_rxe_script "$1" "$2")" >&2 ||
			_topo_err "cannot set up $1 on VM $_topo_i" || return 1
		_topo_i=$((_topo_i + 1))
	done
	_topo_wait "$TOPO_WAIT" _topo_port_active "" "$1" ||
		_topo_err "$1 did not become ACTIVE within $TOPO_WAIT s" || return 1
}

topo_vm_rxe() {
	[ "${SMC_VM_COUNT:-1}" -ge 2 ] || _topo_err "topo_vm_rxe needs --vms 2 or more" || return 1
	command -v rdma >/dev/null 2>&1 || _topo_err "no rdma command (iproute2)" || return 1
	_topo_vm_rxe_on rxe0 eth0
}

topo_vm_rxe2() {
	[ "${SMC_VM_COUNT:-1}" -ge 2 ] && [ "${SMC_TEST_NETS:-1}" = 2 ] ||
		_topo_err "topo_vm_rxe2 needs --vms 2 --test-nets 2 (topology 2+net2)" || return 1
	[ -e /sys/class/net/eth2 ] || _topo_err "no eth2 (the second test network)" || return 1
	topo_vm_rxe && _topo_vm_rxe_on rxe1 eth2
}

topo_vm_rxe2_pnet() {
	for _topo_vm in 0 1; do
		topo_on $_topo_vm "/smc/bin/smc_pnet -a SMCNET2 -I eth0 && /smc/bin/smc_pnet -a SMCNET2 -I eth2 &&
			/smc/bin/smc_pnet -a SMCNET2 -D rxe0 -P 1 && /smc/bin/smc_pnet -a SMCNET2 -D rxe1 -P 1" ||
			_topo_err "VM $_topo_vm: PNET ID SMCNET2 on eth0, eth2, rxe0 and rxe1" || return 1
	done
}

TOPO_VETH_IP4_1=10.43.2.1
TOPO_VETH_IP4_2=10.43.2.2
TOPO_VETH_IP6_1=fd43:2::1
TOPO_VETH_IP6_2=fd43:2::2
# The second pair of topo_veth_rxe2.
TOPO_VETH2_IP4_1=10.43.3.1
TOPO_VETH2_IP4_2=10.43.3.2
TOPO_VETH2_IP6_1=fd43:3::1
TOPO_VETH2_IP6_2=fd43:3::2
TOPO_ASYM_IP4_1=10.43.5.1
TOPO_ASYM_IP4_2=10.43.5.2
TOPO_ASYM_IP4_3=10.43.5.3
# Rule preferences and tables of topo_veth_rxe; the local table's rule moves
# from 0 to _topo_local_pref so that the two rules come before it.
_topo_local_pref=20

# _topo_route_dev DST: the device the initial namespace routes DST through.
_topo_route_dev() {
	ip route get "$1" | sed -n 's/.* dev \([^ ]*\).*/\1/p' | head -n 1
}

_topo_veth_routed() {
	[ "$(_topo_route_dev $TOPO_VETH_IP4_2)" = smcv1 ] &&
		[ "$(_topo_route_dev $TOPO_VETH_IP4_1)" = smcv2 ] &&
		[ "$(_topo_route_dev $TOPO_VETH_IP6_2)" = smcv1 ] &&
		[ "$(_topo_route_dev $TOPO_VETH_IP6_1)" = smcv2 ]
}

_topo_veth2_routed() {
	[ "$(_topo_route_dev $TOPO_VETH2_IP4_2)" = smcw1 ] &&
		[ "$(_topo_route_dev $TOPO_VETH2_IP4_1)" = smcw2 ] &&
		[ "$(_topo_route_dev $TOPO_VETH2_IP6_2)" = smcw1 ] &&
		[ "$(_topo_route_dev $TOPO_VETH2_IP6_1)" = smcw2 ]
}

# _topo_veth_rules_on -4|-6 ADDR1 ADDR2 [w]: one family's routes and rules,
# of the pair smcv1/smcv2 (pref 10/11, tables 4301/4302) or, with w, of
# smcw1/smcw2 (pref 12/13, tables 4303/4304).
_topo_veth_rules_on() {
	_topo_d=smc${4:-v}
	if [ "$_topo_d" = smcw ]; then
		_topo_p=12 _topo_t=4303
	else
		_topo_p=10 _topo_t=4301
	fi
	# A device going down flushes its routes: put them (back) first.
	ip "$1" route replace "$3" dev "${_topo_d}1" src "$2" table $_topo_t &&
		ip "$1" route replace "$2" dev "${_topo_d}2" src "$3" table $((_topo_t + 1)) ||
		_topo_err "cannot add the $1 routes of tables $_topo_t/$((_topo_t + 1)) (${_topo_d}1/${_topo_d}2 up?)" ||
		return 1
	if ! ip "$1" rule show pref $_topo_local_pref | grep -q 'lookup local'; then
		ip "$1" rule add pref $_topo_local_pref lookup local ||
			_topo_err "cannot add the $1 local rule at pref $_topo_local_pref" || return 1
	fi
	ip "$1" rule del pref 0 lookup local 2>/dev/null
	ip "$1" rule show pref $_topo_p | grep -q . ||
		ip "$1" rule add pref $_topo_p to "$3" iif lo lookup $_topo_t ||
		_topo_err "cannot add the rule to $3" || return 1
	ip "$1" rule show pref $((_topo_p + 1)) | grep -q . ||
		ip "$1" rule add pref $((_topo_p + 1)) to "$2" iif lo lookup $((_topo_t + 1)) ||
		_topo_err "cannot add the rule to $2" || return 1
}

# _topo_veth_rules_off -4|-6: the rules of both pairs.
_topo_veth_rules_off() {
	for _topo_p in 10 11 12 13 14 15 16 17; do
		ip "$1" rule del pref $_topo_p 2>/dev/null
	done
	# The local table back at pref 0 before it leaves pref 20: there
	# is no moment without it.
	if ! ip "$1" rule show pref 0 | grep -q 'lookup local'; then
		ip "$1" rule add pref 0 lookup local ||
			_topo_err "cannot put the $1 local rule back at pref 0" || return 1
	fi
	ip "$1" rule del pref $_topo_local_pref lookup local 2>/dev/null
	return 0
}

topo_veth_rules() {
	case "$1" in
	on)
		_topo_veth_rules_on -4 $TOPO_VETH_IP4_1 $TOPO_VETH_IP4_2 &&
			_topo_veth_rules_on -6 $TOPO_VETH_IP6_1 $TOPO_VETH_IP6_2 || return 1
		if ip link show smcw1 >/dev/null 2>&1; then
			_topo_veth_rules_on -4 $TOPO_VETH2_IP4_1 $TOPO_VETH2_IP4_2 w &&
				_topo_veth_rules_on -6 $TOPO_VETH2_IP6_1 $TOPO_VETH2_IP6_2 w ||
				return 1
		fi
		;;
	off)
		_topo_veth_rules_off -4 && _topo_veth_rules_off -6 || return 1
		;;
	*) _topo_err "topo_veth_rules on|off" || return 1 ;;
	esac
	return 0
}

# _topo_veth_pair v|w IP4_1 IP4_2 IP6_1 IP6_2: the veth pair smcX1/smcX2
# (X: v or w) in the initial namespace, IP4_N/24 and IP6_N/64 on smcXN,
# both ends up.
_topo_veth_pair() {
	_topo_d=smc$1
	ip link add ${_topo_d}1 type veth peer name ${_topo_d}2 ||
		_topo_err "cannot create the veth pair ${_topo_d}1/${_topo_d}2 (is the veth module loaded?)" || return 1
	# keep_addr_on_down before the IPv6 addresses: a test takes a veth
	# end down and up again and wants the same connections possible.
	echo 1 >/proc/sys/net/ipv6/conf/${_topo_d}1/keep_addr_on_down &&
		echo 1 >/proc/sys/net/ipv6/conf/${_topo_d}2/keep_addr_on_down &&
		ip addr add "$2/24" dev ${_topo_d}1 &&
		ip addr add "$3/24" dev ${_topo_d}2 &&
		ip -6 addr add "$4/64" dev ${_topo_d}1 nodad &&
		ip -6 addr add "$5/64" dev ${_topo_d}2 nodad ||
		_topo_err "cannot address ${_topo_d}1/${_topo_d}2" || return 1
	# Routes of the tables exist only while their device is up.
	ip link set ${_topo_d}1 up && ip link set ${_topo_d}2 up ||
		_topo_err "cannot bring ${_topo_d}1/${_topo_d}2 up" || return 1
	_topo_wait "$TOPO_WAIT" _topo_link_up "" ${_topo_d}1 &&
		_topo_wait "$TOPO_WAIT" _topo_link_up "" ${_topo_d}2 ||
		_topo_err "the veth pair ${_topo_d}1/${_topo_d}2 did not come up within $TOPO_WAIT s" || return 1
}

# _topo_veth_rxe_on v|w: rxeX1 on smcX1 and rxeX2 on smcX2, both ACTIVE.
_topo_veth_rxe_on() {
	for _topo_i in 1 2; do
		rdma link add "rxe$1$_topo_i" type rxe netdev "smc$1$_topo_i" ||
			_topo_err "cannot add rxe$1$_topo_i on smc$1$_topo_i (rdma_rxe loaded?)" || return 1
	done
	for _topo_i in 1 2; do
		_topo_wait "$TOPO_WAIT" _topo_port_active "" "rxe$1$_topo_i" ||
			_topo_err "rxe$1$_topo_i did not become ACTIVE within $TOPO_WAIT s" || return 1
	done
}

topo_veth_rxe() {
	command -v rdma >/dev/null 2>&1 || _topo_err "no rdma command (iproute2)" || return 1
	topo_cleanup
	_topo_veth_pair v $TOPO_VETH_IP4_1 $TOPO_VETH_IP4_2 $TOPO_VETH_IP6_1 $TOPO_VETH_IP6_2 ||
		return 1
	topo_veth_rules on || return 1
	_topo_veth_routed ||
		_topo_err "$TOPO_VETH_IP4_2 is routed via $(_topo_route_dev $TOPO_VETH_IP4_2), $TOPO_VETH_IP4_1 via $(_topo_route_dev $TOPO_VETH_IP4_1), $TOPO_VETH_IP6_2 via $(_topo_route_dev $TOPO_VETH_IP6_2), $TOPO_VETH_IP6_1 via $(_topo_route_dev $TOPO_VETH_IP6_1): not all over the veth" ||
		return 1
	_topo_veth_rxe_on v
}

topo_veth_rxe2() {
	topo_veth_rxe || return 1
	_topo_veth_pair w $TOPO_VETH2_IP4_1 $TOPO_VETH2_IP4_2 $TOPO_VETH2_IP6_1 $TOPO_VETH2_IP6_2 ||
		return 1
	# "on" again: the first pair's rules stay, the second pair's join.
	topo_veth_rules on || return 1
	_topo_veth_routed && _topo_veth2_routed ||
		_topo_err "$TOPO_VETH2_IP4_2 is routed via $(_topo_route_dev $TOPO_VETH2_IP4_2), $TOPO_VETH2_IP4_1 via $(_topo_route_dev $TOPO_VETH2_IP4_1), $TOPO_VETH2_IP6_2 via $(_topo_route_dev $TOPO_VETH2_IP6_2), $TOPO_VETH2_IP6_1 via $(_topo_route_dev $TOPO_VETH2_IP6_1), $TOPO_VETH_IP4_2 via $(_topo_route_dev $TOPO_VETH_IP4_2): not all over their own veth" ||
		return 1
	_topo_veth_rxe_on w
}

topo_cleanup() {
	if command -v rdma >/dev/null 2>&1; then
		# rxe devices first: they hold references to the links under them.
		for _topo_i in 1 2; do
			ip netns exec "smc-ns$_topo_i" rdma link delete "rxe$_topo_i" 2>/dev/null
		done
		for _topo_d in rxea1 rxeb1 rxeb2; do
			rdma link delete $_topo_d 2>/dev/null
		done
		rdma link delete rxe0 2>/dev/null
		rdma link delete rxev1 2>/dev/null
		rdma link delete rxev2 2>/dev/null
		rdma link delete rxew1 2>/dev/null
		rdma link delete rxew2 2>/dev/null
		_topo_i=1
		while [ $_topo_i -lt "${SMC_VM_COUNT:-1}" ]; do
			smc-vm-exec "$_topo_i" 'rdma link delete rxe0 2>/dev/null; true' >/dev/null 2>&1
			_topo_i=$((_topo_i + 1))
		done
		# topo_vm_rxe2's rxe1 on eth2 (only VMs with eth2 have one).
		if [ "${SMC_TEST_NETS:-1}" = 2 ]; then
			rdma link delete rxe1 2>/dev/null
			_topo_i=1
			while [ $_topo_i -lt "${SMC_VM_COUNT:-1}" ]; do
				smc-vm-exec "$_topo_i" 'rdma link delete rxe1 2>/dev/null; true' >/dev/null 2>&1
				_topo_i=$((_topo_i + 1))
			done
		fi
	fi
	# Deleting a namespace deletes its veth end, and with it the peer.
	ip netns del $TOPO_NS1 2>/dev/null
	ip netns del $TOPO_NS2 2>/dev/null
	if ip link show smcv1 >/dev/null 2>&1; then
		ip link del smcv1	# and smcv2, and the routes of 4301/4302
	fi
	if ip link show smcw1 >/dev/null 2>&1; then
		ip link del smcw1	# and smcw2, and the routes of 4303/4304
	fi
	# topo_veth_asym's ports (and their peers, the bridge's), the bridge.
	for _topo_d in smca1 smcb1 smcb2 smcbr; do
		ip link del $_topo_d 2>/dev/null
	done
	topo_veth_rules off >/dev/null 2>&1
	return 0
}

# _topo_smcr_setup FN DESC [OPTION...]: topo_smcr_setup with topology
# function FN (DESC says what it makes).
_topo_smcr_setup() {
	_topo_fn=$1 _topo_desc=$2
	shift 2
	tap_assert "af_smc smcr=1 loopback_ism=0${*:+ $*}" smc_module_reload smcr=1 loopback_ism=0 "$@"
	grep -q ' /sys/kernel/debug debugfs' /proc/mounts ||
		tap_assert "debugfs" mount -t debugfs none /sys/kernel/debug
	tap_assert "$_topo_desc" $_topo_fn
}

topo_smcr_setup() {
	_topo_smcr_setup topo_veth_rxe "topology 1: smcv1/rxev1, smcv2/rxev2" "$@"
}

topo_smcr_setup2() {
	_topo_smcr_setup topo_veth_rxe2 \
		"topology 1 with two veth pairs, rxev1/rxev2 and rxew1/rxew2" "$@"
}

# _topo_modules LIST WHAT: the modules of the image's list /smc-run/LIST
# (vm/initramfs) loaded, or already there; WHAT names them when the list is
# empty (a kernel built without them).
_topo_modules() {
	[ -s "/smc-run/$1" ] || { _topo_err "no $2 in this image"; return 1; }
	while read -r _topo_ko; do
		insmod "$_topo_ko" 2>/dev/null ||
			grep -q "^$(basename "$_topo_ko" .ko | tr - _) " /proc/modules ||
			_topo_err "cannot load $_topo_ko" || return 1
	done <"/smc-run/$1"
}

# topo_netem_load: sch_netem from the image's sched modules (vm/initramfs),
# for tc's netem; unload it with rmmod sch_netem when done.
topo_netem_load() {
	_topo_modules modules.sched sch_netem
}

topo_echo_server() {
	rm -f "$TMPDIR/$1.ready"
	"$SMC_SELFTESTS/tools/smc-echo" -s -k 0 -f smc -a "$2" -p "$3" -r "$TMPDIR/$1.ready" -t 600 \
		>"$TMPDIR/$1.log" 2>&1 </dev/null &
	echo $! >"$TMPDIR/$1.pid"
	tap_wait_for 30 test -e "$TMPDIR/$1.ready" || tap_fail "no echo server on $2 port $3"
}

topo_hold() {
	topo_echo_server "s$1" "$2" "$3" || return 1
	: >"$TMPDIR/$1.out"
	"$SMC_SELFTESTS/tools/smc-fbprobe" "$2" "$3" "$(tap_scaled 300)" >"$TMPDIR/$1.out" 2>&1 &
	echo $! >"$TMPDIR/$1.pid"
	tap_wait_for 30 grep -q mode "$TMPDIR/$1.out" ||
		{ tap_fail "no held connection $1: $(cat "$TMPDIR/$1.out")"; return 1; }
	# SMC_DIAG_MODE_SMCR is 0.
	grep -q "^mode 0 " "$TMPDIR/$1.out" ||
		tap_fail "held connection $1 is not SMC-R: $(cat "$TMPDIR/$1.out")"
	return 0
}

topo_stop_all() {
	for _topo_f in "$TMPDIR"/*.pid; do
		[ -e "$_topo_f" ] || continue
		kill "$(cat "$_topo_f")" 2>/dev/null
		tap_wait_for 5 sh -c "! kill -0 \$(cat '$_topo_f') 2>/dev/null"
		rm -f "$_topo_f"
	done
	return 0
}

# _topo_asym_port DEV IP: the veth DEV with IP/24, its peer brDEV a port of
# smcbr, answering ARP only for its own address and with it (a request
# for any of the three addresses reaches all three ports).
_topo_asym_port() {
	ip link add "$1" type veth peer name "br$1" &&
		echo 1 >/proc/sys/net/ipv4/conf/$1/arp_ignore &&
		echo 2 >/proc/sys/net/ipv4/conf/$1/arp_announce &&
		ip link set "br$1" master smcbr && ip link set "br$1" up &&
		ip addr add "$2/24" dev "$1" && ip link set "$1" up ||
		_topo_err "cannot set up $1" || return 1
	_topo_wait "$TOPO_WAIT" _topo_link_up "" "$1" ||
		_topo_err "$1 did not come up within $TOPO_WAIT s" || return 1
}

# topo_veth_asym_rules: topo_veth_asym's routes (again: a port going down
# flushes its own) and rules, as topo_veth_rules's for its pairs: what is
# sent here to another port's address leaves by the port it comes from.
topo_veth_asym_rules() {
	ip route replace $TOPO_ASYM_IP4_2 dev smca1 src $TOPO_ASYM_IP4_1 table 4305 &&
		ip route replace $TOPO_ASYM_IP4_3 dev smca1 src $TOPO_ASYM_IP4_1 table 4305 &&
		ip route replace $TOPO_ASYM_IP4_1 dev smcb1 src $TOPO_ASYM_IP4_2 table 4306 &&
		ip route replace $TOPO_ASYM_IP4_1 dev smcb2 src $TOPO_ASYM_IP4_3 table 4307 ||
		_topo_err "cannot add the routes of tables 4305..4307 (smca1, smcb1, smcb2 up?)" ||
		return 1
	if ! ip rule show pref $_topo_local_pref | grep -q 'lookup local'; then
		ip rule add pref $_topo_local_pref lookup local ||
			_topo_err "cannot add the local rule at pref $_topo_local_pref" || return 1
	fi
	ip rule del pref 0 lookup local 2>/dev/null
	for _topo_x in "14 from $TOPO_ASYM_IP4_3 to $TOPO_ASYM_IP4_1 iif lo lookup 4307" \
		"15 to $TOPO_ASYM_IP4_1 iif lo lookup 4306" \
		"16 to $TOPO_ASYM_IP4_2 iif lo lookup 4305" \
		"17 to $TOPO_ASYM_IP4_3 iif lo lookup 4305"; do
		ip rule show pref ${_topo_x%% *} | grep -q . ||
			ip rule add pref $_topo_x || _topo_err "cannot add the rule $_topo_x" || return 1
	done
}

# topo_veth_asym: three ports on one Ethernet, for link groups whose one
# end has one port and the other two (issue 20's asymmetric groups): the
# veths smca1 (TOPO_ASYM_IP4_1, rxea1), smcb1 (TOPO_ASYM_IP4_2, rxeb1) and
# smcb2 (TOPO_ASYM_IP4_3, rxeb2), their peers ports of the bridge smcbr
# (the bridge module from the image's list, vm/initramfs), all in the
# initial namespace (rxe takes RoCE packets there only, Linux 6.1), with
# rules as topology 1's (topo_veth_asym_rules). Returns once all three
# ports are ACTIVE.
topo_veth_asym() {
	topo_cleanup
	command -v rdma >/dev/null 2>&1 || _topo_err "no rdma command (iproute2)" || return 1
	_topo_modules modules.bridge "the bridge module" || return 1
	# The bridge's own interface has no address but gets every broadcast:
	# it must not answer ARP for the ports' addresses (with its own MAC,
	# which would take a port's RoCE packets to an interface without rxe).
	ip link add smcbr type bridge && echo 8 >/proc/sys/net/ipv4/conf/smcbr/arp_ignore &&
		ip link set smcbr up || _topo_err "cannot create the bridge smcbr" || return 1
	_topo_asym_port smca1 $TOPO_ASYM_IP4_1 && _topo_asym_port smcb1 $TOPO_ASYM_IP4_2 &&
		_topo_asym_port smcb2 $TOPO_ASYM_IP4_3 && topo_veth_asym_rules || return 1
	for _topo_d in a1 b1 b2; do
		rdma link add "rxe$_topo_d" type rxe netdev "smc$_topo_d" ||
			_topo_err "cannot add rxe$_topo_d on smc$_topo_d" || return 1
	done
	for _topo_d in a1 b1 b2; do
		_topo_wait "$TOPO_WAIT" _topo_port_active "" "rxe$_topo_d" ||
			_topo_err "rxe$_topo_d did not become ACTIVE within $TOPO_WAIT s" || return 1
	done
}

# topo_veth_asym_pnet [ID_B2]: PNET IDs on topo_veth_asym's ports (netdev
# and RDMA port): SMCNETA on smca1, SMCNETB on smcb1 and smcb2, or ID_B2 on
# smcb2 (then each end has one port). An end finds its second port by its
# first one's PNET ID, and both ends are in one namespace here: one ID per
# end, as topo_veth_rxe2_pnet's. The table is flushed first.
topo_veth_asym_pnet() {
	/smc/bin/smc_pnet -f || _topo_err "cannot flush the PNET table" || return 1
	_topo_pnet_ends a1:SMCNETA b1:SMCNETB "b2:${1:-SMCNETB}"
}

# _topo_pnet_ends X:ID...: PNET ID ID on the veth smcX and port 1 of rxeX.
_topo_pnet_ends() {
	for _topo_x in "$@"; do
		_topo_d=${_topo_x%%:*} _topo_id=${_topo_x#*:}
		/smc/bin/smc_pnet -a "$_topo_id" -I "smc$_topo_d" ||
			{ _topo_err "pnet $_topo_id on smc$_topo_d"; return 1; }
		/smc/bin/smc_pnet -a "$_topo_id" -D "rxe$_topo_d" -P 1 ||
			{ _topo_err "pnet $_topo_id on rxe$_topo_d port 1"; return 1; }
	done
}

# topo_veth_rxe2_pnet: PNET IDs for topo_veth_rxe2's ends, SMCNETC on the
# client's (smcv1/rxev1, smcw1/rxew1), SMCNETS on the server's, so that
# each end has two ports on one network and a group adds a second link.
topo_veth_rxe2_pnet() {
	_topo_pnet_ends v1:SMCNETC w1:SMCNETC v2:SMCNETS w2:SMCNETS || return 1
	/smc/bin/smc_pnet -s
}

topo_rxe_pkts() {
	topo_rxe_pkts_on 0 "$1"
}

_topo_lgr=/sys/kernel/debug/af_smc/smcr_lgr

topo_field() {
	echo "$2" | awk -v f="$1" '{ for (i = 1; i < NF; i++) if ($i == f) { print $(i + 1); exit } }'
}

topo_echo_server_2vm() {
	topo_on 1 "rm -f /tmp/$1.ready; $SMC_SELFTESTS/tools/smc-echo -s -k 0 -f smc -a $2 -p $3 -r /tmp/$1.ready -t 600 >/tmp/$1.log 2>&1 </dev/null & echo \$! >/tmp/$1.pid" &&
		topo_on 1 "n=0; until [ -e /tmp/$1.ready ]; do n=\$((n+1)); [ \$n -lt 600 ] || exit 1; sleep 0.05; done"
}

topo_smcr_net2_setup() {
	_topo_e=$(topo_vm_rxe2 2>&1) || { tap_fail "topo_vm_rxe2: $_topo_e"; return 1; }
	topo_reload_2vm smcr=1 loopback_ism=0 lgr_linger=0 ||
		{ tap_fail "cannot reload af_smc with smcr=1 loopback_ism=0 lgr_linger=0"; return 1; }
	_topo_e=$(topo_vm_rxe2_pnet 2>&1) || { tap_fail "$_topo_e"; return 1; }
}

topo_smcr_net2_cleanup() {
	for _topo_vm in 0 1; do topo_on $_topo_vm "/smc/bin/smc_pnet -f" 2>/dev/null; done
	topo_cleanup
	topo_reload_ours_2vm
}

# topo_vm1_boot DEAD: VM 1, killed by the test (smc-vm-host kill 1, after
# it touched the file DEAD), booted again and answering; DEAD removed.
topo_vm1_boot() {
	_topo_out=$(smc-vm-host boot 1) || { tap_diag "smc-vm-host boot 1: $_topo_out"; return 1; }
	rm -f "$1"
	smc-vm-exec -w 120 1 true
}

# topo_af_smc_empty: this VM's af_smc holds nothing: every debugfs object
# count 0, no SMC-R link group.
topo_af_smc_empty() {
	[ "$(awk '$2 != 0' /sys/kernel/debug/af_smc/objects | wc -l)" = 0 ] &&
		[ "$(grep -c '^lgr ' $_topo_lgr)" = 0 ]
}

# topo_failwait_verdict FILE RC BOUND-MS WHAT: smc-failwait's report in
# FILE (its status RC) as diagnostics, and its verdict: every connection
# ended with an error, the failure's command (WHAT) exited 0, the last
# one ended within BOUND-MS of it; then which errors (a link failure
# resets every connection of its group: all the same one).
topo_failwait_verdict() {
	sed 's/^/failwait: /' "$1" | while read -r _topo_line; do tap_diag "$_topo_line"; done
	[ "$2" = 0 ] || tap_fail "not every connection ended with an error (smc-failwait status $2)"
	grep -q "^command exited 0 " "$1" || tap_fail "$4 failed"
	_topo_max=$(sed -n 's/^ended .* max \([0-9]*\) ms.*/\1/p' "$1")
	[ -n "$_topo_max" ] && [ "$_topo_max" -le "$3" ] ||
		tap_fail "the last connection ended after ${_topo_max:-?} ms, more than $3 ms"
	tap_diag "errors: $(sed -n 's/^conn [0-9]* [a-z]* \([A-Z]*\) .*/\1/p' "$1" | sort | uniq -c | tr -s ' \n' ' ')"
}

topo_hold_2vm() {
	tap_assert "a server on VM 1 for the held connection" topo_echo_server_2vm "$1" "$2" "$3"
	: >"$TMPDIR/probe"
	$SMC_SELFTESTS/tools/smc-fbprobe "$2" "$3" "$(tap_scaled 300)" >"$TMPDIR/probe" 2>&1 &
	echo $! >"$TMPDIR/probe.pid"
	tap_wait_for 30 grep -q mode "$TMPDIR/probe" ||
		{ tap_fail "no answer: $(cat "$TMPDIR/probe")"; return 1; }
	# SMC_DIAG_MODE_SMCR is 0.
	grep -qx 'mode 0 fallback 0x00000000/0x00000000' "$TMPDIR/probe" ||
		{ tap_fail "the held connection is not SMC-R: $(cat "$TMPDIR/probe")"; return 1; }
	for _topo_vm in 0 1; do
		tap_wait_for 30 topo_rxe2_ready_on $_topo_vm ||
			{ tap_fail "VM $_topo_vm's group has not two ready links on rxe0 and rxe1"; return 1; }
		sed "s/^/VM $_topo_vm: /" "$TMPDIR/lgr$_topo_vm"
	done
}

topo_unhold_2vm() {
	kill "$(cat "$TMPDIR/probe.pid" 2>/dev/null)" 2>/dev/null
	for _topo_n; do
		topo_stop_2vm "/tmp/$_topo_n.pid"
	done
	topo_smcr_gone_2vm
}

topo_rxe2_ready_on() {
	topo_on "$1" "cat $_topo_lgr" >"$TMPDIR/lgr$1" 2>/dev/null &&
		[ "$(grep -c '^link .* dev rxe0 .* ready 1 ' "$TMPDIR/lgr$1")" = 1 ] &&
		[ "$(grep -c '^link .* dev rxe1 .* ready 1 ' "$TMPDIR/lgr$1")" = 1 ]
}

# The server counts the ADD_LINK flows it finished, the client the links
# it confirmed. When the server's flow runs out of time after the client
# has answered CONFIRM_LINK, the server drops that link (add_failed) and
# adds it again: the client then counts one link more than the server.
topo_links_added() {
	_topo_a=$(topo_field links_added "$3")
	if [ "$1" = server ]; then
		[ "$_topo_a" = "$2" ]
	else
		[ "${_topo_a:-0}" -ge "$2" ]
	fi || { tap_fail "the $1 group added '$_topo_a' links, not $2"; return 1; }
}

topo_echo_stop() {
	touch "$1"
	topo_echo_bytes=
	tap_reap 600 "$2" "$3" "$4" || return 1
	topo_echo_bytes=$(sed -n -e 's/^verified \([0-9]*\) bytes in .*/\1/p' \
		-e 's/^sent \([0-9]*\) bytes one way .*/\1/p' "$3")
	_topo_min=${5:-67108864}
	[ "${topo_echo_bytes:-0}" -ge "$_topo_min" ] ||
		{ tap_fail "$4 carried '$topo_echo_bytes' bytes, less than $_topo_min"; return 1; }
}

topo_pause_ms() {
	_topo_s=$1 _topo_n=$2
	shift 2
	_topo_t0=$(tap_now_ms) _topo_p0=$("$@")
	while [ $(($(tap_now_ms) - _topo_t0)) -lt $(($(tap_scaled "$_topo_s") * 1000)) ]; do
		if [ $(($("$@") - _topo_p0)) -ge "$_topo_n" ]; then
			echo $(($(tap_now_ms) - _topo_t0))
			return 0
		fi
		sleep 0.02
	done
	return 1
}

topo_smcr_gone_2vm() {
	for _topo_vm in 0 1; do
		tap_wait_for 30 topo_on $_topo_vm "! grep -q '^lgr ' $_topo_lgr" ||
			tap_fail "VM $_topo_vm: groups left: $(topo_on $_topo_vm "cat $_topo_lgr" | tr '\n' ';')"
		topo_on $_topo_vm "tail -n 1 $_topo_lgr" | grep -q ' bufs_freed_posted 0 bufs_deferred 0$' ||
			tap_fail "VM $_topo_vm: $(topo_on $_topo_vm "tail -n 1 $_topo_lgr")"
	done
}

topo_lgr_links_ready() {
	[ "$(grep -c '^link .* ready 1 ' $_topo_lgr)" = "$1" ]
}

topo_lgr_link_pair() {
	_topo_id=$(sed -n "s/^lgr \([0-9]*\) role $1 .*/\1/p" $_topo_lgr | head -n 1)
	[ -n "$_topo_id" ] &&
		sed -n "s/^link $2 lgr $_topo_id .* dev rxe\(.\). .*/\1/p" $_topo_lgr
}

topo_pair_pkts() {
	echo $(($(topo_rxe_pkts "rxe${1}1") + $(topo_rxe_pkts "rxe${1}2")))
}

topo_rxe_pkts_on() {
	topo_on "$1" "cat /sys/class/infiniband/$2/ports/1/hw_counters/sent_pkts /sys/class/infiniband/$2/ports/1/hw_counters/rcvd_pkts" |
		awk '{ s += $1 } END { print s + 0 }'
}

topo_smcr_cleanup() {
	topo_cleanup
	smc_module_restore || tap_diag "could not load af_smc as the harness had it"
}

topo_smcr_run() {
	_topo_setup=
	if [ "$1" = --setup ]; then
		_topo_setup=$2
		shift 2
	fi
	[ -f "${SMC_MODULE_FILE:-}" ] || { echo "Bail out! no module file (SMC_MODULE_FILE)"; return 1; }
	smc_module_rmmod && insmod "$SMC_MODULE_FILE" smcr=1 loopback_ism=0 ||
		{ echo "Bail out! cannot reload af_smc with smcr=1 loopback_ism=0"; return 1; }
	if ! topo_veth_rxe; then
		echo "Bail out! topology 1 (smcv1/rxev1, smcv2/rxev2) could not be set up"
		_topo_rc=1
	elif [ -n "$_topo_setup" ] && ! _topo_out=$($_topo_setup 2>&1); then
		echo "Bail out! $_topo_setup: $_topo_out"
		_topo_rc=1
	else
		"$@"
		_topo_rc=$?
	fi
	topo_cleanup
	smc_module_rmmod || { echo "# rmmod af_smc failed after $(basename "$1")"; _topo_rc=1; }
	insmod "$SMC_MODULE_FILE" || { echo "# cannot reload af_smc"; _topo_rc=1; }
	return $_topo_rc
}
