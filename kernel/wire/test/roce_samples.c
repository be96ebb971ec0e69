// SPDX-License-Identifier: GPL-2.0
/* Sample CDC and LLC messages; see roce_samples.h. */
#include "roce_samples.h"
#include "smc_llc.h"

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

/* ------------------------------------------------------------------ LLC */

static const uint8_t mac[6] = { 0x02, 0x00, 0x00, 0x0a, 0x0b, 0x0c };
/* IPv4-mapped RoCE GID of 192.168.10.1 */
static const uint8_t gid[16] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff,
				 192, 168, 10, 1 };

static void confirm_link(struct smc_llc_msg *m)
{
	struct smc_llc_confirm_link *c = &m->confirm_link;

	m->type = SMC_LLC_CONFIRM_LINK;
	memcpy(c->sender_mac, mac, sizeof(mac));
	memcpy(c->sender_gid, gid, sizeof(gid));
	c->sender_qpn = 0x000123;
	c->link_num = 1;
	c->link_uid[0] = 0xde;
	c->link_uid[1] = 0xad;
	c->link_uid[2] = 0xbe;
	c->link_uid[3] = 0xef;
	c->max_links = 2;
	c->no_rmbe_eyec = true;
}

static void confirm_link_resp(struct smc_llc_msg *m)
{
	confirm_link(m);
	m->response = true;
	m->confirm_link.sender_qpn = 0x000456;
	m->confirm_link.sender_mac[5] = 0x0d;
	m->confirm_link.sender_gid[15] = 2;
}

static void add_link(struct smc_llc_msg *m)
{
	struct smc_llc_add_link *a = &m->add_link;

	m->type = SMC_LLC_ADD_LINK;
	memcpy(a->sender_mac, mac, sizeof(mac));
	memcpy(a->sender_gid, gid, sizeof(gid));
	a->sender_gid[14] = 11;		/* 192.168.11.1: the second device */
	a->sender_qpn = 0x000789;
	a->link_num = 2;
	a->qp_mtu = 3;			/* IB_MTU_1024 */
	a->initial_psn = 0x654321;
}

static void add_link_rej(struct smc_llc_msg *m)
{
	m->type = SMC_LLC_ADD_LINK;
	m->response = true;
	m->add_link.rejected = true;
	m->add_link.reject_reason = SMC_LLC_REJ_RSN_NO_ALT_PATH;
}

static void add_link_cont(struct smc_llc_msg *m)
{
	struct smc_llc_add_link_cont *a = &m->add_link_cont;

	m->type = SMC_LLC_ADD_LINK_CONT;
	a->link_num = 2;
	a->num_rkeys = 3;
	a->rt[0].rkey = 0x00001111;
	a->rt[0].rkey_new = 0x00002111;
	a->rt[0].vaddr_new = 0x00000001c0de0000ULL;
	a->rt[1].rkey = 0x00001222;
	a->rt[1].rkey_new = 0x00002222;
	a->rt[1].vaddr_new = 0x00000001c0df0000ULL;
}

static void add_link_cont_last(struct smc_llc_msg *m)
{
	struct smc_llc_add_link_cont *a = &m->add_link_cont;

	m->type = SMC_LLC_ADD_LINK_CONT;
	m->response = true;
	a->link_num = 2;
	a->num_rkeys = 1;
	a->rt[0].rkey = 0x00001333;
	a->rt[0].rkey_new = 0x00002333;
	a->rt[0].vaddr_new = 0x00000001c0e00000ULL;
}

static void delete_link_all(struct smc_llc_msg *m)
{
	m->type = SMC_LLC_DELETE_LINK;
	m->delete_link.all = true;
	m->delete_link.orderly = true;
	m->delete_link.reason = SMC_LLC_DEL_PROG_INIT_TERM;
}

static void delete_link_one(struct smc_llc_msg *m)
{
	m->type = SMC_LLC_DELETE_LINK;
	m->response = true;
	m->delete_link.link_num = 2;
	m->delete_link.orderly = true;	/* without all: tells the two apart */
	m->delete_link.reason = SMC_LLC_DEL_LOST_PATH;
}

