// SPDX-License-Identifier: GPL-2.0
/*
 * af_smc: the close state machine of an SMC connection.
 *
 * Each side tells the other, in the connection state flags of its CDC
 * messages, that it stopped writing (peer_done_writing: shutdown
 * SHUT_WR, TCP's FIN), that it closed (peer_conn_closed, which implies
 * done writing), or that it aborted (peer_conn_abort, TCP's RST). The
 * states are the ones Linux reports through sock_diag (smc.h), and the
 * table in Documentation/smc-d.md lists every transition:
 *
 *   ACTIVE --shutdown(WR)--> PEERCLOSEWAIT1 --peer done--> PEERCLOSEWAIT2
 *   ACTIVE --peer done/closed--> APPCLOSEWAIT1 --shutdown(WR)--> APPCLOSEWAIT2
 *   PEERCLOSEWAIT1/2 --peer closed--> APPFINCLOSEWAIT (open) or CLOSED
 *   APPCLOSEWAIT1/2 --close--> PEERFINCLOSEWAIT, or CLOSED if the peer closed
 *   any open state --peer aborts or vanishes--> PROCESSABORT
 *   close with unread data, SO_LINGER {1, 0}, data after close
 *   --> PEERABORTWAIT (until the peer closes) or CLOSED
 *   an orphan whose peer stays open --tcp_fin_timeout--> CLOSED
 *
 * What the application sees follows TCP, state for state: a peer's
 * done writing is TCP's FIN (RCV_SHUTDOWN, EOF after the data); an abort
 * is TCP's RST (sk_err ECONNRESET, or EPIPE when the peer had finished
 * writing, as tcp_reset() picks for CLOSE_WAIT; none when both sides had
 * finished, where TCP is closed already); both directions finished, or a
 * reset, end the connection as tcp_done() does (sk_shutdown all, EPOLLHUP,
 * ENOTCONN from shutdown() and getpeername()).
 *
 * A socket closed while its peer is still open lives on, without its
 * file, as an "orphan" (as TCP keeps FIN_WAIT sockets): it keeps its DMB
 * and clcsock, stays in sock_diag, and answers data that still arrives
 * with an abort, as TCP answers it with a RST. close_work ends it when
 * the peer closes or aborts, when its probe finds the peer gone, or after
 * tcp_fin_timeout (TCP's limit for an orphan in FIN_WAIT2), so no closed
 * socket holds the module for longer.
 *
 * Locking: conn->lock (bh) guards the flags and sk_state of an SMC
 * connection; smc_close_rx() runs under it in the CDC handler (the
 * sender's context, bh off, our DMB's lock held), so it only changes
 * state and leaves CDC sends (which sleep on cdc_mutex) and the end of
 * an orphan (which unregisters the DMB whose lock the handler holds) to
 * process context: the caller of shutdown/close, or close_work.
 * close_work runs only once the socket is an orphan (conn->orphan, set
 * by smc_release() after it is done with the socket); it owns the
 * orphan's reference and is the only one to end it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/jiffies.h>
#include <net/sock.h>
#include <net/tcp.h>

#include "smc.h"
#include "smc_conn.h"

static void smc_close_work(struct work_struct *work);

/*
 * How often an orphan that waits for its peer sends its CDC again, as TCP
 * retransmits a FIN that nobody acknowledged. A peer that went without a
 * word (a server's child dropped in the middle of its handshake, after
 * the client was done) has no DMB any more, so the probe fails with
 * -ENOENT and resets the orphan; a live peer reads nothing new in it.
 */
#define SMC_CLOSE_PROBE		HZ

/*
 * The RST of smc_close_peer_gone(): tcp_abort() takes the clcsock's
 * socket lock, so it runs here, in process context. The clcsock is
 * there: smc_close_rst_stop() waits for us before it goes.
 */
static void smc_close_rst_work(struct work_struct *work)
{
	struct smc_sock *smc = container_of(work, struct smc_sock,
					    conn.rst_work);

	tcp_abort(smc->clcsock->sk, ECONNRESET);
	sock_put(&smc->sk);	/* smc_close_peer_gone()'s */
}

void smc_close_init(struct smc_sock *smc)
{
	INIT_DELAYED_WORK(&smc->conn.close_work, smc_close_work);
	INIT_WORK(&smc->conn.rst_work, smc_close_rst_work);
}

void smc_close_rst_stop(struct smc_sock *smc)
{
	struct smc_conn *conn = &smc->conn;

	spin_lock_bh(&conn->lock);
	conn->rst_off = true;
	spin_unlock_bh(&conn->lock);
	flush_work(&conn->rst_work);
}

