// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The debug lanes' positive control for their leak check: loading this
 * module leaks one object on purpose, so a run that loads it must end
 * with kmemleak reporting it (tools/debug-kernel/leak-control). Never
 * loaded anywhere else.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>

#define SROCE_LEAK_PROBE_SIZE	256

static int __init sroce_leak_probe_init(void)
{
	char *lost = kmalloc(SROCE_LEAK_PROBE_SIZE, GFP_KERNEL);

	if (!lost)
		return -ENOMEM;
	/* Fixed contents: kmemleak reports an object that did not change. */
	memset(lost, 0x5a, SROCE_LEAK_PROBE_SIZE);
	pr_info("sroce_leak_probe: %d bytes leaked on purpose\n",
		SROCE_LEAK_PROBE_SIZE);
	return 0;
}

static void __exit sroce_leak_probe_exit(void)
{
}

module_init(sroce_leak_probe_init);
module_exit(sroce_leak_probe_exit);
MODULE_DESCRIPTION("sroce debug lane: one object leaked on purpose for kmemleak");
MODULE_LICENSE("Dual BSD/GPL");
