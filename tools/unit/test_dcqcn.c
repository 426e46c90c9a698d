// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Unit tests of drivers/lib/dcqcn.c: the knob table, hand-computed
 * sequences of the reaction point (first CNP, decrease with alpha, the
 * three increase phases, clamping, minimum and maximum rate), and the
 * lazy evaluation against a timer-driven reference written separately
 * here, which applies every tick at its own instant.
 */
#include <stdlib.h>

#include "lib/dcqcn.h"
#include "unit.h"

#define US 1000ULL	/* ns */

static u32 params[SROCE_NUM_CC_PARAMS];

static void cfg_defaults(struct sroce_dcqcn_cfg *cfg, u64 line_kbps)
{
	sroce_cc_params_default(params);
	sroce_dcqcn_cfg_init(cfg, params, line_kbps);
}

static void test_cc_param_table(void)
{
	static const struct {
		unsigned int id;
		const char *name;
		u32 def;
	} mlx5[] = {
		{ SROCE_CC_RP_CLAMP_TGT_RATE, "rp_clamp_tgt_rate", 0 },
		{ SROCE_CC_RP_CLAMP_TGT_RATE_ATI, "rp_clamp_tgt_rate_ati", 1 },
		{ SROCE_CC_RP_TIME_RESET, "rp_time_reset", 300 },
		{ SROCE_CC_RP_BYTE_RESET, "rp_byte_reset", 32767 },
		{ SROCE_CC_RP_THRESHOLD, "rp_threshold", 1 },
		{ SROCE_CC_RP_AI_RATE, "rp_ai_rate", 5 },
		{ SROCE_CC_RP_HAI_RATE, "rp_hai_rate", 50 },
		{ SROCE_CC_RP_MAX_RATE, "rp_max_rate", 0 },
		{ SROCE_CC_RP_MIN_DEC_FAC, "rp_min_dec_fac", 50 },
		{ SROCE_CC_RP_MIN_RATE, "rp_min_rate", 1 },
		{ SROCE_CC_RP_RATE_TO_SET_ON_FIRST_CNP,
		  "rp_rate_to_set_on_first_cnp", 0 },
		{ SROCE_CC_RP_DCE_TCP_G, "rp_dce_tcp_g", 1019 },
		{ SROCE_CC_RP_DCE_TCP_RTT, "rp_dce_tcp_rtt", 1 },
		{ SROCE_CC_RP_RATE_REDUCE_MONITOR_PERIOD,
		  "rp_rate_reduce_monitor_period", 4 },
		{ SROCE_CC_RP_INITIAL_ALPHA_VALUE, "rp_initial_alpha_value", 1023 },
		{ SROCE_CC_RP_GD, "rp_gd", 11 },
		{ SROCE_CC_NP_MIN_TIME_BETWEEN_CNPS, "np_min_time_between_cnps", 4 },
		{ SROCE_CC_NP_CNP_DSCP, "np_cnp_dscp", 48 },
		{ SROCE_CC_NP_CNP_PRIO_MODE, "np_cnp_prio_mode", 0 },
		{ SROCE_CC_NP_CNP_PRIO, "np_cnp_prio", 6 },
	};
	unsigned int i;

	CHECK_EQ(ARRAY_SIZE(mlx5), SROCE_NUM_CC_PARAMS);
	sroce_cc_params_default(params);
	for (i = 0; i < ARRAY_SIZE(mlx5); i++) {
		const struct sroce_cc_param_desc *d = &sroce_cc_params[mlx5[i].id];

		CHECK(d->name && !strcmp(d->name, mlx5[i].name));
		CHECK_EQ(d->def, mlx5[i].def);
		CHECK_EQ(params[mlx5[i].id], mlx5[i].def);
		CHECK(d->min <= d->def && d->def <= d->max);
		CHECK_EQ(sroce_cc_param_check(mlx5[i].id, d->min), 0);
		CHECK_EQ(sroce_cc_param_check(mlx5[i].id, d->max), 0);
		CHECK_EQ(sroce_cc_param_check(mlx5[i].id, d->max + 1), -EINVAL);
		if (d->min)
			CHECK_EQ(sroce_cc_param_check(mlx5[i].id, d->min - 1),
				 -EINVAL);
	}
	CHECK_EQ(sroce_cc_param_check(SROCE_CC_NP_CNP_DSCP, 64), -EINVAL);
	CHECK_EQ(sroce_cc_param_check(SROCE_CC_RP_THRESHOLD, 0), -EINVAL);
	CHECK_EQ(sroce_cc_param_check(SROCE_NUM_CC_PARAMS, 0), -EOPNOTSUPP);
}

