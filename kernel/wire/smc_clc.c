// SPDX-License-Identifier: GPL-2.0
/*
 * SMC CLC encode/decode. See smc_clc.h for the contract and smc_clc_layout.h
 * for the byte layouts this file reads and writes.
 *
 * Decoding discipline: the header length must equal the received length, and
 * every further read is preceded by a check that the bytes lie before the
 * trailer. Counts are compared with their limits before they are multiplied,
 * so no arithmetic here can overflow (all positions stay below 64 KiB).
 */
#include "smc_clc.h"
#include "smc_clc_layout.h"

const uint8_t smc_clc_eyecatcher_smcr[SMC_CLC_EYECATCHER_LEN] = {
	0xe2, 0xd4, 0xc3, 0xd9
};
const uint8_t smc_clc_eyecatcher_smcd[SMC_CLC_EYECATCHER_LEN] = {
	0xe2, 0xd4, 0xc3, 0xc4
};

#define PROP_HEAD_LEN	SMC_CLC_SZ(smc_clc_wire_proposal)		/* 40 */
#define PROP_SMCD_LEN	SMC_CLC_SZ(smc_clc_wire_proposal_smcd)		/* 40 */
#define PROP_PRFX_LEN	SMC_CLC_SZ(smc_clc_wire_proposal_prefix)	/* 8 */
#define PROP_IPV6_LEN	SMC_CLC_SZ(smc_clc_wire_ipv6_prefix)		/* 17 */
#define PROP_V2EXT_LEN	SMC_CLC_SZ(smc_clc_wire_v2_ext)			/* 40 */
#define PROP_SMCDV2_LEN	SMC_CLC_SZ(smc_clc_wire_smcd_v2_ext)		/* 48 */
#define PROP_GIDCHID_LEN SMC_CLC_SZ(smc_clc_wire_gid_chid)		/* 10 */
#define AC_R_V2_LEN	SMC_CLC_SZ(smc_clc_wire_accept_smcr_v2)		/* 104 */
#define AC_D_V2_LEN	SMC_CLC_SZ(smc_clc_wire_accept_smcd_v2)		/* 74 */
#define FCE_LEN		SMC_CLC_SZ(smc_clc_wire_fce)			/* 36 */
#define FCE_V2X_LEN	SMC_CLC_SZ(smc_clc_wire_fce_v2x)		/* 16 */
#define GIDLIST_LEN	SMC_CLC_SZ(smc_clc_wire_fce_gid_list)		/* 4 */

/* Where the offset fields count from: the end of the field itself. */
#define PROP_IPAREA_BASE PROP_HEAD_LEN					/* 40 */
#define PROP_V2EXT_BASE	(PROP_HEAD_LEN + \
			 SMC_CLC_OFF(smc_clc_wire_proposal_smcd, v2_ext_offset) + 2)
#define V2EXT_SMCD_BASE	(SMC_CLC_OFF(smc_clc_wire_v2_ext, smcd_v2_ext_offset) + 2)

/* Length bounds per message type, over both versions. */
#define PROP_MIN_V1	(PROP_HEAD_LEN + PROP_PRFX_LEN + SMC_CLC_TRL_LEN)	/* 52 */
#define PROP_MIN_V2	(PROP_HEAD_LEN + PROP_SMCD_LEN + SMC_CLC_TRL_LEN)	/* 84 */
#define AC_MIN		SMC_CLC_ACC_CONF_LEN_SMCD_V1				/* 48 */
#define AC_MAX		(AC_R_V2_LEN + FCE_LEN + FCE_V2X_LEN + GIDLIST_LEN + \
			 SMC_CLC_GID_LEN * SMC_CLC_MAX_GIDS + SMC_CLC_TRL_LEN)
#define DECL_MIN	SMC_CLC_DECLINE_LEN_V1
#define DECL_MAX	SMC_CLC_DECLINE_LEN_V2

SMC_WIRE_STATIC_ASSERT(PROP_V2EXT_BASE == 52, "v2_ext_offset base");
SMC_WIRE_STATIC_ASSERT(V2EXT_SMCD_BASE == 8, "smcd_v2_ext_offset base");
SMC_WIRE_STATIC_ASSERT(SMC_CLC_MAX_MSG_LEN == 652, "largest proposal");
SMC_WIRE_STATIC_ASSERT(AC_MAX == 292, "largest accept/confirm");
SMC_WIRE_STATIC_ASSERT(SMC_CLC_MAX_MSG_LEN <= 0xffff, "fits the length field");

/* ---------------------------------------------------------------- helpers */

static int ec_kind(const uint8_t *p)
{
	if (!memcmp(p, smc_clc_eyecatcher_smcr, SMC_CLC_EYECATCHER_LEN))
		return SMC_CLC_EC_SMCR;
	if (!memcmp(p, smc_clc_eyecatcher_smcd, SMC_CLC_EYECATCHER_LEN))
		return SMC_CLC_EC_SMCD;
	return -1;
}

static const uint8_t *ec_bytes(uint8_t kind)
{
	return kind == SMC_CLC_EC_SMCD ? smc_clc_eyecatcher_smcd :
					 smc_clc_eyecatcher_smcr;
}

/* true if n bytes starting at pos lie within [0, end) */
static bool fits(size_t pos, size_t n, size_t end)
{
	return pos <= end && n <= end - pos;
}

/* --------------------------------------------------------------- header */

enum smc_clc_err smc_clc_decode_hdr(const void *buf, size_t len,
				    struct smc_clc_hdr *hdr)
{
	const uint8_t *b = (const uint8_t *)buf;
	uint16_t min, max;
	int ec;

	if (!buf || !hdr)
		return SMC_CLC_ERR_INVAL;
	memset(hdr, 0, sizeof(*hdr));
	if (len < SMC_CLC_HDR_LEN)
		return SMC_CLC_ERR_TRUNCATED;

	ec = ec_kind(b + SMC_CLC_OFF(smc_clc_wire_hdr, eyecatcher));
	if (ec < 0)
		return SMC_CLC_ERR_BAD_EYECATCHER;
	hdr->eyecatcher = (uint8_t)ec;
	hdr->type = b[SMC_CLC_OFF(smc_clc_wire_hdr, type)];
	hdr->length = smc_wire_get_be16(b + SMC_CLC_OFF(smc_clc_wire_hdr, length));
	hdr->version = b[SMC_CLC_OFF(smc_clc_wire_hdr, flags)] >>
		       SMC_CLC_HDR_VERSION_SHIFT;
	hdr->typev2 = (b[SMC_CLC_OFF(smc_clc_wire_hdr, flags)] &
		       SMC_CLC_HDR_TYPEV2_MASK) >> SMC_CLC_HDR_TYPEV2_SHIFT;
	hdr->typev1 = b[SMC_CLC_OFF(smc_clc_wire_hdr, flags)] &
		      SMC_CLC_HDR_TYPEV1_MASK;

	switch (hdr->type) {
	case SMC_CLC_PROPOSAL:
		min = PROP_MIN_V1;
		max = SMC_CLC_MAX_MSG_LEN;
		break;
	case SMC_CLC_ACCEPT:
	case SMC_CLC_CONFIRM:
		min = AC_MIN;
		max = AC_MAX;
		break;
	case SMC_CLC_DECLINE:
		min = DECL_MIN;
		max = DECL_MAX;
		break;
	default:
		return SMC_CLC_ERR_BAD_MSG_TYPE;
	}
	if (hdr->version != SMC_CLC_V1 && hdr->version != SMC_CLC_V2)
		return SMC_CLC_ERR_BAD_VERSION;
	if (hdr->length < min || hdr->length > max)
		return SMC_CLC_ERR_BAD_LENGTH;
	return SMC_CLC_OK;
}

