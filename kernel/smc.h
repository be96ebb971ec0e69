/* SPDX-License-Identifier: GPL-2.0 */
/*
 * af_smc: Shared Memory Communications (AF_SMC) socket family.
 *
 * Shared definitions of the module. Every AF_SMC socket is a struct
 * smc_sock that owns an internal kernel TCP socket, the "clcsock". The
 * SMC handshake (CLC) will run over the clcsock; until it exists, and
 * whenever it decides against SMC, the socket runs in fallback mode and
 * every byte travels over the clcsock.
 *
 * Lock order, outermost first:
 *   smc->sk lock (lock_sock)  ->  clcsock->sk lock (lock_sock)
 *     ->  clcsock->sk->sk_callback_lock (bh)
 * Callbacks of the clcsock run in softirq and take only the last one.
 */
#ifndef _SMC_H
#define _SMC_H

#include <linux/atomic.h>
#include <linux/net.h>
#include <net/sock.h>

#include <smc/af_smc.h>		/* SMCPROTO_SMC, SMCPROTO_SMC6 */

/*
 * Values of smc->sk.sk_state. They are the numbers the in-tree smc module
 * reports through sock_diag, so tools read both implementations alike;
 * SMC_LISTEN must equal TCP_LISTEN for SO_ACCEPTCONN, which the core
 * answers from sk_state without asking us.
 */
enum smc_state {
	SMC_ACTIVE	= 1,
	SMC_INIT	= 2,
	SMC_CLOSED	= 7,
	SMC_LISTEN	= 10,
};

/* The clcsock's own callbacks, which our wrappers chain to. */
struct smc_clcsk_cbs {
	void (*data_ready)(struct sock *sk);
	void (*write_space)(struct sock *sk);
	void (*state_change)(struct sock *sk);
	void (*error_report)(struct sock *sk);
};

struct smc_sock {
	struct sock		sk;	/* first: sk_alloc() makes us */
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
};

enum smc_sock_flags {
	/*
	 * A SOL_SOCKET option may have changed on sk and is not yet applied
	 * to the clcsock (see smc_sockopt.c).
	 */
	SMC_F_SOCKOPTS_DIRTY,
};

static inline struct smc_sock *smc_sk(const struct sock *sk)
{
	return (struct smc_sock *)sk;
}

static inline bool smc_use_fallback(const struct smc_sock *smc)
{
	return READ_ONCE(smc->use_fallback);
}

/* smc_main.c */
extern atomic_t smc_live_socks;

/* smc_socket.c */
extern struct proto smc_proto;
extern struct proto smc_proto6;
extern const struct net_proto_family smc_family;
struct sock *smc_sk_alloc(struct net *net, int protocol, int kern);
void smc_sock_init(struct socket *sock, struct sock *sk, int protocol);

/* smc_clcsock.c */
int smc_clcsock_create(struct net *net, int protocol, int kern,
		       struct socket **res);
void smc_clcsock_attach(struct smc_sock *smc, struct socket *clcsock,
			const struct smc_clcsk_cbs *inherited);
void smc_clcsock_release(struct smc_sock *smc);
void smc_clcsock_prepare(struct smc_sock *smc, struct socket *sock);
void smc_clcsock_sync(struct smc_sock *smc);
void smc_clcsock_consumed_error(struct smc_sock *smc, long rc);

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

#endif /* _SMC_H */
