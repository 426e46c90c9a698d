// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * sroce firmware: priority flow control of the port. First the transmit
 * side (pauses the link partner asks for), then the receive side (the
 * port's buffers, which ask for them).
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
#include <linux/random.h>

#include "fw.h"
#include "fw_trace.h"

/* Pause time is a bit count: a link with no speed known counts as 10G. */
#define SROCE_FW_PFC_DEFAULT_MBPS	10000

static u32 sroce_fw_pfc_speed(const struct sroce_fw_dev *fw)
{
	u32 mbps = READ_ONCE(fw->port.speed_mbps);

	return mbps ? mbps : SROCE_FW_PFC_DEFAULT_MBPS;
}

/*
 * End the pause of @prio at @now_ns, read under fw->sched.lock as the
 * pause's start was: a time read before the lock may precede a start set
 * meanwhile, and the duration must not wrap (the transport timers move on
 * by it). Caller holds fw->sched.lock.
 */
static void sroce_fw_pause_end(struct sroce_fw_dev *fw, unsigned int prio,
			       u64 now_ns, bool expired)
{
	struct sroce_fw_sched *s = &fw->sched;
	u64 since = s->pause[prio].since_ns;
	u64 held = now_ns > since ? now_ns - since : 0;

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
	bool resumed = false;
	unsigned long flags;
	u64 now;

	spin_lock_irqsave(&s->lock, flags);
	now = ktime_get_ns();
	/* Restarted meanwhile (a new pause): the queued expiry stands. */
	if (hrtimer_is_queued(t)) {
		spin_unlock_irqrestore(&s->lock, flags);
		return HRTIMER_NORESTART;
	}
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
	u32 speed = sroce_fw_pfc_speed(fw);
	unsigned long flags;
	unsigned int prio;
	bool resumed = false;
	u8 enable, obey;
	u64 now;

	if (pause->global)
		atomic64_inc(&fw->pfc_port_stats[SROCE_PFC_RX_PAUSE_CTRL_PHY]);
	else
		for (prio = 0; prio < SROCE_FW_NUM_PRIO; prio++)
			if (pause->enable & BIT(prio))
				atomic64_inc(&fw->pfc_stats[prio]
							   [SROCE_PFC_RX_PAUSE]);
	spin_lock_irqsave(&s->lock, flags);
	/*
	 * What the port obeys, under the lock SET_PFC changes it under: a
	 * frame obeyed by the old setting after SET_PFC's release would
	 * hold priorities the port no longer obeys pauses for.
	 */
	enable = fw->pfc_enable;
	obey = pause->global ? (enable ? 0 : 0xff) : pause->enable & enable;
	now = ktime_get_ns();
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
		/*
		 * A renewal that moves the end on leaves the timer where it is:
		 * it sleeps on to until_ns by itself. A flood of renewals then
		 * costs no timer operation.
		 */
		if (!(s->paused_mask & BIT(prio)) ||
		    (s64)(now + ns - p->until_ns) < 0) {
			if (!(s->paused_mask & BIT(prio)))
				p->since_ns = now;
			s->paused_mask |= BIT(prio);
			p->until_ns = now + ns;
			hrtimer_start(&p->timer, ns_to_ktime(p->until_ns),
				      HRTIMER_MODE_ABS_SOFT);
		} else {
			p->until_ns = now + ns;
		}
	}
	spin_unlock_irqrestore(&s->lock, flags);
	if (resumed)
		sroce_fw_sched_run(fw);
}

