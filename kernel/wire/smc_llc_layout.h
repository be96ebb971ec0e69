/* SPDX-License-Identifier: GPL-2.0 */
/*
 * On-wire layouts of the SMC-R LLC (Link Layer Control) messages, version 1,
 * the v2 header and the v2 ADD LINK extension.
 *
 * Same rules as smc_clc_layout.h: byte arrays only, alignment 1, no padding,
 * numbers big endian through smc_wire_get_be*() / smc_wire_put_be*().
 * Every v1 LLC message is exactly 44 bytes: the payload of one RDMA SEND on
 * the link, the same size as a CDC message (the type byte tells them apart).
 *
 * Sources of the facts (see kernel/wire/README.md, "LLC"):
 *   - RFC 7609 section 3.4 / appendix A ("LLC messages").
 *   - Linux 6.1 net/smc/smc_llc.c and smc_llc.h: struct smc_llc_hdr and the
 *     struct smc_llc_msg_* of each type, the SMC_LLC_FLAG_* bits and the
 *     DELETE LINK reason codes; the CONFIRM RKEY CONTINUATION layout from
 *     older Linux (4.x; 6.1 no longer has the struct and never sends it).
 *   - The ADD LINK v2 extension: Linux 6.1 struct smc_llc_msg_add_link_v2_ext
 *     and the Wireshark dissector, which agree on the layout (not on the
 *     byte order of its count, see smc_llc.h).
 */
#ifndef SMC_LLC_LAYOUT_H
#define SMC_LLC_LAYOUT_H

#include "smc_wire_types.h"

/*
 * Header, 4 bytes. In an SMC-Rv2 link group the type byte has version 2
 * in its high nibble and bytes 1..2 are one 16-bit length (44..8192),
 * smc_llc_wire_hdr_v2; the rest of a message's first 44 bytes is laid out
 * as in v1 for the types smc_llc_type_known_v2() lists.
 */
struct smc_llc_wire_hdr {
	uint8_t type;		/* version:4 | type:4; v1 types are 0x01..0x09 */
	uint8_t length;		/* 44 */
	uint8_t add_link_rej;	/* reserved:4 | add_link_rej_rsn:4 (ADD LINK) */
	uint8_t flags;		/* SMC_LLC_FLAG_* */
};

struct smc_llc_wire_hdr_v2 {
	uint8_t type;		/* 2:4 | type:4 */
	uint8_t length[2];	/* see smc_llc.h on its byte order */
	uint8_t flags;
};

/* CONFIRM LINK (0x01). */
struct smc_llc_wire_confirm_link {
	struct smc_llc_wire_hdr hd;
	uint8_t sender_mac[6];
	uint8_t sender_gid[16];
	uint8_t sender_qp_num[3];
	uint8_t link_num;
	uint8_t link_uid[4];
	uint8_t max_links;
	uint8_t max_conns;	/* SMC v2.1; reserved (zero) before */
	uint8_t reserved[8];
};

/* ADD LINK (0x02). */
struct smc_llc_wire_add_link {
	struct smc_llc_wire_hdr hd;
	uint8_t sender_mac[6];
	uint8_t reserved2[2];
	uint8_t sender_gid[16];
	uint8_t sender_qp_num[3];
	uint8_t link_num;
	uint8_t qp_mtu;		/* reserved:4 | qp_mtu:4 */
	uint8_t initial_psn[3];
	uint8_t reserved[8];
};

/* One rkey pair of ADD LINK CONTINUATION, 16 bytes. */
struct smc_llc_wire_add_link_cont_rt {
	uint8_t rmb_key[4];	/* rkey of the RMB on the existing link */
	uint8_t rmb_key_new[4];	/* rkey of the same RMB on the new link */
	uint8_t rmb_vaddr_new[8];
};

