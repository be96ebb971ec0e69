/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * smc-linux: user/kernel contract of AF_SMC's generic netlink families.
 *
 * Two generic netlink families are described here:
 *   "SMC_PNETID"       the PNET table (which netdev / RDMA port belongs to
 *                      which physical network id),
 *   "SMC_GEN_NETLINK"  read-out of link groups, links, devices and counters,
 *                      plus the UEID/SEID tables and the handshake limiter.
 * The header also carries the one SOL_SMC socket option.
 *
 * Every number matches Linux's include/uapi/linux/smc.h.  The base is the
 * 6.1 header; attributes that later kernels appended are present at the
 * numbers upstream gave them and are tagged with the first release that
 * has them.  Attribute sets are only ever appended to, so a newer value is
 * simply never sent by an older kernel.
 *
 * The include guard accepts both spellings used upstream (the in-tree
 * _UAPI_ one and the installed one), so whichever copy of this header is
 * seen first wins and a second copy is skipped instead of redefining
 * every enumerator.
 */
#if !defined(_LINUX_SMC_H_) && !defined(_UAPI_LINUX_SMC_H_)
#define _LINUX_SMC_H_
#define _UAPI_LINUX_SMC_H_

/* ------------------------------------------------------------------------
 * Family "SMC_PNETID"
 * ------------------------------------------------------------------------ */

#define SMCR_GENL_FAMILY_NAME		"SMC_PNETID"
#define SMCR_GENL_FAMILY_VERSION	1

/* Commands (generic netlink cmd field). */
enum {
	SMC_PNETID_GET = 1,
	SMC_PNETID_ADD,
	SMC_PNETID_DEL,
	SMC_PNETID_FLUSH
};

/* Attributes of one PNET table entry. */
enum {
	SMC_PNETID_UNSPEC,
	SMC_PNETID_NAME,		/* string: the pnetid itself */
	SMC_PNETID_ETHNAME,		/* string: netdev name */
	SMC_PNETID_IBNAME,		/* string: RDMA device name */
	SMC_PNETID_IBPORT,		/* u8: RDMA port, 1-based */
	__SMC_PNETID_MAX,
	SMC_PNETID_MAX = __SMC_PNETID_MAX - 1
};

/* ------------------------------------------------------------------------
 * Family "SMC_GEN_NETLINK"
 * ------------------------------------------------------------------------ */

#define SMC_GENL_FAMILY_NAME		"SMC_GEN_NETLINK"
#define SMC_GENL_FAMILY_VERSION		1

/* Sizes of strings carried in attributes. */
#define SMC_PCI_ID_STR_LEN		16	/* PCI id string, with NUL */
#define SMC_MAX_HOSTNAME_LEN		32	/* local host name */
#define SMC_MAX_UEID			4	/* user EID table slots */
#define SMC_MAX_EID_LEN			32	/* one EID */

/* Commands. GET_* are dumps; the rest change tables or switches. */
enum {
	SMC_NETLINK_GET_SYS_INFO = 1,
	SMC_NETLINK_GET_LGR_SMCR,
	SMC_NETLINK_GET_LINK_SMCR,
	SMC_NETLINK_GET_LGR_SMCD,
	SMC_NETLINK_GET_DEV_SMCD,
	SMC_NETLINK_GET_DEV_SMCR,
	SMC_NETLINK_GET_STATS,
	SMC_NETLINK_GET_FBACK_STATS,
	SMC_NETLINK_DUMP_UEID,
	SMC_NETLINK_ADD_UEID,
	SMC_NETLINK_REMOVE_UEID,
	SMC_NETLINK_FLUSH_UEID,
	SMC_NETLINK_DUMP_SEID,
	SMC_NETLINK_ENABLE_SEID,
	SMC_NETLINK_DISABLE_SEID,
	SMC_NETLINK_DUMP_HS_LIMITATION,
	SMC_NETLINK_ENABLE_HS_LIMITATION,
	SMC_NETLINK_DISABLE_HS_LIMITATION,
};

