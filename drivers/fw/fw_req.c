// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * sroce firmware: the requester. The send doorbell schedules a QP's send
 * work, which turns the WQEs of its send ring into packets.
 *
 * Userspace can rewrite its ring at any moment, so each WQE is copied into
 * a private buffer before anything in it is looked at, and everything is
 * validated on that copy: opcode, SGE count, lengths, keys, address
 * handle. Nothing read from the ring is trusted as an index or a size.
 *
 * Implemented so far: UD (and GSI) sends. RC and UC arrive with the
 * completer; their WQEs complete with an error until then.
 */
#include <linux/hash.h>
#include <linux/slab.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_verbs.h>

#include "fw.h"
#include "lib/qp_state.h"
#include "lib/ring.h"

/* Write a completion for the WQE in qp->swqe. */
static void sroce_fw_send_complete(struct sroce_fw_dev *fw,
				   struct sroce_fw_qp *qp, u32 status,
				   u32 byte_len)
{
	const struct rxe_send_wqe *wqe = qp->swqe;
	struct ib_uverbs_wc wc = {
		.wr_id = wqe->wr.wr_id,
		.status = status,
		.opcode = IB_WC_SEND,
		.byte_len = byte_len,
		.qp_num = qp->qpn,
		.port_num = 1,
	};

	if (wqe->wr.opcode == IB_WR_SEND_WITH_IMM)
		wc.wc_flags = IB_WC_WITH_IMM;
	/* Errors and flushes complete whether or not they were signaled. */
	if (status == IB_WC_SUCCESS && !(qp->flags & SROCE_QP_F_SIG_ALL) &&
	    !(wqe->wr.send_flags & IB_SEND_SIGNALED))
		return;
	sroce_fw_cq_post(fw, qp->scq, &wc, false);
}

/* Copy the send WQE at the consumer index; validate its SGE count. */
static int sroce_fw_fetch_swqe(struct sroce_fw_qp *qp)
{
	memcpy(qp->swqe, sroce_ring_slot(qp->sq, qp->sq_cons, qp->sq_mask,
					 qp->sq_log2_elem),
	       BIT(qp->sq_log2_elem));
	if (!(qp->swqe->wr.send_flags & IB_SEND_INLINE) &&
	    qp->swqe->dma.num_sge > qp->max_send_sge)
		return -EINVAL;
	return 0;
}

/* Bytes the WQE sends: computed from the private copy, never trusted. */
static int sroce_fw_swqe_length(struct sroce_fw_qp *qp, u64 *len)
{
	const struct rxe_send_wqe *wqe = qp->swqe;
	u32 i;

	if (wqe->wr.send_flags & IB_SEND_INLINE) {
		if (wqe->dma.length > qp->max_inline)
			return -EINVAL;
		*len = wqe->dma.length;
		return 0;
	}
	*len = 0;
	for (i = 0; i < wqe->dma.num_sge; i++)
		*len += wqe->dma.sge[i].length;
	return 0;
}

/* Gather @len bytes of the WQE's data into @dst. */
static int sroce_fw_gather(struct sroce_fw_dev *fw, struct sroce_fw_qp *qp,
			   u8 *dst, u64 len)
{
	const struct rxe_send_wqe *wqe = qp->swqe;
	struct sroce_fw_mr *mr;
	int err = 0;
	u32 i;

	if (wqe->wr.send_flags & IB_SEND_INLINE) {
		memcpy(dst, wqe->dma.inline_data, len);
		return 0;
	}
	rcu_read_lock();
	for (i = 0; i < wqe->dma.num_sge && !err; i++) {
		const struct rxe_sge *sge = &wqe->dma.sge[i];

		if (!sge->length)
			continue;
		mr = sroce_fw_mr_lookup(fw, sge->lkey, qp->pdn, 0, sge->addr,
					sge->length);
		if (!mr) {
			err = -EACCES;
			break;
		}
		sroce_fw_mr_copy(mr, sge->addr, dst, sge->length, false);
		dst += sge->length;
	}
	rcu_read_unlock();
	return err;
}

/* The address vector a UD WQE sends to. */
static int sroce_fw_ud_av(struct sroce_fw_dev *fw, struct sroce_fw_qp *qp,
			  struct sroce_av *av)
{
	const struct rxe_send_wqe *wqe = qp->swqe;
	u32 ah_num = wqe->wr.wr.ud.ah_num;
	struct sroce_fw_ah *ah;
	int err = 0;

