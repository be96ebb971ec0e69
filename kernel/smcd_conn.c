// SPDX-License-Identifier: GPL-2.0
/*
 * af_smc: SMC-D, the ISM transport of a connection: its DMBs and how its
 * bytes and CDC messages reach the peer (struct smc_conn_ops).
 *
 * Our DMB holds a CDC header (SMC_CDC_D_LEN bytes, written by the peer)
 * and then our receive ring. When the device lets us attach the peer's
 * DMB, the sender writes user data straight into the peer's ring (one
 * copy per byte on each side, see Documentation/smc-d.md) unless bytes
 * wait in its send buffer; otherwise the bytes move from the send buffer.
 * Then the sender writes its CDC header into the peer's DMB with a
 * signal, which runs smcd_cdc_rx() of the receiving socket, in the
 * sender's context, under the DMB's lock.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/log2.h>
#include <net/sock.h>

#include "smc.h"
#include "smc_conn.h"
#include "smcd_lgr.h"
#include "smc_mem.h"

void smc_conn_init(struct smc_conn *conn)
{
	spin_lock_init(&conn->lock);
	mutex_init(&conn->cdc_mutex);
	INIT_LIST_HEAD(&conn->lgr_entry);
	smc_tx_init(conn);
}

u8 smcd_conn_size_class(const struct smc_conn *conn)
{
	return ilog2((conn->rmb_size + SMC_CDC_D_LEN) / SMC_DMB_MIN_SIZE);
}

/*
 * Runs in the sender's context, bh off, under our DMB's lock: the peer
 * wrote its CDC header into our DMB and signalled.
 */
static void smcd_cdc_rx(void *owner)
{
	struct smc_sock *smc = owner;
	struct smc_cdc_msg m;

	if (smc_cdc_decode_d(smc->conn.rmb.cpu_addr, SMC_CDC_D_LEN, &m))
		return;		/* the header is the peer's to write; ignore junk */
	smc_cdc_rx_msg(smc, &m);
}

/*
 * Bytes of our send buffer into the peer's ring, behind its CDC header: a
 * copy or an ISM move, done when it returns, so SMC-D has no settle().
 */
static int smcd_write(struct smc_conn *conn, u64 pos, u32 roff, u32 soff,
			  u32 len)
{
	if (conn->peer_ring) {
		memcpy(conn->peer_ring + roff, conn->sndbuf + soff, len);
		return 0;
	}
	return conn->ism->ops->move_data(conn->ism, conn->peer_gid,
					 conn->peer_token, &conn->tuple,
					 SMC_CDC_D_LEN + roff,
					 conn->sndbuf + soff, len, false);
}

/* The CDC header goes to the start of the peer's DMB, with a signal. */
static int smcd_cdc_send(struct smc_conn *conn, const struct smc_cdc_msg *m)
{
	u8 buf[SMC_CDC_D_LEN];

	smc_cdc_encode_d(m, buf, sizeof(buf));
	return conn->ism->ops->move_data(conn->ism, conn->peer_gid,
					 conn->peer_token, &conn->tuple, 0, buf,
					 sizeof(buf), true);
}

static void smcd_destroy(struct smc_conn *conn)
{
	struct smcd_ism_dev *ism = conn->ism;

	if (conn->peer_attached) {
		ism->ops->detach_dmb(ism, conn->peer_token);
		conn->peer_attached = false;
		conn->peer_ring = NULL;
	}
	/* After this no smcd_cdc_rx() runs for us. */
	smcd_lgr_conn_del(conn);
	conn->rx_ring = NULL;
	conn->ism = NULL;
	smcd_ism_put(ism);
	/* smc_tx_destroy() freed the send buffer before us. */
	smc_mem_unreserve(container_of(conn, struct smc_sock, conn));
}

static const struct smc_conn_ops smcd_ops = {
	.write		= smcd_write,
	.cdc_send	= smcd_cdc_send,
	.destroy	= smcd_destroy,
};

int smcd_conn_create(struct smc_sock *smc, struct smcd_ism_dev *ism,
		    u64 peer_gid, bool server)
{
	static atomic_t diag_tokens = ATOMIC_INIT(0);
	u8 class = smc_buf_class(smc_rx_rmb_size_for(&smc->sk));
	u32 sndbuf_size = smc_tx_sndbuf_size_for(&smc->sk);
	struct smc_conn *conn = &smc->conn;
	int rc;

	/*
	 * Both buffers count against net.smc.mem_limit from here on, the
	 * send buffer too, which nocopy may never allocate: the connection
	 * can need it at any time, and then must not be refused.
	 */
	rc = smc_mem_reserve(smc, (SMC_DMB_MIN_SIZE << class) + sndbuf_size);
	if (rc)
		return rc;
	/* The handshake runs on a connected clcsock: its ends are final. */
	smcd_dmb_tuple_of(smc->clcsock->sk, &conn->tuple);
	rc = smcd_lgr_conn_add(conn, ism, sock_net(&smc->sk)->net_cookie,
			      peer_gid, smc_clcsock_vlan(smc),
			      server ? SMC_LGR_SERVER : SMC_LGR_CLIENT,
			      class, smcd_cdc_rx, smc, &conn->tuple);
	if (rc) {
		smc_mem_unreserve(smc);
		return rc;
	}
	/*
	 * sock_diag shows this id to anyone (as Linux its alert token); it
	 * says nothing of the DMB token, which only CAP_NET_ADMIN sees.
	 */
	do {
		conn->diag_token = atomic_inc_return(&diag_tokens);
	} while (!conn->diag_token);
	conn->rx_ring = conn->rmb.cpu_addr + SMC_CDC_D_LEN;
	conn->rmb_size = conn->rmb.len - SMC_CDC_D_LEN;
	conn->sndbuf_size = sndbuf_size;
	conn->peer_gid = peer_gid;
	conn->ism = ism;	/* the caller's reference is ours now */
	conn->ops = &smcd_ops;
	return 0;
}

int smcd_conn_attach_peer(struct smc_sock *smc, u64 token, u8 size_class)
{
	struct smc_conn *conn = &smc->conn;
	struct smcd_ism_dev *ism = conn->ism;
	u32 len = 0;
	void *mem;

	if (size_class > SMC_DMB_MAX_CLASS || !ism->ops->attach_dmb)
		return -EINVAL;
	/*
	 * The token is the peer's word: the device attaches only a DMB made
	 * for the other end of our own TCP connection (-EACCES otherwise),
	 * so an Accept or Confirm naming somebody else's DMB gets nothing.
	 */
	mem = ism->ops->attach_dmb(ism, token, &conn->tuple, &len);
	if (IS_ERR(mem))
		return PTR_ERR(mem);
	conn->peer_token = token;
	conn->peer_attached = true;
	/* The device knows the real size; the peer's claim must agree. */
	if (len != SMC_DMB_MIN_SIZE << size_class || len <= SMC_CDC_D_LEN)
		return -EINVAL;		/* destroy detaches */
	conn->peer_ring = mem + SMC_CDC_D_LEN;
	conn->peer_size = len - SMC_CDC_D_LEN;
	return 0;
}

/* Generic: the send buffer first, so no push runs into what goes next. */
void smc_conn_destroy(struct smc_sock *smc)
{
	struct smc_conn *conn = &smc->conn;

	if (!conn->ops)
		return;
	smc_tx_destroy(smc);
	conn->ops->destroy(conn);
	conn->ops = NULL;
}
