// SPDX-License-Identifier: GPL-2.0
/*
 * af_smc: sending on an SMC connection.
 *
 * sendmsg copies from the user straight into the peer's ring, as far as
 * the peer has consumed, then tells the peer with a CDC message. It holds
 * the socket lock (so calls on one socket run one at a time, as TCP's do)
 * and waits on the socket's queue, which smc_cdc_rx() wakes.
 *
 * Errors follow tcp_sendmsg(): a pending error (the peer's reset) is
 * returned and cleared, writing after shutdown(SHUT_WR) or after the
 * connection ended gives EPIPE and SIGPIPE; once some bytes went, the
 * call returns their count and leaves the error for the next one.
 *
 * MSG_OOB: the last byte of the call is urgent, as on TCP. The CDC that
 * carries it has urg_data_present (and urg_data_pending) set, so the
 * receiver marks the byte just before the producer cursor.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/net.h>
#include <linux/sched/signal.h>
#include <linux/uio.h>
#include <net/sock.h>

#include "smc.h"
#include "smc_conn.h"

static u32 smc_tx_space(struct smc_conn *conn)
{
	return conn->peer_size - (u32)(conn->tx_prod - conn->tx_cons);
}

static bool smc_tx_stopped(const struct sock *sk)
{
	return READ_ONCE(sk->sk_err) ||
	       (READ_ONCE(sk->sk_shutdown) & SEND_SHUTDOWN);
}

int smc_tx_sendmsg(struct smc_sock *smc, struct msghdr *msg, size_t len)
{
	struct smc_conn *conn = &smc->conn;
	bool oob = msg->msg_flags & MSG_OOB;
	struct sock *sk = &smc->sk;
	size_t copied = 0;
	long timeo;
	int rc = 0;

	lock_sock(sk);
	timeo = sock_sndtimeo(sk, msg->msg_flags & MSG_DONTWAIT);
	for (;;) {
		u32 space, pos, chunk, n;

		if (smc_tx_stopped(sk)) {
			if (!copied)
				rc = sock_error(sk) ?: -EPIPE;
			break;
		}
		if (copied == len)
			break;
		spin_lock_bh(&conn->lock);
		space = smc_tx_space(conn);
		pos = (u32)(conn->tx_prod % conn->peer_size);
		spin_unlock_bh(&conn->lock);
		if (!space) {
			DEFINE_WAIT_FUNC(wait, woken_wake_function);

			rc = smc_wait_check(timeo);
			if (rc)
				break;
			add_wait_queue(sk_sleep(sk), &wait);
			sk_wait_event(sk, &timeo, smc_tx_space(conn) ||
				      smc_tx_stopped(sk), &wait);
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
		/* The CDC that makes the last byte visible also marks it. */
		if (oob && copied + n == len)
			conn->urg_tx = true;
		spin_unlock_bh(&conn->lock);
		copied += n;
		smc_cdc_send(smc);
	}
	if (oob && copied && copied < len) {
		/* Cut short: TCP marks the last byte it took. */
		spin_lock_bh(&conn->lock);
		conn->urg_tx = true;
		spin_unlock_bh(&conn->lock);
		smc_cdc_send(smc);
	}
	release_sock(sk);
	if (copied)
		return copied;
	if (rc == -EPIPE && !(msg->msg_flags & MSG_NOSIGNAL))
		send_sig(SIGPIPE, current, 0);
	return rc;
}
