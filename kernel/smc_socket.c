// SPDX-License-Identifier: GPL-2.0
/*
 * af_smc: the PF_SMC family, its struct protos and its proto_ops.
 *
 * socket(AF_SMC, SOCK_STREAM, SMCPROTO_SMC or SMCPROTO_SMC6) makes an smc
 * sock plus its clcsock, a TCP socket of the matching address family
 * (socket(AF_INET or AF_INET6, SOCK_STREAM, IPPROTO_SMC) makes the same
 * through inet_create(), smc_inet.c). The proto_ops below decide per call
 * whether the socket runs over the clcsock (fallback) or over SMC, and
 * hold data calls back while the SMC handshake (smc_handshake.c,
 * smc_listen.c) is deciding.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/net.h>
#include <asm/ioctls.h>
#include <linux/sockios.h>
#include <linux/socket.h>
#include <net/sock.h>
#include <net/tcp.h>

#include "smc.h"
#include "smc_stats.h"
#include "smc_clc_io.h"
#include "smc_mem.h"

/*
 * Both protos pin the module from sk_alloc() to the final sk_free(), so
 * a sock that outlives its struct socket (or leaks) keeps af_smc loaded
 * instead of running freed code. Each has its own slab cache, named as
 * in /proc/slabinfo.
 */
struct proto smc_proto = {
	.name		= "SMC",
	.owner		= THIS_MODULE,
	.keepalive	= smc_keepalive,
	.release_cb	= smc_release_cb,
	.obj_size	= sizeof(struct smc_sock),
};

struct proto smc_proto6 = {
	.name		= "SMC6",
	.owner		= THIS_MODULE,
	.keepalive	= smc_keepalive,
	.release_cb	= smc_release_cb,
	.obj_size	= sizeof(struct smc_sock),
};

struct smc_sock_list smc_sock_list = {
	.lock = __RW_LOCK_UNLOCKED(smc_sock_list.lock),
	.gen = 1,
};

/* Under the write lock. */
static void smc_sock_list_changed(void)
{
	if (!++smc_sock_list.gen)
		smc_sock_list.gen = 1;
}

/* sk_add_node() and sk_del_node_init() hold and drop a reference. */
static void smc_sock_list_add(struct sock *sk)
{
	write_lock(&smc_sock_list.lock);
	sk_add_node(sk, &smc_sock_list.head);
	smc_sock_list_changed();
	write_unlock(&smc_sock_list.lock);
}

/* Before the clcsock goes: sock_diag readers use it under the lock. */
void smc_sock_list_del(struct sock *sk)
{
	write_lock(&smc_sock_list.lock);
	if (sk_del_node_init(sk))
		smc_sock_list_changed();
	write_unlock(&smc_sock_list.lock);
}

static void smc_sk_destruct(struct sock *sk)
{
	WARN_ON_ONCE(smc_sk(sk)->clcsock);
	smc_mem_sock_destruct(smc_sk(sk));
	/* The netns is still pinned here: __sk_destruct() drops it after us. */
	sock_prot_inuse_add(sock_net(sk), sk->sk_prot, -1);
	atomic_dec(&smc_live_socks);
}

/* An unattached smc sock; undo with sk_free() until smc_sock_init(). */
struct sock *smc_sk_alloc(struct net *net, int protocol, int kern)
{
	struct proto *prot;

	prot = protocol == SMCPROTO_SMC6 ? &smc_proto6 : &smc_proto;
	return sk_alloc(net, PF_SMC, GFP_KERNEL, prot, kern);
}

/*
 * An unattached smc sock for a connection that the listener lsk accepts:
 * of lsk's family and proto, AF_SMC or IPPROTO_SMC alike. Undo with
 * sk_free() until smc_sock_init().
 */
struct sock *smc_sk_alloc_child(const struct sock *lsk, int kern)
{
	struct sock *sk;

	sk = sk_alloc(sock_net(lsk), lsk->sk_family, GFP_KERNEL, lsk->sk_prot, kern);
	if (sk && lsk->sk_family != AF_SMC)
		smc_inet_child_init(sk);
	return sk;
}

/* Ties sk to sock; from here on sock's release frees it. Cannot fail. */
void smc_sock_init(struct socket *sock, struct sock *sk, int protocol)
{
	sock_init_data(sock, sk);
	smc_sock_setup(sk, protocol);
}

/*
 * The smc part of smc_sock_init(), for a sock whose struct socket
 * inet_create() has already set up (smc_inet.c).
 */
