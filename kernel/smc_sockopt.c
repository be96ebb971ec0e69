// SPDX-License-Identifier: GPL-2.0
/*
 * af_smc: socket options.
 *
 * Levels other than SOL_SOCKET (SOL_TCP, SOL_IP, SOL_IPV6) belong to the
 * clcsock and are passed to it.
 *
 * SOL_SOCKET is harder. In Linux 6.1 the syscall layer applies every
 * SOL_SOCKET setsockopt with sock_setsockopt() to our own sk and calls
 * proto_ops->setsockopt only for MPTCP (SOCK_CUSTOM_SOCKOPT, which would
 * let us opt in, came in a later release), and it answers every
 * SOL_SOCKET getsockopt from our sk. So our sk holds the options the user
 * set, already validated and permission-checked by the core, and we copy
 * them to the clcsock, which carries the data:
 *  - SO_KEEPALIVE and SO_RCVLOWAT at once, through the two hooks the core
 *    calls while it sets them (proto->keepalive, proto_ops->set_rcvlowat);
 *  - the others lazily: each SOL_SOCKET setsockopt ends in release_sock()
 *    on our sk, whose proto->release_cb marks the socket dirty, and the
 *    next call that goes to the clcsock (and release, for SO_LINGER)
 *    applies them first. The table is in smc_sockopts_apply().
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/net.h>
#include <linux/sockptr.h>
#include <linux/tcp.h>
#include <net/sock.h>

#include "smc.h"
#include "smc_clc_io.h"
#include "smc_conn.h"
#include "smc_stats.h"

static void smc_sockopt_fallback(struct smc_sock *smc);

/*
 * TCP_CORK or TCP_NODELAY, which the clcsock took (so optval holds an
 * int). As TCP, ending a cork or setting TCP_NODELAY sends what waits.
 * On a connection that is up, ending a cork and setting TCP_NODELAY are
 * counted, as Linux counts them (CORK_CNT, NDLY_CNT); before the
 * connection, and once it is gone, they are not.
 */
static void smc_sockopt_tx(struct smc_sock *smc, int optname, sockptr_t optval)
{
	int val;

	if (!smc_tx_cork_set(smc))
		smc_tx_uncork(smc);
	if (!smc_tx_up(smc) || copy_from_sockptr(&val, optval, sizeof(val)))
		return;
	if (optname == TCP_CORK && !val)
		smc_stats_cork(smc);
	else if (optname == TCP_NODELAY && val)
		smc_stats_nodelay(smc);
}

int smc_setsockopt(struct socket *sock, int level, int optname,
		   sockptr_t optval, unsigned int optlen)
{
	struct socket *clcsock = smc_sk(sock->sk)->clcsock;
	int rc;

	/* Not routed here on 6.1 (see above); kept right should that change. */
	if (level == SOL_SOCKET)
		return sock_setsockopt(sock, level, optname, optval, optlen);
	/*
	 * A ULP (kTLS, ...) would take over the clcsock's proto and the
	 * callbacks we wrap, and keep ours in its own chain after we restore
	 * the originals at release.
	 */
	if (level == SOL_TCP && optname == TCP_ULP)
		return -EOPNOTSUPP;
	if (!clcsock->ops->setsockopt)
		return -EOPNOTSUPP;
	rc = clcsock->ops->setsockopt(clcsock, level, optname, optval, optlen);
	if (!rc && smc_sockopt_forces_fallback(level, optname))
		smc_sockopt_fallback(smc_sk(sock->sk));
	if (!rc && level == SOL_TCP &&
	    (optname == TCP_CORK || optname == TCP_NODELAY) &&
	    !smc_use_fallback(smc_sk(sock->sk)))
		smc_sockopt_tx(smc_sk(sock->sk), optname, optval);
	return rc;
}

/*
 * TCP Fast Open puts data into the SYN, before SMC could be negotiated,
 * so a socket that enables it is TCP only (as with Linux's SMC).
 */
bool smc_sockopt_forces_fallback(int level, int optname)
{
	if (level != SOL_TCP)
		return false;
	return optname == TCP_FASTOPEN || optname == TCP_FASTOPEN_CONNECT ||
	       optname == TCP_FASTOPEN_KEY ||
	       optname == TCP_FASTOPEN_NO_COOKIE;
}

