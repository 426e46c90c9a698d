// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * IBA transport header codec shared by the firmware's packet engine and
 * the unit tests: the opcode table, a parser that validates everything a
 * hostile sender controls, and the matching builder.
 *
 * Payload rules enforced by both the parser and the builder (the path MTU
 * is not known here: the responder holds packets to their QP's, with an
 * Invalid Request NAK; a packet that breaks these rules is dropped as
 * malformed before any QP sees it):
 *  - opcodes without SROCE_OPF_PAYLOAD carry no payload (and so no pad);
 *  - no packet carries more than SROCE_ROCE_MAX_PAYLOAD (4096) bytes;
 *  - first and middle packets carry a full path MTU: a power of two from
 *    SROCE_ROCE_MIN_PMTU to SROCE_ROCE_MAX_PAYLOAD bytes, with no pad;
 *  - last packets carry at least one byte (an empty message is "only");
 *  - ATOMIC WRITE carries exactly SROCE_ATOMIC_WRITE_LEN bytes;
 *  - payload plus pad is a multiple of 4, i.e. the bytes between the end
 *    of the extension headers and the ICRC are a multiple of 4, and PadCnt
 *    does not exceed them.
 * Reserved bits (Resv6a, Resv7, the DETH reserved byte) are ignored on
 * receive and written as zero, as IBA asks.
 */
#include "roce_hdr.h"

#define H_DETH		SROCE_HDR_DETH
#define H_FETH		SROCE_HDR_FETH
#define H_RETH		SROCE_HDR_RETH
#define H_ATMETH	SROCE_HDR_ATMETH
#define H_IMMDT		SROCE_HDR_IMMDT
#define H_IETH		SROCE_HDR_IETH
#define H_AETH		SROCE_HDR_AETH
#define H_ATMACK	SROCE_HDR_ATMACK
#define H_CNP		SROCE_HDR_CNP

#define L_DETH		SROCE_DETH_LEN
#define L_FETH		SROCE_FETH_LEN
#define L_RETH		SROCE_RETH_LEN
#define L_ATMETH	SROCE_ATMETH_LEN
#define L_IMMDT		SROCE_IMMDT_LEN
#define L_IETH		SROCE_IETH_LEN
#define L_AETH		SROCE_AETH_LEN
#define L_ATMACK	SROCE_ATMACK_LEN
#define L_CNP		SROCE_CNP_RSVD_LEN

#define F_FIRST		SROCE_OPF_FIRST
#define F_MIDDLE	SROCE_OPF_MIDDLE
#define F_LAST		SROCE_OPF_LAST
#define F_ONLY		SROCE_OPF_ONLY
#define F_IMM		SROCE_OPF_IMM
#define F_INV		SROCE_OPF_INV
#define F_RWQE		SROCE_OPF_RWQE

/* Requests that carry data; RC ones are acknowledged. */
#define RC_DATA		(SROCE_OPF_REQ | SROCE_OPF_PAYLOAD | SROCE_OPF_ACKED)
#define UC_DATA		(SROCE_OPF_REQ | SROCE_OPF_PAYLOAD)
#define UD_DATA		(SROCE_OPF_REQ | SROCE_OPF_PAYLOAD)
/* RC requests without payload. */
#define RC_NODATA	(SROCE_OPF_REQ | SROCE_OPF_ACKED | SROCE_OPF_ONLY)
/* Responses. */
#define RESP_DATA	(SROCE_OPF_RESP | SROCE_OPF_PAYLOAD)
#define RESP_NODATA	(SROCE_OPF_RESP | SROCE_OPF_ONLY)

/*
 * One table entry: @h lists the extension headers, @ext_len their total
 * size (the unit tests check that the two agree).
 */
#define OPDESC(tr, op, k, f, h, ext_len)				\
	[SROCE_TR_##tr | SROCE_OP_##op] = {				\
		.name = #tr "_" #op,					\
		.flags = (f),						\
		.hdrs = (h),						\
		.hdr_len = SROCE_BTH_LEN + (ext_len),			\
		.kind = SROCE_OPK_##k,					\
	}

