// SPDX-License-Identifier: GPL-2.0
/*
 * af_smc: a link group's own LLC flows (smcr_lgr.h): a second link.
 *
 * The server adds links (RFC 7609, "adding links to a link group"). Once
 * its group's first link is confirmed (smcr_lgr_llc_add()), it looks for
 * a second path, a port of its own with the first one's PNET ID
 * (smcr_ib_find_alt()), and runs in the group's llc_work:
 *   1. a new link (its QP in INIT) in a free slot, and every buffer of
 *      the group mapped on it;
 *   2. ADD_LINK request over the first link, naming the new QP;
 *   3. the client's ADD_LINK response (or its reject): the new QP to RTS
 *      with the client's, every buffer registered on it;
 *   4. ADD_LINK_CONTINUATIONs, ours first, then one each way in turn,
 *      until both have sent, for every RMB of a connection, its rkey on
 *      the first link (which names it) and its rkey and address on the
 *      new one;
 *   5. CONFIRM_LINK over the new link, answered there; from then on new
 *      connections may use it (the one with fewer connections).
 * The client answers an ADD_LINK request in its own llc_work: a port of
 * its own with its first path's PNET ID (else a reject, "no alternate
 * path", and the group stays as it is), the new QP to RTS with the
 * server's, the buffers mapped and registered, its ADD_LINK response,
 * the CONTINUATIONs in turn, and the server's CONFIRM_LINK, which the new
 * link answers itself (smcr_llc.c).
 *
 * A flow holds the group's bufs_sem for writing from the new link's slot
 * being set until the link is confirmed or gone: no connection makes or
 * frees a buffer meanwhile, so every buffer is mapped, registered and
 * announced on the new link exactly once. Each answer has a bound
 * (SMCR_LGR_LLC_WAIT) and the whole flow another (SMCR_LGR_ADD_MAX). A
 * flow that fails leaves the group as it was: once the peer may have the
 * link (it answered our ADD_LINK, or we answered its), a DELETE_LINK for
 * that link alone goes over the first link, so a peer that got further
 * than we did (its CONFIRM_LINK answered, the answer lost) drops it too;
 * the new link goes to the error state (so its teardown sends no
 * DELETE_LINK over it), its mappings are dropped, its slot cleared and it
 * is destroyed. A peer still in its flow runs out of time and does the
 * same. The first link is not touched. The peer's DELETE_LINK for one
 * link takes that link down here (smcr_lgr_llc_deletes()).
 *
 * The same work frees the slot of a failed second link once its
 * connections have left (smcr_lgr_llc_prune()), and runs again when a
 * port comes up (smcr_lgr_port_up()): the server then adds a link again,
 * and a client asks it to (smcr_lgr_llc_invite()), since the server's
 * own ports may never have gone down.
 *
 * An end with no second port of its own, up or down, but with the
 * group's PNET ID (a port matched by it, not by its GID's netdev) makes
 * the new link on its first link's port again, when the peer has a
 * second port: an asymmetric group (RFC 7609), whose two links share
 * this end's one port and end on two of the peer's. The server tries it
 * when it has one port (only the client's answer says whether the client
 * has two); the client with one port rejects a request whose QP is on
 * the server's first port too, and the server drops a link whose two
 * ends both are on the first link's ports (a peer that answered so).
 * Such a server tries once per first contact or invite, not again: no
 * port of its own can come up.
 *
 * SMC-Rv2 groups run the same flows without step 4: the server's ADD_LINK
 * request and the client's accepting response carry the sender's rkeys in
 * their v2 extension (smcr_lgr_llc_send_add()), which the link hands over
 * with the message (smcr_lgr_llc_rx()). Only for a peer reached without a
 * gateway (smcr_lgr_llc_wants()).
 *
 * An RMB made once the group has a second link is announced with
 * CONFIRM_RKEY (smcr_lgr_rkey_announce(), smcr_lgr_rkey_take()), so that
 * its connection can fail over (smcr_conn.c); one the peer knows on more
 * than one link is withdrawn with DELETE_RKEY when its connection ends
 * (smcr_lgr_rkey_forget()).
 */
#include <linux/delay.h>
#include <linux/etherdevice.h>
#include <linux/slab.h>
#include <net/net_namespace.h>

#include "smc.h"
#include "smcr_lgr.h"

/* One answer of the peer: a round trip through its llc_work. */
#define SMCR_LGR_LLC_WAIT	(4 * HZ * SMC_WAIT_SCALE)
/* A whole ADD_LINK, its 128 CONTINUATION rounds at most included. */
#define SMCR_LGR_ADD_MAX	(30 * HZ * SMC_WAIT_SCALE)
/*
 * A server's ADD_LINK that failed is tried again this long after, this
 * many times in all, until a port comes up again: the client's port may
 * come up a moment after ours (its reject says it has no second path).
 */
#define SMCR_LGR_ADD_RETRY	(2 * HZ)
#define SMCR_LGR_ADD_TRIES	3
/* The most rkeys one side announces: a group's most connections. */
#define SMCR_LGR_RKEYS_MAX	255

static void smcr_lgr_llc_work(struct work_struct *work);
static void smcr_lgr_llc_flush(struct smcr_lgr *lgr);

void smcr_lgr_llc_init(struct smcr_lgr *lgr)
{
	INIT_DELAYED_WORK(&lgr->llc_work, smcr_lgr_llc_work);
	spin_lock_init(&lgr->llc_lock);
	init_waitqueue_head(&lgr->llc_wait);
	/* The first invite is taken at once, also in the first minutes of uptime. */
	lgr->invite_at = jiffies - SMCR_LGR_ADD_RETRY - 1;
}

/*
 * The client's invite, over l (rx): the server starts its own flow, as
 * when a port of its own comes up, at most once per SMCR_LGR_ADD_RETRY,
 * so that a peer that floods invites gets no more flows than a flapping
 * port would give it. Nothing in the invite is used: the flow's own
 * ADD_LINK asks the client for its QP. llc_lock held.
 */
static void smcr_lgr_llc_invited(struct smcr_lgr *lgr)
{
	if (lgr->llc_closed || !time_after(jiffies, lgr->invite_at + SMCR_LGR_ADD_RETRY))
		return;
	lgr->invite_at = jiffies;
	lgr->add_tries = 0;
	WRITE_ONCE(lgr->invites_taken, lgr->invites_taken + 1);
	mod_delayed_work(system_long_wq, &lgr->llc_work, 0);
}

/*
 * The group's link number num is to go: noted apart from the queue, which
 * a flow drops at its start, and taken down first thing in llc_work
 * (smcr_lgr_llc_deletes()). Any context.
 */
static void smcr_lgr_llc_note_delete(struct smcr_lgr *lgr, u8 num)
{
	spin_lock_bh(&lgr->llc_lock);
	__set_bit(num, lgr->llc_del);
	if (!lgr->llc_closed)
		mod_delayed_work(system_long_wq, &lgr->llc_work, 0);
	spin_unlock_bh(&lgr->llc_lock);
}

/*
 * The peer's CONFIRM_RKEY or DELETE_RKEY request, over l (rx_work): kept
 * or forgotten at once and answered, outside the group's flows, since a
 * handshake of the peer waits for the answer and an ADD_LINK flow may
 * hold llc_work for long. Only the peer's own connections are named by
 * what it says here: a lie sends our WRITEs for its connections to
 * another of its own buffers, which it could write itself.
 */
