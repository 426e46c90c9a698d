// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * sroce queue pairs, driver side: ring allocation (rdma_rxe layout, mapped
 * to userspace for user QPs), translation of ib_core's attributes into
 * the firmware's, and the create/modify/query/destroy verbs. The state
 * machine and every attribute check live in the firmware.
 */
#include <linux/log2.h>
#include <linux/vmalloc.h>

#include "sroce.h"
#include "lib/qp_state.h"
#include "lib/ring.h"

static_assert((int)SROCE_QPT_GSI == (int)IB_QPT_GSI);
static_assert((int)SROCE_QPT_RC == (int)IB_QPT_RC);
static_assert((int)SROCE_QPT_UC == (int)IB_QPT_UC);
static_assert((int)SROCE_QPT_UD == (int)IB_QPT_UD);
static_assert((int)SROCE_QPS_RESET == (int)IB_QPS_RESET);
static_assert((int)SROCE_QPS_ERR == (int)IB_QPS_ERR);
static_assert((int)SROCE_QPA_STATE == (int)IB_QP_STATE);
static_assert((int)SROCE_QPA_AV == (int)IB_QP_AV);
static_assert((int)SROCE_QPA_DEST_QPN == (int)IB_QP_DEST_QPN);
static_assert((int)SROCE_QPA_RATE_LIMIT == (int)IB_QP_RATE_LIMIT);

/* Attributes this device lets a consumer set. */
#define SROCE_QPA_SUPPORTED (SROCE_QPA_STATE | SROCE_QPA_CUR_STATE |	\
	SROCE_QPA_EN_SQD_ASYNC_NOTIFY | SROCE_QPA_ACCESS_FLAGS |	\
	SROCE_QPA_PKEY_INDEX | SROCE_QPA_PORT | SROCE_QPA_QKEY |	\
	SROCE_QPA_AV | SROCE_QPA_PATH_MTU | SROCE_QPA_TIMEOUT |		\
	SROCE_QPA_RETRY_CNT | SROCE_QPA_RNR_RETRY | SROCE_QPA_RQ_PSN |	\
	SROCE_QPA_MAX_QP_RD_ATOMIC | SROCE_QPA_MIN_RNR_TIMER |		\
	SROCE_QPA_SQ_PSN | SROCE_QPA_MAX_DEST_RD_ATOMIC | SROCE_QPA_DEST_QPN)

/* A ring of at least @entries usable slots (one always stays free). */
static unsigned int sroce_qp_log2_slots(u32 entries)
{
	return max_t(unsigned int, 1, order_base_2(entries + 1));
}

static struct sroce_ring_hdr *sroce_qp_ring_alloc(bool user,
						  unsigned int log2_slots,
						  unsigned int log2_elem,
						  size_t *size)
{
	struct sroce_ring_hdr *ring;

	*size = sroce_ring_bytes(log2_slots, log2_elem);
	ring = user ? vmalloc_user(*size) : vzalloc(*size);
	if (ring) {
		ring->log2_elem_size = log2_elem;
		ring->index_mask = BIT(log2_slots) - 1;
	}
	return ring;
}

/* Sizes the rings; updates @cap to what the QP really provides. */
static int sroce_qp_size(struct sroce_dev *sdev, struct sroce_qp *qp,
			 struct ib_qp_cap *cap)
{
	u32 max_wr = le32_to_cpu(sdev->caps.max_qp_wr);
	size_t room;

	if (cap->max_send_wr > max_wr || cap->max_recv_wr > max_wr ||
	    cap->max_send_sge > SROCE_FW_MAX_SGE ||
	    cap->max_recv_sge > SROCE_FW_MAX_SGE ||
	    cap->max_inline_data > SROCE_FW_MAX_INLINE)
		return -EINVAL;

	/* Inline data and the SGE list share the space after the WQE. */
	room = max_t(size_t, cap->max_send_sge * sizeof(struct rxe_sge),
		     cap->max_inline_data);
	cap->max_send_sge = room / sizeof(struct rxe_sge);
	cap->max_inline_data = room;
	qp->sq_log2_elem = order_base_2(sizeof(struct rxe_send_wqe) + room);
	qp->sq_log2_slots = sroce_qp_log2_slots(cap->max_send_wr);
	cap->max_send_wr = BIT(qp->sq_log2_slots) - 1;

