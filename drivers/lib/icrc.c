// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * RoCE invariant CRC. The ICRC is a CRC-32 (the Ethernet polynomial,
 * reflected, initial value all ones, result inverted) over:
 *
 *   8 bytes of 0xff standing in for the InfiniBand LRH,
 *   the L3 header: IPv4 or IPv6 (RoCE v2) or the GRH (RoCE v1),
 *   the UDP header (RoCE v2),
 *   the BTH, extension headers, payload and pad,
 *
 * with every field a router or switch may rewrite replaced by ones: IPv4
 * TOS (DSCP and ECN), TTL and header checksum; IPv6 and GRH traffic class,
 * flow label and hop limit; the UDP checksum; BTH byte 4 (FECN, BECN and
 * Resv6a). It follows the pad and is stored least-significant byte first.
 *
 * Only the fixed headers (at most 60 bytes) are copied, to mask them; the
 * rest of the packet is fed to the CRC where it lies.
 */
#include "roce_hdr.h"

/*
 * Raw crc32_le state after hashing the eight 0xff bytes from the initial
 * all-ones state; starting from it saves hashing them. The unit tests
 * check the value against sroce_crc32_le().
 */
#define SROCE_ICRC_SEED		0xdebb20e3U

#define SROCE_ICRC_MAX_FIXED \
	(SROCE_IPV6_HDR_LEN + SROCE_UDP_HDR_LEN + SROCE_BTH_LEN)

/*
 * Folding. Q(x) = x^300 + x^155 + x^117 + x^89 + 1 is a multiple of the
 * CRC-32 polynomial P(x) (a meet-in-the-middle search over the residues
 * x^i mod P found it; the unit tests divide it by P). Adding Q, shifted so
 * that its leading term meets a set bit of the message, clears that bit
 * and leaves the remainder mod P, hence the CRC, unchanged; it flips the
 * bits 300 - e places further on for each lower term x^e: 145, 183, 211
 * and 300. In the reflected bit order (bit k of a little-endian 64-bit
 * word is message bit 64 * i + k) each word folds forward, with shifts and
 * XORs, into the 2nd to 5th words after it, which are kept in registers:
 * 145 = 2 * 64 + 17, 183 = 2 * 64 + 55, 211 = 3 * 64 + 19, 300 = 4 * 64 +
 * 44. Once every word but the last five is folded the message is zeros
 * followed by a tail of 40 to 47 bytes, and zeros do not move a CRC that
 * starts from 0: the tail's CRC is the message's. This costs no table
 * lookups, which matters most where memory accesses are dear (a TCG guest,
 * where slice-by-8 CRC runs at a quarter of memcpy's speed).
 */
#define SROCE_CRC32_FOLD_AHEAD	5	/* words a fold reaches past its own */

/* The tail goes to sroce_crc32_le(), which must not fold it again. */
#if SROCE_CRC32_FOLD_MIN < (SROCE_CRC32_FOLD_AHEAD + 1) * 8
#error "SROCE_CRC32_FOLD_MIN must exceed the fold's longest tail"
#endif

static inline u64 sroce_crc32_word(const u8 *p)
{
	__le64 w;

	memcpy(&w, p, sizeof(w));
	return le64_to_cpu(w);
}

/* A word of the tail: the message's, plus what was folded into it. */
static inline void sroce_crc32_unfold(u8 *out, const u8 *in, u64 folded)
{
	__le64 w = cpu_to_le64(sroce_crc32_word(in) ^ folded);

	memcpy(out, &w, sizeof(w));
}

/**
 * sroce_crc32_fold() - sroce_crc32_le() by folding with a sparse multiple
 * of the polynomial
 * @crc: running CRC, not inverted
 * @p: data
 * @len: bytes of @p
 *
 * For an environment whose CRC-32 primitive works a byte or a table lookup
 * at a time: from SROCE_CRC32_FOLD_MIN bytes on, the bulk is folded in
 * 64-bit words and only the last 40 to 47 bytes are handed to
 * sroce_crc32_le() (fewer than SROCE_CRC32_FOLD_MIN, so an environment
 * that calls this for long inputs does not recurse).
 *
 * Return: the updated CRC, equal to sroce_crc32_le(@crc, @p, @len).
 */
