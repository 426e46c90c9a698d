// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * sroce firmware: queue pair contexts. CREATE_QP binds a QP to its PD,
 * CQs and rings; MODIFY_QP runs the IBA state machine (the transition and
 * attribute rules are the table in drivers/lib/qp_state.c) and validates
 * every attribute; QUERY_QP reads them back; DESTROY_QP releases the QP.
 */
#include <linux/slab.h>

#include "fw.h"
#include "lib/qp_state.h"

/* Send and receive slot sizes the rings must provide. */
static bool sroce_fw_qp_rings_ok(const struct sroce_create_qp_req *q,
				 bool has_rq)
{
	u32 max_inline = le32_to_cpu(q->max_inline);
	size_t send_room = max_t(size_t,
				 q->max_send_sge * sizeof(struct rxe_sge),
				 max_inline);

	if (!q->sq_addr || !q->sq_log2_slots ||
	    (1U << q->sq_log2_slots) > SROCE_FW_MAX_QP_WR + 1 ||
	    q->sq_log2_elem > SROCE_FW_MAX_WQE_LOG2 ||
	    sizeof(struct rxe_send_wqe) + send_room > (1U << q->sq_log2_elem) ||
	    q->max_send_sge > SROCE_FW_MAX_SGE ||
	    max_inline > SROCE_FW_MAX_INLINE)
		return false;
	if (!has_rq)
		return !q->rq_addr;
	return q->rq_addr && q->rq_log2_slots &&
	       (1U << q->rq_log2_slots) <= SROCE_FW_MAX_QP_WR + 1 &&
	       q->rq_log2_elem <= SROCE_FW_MAX_WQE_LOG2 &&
	       q->max_recv_sge <= SROCE_FW_MAX_SGE &&
	       sizeof(struct rxe_recv_wqe) +
	       q->max_recv_sge * sizeof(struct rxe_sge) <=
	       (1U << q->rq_log2_elem);
}

static struct sroce_fw_cq *sroce_fw_qp_get_cq(struct sroce_fw_dev *fw,
					      u32 cqn)
{
	struct sroce_fw_cq *cq;

	/* The command processor is the only one creating or destroying CQs. */
	cq = xa_load(&fw->cqs, cqn);
	if (cq)
		atomic_inc(&cq->users);
	return cq;
}

/*
 * The QP is unreachable by number: take it off the scheduler, the ODP
 * waiters, the event ring and its multicast groups, and stop its timers
 * (a retry timer would otherwise go on retiring WQEs to the CQ while the
 * end waits; an RCU reader arming one after this is ignored). RCU readers
 * still hold it until sroce_fw_qp_release().
 */
static void sroce_fw_qp_unlink(struct sroce_fw_qp *qp)
{
	sroce_fw_sched_remove(qp->fw, qp);
	sroce_fw_odp_unpark(qp->fw, qp);
	sroce_fw_event_src_kill(qp->fw, &qp->drained_ev);
	sroce_fw_event_src_kill(qp->fw, &qp->last_wqe_ev);
	sroce_fw_mcast_forget_qp(qp->fw, qp->qpn);
	timer_shutdown_sync(&qp->rnr_timer);
	timer_shutdown_sync(&qp->retry_timer);
}

/*
 * Free an unlinked QP once a grace period has passed since it became
 * unreachable: doorbells, received packets and the scheduler's runner
 * find QPs under RCU, so none of them holds it any more.
 */
static void sroce_fw_qp_release(struct sroce_fw_qp *qp)
{
	sroce_fw_qp_cc_stop(qp);
	kvfree(qp->track);
	kfree(qp->res);
	atomic_dec(&qp->scq->users);
	atomic_dec(&qp->rcq->users);
	if (qp->srq)
		atomic_dec(&qp->srq->users);
	kfree(qp->swqe);
	kfree(qp->rwqe);
	kfree(qp);
}

/* DESTROY_QP's end, a grace period after the QP became unreachable. */
static u16 sroce_fw_qp_end(struct sroce_fw_dev *fw,
			   struct sroce_fw_deferred *d)
{
	struct sroce_fw_qp *qp = container_of(d, struct sroce_fw_qp, end);
	u32 qpn = qp->qpn;