static void test_cfg_units(void)
{
	struct sroce_dcqcn_cfg cfg;

	cfg_defaults(&cfg, 25000000);
	CHECK_EQ(cfg.time_reset_ns, 300 * US);
	CHECK_EQ(cfg.alpha_period_ns, 1 * US);
	CHECK_EQ(cfg.monitor_ns, 4 * US);
	CHECK_EQ(cfg.ai_kbps, 5000);
	CHECK_EQ(cfg.hai_kbps, 50000);
	CHECK_EQ(cfg.max_kbps, 25000000);	/* rp_max_rate 0: the port */
	CHECK_EQ(cfg.min_kbps, 1000);
	params[SROCE_CC_RP_MAX_RATE] = 400;
	sroce_dcqcn_cfg_init(&cfg, params, 25000000);
	CHECK_EQ(cfg.max_kbps, 400000);
	/* A port slower than rp_min_rate: the minimum follows it down. */
	params[SROCE_CC_RP_MAX_RATE] = 0;
	params[SROCE_CC_RP_MIN_RATE] = 100;
	sroce_dcqcn_cfg_init(&cfg, params, 50000);
	CHECK_EQ(cfg.min_kbps, 50000);
}

/*
 * Defaults, a 100 Gbit/s port, first-CNP rate 1 Gbit/s. The sequence,
 * worked by hand:
 *   t = 0        first CNP: rc = rt = 1000000 kbit/s, alpha 1023
 *   t = 1..4 us  alpha ticks, no CNP since: 1023 -> 1018 -> 1013 -> 1008
 *                -> 1003 (alpha * 1019 / 1024, rounded down)
 *   t = 4 us     decrease: cut = 1000000 * 1003 / 2048 = 489746,
 *                rc = 510254 (above 50 % of 1000000); rt stays (no
 *                increase yet); the increase timer restarts at 4 us
 *   t = 304 us   timer stage 1 <= F = 1, byte stage 0: fast recovery,
 *                rc = ceil((510254 + 1000000) / 2) = 755127
 *   t = 604 us   timer stage 2 > F: additive, rt = 1005000,
 *                rc = ceil((755127 + 1005000) / 2) = 880064
 *   t = 904 us   additive, rt = 1010000, rc = 945032
 *   32767 bytes  byte stage 1: still additive, rt = 1015000, rc = 980016
 *   32767 bytes  byte stage 2 > F: hyper, rt = 1065000, rc = 1022508
 */
static void test_rp_sequence(void)
{
	struct sroce_dcqcn_cfg cfg;
	struct sroce_dcqcn_rp rp = { 0 };
	u64 t0 = 1000000000ULL;

	sroce_cc_params_default(params);
	params[SROCE_CC_RP_RATE_TO_SET_ON_FIRST_CNP] = 1000;
	sroce_dcqcn_cfg_init(&cfg, params, 100000000);

	sroce_dcqcn_sent(&rp, &cfg, t0, 4096);	/* off: no effect */
	CHECK(!rp.active);
	sroce_dcqcn_cnp(&rp, &cfg, t0, 100000000);
	CHECK(rp.active);
	CHECK_EQ(rp.rc_kbps, 1000000);
	CHECK_EQ(rp.rt_kbps, 1000000);
	CHECK_EQ(rp.alpha, 1023);

	sroce_dcqcn_advance(&rp, &cfg, t0 + 4 * US - 1);
	CHECK_EQ(rp.alpha, 1008);
	CHECK_EQ(rp.rc_kbps, 1000000);
	CHECK(rp.dec_pending);
	sroce_dcqcn_advance(&rp, &cfg, t0 + 4 * US);
	CHECK_EQ(rp.alpha, 1003);
	CHECK_EQ(rp.rc_kbps, 510254);
	CHECK_EQ(rp.rt_kbps, 1000000);
	CHECK(!rp.dec_pending);

	sroce_dcqcn_advance(&rp, &cfg, t0 + 304 * US - 1);
	CHECK_EQ(rp.rc_kbps, 510254);
	sroce_dcqcn_advance(&rp, &cfg, t0 + 304 * US);
	CHECK_EQ(rp.rc_kbps, 755127);
	CHECK_EQ(rp.rt_kbps, 1000000);
	CHECK_EQ(rp.stage[SROCE_DCQCN_TIMER], 1);
	sroce_dcqcn_advance(&rp, &cfg, t0 + 604 * US);
	CHECK_EQ(rp.rt_kbps, 1005000);
	CHECK_EQ(rp.rc_kbps, 880064);
	/* Both remaining steps in one call. */
	sroce_dcqcn_advance(&rp, &cfg, t0 + 904 * US + 7);
	CHECK_EQ(rp.rt_kbps, 1010000);
	CHECK_EQ(rp.rc_kbps, 945032);

	sroce_dcqcn_sent(&rp, &cfg, t0 + 905 * US, 32766);
	CHECK_EQ(rp.byte_count, 32766);
	CHECK_EQ(rp.rc_kbps, 945032);
	sroce_dcqcn_sent(&rp, &cfg, t0 + 905 * US, 1);
	CHECK_EQ(rp.byte_count, 0);
	CHECK_EQ(rp.stage[SROCE_DCQCN_BYTES], 1);
	CHECK_EQ(rp.rt_kbps, 1015000);
	CHECK_EQ(rp.rc_kbps, 980016);
	sroce_dcqcn_sent(&rp, &cfg, t0 + 906 * US, 32767 + 100);
	CHECK_EQ(rp.byte_count, 100);
	CHECK_EQ(rp.rt_kbps, 1065000);
	CHECK_EQ(rp.rc_kbps, 1022508);
	CHECK(rp.active);
}