static void smcr_lgr_rkey_rx(struct smcr_lgr *lgr, struct smcr_link *l,
			     const struct smc_llc_msg *m)
{
	struct smc_llc_msg reply = *m;
	struct smcr_lgr_rkey *k;
	unsigned int i, j;

	reply.response = true;
	spin_lock_bh(&lgr->llc_lock);
	if (m->type == SMC_LLC_CONFIRM_RKEY) {
		const struct smc_llc_confirm_rkey *c = &m->confirm_rkey;

		k = &lgr->rkeys[lgr->rkeys_next++ % SMCR_LGR_RKEYS];
		*k = (struct smcr_lgr_rkey){
			.via = l->link_num,
			.rkey = c->rtoken[0].rkey,
			.addr = c->rtoken[0].vaddr,
		};
		/* One other link at most: the first that is not l. */
		for (i = 1; i <= c->num_rkeys && i < SMC_LLC_RKEYS_PER_MSG; i++) {
			if (c->rtoken[i].link_id == l->link_num)
				continue;
			k->other = c->rtoken[i].link_id;
			k->other_rkey = c->rtoken[i].rkey;
			k->other_addr = c->rtoken[i].vaddr;
			break;
		}
	} else {
		const struct smc_llc_delete_rkey *d = &m->delete_rkey;

		for (i = 0; i < d->num_rkeys && i < SMC_LLC_DEL_RKEY_MAX; i++)
			for (j = 0; j < SMCR_LGR_RKEYS; j++)
				if (lgr->rkeys[j].via == l->link_num &&
				    lgr->rkeys[j].rkey == d->rkey[i])
					lgr->rkeys[j] = (struct smcr_lgr_rkey){};
		/*
		 * All taken: v1's mask of failed ones is 0; a v2 answer
		 * counts the rkeys not found there and lists them, none.
		 */
		reply.delete_rkey.err_mask = 0;
		if (l->v2)
			memset(reply.delete_rkey.rkey, 0, sizeof(reply.delete_rkey.rkey));
		WRITE_ONCE(lgr->rkey_dels_taken, lgr->rkey_dels_taken + 1);
	}
	spin_unlock_bh(&lgr->llc_lock);
	smcr_llc_send(l, &reply);
}

void smcr_lgr_llc_rx(void *arg, struct smcr_link *l, const struct smc_llc_msg *m,
		     const u8 *ext, unsigned int ext_len)
{
	struct smc_llc_add_link_ext *e = NULL;
	struct smcr_lgr *lgr = arg;
	bool full;

	if (m->type == SMC_LLC_DELETE_LINK) {
		/* For another link of the group (smcr_llc.c). */
		smcr_lgr_llc_note_delete(lgr, m->delete_link.link_num);
		return;
	}
	if (m->type == SMC_LLC_CONFIRM_RKEY || m->type == SMC_LLC_DELETE_RKEY) {
		smcr_lgr_rkey_rx(lgr, l, m);
		return;
	}
	/* The rkeys of a v2 ADD_LINK: decoded here, kept with the message. */
	if (m->type == SMC_LLC_ADD_LINK && ext_len) {
		e = kmalloc(sizeof(*e), GFP_KERNEL);
		if (!e || smc_llc_add_ext_decode(ext, ext_len, e)) {
			kfree(e);
			l->rx_bad++;
			return;
		}
	}
	spin_lock_bh(&lgr->llc_lock);
	if (lgr->key.role == SMC_LGR_SERVER && m->type == SMC_LLC_ADD_LINK &&
	    !m->response) {
		/* Only a client asks; never part of a flow of ours. */
		smcr_lgr_llc_invited(lgr);
		spin_unlock_bh(&lgr->llc_lock);
		kfree(e);
		return;
	}
	/* No flow runs once closed: nothing would take it. */
	full = lgr->llc_closed || lgr->llc_head - lgr->llc_tail == SMCR_LGR_LLC_Q;
	if (!full) {
		lgr->llc_q[lgr->llc_head % SMCR_LGR_LLC_Q].m = *m;
		lgr->llc_q[lgr->llc_head % SMCR_LGR_LLC_Q].l = l;
		lgr->llc_q[lgr->llc_head % SMCR_LGR_LLC_Q].ext = e;
		e = NULL;
		lgr->llc_head++;
		/* The client's flow starts with the server's request. */
		if (!lgr->llc_closed && lgr->key.role == SMC_LGR_CLIENT &&
		    m->type == SMC_LLC_ADD_LINK && !m->response)
			mod_delayed_work(system_long_wq, &lgr->llc_work, 0);
	}
	spin_unlock_bh(&lgr->llc_lock);
	kfree(e);
	if (full)
		l->rx_bad++;	/* more than any flow of ours has in flight */
	wake_up(&lgr->llc_wait);
}

int smcr_lgr_rkey_announce(struct smcr_conn *sc, struct smcr_buf *b)
{
	struct smc_llc_msg m = {
		.type = SMC_LLC_CONFIRM_RKEY,
		.v2 = sc->link->v2,
	};
	struct smc_llc_confirm_rkey *c = &m.confirm_rkey;
	struct smcr_lgr *lgr = sc->lgr;
	struct smcr_link *l;
	int i, rc;

	mutex_lock(&smcr_lgr_lock);
	smcr_lgr_for_each_link(lgr, l, i) {
		if (l == sc->link || !lgr->link_ready[i] || !smcr_link_active(l) ||
		    !smcr_buf_registered(l, b))
			continue;
		c->num_rkeys = 1;
		c->rtoken[1].link_id = l->link_num;
		c->rtoken[1].rkey = smcr_buf_rkey(l, b);
		c->rtoken[1].vaddr = smcr_buf_addr(l, b);
		break;
	}
	mutex_unlock(&smcr_lgr_lock);
	if (!c->num_rkeys)
		return 0;	/* one link: nothing to fail over to */
	c->rtoken[0].rkey = smcr_buf_rkey(sc->link, b);
	c->rtoken[0].vaddr = smcr_buf_addr(sc->link, b);
	rc = smcr_llc_confirm_rkey(sc->link, &m);
	if (!rc) {
		mutex_lock(&smcr_lgr_lock);
		lgr->rkeys_sent++;
		mutex_unlock(&smcr_lgr_lock);
	}
	return rc;
}

/*
 * A peer that learnt sc's RMB on more than one link (an
 * ADD_LINK_CONTINUATION, our CONFIRM_RKEY) hears that it is gone: a
 * DELETE_RKEY over sc's link naming the rkey there, as RFC 7609 and
 * Linux have it. Linux keeps a table of the peer's rkeys per group,
 * which this empties. Nothing waits for the answer: the key is
 * invalidated anyway before the buffer serves again (the pool's rekey,
 * smcr_lgr.c), so the answer would change nothing here, and a close
 * need not wait a round trip. sc's count keeps its link.
 */
