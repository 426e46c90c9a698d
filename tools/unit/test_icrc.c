// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Unit tests of drivers/lib/icrc.c against the frames that
 * gen_icrc_vectors.py (an independent Python/zlib oracle) produced.
 */
#include <stdlib.h>

#include "lib/roce_hdr.h"
#include "unit.h"
#include "icrc_vectors.h"
#include "train_cut.h"

/* An exact-size heap copy of a vector's frame, so ASan sees over-reads. */
static u8 *frame_copy(const struct sroce_icrc_vector *v)
{
	u8 *p = malloc(v->len);

	memcpy(p, v->frame, v->len);
	return p;
}

/* Bytes from the L3 header through the pad (the ICRC follows them). */
static size_t icrc_span(const struct sroce_icrc_vector *v)
{
	return v->len - v->l3_off - SROCE_ICRC_LEN;
}

/*
 * The bits of the byte at @off (from the L3 header) that the ICRC must
 * ignore, per section 1.7 of the research notes; written from the field
 * list, independently of icrc.c.
 */
static u8 variant_bits(const struct sroce_icrc_vector *v, unsigned int off)
{
	unsigned int bth = v->bth_off - v->l3_off;

	if (off == bth + 4)
		return 0xff;				/* FECN, BECN, Resv6a */
	if (v->l3_type == SROCE_L3_IPV4) {
		if (off == 1 || off == 8 || off == 10 || off == 11)
			return 0xff;			/* TOS, TTL, checksum */
		if (off == 26 || off == 27)
			return 0xff;			/* UDP checksum */
		return 0;
	}
	if (v->l3_type == SROCE_L3_IPV6 && (off == 46 || off == 47))
		return 0xff;				/* UDP checksum */
	/* IPv6 header or GRH */
	if (off == 0)
		return 0x0f;				/* TClass high nibble */
	if (off >= 1 && off <= 3)
		return 0xff;				/* TClass, flow label */
	if (off == 7)
		return 0xff;				/* hop limit */
	return 0;
}

static void test_crc32_primitive(void)
{
	static const u8 ff8[8] = {
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	};
	const u8 *check = (const u8 *)"123456789";

	/* The standard CRC-32 check value. */
	CHECK_EQ(~sroce_crc32_le(0xffffffff, check, 9), 0xcbf43926);
	/* The ICRC seed: raw state after eight 0xff bytes. */
	CHECK_EQ(sroce_crc32_le(0xffffffff, ff8, 8), 0xdebb20e3);
	/* Incremental use is the same as one pass. */
	CHECK_EQ(sroce_crc32_le(sroce_crc32_le(0xffffffff, check, 4),
				check + 4, 5),
		 sroce_crc32_le(0xffffffff, check, 9));
	CHECK_EQ(sroce_crc32_le(0x12345678, check, 0), 0x12345678);
}

/* x^e mod P(x), P the CRC-32 polynomial in its normal bit order. */
static u32 x_pow_mod_p(unsigned int e)
{
	u64 r = 1;

	while (e--) {
		r <<= 1;
		if (r >> 32)
			r ^= 0x104c11db7ULL;
	}
	return (u32)r;
}

/*
 * The fold (icrc.c) rests on Q(x) = x^300 + x^155 + x^117 + x^89 + 1
 * being a multiple of P; then it must agree with the byte-at-a-time CRC
 * for every length around its threshold and its tail, any start
 * alignment, any running CRC, and in pieces.
 */
