/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * DCQCN reaction point (the per-QP rate limiter of a RoCE sender) and the
 * congestion-control parameter table, with mlx5's knob names, units and
 * defaults. Plain C: the firmware's egress stage, the host unit tests and
 * tools/ccsim run this same code.
 *
 * Time is evaluated lazily. ConnectX runs three timers per limited QP:
 * alpha update (rp_dce_tcp_rtt), rate-decrease check
 * (rp_rate_reduce_monitor_period) and rate increase (rp_time_reset). A
 * kernel timer cannot fire every microsecond, so the state is instead
 * brought forward to "now" whenever something happens to the QP (a packet
 * to send, a CNP), applying every tick that fell in between in time
 * order. The result equals that of timers firing on time, whatever the
 * gap between two calls; the work per call is bounded (dcqcn.c).
 */
#ifndef SROCE_DCQCN_H
#define SROCE_DCQCN_H

#include "sroce_lib.h"

/* The unit of alpha: 1024 is 1.0 (ConnectX's 10-bit fixed point). */
#define SROCE_DCQCN_ALPHA_ONE		1024U
#define SROCE_DCQCN_ALPHA_MAX		1023U

/**
 * struct sroce_cc_param_desc - one congestion-control knob
 * @name: the mlx5 debugfs cc_params file name
 * @min: smallest value accepted
 * @max: largest value accepted
 * @def: value after device creation
 * @unit: unit of the value, for documentation and tools
 */
struct sroce_cc_param_desc {
	const char *name;
	u32 min;
	u32 max;
	u32 def;
	const char *unit;
};

extern const struct sroce_cc_param_desc sroce_cc_params[SROCE_NUM_CC_PARAMS];

int sroce_cc_param_check(unsigned int id, u32 value);
void sroce_cc_params_default(u32 *values);

/**
 * struct sroce_dcqcn_cfg - the reaction point's knobs in working units
 * @time_reset_ns: rate-increase timer period
 * @alpha_period_ns: alpha update period
 * @monitor_ns: rate-decrease check period
 * @ai_kbps: additive-increase step of the target rate
 * @hai_kbps: hyper-increase step of the target rate
 * @max_kbps: rate at which the limiter is released (rp_max_rate, else
 *	the port's speed)
 * @min_kbps: lowest rate a decrease leaves
 * @first_cnp_kbps: rate set at the first CNP; 0: the QP's current rate
 * @byte_reset: bytes sent per byte-counter increase event; 0: off
 * @g: alpha gain, in 1/1024 of the old alpha kept (rp_dce_tcp_g)
 * @initial_alpha: alpha when the limiter starts
 * @gd: log2 of the alpha-to-rate-cut divisor
 * @min_dec_fac: one decrease keeps at least this percentage of the rate
 * @threshold: F, increase events per counter before the next phase
 * @clamp: on a decrease the target becomes the current rate
 * @clamp_ati: ... also when an increase timer event came since the last
 *	decrease (a byte-counter event always clamps)
 */
struct sroce_dcqcn_cfg {
	u64 time_reset_ns;
	u64 alpha_period_ns;
	u64 monitor_ns;
	u64 ai_kbps;
	u64 hai_kbps;
	u64 max_kbps;
	u64 min_kbps;
	u64 first_cnp_kbps;
	u32 byte_reset;
	u16 g;
	u16 initial_alpha;
	u8 gd;
	u8 min_dec_fac;
	u8 threshold;
	bool clamp;
	bool clamp_ati;
};

void sroce_dcqcn_cfg_init(struct sroce_dcqcn_cfg *cfg, const u32 *params,
			  u64 line_kbps);

/* The two sources of rate-increase events */
enum sroce_dcqcn_source {
	SROCE_DCQCN_TIMER,
	SROCE_DCQCN_BYTES,
};

/**
 * struct sroce_dcqcn_rp - one QP's reaction point
 * @rc_kbps: current rate (what the QP is paced at while @active)
 * @rt_kbps: target rate
 * @last_ns: every tick at or before this time has been applied
 * @alpha_origin_ns: the alpha ticks fall at this time + k periods
 * @dec_origin_ns: the same for the rate-decrease checks
 * @inc_origin_ns: the same for the increase timer (restarted by each
 *	decrease)
 * @byte_count: bytes sent since the last byte-counter event
 * @alpha: congestion estimate, 0..SROCE_DCQCN_ALPHA_MAX
 * @stage: increase events per source since the last decrease, saturated
 *	at threshold + 2 (beyond that the phase no longer changes)
 * @active: the limiter is on (between a first CNP and the release at
 *	the maximum rate); off, the QP sends unpaced
 * @dec_pending: a CNP came since the last decrease check
 * @alpha_cnp: a CNP came since the last alpha update
 *
 * Invariant while @active: min_kbps <= @rc_kbps <= @rt_kbps <= max_kbps
 * (the configuration at the last call).
 */
struct sroce_dcqcn_rp {
	u64 rc_kbps;
	u64 rt_kbps;
	u64 last_ns;
	u64 alpha_origin_ns;
	u64 dec_origin_ns;
	u64 inc_origin_ns;
	u32 byte_count;
	u16 alpha;
	u8 stage[2];
	bool active;
	bool dec_pending;
	bool alpha_cnp;
};

void sroce_dcqcn_advance(struct sroce_dcqcn_rp *rp,
			 const struct sroce_dcqcn_cfg *cfg, u64 now_ns);
void sroce_dcqcn_cnp(struct sroce_dcqcn_rp *rp,
		     const struct sroce_dcqcn_cfg *cfg, u64 now_ns,
		     u64 current_kbps);
void sroce_dcqcn_sent(struct sroce_dcqcn_rp *rp,
		      const struct sroce_dcqcn_cfg *cfg, u64 now_ns,
		      u32 bytes);
u64 sroce_dcqcn_tx_ns(u32 bytes, u64 kbps);

#ifndef __KERNEL__
/* Host builds: loop steps taken, for the tests of bounded work. */
extern unsigned long sroce_dcqcn_steps;
#endif

#endif /* SROCE_DCQCN_H */