/* Indexed by the BTH OpCode; entries left zero are invalid opcodes. */
static const struct sroce_roce_opinfo sroce_opcodes[256] = {
	/* Reliable connected */
	OPDESC(RC, SEND_FIRST, SEND, RC_DATA | F_FIRST, 0, 0),
	OPDESC(RC, SEND_MIDDLE, SEND, RC_DATA | F_MIDDLE, 0, 0),
	OPDESC(RC, SEND_LAST, SEND, RC_DATA | F_LAST | F_RWQE, 0, 0),
	OPDESC(RC, SEND_LAST_IMM, SEND, RC_DATA | F_LAST | F_RWQE | F_IMM,
	       H_IMMDT, L_IMMDT),
	OPDESC(RC, SEND_ONLY, SEND, RC_DATA | F_ONLY | F_RWQE, 0, 0),
	OPDESC(RC, SEND_ONLY_IMM, SEND, RC_DATA | F_ONLY | F_RWQE | F_IMM,
	       H_IMMDT, L_IMMDT),
	OPDESC(RC, WRITE_FIRST, WRITE, RC_DATA | F_FIRST, H_RETH, L_RETH),
	OPDESC(RC, WRITE_MIDDLE, WRITE, RC_DATA | F_MIDDLE, 0, 0),
	OPDESC(RC, WRITE_LAST, WRITE, RC_DATA | F_LAST, 0, 0),
	OPDESC(RC, WRITE_LAST_IMM, WRITE, RC_DATA | F_LAST | F_RWQE | F_IMM,
	       H_IMMDT, L_IMMDT),
	OPDESC(RC, WRITE_ONLY, WRITE, RC_DATA | F_ONLY, H_RETH, L_RETH),
	OPDESC(RC, WRITE_ONLY_IMM, WRITE, RC_DATA | F_ONLY | F_RWQE | F_IMM,
	       H_RETH | H_IMMDT, L_RETH + L_IMMDT),
	OPDESC(RC, READ_REQ, READ_REQ, RC_NODATA, H_RETH, L_RETH),
	OPDESC(RC, READ_RESP_FIRST, READ_RESP, RESP_DATA | F_FIRST,
	       H_AETH, L_AETH),
	OPDESC(RC, READ_RESP_MIDDLE, READ_RESP, RESP_DATA | F_MIDDLE, 0, 0),
	OPDESC(RC, READ_RESP_LAST, READ_RESP, RESP_DATA | F_LAST,
	       H_AETH, L_AETH),
	OPDESC(RC, READ_RESP_ONLY, READ_RESP, RESP_DATA | F_ONLY,
	       H_AETH, L_AETH),
	OPDESC(RC, ACK, ACK, RESP_NODATA, H_AETH, L_AETH),
	OPDESC(RC, ATOMIC_ACK, ATOMIC_ACK, RESP_NODATA,
	       H_AETH | H_ATMACK, L_AETH + L_ATMACK),
	OPDESC(RC, CMP_SWAP, CMP_SWAP, RC_NODATA, H_ATMETH, L_ATMETH),
	OPDESC(RC, FETCH_ADD, FETCH_ADD, RC_NODATA, H_ATMETH, L_ATMETH),
	OPDESC(RC, SEND_LAST_INV, SEND, RC_DATA | F_LAST | F_RWQE | F_INV,
	       H_IETH, L_IETH),
	OPDESC(RC, SEND_ONLY_INV, SEND, RC_DATA | F_ONLY | F_RWQE | F_INV,
	       H_IETH, L_IETH),
	OPDESC(RC, FLUSH, FLUSH, RC_NODATA, H_FETH | H_RETH, L_FETH + L_RETH),
	OPDESC(RC, ATOMIC_WRITE, ATOMIC_WRITE, RC_DATA | F_ONLY,
	       H_RETH, L_RETH),

	/* Unreliable connected */
	OPDESC(UC, SEND_FIRST, SEND, UC_DATA | F_FIRST, 0, 0),
	OPDESC(UC, SEND_MIDDLE, SEND, UC_DATA | F_MIDDLE, 0, 0),
	OPDESC(UC, SEND_LAST, SEND, UC_DATA | F_LAST | F_RWQE, 0, 0),
	OPDESC(UC, SEND_LAST_IMM, SEND, UC_DATA | F_LAST | F_RWQE | F_IMM,
	       H_IMMDT, L_IMMDT),
	OPDESC(UC, SEND_ONLY, SEND, UC_DATA | F_ONLY | F_RWQE, 0, 0),
	OPDESC(UC, SEND_ONLY_IMM, SEND, UC_DATA | F_ONLY | F_RWQE | F_IMM,
	       H_IMMDT, L_IMMDT),
	OPDESC(UC, WRITE_FIRST, WRITE, UC_DATA | F_FIRST, H_RETH, L_RETH),
	OPDESC(UC, WRITE_MIDDLE, WRITE, UC_DATA | F_MIDDLE, 0, 0),
	OPDESC(UC, WRITE_LAST, WRITE, UC_DATA | F_LAST, 0, 0),
	OPDESC(UC, WRITE_LAST_IMM, WRITE, UC_DATA | F_LAST | F_RWQE | F_IMM,
	       H_IMMDT, L_IMMDT),
	OPDESC(UC, WRITE_ONLY, WRITE, UC_DATA | F_ONLY, H_RETH, L_RETH),
	OPDESC(UC, WRITE_ONLY_IMM, WRITE, UC_DATA | F_ONLY | F_RWQE | F_IMM,
	       H_RETH | H_IMMDT, L_RETH + L_IMMDT),

	/* Unreliable datagram */
	OPDESC(UD, SEND_ONLY, SEND, UD_DATA | F_ONLY | F_RWQE, H_DETH, L_DETH),
	OPDESC(UD, SEND_ONLY_IMM, SEND, UD_DATA | F_ONLY | F_RWQE | F_IMM,
	       H_DETH | H_IMMDT, L_DETH + L_IMMDT),

	/* Congestion notification (RoCE v2) */
	OPDESC(CNP, CNP, CNP, F_ONLY | SROCE_OPF_NOSEQ, H_CNP, L_CNP),
};

