/* SPDX-License-Identifier: GPL-2.0 */
/*
 * af_smc: an SMC connection's data path state.
 *
 * Each side owns a receive buffer the peer writes into (for SMC-D a DMB
 * on an ISM device: a CDC header, then the data ring) and writes into the
 * peer's. Cursors are kept as 64-bit byte counts that only grow; the wire
 * carries them as (wrap, count) in the ring they belong to.
 *
 *   tx_prod - tx_cons  bytes we wrote that the peer has not consumed yet;
 *                      never more than peer_size (flow control)
 *   rx_prod - rx_cons  bytes the peer wrote that we have not read yet
 *
 * Every change of a cursor the peer must know about is followed by a CDC
 * message carrying both of ours (smc_cdc_send()).
 */
#ifndef _SMC_CONN_H
#define _SMC_CONN_H

#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/workqueue.h>

#include "smc_ism.h"
#include "wire/smc_cdc.h"

struct smc_sock;
struct msghdr;

struct smc_lgr;

struct smc_conn {
	struct smc_ism_dev	*ism;		/* SMC-D device, with a reference */
	/* Our link group (smc_lgr.h) and our entry on its list. */
	struct smc_lgr		*lgr;
	struct list_head	lgr_entry;
	u32			lgr_id;		/* lgr's id, kept for diag */
	bool			first_contact;	/* we made lgr for this conn */
	u64			peer_gid;
	u64			peer_token;	/* the peer's DMB */
	struct smc_dmb		rmb;		/* ours: CDC header, then ring */
	u32			rmb_size;	/* bytes of our ring */
	u8			*peer_ring;	/* the peer's ring, attached */
	u32			peer_size;	/* bytes of the peer's ring */
	bool			peer_attached;

	spinlock_t		lock;		/* bh: cursors, flags below */
	u64			tx_prod, tx_cons, rx_prod, rx_cons;
	/* The last cursors the peer sent, to measure its next ones against. */
	struct smc_cdc_cursor	peer_prod, peer_cons;
	/*
	 * The close state machine (smc_close.c): what the peer told us and
	 * what we told it. The socket's state (sk_state) follows from these
	 * and is written under this lock too.
	 */
	bool			peer_done_writing;
	bool			peer_closed;
	bool			peer_abort;
	bool			peer_gone;	/* the peer's DMB is gone */
	bool			done_writing;	/* we shut down writing */
	bool			closed;		/* we told the peer we closed */
	bool			aborted;	/* we told the peer we aborted */
	bool			released;	/* the application closed us */
	bool			orphan;		/* released, lives on in close_work */
	bool			rx_after_close;	/* data came after we closed */
	unsigned long		orphan_until;	/* jiffies: give up waiting then */
	struct delayed_work	close_work;	/* an orphan's waits and its end */

	/*
	 * Urgent data (smc_rx.c). urg_tx: the next CDC marks our last byte
	 * sent as urgent. urg_state says whether a mark is pending in our
	 * ring, at byte number urg_pos (a count, like rx_cons), holding
	 * urg_byte.
	 */
	bool			urg_tx;
	u8			urg_state;	/* enum smc_urg_state */
	u8			urg_byte;
	u64			urg_pos;

	struct mutex		cdc_mutex;	/* one CDC write at a time */
};

/* DMB sizes: 16 KiB << n, n in 0..6 (1 MiB), as the CLC's 4-bit field. */
#define SMC_DMB_MIN_SIZE	(16 * 1024)
#define SMC_DMB_MAX_CLASS	6

void smc_conn_init(struct smc_conn *conn);
/*
 * Our DMB on ism, sized for the socket, in the link group for the peer
 * (server: we accepted the connection); takes over the caller's device
 * reference on success.
 */
int smc_conn_create(struct smc_sock *smc, struct smc_ism_dev *ism,
		    u64 peer_gid, bool server);
/* Attach the peer's DMB; size_class is what the peer announced. */
int smc_conn_attach_peer(struct smc_sock *smc, u64 token, u8 size_class);
/* Everything smc_conn_create/attach did, undone; safe to call twice. */
void smc_conn_destroy(struct smc_sock *smc);
u8 smc_conn_size_class(const struct smc_conn *conn);

/* Send a CDC message with our cursors and flags; 0 or -errno. */
int smc_cdc_send(struct smc_sock *smc);

/* Where the urgent mark in our ring stands (conn->urg_state). */
enum smc_urg_state {
	SMC_URG_NONE,		/* no mark, or the reader passed it */
	SMC_URG_VALID,		/* the urgent byte awaits recv(MSG_OOB) */
	SMC_URG_READ,		/* recv(MSG_OOB) took it; the mark stays */
};

/* smc_data.c: readiness and queue sizes of an SMC connection */
__poll_t smc_data_poll(struct smc_sock *smc);
int smc_data_ioctl(struct smc_sock *smc, unsigned int cmd, unsigned long arg);

/* smc_tx.c */
int smc_tx_sendmsg(struct smc_sock *smc, struct msghdr *msg, size_t len);

/* smc_rx.c */
int smc_rx_recvmsg(struct smc_sock *smc, struct msghdr *msg, size_t len,
		   int flags);
struct pipe_inode_info;
ssize_t smc_rx_splice_read(struct smc_sock *smc, struct pipe_inode_info *pipe,
			   size_t len, bool nonblock);
/* Bytes the next plain read may return (SIOCINQ). Conn lock held. */
u32 smc_rx_inq(struct smc_sock *smc);
/* A CDC marked urgent data; in smc_cdc_rx(), conn lock held. */
bool smc_rx_urgent(struct smc_sock *smc, const struct smc_cdc_msg *m);

/* smc_close.c: the close state machine */
void smc_close_init(struct smc_sock *smc);
/* The peer's connection flags, in smc_cdc_rx(); conn lock held. */
unsigned int smc_close_rx(struct smc_sock *smc, const struct smc_cdc_msg *m,
			  u32 got);
/* What smc_close_rx() asks smc_cdc_rx() to do after unlocking. */
#define SMC_CLOSE_RX_CHANGED	1	/* wake state waiters */
#define SMC_CLOSE_RX_ERROR	2	/* an error is set: report it */
#define SMC_CLOSE_RX_KICK	4	/* the orphan's work has to run */
/* Act on smc_close_rx()'s answer, with the conn lock dropped. */
void smc_close_notify(struct smc_sock *smc, unsigned int ev);
/* A CDC found the peer's DMB gone: the connection is reset. */
void smc_close_peer_gone(struct smc_sock *smc);
/* Whether the connection is over as TCP_CLOSE is. Conn lock held. */
bool smc_close_ended(const struct smc_conn *conn);
int smc_close_shutdown(struct smc_sock *smc, int how);
/*
 * close(): false when the connection is gone, true when it lives on as an
 * orphan; then smc_release() hands it to close_work with smc_close_orphan().
 */
bool smc_close_release(struct smc_sock *smc);
void smc_close_orphan(struct smc_sock *smc);
/* A child never accepted: abort it and free its connection now. */
void smc_close_abort_child(struct smc_sock *smc);

#endif
