/* SPDX-License-Identifier: GPL-2.0 */
/*
 * On-wire layouts of the SMC CDC (Connection Data Control) message.
 *
 * Same rules as smc_clc_layout.h: byte arrays only, alignment 1, no padding,
 * numbers read and written through smc_wire_get_be*() / smc_wire_put_be*();
 * the structs exist so offsetof() names every field and sizes are asserted.
 *
 * Sources of the facts (see kernel/wire/README.md, "CDC"):
 *   - RFC 7609 section 3.5 / appendix A ("RMBE control message"): the 44-byte
 *     SMC-R CDC message sent as an RDMA SEND, big endian.
 *   - Linux 6.1 net/smc/smc_cdc.h: struct smc_cdc_msg (SMC-R, 44 bytes,
 *     network order) and struct smcd_cdc_msg (SMC-D, 32 bytes, written by the
 *     sender into the first bytes of the peer's DMB element).
 */
#ifndef SMC_CDC_LAYOUT_H
#define SMC_CDC_LAYOUT_H

#include "smc_wire_types.h"

/* SMC-R cursor, 8 bytes: reserved, wrap sequence, count (RFC 7609). */
struct smc_cdc_wire_cursor {
	uint8_t reserved[2];
	uint8_t wrap[2];
	uint8_t count[4];
};

/*
 * SMC-R CDC message, 44 bytes: the payload of one RDMA SEND.
 *
 * From cons_gen on, af_smc's own, in the 18 bytes RFC 7609 and Linux
 * reserve (Linux sends zeros: "no offer, generation 0"): a receive ring
 * that grows (Documentation/smc-r.md, "Rings that grow"), used only
 * between two af_smc ends that said so in their CLC Accept and Confirm.
 * cons_gen and prod_gen number the rings the cursors count in; an offer
 * names a bigger RMB of class ring_class by its rkey and address on the
 * link the message went over.
 */
struct smc_cdc_wire_msg {
	uint8_t type;			/* 0xFE */
	uint8_t len;			/* 44 */
	uint8_t seqno[2];		/* per-connection sequence number */
	uint8_t token[4];		/* alert token of the receiver's RMBE */
	struct smc_cdc_wire_cursor prod;	/* producer cursor */
	struct smc_cdc_wire_cursor cons;	/* consumer cursor ("ack") */
	uint8_t prod_flags;		/* SMC_CDC_PF_* */
	uint8_t conn_state_flags;	/* SMC_CDC_CSF_* */
	uint8_t cons_gen;		/* the ring cons counts in */
	uint8_t prod_gen;		/* the ring prod counts in */
	uint8_t ring_class;		/* the offered RMB's size class */
	uint8_t reserved;
	uint8_t ring_key[4];		/* its rkey */
	uint8_t ring_token[8];		/* its address, 0: no offer */
	uint8_t reserved2[2];
};

/*
 * SMC-D cursor, 8 bytes. Linux packs wrap and count without the reserved
 * halfword and puts the two flag bytes of the message into the cursor's
 * last two bytes. The numbers are host order in Linux; Linux 6.1 has ISM
 * devices only on s390 (big endian), so big endian it is here.
 */
struct smcd_cdc_wire_cursor {
	uint8_t wrap[2];
	uint8_t count[4];
	uint8_t prod_flags;		/* meaningful in cons only */
	uint8_t conn_state_flags;	/* meaningful in cons only */
};

/*
 * SMC-D CDC message, 32 bytes, at offset 0 of the peer's DMB element (the
 * data follows it). Linux writes the flags into cons and zeros into the
 * flag bytes of prod, and reads the flags from cons only.
 *
 * ring_class, cons_gen and ring_token are af_smc's own, in bytes Linux
 * reserves (and sends as zero, which means "no offer, generation 0"):
 * a receive ring that grows (Documentation/smc-d.md, "Rings that
 * grow"). An SMC-D peer is always af_smc: both ISM devices are ours.
 */
