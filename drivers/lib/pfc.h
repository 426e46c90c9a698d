/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Priority flow control (IEEE 802.1Qbb) and 802.3x PAUSE: the MAC Control
 * frames, the pause time they ask for, and a port receive buffer that
 * asks for them, as a ConnectX port keeps it. Plain C, shared by the
 * firmware and the host unit tests.
 */
#ifndef SROCE_PFC_H
#define SROCE_PFC_H

#include "sroce_lib.h"

#define SROCE_PFC_NUM_PRIO	8
#define SROCE_PFC_NUM_BUF	8

#define SROCE_ETH_ALEN		6
#define SROCE_ETH_HLEN		14
/* MAC Control: the ethertype and its two pause opcodes */
#define SROCE_MAC_CONTROL_TYPE	0x8808
#define SROCE_PAUSE_OPCODE	0x0001	/* 802.3x: every priority */
#define SROCE_PFC_OPCODE	0x0101	/* 802.1Qbb: per priority */
/* A pause frame is a minimum frame: 60 bytes before the FCS. */
#define SROCE_PAUSE_FRAME_LEN	60
/* Opcode, class-enable vector, eight times: the PFC body after the type */
#define SROCE_PFC_BODY_LEN	20
/* Opcode and one time: the 802.3x body */
#define SROCE_PAUSE_BODY_LEN	4
/* One pause quantum is 512 bit times at the link's speed. */
#define SROCE_PAUSE_QUANTUM_BITS 512
#define SROCE_PAUSE_QUANTA_MAX	0xffff

/**
 * struct sroce_pause - what a received pause frame asks
 * @global: an 802.3x PAUSE, whose one time applies to every priority
 * @enable: bit N set: @quanta[N] is valid (all eight for 802.3x)
 * @quanta: pause time per priority in quanta; 0 resumes at once (XON)
 */
struct sroce_pause {
	bool global;
	u8 enable;
	u16 quanta[SROCE_PFC_NUM_PRIO];
};

extern const u8 sroce_pause_dest[SROCE_ETH_ALEN];

int sroce_pfc_build(u8 *frame, size_t len, const u8 *src_mac, u8 enable,
		    const u16 *quanta);
int sroce_pause_parse(const u8 *body, size_t len, struct sroce_pause *pause);
bool sroce_pause_dest_ok(const u8 *dst_mac, const u8 *port_mac);
u64 sroce_pause_quanta_ns(u32 quanta, u32 speed_mbps);

/**
 * struct sroce_pfc_buf - one receive buffer of a port
 * @size: bytes it holds
 * @xoff: occupancy from which the link partner is asked to pause the
 *	buffer's priorities (0: a lossy buffer, which never asks)
 * @xon: occupancy below which a pause asked is lifted
 * @used: bytes held now
 * @paused: a pause is asked and not yet lifted
 * @refresh_ns: while @paused, when the pause must be asked again before
 *	the partner's timer expires
 */
struct sroce_pfc_buf {
	u32 size;
	u32 xoff;
	u32 xon;
	u32 used;
	bool paused;
	u64 refresh_ns;
};

/* What a buffer's change asks the port to send */
enum sroce_pfc_action {
	SROCE_PFC_NONE,
	SROCE_PFC_SEND_XOFF,	/* pause the buffer's priorities */
	SROCE_PFC_SEND_XON,	/* resume them: zero quanta */
};

u32 sroce_pfc_headroom(u32 cable_len_m, u32 speed_mbps, u32 mtu);
int sroce_pfc_buf_init(struct sroce_pfc_buf *buf, u32 size, bool lossless,
		       u32 cable_len_m, u32 speed_mbps, u32 mtu);
u64 sroce_pfc_refresh_interval_ns(u32 speed_mbps);
bool sroce_pfc_buf_admit(struct sroce_pfc_buf *buf, u32 bytes, u64 now_ns,
			 u32 speed_mbps, enum sroce_pfc_action *action);
enum sroce_pfc_action sroce_pfc_buf_release(struct sroce_pfc_buf *buf,
					    u32 bytes);
enum sroce_pfc_action sroce_pfc_buf_tick(struct sroce_pfc_buf *buf,
					 u64 now_ns, u32 speed_mbps);
u8 sroce_pfc_buf_prios(const u8 *prio2buffer, u8 pfc_enable,
		       unsigned int buf);
bool sroce_pfc_ecn_mark(u32 used, u32 kmin, u32 kmax, u32 pmax_pct, u32 rnd);

#endif /* SROCE_PFC_H */
