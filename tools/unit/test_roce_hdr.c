// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Unit tests of drivers/lib/roce_hdr.c (opcode table, parser, builder). */
#include <stdlib.h>

#include "lib/roce_hdr.h"
#include "unit.h"

#define PKT_MAX	(SROCE_ROCE_MAX_HDR_LEN + SROCE_ROCE_MAX_PAYLOAD + 3 + \
		 SROCE_ICRC_LEN + 16)

/* Every opcode sroce accepts, with its expected transport-header length. */
static const struct {
	u8 opcode;
	u8 hdr_len;
} valid_ops[] = {
	{ 0x00, 12 }, { 0x01, 12 }, { 0x02, 12 }, { 0x03, 16 }, { 0x04, 12 },
	{ 0x05, 16 }, { 0x06, 28 }, { 0x07, 12 }, { 0x08, 12 }, { 0x09, 16 },
	{ 0x0a, 28 }, { 0x0b, 32 }, { 0x0c, 28 }, { 0x0d, 16 }, { 0x0e, 12 },
	{ 0x0f, 16 }, { 0x10, 16 }, { 0x11, 16 }, { 0x12, 24 }, { 0x13, 40 },
	{ 0x14, 40 }, { 0x16, 16 }, { 0x17, 16 }, { 0x1c, 32 }, { 0x1d, 28 },
	{ 0x20, 12 }, { 0x21, 12 }, { 0x22, 12 }, { 0x23, 16 }, { 0x24, 12 },
	{ 0x25, 16 }, { 0x26, 28 }, { 0x27, 12 }, { 0x28, 12 }, { 0x29, 16 },
	{ 0x2a, 28 }, { 0x2b, 32 },
	{ 0x64, 20 }, { 0x65, 24 },
	{ 0x81, 28 },
};

static int expected_hdr_len(unsigned int opcode)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(valid_ops); i++)
		if (valid_ops[i].opcode == opcode)
			return valid_ops[i].hdr_len;
	return 0;
}

/* Parse from an exact-size heap copy so ASan sees any over-read. */
static int parse_exact(const u8 *pkt, size_t len, struct sroce_roce_info *info)
{
	u8 *copy = malloc(len ? len : 1);
	int ret;

	memcpy(copy, pkt, len);
	ret = sroce_roce_parse(copy, len, info);
	free(copy);
	return ret;
}

/* A payload length the rules accept for @op, near @want. */
static u32 legal_payload(const struct sroce_roce_opinfo *op, u32 want)
{
	if (!(op->flags & SROCE_OPF_PAYLOAD))
		return 0;
	if (op->kind == SROCE_OPK_ATOMIC_WRITE)
		return SROCE_ATOMIC_WRITE_LEN;
	if (op->flags & (SROCE_OPF_FIRST | SROCE_OPF_MIDDLE))
		return SROCE_ROCE_MIN_PMTU;
	if ((op->flags & SROCE_OPF_LAST) && !want)
		return 1;
	return want;
}

static void sample_fields(struct sroce_roce_fields *f, u8 opcode,
			  u32 payload_len)
{
	memset(f, 0, sizeof(*f));
	f->opcode = opcode;
	f->se = true;
	f->mig = false;
	f->fecn = true;
	f->becn = false;
	f->ackreq = true;
	f->pkey = 0x8123;
	f->qpn = 0xa1b2c3;
	f->psn = 0xfffffe;
	f->payload_len = payload_len;
	f->deth_qkey = 0x80010000;
	f->deth_sqp = 0x00beef;
	f->feth = 0x21;
	f->reth_va = 0x0011223344556677ULL;
	f->reth_rkey = 0x8899aabb;
	f->reth_len = 0xccddeeff;
	f->atm_va = 0x1020304050607080ULL;
	f->atm_rkey = 0x0badf00d;
	f->atm_swap_add = 0xfedcba9876543210ULL;
	f->atm_cmp = 0x0123456789abcdefULL;
	f->imm = 0xdeadbeef;
	f->ieth_rkey = 0xcafebabe;
	f->aeth_syndrome = SROCE_AETH_CREDIT_INVALID;
	f->aeth_msn = 0x123456;
	f->atmack_orig = 0x5555aaaa3333ccccULL;
}

/* The subset of @f that the opcode carries, as the decoder reports it. */
static void carried_fields(const struct sroce_roce_fields *f,
			   struct sroce_roce_fields *out)
{
	const struct sroce_roce_opinfo *op = sroce_roce_opinfo(f->opcode);

