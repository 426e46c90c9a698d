// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Fuzz target for the RoCE transport parser, builder and ICRC: see
 * fuzz_target.h for the input format. Besides memory safety (ASan, UBSan)
 * it checks properties that must hold for every input:
 *  - the parser's result is self-consistent (lengths add up, headers lie
 *    inside the buffer) and its errors are the documented ones;
 *  - decoding the fields and building them again gives back the same
 *    header bytes, reserved bits aside, and the rebuilt packet parses the
 *    same way;
 *  - the ICRC is deterministic, generate-then-verify succeeds, and
 *    rewriting a variant field (TTL/hop limit, ECN, FECN/BECN, UDP
 *    checksum) keeps it valid.
 */
#include <stdio.h>
#include <stdlib.h>

#include "lib/pfc.h"
#include "lib/roce_hdr.h"
#include "fuzz_target.h"

struct sroce_fuzz_stats sroce_fuzz_stats;

#define FUZZ_PKT_MAX	(SROCE_ROCE_MAX_HDR_LEN + SROCE_ROCE_MAX_PAYLOAD + \
			 3 + SROCE_ICRC_LEN)

#define FUZZ_ASSERT(cond)						\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "fuzz: %s:%d: %s\n", __FILE__,	\
				__LINE__, #cond);			\
			abort();					\
		}							\
	} while (0)

/* Bits of header byte @i that carry no field (see test_roce_hdr.c). */
static u8 reserved_bits(const struct sroce_roce_info *info, unsigned int i)
{
	unsigned int e;

	if (i == 4)
		return SROCE_BTH_RESV6A;
	if (i == 8)
		return SROCE_BTH_RESV7;
	for (e = 0; e < SROCE_EXT_NUM; e++) {
		unsigned int off = info->off[e];

		if (!off || i < off || i >= off + sroce_roce_ext_len(e))
			continue;
		if (e == SROCE_EXT_CNP)
			return 0xff;
		if (e == SROCE_EXT_DETH && i == off + 4)
			return 0xff;
		if (e == SROCE_EXT_FETH)
			return i == off + 3 ? 0xc0 : 0xff;
	}
	return 0;
}

static void fuzz_transport(const u8 *p, size_t n)
{
	static u8 again[FUZZ_PKT_MAX];
	struct sroce_roce_info info, info2;
	struct sroce_roce_fields f;
	unsigned int e, i;
	size_t len;
	int ret;

	ret = sroce_roce_parse(p, n, &info);
	if (ret) {
		FUZZ_ASSERT(ret == -EBADMSG || ret == -EPROTONOSUPPORT ||
			    ret == -EMSGSIZE || ret == -EINVAL);
		return;
	}
	FUZZ_ASSERT(info.op == sroce_roce_opinfo(p[0]));
	sroce_fuzz_stats.parsed++;
	sroce_fuzz_stats.per_kind[info.op->kind & 15]++;
	FUZZ_ASSERT(info.hdr_len == info.op->hdr_len);
	FUZZ_ASSERT(info.payload_off == info.hdr_len);
	FUZZ_ASSERT(info.payload_len <= SROCE_ROCE_MAX_PAYLOAD);
	FUZZ_ASSERT(n == (size_t)info.hdr_len + info.payload_len + info.pad +
		    SROCE_ICRC_LEN);
	FUZZ_ASSERT(((info.payload_len + info.pad) & 3) == 0);
	for (e = 0; e < SROCE_EXT_NUM; e++) {
		FUZZ_ASSERT(!info.off[e] == !(info.op->hdrs & BIT(e)));
		FUZZ_ASSERT(!info.off[e] || info.off[e] +
			    sroce_roce_ext_len(e) <= info.hdr_len);
	}

	/* Decode, rebuild, compare. */
	sroce_roce_get_fields(p, &info, &f);
	ret = sroce_roce_build(again, sizeof(again), &f);
	FUZZ_ASSERT(ret == info.hdr_len);
	for (i = 0; i < info.hdr_len; i++) {
		u8 rsvd = reserved_bits(&info, i);

		/* PadCnt is re-derived from the payload length: the
		 * parser only accepts the one value that matches it.
		 */
		FUZZ_ASSERT((again[i] & ~rsvd) == (p[i] & ~rsvd));
		FUZZ_ASSERT(!(again[i] & rsvd));
	}
	/* The rebuilt packet (same payload, minimal pad) parses alike. */
	memcpy(again + ret, p + info.payload_off, info.payload_len);
	len = ret + info.payload_len;
	memset(again + len, 0, sroce_roce_pad(info.payload_len));
	len += sroce_roce_pad(info.payload_len) + SROCE_ICRC_LEN;
	ret = sroce_roce_parse(again, len, &info2);
	FUZZ_ASSERT(ret == 0);
	FUZZ_ASSERT(info2.op == info.op && info2.qpn == info.qpn &&
		    info2.psn == info.psn && info2.pkey == info.pkey &&
		    info2.payload_len == info.payload_len);
}