/*
 * Header checks shared by all decoders: the type, then exact length and the
 * trailer eyecatcher.
 */
static enum smc_clc_err decode_frame(const uint8_t *b, size_t len,
				     struct smc_clc_hdr *hdr, uint8_t type1,
				     uint8_t type2)
{
	enum smc_clc_err rc;
	int ec;

	rc = smc_clc_decode_hdr(b, len, hdr);
	if (rc != SMC_CLC_OK)
		return rc;
	if (hdr->type != type1 && hdr->type != type2)
		return SMC_CLC_ERR_BAD_MSG_TYPE;
	if (len < hdr->length)
		return SMC_CLC_ERR_TRUNCATED;
	if (len > hdr->length)
		return SMC_CLC_ERR_TRAILING;
	ec = ec_kind(b + hdr->length - SMC_CLC_TRL_LEN);
	if (ec < 0)
		return SMC_CLC_ERR_BAD_TRAILER;
	hdr->trl_eyecatcher = (uint8_t)ec;
	return SMC_CLC_OK;
}

static enum smc_clc_err check_hdr_in(const struct smc_clc_hdr *hdr)
{
	if (hdr->version != SMC_CLC_V1 && hdr->version != SMC_CLC_V2)
		return SMC_CLC_ERR_BAD_VERSION;
	if (hdr->typev1 > 3 || hdr->typev2 > 3 ||
	    hdr->eyecatcher > SMC_CLC_EC_SMCD ||
	    hdr->trl_eyecatcher > SMC_CLC_EC_SMCD)
		return SMC_CLC_ERR_INVAL;
	return SMC_CLC_OK;
}

static void encode_frame(uint8_t *b, const struct smc_clc_hdr *hdr,
			 uint8_t type, size_t len)
{
	memcpy(b + SMC_CLC_OFF(smc_clc_wire_hdr, eyecatcher),
	       ec_bytes(hdr->eyecatcher), SMC_CLC_EYECATCHER_LEN);
	b[SMC_CLC_OFF(smc_clc_wire_hdr, type)] = type;
	smc_wire_put_be16(b + SMC_CLC_OFF(smc_clc_wire_hdr, length),
			  (uint16_t)len);
	b[SMC_CLC_OFF(smc_clc_wire_hdr, flags)] =
		(uint8_t)((hdr->version << SMC_CLC_HDR_VERSION_SHIFT) |
			  (hdr->typev2 << SMC_CLC_HDR_TYPEV2_SHIFT) |
			  hdr->typev1);
	memcpy(b + len - SMC_CLC_TRL_LEN, ec_bytes(hdr->trl_eyecatcher),
	       SMC_CLC_EYECATCHER_LEN);
}

/* Common tail of the encoders: size query and bounds. */
static enum smc_clc_err reserve(void *buf, size_t cap, size_t need,
				size_t *out_len)
{
	if (out_len)
		*out_len = need;
	if (need > cap || !buf)
		return SMC_CLC_ERR_NOSPACE;
	memset(buf, 0, need);
	return SMC_CLC_OK;
}

/* ------------------------------------------------------------- proposal */

/* Offsets of the optional proposal parts, computed from the counts. */
struct prop_layout {
	size_t smcd;		/* SMC-D area, 0 = absent */
	size_t prefix;		/* IP prefix area, 0 = absent */
	size_t v2ext;		/* v2 extension, 0 = absent */
	size_t smcdv2;		/* SMC-Dv2 extension, 0 = absent */
	size_t len;		/* total incl. trailer */
};

static enum smc_clc_err prop_check_types(const struct smc_clc_hdr *hdr)
{
	if (hdr->version == SMC_CLC_V1 && hdr->typev1 == SMC_CLC_TYPE_N)
		return SMC_CLC_ERR_BAD_SMC_TYPE;
	return SMC_CLC_OK;
}

static bool prop_has_smcd_area(const struct smc_clc_proposal *p)
{
	return p->hdr.version != SMC_CLC_V1 || p->v1_smcd_area;
}

static bool prop_has_prefix(const struct smc_clc_hdr *hdr)
{
	return hdr->version == SMC_CLC_V1 || hdr->typev1 != SMC_CLC_TYPE_N;
}

static bool prop_has_v2ext(const struct smc_clc_hdr *hdr)
{
	return hdr->version != SMC_CLC_V1 && hdr->typev2 != SMC_CLC_TYPE_N;
}

static bool prop_has_smcdv2(const struct smc_clc_hdr *hdr)
{
	return prop_has_v2ext(hdr) && smc_clc_smcd_indicated(hdr->typev2);
}

static void prop_layout(const struct smc_clc_proposal *p, uint8_t v6_cnt,
			uint8_t eid_cnt, uint8_t gid_cnt, struct prop_layout *l)
{
	const struct smc_clc_hdr *hdr = &p->hdr;
	size_t pos = PROP_HEAD_LEN;

	memset(l, 0, sizeof(*l));
	if (prop_has_smcd_area(p)) {
		l->smcd = pos;
		pos += PROP_SMCD_LEN;
	}
	if (prop_has_prefix(hdr)) {
		l->prefix = pos;
		pos += PROP_PRFX_LEN + (size_t)v6_cnt * PROP_IPV6_LEN;
	}
	if (prop_has_v2ext(hdr)) {
		l->v2ext = pos;
		pos += PROP_V2EXT_LEN + (size_t)eid_cnt * SMC_CLC_EID_LEN;
	}
	if (prop_has_smcdv2(hdr)) {
		l->smcdv2 = pos;
		pos += PROP_SMCDV2_LEN + (size_t)gid_cnt * PROP_GIDCHID_LEN;
	}
	l->len = pos + SMC_CLC_TRL_LEN;
}

/*
 * The proposal's parts, in their order on the wire. The decoders of the
 * parts after the head take the message (b), the position of their part
 * (*pos, moved past it) and where the trailer starts (end); each checks
 * that its bytes lie before the trailer before it reads them, and fills
 * its part's fields of p. A count read in one part and used in a later
 * one passes through the caller.
 */

/*
 * The fixed head: the sender's peer ID, GID and MAC. Returns its IP area
 * offset, which the parts after it are checked against.
 */
static uint16_t prop_decode_head(const uint8_t *b, struct smc_clc_proposal *p)
{
	const uint8_t *q = b + SMC_CLC_OFF(smc_clc_wire_proposal, lcl);

	memcpy(p->peer_id, q + SMC_CLC_OFF(smc_clc_wire_local, peer_id),
	       SMC_CLC_PEER_ID_LEN);
	memcpy(p->gid, q + SMC_CLC_OFF(smc_clc_wire_local, gid), SMC_CLC_GID_LEN);
	memcpy(p->mac, q + SMC_CLC_OFF(smc_clc_wire_local, mac), SMC_CLC_MAC_LEN);
	return smc_wire_get_be16(b + SMC_CLC_OFF(smc_clc_wire_proposal,
						 iparea_offset));
}

/* The SMC-D area: v1 has it iff the IP area offset skips it, v2 always. */
static enum smc_clc_err prop_decode_smcd(const uint8_t *b, size_t *pos,
					 size_t end, uint16_t iparea_offset,
					 struct smc_clc_proposal *p)
{
	const uint8_t *q;