	*out = *f;
	if (!(op->hdrs & SROCE_HDR_DETH)) {
		out->deth_qkey = 0;
		out->deth_sqp = 0;
	}
	if (!(op->hdrs & SROCE_HDR_FETH))
		out->feth = 0;
	if (!(op->hdrs & SROCE_HDR_RETH)) {
		out->reth_va = 0;
		out->reth_rkey = 0;
		out->reth_len = 0;
	}
	if (!(op->hdrs & SROCE_HDR_ATMETH)) {
		out->atm_va = 0;
		out->atm_rkey = 0;
		out->atm_swap_add = 0;
		out->atm_cmp = 0;
	}
	if (!(op->hdrs & SROCE_HDR_IMMDT))
		out->imm = 0;
	if (!(op->hdrs & SROCE_HDR_IETH))
		out->ieth_rkey = 0;
	if (!(op->hdrs & SROCE_HDR_AETH)) {
		out->aeth_syndrome = 0;
		out->aeth_msn = 0;
	}
	if (!(op->hdrs & SROCE_HDR_ATMACK))
		out->atmack_orig = 0;
}

static bool fields_equal(const struct sroce_roce_fields *a,
			 const struct sroce_roce_fields *b)
{
	return a->opcode == b->opcode && a->se == b->se && a->mig == b->mig &&
	       a->fecn == b->fecn && a->becn == b->becn &&
	       a->ackreq == b->ackreq && a->pkey == b->pkey &&
	       a->qpn == b->qpn && a->psn == b->psn &&
	       a->payload_len == b->payload_len &&
	       a->deth_qkey == b->deth_qkey && a->deth_sqp == b->deth_sqp &&
	       a->feth == b->feth && a->reth_va == b->reth_va &&
	       a->reth_rkey == b->reth_rkey && a->reth_len == b->reth_len &&
	       a->atm_va == b->atm_va && a->atm_rkey == b->atm_rkey &&
	       a->atm_swap_add == b->atm_swap_add &&
	       a->atm_cmp == b->atm_cmp && a->imm == b->imm &&
	       a->ieth_rkey == b->ieth_rkey &&
	       a->aeth_syndrome == b->aeth_syndrome &&
	       a->aeth_msn == b->aeth_msn &&
	       a->atmack_orig == b->atmack_orig;
}

/* Build headers, payload, zero pad and a dummy ICRC; return the length. */
static int build_pkt(u8 *pkt, const struct sroce_roce_fields *f)
{
	int hlen = sroce_roce_build(pkt, PKT_MAX, f);
	u32 i, pad;

	if (hlen < 0)
		return hlen;
	for (i = 0; i < f->payload_len; i++)
		pkt[hlen + i] = (u8)(i * 13 + 1);
	pad = sroce_roce_pad(f->payload_len);
	memset(pkt + hlen + f->payload_len, 0, pad);
	memset(pkt + hlen + f->payload_len + pad, 0xa5, SROCE_ICRC_LEN);
	return hlen + f->payload_len + pad + SROCE_ICRC_LEN;
}