void smc_sock_setup(struct sock *sk, int protocol)
{
	struct smc_sock *smc = smc_sk(sk);

	/*
	 * sock_init_data() takes the type from the struct socket, which an
	 * accepted child does not have yet (SO_TYPE read 0 on it).
	 */
	sk->sk_type = SOCK_STREAM;
	sk->sk_protocol = protocol;
	sk->sk_state = SMC_INIT;
	sk->sk_destruct = smc_sk_destruct;
	/* No SMC data path exists yet: every socket carries TCP. */
	smc->use_fallback = true;
	smc_hs_init(smc);
	smc_listen_init(smc);
	smc_conn_init(&smc->conn);
	smc_close_init(smc);
	/* The "sockets" column of the SMC/SMC6 rows of /proc/net/protocols. */
	sock_prot_inuse_add(sock_net(sk), sk->sk_prot, 1);
	atomic_inc(&smc_live_socks);
	smc_sock_list_add(sk);
}

/*
 * The last steps of making a user's smc sock, which cannot fail: its
 * memory accounting and its clcsock. sk is set up (smc_sock_setup()).
 */
void smc_sock_attach(struct sock *sk, struct socket *clcsock)
{
	smc_mem_sock_init(smc_sk(sk), NULL);	/* the creator's memcg */
	smc_sockopts_inherit(sk, clcsock->sk);
	smc_clcsock_attach(smc_sk(sk), clcsock, NULL);
}

static int smc_create(struct net *net, struct socket *sock, int protocol,
		      int kern)
{
	struct socket *clcsock;
	struct sock *sk;
	int rc;

	if (sock->type != SOCK_STREAM)
		return -ESOCKTNOSUPPORT;
	if (protocol != SMCPROTO_SMC && protocol != SMCPROTO_SMC6)
		return -EPROTONOSUPPORT;

	/* The steps that can fail come first, so no half-made sock exists. */
	rc = smc_clcsock_create(net, protocol == SMCPROTO_SMC6 ? AF_INET6 : AF_INET,
				kern, &clcsock);
	if (rc)
		return rc;
	sk = smc_sk_alloc(net, protocol, kern);
	if (!sk) {
		sock_release(clcsock);
		return -ENOMEM;
	}

	sock->ops = &smc_ops;
	sock->state = SS_UNCONNECTED;
	smc_sock_init(sock, sk, protocol);
	smc_sock_attach(sk, clcsock);
	return 0;
}

const struct net_proto_family smc_family = {
	.family	= PF_SMC,
	.owner	= THIS_MODULE,
	.create	= smc_create,
};

/*
 * Runs once the last file reference is gone, so no other call on this
 * socket is in progress and none can start.
 */
static int smc_release(struct socket *sock)
{
	struct sock *sk = sock->sk;
	struct smc_sock *smc;
	bool orphan = false;

	if (!sk)
		return 0;
	smc = smc_sk(sk);
	if (smc->clcsock) {
		smc_listen_stop(smc);
		smc_hs_cancel(smc);
		/*
		 * An SMC connection whose peer is still open lives on without
		 * its file (smc_close.c), listed and with its clcsock, until
		 * the peer closes; it must not reach the file from here on.
		 */
		orphan = smc_close_release(smc);
		if (orphan) {
			smc_clcsock_orphan(smc, smc->conn.aborted);
		} else {
			smc_sock_list_del(sk);
			smc_clcsock_release(smc);
		}
	}
	if (!orphan)
		WRITE_ONCE(sk->sk_state, SMC_CLOSED);
	sock_orphan(sk);
	sock->sk = NULL;
	if (orphan)
		smc_close_orphan(smc);
	sock_put(sk);		/* the reference sock_init_data() set up */
	return 0;
}

/* Addresses always belong to the clcsock, whatever carries the data. */
static int smc_bind(struct socket *sock, struct sockaddr *addr, int alen)
{
	struct smc_sock *smc = smc_sk(sock->sk);

	smc_clcsock_prepare(smc, sock);
	return smc->clcsock->ops->bind(smc->clcsock, addr, alen);
}

static int smc_getname(struct socket *sock, struct sockaddr *addr, int peer)
{
	struct smc_sock *smc = smc_sk(sock->sk);

	/* TCP has no peer before the connection is up; nor do we. */
	if (peer && !smc_hs_settled(smc))
		return -ENOTCONN;
	/* Nor once it ended (TCP_CLOSE), which the idle clcsock never sees. */
	if (peer && !smc_use_fallback(smc) && smc_close_ended(&smc->conn))
		return -ENOTCONN;
	return smc->clcsock->ops->getname(smc->clcsock, addr, peer);
}

