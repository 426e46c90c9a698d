// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Unit tests of drivers/lib/qp_state.c. The expectations come from
 * spec_rule(), a second, independently written statement of the IBA rules
 * (as code rather than a table); every (type, state, state, bit)
 * combination is checked against it.
 */
#include "lib/qp_state.h"
#include "unit.h"

#define ALL_BITS	0xffffffffU

static const unsigned int qp_types[] = {
	SROCE_QPT_GSI, SROCE_QPT_RC, SROCE_QPT_UC, SROCE_QPT_UD,
};

/* Includes SMI (0), which sroce never has, and the XRC/raw types. */
static const unsigned int bad_types[] = {
	0, 5, 6, 7, 8, 9, 10, 11, 0xff, 0x100, 0x80000000U, 0xffffffffU,
};

static const unsigned int bad_states[] = {
	SROCE_QPS_NUM, SROCE_QPS_NUM + 1, 8, 0xff, 0x100, 0x80000000U,
	0xffffffffU,
};

/*
 * The expected rule for a transition: returns whether it is legal and,
 * if so, its required and optional attributes (SROCE_QPA_STATE excluded).
 */
static bool spec_rule(unsigned int t, unsigned int cur, unsigned int next,
		      u32 *req, u32 *opt)
{
	bool rc = t == SROCE_QPT_RC, uc = t == SROCE_QPT_UC;
	bool ud = t == SROCE_QPT_UD, gsi = t == SROCE_QPT_GSI;
	bool dgram = ud || gsi;
	u32 init;

	*req = 0;
	*opt = 0;
	if (!(rc || uc || ud || gsi) || cur > SROCE_QPS_ERR ||
	    next > SROCE_QPS_ERR)
		return false;

	if (next == SROCE_QPS_RESET)
		return true;
	if (next == SROCE_QPS_ERR)
		return cur != SROCE_QPS_RESET;

	init = SROCE_QPA_PKEY_INDEX | (gsi ? 0 : SROCE_QPA_PORT) |
	       (dgram ? SROCE_QPA_QKEY : SROCE_QPA_ACCESS_FLAGS);
	if (cur == SROCE_QPS_RESET && next == SROCE_QPS_INIT) {
		*req = init;
		return true;
	}
	if (cur == SROCE_QPS_INIT && next == SROCE_QPS_INIT) {
		*opt = init;
		return true;
	}
	if (cur == SROCE_QPS_INIT && next == SROCE_QPS_RTR) {
		if (dgram) {
			*opt = SROCE_QPA_PKEY_INDEX | SROCE_QPA_QKEY;
			return true;
		}
		*req = SROCE_QPA_AV | SROCE_QPA_PATH_MTU | SROCE_QPA_DEST_QPN |
		       SROCE_QPA_RQ_PSN;
		if (rc)
			*req |= SROCE_QPA_MAX_DEST_RD_ATOMIC |
				SROCE_QPA_MIN_RNR_TIMER;
		*opt = SROCE_QPA_ALT_PATH | SROCE_QPA_ACCESS_FLAGS |
		       SROCE_QPA_PKEY_INDEX;
		return true;
	}
	if (next == SROCE_QPS_RTS &&
	    (cur == SROCE_QPS_RTR || cur == SROCE_QPS_RTS ||
	     cur == SROCE_QPS_SQD || (cur == SROCE_QPS_SQE && !rc))) {
		if (cur == SROCE_QPS_RTR) {
			*req = SROCE_QPA_SQ_PSN;
			if (rc)
				*req |= SROCE_QPA_TIMEOUT |
					SROCE_QPA_RETRY_CNT |
					SROCE_QPA_RNR_RETRY |
					SROCE_QPA_MAX_QP_RD_ATOMIC;
		}
		*opt = SROCE_QPA_CUR_STATE;
		if (dgram)
			*opt |= SROCE_QPA_QKEY;
		else if (cur == SROCE_QPS_SQE)
			*opt |= SROCE_QPA_ACCESS_FLAGS;
		else
			*opt |= SROCE_QPA_ALT_PATH | SROCE_QPA_ACCESS_FLAGS |
				SROCE_QPA_PATH_MIG_STATE |
				(rc ? SROCE_QPA_MIN_RNR_TIMER : 0);
		if ((rc || ud) &&
		    (cur == SROCE_QPS_RTR || cur == SROCE_QPS_RTS))
			*opt |= SROCE_QPA_RATE_LIMIT;
		return true;
	}
	if (cur == SROCE_QPS_RTS && next == SROCE_QPS_SQD) {
		*opt = SROCE_QPA_EN_SQD_ASYNC_NOTIFY;
		return true;
	}
	if (cur == SROCE_QPS_SQD && next == SROCE_QPS_SQD) {
		*opt = SROCE_QPA_PKEY_INDEX;
		if (dgram) {
			*opt |= SROCE_QPA_QKEY;
			return true;
		}
		*opt |= SROCE_QPA_AV | SROCE_QPA_ALT_PATH |
			SROCE_QPA_ACCESS_FLAGS | SROCE_QPA_PATH_MIG_STATE;
		if (rc)
			*opt |= SROCE_QPA_PORT | SROCE_QPA_TIMEOUT |
				SROCE_QPA_RETRY_CNT | SROCE_QPA_RNR_RETRY |
				SROCE_QPA_MAX_QP_RD_ATOMIC |
				SROCE_QPA_MAX_DEST_RD_ATOMIC |
				SROCE_QPA_MIN_RNR_TIMER;
		return true;
	}
	return false;
}