static void test_crc32_fold(void)
{
	static const u32 seeds[] = { 0, 0xffffffff, 0xdebb20e3, 0x8badf00d };
	enum { MAX_LEN = 1100 };
	u8 *data = malloc(MAX_LEN + 8), *p;
	unsigned int len, off, s, bad = 0;
	u32 state = 0x2545f491;

	CHECK_EQ(x_pow_mod_p(300) ^ x_pow_mod_p(155) ^ x_pow_mod_p(117) ^
		 x_pow_mod_p(89) ^ x_pow_mod_p(0), 0);
	CHECK(data);
	if (!data)
		return;
	for (len = 0; len < MAX_LEN + 8; len++) {
		state = state * 1103515245 + 12345;
		data[len] = state >> 23;
	}
	for (len = 0; len <= MAX_LEN; len++) {
		for (off = 0; off < 8; off++) {
			/*
			 * At @off bytes past a heap block's (aligned) start,
			 * ending with it, so ASan sees any over-read.
			 */
			p = malloc(off + len + !(off + len));
			CHECK(p);
			if (!p)
				break;
			memcpy(p + off, data, len);
			for (s = 0; s < ARRAY_SIZE(seeds); s++)
				bad += sroce_crc32_fold(seeds[s], p + off,
							len) !=
				       crc32_host_bytewise(seeds[s], p + off,
							   len);
			free(p);
		}
	}
	CHECK_EQ(bad, 0);
	/* In pieces, both long enough to fold. */
	CHECK_EQ(sroce_crc32_fold(sroce_crc32_fold(0xffffffff, data, 517),
				  data + 517, 583),
		 crc32_host_bytewise(0xffffffff, data, 1100));
	/* zlib's crc32() of 1,000 bytes (i * 7) & 0xff, from Python. */
	for (len = 0; len < 1000; len++)
		data[len] = (u8)(len * 7);
	CHECK_EQ(~sroce_crc32_fold(0xffffffff, data, 1000), 0x114ad5ff);
	free(data);
}

static void test_icrc_vectors(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(sroce_icrc_vectors); i++) {
		const struct sroce_icrc_vector *v = &sroce_icrc_vectors[i];
		struct sroce_roce_info info;
		u8 *p = frame_copy(v);
		u32 icrc = 0;

		CHECK_EQ(sroce_icrc_compute(p + v->l3_off, icrc_span(v),
					    v->l3_type, &icrc), 0);
		if (icrc != v->icrc)
			fprintf(stderr, "  vector %s:\n", v->name);
		CHECK_EQ(icrc, v->icrc);
		CHECK_EQ(sroce_get_le32(p + v->len - 4), v->icrc);
		CHECK_EQ(sroce_icrc_verify(p + v->l3_off, icrc_span(v),
					   v->l3_type), 0);
		/* Generate rewrites exactly the same four bytes. */
		memset(p + v->len - 4, 0, 4);
		CHECK_EQ(sroce_icrc_verify(p + v->l3_off, icrc_span(v),
					   v->l3_type), -EILSEQ);
		CHECK_EQ(sroce_icrc_generate(p + v->l3_off, icrc_span(v),
					     v->l3_type), 0);
		CHECK(!memcmp(p, v->frame, v->len));
		/* The transport part parses. */
		CHECK_EQ(sroce_roce_parse(p + v->bth_off, v->len - v->bth_off,
					  &info), 0);
		free(p);
	}
}

/*
 * The headers apart from the packet (a train's packets get theirs only when
 * cut) give the same ICRC as the packet in one piece.
 */
static void test_icrc_split(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(sroce_icrc_vectors); i++) {
		const struct sroce_icrc_vector *v = &sroce_icrc_vectors[i];
		size_t l3_len = v->bth_off - v->l3_off;
		u8 *p = frame_copy(v);
		u8 *hdr = malloc(l3_len), *pkt = malloc(v->len - v->bth_off);
		u32 icrc = 0;

		CHECK(hdr && pkt);
		memcpy(hdr, p + v->l3_off, l3_len);
		memcpy(pkt, p + v->bth_off, v->len - v->bth_off);
		memset(p, 0, v->len);
		CHECK_EQ(sroce_icrc_compute_split(hdr, l3_len, pkt,
						  v->len - v->bth_off - 4,
						  v->l3_type, &icrc), 0);
		if (icrc != v->icrc)
			fprintf(stderr, "  vector %s:\n", v->name);
		CHECK_EQ(icrc, v->icrc);
		/* The header length must be the type's. */
		CHECK_EQ(sroce_icrc_compute_split(hdr, l3_len - 1, pkt,
						  v->len - v->bth_off - 4,
						  v->l3_type, &icrc), -EINVAL);
		/* At least a BTH. */
		CHECK_EQ(sroce_icrc_compute_split(hdr, l3_len, pkt, 11,
						  v->l3_type, &icrc), -EBADMSG);
		free(hdr);
		free(pkt);
		free(p);
	}
}

