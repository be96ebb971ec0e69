// SPDX-License-Identifier: GPL-2.0
/*
 * af_smc: the listening side of the SMC handshake.
 *
 * A listening smc sock listens on its clcsock with the SMC option offered
 * in SYN-ACKs. Each connection TCP completes is taken off the clcsock by
 * the listener's accept work (smc_accept_wq), wrapped in a new smc sock
 * (a "child", with no struct socket yet) and, if the client offered SMC,
 * given its own CLC handshake work (smc_hs_wq). accept() only ever sees
 * children whose handshake is decided, from the listener's "ready" list,
 * so one slow or hostile client delays nobody else, and a non-blocking
 * accept() never waits for a handshake.
 *
 * Ownership: a child in its handshake belongs to its work, which either
 * moves it to "ready" or destroys it; a ready child belongs to the
 * listener until accept() grafts it onto a struct socket. Every child
 * holds a reference on its listener until then. Both lists and "pending"
 * are under the listener's socket lock ("pending" and "hs_count" are
 * written with WRITE_ONCE for smc_listen_congested()'s lockless look).
 *
 * Backlog: a connection taken off the clcsock stays counted in the
 * clcsock's accept queue (smc_listen_count()) until accept() returns it
 * or it is dropped. TCP admits a SYN only while that queue is within the
 * backlog, so the listener as a whole completes as many connections
 * nobody accepted as a TCP listener would (backlog + 1).
 *
 * Workers: a child waits for its client's Proposal "parked", holding no
 * worker of smc_hs_wq (smc_hs_park() in smc_handshake.c): its clcsock's
 * callbacks queue its handshake work whenever something arrives, which
 * parks again at once unless the whole message is there (or the stream
 * ended, or SMC_CLC_WAIT_TIME from the child's start ran out, or the
 * listener closes); then it reads the Proposal without waiting. So
 * clients that offer SMC and never send a Proposal cost what TCP
 * connections nobody accepted cost, and delay no other handshake. From the Proposal on a
 * child holds a worker; smc_hs_limit.c bounds how many do per listener
 * and per client address.
 *
 * net.smc.limit_smc_hs (as in Linux): a listener made while it is 1
 * leaves the SMC option out of its SYN-ACKs while it is congested
 * (smc_listen_congested()), so new clients go on over TCP at once.
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
#include "smc_mem.h"
#include "smc_netns.h"
#include "smc_offer.h"
#include "smc_policy.h"
#include "smc_stats.h"
#include "smc_v21.h"
#include "smcr_hs.h"

/*
 * A limiting listener is congested from this many children in their
 * handshake (parked or not), or while every worker of smc_hs_wq is busy.
 */
#define SMC_HS_CONGESTED	64

static void smc_listen_accept_work(struct work_struct *work);

/* Every smc sock: the parts of a listener, and of a child. */
void smc_listen_init(struct smc_sock *smc)
{
	smc->limit_hs = READ_ONCE(smc_net(sock_net(&smc->sk))->sysctl_limit_smc_hs);
	smc->hs_peer = NULL;
	INIT_WORK(&smc->ls.accept_work, smc_listen_accept_work);
	INIT_LIST_HEAD(&smc->ls.hs_children);
	INIT_LIST_HEAD(&smc->ls.ready);
	smc->ls.pending = 0;
	smc->ls.hs_count = 0;
	atomic_set(&smc->ls.hs_working, 0);
}

/*
 * TCP asks this (tcp_sock.smc_hs_congested) when a SYN with the SMC
 * option reaches a listening clcsock of ours: true leaves the option out
 * of the SYN-ACK, and the connection is TCP from the start on both ends.
 * True when the handshake policy keeps the listener's port on TCP, or
 * when a limiting listener is congested. Softirq, inside the RCU read
 * section of TCP's listener lookup; the smc sock is freed only after a
 * grace period once it set this (SOCK_RCU_FREE), so what sk_user_data
 * names stays readable.
 */
