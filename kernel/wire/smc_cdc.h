/* SPDX-License-Identifier: GPL-2.0 */
/*
 * SMC CDC (Connection Data Control) messages: the typed host-order struct,
 * encoders/decoders for the SMC-R form (44 bytes, one RDMA SEND) and the
 * SMC-D form (32 bytes at the head of the peer's DMB element), and cursor
 * arithmetic on a ring buffer.
 *
 * Same contract as smc_clc.h: decoders take exactly one message and trust
 * nothing in it; encoders never write past the capacity they are given;
 * nothing allocates or keeps state. Layouts: smc_cdc_layout.h.
 */
#ifndef SMC_CDC_H
#define SMC_CDC_H

#include "smc_wire_types.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SMC_CDC_MSG_TYPE	0xFE	/* byte 0 of both forms */
#define SMC_CDC_R_LEN		44	/* SMC-R message, also its length byte */
/*
 * SMC-D message: Linux's struct smcd_cdc_msg is 32 bytes (type, 7 reserved,
 * prod and cons cursors of 8 bytes, 8 reserved); the receiver's data starts
 * right after it in the DMB element.
 */
#define SMC_CDC_D_LEN		32

/* A position in a ring buffer: how often it wrapped, and the byte offset. */
struct smc_cdc_cursor {
	uint16_t wrap;
	uint32_t count;
};

/*
 * One CDC message, host order. seqno and token exist only in SMC-R; the
 * SMC-D decoder sets them to 0 and the SMC-D encoder ignores them.
 */
struct smc_cdc_msg {
	uint16_t seqno;			/* SMC-R only */
	uint32_t token;			/* SMC-R only: alert token of the connection */
	struct smc_cdc_cursor prod, cons;
	/* producer flags */
	bool write_blocked, urg_data_pending, urg_data_present,
	     cons_curs_upd_req, failover_validation;
	/* connection state flags */
	bool peer_done_writing, peer_conn_closed, peer_conn_abort;
	/*
	 * af_smc's own (smc_cdc_layout.h): the sender offers a bigger
	 * receive ring of size class ring_class, ring_token (0: no offer):
	 * SMC-D, the DMB's token; SMC-R, the RMB's address, and ring_key its
	 * rkey, on the link the message went over. Its cons cursor counts
	 * in its ring number cons_gen (mod 256); SMC-R also says where its
	 * prod cursor counts, prod_gen (the reader of SMC-D learns that from
	 * where the message is). The SMC-D forms leave ring_key and prod_gen
	 * 0.
	 */
	uint64_t ring_token;
	uint32_t ring_key;
	uint8_t ring_class, cons_gen, prod_gen;
};

/* Results. 0 is success; every failure has its own value. */
enum smc_cdc_err {
	SMC_CDC_OK = 0,
	SMC_CDC_ERR_TRUNCATED,		/* fewer bytes than one message */
	SMC_CDC_ERR_BAD_TYPE,		/* byte 0 is not 0xFE */
	SMC_CDC_ERR_BAD_LENGTH,		/* SMC-R length byte is not 44 */
	SMC_CDC_ERR_NOSPACE,		/* encode: buffer too small or NULL */
	SMC_CDC_ERR_TRAILING,		/* more bytes than one message */
	SMC_CDC_ERR_INVAL,		/* NULL message pointer */
	SMC_CDC_ERR__MAX
};

/*
 * Encode. Writes exactly SMC_CDC_R_LEN / SMC_CDC_D_LEN bytes (reserved
 * bytes and bits zero) or, if cap is smaller or buf is NULL, nothing and
 * returns SMC_CDC_ERR_NOSPACE.
 */
enum smc_cdc_err smc_cdc_encode_r(const struct smc_cdc_msg *m, void *buf,
				  size_t cap);
enum smc_cdc_err smc_cdc_encode_d(const struct smc_cdc_msg *m, void *buf,
				  size_t cap);

/*
 * Decode exactly one message (len must be SMC_CDC_R_LEN / SMC_CDC_D_LEN:
 * fewer is TRUNCATED, more is TRAILING). Reserved bytes and reserved flag
 * bits are ignored, as Linux 6.1 does; the SMC-D form reads af_smc's own
 * fields from bytes Linux reserves. *m is zeroed first on every call with
 * a non-NULL m.
 */
enum smc_cdc_err smc_cdc_decode_r(const void *buf, size_t len,
				  struct smc_cdc_msg *m);
enum smc_cdc_err smc_cdc_decode_d(const void *buf, size_t len,
				  struct smc_cdc_msg *m);

/* Short English text for an error value (never NULL). */
const char *smc_cdc_err_text(enum smc_cdc_err err);

/*
 * Cursor arithmetic on a ring of 'size' bytes.
 *
 * smc_cdc_cursor_diff() returns how many bytes new_ is ahead of old: with
 * the same wrap, new_.count - old.count; with new_.wrap == old.wrap + 1
 * (mod 2^16), size - old.count + new_.count. The result is never more than
 * size, whatever a peer sends: counts beyond size count as size, a sum
 * beyond size (new_ a full wrap or more ahead) is size, and any other wrap
 * (new_ behind old, or two or more wraps ahead) gives 0.
 *
 * smc_cdc_cursor_add() moves c forward by bytes (any amount, also several
 * wraps), keeping count < size. A count already >= size is first reduced
 * modulo size. size 0 leaves c unchanged.
 */
uint32_t smc_cdc_cursor_diff(uint32_t size, const struct smc_cdc_cursor *old,
			     const struct smc_cdc_cursor *new_);
void smc_cdc_cursor_add(uint32_t size, struct smc_cdc_cursor *c,
			uint32_t bytes);

/*
 * Sequence numbers wrap at 2^16: true if a comes before b, i.e. a - b is
 * negative as a 16-bit signed number (the test Linux's receiver uses to drop
 * stale SMC-R CDC messages).
 */
static inline bool smc_cdc_seqno_before(uint16_t a, uint16_t b)
{
	return ((uint16_t)(a - b) & 0x8000) != 0;
}

#ifdef __cplusplus
}
#endif

#endif /* SMC_CDC_H */
