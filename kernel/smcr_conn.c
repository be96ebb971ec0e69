// SPDX-License-Identifier: GPL-2.0
/*
 * af_smc: SMC-R as a transport of the connection layer (struct
 * smc_conn_ops): payload by RDMA WRITE from our send buffer into the
 * peer's RMB, then the 44-byte CDC message as a SEND on the same RC QP,
 * which the QP delivers after the WRITE (RC ordering), so the peer never
 * sees a cursor before the data it covers. Received CDCs come from the
 * group's link (smcr_lgr.c) by alert token, in the CQ handler.
 *
 * Nothing waits for a WRITE's completion on the way: write() posts it and
 * keeps its ticket (sc->writes), the CDC follows at once, and a message
 * costs the peer one trip over the link, not a round trip first. The
 * send buffer's bytes of a WRITE stay untouched until it completed: the
 * connection layer asks settle() before it overwrites them, a send
 * buffer's length later, and only then is a completion waited for. While
 * a WRITE is posted its send buffer stays (posted count, smcr_buf.c),
 * however the connection ends.
 *
 * The objects: struct smcr_conn (smcr_lgr.h) hangs off smc->conn.smcr
 * from smcr_conn_start() until ops->destroy; its group, link and buffers
 * live as long as it is in the group.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/sizes.h>
#include <linux/slab.h>
#include <net/sock.h>

#include "smc.h"
#include "smc_conn.h"
#include "smcr_lgr.h"

/* Wait for the oldest WRITE in flight and forget it; tx_mutex held. */
static int smcr_conn_write_done(struct smcr_conn *sc)
{
	int rc = smcr_wr_wait(sc->link, &sc->writes[sc->writes_head].t);

	sc->writes_head = (sc->writes_head + 1) % SMCR_CONN_WRITES;
	sc->writes_num--;
	return rc;
}

/*
 * RDMA WRITEs of len send buffer bytes at soff to the peer's RMB + roff:
 * one per link->write_max bytes (1 MiB, or less where the port says so),
 * each with its own ticket and the byte count of its first byte, so that
 * settle() waits for exactly the WRITEs that read the bytes it frees. A
 * WRITE posted before a later one fails stays posted; its ticket is kept,
 * and its send buffer stays by its posted count (smcr_buf.c) whatever the
 * connection does next.
 */
static int smcr_conn_write(struct smc_conn *conn, u64 pos, u32 roff, u32 soff,
			   u32 len)
{
	struct smcr_conn *sc = conn->smcr;
	unsigned int i;
	u32 n;
	int rc;

	if (!sc)
		return -ENOTCONN;
	if (roff > sc->peer_size || len > sc->peer_size - roff)
		return -EINVAL;
	while (len) {
		n = min(len, sc->link->write_max);
		/* Every ticket taken: the oldest WRITE is long done, most likely. */
		if (sc->writes_num == SMCR_CONN_WRITES) {
			rc = smcr_conn_write_done(sc);
			if (rc)
				return rc;
		}
		i = (sc->writes_head + sc->writes_num) % SMCR_CONN_WRITES;
		rc = smcr_buf_write(sc->link, sc->sndbuf, soff, n,
				    sc->peer_rkey[sc->slot], sc->peer_addr[sc->slot] + roff,
				    &sc->writes[i].t);
		if (rc)
			return rc;
		sc->writes[i].pos = pos;
		sc->writes_num++;
		pos += n;
		roff += n;
		soff += n;
		len -= n;
	}
	return 0;
}

/* The WRITEs that read bytes below upto, completed (oldest first). */
static int smcr_conn_settle(struct smc_conn *conn, u64 upto)
{
	struct smcr_conn *sc = conn->smcr;
	int rc;

	if (!sc)
		return -ENOTCONN;
	while (sc->writes_num && sc->writes[sc->writes_head].pos < upto) {
		rc = smcr_conn_write_done(sc);
		if (rc)
			return rc;
	}
	return 0;
}

static int smcr_conn_cdc_send(struct smc_conn *conn, const struct smc_cdc_msg *m)
{
	struct smcr_conn *sc = conn->smcr;
	struct smc_cdc_msg msg = *m;
	u8 buf[SMC_CDC_R_LEN];
	int rc;

	if (!sc)
		return -ENOTCONN;
	/* conn->cdc_mutex: one order for sequence numbers and sends. */
	msg.seqno = ++sc->tx_seqno;
	msg.token = sc->peer_token;
	if (smc_cdc_encode_r(&msg, buf, sizeof(buf)))
		return -EINVAL;
	rc = smcr_link_send(sc->link, buf, sizeof(buf), &sc->cdc_cb);
	/* The link is gone or broken: to the socket, the peer is gone. */
	if (rc == -ETIMEDOUT)
		rc = -ENOLINK;
	return rc;
}

