/* SPDX-License-Identifier: GPL-2.0 */
/*
 * af_smc: an SMC connection's data path state.
 *
 * One connection layer, two transports. Each side owns a receive ring the
 * peer writes into (SMC-D: a DMB on an ISM device after its CDC header;
 * SMC-R: an RMB) and writes into the peer's; how bytes and CDC messages
 * reach the peer is the transport's (struct smc_conn_ops). Cursors are
 * 64-bit byte counts that only grow; the wire carries them as (wrap,
 * count) in the ring they belong to.
 *
 *   tx_cons <= tx_prod <= tx_wrote
 *   tx_wrote - tx_prod  bytes the application wrote that wait in our send
 *                       buffer (corked, or the peer's ring was full); they
 *                       sit at sndbuf[byte number % sndbuf_size]
 *   tx_prod - tx_cons   bytes in the peer's ring it has not consumed yet;
 *                       never more than peer_size (flow control)
 *   rx_prod - rx_cons   bytes the peer wrote that we have not read yet
 *
 * Every change of a cursor the peer must know about is followed by a CDC
 * message carrying both of ours (smc_cdc_send()). The send buffer and its
 * pushes are smc_tx.c's; the CDC messages are smc_cdc.c's.
 */
#ifndef _SMC_CONN_H
#define _SMC_CONN_H

#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/workqueue.h>

struct mem_cgroup;

#include "wire/smc_cdc.h"

struct smc_sock;
struct msghdr;

struct smc_conn;
struct smcd_conn;
struct smcr_conn;

/* What a transport does for the connection layer. */
struct smc_conn_ops {
	/*
	 * Make len bytes of our send buffer at offset soff appear in the
	 * peer's ring at offset roff (neither range wraps); pos is the byte
	 * count of the first of them (tx_prod's scale). The transport may
	 * return before it has read them: they then stay unchanged until
	 * settle() lets them go, and a CDC sent after this call reaches the
	 * peer after them. Process context, may sleep; conn->tx_mutex held.
	 * 0, or -errno: the connection is broken.
	 */
	int (*write)(struct smc_conn *conn, u64 pos, u32 roff, u32 soff,
		     u32 len);
	/*
	 * Only for a transport whose write() returns early: wait until it
	 * reads none of the send buffer's bytes below byte count upto any
	 * more, so that they may be overwritten. Process context, may sleep;
	 * conn->tx_mutex held. 0, or -errno: the connection is broken.
	 */
	int (*settle)(struct smc_conn *conn, u64 upto);
	/*
	 * Send m, whose cursors and flags smc_cdc_send() filled in; the
	 * transport adds its own fields. Process context, may sleep;
	 * conn->cdc_mutex held. -ENOENT or -ENOLINK: the peer is gone.
	 */
	int (*cdc_send)(struct smc_conn *conn, const struct smc_cdc_msg *m);
	/*
	 * Only for a transport whose CDCs are still on their way when
	 * cdc_send() returns (SMC-R): whether one is; if so, the transport
	 * calls smc_tx_kick() when the last of them has arrived, and bytes
	 * held back for it meanwhile (autocorking, smc_tx.c) go then. Process
	 * context; conn->tx_mutex held.
	 */
	bool (*cdc_in_flight)(struct smc_conn *conn);
	/*
	 * Only for a transport whose rings grow ("Rings that grow" in
	 * Documentation/smc-d.md and smc-r.md). grow_rx: our ring keeps
	 * being filled by the peer and emptied by us (rx_drains,
	 * SMC_GROW_AFTER): offer the peer a bigger one (set rx_offer_*, send
	 * a CDC); and let go of a ring the peer left (rx_ring_left). Process
	 * context, socket lock held.
	 * switch_tx: the peer offered a ring (token, key, class: SMC-D, a
	 * DMB's token; SMC-R, an RMB's address and rkey) and nothing waits
	 * in its old one: make ours point there and say where the new ring
	 * is (*ring: for nocopy, or NULL; *size: its bytes); the caller
	 * moves the cursors. Process context; conn->tx_mutex and
	 * conn->cdc_mutex held (no CDC between the switch and the cursors'
	 * move). 0; -EAGAIN: not this offer (nothing changed; the connection
	 * stays in its ring and takes the offer, repeated, for no new one);
	 * or -errno: the connection is broken.
	 */
	void (*grow_rx)(struct smc_conn *conn);
	int (*switch_tx)(struct smc_conn *conn, u64 token, u32 key, u8 class,
			 u8 **ring, u32 *size);
	/*
	 * Undo what the transport set up for the connection. Once, but for
	 * SMC-D's, which a device going away calls early under the socket
	 * lock (smcd_conn_detach()); its second call finds nothing to undo.
	 */
	void (*destroy)(struct smc_conn *conn);
};

