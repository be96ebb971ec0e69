// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the CDC decoders and the cursor arithmetic. The input
 * is fed to both decoders (SMC-R 44 bytes, SMC-D 32 bytes). A message either
 * decoder accepts must re-encode to the input with only the reserved bytes
 * and bits cleared, and decode again to the same values. The first 14 bytes
 * of any input also drive the cursor functions, whose bounds are checked.
 * Build and run: kernel/wire/fuzz/run-fuzz
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "smc_cdc.h"
#include "smc_cdc_layout.h"

static void check(int cond)
{
	if (!cond)
		abort();
}

static void same(const struct smc_cdc_msg *a, const struct smc_cdc_msg *b)
{
	check(a->seqno == b->seqno && a->token == b->token);
	check(a->prod.wrap == b->prod.wrap && a->prod.count == b->prod.count);
	check(a->cons.wrap == b->cons.wrap && a->cons.count == b->cons.count);
	check(a->write_blocked == b->write_blocked &&
	      a->urg_data_pending == b->urg_data_pending &&
	      a->urg_data_present == b->urg_data_present &&
	      a->cons_curs_upd_req == b->cons_curs_upd_req &&
	      a->failover_validation == b->failover_validation &&
	      a->peer_done_writing == b->peer_done_writing &&
	      a->peer_conn_closed == b->peer_conn_closed &&
	      a->peer_conn_abort == b->peer_conn_abort);
	check(a->ring_token == b->ring_token && a->ring_class == b->ring_class &&
	      a->cons_gen == b->cons_gen && a->ring_key == b->ring_key &&
	      a->prod_gen == b->prod_gen);
}

static void try_r(const uint8_t *data, size_t size)
{
	struct smc_cdc_msg m1, m2;
	uint8_t out[SMC_CDC_R_LEN], want[SMC_CDC_R_LEN];
	enum smc_cdc_err rc = smc_cdc_decode_r(data, size, &m1);

	check(smc_cdc_err_text(rc) != NULL);
	if (rc != SMC_CDC_OK)
		return;
	check(size == SMC_CDC_R_LEN && data[0] == 0xfe && data[1] == 44);
	check(smc_cdc_encode_r(&m1, out, sizeof(out)) == SMC_CDC_OK);
	/* the input without its reserved parts */
	memcpy(want, data, sizeof(want));
	memset(want + SMC_CDC_OFF(smc_cdc_wire_msg, prod.reserved), 0, 2);
	memset(want + SMC_CDC_OFF(smc_cdc_wire_msg, cons.reserved), 0, 2);
	want[SMC_CDC_OFF(smc_cdc_wire_msg, prod_flags)] &=
		(uint8_t)~SMC_CDC_PF_RESERVED;
	want[SMC_CDC_OFF(smc_cdc_wire_msg, conn_state_flags)] &=
		(uint8_t)~SMC_CDC_CSF_RESERVED;
	want[SMC_CDC_OFF(smc_cdc_wire_msg, reserved)] = 0;
	memset(want + SMC_CDC_OFF(smc_cdc_wire_msg, reserved2), 0, 2);
	check(memcmp(out, want, sizeof(out)) == 0);
	check(smc_cdc_decode_r(out, sizeof(out), &m2) == SMC_CDC_OK);
	same(&m1, &m2);
}

static void try_d(const uint8_t *data, size_t size)
{
	struct smc_cdc_msg m1, m2;
	uint8_t out[SMC_CDC_D_LEN], want[SMC_CDC_D_LEN];
	enum smc_cdc_err rc = smc_cdc_decode_d(data, size, &m1);

	check(smc_cdc_err_text(rc) != NULL);
	if (rc != SMC_CDC_OK)
		return;
	check(size == SMC_CDC_D_LEN && data[0] == 0xfe);
	check(m1.seqno == 0 && m1.token == 0);
	check(smc_cdc_encode_d(&m1, out, sizeof(out)) == SMC_CDC_OK);
	memset(want, 0, sizeof(want));
	want[0] = 0xfe;
	want[1] = data[1];			/* af_smc's ring class */
	want[2] = data[2];			/* and cons generation */
	memcpy(want + 8, data + 8, 6);		/* prod wrap + count */
	memcpy(want + 16, data + 16, 8);	/* cons wrap + count + flags */
	want[22] &= (uint8_t)~SMC_CDC_PF_RESERVED;
	want[23] &= (uint8_t)~SMC_CDC_CSF_RESERVED;
	memcpy(want + 24, data + 24, 8);	/* af_smc's ring token */
	check(memcmp(out, want, sizeof(out)) == 0);
	check(smc_cdc_decode_d(out, sizeof(out), &m2) == SMC_CDC_OK);
	same(&m1, &m2);
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static void try_cursors(const uint8_t *d, size_t size)
{
	struct smc_cdc_cursor o, n;
	uint32_t ring, bytes, diff;

	if (size < 16)
		return;
	ring = be32(d);
	o.wrap = (uint16_t)(d[4] << 8 | d[5]);
	o.count = be32(d + 6);
	bytes = be32(d + 10);
	n.wrap = (uint16_t)(d[14] << 8 | d[15]);
	n.count = o.count ^ bytes;

	check(smc_cdc_cursor_diff(ring, &o, &n) <= ring);
	check(smc_cdc_cursor_diff(ring, &n, &o) <= ring);
	if (!ring)
		return;
	n = o;
	smc_cdc_cursor_add(ring, &n, bytes);
	check(n.count < ring);
	if (o.count < ring && bytes <= ring) {
		diff = smc_cdc_cursor_diff(ring, &o, &n);
		check(diff == bytes);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *copy;

	/* a tight heap copy so ASan catches any read past the input */
	copy = malloc(size ? size : 1);
	if (!copy)
		return 0;
	if (size)
		memcpy(copy, data, size);
	try_r(copy, size);
	try_d(copy, size);
	try_cursors(copy, size);
	free(copy);
	return 0;
}
