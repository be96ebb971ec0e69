// SPDX-License-Identifier: GPL-2.0
/*
 * af_smc: sending on an SMC connection, and the send buffer.
 *
 * Where the bytes of a sendmsg go:
 *  - straight into the peer's ring ("nocopy"), when the transport lets us
 *    map it (SMC-D on the loopback device), nothing waits in the send
 *    buffer, the socket is not corked and the ring has room;
 *  - otherwise into our send buffer, from which smc_tx_push() moves them
 *    into the peer's ring (ops->write) as far as it has room, each move
 *    followed by a CDC message.
 * So data in flight is the peer's ring plus our send buffer, as TCP's is
 * its send queue plus the peer's receive queue: a program that writes
 * more than the peer's ring holds before it reads goes on as over TCP.
 * The send buffer is allocated the first time a byte has to wait, since
 * most nocopy connections never need one.
 *
 * Pushes happen in sendmsg, when a cork ends (setsockopt, or TCP_CORK's
 * 200 ms ceiling), and in tx_work when a CDC from the peer freed room
 * while bytes wait, or when the last of our CDCs in flight arrived while
 * bytes were held back for it (autocorking, smc_tx_autocork()).
 * Shutdown and close do not wait for the buffer: the
 * done-writing and closed flags ride on the CDC of the push that empties
 * it (smc_cdc.c), and a closed socket lives on as an orphan while its
 * peer is open (smc_close.c), so its buffered bytes still go.
 *
 * Locking: sendmsg holds the socket lock, so calls on one socket run one
 * at a time, as TCP's do, and it waits on the socket's queue, which
 * smc_cdc_rx_msg() and pushes wake. Everything that writes into the
 * peer's ring, and the teardown of the rings and the send buffer, holds
 * conn->tx_mutex (after the socket lock, before cdc_mutex); conn->lock
 * (bh) guards the cursors. tx_work holds a socket reference while it is
 * queued, and runs on smc_tx_wq, which module exit drains.
 *
 * Errors follow tcp_sendmsg(): a pending error (the peer's reset) is
 * returned and cleared, writing after shutdown(SHUT_WR) or after the
 * connection ended gives EPIPE and SIGPIPE; once some bytes went, the
 * call returns their count and leaves the error for the next one.
 *
 * MSG_OOB: the last byte of the call is urgent, as on TCP. The CDC that
 * makes it visible to the peer has urg_data_present (and
 * urg_data_pending) set, so the receiver marks the byte just before the
 * producer cursor; a push stops at that byte to send that CDC.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/net.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/tcp.h>
#include <linux/uio.h>
#include <net/sock.h>
#include <net/tcp.h>

#include "smc.h"
#include "smc_conn.h"
#include "smc_mem.h"
#include "smc_netns.h"
#include "smc_stats.h"

/* TCP_CORK's documented ceiling: corked bytes wait at most 200 ms. */
#define SMC_TX_CORK_LIMIT	(HZ / 5)

static void smc_tx_work(struct work_struct *work);

void smc_tx_init(struct smc_conn *conn)
{
	mutex_init(&conn->tx_mutex);
	INIT_DELAYED_WORK(&conn->tx_work, smc_tx_work);
}

u32 smc_tx_sndbuf_size_for(const struct sock *sk, u8 max_class)
{
	u32 want;

	/* The core stores twice the user's SO_SNDBUF, as for SO_RCVBUF. */
	if (sk->sk_userlocks & SOCK_SNDBUF_LOCK)	/* a bit-field */
		want = READ_ONCE(sk->sk_sndbuf) / 2;
	else
		want = READ_ONCE(smc_net(sock_net(sk))->sysctl_wmem);
	return SMC_BUF_MIN_SIZE << smc_buf_class(want, max_class);
}

static bool smc_tx_stopped(const struct sock *sk)
{
	return READ_ONCE(sk->sk_err) ||
	       (READ_ONCE(sk->sk_shutdown) & SEND_SHUTDOWN);
}

