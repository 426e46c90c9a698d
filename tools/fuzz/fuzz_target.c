// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Fuzz target for the plain-C cores that read what userspace, the wire
 * and the firmware hand the driver: see fuzz_target.h for the input
 * format. Besides memory safety (ASan, UBSan) it checks properties that
 * must hold for every input:
 *  - the parser's result is self-consistent (lengths add up, headers lie
 *    inside the buffer) and its errors are the documented ones;
 *  - decoding the fields and building them again gives back the same
 *    header bytes, reserved bits aside, and the rebuilt packet parses the
 *    same way;
 *  - the ICRC is deterministic, generate-then-verify succeeds, and
 *    rewriting a variant field (TTL/hop limit, ECN, FECN/BECN, UDP
 *    checksum) keeps it valid;
 *  - PFC bodies rebuild to the same request and the receive buffer keeps
 *    its occupancy and pause invariants;
 *  - MODIFY_QP checks follow the IBA state diagram and attribute rules;
 *  - command slots decode only to executable commands or to a status,
 *    every status maps to 0 or a negative errno, and encoding round-trips;
 *  - the DCQCN reaction point keeps its rate and alpha bounds, does
 *    bounded work per call and gives the same result however its time is
 *    sliced;
 *  - range checks equal the exact arithmetic.
 */
#include <stdio.h>
#include <stdlib.h>

#include "lib/dcqcn.h"
#include "lib/pfc.h"
#include "lib/qp_state.h"
#include "lib/roce_hdr.h"
#include "fuzz_target.h"
#include "train_cut.h"

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

/*
 * The same bytes as a train received whole: the IP and UDP headers, then
 * packets of one length (the UDP checksum, which no ICRC covers, picks
 * it), the last maybe shorter. Each packet's ICRC checked against the
 * headers it would have had once cut, as the receive hook checks it
 * (sroce_train_seg_hdr() rewriting one copy in turn,
 * sroce_icrc_verify_split()), must agree with the check of the packet cut
 * apart here (train_cut_hdr()): this tests sroce_train_seg_hdr() against
 * an independent cut. Then each packet's ICRC is computed for its header
 * (the library calls the sender's loop in fw_net.c makes; the loops
 * themselves are the driver's, not exercised here): every packet passes,
 * and a changed PSN fails its own packet only.
 */
static void fuzz_train(const u8 *p, size_t n, unsigned int l3_type)
{
	static u8 train[FUZZ_PKT_MAX];
	static u8 cut[SROCE_IPV6_HDR_LEN + SROCE_UDP_HDR_LEN + FUZZ_PKT_MAX];
	u8 hdr[SROCE_IPV6_HDR_LEN + SROCE_UDP_HDR_LEN];
	unsigned int l3_len = SROCE_UDP_HDR_LEN +
			      (l3_type == SROCE_L3_IPV4 ? SROCE_IPV4_HDR_LEN :
			       SROCE_IPV6_HDR_LEN);
	size_t total, off, len, seg_len, bad_off = 0;
	unsigned int pass, bad_index;
	u16 first_id = 0, i;
	int split, whole;
	u32 icrc;

	if (n <= l3_len || n - l3_len > sizeof(train))
		return;
	total = n - l3_len;
	seg_len = SROCE_BTH_LEN + SROCE_ICRC_LEN +
		  sroce_get_be16(p + l3_len - 2) % 512;
	bad_index = p[l3_len - 3] % (total / seg_len + 1);
	if (l3_type == SROCE_L3_IPV4)
		first_id = sroce_get_be16(p + 4);
	memcpy(train, p + l3_len, total);

	/* 0: as given; 1: signed; 2: signed, one PSN changed. */
	for (pass = 0; pass < 3; pass++) {
		memcpy(hdr, p, l3_len);
		for (off = 0, i = 0; off < total; off += len, i++) {
			len = total - off < seg_len ? total - off : seg_len;
			sroce_train_seg_hdr(hdr, l3_len, l3_type, first_id, i,
					    len);
			if (len < SROCE_ICRC_LEN)
				continue;	/* counted as an ICRC error */
			if (pass == 1 &&
			    !sroce_icrc_compute_split(hdr, l3_len, train + off,
						      len - SROCE_ICRC_LEN,
						      l3_type, &icrc))
				sroce_put_le32(train + off + len -
					       SROCE_ICRC_LEN, icrc);
			split = sroce_icrc_verify_split(hdr, l3_len,
							train + off,
							len - SROCE_ICRC_LEN,
							l3_type);
			train_cut_hdr(cut, p, l3_len, l3_type,
				      (u16)(first_id + i), len);
			memcpy(cut + l3_len, train + off, len);
			whole = sroce_icrc_verify(cut, l3_len + len -
						  SROCE_ICRC_LEN, l3_type);
			FUZZ_ASSERT(split == whole);
			sroce_fuzz_stats.train_pkts++;
			if (pass == 1)
				FUZZ_ASSERT(split != -EILSEQ);
			if (pass == 2)
				FUZZ_ASSERT((split == -EILSEQ) ==
					    (i == bad_index));
			if (pass == 1 && i == bad_index && !split)
				bad_off = off + 1;
		}
		if (pass == 1 && !bad_off)
			break;		/* no packet to change */
		if (pass == 1)
			train[bad_off - 1 + 11] ^= 1;	/* its PSN */
	}
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

	if (l3_type != SROCE_L3_GRH)
		fuzz_train(p, n, l3_type);
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
	/* Headers apart from the packet (a train's): the same ICRC. */
	FUZZ_ASSERT(!sroce_icrc_compute_split(p, bth, p + bth,
					      n - SROCE_ICRC_LEN - bth,
					      l3_type, &icrc2) &&
		    icrc2 == icrc);
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

/* Bytes past the end of the input read as zero: short inputs still run. */
static u64 get_le(const u8 *p, size_t n, size_t off, unsigned int width)
{
	u64 v = 0;
	unsigned int i;

	for (i = 0; i < width; i++)
		if (off + i < n)
			v |= (u64)p[off + i] << (8 * i);
	return v;
}

/* --- MODIFY_QP (qp_state.c) ------------------------------------------ */

#define QPA_DEFINED	(SROCE_QPA_STATE | SROCE_QPA_CUR_STATE | \
			 SROCE_QPA_EN_SQD_ASYNC_NOTIFY | \
			 SROCE_QPA_ACCESS_FLAGS | SROCE_QPA_PKEY_INDEX | \
			 SROCE_QPA_PORT | SROCE_QPA_QKEY | SROCE_QPA_AV | \
			 SROCE_QPA_PATH_MTU | SROCE_QPA_TIMEOUT | \
			 SROCE_QPA_RETRY_CNT | SROCE_QPA_RNR_RETRY | \
			 SROCE_QPA_RQ_PSN | SROCE_QPA_MAX_QP_RD_ATOMIC | \
			 SROCE_QPA_ALT_PATH | SROCE_QPA_MIN_RNR_TIMER | \
			 SROCE_QPA_SQ_PSN | SROCE_QPA_MAX_DEST_RD_ATOMIC | \
			 SROCE_QPA_PATH_MIG_STATE | SROCE_QPA_CAP | \
			 SROCE_QPA_DEST_QPN | SROCE_QPA_RATE_LIMIT)
