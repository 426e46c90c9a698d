// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * sroce firmware: the completer of RC queue pairs. Acknowledgements retire
 * the WQEs they cover, in order, into the send CQ; a sequence NAK sends
 * again from the first unacknowledged WQE (go-back-N); an RNR NAK does so
 * after the delay it asks for, as many times as rnr_retry allows; other
 * NAKs complete the WQE in error and take the QP to ERROR.
 *
 * READ responses are placed into the READ WQE's buffers in PSN order and
 * complete it with the last one; an ATOMIC ACKNOWLEDGE brings the original
 * value; an empty READ response completes a FLUSH. Each acknowledges every
 * WQE before theirs. The transport timer resends when nothing comes back,
 * retry_cnt times.
 */
#include <rdma/ib_verbs.h>

#include "fw.h"
#include "lib/psn.h"
#include "lib/qp_state.h"
#include "lib/ring.h"

/* RNR NAK timer codes in microseconds (IBA table 45). */
static const u32 sroce_rnr_usec[32] = {
	655360, 10, 20, 30, 40, 60, 80, 120, 160, 240, 320, 480, 640, 960,
	1280, 1920, 2560, 3840, 5120, 7680, 10240, 15360, 20480, 30720,
	40960, 61440, 81920, 122880, 163840, 245760, 327680, 491520,
};

/*
 * Send again from @psn, the first PSN the responder has not got, which
 * may be in the middle of the oldest WQE: a long message under loss must
 * not start over each time (it might never get through). Caller holds
 * qp->lock.
 */
static void sroce_fw_rewind(struct sroce_fw_dev *fw, struct sroce_fw_qp *qp,
			    u32 psn)
{
	const struct sroce_fw_sq_track *t = &qp->track[qp->sq_cons];

	/* A partly sent WQE starts at sq_next itself. */
	if (qp->sq_cons == qp->sq_next && !qp->sq_next_off)
		return;
	if (!sroce_psn_in_range(psn, t->first_psn, t->last_psn) ||
	    (sroce_fw_wr_is_rd_atomic(t->opcode) &&
	     t->opcode != IB_WR_RDMA_READ))
		psn = t->first_psn;
	qp->sq_next = qp->sq_cons;
	qp->sq_next_off = (u64)sroce_psn_diff(psn, t->first_psn) *
			  sroce_fw_qp_pmtu(fw, qp);
	qp->next_psn = psn;
	qp->una_psn = psn;
	/*
	 * Responses placed ahead of comp_psn stay placed if sending resumes
	 * there: a late one still completes the run at once.
	 */
	if (psn != qp->comp_psn)
		bitmap_zero(qp->rd_ahead, SROCE_FW_RD_AHEAD);
	qp->comp_psn = psn;
	/* Every READ, atomic, FLUSH from here on is sent, and counted, again. */
	qp->rd_atomic_out = 0;
}

/*
 * The transport timeout: 4.096 us * 2^timeout (IBA 9.7.6.1.3), >= 10 ms.
 * Counted in nanoseconds: timeouts 30 and 31 (73 and 147 minutes) do not
 * fit a 32-bit count of microseconds.
 */
static unsigned long sroce_fw_retry_jiffies(const struct sroce_fw_qp *qp)
{
	u64 nsec = 4096ULL << qp->attr.timeout;

	/* At least 10 ms: a slow emulated machine must not resend needlessly. */
	return nsecs_to_jiffies(max_t(u64, nsec, 10 * NSEC_PER_MSEC));
}

/**
 * sroce_fw_arm_retry() - keep the transport timer running while packets
 * are out
 * @qp: the QP, whose lock is held
 * @restart: the timeout counts from now: an ACK made progress, or sending
 *	     began with nothing outstanding
 *
 * The timer is not moved on every packet and ACK (two timer-wheel
 * operations per packet): only @retry_deadline is, and the timer, when it
 * fires early, sleeps again until then. A timeout of 0 means never.
 */
