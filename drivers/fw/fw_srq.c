// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * sroce firmware: shared receive queues. Several QPs take receive WQEs
 * from one ring; the firmware keeps the ring's size and consumer index in
 * its own context and takes each WQE under the SRQ's lock, so two QPs
 * never get the same one.
 */
#include <linux/slab.h>

#include "fw.h"
#include "lib/ring.h"

/**
 * sroce_fw_cmd_create_srq() - CREATE_SRQ
 * @fw: the function
 * @req: struct sroce_create_srq_req
 * @resp: struct sroce_srq_num
 *
 * Return: enum sroce_fw_status.
 */
u16 sroce_fw_cmd_create_srq(struct sroce_fw_dev *fw, const void *req,
			    void *resp)
{
	const struct sroce_create_srq_req *q = req;
	struct sroce_srq_num *r = resp;
	struct sroce_fw_srq *srq;
	u32 srqn;

	if (!q->ring_addr || !q->log2_slots || q->log2_slots >= 32 ||
	    BIT(q->log2_slots) > SROCE_FW_MAX_QP_WR + 1 ||
	    q->log2_elem > SROCE_FW_MAX_WQE_LOG2 ||
	    q->max_sge > SROCE_FW_MAX_SGE ||
	    sizeof(struct rxe_recv_wqe) +
	    q->max_sge * sizeof(struct rxe_sge) > BIT(q->log2_elem))
		return SROCE_FW_ERR_BAD_PARAM;
	if (!xa_load(&fw->pds, le32_to_cpu(q->pdn)))
		return SROCE_FW_ERR_NOT_FOUND;

	srq = kzalloc(sizeof(*srq), GFP_KERNEL);
	if (!srq)
		return SROCE_FW_ERR_NO_RESOURCES;
	spin_lock_init(&srq->lock);
	sroce_fw_event_src_init(&srq->limit_ev, SROCE_EVENT_SRQ_LIMIT);
	srq->pdn = le32_to_cpu(q->pdn);
	srq->ring = (struct sroce_ring_hdr *)(uintptr_t)le64_to_cpu(q->ring_addr);
	srq->mask = BIT(q->log2_slots) - 1;
	srq->log2_elem = q->log2_elem;
	srq->max_sge = q->max_sge;
	srq->limit = le32_to_cpu(q->limit);
	if (xa_alloc(&fw->srqs, &srqn, srq, XA_LIMIT(1, SROCE_FW_MAX_SRQ),
		     GFP_KERNEL)) {
		kfree(srq);
		return SROCE_FW_ERR_NO_RESOURCES;
	}
	srq->srqn = srqn;
	r->srqn = cpu_to_le32(srqn);
	return SROCE_FW_OK;
}

/**
 * sroce_fw_cmd_modify_srq() - MODIFY_SRQ: arm the limit event
 * @fw: the function
 * @req: struct sroce_modify_srq_req
 * @resp: unused
 *
 * Return: enum sroce_fw_status; BAD_PARAM for a limit above the size.
 */
u16 sroce_fw_cmd_modify_srq(struct sroce_fw_dev *fw, const void *req,
			    void *resp)
{
	const struct sroce_modify_srq_req *q = req;
	struct sroce_fw_srq *srq = xa_load(&fw->srqs, le32_to_cpu(q->srqn));
	u32 limit = le32_to_cpu(q->limit);
	u16 status = SROCE_FW_ERR_BAD_PARAM;

	if (!srq)
		return SROCE_FW_ERR_NOT_FOUND;
	spin_lock_bh(&srq->lock);
	if (limit <= srq->mask) {
		srq->limit = limit;
		status = SROCE_FW_OK;
	}
	spin_unlock_bh(&srq->lock);
	return status;
}

/**
 * sroce_fw_cmd_resize_srq() - RESIZE_SRQ: move an SRQ to a new ring
 * @fw: the function
 * @req: struct sroce_resize_srq_req
 * @resp: unused
 *
 * The WQEs not yet taken move to the start of the new ring, which then
 * has its consumer index at 0 and its producer index after them; the
 * slot size stays. The producer index is the poster's: only the slots it
 * names within the old ring are copied, at most the ring's size.
 *
 * Return: enum sroce_fw_status; BAD_PARAM, with nothing changed, if the
 * WQEs waiting or the limit (the request's, else the armed one) do not
 * fit.
 */
u16 sroce_fw_cmd_resize_srq(struct sroce_fw_dev *fw, const void *req,
			    void *resp)
{
	const struct sroce_resize_srq_req *q = req;
	struct sroce_fw_srq *srq = xa_load(&fw->srqs, le32_to_cpu(q->srqn));
	struct sroce_ring_hdr *ring;
	u32 new_mask, prod, n, i, limit;
	u16 status = SROCE_FW_OK;

	if (!srq)
		return SROCE_FW_ERR_NOT_FOUND;
	if (!q->ring_addr || !q->log2_slots || q->log2_slots >= 32 ||
	    BIT(q->log2_slots) > SROCE_FW_MAX_QP_WR + 1 ||
	    (q->flags & ~SROCE_RESIZE_SRQ_F_LIMIT))
		return SROCE_FW_ERR_BAD_PARAM;
	ring = (struct sroce_ring_hdr *)(uintptr_t)le64_to_cpu(q->ring_addr);
	new_mask = BIT(q->log2_slots) - 1;

	spin_lock_bh(&srq->lock);
	/* Acquire: the WQEs before the producer index are complete. */
	prod = smp_load_acquire(&srq->ring->producer_index) & srq->mask;
	n = sroce_ring_count(prod, srq->cons, srq->mask);
	limit = q->flags & SROCE_RESIZE_SRQ_F_LIMIT ? le32_to_cpu(q->limit) :
						      srq->limit;
	if (n > new_mask || limit > new_mask) {
		status = SROCE_FW_ERR_BAD_PARAM;
		goto out_unlock;
	}
	for (i = 0; i < n; i++)
		memcpy(sroce_ring_slot(ring, i, new_mask, srq->log2_elem),
		       sroce_ring_slot(srq->ring, srq->cons + i, srq->mask,
				       srq->log2_elem),
		       BIT(srq->log2_elem));
	WRITE_ONCE(ring->consumer_index, 0);
	/* Release: the copied slots before the index that exposes them. */
	smp_store_release(&ring->producer_index, n);
	srq->ring = ring;
	srq->mask = new_mask;
	srq->cons = 0;
	srq->limit = limit;
out_unlock:
	spin_unlock_bh(&srq->lock);
	return status;
}