/* Checks one call against spec_rule(); returns the call's result. */
static int check_against_spec(unsigned int t, unsigned int cur,
			      unsigned int next, u32 mask)
{
	u32 req, opt, missing = 0xdead, extra = 0xbeef;
	unsigned int eff_next = mask & SROCE_QPA_STATE ? next : cur;
	bool legal = spec_rule(t, cur, eff_next, &req, &opt);
	u32 want_missing = legal ? req & ~mask : 0;
	u32 want_extra = legal ? mask & ~(req | opt | SROCE_QPA_STATE) : 0;
	int want = legal && !want_missing && !want_extra ? 0 : -EINVAL;
	int ret = sroce_qp_modify_check(t, cur, next, mask, &missing, &extra);

	if (ret != want || missing != want_missing || extra != want_extra) {
		fprintf(stderr,
			"  type %u %u->%u mask %#x: ret %d missing %#x extra %#x, want %d %#x %#x\n",
			t, cur, next, mask, ret, missing, extra, want,
			want_missing, want_extra);
		unit_failures++;
	}
	return ret;
}

static void test_required_sets_pass(void)
{
	unsigned int i, cur, next, legal = 0;
	u32 req, opt, missing, extra;

	for (i = 0; i < ARRAY_SIZE(qp_types); i++)
		for (cur = 0; cur < SROCE_QPS_NUM; cur++)
			for (next = 0; next < SROCE_QPS_NUM; next++) {
				if (!spec_rule(qp_types[i], cur, next, &req,
					       &opt))
					continue;
				legal++;
				missing = 1;
				extra = 1;
				CHECK_EQ(sroce_qp_modify_check(qp_types[i], cur,
							       next,
							       req | SROCE_QPA_STATE,
							       &missing, &extra),
					 0);
				CHECK_EQ(missing, 0);
				CHECK_EQ(extra, 0);
				/* The output pointers are optional. */
				CHECK_EQ(sroce_qp_modify_check(qp_types[i], cur,
							       next,
							       req | SROCE_QPA_STATE,
							       NULL, NULL),
					 0);
				CHECK_EQ(check_against_spec(qp_types[i], cur,
							    next,
							    req | opt |
							    SROCE_QPA_STATE),
					 0);
			}
	/* RC: 21 transitions; GSI, UC, UD: those plus SQE->RTS. */
	CHECK_EQ(legal, 21 + 3 * 22);
}

