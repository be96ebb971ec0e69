// SPDX-License-Identifier: GPL-2.0
/*
 * smc_hostile: a randomized hostile network (and peer) between two af_smc
 * endpoints, for the selftest handshake/hostile. Test-only; never part of
 * af_smc.
 *
 * Netfilter hooks at IPv4 and IPv6 PRE_ROUTING on the loopback device
 * (and on the devices whose names start with "ifprefix": topology 1's
 * veth pair smcv1/smcv2, between whose addresses the SMC-R part runs)
 * watch the TCP connections to and from the test's AF_SMC listener on port "port"
 * and mutates the CLC messages in them, in place, before the receiving
 * af_smc sees them. Both ends are genuine af_smc sockets, so a handshake
 * whose mutation is harmless still ends in a working SMC-D or SMC-R connection,
 * and every other one must end in a clean fallback or a clean error: what
 * a hostile peer, or a hostile network between honest peers, can do to
 * the parsers and the state machines of both roles. A man in the middle
 * that ends TCP itself could not do this: an SMC-D DMB is bound to its
 * owner's TCP 4-tuple (Documentation/security.md), so every handshake
 * through such a proxy would fall back and nothing after the CLC exchange
 * would be reached.
 *
 * Which connection gets what: each TCP connection is keyed by its client
 * port (the test binds every client to a port of its own); at its SYN the
 * module seeds a generator from (seed, client port) and draws a plan of
 * one or two mutations, each naming the CLC message it hits by its number
 * in the connection (0 the Proposal, 1 the Accept or Decline, 2 the
 * Confirm or Decline, 3 a Decline after the Confirm), or none at all (a
 * control handshake). What a mutation does is drawn when its message
 * passes, from the same generator, so the pair (seed, client port)
 * replays a handshake exactly. Kinds:
 *   flip     1..4 random bits of the message flipped
 *   byte     one byte set to a bound (00 01 7f 80 fe ff)
 *   length   the header's length field set to 0, 1, 8, L-1, L+1, L+8,
 *            0xffff or a random value (the receiver reads too little or
 *            waits for bytes that never come)
 *   type     the header's type byte: 0, 1..5, 0xff or random
 *   flags    the header's version/type byte, random
 *   word     a 16- or 32-bit field at a random offset: 0, 1, all ones,
 *            the top bit
 *   zero     a random range zeroed
 *   trailer  a bit of the trailing eyecatcher flipped
 *   eye      the leading eyecatcher turned from SMC-R to SMC-D or back
 *   stall    the segment dropped 1..4 times (a loss: TCP resends it after
 *            its RTO, 200 ms and doubling, so 4 drops outlast the CLC wait)
 *   nosmc    the SMC option removed from the client's SYN (both ends
 *            then agree on plain TCP)
 * Retransmissions of a message already seen pass unchanged (the receiver
 * has the first copy); payloads that do not start with an SMC eyecatcher
 * (the test's data, which never does) are left alone.
 *
 * Writing a client port to the "report" parameter selects it; reading
 * "report" then says what was done to that connection. "stats" counts
 * connections, CLC messages, mutations and drops since load, and the
 * CDCs seen and mutated.
 *
 * CDC and LLC messages never touch TCP: kprobes on af_smc's decoders
 * change them just before they are decoded, as the peer could have sent
 * them. cdc_permille of the CDCs: SMC-D's in the receiver's DMB header
 * (smc_cdc_decode_d()), SMC-R's in the copy of the RDMA SEND that brought
 * them (smc_cdc_decode_r()); offer_permille of the SMC-D CDCs that offer
 * a bigger ring (rings that grow) have their offer changed, since there
 * are few of them; llc_permille of the LLC messages, in the
 * receive work's copy (smc_llc_decode()). "clc" 0 leaves the CLC messages
 * of new connections alone meanwhile. Which CDC or LLC is changed, and
 * how, follows from one generator each, seeded with the seed, but in the
 * order the messages arrive, which timing decides: a run of these is
 * replayed in kind, not message for message. "llc_log" lists the last 32
 * LLC mutations, for a failure's report.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <asm/unaligned.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/netfilter.h>
#include <linux/netfilter_ipv4.h>
#include <linux/netfilter_ipv6.h>
#include <linux/skbuff.h>
#include <linux/spinlock.h>
#include <linux/tcp.h>
#include <linux/vmalloc.h>
#include <net/ip.h>
#include <net/net_namespace.h>
#include <net/tcp.h>

static ushort port = 7760;
module_param(port, ushort, 0444);
MODULE_PARM_DESC(port, "the test listener's TCP port; connections to and from it are mutated");
static ulong seed = 1;
module_param(seed, ulong, 0644);
MODULE_PARM_DESC(seed, "the run's seed; with a client port it fixes a connection's mutations");
static bool clc = true;
module_param(clc, bool, 0644);
MODULE_PARM_DESC(clc, "mutate CLC messages (new connections from now on)");
static uint cdc_permille;
module_param(cdc_permille, uint, 0644);
MODULE_PARM_DESC(cdc_permille, "mutate this many of every 1000 CDC messages (SMC-D and SMC-R) af_smc receives");
static uint offer_permille;
module_param(offer_permille, uint, 0644);
MODULE_PARM_DESC(offer_permille, "mutate the offer of this many of every 1000 CDCs (SMC-D or SMC-R) that offer a bigger ring");
static uint llc_permille;
module_param(llc_permille, uint, 0644);
MODULE_PARM_DESC(llc_permille, "mutate this many of every 1000 LLC messages af_smc decodes");
static char ifprefix[IFNAMSIZ];
module_param_string(ifprefix, ifprefix, sizeof(ifprefix), 0444);
MODULE_PARM_DESC(ifprefix, "watch the devices whose names start with this too, not only lo");

enum hp_kind {
	HP_NONE, HP_FLIP, HP_BYTE, HP_LENGTH, HP_TYPE, HP_FLAGS, HP_WORD,
	HP_ZERO, HP_TRAILER, HP_EYE, HP_STALL, HP_NOSMC, HP_NR
};

static const char *const hp_names[HP_NR] = {
	"none", "flip", "byte", "length", "type", "flags", "word", "zero",
	"trailer", "eye", "stall", "nosmc",
};

#define HP_MAX_MUT	2
#define SMC_HOSTILE_CDC_LEN	32	/* an SMC-D CDC message */
#define SMC_HOSTILE_CDC_R_LEN	44	/* an SMC-R one */
#define SMC_HOSTILE_LLC_LEN	44	/* an LLC message (v2: its first 44 bytes) */
#define HP_MAX_LEN	2048	/* CLC messages are far shorter (at most 1 KiB) */

