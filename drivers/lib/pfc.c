// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * PFC and PAUSE frames and the receive buffer that asks for them
 * (pfc.h). Frame layout: IEEE 802.1Qbb and 802.3 Annex 31B (research
 * note 5.1); thresholds: ConnectX's headroom rule (note 5.2).
 */
#include "pfc.h"

/* 64-bit division: 32-bit kernels have no libgcc to do it for them. */
#ifdef __KERNEL__
#include <linux/math64.h>
#define pfc_div(a, b) div64_u64(a, b)
#else
#define pfc_div(a, b) ((a) / (b))
#endif

/* The MAC Control address, link-local: a bridge never forwards it. */
const u8 sroce_pause_dest[SROCE_ETH_ALEN] = {
	0x01, 0x80, 0xc2, 0x00, 0x00, 0x01
};

/* The slowest Ethernet: a lower or unknown speed counts as this. */
#define SROCE_PFC_MIN_SPEED_MBPS	10
/* ConnectX computes headroom as for at least a 40 Gbit/s port. */
#define SROCE_PFC_HEADROOM_MIN_GBPS	40

static void put_be16(u8 *p, u16 v)
{
	p[0] = v >> 8;
	p[1] = v & 0xff;
}

static u16 get_be16(const u8 *p)
{
	return (u16)(p[0] << 8 | p[1]);
}

static u32 pfc_speed(u32 speed_mbps)
{
	return speed_mbps < SROCE_PFC_MIN_SPEED_MBPS ? SROCE_PFC_MIN_SPEED_MBPS :
						       speed_mbps;
}

/**
 * sroce_pfc_build() - an 802.1Qbb frame
 * @frame: where it goes, the Ethernet header included, FCS excluded
 * @len: room at @frame, at least SROCE_PAUSE_FRAME_LEN
 * @src_mac: the port's address
 * @enable: bit N set: priority N's time is valid
 * @quanta: eight pause times; those of priorities not in @enable are
 *	sent as 0, as the standard asks
 *
 * Return: the frame's length (SROCE_PAUSE_FRAME_LEN), or -EINVAL if @len
 * is too small.
 */
int sroce_pfc_build(u8 *frame, size_t len, const u8 *src_mac, u8 enable,
		    const u16 *quanta)
{
	u8 *body = frame + SROCE_ETH_HLEN;
	unsigned int prio;

	if (len < SROCE_PAUSE_FRAME_LEN)
		return -EINVAL;
	memset(frame, 0, SROCE_PAUSE_FRAME_LEN);
	memcpy(frame, sroce_pause_dest, SROCE_ETH_ALEN);
	memcpy(frame + SROCE_ETH_ALEN, src_mac, SROCE_ETH_ALEN);
	put_be16(frame + 2 * SROCE_ETH_ALEN, SROCE_MAC_CONTROL_TYPE);
	put_be16(body, SROCE_PFC_OPCODE);
	put_be16(body + 2, enable);
	for (prio = 0; prio < SROCE_PFC_NUM_PRIO; prio++)
		if (enable & (1U << prio))
			put_be16(body + 4 + 2 * prio, quanta[prio]);
	return SROCE_PAUSE_FRAME_LEN;
}

/**
 * sroce_pause_parse() - read a received MAC Control frame
 * @body: its bytes after the ethertype (opcode first)
 * @len: how many there are
 * @pause: what it asks, on success
 *
 * The upper octet of the class-enable vector is reserved and ignored; so
 * are the times of priorities the vector does not enable.
 *
 * Return: 0 for a PFC or PAUSE frame; -EINVAL if it is too short for its
 * opcode; -EOPNOTSUPP for another MAC Control opcode.
 */
int sroce_pause_parse(const u8 *body, size_t len, struct sroce_pause *pause)
{
	unsigned int prio;
	u16 opcode;

	if (len < 2)
		return -EINVAL;
	opcode = get_be16(body);
	memset(pause, 0, sizeof(*pause));
	switch (opcode) {
	case SROCE_PAUSE_OPCODE:
		if (len < SROCE_PAUSE_BODY_LEN)
			return -EINVAL;
		pause->global = true;
		pause->enable = 0xff;
		for (prio = 0; prio < SROCE_PFC_NUM_PRIO; prio++)
			pause->quanta[prio] = get_be16(body + 2);
		return 0;
	case SROCE_PFC_OPCODE:
		if (len < SROCE_PFC_BODY_LEN)
			return -EINVAL;
		pause->enable = body[3];
		for (prio = 0; prio < SROCE_PFC_NUM_PRIO; prio++)
			if (pause->enable & (1U << prio))
				pause->quanta[prio] =
					get_be16(body + 4 + 2 * prio);
		return 0;
	default:
		return -EOPNOTSUPP;
	}
}