static void test_opcode_table(void)
{
	unsigned int opcode, nvalid = 0;

	for (opcode = 0; opcode < 256; opcode++) {
		const struct sroce_roce_opinfo *op = sroce_roce_opinfo(opcode);
		unsigned int pos, e, len = SROCE_BTH_LEN;
		int want = expected_hdr_len(opcode);

		CHECK_EQ(!!op, !!want);
		if (!op)
			continue;
		nvalid++;
		CHECK_EQ(op->hdr_len, want);
		CHECK(op->name && op->name[0]);
		CHECK(op->kind != SROCE_OPK_INVALID);
		for (e = 0; e < SROCE_EXT_NUM; e++)
			if (op->hdrs & BIT(e))
				len += sroce_roce_ext_len(e);
		CHECK_EQ(len, op->hdr_len);
		CHECK(op->hdr_len <= SROCE_ROCE_MAX_HDR_LEN);
		pos = op->flags & (SROCE_OPF_FIRST | SROCE_OPF_MIDDLE |
				   SROCE_OPF_LAST | SROCE_OPF_ONLY);
		CHECK(pos && !(pos & (pos - 1)));	/* exactly one */
		CHECK_EQ(!!(op->flags & SROCE_OPF_IMM),
			 !!(op->hdrs & SROCE_HDR_IMMDT));
		CHECK_EQ(!!(op->flags & SROCE_OPF_INV),
			 !!(op->hdrs & SROCE_HDR_IETH));
		CHECK(!(op->flags & SROCE_OPF_REQ) ||
		      !(op->flags & SROCE_OPF_RESP));
		if (opcode == SROCE_OPCODE_CNP) {
			CHECK_EQ(op->kind, SROCE_OPK_CNP);
			CHECK(op->flags & SROCE_OPF_NOSEQ);
			CHECK(!(op->flags & (SROCE_OPF_REQ | SROCE_OPF_RESP)));
			continue;
		}
		CHECK(op->flags & (SROCE_OPF_REQ | SROCE_OPF_RESP));
		CHECK(!(op->flags & SROCE_OPF_NOSEQ));
		/* Only RC requests are acknowledged; UD carries a DETH. */
		CHECK_EQ(!!(op->flags & SROCE_OPF_ACKED),
			 (opcode & SROCE_TR_MASK) == SROCE_TR_RC &&
			 !!(op->flags & SROCE_OPF_REQ));
		CHECK_EQ(!!(op->hdrs & SROCE_HDR_DETH),
			 (opcode & SROCE_TR_MASK) == SROCE_TR_UD);
		switch (opcode & SROCE_TR_MASK) {
		case SROCE_TR_RC:
			CHECK(!strncmp(op->name, "RC_", 3));
			break;
		case SROCE_TR_UC:
			CHECK(!strncmp(op->name, "UC_", 3));
			CHECK(!(op->flags & SROCE_OPF_RESP));
			break;
		case SROCE_TR_UD:
			CHECK(!strncmp(op->name, "UD_", 3));
			CHECK(op->flags & SROCE_OPF_ONLY);
			break;
		default:
			CHECK(0);
		}
	}
	CHECK_EQ(nvalid, ARRAY_SIZE(valid_ops));

	/* Spot checks by name and by well-known invalid code. */
	CHECK(!strcmp(sroce_roce_opinfo(0x04)->name, "RC_SEND_ONLY"));
	CHECK(!strcmp(sroce_roce_opinfo(0x2b)->name, "UC_WRITE_ONLY_IMM"));
	CHECK(!strcmp(sroce_roce_opinfo(0x81)->name, "CNP_CNP"));
	CHECK(!sroce_roce_opinfo(0x15));	/* reserved */
	CHECK(!sroce_roce_opinfo(0x2c));	/* UC has no READ */
	CHECK(!sroce_roce_opinfo(0x40));	/* RD */
	CHECK(!sroce_roce_opinfo(0x60));	/* UD SEND First */
	CHECK(!sroce_roce_opinfo(0x80));
	CHECK(!sroce_roce_opinfo(0xa4));	/* XRC */
	CHECK(!sroce_roce_opinfo(0xe0));	/* manufacturer specific */
	CHECK(!sroce_roce_opinfo(256));
	CHECK_EQ(sroce_roce_ext_len(SROCE_EXT_NUM), 0);
	CHECK(sroce_roce_opinfo(0x0b)->flags & SROCE_OPF_RWQE);
	CHECK(!(sroce_roce_opinfo(0x0a)->flags & SROCE_OPF_RWQE));
	CHECK(sroce_roce_opinfo(0x02)->flags & SROCE_OPF_END);
	CHECK(sroce_roce_opinfo(0x06)->flags & SROCE_OPF_START);
}