	sroce_fw_qp_release(qp);
	/* Only now may CREATE_QP hand the number out again. */
	xa_release(&fw->qps, qpn);
	return SROCE_FW_OK;
}

/**
 * sroce_fw_cmd_create_qp() - CREATE_QP: a queue pair in the RESET state
 * @fw: the function
 * @req: struct sroce_create_qp_req
 * @resp: struct sroce_create_qp_resp
 *
 * Return: enum sroce_fw_status.
 */
u16 sroce_fw_cmd_create_qp(struct sroce_fw_dev *fw, const void *req,
			   void *resp)
{
	const struct sroce_create_qp_req *q = req;
	struct sroce_create_qp_resp *r = resp;
	struct sroce_fw_qp *qp;
	u16 status;
	u32 qpn;
	int err;

	switch (q->qp_type) {
	case SROCE_QPT_GSI:
	case SROCE_QPT_RC:
	case SROCE_QPT_UC:
	case SROCE_QPT_UD:
		break;
	default:
		return SROCE_FW_ERR_BAD_PARAM;
	}
	if (q->port != 1 ||
	    (q->flags & ~(SROCE_QP_F_SIG_ALL | SROCE_QP_F_USER)) ||
	    !sroce_fw_qp_rings_ok(q, !q->srqn))
		return SROCE_FW_ERR_BAD_PARAM;
	if (!xa_load(&fw->pds, le32_to_cpu(q->pdn)))
		return SROCE_FW_ERR_NOT_FOUND;

	qp = kzalloc(sizeof(*qp), GFP_KERNEL);
	if (!qp)
		return SROCE_FW_ERR_NO_RESOURCES;
	spin_lock_init(&qp->lock);
	qp->type = q->qp_type;
	qp->flags = q->flags;
	qp->pdn = le32_to_cpu(q->pdn);
	qp->sq = (struct sroce_ring_hdr *)(uintptr_t)le64_to_cpu(q->sq_addr);
	qp->sq_mask = (1U << q->sq_log2_slots) - 1;
	qp->sq_log2_elem = q->sq_log2_elem;
	qp->max_send_sge = q->max_send_sge;
	qp->max_inline = le32_to_cpu(q->max_inline);
	qp->rq = (struct sroce_ring_hdr *)(uintptr_t)le64_to_cpu(q->rq_addr);
	qp->rq_mask = (1U << q->rq_log2_slots) - 1;
	qp->rq_log2_elem = q->rq_log2_elem;
	qp->max_recv_sge = q->max_recv_sge;
	WRITE_ONCE(qp->attr.state, SROCE_QPS_RESET);
	qp->attr.port = 1;
	qp->fw = fw;
	sroce_fw_event_src_init(&qp->drained_ev, SROCE_EVENT_SQ_DRAINED);
	sroce_fw_event_src_init(&qp->last_wqe_ev, SROCE_EVENT_LAST_WQE);
	timer_setup(&qp->rnr_timer, sroce_fw_rnr_timer, 0);
	INIT_LIST_HEAD(&qp->odp_node);
	timer_setup(&qp->retry_timer, sroce_fw_retry_timer, 0);
	sroce_fw_qp_cc_init(qp);
	qp->swqe = kmalloc(BIT(qp->sq_log2_elem), GFP_KERNEL);
	/* Big enough for a WQE of the QP's own ring or of any SRQ. */
	qp->rwqe = kmalloc(BIT(SROCE_FW_MAX_WQE_LOG2), GFP_KERNEL);
	qp->track = kvcalloc(qp->sq_mask + 1, sizeof(*qp->track), GFP_KERNEL);
	qp->sq_err_index = SROCE_FW_NO_SQ_ERR;
	/* RC responders answer READs, atomics, FLUSHes from a resource ring. */
	if (qp->type == SROCE_QPT_RC) {
		qp->res = kcalloc(SROCE_FW_MAX_RD_ATOMIC, sizeof(*qp->res),
				  GFP_KERNEL);
		if (qp->res)
			sroce_fw_resp_reset(qp);
	}
	if (!qp->swqe || !qp->rwqe || !qp->track ||
	    (qp->type == SROCE_QPT_RC && !qp->res)) {
		status = SROCE_FW_ERR_NO_RESOURCES;
		goto err_free;
	}

	if (q->srqn) {
		qp->srq = xa_load(&fw->srqs, le32_to_cpu(q->srqn));
		if (qp->srq)
			atomic_inc(&qp->srq->users);
	}
	qp->scq = sroce_fw_qp_get_cq(fw, le32_to_cpu(q->send_cqn));
	qp->rcq = sroce_fw_qp_get_cq(fw, le32_to_cpu(q->recv_cqn));
	if (!qp->scq || !qp->rcq || (q->srqn && !qp->srq)) {
		status = SROCE_FW_ERR_NOT_FOUND;
		goto err_put;
	}
	/* A QP receives through an SRQ of its own protection domain. */
	if (qp->srq && qp->srq->pdn != qp->pdn) {
		status = SROCE_FW_ERR_BAD_PARAM;
		goto err_put;
	}

	if (qp->type == SROCE_QPT_GSI) {
		qpn = SROCE_FW_GSI_QPN;
		err = xa_insert(&fw->qps, qpn, qp, GFP_KERNEL);
	} else {
		/*
		 * Cyclic: a number just freed is not given out again at once,
		 * or the new QP would receive the old one's stale packets.
		 */
		err = xa_alloc_cyclic(&fw->qps, &qpn, qp,
				      XA_LIMIT(SROCE_FW_MIN_QPN,
					       SROCE_FW_MIN_QPN +
					       SROCE_FW_MAX_QP - 1),
				      &fw->qpn_next, GFP_KERNEL);
		if (err > 0)	/* wrapped around: fine */
			err = 0;
	}
	if (err) {
		/* Only one GSI QP per port. */
		status = err == -EBUSY && qp->type == SROCE_QPT_GSI ?
			 SROCE_FW_ERR_BUSY : SROCE_FW_ERR_NO_RESOURCES;
		goto err_put;
	}
	qp->qpn = qpn;
	qp->sport = sroce_fw_qp_sport(qpn);
	r->qpn = cpu_to_le32(qpn);
	return SROCE_FW_OK;

err_put:
	if (qp->scq)
		atomic_dec(&qp->scq->users);
	if (qp->rcq)
		atomic_dec(&qp->rcq->users);
	if (qp->srq)
		atomic_dec(&qp->srq->users);
err_free:
	kfree(qp->res);
	kvfree(qp->track);
	kfree(qp->swqe);
	kfree(qp->rwqe);
	kfree(qp);
	return status;
}