/**
 * sroce_pause_dest_ok() - whether a pause frame is addressed to a port
 * @dst_mac: its destination
 * @port_mac: the port's address
 *
 * Return: true for the MAC Control address or the port's own (802.3
 * allows a PAUSE to either).
 */
bool sroce_pause_dest_ok(const u8 *dst_mac, const u8 *port_mac)
{
	return !memcmp(dst_mac, sroce_pause_dest, SROCE_ETH_ALEN) ||
	       !memcmp(dst_mac, port_mac, SROCE_ETH_ALEN);
}

/**
 * sroce_pause_quanta_ns() - how long a pause time lasts
 * @quanta: the time, in quanta of 512 bit times
 * @speed_mbps: the link's speed (below 10 Mbit/s or unknown: 10)
 *
 * Return: nanoseconds, rounded up; at most 65535 quanta at 10 Mbit/s,
 * 3.36 s.
 */
u64 sroce_pause_quanta_ns(u32 quanta, u32 speed_mbps)
{
	u64 bits = (u64)quanta * SROCE_PAUSE_QUANTUM_BITS;
	u32 speed = pfc_speed(speed_mbps);

	/* bits / (Mbit/s) is microseconds: times 1000 for nanoseconds. */
	return pfc_div(bits * 1000 + speed - 1, speed);
}

/**
 * sroce_pfc_headroom() - bytes a lossless buffer keeps above xoff
 * @cable_len_m: the cable's length (mlnx_qos --cable_len)
 * @speed_mbps: the port's speed
 * @mtu: the largest frame
 *
 * What arrives after the port asked for a pause: the round trip on the
 * cable at the port's rate, the partner's reaction time, and a frame in
 * flight at each end. ConnectX's rule, with its speed counted as at
 * least 40 Gbit/s: (301 + 2.16 x cable metres) x Gbit/s + 2.72 x MTU.
 *
 * Return: bytes, rounded up.
 */
u32 sroce_pfc_headroom(u32 cable_len_m, u32 speed_mbps, u32 mtu)
{
	u64 gbps = pfc_speed(speed_mbps) / 1000;
	u64 hundredths;

	if (gbps < SROCE_PFC_HEADROOM_MIN_GBPS)
		gbps = SROCE_PFC_HEADROOM_MIN_GBPS;
	hundredths = (30100 + 216 * (u64)cable_len_m) * gbps + 272 * (u64)mtu;
	hundredths = pfc_div(hundredths + 99, 100);
	return hundredths > (u32)~0U ? (u32)~0U : (u32)hundredths;
}

/**
 * sroce_pfc_buf_init() - an empty receive buffer and its thresholds
 * @buf: the buffer
 * @size: its bytes
 * @lossless: a PFC-enabled priority maps to it
 * @cable_len_m: for the headroom
 * @speed_mbps: for the headroom
 * @mtu: for the headroom and the gap between xoff and xon
 *
 * A lossless buffer asks for a pause at xoff = @size - headroom and
 * lifts it below xon = xoff - @mtu; a lossy one never asks.
 *
 * Return: 0, or -EINVAL if a lossless @size leaves no room for both
 * thresholds (it must exceed headroom + @mtu).
 */
int sroce_pfc_buf_init(struct sroce_pfc_buf *buf, u32 size, bool lossless,
		       u32 cable_len_m, u32 speed_mbps, u32 mtu)
{
	u32 headroom = sroce_pfc_headroom(cable_len_m, speed_mbps, mtu);

	memset(buf, 0, sizeof(*buf));
	buf->size = size;
	if (!lossless)
		return 0;
	if (size <= headroom || size - headroom <= mtu)
		return -EINVAL;
	buf->xoff = size - headroom;
	buf->xon = buf->xoff - mtu;
	return 0;
}

/**
 * sroce_pfc_refresh_interval_ns() - how often a pause is asked again
 * @speed_mbps: the link's speed
 *
 * Pauses ask for the longest time; asked again at half of it, the
 * partner never resumes while the buffer stays above xon.
 *
 * Return: nanoseconds.
 */
u64 sroce_pfc_refresh_interval_ns(u32 speed_mbps)
{
	return sroce_pause_quanta_ns(SROCE_PAUSE_QUANTA_MAX, speed_mbps) / 2;
}