static void sroce_fw_rxbuf_pfc_changed(struct sroce_fw_dev *fw, u8 enable);
static void sroce_fw_rxbuf_init(struct sroce_fw_dev *fw);

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
	u8 release, old;
	u64 now;

	if (memchr_inv(r->rsvd, 0, sizeof(r->rsvd)))
		return SROCE_FW_ERR_BAD_PARAM;
	mutex_lock(&fw->cc_mutex);
	old = fw->pfc_enable;
	/*
	 * What obeys no frame any more: the priorities PFC went off on, and
	 * everything an 802.3x pause held when PFC comes on (PFC frames
	 * then pause what they name anew).
	 */
	spin_lock_irqsave(&s->lock, flags);
	WRITE_ONCE(fw->pfc_enable, r->enable);
	now = ktime_get_ns();
	release = s->paused_mask & (old ? ~r->enable : r->enable ? 0xff : 0);
	for (prio = 0; prio < SROCE_FW_NUM_PRIO; prio++)
		if (release & BIT(prio))
			sroce_fw_pause_end(fw, prio, now, false);
	spin_unlock_irqrestore(&s->lock, flags);
	sroce_fw_rxbuf_pfc_changed(fw, r->enable);
	mutex_unlock(&fw->cc_mutex);
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
 * A pause in progress counts in rx_prioN_pause_duration and
 * tx_prioN_pause_duration up to now.
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
	struct sroce_fw_rxbuf *rb = &fw->rxbuf;
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
	/* A pause asked of the partner now, under the lock that ends it. */
	spin_lock_bh(&rb->lock);
	v[SROCE_PFC_TX_PAUSE_DURATION] =
		atomic64_read(&fw->pfc_stats[r->prio]
					    [SROCE_PFC_TX_PAUSE_DURATION]);
	if (rb->asking & BIT(r->prio))
		v[SROCE_PFC_TX_PAUSE_DURATION] +=
			ktime_get_ns() - rb->tx_since_ns[r->prio];
	spin_unlock_bh(&rb->lock);
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
 * sroce_fw_pfc_init() - PFC of a new function: off, nothing paused, the
 * default buffers, the drain unlimited
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
	sroce_fw_rxbuf_init(fw);
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

/*
 * The receive side: the port's buffers.
 *
 * While the host side is slower than the wire (the debugfs emulation knob
 * rx_drain_mbps, or rx_drain_stop), received RoCE packets wait in their
 * priority's queue, counted against its buffer (prio2buffer), and a timer
 * hands them to the receive engine at the drain rate, the queues round
 * robin. A packet that finds its buffer full is dropped
 * (rx_prioN_buf_discard). A lossless buffer (one holding a priority with
 * PFC on) asks the link partner to pause its PFC priorities when it
 * reaches xoff, renews the pause at half its time while above xon and
 * lifts it (XON) below xon (lib/pfc.c keeps the thresholds). The
 * watchdog: a buffer that has asked continuously for 85% of the stall
 * timeout (at least 80 ms) counts a warning, and at the timeout stops
 * asking (XON, tx_pause_storm_error_events) until it drains below xon,
 * so that a stalled host cannot hold its partner's traffic for ever: the
 * packets it cannot take are then dropped, as mlx5's stall prevention
 * does. With the drain unlimited and nothing held, packets skip all this.
 */

/* Packets the drain takes per timer run before it lets others run. */
#define SROCE_FW_DRAIN_BUDGET		64
/* What the drain may take at once after idling: a burst of this many ns */
#define SROCE_FW_DRAIN_BURST_NS		(200 * NSEC_PER_USEC)
#define SROCE_FW_BUF_DEFAULT_SIZE	(256U << 10)
#define SROCE_FW_CABLE_DEFAULT_M	7
#define SROCE_FW_STALL_DEFAULT_MS	100
#define SROCE_FW_STALL_WARN_MIN_MS	80

static u32 sroce_fw_pfc_mtu(const struct sroce_fw_dev *fw)
{
	u32 mtu = READ_ONCE(fw->port.netdev_mtu);

	return mtu ? mtu + ETH_HLEN : ETH_FRAME_LEN;
}

/*
 * Thresholds of every buffer from @cfg, the PFC priorities and the port:
 * into @bufs (occupancy and pause state kept from @old). Return: 0, or
 * -EINVAL if a lossless buffer has no room for its thresholds.
 */
static int sroce_fw_rxbuf_layout(struct sroce_fw_dev *fw,
				 const struct sroce_pfc_buffer_cfg *cfg,
				 u8 pfc_enable, const struct sroce_pfc_buf *old,
				 struct sroce_pfc_buf *bufs)
{
	u32 speed = sroce_fw_pfc_speed(fw), mtu = sroce_fw_pfc_mtu(fw);
	unsigned int b;

	for (b = 0; b < SROCE_PFC_NUM_BUF; b++) {
		struct sroce_pfc_buf *buf = &bufs[b];
		u32 size = le32_to_cpu(cfg->size[b]);
		u32 xoff = le32_to_cpu(cfg->xoff[b]);
		u32 xon = le32_to_cpu(cfg->xon[b]);
		bool lossless = sroce_pfc_buf_prios(cfg->prio2buffer,
						    pfc_enable, b);

		xoff = cfg->xoff_set & BIT(b) ? xoff : 0;
		if (sroce_pfc_buf_init(buf, size, lossless && !xoff,
				       le16_to_cpu(cfg->cable_len), speed, mtu))
			return -EINVAL;
		if (lossless && xoff) {
			/* xon defaults to a frame below xoff, as computed. */
			if (!xon && xoff <= mtu)
				return -EINVAL;
			buf->xoff = xoff;
			buf->xon = xon ? xon : xoff - mtu;
		}
		buf->used = old[b].used;
		buf->paused = old[b].paused;
		buf->refresh_ns = old[b].refresh_ns;
	}
	return 0;
}

