// SPDX-License-Identifier: GPL-2.0
/* Sample CDC and LLC messages; see roce_samples.h. */
#include "roce_samples.h"

static void cdc_data(struct smc_cdc_msg *m)
{
	m->seqno = 7;
	m->token = 0x00001a2b;
	m->prod.wrap = 2;
	m->prod.count = 0x4000;
	m->cons.wrap = 1;
	m->cons.count = 0xff00;
}

static void cdc_close(struct smc_cdc_msg *m)
{
	cdc_data(m);
	m->seqno = 8;
	m->peer_done_writing = true;
	m->peer_conn_closed = true;
}

static void cdc_abort(struct smc_cdc_msg *m)
{
	cdc_data(m);
	m->seqno = 0xffff;
	m->peer_conn_abort = true;
}

static void cdc_urg(struct smc_cdc_msg *m)
{
	cdc_data(m);
	m->seqno = 9;
	m->urg_data_pending = true;
	m->urg_data_present = true;
	m->write_blocked = true;
	m->cons_curs_upd_req = true;
}

static void cdc_failover(struct smc_cdc_msg *m)
{
	cdc_data(m);
	m->seqno = 10;
	m->failover_validation = true;
}

static const struct {
	const char *name;
	enum smc_roce_sample_kind kind;
	void (*fill)(struct smc_cdc_msg *m);
} cdc_samples[] = {
	{ "cdc_r_data", SMC_SAMPLE_CDC_R, cdc_data },
	{ "cdc_r_close", SMC_SAMPLE_CDC_R, cdc_close },
	{ "cdc_r_abort", SMC_SAMPLE_CDC_R, cdc_abort },
	{ "cdc_r_urg", SMC_SAMPLE_CDC_R, cdc_urg },
	{ "cdc_r_failover", SMC_SAMPLE_CDC_R, cdc_failover },
	{ "cdc_d_data", SMC_SAMPLE_CDC_D, cdc_data },
	{ "cdc_d_close", SMC_SAMPLE_CDC_D, cdc_close },
	{ "cdc_d_urg", SMC_SAMPLE_CDC_D, cdc_urg },
};

#define N_CDC (sizeof(cdc_samples) / sizeof(cdc_samples[0]))

const char *smc_roce_sample(size_t i, uint8_t *buf, size_t *len,
			    enum smc_roce_sample_kind *kind)
{
	struct smc_cdc_msg m;

	*len = 0;
	if (i < N_CDC) {
		memset(&m, 0, sizeof(m));
		cdc_samples[i].fill(&m);
		*kind = cdc_samples[i].kind;
		if (*kind == SMC_SAMPLE_CDC_R) {
			if (!smc_cdc_encode_r(&m, buf, SMC_ROCE_SAMPLE_MAX))
				*len = SMC_CDC_R_LEN;
		} else {
			if (!smc_cdc_encode_d(&m, buf, SMC_ROCE_SAMPLE_MAX))
				*len = SMC_CDC_D_LEN;
		}
		return cdc_samples[i].name;
	}
	return NULL;
}