/*
 * A second CNP: alpha rises at the next alpha tick, the rate falls at
 * the next decrease tick, and the target is clamped because increases
 * came since the last decrease (rp_clamp_tgt_rate_ati).
 */
static void test_rp_second_cnp_and_clamp(void)
{
	struct sroce_dcqcn_cfg cfg;
	struct sroce_dcqcn_rp rp = { 0 }, copy;
	u64 t0 = 0;

	sroce_cc_params_default(params);
	params[SROCE_CC_RP_RATE_TO_SET_ON_FIRST_CNP] = 1000;
	sroce_dcqcn_cfg_init(&cfg, params, 100000000);
	sroce_dcqcn_cnp(&rp, &cfg, t0, 0);
	sroce_dcqcn_advance(&rp, &cfg, t0 + 304 * US);	/* rc 755127 */
	CHECK_EQ(rp.rc_kbps, 755127);
	/* alpha at 304 us: 304 decays from 1023 */
	copy = rp;

	/* CNP at 304.5 us; alpha tick at 305 us, decrease tick at 308 us. */
	sroce_dcqcn_cnp(&rp, &cfg, t0 + 304 * US + 500, 0);
	CHECK(rp.alpha_cnp);
	sroce_dcqcn_advance(&rp, &cfg, t0 + 305 * US);
	CHECK_EQ(rp.alpha, ((copy.alpha * 1019) >> 10) + 5);
	CHECK(!rp.alpha_cnp);
	{
		u32 a = rp.alpha, i;

		for (i = 0; i < 3; i++)	/* 306, 307, 308 us */
			a = (a * 1019) >> 10;
		sroce_dcqcn_advance(&rp, &cfg, t0 + 308 * US);
		CHECK_EQ(rp.alpha, a);
		/* Clamped: rt = rc before the cut. */
		CHECK_EQ(rp.rt_kbps, 755127);
		CHECK_EQ(rp.rc_kbps, 755127 - ((755127ULL * a) >> 11));
		CHECK_EQ(rp.stage[SROCE_DCQCN_TIMER], 0);
	}

	/* The same with rp_clamp_tgt_rate_ati off: the target stays. */
	params[SROCE_CC_RP_CLAMP_TGT_RATE_ATI] = 0;
	sroce_dcqcn_cfg_init(&cfg, params, 100000000);
	rp = copy;
	sroce_dcqcn_cnp(&rp, &cfg, t0 + 304 * US + 500, 0);
	sroce_dcqcn_advance(&rp, &cfg, t0 + 308 * US);
	CHECK_EQ(rp.rt_kbps, 1000000);
	/* ... but a byte-counter increase always clamps. */
	rp = copy;
	sroce_dcqcn_sent(&rp, &cfg, t0 + 304 * US + 100, 32767);
	CHECK_EQ(rp.stage[SROCE_DCQCN_BYTES], 1);
	{
		u64 rc = rp.rc_kbps;

		sroce_dcqcn_cnp(&rp, &cfg, t0 + 304 * US + 500, 0);
		sroce_dcqcn_advance(&rp, &cfg, t0 + 308 * US);
		CHECK_EQ(rp.rt_kbps, rc);
	}
	/* rp_clamp_tgt_rate clamps with no increase at all. */
	params[SROCE_CC_RP_CLAMP_TGT_RATE] = 1;
	sroce_dcqcn_cfg_init(&cfg, params, 100000000);
	memset(&rp, 0, sizeof(rp));
	sroce_dcqcn_cnp(&rp, &cfg, t0, 0);
	sroce_dcqcn_advance(&rp, &cfg, t0 + 4 * US);
	CHECK_EQ(rp.rt_kbps, 1000000);	/* clamped to rc before the cut */
	sroce_dcqcn_cnp(&rp, &cfg, t0 + 5 * US, 0);
	sroce_dcqcn_advance(&rp, &cfg, t0 + 8 * US);
	CHECK_EQ(rp.rt_kbps, 510254);
}