/* Whether @cfg is one SET_PFC_BUFFER accepts, thresholds aside. */
static bool sroce_fw_rxbuf_cfg_ok(const struct sroce_pfc_buffer_cfg *cfg)
{
	u64 total = 0;
	unsigned int b;

	for (b = 0; b < SROCE_PFC_NUM_BUF; b++) {
		u32 xoff = le32_to_cpu(cfg->xoff[b]);
		u32 xon = le32_to_cpu(cfg->xon[b]);
		bool set = cfg->xoff_set & BIT(b);

		total += le32_to_cpu(cfg->size[b]);

		if (cfg->prio2buffer[b] >= SROCE_PFC_NUM_BUF ||
		    cfg->occupancy[b] || cfg->active_xoff[b] ||
		    cfg->active_xon[b] || (!set && (xoff || xon)) ||
		    (set && (!xoff || (xon && xon >= xoff) ||
			     xoff > le32_to_cpu(cfg->size[b]))))
			return false;
	}
	return total <= SROCE_PFC_BUFFER_TOTAL &&
	       le16_to_cpu(cfg->cable_len) <= SROCE_PFC_CABLE_LEN_MAX &&
	       le16_to_cpu(cfg->stall_tout_ms) >= SROCE_PFC_STALL_TOUT_MIN &&
	       le16_to_cpu(cfg->stall_tout_ms) <= SROCE_PFC_STALL_TOUT_MAX &&
	       !memchr_inv(cfg->rsvd, 0, sizeof(cfg->rsvd));
}

/* A pause frame to send once the buffers' lock is released */
struct sroce_fw_pause_out {
	u8 enable;
	u16 quanta[SROCE_PFC_NUM_PRIO];
};

/*
 * Ask for (@xoff) or lift the pause of buffer @b's PFC priorities into
 * @out, with the sender-side accounting. Caller holds rb->lock.
 */
static void sroce_fw_rxbuf_ask(struct sroce_fw_dev *fw, unsigned int b,
			       bool xoff, u64 now, struct sroce_fw_pause_out *out)
{
	struct sroce_fw_rxbuf *rb = &fw->rxbuf;
	u8 enable = READ_ONCE(fw->pfc_enable);
	u8 prios = sroce_pfc_buf_prios(rb->cfg.prio2buffer, enable, b);
	unsigned int prio, c;
	u8 still = 0;

	if (xoff && !rb->asked_since_ns[b])
		rb->asked_since_ns[b] = now;
	if (!xoff) {
		rb->asked_since_ns[b] = 0;
		rb->warned[b] = false;
		/*
		 * The pause asked may be of other priorities than the buffer
		 * has now (PFC or prio2buffer changed since): lift every
		 * priority asked for that no buffer still pausing asks for.
		 */
		for (c = 0; c < SROCE_PFC_NUM_BUF; c++)
			if (c != b && rb->buf[c].paused)
				still |= sroce_pfc_buf_prios(rb->cfg.prio2buffer,
							     enable, c);
		prios = (prios | rb->asking) & ~still;
	}
	for (prio = 0; prio < SROCE_PFC_NUM_PRIO; prio++) {
		if (!(prios & BIT(prio)))
			continue;
		out->enable |= BIT(prio);
		out->quanta[prio] = xoff ? SROCE_PAUSE_QUANTA_MAX : 0;
		if (xoff && !(rb->asking & BIT(prio))) {
			rb->asking |= BIT(prio);
			rb->tx_since_ns[prio] = now;
		} else if (!xoff && (rb->asking & BIT(prio))) {
			rb->asking &= ~BIT(prio);
			atomic64_add(now - rb->tx_since_ns[prio],
				     &fw->pfc_stats[prio]
						   [SROCE_PFC_TX_PAUSE_DURATION]);
		}
	}
}

/*
 * Send what the lock hold collected; counts tx_prioN_pause and traces
 * each priority the frame names.
 */
