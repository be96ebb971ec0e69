/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SMC CLC messages: typed host-order structs and their encoders/decoders.
 *
 * The decoder takes the bytes of exactly one CLC message (the header's length
 * field tells a stream reader how many; see smc_clc_decode_hdr()) and checks
 * every length, offset and count against what was received before it reads a
 * byte. The encoders write into a caller buffer and never past its capacity.
 * Neither side allocates, keeps state or calls anything but memcpy/memset/
 * memcmp, so the same object code works in the kernel and in host programs.
 *
 * The on-wire byte layouts are in smc_clc_layout.h; nothing in this header
 * depends on them.
 */
#ifndef SMC_CLC_H
#define SMC_CLC_H

#include "smc_wire_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Message types (header byte 4). */
#define SMC_CLC_PROPOSAL	0x01
#define SMC_CLC_ACCEPT		0x02
#define SMC_CLC_CONFIRM		0x03
#define SMC_CLC_DECLINE		0x04

/* Protocol versions (high nibble of header byte 7). */
#define SMC_CLC_V1		1
#define SMC_CLC_V2		2

/* SMC types (typev1 / typev2 fields of the header). */
#define SMC_CLC_TYPE_R		0	/* SMC-R only */
#define SMC_CLC_TYPE_D		1	/* SMC-D only */
#define SMC_CLC_TYPE_N		2	/* neither */
#define SMC_CLC_TYPE_B		3	/* both */

/* typev2 bit: "first contact" (accept/confirm), "out of sync" (decline). */
#define SMC_CLC_FIRST_CONTACT	0x02
#define SMC_CLC_OUT_OF_SYNC	0x02

/* Operating system types of the first contact extension and decline v2. */
#define SMC_CLC_OS_ZOS		1
#define SMC_CLC_OS_LINUX	2
#define SMC_CLC_OS_AIX		3
#define SMC_CLC_OS_UNKNOWN	15

/* SMC release numbers (v2 extension flag, first contact extension). */
#define SMC_CLC_RELEASE_0	0	/* SMC v2.0, what Linux 6.1 sends */
#define SMC_CLC_RELEASE_1	1	/* SMC v2.1 */

/* Sizes of the fixed-size fields. */
#define SMC_CLC_PEER_ID_LEN	8
#define SMC_CLC_GID_LEN		16
#define SMC_CLC_MAC_LEN		6
#define SMC_CLC_EID_LEN		32
#define SMC_CLC_HOSTNAME_LEN	32
#define SMC_CLC_EYECATCHER_LEN	4
#define SMC_CLC_HDR_LEN		8
#define SMC_CLC_TRL_LEN		4

/*
 * Limits on variable parts. They match Linux 6.1 (SMC_CLC_MAX_V6_PREFIX,
 * SMC_CLC_MAX_UEID, SMC_MAX_ISM_DEVS); a message claiming more is refused
 * with SMC_CLC_ERR_BAD_COUNT. SMC_CLC_MAX_GIDS bounds the SMC-Rv2 confirm GID
 * list (Linux 6.1 sends at most 2).
 */
#define SMC_CLC_MAX_V6_PREFIX	8
#define SMC_CLC_MAX_UEID	8
#define SMC_CLC_MAX_ISM_GIDS	8
#define SMC_CLC_MAX_GIDS	8

/* Exact lengths of the fixed-size messages (Linux 6.1 names in brackets). */
#define SMC_CLC_ACC_CONF_LEN_SMCR_V1	68	/* [SMCR_CLC_ACCEPT_CONFIRM_LEN] */
#define SMC_CLC_ACC_CONF_LEN_SMCD_V1	48	/* [SMCD_CLC_ACCEPT_CONFIRM_LEN] */
#define SMC_CLC_ACC_CONF_LEN_SMCR_V2	108	/* [..._LEN_V2], no first contact */
#define SMC_CLC_ACC_CONF_LEN_SMCD_V2	78	/* [..._LEN_V2], no first contact */
#define SMC_CLC_FCE_LEN			36
#define SMC_CLC_FCE_V2X_LEN		16
#define SMC_CLC_DECLINE_LEN_V1		28
#define SMC_CLC_DECLINE_LEN_V2		44
#define SMC_CLC_DECL_DIAG_V2_CNT	4

/* The largest message this code will decode or encode (a full proposal). */
#define SMC_CLC_MAX_MSG_LEN	(40 + 40 + 8 + 17 * SMC_CLC_MAX_V6_PREFIX + \
				 40 + SMC_CLC_EID_LEN * SMC_CLC_MAX_UEID + \
				 48 + 10 * SMC_CLC_MAX_ISM_GIDS + 4)

