// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * sroce firmware: function attach/detach, the command processor and the
 * event queues. The command processor runs on the firmware's own workqueue,
 * the way a NIC's embedded CPU would: it copies each command out of the
 * driver's ring before looking at it, executes it, writes a completion and
 * raises the command completion vector once per batch. Commands that free
 * what RCU readers may hold complete after a grace period instead, out of
 * order (sroce_fw_defer()).
 */
#include <linux/slab.h>
#include <linux/rtnetlink.h>

#include "fw.h"

struct workqueue_struct *sroce_fw_wq;

typedef u16 (*sroce_fw_cmd_fn)(struct sroce_fw_dev *fw, const void *req,
			       void *resp);

static const sroce_fw_cmd_fn sroce_fw_cmds[SROCE_NUM_CMDS] = {
	[SROCE_CMDI_QUERY_DEVICE] = sroce_fw_cmd_query_device,
	[SROCE_CMDI_QUERY_PORT] = sroce_fw_cmd_query_port,
	[SROCE_CMDI_ADD_GID] = sroce_fw_cmd_add_gid,
	[SROCE_CMDI_DEL_GID] = sroce_fw_cmd_del_gid,
	[SROCE_CMDI_QUERY_GID] = sroce_fw_cmd_query_gid,
	[SROCE_CMDI_ALLOC_PD] = sroce_fw_cmd_alloc_pd,
	[SROCE_CMDI_DEALLOC_PD] = sroce_fw_cmd_dealloc_pd,
	[SROCE_CMDI_CREATE_CQ] = sroce_fw_cmd_create_cq,
	[SROCE_CMDI_DESTROY_CQ] = sroce_fw_cmd_destroy_cq,
	[SROCE_CMDI_RESIZE_CQ] = sroce_fw_cmd_resize_cq,
	[SROCE_CMDI_CREATE_QP] = sroce_fw_cmd_create_qp,
	[SROCE_CMDI_MODIFY_QP] = sroce_fw_cmd_modify_qp,
	[SROCE_CMDI_QUERY_QP] = sroce_fw_cmd_query_qp,
	[SROCE_CMDI_DESTROY_QP] = sroce_fw_cmd_destroy_qp,
	[SROCE_CMDI_ATTACH_MCAST] = sroce_fw_cmd_attach_mcast,
	[SROCE_CMDI_DETACH_MCAST] = sroce_fw_cmd_detach_mcast,
	[SROCE_CMDI_REG_MR] = sroce_fw_cmd_reg_mr,
	[SROCE_CMDI_DEREG_MR] = sroce_fw_cmd_dereg_mr,
	[SROCE_CMDI_ALLOC_MW] = sroce_fw_cmd_alloc_mw,
	[SROCE_CMDI_DEALLOC_MW] = sroce_fw_cmd_dealloc_mw,
	[SROCE_CMDI_CREATE_AH] = sroce_fw_cmd_create_ah,
	[SROCE_CMDI_DESTROY_AH] = sroce_fw_cmd_destroy_ah,
	[SROCE_CMDI_QUERY_STATS] = sroce_fw_cmd_query_stats,
	[SROCE_CMDI_CREATE_SRQ] = sroce_fw_cmd_create_srq,
	[SROCE_CMDI_MODIFY_SRQ] = sroce_fw_cmd_modify_srq,
	[SROCE_CMDI_QUERY_SRQ] = sroce_fw_cmd_query_srq,
	[SROCE_CMDI_DESTROY_SRQ] = sroce_fw_cmd_destroy_srq,
	[SROCE_CMDI_RESIZE_SRQ] = sroce_fw_cmd_resize_srq,
	[SROCE_CMDI_QUERY_CC_PARAMS] = sroce_fw_cmd_query_cc_params,
	[SROCE_CMDI_SET_CC_PARAM] = sroce_fw_cmd_set_cc_param,
	[SROCE_CMDI_QUERY_QOS] = sroce_fw_cmd_query_qos,
	[SROCE_CMDI_SET_QOS] = sroce_fw_cmd_set_qos,
	[SROCE_CMDI_QUERY_QP_CC] = sroce_fw_cmd_query_qp_cc,
	[SROCE_CMDI_QUERY_PFC] = sroce_fw_cmd_query_pfc,
	[SROCE_CMDI_SET_PFC] = sroce_fw_cmd_set_pfc,
	[SROCE_CMDI_QUERY_PFC_STATS] = sroce_fw_cmd_query_pfc_stats,
	[SROCE_CMDI_QUERY_PFC_BUFFER] = sroce_fw_cmd_query_pfc_buffer,
	[SROCE_CMDI_SET_PFC_BUFFER] = sroce_fw_cmd_set_pfc_buffer,
};