/*
 * TCP_CORK, which the clcsock keeps. A bit-field written under the
 * clcsock's lock, which we do not take: a racing setsockopt is seen by
 * the next call, and its own uncork pushes (smc_sockopt.c).
 */
bool smc_tx_cork_set(const struct smc_sock *smc)
{
	/* A racing setsockopt is seen by the next call (above). */
	return data_race(tcp_sk(smc->clcsock->sk)->nonagle) & TCP_NAGLE_CORK;
}

/* Corked: TCP_CORK on the socket, or MSG_MORE on the call. */
static bool smc_tx_corked(const struct smc_sock *smc, int flags)
{
	return (flags & MSG_MORE) || smc_tx_cork_set(smc);
}

/* Queue tx_work after delay; sooner: also pull a later one forward. */
static void smc_tx_schedule(struct smc_sock *smc, unsigned long delay,
			    bool sooner)
{
	struct smc_conn *conn = &smc->conn;
	bool was_queued;

	sock_hold(&smc->sk);	/* the queued work's; never the last here */
	if (sooner)
		was_queued = mod_delayed_work(smc_tx_wq, &conn->tx_work, delay);
	else
		was_queued = !queue_delayed_work(smc_tx_wq, &conn->tx_work,
						 delay);
	if (was_queued)
		sock_put(&smc->sk);	/* the queued one holds its own */
}

void smc_tx_kick(struct smc_sock *smc)
{
	smc_tx_schedule(smc, 0, true);
}

static void smc_tx_work(struct work_struct *work)
{
	struct smc_conn *conn = container_of(to_delayed_work(work),
					     struct smc_conn, tx_work);
	struct smc_sock *smc = container_of(conn, struct smc_sock, conn);

	smc_tx_push(smc);
	sock_put(&smc->sk);
}

/* Whether bytes may still go to the peer. Conn lock held. */
static bool smc_tx_broken(const struct smc_conn *conn)
{
	return conn->aborted || conn->peer_abort || conn->peer_gone;
}

/*
 * The peer offered a bigger ring (smc_cdc_rx_msg()): once nothing waits
 * in its old one, write into the new one from here on. The move happens
 * between two writes, with the old ring empty, so every byte is in one
 * ring only and the reader, having read all of the old one, finds the
 * next byte at the start of the new one (its base: tx_prod now). The CDC
 * after it tells the reader that we moved: over SMC-D it goes into the
 * new DMB; over SMC-R its prod_gen names the new ring.
 * tx_mutex held. 0, or -errno: the connection is broken.
 */
static int smc_tx_move_ring(struct smc_sock *smc)
{
	struct smc_conn *conn = &smc->conn;
	bool moved = false;
	u64 token;
	u32 key;
	u8 class;
	u8 *ring;
	u32 size;
	int rc;

	spin_lock_bh(&conn->lock);
	token = conn->peer_offer_token;
	key = conn->peer_offer_key;
	class = conn->peer_offer_class;
	if (!token || conn->tx_prod != conn->tx_cons || smc_tx_broken(conn) ||
	    conn->tx_dead)
		token = 0;
	spin_unlock_bh(&conn->lock);
	if (!token)
		return 0;
	/*
	 * The CDCs of our reads go out meanwhile (smc_cdc_send()): none may
	 * count our producer cursor in the old ring and land in the new
	 * one, which the reader would take for the move itself and read
	 * with the new ring's size. So the new DMB and the new cursors,
	 * under the one cdc_mutex.
	 */
	mutex_lock(&conn->cdc_mutex);
	rc = conn->ops->switch_tx(conn, token, key, class, &ring, &size);
	if (rc == -EAGAIN) {
		/* Declined: we stay, and take the same offer for no new one. */
		spin_lock_bh(&conn->lock);
		conn->peer_ring_token = token;
		conn->peer_offer_token = 0;
		spin_unlock_bh(&conn->lock);
		rc = 0;
	} else if (!rc) {
		moved = true;
		spin_lock_bh(&conn->lock);
		conn->peer_ring = ring;
		conn->peer_size = size;
		conn->tx_base = conn->tx_prod;
		conn->peer_gen++;
		conn->peer_cons = (struct smc_cdc_cursor){};
		conn->peer_ring_token = token;
		conn->peer_offer_token = 0;
		spin_unlock_bh(&conn->lock);
	}
	mutex_unlock(&conn->cdc_mutex);
	if (rc)
		return rc;
	if (moved)
		smc_cdc_send(smc);
	return 0;
}