void sroce_fw_arm_retry(struct sroce_fw_qp *qp, bool restart)
{
	bool pending = timer_pending(&qp->retry_timer);

	/* A pending timer finds nothing outstanding and stops by itself. */
	if (!sroce_fw_outstanding(qp) || !qp->attr.timeout)
		return;
	if (restart || !pending) {
		u8 prio = READ_ONCE(qp->prio);

		qp->retry_deadline = jiffies + sroce_fw_retry_jiffies(qp);
		qp->retry_paused_prio = prio;
		qp->retry_paused_ns = sroce_fw_prio_paused_ns(qp->fw, prio);
	}
	if (!pending)
		mod_timer(&qp->retry_timer, qp->retry_deadline);
}

/**
 * sroce_fw_retry_defer() - the transport timeout does not count time a
 * QP's next packet waits for its pacing
 * @qp: the QP, whose lock is held
 * @wait_ns: how long the reaction point holds its next packet
 *
 * With packets outstanding, the deadline becomes at least a full timeout
 * after the held packet is due.
 */
void sroce_fw_retry_defer(struct sroce_fw_qp *qp, u64 wait_ns)
{
	unsigned long deadline;

	if (qp->type != SROCE_QPT_RC || !sroce_fw_outstanding(qp) ||
	    !qp->attr.timeout)
		return;
	deadline = jiffies + nsecs_to_jiffies(wait_ns) +
		   sroce_fw_retry_jiffies(qp);
	if (time_after(deadline, qp->retry_deadline))
		qp->retry_deadline = deadline;
}

/*
 * Whether the transport timer of @qp, due now, is to wait because its
 * priority was paused by the link partner (PFC) since the deadline was
 * set: the time paused does not count. While a pause lasts, the timer
 * sleeps a timeout at a time; when it has ended, the deadline moves on
 * by what it lasted. Caller holds qp->lock.
 */
static bool sroce_fw_retry_paused(struct sroce_fw_qp *qp)
{
	u8 prio = READ_ONCE(qp->prio);
	u64 paused;

	if (sroce_fw_prio_paused(qp->fw, prio)) {
		mod_timer(&qp->retry_timer,
			  jiffies + sroce_fw_retry_jiffies(qp));
		return true;
	}
	paused = sroce_fw_prio_paused_ns(qp->fw, prio);
	/*
	 * The QP moved to another priority (SET_QOS, a new path): that
	 * priority's count is no measure of this deadline; start afresh.
	 */
	if (prio != qp->retry_paused_prio) {
		qp->retry_paused_prio = prio;
		qp->retry_paused_ns = paused;
		return false;
	}
	if (paused <= qp->retry_paused_ns)
		return false;
	qp->retry_deadline += nsecs_to_jiffies(paused - qp->retry_paused_ns);
	qp->retry_paused_ns = paused;
	if (!time_before(jiffies, qp->retry_deadline))
		return false;
	mod_timer(&qp->retry_timer, qp->retry_deadline);
	return true;
}

/*
 * The peer answered something new (una_psn moved, a WQE retired, a
 * response was taken): the retries are refilled and the timeout counts
 * from now, or from the resend if a rewind left nothing outstanding.
 * Caller holds qp->lock.
 */
static void sroce_fw_progress(struct sroce_fw_qp *qp)
{
	qp->rnr_left = qp->attr.rnr_retry;
	qp->retry_left = qp->attr.retry_cnt;
	qp->retry_restart = true;
	sroce_fw_arm_retry(qp, true);
}

/**
 * sroce_fw_retry_timer() - no ACK came in time: send again, or give up
 * @t: the QP's retry_timer
 */
