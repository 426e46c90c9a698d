// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Userspace stand-in for the kernel's crc32_le(): reflected CRC-32 with
 * the Ethernet polynomial, no inversion on entry or exit, so that
 * zlib's crc32(0, p, n) == ~sroce_crc32_le(~0, p, n). Byte-at-a-time
 * with a table built on first use, folded from SROCE_CRC32_FOLD_MIN bytes
 * on as the module folds.
 */
#include "lib/roce_hdr.h"
#include "unit.h"

#define CRC32_POLY_REFLECTED	0xedb88320U

static u32 crc32_table[256];
static bool crc32_table_ready;

static void crc32_build_table(void)
{
	unsigned int i, bit;

	for (i = 0; i < 256; i++) {
		u32 c = i;

		for (bit = 0; bit < 8; bit++)
			c = c & 1 ? (c >> 1) ^ CRC32_POLY_REFLECTED : c >> 1;
		crc32_table[i] = c;
	}
	crc32_table_ready = true;
}

/* Byte at a time: the reference sroce_crc32_fold() is tested against. */
u32 crc32_host_bytewise(u32 crc, const u8 *p, size_t len)
{
	if (!crc32_table_ready)
		crc32_build_table();
	while (len--)
		crc = (crc >> 8) ^ crc32_table[(crc ^ *p++) & 0xff];
	return crc;
}

/*
 * As the module's on a kernel whose crc32_le() has no accelerated form:
 * long inputs are folded, so every ICRC test and fuzz input runs the fold.
 */
u32 sroce_crc32_le(u32 crc, const u8 *p, size_t len)
{
	if (len >= SROCE_CRC32_FOLD_MIN)
		return sroce_crc32_fold(crc, p, len);
	return crc32_host_bytewise(crc, p, len);
}