	qp->rq_log2_elem = order_base_2(sizeof(struct rxe_recv_wqe) +
					cap->max_recv_sge *
					sizeof(struct rxe_sge));
	qp->rq_log2_slots = sroce_qp_log2_slots(cap->max_recv_wr);
	cap->max_recv_wr = BIT(qp->rq_log2_slots) - 1;
	qp->cap = *cap;
	return 0;
}

/* @fw_may_use: no DESTROY_QP confirmed the firmware let go of them. */
static void sroce_qp_free_rings(struct sroce_dev *sdev, struct sroce_qp *qp,
				bool fw_may_use)
{
	sroce_ring_free(sdev, qp->sq_mmap, qp->sq, fw_may_use);
	sroce_ring_free(sdev, qp->rq_mmap, qp->rq, fw_may_use);
}

/* Return: 0, or the errno of a failed DESTROY_QP. */
static int sroce_qp_destroy_fw(struct sroce_dev *sdev, u32 qpn)
{
	struct sroce_qp_req req = { .qpn = cpu_to_le32(qpn) };
	int err;

	err = sroce_cmd_exec(sdev, SROCE_CMD_DESTROY_QP, &req, sizeof(req),
			     NULL, 0);
	if (err)
		ibdev_err_ratelimited(&sdev->ibdev,
				      "QP %u: DESTROY_QP failed: %d\n", qpn,
				      err);
	return err;
}

/* Map the rings for userspace and tell librxe where they are. */
static int sroce_qp_publish(struct sroce_qp *qp, struct ib_udata *udata,
			    size_t sq_size, size_t rq_size)
{
	struct ib_ucontext *uctx = sroce_udata_ucontext(udata);
	struct rxe_create_qp_resp resp = {};
	struct rdma_user_mmap_entry *e;

	e = sroce_mmap_publish(uctx, qp->sq, sq_size, &resp.sq_mi);
	if (IS_ERR(e))
		return PTR_ERR(e);
	qp->sq_mmap = e;
	/* librxe maps no receive ring for a QP with an SRQ. */
	if (qp->rq) {
		e = sroce_mmap_publish(uctx, qp->rq, rq_size, &resp.rq_mi);
		if (IS_ERR(e))
			return PTR_ERR(e);
		qp->rq_mmap = e;
	}
	return ib_copy_to_udata(udata, &resp, sizeof(resp));
}

/**
 * sroce_create_qp() - ib_device_ops.create_qp
 * @ibqp: the QP allocated by ib_core
 * @init: requested type, CQs and capacities; @init->cap is updated
 * @udata: librxe's response buffer for user QPs, NULL for kernel QPs
 *
 * Return: 0; -EOPNOTSUPP for QP types, flags or SRQs this device does not
 * support; -EINVAL for capacities out of range; another negative errno.
 */