static int smc_gettstamp(struct socket *sock, void __user *userstamp,
			 bool timeval, bool time32)
{
	struct socket *clcsock = smc_sk(sock->sk)->clcsock;

	if (!clcsock->ops->gettstamp)
		return -ENOIOCTLCMD;
	return clcsock->ops->gettstamp(clcsock, userstamp, timeval, time32);
}

static int smc_connect(struct socket *sock, struct sockaddr *addr, int alen,
		       int flags)
{
	struct smc_sock *smc = smc_sk(sock->sk);

	/* Connected over SMC or not, the clcsock answers as TCP would. */
	return smc_hs_connect(smc, sock, addr, alen, flags);
}

static int smc_listen(struct socket *sock, int backlog)
{
	struct smc_sock *smc = smc_sk(sock->sk);

	/* A connected socket cannot listen; TCP says so (EINVAL). */
	return smc_listen_start(smc, sock, backlog);
}

static int smc_accept(struct socket *sock, struct socket *newsock, int flags,
		      bool kern)
{
	struct smc_sock *smc = smc_sk(sock->sk);

	if (smc_is_smc_listener(smc))
		return smc_listen_accept(smc, newsock, flags);
	/* Not listening: TCP's accept() refuses (EINVAL). */
	return smc_fb_accept(smc, sock, newsock, flags, kern);
}

static __poll_t smc_poll(struct file *file, struct socket *sock,
			 poll_table *wait)
{
	struct smc_sock *smc = smc_sk(sock->sk);

	/*
	 * Pollers always wait on our own socket's queue, never on the
	 * clcsock's, and smc_clcsock.c forwards every clcsock wakeup here.
	 * Waiting on the clcsock's queue (what tcp_poll() would register)
	 * would work for select/poll, and even for epoll as long as the
	 * clcsock stays the data carrier, since eventpoll_release() removes
	 * epoll's entries before our release frees the clcsock. But epoll
	 * and io_uring register once, at EPOLL_CTL_ADD: a socket that later
	 * switches between clcsock and SMC would keep its waiters on the
	 * wrong queue. Our own queue is also where fasync (O_ASYNC) and
	 * busy-poll users look.
	 */
	sock_poll_wait(file, sock, wait);
	if (smc_is_smc_listener(smc))
		return smc_listen_poll(smc);
	/* Connecting, as TCP in SYN_SENT: nothing to report yet. */
	if (!smc_hs_settled(smc))
		return 0;
	if (!smc_use_fallback(smc))
		return smc_data_poll(smc);
	/*
	 * Our sk_err mirrors the clcsock's, and also holds the error of a
	 * failed handshake, which TCP never saw.
	 */
	return smc_fb_poll(smc, file) |
	       (READ_ONCE(sock->sk->sk_err) ? EPOLLERR : 0);
}

static int smc_ioctl(struct socket *sock, unsigned int cmd, unsigned long arg)
{
	struct smc_sock *smc = smc_sk(sock->sk);

	/* The clcsock's queues hold CLC bytes now, none of the user's. */
	if (!smc_hs_settled(smc) &&
	    (cmd == SIOCINQ || cmd == SIOCOUTQ || cmd == SIOCOUTQNSD))
		return put_user(0, (int __user *)arg);
	if (!smc_use_fallback(smc)) {
		int rc = smc_data_ioctl(smc, cmd, arg);

		if (rc != -ENOIOCTLCMD)
			return rc;
	}
	return smc_fb_ioctl(smc, cmd, arg);
}

static int smc_shutdown(struct socket *sock, int how)
{
	struct smc_sock *smc = smc_sk(sock->sk);
	int rc;

	if (smc_hs_state(smc) == SMC_HS_CLC) {
		/* As TCP's shutdown of a connecting socket: give up. */
		smc_hs_abort_wait(smc);
		flush_work(&smc->hs_work);
	}
	if (!smc_use_fallback(smc))
		return smc_close_shutdown(smc, how);
	/* SHUT_RD and SHUT_RDWR end a TCP listener; ours stops first. */
	if (how != SHUT_WR && smc_is_smc_listener(smc))
		smc_listen_stop(smc);
	rc = smc_fb_shutdown(smc, how);
	return rc;
}

