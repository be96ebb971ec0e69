// SPDX-License-Identifier: GPL-2.0
/*
 * af_smc: debugfs views for tests and debugging, under
 * /sys/kernel/debug/af_smc/ (none of it is ABI):
 *
 *   rdma        the RDMA registry (smcr_ib.c): one line per port, one per
 *               RoCEv2 IPv4 GID with its netdev's ifindex and MAC
 *   rdma_match  write a network device name (looked up in the writer's
 *               namespace); a read then says which RDMA port and GID
 *               SMC-R would use for it: "IFNAME DEV PORT GID PNETID" or
 *               "IFNAME none". The last answer is kept module-wide, under
 *               smc_dbg_mutex, for one tester at a time.
 *   smcr_hs     SMC-R handshakes (smcr_hs.c): first links confirmed as
 *               client and as server, failures
 *   link        links driven by hand (smcr_link_dbg.c)
 *   smcr_lgr    SMC-R link groups: one line per group (its one link's QP,
 *               its connections and pooled RMBs), then the object counts
 *   smcr_conns  SMC-R connections: one line per connection, with its RMB's
 *               rkey and address as its Accept or Confirm announced them;
 *               "write ROLE TOKEN RKEY ADDR LEN" has that connection's
 *               group WRITE to any key (a stale one, in the tests)
 *   ivshmem     ivshmem devices (smcd_ivshmem.c): per device its peer ID,
 *               partition, region size, GID, CHID, DMBs and interrupts
 *               per vector, then each partition ("free", or "up"/"dead"
 *               with its owner's peer ID and heartbeat); "ring PEER
 *               VECTOR" rings that peer ID's doorbell from the first device
 *
 * debugfs being absent (or failing) is not an error for the module.
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/netdevice.h>
#include <linux/nsproxy.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/uaccess.h>
#include <net/net_namespace.h>

#include "smc.h"
#include "smc_debugfs.h"
#include "smcd_ivshmem.h"
#include "smcr_hs.h"
#include "smcr_ib.h"
#include "smcr_lgr.h"
#include "smcr_link.h"

static struct dentry *smc_dbg_dir;
static DEFINE_MUTEX(smc_dbg_mutex);
static char smc_dbg_match[160];

static int smc_dbg_rdma_show(struct seq_file *m, void *v)
{
	smcr_ib_show(m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(smc_dbg_rdma);

static int smc_dbg_smcr_hs_show(struct seq_file *m, void *v)
{
	smcr_hs_show(m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(smc_dbg_smcr_hs);

static int smc_dbg_smcr_lgr_show(struct seq_file *m, void *v)
{
	smcr_lgr_show(m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(smc_dbg_smcr_lgr);

static int smc_dbg_smcr_conns_show(struct seq_file *m, void *v)
{
	smcr_lgr_conns_show(m);
	return 0;
}

static int smc_dbg_smcr_conns_open(struct inode *inode, struct file *file)
{
	return single_open(file, smc_dbg_smcr_conns_show, NULL);
}

/*
 * "write client|server TOKEN RKEY ADDR LEN": smcr_lgr_dbg_write();
 * "delete client|server LINKNUM": smcr_lgr_dbg_delete();
 * "invite N": smcr_lgr_dbg_invite(), N from 1 to 64;
 * "hold MS": smcr_lgr_dbg_hold(), MS up to 2000 (0: none);
 * "break client|server": smcr_conn_dbg_break(). The write() returns
 * their error (tests only).
 */
static ssize_t smc_dbg_smcr_conns_write(struct file *file,
					const char __user *ubuf, size_t len,
					loff_t *ppos)
{
	char cmd[96], role[8];
	u32 token, rkey, n;
	u64 addr;
	int rc;

	if (len >= sizeof(cmd))
		return -EINVAL;
	if (copy_from_user(cmd, ubuf, len))
		return -EFAULT;
	cmd[len] = 0;
	if (sscanf(cmd, "break %7s", role) == 1) {
		if (strcmp(role, "client") && strcmp(role, "server"))
			return -EINVAL;
		smcr_conn_dbg_break(!strcmp(role, "server"));
		return len;
	}
	if (sscanf(cmd, "delete %7s %u", role, &n) == 2) {
		if ((strcmp(role, "client") && strcmp(role, "server")) || !n || n > 255)
			return -EINVAL;
		rc = smcr_lgr_dbg_delete(!strcmp(role, "server"), n);
		return rc ?: len;
	}
	if (sscanf(cmd, "hold %u", &n) == 1) {
		if (n > 2000)
			return -EINVAL;
		smcr_lgr_dbg_hold(n);
		return len;
	}
	if (sscanf(cmd, "invite %u", &n) == 1) {
		if (!n || n > 64)
			return -EINVAL;
		rc = smcr_lgr_dbg_invite(n);
		return rc ?: len;
	}
	if (sscanf(cmd, "write %7s %u %x %llx %u", role, &token, &rkey, &addr,
		   &n) != 5 || (strcmp(role, "client") && strcmp(role, "server")))
		return -EINVAL;
	rc = smcr_lgr_dbg_write(!strcmp(role, "server"), token, rkey, addr, n);
	return rc ?: len;
}

