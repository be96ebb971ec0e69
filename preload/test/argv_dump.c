// SPDX-License-Identifier: GPL-2.0
/*
 * smc-argv-dump: prints argv[1..] to stdout, each argument followed by a NUL
 * byte, then the environment variables the smc_run tests look at, as
 * "NAME=value" or "NAME unset", also NUL-terminated.
 */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	static const char *const names[] = {
		"LD_PRELOAD", "SMC_DEBUG", "SMC_SNDBUF", "SMC_RCVBUF", "SMC_MODE",
		"SMC_PORTS", "SMC_PROGRAMS",
	};
	unsigned int i;
	int a;

	for (a = 1; a < argc; a++)
		printf("%s%c", argv[a], 0);
	printf("--env--%c", 0);
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const char *value = getenv(names[i]);

		if (value)
			printf("%s=%s%c", names[i], value, 0);
		else
			printf("%s unset%c", names[i], 0);
	}
	return fflush(stdout) ? 1 : 0;
}
