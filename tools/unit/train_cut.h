/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * One packet of a train cut apart as UDP segmentation cuts it, written
 * apart from sroce_train_seg_hdr() so that the unit tests and the fuzzer
 * can hold it to this: the train's IP and UDP headers (@l3_len bytes at
 * @train_hdr) with the packet's own lengths (@len bytes, BTH to ICRC) and,
 * IPv4, its own ID; the checksums the stack would recompute scrambled.
 * Include after lib/roce_hdr.h.
 */
#ifndef SROCE_TRAIN_CUT_H
#define SROCE_TRAIN_CUT_H

static inline void train_cut_hdr(u8 *cut, const u8 *train_hdr,
				 unsigned int l3_len, unsigned int l3_type,
				 u16 id, size_t len)
{
	unsigned int ip_len = l3_len - SROCE_UDP_HDR_LEN;

	memcpy(cut, train_hdr, l3_len);
	if (l3_type == SROCE_L3_IPV4) {
		cut[2] = (u8)((l3_len + len) >> 8);
		cut[3] = (u8)(l3_len + len);
		cut[4] = (u8)(id >> 8);
		cut[5] = (u8)id;
		cut[10] ^= 0x5a;			/* header checksum */
		cut[11] ^= 0xa5;
	} else {
		cut[4] = (u8)((SROCE_UDP_HDR_LEN + len) >> 8);
		cut[5] = (u8)(SROCE_UDP_HDR_LEN + len);
	}
	cut[ip_len + 4] = (u8)((SROCE_UDP_HDR_LEN + len) >> 8);
	cut[ip_len + 5] = (u8)(SROCE_UDP_HDR_LEN + len);
	cut[ip_len + 6] ^= 0xa5;			/* UDP checksum */
	cut[ip_len + 7] ^= 0x5a;
}

#endif
