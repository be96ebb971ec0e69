// SPDX-License-Identifier: GPL-2.0
/*
 * af_smc: sock_diag for AF_SMC (NETLINK_SOCK_DIAG, SOCK_DIAG_BY_FAMILY).
 *
 * Answers the dump requests of smcss and of any tool written for Linux's
 * smc_diag module, in the same format (uapi/linux/smc_diag.h): one
 * struct smc_diag_msg per socket of the requester's network namespace,
 * addresses and ports taken from the clcsock, then the attributes.
 *
 * Sockets are found on smc_sock_list (smc_socket.c). A socket leaves the
 * list, under the list's write lock, before its clcsock is released, so
 * a dump holding the read lock may read every socket's clcsock. Nothing
 * here sleeps under that lock. A dump too large for one message resumes
 * by position (cb->args[0]); sockets opened or closed between the parts
 * may be missed or seen twice, as with TCP's inet_diag, so the list's
 * generation goes into cb->seq and netlink marks the messages of a part
 * after a change NLM_F_DUMP_INTR: a reader that must not miss a socket
 * dumps again (selftests/lib/smcdiag.c does).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/inet_diag.h>
#include <linux/sock_diag.h>
#include <net/inet_sock.h>
#include <net/ipv6.h>
#include <net/netlink.h>
#include <net/sock.h>

#include <linux/smc_diag.h>

#include "smc.h"
#include "smc_conn.h"
#include "smcd_conn.h"
#include "smcr_lgr.h"

static u8 smc_diag_mode(const struct smc_sock *smc)
{
	if (!smc_use_fallback(smc) && READ_ONCE(smc->conn.smcd))
		return SMC_DIAG_MODE_SMCD;
	/* Undecided sockets and listeners count as SMC, as Linux's do. */
	if (smc_hs_state(smc) == SMC_HS_DONE && smc_use_fallback(smc))
		return SMC_DIAG_MODE_FALLBACK_TCP;
	return SMC_DIAG_MODE_SMCR;
}

/* What shutdown() ended: ours for SMC, the clcsock's when it carries data. */
static u8 smc_diag_shutdown(const struct smc_sock *smc)
{
	const struct sock *sk = smc_use_fallback(smc) ? smc->clcsock->sk :
							&smc->sk;

	return READ_ONCE(sk->sk_shutdown) & SHUTDOWN_MASK;
}

static void smc_diag_fill_id(const struct smc_sock *smc,
			     struct inet_diag_sockid *id)
{
	const struct sock *clcsk = smc->clcsock->sk;

	/*
	 * inet_sport, not sk_num: TCP unbinds (and so zeroes sk_num) when
	 * it reaches TCP_CLOSE, and a closed SMC connection's clcsock may be
	 * there while the connection still waits for its peer.
	 */
	id->idiag_sport = inet_sk(clcsk)->inet_sport;
	id->idiag_dport = clcsk->sk_dport;
	id->idiag_if = clcsk->sk_bound_dev_if;
	sock_diag_save_cookie((struct sock *)&smc->sk, id->idiag_cookie);
	if (smc_addr_family(&smc->sk) == AF_INET) {
		id->idiag_src[0] = clcsk->sk_rcv_saddr;
		id->idiag_dst[0] = clcsk->sk_daddr;
#if IS_ENABLED(CONFIG_IPV6)
	} else {
		memcpy(id->idiag_src, &clcsk->sk_v6_rcv_saddr,
		       sizeof(clcsk->sk_v6_rcv_saddr));
		memcpy(id->idiag_dst, &clcsk->sk_v6_daddr,
		       sizeof(clcsk->sk_v6_daddr));
#endif
	}
}

static void smc_diag_cursor(u64 bytes, u32 size, struct smc_diag_cursor *c)
{
	c->reserved = 0;
	c->wrap = size ? (u16)(bytes / size) : 0;
	c->count = size ? (u32)(bytes % size) : 0;
}

