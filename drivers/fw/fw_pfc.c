// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * sroce firmware: priority flow control of the port, the transmit side.
 *
 * The link partner's MAC Control frames (fw_net.c hands them here) pause
 * the port's transmit priorities: an 802.1Qbb frame the priorities it
 * names that have PFC on, an 802.3x PAUSE every priority when PFC is off
 * on all of them (a MAC runs one or the other). A pause holds a
 * priority's list in the scheduler (fw_sched.c skips it by its bit in
 * paused_mask) and refuses its QPs' direct turns, so that everything a
 * QP of that priority sends waits: requests, retransmissions, READ
 * responses, ACKs and NAKs. Other priorities keep flowing.
 *
 * A pause lasts its quanta of 512 bit times at the port's speed from the
 * frame's arrival, as a MAC's pause timer; a frame that comes while one
 * runs restarts it, a zero time (XON) ends it at once. One hrtimer per
 * priority ends it; its callback, and XON, run the scheduler for the
 * lists that may go again. The time a priority spends paused is counted
 * (rx_prioN_pause_duration) and moves its QPs' transport timers on
 * (fw_comp.c), so that a pause is not taken for a lost packet.
 *
 * All pause state is under the scheduler's lock: the receive softirq,
 * the pause timers (softirq) and QUERY_PFC_STATS take it.
 */
#include <linux/hrtimer.h>

#include "fw.h"
#include "fw_trace.h"

/* Pause time is a bit count: a link with no speed known counts as 10G. */
#define SROCE_FW_PFC_DEFAULT_MBPS	10000

static u32 sroce_fw_pfc_speed(const struct sroce_fw_dev *fw)
{
	u32 mbps = READ_ONCE(fw->port.speed_mbps);

	return mbps ? mbps : SROCE_FW_PFC_DEFAULT_MBPS;
}

/* End the pause of @prio at @now_ns. Caller holds fw->sched.lock. */
static void sroce_fw_pause_end(struct sroce_fw_dev *fw, unsigned int prio,
			       u64 now_ns, bool expired)
{
	struct sroce_fw_sched *s = &fw->sched;
	u64 held = now_ns - s->pause[prio].since_ns;

	s->paused_mask &= ~BIT(prio);
	atomic64_add(held,
		     &fw->pfc_stats[prio][SROCE_PFC_RX_PAUSE_DURATION]);
	atomic64_inc(&fw->pfc_stats[prio][SROCE_PFC_RX_PAUSE_TRANSITION]);
	trace_sroce_pause_end(fw->ndev->ifindex, prio, held, expired);
}

/*
 * A priority's pause timer: its time ran out, unless a later frame moved
 * the end on (then the timer sleeps until that end). Softirq context.
 */
static enum hrtimer_restart sroce_fw_pause_timer(struct hrtimer *t)
{
	struct sroce_fw_pause *p = container_of(t, struct sroce_fw_pause,
						timer);
	enum hrtimer_restart ret = HRTIMER_NORESTART;
	struct sroce_fw_dev *fw = p->fw;
	struct sroce_fw_sched *s = &fw->sched;
	u64 now = ktime_get_ns();
	bool resumed = false;
	unsigned long flags;

	spin_lock_irqsave(&s->lock, flags);
	if (s->paused_mask & BIT(p->prio)) {
		if ((s64)(p->until_ns - now) > 0) {
			hrtimer_set_expires(t, ns_to_ktime(p->until_ns));
			ret = HRTIMER_RESTART;
		} else {
			sroce_fw_pause_end(fw, p->prio, now, true);
			resumed = true;
		}
	}
	spin_unlock_irqrestore(&s->lock, flags);
	if (resumed)
		sroce_fw_sched_run(fw);
	return ret;
}

/**
 * sroce_fw_pfc_rx() - obey a pause frame from the link partner
 * @fw: the function whose port received it
 * @pause: what the frame asks (lib/pfc.c parsed it)
 *
 * Counts it (rx_prioN_pause per priority named; rx_pause_ctrl_phy for an
 * 802.3x PAUSE) and pauses or resumes the priorities the port obeys it
 * for.
 *
 * Context: softirq (the packet handler), RCU read side.
 */
