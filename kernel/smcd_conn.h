/* SPDX-License-Identifier: GPL-2.0 */
/*
 * af_smc: SMC-D's state of a connection (smcd_conn.c), behind
 * smc->conn.smcd as SMC-R's is behind smc->conn.smcr.
 *
 * conn.smcd is set once the connection has its DMB and group
 * (smcd_conn_create()) and cleared by the transport's destroy, both under
 * conn->lock, tx_mutex and cdc_mutex held for the clearing: a push or CDC
 * send finds it or finds nothing (-ENOTCONN), and smc_diag reads it under
 * conn->lock. The handshake that made it may use it without locks until
 * the socket is handed to the application.
 */
#ifndef _SMCD_CONN_H
#define _SMCD_CONN_H

#include <linux/list.h>
#include <linux/types.h>

#include "smcd_ism.h"

struct smc_sock;
struct smcd_lgr;

struct smcd_conn {
	struct smc_sock		*smc;		/* owns us; our DMB's signal owner */
	struct smcd_ism_dev	*ism;		/* with a reference */
	/* Our link group (smcd_lgr.h) and our entry on its list. */
	struct smcd_lgr		*lgr;
	struct list_head	lgr_entry;
	bool			first_contact;	/* we made lgr for this conn */
	struct smcd_gid		peer_gid;
	u64			peer_token;	/* the peer's DMB */
	bool			peer_attached;	/* we attached it (nocopy) */
	/* Our clcsock's TCP connection, to which our DMB is bound. */
	struct smcd_dmb_tuple	tuple;
	u32			diag_token;	/* sock_diag's CONNINFO token */
	struct smcd_dmb		rmb;		/* ours: CDC header, then ring */
	/*
	 * A ring that grows (Documentation/smc-d.md): the bigger DMB we
	 * offered, until the peer's first CDC in it makes it rmb; the one it
	 * replaced, until smcd_grow_rx() lets it go in process context.
	 * Written under conn->lock; rmb_next's header is zero until then.
	 */
	struct smcd_dmb		rmb_next;
	struct smcd_dmb		rmb_old;
};

/*
 * Our DMB on ism, sized for the socket, in the link group for the peer
 * (server: we accepted the connection); takes over the caller's device
 * reference on success. Process context; the handshake owns the socket.
 */
int smcd_conn_create(struct smc_sock *smc, struct smcd_ism_dev *ism,
		     const struct smcd_gid *peer_gid, bool server);
/* Attach the peer's DMB; size_class is what the peer announced. */
int smcd_conn_attach_peer(struct smc_sock *smc, u64 token, u8 size_class);
/*
 * The device goes away under the connection, which the caller reset
 * (smcd_lgr_dev_gone()): let go of its DMBs, the peer's and the device
 * now, not when the owner closes. Socket lock held.
 */
void smcd_conn_detach(struct smc_sock *smc);
/* The size class of our DMB, as our Accept or Confirm announces it. */
u8 smcd_conn_size_class(const struct smcd_conn *sc);

#endif
