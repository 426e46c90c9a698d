// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Unit tests of drivers/lib/pfc.c: pause frames, pause times, buffers. */
#include "lib/pfc.h"
#include "unit.h"

static const u8 port_mac[SROCE_ETH_ALEN] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x07 };

static void test_pfc_build(void)
{
	/* XOFF for priority 3 (0xffff), a stray time for 5 (not enabled). */
	const u16 quanta[8] = { 0, 0, 0, 0xffff, 0, 0x1234, 0, 0 };
	static const u8 want[SROCE_PAUSE_FRAME_LEN] = {
		0x01, 0x80, 0xc2, 0x00, 0x00, 0x01,	/* MAC Control address */
		0x02, 0x00, 0x00, 0x00, 0x00, 0x07,	/* the port */
		0x88, 0x08,				/* MAC Control */
		0x01, 0x01,				/* PFC */
		0x00, 0x08,				/* priority 3 */
		0, 0, 0, 0, 0, 0, 0xff, 0xff,		/* times 0-3 */
		0, 0, 0, 0, 0, 0, 0, 0,			/* 4-7: 5 not sent */
	};							/* then padding */
	u8 frame[64];

	memset(frame, 0xaa, sizeof(frame));
	CHECK_EQ(sroce_pfc_build(frame, sizeof(frame), port_mac, 0x08, quanta),
		 SROCE_PAUSE_FRAME_LEN);
	CHECK(!memcmp(frame, want, sizeof(want)));
	CHECK_EQ(frame[60], 0xaa);			/* nothing past 60 */
	CHECK_EQ(sroce_pfc_build(frame, 59, port_mac, 0x08, quanta), -EINVAL);
}

static void test_pfc_parse_roundtrip(void)
{
	const u16 quanta[8] = { 1, 2, 3, 4, 5, 6, 7, 0xffff };
	struct sroce_pause p;
	u8 frame[SROCE_PAUSE_FRAME_LEN];
	unsigned int prio;

	sroce_pfc_build(frame, sizeof(frame), port_mac, 0xa5, quanta);
	CHECK_EQ(sroce_pause_parse(frame + SROCE_ETH_HLEN,
				   sizeof(frame) - SROCE_ETH_HLEN, &p), 0);
	CHECK(!p.global);
	CHECK_EQ(p.enable, 0xa5);
	for (prio = 0; prio < 8; prio++)
		CHECK_EQ(p.quanta[prio], (0xa5 & (1U << prio)) ? quanta[prio] : 0);
	/* The vector's reserved upper octet is ignored. */
	frame[SROCE_ETH_HLEN + 2] = 0xff;
	CHECK_EQ(sroce_pause_parse(frame + SROCE_ETH_HLEN, SROCE_PFC_BODY_LEN,
				   &p), 0);
	CHECK_EQ(p.enable, 0xa5);
	CHECK_EQ(p.quanta[7], 0xffff);		/* the last time, bytes 18-19 */
}

static void test_pause_parse_bounds(void)
{
	static const u8 pause[4] = { 0x00, 0x01, 0x01, 0x00 };
	/* Opcode, vector, seven and a half times: one byte short. */
	static const u8 pfc_short[SROCE_PFC_BODY_LEN - 1] = { 0x01, 0x01, 0x00, 0x80 };
	static const u8 other[4] = { 0x00, 0x02 };	/* not a pause */
	struct sroce_pause p;
	unsigned int prio;

	CHECK_EQ(sroce_pause_parse(pause, sizeof(pause), &p), 0);
	CHECK(p.global);
	CHECK_EQ(p.enable, 0xff);
	for (prio = 0; prio < 8; prio++)
		CHECK_EQ(p.quanta[prio], 256);
	CHECK_EQ(sroce_pause_parse(pause, 3, &p), -EINVAL);
	CHECK_EQ(sroce_pause_parse(pause, 1, &p), -EINVAL);
	CHECK_EQ(sroce_pause_parse(pause, 0, &p), -EINVAL);
	CHECK_EQ(sroce_pause_parse(pfc_short, sizeof(pfc_short), &p), -EINVAL);
	CHECK_EQ(sroce_pause_parse(other, sizeof(other), &p), -EOPNOTSUPP);
}

static void test_pause_dest(void)
{
	static const u8 other[SROCE_ETH_ALEN] = { 0x02, 0, 0, 0, 0, 0x08 };
	static const u8 lldp[SROCE_ETH_ALEN] = { 0x01, 0x80, 0xc2, 0, 0, 0x0e };

	CHECK(sroce_pause_dest_ok(sroce_pause_dest, port_mac));
	CHECK(sroce_pause_dest_ok(port_mac, port_mac));
	CHECK(!sroce_pause_dest_ok(other, port_mac));
	CHECK(!sroce_pause_dest_ok(lldp, port_mac));
}

