// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * sroce firmware: congestion control.
 *
 * Configuration: the knobs (enum sroce_cc_param, mlx5's cc_params,
 * range-checked by the table of lib/dcqcn.c) and the QoS settings (trust,
 * dscp2prio, ECN per priority) are set by commands; together with the
 * link speed they are turned into one struct sroce_fw_cc that the
 * datapath reads under RCU. Its writers (the command processor, the
 * link-speed sampling) take cc_mutex.
 *
 * Reaction point: a CNP for a QP starts or feeds its limiter
 * (lib/dcqcn.c); the egress stage asks sroce_fw_rp_hold() before each
 * packet of a limited QP and accounts each one in sroce_fw_rp_sent(). A
 * held QP gets its turn again from its pacing timer. The limiter's state
 * is brought forward to the present at each of those calls, so timers
 * that cannot fire every microsecond change nothing in its trajectory.
 *
 * Notification point: a CE-marked packet for a QP, on a priority with the
 * NP on, is answered with a CNP to the QP that sent it, at most one per
 * np_min_time_between_cnps per receiving QP.
 */
#include <linux/ktime.h>
#include <linux/math64.h>
#include <rdma/ib_mad.h>

#include "fw.h"

#define CREATE_TRACE_POINTS
#include "fw_trace.h"

/* A link whose speed ethtool does not tell: the knobs' largest rate. */
#define SROCE_FW_CC_UNKNOWN_SPEED_MBPS	400000U

/*
 * Bytes a limited QP may send back to back once it has waited longer
 * than its rate asked (a late pacing timer), so that timer latency does
 * not lower the rate; more would be a burst the limiter is there to stop.
 */
#define SROCE_FW_PACE_BURST		16384U

/*
 * Length of the window the send rate is measured over (the rate the
 * limiter starts at), and the gap after which a window is taken as idle
 * and its rate as unknown (a first CNP then starts from the line rate).
 */
#define SROCE_FW_RATE_WINDOW		(HZ / 100 ? HZ / 100 : 1)
#define SROCE_FW_RATE_IDLE		(4 * SROCE_FW_RATE_WINDOW)

/*
 * Build the configuration in force from the knobs, the QoS settings and
 * the link speed, and publish it. Caller holds fw->cc_mutex.
 * Return: 0, or -ENOMEM (the old configuration stays).
 */
static int sroce_fw_cc_publish(struct sroce_fw_dev *fw)
{
	u32 params[SROCE_NUM_CC_PARAMS];
	struct sroce_fw_cc *cc, *old;
	unsigned int i;
	u32 mbps;

	lockdep_assert_held(&fw->cc_mutex);
	cc = kzalloc(sizeof(*cc), GFP_KERNEL);
	if (!cc)
		return -ENOMEM;
	for (i = 0; i < SROCE_NUM_CC_PARAMS; i++)
		params[i] = fw->cc_params[i];
	mbps = READ_ONCE(fw->port.speed_mbps);
	if (!mbps)
		mbps = SROCE_FW_CC_UNKNOWN_SPEED_MBPS;
	sroce_dcqcn_cfg_init(&cc->rp, params, (u64)mbps * 1000);
	cc->qos = fw->qos;
	cc->np_min_gap_us = params[SROCE_CC_NP_MIN_TIME_BETWEEN_CNPS];
	cc->cnp_tclass = params[SROCE_CC_NP_CNP_DSCP] << 2 | SROCE_ECN_NOT_ECT;
	cc->cnp_prio_mode = params[SROCE_CC_NP_CNP_PRIO_MODE];
	cc->cnp_prio = params[SROCE_CC_NP_CNP_PRIO];
	old = rcu_replace_pointer(fw->cc, cc, lockdep_is_held(&fw->cc_mutex));
	if (old)
		kfree_rcu(old, rcu);
	return 0;
}

/**
 * sroce_fw_cc_init() - congestion control of a new function: every knob
 * at its default, QoS as ConnectX's after reset
 * @fw: the function
 *
 * Context: process context.
 * Return: 0 or -ENOMEM.
 */
