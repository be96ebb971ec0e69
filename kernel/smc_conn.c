// SPDX-License-Identifier: GPL-2.0
/*
 * af_smc: an SMC connection's life around its transport (smc_conn.h).
 */
#include <linux/mutex.h>
#include <linux/spinlock.h>

#include "smc.h"
#include "smc_conn.h"
#include "smc_stats.h"

void smc_conn_init(struct smc_conn *conn)
{
	spin_lock_init(&conn->lock);
	mutex_init(&conn->cdc_mutex);
	/*
	 * The first ring's worth is timed from here, not from 0: jiffies
	 * start 5 minutes short of wrapping, so in the first minutes of
	 * uptime 0 lies ahead, and any first ring's worth would count.
	 */
	conn->rx_grow_since = jiffies;
	smc_tx_init(conn);
}

/* The send buffer first, so no push runs into what goes next. */
void smc_conn_destroy(struct smc_sock *smc)
{
	struct smc_conn *conn = &smc->conn;

	smc_stats_conn_unuse(smc);
	if (!conn->ops)
		return;
	smc_tx_destroy(smc);
	conn->ops->destroy(conn);
	conn->ops = NULL;
}
