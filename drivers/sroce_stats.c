// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * sroce port counters: read from the firmware with QUERY_STATS, shown by
 * `rdma statistic` (hw_counters) under the names rdma_rxe and mlx5 users
 * know (with mlx5's per-priority flow-control counters, from
 * QUERY_PFC_STATS), and answered to Performance Management GETs (the PMA), which
 * ib_core turns into ports/N/counters/ (port_xmit_data and the rest, as
 * on every HCA) and which perfquery can ask for over the wire.
 */
#include <linux/minmax.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_pma.h>
#include "sroce.h"

/* hw_counters: the port counters, then PFC's per priority, then PFC's port-wide */
#define SROCE_HW_PFC_PRIO(prio, stat) \
	(SROCE_NUM_STATS + (prio) * SROCE_PFC_NUM_PRIO_STATS + (stat))
#define SROCE_HW_PFC_PORT(stat) \
	(SROCE_HW_PFC_PRIO(SROCE_NUM_PRIO, 0) + (stat))
#define SROCE_HW_NUM_STATS	SROCE_HW_PFC_PORT(SROCE_PFC_NUM_PORT_STATS)

/* "rx_prio3_pause" and the rest, written by sroce_stats_init() */
static const char *const sroce_pfc_prio_formats[SROCE_PFC_NUM_PRIO_STATS] = {
	[SROCE_PFC_RX_PAUSE] = "rx_prio%u_pause",
	[SROCE_PFC_RX_PAUSE_DURATION] = "rx_prio%u_pause_duration",
	[SROCE_PFC_RX_PAUSE_TRANSITION] = "rx_prio%u_pause_transition",
	[SROCE_PFC_TX_PAUSE] = "tx_prio%u_pause",
	[SROCE_PFC_TX_PAUSE_DURATION] = "tx_prio%u_pause_duration",
	[SROCE_PFC_RX_BUF_DISCARD] = "rx_prio%u_buf_discard",
};

static char sroce_pfc_prio_names[SROCE_NUM_PRIO][SROCE_PFC_NUM_PRIO_STATS][32];

static struct rdma_stat_desc sroce_stat_descs[SROCE_HW_NUM_STATS] = {
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
	[SROCE_STAT_TX_BYTES].name = "sent_bytes",
	[SROCE_STAT_RX_BYTES].name = "rcvd_bytes",
	[SROCE_STAT_NP_ECN_MARKED].name = "np_ecn_marked_roce_packets",
	[SROCE_STAT_NP_CNP_SENT].name = "np_cnp_sent",
	[SROCE_STAT_RP_CNP_HANDLED].name = "rp_cnp_handled",
	[SROCE_STAT_RP_CNP_IGNORED].name = "rp_cnp_ignored",
	[SROCE_STAT_TX_TRAINS].name = "tx_trains",
	[SROCE_STAT_RX_TRAINS].name = "rx_trains",
	[SROCE_HW_PFC_PORT(SROCE_PFC_RX_PAUSE_CTRL_PHY)].name =
		"rx_pause_ctrl_phy",
	[SROCE_HW_PFC_PORT(SROCE_PFC_TX_PAUSE_CTRL_PHY)].name =
		"tx_pause_ctrl_phy",
	[SROCE_HW_PFC_PORT(SROCE_PFC_TX_PAUSE_STORM_WARNING)].name =
		"tx_pause_storm_warning_events",
	[SROCE_HW_PFC_PORT(SROCE_PFC_TX_PAUSE_STORM_ERROR)].name =
		"tx_pause_storm_error_events",
};

/**
 * sroce_stats_init() - name the per-priority counters (once, at module
 * load, before any device registers)
 */