/* rp_min_dec_fac, rp_min_rate, rp_gd and the first-CNP rate of 0. */
static void test_rp_decrease_bounds(void)
{
	struct sroce_dcqcn_cfg cfg;
	struct sroce_dcqcn_rp rp = { 0 };

	sroce_cc_params_default(params);
	params[SROCE_CC_RP_GD] = 0;		/* cut = rc * alpha: all */
	params[SROCE_CC_RP_MIN_DEC_FAC] = 80;
	sroce_dcqcn_cfg_init(&cfg, params, 10000000);
	sroce_dcqcn_cnp(&rp, &cfg, 0, 2000000);	/* the QP's rate */
	CHECK_EQ(rp.rc_kbps, 2000000);
	sroce_dcqcn_advance(&rp, &cfg, 4 * US);
	CHECK_EQ(rp.rc_kbps, 1600000);		/* 80 % */

	params[SROCE_CC_RP_MIN_DEC_FAC] = 0;
	params[SROCE_CC_RP_MIN_RATE] = 300;
	sroce_dcqcn_cfg_init(&cfg, params, 10000000);
	memset(&rp, 0, sizeof(rp));
	sroce_dcqcn_cnp(&rp, &cfg, 0, 2000000);
	sroce_dcqcn_advance(&rp, &cfg, 4 * US);
	CHECK_EQ(rp.rc_kbps, 300000);		/* rp_min_rate */

	/* rp_min_dec_fac 100: no decrease. */
	params[SROCE_CC_RP_MIN_DEC_FAC] = 100;
	params[SROCE_CC_RP_GD] = 11;
	sroce_dcqcn_cfg_init(&cfg, params, 10000000);
	memset(&rp, 0, sizeof(rp));
	sroce_dcqcn_cnp(&rp, &cfg, 0, 2000000);
	sroce_dcqcn_advance(&rp, &cfg, 4 * US);
	CHECK_EQ(rp.rc_kbps, 2000000);

	/* A current rate above the port's is capped at the start. */
	memset(&rp, 0, sizeof(rp));
	sroce_dcqcn_cnp(&rp, &cfg, 0, 99000000);
	CHECK_EQ(rp.rc_kbps, 10000000);
}

/*
 * Idle for a long time: the timer alone brings the rate back to the
 * maximum and releases the limiter, in one bounded call (the jump), and
 * the next CNP starts it afresh.
 */
static void test_rp_release(void)
{
	struct sroce_dcqcn_cfg cfg;
	struct sroce_dcqcn_rp rp = { 0 };

	sroce_cc_params_default(params);
	params[SROCE_CC_RP_TIME_RESET] = 1;
	params[SROCE_CC_RP_BYTE_RESET] = 0;	/* timer alone: hyper */
	params[SROCE_CC_RP_HAI_RATE] = 1;
	params[SROCE_CC_RP_MIN_RATE] = 1;
	params[SROCE_CC_RP_RATE_TO_SET_ON_FIRST_CNP] = 1;
	sroce_dcqcn_cfg_init(&cfg, params, 400000000);
	sroce_dcqcn_cnp(&rp, &cfg, 0, 0);
	sroce_dcqcn_advance(&rp, &cfg, 4 * US);
	CHECK(rp.active);
	/*
	 * 400000 steps of 1 Mbit/s needed; 10^9 timer ticks pass, in a
	 * few hundred loop steps (the jump) besides alpha's decay to 0.
	 */
	sroce_dcqcn_steps = 0;
	sroce_dcqcn_advance(&rp, &cfg, 1000000000ULL * US);
	CHECK(sroce_dcqcn_steps <= 1023 + 300);
	CHECK(!rp.active);
	CHECK_EQ(rp.rc_kbps, 400000000);
	sroce_dcqcn_cnp(&rp, &cfg, 1000000001ULL * US, 0);
	CHECK(rp.active);
	CHECK_EQ(rp.rc_kbps, 1000);
	CHECK_EQ(rp.alpha, 1023);

	/* Half-way: exactly where the step-by-step run would be. */
	{
		struct sroce_dcqcn_rp a = { 0 }, b = { 0 };
		u64 t;

		sroce_dcqcn_cnp(&a, &cfg, 0, 0);
		sroce_dcqcn_cnp(&b, &cfg, 0, 0);
		sroce_dcqcn_advance(&a, &cfg, 20000 * US);
		for (t = 0; t <= 20000 * US; t += 250)
			sroce_dcqcn_advance(&b, &cfg, t);
		CHECK_EQ(a.rc_kbps, b.rc_kbps);
		CHECK_EQ(a.rt_kbps, b.rt_kbps);
		CHECK(a.rt_kbps > 1000 + 19000 * 1000ULL);
	}
}

