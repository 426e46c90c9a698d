// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The unbound system workqueue is system_dfl_wq (6.18, backported by
 * distributions); system_unbound_wq, which 7.x warns about, before.
 */
#include <linux/workqueue.h>

bool probe_system_dfl_wq(struct work_struct *work)
{
	return queue_work(system_dfl_wq, work);
}