static bool smc_listen_congested(const struct sock *clcsk)
{
	struct smc_sock *lsmc;
	int queued;

	lsmc = __rcu_dereference_sk_user_data_with_flags(clcsk,
							 SK_USER_DATA_NOCOPY);
	/* Closing, or listening as TCP now: nothing of ours to protect. */
	if (!lsmc || !smc_is_smc_listener(lsmc))
		return false;
	if (smc_policy_excludes_port(sock_net(clcsk),
				     ntohs(inet_sk(clcsk)->inet_sport)))
		return true;
	if (!READ_ONCE(lsmc->limit_hs))
		return false;
	/*
	 * Connections TCP completed that the accept work has not taken
	 * yet: the clcsock's queue less our children, which stay counted in
	 * it (smc_listen_count()). They will be handshakes soon, so a burst
	 * of SYNs counts before the accept work catches up. Lockless
	 * snapshots: an estimate, which is all congestion needs.
	 */
	queued = (int)READ_ONCE(clcsk->sk_ack_backlog) -
		 (int)READ_ONCE(lsmc->ls.pending);
	return READ_ONCE(lsmc->ls.hs_count) + max(queued, 0) >= SMC_HS_CONGESTED ||
	       workqueue_congested(WORK_CPU_UNBOUND, smc_hs_wq);
}

/*
 * Count nsmc in, or out of, the listening clcsock's accept queue, as TCP
 * counts its own entries: under the queue's lock. Listener locked and
 * listening (so its clcsock is there).
 */
static void smc_listen_count(struct smc_sock *lsmc, struct smc_sock *nsmc,
			     bool add)
{
	struct sock *clcsk = lsmc->clcsock->sk;
	spinlock_t *lock = &inet_csk(clcsk)->icsk_accept_queue.rskq_lock;

	if (add == test_bit(SMC_F_ACCEPTQ_COUNTED, &nsmc->flags))
		return;
	spin_lock_bh(lock);
	if (add)
		sk_acceptq_added(clcsk);
	else
		sk_acceptq_removed(clcsk);
	spin_unlock_bh(lock);
	change_bit(SMC_F_ACCEPTQ_COUNTED, &nsmc->flags);
}

/* Look at the clcsock's accept queue soon. Any context. */
void smc_listen_kick(struct smc_sock *lsmc)
{
	sock_hold(&lsmc->sk);
	if (!queue_work(smc_accept_wq, &lsmc->ls.accept_work))
		sock_put(&lsmc->sk);
}

/*
 * A child left the count (accepted or dropped): whether TCP's queue holds
 * connections the accept work has not taken (a take that failed), and it
 * must be kicked. A connection TCP completes later kicks it from the
 * clcsock's callback; a kick for nothing cost every accept() a work item
 * (measured with bench/connrate.c). Listener locked and listening.
 */
static bool smc_listen_untaken(struct smc_sock *lsmc)
{
	return (int)READ_ONCE(lsmc->clcsock->sk->sk_ack_backlog) >
	       (int)READ_ONCE(lsmc->ls.pending);
}

/*
 * Free a child that never reached accept(). Its TCP connection is reset,
 * as TCP resets the connections a closed listener leaves unaccepted.
 */
static void smc_child_destroy(struct smc_sock *nsmc)
{
	struct smc_sock *lsmc = nsmc->listener;

	smc_sock_list_del(&nsmc->sk);
	/* An SMC child never accepted: the peer gets a reset, our DMB goes. */
	smc_close_abort_child(nsmc);
	tcp_abort(nsmc->clcsock->sk, ECONNABORTED);
	smc_clcsock_release(nsmc);
	sock_set_flag(&nsmc->sk, SOCK_DEAD);
	WRITE_ONCE(nsmc->sk.sk_state, SMC_CLOSED);
	nsmc->listener = NULL;
	sock_put(&nsmc->sk);	/* the reference sock_init_data() set up */
	sock_put(&lsmc->sk);
}

/*
 * We accept the peer's Proposal over ism (our reference): make our DMB,
 * send the Accept, wait for the Confirm and attach the client's DMB.
 * 0 when decided (SMC, or TCP after a Decline), else -errno.
 */
static int smc_listen_smcd(struct smc_sock *nsmc, struct smcd_ism_dev *ism,
			   const struct smcd_gid *peer_gid, const u8 *eid,
			   struct smc_clc_msg *msg)
{
	struct smc_clc_accept_confirm *ac = &msg->accept_confirm;
	struct smcd_gid confirm_gid;
	struct smc_v21 v21;
	u32 code;
	int rc;

