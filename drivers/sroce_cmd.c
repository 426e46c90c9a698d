// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * sroce driver side of the firmware interface: the command queue (post,
 * wait, complete), the event queues, and opening/closing the NIC function.
 */
#include <linux/slab.h>
#include <linux/ktime.h>
#include <linux/vmalloc.h>

#include "sroce.h"

#define SROCE_CMDQ_DEPTH	BIT(SROCE_CMDQ_LOG2_DEPTH)
#define SROCE_CMDQ_MASK		(SROCE_CMDQ_DEPTH - 1)
#define SROCE_EQ_DEPTH		BIT(SROCE_EQ_LOG2_DEPTH)
#define SROCE_CMD_GEN_MASK	((1U << (16 - SROCE_CMDQ_LOG2_DEPTH)) - 1)

static u16 sroce_cmd_id(unsigned int slot, u16 generation)
{
	return (generation & SROCE_CMD_GEN_MASK) << SROCE_CMDQ_LOG2_DEPTH | slot;
}

static void sroce_cmd_stat_latency(struct sroce_cmd_stats *st, s64 us)
{
	s64 old = atomic64_read(&st->max_latency_us);

	while (us > old) {
		s64 seen = atomic64_cmpxchg(&st->max_latency_us, old, us);

		if (seen == old)
			break;
		old = seen;
	}
}

/*
 * Reserve a slot and post the command; the caller holds q->lock and a
 * count of slots_free. Returns the slot index.
 */
static unsigned int sroce_cmd_post(struct sroce_dev *sdev, unsigned int opcode,
				   const void *req, unsigned int req_len)
{
	struct sroce_cmdq *q = &sdev->cmdq;
	struct sroce_cmd_slot *slot;
	unsigned int i;

	lockdep_assert_held(&q->lock);
	/* The semaphore guarantees a free slot. */
	for (i = 0; i < SROCE_CMDQ_DEPTH; i++)
		if (q->slots[i].state == SROCE_CMD_SLOT_FREE)
			break;
	slot = &q->slots[i];
	slot->state = SROCE_CMD_SLOT_PENDING;
	slot->generation++;
	reinit_completion(&slot->done);
	/* Lengths were checked against the opcode table by the caller. */
	sroce_cmd_encode(&q->sq[q->sq_tail & SROCE_CMDQ_MASK], opcode,
			 sroce_cmd_id(i, slot->generation), req, req_len);
	q->sq_tail++;
	sroce_fw_ring_cmd_doorbell(sdev->fw, q->sq_tail);
	return i;
}

/*
 * A command timed out: the firmware is not answering. Mark the queue dead
 * and wake every other waiter (they fail with -EIO). Caller holds q->lock.
 */
static void sroce_cmdq_kill(struct sroce_cmdq *q)
{
	unsigned int i;

	lockdep_assert_held(&q->lock);
	WRITE_ONCE(q->dead, true);
	for (i = 0; i < SROCE_CMDQ_DEPTH; i++)
		if (q->slots[i].state == SROCE_CMD_SLOT_PENDING)
			complete(&q->slots[i].done);
}

static void sroce_fatal_work(struct work_struct *work)
{
	struct sroce_dev *sdev = container_of(work, struct sroce_dev,
					      fatal_work);
	struct ib_event event = {
		.device = &sdev->ibdev,
		.element.port_num = 1,
		.event = IB_EVENT_DEVICE_FATAL,
	};

	ib_dispatch_event(&event);
}

/**
 * sroce_cmd_dead() - whether the command queue died (device fatal)
 * @sdev: the device
 *
 * Once dead, memory handed to the firmware by a command that failed may
 * still be in use by it: callers quarantine it instead of freeing it.
 *
 * Return: true after a command timed out.
 */
bool sroce_cmd_dead(struct sroce_dev *sdev)
{
	return READ_ONCE(sdev->cmdq.dead);
}

/**
 * sroce_cmd_exec() - run one firmware command and wait for its completion
 * @sdev: the device
 * @opcode: enum sroce_cmd_opcode
 * @req: request payload (may be NULL if @req_len is 0)
 * @req_len: must equal the opcode's request size
 * @resp: buffer for the response (may be NULL if @resp_len is 0)
 * @resp_len: must equal the opcode's response size
 *
 * A command that gets no completion within SROCE_CMD_TIMEOUT_MS kills the
 * device, as on hardware whose firmware stopped answering: the queue is
 * marked dead, the firmware is stopped, IB_EVENT_DEVICE_FATAL is
 * dispatched, and this and every later command fail at once.
 *
 * Context: process context; sleeps.
 * Return: 0, the errno mapped from the firmware's status, -ETIMEDOUT for
 * the command that timed out, -EIO once the queue is dead.
 */
