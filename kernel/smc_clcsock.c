// SPDX-License-Identifier: GPL-2.0
/*
 * af_smc: the clcsock, the internal TCP socket every smc sock owns.
 *
 * Lifetime: the smc sock creates (or accepts) its clcsock and releases it
 * in its own release, so the clcsock never outlives the struct socket of
 * the smc sock. Callers of the socket ops use smc->clcsock without a lock
 * because release cannot run while any of them is in progress.
 *
 * Callbacks: TCP reports progress on the clcsock through sk_data_ready,
 * sk_write_space, sk_state_change and sk_error_report. We wrap those four
 * to (a) mirror sk_err and the state into our sk, which is what
 * getsockopt(SO_ERROR) and SO_ACCEPTCONN read, since the core answers
 * SOL_SOCKET getsockopt from our sk and never asks us, and (b) forward
 * every wakeup to our own wait queue, where pollers and fasync wait.
 * The wrappers find the smc sock through sk_user_data under the clcsock's
 * sk_callback_lock, which attach and detach take for writing: a wrapper
 * sees either a live owner or none.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/if_vlan.h>
#include <linux/net.h>
#include <net/inet_sock.h>
#include <net/sock.h>
#include <net/tcp.h>
#include <net/tcp_states.h>

#include "smc.h"
#include "smc_conn.h"

/*
 * A user's AF_SMC socket gets its clcsock made the way a user's TCP socket
 * would be (kern == 0): LSM hooks check it against the calling task, and
 * it holds a reference on the network namespace. A kernel socket does not
 * pin its namespace, yet TCP keeps a closed clcsock alive for FIN_WAIT or
 * retransmission timers after our release; those timers would then run
 * in a freed namespace. An in-kernel user of AF_SMC (kern != 0) gets a
 * kernel clcsock, exactly like the TCP sockets it makes itself: such users
 * close their sockets from the namespace's exit hook, which never runs if
 * the namespace is pinned.
 */
int smc_clcsock_create(struct net *net, int family, int kern,
		       struct socket **res)
{
	return __sock_create(net, family, SOCK_STREAM, IPPROTO_TCP, res, kern);
}

/*
 * The smc sock owning clcsk, or NULL. It is NULL for a child that the
 * listening clcsock cloned and we have not accepted yet (SK_USER_DATA_NOCOPY
 * keeps the clone from copying the pointer), and after detach.
 * Caller holds clcsk->sk_callback_lock.
 */
static struct smc_sock *smc_clcsk_owner(const struct sock *clcsk)
{
	return __locked_read_sk_user_data_with_flags(clcsk,
						     SK_USER_DATA_NOCOPY);
}

static int smc_state_of(const struct smc_sock *smc, int tcp_state)
{
	/* Connected TCP is not yet a connected socket during the handshake. */
	if (!smc_hs_settled(smc) && tcp_state != TCP_CLOSE)
		return SMC_INIT;
	switch (tcp_state) {
	case TCP_LISTEN:
		return SMC_LISTEN;
	case TCP_CLOSE:
		return SMC_CLOSED;
	case TCP_SYN_SENT:
	case TCP_SYN_RECV:
		return SMC_INIT;
	default:	/* established, or closing with data in flight */
		return SMC_ACTIVE;
	}
}

/*
 * Copy what the core reads from our sk. Callers hold the clcsock's socket
 * lock or run in its callbacks (which TCP calls under that lock), so the
 * copies follow clcsk's own changes in order.
 *
 * An error is copied, never cleared: TCP clears sk_err when a call reports
 * it, and smc_clcsock_consumed_error() then clears our copy.
 */
static void smc_mirror(struct smc_sock *smc, const struct sock *clcsk)
{
	int err = READ_ONCE(clcsk->sk_err);

	/*
	 * Over SMC the clcsock idles and its end means nothing: our state
	 * and errors are the close state machine's (smc_close.c). It owns
	 * sk_state as soon as the connection exists, before the handshake
	 * ends, since the peer's CDCs may arrive before that.
	 */
	if (!smc_use_fallback(smc) || READ_ONCE(smc->conn.ops))
		return;

	if (err) {
		WRITE_ONCE(smc->sk.sk_err, err);
		WRITE_ONCE(smc->err_mirrored, err);
	}
	WRITE_ONCE(smc->sk.sk_state,
		   smc_state_of(smc, inet_sk_state_load(clcsk)));
}

