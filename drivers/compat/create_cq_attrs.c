// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* create_cq takes the uverbs attribute bundle, not the udata (6.11). */
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>

static int probe_create(struct ib_cq *cq, const struct ib_cq_init_attr *attr,
			struct uverbs_attr_bundle *attrs)
{
	return 0;
}

const struct ib_device_ops probe_ops = { .create_cq = probe_create };