int sroce_cmd_exec(struct sroce_dev *sdev, unsigned int opcode,
		   const void *req, unsigned int req_len,
		   void *resp, unsigned int resp_len)
{
	unsigned int index = sroce_cmd_index(opcode);
	struct sroce_cmdq *q = &sdev->cmdq;
	struct sroce_cmd_stats *st;
	struct sroce_cmd_slot *slot;
	ktime_t start;
	bool fatal;
	u16 status;
	int err;

	if (WARN_ON_ONCE(index == SROCE_CMDI_INVALID ||
			 req_len != sroce_cmd_req_len(index) ||
			 resp_len != sroce_cmd_resp_len(index)))
		return -EINVAL;
	st = &q->stats[index];

	if (sroce_cmd_dead(sdev))
		goto err_dead;
	if (down_timeout(&q->slots_free,
			 msecs_to_jiffies(SROCE_CMD_TIMEOUT_MS))) {
		atomic64_inc(&st->timeouts);
		ibdev_err_ratelimited(&sdev->ibdev,
				      "command %s: no free command slot\n",
				      sroce_cmd_name(index));
		return -ETIMEDOUT;
	}

	start = ktime_get();
	spin_lock(&q->lock);
	if (q->dead) {
		spin_unlock(&q->lock);
		goto err_dead_up;
	}
	slot = &q->slots[sroce_cmd_post(sdev, opcode, req, req_len)];
	spin_unlock(&q->lock);
	atomic64_inc(&st->issued);
	wait_for_completion_timeout(&slot->done,
				    msecs_to_jiffies(SROCE_CMD_TIMEOUT_MS));

	spin_lock(&q->lock);
	if (slot->state == SROCE_CMD_SLOT_PENDING) {
		/* No completion: timed out, or woken because the queue died. */
		slot->state = SROCE_CMD_SLOT_ABANDONED;
		fatal = !q->dead;
		if (fatal)
			sroce_cmdq_kill(q);
		spin_unlock(&q->lock);
		if (!fatal)
			goto err_dead_up;
		atomic64_inc(&st->timeouts);
		ibdev_err(&sdev->ibdev,
			  "command %s timed out after %u ms: device is dead, firmware stopped\n",
			  sroce_cmd_name(index), SROCE_CMD_TIMEOUT_MS);
		sroce_fw_stop(sdev->fw);
		schedule_work(&sdev->fatal_work);
		/* Let a poster waiting for a slot see the queue dead. */
		up(&q->slots_free);
		return -ETIMEDOUT;
	}
	status = slot->status;
	if (status == SROCE_FW_OK && slot->resp_len != resp_len)
		status = SROCE_FW_ERR_INTERNAL;
	if (status == SROCE_FW_OK && resp_len)
		memcpy(resp, slot->resp, resp_len);
	slot->state = SROCE_CMD_SLOT_FREE;
	spin_unlock(&q->lock);
	up(&q->slots_free);

	sroce_cmd_stat_latency(st, ktime_us_delta(ktime_get(), start));
	err = sroce_fw_status_to_errno(status);
	if (err)
		atomic64_inc(&st->failed);
	return err;

err_dead_up:
	/* Pass the slot on: the next waiter for one fails at once too. */
	up(&q->slots_free);
err_dead:
	atomic64_inc(&st->failed);
	return -EIO;
}

