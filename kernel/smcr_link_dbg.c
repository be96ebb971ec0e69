// SPDX-License-Identifier: GPL-2.0
/*
 * af_smc: /sys/kernel/debug/af_smc/link, a way for the selftests to drive
 * links by hand, before and apart from the CLC handshake (test plumbing,
 * not ABI). Write one command; read the answer to the last one:
 *
 *   create ID IFNAME [RMBSIZE]   a link on the RDMA port matched to IFNAME
 *                                (writer's namespace), with an RMB of its
 *                                own (a struct smcr_buf, as a connection's)
 *                                -> "created ID QPN PSN MTU GID MAC RKEY ADDR"
 *   connect ID QPN PSN MTU GID MAC   to RTS, RMB registered -> "connected ID"
 *   confirm ID                   CONFIRM_LINK request, await the response
 *   await ID                     await the peer's CONFIRM_LINK request
 *   test ID                      TEST_LINK request, await the echo
 *   keepalive ID MS              TEST_LINK after MS ms idle (0: off)
 *   keepalive ID net             the same with the writer's namespace's
 *                                net.smc.smcr_testlink_time (as socket links)
 *   fill ID LEN SEED             write a pattern into the own RMB
 *   write ID LEN RKEY ADDR       RDMA WRITE of own RMB[0, LEN) to the peer
 *   check ID LEN SEED            compare the own RMB with the pattern
 *   share ID OTHER               map OTHER's RMB on link ID too and
 *                                register it there (a buffer of a group
 *                                with two links) -> "shared ID OTHER RKEY
 *                                ADDR", its rkey and address on link ID
 *   unshare ID OTHER             drop that mapping again (OTHER's RMB
 *                                stays), as a link deleted from a group
 *   stats ID                     state and counters
 *   destroy ID
 *
 * IDs are 0..SMCR_DBG_LINKS-1. A failing command returns its error to
 * write() and leaves "error CMD ERRNO" to read. Links left over are
 * destroyed at module unload. smcr_dbg_mutex serialises the commands
 * (they wait, bounded, for the link); it is never taken by the link code.
 */
#include <linux/debugfs.h>
#include <linux/etherdevice.h>
#include <linux/fs.h>
#include <linux/inet.h>
#include <linux/netdevice.h>
#include <linux/nsproxy.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/uaccess.h>

#include "smcr_ib.h"
#include "smcr_link.h"

#define SMCR_DBG_LINKS	4

static DEFINE_MUTEX(smcr_dbg_mutex);
static struct smcr_link *smcr_dbg_links[SMCR_DBG_LINKS];
static struct smcr_buf *smcr_dbg_rmbs[SMCR_DBG_LINKS];	/* each link's */
/* Bit j of [i]: link i's RMB is mapped on link j too ("share j i"). */
static unsigned long smcr_dbg_shared[SMCR_DBG_LINKS];
static char smcr_dbg_answer[256];

static u8 smcr_dbg_pattern(u32 seed, size_t i)
{
	return (u8)((seed * 2654435761u) >> 24) ^ (u8)(i * 7 + (i >> 8));
}

/*
 * The link of id and its RMB go; the RMBs first: its own (on every link
 * it is mapped on) and the others' mappings on it, as a link deleted
 * from a group drops its mappings of the group's buffers.
 */
static void smcr_dbg_destroy(int id)
{
	struct smcr_link *l = smcr_dbg_links[id];
	int i;

	if (!l)
		return;
	for (i = 0; i < SMCR_DBG_LINKS; i++) {
		if (!test_and_clear_bit(id, &smcr_dbg_shared[i]))
			continue;
		smcr_buf_drop_link(l, smcr_dbg_rmbs[i]);
	}
	smcr_buf_free(smcr_dbg_rmbs[id]);	/* NULL-safe */
	smcr_dbg_shared[id] = 0;
	smcr_dbg_rmbs[id] = NULL;
	smcr_dbg_links[id] = NULL;
	smcr_link_destroy(l);
}

/* The OTHER of "share ID OTHER" and "unshare ID OTHER", or -EINVAL. */
static int smcr_dbg_other(int id, char *args)
{
	int other;

	if (kstrtoint(strim(args), 10, &other) || other < 0 ||
	    other >= SMCR_DBG_LINKS || other == id || !smcr_dbg_rmbs[other])
		return -EINVAL;
	return other;
}

