// SPDX-License-Identifier: GPL-2.0
/*
 * Sample CLC messages, one per variant. See clc_samples.h.
 */
#include "clc_samples.h"
#include "smc_decline.h"

static void pattern(uint8_t *p, size_t n, uint8_t seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)(seed + 7 * i);
}

/* blank-padded text field, as Linux sends EIDs and host names */
static void text(uint8_t *p, size_t n, const char *s)
{
	size_t i;

	memset(p, ' ', n);
	for (i = 0; i < n && s[i]; i++)
		p[i] = (uint8_t)s[i];
}

static void ipv4_mapped_gid(uint8_t *gid, uint8_t a, uint8_t b, uint8_t c,
			    uint8_t d)
{
	memset(gid, 0, SMC_CLC_GID_LEN);
	gid[10] = 0xff;
	gid[11] = 0xff;
	gid[12] = a;
	gid[13] = b;
	gid[14] = c;
	gid[15] = d;
}

static void hdr(struct smc_clc_hdr *h, uint8_t type, uint8_t version,
		uint8_t typev1, uint8_t typev2, uint8_t ec)
{
	h->type = type;
	h->version = version;
	h->typev1 = typev1;
	h->typev2 = typev2;
	h->eyecatcher = ec;
	h->trl_eyecatcher = ec;
}

static void prop_local(struct smc_clc_proposal *p)
{
	pattern(p->peer_id, sizeof(p->peer_id), 0x11);
	ipv4_mapped_gid(p->gid, 192, 168, 10, 1);
	pattern(p->mac, sizeof(p->mac), 0x52);
}

static void prop_ipv4(struct smc_clc_proposal *p)
{
	p->ipv4_subnet = 0xc0a80a00;	/* 192.168.10.0 */
	p->ipv4_prefix_len = 24;
}

static void prop_ipv6(struct smc_clc_proposal *p, uint8_t cnt)
{
	uint8_t i;

	p->ipv6_prefix_cnt = cnt;
	for (i = 0; i < cnt; i++) {
		p->ipv6_prefix[i].prefix[0] = 0xfd;
		p->ipv6_prefix[i].prefix[1] = 0x00;
		p->ipv6_prefix[i].prefix[7] = (uint8_t)(i + 1);
		p->ipv6_prefix[i].prefix_len = 64;
	}
}

static void prop_ueids(struct smc_clc_proposal *p, uint8_t cnt)
{
	static const char *const names[SMC_CLC_MAX_UEID] = {
		"SMC-EID-ONE", "SMC-EID-TWO", "SMC-EID-3", "SMC-EID-4",
		"SMC-EID-5", "SMC-EID-6", "SMC-EID-7", "SMC-EID-8.LAST",
	};
	uint8_t i;

	p->eid_cnt = cnt;
	for (i = 0; i < cnt; i++)
		text(p->user_eid[i], SMC_CLC_EID_LEN, names[i]);
}

static void prop_ism(struct smc_clc_proposal *p, uint8_t cnt)
{
	uint8_t i;

	text(p->system_eid, SMC_CLC_EID_LEN, "IBM-SYSZ-ISMSEID00000000");
	p->ism_gid_cnt = cnt;
	for (i = 0; i < cnt; i++) {
		p->ism_dev[i].gid = 0x0102030405060700ULL + i;
		p->ism_dev[i].chid = (uint16_t)(0x0300 + i);
	}
}

static void ac_smcr(struct smc_clc_accept_confirm *ac)
{
	pattern(ac->r.peer_id, sizeof(ac->r.peer_id), 0x21);
	ipv4_mapped_gid(ac->r.gid, 192, 168, 10, 2);
	pattern(ac->r.mac, sizeof(ac->r.mac), 0x62);
	ac->r.qpn = 0x00abcd;
	ac->r.rmb_rkey = 0x1234abcd;
	ac->r.rmbe_idx = 1;
	ac->r.rmbe_alert_token = 0x00000007;
	ac->r.rmbe_size = 3;
	ac->r.qp_mtu = 3;
	ac->r.rmb_dma_addr = 0x00000001deadb000ULL;
	ac->r.psn = 0x654321;
}