static void sroce_fw_rxbuf_send(struct sroce_fw_dev *fw,
				const struct sroce_fw_pause_out *out)
{
	unsigned int prio;

	if (!out->enable || sroce_fw_xmit_pause(fw, out->enable, out->quanta))
		return;
	for (prio = 0; prio < SROCE_PFC_NUM_PRIO; prio++) {
		if (!(out->enable & BIT(prio)))
			continue;
		atomic64_inc(&fw->pfc_stats[prio][SROCE_PFC_TX_PAUSE]);
		trace_sroce_pause_sent(fw->ndev->ifindex, prio,
				       out->quanta[prio]);
	}
}

/*
 * The watchdog and the renewals of buffer @b at @now. Return: when it
 * next needs looking at (0: not asking). Caller holds rb->lock.
 */
static u64 sroce_fw_rxbuf_watch(struct sroce_fw_dev *fw, unsigned int b,
				u64 now, struct sroce_fw_pause_out *out)
{
	struct sroce_fw_rxbuf *rb = &fw->rxbuf;
	struct sroce_pfc_buf *buf = &rb->buf[b];
	u64 tout = (u64)le16_to_cpu(rb->cfg.stall_tout_ms) * NSEC_PER_MSEC;
	u64 warn = max_t(u64, div_u64(tout * 85, 100),
			 SROCE_FW_STALL_WARN_MIN_MS * NSEC_PER_MSEC);
	u64 asked;

	if (!buf->paused)
		return 0;
	asked = now - rb->asked_since_ns[b];
	if (asked >= tout) {
		atomic64_inc(&fw->pfc_port_stats[SROCE_PFC_TX_PAUSE_STORM_ERROR]);
		pr_warn_ratelimited("sroce_fw %s: receive buffer %u full for %u ms: PFC pause no longer sent until it drains\n",
				    netdev_name(fw->ndev), b,
				    le16_to_cpu(rb->cfg.stall_tout_ms));
		rb->storm[b] = true;
		buf->paused = false;
		sroce_fw_rxbuf_ask(fw, b, false, now, out);
		return 0;
	}
	if (asked >= warn && !rb->warned[b]) {
		rb->warned[b] = true;
		atomic64_inc(&fw->pfc_port_stats[SROCE_PFC_TX_PAUSE_STORM_WARNING]);
	}
	if (sroce_pfc_buf_tick(buf, now, sroce_fw_pfc_speed(fw)) ==
	    SROCE_PFC_SEND_XOFF)
		sroce_fw_rxbuf_ask(fw, b, true, now, out);
	return min(buf->refresh_ns,
		   rb->asked_since_ns[b] + (rb->warned[b] ? tout : warn));
}

/* The next packet the drain takes, round robin. Caller holds rb->lock. */
static struct sk_buff *sroce_fw_rxbuf_pick(struct sroce_fw_rxbuf *rb,
					   unsigned int *prio)
{
	unsigned int i;

	for (i = 0; i < SROCE_PFC_NUM_PRIO; i++) {
		unsigned int p = (rb->rr_prio + i) % SROCE_PFC_NUM_PRIO;
		struct sk_buff *skb = __skb_dequeue(&rb->queue[p]);

		if (skb) {
			rb->rr_prio = (p + 1) % SROCE_PFC_NUM_PRIO;
			*prio = p;
			return skb;
		}
	}
	return NULL;
}

/*
 * What a held packet is counted as, in the last SROCE_FW_RXBUF_CB_LEN
 * bytes of its cb (fw_net.c's struct sroce_fw_rx_cb is at its head):
 * its bytes and the buffer that counts them, which it is released from
 * whatever prio2buffer says by then.
 */
struct sroce_fw_held {
	u32 bytes;
	u8 buf;
};

static struct sroce_fw_held *sroce_fw_rxbuf_held(struct sk_buff *skb)
{
	static_assert(sizeof(struct sroce_fw_held) <= SROCE_FW_RXBUF_CB_LEN);
	return (struct sroce_fw_held *)(skb->cb + sizeof(skb->cb) -
					SROCE_FW_RXBUF_CB_LEN);
}

/*
 * Take one packet off the queues if the drain rate allows it at @now.
 * Caller holds rb->lock. Return: the packet, or NULL.
 */
static struct sk_buff *sroce_fw_rxbuf_take(struct sroce_fw_dev *fw, u64 now,
					   struct sroce_fw_pause_out *out)
{
	struct sroce_fw_rxbuf *rb = &fw->rxbuf;
	struct sk_buff *skb;
	unsigned int prio, b;
	u32 bytes;

