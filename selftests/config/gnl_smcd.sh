#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# config/gnl_smcd.sh: the SMC-D cases of gnl with af_smc's loopback ISM device.
here=$(cd "$(dirname "$0")" && pwd)
rmmod af_smc && insmod "$SMC_MODULE_FILE" loopback_ism=1 ||
	{ echo "Bail out! cannot reload af_smc with loopback_ism=1"; exit 1; }
# Misbehaving peers for the handshake error counters (handshake/). The
# image always has the module (vm/initramfs): without it the counters' case
# would skip, so missing or not loading is a failure.
ko=/smc/kernel/smc_badpeer.ko
bail() {
	echo "Bail out! $*"
	rmmod af_smc && insmod "$SMC_MODULE_FILE"
	exit 1
}
[ -f "$ko" ] || bail "$ko is missing (make kernel)"
insmod "$ko" base_port=7800 || bail "insmod smc_badpeer failed"
"$here/gnl" -d
rc=$?
if grep -q '^smc_badpeer ' /proc/modules; then
	rmmod smc_badpeer || { echo "# rmmod smc_badpeer failed"; rc=1; }
fi
# The next tests in this VM expect af_smc as the harness loaded it.
rmmod af_smc && insmod "$SMC_MODULE_FILE" || { echo "# cannot reload af_smc"; rc=1; }
exit $rc
