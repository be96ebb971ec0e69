#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# smcd/smcd.sh [PROGRAM]: reload af_smc with the loopback ISM device, run
# PROGRAM (default: smcd) from this directory, and put the harness's module
# back. A failing rmmod (something still holds af_smc) fails the entry.
here=$(cd "$(dirname "$0")" && pwd)
prog=${1:-smcd}
rmmod af_smc && insmod "$SMC_MODULE_FILE" loopback_ism=1 ||
	{ echo "Bail out! cannot reload af_smc with loopback_ism=1"; exit 1; }
"$here/$prog"
rc=$?
# The next tests in this VM expect af_smc as the harness loaded it.
rmmod af_smc || { echo "# rmmod af_smc failed after $prog"; rc=1; }
insmod "$SMC_MODULE_FILE" || { echo "# cannot reload af_smc"; rc=1; }
exit $rc
