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
 *                peer's CLC wait; both times SMC_WAIT_SCALE)
 *   4 truncated  the first 20 bytes of a 28-byte Decline, then nothing
 *   5 reset      resets the connection at once
 *   6 keep       reads the client's Proposal, keeps it as the template
 *                (below), then nothing
 * Client: writing "MODE PORT [SRC]" to /sys/module/smc_badpeer/parameters/connect
 * connects to 127.0.0.1:PORT with the SMC option, from the IPv4 address
 * SRC (a loopback one) if given, and behaves as MODE
 * (garbage, silent or close), or as "propose": sends the template, a
 * Proposal a genuine client made, and then nothing (never a Confirm);
 * ENOENT while there is no template.
 * Forger: writing "PID PORT TOKEN CLASS" to
 * /sys/module/smc_badpeer/parameters/forge listens once on 127.0.0.1:PORT
 * in the network namespace of process PID (an attacker's container),
 * answers the first client's SMC-Dv2 Proposal with an Accept that echoes
 * the client's own ISM GID, all 128 bits of it, and CHID (what a loopback
 * peer sends) but names the DMB TOKEN of size class CLASS, somebody
 * else's (an optional fifth field, hex, is XORed into the GID's second
 * half: an Accept that names the device by half its GID), and records
 * the client's answer in the forge_result parameter: "confirm" (the client
 * took the DMB), "decline 0xCODE", or "error -ERRNO"; "pending" before.
 * Writing the same to forge_confirm plays the client instead: it connects
 * to 127.0.0.1:PORT in PID's netns, proposes SMC-Dv2 as the last client
 * the forger answered did (same device, same EIDs: what an attacker sees
 * of its own kernel), and answers the Accept with a Confirm naming TOKEN;
 * the result is "decline 0xCODE", or "silence" when the server took the
 * Confirm (a server does not answer one).
 * Silent SMC-R client: writing "ADDR PORT N" to
 * /sys/module/smc_badpeer/parameters/silent_r connects to the IPv4
 * ADDR:PORT (from the initial netns) N times, one after the other, each
 * time proposing SMC-Rv1 under a made-up peer identity (peer id
 * "badpeer\0", GID ::ffff:10.43.0.99, the same for all N) and an IPv4
 * prefix of the connection's own /24, reading the answer, and then never
 * sending the Confirm: a first contact the server waits for in vain. The
 * next connection starts as soon as the previous one got its answer.
 * silent_r_result then says, for each: "accept first MS" (an Accept with
 * the first contact flag, MS ms after the Proposal), "accept MS",
 * "decline 0xCODE MS" or "error -ERRNO", joined by ", "; "pending"
 * before all are in.
 * Lying SMC-R client: writing "ADDR PORT WHAT" to
 * /sys/module/smc_badpeer/parameters/confirm_r connects to the IPv4
 * ADDR:PORT, proposes SMC-Rv1 under the silent client's identity, takes
 * the Accept and answers it with a Confirm whose WHAT is another host's:
 * "id" the peer id ("forged\0\0"), "gid" the GID (::ffff:10.43.0.98),
 * "mac" the MAC (02:ba:d0:00:00:98), or "none" (a Confirm true to the
 * Proposal, which the server goes on with). Its QP data is made up: no
 * link to it ever comes up. confirm_r_result says "pending", then
 * "confirm sent" once the Confirm is out, then "decline 0xCODE MS" (MS ms
 * after the Confirm), "silence" (no answer in 10 s), "accept-less ..."
 * (the Proposal got no Accept) or "error -ERRNO". The connection is
 * closed once the result is in.
 * SMC v2.1 liars (kernel/smc_v21.h), in the forger's slot and with its
 * forge_result: writing "PORT REL CONNS LINKS" to r21_accept listens once
 * on port PORT of every IPv4 address of the initial netns and answers the
 * first client's SMC-Rv2 Proposal with an SMC-Rv2 first-contact Accept
 * naming release REL and the limits CONNS and LINKS (another host's
 * identity, the Proposal's first UEID, made-up QP data); the result is
 * "confirm R/C/L" (what the client's Confirm repeated) or "decline
 * 0xCODE". The Proposal becomes the template. Writing "SRC DST PORT REL
 * CONNS LINKS" to r21_confirm connects from SRC to DST:PORT, sends the
 * template (an SMC-Rv2 Proposal r21_accept kept: a genuine client's, so
 * the server's checks of who proposes pass) and answers the server's
 * first-contact Accept with a Confirm true to the Proposal but naming REL,
 * CONNS and LINKS; the result is "decline 0xCODE MS" or "silence".
 * The CLC messages are built by af_smc's own wire code (kernel/wire).
 * Held connections are released when the module is removed.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/in.h>
#include <linux/inet.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/net.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <net/inet_sock.h>
#include <net/net_namespace.h>
#include <net/sock.h>
#include <net/tcp.h>

/*
 * The CLC encoder and decoder, compiled into this module: a test peer
 * that builds its messages with the same code as af_smc cannot disagree
 * with it about the layout, only about the contents, which is the point.
 */
#include "../../kernel/wire/smc_clc.c"
/*
 * af_smc's bounds on its waits for the network, times SMC_WAIT_SCALE in a
 * debug build; this peer's waits, each meant to outlast one of those, are
 * BP_WAIT(seconds): scaled alike.
 */
#include "../../kernel/smc_wait.h"
#define BP_WAIT(s)	((s) * HZ * SMC_WAIT_SCALE)

enum bp_mode {
	BP_GARBAGE, BP_SILENT, BP_CLOSE, BP_LATE, BP_TRUNCATED, BP_RESET, BP_KEEP,
	BP_NR,
	BP_PROPOSE = BP_NR,	/* a client's only */
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

/* The last genuine Proposal seen (forger, keep); result_lock guards the pointer. */
static struct smc_clc_proposal *bp_template;

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

static void bp_keep_proposal(struct socket *sock);
static void bp_propose(struct socket *sock);

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
		msleep(3000 * SMC_WAIT_SCALE);
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
	case BP_KEEP:
		bp_keep_proposal(sock);
		bp_hold(sock);
		break;
	case BP_PROPOSE:
		bp_propose(sock);
		bp_hold(sock);
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
		rc = kernel_listen(srv->listener, 512);	/* hsflood: 300 at once */
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
	__be32 src;		/* 0: the kernel picks */
};

static void bp_client_work(struct work_struct *work)
{
	struct bp_client *c = container_of(work, struct bp_client, work);
	struct sockaddr_in sin = {
		.sin_family = AF_INET,
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
		.sin_port = htons(c->port),
	};
	struct sockaddr_in src = { .sin_family = AF_INET, .sin_addr.s_addr = c->src };
	struct socket *sock;

	if (!bp_tcp_socket(&sock)) {
		if ((c->src && kernel_bind(sock, (struct sockaddr *)&src, sizeof(src))) ||
		    kernel_connect(sock, (struct sockaddr *)&sin, sizeof(sin), 0))
			sock_release(sock);
		else
			bp_act(sock, c->mode);
	}
	kfree(c);
}

static int bp_connect_set(const char *val, const struct kernel_param *kp)
{
	static const char *const names[] = { "garbage", "silent", "close" };
	char mode[16], srcstr[16] = "";
	struct bp_client *c;
	__be32 src = 0;
	int port, i;

	if (sscanf(val, "%15s %d %15s", mode, &port, srcstr) < 2 || port <= 0 ||
	    port > 65535)
		return -EINVAL;
	if (srcstr[0] && !in4_pton(srcstr, -1, (u8 *)&src, -1, NULL))
		return -EINVAL;
	for (i = 0; i < ARRAY_SIZE(names); i++)
		if (!strcmp(mode, names[i]))
			break;
	if (!strcmp(mode, "propose")) {
		if (!READ_ONCE(bp_template))
			return -ENOENT;
		i = BP_PROPOSE;
	} else if (i == ARRAY_SIZE(names)) {
		return -EINVAL;
	}
	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return -ENOMEM;
	INIT_WORK(&c->work, bp_client_work);
	c->mode = i;
	c->port = port;
	c->src = src;
	queue_work(bp_wq, &c->work);
	return 0;
}

static const struct kernel_param_ops bp_connect_ops = { .set = bp_connect_set };
module_param_cb(connect, &bp_connect_ops, NULL, 0200);
MODULE_PARM_DESC(connect, "\"MODE PORT [SRC]\": connect to 127.0.0.1:PORT (from SRC) and misbehave");

/* ---- the forger ---- */

struct bp_forge;

/*
 * One kind of forgery (forge/forge_confirm, r21_accept/r21_confirm): what
 * its server and its client do beyond the steps they share.
 */
struct bp_forge_ops {
	/* The forged Accept to the Proposal in msg (may overwrite msg); 0 or -errno. */
	int (*accept)(struct bp_forge *f, struct socket *conn,
		      struct smc_clc_msg *msg, u8 *buf);
	/* The server's result text: rc, else the client's answer in msg. */
	void (*result)(char *res, size_t size, int rc, const struct smc_clc_msg *msg);
	/* Declined: the client goes on over TCP; echo its first byte. */
	bool echo;
	/* The whole of the client side. */
	void (*client)(struct bp_forge *f);
};

struct bp_forge {
	struct work_struct work;
	struct socket *sock;		/* in the attacker's netns */
	bool client;			/* forge_confirm, r21_confirm: sock connects */
	const struct bp_forge_ops *ops;
	__be16 port;
	u64 token;
	u8 class;
	/* XORed into the echoed GID's second half (emulated devices' only). */
	u64 ext_xor;
	__be32 daddr;			/* r21_confirm */
	u8 release, conns, links;	/* r21_*: what the lie names */
};

/*
 * Lock order: the sysfs parameter lock, forge_lock (the slot), then
 * result_lock (the text). The work takes only result_lock, so the set
 * path may wait for the work while it holds the other two.
 */
static DEFINE_MUTEX(forge_lock);
static struct bp_forge *forge;		/* the one forgery in flight */
static DEFINE_SPINLOCK(result_lock);
static char forge_result[48] = "none";

static void bp_set_result(const char *res)
{
	spin_lock(&result_lock);
	strscpy(forge_result, res, sizeof(forge_result));
	spin_unlock(&result_lock);
}

static int bp_result_get(char *buf, const struct kernel_param *kp)
{
	int n;

	spin_lock(&result_lock);
	n = scnprintf(buf, PAGE_SIZE, "%s\n", forge_result);
	spin_unlock(&result_lock);
	return n;
}

static const struct kernel_param_ops bp_result_ops = { .get = bp_result_get };
module_param_cb(forge_result, &bp_result_ops, NULL, 0444);
MODULE_PARM_DESC(forge_result, "what the forger's client answered: pending, confirm, decline 0xCODE, error -ERRNO");

/* One whole CLC message into buf (at most len bytes); its length, or -errno. */
static int bp_recv_clc(struct socket *sock, u8 *buf, int len)
{
	struct msghdr mh = {};
	struct kvec vec = { buf, SMC_CLC_HDR_LEN };
	struct smc_clc_hdr hdr;
	int rc;

	rc = kernel_recvmsg(sock, &mh, &vec, 1, vec.iov_len, MSG_WAITALL);
	if (rc != SMC_CLC_HDR_LEN)
		return rc < 0 ? rc : -EPROTO;
	if (smc_clc_decode_hdr(buf, SMC_CLC_HDR_LEN, &hdr) ||
	    hdr.length > len || hdr.length < SMC_CLC_HDR_LEN)
		return -EPROTO;
	vec = (struct kvec){ buf + SMC_CLC_HDR_LEN, hdr.length - SMC_CLC_HDR_LEN };
	memset(&mh, 0, sizeof(mh));
	rc = kernel_recvmsg(sock, &mh, &vec, 1, vec.iov_len, MSG_WAITALL);
	if (rc != vec.iov_len)
		return rc < 0 ? rc : -EPROTO;
	return hdr.length;
}

/* The forged Accept for the Proposal in msg; 0 or -errno. */
static int bp_forge_accept(struct bp_forge *f, struct socket *conn,
			   struct smc_clc_msg *msg, u8 *buf)
{
	const struct smc_clc_proposal *p = &msg->proposal;
	struct smc_clc_accept_confirm *ac;
	struct smc_clc_ism_gid dev;
	unsigned int pos = 0;
	enum smc_clc_err err;
	size_t len;

	/*
	 * The client's own device, its GID whole (both halves if emulated);
	 * a client that lists an emulated device once (af_smc before its
	 * 128-bit GIDs) by that one entry.
	 */
	if (msg->hdr.type != SMC_CLC_PROPOSAL || !p->ism_gid_cnt)
		return -EPROTO;
	if (!smc_clc_ism_next(p, &pos, &dev))
		dev = (struct smc_clc_ism_gid){ .gid = p->ism_dev[0].gid,
						.chid = p->ism_dev[0].chid };
	ac = kzalloc(sizeof(*ac), GFP_KERNEL);
	if (!ac)
		return -ENOMEM;
	ac->hdr.type = SMC_CLC_ACCEPT;
	ac->hdr.version = SMC_CLC_V2;
	ac->hdr.typev1 = SMC_CLC_TYPE_D;
	ac->hdr.eyecatcher = SMC_CLC_EC_SMCD;
	ac->hdr.trl_eyecatcher = SMC_CLC_EC_SMCD;
	ac->d.gid = dev.gid;
	ac->d.gid_ext = dev.gid_ext ^ f->ext_xor;
	ac->d.chid = dev.chid;
	ac->d.token = f->token;		/* not ours: the victim's */
	ac->d.dmbe_size = f->class;
	ac->d.linkid = 1;
	memcpy(ac->eid, p->system_eid, SMC_CLC_EID_LEN);
	err = smc_clc_encode_accept_confirm(ac, buf, SMC_CLC_MAX_MSG_LEN, &len);
	kfree(ac);
	if (err)
		return -EINVAL;
	bp_send(conn, buf, len);
	return 0;
}

static void bp_keep_template(const struct smc_clc_proposal *p)
{
	struct smc_clc_proposal *copy, *old;

	if (p->hdr.type != SMC_CLC_PROPOSAL)
		return;
	copy = kmemdup(p, sizeof(*p), GFP_KERNEL);
	if (!copy)
		return;
	spin_lock(&result_lock);
	old = bp_template;
	bp_template = copy;
	spin_unlock(&result_lock);
	kfree(old);
}

static int bp_send_clc(struct socket *sock, const struct smc_clc_msg *msg, u8 *buf)
{
	size_t len;

	if (smc_clc_encode(msg, buf, SMC_CLC_MAX_MSG_LEN, &len))
		return -EINVAL;
	bp_send(sock, buf, len);
	return 0;
}

/* Server "keep": the client's Proposal becomes the template. */
static void bp_keep_proposal(struct socket *sock)
{
	struct smc_clc_msg *msg = kzalloc(sizeof(*msg), GFP_KERNEL);
	u8 *buf = kmalloc(SMC_CLC_MAX_MSG_LEN, GFP_KERNEL);
	int rc = -ENOMEM;

	if (msg && buf) {
		sock->sk->sk_rcvtimeo = BP_WAIT(2);
		rc = bp_recv_clc(sock, buf, SMC_CLC_MAX_MSG_LEN);
	}
	if (rc > 0 && !smc_clc_decode(buf, rc, msg))
		bp_keep_template(&msg->proposal);
	kfree(buf);
	kfree(msg);
}

/* Client "propose": the template, then silence (no Confirm ever). */
static void bp_propose(struct socket *sock)
{
	struct smc_clc_msg *msg = kzalloc(sizeof(*msg), GFP_KERNEL);
	u8 *buf = kmalloc(SMC_CLC_MAX_MSG_LEN, GFP_KERNEL);

	if (msg && buf) {
		spin_lock(&result_lock);
		if (bp_template)
			msg->proposal = *bp_template;
		spin_unlock(&result_lock);
		if (msg->hdr.type == SMC_CLC_PROPOSAL)
			bp_send_clc(sock, msg, buf);
	}
	kfree(buf);
	kfree(msg);
}

/* The forging client: Proposal, Accept, forged Confirm, then the answer. */
static void bp_forge_confirm(struct bp_forge *f)
{
	struct sockaddr_in sin = {
		.sin_family = AF_INET,
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
		.sin_port = f->port,
	};
	struct smc_clc_msg *msg = kzalloc(sizeof(*msg), GFP_KERNEL);
	u8 *buf = kmalloc(SMC_CLC_MAX_MSG_LEN, GFP_KERNEL);
	struct smc_clc_accept_confirm *ac;
	char res[sizeof(forge_result)];
	int rc = -ENOMEM;

	if (!msg || !buf)
		goto out;
	spin_lock(&result_lock);
	if (bp_template)
		msg->proposal = *bp_template;
	spin_unlock(&result_lock);
	rc = -ENOENT;		/* no client has proposed to the forger yet */
	if (msg->hdr.type != SMC_CLC_PROPOSAL || !msg->proposal.ism_gid_cnt)
		goto out;
	f->sock->sk->sk_rcvtimeo = BP_WAIT(2);
	rc = kernel_connect(f->sock, (struct sockaddr *)&sin, sizeof(sin), 0);
	if (!rc)
		rc = bp_send_clc(f->sock, msg, buf);
	if (!rc)
		rc = bp_recv_clc(f->sock, buf, SMC_CLC_MAX_MSG_LEN);
	if (rc > 0)
		rc = smc_clc_decode(buf, rc, msg) ? -EPROTO : 0;
	if (rc)
		goto out;
	ac = &msg->accept_confirm;
	if (ac->hdr.type != SMC_CLC_ACCEPT || ac->hdr.typev1 != SMC_CLC_TYPE_D) {
		rc = -EPROTO;
		goto out;
	}
	/*
	 * The server's own Accept, turned into our Confirm: its GID and CHID
	 * are ours too (one loopback device), its EID is the one agreed. Only
	 * the DMB is somebody else's. No first contact: no extension to send.
	 */
	ac->hdr.type = SMC_CLC_CONFIRM;
	ac->hdr.typev2 = 0;
	ac->d.token = f->token;
	ac->d.dmbe_size = f->class;
	rc = bp_send_clc(f->sock, msg, buf);
	if (!rc)
		rc = bp_recv_clc(f->sock, buf, SMC_CLC_MAX_MSG_LEN);
	if (rc > 0)
		rc = smc_clc_decode(buf, rc, msg) ? -EPROTO : 0;
out:
	if (rc == -EAGAIN)
		snprintf(res, sizeof(res), "silence");
	else if (rc)
		snprintf(res, sizeof(res), "error %d", rc);
	else if (msg->hdr.type == SMC_CLC_DECLINE)
		snprintf(res, sizeof(res), "decline 0x%08x", msg->decline.diagnosis);
	else
		snprintf(res, sizeof(res), "error type %u", msg->hdr.type);
	kfree(buf);
	kfree(msg);
	bp_set_result(res);	/* the socket stays until the next forgery */
}

/* Read one byte (within sock's timeout) and send it back. */
static void bp_echo_byte(struct socket *sock)
{
	struct msghdr mh = {};
	u8 c;
	struct kvec vec = { &c, 1 };

	if (kernel_recvmsg(sock, &mh, &vec, 1, 1, 0) == 1)
		bp_send(sock, &c, 1);
}

/*
 * The forging server: accept the victim's connection, read its Proposal
 * (the template from then on), send ops' Accept, read the answer.
 */
static void bp_forge_serve(struct bp_forge *f)
{
	const struct bp_forge_ops *ops = f->ops;
	struct smc_clc_msg *msg = kzalloc(sizeof(*msg), GFP_KERNEL);
	u8 *buf = kmalloc(SMC_CLC_MAX_MSG_LEN, GFP_KERNEL);
	char res[sizeof(forge_result)];
	struct socket *conn = NULL;
	int rc;

	rc = msg && buf ? kernel_accept(f->sock, &conn, 0) : -ENOMEM;
	if (rc)
		goto out;
	/* A client that never answers must not keep unload waiting. */
	conn->sk->sk_rcvtimeo = BP_WAIT(5);
	rc = bp_recv_clc(conn, buf, SMC_CLC_MAX_MSG_LEN);
	if (rc > 0)
		rc = smc_clc_decode(buf, rc, msg) ? -EPROTO : 0;
	if (!rc)
		bp_keep_template(&msg->proposal);
	if (!rc)
		rc = ops->accept(f, conn, msg, buf);
	if (!rc)
		rc = bp_recv_clc(conn, buf, SMC_CLC_MAX_MSG_LEN);
	if (rc > 0)
		rc = smc_clc_decode(buf, rc, msg) ? -EPROTO : 0;
	if (!rc && ops->echo && msg->hdr.type == SMC_CLC_DECLINE)
		bp_echo_byte(conn);
out:
	ops->result(res, sizeof(res), rc, msg);
	kfree(buf);
	kfree(msg);
	/* Whatever the client does next goes nowhere, until unload. */
	if (conn)
		bp_hold(conn);
	bp_set_result(res);
}

/* forge's server result: no "silence", and a Confirm is just "confirm". */
static void bp_forge_result(char *res, size_t size, int rc, const struct smc_clc_msg *msg)
{
	if (rc)
		snprintf(res, size, "error %d", rc);
	else if (msg->hdr.type == SMC_CLC_CONFIRM)
		snprintf(res, size, "confirm");
	else if (msg->hdr.type == SMC_CLC_DECLINE)
		snprintf(res, size, "decline 0x%08x", msg->decline.diagnosis);
	else
		snprintf(res, size, "error type %u", msg->hdr.type);
}

static const struct bp_forge_ops bp_dmb_ops = {
	.accept = bp_forge_accept,
	.result = bp_forge_result,
	.client = bp_forge_confirm,
};

static void bp_forge_work(struct work_struct *work)
{
	struct bp_forge *f = container_of(work, struct bp_forge, work);

	/*
	 * The client needs none of the server's buffers (kmemleak on the
	 * debug kernel found them leaked there once, per forged Confirm).
	 */
	if (f->client)
		f->ops->client(f);
	else
		bp_forge_serve(f);
}

/* Stop the forgery in flight, if any. forge_lock held. */
static void bp_forge_stop(void)
{
	if (!forge)
		return;
	/* Ends the work's accept() or read, if it still waits. */
	kernel_sock_shutdown(forge->sock, SHUT_RDWR);
	flush_work(&forge->work);
	sock_release(forge->sock);
	kfree(forge);
	forge = NULL;
}

/* f in the slot, its work queued. */
static void bp_forge_install(struct bp_forge *f)
{
	mutex_lock(&forge_lock);
	bp_forge_stop();	/* one at a time: the last one asked wins */
	forge = f;
	bp_set_result("pending");
	queue_work(bp_wq, &f->work);
	mutex_unlock(&forge_lock);
}

/*
 * f's socket bound to bind_to (if any) and listening (if listen), then f
 * in the slot. 0, or -errno and f is freed.
 */
static int bp_forge_open(struct bp_forge *f, const struct sockaddr_in *bind_to,
			 bool listen)
{
	int rc = 0;

	if (bind_to)
		rc = kernel_bind(f->sock, (struct sockaddr *)bind_to, sizeof(*bind_to));
	if (!rc && listen)
		rc = kernel_listen(f->sock, 1);
	if (rc) {
		sock_release(f->sock);
		kfree(f);
		return rc;
	}
	bp_forge_install(f);
	return 0;
}

static int bp_forge_start(const char *val, bool client)
{
	struct sockaddr_in sin = {
		.sin_family = AF_INET,
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};
	struct bp_forge *f;
	unsigned int class;
	struct net *net;
	u64 token, ext_xor = 0;
	int pid, port, n;
	int rc;

	n = sscanf(val, "%d %d %llx %u %llx", &pid, &port, &token, &class, &ext_xor);
	if (n < 4 || port <= 0 || port > 65535 || class > 15)
		return -EINVAL;
	net = get_net_ns_by_pid(pid);
	if (IS_ERR(net))
		return PTR_ERR(net);
	f = kzalloc(sizeof(*f), GFP_KERNEL);
	if (!f) {
		put_net(net);
		return -ENOMEM;
	}
	INIT_WORK(&f->work, bp_forge_work);
	f->client = client;
	f->ops = &bp_dmb_ops;
	f->port = htons(port);
	f->token = token;
	f->class = class;
	f->ext_xor = ext_xor;
	/* A user socket (kern 0): it holds the namespace it lives in. */
	rc = __sock_create(net, AF_INET, SOCK_STREAM, IPPROTO_TCP, &f->sock, 0);
	put_net(net);
	if (rc) {
		kfree(f);
		return rc;
	}
	tcp_sk(f->sock->sk)->syn_smc = 1;	/* offer SMC */
	sin.sin_port = f->port;
	return bp_forge_open(f, client ? NULL : &sin, !client);
}

static int bp_forge_set(const char *val, const struct kernel_param *kp)
{
	return bp_forge_start(val, false);
}

static int bp_forge_confirm_set(const char *val, const struct kernel_param *kp)
{
	return bp_forge_start(val, true);
}

static const struct kernel_param_ops bp_forge_ops = { .set = bp_forge_set };
module_param_cb(forge, &bp_forge_ops, NULL, 0200);
static const struct kernel_param_ops bp_forge_confirm_ops = { .set = bp_forge_confirm_set };
module_param_cb(forge_confirm, &bp_forge_confirm_ops, NULL, 0200);
MODULE_PARM_DESC(forge_confirm, "\"PID PORT TOKEN CLASS\": connect to 127.0.0.1:PORT in PID's netns and confirm with DMB TOKEN");
MODULE_PARM_DESC(forge, "\"PID PORT TOKEN CLASS [EXTXOR]\": answer the next client on 127.0.0.1:PORT in PID's netns with an Accept naming DMB TOKEN");

/* ---- SMC v2.1 liars ---- */

/* Another host's identity, for the lying Accept. */
static const u8 bp_r21_peer_id[SMC_CLC_PEER_ID_LEN] = "r21liar";
static const u8 bp_r21_gid[SMC_CLC_GID_LEN] = {
	[10] = 0xff, [11] = 0xff, [12] = 10, [13] = 43, [14] = 0, [15] = 97,
};
static const u8 bp_r21_mac[SMC_CLC_MAC_LEN] = { 0x02, 0xba, 0xd0, 0, 0, 0x97 };

/* The lying Accept to the SMC-Rv2 Proposal in msg (overwritten); 0 or -errno. */
static int bp_r21_accept(struct bp_forge *f, struct socket *conn,
			 struct smc_clc_msg *msg, u8 *buf)
{
	struct smc_clc_accept_confirm *ac = &msg->accept_confirm;
	u8 eid[SMC_CLC_EID_LEN];

	if (msg->hdr.type != SMC_CLC_PROPOSAL || msg->hdr.version < SMC_CLC_V2 ||
	    !smc_clc_smcr_indicated(msg->hdr.typev2) || !msg->proposal.eid_cnt)
		return -EPROTO;
	memcpy(eid, msg->proposal.user_eid[0], sizeof(eid));
	memset(msg, 0, sizeof(*msg));
	ac->hdr.type = SMC_CLC_ACCEPT;
	ac->hdr.version = SMC_CLC_V2;
	ac->hdr.typev1 = SMC_CLC_TYPE_R;
	ac->hdr.typev2 = SMC_CLC_FIRST_CONTACT;
	ac->hdr.eyecatcher = SMC_CLC_EC_SMCR;
	ac->hdr.trl_eyecatcher = SMC_CLC_EC_SMCR;
	memcpy(ac->r.peer_id, bp_r21_peer_id, sizeof(ac->r.peer_id));
	memcpy(ac->r.gid, bp_r21_gid, sizeof(ac->r.gid));
	memcpy(ac->r.mac, bp_r21_mac, sizeof(ac->r.mac));
	ac->r.qpn = 0x2121;		/* no such QP anywhere */
	ac->r.psn = 0x2121;
	ac->r.rmb_rkey = 0x2121;
	ac->r.rmbe_idx = 1;
	ac->r.rmbe_alert_token = 0x2121;
	ac->r.rmbe_size = 0;
	ac->r.qp_mtu = 3;		/* IB_MTU_1024 */
	ac->r.rmb_dma_addr = 0x2121000;
	memcpy(ac->eid, eid, sizeof(ac->eid));
	ac->fce.v2_direct = true;
	ac->fce.os_type = SMC_CLC_OS_LINUX;
	ac->fce.release = f->release;
	memset(ac->fce.hostname, ' ', sizeof(ac->fce.hostname));
	ac->fce.has_v2x = true;
	ac->fce.max_conns = f->conns;
	ac->fce.max_links = f->links;
	return bp_send_clc(conn, msg, buf);
}

/*
 * The lying Confirm to the server's Accept in msg (overwritten): the
 * template's identity (the genuine client's), its GID as the one GID of
 * the list, made-up QP data, f's release and limits. 0 or -errno.
 */
static int bp_r21_confirm(struct bp_forge *f, struct socket *sock,
			  const struct smc_clc_proposal *p,
			  struct smc_clc_msg *msg, u8 *buf)
{
	struct smc_clc_accept_confirm *ac = &msg->accept_confirm;

	if (ac->hdr.type != SMC_CLC_ACCEPT || ac->hdr.version < SMC_CLC_V2 ||
	    !smc_clc_first_contact(&ac->hdr))
		return -EPROTO;
	ac->hdr.type = SMC_CLC_CONFIRM;
	memcpy(ac->r.peer_id, p->peer_id, sizeof(ac->r.peer_id));
	memcpy(ac->r.gid, p->roce_gid, sizeof(ac->r.gid));
	memcpy(ac->r.mac, p->mac, sizeof(ac->r.mac));
	ac->r.qpn = 0x2121;
	ac->r.psn = 0x2121;
	ac->r.rmb_rkey = 0x2121;
	ac->r.rmbe_alert_token = 0x2121;
	ac->r.rmbe_size = 0;
	ac->r.rmb_dma_addr = 0x2121000;
	ac->fce.release = f->release;
	ac->fce.has_v2x = true;
	ac->fce.max_conns = f->conns;
	ac->fce.max_links = f->links;
	ac->gid_cnt = 1;
	memcpy(ac->gid_list[0], p->roce_gid, sizeof(ac->gid_list[0]));
	return bp_send_clc(sock, msg, buf);
}

/* r21's result text, but for the client's Decline. */
static void bp_r21_result(char *res, size_t size, int rc, const struct smc_clc_msg *msg)
{
	if (rc == -EAGAIN)
		snprintf(res, size, "silence");
	else if (rc)
		snprintf(res, size, "error %d", rc);
	else if (msg->hdr.type == SMC_CLC_DECLINE)
		snprintf(res, size, "decline 0x%08x", msg->decline.diagnosis);
	else if (msg->hdr.type == SMC_CLC_CONFIRM)
		snprintf(res, size, "confirm %u/%u/%u", msg->accept_confirm.fce.release,
			 msg->accept_confirm.fce.max_conns, msg->accept_confirm.fce.max_links);
	else
		snprintf(res, size, "error type %u", msg->hdr.type);
}

/* r21_confirm: propose as the template, confirm with the lie, time the answer. */
static void bp_r21_client(struct bp_forge *f)
{
	struct sockaddr_in sin = {
		.sin_family = AF_INET,
		.sin_addr.s_addr = f->daddr,
		.sin_port = f->port,
	};
	struct smc_clc_msg *msg = kzalloc(sizeof(*msg), GFP_KERNEL);
	struct smc_clc_proposal *p = kzalloc(sizeof(*p), GFP_KERNEL);
	u8 *buf = kmalloc(SMC_CLC_MAX_MSG_LEN, GFP_KERNEL);
	char res[sizeof(forge_result)];
	unsigned long t0 = 0;
	int rc = -ENOMEM;

	if (!msg || !p || !buf)
		goto out;
	spin_lock(&result_lock);
	if (bp_template)
		*p = *bp_template;
	spin_unlock(&result_lock);
	rc = -ENOENT;	/* r21_accept has seen no SMC-Rv2 Proposal */
	if (p->hdr.type != SMC_CLC_PROPOSAL || p->hdr.version < SMC_CLC_V2 ||
	    !smc_clc_smcr_indicated(p->hdr.typev2))
		goto out;
	/* Longer than the server's LLC waits after a Confirm. */
	f->sock->sk->sk_rcvtimeo = BP_WAIT(10);
	msg->proposal = *p;
	rc = kernel_connect(f->sock, (struct sockaddr *)&sin, sizeof(sin), 0) ?:
	     bp_send_clc(f->sock, msg, buf);
	if (!rc)
		rc = bp_recv_clc(f->sock, buf, SMC_CLC_MAX_MSG_LEN);
	if (rc > 0)
		rc = smc_clc_decode(buf, rc, msg) ? -EPROTO : 0;
	if (!rc)
		rc = bp_r21_confirm(f, f->sock, p, msg, buf);
	t0 = jiffies;
	if (!rc)
		rc = bp_recv_clc(f->sock, buf, SMC_CLC_MAX_MSG_LEN);
	if (rc > 0)
		rc = smc_clc_decode(buf, rc, msg) ? -EPROTO : 0;
out:
	if (!rc && msg->hdr.type == SMC_CLC_DECLINE)
		snprintf(res, sizeof(res), "decline 0x%08x %u", msg->decline.diagnosis,
			 jiffies_to_msecs(jiffies - t0));
	else
		bp_r21_result(res, sizeof(res), rc, msg);
	kfree(buf);
	kfree(p);
	kfree(msg);
	bp_set_result(res);
}

static const struct bp_forge_ops bp_r21_ops = {
	.accept = bp_r21_accept,
	.result = bp_r21_result,
	.echo = true,
	.client = bp_r21_client,
};

static int bp_r21_start(const char *val, bool client)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	unsigned int s[4], d[4] = {}, rel, conns, links;
	struct bp_forge *f;
	int port, rc;

	if (client)
		rc = sscanf(val, "%u.%u.%u.%u %u.%u.%u.%u %d %u %u %u", &s[0], &s[1],
			    &s[2], &s[3], &d[0], &d[1], &d[2], &d[3], &port, &rel,
			    &conns, &links) == 12 ? 0 : -EINVAL;
	else
		rc = sscanf(val, "%d %u %u %u", &port, &rel, &conns, &links) == 4 ?
		     0 : -EINVAL;
	if (rc || port <= 0 || port > 65535 || rel > 15 || conns > 255 || links > 255)
		return -EINVAL;
	f = kzalloc(sizeof(*f), GFP_KERNEL);
	if (!f)
		return -ENOMEM;
	INIT_WORK(&f->work, bp_forge_work);
	f->client = client;
	f->ops = &bp_r21_ops;
	f->port = htons(port);
	f->release = rel;
	f->conns = conns;
	f->links = links;
	rc = bp_tcp_socket(&f->sock);
	if (rc) {
		kfree(f);
		return rc;
	}
	if (client) {
		/* From SRC: the genuine client's address, which the server routes. */
		sin.sin_addr.s_addr = htonl(s[0] << 24 | s[1] << 16 | s[2] << 8 | s[3]);
		f->daddr = htonl(d[0] << 24 | d[1] << 16 | d[2] << 8 | d[3]);
	} else {
		sin.sin_port = f->port;
	}
	return bp_forge_open(f, &sin, !client);
}

static int bp_r21_accept_set(const char *val, const struct kernel_param *kp)
{
	return bp_r21_start(val, false);
}

static int bp_r21_confirm_set(const char *val, const struct kernel_param *kp)
{
	return bp_r21_start(val, true);
}

static const struct kernel_param_ops bp_r21_accept_ops = { .set = bp_r21_accept_set };
module_param_cb(r21_accept, &bp_r21_accept_ops, NULL, 0200);
MODULE_PARM_DESC(r21_accept, "\"PORT REL CONNS LINKS\": answer the next SMC-Rv2 client on PORT with an Accept naming them");
static const struct kernel_param_ops bp_r21_confirm_ops = { .set = bp_r21_confirm_set };
module_param_cb(r21_confirm, &bp_r21_confirm_ops, NULL, 0200);
MODULE_PARM_DESC(r21_confirm, "\"SRC DST PORT REL CONNS LINKS\": propose as the last SMC-Rv2 client did, confirm naming them");

/* ---- the silent SMC-R client ---- */

struct bp_silent {
	struct work_struct work;
	__be32 addr;
	__be16 port;
	int n;
};

static DEFINE_SPINLOCK(silent_lock);
static char silent_result[160] = "none";

static const u8 bp_silent_peer_id[SMC_CLC_PEER_ID_LEN] = "badpeer";
static const u8 bp_silent_gid[SMC_CLC_GID_LEN] = {
	[10] = 0xff, [11] = 0xff, [12] = 10, [13] = 43, [14] = 0, [15] = 99,
};
static const u8 bp_silent_mac[SMC_CLC_MAC_LEN] = { 0x02, 0xba, 0xd0, 0, 0, 0x99 };

/*
 * The silent client's SMC-Rv1 Proposal on a connected sock, and the
 * server's answer decoded into msg: 0 or -errno.
 */
static int bp_propose_r(struct socket *sock, struct smc_clc_msg *msg, u8 *buf)
{
	struct smc_clc_proposal *p = &msg->proposal;
	int rc;

	memset(msg, 0, sizeof(*msg));
	p->hdr.type = SMC_CLC_PROPOSAL;
	p->hdr.version = SMC_CLC_V1;
	p->hdr.typev1 = SMC_CLC_TYPE_R;
	p->hdr.typev2 = SMC_CLC_TYPE_N;
	p->hdr.eyecatcher = SMC_CLC_EC_SMCR;
	p->hdr.trl_eyecatcher = SMC_CLC_EC_SMCR;
	memcpy(p->peer_id, bp_silent_peer_id, sizeof(p->peer_id));
	memcpy(p->gid, bp_silent_gid, sizeof(p->gid));
	memcpy(p->mac, bp_silent_mac, sizeof(p->mac));
	p->v1_smcd_area = true;	/* as af_smc proposes */
	/* The server's subnet, as ours: both ends on one /24. */
	p->ipv4_subnet = ntohl(inet_sk(sock->sk)->inet_saddr) & 0xffffff00;
	p->ipv4_prefix_len = 24;
	rc = bp_send_clc(sock, msg, buf);
	if (!rc)
		rc = bp_recv_clc(sock, buf, SMC_CLC_MAX_MSG_LEN);
	if (rc > 0)
		rc = smc_clc_decode(buf, rc, msg) ? -EPROTO : 0;
	return rc;
}

/*
 * One silent first contact; its outcome into res. The socket is kept
 * (bp_hold) when the server answered, so it sees no close from us.
 */
static void bp_silent_one(struct bp_silent *c, struct smc_clc_msg *msg,
			  u8 *buf, char *res, size_t size)
{
	struct sockaddr_in sin = {
		.sin_family = AF_INET,
		.sin_addr.s_addr = c->addr,
		.sin_port = c->port,
	};
	struct socket *sock;
	unsigned long t0;
	int rc;

	rc = bp_tcp_socket(&sock);
	if (rc) {
		snprintf(res, size, "error %d", rc);
		return;
	}
	/* Longer than any CLC wait of af_smc's, bounded for unload. */
	sock->sk->sk_rcvtimeo = BP_WAIT(5);
	rc = kernel_connect(sock, (struct sockaddr *)&sin, sizeof(sin), 0);
	if (rc)
		goto fail;
	t0 = jiffies;
	rc = bp_propose_r(sock, msg, buf);
	if (rc)
		goto fail;
	if (msg->hdr.type == SMC_CLC_ACCEPT)
		snprintf(res, size, "accept%s %u",
			 smc_clc_first_contact(&msg->hdr) ? " first" : "",
			 jiffies_to_msecs(jiffies - t0));
	else if (msg->hdr.type == SMC_CLC_DECLINE)
		snprintf(res, size, "decline 0x%08x %u", msg->decline.diagnosis,
			 jiffies_to_msecs(jiffies - t0));
	else
		snprintf(res, size, "error type %u", msg->hdr.type);
	/* No Confirm, ever: the server's wait for it runs out. */
	bp_hold(sock);
	return;
fail:
	snprintf(res, size, "error %d", rc);
	sock_release(sock);
}

static void bp_silent_work(struct work_struct *work)
{
	struct bp_silent *c = container_of(work, struct bp_silent, work);
	struct smc_clc_msg *msg = kzalloc(sizeof(*msg), GFP_KERNEL);
	u8 *buf = kmalloc(SMC_CLC_MAX_MSG_LEN, GFP_KERNEL);
	char *all = kzalloc(sizeof(silent_result), GFP_KERNEL);
	char one[48];
	int i;

	if (!msg || !buf || !all) {
		spin_lock(&silent_lock);
		strscpy(silent_result, "error -12", sizeof(silent_result));
		spin_unlock(&silent_lock);
		goto out;
	}
	for (i = 0; i < c->n; i++) {
		bp_silent_one(c, msg, buf, one, sizeof(one));
		if (i)
			strlcat(all, ", ", sizeof(silent_result));
		strlcat(all, one, sizeof(silent_result));
	}
	spin_lock(&silent_lock);
	strscpy(silent_result, all, sizeof(silent_result));
	spin_unlock(&silent_lock);
out:
	kfree(all);
	kfree(buf);
	kfree(msg);
	kfree(c);
}

static int bp_silent_set(const char *val, const struct kernel_param *kp)
{
	unsigned int a[4];
	struct bp_silent *c;
	int port, n;

	if (sscanf(val, "%u.%u.%u.%u %d %d", &a[0], &a[1], &a[2], &a[3],
		   &port, &n) != 6 || a[0] > 255 || a[1] > 255 || a[2] > 255 ||
	    a[3] > 255 || port <= 0 || port > 65535 || n < 1 || n > 3)
		return -EINVAL;
	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return -ENOMEM;
	INIT_WORK(&c->work, bp_silent_work);
	c->addr = htonl(a[0] << 24 | a[1] << 16 | a[2] << 8 | a[3]);
	c->port = htons(port);
	c->n = n;
	spin_lock(&silent_lock);
	strscpy(silent_result, "pending", sizeof(silent_result));
	spin_unlock(&silent_lock);
	queue_work(bp_wq, &c->work);
	return 0;
}

static int bp_silent_result_get(char *buf, const struct kernel_param *kp)
{
	int n;

	spin_lock(&silent_lock);
	n = scnprintf(buf, PAGE_SIZE, "%s\n", silent_result);
	spin_unlock(&silent_lock);
	return n;
}

static const struct kernel_param_ops bp_silent_ops = { .set = bp_silent_set };
module_param_cb(silent_r, &bp_silent_ops, NULL, 0200);
MODULE_PARM_DESC(silent_r, "\"ADDR PORT N\": N silent SMC-Rv1 first contacts to ADDR:PORT, one after the other");
static const struct kernel_param_ops bp_silent_result_ops = { .get = bp_silent_result_get };
module_param_cb(silent_r_result, &bp_silent_result_ops, NULL, 0444);
MODULE_PARM_DESC(silent_r_result, "what the server answered each silent first contact");

/* ---- the lying SMC-R client ---- */

enum bp_lie { BP_LIE_NONE, BP_LIE_ID, BP_LIE_GID, BP_LIE_MAC };

struct bp_confirm_r {
	struct work_struct work;
	__be32 addr;
	__be16 port;
	enum bp_lie lie;
};

static DEFINE_SPINLOCK(confirm_r_lock);
static char confirm_r_result[64] = "none";

/* Another host's identity, one field of which the Confirm claims. */
static const u8 bp_other_peer_id[SMC_CLC_PEER_ID_LEN] = "forged";
static const u8 bp_other_gid[SMC_CLC_GID_LEN] = {
	[10] = 0xff, [11] = 0xff, [12] = 10, [13] = 43, [14] = 0, [15] = 98,
};
static const u8 bp_other_mac[SMC_CLC_MAC_LEN] = { 0x02, 0xba, 0xd0, 0, 0, 0x98 };

static void bp_confirm_r_set_result(const char *res)
{
	spin_lock(&confirm_r_lock);
	strscpy(confirm_r_result, res, sizeof(confirm_r_result));
	spin_unlock(&confirm_r_lock);
}

/*
 * The Confirm to the server's Accept in msg (overwritten): the
 * Proposal's identity but for the field c->lie names, made-up QP and RMB
 * data, the Accept's first contact flag and MTU. 0 or -errno.
 */
static int bp_confirm_r_send(struct bp_confirm_r *c, struct socket *sock,
			     struct smc_clc_msg *msg, u8 *buf)
{
	struct smc_clc_accept_confirm *ac = &msg->accept_confirm;

	ac->hdr.type = SMC_CLC_CONFIRM;
	memcpy(ac->r.peer_id, c->lie == BP_LIE_ID ? bp_other_peer_id :
	       bp_silent_peer_id, sizeof(ac->r.peer_id));
	memcpy(ac->r.gid, c->lie == BP_LIE_GID ? bp_other_gid : bp_silent_gid,
	       sizeof(ac->r.gid));
	memcpy(ac->r.mac, c->lie == BP_LIE_MAC ? bp_other_mac : bp_silent_mac,
	       sizeof(ac->r.mac));
	ac->r.qpn = 0x4242;		/* no such QP anywhere */
	ac->r.psn = 0x4242;
	ac->r.rmb_rkey = 0x4242;
	ac->r.rmbe_idx = 1;
	ac->r.rmbe_alert_token = 0x4242;
	ac->r.rmbe_size = 0;
	ac->r.rmb_dma_addr = 0x4242000;
	return bp_send_clc(sock, msg, buf);
}

static void bp_confirm_r_work(struct work_struct *work)
{
	struct bp_confirm_r *c = container_of(work, struct bp_confirm_r, work);
	struct sockaddr_in sin = {
		.sin_family = AF_INET,
		.sin_addr.s_addr = c->addr,
		.sin_port = c->port,
	};
	struct smc_clc_msg *msg = kzalloc(sizeof(*msg), GFP_KERNEL);
	u8 *buf = kmalloc(SMC_CLC_MAX_MSG_LEN, GFP_KERNEL);
	char res[sizeof(confirm_r_result)];
	struct socket *sock = NULL;
	unsigned long t0;
	int rc = -ENOMEM;

	if (!msg || !buf)
		goto out;
	rc = bp_tcp_socket(&sock);
	if (rc) {
		sock = NULL;
		goto out;
	}
	/* Longer than the server's LLC waits after a Confirm, bounded for unload. */
	sock->sk->sk_rcvtimeo = BP_WAIT(10);
	rc = kernel_connect(sock, (struct sockaddr *)&sin, sizeof(sin), 0);
	if (!rc)
		rc = bp_propose_r(sock, msg, buf);
	if (rc)
		goto out;
	if (msg->hdr.type != SMC_CLC_ACCEPT) {
		snprintf(res, sizeof(res), "accept-less: type %u diagnosis 0x%08x",
			 msg->hdr.type, msg->hdr.type == SMC_CLC_DECLINE ?
			 msg->decline.diagnosis : 0);
		goto done;
	}
	rc = bp_confirm_r_send(c, sock, msg, buf);
	if (rc)
		goto out;
	t0 = jiffies;
	bp_confirm_r_set_result("confirm sent");
	rc = bp_recv_clc(sock, buf, SMC_CLC_MAX_MSG_LEN);
	if (rc > 0)
		rc = smc_clc_decode(buf, rc, msg) ? -EPROTO : 0;
	if (rc)
		goto out;
	if (msg->hdr.type == SMC_CLC_DECLINE)
		snprintf(res, sizeof(res), "decline 0x%08x %u", msg->decline.diagnosis,
			 jiffies_to_msecs(jiffies - t0));
	else
		snprintf(res, sizeof(res), "error type %u", msg->hdr.type);
	goto done;
out:
	if (rc == -EAGAIN)
		snprintf(res, sizeof(res), "silence");
	else
		snprintf(res, sizeof(res), "error %d", rc);
done:
	if (sock)
		sock_release(sock);
	kfree(buf);
	kfree(msg);
	kfree(c);
	bp_confirm_r_set_result(res);
}

static int bp_confirm_r_set(const char *val, const struct kernel_param *kp)
{
	static const char *const lies[] = { "none", "id", "gid", "mac" };
	struct bp_confirm_r *c;
	unsigned int a[4];
	char what[8];
	int port, i;

	if (sscanf(val, "%u.%u.%u.%u %d %7s", &a[0], &a[1], &a[2], &a[3],
		   &port, what) != 6 || a[0] > 255 || a[1] > 255 || a[2] > 255 ||
	    a[3] > 255 || port <= 0 || port > 65535)
		return -EINVAL;
	for (i = 0; i < ARRAY_SIZE(lies); i++)
		if (!strcmp(what, lies[i]))
			break;
	if (i == ARRAY_SIZE(lies))
		return -EINVAL;
	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return -ENOMEM;
	INIT_WORK(&c->work, bp_confirm_r_work);
	c->addr = htonl(a[0] << 24 | a[1] << 16 | a[2] << 8 | a[3]);
	c->port = htons(port);
	c->lie = i;
	bp_confirm_r_set_result("pending");
	queue_work(bp_wq, &c->work);
	return 0;
}

static int bp_confirm_r_result_get(char *buf, const struct kernel_param *kp)
{
	int n;

	spin_lock(&confirm_r_lock);
	n = scnprintf(buf, PAGE_SIZE, "%s\n", confirm_r_result);
	spin_unlock(&confirm_r_lock);
	return n;
}

static const struct kernel_param_ops bp_confirm_r_ops = { .set = bp_confirm_r_set };
module_param_cb(confirm_r, &bp_confirm_r_ops, NULL, 0200);
MODULE_PARM_DESC(confirm_r, "\"ADDR PORT none|id|gid|mac\": an SMC-Rv1 first contact whose Confirm claims another host's field");
static const struct kernel_param_ops bp_confirm_r_result_ops = { .get = bp_confirm_r_result_get };
module_param_cb(confirm_r_result, &bp_confirm_r_result_ops, NULL, 0444);
MODULE_PARM_DESC(confirm_r_result, "what the server answered the lying Confirm");

static void bp_cleanup(void)
{
	struct bp_held *h, *tmp;
	int i;

	mutex_lock(&forge_lock);
	bp_forge_stop();
	mutex_unlock(&forge_lock);
	kfree(bp_template);
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