void sroce_fw_retry_timer(struct timer_list *t)
{
	struct sroce_fw_qp *qp = timer_container_of(qp, t, retry_timer);
	struct sroce_fw_dev *fw = qp->fw;

	spin_lock_bh(&qp->lock);
	if (!sroce_fw_qp_sends(qp) || !sroce_fw_outstanding(qp) ||
	    !qp->attr.timeout)
		goto out_unlock;
	/* ACKs came since the timer was set: wait the rest. */
	if (time_before(jiffies, qp->retry_deadline)) {
		mod_timer(&qp->retry_timer, qp->retry_deadline);
		goto out_unlock;
	}
	if (sroce_fw_retry_paused(qp))
		goto out_unlock;
	sroce_fw_count(fw, SROCE_STAT_ACK_TIMEOUT);
	if (!qp->retry_left) {
		sroce_fw_count(fw, SROCE_STAT_RETRY_EXC);
		/*
		 * The oldest WQE fails, even one only partly sent; the flush
		 * completes the others.
		 */
		if (qp->sq_cons != qp->sq_next || sroce_fw_outstanding(qp))
			sroce_fw_sq_retire(fw, qp, IB_WC_RETRY_EXC_ERR);
		WRITE_ONCE(qp->attr.state, SROCE_QPS_ERR);
	} else {
		qp->retry_left--;
		sroce_fw_rewind(fw, qp, qp->una_psn);
	}
	sroce_fw_sched_add(fw, qp);
out_unlock:
	spin_unlock_bh(&qp->lock);
	sroce_fw_sched_run(fw);
}

/**
 * sroce_fw_rnr_timer() - the RNR delay is over: send again
 * @t: the QP's rnr_timer
 */
void sroce_fw_rnr_timer(struct timer_list *t)
{
	struct sroce_fw_qp *qp = timer_container_of(qp, t, rnr_timer);

	spin_lock_bh(&qp->lock);
	qp->rnr_wait = false;
	spin_unlock_bh(&qp->lock);
	sroce_fw_ring_sq(qp->fw, qp);
}

/*
 * Retire WQEs whose last packet is at or before @psn. READs, atomics and
 * FLUSHes only complete with their responses: an ACK beyond one whose
 * response is missing means the response was lost, so send again from
 * there.
 * Return: true if it rewound; the caller must then leave una_psn and
 * next_psn where the rewind put them.
 */
static bool sroce_fw_retire(struct sroce_fw_dev *fw, struct sroce_fw_qp *qp,
			    u32 psn)
{
	const struct sroce_fw_sq_track *t;
	u32 comp;

	while (qp->sq_cons != qp->sq_next &&
	       sroce_psn_before_eq(qp->track[qp->sq_cons].last_psn, psn)) {
		if (sroce_fw_wr_is_rd_atomic(qp->track[qp->sq_cons].opcode))
			goto rewind;
		sroce_fw_sq_retire(fw, qp, IB_WC_SUCCESS);
	}
	/*
	 * An ACK reaching into a READ still being answered (also one that
	 * asked for its first parts only): a response it covers that did not
	 * come was lost.
	 */
	t = &qp->track[qp->sq_cons];
	if ((qp->sq_cons == qp->sq_next && !qp->sq_next_off) ||
	    !sroce_fw_wr_is_rd_atomic(t->opcode) ||
	    sroce_psn_before(psn, t->first_psn))
		return false;
	comp = sroce_psn_in_range(qp->comp_psn, t->first_psn, t->last_psn) ?
	       qp->comp_psn : t->first_psn;
	if (sroce_psn_after(comp, psn))
		return false;
rewind:
	/* A response dropped for want of a page is asked for when it comes. */
	if (qp->odp_rewind)
		return true;
	sroce_fw_rewind(fw, qp, qp->comp_psn);
	sroce_fw_sched_add(fw, qp);
	return true;
}

/*
 * Place what a READ response or an ATOMIC ACKNOWLEDGE brings into the
 * buffers of the WQE at sq_cons, whose SGEs are read again from the ring
 * and checked again. Return: 0 or -errno. Caller holds qp->lock.
 */