struct hp_mut {
	u8 kind;
	u8 msg;		/* which CLC message of the connection */
	u8 done;	/* applied (for stall: passed after its drops) */
	u8 type;	/* the message's type byte as sent */
	u8 drops;	/* stall: drops wanted, then done */
	u16 len;	/* the message's length as sent (header, capped) */
	u16 off;	/* first byte changed */
	u16 nbytes;	/* bytes changed from off */
	u32 old, new;	/* a window of the bytes at off, before and after */
};

struct hp_conn {
	u64 rng;
	u32 next[2];	/* per direction: end of the last CLC segment seen */
	u8 have[2];
	u8 msgs;	/* CLC messages seen so far, both directions */
	u8 nmut;
	u8 used;	/* a SYN was seen for this port since load */
	struct hp_mut mut[HP_MAX_MUT];
};

static struct hp_conn *conns;	/* indexed by client port */
static DEFINE_SPINLOCK(hp_lock);
static unsigned long st_conns, st_msgs, st_mutated, st_dropped;
static unsigned int report_port;

/* splitmix64: small, and the same sequence on every build. */
static u64 hp_next(u64 *s)
{
	u64 z = (*s += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static u32 hp_below(struct hp_conn *c, u32 n)
{
	return n ? (u32)(hp_next(&c->rng) % n) : 0;
}

/* A new connection from client port cport: draw its plan. */
static void hp_plan(struct hp_conn *c, u16 cport)
{
	u64 s = READ_ONCE(seed) ^ ((u64)cport * 0xd6e8feb86659fd93ull);
	u32 r;

	memset(c, 0, sizeof(*c));
	c->used = 1;
	c->rng = s;
	hp_next(&c->rng);
	r = hp_below(c, 32);
	if (r < 2)
		return;			/* control: no mutation */
	c->nmut = 1;
	if (r == 2) {
		c->mut[0].kind = HP_NOSMC;
		return;
	}
	c->mut[0].kind = HP_FLIP + hp_below(c, HP_STALL - HP_FLIP + 1);
	c->mut[0].msg = hp_below(c, 3);
	if (c->mut[0].kind == HP_STALL)
		c->mut[0].drops = 1 + hp_below(c, 4);
	/* A second one, often the Decline the first one caused. */
	if (hp_below(c, 4) == 0) {
		c->nmut = 2;
		c->mut[1].kind = HP_FLIP + hp_below(c, HP_STALL - HP_FLIP);
		c->mut[1].msg = c->mut[0].msg + 1 + hp_below(c, 2);
	}
}

static u32 hp_window(const u8 *p, unsigned int len, unsigned int off)
{
	u32 w = 0;
	unsigned int i;

	for (i = 0; i < 4 && off + i < len; i++)
		w = w << 8 | p[off + i];
	return w;
}

/* Mutate the message at p (len bytes of it in this segment) as m says. */
static void hp_mutate(struct hp_conn *c, struct hp_mut *m, u8 *p, unsigned int len)
{
	static const u8 bounds[] = { 0x00, 0x01, 0x7f, 0x80, 0xfe, 0xff };
	unsigned int hlen = p[5] << 8 | p[6], off = 0, n = 1, i, v;

	m->type = p[4];
	m->len = min_t(unsigned int, hlen, 0xffff);
	switch (m->kind) {
	case HP_FLIP:
		off = hp_below(c, len);
		n = 1 + hp_below(c, 4);
		m->old = hp_window(p, len, off);
		for (i = 0; i < n; i++)
			p[off + hp_below(c, min(len - off, 4u))] ^= 1 << hp_below(c, 8);
		n = min(len - off, 4u);
		break;
	case HP_BYTE:
		off = hp_below(c, len);
		m->old = hp_window(p, len, off);
		p[off] = bounds[hp_below(c, ARRAY_SIZE(bounds))];
		break;
	case HP_LENGTH: {
		const unsigned int vals[] = { 0, 1, 8, hlen - 1, hlen + 1, hlen + 8,
					      0xffff, hp_below(c, 0x10000) };

		off = 5;
		n = 2;
		m->old = hp_window(p, len, off);
		v = vals[hp_below(c, ARRAY_SIZE(vals))] & 0xffff;
		p[5] = v >> 8;
		p[6] = v;
		break;
	}
	case HP_TYPE: {
		const u8 vals[] = { 0, 1, 2, 3, 4, 5, 0xff, (u8)hp_below(c, 256) };

		off = 4;
		m->old = hp_window(p, len, off);
		p[4] = vals[hp_below(c, ARRAY_SIZE(vals))];
		break;
	}
	case HP_FLAGS:
		off = 7;
		m->old = hp_window(p, len, off);
		p[7] = hp_below(c, 256);
		break;
	case HP_WORD: {
		const u32 vals[] = { 0, 1, 0xffffffff, 0x80000000 };

		n = hp_below(c, 2) ? 4 : 2;
		if (len < 8 + n)
			return;
		off = 8 + hp_below(c, len - 8 - n + 1);
		m->old = hp_window(p, len, off);
		v = vals[hp_below(c, ARRAY_SIZE(vals))];
		if (n == 2)
			v >>= 16;
		for (i = 0; i < n; i++)
			p[off + i] = v >> (8 * (n - 1 - i));
		break;
	}
	case HP_ZERO:
		off = hp_below(c, len);
		n = 1 + hp_below(c, len - off);
		m->old = hp_window(p, len, off);
		memset(p + off, 0, n);
		break;
	case HP_TRAILER:
		if (hlen < 12 || hlen > len)
			return;		/* the trailer is not in this segment */
		off = hlen - 4;
		n = 4;
		m->old = hp_window(p, len, off);
		p[off + hp_below(c, 4)] ^= 1 << hp_below(c, 8);
		break;
	case HP_EYE:
		off = 3;
		m->old = hp_window(p, len, off);
		p[3] = p[3] == 0xd9 ? 0xc4 : 0xd9;
		break;
	}
	m->off = off;
	m->nbytes = n;
	m->new = hp_window(p, len, off);
	m->done = 1;
	st_mutated++;
}

/* The SMC experimental option (kind 254, magic E2D4C3D9) turned into NOPs. */
static bool hp_strip_smc_option(struct tcphdr *th)
{
	u8 *opt = (u8 *)(th + 1), *end = (u8 *)th + th->doff * 4;

	while (opt < end) {
		if (*opt == TCPOPT_EOL)
			break;
		if (*opt == TCPOPT_NOP) {
			opt++;
			continue;
		}
		if (end - opt < 2 || opt[1] < 2 || opt + opt[1] > end)
			break;
		if (opt[0] == TCPOPT_EXP && opt[1] == TCPOLEN_EXP_SMC_BASE &&
		    get_unaligned_be32(opt + 2) == TCPOPT_SMC_MAGIC) {
			memset(opt, TCPOPT_NOP, TCPOLEN_EXP_SMC_BASE);
			return true;
		}
		opt += opt[1];
	}
	return false;
}

static bool hp_is_clc(const u8 *eye)
{
	return eye[0] == 0xe2 && eye[1] == 0xd4 && eye[2] == 0xc3 &&
	       (eye[3] == 0xd9 || eye[3] == 0xc4);
}

/* The payload changed: the receiver must not check a stale checksum. */
static void hp_fix_csum(struct sk_buff *skb)
{
	/* CHECKSUM_PARTIAL (what lo passes on) is not checked on receive. */
	if (skb->ip_summed != CHECKSUM_PARTIAL)
		skb->ip_summed = CHECKSUM_UNNECESSARY;
}

/* lo, and the devices ifprefix names (topology 1's veth pair for SMC-R). */
static bool hp_watched(const struct net_device *dev)
{
	size_t n = strnlen(ifprefix, sizeof(ifprefix));

	if (!dev)
		return false;
	return (dev->flags & IFF_LOOPBACK) || (n && !strncmp(dev->name, ifprefix, n));
}

/*
 * The TCP segment at toff (seglen bytes with its header) of a packet the
 * watched devices received, IPv4 or IPv6 alike: whether it is the test's,
 * and what happens to it.
 */
static unsigned int hp_tcp(struct sk_buff *skb, unsigned int toff, unsigned int seglen)
{
	unsigned int thl, plen, len, verdict = NF_ACCEPT;
	u16 sport, dport, cport;
	struct hp_conn *c;
	struct tcphdr *th;
	u8 eye[8], *p;
	int dir, i;
	u32 seq;

	if (!pskb_may_pull(skb, toff + sizeof(*th)))
		return NF_ACCEPT;
	th = (struct tcphdr *)(skb->data + toff);
	sport = ntohs(th->source);
	dport = ntohs(th->dest);
	if (dport == port) {
		dir = 0;
		cport = sport;
	} else if (sport == port) {
		dir = 1;
		cport = dport;
	} else {
		return NF_ACCEPT;
	}
	thl = th->doff * 4;
	if (thl < sizeof(*th) || seglen < thl)
		return NF_ACCEPT;
	plen = seglen - thl;
	seq = ntohl(th->seq);
	c = &conns[cport];

	spin_lock(&hp_lock);
	if (dir == 0 && th->syn && !th->ack) {
		if (!READ_ONCE(clc)) {
			c->used = 0;
			goto out;
		}
		hp_plan(c, cport);
		st_conns++;
		if (c->nmut && c->mut[0].kind == HP_NOSMC &&
		    !skb_ensure_writable(skb, toff + thl)) {
			th = (struct tcphdr *)(skb->data + toff);
			c->mut[0].done = hp_strip_smc_option(th);
			/* The option is under the checksum too. */
			if (c->mut[0].done) {
				hp_fix_csum(skb);
				st_mutated++;
			}
		}
		goto out;
	}
	if (!c->used || plen < 8 ||
	    skb_copy_bits(skb, toff + thl, eye, sizeof(eye)) || !hp_is_clc(eye))
		goto out;
	/* A retransmission of what the receiver already has: leave it. */
	if (c->have[dir] && !after(seq + plen, c->next[dir]))
		goto out;
	for (i = 0; i < c->nmut; i++) {
		struct hp_mut *m = &c->mut[i];

		if (m->done || m->msg != c->msgs)
			continue;
		if (m->kind == HP_STALL) {
			if (m->drops) {
				m->drops--;
				m->nbytes++;	/* counts the drops done */
				st_dropped++;
				verdict = NF_DROP;
				goto out;	/* not seen: the resend is this message */
			}
			m->type = eye[4];
			m->len = eye[5] << 8 | eye[6];
			m->done = 1;
			continue;
		}
		len = min(plen, (unsigned int)HP_MAX_LEN);
		if (skb_ensure_writable(skb, toff + thl + len))
			continue;
		p = skb->data + toff + thl;
		hp_mutate(c, m, p, len);
		hp_fix_csum(skb);
	}
	c->msgs++;
	c->have[dir] = 1;
	c->next[dir] = seq + plen;
	st_msgs++;
out:
	spin_unlock(&hp_lock);
	return verdict;
}

static unsigned int hp_hook4(void *priv, struct sk_buff *skb,
			     const struct nf_hook_state *state)
{
	unsigned int noff = skb_network_offset(skb), ihl, tot;
	struct iphdr *iph;

	if (!hp_watched(state->in))
		return NF_ACCEPT;
	if (!pskb_may_pull(skb, noff + sizeof(*iph)))
		return NF_ACCEPT;
	iph = ip_hdr(skb);
	if (iph->protocol != IPPROTO_TCP || ip_is_fragment(iph))
		return NF_ACCEPT;
	ihl = iph->ihl * 4;
	tot = ntohs(iph->tot_len);
	if (ihl < sizeof(*iph) || tot < ihl)
		return NF_ACCEPT;
	return hp_tcp(skb, noff + ihl, tot - ihl);
}

/*
 * IPv6: the same connections when the test runs over IPv6 (hostile.sh
 * v6). TCP right after the fixed header only: neither end here sends
 * extension headers, and a segment behind one is left alone.
 */
static unsigned int hp_hook6(void *priv, struct sk_buff *skb,
			     const struct nf_hook_state *state)
{
	unsigned int noff = skb_network_offset(skb);
	struct ipv6hdr *ip6h;

	if (!hp_watched(state->in))
		return NF_ACCEPT;
	if (!pskb_may_pull(skb, noff + sizeof(*ip6h)))
		return NF_ACCEPT;
	ip6h = ipv6_hdr(skb);
	if (ip6h->nexthdr != IPPROTO_TCP)
		return NF_ACCEPT;
	return hp_tcp(skb, noff + sizeof(*ip6h), ntohs(ip6h->payload_len));
}

static const struct nf_hook_ops hp_ops[] = {
	{
		.hook = hp_hook4,
		.pf = NFPROTO_IPV4,
		.hooknum = NF_INET_PRE_ROUTING,
		.priority = NF_IP_PRI_FIRST,
	},
	{
		.hook = hp_hook6,
		.pf = NFPROTO_IPV6,
		.hooknum = NF_INET_PRE_ROUTING,
		.priority = NF_IP6_PRI_FIRST,
	},
};

/*
 * CDC: af_smc decodes an SMC-D CDC message from the header of its own DMB,
 * where the peer wrote it (smcd_cdc_rx() calls smc_cdc_decode_d()),
 * and an SMC-R one from the copy of the RDMA SEND that brought it
 * (smcr_lgr_cdc_rx() calls smc_cdc_decode_r()). A kprobe on each changes
 * those bytes first, as a hostile peer could have written them: cursors
 * (wrap and count of the producer and consumer, at bounds, one wrap off,
 * or random), the flags (urgent data, write blocked, done writing,
 * closed, abort), the type, or random bits; the offer of a bigger ring
 * (hp_cdc_mutate_offer(), hp_cdc_mutate_offer_r()); and for SMC-R the length byte,
 * the sequence number (stale, or far ahead) and the token (another
 * connection of the link group, or none). Which CDCs and how
 * follow from one generator seeded with the seed; what the receiver then
 * does with its data is the peer's business, what it does with the
 * kernel's is the test's.
 */
static DEFINE_SPINLOCK(cdc_lock);
static u64 cdc_rng, llc_rng;
static unsigned long st_cdc, st_cdc_mutated, st_llc, st_llc_mutated;
static unsigned long st_offers, st_offer_mutated;	/* CDCs with an offer */
static unsigned long st_llc_type[16], st_llc_type_mut[16];

static void hp_put_be(u8 *p, unsigned int n, u32 v)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		p[i] = v >> (8 * (n - 1 - i));
}

static u32 hp_get_be(const u8 *p, unsigned int n)
{
	u32 v = 0;
	unsigned int i;

	for (i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

/*
 * Where the fields are. SMC-D (32 bytes): type, the offered ring's class,
 * the ring the cons cursor counts in (cons_gen), 5 reserved, prod (wrap 2,
 * count 4, 2 flag bytes), cons (the same; its flag bytes are the ones
 * read), the offered ring's token 8 (af_smc's rings that grow, in bytes
 * Linux reserves). SMC-R (44 bytes): type, length, seqno 2, token 4, prod
 * (2 reserved, wrap 2, count 4), cons (the same), producer flags, state
 * flags, then in the 18 bytes Linux reserves af_smc's cons_gen and
 * prod_gen (the rings the cursors count in), the offered RMB's class, 1
 * reserved, its rkey 4 and its address 8, 2 reserved.
 */
struct hp_cdc_layout {
	u8 len, wrap, count, pflags, csf;	/* wrap, count: in a cursor */
	bool smcr;
};

static const struct hp_cdc_layout hp_cdc_d = { SMC_HOSTILE_CDC_LEN, 0, 2, 22, 23, false };
static const struct hp_cdc_layout hp_cdc_r = { SMC_HOSTILE_CDC_R_LEN, 2, 4, 24, 25, true };

/*
 * SMC-D: the bytes of a ring that grows, as a peer could lie with them: an
 * offer's class out of bounds or not its DMB's, an offer's token another
 * DMB's (a neighbour's, by one), random, or withdrawn, an offer out of
 * nowhere, and a cons cursor said to count in another ring. The reader
 * of such a CDC is the writer: it must refuse to attach or move into
 * anything but the DMB its peer's connection owns, at that DMB's size.
 */
/* An offered ring's size class, one off or at a bound (both forms). */
static void hp_offer_class(u8 *class, u64 r)
{
	static const u8 classes[] = { 0, 1, 2, 4, 6, 7, 8, 31, 0xff };

	*class = r % 2 ? classes[(r >> 1) % ARRAY_SIZE(classes)] :
			 *class + ((r >> 1) % 2 ? 1 : -1);
}

static void hp_cdc_mutate_offer(u8 *b, u64 r)
{
	u64 token = get_unaligned_be64(b + 24);

	switch (r % 5) {
	case 0:		/* the class */
		hp_offer_class(&b[1], r >> 8);
		break;
	case 1:		/* the token a neighbour's, or withdrawn */
		put_unaligned_be64((r >> 8) % 4 ? token + ((r >> 10) % 2 ? 1 : -1) : 0,
				   b + 24);
		break;
	case 2:		/* a random token and class: an offer out of nowhere */
		put_unaligned_be64(hp_next(&cdc_rng), b + 24);
		b[1] = (r >> 8) % 9;
		break;
	case 3:		/* the cons cursor's ring one off, or anything */
		b[2] = (r >> 8) % 2 ? b[2] + ((r >> 9) % 2 ? 1 : -1) : r >> 16;
		break;
	default:	/* the token's bytes, one flipped */
		b[24 + (r >> 8) % 8] ^= 1 << ((r >> 11) % 8);
		break;
	}
	if (token)
		st_offer_mutated++;
}

/*
 * SMC-R: the same lies about an offered RMB, named by its rkey and
 * address on the CDC's link: the class, the rkey or the address off (a
 * neighbour's, by one), an offer out of nowhere or withdrawn, and either
 * cursor said to count in another ring. The writer that believes a key
 * or address writes into the liar's own memory, or has its WRITE refused
 * by the liar's device, which ends the link (its group's connections,
 * all with the liar): what must not happen is anything outside them.
 */
static void hp_cdc_mutate_offer_r(u8 *b, u64 r)
{
	u64 token = get_unaligned_be64(b + 34);

	switch (r % 6) {
	case 0:		/* the class */
		hp_offer_class(&b[28], r >> 8);
		break;
	case 1:		/* the rkey a neighbour's, or none */
		hp_put_be(b + 30, 4, (r >> 8) % 4 ?
			  hp_get_be(b + 30, 4) + ((r >> 10) % 2 ? 1 : -1) : 0);
		break;
	case 2:		/* the address off by a page, or withdrawn */
		put_unaligned_be64((r >> 8) % 4 ? token + ((r >> 10) % 2 ? 4096 : -4096) : 0,
				   b + 34);
		break;
	case 3:		/* an offer out of nowhere: random key, address and class */
		hp_put_be(b + 30, 4, (u32)hp_next(&cdc_rng));
		put_unaligned_be64(hp_next(&cdc_rng), b + 34);
		b[28] = (r >> 8) % 9;
		break;
	case 4:		/* the consumer's ring one off, or anything */
		b[26] = (r >> 8) % 2 ? b[26] + ((r >> 9) % 2 ? 1 : -1) : r >> 16;
		break;
	default:	/* the producer's ring one off, or anything */
		b[27] = (r >> 8) % 2 ? b[27] + ((r >> 9) % 2 ? 1 : -1) : r >> 16;
		break;
	}
	if (token)
		st_offer_mutated++;
}

static void hp_cdc_mutate(u8 *b, const struct hp_cdc_layout *lo)
{
	static const u32 counts[] = { 0, 1, 0x3fff, 0x4000, 0xffff, 0x10000,
				      0x7fffffff, 0xffffffff };
	u64 r = hp_next(&cdc_rng);
	unsigned int at = (r >> 8) % 2 ? 8 : 16;	/* prod or cons */

	/* Kinds 7-9 change what only one of the two forms has. */
	if (!lo->smcr && r % 10 >= 7) {
		hp_cdc_mutate_offer(b, r >> 8);
		return;
	}
	switch (r % 10) {
	case 0:		/* a count at a bound */
		hp_put_be(b + at + lo->count, 4, counts[(r >> 16) % ARRAY_SIZE(counts)]);
		break;
	case 1:		/* a count off by a little */
		hp_put_be(b + at + lo->count, 4,
			  hp_get_be(b + at + lo->count, 4) + (u32)((r >> 16) % 64) - 32);
		break;
	case 2:		/* a wrap one off, or anything */
		hp_put_be(b + at + lo->wrap, 2, (r >> 16) % 2 ?
			  hp_get_be(b + at + lo->wrap, 2) + ((r >> 17) % 2 ? 1 : -1) :
			  (u32)(r >> 24));
		break;
	case 3:		/* the producer flags */
		b[lo->pflags] = r >> 16;
		break;
	case 4:		/* the connection state flags: done writing, closed, abort */
		b[lo->csf] = r >> 16;
		break;
	case 5:		/* the type */
		b[0] = r >> 16;
		break;
	case 6:		/* a random bit of the message */
		b[(r >> 16) % lo->len] ^= 1 << ((r >> 24) % 8);
		break;
	case 7:		/* SMC-R: the length byte */
		b[1] = (r >> 16) % 2 ? 0 : r >> 24;
		break;
	case 8:		/* SMC-R: the seqno stale (one back) or far ahead */
		hp_put_be(b + 2, 2, hp_get_be(b + 2, 2) + ((r >> 16) % 2 ? -1 : 0x7fff));
		break;
	default:	/* SMC-R: the token of a neighbour, or random */
		hp_put_be(b + 4, 4, (r >> 16) % 2 ? hp_get_be(b + 4, 4) + ((r >> 17) % 2 ? 1 : -1) :
			  (u32)(r >> 24));
		break;
	}
}

static void hp_cdc_pre(struct pt_regs *regs, const struct hp_cdc_layout *lo)
{
	u8 *buf = (u8 *)regs_get_kernel_argument(regs, 0);
	size_t len = regs_get_kernel_argument(regs, 1);
	unsigned int permille = READ_ONCE(cdc_permille);
	unsigned int offer = READ_ONCE(offer_permille);
	unsigned long flags;

	if ((!permille && !offer) || !buf || len < lo->len)
		return;
	spin_lock_irqsave(&cdc_lock, flags);
	st_cdc++;
	/* An offer is rare (one per ring that grows): its own share. */
	if (get_unaligned_be64(buf + (lo->smcr ? 34 : 24))) {
		st_offers++;
		if (hp_next(&cdc_rng) % 1000 < offer) {
			if (lo->smcr)
				hp_cdc_mutate_offer_r(buf, hp_next(&cdc_rng));
			else
				hp_cdc_mutate_offer(buf, hp_next(&cdc_rng));
			st_cdc_mutated++;
			goto out;
		}
	}
	if (hp_next(&cdc_rng) % 1000 < permille) {
		hp_cdc_mutate(buf, lo);
		st_cdc_mutated++;
	}
out:
	spin_unlock_irqrestore(&cdc_lock, flags);
}

static int hp_cdc_d_pre(struct kprobe *kp, struct pt_regs *regs)
{
	hp_cdc_pre(regs, &hp_cdc_d);
	return 0;
}

static int hp_cdc_r_pre(struct kprobe *kp, struct pt_regs *regs)
{
	hp_cdc_pre(regs, &hp_cdc_r);
	return 0;
}

/*
 * LLC: af_smc decodes a received LLC message in its link's receive work
 * (smcr_rx_work() calls smc_llc_decode() on its own copy of the SEND's
 * 44 bytes), so a kprobe there changes that copy first. Our af_smc, with
 * one link per group, sends CONFIRM_LINK (request and response),
 * TEST_LINK (request and response), DELETE_LINK and an ADD_LINK response
 * (rejected) when asked; the mutations turn these into the others and
 * into what no peer should send: the type set to another LLC type
 * (ADD_LINK, ADD_LINK_CONT, DELETE_LINK, CONFIRM_RKEY(_CONT),
 * DELETE_RKEY, TEST_LINK, CONFIRM_LINK), to an unknown one or to the
 * other version; the response flag flipped; the flags byte, the length
 * byte at random; a 1- to 4-byte field at a random offset of the body set
 * to 0, 1, all ones or the top bit; 1-4 random bits flipped; the body
 * zeroed from a random offset. A DELETE_LINK that arrives while the link
 * is up is taken in the completion handler before any decoding
 * (smcr_recv_done()): that one is never changed, the others are.
 */
struct hp_llc_log {
	u32 nr;		/* the LLC message's number since load */
	u8 kind, type, off, nbytes;
	u32 old, new;
};

#define HP_LLC_LOG	32
static struct hp_llc_log llc_log[HP_LLC_LOG];

static const char *const llc_kinds[] = {
	"type", "response", "flags", "length", "word", "flip", "zero",
};

static void hp_llc_mutate(u8 *b, struct hp_llc_log *lg)
{
	static const u8 types[] = { 0x01, 0x02, 0x03, 0x04, 0x06, 0x07, 0x08, 0x09 };
	static const u32 vals[] = { 0, 1, 0xffffffff, 0x80000000 };
	u64 r = hp_next(&llc_rng);
	unsigned int off = 0, n = 1, i;
	u32 v;

	lg->kind = r % ARRAY_SIZE(llc_kinds);
	r >>= 8;
	switch (lg->kind) {
	case 0:		/* another type, an unknown one, or the other version */
		switch (r % 4) {
		case 0:
			v = (b[0] & 0xf0) | (u8)(r >> 8) % 16;
			break;
		case 1:
			v = b[0] ^ 0x20;
			break;
		default:
			v = (b[0] & 0xf0) | types[(r >> 8) % ARRAY_SIZE(types)];
			break;
		}
		lg->old = hp_get_be(b, 1);
		b[0] = v;
		break;
	case 1:		/* a request taken for a response, or back */
		off = 3;
		lg->old = hp_get_be(b + off, 1);
		b[3] ^= 0x80;
		break;
	case 2:
		off = 3;
		lg->old = hp_get_be(b + off, 1);
		b[3] = r;
		break;
	case 3:
		off = 1;
		lg->old = hp_get_be(b + off, 1);
		b[1] = (r >> 8) % 2 ? (u8)r : ((r >> 9) % 2 ? 43 : 45);
		break;
	case 4:
		n = 1 + r % 4;
		off = 4 + (r >> 4) % (SMC_HOSTILE_LLC_LEN - 4 - n + 1);
		lg->old = hp_get_be(b + off, n);
		v = vals[(r >> 12) % ARRAY_SIZE(vals)];
		hp_put_be(b + off, n, v >> (8 * (4 - n)));
		break;
	case 5:
		off = 4 + r % (SMC_HOSTILE_LLC_LEN - 4 - 3);
		n = 4;
		lg->old = hp_get_be(b + off, n);
		for (i = 0; i <= (r >> 8) % 4; i++)
			b[off + (r >> (10 + 5 * i)) % 4] ^= 1 << ((r >> (12 + 5 * i)) % 8);
		break;
	default:
		off = 4 + r % (SMC_HOSTILE_LLC_LEN - 4);
		n = min_t(unsigned int, 4, SMC_HOSTILE_LLC_LEN - off);
		lg->old = hp_get_be(b + off, n);
		memset(b + off, 0, SMC_HOSTILE_LLC_LEN - off);
		break;
	}
	lg->off = off;
	lg->nbytes = n;
	lg->new = hp_get_be(b + off, n);
}

static int hp_llc_pre(struct kprobe *kp, struct pt_regs *regs)
{
	u8 *buf = (u8 *)regs_get_kernel_argument(regs, 0);
	size_t len = regs_get_kernel_argument(regs, 1);
	unsigned int permille = READ_ONCE(llc_permille);
	struct hp_llc_log *lg;
	unsigned long flags;

	if (!permille || !buf || len < SMC_HOSTILE_LLC_LEN)
		return 0;
	spin_lock_irqsave(&cdc_lock, flags);
	st_llc_type[buf[0] & 15]++;
	if (hp_next(&llc_rng) % 1000 < permille) {
		lg = &llc_log[st_llc_mutated % HP_LLC_LOG];
		lg->nr = st_llc;
		lg->type = buf[0];
		hp_llc_mutate(buf, lg);
		st_llc_type_mut[lg->type & 15]++;
		st_llc_mutated++;
	}
	st_llc++;
	spin_unlock_irqrestore(&cdc_lock, flags);
	return 0;
}

static struct kprobe hp_probes[] = {
	{ .symbol_name = "smc_cdc_decode_d", .pre_handler = hp_cdc_d_pre },
	{ .symbol_name = "smc_cdc_decode_r", .pre_handler = hp_cdc_r_pre },
	{ .symbol_name = "smc_llc_decode", .pre_handler = hp_llc_pre },
};
static struct kprobe *hp_probe_list[ARRAY_SIZE(hp_probes)];

static int hp_report_set(const char *val, const struct kernel_param *kp)
{
	unsigned int p;

	if (kstrtouint(val, 0, &p) || p > 65535)
		return -EINVAL;
	WRITE_ONCE(report_port, p);
	return 0;
}

static int hp_report_get(char *buf, const struct kernel_param *kp)
{
	unsigned int cport = READ_ONCE(report_port);
	struct hp_conn c;
	int n = 0, i;

	spin_lock_bh(&hp_lock);
	c = conns[cport];
	spin_unlock_bh(&hp_lock);
	if (!c.used)
		return scnprintf(buf, PAGE_SIZE, "port %u: no connection\n", cport);
	n += scnprintf(buf + n, PAGE_SIZE - n, "port %u: %u clc messages;", cport, c.msgs);
	if (!c.nmut)
		n += scnprintf(buf + n, PAGE_SIZE - n, " none");
	for (i = 0; i < c.nmut; i++) {
		const struct hp_mut *m = &c.mut[i];

		n += scnprintf(buf + n, PAGE_SIZE - n, " %s", hp_names[m->kind]);
		if (m->kind == HP_NOSMC) {
			n += scnprintf(buf + n, PAGE_SIZE - n, " %s",
				       m->done ? "done" : "no option found");
			continue;
		}
		n += scnprintf(buf + n, PAGE_SIZE - n, " msg %u", m->msg);
		if (m->kind == HP_STALL)
			n += scnprintf(buf + n, PAGE_SIZE - n, " dropped %u times", m->nbytes);
		if (!m->done)
			n += scnprintf(buf + n, PAGE_SIZE - n, " (never came)");
		else if (m->kind == HP_STALL)
			n += scnprintf(buf + n, PAGE_SIZE - n, ", then passed: type %u len %u",
				       m->type, m->len);
		else
			n += scnprintf(buf + n, PAGE_SIZE - n,
				       " type %u len %u off %u: %08x -> %08x",
				       m->type, m->len, m->off, m->old, m->new);
		if (i + 1 < c.nmut)
			n += scnprintf(buf + n, PAGE_SIZE - n, ";");
	}
	n += scnprintf(buf + n, PAGE_SIZE - n, "\n");
	return n;
}

static const struct kernel_param_ops hp_report_ops = {
	.set = hp_report_set,
	.get = hp_report_get,
};
module_param_cb(report, &hp_report_ops, NULL, 0644);
MODULE_PARM_DESC(report, "write a client port, read what was done to its connection");

static int hp_stats_get(char *buf, const struct kernel_param *kp)
{
	int n, i;

	spin_lock_bh(&hp_lock);
	n = scnprintf(buf, PAGE_SIZE, "conns %lu msgs %lu mutated %lu dropped %lu",
		      st_conns, st_msgs, st_mutated, st_dropped);
	spin_unlock_bh(&hp_lock);
	spin_lock_irq(&cdc_lock);
	n += scnprintf(buf + n, PAGE_SIZE - n,
		       " cdcs %lu cdc_mutated %lu offers %lu offer_mutated %lu llcs %lu llc_mutated %lu",
		       st_cdc, st_cdc_mutated, st_offers, st_offer_mutated, st_llc, st_llc_mutated);
	/* By the type as sent (the low nibble): seen/mutated. */
	for (i = 0; i < 16; i++)
		if (st_llc_type[i])
			n += scnprintf(buf + n, PAGE_SIZE - n, " llc%u %lu/%lu", i,
				       st_llc_type[i], st_llc_type_mut[i]);
	spin_unlock_irq(&cdc_lock);
	n += scnprintf(buf + n, PAGE_SIZE - n, "\n");
	return n;
}

static const struct kernel_param_ops hp_stats_ops = { .get = hp_stats_get };
module_param_cb(stats, &hp_stats_ops, NULL, 0444);
MODULE_PARM_DESC(stats, "connections, CLC messages, mutations and drops since load");

/* The last HP_LLC_LOG LLC mutations, oldest first: what a failure may have met. */
static int hp_llc_log_get(char *buf, const struct kernel_param *kp)
{
	unsigned long k, first;
	int n = 0;

	spin_lock_irq(&cdc_lock);
	first = st_llc_mutated > HP_LLC_LOG ? st_llc_mutated - HP_LLC_LOG : 0;
	for (k = first; k < st_llc_mutated; k++) {
		const struct hp_llc_log *lg = &llc_log[k % HP_LLC_LOG];

		n += scnprintf(buf + n, PAGE_SIZE - n, "llc %u type %02x %s off %u: %0*x -> %0*x\n",
			       lg->nr, lg->type, llc_kinds[lg->kind], lg->off,
			       2 * lg->nbytes, lg->old, 2 * lg->nbytes, lg->new);
	}
	spin_unlock_irq(&cdc_lock);
	return n;
}

static const struct kernel_param_ops hp_llc_log_ops = { .get = hp_llc_log_get };
module_param_cb(llc_log, &hp_llc_log_ops, NULL, 0444);
MODULE_PARM_DESC(llc_log, "the last 32 LLC mutations: message number, type as sent, what changed");

static int __init hp_init(void)
{
	unsigned int i;
	int rc;

	conns = vzalloc(sizeof(*conns) * 65536);
	if (!conns)
		return -ENOMEM;
	cdc_rng = seed ^ 0xcdcull;
	llc_rng = seed ^ 0x11cull;
	for (i = 0; i < ARRAY_SIZE(hp_probes); i++)
		hp_probe_list[i] = &hp_probes[i];
	/* af_smc's symbols: load af_smc first (hostile.sh does). */
	rc = register_kprobes(hp_probe_list, ARRAY_SIZE(hp_probe_list));
	if (rc) {
		pr_err("cannot probe af_smc's CDC and LLC decoders: %d\n", rc);
		vfree(conns);
		return rc;
	}
	rc = nf_register_net_hooks(&init_net, hp_ops, ARRAY_SIZE(hp_ops));
	if (rc) {
		unregister_kprobes(hp_probe_list, ARRAY_SIZE(hp_probe_list));
		vfree(conns);
	}
	return rc;
}

static void __exit hp_exit(void)
{
	/* Returns after every hook in flight has finished (synchronize_net). */
	nf_unregister_net_hooks(&init_net, hp_ops, ARRAY_SIZE(hp_ops));
	/* Likewise for the probes' handlers. */
	unregister_kprobes(hp_probe_list, ARRAY_SIZE(hp_probe_list));
	vfree(conns);
}

module_init(hp_init);
module_exit(hp_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("a randomized hostile network for af_smc's CLC, CDC and LLC messages (selftests)");