/**
 * sroce_fw_cmd_query_srq() - QUERY_SRQ: the armed limit
 * @fw: the function
 * @req: struct sroce_srq_num
 * @resp: struct sroce_query_srq_resp
 *
 * Return: enum sroce_fw_status.
 */
u16 sroce_fw_cmd_query_srq(struct sroce_fw_dev *fw, const void *req,
			   void *resp)
{
	const struct sroce_srq_num *q = req;
	struct sroce_query_srq_resp *r = resp;
	struct sroce_fw_srq *srq = xa_load(&fw->srqs, le32_to_cpu(q->srqn));

	if (!srq)
		return SROCE_FW_ERR_NOT_FOUND;
	spin_lock_bh(&srq->lock);
	r->limit = cpu_to_le32(srq->limit);
	spin_unlock_bh(&srq->lock);
	return SROCE_FW_OK;
}

/* The SRQ is unreachable (erased): off the event backlog, then freed. */
static void sroce_fw_srq_free(struct sroce_fw_dev *fw,
			      struct sroce_fw_srq *srq)
{
	sroce_fw_event_src_kill(fw, &srq->limit_ev);
	kfree_rcu(srq, rcu);
}

/**
 * sroce_fw_cmd_destroy_srq() - DESTROY_SRQ
 * @fw: the function
 * @req: struct sroce_srq_num
 * @resp: unused
 *
 * Return: enum sroce_fw_status; BUSY while a QP uses the SRQ.
 */
u16 sroce_fw_cmd_destroy_srq(struct sroce_fw_dev *fw, const void *req,
			     void *resp)
{
	const struct sroce_srq_num *q = req;
	u32 srqn = le32_to_cpu(q->srqn);
	struct sroce_fw_srq *srq;

	xa_lock(&fw->srqs);
	srq = xa_load(&fw->srqs, srqn);
	if (!srq || atomic_read(&srq->users)) {
		xa_unlock(&fw->srqs);
		return srq ? SROCE_FW_ERR_BUSY : SROCE_FW_ERR_NOT_FOUND;
	}
	__xa_erase(&fw->srqs, srqn);
	xa_unlock(&fw->srqs);
	sroce_fw_srq_free(fw, srq);
	return SROCE_FW_OK;
}

/**
 * sroce_fw_srq_take() - take the next WQE of an SRQ
 * @fw: the function
 * @srq: the SRQ (held by a QP)
 * @wqe: buffer of at least BIT(SROCE_FW_MAX_WQE_LOG2) bytes for the copy
 *
 * The WQE is copied out and its slot given back at once: the copy is what
 * gets used. Raises SRQ_LIMIT when fewer than the armed limit remain.
 *
 * Context: any; does not sleep.
 * Return: 0, -ENOENT if the SRQ is empty, -EINVAL for a WQE with too
 * many SGEs (it is consumed anyway).
 */
int sroce_fw_srq_take(struct sroce_fw_dev *fw, struct sroce_fw_srq *srq,
		      struct rxe_recv_wqe *wqe)
{
	struct sroce_srq_num ev = { .srqn = cpu_to_le32(srq->srqn) };
	bool limit_hit = false;
	u32 prod;

	spin_lock_bh(&srq->lock);
	/* Acquire: the WQEs before the producer index are complete. */
	prod = smp_load_acquire(&srq->ring->producer_index) & srq->mask;
	if (srq->cons == prod) {
		spin_unlock_bh(&srq->lock);
		return -ENOENT;
	}
	memcpy(wqe, sroce_ring_slot(srq->ring, srq->cons, srq->mask,
				    srq->log2_elem), BIT(srq->log2_elem));
	srq->cons = sroce_ring_next(srq->cons, srq->mask);
	/* Release: the slot is the producer's again. */
	smp_store_release(&srq->ring->consumer_index, srq->cons);
	if (srq->limit &&
	    sroce_ring_count(prod, srq->cons, srq->mask) < srq->limit) {
		srq->limit = 0;
		limit_hit = true;
	}
	spin_unlock_bh(&srq->lock);

	if (limit_hit)
		sroce_fw_post_event(fw, &srq->limit_ev, &ev, sizeof(ev));
	return wqe->dma.num_sge > srq->max_sge ? -EINVAL : 0;
}

/**
 * sroce_fw_srqs_destroy() - free every SRQ left at detach
 * @fw: the function
 */
void sroce_fw_srqs_destroy(struct sroce_fw_dev *fw)
{
	struct sroce_fw_srq *srq;
	unsigned long index;

	xa_for_each(&fw->srqs, index, srq) {
		xa_erase(&fw->srqs, index);
		sroce_fw_srq_free(fw, srq);
	}
	xa_destroy(&fw->srqs);
}