/*
 * Before connect or listen, the socket simply never offers SMC. A
 * listener stops offering it in SYN-ACKs; its later children fall back
 * for this reason instead of "peer has no SMC". A connected socket has
 * decided already and keeps its decision.
 */
static void smc_sockopt_fallback(struct smc_sock *smc)
{
	struct sock *clcsk = smc->clcsock->sk;

	lock_sock(&smc->sk);
	if (smc_is_smc_listener(smc)) {
		smc->fallback_rsn = SMC_CLC_DECL_OPTUNSUPP;
		lock_sock(clcsk);
		WRITE_ONCE(tcp_sk(clcsk)->syn_smc, false);
		release_sock(clcsk);
	} else if (smc_hs_state(smc) == SMC_HS_NONE) {
		smc_hs_force_fallback(smc, SMC_CLC_DECL_OPTUNSUPP);
	}
	release_sock(&smc->sk);
}

/*
 * The core never routes SOL_SOCKET here (and sock_getsockopt() is not
 * exported in 6.1); it answers from our sk, which is why SO_ERROR and
 * sk_state are mirrored there.
 */
int smc_getsockopt(struct socket *sock, int level, int optname,
		   char __user *optval, int __user *optlen)
{
	struct socket *clcsock = smc_sk(sock->sk)->clcsock;

	if (level == SOL_SOCKET || !clcsock->ops->getsockopt)
		return -EOPNOTSUPP;
	return clcsock->ops->getsockopt(clcsock, level, optname, optval,
					optlen);
}

static int smc_clcsock_setsockopt_int(struct smc_sock *smc, int optname,
				      int val)
{
	return sock_setsockopt(smc->clcsock, SOL_SOCKET, optname,
			       KERNEL_SOCKPTR(&val), sizeof(val));
}

/*
 * proto_ops->set_rcvlowat, called by sock_setsockopt(SO_RCVLOWAT) with our
 * sk locked. TCP clamps the value and may grow its receive buffer; show
 * the value TCP took, as getsockopt on a TCP socket would.
 */
int smc_set_rcvlowat(struct sock *sk, int val)
{
	struct smc_sock *smc = smc_sk(sk);
	int rc;

	rc = smc_clcsock_setsockopt_int(smc, SO_RCVLOWAT, val);
	if (!rc)
		WRITE_ONCE(sk->sk_rcvlowat,
			   READ_ONCE(smc->clcsock->sk->sk_rcvlowat));
	return rc;
}

/*
 * proto->keepalive, called by sock_setsockopt(SO_KEEPALIVE) with our sk
 * locked; the core sets SOCK_KEEPOPEN on our sk itself. TCP arms or stops
 * the keepalive timer of the clcsock here and now.
 */
void smc_keepalive(struct sock *sk, int valbool)
{
	smc_clcsock_setsockopt_int(smc_sk(sk), SO_KEEPALIVE, valbool);
}

/*
 * proto->release_cb: runs at every release_sock() of our sk, so after
 * every SOL_SOCKET setsockopt. BHs are off and sk_lock.slock is held, so
 * only mark; smc_sockopts_push() does the work in process context.
 */
void smc_release_cb(struct sock *sk)
{
	set_bit(SMC_F_SOCKOPTS_DIRTY, &smc_sk(sk)->flags);
}