int sroce_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		    struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibqp->device);
	struct sroce_qp *qp = to_sqp(ibqp);
	struct sroce_create_qp_req req = {};
	struct sroce_create_qp_resp resp;
	size_t sq_size, rq_size = 0;
	int err;

	switch (init->qp_type) {
	case IB_QPT_GSI:
	case IB_QPT_RC:
	case IB_QPT_UC:
	case IB_QPT_UD:
		break;
	default:
		return -EOPNOTSUPP;
	}
	if (init->create_flags)
		return -EOPNOTSUPP;
	if (udata && (udata->inlen ||
		      udata->outlen < sizeof(struct rxe_create_qp_resp)))
		return -EINVAL;
	err = sroce_qp_size(sdev, qp, &init->cap);
	if (err)
		return err;

	qp->is_user = !!udata;
	qp->sq_sig_all = init->sq_sig_type == IB_SIGNAL_ALL_WR;
	spin_lock_init(&qp->sq_lock);
	spin_lock_init(&qp->rq_lock);
	qp->sq = sroce_qp_ring_alloc(qp->is_user, qp->sq_log2_slots,
				     qp->sq_log2_elem, &sq_size);
	/* With an SRQ the QP has no receive ring of its own. */
	if (!init->srq)
		qp->rq = sroce_qp_ring_alloc(qp->is_user, qp->rq_log2_slots,
					     qp->rq_log2_elem, &rq_size);
	if (!qp->sq || (!init->srq && !qp->rq)) {
		err = -ENOMEM;
		goto err_free_rings;
	}

	req.sq_addr = cpu_to_le64((uintptr_t)qp->sq);
	req.rq_addr = cpu_to_le64((uintptr_t)qp->rq);
	if (init->srq)
		req.srqn = cpu_to_le32(to_ssrq(init->srq)->srqn);
	req.pdn = cpu_to_le32(to_spd(ibqp->pd)->pdn);
	req.send_cqn = cpu_to_le32(to_scq(init->send_cq)->cqn);
	req.recv_cqn = cpu_to_le32(to_scq(init->recv_cq)->cqn);
	req.max_inline = cpu_to_le32(init->cap.max_inline_data);
	req.qp_type = init->qp_type;
	req.flags = (init->sq_sig_type == IB_SIGNAL_ALL_WR ?
		     SROCE_QP_F_SIG_ALL : 0) |
		    (qp->is_user ? SROCE_QP_F_USER : 0);
	req.sq_log2_slots = qp->sq_log2_slots;
	req.sq_log2_elem = qp->sq_log2_elem;
	req.rq_log2_slots = init->srq ? 0 : qp->rq_log2_slots;
	req.rq_log2_elem = init->srq ? 0 : qp->rq_log2_elem;
	req.max_send_sge = init->cap.max_send_sge;
	req.max_recv_sge = init->cap.max_recv_sge;
	req.port = 1;
	err = sroce_cmd_exec(sdev, SROCE_CMD_CREATE_QP, &req, sizeof(req),
			     &resp, sizeof(resp));
	if (err)
		goto err_free_rings;
	ibqp->qp_num = le32_to_cpu(resp.qpn);

	if (qp->is_user) {
		err = sroce_qp_publish(qp, udata, sq_size, rq_size);
		if (err)
			goto err_destroy_qp;
	}
	err = xa_insert(&sdev->qps, ibqp->qp_num, qp, GFP_KERNEL);
	if (err)
		goto err_destroy_qp;
	return 0;

err_destroy_qp:
	sroce_qp_free_rings(sdev, qp,
			    sroce_qp_destroy_fw(sdev, ibqp->qp_num) != 0);
	return err;
err_free_rings:
	/* A dead firmware may have created the QP after all. */
	sroce_qp_free_rings(sdev, qp, sroce_cmd_dead(sdev));
	return err;
}

/**
 * sroce_modify_qp() - ib_device_ops.modify_qp
 * @ibqp: the QP
 * @attr: new attributes
 * @mask: IB_QP_* bits of @attr that apply
 * @udata: unused by librxe
 *
 * Return: 0, -EOPNOTSUPP for attributes this device does not support,
 * -EINVAL for an illegal transition or bad attributes.
 */
int sroce_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		    struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibqp->device);
	struct sroce_modify_qp_req req = {
		.qpn = cpu_to_le32(ibqp->qp_num),
		.attr_mask = cpu_to_le32(mask),
	};
	struct sroce_qp_attr *a = &req.attr;
	int err;

	if (mask & ~SROCE_QPA_SUPPORTED)
		return -EOPNOTSUPP;

	a->state = attr->qp_state;
	a->cur_state = attr->cur_qp_state;
	a->port = attr->port_num;
	a->path_mtu = attr->path_mtu;
	a->timeout = attr->timeout;
	a->retry_cnt = attr->retry_cnt;
	a->rnr_retry = attr->rnr_retry;
	a->min_rnr_timer = attr->min_rnr_timer;
	a->max_rd_atomic = attr->max_rd_atomic;
	a->max_dest_rd_atomic = attr->max_dest_rd_atomic;
	a->en_sqd_async_notify = attr->en_sqd_async_notify;
	a->pkey_index = cpu_to_le16(attr->pkey_index);
	a->qkey = cpu_to_le32(attr->qkey);
	a->dest_qpn = cpu_to_le32(attr->dest_qp_num);
	a->sq_psn = cpu_to_le32(attr->sq_psn);
	a->rq_psn = cpu_to_le32(attr->rq_psn);
	/* The IB_ACCESS_* values are the firmware's; it refuses the rest. */
	a->access_flags = cpu_to_le32(attr->qp_access_flags &
				      ~SROCE_QP_ACCESS_IGNORED);
	if (mask & IB_QP_AV) {
		err = sroce_av_from_ah(&attr->ah_attr, &a->av);
		if (err)
			return err;
	}

	err = sroce_cmd_exec(sdev, SROCE_CMD_MODIFY_QP, &req, sizeof(req),
			     NULL, 0);
	if (err) {
		ibdev_dbg(&sdev->ibdev, "QP %u: modify (mask %#x) refused: %d\n",
			  ibqp->qp_num, mask, err);
		return err;
	}
	if (mask & IB_QP_STATE) {
		struct sroce_qp *qp = to_sqp(ibqp);
		unsigned long flags;

		spin_lock_irqsave(&qp->sq_lock, flags);
		spin_lock(&qp->rq_lock);
		WRITE_ONCE(qp->state, attr->qp_state);
		/* The firmware emptied the rings on the way to RESET. */
		if (attr->qp_state == IB_QPS_RESET) {
			qp->sq_prod = 0;
			qp->rq_prod = 0;
		}
		spin_unlock(&qp->rq_lock);
		spin_unlock_irqrestore(&qp->sq_lock, flags);
	}
	return 0;
}

