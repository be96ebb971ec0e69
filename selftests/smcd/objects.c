// SPDX-License-Identifier: GPL-2.0
/* smcd/objects.c: see objects.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "objects.h"
#include "tap.h"

#define OBJECTS "/sys/kernel/debug/af_smc/objects"

int objects_read(struct smc_objects *o)
{
	char key[32];
	long val;
	FILE *f;
	int n = 0;

	f = fopen(OBJECTS, "re");
	if (!f && errno == ENOENT) {
		mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
		f = fopen(OBJECTS, "re");
	}
	if (!f)
		return -errno;
	memset(o, 0xff, sizeof(*o));	/* -1: a line that did not come */
	while (fscanf(f, "%31s %ld", key, &val) == 2) {
		n++;
		if (!strcmp(key, "socks"))
			o->socks = val;
		else if (!strcmp(key, "conns"))
			o->conns = val;
		else if (!strcmp(key, "dmbs"))
			o->dmbs = val;
		else if (!strcmp(key, "pool_dmbs"))
			o->pool_dmbs = val;
		else if (!strcmp(key, "lgrs"))
			o->lgrs = val;
	}
	fclose(f);
	return n == 5 ? 0 : -EPROTO;
}

/* Poll every 100 ms, for at most secs seconds, until done(o). */
static int objects_wait(struct smc_objects *o, int secs,
			int (*done)(const struct smc_objects *o))
{
	int i;

	for (i = 0; i <= secs * 10; i++) {
		if (objects_read(o))
			return -1;
		if (done(o))
			return 0;
		usleep(100 * 1000);
	}
	return -1;
}

static int all_zero(const struct smc_objects *o)
{
	return !o->socks && !o->conns && !o->dmbs && !o->pool_dmbs && !o->lgrs;
}

static int no_conns(const struct smc_objects *o)
{
	return !o->conns;
}

int objects_wait_zero(struct smc_objects *o, int secs)
{
	return objects_wait(o, secs, all_zero);
}

int objects_wait_no_conns(struct smc_objects *o, int secs)
{
	return objects_wait(o, secs, no_conns);
}

int objects_set_linger(unsigned int secs)
{
	FILE *f = fopen("/sys/module/af_smc/parameters/lgr_linger", "we");
	int rc = 0;

	if (!f)
		return -errno;
	if (fprintf(f, "%u\n", secs) < 0)
		rc = -EIO;
	if (fclose(f))
		rc = -errno;
	return rc;
}

/*
 * The caches af_smc allocates from: its own socks, the internal TCP
 * sockets, the socket inodes, and the kmalloc caches (DMB descriptors,
 * link groups, pool entries, CLC messages). DMBs themselves are 16 KiB
 * and more, from the page allocator: the dmbs counter covers them.
 */
static int slab_watched(const char *name)
{
	static const char *const exact[] = {
		"SMC", "SMC6", "TCP", "TCPv6", "sock_inode_cache",
		"request_sock_TCP", "request_sock_TCPv6",
	};
	unsigned int i;

	for (i = 0; i < sizeof(exact) / sizeof(exact[0]); i++)
		if (!strcmp(name, exact[i]))
			return 1;
	return !strncmp(name, "kmalloc-", 8);
}

static void slab_shrink(const char *name)
{
	char path[96];
	int fd;

	snprintf(path, sizeof(path), "/sys/kernel/slab/%s/shrink", name);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (write(fd, "1", 1) < 0) {
		/* best effort: the tolerance covers unshrunk caches */
	}
	close(fd);
}

int slab_snapshot(struct slab_snap *s)
{
	char line[512], name[64];
	long active, total, size, perslab;
	FILE *f;
	int pass;

	for (pass = 0; pass < 2; pass++) {
		f = fopen("/proc/slabinfo", "re");
		if (!f)
			return -errno;
		s->n = 0;
		while (fgets(line, sizeof(line), f)) {
			if (sscanf(line, "%63s %ld %ld %ld %ld", name, &active,
				   &total, &size, &perslab) != 5 ||
			    !slab_watched(name))
				continue;
			if (pass == 0) {
				slab_shrink(name);
				continue;
			}
			if (s->n == SLAB_MAX)
				break;
			snprintf(s->c[s->n].name, sizeof(s->c[s->n].name), "%s", name);
			s->c[s->n].active = active;
			s->c[s->n].perslab = perslab;
			s->n++;
		}
		fclose(f);
	}
	return s->n ? 0 : -ENOENT;
}

/*
 * Tolerance per cache: 64 objects. What else runs in the VM meanwhile
 * (this program's forks, /proc and debugfs reads, the harness) moves a
 * shrunk cache by a few dozen objects; a leak of one object per
 * connection shows as at least as many objects as the test made
 * connections (hundreds to thousands).
 */
#define SLAB_TOLERANCE 64

int slab_grown(const struct slab_snap *base, const struct slab_snap *now,
	       int verbose)
{
	int i, j, bad = 0;

	for (i = 0; i < now->n; i++) {
		long was = 0, d;

		for (j = 0; j < base->n; j++)
			if (!strcmp(base->c[j].name, now->c[i].name))
				was = base->c[j].active;
		d = now->c[i].active - was;
		if (d > SLAB_TOLERANCE) {
			if (verbose)
				tap_diag("slab %s: %ld -> %ld active objects (+%ld)",
					 now->c[i].name, was, now->c[i].active, d);
			bad++;
		} else if (d && verbose) {
			tap_diag("slab %s: %+ld (within tolerance)", now->c[i].name, d);
		}
	}
	return bad;
}