void smc_tx_push(struct smc_sock *smc)
{
	struct smc_conn *conn = &smc->conn;
	bool moved = false;
	int rc = 0;

	mutex_lock(&conn->tx_mutex);
	while (!conn->tx_dead && conn->sndbuf) {
		u32 n, queued, space;
		bool peer_full;
		u64 from, to;

		rc = smc_tx_move_ring(smc);
		if (rc)
			goto out;
		spin_lock_bh(&conn->lock);
		from = conn->tx_prod;
		queued = smc_tx_queued(conn);
		space = smc_tx_ring_space(conn);
		n = smc_tx_broken(conn) ? 0 : min(queued, space);
		/* Bytes wait and the peer's ring has no room for them. */
		peer_full = !smc_tx_broken(conn) && queued && !space;
		/* Stop after an urgent byte: its CDC must carry the mark. */
		if (conn->urg_tx_end > from)
			n = min_t(u64, n, conn->urg_tx_end - from);
		spin_unlock_bh(&conn->lock);
		if (!n) {
			if (peer_full)
				smc_stats_peer_buf_full(smc);
			break;
		}
		/* Neither range may wrap: at most three pieces. */
		for (to = from + n; from < to; ) {
			u32 soff = (u32)(from % conn->sndbuf_size);
			u32 roff = (u32)((from - conn->tx_base) % conn->peer_size);
			u32 chunk = min3((u32)(to - from),
					 conn->sndbuf_size - soff,
					 conn->peer_size - roff);

			rc = conn->ops->write(conn, from, roff, soff, chunk);
			if (rc)
				goto out;
			from += chunk;
		}
		spin_lock_bh(&conn->lock);
		conn->tx_prod = to;
		if (conn->urg_tx_end && conn->urg_tx_end == to) {
			conn->urg_tx = true;
			conn->urg_tx_end = 0;
		}
		spin_unlock_bh(&conn->lock);
		moved = true;
		smc_cdc_send(smc);
	}
out:
	mutex_unlock(&conn->tx_mutex);
	if (rc)
		smc_close_peer_gone(smc);	/* the transport broke */
	if (moved)
		smc->sk.sk_write_space(&smc->sk);	/* room in the buffer */
}

void smc_tx_uncork(struct smc_sock *smc)
{
	struct smc_conn *conn = &smc->conn;
	bool queued;

	spin_lock_bh(&conn->lock);
	queued = conn->ops && smc_tx_queued(conn);
	spin_unlock_bh(&conn->lock);
	if (queued)
		smc_tx_push(smc);
}

bool smc_tx_up(struct smc_sock *smc)
{
	/*
	 * Without a lock: a setsockopt racing the connection's start or
	 * end is counted or not, and nothing else depends on the answer.
	 */
	return READ_ONCE(smc->conn.ops);
}

void smc_tx_destroy(struct smc_sock *smc)
{
	struct smc_conn *conn = &smc->conn;

	mutex_lock(&conn->tx_mutex);
	conn->tx_dead = true;
	if (conn->sndbuf_ours) {
		kvfree(conn->sndbuf);
		conn->sndbuf = NULL;
		conn->sndbuf_ours = false;
	}
	mutex_unlock(&conn->tx_mutex);
	/* A cork's timer need not keep the socket; a running push ends. */
	if (cancel_delayed_work(&conn->tx_work))
		sock_put(&smc->sk);	/* never the last: the caller has one */
}

