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