static int sroce_fw_place_response(struct sroce_fw_dev *fw,
				   struct sroce_fw_qp *qp,
				   const struct sroce_fw_sq_track *t,
				   const struct sroce_fw_pkt *pkt)
{
	const struct sroce_roce_info *info = &pkt->info;
	u64 off, orig;

	memcpy(qp->swqe, sroce_ring_slot(qp->sq, qp->sq_cons, qp->sq_mask,
					 qp->sq_log2_elem),
	       BIT(qp->sq_log2_elem));
	if (qp->swqe->dma.num_sge > qp->max_send_sge)
		return -EINVAL;
	if (info->opcode == SROCE_OP_ATOMIC_ACK) {
		orig = sroce_atmack_orig(pkt->hdr + info->off[SROCE_EXT_ATMACK]);
		return sroce_fw_sge_copy(fw, qp->pdn, qp->swqe->dma.sge,
					 qp->swqe->dma.num_sge, 0, &orig,
					 sizeof(orig), true);
	}
	off = (u64)sroce_psn_diff(info->psn, t->first_psn) *
	      sroce_fw_qp_pmtu(fw, qp);
	return sroce_fw_sge_copy(fw, qp->pdn, qp->swqe->dma.sge,
				 qp->swqe->dma.num_sge, off,
				 pkt->hdr + info->payload_off, info->payload_len,
				 true);
}

/* A response could not be placed: the WQE fails, and the QP. */
static void sroce_fw_response_unplaceable(struct sroce_fw_dev *fw,
					  struct sroce_fw_qp *qp)
{
	sroce_fw_sq_retire(fw, qp, IB_WC_LOC_PROT_ERR);
	WRITE_ONCE(qp->attr.state, SROCE_QPS_ERR);
	sroce_fw_sched_add(fw, qp);
}

/* Whether the READ response at @psn was placed ahead of comp_psn. */
static bool sroce_fw_rd_ahead_test(const struct sroce_fw_qp *qp, u32 psn)
{
	return test_bit(psn % SROCE_FW_RD_AHEAD, qp->rd_ahead);
}

/*
 * A READ response beyond comp_psn, the one expected: that one is late or
 * was lost. This one is placed now (the send window keeps it within
 * SROCE_FW_RD_AHEAD of comp_psn), so that a response only reordered
 * costs nothing. Once the last response asked for so far has come (of
 * the READ's final part, or of a part a long READ is asked in), the
 * missing one was lost (the path keeps order but for rare reordering):
 * it is asked for again at once, rather than after a transport timeout,
 * and once for each comp_psn, so that the responses to the first request
 * still on their way do not ask again. Caller holds qp->lock.
 */
static void sroce_fw_read_ahead(struct sroce_fw_dev *fw,
				struct sroce_fw_qp *qp,
				const struct sroce_fw_sq_track *t,
				struct sroce_fw_pkt *pkt)
{
	const struct sroce_roce_info *info = &pkt->info;
	u32 ahead;
	int err;

	if (t->opcode != IB_WR_RDMA_READ ||
	    !sroce_psn_after(info->psn, qp->comp_psn))
		return;		/* a duplicate of one placed already */
	ahead = sroce_psn_diff(info->psn, qp->comp_psn);
	if (ahead < SROCE_FW_RD_AHEAD &&
	    !sroce_fw_rd_ahead_test(qp, info->psn)) {
		err = sroce_fw_place_response(fw, qp, t, pkt);
		if (!err) {
			__set_bit(info->psn % SROCE_FW_RD_AHEAD, qp->rd_ahead);
		} else if (err != -EAGAIN) {
			sroce_fw_response_unplaceable(fw, qp);
			return;
		}
		/* -EAGAIN (an absent ODP page): it comes again. */
	}
	if (info->psn != sroce_psn_sub(t->asked_end, 1) || qp->odp_rewind ||
	    (qp->rd_gap_asked && qp->rd_gap_psn == qp->comp_psn))
		return;
	qp->rd_gap_asked = true;
	qp->rd_gap_psn = qp->comp_psn;
	sroce_fw_rewind(fw, qp, qp->comp_psn);
	pkt->ready_qp = qp;
}