/**
 * sroce_fw_check_av() - validate an address vector against the GID table
 * @fw: the function
 * @av: the address vector
 *
 * The source GID must be programmed and its type must match the network
 * type; an IPv4 source needs an IPv4-mapped destination.
 *
 * Return: enum sroce_fw_status.
 */
u16 sroce_fw_check_av(struct sroce_fw_dev *fw, const struct sroce_av *av)
{
	struct sroce_fw_gid *e;
	u16 status = SROCE_FW_OK;
	u8 want;

	if (av->sgid_index >= SROCE_FW_GID_TABLE_LEN ||
	    sroce_gid_is_zero(av->dgid))
		return SROCE_FW_ERR_BAD_PARAM;

	spin_lock_bh(&fw->gid_lock);
	e = &fw->gids[av->sgid_index];
	if (!e->valid) {
		status = SROCE_FW_ERR_BAD_PARAM;
	} else {
		if (e->type == SROCE_GID_ROCE_V1)
			want = SROCE_NET_ROCE_V1;
		else if (sroce_gid_is_v4mapped(e->gid))
			want = SROCE_NET_IPV4;
		else
			want = SROCE_NET_IPV6;
		if (av->net_type != want ||
		    (want == SROCE_NET_IPV4 && !sroce_gid_is_v4mapped(av->dgid)))
			status = SROCE_FW_ERR_BAD_PARAM;
	}
	spin_unlock_bh(&fw->gid_lock);
	return status;
}