/*
 * A train: packets of one length (the last shorter) behind one IP and UDP
 * header, each packet's ICRC computed as the driver does, for the header
 * sroce_train_seg_hdr() says it gets. Cut apart as UDP segmentation
 * does (train_cut_hdr()) (each packet its own datagram, the train's header with its own
 * lengths and, IPv4, the next ID), every packet must verify as a single.
 */
static void check_train(unsigned int l3_type, u16 first_id)
{
	enum { SEGS = 5, SEG_LEN = 1040, LAST_LEN = 528 };
	unsigned int ip_len = l3_type == SROCE_L3_IPV4 ? SROCE_IPV4_HDR_LEN :
							 SROCE_IPV6_HDR_LEN;
	unsigned int l3_len = ip_len + SROCE_UDP_HDR_LEN, i, k;
	u8 train_hdr[SROCE_IPV6_HDR_LEN + SROCE_UDP_HDR_LEN] = { 0 };
	u8 hdr[sizeof(train_hdr)];
	u8 *pkts = calloc(SEGS, SEG_LEN), *one = malloc(l3_len + SEG_LEN);
	u32 icrc;

	CHECK(pkts && one);
	if (l3_type == SROCE_L3_IPV4) {
		train_hdr[0] = 0x45;
		train_hdr[1] = 0x02;			/* ECT(0) */
		sroce_put_be16(train_hdr + 4, first_id);
		train_hdr[6] = 0x40;			/* DF */
		train_hdr[8] = 64;
		train_hdr[9] = 17;
		memcpy(train_hdr + 12, "\x0a\x4d\x00\x01\x0a\x4d\x00\x02", 8);
	} else {
		train_hdr[0] = 0x60;
		train_hdr[6] = 17;
		train_hdr[7] = 64;
		for (k = 8; k < 40; k++)
			train_hdr[k] = k;
	}
	sroce_put_be16(train_hdr + ip_len, 0xc123);	/* source port */
	sroce_put_be16(train_hdr + ip_len + 2, 4791);
	for (i = 0; i < SEGS; i++) {
		u8 *p = pkts + i * SEG_LEN;
		u32 len = i == SEGS - 1 ? LAST_LEN : SEG_LEN;

		p[0] = i ? 0x01 : 0x00;			/* SEND first/middle */
		sroce_put_be16(p + 2, 0xffff);		/* P_Key */
		sroce_put_be24(p + 5, 0x11);		/* QPN */
		sroce_put_be24(p + 9, 100 + i);		/* PSN */
		for (k = 12; k < len - 4; k++)
			p[k] = (u8)(i * 31 + k);
		memcpy(hdr, train_hdr, l3_len);
		sroce_train_seg_hdr(hdr, l3_len, l3_type, first_id, i, len);
		CHECK_EQ(sroce_icrc_compute_split(hdr, l3_len, p, len - 4,
						  l3_type, &icrc), 0);
		sroce_put_le32(p + len - 4, icrc);
	}
	/* Segmentation, written apart from sroce_train_seg_hdr(). */
	for (i = 0; i < SEGS; i++) {
		u32 len = i == SEGS - 1 ? LAST_LEN : SEG_LEN;

		train_cut_hdr(one, train_hdr, l3_len, l3_type,
			      (u16)(first_id + i), len);
		memcpy(one + l3_len, pkts + i * SEG_LEN, len);
		CHECK_EQ(sroce_icrc_verify(one, l3_len + len - 4, l3_type), 0);
		/* As the receiver of the whole train checks it. */
		memcpy(hdr, train_hdr, l3_len);
		sroce_train_seg_hdr(hdr, l3_len, l3_type, first_id, i, len);
		CHECK_EQ(sroce_icrc_verify_split(hdr, l3_len,
						 pkts + i * SEG_LEN, len - 4,
						 l3_type), 0);
		CHECK_EQ(sroce_icrc_verify_split(train_hdr, l3_len,
						 pkts + i * SEG_LEN, len - 4,
						 l3_type), -EILSEQ);
		/* Another ID (IPv4) or payload length (IPv6) breaks it. */
		one[5] ^= 1;
		CHECK_EQ(sroce_icrc_verify(one, l3_len + len - 4, l3_type),
			 -EILSEQ);
	}
	free(pkts);
	free(one);
}

