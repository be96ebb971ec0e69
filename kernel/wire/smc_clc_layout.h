/* SPDX-License-Identifier: GPL-2.0 */
/*
 * On-wire layouts of the SMC CLC (Connection Layer Control) messages.
 *
 * Every member is a byte array, so these structs have alignment 1, no padding,
 * and mean the same thing on every host: multi-byte numbers are big endian and
 * are read and written only through smc_wire_get_be*() / smc_wire_put_be*().
 * Nothing here is ever cast onto received bytes by the decoder; the structs
 * exist so that offsetof() names every field and the sizes can be asserted.
 *
 * Sources of the facts (see kernel/wire/README.md for the long form):
 *   - RFC 7609 section 3.7 / appendix A (CLC v1: header, proposal, accept,
 *     confirm, decline, trailer; EBCDIC eyecatchers).
 *   - IBM "SMC Version 2" architecture (SMC-Dv2, SMC-Rv2): v2 proposal
 *     extensions, first contact extension.
 *   - Linux 6.1 net/smc/smc_clc.h and smc_clc.c: what Linux actually sends,
 *     e.g. SMCR_CLC_ACCEPT_CONFIRM_LEN 68, SMCD_CLC_ACCEPT_CONFIRM_LEN 48,
 *     SMCD_CLC_ACCEPT_CONFIRM_LEN_V2 78, SMCR_CLC_ACCEPT_CONFIRM_LEN_V2 108,
 *     decline 28 (v1) / 44 (v2).
 */
#ifndef SMC_CLC_LAYOUT_H
#define SMC_CLC_LAYOUT_H

#include "smc_wire_types.h"

/* Header, 8 bytes. */
struct smc_clc_wire_hdr {
	uint8_t eyecatcher[4];	/* "SMCR" or "SMCD" in EBCDIC */
	uint8_t type;		/* 1 proposal, 2 accept, 3 confirm, 4 decline */
	uint8_t length[2];	/* whole message incl. header and trailer */
	uint8_t flags;		/* version:4 | typev2:2 | typev1:2 (MSB first) */
};

/* Trailer, 4 bytes: the eyecatcher again. */
struct smc_clc_wire_trl {
	uint8_t eyecatcher[4];
};

/* Sender identity ("header2"), 30 bytes: proposal and SMC-R accept/confirm. */
struct smc_clc_wire_local {
	uint8_t peer_id[8];	/* sender peer ID (system identifier) */
	uint8_t gid[16];	/* RoCE GID */
	uint8_t mac[6];		/* RoCE MAC */
};

/* Proposal, fixed head: 40 bytes. */
struct smc_clc_wire_proposal {
	struct smc_clc_wire_hdr hdr;
	struct smc_clc_wire_local lcl;
	/* from the end of this field to the IP prefix area */
	uint8_t iparea_offset[2];
};

/*
 * Proposal SMC-D area, 40 bytes, right after the fixed head. v1: ISM GID plus
 * 32 reserved bytes, present only when SMC-D is offered. v2: always present;
 * carries the native ISM CHID and the offset of the v2 extension.
 */
struct smc_clc_wire_proposal_smcd {
	uint8_t ism_gid[8];
	uint8_t ism_chid[2];		/* v2 */
	/* v2: from the end of this field to the v2 extension; 0 = none */
	uint8_t v2_ext_offset[2];
	uint8_t reserved[28];
};

/* Proposal IP prefix area, 8 bytes, followed by ipv6_prefix_cnt entries. */
struct smc_clc_wire_proposal_prefix {
	uint8_t outgoing_subnet[4];	/* IPv4 subnet (address & mask) */
	uint8_t prefix_len;		/* IPv4 mask length */
	uint8_t reserved[2];
	uint8_t ipv6_prefix_cnt;
};

/* One IPv6 prefix, 17 bytes (packed on the wire, RFC 7609). */
struct smc_clc_wire_ipv6_prefix {
	uint8_t prefix[16];
	uint8_t prefix_len;
};