/* The send buffer, allocated the first time it is needed. */
static int smc_tx_sndbuf_get(struct smc_conn *conn)
{
	struct mem_cgroup *old;
	u8 *buf;

	if (conn->sndbuf)
		return 0;
	/* The sock's memcg pays, whichever task sends (smc_mem.h). */
	old = smc_mem_enter(conn);
	buf = kvmalloc(conn->sndbuf_size, SMC_MEM_GFP);
	smc_mem_leave(old);
	if (!buf)
		return -ENOMEM;
	mutex_lock(&conn->tx_mutex);
	if (conn->tx_dead) {
		mutex_unlock(&conn->tx_mutex);
		kvfree(buf);
		return -EPIPE;
	}
	conn->sndbuf = buf;
	conn->sndbuf_ours = true;
	mutex_unlock(&conn->tx_mutex);
	return 0;
}

/*
 * The bytes up to byte number end are about to be written into the send
 * buffer, where the bytes a send buffer's length before them were: the
 * transport must have finished reading those (SMC-R: their RDMA WRITEs
 * completed). Usually they have long since; else this waits, bounded.
 * 0 (the connection may have been reset meanwhile: smc_tx_stopped()), or
 * -EPIPE after the teardown.
 */
static int smc_tx_settle(struct smc_sock *smc, u64 end)
{
	struct smc_conn *conn = &smc->conn;
	int rc;

	if (!conn->ops || !conn->ops->settle || end <= conn->sndbuf_size)
		return 0;
	mutex_lock(&conn->tx_mutex);
	rc = conn->tx_dead ? -EPIPE :
	     conn->ops->settle(conn, end - conn->sndbuf_size);
	mutex_unlock(&conn->tx_mutex);
	if (rc && rc != -EPIPE) {
		/* As a failed push: the reset stops sendmsg, which reports it. */
		smc_close_peer_gone(smc);
		rc = 0;
	}
	return rc;
}

/*
 * Autocorking, as Linux does it: while a CDC of ours is still on its way
 * (SMC-R: its SEND not completed), bytes that would be queued (queued in
 * all) wait in the send buffer for more to join them, and go when that
 * CDC has arrived (the transport kicks tx_work). A stream of small writes
 * then costs one WRITE and one CDC per round trip instead of one per
 * write, and a lone write, which finds no CDC in flight, waits for
 * nothing. Up to net.smc.autocorking_size bytes and half the send buffer;
 * 0 turns it off. Urgent data is never held (the caller).
 */
static bool smc_tx_autocork(struct smc_sock *smc, u32 queued)
{
	struct smc_conn *conn = &smc->conn;
	u32 limit = READ_ONCE(smc_net(sock_net(&smc->sk))->sysctl_autocorking_size);
	bool hold;

	limit = min(limit, conn->sndbuf_size / 2);
	if (!queued || queued > limit)
		return false;
	/* The transport stays while tx_dead is not set (smc_conn_destroy()). */
	mutex_lock(&conn->tx_mutex);
	hold = !conn->tx_dead && conn->ops->cdc_in_flight &&
	       conn->ops->cdc_in_flight(conn);
	mutex_unlock(&conn->tx_mutex);
	return hold;
}

/* Copy n bytes of msg into ring (size bytes) at byte number pos. */
static int smc_tx_copy_in(u8 *ring, u32 size, u64 pos, u32 n,
			  struct msghdr *msg)
{
	u32 off = (u32)(pos % size);
	u32 chunk = min(n, size - off);

	if (copy_from_iter(ring + off, chunk, &msg->msg_iter) != chunk ||
	    (n > chunk &&
	     copy_from_iter(ring, n - chunk, &msg->msg_iter) != n - chunk))
		return -EFAULT;
	return 0;
}

/*
 * One step of sendmsg: put up to want bytes somewhere; urgent: the last
 * of them is urgent, and the CDC that makes it visible must say so.
 * Returns the bytes taken, 0 when nothing can be taken now (the caller
 * waits), or -errno.
 */
