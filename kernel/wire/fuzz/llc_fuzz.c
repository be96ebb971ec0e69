// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the LLC decoder (v1, and the v2 header: see the
 * second branch below). A v1 message the decoder accepts
 * must re-encode to 44 bytes that equal the input except for bits the
 * decoder ignores (reserved bytes, foreign flag bits, entries past a count),
 * so: decoding the re-encoding gives the same struct, re-encoding that gives
 * the same bytes, and the type, length and response bit are unchanged.
 * Anything else aborts. Build and run: kernel/wire/fuzz/run-fuzz
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "smc_llc.h"

static void check(int cond)
{
	if (!cond)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct smc_llc_msg m1, m2;
	uint8_t out1[SMC_LLC_MSG_LEN], out2[SMC_LLC_MSG_LEN];
	enum smc_llc_err rc;
	uint8_t *copy;

	/* a tight heap copy so ASan catches any read past the input */
	copy = malloc(size ? size : 1);
	if (!copy)
		return 0;
	if (size)
		memcpy(copy, data, size);
	rc = smc_llc_decode(copy, size, &m1);
	check(smc_llc_err_text(rc) != NULL);
	if (rc == SMC_LLC_OK && !m1.v2) {
		check(size == SMC_LLC_MSG_LEN && copy[1] == SMC_LLC_MSG_LEN);
		check(smc_llc_type_known(m1.type) && m1.type == copy[0]);
		check(smc_llc_type_text(m1.type) != NULL);
		check(smc_llc_encode(&m1, out1, sizeof(out1)) == SMC_LLC_OK);
		check(out1[0] == copy[0] && out1[1] == copy[1]);
		check((out1[3] & 0x80) == (copy[3] & 0x80));
		/* the encoder only ever clears bits of the input */
		for (size_t i = 2; i < SMC_LLC_MSG_LEN; i++)
			check((out1[i] & (uint8_t)~copy[i]) == 0);
		check(smc_llc_decode(out1, sizeof(out1), &m2) == SMC_LLC_OK);
		check(memcmp(&m1, &m2, sizeof(m1)) == 0);
		check(smc_llc_encode(&m2, out2, sizeof(out2)) == SMC_LLC_OK);
		check(memcmp(out1, out2, sizeof(out1)) == 0);
	} else if (rc == SMC_LLC_OK) {
		/*
		 * v2 header: at least the first 44 bytes, at most the
		 * header's length; re-encoded as a 44-byte message (the
		 * encoder writes no v2 extension, so no ADD LINK request).
		 */
		check(size >= SMC_LLC_MSG_LEN && size <= m1.v2_len &&
		      m1.v2_len <= SMC_LLC_V2_MAX_LEN);
		check(copy[0] >> 4 == 2 && (copy[0] & 0x0f) == m1.type &&
		      smc_llc_type_known_v2(m1.type));
		m1.v2_len = SMC_LLC_MSG_LEN;
		rc = smc_llc_encode(&m1, out1, sizeof(out1));
		if (m1.type == SMC_LLC_ADD_LINK &&
		    !(m1.response && m1.add_link.rejected)) {
			check(rc == SMC_LLC_ERR_INVAL);
		} else {
			check(rc == SMC_LLC_OK);
			check(out1[0] == copy[0] && out1[1] == 0 &&
			      out1[2] == SMC_LLC_MSG_LEN);
			check((out1[3] & 0x80) == (copy[3] & 0x80));
			for (size_t i = 3; i < SMC_LLC_MSG_LEN; i++)
				check((out1[i] & (uint8_t)~copy[i]) == 0);
			check(smc_llc_decode(out1, sizeof(out1), &m2) == SMC_LLC_OK);
			check(memcmp(&m1, &m2, sizeof(m1)) == 0);
		}
	}
	free(copy);
	return 0;
}
