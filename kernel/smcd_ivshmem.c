// SPDX-License-Identifier: GPL-2.0
/*
 * af_smc: QEMU's ivshmem-doorbell device (PCI 1af4:1110), the future ISM
 * device between VMs. Step 1 of the plan in Documentation/smc-d.md ("Not
 * yet"): the PCI driver, the region cut into partitions, a heartbeat and
 * the doorbells. No ISM device is registered yet, so SMC-D does not use it.
 *
 * The device: BAR0 holds its registers (IVPosition, this VM's peer ID from
 * the host's ivshmem server; Doorbell, which interrupts vector v of peer p
 * when written (p << 16) | v), BAR1 its MSI-X table, BAR2 the region every
 * VM on the server maps. The region is cut into ivshmem_peers partitions
 * of equal size, partition i for peer ID i; its first bytes are a header
 * only its owner writes (struct smcd_ivsh_header).
 *
 * Trust: everything read from the region, or from another VM's header, is
 * a number to show, never an address, a length or an index used as such.
 * A peer ID from IVPosition is checked against ivshmem_peers before it
 * picks our partition.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/interrupt.h>
#include <linux/io.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/seq_file.h>
#include <linux/workqueue.h>

#include "smcd_ivshmem.h"

/*
 * Off unless asked for: an ivshmem device may carry another program's
 * shared memory, and binding it means writing our header into its region.
 */
static bool ivshmem;
module_param(ivshmem, bool, 0444);
MODULE_PARM_DESC(ivshmem, "bind QEMU's ivshmem-doorbell devices (PCI 1af4:1110) for SMC-D between VMs (default: off)");

/*
 * How many peers a region is cut for: every VM on one region must load the
 * module with the same value, or their partitions do not line up.
 */
static unsigned int ivshmem_peers = 2;
module_param(ivshmem_peers, uint, 0444);
MODULE_PARM_DESC(ivshmem_peers, "partitions of an ivshmem region, one per peer ID (2 to 16, the same in every VM; default 2)");

#define IVSH_REG_IVPOSITION	8
#define IVSH_REG_DOORBELL	12
#define IVSH_VECTORS		2
#define IVSH_MAX_PEERS		16
/* The smallest partition: a header page and room for DMBs. */
#define IVSH_MIN_PART		(64 * 1024)
#define IVSH_MAGIC		0x31485344434d53ULL	/* "SMCDSH1" */
#define IVSH_HEARTBEAT_MS	1000

/* The start of each partition, written by its owner only. */
struct smcd_ivsh_header {
	__le64	magic;
	__le32	peer_id;
	__le32	partitions;
	__le64	heartbeat;	/* counts up every IVSH_HEARTBEAT_MS */
};

struct smcd_ivsh {
	struct list_head	list;		/* smcd_ivsh_devs */
	struct pci_dev		*pdev;
	void __iomem		*regs;		/* BAR0 */
	void			*region;	/* BAR2, mapped write-back */
	resource_size_t		size;
	resource_size_t		part_size;
	u16			id;		/* IVPosition */
	u64			beats;
	struct delayed_work	beat;
	atomic64_t		irqs[IVSH_VECTORS];
};

static LIST_HEAD(smcd_ivsh_devs);
static DEFINE_MUTEX(smcd_ivsh_lock);	/* the list, for debugfs */

static struct smcd_ivsh_header *smcd_ivsh_part(struct smcd_ivsh *iv, unsigned int i)
{
	return iv->region + (size_t)i * iv->part_size;
}

static void smcd_ivsh_heartbeat(struct work_struct *work)
{
	struct smcd_ivsh *iv = container_of(to_delayed_work(work), struct smcd_ivsh, beat);
	struct smcd_ivsh_header *h = smcd_ivsh_part(iv, iv->id);

	WRITE_ONCE(h->heartbeat, cpu_to_le64(++iv->beats));
	schedule_delayed_work(&iv->beat, msecs_to_jiffies(IVSH_HEARTBEAT_MS));
}

