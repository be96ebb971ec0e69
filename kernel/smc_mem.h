/* SPDX-License-Identifier: GPL-2.0 */
/*
 * af_smc: what a connection's buffers are charged to, so that a container
 * gets no more memory through AF_SMC than through TCP.
 *
 * Two budgets, both settled before a buffer is made:
 *
 * - The memory cgroup of the socket's owner. An smc sock takes the memcg
 *   of the task that created it, an accepted child its listener's (the
 *   container that listens pays for its connections), and keeps a
 *   reference until it is freed. Buffer pages are allocated with
 *   __GFP_ACCOUNT while that memcg is the active one (smc_mem_enter()):
 *   handshakes run in a kworker, whose own memcg is the root, so a plain
 *   __GFP_ACCOUNT would charge nobody. A charge the memcg cannot take
 *   fails the allocation (__GFP_RETRY_MAYFAIL: reclaim, never the OOM
 *   killer) and the connection falls back to TCP with SMC_CLC_DECL_MEM.
 *   The charge stays with the pages, so a pooled buffer is handed only to
 *   a connection of the memcg it is charged to (smc_mem_id()).
 *
 * - net.smc.mem_limit: bytes of buffers the connections of one network
 *   namespace may hold, receive buffer and send buffer each at its full
 *   size from the handshake on (an SMC-D send buffer that nocopy never
 *   allocates counts too: the connection may need it at any time).
 *   smc_mem_reserve() past the limit fails and the connection falls back
 *   to TCP with SMC_CLC_DECL_MEM, before anything is allocated.
 */
#ifndef _SMC_MEM_H
#define _SMC_MEM_H

#include <linux/memcontrol.h>
#include <linux/sched/mm.h>
#include <linux/types.h>

struct smc_conn;
struct smc_sock;

/*
 * The memcg of a new sock: parent's for an accepted child, else the
 * current task's. Undone by smc_mem_sock_destruct().
 */
void smc_mem_sock_init(struct smc_sock *smc, const struct smc_sock *parent);
void smc_mem_sock_destruct(struct smc_sock *smc);

/*
 * The id pooled buffers are matched by: the memcg's cgroup id (never
 * reused, unlike a pointer), 0 without memcg.
 */
u64 smc_mem_id(const struct smc_conn *conn);

/* Allocations between these two are charged to the connection's memcg. */
struct mem_cgroup *smc_mem_enter(const struct smc_conn *conn);
void smc_mem_leave(struct mem_cgroup *old);

/*
 * Flags for a buffer allocation under smc_mem_enter(): charged, and
 * failing rather than waking the memcg's OOM killer.
 */
#define SMC_MEM_GFP	(GFP_KERNEL_ACCOUNT | __GFP_RETRY_MAYFAIL | __GFP_NOWARN)

/*
 * Take bytes of the namespace's net.smc.mem_limit for smc's connection:
 * 0, or -ENOBUFS when they do not fit (nothing taken then). All of the
 * connection's bytes go back with smc_mem_unreserve().
 */
int smc_mem_reserve(struct smc_sock *smc, u32 bytes);
void smc_mem_unreserve(struct smc_sock *smc);
/* Give back bytes of them: a buffer the connection let go early. */
void smc_mem_unreserve_bytes(struct smc_sock *smc, u64 bytes);

/* net.smc.mem_limit's default: half of the RAM (smc_mem.c says why). */
unsigned long smc_mem_limit_default(void);

#endif /* _SMC_MEM_H */