static void test_bth_layout(void)
{
	static const u8 want[SROCE_BTH_LEN] = {
		0x0a, 0xb0, 0x12, 0x34, 0xc0, 0xab, 0xcd, 0xef,
		0x80, 0x65, 0x43, 0x21,
	};
	u8 raw[SROCE_BTH_LEN + 3];
	u8 *bth = raw + 3;		/* deliberately misaligned */

	memset(raw, 0, sizeof(raw));
	sroce_bth_set_opcode(bth, 0x0a);
	sroce_bth_set_se(bth, true);
	sroce_bth_set_pad(bth, 3);
	sroce_bth_set_pkey(bth, 0x1234);
	sroce_bth_set_fecn(bth, true);
	sroce_bth_set_becn(bth, true);
	sroce_bth_set_qpn(bth, 0xabcdef);
	sroce_bth_set_ackreq(bth, true);
	sroce_bth_set_psn(bth, 0x654321);
	CHECK(!memcmp(bth, want, sizeof(want)));
	CHECK_EQ(raw[0] | raw[1] | raw[2], 0);

	CHECK_EQ(sroce_bth_opcode(bth), 0x0a);
	CHECK(sroce_bth_se(bth));
	CHECK(!sroce_bth_mig(bth));
	CHECK_EQ(sroce_bth_pad(bth), 3);
	CHECK_EQ(sroce_bth_tver(bth), 0);
	CHECK_EQ(sroce_bth_pkey(bth), 0x1234);
	CHECK(sroce_bth_fecn(bth));
	CHECK(sroce_bth_becn(bth));
	CHECK_EQ(sroce_bth_qpn(bth), 0xabcdef);
	CHECK(sroce_bth_ackreq(bth));
	CHECK_EQ(sroce_bth_psn(bth), 0x654321);

	/* Setters touch only their own bits. */
	memset(bth, 0xff, SROCE_BTH_LEN);
	sroce_bth_set_se(bth, false);
	CHECK_EQ(bth[1], 0x7f);
	sroce_bth_set_mig(bth, false);
	CHECK_EQ(bth[1], 0x3f);
	sroce_bth_set_pad(bth, 1);
	CHECK_EQ(bth[1], 0x1f);
	sroce_bth_set_tver(bth, 0);
	CHECK_EQ(bth[1], 0x10);
	sroce_bth_set_fecn(bth, false);
	CHECK_EQ(bth[4], 0x7f);
	sroce_bth_set_becn(bth, false);
	CHECK_EQ(bth[4], 0x3f);
	sroce_bth_set_ackreq(bth, false);
	CHECK_EQ(bth[8], 0x7f);
	sroce_bth_set_qpn(bth, 0);
	CHECK_EQ(bth[4], 0x3f);
	CHECK_EQ(bth[5] | bth[6] | bth[7], 0);
	sroce_bth_set_psn(bth, 0);
	CHECK_EQ(bth[8], 0x7f);
	CHECK_EQ(sroce_bth_qpn(bth), 0);
	CHECK_EQ(sroce_bth_psn(bth), 0);
}

static void test_ext_layout(void)
{
	u8 raw[1 + SROCE_ATMETH_LEN];
	u8 *h = raw + 1;

	memset(raw, 0, sizeof(raw));
	sroce_reth_set_va(h, 0x0102030405060708ULL);
	sroce_reth_set_rkey(h, 0x090a0b0c);
	sroce_reth_set_len(h, 0x0d0e0f10);
	for (unsigned int i = 0; i < SROCE_RETH_LEN; i++)
		CHECK_EQ(h[i], i + 1);
	CHECK_EQ(sroce_reth_va(h), 0x0102030405060708ULL);
	CHECK_EQ(sroce_reth_rkey(h), 0x090a0b0c);
	CHECK_EQ(sroce_reth_len(h), 0x0d0e0f10);

	memset(raw, 0, sizeof(raw));
	sroce_atmeth_set_va(h, 0x0102030405060708ULL);
	sroce_atmeth_set_rkey(h, 0x090a0b0c);
	sroce_atmeth_set_swap_add(h, 0x0d0e0f1011121314ULL);
	sroce_atmeth_set_cmp(h, 0x15161718191a1b1cULL);
	for (unsigned int i = 0; i < SROCE_ATMETH_LEN; i++)
		CHECK_EQ(h[i], i + 1);
	CHECK_EQ(sroce_atmeth_cmp(h), 0x15161718191a1b1cULL);
	CHECK_EQ(sroce_atmeth_swap_add(h), 0x0d0e0f1011121314ULL);

	memset(raw, 0xff, sizeof(raw));
	sroce_deth_set_qkey(h, 0x80010000);
	sroce_deth_set_sqp(h, 0x000102);
	CHECK_EQ(h[0], 0x80);
	CHECK_EQ(h[1], 0x01);
	CHECK_EQ(h[4], 0);		/* reserved */
	CHECK_EQ(h[7], 0x02);
	CHECK_EQ(sroce_deth_sqp(h), 0x102);
	CHECK_EQ(sroce_deth_qkey(h), SROCE_GSI_QKEY);

	memset(raw, 0, sizeof(raw));
	sroce_aeth_set_syndrome(h, SROCE_AETH_TYPE_NAK | 2);
	sroce_aeth_set_msn(h, 0xabcdef);
	CHECK_EQ(h[0], 0x62);
	CHECK_EQ(h[1], 0xab);
	CHECK_EQ(h[3], 0xef);
	CHECK_EQ(sroce_aeth_msn(h), 0xabcdef);

	sroce_atmack_set_orig(h, 0x8000000000000001ULL);
	CHECK_EQ(h[0], 0x80);
	CHECK_EQ(h[7], 0x01);
	CHECK_EQ(sroce_atmack_orig(h), 0x8000000000000001ULL);

	sroce_immdt_set(h, 0x11223344);
	CHECK_EQ(h[0], 0x11);
	CHECK_EQ(sroce_immdt(h), 0x11223344);
	sroce_ieth_set_rkey(h, 0x55667788);
	CHECK_EQ(h[3], 0x88);
	CHECK_EQ(sroce_ieth_rkey(h), 0x55667788);
	sroce_feth_set(h, 0x31);
	CHECK_EQ(h[3], 0x31);
	CHECK_EQ(sroce_feth(h), 0x31);

	sroce_put_le32(h, 0x12345678);
	CHECK_EQ(h[0], 0x78);
	CHECK_EQ(sroce_get_le32(h), 0x12345678);
}

