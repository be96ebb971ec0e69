/* SPDX-License-Identifier: GPL-2.0 */
/*
 * smcd/objects.h: leak checks for the SMC-D tests.
 *
 * af_smc's live objects come from debugfs af_smc/objects (kernel
 * smc_objects.c); slab usage from /proc/slabinfo after each watched cache
 * was shrunk (so objects merely parked in per-CPU slabs do not count).
 */
#ifndef SMC_SELFTESTS_SMCD_OBJECTS_H
#define SMC_SELFTESTS_SMCD_OBJECTS_H

struct smc_objects {
	long socks, conns, dmbs, pool_dmbs, lgrs;
};

/* Read the counters (mounting debugfs if needed); 0 or -errno. */
int objects_read(struct smc_objects *o);
/*
 * Poll until every counter is 0, for at most secs seconds (link groups
 * linger, see Documentation/smc-d.md). 0 when they are; o holds the last
 * reading either way.
 */
int objects_wait_zero(struct smc_objects *o, int secs);
/*
 * The same until no connection is left (close() returns before the last
 * end's teardown, its close work, has run).
 */
int objects_wait_no_conns(struct smc_objects *o, int secs);
/* af_smc's module parameter lgr_linger, in seconds; 0 or -errno. */
int objects_set_linger(unsigned int secs);

#define SLAB_MAX 64
struct slab_snap {
	int n;
	struct {
		char name[64];
		long active, perslab;
	} c[SLAB_MAX];
};

/* Shrink and read the caches af_smc's objects live in; 0 or -errno. */
int slab_snapshot(struct slab_snap *s);
/*
 * Caches that grew beyond the tolerance since base (see
 * Documentation/smc-d.md, "Leak checks"); returns their number. With
 * verbose, each cache that changed is reported with tap_diag.
 */
int slab_grown(const struct slab_snap *base, const struct slab_snap *now,
	       int verbose);

#endif