void sroce_fw_pfc_rx(struct sroce_fw_dev *fw, const struct sroce_pause *pause)
{
	struct sroce_fw_sched *s = &fw->sched;
	u8 enable = READ_ONCE(fw->pfc_enable);
	u32 speed = sroce_fw_pfc_speed(fw);
	unsigned long flags;
	unsigned int prio;
	bool resumed = false;
	u8 obey;
	u64 now;

	if (pause->global) {
		atomic64_inc(&fw->pfc_port_stats[SROCE_PFC_RX_PAUSE_CTRL_PHY]);
		obey = enable ? 0 : 0xff;
	} else {
		for (prio = 0; prio < SROCE_FW_NUM_PRIO; prio++)
			if (pause->enable & BIT(prio))
				atomic64_inc(&fw->pfc_stats[prio]
							   [SROCE_PFC_RX_PAUSE]);
		obey = pause->enable & enable;
	}
	now = ktime_get_ns();
	spin_lock_irqsave(&s->lock, flags);
	for (prio = 0; prio < SROCE_FW_NUM_PRIO; prio++) {
		struct sroce_fw_pause *p = &s->pause[prio];
		u16 quanta = pause->quanta[prio];
		u64 ns;

		if (!(pause->enable & BIT(prio)))
			continue;
		ns = quanta ? sroce_pause_quanta_ns(quanta, speed) : 0;
		trace_sroce_pause_recv(fw->ndev->ifindex, prio, quanta, ns,
				       obey & BIT(prio));
		if (!(obey & BIT(prio)))
			continue;
		if (!quanta) {
			if (s->paused_mask & BIT(prio)) {
				sroce_fw_pause_end(fw, prio, now, false);
				resumed = true;
			}
			continue;
		}
		if (!(s->paused_mask & BIT(prio))) {
			p->since_ns = now;
			s->paused_mask |= BIT(prio);
		}
		p->until_ns = now + ns;
		hrtimer_start(&p->timer, ns_to_ktime(p->until_ns),
			      HRTIMER_MODE_ABS_SOFT);
	}
	spin_unlock_irqrestore(&s->lock, flags);
	if (resumed)
		sroce_fw_sched_run(fw);
}

/**
 * sroce_fw_cmd_query_pfc() - QUERY_PFC: the priorities with PFC on
 * @fw: the function
 * @req: unused
 * @resp: struct sroce_pfc_cfg
 *
 * Return: SROCE_FW_OK.
 */
u16 sroce_fw_cmd_query_pfc(struct sroce_fw_dev *fw, const void *req,
			   void *resp)
{
	struct sroce_pfc_cfg *r = resp;

	memset(r, 0, sizeof(*r));
	r->enable = READ_ONCE(fw->pfc_enable);
	return SROCE_FW_OK;
}

/**
 * sroce_fw_cmd_set_pfc() - SET_PFC: turn PFC on or off per priority
 * @fw: the function
 * @req: struct sroce_pfc_cfg
 * @resp: unused
 *
 * A priority whose PFC goes off while paused resumes at once, as does
 * every priority paused by an 802.3x PAUSE when PFC goes on: the port
 * no longer obeys the frame that paused it.
 *
 * Return: SROCE_FW_OK, or SROCE_FW_ERR_BAD_PARAM if @rsvd is not zero.
 */
u16 sroce_fw_cmd_set_pfc(struct sroce_fw_dev *fw, const void *req,
			 void *resp)
{
	const struct sroce_pfc_cfg *r = req;
	struct sroce_fw_sched *s = &fw->sched;
	unsigned long flags;
	unsigned int prio;
	u8 release;
	u64 now;

	if (memchr_inv(r->rsvd, 0, sizeof(r->rsvd)))
		return SROCE_FW_ERR_BAD_PARAM;
	mutex_lock(&fw->cc_mutex);
	WRITE_ONCE(fw->pfc_enable, r->enable);
	mutex_unlock(&fw->cc_mutex);
	/* What obeys no frame any more: everything if 802.3x was in force. */
	now = ktime_get_ns();
	spin_lock_irqsave(&s->lock, flags);
	release = s->paused_mask & ~r->enable;
	for (prio = 0; prio < SROCE_FW_NUM_PRIO; prio++)
		if (release & BIT(prio))
			sroce_fw_pause_end(fw, prio, now, false);
	spin_unlock_irqrestore(&s->lock, flags);
	if (release)
		sroce_fw_sched_run(fw);
	return SROCE_FW_OK;
}