/* Attributes of a path to a remote QP: connected services only. */
#define QPA_CONNECTED	(SROCE_QPA_AV | SROCE_QPA_PATH_MTU | \
			 SROCE_QPA_DEST_QPN | SROCE_QPA_RQ_PSN | \
			 SROCE_QPA_ALT_PATH | SROCE_QPA_PATH_MIG_STATE | \
			 SROCE_QPA_ACCESS_FLAGS)
/* Acknowledgment, retry and RDMA read/atomic resources: RC only. */
#define QPA_RC_ONLY	(SROCE_QPA_TIMEOUT | SROCE_QPA_RETRY_CNT | \
			 SROCE_QPA_RNR_RETRY | SROCE_QPA_MIN_RNR_TIMER | \
			 SROCE_QPA_MAX_QP_RD_ATOMIC | \
			 SROCE_QPA_MAX_DEST_RD_ATOMIC)

/*
 * The IBA QP state diagram (vol. 1, chapter 10), written from the figure
 * rather than from qp_state.c's table: Reset from anywhere, Error from
 * anywhere but Reset, no skipping forward, SQD and RTS back and forth,
 * and SQE only left towards RTS, by the transports that can enter it (an
 * RC error goes straight to Error). SQE itself is entered by the QP on a
 * send error, never by MODIFY_QP.
 */
static bool iba_edge(unsigned int t, unsigned int cur, unsigned int next)
{
	if (next == SROCE_QPS_RESET)
		return true;
	if (next == SROCE_QPS_ERR)
		return cur != SROCE_QPS_RESET;
	switch (cur) {
	case SROCE_QPS_RESET:
		return next == SROCE_QPS_INIT;
	case SROCE_QPS_INIT:
		return next == SROCE_QPS_INIT || next == SROCE_QPS_RTR;
	case SROCE_QPS_RTR:
		return next == SROCE_QPS_RTS;
	case SROCE_QPS_RTS:
	case SROCE_QPS_SQD:
		return next == SROCE_QPS_RTS || next == SROCE_QPS_SQD;
	case SROCE_QPS_SQE:
		return next == SROCE_QPS_RTS && t != SROCE_QPT_RC;
	default:
		return false;
	}
}

/*
 * What the IBA makes mandatory: binding to a partition (and port, which
 * a GSI QP has from creation) at Reset->Init, the remote end of a
 * connection at Init->RTR, the send PSN (and RC's retry and read/atomic
 * parameters) at RTR->RTS. Nothing else is ever required.
 */
static u32 iba_required(unsigned int t, unsigned int cur, unsigned int next)
{
	bool dgram = t == SROCE_QPT_UD || t == SROCE_QPT_GSI;
	bool rc = t == SROCE_QPT_RC;

	if (cur == SROCE_QPS_RESET && next == SROCE_QPS_INIT)
		return SROCE_QPA_PKEY_INDEX |
		       (t == SROCE_QPT_GSI ? 0 : SROCE_QPA_PORT) |
		       (dgram ? SROCE_QPA_QKEY : SROCE_QPA_ACCESS_FLAGS);
	if (cur == SROCE_QPS_INIT && next == SROCE_QPS_RTR && !dgram)
		return SROCE_QPA_AV | SROCE_QPA_PATH_MTU | SROCE_QPA_DEST_QPN |
		       SROCE_QPA_RQ_PSN |
		       (rc ? SROCE_QPA_MAX_DEST_RD_ATOMIC |
			     SROCE_QPA_MIN_RNR_TIMER : 0);
	if (cur == SROCE_QPS_RTR && next == SROCE_QPS_RTS)
		return SROCE_QPA_SQ_PSN |
		       (rc ? SROCE_QPA_TIMEOUT | SROCE_QPA_RETRY_CNT |
			     SROCE_QPA_RNR_RETRY | SROCE_QPA_MAX_QP_RD_ATOMIC :
			     0);
	return 0;
}

/*
 * Attributes a transition can never carry, rule by rule: an upper bound
 * of what may be accepted, not the exact optional set (the unit tests
 * hold that). Going to Reset or Error carries nothing; CAP and undefined
 * bits never; each attribute only for the transports it exists for and
 * on the transitions that set it.
 */