/* Outermost attributes: each dump reply carries one of these nests. */
enum {
	SMC_GEN_UNSPEC,
	SMC_GEN_SYS_INFO,		/* nest: SMC_NLA_SYS_* */
	SMC_GEN_LGR_SMCR,		/* nest: SMC_NLA_LGR_R_* */
	SMC_GEN_LINK_SMCR,		/* nest: SMC_NLA_LINK_* */
	SMC_GEN_LGR_SMCD,		/* nest: SMC_NLA_LGR_D_* */
	SMC_GEN_DEV_SMCD,		/* nest: SMC_NLA_DEV_* */
	SMC_GEN_DEV_SMCR,		/* nest: SMC_NLA_DEV_* */
	SMC_GEN_STATS,			/* nest: SMC_NLA_STATS_* */
	SMC_GEN_FBACK_STATS,		/* nest: SMC_NLA_FBACK_STATS_* */
	__SMC_GEN_MAX,
	SMC_GEN_MAX = __SMC_GEN_MAX - 1
};

/* Inside SMC_GEN_SYS_INFO. */
enum {
	SMC_NLA_SYS_UNSPEC,
	SMC_NLA_SYS_VER,		/* u8: highest SMC version */
	SMC_NLA_SYS_REL,		/* u8: release of that version */
	SMC_NLA_SYS_IS_ISM_V2,		/* u8: SMC-D v2 capable */
	SMC_NLA_SYS_LOCAL_HOST,		/* string */
	SMC_NLA_SYS_SEID,		/* string: system EID */
	SMC_NLA_SYS_IS_SMCR_V2,		/* u8: SMC-R v2 capable */
	__SMC_NLA_SYS_MAX,
	SMC_NLA_SYS_MAX = __SMC_NLA_SYS_MAX - 1
};

/*
 * Inside SMC_NLA_LGR_R_V2_COMMON and SMC_NLA_LGR_D_V2_COMMON: what the v2
 * handshake negotiated.  Note that this set starts at 0, without UNSPEC.
 */
enum {
	SMC_NLA_LGR_V2_VER,		/* u8 */
	SMC_NLA_LGR_V2_REL,		/* u8 */
	SMC_NLA_LGR_V2_OS,		/* u8: peer OS type */
	SMC_NLA_LGR_V2_NEG_EID,		/* string: negotiated EID */
	SMC_NLA_LGR_V2_PEER_HOST,	/* string */
	__SMC_NLA_LGR_V2_MAX,
	SMC_NLA_LGR_V2_MAX = __SMC_NLA_LGR_V2_MAX - 1
};

/* Inside SMC_NLA_LGR_R_V2: SMC-R v2 specifics of a link group. */
enum {
	SMC_NLA_LGR_R_V2_UNSPEC,
	SMC_NLA_LGR_R_V2_DIRECT,	/* u8: peer reachable without gateway */
	SMC_NLA_LGR_R_V2_MAX_CONNS,	/* u8: since 6.6 (SMC-R v2.1) */
	SMC_NLA_LGR_R_V2_MAX_LINKS,	/* u8: since 6.6 (SMC-R v2.1) */
	__SMC_NLA_LGR_R_V2_MAX,
	SMC_NLA_LGR_R_V2_MAX = __SMC_NLA_LGR_R_V2_MAX - 1
};

/* Inside SMC_GEN_LGR_SMCR: one SMC-R link group. */
enum {
	SMC_NLA_LGR_R_UNSPEC,
	SMC_NLA_LGR_R_ID,		/* u32 */
	SMC_NLA_LGR_R_ROLE,		/* u8: client or server */
	SMC_NLA_LGR_R_TYPE,		/* u8: single/symmetric/asymmetric */
	SMC_NLA_LGR_R_PNETID,		/* string */
	SMC_NLA_LGR_R_VLAN_ID,		/* u8 */
	SMC_NLA_LGR_R_CONNS_NUM,	/* u32 */
	SMC_NLA_LGR_R_V2_COMMON,	/* nest: SMC_NLA_LGR_V2_* */
	SMC_NLA_LGR_R_V2,		/* nest: SMC_NLA_LGR_R_V2_* */
	SMC_NLA_LGR_R_NET_COOKIE,	/* u64 */
	SMC_NLA_LGR_R_PAD,		/* flag: alignment padding for u64s */
	SMC_NLA_LGR_R_BUF_TYPE,		/* u8: physically/virtually contiguous */
	SMC_NLA_LGR_R_SNDBUF_ALLOC,	/* uint, bytes: since 6.12 */
	SMC_NLA_LGR_R_RMB_ALLOC,	/* uint, bytes: since 6.12 */
	__SMC_NLA_LGR_R_MAX,
	SMC_NLA_LGR_R_MAX = __SMC_NLA_LGR_R_MAX - 1
};