static void ac_smcd(struct smc_clc_accept_confirm *ac)
{
	ac->d.gid = 0x0807060504030201ULL;
	ac->d.token = 0x1122334455667788ULL;
	ac->d.dmbe_idx = 0;
	ac->d.dmbe_size = 2;
	ac->d.linkid = 0x00010203;
}

static void ac_fce(struct smc_clc_accept_confirm *ac, bool v2x)
{
	ac->fce.os_type = SMC_CLC_OS_LINUX;
	ac->fce.release = SMC_CLC_RELEASE_0;
	text(ac->fce.hostname, SMC_CLC_HOSTNAME_LEN, "smc-host-a");
	ac->fce.has_v2x = v2x;
}

typedef void (*sample_fn)(struct smc_clc_msg *m);

/* ------------------------------------------------------------ proposals */

static void prop_v1_smcr(struct smc_clc_msg *m)
{
	struct smc_clc_proposal *p = &m->proposal;

	hdr(&p->hdr, SMC_CLC_PROPOSAL, SMC_CLC_V1, SMC_CLC_TYPE_R, 0,
	    SMC_CLC_EC_SMCR);
	prop_local(p);
	prop_ipv4(p);
}

/* SMC-R only with the (unused) SMC-D area, as Wireshark expects it */
static void prop_v1_smcr_area(struct smc_clc_msg *m)
{
	prop_v1_smcr(m);
	m->proposal.v1_smcd_area = true;
}

static void prop_v1_smcd(struct smc_clc_msg *m)
{
	struct smc_clc_proposal *p = &m->proposal;

	hdr(&p->hdr, SMC_CLC_PROPOSAL, SMC_CLC_V1, SMC_CLC_TYPE_D, 0,
	    SMC_CLC_EC_SMCR);
	p->v1_smcd_area = true;
	p->ism_gid = 0xa1a2a3a4a5a6a7a8ULL;
	prop_ipv4(p);
}

static void prop_v1_both_ipv6(struct smc_clc_msg *m)
{
	struct smc_clc_proposal *p = &m->proposal;

	hdr(&p->hdr, SMC_CLC_PROPOSAL, SMC_CLC_V1, SMC_CLC_TYPE_B, 0,
	    SMC_CLC_EC_SMCR);
	prop_local(p);
	p->v1_smcd_area = true;
	p->ism_gid = 0xa1a2a3a4a5a6a7a8ULL;
	prop_ipv6(p, 2);
}

/* what Linux 6.1 sends with RoCE and ISMv2 devices and one UEID */
static void prop_v2_all(struct smc_clc_msg *m)
{
	struct smc_clc_proposal *p = &m->proposal;

	hdr(&p->hdr, SMC_CLC_PROPOSAL, SMC_CLC_V2, SMC_CLC_TYPE_B,
	    SMC_CLC_TYPE_B, SMC_CLC_EC_SMCR);
	prop_local(p);
	p->ism_gid = 0x0102030405060700ULL;
	p->ism_chid = 0x0300;
	prop_ipv4(p);
	p->seid = true;
	ipv4_mapped_gid(p->roce_gid, 192, 168, 10, 1);
	prop_ueids(p, 1);
	prop_ism(p, 2);
}

static void prop_v2_smcd_v2only(struct smc_clc_msg *m)
{
	struct smc_clc_proposal *p = &m->proposal;

	hdr(&p->hdr, SMC_CLC_PROPOSAL, SMC_CLC_V2, SMC_CLC_TYPE_N,
	    SMC_CLC_TYPE_D, SMC_CLC_EC_SMCR);
	p->seid = true;
	prop_ism(p, 1);
}

static void prop_v2_smcr_v2only(struct smc_clc_msg *m)
{
	struct smc_clc_proposal *p = &m->proposal;

	hdr(&p->hdr, SMC_CLC_PROPOSAL, SMC_CLC_V2, SMC_CLC_TYPE_N,
	    SMC_CLC_TYPE_R, SMC_CLC_EC_SMCR);
	ipv4_mapped_gid(p->roce_gid, 10, 0, 0, 5);
	prop_ueids(p, 2);
}

static void prop_v2_v1only_ipv6(struct smc_clc_msg *m)
{
	struct smc_clc_proposal *p = &m->proposal;

	hdr(&p->hdr, SMC_CLC_PROPOSAL, SMC_CLC_V2, SMC_CLC_TYPE_R,
	    SMC_CLC_TYPE_N, SMC_CLC_EC_SMCR);
	prop_local(p);
	prop_ipv6(p, 1);
}