static void confirm_rkey(struct smc_llc_msg *m)
{
	struct smc_llc_confirm_rkey *c = &m->confirm_rkey;

	m->type = SMC_LLC_CONFIRM_RKEY;
	c->num_rkeys = 1;
	c->rtoken[0].rkey = 0x00003aaa;
	c->rtoken[0].vaddr = 0x00000002beef0000ULL;
	c->rtoken[1].link_id = 2;
	c->rtoken[1].rkey = 0x00003bbb;
	c->rtoken[1].vaddr = 0x00000002beef8000ULL;
}

static void confirm_rkey_max(struct smc_llc_msg *m)
{
	confirm_rkey(m);
	m->confirm_rkey.num_rkeys = 2;
	m->confirm_rkey.rtoken[2].link_id = 3;
	m->confirm_rkey.rtoken[2].rkey = 0x00003ccc;
	m->confirm_rkey.rtoken[2].vaddr = 0xfffffffffffff000ULL;
}

static void confirm_rkey_neg(struct smc_llc_msg *m)
{
	m->type = SMC_LLC_CONFIRM_RKEY;
	m->response = true;
	m->confirm_rkey.negative = true;
	m->confirm_rkey.retry = true;
}

static void confirm_rkey_cont(struct smc_llc_msg *m)
{
	struct smc_llc_confirm_rkey_cont *c = &m->confirm_rkey_cont;

	m->type = SMC_LLC_CONFIRM_RKEY_CONT;
	c->num_rkeys = 2;
	c->rtoken[0].link_id = 1;
	c->rtoken[0].rkey = 0x00004aaa;
	c->rtoken[0].vaddr = 0x0000000300000000ULL;
	c->rtoken[1].link_id = 2;
	c->rtoken[1].rkey = 0x00004bbb;
	c->rtoken[1].vaddr = 0x0000000300010000ULL;
}

static void confirm_rkey_cont_resp(struct smc_llc_msg *m)
{
	/* retry without negative: tells the two flag bits apart */
	m->type = SMC_LLC_CONFIRM_RKEY_CONT;
	m->response = true;
	m->confirm_rkey_cont.retry = true;
}

static void delete_rkey(struct smc_llc_msg *m)
{
	struct smc_llc_delete_rkey *d = &m->delete_rkey;

	m->type = SMC_LLC_DELETE_RKEY;
	d->num_rkeys = 3;
	d->rkey[0] = 0x00005001;
	d->rkey[1] = 0x00005002;
	d->rkey[2] = 0x00005003;
}

static void delete_rkey_resp(struct smc_llc_msg *m)
{
	struct smc_llc_delete_rkey *d = &m->delete_rkey;

	m->type = SMC_LLC_DELETE_RKEY;
	m->response = true;
	d->negative = true;
	d->num_rkeys = 8;
	d->err_mask = 0x41;		/* rkey[1] and rkey[7] unknown */
	for (uint8_t i = 0; i < 8; i++)
		d->rkey[i] = 0x00006000u + i;
}

static void test_link(struct smc_llc_msg *m)
{
	static const char data[16] = "SMC-R keepalive";

	m->type = SMC_LLC_TEST_LINK;
	memcpy(m->test_link.user_data, data, sizeof(data));
}

static void test_link_resp(struct smc_llc_msg *m)
{
	test_link(m);
	m->response = true;
}

/*
 * SMC-Rv2 link groups: the messages a single-link v2 group sends, with the
 * v2 header (v2_len 44, as decoded).
 */
static void v2(struct smc_llc_msg *m)
{
	m->v2 = true;
	m->v2_len = SMC_LLC_MSG_LEN;
}

static void v2_confirm_link(struct smc_llc_msg *m)
{
	confirm_link(m);
	v2(m);
}

static void v2_confirm_link_resp(struct smc_llc_msg *m)
{
	confirm_link_resp(m);
	v2(m);
}

