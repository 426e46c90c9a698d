// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The core reports netdev link changes of a device's port itself unless
 * the driver takes them through report_port_event (6.14).
 */
#include <rdma/ib_verbs.h>

static void probe_event(struct ib_device *ibdev, struct net_device *ndev,
			unsigned long event)
{
}

const struct ib_device_ops probe_ops = { .report_port_event = probe_event };