static void smc_close_set(struct smc_sock *smc, int state)
{
	WRITE_ONCE(smc->sk.sk_state, state);
}

/*
 * Over as a TCP connection in TCP_CLOSE is: reset, or both directions
 * finished. Read locklessly by getname; the flags only ever get set.
 */
bool smc_close_ended(const struct smc_conn *conn)
{
	return READ_ONCE(conn->peer_abort) || READ_ONCE(conn->peer_gone) ||
	       (READ_ONCE(conn->done_writing) &&
		READ_ONCE(conn->peer_done_writing));
}

/* As tcp_done(): nothing more in either direction. Conn lock held. */
static void smc_close_end(struct smc_sock *smc)
{
	WRITE_ONCE(smc->sk.sk_shutdown, SHUTDOWN_MASK);
}

/*
 * The peer reset the connection (abort flag) or its DMB is gone. Conn
 * lock held; returns SMC_CLOSE_RX_* for the caller.
 */
static unsigned int smc_close_reset(struct smc_sock *smc)
{
	struct smc_conn *conn = &smc->conn;
	struct sock *sk = &smc->sk;
	unsigned int ev = SMC_CLOSE_RX_CHANGED;
	int err = 0;

	switch (sk->sk_state) {
	case SMC_CLOSED:
		return 0;
	case SMC_PROCESSABORT:
		return 0;
	}
	if (conn->released) {
		/*
		 * Our close told the peer all it needs, unless its flags
		 * waited for our send buffer: close_work sends them then.
		 */
		smc_close_set(smc, SMC_CLOSED);
		return ev | SMC_CLOSE_RX_KICK;
	}
	if (!conn->peer_done_writing)
		err = ECONNRESET;
	else if (!conn->done_writing)
		err = EPIPE;		/* TCP in CLOSE_WAIT */
	/*
	 * The error first, as tcp_reset() sets it before tcp_done(): a
	 * lockless reader (sendmsg's smc_tx_stopped(), then sock_error())
	 * that sees the connection ended also sees why. Poll and recv read
	 * both under the conn lock.
	 */
	if (err) {
		WRITE_ONCE(sk->sk_err, err);
		ev |= SMC_CLOSE_RX_ERROR;
		smp_wmb();	/* pairs with smp_rmb() in smc_tx_sendmsg() */
	}
	smc_close_set(smc, SMC_PROCESSABORT);
	smc_close_end(smc);
	return ev;
}

/* The peer finished writing (closed: and closed its socket). Lock held. */
static void smc_close_peer_fin(struct smc_sock *smc, bool closed)
{
	struct smc_conn *conn = &smc->conn;

	switch (smc->sk.sk_state) {
	case SMC_INIT:		/* SMC, and the handshake is just ending */
	case SMC_ACTIVE:
		smc_close_set(smc, SMC_APPCLOSEWAIT1);
		break;
	case SMC_PEERCLOSEWAIT1:
		if (!closed) {
			smc_close_set(smc, SMC_PEERCLOSEWAIT2);
			break;
		}
		fallthrough;
	case SMC_PEERCLOSEWAIT2:
		if (closed)
			smc_close_set(smc, conn->released ? SMC_CLOSED :
					   SMC_APPFINCLOSEWAIT);
		break;
	case SMC_PEERFINCLOSEWAIT:
	case SMC_PEERABORTWAIT:
		if (closed)
			smc_close_set(smc, SMC_CLOSED);
		break;
	default:		/* APPCLOSEWAIT1/2 wait for our close */
		break;
	}
	if (conn->done_writing)
		smc_close_end(smc);
}

unsigned int smc_close_rx(struct smc_sock *smc, const struct smc_cdc_msg *m,
			  u32 got)
{
	struct smc_conn *conn = &smc->conn;
	unsigned int ev = 0;
	bool fin, closed;

	if (conn->peer_abort || conn->peer_gone)
		return 0;	/* nothing counts after a reset */
	if (m->peer_conn_abort) {
		conn->peer_abort = true;
		return smc_close_reset(smc);
	}
	/*
	 * Data for a socket that was closed (and so will never read it):
	 * TCP answers with a RST; close_work sends our abort.
	 */
	if (got && conn->released && !conn->aborted &&
	    !conn->rx_after_close) {
		conn->rx_after_close = true;
		ev |= SMC_CLOSE_RX_KICK;
	}
	closed = m->peer_conn_closed && !conn->peer_closed;
	fin = (m->peer_done_writing || m->peer_conn_closed) &&
	      !conn->peer_done_writing;
	if (!fin && !closed)
		return ev;
	if (fin) {
		conn->peer_done_writing = true;
		WRITE_ONCE(smc->sk.sk_shutdown,
			   smc->sk.sk_shutdown | RCV_SHUTDOWN);
	}
	conn->peer_closed |= m->peer_conn_closed;
	smc_close_peer_fin(smc, conn->peer_closed);
	ev |= SMC_CLOSE_RX_CHANGED;
	if (smc->sk.sk_state == SMC_CLOSED)
		ev |= SMC_CLOSE_RX_KICK;
	return ev;
}