void smcr_lgr_rkey_forget(struct smcr_conn *sc, struct smcr_buf *b)
{
	struct smc_llc_msg m = { .type = SMC_LLC_DELETE_RKEY };
	struct smcr_lgr *lgr = sc->lgr;
	struct smcr_link *l;
	bool known = false;
	int i;

	if (!b || !sc->link)
		return;
	mutex_lock(&smcr_lgr_lock);
	smcr_lgr_for_each_link(lgr, l, i)
		if (l != sc->link && smcr_buf_registered(l, b))
			known = true;
	known = known && !lgr->dead && smcr_link_active(sc->link) &&
		smcr_buf_registered(sc->link, b);
	mutex_unlock(&smcr_lgr_lock);
	if (!known)
		return;
	m.delete_rkey.num_rkeys = 1;
	m.delete_rkey.rkey[0] = smcr_buf_rkey(sc->link, b);
	if (smcr_llc_send(sc->link, &m))
		return;
	mutex_lock(&smcr_lgr_lock);
	lgr->rkey_dels_sent++;
	mutex_unlock(&smcr_lgr_lock);
}

void smcr_lgr_rkey_take(struct smcr_conn *sc)
{
	struct smcr_lgr *lgr = sc->lgr;
	struct smcr_lgr_rkey k = {};
	struct smcr_link *l;
	unsigned int j;
	int i;

	mutex_lock(&smcr_lgr_lock);
	spin_lock_bh(&lgr->llc_lock);
	for (j = 0; j < SMCR_LGR_RKEYS; j++) {
		struct smcr_lgr_rkey *e = &lgr->rkeys[j];

		if (e->rkey && e->via == sc->link->link_num &&
		    e->rkey == sc->peer_rkey[sc->slot] &&
		    e->addr == sc->peer_addr[sc->slot]) {
			k = *e;
			*e = (struct smcr_lgr_rkey){};
			break;
		}
	}
	spin_unlock_bh(&lgr->llc_lock);
	if (k.other_rkey) {
		smcr_lgr_for_each_link(lgr, l, i) {
			if (l == sc->link || l->link_num != k.other)
				continue;
			/* The group's ADD_LINK flow reads these too. */
			WRITE_ONCE(sc->peer_rkey[i], k.other_rkey);
			WRITE_ONCE(sc->peer_addr[i], k.other_addr);
			lgr->rkeys_taken++;
		}
	}
	mutex_unlock(&smcr_lgr_lock);
}

void smcr_lgr_llc_kick(struct smcr_lgr *lgr)
{
	spin_lock_bh(&lgr->llc_lock);
	if (!lgr->llc_closed)
		mod_delayed_work(system_long_wq, &lgr->llc_work, 0);
	spin_unlock_bh(&lgr->llc_lock);
}

void smcr_lgr_llc_add(struct smcr_lgr *lgr)
{
	spin_lock_bh(&lgr->llc_lock);
	lgr->add_tries = 0;
	if (lgr->key.role == SMC_LGR_CLIENT)
		lgr->invite = true;
	spin_unlock_bh(&lgr->llc_lock);
	smcr_lgr_llc_kick(lgr);
}

void smcr_lgr_llc_close(struct smcr_lgr *lgr)
{
	spin_lock_bh(&lgr->llc_lock);
	lgr->llc_closed = true;
	spin_unlock_bh(&lgr->llc_lock);
	/* A running flow's wait ends; it undoes its link and returns. */
	wake_up(&lgr->llc_wait);
	cancel_delayed_work_sync(&lgr->llc_work);
	/* Nothing is queued from now on (smcr_lgr_llc_rx()). */
	smcr_lgr_llc_flush(lgr);
}

/* Whether a flow should stop waiting: the group or link l is going. */
static bool smcr_lgr_llc_gone(struct smcr_lgr *lgr, struct smcr_link *l)
{
	return READ_ONCE(lgr->dead) || READ_ONCE(lgr->llc_closed) ||
	       !smcr_link_active(l);
}

/*
 * The oldest queued message of type that came over l (NULL: over any
 * link, which *over then names), with any response flag for
 * ADD_LINK_CONT, which has none, and its v2 extension in *ext (NULL:
 * none; the caller's to free); those queued before it are the peer's
 * out of turn and dropped. false: none queued.
 */
static bool smcr_lgr_llc_pop(struct smcr_lgr *lgr, struct smcr_link *l, u8 type,
			     bool response, struct smc_llc_msg *out,
			     struct smcr_link **over, struct smc_llc_add_link_ext **ext)
{
	bool found = false;

	*ext = NULL;
	spin_lock_bh(&lgr->llc_lock);
	while (!found && lgr->llc_tail != lgr->llc_head) {
		unsigned int i = lgr->llc_tail++ % SMCR_LGR_LLC_Q;
		const struct smc_llc_msg *m = &lgr->llc_q[i].m;

		found = (!l || lgr->llc_q[i].l == l) && m->type == type &&
			(type == SMC_LLC_ADD_LINK_CONT || m->response == response);
		if (found) {
			*out = *m;
			*ext = lgr->llc_q[i].ext;
			if (over)
				*over = lgr->llc_q[i].l;
		} else {
			kfree(lgr->llc_q[i].ext);
		}
		lgr->llc_q[i].ext = NULL;
	}
	spin_unlock_bh(&lgr->llc_lock);
	return found;
}

/* Whatever the peer sent before a flow of ours starts is stale for it. */
static void smcr_lgr_llc_flush(struct smcr_lgr *lgr)
{
	spin_lock_bh(&lgr->llc_lock);
	while (lgr->llc_tail != lgr->llc_head) {
		unsigned int i = lgr->llc_tail++ % SMCR_LGR_LLC_Q;

		kfree(lgr->llc_q[i].ext);
		lgr->llc_q[i].ext = NULL;
	}
	spin_unlock_bh(&lgr->llc_lock);
}

static bool smcr_lgr_llc_queued(struct smcr_lgr *lgr)
{
	bool queued;

	spin_lock_bh(&lgr->llc_lock);
	queued = lgr->llc_tail != lgr->llc_head;
	spin_unlock_bh(&lgr->llc_lock);
	return queued;
}

/*
 * The peer's next message of type over l, within SMCR_LGR_LLC_WAIT and
 * the flow's deadline, with its v2 extension in *ext as
 * smcr_lgr_llc_pop() (ext NULL: not wanted). 0, -ETIMEDOUT, or -ENOLINK
 * when the group or l went down.
 */
static int smcr_lgr_llc_next(struct smcr_lgr *lgr, struct smcr_link *l, u8 type,
			     bool response, unsigned long deadline,
			     struct smc_llc_msg *out, struct smc_llc_add_link_ext **ext)
{
	unsigned long end = jiffies + SMCR_LGR_LLC_WAIT;
	struct smc_llc_add_link_ext *e;
	long left;

	if (time_before(deadline, end))
		end = deadline;
	for (;;) {
		if (smcr_lgr_llc_pop(lgr, l, type, response, out, NULL, &e)) {
			if (ext)
				*ext = e;
			else
				kfree(e);
			return 0;
		}
		if (smcr_lgr_llc_gone(lgr, l))
			return -ENOLINK;
		left = (long)(end - jiffies);
		if (left <= 0)
			return -ETIMEDOUT;
		wait_event_timeout(lgr->llc_wait, smcr_lgr_llc_queued(lgr) ||
				   smcr_lgr_llc_gone(lgr, l), left);
	}
}

/*
 * Whether lgr takes another link: a group in use, with room for one
 * (max_links, a free slot), SMC-Rv1 or an SMC-Rv2 one whose peer is
 * reached without a gateway (the new link's packets go to the MAC its
 * ADD_LINK names: a router's would have to be looked up, and no test
 * topology of ours has a router); its first confirmed link in *l1.
 * The link stays while the flow runs: only the group's own works clear
 * a slot, and the free work closes the flows first.
 */
