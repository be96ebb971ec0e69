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
 * Failover. When the link fails, the connection goes on over another
 * link of its group (smcr_conn_failover()), from the down work or from
 * the first write or wait here that meets the dead link. What the dead
 * QP may not have delivered is exactly what it had posted and we had not
 * yet seen complete: the WRITEs still queued in sc->writes (one that
 * completed was acknowledged by the peer's device, so its bytes are in
 * the peer's RMB) and our CDCs. Their bytes are still in the send buffer
 * (settle() let nobody overwrite them), so they are written again over
 * the new link to the same RMB offsets, from tx_cons on: a byte below
 * it was read by the peer, and its place in the ring may hold newer
 * bytes already. Writing a byte again where it already is changes
 * nothing the peer may read: above tx_cons the ring holds that very
 * byte, or room that only we write into. Then one CDC with all our
 * cursors and flags goes over the new link, after those WRITEs (RC
 * order): it says whatever a lost CDC said, since every CDC says it
 * all, and the peer drops an old CDC of the dead link that arrives
 * after it (sequence numbers, smcr_lgr_cdc_rx()); all but an urgent
 * mark, which only its own CDC carries: that CDC goes again first, as
 * it was, and the peer drops it if it had it. A CDC the dead link
 * refused is not an error while another link works: that CDC is owed,
 * and the failover sends it.
 *
 * Rings that grow (Documentation/smc-r.md, "Rings that grow"), as over
 * SMC-D (smcd_conn.c) with RMBs for DMBs, between two af_smc ends that
 * said so in the CLC (sc->grows): a reader that keeps emptying a full
 * ring makes a bigger RMB (registered on every link, announced with
 * CONFIRM_RKEY where the group has two) and offers it in every CDC, by
 * its rkey and address on the link the CDC goes over; the writer moves
 * there once nothing waits in the old ring, if it then knows the RMB on
 * every ready link of the group (else it stays, and ignores the offer: a
 * ring it could not fail over in is no gain), and its next CDC says so
 * (prod_gen); the reader's CQ handler then reads the new ring, and its
 * next read lets the old one go.
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
#include "smc_mem.h"
#include "smc_stats.h"
#include "smcr_lgr.h"

/*
 * Wait for the oldest WRITE in flight and forget it; tx_mutex held. One
 * that failed stays queued, for the failover to write again.
 */
static int smcr_conn_write_done(struct smcr_conn *sc)
{
	int rc = smcr_wr_wait(sc->writes[sc->writes_head].link,
			      &sc->writes[sc->writes_head].t);

	if (rc)
		return rc;
	sc->writes_head = (sc->writes_head + 1) % SMCR_CONN_WRITES;
	sc->writes_num--;
	return 0;
}

/* Armed by smcr_conn_dbg_break(): 0, or SMCR_CONN_BREAK_ + the role. */
static atomic_t smcr_conn_break = ATOMIC_INIT(0);
#define SMCR_CONN_BREAK_CLIENT	1
#define SMCR_CONN_BREAK_SERVER	2

void smcr_conn_dbg_break(bool server)
{
	atomic_set(&smcr_conn_break,
		   server ? SMCR_CONN_BREAK_SERVER : SMCR_CONN_BREAK_CLIENT);
}

/*
 * The test's break, if armed for sc's role: l (the WRITE just posted on
 * it) fails as on a QP error, once. The WRITE may still complete before
 * the QP is in error; either way its CDC is not sent (the link is
 * broken), so the peer has not read its bytes and a failover writes them
 * again.
 */
static void smcr_conn_dbg_broken(struct smcr_conn *sc, struct smcr_link *l)
{
	int armed = sc->lgr->key.role == SMC_LGR_SERVER ?
		    SMCR_CONN_BREAK_SERVER : SMCR_CONN_BREAK_CLIENT;

	if (likely(!atomic_read(&smcr_conn_break)) ||
	    atomic_cmpxchg(&smcr_conn_break, armed, 0) != armed)
		return;
	spin_lock_bh(&l->lock);
	smcr_link_broken(l, "broken after a WRITE by the test (debugfs smcr_conns)");
	spin_unlock_bh(&l->lock);
	wake_up_all(&l->wait);
}

/*
 * One RDMA WRITE over sc->link of the len send buffer bytes at soff (byte
 * count pos) to the peer's RMB + roff, queued with its ticket; a free
 * place in sc->writes is the caller's to make. tx_mutex held.
 */
static int smcr_conn_post(struct smcr_conn *sc, u64 pos, u32 roff, u32 soff,
			  u32 len)
{
	unsigned int i = (sc->writes_head + sc->writes_num) % SMCR_CONN_WRITES;
	int rc;

	rc = smcr_buf_write(sc->link, sc->sndbuf, soff, len,
			    sc->peer_rkey[sc->slot], sc->peer_addr[sc->slot] + roff,
			    &sc->writes[i].t);
	if (rc)
		return rc;
	sc->writes[i].link = sc->link;
	sc->writes[i].pos = pos;
	sc->writes[i].len = len;
	sc->writes_num++;
	smcr_conn_dbg_broken(sc, sc->link);
	return 0;
}

/*
 * A write or wait on sc's link failed with rc: when the link is down and
 * the group has another one we can write to, move there (see the top of
 * this file) and return 0; else rc. tx_mutex held; takes cdc_mutex.
 */
static int smcr_conn_failover(struct smc_conn *conn, int rc)
{
	struct smcr_conn *sc = conn->smcr;
	struct smcr_link *old = sc->link;
	unsigned int k, n, head;
	u64 cons, resent = 0;

	if (smcr_link_active(old))
		return rc;
	/* The dead QP stopped, its WRs flushed (bounded): it sends no more. */
	smcr_link_await_flush(old);
	mutex_lock(&conn->cdc_mutex);
	/* Before the move: then old may leave its slot (smcr_lgr_llc_prune()). */
	smcr_link_send_forget(old, &sc->cdc_cb);
	if (smcr_lgr_move(sc)) {
		mutex_unlock(&conn->cdc_mutex);
		return rc;
	}
	spin_lock_bh(&conn->lock);
	cons = conn->tx_cons;
	spin_unlock_bh(&conn->lock);
	/*
	 * Each queued WRITE again, from tx_cons on, in order, each into the
	 * place of the queue it leaves or an earlier one.
	 */
	n = sc->writes_num;
	head = sc->writes_head;
	sc->writes_num = 0;
	rc = 0;
	for (k = 0; k < n && !rc; k++) {
		unsigned int i = (head + k) % SMCR_CONN_WRITES;
		u64 to = sc->writes[i].pos + sc->writes[i].len;
		u64 from = max(sc->writes[i].pos, cons);

		if (from >= to)
			continue;
		rc = smcr_conn_post(sc, from,
				    (u32)((from - conn->tx_base) % conn->peer_size),
				    (u32)(from % conn->sndbuf_size), (u32)(to - from));
		if (!rc)
			resent += to - from;
	}
	/*
	 * The urgent mark: our CDCs carry every cursor and flag again, but
	 * not a mark, which one CDC alone carries (smc_cdc_send()). That
	 * CDC, as it was, with its own sequence number and the producer
	 * count just past the urgent byte, after the WRITEs (RC order): a
	 * peer that took it or a later CDC drops it as old, one that never
	 * got it marks the byte as if nothing had happened. Only while its
	 * number is less than half the sequence space behind ours, where
	 * the peer's comparison still holds.
	 */
	if (!rc && sc->urg_cdc_held &&
	    (u16)(sc->tx_seqno - sc->urg_cdc_seq) < 0x8000)
		rc = smcr_link_send(sc->link, sc->urg_cdc, sizeof(sc->urg_cdc),
				    &sc->cdc_cb);
	sc->failovers++;
	sc->resent += resent;
	atomic64_add(resent, &sc->lgr->resent);
	smc_stats_failover(sc->smc, resent);
	mutex_unlock(&conn->cdc_mutex);
	if (rc)
		return rc;
	/* What our CDCs on the dead link said, after those WRITEs. */
	smc_cdc_send(sc->smc);
	return 0;
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
			if (rc && smcr_conn_failover(conn, rc))
				return rc;
			continue;
		}
		rc = smcr_conn_post(sc, pos, roff, soff, n);
		if (rc) {
			/* Moved to another link: this WRITE goes there. */
			if (smcr_conn_failover(conn, rc))
				return rc;
			continue;
		}
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
		if (rc && smcr_conn_failover(conn, rc))
			return rc;
	}
	return 0;
}