static const u8 sroce_ext_len[SROCE_EXT_NUM] = {
	[SROCE_EXT_DETH] = SROCE_DETH_LEN,
	[SROCE_EXT_FETH] = SROCE_FETH_LEN,
	[SROCE_EXT_RETH] = SROCE_RETH_LEN,
	[SROCE_EXT_ATMETH] = SROCE_ATMETH_LEN,
	[SROCE_EXT_IMMDT] = SROCE_IMMDT_LEN,
	[SROCE_EXT_IETH] = SROCE_IETH_LEN,
	[SROCE_EXT_AETH] = SROCE_AETH_LEN,
	[SROCE_EXT_ATMACK] = SROCE_ATMACK_LEN,
	[SROCE_EXT_CNP] = SROCE_CNP_RSVD_LEN,
};

/**
 * sroce_roce_opinfo() - look up a BTH opcode
 * @opcode: BTH OpCode (0..255)
 *
 * RD, XRC, manufacturer-specific and reserved codes are invalid: sroce
 * neither sends nor accepts them.
 *
 * Return: the opcode's description, or NULL if it is invalid.
 */
const struct sroce_roce_opinfo *sroce_roce_opinfo(unsigned int opcode)
{
	const struct sroce_roce_opinfo *op;

	if (opcode >= ARRAY_SIZE(sroce_opcodes))
		return NULL;
	op = &sroce_opcodes[opcode];
	return op->hdr_len ? op : NULL;
}

/**
 * sroce_roce_ext_len() - size of an extension header
 * @ext: enum sroce_ext value
 *
 * Return: the header's length in bytes, 0 for an invalid @ext.
 */
unsigned int sroce_roce_ext_len(unsigned int ext)
{
	return ext < SROCE_EXT_NUM ? sroce_ext_len[ext] : 0;
}

static bool sroce_is_pmtu(size_t len)
{
	return len >= SROCE_ROCE_MIN_PMTU && len <= SROCE_ROCE_MAX_PAYLOAD &&
	       !(len & (len - 1));
}