struct smc_conn {
	/* The transport; NULL until it set the connection up. */
	const struct smc_conn_ops *ops;
	/*
	 * The transport's state of the connection, while ops is that
	 * transport's: SMC-D's (smcd_conn.h) or SMC-R's (smcr_lgr.h).
	 * Each is set and cleared under lock (below), so smc_diag may read
	 * it there.
	 */
	struct smcd_conn	*smcd;
	struct smcr_conn	*smcr;
	u32			lgr_id;		/* our link group's id, for diag */
	u8			*rx_ring;	/* our receive ring */
	u32			rmb_size;	/* bytes of our ring */
	/*
	 * The peer's ring, when we can write into it directly (SMC-D
	 * "nocopy"); NULL otherwise, and bytes go by ops->write.
	 */
	u8			*peer_ring;
	u32			peer_size;	/* bytes of the peer's ring */

	/*
	 * Our send buffer (smc_tx.c). A transport may set it up; otherwise
	 * smc_tx.c allocates it the first time it is needed, since with
	 * nocopy most connections never need one. sndbuf_size is known
	 * from the start (SO_SNDBUF or net.smc.wmem).
	 */
	u8			*sndbuf;
	u32			sndbuf_size;
	bool			sndbuf_ours;	/* smc_tx.c allocated it */
	/*
	 * The bytes this connection adds to its namespace's buffer usage
	 * (smc_stats.c), and under which technology; 0 when not counted.
	 */
	u32			use_rx, use_tx;
	u8			use_tech;
	/*
	 * The memcg the buffers are charged to (a reference, from the
	 * sock's creation to its end) and the bytes of net.smc.mem_limit
	 * the connection holds (smc_mem.h).
	 */
	struct mem_cgroup	*memcg;
	u64			mem_reserved;
	/*
	 * Writers into the peer's ring (sendmsg's nocopy copy, pushes of
	 * the send buffer) and the teardown of the rings and the send
	 * buffer: one at a time. Taken after the socket lock, before
	 * cdc_mutex.
	 */
	struct mutex		tx_mutex;
	/* Pushes the send buffer when the peer made room, or a cork ends. */
	struct delayed_work	tx_work;
	bool			tx_dead;	/* torn down: no more pushes */
	bool			tx_waiting;	/* a sendmsg waits for room */
	/*
	 * No memory for the send buffer when it was first needed (the
	 * memcg was full): the connection goes on without one, sendmsg
	 * writing straight into the peer's ring (SMC-D nocopy) as the
	 * peer makes room. Set once, never cleared; written with both the
	 * socket lock and lock held.
	 */
	bool			tx_nobuf;

	spinlock_t		lock;		/* bh: cursors, flags below */
	u64			tx_wrote, tx_prod, tx_cons, rx_prod, rx_cons;
	/*
	 * Rings that grow: the byte counts at which the rings in use
	 * began, so byte n sits at (n - base) % size; 0 until a ring moved.
	 * A ring moves only when it is empty (tx_prod == tx_cons), so no
	 * byte is ever in two rings. rx_gen numbers our rings (the CDC's
	 * cons_gen says which one its cons cursor counts in), peer_gen the
	 * peer's, so a cursor of a ring already left is not misread.
	 */
	u64			rx_base, tx_base;
	u8			rx_gen, peer_gen;
	/*
	 * Our offer of a bigger ring, in every CDC until the peer moved
	 * (SMC-R's transport puts its own link's key and address in).
	 */
	u64			rx_offer_token;
	u32			rx_offer_key;
	u8			rx_offer_class;
	bool			rx_grow_off;	/* no more offers */
	bool			rx_ring_left;	/* the peer left a ring of ours */
	bool			rx_was_full;	/* the writer filled our ring */
	u32			rx_drains;	/* see SMC_GROW_AFTER */
	u64			rx_grow_mark;	/* rx_cons at the last count */
	unsigned long		rx_grow_since;	/* jiffies then */
	/* The peer's offer, taken once its old ring is empty. */
	u64			peer_offer_token;
	u32			peer_offer_key;
	u8			peer_offer_class;
	u64			peer_ring_token;	/* the offer we took last */
	/* The last cursors the peer sent, to measure its next ones against. */
	struct smc_cdc_cursor	peer_prod, peer_cons;
	/* rx_cons as our last CDC carried it (smc_rx.c: when to send one). */
	u64			rx_cons_sent;
	/*
	 * A read tells the peer of the room it made once this many bytes
	 * were read since our last CDC, or at once when the peer waits for
	 * room; the transport sets it. Below the ring's size, so a writer
	 * that found the ring full always hears. SMC-R: a tenth of the ring,
	 * at most 2 KiB, since a CDC per read doubled the RoCE messages of a
	 * request/response exchange, whose answer carries the cursor anyway.
	 * SMC-D: 0, every read: its CDC is a copy and a signal, and per read
	 * measured faster (Documentation/decisions.md).
	 */
	u32			rx_update_limit;
	/* The peer's last CDC: it waits for room in our ring, or asks. */
	bool			peer_blocked;
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
	/* Our last CDC held done_writing/closed back for buffered bytes. */
	bool			fin_held;
	bool			aborted;	/* we told the peer we aborted */
	bool			released;	/* the application closed us */
	bool			orphan;		/* released, lives on in close_work */
	bool			rx_after_close;	/* data came after we closed */
	unsigned long		orphan_until;	/* jiffies: give up waiting then */
	struct delayed_work	close_work;	/* an orphan's waits and its end */
	/*
	 * We found the peer gone (peer_gone) while it may still be there
	 * and waiting: rst_work resets the TCP connection under us, which
	 * the peer takes as our abort (smc_close.c). rst_off: the clcsock
	 * is about to go, queue no more; both under lock.
	 */
	struct work_struct	rst_work;
	bool			rst_off;

