/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * IBA transport headers as carried by RoCE v1 (after the GRH) and RoCE v2
 * (in UDP port 4791): the opcode table, byte-wise big-endian accessors for
 * the BTH and every extension header, a validating parser, a builder and
 * the invariant CRC. Nothing here assumes alignment: every field is read
 * and written a byte at a time.
 */
#ifndef SROCE_ROCE_HDR_H
#define SROCE_ROCE_HDR_H

#include "sroce_lib.h"

#ifndef BIT
#define BIT(nr)				(1UL << (nr))	/* userspace */
#endif

/* --- Sizes ------------------------------------------------------------ */

#define SROCE_BTH_LEN			12
#define SROCE_DETH_LEN			8
#define SROCE_FETH_LEN			4
#define SROCE_RETH_LEN			16
#define SROCE_ATMETH_LEN		28
#define SROCE_IMMDT_LEN			4
#define SROCE_IETH_LEN			4
#define SROCE_AETH_LEN			4
#define SROCE_ATMACK_LEN		8
#define SROCE_CNP_RSVD_LEN		16	/* reserved bytes after a CNP's BTH */
#define SROCE_ICRC_LEN			4

/* Longest BTH + extension headers (CmpSwap/FetchAdd: BTH + AtomicETH). */
#define SROCE_ROCE_MAX_HDR_LEN		40
/* Largest payload of one packet: the largest IB path MTU. */
#define SROCE_ROCE_MAX_PAYLOAD		4096
/* Smallest path MTU: first and middle packets carry a power of two >= it. */
#define SROCE_ROCE_MIN_PMTU		256
/* ATOMIC WRITE carries exactly this much payload. */
#define SROCE_ATOMIC_WRITE_LEN		8

#define SROCE_IPV4_HDR_LEN		20
#define SROCE_IPV6_HDR_LEN		40
#define SROCE_GRH_LEN			40
#define SROCE_UDP_HDR_LEN		8
#define SROCE_ROCE_V2_UDP_DPORT		4791
#define SROCE_ROCE_V1_ETHERTYPE		0x8915
#define SROCE_GRH_NEXT_HDR		0x1b

#define SROCE_DEFAULT_PKEY		0xffff
#define SROCE_GSI_QKEY			0x80010000U
#define SROCE_QPN_MASK			0x00ffffffU

/* --- Opcodes ---------------------------------------------------------- */

/* Transport: bits 7..5 of the opcode. */
#define SROCE_TR_MASK			0xe0
#define SROCE_TR_RC			0x00
#define SROCE_TR_UC			0x20
#define SROCE_TR_RD			0x40	/* not supported by RoCE stacks */
#define SROCE_TR_UD			0x60
#define SROCE_TR_CNP			0x80
#define SROCE_TR_XRC			0xa0	/* not supported */

/* Operation: bits 4..0 of the opcode. */
#define SROCE_OP_SEND_FIRST		0x00
#define SROCE_OP_SEND_MIDDLE		0x01
#define SROCE_OP_SEND_LAST		0x02
#define SROCE_OP_SEND_LAST_IMM		0x03
#define SROCE_OP_SEND_ONLY		0x04
#define SROCE_OP_SEND_ONLY_IMM		0x05
#define SROCE_OP_WRITE_FIRST		0x06
#define SROCE_OP_WRITE_MIDDLE		0x07
#define SROCE_OP_WRITE_LAST		0x08
#define SROCE_OP_WRITE_LAST_IMM		0x09
#define SROCE_OP_WRITE_ONLY		0x0a
#define SROCE_OP_WRITE_ONLY_IMM		0x0b
#define SROCE_OP_READ_REQ		0x0c
#define SROCE_OP_READ_RESP_FIRST	0x0d
#define SROCE_OP_READ_RESP_MIDDLE	0x0e
#define SROCE_OP_READ_RESP_LAST		0x0f
#define SROCE_OP_READ_RESP_ONLY		0x10
#define SROCE_OP_ACK			0x11
#define SROCE_OP_ATOMIC_ACK		0x12
#define SROCE_OP_CMP_SWAP		0x13
#define SROCE_OP_FETCH_ADD		0x14
#define SROCE_OP_SEND_LAST_INV		0x16
#define SROCE_OP_SEND_ONLY_INV		0x17
#define SROCE_OP_FLUSH			0x1c
#define SROCE_OP_ATOMIC_WRITE		0x1d
#define SROCE_OP_CNP			0x01	/* with SROCE_TR_CNP */