/* Let an orphan's work look at it now. Any context. */
static void smc_close_kick(struct smc_sock *smc)
{
	struct smc_conn *conn = &smc->conn;

	spin_lock_bh(&conn->lock);
	/* Until smc_release() hands the socket over, it does this itself. */
	if (conn->orphan)
		mod_delayed_work(smc_close_wq, &conn->close_work, 0);
	spin_unlock_bh(&conn->lock);
}

void smc_close_notify(struct smc_sock *smc, unsigned int ev)
{
	struct sock *sk = &smc->sk;

	if (ev & SMC_CLOSE_RX_CHANGED)
		sk->sk_state_change(sk);
	if (ev & SMC_CLOSE_RX_ERROR)
		sk_error_report(sk);
	if (ev & SMC_CLOSE_RX_KICK)
		smc_close_kick(smc);
}

/*
 * What we found gone may still be there: a peer whose DMB or slot was
 * corrupted, one that a heartbeat took for dead, one on the far side of
 * a link only we lost. Were it to keep waiting for our data or our close,
 * only a write of its own would tell it, and a reader would wait forever;
 * so the TCP connection under us is reset, as TCP answers a peer it no
 * longer knows, and the peer takes that as our abort (smc_clcsock.c).
 * Not once the clcsock is going (rst_off): an orphan shut it down, or
 * aborted it, when it became one. Nor during the handshake, which needs
 * the TCP connection for its Decline and the fallback that follows (an
 * SMC-R link that fails before the Confirm is such a case).
 */
void smc_close_peer_gone(struct smc_sock *smc)
{
	struct smc_conn *conn = &smc->conn;
	unsigned int ev = 0;

	spin_lock_bh(&conn->lock);
	if (!conn->peer_gone && !conn->peer_abort) {
		conn->peer_gone = true;
		ev = smc_close_reset(smc);
		if (!conn->rst_off && smc_hs_state(smc) == SMC_HS_DONE &&
		    !smc_use_fallback(smc)) {	/* once: peer_gone is set once */
			sock_hold(&smc->sk);
			queue_work(smc_close_wq, &conn->rst_work);
		}
	}
	spin_unlock_bh(&conn->lock);
	smc_close_notify(smc, ev);
}

/*
 * The peer reset the TCP connection under us, or declined on it after the
 * handshake (smc_clcsock.c): the same as its abort flag. Unlike a vanished
 * peer (smc_close_peer_gone()), our close then still answers with an
 * abort: a peer that aborted waits in PEERABORTWAIT for it, and over SMC-R
 * its RST may come before its abort CDC.
 */
void smc_close_peer_reset(struct smc_sock *smc)
{
	struct smc_conn *conn = &smc->conn;
	unsigned int ev = 0;

	spin_lock_bh(&conn->lock);
	if (!conn->peer_gone && !conn->peer_abort) {
		conn->peer_abort = true;
		ev = smc_close_reset(smc);
	}
	spin_unlock_bh(&conn->lock);
	smc_close_notify(smc, ev);
}

int smc_close_shutdown(struct smc_sock *smc, int how)
{
	struct smc_conn *conn = &smc->conn;
	struct sock *sk = &smc->sk;
	bool tell = false;
	int rc = 0;

	/* SHUT_RD=0, SHUT_WR=1, SHUT_RDWR=2, as shutdown(2) counts them. */
	if (how < SHUT_RD || how > SHUT_RDWR)
		return -EINVAL;
	lock_sock(sk);
	spin_lock_bh(&conn->lock);
	/* TCP_CLOSE answers ENOTCONN, and still takes the bits. */
	if (smc_close_ended(conn))
		rc = -ENOTCONN;
	WRITE_ONCE(sk->sk_shutdown, sk->sk_shutdown | (how + 1));
	if ((sk->sk_shutdown & SEND_SHUTDOWN) && !conn->done_writing) {
		switch (sk->sk_state) {
		case SMC_INIT:
		case SMC_ACTIVE:
			smc_close_set(smc, SMC_PEERCLOSEWAIT1);
			tell = true;
			break;
		case SMC_APPCLOSEWAIT1:
			smc_close_set(smc, SMC_APPCLOSEWAIT2);
			tell = true;
			break;
		}
		conn->done_writing = true;
		if (conn->peer_done_writing)
			smc_close_end(smc);
	}
	spin_unlock_bh(&conn->lock);
	if (tell) {
		/*
		 * The idle clcsock follows, so TCP_INFO says what TCP would;
		 * first, so its FIN is in when the peer wakes for our CDC.
		 */
		kernel_sock_shutdown(smc->clcsock, SHUT_WR);
		smc_cdc_send(smc);
	}
	release_sock(sk);
	sk->sk_state_change(sk);
	return rc;
}

