// SPDX-License-Identifier: GPL-2.0
/*
 * af_smc: the socket calls of an SMC connection (not fallback).
 *
 * Sending copies from the user straight into the peer's ring, as far as
 * the peer has consumed, then tells the peer with a CDC message.
 * Receiving copies out of our ring and tells the peer how far it may
 * write now. Both hold the socket lock (so calls on one socket run one at
 * a time, as TCP's do) and wait on the socket's queue, which smc_cdc_rx()
 * wakes.
 *
 * Errors follow TCP: writing after shutdown(SHUT_WR) or after the peer
 * closed gives EPIPE (and SIGPIPE), a peer's abort ECONNRESET; reading
 * after the peer finished writing gives 0.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/net.h>
#include <linux/sched/signal.h>
#include <asm/ioctls.h>
#include <linux/sockios.h>
#include <linux/uio.h>
#include <net/sock.h>

#include "smc.h"
#include "smc_conn.h"

static u32 smc_tx_space(struct smc_conn *conn)
{
	return conn->peer_size - (u32)(conn->tx_prod - conn->tx_cons);
}

static u32 smc_rx_avail(struct smc_conn *conn)
{
	return (u32)(conn->rx_prod - conn->rx_cons);
}

/* Why writing is over for good: 0 while it is not. Conn lock held. */
static int smc_tx_error(struct smc_sock *smc)
{
	struct smc_conn *conn = &smc->conn;

	if (conn->peer_abort)
		return -ECONNRESET;
	if (conn->done_writing || conn->peer_closed || conn->peer_gone ||
	    (smc->sk.sk_shutdown & SEND_SHUTDOWN))
		return -EPIPE;
	return 0;
}

int smc_data_sendmsg(struct smc_sock *smc, struct msghdr *msg, size_t len)
{
	struct smc_conn *conn = &smc->conn;
	struct sock *sk = &smc->sk;
	size_t copied = 0;
	long timeo;
	int rc = 0;

	if (msg->msg_flags & MSG_OOB)
		return -EOPNOTSUPP;	/* urgent data: not yet on SMC */
	lock_sock(sk);
	timeo = sock_sndtimeo(sk, msg->msg_flags & MSG_DONTWAIT);
	while (copied < len) {
		u32 space, pos, chunk, n;

		spin_lock_bh(&conn->lock);
		rc = smc_tx_error(smc);
		space = smc_tx_space(conn);
		pos = (u32)(conn->tx_prod % conn->peer_size);
		spin_unlock_bh(&conn->lock);
		if (rc)
			break;
		if (!space) {
			DEFINE_WAIT_FUNC(wait, woken_wake_function);

			rc = smc_wait_check(timeo);
			if (rc)
				break;
			add_wait_queue(sk_sleep(sk), &wait);
			sk_wait_event(sk, &timeo, smc_tx_space(conn) ||
				      READ_ONCE(conn->peer_abort) ||
				      READ_ONCE(conn->peer_closed) ||
				      READ_ONCE(conn->peer_gone), &wait);
			remove_wait_queue(sk_sleep(sk), &wait);
			continue;
		}
		n = min_t(size_t, space, len - copied);
		chunk = min(n, conn->peer_size - pos);
		if (copy_from_iter(conn->peer_ring + pos, chunk,
				   &msg->msg_iter) != chunk ||
		    (n > chunk && copy_from_iter(conn->peer_ring, n - chunk,
						 &msg->msg_iter) != n - chunk)) {
			rc = -EFAULT;
			break;
		}
		spin_lock_bh(&conn->lock);
		conn->tx_prod += n;
		spin_unlock_bh(&conn->lock);
		copied += n;
		smc_cdc_send(smc);
	}
	release_sock(sk);
	if (copied)
		return copied;
	if (rc == -EPIPE && !(msg->msg_flags & MSG_NOSIGNAL))
		send_sig(SIGPIPE, current, 0);
	return rc;
}