/* The CDC connection state flags byte, as Linux's bitfield reads on x86. */
static u8 smc_diag_state_flags(bool done_writing, bool closed, bool abort)
{
	return done_writing << 7 | closed << 6 | abort << 5;
}

/*
 * SMC_DIAG_CONNINFO of an SMC-D connection. Its token is the connection's
 * id (smcd_conn.diag_token, a counter as Linux's alert token), never a part
 * of the DMB token, which is for CAP_NET_ADMIN's eyes only.
 * The send buffer's cursors, as Linux's: prepared is what the application
 * wrote, sent what was handed to the transport for the peer's ring,
 * finished what of that completed. Both transports complete a write
 * before it counts as sent (SMC-D copies, SMC-R waits for the RDMA
 * WRITE's completion), so finished equals sent. Only the connection
 * state flags are tracked; the producer flags read 0.
 */
static void smc_diag_conninfo_locked(struct smc_conn *conn,
				     struct smc_diag_conninfo *ci, u32 token)
{
	memset(ci, 0, sizeof(*ci));
	ci->token = token;
	ci->sndbuf_size = conn->sndbuf_size;
	ci->rmbe_size = conn->rmb_size;
	ci->peer_rmbe_size = conn->peer_size;
	/* In the rings in use, as the CDCs count them (rings that grow). */
	smc_diag_cursor(conn->rx_prod - conn->rx_base, conn->rmb_size, &ci->rx_prod);
	smc_diag_cursor(conn->rx_cons - conn->rx_base, conn->rmb_size, &ci->rx_cons);
	smc_diag_cursor(conn->tx_prod - conn->tx_base, conn->peer_size, &ci->tx_prod);
	smc_diag_cursor(conn->tx_cons - conn->tx_base, conn->peer_size, &ci->tx_cons);
	ci->rx_conn_state_flags = smc_diag_state_flags(conn->peer_done_writing,
						       conn->peer_closed,
						       conn->peer_abort);
	ci->tx_conn_state_flags = smc_diag_state_flags(conn->done_writing,
						       conn->closed,
						       conn->aborted);
	smc_diag_cursor(conn->tx_wrote, conn->sndbuf_size, &ci->tx_prep);
	smc_diag_cursor(conn->tx_prod, conn->sndbuf_size, &ci->tx_sent);
	smc_diag_cursor(conn->tx_prod, conn->sndbuf_size, &ci->tx_fin);
}

/*
 * SMC_DIAG_CONNINFO and SMC_DIAG_DMBINFO of an SMC-D connection; false
 * when it has no SMC-D state (not yet, or any more). conn->smcd is set
 * and cleared under conn->lock (smcd_conn.c), and holds its device: both
 * may be read here under that lock. A token names a DMB on the device:
 * zero unless tokens (the reader has CAP_NET_ADMIN in this namespace's
 * user namespace, as inet_diag gates its secrets with the same
 * netlink_net_capable() check). The rest is what anybody may see.
 */
static bool smc_diag_smcd(struct smc_sock *smc, struct smc_diag_conninfo *ci,
			  struct smcd_diag_dmbinfo *di, bool tokens)
{
	struct smc_conn *conn = &smc->conn;
	struct smcd_conn *sc;

	memset(di, 0, sizeof(*di));
	spin_lock_bh(&conn->lock);
	sc = conn->smcd;
	if (!sc) {
		spin_unlock_bh(&conn->lock);
		return false;
	}
	smc_diag_conninfo_locked(conn, ci, sc->diag_token);
	di->linkid = conn->lgr_id;
	di->peer_gid = sc->peer_gid.gid;
	di->my_gid = sc->ism->gid.gid;
	di->peer_gid_ext = sc->peer_gid.ext;
	di->my_gid_ext = sc->ism->gid.ext;
	if (tokens) {
		di->token = sc->rmb.token;
		di->peer_token = sc->peer_token;
	}
	spin_unlock_bh(&conn->lock);
	return true;
}