static void prop_v2_smcr_both(struct smc_clc_msg *m)
{
	struct smc_clc_proposal *p = &m->proposal;

	hdr(&p->hdr, SMC_CLC_PROPOSAL, SMC_CLC_V2, SMC_CLC_TYPE_R,
	    SMC_CLC_TYPE_R, SMC_CLC_EC_SMCR);
	prop_local(p);
	prop_ipv4(p);
	ipv4_mapped_gid(p->roce_gid, 192, 168, 10, 1);
}

static void prop_v2_none(struct smc_clc_msg *m)
{
	struct smc_clc_proposal *p = &m->proposal;

	hdr(&p->hdr, SMC_CLC_PROPOSAL, SMC_CLC_V2, SMC_CLC_TYPE_N,
	    SMC_CLC_TYPE_N, SMC_CLC_EC_SMCR);
}

static void prop_v2_max(struct smc_clc_msg *m)
{
	struct smc_clc_proposal *p = &m->proposal;

	hdr(&p->hdr, SMC_CLC_PROPOSAL, SMC_CLC_V2, SMC_CLC_TYPE_B,
	    SMC_CLC_TYPE_B, SMC_CLC_EC_SMCD);
	p->hdr.trl_eyecatcher = SMC_CLC_EC_SMCR;
	prop_local(p);
	p->ism_gid = 0x0102030405060700ULL;
	p->ism_chid = 0x0300;
	prop_ipv6(p, SMC_CLC_MAX_V6_PREFIX);
	p->seid = true;
	ipv4_mapped_gid(p->roce_gid, 192, 168, 10, 1);
	prop_ueids(p, SMC_CLC_MAX_UEID);
	prop_ism(p, SMC_CLC_MAX_ISM_GIDS);
}

static void prop_v2_release1(struct smc_clc_msg *m)
{
	struct smc_clc_proposal *p = &m->proposal;

	prop_v2_smcr_both(m);
	p->hdr.typev2 = SMC_CLC_TYPE_B;
	p->release = SMC_CLC_RELEASE_1;
	p->max_conns = 255;
	p->max_links = 2;
	p->feature_mask = 0x0001;
	prop_ism(p, 0);
	p->seid = false;
}

/* ------------------------------------------------------ accept/confirm */

static void acc_smcr_v1(struct smc_clc_msg *m)
{
	struct smc_clc_accept_confirm *ac = &m->accept_confirm;

	hdr(&ac->hdr, SMC_CLC_ACCEPT, SMC_CLC_V1, SMC_CLC_TYPE_R,
	    SMC_CLC_FIRST_CONTACT, SMC_CLC_EC_SMCR);
	ac_smcr(ac);
}

static void conf_smcr_v1(struct smc_clc_msg *m)
{
	struct smc_clc_accept_confirm *ac = &m->accept_confirm;

	hdr(&ac->hdr, SMC_CLC_CONFIRM, SMC_CLC_V1, SMC_CLC_TYPE_R, 0,
	    SMC_CLC_EC_SMCR);
	ac_smcr(ac);
}

static void acc_smcd_v1(struct smc_clc_msg *m)
{
	struct smc_clc_accept_confirm *ac = &m->accept_confirm;

	hdr(&ac->hdr, SMC_CLC_ACCEPT, SMC_CLC_V1, SMC_CLC_TYPE_D,
	    SMC_CLC_FIRST_CONTACT, SMC_CLC_EC_SMCD);
	ac_smcd(ac);
}

static void conf_smcd_v1(struct smc_clc_msg *m)
{
	struct smc_clc_accept_confirm *ac = &m->accept_confirm;

	hdr(&ac->hdr, SMC_CLC_CONFIRM, SMC_CLC_V1, SMC_CLC_TYPE_D, 0,
	    SMC_CLC_EC_SMCD);
	ac_smcd(ac);
}

static void acc_smcd_v2(struct smc_clc_msg *m)
{
	struct smc_clc_accept_confirm *ac = &m->accept_confirm;

	hdr(&ac->hdr, SMC_CLC_ACCEPT, SMC_CLC_V2, SMC_CLC_TYPE_D, 0,
	    SMC_CLC_EC_SMCD);
	ac_smcd(ac);
	ac->d.chid = 0x0301;
	text(ac->eid, SMC_CLC_EID_LEN, "IBM-SYSZ-ISMSEID00000000");
}

