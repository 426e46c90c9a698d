// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * DCQCN reaction point, as ConnectX parameterises it (mlx5 cc_params),
 * evaluated lazily (dcqcn.h). The rules, for one limited QP:
 *
 * - First CNP: the limiter starts: current = target = the first-CNP rate
 *   (or the QP's current rate), alpha = rp_initial_alpha_value; the three
 *   timers start at that instant, and a decrease is pending.
 * - Alpha tick (every rp_dce_tcp_rtt): alpha = alpha * g / 1024, plus
 *   1024 - g if a CNP came since the last tick (at most 1023).
 * - Decrease tick (every rp_rate_reduce_monitor_period), if a CNP came
 *   since the last one: the target becomes the current rate when
 *   rp_clamp_tgt_rate is set, or a byte-counter increase came since the
 *   last decrease, or (rp_clamp_tgt_rate_ati) an increase-timer one;
 *   current -= current * alpha / 2^rp_gd, kept at or above
 *   rp_min_dec_fac % of the old rate and at or above rp_min_rate; both
 *   increase sources start again (stages and byte counter zero, timer
 *   restarted at the tick).
 * - Increase event, from the timer (every rp_time_reset) or the byte
 *   counter (every rp_byte_reset bytes sent): the event's stage count goes
 *   up, then with F = rp_threshold: fast recovery while both counts are
 *   at most F (current = (current + target) / 2, rounded up); hyper
 *   increase once both exceed F (target += rp_hai_rate, then the same
 *   average); additive increase in between (target += rp_ai_rate). With
 *   the byte counter off (rp_byte_reset 0) the timer's count alone
 *   decides: at most F fast recovery, F + 1 additive, beyond hyper. The
 *   target never exceeds the maximum rate; when the current rate reaches
 *   it, the limiter is released.
 * - Ticks at the same instant: alpha, then decrease (which cancels an
 *   increase tick of that instant by restarting the timer), then
 *   increase; a CNP or a packet at an instant comes after its ticks.
 *
 * Bounded work: an alpha run stops once alpha is 0 (each decay lowers it
 * by at least 1, so after at most 1023 ticks); an increase run is at most
 * threshold + 2 steps to fix its phase, then at most 64 steps for the gap
 * between target and current to settle (it halves each step towards the
 * step size), then a jump over the steps before the target reaches the
 * maximum, then at most 64 steps until current reaches it too.
 */
#include "dcqcn.h"

#ifdef __KERNEL__
#include <linux/math64.h>
#define dcqcn_div(a, b) div64_u64(a, b)
#else
#define dcqcn_div(a, b) ((a) / (b))
#endif

#ifdef __KERNEL__
#define dcqcn_count_step()
#else
unsigned long sroce_dcqcn_steps;
#define dcqcn_count_step() (sroce_dcqcn_steps++)
#endif

#define NSEC_PER_USEC_U64	1000ULL
#define KBPS_PER_MBPS		1000ULL

/*
 * Ranges and defaults. ConnectX's defaults (research note 4.1); the
 * ranges are those of the firmware fields where known, bounded to what
 * an emulated port can mean elsewhere (rates up to 400 Gbit/s).
 */
const struct sroce_cc_param_desc sroce_cc_params[SROCE_NUM_CC_PARAMS] = {
	[SROCE_CC_RP_CLAMP_TGT_RATE] = { "rp_clamp_tgt_rate", 0, 1, 0, "bool" },
	[SROCE_CC_RP_CLAMP_TGT_RATE_ATI] = {
		"rp_clamp_tgt_rate_ati", 0, 1, 1, "bool" },
	[SROCE_CC_RP_TIME_RESET] = { "rp_time_reset", 1, 1000000, 300, "us" },
	[SROCE_CC_RP_BYTE_RESET] = { "rp_byte_reset", 0, 32767, 32767, "bytes" },
	[SROCE_CC_RP_THRESHOLD] = { "rp_threshold", 1, 31, 1, "events" },
	[SROCE_CC_RP_AI_RATE] = { "rp_ai_rate", 1, 400000, 5, "Mbit/s" },
	[SROCE_CC_RP_HAI_RATE] = { "rp_hai_rate", 1, 400000, 50, "Mbit/s" },
	[SROCE_CC_RP_MAX_RATE] = { "rp_max_rate", 0, 400000, 0, "Mbit/s" },
	[SROCE_CC_RP_MIN_DEC_FAC] = { "rp_min_dec_fac", 0, 100, 50, "%" },
	[SROCE_CC_RP_MIN_RATE] = { "rp_min_rate", 1, 400000, 1, "Mbit/s" },
	[SROCE_CC_RP_RATE_TO_SET_ON_FIRST_CNP] = {
		"rp_rate_to_set_on_first_cnp", 0, 400000, 0, "Mbit/s" },
	[SROCE_CC_RP_DCE_TCP_G] = { "rp_dce_tcp_g", 0, 1023, 1019, "1/1024" },
	[SROCE_CC_RP_DCE_TCP_RTT] = { "rp_dce_tcp_rtt", 1, 131071, 1, "us" },
	[SROCE_CC_RP_RATE_REDUCE_MONITOR_PERIOD] = {
		"rp_rate_reduce_monitor_period", 1, 1000000, 4, "us" },
	[SROCE_CC_RP_INITIAL_ALPHA_VALUE] = {
		"rp_initial_alpha_value", 0, 1023, 1023, "1/1024" },
	[SROCE_CC_RP_GD] = { "rp_gd", 0, 15, 11, "log2" },
	[SROCE_CC_NP_MIN_TIME_BETWEEN_CNPS] = {
		"np_min_time_between_cnps", 0, 1000000, 4, "us" },
	[SROCE_CC_NP_CNP_DSCP] = { "np_cnp_dscp", 0, 63, 48, "dscp" },
	[SROCE_CC_NP_CNP_PRIO_MODE] = { "np_cnp_prio_mode", 0, 1, 0, "bool" },
	[SROCE_CC_NP_CNP_PRIO] = { "np_cnp_prio", 0, 7, 6, "pcp" },
};

/**
 * sroce_cc_param_check() - is a value in a knob's range
 * @id: enum sroce_cc_param
 * @value: proposed value
 *
 * Return: 0, -EOPNOTSUPP for an unknown knob, -EINVAL out of range.
 */
int sroce_cc_param_check(unsigned int id, u32 value)
{
	if (id >= SROCE_NUM_CC_PARAMS)
		return -EOPNOTSUPP;
	if (value < sroce_cc_params[id].min || value > sroce_cc_params[id].max)
		return -EINVAL;
	return 0;
}

/**
 * sroce_cc_params_default() - every knob at its default
 * @values: SROCE_NUM_CC_PARAMS values, indexed by enum sroce_cc_param
 */
void sroce_cc_params_default(u32 *values)
{
	unsigned int i;

	for (i = 0; i < SROCE_NUM_CC_PARAMS; i++)
		values[i] = sroce_cc_params[i].def;
}

/**
 * sroce_dcqcn_cfg_init() - convert the knobs to working units
 * @cfg: result
 * @in: SROCE_NUM_CC_PARAMS values, each within its range (a value out
 *	of range is taken as the nearest bound)
 * @line_kbps: the port's speed: the maximum rate when rp_max_rate is 0,
 *	and its bound otherwise
 *
 * The minimum rate is kept at or below the maximum so that the
 * reaction point's invariant holds on a slow port.
 */
void sroce_dcqcn_cfg_init(struct sroce_dcqcn_cfg *cfg, const u32 *in,
			  u64 line_kbps)
{
	u32 params[SROCE_NUM_CC_PARAMS];
	unsigned int i;
	u32 max_mbps;

	/* Out of range cannot happen through the commands; never trust it. */
	for (i = 0; i < SROCE_NUM_CC_PARAMS; i++) {
		params[i] = in[i];
		if (params[i] < sroce_cc_params[i].min)
			params[i] = sroce_cc_params[i].min;
		if (params[i] > sroce_cc_params[i].max)
			params[i] = sroce_cc_params[i].max;
	}
	max_mbps = params[SROCE_CC_RP_MAX_RATE];

	cfg->time_reset_ns = params[SROCE_CC_RP_TIME_RESET] * NSEC_PER_USEC_U64;
	cfg->alpha_period_ns = params[SROCE_CC_RP_DCE_TCP_RTT] * NSEC_PER_USEC_U64;
	cfg->monitor_ns = params[SROCE_CC_RP_RATE_REDUCE_MONITOR_PERIOD] *
			  NSEC_PER_USEC_U64;
	cfg->ai_kbps = params[SROCE_CC_RP_AI_RATE] * KBPS_PER_MBPS;
	cfg->hai_kbps = params[SROCE_CC_RP_HAI_RATE] * KBPS_PER_MBPS;
	cfg->max_kbps = max_mbps ? max_mbps * KBPS_PER_MBPS : line_kbps;
	if (line_kbps && cfg->max_kbps > line_kbps)
		cfg->max_kbps = line_kbps;
	if (!cfg->max_kbps)
		cfg->max_kbps = 1;
	cfg->min_kbps = params[SROCE_CC_RP_MIN_RATE] * KBPS_PER_MBPS;
	if (cfg->min_kbps > cfg->max_kbps)
		cfg->min_kbps = cfg->max_kbps;
	cfg->first_cnp_kbps = params[SROCE_CC_RP_RATE_TO_SET_ON_FIRST_CNP] *
			      KBPS_PER_MBPS;
	cfg->byte_reset = params[SROCE_CC_RP_BYTE_RESET];
	cfg->g = params[SROCE_CC_RP_DCE_TCP_G];
	cfg->initial_alpha = params[SROCE_CC_RP_INITIAL_ALPHA_VALUE];
	cfg->gd = params[SROCE_CC_RP_GD];
	cfg->min_dec_fac = params[SROCE_CC_RP_MIN_DEC_FAC];
	cfg->threshold = params[SROCE_CC_RP_THRESHOLD];
	cfg->clamp = params[SROCE_CC_RP_CLAMP_TGT_RATE];
	cfg->clamp_ati = params[SROCE_CC_RP_CLAMP_TGT_RATE_ATI];
}

/* Ticks of a timer started at @origin with @period in (@from, @to]. */
static u64 dcqcn_ticks(u64 origin, u64 period, u64 from, u64 to)
{
	return dcqcn_div(to - origin, period) - dcqcn_div(from - origin, period);
}

/* The first tick after @from. */
static u64 dcqcn_next_tick(u64 origin, u64 period, u64 from)
{
	return origin + (dcqcn_div(from - origin, period) + 1) * period;
}

static u64 dcqcn_clamp_rate(u64 kbps, const struct sroce_dcqcn_cfg *cfg)
{
	if (kbps > cfg->max_kbps)
		return cfg->max_kbps;
	if (kbps < cfg->min_kbps)
		return cfg->min_kbps;
	return kbps;
}

/* Apply the alpha ticks in (@from, @to]. */
static void dcqcn_alpha_run(struct sroce_dcqcn_rp *rp,
			    const struct sroce_dcqcn_cfg *cfg, u64 from, u64 to)
{
	u64 n = dcqcn_ticks(rp->alpha_origin_ns, cfg->alpha_period_ns, from, to);
	u32 alpha = rp->alpha;

	if (!n)
		return;
	if (rp->alpha_cnp) {
		alpha = ((alpha * cfg->g) >> 10) + SROCE_DCQCN_ALPHA_ONE - cfg->g;
		if (alpha > SROCE_DCQCN_ALPHA_MAX)
			alpha = SROCE_DCQCN_ALPHA_MAX;
		rp->alpha_cnp = false;
		n--;
	}
	/* g < 1024: every decay lowers a non-zero alpha by at least 1. */
	for (; n && alpha; n--) {
		dcqcn_count_step();
		alpha = (alpha * cfg->g) >> 10;
	}
	rp->alpha = alpha;
}

/* The increase applied by the next event of @source (after counting it). */
static u64 dcqcn_step_size(const struct sroce_dcqcn_rp *rp,
			   const struct sroce_dcqcn_cfg *cfg, bool *recovery)
{
	unsigned int t = rp->stage[SROCE_DCQCN_TIMER];
	unsigned int b = rp->stage[SROCE_DCQCN_BYTES];
	unsigned int f = cfg->threshold;

	*recovery = false;
	if (!cfg->byte_reset) {
		if (t <= f) {
			*recovery = true;
			return 0;
		}
		return t == f + 1 ? cfg->ai_kbps : cfg->hai_kbps;
	}
	if (t <= f && b <= f) {
		*recovery = true;
		return 0;
	}
	return t > f && b > f ? cfg->hai_kbps : cfg->ai_kbps;
}

/* One increase event of @source. */
static void dcqcn_increase(struct sroce_dcqcn_rp *rp,
			   const struct sroce_dcqcn_cfg *cfg,
			   enum sroce_dcqcn_source source)
{
	bool recovery;
	u64 step;

	if (rp->stage[source] < cfg->threshold + 2)
		rp->stage[source]++;
	step = dcqcn_step_size(rp, cfg, &recovery);
	if (!recovery)
		rp->rt_kbps = rp->rt_kbps + step < cfg->max_kbps ?
			      rp->rt_kbps + step : cfg->max_kbps;
	rp->rc_kbps = (rp->rc_kbps + rp->rt_kbps + 1) / 2;
	/* A decrease owed for a CNP keeps the limiter on. */
	if (rp->rc_kbps >= cfg->max_kbps && !rp->dec_pending)
		rp->active = false;
}

/*
 * @n increase events of @source. Once the source's stage count is
 * saturated the step s is fixed, and the gap d = target - current follows
 * d' = floor((d + s) / 2) until the target reaches the maximum: it settles
 * at s or s - 1 within 64 steps and then stays, so the steps before the
 * target would reach the maximum are taken in one jump.
 */
static void dcqcn_increase_run(struct sroce_dcqcn_rp *rp,
			       const struct sroce_dcqcn_cfg *cfg,
			       enum sroce_dcqcn_source source, u64 n)
{
	while (n && rp->active) {
		u64 gap = rp->rt_kbps - rp->rc_kbps, jump, step;
		bool recovery;

		dcqcn_count_step();
		if (rp->stage[source] >= cfg->threshold + 2) {
			/*
			 * At the maximum nothing moves: the limiter is
			 * released, or stays for the decrease it owes.
			 */
			if (!gap && rp->rt_kbps == cfg->max_kbps) {
				rp->active = rp->dec_pending;
				break;
			}
			step = dcqcn_step_size(rp, cfg, &recovery);
			if (!recovery && step && (gap == step || gap + 1 == step) &&
			    rp->rt_kbps + step < cfg->max_kbps) {
				jump = dcqcn_div(cfg->max_kbps - rp->rt_kbps - 1,
						 step);
				if (jump > n)
					jump = n;
				rp->rt_kbps += jump * step;
				rp->rc_kbps = rp->rt_kbps - gap;
				n -= jump;
				continue;
			}
		}
		dcqcn_increase(rp, cfg, source);
		n--;
	}
}

/* The decrease check at @at finds a CNP. */
static void dcqcn_decrease(struct sroce_dcqcn_rp *rp,
			   const struct sroce_dcqcn_cfg *cfg, u64 at)
{
	u64 rc = rp->rc_kbps, cut, floor;

	if (cfg->clamp || rp->stage[SROCE_DCQCN_BYTES] ||
	    (cfg->clamp_ati && rp->stage[SROCE_DCQCN_TIMER]))
		rp->rt_kbps = rc;
	cut = (rc * rp->alpha) >> cfg->gd;
	rc = cut < rc ? rc - cut : 0;
	floor = dcqcn_div(rp->rc_kbps * cfg->min_dec_fac, 100);
	if (rc < floor)
		rc = floor;
	rp->rc_kbps = dcqcn_clamp_rate(rc, cfg);
	if (rp->rt_kbps < rp->rc_kbps)
		rp->rt_kbps = rp->rc_kbps;
	rp->stage[SROCE_DCQCN_TIMER] = 0;
	rp->stage[SROCE_DCQCN_BYTES] = 0;
	rp->byte_count = 0;
	rp->inc_origin_ns = at;
	rp->dec_pending = false;
	/* A cut that leaves the maximum (rp_min_dec_fac 100) releases. */
	if (rp->rc_kbps >= cfg->max_kbps)
		rp->active = false;
}

/**
 * sroce_dcqcn_advance() - apply every tick up to a time
 * @rp: the QP's reaction point
 * @cfg: its configuration
 * @now_ns: monotonic time; earlier than the last call counts as the same
 *
 * Nothing happens while the limiter is off. A configuration changed since
 * the last call applies from that call on: its periods count from the
 * timers' origins, its rate bounds hold at once.
 */
void sroce_dcqcn_advance(struct sroce_dcqcn_rp *rp,
			 const struct sroce_dcqcn_cfg *cfg, u64 now_ns)
{
	u64 at;

	if (!rp->active)
		return;
	/*
	 * The configuration may have changed since the last call: restore
	 * the invariant first, whatever the time.
	 */
	rp->rt_kbps = dcqcn_clamp_rate(rp->rt_kbps, cfg);
	rp->rc_kbps = dcqcn_clamp_rate(rp->rc_kbps, cfg);
	if (rp->rc_kbps > rp->rt_kbps)
		rp->rc_kbps = rp->rt_kbps;
	if (rp->rc_kbps >= cfg->max_kbps && !rp->dec_pending) {
		rp->active = false;
		return;
	}
	if (now_ns <= rp->last_ns)
		return;
	if (rp->dec_pending) {
		at = dcqcn_next_tick(rp->dec_origin_ns, cfg->monitor_ns,
				     rp->last_ns);
		if (at <= now_ns) {
			dcqcn_alpha_run(rp, cfg, rp->last_ns, at);
			dcqcn_increase_run(rp, cfg, SROCE_DCQCN_TIMER,
					   dcqcn_ticks(rp->inc_origin_ns,
						       cfg->time_reset_ns,
						       rp->last_ns, at - 1));
			dcqcn_decrease(rp, cfg, at);
			rp->last_ns = at;
			if (!rp->active)
				return;
		}
	}
	dcqcn_alpha_run(rp, cfg, rp->last_ns, now_ns);
	dcqcn_increase_run(rp, cfg, SROCE_DCQCN_TIMER,
			   dcqcn_ticks(rp->inc_origin_ns, cfg->time_reset_ns,
				       rp->last_ns, now_ns));
	rp->last_ns = now_ns;
}

/**
 * sroce_dcqcn_cnp() - a CNP for this QP arrived
 * @rp: the QP's reaction point
 * @cfg: its configuration
 * @now_ns: arrival time
 * @current_kbps: the rate the QP sends at now, used when the limiter
 *	starts and rp_rate_to_set_on_first_cnp is 0
 */
void sroce_dcqcn_cnp(struct sroce_dcqcn_rp *rp,
		     const struct sroce_dcqcn_cfg *cfg, u64 now_ns,
		     u64 current_kbps)
{
	/*
	 * The ticks before the CNP first: they may have released the
	 * limiter, and a CNP finding it released starts it again, as it
	 * would with timers firing on time.
	 */
	sroce_dcqcn_advance(rp, cfg, now_ns);
	if (!rp->active) {
		u64 rate = cfg->first_cnp_kbps ? cfg->first_cnp_kbps :
						 current_kbps;

		memset(rp, 0, sizeof(*rp));
		rp->active = true;
		rp->rc_kbps = dcqcn_clamp_rate(rate, cfg);
		rp->rt_kbps = rp->rc_kbps;
		rp->alpha = cfg->initial_alpha;
		rp->last_ns = now_ns;
		rp->alpha_origin_ns = now_ns;
		rp->dec_origin_ns = now_ns;
		rp->inc_origin_ns = now_ns;
		rp->dec_pending = true;
		return;
	}
	rp->dec_pending = true;
	rp->alpha_cnp = true;
}

/**
 * sroce_dcqcn_sent() - the QP sent a packet
 * @rp: the QP's reaction point
 * @cfg: its configuration
 * @now_ns: time of sending
 * @bytes: the packet's length, as the byte counter counts it
 */
void sroce_dcqcn_sent(struct sroce_dcqcn_rp *rp,
		      const struct sroce_dcqcn_cfg *cfg, u64 now_ns, u32 bytes)
{
	u64 total, events;

	if (!rp->active)
		return;
	sroce_dcqcn_advance(rp, cfg, now_ns);
	if (!rp->active || !cfg->byte_reset)
		return;
	total = (u64)rp->byte_count + bytes;
	events = dcqcn_div(total, cfg->byte_reset);
	rp->byte_count = total - events * cfg->byte_reset;
	dcqcn_increase_run(rp, cfg, SROCE_DCQCN_BYTES, events);
}

/**
 * sroce_dcqcn_tx_ns() - time a packet occupies at a rate
 * @bytes: its length
 * @kbps: the rate, at least 1
 *
 * Return: nanoseconds, rounded down.
 */
u64 sroce_dcqcn_tx_ns(u32 bytes, u64 kbps)
{
	return dcqcn_div((u64)bytes * 8000000ULL, kbps ? kbps : 1);
}