static bool smcr_lgr_llc_wants(struct smcr_lgr *lgr, struct smcr_link **l1)
{
	struct smcr_link *l;
	unsigned int n = 0;
	bool ok;
	int i;

	*l1 = NULL;
	mutex_lock(&smcr_lgr_lock);
	smcr_lgr_for_each_link(lgr, l, i) {
		n++;
		if (!*l1 && lgr->link_ready[i] && smcr_link_active(l))
			*l1 = l;
	}
	ok = *l1 && lgr->usable && !lgr->dead &&
	     (lgr->key.version == SMC_CLC_V1 || lgr->v2_direct) &&
	     n < min_t(u32, lgr->max_links, SMCR_LGR_LINKS);
	mutex_unlock(&smcr_lgr_lock);
	return ok;
}

/*
 * The namespace of lgr's connections (their sockets keep it while they
 * are in the group), referenced; NULL when the group has no connection.
 */
static struct net *smcr_lgr_llc_net(struct smcr_lgr *lgr)
{
	struct smcr_conn *sc;
	struct net *net = NULL;

	read_lock_bh(&lgr->conns_lock);
	sc = list_first_entry_or_null(&lgr->conns, struct smcr_conn, lgr_entry);
	if (sc)
		net = maybe_get_net(sock_net(&sc->smc->sk));
	read_unlock_bh(&lgr->conns_lock);
	return net;
}

/*
 * Our second path for lgr, beside l1's port: a port of the group's PNET
 * ID in the namespace of its connections, into *alt, with a reference to
 * the namespace in *netp. The invite and the new link look it up alike.
 * -ENOLINK: the group has no connection (nobody uses it: no new link);
 * -EAGAIN: we have a second port, not usable now; -ENODEV: we have none.
 */
static int smcr_lgr_llc_alt(struct smcr_lgr *lgr, struct smcr_link *l1,
			    struct smcr_path *alt, struct net **netp)
{
	struct net *net = smcr_lgr_llc_net(lgr);
	int rc;

	if (!net)
		return -ENOLINK;
	rc = smcr_ib_find_alt(lgr->pnetid, net, l1->dev, l1->port, alt);
	if (rc) {
		put_net(net);
		return rc;
	}
	*netp = net;
	return 0;
}

/*
 * A new link for lgr on our second path or, with share and no second
 * port at all, on l1's port again (*shared set: an asymmetric group, see
 * the top), for a group matched by PNET ID only: its peer's second port
 * is then on our port's network, which nothing says of a port matched by
 * its GID's netdev. An end whose second port is down waits for it (it
 * invites, or asks, when the port comes up): the peer's other port may
 * be on that port's wire only, as two fabrics of one PNET ID are. Wired to the group as its first one
 * (smcr_lgr_make_link()) except for the down work, which it gets once
 * confirmed. Not in a slot yet.
 */
static struct smcr_link *smcr_lgr_llc_link(struct smcr_lgr *lgr, struct smcr_link *l1,
					   bool share, bool *shared)
{
	struct smcr_path alt;
	struct smcr_link *l;
	struct net *net;
	int rc;

	*shared = false;
	rc = smcr_lgr_llc_alt(lgr, l1, &alt, &net);
	if (rc == -ENODEV && share && lgr->pnetid[0]) {
		net = smcr_lgr_llc_net(lgr);
		if (!net)
			return ERR_PTR(-ENOLINK);
		/* l1 holds its device while the flow runs: take one for alt. */
		memset(&alt, 0, sizeof(alt));
		kref_get(&l1->dev->ref);
		alt.dev = l1->dev;
		alt.port = l1->port;
		alt.gid = l1->gid;
		*shared = true;
		rc = 0;
	}
	if (rc)
		return ERR_PTR(rc);
	l = smcr_link_create(&alt, net);
	smcr_path_put(&alt);
	put_net(net);
	if (IS_ERR(l))
		return l;
	l->v2 = l1->v2;
	l->llc_max_links = l1->llc_max_links;
	l->llc_max_conns = l1->llc_max_conns;
	l->cdc_arg = lgr;
	l->cdc_rx = smcr_lgr_cdc_rx;
	l->llc_rx = smcr_lgr_llc_rx;
	return l;
}

/*
 * l into a free slot of lgr (*slot, -1 while none), and every buffer of
 * the group mapped on it. bufs_sem held (write). 0, or -errno with what
 * was done left for smcr_lgr_llc_undo().
 */
static int smcr_lgr_llc_publish(struct smcr_lgr *lgr, struct smcr_link *l, int *slot)
{
	struct smcr_buf *b;
	int i, rc;

	*slot = -1;
	mutex_lock(&smcr_lgr_lock);
	for (i = 0; i < SMCR_LGR_LINKS && *slot < 0 && !lgr->dead; i++)
		if (!lgr->links[i])
			*slot = i;
	if (*slot >= 0) {
		lgr->links[*slot] = l;
		smcr_lgr_seqno++;
	}
	mutex_unlock(&smcr_lgr_lock);
	if (*slot < 0)
		return -ENOSPC;
	/* Stable: nobody makes or frees a buffer without bufs_sem. */
	list_for_each_entry(b, &lgr->bufs, grp) {
		rc = smcr_buf_add_link(l, b);
		if (rc)
			return rc;
	}
	return 0;
}

/* REG_MR of every buffer of lgr on l (ACTIVE). bufs_sem held (write). */
static int smcr_lgr_llc_register(struct smcr_lgr *lgr, struct smcr_link *l)
{
	struct smcr_buf *b;
	int rc;

	list_for_each_entry(b, &lgr->bufs, grp) {
		rc = smcr_buf_register(l, b);
		if (rc)
			return rc;
	}
	return 0;
}

/*
 * A flow failed: l (in slot, or -1) out of lgr and gone, without a
 * DELETE_LINK over l itself (the peer hears of it over the first link,
 * smcr_lgr_llc_finish()). bufs_sem held (write), released here before
 * the link's teardown.
 */
static void smcr_lgr_llc_undo(struct smcr_lgr *lgr, struct smcr_link *l, int slot)
{
	struct smcr_buf *b;

	spin_lock_bh(&l->lock);
	smcr_link_broken(l, NULL);
	spin_unlock_bh(&l->lock);
	wake_up(&l->wait);
	list_for_each_entry(b, &lgr->bufs, grp)
		smcr_buf_drop_link(l, b);
	mutex_lock(&smcr_lgr_lock);
	if (slot >= 0)
		lgr->links[slot] = NULL;
	lgr->add_failed++;
	smcr_lgr_seqno++;
	mutex_unlock(&smcr_lgr_lock);
	up_write(&lgr->bufs_sem);
	smcr_link_destroy(l);
}

/* The link is confirmed: new connections may use it. bufs_sem released. */
static void smcr_lgr_llc_ready(struct smcr_lgr *lgr, struct smcr_link *l1,
			       struct smcr_link *l, int slot)
{
	smcr_link_set_keepalive(l, READ_ONCE(l1->keepalive));
	mutex_lock(&smcr_lgr_lock);
	lgr->link_ready[slot] = true;
	lgr->links_added++;
	smcr_lgr_seqno++;
	mutex_unlock(&smcr_lgr_lock);
	/* From here its failure reaches the group's down work, as the first's. */
	smcr_link_set_down_work(l, &lgr->down_work);
	up_write(&lgr->bufs_sem);
}

