#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# handshake/hostile.sh [PORT]: af_smc with the loopback ISM device, the
# mutating network smc_hostile.ko with a fresh seed (or SMC_HOSTILE_SEED to
# replay one), the handshakes of hostile.c (CLC mutated, then CDC), then
# both modules unloaded: a failing rmmod or a reference left on af_smc
# fails the entry.
here=$(cd "$(dirname "$0")" && pwd)
ko=/smc/kernel/smc_hostile.ko
if ! grep -q '^af_smc ' /proc/modules; then
	[ "${SMC_MODULE:-}" != ours ] ||
		{ echo "Bail out! SMC_MODULE=ours, but af_smc is not loaded"; exit 1; }
	echo "1..0 # SKIP needs our af_smc loaded"
	exit 0
fi
[ -f "$ko" ] || { echo "Bail out! $ko is missing (make kernel)"; exit 1; }
seed=${SMC_HOSTILE_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
echo "# seed $seed (replay with SMC_HOSTILE_SEED=$seed)"
rmmod af_smc && insmod "$SMC_MODULE_FILE" loopback_ism=1 ||
	{ echo "Bail out! cannot reload af_smc with loopback_ism=1"; exit 1; }
insmod "$ko" seed="$seed" || { echo "Bail out! insmod smc_hostile failed"; exit 1; }
# A connection whose CDCs lied may leave an orphan waiting for its peer
# until tcp_fin_timeout (60 s); the leak check should not wait that long.
fin=$(cat /proc/sys/net/ipv4/tcp_fin_timeout)
echo 5 >/proc/sys/net/ipv4/tcp_fin_timeout
SMC_HOSTILE_SEED=$seed "$here/hostile" "$@"
rc=$?
echo "$fin" >/proc/sys/net/ipv4/tcp_fin_timeout
rmmod smc_hostile || { echo "# rmmod smc_hostile failed"; rc=1; }
refs=$(cat /sys/module/af_smc/refcnt)
[ "$refs" = 0 ] || { echo "# af_smc still has $refs reference(s) after the run"; rc=1; }
# The next tests in this VM expect af_smc as the harness loaded it.
rmmod af_smc || { echo "# rmmod af_smc failed after the run"; rc=1; }
insmod "$SMC_MODULE_FILE" || { echo "# cannot reload af_smc"; rc=1; }
exit $rc