	if (!ah_num) {
		/* Only the driver writes kernel WQEs: it embeds the vector. */
		if (qp->flags & SROCE_QP_F_USER)
			return -EINVAL;
		memcpy(av, &wqe->wr.wr.ud.av, sizeof(*av));
		return 0;
	}
	rcu_read_lock();
	ah = xa_load(&fw->ahs, ah_num);
	if (ah && ah->pdn == qp->pdn)
		*av = ah->av;
	else
		err = -EINVAL;
	rcu_read_unlock();
	return err;
}

/* Send one UD WQE. Return: an IB_WC_* status. */
static u32 sroce_fw_send_ud(struct sroce_fw_dev *fw, struct sroce_fw_qp *qp,
			    u64 *byte_len)
{
	const struct rxe_send_wqe *wqe = qp->swqe;
	struct sroce_roce_fields f = {};
	struct sroce_fw_path path;
	struct sroce_av av;
	struct sk_buff *skb;
	unsigned int pad;
	int hdr_len;
	u64 len;

	if (wqe->wr.opcode != IB_WR_SEND &&
	    wqe->wr.opcode != IB_WR_SEND_WITH_IMM)
		return IB_WC_LOC_QP_OP_ERR;
	if (sroce_fw_swqe_length(qp, &len) ||
	    len > sroce_ib_mtu_bytes(READ_ONCE(fw->port.active_mtu)))
		return IB_WC_LOC_LEN_ERR;
	if (sroce_fw_ud_av(fw, qp, &av) ||
	    sroce_fw_path_from_av(fw, &av, &path))
		return IB_WC_LOC_QP_OP_ERR;
	path.sport = qp->sport;

	f.opcode = wqe->wr.opcode == IB_WR_SEND ? 0x64 : 0x65;
	f.se = wqe->wr.send_flags & IB_SEND_SOLICITED;
	f.pkey = IB_DEFAULT_PKEY_FULL;
	f.qpn = wqe->wr.wr.ud.remote_qpn & 0xffffff;
	f.psn = qp->next_psn;
	/* A Q_Key with the high bit set means "use the QP's" (IBA 10.2.5). */
	f.deth_qkey = wqe->wr.wr.ud.remote_qkey & 0x80000000 ?
		      le32_to_cpu(qp->attr.qkey) : wqe->wr.wr.ud.remote_qkey;
	f.deth_sqp = qp->qpn;
	f.imm = be32_to_cpu((__force __be32)wqe->wr.ex.imm_data);
	f.payload_len = len;
	pad = sroce_roce_pad(len);

	skb = alloc_skb(SROCE_FW_XMIT_HEADROOM + SROCE_ROCE_MAX_HDR_LEN + len +
			pad + 4, GFP_ATOMIC);
	if (!skb)
		return IB_WC_GENERAL_ERR;
	skb_reserve(skb, SROCE_FW_XMIT_HEADROOM);
	hdr_len = sroce_roce_build(skb_tail_pointer(skb),
				   SROCE_ROCE_MAX_HDR_LEN, &f);
	if (hdr_len < 0) {
		kfree_skb(skb);
		return IB_WC_LOC_QP_OP_ERR;
	}
	skb_put(skb, hdr_len);
	if (sroce_fw_gather(fw, qp, skb_put(skb, len), len)) {
		kfree_skb(skb);
		return IB_WC_LOC_PROT_ERR;
	}
	skb_put_zero(skb, pad + 4);

	qp->next_psn = (qp->next_psn + 1) & 0xffffff;
	/* A UD send completes once it is on the wire, delivered or not. */
	sroce_fw_xmit(fw, skb, &path);
	*byte_len = len;
	return IB_WC_SUCCESS;
}

