// SPDX-License-Identifier: GPL-2.0
/*
 * af_smc: the EID table of a namespace and its SMC_GEN_NETLINK requests
 * (see smc_eid.h).
 *
 * Answers, as Linux 6.1 gives them:
 *   ADD_UEID     EINVAL (missing or malformed EID), EEXIST, ERANGE (full)
 *   REMOVE_UEID  EINVAL (missing or malformed attribute), ENOENT (also
 *                for a string that is no valid EID); EAGAIN when it removed the last UEID
 *                while the SEID was disabled: it is enabled again (done)
 *   FLUSH_UEID   0, and the SEID is enabled again
 *   ENABLE_SEID  EOPNOTSUPP without an ISM device (no SMC-Dv2)
 *   DISABLE_SEID EOPNOTSUPP likewise; ENOENT while no UEID is defined
 * Dumps: one message per UEID (SMC_NLA_EID_TABLE_ENTRY, 32 bytes + NUL);
 * DUMP_SEID one message, empty without SMC-Dv2, else the SEID and whether
 * it is enabled.
 *
 * Where we differ: the EID may come without its blank padding (Linux wants
 * exactly 33 bytes), and every refusal carries an extack message.
 */
#include <linux/ctype.h>
#include <linux/string.h>
#include <net/genetlink.h>
#include <net/netlink.h>
#include <net/sock.h>

#include "smc.h"
#include "smc_eid.h"
#include "smcd_ism.h"
#include "smc_netns.h"
#include "smc_offer.h"

#include "smc_gnl.h"

void smc_eid_table_init(struct smc_eid_table *t)
{
	spin_lock_init(&t->lock);
	t->ueid_cnt = 0;
	t->seid_enabled = true;
}

static struct smc_eid_table *smc_eid_table(const struct net *net)
{
	return &smc_net(net)->eids;
}

/* SMC-Dv2 needs an ISM device; without one there is no SEID to speak of. */
static bool smc_eid_v2_capable(void)
{
	return smcd_ism_available();
}

void smc_eid_propose(struct net *net, struct smc_clc_proposal *p)
{
	struct smc_eid_table *t = smc_eid_table(net);
	unsigned int i;

	BUILD_BUG_ON(SMC_MAX_UEID > SMC_CLC_MAX_UEID);
	BUILD_BUG_ON(SMC_MAX_EID_LEN != SMC_CLC_EID_LEN);
	spin_lock(&t->lock);
	p->eid_cnt = t->ueid_cnt;
	for (i = 0; i < t->ueid_cnt; i++)
		memcpy(p->user_eid[i], t->ueid[i], SMC_MAX_EID_LEN);
	p->seid = t->seid_enabled;
	spin_unlock(&t->lock);
	if (p->seid)
		smc_offer_system_eid(p->system_eid);
	else
		memset(p->system_eid, 0, sizeof(p->system_eid));
}

/* The first of p's UEIDs that t has too, into eid. Under t->lock. */
static bool smc_eid_match_ueid_locked(struct smc_eid_table *t,
				      const struct smc_clc_proposal *p,
				      u8 eid[SMC_MAX_EID_LEN])
{
	unsigned int i, j;

	for (i = 0; i < p->eid_cnt && i < SMC_CLC_MAX_UEID; i++) {
		for (j = 0; j < t->ueid_cnt; j++) {
			if (!memcmp(t->ueid[j], p->user_eid[i], SMC_MAX_EID_LEN)) {
				memcpy(eid, t->ueid[j], SMC_MAX_EID_LEN);
				return true;
			}
		}
	}
	return false;
}

bool smc_eid_match(struct net *net, const struct smc_clc_proposal *p,
		   u8 eid[SMC_MAX_EID_LEN])
{
	struct smc_eid_table *t = smc_eid_table(net);
	u8 seid[SMC_MAX_EID_LEN];
	bool found = false;

	smc_offer_system_eid(seid);
	spin_lock(&t->lock);
	if (t->seid_enabled && p->seid &&
	    !memcmp(seid, p->system_eid, SMC_MAX_EID_LEN)) {
		memcpy(eid, seid, SMC_MAX_EID_LEN);
		found = true;
	} else {
		found = smc_eid_match_ueid_locked(t, p, eid);
	}
	spin_unlock(&t->lock);
	return found;
}

bool smc_eid_match_ueid(struct net *net, const struct smc_clc_proposal *p,
			u8 eid[SMC_MAX_EID_LEN])
{
	struct smc_eid_table *t = smc_eid_table(net);
	bool found;

	spin_lock(&t->lock);
	found = smc_eid_match_ueid_locked(t, p, eid);
	spin_unlock(&t->lock);
	return found;
}