static void sroce_fw_complete(struct sroce_fw_dev *fw, u16 cmd_id,
			      u16 status, const void *resp,
			      unsigned int resp_len)
{
	unsigned int log2 = fw->q.cmdq_log2_depth;
	struct sroce_cmd_completion *cqe;

	cqe = &fw->q.cmd_cq[fw->cq_tail & ((1U << log2) - 1)];
	cqe->cmd_id = cpu_to_le16(cmd_id);
	cqe->status = cpu_to_le16(status);
	cqe->resp_len = cpu_to_le16(resp_len);
	memcpy(cqe->payload, resp, resp_len);
	/* The phase bit publishes the entry: everything above first. */
	smp_store_release(&cqe->flags,
			  cpu_to_le16(sroce_ring_phase(fw->cq_tail, log2)));
	fw->cq_tail++;
}

/* Return: false if the command completes later (sroce_fw_defer()). */
static bool sroce_fw_execute(struct sroce_fw_dev *fw,
			     const struct sroce_cmd_entry *cmd)
{
	u8 resp[SROCE_CMD_PAYLOAD_MAX] = {};
	unsigned int index;
	u16 cmd_id;
	u16 status;

	status = sroce_cmd_decode(cmd, &index, &cmd_id);
	fw->cmd_id = cmd_id;
	if (status == SROCE_FW_OK)
		status = sroce_fw_cmds[index](fw, cmd->payload, resp);
	/* Its end writes the completion (no payload: see sroce_fw_defer()). */
	if (status == SROCE_FW_DEFERRED)
		return false;
	sroce_fw_complete(fw, cmd_id, status, resp,
			  status == SROCE_FW_OK ? sroce_cmd_resp_len(index) : 0);
	return true;
}

/*
 * The grace-period waiter: one grace period for every end deferred so far
 * (destroys issued at the same time share it; one caller's loop of
 * destroys still waits for one each), then the command processor
 * finishes them. It runs beside the command processor, which goes on
 * executing the commands behind. The wait is an expedited one, because
 * the driver's command timeout runs meanwhile: synchronize_rcu() took 12 s
 * on the debug kernel under TCG, tearing a device down under traffic
 * (there, such traffic queues a kmemleak callback per freed object ahead
 * of its wake-up), where the expedited wait took at most 0.5 s. Its cost,
 * an IPI to each busy CPU per batch, is paid on a control path; kernels
 * that make every grace period normal (rcupdate.rcu_normal, PREEMPT_RT)
 * get a normal one.
 */
static void sroce_fw_deferred_work(struct work_struct *work)
{
	struct sroce_fw_dev *fw = container_of(work, struct sroce_fw_dev,
					       deferred_work);
	struct llist_node *batch, *last;

	while ((batch = llist_del_all(&fw->deferred_waiting))) {
		synchronize_rcu_expedited();
		for (last = batch; last->next; last = last->next)
			;
		llist_add_batch(batch, last, &fw->deferred_ready);
		queue_work(sroce_fw_wq, &fw->cmd_work);
	}
}

/**
 * sroce_fw_defer() - end the executing command after an RCU grace period
 * @fw: the function
 * @d: the deferred end, inside the object the command releases
 * @finish: frees the object and returns the command's status; runs in the
 *	    command processor once no RCU reader can hold the object
 *
 * For commands without a response payload whose handler has already made
 * its object unreachable. The commands behind it run meanwhile, and the
 * ends deferred while one grace period is awaited share the next one;
 * its completion may come after theirs.
 *
 * Context: a command handler, in the command processor.
 * Return: SROCE_FW_DEFERRED, for the handler to return.
 */
u16 sroce_fw_defer(struct sroce_fw_dev *fw, struct sroce_fw_deferred *d,
		   u16 (*finish)(struct sroce_fw_dev *fw,
				 struct sroce_fw_deferred *d))
{
	d->finish = finish;
	d->cmd_id = fw->cmd_id;
	llist_add(&d->node, &fw->deferred_waiting);
	queue_work(sroce_fw_wq, &fw->deferred_work);
	return SROCE_FW_DEFERRED;
}

