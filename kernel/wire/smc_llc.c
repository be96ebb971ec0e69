// SPDX-License-Identifier: GPL-2.0
/*
 * SMC-R LLC encode/decode, v1 and the v2 header. See smc_llc.h for the
 * contract and smc_llc_layout.h for the byte layouts.
 *
 * Every message is 44 bytes, so the decoder checks the received length once
 * and then reads fixed offsets; the only input-dependent values are the
 * counts, and each is compared with its limit before it selects entries.
 * The ADD LINK v2 extension is the one variable-length part: its number of
 * entries is derived from the length it is given, never from its count
 * field.
 */
#include "smc_llc.h"
#include "smc_llc_layout.h"

#define MSG_LEN		SMC_LLC_MSG_LEN
#define HDR(m)		SMC_LLC_OFF(smc_llc_wire_hdr, m)
#define OFF(t, m)	SMC_LLC_OFF(smc_llc_wire_##t, m)
#define RT_OFF(m)	SMC_LLC_OFF(smc_llc_wire_rtoken, m)
#define ART_OFF(m)	SMC_LLC_OFF(smc_llc_wire_add_link_cont_rt, m)
#define RT_LEN		SMC_LLC_SZ(smc_llc_wire_rtoken)
#define ART_LEN		SMC_LLC_SZ(smc_llc_wire_add_link_cont_rt)
#define EXT_OFF(m)	SMC_LLC_OFF(smc_llc_wire_add_link_ext, m)
#define EXT_LEN		SMC_LLC_SZ(smc_llc_wire_add_link_ext)

SMC_WIRE_STATIC_ASSERT(SMC_LLC_SZ(smc_llc_wire_confirm_link) == MSG_LEN &&
		       SMC_LLC_SZ(smc_llc_wire_delete_rkey) == MSG_LEN,
		       "all v1 LLC messages are 44 bytes");
SMC_WIRE_STATIC_ASSERT(SMC_LLC_SZ(smc_llc_wire_add_link_ext) == SMC_LLC_ADD_EXT_LEN &&
		       SMC_LLC_SZ(smc_llc_wire_add_link_cont_rt) == SMC_LLC_ADD_EXT_RT_LEN,
		       "smc_llc_add_ext_len() counts the wire layout's bytes");

static uint8_t min_u8(uint8_t a, uint8_t b)
{
	return a < b ? a : b;
}

/* ---------------------------------------------------------------- tokens */

static void get_rtoken(const uint8_t *p, struct smc_llc_rtoken *t)
{
	t->link_id = p[RT_OFF(link_id)];
	t->rkey = smc_wire_get_be32(p + RT_OFF(rmb_key));
	t->vaddr = smc_wire_get_be64(p + RT_OFF(rmb_vaddr));
}

static void put_rtoken(uint8_t *p, const struct smc_llc_rtoken *t)
{
	p[RT_OFF(link_id)] = t->link_id;
	smc_wire_put_be32(p + RT_OFF(rmb_key), t->rkey);
	smc_wire_put_be64(p + RT_OFF(rmb_vaddr), t->vaddr);
}

/* ADD LINK CONTINUATION and the v2 extension share this entry layout */
static void get_add_rt(const uint8_t *p, struct smc_llc_add_cont_rt *rt)
{
	rt->rkey = smc_wire_get_be32(p + ART_OFF(rmb_key));
	rt->rkey_new = smc_wire_get_be32(p + ART_OFF(rmb_key_new));
	rt->vaddr_new = smc_wire_get_be64(p + ART_OFF(rmb_vaddr_new));
}

static void put_add_rt(uint8_t *p, const struct smc_llc_add_cont_rt *rt)
{
	smc_wire_put_be32(p + ART_OFF(rmb_key), rt->rkey);
	smc_wire_put_be32(p + ART_OFF(rmb_key_new), rt->rkey_new);
	smc_wire_put_be64(p + ART_OFF(rmb_vaddr_new), rt->vaddr_new);
}

/* -------------------------------------------------------------- decoders */

