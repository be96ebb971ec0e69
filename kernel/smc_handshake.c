// SPDX-License-Identifier: GPL-2.0
/*
 * af_smc: the SMC handshake of a connecting socket, and the parts of it
 * both sides share.
 *
 * A connect first makes the clcsock's TCP connection, with the SMC
 * experimental option in the SYN (tcp_sock.syn_smc; TCP clears it when
 * the SYN-ACK comes back without the option). When TCP is up, the
 * clcsock's state_change callback (smc_hs_tcp_progress()) decides in
 * softirq: a peer without the option means plain TCP at once; otherwise
 * the CLC exchange runs in a work item on smc_hs_wq, so no thread that
 * asked not to block ever waits for it, and every wait in it is bounded
 * (SMC_CLC_WAIT_TIME per message). The wait for the server's answer to
 * our Proposal holds no worker (smc_hs_park(), below).
 *
 * The user sees TCP's semantics throughout: the socket is "connecting"
 * until the handshake is decided (connect() gives EALREADY, poll() no
 * POLLOUT, data calls wait or give EAGAIN), and the TCP part of every
 * answer (EINPROGRESS, ECONNREFUSED, EISCONN, ...) comes from the clcsock
 * itself. A handshake that cannot end in SMC or in a clean fallback
 * (garbage from the peer, a silent peer, a reset) aborts the TCP
 * connection with an error the application reads like any TCP error.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/net.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <net/sock.h>
#include <net/tcp.h>

#include "smc.h"
#include "smc_clc_io.h"
#include "smcd_ism.h"
#include "smcd_conn.h"
#include "smcd_lgr.h"
#include "smc_offer.h"
#include "smc_policy.h"
#include "smc_stats.h"
#include "smc_v21.h"
#include "smcr_hs.h"
#include "smcr_ib.h"

static void smc_connect_work(struct work_struct *work);

/*
 * Waiting for the peer's next CLC message without a worker ("parked"):
 * a server's child for the client's Proposal (smc_listen.c), a client
 * for the server's Accept. Every handshake on the host shares the
 * workers of smc_hs_wq, so a peer that stays silent must not hold one
 * for the whole CLC wait. The park looks once whether the message is in
 * already; if not, the clcsock's next event (data, state, error), the
 * timer at hs_deadline, or smc_hs_abort_wait() unparks, which queues
 * hs_work. Its first act, smc_hs_resume(), looks again: a message still
 * incomplete (a peer that sends part of it) parks it again until the
 * same deadline; otherwise it reads without waiting (smc_hs_time_left()).
 * An event queues hs_work directly, not a look that then queues it: one
 * work item per message on the fast path (the look used to be a work item
 * of its own, one more hop per message, measured with bench/connrate.c).
 *
 * SMC_F_HS_PARKED is set under the clcsock's sk_callback_lock (write),
 * which the callbacks hold (read) to test it, so an event either comes
 * after the flag or left its bytes for the park's own look. It is cleared
 * by test_and_clear_bit(): hs_work is queued exactly once per park, by
 * whoever clears the flag, and its first act stops the timer; nothing
 * else refers to the sock after.
 */

static bool smc_hs_msg_in(struct smc_sock *smc);

/* Stop the timer of a park that ended. Process context. */
void smc_hs_unparked(struct smc_sock *smc)
{
	del_timer_sync(&smc->hs_timer);
}

/*
 * Park until hs_deadline: true when parked, false when the caller goes
 * on at once: the message is in already, or the socket is being closed
 * (smc_hs_abort_wait() ran, and its read fails at once). Process context.
 */
static bool smc_hs_park_until_deadline(struct smc_sock *smc)
{
	struct sock *clcsk = smc->clcsock->sk;
	bool parked;

	write_lock_bh(&clcsk->sk_callback_lock);
	parked = !test_bit(SMC_F_HS_ABORT, &smc->flags);
	if (parked) {
		set_bit(SMC_F_HS_PARKED, &smc->flags);
		mod_timer(&smc->hs_timer, smc->hs_deadline);
	}
	write_unlock_bh(&clcsk->sk_callback_lock);
	if (!parked)
		return false;
	/*
	 * What came before the flag woke nobody: look now. Taking the flag
	 * back fails only if an event or the timer took it and queued
	 * hs_work, whose run then reads the message.
	 */
	if (smc_hs_msg_in(smc) &&
	    test_and_clear_bit(SMC_F_HS_PARKED, &smc->flags)) {
		smc_hs_unparked(smc);
		return false;
	}
	return true;
}

