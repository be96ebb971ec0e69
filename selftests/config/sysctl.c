// SPDX-License-Identifier: GPL-2.0
/*
 * config/sysctl: the net.smc.* sysctls.
 *
 *   - every name exists with Linux's default (with the kernel's own smc.ko,
 *     the names Linux 6.1 lacks must be absent), mem_limit (ours alone)
 *     with half of the RAM;
 *   - values in range are taken and read back; out-of-range and malformed
 *     writes fail with EINVAL and leave the value as it was;
 *   - a new network namespace starts from the defaults, whatever the
 *     initial namespace holds, and values set in one namespace are not seen
 *     in another;
 *   - only root may write.
 * Every case puts back what it changed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "smc_module.h"
#include "tap.h"

#define SYSCTL_DIR "/proc/sys/net/smc/"
#define MAX_VALUES 6

struct sysctl_def {
	const char *name;
	const char *dflt;
	int in_61;	/* Linux 6.1 (the in-tree module) has it */
	const char *valid[MAX_VALUES];
	const char *invalid[MAX_VALUES];
	const char *other;	/* a valid non-default value */
};

/*
 * Defaults and ranges: Linux's Documentation/networking/smc-sysctl.rst and
 * what Debian's 6.1 smc.ko answers. smcr_testlink_time is in seconds and
 * kept in jiffies; Linux takes any value that fits in jiffies, negative
 * ones too, so "-1" is valid and 2^31-1 s is not.
 */
static struct sysctl_def defs[] = {
	{ "autocorking_size", "65536", 1,
	  { "0", "1", "4294967295", "65536" },
	  { "-1", "4294967296", "abc" }, "4096" },
	{ "smcr_buf_type", "0", 1,
	  { "0", "1", "2" },
	  { "3", "-1", "abc" }, "2" },
	{ "smcr_testlink_time", "30", 1,
	  { "0", "1", "3600", "-1" },
	  { "2147483647", "abc" }, "60" },
	{ "wmem", "65536", 1,
	  { "16384", "1073741823", "262144" },
	  { "16383", "1073741824", "-1", "abc" }, "32768" },
	{ "rmem", "65536", 1,
	  { "16384", "1073741823", "262144" },
	  { "16383", "1073741824", "-1", "abc" }, "131072" },
	{ "limit_smc_hs", "0", 0,
	  { "1", "0" },
	  { "2", "-1", "abc" }, "1" },
	{ "smcr_max_links_per_lgr", "2", 0,
	  { "1", "2" },
	  { "0", "3", "abc" }, "1" },
	{ "smcr_max_conns_per_lgr", "255", 0,
	  { "16", "255", "100" },
	  { "15", "256", "0", "abc" }, "64" },
	/* Linux 6.19: a new SMC-R link's send and receive slots. */
	{ "smcr_max_send_wr", "16", 0,
	  { "2", "2048", "100" },
	  { "1", "2049", "0", "-1", "abc" }, "32" },
	{ "smcr_max_recv_wr", "48", 0,
	  { "2", "2048", "100" },
	  { "1", "2049", "0", "-1", "abc" }, "96" },
	/*
	 * Ours alone (Linux has no cap on SMC buffers): bytes, half of the
	 * RAM by default (mem_limit_default() fills it in), any unsigned long.
	 */
	{ "mem_limit", NULL, 0,
	  { "0", "1", "18446744073709551615", "1310720" },
	  { "-1", "18446744073709551616", "abc" }, "1048576" },
};
#define N_DEFS (sizeof(defs) / sizeof(defs[0]))

static enum smc_module module;

/* net.smc.mem_limit's default: (RAM pages / 2) pages, as smc_mem.c has it. */
static void mem_limit_default(void)
{
	static char dflt[32];
	unsigned long long kb = 0;
	char line[128];
	FILE *f = fopen("/proc/meminfo", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "MemTotal: %llu kB", &kb) == 1)
			break;
	if (f)
		fclose(f);
	snprintf(dflt, sizeof(dflt), "%llu",
		 kb / (sysconf(_SC_PAGESIZE) / 1024) / 2 * sysconf(_SC_PAGESIZE));
	for (size_t i = 0; i < N_DEFS; i++)
		if (!defs[i].dflt)
			defs[i].dflt = dflt;
}

static int present(const struct sysctl_def *d)
{
	return module == SMC_MODULE_OURS || d->in_61;
}

/* The value of a sysctl of the caller's namespace, without the newline. */
static int sysctl_read(const char *name, char *buf, size_t size)
{
	char path[128];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), SYSCTL_DIR "%s", name);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = 0;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

/* Write value (one write, as echo does); -1 with errno on failure. */
static int sysctl_write(const char *name, const char *value)
{
	char path[128];
	ssize_t n;
	int fd, err;

	snprintf(path, sizeof(path), SYSCTL_DIR "%s", name);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -1;
	n = write(fd, value, strlen(value));
	err = errno;
	close(fd);
	errno = err;
	return n < 0 ? -1 : 0;
}

static int expect_value(const char *name, const char *want, const char *when)
{
	char got[64];

	if (sysctl_read(name, got, sizeof(got)) < 0) {
		tap_fail("%s: cannot read %s: %s", when, name, strerror(errno));
		return 0;
	}
	if (strcmp(got, want)) {
		tap_fail("%s: %s is '%s', expected '%s'", when, name, got, want);
		return 0;
	}
	return 1;
}