static long smc_tx_take(struct smc_sock *smc, struct msghdr *msg,
			size_t want, bool corked, bool urgent)
{
	struct smc_conn *conn = &smc->conn;
	u32 queued, ring_space, room, n;
	u64 pos;
	int rc;

again:
	if (READ_ONCE(conn->peer_offer_token)) {
		mutex_lock(&conn->tx_mutex);
		rc = smc_tx_move_ring(smc);
		mutex_unlock(&conn->tx_mutex);
		if (rc) {
			smc_close_peer_gone(smc);
			return 0;	/* sendmsg's loop reports the reset */
		}
	}
	spin_lock_bh(&conn->lock);
	queued = smc_tx_queued(conn);
	ring_space = smc_tx_ring_space(conn);
	pos = conn->tx_wrote;
	spin_unlock_bh(&conn->lock);

	/* Without a send buffer a cork has nowhere to hold the bytes. */
	if (conn->peer_ring && !queued && (!corked || conn->tx_nobuf) &&
	    ring_space) {
		n = min_t(size_t, ring_space, want);
		mutex_lock(&conn->tx_mutex);
		/* The ring cannot move under us: that takes tx_mutex too. */
		rc = conn->tx_dead ? -EPIPE :
		     smc_tx_copy_in(conn->peer_ring, conn->peer_size,
				    pos - conn->tx_base, n, msg);
		if (!rc) {
			spin_lock_bh(&conn->lock);
			conn->tx_wrote += n;
			conn->tx_prod += n;
			if (urgent && n == want)
				conn->urg_tx = true;
			spin_unlock_bh(&conn->lock);
			smc_cdc_send(smc);
		}
		mutex_unlock(&conn->tx_mutex);
		return rc ?: n;
	}
	if (conn->tx_nobuf) {
		smc_stats_peer_buf_full(smc);
		return 0;	/* until the peer's ring has room */
	}
	/* Order: what waits goes first, and nocopy only behind it. */
	if (queued && ring_space && !corked && !smc_tx_autocork(smc, queued))
		smc_tx_push(smc);
	room = conn->sndbuf_size - queued;
	if (!room) {
		smc_stats_buf_full(smc);
		/* A full buffer goes out corked or not, as TCP's full segments. */
		if (corked && ring_space)
			smc_tx_push(smc);
		return 0;
	}
	rc = smc_tx_sndbuf_get(conn);
	if (rc == -ENOMEM && conn->peer_ring) {
		/*
		 * The memcg cannot take the buffer now. TCP would wait for
		 * memory; this connection needs none to go on: from now on
		 * every byte goes straight into the peer's ring (the caller
		 * waits for room there, smc_tx_has_room()).
		 */
		spin_lock_bh(&conn->lock);
		conn->tx_nobuf = true;
		spin_unlock_bh(&conn->lock);
		/* Corked, the ring may have room now (once: tx_nobuf is set). */
		goto again;
	}
	if (rc)
		return rc;
	n = min_t(size_t, room, want);
	rc = smc_tx_settle(smc, pos + n);
	if (rc || smc_tx_stopped(&smc->sk))
		return rc;
	/* Only this call writes at tx_wrote; pushes read below it. */
	rc = smc_tx_copy_in(conn->sndbuf, conn->sndbuf_size, pos, n, msg);
	if (rc)
		return rc;
	spin_lock_bh(&conn->lock);
	conn->tx_wrote += n;
	if (urgent && n == want)
		conn->urg_tx_end = conn->tx_wrote;
	queued = smc_tx_queued(conn);
	spin_unlock_bh(&conn->lock);
	if (!corked && (urgent || !smc_tx_autocork(smc, queued)))
		smc_tx_push(smc);
	return n;
}

/*
 * Whether a write can take bytes now (lock held): the send buffer has
 * room, or, for a connection without one (tx_nobuf), the peer's ring.
 */
bool smc_tx_has_room(const struct smc_conn *conn)
{
	if (conn->tx_nobuf)
		return smc_tx_ring_space(conn);
	return smc_tx_queued(conn) < conn->sndbuf_size;
}