static void conf_smcd_v2(struct smc_clc_msg *m)
{
	acc_smcd_v2(m);
	m->accept_confirm.hdr.type = SMC_CLC_CONFIRM;
}

static void acc_smcd_v2_fc(struct smc_clc_msg *m)
{
	struct smc_clc_accept_confirm *ac = &m->accept_confirm;

	acc_smcd_v2(m);
	ac->hdr.typev2 = SMC_CLC_FIRST_CONTACT;
	ac_fce(ac, false);
}

static void conf_smcd_v2_fc(struct smc_clc_msg *m)
{
	struct smc_clc_accept_confirm *ac = &m->accept_confirm;

	acc_smcd_v2_fc(m);
	ac->hdr.type = SMC_CLC_CONFIRM;
}

static void acc_smcd_v21_fc(struct smc_clc_msg *m)
{
	struct smc_clc_accept_confirm *ac = &m->accept_confirm;

	acc_smcd_v2_fc(m);
	ac->fce.release = SMC_CLC_RELEASE_1;
	ac->fce.has_v2x = true;
}

static void conf_smcd_v21_fc(struct smc_clc_msg *m)
{
	struct smc_clc_accept_confirm *ac = &m->accept_confirm;

	conf_smcd_v2_fc(m);
	ac->fce.release = SMC_CLC_RELEASE_1;
	ac->fce.has_v2x = true;
	ac->fce.vendor_exp_options = 0x00000001;
}

static void acc_smcr_v2(struct smc_clc_msg *m)
{
	struct smc_clc_accept_confirm *ac = &m->accept_confirm;

	hdr(&ac->hdr, SMC_CLC_ACCEPT, SMC_CLC_V2, SMC_CLC_TYPE_R, 0,
	    SMC_CLC_EC_SMCR);
	ac_smcr(ac);
	text(ac->eid, SMC_CLC_EID_LEN, "SMC-EID-ONE");
}

static void acc_smcr_v2_fc(struct smc_clc_msg *m)
{
	struct smc_clc_accept_confirm *ac = &m->accept_confirm;

	acc_smcr_v2(m);
	ac->hdr.typev2 = SMC_CLC_FIRST_CONTACT;
	ac_fce(ac, true);
	ac->fce.v2_direct = true;
}

static void conf_smcr_v2_fc(struct smc_clc_msg *m)
{
	struct smc_clc_accept_confirm *ac = &m->accept_confirm;

	acc_smcr_v2_fc(m);
	ac->hdr.type = SMC_CLC_CONFIRM;
	ac->gid_cnt = 2;
	ipv4_mapped_gid(ac->gid_list[0], 192, 168, 10, 2);
	ipv4_mapped_gid(ac->gid_list[1], 192, 168, 11, 2);
}

static void conf_smcr_v2_fc_max(struct smc_clc_msg *m)
{
	struct smc_clc_accept_confirm *ac = &m->accept_confirm;
	uint8_t i;

	conf_smcr_v2_fc(m);
	ac->fce.v2_direct = false;
	ac->fce.release = SMC_CLC_RELEASE_1;
	ac->fce.max_conns = 255;
	ac->fce.max_links = 2;
	ac->gid_cnt = SMC_CLC_MAX_GIDS;
	for (i = 0; i < SMC_CLC_MAX_GIDS; i++)
		ipv4_mapped_gid(ac->gid_list[i], 10, 1, i, 2);
}

static void conf_smcr_v2_fc_nogid(struct smc_clc_msg *m)
{
	struct smc_clc_accept_confirm *ac = &m->accept_confirm;

	conf_smcr_v2_fc(m);
	ac->gid_cnt = 0;
	memset(ac->gid_list, 0, sizeof(ac->gid_list));
}

static void conf_smcr_v2(struct smc_clc_msg *m)
{
	struct smc_clc_accept_confirm *ac = &m->accept_confirm;

	acc_smcr_v2(m);
	ac->hdr.type = SMC_CLC_CONFIRM;
}

/* ------------------------------------------------------------- declines */