/* Range checks of the attributes @mask asks to set. */
static u16 sroce_fw_qp_check_attr(struct sroce_fw_dev *fw, u32 mask,
				  const struct sroce_qp_attr *a)
{
	if (((mask & SROCE_QPA_PORT) && a->port != 1) ||
	    ((mask & SROCE_QPA_PKEY_INDEX) && le16_to_cpu(a->pkey_index)) ||
	    ((mask & SROCE_QPA_PATH_MTU) &&
	     !sroce_ib_mtu_bytes(a->path_mtu)) ||
	    ((mask & SROCE_QPA_TIMEOUT) && a->timeout > 31) ||
	    ((mask & SROCE_QPA_RETRY_CNT) && a->retry_cnt > 7) ||
	    ((mask & SROCE_QPA_RNR_RETRY) && a->rnr_retry > 7) ||
	    ((mask & SROCE_QPA_MIN_RNR_TIMER) && a->min_rnr_timer > 31) ||
	    ((mask & SROCE_QPA_MAX_QP_RD_ATOMIC) &&
	     a->max_rd_atomic > SROCE_FW_MAX_RD_ATOMIC) ||
	    ((mask & SROCE_QPA_MAX_DEST_RD_ATOMIC) &&
	     a->max_dest_rd_atomic > SROCE_FW_MAX_RD_ATOMIC) ||
	    ((mask & SROCE_QPA_DEST_QPN) &&
	     le32_to_cpu(a->dest_qpn) > 0xffffff) ||
	    ((mask & SROCE_QPA_ACCESS_FLAGS) &&
	     (le32_to_cpu(a->access_flags) & ~SROCE_QP_ACCESS_ALL)))
		return SROCE_FW_ERR_BAD_PARAM;
	if (mask & SROCE_QPA_AV)
		return sroce_fw_check_av(fw, &a->av);
	return SROCE_FW_OK;
}

/* Copy the attributes @mask selects; caller holds qp->lock. */
static void sroce_fw_qp_apply(struct sroce_fw_qp *qp, u32 mask,
			      const struct sroce_qp_attr *a)
{
	struct sroce_qp_attr *cur = &qp->attr;

	if (mask & SROCE_QPA_EN_SQD_ASYNC_NOTIFY)
		cur->en_sqd_async_notify = a->en_sqd_async_notify;
	if (mask & SROCE_QPA_ACCESS_FLAGS)
		cur->access_flags = a->access_flags;
	if (mask & SROCE_QPA_PKEY_INDEX)
		cur->pkey_index = a->pkey_index;
	if (mask & SROCE_QPA_QKEY)
		cur->qkey = a->qkey;
	if (mask & SROCE_QPA_AV) {
		cur->av = a->av;
		qp->path_valid = false;
	}
	if (mask & SROCE_QPA_PATH_MTU)
		cur->path_mtu = a->path_mtu;
	if (mask & SROCE_QPA_TIMEOUT)
		cur->timeout = a->timeout;
	if (mask & SROCE_QPA_RETRY_CNT)
		cur->retry_cnt = a->retry_cnt;
	if (mask & SROCE_QPA_RNR_RETRY)
		cur->rnr_retry = a->rnr_retry;
	if (mask & SROCE_QPA_RQ_PSN)
		cur->rq_psn = cpu_to_le32(le32_to_cpu(a->rq_psn) & 0xffffff);
	if (mask & SROCE_QPA_MAX_QP_RD_ATOMIC)
		cur->max_rd_atomic = a->max_rd_atomic;
	if (mask & SROCE_QPA_MIN_RNR_TIMER)
		cur->min_rnr_timer = a->min_rnr_timer;
	if (mask & SROCE_QPA_SQ_PSN)
		cur->sq_psn = cpu_to_le32(le32_to_cpu(a->sq_psn) & 0xffffff);
	if (mask & SROCE_QPA_MAX_DEST_RD_ATOMIC)
		cur->max_dest_rd_atomic = a->max_dest_rd_atomic;
	if (mask & SROCE_QPA_DEST_QPN)
		cur->dest_qpn = a->dest_qpn;
}