/* Park smc's handshake, which holds a reference for hs_work, for one message. */
bool smc_hs_park(struct smc_sock *smc)
{
	smc->hs_deadline = jiffies + SMC_CLC_WAIT_TIME;
	return smc_hs_park_until_deadline(smc);
}

/*
 * First thing of hs_work after a park (or of a run queued instead of
 * one): false when the message is still incomplete and the handshake
 * parked again, and hs_work must return at once.
 */
bool smc_hs_resume(struct smc_sock *smc)
{
	smc_hs_unparked(smc);
	if (smc_hs_msg_in(smc) || !time_before(jiffies, smc->hs_deadline))
		return true;
	return !smc_hs_park_until_deadline(smc);
}

/*
 * End smc's parked wait and queue hs_work; only the first call does. For
 * smc_hs_abort_wait(), after SMC_F_HS_ABORT is set: the lock orders this
 * against a park, which tests that bit under it. (The callbacks, already
 * under the lock, and the timer, armed only after the flag was set, clear
 * it with smc_hs_event().)
 */
void smc_hs_unpark(struct smc_sock *smc)
{
	struct sock *clcsk = smc->clcsock->sk;
	bool go;

	write_lock_bh(&clcsk->sk_callback_lock);
	go = test_and_clear_bit(SMC_F_HS_PARKED, &smc->flags);
	write_unlock_bh(&clcsk->sk_callback_lock);
	if (go)
		queue_work(smc_hs_wq, &smc->hs_work);
}

/* What is left of the CLC wait that the last park began. */
long smc_hs_time_left(const struct smc_sock *smc)
{
	return max_t(long, 0, (long)(smc->hs_deadline - jiffies));
}

/*
 * Whether the handshake can read its next message without waiting: it is
 * all in the clcsock, or the stream says something smc_clc_recv()
 * reports at once (an error, the end, bytes that are no CLC header), or
 * we are closing.
 */
static bool smc_hs_msg_in(struct smc_sock *smc)
{
	struct sock *clcsk = smc->clcsock->sk;
	struct msghdr mh = { .msg_flags = MSG_DONTWAIT | MSG_PEEK };
	u8 buf[SMC_CLC_HDR_LEN];
	struct kvec vec = { buf, sizeof(buf) };
	struct smc_clc_hdr hdr;
	int avail, rc;

	if (test_bit(SMC_F_HS_ABORT, &smc->flags) || READ_ONCE(clcsk->sk_err) ||
	    (READ_ONCE(clcsk->sk_shutdown) & RCV_SHUTDOWN) ||
	    inet_sk_state_load(clcsk) == TCP_CLOSE)
		return true;
	rc = kernel_recvmsg(smc->clcsock, &mh, &vec, 1, sizeof(buf),
			    MSG_DONTWAIT | MSG_PEEK);
	if (rc < 0)
		return rc != -EAGAIN;
	if ((size_t)rc < sizeof(buf))
		return !rc;	/* 0: the end of the stream */
	if (smc_clc_decode_hdr(buf, sizeof(buf), &hdr) ||
	    hdr.length > SMC_CLC_MAX_MSG_LEN)
		return true;
	lock_sock(clcsk);
	avail = tcp_inq(clcsk);
	release_sock(clcsk);
	return avail >= hdr.length;
}

/* hs_deadline: hs_work then reads what there is, and fails if incomplete. */
static void smc_hs_timeout(struct timer_list *t)
{
	struct smc_sock *smc = from_timer(smc, t, hs_timer);

	smc_hs_event(smc);
}

void smc_hs_init(struct smc_sock *smc)
{
	smc->hs_state = SMC_HS_NONE;
	INIT_WORK(&smc->hs_work, smc_connect_work);
	timer_setup(&smc->hs_timer, smc_hs_timeout, 0);
	smc->hs_ctx = NULL;
	INIT_LIST_HEAD(&smc->child_entry);
}

/* Record the decision for TCP; publish it with smc_hs_finish(). */
void smc_hs_set_fallback(struct smc_sock *smc, u32 reason, u32 peer_diag)
{
	WRITE_ONCE(smc->use_fallback, true);
	smc->fallback_rsn = reason;
	smc->peer_diagnosis = peer_diag;
}