static u32 iba_forbidden(unsigned int t, unsigned int cur, unsigned int next)
{
	bool dgram = t == SROCE_QPT_UD || t == SROCE_QPT_GSI;
	bool rc = t == SROCE_QPT_RC;
	bool to_rts = next == SROCE_QPS_RTS;
	bool rtr_rts = cur == SROCE_QPS_RTR && to_rts;
	bool init_rtr = cur == SROCE_QPS_INIT && next == SROCE_QPS_RTR;
	bool bind = next == SROCE_QPS_INIT;
	bool sqd_sqd = cur == SROCE_QPS_SQD && next == SROCE_QPS_SQD;
	u32 no = ~QPA_DEFINED | SROCE_QPA_CAP;

	if (next == SROCE_QPS_RESET || next == SROCE_QPS_ERR)
		return ~SROCE_QPA_STATE;
	if (dgram)
		no |= QPA_CONNECTED | QPA_RC_ONLY;
	else
		no |= SROCE_QPA_QKEY;
	if (!rc)
		no |= QPA_RC_ONLY;
	if (!rtr_rts)
		no |= SROCE_QPA_SQ_PSN;
	if (!init_rtr)
		no |= SROCE_QPA_RQ_PSN | SROCE_QPA_DEST_QPN | SROCE_QPA_PATH_MTU;
	if (!init_rtr && !sqd_sqd)
		no |= SROCE_QPA_AV;
	/* The current state is asserted only by a QP on its way to send. */
	if (!to_rts || cur == SROCE_QPS_INIT)
		no |= SROCE_QPA_CUR_STATE;
	if (!(cur == SROCE_QPS_RTS && next == SROCE_QPS_SQD))
		no |= SROCE_QPA_EN_SQD_ASYNC_NOTIFY;
	/* The port: bound at Init, moved (RC) only with the queue drained. */
	if (!(bind && t != SROCE_QPT_GSI) && !(sqd_sqd && rc))
		no |= SROCE_QPA_PORT;
	/* Pacing (sroce's): RC and UD senders, going to or in RTS. */
	if (!(t == SROCE_QPT_RC || t == SROCE_QPT_UD) ||
	    !(rtr_rts || (cur == SROCE_QPS_RTS && to_rts)))
		no |= SROCE_QPA_RATE_LIMIT;
	/* Nothing but the state when draining or recovering from SQE... */
	if (cur == SROCE_QPS_RTS && next == SROCE_QPS_SQD)
		no |= ~(SROCE_QPA_STATE | SROCE_QPA_EN_SQD_ASYNC_NOTIFY);
	/* ...and no path changes out of SQE. */
	if (cur == SROCE_QPS_SQE)
		no |= SROCE_QPA_ALT_PATH | SROCE_QPA_PATH_MIG_STATE |
		      SROCE_QPA_PKEY_INDEX;
	return no;
}

/*
 * Optional attributes the IBA grants for certain (a lower bound, as
 * iba_forbidden() is an upper one): rebinding at Init->Init, the
 * partition and Q_Key or path and access at Init->RTR, the current
 * state and Q_Key or path migration and access on the way to RTS, the
 * asynchronous event at RTS->SQD, the path and partition with the send
 * queue drained.
 */
static u32 iba_optional(unsigned int t, unsigned int cur, unsigned int next)
{
	bool dgram = t == SROCE_QPT_UD || t == SROCE_QPT_GSI;

	if (cur == SROCE_QPS_INIT && next == SROCE_QPS_INIT)
		return iba_required(t, SROCE_QPS_RESET, SROCE_QPS_INIT);
	if (cur == SROCE_QPS_INIT && next == SROCE_QPS_RTR)
		return SROCE_QPA_PKEY_INDEX |
		       (dgram ? SROCE_QPA_QKEY :
			SROCE_QPA_ALT_PATH | SROCE_QPA_ACCESS_FLAGS);
	if (next == SROCE_QPS_RTS && cur != SROCE_QPS_INIT)
		return SROCE_QPA_CUR_STATE |
		       (dgram ? SROCE_QPA_QKEY :
			cur == SROCE_QPS_SQE ? SROCE_QPA_ACCESS_FLAGS :
			SROCE_QPA_ALT_PATH | SROCE_QPA_PATH_MIG_STATE |
			SROCE_QPA_ACCESS_FLAGS);
	if (cur == SROCE_QPS_RTS && next == SROCE_QPS_SQD)
		return SROCE_QPA_EN_SQD_ASYNC_NOTIFY;
	if (cur == SROCE_QPS_SQD && next == SROCE_QPS_SQD)
		return SROCE_QPA_PKEY_INDEX |
		       (dgram ? SROCE_QPA_QKEY :
			SROCE_QPA_AV | SROCE_QPA_ALT_PATH |
			SROCE_QPA_ACCESS_FLAGS | SROCE_QPA_PATH_MIG_STATE);
	return 0;
}

static bool qp_type_valid(u32 t)
{
	return t == SROCE_QPT_GSI || t == SROCE_QPT_RC || t == SROCE_QPT_UC ||
	       t == SROCE_QPT_UD;
}

