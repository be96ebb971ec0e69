/* SPDX-License-Identifier: GPL-2.0 */
/*
 * af_smc: Shared Memory Communications (AF_SMC) socket family.
 *
 * Shared definitions of the module. Every AF_SMC socket is a struct
 * smc_sock that owns an internal kernel TCP socket, the "clcsock". The
 * SMC handshake (CLC) runs over the clcsock once TCP is connected; when
 * it decides against SMC, the socket runs in fallback mode and every
 * byte travels over the clcsock.
 *
 * Lock order, outermost first:
 *   listening smc->sk lock  ->  smc->sk lock (lock_sock)
 *     ->  clcsock->sk lock (lock_sock)
 *       ->  clcsock->sk->sk_callback_lock (bh)
 * Callbacks of the clcsock run in softirq and take only the last one.
 */
#ifndef _SMC_H
#define _SMC_H

#include <linux/atomic.h>
#include <linux/list.h>
#include <linux/net.h>
#include <linux/sched/signal.h>
#include <linux/workqueue.h>
#include <net/inet_sock.h>
#include <net/sock.h>

#include <smc/af_smc.h>		/* SMCPROTO_SMC, SMCPROTO_SMC6, IPPROTO_SMC */

#include "smc_conn.h"

/*
 * Values of smc->sk.sk_state. They are the numbers the in-tree smc module
 * reports through sock_diag, so tools read both implementations alike;
 * SMC_LISTEN must equal TCP_LISTEN for SO_ACCEPTCONN, which the core
 * answers from sk_state without asking us.
 */
enum smc_state {
	SMC_ACTIVE		= 1,
	SMC_INIT		= 2,
	SMC_CLOSED		= 7,
	SMC_LISTEN		= 10,
	/* Closing an SMC connection (smc_close.c); smcss's names after '='. */
	SMC_PEERCLOSEWAIT1	= 20,	/* PEERCLW1: we stopped writing */
	SMC_PEERCLOSEWAIT2	= 21,	/* PEERCLW2: both stopped writing */
	SMC_APPCLOSEWAIT1	= 22,	/* APPLCLW1: the peer stopped writing */
	SMC_APPCLOSEWAIT2	= 23,	/* APPLCLW2: ... and then we did */
	SMC_APPFINCLOSEWAIT	= 24,	/* APPLFINCLW: we stopped, the peer closed */
	SMC_PEERFINCLOSEWAIT	= 25,	/* PEERFINCLW: closed, the peer only stopped */
	SMC_PEERABORTWAIT	= 26,	/* PEERABORTW: we aborted, the peer is open */
	SMC_PROCESSABORT	= 27,	/* PROCESSABORT: the peer aborted */
};

/* The clcsock's own callbacks, which our wrappers chain to. */
struct smc_clcsk_cbs {
	void (*data_ready)(struct sock *sk);
	void (*write_space)(struct sock *sk);
	void (*state_change)(struct sock *sk);
	void (*error_report)(struct sock *sk);
};

/*
 * Where a socket is in connection set-up (smc->hs_state). Data calls
 * wait while it is TCP or CLC (see smc_hs_settle()), so nothing the user
 * sends or reads can mix with the CLC messages on the clcsock.
 *
 *   NONE --connect--> TCP --TCP up, peer has SMC--> CLC --decided--> DONE
 *                      |  `-TCP up, peer without SMC option---------> DONE
 *                      `--TCP failed--> NONE
 *
 * A listener stays NONE; its children are CLC from their creation until
 * the listener queues them for accept(), DONE from then on. A socket
 * that must not use SMC (TCP_FASTOPEN) goes from NONE to DONE at once.
 */
enum smc_hs_state {
	SMC_HS_NONE,
	SMC_HS_TCP,
	SMC_HS_CLC,
	SMC_HS_DONE,
};

/*
 * What a listening smc sock keeps, all under its socket lock (lock_sock),
 * since every user runs in process context: accept(), the listen work and
 * the children's handshake work.
 */
struct smc_listen_state {
	struct work_struct	accept_work;	/* takes new clcsock children */
	struct list_head	hs_children;	/* children in their handshake */
	struct list_head	ready;		/* children waiting for accept() */
	unsigned int		pending;	/* entries on both lists */
	/*
	 * Entries on hs_children; also read locklessly (READ_ONCE) by
	 * smc_listen_congested() in softirq.
	 */
	unsigned int		hs_count;
	/* Children past their Proposal, holding a worker (smc_hs_limit.c). */
	atomic_t		hs_working;
};