/* A READ response or atomic ACK for the WQE at sq_cons. Holds qp->lock. */
static void sroce_fw_complete_rd_atomic(struct sroce_fw_dev *fw,
					struct sroce_fw_qp *qp,
					struct sroce_fw_pkt *pkt)
{
	const struct sroce_roce_info *info = &pkt->info;
	bool empty_only = info->opcode == SROCE_OP_READ_RESP_ONLY &&
			  !info->payload_len;
	bool atomic = info->opcode == SROCE_OP_ATOMIC_ACK;
	struct sroce_fw_sq_track *t;
	bool kind_ok, flush;
	u32 gen;
	int err;

	/* Responses acknowledge every WQE before the one they answer. */
	while (qp->sq_cons != qp->sq_next &&
	       sroce_psn_before(qp->track[qp->sq_cons].last_psn, info->psn) &&
	       !sroce_fw_wr_is_rd_atomic(qp->track[qp->sq_cons].opcode))
		sroce_fw_sq_retire(fw, qp, IB_WC_SUCCESS);
	/* Nothing sent, unless a long READ asked for its first parts only. */
	if (qp->sq_cons == qp->sq_next && !qp->sq_next_off)
		return;
	t = &qp->track[qp->sq_cons];
	/*
	 * rdma_rxe answers an ATOMIC WRITE with an empty READ response rather
	 * than an ACK (sroce's responder ACKs it): it acknowledges the WQE.
	 */
	if (t->opcode == SROCE_FW_WR_ATOMIC_WRITE && empty_only &&
	    info->psn == t->first_psn) {
		sroce_fw_sq_retire(fw, qp, IB_WC_SUCCESS);
		if (sroce_psn_after(sroce_psn_add(info->psn, 1), qp->una_psn))
			qp->una_psn = sroce_psn_add(info->psn, 1);
		sroce_fw_progress(qp);
		if (sroce_fw_req_waiting(qp))
			pkt->ready_qp = qp;
		return;
	}
	/* A FLUSH is answered by an empty READ RESPONSE ONLY (IBA 1.5 A19). */
	flush = t->opcode == SROCE_FW_WR_RDMA_FLUSH;
	if (atomic)
		kind_ok = t->opcode == IB_WR_ATOMIC_CMP_AND_SWP ||
			  t->opcode == IB_WR_ATOMIC_FETCH_AND_ADD;
	else
		kind_ok = t->opcode == IB_WR_RDMA_READ || (flush && empty_only);
	/* Within what was asked for: a response never asked is forged. */
	if (!kind_ok || sroce_psn_before(info->psn, t->first_psn) ||
	    sroce_psn_after(info->psn, t->last_psn) ||
	    !sroce_psn_before(info->psn, t->asked_end))
		return;		/* stale or not ours */
	if (sroce_psn_before(qp->comp_psn, t->first_psn) ||
	    sroce_psn_after(qp->comp_psn, t->last_psn)) {
		qp->comp_psn = t->first_psn;
		bitmap_zero(qp->rd_ahead, SROCE_FW_RD_AHEAD);
	}
	if (info->psn != qp->comp_psn) {
		sroce_fw_read_ahead(fw, qp, t, pkt);
		return;
	}

	/* A FLUSH has nothing to place: the answer is all that comes back. */
	gen = sroce_fw_odp_gen(fw);
	err = flush ? 0 : sroce_fw_place_response(fw, qp, t, pkt);
	if (err == -EAGAIN) {
		/*
		 * A page of an on-demand paging region is absent: dropped,
		 * and asked for again once the driver has written pages
		 * (the responses behind it are gaps until then).
		 */
		qp->odp_rewind = true;
		qp->odp_rewind_psn = info->psn;
		qp->odp_rewind_cons = qp->sq_cons;
		if (!sroce_fw_odp_park(fw, qp, gen)) {
			/* Pages came meanwhile: ask again now. */
			sroce_fw_odp_resume_completer(fw, qp);
			pkt->ready_qp = qp;
		}
		return;
	}
	if (err) {
		sroce_fw_response_unplaceable(fw, qp);
		return;
	}