static void fuzz_qp_one(u32 t, u32 cur, u32 next, u32 mask)
{
	u32 missing = 0xdeadbeef, extra = 0xdeadbeef, m2, e2, req, fixed;
	unsigned int eff = mask & SROCE_QPA_STATE ? next : cur;
	bool valid = qp_type_valid(t) && cur < SROCE_QPS_NUM &&
		     eff < SROCE_QPS_NUM;
	int ret;

	sroce_fuzz_stats.qp_checks++;
	ret = sroce_qp_modify_check(t, cur, next, mask, &missing, &extra);
	FUZZ_ASSERT(ret == 0 || ret == -EINVAL);
	/* The outputs are optional and do not change the verdict. */
	FUZZ_ASSERT(sroce_qp_modify_check(t, cur, next, mask, NULL, NULL) ==
		    ret);
	m2 = 0xdeadbeef;
	e2 = 0xdeadbeef;
	FUZZ_ASSERT(sroce_qp_modify_check(t, cur, next, mask, &m2, NULL) ==
		    ret && m2 == missing);
	FUZZ_ASSERT(sroce_qp_modify_check(t, cur, next, mask, NULL, &e2) ==
		    ret && e2 == extra);
	/* The names are total too. */
	FUZZ_ASSERT(sroce_qp_state_name(cur));
	FUZZ_ASSERT(!strcmp(sroce_qp_state_name(cur), "INVALID") ==
		    (cur >= SROCE_QPS_NUM));
	FUZZ_ASSERT(!strcmp(sroce_qp_attr_name(mask), "INVALID") ==
		    !(mask && !(mask & (mask - 1)) && (mask & QPA_DEFINED)));

	if (!valid || !iba_edge(t, cur, eff)) {
		/* No transition: nothing to report, whatever the mask. */
		FUZZ_ASSERT(ret == -EINVAL && !missing && !extra);
		return;
	}
	req = iba_required(t, cur, eff);
	FUZZ_ASSERT(missing == (req & ~mask));
	FUZZ_ASSERT(!(extra & ~mask));
	FUZZ_ASSERT(!(extra & (req | SROCE_QPA_STATE)));
	FUZZ_ASSERT((mask & iba_forbidden(t, cur, eff)) == (mask & extra &
		    iba_forbidden(t, cur, eff)));
	FUZZ_ASSERT((ret == 0) == (!missing && !extra));
	if (!ret)
		sroce_fuzz_stats.qp_accepted++;

	FUZZ_ASSERT(!(extra & iba_optional(t, cur, eff)));

	/* Supplying what is missing and dropping what is extra is enough. */
	fixed = (mask | missing) & ~extra;
	FUZZ_ASSERT(!sroce_qp_modify_check(t, cur, next, fixed, &m2, &e2) &&
		    !m2 && !e2);
	/* Everything the IBA grants at once, too. */
	FUZZ_ASSERT(!sroce_qp_modify_check(t, cur, next, (mask &
					   SROCE_QPA_STATE) | req |
					   iba_optional(t, cur, eff),
					   NULL, NULL));
	/* Optional attributes are independent: any one may be left out. */
	if (fixed & ~(req | SROCE_QPA_STATE)) {
		u32 opt = fixed & ~(req | SROCE_QPA_STATE);

		FUZZ_ASSERT(!sroce_qp_modify_check(t, cur, next,
						   fixed & ~(opt & -opt),
						   NULL, NULL));
	}
}

/*
 * Records of (type, current state, requested state, mask). Besides each
 * request as given, the two ways out of any state are checked: Reset and
 * Error take the state alone and refuse every other attribute.
 */
static void fuzz_qp(const u8 *p, size_t n)
{
	size_t off = 0;

	do {
		u32 t = get_le(p, n, off, 4), cur = get_le(p, n, off + 4, 4);
		u32 next = get_le(p, n, off + 8, 4);
		u32 mask = get_le(p, n, off + 12, 4);
		u32 extra, others = mask & ~SROCE_QPA_STATE;
		bool valid = qp_type_valid(t) && cur < SROCE_QPS_NUM;
		int ret;

		fuzz_qp_one(t, cur, next, mask);
		fuzz_qp_one(t, cur, SROCE_QPS_RESET, mask | SROCE_QPA_STATE);
		fuzz_qp_one(t, cur, SROCE_QPS_ERR, mask | SROCE_QPA_STATE);
		ret = sroce_qp_modify_check(t, cur, SROCE_QPS_RESET,
					    SROCE_QPA_STATE, NULL, NULL);
		FUZZ_ASSERT(ret == (valid ? 0 : -EINVAL));
		ret = sroce_qp_modify_check(t, cur, SROCE_QPS_RESET,
					    mask | SROCE_QPA_STATE, NULL,
					    &extra);
		FUZZ_ASSERT(!valid || (extra == others &&
				       ret == (others ? -EINVAL : 0)));
		ret = sroce_qp_modify_check(t, cur, SROCE_QPS_ERR,
					    SROCE_QPA_STATE, NULL, NULL);
		FUZZ_ASSERT(ret == (valid && cur != SROCE_QPS_RESET ? 0 :
				    -EINVAL));
		off += SROCE_FUZZ_QP_REC;
	} while (off < n);
}

/* --- Firmware commands (cmd_codec.c) ---------------------------------- */

/* A completion slot has the same size as a command slot. */
_Static_assert(sizeof(struct sroce_cmd_completion) ==
	       sizeof(struct sroce_cmd_entry), "completion slot size");

/* Every status, known or not, maps to success or to a negative errno. */
static void check_status(unsigned int status)
{
	int err = sroce_fw_status_to_errno(status);

	FUZZ_ASSERT((err == 0) == (status == SROCE_FW_OK));
	/* An errno the kernel's ERR_PTR()/IS_ERR_VALUE() can carry. */
	FUZZ_ASSERT(err <= 0 && err >= -4095);
	/* What this driver does not know is a device fault. */
	FUZZ_ASSERT(status < SROCE_FW_NUM_STATUS || err == -EIO);
}

/*
 * One slot as the firmware would find it (a driver bug, a corrupted
 * ring): decoding reads the slot and nothing beyond (it is handed over in
 * an exact-size heap block), leaves it unchanged, always reports the
 * cmd_id, and accepts exactly the known opcodes with their exact request
 * length and no flags. The same bytes as a completion from a hostile
 * firmware: its status maps as check_status() wants.
 */