	if (p->hdr.version == SMC_CLC_V1) {
		if (iparea_offset == PROP_SMCD_LEN)
			p->v1_smcd_area = true;
		else if (iparea_offset != 0 ||
			 smc_clc_smcd_indicated(p->hdr.typev1))
			return SMC_CLC_ERR_BAD_OFFSET;
	}
	if (!prop_has_smcd_area(p))
		return SMC_CLC_OK;
	if (!fits(*pos, PROP_SMCD_LEN, end))
		return SMC_CLC_ERR_BAD_LENGTH;
	q = b + *pos;
	p->ism_gid = smc_wire_get_be64(q +
		SMC_CLC_OFF(smc_clc_wire_proposal_smcd, ism_gid));
	if (p->hdr.version != SMC_CLC_V1)
		p->ism_chid = smc_wire_get_be16(q +
			SMC_CLC_OFF(smc_clc_wire_proposal_smcd, ism_chid));
	*pos += PROP_SMCD_LEN;
	return SMC_CLC_OK;
}

/* The IP area offset, once the parts before the IP area are known. */
static enum smc_clc_err prop_check_iparea(const struct smc_clc_hdr *hdr,
					  uint16_t iparea_offset, size_t pos)
{
	if (prop_has_prefix(hdr)) {
		if (iparea_offset != pos - PROP_IPAREA_BASE)
			return SMC_CLC_ERR_BAD_OFFSET;
	} else if (iparea_offset != 0 && iparea_offset != PROP_SMCD_LEN) {
		/* v2 without IP area: Linux sends 0; the offset is unused */
		return SMC_CLC_ERR_BAD_OFFSET;
	}
	return SMC_CLC_OK;
}

/* The IP prefix area's fixed part: the IPv4 subnet and the IPv6 count. */
static enum smc_clc_err prop_decode_ipv4(const uint8_t *b, size_t *pos,
					 size_t end, struct smc_clc_proposal *p,
					 uint8_t *v6_cnt)
{
	const uint8_t *q;

	if (!fits(*pos, PROP_PRFX_LEN, end))
		return SMC_CLC_ERR_BAD_LENGTH;
	q = b + *pos;
	p->ipv4_subnet = smc_wire_get_be32(q +
		SMC_CLC_OFF(smc_clc_wire_proposal_prefix, outgoing_subnet));
	p->ipv4_prefix_len =
		q[SMC_CLC_OFF(smc_clc_wire_proposal_prefix, prefix_len)];
	*v6_cnt = q[SMC_CLC_OFF(smc_clc_wire_proposal_prefix, ipv6_prefix_cnt)];
	if (*v6_cnt > SMC_CLC_MAX_V6_PREFIX)
		return SMC_CLC_ERR_BAD_COUNT;
	*pos += PROP_PRFX_LEN;
	return SMC_CLC_OK;
}

/* The IPv6 prefixes after it, v6_cnt of them. */
static enum smc_clc_err prop_decode_ipv6(const uint8_t *b, size_t *pos,
					 size_t end, struct smc_clc_proposal *p,
					 uint8_t v6_cnt)
{
	const uint8_t *q;
	size_t i;

	if (!fits(*pos, (size_t)v6_cnt * PROP_IPV6_LEN, end))
		return SMC_CLC_ERR_BAD_LENGTH;
	p->ipv6_prefix_cnt = v6_cnt;
	for (i = 0; i < v6_cnt; i++) {
		q = b + *pos;
		memcpy(p->ipv6_prefix[i].prefix, q +
		       SMC_CLC_OFF(smc_clc_wire_ipv6_prefix, prefix), 16);
		p->ipv6_prefix[i].prefix_len =
			q[SMC_CLC_OFF(smc_clc_wire_ipv6_prefix, prefix_len)];
		*pos += PROP_IPV6_LEN;
	}
	return SMC_CLC_OK;
}

/*
 * The v2 extension's fixed part, where the SMC-D area's offset points: the
 * release, the RoCE GID, the v2.1 fields, the EID count and, when SMC-Dv2
 * is offered, the ISM GID count and the offset of the SMC-Dv2 extension.
 */
static enum smc_clc_err prop_decode_v2ext(const uint8_t *b, size_t *pos,
					  size_t end, struct smc_clc_proposal *p,
					  uint8_t *eid_cnt, uint8_t *gid_cnt)
{
	const uint8_t *q;
	uint16_t off;

	off = smc_wire_get_be16(b + PROP_HEAD_LEN +
		SMC_CLC_OFF(smc_clc_wire_proposal_smcd, v2_ext_offset));
	if (off != *pos - PROP_V2EXT_BASE)
		return SMC_CLC_ERR_BAD_OFFSET;
	if (!fits(*pos, PROP_V2EXT_LEN, end))
		return SMC_CLC_ERR_BAD_LENGTH;
	q = b + *pos;
	*eid_cnt = q[SMC_CLC_OFF(smc_clc_wire_v2_ext, eid_cnt)];
	p->release = q[SMC_CLC_OFF(smc_clc_wire_v2_ext, flag)] >>
		     SMC_CLC_V2EXT_RELEASE_SHIFT;
	p->seid = q[SMC_CLC_OFF(smc_clc_wire_v2_ext, flag)] &
		  SMC_CLC_V2EXT_SEID;
	memcpy(p->roce_gid, q + SMC_CLC_OFF(smc_clc_wire_v2_ext, roce_gid),
	       SMC_CLC_GID_LEN);
	p->max_conns = q[SMC_CLC_OFF(smc_clc_wire_v2_ext, max_conns)];
	p->max_links = q[SMC_CLC_OFF(smc_clc_wire_v2_ext, max_links)];
	p->feature_mask = smc_wire_get_be16(q +
		SMC_CLC_OFF(smc_clc_wire_v2_ext, feature_mask));
	if (*eid_cnt > SMC_CLC_MAX_UEID)
		return SMC_CLC_ERR_BAD_COUNT;
	if (prop_has_smcdv2(&p->hdr)) {
		*gid_cnt = q[SMC_CLC_OFF(smc_clc_wire_v2_ext, ism_gid_cnt)];
		if (*gid_cnt > SMC_CLC_MAX_ISM_GIDS)
			return SMC_CLC_ERR_BAD_COUNT;
		off = smc_wire_get_be16(q + SMC_CLC_OFF(smc_clc_wire_v2_ext,
							smcd_v2_ext_offset));
		if (off != PROP_V2EXT_LEN - V2EXT_SMCD_BASE +
			   (size_t)*eid_cnt * SMC_CLC_EID_LEN)
			return SMC_CLC_ERR_BAD_OFFSET;
	}
	*pos += PROP_V2EXT_LEN;
	return SMC_CLC_OK;
}

/* The user EIDs after it, eid_cnt of them. */
static enum smc_clc_err prop_decode_eids(const uint8_t *b, size_t *pos,
					 size_t end, struct smc_clc_proposal *p,
					 uint8_t eid_cnt)
{
	size_t i;

	if (!fits(*pos, (size_t)eid_cnt * SMC_CLC_EID_LEN, end))
		return SMC_CLC_ERR_BAD_LENGTH;
	p->eid_cnt = eid_cnt;
	for (i = 0; i < eid_cnt; i++) {
		memcpy(p->user_eid[i], b + *pos, SMC_CLC_EID_LEN);
		*pos += SMC_CLC_EID_LEN;
	}
	return SMC_CLC_OK;
}

