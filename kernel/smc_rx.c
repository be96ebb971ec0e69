// SPDX-License-Identifier: GPL-2.0
/*
 * af_smc: receiving on an SMC connection, urgent data included.
 *
 * recvmsg copies out of our ring and tells the peer how far it may write
 * now. It holds the socket lock and waits on the socket's queue, which
 * smc_cdc_rx() wakes. The order of its checks is tcp_recvmsg()'s, so the
 * answers after every kind of close are TCP's: data first, then 0 once
 * the peer finished writing (even after a later reset), then a pending
 * error, then 0 after a reset or shutdown(SHUT_RD).
 *
 * Urgent data, as Linux TCP does it: the peer's CDC with urg_data_present
 * marks the byte just before its producer cursor. Until a reader passes
 * that mark it is "pending": poll reports EPOLLPRI while the byte is
 * unread, SIOCATMARK is true when the next byte to read is the mark,
 * SIOCINQ counts only the bytes before it, and a read stops at the mark
 * (it returns what came before; the next read starts there). Without
 * SO_OOBINLINE the byte is taken out of the stream: recv(MSG_OOB) returns
 * it, and a plain read steps over it. With SO_OOBINLINE it stays in the
 * stream and recv(MSG_OOB) fails with EINVAL. A new mark replaces an old
 * one (only the last one counts, as with TCP's single urgent pointer).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/net.h>
#include <linux/pipe_fs_i.h>
#include <linux/sched/signal.h>
#include <linux/uio.h>
#include <net/sock.h>

#include "smc.h"
#include "smc_conn.h"
#include "smc_mem.h"
#include "smc_netns.h"
#include "smc_stats.h"

/*
 * The receive ring's size for a socket, for both transports (SMC-D's DMB,
 * SMC-R's RMB; Documentation/smc-d.md, "Sizing"): what the user asked
 * for with SO_RCVBUF (the core stores twice the value, TCP's share for
 * overhead, which our buffers do not need), else the namespace's
 * net.smc.rmem; rounded up to 16 KiB << n, n at most the transport's
 * max_class (SMC-D 1 MiB, SMC-R 512 MiB; smc_conn.h). SMC-D's
 * 32-byte CDC header comes out of it, as in Linux.
 */
u32 smc_rx_rmb_size_for(const struct sock *sk, u8 max_class)
{
	u32 want;

	if (sk->sk_userlocks & SOCK_RCVBUF_LOCK)	/* a bit-field */
		want = READ_ONCE(sk->sk_rcvbuf) / 2;
	else
		want = READ_ONCE(smc_net(sock_net(sk))->sysctl_rmem);
	return SMC_BUF_MIN_SIZE << smc_buf_class(want, max_class);
}

/*
 * Rings grow unless net.ipv4.tcp_moderate_rcvbuf is 0 or the user set
 * SO_RCVBUF, as TCP's receive buffer does; to at most half of
 * net.ipv4.tcp_rmem's maximum (the other half is TCP's overhead, as
 * SO_RCVBUF's), and SMC_GROW_MAX_CLASS.
 */
static u8 smc_rx_grow_ceiling(const struct sock *sk)
{
	const struct net *net = sock_net(sk);

	if ((sk->sk_userlocks & SOCK_RCVBUF_LOCK) ||
	    !READ_ONCE(net->ipv4.sysctl_tcp_moderate_rcvbuf))
		return 0;
	return smc_buf_class_floor(READ_ONCE(net->ipv4.sysctl_tcp_rmem[2]) / 2,
				   SMC_GROW_MAX_CLASS);
}

static void smc_rx_grow_stop(struct smc_conn *conn)
{
	spin_lock_bh(&conn->lock);
	conn->rx_grow_off = true;
	spin_unlock_bh(&conn->lock);
}

bool smc_rx_grow_due(struct smc_conn *conn)
{
	bool due = conn->rx_drains >= SMC_GROW_AFTER && !conn->rx_grow_off &&
		   !conn->rx_offer_token && !smc_close_ended(conn);

	conn->rx_ring_left = false;
	conn->rx_drains = 0;
	return due;
}

void smc_rx_ring_gone(struct smc_sock *smc, u32 old_len, u32 len)
{
	smc_mem_unreserve_bytes(smc, old_len);
	smc_stats_rx_resized(smc, len);
}