/* ERROR state: complete everything posted with a flush status. */
static void sroce_fw_flush(struct sroce_fw_dev *fw, struct sroce_fw_qp *qp)
{
	struct ib_uverbs_wc wc = {
		.status = IB_WC_WR_FLUSH_ERR,
		.qp_num = qp->qpn,
		.port_num = 1,
	};
	u32 prod;

	/* Acquire: the WQEs before the producer index are complete. */
	prod = smp_load_acquire(&qp->sq->producer_index) & qp->sq_mask;
	while (qp->sq_cons != prod) {
		/* Only the wr_id matters: a bad SGE count is no reason here. */
		sroce_fw_fetch_swqe(qp);
		sroce_fw_send_complete(fw, qp, IB_WC_WR_FLUSH_ERR, 0);
		qp->sq_cons = sroce_ring_next(qp->sq_cons, qp->sq_mask);
	}
	/* Release: the slots are the producer's again. */
	smp_store_release(&qp->sq->consumer_index, qp->sq_cons);

	/* Acquire: as above, for the receive ring. */
	prod = smp_load_acquire(&qp->rq->producer_index) & qp->rq_mask;
	while (qp->rq_cons != prod) {
		const struct rxe_recv_wqe *rwqe =
			sroce_ring_slot(qp->rq, qp->rq_cons, qp->rq_mask,
					qp->rq_log2_elem);

		wc.wr_id = READ_ONCE(rwqe->wr_id);
		wc.opcode = IB_WC_RECV;
		sroce_fw_cq_post(fw, qp->rcq, &wc, false);
		qp->rq_cons = sroce_ring_next(qp->rq_cons, qp->rq_mask);
	}
	/* Release: the receive slots are the producer's again. */
	smp_store_release(&qp->rq->consumer_index, qp->rq_cons);
}

/**
 * sroce_fw_send_work() - the requester of one QP
 * @work: the QP's send_work
 */
void sroce_fw_send_work(struct work_struct *work)
{
	struct sroce_fw_qp *qp = container_of(work, struct sroce_fw_qp,
					      send_work);
	struct sroce_fw_dev *fw = qp->fw;
	u32 prod, status;
	u64 len;

	spin_lock_bh(&qp->lock);
	if (qp->attr.state == SROCE_QPS_ERR) {
		sroce_fw_flush(fw, qp);
		goto out_unlock;
	}
	if (qp->attr.state != SROCE_QPS_RTS)
		goto out_unlock;

	/* Acquire: the WQEs before the producer index are complete. */
	prod = smp_load_acquire(&qp->sq->producer_index) & qp->sq_mask;
	while (qp->sq_cons != prod) {
		len = 0;
		if (sroce_fw_fetch_swqe(qp))
			status = IB_WC_LOC_LEN_ERR;
		else if (qp->type == SROCE_QPT_UD || qp->type == SROCE_QPT_GSI)
			status = sroce_fw_send_ud(fw, qp, &len);
		else
			status = IB_WC_LOC_QP_OP_ERR;
		sroce_fw_send_complete(fw, qp, status, len);
		qp->sq_cons = sroce_ring_next(qp->sq_cons, qp->sq_mask);
		if (status != IB_WC_SUCCESS) {
			/* A local error takes the QP to ERROR (IBA 10.8.3). */
			qp->attr.state = SROCE_QPS_ERR;
			sroce_fw_flush(fw, qp);
			break;
		}
	}
	/* Release: the slots are the producer's again. */
	smp_store_release(&qp->sq->consumer_index, qp->sq_cons);
out_unlock:
	spin_unlock_bh(&qp->lock);
}

/**
 * sroce_fw_ring_sq() - schedule a QP's requester
 * @fw: the function
 * @qp: the QP
 */
void sroce_fw_ring_sq(struct sroce_fw_dev *fw, struct sroce_fw_qp *qp)
{
	queue_work(sroce_fw_wq, &qp->send_work);
}

/**
 * sroce_fw_ring_sq_doorbell() - the send doorbell
 * @fw: the function
 * @qpn: the QP whose send ring has new WQEs
 *
 * Context: any; does not sleep.
 */
void sroce_fw_ring_sq_doorbell(struct sroce_fw_dev *fw, u32 qpn)
{
	struct sroce_fw_qp *qp;

	rcu_read_lock();
	qp = xa_load(&fw->qps, qpn);
	if (qp)
		sroce_fw_ring_sq(fw, qp);
	rcu_read_unlock();
}

/**
 * sroce_fw_qp_sport() - the UDP source port of a QP
 * @qpn: the QP number
 *
 * Constant for the QP (ECMP must not reorder its packets), spread over
 * the range RoCE reserves for it, 0xc000-0xffff.
 *
 * Return: the port.
 */
u16 sroce_fw_qp_sport(u32 qpn)
{
	return 0xc000 | hash_32(qpn, 14);
}