/*
 * Proposal v2 extension ("client options area"), 40 bytes, followed by
 * eid_cnt user EIDs of 32 bytes.
 */
struct smc_clc_wire_v2_ext {
	uint8_t eid_cnt;		/* number of user EIDs */
	uint8_t ism_gid_cnt;		/* number of SMC-Dv2 GID/CHID entries */
	uint8_t reserved1;
	uint8_t flag;			/* release:4 | reserved:3 | seid:1 */
	uint8_t reserved2[2];
	/* from the end of this field to the SMC-Dv2 extension; 0 = none */
	uint8_t smcd_v2_ext_offset[2];
	uint8_t roce_gid[16];		/* SMC-Rv2: RoCEv2 GID (IPv4-mapped) */
	/* Reserved in SMC v2.0 (Linux 6.1 sends zeros); SMC v2.1 meaning: */
	uint8_t max_conns;
	uint8_t max_links;
	uint8_t feature_mask[2];
	uint8_t reserved3[12];
};

/* Proposal SMC-Dv2 extension, 48 bytes, followed by ism_gid_cnt entries. */
struct smc_clc_wire_smcd_v2_ext {
	uint8_t system_eid[32];	/* SEID */
	uint8_t reserved[16];
};

/* One SMC-Dv2 ISM device, 10 bytes. */
struct smc_clc_wire_gid_chid {
	uint8_t gid[8];
	uint8_t chid[2];
};

/* SMC-R part of accept/confirm, 56 bytes. */
struct smc_clc_wire_smcr {
	struct smc_clc_wire_local lcl;
	uint8_t qpn[3];
	uint8_t rmb_rkey[4];
	uint8_t rmbe_idx;
	uint8_t rmbe_alert_token[4];
	uint8_t size_mtu;		/* rmbe_size:4 | qp_mtu:4 (MSB first) */
	/*
	 * Reserved (RFC 7609, Linux: sent as 0, not read); af_smc's own
	 * SMC_CLC_R_GROWS bit: the sender's receive rings grow, its CDCs
	 * carry the offers (smc_cdc_layout.h). Used only when both ends
	 * set it, so a Linux peer never sees an offer.
	 */
	uint8_t reserved;
	uint8_t rmb_dma_addr[8];
	uint8_t reserved2;
	uint8_t psn[3];
};

#define SMC_CLC_R_GROWS		0x01

/* SMC-D part of accept/confirm, 24 bytes. */
struct smc_clc_wire_smcd {
	uint8_t gid[8];			/* sender ISM GID */
	uint8_t token[8];		/* DMB token */
	uint8_t dmbe_idx;
	uint8_t dmbe_size;		/* dmbe_size:4 | reserved:4 (MSB first) */
	uint8_t reserved[2];
	uint8_t linkid[4];		/* link group id */
};

/* Accept/confirm SMC-R v1: 68 bytes. */
struct smc_clc_wire_accept_smcr_v1 {
	struct smc_clc_wire_hdr hdr;
	struct smc_clc_wire_smcr r;
	struct smc_clc_wire_trl trl;
};

/* Accept/confirm SMC-D v1: 48 bytes. */
struct smc_clc_wire_accept_smcd_v1 {
	struct smc_clc_wire_hdr hdr;
	struct smc_clc_wire_smcd d;
	uint8_t reserved[12];
	struct smc_clc_wire_trl trl;
};

/* Accept/confirm SMC-R v2 without trailer: 104 bytes (108 with trailer). */
struct smc_clc_wire_accept_smcr_v2 {
	struct smc_clc_wire_hdr hdr;
	struct smc_clc_wire_smcr r;
	uint8_t eid[32];		/* negotiated EID */
	uint8_t reserved[8];
};

/* Accept/confirm SMC-D v2 without trailer: 74 bytes (78 with trailer). */
struct smc_clc_wire_accept_smcd_v2 {
	struct smc_clc_wire_hdr hdr;
	struct smc_clc_wire_smcd d;
	uint8_t chid[2];		/* ISM CHID of the chosen device */
	uint8_t eid[32];		/* negotiated EID */
	uint8_t gid_ext[8];		/* emulated device: GID bits 64..127 */
};

