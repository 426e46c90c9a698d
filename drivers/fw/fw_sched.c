// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * sroce firmware: the transmit scheduler of the port.
 *
 * QPs with something to send (responses the responder owes, new WQEs, a
 * window reopened by an ACK, a retransmission, a flush) wait on one of the
 * port's ready lists, one list per transmit priority. One runner at a time
 * takes the QP at the head of the next non-empty list (the priorities are
 * served round robin), lets it send a quantum and puts it back at the tail
 * if it has more: one QP streaming large messages or READ responses cannot
 * starve the others, and a priority that must not send (PFC) is skipped by
 * its bit in ready_mask, without a scan.
 *
 * Whoever finds the port idle becomes the runner in its own context (the
 * doorbell in the poster's system call, the receive path in softirq), the
 * way a qdisc is run by the CPU that enqueued: small messages go out
 * without a context switch. After a budget of turns the rest is handed to
 * a work item. Contexts that must not send (hard interrupts, interrupts
 * disabled) always hand over. A doorbell that finds no QP waiting skips
 * the list altogether and sends its QP's quantum at once: the common case
 * of a poster on each CPU then never meets on the port's lock.
 *
 * DCQCN pacing needs nothing here: a limited QP's packets each ask the
 * reaction point before they are built (fw_cc.c), in a listed turn and in
 * a direct one alike, and a held QP ends its turn with nothing to send
 * until its pacing timer rings it again. A priority the link partner
 * pauses (PFC, fw_pfc.c) has its bit in paused_mask: its list is left
 * out of the pick and its QPs' direct turns are refused, so they queue
 * on that list until the pause ends and the scheduler runs again. A QP
 * whose priority is paused while it is being served ends its turn at
 * once (sroce_fw_qp_transmit()) and goes back on its list. A QP in ERROR
 * waits on the flush lane instead, a ninth list in the rotation which no
 * pause holds: its flush sends nothing, and a partner that keeps pausing
 * must not hold up a drain.
 */
#include <linux/hardirq.h>
#include <linux/rcupdate.h>

#include "fw.h"

/* Turns a runner takes before it hands over or yields. */
#define SROCE_FW_SCHED_BUDGET	32

/* Take @qp off its list. Caller holds s->lock; @qp is queued. */
static void sroce_fw_sched_del_locked(struct sroce_fw_sched *s,
				      struct sroce_fw_qp *qp)
{
	list_del(&qp->sched_node);
	if (list_empty(&s->ready[qp->sched_prio]))
		s->ready_mask &= ~BIT(qp->sched_prio);
	qp->sched_queued = false;
}

/*
 * Queue @qp unless it is queued already or dying: on its priority's list,
 * or on the flush lane if it is in ERROR, where no pause holds it (a QP
 * that entered ERROR on its priority's list moves there: every entry into
 * ERROR rings the QP). Caller holds s->lock.
 */
static void sroce_fw_sched_add_locked(struct sroce_fw_sched *s,
				      struct sroce_fw_qp *qp)
{
	bool flush = READ_ONCE(qp->attr.state) == SROCE_QPS_ERR;
	u8 list;

	if (qp->sched_dead)
		return;
	if (qp->sched_queued) {
		if (!flush || qp->sched_prio == SROCE_FW_SCHED_FLUSH)
			return;
		sroce_fw_sched_del_locked(s, qp);
	}
	list = flush ? SROCE_FW_SCHED_FLUSH : READ_ONCE(qp->prio) % SROCE_FW_NUM_PRIO;
	list_add_tail(&qp->sched_node, &s->ready[list]);
	s->ready_mask |= BIT(list);
	qp->sched_prio = list;
	qp->sched_queued = true;
}

/*
 * The lists that may be served: not empty, not paused (the flush lane
 * never is). Under s->lock.
 */
static unsigned int sroce_fw_sched_servable(const struct sroce_fw_sched *s)
{
	return s->ready_mask & ~s->paused_mask;
}

/*
 * Whether no QP waits to be served (QPs of paused priorities wait for
 * the pause, not for the runner). Lockless: a hint, exact under s->lock.
 */
static bool sroce_fw_sched_idle(const struct sroce_fw_sched *s)
{
	return !(READ_ONCE(s->ready_mask) & ~READ_ONCE(s->paused_mask));
}

/**
 * sroce_fw_sched_add() - put a QP on the port's ready list
 * @fw: the function
 * @qp: the QP, which has something to send or flush
 *
 * Does not send: the caller (who may hold the QP's lock) follows with
 * sroce_fw_sched_run() once it holds no QP lock, or relies on a runner in
 * progress (the receive path runs the scheduler after every packet).
 *
 * Context: any.
 */
void sroce_fw_sched_add(struct sroce_fw_dev *fw, struct sroce_fw_qp *qp)
{
	struct sroce_fw_sched *s = &fw->sched;
	unsigned long flags;

	spin_lock_irqsave(&s->lock, flags);
	sroce_fw_sched_add_locked(s, qp);
	spin_unlock_irqrestore(&s->lock, flags);
}

/*
 * The next QP to serve, taken off its list; NULL when there is none: the
 * first non-empty list not paused at or after rr_list, which then moves
 * past it. The flush lane takes its turn in the rotation like the
 * priorities: first would let QPs in ERROR, which a user can ring as
 * often as it likes, starve every priority.
 */
static struct sroce_fw_qp *sroce_fw_sched_pick(struct sroce_fw_sched *s)
{
	unsigned int servable = sroce_fw_sched_servable(s);
	/* The mask twice over, so that a rotation is one shift. */
	unsigned int both = servable | servable << SROCE_FW_SCHED_LISTS;
	unsigned int rotated = both >> s->rr_list;
	struct sroce_fw_qp *qp;
	unsigned int list;

	if (!servable)
		return NULL;
	list = (s->rr_list + __ffs(rotated)) % SROCE_FW_SCHED_LISTS;
	qp = list_first_entry(&s->ready[list], struct sroce_fw_qp, sched_node);
	sroce_fw_sched_del_locked(s, qp);
	s->rr_list = (list + 1) % SROCE_FW_SCHED_LISTS;
	return qp;
}

/*
 * Serve up to @budget QPs. The caller is the runner. Returns true if QPs
 * are still waiting (the caller stays the runner), false if the list ran
 * empty (the caller is no longer the runner). The lock is taken once per
 * turn: putting a QP back and picking the next go together.
 */
static bool sroce_fw_sched_serve(struct sroce_fw_dev *fw, unsigned int budget)
{
	struct sroce_fw_sched *s = &fw->sched;
	struct sroce_fw_qp *qp;
	unsigned long flags;
	bool more;

	local_bh_disable();
	/*
	 * A QP being destroyed leaves the list first, then waits for a grace
	 * period, so the one picked here stays valid until rcu_read_unlock().
	 */
	rcu_read_lock();
	spin_lock_irqsave(&s->lock, flags);
	while (budget--) {
		qp = sroce_fw_sched_pick(s);
		if (!qp) {
			s->running = false;
			break;
		}
		spin_unlock_irqrestore(&s->lock, flags);
		more = sroce_fw_qp_transmit(fw, qp);
		spin_lock_irqsave(&s->lock, flags);
		if (more)
			sroce_fw_sched_add_locked(s, qp);
	}
	more = s->running;
	spin_unlock_irqrestore(&s->lock, flags);
	rcu_read_unlock();
	local_bh_enable();
	return more;
}

/* Whether the current context may send (softirqs may run here). */
static bool sroce_fw_sched_inline_ok(void)
{
	return !in_hardirq() && !in_nmi() && !irqs_disabled();
}

/*
 * Become the runner if there is work and no runner. Caller holds s->lock.
 * Return: true if the caller is now the runner.
 */
static bool sroce_fw_sched_claim(struct sroce_fw_sched *s)
{
	if (s->running || !sroce_fw_sched_servable(s))
		return false;
	s->running = true;
	return true;
}

/*
 * The runner's first turns: a budget here, the rest on the port's work
 * item. Contexts that must not send hand everything over.
 */
static void sroce_fw_sched_start(struct sroce_fw_dev *fw)
{
	if (!sroce_fw_sched_inline_ok() ||
	    sroce_fw_sched_serve(fw, SROCE_FW_SCHED_BUDGET))
		queue_work(sroce_fw_wq, &fw->sched.work);
}

/**
 * sroce_fw_sched_run() - send what the ready list holds, if nobody is
 * @fw: the function
 *
 * Returns at once if another context is the runner (it will see what was
 * added). Otherwise serves a budget of QPs here and hands the rest to the
 * port's work item.
 *
 * Context: any; the caller holds no QP lock. Sends only where softirqs
 * may run (not in hard interrupt context or with interrupts disabled).
 */
void sroce_fw_sched_run(struct sroce_fw_dev *fw)
{
	struct sroce_fw_sched *s = &fw->sched;
	unsigned long flags;
	bool claimed;

	/*
	 * Called after every received packet: most find nothing to do. What
	 * this context added itself is visible here; what others add, they
	 * run themselves or a runner in progress picks up.
	 */
	if (sroce_fw_sched_idle(s))
		return;
	spin_lock_irqsave(&s->lock, flags);
	claimed = sroce_fw_sched_claim(s);
	spin_unlock_irqrestore(&s->lock, flags);
	if (claimed)
		sroce_fw_sched_start(fw);
}

/* The runner after a hand-over: serves until the list is empty. */
static void sroce_fw_sched_work(struct work_struct *work)
{
	struct sroce_fw_dev *fw = container_of(work, struct sroce_fw_dev,
					       sched.work);

	while (sroce_fw_sched_serve(fw, SROCE_FW_SCHED_BUDGET))
		cond_resched();
}

/**
 * sroce_fw_sched_direct_ok() - whether a QP may send now, off the list
 * @fw: the function
 * @qp: the QP
 *
 * The one gate of the direct turns (the doorbell's, sroce_fw_ring_sq(),
 * and the receive path's for responses): the function runs, no QP waits
 * at the egress stage (a direct turn must not overtake them), @qp's
 * priority is not paused and @qp is not being destroyed. Lockless: a
 * hint; what it misses, the list serves.
 *
 * Return: true if @qp may take its turn in the caller's context.
 */
bool sroce_fw_sched_direct_ok(struct sroce_fw_dev *fw, struct sroce_fw_qp *qp)
{
	return !READ_ONCE(fw->stopped) && sroce_fw_sched_idle(&fw->sched) &&
	       !sroce_fw_prio_paused(fw, READ_ONCE(qp->prio)) &&
	       !READ_ONCE(qp->sched_dead);
}

/**
 * sroce_fw_ring_sq() - a QP has something to send: schedule and run
 * @fw: the function
 * @qp: the QP, which the caller keeps valid (RCU or a reference)
 *
 * With no other QP waiting, @qp's turn is now: the caller sends its
 * quantum without touching the ready list or its lock (two posters on
 * two CPUs then send in parallel). Otherwise, or if @qp has more than a
 * quantum, it queues behind the others and the runner is claimed in the
 * same critical section.
 *
 * Context: any; the caller does not hold @qp's lock.
 */
void sroce_fw_ring_sq(struct sroce_fw_dev *fw, struct sroce_fw_qp *qp)
{
	struct sroce_fw_sched *s = &fw->sched;
	unsigned long flags;
	bool claimed, more;

	/* A dying QP (its timers may still fire) is refused by the list. */
	if (sroce_fw_sched_direct_ok(fw, qp) && sroce_fw_sched_inline_ok()) {
		local_bh_disable();
		rcu_read_lock();
		more = sroce_fw_qp_transmit(fw, qp);
		rcu_read_unlock();
		local_bh_enable();
		if (!more)
			return;
	}
	spin_lock_irqsave(&s->lock, flags);
	sroce_fw_sched_add_locked(s, qp);
	claimed = sroce_fw_sched_claim(s);
	spin_unlock_irqrestore(&s->lock, flags);
	if (claimed)
		sroce_fw_sched_start(fw);
}

/**
 * sroce_fw_sched_remove() - take a QP out of scheduling for good
 * @fw: the function
 * @qp: the QP being destroyed, no longer reachable by number
 *
 * After this and a grace period no runner holds @qp.
 */
void sroce_fw_sched_remove(struct sroce_fw_dev *fw, struct sroce_fw_qp *qp)
{
	struct sroce_fw_sched *s = &fw->sched;
	unsigned long flags;

	spin_lock_irqsave(&s->lock, flags);
	WRITE_ONCE(qp->sched_dead, true);
	if (qp->sched_queued)
		sroce_fw_sched_del_locked(s, qp);
	spin_unlock_irqrestore(&s->lock, flags);
}

/**
 * sroce_fw_sched_init() - an idle scheduler for a new function
 * @fw: the function
 */
void sroce_fw_sched_init(struct sroce_fw_dev *fw)
{
	unsigned int list;

	spin_lock_init(&fw->sched.lock);
	for (list = 0; list < SROCE_FW_SCHED_LISTS; list++)
		INIT_LIST_HEAD(&fw->sched.ready[list]);
	fw->sched.ready_mask = 0;
	fw->sched.paused_mask = 0;
	fw->sched.rr_list = 0;
	fw->sched.running = false;
	INIT_WORK(&fw->sched.work, sroce_fw_sched_work);
}

/**
 * sroce_fw_sched_stop() - wait for the hand-over work of a function
 * @fw: the function, all of whose QPs are gone
 */
void sroce_fw_sched_stop(struct sroce_fw_dev *fw)
{
	cancel_work_sync(&fw->sched.work);
}