static void dec_confirm_link(const uint8_t *b, uint8_t flags,
			     struct smc_llc_confirm_link *c)
{
	memcpy(c->sender_mac, b + OFF(confirm_link, sender_mac),
	       SMC_LLC_MAC_LEN);
	memcpy(c->sender_gid, b + OFF(confirm_link, sender_gid),
	       SMC_LLC_GID_LEN);
	c->sender_qpn = smc_wire_get_be24(b + OFF(confirm_link, sender_qp_num));
	c->link_num = b[OFF(confirm_link, link_num)];
	memcpy(c->link_uid, b + OFF(confirm_link, link_uid),
	       SMC_LLC_LGR_ID_LEN);
	c->max_links = b[OFF(confirm_link, max_links)];
	c->max_conns = b[OFF(confirm_link, max_conns)];
	c->no_rmbe_eyec = (flags & SMC_LLC_FLAG_NO_RMBE_EYEC) ==
			  SMC_LLC_FLAG_NO_RMBE_EYEC;
}

static void dec_add_link(const uint8_t *b, uint8_t flags,
			 struct smc_llc_add_link *a)
{
	memcpy(a->sender_mac, b + OFF(add_link, sender_mac), SMC_LLC_MAC_LEN);
	memcpy(a->sender_gid, b + OFF(add_link, sender_gid), SMC_LLC_GID_LEN);
	a->sender_qpn = smc_wire_get_be24(b + OFF(add_link, sender_qp_num));
	a->link_num = b[OFF(add_link, link_num)];
	a->qp_mtu = b[OFF(add_link, qp_mtu)] & SMC_LLC_QP_MTU_MASK;
	a->initial_psn = smc_wire_get_be24(b + OFF(add_link, initial_psn));
	a->rejected = flags & SMC_LLC_FLAG_ADD_LNK_REJ;
	a->reject_reason = b[HDR(add_link_rej)] & SMC_LLC_HDR_REJ_RSN_MASK;
}

static void dec_add_link_cont(const uint8_t *b,
			      struct smc_llc_add_link_cont *a)
{
	const uint8_t *p = b + OFF(add_link_cont, rt);
	uint8_t i, n;

	a->link_num = b[OFF(add_link_cont, link_num)];
	a->num_rkeys = b[OFF(add_link_cont, num_rkeys)];
	/* a count of the rkeys still to come: only the first two are here */
	n = min_u8(a->num_rkeys, SMC_LLC_ADD_CONT_RKEYS);
	for (i = 0; i < n; i++, p += ART_LEN)
		get_add_rt(p, &a->rt[i]);
}

static void dec_delete_link(const uint8_t *b, uint8_t flags,
			    struct smc_llc_delete_link *d)
{
	d->link_num = b[OFF(delete_link, link_num)];
	d->reason = smc_wire_get_be32(b + OFF(delete_link, reason));
	d->all = flags & SMC_LLC_FLAG_DEL_LINK_ALL;
	d->orderly = flags & SMC_LLC_FLAG_DEL_LINK_ORDERLY;
}

static enum smc_llc_err dec_confirm_rkey(const uint8_t *b, uint8_t flags,
					 struct smc_llc_confirm_rkey *c)
{
	const uint8_t *p = b + OFF(confirm_rkey, rtoken);
	uint8_t i;

	/* rtoken[0]'s link_id byte is the number of further rtokens */
	c->num_rkeys = p[RT_OFF(link_id)];
	if (c->num_rkeys > SMC_LLC_RKEYS_PER_MSG - 1)
		return SMC_LLC_ERR_BAD_COUNT;
	c->rtoken[0].rkey = smc_wire_get_be32(p + RT_OFF(rmb_key));
	c->rtoken[0].vaddr = smc_wire_get_be64(p + RT_OFF(rmb_vaddr));
	for (i = 1; i <= c->num_rkeys; i++)
		get_rtoken(p + i * RT_LEN, &c->rtoken[i]);
	c->negative = flags & SMC_LLC_FLAG_RKEY_NEG;
	c->retry = flags & SMC_LLC_FLAG_RKEY_RETRY;
	return SMC_LLC_OK;
}

