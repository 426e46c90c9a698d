// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* reg_user_mr takes a DMA handle before the udata (6.17). */
#include <rdma/ib_verbs.h>

static struct ib_mr *probe_reg(struct ib_pd *pd, u64 start, u64 len, u64 va,
			       int access, struct ib_dmah *dmah,
			       struct ib_udata *udata)
{
	return NULL;
}

const struct ib_device_ops probe_ops = { .reg_user_mr = probe_reg };