/* Kernel UD WQEs carry the address vector where rxe_av would be. */
static_assert(sizeof(struct sroce_av) <=
	      sizeof(((struct rxe_send_wr *)NULL)->wr.ud.av));

static_assert(sizeof(struct sroce_fast_reg_wr) <=
	      sizeof(((struct rxe_send_wr *)NULL)->wr));

/* IB_WR_REG_MR: the registration the firmware executes in order. */
static void sroce_fill_fast_reg(struct rxe_send_wqe *wqe,
				const struct ib_reg_wr *reg)
{
	struct sroce_fast_reg_wr fr = {
		.iova = cpu_to_le64(reg->mr->iova),
		.length = cpu_to_le64(reg->mr->length),
		.key = cpu_to_le32(reg->key),
		.access = cpu_to_le32(reg->access & ~SROCE_ACCESS_IGNORED),
		.npages = cpu_to_le32(to_smr(reg->mr)->npages),
		.page_shift = ilog2(reg->mr->page_size),
	};

	memcpy(&wqe->wr.wr, &fr, sizeof(fr));
}

/* Fill the work-request part of a send WQE from a kernel WR. */
static void sroce_fill_send_wr(struct sroce_qp *qp, struct rxe_send_wqe *wqe,
			       const struct ib_send_wr *wr)
{
	wqe->wr.wr_id = wr->wr_id;
	wqe->wr.opcode = wr->opcode;
	wqe->wr.send_flags = wr->send_flags;
	if (wr->opcode == IB_WR_SEND_WITH_INV ||
	    wr->opcode == IB_WR_LOCAL_INV)
		wqe->wr.ex.invalidate_rkey = wr->ex.invalidate_rkey;
	else
		wqe->wr.ex.imm_data = wr->ex.imm_data;

	switch (qp->ibqp.qp_type) {
	case IB_QPT_UD:
	case IB_QPT_GSI:
		wqe->wr.wr.ud.remote_qpn = ud_wr(wr)->remote_qpn;
		wqe->wr.wr.ud.remote_qkey = ud_wr(wr)->remote_qkey;
		wqe->wr.wr.ud.pkey_index = ud_wr(wr)->pkey_index;
		memcpy(&wqe->wr.wr.ud.av, &to_sah(ud_wr(wr)->ah)->av,
		       sizeof(struct sroce_av));
		break;
	default:
		switch (wr->opcode) {
		case IB_WR_RDMA_WRITE:
		case IB_WR_RDMA_WRITE_WITH_IMM:
		case IB_WR_RDMA_READ:
			wqe->wr.wr.rdma.remote_addr = rdma_wr(wr)->remote_addr;
			wqe->wr.wr.rdma.rkey = rdma_wr(wr)->rkey;
			wqe->iova = rdma_wr(wr)->remote_addr;
			break;
		case IB_WR_ATOMIC_CMP_AND_SWP:
		case IB_WR_ATOMIC_FETCH_AND_ADD:
			wqe->wr.wr.atomic.remote_addr =
				atomic_wr(wr)->remote_addr;
			wqe->wr.wr.atomic.compare_add =
				atomic_wr(wr)->compare_add;
			wqe->wr.wr.atomic.swap = atomic_wr(wr)->swap;
			wqe->wr.wr.atomic.rkey = atomic_wr(wr)->rkey;
			wqe->iova = atomic_wr(wr)->remote_addr;
			break;
		case IB_WR_REG_MR:
			sroce_fill_fast_reg(wqe, reg_wr(wr));
			break;
		default:
			break;
		}
	}
}