int smc_data_recvmsg(struct smc_sock *smc, struct msghdr *msg, size_t len,
		     int flags)
{
	struct smc_conn *conn = &smc->conn;
	struct sock *sk = &smc->sk;
	size_t copied = 0;
	int target, rc = 0;
	long timeo;

	if (flags & MSG_OOB)
		return -EINVAL;		/* no urgent data pending, as TCP says */
	lock_sock(sk);
	timeo = sock_rcvtimeo(sk, flags & MSG_DONTWAIT);
	target = sock_rcvlowat(sk, flags & MSG_WAITALL, len);
	while (copied < len) {
		u32 avail, pos, chunk, n;
		bool eof;

		spin_lock_bh(&conn->lock);
		avail = smc_rx_avail(conn);
		pos = (u32)(conn->rx_cons % conn->rmb_size);
		eof = conn->peer_done_writing || conn->peer_gone;
		spin_unlock_bh(&conn->lock);
		if (flags & MSG_PEEK) {
			/* Peek what lies beyond what this call already saw. */
			avail = avail > copied ? avail - copied : 0;
			pos = (u32)((conn->rx_cons + copied) % conn->rmb_size);
		}
		if (avail) {
			const u8 *ring = conn->rmb.cpu_addr + SMC_CDC_D_LEN;

			n = min_t(size_t, avail, len - copied);
			chunk = min(n, conn->rmb_size - pos);
			if (copy_to_iter(ring + pos, chunk, &msg->msg_iter) != chunk ||
			    (n > chunk && copy_to_iter(ring, n - chunk,
						       &msg->msg_iter) != n - chunk)) {
				rc = -EFAULT;
				break;
			}
			copied += n;
			if (!(flags & MSG_PEEK)) {
				spin_lock_bh(&conn->lock);
				conn->rx_cons += n;
				spin_unlock_bh(&conn->lock);
				smc_cdc_send(smc);	/* room for the peer */
			}
			continue;
		}
		if (copied >= target)
			break;
		if (READ_ONCE(conn->peer_abort)) {
			rc = sock_error(sk) ?: -ECONNRESET;
			break;
		}
		if (eof || (sk->sk_shutdown & RCV_SHUTDOWN))
			break;
		rc = smc_wait_check(timeo);
		if (rc)
			break;
		{
			DEFINE_WAIT_FUNC(wait, woken_wake_function);

			add_wait_queue(sk_sleep(sk), &wait);
			sk_wait_event(sk, &timeo, smc_rx_avail(conn) ||
				      READ_ONCE(conn->peer_done_writing) ||
				      READ_ONCE(conn->peer_abort) ||
				      (sk->sk_shutdown & RCV_SHUTDOWN), &wait);
			remove_wait_queue(sk_sleep(sk), &wait);
		}
	}
	release_sock(sk);
	return copied ? copied : rc;
}

__poll_t smc_data_poll(struct smc_sock *smc)
{
	struct smc_conn *conn = &smc->conn;
	struct sock *sk = &smc->sk;
	__poll_t mask = 0;
	u8 shutdown = READ_ONCE(sk->sk_shutdown);

	spin_lock_bh(&conn->lock);
	if (conn->peer_done_writing || conn->peer_gone)
		mask |= EPOLLIN | EPOLLRDNORM | EPOLLRDHUP;
	if (smc_rx_avail(conn) >= max(READ_ONCE(sk->sk_rcvlowat), 1))
		mask |= EPOLLIN | EPOLLRDNORM;
	if (smc_tx_space(conn) || smc_tx_error(smc))
		mask |= EPOLLOUT | EPOLLWRNORM;
	if ((conn->peer_closed && (shutdown & SEND_SHUTDOWN)) ||
	    conn->peer_abort || conn->peer_gone || shutdown == SHUTDOWN_MASK)
		mask |= EPOLLHUP;
	spin_unlock_bh(&conn->lock);
	if (shutdown & RCV_SHUTDOWN)
		mask |= EPOLLIN | EPOLLRDNORM | EPOLLRDHUP;
	if (READ_ONCE(sk->sk_err))
		mask |= EPOLLERR;
	return mask;
}

int smc_data_shutdown(struct smc_sock *smc, int how)
{
	struct smc_conn *conn = &smc->conn;
	struct sock *sk = &smc->sk;
	bool tell = false;

	/* SHUT_RD=0, SHUT_WR=1, SHUT_RDWR=2, as shutdown(2) counts them. */
	if (how < SHUT_RD || how > SHUT_RDWR)
		return -EINVAL;
	lock_sock(sk);
	sk->sk_shutdown |= how + 1;
	if (sk->sk_shutdown & SEND_SHUTDOWN) {
		spin_lock_bh(&conn->lock);
		tell = !conn->done_writing;
		conn->done_writing = true;
		spin_unlock_bh(&conn->lock);
	}
	release_sock(sk);
	if (tell)
		smc_cdc_send(smc);
	sk->sk_state_change(sk);
	return 0;
}

int smc_data_ioctl(struct smc_sock *smc, unsigned int cmd, unsigned long arg)
{
	struct smc_conn *conn = &smc->conn;
	int val;

	spin_lock_bh(&conn->lock);
	switch (cmd) {
	case SIOCINQ:
		val = smc_rx_avail(conn);
		break;
	case SIOCOUTQ:
	case SIOCOUTQNSD:
		/* Written but not yet consumed by the peer. */
		val = (int)(conn->tx_prod - conn->tx_cons);
		break;
	default:
		spin_unlock_bh(&conn->lock);
		return -ENOIOCTLCMD;
	}
	spin_unlock_bh(&conn->lock);
	return put_user(val, (int __user *)arg);
}

/*
 * Close: the peer learns that we are gone (an abort when we leave unread
 * data, as TCP resets then), and our buffers go.
 */
void smc_data_release(struct smc_sock *smc)
{
	struct smc_conn *conn = &smc->conn;

	if (!conn->ism)
		return;
	spin_lock_bh(&conn->lock);
	conn->done_writing = true;
	conn->closed = true;
	if (smc_rx_avail(conn))
		conn->aborted = true;
	spin_unlock_bh(&conn->lock);
	smc_cdc_send(smc);
	smc_conn_destroy(smc);
}