	/* Before msg becomes our Accept; SMC-D has no limits to refuse. */
	smc_v21_agree(sock_net(&nsmc->sk), &msg->proposal, false, &v21);
	rc = smcd_conn_create(nsmc, ism, peer_gid, true);
	if (rc) {
		smcd_ism_put(ism);
		rc = smc_clc_send_decline(nsmc, SMC_CLC_DECL_MEM, SMC_CLC_V2);
		if (!rc)
			smc_hs_set_fallback(nsmc, SMC_CLC_DECL_MEM, 0);
		return rc;
	}
	smc_offer_fill_smcd(nsmc, SMC_CLC_ACCEPT, eid, &v21, ac);
	rc = smc_clc_send(nsmc, msg);
	if (!rc)
		rc = smc_clc_recv(nsmc, msg, SMC_CLC_WAIT_TIME);
	if (rc)
		goto fail;
	if (msg->hdr.type == SMC_CLC_DECLINE) {
		smc_conn_destroy(nsmc);
		smc_hs_set_fallback(nsmc, SMC_CLC_DECL_PEERDECL,
				    msg->decline.diagnosis);
		return 0;
	}
	rc = -EPROTO;
	smc_offer_peer_gid(ac, &confirm_gid);
	if (msg->hdr.type != SMC_CLC_CONFIRM || ac->hdr.typev1 != SMC_CLC_TYPE_D ||
	    !smcd_gid_eq(&confirm_gid, peer_gid) ||
	    ac->d.chid != nsmc->conn.smcd->ism->chid)
		goto fail;
	if (nsmc->conn.smcd->first_contact && smc_clc_first_contact(&ac->hdr)) {
		/* The client's release must be the one our Accept named. */
		code = smc_v21_check_confirm(&v21, false, &ac->fce);
		if (code) {
			smc_conn_destroy(nsmc);
			rc = smc_clc_send_decline(nsmc, code, SMC_CLC_V2);
			if (!rc)
				smc_hs_set_fallback(nsmc, code, 0);
			return rc;
		}
	}
	rc = smcd_conn_attach_peer(nsmc, ac->d.token, ac->d.dmbe_size);
	if (rc) {
		/*
		 * The client's Confirm names a DMB that is not its end of
		 * this TCP connection (or misstates its size): decline, as
		 * the client does with such an Accept, and stay on TCP. The
		 * DMB it named stays as it was.
		 */
		smc_conn_destroy(nsmc);
		rc = smc_clc_send_decline(nsmc, SMC_CLC_DECL_SYNCERR, SMC_CLC_V2);
		if (!rc)
			smc_hs_set_fallback(nsmc, SMC_CLC_DECL_SYNCERR, 0);
		return rc;
	}
	if (smc_clc_first_contact(&ac->hdr))
		smcd_lgr_set_peer(nsmc->conn.smcd, ac->fce.os_type, ac->fce.release,
				 ac->fce.hostname, ac->eid);
	smc_hs_set_smc(nsmc);
	return 0;
fail:
	smc_conn_destroy(nsmc);
	return rc;
}

/*
 * The server's CLC exchange. 0 when decided (the decision is in nsmc),
 * or a negative errno: then the connection is dropped.
 */