	/*
	 * Urgent data (smc_rx.c). urg_tx: the next CDC marks our last byte
	 * sent as urgent; urg_tx_end, when not 0, the byte count after an
	 * urgent byte still in the send buffer. urg_state says whether a mark is pending in our
	 * ring, at byte number urg_pos (a count, like rx_cons), holding
	 * urg_byte.
	 */
	bool			urg_tx;
	u64			urg_tx_end;	/* urg_tx once tx_prod is here */
	u8			urg_state;	/* enum smc_urg_state */
	u8			urg_byte;
	u64			urg_pos;

	struct mutex		cdc_mutex;	/* one CDC write at a time */
};

/*
 * Buffer sizes: 16 KiB << n, the class n as the CLC's 4-bit field names
 * DMB and RMB sizes; send buffers use the same classes. The ceiling is
 * the transport's:
 *  - SMC-D: class 6, 1 MiB, the largest DMB an ISM device registers (as
 *    in Linux); a DMB is one contiguous area of the device's.
 *  - SMC-R: class 15, 512 MiB, all the 4-bit field can say (Linux 6.11);
 *    past 1 MiB the buffer is virtually contiguous, registered page by
 *    page (smcr_buf.c).
 */
#define SMC_BUF_MIN_SIZE	(16 * 1024)
#define SMCD_DMB_MAX_CLASS	6
#define SMCR_BUF_MAX_CLASS	15

/* The smallest class that holds want bytes, at most max_class. */
static inline u8 smc_buf_class(u32 want, u8 max_class)
{
	u8 class = 0;

	while (class < max_class && (SMC_BUF_MIN_SIZE << class) < want)
		class++;
	return class;
}

/*
 * When a ring grows (smc_conn_ops->grow_rx): after SMC_GROW_AFTER times
 * that the reader read a ring's worth within SMC_GROW_WITHIN while the
 * writer filled the ring (rx_drains, smc_rx.c). The writer had to stop
 * at the ring's end and the reader keeps up, so the ring, not the reader,
 * holds the stream back; four, so that a single burst does not. (The
 * writer's write_blocked flag does not say it: over SMC-D a writer that
 * finds the ring full sends no CDC, and needs none, since every read
 * sends one.)
 */
#define SMC_GROW_AFTER		4
#define SMC_GROW_WITHIN		(HZ / 10)

/* The largest class not above want bytes (at least 0), at most max_class. */
static inline u8 smc_buf_class_floor(u32 want, u8 max_class)
{
	u8 class = 0;

	while (class < max_class && (SMC_BUF_MIN_SIZE << (class + 1)) <= want)
		class++;
	return class;
}

/*
 * Rings grow two classes at a time (64 KiB, 256 KiB, 1 MiB), to at most
 * class 6 on either transport: 1 MiB, SMC-D's largest DMB, and for SMC-R
 * past the ring at which make bench's SMC-R stream stopped waiting for
 * its reader (512 KiB, Documentation/smc-r.md).
 */
#define SMC_GROW_STEP		2
#define SMC_GROW_MAX_CLASS	6