u32 sroce_crc32_fold(u32 crc, const u8 *p, size_t len)
{
	u64 w0 = crc, w1 = 0, w2 = 0, w3 = 0, w4 = 0, x;
	u8 tail[(SROCE_CRC32_FOLD_AHEAD + 1) * sizeof(u64)];
	const size_t ahead = SROCE_CRC32_FOLD_AHEAD * sizeof(u64);
	size_t words = len / sizeof(u64), k;

	if (len < SROCE_CRC32_FOLD_MIN)
		return sroce_crc32_le(crc, p, len);
	for (k = 0; k + SROCE_CRC32_FOLD_AHEAD < words; k++, p += 8) {
		x = sroce_crc32_word(p) ^ w0;
		w0 = w1;
		w1 = w2 ^ x << 17 ^ x << 55;
		w2 = w3 ^ x >> 47 ^ x >> 9 ^ x << 19;
		w3 = w4 ^ x >> 45 ^ x << 44;
		w4 = x >> 20;
	}
	sroce_crc32_unfold(tail, p, w0);
	sroce_crc32_unfold(tail + 8, p + 8, w1);
	sroce_crc32_unfold(tail + 16, p + 16, w2);
	sroce_crc32_unfold(tail + 24, p + 24, w3);
	sroce_crc32_unfold(tail + 32, p + 32, w4);
	len -= k * sizeof(u64);
	memcpy(tail + ahead, p + ahead, len - ahead);
	return sroce_crc32_le(0, tail, len);
}

/* Mask the variant fields of an IPv6 header or a GRH (same layout). */
static void sroce_icrc_mask_ip6(u8 *h)
{
	h[0] |= 0x0f;		/* traffic class, high nibble */
	h[1] = 0xff;		/* traffic class low nibble, flow label */
	h[2] = 0xff;
	h[3] = 0xff;
	h[7] = 0xff;		/* hop limit */
}

/**
 * sroce_icrc_compute_split() - compute the ICRC of a RoCE packet whose
 * network headers lie apart from its transport packet
 * @l3: first byte of the IPv4 header, IPv6 header or GRH, as the packet
 *	carries it on the wire
 * @l3_len: bytes at @l3: the IP header and the UDP header behind it
 *	    (RoCE v2), or the GRH (RoCE v1)
 * @pkt: first byte of the BTH
 * @len: bytes from @pkt through the end of the pad, the ICRC excluded
 * @l3_type: enum sroce_l3_type value describing @l3
 * @icrc: set to the ICRC; the wire carries it least-significant byte
 *	first (see sroce_put_le32())
 *
 * For trains of packets that leave as one buffer and are cut apart on the
 * way (segmentation offload): each packet's IP and UDP headers exist only
 * once it is cut, so the sender writes them into @l3 as they will be.
 * Lengths inside the headers are hashed as they are, not checked against
 * @len. Nothing is modified.
 *
 * Return: 0; -EINVAL for an unknown @l3_type or an @l3_len that is not
 * its headers' length; -EPROTONOSUPPORT if the IP version (or IPv4 header
 * length) does not match @l3_type; -EBADMSG if @len does not cover the
 * base transport header.
 */