/*
 * The last of our CDCs in flight completed, and the connection layer held
 * bytes back for it: push them now (from tx_work; we are in the CQ
 * handler). The link's lock keeps sc and its socket: ops->destroy takes
 * the callback off the link first.
 */
static void smcr_conn_cdc_done(struct smcr_send_cb *cb)
{
	struct smcr_conn *sc = container_of(cb, struct smcr_conn, cdc_cb);

	smc_tx_kick(sc->smc);
}

static bool smcr_conn_cdc_in_flight(struct smc_conn *conn)
{
	struct smcr_conn *sc = conn->smcr;

	return sc && smcr_link_send_arm(sc->link, &sc->cdc_cb);
}

/*
 * Under tx_mutex and cdc_mutex (in that order, as the connection layer
 * takes them), so a push or CDC send still running finishes with sc
 * first, and any later one finds no transport state (-ENOTCONN).
 */
static void smcr_conn_destroy(struct smc_conn *conn)
{
	struct smcr_conn *sc;

	mutex_lock(&conn->tx_mutex);
	mutex_lock(&conn->cdc_mutex);
	sc = conn->smcr;
	/* conn->lock too: smc_diag reads sc, its group and link under it. */
	spin_lock_bh(&conn->lock);
	conn->smcr = NULL;
	spin_unlock_bh(&conn->lock);
	mutex_unlock(&conn->cdc_mutex);
	mutex_unlock(&conn->tx_mutex);
	if (!sc)
		return;
	smcr_link_send_forget(sc->link, &sc->cdc_cb);
	/* After this no CDC handler runs for us and the buffers are gone. */
	smcr_lgr_leave(sc);
	conn->rx_ring = NULL;
	conn->sndbuf = NULL;
	kfree(sc);
}

static const struct smc_conn_ops smcr_conn_ops = {
	.write		= smcr_conn_write,
	.settle		= smcr_conn_settle,
	.cdc_send	= smcr_conn_cdc_send,
	.cdc_in_flight	= smcr_conn_cdc_in_flight,
	.destroy	= smcr_conn_destroy,
};

/* In the link's CQ handler, under lgr->conns_lock (read), bh off. */
void smcr_conn_cdc_rx(struct smcr_conn *sc, const struct smc_cdc_msg *m)
{
	/* The WRITEs before this CDC are in the RMB; let the CPU see them. */
	smcr_buf_sync_cpu(sc->link, sc->rmb);
	smc_cdc_rx_msg(sc->smc, m);
}

void smcr_conn_link_down(struct smc_sock *smc)
{
	smc_close_peer_gone(smc);
}

bool smcr_conn_is_v2(struct smc_sock *smc)
{
	struct smc_conn *conn = &smc->conn;
	bool v2 = false;

	/* conn->smcr holds its group while set (see smcr_conn_start) */
	spin_lock_bh(&conn->lock);
	if (conn->smcr)
		v2 = conn->smcr->lgr->key.version >= SMC_CLC_V2;
	spin_unlock_bh(&conn->lock);
	return v2;
}

int smcr_conn_start(struct smc_sock *smc, struct smcr_conn *sc)
{
	struct smc_conn *conn = &smc->conn;
	struct smcr_lgr *lgr = sc->lgr;

	spin_lock_bh(&conn->lock);	/* for smc_diag, as in destroy */
	conn->smcr = sc;
	spin_unlock_bh(&conn->lock);
	conn->rx_ring = sc->rmb->cpu;
	conn->rmb_size = sc->rmb->size;
	conn->rx_update_limit = min_t(u32, conn->rmb_size / 10, SZ_2K);
	conn->sndbuf = sc->sndbuf->cpu;
	conn->sndbuf_size = sc->sndbuf->size;
	conn->peer_ring = NULL;
	conn->peer_size = sc->peer_size;
	conn->lgr_id = lgr->id;
	sc->cdc_cb.done = smcr_conn_cdc_done;
	conn->ops = &smcr_conn_ops;
	smc_hs_set_smc(smc);
	/*
	 * From now on CDCs go to the connection; one that came before is
	 * handed on here, with the handler kept out by the write lock.
	 */
	write_lock_bh(&lgr->conns_lock);
	sc->started = true;
	if (sc->has_early) {
		sc->has_early = false;
		smcr_conn_cdc_rx(sc, &sc->early);
	}
	write_unlock_bh(&lgr->conns_lock);
	return 0;
}
