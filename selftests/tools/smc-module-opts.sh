#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# smc-module-opts.sh OPTION... -- [NAME=VALUE...] COMMAND [ARG...]
#
# Runs COMMAND with our af_smc reloaded with the module OPTIONs (e.g.
# loopback_ism=0, for tests of the fallback path now that the loopback ISM
# device is on by default), then reloads it with the harness's defaults so
# later tests in the VM see those. NAME=VALUE words after "--" go into
# COMMAND's environment. COMMAND is taken from the current directory (the
# test's area, as the runner does) when it is there, else from PATH.
# Exits with COMMAND's status, or 1 when the module could not be put back.
. "$SMC_SELFTESTS/lib/module.sh"

opts=
while [ $# -gt 0 ] && [ "$1" != -- ]; do
	opts="$opts $1"
	shift
done
[ "$1" = -- ] && shift
while [ $# -gt 0 ]; do
	# $1 is NAME=VALUE: export assigns it.
	# shellcheck disable=SC2163
	case "$1" in
	*=*) export "$1"; shift ;;
	*) break ;;
	esac
done
[ $# -gt 0 ] || { echo "Bail out! usage: smc-module-opts.sh OPTION... -- COMMAND"; exit 1; }
cmd=$1
shift
[ -x "./$cmd" ] && cmd=./$cmd

if ! smc_module_ours; then
	echo "Bail out! our af_smc is not loaded (SMC_MODULE=$SMC_MODULE): no options to set"
	exit 1
fi
# shellcheck disable=SC2086 # one word per option
smc_module_reload $opts || { echo "Bail out! cannot reload af_smc with$opts"; exit 1; }
echo "# af_smc reloaded with$opts"
SMC_MODULE_OPTS=${opts# } "$cmd" "$@"
rc=$?
smc_module_restore || { echo "# cannot reload af_smc with its defaults"; rc=1; }
exit $rc
