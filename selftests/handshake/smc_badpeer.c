// SPDX-License-Identifier: GPL-2.0
/*
 * smc_badpeer: SMC peers that break the CLC handshake on purpose, for the
 * selftests of af_smc's handshake. Test-only; never part of af_smc.
 *
 * Only kernel code can offer SMC in a TCP handshake (tcp_sock.syn_smc),
 * so a misbehaving peer has to live in the kernel too. It relies on
 * af_smc being loaded, which turns on the tcp_have_smc key.
 *
 * Servers: at load, one listener per mode on 127.0.0.1, port base_port +
 * mode, each offering the SMC option and then, for every connection:
 *   0 garbage    64 bytes that are no CLC message
 *   1 silent     nothing at all
 *   2 close      closes at once (the peer "died" mid-handshake)
 *   3 late       a valid Decline, but only after 3 s (later than the
 *                peer's CLC wait)
 *   4 truncated  the first 20 bytes of a 28-byte Decline, then nothing
 *   5 reset      resets the connection at once
 * Client: writing "MODE PORT" to /sys/module/smc_badpeer/parameters/connect
 * connects to 127.0.0.1:PORT with the SMC option and behaves as MODE
 * (garbage, silent or close only).
 * Held connections are released when the module is removed.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/in.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/net.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <net/sock.h>
#include <net/tcp.h>

enum bp_mode {
	BP_GARBAGE, BP_SILENT, BP_CLOSE, BP_LATE, BP_TRUNCATED, BP_RESET, BP_NR
};

static int base_port = 7700;
module_param(base_port, int, 0444);
MODULE_PARM_DESC(base_port, "first listening port; mode N listens on base_port + N");

struct bp_server {
	struct socket *listener;
	struct task_struct *thread;
	enum bp_mode mode;
};

static struct bp_server servers[BP_NR];

/* Connections kept open until unload ("silent" and friends). */
static LIST_HEAD(held);
static DEFINE_MUTEX(held_lock);
struct bp_held {
	struct list_head entry;
	struct socket *sock;
};

static struct workqueue_struct *bp_wq;

/* A v1 CLC Decline (28 bytes), diagnosis 0x03030000, as RFC 7609 lays it out. */
static const u8 bp_decline[28] = {
	0xe2, 0xd4, 0xc3, 0xd9, 0x04, 0x00, 0x1c, 0x10,
	1, 2, 3, 4, 5, 6, 7, 8,
	0x03, 0x03, 0x00, 0x00, 0, 0, 0, 0,
	0xe2, 0xd4, 0xc3, 0xd9,
};

static void bp_hold(struct socket *sock)
{
	struct bp_held *h = kmalloc(sizeof(*h), GFP_KERNEL);

	if (!h) {
		sock_release(sock);
		return;
	}
	h->sock = sock;
	mutex_lock(&held_lock);
	list_add(&h->entry, &held);
	mutex_unlock(&held_lock);
}

static void bp_send(struct socket *sock, const void *buf, size_t len)
{
	struct msghdr mh = { .msg_flags = MSG_DONTWAIT | MSG_NOSIGNAL };
	struct kvec vec = { (void *)buf, len };

	kernel_sendmsg(sock, &mh, &vec, 1, len);
}

static void bp_reset(struct socket *sock)
{
	sock_set_flag(sock->sk, SOCK_LINGER);
	sock->sk->sk_lingertime = 0;
	sock_release(sock);
}

/* Misbehave on an established connection; takes ownership of sock. */
static void bp_act(struct socket *sock, enum bp_mode mode)
{
	static const char junk[64] = "this is not a CLC message, not even its eyecatcher";

	switch (mode) {
	case BP_GARBAGE:
		bp_send(sock, junk, sizeof(junk));
		bp_hold(sock);
		break;
	case BP_CLOSE:
		sock_release(sock);
		break;
	case BP_LATE:
		msleep(3000);
		bp_send(sock, bp_decline, sizeof(bp_decline));
		bp_hold(sock);
		break;
	case BP_TRUNCATED:
		bp_send(sock, bp_decline, 20);
		bp_hold(sock);
		break;
	case BP_RESET:
		bp_reset(sock);
		break;
	default:
		bp_hold(sock);
		break;
	}
}

static int bp_server_thread(void *arg)
{
	struct bp_server *srv = arg;
	struct socket *conn;

	while (!kthread_should_stop()) {
		if (kernel_accept(srv->listener, &conn, 0))
			continue;	/* shut down for unload, or a signal */
		bp_act(conn, srv->mode);
	}
	return 0;
}