#define SROCE_OPCODE(tr, op)		((tr) | (op))
#define SROCE_OPCODE_CNP		SROCE_OPCODE(SROCE_TR_CNP, SROCE_OP_CNP)

/*
 * Extension headers, in the order they follow the BTH. The index is also
 * the bit number in struct sroce_roce_opinfo.hdrs and the slot in
 * struct sroce_roce_info.off.
 */
enum sroce_ext {
	SROCE_EXT_DETH,
	SROCE_EXT_FETH,
	SROCE_EXT_RETH,
	SROCE_EXT_ATMETH,
	SROCE_EXT_IMMDT,
	SROCE_EXT_IETH,
	SROCE_EXT_AETH,
	SROCE_EXT_ATMACK,
	SROCE_EXT_CNP,		/* the 16 reserved bytes of a CNP */
	SROCE_EXT_NUM
};

#define SROCE_HDR_DETH			BIT(SROCE_EXT_DETH)
#define SROCE_HDR_FETH			BIT(SROCE_EXT_FETH)
#define SROCE_HDR_RETH			BIT(SROCE_EXT_RETH)
#define SROCE_HDR_ATMETH		BIT(SROCE_EXT_ATMETH)
#define SROCE_HDR_IMMDT			BIT(SROCE_EXT_IMMDT)
#define SROCE_HDR_IETH			BIT(SROCE_EXT_IETH)
#define SROCE_HDR_AETH			BIT(SROCE_EXT_AETH)
#define SROCE_HDR_ATMACK		BIT(SROCE_EXT_ATMACK)
#define SROCE_HDR_CNP			BIT(SROCE_EXT_CNP)

/*
 * Opcode flags (struct sroce_roce_opinfo.flags). Every valid opcode has
 * exactly one of FIRST, MIDDLE, LAST and ONLY; single-packet operations
 * (READ request, atomics, ACKs, CNP...) are ONLY.
 */
#define SROCE_OPF_REQ			BIT(0)	/* requester to responder */
#define SROCE_OPF_RESP			BIT(1)	/* responder to requester */
#define SROCE_OPF_FIRST			BIT(2)
#define SROCE_OPF_MIDDLE		BIT(3)
#define SROCE_OPF_LAST			BIT(4)
#define SROCE_OPF_ONLY			BIT(5)
#define SROCE_OPF_PAYLOAD		BIT(6)	/* may carry payload */
#define SROCE_OPF_IMM			BIT(7)	/* carries ImmDt */
#define SROCE_OPF_INV			BIT(8)	/* carries IETH */
#define SROCE_OPF_RWQE			BIT(9)	/* completes a receive WQE */
#define SROCE_OPF_ACKED			BIT(10)	/* RC request: responder acks */
#define SROCE_OPF_NOSEQ			BIT(11)	/* no PSN semantics (CNP) */

#define SROCE_OPF_START			(SROCE_OPF_FIRST | SROCE_OPF_ONLY)
#define SROCE_OPF_END			(SROCE_OPF_LAST | SROCE_OPF_ONLY)

/* What an opcode does (struct sroce_roce_opinfo.kind). */
enum sroce_op_kind {
	SROCE_OPK_INVALID,
	SROCE_OPK_SEND,
	SROCE_OPK_WRITE,
	SROCE_OPK_READ_REQ,
	SROCE_OPK_READ_RESP,
	SROCE_OPK_ACK,
	SROCE_OPK_ATOMIC_ACK,
	SROCE_OPK_CMP_SWAP,
	SROCE_OPK_FETCH_ADD,
	SROCE_OPK_ATOMIC_WRITE,
	SROCE_OPK_FLUSH,
	SROCE_OPK_CNP,
};

/**
 * struct sroce_roce_opinfo - static description of one BTH opcode
 * @name: printable name, e.g. "RC_SEND_ONLY"
 * @flags: SROCE_OPF_* bits
 * @hdrs: SROCE_HDR_* bits: the extension headers that follow the BTH
 * @hdr_len: BTH plus extension headers in bytes (0: invalid opcode)
 * @kind: enum sroce_op_kind
 */
struct sroce_roce_opinfo {
	const char *name;
	u16 flags;
	u16 hdrs;
	u8 hdr_len;
	u8 kind;
};