/* OTHER's RMB on link l (id) too, registered: its rkey there. */
static int smcr_dbg_share(int id, struct smcr_link *l, char *args)
{
	int other = smcr_dbg_other(id, args);
	struct smcr_buf *b;
	int rc;

	if (other < 0)
		return other;
	b = smcr_dbg_rmbs[other];
	rc = smcr_buf_add_link(l, b);
	if (rc)
		return rc;
	rc = smcr_buf_register(l, b);
	if (rc) {
		smcr_buf_drop_link(l, b);
		return rc;
	}
	set_bit(id, &smcr_dbg_shared[other]);
	snprintf(smcr_dbg_answer, sizeof(smcr_dbg_answer), "shared %d %d %u %llu",
		 id, other, smcr_buf_rkey(l, b), smcr_buf_addr(l, b));
	return 0;
}

static int smcr_dbg_create(int id, const char *ifname, u32 rmb_size)
{
	struct smcr_path path;
	struct net_device *ndev;
	struct smcr_link *l;
	struct smcr_buf *b;
	int rc;

	if (smcr_dbg_links[id])
		return -EEXIST;
	ndev = dev_get_by_name(current->nsproxy->net_ns, ifname);
	if (!ndev)
		return -ENODEV;
	rc = smcr_ib_find(ndev, 0, &path);
	dev_put(ndev);
	if (rc)
		return rc;
	l = smcr_link_create(&path, current->nsproxy->net_ns);
	smcr_path_put(&path);
	if (IS_ERR(l))
		return PTR_ERR(l);
	/* Not a connection's: the kind the module always gave these. */
	b = smcr_buf_alloc(l, rmb_size, true, SMCR_MIXED_BUFS);
	if (IS_ERR(b)) {
		smcr_link_destroy(l);
		return PTR_ERR(b);
	}
	smcr_dbg_links[id] = l;
	smcr_dbg_rmbs[id] = b;
	snprintf(smcr_dbg_answer, sizeof(smcr_dbg_answer),
		 "created %d %u %u %u %pI6c %pM %u %llu", id, l->local.qpn,
		 l->local.psn, l->local.mtu, l->local.gid.raw, l->local.mac,
		 smcr_buf_rkey(l, b), smcr_buf_addr(l, b));
	return 0;
}

static int smcr_dbg_connect(struct smcr_link *l, struct smcr_buf *rmb,
			    char *args)
{
	struct smcr_qp_info peer = {};
	char gid[64], mac[32];
	unsigned int mtu;
	int rc;

	if (sscanf(args, "%u %u %u %63s %31s", &peer.qpn, &peer.psn, &mtu,
		   gid, mac) != 5)
		return -EINVAL;
	if (!in6_pton(gid, -1, peer.gid.raw, -1, NULL) || !mac_pton(mac, peer.mac))
		return -EINVAL;
	peer.mtu = mtu;
	rc = smcr_link_connect(l, &peer);
	/* The peer may write into the RMB from here on. */
	return rc ?: smcr_buf_register(l, rmb);
}

/* Link id's RMB against the pattern of seed. */
static int smcr_dbg_check(int id, size_t len, u32 seed)
{
	struct smcr_buf *rmb = smcr_dbg_rmbs[id];
	const u8 *p = rmb->cpu;
	unsigned int j;
	size_t i;

	if (len > rmb->size)
		return -EINVAL;
	/* What arrived over any link the RMB is mapped on ("share"). */
	smcr_buf_sync_cpu(smcr_dbg_links[id], rmb);
	for_each_set_bit(j, &smcr_dbg_shared[id], SMCR_DBG_LINKS)
		smcr_buf_sync_cpu(smcr_dbg_links[j], rmb);
	for (i = 0; i < len; i++) {
		if (READ_ONCE(p[i]) != smcr_dbg_pattern(seed, i)) {
			snprintf(smcr_dbg_answer, sizeof(smcr_dbg_answer),
				 "mismatch at %zu", i);
			return -EBADMSG;
		}
	}
	return 0;
}