/*
 * Finish the deferred ends whose grace period is over, oldest first, and
 * complete their commands if @reply (not while SROCE_FW_FAULT_DEFER_HOLD
 * holds them; detach, without @reply, finishes them regardless).
 * Return: true if a completion was written.
 */
static bool sroce_fw_deferred_end(struct sroce_fw_dev *fw, bool reply)
{
	struct sroce_fw_deferred *d, *next;
	struct llist_node *ready;
	bool completed = false;

	if (reply && READ_ONCE(fw->fault_defer_hold))
		return false;
	ready = llist_del_all(&fw->deferred_ready);
	llist_for_each_entry_safe(d, next, llist_reverse_order(ready), node) {
		u16 cmd_id = d->cmd_id;
		u16 status = d->finish(fw, d);

		if (reply) {
			sroce_fw_complete(fw, cmd_id, status, NULL, 0);
			completed = true;
		}
	}
	return completed;
}

static void sroce_fw_cmd_work(struct work_struct *work)
{
	struct sroce_fw_dev *fw = container_of(work, struct sroce_fw_dev,
					       cmd_work);
	u32 depth = 1U << fw->q.cmdq_log2_depth;
	/* Acquire: pairs with the doorbell's release of the new entries. */
	u32 tail = smp_load_acquire(&fw->sq_tail_db);
	struct sroce_cmd_entry cmd;
	bool completed = false;

	if (READ_ONCE(fw->stopped))
		return;
	completed = sroce_fw_deferred_end(fw, true);
	/* A doorbell claiming more than a ring's worth is a driver bug. */
	if (tail - fw->sq_head > depth) {
		pr_err_ratelimited("sroce_fw %s: command doorbell %u beyond head %u, ignored\n",
				   netdev_name(fw->ndev), tail, fw->sq_head);
		goto out_irq;
	}

	while (fw->sq_head != tail) {
		/* An injected stall holds the next command until cleared. */
		wait_event(fw->fault_wait, !READ_ONCE(fw->fault_cmd_stall) ||
			   READ_ONCE(fw->stopped));
		if (READ_ONCE(fw->stopped))
			break;
		/* Work on a private copy: the ring stays writable by the driver. */
		memcpy(&cmd, &fw->q.cmdq[fw->sq_head & (depth - 1)],
		       sizeof(cmd));
		if (sroce_fw_execute(fw, &cmd))
			completed = true;
		fw->sq_head++;
	}
out_irq:
	if (completed)
		fw->irq(fw->irq_ctx, SROCE_VEC_CMD_COMPLETION);
}

static void sroce_fw_event_irq_work(struct work_struct *work)
{
	struct sroce_fw_dev *fw = container_of(work, struct sroce_fw_dev,
					       event_irq_work);

	fw->irq(fw->irq_ctx, SROCE_VEC_ASYNC_EVENT);
}

static void sroce_fw_ceq_tasklet(struct tasklet_struct *t)
{
	struct sroce_fw_dev *fw = from_tasklet(fw, t, ceq_tasklet);

	fw->irq(fw->irq_ctx, SROCE_VEC_COMPLETION);
}

static void sroce_fw_eq_init(struct sroce_fw_eq *eq,
			     struct sroce_eq_entry *ring,
			     unsigned int log2_depth)
{
	spin_lock_init(&eq->lock);
	eq->ring = ring;
	eq->log2_depth = log2_depth;
	INIT_LIST_HEAD(&eq->backlog);
}

/* The queue a source's events go to. */
static struct sroce_fw_eq *sroce_fw_src_eq(struct sroce_fw_dev *fw,
					   const struct sroce_fw_event_src *src)
{
	return src->type == SROCE_EVENT_CQ_COMPLETION ? &fw->ceq : &fw->eq;
}

/* Raise @eq's vector. Caller holds eq->lock. */
static void sroce_fw_eq_raise(struct sroce_fw_dev *fw, struct sroce_fw_eq *eq)
{
	if (eq == &fw->ceq)
		tasklet_schedule(&fw->ceq_tasklet);
	else
		queue_work(sroce_fw_wq, &fw->event_irq_work);
}

