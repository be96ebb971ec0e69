// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the LLC decoder (v1, and the v2 header with the
 * ADD LINK v2 extension: see the second branch below). A v1 message the
 * decoder accepts must re-encode to 44 bytes that equal the input except
 * for bits the decoder ignores (reserved bytes, foreign flag bits, entries
 * past a count), so: decoding the re-encoding gives the same struct,
 * re-encoding that gives the same bytes, and the type, length and response
 * bit are unchanged. An extension the decoder accepts must re-encode to
 * exactly its own length, with the same bytes but for the reserved ones and
 * the count. Anything else aborts. Build and run: kernel/wire/fuzz/run-fuzz
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

static int all_zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return 0;
	return 1;
}

/* p, n: what follows a v2 ADD LINK's first 44 bytes */
static void check_add_ext(const uint8_t *p, size_t n)
{
	static struct smc_llc_add_link_ext e1, e2;
	static uint8_t out[SMC_LLC_ADD_EXT_LEN +
			   SMC_LLC_ADD_EXT_RKEYS_MAX * SMC_LLC_ADD_EXT_RT_LEN + 1];
	enum smc_llc_err rc;
	size_t len;

	rc = smc_llc_add_ext_decode(p, n, &e1);
	check(smc_llc_err_text(rc) != NULL);
	if (rc != SMC_LLC_OK)
		return;
	/* the entries are what the length holds, whatever the count says */
	len = smc_llc_add_ext_len(e1.num_rkeys);
	check(len == n && e1.num_rkeys <= SMC_LLC_ADD_EXT_RKEYS_MAX);
	memset(out, 0xa5, sizeof(out));
	check(smc_llc_add_ext_encode(&e1, out, sizeof(out)) == SMC_LLC_OK);
	check(out[len] == 0xa5);	/* nothing past its length */
	check(smc_llc_add_ext_decode(out, len, &e2) == SMC_LLC_OK);
	check(memcmp(&e1, &e2, sizeof(e1)) == 0);
	/*
	 * Offsets from the start of the extension: 0 flags (0x80 direct),
	 * 1 reserved, 2 target GID 16, 18 reserved 8, 26 count, 28 entries.
	 * The count comes out as the number of entries, big endian.
	 */
	check(out[0] == (p[0] & 0x80) && out[1] == 0);
	check(memcmp(out + 2, p + 2, 16) == 0);
	check(all_zero(out + 18, 8));
	check(out[26] == (uint8_t)(e1.num_rkeys >> 8) &&
	      out[27] == (uint8_t)e1.num_rkeys);
	check(memcmp(out + 28, p + 28, len - 28) == 0);
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
		 * header's length; the first 44 re-encoded. An ADD LINK
		 * keeps its length (the extension follows, read here from
		 * what the input has of it); other types get 44.
		 */
		check(size >= SMC_LLC_MSG_LEN && size <= m1.v2_len &&
		      m1.v2_len <= SMC_LLC_V2_MAX_LEN);
		check(copy[0] >> 4 == 2 && (copy[0] & 0x0f) == m1.type &&
		      smc_llc_type_known_v2(m1.type));
		if (m1.type == SMC_LLC_ADD_LINK) {
			/* byte 2 is the length's: never a reject reason */
			check(m1.add_link.reject_reason == 0);
			if (size > SMC_LLC_MSG_LEN)
				check_add_ext(copy + SMC_LLC_MSG_LEN,
					      size - SMC_LLC_MSG_LEN);
		} else {
			m1.v2_len = SMC_LLC_MSG_LEN;
		}
		check(smc_llc_encode(&m1, out1, sizeof(out1)) == SMC_LLC_OK);
		check(out1[0] == copy[0] &&
		      out1[1] == (uint8_t)(m1.v2_len >> 8) &&
		      out1[2] == (uint8_t)m1.v2_len);
		check((out1[3] & 0x80) == (copy[3] & 0x80));
		for (size_t i = 3; i < SMC_LLC_MSG_LEN; i++)
			check((out1[i] & (uint8_t)~copy[i]) == 0);
		check(smc_llc_decode(out1, sizeof(out1), &m2) == SMC_LLC_OK);
		check(memcmp(&m1, &m2, sizeof(m1)) == 0);
	}
	free(copy);
	return 0;
}