/* Back to RESET: the rings start over, empty. Caller holds qp->lock. */
static void sroce_fw_qp_reset(struct sroce_fw_qp *qp)
{
	qp->sq_cons = 0;
	qp->sq_next = 0;
	qp->sq_next_off = 0;
	qp->sq_high = 0;
	qp->rq_cons = 0;
	qp->in_msg = false;
	qp->rwqe_valid = false;
	qp->nak_sent = false;
	qp->msn = 0;
	qp->rd_atomic_out = 0;
	bitmap_zero(qp->rd_ahead, SROCE_FW_RD_AHEAD);
	qp->rd_gap_asked = false;
	qp->rnr_wait = false;
	qp->odp_rewind = false;
	qp->sq_err_index = SROCE_FW_NO_SQ_ERR;
	qp->last_wqe_raised = false;
	memset(qp->track, 0, (qp->sq_mask + 1) * sizeof(*qp->track));
	sroce_fw_qp_cc_reset(qp);
	if (qp->res)
		sroce_fw_resp_reset(qp);
	WRITE_ONCE(qp->sq->producer_index, 0);
	WRITE_ONCE(qp->sq->consumer_index, 0);
	if (qp->rq) {
		WRITE_ONCE(qp->rq->producer_index, 0);
		WRITE_ONCE(qp->rq->consumer_index, 0);
	}
}

/**
 * sroce_fw_cmd_modify_qp() - MODIFY_QP: change state and attributes
 * @fw: the function
 * @req: struct sroce_modify_qp_req
 * @resp: unused
 *
 * Return: enum sroce_fw_status: BAD_PARAM for an illegal transition, a
 * stale current state, or missing, unexpected or out-of-range attributes.
 */
u16 sroce_fw_cmd_modify_qp(struct sroce_fw_dev *fw, const void *req,
			   void *resp)
{
	const struct sroce_modify_qp_req *q = req;
	u32 mask = le32_to_cpu(q->attr_mask);
	u32 missing = 0, extra = 0;
	struct sroce_fw_qp *qp;
	unsigned int cur, next;
	u16 status;

	qp = xa_load(&fw->qps, le32_to_cpu(q->qpn));
	if (!qp)
		return SROCE_FW_ERR_NOT_FOUND;

	spin_lock_bh(&qp->lock);
	cur = qp->attr.state;
	if ((mask & SROCE_QPA_CUR_STATE) && q->attr.cur_state != cur &&
	    !(cur == SROCE_QPS_SQE || cur == SROCE_QPS_RTS)) {
		status = SROCE_FW_ERR_BAD_PARAM;
		goto out_unlock;
	}
	next = mask & SROCE_QPA_STATE ? q->attr.state : cur;
	if (sroce_qp_modify_check(qp->type, cur, next, mask, &missing,
				  &extra)) {
		pr_debug("sroce_fw: QP %u %s->%s refused: missing %#x extra %#x\n",
			 qp->qpn, sroce_qp_state_name(cur),
			 sroce_qp_state_name(next), missing, extra);
		/* Consumers expect EINVAL for any refused modification. */
		status = SROCE_FW_ERR_BAD_PARAM;
		goto out_unlock;
	}
	status = sroce_fw_qp_check_attr(fw, mask, &q->attr);
	if (status)
		goto out_unlock;
	/* SQD->SQD changes attributes only once the SQ is drained. */
	if (cur == SROCE_QPS_SQD && next == SROCE_QPS_SQD &&
	    qp->attr.sq_draining &&
	    (mask & ~(SROCE_QPA_STATE | SROCE_QPA_CUR_STATE))) {
		status = SROCE_FW_ERR_BAD_PARAM;
		goto out_unlock;
	}

	sroce_fw_qp_apply(qp, mask, &q->attr);
	if (next == SROCE_QPS_RESET && cur != SROCE_QPS_RESET)
		sroce_fw_qp_reset(qp);
	if (mask & SROCE_QPA_SQ_PSN) {
		qp->next_psn = le32_to_cpu(qp->attr.sq_psn);
		qp->una_psn = qp->next_psn;
		/*
		 * Where READ responses are expected from: left stale, a
		 * first READ whose PSNs wrap past it would take the
		 * responses from there on as its start.
		 */
		qp->comp_psn = qp->next_psn;
		bitmap_zero(qp->rd_ahead, SROCE_FW_RD_AHEAD);
		qp->rd_gap_asked = false;
	}
	if (mask & SROCE_QPA_RETRY_CNT)
		qp->retry_left = qp->attr.retry_cnt;
	if (mask & SROCE_QPA_RQ_PSN)
		qp->epsn = le32_to_cpu(qp->attr.rq_psn);
	if (mask & SROCE_QPA_RNR_RETRY)
		qp->rnr_left = qp->attr.rnr_retry;
	if (next == SROCE_QPS_SQD && cur != SROCE_QPS_SQD) {
		/* A message partly sent is finished; no other is started. */
		/*
		 * Every WQE ever sent, also those a rewind will send again,
		 * and the frontier one if it was partly sent.
		 */
		qp->sq_drain_index = qp->track[qp->sq_high].started ?
				     sroce_ring_next(qp->sq_high, qp->sq_mask) :
				     qp->sq_high;
		qp->attr.sq_draining = 1;
	} else if (next != SROCE_QPS_SQD) {
		qp->attr.sq_draining = 0;
	}
	if ((mask & SROCE_QPA_MAX_DEST_RD_ATOMIC) && qp->res)
		sroce_fw_resp_set_cap(qp);
	/* Connected QPs send at the priority of their path. */
	if ((mask & SROCE_QPA_AV) && qp->type != SROCE_QPT_UD &&
	    qp->type != SROCE_QPT_GSI)
		WRITE_ONCE(qp->prio,
			   sroce_fw_cc_prio(fw, qp->attr.av.sl,
					    qp->attr.av.traffic_class));
	WRITE_ONCE(qp->attr.state, next);
	/* Nothing in flight: drained at once. */
	sroce_fw_sq_drain_check(fw, qp);
out_unlock:
	spin_unlock_bh(&qp->lock);
	/* Entering RTS sends what is queued; entering ERROR flushes it. */
	if (!status && next != cur &&
	    (next == SROCE_QPS_RTS || next == SROCE_QPS_ERR))
		sroce_fw_ring_sq(fw, qp);
	return status;
}