static void test_each_required_bit_missing(void)
{
	unsigned int i, cur, next, bit, cases = 0;
	u32 req, opt, missing, extra;

	for (i = 0; i < ARRAY_SIZE(qp_types); i++)
		for (cur = 0; cur < SROCE_QPS_NUM; cur++)
			for (next = 0; next < SROCE_QPS_NUM; next++) {
				if (!spec_rule(qp_types[i], cur, next, &req,
					       &opt))
					continue;
				for (bit = 0; bit < 32; bit++) {
					u32 b = 1U << bit;
					u32 mask = SROCE_QPA_STATE | (req & ~b);

					if (!(req & b))
						continue;
					cases++;
					CHECK_EQ(sroce_qp_modify_check(qp_types[i],
								       cur, next, mask,
								       &missing, &extra),
						 -EINVAL);
					CHECK_EQ(missing, b);
					CHECK_EQ(extra, 0);
					/* Optional ones do not make up for it. */
					check_against_spec(qp_types[i], cur,
							   next, mask | opt);
					CHECK_EQ(sroce_qp_modify_check(qp_types[i],
								       cur, next,
								       mask | opt,
								       &missing, NULL),
						 -EINVAL);
					CHECK_EQ(missing, b);
				}
			}
	CHECK(cases > 0);
}

static void test_each_foreign_bit_extra(void)
{
	unsigned int i, cur, next, bit;
	u32 req, opt, missing, extra;

	for (i = 0; i < ARRAY_SIZE(qp_types); i++)
		for (cur = 0; cur < SROCE_QPS_NUM; cur++)
			for (next = 0; next < SROCE_QPS_NUM; next++) {
				if (!spec_rule(qp_types[i], cur, next, &req,
					       &opt))
					continue;
				for (bit = 0; bit < 32; bit++) {
					u32 b = 1U << bit;
					u32 mask = SROCE_QPA_STATE | req | b;

					if ((req | opt | SROCE_QPA_STATE) & b)
						continue;
					CHECK_EQ(sroce_qp_modify_check(qp_types[i],
								       cur, next, mask,
								       &missing, &extra),
						 -EINVAL);
					CHECK_EQ(missing, 0);
					CHECK_EQ(extra, b);
					check_against_spec(qp_types[i], cur,
							   next, mask | opt);
				}
			}
}

static void test_each_optional_bit_passes(void)
{
	unsigned int i, cur, next, bit;
	u32 req, opt;

	for (i = 0; i < ARRAY_SIZE(qp_types); i++)
		for (cur = 0; cur < SROCE_QPS_NUM; cur++)
			for (next = 0; next < SROCE_QPS_NUM; next++) {
				if (!spec_rule(qp_types[i], cur, next, &req,
					       &opt))
					continue;
				for (bit = 0; bit < 32; bit++) {
					u32 b = 1U << bit;

					if (!(opt & b))
						continue;
					CHECK_EQ(check_against_spec(qp_types[i],
								    cur, next,
								    SROCE_QPA_STATE |
								    req | b),
						 0);
				}
			}
}

static void test_illegal_transitions(void)
{
	static const u32 masks[] = {
		SROCE_QPA_STATE, ALL_BITS, 0x0211ffffU,
		SROCE_QPA_STATE | SROCE_QPA_SQ_PSN,
	};
	unsigned int i, cur, next, m, illegal = 0;
	u32 req, opt, missing, extra;

	for (i = 0; i < ARRAY_SIZE(qp_types); i++)
		for (cur = 0; cur < SROCE_QPS_NUM; cur++)
			for (next = 0; next < SROCE_QPS_NUM; next++) {
				if (spec_rule(qp_types[i], cur, next, &req,
					      &opt))
					continue;
				illegal++;
				for (m = 0; m < ARRAY_SIZE(masks); m++) {
					missing = 1;
					extra = 1;
					CHECK_EQ(sroce_qp_modify_check(qp_types[i],
								       cur, next,
								       masks[m],
								       &missing, &extra),
						 -EINVAL);
					CHECK_EQ(missing, 0);
					CHECK_EQ(extra, 0);
				}
			}
	CHECK_EQ(illegal, 4 * SROCE_QPS_NUM * SROCE_QPS_NUM - (21 + 3 * 22));
}