/*
 * A CNP arriving after the limiter has reached the maximum, with no call
 * in between to notice: the ticks before it release the limiter and the
 * CNP starts it again, as it would with timers firing on time. It used
 * to be counted towards a decrease of the released limiter and lost.
 */
static void test_rp_cnp_after_release(void)
{
	struct sroce_dcqcn_cfg cfg;
	struct sroce_dcqcn_rp a = { 0 }, b = { 0 };

	sroce_cc_params_default(params);
	params[SROCE_CC_RP_TIME_RESET] = 1;
	params[SROCE_CC_RP_BYTE_RESET] = 0;
	params[SROCE_CC_RP_HAI_RATE] = 1000;
	params[SROCE_CC_RP_RATE_TO_SET_ON_FIRST_CNP] = 1;
	sroce_dcqcn_cfg_init(&cfg, params, 10000000);
	sroce_dcqcn_cnp(&a, &cfg, 0, 0);
	sroce_dcqcn_advance(&a, &cfg, 4 * US);
	CHECK(a.active);
	b = a;

	/* 10 Gbit/s is reached within 20 ms; the CNP comes at 1 s. */
	sroce_dcqcn_cnp(&a, &cfg, 1000000 * US, 0);
	CHECK(a.active);
	CHECK_EQ(a.rc_kbps, 1000);
	CHECK_EQ(a.rt_kbps, 1000);
	CHECK_EQ(a.alpha, 1023);
	CHECK(a.dec_pending);
	CHECK(!a.alpha_cnp);
	CHECK_EQ(a.last_ns, 1000000 * US);
	/* The same as when a call in between saw the release. */
	sroce_dcqcn_advance(&b, &cfg, 999999 * US);
	CHECK(!b.active);
	sroce_dcqcn_cnp(&b, &cfg, 1000000 * US, 0);
	CHECK(b.active);
	CHECK_EQ(b.rc_kbps, a.rc_kbps);
	CHECK_EQ(b.alpha, a.alpha);

	/*
	 * The maximum falls to the QP's rate (a slower port): the limiter
	 * is released at the next call, here a CNP, which starts it again
	 * at the new maximum.
	 */
	params[SROCE_CC_RP_TIME_RESET] = 300;
	sroce_dcqcn_cfg_init(&cfg, params, 10000000);
	memset(&a, 0, sizeof(a));
	sroce_dcqcn_cnp(&a, &cfg, 0, 0);
	sroce_dcqcn_advance(&a, &cfg, 4 * US);
	sroce_dcqcn_cfg_init(&cfg, params, 1000);	/* 1 Mbit/s */
	sroce_dcqcn_cnp(&a, &cfg, 5 * US, 0);
	CHECK(a.active);
	CHECK_EQ(a.rc_kbps, 1000);
	CHECK(a.dec_pending);
	CHECK_EQ(a.alpha, 1023);
}

/*
 * The configuration changes under a limited QP: the new bounds hold at
 * once, and a limiter that finds itself at the new maximum is released,
 * even with no increase event left to do it (byte counter off, timer
 * stage saturated).
 */
