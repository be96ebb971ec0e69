# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# capture/lib.sh: the TAP results of the host-side capture scripts (bash).
#	ok DESC / notok DESC     one result
#	check DESC CMD...        ok when CMD succeeds, else notok
#	finish                   the plan; exit 1 if anything failed
n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
notok() { n=$((n + 1)); failed=1; echo "not ok $n - $*"; }
check() { local what=$1; shift; if "$@"; then ok "$what"; else notok "$what"; fi; }
finish() { echo "1..$n"; exit $failed; }