unsigned int smc_eid_ueid_count(struct net *net)
{
	struct smc_eid_table *t = smc_eid_table(net);
	unsigned int n;

	spin_lock(&t->lock);
	n = t->ueid_cnt;
	spin_unlock(&t->lock);
	return n;
}

bool smc_eid_is_ueid(struct net *net, const u8 eid[SMC_MAX_EID_LEN])
{
	struct smc_eid_table *t = smc_eid_table(net);
	bool found = false;
	unsigned int j;

	spin_lock(&t->lock);
	for (j = 0; j < t->ueid_cnt && !found; j++)
		found = !memcmp(t->ueid[j], eid, SMC_MAX_EID_LEN);
	spin_unlock(&t->lock);
	return found;
}

/*
 * The EID of a request's SMC_NLA_EID_TABLE_ENTRY (at most 33 bytes, the
 * policy saw to that; it must hold a NUL), blank-padded to 32 bytes.
 * 0, or -EINVAL with the reason in extack; a well-formed string that is
 * not a valid EID gets bad_errno instead (Linux: EINVAL when adding,
 * ENOENT when removing, for no such EID can be in the table).
 */
static int smc_eid_parse(struct genl_info *info, u8 eid[SMC_MAX_EID_LEN],
			 int bad_errno)
{
	struct nlattr *a = info->attrs[SMC_NLA_EID_TABLE_ENTRY];
	const char *s;
	size_t len, i;

	if (!a) {
		NL_SET_ERR_MSG(info->extack, "the EID (SMC_NLA_EID_TABLE_ENTRY) is missing");
		NL_SET_ERR_ATTR_MISS(info->extack, NULL, SMC_NLA_EID_TABLE_ENTRY);
		return -EINVAL;
	}
	s = nla_data(a);
	if (!memchr(s, 0, nla_len(a))) {
		NL_SET_ERR_MSG_ATTR(info->extack, a,
				    "the EID must be a NUL-terminated string");
		return -EINVAL;
	}
	len = strnlen(s, SMC_MAX_EID_LEN);
	if (s[len]) {
		NL_SET_ERR_MSG_ATTR(info->extack, a, "an EID has at most 32 characters");
		return -EINVAL;
	}
	while (len && s[len - 1] == ' ')
		len--;
	if (!len || s[0] == ' ') {
		NL_SET_ERR_MSG_ATTR(info->extack, a,
				    "an EID is 1 to 32 characters and does not start with a blank");
		return bad_errno;
	}
	if (!isdigit(s[0]) && !isupper(s[0])) {
		NL_SET_ERR_MSG_ATTR(info->extack, a,
				    "an EID starts with an upper-case letter or a digit");
		return bad_errno;
	}
	for (i = 0; i < len; i++) {
		if (!isdigit(s[i]) && !isupper(s[i]) && s[i] != '.' && s[i] != '-') {
			NL_SET_ERR_MSG_ATTR(info->extack, a,
					    "an EID holds only upper-case letters, digits, '.' and '-'");
			return bad_errno;
		}
	}
	memset(eid, ' ', SMC_MAX_EID_LEN);
	memcpy(eid, s, len);
	return 0;
}

/* The slot of eid in t, or -1. Table locked. */
static int smc_eid_find(const struct smc_eid_table *t, const u8 *eid)
{
	unsigned int i;

	for (i = 0; i < t->ueid_cnt; i++)
		if (!memcmp(t->ueid[i], eid, SMC_MAX_EID_LEN))
			return i;
	return -1;
}

int smc_eid_nl_add_ueid(struct sk_buff *skb, struct genl_info *info)
{
	struct smc_eid_table *t = smc_eid_table(genl_info_net(info));
	u8 eid[SMC_MAX_EID_LEN];
	int rc;

	rc = smc_eid_parse(info, eid, -EINVAL);
	if (rc)
		return rc;
	spin_lock(&t->lock);
	if (smc_eid_find(t, eid) >= 0) {
		rc = -EEXIST;
		NL_SET_ERR_MSG(info->extack, "this user EID is already defined");
	} else if (t->ueid_cnt >= SMC_MAX_UEID) {
		rc = -ERANGE;
		NL_SET_ERR_MSG(info->extack, "the user EID table is full (4 entries)");
	} else {
		memcpy(t->ueid[t->ueid_cnt++], eid, SMC_MAX_EID_LEN);
	}
	spin_unlock(&t->lock);
	return rc;
}