/* Build, parse and decode every opcode with several payload sizes. */
static void test_round_trip_all_opcodes(void)
{
	static const u32 sizes[] = { 0, 1, 2, 3, 4, 5, 13, 256, 1023, 4096 };
	static u8 pkt[PKT_MAX];
	unsigned int opcode, s, e;

	for (opcode = 0; opcode < 256; opcode++) {
		const struct sroce_roce_opinfo *op = sroce_roce_opinfo(opcode);

		if (!op)
			continue;
		for (s = 0; s < ARRAY_SIZE(sizes); s++) {
			struct sroce_roce_fields f, want, got;
			struct sroce_roce_info info;
			u32 plen = legal_payload(op, sizes[s]);
			int len, ret;

			sample_fields(&f, opcode, plen);
			len = build_pkt(pkt, &f);
			CHECK(len > 0);
			if (len <= 0)
				continue;
			CHECK_EQ(len, op->hdr_len + plen + sroce_roce_pad(plen) +
				 SROCE_ICRC_LEN);
			ret = parse_exact(pkt, len, &info);
			CHECK_EQ(ret, 0);
			if (ret)
				continue;
			CHECK(info.op == op);
			CHECK_EQ(info.opcode, opcode);
			CHECK_EQ(info.hdr_len, op->hdr_len);
			CHECK_EQ(info.payload_off, op->hdr_len);
			CHECK_EQ(info.payload_len, plen);
			CHECK_EQ(info.pad, sroce_roce_pad(plen));
			CHECK_EQ(info.qpn, f.qpn);
			CHECK_EQ(info.psn, f.psn);
			CHECK_EQ(info.pkey, f.pkey);
			CHECK(info.se && info.fecn && info.ackreq);
			CHECK(!info.mig && !info.becn);
			if (plen)
				CHECK_EQ(pkt[info.payload_off], 1);
			for (e = 0; e < SROCE_EXT_NUM; e++) {
				CHECK_EQ(!!info.off[e], !!(op->hdrs & BIT(e)));
				if (info.off[e])
					CHECK(info.off[e] + sroce_roce_ext_len(e)
					      <= op->hdr_len);
			}
			sroce_roce_get_fields(pkt, &info, &got);
			carried_fields(&f, &want);
			CHECK(fields_equal(&got, &want));
		}
	}
}

/*
 * The bits of header byte @i that carry no field: ignored by the parser
 * and the decoder, written as zero by the builder.
 */
static u8 reserved_bits(const struct sroce_roce_opinfo *op, unsigned int i)
{
	unsigned int e, off = SROCE_BTH_LEN;

	if (i == 4)
		return SROCE_BTH_RESV6A;
	if (i == 8)
		return SROCE_BTH_RESV7;
	for (e = 0; e < SROCE_EXT_NUM; e++) {
		if (!(op->hdrs & BIT(e)))
			continue;
		if (i >= off && i < off + sroce_roce_ext_len(e)) {
			if (e == SROCE_EXT_CNP)
				return 0xff;
			if (e == SROCE_EXT_DETH && i == off + 4)
				return 0xff;
			if (e == SROCE_EXT_FETH)
				return i == off + 3 ? 0xc0 : 0xff;
			return 0;
		}
		off += sroce_roce_ext_len(e);
	}
	return 0;
}

/*
 * Flip every header byte: the decoded fields change unless only reserved
 * bits changed, and rebuilding from them reproduces the corrupted bytes
 * but for the reserved bits.
 */