/**
 * sroce_fw_cmd_query_pfc_stats() - QUERY_PFC_STATS: one priority's
 * counters and the port's
 * @fw: the function
 * @req: struct sroce_pfc_stats_req
 * @resp: struct sroce_pfc_stats_resp
 *
 * A pause in progress counts in rx_prioN_pause_duration up to now.
 *
 * Return: SROCE_FW_OK, or SROCE_FW_ERR_BAD_PARAM for a priority out of
 * range or @rsvd not zero.
 */
u16 sroce_fw_cmd_query_pfc_stats(struct sroce_fw_dev *fw, const void *req,
				 void *resp)
{
	const struct sroce_pfc_stats_req *r = req;
	struct sroce_pfc_stats_resp *out = resp;
	struct sroce_fw_sched *s = &fw->sched;
	u64 v[SROCE_PFC_NUM_PRIO_STATS];
	unsigned long flags;
	unsigned int i;
	u64 ongoing = 0;
	bool paused;

	if (r->prio >= SROCE_FW_NUM_PRIO ||
	    memchr_inv(r->rsvd, 0, sizeof(r->rsvd)))
		return SROCE_FW_ERR_BAD_PARAM;
	spin_lock_irqsave(&s->lock, flags);
	paused = s->paused_mask & BIT(r->prio);
	if (paused)
		ongoing = ktime_get_ns() - s->pause[r->prio].since_ns;
	for (i = 0; i < SROCE_PFC_NUM_PRIO_STATS; i++)
		v[i] = atomic64_read(&fw->pfc_stats[r->prio][i]);
	spin_unlock_irqrestore(&s->lock, flags);
	v[SROCE_PFC_RX_PAUSE_DURATION] += ongoing;
	v[SROCE_PFC_RX_PAUSE_DURATION] =
		div_u64(v[SROCE_PFC_RX_PAUSE_DURATION], NSEC_PER_USEC);
	v[SROCE_PFC_TX_PAUSE_DURATION] =
		div_u64(v[SROCE_PFC_TX_PAUSE_DURATION], NSEC_PER_USEC);
	memset(out, 0, sizeof(*out));
	for (i = 0; i < SROCE_PFC_NUM_PRIO_STATS; i++)
		out->prio[i] = cpu_to_le64(v[i]);
	for (i = 0; i < SROCE_PFC_NUM_PORT_STATS; i++)
		out->port[i] = cpu_to_le64(atomic64_read(&fw->pfc_port_stats[i]));
	out->paused = paused;
	return SROCE_FW_OK;
}

/**
 * sroce_fw_pfc_init() - PFC of a new function: off, nothing paused
 * @fw: the function, not yet reachable by the pause handler
 */
void sroce_fw_pfc_init(struct sroce_fw_dev *fw)
{
	unsigned int prio;

	for (prio = 0; prio < SROCE_FW_NUM_PRIO; prio++) {
		struct sroce_fw_pause *p = &fw->sched.pause[prio];

		hrtimer_setup(&p->timer, sroce_fw_pause_timer, CLOCK_MONOTONIC,
			      HRTIMER_MODE_ABS_SOFT);
		p->fw = fw;
		p->prio = prio;
	}
}

/**
 * sroce_fw_pfc_stop() - stop the pause timers of a function going away
 * @fw: the function, which the pause handler no longer finds (after
 *	sroce_fw_port_detach()), so nothing starts them again
 */
void sroce_fw_pfc_stop(struct sroce_fw_dev *fw)
{
	unsigned int prio;

	for (prio = 0; prio < SROCE_FW_NUM_PRIO; prio++)
		hrtimer_cancel(&fw->sched.pause[prio].timer);
}
