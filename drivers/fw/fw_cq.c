// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * sroce firmware: completion queues. The firmware is the producer of each
 * CQ ring (rdma_rxe user ABI): it keeps the producer index, the ring size
 * and the slot size in its own context and only ever reads the consumer
 * index from the shared header, masked.
 */
#include <linux/slab.h>

#include "fw.h"
#include "lib/ring.h"

static bool sroce_fw_cq_log2_ok(u32 log2_slots)
{
	/* At least two slots (one stays free), at most max_cqe + 1. */
	return log2_slots >= 1 && log2_slots < 32 &&
	       (1U << log2_slots) <= (u32)SROCE_FW_MAX_CQE + 1;
}

/**
 * sroce_fw_cmd_create_cq() - CREATE_CQ: start producing into a ring
 * @fw: the function
 * @req: struct sroce_create_cq_req
 * @resp: struct sroce_create_cq_resp
 *
 * Return: enum sroce_fw_status.
 */
u16 sroce_fw_cmd_create_cq(struct sroce_fw_dev *fw, const void *req,
			   void *resp)
{
	const struct sroce_create_cq_req *q = req;
	struct sroce_create_cq_resp *r = resp;
	u32 log2_slots = le32_to_cpu(q->log2_slots);
	struct sroce_fw_cq *cq;
	u32 cqn;

	if (!q->ring_addr || !sroce_fw_cq_log2_ok(log2_slots))
		return SROCE_FW_ERR_BAD_PARAM;

	cq = kzalloc(sizeof(*cq), GFP_KERNEL);
	if (!cq)
		return SROCE_FW_ERR_NO_RESOURCES;
	spin_lock_init(&cq->lock);
	sroce_fw_event_src_init(&cq->comp_ev, SROCE_EVENT_CQ_COMPLETION);
	sroce_fw_event_src_init(&cq->err_ev, SROCE_EVENT_CQ_ERROR);
	cq->ring = (struct sroce_ring_hdr *)(uintptr_t)le64_to_cpu(q->ring_addr);
	cq->mask = (1U << log2_slots) - 1;
	cq->comp_vector = le32_to_cpu(q->comp_vector);
	/* The ring is ours from now on: start it empty. */
	cq->prod = 0;
	WRITE_ONCE(cq->ring->producer_index, 0);

	if (xa_alloc(&fw->cqs, &cqn, cq, XA_LIMIT(1, SROCE_FW_MAX_CQ),
		     GFP_KERNEL)) {
		kfree(cq);
		return SROCE_FW_ERR_NO_RESOURCES;
	}
	cq->cqn = cqn;
	r->cqn = cpu_to_le32(cqn);
	return SROCE_FW_OK;
}

/* The CQ is unreachable (erased): off the event backlog, then freed. */
static void sroce_fw_cq_free(struct sroce_fw_dev *fw, struct sroce_fw_cq *cq)
{
	sroce_fw_event_src_kill(fw, &cq->comp_ev);
	sroce_fw_event_src_kill(fw, &cq->err_ev);
	/* Producers look CQs up under RCU. */
	kfree_rcu(cq, rcu);
}

/**
 * sroce_fw_cmd_destroy_cq() - DESTROY_CQ: stop using a ring
 * @fw: the function
 * @req: struct sroce_cq_req
 * @resp: unused
 *
 * Return: enum sroce_fw_status; BUSY while a queue pair still uses the CQ.
 */
u16 sroce_fw_cmd_destroy_cq(struct sroce_fw_dev *fw, const void *req,
			    void *resp)
{
	const struct sroce_cq_req *q = req;
	u32 cqn = le32_to_cpu(q->cqn);
	struct sroce_fw_cq *cq;

	xa_lock(&fw->cqs);
	cq = xa_load(&fw->cqs, cqn);
	if (!cq) {
		xa_unlock(&fw->cqs);
		return SROCE_FW_ERR_NOT_FOUND;
	}
	if (atomic_read(&cq->users)) {
		xa_unlock(&fw->cqs);
		return SROCE_FW_ERR_BUSY;
	}
	__xa_erase(&fw->cqs, cqn);
	xa_unlock(&fw->cqs);
	sroce_fw_cq_free(fw, cq);
	return SROCE_FW_OK;
}