static void decl_v1(struct smc_clc_msg *m)
{
	struct smc_clc_decline *d = &m->decline;

	hdr(&d->hdr, SMC_CLC_DECLINE, SMC_CLC_V1, SMC_CLC_TYPE_R, 0,
	    SMC_CLC_EC_SMCR);
	pattern(d->peer_id, sizeof(d->peer_id), 0x31);
	d->diagnosis = SMC_CLC_DECL_NOSMCRDEV;
}

static void decl_v2(struct smc_clc_msg *m)
{
	struct smc_clc_decline *d = &m->decline;

	hdr(&d->hdr, SMC_CLC_DECLINE, SMC_CLC_V2, SMC_CLC_TYPE_R, 0,
	    SMC_CLC_EC_SMCR);
	pattern(d->peer_id, sizeof(d->peer_id), 0x31);
	d->diagnosis = SMC_CLC_DECL_PEERNOSMC;
	d->os_type = SMC_CLC_OS_LINUX;
}

static void decl_v2_sync(struct smc_clc_msg *m)
{
	struct smc_clc_decline *d = &m->decline;

	hdr(&d->hdr, SMC_CLC_DECLINE, SMC_CLC_V2, SMC_CLC_TYPE_D,
	    SMC_CLC_OUT_OF_SYNC, SMC_CLC_EC_SMCD);
	d->diagnosis = SMC_CLC_DECL_SYNCERR;
	d->os_type = SMC_CLC_OS_ZOS;
	d->diagnosis_v2[0] = SMC_CLC_DECL_NOSMCD2DEV;
	d->diagnosis_v2[1] = SMC_CLC_DECL_NOUEID;
	d->diagnosis_v2[3] = SMC_CLC_DECL_INTERR;
}

static const struct {
	const char *name;
	sample_fn fn;
} samples[] = {
	{ "prop_v1_smcr", prop_v1_smcr },
	{ "prop_v1_smcr_area", prop_v1_smcr_area },
	{ "prop_v1_smcd", prop_v1_smcd },
	{ "prop_v1_both_ipv6", prop_v1_both_ipv6 },
	{ "prop_v2_all", prop_v2_all },
	{ "prop_v2_smcd_v2only", prop_v2_smcd_v2only },
	{ "prop_v2_smcr_v2only", prop_v2_smcr_v2only },
	{ "prop_v2_v1only_ipv6", prop_v2_v1only_ipv6 },
	{ "prop_v2_smcr_both", prop_v2_smcr_both },
	{ "prop_v2_none", prop_v2_none },
	{ "prop_v2_max", prop_v2_max },
	{ "prop_v2_release1", prop_v2_release1 },
	{ "acc_smcr_v1", acc_smcr_v1 },
	{ "conf_smcr_v1", conf_smcr_v1 },
	{ "acc_smcd_v1", acc_smcd_v1 },
	{ "conf_smcd_v1", conf_smcd_v1 },
	{ "acc_smcd_v2", acc_smcd_v2 },
	{ "conf_smcd_v2", conf_smcd_v2 },
	{ "acc_smcd_v2_fc", acc_smcd_v2_fc },
	{ "conf_smcd_v2_fc", conf_smcd_v2_fc },
	{ "acc_smcd_v21_fc", acc_smcd_v21_fc },
	{ "conf_smcd_v21_fc", conf_smcd_v21_fc },
	{ "acc_smcr_v2", acc_smcr_v2 },
	{ "conf_smcr_v2", conf_smcr_v2 },
	{ "acc_smcr_v2_fc", acc_smcr_v2_fc },
	{ "conf_smcr_v2_fc", conf_smcr_v2_fc },
	{ "conf_smcr_v2_fc_nogid", conf_smcr_v2_fc_nogid },
	{ "conf_smcr_v2_fc_max", conf_smcr_v2_fc_max },
	{ "decl_v1", decl_v1 },
	{ "decl_v2", decl_v2 },
	{ "decl_v2_sync", decl_v2_sync },
};

size_t smc_clc_sample_count(void)
{
	return sizeof(samples) / sizeof(samples[0]);
}

const char *smc_clc_sample(size_t i, struct smc_clc_msg *msg)
{
	if (i >= smc_clc_sample_count())
		return NULL;
	memset(msg, 0, sizeof(*msg));
	samples[i].fn(msg);
	return samples[i].name;
}
