// SPDX-License-Identifier: GPL-2.0
/*
 * af_smc: SMC-D, the ISM transport of a connection: its DMBs and how its
 * bytes and CDC messages reach the peer (struct smc_conn_ops). Its state
 * is struct smcd_conn (smcd_conn.h).
 *
 * Our DMB holds a CDC header (SMC_CDC_D_LEN bytes, written by the peer)
 * and then our receive ring. When the device lets us attach the peer's
 * DMB, the sender writes user data straight into the peer's ring (one
 * copy per byte on each side, see Documentation/smc-d.md) unless bytes
 * wait in its send buffer; otherwise the bytes move from the send buffer.
 * Then the sender writes its CDC header into the peer's DMB with a
 * signal, which runs smcd_cdc_rx() of the receiving connection, in the
 * sender's context, under the DMB's lock.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/log2.h>
#include <linux/slab.h>
#include <net/sock.h>

#include "smc.h"
#include "smc_conn.h"
#include "smcd_conn.h"
#include "smcd_lgr.h"
#include "smc_mem.h"

u8 smcd_conn_size_class(const struct smcd_conn *sc)
{
	return ilog2(sc->rmb.len / SMC_BUF_MIN_SIZE);
}

/*
 * Runs in the sender's context, bh off, under our DMB's lock: the peer
 * wrote its CDC header into our DMB and signalled. sc outlives every
 * call: smcd_lgr_conn_del() stops them before sc is freed.
 */
static void smcd_cdc_rx(void *owner)
{
	struct smcd_conn *sc = owner;
	struct smc_cdc_msg m;

	if (smc_cdc_decode_d(sc->rmb.cpu_addr, SMC_CDC_D_LEN, &m))
		return;		/* the header is the peer's to write; ignore junk */
	smc_cdc_rx_msg(sc->smc, &m);
}

/*
 * Bytes of our send buffer into the peer's ring, behind its CDC header: a
 * copy or an ISM move, done when it returns, so SMC-D has no settle().
 */
static int smcd_write(struct smc_conn *conn, u64 pos, u32 roff, u32 soff,
		      u32 len)
{
	struct smcd_conn *sc = conn->smcd;

	if (!sc)
		return -ENOTCONN;
	if (conn->peer_ring) {
		memcpy(conn->peer_ring + roff, conn->sndbuf + soff, len);
		return 0;
	}
	return sc->ism->ops->move_data(sc->ism, sc->peer_gid, sc->peer_token,
				       &sc->tuple, SMC_CDC_D_LEN + roff,
				       conn->sndbuf + soff, len, false);
}

/* The CDC header goes to the start of the peer's DMB, with a signal. */
static int smcd_cdc_send(struct smc_conn *conn, const struct smc_cdc_msg *m)
{
	struct smcd_conn *sc = conn->smcd;
	u8 buf[SMC_CDC_D_LEN];

	if (!sc)
		return -ENOTCONN;
	smc_cdc_encode_d(m, buf, sizeof(buf));
	return sc->ism->ops->move_data(sc->ism, sc->peer_gid, sc->peer_token,
				       &sc->tuple, 0, buf, sizeof(buf), true);
}

/* Our DMB and group, the peer's DMB, the device: undone in that order. */
static void smcd_conn_free(struct smcd_conn *sc)
{
	struct smcd_ism_dev *ism = sc->ism;

	if (sc->peer_attached)
		ism->ops->detach_dmb(ism, sc->peer_token);
	/* After this no smcd_cdc_rx() runs for us. */
	smcd_lgr_conn_del(sc);
	smcd_ism_put(ism);
	kfree(sc);
}

/*
 * Under tx_mutex and cdc_mutex (in that order, as the connection layer
 * takes them), so a push or CDC send still running finishes with sc
 * first, and any later one finds no transport state (-ENOTCONN).
 */
static void smcd_destroy(struct smc_conn *conn)
{
	struct smcd_conn *sc;

	mutex_lock(&conn->tx_mutex);
	mutex_lock(&conn->cdc_mutex);
	sc = conn->smcd;
	spin_lock_bh(&conn->lock);	/* smc_diag reads sc under it */
	conn->smcd = NULL;
	conn->peer_ring = NULL;
	spin_unlock_bh(&conn->lock);
	mutex_unlock(&conn->cdc_mutex);
	mutex_unlock(&conn->tx_mutex);
	if (!sc)
		return;
	smcd_conn_free(sc);
	conn->rx_ring = NULL;
	/* smc_tx_destroy() freed the send buffer before us. */
	smc_mem_unreserve(container_of(conn, struct smc_sock, conn));
}

static const struct smc_conn_ops smcd_ops = {
	.write		= smcd_write,
	.cdc_send	= smcd_cdc_send,
	.destroy	= smcd_destroy,
};

