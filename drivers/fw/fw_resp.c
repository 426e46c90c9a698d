// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * sroce firmware: the responder. Received packets are handed to the QP
 * their BTH names; each consumes WQEs of the QP's receive ring, which is
 * copied and validated first, exactly as on the send side.
 *
 * Implemented so far: UD (and GSI) receives. Packets for RC and UC QPs
 * are counted and dropped until the reliable transport lands.
 */
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <rdma/ib_verbs.h>

#include "fw.h"
#include "lib/qp_state.h"
#include "lib/ring.h"

/* The 40 bytes a UD receive buffer starts with (IBA 11.4.1.1). */
#define SROCE_GRH_LEN		40

/* Copy the receive WQE at the consumer index; validate its SGE count. */
static int sroce_fw_fetch_rwqe(struct sroce_fw_qp *qp)
{
	memcpy(qp->rwqe, sroce_ring_slot(qp->rq, qp->rq_cons, qp->rq_mask,
					 qp->rq_log2_elem),
	       BIT(qp->rq_log2_elem));
	return qp->rwqe->dma.num_sge > qp->max_recv_sge ? -EINVAL : 0;
}

/*
 * Scatter @len bytes of @src into the receive WQE's buffers, @offset bytes
 * in. Return: 0, or -EACCES for a bad key or range.
 */
static int sroce_fw_scatter(struct sroce_fw_dev *fw, struct sroce_fw_qp *qp,
			    u64 offset, const u8 *src, u64 len)
{
	const struct rxe_recv_wqe *wqe = qp->rwqe;
	struct sroce_fw_mr *mr;
	u32 i;

	for (i = 0; i < wqe->dma.num_sge && len; i++) {
		const struct rxe_sge *sge = &wqe->dma.sge[i];
		u64 n;

		if (offset >= sge->length) {
			offset -= sge->length;
			continue;
		}
		n = min_t(u64, len, sge->length - offset);
		mr = sroce_fw_mr_lookup(fw, sge->lkey, qp->pdn,
					SROCE_ACCESS_LOCAL_WRITE,
					sge->addr + offset, n);
		if (!mr)
			return -EACCES;
		sroce_fw_mr_copy(mr, sge->addr + offset, (void *)src, n, true);
		src += n;
		len -= n;
		offset = 0;
	}
	return len ? -EACCES : 0;
}

/* The GRH image a UD receiver finds first in its buffer. */
static void sroce_fw_grh_image(const struct sroce_fw_pkt *pkt,
			       u8 grh[SROCE_GRH_LEN])
{
	memset(grh, 0, SROCE_GRH_LEN);
	if (pkt->net_type == SROCE_NET_IPV4)
		/* RoCE v2 over IPv4: the IPv4 header in the last 20 bytes. */
		memcpy(grh + 20, ip_hdr(pkt->skb), sizeof(struct iphdr));
	else
		memcpy(grh, ipv6_hdr(pkt->skb), sizeof(struct ipv6hdr));
}

static void sroce_fw_recv_ud(struct sroce_fw_dev *fw, struct sroce_fw_qp *qp,
			     struct sroce_fw_pkt *pkt)
{
	const struct sroce_roce_info *info = &pkt->info;
	struct ib_uverbs_wc wc = {
		.status = IB_WC_SUCCESS,
		.opcode = IB_WC_RECV,
		.qp_num = qp->qpn,
		.wc_flags = IB_WC_GRH,
		.port_num = 1,
	};
	u8 grh[SROCE_GRH_LEN];
	u64 capacity = 0;
	u32 prod, qkey, i;

	/* UD carries SEND ONLY, with or without immediate, and nothing else. */
	if (info->opcode != 0x64 && info->opcode != 0x65)
		return;
	qkey = sroce_deth_qkey(pkt->hdr + info->off[SROCE_EXT_DETH]);

	spin_lock_bh(&qp->lock);
	if (qp->attr.state != SROCE_QPS_RTR &&
	    qp->attr.state != SROCE_QPS_RTS)
		goto out_unlock;
	if (qkey != le32_to_cpu(qp->attr.qkey))
		goto out_unlock;
	/* Acquire: the WQEs before the producer index are complete. */
	prod = smp_load_acquire(&qp->rq->producer_index) & qp->rq_mask;
	if (qp->rq_cons == prod)
		goto out_unlock;	/* no receive posted: UD drops */

	if (sroce_fw_fetch_rwqe(qp)) {
		wc.status = IB_WC_LOC_LEN_ERR;
		goto out_complete;
	}
	wc.wr_id = qp->rwqe->wr_id;
	for (i = 0; i < qp->rwqe->dma.num_sge; i++)
		capacity += qp->rwqe->dma.sge[i].length;
	if (capacity < SROCE_GRH_LEN + info->payload_len) {
		wc.status = IB_WC_LOC_LEN_ERR;
		goto out_complete;
	}

	sroce_fw_grh_image(pkt, grh);
	rcu_read_lock();
	if (sroce_fw_scatter(fw, qp, 0, grh, SROCE_GRH_LEN) ||
	    sroce_fw_scatter(fw, qp, SROCE_GRH_LEN,
			     pkt->hdr + info->payload_off, info->payload_len))
		wc.status = IB_WC_LOC_PROT_ERR;
	rcu_read_unlock();

	wc.byte_len = SROCE_GRH_LEN + info->payload_len;
	wc.src_qp = sroce_deth_sqp(pkt->hdr + info->off[SROCE_EXT_DETH]);
	if (info->op->flags & SROCE_OPF_IMM) {
		wc.wc_flags |= IB_WC_WITH_IMM;
		/* Immediate data stays in network byte order. */
		memcpy(&wc.ex.imm_data, pkt->hdr + info->off[SROCE_EXT_IMMDT],
		       sizeof(wc.ex.imm_data));
	}
out_complete:
	qp->rq_cons = sroce_ring_next(qp->rq_cons, qp->rq_mask);
	/* Release: the slot is the producer's again. */
	smp_store_release(&qp->rq->consumer_index, qp->rq_cons);
	sroce_fw_cq_post(fw, qp->rcq, &wc, info->se);
out_unlock:
	spin_unlock_bh(&qp->lock);
}

/**
 * sroce_fw_recv() - hand a received packet to its queue pair
 * @fw: the function owning the destination address
 * @pkt: the parsed packet; the skb stays the caller's
 *
 * Context: softirq, rcu_read_lock() held.
 */
void sroce_fw_recv(struct sroce_fw_dev *fw, struct sroce_fw_pkt *pkt)
{
	struct sroce_fw_qp *qp;

	qp = xa_load(&fw->qps, pkt->info.qpn);
	if (!qp)
		return;
	switch (qp->type) {
	case SROCE_QPT_UD:
	case SROCE_QPT_GSI:
		sroce_fw_recv_ud(fw, qp, pkt);
		break;
	default:
		break;
	}
}