	if (rb->drain_stop || (s64)(rb->next_ns - now) > 0)
		return NULL;
	skb = sroce_fw_rxbuf_pick(rb, &prio);
	if (!skb)
		return NULL;
	bytes = sroce_fw_rxbuf_held(skb)->bytes;
	b = sroce_fw_rxbuf_held(skb)->buf;
	if (rb->drain_mbps) {
		if ((s64)(now - rb->next_ns) > SROCE_FW_DRAIN_BURST_NS)
			rb->next_ns = now - SROCE_FW_DRAIN_BURST_NS;
		rb->next_ns += div_u64((u64)bytes * 8 * NSEC_PER_USEC,
				       rb->drain_mbps);
	}
	if (sroce_pfc_buf_release(&rb->buf[b], bytes) == SROCE_PFC_SEND_XON)
		sroce_fw_rxbuf_ask(fw, b, false, now, out);
	if (rb->storm[b] && rb->buf[b].used < rb->buf[b].xon)
		rb->storm[b] = false;
	return skb;
}

/*
 * When the timer is to run next, 0 for not at all. Caller holds rb->lock;
 * @watch is the earliest renewal or watchdog time of a buffer (0: none).
 */
static u64 sroce_fw_rxbuf_due(const struct sroce_fw_rxbuf *rb, u64 now,
			      u64 watch)
{
	u64 due = 0;
	unsigned int prio;

	for (prio = 0; prio < SROCE_PFC_NUM_PRIO; prio++)
		if (!skb_queue_empty(&rb->queue[prio]) && !rb->drain_stop) {
			due = max(rb->next_ns, now);
			break;
		}
	if (watch && (!due || watch < due))
		due = watch;
	return due;
}

/* The drain and renewal timer. Softirq context. */
static enum hrtimer_restart sroce_fw_rxbuf_timer(struct hrtimer *t)
{
	struct sroce_fw_dev *fw = container_of(t, struct sroce_fw_dev,
					       rxbuf.timer);
	struct sroce_fw_rxbuf *rb = &fw->rxbuf;
	struct sroce_fw_pause_out out = {};
	u64 now, watch = 0, due, w;
	struct sk_buff *skb;
	unsigned int b, n;

	spin_lock(&rb->lock);
	for (n = 0; n < SROCE_FW_DRAIN_BUDGET; n++) {
		skb = sroce_fw_rxbuf_take(fw, ktime_get_ns(), &out);
		if (!skb)
			break;
		spin_unlock(&rb->lock);
		rcu_read_lock();
		sroce_fw_rx_held(fw, skb);
		rcu_read_unlock();
		spin_lock(&rb->lock);
		/* Only now: a packet arriving meanwhile must not overtake it. */
		WRITE_ONCE(rb->held, rb->held - 1);
	}
	now = ktime_get_ns();
	for (b = 0; b < SROCE_PFC_NUM_BUF; b++) {
		w = sroce_fw_rxbuf_watch(fw, b, now, &out);
		if (w && (!watch || w < watch))
			watch = w;
	}
	/* A full budget: the rest at once, after other softirqs. */
	due = n == SROCE_FW_DRAIN_BUDGET ? now :
	      sroce_fw_rxbuf_due(rb, now, watch);
	/* Restarted meanwhile by an earlier due time: that expiry stands. */
	if (hrtimer_is_queued(t))
		due = 0;
	else
		rb->armed = due != 0;
	if (due)
		hrtimer_set_expires(t, ns_to_ktime(due));
	spin_unlock(&rb->lock);
	sroce_fw_rxbuf_send(fw, &out);
	return due ? HRTIMER_RESTART : HRTIMER_NORESTART;
}

/*
 * Have the timer run by @due: set it if it is not, move it earlier if it
 * is set for later. A callback in progress (armed, not queued) looks at
 * the state again before it ends. Caller holds rb->lock.
 */
static void sroce_fw_rxbuf_arm(struct sroce_fw_rxbuf *rb, u64 due)
{
	if (!due)
		return;
	if (rb->armed && (!hrtimer_is_queued(&rb->timer) ||
			  ktime_to_ns(hrtimer_get_expires(&rb->timer)) <= due))
		return;
	rb->armed = true;
	hrtimer_start(&rb->timer, ns_to_ktime(due), HRTIMER_MODE_ABS_SOFT);
}

