// SPDX-License-Identifier: GPL-2.0
/*
 * smc-tapcheck MODE: deliberately broken uses of the C harness (lib/tap.c),
 * for the harness self-test (vm/selftest/broken). Each mode must end as a
 * failure in `make check`; none of them is ever run by the real suite.
 *
 *   fail_then_skip  a case records a failed check, then asks to skip: the
 *                   failure must win (tap.c reports "not ok")
 *   skip            a case skips with a reason no allow-list names: the
 *                   check script must turn it into a failure
 *   require_smc     a case that needs AF_SMC, run in a VM that loaded a module
 *                   but has no AF_SMC (broken.sh unloads it): a failure,
 *                   never a skip
 *   mirror          for socket/mirror_2vm.sh: VM 0's half (SMC_MIRROR=client)
 *                   passes its one case; VM 1's half (SMC_MIRROR=server)
 *                   signals ready and exits 3, which must fail the entry
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "family.h"
#include "tap.h"

static void fail_then_skip(const void *arg)
{
	(void)arg;
	EXPECT(1 == 2);
	tap_skip("a skip after a failure must not hide it");
}

static void skip_unlisted(const void *arg)
{
	(void)arg;
	tap_skip("smc-tapcheck: a reason that no allow-list names");
}

static void require_smc(const void *arg)
{
	(void)arg;
	sf_require(sf_find("smc"));
}

static void passes(const void *arg)
{
	(void)arg;
	EXPECT(1 == 1);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	const char *mirror = getenv("SMC_MIRROR");

	if (!strcmp(mode, "fail_then_skip")) {
		tap_add(fail_then_skip, NULL, 10, "a failed check, then a skip");
	} else if (!strcmp(mode, "skip")) {
		tap_add(skip_unlisted, NULL, 10, "a skip no allow-list names");
	} else if (!strcmp(mode, "require_smc")) {
		tap_add(require_smc, NULL, 10, "a case that needs AF_SMC");
	} else if (!strcmp(mode, "mirror") && mirror && !strcmp(mirror, "server")) {
		const char *ready = getenv("SMC_MIRROR_READY");
		int fd = ready ? open(ready, O_WRONLY | O_CREAT, 0644) : -1;

		if (fd >= 0)
			close(fd);
		return 3;
	} else if (!strcmp(mode, "mirror")) {
		tap_add(passes, NULL, 10, "VM 0's half passes");
	} else {
		fprintf(stderr, "usage: smc-tapcheck fail_then_skip|skip|require_smc|mirror\n");
		return 2;
	}
	return tap_run();
}