/* AETH syndrome: bits 6..5 type, bits 4..0 credit count / timer / code. */
#define SROCE_AETH_TYPE_MASK		0x60
#define SROCE_AETH_TYPE_ACK		0x00
#define SROCE_AETH_TYPE_RNR_NAK		0x20
#define SROCE_AETH_TYPE_RSVD		0x40
#define SROCE_AETH_TYPE_NAK		0x60
#define SROCE_AETH_VALUE_MASK		0x1f
#define SROCE_AETH_CREDIT_INVALID	0x1f
#define SROCE_AETH_NAK_PSN_SEQ		0
#define SROCE_AETH_NAK_INVALID_REQ	1
#define SROCE_AETH_NAK_REM_ACCESS	2
#define SROCE_AETH_NAK_REM_OP		3
#define SROCE_AETH_NAK_INVALID_RD_REQ	4

/**
 * struct sroce_roce_info - what sroce_roce_parse() found in a packet
 * @op: the opcode's table entry
 * @opcode: BTH OpCode
 * @hdr_len: BTH plus extension headers in bytes (== @op->hdr_len)
 * @pad: BTH PadCnt
 * @se: BTH solicited event bit
 * @mig: BTH MigReq bit
 * @fecn: BTH FECN bit
 * @becn: BTH BECN bit
 * @ackreq: BTH AckReq bit
 * @pkey: BTH P_Key
 * @qpn: BTH DestQP
 * @psn: BTH PSN
 * @payload_off: offset of the payload from the start of the BTH
 * @payload_len: payload bytes, pad and ICRC excluded
 * @off: per enum sroce_ext, offset of that header from the start of the
 *	BTH; 0 if the opcode does not carry it
 */
struct sroce_roce_info {
	const struct sroce_roce_opinfo *op;
	u8 opcode;
	u8 hdr_len;
	u8 pad;
	bool se;
	bool mig;
	bool fecn;
	bool becn;
	bool ackreq;
	u16 pkey;
	u32 qpn;
	u32 psn;
	u32 payload_off;
	u32 payload_len;
	u8 off[SROCE_EXT_NUM];
};

/**
 * struct sroce_roce_fields - every header field, for building and decoding
 * @opcode: BTH OpCode
 * @se: BTH solicited event bit
 * @mig: BTH MigReq bit
 * @fecn: BTH FECN bit
 * @becn: BTH BECN bit
 * @ackreq: BTH AckReq bit
 * @pkey: BTH P_Key
 * @qpn: BTH DestQP (24 bits)
 * @psn: BTH PSN (24 bits)
 * @payload_len: payload bytes that will follow the headers; the builder
 *	derives PadCnt from it
 * @deth_qkey: DETH Q_Key
 * @deth_sqp: DETH source QP (24 bits)
 * @feth: FETH word (placement type bits 3..0, selectivity bits 5..4)
 * @reth_va: RETH virtual address
 * @reth_rkey: RETH R_Key
 * @reth_len: RETH DMA length
 * @atm_va: AtomicETH virtual address
 * @atm_rkey: AtomicETH R_Key
 * @atm_swap_add: AtomicETH swap (CmpSwap) or add (FetchAdd) data
 * @atm_cmp: AtomicETH compare data
 * @imm: ImmDt as the 32-bit big-endian number on the wire
 * @ieth_rkey: IETH R_Key to invalidate
 * @aeth_syndrome: AETH syndrome
 * @aeth_msn: AETH MSN (24 bits)
 * @atmack_orig: AtomicAckETH original remote data
 *
 * Fields of extension headers the opcode does not carry are ignored by
 * the builder and zeroed by the decoder.
 */
struct sroce_roce_fields {
	u8 opcode;
	bool se;
	bool mig;
	bool fecn;
	bool becn;
	bool ackreq;
	u16 pkey;
	u32 qpn;
	u32 psn;
	u32 payload_len;
	u32 deth_qkey;
	u32 deth_sqp;
	u32 feth;
	u64 reth_va;
	u32 reth_rkey;
	u32 reth_len;
	u64 atm_va;
	u32 atm_rkey;
	u64 atm_swap_add;
	u64 atm_cmp;
	u32 imm;
	u32 ieth_rkey;
	u8 aeth_syndrome;
	u32 aeth_msn;
	u64 atmack_orig;
};

const struct sroce_roce_opinfo *sroce_roce_opinfo(unsigned int opcode);
unsigned int sroce_roce_ext_len(unsigned int ext);
int sroce_roce_parse(const u8 *buf, size_t len, struct sroce_roce_info *info);
void sroce_roce_get_fields(const u8 *buf, const struct sroce_roce_info *info,
			   struct sroce_roce_fields *f);
