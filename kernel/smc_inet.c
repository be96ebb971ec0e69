// SPDX-License-Identifier: GPL-2.0
/*
 * af_smc: IPPROTO_SMC, SMC sockets made through the inet families.
 *
 * socket(AF_INET, SOCK_STREAM, IPPROTO_SMC) and the AF_INET6 form make
 * the same smc sock as AF_SMC does, with the same ops, so everything about
 * SMC, its handshake and its fallback to TCP is as there. What differs is
 * what the program sees of the socket: its family is AF_INET or AF_INET6
 * (SO_DOMAIN, and sock->ops->family), SO_PROTOCOL says IPPROTO_SMC, and
 * the sockets accept() gives are of the same family. Addresses were
 * always the clcsock's, of its inet family, under AF_SMC too. This is
 * Linux 6.11's interface (the number 256 included), so a program written
 * for it runs unchanged on 6.1 with this module; programs and filters
 * that look at a socket's family (seccomp, SELinux's and BPF's inet hooks,
 * a library that checks SO_DOMAIN) take it for the inet socket it
 * answers as.
 *
 * inet_create() (inet6_create()) finds our entry in the family's protosw
 * table, allocates the sock from our proto (the smc_sock's first member
 * is a union with struct inet_sock, whose fields it fills in; for
 * AF_INET6 the ipv6_pinfo it points inet->pinet6 at is at the end of the
 * object, where inet6_create() looks for it), runs its own set-up and
 * then our proto's init, which makes the clcsock and the rest of the smc
 * sock. The entries are not INET_PROTOSW_ICSK: an smc sock is no
 * inet_connection_sock, and core code must not take it for one.
 *
 * Locks: sk_alloc() gives a sock of family AF_INET the lock class of every
 * AF_INET socket, which the clcsock, a TCP socket, has too; we take the
 * clcsock's lock under our own (smc.h), which lockdep would then report as
 * recursion. Our socks get classes of their own (smc_inet_lock_class()).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <net/inet_common.h>
#include <net/ipv6.h>
#include <net/protocol.h>
#include <net/sock.h>

#include "smc.h"

/* An IPPROTO_SMC sock of AF_INET6: its ipv6_pinfo last, as inet6 wants. */
struct smc6_sock {
	struct smc_sock		smc;
	struct ipv6_pinfo	np;
};

static int smc_inet_init_sock(struct sock *sk);
static void smc_inet_destroy(struct sock *sk);
static void smc_inet_unhash(struct sock *sk);

/* Named as Linux 6.11 names them in /proc/net/protocols. */
static struct proto smc_inet_proto = {
	.name		= "INET_SMC",
	.owner		= THIS_MODULE,
	.init		= smc_inet_init_sock,
	.destroy	= smc_inet_destroy,
	.unhash		= smc_inet_unhash,
	.keepalive	= smc_keepalive,
	.release_cb	= smc_release_cb,
	.obj_size	= sizeof(struct smc_sock),
};

static struct proto smc_inet6_proto = {
	.name		= "INET6_SMC",
	.owner		= THIS_MODULE,
	.init		= smc_inet_init_sock,
	.destroy	= smc_inet_destroy,
	.unhash		= smc_inet_unhash,
	.keepalive	= smc_keepalive,
	.release_cb	= smc_release_cb,
	.obj_size	= sizeof(struct smc6_sock),
};

static struct inet_protosw smc_inet_protosw = {
	.type		= SOCK_STREAM,
	.protocol	= IPPROTO_SMC,
	.prot		= &smc_inet_proto,
	.ops		= &smc_inet_ops,
};

static struct inet_protosw smc_inet6_protosw = {
	.type		= SOCK_STREAM,
	.protocol	= IPPROTO_SMC,
	.prot		= &smc_inet6_proto,
	.ops		= &smc_inet6_ops,
};

static struct lock_class_key smc_inet_slock_keys[2], smc_inet_lock_keys[2];