static void defaults(const void *arg)
{
	char buf[64];

	(void)arg;
	tap_diag("module: %s", smc_module_label(module));
	for (size_t i = 0; i < N_DEFS; i++) {
		const struct sysctl_def *d = &defs[i];

		if (present(d)) {
			expect_value(d->name, d->dflt, "default");
			continue;
		}
		/* Linux 6.1 lacks it: the in-tree module must not show it. */
		if (sysctl_read(d->name, buf, sizeof(buf)) == 0 || errno != ENOENT)
			tap_fail("%s: expected no such file with %s, got %s", d->name,
				 smc_module_label(module), strerror(errno));
	}
}

static void valid_writes(const void *arg)
{
	(void)arg;
	for (size_t i = 0; i < N_DEFS; i++) {
		const struct sysctl_def *d = &defs[i];

		if (!present(d))
			continue;
		for (int v = 0; v < MAX_VALUES && d->valid[v]; v++) {
			if (EXPECT_SYS(sysctl_write(d->name, d->valid[v])) == 0)
				expect_value(d->name, d->valid[v], "after a valid write");
		}
		EXPECT_SYS(sysctl_write(d->name, d->dflt));
		expect_value(d->name, d->dflt, "restored");
	}
}

static void invalid_writes(const void *arg)
{
	(void)arg;
	for (size_t i = 0; i < N_DEFS; i++) {
		const struct sysctl_def *d = &defs[i];

		if (!present(d))
			continue;
		/* From a non-default value, so "unchanged" means something. */
		ASSERT_SYS(sysctl_write(d->name, d->other));
		for (int v = 0; v < MAX_VALUES && d->invalid[v]; v++) {
			char when[96];

			errno = 0;
			if (sysctl_write(d->name, d->invalid[v]) == 0 || errno != EINVAL)
				tap_fail("writing '%s' to %s: %s, expected EINVAL", d->invalid[v],
					 d->name, errno ? tap_errno_name(errno) : "accepted");
			snprintf(when, sizeof(when), "after the refused '%s'", d->invalid[v]);
			expect_value(d->name, d->other, when);
		}
		EXPECT_SYS(sysctl_write(d->name, d->dflt));
	}
}

/* In a child in a new network namespace: fn(); its failures fail the case. */
static void in_new_netns(void (*fn)(void))
{
	pid_t pid = fork();
	int status;

	ASSERT(pid >= 0);
	if (pid == 0) {
		if (unshare(CLONE_NEWNET) < 0) {
			tap_fail("unshare(CLONE_NEWNET): %s", strerror(errno));
			_exit(1);
		}
		fn();
		_exit(tap_failed() ? 1 : 0);
	}
	ASSERT_SYS(waitpid(pid, &status, 0));
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		tap_fail("the check in the new namespace failed");
}

static void check_defaults_then_set_other(void)
{
	for (size_t i = 0; i < N_DEFS; i++) {
		if (!present(&defs[i]))
			continue;
		expect_value(defs[i].name, defs[i].dflt, "in a new namespace");
		if (sysctl_write(defs[i].name, defs[i].other) < 0)
			tap_fail("%s in a new namespace: %s", defs[i].name, strerror(errno));
		expect_value(defs[i].name, defs[i].other, "set in the new namespace");
	}
}

/*
 * The initial namespace holds non-defaults; a new one starts from the
 * defaults; what it sets stays there; a second new one starts from the
 * defaults again, and the initial one still has its values.
 */
static void per_netns(const void *arg)
{
	(void)arg;
	for (size_t i = 0; i < N_DEFS; i++)
		if (present(&defs[i]))
			ASSERT_SYS(sysctl_write(defs[i].name, defs[i].other));
	in_new_netns(check_defaults_then_set_other);
	in_new_netns(check_defaults_then_set_other);
	for (size_t i = 0; i < N_DEFS; i++) {
		if (!present(&defs[i]))
			continue;
		expect_value(defs[i].name, defs[i].other, "initial namespace afterwards");
		EXPECT_SYS(sysctl_write(defs[i].name, defs[i].dflt));
	}
}

static void unprivileged(const void *arg)
{
	pid_t pid;
	int status;

	(void)arg;
	pid = fork();
	ASSERT(pid >= 0);
	if (pid == 0) {
		if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
			_exit(2);
		for (size_t i = 0; i < N_DEFS; i++) {
			char buf[64];

			if (!present(&defs[i]))
				continue;
			if (sysctl_read(defs[i].name, buf, sizeof(buf)) < 0)
				tap_fail("nobody cannot read %s: %s", defs[i].name, strerror(errno));
			errno = 0;
			if (sysctl_write(defs[i].name, defs[i].other) == 0 || errno != EACCES)
				tap_fail("nobody writing %s: %s, expected EACCES", defs[i].name,
					 errno ? tap_errno_name(errno) : "accepted");
		}
		_exit(tap_failed() ? 1 : 0);
	}
	ASSERT_SYS(waitpid(pid, &status, 0));
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		tap_fail("the unprivileged checks failed (status %#x)", status);
	for (size_t i = 0; i < N_DEFS; i++)
		if (present(&defs[i]))
			expect_value(defs[i].name, defs[i].dflt, "after nobody's writes");
}

static const struct tap_case cases[] = {
	{ "every net.smc sysctl exists with its default", defaults, NULL, 60 },
	{ "values in range are taken and read back", valid_writes, NULL, 60 },
	{ "invalid writes fail with EINVAL and leave the value", invalid_writes, NULL, 60 },
	{ "a new netns starts from the defaults; values are per netns", per_netns, NULL, 60 },
	{ "only root may write; anyone may read", unprivileged, NULL, 60 },
};

int main(void)
{
	module = smc_module_or_skip();
	mem_limit_default();
	tap_add_table(cases, sizeof(cases) / sizeof(cases[0]));
	return tap_run();
}
