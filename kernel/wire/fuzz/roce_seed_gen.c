// SPDX-License-Identifier: GPL-2.0
/*
 * Write the sample CDC/LLC messages (kernel/wire/test/roce_samples.c) into a
 * directory as a seed corpus. Usage: roce_seed_gen DIR [cdc|llc]
 */
#include <stdio.h>
#include <string.h>

#include "roce_samples.h"

int main(int argc, char **argv)
{
	uint8_t buf[SMC_ROCE_SAMPLE_MAX];
	enum smc_roce_sample_kind kind;
	const char *name;
	char path[4096];
	size_t i, len, n = 0;
	FILE *f;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: %s DIR [cdc|llc]\n", argv[0]);
		return 2;
	}
	for (i = 0; (name = smc_roce_sample(i, buf, &len, &kind)) != NULL; i++) {
		int is_llc = kind == SMC_SAMPLE_LLC;

		if (!len) {
			fprintf(stderr, "cannot encode sample %s\n", name);
			return 1;
		}
		if (argc == 3 && is_llc != !strcmp(argv[2], "llc"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", argv[1], name);
		f = fopen(path, "wb");
		if (!f || fwrite(buf, 1, len, f) != len || fclose(f)) {
			perror(path);
			return 1;
		}
		n++;
	}
	printf("%zu seeds in %s\n", n, argv[1]);
	return 0;
}