/* Spot checks, so that spec_rule() itself is anchored to the IBA text. */
static void test_named_transitions(void)
{
	const u32 s = SROCE_QPA_STATE;
	u32 missing, extra;

	CHECK_EQ(sroce_qp_modify_check(SROCE_QPT_UD, SROCE_QPS_RESET,
				       SROCE_QPS_INIT, s |
				       SROCE_QPA_PKEY_INDEX | SROCE_QPA_PORT |
				       SROCE_QPA_QKEY, NULL, NULL), 0);
	CHECK_EQ(sroce_qp_modify_check(SROCE_QPT_RC, SROCE_QPS_RESET,
				       SROCE_QPS_INIT, s |
				       SROCE_QPA_PKEY_INDEX | SROCE_QPA_PORT |
				       SROCE_QPA_QKEY, &missing, &extra),
		 -EINVAL);
	CHECK_EQ(missing, SROCE_QPA_ACCESS_FLAGS);
	CHECK_EQ(extra, SROCE_QPA_QKEY);
	CHECK_EQ(sroce_qp_modify_check(SROCE_QPT_GSI, SROCE_QPS_RESET,
				       SROCE_QPS_INIT, s |
				       SROCE_QPA_PKEY_INDEX | SROCE_QPA_QKEY,
				       NULL, NULL), 0);
	CHECK_EQ(sroce_qp_modify_check(SROCE_QPT_RC, SROCE_QPS_INIT,
				       SROCE_QPS_RTR, s | SROCE_QPA_AV |
				       SROCE_QPA_PATH_MTU | SROCE_QPA_DEST_QPN |
				       SROCE_QPA_RQ_PSN, &missing, &extra),
		 -EINVAL);
	CHECK_EQ(missing, SROCE_QPA_MAX_DEST_RD_ATOMIC |
		 SROCE_QPA_MIN_RNR_TIMER);
	CHECK_EQ(extra, 0);
	CHECK_EQ(sroce_qp_modify_check(SROCE_QPT_UC, SROCE_QPS_INIT,
				       SROCE_QPS_RTR, s | SROCE_QPA_AV |
				       SROCE_QPA_PATH_MTU | SROCE_QPA_DEST_QPN |
				       SROCE_QPA_RQ_PSN, NULL, NULL), 0);
	CHECK_EQ(sroce_qp_modify_check(SROCE_QPT_RC, SROCE_QPS_RTR,
				       SROCE_QPS_RTS, s | SROCE_QPA_SQ_PSN |
				       SROCE_QPA_TIMEOUT | SROCE_QPA_RETRY_CNT |
				       SROCE_QPA_RNR_RETRY |
				       SROCE_QPA_MAX_QP_RD_ATOMIC |
				       SROCE_QPA_RATE_LIMIT, NULL, NULL), 0);
	CHECK_EQ(sroce_qp_modify_check(SROCE_QPT_UD, SROCE_QPS_RTR,
				       SROCE_QPS_RTS, s | SROCE_QPA_SQ_PSN,
				       NULL, NULL), 0);
	CHECK_EQ(sroce_qp_modify_check(SROCE_QPT_UC, SROCE_QPS_RTS,
				       SROCE_QPS_RTS, s | SROCE_QPA_RATE_LIMIT,
				       NULL, &extra), -EINVAL);
	CHECK_EQ(extra, SROCE_QPA_RATE_LIMIT);
	/* CAP (resizing) is never accepted by MODIFY_QP. */
	CHECK_EQ(sroce_qp_modify_check(SROCE_QPT_RC, SROCE_QPS_RTS,
				       SROCE_QPS_RTS, SROCE_QPA_CAP,
				       NULL, &extra), -EINVAL);
	CHECK_EQ(extra, SROCE_QPA_CAP);

	/* No skipping states, no way back but through Reset. */
	CHECK_EQ(sroce_qp_modify_check(SROCE_QPT_RC, SROCE_QPS_RESET,
				       SROCE_QPS_RTR, s, NULL, NULL), -EINVAL);
	CHECK_EQ(sroce_qp_modify_check(SROCE_QPT_UD, SROCE_QPS_INIT,
				       SROCE_QPS_RTS, s | SROCE_QPA_SQ_PSN,
				       NULL, NULL), -EINVAL);
	CHECK_EQ(sroce_qp_modify_check(SROCE_QPT_RC, SROCE_QPS_RTR,
				       SROCE_QPS_RTR, s, NULL, NULL), -EINVAL);
	CHECK_EQ(sroce_qp_modify_check(SROCE_QPT_RC, SROCE_QPS_RTR,
				       SROCE_QPS_INIT, s, NULL, NULL), -EINVAL);
	CHECK_EQ(sroce_qp_modify_check(SROCE_QPT_UD, SROCE_QPS_ERR,
				       SROCE_QPS_RTS, s, NULL, NULL), -EINVAL);
	CHECK_EQ(sroce_qp_modify_check(SROCE_QPT_UD, SROCE_QPS_RESET,
				       SROCE_QPS_ERR, s, NULL, NULL), -EINVAL);
	CHECK_EQ(sroce_qp_modify_check(SROCE_QPT_UD, SROCE_QPS_SQE,
				       SROCE_QPS_SQE, s, NULL, NULL), -EINVAL);
	CHECK_EQ(sroce_qp_modify_check(SROCE_QPT_UD, SROCE_QPS_SQD,
				       SROCE_QPS_RTR, s, NULL, NULL), -EINVAL);
	/* RC never enters SQE, so it cannot recover from it either. */
	CHECK_EQ(sroce_qp_modify_check(SROCE_QPT_RC, SROCE_QPS_SQE,
				       SROCE_QPS_RTS, s, NULL, NULL), -EINVAL);
	CHECK_EQ(sroce_qp_modify_check(SROCE_QPT_UC, SROCE_QPS_SQE,
				       SROCE_QPS_RTS, s, NULL, NULL), 0);
	/* Reset and Error take nothing but the state. */
	CHECK_EQ(sroce_qp_modify_check(SROCE_QPT_RC, SROCE_QPS_RTS,
				       SROCE_QPS_ERR, s, NULL, NULL), 0);
	CHECK_EQ(sroce_qp_modify_check(SROCE_QPT_RC, SROCE_QPS_RTS,
				       SROCE_QPS_RESET, s | SROCE_QPA_CUR_STATE,
				       NULL, &extra), -EINVAL);
	CHECK_EQ(extra, SROCE_QPA_CUR_STATE);
}