/*
 * v2 ADD LINK: the reject, whose 44 bytes are all of it (a request and an
 * accepting response have the v2 extension after them, which these 44-byte
 * samples cannot hold)
 */
static void v2_add_link_rej(struct smc_llc_msg *m)
{
	add_link_rej(m);
	m->add_link.reject_reason = 0;	/* no room in a v2 header */
	v2(m);
}

static void v2_delete_link_all(struct smc_llc_msg *m)
{
	delete_link_all(m);
	v2(m);
}

static void v2_confirm_rkey(struct smc_llc_msg *m)
{
	confirm_rkey(m);
	v2(m);
}

static void v2_test_link(struct smc_llc_msg *m)
{
	test_link(m);
	v2(m);
}

static void v2_test_link_resp(struct smc_llc_msg *m)
{
	test_link_resp(m);
	v2(m);
}

static void v2_delete_rkey(struct smc_llc_msg *m)
{
	delete_rkey(m);
	v2(m);
}

/* v2: byte 5 counts the rkeys not found (Linux's num_inval_rkeys) */
static void v2_delete_rkey_resp(struct smc_llc_msg *m)
{
	delete_rkey(m);
	m->response = true;
	m->delete_rkey.negative = true;
	m->delete_rkey.err_mask = 1;
	v2(m);
}

static const struct {
	const char *name;
	void (*fill)(struct smc_llc_msg *m);
} llc_samples[] = {
	{ "llc_confirm_link", confirm_link },
	{ "llc_confirm_link_resp", confirm_link_resp },
	{ "llc_add_link", add_link },
	{ "llc_add_link_rej", add_link_rej },
	{ "llc_add_link_cont", add_link_cont },
	{ "llc_add_link_cont_last", add_link_cont_last },
	{ "llc_delete_link_all", delete_link_all },
	{ "llc_delete_link_one", delete_link_one },
	{ "llc_confirm_rkey", confirm_rkey },
	{ "llc_confirm_rkey_max", confirm_rkey_max },
	{ "llc_confirm_rkey_neg", confirm_rkey_neg },
	{ "llc_confirm_rkey_cont", confirm_rkey_cont },
	{ "llc_confirm_rkey_cont_resp", confirm_rkey_cont_resp },
	{ "llc_delete_rkey", delete_rkey },
	{ "llc_delete_rkey_resp", delete_rkey_resp },
	{ "llc_test_link", test_link },
	{ "llc_test_link_resp", test_link_resp },
	{ "llc_v2_confirm_link", v2_confirm_link },
	{ "llc_v2_confirm_link_resp", v2_confirm_link_resp },
	{ "llc_v2_add_link_rej", v2_add_link_rej },
	{ "llc_v2_delete_link_all", v2_delete_link_all },
	{ "llc_v2_confirm_rkey", v2_confirm_rkey },
	{ "llc_v2_test_link", v2_test_link },
	{ "llc_v2_test_link_resp", v2_test_link_resp },
	{ "llc_v2_delete_rkey", v2_delete_rkey },
	{ "llc_v2_delete_rkey_resp", v2_delete_rkey_resp },
};

#define N_LLC (sizeof(llc_samples) / sizeof(llc_samples[0]))

size_t smc_llc_sample_count(void)
{
	return N_LLC;
}

const char *smc_llc_sample(size_t i, struct smc_llc_msg *m)
{
	if (i >= N_LLC)
		return NULL;
	memset(m, 0, sizeof(*m));
	llc_samples[i].fill(m);
	return llc_samples[i].name;
}

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
	i -= N_CDC;
	if (i < N_LLC) {
		struct smc_llc_msg lm;
		const char *name = smc_llc_sample(i, &lm);

		*kind = SMC_SAMPLE_LLC;
		if (!smc_llc_encode(&lm, buf, SMC_ROCE_SAMPLE_MAX))
			*len = SMC_LLC_MSG_LEN;
		return name;
	}
	return NULL;
}
