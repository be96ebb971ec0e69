// SPDX-License-Identifier: GPL-2.0
/* sysfile.c: one-line /proc/sys and /sys files (see sysfile.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sysfile.h"

int sysfile_read(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "re");
	int ok;

	if (!f)
		return -1;
	ok = fgets(buf, (int)size, f) != NULL;
	fclose(f);
	if (!ok)
		return -1;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

int sysfile_write(const char *path, const char *text)
{
	FILE *f = fopen(path, "we");
	int rc;

	if (!f)
		return -1;
	rc = fputs(text, f) < 0 ? -1 : 0;
	if (fclose(f))
		rc = -1;
	return rc;
}

int sysfile_count_lines(const char *path, const char *prefix)
{
	FILE *f = fopen(path, "re");
	size_t cap = 0, plen = strlen(prefix);
	char *line = NULL;
	int n = 0;

	if (!f)
		return -1;
	while (getline(&line, &cap, f) >= 0)
		n += !strncmp(line, prefix, plen);
	free(line);
	fclose(f);
	return n;
}
