// SPDX-License-Identifier: GPL-2.0
/*
 * Write every sample CLC message (kernel/wire/test/clc_samples.c), encoded,
 * into a directory as the fuzzer's seed corpus. Usage: clc_seed_gen DIR
 */
#include <stdio.h>

#include "clc_samples.h"

int main(int argc, char **argv)
{
	uint8_t buf[SMC_CLC_MAX_MSG_LEN];
	struct smc_clc_msg msg;
	const char *name;
	char path[4096];
	size_t i, len;
	FILE *f;

	if (argc != 2) {
		fprintf(stderr, "usage: %s DIR\n", argv[0]);
		return 2;
	}
	for (i = 0; (name = smc_clc_sample(i, &msg)) != NULL; i++) {
		if (smc_clc_encode(&msg, buf, sizeof(buf), &len) != SMC_CLC_OK) {
			fprintf(stderr, "cannot encode sample %s\n", name);
			return 1;
		}
		snprintf(path, sizeof(path), "%s/%s", argv[1], name);
		f = fopen(path, "wb");
		if (!f || fwrite(buf, 1, len, f) != len || fclose(f)) {
			perror(path);
			return 1;
		}
	}
	printf("%zu seeds in %s\n", i, argv[1]);
	return 0;
}