static irqreturn_t smcd_ivsh_irq(int irq, void *arg)
{
	atomic64_t *count = arg;

	/* Step 1 only counts; the scan of the signal bitmap comes with DMBs. */
	atomic64_inc(count);
	return IRQ_HANDLED;
}

static int smcd_ivsh_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct smcd_ivsh_header *h;
	struct smcd_ivsh *iv;
	u32 pos;
	int rc, v;

	iv = devm_kzalloc(&pdev->dev, sizeof(*iv), GFP_KERNEL);
	if (!iv)
		return -ENOMEM;
	iv->pdev = pdev;
	rc = pcim_enable_device(pdev);
	if (rc)
		return rc;
	rc = pcim_iomap_regions(pdev, BIT(0), KBUILD_MODNAME);
	if (rc)
		return rc;
	iv->regs = pcim_iomap_table(pdev)[0];
	iv->size = pci_resource_len(pdev, 2);
	if (!iv->size || iv->size / ivshmem_peers < IVSH_MIN_PART) {
		dev_err(&pdev->dev, "ivshmem: a region of %pa bytes is too small for %u peers\n",
			&iv->size, ivshmem_peers);
		return -ENOSPC;
	}
	iv->part_size = rounddown(iv->size / ivshmem_peers, PAGE_SIZE);
	/*
	 * Only a device configured for interrupts has a server and so a
	 * peer ID; one without MSI-X (ivshmem-plain) is not ours.
	 */
	if (!pdev->msix_cap) {
		dev_err(&pdev->dev, "ivshmem: no MSI-X, so no doorbells (ivshmem-plain?)\n");
		return -ENODEV;
	}
	pos = ioread32(iv->regs + IVSH_REG_IVPOSITION);
	if (pos >= ivshmem_peers) {
		dev_err(&pdev->dev, "ivshmem: peer ID %u, but the region is cut for %u peers (ivshmem_peers)\n",
			pos, ivshmem_peers);
		return -ERANGE;
	}
	iv->id = pos;
	/* Managed, as the device is: released when the driver lets go. */
	rc = pci_request_region(pdev, 2, KBUILD_MODNAME);
	if (rc)
		return rc;
	iv->region = devm_memremap(&pdev->dev, pci_resource_start(pdev, 2), iv->size,
				   MEMREMAP_WB);
	if (IS_ERR(iv->region))
		return PTR_ERR(iv->region);
	/*
	 * An MSI-X interrupt is a memory write by the device: without bus
	 * mastering QEMU drops it, and no doorbell would ever arrive.
	 */
	pci_set_master(pdev);
	rc = pci_alloc_irq_vectors(pdev, IVSH_VECTORS, IVSH_VECTORS, PCI_IRQ_MSIX);
	if (rc < 0)
		return rc;
	for (v = 0; v < IVSH_VECTORS; v++) {
		rc = devm_request_irq(&pdev->dev, pci_irq_vector(pdev, v), smcd_ivsh_irq, 0,
				      KBUILD_MODNAME "-ivshmem", &iv->irqs[v]);
		if (rc)
			return rc;	/* devres frees the vectors and the irqs */
	}

	/* Our header: what the other VMs may read of us. */
	h = smcd_ivsh_part(iv, iv->id);
	WRITE_ONCE(h->peer_id, cpu_to_le32(iv->id));
	WRITE_ONCE(h->partitions, cpu_to_le32(ivshmem_peers));
	WRITE_ONCE(h->heartbeat, 0);
	smp_wmb();	/* the fields before the magic that vouches for them */
	WRITE_ONCE(h->magic, cpu_to_le64(IVSH_MAGIC));
	INIT_DELAYED_WORK(&iv->beat, smcd_ivsh_heartbeat);
	schedule_delayed_work(&iv->beat, 0);

	pci_set_drvdata(pdev, iv);
	mutex_lock(&smcd_ivsh_lock);
	list_add_tail(&iv->list, &smcd_ivsh_devs);
	mutex_unlock(&smcd_ivsh_lock);
	dev_info(&pdev->dev, "ivshmem: peer ID %u, region %pa bytes, partitions of %pa\n",
		 iv->id, &iv->size, &iv->part_size);
	return 0;
}