/* The payload rules in the comment at the top of this file. */
static int sroce_check_payload(const struct sroce_roce_opinfo *op,
			       size_t payload)
{
	if (!(op->flags & SROCE_OPF_PAYLOAD))
		return payload ? -EBADMSG : 0;
	if (payload > SROCE_ROCE_MAX_PAYLOAD)
		return -EMSGSIZE;
	if ((op->flags & (SROCE_OPF_FIRST | SROCE_OPF_MIDDLE)) &&
	    !sroce_is_pmtu(payload))
		return -EBADMSG;
	if ((op->flags & SROCE_OPF_LAST) && !payload)
		return -EBADMSG;
	if (op->kind == SROCE_OPK_ATOMIC_WRITE &&
	    payload != SROCE_ATOMIC_WRITE_LEN)
		return -EBADMSG;
	return 0;
}

/*
 * AETH syndrome: the reserved type is never valid, nor are NAK codes past
 * "invalid RD request"; READ responses and ATOMIC ACKs are positive
 * acknowledgements, only ACK may carry an RNR NAK or a NAK.
 */
static int sroce_check_syndrome(const struct sroce_roce_opinfo *op, u8 syn)
{
	switch (syn & SROCE_AETH_TYPE_MASK) {
	case SROCE_AETH_TYPE_ACK:
		return 0;
	case SROCE_AETH_TYPE_RNR_NAK:
		return op->kind == SROCE_OPK_ACK ? 0 : -EINVAL;
	case SROCE_AETH_TYPE_NAK:
		if (op->kind != SROCE_OPK_ACK ||
		    (syn & SROCE_AETH_VALUE_MASK) > SROCE_AETH_NAK_INVALID_RD_REQ)
			return -EINVAL;
		return 0;
	default:
		return -EINVAL;
	}
}

/**
 * sroce_roce_parse() - validate and index a received transport packet
 * @buf: the packet from the first byte of the BTH through the ICRC
 * @len: bytes at @buf (BTH, extension headers, payload, pad and ICRC)
 * @info: filled in on success; unspecified on failure
 *
 * Checks, in this order, that @len holds a BTH and an ICRC, that the
 * opcode is one sroce supports and TVer is 0, that @len holds the opcode's
 * extension headers and the ICRC, that the span between headers and ICRC
 * is a multiple of 4 no shorter than PadCnt, that the payload obeys the
 * rules at the top of this file and that an AETH carries a valid syndrome
 * for the opcode. Only the first @len bytes of @buf are read. The ICRC
 * itself is not checked (see sroce_icrc_verify()).
 *
 * Return: 0; -EPROTONOSUPPORT for an invalid opcode or TVer; -EMSGSIZE
 * for a payload beyond SROCE_ROCE_MAX_PAYLOAD; -EINVAL for an invalid AETH
 * syndrome; -EBADMSG for any other length, pad or payload inconsistency.
 */
int sroce_roce_parse(const u8 *buf, size_t len, struct sroce_roce_info *info)
{
	const struct sroce_roce_opinfo *op;
	size_t span, payload;
	unsigned int pad, off, e;
	int err;

	if (len < SROCE_BTH_LEN + SROCE_ICRC_LEN)
		return -EBADMSG;
	op = sroce_roce_opinfo(sroce_bth_opcode(buf));
	if (!op || sroce_bth_tver(buf))
		return -EPROTONOSUPPORT;
	if (len < (size_t)op->hdr_len + SROCE_ICRC_LEN)
		return -EBADMSG;
	span = len - op->hdr_len - SROCE_ICRC_LEN;
	pad = sroce_bth_pad(buf);
	if (span & 3 || pad > span)
		return -EBADMSG;
	payload = span - pad;
	err = sroce_check_payload(op, payload);
	if (err)
		return err;

	memset(info, 0, sizeof(*info));
	off = SROCE_BTH_LEN;
	for (e = 0; e < SROCE_EXT_NUM; e++) {
		if (op->hdrs & BIT(e)) {
			info->off[e] = off;
			off += sroce_ext_len[e];
		}
	}
	if (op->hdrs & SROCE_HDR_AETH) {
		err = sroce_check_syndrome(op, sroce_aeth_syndrome(buf +
						info->off[SROCE_EXT_AETH]));
		if (err)
			return err;
	}

	info->op = op;
	info->opcode = sroce_bth_opcode(buf);
	info->hdr_len = op->hdr_len;
	info->pad = pad;
	info->se = sroce_bth_se(buf);
	info->mig = sroce_bth_mig(buf);
	info->fecn = sroce_bth_fecn(buf);
	info->becn = sroce_bth_becn(buf);
	info->ackreq = sroce_bth_ackreq(buf);
	info->pkey = sroce_bth_pkey(buf);
	info->qpn = sroce_bth_qpn(buf);
	info->psn = sroce_bth_psn(buf);
	info->payload_off = op->hdr_len;
	info->payload_len = (u32)payload;
	return 0;
}