int sroce_fw_cc_init(struct sroce_fw_dev *fw)
{
	int err;

	mutex_init(&fw->cc_mutex);
	sroce_cc_params_default(fw->cc_params);
	sroce_qos_default(&fw->qos);
	mutex_lock(&fw->cc_mutex);
	err = sroce_fw_cc_publish(fw);
	mutex_unlock(&fw->cc_mutex);
	/* Nothing was published: the caller frees the function alone. */
	if (err)
		mutex_destroy(&fw->cc_mutex);
	return err;
}

/**
 * sroce_fw_cc_free() - free the configuration of a function being
 * detached, which nothing reads any more
 * @fw: the function
 */
void sroce_fw_cc_free(struct sroce_fw_dev *fw)
{
	kfree(rcu_dereference_protected(fw->cc, true));
	mutex_destroy(&fw->cc_mutex);
}

/**
 * sroce_fw_cc_speed_changed() - the link speed changed: it bounds the
 * rates of the reaction point
 * @fw: the function
 *
 * Context: process context; RTNL may be held (taken before cc_mutex).
 */
void sroce_fw_cc_speed_changed(struct sroce_fw_dev *fw)
{
	int err;

	mutex_lock(&fw->cc_mutex);
	err = sroce_fw_cc_publish(fw);
	mutex_unlock(&fw->cc_mutex);
	if (err)
		pr_warn_ratelimited("sroce: %s: congestion control keeps the old link speed: no memory\n",
				    netdev_name(fw->ndev));
}

/**
 * sroce_fw_cmd_query_cc_params() - QUERY_CC_PARAMS: every knob's value
 * @fw: the function
 * @req: unused (no request payload)
 * @resp: struct sroce_query_cc_params_resp
 *
 * Return: enum sroce_fw_status.
 */
u16 sroce_fw_cmd_query_cc_params(struct sroce_fw_dev *fw, const void *req,
				 void *resp)
{
	struct sroce_query_cc_params_resp *r = resp;
	unsigned int i;

	mutex_lock(&fw->cc_mutex);
	for (i = 0; i < SROCE_NUM_CC_PARAMS; i++)
		r->value[i] = cpu_to_le32(fw->cc_params[i]);
	mutex_unlock(&fw->cc_mutex);
	return SROCE_FW_OK;
}

/**
 * sroce_fw_cmd_set_cc_param() - SET_CC_PARAM: one knob
 * @fw: the function
 * @req: struct sroce_set_cc_param_req
 * @resp: unused
 *
 * Return: enum sroce_fw_status; BAD_PARAM, changing nothing, for an
 * unknown knob or a value out of its range; NO_RESOURCES, changing
 * nothing, if the new configuration finds no memory.
 */
u16 sroce_fw_cmd_set_cc_param(struct sroce_fw_dev *fw, const void *req,
			      void *resp)
{
	const struct sroce_set_cc_param_req *r = req;
	u32 id = le32_to_cpu(r->id);
	u32 value = le32_to_cpu(r->value);
	u32 old[SROCE_NUM_CC_PARAMS];
	u16 status = SROCE_FW_OK;

	if (sroce_cc_param_check(id, value))
		return SROCE_FW_ERR_BAD_PARAM;
	mutex_lock(&fw->cc_mutex);
	memcpy(old, fw->cc_params, sizeof(old));
	fw->cc_params[id] = value;
	if (id == SROCE_CC_NP_CNP_PRIO)
		fw->cc_params[SROCE_CC_NP_CNP_PRIO_MODE] = 0;
	if (sroce_fw_cc_publish(fw)) {
		memcpy(fw->cc_params, old, sizeof(old));
		status = SROCE_FW_ERR_NO_RESOURCES;
	}
	mutex_unlock(&fw->cc_mutex);
	return status;
}

/**
 * sroce_fw_cmd_query_qos() - QUERY_QOS: trust, dscp2prio, ECN switches
 * @fw: the function
 * @req: unused (no request payload)
 * @resp: struct sroce_qos_cfg
 *
 * Return: enum sroce_fw_status.
 */