/* Completion vector: hand each new completion to its waiter. */
static void sroce_cmdq_reap(struct sroce_dev *sdev)
{
	struct sroce_cmdq *q = &sdev->cmdq;

	for (;;) {
		struct sroce_cmd_completion *cqe =
			&q->cq[q->cq_head & SROCE_CMDQ_MASK];
		/* Acquire: pairs with the firmware's release of the phase. */
		u16 flags = le16_to_cpu(smp_load_acquire(&cqe->flags));
		struct sroce_cmd_slot *slot;
		unsigned int resp_len;
		u16 cmd_id;

		if ((flags & SROCE_CMPL_PHASE) !=
		    sroce_ring_phase(q->cq_head, SROCE_CMDQ_LOG2_DEPTH))
			break;
		q->cq_head++;

		cmd_id = le16_to_cpu(cqe->cmd_id);
		resp_len = min_t(unsigned int, le16_to_cpu(cqe->resp_len),
				 SROCE_CMD_PAYLOAD_MAX);
		slot = &q->slots[cmd_id & SROCE_CMDQ_MASK];

		spin_lock(&q->lock);
		if (slot->state == SROCE_CMD_SLOT_FREE ||
		    slot->state == SROCE_CMD_SLOT_DONE ||
		    sroce_cmd_id(cmd_id & SROCE_CMDQ_MASK, slot->generation) !=
		    cmd_id) {
			spin_unlock(&q->lock);
			ibdev_err_ratelimited(&sdev->ibdev,
					      "stray command completion, id %#x\n",
					      cmd_id);
			continue;
		}
		slot->status = le16_to_cpu(cqe->status);
		slot->resp_len = resp_len;
		memcpy(slot->resp, cqe->payload, resp_len);
		if (slot->state == SROCE_CMD_SLOT_ABANDONED) {
			slot->state = SROCE_CMD_SLOT_FREE;
			up(&q->slots_free);
		} else {
			slot->state = SROCE_CMD_SLOT_DONE;
			complete(&slot->done);
		}
		spin_unlock(&q->lock);
	}
}

/* Act on one event of the async event queue. */
static void sroce_event_dispatch(struct sroce_dev *sdev,
				 const struct sroce_eq_entry *eqe)
{
	switch (le16_to_cpu(eqe->type)) {
	case SROCE_EVENT_PORT_CHANGE:
		sroce_handle_port_change(sdev, (const void *)eqe->data);
		break;
	case SROCE_EVENT_CQ_ERROR:
		sroce_handle_cq_event(sdev, SROCE_EVENT_CQ_ERROR,
				      (const void *)eqe->data);
		break;
	case SROCE_EVENT_SRQ_LIMIT:
		sroce_handle_srq_event(sdev, (const void *)eqe->data);
		break;
	case SROCE_EVENT_SQ_DRAINED:
		sroce_handle_qp_event(sdev, IB_EVENT_SQ_DRAINED,
				      (const void *)eqe->data);
		break;
	case SROCE_EVENT_LAST_WQE:
		sroce_handle_qp_event(sdev, IB_EVENT_QP_LAST_WQE_REACHED,
				      (const void *)eqe->data);
		break;
	case SROCE_EVENT_PAGE_FAULT:
		sroce_handle_page_fault(sdev, (const void *)eqe->data);
		break;
	default:
		ibdev_warn_ratelimited(&sdev->ibdev,
				       "unknown firmware event %u\n",
				       le16_to_cpu(eqe->type));
		break;
	}
}

/*
 * Copy the next new event of @ring (1 << @log2 slots) at *@head into @eqe
 * and step past it. Return: false if there is none.
 */
static bool sroce_eq_next(const struct sroce_eq_entry *ring, unsigned int log2,
			  u32 *head, struct sroce_eq_entry *eqe)
{
	const struct sroce_eq_entry *slot = &ring[*head & (BIT(log2) - 1)];
	/* Acquire: pairs with the firmware's release of the phase. */
	u16 flags = le16_to_cpu(smp_load_acquire(&slot->flags));

	if ((flags & SROCE_EQE_PHASE) != sroce_ring_phase(*head, log2))
		return false;
	*eqe = *slot;
	(*head)++;
	return true;
}

/* Async event vector: dispatch each new event, then return the slots. */
static void sroce_eq_reap(struct sroce_dev *sdev)
{
	struct sroce_eq_entry eqe;

	while (sroce_eq_next(sdev->eq, SROCE_EQ_LOG2_DEPTH, &sdev->eq_head,
			     &eqe))
		sroce_event_dispatch(sdev, &eqe);
	sroce_fw_ring_eq_doorbell(sdev->fw, sdev->eq_head);
}

/*
 * Completion vector, in softirq context: each new completion event, then
 * the slots back. Only CQ_COMPLETION belongs here; the handlers of the
 * other events may sleep.
 */