static void fuzz_cmd_decode(const u8 *p, size_t n)
{
	struct sroce_cmd_entry *e = malloc(sizeof(*e));
	struct sroce_cmd_completion cqe;
	u8 copy[sizeof(*e)];
	unsigned int index = 0xdead, op, i;
	u16 id = 0xbeef;
	int status;

	memset(e, 0, sizeof(*e));
	memcpy(e, p, n < sizeof(*e) ? n : sizeof(*e));
	memcpy(copy, e, sizeof(copy));
	op = le16_to_cpu(e->opcode);
	sroce_fuzz_stats.cmd_entries++;

	status = sroce_cmd_decode(e, &index, &id);
	FUZZ_ASSERT(!memcmp(copy, e, sizeof(copy)));
	FUZZ_ASSERT(id == le16_to_cpu(e->cmd_id));
	FUZZ_ASSERT(status >= 0 && status < SROCE_FW_NUM_STATUS);
	FUZZ_ASSERT(index == sroce_cmd_index(op));
	if (index == SROCE_CMDI_INVALID) {
		FUZZ_ASSERT(status == SROCE_FW_ERR_BAD_OPCODE);
	} else {
		FUZZ_ASSERT(index < SROCE_NUM_CMDS);
		FUZZ_ASSERT(sroce_cmd_opcode(index) == op);
		FUZZ_ASSERT((status == SROCE_FW_OK) ==
			    (le16_to_cpu(e->req_len) == sroce_cmd_req_len(index) &&
			     !e->flags));
	}
	if (status == SROCE_FW_OK) {
		sroce_fuzz_stats.cmd_valid++;
		/* The handler reads req_len bytes and writes resp_len. */
		FUZZ_ASSERT(sroce_cmd_req_len(index) <= SROCE_CMD_PAYLOAD_MAX);
		FUZZ_ASSERT(sroce_cmd_resp_len(index) <= SROCE_CMD_PAYLOAD_MAX);
		FUZZ_ASSERT(strcmp(sroce_cmd_name(index), "INVALID"));
	}
	check_status(status);
	free(e);

	memcpy(&cqe, copy, sizeof(cqe));
	check_status(le16_to_cpu(cqe.status));
	/* The function takes an unsigned int: any 32 bits of the slot. */
	for (i = 0; i + 4 <= 16; i += 2)
		check_status(get_le(copy, sizeof(copy), i, 4));
}

/*
 * Encode the command the input's first byte picks, with the input's
 * cmd_id and payload, into a slot full of the input's bytes: the whole
 * slot is rewritten, the payload arrives intact behind zero padding, and
 * decoding gives back the command and cmd_id. Wrong lengths and unknown
 * opcodes are refused.
 */
static void fuzz_cmd_round_trip(const u8 *p, size_t n)
{
	unsigned int index = p[0] % SROCE_NUM_CMDS, got = 0xdead, bad_op;
	unsigned int op = sroce_cmd_opcode(index);
	unsigned int len = sroce_cmd_req_len(index), i;
	struct sroce_cmd_entry e;
	u16 cmd_id = get_le(p, n, 1, 2), id;
	u8 *req = malloc(len + 1);

	/* req_len bytes exactly: ASan sees a read past the payload. */
	for (i = 0; i < len + 1; i++)
		req[i] = get_le(p, n, 8 + i, 1);
	memset(&e, 0, sizeof(e));
	memcpy(&e, p, n < sizeof(e) ? n : sizeof(e));
	e.flags |= cpu_to_le16(1);	/* must be rewritten */

	FUZZ_ASSERT(sroce_cmd_index(op) == index);
	FUZZ_ASSERT(!sroce_cmd_encode(&e, op, cmd_id, req, len));
	FUZZ_ASSERT(le16_to_cpu(e.opcode) == op && !e.flags &&
		    le16_to_cpu(e.cmd_id) == cmd_id &&
		    le16_to_cpu(e.req_len) == len);
	FUZZ_ASSERT(!memcmp(e.payload, req, len));
	for (i = len; i < SROCE_CMD_PAYLOAD_MAX; i++)
		FUZZ_ASSERT(!e.payload[i]);
	FUZZ_ASSERT(sroce_cmd_decode(&e, &got, &id) == SROCE_FW_OK &&
		    got == index && id == cmd_id);

	/* A slot that does not say what the opcode needs is refused. */
	e.req_len = cpu_to_le16(len + 1 + p[0] / SROCE_NUM_CMDS);
	FUZZ_ASSERT(sroce_cmd_decode(&e, &got, &id) ==
		    SROCE_FW_ERR_BAD_LENGTH && id == cmd_id);
	e.req_len = cpu_to_le16(len);
	e.flags = cpu_to_le16(get_le(p, n, 3, 2) | 0x8000);
	FUZZ_ASSERT(sroce_cmd_decode(&e, &got, &id) ==
		    SROCE_FW_ERR_BAD_LENGTH);

	/* The encoder refuses what the firmware would. */
	FUZZ_ASSERT(sroce_cmd_encode(&e, op, cmd_id, req, len + 1) == -EINVAL);
	if (len) {
		FUZZ_ASSERT(sroce_cmd_encode(&e, op, cmd_id, req, len - 1) ==
			    -EINVAL);
		FUZZ_ASSERT(sroce_cmd_encode(&e, op, cmd_id, NULL, len) ==
			    -EINVAL);
	}
	bad_op = get_le(p, n, 4, 4);
	if (sroce_cmd_index(bad_op) == SROCE_CMDI_INVALID)
		FUZZ_ASSERT(sroce_cmd_encode(&e, bad_op, cmd_id, req, len) ==
			    -EOPNOTSUPP);
	free(req);
}

static void fuzz_cmd(const u8 *p, size_t n)
{
	fuzz_cmd_decode(p, n);
	if (n)
		fuzz_cmd_round_trip(p, n);
}

/* --- DCQCN reaction point (dcqcn.c) ------------------------------------ */

/* Events per input: enough for long histories, bounded time per input. */
#define DCQCN_MAX_EVENTS	700
/* The kernel's ns clock is nowhere near wrapping; neither is ours. */
#define DCQCN_TIME_MAX		(1ULL << 62)

static u64 add_time(u64 now, u64 dt)
{
	return dt > DCQCN_TIME_MAX - now ? DCQCN_TIME_MAX : now + dt;
}

