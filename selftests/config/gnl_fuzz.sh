#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# config/gnl_fuzz.sh COUNT: the netlink fuzzer with an ISM device present
# (so the SEID and device paths run too), then af_smc must unload.
here=$(cd "$(dirname "$0")" && pwd)
rmmod af_smc && insmod "$SMC_MODULE_FILE" loopback_ism=1 ||
	{ echo "Bail out! cannot reload af_smc with loopback_ism=1"; exit 1; }
"$here/gnl_fuzz" "$@"
rc=$?
rmmod af_smc || { echo "# af_smc does not unload after the fuzzer"; rc=1; }
insmod "$SMC_MODULE_FILE" || { echo "# cannot reload af_smc"; rc=1; }
exit $rc
