// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* The FLUSH access rights, IB_ACCESS_FLUSH_GLOBAL/_PERSISTENT (6.2). */
#include <rdma/ib_verbs.h>

const int probe_access_flush = IB_ACCESS_FLUSH_GLOBAL |
			       IB_ACCESS_FLUSH_PERSISTENT;
