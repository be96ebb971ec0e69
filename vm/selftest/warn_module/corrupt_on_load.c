// SPDX-License-Identifier: GPL-2.0
/*
 * A module that exists only to be a failing test: loading it writes to
 * memory it has just freed, which the test kernel's detectors must report
 * (vm/run: slub_debug=FZP, page_poison=1). The harness self-test loads it
 * and expects vm/run to fail the run. Never shipped, never loaded outside
 * that test.
 *
 *   what=slab  a byte of a freed object of a cache of our own; allocating
 *              from the cache again checks the object's poison (SLUB reports
 *              "Poison overwritten" and taints the kernel)
 *   what=page  a byte of a freed page; the page allocator hands the page out
 *              again at once (the per-CPU free list is last in, first out)
 *              and checks its poison ("pagealloc: memory corruption")
 */
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>

static char what[8] = "slab";
module_param_string(what, what, sizeof(what), 0444);
MODULE_PARM_DESC(what, "slab or page: the memory written after its free");

static void corrupt_slab(void)
{
	struct kmem_cache *cache;
	u8 *obj;

	cache = kmem_cache_create("smc_selftest_uaf", 64, 0, 0, NULL);
	if (!cache)
		return;
	obj = kmem_cache_alloc(cache, GFP_KERNEL);
	if (obj) {
		kmem_cache_free(cache, obj);
		WRITE_ONCE(obj[8], 0x42);	/* the deliberate use after free */
		obj = kmem_cache_alloc(cache, GFP_KERNEL);
		if (obj)
			kmem_cache_free(cache, obj);
	}
	/*
	 * Not destroyed: SLUB marks every object of the corrupted slab used,
	 * and kmem_cache_destroy() would WARN about them, which would fail
	 * the run for another reason than the one under test (the taint).
	 */
}

static void corrupt_page(void)
{
	struct page *page;
	u8 *addr;

	/* One CPU throughout, so the page comes back from its free list. */
	preempt_disable();
	page = alloc_page(GFP_ATOMIC);
	if (page) {
		addr = page_address(page);
		__free_page(page);
		WRITE_ONCE(addr[8], 0x42);	/* the deliberate use after free */
		page = alloc_page(GFP_ATOMIC);
		if (page)
			__free_page(page);
	}
	preempt_enable();
}

static int __init corrupt_on_load_init(void)
{
	if (!strcmp(what, "page"))
		corrupt_page();
	else
		corrupt_slab();
	return 0;
}

static void __exit corrupt_on_load_exit(void)
{
}

module_init(corrupt_on_load_init);
module_exit(corrupt_on_load_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("smc-linux harness self-test: a deliberate write after free");