/* Room for one more event in the ring? Caller holds eq->lock. */
static bool sroce_fw_eq_room(const struct sroce_fw_eq *eq)
{
	/* Acquire: the driver is done with slots before it returns them. */
	return eq->tail - smp_load_acquire(&eq->head_db) <
	       BIT(eq->log2_depth);
}

/* Write one event into the ring, which has room. Caller holds eq->lock. */
static void sroce_fw_eq_write(struct sroce_fw_eq *eq, unsigned int type,
			      const void *data, unsigned int len)
{
	struct sroce_eq_entry *eqe;

	eqe = &eq->ring[eq->tail & (BIT(eq->log2_depth) - 1)];
	eqe->type = cpu_to_le16(type);
	eqe->rsvd = 0;
	memset(eqe->data, 0, sizeof(eqe->data));
	memcpy(eqe->data, data, len);
	/* Release: the payload must be visible before the phase bit. */
	smp_store_release(&eqe->flags,
			  cpu_to_le16(sroce_ring_phase(eq->tail,
						       eq->log2_depth)));
	eq->tail++;
}

/**
 * sroce_fw_event_src_init() - prepare an event source
 * @src: the source, in a zeroed object context
 * @type: enum sroce_event_type of its events
 */
void sroce_fw_event_src_init(struct sroce_fw_event_src *src,
			     unsigned int type)
{
	INIT_LIST_HEAD(&src->node);
	src->type = type;
}

/**
 * sroce_fw_post_event() - raise an event to the driver
 * @fw: the function
 * @src: the object's source of this kind of event
 * @data: event payload
 * @len: payload size, at most SROCE_EVENT_DATA_MAX
 *
 * A CQ_COMPLETION event goes to the completion event queue, any other to
 * the async event queue. No event is lost. One that finds its ring full
 * (or others already waiting, so that events keep their order) waits on
 * that queue's backlog, and the queue's doorbell moves it into the ring
 * once the driver has returned slots.
 * A source whose event is still waiting is not queued twice: the waiting
 * event takes the newer payload, as a NIC coalesces an event it has not
 * yet written. Nothing is raised for a killed source or a stopped
 * function.
 *
 * Context: any; does not sleep.
 */
void sroce_fw_post_event(struct sroce_fw_dev *fw,
			 struct sroce_fw_event_src *src, const void *data,
			 unsigned int len)
{
	struct sroce_fw_eq *eq = sroce_fw_src_eq(fw, src);
	unsigned long flags;

	if (WARN_ON_ONCE(len > sizeof(src->data)))
		return;

	spin_lock_irqsave(&eq->lock, flags);
	if (READ_ONCE(fw->stopped) || src->dead)
		goto out_unlock;
	if (!src->queued && list_empty(&eq->backlog) && sroce_fw_eq_room(eq)) {
		sroce_fw_eq_write(eq, src->type, data, len);
		/* Under the lock: detach stops events, then cancels this. */
		sroce_fw_eq_raise(fw, eq);
		goto out_unlock;
	}
	memset(src->data, 0, sizeof(src->data));
	memcpy(src->data, data, len);
	if (!src->queued) {
		src->queued = true;
		list_add_tail(&src->node, &eq->backlog);
		sroce_fw_count(fw, SROCE_STAT_EQ_DEFERRED);
	}
out_unlock:
	spin_unlock_irqrestore(&eq->lock, flags);
}

/**
 * sroce_fw_event_src_kill() - an object goes away: forget its events
 * @fw: the function
 * @src: the object's event source
 *
 * A waiting event is dropped (it names an object the driver destroys) and
 * the source raises nothing more, so the object can be freed.
 *
 * Context: any; does not sleep.
 */
void sroce_fw_event_src_kill(struct sroce_fw_dev *fw,
			     struct sroce_fw_event_src *src)
{
	struct sroce_fw_eq *eq = sroce_fw_src_eq(fw, src);
	unsigned long flags;

	spin_lock_irqsave(&eq->lock, flags);
	src->dead = true;
	if (src->queued) {
		list_del_init(&src->node);
		src->queued = false;
	}
	spin_unlock_irqrestore(&eq->lock, flags);
}

/**
 * sroce_fw_stop() - stop the function after a fatal error
 * @fw: the function
 *
 * What a NIC does when its driver declares it dead: the command processor
 * executes nothing more (a command it is executing still completes, and
 * may still write its completion; deferred ends not finished yet never
 * complete), no event is raised and waiting ones are dropped, sends and
 * receives stop. Contexts and the driver's memory stay as they are
 * until sroce_fw_detach(), which frees the former and after which the
 * firmware no longer touches the latter.
 *
 * Context: process context; does not wait for the command processor.
 */
