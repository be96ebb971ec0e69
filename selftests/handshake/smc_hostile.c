// SPDX-License-Identifier: GPL-2.0
/*
 * smc_hostile: a randomized hostile network (and peer) between two af_smc
 * endpoints, for the selftest handshake/hostile. Test-only; never part of
 * af_smc.
 *
 * A netfilter hook at IPv4 PRE_ROUTING on the loopback device watches the
 * TCP connections to and from 127.0.0.1:port (the test's AF_SMC listener)
 * and mutates the CLC messages in them, in place, before the receiving
 * af_smc sees them. Both ends are genuine af_smc sockets, so a handshake
 * whose mutation is harmless still ends in a working SMC-D connection,
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
 * CDC messages of SMC-D never touch TCP: a kprobe on af_smc's
 * smc_cdc_decode_d() changes them (cdc_permille of them) in the receiver's
 * DMB header, where the peer wrote them, just before they are decoded.
 * "clc" 0 leaves the CLC messages of new connections alone meanwhile.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <asm/unaligned.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/kprobes.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/netfilter.h>
#include <linux/netfilter_ipv4.h>
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
MODULE_PARM_DESC(cdc_permille, "mutate this many of every 1000 SMC-D CDC messages af_smc receives");

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

static unsigned int hp_hook(void *priv, struct sk_buff *skb,
			    const struct nf_hook_state *state)
{
	unsigned int noff = skb_network_offset(skb), ihl, thl, plen, len, verdict = NF_ACCEPT;
	u16 sport, dport, cport;
	struct hp_conn *c;
	struct tcphdr *th;
	struct iphdr *iph;
	u8 eye[8], *p;
	int dir, i;
	u32 seq;

	if (!state->in || !(state->in->flags & IFF_LOOPBACK))
		return NF_ACCEPT;
	if (!pskb_may_pull(skb, noff + sizeof(*iph)))
		return NF_ACCEPT;
	iph = ip_hdr(skb);
	if (iph->protocol != IPPROTO_TCP || ip_is_fragment(iph))
		return NF_ACCEPT;
	ihl = iph->ihl * 4;
	if (!pskb_may_pull(skb, noff + ihl + sizeof(*th)))
		return NF_ACCEPT;
	th = (struct tcphdr *)(skb->data + noff + ihl);
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
	if (thl < sizeof(*th) || ntohs(iph->tot_len) < ihl + thl)
		return NF_ACCEPT;
	plen = ntohs(iph->tot_len) - ihl - thl;
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
		    !skb_ensure_writable(skb, noff + ihl + thl)) {
			th = (struct tcphdr *)(skb->data + noff + ihl);
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
	    skb_copy_bits(skb, noff + ihl + thl, eye, sizeof(eye)) || !hp_is_clc(eye))
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
		if (skb_ensure_writable(skb, noff + ihl + thl + len))
			continue;
		p = skb->data + noff + ihl + thl;
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

static const struct nf_hook_ops hp_ops = {
	.hook = hp_hook,
	.pf = NFPROTO_IPV4,
	.hooknum = NF_INET_PRE_ROUTING,
	.priority = NF_IP_PRI_FIRST,
};

/*
 * CDC: af_smc decodes an SMC-D CDC message from the header of its own DMB,
 * where the peer wrote it (smc_smcd_cdc_rx() calls smc_cdc_decode_d()).
 * A kprobe there changes those bytes first, as a hostile peer could have
 * written them: cursors (wrap and count of the producer and consumer, at
 * bounds, one wrap off, or random), the flags (urgent data, write
 * blocked, done writing, closed, abort), the type, or random bits. Which
 * CDCs and how follow from one generator seeded with the seed; what the
 * receiver then does with its data is the peer's business, what it does
 * with the kernel's is the test's.
 */
static DEFINE_SPINLOCK(cdc_lock);
static u64 cdc_rng;
static unsigned long st_cdc, st_cdc_mutated;

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

