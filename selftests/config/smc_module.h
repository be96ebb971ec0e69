/* SPDX-License-Identifier: GPL-2.0 */
/*
 * smc_module.h: which SMC module the VM has loaded.
 *
 * The config tests run against our af_smc and against the kernel's own
 * smc.ko (topology 1@intree) and assert the same answers for what Linux
 * 6.1 has. Where the two differ on purpose (Documentation/decisions.md),
 * a test asserts each module's own answer, so neither side can drift.
 */
#ifndef SMC_SELFTESTS_SMC_MODULE_H
#define SMC_SELFTESTS_SMC_MODULE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum smc_module { SMC_MODULE_NONE, SMC_MODULE_OURS, SMC_MODULE_INTREE };

/* From /proc/modules: af_smc is ours, smc is Debian's. */
static inline enum smc_module smc_module_loaded(void)
{
	enum smc_module m = SMC_MODULE_NONE;
	char line[256];
	FILE *f = fopen("/proc/modules", "r");

	if (!f)
		return m;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "af_smc ", 7))
			m = SMC_MODULE_OURS;
		else if (!strncmp(line, "smc ", 4) && m == SMC_MODULE_NONE)
			m = SMC_MODULE_INTREE;
	}
	fclose(f);
	return m;
}

/*
 * For main(): the loaded module, after printing a whole-program TAP skip
 * and exiting when there is none or we are not root. In a test VM whose
 * init loaded a module ($SMC_MODULE ours or intree) finding none is a
 * regression, not a reason to skip: one failed result, exit status 1.
 */
static inline enum smc_module smc_module_or_skip(void)
{
	enum smc_module m = smc_module_loaded();
	const char *vm = getenv("SMC_MODULE");
	const char *why = m == SMC_MODULE_NONE ? "no SMC module is loaded" :
			  getuid() != 0 ? "needs root" : NULL;

	if (m == SMC_MODULE_NONE && vm && (!strcmp(vm, "ours") || !strcmp(vm, "intree"))) {
		printf("TAP version 13\nnot ok 1 an SMC module is loaded: "
		       "SMC_MODULE=%s, but /proc/modules has neither af_smc nor smc\n1..1\n", vm);
		exit(1);
	}
	if (why) {
		printf("TAP version 13\n1..0 # SKIP %s\n", why);
		exit(0);
	}
	return m;
}

static inline const char *smc_module_label(enum smc_module m)
{
	return m == SMC_MODULE_OURS ? "af_smc" : m == SMC_MODULE_INTREE ? "smc (in-tree)" : "none";
}

#endif
