// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Unit tests of drivers/lib/psn.h. */
#include "lib/psn.h"
#include "unit.h"

static void test_psn_mask_add_sub(void)
{
	CHECK_EQ(sroce_psn_mask(0x12345678), 0x345678);
	CHECK_EQ(sroce_psn_add(0, 1), 1);
	CHECK_EQ(sroce_psn_add(0xffffff, 1), 0);
	CHECK_EQ(sroce_psn_add(0xfffffe, 5), 3);
	CHECK_EQ(sroce_psn_add(0x800000, 0x800000), 0);
	CHECK_EQ(sroce_psn_add(5, 0xffffffff), 4);	/* -1 */
	CHECK_EQ(sroce_psn_sub(0, 1), 0xffffff);
	CHECK_EQ(sroce_psn_sub(3, 5), 0xfffffe);
	CHECK_EQ(sroce_psn_sub(0x10, 0x10), 0);
}

static void test_psn_diff(void)
{
	CHECK_EQ(sroce_psn_diff(5, 5), 0);
	CHECK_EQ(sroce_psn_diff(6, 5), 1);
	CHECK_EQ(sroce_psn_diff(5, 6), -1);
	/* Across the wrap. */
	CHECK_EQ(sroce_psn_diff(0, 0xffffff), 1);
	CHECK_EQ(sroce_psn_diff(0xffffff, 0), -1);
	CHECK_EQ(sroce_psn_diff(2, 0xfffffe), 4);
	CHECK_EQ(sroce_psn_diff(0xfffffe, 2), -4);
	/* The half-circle boundary: the range is [-2^23, 2^23). */
	CHECK_EQ(sroce_psn_diff(0x7fffff, 0), 0x7fffff);
	CHECK_EQ(sroce_psn_diff(0x800000, 0), -0x800000);
	CHECK_EQ(sroce_psn_diff(0, 0x800000), -0x800000);
	CHECK_EQ(sroce_psn_diff(0, 0x7fffff), -0x7fffff);
	CHECK_EQ(sroce_psn_diff(0x800001, 1), -0x800000);
	/* Bits above 24 are ignored. */
	CHECK_EQ(sroce_psn_diff(0xff000007, 0x01000005), 2);
}

static void test_psn_diff_exhaustive_ring(void)
{
	static const u32 bases[] = { 0, 1, 0x7fffff, 0x800000, 0xfffffe,
				     0xffffff, 0x123456 };
	static const int deltas[] = { 0, 1, -1, 2, -2, 1000, -1000,
				      0x7fffff, -0x7fffff, -0x800000 };
	unsigned int i, j;

	for (i = 0; i < ARRAY_SIZE(bases); i++) {
		for (j = 0; j < ARRAY_SIZE(deltas); j++) {
			u32 b = bases[i];
			u32 a = sroce_psn_add(b, (u32)deltas[j]);
			int d = deltas[j];

			CHECK_EQ(sroce_psn_diff(a, b), d);
			CHECK_EQ(sroce_psn_add(b, (u32)sroce_psn_diff(a, b)), a);
			CHECK_EQ(sroce_psn_before(a, b), d < 0);
			CHECK_EQ(sroce_psn_after(a, b), d > 0);
			CHECK_EQ(sroce_psn_before_eq(a, b), d <= 0);
			CHECK_EQ(sroce_psn_after_eq(a, b), d >= 0);
			/* Antisymmetry, except at -2^23 which is its own
			 * negation on the circle.
			 */
			if (d != -0x800000)
				CHECK_EQ(sroce_psn_diff(b, a), -d);
		}
	}
}

static void test_psn_compare_wrap(void)
{
	CHECK(sroce_psn_before(0xffffff, 0));
	CHECK(sroce_psn_after(0, 0xffffff));
	CHECK(!sroce_psn_before(0, 0xffffff));
	CHECK(sroce_psn_before(0xfffff0, 0x00000f));
	CHECK(sroce_psn_after_eq(7, 7));
	CHECK(sroce_psn_before_eq(7, 7));
	CHECK(!sroce_psn_before(7, 7));
	CHECK(!sroce_psn_after(7, 7));
}

static void test_psn_window(void)
{
	/* [0xfffffe, 0xfffffe + 4) = fffffe, ffffff, 0, 1. */
	CHECK(sroce_psn_in_window(0xfffffe, 0xfffffe, 4));
	CHECK(sroce_psn_in_window(0xffffff, 0xfffffe, 4));
	CHECK(sroce_psn_in_window(0, 0xfffffe, 4));
	CHECK(sroce_psn_in_window(1, 0xfffffe, 4));
	CHECK(!sroce_psn_in_window(2, 0xfffffe, 4));
	CHECK(!sroce_psn_in_window(0xfffffd, 0xfffffe, 4));
	CHECK(!sroce_psn_in_window(5, 5, 0));
	CHECK(sroce_psn_in_window(5, 5, 1));
	CHECK(!sroce_psn_in_window(6, 5, 1));
	/* The whole circle. */
	CHECK(sroce_psn_in_window(4, 5, 0x1000000));
	CHECK(sroce_psn_in_window(0x1000004, 5, 0x1000000));
	/* Upper bits of the PSN argument are ignored. */
	CHECK(sroce_psn_in_window(0xff000000, 0xfffffe, 4));

	CHECK(sroce_psn_in_range(0, 0xfffffe, 1));
	CHECK(sroce_psn_in_range(0xfffffe, 0xfffffe, 1));
	CHECK(sroce_psn_in_range(1, 0xfffffe, 1));
	CHECK(!sroce_psn_in_range(2, 0xfffffe, 1));
	CHECK(!sroce_psn_in_range(0xfffffd, 0xfffffe, 1));
	CHECK(sroce_psn_in_range(9, 9, 9));
	CHECK(!sroce_psn_in_range(10, 9, 9));
}

const struct unit_test psn_tests[] = {
	{ "psn/mask_add_sub", test_psn_mask_add_sub },
	{ "psn/diff", test_psn_diff },
	{ "psn/diff_exhaustive_ring", test_psn_diff_exhaustive_ring },
	{ "psn/compare_wrap", test_psn_compare_wrap },
	{ "psn/window", test_psn_window },
	{ NULL, NULL },
};