int sroce_icrc_compute_split(const u8 *l3, unsigned int l3_len,
			     const u8 *pkt, size_t len, unsigned int l3_type,
			     u32 *icrc)
{
	u8 hdr[SROCE_ICRC_MAX_FIXED];
	unsigned int ip_len, fixed;
	u32 crc;

	switch (l3_type) {
	case SROCE_L3_IPV4:
		ip_len = SROCE_IPV4_HDR_LEN;
		break;
	case SROCE_L3_IPV6:
		ip_len = SROCE_IPV6_HDR_LEN;
		break;
	case SROCE_L3_GRH:
		ip_len = SROCE_GRH_LEN;
		break;
	default:
		return -EINVAL;
	}
	if (l3_len != ip_len + (l3_type == SROCE_L3_GRH ? 0 : SROCE_UDP_HDR_LEN))
		return -EINVAL;
	if (len < SROCE_BTH_LEN)
		return -EBADMSG;
	if (l3_type == SROCE_L3_IPV4 ? l3[0] != 0x45 : l3[0] >> 4 != 6)
		return -EPROTONOSUPPORT;

	fixed = l3_len + SROCE_BTH_LEN;
	memcpy(hdr, l3, l3_len);
	memcpy(hdr + l3_len, pkt, SROCE_BTH_LEN);
	if (l3_type == SROCE_L3_IPV4) {
		hdr[1] = 0xff;			/* TOS */
		hdr[8] = 0xff;			/* TTL */
		hdr[10] = 0xff;			/* header checksum */
		hdr[11] = 0xff;
	} else {
		sroce_icrc_mask_ip6(hdr);
	}
	if (l3_type != SROCE_L3_GRH) {
		hdr[ip_len + 6] = 0xff;		/* UDP checksum */
		hdr[ip_len + 7] = 0xff;
	}
	hdr[l3_len + 4] = 0xff;			/* FECN, BECN, Resv6a */

	crc = sroce_crc32_le(SROCE_ICRC_SEED, hdr, fixed);
	crc = sroce_crc32_le(crc, pkt + SROCE_BTH_LEN, len - SROCE_BTH_LEN);
	*icrc = ~crc;
	return 0;
}

/**
 * sroce_train_seg_hdr() - the IP and UDP headers of one packet of a train
 * @hdr: the train's IPv4 or IPv6 header and UDP header (a copy), rewritten
 *	 in place into the packet's
 * @l3_len: bytes at @hdr (IP header + UDP header)
 * @l3_type: SROCE_L3_IPV4 or SROCE_L3_IPV6
 * @first_id: IPv4: the train's IP ID
 * @index: the packet's place in the train, from 0
 * @len: the packet's length, BTH through ICRC
 *
 * A train is packets of one length (the last maybe shorter) behind one IP
 * and UDP header, sent as one datagram for UDP segmentation; once cut,
 * each packet has the train's headers with its own lengths and, IPv4, the
 * train's ID plus its index, which is how segmentation numbers the
 * datagrams it makes. Its ICRC covers those headers
 * (sroce_icrc_compute_split()).
 */
void sroce_train_seg_hdr(u8 *hdr, unsigned int l3_len, unsigned int l3_type,
			 u16 first_id, u16 index, u32 len)
{
	u8 *udp = hdr + l3_len - SROCE_UDP_HDR_LEN;

	if (l3_type == SROCE_L3_IPV4) {
		sroce_put_be16(hdr + 2, l3_len + len);		/* total length */
		sroce_put_be16(hdr + 4, (u16)(first_id + index));	/* ID */
	} else {
		sroce_put_be16(hdr + 4, SROCE_UDP_HDR_LEN + len); /* payload */
	}
	sroce_put_be16(udp + 4, SROCE_UDP_HDR_LEN + len);
}

/**
 * sroce_icrc_compute() - compute the ICRC of a RoCE packet
 * @l3: first byte of the IPv4 header, IPv6 header or GRH
 * @len: bytes from @l3 through the end of the pad, the ICRC excluded
 * @l3_type: enum sroce_l3_type value describing @l3
 * @icrc: set to the ICRC; the wire carries it least-significant byte
 *	first (see sroce_put_le32())
 *
 * For RoCE v2 the UDP header is expected right after a 20-byte IPv4
 * header (no options) or a 40-byte IPv6 header (no extension headers);
 * for RoCE v1 the BTH right after the GRH. Lengths inside the headers are
 * hashed as they are, not checked against @len. The packet is not
 * modified.
 *
 * Return: 0; -EINVAL for an unknown @l3_type; -EPROTONOSUPPORT if the
 * IP version (or IPv4 header length) does not match @l3_type; -EBADMSG if
 * @len does not cover the L3, UDP and base transport headers.
 */