static bool cfg_same(const struct sroce_dcqcn_cfg *a,
		     const struct sroce_dcqcn_cfg *b)
{
	return a->time_reset_ns == b->time_reset_ns &&
	       a->alpha_period_ns == b->alpha_period_ns &&
	       a->monitor_ns == b->monitor_ns && a->ai_kbps == b->ai_kbps &&
	       a->hai_kbps == b->hai_kbps && a->max_kbps == b->max_kbps &&
	       a->min_kbps == b->min_kbps &&
	       a->first_cnp_kbps == b->first_cnp_kbps &&
	       a->byte_reset == b->byte_reset && a->g == b->g &&
	       a->initial_alpha == b->initial_alpha && a->gd == b->gd &&
	       a->min_dec_fac == b->min_dec_fac &&
	       a->threshold == b->threshold && a->clamp == b->clamp &&
	       a->clamp_ati == b->clamp_ati;
}

/*
 * @all: every field; else only what an active limiter uses (an idle
 * one's leftovers are never read: the next CNP starts afresh).
 */
static bool rp_same(const struct sroce_dcqcn_rp *a,
		    const struct sroce_dcqcn_rp *b, bool all)
{
	if (a->active != b->active)
		return false;
	if (!a->active && !all)
		return true;
	return a->rc_kbps == b->rc_kbps && a->rt_kbps == b->rt_kbps &&
	       a->last_ns == b->last_ns &&
	       a->alpha_origin_ns == b->alpha_origin_ns &&
	       a->dec_origin_ns == b->dec_origin_ns &&
	       a->inc_origin_ns == b->inc_origin_ns &&
	       a->byte_count == b->byte_count && a->alpha == b->alpha &&
	       a->stage[0] == b->stage[0] && a->stage[1] == b->stage[1] &&
	       a->dec_pending == b->dec_pending &&
	       a->alpha_cnp == b->alpha_cnp;
}

/*
 * The knobs in working units, from values that may lie outside the
 * table's ranges (taken as the nearest bound): the rate bounds are the
 * knobs' and the port's, never zero, and the periods never zero.
 */
static void dcqcn_cfg(struct sroce_dcqcn_cfg *cfg, const u32 *raw,
		      u64 line_kbps)
{
	u32 pc[SROCE_NUM_CC_PARAMS];
	struct sroce_dcqcn_cfg again;
	u64 min_kbps;
	unsigned int i;

	for (i = 0; i < SROCE_NUM_CC_PARAMS; i++) {
		const struct sroce_cc_param_desc *d = &sroce_cc_params[i];

		pc[i] = raw[i] < d->min ? d->min : raw[i] > d->max ? d->max :
			raw[i];
	}
	sroce_dcqcn_cfg_init(cfg, raw, line_kbps);
	sroce_dcqcn_cfg_init(&again, pc, line_kbps);
	FUZZ_ASSERT(cfg_same(cfg, &again));

	FUZZ_ASSERT(cfg->max_kbps >= 1);
	if (line_kbps) {
		FUZZ_ASSERT(cfg->max_kbps <= line_kbps);
		if (!pc[SROCE_CC_RP_MAX_RATE])
			FUZZ_ASSERT(cfg->max_kbps == line_kbps);
	}
	if (pc[SROCE_CC_RP_MAX_RATE])
		FUZZ_ASSERT(cfg->max_kbps ==
			    (line_kbps && line_kbps < pc[SROCE_CC_RP_MAX_RATE] *
			     1000ULL ? line_kbps :
			     pc[SROCE_CC_RP_MAX_RATE] * 1000ULL));
	/* rp_min_rate, unless the maximum is lower: never zero. */
	min_kbps = pc[SROCE_CC_RP_MIN_RATE] * 1000ULL;
	FUZZ_ASSERT(cfg->min_kbps == (min_kbps < cfg->max_kbps ? min_kbps :
				      cfg->max_kbps));
	FUZZ_ASSERT(cfg->min_kbps >= 1);
	FUZZ_ASSERT(cfg->time_reset_ns >= 1000 && cfg->alpha_period_ns >= 1000 &&
		    cfg->monitor_ns >= 1000);
	FUZZ_ASSERT(cfg->g < SROCE_DCQCN_ALPHA_ONE &&
		    cfg->initial_alpha <= SROCE_DCQCN_ALPHA_MAX);
	FUZZ_ASSERT(cfg->gd <= 15 && cfg->min_dec_fac <= 100 &&
		    cfg->threshold >= 1 && cfg->threshold <= 31);
}

/* One call of the reaction point's API, as event @kind asks. */
static void dcqcn_call(struct sroce_dcqcn_rp *rp,
		       const struct sroce_dcqcn_cfg *cfg, unsigned int kind,
		       unsigned int flags, u64 now, u32 arg)
{
	switch (kind) {
	case SROCE_FUZZ_EV_CNP:
		/* Any rate the QP was measured at, up to absurd ones. */
		sroce_dcqcn_cnp(rp, cfg, now, (u64)arg << (flags * 2));
		break;
	case SROCE_FUZZ_EV_SENT:
		sroce_dcqcn_sent(rp, cfg, now, arg >> flags);
		break;
	case SROCE_FUZZ_EV_BACK:
		if (flags & 1)
			sroce_dcqcn_sent(rp, cfg, now, arg & 0xffff);
		else
			sroce_dcqcn_advance(rp, cfg, now);
		break;
	case SROCE_FUZZ_EV_CNP_SENT:
		/* A CNP, then a packet at the same instant. */
		sroce_dcqcn_cnp(rp, cfg, now, (u64)arg * 1000);
		sroce_dcqcn_sent(rp, cfg, now, arg >> 16);
		break;
	default:
		sroce_dcqcn_advance(rp, cfg, now);
		break;
	}
}