/* Which EBCDIC eyecatcher a header or trailer carries. */
enum smc_clc_eyecatcher {
	SMC_CLC_EC_SMCR = 0,	/* E2 D4 C3 D9 "SMCR" */
	SMC_CLC_EC_SMCD = 1,	/* E2 D4 C3 C4 "SMCD" */
};

extern const uint8_t smc_clc_eyecatcher_smcr[SMC_CLC_EYECATCHER_LEN];
extern const uint8_t smc_clc_eyecatcher_smcd[SMC_CLC_EYECATCHER_LEN];

/* Results. 0 is success; every failure has its own value. */
enum smc_clc_err {
	SMC_CLC_OK = 0,
	SMC_CLC_ERR_TRUNCATED,		/* fewer bytes than the header/length needs */
	SMC_CLC_ERR_TRAILING,		/* more bytes than the header length */
	SMC_CLC_ERR_BAD_EYECATCHER,	/* header eyecatcher is not SMCR/SMCD */
	SMC_CLC_ERR_BAD_TRAILER,	/* trailer eyecatcher is not SMCR/SMCD */
	SMC_CLC_ERR_BAD_MSG_TYPE,	/* type byte is not 1..4 (or not the expected one) */
	SMC_CLC_ERR_BAD_VERSION,	/* version is not 1 or 2 */
	SMC_CLC_ERR_BAD_SMC_TYPE,	/* typev1/typev2 not allowed for this message */
	SMC_CLC_ERR_BAD_LENGTH,		/* header length does not fit the content */
	SMC_CLC_ERR_BAD_OFFSET,		/* an offset field points to the wrong place */
	SMC_CLC_ERR_BAD_COUNT,		/* a count exceeds its limit */
	SMC_CLC_ERR_NOSPACE,		/* encode: output buffer too small */
	SMC_CLC_ERR_INVAL,		/* bad arguments or inconsistent struct */
	SMC_CLC_ERR__MAX
};

/*
 * Header as decoded. For encoding, type and length are computed by the
 * encoder and the fields marked "in" are taken from the caller.
 */
struct smc_clc_hdr {
	uint8_t type;		/* SMC_CLC_PROPOSAL.. */
	uint8_t version;	/* in: SMC_CLC_V1 or SMC_CLC_V2 */
	uint8_t typev1;		/* in: SMC_CLC_TYPE_*; 0 in declines */
	/*
	 * in: v2 proposal: SMCv2 type; accept/confirm: SMC_CLC_FIRST_CONTACT;
	 * decline: SMC_CLC_OUT_OF_SYNC (2-bit raw field)
	 */
	uint8_t typev2;
	uint16_t length;	/* total bytes incl. header and trailer */
	uint8_t eyecatcher;	/* in: enum smc_clc_eyecatcher of the header */
	uint8_t trl_eyecatcher;	/* in: enum smc_clc_eyecatcher of the trailer */
};

struct smc_clc_ipv6_prefix {
	uint8_t prefix[16];
	uint8_t prefix_len;
};

struct smc_clc_ism_dev {
	uint64_t gid;
	uint16_t chid;
};

/*
 * Proposal. Which parts exist follows from the header:
 *  - v1: typev1 R, D or B. The SMC-D area (ism_gid) exists iff v1_smcd_area,
 *    which must be set when SMC-D is offered (RFC 7609 and Linux put an SMC-R
 *    only proposal's IP area right after the head; Linux 6.1 also accepts the
 *    40-byte area there, and Wireshark 4.0 only dissects that form). The IP
 *    prefix area always exists.
 *  - v2: the SMC-D area (ism_gid, ism_chid) always exists; the IP prefix
 *    area iff typev1 != N; the v2 extension iff typev2 != N; the SMC-Dv2
 *    extension iff typev2 offers SMC-D (D or B).
 * Fields of absent parts are zero after decoding and ignored by the encoder.
 */