/* First contact extension (v2, first contact flag set), 36 bytes. */
struct smc_clc_wire_fce {
	uint8_t flags;			/* v2_direct:1 | reserved:7 (MSB first) */
	uint8_t os_release;		/* os_type:4 | release:4 (MSB first) */
	uint8_t feature_mask[2];	/* reserved in v2.0 */
	uint8_t hostname[32];		/* blank padded, not NUL terminated */
};

/*
 * 16 bytes after the first contact extension. Linux 6.1 sends them (zeroed)
 * in every SMC-Rv2 first-contact accept/confirm; SMC v2.1 gave them meaning
 * and also sends them for SMC-Dv2 when both sides are release 1 or later.
 */
struct smc_clc_wire_fce_v2x {
	uint8_t max_conns;
	uint8_t max_links;
	uint8_t reserved[2];
	uint8_t vendor_exp_options[4];
	uint8_t reserved2[8];
};

/* SMC-Rv2 first-contact confirm: GID list head, 4 bytes + 16 per GID. */
struct smc_clc_wire_fce_gid_list {
	uint8_t gid_cnt;
	uint8_t reserved[3];
};

/* Decline v1: 28 bytes. */
struct smc_clc_wire_decline {
	struct smc_clc_wire_hdr hdr;
	uint8_t peer_id[8];
	uint8_t diagnosis[4];		/* decline/fallback reason code */
	uint8_t os_type;		/* os_type:4 | reserved:4 (MSB first), v2 */
	uint8_t reserved[3];
	struct smc_clc_wire_trl trl;
};

/* Decline v2: 44 bytes. */
struct smc_clc_wire_decline_v2 {
	struct smc_clc_wire_hdr hdr;
	uint8_t peer_id[8];
	uint8_t diagnosis[4];
	uint8_t os_type;
	uint8_t reserved[3];
	uint8_t diagnosis_v2[4][4];	/* further reason codes */
	struct smc_clc_wire_trl trl;
};

/* Bits of smc_clc_wire_hdr.flags. */
#define SMC_CLC_HDR_VERSION_SHIFT	4
#define SMC_CLC_HDR_TYPEV2_SHIFT	2
#define SMC_CLC_HDR_TYPEV2_MASK		0x0c
#define SMC_CLC_HDR_TYPEV1_MASK		0x03
#define SMC_CLC_HDR_FIRST_CONTACT	0x08	/* typev2 bit 1 */

/* Bits of smc_clc_wire_v2_ext.flag. */
#define SMC_CLC_V2EXT_RELEASE_SHIFT	4
#define SMC_CLC_V2EXT_SEID		0x01

/* Bits of the first contact extension. */
#define SMC_CLC_FCE_V2_DIRECT		0x80
#define SMC_CLC_FCE_OS_SHIFT		4
#define SMC_CLC_FCE_RELEASE_MASK	0x0f

/* Bits of SMC-R size_mtu, SMC-D dmbe_size and decline os_type. */
#define SMC_CLC_SIZE_SHIFT		4
#define SMC_CLC_MTU_MASK		0x0f
#define SMC_CLC_DECL_OS_SHIFT		4

#define SMC_CLC_SZ(t) (sizeof(struct t))
#define SMC_CLC_OFF(t, m) (offsetof(struct t, m))

SMC_WIRE_STATIC_ASSERT(SMC_CLC_SZ(smc_clc_wire_hdr) == 8, "CLC header");
SMC_WIRE_STATIC_ASSERT(SMC_CLC_SZ(smc_clc_wire_trl) == 4, "CLC trailer");
SMC_WIRE_STATIC_ASSERT(SMC_CLC_SZ(smc_clc_wire_local) == 30, "CLC local");
SMC_WIRE_STATIC_ASSERT(SMC_CLC_SZ(smc_clc_wire_proposal) == 40, "proposal");
SMC_WIRE_STATIC_ASSERT(SMC_CLC_OFF(smc_clc_wire_proposal, iparea_offset) == 38,
		       "proposal iparea_offset");