static void test_rp_config_change(void)
{
	struct sroce_dcqcn_cfg cfg;
	struct sroce_dcqcn_rp rp = { 0 };

	sroce_cc_params_default(params);
	params[SROCE_CC_RP_BYTE_RESET] = 0;
	params[SROCE_CC_RP_RATE_TO_SET_ON_FIRST_CNP] = 2000;
	sroce_dcqcn_cfg_init(&cfg, params, 10000000);
	sroce_dcqcn_cnp(&rp, &cfg, 0, 0);
	sroce_dcqcn_advance(&rp, &cfg, 2000 * US);	/* 6 timer events */
	CHECK(rp.active);
	CHECK_EQ(rp.stage[SROCE_DCQCN_TIMER], 3);
	CHECK(rp.rc_kbps > 1000000);

	params[SROCE_CC_RP_MAX_RATE] = 500;
	sroce_dcqcn_cfg_init(&cfg, params, 10000000);
	sroce_dcqcn_advance(&rp, &cfg, 2000 * US);	/* the same instant */
	CHECK(!rp.active);
	CHECK_EQ(rp.rc_kbps, 500000);

	/* A decrease owed keeps it on, within the new bounds. */
	params[SROCE_CC_RP_MAX_RATE] = 0;
	sroce_dcqcn_cfg_init(&cfg, params, 10000000);
	memset(&rp, 0, sizeof(rp));
	sroce_dcqcn_cnp(&rp, &cfg, 0, 0);
	params[SROCE_CC_RP_MAX_RATE] = 500;
	sroce_dcqcn_cfg_init(&cfg, params, 10000000);
	sroce_dcqcn_sent(&rp, &cfg, 0, 9000);
	CHECK(rp.active);
	CHECK_EQ(rp.rc_kbps, 500000);
	CHECK_EQ(rp.rt_kbps, 500000);

	/* Time going backwards changes nothing. */
	params[SROCE_CC_RP_MAX_RATE] = 0;
	sroce_dcqcn_cfg_init(&cfg, params, 10000000);
	memset(&rp, 0, sizeof(rp));
	sroce_dcqcn_cnp(&rp, &cfg, 1000 * US, 0);
	sroce_dcqcn_advance(&rp, &cfg, 1700 * US);
	{
		struct sroce_dcqcn_rp before = rp;

		sroce_dcqcn_advance(&rp, &cfg, 1699 * US);
		sroce_dcqcn_sent(&rp, &cfg, 10 * US, 100);
		sroce_dcqcn_advance(&rp, &cfg, 1700 * US);
		CHECK_EQ(rp.rc_kbps, before.rc_kbps);
		CHECK_EQ(rp.rt_kbps, before.rt_kbps);
		CHECK_EQ(rp.alpha, before.alpha);
		CHECK_EQ(rp.last_ns, before.last_ns);
		CHECK_EQ(rp.stage[SROCE_DCQCN_TIMER],
			 before.stage[SROCE_DCQCN_TIMER]);
	}

	/* rp_max_rate above the port's speed: the port's speed. */
	params[SROCE_CC_RP_MAX_RATE] = 400000;
	sroce_dcqcn_cfg_init(&cfg, params, 10000000);
	CHECK_EQ(cfg.max_kbps, 10000000);
	/* Values out of range are taken as the nearest bound. */
	params[SROCE_CC_RP_DCE_TCP_G] = 5000;
	params[SROCE_CC_RP_TIME_RESET] = 0;
	params[SROCE_CC_RP_GD] = 99;
	sroce_dcqcn_cfg_init(&cfg, params, 10000000);
	CHECK_EQ(cfg.g, 1023);
	CHECK_EQ(cfg.time_reset_ns, 1 * US);
	CHECK_EQ(cfg.gd, 15);
}

static void test_tx_ns(void)
{
	CHECK_EQ(sroce_dcqcn_tx_ns(1250, 1000000), 10000);	/* 1 Gbit/s */
	CHECK_EQ(sroce_dcqcn_tx_ns(4096, 1000), 32768000);
	CHECK_EQ(sroce_dcqcn_tx_ns(1, 0), 8000000);
}

/* --- The timer-driven reference ------------------------------------- */

struct ref_rp {
	u64 rc, rt, last, a_org, d_org, i_org;
	u32 bytes;
	u32 alpha;
	unsigned int st, sb;
	bool active, pending, acnp;
};

static u64 ref_next(u64 org, u64 period, u64 after)
{
	u64 t = org;

	while (t <= after)
		t += period;
	return t;
}

static void ref_increase(struct ref_rp *r, const struct sroce_dcqcn_cfg *c,
			 bool timer)
{
	unsigned int f = c->threshold;
	u64 add = 0;
	bool recovery;

	if (timer && r->st < f + 2)
		r->st++;
	if (!timer && r->sb < f + 2)
		r->sb++;
	if (!c->byte_reset) {
		recovery = r->st <= f;
		if (!recovery)
			add = r->st == f + 1 ? c->ai_kbps : c->hai_kbps;
	} else {
		recovery = r->st <= f && r->sb <= f;
		if (!recovery)
			add = r->st > f && r->sb > f ? c->hai_kbps : c->ai_kbps;
	}
	r->rt += add;
	if (r->rt > c->max_kbps)
		r->rt = c->max_kbps;
	r->rc = (r->rc + r->rt + 1) / 2;
	if (r->rc >= c->max_kbps && !r->pending)
		r->active = false;
}

/* Every tick up to @now, one at a time, in the documented order. */
static void ref_run(struct ref_rp *r, const struct sroce_dcqcn_cfg *c, u64 now)
{
	while (r->active) {
		u64 ta = ref_next(r->a_org, c->alpha_period_ns, r->last);
		u64 td = ref_next(r->d_org, c->monitor_ns, r->last);
		u64 ti = ref_next(r->i_org, c->time_reset_ns, r->last);
		u64 t = ta < ti ? ta : ti;

		if (r->pending && td < t)
			t = td;
		if (t > now)
			break;
		if (ta == t) {
			if (r->acnp)
				r->alpha = ((r->alpha * c->g) >> 10) + 1024 - c->g;
			else
				r->alpha = (r->alpha * c->g) >> 10;
			if (r->alpha > 1023)
				r->alpha = 1023;
			r->acnp = false;
		}
		if (r->pending && td == t) {
			u64 old = r->rc, cut = (old * r->alpha) >> c->gd;
			u64 rc = cut < old ? old - cut : 0;

			if (c->clamp || r->sb || (c->clamp_ati && r->st))
				r->rt = old;
			if (rc < old * c->min_dec_fac / 100)
				rc = old * c->min_dec_fac / 100;
			if (rc < c->min_kbps)
				rc = c->min_kbps;
			r->rc = rc;
			if (r->rt < rc)
				r->rt = rc;
			r->st = 0;
			r->sb = 0;
			r->bytes = 0;
			r->i_org = t;
			r->pending = false;
			if (r->rc >= c->max_kbps)
				r->active = false;
		} else if (ti == t) {
			ref_increase(r, c, true);
		}
		r->last = t;
	}
	if (now > r->last)
		r->last = now;
}