/* CUR_STATE only on RTR->RTS, RTS->RTS, SQD->RTS and SQE->RTS. */
static void test_cur_state_rule(void)
{
	unsigned int i, cur, next;
	u32 req, opt, extra;

	for (i = 0; i < ARRAY_SIZE(qp_types); i++)
		for (cur = 0; cur < SROCE_QPS_NUM; cur++)
			for (next = 0; next < SROCE_QPS_NUM; next++) {
				bool ok;

				if (!spec_rule(qp_types[i], cur, next, &req,
					       &opt))
					continue;
				ok = next == SROCE_QPS_RTS &&
				     (cur == SROCE_QPS_RTR ||
				      cur == SROCE_QPS_RTS ||
				      cur == SROCE_QPS_SQD ||
				      cur == SROCE_QPS_SQE);
				CHECK_EQ(sroce_qp_modify_check(qp_types[i], cur,
							       next,
							       SROCE_QPA_STATE |
							       SROCE_QPA_CUR_STATE |
							       req, NULL, &extra),
					 ok ? 0 : -EINVAL);
				CHECK_EQ(extra, ok ? 0 : SROCE_QPA_CUR_STATE);
			}
}

/* Without the STATE bit, @next is ignored and cur->cur applies. */
static void test_no_state_bit(void)
{
	static const unsigned int nexts[] = {
		SROCE_QPS_RESET, SROCE_QPS_INIT, SROCE_QPS_RTR, SROCE_QPS_RTS,
		SROCE_QPS_SQD, SROCE_QPS_SQE, SROCE_QPS_ERR, SROCE_QPS_NUM,
		0xffffffffU,
	};
	unsigned int i, cur, n, bit;
	u32 req, opt;

	for (i = 0; i < ARRAY_SIZE(qp_types); i++)
		for (cur = 0; cur < SROCE_QPS_NUM; cur++) {
			bool self = spec_rule(qp_types[i], cur, cur, &req,
					      &opt);

			for (n = 0; n < ARRAY_SIZE(nexts); n++) {
				check_against_spec(qp_types[i], cur, nexts[n],
						   0);
				check_against_spec(qp_types[i], cur, nexts[n],
						   opt);
				for (bit = 1; bit < 32; bit++)
					check_against_spec(qp_types[i], cur,
							   nexts[n],
							   1U << bit);
			}
			/* An empty modify is fine wherever a self-loop exists. */
			CHECK_EQ(sroce_qp_modify_check(qp_types[i], cur,
						       0xffffffffU, 0, NULL,
						       NULL),
				 self ? 0 : -EINVAL);
			CHECK_EQ(self, cur != SROCE_QPS_RTR &&
				 cur != SROCE_QPS_SQE);
		}
	/* Attributes cannot be modified in Reset, Error, RTR or SQE. */
	CHECK_EQ(sroce_qp_modify_check(SROCE_QPT_UD, SROCE_QPS_RESET,
				       SROCE_QPS_INIT, SROCE_QPA_QKEY, NULL,
				       NULL), -EINVAL);
	CHECK_EQ(sroce_qp_modify_check(SROCE_QPT_UD, SROCE_QPS_ERR,
				       SROCE_QPS_ERR, SROCE_QPA_QKEY, NULL,
				       NULL), -EINVAL);
	CHECK_EQ(sroce_qp_modify_check(SROCE_QPT_UD, SROCE_QPS_RTR,
				       SROCE_QPS_RTS, SROCE_QPA_QKEY, NULL,
				       NULL), -EINVAL);
	CHECK_EQ(sroce_qp_modify_check(SROCE_QPT_UD, SROCE_QPS_RTS,
				       SROCE_QPS_ERR, SROCE_QPA_QKEY, NULL,
				       NULL), 0);
}

