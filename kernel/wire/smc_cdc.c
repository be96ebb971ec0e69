// SPDX-License-Identifier: GPL-2.0
/*
 * SMC CDC encode/decode and cursor arithmetic. See smc_cdc.h for the
 * contract and smc_cdc_layout.h for the byte layouts.
 *
 * Both forms have a fixed size, so the decoders check the received length
 * once, before reading anything, and then read fixed offsets only.
 */
#include "smc_cdc.h"
#include "smc_cdc_layout.h"

#define R_LEN	SMC_CDC_SZ(smc_cdc_wire_msg)
#define D_LEN	SMC_CDC_SZ(smcd_cdc_wire_msg)

SMC_WIRE_STATIC_ASSERT(R_LEN == SMC_CDC_R_LEN, "SMC-R length");
SMC_WIRE_STATIC_ASSERT(D_LEN == SMC_CDC_D_LEN, "SMC-D length");

/* ---------------------------------------------------------------- flags */

static uint8_t prod_flags_of(const struct smc_cdc_msg *m)
{
	uint8_t f = 0;

	if (m->write_blocked)
		f |= SMC_CDC_PF_WRITE_BLOCKED;
	if (m->urg_data_pending)
		f |= SMC_CDC_PF_URG_DATA_PENDING;
	if (m->urg_data_present)
		f |= SMC_CDC_PF_URG_DATA_PRESENT;
	if (m->cons_curs_upd_req)
		f |= SMC_CDC_PF_CONS_CURS_UPD_REQ;
	if (m->failover_validation)
		f |= SMC_CDC_PF_FAILOVER_VALIDATION;
	return f;
}

static uint8_t conn_state_flags_of(const struct smc_cdc_msg *m)
{
	uint8_t f = 0;

	if (m->peer_done_writing)
		f |= SMC_CDC_CSF_PEER_DONE_WRITING;
	if (m->peer_conn_closed)
		f |= SMC_CDC_CSF_PEER_CONN_CLOSED;
	if (m->peer_conn_abort)
		f |= SMC_CDC_CSF_PEER_CONN_ABORT;
	return f;
}

/* Reserved bits are dropped here: Linux 6.1 never looks at them either. */
static void flags_to_msg(uint8_t pf, uint8_t csf, struct smc_cdc_msg *m)
{
	m->write_blocked = pf & SMC_CDC_PF_WRITE_BLOCKED;
	m->urg_data_pending = pf & SMC_CDC_PF_URG_DATA_PENDING;
	m->urg_data_present = pf & SMC_CDC_PF_URG_DATA_PRESENT;
	m->cons_curs_upd_req = pf & SMC_CDC_PF_CONS_CURS_UPD_REQ;
	m->failover_validation = pf & SMC_CDC_PF_FAILOVER_VALIDATION;
	m->peer_done_writing = csf & SMC_CDC_CSF_PEER_DONE_WRITING;
	m->peer_conn_closed = csf & SMC_CDC_CSF_PEER_CONN_CLOSED;
	m->peer_conn_abort = csf & SMC_CDC_CSF_PEER_CONN_ABORT;
}

/* Shared entry checks of the decoders: arguments, exact length, type. */
static enum smc_cdc_err decode_frame(const uint8_t *b, size_t len, size_t want,
				     struct smc_cdc_msg *m)
{
	if (!m)
		return SMC_CDC_ERR_INVAL;
	memset(m, 0, sizeof(*m));
	if (!b)
		return SMC_CDC_ERR_INVAL;
	if (len < want)
		return SMC_CDC_ERR_TRUNCATED;
	if (len > want)
		return SMC_CDC_ERR_TRAILING;
	if (b[0] != SMC_CDC_MSG_TYPE)
		return SMC_CDC_ERR_BAD_TYPE;
	return SMC_CDC_OK;
}

static enum smc_cdc_err encode_frame(const struct smc_cdc_msg *m, void *buf,
				     size_t cap, size_t need)
{
	if (!m)
		return SMC_CDC_ERR_INVAL;
	if (!buf || cap < need)
		return SMC_CDC_ERR_NOSPACE;
	memset(buf, 0, need);
	return SMC_CDC_OK;
}

/* ---------------------------------------------------------------- SMC-R */

static void r_put_cursor(uint8_t *p, const struct smc_cdc_cursor *c)
{
	smc_wire_put_be16(p + SMC_CDC_OFF(smc_cdc_wire_cursor, wrap), c->wrap);
	smc_wire_put_be32(p + SMC_CDC_OFF(smc_cdc_wire_cursor, count), c->count);
}

static void r_get_cursor(const uint8_t *p, struct smc_cdc_cursor *c)
{
	c->wrap = smc_wire_get_be16(p + SMC_CDC_OFF(smc_cdc_wire_cursor, wrap));
	c->count = smc_wire_get_be32(p + SMC_CDC_OFF(smc_cdc_wire_cursor, count));
}