/*
 * A socket that must not try SMC at all (TCP_FASTOPEN, ...), decided
 * before it connects or listens. Later calls find no handshake to wait
 * for. Called with the socket not yet connecting (hs NONE).
 */
void smc_hs_force_fallback(struct smc_sock *smc, u32 reason)
{
	smc_hs_set_fallback(smc, reason, 0);
	if (cmpxchg(&smc->hs_state, SMC_HS_NONE, SMC_HS_DONE) == SMC_HS_NONE)
		smc_stats_fallback(smc, false);
}

/*
 * The handshake is decided: let waiting calls go on. Process context;
 * the fields set before are visible to whoever sees DONE.
 */
void smc_hs_finish(struct smc_sock *smc)
{
	/* Pairs with smc_hs_state(): who reads DONE reads the decision. */
	smp_store_release(&smc->hs_state, SMC_HS_DONE);
	smc_clcsock_sync(smc);
	smc->sk.sk_state_change(&smc->sk);
}

/*
 * The handshake failed in a way that leaves no usable stream: reset the
 * TCP connection and leave err where the application will read it
 * (SO_ERROR, the pending connect(), the next data call).
 */
void smc_hs_fail(struct smc_sock *smc, int err)
{
	WRITE_ONCE(smc->use_fallback, true);
	smc->hs_err = err;
	set_bit(SMC_F_HS_FAILED, &smc->flags);
	tcp_abort(smc->clcsock->sk, err);
	/*
	 * The clcsock may have reported (and so cleared) an error of its own
	 * to our CLC read already; the application gets ours.
	 */
	WRITE_ONCE(smc->sk.sk_err, err);
}

/*
 * Called by the clcsock's state_change callback (softirq, clcsk's
 * callback lock held), before TCP's own callback wakes a connect()
 * waiting in the clcsock: by then the handshake state must say whether
 * data may flow.
 */
void smc_hs_tcp_progress(struct smc_sock *smc, const struct sock *clcsk)
{
	int state = inet_sk_state_load(clcsk);

	if (READ_ONCE(smc->hs_state) != SMC_HS_TCP || state == TCP_SYN_SENT)
		return;
	if (state == TCP_CLOSE) {
		/* Refused or timed out: the clcsock reports it. */
		cmpxchg(&smc->hs_state, SMC_HS_TCP, SMC_HS_NONE);
		return;
	}
	if (cmpxchg(&smc->hs_state, SMC_HS_TCP, SMC_HS_CLC) != SMC_HS_TCP)
		return;
	if (!READ_ONCE(tcp_sk(clcsk)->syn_smc)) {
		smc_hs_set_fallback(smc, SMC_CLC_DECL_PEERNOSMC, 0);
		smc_stats_fallback(smc, false);
		/* Pairs with smc_hs_state(), as in smc_hs_finish(). */
		smp_store_release(&smc->hs_state, SMC_HS_DONE);
		return;
	}
	sock_hold(&smc->sk);	/* dropped by the work, or by smc_hs_cancel() */
	queue_work(smc_hs_wq, &smc->hs_work);
}

/* The handshake chose SMC: data calls now use smc->conn. */
void smc_hs_set_smc(struct smc_sock *smc)
{
	smc->fallback_rsn = 0;
	smc->peer_diagnosis = 0;
	/*
	 * From here on the close state machine owns sk_state: the peer's
	 * CDCs may have moved it already (it treats INIT as ACTIVE).
	 */
	spin_lock_bh(&smc->conn.lock);
	WRITE_ONCE(smc->use_fallback, false);
	if (smc->sk.sk_state == SMC_INIT)
		WRITE_ONCE(smc->sk.sk_state, SMC_ACTIVE);
	spin_unlock_bh(&smc->conn.lock);
}

/* Decline after all and stay on TCP; 0, or the error sending it. */
static int smc_connect_decline(struct smc_sock *smc, u32 code, u8 version)
{
	int rc = smc_clc_send_decline(smc, code, version);

	if (!rc)
		smc_hs_set_fallback(smc, code, 0);
	return rc;
}

/*
 * The server accepted our SMC-Dv2 Proposal: check its Accept, make our
 * DMB on the device of ours that reaches the server's GID, attach the
 * server's DMB, and confirm. 0 when decided (SMC, or TCP after our
 * Decline), else -errno.
 */