static void smcr_lgr_llc_fill_add(const struct smcr_link *l, bool response,
				  struct smc_llc_msg *m)
{
	memset(m, 0, sizeof(*m));
	m->type = SMC_LLC_ADD_LINK;
	m->response = response;
	memcpy(m->add_link.sender_mac, l->local.mac, ETH_ALEN);
	memcpy(m->add_link.sender_gid, l->local.gid.raw, SMC_LLC_GID_LEN);
	m->add_link.sender_qpn = l->local.qpn;
	m->add_link.link_num = l->link_num;
	m->add_link.qp_mtu = l->local.mtu;
	m->add_link.initial_psn = l->local.psn;
}

/* The peer's new QP as its ADD_LINK names it (smcr_link_connect() checks). */
static void smcr_lgr_llc_peer(const struct smc_llc_add_link *a,
			      struct smcr_qp_info *peer)
{
	memset(peer, 0, sizeof(*peer));
	peer->qpn = a->sender_qpn;
	peer->psn = a->initial_psn;
	peer->mtu = a->qp_mtu;
	memcpy(peer->gid.raw, a->sender_gid, sizeof(peer->gid.raw));
	memcpy(peer->mac, a->sender_mac, ETH_ALEN);
}

/* The peer's new QP is on the port of its end of l1. */
static bool smcr_lgr_llc_same_peer(const struct smcr_link *l1,
				   const struct smcr_qp_info *peer)
{
	return !memcmp(l1->peer.gid.raw, peer->gid.raw, sizeof(peer->gid.raw)) &&
	       ether_addr_equal(l1->peer.mac, peer->mac);
}

/* b's keys on l1 and l. */
static void smcr_lgr_llc_rt(struct smcr_buf *b, struct smcr_link *l1,
			    struct smcr_link *l, struct smc_llc_add_cont_rt *rt)
{
	rt->rkey = smcr_buf_rkey(l1, b);
	rt->rkey_new = smcr_buf_rkey(l, b);
	rt->vaddr_new = smcr_buf_addr(l, b);
}

/*
 * Our connections' RMBs on l1 and l: at most SMCR_LGR_RKEYS_MAX into rt,
 * their number returned. A connection whose RMB is not made yet has none
 * (it announces its rkeys on both links itself: not yet, see the top).
 *
 * Then, while there is room, each ring we offered that the peer has not
 * yet been seen to move into (rings that grow, smcr_conn.c): the peer
 * may have moved already, its CDC saying so still on the way, and then
 * writes into that ring. The peer takes the entry that names the ring it
 * writes into (smcr_lgr_llc_take()); the other is an rkey it ignores.
 * Both read under conn->lock, where the CQ handler makes the offered
 * ring the RMB, so that one of the two is the ring the peer moved to.
 * The offered rings fill rt from its end, so that no RMB is left out
 * for them.
 */
static unsigned int smcr_lgr_llc_rts(struct smcr_lgr *lgr, struct smcr_link *l1,
				     struct smcr_link *l, struct smc_llc_add_cont_rt *rt)
{
	unsigned int n = 0, m = SMCR_LGR_RKEYS_MAX;
	struct smcr_buf *rmb, *next;
	struct smcr_conn *sc;

	read_lock_bh(&lgr->conns_lock);
	list_for_each_entry(sc, &lgr->conns, lgr_entry) {
		spin_lock(&sc->smc->conn.lock);
		rmb = sc->rmb;
		next = sc->rmb_next;
		spin_unlock(&sc->smc->conn.lock);
		if (rmb && n == m && m < SMCR_LGR_RKEYS_MAX)
			m++;	/* an offered ring gives way */
		if (rmb && n < m)
			smcr_lgr_llc_rt(rmb, l1, l, &rt[n++]);
		if (next && n < m)
			smcr_lgr_llc_rt(next, l1, l, &rt[--m]);
	}
	read_unlock_bh(&lgr->conns_lock);
	memmove(&rt[n], &rt[m], (SMCR_LGR_RKEYS_MAX - m) * sizeof(*rt));
	n += SMCR_LGR_RKEYS_MAX - m;
	return n;
}

/* Our next ADD_LINK_CONTINUATION: the rkeys of rt from *sent on. */
static int smcr_lgr_llc_send_cont(struct smcr_link *l1, struct smcr_link *l,
				  const struct smc_llc_add_cont_rt *rt, unsigned int n,
				  unsigned int *sent)
{
	struct smc_llc_msg m = { .type = SMC_LLC_ADD_LINK_CONT };
	unsigned int k = min_t(unsigned int, n - *sent, SMC_LLC_ADD_CONT_RKEYS), i;

	m.add_link_cont.link_num = l->link_num;
	m.add_link_cont.num_rkeys = n - *sent;	/* still to come, these included */
	for (i = 0; i < k; i++)
		m.add_link_cont.rt[i] = rt[*sent + i];
	*sent += k;
	return smcr_llc_send(l1, &m);
}

/*
 * The peer's RMBs on the new link (slot), k entries of rt (an
 * ADD_LINK_CONTINUATION's, or a v2 ADD_LINK's extension): each names an
 * RMB by its rkey on l1 (slot1), which a connection of ours on l1 has
 * from the CLC. An rkey no connection has is the peer's business (a
 * connection that ended meanwhile) and ignored.
 */
static void smcr_lgr_llc_take(struct smcr_lgr *lgr, int slot1, int slot,
			      const struct smc_llc_add_cont_rt *rt, unsigned int k)
{
	struct smcr_conn *sc;
	unsigned int i;

	read_lock_bh(&lgr->conns_lock);
	for (i = 0; i < k; i++) {
		list_for_each_entry(sc, &lgr->conns, lgr_entry) {
			if (sc->slot != slot1 || sc->peer_rkey[slot1] != rt[i].rkey)
				continue;
			/* Read only by a failover onto slot; none runs yet. */
			WRITE_ONCE(sc->peer_rkey[slot], rt[i].rkey_new);
			WRITE_ONCE(sc->peer_addr[slot], rt[i].vaddr_new);
			break;
		}
	}
	read_unlock_bh(&lgr->conns_lock);
}

/*
 * Step 4: the CONTINUATIONs, the server's first, then one each way in
 * turn until neither side has rkeys left (both ends count the same
 * rounds: each sends one per round, with none left a count of 0). A peer
 * that goes on announcing more than a group has is cut off.
 */
static int smcr_lgr_llc_rkeys(struct smcr_lgr *lgr, struct smcr_link *l1, int slot1,
			      struct smcr_link *l, int slot, bool server,
			      unsigned long deadline)
{
	unsigned int n, sent = 0, rounds = 0, left = 0, k;
	struct smc_llc_add_cont_rt *rt;
	struct smc_llc_msg m;
	int rc = 0;

	rt = kmalloc_array(SMCR_LGR_RKEYS_MAX, sizeof(*rt), GFP_KERNEL);
	if (!rt)
		return -ENOMEM;
	n = smcr_lgr_llc_rts(lgr, l1, l, rt);
	do {
		if (++rounds > SMCR_LGR_RKEYS_MAX / SMC_LLC_ADD_CONT_RKEYS + 2) {
			rc = -EPROTO;
			break;
		}
		if (server) {
			rc = smcr_lgr_llc_send_cont(l1, l, rt, n, &sent);
			if (rc)
				break;
		}
		rc = smcr_lgr_llc_next(lgr, l1, SMC_LLC_ADD_LINK_CONT, false,
				       deadline, &m, NULL);
		if (rc)
			break;
		if (m.add_link_cont.link_num != l->link_num) {
			rc = -EPROTO;
			break;
		}
		k = min_t(unsigned int, m.add_link_cont.num_rkeys, SMC_LLC_ADD_CONT_RKEYS);
		smcr_lgr_llc_take(lgr, slot1, slot, m.add_link_cont.rt, k);
		left = m.add_link_cont.num_rkeys - k;
		if (!server) {
			rc = smcr_lgr_llc_send_cont(l1, l, rt, n, &sent);
			if (rc)
				break;
		}
	} while (sent < n || left);
	kfree(rt);
	return rc;
}