struct smcd_cdc_wire_msg {
	uint8_t type;			/* 0xFE */
	uint8_t ring_class;		/* the offered ring's size class */
	uint8_t cons_gen;		/* the ring cons counts in */
	uint8_t reserved1[5];
	struct smcd_cdc_wire_cursor prod;
	struct smcd_cdc_wire_cursor cons;
	uint8_t ring_token[8];		/* the offered ring's DMB, 0: none */
};

/* Bits of prod_flags (MSB first, RFC 7609 "producer flags"). */
#define SMC_CDC_PF_WRITE_BLOCKED	0x80
#define SMC_CDC_PF_URG_DATA_PENDING	0x40
#define SMC_CDC_PF_URG_DATA_PRESENT	0x20
#define SMC_CDC_PF_CONS_CURS_UPD_REQ	0x10
#define SMC_CDC_PF_FAILOVER_VALIDATION	0x08
#define SMC_CDC_PF_RESERVED		0x07

/* Bits of conn_state_flags (MSB first, "connection state flags"). */
#define SMC_CDC_CSF_PEER_DONE_WRITING	0x80
#define SMC_CDC_CSF_PEER_CONN_CLOSED	0x40
#define SMC_CDC_CSF_PEER_CONN_ABORT	0x20
#define SMC_CDC_CSF_RESERVED		0x1f

#define SMC_CDC_SZ(t) (sizeof(struct t))
#define SMC_CDC_OFF(t, m) (offsetof(struct t, m))

SMC_WIRE_STATIC_ASSERT(SMC_CDC_SZ(smc_cdc_wire_cursor) == 8, "SMC-R cursor");
SMC_WIRE_STATIC_ASSERT(SMC_CDC_SZ(smc_cdc_wire_msg) == 44, "SMC-R CDC");
SMC_WIRE_STATIC_ASSERT(SMC_CDC_OFF(smc_cdc_wire_msg, seqno) == 2, "seqno");
SMC_WIRE_STATIC_ASSERT(SMC_CDC_OFF(smc_cdc_wire_msg, token) == 4, "token");
SMC_WIRE_STATIC_ASSERT(SMC_CDC_OFF(smc_cdc_wire_msg, prod) == 8, "prod");
SMC_WIRE_STATIC_ASSERT(SMC_CDC_OFF(smc_cdc_wire_msg, cons) == 16, "cons");
SMC_WIRE_STATIC_ASSERT(SMC_CDC_OFF(smc_cdc_wire_msg, prod_flags) == 24,
		       "prod_flags");
SMC_WIRE_STATIC_ASSERT(SMC_CDC_OFF(smc_cdc_wire_msg, cons_gen) == 26,
		       "cons_gen");
SMC_WIRE_STATIC_ASSERT(SMC_CDC_OFF(smc_cdc_wire_msg, ring_key) == 30,
		       "ring_key");
SMC_WIRE_STATIC_ASSERT(SMC_CDC_OFF(smc_cdc_wire_msg, ring_token) == 34,
		       "ring_token");
SMC_WIRE_STATIC_ASSERT(SMC_CDC_SZ(smcd_cdc_wire_cursor) == 8, "SMC-D cursor");
SMC_WIRE_STATIC_ASSERT(SMC_CDC_SZ(smcd_cdc_wire_msg) == 32, "SMC-D CDC");
SMC_WIRE_STATIC_ASSERT(SMC_CDC_OFF(smcd_cdc_wire_msg, prod) == 8, "D prod");
SMC_WIRE_STATIC_ASSERT(SMC_CDC_OFF(smcd_cdc_wire_msg, cons) == 16, "D cons");
SMC_WIRE_STATIC_ASSERT(SMC_CDC_OFF(smcd_cdc_wire_msg, cons.prod_flags) == 22,
		       "D flags");
SMC_WIRE_STATIC_ASSERT(SMC_CDC_OFF(smcd_cdc_wire_msg, ring_class) == 1,
		       "D ring_class");
SMC_WIRE_STATIC_ASSERT(SMC_CDC_OFF(smcd_cdc_wire_msg, cons_gen) == 2,
		       "D cons_gen");
SMC_WIRE_STATIC_ASSERT(SMC_CDC_OFF(smcd_cdc_wire_msg, ring_token) == 24,
		       "D ring_token");

#endif /* SMC_CDC_LAYOUT_H */