u16 sroce_fw_cmd_query_qos(struct sroce_fw_dev *fw, const void *req,
			   void *resp)
{
	struct sroce_qos_cfg *r = resp;

	mutex_lock(&fw->cc_mutex);
	r->trust = fw->qos.trust;
	r->rp_enable = fw->qos.rp_enable;
	r->np_enable = fw->qos.np_enable;
	memcpy(r->dscp2prio, fw->qos.dscp2prio, sizeof(r->dscp2prio));
	mutex_unlock(&fw->cc_mutex);
	return SROCE_FW_OK;
}

static_assert(sizeof_field(struct sroce_qos_cfg, dscp2prio) ==
	      sizeof_field(struct sroce_qos, dscp2prio));

/**
 * sroce_fw_cmd_set_qos() - SET_QOS: replace the QoS settings
 * @fw: the function
 * @req: struct sroce_qos_cfg
 * @resp: unused
 *
 * Connected QPs take the new priority and ECN codepoint with their next
 * packet (their cached paths are made stale).
 *
 * Return: enum sroce_fw_status; BAD_PARAM, changing nothing, for an
 * unknown trust mode, a priority above 7 or a reserved byte not zero; NO_RESOURCES, changing
 * nothing, without memory.
 */
u16 sroce_fw_cmd_set_qos(struct sroce_fw_dev *fw, const void *req,
			 void *resp)
{
	const struct sroce_qos_cfg *r = req;
	struct sroce_qos old;
	u16 status = SROCE_FW_OK;
	unsigned int i;

	if ((r->trust != SROCE_QOS_TRUST_PCP &&
	     r->trust != SROCE_QOS_TRUST_DSCP) || r->rsvd)
		return SROCE_FW_ERR_BAD_PARAM;
	for (i = 0; i < ARRAY_SIZE(r->dscp2prio); i++)
		if (r->dscp2prio[i] >= SROCE_QOS_NUM_PRIO)
			return SROCE_FW_ERR_BAD_PARAM;
	mutex_lock(&fw->cc_mutex);
	old = fw->qos;
	fw->qos.trust = r->trust;
	fw->qos.rp_enable = r->rp_enable;
	fw->qos.np_enable = r->np_enable;
	memcpy(fw->qos.dscp2prio, r->dscp2prio, sizeof(fw->qos.dscp2prio));
	if (sroce_fw_cc_publish(fw)) {
		fw->qos = old;
		status = SROCE_FW_ERR_NO_RESOURCES;
	}
	mutex_unlock(&fw->cc_mutex);
	if (!status)
		sroce_fw_paths_stale(fw);
	return status;
}

/**
 * sroce_fw_cmd_query_qp_cc() - QUERY_QP_CC: a QP's reaction point
 * @fw: the function
 * @req: struct sroce_qp_req
 * @resp: struct sroce_qp_cc_resp
 *
 * Return: enum sroce_fw_status; NOT_FOUND for no such QP.
 */
u16 sroce_fw_cmd_query_qp_cc(struct sroce_fw_dev *fw, const void *req,
			     void *resp)
{
	const struct sroce_qp_req *q = req;
	struct sroce_qp_cc_resp *r = resp;
	struct sroce_fw_qp *qp;

	/* The command processor alone destroys QPs: no reference needed. */
	qp = xa_load(&fw->qps, le32_to_cpu(q->qpn));
	if (!qp)
		return SROCE_FW_ERR_NOT_FOUND;
	spin_lock_bh(&qp->lock);
	r->limited = qp->rp.active;
	if (qp->rp.active) {
		r->rate_kbps = cpu_to_le64(qp->rp.rc_kbps);
		r->target_kbps = cpu_to_le64(qp->rp.rt_kbps);
		r->alpha = cpu_to_le16(qp->rp.alpha);
	}
	r->measured_kbps = cpu_to_le64(qp->rate_kbps);
	r->prio = qp->prio;
	spin_unlock_bh(&qp->lock);
	return SROCE_FW_OK;
}

/**
 * sroce_fw_cc_path() - the port's priority and the ECN codepoint of a
 * path
 * @fw: the function
 * @path: a path resolved from an address vector: @path->sl and
 *	  @path->traffic_class are the vector's; @path->prio is set, and
 *	  a RoCE v2 path's ECN bits become ECT(0) where the reaction point
 *	  works on its priority, Not-ECT elsewhere
 *
 * Context: any but hard IRQ.
 */
