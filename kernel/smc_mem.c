// SPDX-License-Identifier: GPL-2.0
/*
 * af_smc: the memory cgroup and the per-namespace budget a connection's
 * buffers are charged to (see smc_mem.h for the rules).
 */
#include <linux/cgroup.h>
#include <linux/mm.h>
#include <linux/sched.h>

#include "smc.h"
#include "smc_mem.h"
#include "smc_netns.h"

void smc_mem_sock_init(struct smc_sock *smc, const struct smc_sock *parent)
{
	struct mem_cgroup *memcg = NULL;

	if (parent) {
		memcg = parent->conn.memcg;
		if (memcg)
			css_get(&memcg->css);
	} else if (!mem_cgroup_disabled()) {
		/* The root memcg for a kernel thread; NULL without memcg. */
		memcg = get_mem_cgroup_from_mm(current->mm);
	}
	smc->conn.memcg = memcg;
}

void smc_mem_sock_destruct(struct smc_sock *smc)
{
	WARN_ON_ONCE(smc->conn.mem_reserved);
	mem_cgroup_put(smc->conn.memcg);
	smc->conn.memcg = NULL;
}

u64 smc_mem_id(const struct smc_conn *conn)
{
	const struct mem_cgroup *memcg = conn->memcg;

	return memcg ? cgroup_id(memcg->css.cgroup) : 0;
}

struct mem_cgroup *smc_mem_enter(const struct smc_conn *conn)
{
	/*
	 * NULL leaves the task's own memcg in charge, which is what a sock
	 * without one (memcg disabled) would get anyway.
	 */
	return set_active_memcg(conn->memcg);
}

void smc_mem_leave(struct mem_cgroup *old)
{
	set_active_memcg(old);
}

int smc_mem_reserve(struct smc_sock *smc, u32 bytes)
{
	struct smc_net *sn = smc_net(sock_net(&smc->sk));
	unsigned long limit = READ_ONCE(sn->sysctl_mem_limit);

	/*
	 * Add first, then compare: two handshakes racing for the last bytes
	 * cannot both get them. A refused one gives its bytes straight back.
	 */
	if (atomic_long_add_return(bytes, &sn->mem_used) > limit) {
		atomic_long_sub(bytes, &sn->mem_used);
		return -ENOBUFS;
	}
	smc->conn.mem_reserved += bytes;
	return 0;
}

void smc_mem_unreserve_bytes(struct smc_sock *smc, u64 bytes)
{
	struct smc_net *sn = smc_net(sock_net(&smc->sk));

	bytes = min(bytes, smc->conn.mem_reserved);
	if (!bytes)
		return;
	atomic_long_sub(bytes, &sn->mem_used);
	smc->conn.mem_reserved -= bytes;
}

void smc_mem_unreserve(struct smc_sock *smc)
{
	smc_mem_unreserve_bytes(smc, smc->conn.mem_reserved);
}

/*
 * Half of the RAM per namespace: enough that no workload of the test
 * suite (smcd/scale holds 2,000 connections, 256 MiB of buffers, in a
 * 1 GiB guest) or of a host meets it by accident, and still a bound that
 * keeps one namespace from pinning all memory in buffers the kernel
 * cannot reclaim. Containers get their real bound from their memcg; the
 * sysctl is for a namespace without one, or for a tighter cap.
 */
unsigned long smc_mem_limit_default(void)
{
	return (totalram_pages() / 2) << PAGE_SHIFT;
}