struct smc_clc_proposal {
	struct smc_clc_hdr hdr;
	uint8_t peer_id[SMC_CLC_PEER_ID_LEN];
	uint8_t gid[SMC_CLC_GID_LEN];
	uint8_t mac[SMC_CLC_MAC_LEN];
	/* SMC-D area */
	bool v1_smcd_area;		/* v1 only: the area is present */
	uint64_t ism_gid;
	uint16_t ism_chid;		/* v2 only */
	/* IP prefix area */
	uint32_t ipv4_subnet;		/* host-order value of the wire bytes */
	uint8_t ipv4_prefix_len;
	uint8_t ipv6_prefix_cnt;
	struct smc_clc_ipv6_prefix ipv6_prefix[SMC_CLC_MAX_V6_PREFIX];
	/* v2 extension */
	uint8_t release;		/* SMC_CLC_RELEASE_* */
	bool seid;			/* system EID indicated */
	uint8_t roce_gid[SMC_CLC_GID_LEN];	/* SMC-Rv2 GID */
	uint8_t max_conns;		/* v2.1, 0 in v2.0 */
	uint8_t max_links;		/* v2.1, 0 in v2.0 */
	uint16_t feature_mask;		/* v2.1, 0 in v2.0 */
	uint8_t eid_cnt;
	uint8_t user_eid[SMC_CLC_MAX_UEID][SMC_CLC_EID_LEN];
	/* SMC-Dv2 extension */
	uint8_t system_eid[SMC_CLC_EID_LEN];
	uint8_t ism_gid_cnt;
	struct smc_clc_ism_dev ism_dev[SMC_CLC_MAX_ISM_GIDS];
};

/* First contact extension of v2 accept/confirm. */
struct smc_clc_fce {
	bool v2_direct;			/* SMC-Rv2: peer reachable without gateway */
	uint8_t os_type;		/* SMC_CLC_OS_* */
	uint8_t release;		/* SMC_CLC_RELEASE_* */
	uint16_t feature_mask;		/* reserved in v2.0 */
	uint8_t hostname[SMC_CLC_HOSTNAME_LEN];	/* raw, blank padded */
	/*
	 * The 16 bytes after the extension: always present for SMC-R; for
	 * SMC-D only when has_v2x (v2.1 peers). Zero from Linux 6.1.
	 */
	bool has_v2x;
	uint8_t max_conns;
	uint8_t max_links;
	uint32_t vendor_exp_options;
};

/*
 * Accept or confirm (hdr.type says which). hdr.typev1 is SMC_CLC_TYPE_R or
 * SMC_CLC_TYPE_D and selects r or d. In v2 with SMC_CLC_FIRST_CONTACT in
 * hdr.typev2, fce is present; an SMC-Rv2 first-contact confirm also carries
 * the GID list.
 */
struct smc_clc_accept_confirm {
	struct smc_clc_hdr hdr;
	struct {
		uint8_t peer_id[SMC_CLC_PEER_ID_LEN];
		uint8_t gid[SMC_CLC_GID_LEN];
		uint8_t mac[SMC_CLC_MAC_LEN];
		uint32_t qpn;			/* 24 bits */
		uint32_t rmb_rkey;
		uint8_t rmbe_idx;
		uint32_t rmbe_alert_token;
		uint8_t rmbe_size;		/* 4 bits, compressed notation */
		uint8_t qp_mtu;			/* 4 bits, IB MTU enum */
		uint64_t rmb_dma_addr;
		uint32_t psn;			/* 24 bits */
		bool grows;	/* af_smc's own: SMC_CLC_R_GROWS (layout) */
	} r;
	struct {
		uint64_t gid;
		uint64_t token;
		uint8_t dmbe_idx;
		uint8_t dmbe_size;		/* 4 bits, compressed notation */
		uint32_t linkid;
		uint16_t chid;			/* v2 only */
		/*
		 * v2 only: the sender GID's second half when chid is an
		 * emulated device's (smc_clc_chid_emulated()); 0 otherwise.
		 */
		uint64_t gid_ext;
	} d;
	uint8_t eid[SMC_CLC_EID_LEN];		/* v2: negotiated EID */
	struct smc_clc_fce fce;
	uint8_t gid_cnt;			/* SMC-Rv2 first-contact confirm */
	uint8_t gid_list[SMC_CLC_MAX_GIDS][SMC_CLC_GID_LEN];
};

/* Decline. hdr.typev2 & SMC_CLC_OUT_OF_SYNC is the out-of-sync flag. */
struct smc_clc_decline {
	struct smc_clc_hdr hdr;
	uint8_t peer_id[SMC_CLC_PEER_ID_LEN];
	uint32_t diagnosis;			/* SMC_CLC_DECL_* (smc_decline.h) */
	uint8_t os_type;			/* v2 only */
	uint32_t diagnosis_v2[SMC_CLC_DECL_DIAG_V2_CNT];	/* v2 only */
};

/* Any CLC message; hdr.type selects the member. */
struct smc_clc_msg {
	union {
		struct smc_clc_hdr hdr;
		struct smc_clc_proposal proposal;
		struct smc_clc_accept_confirm accept_confirm;
		struct smc_clc_decline decline;
	};
};

