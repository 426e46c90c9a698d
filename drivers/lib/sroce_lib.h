/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Plain-C cores of sroce: code with no kernel dependency that is compiled
 * both into sroce.ko and into the userspace unit tests and fuzzers. The
 * only thing that differs between the two builds is this prologue.
 */
#ifndef SROCE_LIB_H
#define SROCE_LIB_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/kernel.h>
#include <linux/errno.h>
#include <linux/string.h>
#include <asm/byteorder.h>
#else
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <endian.h>
#include <linux/types.h>

typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#define cpu_to_le16(x) ((__le16)htole16(x))
#define cpu_to_le32(x) ((__le32)htole32(x))
#define cpu_to_le64(x) ((__le64)htole64(x))
#define le16_to_cpu(x) le16toh((__u16)(x))
#define le32_to_cpu(x) le32toh((__u32)(x))
#define le64_to_cpu(x) le64toh((__u64)(x))
#ifndef EOPNOTSUPP
#define EOPNOTSUPP ENOTSUP
#endif
#endif

#include "sroce/fw_abi.h"

/* --- Command codec (cmd_codec.c) ------------------------------------- */

int sroce_fw_status_to_errno(unsigned int status);
unsigned int sroce_cmd_index(unsigned int opcode);
const char *sroce_cmd_name(unsigned int index);
unsigned int sroce_cmd_opcode(unsigned int index);
unsigned int sroce_cmd_req_len(unsigned int index);
unsigned int sroce_cmd_resp_len(unsigned int index);
int sroce_cmd_encode(struct sroce_cmd_entry *entry, unsigned int opcode,
		     u16 cmd_id, const void *req, unsigned int req_len);
int sroce_cmd_decode(const struct sroce_cmd_entry *entry,
		     unsigned int *index, u16 *cmd_id);

/**
 * sroce_ring_phase() - phase bit a producer writes for a ring position
 * @pos: free-running producer position
 * @log2_depth: log2 of the number of slots
 *
 * Slots start zeroed, so the first pass writes phase 1 and each wrap
 * flips it; a consumer at the same position expects the same value.
 *
 * Return: 0 or 1.
 */
static inline unsigned int sroce_ring_phase(u32 pos, unsigned int log2_depth)
{
	return ((pos >> log2_depth) & 1) ^ 1;
}

/* --- Addressing (addr.c) --------------------------------------------- */

/* IB MTU codes (enum ib_mtu) and link speed/width codes (enum ib_port_speed,
 * enum ib_port_width), checked against the kernel's values in the driver.
 */
#define SROCE_IB_MTU_256		1
#define SROCE_IB_MTU_4096		5

#define SROCE_IB_SPEED_SDR		1
#define SROCE_IB_SPEED_DDR		2
#define SROCE_IB_SPEED_QDR		4
#define SROCE_IB_SPEED_FDR10		8
#define SROCE_IB_SPEED_EDR		32
#define SROCE_IB_SPEED_HDR		64
#define SROCE_IB_SPEED_NDR		128
#define SROCE_IB_WIDTH_1X		1
#define SROCE_IB_WIDTH_4X		2

/*
 * Largest RoCE overhead inside the netdev MTU for a packet that carries a
 * full path-MTU payload: IPv6 (40) + UDP (8) + BTH (12) + RETH with ImmDt
 * (20) + ICRC (4). RoCE v1 (GRH 40, no UDP) needs less.
 */
#define SROCE_ROCE_MAX_OVERHEAD		84

unsigned int sroce_ib_mtu_bytes(unsigned int ib_mtu);
unsigned int sroce_active_ib_mtu(unsigned int netdev_mtu);
void sroce_eth_speed_to_ib(u32 mbps, u16 *ib_speed, u8 *ib_width);
void sroce_guid_from_mac(const u8 mac[6], u8 guid[8]);
bool sroce_gid_is_zero(const u8 gid[SROCE_GID_LEN]);
bool sroce_gid_is_v4mapped(const u8 gid[SROCE_GID_LEN]);
bool sroce_gid_is_multicast(const u8 gid[SROCE_GID_LEN]);
bool sroce_range_within(u64 base, u64 size, u64 addr, u64 len);

#endif /* SROCE_LIB_H */