/* Write one send WQE; caller holds qp->sq_lock. */
static int sroce_post_one_send(struct sroce_qp *qp,
			       const struct ib_send_wr *wr)
{
	u32 mask = BIT(qp->sq_log2_slots) - 1;
	struct rxe_send_wqe *wqe;
	u32 length = 0, cons;
	int i;

	if (!(wr->send_flags & IB_SEND_INLINE) &&
	    wr->num_sge > qp->cap.max_send_sge)
		return -EINVAL;
	/* Acquire: the firmware is done with the slots it released. */
	cons = smp_load_acquire(&qp->sq->consumer_index);
	if (sroce_ring_full(qp->sq_prod, cons, mask))
		return -ENOMEM;

	wqe = sroce_ring_slot(qp->sq, qp->sq_prod, mask, qp->sq_log2_elem);
	memset(wqe, 0, sizeof(*wqe));
	sroce_fill_send_wr(qp, wqe, wr);
	for (i = 0; i < wr->num_sge; i++)
		length += wr->sg_list[i].length;
	if (wr->send_flags & IB_SEND_INLINE) {
		u8 *p = wqe->dma.inline_data;

		if (length > qp->cap.max_inline_data)
			return -EINVAL;
		/* Kernel consumers pass inline data by virtual address. */
		for (i = 0; i < wr->num_sge; i++) {
			memcpy(p, (void *)(uintptr_t)wr->sg_list[i].addr,
			       wr->sg_list[i].length);
			p += wr->sg_list[i].length;
		}
	} else {
		for (i = 0; i < wr->num_sge; i++) {
			wqe->dma.sge[i].addr = wr->sg_list[i].addr;
			wqe->dma.sge[i].length = wr->sg_list[i].length;
			wqe->dma.sge[i].lkey = wr->sg_list[i].lkey;
		}
		wqe->dma.num_sge = wr->num_sge;
	}
	wqe->dma.length = length;
	wqe->dma.resid = length;
	qp->sq_prod = sroce_ring_next(qp->sq_prod, mask);
	/* Release: the WQE before the index that hands it over. */
	smp_store_release(&qp->sq->producer_index, qp->sq_prod);
	return 0;
}

/* Sends are refused until the QP can send (IBA 10.8.1). */
static bool sroce_qp_can_send(u8 state)
{
	return state != IB_QPS_RESET && state != IB_QPS_INIT &&
	       state != IB_QPS_RTR;
}

/**
 * sroce_post_send() - ib_device_ops.post_send
 * @ibqp: the QP
 * @wr: chain of send work requests (NULL: librxe's doorbell)
 * @bad_wr: set to the first request not posted
 *
 * For user QPs this is the send doorbell: librxe has already written its
 * WQEs into the mapped ring. Kernel WRs are written into the ring here.
 *
 * Return: 0, -EINVAL for a QP not ready to send or a malformed request,
 * -ENOMEM when the ring is full.
 */
int sroce_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		    const struct ib_send_wr **bad_wr)
{
	struct sroce_dev *sdev = to_sdev(ibqp->device);
	struct sroce_qp *qp = to_sqp(ibqp);
	unsigned long flags;
	int err = 0;

	/*
	 * librxe's doorbell: the WQEs are in the ring already, and the
	 * firmware checks the state again, so no lock is needed here.
	 */
	if (qp->is_user) {
		if (!sroce_qp_can_send(READ_ONCE(qp->state)))
			return -EINVAL;
		sroce_fw_ring_sq_doorbell(sdev->fw, ibqp->qp_num);
		return 0;
	}
	spin_lock_irqsave(&qp->sq_lock, flags);
	/* Under the lock: a move to RESET also empties the ring. */
	if (!sroce_qp_can_send(qp->state))
		err = -EINVAL;
	while (wr && !err) {
		err = sroce_post_one_send(qp, wr);
		if (!err)
			wr = wr->next;
	}
	spin_unlock_irqrestore(&qp->sq_lock, flags);
	/* Whatever was written is sent, even if a later WR was refused. */
	sroce_fw_ring_sq_doorbell(sdev->fw, ibqp->qp_num);
	if (err)
		*bad_wr = wr;
	return err;
}