static void fuzz_icrc(const u8 *p, size_t n, unsigned int l3_type)
{
	static u8 copy[FUZZ_PKT_MAX + SROCE_IPV6_HDR_LEN + SROCE_UDP_HDR_LEN];
	unsigned int l3_len = l3_type == SROCE_L3_IPV4 ? SROCE_IPV4_HDR_LEN :
			      SROCE_IPV6_HDR_LEN;
	unsigned int bth = l3_len +
			   (l3_type == SROCE_L3_GRH ? 0 : SROCE_UDP_HDR_LEN);
	u32 icrc, icrc2;
	int ret;

	if (n < SROCE_ICRC_LEN)
		return;
	ret = sroce_icrc_compute(p, n - SROCE_ICRC_LEN, l3_type, &icrc);
	if (ret) {
		FUZZ_ASSERT(ret == -EBADMSG || ret == -EPROTONOSUPPORT);
		FUZZ_ASSERT(sroce_icrc_verify(p, n - SROCE_ICRC_LEN,
					      l3_type) == ret);
		return;
	}
	FUZZ_ASSERT(!sroce_icrc_compute(p, n - SROCE_ICRC_LEN, l3_type,
					&icrc2) && icrc2 == icrc);
	FUZZ_ASSERT(sroce_icrc_verify(p, n - SROCE_ICRC_LEN, l3_type) ==
		    (icrc == sroce_get_le32(p + n - 4) ? 0 : -EILSEQ));
	sroce_fuzz_stats.icrc_computed++;
	if (icrc == sroce_get_le32(p + n - 4))
		sroce_fuzz_stats.icrc_matched++;
	/* The transport part, ICRC included. */
	fuzz_transport(p + bth, n - bth);

	if (n > sizeof(copy))
		return;
	memcpy(copy, p, n);
	FUZZ_ASSERT(!sroce_icrc_generate(copy, n - SROCE_ICRC_LEN, l3_type));
	FUZZ_ASSERT(!sroce_icrc_verify(copy, n - SROCE_ICRC_LEN, l3_type));
	/* What routers and switches rewrite does not matter. */
	if (l3_type == SROCE_L3_IPV4) {
		copy[1] ^= 0x03;		/* ECN */
		copy[8]--;			/* TTL */
		copy[10] ^= 0xa5;		/* header checksum */
	} else {
		copy[1] ^= 0x30;		/* ECN */
		copy[3] ^= 0x5a;		/* flow label */
		copy[7]--;			/* hop limit */
	}
	if (l3_type != SROCE_L3_GRH)
		copy[l3_len + 6] ^= 0xff;	/* UDP checksum */
	copy[bth + 4] ^= SROCE_BTH_FECN | SROCE_BTH_BECN;
	FUZZ_ASSERT(!sroce_icrc_verify(copy, n - SROCE_ICRC_LEN, l3_type));
	/* What they do not rewrite does. */
	copy[bth + 11] ^= 1;			/* PSN */
	FUZZ_ASSERT(sroce_icrc_verify(copy, n - SROCE_ICRC_LEN, l3_type) ==
		    -EILSEQ);
}

/*
 * A MAC Control body for sroce_pause_parse(): what it accepts rebuilds to
 * the same request, and no input is read past its end. Then the same
 * bytes as a sequence of buffer operations (4 bytes each: kind, length),
 * after which the buffer's invariants must hold.
 */
