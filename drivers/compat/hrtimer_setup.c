// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* hrtimer_setup() sets the callback with the clock and mode (6.13). */
#include <linux/hrtimer.h>

static enum hrtimer_restart probe_hrtimer_fn(struct hrtimer *t)
{
	return HRTIMER_NORESTART;
}

void probe_hrtimer_setup(struct hrtimer *t)
{
	hrtimer_setup(t, probe_hrtimer_fn, CLOCK_MONOTONIC,
		      HRTIMER_MODE_ABS_SOFT);
}