static int smc_connect_smcd(struct smc_sock *smc, const struct smc_v21 *offer,
			    struct smc_clc_msg *msg)
{
	struct smc_clc_accept_confirm *ac = &msg->accept_confirm;
	/* Our Confirm's release when the Accept has no fce: our offer. */
	struct smc_v21 v21 = { .release = offer->release };
	struct smcd_ism_dev *ism = NULL;
	struct smcd_gid peer_gid;
	u8 eid[SMC_CLC_EID_LEN];
	u64 token;
	u8 class;
	u32 code;
	int rc;

	/*
	 * We offered every device we have; the server's GID and CHID must
	 * be reachable from one of them (the loopback device: itself), all
	 * 128 bits of an emulated device's GID.
	 */
	smc_offer_peer_gid(ac, &peer_gid);
	if (ac->hdr.version == SMC_CLC_V2 && ac->hdr.typev1 == SMC_CLC_TYPE_D)
		ism = smcd_ism_find(&peer_gid, ac->d.chid);
	if (!ism)
		return smc_connect_decline(smc, SMC_CLC_DECL_MODEUNSUPP,
					   ac->hdr.version);
	if (smc_clc_first_contact(&ac->hdr)) {
		code = smc_v21_check_accept(offer, false, &ac->fce, &v21);
		if (code) {
			smcd_ism_put(ism);
			return smc_connect_decline(smc, code, SMC_CLC_V2);
		}
	}
	token = ac->d.token;
	class = ac->d.dmbe_size;
	memcpy(eid, ac->eid, sizeof(eid));
	rc = smcd_conn_create(smc, ism, &peer_gid, false);
	if (rc) {
		smcd_ism_put(ism);
		return smc_connect_decline(smc, SMC_CLC_DECL_MEM, SMC_CLC_V2);
	}
	rc = smcd_conn_attach_peer(smc, token, class);
	if (rc) {
		/*
		 * The server named a DMB that is not its end of this TCP
		 * connection, or misstated its size: the peers disagree on
		 * the connection (Documentation/decisions.md). The DMB it
		 * named stays as it was; we go on over TCP.
		 */
		smc_conn_destroy(smc);
		return smc_connect_decline(smc, SMC_CLC_DECL_SYNCERR, SMC_CLC_V2);
	}
	if (smc_clc_first_contact(&ac->hdr))
		smcd_lgr_set_peer(smc->conn.smcd, ac->fce.os_type, ac->fce.release,
				 ac->fce.hostname, eid);
	smc_offer_fill_smcd(smc, SMC_CLC_CONFIRM, eid, &v21, ac);
	rc = smc_clc_send(smc, msg);
	if (rc) {
		smc_conn_destroy(smc);
		return rc;
	}
	smc_hs_set_smc(smc);
	return 0;
}

/*
 * What a client's handshake keeps from its Proposal to the server's
 * answer, while it waits without a worker: the message (the Proposal,
 * then the answer), whether SMC-D was offered and the RDMA port offered
 * (a reference).
 */
struct smc_connect_ctx {
	struct smc_clc_msg	msg;
	bool			smcd;
	struct smcr_path	path;
	bool			smcr, smcr_v2;
	struct smc_v21		offer;		/* our Proposal's (smc_v21.h) */
};

static void smc_connect_ctx_free(struct smc_sock *smc)
{
	struct smc_connect_ctx *c = smc->hs_ctx;

	if (!c)
		return;
	smc->hs_ctx = NULL;
	smcr_path_put(&c->path);
	kfree(c);
}

/*
 * The client's Proposal. It offers what this host has for the
 * connection: SMC-Dv2 over an ISM device (smc_offer.c), SMC-R when it is
 * on and an RDMA port serves the route (smcr_hs.c), or both in one
 * Proposal, as Linux's client does; the server's Accept says which. With
 * nothing to offer it declines "no SMC device" instead. 0 when the
 * Proposal is out and the answer is to come, 1 when decided (the
 * decision is in smc), or a negative errno to abort the connection.
 */