/* The SMC-Dv2 extension: the system EID, then gid_cnt ISM GIDs and CHIDs. */
static enum smc_clc_err prop_decode_smcdv2(const uint8_t *b, size_t *pos,
					   size_t end, struct smc_clc_proposal *p,
					   uint8_t gid_cnt)
{
	const uint8_t *q;
	size_t i;

	if (!fits(*pos, PROP_SMCDV2_LEN, end))
		return SMC_CLC_ERR_BAD_LENGTH;
	memcpy(p->system_eid, b + *pos +
	       SMC_CLC_OFF(smc_clc_wire_smcd_v2_ext, system_eid),
	       SMC_CLC_EID_LEN);
	*pos += PROP_SMCDV2_LEN;
	if (!fits(*pos, (size_t)gid_cnt * PROP_GIDCHID_LEN, end))
		return SMC_CLC_ERR_BAD_LENGTH;
	p->ism_gid_cnt = gid_cnt;
	for (i = 0; i < gid_cnt; i++) {
		q = b + *pos;
		p->ism_dev[i].gid = smc_wire_get_be64(q +
			SMC_CLC_OFF(smc_clc_wire_gid_chid, gid));
		p->ism_dev[i].chid = smc_wire_get_be16(q +
			SMC_CLC_OFF(smc_clc_wire_gid_chid, chid));
		*pos += PROP_GIDCHID_LEN;
	}
	return SMC_CLC_OK;
}

enum smc_clc_err smc_clc_decode_proposal(const void *buf, size_t len,
					 struct smc_clc_proposal *p)
{
	const uint8_t *b = (const uint8_t *)buf;
	struct prop_layout l;
	enum smc_clc_err rc;
	uint16_t iparea_offset;
	size_t end, pos;
	uint8_t v6_cnt = 0, eid_cnt = 0, gid_cnt = 0;

	if (!buf || !p)
		return SMC_CLC_ERR_INVAL;
	memset(p, 0, sizeof(*p));
	rc = decode_frame(b, len, &p->hdr, SMC_CLC_PROPOSAL, SMC_CLC_PROPOSAL);
	if (rc != SMC_CLC_OK)
		return rc;
	rc = prop_check_types(&p->hdr);
	if (rc != SMC_CLC_OK)
		return rc;
	end = (size_t)p->hdr.length - SMC_CLC_TRL_LEN;	/* length >= 52 */

	iparea_offset = prop_decode_head(b, p);
	pos = PROP_HEAD_LEN;
	rc = prop_decode_smcd(b, &pos, end, iparea_offset, p);
	if (rc != SMC_CLC_OK)
		return rc;
	rc = prop_check_iparea(&p->hdr, iparea_offset, pos);
	if (rc != SMC_CLC_OK)
		return rc;
	if (prop_has_prefix(&p->hdr)) {
		rc = prop_decode_ipv4(b, &pos, end, p, &v6_cnt);
		if (rc != SMC_CLC_OK)
			return rc;
		rc = prop_decode_ipv6(b, &pos, end, p, v6_cnt);
		if (rc != SMC_CLC_OK)
			return rc;
	}
	if (prop_has_v2ext(&p->hdr)) {
		rc = prop_decode_v2ext(b, &pos, end, p, &eid_cnt, &gid_cnt);
		if (rc != SMC_CLC_OK)
			return rc;
		rc = prop_decode_eids(b, &pos, end, p, eid_cnt);
		if (rc != SMC_CLC_OK)
			return rc;
	}
	if (prop_has_smcdv2(&p->hdr)) {
		rc = prop_decode_smcdv2(b, &pos, end, p, gid_cnt);
		if (rc != SMC_CLC_OK)
			return rc;
	}

	if (pos != end)
		return SMC_CLC_ERR_BAD_LENGTH;
	/* the same arithmetic the encoder uses must agree */
	prop_layout(p, v6_cnt, eid_cnt, gid_cnt, &l);
	if (l.len != p->hdr.length)
		return SMC_CLC_ERR_BAD_LENGTH;
	return SMC_CLC_OK;
}

enum smc_clc_err smc_clc_encode_proposal(const struct smc_clc_proposal *p,
					 void *buf, size_t cap, size_t *out_len)
{
	uint8_t *b = (uint8_t *)buf;
	uint8_t *q;
	struct prop_layout l;
	enum smc_clc_err rc;
	size_t i, pos;
	uint8_t v6_cnt, eid_cnt, gid_cnt;

	if (!p)
		return SMC_CLC_ERR_INVAL;
	rc = check_hdr_in(&p->hdr);
	if (rc == SMC_CLC_OK)
		rc = prop_check_types(&p->hdr);
	if (rc != SMC_CLC_OK)
		return rc;
	v6_cnt = prop_has_prefix(&p->hdr) ? p->ipv6_prefix_cnt : 0;
	eid_cnt = prop_has_v2ext(&p->hdr) ? p->eid_cnt : 0;
	gid_cnt = prop_has_smcdv2(&p->hdr) ? p->ism_gid_cnt : 0;
	if (v6_cnt > SMC_CLC_MAX_V6_PREFIX || eid_cnt > SMC_CLC_MAX_UEID ||
	    gid_cnt > SMC_CLC_MAX_ISM_GIDS)
		return SMC_CLC_ERR_BAD_COUNT;
	if (p->release > SMC_CLC_FCE_RELEASE_MASK)
		return SMC_CLC_ERR_INVAL;
	/* a v1 proposal offering SMC-D needs the SMC-D area */
	if (p->hdr.version == SMC_CLC_V1 && !p->v1_smcd_area &&
	    smc_clc_smcd_indicated(p->hdr.typev1))
		return SMC_CLC_ERR_INVAL;
	prop_layout(p, v6_cnt, eid_cnt, gid_cnt, &l);
	rc = reserve(buf, cap, l.len, out_len);
	if (rc != SMC_CLC_OK)
		return rc;

	encode_frame(b, &p->hdr, SMC_CLC_PROPOSAL, l.len);
	q = b + SMC_CLC_OFF(smc_clc_wire_proposal, lcl);
	memcpy(q + SMC_CLC_OFF(smc_clc_wire_local, peer_id), p->peer_id,
	       SMC_CLC_PEER_ID_LEN);
	memcpy(q + SMC_CLC_OFF(smc_clc_wire_local, gid), p->gid, SMC_CLC_GID_LEN);
	memcpy(q + SMC_CLC_OFF(smc_clc_wire_local, mac), p->mac, SMC_CLC_MAC_LEN);
	if (l.prefix)
		smc_wire_put_be16(b + SMC_CLC_OFF(smc_clc_wire_proposal,
						  iparea_offset),
				  (uint16_t)(l.prefix - PROP_IPAREA_BASE));

	if (l.smcd) {
		q = b + l.smcd;
		smc_wire_put_be64(q + SMC_CLC_OFF(smc_clc_wire_proposal_smcd,
						  ism_gid), p->ism_gid);
		if (p->hdr.version != SMC_CLC_V1)
			smc_wire_put_be16(q + SMC_CLC_OFF(smc_clc_wire_proposal_smcd,
							  ism_chid), p->ism_chid);
		if (l.v2ext)
			smc_wire_put_be16(q + SMC_CLC_OFF(smc_clc_wire_proposal_smcd,
							  v2_ext_offset),
					  (uint16_t)(l.v2ext - PROP_V2EXT_BASE));
	}

	if (l.prefix) {
		q = b + l.prefix;
		smc_wire_put_be32(q + SMC_CLC_OFF(smc_clc_wire_proposal_prefix,
						  outgoing_subnet), p->ipv4_subnet);
		q[SMC_CLC_OFF(smc_clc_wire_proposal_prefix, prefix_len)] =
			p->ipv4_prefix_len;
		q[SMC_CLC_OFF(smc_clc_wire_proposal_prefix, ipv6_prefix_cnt)] =
			v6_cnt;
		pos = l.prefix + PROP_PRFX_LEN;
		for (i = 0; i < v6_cnt; i++) {
			q = b + pos;
			memcpy(q + SMC_CLC_OFF(smc_clc_wire_ipv6_prefix, prefix),
			       p->ipv6_prefix[i].prefix, 16);
			q[SMC_CLC_OFF(smc_clc_wire_ipv6_prefix, prefix_len)] =
				p->ipv6_prefix[i].prefix_len;
			pos += PROP_IPV6_LEN;
		}
	}

	if (l.v2ext) {
		q = b + l.v2ext;
		q[SMC_CLC_OFF(smc_clc_wire_v2_ext, eid_cnt)] = eid_cnt;
		q[SMC_CLC_OFF(smc_clc_wire_v2_ext, ism_gid_cnt)] = gid_cnt;
		q[SMC_CLC_OFF(smc_clc_wire_v2_ext, flag)] =
			(uint8_t)((p->release << SMC_CLC_V2EXT_RELEASE_SHIFT) |
				  (p->seid ? SMC_CLC_V2EXT_SEID : 0));
		if (l.smcdv2)
			smc_wire_put_be16(q + SMC_CLC_OFF(smc_clc_wire_v2_ext,
							  smcd_v2_ext_offset),
					  (uint16_t)(l.smcdv2 - l.v2ext -
						     V2EXT_SMCD_BASE));
		memcpy(q + SMC_CLC_OFF(smc_clc_wire_v2_ext, roce_gid), p->roce_gid,
		       SMC_CLC_GID_LEN);
		q[SMC_CLC_OFF(smc_clc_wire_v2_ext, max_conns)] = p->max_conns;
		q[SMC_CLC_OFF(smc_clc_wire_v2_ext, max_links)] = p->max_links;
		smc_wire_put_be16(q + SMC_CLC_OFF(smc_clc_wire_v2_ext,
						  feature_mask), p->feature_mask);
		pos = l.v2ext + PROP_V2EXT_LEN;
		for (i = 0; i < eid_cnt; i++) {
			memcpy(b + pos, p->user_eid[i], SMC_CLC_EID_LEN);
			pos += SMC_CLC_EID_LEN;
		}
	}

	if (l.smcdv2) {
		memcpy(b + l.smcdv2 + SMC_CLC_OFF(smc_clc_wire_smcd_v2_ext,
						  system_eid),
		       p->system_eid, SMC_CLC_EID_LEN);
		pos = l.smcdv2 + PROP_SMCDV2_LEN;
		for (i = 0; i < gid_cnt; i++) {
			q = b + pos;
			smc_wire_put_be64(q + SMC_CLC_OFF(smc_clc_wire_gid_chid, gid),
					  p->ism_dev[i].gid);
			smc_wire_put_be16(q + SMC_CLC_OFF(smc_clc_wire_gid_chid, chid),
					  p->ism_dev[i].chid);
			pos += PROP_GIDCHID_LEN;
		}
	}
	return SMC_CLC_OK;
}