/* The slot of l in lgr (the flow's first link: in its slot throughout). */
static int smcr_lgr_llc_slot(struct smcr_lgr *lgr, struct smcr_link *l)
{
	int i;

	for (i = 0; i < SMCR_LGR_LINKS; i++)
		if (lgr->links[i] == l)
			return i;
	return -1;
}

/*
 * A failed link gives up its slot once its connections have left (they
 * moved to another link, or were reset and closed) and while another
 * link of the group is ready: its mappings are dropped and it waits on
 * the retired list for the group's end, which destroys it once its port
 * is back (a QP destroyed while rxe still holds packets for it on a
 * netdev that is down makes rxe WARN, see smcr_lgr_free_work()). The
 * slot is then free for a new link, the first one's too: so a group
 * whose first link failed gets a second again when the port is back,
 * and survives the other link's failure after that. A group with no
 * ready link keeps its links for its free work, and one in some slot
 * for its reports (smcr_lgr_first_link()).
 */
/*
 * Whether links[i] failed, has no connection left and another link is
 * ready. smcr_lgr_lock held.
 */
static bool smcr_lgr_llc_spent(const struct smcr_lgr *lgr, int i)
{
	const struct smcr_link *l = lgr->links[i];
	int j;

	if (!l || lgr->link_ready[i] || smcr_link_active(l) || lgr->link_conns[i])
		return false;
	for (j = 0; j < SMCR_LGR_LINKS; j++)
		if (j != i && lgr->links[j] && lgr->link_ready[j] &&
		    smcr_link_active(lgr->links[j]))
			return true;
	return false;
}

/*
 * No connection may use slot i's rkeys of the peer's RMBs any more: a
 * link that takes the slot later brings its own (ADD_LINK_CONTINUATION,
 * CONFIRM_RKEY), and a connection it did not name must not move there
 * with the old link's. No connection is on the slot (spent).
 */
static void smcr_lgr_llc_forget_rkeys(struct smcr_lgr *lgr, int i)
{
	struct smcr_conn *sc;

	read_lock_bh(&lgr->conns_lock);
	list_for_each_entry(sc, &lgr->conns, lgr_entry) {
		/* Read by smcr_lgr_move() under smcr_lgr_lock, held here. */
		WRITE_ONCE(sc->peer_rkey[i], 0);
		WRITE_ONCE(sc->peer_addr[i], 0);
	}
	read_unlock_bh(&lgr->conns_lock);
}

static void smcr_lgr_llc_prune(struct smcr_lgr *lgr)
{
	struct smcr_link *gone[SMCR_LGR_LINKS], *l;
	struct smcr_buf *b;
	int i, n = 0;

	mutex_lock(&smcr_lgr_lock);
	for (i = 0; i < SMCR_LGR_LINKS; i++)
		n += smcr_lgr_llc_spent(lgr, i);
	mutex_unlock(&smcr_lgr_lock);
	if (!n)
		return;		/* the usual case: no handshake waits for this */
	n = 0;
	down_write(&lgr->bufs_sem);
	mutex_lock(&smcr_lgr_lock);
	for (i = 0; i < SMCR_LGR_LINKS; i++) {
		l = lgr->links[i];
		if (!smcr_lgr_llc_spent(lgr, i))
			continue;
		/* Off the slot: nobody joins or looks it up any more. */
		lgr->links[i] = NULL;
		smcr_lgr_llc_forget_rkeys(lgr, i);
		list_add_tail(&l->retired, &lgr->retired);
		gone[n++] = l;
		smcr_lgr_seqno++;
	}
	mutex_unlock(&smcr_lgr_lock);
	for (i = 0; i < n; i++) {
		smcr_link_set_down_work(gone[i], NULL);
		list_for_each_entry(b, &lgr->bufs, grp)
			smcr_buf_drop_link(gone[i], b);
	}
	up_write(&lgr->bufs_sem);
}

/*
 * A number for the server's new link, 1-255: the next after the last one
 * given, none of the group's links has it. A late DELETE_LINK for a link
 * of an earlier flow so names no link of a later one. llc_work only.
 */
static u8 smcr_lgr_llc_num(struct smcr_lgr *lgr)
{
	struct smcr_link *x;
	int i, tries;
	u8 num = lgr->link_num_last;

	for (tries = 0; tries < 255; tries++) {
		bool used = false;

		num = num % 255 + 1;
		mutex_lock(&smcr_lgr_lock);
		smcr_lgr_for_each_link(lgr, x, i)
			used |= x->link_num == num;
		mutex_unlock(&smcr_lgr_lock);
		if (!used)
			break;
	}
	lgr->link_num_last = num;
	return num;
}

/* DELETE_LINK over l1 for the group's link number num alone. */
static int smcr_lgr_llc_send_delete(struct smcr_link *l1, u8 num)
{
	struct smc_llc_msg m = {
		.type = SMC_LLC_DELETE_LINK,
		.delete_link = {
			.link_num = num,
			.reason = SMC_LLC_DEL_LOST_PATH,
		},
	};

	return smcr_llc_send(l1, &m);
}

void smcr_lgr_llc_tell_failed(struct smcr_lgr *lgr, struct smcr_link *via, u8 num)
{
	if (!smcr_lgr_llc_send_delete(via, num)) {
		mutex_lock(&smcr_lgr_lock);
		lgr->deletes_sent++;
		mutex_unlock(&smcr_lgr_lock);
	}
}

/*
 * The peer's DELETE_LINKs for single links (smcr_lgr_llc_rx()): each
 * named link of the group fails, as if its QP had, and its down work
 * ends its connections. A number no link has (a flow's link already
 * undone) is nothing to do. llc_work only.
 */
static void smcr_lgr_llc_deletes(struct smcr_lgr *lgr)
{
	DECLARE_BITMAP(del, SMCR_LGR_LINK_NUMS);
	struct smcr_link *x;
	unsigned int num;
	int i;

	spin_lock_bh(&lgr->llc_lock);
	bitmap_copy(del, lgr->llc_del, SMCR_LGR_LINK_NUMS);
	bitmap_zero(lgr->llc_del, SMCR_LGR_LINK_NUMS);
	spin_unlock_bh(&lgr->llc_lock);
	for_each_set_bit(num, del, SMCR_LGR_LINK_NUMS) {
		mutex_lock(&smcr_lgr_lock);
		smcr_lgr_for_each_link(lgr, x, i) {
			if (x->link_num != num)
				continue;
			spin_lock_bh(&x->lock);
			if (x->state == SMCR_LINK_ACTIVE) {
				x->peer_deleted = true;
				smcr_link_broken(x, "the peer deleted the link");
				lgr->deletes_taken++;
			}
			spin_unlock_bh(&x->lock);
			wake_up(&x->wait);
		}
		mutex_unlock(&smcr_lgr_lock);
	}
}