u8 smc_rx_grow_to(struct smc_sock *smc, u8 now, u8 max_class)
{
	u8 ceiling = min(smc_rx_grow_ceiling(&smc->sk), max_class), class;

	if (now >= ceiling)
		goto off;
	class = min_t(u8, now + SMC_GROW_STEP, ceiling);
	if (!smc_mem_reserve(smc, SMC_BUF_MIN_SIZE << class))
		return class;
off:
	smc_rx_grow_stop(&smc->conn);
	return 0;
}

void smc_rx_grow_failed(struct smc_sock *smc, u8 class)
{
	smc_mem_unreserve_bytes(smc, SMC_BUF_MIN_SIZE << class);
	smc_rx_grow_stop(&smc->conn);
}

void smc_rx_grow_offer(struct smc_sock *smc, u64 token, u32 key, u8 class)
{
	struct smc_conn *conn = &smc->conn;

	spin_lock_bh(&conn->lock);
	conn->rx_offer_token = token;
	conn->rx_offer_key = key;
	conn->rx_offer_class = class;
	spin_unlock_bh(&conn->lock);
	smc_cdc_send(smc);	/* the offer; every CDC repeats it */
}

static const u8 *smc_rx_ring(const struct smc_conn *conn)
{
	return conn->rx_ring;
}

/* A mark at or after byte number pos that a reader has not passed. */
static bool smc_rx_mark_ahead(const struct smc_conn *conn, u64 pos)
{
	return conn->urg_state != SMC_URG_NONE && conn->urg_pos >= pos &&
	       conn->urg_pos < conn->rx_prod;
}

u32 smc_rx_inq(struct smc_sock *smc)
{
	struct smc_conn *conn = &smc->conn;

	if (!sock_flag(&smc->sk, SOCK_URGINLINE) &&
	    smc_rx_mark_ahead(conn, conn->rx_cons))
		return (u32)(conn->urg_pos - conn->rx_cons);
	return (u32)(conn->rx_prod - conn->rx_cons);
}

bool smc_rx_urgent(struct smc_sock *smc, const struct smc_cdc_msg *m)
{
	struct smc_conn *conn = &smc->conn;
	u64 pos;

	if (!m->urg_data_present || conn->rx_prod == conn->rx_cons)
		return false;
	pos = conn->rx_prod - 1;
	if (conn->urg_state != SMC_URG_NONE && conn->urg_pos == pos)
		return false;	/* the same mark again */
	if (pos < conn->rx_base)
		return false;	/* in a ring we left: that CDC came before */
	conn->urg_pos = pos;
	conn->urg_byte = smc_rx_ring(conn)[(pos - conn->rx_base) % conn->rmb_size];
	conn->urg_state = SMC_URG_VALID;
	return true;
}

/*
 * Whether a read that moved rx_cons tells the peer at once: when the peer
 * waits for room (its write_blocked), or once rx_update_limit bytes were
 * read since our last CDC (see struct smc_conn), or while we offer a
 * bigger ring: the writer then waits for the old one to be empty, and
 * may have said it did not wait before the offer reached it.
 * Conn lock held.
 */
static bool smc_rx_update_due(const struct smc_conn *conn)
{
	return conn->peer_blocked || conn->rx_offer_token ||
	       conn->rx_cons - conn->rx_cons_sent >= conn->rx_update_limit;
}

/*
 * Rings that grow: a ring's worth read within SMC_GROW_WITHIN of the
 * last count, the writer having filled the ring meanwhile, counts one
 * (see SMC_GROW_AFTER). A reader that reads slowly never reads a ring's
 * worth in time, and its ring stays. Lock held.
 */
static void smc_rx_grow_count(struct smc_conn *conn)
{
	if (conn->rx_cons - conn->rx_grow_mark < conn->rmb_size)
		return;
	if (conn->rx_was_full && !conn->rx_grow_off && !conn->rx_offer_token &&
	    time_before(jiffies, conn->rx_grow_since + SMC_GROW_WITHIN))
		conn->rx_drains++;
	conn->rx_was_full = false;
	conn->rx_grow_mark = conn->rx_cons;
	conn->rx_grow_since = jiffies;
}

/* The reader moved to rx_cons: a mark behind it is gone. Lock held. */
static void smc_rx_passed(struct smc_conn *conn)
{
	if (conn->urg_state != SMC_URG_NONE && conn->rx_cons > conn->urg_pos)
		conn->urg_state = SMC_URG_NONE;
}

