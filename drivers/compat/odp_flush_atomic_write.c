// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * On-demand paging capabilities name RDMA FLUSH and ATOMIC WRITE (6.15).
 */
#include <rdma/ib_verbs.h>

const int probe_odp_flush_atomic_write =
	IB_ODP_SUPPORT_FLUSH | IB_ODP_SUPPORT_ATOMIC_WRITE;