void sroce_fw_cc_path(struct sroce_fw_dev *fw, struct sroce_fw_path *path)
{
	sroce_fw_cc_path_prio(fw, path,
			      sroce_fw_cc_prio(fw, path->sl,
					       path->traffic_class));
}

/**
 * sroce_fw_cc_path_prio() - give a path the priority of the QP sending
 * along it
 * @fw: the function
 * @path: a resolved path
 * @prio: the QP's priority
 *
 * A datagram QP has one reaction point and one priority whatever its
 * address handles say: its packets' ECN codepoint must follow the
 * priority its CNPs are handled at.
 *
 * Context: any but hard IRQ.
 */
void sroce_fw_cc_path_prio(struct sroce_fw_dev *fw, struct sroce_fw_path *path,
			   unsigned int prio)
{
	rcu_read_lock();
	path->prio = prio;
	if (path->net_type != SROCE_NET_ROCE_V1)
		path->traffic_class = sroce_qos_tclass(&rcu_dereference(fw->cc)->qos,
						       prio, path->traffic_class);
	rcu_read_unlock();
}

/**
 * sroce_fw_cc_prio() - the port's priority of an address vector's packets
 * @fw: the function
 * @sl: the vector's service level
 * @tclass: its traffic class
 *
 * Context: any but hard IRQ.
 * Return: 0..7.
 */
unsigned int sroce_fw_cc_prio(struct sroce_fw_dev *fw, u8 sl, u8 tclass)
{
	unsigned int prio;

	rcu_read_lock();
	prio = sroce_qos_prio(&rcu_dereference(fw->cc)->qos, sl, tclass);
	rcu_read_unlock();
	return prio;
}

/* The pacing timer: the QP's next packet may leave. Softirq context. */
static enum hrtimer_restart sroce_fw_pace_timer(struct hrtimer *t)
{
	struct sroce_fw_qp *qp = container_of(t, struct sroce_fw_qp,
					      pace_timer);

	/* The QP is freed only after this timer is cancelled. */
	rcu_read_lock();
	sroce_fw_ring_sq(qp->fw, qp);
	rcu_read_unlock();
	return HRTIMER_NORESTART;
}

/**
 * sroce_fw_qp_cc_init() - congestion-control state of a new QP: no
 * limiter, no CNP sent
 * @qp: the QP, not yet reachable
 */
void sroce_fw_qp_cc_init(struct sroce_fw_qp *qp)
{
	hrtimer_setup(&qp->pace_timer, sroce_fw_pace_timer, CLOCK_MONOTONIC,
		      HRTIMER_MODE_ABS_SOFT);
	qp->rate_win_start = jiffies;
}

/**
 * sroce_fw_qp_cc_reset() - a QP back in RESET forgets its limiter, its
 * measured rate and its last CNP
 * @qp: the QP, whose lock is held
 *
 * A pacing timer still set fires into a turn that finds nothing to send.
 */
void sroce_fw_qp_cc_reset(struct sroce_fw_qp *qp)
{
	memset(&qp->rp, 0, sizeof(qp->rp));
	qp->pace_next_ns = 0;
	qp->rate_win_start = jiffies;
	qp->rate_win_bytes = 0;
	qp->rate_kbps = 0;
	qp->np_cnp_sent = false;
}

/**
 * sroce_fw_qp_cc_stop() - stop the pacing timer of a QP being freed
 * @qp: the QP, which no turn can reach any more (after the grace period
 *	that follows sroce_fw_sched_remove()), so nothing starts the timer
 *	again
 */
void sroce_fw_qp_cc_stop(struct sroce_fw_qp *qp)
{
	hrtimer_cancel(&qp->pace_timer);
}

/* Whether the reaction point works on priority @prio. */
static bool sroce_fw_rp_on(const struct sroce_fw_cc *cc, unsigned int prio)
{
	return cc->qos.rp_enable & BIT(prio % SROCE_QOS_NUM_PRIO);
}