static void fuzz_pause(const u8 *p, size_t n)
{
	u8 frame[SROCE_PAUSE_FRAME_LEN];
	static const u8 mac[SROCE_ETH_ALEN] = { 2, 0, 0, 0, 0, 1 };
	struct sroce_pause pause, again;
	enum sroce_pfc_action action;
	struct sroce_pfc_buf buf;
	unsigned int prio;
	u64 now = 0;
	size_t i;
	int ret;

	ret = sroce_pause_parse(p, n, &pause);
	if (ret) {
		FUZZ_ASSERT(ret == -EINVAL || ret == -EOPNOTSUPP);
	} else if (pause.global) {
		sroce_fuzz_stats.pauses_parsed++;
		FUZZ_ASSERT(pause.enable == 0xff);
		for (prio = 1; prio < SROCE_PFC_NUM_PRIO; prio++)
			FUZZ_ASSERT(pause.quanta[prio] == pause.quanta[0]);
	} else {
		sroce_fuzz_stats.pauses_parsed++;
		for (prio = 0; prio < SROCE_PFC_NUM_PRIO; prio++)
			FUZZ_ASSERT((pause.enable & (1U << prio)) ||
				    !pause.quanta[prio]);
		FUZZ_ASSERT(sroce_pfc_build(frame, sizeof(frame), mac,
					    pause.enable, pause.quanta) ==
			    SROCE_PAUSE_FRAME_LEN);
		FUZZ_ASSERT(!sroce_pause_parse(frame + SROCE_ETH_HLEN,
					       SROCE_PFC_BODY_LEN, &again));
		FUZZ_ASSERT(!memcmp(&pause, &again, sizeof(pause)));
	}

	if (n < 4 || sroce_pfc_buf_init(&buf, 1U << (10 + p[0] % 12), p[1] & 1,
					p[2], 10000, 256U << (p[3] % 6)))
		return;
	for (i = 4; i + 4 <= n; i += 4) {
		u32 len = (u32)p[i + 1] << 16 | (u32)p[i + 2] << 8 | p[i + 3];
		u32 before = buf.used;
		bool was_paused = buf.paused;

		sroce_fuzz_stats.buf_ops++;
		now += (u64)(p[i] >> 2) * 100000;
		switch (p[i] & 3) {
		case 0:
		case 1:
			if (sroce_pfc_buf_admit(&buf, len, now, 10000, &action))
				FUZZ_ASSERT(buf.used == before + len);
			else
				FUZZ_ASSERT(buf.used == before &&
					    action == SROCE_PFC_NONE);
			FUZZ_ASSERT(action != SROCE_PFC_SEND_XON);
			FUZZ_ASSERT(action == SROCE_PFC_NONE ||
				    (!was_paused && buf.paused));
			break;
		case 2:
			action = sroce_pfc_buf_release(&buf, len);
			FUZZ_ASSERT(buf.used <= before);
			FUZZ_ASSERT(action != SROCE_PFC_SEND_XOFF);
			FUZZ_ASSERT(action == SROCE_PFC_NONE ||
				    (was_paused && !buf.paused));
			break;
		default:
			action = sroce_pfc_buf_tick(&buf, now, 10000);
			FUZZ_ASSERT(action != SROCE_PFC_SEND_XON);
			FUZZ_ASSERT(action == SROCE_PFC_NONE || buf.paused);
			break;
		}
		FUZZ_ASSERT(buf.used <= buf.size);
		FUZZ_ASSERT(!buf.paused || buf.xoff);
		FUZZ_ASSERT(!buf.paused || buf.used >= buf.xon);
	}
}

/**
 * sroce_fuzz_one() - run one fuzz input
 * @data: selector byte followed by the packet bytes
 * @size: bytes at @data
 */
void sroce_fuzz_one(const uint8_t *data, size_t size)
{
	unsigned int mode;

	if (!size)
		return;
	if ((data[0] & 7) == 4) {
		fuzz_pause(data + 1, size - 1);
		return;
	}
	mode = data[0] & 3;
	if (mode == 0)
		fuzz_transport(data + 1, size - 1);
	else
		fuzz_icrc(data + 1, size - 1, mode);
}
