#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# families.sh LIST COMMAND [ARG...]: runs the differential program COMMAND
# on the socket families in LIST (comma-separated, lib/family.h's names)
# instead of its default ones, through $SMC_FAMILIES. COMMAND is taken
# from the current directory (the test's area, as the runner does) when it
# is there, else from PATH.
[ $# -ge 2 ] || { echo "Bail out! usage: families.sh LIST COMMAND [ARG...]"; exit 1; }
SMC_FAMILIES=$1
export SMC_FAMILIES
shift
cmd=$1
shift
[ -x "./$cmd" ] && cmd=./$cmd
exec "$cmd" "$@"
