// SPDX-License-Identifier: GPL-2.0
/*
 * af_smc: SMC-D connections: the DMBs of a connection and its CDC
 * messages.
 *
 * Our DMB holds a CDC header (SMC_CDC_D_LEN bytes, written by the peer)
 * and then our receive ring. The peer's DMB is attached, so the sender
 * writes user data straight into the peer's ring (one copy per byte on
 * each side, see Documentation/smc-d.md) and then writes its CDC header
 * into the peer's DMB with a signal. The signal runs smc_cdc_rx() of the
 * receiving socket, in the sender's context, under the DMB's lock.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/if_vlan.h>
#include <linux/log2.h>
#include <net/sock.h>

#include "smc.h"
#include "smc_conn.h"
#include "smc_lgr.h"
#include "smc_netns.h"

void smc_conn_init(struct smc_conn *conn)
{
	spin_lock_init(&conn->lock);
	mutex_init(&conn->cdc_mutex);
	INIT_LIST_HEAD(&conn->lgr_entry);
}

/*
 * The DMB size class for a socket (Documentation/smc-d.md, "Sizing"):
 * what the user asked for with SO_RCVBUF (the core stores twice the
 * value, TCP's share for overhead, which a DMB does not need), else the
 * namespace's net.smc.rmem; rounded up to 16 KiB << n, at most 1 MiB.
 * The 32-byte CDC header comes out of the DMB, as in Linux.
 */
static u8 smc_conn_class_for(const struct sock *sk)
{
	u32 want;
	u8 class = 0;

	if (sk->sk_userlocks & SOCK_RCVBUF_LOCK)	/* a bit-field */
		want = READ_ONCE(sk->sk_rcvbuf) / 2;
	else
		want = READ_ONCE(smc_net(sock_net(sk))->sysctl_rmem);
	while (class < SMC_DMB_MAX_CLASS && (SMC_DMB_MIN_SIZE << class) < want)
		class++;
	return class;
}

/* The VLAN the connection's TCP route leaves on; 0 for none. */
static u16 smc_conn_vlan(struct smc_sock *smc)
{
	struct dst_entry *dst;
	u16 vlan = 0;

	rcu_read_lock();
	dst = __sk_dst_get(smc->clcsock->sk);
	if (dst && dst->dev && is_vlan_dev(dst->dev))
		vlan = vlan_dev_vlan_id(dst->dev);
	rcu_read_unlock();
	return vlan;
}

u8 smc_conn_size_class(const struct smc_conn *conn)
{
	return ilog2((conn->rmb_size + SMC_CDC_D_LEN) / SMC_DMB_MIN_SIZE);
}

/*
 * Runs in the sender's context, bh off, under our DMB's lock: moves our
 * cursors, then hands the flags to the close state machine and the
 * urgent mark to smc_rx.c, and wakes whoever waits for any of it.
 */
static void smc_cdc_rx(void *owner)
{
	struct smc_sock *smc = owner;
	struct smc_conn *conn = &smc->conn;
	struct sock *sk = &smc->sk;
	struct smc_cdc_msg m;
	unsigned int ev;
	u32 got, freed;
	bool urgent;

	if (smc_cdc_decode_d(conn->rmb.cpu_addr, SMC_CDC_D_LEN, &m))
		return;		/* the header is the peer's to write; ignore junk */
	spin_lock(&conn->lock);
	got = smc_cdc_cursor_diff(conn->rmb_size, &conn->peer_prod, &m.prod);
	freed = conn->peer_size ?
		smc_cdc_cursor_diff(conn->peer_size, &conn->peer_cons, &m.cons) : 0;
	conn->peer_prod = m.prod;
	conn->peer_cons = m.cons;
	/* Never beyond what the rings can hold, whatever the peer says. */
	got = min_t(u64, got, conn->rmb_size - (conn->rx_prod - conn->rx_cons));
	freed = min_t(u64, freed, conn->tx_prod - conn->tx_cons);
	conn->rx_prod += got;
	conn->tx_cons += freed;
	urgent = smc_rx_urgent(smc, &m);
	ev = smc_close_rx(smc, &m, got);
	spin_unlock(&conn->lock);

	if (urgent) {
		/*
		 * SIGURG to the file's owner, as TCP sends it. The callback
		 * lock keeps release (sock_orphan()) and so the file away.
		 */
		read_lock(&sk->sk_callback_lock);
		sk_send_sigurg(sk);
		read_unlock(&sk->sk_callback_lock);
	}
	if (got || urgent)
		sk->sk_data_ready(sk);
	if (freed)
		sk->sk_write_space(sk);
	smc_close_notify(smc, ev);
}