int sroce_roce_build(u8 *buf, size_t size, const struct sroce_roce_fields *f);

/* Pad bytes that follow a payload of @payload_len bytes. */
static inline unsigned int sroce_roce_pad(u32 payload_len)
{
	return -payload_len & 3;
}

/* --- Byte-wise big-endian (and ICRC little-endian) access ---------------- */

static inline u16 sroce_get_be16(const u8 *p)
{
	return (u16)(p[0] << 8 | p[1]);
}

static inline u32 sroce_get_be24(const u8 *p)
{
	return (u32)p[0] << 16 | (u32)p[1] << 8 | p[2];
}

static inline u32 sroce_get_be32(const u8 *p)
{
	return (u32)p[0] << 24 | (u32)p[1] << 16 | (u32)p[2] << 8 | p[3];
}

static inline u64 sroce_get_be64(const u8 *p)
{
	return (u64)sroce_get_be32(p) << 32 | sroce_get_be32(p + 4);
}

static inline void sroce_put_be16(u8 *p, u16 v)
{
	p[0] = v >> 8;
	p[1] = v;
}

static inline void sroce_put_be24(u8 *p, u32 v)
{
	p[0] = v >> 16;
	p[1] = v >> 8;
	p[2] = v;
}

static inline void sroce_put_be32(u8 *p, u32 v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

static inline void sroce_put_be64(u8 *p, u64 v)
{
	sroce_put_be32(p, v >> 32);
	sroce_put_be32(p + 4, (u32)v);
}

static inline u32 sroce_get_le32(const u8 *p)
{
	return (u32)p[3] << 24 | (u32)p[2] << 16 | (u32)p[1] << 8 | p[0];
}

static inline void sroce_put_le32(u8 *p, u32 v)
{
	p[0] = v;
	p[1] = v >> 8;
	p[2] = v >> 16;
	p[3] = v >> 24;
}

/* Replace the bits @mask of byte @p by @v (already shifted into place). */
static inline void sroce_put_bits8(u8 *p, u8 mask, u8 v)
{
	*p = (*p & ~mask) | (v & mask);
}

/* --- BTH fields (@bth points at the first byte of the BTH) ------------ */

#define SROCE_BTH_SE			0x80	/* byte 1 */
#define SROCE_BTH_MIG			0x40
#define SROCE_BTH_PAD			0x30
#define SROCE_BTH_PAD_SHIFT		4
#define SROCE_BTH_TVER			0x0f
#define SROCE_BTH_FECN			0x80	/* byte 4 */
#define SROCE_BTH_BECN			0x40
#define SROCE_BTH_RESV6A		0x3f
#define SROCE_BTH_ACKREQ		0x80	/* byte 8 */
#define SROCE_BTH_RESV7			0x7f

static inline u8 sroce_bth_opcode(const u8 *bth)
{
	return bth[0];
}

static inline void sroce_bth_set_opcode(u8 *bth, u8 opcode)
{
	bth[0] = opcode;
}

static inline bool sroce_bth_se(const u8 *bth)
{
	return bth[1] & SROCE_BTH_SE;
}

static inline void sroce_bth_set_se(u8 *bth, bool se)
{
	sroce_put_bits8(&bth[1], SROCE_BTH_SE, se ? SROCE_BTH_SE : 0);
}

static inline bool sroce_bth_mig(const u8 *bth)
{
	return bth[1] & SROCE_BTH_MIG;
}

static inline void sroce_bth_set_mig(u8 *bth, bool mig)
{
	sroce_put_bits8(&bth[1], SROCE_BTH_MIG, mig ? SROCE_BTH_MIG : 0);
}

static inline unsigned int sroce_bth_pad(const u8 *bth)
{
	return (bth[1] & SROCE_BTH_PAD) >> SROCE_BTH_PAD_SHIFT;
}

static inline void sroce_bth_set_pad(u8 *bth, unsigned int pad)
{
	sroce_put_bits8(&bth[1], SROCE_BTH_PAD, pad << SROCE_BTH_PAD_SHIFT);
}

static inline unsigned int sroce_bth_tver(const u8 *bth)
{
	return bth[1] & SROCE_BTH_TVER;
}

static inline void sroce_bth_set_tver(u8 *bth, unsigned int tver)
{
	sroce_put_bits8(&bth[1], SROCE_BTH_TVER, tver);
}

static inline u16 sroce_bth_pkey(const u8 *bth)
{
	return sroce_get_be16(bth + 2);
}

static inline void sroce_bth_set_pkey(u8 *bth, u16 pkey)
{
	sroce_put_be16(bth + 2, pkey);
}

static inline bool sroce_bth_fecn(const u8 *bth)
{
	return bth[4] & SROCE_BTH_FECN;
}

static inline void sroce_bth_set_fecn(u8 *bth, bool fecn)
{
	sroce_put_bits8(&bth[4], SROCE_BTH_FECN, fecn ? SROCE_BTH_FECN : 0);
}

static inline bool sroce_bth_becn(const u8 *bth)
{
	return bth[4] & SROCE_BTH_BECN;
}

static inline void sroce_bth_set_becn(u8 *bth, bool becn)
{
	sroce_put_bits8(&bth[4], SROCE_BTH_BECN, becn ? SROCE_BTH_BECN : 0);
}

static inline u32 sroce_bth_qpn(const u8 *bth)
{
	return sroce_get_be24(bth + 5);
}

static inline void sroce_bth_set_qpn(u8 *bth, u32 qpn)
{
	sroce_put_be24(bth + 5, qpn);
}

static inline bool sroce_bth_ackreq(const u8 *bth)
{
	return bth[8] & SROCE_BTH_ACKREQ;
}

static inline void sroce_bth_set_ackreq(u8 *bth, bool ackreq)
{
	sroce_put_bits8(&bth[8], SROCE_BTH_ACKREQ,
			ackreq ? SROCE_BTH_ACKREQ : 0);
}

static inline u32 sroce_bth_psn(const u8 *bth)
{
	return sroce_get_be24(bth + 9);
}

static inline void sroce_bth_set_psn(u8 *bth, u32 psn)
{
	sroce_put_be24(bth + 9, psn);
}

/* --- Extension header fields (@h points at the header's first byte) --- */

/* DETH: Q_Key (32); reserved (8); source QP (24). */
static inline u32 sroce_deth_qkey(const u8 *h)
{
	return sroce_get_be32(h);
}

static inline void sroce_deth_set_qkey(u8 *h, u32 qkey)
{
	sroce_put_be32(h, qkey);
}

static inline u32 sroce_deth_sqp(const u8 *h)
{
	return sroce_get_be24(h + 5);
}

static inline void sroce_deth_set_sqp(u8 *h, u32 sqp)
{
	h[4] = 0;
	sroce_put_be24(h + 5, sqp);
}

/* FETH: one 32-bit word; selectivity level bits 5..4, placement bits 3..0. */
#define SROCE_FETH_PLT_MASK		0x0000000fU
#define SROCE_FETH_SEL_MASK		0x00000030U
#define SROCE_FETH_SEL_SHIFT		4
/* Placement types (bits) and selectivity levels (IBA 1.5 A19). */
#define SROCE_FETH_PLT_GLOBAL		0x1
#define SROCE_FETH_PLT_PERSISTENT	0x2
#define SROCE_FETH_SEL_RANGE		0
#define SROCE_FETH_SEL_REGION		1

/* A FLUSH names one or both placement types and a defined selectivity. */
static inline bool sroce_feth_valid(u32 type, u32 level)
{
	return type && !(type & ~(SROCE_FETH_PLT_GLOBAL |
				  SROCE_FETH_PLT_PERSISTENT)) &&
	       (level == SROCE_FETH_SEL_RANGE ||
		level == SROCE_FETH_SEL_REGION);
}

static inline u32 sroce_feth(const u8 *h)
{
	return sroce_get_be32(h);
}

static inline void sroce_feth_set(u8 *h, u32 feth)
{
	sroce_put_be32(h, feth);
}

/* RETH: virtual address (64); R_Key (32); DMA length (32). */
static inline u64 sroce_reth_va(const u8 *h)
{
	return sroce_get_be64(h);
}

static inline void sroce_reth_set_va(u8 *h, u64 va)
{
	sroce_put_be64(h, va);
}

static inline u32 sroce_reth_rkey(const u8 *h)
{
	return sroce_get_be32(h + 8);
}

static inline void sroce_reth_set_rkey(u8 *h, u32 rkey)
{
	sroce_put_be32(h + 8, rkey);
}

static inline u32 sroce_reth_len(const u8 *h)
{
	return sroce_get_be32(h + 12);
}

static inline void sroce_reth_set_len(u8 *h, u32 len)
{
	sroce_put_be32(h + 12, len);
}

/* AtomicETH: VA (64); R_Key (32); swap or add data (64); compare (64). */
static inline u64 sroce_atmeth_va(const u8 *h)
{
	return sroce_get_be64(h);
}

static inline void sroce_atmeth_set_va(u8 *h, u64 va)
{
	sroce_put_be64(h, va);
}

static inline u32 sroce_atmeth_rkey(const u8 *h)
{
	return sroce_get_be32(h + 8);
}

static inline void sroce_atmeth_set_rkey(u8 *h, u32 rkey)
{
	sroce_put_be32(h + 8, rkey);
}

static inline u64 sroce_atmeth_swap_add(const u8 *h)
{
	return sroce_get_be64(h + 12);
}

static inline void sroce_atmeth_set_swap_add(u8 *h, u64 v)
{
	sroce_put_be64(h + 12, v);
}

static inline u64 sroce_atmeth_cmp(const u8 *h)
{
	return sroce_get_be64(h + 20);
}

static inline void sroce_atmeth_set_cmp(u8 *h, u64 v)
{
	sroce_put_be64(h + 20, v);
}

/* ImmDt: 32 opaque bits, returned as the big-endian number on the wire. */
static inline u32 sroce_immdt(const u8 *h)
{
	return sroce_get_be32(h);
}

static inline void sroce_immdt_set(u8 *h, u32 imm)
{
	sroce_put_be32(h, imm);
}

/* IETH: R_Key to invalidate (32). */
static inline u32 sroce_ieth_rkey(const u8 *h)
{
	return sroce_get_be32(h);
}

static inline void sroce_ieth_set_rkey(u8 *h, u32 rkey)
{
	sroce_put_be32(h, rkey);
}

/* AETH: syndrome (8); MSN (24). */
static inline u8 sroce_aeth_syndrome(const u8 *h)
{
	return h[0];
}

static inline void sroce_aeth_set_syndrome(u8 *h, u8 syndrome)
{
	h[0] = syndrome;
}

static inline u32 sroce_aeth_msn(const u8 *h)
{
	return sroce_get_be24(h + 1);
}

static inline void sroce_aeth_set_msn(u8 *h, u32 msn)
{
	sroce_put_be24(h + 1, msn);
}

/* AtomicAckETH: original remote data (64). */
static inline u64 sroce_atmack_orig(const u8 *h)
{
	return sroce_get_be64(h);
}

static inline void sroce_atmack_set_orig(u8 *h, u64 orig)
{
	sroce_put_be64(h, orig);
}

/* --- Invariant CRC (icrc.c) --------------------------------------------- */

/* Network header in front of the BTH. */
enum sroce_l3_type {
	SROCE_L3_IPV4 = 1,	/* RoCE v2: IPv4 (no options) + UDP */
	SROCE_L3_IPV6,		/* RoCE v2: IPv6 (no extension headers) + UDP */
	SROCE_L3_GRH,		/* RoCE v1: GRH */
};

/*
 * Raw reflected CRC-32 (polynomial 0xedb88320), no pre- or post-inversion:
 * the semantics of the kernel's crc32_le(). Provided by the driver in the
 * kernel and by tools/unit/crc32_host.c in userspace.
 */
u32 sroce_crc32_le(u32 crc, const u8 *p, size_t len);

/*
 * The same CRC by folding (icrc.c), for environments whose primitive has
 * no accelerated form: they call it from sroce_crc32_le() for inputs of
 * at least SROCE_CRC32_FOLD_MIN bytes; it hands sroce_crc32_le() fewer.
 */
#define SROCE_CRC32_FOLD_MIN	64
u32 sroce_crc32_fold(u32 crc, const u8 *p, size_t len);

void sroce_train_seg_hdr(u8 *hdr, unsigned int l3_len, unsigned int l3_type,
			 u16 first_id, u16 index, u32 len);
int sroce_icrc_compute_split(const u8 *l3, unsigned int l3_len,
			     const u8 *pkt, size_t len, unsigned int l3_type,
			     u32 *icrc);
int sroce_icrc_compute(const u8 *l3, size_t len, unsigned int l3_type,
		       u32 *icrc);
int sroce_icrc_generate(u8 *l3, size_t len, unsigned int l3_type);
int sroce_icrc_verify(const u8 *l3, size_t len, unsigned int l3_type);
int sroce_icrc_verify_split(const u8 *l3, unsigned int l3_len,
			    const u8 *pkt, size_t len, unsigned int l3_type);

#endif /* SROCE_ROCE_HDR_H */