/* The documented invariants, after a call of @steps loop steps. */
static void dcqcn_check(const struct sroce_dcqcn_rp *rp,
			const struct sroce_dcqcn_cfg *cfg, unsigned long steps,
			unsigned int calls)
{
	unsigned __int128 bits;
	u64 ns;

	/*
	 * dcqcn.c's bound: two alpha runs of at most 1023 steps, three
	 * increase runs of at most threshold + 2 + 64 + 1 + 64.
	 */
	FUZZ_ASSERT(steps <= calls * (2 * 1023UL +
				      3 * (cfg->threshold + 2 + 129UL)));
	FUZZ_ASSERT(rp->alpha <= SROCE_DCQCN_ALPHA_MAX);
	if (!rp->active)
		return;
	FUZZ_ASSERT(cfg->min_kbps <= rp->rc_kbps);
	FUZZ_ASSERT(rp->rc_kbps <= rp->rt_kbps);
	FUZZ_ASSERT(rp->rt_kbps <= cfg->max_kbps);
	FUZZ_ASSERT(rp->stage[0] <= 31 + 2 && rp->stage[1] <= 31 + 2);
	/* Pacing at the current rate: no division by zero, exact. */
	ns = sroce_dcqcn_tx_ns(rp->byte_count + 1, rp->rc_kbps);
	bits = ((unsigned __int128)rp->byte_count + 1) * 8000000;
	FUZZ_ASSERT((unsigned __int128)ns * rp->rc_kbps <= bits &&
		    ((unsigned __int128)ns + 1) * rp->rc_kbps > bits);
}

/*
 * A history of events applied three times over: A as given; B with an
 * extra sroce_dcqcn_advance() at a point the input picks before each
 * call, which dcqcn.h says changes nothing (lazy evaluation equals timers
 * firing on time, whatever the gap between two calls); C as A again, for
 * determinism. A keeps its rate and alpha bounds after every call, with
 * bounded work; B matches A after every call, C at the end.
 */
static void fuzz_dcqcn(const u8 *p, size_t n)
{
	u32 raw[SROCE_NUM_CC_PARAMS];
	struct sroce_dcqcn_cfg cfg;
	struct sroce_dcqcn_rp a, b, c;
	u64 line = get_le(p, n, 0, 4) << (get_le(p, n, 4, 1) % 9);
	u64 now = get_le(p, n, 5, 3) * 1000;
	unsigned int ev;
	size_t off;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	memset(&c, 0, sizeof(c));
	sroce_cc_params_default(raw);
	dcqcn_cfg(&cfg, raw, line);

	for (off = SROCE_FUZZ_DCQCN_HDR, ev = 0;
	     off < n && ev < DCQCN_MAX_EVENTS;
	     off += SROCE_FUZZ_DCQCN_EV, ev++) {
		u8 op = get_le(p, n, off, 1), dtb = get_le(p, n, off + 1, 1);
		u32 arg = get_le(p, n, off + 2, 4);
		unsigned int kind = op & 7, flags = op >> 3, id;
		bool was_active = a.active;

		/* Up to 31 * 100 ns * 2^28 (13 min) between two events. */
		now = add_time(now, ((u64)(dtb & 31) * 100) << ((dtb >> 5) * 4));
		switch (kind) {
		case SROCE_FUZZ_EV_KNOB:
			id = arg & 31;
			arg >>= 8;
			if (id >= SROCE_NUM_CC_PARAMS) {
				FUZZ_ASSERT(sroce_cc_param_check(id, arg) ==
					    -EOPNOTSUPP);
				continue;
			}
			/* Mostly within the table's range, as SET_CC_PARAM. */
			if ((flags & 3) != 3)
				arg = sroce_cc_params[id].min + arg %
				      (sroce_cc_params[id].max -
				       sroce_cc_params[id].min + 1);
			FUZZ_ASSERT(sroce_cc_param_check(id, arg) ==
				    (arg >= sroce_cc_params[id].min &&
				     arg <= sroce_cc_params[id].max ? 0 :
				     -EINVAL));
			raw[id] = arg;
			dcqcn_cfg(&cfg, raw, line);
			continue;
		case SROCE_FUZZ_EV_LINE:
			/* Port speeds from 0 to 2^40 kbit/s. */
			line = (u64)arg << (flags % 9);
			dcqcn_cfg(&cfg, raw, line);
			continue;
		case SROCE_FUZZ_EV_BACK:
			now -= now < (u64)arg * 100 ? now : (u64)arg * 100;
			break;
		case SROCE_FUZZ_EV_IDLE:
			now = add_time(now, (u64)arg * 1000);
			break;
		}

		if (b.active && now > b.last_ns) {
			u64 mid = b.last_ns + (now - b.last_ns) / 16 *
				  ((arg ^ op) & 15);

			sroce_dcqcn_steps = 0;
			sroce_dcqcn_advance(&b, &cfg, mid);
			dcqcn_check(&b, &cfg, sroce_dcqcn_steps, 1);
		}
		sroce_dcqcn_steps = 0;
		dcqcn_call(&a, &cfg, kind, flags, now, arg);
		dcqcn_check(&a, &cfg, sroce_dcqcn_steps,
			    kind == SROCE_FUZZ_EV_CNP_SENT ? 2 : 1);
		dcqcn_call(&b, &cfg, kind, flags, now, arg);
		dcqcn_call(&c, &cfg, kind, flags, now, arg);
		FUZZ_ASSERT(rp_same(&a, &b, false));

		sroce_fuzz_stats.dcqcn_calls++;
		if (a.active)
			sroce_fuzz_stats.dcqcn_limited++;
		else if (was_active)
			sroce_fuzz_stats.dcqcn_released++;
	}
	FUZZ_ASSERT(rp_same(&a, &c, true));
}

/* --- Addressing (addr.c) ------------------------------------------------ */

static void check_range(u64 base, u64 size, u64 addr, u64 len)
{
	/* In 128 bits nothing wraps: the answer by definition. */
	bool want = addr >= base && (unsigned __int128)addr + len <=
				    (unsigned __int128)base + size;

	sroce_fuzz_stats.addr_checks++;
	if (want)
		sroce_fuzz_stats.addr_within++;
	FUZZ_ASSERT(sroce_range_within(base, size, addr, len) == want);
}

