// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Unit tests of drivers/lib/qos.c: priority, DSCP/ECN, CNP pacing. */
#include "lib/qos.h"
#include "unit.h"

static void test_qos_defaults(void)
{
	struct sroce_qos q;

	sroce_qos_default(&q);
	CHECK_EQ(q.trust, SROCE_TRUST_PCP);
	CHECK_EQ(q.rp_enable, 0xff);
	CHECK_EQ(q.np_enable, 0xff);
	CHECK_EQ(q.dscp2prio[0], 0);
	CHECK_EQ(q.dscp2prio[26], 3);
	CHECK_EQ(q.dscp2prio[48], 6);	/* np_cnp_dscp lands on np_cnp_prio */
	CHECK_EQ(q.dscp2prio[63], 7);
}

static void test_qos_prio(void)
{
	struct sroce_qos q;

	sroce_qos_default(&q);
	/* PCP trust: the SL, whatever the DSCP. */
	CHECK_EQ(sroce_qos_prio(&q, 5, 26 << 2), 5);
	CHECK_EQ(sroce_qos_prio(&q, 13, 0), 5);		/* SL beyond 7 */
	/* DSCP trust: the map of the traffic class's DSCP. */
	q.trust = SROCE_TRUST_DSCP;
	CHECK_EQ(sroce_qos_prio(&q, 5, 26 << 2), 3);
	CHECK_EQ(sroce_qos_prio(&q, 5, (26 << 2) | SROCE_ECN_CE), 3);
	q.dscp2prio[26] = 4;
	CHECK_EQ(sroce_qos_prio(&q, 0, 26 << 2), 4);
	q.dscp2prio[26] = 200;				/* never beyond 7 */
	CHECK(sroce_qos_prio(&q, 0, 26 << 2) < SROCE_QOS_NUM_PRIO);
}

static void test_qos_tclass(void)
{
	struct sroce_qos q;

	sroce_qos_default(&q);
	/* The DSCP stays, the ECN field is the port's. */
	CHECK_EQ(sroce_qos_tclass(&q, 3, 26 << 2), (26 << 2) | SROCE_ECN_ECT0);
	CHECK_EQ(sroce_qos_tclass(&q, 3, (26 << 2) | SROCE_ECN_CE),
		 (26 << 2) | SROCE_ECN_ECT0);
	q.rp_enable = 0xff & ~(1U << 3);
	CHECK_EQ(sroce_qos_tclass(&q, 3, (26 << 2) | SROCE_ECN_ECT1), 26 << 2);
	CHECK_EQ(sroce_qos_tclass(&q, 2, 0), SROCE_ECN_ECT0);
}

static void test_np_cnp_due(void)
{
	CHECK(sroce_np_cnp_due(0, 0, false, 4));	/* the first mark */
	CHECK(!sroce_np_cnp_due(3999, 0, true, 4));
	CHECK(sroce_np_cnp_due(4000, 0, true, 4));
	CHECK(sroce_np_cnp_due(5, 5, true, 0));		/* 0: every mark */
	CHECK(sroce_np_cnp_due(~0ULL, 0, true, 1000000));
}

const struct unit_test qos_tests[] = {
	{ "qos_defaults", test_qos_defaults },
	{ "qos_prio", test_qos_prio },
	{ "qos_tclass", test_qos_tclass },
	{ "np_cnp_due", test_np_cnp_due },
	{ NULL, NULL },
};