void sroce_stats_init(void)
{
	unsigned int prio, i;

	for (prio = 0; prio < SROCE_NUM_PRIO; prio++)
		for (i = 0; i < SROCE_PFC_NUM_PRIO_STATS; i++) {
			char *name = sroce_pfc_prio_names[prio][i];

			snprintf(name, sizeof(sroce_pfc_prio_names[0][0]),
				 sroce_pfc_prio_formats[i], prio);
			sroce_stat_descs[SROCE_HW_PFC_PRIO(prio, i)].name = name;
		}
}

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
	return rdma_alloc_hw_stats_struct(sroce_stat_descs, SROCE_HW_NUM_STATS,
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
	struct sroce_pfc_stats_req preq = {};
	struct sroce_query_stats_resp resp;
	struct sroce_pfc_stats_resp presp;
	unsigned int i, prio;
	int err;

	err = sroce_cmd_exec(to_sdev(ibdev), SROCE_CMD_QUERY_STATS, NULL, 0,
			     &resp, sizeof(resp));
	if (err)
		return err;
	for (i = 0; i < SROCE_NUM_STATS; i++)
		stats->value[i] = le64_to_cpu(resp.counter[i]);
	for (prio = 0; prio < SROCE_NUM_PRIO; prio++) {
		preq.prio = prio;
		err = sroce_cmd_exec(to_sdev(ibdev), SROCE_CMD_QUERY_PFC_STATS,
				     &preq, sizeof(preq), &presp, sizeof(presp));
		if (err)
			return err;
		for (i = 0; i < SROCE_PFC_NUM_PRIO_STATS; i++)
			stats->value[SROCE_HW_PFC_PRIO(prio, i)] =
				le64_to_cpu(presp.prio[i]);
	}
	for (i = 0; i < SROCE_PFC_NUM_PORT_STATS; i++)
		stats->value[SROCE_HW_PFC_PORT(i)] = le64_to_cpu(presp.port[i]);
	return SROCE_HW_NUM_STATS;
}

static u64 sroce_stat(const struct sroce_query_stats_resp *st,
		      enum sroce_stat stat)
{
	return le64_to_cpu(st->counter[stat]);
}

/*
 * PortCounters: 16- and 32-bit counters, which stop at their maximum.
 * Data counters count 4-byte words (IBA 16.1.3.5).
 */
static void sroce_pma_counters(const struct sroce_query_stats_resp *st,
			       struct ib_pma_portcounters *pc)
{
	u64 rcv_errors = sroce_stat(st, SROCE_STAT_RX_ICRC_ERR) +
			 sroce_stat(st, SROCE_STAT_RX_MALFORMED);
	u64 discards = sroce_stat(st, SROCE_STAT_TX_NO_MEM);

	pc->port_rcv_errors = cpu_to_be16(min_t(u64, rcv_errors, U16_MAX));
	pc->port_xmit_discards = cpu_to_be16(min_t(u64, discards, U16_MAX));
	pc->port_xmit_data =
		cpu_to_be32(min_t(u64, sroce_stat(st, SROCE_STAT_TX_BYTES) / 4,
				  U32_MAX));
	pc->port_rcv_data =
		cpu_to_be32(min_t(u64, sroce_stat(st, SROCE_STAT_RX_BYTES) / 4,
				  U32_MAX));
	pc->port_xmit_packets =
		cpu_to_be32(min_t(u64, sroce_stat(st, SROCE_STAT_TX_PKTS),
				  U32_MAX));
	pc->port_rcv_packets =
		cpu_to_be32(min_t(u64, sroce_stat(st, SROCE_STAT_RX_PKTS),
				  U32_MAX));
}

/* PortCountersExt: the 64-bit data and packet counters. */
static void sroce_pma_counters_ext(const struct sroce_query_stats_resp *st,
				   struct ib_pma_portcounters_ext *pc)
{
	pc->port_xmit_data = cpu_to_be64(sroce_stat(st, SROCE_STAT_TX_BYTES) / 4);
	pc->port_rcv_data = cpu_to_be64(sroce_stat(st, SROCE_STAT_RX_BYTES) / 4);
	pc->port_xmit_packets = cpu_to_be64(sroce_stat(st, SROCE_STAT_TX_PKTS));
	pc->port_rcv_packets = cpu_to_be64(sroce_stat(st, SROCE_STAT_RX_PKTS));
}

/*
 * Answer one PerfMgmt GET into @out: ClassPortInfo, PortCounters,
 * PortCountersExt. Anything else is answered with the MAD status the IBA
 * gives it. Return: the MAD status, or -errno if the counters could not
 * be read.
 */
static int sroce_pma_get(struct sroce_dev *sdev, const struct ib_pma_mad *in,
			 struct ib_pma_mad *out)
{
	struct sroce_query_stats_resp st;
	u8 port_select = in->data[1];
	struct ib_class_port_info *cpi;
	int err;

