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
#include "smc_stats.h"

u8 smcd_conn_size_class(const struct smcd_conn *sc)
{
	return ilog2(sc->rmb.len / SMC_BUF_MIN_SIZE);
}

/*
 * The peer's first CDC in the ring we offered (its header was zero until
 * then) says that it moved there (smc_tx_move_ring()). It moves only
 * once we had read all it wrote into the old ring, so the new ring's
 * first byte is the one after rx_prod; a peer that moved with bytes of
 * ours unread broke that, and the connection is reset (where the stream
 * goes on is unknown). bh off, under one of our DMBs' locks.
 */
static void smcd_ring_moved(struct smcd_conn *sc)
{
	struct smc_conn *conn = &sc->smc->conn;
	bool broken = false;

	spin_lock(&conn->lock);
	if (!sc->rmb_next.cpu_addr ||
	    *(u8 *)sc->rmb_next.cpu_addr != SMC_CDC_MSG_TYPE) {
		spin_unlock(&conn->lock);
		return;
	}
	/* No offer is made while a left ring waits: rmb_old is free. */
	if (conn->rx_prod != conn->rx_cons) {
		sc->rmb_old = sc->rmb_next;	/* let go, unused */
		conn->rx_ring_left = true;
		conn->rx_grow_off = true;
		broken = true;
	} else {
		sc->rmb_old = sc->rmb;
		conn->rx_ring_left = true;
		sc->rmb = sc->rmb_next;
		conn->rx_ring = sc->rmb.cpu_addr + SMC_CDC_D_LEN;
		conn->rmb_size = sc->rmb.len - SMC_CDC_D_LEN;
		conn->rx_base = conn->rx_prod;
		conn->peer_prod = (struct smc_cdc_cursor){};
		conn->rx_gen++;
		conn->rx_was_full = false;
		conn->rx_grow_mark = conn->rx_cons;
	}
	sc->rmb_next = (struct smcd_dmb){};
	conn->rx_offer_token = 0;
	conn->rx_offer_class = 0;
	spin_unlock(&conn->lock);
	if (broken)
		smc_close_peer_gone(sc->smc);
}

/*
 * The CDC header in our DMB, copied out as one snapshot. The peer may be
 * writing the next header while we read (another VM over ivshmem, another
 * CPU over loopback): read byte by byte, a cursor's count could take its
 * high bytes from one message and its low ones from the next, a count
 * nobody sent, and one ahead of the writer has us read ring bytes it has
 * not written yet (the debug kernel's echoes between VMs got such bytes,
 * 2026-12-02). Each of the four words is one aligned 64-bit load, so a
 * cursor (wrap and count in one word) is whole. The writer's copy stores
 * them in ascending order (move_data()'s memcpy of 32 aligned bytes) and
 * we load them in descending order, so the cons word with its flags is
 * never newer than the prod word beside it (no close ahead of its last
 * bytes), nor ring_token newer than ring_class.
 */
static void smcd_cdc_snapshot(const void *hdr, u64 *snap)
{
	const u64 *w = hdr;
	int i;

	BUILD_BUG_ON(SMC_CDC_D_LEN % sizeof(u64));
	for (i = SMC_CDC_D_LEN / sizeof(u64) - 1; i >= 0; i--) {
		snap[i] = READ_ONCE(w[i]);
		smp_rmb();	/* this word before the lower ones */
	}
}

/*
 * Runs in the sender's context, bh off, under our DMB's lock: the peer
 * wrote its CDC header into our DMB and signalled. sc outlives every
 * call: smcd_lgr_conn_del() stops them before sc is freed. While our ring
 * grows both our DMBs signal here; the header read is the one of the ring
 * in use, which a CDC in the offered ring first makes that one.
 */
static void smcd_cdc_rx(void *owner)
{
	struct smcd_conn *sc = owner;
	u64 hdr[SMC_CDC_D_LEN / sizeof(u64)];
	struct smc_cdc_msg m;

	if (READ_ONCE(sc->rmb_next.cpu_addr))
		smcd_ring_moved(sc);
	smcd_cdc_snapshot(sc->rmb.cpu_addr, hdr);
	if (smc_cdc_decode_d(hdr, SMC_CDC_D_LEN, &m))
		return;		/* the header is the peer's to write; ignore junk */
	smc_cdc_rx_msg(sc->smc, &m);
}

/*
 * Let go of the ring the peer left, and offer a bigger one when reads
 * keep emptying ours after the peer filled it (SMC_GROW_AFTER): two classes
 * up (64 KiB, 256 KiB, 1 MiB), reserved against net.smc.mem_limit and
 * charged like the first; without the memory the ring just stays.
 * tx_mutex keeps destroy away; smcd_lgr_lock nests inside it.
 */
