// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The debug lanes' positive controls for their kernel-log checks: loaded
 * with fault=NAME, this module makes one checker report once, on
 * purpose, and loads anyway; a run that loads it must fail for that
 * report (tools/debug-kernel/check-control). Never loaded anywhere else.
 *
 *   kasan         a read one byte past a slab object
 *   lockdep       two locks taken in both orders, one after the other
 *   ubsan         a shift by more than the type's width
 *   atomic_sleep  a mutex taken under a spinlock
 *   warn          a WARN
 */
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>

static char *fault = "";
module_param(fault, charp, 0444);
MODULE_PARM_DESC(fault, "the report to cause: kasan, lockdep, ubsan, atomic_sleep or warn");

static DEFINE_MUTEX(sroce_check_probe_a);
static DEFINE_MUTEX(sroce_check_probe_b);
static DEFINE_SPINLOCK(sroce_check_probe_spin);

static int sroce_check_probe_kasan(void)
{
	char *obj = kmalloc(32, GFP_KERNEL);
	unsigned int past = 32;
	char c;

	if (!obj)
		return -ENOMEM;
	memset(obj, 0, 32);
	/* Out of the compiler's sight, so that it cannot see the fault. */
	OPTIMIZER_HIDE_VAR(past);
	c = READ_ONCE(obj[past]);
	kfree(obj);
	pr_info("sroce_check_probe: read %d past a 32-byte object\n", c);
	return 0;
}

static void sroce_check_probe_lockdep(void)
{
	mutex_lock(&sroce_check_probe_a);
	mutex_lock(&sroce_check_probe_b);
	mutex_unlock(&sroce_check_probe_b);
	mutex_unlock(&sroce_check_probe_a);
	/* The other order: no deadlock in one thread, but lockdep says so. */
	mutex_lock(&sroce_check_probe_b);
	mutex_lock(&sroce_check_probe_a);
	mutex_unlock(&sroce_check_probe_a);
	mutex_unlock(&sroce_check_probe_b);
}

static void sroce_check_probe_ubsan(void)
{
	unsigned int v = 1, shift = 40;

	OPTIMIZER_HIDE_VAR(shift);
	v <<= shift;
	pr_info("sroce_check_probe: shifted to %u\n", v);
}

/*
 * A mutex may sleep, so taking one asks might_sleep(), which reports
 * here; uncontended, it does not actually sleep under the spinlock.
 */
static void sroce_check_probe_atomic_sleep(void)
{
	spin_lock(&sroce_check_probe_spin);
	mutex_lock(&sroce_check_probe_a);
	mutex_unlock(&sroce_check_probe_a);
	spin_unlock(&sroce_check_probe_spin);
}

static int __init sroce_check_probe_init(void)
{
	pr_info("sroce_check_probe: fault=%s on purpose\n", fault);
	if (!strcmp(fault, "kasan"))
		return sroce_check_probe_kasan();
	if (!strcmp(fault, "lockdep"))
		sroce_check_probe_lockdep();
	else if (!strcmp(fault, "ubsan"))
		sroce_check_probe_ubsan();
	else if (!strcmp(fault, "atomic_sleep"))
		sroce_check_probe_atomic_sleep();
	else if (!strcmp(fault, "warn"))
		WARN(1, "sroce_check_probe: a WARN on purpose\n");
	else
		return -EINVAL;
	return 0;
}

static void __exit sroce_check_probe_exit(void)
{
}

module_init(sroce_check_probe_init);
module_exit(sroce_check_probe_exit);
MODULE_DESCRIPTION("sroce debug lane: one checker report caused on purpose");
MODULE_LICENSE("Dual BSD/GPL");