static void test_pause_quanta_ns(void)
{
	/* One quantum: 51.2 ns at 10G, 5.12 ns at 100G (rounded up). */
	CHECK_EQ(sroce_pause_quanta_ns(1, 10000), 52);
	CHECK_EQ(sroce_pause_quanta_ns(10, 10000), 512);
	CHECK_EQ(sroce_pause_quanta_ns(100, 100000), 512);
	/* The longest: 65535 x 51.2 ns = 3355392 ns at 10G. */
	CHECK_EQ(sroce_pause_quanta_ns(0xffff, 10000), 3355392);
	CHECK_EQ(sroce_pause_quanta_ns(0, 10000), 0);
	/* Unknown or too slow a speed counts as 10 Mbit/s. */
	CHECK_EQ(sroce_pause_quanta_ns(0xffff, 0), 3355392000ULL);
	CHECK_EQ(sroce_pause_quanta_ns(1, 1), 51200);
	CHECK_EQ(sroce_pfc_refresh_interval_ns(10000), 1677696);
}

static void test_pfc_headroom(void)
{
	/* 7 m, 100G, MTU 1500: (301 + 15.12) x 100 + 4080 = 35692. */
	CHECK_EQ(sroce_pfc_headroom(7, 100000, 1500), 35692);
	/* 10G counts as 40G: (301 + 15.12) x 40 + 4080 = 16724.8 -> 16725. */
	CHECK_EQ(sroce_pfc_headroom(7, 10000, 1500), 16725);
	/* No cable, MTU 9000, 40G: 12040 + 24480. */
	CHECK_EQ(sroce_pfc_headroom(0, 40000, 9000), 36520);
	/* Absurd inputs saturate rather than wrap. */
	CHECK_EQ(sroce_pfc_headroom(~0U, ~0U, ~0U), ~0U);
}

static void test_pfc_buf_init(void)
{
	struct sroce_pfc_buf b;

	CHECK_EQ(sroce_pfc_buf_init(&b, 262144, true, 7, 10000, 1500), 0);
	CHECK_EQ(b.xoff, 262144 - 16725);
	CHECK_EQ(b.xon, 262144 - 16725 - 1500);
	CHECK_EQ(b.used, 0);
	CHECK(!b.paused);
	/* Lossy: no thresholds, any size. */
	CHECK_EQ(sroce_pfc_buf_init(&b, 100, false, 7, 10000, 1500), 0);
	CHECK_EQ(b.xoff, 0);
	CHECK_EQ(b.xon, 0);
	/* Lossless needs more than headroom + MTU. */
	CHECK_EQ(sroce_pfc_buf_init(&b, 16725 + 1500, true, 7, 10000, 1500),
		 -EINVAL);
	CHECK_EQ(sroce_pfc_buf_init(&b, 16725 + 1501, true, 7, 10000, 1500), 0);
	CHECK_EQ(b.xon, 1);
	CHECK_EQ(sroce_pfc_buf_init(&b, 1000, true, 7, 10000, 1500), -EINVAL);
}

static void test_pfc_buf_cycle(void)
{
	enum sroce_pfc_action a;
	struct sroce_pfc_buf b;
	u64 t = 1000000;

	/* size 40000 at 10G, 7 m, MTU 1000: headroom 15365, xoff 24635, xon 23635 */
	CHECK_EQ(sroce_pfc_buf_init(&b, 40000, true, 7, 10000, 1000), 0);
	CHECK_EQ(b.xoff, 24635);
	CHECK_EQ(b.xon, 23635);
	/* 24 packets of 1000: below xoff. */
	for (int i = 0; i < 24; i++) {
		CHECK(sroce_pfc_buf_admit(&b, 1000, t, 10000, &a));
		CHECK_EQ(a, SROCE_PFC_NONE);
	}
	/* The 25th crosses xoff: XOFF once. */
	CHECK(sroce_pfc_buf_admit(&b, 1000, t, 10000, &a));
	CHECK_EQ(a, SROCE_PFC_SEND_XOFF);
	CHECK(b.paused);
	CHECK_EQ(b.refresh_ns, t + 1677696);
	CHECK(sroce_pfc_buf_admit(&b, 1000, t, 10000, &a));
	CHECK_EQ(a, SROCE_PFC_NONE);
	/* The headroom fills; then a packet that does not fit is dropped. */
	for (int i = 0; i < 14; i++)
		CHECK(sroce_pfc_buf_admit(&b, 1000, t, 10000, &a));
	CHECK_EQ(b.used, 40000);
	CHECK(!sroce_pfc_buf_admit(&b, 1, t, 10000, &a));
	CHECK_EQ(b.used, 40000);
	/* Refreshed when due, not before. */
	CHECK_EQ(sroce_pfc_buf_tick(&b, t + 1677695, 10000), SROCE_PFC_NONE);
	CHECK_EQ(sroce_pfc_buf_tick(&b, t + 1677696, 10000), SROCE_PFC_SEND_XOFF);
	CHECK_EQ(b.refresh_ns, t + 2 * 1677696);
	/* Draining: still paused at xon, XON just below it, once. */
	CHECK_EQ(sroce_pfc_buf_release(&b, 40000 - 23635), SROCE_PFC_NONE);
	CHECK_EQ(b.used, 23635);
	CHECK_EQ(sroce_pfc_buf_release(&b, 1), SROCE_PFC_SEND_XON);
	CHECK(!b.paused);
	CHECK_EQ(sroce_pfc_buf_release(&b, 1000), SROCE_PFC_NONE);
	CHECK_EQ(sroce_pfc_buf_tick(&b, t + 10000000, 10000), SROCE_PFC_NONE);
	/* Releasing more than is held empties it. */
	CHECK_EQ(sroce_pfc_buf_release(&b, ~0U), SROCE_PFC_NONE);
	CHECK_EQ(b.used, 0);
	/* A lossy buffer drops when full and never asks. */
	sroce_pfc_buf_init(&b, 2000, false, 7, 10000, 1000);
	CHECK(sroce_pfc_buf_admit(&b, 2000, t, 10000, &a));
	CHECK_EQ(a, SROCE_PFC_NONE);
	CHECK(!sroce_pfc_buf_admit(&b, 1, t, 10000, &a));
	CHECK(!sroce_pfc_buf_admit(&b, ~0U, t, 10000, &a));
}