/* A GID as Linux's diag and netlink print it: eight 4-digit groups. */
static void smc_diag_gid(u8 *buf, const union ib_gid *gid)
{
	const __be16 *w = (const __be16 *)gid->raw;

	snprintf(buf, 40, "%04x:%04x:%04x:%04x:%04x:%04x:%04x:%04x",
		 be16_to_cpu(w[0]), be16_to_cpu(w[1]), be16_to_cpu(w[2]),
		 be16_to_cpu(w[3]), be16_to_cpu(w[4]), be16_to_cpu(w[5]),
		 be16_to_cpu(w[6]), be16_to_cpu(w[7]));
}

/*
 * SMC_DIAG_CONNINFO and SMC_DIAG_LGRINFO of an SMC-R connection; false
 * when it has no SMC-R state (not yet, or any more). Its token is our
 * alert token, which the peer's CDCs carry, as Linux's. conn->smcr is
 * set and cleared under conn->lock (smcr_conn.c), and while it is set
 * the connection is in its group, which keeps the group, its link and
 * the link's device: all of them may be read here under that lock.
 */
static bool smc_diag_smcr(struct smc_sock *smc, struct smc_diag_conninfo *ci,
			  struct smc_diag_lgrinfo *li)
{
	struct smc_conn *conn = &smc->conn;
	const struct smcr_link *l;
	struct smcr_conn *sc;

	memset(li, 0, sizeof(*li));
	spin_lock_bh(&conn->lock);
	sc = conn->smcr;
	if (!sc) {
		spin_unlock_bh(&conn->lock);
		return false;
	}
	smc_diag_conninfo_locked(conn, ci, sc->token);
	l = sc->link;
	li->role = sc->lgr->key.role;
	li->lnk[0].link_id = l->link_num;
	li->lnk[0].ibport = l->port;
	strscpy(li->lnk[0].ibname, l->dev->name,
		sizeof(li->lnk[0].ibname));
	smc_diag_gid(li->lnk[0].gid, &l->gid.gid);
	smc_diag_gid(li->lnk[0].peer_gid, &l->peer.gid);
	spin_unlock_bh(&conn->lock);
	return true;
}

static int smc_diag_fill(struct sk_buff *skb, struct smc_sock *smc,
			 struct netlink_callback *cb,
			 const struct smc_diag_req *req)
{
	struct user_namespace *user_ns = sk_user_ns(NETLINK_CB(cb->skb).sk);
	struct smc_diag_fallback fallback;
	struct sock *sk = &smc->sk;
	struct smc_diag_msg *r;
	struct nlmsghdr *nlh;

	nlh = nlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			cb->nlh->nlmsg_type, sizeof(*r), NLM_F_MULTI);
	if (!nlh)
		return -EMSGSIZE;
	nl_dump_check_consistent(cb, nlh);
	r = nlmsg_data(nlh);
	memset(r, 0, sizeof(*r));
	r->diag_family = PF_SMC;
	r->diag_state = READ_ONCE(sk->sk_state);
	r->diag_mode = smc_diag_mode(smc);
	r->diag_shutdown = smc_diag_shutdown(smc);
	smc_diag_fill_id(smc, &r->id);
	r->diag_uid = from_kuid_munged(user_ns, sock_i_uid(sk));
	r->diag_inode = sock_i_ino(sk);

	if ((req->diag_ext & (1 << (SMC_DIAG_SHUTDOWN - 1))) &&
	    nla_put_u8(skb, SMC_DIAG_SHUTDOWN, r->diag_shutdown))
		goto cancel;
	/*
	 * As Linux: CONNINFO for a connection that has its buffers; LGRINFO
	 * describes RDMA links and is sent for SMC-R only.
	 */
	if (r->diag_mode == SMC_DIAG_MODE_SMCR &&
	    (req->diag_ext & (1 << (SMC_DIAG_CONNINFO - 1) |
			      1 << (SMC_DIAG_LGRINFO - 1)))) {
		struct smc_diag_conninfo ci;
		struct smc_diag_lgrinfo li;

		if (smc_diag_smcr(smc, &ci, &li) &&
		    (((req->diag_ext & (1 << (SMC_DIAG_CONNINFO - 1))) &&
		      nla_put(skb, SMC_DIAG_CONNINFO, sizeof(ci), &ci)) ||
		     ((req->diag_ext & (1 << (SMC_DIAG_LGRINFO - 1))) &&
		      nla_put(skb, SMC_DIAG_LGRINFO, sizeof(li), &li))))
			goto cancel;
	}
	if (r->diag_mode == SMC_DIAG_MODE_SMCD &&
	    (req->diag_ext & ((1 << (SMC_DIAG_CONNINFO - 1)) |
			      (1 << (SMC_DIAG_DMBINFO - 1))))) {
		bool tokens = netlink_net_capable(cb->skb, CAP_NET_ADMIN);
		struct smcd_diag_dmbinfo di;
		struct smc_diag_conninfo ci;

		if (smc_diag_smcd(smc, &ci, &di, tokens) &&
		    (((req->diag_ext & (1 << (SMC_DIAG_CONNINFO - 1))) &&
		      nla_put(skb, SMC_DIAG_CONNINFO, sizeof(ci), &ci)) ||
		     ((req->diag_ext & (1 << (SMC_DIAG_DMBINFO - 1))) &&
		      nla_put(skb, SMC_DIAG_DMBINFO, sizeof(di), &di))))
			goto cancel;
	}
	/* Always, as Linux sends it: zeros until the socket has fallen back. */
	fallback.reason = smc->fallback_rsn;
	fallback.peer_diagnosis = smc->peer_diagnosis;
	if (nla_put(skb, SMC_DIAG_FALLBACK, sizeof(fallback), &fallback))
		goto cancel;
	nlmsg_end(skb, nlh);
	return 0;

