/* SPDX-License-Identifier: GPL-2.0 */
/*
 * af_smc: an SMC-R link, one RC queue pair between two RDMA ports, its
 * registered RMB, and the LLC messages it carries (smcr_link.c).
 *
 * Life of a link:
 *   smcr_link_create()   PD, CQ, RC QP in INIT, receive buffers posted, an
 *                        RMB allocated and an MR for it allocated (its rkey
 *                        is known from here on and goes into the CLC)
 *   smcr_link_connect()  QP to RTR and RTS from the peer's QP number, PSN,
 *                        GID, MAC and MTU (what the CLC carries), then the
 *                        RMB registered (REG_MR) with remote write access
 *   smcr_llc_*()         LLC messages; CONFIRM_LINK and TEST_LINK requests
 *                        of the peer are answered by the link itself
 *   smcr_link_destroy()  an active link first sends DELETE_LINK (orderly,
 *                        all) and waits, bounded, for it to be acked; then
 *                        every verbs object is released, without waiting
 *                        for the hardware (see smcr_link_release_verbs)
 * The device may go at any time (smcr_link_dev_gone): the verbs objects
 * are released then and every call fails with -ENOLINK; the owner still
 * destroys the link.
 *
 * Every wait has a bound (Documentation/smc-r.md has the figures).
 */
#ifndef _SMCR_LINK_H
#define _SMCR_LINK_H

#include <linux/completion.h>
#include <linux/rwsem.h>
#include <linux/scatterlist.h>
#include <linux/wait.h>
#include <rdma/ib_verbs.h>

#include "smcr_ib.h"
#include "wire/smc_llc.h"

struct dentry;
struct net;

#define SMCR_SEND_SLOTS		16	/* LLC/CDC sends in flight */
#define SMCR_RECV_SLOTS		48	/* receive WRs posted */
#define SMCR_MSG_SIZE		44	/* LLC v1 and CDC messages */
#define SMCR_RX_RING		16	/* received LLC messages awaiting the work */

/* What one side tells the other about its QP (CLC Accept/Confirm). */
struct smcr_qp_info {
	u32		qpn;		/* 24 bits */
	u32		psn;		/* 24 bits */
	enum ib_mtu	mtu;
	union ib_gid	gid;
	u8		mac[ETH_ALEN];
};

/* A registered receive buffer (RMB) the peer may write into. */
struct smcr_rmb {
	void		*buf;
	size_t		size;		/* power of two, at least a page */
	struct scatterlist sg;
	bool		mapped;
	struct ib_mr	*mr;		/* rkey and iova, REG_MR'ed on connect */
	bool		registered;
};

enum smcr_link_state {
	SMCR_LINK_INIT,		/* QP in INIT, receives posted */
	SMCR_LINK_ACTIVE,	/* QP in RTS, RMB registered */
	SMCR_LINK_ERROR,	/* a work request failed: nothing more is posted */
	SMCR_LINK_GONE,		/* verbs objects released */
};

struct smcr_link {
	struct list_head	dev_list;	/* dev->links, under dev->links_mutex */
	struct smcr_dev		*dev;		/* referenced */
	u8			port;
	struct smcr_gid		gid;		/* the local GID */
	struct smcr_qp_info	local;
	struct smcr_qp_info	peer;
	u8			link_num;
	u8			link_uid[SMC_LLC_LGR_ID_LEN];

	/*
	 * verbs_sem: read while posting a work request (state checked under
	 * it), write while the verbs objects are released. Never held while
	 * waiting for a completion.
	 */
	struct rw_semaphore	verbs_sem;
	spinlock_t		lock;		/* state, slots, rx ring (bh) */
	enum smcr_link_state	state;
	wait_queue_head_t	wait;		/* slots, completions, LLC answers */

	struct ib_pd		*pd;
	struct ib_cq		*cq;		/* sends and receives, softirq */
	struct ib_qp		*qp;

	u8			*send_buf;	/* SMCR_SEND_SLOTS messages */
	u64			send_dma;
	bool			send_mapped;	/* a DMA address may be 0 */
	unsigned long		send_free;	/* bitmap of free slots */
	struct ib_cqe		send_cqe[SMCR_SEND_SLOTS];
	u8			*recv_buf;	/* SMCR_RECV_SLOTS messages */
	u64			recv_dma;
	bool			recv_mapped;
	struct ib_cqe		recv_cqe[SMCR_RECV_SLOTS];