/*
 * A graceful close (no unread data, no zero linger). Conn lock held;
 * returns true when a CDC has to tell the peer.
 */
static bool smc_close_graceful(struct smc_sock *smc)
{
	struct smc_conn *conn = &smc->conn;

	switch (smc->sk.sk_state) {
	case SMC_INIT:
	case SMC_ACTIVE:
		smc_close_set(smc, SMC_PEERCLOSEWAIT1);
		break;
	case SMC_PEERCLOSEWAIT1:
	case SMC_PEERCLOSEWAIT2:
		break;		/* still waiting for the peer's close */
	case SMC_APPCLOSEWAIT1:
	case SMC_APPCLOSEWAIT2:
		smc_close_set(smc, conn->peer_closed ? SMC_CLOSED :
				   SMC_PEERFINCLOSEWAIT);
		break;
	case SMC_PROCESSABORT:
		/* The peer waits in PEERABORTWAIT: our abort answers it. */
		smc_close_set(smc, SMC_CLOSED);
		conn->aborted = true;
		return !conn->peer_gone;
	default:	/* APPFINCLOSEWAIT: the peer closed already */
		smc_close_set(smc, SMC_CLOSED);
		break;
	}
	conn->done_writing = true;
	conn->closed = true;
	return true;
}

/* Send an abort: we leave without reading. Conn lock held. */
static bool smc_close_abort(struct smc_sock *smc)
{
	struct smc_conn *conn = &smc->conn;
	int state = smc->sk.sk_state;

	if (state == SMC_CLOSED)
		return false;
	conn->aborted = true;
	/* A peer that closed or reset waits for nothing more. */
	if (conn->peer_closed || conn->peer_abort || conn->peer_gone ||
	    state == SMC_PROCESSABORT)
		smc_close_set(smc, SMC_CLOSED);
	else
		smc_close_set(smc, SMC_PEERABORTWAIT);
	return !conn->peer_gone;
}

/* Whether the send buffer is empty, or can never empty. */
static bool smc_close_tx_settled(struct smc_conn *conn)
{
	bool settled;

	spin_lock_bh(&conn->lock);
	settled = !smc_tx_queued(conn) || conn->aborted || conn->peer_abort ||
		  conn->peer_gone;
	spin_unlock_bh(&conn->lock);
	return settled;
}

/*
 * SO_LINGER with a time: as tcp_close(), close waits until what we wrote
 * left (here: our send buffer is empty), for at most that time, or until
 * a signal. Without it close does not wait; the orphan sends the rest.
 */
static void smc_close_linger(struct smc_sock *smc)
{
	struct sock *sk = &smc->sk;
	long timeo = sk->sk_lingertime;

	if (!sock_flag(sk, SOCK_LINGER) || !timeo)
		return;
	lock_sock(sk);
	while (!smc_close_tx_settled(&smc->conn) && timeo &&
	       !signal_pending(current)) {
		DEFINE_WAIT_FUNC(wait, woken_wake_function);

		add_wait_queue(sk_sleep(sk), &wait);
		sk_wait_event(sk, &timeo, smc_close_tx_settled(&smc->conn),
			      &wait);
		remove_wait_queue(sk_sleep(sk), &wait);
	}
	release_sock(sk);
}