static void test_icrc_train(void)
{
	check_train(SROCE_L3_IPV4, 0x1234);
	check_train(SROCE_L3_IPV4, 0xfffe);		/* the ID wraps */
	check_train(SROCE_L3_IPV6, 0);
}

/* Flipping any variant bit leaves the ICRC valid; any other bit breaks it. */
static void test_icrc_masking(void)
{
	unsigned int i, off, bit;

	for (i = 0; i < ARRAY_SIZE(sroce_icrc_vectors); i++) {
		const struct sroce_icrc_vector *v = &sroce_icrc_vectors[i];
		size_t span = icrc_span(v);
		u8 *p = frame_copy(v);
		u8 *l3 = p + v->l3_off;

		for (off = 0; off < span; off++) {
			u8 variant = variant_bits(v, off);

			for (bit = 0; bit < 8; bit++) {
				u8 m = 1U << bit;
				int ret;

				l3[off] ^= m;
				ret = sroce_icrc_verify(l3, span, v->l3_type);
				if (variant & m) {
					CHECK_EQ(ret, 0);
				} else if (ret != -EILSEQ &&
					   ret != -EPROTONOSUPPORT) {
					/* -EPROTONOSUPPORT: version bits */
					fprintf(stderr, "  %s: byte %u bit %u\n",
						v->name, off, bit);
					CHECK_EQ(ret, -EILSEQ);
				}
				l3[off] ^= m;
			}
			/* All variant bits of the byte at once. */
			l3[off] ^= variant;
			CHECK_EQ(sroce_icrc_verify(l3, span, v->l3_type), 0);
			l3[off] ^= variant;
		}
		/* The stored ICRC itself. */
		for (off = 0; off < 4; off++) {
			l3[span + off] ^= 0x10;
			CHECK_EQ(sroce_icrc_verify(l3, span, v->l3_type),
				 -EILSEQ);
			l3[span + off] ^= 0x10;
		}
		free(p);
	}
}