/* ------------------------------------------------------- accept/confirm */

/*
 * Length of what follows the fixed v2 part (before the trailer), from the
 * header and the extension choices; the decoder compares, the encoder uses.
 */
static size_t ac_v2_tail(const struct smc_clc_hdr *hdr, bool has_v2x,
			 uint8_t gid_cnt)
{
	size_t n;

	if (!smc_clc_first_contact(hdr))
		return 0;
	n = FCE_LEN;
	if (hdr->typev1 == SMC_CLC_TYPE_R || has_v2x)
		n += FCE_V2X_LEN;
	if (hdr->typev1 == SMC_CLC_TYPE_R && hdr->type == SMC_CLC_CONFIRM)
		n += GIDLIST_LEN + (size_t)gid_cnt * SMC_CLC_GID_LEN;
	return n;
}

static size_t ac_fixed_len(const struct smc_clc_hdr *hdr)
{
	if (hdr->version == SMC_CLC_V1)
		return (hdr->typev1 == SMC_CLC_TYPE_R ?
			SMC_CLC_ACC_CONF_LEN_SMCR_V1 :
			SMC_CLC_ACC_CONF_LEN_SMCD_V1) - SMC_CLC_TRL_LEN;
	return hdr->typev1 == SMC_CLC_TYPE_R ? AC_R_V2_LEN : AC_D_V2_LEN;
}

static void ac_decode_smcr(const uint8_t *q, struct smc_clc_accept_confirm *ac)
{
	const uint8_t *l = q + SMC_CLC_OFF(smc_clc_wire_smcr, lcl);
	uint8_t sm = q[SMC_CLC_OFF(smc_clc_wire_smcr, size_mtu)];

	memcpy(ac->r.peer_id, l + SMC_CLC_OFF(smc_clc_wire_local, peer_id),
	       SMC_CLC_PEER_ID_LEN);
	memcpy(ac->r.gid, l + SMC_CLC_OFF(smc_clc_wire_local, gid),
	       SMC_CLC_GID_LEN);
	memcpy(ac->r.mac, l + SMC_CLC_OFF(smc_clc_wire_local, mac),
	       SMC_CLC_MAC_LEN);
	ac->r.qpn = smc_wire_get_be24(q + SMC_CLC_OFF(smc_clc_wire_smcr, qpn));
	ac->r.rmb_rkey = smc_wire_get_be32(q + SMC_CLC_OFF(smc_clc_wire_smcr,
							   rmb_rkey));
	ac->r.rmbe_idx = q[SMC_CLC_OFF(smc_clc_wire_smcr, rmbe_idx)];
	ac->r.rmbe_alert_token = smc_wire_get_be32(q +
		SMC_CLC_OFF(smc_clc_wire_smcr, rmbe_alert_token));
	ac->r.rmbe_size = sm >> SMC_CLC_SIZE_SHIFT;
	ac->r.qp_mtu = sm & SMC_CLC_MTU_MASK;
	ac->r.rmb_dma_addr = smc_wire_get_be64(q + SMC_CLC_OFF(smc_clc_wire_smcr,
							       rmb_dma_addr));
	ac->r.psn = smc_wire_get_be24(q + SMC_CLC_OFF(smc_clc_wire_smcr, psn));
	ac->r.grows = q[SMC_CLC_OFF(smc_clc_wire_smcr, reserved)] & SMC_CLC_R_GROWS;
}