static void sroce_ceq_reap(struct sroce_dev *sdev)
{
	struct sroce_eq_entry eqe;
	bool any = false;

	while (sroce_eq_next(sdev->ceq, SROCE_CEQ_LOG2_DEPTH, &sdev->ceq_head,
			     &eqe)) {
		u16 type = le16_to_cpu(eqe.type);

		any = true;
		if (type == SROCE_EVENT_CQ_COMPLETION)
			sroce_handle_cq_event(sdev, type,
					      (const void *)eqe.data);
		else
			ibdev_warn_ratelimited(&sdev->ibdev,
					       "event %u on the completion event queue\n",
					       type);
	}
	if (any)
		sroce_fw_ring_ceq_doorbell(sdev->fw, sdev->ceq_head);
}

/**
 * sroce_hold_events() - stop or resume serving the event vectors
 * @sdev: the device
 * @hold: leave events in the event queues from now on, or no longer
 *
 * Fault injection for tests (debugfs hold_events): while held, events
 * pile up in the firmware as if the driver fell behind. Releasing serves
 * each vector that was raised meanwhile.
 *
 * Context: process context.
 */
void sroce_hold_events(struct sroce_dev *sdev, bool hold)
{
	mutex_lock(&sdev->eq_mutex);
	spin_lock_bh(&sdev->ceq_lock);
	sdev->hold_events = hold;
	if (!hold && sdev->ceq_held) {
		sdev->ceq_held = false;
		sroce_ceq_reap(sdev);
	}
	spin_unlock_bh(&sdev->ceq_lock);
	if (!hold && sdev->events_held) {
		sdev->events_held = false;
		sroce_eq_reap(sdev);
	}
	mutex_unlock(&sdev->eq_mutex);
}

/**
 * sroce_irq() - interrupt handler given to the firmware
 * @ctx: the struct sroce_dev
 * @vector: enum sroce_fw_vector
 */
void sroce_irq(void *ctx, unsigned int vector)
{
	struct sroce_dev *sdev = ctx;

	switch (vector) {
	case SROCE_VEC_CMD_COMPLETION:
		sroce_cmdq_reap(sdev);
		break;
	case SROCE_VEC_ASYNC_EVENT:
		mutex_lock(&sdev->eq_mutex);
		if (sdev->hold_events)
			sdev->events_held = true;
		else
			sroce_eq_reap(sdev);
		mutex_unlock(&sdev->eq_mutex);
		break;
	case SROCE_VEC_COMPLETION:
		spin_lock_bh(&sdev->ceq_lock);
		if (sdev->hold_events)
			sdev->ceq_held = true;
		else
			sroce_ceq_reap(sdev);
		spin_unlock_bh(&sdev->ceq_lock);
		break;
	}
}

/*
 * Memory the firmware may still use: kept until the function is detached.
 * Exactly one of @vmem and @mr is set.
 */
struct sroce_quarantined {
	struct list_head node;
	void *vmem;
	struct sroce_mr *mr;
};

/**
 * sroce_quarantine() - keep memory until the firmware is detached
 * @sdev: the device
 * @vmem: a ring (vmalloc memory) the firmware may still write, or NULL
 * @mr: a region whose page table and pages it may still use, or NULL
 *
 * For objects whose destroy command failed (or whose create failed once
 * the device is dead): the firmware may still hold their context, so the
 * memory is freed by sroce_hw_close() after sroce_fw_detach().
 *
 * Context: process context.
 */
void sroce_quarantine(struct sroce_dev *sdev, void *vmem,
		      struct sroce_mr *mr)
{
	struct sroce_quarantined *qe = kzalloc(sizeof(*qe), GFP_KERNEL);

	if (!qe) {
		/* Never free what the firmware may use: leak it. */
		ibdev_err_ratelimited(&sdev->ibdev,
				      "no memory to quarantine %p, leaked\n",
				      vmem ? vmem : (void *)mr);
		return;
	}
	qe->vmem = vmem;
	qe->mr = mr;
	mutex_lock(&sdev->quarantine_lock);
	list_add_tail(&qe->node, &sdev->quarantine);
	mutex_unlock(&sdev->quarantine_lock);
}

/*
 * Before detach frees the firmware: the MMU notifiers of kept on-demand
 * paging regions stop writing to it (it is stopped: it uses no page).
 */
static void sroce_quarantine_orphan(struct sroce_dev *sdev)
{
	struct sroce_quarantined *qe;

	mutex_lock(&sdev->quarantine_lock);
	list_for_each_entry(qe, &sdev->quarantine, node)
		if (qe->mr && qe->mr->odp)
			sroce_odp_orphan(qe->mr);
	mutex_unlock(&sdev->quarantine_lock);
}