static void ref_cnp(struct ref_rp *r, const struct sroce_dcqcn_cfg *c,
		    u64 now, u64 cur)
{
	/* The ticks up to the CNP may release the limiter: it restarts. */
	ref_run(r, c, now);
	if (!r->active) {
		u64 rate = c->first_cnp_kbps ? c->first_cnp_kbps : cur;

		memset(r, 0, sizeof(*r));
		if (rate > c->max_kbps)
			rate = c->max_kbps;
		if (rate < c->min_kbps)
			rate = c->min_kbps;
		r->rc = rate;
		r->rt = rate;
		r->alpha = c->initial_alpha;
		r->last = now;
		r->a_org = now;
		r->d_org = now;
		r->i_org = now;
		r->active = true;
		r->pending = true;
		return;
	}
	r->pending = true;
	r->acnp = true;
}

static void ref_sent(struct ref_rp *r, const struct sroce_dcqcn_cfg *c,
		     u64 now, u32 bytes)
{
	if (!r->active)
		return;
	ref_run(r, c, now);
	if (!c->byte_reset)
		return;
	r->bytes += bytes;
	while (r->active && r->bytes >= c->byte_reset) {
		r->bytes -= c->byte_reset;
		ref_increase(r, c, false);
	}
}

static u32 rnd_range(u32 lo, u32 hi)
{
	return lo + (u32)(random() % (hi - lo + 1));
}

/*
 * Random knobs. Periods are always short, so that many ticks fall
 * between two events; @wide also takes the rest of each range (tiny byte
 * counter, high thresholds, a maximum rate, high first-CNP and minimum
 * rates), for the streams that check bounds rather than exact results.
 */
static void random_params(bool wide)
{
	sroce_cc_params_default(params);
	params[SROCE_CC_RP_CLAMP_TGT_RATE] = rnd_range(0, 1);
	params[SROCE_CC_RP_CLAMP_TGT_RATE_ATI] = rnd_range(0, 1);
	params[SROCE_CC_RP_TIME_RESET] = rnd_range(1, 40);
	params[SROCE_CC_RP_BYTE_RESET] = rnd_range(0, 3) ?
					 rnd_range(wide ? 1 : 64, 32767) : 0;
	params[SROCE_CC_RP_THRESHOLD] = rnd_range(1, wide ? 31 : 5);
	params[SROCE_CC_RP_AI_RATE] = rnd_range(1, 50);
	params[SROCE_CC_RP_HAI_RATE] = rnd_range(1, 300);
	if (wide && rnd_range(0, 1))
		params[SROCE_CC_RP_MAX_RATE] = rnd_range(1, 400000);
	params[SROCE_CC_RP_MIN_DEC_FAC] = rnd_range(0, 100);
	params[SROCE_CC_RP_MIN_RATE] = rnd_range(1, wide ? 1000 : 100);
	params[SROCE_CC_RP_RATE_TO_SET_ON_FIRST_CNP] =
		rnd_range(0, 1) ? rnd_range(1, wide ? 400000 : 5000) : 0;
	params[SROCE_CC_RP_DCE_TCP_G] = rnd_range(0, 1023);
	params[SROCE_CC_RP_DCE_TCP_RTT] = rnd_range(1, 8);
	params[SROCE_CC_RP_RATE_REDUCE_MONITOR_PERIOD] = rnd_range(1, 12);
	params[SROCE_CC_RP_INITIAL_ALPHA_VALUE] = rnd_range(0, 1023);
	params[SROCE_CC_RP_GD] = rnd_range(0, 15);
}

/*
 * Random knobs and random event streams: the lazy reaction point must
 * match the reference after every event.
 */