/**
 * sroce_pfc_buf_admit() - a received packet asks for room
 * @buf: its priority's buffer
 * @bytes: its length
 * @now_ns: the time
 * @speed_mbps: the link's speed, for the refresh time
 * @action: set to what the port must send
 *
 * Return: true if the packet is held; false if it does not fit and is
 * dropped (rx_prioN_buf_discard), the buffer unchanged.
 */
bool sroce_pfc_buf_admit(struct sroce_pfc_buf *buf, u32 bytes, u64 now_ns,
			 u32 speed_mbps, enum sroce_pfc_action *action)
{
	*action = SROCE_PFC_NONE;
	/* A buffer made smaller than what it holds admits nothing. */
	if (buf->used > buf->size || bytes > buf->size - buf->used)
		return false;
	buf->used += bytes;
	if (buf->xoff && !buf->paused && buf->used >= buf->xoff) {
		buf->paused = true;
		buf->refresh_ns = now_ns + sroce_pfc_refresh_interval_ns(speed_mbps);
		*action = SROCE_PFC_SEND_XOFF;
	}
	return true;
}

/**
 * sroce_pfc_buf_release() - a held packet left the buffer
 * @buf: the buffer
 * @bytes: its length (more than is held counts as all of it)
 *
 * Return: SROCE_PFC_SEND_XON when the occupancy falls below xon while a
 * pause is asked, else SROCE_PFC_NONE.
 */
enum sroce_pfc_action sroce_pfc_buf_release(struct sroce_pfc_buf *buf,
					    u32 bytes)
{
	buf->used = bytes < buf->used ? buf->used - bytes : 0;
	if (buf->paused && buf->used < buf->xon) {
		buf->paused = false;
		return SROCE_PFC_SEND_XON;
	}
	return SROCE_PFC_NONE;
}

/**
 * sroce_pfc_buf_tick() - renew a pause that is due
 * @buf: the buffer
 * @now_ns: the time (monotonic nanoseconds, as every time here)
 * @speed_mbps: the link's speed
 *
 * Return: SROCE_PFC_SEND_XOFF if the pause asked must be asked again now,
 * else SROCE_PFC_NONE.
 */
enum sroce_pfc_action sroce_pfc_buf_tick(struct sroce_pfc_buf *buf,
					 u64 now_ns, u32 speed_mbps)
{
	if (!buf->paused || now_ns < buf->refresh_ns)
		return SROCE_PFC_NONE;
	buf->refresh_ns = now_ns + sroce_pfc_refresh_interval_ns(speed_mbps);
	return SROCE_PFC_SEND_XOFF;
}

/**
 * sroce_pfc_buf_prios() - the PFC-enabled priorities of one buffer
 * @prio2buffer: each priority's buffer (mlnx_qos --prio2buffer)
 * @pfc_enable: bit N set: PFC on priority N
 * @buf: the buffer
 *
 * Return: the class-enable vector a pause of @buf names.
 */
u8 sroce_pfc_buf_prios(const u8 *prio2buffer, u8 pfc_enable,
		       unsigned int buf)
{
	unsigned int prio;
	u8 vector = 0;

	for (prio = 0; prio < SROCE_PFC_NUM_PRIO; prio++)
		if ((pfc_enable & (1U << prio)) && prio2buffer[prio] == buf)
			vector |= 1U << prio;
	return vector;
}

/**
 * sroce_pfc_ecn_mark() - whether a packet arriving at a buffer is marked
 * CE, as a switch port's WRED/ECN profile marks
 * @used: bytes the buffer holds as it arrives
 * @kmin: no mark at or below this
 * @kmax: every packet marked from this on; 0: no marking at all
 * @pmax_pct: the probability just below @kmax, in percent (0..100)
 * @rnd: a uniformly random 32-bit number
 *
 * The probability grows linearly from 0 above @kmin to @pmax_pct at
 * @kmax, on the instantaneous occupancy (DCQCN's switches, and the HPCC
 * simulator's, mark that way).
 *
 * Return: true to mark.
 */
bool sroce_pfc_ecn_mark(u32 used, u32 kmin, u32 kmax, u32 pmax_pct, u32 rnd)
{
	u64 ppm;

	if (!kmax || used <= kmin)
		return false;
	if (used >= kmax || kmax <= kmin)
		return true;
	/* In millionths: (used - kmin) / (kmax - kmin) x pmax_pct %. */
	ppm = pfc_div((u64)(used - kmin) * pmax_pct * 10000, kmax - kmin);
	return rnd % 1000000 < ppm;
}