/* Data rate of one lane at an IB speed code, in Mbit/s. */
static u32 ib_lane_mbps(u16 speed)
{
	switch (speed) {
	case SROCE_IB_SPEED_SDR: return 2500;
	case SROCE_IB_SPEED_DDR: return 5000;
	case SROCE_IB_SPEED_QDR:
	case SROCE_IB_SPEED_FDR10: return 10000;
	case SROCE_IB_SPEED_EDR: return 25000;
	case SROCE_IB_SPEED_HDR: return 50000;
	case SROCE_IB_SPEED_NDR: return 100000;
	default: return 0;
	}
}

static void check_link(u32 x)
{
	unsigned int mtu = sroce_active_ib_mtu(x), bytes;
	u16 speed = 0;
	u8 width = 0;

	/* The largest IB MTU whose packets, worst headers included, fit. */
	if (!mtu) {
		FUZZ_ASSERT(x < 256 + SROCE_ROCE_MAX_OVERHEAD);
	} else {
		FUZZ_ASSERT(mtu >= SROCE_IB_MTU_256 && mtu <= SROCE_IB_MTU_4096);
		FUZZ_ASSERT(sroce_ib_mtu_bytes(mtu) + SROCE_ROCE_MAX_OVERHEAD <= x);
		FUZZ_ASSERT(mtu == SROCE_IB_MTU_4096 ||
			    x < sroce_ib_mtu_bytes(mtu + 1) +
				SROCE_ROCE_MAX_OVERHEAD);
	}
	bytes = sroce_ib_mtu_bytes(x);
	FUZZ_ASSERT(x >= SROCE_IB_MTU_256 && x <= SROCE_IB_MTU_4096 ?
		    bytes == 128U << x : !bytes);

	/* An IB rate not above the Ethernet one, but for the slowest. */
	sroce_eth_speed_to_ib(x, &speed, &width);
	FUZZ_ASSERT(ib_lane_mbps(speed));
	FUZZ_ASSERT(width == SROCE_IB_WIDTH_1X || width == SROCE_IB_WIDTH_4X);
	FUZZ_ASSERT((u64)ib_lane_mbps(speed) *
		    (width == SROCE_IB_WIDTH_4X ? 4 : 1) <= x ||
		    (speed == SROCE_IB_SPEED_SDR && width == SROCE_IB_WIDTH_1X));
}

/*
 * Records of (base, size, addr, len): sroce_range_within() equals the
 * exact answer for them and for the accesses at the region's edges,
 * where a wrapping sum would hide (ending at the end or one byte past it,
 * starting one byte before the region). Each 32-bit half also feeds the
 * MTU and link speed helpers.
 */
static void fuzz_addr(const u8 *p, size_t n)
{
	size_t off = 0;

	do {
		u64 base = get_le(p, n, off, 8), size = get_le(p, n, off + 8, 8);
		u64 addr = get_le(p, n, off + 16, 8);
		u64 len = get_le(p, n, off + 24, 8);
		u64 end = base + size;	/* wraps on purpose */

		check_range(base, size, addr, len);
		check_range(base, size, end - len, len);
		check_range(base, size, end - len + 1, len);
		check_range(base, size, base - 1, len);
		check_range(base, size, addr, end - addr);
		check_range(base, size, addr, end - addr + 1);
		check_link(base);
		check_link(base >> 32);
		check_link(len);
		off += SROCE_FUZZ_ADDR_REC;
	} while (off < n);
}

/* Selector modulo 16 to mode: below 8 as when it was modulo 8. */
static const u8 sroce_fuzz_modes[16] = {
	SROCE_FUZZ_TRANSPORT, SROCE_FUZZ_IPV4, SROCE_FUZZ_IPV6, SROCE_FUZZ_GRH,
	SROCE_FUZZ_PFC, SROCE_FUZZ_IPV4, SROCE_FUZZ_IPV6, SROCE_FUZZ_GRH,
	SROCE_FUZZ_QP, SROCE_FUZZ_IPV4, SROCE_FUZZ_IPV6, SROCE_FUZZ_GRH,
	SROCE_FUZZ_PFC, SROCE_FUZZ_CMD, SROCE_FUZZ_DCQCN, SROCE_FUZZ_ADDR,
};

_Static_assert((int)SROCE_FUZZ_IPV4 == (int)SROCE_L3_IPV4 &&
	       (int)SROCE_FUZZ_IPV6 == (int)SROCE_L3_IPV6 &&
	       (int)SROCE_FUZZ_GRH == (int)SROCE_L3_GRH, "L3 modes are L3 types");

/**
 * sroce_fuzz_mode() - what a selector byte picks
 * @selector: the first byte of an input
 *
 * Return: an enum sroce_fuzz_mode value.
 */
unsigned int sroce_fuzz_mode(uint8_t selector)
{
	return sroce_fuzz_modes[selector & 15];
}

/**
 * sroce_fuzz_one() - run one fuzz input
 * @data: selector byte followed by the bytes under test
 * @size: bytes at @data
 */
void sroce_fuzz_one(const uint8_t *data, size_t size)
{
	unsigned int mode;

	if (!size)
		return;
	mode = sroce_fuzz_mode(data[0]);
	data++;
	size--;
	switch (mode) {
	case SROCE_FUZZ_TRANSPORT:
		fuzz_transport(data, size);
		break;
	case SROCE_FUZZ_IPV4:
	case SROCE_FUZZ_IPV6:
	case SROCE_FUZZ_GRH:
		fuzz_icrc(data, size, mode);
		break;
	case SROCE_FUZZ_PFC:
		fuzz_pause(data, size);
		break;
	case SROCE_FUZZ_QP:
		fuzz_qp(data, size);
		break;
	case SROCE_FUZZ_CMD:
		fuzz_cmd(data, size);
		break;
	case SROCE_FUZZ_DCQCN:
		fuzz_dcqcn(data, size);
		break;
	default:
		fuzz_addr(data, size);
		break;
	}
}