static int smc_connect_propose(struct smc_sock *smc, struct smc_connect_ctx *c)
{
	u32 code;
	int rc;

	code = smc_offer_propose(smc, &c->msg.proposal);
	c->smcd = !code;
	if (smcr_hs_enabled()) {
		c->smcr = !smcr_hs_propose(smc, &c->msg.proposal, &c->path);
		c->smcr_v2 = c->smcr && smcr_hs_proposed_v2(&c->msg.proposal);
		if (c->smcr)
			code = 0;
	}
	if (code) {
		/* The peer waits for a Proposal; tell it why none comes. */
		rc = smc_connect_decline(smc, code, smcr_hs_enabled() ?
					 SMC_CLC_V1 : SMC_CLC_V2);
		return rc ?: 1;
	}
	smc_v21_propose(sock_net(&smc->sk), c->smcr_v2, &c->msg.proposal,
			&c->offer);
	return smc_clc_send(smc, &c->msg);
}

/*
 * The server's answer to our Proposal, and what follows it. 0 when
 * decided, or a negative errno to abort the connection.
 */
static int smc_connect_answer(struct smc_sock *smc, struct smc_connect_ctx *c)
{
	struct smc_clc_msg *msg = &c->msg;
	int rc;

	rc = smc_clc_recv(smc, msg, smc_hs_time_left(smc));
	if (rc)
		return rc;
	switch (msg->hdr.type) {
	case SMC_CLC_DECLINE:
		smc_hs_set_fallback(smc, SMC_CLC_DECL_PEERDECL,
				    msg->decline.diagnosis);
		break;
	case SMC_CLC_ACCEPT:
		/* Each transport checks the Accept against what it offered. */
		if (c->smcr && (!c->smcd || msg->accept_confirm.hdr.typev1 == SMC_CLC_TYPE_R))
			rc = smcr_hs_connect(smc, &c->path, msg, c->smcr_v2,
					     &c->offer);
		else
			rc = smc_connect_smcd(smc, &c->offer, msg);
		break;
	default:
		rc = -EPROTO;	/* nothing else answers a Proposal */
	}
	return rc;
}

/*
 * The client's CLC exchange, in two runs: the Proposal, a park until the
 * server's answer is in (no worker meanwhile), then the rest. The
 * reference smc_hs_tcp_progress() took stays with the handshake until it
 * is decided here, or until smc_hs_cancel() cancels a run not begun.
 */
static void smc_connect_work(struct work_struct *work)
{
	struct smc_sock *smc = container_of(work, struct smc_sock, hs_work);
	struct smc_connect_ctx *c = smc->hs_ctx;
	int rc;

	if (c) {
		if (!smc_hs_resume(smc))
			return;		/* the Accept is not all in yet */
	} else {
		rc = -ENOMEM;
		c = kzalloc(sizeof(*c), GFP_KERNEL);
		if (!c)
			goto done;
		smc->hs_ctx = c;
		rc = smc_connect_propose(smc, c);
		if (rc)
			goto done;
		if (smc_hs_park(smc))
			return;		/* the next run is the answer's */
	}
	rc = smc_connect_answer(smc, c);
done:
	if (rc > 0)
		rc = 0;		/* decided without an answer to wait for */
	smc_connect_ctx_free(smc);
	smc_stats_hs_done(smc, false, rc);
	if (rc)
		smc_hs_fail(smc, -rc);
	smc_hs_finish(smc);
	sock_put(&smc->sk);
}

/*
 * Wait until no handshake is in progress. 0 when settled, -EAGAIN when
 * timeo runs out (at once for a non-blocking call), or the signal errno.
 */
int smc_hs_settle(struct smc_sock *smc, long timeo)
{
	DEFINE_WAIT_FUNC(wait, woken_wake_function);
	struct sock *sk = &smc->sk;
	int rc = 0;

	if (smc_hs_settled(smc))
		return 0;
	add_wait_queue(sk_sleep(sk), &wait);
	while (!smc_hs_settled(smc)) {
		rc = smc_wait_check(timeo);
		if (rc)
			break;
		timeo = wait_woken(&wait, TASK_INTERRUPTIBLE, timeo);
	}
	remove_wait_queue(sk_sleep(sk), &wait);
	return rc;
}

/*
 * After the handshake of our own connect() ended: 0, or the error that
 * aborted it, consumed as TCP's connect() consumes sk_err.
 */
static int smc_connect_result(struct smc_sock *smc)
{
	struct sock *clcsk = smc->clcsock->sk;
	int err;

	if (!test_bit(SMC_F_HS_FAILED, &smc->flags))
		return 0;
	err = -smc->hs_err;
	lock_sock(clcsk);
	sock_error(clcsk);	/* reported now, like TCP's connect() does */
	/* As TCP leaves a socket whose connect failed. */
	smc->clcsock->state = SS_UNCONNECTED;
	release_sock(clcsk);
	smc_clcsock_consumed_error(smc, err);
	return err;
}