static void smcd_ivsh_remove(struct pci_dev *pdev)
{
	struct smcd_ivsh *iv = pci_get_drvdata(pdev);

	mutex_lock(&smcd_ivsh_lock);
	list_del(&iv->list);
	mutex_unlock(&smcd_ivsh_lock);
	cancel_delayed_work_sync(&iv->beat);
	/* Gone, for whoever reads our header next. */
	WRITE_ONCE(smcd_ivsh_part(iv, iv->id)->magic, 0);
	/* devres then frees the irqs, the vectors and both mappings. */
}

static const struct pci_device_id smcd_ivsh_ids[] = {
	{ PCI_DEVICE(PCI_VENDOR_ID_REDHAT_QUMRANET, 0x1110) },
	{ }
};
MODULE_DEVICE_TABLE(pci, smcd_ivsh_ids);

static struct pci_driver smcd_ivsh_driver = {
	.name		= KBUILD_MODNAME "-ivshmem",
	.id_table	= smcd_ivsh_ids,
	.probe		= smcd_ivsh_probe,
	.remove		= smcd_ivsh_remove,
};

void smcd_ivshmem_show(struct seq_file *m)
{
	struct smcd_ivsh *iv;
	unsigned int i, v;

	mutex_lock(&smcd_ivsh_lock);
	list_for_each_entry(iv, &smcd_ivsh_devs, list) {
		seq_printf(m, "%s id %u size %llu partitions %u irqs", pci_name(iv->pdev), iv->id,
			   (u64)iv->size, ivshmem_peers);
		for (v = 0; v < IVSH_VECTORS; v++)
			seq_printf(m, " %lld", (s64)atomic64_read(&iv->irqs[v]));
		seq_putc(m, '\n');
		/* Numbers as read, once each: the region is the peers' too. */
		for (i = 0; i < ivshmem_peers; i++) {
			struct smcd_ivsh_header *h = smcd_ivsh_part(iv, i);
			u64 magic = le64_to_cpu(READ_ONCE(h->magic));

			seq_printf(m, "  peer %u %s heartbeat %llu\n", i,
				   magic == IVSH_MAGIC ? "up" : "absent",
				   magic == IVSH_MAGIC ? le64_to_cpu(READ_ONCE(h->heartbeat)) : 0);
		}
	}
	mutex_unlock(&smcd_ivsh_lock);
}

/* Debugfs "ring PEER VECTOR": the first device's doorbell, for the tests. */
int smcd_ivshmem_ring(unsigned int peer, unsigned int vector)
{
	struct smcd_ivsh *iv;
	int rc = -ENODEV;

	if (peer >= ivshmem_peers || vector >= IVSH_VECTORS)
		return -EINVAL;
	mutex_lock(&smcd_ivsh_lock);
	iv = list_first_entry_or_null(&smcd_ivsh_devs, struct smcd_ivsh, list);
	if (iv) {
		iowrite32(peer << 16 | vector, iv->regs + IVSH_REG_DOORBELL);
		rc = 0;
	}
	mutex_unlock(&smcd_ivsh_lock);
	return rc;
}

int smcd_ivshmem_init(void)
{
	if (!ivshmem)
		return 0;
	if (ivshmem_peers < 2 || ivshmem_peers > IVSH_MAX_PEERS) {
		pr_err("ivshmem_peers=%u: 2 to %u, please\n", ivshmem_peers, IVSH_MAX_PEERS);
		return -EINVAL;
	}
	return pci_register_driver(&smcd_ivsh_driver);
}

void smcd_ivshmem_exit(void)
{
	if (ivshmem)
		pci_unregister_driver(&smcd_ivsh_driver);
}
