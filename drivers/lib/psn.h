/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * 24-bit packet sequence number arithmetic. PSNs (and MSNs) live on a
 * circle of 2^24 values: "before" and "after" are only meaningful for two
 * numbers less than half the circle (2^23) apart, which the transport
 * guarantees by bounding the number of outstanding packets.
 */
#ifndef SROCE_PSN_H
#define SROCE_PSN_H

#include "sroce_lib.h"

#define SROCE_PSN_BITS		24
#define SROCE_PSN_MASK		0x00ffffffU
#define SROCE_PSN_HALF		0x00800000U

/**
 * sroce_psn_mask() - reduce a value to a 24-bit PSN
 * @psn: any 32-bit value
 *
 * Return: the low 24 bits of @psn.
 */
static inline u32 sroce_psn_mask(u32 psn)
{
	return psn & SROCE_PSN_MASK;
}

/**
 * sroce_psn_add() - advance a PSN
 * @psn: starting PSN
 * @n: number of packets to advance by
 *
 * Return: (@psn + @n) modulo 2^24.
 */
static inline u32 sroce_psn_add(u32 psn, u32 n)
{
	return (psn + n) & SROCE_PSN_MASK;
}

/**
 * sroce_psn_sub() - step a PSN backwards
 * @psn: starting PSN
 * @n: number of packets to step back by
 *
 * Return: (@psn - @n) modulo 2^24.
 */
static inline u32 sroce_psn_sub(u32 psn, u32 n)
{
	return (psn - n) & SROCE_PSN_MASK;
}

/**
 * sroce_psn_diff() - signed distance from one PSN to another
 * @a: PSN
 * @b: PSN
 *
 * Only the low 24 bits of either argument are used.
 *
 * Return: the d in [-2^23, 2^23) with @b + d == @a modulo 2^24; negative
 * when @a is before @b.
 */
static inline int sroce_psn_diff(u32 a, u32 b)
{
	u32 d = (a - b) & SROCE_PSN_MASK;

	return d & SROCE_PSN_HALF ? (int)d - (int)(SROCE_PSN_MASK + 1) : (int)d;
}

/**
 * sroce_psn_before() - test whether a PSN precedes another
 * @a: PSN
 * @b: PSN
 *
 * Return: true if @a comes strictly before @b on the 24-bit circle.
 */
static inline bool sroce_psn_before(u32 a, u32 b)
{
	return sroce_psn_diff(a, b) < 0;
}

/**
 * sroce_psn_after() - test whether a PSN follows another
 * @a: PSN
 * @b: PSN
 *
 * Return: true if @a comes strictly after @b on the 24-bit circle.
 */
static inline bool sroce_psn_after(u32 a, u32 b)
{
	return sroce_psn_diff(a, b) > 0;
}

/**
 * sroce_psn_before_eq() - test whether a PSN precedes or equals another
 * @a: PSN
 * @b: PSN
 *
 * Return: true if @a is @b or comes before it.
 */
static inline bool sroce_psn_before_eq(u32 a, u32 b)
{
	return sroce_psn_diff(a, b) <= 0;
}

/**
 * sroce_psn_after_eq() - test whether a PSN follows or equals another
 * @a: PSN
 * @b: PSN
 *
 * Return: true if @a is @b or comes after it.
 */
static inline bool sroce_psn_after_eq(u32 a, u32 b)
{
	return sroce_psn_diff(a, b) >= 0;
}

/**
 * sroce_psn_in_window() - test whether a PSN lies in a window
 * @psn: PSN to test
 * @start: first PSN of the window
 * @len: number of PSNs in the window (0 .. 2^24)
 *
 * Unlike the comparisons above this is exact for any window size: the
 * window is the @len consecutive PSNs from @start, wrapping at 2^24.
 *
 * Return: true if @psn is one of @start .. @start + @len - 1.
 */
static inline bool sroce_psn_in_window(u32 psn, u32 start, u32 len)
{
	return ((psn - start) & SROCE_PSN_MASK) < len;
}

/**
 * sroce_psn_in_range() - test whether a PSN lies between two others
 * @psn: PSN to test
 * @first: first PSN of the range
 * @last: last PSN of the range, inclusive (may have wrapped past 0)
 *
 * Return: true if @psn is one of @first .. @last going forward from
 * @first.
 */
static inline bool sroce_psn_in_range(u32 psn, u32 first, u32 last)
{
	return ((psn - first) & SROCE_PSN_MASK) <=
	       ((last - first) & SROCE_PSN_MASK);
}

#endif /* SROCE_PSN_H */