/* ADD LINK CONTINUATION (0x03). */
struct smc_llc_wire_add_link_cont {
	struct smc_llc_wire_hdr hd;
	uint8_t link_num;
	uint8_t num_rkeys;	/* rkeys still to send, this message's included */
	uint8_t reserved2[2];
	struct smc_llc_wire_add_link_cont_rt rt[2];
	uint8_t reserved[4];
};

/* DELETE LINK (0x04). */
struct smc_llc_wire_delete_link {
	struct smc_llc_wire_hdr hd;
	uint8_t link_num;
	uint8_t reason[4];
	uint8_t reserved[35];
};

/* One RMB token (rtoken), 13 bytes, packed. */
struct smc_llc_wire_rtoken {
	uint8_t link_id;	/* CONFIRM RKEY rtoken[0]: count of the others */
	uint8_t rmb_key[4];
	uint8_t rmb_vaddr[8];
};

/* CONFIRM RKEY (0x06). */
struct smc_llc_wire_confirm_rkey {
	struct smc_llc_wire_hdr hd;
	struct smc_llc_wire_rtoken rtoken[3];
	uint8_t reserved;
};

/* TEST LINK (0x07). */
struct smc_llc_wire_test_link {
	struct smc_llc_wire_hdr hd;
	uint8_t user_data[16];	/* echoed in the response */
	uint8_t reserved[24];
};

/* CONFIRM RKEY CONTINUATION (0x08). */
struct smc_llc_wire_confirm_rkey_cont {
	struct smc_llc_wire_hdr hd;
	uint8_t num_rkeys;
	struct smc_llc_wire_rtoken rtoken[3];
};

/*
 * ADD LINK v2 extension, 28 bytes, at byte 44 of a v2 ADD LINK request or
 * accepting response; num_rkeys entries of smc_llc_wire_add_link_cont_rt
 * follow it (rmb_key: the RMB on the link the message travels on).
 */
struct smc_llc_wire_add_link_ext {
	uint8_t flags;		/* SMC_LLC_ADD_EXT_DIRECT | reserved:7 */
	uint8_t reserved;
	uint8_t target_gid[16];	/* the client's target GID */
	uint8_t reserved2[8];
	uint8_t num_rkeys[2];	/* Linux 6.1: host order, may exceed the entries */
};

/*
 * DELETE RKEY (0x09). In v2 the first 44 bytes are the same; a v2 message
 * may carry more rkeys after them, and a v2 response has in err_mask the
 * number of rkeys not found instead of a mask.
 */
struct smc_llc_wire_delete_rkey {
	struct smc_llc_wire_hdr hd;
	uint8_t num_rkeys;
	uint8_t err_mask;	/* response: v1 bit 0x80 >> i = rkey[i] failed */
	uint8_t reserved[2];
	uint8_t rkey[8][4];
	uint8_t reserved2[4];
};

/* Header flag bits. */
#define SMC_LLC_FLAG_RESP		0x80	/* all types */
#define SMC_LLC_FLAG_ADD_LNK_REJ	0x40	/* ADD LINK response */
#define SMC_LLC_FLAG_DEL_LINK_ALL	0x40	/* DELETE LINK */
#define SMC_LLC_FLAG_DEL_LINK_ORDERLY	0x20	/* DELETE LINK */
#define SMC_LLC_FLAG_RKEY_NEG		0x20	/* (DELETE/CONFIRM) RKEY resp. */
#define SMC_LLC_FLAG_RKEY_RETRY		0x10	/* CONFIRM RKEY response */
#define SMC_LLC_FLAG_NO_RMBE_EYEC	0x03	/* CONFIRM LINK: no RMBE eyecatcher */

/* ADD LINK v2 extension flag bit: the peer is on-link, no gateway. */
#define SMC_LLC_ADD_EXT_DIRECT		0x80

/* Header byte 0 and 2 fields. */
#define SMC_LLC_HDR_VERSION_SHIFT	4
#define SMC_LLC_HDR_TYPE_MASK		0x0f
#define SMC_LLC_VERSION_2		2
#define SMC_LLC_HDR_REJ_RSN_MASK	0x0f
#define SMC_LLC_QP_MTU_MASK		0x0f