void sroce_fw_stop(struct sroce_fw_dev *fw)
{
	struct sroce_fw_eq *eqs[] = { &fw->eq, &fw->ceq };
	struct sroce_fw_event_src *src, *next;
	unsigned int i;

	/*
	 * Set first. A post to the CEQ that read it clear just before may
	 * still write its ring and schedule the tasklet, which detach
	 * kills; what it left on the backlog goes below.
	 */
	spin_lock_irq(&fw->eq.lock);
	WRITE_ONCE(fw->stopped, true);
	spin_unlock_irq(&fw->eq.lock);
	for (i = 0; i < ARRAY_SIZE(eqs); i++) {
		spin_lock_irq(&eqs[i]->lock);
		list_for_each_entry_safe(src, next, &eqs[i]->backlog, node) {
			list_del_init(&src->node);
			src->queued = false;
		}
		spin_unlock_irq(&eqs[i]->lock);
	}
	/* A stalled command processor wakes up and stops. */
	wake_up(&fw->fault_wait);
}

/**
 * sroce_fw_set_fault() - inject a fault, or stop injecting it
 * @fw: the function
 * @fault: enum sroce_fw_fault
 * @value: what the fault's comment in enum sroce_fw_fault says; 0 stops
 *	   injecting it
 *
 * Context: process context.
 * Return: 0, or -EINVAL for an unknown fault or a value it does not take.
 */
int sroce_fw_set_fault(struct sroce_fw_dev *fw, unsigned int fault,
		       u32 value)
{
	switch (fault) {
	case SROCE_FW_FAULT_CMD_STALL:
		if (value > 1)
			break;
		WRITE_ONCE(fw->fault_cmd_stall, value);
		wake_up(&fw->fault_wait);
		return 0;
	case SROCE_FW_FAULT_TX_NO_MEM:
		WRITE_ONCE(fw->fault_tx_no_mem, value);
		return 0;
	case SROCE_FW_FAULT_RX_DRAIN_MBPS:
		sroce_fw_rxbuf_drain(fw, false, value);
		return 0;
	case SROCE_FW_FAULT_RX_DRAIN_STOP:
		if (value > 1)
			break;
		sroce_fw_rxbuf_drain(fw, true, value);
		return 0;
	case SROCE_FW_FAULT_DEFER_HOLD:
		if (value > 1)
			break;
		WRITE_ONCE(fw->fault_defer_hold, value);
		/* Held ends may be waiting: let the command processor look. */
		if (!value)
			queue_work(sroce_fw_wq, &fw->cmd_work);
		return 0;
	default:
		pr_err_ratelimited("sroce_fw %s: unknown fault %u\n",
				   netdev_name(fw->ndev), fault);
		return -EINVAL;
	}
	pr_err_ratelimited("sroce_fw %s: fault %u does not take the value %u\n",
			   netdev_name(fw->ndev), fault, value);
	return -EINVAL;
}

static bool sroce_fw_queue_cfg_valid(const struct sroce_fw_queue_cfg *cfg)
{
	return cfg->cmdq && cfg->cmd_cq && cfg->eq && cfg->ceq &&
	       cfg->cmdq_log2_depth >= 1 &&
	       cfg->cmdq_log2_depth <= SROCE_FW_MAX_LOG2_DEPTH &&
	       cfg->eq_log2_depth >= 1 &&
	       cfg->eq_log2_depth <= SROCE_FW_MAX_LOG2_DEPTH &&
	       cfg->ceq_log2_depth >= 1 &&
	       cfg->ceq_log2_depth <= SROCE_FW_MAX_LOG2_DEPTH;
}

/**
 * sroce_fw_attach() - bring up a NIC function on an Ethernet device
 * @ndev: the netdev acting as the function's PHY; a reference is taken
 * @cfg: queue rings of the driver
 * @irq: the driver's interrupt handler
 * @ctx: argument passed to @irq
 *
 * Context: process context, takes RTNL.
 * Return: the function, or an ERR_PTR.
 */