/*
 * Trace a change of @qp's limiter since @old, which the caller saved when
 * the tracepoint was on.
 */
static void sroce_fw_rp_trace(struct sroce_fw_dev *fw, struct sroce_fw_qp *qp,
			      const struct sroce_dcqcn_rp *old)
{
	const struct sroce_dcqcn_rp *rp = &qp->rp;

	if (old->active == rp->active && old->rc_kbps == rp->rc_kbps &&
	    old->rt_kbps == rp->rt_kbps)
		return;
	trace_sroce_rate(fw->ndev->ifindex, qp->qpn,
			 old->active ? old->rc_kbps : 0, rp->rc_kbps,
			 rp->rt_kbps, rp->alpha, rp->active);
}

/**
 * sroce_fw_rp_hold() - the limiter's decision for a limited QP's next
 * packet (the slow path of sroce_fw_tx_hold())
 * @fw: the function
 * @qp: the QP, whose limiter is active and whose lock is held
 *
 * Brings the limiter forward to now; a QP whose rate came back to the
 * maximum, or whose priority had the reaction point turned off, is
 * released. Otherwise, if its next packet is not yet due, the pacing
 * timer is set for when it is, and the transport timeout of the packets
 * outstanding is moved on by the wait.
 *
 * Context: the egress stage: softirqs off, RCU read side.
 * Return: true if the packet must wait.
 */
bool sroce_fw_rp_hold(struct sroce_fw_dev *fw, struct sroce_fw_qp *qp)
{
	const struct sroce_fw_cc *cc = rcu_dereference(fw->cc);
	bool tracing = trace_sroce_rate_enabled();
	u64 now = ktime_get_ns();
	struct sroce_dcqcn_rp old;

	if (tracing)
		old = qp->rp;
	if (!sroce_fw_rp_on(cc, qp->prio))
		qp->rp.active = false;
	else
		sroce_dcqcn_advance(&qp->rp, &cc->rp, now);
	if (tracing)
		sroce_fw_rp_trace(fw, qp, &old);
	if (!qp->rp.active || (s64)(qp->pace_next_ns - now) <= 0)
		return false;
	sroce_fw_retry_defer(qp, qp->pace_next_ns - now);
	hrtimer_start(&qp->pace_timer, ns_to_ktime(qp->pace_next_ns),
		      HRTIMER_MODE_ABS_SOFT);
	return true;
}

/**
 * sroce_fw_rp_sent() - account a packet a QP sent
 * @fw: the function
 * @qp: the QP, whose lock is held
 * @len: the packet's bytes, BTH to ICRC
 *
 * Measures the QP's send rate; for a limited QP, moves its pacing time on
 * by the packet's time at the current rate and feeds the byte counter.
 *
 * Context: the egress stage: softirqs off, RCU read side.
 */
void sroce_fw_rp_sent(struct sroce_fw_dev *fw, struct sroce_fw_qp *qp,
		      u32 len)
{
	unsigned long now_j = jiffies, elapsed = now_j - qp->rate_win_start;
	struct sroce_dcqcn_rp old;
	const struct sroce_fw_cc *cc;
	u64 now, burst, start;
	bool tracing;

	qp->rate_win_bytes += len;
	if (elapsed >= SROCE_FW_RATE_WINDOW) {
		qp->rate_kbps = elapsed > SROCE_FW_RATE_IDLE ? 0 :
				div64_u64(qp->rate_win_bytes * 8 * HZ,
					  (u64)elapsed * 1000);
		qp->rate_win_start = now_j;
		qp->rate_win_bytes = 0;
	}
	if (likely(!qp->rp.active))
		return;
	cc = rcu_dereference(fw->cc);
	now = ktime_get_ns();
	burst = sroce_dcqcn_tx_ns(SROCE_FW_PACE_BURST, qp->rp.rc_kbps);
	start = qp->pace_next_ns;
	if (now > burst && start < now - burst)
		start = now - burst;
	qp->pace_next_ns = start + sroce_dcqcn_tx_ns(len, qp->rp.rc_kbps);
	tracing = trace_sroce_rate_enabled();
	if (tracing)
		old = qp->rp;
	sroce_dcqcn_sent(&qp->rp, &cc->rp, now, len);
	if (tracing)
		sroce_fw_rp_trace(fw, qp, &old);
}