	/* This one, and those placed ahead of it that follow without a gap. */
	qp->comp_psn = sroce_psn_add(info->psn, 1);
	while (sroce_fw_rd_ahead_test(qp, qp->comp_psn)) {
		__clear_bit(qp->comp_psn % SROCE_FW_RD_AHEAD, qp->rd_ahead);
		qp->comp_psn = sroce_psn_add(qp->comp_psn, 1);
	}
	qp->rd_gap_asked = false;
	if (sroce_psn_after(qp->comp_psn, qp->una_psn))
		qp->una_psn = qp->comp_psn;
	/*
	 * A response a rewind had given up for came after all: sending
	 * resumes behind it, and una_psn stays at or before next_psn.
	 */
	if (sroce_psn_after(qp->una_psn, qp->next_psn)) {
		qp->next_psn = qp->una_psn;
		if (qp->sq_next == qp->sq_cons)
			qp->sq_next_off = (u64)sroce_psn_diff(qp->next_psn,
							      t->first_psn) *
					  sroce_fw_qp_pmtu(fw, qp);
	}
	if (qp->comp_psn == sroce_psn_add(t->last_psn, 1)) {
		sroce_fw_sq_retire(fw, qp, IB_WC_SUCCESS);
		if (qp->rd_atomic_out)
			qp->rd_atomic_out--;
	}
	sroce_fw_progress(qp);
	/* The window may have reopened: the receive path runs the QP. */
	if (sroce_fw_req_waiting(qp))
		pkt->ready_qp = qp;
}

/**
 * sroce_fw_odp_resume_completer() - ask again for a response dropped for
 * want of a page
 * @fw: the function
 * @qp: the QP, whose lock is held; pages have been written since
 *
 * Sending resumes from the response that was dropped if the QP still
 * waits for it there (a timeout may have asked again meanwhile, a RESET
 * forgets it); otherwise nothing changes.
 */
void sroce_fw_odp_resume_completer(struct sroce_fw_dev *fw,
				   struct sroce_fw_qp *qp)
{
	if (!qp->odp_rewind)
		return;
	qp->odp_rewind = false;
	if (sroce_fw_qp_sends(qp) && sroce_fw_outstanding(qp) &&
	    qp->sq_cons == qp->odp_rewind_cons &&
	    qp->comp_psn == qp->odp_rewind_psn)
		sroce_fw_rewind(fw, qp, qp->comp_psn);
}

/**
 * sroce_fw_complete_rc() - handle an acknowledgment for an RC QP
 * @fw: the function
 * @qp: the QP
 * @pkt: the response packet
 *
 * Context: softirq.
 */
void sroce_fw_complete_rc(struct sroce_fw_dev *fw, struct sroce_fw_qp *qp,
			  struct sroce_fw_pkt *pkt)
{
	const struct sroce_roce_info *info = &pkt->info;
	u32 status, cons, una;
	bool rewound;
	u8 syndrome;

	spin_lock_bh(&qp->lock);
	if (!sroce_fw_qp_sends(qp))
		goto out_unlock;
	if (info->opcode != SROCE_OP_ACK) {
		sroce_fw_complete_rd_atomic(fw, qp, pkt);
		goto out_unlock;
	}
	syndrome = sroce_aeth_syndrome(pkt->hdr + info->off[SROCE_EXT_AETH]);
	/*
	 * A NAK names a PSN among those outstanding; anything else is stale
	 * or forged and must not complete, rewind or fail anything.
	 */
	if ((syndrome & SROCE_AETH_TYPE_MASK) != SROCE_AETH_TYPE_ACK &&
	    (!sroce_fw_outstanding(qp) ||
	     !sroce_psn_in_range(info->psn, qp->una_psn,
				 sroce_psn_sub(qp->next_psn, 1))))
		goto out_unlock;