static void test_pfc_buf_shrunk(void)
{
	struct sroce_pfc_buf buf;
	enum sroce_pfc_action a;

	/* 64 KiB holding 100000 B after a resize: nothing fits. */
	CHECK_EQ(sroce_pfc_buf_init(&buf, 65536, false, 7, 10000, 1514), 0);
	buf.used = 100000;
	CHECK(!sroce_pfc_buf_admit(&buf, 1000, 0, 10000, &a));
	CHECK(!sroce_pfc_buf_admit(&buf, 0, 0, 10000, &a));
	CHECK_EQ(buf.used, 100000);
	sroce_pfc_buf_release(&buf, 40000);
	CHECK(sroce_pfc_buf_admit(&buf, 1000, 0, 10000, &a));
	CHECK_EQ(buf.used, 61000);
}

static void test_pfc_ecn_mark(void)
{
	/* kmin 1000, kmax 3000, 20 %: at 2000 half of it, 10 % = 100000 ppm. */
	CHECK(!sroce_pfc_ecn_mark(2000, 1000, 0, 20, 0));	/* off */
	CHECK(!sroce_pfc_ecn_mark(1000, 1000, 3000, 20, 0));	/* at kmin */
	CHECK(sroce_pfc_ecn_mark(2000, 1000, 3000, 20, 99999));
	CHECK(!sroce_pfc_ecn_mark(2000, 1000, 3000, 20, 100000));
	CHECK(!sroce_pfc_ecn_mark(2000, 1000, 3000, 20, 1100000)); /* mod 1e6 */
	CHECK(sroce_pfc_ecn_mark(2999, 1000, 3000, 100, 999000));
	CHECK(sroce_pfc_ecn_mark(3000, 1000, 3000, 0, 0xffffffff)); /* at kmax */
	CHECK(sroce_pfc_ecn_mark(5, 7, 7, 1, 0xffffffff) == false);
	CHECK(sroce_pfc_ecn_mark(8, 7, 7, 1, 0xffffffff));	/* kmax <= kmin */
	/* No overflow at the extremes. */
	CHECK(!sroce_pfc_ecn_mark(0xfffffffe, 0, 0xffffffff, 100, 999999));
	CHECK(sroce_pfc_ecn_mark(0xfffffffe, 0, 0xffffffff, 100, 999998));
}

static void test_pfc_buf_prios(void)
{
	const u8 p2b[8] = { 0, 0, 0, 1, 1, 0, 2, 0 };

	CHECK_EQ(sroce_pfc_buf_prios(p2b, 0x08, 1), 0x08);
	CHECK_EQ(sroce_pfc_buf_prios(p2b, 0x18, 1), 0x18);
	CHECK_EQ(sroce_pfc_buf_prios(p2b, 0x18, 0), 0);
	CHECK_EQ(sroce_pfc_buf_prios(p2b, 0xff, 0), 0xa7);
	CHECK_EQ(sroce_pfc_buf_prios(p2b, 0xff, 7), 0);
}

const struct unit_test pfc_tests[] = {
	{ "pfc_build", test_pfc_build },
	{ "pfc_parse_roundtrip", test_pfc_parse_roundtrip },
	{ "pause_parse_bounds", test_pause_parse_bounds },
	{ "pause_dest", test_pause_dest },
	{ "pause_quanta_ns", test_pause_quanta_ns },
	{ "pfc_headroom", test_pfc_headroom },
	{ "pfc_buf_init", test_pfc_buf_init },
	{ "pfc_buf_cycle", test_pfc_buf_cycle },
	{ "pfc_buf_prios", test_pfc_buf_prios },
	{ "pfc_ecn_mark", test_pfc_ecn_mark },
	{ "pfc_buf_shrunk", test_pfc_buf_shrunk },
	{ NULL, NULL },
};
