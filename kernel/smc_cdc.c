// SPDX-License-Identifier: GPL-2.0
/*
 * af_smc: CDC messages, whatever the transport carries them.
 *
 * A CDC message tells the peer our producer cursor (how far we wrote into
 * its ring), our consumer cursor (how far we read ours, so how far it may
 * write) and the connection state flags. smc_cdc_send() fills those in
 * and hands the message to the transport (smc_conn_ops->cdc_send), which
 * encodes and moves it; the transport decodes what arrives and calls
 * smc_cdc_rx_msg().
 *
 * The done-writing and closed flags are TCP's FIN, which follows the
 * data: while bytes wait in our send buffer the flags stay off
 * (conn->fin_held), and the push that empties the buffer sends the CDC
 * that carries them. A peer's reset ends the wait (smc_close.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <net/sock.h>

#include "smc.h"
#include "smc_conn.h"
#include "smc_stats.h"

static void smc_cdc_cursor_of(u64 bytes, u32 size, struct smc_cdc_cursor *c)
{
	c->wrap = (u16)div_u64_rem(bytes, size, &c->count);
}

int smc_cdc_send(struct smc_sock *smc)
{
	struct smc_conn *conn = &smc->conn;
	struct smc_cdc_msg m = {};
	bool all_sent;
	int rc;

	mutex_lock(&conn->cdc_mutex);
	/* Until the peer's ring is known there is no cursor to send. */
	if (!conn->ops || !conn->peer_size) {
		mutex_unlock(&conn->cdc_mutex);
		return -ENOTCONN;
	}
	spin_lock_bh(&conn->lock);
	/* Each cursor counts in the ring it belongs to (rings that grow). */
	smc_cdc_cursor_of(conn->tx_prod - conn->tx_base, conn->peer_size,
			  &m.prod);
	smc_cdc_cursor_of(conn->rx_cons - conn->rx_base, conn->rmb_size,
			  &m.cons);
	m.cons_gen = conn->rx_gen;
	m.prod_gen = conn->peer_gen;
	m.ring_token = conn->rx_offer_token;
	m.ring_key = conn->rx_offer_key;
	m.ring_class = conn->rx_offer_class;
	conn->rx_cons_sent = conn->rx_cons;
	/* Bytes wait and the peer's ring is full: its reads must tell us. */
	m.write_blocked = smc_tx_queued(conn) && !smc_tx_ring_space(conn);
	/* After a reset nothing more goes: the flags need not wait. */
	all_sent = conn->tx_prod == conn->tx_wrote || conn->peer_abort ||
		   conn->peer_gone;
	m.peer_done_writing = conn->done_writing && all_sent;
	m.peer_conn_closed = conn->closed && all_sent;
	conn->fin_held = conn->done_writing && !all_sent;
	m.peer_conn_abort = conn->aborted;
	/* One CDC carries each urgent mark; see smc_tx.c. */
	m.urg_data_present = m.urg_data_pending = conn->urg_tx;
	conn->urg_tx = false;
	spin_unlock_bh(&conn->lock);
	rc = conn->ops->cdc_send(conn, &m);
	mutex_unlock(&conn->cdc_mutex);
	/* The peer's socket or the link under us is gone: like a reset. */
	if (rc == -ENOENT || rc == -ENOLINK)
		smc_close_peer_gone(smc);
	return rc;
}

void smc_cdc_rx_msg(struct smc_sock *smc, const struct smc_cdc_msg *m)
{
	struct smc_conn *conn = &smc->conn;
	struct sock *sk = &smc->sk;
	bool urgent, push, full = false;
	unsigned int ev;
	u32 got, freed;

	spin_lock(&conn->lock);
	got = smc_cdc_cursor_diff(conn->rmb_size, &conn->peer_prod, &m->prod);
	conn->peer_prod = m->prod;
	/*
	 * A cons cursor of the peer's ring we already left (sent before the
	 * peer saw us move) says nothing: that ring was empty when we moved.
	 */
	freed = 0;
	if (m->cons_gen == conn->peer_gen) {
		if (conn->peer_size)
			freed = smc_cdc_cursor_diff(conn->peer_size,
						    &conn->peer_cons, &m->cons);
		conn->peer_cons = m->cons;
	}
	/*
	 * An offer of a bigger ring, taken when the old one is empty
	 * (smc_tx_move_ring()); the one we moved to already, repeated by
	 * CDCs sent before the peer saw the move, is no new offer.
	 */
	if (m->ring_token && m->ring_token != conn->peer_ring_token &&
	    conn->ops && conn->ops->switch_tx) {
		conn->peer_offer_token = m->ring_token;
		conn->peer_offer_key = m->ring_key;
		conn->peer_offer_class = m->ring_class;
	}
	conn->peer_blocked = m->write_blocked || m->cons_curs_upd_req;
	/* Never beyond what the rings can hold, whatever the peer says. */
	got = min_t(u64, got, conn->rmb_size - (conn->rx_prod - conn->rx_cons));
	freed = min_t(u64, freed, conn->tx_prod - conn->tx_cons);
	conn->rx_prod += got;
	conn->tx_cons += freed;
	/* The writer had to stop at our ring's end (rings that grow). */
	if (got && conn->rx_prod - conn->rx_cons == conn->rmb_size)
		conn->rx_was_full = full = true;
	/* A sendmsg waiting for room pushes itself once woken. */
	push = freed && smc_tx_queued(conn) && !conn->tx_waiting;
	urgent = smc_rx_urgent(smc, m);
	ev = smc_close_rx(smc, m, got);
	spin_unlock(&conn->lock);

	if (full)
		smc_stats_rx_full(smc);
	if (urgent) {
		/*
		 * SIGURG to the file's owner, as TCP sends it. The callback
		 * lock keeps release (sock_orphan()) and so the file away.
		 */
		read_lock(&sk->sk_callback_lock);
		sk_send_sigurg(sk);
		read_unlock(&sk->sk_callback_lock);
	}
	if (got || urgent)
		sk->sk_data_ready(sk);
	if (push)
		smc_tx_kick(smc);	/* our buffered bytes fit now */
	if (freed)
		sk->sk_write_space(sk);
	smc_close_notify(smc, ev);
}