/* recv(MSG_OOB): tcp_recv_urg()'s answers. */
static int smc_rx_recv_urg(struct smc_sock *smc, struct msghdr *msg,
			   size_t len, int flags)
{
	struct smc_conn *conn = &smc->conn;
	struct sock *sk = &smc->sk;
	u8 c = 0;
	int rc;

	lock_sock(sk);
	spin_lock_bh(&conn->lock);
	if (sock_flag(sk, SOCK_URGINLINE) || conn->urg_state != SMC_URG_VALID) {
		rc = -EINVAL;	/* "no urgent data", as TCP says it */
	} else if (smc_close_ended(conn) && !conn->peer_done_writing) {
		rc = -ENOTCONN;	/* reset before the peer finished */
	} else {
		c = conn->urg_byte;
		if (!(flags & MSG_PEEK))
			conn->urg_state = SMC_URG_READ;
		rc = len ? 1 : 0;
	}
	spin_unlock_bh(&conn->lock);
	if (rc >= 0) {
		msg->msg_flags |= MSG_OOB;
		if (!len)
			msg->msg_flags |= MSG_TRUNC;
		else if (!(flags & MSG_TRUNC) && memcpy_to_msg(msg, &c, 1))
			rc = -EFAULT;
	}
	release_sock(sk);
	return rc;
}

/* Whether a blocked reader has something to look at. */
static bool smc_rx_wake(struct smc_sock *smc, u64 next)
{
	struct smc_conn *conn = &smc->conn;
	struct sock *sk = &smc->sk;

	return READ_ONCE(conn->rx_prod) > next ||
	       READ_ONCE(conn->peer_done_writing) || READ_ONCE(sk->sk_err) ||
	       (READ_ONCE(sk->sk_shutdown) & RCV_SHUTDOWN);
}

/* What a read that found nothing does next: smc_rx_idle(). */
enum { SMC_RX_WAIT, SMC_RX_AGAIN, SMC_RX_EOF };

/*
 * A read with nothing copied found no byte at next. Decided under
 * conn->lock, where the CDC handler moves rx_prod and the close state
 * machine sets peer_done_writing, sk_err and sk_shutdown, each in one
 * step: read locklessly, a reset seen half applied was an EOF instead of
 * ECONNRESET, and bytes that came with the peer's FIN an EOF before them.
 * Returns SMC_RX_AGAIN (bytes came meanwhile), SMC_RX_EOF, the socket's
 * error (negative, consumed as TCP's recv consumes it) or SMC_RX_WAIT.
 */
static int smc_rx_idle(struct smc_sock *smc, u64 next)
{
	struct smc_conn *conn = &smc->conn;
	struct sock *sk = &smc->sk;
	int rc = SMC_RX_WAIT;

	spin_lock_bh(&conn->lock);
	if (conn->rx_prod > next)
		rc = SMC_RX_AGAIN;
	else if (conn->peer_done_writing)	/* TCP's SOCK_DONE */
		rc = SMC_RX_EOF;
	else if (sk->sk_err)
		rc = sock_error(sk);
	else if (sk->sk_shutdown & RCV_SHUTDOWN)
		rc = SMC_RX_EOF;
	spin_unlock_bh(&conn->lock);
	return rc;
}