static void test_out_of_range(void)
{
	unsigned int i, j, cur, next;
	u32 missing, extra;

	for (i = 0; i < ARRAY_SIZE(bad_types); i++)
		for (cur = 0; cur < SROCE_QPS_NUM; cur++)
			for (next = 0; next < SROCE_QPS_NUM; next++) {
				missing = 1;
				extra = 1;
				CHECK_EQ(sroce_qp_modify_check(bad_types[i], cur,
							       next,
							       SROCE_QPA_STATE,
							       &missing, &extra),
					 -EINVAL);
				CHECK_EQ(missing, 0);
				CHECK_EQ(extra, 0);
				CHECK_EQ(sroce_qp_modify_check(bad_types[i], cur,
							       next, 0, NULL,
							       NULL),
					 -EINVAL);
			}
	for (i = 0; i < ARRAY_SIZE(qp_types); i++)
		for (j = 0; j < ARRAY_SIZE(bad_states); j++)
			for (cur = 0; cur < SROCE_QPS_NUM; cur++) {
				check_against_spec(qp_types[i], cur,
						   bad_states[j],
						   SROCE_QPA_STATE);
				CHECK_EQ(sroce_qp_modify_check(qp_types[i],
							       bad_states[j],
							       cur,
							       SROCE_QPA_STATE,
							       &missing, &extra),
					 -EINVAL);
				CHECK_EQ(missing, 0);
				CHECK_EQ(extra, 0);
				CHECK_EQ(sroce_qp_modify_check(qp_types[i],
							       bad_states[j],
							       bad_states[j],
							       0, NULL, NULL),
					 -EINVAL);
				CHECK_EQ(sroce_qp_modify_check(qp_types[i],
							       bad_states[j],
							       cur, ALL_BITS,
							       NULL, NULL),
					 -EINVAL);
			}
}