static void ac_encode_smcr(uint8_t *q, const struct smc_clc_accept_confirm *ac)
{
	uint8_t *l = q + SMC_CLC_OFF(smc_clc_wire_smcr, lcl);

	memcpy(l + SMC_CLC_OFF(smc_clc_wire_local, peer_id), ac->r.peer_id,
	       SMC_CLC_PEER_ID_LEN);
	memcpy(l + SMC_CLC_OFF(smc_clc_wire_local, gid), ac->r.gid,
	       SMC_CLC_GID_LEN);
	memcpy(l + SMC_CLC_OFF(smc_clc_wire_local, mac), ac->r.mac,
	       SMC_CLC_MAC_LEN);
	smc_wire_put_be24(q + SMC_CLC_OFF(smc_clc_wire_smcr, qpn), ac->r.qpn);
	smc_wire_put_be32(q + SMC_CLC_OFF(smc_clc_wire_smcr, rmb_rkey),
			  ac->r.rmb_rkey);
	q[SMC_CLC_OFF(smc_clc_wire_smcr, rmbe_idx)] = ac->r.rmbe_idx;
	smc_wire_put_be32(q + SMC_CLC_OFF(smc_clc_wire_smcr, rmbe_alert_token),
			  ac->r.rmbe_alert_token);
	q[SMC_CLC_OFF(smc_clc_wire_smcr, size_mtu)] =
		(uint8_t)((ac->r.rmbe_size << SMC_CLC_SIZE_SHIFT) | ac->r.qp_mtu);
	smc_wire_put_be64(q + SMC_CLC_OFF(smc_clc_wire_smcr, rmb_dma_addr),
			  ac->r.rmb_dma_addr);
	smc_wire_put_be24(q + SMC_CLC_OFF(smc_clc_wire_smcr, psn), ac->r.psn);
	q[SMC_CLC_OFF(smc_clc_wire_smcr, reserved)] = ac->r.grows ? SMC_CLC_R_GROWS : 0;
}

static void ac_decode_smcd(const uint8_t *q, struct smc_clc_accept_confirm *ac)
{
	ac->d.gid = smc_wire_get_be64(q + SMC_CLC_OFF(smc_clc_wire_smcd, gid));
	ac->d.token = smc_wire_get_be64(q + SMC_CLC_OFF(smc_clc_wire_smcd, token));
	ac->d.dmbe_idx = q[SMC_CLC_OFF(smc_clc_wire_smcd, dmbe_idx)];
	ac->d.dmbe_size = q[SMC_CLC_OFF(smc_clc_wire_smcd, dmbe_size)] >>
			  SMC_CLC_SIZE_SHIFT;
	ac->d.linkid = smc_wire_get_be32(q + SMC_CLC_OFF(smc_clc_wire_smcd,
							 linkid));
}

static void ac_encode_smcd(uint8_t *q, const struct smc_clc_accept_confirm *ac)
{
	smc_wire_put_be64(q + SMC_CLC_OFF(smc_clc_wire_smcd, gid), ac->d.gid);
	smc_wire_put_be64(q + SMC_CLC_OFF(smc_clc_wire_smcd, token), ac->d.token);
	q[SMC_CLC_OFF(smc_clc_wire_smcd, dmbe_idx)] = ac->d.dmbe_idx;
	q[SMC_CLC_OFF(smc_clc_wire_smcd, dmbe_size)] =
		(uint8_t)(ac->d.dmbe_size << SMC_CLC_SIZE_SHIFT);
	smc_wire_put_be32(q + SMC_CLC_OFF(smc_clc_wire_smcd, linkid),
			  ac->d.linkid);
}

enum smc_clc_err
smc_clc_decode_accept_confirm(const void *buf, size_t len,
			      struct smc_clc_accept_confirm *ac)
{
	const uint8_t *b = (const uint8_t *)buf;
	const uint8_t *q;
	enum smc_clc_err rc;
	size_t fixed, end, rest, i;
	bool is_r;

	if (!buf || !ac)
		return SMC_CLC_ERR_INVAL;
	memset(ac, 0, sizeof(*ac));
	rc = decode_frame(b, len, &ac->hdr, SMC_CLC_ACCEPT, SMC_CLC_CONFIRM);
	if (rc != SMC_CLC_OK)
		return rc;
	if (ac->hdr.typev1 != SMC_CLC_TYPE_R && ac->hdr.typev1 != SMC_CLC_TYPE_D)
		return SMC_CLC_ERR_BAD_SMC_TYPE;
	is_r = ac->hdr.typev1 == SMC_CLC_TYPE_R;
	fixed = ac_fixed_len(&ac->hdr);
	/* the length is >= 48 so this cannot wrap; compare before reading */
	end = (size_t)ac->hdr.length - SMC_CLC_TRL_LEN;
	if (end < fixed)
		return SMC_CLC_ERR_BAD_LENGTH;
	rest = end - fixed;
	if (ac->hdr.version == SMC_CLC_V1 && rest)
		return SMC_CLC_ERR_BAD_LENGTH;

	q = b + SMC_CLC_HDR_LEN;
	if (is_r)
		ac_decode_smcr(q, ac);
	else
		ac_decode_smcd(q, ac);
	if (ac->hdr.version == SMC_CLC_V1)
		return SMC_CLC_OK;

	if (is_r) {
		memcpy(ac->eid, b + SMC_CLC_OFF(smc_clc_wire_accept_smcr_v2, eid),
		       SMC_CLC_EID_LEN);
	} else {
		ac->d.chid = smc_wire_get_be16(b +
			SMC_CLC_OFF(smc_clc_wire_accept_smcd_v2, chid));
		memcpy(ac->eid, b + SMC_CLC_OFF(smc_clc_wire_accept_smcd_v2, eid),
		       SMC_CLC_EID_LEN);
		ac->d.gid_ext = smc_wire_get_be64(b +
			SMC_CLC_OFF(smc_clc_wire_accept_smcd_v2, gid_ext));
	}

	if (!smc_clc_first_contact(&ac->hdr))
		return rest ? SMC_CLC_ERR_BAD_LENGTH : SMC_CLC_OK;

	/* first contact extension */
	if (rest < FCE_LEN)
		return SMC_CLC_ERR_BAD_LENGTH;
	q = b + fixed;
	ac->fce.v2_direct = q[SMC_CLC_OFF(smc_clc_wire_fce, flags)] &
			    SMC_CLC_FCE_V2_DIRECT;
	ac->fce.os_type = q[SMC_CLC_OFF(smc_clc_wire_fce, os_release)] >>
			  SMC_CLC_FCE_OS_SHIFT;
	ac->fce.release = q[SMC_CLC_OFF(smc_clc_wire_fce, os_release)] &
			  SMC_CLC_FCE_RELEASE_MASK;
	ac->fce.feature_mask = smc_wire_get_be16(q +
		SMC_CLC_OFF(smc_clc_wire_fce, feature_mask));
	memcpy(ac->fce.hostname, q + SMC_CLC_OFF(smc_clc_wire_fce, hostname),
	       SMC_CLC_HOSTNAME_LEN);

	/* SMC-R always carries the 16 bytes after it, SMC-D only from v2.1 */
	if (is_r || rest > FCE_LEN) {
		if (rest < FCE_LEN + FCE_V2X_LEN)
			return SMC_CLC_ERR_BAD_LENGTH;
		q = b + fixed + FCE_LEN;
		ac->fce.has_v2x = true;
		ac->fce.max_conns = q[SMC_CLC_OFF(smc_clc_wire_fce_v2x, max_conns)];
		ac->fce.max_links = q[SMC_CLC_OFF(smc_clc_wire_fce_v2x, max_links)];
		ac->fce.vendor_exp_options = smc_wire_get_be32(q +
			SMC_CLC_OFF(smc_clc_wire_fce_v2x, vendor_exp_options));
	}

