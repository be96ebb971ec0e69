// SPDX-License-Identifier: GPL-2.0
/*
 * af_smc: the memory cgroup a connection's buffers are charged to (see
 * smc_mem.h for the rules).
 */
#include <linux/cgroup.h>
#include <linux/mm.h>
#include <linux/sched.h>

#include "smc.h"
#include "smc_mem.h"

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
