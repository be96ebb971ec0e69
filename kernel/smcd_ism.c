// SPDX-License-Identifier: GPL-2.0
/*
 * af_smc: the list of ISM devices SMC-D may use.
 *
 * Devices register once and stay until unregistered; a connection holds a
 * reference on its device while it uses it, and unregistering waits for
 * the last one, so a device never disappears under a connection. A device
 * that goes away (unbound, unplugged) does not wait for its connections'
 * owners: unregistering resets them and makes them let go of it first.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/wait_bit.h>
#include <net/inet_sock.h>
#include <net/ipv6.h>
#include <net/net_namespace.h>
#include <net/sock.h>

#include "smcd_ism.h"
#include "smcd_lgr.h"
#include "wire/smc_clc.h"

static LIST_HEAD(smcd_ism_devices);
static DEFINE_MUTEX(smcd_ism_lock);

int smcd_ism_register(struct smcd_ism_dev *dev)
{
	refcount_set(&dev->ref, 1);
	mutex_lock(&smcd_ism_lock);
	list_add_tail(&dev->list, &smcd_ism_devices);
	mutex_unlock(&smcd_ism_lock);
	pr_info("ISM device %s: GID %016llx%016llx CHID %04x\n", dev->name,
		dev->gid.gid, dev->gid.ext, dev->chid);
	return 0;
}

void smcd_ism_unregister(struct smcd_ism_dev *dev)
{
	mutex_lock(&smcd_ism_lock);
	list_del_init(&dev->list);
	mutex_unlock(&smcd_ism_lock);
	smcd_lgr_dev_gone(dev);
	/* Handshakes that found it before: bounded by their CLC waits. */
	if (!refcount_dec_and_test(&dev->ref))
		wait_var_event(&dev->ref, !refcount_read(&dev->ref));
}

void smcd_ism_put(struct smcd_ism_dev *dev)
{
	if (dev && refcount_dec_and_test(&dev->ref))
		wake_up_var(&dev->ref);
}

struct smcd_ism_dev *smcd_ism_find(const struct smcd_gid *gid, u16 chid)
{
	struct smcd_ism_dev *dev, *found = NULL;

	mutex_lock(&smcd_ism_lock);
	list_for_each_entry(dev, &smcd_ism_devices, list) {
		if (dev->chid != chid)
			continue;
		if (dev->ops->reaches ? dev->ops->reaches(dev, gid) :
					smcd_gid_eq(&dev->gid, gid)) {
			refcount_inc(&dev->ref);
			found = dev;
			break;
		}
	}
	mutex_unlock(&smcd_ism_lock);
	return found;
}

int smcd_ism_list(struct smc_clc_proposal *p)
{
	struct smcd_ism_dev *dev;
	int n = 0;

	mutex_lock(&smcd_ism_lock);
	list_for_each_entry(dev, &smcd_ism_devices, list) {
		struct smc_clc_ism_gid d = {
			.gid = dev->gid.gid, .gid_ext = dev->gid.ext, .chid = dev->chid,
		};

		/* One that needs two entries may leave room for one that needs one. */
		if (smc_clc_ism_add(p, &d))
			n++;
	}
	mutex_unlock(&smcd_ism_lock);
	return n;
}

bool smcd_ism_available(void)
{
	bool any;

	mutex_lock(&smcd_ism_lock);
	any = !list_empty(&smcd_ism_devices);
	mutex_unlock(&smcd_ism_lock);
	return any;
}

int smcd_ism_walk(long *pos, int (*fn)(struct smcd_ism_dev *dev, void *arg),
		 void *arg)
{
	struct smcd_ism_dev *dev;
	long i = 0;
	int rc = 0;

	mutex_lock(&smcd_ism_lock);
	list_for_each_entry(dev, &smcd_ism_devices, list) {
		if (i++ < *pos)
			continue;
		rc = fn(dev, arg);
		if (rc)
			break;
		(*pos)++;
	}
	mutex_unlock(&smcd_ism_lock);
	return rc;
}

void smcd_dmb_tuple_of(struct sock *sk, struct smcd_dmb_tuple *t)
{
	const struct inet_sock *inet = inet_sk(sk);

	memset(t, 0, sizeof(*t));
	t->userns = sock_net(sk)->user_ns;
	t->lport = inet->inet_sport;
	t->rport = inet->inet_dport;
#if IS_ENABLED(CONFIG_IPV6)
	if (sk->sk_family == AF_INET6) {
		t->laddr = sk->sk_v6_rcv_saddr;
		t->raddr = sk->sk_v6_daddr;
		return;
	}
#endif
	ipv6_addr_set_v4mapped(inet->inet_rcv_saddr, &t->laddr);
	ipv6_addr_set_v4mapped(inet->inet_daddr, &t->raddr);
}

bool smcd_dmb_tuple_is_peer(const struct smcd_dmb_tuple *a,
			   const struct smcd_dmb_tuple *b)
{
	/*
	 * A tuple of nothing (all zero) is nobody's peer. The two ends may
	 * sit in different namespaces joined by a veth pair (containers),
	 * but only in namespaces of one user namespace: whoever owns that
	 * user namespace could join them anyway, while an unprivileged user
	 * who made its own (unshare -Urn) and gave it the victim's addresses
	 * still cannot pass for the victim's peer.
	 */
	return a->userns && a->userns == b->userns &&
	       a->lport && a->lport == b->rport && a->rport == b->lport &&
	       ipv6_addr_equal(&a->laddr, &b->raddr) &&
	       ipv6_addr_equal(&a->raddr, &b->laddr);
}
