/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The one fuzz target shared by the libFuzzer harness and the standalone
 * driver. Input: one selector byte, then the bytes under test. The
 * selector modulo 16 picks the mode (sroce_fuzz_mode()); the values below
 * 8 mean what they meant when the selector was taken modulo 8, so older
 * seeds and crash files keep their meaning:
 *   0                 a transport packet (BTH .. ICRC) for
 *                     sroce_roce_parse();
 *   1, 5, 9           an IPv4 packet (L3 header .. ICRC) for the ICRC
 *                     functions, whose transport part is then parsed too,
 *                     and the same bytes as a train received whole;
 *   2, 6, 10          the same behind IPv6;
 *   3, 7, 11          the same behind a GRH (RoCE v1);
 *   4, 12             a MAC Control body (opcode ..) for
 *                     sroce_pause_parse(), then the same bytes as
 *                     operations on a PFC receive buffer;
 *   8                 MODIFY_QP requests for sroce_qp_modify_check(), 16
 *                     bytes each: QP type, current state, requested state,
 *                     attribute mask (u32, little-endian);
 *   13                a firmware command slot (struct sroce_cmd_entry,
 *                     short input zero-filled) for sroce_cmd_decode(), the
 *                     same bytes as a completion for
 *                     sroce_fw_status_to_errno(), and an encode-decode
 *                     round trip of the opcode they name;
 *   14                a DCQCN reaction point: an 8-byte header (port
 *                     speed, start time), then 6-byte events (CNP, packet
 *                     sent, timer ticks, knob or port speed change, time
 *                     going back);
 *   15                sroce_range_within() and sroce_active_ib_mtu(), 32
 *                     bytes each: base, size, address, length (u64,
 *                     little-endian).
 * Any broken invariant aborts; sanitizers catch the rest.
 */
#ifndef SROCE_FUZZ_TARGET_H
#define SROCE_FUZZ_TARGET_H

#include <stddef.h>
#include <stdint.h>

/* What the selector picks; the first four equal enum sroce_l3_type. */
enum sroce_fuzz_mode {
	SROCE_FUZZ_TRANSPORT,
	SROCE_FUZZ_IPV4,
	SROCE_FUZZ_IPV6,
	SROCE_FUZZ_GRH,
	SROCE_FUZZ_PFC,
	SROCE_FUZZ_QP,
	SROCE_FUZZ_CMD,
	SROCE_FUZZ_DCQCN,
	SROCE_FUZZ_ADDR,
	SROCE_FUZZ_NUM_MODES,
};

/* Input record sizes of the modes that read fixed-size records. */
#define SROCE_FUZZ_QP_REC	16
#define SROCE_FUZZ_ADDR_REC	32
#define SROCE_FUZZ_DCQCN_HDR	8
#define SROCE_FUZZ_DCQCN_EV	6

/* DCQCN event kinds: the low 3 bits of an event's first byte. */
enum sroce_fuzz_dcqcn_ev {
	SROCE_FUZZ_EV_CNP,
	SROCE_FUZZ_EV_SENT,
	SROCE_FUZZ_EV_ADVANCE,
	SROCE_FUZZ_EV_KNOB,
	SROCE_FUZZ_EV_LINE,
	SROCE_FUZZ_EV_BACK,
	SROCE_FUZZ_EV_CNP_SENT,
	SROCE_FUZZ_EV_IDLE,
};

/* What the inputs reached, for the standalone driver's summary. */
struct sroce_fuzz_stats {
	unsigned long long parsed;	/* transport packets accepted */
	unsigned long long per_kind[16];	/* ... by enum sroce_op_kind */
	unsigned long long icrc_computed;	/* L3 packets with an ICRC */
	unsigned long long icrc_matched;	/* ... whose stored ICRC is right */
	unsigned long long train_pkts;	/* packets of trains checked */
	unsigned long long pauses_parsed;	/* PFC and PAUSE bodies accepted */
	unsigned long long buf_ops;	/* PFC receive buffer operations */
	unsigned long long qp_checks;	/* MODIFY_QP requests checked */
	unsigned long long qp_accepted;	/* ... as the input gave them */
	unsigned long long cmd_entries;	/* command slots decoded */
	unsigned long long cmd_valid;	/* ... that would be executed */
	unsigned long long dcqcn_calls;	/* reaction point calls */
	unsigned long long dcqcn_limited;	/* ... leaving the limiter on */
	unsigned long long dcqcn_released;	/* ... that released it */
	unsigned long long addr_checks;	/* sroce_range_within() calls */
	unsigned long long addr_within;	/* ... that returned true */
};

extern struct sroce_fuzz_stats sroce_fuzz_stats;

unsigned int sroce_fuzz_mode(uint8_t selector);
void sroce_fuzz_one(const uint8_t *data, size_t size);

#endif