static void test_corrupt_each_field(void)
{
	static u8 pkt[PKT_MAX], bad[PKT_MAX], again[PKT_MAX];
	unsigned int opcode, i, j;

	for (opcode = 0; opcode < 256; opcode++) {
		const struct sroce_roce_opinfo *op = sroce_roce_opinfo(opcode);
		struct sroce_roce_fields f, orig, got;
		struct sroce_roce_info info;
		int len;

		if (!op)
			continue;
		sample_fields(&f, opcode, legal_payload(op, 5));
		len = build_pkt(pkt, &f);
		CHECK(len > 0 && !parse_exact(pkt, len, &info));
		sroce_roce_get_fields(pkt, &info, &orig);
		/* Byte 0 is the opcode, byte 1 PadCnt/TVer: tested apart. */
		for (i = 2; i < op->hdr_len; i++) {
			int ret;

			memcpy(bad, pkt, len);
			bad[i] ^= 0xff;
			ret = parse_exact(bad, len, &info);
			/* The AETH syndrome 0x1f becomes 0xe0, a NAK (PSN
			 * sequence error) that only an ACK may carry.
			 */
			if (op->hdrs & SROCE_HDR_AETH &&
			    i == SROCE_BTH_LEN && op->kind != SROCE_OPK_ACK) {
				CHECK_EQ(ret, -EINVAL);
				continue;
			}
			CHECK_EQ(ret, 0);
			if (ret)
				continue;
			sroce_roce_get_fields(bad, &info, &got);
			CHECK_EQ(fields_equal(&got, &orig),
				 reserved_bits(op, i) == 0xff);
			ret = sroce_roce_build(again, sizeof(again), &got);
			CHECK_EQ(ret, op->hdr_len);
			if (ret != op->hdr_len)
				continue;
			for (j = 0; j < op->hdr_len; j++) {
				u8 mask = ~reserved_bits(op, j);

				CHECK_EQ(again[j] & mask, bad[j] & mask);
				CHECK_EQ(again[j] & ~mask, 0);
			}
		}
	}
}

static void test_parse_rejects_opcode_and_tver(void)
{
	struct sroce_roce_fields f;
	struct sroce_roce_info info;
	static u8 pkt[PKT_MAX];
	unsigned int opcode, tver;
	int len;

	sample_fields(&f, 0x04, 8);
	len = build_pkt(pkt, &f);
	CHECK_EQ(parse_exact(pkt, len, &info), 0);
	for (opcode = 0; opcode < 256; opcode++) {
		if (sroce_roce_opinfo(opcode))
			continue;
		pkt[0] = opcode;
		CHECK_EQ(parse_exact(pkt, len, &info), -EPROTONOSUPPORT);
	}
	pkt[0] = 0x04;
	for (tver = 1; tver < 16; tver++) {
		sroce_bth_set_tver(pkt, tver);
		CHECK_EQ(parse_exact(pkt, len, &info), -EPROTONOSUPPORT);
	}
	sroce_bth_set_tver(pkt, 0);
	CHECK_EQ(parse_exact(pkt, len, &info), 0);
}

static void test_parse_lengths(void)
{
	static u8 pkt[PKT_MAX];
	unsigned int opcode;

	for (opcode = 0; opcode < 256; opcode++) {
		const struct sroce_roce_opinfo *op = sroce_roce_opinfo(opcode);
		struct sroce_roce_fields f;
		struct sroce_roce_info info;
		int len, l;

		if (!op)
			continue;
		sample_fields(&f, opcode, legal_payload(op, 9));
		len = build_pkt(pkt, &f);
		/* Every truncation: headers + ICRC must fit, span is a
		 * multiple of 4 holding the pad, and the payload rules hold.
		 */
		for (l = 0; l < len + 8; l++) {
			int ret = parse_exact(pkt, l, &info);
			long span = l - op->hdr_len - SROCE_ICRC_LEN;
			long payload = span - sroce_bth_pad(pkt);

			if (l < SROCE_BTH_LEN + SROCE_ICRC_LEN ||
			    span < 0 || span % 4 || payload < 0) {
				CHECK_EQ(ret, -EBADMSG);
				continue;
			}
			if (!(op->flags & SROCE_OPF_PAYLOAD)) {
				CHECK_EQ(ret, payload ? -EBADMSG : 0);
				continue;
			}
			if (op->flags & (SROCE_OPF_FIRST | SROCE_OPF_MIDDLE)) {
				CHECK_EQ(ret, payload == 256 ? 0 : -EBADMSG);
				continue;
			}
			if (op->kind == SROCE_OPK_ATOMIC_WRITE) {
				CHECK_EQ(ret, payload == 8 ? 0 : -EBADMSG);
				continue;
			}
			if (op->flags & SROCE_OPF_LAST && !payload) {
				CHECK_EQ(ret, -EBADMSG);
				continue;
			}
			CHECK_EQ(ret, 0);
			if (!ret)
				CHECK_EQ(info.payload_len, payload);
		}
	}
}