struct sroce_fw_dev *sroce_fw_attach(struct net_device *ndev,
				     const struct sroce_fw_queue_cfg *cfg,
				     sroce_fw_irq_fn irq, void *ctx)
{
	struct sroce_fw_dev *fw;

	if (!sroce_fw_queue_cfg_valid(cfg) || !irq)
		return ERR_PTR(-EINVAL);

	fw = kzalloc(sizeof(*fw), GFP_KERNEL);
	if (!fw)
		return ERR_PTR(-ENOMEM);

	fw->q = *cfg;
	fw->irq = irq;
	fw->irq_ctx = ctx;
	INIT_WORK(&fw->cmd_work, sroce_fw_cmd_work);
	init_llist_head(&fw->deferred_waiting);
	INIT_WORK(&fw->deferred_work, sroce_fw_deferred_work);
	init_llist_head(&fw->deferred_ready);
	INIT_WORK(&fw->event_irq_work, sroce_fw_event_irq_work);
	tasklet_setup(&fw->ceq_tasklet, sroce_fw_ceq_tasklet);
	sroce_fw_sched_init(fw);
	sroce_fw_pfc_init(fw);
	sroce_fw_eq_init(&fw->eq, cfg->eq, cfg->eq_log2_depth);
	sroce_fw_eq_init(&fw->ceq, cfg->ceq, cfg->ceq_log2_depth);
	init_waitqueue_head(&fw->fault_wait);
	sroce_fw_event_src_init(&fw->port_ev, SROCE_EVENT_PORT_CHANGE);
	spin_lock_init(&fw->gid_lock);
	spin_lock_init(&fw->mr_lock);
	spin_lock_init(&fw->odp_wait_lock);
	INIT_LIST_HEAD(&fw->odp_waiters);
	xa_init_flags(&fw->pds, XA_FLAGS_ALLOC1);
	xa_init_flags(&fw->cqs, XA_FLAGS_ALLOC1);
	xa_init_flags(&fw->qps, XA_FLAGS_ALLOC);
	xa_init_flags(&fw->mrs, XA_FLAGS_ALLOC1);
	xa_init_flags(&fw->ahs, XA_FLAGS_ALLOC1);
	xa_init_flags(&fw->srqs, XA_FLAGS_ALLOC1);
	fw->stats = alloc_percpu(struct sroce_fw_stats);
	if (!fw->stats)
		goto err_free_fw;
	if (sroce_fw_cc_init(fw))
		goto err_free_stats;

	fw->ndev = ndev;
	netdev_hold(ndev, &fw->ndev_tracker, GFP_KERNEL);
	sroce_fw_port_attach(fw);
	return fw;

err_free_stats:
	free_percpu(fw->stats);
err_free_fw:
	kfree(fw);
	return ERR_PTR(-ENOMEM);
}

/**
 * sroce_fw_arm_events() - let the function post asynchronous events
 * @fw: the function
 *
 * Until armed, the function executes commands but reports no port change.
 *
 * Context: process context, takes RTNL.
 */
void sroce_fw_arm_events(struct sroce_fw_dev *fw)
{
	sroce_fw_port_arm(fw);
}

/**
 * sroce_fw_detach() - shut a NIC function down and free it
 * @fw: the function; the driver must have no command outstanding
 *
 * After return the firmware no longer touches the driver's rings and
 * raises no interrupt.
 *
 * Context: process context, takes RTNL.
 */
void sroce_fw_detach(struct sroce_fw_dev *fw)
{
	/* No event work is queued after this; the last one is cancelled below. */
	sroce_fw_stop(fw);
	/* Unfindable by address, then (after port detach's grace period) gone. */
	sroce_fw_gids_unhash(fw);
	sroce_fw_port_detach(fw);
	/* A command still executing may defer its end: let it finish first. */
	cancel_work_sync(&fw->cmd_work);
	/* Then the grace period of every deferred end... */
	flush_work(&fw->deferred_work);
	/* ...which queued the command processor again; stopped, it returns. */
	cancel_work_sync(&fw->cmd_work);
	/* Their commands get no completion, their objects go. */
	sroce_fw_deferred_end(fw, false);
	/* Nothing is received or commanded any more: the buffers empty. */
	sroce_fw_rxbuf_stop(fw);
	xa_destroy(&fw->pds);
	/* QPs first: they hold user counts on the CQs and SRQs. */
	sroce_fw_qps_destroy(fw);
	sroce_fw_srqs_destroy(fw);
	sroce_fw_cqs_destroy(fw);
	sroce_fw_mcgs_destroy(fw);
	sroce_fw_mrs_destroy(fw);
	sroce_fw_ahs_destroy(fw);
	/* Their callbacks run the scheduler: before its work is stopped. */
	sroce_fw_pfc_stop(fw);
	sroce_fw_sched_stop(fw);
	/* Last: QP timers and completions above could still have raised them. */
	cancel_work_sync(&fw->event_irq_work);
	tasklet_kill(&fw->ceq_tasklet);
	netdev_put(fw->ndev, &fw->ndev_tracker);
	sroce_fw_cc_free(fw);
	free_percpu(fw->stats);
	kfree(fw);
}

