// SPDX-License-Identifier: GPL-2.0
/*
 * af_smc: readiness and queue sizes of an SMC connection (not fallback).
 *
 * poll answers as tcp_poll() does, from the same inputs: sk_shutdown
 * (our shutdown() calls, the peer's done writing as TCP's FIN sets
 * RCV_SHUTDOWN, and both bits once the connection ended, as tcp_done()
 * sets them), the bytes in our ring against SO_RCVLOWAT, room in our
 * send buffer, a pending urgent byte and sk_err. The close state machine
 * (smc_close.c) keeps those inputs, so every kind of close reads as TCP's.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/net.h>
#include <asm/ioctls.h>
#include <linux/sockios.h>
#include <net/sock.h>

#include "smc.h"
#include "smc_conn.h"

__poll_t smc_data_poll(struct smc_sock *smc)
{
	struct smc_conn *conn = &smc->conn;
	struct sock *sk = &smc->sk;
	int target = sock_rcvlowat(sk, 0, INT_MAX);
	__poll_t mask = 0;
	u8 shutdown;
	u64 avail;

	/*
	 * One snapshot under conn->lock, where the close state machine sets
	 * sk_err and sk_shutdown in one step: read apart, a poll racing a
	 * reset answered EPOLLERR without the EPOLLHUP and EPOLLIN that come
	 * with it (seen between two VMs over SMC-R).
	 */
	spin_lock_bh(&conn->lock);
	shutdown = sk->sk_shutdown;
	if (shutdown == SHUTDOWN_MASK)
		mask |= EPOLLHUP;
	if (shutdown & RCV_SHUTDOWN)
		mask |= EPOLLIN | EPOLLRDNORM | EPOLLRDHUP;
	avail = conn->rx_prod - conn->rx_cons;
	/* The urgent byte next, out of the stream: one more is needed. */
	if (conn->urg_state != SMC_URG_NONE && conn->urg_pos == conn->rx_cons &&
	    !sock_flag(sk, SOCK_URGINLINE))
		target++;
	/* A full ring is readable whatever the low mark: nothing else comes. */
	if (avail && (avail >= target || avail == conn->rmb_size))
		mask |= EPOLLIN | EPOLLRDNORM;
	if (!(shutdown & SEND_SHUTDOWN)) {
		/* The send buffer takes what the peer's ring cannot. */
		if (smc_tx_has_room(conn))
			mask |= EPOLLOUT | EPOLLWRNORM;
	} else {
		mask |= EPOLLOUT | EPOLLWRNORM;	/* writes fail at once */
	}
	if (conn->urg_state == SMC_URG_VALID)
		mask |= EPOLLPRI;
	if (READ_ONCE(sk->sk_err) || !skb_queue_empty_lockless(&sk->sk_error_queue))
		mask |= EPOLLERR;
	spin_unlock_bh(&conn->lock);
	return mask;
}

int smc_data_ioctl(struct smc_sock *smc, unsigned int cmd, unsigned long arg)
{
	struct smc_conn *conn = &smc->conn;
	int val;

	spin_lock_bh(&conn->lock);
	switch (cmd) {
	case SIOCINQ:
		val = smc_rx_inq(smc);
		break;
	case SIOCOUTQ:
	case SIOCOUTQNSD:
		/*
		 * TCP counts what the peer has not acknowledged; bytes in the
		 * peer's ring are delivered, so ours are those still waiting
		 * in the send buffer.
		 */
		val = (int)smc_tx_queued(conn);
		break;
	case SIOCATMARK:
		val = conn->urg_state != SMC_URG_NONE &&
		      conn->urg_pos == conn->rx_cons;
		break;
	default:
		spin_unlock_bh(&conn->lock);
		return -ENOIOCTLCMD;
	}
	spin_unlock_bh(&conn->lock);
	return put_user(val, (int __user *)arg);
}