/**
 * sroce_roce_get_fields() - decode every header field of a parsed packet
 * @buf: the packet given to a successful sroce_roce_parse()
 * @info: what sroce_roce_parse() returned for it
 * @f: set to the BTH and extension header fields; fields of headers the
 *	opcode does not carry are zero
 */
void sroce_roce_get_fields(const u8 *buf, const struct sroce_roce_info *info,
			   struct sroce_roce_fields *f)
{
	const u8 *h;

	memset(f, 0, sizeof(*f));
	f->opcode = info->opcode;
	f->se = info->se;
	f->mig = info->mig;
	f->fecn = info->fecn;
	f->becn = info->becn;
	f->ackreq = info->ackreq;
	f->pkey = info->pkey;
	f->qpn = info->qpn;
	f->psn = info->psn;
	f->payload_len = info->payload_len;
	if (info->off[SROCE_EXT_DETH]) {
		h = buf + info->off[SROCE_EXT_DETH];
		f->deth_qkey = sroce_deth_qkey(h);
		f->deth_sqp = sroce_deth_sqp(h);
	}
	if (info->off[SROCE_EXT_FETH])
		f->feth = sroce_feth(buf + info->off[SROCE_EXT_FETH]) &
			  (SROCE_FETH_PLT_MASK | SROCE_FETH_SEL_MASK);
	if (info->off[SROCE_EXT_RETH]) {
		h = buf + info->off[SROCE_EXT_RETH];
		f->reth_va = sroce_reth_va(h);
		f->reth_rkey = sroce_reth_rkey(h);
		f->reth_len = sroce_reth_len(h);
	}
	if (info->off[SROCE_EXT_ATMETH]) {
		h = buf + info->off[SROCE_EXT_ATMETH];
		f->atm_va = sroce_atmeth_va(h);
		f->atm_rkey = sroce_atmeth_rkey(h);
		f->atm_swap_add = sroce_atmeth_swap_add(h);
		f->atm_cmp = sroce_atmeth_cmp(h);
	}
	if (info->off[SROCE_EXT_IMMDT])
		f->imm = sroce_immdt(buf + info->off[SROCE_EXT_IMMDT]);
	if (info->off[SROCE_EXT_IETH])
		f->ieth_rkey = sroce_ieth_rkey(buf + info->off[SROCE_EXT_IETH]);
	if (info->off[SROCE_EXT_AETH]) {
		h = buf + info->off[SROCE_EXT_AETH];
		f->aeth_syndrome = sroce_aeth_syndrome(h);
		f->aeth_msn = sroce_aeth_msn(h);
	}
	if (info->off[SROCE_EXT_ATMACK])
		f->atmack_orig = sroce_atmack_orig(buf +
						   info->off[SROCE_EXT_ATMACK]);
}