/* The same, spelled out by field name for the first IPv4 vector. */
static void test_icrc_named_fields(void)
{
	const struct sroce_icrc_vector *v = &sroce_icrc_vectors[0];
	size_t span = icrc_span(v);
	u8 *p = frame_copy(v);
	u8 *ip = p + v->l3_off, *udp = ip + 20, *bth = ip + 28;

	CHECK_EQ(v->l3_type, SROCE_L3_IPV4);
	ip[1] ^= 0x03;				/* ECN: CE -> Not-ECT */
	ip[1] ^= 0xfc;				/* DSCP */
	ip[8] -= 1;				/* TTL after a hop */
	ip[10] ^= 0x5a;				/* header checksum */
	udp[6] = 0;				/* UDP checksum */
	udp[7] = 0;
	sroce_bth_set_fecn(bth, !sroce_bth_fecn(bth));
	sroce_bth_set_becn(bth, !sroce_bth_becn(bth));
	CHECK_EQ(sroce_icrc_verify(ip, span, v->l3_type), 0);

	memcpy(p, v->frame, v->len);
	ip[15] ^= 1;				/* source address */
	CHECK_EQ(sroce_icrc_verify(ip, span, v->l3_type), -EILSEQ);
	memcpy(p, v->frame, v->len);
	ip[19] ^= 1;				/* destination address */
	CHECK_EQ(sroce_icrc_verify(ip, span, v->l3_type), -EILSEQ);
	memcpy(p, v->frame, v->len);
	udp[1] ^= 1;				/* source port */
	CHECK_EQ(sroce_icrc_verify(ip, span, v->l3_type), -EILSEQ);
	memcpy(p, v->frame, v->len);
	udp[3] ^= 1;				/* destination port */
	CHECK_EQ(sroce_icrc_verify(ip, span, v->l3_type), -EILSEQ);
	memcpy(p, v->frame, v->len);
	sroce_bth_set_qpn(bth, sroce_bth_qpn(bth) ^ 1);
	CHECK_EQ(sroce_icrc_verify(ip, span, v->l3_type), -EILSEQ);
	memcpy(p, v->frame, v->len);
	sroce_bth_set_psn(bth, sroce_bth_psn(bth) + 1);
	CHECK_EQ(sroce_icrc_verify(ip, span, v->l3_type), -EILSEQ);
	memcpy(p, v->frame, v->len);
	bth[SROCE_BTH_LEN] ^= 0x80;		/* payload */
	CHECK_EQ(sroce_icrc_verify(ip, span, v->l3_type), -EILSEQ);
	memcpy(p, v->frame, v->len);
	ip[3] ^= 4;				/* total length */
	CHECK_EQ(sroce_icrc_verify(ip, span, v->l3_type), -EILSEQ);
	free(p);
}

static void test_icrc_errors(void)
{
	const struct sroce_icrc_vector *v4 = &sroce_icrc_vectors[0];
	u8 *p = frame_copy(v4);
	u8 *ip = p + v4->l3_off;
	u32 icrc;

	CHECK_EQ(sroce_icrc_compute(ip, 39, SROCE_L3_IPV4, &icrc), -EBADMSG);
	CHECK_EQ(sroce_icrc_compute(ip, 40, SROCE_L3_IPV4, &icrc), 0);
	CHECK_EQ(sroce_icrc_compute(ip, 40, 0, &icrc), -EINVAL);
	CHECK_EQ(sroce_icrc_compute(ip, 40, 4, &icrc), -EINVAL);
	CHECK_EQ(sroce_icrc_compute(ip, 59, SROCE_L3_IPV6, &icrc), -EBADMSG);
	CHECK_EQ(sroce_icrc_compute(ip, 51, SROCE_L3_GRH, &icrc), -EBADMSG);
	/* An IPv4 header is not an IPv6 header or a GRH. */
	CHECK_EQ(sroce_icrc_compute(ip, 60, SROCE_L3_IPV6, &icrc),
		 -EPROTONOSUPPORT);
	CHECK_EQ(sroce_icrc_compute(ip, 52, SROCE_L3_GRH, &icrc),
		 -EPROTONOSUPPORT);
	ip[0] = 0x46;				/* options */
	CHECK_EQ(sroce_icrc_compute(ip, 40, SROCE_L3_IPV4, &icrc),
		 -EPROTONOSUPPORT);
	CHECK_EQ(sroce_icrc_generate(ip, 40, SROCE_L3_IPV4), -EPROTONOSUPPORT);
	CHECK(!memcmp(ip + 40, v4->frame + v4->l3_off + 40, 4));
	free(p);
}

const struct unit_test icrc_tests[] = {
	{ "icrc/crc32_primitive", test_crc32_primitive },
	{ "icrc/crc32_fold", test_crc32_fold },
	{ "icrc/vectors", test_icrc_vectors },
	{ "icrc/split", test_icrc_split },
	{ "icrc/train", test_icrc_train },
	{ "icrc/masking", test_icrc_masking },
	{ "icrc/named_fields", test_icrc_named_fields },
	{ "icrc/errors", test_icrc_errors },
	{ NULL, NULL },
};