	/* SMC-Rv2 first contact confirm: the GID list */
	if (is_r && ac->hdr.type == SMC_CLC_CONFIRM) {
		if (rest < FCE_LEN + FCE_V2X_LEN + GIDLIST_LEN)
			return SMC_CLC_ERR_BAD_LENGTH;
		q = b + fixed + FCE_LEN + FCE_V2X_LEN;
		ac->gid_cnt = q[SMC_CLC_OFF(smc_clc_wire_fce_gid_list, gid_cnt)];
		if (ac->gid_cnt > SMC_CLC_MAX_GIDS)
			return SMC_CLC_ERR_BAD_COUNT;
		if (rest != ac_v2_tail(&ac->hdr, true, ac->gid_cnt))
			return SMC_CLC_ERR_BAD_LENGTH;
		q += GIDLIST_LEN;
		for (i = 0; i < ac->gid_cnt; i++) {
			memcpy(ac->gid_list[i], q, SMC_CLC_GID_LEN);
			q += SMC_CLC_GID_LEN;
		}
		return SMC_CLC_OK;
	}

	if (rest != ac_v2_tail(&ac->hdr, ac->fce.has_v2x, 0))
		return SMC_CLC_ERR_BAD_LENGTH;
	return SMC_CLC_OK;
}

enum smc_clc_err
smc_clc_encode_accept_confirm(const struct smc_clc_accept_confirm *ac,
			      void *buf, size_t cap, size_t *out_len)
{
	uint8_t *b = (uint8_t *)buf;
	uint8_t *q;
	enum smc_clc_err rc;
	size_t fixed, tail, i;
	bool is_r, fc;

	if (!ac)
		return SMC_CLC_ERR_INVAL;
	if (ac->hdr.type != SMC_CLC_ACCEPT && ac->hdr.type != SMC_CLC_CONFIRM)
		return SMC_CLC_ERR_BAD_MSG_TYPE;
	rc = check_hdr_in(&ac->hdr);
	if (rc != SMC_CLC_OK)
		return rc;
	if (ac->hdr.typev1 != SMC_CLC_TYPE_R && ac->hdr.typev1 != SMC_CLC_TYPE_D)
		return SMC_CLC_ERR_BAD_SMC_TYPE;
	is_r = ac->hdr.typev1 == SMC_CLC_TYPE_R;
	fc = ac->hdr.version != SMC_CLC_V1 && smc_clc_first_contact(&ac->hdr);
	if (is_r && (ac->r.qpn > 0xffffff || ac->r.psn > 0xffffff ||
		     ac->r.rmbe_size > 15 || ac->r.qp_mtu > 15))
		return SMC_CLC_ERR_INVAL;
	if (!is_r && ac->d.dmbe_size > 15)
		return SMC_CLC_ERR_INVAL;
	if (fc) {
		if (ac->fce.os_type > 15 || ac->fce.release > 15)
			return SMC_CLC_ERR_INVAL;
		if (is_r && !ac->fce.has_v2x)
			return SMC_CLC_ERR_INVAL;
		if (is_r && ac->hdr.type == SMC_CLC_CONFIRM &&
		    ac->gid_cnt > SMC_CLC_MAX_GIDS)
			return SMC_CLC_ERR_BAD_COUNT;
	}

	fixed = ac_fixed_len(&ac->hdr);
	tail = ac->hdr.version == SMC_CLC_V1 ? 0 :
	       ac_v2_tail(&ac->hdr, ac->fce.has_v2x, ac->gid_cnt);
	rc = reserve(buf, cap, fixed + tail + SMC_CLC_TRL_LEN, out_len);
	if (rc != SMC_CLC_OK)
		return rc;
	encode_frame(b, &ac->hdr, ac->hdr.type, fixed + tail + SMC_CLC_TRL_LEN);

	q = b + SMC_CLC_HDR_LEN;
	if (is_r)
		ac_encode_smcr(q, ac);
	else
		ac_encode_smcd(q, ac);
	if (ac->hdr.version == SMC_CLC_V1)
		return SMC_CLC_OK;

	if (is_r) {
		memcpy(b + SMC_CLC_OFF(smc_clc_wire_accept_smcr_v2, eid), ac->eid,
		       SMC_CLC_EID_LEN);
	} else {
		smc_wire_put_be16(b + SMC_CLC_OFF(smc_clc_wire_accept_smcd_v2,
						  chid), ac->d.chid);
		memcpy(b + SMC_CLC_OFF(smc_clc_wire_accept_smcd_v2, eid), ac->eid,
		       SMC_CLC_EID_LEN);
		smc_wire_put_be64(b + SMC_CLC_OFF(smc_clc_wire_accept_smcd_v2,
						  gid_ext), ac->d.gid_ext);
	}
	if (!fc)
		return SMC_CLC_OK;

	q = b + fixed;
	q[SMC_CLC_OFF(smc_clc_wire_fce, flags)] =
		ac->fce.v2_direct ? SMC_CLC_FCE_V2_DIRECT : 0;
	q[SMC_CLC_OFF(smc_clc_wire_fce, os_release)] =
		(uint8_t)((ac->fce.os_type << SMC_CLC_FCE_OS_SHIFT) |
			  ac->fce.release);
	smc_wire_put_be16(q + SMC_CLC_OFF(smc_clc_wire_fce, feature_mask),
			  ac->fce.feature_mask);
	memcpy(q + SMC_CLC_OFF(smc_clc_wire_fce, hostname), ac->fce.hostname,
	       SMC_CLC_HOSTNAME_LEN);
	if (is_r || ac->fce.has_v2x) {
		q = b + fixed + FCE_LEN;
		q[SMC_CLC_OFF(smc_clc_wire_fce_v2x, max_conns)] = ac->fce.max_conns;
		q[SMC_CLC_OFF(smc_clc_wire_fce_v2x, max_links)] = ac->fce.max_links;
		smc_wire_put_be32(q + SMC_CLC_OFF(smc_clc_wire_fce_v2x,
						  vendor_exp_options),
				  ac->fce.vendor_exp_options);
	}
	if (is_r && ac->hdr.type == SMC_CLC_CONFIRM) {
		q = b + fixed + FCE_LEN + FCE_V2X_LEN;
		q[SMC_CLC_OFF(smc_clc_wire_fce_gid_list, gid_cnt)] = ac->gid_cnt;
		q += GIDLIST_LEN;
		for (i = 0; i < ac->gid_cnt; i++) {
			memcpy(q, ac->gid_list[i], SMC_CLC_GID_LEN);
			q += SMC_CLC_GID_LEN;
		}
	}
	return SMC_CLC_OK;
}

/* -------------------------------------------------------------- decline */

static enum smc_clc_err decl_check_types(const struct smc_clc_hdr *hdr)
{
	/* Linux 6.1 refuses declines whose typev1 is neither R nor D */
	if (hdr->typev1 != SMC_CLC_TYPE_R && hdr->typev1 != SMC_CLC_TYPE_D)
		return SMC_CLC_ERR_BAD_SMC_TYPE;
	return SMC_CLC_OK;
}

enum smc_clc_err smc_clc_decode_decline(const void *buf, size_t len,
					struct smc_clc_decline *d)
{
	const uint8_t *b = (const uint8_t *)buf;
	enum smc_clc_err rc;
	size_t i;

	if (!buf || !d)
		return SMC_CLC_ERR_INVAL;
	memset(d, 0, sizeof(*d));
	rc = decode_frame(b, len, &d->hdr, SMC_CLC_DECLINE, SMC_CLC_DECLINE);
	if (rc != SMC_CLC_OK)
		return rc;
	rc = decl_check_types(&d->hdr);
	if (rc != SMC_CLC_OK)
		return rc;
	if (d->hdr.length != (d->hdr.version == SMC_CLC_V1 ?
			      SMC_CLC_DECLINE_LEN_V1 : SMC_CLC_DECLINE_LEN_V2))
		return SMC_CLC_ERR_BAD_LENGTH;

