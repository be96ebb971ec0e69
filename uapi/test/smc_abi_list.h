/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The names the uapi ABI test knows about, as X-macro lists.
 *
 * This file includes nothing.  The table translation units include it
 * after <linux/smc.h> and <linux/smc_diag.h> (ours or the system's) and
 * turn every entry into a value/size/offset; the test itself includes it
 * bare and only uses the stringified names and the expected numbers.
 *
 * Lists and their entry shapes:
 *
 *   SMC_ABI_INTS_V6_1(I)       I(name)
 *       integer constants of 6.1 whose value has not changed since;
 *   SMC_ABI_BOUNDS(B)          B(name, in_6_1, grew_6_6, grew_6_8, grew_6_12)
 *       enum bounds (_MAX, __..._MAX) of 6.1 that later releases raised;
 *       upstream's current value is the sum of the four numbers;
 *   SMC_ABI_STRS(S)            S(name)
 *       string constants (generic netlink family names);
 *   SMC_ABI_INTS_V6_6(P), SMC_ABI_INTS_V6_8(P), SMC_ABI_INTS_V6_12(P)
 *                              P(name, upstream_value)
 *       integer constants first released in that kernel;
 *   SMC_ABI_TYPES(T)           T(struct_tag, grew_6_6, grew_6_8, grew_6_12)
 *       every struct, with the bytes later releases appended to it;
 *   SMC_ABI_FIELDS_V6_1(F)     F(struct_tag, member)
 *       every member in 6.1, in declaration order;
 *   SMC_ABI_FIELDS_V6_6(L), SMC_ABI_FIELDS_V6_8(L), SMC_ABI_FIELDS_V6_12(L)
 *                              L(struct_tag, member, offset, size, kind)
 *       members first released in that kernel, with upstream's layout.
 *
 * A kind is the member's type as the table units classify it: "u8" ..
 * "u64", "<scalar>[]" for arrays, "struct <tag>" or "struct <tag>[]".
 *
 * When upstream adds a name, add it here (the coverage tests parse the
 * headers and fail on any SMC identifier no list mentions).
 */
#ifndef SMC_ABI_LIST_H
#define SMC_ABI_LIST_H

/* ---- <linux/smc.h>, values fixed since 6.1 ---------------------------- */

#define SMC_ABI_INTS_V6_1_PNETID(I)					\
	I(SMCR_GENL_FAMILY_VERSION)					\
	I(SMC_PNETID_GET) I(SMC_PNETID_ADD) I(SMC_PNETID_DEL)		\
	I(SMC_PNETID_FLUSH)						\
	I(SMC_PNETID_UNSPEC) I(SMC_PNETID_NAME) I(SMC_PNETID_ETHNAME)	\
	I(SMC_PNETID_IBNAME) I(SMC_PNETID_IBPORT)			\
	I(__SMC_PNETID_MAX) I(SMC_PNETID_MAX)

#define SMC_ABI_INTS_V6_1_GENL(I)					\
	I(SMC_GENL_FAMILY_VERSION)					\
	I(SMC_PCI_ID_STR_LEN) I(SMC_MAX_HOSTNAME_LEN) I(SMC_MAX_UEID)	\
	I(SMC_MAX_EID_LEN)						\
	I(SMC_NETLINK_GET_SYS_INFO) I(SMC_NETLINK_GET_LGR_SMCR)		\
	I(SMC_NETLINK_GET_LINK_SMCR) I(SMC_NETLINK_GET_LGR_SMCD)	\
	I(SMC_NETLINK_GET_DEV_SMCD) I(SMC_NETLINK_GET_DEV_SMCR)		\
	I(SMC_NETLINK_GET_STATS) I(SMC_NETLINK_GET_FBACK_STATS)		\
	I(SMC_NETLINK_DUMP_UEID) I(SMC_NETLINK_ADD_UEID)		\
	I(SMC_NETLINK_REMOVE_UEID) I(SMC_NETLINK_FLUSH_UEID)		\
	I(SMC_NETLINK_DUMP_SEID) I(SMC_NETLINK_ENABLE_SEID)		\
	I(SMC_NETLINK_DISABLE_SEID) I(SMC_NETLINK_DUMP_HS_LIMITATION)	\
	I(SMC_NETLINK_ENABLE_HS_LIMITATION)				\
	I(SMC_NETLINK_DISABLE_HS_LIMITATION)				\
	I(SMC_GEN_UNSPEC) I(SMC_GEN_SYS_INFO) I(SMC_GEN_LGR_SMCR)	\
	I(SMC_GEN_LINK_SMCR) I(SMC_GEN_LGR_SMCD) I(SMC_GEN_DEV_SMCD)	\
	I(SMC_GEN_DEV_SMCR) I(SMC_GEN_STATS) I(SMC_GEN_FBACK_STATS)	\
	I(__SMC_GEN_MAX) I(SMC_GEN_MAX)

#define SMC_ABI_INTS_V6_1_SYS_LGR(I)					\
	I(SMC_NLA_SYS_UNSPEC) I(SMC_NLA_SYS_VER) I(SMC_NLA_SYS_REL)	\
	I(SMC_NLA_SYS_IS_ISM_V2) I(SMC_NLA_SYS_LOCAL_HOST)		\
	I(SMC_NLA_SYS_SEID) I(SMC_NLA_SYS_IS_SMCR_V2)			\
	I(__SMC_NLA_SYS_MAX) I(SMC_NLA_SYS_MAX)				\
	I(SMC_NLA_LGR_V2_VER) I(SMC_NLA_LGR_V2_REL) I(SMC_NLA_LGR_V2_OS)	\
	I(SMC_NLA_LGR_V2_NEG_EID) I(SMC_NLA_LGR_V2_PEER_HOST)		\
	I(__SMC_NLA_LGR_V2_MAX) I(SMC_NLA_LGR_V2_MAX)			\
	I(SMC_NLA_LGR_R_V2_UNSPEC) I(SMC_NLA_LGR_R_V2_DIRECT)		\
	I(SMC_NLA_LGR_R_UNSPEC) I(SMC_NLA_LGR_R_ID) I(SMC_NLA_LGR_R_ROLE)	\
	I(SMC_NLA_LGR_R_TYPE) I(SMC_NLA_LGR_R_PNETID)			\
	I(SMC_NLA_LGR_R_VLAN_ID) I(SMC_NLA_LGR_R_CONNS_NUM)		\
	I(SMC_NLA_LGR_R_V2_COMMON) I(SMC_NLA_LGR_R_V2)			\
	I(SMC_NLA_LGR_R_NET_COOKIE) I(SMC_NLA_LGR_R_PAD)		\
	I(SMC_NLA_LGR_R_BUF_TYPE)					\
	I(SMC_NLA_LINK_UNSPEC) I(SMC_NLA_LINK_ID) I(SMC_NLA_LINK_IB_DEV)	\
	I(SMC_NLA_LINK_IB_PORT) I(SMC_NLA_LINK_GID)			\
	I(SMC_NLA_LINK_PEER_GID) I(SMC_NLA_LINK_CONN_CNT)		\
	I(SMC_NLA_LINK_NET_DEV) I(SMC_NLA_LINK_UID)			\
	I(SMC_NLA_LINK_PEER_UID) I(SMC_NLA_LINK_STATE)			\
	I(__SMC_NLA_LINK_MAX) I(SMC_NLA_LINK_MAX)			\
	I(SMC_NLA_LGR_D_UNSPEC) I(SMC_NLA_LGR_D_ID) I(SMC_NLA_LGR_D_GID)	\
	I(SMC_NLA_LGR_D_PEER_GID) I(SMC_NLA_LGR_D_VLAN_ID)		\
	I(SMC_NLA_LGR_D_CONNS_NUM) I(SMC_NLA_LGR_D_PNETID)		\
	I(SMC_NLA_LGR_D_CHID) I(SMC_NLA_LGR_D_PAD)			\
	I(SMC_NLA_LGR_D_V2_COMMON)

#define SMC_ABI_INTS_V6_1_DEV(I)					\
	I(SMC_NLA_DEV_PORT_UNSPEC) I(SMC_NLA_DEV_PORT_PNET_USR)		\
	I(SMC_NLA_DEV_PORT_PNETID) I(SMC_NLA_DEV_PORT_NETDEV)		\
	I(SMC_NLA_DEV_PORT_STATE) I(SMC_NLA_DEV_PORT_VALID)		\
	I(SMC_NLA_DEV_PORT_LNK_CNT)					\
	I(__SMC_NLA_DEV_PORT_MAX) I(SMC_NLA_DEV_PORT_MAX)		\
	I(SMC_NLA_DEV_UNSPEC) I(SMC_NLA_DEV_USE_CNT)			\
	I(SMC_NLA_DEV_IS_CRIT) I(SMC_NLA_DEV_PCI_FID)			\
	I(SMC_NLA_DEV_PCI_CHID) I(SMC_NLA_DEV_PCI_VENDOR)		\
	I(SMC_NLA_DEV_PCI_DEVICE) I(SMC_NLA_DEV_PCI_ID)			\
	I(SMC_NLA_DEV_PORT) I(SMC_NLA_DEV_PORT2) I(SMC_NLA_DEV_IB_NAME)	\
	I(__SMC_NLA_DEV_MAX) I(SMC_NLA_DEV_MAX)

#define SMC_ABI_INTS_V6_1_STATS(I)					\
	I(SMC_NLA_STATS_PLOAD_PAD) I(SMC_NLA_STATS_PLOAD_8K)		\
	I(SMC_NLA_STATS_PLOAD_16K) I(SMC_NLA_STATS_PLOAD_32K)		\
	I(SMC_NLA_STATS_PLOAD_64K) I(SMC_NLA_STATS_PLOAD_128K)		\
	I(SMC_NLA_STATS_PLOAD_256K) I(SMC_NLA_STATS_PLOAD_512K)		\
	I(SMC_NLA_STATS_PLOAD_1024K) I(SMC_NLA_STATS_PLOAD_G_1024K)	\
	I(__SMC_NLA_STATS_PLOAD_MAX) I(SMC_NLA_STATS_PLOAD_MAX)		\
	I(SMC_NLA_STATS_RMB_PAD) I(SMC_NLA_STATS_RMB_SIZE_SM_PEER_CNT)	\
	I(SMC_NLA_STATS_RMB_SIZE_SM_CNT)				\
	I(SMC_NLA_STATS_RMB_FULL_PEER_CNT) I(SMC_NLA_STATS_RMB_FULL_CNT)	\
	I(SMC_NLA_STATS_RMB_REUSE_CNT) I(SMC_NLA_STATS_RMB_ALLOC_CNT)	\
	I(SMC_NLA_STATS_RMB_DGRADE_CNT)					\
	I(__SMC_NLA_STATS_RMB_MAX) I(SMC_NLA_STATS_RMB_MAX)		\
	I(SMC_NLA_STATS_T_PAD) I(SMC_NLA_STATS_T_TX_RMB_SIZE)		\
	I(SMC_NLA_STATS_T_RX_RMB_SIZE) I(SMC_NLA_STATS_T_TXPLOAD_SIZE)	\
	I(SMC_NLA_STATS_T_RXPLOAD_SIZE) I(SMC_NLA_STATS_T_TX_RMB_STATS)	\
	I(SMC_NLA_STATS_T_RX_RMB_STATS) I(SMC_NLA_STATS_T_CLNT_V1_SUCC)	\
	I(SMC_NLA_STATS_T_CLNT_V2_SUCC) I(SMC_NLA_STATS_T_SRV_V1_SUCC)	\
	I(SMC_NLA_STATS_T_SRV_V2_SUCC) I(SMC_NLA_STATS_T_SENDPAGE_CNT)	\
	I(SMC_NLA_STATS_T_SPLICE_CNT) I(SMC_NLA_STATS_T_CORK_CNT)	\
	I(SMC_NLA_STATS_T_NDLY_CNT) I(SMC_NLA_STATS_T_URG_DATA_CNT)	\
	I(SMC_NLA_STATS_T_RX_BYTES) I(SMC_NLA_STATS_T_TX_BYTES)		\
	I(SMC_NLA_STATS_T_RX_CNT) I(SMC_NLA_STATS_T_TX_CNT)		\
	I(SMC_NLA_STATS_PAD) I(SMC_NLA_STATS_SMCD_TECH)			\
	I(SMC_NLA_STATS_SMCR_TECH) I(SMC_NLA_STATS_CLNT_HS_ERR_CNT)	\
	I(SMC_NLA_STATS_SRV_HS_ERR_CNT)					\
	I(__SMC_NLA_STATS_MAX) I(SMC_NLA_STATS_MAX)			\
	I(SMC_NLA_FBACK_STATS_PAD) I(SMC_NLA_FBACK_STATS_TYPE)		\
	I(SMC_NLA_FBACK_STATS_SRV_CNT) I(SMC_NLA_FBACK_STATS_CLNT_CNT)	\
	I(SMC_NLA_FBACK_STATS_RSN_CODE) I(SMC_NLA_FBACK_STATS_RSN_CNT)	\
	I(__SMC_NLA_FBACK_STATS_MAX) I(SMC_NLA_FBACK_STATS_MAX)

#define SMC_ABI_INTS_V6_1_TABLES(I)					\
	I(SMC_NLA_EID_TABLE_UNSPEC) I(SMC_NLA_EID_TABLE_ENTRY)		\
	I(__SMC_NLA_EID_TABLE_MAX) I(SMC_NLA_EID_TABLE_MAX)		\
	I(SMC_NLA_SEID_UNSPEC) I(SMC_NLA_SEID_ENTRY)			\
	I(SMC_NLA_SEID_ENABLED)						\
	I(__SMC_NLA_SEID_TABLE_MAX) I(SMC_NLA_SEID_TABLE_MAX)		\
	I(SMC_NLA_HS_LIMITATION_UNSPEC) I(SMC_NLA_HS_LIMITATION_ENABLED)	\
	I(__SMC_NLA_HS_LIMITATION_MAX) I(SMC_NLA_HS_LIMITATION_MAX)	\
	I(SMC_LIMIT_HS)

/* ---- <linux/smc_diag.h>, values fixed since 6.1 ----------------------- */

#define SMC_ABI_INTS_V6_1_DIAG(I)					\
	I(SMC_DIAG_MODE_SMCR) I(SMC_DIAG_MODE_FALLBACK_TCP)		\
	I(SMC_DIAG_MODE_SMCD)						\
	I(SMC_DIAG_NONE) I(SMC_DIAG_CONNINFO) I(SMC_DIAG_LGRINFO)	\
	I(SMC_DIAG_SHUTDOWN) I(SMC_DIAG_DMBINFO) I(SMC_DIAG_FALLBACK)	\
	I(__SMC_DIAG_MAX) I(SMC_DIAG_MAX)

#define SMC_ABI_INTS_V6_1(I)						\
	SMC_ABI_INTS_V6_1_PNETID(I)					\
	SMC_ABI_INTS_V6_1_GENL(I)					\
	SMC_ABI_INTS_V6_1_SYS_LGR(I)					\
	SMC_ABI_INTS_V6_1_DEV(I)					\
	SMC_ABI_INTS_V6_1_STATS(I)					\
	SMC_ABI_INTS_V6_1_TABLES(I)					\
	SMC_ABI_INTS_V6_1_DIAG(I)

/* ---- bounds of 6.1 enums that later releases extended ----------------- */

#define SMC_ABI_BOUNDS(B)						\
	B(__SMC_NLA_LGR_R_V2_MAX,	2, 2, 0, 0)			\
	B(SMC_NLA_LGR_R_V2_MAX,		1, 2, 0, 0)			\
	B(__SMC_NLA_LGR_R_MAX,		12, 0, 0, 2)			\
	B(SMC_NLA_LGR_R_MAX,		11, 0, 0, 2)			\
	B(__SMC_NLA_LGR_D_MAX,		10, 0, 2, 2)			\
	B(SMC_NLA_LGR_D_MAX,		9, 0, 2, 2)			\
	B(__SMC_NLA_STATS_T_MAX,	20, 0, 0, 2)			\
	B(SMC_NLA_STATS_T_MAX,		19, 0, 0, 2)

/* ---- string constants ---------------------------------------------------- */

#define SMC_ABI_STRS(S)							\
	S(SMCR_GENL_FAMILY_NAME)					\
	S(SMC_GENL_FAMILY_NAME)

/* ---- integer constants added after 6.1 ------------------------------------ */

/* 6.6: SMC-R v2.1 link group limits, reported in SMC_NLA_LGR_R_V2 */
#define SMC_ABI_INTS_V6_6(P)						\
	P(SMC_NLA_LGR_R_V2_MAX_CONNS,	2)				\
	P(SMC_NLA_LGR_R_V2_MAX_LINKS,	3)

/* 6.8: second half of the 128-bit SMC-D GIDs (virtual ISM) */
#define SMC_ABI_INTS_V6_8(P)						\
	P(SMC_NLA_LGR_D_EXT_GID,	10)				\
	P(SMC_NLA_LGR_D_PEER_EXT_GID,	11)

/* 6.12: bytes of ring buffers allocated per link group / in use per netns */
#define SMC_ABI_INTS_V6_12(P)						\
	P(SMC_NLA_LGR_R_SNDBUF_ALLOC,	12)				\
	P(SMC_NLA_LGR_R_RMB_ALLOC,	13)				\
	P(SMC_NLA_LGR_D_SNDBUF_ALLOC,	12)				\
	P(SMC_NLA_LGR_D_DMB_ALLOC,	13)				\
	P(SMC_NLA_STATS_T_RX_RMB_USAGE,	20)				\
	P(SMC_NLA_STATS_T_TX_RMB_USAGE,	21)

/* ---- structs of <linux/smc_diag.h> ---------------------------------------- */

#define SMC_ABI_TYPES(T)						\
	T(smc_diag_req,		0, 0, 0)				\
	T(smc_diag_msg,		0, 0, 0)				\
	T(smc_diag_cursor,	0, 0, 0)				\
	T(smc_diag_conninfo,	0, 0, 0)				\
	T(smc_diag_linkinfo,	0, 0, 0)				\
	T(smc_diag_lgrinfo,	0, 0, 0)				\
	T(smc_diag_fallback,	0, 0, 0)				\
	T(smcd_diag_dmbinfo,	0, 16, 0)

#define SMC_ABI_FIELDS_V6_1(F)						\
	F(smc_diag_req, diag_family) F(smc_diag_req, pad)		\
	F(smc_diag_req, diag_ext) F(smc_diag_req, id)			\
	F(smc_diag_msg, diag_family) F(smc_diag_msg, diag_state)	\
	F(smc_diag_msg, diag_mode) F(smc_diag_msg, diag_fallback)	\
	F(smc_diag_msg, diag_shutdown) F(smc_diag_msg, id)		\
	F(smc_diag_msg, diag_uid) F(smc_diag_msg, diag_inode)		\
	F(smc_diag_cursor, reserved) F(smc_diag_cursor, wrap)		\
	F(smc_diag_cursor, count)					\
	F(smc_diag_conninfo, token) F(smc_diag_conninfo, sndbuf_size)	\
	F(smc_diag_conninfo, rmbe_size)					\
	F(smc_diag_conninfo, peer_rmbe_size)				\
	F(smc_diag_conninfo, rx_prod) F(smc_diag_conninfo, rx_cons)	\
	F(smc_diag_conninfo, tx_prod) F(smc_diag_conninfo, tx_cons)	\
	F(smc_diag_conninfo, rx_prod_flags)				\
	F(smc_diag_conninfo, rx_conn_state_flags)			\
	F(smc_diag_conninfo, tx_prod_flags)				\
	F(smc_diag_conninfo, tx_conn_state_flags)			\
	F(smc_diag_conninfo, tx_prep) F(smc_diag_conninfo, tx_sent)	\
	F(smc_diag_conninfo, tx_fin)					\
	F(smc_diag_linkinfo, link_id) F(smc_diag_linkinfo, ibname)	\
	F(smc_diag_linkinfo, ibport) F(smc_diag_linkinfo, gid)		\
	F(smc_diag_linkinfo, peer_gid)					\
	F(smc_diag_lgrinfo, lnk) F(smc_diag_lgrinfo, role)		\
	F(smc_diag_fallback, reason)					\
	F(smc_diag_fallback, peer_diagnosis)				\
	F(smcd_diag_dmbinfo, linkid) F(smcd_diag_dmbinfo, peer_gid)	\
	F(smcd_diag_dmbinfo, my_gid) F(smcd_diag_dmbinfo, token)	\
	F(smcd_diag_dmbinfo, peer_token)

#define SMC_ABI_FIELDS_V6_6(L)
#define SMC_ABI_FIELDS_V6_8(L)						\
	L(smcd_diag_dmbinfo, peer_gid_ext, 40, 8, "u64")		\
	L(smcd_diag_dmbinfo, my_gid_ext, 48, 8, "u64")
#define SMC_ABI_FIELDS_V6_12(L)

#endif /* SMC_ABI_LIST_H */
