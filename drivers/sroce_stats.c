// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * sroce port counters for `rdma statistic`: read from the firmware with
 * QUERY_STATS, named the way rdma_rxe and mlx5 users know them.
 */
#include "sroce.h"

static const struct rdma_stat_desc sroce_stat_descs[SROCE_NUM_STATS] = {
	[SROCE_STAT_TX_PKTS].name = "sent_pkts",
	[SROCE_STAT_RX_PKTS].name = "rcvd_pkts",
	[SROCE_STAT_RX_ICRC_ERR].name = "rx_icrc_encapsulated",
	[SROCE_STAT_RX_MALFORMED].name = "rx_malformed",
	[SROCE_STAT_RX_NO_QP].name = "rx_no_qp",
	[SROCE_STAT_DUP_REQ].name = "duplicate_request",
	[SROCE_STAT_OUT_OF_SEQ].name = "out_of_sequence",
	[SROCE_STAT_SEQ_NAK_RCVD].name = "packet_seq_err",
	[SROCE_STAT_RNR_NAK_SENT].name = "send_rnr_err",
	[SROCE_STAT_RNR_NAK_RCVD].name = "rcvd_rnr_err",
	[SROCE_STAT_ACK_TIMEOUT].name = "local_ack_timeout_err",
	[SROCE_STAT_RETRY_EXC].name = "retry_exceeded_err",
	[SROCE_STAT_RNR_RETRY_EXC].name = "rnr_nak_retry_err",
	[SROCE_STAT_RX_READ_REQ].name = "rx_read_requests",
	[SROCE_STAT_RX_WRITE_REQ].name = "rx_write_requests",
	[SROCE_STAT_RX_ATOMIC_REQ].name = "rx_atomic_requests",
	[SROCE_STAT_UD_NO_WQE].name = "rx_ud_no_wqe",
	[SROCE_STAT_RX_QP_REFUSED].name = "rx_qp_refused",
	[SROCE_STAT_EQ_DEFERRED].name = "eq_events_deferred",
	[SROCE_STAT_TX_NO_MEM].name = "tx_no_mem",
	[SROCE_STAT_ODP_PAGE_FAULTS].name = "page_faults",
	[SROCE_STAT_ODP_INVALIDATIONS].name = "page_invalidations",
};

/**
 * sroce_alloc_hw_port_stats() - ib_device_ops.alloc_hw_port_stats
 * @ibdev: the device
 * @port: the port
 *
 * Return: the counter set, or NULL.
 */
struct rdma_hw_stats *sroce_alloc_hw_port_stats(struct ib_device *ibdev,
						u32 port)
{
	return rdma_alloc_hw_stats_struct(sroce_stat_descs, SROCE_NUM_STATS,
					  RDMA_HW_STATS_DEFAULT_LIFESPAN);
}

/**
 * sroce_get_hw_stats() - ib_device_ops.get_hw_stats
 * @ibdev: the device
 * @stats: filled in
 * @port: the port
 * @index: the counter asked for (all are refreshed)
 *
 * Return: the number of counters, or a negative errno.
 */
int sroce_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
		       u32 port, int index)
{
	struct sroce_query_stats_resp resp;
	unsigned int i;
	int err;

	err = sroce_cmd_exec(to_sdev(ibdev), SROCE_CMD_QUERY_STATS, NULL, 0,
			     &resp, sizeof(resp));
	if (err)
		return err;
	for (i = 0; i < SROCE_NUM_STATS; i++)
		stats->value[i] = le64_to_cpu(resp.counter[i]);
	return SROCE_NUM_STATS;
}
