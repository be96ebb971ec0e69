#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# config/gnl_smcd.sh: the SMC-D cases of gnl with af_smc's loopback ISM device.
here=$(cd "$(dirname "$0")" && pwd)
rmmod af_smc && insmod "$SMC_MODULE_FILE" loopback_ism=1 ||
	{ echo "Bail out! cannot reload af_smc with loopback_ism=1"; exit 1; }
"$here/gnl" -d
rc=$?
# The next tests in this VM expect af_smc as the harness loaded it.
rmmod af_smc && insmod "$SMC_MODULE_FILE" || { echo "# cannot reload af_smc"; rc=1; }
exit $rc