static void test_parse_pad_and_limits(void)
{
	static u8 pkt[PKT_MAX];
	struct sroce_roce_fields f;
	struct sroce_roce_info info;
	int len, pad;

	/* Zero-byte SEND Only: any non-zero PadCnt is impossible. */
	sample_fields(&f, 0x04, 0);
	len = build_pkt(pkt, &f);
	CHECK_EQ(len, 16);
	for (pad = 1; pad < 4; pad++) {
		sroce_bth_set_pad(pkt, pad);
		CHECK_EQ(parse_exact(pkt, len, &info), -EBADMSG);
	}
	/* 13 bytes + 3 pad: other PadCnts re-split the same 16 bytes. */
	sample_fields(&f, 0x04, 13);
	len = build_pkt(pkt, &f);
	CHECK_EQ(sroce_bth_pad(pkt), 3);
	for (pad = 0; pad < 4; pad++) {
		sroce_bth_set_pad(pkt, pad);
		CHECK_EQ(parse_exact(pkt, len, &info), 0);
		CHECK_EQ(info.payload_len, 16 - pad);
		CHECK_EQ(info.pad, pad);
	}
	/* First/middle packets carry a full MTU and no pad. */
	sample_fields(&f, 0x00, 1024);
	len = build_pkt(pkt, &f);
	CHECK_EQ(parse_exact(pkt, len, &info), 0);
	sroce_bth_set_pad(pkt, 1);
	CHECK_EQ(parse_exact(pkt, len, &info), -EBADMSG);
	/* ACK with payload. */
	sample_fields(&f, 0x11, 0);
	len = build_pkt(pkt, &f);
	CHECK_EQ(parse_exact(pkt, len, &info), 0);
	memset(pkt + len, 0, 4);
	CHECK_EQ(parse_exact(pkt, len + 4, &info), -EBADMSG);
	/* The payload limit, with and without pad. */
	sample_fields(&f, 0x04, SROCE_ROCE_MAX_PAYLOAD);
	len = build_pkt(pkt, &f);
	CHECK_EQ(parse_exact(pkt, len, &info), 0);
	CHECK_EQ(parse_exact(pkt, len + 4, &info), -EMSGSIZE);
	sroce_bth_set_pad(pkt, 3);
	CHECK_EQ(parse_exact(pkt, len + 4, &info), -EMSGSIZE);
	CHECK_EQ(parse_exact(pkt, len, &info), 0);
	CHECK_EQ(info.payload_len, SROCE_ROCE_MAX_PAYLOAD - 3);
	/* len beyond anything: no overflow in the arithmetic. */
	CHECK_EQ(sroce_roce_parse(pkt, (size_t)-1 & ~(size_t)3, &info),
		 -EMSGSIZE);
	/* CNP: exactly 16 reserved bytes, no payload. */
	sample_fields(&f, SROCE_OPCODE_CNP, 0);
	len = build_pkt(pkt, &f);
	CHECK_EQ(len, 32);
	CHECK_EQ(parse_exact(pkt, len, &info), 0);
	CHECK_EQ(parse_exact(pkt, 28, &info), -EBADMSG);
	CHECK_EQ(parse_exact(pkt, 36, &info), -EBADMSG);
}

static void test_parse_aeth_syndrome(void)
{
	static u8 pkt[PKT_MAX];
	struct sroce_roce_fields f;
	struct sroce_roce_info info;
	unsigned int syn;
	int len;

	sample_fields(&f, 0x11, 0);			/* ACK */
	len = build_pkt(pkt, &f);
	for (syn = 0; syn < 256; syn++) {
		unsigned int type = syn & SROCE_AETH_TYPE_MASK;
		bool ok = type == SROCE_AETH_TYPE_ACK ||
			  type == SROCE_AETH_TYPE_RNR_NAK ||
			  (type == SROCE_AETH_TYPE_NAK &&
			   (syn & 0x1f) <= SROCE_AETH_NAK_INVALID_RD_REQ);

		pkt[SROCE_BTH_LEN] = syn;
		CHECK_EQ(parse_exact(pkt, len, &info), ok ? 0 : -EINVAL);
	}
	sample_fields(&f, 0x10, 4);			/* READ response only */
	len = build_pkt(pkt, &f);
	pkt[SROCE_BTH_LEN] = SROCE_AETH_TYPE_NAK;
	CHECK_EQ(parse_exact(pkt, len, &info), -EINVAL);
	pkt[SROCE_BTH_LEN] = SROCE_AETH_TYPE_RNR_NAK | 1;
	CHECK_EQ(parse_exact(pkt, len, &info), -EINVAL);
	pkt[SROCE_BTH_LEN] = 3;
	CHECK_EQ(parse_exact(pkt, len, &info), 0);
}

