/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Sample CDC (and LLC) messages, encoded: the fuzzer's seed corpus and the
 * RoCEv2 pcap for the tshark check are made from them.
 */
#ifndef SMC_ROCE_SAMPLES_H
#define SMC_ROCE_SAMPLES_H

#include "smc_cdc.h"
#include "smc_llc.h"

#ifdef __cplusplus
extern "C" {
#endif

enum smc_roce_sample_kind {
	SMC_SAMPLE_CDC_R,	/* SMC-R CDC: an RDMA SEND payload */
	SMC_SAMPLE_CDC_D,	/* SMC-D CDC: DMB element header, not on a wire */
	SMC_SAMPLE_LLC,		/* SMC-R LLC: an RDMA SEND payload */
};

/* The longest encoded sample. */
#define SMC_ROCE_SAMPLE_MAX	64

/*
 * Encode sample i into buf (at least SMC_ROCE_SAMPLE_MAX bytes), set *len and
 * *kind, and return its name; NULL when i is out of range. If the encoder
 * refused the sample, *len is 0 (callers report that as an error).
 */
const char *smc_roce_sample(size_t i, uint8_t *buf, size_t *len,
			    enum smc_roce_sample_kind *kind);

/*
 * The LLC samples as structs (one per type and form, canonical: entries past
 * a count are zero): fill *m with sample i and return its name, or NULL if
 * i is out of range.
 */
size_t smc_llc_sample_count(void);
const char *smc_llc_sample(size_t i, struct smc_llc_msg *m);

#ifdef __cplusplus
}
#endif

#endif /* SMC_ROCE_SAMPLES_H */