struct smc_sock {
	/*
	 * First: sk_alloc() makes us. An IPPROTO_SMC socket is made by
	 * inet_create()/inet6_create(), which fill in an inet_sock's fields
	 * too (smc_inet.c); nothing of ours reads them.
	 */
	union {
		struct sock		sk;
		struct inet_sock	inet;
	};
	/*
	 * Set at creation (or accept) and cleared only in release, when no
	 * other syscall can be running on the socket, so ops use it without
	 * a lock.
	 */
	struct socket		*clcsock;
	/* The clcsock's own callbacks; under its sk_callback_lock. */
	struct smc_clcsk_cbs	clcsk_cb;
	/*
	 * True while data goes over the clcsock. Always true until the
	 * handshake exists; it will then be decided once per connection,
	 * before any data moves, and be read locklessly by the data ops.
	 */
	bool			use_fallback;
	unsigned long		flags;	/* SMC_F_*, atomic bitops */
	int			hs_state;	/* enum smc_hs_state, cmpxchg */
	/*
	 * Why this socket fell back (SMC_CLC_DECL_*, 0 while it has not)
	 * and the code of the Decline the peer sent (0 if none), the two
	 * numbers sock_diag reports. Written once, before hs_state becomes
	 * DONE.
	 */
	u32			fallback_rsn;
	u32			peer_diagnosis;
	/* The error a failed handshake ended the connection with. */
	int			hs_err;
	/*
	 * The clcsock error last copied into sk_err, so that reading it
	 * with SO_ERROR (which clears only ours) can clear the clcsock's.
	 */
	int			err_mirrored;
	/* The CLC handshake of a connecting socket or accepted child. */
	struct work_struct	hs_work;
	/* A child: its listener (a reference is held) and its list entry. */
	struct smc_sock		*listener;
	struct list_head	child_entry;
	/*
	 * A handshake waiting for the peer's next CLC message holds no
	 * worker ("parked", smc_hs_park()): the clcsock's callbacks queue
	 * hs_work, which looks whether it is all there (smc_hs_resume()),
	 * hs_timer ends the wait at hs_deadline. hs_ctx: what a client's
	 * handshake keeps across its wait for the Accept. hs_peer: a child's
	 * count in smc_hs_limit.c, once admitted.
	 */
	struct timer_list	hs_timer;
	unsigned long		hs_deadline;
	struct smc_connect_ctx	*hs_ctx;
	struct smc_hs_peer	*hs_peer;
	/*
	 * net.smc.limit_smc_hs when the socket was made, as Linux takes it:
	 * a listener then gives up SMC in new TCP handshakes while it is
	 * congested (smc_listen_congested()).
	 */
	bool			limit_hs;
	/* Only for a listening socket. */
	struct smc_listen_state	ls;
	/* The SMC connection, once the handshake chose SMC. */
	struct smc_conn		conn;
};

enum smc_sock_flags {
	/*
	 * A SOL_SOCKET option may have changed on sk and is not yet applied
	 * to the clcsock (see smc_sockopt.c).
	 */
	SMC_F_SOCKOPTS_DIRTY,
	/*
	 * The socket is being closed (or its listener is): a CLC wait in
	 * progress ends now. Waiters sleep on the clcsock's wait queue.
	 */
	SMC_F_HS_ABORT,
	/* The handshake aborted the TCP connection (smc_hs_fail()). */
	SMC_F_HS_FAILED,
	/*
	 * Listening with the SMC handshake: new connections go through
	 * smc_listen.c before accept() sees them. Set and cleared under the
	 * socket lock; read locklessly by the clcsock callbacks and poll.
	 */
	SMC_F_LISTENER,
	/*
	 * A child still counted in its listener's TCP accept queue
	 * (smc_listen_count()). Under the listener's socket lock.
	 */
	SMC_F_ACCEPTQ_COUNTED,
	/*
	 * A handshake waiting, without a worker, for the peer's next CLC
	 * message. Set under the clcsock's sk_callback_lock (write), cleared
	 * by test_and_clear_bit(); whoever clears it queues hs_work
	 * (smc_hs_event(), smc_hs_unpark()).
	 */
	SMC_F_HS_PARKED,
};

static inline struct smc_sock *smc_sk(const struct sock *sk)
{
	return (struct smc_sock *)sk;
}

static inline bool smc_use_fallback(const struct smc_sock *smc)
{
	return READ_ONCE(smc->use_fallback);
}

