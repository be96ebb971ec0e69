# SPDX-License-Identifier: GPL-2.0
# lib/module.sh: reload our af_smc with module options for one test, and
# put the harness's module (its defaults) back afterwards. Sourced by area
# scripts (busybox ash).
#
#   smc_module_reload loopback_ism=0 || { echo "Bail out! ..."; exit 1; }
#   ... the test ...
#   smc_module_restore || rc=1
#
# rmmod is retried for a while: a closed SMC connection ends in a work item
# shortly after its last process exited, and holds the module until then.
# A module that is not loaded counts as removed.
#
# In a test VM with an SMC module loaded ($SMC_MODULE ours or intree), AF_SMC,
# the module's parts and every tool of the image we build are there by
# construction: a script that finds one missing has found a regression, not
# a reason to skip. Source tap.sh first.
#
#   smc_missing REASON       inside a case: fail there, skip elsewhere
#   smc_missing_all REASON   before any result, for the whole script
#   smc_own_module_all WHY   before any result, for a script that reloads
#                            af_smc with its own options: it skips unless
#                            root and our module (WHY says why not Debian's),
#                            and fails without the module file

smc_module_rmmod() {
	tries=0
	until ! smc_module_ours || rmmod "${SMC_MODULE_NAME:-af_smc}" 2>/dev/null; do
		tries=$((tries + 1))
		if [ $tries -ge 50 ]; then
			echo "# rmmod ${SMC_MODULE_NAME:-af_smc} still fails after 10 s:"
			grep "^${SMC_MODULE_NAME:-af_smc} " /proc/modules | sed 's/^/# /'
			return 1
		fi
		sleep 0.2
	done
}

# Whether our module is the one loaded (not Debian's, not none).
smc_module_ours() {
	grep -q "^${SMC_MODULE_NAME:-af_smc} " /proc/modules
}

smc_module_reload() {
	smc_module_ours || return 1
	smc_module_rmmod && insmod "$SMC_MODULE_FILE" "$@"
}

smc_module_restore() {
	smc_module_rmmod && insmod "$SMC_MODULE_FILE"
}

# Whether this is a test VM with an SMC module loaded.
smc_vm_has_module() {
	case "${SMC_MODULE:-}" in ours|intree) return 0 ;; esac
	return 1
}

smc_missing() {
	smc_vm_has_module || tap_skip_case "$*"
	tap_fail "$* (SMC_MODULE=$SMC_MODULE: a regression, not a reason to skip)"
	exit 1
}

smc_missing_all() {
	smc_vm_has_module || tap_skip_all "$*"
	tap_not_ok "$* (SMC_MODULE=$SMC_MODULE: a regression, not a reason to skip)"
	tap_done
}

smc_own_module_all() {
	[ "$(id -u)" = 0 ] || tap_skip_all "needs root"
	[ "${SMC_MODULE:-ours}" = ours ] || tap_skip_all "$1"
	[ -f "${SMC_MODULE_FILE:-}" ] || smc_missing_all "no module file (SMC_MODULE_FILE)"
}
