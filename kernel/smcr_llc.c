// SPDX-License-Identifier: GPL-2.0
/*
 * af_smc: the LLC protocol of an SMC-R link (see smcr_link.h).
 *
 * smcr_link.c owns the link's queue pair: its life, the work requests
 * posted on it, their completions and the receive buffers. This file is
 * what the two ends say to each other over that QP in LLC messages; the
 * messages are handled, and our requests sent and waited for, in process
 * context:
 *   - smcr_llc_send() encodes one message (wire/smc_llc.c) with the
 *     group's header version and sends it in a send slot;
 *   - rx_work takes the LLC messages that the receive completion put on
 *     the link's ring and acts on them: the peer's CONFIRM_LINK and
 *     TEST_LINK requests are answered, its responses handed to whoever
 *     waits for them, DELETE_LINK ends the link, ADD_LINK and its
 *     CONTINUATIONs go to the link's owner (llc_rx);
 *   - our own CONFIRM_LINK and TEST_LINK requests, each with a bounded
 *     wait for the answer, which the owner may cut short;
 *   - the keepalive, a TEST_LINK on a link that heard nothing for an
 *     interval;
 *   - the DELETE_LINK an active link sends before it is destroyed.
 * Kept apart from the QP code so that each reads on its own. Little
 * crosses between the two: this side sends with smcr_link_send(), waits
 * on l->wait, takes l->lock for what it shares with the completion
 * handlers (the state, the answers, the counters) and ends a link with
 * smcr_link_broken(), as they do.
 */
#include <linux/bitmap.h>
#include <linux/etherdevice.h>
#include <linux/random.h>
#include <linux/workqueue.h>

#include "smc_netns.h"
#include "smcr_link.h"

/*
 * An LLC answer: one round trip through the peer's rx_work. The link's
 * other bounds, and what they rest on, are at the top of smcr_link.c; a
 * debug build multiplies every one of them (smc_wait.h).
 */
#define SMCR_LLC_WAIT		(4 * HZ * SMC_WAIT_SCALE)

int smcr_llc_send(struct smcr_link *l, const struct smc_llc_msg *m)
{
	struct smc_llc_msg v = *m;
	u8 buf[SMC_LLC_MSG_LEN];

	/* the group's SMC version picks the header */
	v.v2 = READ_ONCE(l->v2);
	v.v2_len = 0;
	if (smc_llc_encode(&v, buf, sizeof(buf)))
		return -EINVAL;
	return smcr_link_send(l, buf, sizeof(buf), NULL);
}

