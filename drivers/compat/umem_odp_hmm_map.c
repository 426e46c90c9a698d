// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * An on-demand paging umem keeps its pages in a struct hmm_dma_map (6.15):
 * map.pfn_list, validity and writability as HMM_PFN_* bits, access masks
 * in HMM_PFN_WRITE; before, pfn_list beside a dma_list whose low bits
 * were ODP_READ_ALLOWED_BIT and ODP_WRITE_ALLOWED_BIT.
 */
#include <linux/stddef.h>
#include <rdma/ib_umem_odp.h>

const size_t probe_umem_odp_hmm_map =
	offsetof(struct ib_umem_odp, map.pfn_list);