static void test_build_errors(void)
{
	static u8 buf[PKT_MAX];
	struct sroce_roce_fields f;

	sample_fields(&f, 0x15, 0);
	CHECK_EQ(sroce_roce_build(buf, sizeof(buf), &f), -EPROTONOSUPPORT);
	sample_fields(&f, 0x13, 0);
	CHECK_EQ(sroce_roce_build(buf, 39, &f), -ENOSPC);
	CHECK_EQ(sroce_roce_build(buf, 40, &f), 40);
	f.payload_len = 4;
	CHECK_EQ(sroce_roce_build(buf, 40, &f), -EBADMSG);
	sample_fields(&f, 0x04, 0);
	f.qpn = 0x1000000;
	CHECK_EQ(sroce_roce_build(buf, sizeof(buf), &f), -EINVAL);
	sample_fields(&f, 0x04, 0);
	f.psn = 0x1000000;
	CHECK_EQ(sroce_roce_build(buf, sizeof(buf), &f), -EINVAL);
	sample_fields(&f, 0x64, 0);
	f.deth_sqp = 0x1000000;
	CHECK_EQ(sroce_roce_build(buf, sizeof(buf), &f), -EINVAL);
	sample_fields(&f, 0x04, 0);
	f.deth_sqp = 0x1000000;		/* not carried: ignored */
	CHECK_EQ(sroce_roce_build(buf, sizeof(buf), &f), 12);
	sample_fields(&f, 0x11, 0);
	f.aeth_msn = 0x1000000;
	CHECK_EQ(sroce_roce_build(buf, sizeof(buf), &f), -EINVAL);
	sample_fields(&f, 0x11, 0);
	f.aeth_syndrome = SROCE_AETH_TYPE_RSVD;
	CHECK_EQ(sroce_roce_build(buf, sizeof(buf), &f), -EINVAL);
	sample_fields(&f, 0x1c, 0);
	f.feth = 0x40;
	CHECK_EQ(sroce_roce_build(buf, sizeof(buf), &f), -EINVAL);
	sample_fields(&f, 0x04, SROCE_ROCE_MAX_PAYLOAD + 1);
	CHECK_EQ(sroce_roce_build(buf, sizeof(buf), &f), -EMSGSIZE);
	sample_fields(&f, 0x06, 1000);
	CHECK_EQ(sroce_roce_build(buf, sizeof(buf), &f), -EBADMSG);
	sample_fields(&f, 0x06, 2048);
	CHECK_EQ(sroce_roce_build(buf, sizeof(buf), &f), 28);
	sample_fields(&f, 0x08, 0);
	CHECK_EQ(sroce_roce_build(buf, sizeof(buf), &f), -EBADMSG);
	sample_fields(&f, 0x1d, 16);
	CHECK_EQ(sroce_roce_build(buf, sizeof(buf), &f), -EBADMSG);
}

static void test_build_cnp_bytes(void)
{
	/* The CNP of the research notes: 81 00 ff ff 40 00 00 d2, zeros. */
	static const u8 want[28] = {
		0x81, 0x00, 0xff, 0xff, 0x40, 0x00, 0x00, 0xd2,
	};
	struct sroce_roce_fields f = {
		.opcode = SROCE_OPCODE_CNP,
		.pkey = SROCE_DEFAULT_PKEY,
		.becn = true,
		.qpn = 0xd2,
	};
	u8 buf[28];

	memset(buf, 0x5a, sizeof(buf));
	CHECK_EQ(sroce_roce_build(buf, sizeof(buf), &f), 28);
	CHECK(!memcmp(buf, want, sizeof(want)));
}

const struct unit_test roce_hdr_tests[] = {
	{ "roce_hdr/opcode_table", test_opcode_table },
	{ "roce_hdr/bth_layout", test_bth_layout },
	{ "roce_hdr/ext_layout", test_ext_layout },
	{ "roce_hdr/round_trip_all_opcodes", test_round_trip_all_opcodes },
	{ "roce_hdr/corrupt_each_field", test_corrupt_each_field },
	{ "roce_hdr/parse_rejects_opcode_and_tver",
	  test_parse_rejects_opcode_and_tver },
	{ "roce_hdr/parse_lengths", test_parse_lengths },
	{ "roce_hdr/parse_pad_and_limits", test_parse_pad_and_limits },
	{ "roce_hdr/parse_aeth_syndrome", test_parse_aeth_syndrome },
	{ "roce_hdr/build_errors", test_build_errors },
	{ "roce_hdr/build_cnp_bytes", test_build_cnp_bytes },
	{ NULL, NULL },
};