/* Inside SMC_GEN_LINK_SMCR: one link of an SMC-R link group. */
enum {
	SMC_NLA_LINK_UNSPEC,
	SMC_NLA_LINK_ID,		/* u8 */
	SMC_NLA_LINK_IB_DEV,		/* string */
	SMC_NLA_LINK_IB_PORT,		/* u8 */
	SMC_NLA_LINK_GID,		/* string */
	SMC_NLA_LINK_PEER_GID,		/* string */
	SMC_NLA_LINK_CONN_CNT,		/* u32 */
	SMC_NLA_LINK_NET_DEV,		/* u32: ifindex */
	SMC_NLA_LINK_UID,		/* u32 */
	SMC_NLA_LINK_PEER_UID,		/* u32 */
	SMC_NLA_LINK_STATE,		/* u32 */
	__SMC_NLA_LINK_MAX,
	SMC_NLA_LINK_MAX = __SMC_NLA_LINK_MAX - 1
};

/* Inside SMC_GEN_LGR_SMCD: one SMC-D link group. */
enum {
	SMC_NLA_LGR_D_UNSPEC,
	SMC_NLA_LGR_D_ID,		/* u32 */
	SMC_NLA_LGR_D_GID,		/* u64 */
	SMC_NLA_LGR_D_PEER_GID,		/* u64 */
	SMC_NLA_LGR_D_VLAN_ID,		/* u8 */
	SMC_NLA_LGR_D_CONNS_NUM,	/* u32 */
	SMC_NLA_LGR_D_PNETID,		/* string */
	SMC_NLA_LGR_D_CHID,		/* u16 */
	SMC_NLA_LGR_D_PAD,		/* flag: alignment padding for u64s */
	SMC_NLA_LGR_D_V2_COMMON,	/* nest: SMC_NLA_LGR_V2_* */
	SMC_NLA_LGR_D_EXT_GID,		/* u64: since 6.8, GID bits 64..127 */
	SMC_NLA_LGR_D_PEER_EXT_GID,	/* u64: since 6.8, GID bits 64..127 */
	SMC_NLA_LGR_D_SNDBUF_ALLOC,	/* uint, bytes: since 6.12 */
	SMC_NLA_LGR_D_DMB_ALLOC,	/* uint, bytes: since 6.12 */
	__SMC_NLA_LGR_D_MAX,
	SMC_NLA_LGR_D_MAX = __SMC_NLA_LGR_D_MAX - 1
};

/* Inside SMC_NLA_DEV_PORT and SMC_NLA_DEV_PORT2: one device port. */
enum {
	SMC_NLA_DEV_PORT_UNSPEC,
	SMC_NLA_DEV_PORT_PNET_USR,	/* u8: pnetid set by user, not fw */
	SMC_NLA_DEV_PORT_PNETID,	/* string */
	SMC_NLA_DEV_PORT_NETDEV,	/* u32: ifindex */
	SMC_NLA_DEV_PORT_STATE,		/* u8 */
	SMC_NLA_DEV_PORT_VALID,		/* u8 */
	SMC_NLA_DEV_PORT_LNK_CNT,	/* u32 */
	__SMC_NLA_DEV_PORT_MAX,
	SMC_NLA_DEV_PORT_MAX = __SMC_NLA_DEV_PORT_MAX - 1
};

