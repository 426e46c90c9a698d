// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Addressing arithmetic shared by the driver and the firmware: MTU and
 * link-speed translation between Ethernet and IB terms, node GUID from the
 * MAC address, GID classification.
 */
#include "sroce_lib.h"

/**
 * sroce_ib_mtu_bytes() - size of an IB MTU code
 * @ib_mtu: SROCE_IB_MTU_256 .. SROCE_IB_MTU_4096
 *
 * Return: the MTU in bytes, 0 for an invalid code.
 */
unsigned int sroce_ib_mtu_bytes(unsigned int ib_mtu)
{
	if (ib_mtu < SROCE_IB_MTU_256 || ib_mtu > SROCE_IB_MTU_4096)
		return 0;
	return 128U << ib_mtu;
}

/**
 * sroce_active_ib_mtu() - largest IB MTU a netdev MTU can carry
 * @netdev_mtu: the Ethernet device's MTU (L3 payload size) in bytes
 *
 * A RoCE packet with a full path-MTU payload plus its worst-case headers
 * must fit in one frame.
 *
 * Return: an IB MTU code; 0 if even 256 bytes do not fit.
 */
unsigned int sroce_active_ib_mtu(unsigned int netdev_mtu)
{
	unsigned int mtu = SROCE_IB_MTU_4096;

	while (mtu >= SROCE_IB_MTU_256 &&
	       sroce_ib_mtu_bytes(mtu) + SROCE_ROCE_MAX_OVERHEAD > netdev_mtu)
		mtu--;
	return mtu >= SROCE_IB_MTU_256 ? mtu : 0;
}

/**
 * sroce_eth_speed_to_ib() - express an Ethernet link speed in IB terms
 * @mbps: link speed in Mb/s, 0 if unknown
 * @ib_speed: set to the per-lane IB speed code
 * @ib_width: set to the IB width code
 *
 * The pair is chosen so that lanes times lane rate is the closest IB rate
 * not above the Ethernet rate (unknown speeds report the slowest link).
 */
void sroce_eth_speed_to_ib(u32 mbps, u16 *ib_speed, u8 *ib_width)
{
	static const struct {
		u32 min_mbps;
		u16 speed;
		u8 width;
	} rates[] = {
		{ 400000, SROCE_IB_SPEED_NDR, SROCE_IB_WIDTH_4X },
		{ 200000, SROCE_IB_SPEED_HDR, SROCE_IB_WIDTH_4X },
		{ 100000, SROCE_IB_SPEED_EDR, SROCE_IB_WIDTH_4X },
		{ 50000, SROCE_IB_SPEED_HDR, SROCE_IB_WIDTH_1X },
		{ 40000, SROCE_IB_SPEED_FDR10, SROCE_IB_WIDTH_4X },
		{ 25000, SROCE_IB_SPEED_EDR, SROCE_IB_WIDTH_1X },
		{ 20000, SROCE_IB_SPEED_DDR, SROCE_IB_WIDTH_4X },
		{ 10000, SROCE_IB_SPEED_FDR10, SROCE_IB_WIDTH_1X },
		{ 5000, SROCE_IB_SPEED_DDR, SROCE_IB_WIDTH_1X },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(rates); i++) {
		if (mbps >= rates[i].min_mbps) {
			*ib_speed = rates[i].speed;
			*ib_width = rates[i].width;
			return;
		}
	}
	*ib_speed = SROCE_IB_SPEED_SDR;
	*ib_width = SROCE_IB_WIDTH_1X;
}

/**
 * sroce_guid_from_mac() - modified EUI-64 of a MAC address
 * @mac: 48-bit MAC address
 * @guid: set to the 64-bit identifier, in wire (big-endian) byte order
 *
 * FF:FE is inserted in the middle and the universal/local bit flipped, the
 * same identifier an IPv6 link-local address derived from @mac carries.
 */
void sroce_guid_from_mac(const u8 mac[6], u8 guid[8])
{
	guid[0] = mac[0] ^ 0x02;
	guid[1] = mac[1];
	guid[2] = mac[2];
	guid[3] = 0xff;
	guid[4] = 0xfe;
	guid[5] = mac[3];
	guid[6] = mac[4];
	guid[7] = mac[5];
}

/**
 * sroce_gid_is_zero() - test for the all-zero GID
 * @gid: 16-byte GID
 *
 * Return: true if every byte is zero.
 */
bool sroce_gid_is_zero(const u8 gid[SROCE_GID_LEN])
{
	unsigned int i;

	for (i = 0; i < SROCE_GID_LEN; i++)
		if (gid[i])
			return false;
	return true;
}

/**
 * sroce_gid_is_v4mapped() - test for an IPv4-mapped GID (::ffff:a.b.c.d)
 * @gid: 16-byte GID
 *
 * Return: true if a RoCE v2 packet for this GID is sent over IPv4.
 */
bool sroce_gid_is_v4mapped(const u8 gid[SROCE_GID_LEN])
{
	static const u8 prefix[12] = { [10] = 0xff, [11] = 0xff };

	return !memcmp(gid, prefix, sizeof(prefix));
}

/**
 * sroce_range_within() - whether [addr, addr + len) lies in [base, base + size)
 * @base: start of the region
 * @size: size of the region
 * @addr: start of the access
 * @len: size of the access
 *
 * Written so that no sum can wrap: lengths and addresses come from the
 * wire and from userspace.
 *
 * Return: true if the whole access is inside the region.
 */
bool sroce_range_within(u64 base, u64 size, u64 addr, u64 len)
{
	return addr >= base && len <= size && addr - base <= size - len;
}

/**
 * sroce_gid_is_multicast() - test for a multicast GID (ff00::/8)
 * @gid: 16-byte GID
 *
 * Return: true for multicast; such GIDs never belong in the GID table.
 */
bool sroce_gid_is_multicast(const u8 gid[SROCE_GID_LEN])
{
	return gid[0] == 0xff;
}