/*
 * Whether a sendmsg waiting for room can go on: it can write
 * (smc_tx_has_room()), or the peer's ring has room, so that it can push
 * (it does that itself while it waits: smc_cdc_rx_msg() leaves tx_work
 * out then, which saves a second wakeup per ring).
 */
static bool smc_tx_writable(struct smc_sock *smc)
{
	struct smc_conn *conn = &smc->conn;
	bool writable;

	if (smc_tx_stopped(&smc->sk))
		return true;
	spin_lock_bh(&conn->lock);
	writable = smc_tx_has_room(conn) || smc_tx_ring_space(conn);
	spin_unlock_bh(&conn->lock);
	return writable;
}

/* Wait (socket lock held) until smc_tx_writable() or *timeo is up. */
static void smc_tx_wait(struct smc_sock *smc, long *timeo)
{
	DEFINE_WAIT_FUNC(wait, woken_wake_function);
	struct smc_conn *conn = &smc->conn;
	struct sock *sk = &smc->sk;

	spin_lock_bh(&conn->lock);
	conn->tx_waiting = true;
	spin_unlock_bh(&conn->lock);
	add_wait_queue(sk_sleep(sk), &wait);
	sk_wait_event(sk, timeo, smc_tx_writable(smc), &wait);
	remove_wait_queue(sk_sleep(sk), &wait);
	spin_lock_bh(&conn->lock);
	conn->tx_waiting = false;
	spin_unlock_bh(&conn->lock);
	/* Room came while we were leaving: nobody else pushes it. */
	if (smc_tx_queued(conn) && smc_tx_ring_space(conn))
		smc_tx_kick(smc);
}

int smc_tx_sendmsg(struct smc_sock *smc, struct msghdr *msg, size_t len)
{
	struct smc_conn *conn = &smc->conn;
	bool oob = msg->msg_flags & MSG_OOB;
	struct sock *sk = &smc->sk;
	size_t copied = 0;
	bool corked;
	long timeo;
	int rc = 0;

	lock_sock(sk);
	timeo = sock_sndtimeo(sk, msg->msg_flags & MSG_DONTWAIT);
	/* Urgent data goes out now, as TCP pushes it. */
	corked = !oob && smc_tx_corked(smc, msg->msg_flags);
	for (;;) {
		long n;

		if (smc_tx_stopped(sk)) {
			/* A reset's error is set before its shutdown bits. */
			smp_rmb();	/* pairs with smc_close_reset() */
			if (!copied)
				rc = sock_error(sk) ?: -EPIPE;
			break;
		}
		if (copied == len)
			break;
		n = smc_tx_take(smc, msg, len - copied, corked, oob);
		if (n < 0) {
			rc = n;
			break;
		}
		if (!n) {
			/* Reset meanwhile: the top of the loop says so. */
			if (smc_tx_stopped(sk))
				continue;
			rc = smc_wait_check(timeo);
			if (rc)
				break;
			smc_tx_wait(smc, &timeo);
			continue;
		}
		copied += n;
	}
	if (oob && copied && copied < len) {
		/*
		 * Cut short: TCP marks the last byte it took. If that one is
		 * in the peer's ring already, the next CDC marks it; else the
		 * push that moves it.
		 */
		bool now;

		spin_lock_bh(&conn->lock);
		now = conn->tx_prod == conn->tx_wrote;
		if (now)
			conn->urg_tx = true;
		else
			conn->urg_tx_end = conn->tx_wrote;
		spin_unlock_bh(&conn->lock);
		if (now)
			smc_cdc_send(smc);
		else
			smc_tx_push(smc);
	}
	if (corked && copied)
		smc_tx_schedule(smc, SMC_TX_CORK_LIMIT, false);
	release_sock(sk);
	if (copied)
		return copied;
	if (rc == -EPIPE && !(msg->msg_flags & MSG_NOSIGNAL))
		send_sig(SIGPIPE, current, 0);
	return rc;
}