/* Inside SMC_GEN_DEV_SMCD and SMC_GEN_DEV_SMCR: one device. */
enum {
	SMC_NLA_DEV_UNSPEC,
	SMC_NLA_DEV_USE_CNT,		/* u32 */
	SMC_NLA_DEV_IS_CRIT,		/* u8 */
	SMC_NLA_DEV_PCI_FID,		/* u32 */
	SMC_NLA_DEV_PCI_CHID,		/* u16 */
	SMC_NLA_DEV_PCI_VENDOR,		/* u16 */
	SMC_NLA_DEV_PCI_DEVICE,		/* u16 */
	SMC_NLA_DEV_PCI_ID,		/* string, SMC_PCI_ID_STR_LEN */
	SMC_NLA_DEV_PORT,		/* nest: SMC_NLA_DEV_PORT_* */
	SMC_NLA_DEV_PORT2,		/* nest: SMC_NLA_DEV_PORT_* */
	SMC_NLA_DEV_IB_NAME,		/* string */
	__SMC_NLA_DEV_MAX,
	SMC_NLA_DEV_MAX = __SMC_NLA_DEV_MAX - 1
};

/*
 * Size histogram, used inside SMC_NLA_STATS_T_{TX,RX}_RMB_SIZE and
 * SMC_NLA_STATS_T_{TX,RX}PLOAD_SIZE.  Every bucket is a u64 count.
 */
enum {
	SMC_NLA_STATS_PLOAD_PAD,
	SMC_NLA_STATS_PLOAD_8K,
	SMC_NLA_STATS_PLOAD_16K,
	SMC_NLA_STATS_PLOAD_32K,
	SMC_NLA_STATS_PLOAD_64K,
	SMC_NLA_STATS_PLOAD_128K,
	SMC_NLA_STATS_PLOAD_256K,
	SMC_NLA_STATS_PLOAD_512K,
	SMC_NLA_STATS_PLOAD_1024K,
	SMC_NLA_STATS_PLOAD_G_1024K,	/* larger than 1024K */
	__SMC_NLA_STATS_PLOAD_MAX,
	SMC_NLA_STATS_PLOAD_MAX = __SMC_NLA_STATS_PLOAD_MAX - 1
};

/* Buffer events, inside SMC_NLA_STATS_T_{TX,RX}_RMB_STATS.  All u64. */
enum {
	SMC_NLA_STATS_RMB_PAD,
	SMC_NLA_STATS_RMB_SIZE_SM_PEER_CNT,
	SMC_NLA_STATS_RMB_SIZE_SM_CNT,
	SMC_NLA_STATS_RMB_FULL_PEER_CNT,
	SMC_NLA_STATS_RMB_FULL_CNT,
	SMC_NLA_STATS_RMB_REUSE_CNT,
	SMC_NLA_STATS_RMB_ALLOC_CNT,
	SMC_NLA_STATS_RMB_DGRADE_CNT,
	__SMC_NLA_STATS_RMB_MAX,
	SMC_NLA_STATS_RMB_MAX = __SMC_NLA_STATS_RMB_MAX - 1
};

/* Per technology, inside SMC_NLA_STATS_SMCD_TECH / SMC_NLA_STATS_SMCR_TECH. */
enum {
	SMC_NLA_STATS_T_PAD,
	SMC_NLA_STATS_T_TX_RMB_SIZE,	/* nest: SMC_NLA_STATS_PLOAD_* */
	SMC_NLA_STATS_T_RX_RMB_SIZE,	/* nest: SMC_NLA_STATS_PLOAD_* */
	SMC_NLA_STATS_T_TXPLOAD_SIZE,	/* nest: SMC_NLA_STATS_PLOAD_* */
	SMC_NLA_STATS_T_RXPLOAD_SIZE,	/* nest: SMC_NLA_STATS_PLOAD_* */
	SMC_NLA_STATS_T_TX_RMB_STATS,	/* nest: SMC_NLA_STATS_RMB_* */
	SMC_NLA_STATS_T_RX_RMB_STATS,	/* nest: SMC_NLA_STATS_RMB_* */
	SMC_NLA_STATS_T_CLNT_V1_SUCC,	/* u64 */
	SMC_NLA_STATS_T_CLNT_V2_SUCC,	/* u64 */
	SMC_NLA_STATS_T_SRV_V1_SUCC,	/* u64 */
	SMC_NLA_STATS_T_SRV_V2_SUCC,	/* u64 */
	SMC_NLA_STATS_T_SENDPAGE_CNT,	/* u64 */
	SMC_NLA_STATS_T_SPLICE_CNT,	/* u64 */
	SMC_NLA_STATS_T_CORK_CNT,	/* u64 */
	SMC_NLA_STATS_T_NDLY_CNT,	/* u64 */
	SMC_NLA_STATS_T_URG_DATA_CNT,	/* u64 */
	SMC_NLA_STATS_T_RX_BYTES,	/* u64 */
	SMC_NLA_STATS_T_TX_BYTES,	/* u64 */
	SMC_NLA_STATS_T_RX_CNT,		/* u64 */
	SMC_NLA_STATS_T_TX_CNT,		/* u64 */
	SMC_NLA_STATS_T_RX_RMB_USAGE,	/* uint, bytes in use: since 6.12 */
	SMC_NLA_STATS_T_TX_RMB_USAGE,	/* uint, bytes in use: since 6.12 */
	__SMC_NLA_STATS_T_MAX,
	SMC_NLA_STATS_T_MAX = __SMC_NLA_STATS_T_MAX - 1
};