static void dec_confirm_rkey_cont(const uint8_t *b, uint8_t flags,
				  struct smc_llc_confirm_rkey_cont *c)
{
	const uint8_t *p = b + OFF(confirm_rkey_cont, rtoken);
	uint8_t i, n;

	c->num_rkeys = b[OFF(confirm_rkey_cont, num_rkeys)];
	n = min_u8(c->num_rkeys, SMC_LLC_RKEYS_PER_MSG);
	for (i = 0; i < n; i++)
		get_rtoken(p + i * RT_LEN, &c->rtoken[i]);
	c->negative = flags & SMC_LLC_FLAG_RKEY_NEG;
	c->retry = flags & SMC_LLC_FLAG_RKEY_RETRY;
}

static enum smc_llc_err dec_delete_rkey(const uint8_t *b, uint8_t flags,
					struct smc_llc_delete_rkey *d)
{
	uint8_t i;

	d->num_rkeys = b[OFF(delete_rkey, num_rkeys)];
	/*
	 * v1: Linux 6.1 clamps to 8; a count the message cannot hold is
	 * refused. v2: the same limit, since rkeys past the eighth would lie
	 * beyond the 44 bytes this code reads.
	 */
	if (d->num_rkeys > SMC_LLC_DEL_RKEY_MAX)
		return SMC_LLC_ERR_BAD_COUNT;
	/* v1 response: a mask; v2 response: a count. Kept as sent. */
	d->err_mask = b[OFF(delete_rkey, err_mask)];
	for (i = 0; i < d->num_rkeys; i++)
		d->rkey[i] = smc_wire_get_be32(b + OFF(delete_rkey, rkey) + 4 * i);
	d->negative = flags & SMC_LLC_FLAG_RKEY_NEG;
	return SMC_LLC_OK;
}

/*
 * The v2 header's length: big endian if that is a possible length, else
 * little endian (Linux 6.1 writes it in host order); 0 if neither is.
 */
static uint16_t v2_length(const uint8_t *b)
{
	const uint8_t *p = b + SMC_LLC_OFF(smc_llc_wire_hdr_v2, length);
	uint16_t be = (uint16_t)(p[0] << 8 | p[1]);
	uint16_t le = (uint16_t)(p[1] << 8 | p[0]);

	if (be >= MSG_LEN && be <= SMC_LLC_V2_MAX_LEN)
		return be;
	if (le >= MSG_LEN && le <= SMC_LLC_V2_MAX_LEN)
		return le;
	return 0;
}

/* Header checks of either version; sets m->type, m->v2, m->v2_len. */
static enum smc_llc_err dec_hdr(const uint8_t *b, size_t len,
				struct smc_llc_msg *m)
{
	uint8_t version = b[HDR(type)] >> SMC_LLC_HDR_VERSION_SHIFT;
	uint8_t type = b[HDR(type)] & SMC_LLC_HDR_TYPE_MASK;
	uint16_t v2_len;

	if (version == 0) {
		if (len > MSG_LEN)
			return SMC_LLC_ERR_TRAILING;
		if (!smc_llc_type_known(type))
			return SMC_LLC_ERR_BAD_TYPE;
		if (b[HDR(length)] != MSG_LEN)
			return SMC_LLC_ERR_BAD_LENGTH;
		m->type = type;
		return SMC_LLC_OK;
	}
	/* a CDC message (0xFE) and other bytes are no LLC type at all */
	if (version != SMC_LLC_VERSION_2)
		return SMC_LLC_ERR_BAD_TYPE;
	if (!smc_llc_type_known_v2(type))
		return SMC_LLC_ERR_BAD_VERSION;
	v2_len = v2_length(b);
	if (!v2_len)
		return SMC_LLC_ERR_BAD_LENGTH;
	if (len > v2_len)
		return SMC_LLC_ERR_TRAILING;
	m->type = type;
	m->v2 = true;
	m->v2_len = v2_len;
	return SMC_LLC_OK;
}

enum smc_llc_err smc_llc_decode(const void *buf, size_t len,
				struct smc_llc_msg *m)
{
	const uint8_t *b = (const uint8_t *)buf;
	enum smc_llc_err rc;
	uint8_t flags;