/**
 * sroce_fw_rxbuf_queue() - hold a received packet in its buffer
 * @fw: the function
 * @skb: the packet (its cb says where its headers are); the buffer takes
 *	 the caller's reference over if it holds it
 * @prio: its priority
 * @bytes: its length on the wire
 * @ect: it is ECN-capable (RoCE v2, ECT(0) or ECT(1))
 * @ce: set if the emulated switch port in front of the buffers marks it
 *	CE; written before the packet is queued
 *
 * Context: softirq (the receive path), RCU read side.
 *
 * Return: true if the packet is held, false if its buffer discarded it
 * (counted in rx_prioN_buf_discard).
 */
bool sroce_fw_rxbuf_queue(struct sroce_fw_dev *fw, struct sk_buff *skb,
			  unsigned int prio, u32 bytes, bool ect, bool *ce)
{
	struct sroce_fw_rxbuf *rb = &fw->rxbuf;
	struct sroce_fw_pause_out out = {};
	enum sroce_pfc_action action;
	u64 now = ktime_get_ns();
	unsigned int b;

	prio %= SROCE_PFC_NUM_PRIO;
	spin_lock(&rb->lock);
	b = rb->cfg.prio2buffer[prio];
	if (!sroce_pfc_buf_admit(&rb->buf[b], bytes, now,
				 sroce_fw_pfc_speed(fw), &action)) {
		spin_unlock(&rb->lock);
		atomic64_inc(&fw->pfc_stats[prio][SROCE_PFC_RX_BUF_DISCARD]);
		return false;
	}
	if (action == SROCE_PFC_SEND_XOFF) {
		if (rb->storm[b])
			rb->buf[b].paused = false;
		else
			sroce_fw_rxbuf_ask(fw, b, true, now, &out);
	}
	if (ect && rb->ecn_kmax &&
	    sroce_pfc_ecn_mark(rb->buf[b].used - bytes, rb->ecn_kmin,
			       rb->ecn_kmax, rb->ecn_pmax, get_random_u32()))
		*ce = true;
	sroce_fw_rxbuf_held(skb)->bytes = bytes;
	sroce_fw_rxbuf_held(skb)->buf = b;
	/* Nothing of the stack's is kept while it waits. */
	skb_dst_drop(skb);
	nf_reset_ct(skb);
	__skb_queue_tail(&rb->queue[prio], skb);
	WRITE_ONCE(rb->held, rb->held + 1);
	sroce_fw_rxbuf_arm(rb, rb->drain_stop ?
			   (out.enable ? rb->buf[b].refresh_ns : 0) :
			   max(rb->next_ns, now));
	spin_unlock(&rb->lock);
	sroce_fw_rxbuf_send(fw, &out);
	return true;
}

/**
 * sroce_fw_rxbuf_drain() - set how fast the host side drains
 * @fw: the function
 * @stop_knob: @value is the stop (1: drains nothing), not the rate
 * @value: the rate in Mbit/s (0: unlimited), or the stop
 *
 * Context: process context.
 */
void sroce_fw_rxbuf_drain(struct sroce_fw_dev *fw, bool stop_knob, u32 value)
{
	struct sroce_fw_rxbuf *rb = &fw->rxbuf;

	spin_lock_bh(&rb->lock);
	if (stop_knob)
		WRITE_ONCE(rb->drain_stop, !!value);
	else
		WRITE_ONCE(rb->drain_mbps, value);
	rb->next_ns = ktime_get_ns();
	sroce_fw_rxbuf_arm(rb, rb->held ? rb->next_ns : 0);
	spin_unlock_bh(&rb->lock);
}

/**
 * sroce_fw_set_rx_ecn() - the ECN profile of an emulated switch port in
 * front of the port's buffers
 * @fw: the function
 * @kmin: bytes of a buffer's occupancy above which ECT packets arriving
 *	  may be marked CE
 * @kmax: from which all are; 0 turns marking off
 * @pmax_pct: the probability just below @kmax, percent
 *
 * On a real fabric the queue that marks ECN and the buffer that asks for
 * PFC pauses are both the last switch's; on one veth link there is no
 * switch, so the receiving port's buffers stand for that queue: a
 * testbed of ECN and PFC together on a single link. Marks are taken as
 * the notification point takes a switch's (np_ecn_marked_roce_packets,
 * CNPs). Only while packets go through the buffers (rx_drain_mbps).
 *
 * Context: process context.
 * Return: 0, or -EINVAL for @pmax_pct above 100 or @kmax not above @kmin.
 */