bool smc_close_release(struct smc_sock *smc)
{
	struct smc_conn *conn = &smc->conn;
	struct sock *sk = &smc->sk;
	bool tell, orphan;

	if (smc_use_fallback(smc) || !conn->ops)
		return false;
	smc_close_linger(smc);
	spin_lock_bh(&conn->lock);
	conn->released = true;
	/*
	 * As tcp_close(): unread data means the peer must learn that it was
	 * lost (a reset), and so does a zero linger time.
	 */
	if (conn->rx_prod != conn->rx_cons ||
	    (sock_flag(sk, SOCK_LINGER) && !sk->sk_lingertime))
		tell = smc_close_abort(smc);
	else
		tell = smc_close_graceful(smc);
	spin_unlock_bh(&conn->lock);
	/*
	 * Bytes still in our send buffer go first: the closed flag rides on
	 * the CDC of the push that empties it (smc_cdc.c), sent by this
	 * socket as an orphan.
	 */
	if (tell)
		smc_cdc_send(smc);	/* a vanished peer closes us here */
	spin_lock_bh(&conn->lock);
	orphan = sk->sk_state != SMC_CLOSED;
	spin_unlock_bh(&conn->lock);
	if (!orphan) {
		smc_conn_destroy(smc);
		return false;
	}
	sock_hold(sk);		/* the orphan's, dropped by close_work */
	return true;
}

/* smc_release() is done with the socket: close_work owns it now. */
void smc_close_orphan(struct smc_sock *smc)
{
	struct smc_conn *conn = &smc->conn;
	unsigned long wait;

	spin_lock_bh(&conn->lock);
	conn->orphan = true;
	wait = READ_ONCE(sock_net(&smc->sk)->ipv4.sysctl_tcp_fin_timeout);
	conn->orphan_until = jiffies + wait;
	/* The peer may have closed since smc_close_release() looked. */
	if (smc->sk.sk_state == SMC_CLOSED || conn->rx_after_close)
		wait = 0;
	wait = min_t(unsigned long, wait, SMC_CLOSE_PROBE);
	queue_delayed_work(smc_close_wq, &conn->close_work, wait);
	spin_unlock_bh(&conn->lock);
}

/* The end of an orphan: everything it held goes. Process context. */
static void smc_close_free(struct smc_sock *smc)
{
	struct smc_conn *conn = &smc->conn;

	smc_sock_list_del(&smc->sk);
	/* No smc_cdc_rx() runs for us after this ... */
	smc_conn_destroy(smc);
	/* ... so none can queue us again: drop a kick it left behind. */
	spin_lock_bh(&conn->lock);
	conn->orphan = false;
	spin_unlock_bh(&conn->lock);
	cancel_delayed_work(&conn->close_work);
	smc_clcsock_release(smc);
	sock_put(&smc->sk);	/* the orphan's */
}

static void smc_close_work(struct work_struct *work)
{
	struct smc_conn *conn = container_of(to_delayed_work(work),
					     struct smc_conn, close_work);
	struct smc_sock *smc = container_of(conn, struct smc_sock, conn);
	bool expired, tell = false;
	unsigned long left = 0;
	int state;

	spin_lock_bh(&conn->lock);
	expired = time_after_eq(jiffies, conn->orphan_until);
	/*
	 * A reset dropped what our send buffer held: the peer may wait (in
	 * PEERABORTWAIT) for the closed flag that waited for those bytes.
	 */
	if (conn->fin_held && conn->peer_abort)
		tell = true;
	if (smc->sk.sk_state != SMC_CLOSED) {
		if (conn->rx_after_close && !conn->aborted)
			tell = smc_close_abort(smc);
		else if (!expired)
			tell = true;	/* the probe: see SMC_CLOSE_PROBE */
		/*
		 * After the time is up we wait for nobody, and go silently
		 * as TCP's FIN_WAIT2 orphan does: the peer learns at its next
		 * CDC, which finds our DMB gone (a reset, as TCP's next
		 * segment meets a RST).
		 */
		if (expired)
			smc_close_set(smc, SMC_CLOSED);
	}
	spin_unlock_bh(&conn->lock);
	if (tell)
		smc_cdc_send(smc);
	spin_lock_bh(&conn->lock);
	state = smc->sk.sk_state;
	if (state != SMC_CLOSED) {
		if (time_before(jiffies, conn->orphan_until))
			left = min_t(unsigned long, conn->orphan_until - jiffies,
				     SMC_CLOSE_PROBE);
		queue_delayed_work(smc_close_wq, &conn->close_work, left);
	}
	spin_unlock_bh(&conn->lock);
	if (state == SMC_CLOSED)
		smc_close_free(smc);
}

void smc_close_abort_child(struct smc_sock *smc)
{
	struct smc_conn *conn = &smc->conn;
	bool tell;

	if (smc_use_fallback(smc) || !conn->ops)
		return;
	spin_lock_bh(&conn->lock);
	conn->released = true;
	tell = smc_close_abort(smc);
	smc_close_set(smc, SMC_CLOSED);
	spin_unlock_bh(&conn->lock);
	if (tell)
		smc_cdc_send(smc);
	smc_conn_destroy(smc);
}