/* smc_conn.c */
void smc_conn_init(struct smc_conn *conn);
/*
 * Everything the transport set up (its ops->destroy) and the send buffer,
 * undone; safe to call twice.
 */
void smc_conn_destroy(struct smc_sock *smc);

/* smc_cdc.c: CDC messages, whatever the transport */
/* Send a CDC message with our cursors and flags; 0 or -errno. */
int smc_cdc_send(struct smc_sock *smc);
/*
 * A CDC message from the peer, decoded by the transport: moves our
 * cursors, hands the flags to the close state machine and the urgent mark
 * to smc_rx.c, and wakes whoever waits. Any context with bh off.
 */
void smc_cdc_rx_msg(struct smc_sock *smc, const struct smc_cdc_msg *m);

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
void smc_tx_init(struct smc_conn *conn);
/*
 * The send buffer's size for the socket: SO_SNDBUF or net.smc.wmem, in
 * the classes up to max_class (the transport's, above).
 */
u32 smc_tx_sndbuf_size_for(const struct sock *sk, u8 max_class);
int smc_tx_sendmsg(struct smc_sock *smc, struct msghdr *msg, size_t len);
/* Bytes waiting in the send buffer (SIOCOUTQ). Conn lock held. */
static inline u32 smc_tx_queued(const struct smc_conn *conn)
{
	return (u32)(conn->tx_wrote - conn->tx_prod);
}
/*
 * Room in the peer's ring. None while it offered a new one and the old
 * one is not empty yet: the writer then waits until the reader emptied
 * it, and moves (smc_tx_move_ring()). Conn lock held.
 */
static inline u32 smc_tx_ring_space(const struct smc_conn *conn)
{
	if (conn->peer_offer_token && conn->tx_prod != conn->tx_cons)
		return 0;
	return conn->peer_size - (u32)(conn->tx_prod - conn->tx_cons);
}
/* Whether a write can take bytes now (EPOLLOUT). Conn lock held. */
bool smc_tx_has_room(const struct smc_conn *conn);
/* Push what the send buffer holds, as far as the peer has room. */
void smc_tx_push(struct smc_sock *smc);
/* The peer made room and bytes wait: push from a worker. Any context. */
void smc_tx_kick(struct smc_sock *smc);
/* Whether TCP_CORK is set on the socket. */
bool smc_tx_cork_set(const struct smc_sock *smc);
/* A cork ended (TCP_CORK 0, TCP_NODELAY 1): push what waits, now. */
void smc_tx_uncork(struct smc_sock *smc);
/* Whether the connection is up: its transport set, not yet destroyed. */
bool smc_tx_up(struct smc_sock *smc);
/* Teardown: no more pushes; frees a send buffer smc_tx.c allocated. */
void smc_tx_destroy(struct smc_sock *smc);

/* smc_rx.c */
/*
 * The receive ring's size for the socket: SO_RCVBUF or net.smc.rmem, in
 * the classes up to max_class (the transport's, above).
 */
u32 smc_rx_rmb_size_for(const struct sock *sk, u8 max_class);
/*
 * Rings that grow: the steps both transports' grow_rx take, tx_mutex
 * held. smc_rx_grow_due(): whether an offer is due (SMC_GROW_AFTER), the
 * counts started afresh. smc_rx_ring_gone(): the ring of old_len bytes
 * the peer left is let go, the ring in use has len. smc_rx_grow_to():
 * the class a ring of class now grows to (TCP's autotuning bounds,
 * max_class, SMC_GROW_STEP), its bytes reserved
 * against net.smc.mem_limit; 0 when it does not grow, and then the
 * connection makes no more offers. smc_rx_grow_failed(): the ring of
 * that class could not be made: its bytes back, no more offers.
 * smc_rx_grow_offer(): every CDC from now names the ring (token, key,
 * class; see struct smc_cdc_msg) until the peer moved there.
 */
bool smc_rx_grow_due(struct smc_conn *conn);	/* conn->lock held */
void smc_rx_ring_gone(struct smc_sock *smc, u32 old_len, u32 len);
u8 smc_rx_grow_to(struct smc_sock *smc, u8 now, u8 max_class);
void smc_rx_grow_failed(struct smc_sock *smc, u8 class);
void smc_rx_grow_offer(struct smc_sock *smc, u64 token, u32 key, u8 class);
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
void smc_close_peer_reset(struct smc_sock *smc);
/*
 * Before the clcsock is released or orphaned: no RST of
 * smc_close_peer_gone() is queued after this, and one queued ran.
 */
void smc_close_rst_stop(struct smc_sock *smc);
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