static int bp_tcp_socket(struct socket **res)
{
	int rc = sock_create_kern(&init_net, AF_INET, SOCK_STREAM, IPPROTO_TCP, res);

	if (!rc)
		tcp_sk((*res)->sk)->syn_smc = 1;	/* offer SMC */
	return rc;
}

static int bp_server_start(struct bp_server *srv, enum bp_mode mode)
{
	struct sockaddr_in sin = {
		.sin_family = AF_INET,
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
		.sin_port = htons(base_port + mode),
	};
	int rc;

	srv->mode = mode;
	rc = bp_tcp_socket(&srv->listener);
	if (rc)
		return rc;
	sock_set_reuseaddr(srv->listener->sk);
	rc = kernel_bind(srv->listener, (struct sockaddr *)&sin, sizeof(sin));
	if (!rc)
		rc = kernel_listen(srv->listener, 16);
	if (!rc) {
		srv->thread = kthread_run(bp_server_thread, srv, "smc_badpeer/%d", mode);
		if (IS_ERR(srv->thread))
			rc = PTR_ERR(srv->thread);
	}
	if (rc) {
		sock_release(srv->listener);
		srv->listener = NULL;
	}
	return rc;
}

static void bp_server_stop(struct bp_server *srv)
{
	if (!srv->listener)
		return;
	/* Ends the thread's accept(); it then sees kthread_should_stop(). */
	kernel_sock_shutdown(srv->listener, SHUT_RDWR);
	kthread_stop(srv->thread);
	sock_release(srv->listener);
}

struct bp_client {
	struct work_struct work;
	enum bp_mode mode;
	int port;
};

static void bp_client_work(struct work_struct *work)
{
	struct bp_client *c = container_of(work, struct bp_client, work);
	struct sockaddr_in sin = {
		.sin_family = AF_INET,
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
		.sin_port = htons(c->port),
	};
	struct socket *sock;

	if (!bp_tcp_socket(&sock)) {
		if (kernel_connect(sock, (struct sockaddr *)&sin, sizeof(sin), 0))
			sock_release(sock);
		else
			bp_act(sock, c->mode);
	}
	kfree(c);
}

static int bp_connect_set(const char *val, const struct kernel_param *kp)
{
	static const char *const names[] = { "garbage", "silent", "close" };
	char mode[16];
	struct bp_client *c;
	int port, i;

	if (sscanf(val, "%15s %d", mode, &port) != 2 || port <= 0 || port > 65535)
		return -EINVAL;
	for (i = 0; i < ARRAY_SIZE(names); i++)
		if (!strcmp(mode, names[i]))
			break;
	if (i == ARRAY_SIZE(names))
		return -EINVAL;
	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return -ENOMEM;
	INIT_WORK(&c->work, bp_client_work);
	c->mode = i;
	c->port = port;
	queue_work(bp_wq, &c->work);
	return 0;
}

static const struct kernel_param_ops bp_connect_ops = { .set = bp_connect_set };
module_param_cb(connect, &bp_connect_ops, NULL, 0200);
MODULE_PARM_DESC(connect, "\"MODE PORT\": connect to 127.0.0.1:PORT and misbehave");

static void bp_cleanup(void)
{
	struct bp_held *h, *tmp;
	int i;

	if (bp_wq)
		destroy_workqueue(bp_wq);
	for (i = 0; i < BP_NR; i++)
		bp_server_stop(&servers[i]);
	list_for_each_entry_safe(h, tmp, &held, entry) {
		sock_release(h->sock);
		kfree(h);
	}
}

static int __init bp_init(void)
{
	int i, rc;

	if (!static_key_enabled(&tcp_have_smc)) {
		pr_err("load af_smc first: TCP offers SMC only while it is loaded\n");
		return -ENOENT;
	}
	bp_wq = alloc_workqueue("smc_badpeer", 0, 0);
	if (!bp_wq)
		return -ENOMEM;
	for (i = 0; i < BP_NR; i++) {
		rc = bp_server_start(&servers[i], i);
		if (rc) {
			bp_cleanup();
			return rc;
		}
	}
	return 0;
}

static void __exit bp_exit(void)
{
	bp_cleanup();
}

module_init(bp_init);
module_exit(bp_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("misbehaving SMC peers for af_smc selftests");