int sroce_fw_set_rx_ecn(struct sroce_fw_dev *fw, u32 kmin, u32 kmax,
			u32 pmax_pct)
{
	struct sroce_fw_rxbuf *rb = &fw->rxbuf;

	if (pmax_pct > 100 || (kmax && kmax <= kmin)) {
		pr_err_ratelimited("sroce_fw %s: rx ECN profile %u %u %u refused\n",
				   netdev_name(fw->ndev), kmin, kmax, pmax_pct);
		return -EINVAL;
	}
	spin_lock_bh(&rb->lock);
	rb->ecn_kmin = kmin;
	rb->ecn_kmax = kmax;
	rb->ecn_pmax = pmax_pct;
	spin_unlock_bh(&rb->lock);
	return 0;
}

/*
 * New thresholds after a change of PFC or the buffers: a buffer that
 * became lossy, or that now sits below its xon, lifts its pause.
 * Caller holds rb->lock.
 */
static void sroce_fw_rxbuf_relayout(struct sroce_fw_dev *fw,
				    const struct sroce_pfc_buf *bufs,
				    struct sroce_fw_pause_out *out)
{
	struct sroce_fw_rxbuf *rb = &fw->rxbuf;
	u64 now = ktime_get_ns();
	unsigned int b;

	for (b = 0; b < SROCE_PFC_NUM_BUF; b++) {
		rb->buf[b] = bufs[b];
		if (rb->buf[b].paused &&
		    (!rb->buf[b].xoff || rb->buf[b].used < rb->buf[b].xon)) {
			rb->buf[b].paused = false;
			sroce_fw_rxbuf_ask(fw, b, false, now, out);
		}
	}
}

/**
 * sroce_fw_cmd_query_pfc_buffer() - QUERY_PFC_BUFFER: the buffers
 * @fw: the function
 * @req: unused
 * @resp: struct sroce_pfc_buffer_cfg, as set, with the thresholds in
 *	  force and the occupancy
 *
 * Return: SROCE_FW_OK.
 */
u16 sroce_fw_cmd_query_pfc_buffer(struct sroce_fw_dev *fw, const void *req,
				  void *resp)
{
	struct sroce_fw_rxbuf *rb = &fw->rxbuf;
	struct sroce_pfc_buffer_cfg *r = resp;
	unsigned int b;

	spin_lock_bh(&rb->lock);
	*r = rb->cfg;
	for (b = 0; b < SROCE_PFC_NUM_BUF; b++) {
		r->active_xoff[b] = cpu_to_le32(rb->buf[b].xoff);
		r->active_xon[b] = cpu_to_le32(rb->buf[b].xon);
		r->occupancy[b] = cpu_to_le32(rb->buf[b].used);
	}
	spin_unlock_bh(&rb->lock);
	return SROCE_FW_OK;
}

/**
 * sroce_fw_cmd_set_pfc_buffer() - SET_PFC_BUFFER: sizes, map, cable,
 * thresholds, stall timeout
 * @fw: the function
 * @req: struct sroce_pfc_buffer_cfg
 * @resp: unused
 *
 * Packets held stay where they are, counted in their buffer's new
 * occupancy (one that moved to another buffer is released from the one
 * it was counted in when it leaves).
 *
 * Return: SROCE_FW_OK, or SROCE_FW_ERR_BAD_PARAM, changing nothing.
 */
u16 sroce_fw_cmd_set_pfc_buffer(struct sroce_fw_dev *fw, const void *req,
				void *resp)
{
	const struct sroce_pfc_buffer_cfg *r = req;
	struct sroce_fw_rxbuf *rb = &fw->rxbuf;
	struct sroce_pfc_buf bufs[SROCE_PFC_NUM_BUF];
	struct sroce_fw_pause_out out = {};
	u16 status = SROCE_FW_OK;

	if (!sroce_fw_rxbuf_cfg_ok(r))
		return SROCE_FW_ERR_BAD_PARAM;
	mutex_lock(&fw->cc_mutex);
	spin_lock_bh(&rb->lock);
	if (sroce_fw_rxbuf_layout(fw, r, READ_ONCE(fw->pfc_enable), rb->buf,
				  bufs)) {
		status = SROCE_FW_ERR_BAD_PARAM;
	} else {
		rb->cfg = *r;
		sroce_fw_rxbuf_relayout(fw, bufs, &out);
	}
	spin_unlock_bh(&rb->lock);
	mutex_unlock(&fw->cc_mutex);
	sroce_fw_rxbuf_send(fw, &out);
	return status;
}