#define SMC_LLC_SZ(t) (sizeof(struct t))
#define SMC_LLC_OFF(t, m) (offsetof(struct t, m))

SMC_WIRE_STATIC_ASSERT(SMC_LLC_SZ(smc_llc_wire_hdr) == 4, "LLC header");
SMC_WIRE_STATIC_ASSERT(SMC_LLC_SZ(smc_llc_wire_hdr_v2) == 4 &&
		       SMC_LLC_OFF(smc_llc_wire_hdr_v2, flags) == 3,
		       "LLC v2 header");
SMC_WIRE_STATIC_ASSERT(SMC_LLC_SZ(smc_llc_wire_confirm_link) == 44,
		       "CONFIRM LINK");
SMC_WIRE_STATIC_ASSERT(SMC_LLC_OFF(smc_llc_wire_confirm_link, link_uid) == 30,
		       "CONFIRM LINK link_uid");
SMC_WIRE_STATIC_ASSERT(SMC_LLC_SZ(smc_llc_wire_add_link) == 44, "ADD LINK");
SMC_WIRE_STATIC_ASSERT(SMC_LLC_OFF(smc_llc_wire_add_link, sender_gid) == 12,
		       "ADD LINK gid");
SMC_WIRE_STATIC_ASSERT(SMC_LLC_OFF(smc_llc_wire_add_link, initial_psn) == 33,
		       "ADD LINK psn");
SMC_WIRE_STATIC_ASSERT(SMC_LLC_SZ(smc_llc_wire_add_link_cont_rt) == 16,
		       "ADD LINK CONT rt");
SMC_WIRE_STATIC_ASSERT(SMC_LLC_SZ(smc_llc_wire_add_link_cont) == 44,
		       "ADD LINK CONT");
SMC_WIRE_STATIC_ASSERT(SMC_LLC_OFF(smc_llc_wire_add_link_cont, rt) == 8,
		       "ADD LINK CONT rt offset");
SMC_WIRE_STATIC_ASSERT(SMC_LLC_SZ(smc_llc_wire_delete_link) == 44,
		       "DELETE LINK");
SMC_WIRE_STATIC_ASSERT(SMC_LLC_OFF(smc_llc_wire_delete_link, reason) == 5,
		       "DELETE LINK reason");
SMC_WIRE_STATIC_ASSERT(SMC_LLC_SZ(smc_llc_wire_rtoken) == 13, "rtoken");
SMC_WIRE_STATIC_ASSERT(SMC_LLC_SZ(smc_llc_wire_confirm_rkey) == 44,
		       "CONFIRM RKEY");
SMC_WIRE_STATIC_ASSERT(SMC_LLC_SZ(smc_llc_wire_test_link) == 44, "TEST LINK");
SMC_WIRE_STATIC_ASSERT(SMC_LLC_SZ(smc_llc_wire_confirm_rkey_cont) == 44,
		       "CONFIRM RKEY CONT");
SMC_WIRE_STATIC_ASSERT(SMC_LLC_SZ(smc_llc_wire_delete_rkey) == 44,
		       "DELETE RKEY");
SMC_WIRE_STATIC_ASSERT(SMC_LLC_OFF(smc_llc_wire_delete_rkey, rkey) == 8,
		       "DELETE RKEY rkey");
SMC_WIRE_STATIC_ASSERT(SMC_LLC_SZ(smc_llc_wire_add_link_ext) == 28,
		       "ADD LINK v2 extension");
SMC_WIRE_STATIC_ASSERT(SMC_LLC_OFF(smc_llc_wire_add_link_ext, target_gid) == 2,
		       "ADD LINK v2 extension target GID");
SMC_WIRE_STATIC_ASSERT(SMC_LLC_OFF(smc_llc_wire_add_link_ext, num_rkeys) == 26,
		       "ADD LINK v2 extension count");

#endif /* SMC_LLC_LAYOUT_H */