/* Random masks over every triple, valid or not, against spec_rule(). */
static void test_random_masks(void)
{
	u32 seed = 0x5eed1234;
	unsigned int t, cur, next, n;

	for (t = 0; t <= SROCE_QPT_UD + 1; t++)
		for (cur = 0; cur <= SROCE_QPS_NUM; cur++)
			for (next = 0; next <= SROCE_QPS_NUM; next++)
				for (n = 0; n < 256; n++) {
					u32 mask;

					seed = seed * 1664525U + 1013904223U;
					/* Sparse masks hit the interesting cases. */
					mask = seed & (seed >> 7) & (seed >> 13);
					if (n & 1)
						mask |= SROCE_QPA_STATE;
					check_against_spec(t, cur, next, mask);
				}
}

static void test_state_names(void)
{
	unsigned int a, b;

	CHECK(!strcmp(sroce_qp_state_name(SROCE_QPS_RESET), "RESET"));
	CHECK(!strcmp(sroce_qp_state_name(SROCE_QPS_RTS), "RTS"));
	CHECK(!strcmp(sroce_qp_state_name(SROCE_QPS_ERR), "ERR"));
	for (a = 0; a < SROCE_QPS_NUM; a++) {
		CHECK(sroce_qp_state_name(a));
		CHECK(strcmp(sroce_qp_state_name(a), "INVALID"));
		for (b = 0; b < a; b++)
			CHECK(strcmp(sroce_qp_state_name(a),
				     sroce_qp_state_name(b)));
	}
	for (a = 0; a < ARRAY_SIZE(bad_states); a++)
		CHECK(!strcmp(sroce_qp_state_name(bad_states[a]), "INVALID"));
}

static void test_attr_names(void)
{
	const u32 defined = 0x021fffffU;	/* bits 0-20 and 25 */
	unsigned int a, b;

	CHECK(!strcmp(sroce_qp_attr_name(SROCE_QPA_STATE), "STATE"));
	CHECK(!strcmp(sroce_qp_attr_name(SROCE_QPA_PKEY_INDEX), "PKEY_INDEX"));
	CHECK(!strcmp(sroce_qp_attr_name(SROCE_QPA_RATE_LIMIT), "RATE_LIMIT"));
	for (a = 0; a < 32; a++) {
		const char *name = sroce_qp_attr_name(1U << a);

		CHECK(name);
		CHECK_EQ(!strcmp(name, "INVALID"), !(defined & (1U << a)));
		for (b = 0; b < a; b++)
			if ((defined >> a & 1) && (defined >> b & 1))
				CHECK(strcmp(name, sroce_qp_attr_name(1U << b)));
	}
	CHECK(!strcmp(sroce_qp_attr_name(0), "INVALID"));
	CHECK(!strcmp(sroce_qp_attr_name(SROCE_QPA_AV | SROCE_QPA_PORT),
		      "INVALID"));
	CHECK(!strcmp(sroce_qp_attr_name(ALL_BITS), "INVALID"));
}

const struct unit_test qp_state_tests[] = {
	{ "qp_state/required_sets_pass", test_required_sets_pass },
	{ "qp_state/each_required_bit_missing", test_each_required_bit_missing },
	{ "qp_state/each_foreign_bit_extra", test_each_foreign_bit_extra },
	{ "qp_state/each_optional_bit_passes", test_each_optional_bit_passes },
	{ "qp_state/illegal_transitions", test_illegal_transitions },
	{ "qp_state/named_transitions", test_named_transitions },
	{ "qp_state/cur_state_rule", test_cur_state_rule },
	{ "qp_state/no_state_bit", test_no_state_bit },
	{ "qp_state/out_of_range", test_out_of_range },
	{ "qp_state/random_masks", test_random_masks },
	{ "qp_state/state_names", test_state_names },
	{ "qp_state/attr_names", test_attr_names },
	{ NULL, NULL },
};