/*
 * Over SMC the clcsock only idles (and closes along with the connection,
 * for TCP_INFO's sake): its events are none of our socket's business, and
 * a wakeup forwarded from it would be one epoll (EPOLLET) never saw on TCP.
 */
static bool smc_clcsk_idle(const struct smc_sock *smc)
{
	return !smc_use_fallback(smc);
}

/*
 * Over SMC the peer neither writes to the clcsock nor resets it while it
 * keeps the connection: bytes there are its Decline of our Confirm (it
 * dropped the connection that we already took as up, see
 * Documentation/security.md, "A randomized hostile peer"), and a reset is
 * its drop of the TCP connection, or its abort (over SMC-R the RST of an
 * aborting peer may come before its abort CDC). Either way it is a reset,
 * as on TCP; without this our socket would wait forever for a peer that
 * never had the connection. A FIN means nothing here: over SMC-R it may
 * overtake the close CDC it follows. In the clcsock's callbacks.
 */
static void smc_clcsk_idle_event(struct smc_sock *smc, struct sock *clcsk,
				 bool data)
{
	if (!READ_ONCE(smc->conn.ops))
		return;		/* no SMC connection (yet, or any more) */
	if (data ? tcp_inq(clcsk) > 0 : READ_ONCE(clcsk->sk_err) != 0)
		smc_close_peer_reset(smc);
}

/*
 * A wrapper that finds no owner drops the event. For an unaccepted child
 * that is what TCP's own callback would do: it has no socket and no wait
 * queue yet. For a clcsock being detached, nobody waits on it: release
 * runs with no call in progress, and tcp_close() cannot sleep on it before
 * a racing callback, which holds the socket spinlock, is done.
 */
static void smc_clcsk_data_ready(struct sock *clcsk)
{
	struct smc_sock *smc;

	read_lock_bh(&clcsk->sk_callback_lock);
	smc = smc_clcsk_owner(clcsk);
	if (smc && smc_clcsk_idle(smc)) {
		smc->clcsk_cb.data_ready(clcsk);
		smc_clcsk_idle_event(smc, clcsk, true);
	} else if (smc) {
		smc->clcsk_cb.data_ready(clcsk);
		/*
		 * On a listening clcsock this means a new connection: an SMC
		 * listener takes it through its handshake first and wakes
		 * accept() only when it is ready.
		 */
		if (smc_is_smc_listener(smc)) {
			smc_listen_kick(smc);
		} else {
			smc_hs_event(smc);
			smc->sk.sk_data_ready(&smc->sk);
		}
	}
	read_unlock_bh(&clcsk->sk_callback_lock);
}

static void smc_clcsk_write_space(struct sock *clcsk)
{
	struct smc_sock *smc;

	read_lock_bh(&clcsk->sk_callback_lock);
	smc = smc_clcsk_owner(clcsk);
	if (smc && smc_clcsk_idle(smc)) {
		smc->clcsk_cb.write_space(clcsk);
	} else if (smc) {
		smc->clcsk_cb.write_space(clcsk);
		/*
		 * TCP's callback clears SOCK_NOSPACE only once the stream has
		 * room again; forward just those. TCP never marks the clcsock
		 * for SIGIO (its own fasync list is empty), so mark ours; our
		 * sock_def_write_space() then signals O_ASYNC owners.
		 */
		if (!test_bit(SOCK_NOSPACE, &smc->clcsock->flags)) {
			sk_set_bit(SOCKWQ_ASYNC_NOSPACE, &smc->sk);
			smc->sk.sk_write_space(&smc->sk);
		}
	}
	read_unlock_bh(&clcsk->sk_callback_lock);
}

static void smc_clcsk_state_change(struct sock *clcsk)
{
	struct smc_sock *smc;

	read_lock_bh(&clcsk->sk_callback_lock);
	smc = smc_clcsk_owner(clcsk);
	if (smc && smc_clcsk_idle(smc)) {
		smc->clcsk_cb.state_change(clcsk);
	} else if (smc) {
		/*
		 * Mirror before anyone wakes: tcp_reset() sets sk_err and
		 * reports the new state before it calls sk_error_report, and
		 * a poller woken here must already read SO_ERROR right.
		 */
		smc_hs_tcp_progress(smc, clcsk);
		smc_hs_event(smc);
		smc_mirror(smc, clcsk);
		smc->clcsk_cb.state_change(clcsk);
		smc->sk.sk_state_change(&smc->sk);
	}
	read_unlock_bh(&clcsk->sk_callback_lock);
}