/*
 * Whether a packet for @qp comes from where its congestion signals may:
 * for a connected QP, its peer (anyone else could slow it down or make
 * it send CNPs at will); for a UD QP, any unicast address but its own
 * function's. Never for QP1. Caller holds qp->lock.
 */
static bool sroce_fw_cc_source_ok(const struct sroce_fw_qp *qp,
				  const struct sroce_fw_pkt *pkt)
{
	static const u8 any[SROCE_GID_LEN];

	switch (qp->type) {
	case SROCE_QPT_RC:
	case SROCE_QPT_UC:
		return !memcmp(pkt->saddr, qp->attr.av.dgid, SROCE_GID_LEN);
	case SROCE_QPT_UD:
		return memcmp(pkt->saddr, any, SROCE_GID_LEN) &&
		       memcmp(pkt->saddr, pkt->dgid, SROCE_GID_LEN) &&
		       !sroce_fw_gid_is_mcast(pkt->saddr);
	default:
		return false;
	}
}

/**
 * sroce_fw_rp_cnp() - a CNP arrived for a QP
 * @fw: the function
 * @qp: the QP its BTH names
 * @pkt: the CNP
 *
 * Handled (rp_cnp_handled) by a QP that sends, from its peer (connected
 * QPs) or a unicast address (UD), on a priority with the reaction point
 * on: its limiter starts, at rp_rate_to_set_on_first_cnp
 * or else at the rate it was measured sending at (the line rate if it
 * was idle), or takes the CNP into its next decrease. Otherwise ignored
 * (rp_cnp_ignored). Never seen by the QP's transport.
 *
 * Context: softirq (the receive path), RCU read side.
 */
void sroce_fw_rp_cnp(struct sroce_fw_dev *fw, struct sroce_fw_qp *qp,
		     const struct sroce_fw_pkt *pkt)
{
	const struct sroce_fw_cc *cc = rcu_dereference(fw->cc);
	bool tracing = trace_sroce_rate_enabled();
	struct sroce_dcqcn_rp old;
	bool handled = false;
	u64 now, rate;

	spin_lock(&qp->lock);
	if (sroce_fw_qp_sends(qp) && sroce_fw_rp_on(cc, qp->prio) &&
	    sroce_fw_cc_source_ok(qp, pkt)) {
		now = ktime_get_ns();
		if (tracing)
			old = qp->rp;
		if (!qp->rp.active)
			qp->pace_next_ns = now;
		rate = qp->rate_kbps ? qp->rate_kbps : cc->rp.max_kbps;
		sroce_dcqcn_cnp(&qp->rp, &cc->rp, now, rate);
		if (tracing)
			sroce_fw_rp_trace(fw, qp, &old);
		handled = true;
	}
	spin_unlock(&qp->lock);
	trace_sroce_cnp_recv(fw->ndev->ifindex, qp->qpn, handled);
	sroce_fw_count(fw, handled ? SROCE_STAT_RP_CNP_HANDLED :
				     SROCE_STAT_RP_CNP_IGNORED);
}

/*
 * Send a CNP from QP @qpn to QP @dest_qpn along @path (which leads to the
 * QP that sent the marked packet, @prio the priority that packet had): BECN set, no
 * PSN, 16 zero bytes; DSCP np_cnp_dscp, Not-ECT, and the priority
 * np_cnp_prio (np_cnp_prio_mode 0) or @prio (1). Not paced; not sent
 * while that priority is paused (PFC).
 */