static void smcd_grow_rx(struct smc_conn *conn)
{
	struct smc_sock *smc = container_of(conn, struct smc_sock, conn);
	struct smcd_dmb old = {}, next = {};
	struct smcd_conn *sc;
	u8 class;
	bool due;

	mutex_lock(&conn->tx_mutex);
	sc = conn->smcd;
	if (!sc)
		goto out;
	spin_lock_bh(&conn->lock);
	swap(old, sc->rmb_old);
	due = smc_rx_grow_due(conn);
	spin_unlock_bh(&conn->lock);
	if (old.cpu_addr) {
		/* No signal of it runs after this (unregister, or the pool). */
		smcd_lgr_dmb_del(sc, &old);
		smc_rx_ring_gone(smc, old.len, sc->rmb.len);
	}
	if (!due)
		goto out;
	class = smc_rx_grow_to(smc, smcd_conn_size_class(sc), SMCD_DMB_MAX_CLASS);
	if (!class)
		goto out;
	if (smcd_lgr_dmb_add(sc, class, smcd_cdc_rx, &next)) {
		smc_rx_grow_failed(smc, class);
		goto out;
	}
	/* Before the offer: no move into it can come earlier. */
	spin_lock_bh(&conn->lock);
	sc->rmb_next = next;
	spin_unlock_bh(&conn->lock);
	smc_rx_grow_offer(smc, next.token, 0, class);
out:
	mutex_unlock(&conn->tx_mutex);
}

/*
 * The peer's offered ring, checked as the handshake checks its first
 * one: attached where the device can (nocopy), else a move of nothing
 * (token, owner and bounds). CDCs go there from now on: the caller holds
 * cdc_mutex (smc_tx_move_ring()).
 */
static int smcd_switch_tx(struct smc_conn *conn, u64 token, u32 key,
			  u8 class, u8 **ring, u32 *size)
{
	struct smcd_conn *sc = conn->smcd;
	u32 len = SMC_BUF_MIN_SIZE << class, got = 0;
	struct smcd_ism_dev *ism;
	void *mem;
	int rc = 0;

	if (!sc)
		return -ENOTCONN;
	if (class > SMCD_DMB_MAX_CLASS)
		return -EINVAL;
	ism = sc->ism;
	lockdep_assert_held(&conn->cdc_mutex);
	if (!ism->ops->attach_dmb) {
		rc = ism->ops->move_data(ism, &sc->peer_gid, token, &sc->tuple, 0,
					 NULL, 0, false);
		if (!rc) {
			sc->peer_token = token;
			*ring = NULL;
		}
		goto out;
	}
	mem = ism->ops->attach_dmb(ism, token, &sc->tuple, &got);
	if (IS_ERR(mem)) {
		rc = PTR_ERR(mem);
		goto out;
	}
	if (got != len) {
		ism->ops->detach_dmb(ism, token);
		rc = -EINVAL;
		goto out;
	}
	/* Nobody writes into the old one: the caller holds tx_mutex. */
	if (sc->peer_attached)
		ism->ops->detach_dmb(ism, sc->peer_token);
	sc->peer_token = token;
	sc->peer_attached = true;
	*ring = mem + SMC_CDC_D_LEN;
out:
	*size = len - SMC_CDC_D_LEN;
	return rc;
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
	return sc->ism->ops->move_data(sc->ism, &sc->peer_gid, sc->peer_token,
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
	return sc->ism->ops->move_data(sc->ism, &sc->peer_gid, sc->peer_token,
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
 * first, and any later one finds no transport state (-ENOTCONN). A
 * second call (the owner's close after smcd_conn_detach(), or an orphan's
 * end racing it) finds sc gone and does nothing.
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

void smcd_conn_detach(struct smc_sock *smc)
{
	struct smc_conn *conn = &smc->conn;

	sock_owned_by_me(&smc->sk);
	smcd_destroy(conn);
	/*
	 * The socket lock keeps readers out of the ring, which is gone now:
	 * the bytes still unread in it are lost with the reset (the reader
	 * gets ECONNRESET).
	 */
	spin_lock_bh(&conn->lock);
	conn->rx_prod = conn->rx_cons;
	spin_unlock_bh(&conn->lock);
}

static const struct smc_conn_ops smcd_ops = {
	.write		= smcd_write,
	.cdc_send	= smcd_cdc_send,
	.grow_rx	= smcd_grow_rx,
	.switch_tx	= smcd_switch_tx,
	.destroy	= smcd_destroy,
};

int smcd_conn_create(struct smc_sock *smc, struct smcd_ism_dev *ism,
		     const struct smcd_gid *peer_gid, bool server)
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
	sc->peer_gid = *peer_gid;
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
		rc = ism->ops->move_data(ism, &sc->peer_gid, token, &sc->tuple, 0,
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