static void smc_clcsk_error_report(struct sock *clcsk)
{
	struct smc_sock *smc;

	read_lock_bh(&clcsk->sk_callback_lock);
	smc = smc_clcsk_owner(clcsk);
	if (smc && smc_clcsk_idle(smc)) {
		smc->clcsk_cb.error_report(clcsk);
		smc_clcsk_idle_event(smc, clcsk, false);
	} else if (smc) {
		smc_hs_event(smc);
		smc_mirror(smc, clcsk);
		smc->clcsk_cb.error_report(clcsk);
		sk_error_report(&smc->sk);
	}
	read_unlock_bh(&clcsk->sk_callback_lock);
}

typedef void (*smc_sk_cb_t)(struct sock *sk);

/*
 * The callback to chain to: clcsk's current one, unless that is our own
 * wrapper, which an accepted child copied from the listening clcsock; the
 * child then chains to what the listener had before we wrapped it, which
 * is what the child would have had without us.
 */
static smc_sk_cb_t smc_cb_orig(smc_sk_cb_t cur, smc_sk_cb_t wrapper,
			       smc_sk_cb_t inherited)
{
	if (cur != wrapper)
		return cur;
	WARN_ON_ONCE(!inherited);
	return inherited;
}

/*
 * Make clcsock smc's clcsock and wrap its callbacks. @inherited are the
 * listening smc sock's saved callbacks when clcsock was just accepted,
 * else NULL. Our wrappers stay on a listening clcsock, so its children
 * inherit them (with sk_user_data cleared); accept() rewires each child
 * here, under its callback lock, before it serves anyone.
 */
void smc_clcsock_attach(struct smc_sock *smc, struct socket *clcsock,
			const struct smc_clcsk_cbs *inherited)
{
	static const struct smc_clcsk_cbs none;
	const struct smc_clcsk_cbs *inh = inherited ?: &none;
	struct smc_clcsk_cbs *cb = &smc->clcsk_cb;
	struct sock *clcsk = clcsock->sk;

	smc->clcsock = clcsock;
	write_lock_bh(&clcsk->sk_callback_lock);
	cb->data_ready = smc_cb_orig(clcsk->sk_data_ready,
				     smc_clcsk_data_ready, inh->data_ready);
	cb->write_space = smc_cb_orig(clcsk->sk_write_space,
				      smc_clcsk_write_space, inh->write_space);
	cb->state_change = smc_cb_orig(clcsk->sk_state_change,
				       smc_clcsk_state_change,
				       inh->state_change);
	cb->error_report = smc_cb_orig(clcsk->sk_error_report,
				       smc_clcsk_error_report,
				       inh->error_report);
	clcsk->sk_data_ready = smc_clcsk_data_ready;
	clcsk->sk_write_space = smc_clcsk_write_space;
	clcsk->sk_state_change = smc_clcsk_state_change;
	clcsk->sk_error_report = smc_clcsk_error_report;
	__rcu_assign_sk_user_data_with_flags(clcsk, smc, SK_USER_DATA_NOCOPY);
	write_unlock_bh(&clcsk->sk_callback_lock);
}

/*
 * Give the clcsock back its own callbacks; no wrapper sees smc after.
 * Doing it twice is harmless: release detaches before it waits for a
 * handshake work, and again on its way out.
 */
void smc_clcsock_detach(struct smc_sock *smc)
{
	struct sock *clcsk = smc->clcsock->sk;

	write_lock_bh(&clcsk->sk_callback_lock);
	if (smc_clcsk_owner(clcsk) != smc) {
		write_unlock_bh(&clcsk->sk_callback_lock);
		return;
	}
	clcsk->sk_data_ready = smc->clcsk_cb.data_ready;
	clcsk->sk_write_space = smc->clcsk_cb.write_space;
	clcsk->sk_state_change = smc->clcsk_cb.state_change;
	clcsk->sk_error_report = smc->clcsk_cb.error_report;
	rcu_assign_sk_user_data(clcsk, NULL);
	write_unlock_bh(&clcsk->sk_callback_lock);
}

