// SPDX-License-Identifier: GPL-2.0
/*
 * af_smc: bounds on the server handshakes that hold a worker.
 *
 * A listener's child holds a worker of smc_hs_wq from the client's
 * Proposal until its handshake is decided: up to SMC_CLC_WAIT_TIME for
 * each message it still waits for (the Confirm, SMC-R's LLC exchange).
 * The wait for the Proposal itself holds none (smc_listen.c), so a silent
 * client costs no worker; one that proposes and then stops answering
 * does. So that no listener and no client address can take the workers
 * every other handshake on the host needs, a child is admitted to go on
 * past its Proposal only while its listener has fewer than
 * SMC_HS_MAX_LISTENER admitted children, the client's address (in its
 * network namespace; an IPv6 address by its /64, which one host may
 * fill) fewer than SMC_HS_MAX_PEER on all listeners together, and the
 * host fewer than SMC_HS_MAX_ALL, which leaves half of smc_hs_wq's 256
 * workers to our own clients and to the runs that end a park. A child
 * that is not admitted declines with SMC_CLC_DECL_HSLIMIT and both ends
 * go on over TCP: a clean fallback, counted as any other. The bounds
 * hold whatever net.smc.limit_smc_hs says.
 *
 * Counts per address live in a small hash table, an entry existing while
 * its count is not 0. Only handshake work touches it (process context).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/hashtable.h>
#include <linux/jhash.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <net/inet_sock.h>
#include <net/ipv6.h>
#include <net/sock.h>

#include "smc.h"

/* Half, a quarter and a sixteenth of smc_hs_wq's 256 workers. */
#define SMC_HS_MAX_ALL		128
#define SMC_HS_MAX_LISTENER	64
#define SMC_HS_MAX_PEER		16

#define SMC_HS_PEER_BITS	6

struct smc_hs_peer {
	struct hlist_node	node;
	const struct net	*net;	/* compared, never followed */
	struct in6_addr		addr;	/* IPv4 as v4-mapped IPv6 */
	unsigned int		count;	/* admitted children */
};

static DEFINE_HASHTABLE(smc_hs_peers, SMC_HS_PEER_BITS);
static DEFINE_SPINLOCK(smc_hs_peers_lock);
static u32 smc_hs_peer_seed;
/* Admitted children of the host. */
static atomic_t smc_hs_admitted = ATOMIC_INIT(0);

/* The client's address of a child's TCP connection, as counted. */
static void smc_hs_peer_addr(struct smc_sock *nsmc, struct in6_addr *addr)
{
	const struct sock *clcsk = nsmc->clcsock->sk;

#if IS_ENABLED(CONFIG_IPV6)
	if (clcsk->sk_family == AF_INET6) {
		*addr = clcsk->sk_v6_daddr;
		/* A host has a /64 to itself: it counts as one address. */
		if (!ipv6_addr_v4mapped(addr))
			addr->s6_addr32[2] = addr->s6_addr32[3] = 0;
		return;
	}
#endif
	ipv6_addr_set_v4mapped(inet_sk(clcsk)->inet_daddr, addr);
}

static u32 smc_hs_peer_hash(const struct net *net, const struct in6_addr *addr)
{
	return jhash2(addr->s6_addr32, 4, smc_hs_peer_seed ^ net_hash_mix(net));
}

/*
 * Admit nsmc, a child that has its client's Proposal, to the rest of its
 * handshake: true, and the counts taken until smc_hs_release(); false
 * when the host, its listener or its client's address is at its bound
 * (or no memory for a new entry is left), and nothing is taken.
 */
bool smc_hs_admit(struct smc_sock *nsmc)
{
	struct smc_sock *lsmc = nsmc->listener;
	const struct net *net = sock_net(&nsmc->sk);
	struct smc_hs_peer *peer, *spare;
	struct in6_addr addr;
	u32 hash;

	if (atomic_inc_return(&smc_hs_admitted) > SMC_HS_MAX_ALL)
		goto undo_all;
	if (atomic_inc_return(&lsmc->ls.hs_working) > SMC_HS_MAX_LISTENER)
		goto undo;
	net_get_random_once(&smc_hs_peer_seed, sizeof(smc_hs_peer_seed));
	smc_hs_peer_addr(nsmc, &addr);
	hash = smc_hs_peer_hash(net, &addr);
	/* Allocated outside the lock; freed below if an entry exists. */
	spare = kzalloc(sizeof(*spare), GFP_KERNEL);

	spin_lock(&smc_hs_peers_lock);
	hash_for_each_possible(smc_hs_peers, peer, node, hash)
		if (peer->net == net && ipv6_addr_equal(&peer->addr, &addr))
			break;
	if (!peer && spare) {
		peer = spare;
		spare = NULL;
		peer->net = net;
		peer->addr = addr;
		hash_add(smc_hs_peers, &peer->node, hash);
	}
	if (!peer || peer->count >= SMC_HS_MAX_PEER) {
		spin_unlock(&smc_hs_peers_lock);
		kfree(spare);
		goto undo;
	}
	peer->count++;
	nsmc->hs_peer = peer;
	spin_unlock(&smc_hs_peers_lock);
	kfree(spare);
	return true;

undo:
	atomic_dec(&lsmc->ls.hs_working);
undo_all:
	atomic_dec(&smc_hs_admitted);
	return false;
}

/* Give back what smc_hs_admit() took for nsmc, if it took anything. */
void smc_hs_release(struct smc_sock *nsmc)
{
	struct smc_hs_peer *peer = nsmc->hs_peer;

	if (!peer)
		return;
	nsmc->hs_peer = NULL;
	spin_lock(&smc_hs_peers_lock);
	if (--peer->count)
		peer = NULL;
	else
		hash_del(&peer->node);
	spin_unlock(&smc_hs_peers_lock);
	kfree(peer);
	atomic_dec(&nsmc->listener->ls.hs_working);
	atomic_dec(&smc_hs_admitted);
}