static inline int smc_hs_state(const struct smc_sock *smc)
{
	/* Pairs with the smp_store_release()s of DONE in smc_handshake.c. */
	return smp_load_acquire(&smc->hs_state);
}

/* Whether data calls may go ahead: no handshake is in progress. */
static inline bool smc_hs_settled(const struct smc_sock *smc)
{
	int hs = smc_hs_state(smc);

	return hs == SMC_HS_NONE || hs == SMC_HS_DONE;
}

/*
 * Before a blocking call sleeps again: 0 while it may, else -EAGAIN when
 * its time (SO_RCVTIMEO, SO_SNDTIMEO, or none for non-blocking) is used
 * up, or the errno of a pending signal, as TCP's calls answer.
 */
static inline int smc_wait_check(long timeo)
{
	if (!timeo)
		return -EAGAIN;
	if (signal_pending(current))
		return sock_intr_errno(timeo);
	return 0;
}

/* smc_main.c */
extern atomic_t smc_live_socks;
extern struct workqueue_struct *smc_hs_wq;	/* CLC handshakes */
extern struct workqueue_struct *smc_accept_wq;	/* listeners' accept work */
extern struct workqueue_struct *smc_close_wq;	/* closed sockets' ends */
extern struct workqueue_struct *smc_tx_wq;	/* send buffer pushes */

/*
 * Every smc sock from smc_sock_init() until it is released or, for a
 * child that was never accepted, destroyed; on sk_node. sock_diag reads
 * it. The lock is only ever taken in process context.
 */
struct smc_sock_list {
	rwlock_t		lock;
	struct hlist_head	head;
	/*
	 * Changes with every socket added or removed, never 0 (under the
	 * write lock): a sock_diag dump in parts tells its reader when the
	 * list changed between them (NLM_F_DUMP_INTR).
	 */
	unsigned int		gen;
};

/* smc_socket.c */
extern struct smc_sock_list smc_sock_list;
void smc_sock_list_del(struct sock *sk);
extern struct proto smc_proto;
extern struct proto smc_proto6;
extern const struct net_proto_family smc_family;
extern const struct proto_ops smc_ops, smc_inet_ops, smc_inet6_ops;
struct sock *smc_sk_alloc(struct net *net, int protocol, int kern);
struct sock *smc_sk_alloc_child(const struct sock *lsk, int kern);
void smc_sock_init(struct socket *sock, struct sock *sk, int protocol);
void smc_sock_setup(struct sock *sk, int protocol);
void smc_sock_attach(struct sock *sk, struct socket *clcsock);

/*
 * The address family of smc's clcsock, and so of every address the
 * socket takes and gives: AF_SMC's is in its protocol (SMCPROTO_SMC6 is
 * IPv6), IPPROTO_SMC's is the socket's own family.
 */
static inline int smc_addr_family(const struct sock *sk)
{
	if (sk->sk_family == AF_SMC)
		return sk->sk_protocol == SMCPROTO_SMC6 ? AF_INET6 : AF_INET;
	return sk->sk_family;
}

/* IPPROTO_SMC (smc_inet.c): socket(AF_INET or AF_INET6, SOCK_STREAM, 256). */
int smc_inet_init(void);
void smc_inet_exit(void);
void smc_inet_child_init(struct sock *sk);

/* smc_handshake.c: the connecting side and what both sides share */
void smc_hs_init(struct smc_sock *smc);
void smc_hs_tcp_progress(struct smc_sock *smc, const struct sock *clcsk);
int smc_hs_connect(struct smc_sock *smc, struct socket *sock,
		   struct sockaddr *addr, int alen, int flags);
int smc_hs_settle(struct smc_sock *smc, long timeo);
void smc_hs_force_fallback(struct smc_sock *smc, u32 reason);
void smc_hs_abort_wait(struct smc_sock *smc);
void smc_hs_cancel(struct smc_sock *smc);
void smc_hs_set_fallback(struct smc_sock *smc, u32 reason, u32 peer_diag);
void smc_hs_set_smc(struct smc_sock *smc);
void smc_hs_finish(struct smc_sock *smc);
void smc_hs_fail(struct smc_sock *smc, int err);
bool smc_hs_park(struct smc_sock *smc);
void smc_hs_unpark(struct smc_sock *smc);
void smc_hs_unparked(struct smc_sock *smc);
bool smc_hs_resume(struct smc_sock *smc);
long smc_hs_time_left(const struct smc_sock *smc);