static int smcr_dbg_run(char *cmd)
{
	char verb[16], arg[64];
	unsigned long long a3;
	unsigned int a1, a2;
	struct smcr_link *l;
	struct smcr_buf *b;
	int id, n;
	size_t i;

	if (sscanf(cmd, "%15s %d %n", verb, &id, &n) < 2)
		return -EINVAL;
	if (id < 0 || id >= SMCR_DBG_LINKS)
		return -EINVAL;
	snprintf(smcr_dbg_answer, sizeof(smcr_dbg_answer), "%s %d", verb, id);
	if (!strcmp(verb, "create")) {
		a1 = 64 << 10;
		if (sscanf(cmd + n, "%63s %u", arg, &a1) < 1)
			return -EINVAL;
		return smcr_dbg_create(id, arg, a1);
	}
	l = smcr_dbg_links[id];
	b = smcr_dbg_rmbs[id];
	if (!l)
		return -ENOENT;
	if (!strcmp(verb, "connect"))
		return smcr_dbg_connect(l, b, cmd + n);
	if (!strcmp(verb, "confirm"))
		return smcr_llc_confirm_link(l);
	if (!strcmp(verb, "await"))
		return smcr_llc_await_confirm(l);
	if (!strcmp(verb, "test"))
		return smcr_llc_test_link(l);
	if (!strcmp(verb, "keepalive")) {
		if (!strncmp(cmd + n, "net", 3)) {
			smcr_link_keepalive_net(l, current->nsproxy->net_ns);
			return 0;
		}
		if (sscanf(cmd + n, "%u", &a1) != 1)
			return -EINVAL;
		smcr_link_set_keepalive(l, msecs_to_jiffies(a1));
		return 0;
	}
	if (!strcmp(verb, "fill")) {
		if (sscanf(cmd + n, "%u %u", &a1, &a2) != 2 || a1 > b->size)
			return -EINVAL;
		for (i = 0; i < a1; i++)
			((u8 *)b->cpu)[i] = smcr_dbg_pattern(a2, i);
		return 0;
	}
	if (!strcmp(verb, "write")) {
		if (sscanf(cmd + n, "%u %u %llu", &a1, &a2, &a3) != 3)
			return -EINVAL;
		return smcr_buf_write(l, b, 0, a1, a2, a3, NULL);
	}
	if (!strcmp(verb, "check")) {
		if (sscanf(cmd + n, "%u %u", &a1, &a2) != 2)
			return -EINVAL;
		return smcr_dbg_check(id, a1, a2);
	}
	if (!strcmp(verb, "share"))
		return smcr_dbg_share(id, l, cmd + n);
	if (!strcmp(verb, "unshare")) {
		n = smcr_dbg_other(id, cmd + n);
		if (n < 0)
			return n;
		if (!test_and_clear_bit(id, &smcr_dbg_shared[n]))
			return -ENOENT;
		smcr_buf_drop_link(l, smcr_dbg_rmbs[n]);
		return 0;
	}
	if (!strcmp(verb, "stats")) {
		spin_lock_bh(&l->lock);
		snprintf(smcr_dbg_answer, sizeof(smcr_dbg_answer),
			 "stats %d state %d tx %u rx %u rx_bad %u rx_dropped %u rx_cdc %u wc_status %d confirmed %d port_down %d peer_deleted %d keepalive_failed %d",
			 id, l->state, l->tx_msgs, l->rx_msgs, l->rx_bad,
			 l->rx_dropped, l->rx_cdc, l->last_wc_status, l->confirm_done,
			 l->port_down, l->peer_deleted, l->keepalive_failed);
		spin_unlock_bh(&l->lock);
		return 0;
	}
	if (!strcmp(verb, "destroy")) {
		smcr_dbg_destroy(id);
		return 0;
	}
	return -EINVAL;
}

static int smcr_dbg_show(struct seq_file *m, void *v)
{
	mutex_lock(&smcr_dbg_mutex);
	seq_printf(m, "%s\n", smcr_dbg_answer);
	mutex_unlock(&smcr_dbg_mutex);
	return 0;
}

static int smcr_dbg_open(struct inode *inode, struct file *file)
{
	return single_open(file, smcr_dbg_show, NULL);
}

static ssize_t smcr_dbg_write(struct file *file, const char __user *ubuf,
			      size_t len, loff_t *ppos)
{
	char cmd[256];
	int rc;

	if (len >= sizeof(cmd))
		return -EINVAL;
	if (copy_from_user(cmd, ubuf, len))
		return -EFAULT;
	cmd[len] = 0;
	strim(cmd);
	mutex_lock(&smcr_dbg_mutex);
	rc = smcr_dbg_run(cmd);
	if (rc && !strncmp(smcr_dbg_answer, "mismatch", 8))
		; /* keep the detail */
	else if (rc)
		snprintf(smcr_dbg_answer, sizeof(smcr_dbg_answer), "error %.15s %d",
			 cmd, rc);
	mutex_unlock(&smcr_dbg_mutex);
	return rc ? rc : len;
}

static const struct file_operations smcr_dbg_fops = {
	.owner		= THIS_MODULE,
	.open		= smcr_dbg_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= single_release,
	.write		= smcr_dbg_write,
};

void smcr_link_debugfs(struct dentry *dir)
{
	debugfs_create_file("link", 0644, dir, NULL, &smcr_dbg_fops);
}

/* After the file is gone: no command can run. */
void smcr_link_debugfs_exit(void)
{
	int i;

	mutex_lock(&smcr_dbg_mutex);
	for (i = 0; i < SMCR_DBG_LINKS; i++)
		smcr_dbg_destroy(i);
	mutex_unlock(&smcr_dbg_mutex);
}