/**
 * sroce_write_recv_wqe() - produce one receive WQE into a kernel ring
 * @ring: receive ring of a QP or an SRQ
 * @prod: the producer index, kept by the caller under its lock
 * @mask: slots minus one
 * @log2_elem: log2 of the slot size
 * @max_sge: SGEs a WQE may carry
 * @wr: the work request
 *
 * Return: 0, -EINVAL for too many SGEs, -ENOMEM when the ring is full.
 */
int sroce_write_recv_wqe(struct sroce_ring_hdr *ring, u32 *prod, u32 mask,
			 unsigned int log2_elem, u32 max_sge,
			 const struct ib_recv_wr *wr)
{
	struct rxe_recv_wqe *wqe;
	u32 length = 0, cons;
	int i;

	if (wr->num_sge > max_sge)
		return -EINVAL;
	/* Acquire: the firmware is done with the slots it released. */
	cons = smp_load_acquire(&ring->consumer_index);
	if (sroce_ring_full(*prod, cons, mask))
		return -ENOMEM;

	wqe = sroce_ring_slot(ring, *prod, mask, log2_elem);
	memset(wqe, 0, sizeof(*wqe));
	wqe->wr_id = wr->wr_id;
	wqe->dma.num_sge = wr->num_sge;
	for (i = 0; i < wr->num_sge; i++) {
		wqe->dma.sge[i].addr = wr->sg_list[i].addr;
		wqe->dma.sge[i].length = wr->sg_list[i].length;
		wqe->dma.sge[i].lkey = wr->sg_list[i].lkey;
		length += wr->sg_list[i].length;
	}
	wqe->dma.length = length;
	wqe->dma.resid = length;
	*prod = sroce_ring_next(*prod, mask);
	/* Release: the WQE before the index that hands it over. */
	smp_store_release(&ring->producer_index, *prod);
	return 0;
}

/**
 * sroce_post_recv() - ib_device_ops.post_recv, for kernel QPs
 * @ibqp: the QP
 * @wr: chain of receive work requests
 * @bad_wr: set to the first request not posted
 *
 * User QPs post into their mapped ring directly, never through here.
 *
 * Return: 0, -EINVAL for a QP in RESET or too many SGEs, -ENOMEM when the
 * ring is full.
 */
int sroce_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		    const struct ib_recv_wr **bad_wr)
{
	struct sroce_dev *sdev = to_sdev(ibqp->device);
	struct sroce_qp *qp = to_sqp(ibqp);
	unsigned long flags;
	bool flush;
	int err = 0;

	/* User QPs post into their ring; QPs with an SRQ have no ring. */
	if (qp->is_user || !qp->rq) {
		*bad_wr = wr;
		return -EINVAL;
	}
	spin_lock_irqsave(&qp->rq_lock, flags);
	if (qp->state == IB_QPS_RESET)
		err = -EINVAL;
	while (wr && !err) {
		err = sroce_write_recv_wqe(qp->rq, &qp->rq_prod,
					   BIT(qp->rq_log2_slots) - 1,
					   qp->rq_log2_elem,
					   qp->cap.max_recv_sge, wr);
		if (!err)
			wr = wr->next;
	}
	flush = qp->state == IB_QPS_ERR;
	spin_unlock_irqrestore(&qp->rq_lock, flags);
	/*
	 * Receives posted in ERROR complete at once as flushed (ib_drain_rq
	 * waits for that); the send doorbell makes the firmware flush both
	 * rings.
	 */
	if (flush)
		sroce_fw_ring_sq_doorbell(sdev->fw, ibqp->qp_num);
	if (err)
		*bad_wr = wr;
	return err;
}

/**
 * sroce_query_qp() - ib_device_ops.query_qp
 * @ibqp: the QP
 * @attr: filled with the current attributes
 * @mask: attributes asked for (all are returned)
 * @init: filled with the creation attributes
 *
 * Return: 0 or a negative errno.
 */