int smc_eid_nl_remove_ueid(struct sk_buff *skb, struct genl_info *info)
{
	struct smc_eid_table *t = smc_eid_table(genl_info_net(info));
	u8 eid[SMC_MAX_EID_LEN];
	int rc, i;

	rc = smc_eid_parse(info, eid, -ENOENT);
	if (rc)
		return rc;
	spin_lock(&t->lock);
	i = smc_eid_find(t, eid);
	if (i < 0) {
		rc = -ENOENT;
		NL_SET_ERR_MSG(info->extack, "no such user EID");
		goto out;
	}
	/* Keep the order the others were added in. */
	memmove(t->ueid[i], t->ueid[i + 1],
		(t->ueid_cnt - i - 1) * SMC_MAX_EID_LEN);
	t->ueid_cnt--;
	if (!t->ueid_cnt && !t->seid_enabled) {
		/* No EID would be left to offer: the SEID comes back. */
		t->seid_enabled = true;
		rc = -EAGAIN;
		NL_SET_ERR_MSG(info->extack,
			       "removed the last user EID; the system EID is enabled again");
	}
out:
	spin_unlock(&t->lock);
	return rc;
}

int smc_eid_nl_flush_ueid(struct sk_buff *skb, struct genl_info *info)
{
	struct smc_eid_table *t = smc_eid_table(genl_info_net(info));

	spin_lock(&t->lock);
	t->ueid_cnt = 0;
	t->seid_enabled = true;
	spin_unlock(&t->lock);
	return 0;
}

int smc_eid_nl_dump_ueid(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct smc_eid_table *t = smc_eid_table(sock_net(skb->sk));
	char text[SMC_MAX_EID_LEN + 1];
	long pos = cb->args[0];
	void *hdr;

	for (;; pos++) {
		spin_lock(&t->lock);
		if (pos >= t->ueid_cnt) {
			spin_unlock(&t->lock);
			break;
		}
		memcpy(text, t->ueid[pos], SMC_MAX_EID_LEN);
		spin_unlock(&t->lock);
		text[SMC_MAX_EID_LEN] = 0;
		hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid,
				  cb->nlh->nlmsg_seq, &smc_gnl_family,
				  NLM_F_MULTI, SMC_NETLINK_DUMP_UEID);
		if (!hdr)
			break;
		if (nla_put_string(skb, SMC_NLA_EID_TABLE_ENTRY, text)) {
			genlmsg_cancel(skb, hdr);
			break;
		}
		genlmsg_end(skb, hdr);
	}
	cb->args[0] = pos;
	return skb->len;
}

int smc_eid_nl_dump_seid(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct smc_eid_table *t = smc_eid_table(sock_net(skb->sk));
	char text[SMC_MAX_EID_LEN + 1];
	bool enabled;
	void *hdr;

	if (cb->args[0])
		return 0;
	hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			  &smc_gnl_family, NLM_F_MULTI, SMC_NETLINK_DUMP_SEID);
	if (!hdr)
		return -EMSGSIZE;
	if (smc_eid_v2_capable()) {
		smc_offer_system_eid((u8 *)text);
		text[SMC_MAX_EID_LEN] = 0;
		spin_lock(&t->lock);
		enabled = t->seid_enabled;
		spin_unlock(&t->lock);
		if (nla_put_string(skb, SMC_NLA_SEID_ENTRY, text) ||
		    nla_put_u8(skb, SMC_NLA_SEID_ENABLED, enabled)) {
			genlmsg_cancel(skb, hdr);
			return -EMSGSIZE;
		}
	}
	genlmsg_end(skb, hdr);
	cb->args[0] = 1;
	return skb->len;
}

int smc_eid_nl_enable_seid(struct sk_buff *skb, struct genl_info *info)
{
	struct smc_eid_table *t = smc_eid_table(genl_info_net(info));

	if (!smc_eid_v2_capable()) {
		NL_SET_ERR_MSG(info->extack, "no ISM device: there is no system EID (SMC-Dv2)");
		return -EOPNOTSUPP;
	}
	spin_lock(&t->lock);
	t->seid_enabled = true;
	spin_unlock(&t->lock);
	return 0;
}

int smc_eid_nl_disable_seid(struct sk_buff *skb, struct genl_info *info)
{
	struct smc_eid_table *t = smc_eid_table(genl_info_net(info));
	int rc = 0;

	if (!smc_eid_v2_capable()) {
		NL_SET_ERR_MSG(info->extack, "no ISM device: there is no system EID (SMC-Dv2)");
		return -EOPNOTSUPP;
	}
	spin_lock(&t->lock);
	if (!t->ueid_cnt) {
		rc = -ENOENT;
		NL_SET_ERR_MSG(info->extack,
			       "define a user EID first: without one no EID would be left");
	} else {
		t->seid_enabled = false;
	}
	spin_unlock(&t->lock);
	return rc;
}
