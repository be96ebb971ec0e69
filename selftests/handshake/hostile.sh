#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# handshake/hostile.sh [smcr|v6] [PORT]: af_smc with the loopback ISM device, the
# mutating network smc_hostile.ko with a fresh seed (or SMC_HOSTILE_SEED to
# replay one), the handshakes of hostile.c (CLC mutated, then CDC), then
# both modules unloaded: a failing rmmod or a reference left on af_smc
# fails the entry.
#
# With "smcr": the same over SMC-R in topology 1 (topo_veth_rxe: client
# 10.43.2.1 on smcv1/rxev1, server 10.43.2.2 on smcv2/rxev2), af_smc as
# smcr=1 loopback_ism=0 lgr_linger=0 (a link group goes with its last
# connection, so rounds of connections make new links), smc_hostile
# watching the veth pair (ifprefix=smcv) as well as lo, and
# net.smc.smcr_testlink_time 1 s (the keepalives send TEST_LINK on a link
# idle that long); hostile.c then runs the CLC, CDC and LLC parts with the
# SMC-R counts below (SMC_HOSTILE_* override them).
#
# With "v6": SMC-D as without, over IPv6: the listener on ::1 (an AF_SMC
# socket of protocol SMCPROTO_SMC6), the clients on fd43:5c:0:N::1 (N 1-16:
# 16 /64s, since af_smc bounds the handshakes in flight per client /64),
# which this script puts on lo and takes off again; fewer handshakes (the IPv4
# run has the 10,000; no rings that grow, which the IPv4 run has), the same
# checks.
here=$(cd "$(dirname "$0")" && pwd)
ko=/smc/kernel/smc_hostile.ko
mode=smcd
case "${1:-}" in
smcr|v6) mode=$1; shift ;;
esac
if ! grep -q '^af_smc ' /proc/modules; then
	[ "${SMC_MODULE:-}" != ours ] ||
		{ echo "Bail out! SMC_MODULE=ours, but af_smc is not loaded"; exit 1; }
	echo "1..0 # SKIP needs our af_smc loaded"
	exit 0
fi
[ -f "$ko" ] || { echo "Bail out! $ko is missing (make kernel)"; exit 1; }
# bail MESSAGE: the set-up failed. The next tests in this VM expect
# af_smc as the harness loaded it, and no topology 1: put both back.
bail() {
	echo "Bail out! $*"
	[ $mode = smcr ] && topo_cleanup
	[ $mode = v6 ] && v6_addrs del
	rmmod af_smc 2>/dev/null
	insmod "$SMC_MODULE_FILE" || echo "# cannot reload af_smc"
	exit 1
}
seed=${SMC_HOSTILE_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
echo "# seed $seed (replay with SMC_HOSTILE_SEED=$seed)"
if [ $mode = smcr ]; then
	. "$here/../lib/topology.sh"
	rmmod af_smc && insmod "$SMC_MODULE_FILE" smcr=1 loopback_ism=0 lgr_linger=0 ||
		bail "cannot reload af_smc with smcr=1 loopback_ism=0 lgr_linger=0"
	err=$(topo_veth_rxe 2>&1) || bail "topology 1 (topo_veth_rxe): $err"
	grep -q ' /sys/kernel/debug debugfs' /proc/mounts ||
		mount -t debugfs none /sys/kernel/debug
	insmod "$ko" seed="$seed" ifprefix=smcv || bail "insmod smc_hostile failed"
	testlink=$(cat /proc/sys/net/smc/smcr_testlink_time)
	echo 1 >/proc/sys/net/smc/smcr_testlink_time
	export SMC_HOSTILE_MODE=smcr SMC_HOSTILE_SERVER=$TOPO_VETH_IP4_2 \
		SMC_HOSTILE_CLIENT=$TOPO_VETH_IP4_1
	# One handshake at a time: each is a first contact of its own, so an
	# untouched one is held to SMC-R (with more in flight, a mutated first
	# contact makes the others wait and decline, and one's lie takes down
	# the link its neighbours share).
	export SMC_HOSTILE_N=${SMC_HOSTILE_N:-30} SMC_HOSTILE_WORKERS=${SMC_HOSTILE_WORKERS:-1}
	export SMC_HOSTILE_CDC_N=${SMC_HOSTILE_CDC_N:-40} \
		SMC_HOSTILE_CDC_WORKERS=${SMC_HOSTILE_CDC_WORKERS:-8}
	export SMC_HOSTILE_LLC_N=${SMC_HOSTILE_LLC_N:-24} \
		SMC_HOSTILE_LLC_WORKERS=${SMC_HOSTILE_LLC_WORKERS:-4}
else
	rmmod af_smc && insmod "$SMC_MODULE_FILE" loopback_ism=1 ||
		bail "cannot reload af_smc with loopback_ism=1"
	insmod "$ko" seed="$seed" || bail "insmod smc_hostile failed"
fi
# v6_addrs add|del: the 16 IPv6 client addresses hostile.c binds to.
v6_addrs() {
	for i in 1 2 3 4 5 6 7 8 9 a b c d e f 10; do
		ip -6 addr "$1" "fd43:5c:0:$i::1/128" dev lo nodad 2>/dev/null || [ "$1" = del ] ||
			return 1
	done
}
if [ $mode = v6 ]; then
	v6_addrs add || bail "cannot add fd43:5c:0:N::1 (N 1-16) to lo"
	export SMC_HOSTILE_SERVER=::1 SMC_HOSTILE_N=${SMC_HOSTILE_N:-2000} \
		SMC_HOSTILE_CDC_N=${SMC_HOSTILE_CDC_N:-500} \
		SMC_HOSTILE_GROW_N=${SMC_HOSTILE_GROW_N:-0}
fi
# A connection whose CDCs lied may leave an orphan waiting for its peer
# until tcp_fin_timeout (60 s); the leak check should not wait that long.
fin=$(cat /proc/sys/net/ipv4/tcp_fin_timeout)
echo 5 >/proc/sys/net/ipv4/tcp_fin_timeout
SMC_HOSTILE_SEED=$seed "$here/hostile" "$@"
rc=$?
# A failure's other half is often the kernel's (a link that failed says
# why): the end of its log goes with it.
if [ $rc != 0 ]; then
	echo "# the kernel's last words:"
	dmesg | tail -n 40 | sed 's/^/#   /'
fi
echo "$fin" >/proc/sys/net/ipv4/tcp_fin_timeout
[ $mode = smcr ] && echo "$testlink" >/proc/sys/net/smc/smcr_testlink_time
[ $mode = v6 ] && v6_addrs del
rmmod smc_hostile || { echo "# rmmod smc_hostile failed"; rc=1; }
refs=$(cat /sys/module/af_smc/refcnt)
[ "$refs" = 0 ] || { echo "# af_smc still has $refs reference(s) after the run"; rc=1; }
# The next tests in this VM expect af_smc as the harness loaded it (and,
# for SMC-R, the module goes before the network: its link groups' last
# DELETE_LINK while both rxe devices are still there).
rmmod af_smc || { echo "# rmmod af_smc failed after the run"; rc=1; }
[ $mode = smcr ] && topo_cleanup
insmod "$SMC_MODULE_FILE" || { echo "# cannot reload af_smc"; rc=1; }
exit $rc