static int smcr_conn_cdc_send(struct smc_conn *conn, const struct smc_cdc_msg *m)
{
	struct smcr_conn *sc = conn->smcr;
	struct smc_cdc_msg msg = *m;
	struct smcr_buf *next;
	u8 buf[SMC_CDC_R_LEN];
	int rc;

	if (!sc)
		return -ENOTCONN;
	/* conn->cdc_mutex: one order for sequence numbers and sends. */
	msg.seqno = ++sc->tx_seqno;
	msg.token = sc->peer_token;
	/*
	 * Our offer names the RMB on the link this CDC goes over (a failover
	 * may have moved us since it was made). The CQ handler may have taken
	 * the RMB for ours meanwhile; the peer then knows it already.
	 */
	next = READ_ONCE(sc->rmb_next);
	if (msg.ring_token && next) {
		msg.ring_token = smcr_buf_addr(sc->link, next);
		msg.ring_key = smcr_buf_rkey(sc->link, next);
	}
	if (smc_cdc_encode_r(&msg, buf, sizeof(buf)))
		return -EINVAL;
	/* The only CDC that carries this mark: a failover may need it again. */
	if (msg.urg_data_present) {
		memcpy(sc->urg_cdc, buf, sizeof(buf));
		sc->urg_cdc_seq = msg.seqno;
		sc->urg_cdc_held = true;
	}
	rc = smcr_link_send(sc->link, buf, sizeof(buf), &sc->cdc_cb);
	/*
	 * The link is gone or broken. While the group has another, this CDC
	 * is owed: the failover sends our state over that one (the down
	 * work, queued when the link failed, moves us). Else, to the socket,
	 * the peer is gone.
	 */
	if (rc == -ETIMEDOUT || rc == -ENOLINK)
		rc = smcr_lgr_has_ready(sc->lgr) ? 0 : -ENOLINK;
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

/*
 * Let go of the RMB the peer left, and offer a bigger one when reads
 * keep emptying ours after the peer filled it (SMC_GROW_AFTER), as
 * smcd_grow_rx() does. tx_mutex keeps destroy away and sc->link still.
 */
static void smcr_grow_rx(struct smc_conn *conn)
{
	struct smc_sock *smc = container_of(conn, struct smc_sock, conn);
	struct smcr_buf *old, *next;
	struct smcr_conn *sc;
	u8 class;
	u32 len;
	bool due;

	mutex_lock(&conn->tx_mutex);
	sc = conn->smcr;
	if (!sc)
		goto out;
	spin_lock_bh(&conn->lock);
	old = sc->rmb_old;
	sc->rmb_old = NULL;
	due = smc_rx_grow_due(conn);
	spin_unlock_bh(&conn->lock);
	if (old) {
		len = old->size;
		smcr_lgr_ring_drop(sc, old);
		smc_rx_ring_gone(smc, len, sc->rmb->size);
	}
	if (!due)
		goto out;
	class = smc_rx_grow_to(smc, ilog2(sc->rmb->size / SMC_BUF_MIN_SIZE),
			       SMC_GROW_MAX_CLASS);
	if (!class)
		goto out;
	next = smcr_lgr_ring_new(sc, SMC_BUF_MIN_SIZE << class);
	if (IS_ERR(next)) {
		smc_rx_grow_failed(smc, class);
		goto out;
	}
	/* Before the offer: no move into it can come earlier. */
	spin_lock_bh(&conn->lock);
	sc->rmb_next = next;
	spin_unlock_bh(&conn->lock);
	smc_rx_grow_offer(smc, smcr_buf_addr(sc->link, next),
			  smcr_buf_rkey(sc->link, next), class);
out:
	mutex_unlock(&conn->tx_mutex);
}

/*
 * The peer's offered RMB (address token, rkey key on the link the offer
 * came over) becomes the target of our WRITEs, and what its CONFIRM_RKEY
 * said of it on the group's other link; unless that leaves a ready link
 * on which we do not know it (the connection could not fail over there,
 * or the offer came over a link we do not write on): then nothing
 * changes and the offer is declined (-EAGAIN). The caller holds tx_mutex
 * and cdc_mutex: no WRITE or CDC meanwhile.
 */
static int smcr_switch_tx(struct smc_conn *conn, u64 token, u32 key, u8 class,
			  u8 **ring, u32 *size)
{
	struct smcr_conn *sc = conn->smcr;
	u32 rkey[SMCR_LGR_LINKS];
	u64 addr[SMCR_LGR_LINKS];
	bool here;
	int i;

	if (!sc)
		return -ENOTCONN;
	lockdep_assert_held(&conn->cdc_mutex);
	spin_lock_bh(&conn->lock);
	here = sc->offer_slot == sc->slot;
	spin_unlock_bh(&conn->lock);
	if (!here)
		return -EAGAIN;
	/* The ADD_LINK flow and smcr_lgr_rkey_take() write them under it. */
	mutex_lock(&smcr_lgr_lock);
	for (i = 0; i < SMCR_LGR_LINKS; i++) {
		rkey[i] = sc->peer_rkey[i];
		addr[i] = sc->peer_addr[i];
		WRITE_ONCE(sc->peer_rkey[i], i == sc->slot ? key : 0);
		WRITE_ONCE(sc->peer_addr[i], i == sc->slot ? token : 0);
	}
	mutex_unlock(&smcr_lgr_lock);
	smcr_lgr_rkey_take(sc);
	if (!smcr_lgr_peer_keys_known(sc)) {
		mutex_lock(&smcr_lgr_lock);
		for (i = 0; i < SMCR_LGR_LINKS; i++) {
			WRITE_ONCE(sc->peer_rkey[i], rkey[i]);
			WRITE_ONCE(sc->peer_addr[i], addr[i]);
		}
		mutex_unlock(&smcr_lgr_lock);
		return -EAGAIN;
	}
	sc->peer_size = SMC_BUF_MIN_SIZE << class;
	*ring = NULL;
	*size = sc->peer_size;
	return 0;
}

static const struct smc_conn_ops smcr_conn_ops = {
	.write		= smcr_conn_write,
	.settle		= smcr_conn_settle,
	.cdc_send	= smcr_conn_cdc_send,
	.cdc_in_flight	= smcr_conn_cdc_in_flight,
	.grow_rx	= smcr_grow_rx,
	.switch_tx	= smcr_switch_tx,
	.destroy	= smcr_conn_destroy,
};

/*
 * In link l's CQ handler, under lgr->conns_lock (read) and sc->rx_lock,
 * bh off.
 */
void smcr_conn_cdc_rx(struct smcr_conn *sc, struct smcr_link *l,
		      const struct smc_cdc_msg *msg)
{
	struct smc_conn *conn = &sc->smc->conn;
	struct smc_cdc_msg m = *msg;
	bool broken = false;
	int i;

	/*
	 * Rings that grow: only between two af_smc ends that said so; else
	 * these are reserved bytes (a Linux peer sends zeros). An offer
	 * beyond the classes rings grow to, or without a key, is none.
	 */
	if (!sc->grows) {
		m.cons_gen = m.prod_gen = m.ring_class = 0;
		m.ring_key = 0;
		m.ring_token = 0;
	} else if (m.ring_class > SMC_GROW_MAX_CLASS || !m.ring_key) {
		m.ring_token = 0;
	}
	spin_lock(&conn->lock);
	if (m.prod_gen != conn->rx_gen) {
		if (sc->rmb_next && m.prod_gen == (u8)(conn->rx_gen + 1)) {
			/*
			 * The peer moved to the ring we offered: it may only
			 * once we had read all it wrote into the old one.
			 */
			if (conn->rx_prod != conn->rx_cons) {
				broken = true;
			} else {
				sc->rmb_old = sc->rmb;
				WRITE_ONCE(sc->rmb, sc->rmb_next);
				WRITE_ONCE(sc->rmb_next, NULL);
				conn->rx_ring_left = true;
				conn->rx_ring = sc->rmb->cpu;
				conn->rmb_size = sc->rmb->size;
				conn->rx_base = conn->rx_prod;
				conn->peer_prod = (struct smc_cdc_cursor){};
				conn->rx_gen++;
				conn->rx_was_full = false;
				conn->rx_grow_mark = conn->rx_cons;
				conn->rx_offer_token = 0;
				conn->rx_offer_key = 0;
				conn->rx_offer_class = 0;
			}
		} else {
			/* A cursor of a ring not in use says nothing. */
			m.prod = conn->peer_prod;
		}
	}
	/* The offer names the RMB on l: which slot that is, for the switch. */
	if (m.ring_token)
		for (i = 0; i < SMCR_LGR_LINKS; i++)
			if (READ_ONCE(sc->lgr->links[i]) == l)
				sc->offer_slot = i;
	spin_unlock(&conn->lock);
	if (broken) {
		smc_close_peer_gone(sc->smc);
		return;
	}
	/* The WRITEs before this CDC on l are in the RMB; let the CPU see them. */
	smcr_buf_sync_cpu(l, sc->rmb);
	smc_cdc_rx_msg(sc->smc, &m);
}

void smcr_conn_link_down(struct smc_sock *smc)
{
	smc_close_peer_gone(smc);
}

int smcr_conn_link_failed(struct smc_sock *smc)
{
	struct smc_conn *conn = &smc->conn;
	int rc = -ENOLINK;

	mutex_lock(&conn->tx_mutex);
	/*
	 * Still in its handshake (no transport yet): it is reset, as before.
	 * A write that met the dead link may have moved it already.
	 */
	if (conn->smcr)
		rc = smcr_link_active(conn->smcr->link) ? 0 :
		     smcr_conn_failover(conn, -ENOLINK);
	mutex_unlock(&conn->tx_mutex);
	return rc;
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
	/* Rings that grow: only when the peer said it knows them too. */
	conn->rx_grow_off = !sc->grows;
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
		smcr_conn_cdc_rx(sc, sc->link, &sc->early);
	}
	write_unlock_bh(&lgr->conns_lock);
	return 0;
}