int smc_rx_recvmsg(struct smc_sock *smc, struct msghdr *msg, size_t len,
		   int flags)
{
	struct smc_conn *conn = &smc->conn;
	bool peek = flags & MSG_PEEK;
	struct sock *sk = &smc->sk;
	size_t copied = 0;
	u64 peeked = 0;		/* MSG_PEEK: how far beyond rx_cons we looked */
	int target, rc = 0;
	long timeo;

	if (flags & MSG_OOB)
		return smc_rx_recv_urg(smc, msg, len, flags);
	/* Nothing ever queues an error on an SMC socket: TCP's "empty". */
	if (flags & MSG_ERRQUEUE)
		return -EAGAIN;
	lock_sock(sk);
	timeo = sock_rcvtimeo(sk, flags & MSG_DONTWAIT);
	target = sock_rcvlowat(sk, flags & MSG_WAITALL, len);
	while (copied < len) {
		bool inline_urg = sock_flag(sk, SOCK_URGINLINE);
		bool at_mark_stop = false, cons_moved = false, update;
		u32 pos, chunk, n, size;
		u64 next, avail, base;
		const u8 *ring;

		spin_lock_bh(&conn->lock);
		next = conn->rx_cons + peeked;
		avail = conn->rx_prod - next;
		/*
		 * The ring moves only when empty (smc_tx_move_ring()): what
		 * avail counts is in this one, whatever comes meanwhile.
		 */
		ring = smc_rx_ring(conn);
		size = conn->rmb_size;
		base = conn->rx_base;
		if (smc_rx_mark_ahead(conn, next)) {
			if (conn->urg_pos == next && copied) {
				at_mark_stop = true;	/* a read stops at the mark */
			} else if (conn->urg_pos == next) {
				if (!inline_urg) {
					/* The urgent byte is not in the stream. */
					if (peek) {
						peeked++;
					} else {
						conn->rx_cons++;
						cons_moved = true;
						smc_rx_passed(conn);
					}
					next++;
					avail--;
				}
			} else {
				avail = conn->urg_pos - next;
			}
		}
		spin_unlock_bh(&conn->lock);
		if (at_mark_stop)
			break;
		if (avail) {
			pos = (u32)((next - base) % size);
			n = min_t(u64, avail, len - copied);
			/*
			 * A quarter of the ring at a time, each followed by
			 * its CDC: the writer refills what was read while the
			 * rest is copied, on another CPU (measured: 1.5x to 2x
			 * the throughput of one CDC per read, Documentation/
			 * smc-d.md).
			 */
			n = min_t(u64, n, size / 4);
			chunk = min(n, size - pos);
			/* MSG_TRUNC: as TCP, the bytes go without a copy. */
			if (!(flags & MSG_TRUNC) &&
			    (copy_to_iter(ring + pos, chunk, &msg->msg_iter) != chunk ||
			     (n > chunk && copy_to_iter(ring, n - chunk,
							&msg->msg_iter) != n - chunk))) {
				rc = -EFAULT;
				break;
			}
			copied += n;
			if (peek) {
				peeked += n;
				continue;
			}
			spin_lock_bh(&conn->lock);
			conn->rx_cons += n;
			smc_rx_passed(conn);
			update = smc_rx_update_due(conn);
			smc_rx_grow_count(conn);
			spin_unlock_bh(&conn->lock);
			if (update)
				smc_cdc_send(smc);	/* room for the peer */
			continue;
		}
		if (cons_moved)
			smc_cdc_send(smc);
		if (copied >= target)
			break;
		if (copied) {
			if (READ_ONCE(sk->sk_err) ||
			    (READ_ONCE(sk->sk_shutdown) & RCV_SHUTDOWN) ||
			    !timeo || signal_pending(current))
				break;
		} else {
			int idle = smc_rx_idle(smc, next);

			if (idle == SMC_RX_AGAIN)
				continue;
			if (idle != SMC_RX_WAIT) {
				if (idle < 0)
					rc = idle;
				break;
			}
			rc = smc_wait_check(timeo);
			if (rc)
				break;
		}
		{
			DEFINE_WAIT_FUNC(wait, woken_wake_function);

			add_wait_queue(sk_sleep(sk), &wait);
			sk_wait_event(sk, &timeo, smc_rx_wake(smc, next), &wait);
			remove_wait_queue(sk_sleep(sk), &wait);
		}
	}
	if (!peek && conn->ops && conn->ops->grow_rx &&
	    (READ_ONCE(conn->rx_drains) >= SMC_GROW_AFTER ||
	     READ_ONCE(conn->rx_ring_left)))
		conn->ops->grow_rx(conn);
	release_sock(sk);
	return copied ? copied : rc;
}

/*
 * splice(socket -> pipe): the same read, into the pipe's pages. Blocking
 * follows the socket and SPLICE_F_NONBLOCK, as tcp_splice_read() does.
 */
ssize_t smc_rx_splice_read(struct smc_sock *smc, struct pipe_inode_info *pipe,
			   size_t len, bool nonblock)
{
	struct msghdr msg = {};

	iov_iter_pipe(&msg.msg_iter, ITER_DEST, pipe, len);
	return smc_rx_recvmsg(smc, &msg, len, nonblock ? MSG_DONTWAIT : 0);
}
