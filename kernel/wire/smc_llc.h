/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SMC-R LLC (Link Layer Control) messages, version 1: the typed host-order
 * struct and its encoder/decoder. Every v1 LLC message is 44 bytes, sent as
 * one RDMA SEND on a link of the link group (RFC 7609 section 3.4).
 *
 * Same contract as smc_clc.h: the decoder takes exactly one message and
 * checks every count before it uses it; the encoder never writes past the
 * capacity it is given; nothing allocates or keeps state. Layouts:
 * smc_llc_layout.h.
 *
 * SMC-Rv2 link groups send the same messages with a v2 header: version 2
 * in the high nibble of byte 0 (CONFIRM LINK is 0x21), and bytes 1..2 a
 * 16-bit length (44..8192) where v1 has its length byte and the ADD LINK
 * reject reason. A v2 message may be longer than 44 bytes (ADD LINK's v2
 * extension, DELETE RKEY's further rkeys, REQUEST ADD LINK).
 * smc_llc_decode()/smc_llc_encode() read and write the first 44 bytes,
 * whose layout is v1's, for CONFIRM LINK, ADD LINK, DELETE LINK, CONFIRM
 * RKEY, TEST LINK and DELETE RKEY; they refuse REQUEST ADD LINK (0x25),
 * whose body differs, and the types v2 dropped (the CONTINUATIONs) with
 * SMC_LLC_ERR_BAD_VERSION. The ADD LINK v2 extension after the first 44
 * bytes has its own decoder and encoder, smc_llc_add_ext_*() below: v2
 * has no ADD LINK CONTINUATION, so the rkeys travel there.
 *
 * Byte order of the v2 length: Linux 6.1 stores it in host order (little
 * endian on x86, big endian on s390); Wireshark 4.0 reads it big endian.
 * We send it big endian (network order, what the dissector checks) and
 * take either order on receipt (see smc_llc_decode()).
 */
#ifndef SMC_LLC_H
#define SMC_LLC_H

#include "smc_wire_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Message types (header byte 0, version 1). */
#define SMC_LLC_CONFIRM_LINK		0x01
#define SMC_LLC_ADD_LINK		0x02
#define SMC_LLC_ADD_LINK_CONT		0x03
#define SMC_LLC_DELETE_LINK		0x04
#define SMC_LLC_CONFIRM_RKEY		0x06
#define SMC_LLC_TEST_LINK		0x07
#define SMC_LLC_CONFIRM_RKEY_CONT	0x08
#define SMC_LLC_DELETE_RKEY		0x09

#define SMC_LLC_MSG_LEN			44
#define SMC_LLC_V2_MAX_LEN		8192	/* v2 length field's upper bound */

/* Sizes and limits of the fixed parts. */
#define SMC_LLC_MAC_LEN			6
#define SMC_LLC_GID_LEN			16
#define SMC_LLC_LGR_ID_LEN		4	/* link_uid: link group id */
#define SMC_LLC_TEST_DATA_LEN		16
#define SMC_LLC_ADD_CONT_RKEYS		2	/* rkey pairs per ADD LINK CONT */
#define SMC_LLC_RKEYS_PER_MSG		3	/* rtokens per CONFIRM RKEY (CONT) */
#define SMC_LLC_DEL_RKEY_MAX		8	/* rkeys per DELETE RKEY */

/* DELETE LINK reason codes (Linux 6.1 smc_llc.h). */
#define SMC_LLC_DEL_LOST_PATH		0x00010000
#define SMC_LLC_DEL_OP_INIT_TERM	0x00020000
#define SMC_LLC_DEL_PROG_INIT_TERM	0x00030000
#define SMC_LLC_DEL_PROT_VIOL		0x00040000
#define SMC_LLC_DEL_NO_ASYM_NEEDED	0x00050000
#define SMC_LLC_DEL_NOLNK		0x00100000	/* response: unknown link */
#define SMC_LLC_DEL_NOLGR		0x00200000	/* response: unknown group */

/* ADD LINK reject reason (header byte 2, low nibble). */
#define SMC_LLC_REJ_RSN_NO_ALT_PATH	1

/* Results. 0 is success; every failure has its own value. */
enum smc_llc_err {
	SMC_LLC_OK = 0,
	SMC_LLC_ERR_TRUNCATED,		/* fewer than 44 bytes (extension: 28) */
	SMC_LLC_ERR_TRAILING,		/* more than 44 bytes */
	SMC_LLC_ERR_BAD_TYPE,		/* not a v1 LLC type this code knows */
	SMC_LLC_ERR_BAD_VERSION,	/* v2 header on a type read in v1 only */
	SMC_LLC_ERR_BAD_LENGTH,		/* 44 (v1), 44..8192 (v2), 28 + 16 n (ext.) */
	SMC_LLC_ERR_BAD_COUNT,		/* a count exceeds what fits the message */
	SMC_LLC_ERR_NOSPACE,		/* encode: buffer too small or NULL */
	SMC_LLC_ERR_INVAL,		/* NULL message, or a field too wide */
	SMC_LLC_ERR__MAX
};

/* An RMB token: rkey and virtual address of an RMB on one link. */
struct smc_llc_rtoken {
	uint8_t link_id;
	uint32_t rkey;
	uint64_t vaddr;
};

/* One ADD LINK CONTINUATION entry: an RMB's rkey on the old and new link. */
struct smc_llc_add_cont_rt {
	uint32_t rkey;
	uint32_t rkey_new;
	uint64_t vaddr_new;
};

struct smc_llc_confirm_link {
	uint8_t sender_mac[SMC_LLC_MAC_LEN];
	uint8_t sender_gid[SMC_LLC_GID_LEN];
	uint32_t sender_qpn;		/* 24 bits */
	uint8_t link_num;
	uint8_t link_uid[SMC_LLC_LGR_ID_LEN];
	uint8_t max_links;
	uint8_t max_conns;		/* SMC v2.1 groups; 0 before */
	bool no_rmbe_eyec;		/* SMC_LLC_FLAG_NO_RMBE_EYEC, Linux sets it */
};

struct smc_llc_add_link {
	uint8_t sender_mac[SMC_LLC_MAC_LEN];
	uint8_t sender_gid[SMC_LLC_GID_LEN];
	uint32_t sender_qpn;		/* 24 bits */
	uint8_t link_num;
	uint8_t qp_mtu;			/* 4 bits, IB MTU enum */
	uint32_t initial_psn;		/* 24 bits */
	bool rejected;			/* response: SMC_LLC_FLAG_ADD_LNK_REJ */
	uint8_t reject_reason;		/* 4 bits, SMC_LLC_REJ_RSN_* */
};

/*
 * num_rkeys counts the rkeys still to be sent, this message's included, so
 * it may exceed 2; the message carries min(num_rkeys, 2) entries of rt[].
 */
struct smc_llc_add_link_cont {
	uint8_t link_num;
	uint8_t num_rkeys;
	struct smc_llc_add_cont_rt rt[SMC_LLC_ADD_CONT_RKEYS];
};

struct smc_llc_delete_link {
	uint8_t link_num;		/* 0 with all */
	uint32_t reason;		/* SMC_LLC_DEL_* */
	bool all;			/* SMC_LLC_FLAG_DEL_LINK_ALL */
	bool orderly;			/* SMC_LLC_FLAG_DEL_LINK_ORDERLY */
};

/*
 * rtoken[0] is the RMB on the link the message travels on (its link_id is
 * not on the wire: that byte carries num_rkeys); rtoken[1..num_rkeys] are
 * the same RMB on the other links. num_rkeys is at most 2.
 */
struct smc_llc_confirm_rkey {
	uint8_t num_rkeys;
	struct smc_llc_rtoken rtoken[SMC_LLC_RKEYS_PER_MSG];
	bool negative;			/* response: SMC_LLC_FLAG_RKEY_NEG */
	bool retry;			/* response: SMC_LLC_FLAG_RKEY_RETRY */
};

/* The message carries min(num_rkeys, 3) entries of rtoken[]. */
struct smc_llc_confirm_rkey_cont {
	uint8_t num_rkeys;
	struct smc_llc_rtoken rtoken[SMC_LLC_RKEYS_PER_MSG];
	bool negative;
	bool retry;
};

/*
 * num_rkeys is at most 8; rkey[num_rkeys..7] are not sent. err_mask is
 * byte 5 as it is on the wire: in a v1 response a bit mask (0x80 >> i =
 * rkey[i] failed), in a v2 response the number of rkeys that were not
 * found (Linux's num_inval_rkeys). The codec does not interpret it.
 */
struct smc_llc_delete_rkey {
	uint8_t num_rkeys;
	uint8_t err_mask;		/* response: v1 mask, v2 count; see above */
	uint32_t rkey[SMC_LLC_DEL_RKEY_MAX];
	bool negative;			/* response: SMC_LLC_FLAG_RKEY_NEG */
};

struct smc_llc_test_link {
	uint8_t user_data[SMC_LLC_TEST_DATA_LEN];
};

/* Any LLC message; type selects the member. */
struct smc_llc_msg {
	uint8_t type;			/* SMC_LLC_CONFIRM_LINK.., without version */
	bool response;			/* SMC_LLC_FLAG_RESP */
	/*
	 * v2 header (SMC-Rv2 link group). v2_len: the header's length, the
	 * whole message's size. The encoder writes 44 bytes and puts 44 in
	 * the header for v2_len 0; an ADD LINK may give 44..8192, the size
	 * with the v2 extension the caller appends. An ADD LINK reject
	 * reason has no place in a v2 header.
	 */
	bool v2;
	uint16_t v2_len;
	union {
		struct smc_llc_confirm_link confirm_link;
		struct smc_llc_add_link add_link;
		struct smc_llc_add_link_cont add_link_cont;
		struct smc_llc_delete_link delete_link;
		struct smc_llc_confirm_rkey confirm_rkey;
		struct smc_llc_confirm_rkey_cont confirm_rkey_cont;
		struct smc_llc_delete_rkey delete_rkey;
		struct smc_llc_test_link test_link;
	};
};

/*
 * true for the v1 types above. 0x05 (REQUEST ADD LINK) is only used in its
 * SMC-Rv2 form 0x25; a CDC message has type 0xFE.
 */
static inline bool smc_llc_type_known(uint8_t type)
{
	return (type >= SMC_LLC_CONFIRM_LINK && type <= SMC_LLC_DELETE_RKEY &&
		type != 0x05);
}

/* true for the types this code reads and writes with a v2 header. */
static inline bool smc_llc_type_known_v2(uint8_t type)
{
	return type == SMC_LLC_CONFIRM_LINK || type == SMC_LLC_ADD_LINK ||
	       type == SMC_LLC_DELETE_LINK || type == SMC_LLC_CONFIRM_RKEY ||
	       type == SMC_LLC_TEST_LINK || type == SMC_LLC_DELETE_RKEY;
}

/*
 * Decode one message. v1: len must be 44. v2: buf holds at least the
 * first 44 bytes (len >= 44) and no more than the header's length says
 * (len <= v2_len; the receiver may keep only the first 44 bytes of a
 * longer message); the length is read big endian, and if that is not in
 * 44..8192, little endian (a Linux peer on x86). *m is zeroed first on
 * every call with a non-NULL m, so members other than the one of m->type, entries
 * past a count, and everything on error are zero. Reserved bytes and flag
 * bits that do not belong to the type are ignored, as Linux 6.1 does.
 */
enum smc_llc_err smc_llc_decode(const void *buf, size_t len,
				struct smc_llc_msg *m);

/*
 * Encode into buf (with a v2 header when m->v2; types as
 * smc_llc_type_known_v2(), else BAD_VERSION): writes exactly 44 bytes,
 * reserved parts zero, or, if cap is smaller or buf is NULL, nothing
 * (SMC_LLC_ERR_NOSPACE). v2 header: length m->v2_len big endian, 44 for
 * v2_len 0; a v2_len other than 0 or 44 is INVAL, except 44..8192 on an
 * ADD LINK, whose v2 extension the caller writes after these 44 bytes
 * (smc_llc_add_ext_encode()); a v2 ADD LINK with a reject reason is INVAL.
 * Values the wire cannot hold give the decoder's error: unknown type
 * BAD_TYPE, a count over its limit BAD_COUNT, a 24-bit or 4-bit field too
 * wide INVAL.
 */
enum smc_llc_err smc_llc_encode(const struct smc_llc_msg *m, void *buf,
				size_t cap);

/*
 * ADD LINK v2 extension: in an SMC-Rv2 group an ADD LINK request and an
 * accepting response carry it after their first 44 bytes, with the
 * sender's RMB rkeys on the new link (v2 has no ADD LINK CONTINUATION).
 * Layout: smc_llc_wire_add_link_ext, then num_rkeys entries laid out as
 * an ADD LINK CONTINUATION's. The struct is about 4 KiB: not for a
 * kernel stack.
 */
#define SMC_LLC_ADD_EXT_LEN		28	/* ADD LINK v2 extension, fixed part */
#define SMC_LLC_ADD_EXT_RT_LEN		16	/* one rkey entry */
#define SMC_LLC_ADD_EXT_RKEYS_MAX	255	/* a group's most connections */

struct smc_llc_add_link_ext {
	bool direct;			/* SMC_LLC_ADD_EXT_DIRECT: no gateway */
	uint8_t target_gid[SMC_LLC_GID_LEN];	/* the client's target GID */
	uint16_t num_rkeys;		/* entries in rt[] */
	/* rkey: the RMB on the link the message travels on */
	struct smc_llc_add_cont_rt rt[SMC_LLC_ADD_EXT_RKEYS_MAX];
};

/* bytes of an extension with n entries: 28 + 16 n */
static inline size_t smc_llc_add_ext_len(unsigned int n)
{
	return SMC_LLC_ADD_EXT_LEN + (size_t)n * SMC_LLC_ADD_EXT_RT_LEN;
}

/*
 * Decode an extension. buf: the bytes after a v2 ADD LINK's first 44,
 * len their number (the header's v2_len - 44). The number of entries
 * comes from len: fewer than 28 bytes is TRUNCATED, a remainder that is
 * not whole entries BAD_LENGTH, more than 255 entries BAD_COUNT. The
 * count field is not read: Linux 6.1 writes it in host order, and counts
 * in it RMBs it then skips, so it may exceed the entries sent. NULL e or
 * buf is INVAL. *e is zeroed first on every call with a non-NULL e, so
 * entries past num_rkeys, and everything on error, are zero. Reserved
 * bytes and flag bits are ignored.
 */
enum smc_llc_err smc_llc_add_ext_decode(const void *buf, size_t len,
					struct smc_llc_add_link_ext *e);

/*
 * Encode an extension: writes exactly smc_llc_add_ext_len(e->num_rkeys)
 * bytes, reserved parts zero, the count big endian (as Wireshark reads
 * it). NULL e is INVAL, num_rkeys over 255 BAD_COUNT; then a cap smaller
 * than the length or a NULL buf is NOSPACE. On error nothing is written.
 */
enum smc_llc_err smc_llc_add_ext_encode(const struct smc_llc_add_link_ext *e,
					void *buf, size_t cap);

/* Short English text for an error value / a message type (never NULL). */
const char *smc_llc_err_text(enum smc_llc_err err);
const char *smc_llc_type_text(uint8_t type);

#ifdef __cplusplus
}
#endif

#endif /* SMC_LLC_H */