int sroce_icrc_compute(const u8 *l3, size_t len, unsigned int l3_type,
		       u32 *icrc)
{
	unsigned int l3_len;

	switch (l3_type) {
	case SROCE_L3_IPV4:
		l3_len = SROCE_IPV4_HDR_LEN + SROCE_UDP_HDR_LEN;
		break;
	case SROCE_L3_IPV6:
		l3_len = SROCE_IPV6_HDR_LEN + SROCE_UDP_HDR_LEN;
		break;
	case SROCE_L3_GRH:
		l3_len = SROCE_GRH_LEN;
		break;
	default:
		return -EINVAL;
	}
	if (len < l3_len + SROCE_BTH_LEN)
		return -EBADMSG;
	return sroce_icrc_compute_split(l3, l3_len, l3 + l3_len, len - l3_len,
					l3_type, icrc);
}

/**
 * sroce_icrc_generate() - compute the ICRC and store it after the pad
 * @l3: first byte of the IPv4 header, IPv6 header or GRH
 * @len: bytes from @l3 through the end of the pad; the 4 bytes at
 *	@l3 + @len receive the ICRC
 * @l3_type: enum sroce_l3_type value describing @l3
 *
 * Return: 0 or an error of sroce_icrc_compute(), in which case nothing is
 * written.
 */
int sroce_icrc_generate(u8 *l3, size_t len, unsigned int l3_type)
{
	u32 icrc;
	int err;

	err = sroce_icrc_compute(l3, len, l3_type, &icrc);
	if (err)
		return err;
	sroce_put_le32(l3 + len, icrc);
	return 0;
}

/**
 * sroce_icrc_verify_split() - check the ICRC of a packet whose L3 and UDP
 * headers lie apart from it
 * @l3: the headers, as for sroce_icrc_compute_split()
 * @l3_len: their length
 * @pkt: first byte of the BTH
 * @len: bytes from @pkt through the end of the pad; the ICRC is read from
 *	the 4 bytes at @pkt + @len
 * @l3_type: enum sroce_l3_type value describing @l3
 *
 * A packet of a train received whole is checked against the headers it
 * would have had once cut (sroce_train_seg_hdr()).
 *
 * Return: 0 if the stored ICRC matches; -EILSEQ if it does not; an error
 * of sroce_icrc_compute_split() if it cannot be computed.
 */
int sroce_icrc_verify_split(const u8 *l3, unsigned int l3_len,
			    const u8 *pkt, size_t len, unsigned int l3_type)
{
	u32 icrc;
	int err;

	err = sroce_icrc_compute_split(l3, l3_len, pkt, len, l3_type, &icrc);
	if (err)
		return err;
	return icrc == sroce_get_le32(pkt + len) ? 0 : -EILSEQ;
}

/**
 * sroce_icrc_verify() - check the ICRC of a received packet
 * @l3: first byte of the IPv4 header, IPv6 header or GRH
 * @len: bytes from @l3 through the end of the pad; the ICRC is read from
 *	the 4 bytes at @l3 + @len
 * @l3_type: enum sroce_l3_type value describing @l3
 *
 * Return: 0 if the stored ICRC matches; -EILSEQ if it does not; an error
 * of sroce_icrc_compute() if it cannot be computed.
 */
int sroce_icrc_verify(const u8 *l3, size_t len, unsigned int l3_type)
{
	u32 icrc;
	int err;

	err = sroce_icrc_compute(l3, len, l3_type, &icrc);
	if (err)
		return err;
	return icrc == sroce_get_le32(l3 + len) ? 0 : -EILSEQ;
}