static inline bool smc_clc_smcr_indicated(uint8_t smc_type)
{
	return smc_type == SMC_CLC_TYPE_R || smc_type == SMC_CLC_TYPE_B;
}

static inline bool smc_clc_smcd_indicated(uint8_t smc_type)
{
	return smc_type == SMC_CLC_TYPE_D || smc_type == SMC_CLC_TYPE_B;
}

static inline bool smc_clc_first_contact(const struct smc_clc_hdr *hdr)
{
	return hdr->typev2 & SMC_CLC_FIRST_CONTACT;
}

/*
 * SMCv2.1's emulated ISM devices (virtual ones: software, or between VMs)
 * have CHIDs 0xFF00..0xFFFF and a GID of 128 bits. Where a message has room
 * for 64, the rest goes separately: in the SMC-Dv2 extension's GID list a
 * second entry with the same CHID (smc_clc_ism_add/_next), in a v2 SMC-D
 * Accept or Confirm the gid_ext field. Other devices' GIDs have 64 bits.
 */
static inline bool smc_clc_chid_emulated(uint16_t chid)
{
	return (chid & 0xff00) == 0xff00;
}

/* One device of a Proposal's SMC-Dv2 GID list, its GID whole. */
struct smc_clc_ism_gid {
	uint64_t gid;
	uint64_t gid_ext;	/* 0 unless smc_clc_chid_emulated(chid) */
	uint16_t chid;
};

/*
 * Append a device to p's SMC-Dv2 GID list: one entry, or two for an
 * emulated device. False, and p unchanged, when the list has no room.
 */
bool smc_clc_ism_add(struct smc_clc_proposal *p, const struct smc_clc_ism_gid *d);

/*
 * The device at entry *pos of p's SMC-Dv2 GID list, *pos moved past its
 * entries; false after the last. An emulated CHID whose next entry does not
 * repeat it names no device: that entry alone is skipped (as Linux does).
 */
bool smc_clc_ism_next(const struct smc_clc_proposal *p, unsigned int *pos,
		      struct smc_clc_ism_gid *d);

/*
 * Decode and check only the 8-byte header: eyecatcher, type, version, and that
 * the length is within the bounds for the type. A stream reader peeks at the
 * header with this, then reads hdr->length bytes and calls smc_clc_decode().
 */
enum smc_clc_err smc_clc_decode_hdr(const void *buf, size_t len,
				    struct smc_clc_hdr *hdr);

/*
 * Decode one complete message. len must equal the header length (fewer:
 * SMC_CLC_ERR_TRUNCATED, more: SMC_CLC_ERR_TRAILING). *msg is fully
 * overwritten on every return; on error its contents are unspecified.
 */
enum smc_clc_err smc_clc_decode(const void *buf, size_t len,
				struct smc_clc_msg *msg);
enum smc_clc_err smc_clc_decode_proposal(const void *buf, size_t len,
					 struct smc_clc_proposal *p);
/* Accepts either SMC_CLC_ACCEPT or SMC_CLC_CONFIRM. */
enum smc_clc_err smc_clc_decode_accept_confirm(const void *buf, size_t len,
					       struct smc_clc_accept_confirm *ac);
enum smc_clc_err smc_clc_decode_decline(const void *buf, size_t len,
					struct smc_clc_decline *d);

/*
 * Encode into buf (capacity cap). On success *out_len is the message length.
 * When cap is too small the result is SMC_CLC_ERR_NOSPACE, *out_len is the
 * length needed and nothing is written, so (NULL, 0) asks for the size.
 * Inconsistent input (unknown version or SMC type, counts over the limits)
 * gives the same error value the decoder would give for such a message.
 */
enum smc_clc_err smc_clc_encode(const struct smc_clc_msg *msg, void *buf,
				size_t cap, size_t *out_len);
enum smc_clc_err smc_clc_encode_proposal(const struct smc_clc_proposal *p,
					 void *buf, size_t cap, size_t *out_len);
/* hdr.type must be SMC_CLC_ACCEPT or SMC_CLC_CONFIRM. */
enum smc_clc_err
smc_clc_encode_accept_confirm(const struct smc_clc_accept_confirm *ac,
			      void *buf, size_t cap, size_t *out_len);
enum smc_clc_err smc_clc_encode_decline(const struct smc_clc_decline *d,
					void *buf, size_t cap, size_t *out_len);

/* Short English text for an error value (never NULL). */
const char *smc_clc_err_text(enum smc_clc_err err);

#ifdef __cplusplus
}
#endif

#endif /* SMC_CLC_H */