	if (!m)
		return SMC_LLC_ERR_INVAL;
	memset(m, 0, sizeof(*m));
	if (!b)
		return SMC_LLC_ERR_INVAL;
	if (len < MSG_LEN)
		return SMC_LLC_ERR_TRUNCATED;
	rc = dec_hdr(b, len, m);
	if (rc != SMC_LLC_OK) {
		memset(m, 0, sizeof(*m));
		return rc;
	}
	flags = b[HDR(flags)];
	m->response = flags & SMC_LLC_FLAG_RESP;

	switch (m->type) {
	case SMC_LLC_CONFIRM_LINK:
		dec_confirm_link(b, flags, &m->confirm_link);
		break;
	case SMC_LLC_ADD_LINK:
		dec_add_link(b, flags, &m->add_link);
		if (m->v2)	/* byte 2 is the length's */
			m->add_link.reject_reason = 0;
		break;
	case SMC_LLC_ADD_LINK_CONT:
		dec_add_link_cont(b, &m->add_link_cont);
		break;
	case SMC_LLC_DELETE_LINK:
		dec_delete_link(b, flags, &m->delete_link);
		break;
	case SMC_LLC_CONFIRM_RKEY:
		return dec_confirm_rkey(b, flags, &m->confirm_rkey);
	case SMC_LLC_CONFIRM_RKEY_CONT:
		dec_confirm_rkey_cont(b, flags, &m->confirm_rkey_cont);
		break;
	case SMC_LLC_DELETE_RKEY:
		return dec_delete_rkey(b, flags, &m->delete_rkey);
	case SMC_LLC_TEST_LINK:
		memcpy(m->test_link.user_data, b + OFF(test_link, user_data),
		       SMC_LLC_TEST_DATA_LEN);
		break;
	}
	return SMC_LLC_OK;
}

/* -------------------------------------------------------------- encoders */

static enum smc_llc_err enc_confirm_link(uint8_t *b, uint8_t *flags,
					 const struct smc_llc_confirm_link *c)
{
	if (c->sender_qpn > 0xffffff)
		return SMC_LLC_ERR_INVAL;
	memcpy(b + OFF(confirm_link, sender_mac), c->sender_mac,
	       SMC_LLC_MAC_LEN);
	memcpy(b + OFF(confirm_link, sender_gid), c->sender_gid,
	       SMC_LLC_GID_LEN);
	smc_wire_put_be24(b + OFF(confirm_link, sender_qp_num), c->sender_qpn);
	b[OFF(confirm_link, link_num)] = c->link_num;
	memcpy(b + OFF(confirm_link, link_uid), c->link_uid,
	       SMC_LLC_LGR_ID_LEN);
	b[OFF(confirm_link, max_links)] = c->max_links;
	b[OFF(confirm_link, max_conns)] = c->max_conns;
	if (c->no_rmbe_eyec)
		*flags |= SMC_LLC_FLAG_NO_RMBE_EYEC;
	return SMC_LLC_OK;
}

static enum smc_llc_err enc_add_link(uint8_t *b, uint8_t *flags,
				     const struct smc_llc_add_link *a)
{
	if (a->sender_qpn > 0xffffff || a->initial_psn > 0xffffff ||
	    a->qp_mtu > SMC_LLC_QP_MTU_MASK ||
	    a->reject_reason > SMC_LLC_HDR_REJ_RSN_MASK)
		return SMC_LLC_ERR_INVAL;
	memcpy(b + OFF(add_link, sender_mac), a->sender_mac, SMC_LLC_MAC_LEN);
	memcpy(b + OFF(add_link, sender_gid), a->sender_gid, SMC_LLC_GID_LEN);
	smc_wire_put_be24(b + OFF(add_link, sender_qp_num), a->sender_qpn);
	b[OFF(add_link, link_num)] = a->link_num;
	b[OFF(add_link, qp_mtu)] = a->qp_mtu;
	smc_wire_put_be24(b + OFF(add_link, initial_psn), a->initial_psn);
	b[HDR(add_link_rej)] = a->reject_reason;
	if (a->rejected)
		*flags |= SMC_LLC_FLAG_ADD_LNK_REJ;
	return SMC_LLC_OK;
}