/*
 * A clcsock event (data, state, error; the callback holds clcsk's
 * sk_callback_lock for reading), or the park's timer: a parked handshake
 * goes on, and hs_work looks whether its message is in (smc_hs_resume()).
 */
static inline void smc_hs_event(struct smc_sock *smc)
{
	if (test_bit(SMC_F_HS_PARKED, &smc->flags) &&
	    test_and_clear_bit(SMC_F_HS_PARKED, &smc->flags))
		queue_work(smc_hs_wq, &smc->hs_work);
}

/* smc_listen.c: the listening side */
void smc_listen_init(struct smc_sock *smc);
int smc_listen_start(struct smc_sock *smc, struct socket *sock, int backlog);
int smc_listen_accept(struct smc_sock *lsmc, struct socket *newsock,
		      int flags);
__poll_t smc_listen_poll(struct smc_sock *smc);
void smc_listen_kick(struct smc_sock *smc);
void smc_listen_stop(struct smc_sock *smc);

static inline bool smc_is_smc_listener(const struct smc_sock *smc)
{
	return test_bit(SMC_F_LISTENER, &smc->flags);
}

/* smc_hs_limit.c: bounds on the server handshakes that hold a worker */
struct smc_hs_peer;
bool smc_hs_admit(struct smc_sock *nsmc);
void smc_hs_release(struct smc_sock *nsmc);

/* smc_clcsock.c */
int smc_clcsock_create(struct net *net, int family, int kern,
		       struct socket **res);
void smc_clcsock_attach(struct smc_sock *smc, struct socket *clcsock,
			const struct smc_clcsk_cbs *inherited);
void smc_clcsock_release(struct smc_sock *smc);
void smc_clcsock_orphan(struct smc_sock *smc, bool abort);
void smc_clcsock_prepare(struct smc_sock *smc, struct socket *sock);
void smc_clcsock_sync(struct smc_sock *smc);
void smc_clcsock_consumed_error(struct smc_sock *smc, long rc);
void smc_clcsock_detach(struct smc_sock *smc);
/* The VLAN the connection's TCP route leaves on; 0 for none. */
u16 smc_clcsock_vlan(struct smc_sock *smc);

/* smc_fallback.c: the socket calls, carried out over the clcsock */
int smc_fb_connect(struct smc_sock *smc, struct socket *sock,
		   struct sockaddr *addr, int alen, int flags);
int smc_fb_listen(struct smc_sock *smc, struct socket *sock, int backlog);
int smc_fb_accept(struct smc_sock *lsmc, struct socket *sock,
		  struct socket *newsock, int flags, bool kern);
__poll_t smc_fb_poll(struct smc_sock *smc, struct file *file);
int smc_fb_ioctl(struct smc_sock *smc, unsigned int cmd, unsigned long arg);
int smc_fb_shutdown(struct smc_sock *smc, int how);
int smc_fb_sendmsg(struct smc_sock *smc, struct socket *sock,
		   struct msghdr *msg, size_t len);
int smc_fb_recvmsg(struct smc_sock *smc, struct socket *sock,
		   struct msghdr *msg, size_t len, int flags);
ssize_t smc_fb_sendpage(struct smc_sock *smc, struct socket *sock,
			struct page *page, int offset, size_t size, int flags);
ssize_t smc_fb_splice_read(struct smc_sock *smc, struct socket *sock,
			   loff_t *ppos, struct pipe_inode_info *pipe,
			   size_t len, unsigned int flags);
void smc_fb_splice_eof(struct smc_sock *smc);

/* smc_objects.c: debugfs af_smc/objects */
struct dentry;
void smc_objects_debugfs(struct dentry *dir);

/* smc_diag.c */
int smc_diag_init(void);
void smc_diag_exit(void);

/* smc_sockopt.c */
int smc_setsockopt(struct socket *sock, int level, int optname,
		   sockptr_t optval, unsigned int optlen);
int smc_getsockopt(struct socket *sock, int level, int optname,
		   char __user *optval, int __user *optlen);
int smc_set_rcvlowat(struct sock *sk, int val);
void smc_keepalive(struct sock *sk, int valbool);
void smc_release_cb(struct sock *sk);
void smc_sockopts_push(struct smc_sock *smc);
void smc_sockopts_inherit(struct sock *sk, const struct sock *clcsk);
bool smc_sockopt_forces_fallback(int level, int optname);

#endif /* _SMC_H */
