// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the CLC decoder. Any input is fed to the decoder the
 * way the kernel's stream reader would: peek at the header, then decode
 * exactly header-length bytes. Every message the decoder accepts must
 * re-encode to the same number of bytes, decode again to the same struct and
 * re-encode to the same bytes; anything else aborts. Build: kernel/wire/fuzz/run-fuzz
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "smc_clc.h"
#include "smc_decline.h"

static void check(int cond)
{
	if (!cond)
		abort();
}

static void round_trip(const uint8_t *data, size_t size)
{
	static uint8_t out1[SMC_CLC_MAX_MSG_LEN], out2[SMC_CLC_MAX_MSG_LEN];
	static struct smc_clc_msg m1, m2;
	size_t len1 = 0, len2 = 0, need = 0;
	enum smc_clc_err rc;

	rc = smc_clc_decode(data, size, &m1);
	check(smc_clc_err_text(rc) != NULL);
	if (rc != SMC_CLC_OK)
		return;
	check(m1.hdr.length == size);

	check(smc_clc_encode(&m1, NULL, 0, &need) == SMC_CLC_ERR_NOSPACE);
	check(need == size);
	rc = smc_clc_encode(&m1, out1, sizeof(out1), &len1);
	check(rc == SMC_CLC_OK);
	check(len1 == size);

	rc = smc_clc_decode(out1, len1, &m2);
	check(rc == SMC_CLC_OK);
	check(memcmp(&m1, &m2, sizeof(m1)) == 0);

	rc = smc_clc_encode(&m2, out2, sizeof(out2), &len2);
	check(rc == SMC_CLC_OK);
	check(len2 == len1 && memcmp(out1, out2, len1) == 0);

	/*
	 * The canonical encoding may differ from the input only in reserved
	 * bytes and unused offsets: header and trailer come back unchanged.
	 */
	check(memcmp(out1, data, 8) == 0);
	check(memcmp(out1 + size - 4, data + size - 4, 4) == 0);

	if (m1.hdr.type == SMC_CLC_DECLINE)
		check(smc_clc_decline_text(m1.decline.diagnosis) != NULL);

	/* A Proposal's GID list read as devices: forward, bounded, paired. */
	if (m1.hdr.type == SMC_CLC_PROPOSAL) {
		struct smc_clc_ism_gid d;
		unsigned int pos = 0, last = 0;

		while (smc_clc_ism_next(&m1.proposal, &pos, &d)) {
			check(pos > last && pos <= SMC_CLC_MAX_ISM_GIDS);
			check(d.chid == m1.proposal.ism_dev[pos - 1].chid);
			check(smc_clc_chid_emulated(d.chid) || !d.gid_ext);
			last = pos;
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct smc_clc_hdr hdr;
	uint8_t *copy;

	/* the whole input as one message (exact length or refused) */
	round_trip(data, size);

	/* the stream reader's way: header first, then exactly that many bytes */
	if (smc_clc_decode_hdr(data, size, &hdr) != SMC_CLC_OK ||
	    hdr.length >= size)
		return 0;
	/* a tight heap copy so ASan catches any read past the message */
	copy = malloc(hdr.length);
	if (!copy)
		return 0;
	memcpy(copy, data, hdr.length);
	round_trip(copy, hdr.length);
	free(copy);
	return 0;
}