SMC_WIRE_STATIC_ASSERT(SMC_CLC_SZ(smc_clc_wire_proposal_smcd) == 40,
		       "proposal SMC-D area");
SMC_WIRE_STATIC_ASSERT(SMC_CLC_OFF(smc_clc_wire_proposal_smcd, v2_ext_offset)
		       == 10, "v2_ext_offset");
SMC_WIRE_STATIC_ASSERT(SMC_CLC_SZ(smc_clc_wire_proposal_prefix) == 8,
		       "proposal prefix");
SMC_WIRE_STATIC_ASSERT(SMC_CLC_SZ(smc_clc_wire_ipv6_prefix) == 17,
		       "IPv6 prefix");
SMC_WIRE_STATIC_ASSERT(SMC_CLC_SZ(smc_clc_wire_v2_ext) == 40, "v2 extension");
SMC_WIRE_STATIC_ASSERT(SMC_CLC_OFF(smc_clc_wire_v2_ext, smcd_v2_ext_offset)
		       == 6, "smcd_v2_ext_offset");
SMC_WIRE_STATIC_ASSERT(SMC_CLC_OFF(smc_clc_wire_v2_ext, roce_gid) == 8,
		       "roce gid");
SMC_WIRE_STATIC_ASSERT(SMC_CLC_SZ(smc_clc_wire_smcd_v2_ext) == 48,
		       "SMC-Dv2 extension");
SMC_WIRE_STATIC_ASSERT(SMC_CLC_SZ(smc_clc_wire_gid_chid) == 10, "GID/CHID");
SMC_WIRE_STATIC_ASSERT(SMC_CLC_SZ(smc_clc_wire_smcr) == 56, "SMC-R part");
SMC_WIRE_STATIC_ASSERT(SMC_CLC_SZ(smc_clc_wire_smcd) == 24, "SMC-D part");
SMC_WIRE_STATIC_ASSERT(SMC_CLC_SZ(smc_clc_wire_accept_smcr_v1) == 68,
		       "SMC-R v1 accept/confirm");
SMC_WIRE_STATIC_ASSERT(SMC_CLC_OFF(smc_clc_wire_accept_smcr_v1, r.qpn) == 38,
		       "SMC-R qpn offset");
SMC_WIRE_STATIC_ASSERT(SMC_CLC_OFF(smc_clc_wire_accept_smcr_v1, r.psn) == 61,
		       "SMC-R psn offset");
SMC_WIRE_STATIC_ASSERT(SMC_CLC_SZ(smc_clc_wire_accept_smcd_v1) == 48,
		       "SMC-D v1 accept/confirm");
SMC_WIRE_STATIC_ASSERT(SMC_CLC_SZ(smc_clc_wire_accept_smcr_v2) + 4 == 108,
		       "SMC-R v2 accept/confirm");
SMC_WIRE_STATIC_ASSERT(SMC_CLC_SZ(smc_clc_wire_accept_smcd_v2) + 4 == 78,
		       "SMC-D v2 accept/confirm");
SMC_WIRE_STATIC_ASSERT(SMC_CLC_SZ(smc_clc_wire_fce) == 36, "first contact ext");
SMC_WIRE_STATIC_ASSERT(SMC_CLC_SZ(smc_clc_wire_fce_v2x) == 16, "fce v2x");
SMC_WIRE_STATIC_ASSERT(SMC_CLC_SZ(smc_clc_wire_fce_gid_list) == 4, "gid list");
SMC_WIRE_STATIC_ASSERT(SMC_CLC_SZ(smc_clc_wire_decline) == 28, "decline v1");
SMC_WIRE_STATIC_ASSERT(SMC_CLC_OFF(smc_clc_wire_decline, diagnosis) == 16,
		       "decline diagnosis");
SMC_WIRE_STATIC_ASSERT(SMC_CLC_SZ(smc_clc_wire_decline_v2) == 44, "decline v2");

#endif /* SMC_CLC_LAYOUT_H */
