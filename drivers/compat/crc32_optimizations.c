// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* crc32_optimizations() says whether crc32_le() is accelerated here. */
#include <linux/bits.h>
#include <linux/crc32.h>

u32 probe_crc32_le_optimized(void)
{
	return crc32_optimizations() & CRC32_LE_OPTIMIZATION;
}