static void enc_add_link_cont(uint8_t *b, const struct smc_llc_add_link_cont *a)
{
	uint8_t *p = b + OFF(add_link_cont, rt);
	uint8_t i, n = min_u8(a->num_rkeys, SMC_LLC_ADD_CONT_RKEYS);

	b[OFF(add_link_cont, link_num)] = a->link_num;
	b[OFF(add_link_cont, num_rkeys)] = a->num_rkeys;
	for (i = 0; i < n; i++, p += ART_LEN)
		put_add_rt(p, &a->rt[i]);
}

static void enc_delete_link(uint8_t *b, uint8_t *flags,
			    const struct smc_llc_delete_link *d)
{
	b[OFF(delete_link, link_num)] = d->link_num;
	smc_wire_put_be32(b + OFF(delete_link, reason), d->reason);
	if (d->all)
		*flags |= SMC_LLC_FLAG_DEL_LINK_ALL;
	if (d->orderly)
		*flags |= SMC_LLC_FLAG_DEL_LINK_ORDERLY;
}

static uint8_t rkey_flags(bool negative, bool retry)
{
	return (uint8_t)((negative ? SMC_LLC_FLAG_RKEY_NEG : 0) |
			 (retry ? SMC_LLC_FLAG_RKEY_RETRY : 0));
}

static enum smc_llc_err enc_confirm_rkey(uint8_t *b, uint8_t *flags,
					 const struct smc_llc_confirm_rkey *c)
{
	uint8_t *p = b + OFF(confirm_rkey, rtoken);
	uint8_t i;

	if (c->num_rkeys > SMC_LLC_RKEYS_PER_MSG - 1)
		return SMC_LLC_ERR_BAD_COUNT;
	for (i = 1; i <= c->num_rkeys; i++)
		put_rtoken(p + i * RT_LEN, &c->rtoken[i]);
	/* after the loop: rtoken[0]'s link_id byte carries the count */
	put_rtoken(p, &c->rtoken[0]);
	p[RT_OFF(link_id)] = c->num_rkeys;
	*flags |= rkey_flags(c->negative, c->retry);
	return SMC_LLC_OK;
}

static void enc_confirm_rkey_cont(uint8_t *b, uint8_t *flags,
				  const struct smc_llc_confirm_rkey_cont *c)
{
	uint8_t *p = b + OFF(confirm_rkey_cont, rtoken);
	uint8_t i, n = min_u8(c->num_rkeys, SMC_LLC_RKEYS_PER_MSG);

	b[OFF(confirm_rkey_cont, num_rkeys)] = c->num_rkeys;
	for (i = 0; i < n; i++)
		put_rtoken(p + i * RT_LEN, &c->rtoken[i]);
	*flags |= rkey_flags(c->negative, c->retry);
}

static enum smc_llc_err enc_delete_rkey(uint8_t *b, uint8_t *flags,
					const struct smc_llc_delete_rkey *d)
{
	uint8_t i;

	if (d->num_rkeys > SMC_LLC_DEL_RKEY_MAX)
		return SMC_LLC_ERR_BAD_COUNT;
	b[OFF(delete_rkey, num_rkeys)] = d->num_rkeys;
	b[OFF(delete_rkey, err_mask)] = d->err_mask;
	for (i = 0; i < d->num_rkeys; i++)
		smc_wire_put_be32(b + OFF(delete_rkey, rkey) + 4 * i, d->rkey[i]);
	*flags |= rkey_flags(d->negative, false);
	return SMC_LLC_OK;
}