	switch (syndrome & SROCE_AETH_TYPE_MASK) {
	case SROCE_AETH_TYPE_ACK:
		/* Stale ACKs (before una_psn, or beyond what was sent) count for
		 * nothing.
		 */
		if (sroce_psn_before(info->psn, qp->una_psn) ||
		    !sroce_psn_before(info->psn, qp->next_psn))
			break;
		cons = qp->sq_cons;
		/* After a rewind, una_psn is where sending starts again. */
		rewound = sroce_fw_retire(fw, qp, info->psn);
		if (!rewound)
			qp->una_psn = sroce_psn_add(info->psn, 1);
		/*
		 * An ACK that retired nothing and only showed a response to a
		 * READ, atomic or FLUSH missing is not progress: a path that
		 * loses every response (one that drops large packets, say)
		 * would otherwise be resent to for ever, each ACK of the
		 * requests behind the READ restarting the count. The timeout
		 * runs on and ends it.
		 */
		if (!rewound || qp->sq_cons != cons)
			sroce_fw_progress(qp);
		/* The window may have reopened, or the rewind resends. */
		if (sroce_fw_req_waiting(qp))
			pkt->ready_qp = qp;
		break;
	case SROCE_AETH_TYPE_RNR_NAK:	/* the PSN is the one refused */
		sroce_fw_count(fw, SROCE_STAT_RNR_NAK_RCVD);
		/* A lost READ response before it: that is resent first. */
		if (sroce_fw_retire(fw, qp, sroce_psn_sub(info->psn, 1)))
			break;
		if (qp->rnr_left == 0) {
			sroce_fw_count(fw, SROCE_STAT_RNR_RETRY_EXC);
			status = IB_WC_RNR_RETRY_EXC_ERR;
			goto fatal;
		}
		if (qp->rnr_left != 7)
			qp->rnr_left--;
		sroce_fw_rewind(fw, qp, info->psn);
		/*
		 * The responder is there, only not ready: the timeout counts
		 * from the resend after the delay, however long RNR lasts.
		 */
		qp->retry_restart = true;
		/* Nothing is sent until the delay is over (fw_req.c). */
		qp->rnr_wait = true;
		mod_timer(&qp->rnr_timer, jiffies +
			  usecs_to_jiffies(sroce_rnr_usec[syndrome &
						   SROCE_AETH_VALUE_MASK]));
		break;
	case SROCE_AETH_TYPE_NAK:	/* the PSN is the one expected */
		cons = qp->sq_cons;
		una = qp->una_psn;
		rewound = sroce_fw_retire(fw, qp, sroce_psn_sub(info->psn, 1));
		switch (syndrome & SROCE_AETH_VALUE_MASK) {
		case SROCE_AETH_NAK_PSN_SEQ:	/* go back */
			sroce_fw_count(fw, SROCE_STAT_SEQ_NAK_RCVD);
			/* Not past a READ whose response went missing. */
			if (!rewound)
				sroce_fw_rewind(fw, qp, info->psn);
			/*
			 * What the NAK acknowledges is progress; a NAK of
			 * una_psn again (the resend lost too) is not.
			 */
			if (qp->sq_cons != cons ||
			    sroce_psn_after(qp->una_psn, una))
				sroce_fw_progress(qp);
			sroce_fw_sched_add(fw, qp);
			goto out_unlock;
		case SROCE_AETH_NAK_REM_ACCESS:
			status = IB_WC_REM_ACCESS_ERR;
			break;
		case SROCE_AETH_NAK_REM_OP:
			status = IB_WC_REM_OP_ERR;
			break;
		default:
			status = IB_WC_REM_INV_REQ_ERR;
			break;
		}
		goto fatal;
	default:
		break;
	}
out_unlock:
	sroce_fw_check_sq(qp);
	spin_unlock_bh(&qp->lock);
	return;

fatal:
	/* The failing WQE may be only partly sent (sq_cons == sq_next). */
	if (qp->sq_cons != qp->sq_next || sroce_fw_outstanding(qp))
		sroce_fw_sq_retire(fw, qp, status);
	WRITE_ONCE(qp->attr.state, SROCE_QPS_ERR);
	sroce_fw_sched_add(fw, qp);
	spin_unlock_bh(&qp->lock);
}