/* Inside SMC_GEN_STATS. */
enum {
	SMC_NLA_STATS_PAD,
	SMC_NLA_STATS_SMCD_TECH,	/* nest: SMC_NLA_STATS_T_* */
	SMC_NLA_STATS_SMCR_TECH,	/* nest: SMC_NLA_STATS_T_* */
	SMC_NLA_STATS_CLNT_HS_ERR_CNT,	/* u64 */
	SMC_NLA_STATS_SRV_HS_ERR_CNT,	/* u64 */
	__SMC_NLA_STATS_MAX,
	SMC_NLA_STATS_MAX = __SMC_NLA_STATS_MAX - 1
};

/* Inside SMC_GEN_FBACK_STATS: one fallback reason and its counters. */
enum {
	SMC_NLA_FBACK_STATS_PAD,
	SMC_NLA_FBACK_STATS_TYPE,	/* u8: server (1) or client (0) */
	SMC_NLA_FBACK_STATS_SRV_CNT,	/* u64 */
	SMC_NLA_FBACK_STATS_CLNT_CNT,	/* u64 */
	SMC_NLA_FBACK_STATS_RSN_CODE,	/* u32: SMC_CLC_DECL_* */
	SMC_NLA_FBACK_STATS_RSN_CNT,	/* u16 */
	__SMC_NLA_FBACK_STATS_MAX,
	SMC_NLA_FBACK_STATS_MAX = __SMC_NLA_FBACK_STATS_MAX - 1
};

/* Payload of SMC_NETLINK_{DUMP,ADD,REMOVE,FLUSH}_UEID. */
enum {
	SMC_NLA_EID_TABLE_UNSPEC,
	SMC_NLA_EID_TABLE_ENTRY,	/* string, SMC_MAX_EID_LEN */
	__SMC_NLA_EID_TABLE_MAX,
	SMC_NLA_EID_TABLE_MAX = __SMC_NLA_EID_TABLE_MAX - 1
};

/*
 * Payload of SMC_NETLINK_{DUMP,ENABLE,DISABLE}_SEID.  Upstream's bound is
 * spelled _SEID_TABLE_MAX, unlike the members; kept as is.
 */
enum {
	SMC_NLA_SEID_UNSPEC,
	SMC_NLA_SEID_ENTRY,		/* string */
	SMC_NLA_SEID_ENABLED,		/* u8 */
	__SMC_NLA_SEID_TABLE_MAX,
	SMC_NLA_SEID_TABLE_MAX = __SMC_NLA_SEID_TABLE_MAX - 1
};

/* Payload of SMC_NETLINK_{DUMP,ENABLE,DISABLE}_HS_LIMITATION. */
enum {
	SMC_NLA_HS_LIMITATION_UNSPEC,
	SMC_NLA_HS_LIMITATION_ENABLED,	/* u8 */
	__SMC_NLA_HS_LIMITATION_MAX,
	SMC_NLA_HS_LIMITATION_MAX = __SMC_NLA_HS_LIMITATION_MAX - 1
};

/* ------------------------------------------------------------------------
 * Socket options at level SOL_SMC
 * ------------------------------------------------------------------------ */

/* int flag: limit SMC handshakes, falling back to TCP when congested */
#define SMC_LIMIT_HS	1

#endif /* _LINUX_SMC_H_ || _UAPI_LINUX_SMC_H_ */