int smc_conn_create(struct smc_sock *smc, struct smc_ism_dev *ism,
		    u64 peer_gid, bool server)
{
	struct smc_conn *conn = &smc->conn;
	int rc;

	rc = smc_lgr_conn_add(conn, ism, peer_gid, smc_conn_vlan(smc),
			      server ? SMC_LGR_SERVER : SMC_LGR_CLIENT,
			      smc_conn_class_for(&smc->sk), smc_cdc_rx, smc);
	if (rc)
		return rc;
	conn->rmb_size = conn->rmb.len - SMC_CDC_D_LEN;
	conn->peer_gid = peer_gid;
	conn->ism = ism;	/* the caller's reference is ours now */
	return 0;
}

int smc_conn_attach_peer(struct smc_sock *smc, u64 token, u8 size_class)
{
	struct smc_conn *conn = &smc->conn;
	struct smc_ism_dev *ism = conn->ism;
	u32 len = 0;
	void *mem;

	if (size_class > SMC_DMB_MAX_CLASS || !ism->ops->attach_dmb)
		return -EINVAL;
	mem = ism->ops->attach_dmb(ism, token, &len);
	if (!mem)
		return -ENOENT;
	conn->peer_token = token;
	conn->peer_attached = true;
	/* The device knows the real size; the peer's claim must agree. */
	if (len != SMC_DMB_MIN_SIZE << size_class || len <= SMC_CDC_D_LEN)
		return -EINVAL;		/* destroy detaches */
	conn->peer_ring = mem + SMC_CDC_D_LEN;
	conn->peer_size = len - SMC_CDC_D_LEN;
	return 0;
}

void smc_conn_destroy(struct smc_sock *smc)
{
	struct smc_conn *conn = &smc->conn;
	struct smc_ism_dev *ism = conn->ism;

	if (!ism)
		return;
	if (conn->peer_attached) {
		ism->ops->detach_dmb(ism, conn->peer_token);
		conn->peer_attached = false;
		conn->peer_ring = NULL;
	}
	/* After this no smc_cdc_rx() runs for us. */
	smc_lgr_conn_del(conn);
	conn->ism = NULL;
	smc_ism_put(ism);
}

static void smc_cdc_cursor_of(u64 bytes, u32 size, struct smc_cdc_cursor *c)
{
	c->wrap = (u16)div_u64_rem(bytes, size, &c->count);
}

int smc_cdc_send(struct smc_sock *smc)
{
	struct smc_conn *conn = &smc->conn;
	u8 buf[SMC_CDC_D_LEN];
	struct smc_cdc_msg m = {};
	int rc;

	if (!conn->ism || !conn->peer_ring)
		return -ENOTCONN;
	mutex_lock(&conn->cdc_mutex);
	spin_lock_bh(&conn->lock);
	smc_cdc_cursor_of(conn->tx_prod, conn->peer_size, &m.prod);
	smc_cdc_cursor_of(conn->rx_cons, conn->rmb_size, &m.cons);
	m.peer_done_writing = conn->done_writing;
	m.peer_conn_closed = conn->closed;
	m.peer_conn_abort = conn->aborted;
	/* One CDC carries each urgent mark; see smc_tx.c. */
	m.urg_data_present = m.urg_data_pending = conn->urg_tx;
	conn->urg_tx = false;
	spin_unlock_bh(&conn->lock);
	smc_cdc_encode_d(&m, buf, sizeof(buf));
	rc = conn->ism->ops->move_data(conn->ism, conn->peer_gid,
				       conn->peer_token, 0, buf, sizeof(buf),
				       true);
	mutex_unlock(&conn->cdc_mutex);
	/* The peer's socket is gone: like a reset on TCP. */
	if (rc == -ENOENT)
		smc_close_peer_gone(smc);
	return rc;
}
