#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# handshake/badpeer.sh [PROGRAM]: load the misbehaving peers, run the cases
# of PROGRAM (default badpeer), unload.
here=$(cd "$(dirname "$0")" && pwd)
prog=${1:-badpeer}
ko=/smc/kernel/smc_badpeer.ko
if ! grep -q '^af_smc ' /proc/modules; then
	# The harness loaded it in a VM of topology 1@ours: gone is a failure.
	[ "${SMC_MODULE:-}" != ours ] ||
		{ echo "Bail out! SMC_MODULE=ours, but af_smc is not loaded"; exit 1; }
	echo "1..0 # SKIP needs our af_smc loaded"
	exit 0
fi
[ -f "$ko" ] || { echo "Bail out! $ko is missing (make kernel)"; exit 1; }
# With the loopback ISM device our client proposes SMC-D and so waits for
# the server's CLC answer, which is what the bad servers play with.
rmmod af_smc && insmod "$SMC_MODULE_FILE" loopback_ism=1 ||
	{ echo "Bail out! cannot reload af_smc with loopback_ism=1"; exit 1; }
insmod "$ko" base_port=7700 || { echo "Bail out! insmod smc_badpeer failed"; exit 1; }
"$here/$prog"
rc=$?
rmmod smc_badpeer || { echo "# rmmod smc_badpeer failed"; rc=1; }
# The next tests in this VM expect af_smc as the harness loaded it.
rmmod af_smc && insmod "$SMC_MODULE_FILE" || { echo "# cannot reload af_smc"; rc=1; }
exit $rc