/**
 * sroce_fw_cmd_query_qp() - QUERY_QP: read state and attributes
 * @fw: the function
 * @req: struct sroce_qp_req
 * @resp: struct sroce_qp_attr
 *
 * Return: enum sroce_fw_status.
 */
u16 sroce_fw_cmd_query_qp(struct sroce_fw_dev *fw, const void *req,
			  void *resp)
{
	const struct sroce_qp_req *q = req;
	struct sroce_qp_attr *r = resp;
	struct sroce_fw_qp *qp;

	qp = xa_load(&fw->qps, le32_to_cpu(q->qpn));
	if (!qp)
		return SROCE_FW_ERR_NOT_FOUND;
	spin_lock_bh(&qp->lock);
	*r = qp->attr;
	r->cur_state = qp->attr.state;
	spin_unlock_bh(&qp->lock);
	return SROCE_FW_OK;
}

/**
 * sroce_fw_cmd_destroy_qp() - DESTROY_QP: release a queue pair
 * @fw: the function
 * @req: struct sroce_qp_req
 * @resp: unused
 *
 * Return: enum sroce_fw_status.
 */
u16 sroce_fw_cmd_destroy_qp(struct sroce_fw_dev *fw, const void *req,
			    void *resp)
{
	const struct sroce_qp_req *q = req;
	u32 qpn = le32_to_cpu(q->qpn);
	struct sroce_fw_qp *qp;

	qp = xa_load(&fw->qps, qpn);
	if (!qp)
		return SROCE_FW_ERR_NOT_FOUND;
	/* Unreachable at once; the number stays reserved until the end. */
	if (WARN_ON_ONCE(xa_cmpxchg(&fw->qps, qpn, qp, XA_ZERO_ENTRY, 0) != qp))
		return SROCE_FW_ERR_INTERNAL;
	sroce_fw_qp_unlink(qp);
	return sroce_fw_defer(fw, &qp->end, sroce_fw_qp_end);
}

/**
 * sroce_fw_qps_destroy() - free every QP left at detach
 * @fw: the function
 */
void sroce_fw_qps_destroy(struct sroce_fw_dev *fw)
{
	struct sroce_fw_qp *qp, *next;
	LLIST_HEAD(gone);
	unsigned long qpn;

	xa_for_each(&fw->qps, qpn, qp) {
		xa_erase(&fw->qps, qpn);
		sroce_fw_qp_unlink(qp);
		llist_add(&qp->end.node, &gone);
	}
	/* A number still reserved would be a deferred end that was lost. */
	WARN_ON_ONCE(!xa_empty(&fw->qps));
	xa_destroy(&fw->qps);
	/* One grace period for them all. */
	synchronize_rcu();
	llist_for_each_entry_safe(qp, next, gone.first, end.node)
		sroce_fw_qp_release(qp);
}