static void test_rp_lazy_equals_timers(void)
{
	unsigned int run, ev, mismatches = 0;

	srandom(20261202);
	for (run = 0; run < 300; run++) {
		struct sroce_dcqcn_cfg cfg;
		struct sroce_dcqcn_rp rp = { 0 };
		struct ref_rp ref = { 0 };
		u64 now = rnd_range(0, 1000) * US;

		random_params(false);
		sroce_dcqcn_cfg_init(&cfg, params,
				     (u64)rnd_range(100, 10000) * 1000);

		for (ev = 0; ev < 400; ev++) {
			now += rnd_range(0, 3) ? rnd_range(0, 30) * 100 :
						 rnd_range(0, 3000) * US;
			if (rnd_range(0, 9) < 3) {
				u64 cur = (u64)rnd_range(0, 20000) * 1000;

				sroce_dcqcn_cnp(&rp, &cfg, now, cur);
				ref_cnp(&ref, &cfg, now, cur);
			} else {
				u32 len = rnd_range(1, 9000);

				sroce_dcqcn_sent(&rp, &cfg, now, len);
				ref_sent(&ref, &cfg, now, len);
			}
			if (rp.active != ref.active ||
			    (ref.active &&
			     (rp.rc_kbps != ref.rc || rp.rt_kbps != ref.rt ||
			      rp.alpha != ref.alpha ||
			      rp.stage[0] != ref.st || rp.stage[1] != ref.sb ||
			      rp.byte_count != ref.bytes ||
			      rp.dec_pending != ref.pending))) {
				if (!mismatches++)
					fprintf(stderr,
						"  run %u event %u: lazy rc %llu rt %llu alpha %u, timers rc %llu rt %llu alpha %u\n",
						run, ev,
						(unsigned long long)rp.rc_kbps,
						(unsigned long long)rp.rt_kbps,
						rp.alpha,
						(unsigned long long)ref.rc,
						(unsigned long long)ref.rt,
						ref.alpha);
				break;
			}
		}
	}
	CHECK_EQ(mismatches, 0);
}

/*
 * Configuration changes, time going backwards, huge gaps and huge
 * packets in one stream: the invariant holds after every call and no
 * call takes more than a bounded number of loop steps (2 alpha runs of
 * at most 1023, 3 increase runs of at most threshold + 2 + 64 + 1 + 64).
 */
static void test_rp_hostile_stream(void)
{
	unsigned int run, ev, bad = 0;
	unsigned long worst = 0;

	srandom(7);
	for (run = 0; run < 200; run++) {
		struct sroce_dcqcn_cfg cfg;
		struct sroce_dcqcn_rp rp = { 0 };
		u64 now = 0;

		random_params(true);
		sroce_dcqcn_cfg_init(&cfg, params, (u64)rnd_range(1, 400000) * 1000);
		for (ev = 0; ev < 500; ev++) {
			unsigned int what = rnd_range(0, 99);

			if (what < 5) {
				random_params(true);
				sroce_dcqcn_cfg_init(&cfg, params,
						     (u64)rnd_range(1, 400000) * 1000);
			}
			if (what >= 5 && what < 10)
				now -= now < 5000 * US ? now : rnd_range(0, 5000) * US;
			else if (what < 15)
				now += (u64)rnd_range(1, 1000000) * 1000 * US;
			else
				now += rnd_range(0, 200) * US;
			sroce_dcqcn_steps = 0;
			if (rnd_range(0, 3) == 0)
				sroce_dcqcn_cnp(&rp, &cfg, now,
						(u64)rnd_range(0, 400000) * 1000);
			else
				sroce_dcqcn_sent(&rp, &cfg, now,
						 rnd_range(0, 3) ? rnd_range(1, 9000) :
						 0xffffffffU);
			if (sroce_dcqcn_steps > worst)
				worst = sroce_dcqcn_steps;
			if (rp.active &&
			    (rp.rc_kbps < cfg.min_kbps || rp.rc_kbps > rp.rt_kbps ||
			     rp.rt_kbps > cfg.max_kbps || rp.alpha > 1023))
				bad++;
		}
	}
	CHECK_EQ(bad, 0);
	CHECK(worst <= 2 * 1023 + 3 * (33 + 129));
	if (worst > 2 * 1023 + 3 * (33 + 129))
		fprintf(stderr, "  worst call: %lu steps\n", worst);
}

const struct unit_test dcqcn_tests[] = {
	{ "dcqcn_param_table", test_cc_param_table },
	{ "dcqcn_cfg_units", test_cfg_units },
	{ "dcqcn_rp_sequence", test_rp_sequence },
	{ "dcqcn_rp_second_cnp_and_clamp", test_rp_second_cnp_and_clamp },
	{ "dcqcn_rp_decrease_bounds", test_rp_decrease_bounds },
	{ "dcqcn_rp_release", test_rp_release },
	{ "dcqcn_rp_config_change", test_rp_config_change },
	{ "dcqcn_rp_cnp_after_release", test_rp_cnp_after_release },
	{ "dcqcn_rp_hostile_stream", test_rp_hostile_stream },
	{ "dcqcn_tx_ns", test_tx_ns },
	{ "dcqcn_rp_lazy_equals_timers", test_rp_lazy_equals_timers },
	{ NULL, NULL },
};
