#!/bin/sh
# One deliberately broken selftest per mode; see tests.list beside this file.
case "$1" in
fail) echo "1..1"; echo "not ok 1 a case that fails" ;;
exit) echo "1..1"; echo "ok 1 a case that passes"; exit 1 ;;
crash) echo "1..1"; kill -SEGV $$ ;;
hang) echo "1..1"; sleep 1000 ;;
silent) exit 0 ;;
# A TODO marks a known failure; it is still one, never a pass.
todo) echo "1..1"; echo "not ok 1 a case that fails # TODO fix it later" ;;
# Skips no allow-list names: scripts/check must fail them.
skip) echo "1..1"; echo "ok 1 a case # SKIP a reason no allow-list names" ;;
skip_all) echo "1..0 # SKIP a whole entry skipped for a reason no allow-list names" ;;
# tap.sh: a failed check, then a skip; the failure must win.
fail_then_skip)
	. "$SMC_SELFTESTS/lib/tap.sh"
	fail_then_skip() {
		tap_expect "a check that fails" false
		tap_skip_case "a skip after a failure must not hide it"
	}
	tap_case "a failed check, then a skip" 10 fail_then_skip
	tap_done
	;;
# A VM that loaded our module but lost AF_SMC: a case that needs it fails.
no_smc) rmmod "${SMC_MODULE_NAME:-af_smc}" && exec smc-tapcheck require_smc ;;
# A mirrored run whose VM 1 half fails while VM 0's passes.
mirror) exec "$SMC_SELFTESTS/socket/mirror_2vm.sh" tcp tools/smc-tapcheck mirror ;;
esac