enum smc_cdc_err smc_cdc_encode_r(const struct smc_cdc_msg *m, void *buf,
				  size_t cap)
{
	uint8_t *b = (uint8_t *)buf;
	enum smc_cdc_err rc;

	rc = encode_frame(m, buf, cap, R_LEN);
	if (rc != SMC_CDC_OK)
		return rc;
	b[SMC_CDC_OFF(smc_cdc_wire_msg, type)] = SMC_CDC_MSG_TYPE;
	b[SMC_CDC_OFF(smc_cdc_wire_msg, len)] = SMC_CDC_R_LEN;
	smc_wire_put_be16(b + SMC_CDC_OFF(smc_cdc_wire_msg, seqno), m->seqno);
	smc_wire_put_be32(b + SMC_CDC_OFF(smc_cdc_wire_msg, token), m->token);
	r_put_cursor(b + SMC_CDC_OFF(smc_cdc_wire_msg, prod), &m->prod);
	r_put_cursor(b + SMC_CDC_OFF(smc_cdc_wire_msg, cons), &m->cons);
	b[SMC_CDC_OFF(smc_cdc_wire_msg, prod_flags)] = prod_flags_of(m);
	b[SMC_CDC_OFF(smc_cdc_wire_msg, conn_state_flags)] =
		conn_state_flags_of(m);
	b[SMC_CDC_OFF(smc_cdc_wire_msg, cons_gen)] = m->cons_gen;
	b[SMC_CDC_OFF(smc_cdc_wire_msg, prod_gen)] = m->prod_gen;
	b[SMC_CDC_OFF(smc_cdc_wire_msg, ring_class)] = m->ring_class;
	smc_wire_put_be32(b + SMC_CDC_OFF(smc_cdc_wire_msg, ring_key), m->ring_key);
	smc_wire_put_be64(b + SMC_CDC_OFF(smc_cdc_wire_msg, ring_token),
			  m->ring_token);
	return SMC_CDC_OK;
}

enum smc_cdc_err smc_cdc_decode_r(const void *buf, size_t len,
				  struct smc_cdc_msg *m)
{
	const uint8_t *b = (const uint8_t *)buf;
	enum smc_cdc_err rc;

	rc = decode_frame(b, len, R_LEN, m);
	if (rc != SMC_CDC_OK)
		return rc;
	/* Linux 6.1 drops a message whose length byte is not 44 */
	if (b[SMC_CDC_OFF(smc_cdc_wire_msg, len)] != SMC_CDC_R_LEN)
		return SMC_CDC_ERR_BAD_LENGTH;
	m->seqno = smc_wire_get_be16(b + SMC_CDC_OFF(smc_cdc_wire_msg, seqno));
	m->token = smc_wire_get_be32(b + SMC_CDC_OFF(smc_cdc_wire_msg, token));
	r_get_cursor(b + SMC_CDC_OFF(smc_cdc_wire_msg, prod), &m->prod);
	r_get_cursor(b + SMC_CDC_OFF(smc_cdc_wire_msg, cons), &m->cons);
	flags_to_msg(b[SMC_CDC_OFF(smc_cdc_wire_msg, prod_flags)],
		     b[SMC_CDC_OFF(smc_cdc_wire_msg, conn_state_flags)], m);
	m->cons_gen = b[SMC_CDC_OFF(smc_cdc_wire_msg, cons_gen)];
	m->prod_gen = b[SMC_CDC_OFF(smc_cdc_wire_msg, prod_gen)];
	m->ring_class = b[SMC_CDC_OFF(smc_cdc_wire_msg, ring_class)];
	m->ring_key = smc_wire_get_be32(b + SMC_CDC_OFF(smc_cdc_wire_msg, ring_key));
	m->ring_token = smc_wire_get_be64(b + SMC_CDC_OFF(smc_cdc_wire_msg,
							  ring_token));
	return SMC_CDC_OK;
}

/* ---------------------------------------------------------------- SMC-D */

static void d_put_cursor(uint8_t *p, const struct smc_cdc_cursor *c)
{
	smc_wire_put_be16(p + SMC_CDC_OFF(smcd_cdc_wire_cursor, wrap), c->wrap);
	smc_wire_put_be32(p + SMC_CDC_OFF(smcd_cdc_wire_cursor, count), c->count);
}

static void d_get_cursor(const uint8_t *p, struct smc_cdc_cursor *c)
{
	c->wrap = smc_wire_get_be16(p + SMC_CDC_OFF(smcd_cdc_wire_cursor, wrap));
	c->count = smc_wire_get_be32(p + SMC_CDC_OFF(smcd_cdc_wire_cursor,
						     count));
}