int smcr_llc_send_add_ext(struct smcr_link *l, const struct smc_llc_msg *m,
			  const struct smc_llc_add_link_ext *e)
{
	size_t len = SMC_LLC_MSG_LEN + smc_llc_add_ext_len(e->num_rkeys);
	struct smc_llc_msg v = *m;
	u8 *buf;
	int rc;

	if (!READ_ONCE(l->v2) || m->type != SMC_LLC_ADD_LINK || len > SMCR_MSG_V2_MAX)
		return -EINVAL;
	buf = kmalloc(len, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	v.v2 = true;
	v.v2_len = len;
	if (smc_llc_encode(&v, buf, SMC_LLC_MSG_LEN) ||
	    smc_llc_add_ext_encode(e, buf + SMC_LLC_MSG_LEN, len - SMC_LLC_MSG_LEN))
		rc = -EINVAL;
	else
		rc = smcr_link_send(l, buf, len, NULL);
	kfree(buf);
	return rc;
}

/* ---- received messages ---- */

static void smcr_llc_fill_confirm(struct smcr_link *l, struct smc_llc_msg *m,
				  bool response)
{
	memset(m, 0, sizeof(*m));
	m->type = SMC_LLC_CONFIRM_LINK;
	m->response = response;
	memcpy(m->confirm_link.sender_mac, l->local.mac, ETH_ALEN);
	memcpy(m->confirm_link.sender_gid, l->local.gid.raw, SMC_LLC_GID_LEN);
	m->confirm_link.sender_qpn = l->local.qpn;
	m->confirm_link.link_num = l->link_num;
	memcpy(m->confirm_link.link_uid, l->link_uid, SMC_LLC_LGR_ID_LEN);
	m->confirm_link.max_links = l->llc_max_links;
	m->confirm_link.max_conns = l->llc_max_conns;
	m->confirm_link.no_rmbe_eyec = true;
}

static bool smcr_llc_ends_link_msg(const struct smcr_link *l,
				   const struct smc_llc_delete_link *d)
{
	return d->all || !d->link_num || d->link_num == l->link_num;
}

bool smcr_llc_ends_link(const struct smcr_link *l, const u8 *msg)
{
	struct smc_llc_msg m;

	if (smc_llc_decode(msg, SMCR_MSG_SIZE, &m) || m.type != SMC_LLC_DELETE_LINK)
		return true;
	return smcr_llc_ends_link_msg(l, &m.delete_link);
}

/* Whether a CONFIRM_LINK names the peer we connected to. */
static bool smcr_llc_confirm_ok(const struct smcr_link *l,
				const struct smc_llc_confirm_link *c)
{
	return c->sender_qpn == l->peer.qpn &&
	       !memcmp(c->sender_gid, l->peer.gid.raw, SMC_LLC_GID_LEN) &&
	       ether_addr_equal(c->sender_mac, l->peer.mac);
}

/* m, with the tail of a long v2 ADD_LINK in ext (ext_len bytes) or none. */
static void smcr_llc_handle(struct smcr_link *l, const struct smc_llc_msg *m,
			    const u8 *ext, unsigned int ext_len)
{
	struct smc_llc_msg reply;

	switch (m->type) {
	case SMC_LLC_CONFIRM_LINK:
		if (!smcr_llc_confirm_ok(l, &m->confirm_link)) {
			l->rx_bad++;
			return;
		}
		if (m->response) {
			spin_lock_bh(&l->lock);
			l->confirm_resp = *m;
			l->confirm_done = true;
			spin_unlock_bh(&l->lock);
			wake_up(&l->wait);
			return;
		}
		/* The server's request: take its link number and group id. */
		l->link_num = m->confirm_link.link_num;
		memcpy(l->link_uid, m->confirm_link.link_uid, SMC_LLC_LGR_ID_LEN);
		smcr_llc_fill_confirm(l, &reply, true);
		smcr_llc_send(l, &reply);
		spin_lock_bh(&l->lock);
		l->confirm_done = true;
		spin_unlock_bh(&l->lock);
		wake_up(&l->wait);
		return;
	case SMC_LLC_TEST_LINK:
		if (m->response) {
			spin_lock_bh(&l->lock);
			l->test_resp = *m;
			l->test_resps++;
			spin_unlock_bh(&l->lock);
			wake_up(&l->wait);
			return;
		}
		reply = *m;
		reply.response = true;
		smcr_llc_send(l, &reply);
		return;
	case SMC_LLC_DELETE_LINK:
		/*
		 * One for another link of the group: the group's flows take
		 * that link down; a response to one of ours says nothing
		 * more (the link is gone here already).
		 */
		if (!smcr_llc_ends_link_msg(l, &m->delete_link)) {
			if (l->llc_rx && !m->response)
				l->llc_rx(l->cdc_arg, l, m, NULL, 0);
			return;
		}
		/*
		 * This link, or the whole group: it ends. The peer's orderly
		 * one asks for no answer; its QP is going.
		 */
		spin_lock_bh(&l->lock);
		if (l->state == SMCR_LINK_ACTIVE)
			smcr_link_broken(l, NULL);
		l->peer_deleted = true;
		spin_unlock_bh(&l->lock);
		wake_up(&l->wait);
		return;
	case SMC_LLC_ADD_LINK:
	case SMC_LLC_ADD_LINK_CONT:
		/* The group's business: its flow answers (smcr_lgr_llc.c). */
		if (l->llc_rx) {
			l->llc_rx(l->cdc_arg, l, m, ext, ext_len);
			return;
		}
		/*
		 * A link with no group: a peer's request for a second link
		 * is rejected, "no alternate path", as Linux's client does
		 * when it has no other device. A v2 header has no room for
		 * the reason; the flag says it all.
		 */
		if (m->response || m->type != SMC_LLC_ADD_LINK) {
			l->rx_bad++;
			return;
		}
		reply = *m;
		reply.response = true;
		reply.add_link.rejected = true;
		reply.add_link.reject_reason = l->v2 ? 0 : SMC_LLC_REJ_RSN_NO_ALT_PATH;
		smcr_llc_send(l, &reply);
		return;
	case SMC_LLC_CONFIRM_RKEY:
	case SMC_LLC_DELETE_RKEY:
		if (m->response) {
			if (m->type != SMC_LLC_CONFIRM_RKEY)
				return;	/* nothing waits for a DELETE_RKEY's */
			spin_lock_bh(&l->lock);
			l->rkey_resp[l->rkey_resps % SMCR_RKEY_RESPS].rkey =
				m->confirm_rkey.rtoken[0].rkey;
			l->rkey_resp[l->rkey_resps % SMCR_RKEY_RESPS].negative =
				m->confirm_rkey.negative;
			l->rkey_resps++;
			spin_unlock_bh(&l->lock);
			wake_up(&l->wait);
			return;
		}
		/* The group keeps what the peer announces and answers. */
		if (l->llc_rx) {
			l->llc_rx(l->cdc_arg, l, m, NULL, 0);
			return;
		}
		/* A link with no group has no use for them: refused. */
		reply = *m;
		reply.response = true;
		if (m->type == SMC_LLC_CONFIRM_RKEY)
			reply.confirm_rkey.negative = true;
		else
			reply.delete_rkey.negative = true;
		/* v2: the answer counts the rkeys not found, here all of them. */
		if (m->type == SMC_LLC_DELETE_RKEY && l->v2)
			reply.delete_rkey.err_mask = m->delete_rkey.num_rkeys;
		smcr_llc_send(l, &reply);
		return;
	default:
		/* CONFIRM_RKEY_CONT: we announce one other link at most. */
		l->rx_bad++;
		return;
	}
}

void smcr_rx_work(struct work_struct *work)
{
	struct smcr_link *l = container_of(work, struct smcr_link, rx_work);
	u8 raw[SMCR_MSG_SIZE];
	unsigned int ext_len;
	struct smc_llc_msg m;

	for (;;) {
		spin_lock_bh(&l->lock);
		if (l->rx_tail == l->rx_head) {
			spin_unlock_bh(&l->lock);
			return;
		}
		memcpy(raw, l->rx_ring[l->rx_tail % SMCR_RX_RING], SMCR_MSG_SIZE);
		/* rx_ext stays as it is until freed below. */
		ext_len = l->rx_ext_len && l->rx_ext_at == l->rx_tail ? l->rx_ext_len : 0;
		l->rx_tail++;
		spin_unlock_bh(&l->lock);
		/* The header's length names the tail that came with it. */
		if (smc_llc_decode(raw, sizeof(raw), &m) ||
		    (ext_len && m.v2_len != SMCR_MSG_SIZE + ext_len))
			l->rx_bad++;
		else
			smcr_llc_handle(l, &m, ext_len ? l->rx_ext : NULL, ext_len);
		if (ext_len) {
			spin_lock_bh(&l->lock);
			l->rx_ext_len = 0;
			spin_unlock_bh(&l->lock);
		}
	}
}

/* ---- our requests, their answers, the keepalive ---- */

/* After an LLC answer wait: 0 if answered, else why not. */
static int smcr_llc_result(struct smcr_link *l, bool answered)
{
	if (answered)
		return 0;
	return READ_ONCE(l->aborted) ? -ECONNABORTED : -ENOLINK;
}

static bool smcr_llc_answered(struct smcr_link *l, bool *flag)
{
	bool done;

	spin_lock_bh(&l->lock);
	done = *flag || !smcr_link_usable(l) || l->aborted;
	spin_unlock_bh(&l->lock);
	return done;
}

int smcr_llc_confirm_link(struct smcr_link *l)
{
	struct smc_llc_msg m;
	int rc;

	spin_lock_bh(&l->lock);
	l->confirm_done = false;
	spin_unlock_bh(&l->lock);
	smcr_llc_fill_confirm(l, &m, false);
	rc = smcr_llc_send(l, &m);
	if (rc)
		return rc;
	if (!wait_event_timeout(l->wait, smcr_llc_answered(l, &l->confirm_done),
				SMCR_LLC_WAIT))
		return -ETIMEDOUT;
	return smcr_llc_result(l, l->confirm_done);
}

/* Wait (bounded) for the peer's CONFIRM_LINK request to have been answered. */
int smcr_llc_await_confirm(struct smcr_link *l)
{
	if (!wait_event_timeout(l->wait, smcr_llc_answered(l, &l->confirm_done),
				SMCR_LLC_WAIT))
		return -ETIMEDOUT;
	return smcr_llc_result(l, l->confirm_done);
}

static bool smcr_test_answered(struct smcr_link *l, unsigned int before)
{
	bool done;

	spin_lock_bh(&l->lock);
	done = l->test_resps != before || !smcr_link_usable(l) || l->aborted;
	spin_unlock_bh(&l->lock);
	return done;
}

int smcr_llc_test_link(struct smcr_link *l)
{
	struct smc_llc_msg m = { .type = SMC_LLC_TEST_LINK };
	unsigned int before;
	u8 data[SMC_LLC_TEST_DATA_LEN];
	int rc;

	get_random_bytes(data, sizeof(data));
	memcpy(m.test_link.user_data, data, sizeof(data));
	spin_lock_bh(&l->lock);
	before = l->test_resps;
	spin_unlock_bh(&l->lock);
	rc = smcr_llc_send(l, &m);
	if (rc)
		return rc;
	if (!wait_event_timeout(l->wait, smcr_test_answered(l, before), SMCR_LLC_WAIT))
		return -ETIMEDOUT;
	if (l->test_resps == before)
		return smcr_llc_result(l, false);
	return memcmp(l->test_resp.test_link.user_data, data, sizeof(data)) ? -EPROTO : 0;
}

/* An answer naming rkey among those since before (*neg: refused). */
static bool smcr_rkey_answered(struct smcr_link *l, unsigned int before,
			       u32 rkey, int *rc)
{
	unsigned int i;
	bool done = false;

	spin_lock_bh(&l->lock);
	if (l->rkey_resps - before > SMCR_RKEY_RESPS)
		before = l->rkey_resps - SMCR_RKEY_RESPS;
	for (i = before; i != l->rkey_resps; i++) {
		if (l->rkey_resp[i % SMCR_RKEY_RESPS].rkey == rkey) {
			*rc = l->rkey_resp[i % SMCR_RKEY_RESPS].negative ?
			      -EREMOTEIO : 0;
			done = true;
		}
	}
	if (!done && (!smcr_link_usable(l) || l->aborted)) {
		*rc = -ENOLINK;
		done = true;
	}
	spin_unlock_bh(&l->lock);
	return done;
}

int smcr_llc_confirm_rkey(struct smcr_link *l, const struct smc_llc_msg *m)
{
	unsigned int before;
	int rc;

	spin_lock_bh(&l->lock);
	before = l->rkey_resps;
	spin_unlock_bh(&l->lock);
	rc = smcr_llc_send(l, m);
	if (rc)
		return rc;
	if (!wait_event_timeout(l->wait,
				smcr_rkey_answered(l, before,
						   m->confirm_rkey.rtoken[0].rkey, &rc),
				SMCR_LLC_WAIT))
		return -ETIMEDOUT;
	return rc;
}

/*
 * Keepalive: when the peer has sent nothing for a whole interval, ask it
 * with TEST_LINK; no answer within the LLC bound (or the send failing)
 * ends the link. A peer that vanished without DELETE_LINK is so noticed
 * within interval + SMCR_LLC_WAIT even when nobody uses the link.
 */
void smcr_keepalive_work(struct work_struct *work)
{
	struct smcr_link *l = container_of(to_delayed_work(work), struct smcr_link,
					   keepalive_work);
	unsigned long interval = READ_ONCE(l->keepalive);
	bool idle;
	int rc;

	if (!interval || READ_ONCE(l->state) != SMCR_LINK_ACTIVE)
		return;
	spin_lock_bh(&l->lock);
	idle = time_after_eq(jiffies, l->last_rx + interval);
	spin_unlock_bh(&l->lock);
	if (idle) {
		rc = smcr_llc_test_link(l);
		if (rc == -ETIMEDOUT || rc == -ENOLINK || rc == -EPROTO) {
			spin_lock_bh(&l->lock);
			if (l->state == SMCR_LINK_ACTIVE)
				smcr_link_broken(l, "the peer did not answer TEST_LINK");
			l->keepalive_failed = true;
			spin_unlock_bh(&l->lock);
			wake_up(&l->wait);
			return;
		}
	}
	if (READ_ONCE(l->state) == SMCR_LINK_ACTIVE)
		queue_delayed_work(smcr_wq, &l->keepalive_work, interval);
}

void smcr_link_set_keepalive(struct smcr_link *l, unsigned long interval)
{
	WRITE_ONCE(l->keepalive, interval);
	if (interval)
		mod_delayed_work(smcr_wq, &l->keepalive_work, interval);
}

void smcr_link_keepalive_net(struct smcr_link *l, const struct net *net)
{
	int t = READ_ONCE(smc_net(net)->sysctl_smcr_testlink_time);

	smcr_link_set_keepalive(l, t > 0 ? t : 0);
}

void smcr_link_abort_waits(struct smcr_link *l)
{
	spin_lock_bh(&l->lock);
	l->aborted = true;
	spin_unlock_bh(&l->lock);
	wake_up_all(&l->wait);
}

/* ---- orderly end ---- */

static bool smcr_sends_done(struct smcr_link *l)
{
	bool done;

	spin_lock_bh(&l->lock);
	done = bitmap_full(l->send_free, l->send_slots) ||
	       !smcr_link_usable(l);
	spin_unlock_bh(&l->lock);
	return done;
}

/*
 * Tell the peer, before our QP goes, that the link (the whole group: one
 * link) ends in order, so its side fails at once instead of after its
 * retries. The QP must still be there when the SEND is acknowledged, so
 * this waits for the outstanding sends to complete, bounded like every
 * send: a peer that is gone costs at most SMCR_SLOT_WAIT, never more.
 */
void smcr_llc_delete_link(struct smcr_link *l)
{
	struct smc_llc_msg m = {
		.type = SMC_LLC_DELETE_LINK,
		.delete_link = {
			.link_num = 0,
			.reason = SMC_LLC_DEL_PROG_INIT_TERM,
			.all = true,
			.orderly = true,
		},
	};

	if (smcr_llc_send(l, &m))
		return;
	wait_event_timeout(l->wait, smcr_sends_done(l), SMCR_SLOT_WAIT);
}
