// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Unit tests of drivers/lib/addr.c. */
#include "lib/sroce_lib.h"
#include "unit.h"

static void test_ib_mtu_bytes(void)
{
	CHECK_EQ(sroce_ib_mtu_bytes(0), 0);
	CHECK_EQ(sroce_ib_mtu_bytes(1), 256);
	CHECK_EQ(sroce_ib_mtu_bytes(2), 512);
	CHECK_EQ(sroce_ib_mtu_bytes(3), 1024);
	CHECK_EQ(sroce_ib_mtu_bytes(4), 2048);
	CHECK_EQ(sroce_ib_mtu_bytes(5), 4096);
	CHECK_EQ(sroce_ib_mtu_bytes(6), 0);
}

static void test_active_mtu(void)
{
	/* The usual cases users see in ibv_devinfo. */
	CHECK_EQ(sroce_active_ib_mtu(1500), 3);		/* 1024 */
	CHECK_EQ(sroce_active_ib_mtu(9000), 5);		/* 4096 */
	CHECK_EQ(sroce_active_ib_mtu(4200), 5);
	CHECK_EQ(sroce_active_ib_mtu(2200), 4);		/* 2048 */
	/* Boundaries: payload + worst-case headers must fit exactly. */
	CHECK_EQ(sroce_active_ib_mtu(4096 + SROCE_ROCE_MAX_OVERHEAD), 5);
	CHECK_EQ(sroce_active_ib_mtu(4096 + SROCE_ROCE_MAX_OVERHEAD - 1), 4);
	CHECK_EQ(sroce_active_ib_mtu(256 + SROCE_ROCE_MAX_OVERHEAD), 1);
	CHECK_EQ(sroce_active_ib_mtu(256 + SROCE_ROCE_MAX_OVERHEAD - 1), 0);
	CHECK_EQ(sroce_active_ib_mtu(68), 0);
	CHECK_EQ(sroce_active_ib_mtu(0), 0);
	CHECK_EQ(sroce_active_ib_mtu(65535), 5);
}

static void test_active_mtu_is_monotonic(void)
{
	unsigned int mtu, prev = 0;

	for (mtu = 0; mtu <= 70000; mtu++) {
		unsigned int code = sroce_active_ib_mtu(mtu);

		CHECK(code >= prev);
		CHECK(!code || sroce_ib_mtu_bytes(code) +
			       SROCE_ROCE_MAX_OVERHEAD <= mtu);
		prev = code;
	}
}

static void test_eth_speed_to_ib(void)
{
	u16 speed;
	u8 width;

	sroce_eth_speed_to_ib(0, &speed, &width);
	CHECK_EQ(speed, SROCE_IB_SPEED_SDR);
	CHECK_EQ(width, SROCE_IB_WIDTH_1X);
	sroce_eth_speed_to_ib(1000, &speed, &width);
	CHECK_EQ(speed, SROCE_IB_SPEED_SDR);
	sroce_eth_speed_to_ib(10000, &speed, &width);	/* veth */
	CHECK_EQ(speed, SROCE_IB_SPEED_FDR10);
	CHECK_EQ(width, SROCE_IB_WIDTH_1X);
	sroce_eth_speed_to_ib(25000, &speed, &width);
	CHECK_EQ(speed, SROCE_IB_SPEED_EDR);
	CHECK_EQ(width, SROCE_IB_WIDTH_1X);
	sroce_eth_speed_to_ib(100000, &speed, &width);
	CHECK_EQ(speed, SROCE_IB_SPEED_EDR);
	CHECK_EQ(width, SROCE_IB_WIDTH_4X);
	sroce_eth_speed_to_ib(400000, &speed, &width);
	CHECK_EQ(speed, SROCE_IB_SPEED_NDR);
	CHECK_EQ(width, SROCE_IB_WIDTH_4X);
	sroce_eth_speed_to_ib(0xffffffffu, &speed, &width);
	CHECK_EQ(speed, SROCE_IB_SPEED_NDR);
}

static void test_guid_from_mac(void)
{
	const u8 mac[6] = { 0x02, 0x11, 0x22, 0x33, 0x44, 0x55 };
	const u8 want[8] = { 0x00, 0x11, 0x22, 0xff, 0xfe, 0x33, 0x44, 0x55 };
	const u8 mac2[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };
	const u8 want2[8] = { 0x50, 0x54, 0x00, 0xff, 0xfe, 0x12, 0x34, 0x56 };
	u8 guid[8];

	sroce_guid_from_mac(mac, guid);
	CHECK(!memcmp(guid, want, sizeof(want)));
	sroce_guid_from_mac(mac2, guid);
	CHECK(!memcmp(guid, want2, sizeof(want2)));
}

static void test_gid_classes(void)
{
	u8 zero[16] = { 0 };
	u8 v4[16] = { [10] = 0xff, [11] = 0xff, 10, 0, 0, 1 };
	u8 ll[16] = { 0xfe, 0x80, [8] = 0x02, [15] = 0x01 };
	u8 mc[16] = { 0xff, 0x02, [15] = 0x01 };
	u8 almost_v4[16] = { [10] = 0xff, [11] = 0xfe, 10, 0, 0, 1 };

	CHECK(sroce_gid_is_zero(zero));
	CHECK(!sroce_gid_is_zero(v4));
	CHECK(sroce_gid_is_v4mapped(v4));
	CHECK(!sroce_gid_is_v4mapped(ll));
	CHECK(!sroce_gid_is_v4mapped(almost_v4));
	CHECK(!sroce_gid_is_v4mapped(zero));
	CHECK(sroce_gid_is_multicast(mc));
	CHECK(!sroce_gid_is_multicast(ll));
	CHECK(!sroce_gid_is_multicast(v4));
}

static void test_range_within(void)
{
	const u64 max = ~0ULL;

	CHECK(sroce_range_within(0x1000, 0x100, 0x1000, 0x100));
	CHECK(sroce_range_within(0x1000, 0x100, 0x10ff, 1));
	CHECK(sroce_range_within(0x1000, 0x100, 0x1080, 0));
	CHECK(!sroce_range_within(0x1000, 0x100, 0x10ff, 2));
	CHECK(!sroce_range_within(0x1000, 0x100, 0xfff, 1));
	CHECK(!sroce_range_within(0x1000, 0x100, 0x1000, 0x101));
	/* Sums that would wrap around 2^64 must not sneak through. */
	CHECK(!sroce_range_within(0x1000, 0x100, max, 2));
	CHECK(!sroce_range_within(0x1000, 0x100, 0x1001, max));
	CHECK(!sroce_range_within(max - 10, 5, max - 8, 10));
	CHECK(sroce_range_within(0, max, 0, max));
	CHECK(sroce_range_within(0, max, max - 1, 1));
	CHECK(!sroce_range_within(1, max - 1, 0, 1));
}

const struct unit_test addr_tests[] = {
	{ "addr/range_within", test_range_within },
	{ "addr/ib_mtu_bytes", test_ib_mtu_bytes },
	{ "addr/active_mtu", test_active_mtu },
	{ "addr/active_mtu_monotonic", test_active_mtu_is_monotonic },
	{ "addr/eth_speed_to_ib", test_eth_speed_to_ib },
	{ "addr/guid_from_mac", test_guid_from_mac },
	{ "addr/gid_classes", test_gid_classes },
	{ NULL, NULL },
};