enum smc_cdc_err smc_cdc_encode_d(const struct smc_cdc_msg *m, void *buf,
				  size_t cap)
{
	uint8_t *b = (uint8_t *)buf;
	uint8_t *cons;
	enum smc_cdc_err rc;

	rc = encode_frame(m, buf, cap, D_LEN);
	if (rc != SMC_CDC_OK)
		return rc;
	cons = b + SMC_CDC_OFF(smcd_cdc_wire_msg, cons);
	b[SMC_CDC_OFF(smcd_cdc_wire_msg, type)] = SMC_CDC_MSG_TYPE;
	d_put_cursor(b + SMC_CDC_OFF(smcd_cdc_wire_msg, prod), &m->prod);
	d_put_cursor(cons, &m->cons);
	/* like Linux: the flags travel in the consumer cursor only */
	cons[SMC_CDC_OFF(smcd_cdc_wire_cursor, prod_flags)] = prod_flags_of(m);
	cons[SMC_CDC_OFF(smcd_cdc_wire_cursor, conn_state_flags)] =
		conn_state_flags_of(m);
	b[SMC_CDC_OFF(smcd_cdc_wire_msg, ring_class)] = m->ring_class;
	b[SMC_CDC_OFF(smcd_cdc_wire_msg, cons_gen)] = m->cons_gen;
	smc_wire_put_be64(b + SMC_CDC_OFF(smcd_cdc_wire_msg, ring_token),
			  m->ring_token);
	return SMC_CDC_OK;
}

enum smc_cdc_err smc_cdc_decode_d(const void *buf, size_t len,
				  struct smc_cdc_msg *m)
{
	const uint8_t *b = (const uint8_t *)buf;
	const uint8_t *cons;
	enum smc_cdc_err rc;

	rc = decode_frame(b, len, D_LEN, m);
	if (rc != SMC_CDC_OK)
		return rc;
	cons = b + SMC_CDC_OFF(smcd_cdc_wire_msg, cons);
	d_get_cursor(b + SMC_CDC_OFF(smcd_cdc_wire_msg, prod), &m->prod);
	d_get_cursor(cons, &m->cons);
	/* the flag bytes of prod are reserved (Linux sends 0, reads nothing) */
	flags_to_msg(cons[SMC_CDC_OFF(smcd_cdc_wire_cursor, prod_flags)],
		     cons[SMC_CDC_OFF(smcd_cdc_wire_cursor, conn_state_flags)],
		     m);
	m->ring_class = b[SMC_CDC_OFF(smcd_cdc_wire_msg, ring_class)];
	m->cons_gen = b[SMC_CDC_OFF(smcd_cdc_wire_msg, cons_gen)];
	m->ring_token = smc_wire_get_be64(b + SMC_CDC_OFF(smcd_cdc_wire_msg,
							  ring_token));
	return SMC_CDC_OK;
}

/* -------------------------------------------------------------- cursors */

uint32_t smc_cdc_cursor_diff(uint32_t size, const struct smc_cdc_cursor *old,
			     const struct smc_cdc_cursor *new_)
{
	uint32_t o = old->count < size ? old->count : size;
	uint32_t n = new_->count < size ? new_->count : size;

	if (new_->wrap == old->wrap)
		return n > o ? n - o : 0;
	if (new_->wrap != (uint16_t)(old->wrap + 1))
		return 0;
	/* size - o + n > size iff n > o; this way nothing passes 2^32 */
	return n > o ? size : size - o + n;
}

void smc_cdc_cursor_add(uint32_t size, struct smc_cdc_cursor *c,
			uint32_t bytes)
{
	uint32_t count, rem;
	uint16_t wraps;

	if (!size)
		return;
	count = c->count < size ? c->count : c->count % size;
	/* the wrap counter is 16 bits on the wire: wrap around 2^16 too */
	wraps = (uint16_t)(bytes / size);
	rem = bytes % size;
	/* count and rem are < size: compare instead of adding past 2^32 */
	if (rem >= size - count) {
		count = rem - (size - count);
		wraps = (uint16_t)(wraps + 1);
	} else {
		count += rem;
	}
	c->count = count;
	c->wrap = (uint16_t)(c->wrap + wraps);
}

/* ------------------------------------------------------------------ text */

const char *smc_cdc_err_text(enum smc_cdc_err err)
{
	switch (err) {
	case SMC_CDC_OK:
		return "ok";
	case SMC_CDC_ERR_TRUNCATED:
		return "CDC message truncated";
	case SMC_CDC_ERR_BAD_TYPE:
		return "not a CDC message (type is not 0xFE)";
	case SMC_CDC_ERR_BAD_LENGTH:
		return "CDC length field is not 44";
	case SMC_CDC_ERR_NOSPACE:
		return "output buffer too small";
	case SMC_CDC_ERR_TRAILING:
		return "bytes beyond the CDC message";
	case SMC_CDC_ERR_INVAL:
		return "invalid argument";
	case SMC_CDC_ERR__MAX:
		break;
	}
	return "unknown CDC error";
}