/**
 * sroce_fw_cmd_resize_cq() - RESIZE_CQ: move a CQ to a new ring
 * @fw: the function
 * @req: struct sroce_resize_cq_req
 * @resp: unused
 *
 * Completions not yet consumed move to the start of the new ring, which
 * then has its consumer index at 0 and its producer index after them.
 *
 * Return: enum sroce_fw_status; BAD_PARAM if they do not fit.
 */
u16 sroce_fw_cmd_resize_cq(struct sroce_fw_dev *fw, const void *req,
			   void *resp)
{
	const struct sroce_resize_cq_req *q = req;
	u32 log2_slots = le32_to_cpu(q->log2_slots);
	struct sroce_ring_hdr *ring;
	struct sroce_fw_cq *cq;
	u32 new_mask, cons, n, i;
	u16 status = SROCE_FW_OK;

	if (!q->ring_addr || !sroce_fw_cq_log2_ok(log2_slots))
		return SROCE_FW_ERR_BAD_PARAM;
	ring = (struct sroce_ring_hdr *)(uintptr_t)le64_to_cpu(q->ring_addr);
	new_mask = (1U << log2_slots) - 1;

	rcu_read_lock();
	cq = xa_load(&fw->cqs, le32_to_cpu(q->cqn));
	if (!cq) {
		rcu_read_unlock();
		return SROCE_FW_ERR_NOT_FOUND;
	}
	spin_lock_bh(&cq->lock);
	/* Acquire: the consumer has finished with the slots it released. */
	cons = smp_load_acquire(&cq->ring->consumer_index) & cq->mask;
	n = sroce_ring_count(cq->prod, cons, cq->mask);
	if (n > new_mask) {
		status = SROCE_FW_ERR_BAD_PARAM;
		goto out_unlock;
	}
	for (i = 0; i < n; i++)
		memcpy(sroce_ring_slot(ring, i, new_mask, SROCE_CQE_LOG2_SIZE),
		       sroce_ring_slot(cq->ring, cons + i, cq->mask,
				       SROCE_CQE_LOG2_SIZE),
		       BIT(SROCE_CQE_LOG2_SIZE));
	WRITE_ONCE(ring->consumer_index, 0);
	/* Release: the copied slots before the index that exposes them. */
	smp_store_release(&ring->producer_index, n);
	cq->ring = ring;
	cq->mask = new_mask;
	cq->prod = n;
out_unlock:
	spin_unlock_bh(&cq->lock);
	rcu_read_unlock();
	return status;
}

/**
 * sroce_fw_ring_cq_arm_doorbell() - request an event for a CQ's next
 * completion
 * @fw: the function
 * @cqn: the CQ
 * @how: SROCE_CQ_ARM_SOLICITED or SROCE_CQ_ARM_NEXT
 *
 * The next completion (solicited only, or any) raises a CQ_COMPLETION
 * event. Arming for any completion overrides solicited-only.
 *
 * Context: process or softirq (the CQ lock is softirq-safe, not irq-safe);
 * not hard interrupt. Does not sleep.
 */
void sroce_fw_ring_cq_arm_doorbell(struct sroce_fw_dev *fw, u32 cqn,
				   unsigned int how)
{
	struct sroce_fw_cq *cq;

	if (how != SROCE_CQ_ARM_SOLICITED && how != SROCE_CQ_ARM_NEXT)
		return;
	rcu_read_lock();
	cq = xa_load(&fw->cqs, cqn);
	if (cq) {
		spin_lock_bh(&cq->lock);
		cq->armed = max_t(u8, cq->armed, how);
		spin_unlock_bh(&cq->lock);
	}
	rcu_read_unlock();
}

