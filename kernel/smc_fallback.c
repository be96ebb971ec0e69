// SPDX-License-Identifier: GPL-2.0
/*
 * af_smc: fallback, the socket calls carried out over the clcsock.
 *
 * Each call goes straight to the clcsock's own proto_ops (inet_stream_ops
 * or inet6_stream_ops), not through kernel_*() or sock_*msg(): the syscall
 * layer has already run the LSM and BPF hooks on our socket, and the
 * clcsock's ops take the clcsock's own lock, so we hold none of ours and
 * blocking calls behave, and overlap, exactly as on a TCP socket. Flags
 * (O_NONBLOCK, MSG_DONTWAIT, MSG_PEEK, MSG_WAITALL, ...) pass unchanged.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/net.h>
#include <net/sock.h>

#include "smc.h"
#include "smc_clc_io.h"
#include "smc_mem.h"
#include "smc_stats.h"

int smc_fb_connect(struct smc_sock *smc, struct socket *sock,
		   struct sockaddr *addr, int alen, int flags)
{
	struct socket *clcsock = smc->clcsock;
	int rc;

	smc_clcsock_prepare(smc, sock);
	rc = clcsock->ops->connect(clcsock, addr, alen, flags);
	smc_clcsock_sync(smc);
	smc_clcsock_consumed_error(smc, rc);
	return rc;
}

int smc_fb_listen(struct smc_sock *smc, struct socket *sock, int backlog)
{
	struct socket *clcsock = smc->clcsock;
	int rc;

	smc_clcsock_prepare(smc, sock);
	rc = clcsock->ops->listen(clcsock, backlog);
	smc_clcsock_sync(smc);	/* TCP_LISTEN, so SO_ACCEPTCONN reads 1 */
	return rc;
}

/*
 * Accept a connection on the listening clcsock and wrap it in a new smc
 * sock on @newsock. kernel_accept() sleeps on the listening clcsock's
 * queue, honouring O_NONBLOCK in @flags and the SO_RCVTIMEO pushed to it.
 */
int smc_fb_accept(struct smc_sock *lsmc, struct socket *sock,
		  struct socket *newsock, int flags, bool kern)
{
	int protocol = lsmc->sk.sk_protocol;
	struct socket *nclc;
	struct smc_sock *nsmc;
	struct sock *nsk;
	int rc;

	/*
	 * Allocate first: failing after the accept would have to reset a
	 * connection that the peer already sees as established.
	 */
	nsk = smc_sk_alloc_child(&lsmc->sk, kern);
	if (!nsk)
		return -ENOMEM;
	smc_clcsock_prepare(lsmc, sock);
	rc = kernel_accept(lsmc->clcsock, &nclc, flags);
	if (rc) {
		sk_free(nsk);
		return rc;
	}

	nsmc = smc_sk(nsk);
	smc_sock_init(newsock, nsk, protocol);
	smc_mem_sock_init(nsmc, lsmc);
	/* A TCP-only listener's children are TCP, for the listener's reason. */
	smc_hs_set_fallback(nsmc, lsmc->fallback_rsn ?: SMC_CLC_DECL_PEERNOSMC,
			    0);
	smc_stats_fallback(nsmc, true);
	nsmc->hs_state = SMC_HS_DONE;
	/* What TCP copied from the listener into the child, show on ours. */
	smc_sockopts_inherit(nsk, nclc->sk);
	smc_clcsock_attach(nsmc, nclc, &lsmc->clcsk_cb);
	smc_clcsock_prepare(nsmc, newsock);
	/* Events the child saw before attach were dropped; catch up. */
	smc_clcsock_sync(nsmc);
	return 0;
}

/*
 * tcp_poll() with a NULL table only computes the mask; smc_poll() has
 * already queued the caller on our own wait queue (see there).
 */
__poll_t smc_fb_poll(struct smc_sock *smc, struct file *file)
{
	return smc->clcsock->ops->poll(file, smc->clcsock, NULL);
}

/* SIOCINQ, SIOCOUTQ, SIOCOUTQNSD, SIOCATMARK and the inet ioctls. */
int smc_fb_ioctl(struct smc_sock *smc, unsigned int cmd, unsigned long arg)
{
	return smc->clcsock->ops->ioctl(smc->clcsock, cmd, arg);
}

int smc_fb_shutdown(struct smc_sock *smc, int how)
{
	struct socket *clcsock = smc->clcsock;
	int rc;

	rc = clcsock->ops->shutdown(clcsock, how);
	smc_clcsock_sync(smc);
	return rc;
}

int smc_fb_sendmsg(struct smc_sock *smc, struct socket *sock,
		   struct msghdr *msg, size_t len)
{
	struct socket *clcsock = smc->clcsock;
	int rc;

	smc_clcsock_prepare(smc, sock);
	rc = clcsock->ops->sendmsg(clcsock, msg, len);
	smc_clcsock_consumed_error(smc, rc);
	return rc;
}

int smc_fb_recvmsg(struct smc_sock *smc, struct socket *sock,
		   struct msghdr *msg, size_t len, int flags)
{
	struct socket *clcsock = smc->clcsock;
	int rc;

	smc_clcsock_prepare(smc, sock);
	rc = clcsock->ops->recvmsg(clcsock, msg, len, flags);
	smc_clcsock_consumed_error(smc, rc);
	return rc;
}

/*
 * kernel_sendpage() on our socket already checked the page, so call the
 * clcsock's op directly rather than check it twice.
 */
ssize_t smc_fb_sendpage(struct smc_sock *smc, struct socket *sock,
			struct page *page, int offset, size_t size, int flags)
{
	struct socket *clcsock = smc->clcsock;
	ssize_t rc;

	smc_clcsock_prepare(smc, sock);
	rc = clcsock->ops->sendpage(clcsock, page, offset, size, flags);
	smc_clcsock_consumed_error(smc, rc);
	return rc;
}

/* Needs clcsock->file, which smc_clcsock_prepare() provides. */
ssize_t smc_fb_splice_read(struct smc_sock *smc, struct socket *sock,
			   loff_t *ppos, struct pipe_inode_info *pipe,
			   size_t len, unsigned int flags)
{
	struct socket *clcsock = smc->clcsock;
	ssize_t rc;

	smc_clcsock_prepare(smc, sock);
	rc = clcsock->ops->splice_read(clcsock, ppos, pipe, len, flags);
	smc_clcsock_consumed_error(smc, rc);
	return rc;
}

/* The end of a splice into the socket: let TCP push what it corked. */
void smc_fb_splice_eof(struct smc_sock *smc)
{
	struct socket *clcsock = smc->clcsock;

	if (clcsock->ops->splice_eof)
		clcsock->ops->splice_eof(clcsock);
}
