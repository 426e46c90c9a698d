// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * crc-tcg: what a CRC-32 (the RoCE ICRC's polynomial) costs per byte next
 * to memcpy, on the CPU this runs on. Run inside a QEMU TCG guest with
 * and without `sroce-vm --cpu max` to see whether the CPU model's
 * PCLMULQDQ makes the kernel's accelerated CRC worth having under
 * emulation (Documentation/benchmarks.md, "CRC under TCG").
 *
 *   cc -O2 -Iinclude -Idrivers -Itools/unit -o build/crc-tcg \
 *	tools/bench/crc-tcg.c drivers/lib/icrc.c tools/unit/crc32_host.c
 *   tools/vm/sroce-vm -k KVER --no-load [--cpu max] -- build/crc-tcg [MiB]
 *
 * slice-by-8 is the table method of 6.1's generic crc32_le(), bytewise
 * that of newer kernels' generic code; fold is sroce's own
 * (sroce_crc32_fold(), the module's code, on 1 KiB packets); pclmul does
 * the work of a 4-lane carry-less-multiply fold (8 multiplies per 64
 * bytes, as the accelerated CRC code does) without the final reduction: a
 * cost, not a CRC.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <immintrin.h>

#include "lib/roce_hdr.h"

#define POLY	0xedb88320u

static uint32_t table[8][256];

static void tables_init(void)
{
	for (unsigned int i = 0; i < 256; i++) {
		uint32_t c = i;

		for (int k = 0; k < 8; k++)
			c = c & 1 ? (c >> 1) ^ POLY : c >> 1;
		table[0][i] = c;
	}
	for (unsigned int i = 0; i < 256; i++)
		for (int t = 1; t < 8; t++)
			table[t][i] = (table[t - 1][i] >> 8) ^
				      table[0][table[t - 1][i] & 0xff];
}

static uint32_t crc_bytewise(uint32_t c, const uint8_t *p, size_t n)
{
	while (n--)
		c = (c >> 8) ^ table[0][(c ^ *p++) & 0xff];
	return c;
}

static uint32_t crc_slice8(uint32_t c, const uint8_t *p, size_t n)
{
	for (; n >= 8; p += 8, n -= 8) {
		uint32_t a, b;

		memcpy(&a, p, 4);
		memcpy(&b, p + 4, 4);
		a ^= c;
		c = table[7][a & 0xff] ^ table[6][(a >> 8) & 0xff] ^
		    table[5][(a >> 16) & 0xff] ^ table[4][a >> 24] ^
		    table[3][b & 0xff] ^ table[2][(b >> 8) & 0xff] ^
		    table[1][(b >> 16) & 0xff] ^ table[0][b >> 24];
	}
	return crc_bytewise(c, p, n);
}

__attribute__((target("pclmul,sse4.1")))
static __m128i fold_lane(__m128i x, __m128i k, const uint8_t *p)
{
	__m128i lo = _mm_clmulepi64_si128(x, k, 0x00);
	__m128i hi = _mm_clmulepi64_si128(x, k, 0x11);

	return _mm_xor_si128(_mm_xor_si128(lo, hi),
			     _mm_loadu_si128((const void *)p));
}

__attribute__((target("pclmul,sse4.1")))
static uint32_t fold_cost(const uint8_t *p, size_t n)
{
	/* Any constant: the cost is the same. */
	__m128i k = _mm_set_epi64x(0x1d9513d7ull, 0x8f352d95ull);
	__m128i x0 = _mm_loadu_si128((const void *)p), x1 = x0, x2 = x0,
		x3 = x0;

	for (size_t i = 64; i + 64 <= n; i += 64) {
		x0 = fold_lane(x0, k, p + i);
		x1 = fold_lane(x1, k, p + i + 16);
		x2 = fold_lane(x2, k, p + i + 32);
		x3 = fold_lane(x3, k, p + i + 48);
	}
	x0 = _mm_xor_si128(_mm_xor_si128(x0, x1), _mm_xor_si128(x2, x3));
	return _mm_extract_epi32(x0, 0);
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	const size_t len = 1 << 16;
	size_t total = (size_t)(argc > 1 ? atoi(argv[1]) : 16) << 20;
	uint8_t *a = malloc(len), *b = malloc(len);
	volatile uint32_t sink = 0;
	double t;

	if (!a || !b || !total)
		return 2;
	tables_init();
	for (size_t i = 0; i < len; i++)
		a[i] = i * 7;
	if (crc_slice8(~0u, (const uint8_t *)"123456789", 9) != ~0xcbf43926u)
		return 3;

	printf("%-12s %10s\n", "method", "MB/s");
	t = now();
	for (size_t d = 0; d < total; d += len) {
		memcpy(b, a, len);
		sink += b[(d >> 16) % len];
	}
	printf("%-12s %10.1f\n", "memcpy", total / (now() - t) / 1e6);
	t = now();
	for (size_t d = 0; d < total; d += len)
		sink += crc_slice8(~0u, a, len);
	printf("%-12s %10.1f\n", "slice-by-8", total / (now() - t) / 1e6);
	if (sroce_crc32_fold(~0u, a, 1024) != crc_slice8(~0u, a, 1024))
		return 4;
	t = now();
	for (size_t d = 0; d < total; d += 1024)
		sink += sroce_crc32_fold(~0u, a + (d & (len - 1)), 1024);
	printf("%-12s %10.1f\n", "fold", total / (now() - t) / 1e6);
	t = now();
	for (size_t d = 0; d < total / 4; d += len)
		sink += crc_bytewise(~0u, a, len);
	printf("%-12s %10.1f\n", "bytewise", total / 4 / (now() - t) / 1e6);
	if (__builtin_cpu_supports("pclmul")) {
		t = now();
		for (size_t d = 0; d < total; d += len)
			sink += fold_cost(a, len);
		printf("%-12s %10.1f\n", "pclmul-fold",
		       total / (now() - t) / 1e6);
	} else {
		printf("%-12s %10s\n", "pclmul-fold", "no PCLMULQDQ");
	}
	free(a);
	free(b);
	return sink == 0x5a5a5a5a;
}