/**
 * sroce_fw_cq_post_ext() - write one completion into a CQ ring
 * @fw: the function
 * @cq: the CQ, from an RCU lookup or held by a QP
 * @wc: the completion in the uverbs layout userspace reads
 * @ext: what kernel consumers get besides, or NULL for nothing
 * @solicited: the completion satisfies a solicited-only arm
 *
 * A CQ armed for this completion is disarmed and raises CQ_COMPLETION;
 * until the driver arms it again it raises no other, so each CQ has at
 * most one completion event outstanding.
 *
 * Context: process or softirq, not hard interrupt; does not sleep.
 * Return: 0, or -ENOSPC when the ring is full: the completion is lost and
 * a CQ_ERROR event tells the driver.
 */
int sroce_fw_cq_post_ext(struct sroce_fw_dev *fw, struct sroce_fw_cq *cq,
			 const struct ib_uverbs_wc *wc,
			 const struct sroce_cqe_ext *ext, bool solicited)
{
	struct sroce_event_cq ev = { .cqn = cpu_to_le32(cq->cqn) };
	bool notify = false;
	u32 cons;
	u8 *slot;

	spin_lock_bh(&cq->lock);
	/* Acquire: the consumer is done with every slot before its index. */
	cons = smp_load_acquire(&cq->ring->consumer_index) & cq->mask;
	if (sroce_ring_full(cq->prod, cons, cq->mask)) {
		spin_unlock_bh(&cq->lock);
		pr_err_ratelimited("sroce_fw %s: CQ %u overrun, completion lost\n",
				   netdev_name(fw->ndev), cq->cqn);
		sroce_fw_post_event(fw, &cq->err_ev, &ev, sizeof(ev));
		return -ENOSPC;
	}
	slot = sroce_ring_slot(cq->ring, cq->prod, cq->mask,
			       SROCE_CQE_LOG2_SIZE);
	memcpy(slot, wc, sizeof(*wc));
	if (ext)
		memcpy(slot + SROCE_CQE_EXT_OFFSET, ext, sizeof(*ext));
	else
		memset(slot + SROCE_CQE_EXT_OFFSET, 0, sizeof(*ext));
	cq->prod = sroce_ring_next(cq->prod, cq->mask);
	/* Release: the completion before the index that exposes it. */
	smp_store_release(&cq->ring->producer_index, cq->prod);
	if (cq->armed == SROCE_CQ_ARM_NEXT ||
	    (cq->armed == SROCE_CQ_ARM_SOLICITED && solicited)) {
		cq->armed = 0;
		notify = true;
	}
	spin_unlock_bh(&cq->lock);

	if (notify)
		sroce_fw_post_event(fw, &cq->comp_ev, &ev, sizeof(ev));
	return 0;
}

/**
 * sroce_fw_cq_post() - write one completion with nothing for the kernel
 * beyond the uverbs layout into a CQ ring
 * @fw: the function
 * @cq: the CQ
 * @wc: the completion
 * @solicited: the completion satisfies a solicited-only arm
 *
 * Context: process or softirq, not hard interrupt; does not sleep.
 * Return: as sroce_fw_cq_post_ext().
 */
int sroce_fw_cq_post(struct sroce_fw_dev *fw, struct sroce_fw_cq *cq,
		     const struct ib_uverbs_wc *wc, bool solicited)
{
	return sroce_fw_cq_post_ext(fw, cq, wc, NULL, solicited);
}

/**
 * sroce_fw_cqs_destroy() - free every CQ left at detach
 * @fw: the function
 */
void sroce_fw_cqs_destroy(struct sroce_fw_dev *fw)
{
	struct sroce_fw_cq *cq;
	unsigned long cqn;

	xa_for_each(&fw->cqs, cqn, cq) {
		xa_erase(&fw->cqs, cqn);
		sroce_fw_cq_free(fw, cq);
	}
	xa_destroy(&fw->cqs);
}