static void sroce_fw_send_cnp(struct sroce_fw_dev *fw,
			      const struct sroce_fw_cc *cc, u32 qpn,
			      struct sroce_fw_path *path, u32 dest_qpn,
			      unsigned int prio)
{
	struct sroce_roce_fields f = {
		.opcode = SROCE_OPCODE_CNP,
		.becn = true,
		.pkey = IB_DEFAULT_PKEY_FULL,
		.qpn = dest_qpn,
	};
	struct sk_buff *skb;
	u8 *payload;

	path->traffic_class = cc->cnp_tclass;
	path->sl = cc->cnp_prio_mode ? prio : cc->cnp_prio;
	path->prio = path->sl;
	/*
	 * A CNP's priority paused by the link partner: no queue keeps it
	 * (it belongs to no QP of ours to wait on); the next mark asks again.
	 */
	if (sroce_fw_prio_paused(fw, path->prio))
		return;
	skb = sroce_fw_tx_alloc(fw, &f, &payload);
	if (IS_ERR(skb))
		return;
	if (sroce_fw_tx_ctrl(fw, skb, path))
		return;
	sroce_fw_count(fw, SROCE_STAT_NP_CNP_SENT);
	trace_sroce_cnp_sent(fw->ndev->ifindex, qpn, dest_qpn, path->prio,
			     path->traffic_class);
}

/**
 * sroce_fw_np_ce() - the notification point: a CE-marked RoCE v2 packet
 * arrived for a QP
 * @fw: the function
 * @qp: the QP it is for
 * @pkt: the packet, parsed; not a CNP
 *
 * Counted (np_ecn_marked_roce_packets). On a priority with the
 * notification point on (the DSCP's in DSCP trust, else the QP's own),
 * from the QP's peer (connected QPs) or a unicast address with the QP's
 * Q_Key (UD), a CNP goes to the QP that sent it (RC/UC: the QP's peer; UD: DETH's
 * source QP at the packet's source address) unless this QP sent one less
 * than np_min_time_between_cnps ago.
 *
 * Context: softirq (the receive path), RCU read side.
 */
void sroce_fw_np_ce(struct sroce_fw_dev *fw, struct sroce_fw_qp *qp,
		    const struct sroce_fw_pkt *pkt)
{
	const struct sroce_fw_cc *cc = rcu_dereference(fw->cc);
	struct sroce_fw_path path = {};
	unsigned int prio;
	bool due = false;
	u32 dest_qpn = 0;
	u64 now;

	sroce_fw_count(fw, SROCE_STAT_NP_ECN_MARKED);
	spin_lock(&qp->lock);
	prio = cc->qos.trust == SROCE_TRUST_DSCP ?
	       cc->qos.dscp2prio[pkt->tclass >> 2] % SROCE_QOS_NUM_PRIO :
	       qp->prio;
	if (!(cc->qos.np_enable & BIT(prio)) || !sroce_fw_qp_receives(qp) ||
	    !sroce_fw_cc_source_ok(qp, pkt))
		goto out_unlock;
	now = ktime_get_ns();
	if (!sroce_np_cnp_due(now, qp->np_last_cnp_ns, qp->np_cnp_sent,
			      cc->np_min_gap_us))
		goto out_unlock;
	if (qp->type == SROCE_QPT_RC || qp->type == SROCE_QPT_UC) {
		if (sroce_fw_qp_path(fw, qp, &path))
			goto out_unlock;
		dest_qpn = le32_to_cpu(qp->attr.dest_qpn) & 0xffffff;
	} else {
		/* Only for a datagram the QP would accept. */
		if (!pkt->info.off[SROCE_EXT_DETH] ||
		    sroce_deth_qkey(pkt->hdr + pkt->info.off[SROCE_EXT_DETH]) !=
		    le32_to_cpu(qp->attr.qkey))
			goto out_unlock;
		memcpy(path.sgid, pkt->dgid, SROCE_GID_LEN);
		memcpy(path.dgid, pkt->saddr, SROCE_GID_LEN);
		path.vlan_id = pkt->vlan_id;
		path.net_type = pkt->net_type;
		path.hop_limit = 64;
		path.sport = qp->sport;
		dest_qpn = sroce_deth_sqp(pkt->hdr +
					  pkt->info.off[SROCE_EXT_DETH]);
	}
	qp->np_last_cnp_ns = now;
	qp->np_cnp_sent = true;
	due = true;
out_unlock:
	spin_unlock(&qp->lock);
	if (due)
		sroce_fw_send_cnp(fw, cc, qp->qpn, &path, dest_qpn, prio);
}