int smcd_conn_create(struct smc_sock *smc, struct smcd_ism_dev *ism,
		     u64 peer_gid, bool server)
{
	static atomic_t diag_tokens = ATOMIC_INIT(0);
	u8 class = smc_buf_class(smc_rx_rmb_size_for(&smc->sk, SMCD_DMB_MAX_CLASS),
				 SMCD_DMB_MAX_CLASS);
	u32 sndbuf_size = smc_tx_sndbuf_size_for(&smc->sk, SMCD_DMB_MAX_CLASS);
	struct smc_conn *conn = &smc->conn;
	struct smcd_conn *sc;
	int rc;

	sc = kzalloc(sizeof(*sc), GFP_KERNEL);
	if (!sc)
		return -ENOMEM;
	sc->smc = smc;
	INIT_LIST_HEAD(&sc->lgr_entry);
	/*
	 * Both buffers count against net.smc.mem_limit from here on, the
	 * send buffer too, which nocopy may never allocate: the connection
	 * can need it at any time, and then must not be refused.
	 */
	rc = smc_mem_reserve(smc, (SMC_BUF_MIN_SIZE << class) + sndbuf_size);
	if (rc)
		goto out_free;
	/* The handshake runs on a connected clcsock: its ends are final. */
	smcd_dmb_tuple_of(smc->clcsock->sk, &sc->tuple);
	rc = smcd_lgr_conn_add(sc, ism, sock_net(&smc->sk)->net_cookie,
			       peer_gid, smc_clcsock_vlan(smc),
			       server ? SMC_LGR_SERVER : SMC_LGR_CLIENT,
			       class, smcd_cdc_rx);
	if (rc)
		goto out_unreserve;
	/*
	 * sock_diag shows this id to anyone (as Linux its alert token); it
	 * says nothing of the DMB token, which only CAP_NET_ADMIN sees.
	 */
	do {
		sc->diag_token = atomic_inc_return(&diag_tokens);
	} while (!sc->diag_token);
	sc->peer_gid = peer_gid;
	sc->ism = ism;	/* the caller's reference is ours now */
	conn->rx_ring = sc->rmb.cpu_addr + SMC_CDC_D_LEN;
	conn->rmb_size = sc->rmb.len - SMC_CDC_D_LEN;
	conn->sndbuf_size = sndbuf_size;
	spin_lock_bh(&conn->lock);	/* for smc_diag, as in destroy */
	conn->smcd = sc;
	spin_unlock_bh(&conn->lock);
	conn->ops = &smcd_ops;
	return 0;

out_unreserve:
	smc_mem_unreserve(smc);
out_free:
	kfree(sc);
	return rc;
}

int smcd_conn_attach_peer(struct smc_sock *smc, u64 token, u8 size_class)
{
	struct smcd_conn *sc = smc->conn.smcd;
	struct smcd_ism_dev *ism = sc->ism;
	u32 len = 0;
	void *mem;

	if (size_class > SMCD_DMB_MAX_CLASS)
		return -EINVAL;
	if (!ism->ops->attach_dmb) {
		int rc;

		/*
		 * A device that cannot map the peer's DMB (ivshmem): every
		 * byte goes by move_data, which checks the token, the owner
		 * and the bounds on each move. A move of nothing makes the
		 * same checks now, so that a token that is not our peer's
		 * end of this TCP connection is refused in the handshake
		 * (-ENOENT, -EACCES), as attach_dmb refuses it; a size the
		 * peer misstated only makes its moves fail later.
		 */
		rc = ism->ops->move_data(ism, sc->peer_gid, token, &sc->tuple, 0,
					 NULL, 0, false);
		if (rc)
			return rc;
		sc->peer_token = token;
		smc->conn.peer_size = (SMC_BUF_MIN_SIZE << size_class) - SMC_CDC_D_LEN;
		return 0;
	}
	/*
	 * The token is the peer's word: the device attaches only a DMB made
	 * for the other end of our own TCP connection (-EACCES otherwise),
	 * so an Accept or Confirm naming somebody else's DMB gets nothing.
	 */
	mem = ism->ops->attach_dmb(ism, token, &sc->tuple, &len);
	if (IS_ERR(mem))
		return PTR_ERR(mem);
	sc->peer_token = token;
	sc->peer_attached = true;
	/* The device knows the real size; the peer's claim must agree. */
	if (len != SMC_BUF_MIN_SIZE << size_class || len <= SMC_CDC_D_LEN)
		return -EINVAL;		/* destroy detaches */
	smc->conn.peer_ring = mem + SMC_CDC_D_LEN;
	smc->conn.peer_size = len - SMC_CDC_D_LEN;
	return 0;
}
