// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * sroce_rcu_probe: a diagnostic module for tools/debug-kernel/rcu-latency.
 * At load it measures, @rounds times, how long an RCU grace period takes
 * to end (polled), how long synchronize_rcu() takes (the grace period and
 * its wake-up callback's invocation), and how long an expedited one does,
 * prints one line each time, and refuses to stay loaded.
 */
#include <linux/delay.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/rcupdate.h>

static unsigned int rounds = 3;
module_param(rounds, uint, 0444);
MODULE_PARM_DESC(rounds, "measurements to make (1-20)");

/* Polling gives up here: a grace period this long is reported as such. */
#define SROCE_RCU_PROBE_MAX_MS	120000

static int __init sroce_rcu_probe_init(void)
{
	unsigned int i;

	if (!rounds || rounds > 20)
		return -EINVAL;
	for (i = 0; i < rounds; i++) {
		unsigned long cookie = start_poll_synchronize_rcu();
		ktime_t t0 = ktime_get();
		s64 polled_ms, sync_ms, exp_ms;

		while (!poll_state_synchronize_rcu(cookie) &&
		       ktime_ms_delta(ktime_get(), t0) < SROCE_RCU_PROBE_MAX_MS)
			usleep_range(5000, 6000);
		polled_ms = ktime_ms_delta(ktime_get(), t0);
		t0 = ktime_get();
		synchronize_rcu();
		sync_ms = ktime_ms_delta(ktime_get(), t0);
		t0 = ktime_get();
		synchronize_rcu_expedited();
		exp_ms = ktime_ms_delta(ktime_get(), t0);
		pr_info("sroce_rcu_probe: grace period %lld ms, synchronize_rcu() %lld ms, expedited %lld ms\n",
			polled_ms, sync_ms, exp_ms);
	}
	/* Measured: nothing to keep loaded. */
	return -EAGAIN;
}
module_init(sroce_rcu_probe_init);

MODULE_DESCRIPTION("sroce diagnostic: RCU grace-period latency");
MODULE_LICENSE("Dual BSD/GPL");
