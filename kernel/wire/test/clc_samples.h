/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One valid, canonical example of every CLC message variant: the round-trip
 * tests walk them, the fuzzer's seed corpus and the tshark check are made from
 * them. "Canonical" means what the decoder would produce: fields of parts the
 * header says are absent are zero.
 */
#ifndef SMC_CLC_SAMPLES_H
#define SMC_CLC_SAMPLES_H

#include "smc_clc.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Number of samples. */
size_t smc_clc_sample_count(void);

/*
 * Fill *msg with sample i (hdr.length is left 0; the encoder computes it) and
 * return its name, or NULL if i is out of range.
 */
const char *smc_clc_sample(size_t i, struct smc_clc_msg *msg);

#ifdef __cplusplus
}
#endif

#endif /* SMC_CLC_SAMPLES_H */
