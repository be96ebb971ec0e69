#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# smcd/smcd.sh [PROGRAM]: reload af_smc with the loopback ISM device, run
# PROGRAM (default: smcd) from this directory, and put the harness's module
# back. A failing rmmod (something still holds af_smc) fails the entry;
# it is tried for 10 s (smc_module_rmmod), as the topology helpers do:
# right after the program exits af_smc may still be in use for a moment
# (2026-11-29: an immediate rmmod failed with EAGAIN after smcd and
# memlimit in 3 of 3 runs, with main's af_smc.ko too; a second later the
# module's count was 0 and debugfs objects said socks 0).
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/module.sh"
prog=${1:-smcd}
rmmod af_smc && insmod "$SMC_MODULE_FILE" loopback_ism=1 ||
	{ echo "Bail out! cannot reload af_smc with loopback_ism=1"; exit 1; }
"$here/$prog"
rc=$?
# The next tests in this VM expect af_smc as the harness loaded it.
smc_module_rmmod || { echo "# rmmod af_smc failed after $prog"; rc=1; }
insmod "$SMC_MODULE_FILE" || { echo "# cannot reload af_smc"; rc=1; }
exit $rc