	memcpy(d->peer_id, b + SMC_CLC_OFF(smc_clc_wire_decline, peer_id),
	       SMC_CLC_PEER_ID_LEN);
	d->diagnosis = smc_wire_get_be32(b + SMC_CLC_OFF(smc_clc_wire_decline,
							 diagnosis));
	if (d->hdr.version == SMC_CLC_V1)
		return SMC_CLC_OK;
	d->os_type = b[SMC_CLC_OFF(smc_clc_wire_decline_v2, os_type)] >>
		     SMC_CLC_DECL_OS_SHIFT;
	for (i = 0; i < SMC_CLC_DECL_DIAG_V2_CNT; i++)
		d->diagnosis_v2[i] = smc_wire_get_be32(b +
			SMC_CLC_OFF(smc_clc_wire_decline_v2, diagnosis_v2) + 4 * i);
	return SMC_CLC_OK;
}

enum smc_clc_err smc_clc_encode_decline(const struct smc_clc_decline *d,
					void *buf, size_t cap, size_t *out_len)
{
	uint8_t *b = (uint8_t *)buf;
	enum smc_clc_err rc;
	size_t len, i;

	if (!d)
		return SMC_CLC_ERR_INVAL;
	rc = check_hdr_in(&d->hdr);
	if (rc == SMC_CLC_OK)
		rc = decl_check_types(&d->hdr);
	if (rc != SMC_CLC_OK)
		return rc;
	if (d->hdr.version != SMC_CLC_V1 && d->os_type > 15)
		return SMC_CLC_ERR_INVAL;
	len = d->hdr.version == SMC_CLC_V1 ? SMC_CLC_DECLINE_LEN_V1 :
					     SMC_CLC_DECLINE_LEN_V2;
	rc = reserve(buf, cap, len, out_len);
	if (rc != SMC_CLC_OK)
		return rc;
	encode_frame(b, &d->hdr, SMC_CLC_DECLINE, len);
	memcpy(b + SMC_CLC_OFF(smc_clc_wire_decline, peer_id), d->peer_id,
	       SMC_CLC_PEER_ID_LEN);
	smc_wire_put_be32(b + SMC_CLC_OFF(smc_clc_wire_decline, diagnosis),
			  d->diagnosis);
	if (d->hdr.version == SMC_CLC_V1)
		return SMC_CLC_OK;
	b[SMC_CLC_OFF(smc_clc_wire_decline_v2, os_type)] =
		(uint8_t)(d->os_type << SMC_CLC_DECL_OS_SHIFT);
	for (i = 0; i < SMC_CLC_DECL_DIAG_V2_CNT; i++)
		smc_wire_put_be32(b + SMC_CLC_OFF(smc_clc_wire_decline_v2,
						  diagnosis_v2) + 4 * i,
				  d->diagnosis_v2[i]);
	return SMC_CLC_OK;
}

/* -------------------------------------------------------------- generic */

enum smc_clc_err smc_clc_decode(const void *buf, size_t len,
				struct smc_clc_msg *msg)
{
	struct smc_clc_hdr hdr;
	enum smc_clc_err rc;

	if (!buf || !msg)
		return SMC_CLC_ERR_INVAL;
	memset(msg, 0, sizeof(*msg));
	rc = smc_clc_decode_hdr(buf, len, &hdr);
	if (rc != SMC_CLC_OK)
		return rc;
	switch (hdr.type) {
	case SMC_CLC_PROPOSAL:
		return smc_clc_decode_proposal(buf, len, &msg->proposal);
	case SMC_CLC_ACCEPT:
	case SMC_CLC_CONFIRM:
		return smc_clc_decode_accept_confirm(buf, len,
						     &msg->accept_confirm);
	default:
		return smc_clc_decode_decline(buf, len, &msg->decline);
	}
}

enum smc_clc_err smc_clc_encode(const struct smc_clc_msg *msg, void *buf,
				size_t cap, size_t *out_len)
{
	if (!msg)
		return SMC_CLC_ERR_INVAL;
	switch (msg->hdr.type) {
	case SMC_CLC_PROPOSAL:
		return smc_clc_encode_proposal(&msg->proposal, buf, cap, out_len);
	case SMC_CLC_ACCEPT:
	case SMC_CLC_CONFIRM:
		return smc_clc_encode_accept_confirm(&msg->accept_confirm, buf,
						     cap, out_len);
	case SMC_CLC_DECLINE:
		return smc_clc_encode_decline(&msg->decline, buf, cap, out_len);
	default:
		return SMC_CLC_ERR_BAD_MSG_TYPE;
	}
}

bool smc_clc_ism_add(struct smc_clc_proposal *p, const struct smc_clc_ism_gid *d)
{
	unsigned int n = smc_clc_chid_emulated(d->chid) ? 2 : 1;

	if (p->ism_gid_cnt + n > SMC_CLC_MAX_ISM_GIDS)
		return false;
	p->ism_dev[p->ism_gid_cnt].gid = d->gid;
	p->ism_dev[p->ism_gid_cnt++].chid = d->chid;
	if (n == 2) {
		p->ism_dev[p->ism_gid_cnt].gid = d->gid_ext;
		p->ism_dev[p->ism_gid_cnt++].chid = d->chid;
	}
	return true;
}

bool smc_clc_ism_next(const struct smc_clc_proposal *p, unsigned int *pos,
		      struct smc_clc_ism_gid *d)
{
	unsigned int cnt = p->ism_gid_cnt < SMC_CLC_MAX_ISM_GIDS ?
			   p->ism_gid_cnt : SMC_CLC_MAX_ISM_GIDS;

	while (*pos < cnt) {
		const struct smc_clc_ism_dev *e = &p->ism_dev[(*pos)++];

		d->gid = e->gid;
		d->gid_ext = 0;
		d->chid = e->chid;
		if (!smc_clc_chid_emulated(e->chid))
			return true;
		if (*pos == cnt || p->ism_dev[*pos].chid != e->chid)
			continue;
		d->gid_ext = p->ism_dev[(*pos)++].gid;
		return true;
	}
	return false;
}

const char *smc_clc_err_text(enum smc_clc_err err)
{
	switch (err) {
	case SMC_CLC_OK:
		return "ok";
	case SMC_CLC_ERR_TRUNCATED:
		return "message truncated";
	case SMC_CLC_ERR_TRAILING:
		return "bytes beyond the message length";
	case SMC_CLC_ERR_BAD_EYECATCHER:
		return "bad header eyecatcher";
	case SMC_CLC_ERR_BAD_TRAILER:
		return "bad trailer eyecatcher";
	case SMC_CLC_ERR_BAD_MSG_TYPE:
		return "bad or unexpected message type";
	case SMC_CLC_ERR_BAD_VERSION:
		return "unsupported SMC version";
	case SMC_CLC_ERR_BAD_SMC_TYPE:
		return "SMC type not allowed in this message";
	case SMC_CLC_ERR_BAD_LENGTH:
		return "length does not match the message content";
	case SMC_CLC_ERR_BAD_OFFSET:
		return "offset field points to the wrong place";
	case SMC_CLC_ERR_BAD_COUNT:
		return "count exceeds its limit";
	case SMC_CLC_ERR_NOSPACE:
		return "output buffer too small";
	case SMC_CLC_ERR_INVAL:
		return "invalid argument";
	case SMC_CLC_ERR__MAX:
		break;
	}
	return "unknown error";
}