/* Armed by smcr_lgr_dbg_hold(): the next server flow's pause, in ms. */
static atomic_t smcr_lgr_llc_hold = ATOMIC_INIT(0);

void smcr_lgr_dbg_hold(unsigned int ms)
{
	atomic_set(&smcr_lgr_llc_hold, ms);
}

/*
 * The test's pause, if armed: between a server flow's rkeys and its
 * CONFIRM_LINK, so that connections run on while a link is being added
 * (the client waits SMCR_LLC_WAIT for the CONFIRM_LINK, longer than any
 * pause smc_debugfs.c lets a test ask for).
 */
static void smcr_lgr_llc_dbg_held(void)
{
	unsigned int ms = atomic_xchg(&smcr_lgr_llc_hold, 0);

	if (ms)
		msleep(ms);
}

/*
 * The end of a flow whose steps so far gave rc: steps 4 and 5 (the
 * CONTINUATIONs, which an SMC-Rv2 group does without, its ADD_LINKs
 * having carried the rkeys; then the server's CONFIRM_LINK over the new
 * link, or the client's wait for it to have been answered there), and the
 * link ready, or undone.
 */
static int smcr_lgr_llc_finish(struct smcr_lgr *lgr, struct smcr_link *l1,
			       struct smcr_link *l, int slot, bool server,
			       unsigned long deadline, int rc)
{
	rc = rc ?: (l1->v2 ? 0 :
		    smcr_lgr_llc_rkeys(lgr, l1, smcr_lgr_llc_slot(lgr, l1), l, slot,
				       server, deadline));
	if (!rc && server)
		smcr_lgr_llc_dbg_held();
	rc = rc ?: (server ? smcr_llc_confirm_link(l) : smcr_llc_await_confirm(l));
	if (!rc) {
		smcr_lgr_llc_ready(lgr, l1, l, slot);
		return 0;
	}
	/*
	 * The peer may have got further than we did: a client whose answer
	 * to our CONFIRM_LINK was lost, a server whose CONFIRM_LINK we
	 * answered but never saw the end of. Its side of the link goes too,
	 * over the first link; a peer that has already given it up finds
	 * no link of that number and ignores it.
	 */
	smcr_lgr_llc_send_delete(l1, l->link_num);
	smcr_lgr_llc_undo(lgr, l, slot);
	return rc;
}

/*
 * Our ADD_LINK m (request or accepting response) for the new link l, over
 * l1. In an SMC-Rv2 group it carries our RMBs' rkeys on l in its v2
 * extension, as the CONTINUATIONs do in v1 (smcr_lgr_llc_rts()); the
 * target GID is l's own, as Linux 6.1 writes it (nothing reads it).
 */
static int smcr_lgr_llc_send_add(struct smcr_lgr *lgr, struct smcr_link *l1,
				 struct smcr_link *l, const struct smc_llc_msg *m)
{
	struct smc_llc_add_link_ext *e;
	int rc;

	BUILD_BUG_ON(SMCR_LGR_RKEYS_MAX > SMC_LLC_ADD_EXT_RKEYS_MAX);
	if (!l1->v2)
		return smcr_llc_send(l1, m);
	e = kzalloc(sizeof(*e), GFP_KERNEL);
	if (!e)
		return -ENOMEM;
	e->direct = lgr->v2_direct;
	memcpy(e->target_gid, l->local.gid.raw, SMC_LLC_GID_LEN);
	e->num_rkeys = smcr_lgr_llc_rts(lgr, l1, l, e->rt);
	rc = smcr_llc_send_add_ext(l1, m, e);
	kfree(e);
	return rc;
}

/*
 * Test plumbing (debugfs smcr_conns "delete"): lgr ends its link number
 * num on both ends, the peer's with the DELETE_LINK a failed flow sends,
 * its own as that DELETE_LINK does on the peer (smcr_lgr_llc_deletes()).
 * The caller holds the group (its connection count).
 */
int smcr_lgr_llc_delete(struct smcr_lgr *lgr, u8 num)
{
	struct smcr_link *l1;
	int rc;

	if (!num)
		return -EINVAL;
	mutex_lock(&smcr_lgr_lock);
	l1 = smcr_lgr_first_link(lgr);
	mutex_unlock(&smcr_lgr_lock);
	rc = smcr_lgr_llc_send_delete(l1, num);
	if (!rc)
		smcr_lgr_llc_note_delete(lgr, num);
	return rc;
}

/*
 * The server's flow: steps 1-5 at the top. 0, or -EAGAIN when an
 * ADD_LINK on a second port of ours went out and did not end with a new
 * link (the client's port may come up a moment after ours). One on our
 * first port again is not tried again: the client invites us when a
 * port of its own comes up.
 */
static int smcr_lgr_llc_server(struct smcr_lgr *lgr)
{
	unsigned long deadline = jiffies + SMCR_LGR_ADD_MAX;
	struct smc_llc_add_link_ext *ext = NULL;
	struct smcr_link *l1, *l;
	struct smcr_qp_info peer;
	struct smc_llc_msg m;
	int slot, rc;
	bool shared;

	if (!smcr_lgr_llc_wants(lgr, &l1))
		return 0;
	l = smcr_lgr_llc_link(lgr, l1, true, &shared);
	if (IS_ERR(l))
		return 0;	/* no second path: one link, as before */
	/* A link number of its own (the client takes it from ADD_LINK). */
	l->link_num = smcr_lgr_llc_num(lgr);
	down_write(&lgr->bufs_sem);
	smcr_lgr_llc_flush(lgr);
	if (smcr_lgr_llc_publish(lgr, l, &slot))
		goto fail;
	smcr_lgr_llc_fill_add(l, false, &m);
	rc = smcr_lgr_llc_send_add(lgr, l1, l, &m) ?:
	     smcr_lgr_llc_next(lgr, l1, SMC_LLC_ADD_LINK, true, deadline, &m, &ext);
	if (rc || m.add_link.rejected || m.add_link.link_num != l->link_num ||
	    !ext != !l1->v2)
		goto fail;
	smcr_lgr_llc_peer(&m.add_link, &peer);
	if (ext)
		smcr_lgr_llc_take(lgr, smcr_lgr_llc_slot(lgr, l1), slot, ext->rt,
				  ext->num_rkeys);
	/* Both ends on their first link's ports: no second path. */
	rc = shared && smcr_lgr_llc_same_peer(l1, &peer) ? -ENOLINK : 0;
	rc = smcr_lgr_llc_finish(lgr, l1, l, slot, true, deadline,
				 rc ?: smcr_link_connect(l, &peer) ?:
				 smcr_lgr_llc_register(lgr, l));
	kfree(ext);
	return rc && !shared ? -EAGAIN : 0;
fail:
	kfree(ext);
	smcr_lgr_llc_undo(lgr, l, slot);
	return shared ? 0 : -EAGAIN;
}

static void smcr_lgr_llc_reject(struct smcr_link *l1, const struct smc_llc_msg *req)
{
	struct smc_llc_msg m = *req;

	m.response = true;
	m.add_link.rejected = true;
	/* A v2 header has no room for the reason; the flag says it all. */
	m.add_link.reject_reason = l1->v2 ? 0 : SMC_LLC_REJ_RSN_NO_ALT_PATH;
	smcr_llc_send(l1, &m);
}