/**
 * sroce_roce_build() - write the BTH and extension headers of a packet
 * @buf: where the BTH starts
 * @size: bytes available at @buf
 * @f: field values; fields of headers @f->opcode does not carry are
 *	ignored
 *
 * TVer, the reserved bits and a CNP's reserved bytes are written as zero
 * and PadCnt is derived from @f->payload_len. The caller then places the
 * payload at @buf + the returned length, followed by sroce_roce_pad()
 * zero bytes and the ICRC. Whatever this accepts sroce_roce_parse()
 * accepts once the payload, pad and ICRC are in place.
 *
 * Return: the header length written; -EPROTONOSUPPORT for an invalid
 * opcode; -ENOSPC if @size cannot hold the headers; -EINVAL for a QPN,
 * PSN, source QPN, MSN or FETH out of range or an invalid AETH syndrome;
 * -EMSGSIZE or -EBADMSG for a payload length the parser would refuse.
 */
int sroce_roce_build(u8 *buf, size_t size, const struct sroce_roce_fields *f)
{
	const struct sroce_roce_opinfo *op = sroce_roce_opinfo(f->opcode);
	unsigned int off, e;
	u8 *h;
	int err;

	if (!op)
		return -EPROTONOSUPPORT;
	if (size < op->hdr_len)
		return -ENOSPC;
	if (f->qpn > SROCE_QPN_MASK || f->psn > SROCE_QPN_MASK)
		return -EINVAL;
	if ((op->hdrs & SROCE_HDR_DETH) && f->deth_sqp > SROCE_QPN_MASK)
		return -EINVAL;
	if ((op->hdrs & SROCE_HDR_FETH) &&
	    (f->feth & ~(SROCE_FETH_PLT_MASK | SROCE_FETH_SEL_MASK)))
		return -EINVAL;
	if (op->hdrs & SROCE_HDR_AETH) {
		if (f->aeth_msn > SROCE_QPN_MASK)
			return -EINVAL;
		err = sroce_check_syndrome(op, f->aeth_syndrome);
		if (err)
			return err;
	}
	err = sroce_check_payload(op, f->payload_len);
	if (err)
		return err;

	memset(buf, 0, op->hdr_len);
	sroce_bth_set_opcode(buf, f->opcode);
	sroce_bth_set_se(buf, f->se);
	sroce_bth_set_mig(buf, f->mig);
	sroce_bth_set_pad(buf, sroce_roce_pad(f->payload_len));
	sroce_bth_set_pkey(buf, f->pkey);
	sroce_bth_set_fecn(buf, f->fecn);
	sroce_bth_set_becn(buf, f->becn);
	sroce_bth_set_qpn(buf, f->qpn);
	sroce_bth_set_ackreq(buf, f->ackreq);
	sroce_bth_set_psn(buf, f->psn);

	off = SROCE_BTH_LEN;
	for (e = 0; e < SROCE_EXT_NUM; e++) {
		if (!(op->hdrs & BIT(e)))
			continue;
		h = buf + off;
		off += sroce_ext_len[e];
		switch (e) {
		case SROCE_EXT_DETH:
			sroce_deth_set_qkey(h, f->deth_qkey);
			sroce_deth_set_sqp(h, f->deth_sqp);
			break;
		case SROCE_EXT_FETH:
			sroce_feth_set(h, f->feth);
			break;
		case SROCE_EXT_RETH:
			sroce_reth_set_va(h, f->reth_va);
			sroce_reth_set_rkey(h, f->reth_rkey);
			sroce_reth_set_len(h, f->reth_len);
			break;
		case SROCE_EXT_ATMETH:
			sroce_atmeth_set_va(h, f->atm_va);
			sroce_atmeth_set_rkey(h, f->atm_rkey);
			sroce_atmeth_set_swap_add(h, f->atm_swap_add);
			sroce_atmeth_set_cmp(h, f->atm_cmp);
			break;
		case SROCE_EXT_IMMDT:
			sroce_immdt_set(h, f->imm);
			break;
		case SROCE_EXT_IETH:
			sroce_ieth_set_rkey(h, f->ieth_rkey);
			break;
		case SROCE_EXT_AETH:
			sroce_aeth_set_syndrome(h, f->aeth_syndrome);
			sroce_aeth_set_msn(h, f->aeth_msn);
			break;
		case SROCE_EXT_ATMACK:
			sroce_atmack_set_orig(h, f->atmack_orig);
			break;
		default:	/* SROCE_EXT_CNP: reserved, already zero */
			break;
		}
	}
	return op->hdr_len;
}