/* The firmware is detached: free what it might have been using. */
static void sroce_quarantine_release(struct sroce_dev *sdev)
{
	struct sroce_quarantined *qe, *next;
	unsigned int n = 0;

	list_for_each_entry_safe(qe, next, &sdev->quarantine, node) {
		list_del(&qe->node);
		vfree(qe->vmem);
		if (qe->mr)
			sroce_mr_free(qe->mr);
		kfree(qe);
		n++;
	}
	if (n)
		ibdev_info(&sdev->ibdev,
			   "freed %u buffers kept from the dead firmware\n", n);
}

/**
 * sroce_hw_open() - allocate the queues and attach a NIC function
 * @sdev: the device, with @sdev->ndev set
 *
 * Return: 0 or a negative errno; on failure nothing is left to undo.
 */
int sroce_hw_open(struct sroce_dev *sdev)
{
	struct sroce_cmdq *q = &sdev->cmdq;
	struct sroce_fw_queue_cfg cfg = {
		.cmdq_log2_depth = SROCE_CMDQ_LOG2_DEPTH,
		.eq_log2_depth = SROCE_EQ_LOG2_DEPTH,
		.ceq_log2_depth = SROCE_CEQ_LOG2_DEPTH,
	};
	struct sroce_fw_dev *fw;
	unsigned int i;
	int err = -ENOMEM;

	INIT_WORK(&sdev->fatal_work, sroce_fatal_work);
	mutex_init(&sdev->quarantine_lock);
	mutex_init(&sdev->eq_mutex);
	spin_lock_init(&sdev->ceq_lock);
	mutex_init(&sdev->qos_mutex);
	INIT_LIST_HEAD(&sdev->quarantine);
	sema_init(&q->slots_free, SROCE_CMDQ_DEPTH);
	spin_lock_init(&q->lock);
	for (i = 0; i < SROCE_CMDQ_DEPTH; i++)
		init_completion(&q->slots[i].done);

	q->sq = kcalloc(SROCE_CMDQ_DEPTH, sizeof(*q->sq), GFP_KERNEL);
	if (!q->sq)
		goto err_out;
	q->cq = kcalloc(SROCE_CMDQ_DEPTH, sizeof(*q->cq), GFP_KERNEL);
	if (!q->cq)
		goto err_free_sq;
	sdev->eq = kcalloc(SROCE_EQ_DEPTH, sizeof(*sdev->eq), GFP_KERNEL);
	if (!sdev->eq)
		goto err_free_cq;
	sdev->ceq = kcalloc(BIT(SROCE_CEQ_LOG2_DEPTH), sizeof(*sdev->ceq),
			    GFP_KERNEL);
	if (!sdev->ceq)
		goto err_free_eq;

	cfg.cmdq = q->sq;
	cfg.cmd_cq = q->cq;
	cfg.eq = sdev->eq;
	cfg.ceq = sdev->ceq;
	fw = sroce_fw_attach(sdev->ndev, &cfg, sroce_irq, sdev);
	if (IS_ERR(fw)) {
		err = PTR_ERR(fw);
		goto err_free_ceq;
	}
	sdev->fw = fw;
	return 0;

err_free_ceq:
	kfree(sdev->ceq);
	sdev->ceq = NULL;
err_free_eq:
	kfree(sdev->eq);
	sdev->eq = NULL;
err_free_cq:
	kfree(q->cq);
	q->cq = NULL;
err_free_sq:
	kfree(q->sq);
	q->sq = NULL;
err_out:
	return err;
}

/**
 * sroce_hw_close() - detach the NIC function and free the queues
 * @sdev: the device; no command may be outstanding
 *
 * Safe on a device whose sroce_hw_open() failed or never ran. Memory kept
 * from a dead firmware is freed once it is detached.
 */
void sroce_hw_close(struct sroce_dev *sdev)
{
	if (sdev->fw) {
		cancel_work_sync(&sdev->fatal_work);
		sroce_quarantine_orphan(sdev);
		sroce_fw_detach(sdev->fw);
		sroce_quarantine_release(sdev);
	}
	sdev->fw = NULL;
	kfree(sdev->ceq);
	kfree(sdev->eq);
	kfree(sdev->cmdq.cq);
	kfree(sdev->cmdq.sq);
	sdev->ceq = NULL;
	sdev->eq = NULL;
	sdev->cmdq.cq = NULL;
	sdev->cmdq.sq = NULL;
}