/*
 * Called from our release only. Closing a listening clcsock resets and
 * frees its unaccepted children (which still carry our wrappers but no
 * owner, so the wrappers drop their events) before sock_release returns,
 * while the module is still pinned by the socket being released.
 */
void smc_clcsock_release(struct smc_sock *smc)
{
	struct socket *clcsock = smc->clcsock;

	smc_close_rst_stop(smc);
	/* SO_LINGER decides how tcp_close() ends. */
	smc_sockopts_push(smc);
	smc_clcsock_detach(smc);
	if (clcsock->file) {
		/*
		 * The socket lock keeps softirq (sk_send_sigurg) off the file
		 * pointer while we take it back; __sock_release() must see
		 * NULL to free the clcsock's inode.
		 */
		lock_sock(clcsock->sk);
		clcsock->file = NULL;
		release_sock(clcsock->sk);
	}
	smc->clcsock = NULL;
	sock_release(clcsock);
}

/*
 * Before a call that the clcsock carries out: apply pending SOL_SOCKET
 * options, and lend the clcsock our file. tcp_splice_read() reads
 * O_NONBLOCK from sock->file and TCP sends SIGURG to the owner of
 * sk_socket->file, so both must find the file the user holds. The value
 * never changes for a socket, so racing callers store the same pointer;
 * smc_clcsock_release() takes it back.
 */
void smc_clcsock_prepare(struct smc_sock *smc, struct socket *sock)
{
	int mirrored = READ_ONCE(smc->err_mirrored);

	/*
	 * getsockopt(SO_ERROR) cleared our copy of a clcsock error; on TCP
	 * that read would have cleared the error itself, so do it now.
	 */
	if (mirrored && !READ_ONCE(smc->sk.sk_err)) {
		cmpxchg(&smc->clcsock->sk->sk_err, mirrored, 0);
		WRITE_ONCE(smc->err_mirrored, 0);
	}
	smc_sockopts_push(smc);
	if (sock->file && !READ_ONCE(smc->clcsock->file))
		WRITE_ONCE(smc->clcsock->file, sock->file);
}

/* After a call that may have changed the clcsock's state. */
void smc_clcsock_sync(struct smc_sock *smc)
{
	struct sock *clcsk = smc->clcsock->sk;

	lock_sock(clcsk);
	smc_mirror(smc, clcsk);
	release_sock(clcsk);
}

/*
 * A clcsock call that failed with -E has usually reported (and so cleared)
 * clcsk->sk_err == E. Clear our copy too, or SO_ERROR would report the
 * same error a second time. A new error that arrived meanwhile is kept
 * unless it is the same number, which is harmless.
 */
void smc_clcsock_consumed_error(struct smc_sock *smc, long rc)
{
	if (rc < 0 && rc >= -MAX_ERRNO) {
		cmpxchg(&smc->sk.sk_err, (int)-rc, 0);
		cmpxchg(&smc->err_mirrored, (int)-rc, 0);
	}
}

/*
 * An SMC connection outliving its file (smc_close.c): the clcsock stops
 * reporting to us and gives the file back now; smc_clcsock_release()
 * frees it when the connection ends.
 */
void smc_clcsock_orphan(struct smc_sock *smc, bool abort)
{
	struct socket *clcsock = smc->clcsock;

	smc_close_rst_stop(smc);
	smc_clcsock_detach(smc);
	/* The peer's clcsock shows the end as TCP would (TCP_INFO). */
	if (abort)
		tcp_abort(clcsock->sk, ECONNABORTED);
	else
		kernel_sock_shutdown(clcsock, SHUT_RDWR);
	if (clcsock->file) {
		lock_sock(clcsock->sk);
		clcsock->file = NULL;
		release_sock(clcsock->sk);
	}
}

/* The VLAN the connection's TCP route leaves on; 0 for none. */
u16 smc_clcsock_vlan(struct smc_sock *smc)
{
	struct dst_entry *dst;
	u16 vlan = 0;

	rcu_read_lock();
	dst = __sk_dst_get(smc->clcsock->sk);
	if (dst && dst->dev && is_vlan_dev(dst->dev))
		vlan = vlan_dev_vlan_id(dst->dev);
	rcu_read_unlock();
	return vlan;
}