/*
 * SET_PFC changed the lossless priorities: the buffers' thresholds
 * follow, as they do a new MTU or link speed. A layout the new
 * priorities or the port leave no room for keeps the buffers lossy, and
 * says so. Caller holds fw->cc_mutex.
 */
static void sroce_fw_rxbuf_pfc_changed(struct sroce_fw_dev *fw, u8 enable)
{
	struct sroce_fw_rxbuf *rb = &fw->rxbuf;
	struct sroce_pfc_buf bufs[SROCE_PFC_NUM_BUF];
	struct sroce_fw_pause_out out = {};
	bool lossy = false;

	spin_lock_bh(&rb->lock);
	if (sroce_fw_rxbuf_layout(fw, &rb->cfg, enable, rb->buf, bufs)) {
		sroce_fw_rxbuf_layout(fw, &rb->cfg, 0, rb->buf, bufs);
		lossy = true;
	}
	sroce_fw_rxbuf_relayout(fw, bufs, &out);
	spin_unlock_bh(&rb->lock);
	sroce_fw_rxbuf_send(fw, &out);
	if (lossy)
		pr_warn_ratelimited("sroce_fw %s: PFC on 0x%02x but no buffer room for its headroom at MTU %u: buffers lossy\n",
				    netdev_name(fw->ndev), enable,
				    READ_ONCE(fw->port.netdev_mtu));
}

/**
 * sroce_fw_pfc_link_changed() - the port's MTU or speed may have changed
 * @fw: the function
 *
 * xoff and xon computed from the headroom rule follow the port's MTU and
 * speed (explicit ones stay); pauses asked above a new xon are lifted.
 *
 * Context: process context; takes fw->cc_mutex, so RTNL may be held.
 */
void sroce_fw_pfc_link_changed(struct sroce_fw_dev *fw)
{
	mutex_lock(&fw->cc_mutex);
	sroce_fw_rxbuf_pfc_changed(fw, fw->pfc_enable);
	mutex_unlock(&fw->cc_mutex);
}

/* The buffers of a new function: the defaults, empty, drain unlimited. */
static void sroce_fw_rxbuf_init(struct sroce_fw_dev *fw)
{
	struct sroce_fw_rxbuf *rb = &fw->rxbuf;
	struct sroce_pfc_buf none[SROCE_PFC_NUM_BUF] = {};
	unsigned int prio;

	spin_lock_init(&rb->lock);
	for (prio = 0; prio < SROCE_PFC_NUM_PRIO; prio++)
		__skb_queue_head_init(&rb->queue[prio]);
	rb->cfg.size[0] = cpu_to_le32(SROCE_FW_BUF_DEFAULT_SIZE);
	rb->cfg.cable_len = cpu_to_le16(SROCE_FW_CABLE_DEFAULT_M);
	rb->cfg.stall_tout_ms = cpu_to_le16(SROCE_FW_STALL_DEFAULT_MS);
	/* PFC is off: every buffer is lossy, which always lays out. */
	sroce_fw_rxbuf_layout(fw, &rb->cfg, 0, none, rb->buf);
	hrtimer_setup(&rb->timer, sroce_fw_rxbuf_timer, CLOCK_MONOTONIC,
		      HRTIMER_MODE_ABS_SOFT);
}

/**
 * sroce_fw_rxbuf_stop() - stop the drain of a function going away, drop
 * what its buffers hold and lift the pauses they ask for (XON)
 * @fw: the function, which the receive path no longer finds (after
 *	sroce_fw_port_detach()), so nothing is queued or armed again
 */
void sroce_fw_rxbuf_stop(struct sroce_fw_dev *fw)
{
	struct sroce_fw_rxbuf *rb = &fw->rxbuf;
	/* XON for every priority still paused: all quanta 0 */
	struct sroce_fw_pause_out out = { .enable = rb->asking };
	unsigned int prio;

	hrtimer_cancel(&rb->timer);
	for (prio = 0; prio < SROCE_PFC_NUM_PRIO; prio++)
		__skb_queue_purge(&rb->queue[prio]);
	WRITE_ONCE(rb->held, 0);
	/*
	 * A partner this port still pauses would otherwise wait out the
	 * pause's time (up to 3.4 s at 10 Mbit/s, renewed by nobody) with
	 * nothing left to fill.
	 */
	sroce_fw_rxbuf_send(fw, &out);
}
