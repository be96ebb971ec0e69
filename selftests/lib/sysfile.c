// SPDX-License-Identifier: GPL-2.0
/* sysfile.c: one-line /proc/sys and /sys files (see sysfile.h). */
#include <stdio.h>
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