	if (in->mad_hdr.attr_id == IB_PMA_CLASS_PORT_INFO) {
		cpi = (struct ib_class_port_info *)out->data;
		cpi->base_version = 1;
		cpi->class_version = 1;
		/*
		 * 64-bit data and packet counters, without the unicast and
		 * multicast split (IETF MIB), which the firmware does not
		 * count: ib_core then shows no counter that would read 0.
		 */
		cpi->capability_mask = IB_PMA_CLASS_CAP_EXT_WIDTH_NOIETF;
		return IB_MGMT_MAD_STATUS_SUCCESS;
	}
	if (in->mad_hdr.attr_id != IB_PMA_PORT_COUNTERS &&
	    in->mad_hdr.attr_id != IB_PMA_PORT_COUNTERS_EXT)
		return IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD_ATTRIB;
	/* PortSelect: our one port, or 0xFF for all of them. */
	out->data[1] = port_select;
	if (port_select != SROCE_FW_NUM_PORTS && port_select != 0xff)
		return IB_MGMT_MAD_STATUS_INVALID_ATTRIB_VALUE;
	err = sroce_cmd_exec(sdev, SROCE_CMD_QUERY_STATS, NULL, 0, &st,
			     sizeof(st));
	if (err)
		return err;
	if (in->mad_hdr.attr_id == IB_PMA_PORT_COUNTERS)
		sroce_pma_counters(&st, (struct ib_pma_portcounters *)out->data);
	else
		sroce_pma_counters_ext(&st,
				       (struct ib_pma_portcounters_ext *)out->data);
	return IB_MGMT_MAD_STATUS_SUCCESS;
}

/**
 * sroce_process_mad() - ib_device_ops.process_mad: the port's PMA
 * @ibdev: the device
 * @mad_flags: unused
 * @port_num: the port the MAD is for
 * @in_wc: the MAD's completion, NULL for ib_core's own queries
 * @in_grh: its GRH, if any
 * @in: the MAD
 * @out: the reply
 * @out_mad_size: the reply's size
 * @out_mad_pkey_index: unused
 *
 * Answers Performance Management GETs from the port counters; every other
 * MAD is left to ib_core's agents.
 *
 * Context: process context for PerfMgmt MADs (ib_core's sysfs, or the MAD
 * layer's receive work), where it sleeps (QUERY_STATS); MADs of other
 * classes, which may come from atomic context, return at once.
 * Return: IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_REPLY with a reply in
 * @out; IB_MAD_RESULT_SUCCESS for a MAD not the PMA's; 0 (failure) to
 * ib_core's own query (@in_wc NULL) when the counters cannot be read, so
 * that sysfs reports an error rather than zeros. A query from the wire
 * then gets the status "busy".
 */
int sroce_process_mad(struct ib_device *ibdev, int mad_flags, u32 port_num,
		      const struct ib_wc *in_wc, const struct ib_grh *in_grh,
		      const struct ib_mad *in, struct ib_mad *out,
		      size_t *out_mad_size, u16 *out_mad_pkey_index)
{
	const struct ib_pma_mad *pin = (const struct ib_pma_mad *)in;
	struct ib_pma_mad *pout = (struct ib_pma_mad *)out;
	int status;

	BUILD_BUG_ON(sizeof(*pin) != sizeof(*in));
	if (in->mad_hdr.mgmt_class != IB_MGMT_CLASS_PERF_MGMT ||
	    port_num != SROCE_FW_NUM_PORTS)
		return IB_MAD_RESULT_SUCCESS;
	/* A reply only to a GET: responses and traps are not the PMA's. */
	if (in->mad_hdr.method != IB_MGMT_METHOD_GET &&
	    in->mad_hdr.method != IB_MGMT_METHOD_SET)
		return IB_MAD_RESULT_SUCCESS;
	memset(pout, 0, sizeof(*pout));
	pout->mad_hdr = in->mad_hdr;
	pout->mad_hdr.method = IB_MGMT_METHOD_GET_RESP;
	if (in->mad_hdr.base_version != IB_MGMT_BASE_VERSION ||
	    in->mad_hdr.class_version != 1)
		status = IB_MGMT_MAD_STATUS_BAD_VERSION;
	else if (in->mad_hdr.method == IB_MGMT_METHOD_SET)
		/* Counters are not cleared: `rdma statistic` shows them too. */
		status = IB_MGMT_MAD_STATUS_UNSUPPORTED_METHOD_ATTRIB;
	else
		status = sroce_pma_get(to_sdev(ibdev), pin, pout);
	if (status < 0) {
		if (!in_wc)
			return 0;
		status = IB_MGMT_MAD_STATUS_BUSY;
	}
	pout->mad_hdr.status = cpu_to_be16(status);
	*out_mad_size = sizeof(*out);
	return IB_MAD_RESULT_SUCCESS | IB_MAD_RESULT_REPLY;
}