static const struct file_operations smc_dbg_smcr_conns_fops = {
	.owner		= THIS_MODULE,
	.open		= smc_dbg_smcr_conns_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= single_release,
	.write		= smc_dbg_smcr_conns_write,
};

static int smc_dbg_match_show(struct seq_file *m, void *v)
{
	mutex_lock(&smc_dbg_mutex);
	seq_printf(m, "%s\n", smc_dbg_match);
	mutex_unlock(&smc_dbg_mutex);
	return 0;
}

static int smc_dbg_match_open(struct inode *inode, struct file *file)
{
	return single_open(file, smc_dbg_match_show, NULL);
}

static ssize_t smc_dbg_match_write(struct file *file, const char __user *ubuf,
				   size_t len, loff_t *ppos)
{
	char name[IFNAMSIZ];
	struct smcr_path path;
	struct net_device *ndev;
	size_t n = min(len, sizeof(name) - 1);

	if (copy_from_user(name, ubuf, n))
		return -EFAULT;
	name[n] = 0;
	strim(name);
	ndev = dev_get_by_name(current->nsproxy->net_ns, name);
	if (!ndev)
		return -ENODEV;
	mutex_lock(&smc_dbg_mutex);
	if (smcr_ib_find(ndev, 0, &path)) {
		snprintf(smc_dbg_match, sizeof(smc_dbg_match), "%s none", name);
	} else {
		snprintf(smc_dbg_match, sizeof(smc_dbg_match), "%s %s %u %pI6c %s",
			 name, path.dev->name, path.port, path.gid.gid.raw,
			 path.pnetid[0] ? path.pnetid : "-");
		smcr_path_put(&path);
	}
	mutex_unlock(&smc_dbg_mutex);
	dev_put(ndev);
	return len;
}

static const struct file_operations smc_dbg_match_fops = {
	.owner		= THIS_MODULE,
	.open		= smc_dbg_match_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= single_release,
	.write		= smc_dbg_match_write,
};

static int smc_dbg_ivshmem_show(struct seq_file *m, void *v)
{
	smcd_ivshmem_show(m);
	return 0;
}

static int smc_dbg_ivshmem_open(struct inode *inode, struct file *file)
{
	return single_open(file, smc_dbg_ivshmem_show, NULL);
}

/* "ring PEER VECTOR" */
static ssize_t smc_dbg_ivshmem_write(struct file *file, const char __user *ubuf,
				     size_t len, loff_t *ppos)
{
	unsigned int peer, vector;
	char buf[32];
	size_t n = min(len, sizeof(buf) - 1);
	int rc;

	if (copy_from_user(buf, ubuf, n))
		return -EFAULT;
	buf[n] = 0;
	if (sscanf(buf, "ring %u %u", &peer, &vector) != 2)
		return -EINVAL;
	rc = smcd_ivshmem_ring(peer, vector);
	return rc ? rc : len;
}

static const struct file_operations smc_dbg_ivshmem_fops = {
	.owner		= THIS_MODULE,
	.open		= smc_dbg_ivshmem_open,
	.read		= seq_read,
	.llseek		= seq_lseek,
	.release	= single_release,
	.write		= smc_dbg_ivshmem_write,
};

void smc_debugfs_init(void)
{
	smc_dbg_dir = debugfs_create_dir("af_smc", NULL);
	debugfs_create_file("rdma", 0444, smc_dbg_dir, NULL, &smc_dbg_rdma_fops);
	debugfs_create_file("rdma_match", 0644, smc_dbg_dir, NULL,
			    &smc_dbg_match_fops);
	debugfs_create_file("smcr_hs", 0444, smc_dbg_dir, NULL,
			    &smc_dbg_smcr_hs_fops);
	debugfs_create_file("smcr_lgr", 0444, smc_dbg_dir, NULL,
			    &smc_dbg_smcr_lgr_fops);
	debugfs_create_file("smcr_conns", 0644, smc_dbg_dir, NULL,
			    &smc_dbg_smcr_conns_fops);
	debugfs_create_file("ivshmem", 0644, smc_dbg_dir, NULL,
			    &smc_dbg_ivshmem_fops);
	smcr_link_debugfs(smc_dbg_dir);
	smc_objects_debugfs(smc_dbg_dir);
}

void smc_debugfs_exit(void)
{
	/* Waits for readers and writers of the files to leave them. */
	debugfs_remove_recursive(smc_dbg_dir);
	smcr_link_debugfs_exit();
}
