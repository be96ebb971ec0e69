#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# handshake/badpeer.sh: load the misbehaving peers, run the cases, unload.
here=$(cd "$(dirname "$0")" && pwd)
ko=/smc/kernel/smc_badpeer.ko
if [ "${SMC_MODULE_NAME:-}" != af_smc ]; then
	echo "1..0 # SKIP needs our af_smc loaded (SMC_MODULE_NAME=${SMC_MODULE_NAME:-none})"
	exit 0
fi
[ -f "$ko" ] || { echo "Bail out! $ko is missing (make kernel)"; exit 1; }
insmod "$ko" base_port=7700 || { echo "Bail out! insmod smc_badpeer failed"; exit 1; }
"$here/badpeer"
rc=$?
rmmod smc_badpeer || { echo "# rmmod smc_badpeer failed"; rc=1; }
exit $rc