static int smc_listen_clc(struct smc_sock *nsmc)
{
	u8 eid[SMC_CLC_EID_LEN];
	struct smcd_ism_dev *ism;
	struct smc_clc_msg *msg;
	struct smcd_gid peer_gid = {};
	u32 code;
	int rc;

	msg = kzalloc(sizeof(*msg), GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	/*
	 * Unparked: the message is in, or the stream ended, or the child's
	 * time is up, in which case an incomplete message times out now.
	 */
	rc = smc_clc_recv(nsmc, msg, smc_hs_time_left(nsmc));
	if (rc)
		goto out;
	switch (msg->hdr.type) {
	case SMC_CLC_DECLINE:
		/* A client with nothing to propose says so instead. */
		smc_hs_set_fallback(nsmc, SMC_CLC_DECL_PEERDECL,
				    msg->decline.diagnosis);
		break;
	case SMC_CLC_PROPOSAL:
		if (smc_policy_excludes_sock(nsmc->clcsock->sk)) {
			/* The policy, by the client's address: TCP. */
			code = SMC_CLC_DECL_POLICY;
			rc = smc_clc_send_decline(nsmc, code, msg->hdr.version);
			if (!rc)
				smc_hs_set_fallback(nsmc, code, 0);
			break;
		}
		if (!smc_hs_admit(nsmc)) {
			/* Bounds of smc_hs_limit.c: TCP, as with no device. */
			code = SMC_CLC_DECL_HSLIMIT;
			rc = smc_clc_send_decline(nsmc, code, msg->hdr.version);
			if (!rc)
				smc_hs_set_fallback(nsmc, code, 0);
			break;
		}
		code = smc_offer_choose(nsmc, &msg->proposal, &ism, &peer_gid,
					eid);
		if (!code) {
			rc = smc_listen_smcd(nsmc, ism, &peer_gid, eid, msg);
			break;
		}
		if (smcr_hs_wanted(&msg->proposal)) {
			/* SMC-R, when on: smcr_hs.c answers. */
			rc = smcr_hs_listen(nsmc, msg);
			break;
		}
		rc = smc_clc_send_decline(nsmc, code, msg->hdr.version);
		if (!rc)
			smc_hs_set_fallback(nsmc, code, 0);
		break;
	default:
		rc = -EPROTO;
	}
out:
	kfree(msg);
	return rc;
}

/* A child is decided: hand it to accept(), or drop it. */
static void smc_listen_child_done(struct smc_sock *nsmc, int rc)
{
	struct smc_sock *lsmc = nsmc->listener;
	struct sock *lsk = &lsmc->sk;
	bool keep, kick = false;

	smc_hs_release(nsmc);
	smc_stats_hs_done(nsmc, true, rc);
	if (!rc)
		smc_hs_finish(nsmc);
	lock_sock(lsk);
	list_del_init(&nsmc->child_entry);
	WRITE_ONCE(lsmc->ls.hs_count, lsmc->ls.hs_count - 1);
	keep = !rc && smc_is_smc_listener(lsmc);
	if (keep) {
		list_add_tail(&nsmc->child_entry, &lsmc->ls.ready);
		/*
		 * Wake accept() and pollers before unlocking: only lock
		 * holders take a child off "ready", so until release_sock()
		 * nsmc is there and its reference keeps lsk alive. After it,
		 * accept() may take nsmc (and drop that reference) or close()
		 * destroy it, and the listener's last close() frees lsk: the
		 * unlock is our last touch of either. A woken accept() just
		 * waits for the lock, as after smc_listen_take_one(), which
		 * wakes the same way.
		 */
		lsk->sk_data_ready(lsk);
		release_sock(lsk);
		return;
	}
	WRITE_ONCE(lsmc->ls.pending, lsmc->ls.pending - 1);
	if (smc_is_smc_listener(lsmc)) {
		smc_listen_count(lsmc, nsmc, false);
		kick = smc_listen_untaken(lsmc);
	}
	release_sock(lsk);
	/*
	 * Dropped: nsmc is on no list, so it is still ours, and its
	 * reference keeps lsk alive until smc_child_destroy() puts it.
	 */
	if (rc)
		pr_debug("dropped a connection in its handshake: %d\n", rc);
	if (kick)
		smc_listen_kick(lsmc);
	smc_child_destroy(nsmc);
}

static void smc_listen_child_work(struct work_struct *work)
{
	struct smc_sock *nsmc = container_of(work, struct smc_sock, hs_work);

	if (!smc_hs_resume(nsmc))
		return;		/* the Proposal is not all in yet */
	smc_listen_child_done(nsmc, smc_listen_clc(nsmc));
}

/*
 * Take one connection off the listening clcsock and start its handshake.
 * Listener locked. 0, -EAGAIN when none is waiting, or another error.
 */
static int smc_listen_take_one(struct smc_sock *lsmc)
{
	struct sock *lsk = &lsmc->sk;
	struct smc_sock *nsmc;
	struct socket *nclc;
	struct sock *nsk;
	int rc;

	/* Allocate first: a connection taken off TCP must not be lost. */
	nsk = smc_sk_alloc_child(lsk, !lsk->sk_net_refcnt);
	if (!nsk)
		return -ENOMEM;
	/* Options set on the listener since it listened reach new children. */
	smc_sockopts_push(lsmc);
	rc = kernel_accept(lsmc->clcsock, &nclc, O_NONBLOCK);
	if (rc) {
		sk_free(nsk);
		return rc;
	}
	nsmc = smc_sk(nsk);
	smc_sock_init(NULL, nsk, lsk->sk_protocol);
	/* Buffers of a child are charged to the listener's memcg. */
	smc_mem_sock_init(nsmc, lsmc);
	nsk->sk_uid = lsk->sk_uid;
	smc_sockopts_inherit(nsk, nclc->sk);
	/* TCP copied the listener's; the child never listens for us. */
	tcp_sk(nclc->sk)->smc_hs_congested = NULL;
	smc_clcsock_attach(nsmc, nclc, &lsmc->clcsk_cb);
	sock_hold(lsk);
	nsmc->listener = lsmc;
	WRITE_ONCE(lsmc->ls.pending, lsmc->ls.pending + 1);
	smc_listen_count(lsmc, nsmc, true);

	if (!READ_ONCE(tcp_sk(nclc->sk)->syn_smc)) {
		/*
		 * No SMC option from the client, or none offered by us: the
		 * policy's reason if it is why (as it stands now).
		 */
		smc_hs_set_fallback(nsmc, lsmc->fallback_rsn ?:
				    smc_policy_excludes_sock(nclc->sk) ?
				    SMC_CLC_DECL_POLICY : SMC_CLC_DECL_PEERNOSMC, 0);
		smc_stats_fallback(nsmc, true);
		nsmc->hs_state = SMC_HS_DONE;
		smc_clcsock_sync(nsmc);
		list_add_tail(&nsmc->child_entry, &lsmc->ls.ready);
		lsk->sk_data_ready(lsk);
		return 0;
	}
	nsmc->hs_state = SMC_HS_CLC;
	smc_clcsock_sync(nsmc);
	INIT_WORK(&nsmc->hs_work, smc_listen_child_work);
	list_add_tail(&nsmc->child_entry, &lsmc->ls.hs_children);
	WRITE_ONCE(lsmc->ls.hs_count, lsmc->ls.hs_count + 1);
	/* Until the Proposal is in: no worker (nothing aborts it yet). */
	if (!smc_hs_park(nsmc))
		queue_work(smc_hs_wq, &nsmc->hs_work);
	return 0;
}

static void smc_listen_accept_work(struct work_struct *work)
{
	struct smc_sock *lsmc = container_of(work, struct smc_sock,
					     ls.accept_work);
	struct sock *lsk = &lsmc->sk;
	int rc = 0;

	lock_sock(lsk);
	/* TCP's admission of SYNs bounds how many there can be. */
	while (!rc && smc_is_smc_listener(lsmc))
		rc = smc_listen_take_one(lsmc);
	release_sock(lsk);
	if (rc && rc != -EAGAIN)
		pr_debug("listener could not take a connection: %d\n", rc);
	sock_put(lsk);	/* the reference of smc_listen_kick() */
}

int smc_listen_start(struct smc_sock *smc, struct socket *sock, int backlog)
{
	struct sock *sk = &smc->sk;
	struct sock *clcsk = smc->clcsock->sk;
	bool smc_ok;
	int rc;

	lock_sock(sk);
	/* A socket that connected, or must not use SMC, listens as TCP. */
	smc_ok = smc_hs_state(smc) == SMC_HS_NONE;
	if (smc_ok && inet_sk_state_load(clcsk) == TCP_CLOSE)
		WRITE_ONCE(tcp_sk(clcsk)->syn_smc, true);
	rc = smc_fb_listen(smc, sock, backlog);
	if (!rc && smc_ok) {
		WRITE_ONCE(sk->sk_max_ack_backlog, backlog);
		set_bit(SMC_F_LISTENER, &smc->flags);
		/* smc_listen_congested() reads us under RCU only. */
		sock_set_flag(sk, SOCK_RCU_FREE);
		WRITE_ONCE(tcp_sk(clcsk)->smc_hs_congested,
			   smc_listen_congested);
		/* Connections TCP queued before we listened as SMC. */
		smc_listen_kick(smc);
	}
	release_sock(sk);
	return rc;
}

int smc_listen_accept(struct smc_sock *lsmc, struct socket *newsock,
		      int flags)
{
	DEFINE_WAIT_FUNC(wait, woken_wake_function);
	struct sock *lsk = &lsmc->sk;
	struct smc_sock *nsmc = NULL;
	bool kick = false;
	long timeo;
	int rc = 0;

	lock_sock(lsk);
	timeo = sock_rcvtimeo(lsk, flags & O_NONBLOCK);
	add_wait_queue(sk_sleep(lsk), &wait);
	for (;;) {
		if (!smc_is_smc_listener(lsmc)) {
			rc = -EINVAL;	/* as TCP, once it stopped listening */
			break;
		}
		nsmc = list_first_entry_or_null(&lsmc->ls.ready,
						struct smc_sock, child_entry);
		if (nsmc) {
			list_del_init(&nsmc->child_entry);
			WRITE_ONCE(lsmc->ls.pending, lsmc->ls.pending - 1);
			smc_listen_count(lsmc, nsmc, false);
			kick = smc_listen_untaken(lsmc);
			break;
		}
		rc = smc_wait_check(timeo);
		if (rc)
			break;
		sk_wait_event(lsk, &timeo,
			      !list_empty(&lsmc->ls.ready) ||
			      !smc_is_smc_listener(lsmc), &wait);
	}
	remove_wait_queue(sk_sleep(lsk), &wait);
	release_sock(lsk);
	if (rc)
		return rc;

	/*
	 * nsmc is ours now. lsk stays alive through our caller's file, not
	 * through nsmc's reference, which we drop here.
	 */
	if (kick)
		smc_listen_kick(lsmc);
	sock_graft(&nsmc->sk, newsock);
	newsock->state = SS_CONNECTED;
	nsmc->listener = NULL;
	sock_put(lsk);
	smc_clcsock_prepare(nsmc, newsock);
	smc_clcsock_sync(nsmc);
	return 0;
}

__poll_t smc_listen_poll(struct smc_sock *smc)
{
	return list_empty_careful(&smc->ls.ready) ? 0 : EPOLLIN | EPOLLRDNORM;
}

/*
 * Stop taking connections: on close, and before shutdown() ends the
 * clcsock's listening. Children in their handshake are told to end it
 * and destroy themselves; ready ones are destroyed here.
 */
void smc_listen_stop(struct smc_sock *lsmc)
{
	struct sock *lsk = &lsmc->sk;
	struct smc_sock *nsmc, *tmp;
	LIST_HEAD(ready);

	lock_sock(lsk);
	if (!test_and_clear_bit(SMC_F_LISTENER, &lsmc->flags)) {
		release_sock(lsk);
		return;
	}
	/*
	 * Give back the children's places in the clcsock's accept queue
	 * while it still listens: TCP expects it empty when it stops.
	 */
	list_for_each_entry_safe(nsmc, tmp, &lsmc->ls.ready, child_entry) {
		list_move_tail(&nsmc->child_entry, &ready);
		WRITE_ONCE(lsmc->ls.pending, lsmc->ls.pending - 1);
		smc_listen_count(lsmc, nsmc, false);
	}
	list_for_each_entry(nsmc, &lsmc->ls.hs_children, child_entry) {
		smc_listen_count(lsmc, nsmc, false);
		smc_hs_abort_wait(nsmc);	/* parked: its work runs now */
	}
	/*
	 * A SYN may still be asking the function (it finds us no longer
	 * listening); this module stays loaded until we are freed, after
	 * a grace period.
	 */
	WRITE_ONCE(tcp_sk(lsmc->clcsock->sk)->smc_hs_congested, NULL);
	release_sock(lsk);
	lsk->sk_state_change(lsk);	/* accept() waiters: EINVAL */

	/*
	 * A ready child's handshake work may still be returning from the
	 * release_sock() in smc_listen_child_done(); it touches neither the
	 * child nor us after that, and module unload waits for it
	 * (destroy_workqueue()).
	 */
	list_for_each_entry_safe(nsmc, tmp, &ready, child_entry) {
		list_del_init(&nsmc->child_entry);
		smc_child_destroy(nsmc);
	}
	if (cancel_work_sync(&lsmc->ls.accept_work))
		sock_put(lsk);
}