/*
 * The client's answer to the server's ADD_LINK request req, which came
 * over link over with its v2 extension ext (an SMC-Rv2 group's: the
 * server's rkeys on the new link; none in v1).
 */
static void smcr_lgr_llc_answer(struct smcr_lgr *lgr, struct smcr_link *over,
				const struct smc_llc_msg *req,
				const struct smc_llc_add_link_ext *ext)
{
	unsigned long deadline = jiffies + SMCR_LGR_ADD_MAX;
	struct smcr_link *l1, *l;
	struct smcr_qp_info peer;
	struct smc_llc_msg m;
	bool shared;
	int slot;

	/*
	 * The server asks once its first link is confirmed, which may be
	 * before our handshake marked the group usable (its CONFIRM_LINK
	 * was answered by the link itself): a moment's wait.
	 */
	wait_event_timeout(lgr->llc_wait, READ_ONCE(lgr->usable) || READ_ONCE(lgr->dead) ||
			   READ_ONCE(lgr->llc_closed), SMCR_LGR_LLC_WAIT);
	/* A v2 request without its extension names no rkeys: refused. */
	if (!smcr_lgr_llc_wants(lgr, &l1) || l1 != over || !req->add_link.link_num ||
	    req->add_link.link_num == l1->link_num || !ext != !l1->v2) {
		smcr_lgr_llc_reject(over, req);
		return;
	}
	smcr_lgr_llc_peer(&req->add_link, &peer);
	/* Our first port again only toward a second port of the server's. */
	l = smcr_lgr_llc_link(lgr, l1, !smcr_lgr_llc_same_peer(l1, &peer), &shared);
	if (IS_ERR(l)) {
		smcr_lgr_llc_reject(over, req);
		return;
	}
	l->link_num = req->add_link.link_num;
	down_write(&lgr->bufs_sem);
	if (smcr_lgr_llc_publish(lgr, l, &slot) || smcr_link_connect(l, &peer) ||
	    smcr_lgr_llc_register(lgr, l)) {
		smcr_lgr_llc_reject(l1, req);
		smcr_lgr_llc_undo(lgr, l, slot);
		return;
	}
	if (ext)
		smcr_lgr_llc_take(lgr, smcr_lgr_llc_slot(lgr, l1), slot, ext->rt,
				  ext->num_rkeys);
	smcr_lgr_llc_fill_add(l, true, &m);
	smcr_lgr_llc_finish(lgr, l1, l, slot, false, deadline,
			    smcr_lgr_llc_send_add(lgr, l1, l, &m));
}

/* The client's flow: its side of steps 1-5. */
static void smcr_lgr_llc_client(struct smcr_lgr *lgr)
{
	struct smc_llc_add_link_ext *ext;
	struct smcr_link *over;
	struct smc_llc_msg req;

	/* The oldest ADD_LINK request, over whichever link it came. */
	if (!smcr_lgr_llc_pop(lgr, NULL, SMC_LLC_ADD_LINK, false, &req, &over, &ext))
		return;
	smcr_lgr_llc_answer(lgr, over, &req, ext);
	kfree(ext);
}

/*
 * One invite over l1: an ADD_LINK request that names a GID and MAC of
 * ours and no QP. Counted once sent.
 */
static int smcr_lgr_llc_send_invite(struct smcr_lgr *lgr, struct smcr_link *l1,
				    const u8 *mac, const union ib_gid *gid)
{
	struct smc_llc_msg m;
	int rc;

	memset(&m, 0, sizeof(m));
	m.type = SMC_LLC_ADD_LINK;
	memcpy(m.add_link.sender_mac, mac, ETH_ALEN);
	memcpy(m.add_link.sender_gid, gid->raw, SMC_LLC_GID_LEN);
	rc = smcr_llc_send(l1, &m);
	if (rc)
		return rc;
	mutex_lock(&smcr_lgr_lock);
	lgr->invites_sent++;
	mutex_unlock(&smcr_lgr_lock);
	return 0;
}

/*
 * The client's invite, once a port of ours came up (smcr_lgr_llc_add()):
 * a group with room for a link and a second path of ours asks the server
 * to add one, with an ADD_LINK request over a ready link that names the
 * path's GID and MAC and no QP (Linux's "add link invite"); the server
 * then runs its own flow (smcr_lgr_llc_invited()), whose request we
 * answer as any. -EAGAIN: no second path yet (a port's GID may come back
 * a moment after the port): try again.
 */
static int smcr_lgr_llc_invite(struct smcr_lgr *lgr)
{
	struct smcr_link *l1;
	struct smcr_path alt;
	struct net *net;
	bool invite;
	int rc;

	spin_lock_bh(&lgr->llc_lock);
	invite = lgr->invite;
	lgr->invite = false;
	spin_unlock_bh(&lgr->llc_lock);
	if (!invite || !smcr_lgr_llc_wants(lgr, &l1))
		return 0;
	rc = smcr_lgr_llc_alt(lgr, l1, &alt, &net);
	if (rc == -ENOLINK)
		return 0;
	if (rc) {
		spin_lock_bh(&lgr->llc_lock);
		lgr->invite = true;
		spin_unlock_bh(&lgr->llc_lock);
		return -EAGAIN;
	}
	put_net(net);
	smcr_lgr_llc_send_invite(lgr, l1, alt.gid.mac, &alt.gid.gid);
	smcr_path_put(&alt);
	return 0;
}

/*
 * Test plumbing (debugfs smcr_conns "invite"): lgr, a client's group,
 * sends n invites at once over its first link, as a client that floods
 * them would, naming that link's own GID (the server reads nothing of an
 * invite). The caller holds the group, as for smcr_lgr_llc_delete().
 */
int smcr_lgr_llc_dbg_invite(struct smcr_lgr *lgr, unsigned int n)
{
	struct smcr_link *l1;
	int rc = 0;

	if (lgr->key.role != SMC_LGR_CLIENT)
		return -EINVAL;
	mutex_lock(&smcr_lgr_lock);
	l1 = smcr_lgr_first_link(lgr);
	mutex_unlock(&smcr_lgr_lock);
	while (n-- && !rc)
		rc = smcr_lgr_llc_send_invite(lgr, l1, l1->local.mac, &l1->local.gid);
	return rc;
}

static void smcr_lgr_llc_work(struct work_struct *work)
{
	struct smcr_lgr *lgr = container_of(to_delayed_work(work), struct smcr_lgr,
					    llc_work);

	smcr_lgr_llc_deletes(lgr);
	smcr_lgr_llc_prune(lgr);
	if (lgr->key.role != SMC_LGR_SERVER) {
		smcr_lgr_llc_client(lgr);
		if (!smcr_lgr_llc_invite(lgr))
			return;
	} else if (!smcr_lgr_llc_server(lgr)) {
		return;
	}
	spin_lock_bh(&lgr->llc_lock);
	if (!lgr->llc_closed && ++lgr->add_tries < SMCR_LGR_ADD_TRIES)
		queue_delayed_work(system_long_wq, &lgr->llc_work, SMCR_LGR_ADD_RETRY);
	else
		lgr->invite = false;	/* until a port comes up again */
	spin_unlock_bh(&lgr->llc_lock);
}