/* Which SOL_SOCKET options reach the clcsock lazily, and how. */
static void smc_sockopts_apply(const struct sock *sk, struct sock *clcsk)
{
	bool dst_stale = false;

	WRITE_ONCE(clcsk->sk_rcvtimeo, READ_ONCE(sk->sk_rcvtimeo));
	WRITE_ONCE(clcsk->sk_sndtimeo, READ_ONCE(sk->sk_sndtimeo));
	WRITE_ONCE(clcsk->sk_lingertime, READ_ONCE(sk->sk_lingertime));
	sock_valbool_flag(clcsk, SOCK_LINGER, sock_flag(sk, SOCK_LINGER));
	sock_valbool_flag(clcsk, SOCK_URGINLINE, sock_flag(sk, SOCK_URGINLINE));
	WRITE_ONCE(clcsk->sk_priority, READ_ONCE(sk->sk_priority));
	clcsk->sk_reuse = sk->sk_reuse;
	clcsk->sk_reuseport = sk->sk_reuseport;

	/* Routing inputs: a cached route must be looked up again. */
	if (sock_flag(clcsk, SOCK_LOCALROUTE) !=
	    sock_flag(sk, SOCK_LOCALROUTE)) {
		sock_valbool_flag(clcsk, SOCK_LOCALROUTE,
				  sock_flag(sk, SOCK_LOCALROUTE));
		dst_stale = true;
	}
	if (clcsk->sk_mark != READ_ONCE(sk->sk_mark)) {
		WRITE_ONCE(clcsk->sk_mark, READ_ONCE(sk->sk_mark));
		dst_stale = true;
	}
	if (clcsk->sk_bound_dev_if != READ_ONCE(sk->sk_bound_dev_if)) {
		WRITE_ONCE(clcsk->sk_bound_dev_if,
			   READ_ONCE(sk->sk_bound_dev_if));
		dst_stale = true;
	}
	if (dst_stale)
		sk_dst_reset(clcsk);

	/*
	 * Buffer sizes only once the user set them: until then TCP tunes
	 * its own, and ours would be stale.
	 */
	if (sk->sk_userlocks & SOCK_RCVBUF_LOCK) {
		clcsk->sk_userlocks |= SOCK_RCVBUF_LOCK;
		WRITE_ONCE(clcsk->sk_rcvbuf, READ_ONCE(sk->sk_rcvbuf));
	}
	if (sk->sk_userlocks & SOCK_SNDBUF_LOCK) {
		clcsk->sk_userlocks |= SOCK_SNDBUF_LOCK;
		if (clcsk->sk_sndbuf != READ_ONCE(sk->sk_sndbuf)) {
			WRITE_ONCE(clcsk->sk_sndbuf, READ_ONCE(sk->sk_sndbuf));
			/* As sock_setsockopt() does: room may wake writers. */
			clcsk->sk_write_space(clcsk);
		}
	}
}

/*
 * Apply pending SOL_SOCKET options to the clcsock. Process context only.
 * Our sk is read without its lock: the flag is cleared before reading, so
 * a setsockopt racing with us marks it again when it is done and the next
 * call applies the finished values. The clcsock is written under its own
 * lock, as sock_setsockopt() would (sk_flags and the bitfields are plain
 * read-modify-write).
 */
void smc_sockopts_push(struct smc_sock *smc)
{
	struct sock *clcsk = smc->clcsock->sk;

	if (!test_bit(SMC_F_SOCKOPTS_DIRTY, &smc->flags) ||
	    !test_and_clear_bit(SMC_F_SOCKOPTS_DIRTY, &smc->flags))
		return;
	lock_sock(clcsk);
	smc_sockopts_apply(&smc->sk, clcsk);
	release_sock(clcsk);
}

/*
 * Start our sk with the options of a new clcsock: a fresh one's defaults
 * (so getsockopt reads TCP's values, e.g. SO_SNDBUF), or what an accepted
 * child inherited from its listener. sk is not yet visible to anyone.
 */
void smc_sockopts_inherit(struct sock *sk, const struct sock *clcsk)
{
	static const enum sock_flags flags[] = {
		SOCK_LINGER, SOCK_URGINLINE, SOCK_LOCALROUTE, SOCK_KEEPOPEN,
	};
	int i;

	sk->sk_rcvtimeo = clcsk->sk_rcvtimeo;
	sk->sk_sndtimeo = clcsk->sk_sndtimeo;
	sk->sk_lingertime = clcsk->sk_lingertime;
	for (i = 0; i < ARRAY_SIZE(flags); i++)
		sock_valbool_flag(sk, flags[i], sock_flag(clcsk, flags[i]));
	sk->sk_priority = clcsk->sk_priority;
	sk->sk_mark = clcsk->sk_mark;
	sk->sk_bound_dev_if = clcsk->sk_bound_dev_if;
	sk->sk_reuse = clcsk->sk_reuse;
	sk->sk_reuseport = clcsk->sk_reuseport;
	sk->sk_rcvlowat = clcsk->sk_rcvlowat;
	sk->sk_sndbuf = clcsk->sk_sndbuf;
	sk->sk_rcvbuf = clcsk->sk_rcvbuf;
	sk->sk_userlocks |= clcsk->sk_userlocks &
			    (SOCK_SNDBUF_LOCK | SOCK_RCVBUF_LOCK);
}
