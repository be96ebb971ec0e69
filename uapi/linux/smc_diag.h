/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * smc-linux: sock_diag interface of AF_SMC (NETLINK_SOCK_DIAG, family
 * AF_SMC).  A dump request is struct smc_diag_req; each socket answers
 * with struct smc_diag_msg followed by the rtattrs the request asked for
 * in diag_ext (bit (ext - 1) selects SMC_DIAG_<ext>).
 *
 * Layouts match Linux's include/uapi/linux/smc_diag.h: 6.1 as the base,
 * plus the members later kernels appended (tagged with their release).
 * Appended members only ever grow a reply attribute; readers must accept
 * the shorter payload an older kernel sends.
 *
 * The include guard accepts both the in-tree and the installed spelling;
 * see <linux/smc.h>.
 */
#if !defined(_SMC_DIAG_H_) && !defined(_UAPI_SMC_DIAG_H_)
#define _SMC_DIAG_H_
#define _UAPI_SMC_DIAG_H_

#include <linux/types.h>
#include <linux/inet_diag.h>		/* struct inet_diag_sockid */
#include <rdma/ib_user_verbs.h>		/* IB_DEVICE_NAME_MAX */

/* Dump request. */
struct smc_diag_req {
	__u8	diag_family;		/* AF_SMC */
	__u8	pad[2];
	__u8	diag_ext;		/* mask of wanted SMC_DIAG_* replies */
	struct inet_diag_sockid	id;
};

/*
 * Reply header, one per socket.  The addresses, ports and cookie in id are
 * those of the internal TCP socket (the clcsock).
 */
struct smc_diag_msg {
	__u8	diag_family;
	__u8	diag_state;		/* SMC socket state */
	union {
		__u8	diag_mode;	/* SMC_DIAG_MODE_* */
		__u8	diag_fallback;	/* name used before diag_mode */
	};
	__u8	diag_shutdown;		/* SEND_SHUTDOWN / RCV_SHUTDOWN bits */
	struct inet_diag_sockid	id;

	__u32		diag_uid;
	__aligned_u64	diag_inode;
};

/* Values of smc_diag_msg.diag_mode. */
enum {
	SMC_DIAG_MODE_SMCR,
	SMC_DIAG_MODE_FALLBACK_TCP,
	SMC_DIAG_MODE_SMCD,
};

/* Reply attribute types; also the bit numbers (+1) of diag_ext. */
enum {
	SMC_DIAG_NONE,
	SMC_DIAG_CONNINFO,		/* struct smc_diag_conninfo */
	SMC_DIAG_LGRINFO,		/* struct smc_diag_lgrinfo */
	SMC_DIAG_SHUTDOWN,		/* u8, same bits as diag_shutdown */
	SMC_DIAG_DMBINFO,		/* struct smcd_diag_dmbinfo */
	SMC_DIAG_FALLBACK,		/* struct smc_diag_fallback */
	__SMC_DIAG_MAX,
};

#define SMC_DIAG_MAX	(__SMC_DIAG_MAX - 1)

/* A position in a ring buffer: wrap count plus byte offset. */
struct smc_diag_cursor {
	__u16	reserved;
	__u16	wrap;
	__u32	count;
};

/* SMC_DIAG_CONNINFO: buffers and cursors of one connection. */
struct smc_diag_conninfo {
	__u32	token;			/* connection id within the link group */
	__u32	sndbuf_size;
	__u32	rmbe_size;		/* our receive buffer element */
	__u32	peer_rmbe_size;		/* the peer's receive buffer element */

	/* where the peer writes into our RMBE, and how far we consumed */
	struct smc_diag_cursor	rx_prod;
	struct smc_diag_cursor	rx_cons;
	/* where we write into the peer's RMBE, and how far it consumed */
	struct smc_diag_cursor	tx_prod;
	struct smc_diag_cursor	tx_cons;

	/* flag bytes of the last CDC message received and sent */
	__u8	rx_prod_flags;
	__u8	rx_conn_state_flags;
	__u8	tx_prod_flags;
	__u8	tx_conn_state_flags;

	/* progress inside our send buffer */
	struct smc_diag_cursor	tx_prep;	/* filled by the application */
	struct smc_diag_cursor	tx_sent;	/* handed to the device */
	struct smc_diag_cursor	tx_fin;		/* completed */
};

/* One SMC-R link, as part of SMC_DIAG_LGRINFO. */
struct smc_diag_linkinfo {
	__u8	link_id;
	__u8	ibname[IB_DEVICE_NAME_MAX];	/* RDMA device */
	__u8	ibport;
	__u8	gid[40];		/* local GID, text form */
	__u8	peer_gid[40];		/* peer GID, text form */
};

/* SMC_DIAG_LGRINFO (SMC-R only). */
struct smc_diag_lgrinfo {
	struct smc_diag_linkinfo	lnk[1];
	__u8				role;	/* client or server */
};

/* SMC_DIAG_FALLBACK: why the connection runs over TCP. */
struct smc_diag_fallback {
	__u32	reason;			/* local decline code */
	__u32	peer_diagnosis;		/* decline code from the peer */
};

/* SMC_DIAG_DMBINFO (SMC-D only). */
struct smcd_diag_dmbinfo {
	__u32		linkid;
	__aligned_u64	peer_gid;
	__aligned_u64	my_gid;
	__aligned_u64	token;		/* our DMB */
	__aligned_u64	peer_token;	/* the peer's DMB element */
	/* second halves of 128-bit (extended) GIDs; since 6.8 */
	__aligned_u64	peer_gid_ext;
	__aligned_u64	my_gid_ext;
};

#endif /* _SMC_DIAG_H_ || _UAPI_SMC_DIAG_H_ */