cancel:
	nlmsg_cancel(skb, nlh);
	return -EMSGSIZE;
}

static int smc_diag_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	const struct smc_diag_req *req = nlmsg_data(cb->nlh);
	struct net *net = sock_net(skb->sk);
	long skip = cb->args[0], pos = 0;
	struct sock *sk;

	read_lock(&smc_sock_list.lock);
	cb->seq = smc_sock_list.gen;
	sk_for_each(sk, &smc_sock_list.head) {
		/* Not yet given its clcsock (it is listed just before). */
		if (!net_eq(sock_net(sk), net) || !READ_ONCE(smc_sk(sk)->clcsock))
			continue;
		if (pos++ < skip)
			continue;
		if (smc_diag_fill(skb, smc_sk(sk), cb, req)) {
			pos--;
			break;
		}
	}
	read_unlock(&smc_sock_list.lock);
	cb->args[0] = pos;
	return skb->len;
}

static int smc_diag_handler_dump(struct sk_buff *skb, struct nlmsghdr *h)
{
	struct net *net = sock_net(skb->sk);
	struct netlink_dump_control c = {
		.dump = smc_diag_dump,
		.min_dump_alloc = SKB_WITH_OVERHEAD(32768),
	};

	if (h->nlmsg_type != SOCK_DIAG_BY_FAMILY)
		return -EINVAL;
	/* Like Linux's smc_diag: dumps only, no single-socket lookups. */
	if (!(h->nlmsg_flags & NLM_F_DUMP))
		return 0;
	if (nlmsg_len(h) < sizeof(struct smc_diag_req))
		return -EINVAL;
	return netlink_dump_start(net->diag_nlsk, skb, h, &c);
}

static const struct sock_diag_handler smc_diag_handler = {
	.family = AF_SMC,
	.dump = smc_diag_handler_dump,
};

int smc_diag_init(void)
{
	int rc = sock_diag_register(&smc_diag_handler);

	if (rc == -EBUSY)
		pr_err("sock_diag for AF_SMC is taken, most likely by the kernel's smc_diag module\n");
	return rc;
}

void smc_diag_exit(void)
{
	sock_diag_unregister(&smc_diag_handler);
}
