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
	bool			peer_done_writing;
	bool			peer_closed;
	bool			peer_abort;
	bool			done_writing;	/* we shut down writing */
	bool			closed;		/* we closed */
	bool			aborted;	/* we aborted */
	bool			peer_gone;	/* the peer's DMB is gone */

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

/* smc_data.c: the socket calls of an SMC connection */
int smc_data_sendmsg(struct smc_sock *smc, struct msghdr *msg, size_t len);
int smc_data_recvmsg(struct smc_sock *smc, struct msghdr *msg, size_t len,
		     int flags);
__poll_t smc_data_poll(struct smc_sock *smc);
int smc_data_shutdown(struct smc_sock *smc, int how);
int smc_data_ioctl(struct smc_sock *smc, unsigned int cmd, unsigned long arg);
void smc_data_release(struct smc_sock *smc);

#endif