static int smc_sendmsg(struct socket *sock, struct msghdr *msg, size_t len)
{
	struct smc_sock *smc = smc_sk(sock->sk);
	int rc;

	/* TCP Fast Open carries data in the SYN: no room for SMC. */
	if ((msg->msg_flags & MSG_FASTOPEN) &&
	    smc_hs_state(smc) == SMC_HS_NONE)
		smc_hs_force_fallback(smc, SMC_CLC_DECL_OPTUNSUPP);
	rc = smc_hs_settle(smc, sock_sndtimeo(sock->sk,
					      msg->msg_flags & MSG_DONTWAIT));
	if (rc)
		return rc;
	if (!smc_use_fallback(smc)) {
		if (msg->msg_flags & MSG_OOB)
			smc_stats_urgent(smc);
		rc = smc_tx_sendmsg(smc, msg, len);
		smc_stats_tx(smc, len, rc);
		return rc;
	}
	return smc_fb_sendmsg(smc, sock, msg, len);
}

static int smc_recvmsg(struct socket *sock, struct msghdr *msg, size_t len,
		       int flags)
{
	struct smc_sock *smc = smc_sk(sock->sk);
	int rc;

	rc = smc_hs_settle(smc, sock_rcvtimeo(sock->sk, flags & MSG_DONTWAIT));
	if (rc)
		return rc;
	if (!smc_use_fallback(smc)) {
		rc = smc_rx_recvmsg(smc, msg, len, flags);
		smc_stats_rx(smc, len, rc);
		return rc;
	}
	return smc_fb_recvmsg(smc, sock, msg, len, flags);
}

static ssize_t smc_sendpage(struct socket *sock, struct page *page,
			    int offset, size_t size, int flags)
{
	struct smc_sock *smc = smc_sk(sock->sk);
	int rc;

	rc = smc_hs_settle(smc, sock_sndtimeo(sock->sk, flags & MSG_DONTWAIT));
	if (rc)
		return rc;
	if (!smc_use_fallback(smc)) {
		smc_stats_sendpage(smc);
		return sock_no_sendpage(sock, page, offset, size, flags);
	}
	return smc_fb_sendpage(smc, sock, page, offset, size, flags);
}

static ssize_t smc_splice_read(struct socket *sock, loff_t *ppos,
			       struct pipe_inode_info *pipe, size_t len,
			       unsigned int flags)
{
	struct smc_sock *smc = smc_sk(sock->sk);
	bool nonblock = (flags & SPLICE_F_NONBLOCK) ||
			(sock->file->f_flags & O_NONBLOCK);
	int rc;

	rc = smc_hs_settle(smc, sock_rcvtimeo(sock->sk, nonblock));
	if (rc)
		return rc;
	if (!smc_use_fallback(smc)) {
		smc_stats_splice(smc);
		return smc_rx_splice_read(smc, pipe, len, nonblock);
	}
	return smc_fb_splice_read(smc, sock, ppos, pipe, len, flags);
}

static void smc_splice_eof(struct socket *sock)
{
	struct smc_sock *smc = smc_sk(sock->sk);

	if (smc_use_fallback(smc))
		smc_fb_splice_eof(smc);
}

/*
 * The same ops serve both protocols, and IPPROTO_SMC's sockets of either
 * inet family (smc_inet.c), which differ only in .family; the clcsock
 * knows the address family. Each open socket pins the module (.owner):
 * rmmod fails while one exists.
 */
#define SMC_PROTO_OPS(fam) {						\
	.family		= (fam),					\
	.owner		= THIS_MODULE,					\
	.release	= smc_release,					\
	.bind		= smc_bind,					\
	.connect	= smc_connect,					\
	.socketpair	= sock_no_socketpair,				\
	.accept		= smc_accept,					\
	.getname	= smc_getname,					\
	.poll		= smc_poll,					\
	.ioctl		= smc_ioctl,					\
	.gettstamp	= smc_gettstamp,				\
	.listen		= smc_listen,					\
	.shutdown	= smc_shutdown,					\
	.setsockopt	= smc_setsockopt,				\
	.getsockopt	= smc_getsockopt,				\
	.sendmsg	= smc_sendmsg,					\
	.recvmsg	= smc_recvmsg,					\
	.mmap		= sock_no_mmap,					\
	.sendpage	= smc_sendpage,					\
	.splice_read	= smc_splice_read,				\
	.splice_eof	= smc_splice_eof,				\
	.set_rcvlowat	= smc_set_rcvlowat,				\
}

const struct proto_ops smc_ops = SMC_PROTO_OPS(PF_SMC);
const struct proto_ops smc_inet_ops = SMC_PROTO_OPS(PF_INET);
const struct proto_ops smc_inet6_ops = SMC_PROTO_OPS(PF_INET6);