int sroce_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		   struct ib_qp_init_attr *init)
{
	struct sroce_dev *sdev = to_sdev(ibqp->device);
	struct sroce_qp *qp = to_sqp(ibqp);
	struct sroce_qp_req req = { .qpn = cpu_to_le32(ibqp->qp_num) };
	struct sroce_qp_attr a;
	int err;

	err = sroce_cmd_exec(sdev, SROCE_CMD_QUERY_QP, &req, sizeof(req),
			     &a, sizeof(a));
	if (err)
		return err;

	memset(attr, 0, sizeof(*attr));
	attr->qp_state = a.state;
	attr->cur_qp_state = a.cur_state;
	attr->path_mtu = a.path_mtu;
	attr->path_mig_state = IB_MIG_MIGRATED;
	attr->qkey = le32_to_cpu(a.qkey);
	attr->rq_psn = le32_to_cpu(a.rq_psn);
	attr->sq_psn = le32_to_cpu(a.sq_psn);
	attr->dest_qp_num = le32_to_cpu(a.dest_qpn);
	attr->qp_access_flags = le32_to_cpu(a.access_flags);
	attr->cap = qp->cap;
	attr->pkey_index = le16_to_cpu(a.pkey_index);
	attr->en_sqd_async_notify = a.en_sqd_async_notify;
	attr->sq_draining = a.sq_draining;
	attr->max_rd_atomic = a.max_rd_atomic;
	attr->max_dest_rd_atomic = a.max_dest_rd_atomic;
	attr->min_rnr_timer = a.min_rnr_timer;
	attr->port_num = a.port;
	attr->timeout = a.timeout;
	attr->retry_cnt = a.retry_cnt;
	attr->rnr_retry = a.rnr_retry;

	attr->ah_attr.type = RDMA_AH_ATTR_TYPE_ROCE;
	rdma_ah_set_port_num(&attr->ah_attr, 1);
	if (!sroce_gid_is_zero(a.av.dgid)) {
		rdma_ah_set_grh(&attr->ah_attr, NULL,
				le32_to_cpu(a.av.flow_label),
				a.av.sgid_index, a.av.hop_limit,
				a.av.traffic_class);
		memcpy(attr->ah_attr.grh.dgid.raw, a.av.dgid,
		       sizeof(a.av.dgid));
		rdma_ah_set_sl(&attr->ah_attr, a.av.sl);
		memcpy(attr->ah_attr.roce.dmac, a.av.dmac, ETH_ALEN);
	}

	memset(init, 0, sizeof(*init));
	init->qp_type = ibqp->qp_type;
	init->send_cq = ibqp->send_cq;
	init->recv_cq = ibqp->recv_cq;
	init->srq = ibqp->srq;
	init->cap = qp->cap;
	init->sq_sig_type = qp->sq_sig_all ? IB_SIGNAL_ALL_WR :
					     IB_SIGNAL_REQ_WR;
	return 0;
}

/**
 * sroce_handle_qp_event() - a QP event from the firmware: SQ_DRAINED or
 * LAST_WQE
 * @sdev: the device
 * @type: the ib_event it is (IB_EVENT_SQ_DRAINED, or
 *	  IB_EVENT_QP_LAST_WQE_REACHED)
 * @ev: the event payload
 *
 * Runs on the async-event vector (process context). The QP table's lock
 * is held across the handler, so sroce_destroy_qp(), which erases the QP
 * under it, cannot free a QP whose handler is running; the handler runs
 * in atomic context, as the CQ and SRQ ones do (uverbs' and the ULPs'
 * only queue the event).
 */
void sroce_handle_qp_event(struct sroce_dev *sdev, enum ib_event_type type,
			   const struct sroce_event_qp *ev)
{
	struct sroce_qp *qp;

	xa_lock(&sdev->qps);
	qp = xa_load(&sdev->qps, le32_to_cpu(ev->qpn));
	if (qp && qp->ibqp.event_handler) {
		struct ib_event event = {
			.device = &sdev->ibdev,
			.element.qp = &qp->ibqp,
			.event = type,
		};

		qp->ibqp.event_handler(&event, qp->ibqp.qp_context);
	}
	xa_unlock(&sdev->qps);
}

/**
 * sroce_destroy_qp() - ib_device_ops.destroy_qp
 * @ibqp: the QP
 * @udata: unused
 *
 * Return: 0.
 */
int sroce_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibqp->device);
	struct sroce_qp *qp = to_sqp(ibqp);
	int err;

	err = sroce_qp_destroy_fw(sdev, ibqp->qp_num);
	xa_erase(&sdev->qps, ibqp->qp_num);
	/* The rings stay allocated while the firmware may still use them. */
	sroce_qp_free_rings(sdev, qp, err != 0);
	return 0;
}
