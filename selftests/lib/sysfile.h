/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sysfile.h: the one-line files of /proc/sys and /sys (sysctls, module
 * parameters), read and written as text so a test can save a value, set
 * its own and put the saved one back byte for byte; and the listings of
 * debugfs (one object per line), counted.
 */
#ifndef SMC_SELFTESTS_SYSFILE_H
#define SMC_SELFTESTS_SYSFILE_H

#include <stddef.h>

/* The first line of PATH without its newline into BUF; 0, or -1 with errno. */
int sysfile_read(const char *path, char *buf, size_t size);
/* TEXT into PATH in one write; 0, or -1 with errno (a refused value's EINVAL
 * comes from the close, where stdio flushes it). */
int sysfile_write(const char *path, const char *text);
/* How many lines of PATH start with PREFIX (lines of any length); -1 with errno. */
int sysfile_count_lines(const char *path, const char *prefix);

#endif