enum smc_llc_err smc_llc_encode(const struct smc_llc_msg *m, void *buf,
				size_t cap)
{
	/* built on the stack first, so an error leaves buf untouched */
	uint8_t b[MSG_LEN];
	uint8_t flags = 0;
	enum smc_llc_err rc = SMC_LLC_OK;

	if (!m)
		return SMC_LLC_ERR_INVAL;
	if (!smc_llc_type_known(m->type))
		return SMC_LLC_ERR_BAD_TYPE;
	if (m->v2 && !smc_llc_type_known_v2(m->type))
		return SMC_LLC_ERR_BAD_VERSION;
	/*
	 * v2: only an ADD LINK is followed by more (its v2 extension, which
	 * the caller appends), so only its length may exceed 44; a reject
	 * reason would be overwritten by the length's low byte.
	 */
	if (m->v2 && m->type == SMC_LLC_ADD_LINK &&
	    (m->add_link.reject_reason ||
	     (m->v2_len && (m->v2_len < MSG_LEN ||
			    m->v2_len > SMC_LLC_V2_MAX_LEN))))
		return SMC_LLC_ERR_INVAL;
	if (m->v2 && m->type != SMC_LLC_ADD_LINK &&
	    m->v2_len && m->v2_len != MSG_LEN)
		return SMC_LLC_ERR_INVAL;
	if (!buf || cap < MSG_LEN)
		return SMC_LLC_ERR_NOSPACE;
	memset(b, 0, sizeof(b));
	if (m->v2) {
		b[HDR(type)] = (uint8_t)(SMC_LLC_VERSION_2 << SMC_LLC_HDR_VERSION_SHIFT |
					 m->type);
	} else {
		b[HDR(type)] = m->type;
		b[HDR(length)] = MSG_LEN;
	}
	if (m->response)
		flags |= SMC_LLC_FLAG_RESP;

	switch (m->type) {
	case SMC_LLC_CONFIRM_LINK:
		rc = enc_confirm_link(b, &flags, &m->confirm_link);
		break;
	case SMC_LLC_ADD_LINK:
		rc = enc_add_link(b, &flags, &m->add_link);
		break;
	case SMC_LLC_ADD_LINK_CONT:
		enc_add_link_cont(b, &m->add_link_cont);
		break;
	case SMC_LLC_DELETE_LINK:
		enc_delete_link(b, &flags, &m->delete_link);
		break;
	case SMC_LLC_CONFIRM_RKEY:
		rc = enc_confirm_rkey(b, &flags, &m->confirm_rkey);
		break;
	case SMC_LLC_CONFIRM_RKEY_CONT:
		enc_confirm_rkey_cont(b, &flags, &m->confirm_rkey_cont);
		break;
	case SMC_LLC_DELETE_RKEY:
		rc = enc_delete_rkey(b, &flags, &m->delete_rkey);
		break;
	case SMC_LLC_TEST_LINK:
		memcpy(b + OFF(test_link, user_data), m->test_link.user_data,
		       SMC_LLC_TEST_DATA_LEN);
		break;
	}
	if (rc != SMC_LLC_OK)
		return rc;
	if (m->v2) {
		/*
		 * after the body: ADD LINK's v1 reject byte is the length's;
		 * big endian, the order Wireshark reads (smc_llc.h)
		 */
		smc_wire_put_be16(b + SMC_LLC_OFF(smc_llc_wire_hdr_v2, length),
				  m->v2_len ? m->v2_len : MSG_LEN);
	}
	b[HDR(flags)] = flags;
	memcpy(buf, b, MSG_LEN);
	return SMC_LLC_OK;
}

/* -------------------------------------------------- ADD LINK v2 extension */

enum smc_llc_err smc_llc_add_ext_decode(const void *buf, size_t len,
					struct smc_llc_add_link_ext *e)
{
	const uint8_t *b = (const uint8_t *)buf;
	const uint8_t *p;
	size_t i, n;