/* SMC-D CDC layout: type, 7 reserved, prod (wrap 2, count 4, 2 flag bytes), cons (same). */
static void hp_cdc_mutate(u8 *b)
{
	static const u32 counts[] = { 0, 1, 0x3fff, 0x4000, 0xffff, 0x10000,
				      0x7fffffff, 0xffffffff };
	u64 r = hp_next(&cdc_rng);
	unsigned int at = (r >> 8) % 2 ? 8 : 16;	/* prod or cons */

	switch (r % 7) {
	case 0:		/* a count at a bound */
		hp_put_be(b + at + 2, 4, counts[(r >> 16) % ARRAY_SIZE(counts)]);
		break;
	case 1:		/* a count off by a little */
		hp_put_be(b + at + 2, 4, hp_get_be(b + at + 2, 4) + (u32)((r >> 16) % 64) - 32);
		break;
	case 2:		/* a wrap one off, or anything */
		hp_put_be(b + at, 2, (r >> 16) % 2 ? hp_get_be(b + at, 2) + ((r >> 17) % 2 ? 1 : -1) :
			  (u32)(r >> 24));
		break;
	case 3:		/* the producer flags of the consumer cursor */
		b[22] = r >> 16;
		break;
	case 4:		/* the connection state flags: done writing, closed, abort */
		b[23] = r >> 16;
		break;
	case 5:		/* the type */
		b[0] = r >> 16;
		break;
	default:	/* a random bit of the header */
		b[(r >> 16) % SMC_HOSTILE_CDC_LEN] ^= 1 << ((r >> 24) % 8);
		break;
	}
}

static int hp_cdc_pre(struct kprobe *kp, struct pt_regs *regs)
{
	u8 *buf = (u8 *)regs_get_kernel_argument(regs, 0);
	size_t len = regs_get_kernel_argument(regs, 1);
	unsigned int permille = READ_ONCE(cdc_permille);
	unsigned long flags;

	if (!permille || !buf || len < SMC_HOSTILE_CDC_LEN)
		return 0;
	spin_lock_irqsave(&cdc_lock, flags);
	st_cdc++;
	if (hp_next(&cdc_rng) % 1000 < permille) {
		hp_cdc_mutate(buf);
		st_cdc_mutated++;
	}
	spin_unlock_irqrestore(&cdc_lock, flags);
	return 0;
}

static struct kprobe hp_cdc_probe = {
	.symbol_name = "smc_cdc_decode_d",
	.pre_handler = hp_cdc_pre,
};

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
	int n;

	spin_lock_bh(&hp_lock);
	n = scnprintf(buf, PAGE_SIZE, "conns %lu msgs %lu mutated %lu dropped %lu",
		      st_conns, st_msgs, st_mutated, st_dropped);
	spin_unlock_bh(&hp_lock);
	spin_lock_irq(&cdc_lock);
	n += scnprintf(buf + n, PAGE_SIZE - n, " cdcs %lu cdc_mutated %lu\n",
		       st_cdc, st_cdc_mutated);
	spin_unlock_irq(&cdc_lock);
	return n;
}

static const struct kernel_param_ops hp_stats_ops = { .get = hp_stats_get };
module_param_cb(stats, &hp_stats_ops, NULL, 0444);
MODULE_PARM_DESC(stats, "connections, CLC messages, mutations and drops since load");

static int __init hp_init(void)
{
	int rc;

	conns = vzalloc(sizeof(*conns) * 65536);
	if (!conns)
		return -ENOMEM;
	cdc_rng = seed ^ 0xcdcull;
	/* af_smc's symbol: load af_smc first (hostile.sh does). */
	rc = register_kprobe(&hp_cdc_probe);
	if (rc) {
		pr_err("cannot probe af_smc's smc_cdc_decode_d: %d\n", rc);
		vfree(conns);
		return rc;
	}
	rc = nf_register_net_hook(&init_net, &hp_ops);
	if (rc) {
		unregister_kprobe(&hp_cdc_probe);
		vfree(conns);
	}
	return rc;
}

static void __exit hp_exit(void)
{
	/* Returns after every hook in flight has finished (synchronize_net). */
	nf_unregister_net_hook(&init_net, &hp_ops);
	/* Likewise for the probe's handlers. */
	unregister_kprobe(&hp_cdc_probe);
	vfree(conns);
}

module_init(hp_init);
module_exit(hp_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("a randomized hostile network for af_smc's CLC handshake (selftests)");