int smc_hs_connect(struct smc_sock *smc, struct socket *sock,
		   struct sockaddr *addr, int alen, int flags)
{
	struct sock *clcsk = smc->clcsock->sk;
	bool started = false;
	long timeo;
	int rc;

	/* AF_UNSPEC disconnects: TCP's business, no handshake follows. */
	if (alen >= sizeof(addr->sa_family) && addr->sa_family == AF_UNSPEC)
		return smc_fb_connect(smc, sock, addr, alen, flags);
	switch (smc_hs_state(smc)) {
	case SMC_HS_DONE:
		/* Decided: TCP's answers (0 once after EINPROGRESS, EISCONN). */
		return smc_fb_connect(smc, sock, addr, alen, flags);
	case SMC_HS_CLC:
		if (flags & O_NONBLOCK)
			return -EALREADY;
		goto wait;
	case SMC_HS_NONE:
		if (inet_sk_state_load(clcsk) == TCP_CLOSE &&
		    smc_policy_excludes_addr(sock_net(&smc->sk), addr, alen)) {
			/* No SMC option in the SYN: TCP from the start. */
			smc_hs_force_fallback(smc, SMC_CLC_DECL_POLICY);
			return smc_fb_connect(smc, sock, addr, alen, flags);
		}
		if (inet_sk_state_load(clcsk) == TCP_CLOSE) {
			WRITE_ONCE(tcp_sk(clcsk)->syn_smc, true);
			started = cmpxchg(&smc->hs_state, SMC_HS_NONE,
					  SMC_HS_TCP) == SMC_HS_NONE;
		}
		break;
	default:	/* TCP: the clcsock knows what a repeated connect says */
		break;
	}

	rc = smc_fb_connect(smc, sock, addr, alen, flags);
	if (rc == -EINPROGRESS || rc == -EALREADY)
		return rc;
	if (rc) {
		/* TCP failed or refused the call: nothing is in progress. */
		if (inet_sk_state_load(clcsk) != TCP_SYN_SENT)
			cmpxchg(&smc->hs_state, SMC_HS_TCP, SMC_HS_NONE);
		return rc;
	}
	/* TCP is connected; smc_hs_tcp_progress() took it from here. */
	if (inet_sk_state_load(clcsk) == TCP_CLOSE)
		cmpxchg(&smc->hs_state, SMC_HS_TCP, SMC_HS_NONE);
	if (smc_hs_settled(smc))
		return smc_connect_result(smc);
	if (flags & O_NONBLOCK)
		return started ? -EINPROGRESS : -EALREADY;
wait:
	timeo = sock_sndtimeo(&smc->sk, flags & O_NONBLOCK);
	rc = smc_hs_settle(smc, timeo);
	if (rc == -EAGAIN)
		return -EINPROGRESS;	/* SO_SNDTIMEO ran out, as in TCP */
	if (rc)
		return rc;
	return smc_connect_result(smc);
}

/*
 * Release of a socket whose handshake may be running: end its CLC waits
 * (and its park) and wait for the work, which then no longer touches the
 * clcsock. The clcsock's callbacks are detached first, so no new work can
 * be queued; after the abort no park begins.
 */
void smc_hs_cancel(struct smc_sock *smc)
{
	smc_hs_abort_wait(smc);
	smc_clcsock_detach(smc);
	if (cancel_work_sync(&smc->hs_work)) {
		/*
		 * A run that never began: the first, or the one after a park
		 * (which the abort ended): undo what the handshake holds.
		 */
		smc_hs_unparked(smc);
		smc_connect_ctx_free(smc);
		sock_put(&smc->sk);	/* the reference of the queued work */
	}
}

/* Make a CLC wait of smc's handshake end now. */
void smc_hs_abort_wait(struct smc_sock *smc)
{
	set_bit(SMC_F_HS_ABORT, &smc->flags);
	/*
	 * The waiter is on the clcsock's queue with woken_wake_function, and
	 * the flag is set before this wakeup, so it cannot sleep past it.
	 */
	wake_up_interruptible_all(sk_sleep(smc->clcsock->sk));
	/* An SMC-R probe link's LLC waits are not on that queue. */
	smcr_hs_abort(smc);
	/* A parked handshake waits on nothing: its work runs now. */
	smc_hs_unpark(smc);
}