/**
 * sroce_fw_ring_cmd_doorbell() - tell the firmware new commands are queued
 * @fw: the function
 * @sq_tail: free-running producer position after the last new command
 *
 * Context: any; does not sleep.
 */
void sroce_fw_ring_cmd_doorbell(struct sroce_fw_dev *fw, u32 sq_tail)
{
	/* Release: the command entries must be visible before the tail. */
	smp_store_release(&fw->sq_tail_db, sq_tail);
	queue_work(sroce_fw_wq, &fw->cmd_work);
}

/* A doorbell of @eq: @head slots consumed; the backlog moves in. */
static void sroce_fw_eq_doorbell(struct sroce_fw_dev *fw,
				 struct sroce_fw_eq *eq, u32 head)
{
	struct sroce_fw_event_src *src;
	unsigned long flags;
	bool moved = false;

	/* Release: the driver's reads of the slots come first. */
	smp_store_release(&eq->head_db, head);

	spin_lock_irqsave(&eq->lock, flags);
	while (!list_empty(&eq->backlog) && sroce_fw_eq_room(eq)) {
		src = list_first_entry(&eq->backlog, struct sroce_fw_event_src,
				       node);
		list_del_init(&src->node);
		src->queued = false;
		sroce_fw_eq_write(eq, src->type, src->data, sizeof(src->data));
		moved = true;
	}
	/* The backlog is empty once stopped: nothing is raised then. */
	if (moved)
		sroce_fw_eq_raise(fw, eq);
	spin_unlock_irqrestore(&eq->lock, flags);
}

/**
 * sroce_fw_ring_eq_doorbell() - return consumed async event slots
 * @fw: the function
 * @eq_head: free-running consumer position after the last handled event
 *
 * Events waiting on the backlog move into the returned slots, oldest
 * first, and raise the async-event vector again.
 *
 * Context: any; does not sleep.
 */
void sroce_fw_ring_eq_doorbell(struct sroce_fw_dev *fw, u32 eq_head)
{
	sroce_fw_eq_doorbell(fw, &fw->eq, eq_head);
}

/**
 * sroce_fw_ring_ceq_doorbell() - return consumed completion event slots
 * @fw: the function
 * @ceq_head: free-running consumer position after the last handled event
 *
 * As sroce_fw_ring_eq_doorbell(), for the completion event queue and
 * vector.
 *
 * Context: any; does not sleep.
 */
void sroce_fw_ring_ceq_doorbell(struct sroce_fw_dev *fw, u32 ceq_head)
{
	sroce_fw_eq_doorbell(fw, &fw->ceq, ceq_head);
}

/**
 * sroce_fw_subsystem_init() - start the firmware shared by all functions
 *
 * Claims the RoCE v2 UDP port and starts watching Ethernet PHY state.
 *
 * Return: 0, or -EADDRINUSE if another RoCE stack owns UDP port 4791, or
 * another negative errno.
 */
int sroce_fw_subsystem_init(void)
{
	int err;

	sroce_fw_wq = alloc_workqueue("sroce_fw", WQ_UNBOUND, 0);
	if (!sroce_fw_wq)
		return -ENOMEM;

	err = sroce_fw_net_init();
	if (err)
		goto err_destroy_wq;

	err = sroce_fw_port_init();
	if (err)
		goto err_net_exit;
	return 0;

err_net_exit:
	sroce_fw_net_exit();
err_destroy_wq:
	destroy_workqueue(sroce_fw_wq);
	return err;
}

/**
 * sroce_fw_subsystem_exit() - stop the firmware; all functions detached
 */
void sroce_fw_subsystem_exit(void)
{
	sroce_fw_port_exit();
	sroce_fw_net_exit();
	destroy_workqueue(sroce_fw_wq);
}