/* Lock classes of our own, before anyone takes sk's lock. */
static void smc_inet_lock_class(struct sock *sk)
{
	int v6 = sk->sk_family == AF_INET6;

	sock_lock_init_class_and_name(sk, v6 ? "slock-AF_INET6-SMC" : "slock-AF_INET-SMC",
				      &smc_inet_slock_keys[v6],
				      v6 ? "sk_lock-AF_INET6-SMC" : "sk_lock-AF_INET-SMC",
				      &smc_inet_lock_keys[v6]);
}

/*
 * The proto's init, called by inet_create() with sk set up and tied to
 * its struct socket. On an error here or after (a cgroup's BPF program
 * that refuses the socket), inet_create() releases sk through
 * sk_common_release(), which calls destroy and unhash, and frees it
 * with its destructor: inet's own when this failed (nothing of ours is in
 * sk yet), ours after.
 */
static int smc_inet_init_sock(struct sock *sk)
{
	struct socket *clcsock;
	int rc;

	smc_inet_lock_class(sk);
	/* sk_alloc() took kern as !sk_net_refcnt. */
	rc = smc_clcsock_create(sock_net(sk), sk->sk_family, !sk->sk_net_refcnt,
				&clcsock);
	if (rc)
		return rc;
	smc_sock_setup(sk, IPPROTO_SMC);
	smc_sock_attach(sk, clcsock);
	return 0;
}

/*
 * Only sk_common_release() calls these, for a socket inet_create() gives
 * up on: undo what init made, as our release does for a socket that never
 * connected.
 */
static void smc_inet_destroy(struct sock *sk)
{
	struct smc_sock *smc = smc_sk(sk);

	if (!smc->clcsock)
		return;
	smc_sock_list_del(sk);
	smc_clcsock_release(smc);
}

static void smc_inet_unhash(struct sock *sk)
{
}

/*
 * A sock that an IPPROTO_SMC listener accepts, fresh from sk_alloc(): the
 * fields inet{,6}_create() would have set that a reader of an inet sock
 * may follow.
 */
void smc_inet_child_init(struct sock *sk)
{
	smc_inet_lock_class(sk);
#if IS_ENABLED(CONFIG_IPV6)
	if (sk->sk_family == AF_INET6)
		inet_sk(sk)->pinet6 = &container_of(smc_sk(sk), struct smc6_sock, smc)->np;
#endif
}

int __init smc_inet_init(void)
{
	int rc;

	/* inet6_create() finds np at obj_size - sizeof(np). */
	BUILD_BUG_ON(offsetof(struct smc6_sock, np) !=
		     sizeof(struct smc6_sock) - sizeof(struct ipv6_pinfo));
	rc = proto_register(&smc_inet_proto, 1);
	if (rc)
		return rc;
	rc = proto_register(&smc_inet6_proto, 1);
	if (rc)
		goto out_proto;
	inet_register_protosw(&smc_inet_protosw);
#if IS_ENABLED(CONFIG_IPV6)
	rc = inet6_register_protosw(&smc_inet6_protosw);
	if (rc)
		goto out_protosw;
#endif
	return 0;

#if IS_ENABLED(CONFIG_IPV6)
out_protosw:
	inet_unregister_protosw(&smc_inet_protosw);
#endif
	proto_unregister(&smc_inet6_proto);
out_proto:
	proto_unregister(&smc_inet_proto);
	return rc;
}

/* No new sockets after this; every existing one pins the module. */
void smc_inet_exit(void)
{
#if IS_ENABLED(CONFIG_IPV6)
	inet6_unregister_protosw(&smc_inet6_protosw);
#endif
	/* Waits for creators in flight (synchronize_net()). */
	inet_unregister_protosw(&smc_inet_protosw);
	proto_unregister(&smc_inet6_proto);
	proto_unregister(&smc_inet_proto);
}

/* socket() with IPPROTO_SMC loads af_smc, as for AF_SMC (net-pf-43). */
MODULE_ALIAS("net-pf-2-proto-256-type-1");
MODULE_ALIAS("net-pf-10-proto-256-type-1");
