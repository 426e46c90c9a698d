// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * RDMA FLUSH (6.2): the access rights, the device capability, the work
 * request and completion opcodes, and the FLUSH fields of rdma_rxe's
 * send WQE that librxe fills in.
 */
#include <linux/stddef.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_user_rxe.h>

const int probe_rdma_flush_access = IB_ACCESS_FLUSH_GLOBAL |
				    IB_ACCESS_FLUSH_PERSISTENT;
const u64 probe_rdma_flush_cap = IB_DEVICE_FLUSH_GLOBAL;
const int probe_rdma_flush_ops = IB_WR_FLUSH + IB_WC_FLUSH;
const size_t probe_rdma_flush_wqe =
	offsetof(struct rxe_send_wr, wr.flush.level);