	struct smcr_rmb		rmb;
	struct ib_cqe		reg_cqe;	/* REG_MR */
	struct ib_cqe		write_cqe;	/* RDMA WRITE */
	int			reg_status;	/* 1 pending, 0 done, <0 failed */
	int			write_status;

	/* Received LLC messages, handled in process context by rx_work. */
	u8			rx_ring[SMCR_RX_RING][SMCR_MSG_SIZE];
	unsigned int		rx_head, rx_tail;
	struct work_struct	rx_work;
	unsigned long		last_rx;	/* jiffies of the last receive */

	/* TEST_LINK when idle this long (jiffies, 0 = off). */
	unsigned long		keepalive;
	struct delayed_work	keepalive_work;

	/* The last LLC response of each kind, for the waiters. */
	struct smc_llc_msg	confirm_resp;
	bool			confirm_done;
	struct smc_llc_msg	test_resp;
	unsigned int		test_resps;

	/* Counters, shown in debugfs. */
	unsigned int		tx_msgs, rx_msgs, rx_dropped, rx_bad, rx_cdc;
	int			last_wc_status;
	bool			port_down;	/* ended by its port going down */
	bool			peer_deleted;	/* ended by the peer's DELETE_LINK */
	bool			keepalive_failed; /* ended by an unanswered TEST_LINK */
	/*
	 * The owner gave up (its socket is being closed): the LLC answer
	 * waits end with -ECONNABORTED. Under lock; never cleared.
	 */
	bool			aborted;
};

struct smcr_link *smcr_link_create(struct smcr_path *path, size_t rmb_size);
int smcr_link_connect(struct smcr_link *l, const struct smcr_qp_info *peer);
void smcr_link_destroy(struct smcr_link *l);

/* The RMB's rkey and address as the peer must use them. */
u32 smcr_link_rkey(const struct smcr_link *l);
u64 smcr_link_rmb_addr(const struct smcr_link *l);

/* Send one 44-byte message; waits (bounded) only for a free slot. */
int smcr_link_send(struct smcr_link *l, const void *msg, size_t len);
/* Send an encoded LLC message. */
int smcr_llc_send(struct smcr_link *l, const struct smc_llc_msg *m);
/*
 * CONFIRM_LINK request (the server's side of first contact) and wait,
 * bounded, for the response; checks that it names the peer's QP.
 */
int smcr_llc_confirm_link(struct smcr_link *l);
/* The client's side: wait, bounded, until the peer's request was answered. */
int smcr_llc_await_confirm(struct smcr_link *l);
/* TEST_LINK request and wait for the echo. */
int smcr_llc_test_link(struct smcr_link *l);
/*
 * Keepalive (net.smc.smcr_testlink_time for socket links): TEST_LINK
 * after interval jiffies without a message from the peer; an unanswered
 * one ends the link. 0 turns it off.
 */
void smcr_link_set_keepalive(struct smcr_link *l, unsigned long interval);
/* The same with net's net.smc.smcr_testlink_time (0 there: off). */
void smcr_link_keepalive_net(struct smcr_link *l, const struct net *net);
/*
 * End the LLC answer waits on l now (they return -ECONNABORTED), for an
 * owner that is being closed. The link itself stays as it is: destroying
 * it afterwards still ends an active link with DELETE_LINK. Any context
 * but hard irq; takes l->lock.
 */
void smcr_link_abort_waits(struct smcr_link *l);
/* RDMA WRITE len bytes of our RMB at off to the peer's RMB; bounded wait. */
int smcr_link_write(struct smcr_link *l, size_t off, size_t len, u32 rkey,
		    u64 raddr);

/*
 * Port "port" of dev is no longer ACTIVE (its netdev went down, say):
 * every link on it fails at once (state ERROR, waiters woken) instead of
 * after its QP's retries. A link does not come back with the port; its
 * owner destroys it and makes a new one.
 */
void smcr_link_port_down(struct smcr_dev *dev, u8 port);

/*
 * The device is going (smcr_ib_remove): every link on it releases its
 * verbs objects before this returns. Links stay allocated for their
 * owners, in state SMCR_LINK_GONE.
 */
void smcr_link_dev_gone(struct smcr_dev *dev);

/* debugfs files of the link layer (smcr_link_dbg.c), and their links. */
void smcr_link_debugfs(struct dentry *dir);
void smcr_link_debugfs_exit(void);

int smcr_link_init(void);
void smcr_link_exit(void);

#endif /* _SMCR_LINK_H */