	if (!e)
		return SMC_LLC_ERR_INVAL;
	memset(e, 0, sizeof(*e));
	if (!b)
		return SMC_LLC_ERR_INVAL;
	if (len < EXT_LEN)
		return SMC_LLC_ERR_TRUNCATED;
	if ((len - EXT_LEN) % ART_LEN)
		return SMC_LLC_ERR_BAD_LENGTH;
	/*
	 * The entries are what the length holds. The count field is not
	 * checked against them: Linux 6.1 writes it in host order and
	 * counts RMBs it then leaves out, so it may say more than is sent.
	 */
	n = (len - EXT_LEN) / ART_LEN;
	if (n > SMC_LLC_ADD_EXT_RKEYS_MAX)
		return SMC_LLC_ERR_BAD_COUNT;
	e->direct = b[EXT_OFF(flags)] & SMC_LLC_ADD_EXT_DIRECT;
	memcpy(e->target_gid, b + EXT_OFF(target_gid), SMC_LLC_GID_LEN);
	e->num_rkeys = (uint16_t)n;
	p = b + EXT_LEN;
	for (i = 0; i < n; i++, p += ART_LEN)
		get_add_rt(p, &e->rt[i]);
	return SMC_LLC_OK;
}

enum smc_llc_err smc_llc_add_ext_encode(const struct smc_llc_add_link_ext *e,
					void *buf, size_t cap)
{
	uint8_t *b = (uint8_t *)buf;
	uint8_t *p;
	uint16_t i;

	/*
	 * All checks before the first store: the struct is too big to build
	 * the bytes on the (kernel) stack first, as smc_llc_encode() does.
	 */
	if (!e)
		return SMC_LLC_ERR_INVAL;
	if (e->num_rkeys > SMC_LLC_ADD_EXT_RKEYS_MAX)
		return SMC_LLC_ERR_BAD_COUNT;
	if (!b || cap < smc_llc_add_ext_len(e->num_rkeys))
		return SMC_LLC_ERR_NOSPACE;
	memset(b, 0, EXT_LEN);
	if (e->direct)
		b[EXT_OFF(flags)] = SMC_LLC_ADD_EXT_DIRECT;
	memcpy(b + EXT_OFF(target_gid), e->target_gid, SMC_LLC_GID_LEN);
	/* the count is exact here, and big endian (smc_llc.h) */
	smc_wire_put_be16(b + EXT_OFF(num_rkeys), e->num_rkeys);
	p = b + EXT_LEN;
	for (i = 0; i < e->num_rkeys; i++, p += ART_LEN)
		put_add_rt(p, &e->rt[i]);
	return SMC_LLC_OK;
}

/* ------------------------------------------------------------------ text */

const char *smc_llc_err_text(enum smc_llc_err err)
{
	switch (err) {
	case SMC_LLC_OK:
		return "ok";
	case SMC_LLC_ERR_TRUNCATED:
		return "LLC message truncated";
	case SMC_LLC_ERR_TRAILING:
		return "bytes beyond the LLC message";
	case SMC_LLC_ERR_BAD_TYPE:
		return "unknown LLC message type";
	case SMC_LLC_ERR_BAD_VERSION:
		return "LLC type not supported with a v2 header";
	case SMC_LLC_ERR_BAD_LENGTH:
		return "LLC length is not 44 (v1), 44..8192 (v2) or 28 + 16n (v2 extension)";
	case SMC_LLC_ERR_BAD_COUNT:
		return "LLC count exceeds what the message holds";
	case SMC_LLC_ERR_NOSPACE:
		return "output buffer too small";
	case SMC_LLC_ERR_INVAL:
		return "invalid argument";
	case SMC_LLC_ERR__MAX:
		break;
	}
	return "unknown LLC error";
}

const char *smc_llc_type_text(uint8_t type)
{
	switch (type) {
	case SMC_LLC_CONFIRM_LINK:
		return "CONFIRM LINK";
	case SMC_LLC_ADD_LINK:
		return "ADD LINK";
	case SMC_LLC_ADD_LINK_CONT:
		return "ADD LINK CONTINUATION";
	case SMC_LLC_DELETE_LINK:
		return "DELETE LINK";
	case SMC_LLC_CONFIRM_RKEY:
		return "CONFIRM RKEY";
	case SMC_LLC_TEST_LINK:
		return "TEST LINK";
	case SMC_LLC_CONFIRM_RKEY_CONT:
		return "CONFIRM RKEY CONTINUATION";
	case SMC_LLC_DELETE_RKEY:
		return "DELETE RKEY";
	}
	return "unknown LLC type";
}
