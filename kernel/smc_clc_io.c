// SPDX-License-Identifier: GPL-2.0
/*
 * af_smc: sending and receiving CLC messages on the clcsock.
 *
 * The bytes of each message are made and checked by kernel/wire/smc_clc.c;
 * this file only moves them. Both directions are bounded:
 *  - a send never waits: a CLC message is far smaller than the send
 *    buffer of a fresh TCP connection, so a full buffer is a broken peer;
 *  - a receive waits at most the time it is given, and ends early when
 *    the socket is being closed (SMC_F_HS_ABORT).
 * A receive reads exactly one message, header first, then as many bytes
 * as the header announces: whatever the peer sends after its last CLC
 * message is the application's and stays in the clcsock.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/net.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/uio.h>
#include <net/sock.h>
#include <net/tcp.h>

#include "smc.h"
#include "smc_clc_io.h"

/*
 * The peer ID of every CLC message we send: two random bytes telling this
 * module instance apart, then six more random bytes where Linux puts a
 * MAC address. Peers only compare it (to find an existing link group).
 */
u8 smc_clc_local_peer_id[SMC_CLC_PEER_ID_LEN];

void smc_clc_io_init(void)
{
	get_random_bytes(smc_clc_local_peer_id, sizeof(smc_clc_local_peer_id));
}

int smc_clc_send(struct smc_sock *smc, const struct smc_clc_msg *msg)
{
	struct msghdr mh = { .msg_flags = MSG_DONTWAIT | MSG_NOSIGNAL };
	enum smc_clc_err err;
	struct kvec vec;
	size_t len;
	void *buf;
	int rc;

	buf = kmalloc(SMC_CLC_MAX_MSG_LEN, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	err = smc_clc_encode(msg, buf, SMC_CLC_MAX_MSG_LEN, &len);
	if (err) {
		/* Our own message is wrong: a bug, never the peer's doing. */
		pr_warn_ratelimited("cannot encode CLC message type %u: %s\n",
				    msg->hdr.type, smc_clc_err_text(err));
		rc = -EINVAL;
		goto out;
	}
	vec.iov_base = buf;
	vec.iov_len = len;
	rc = kernel_sendmsg(smc->clcsock, &mh, &vec, 1, len);
	if (rc >= 0)
		rc = rc == len ? 0 : -EAGAIN;
out:
	kfree(buf);
	return rc;
}

int smc_clc_send_decline(struct smc_sock *smc, u32 code, u8 version)
{
	struct smc_clc_msg *msg;
	struct smc_clc_decline *d;
	int rc;

	msg = kzalloc(sizeof(*msg), GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	d = &msg->decline;
	d->hdr.type = SMC_CLC_DECLINE;
	d->hdr.version = version;
	d->hdr.eyecatcher = SMC_CLC_EC_SMCR;
	d->hdr.trl_eyecatcher = SMC_CLC_EC_SMCR;
	memcpy(d->peer_id, smc_clc_local_peer_id, sizeof(d->peer_id));
	d->diagnosis = code;
	if (version >= SMC_CLC_V2)
		d->os_type = SMC_CLC_OS_LINUX;
	rc = smc_clc_send(smc, msg);
	kfree(msg);
	return rc;
}

/* Whether a CLC reader has something to act on. Caller holds clcsk's lock. */
static bool smc_clc_readable(struct smc_sock *smc, struct sock *clcsk)
{
	return !skb_queue_empty(&clcsk->sk_receive_queue) ||
	       READ_ONCE(clcsk->sk_err) ||
	       (READ_ONCE(clcsk->sk_shutdown) & RCV_SHUTDOWN) ||
	       clcsk->sk_state == TCP_CLOSE ||
	       test_bit(SMC_F_HS_ABORT, &smc->flags);
}

/*
 * Wait until the clcsock has data or news, or *timeo runs out. Not
 * sk_wait_data(): its condition is only "more data", so a FIN or a reset
 * would leave us asleep until the timeout.
 */
static void smc_clc_wait(struct smc_sock *smc, long *timeo)
{
	struct sock *clcsk = smc->clcsock->sk;
	DEFINE_WAIT_FUNC(wait, woken_wake_function);

	lock_sock(clcsk);
	add_wait_queue(sk_sleep(clcsk), &wait);
	while (*timeo && !smc_clc_readable(smc, clcsk) &&
	       !signal_pending(current))
		sk_wait_event(clcsk, timeo, smc_clc_readable(smc, clcsk),
			      &wait);
	remove_wait_queue(sk_sleep(clcsk), &wait);
	release_sock(clcsk);
}

/*
 * Read exactly len bytes. 0, or: -ETIMEDOUT when *timeo ran out,
 * -ECONNABORTED when the socket is being closed, -ECONNRESET when the
 * peer closed the stream in the middle of the handshake, or the clcsock's
 * own error.
 */
static int smc_clc_read_exact(struct smc_sock *smc, u8 *buf, size_t len,
			      long *timeo)
{
	size_t got = 0;

	while (got < len) {
		struct msghdr mh = { .msg_flags = MSG_DONTWAIT };
		struct kvec vec = { buf + got, len - got };
		int rc;

		if (test_bit(SMC_F_HS_ABORT, &smc->flags))
			return -ECONNABORTED;
		rc = kernel_recvmsg(smc->clcsock, &mh, &vec, 1, len - got,
				    MSG_DONTWAIT);
		if (rc > 0) {
			got += rc;
			continue;
		}
		if (rc == 0)
			return -ECONNRESET;
		if (rc != -EAGAIN)
			return rc;
		if (!*timeo)
			return -ETIMEDOUT;
		if (signal_pending(current))
			return -EINTR;
		smc_clc_wait(smc, timeo);
	}
	return 0;
}

int smc_clc_recv(struct smc_sock *smc, struct smc_clc_msg *msg, long timeo)
{
	struct smc_clc_hdr hdr;
	enum smc_clc_err err;
	u8 *buf;
	int rc;

	buf = kmalloc(SMC_CLC_MAX_MSG_LEN, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	rc = smc_clc_read_exact(smc, buf, SMC_CLC_HDR_LEN, &timeo);
	if (rc)
		goto out;
	err = smc_clc_decode_hdr(buf, SMC_CLC_HDR_LEN, &hdr);
	if (!err && hdr.length > SMC_CLC_MAX_MSG_LEN)
		err = SMC_CLC_ERR_BAD_LENGTH;
	if (err)
		goto bad;
	rc = smc_clc_read_exact(smc, buf + SMC_CLC_HDR_LEN,
				hdr.length - SMC_CLC_HDR_LEN, &timeo);
	if (rc)
		goto out;
	err = smc_clc_decode(buf, hdr.length, msg);
	if (!err)
		goto out;
bad:
	pr_debug("bad CLC message from peer: %s\n", smc_clc_err_text(err));
	rc = -EPROTO;
out:
	kfree(buf);
	return rc;
}
