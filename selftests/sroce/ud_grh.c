// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The GRH area of UD receives whose datagrams came in one train: each
 * must show the IP header its own packet had on the wire, not the
 * train's. Device A posts COUNT UD SENDs of SIZE bytes to a QP of device
 * B in one ibv_post_send() call (one doorbell: the firmware sends them as
 * trains), B has COUNT receives posted; every receive must complete with
 * its payload byte-exact and a GRH area that holds, for RoCE v2 over
 * IPv4, a valid IPv4 header (in its last 20 bytes: version 4, the
 * packet's total length, a correct header checksum, A's and B's
 * addresses, an ID of its own, as segmentation numbers them) and over
 * IPv6 an IPv6 header (version 6, the packet's payload length, UDP, the
 * addresses). A and B may be one device (the internal loopback's trains).
 *
 *   ud_grh -a DEV_A -g GID_A -b DEV_B -G GID_B [-n COUNT] [-s SIZE]
 *
 * Exit status: 0 all good, 1 a mismatch, error or timeout.
 */
#include <arpa/inet.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sroce_test.h"

#define GRH_LEN		40
#define QKEY		0x11111111
#define MAX_COUNT	64
#define MAX_SIZE	1024
/* BTH, DETH and ICRC around a UD SEND's payload (and its pad). */
#define UD_OVERHEAD	(12 + 8 + 4)
#define UDP_HDR_LEN	8
#define IPV4_HDR_LEN	20

static int fail(const char *what)
{
	fprintf(stderr, "ud_grh: %s\n", what);
	return 1;
}

static int side_open(struct sroce_test_side *s, size_t len)
{
	struct ibv_qp_init_attr init = {
		.qp_type = IBV_QPT_UD,
		.cap = {
			.max_send_wr = MAX_COUNT,
			.max_recv_wr = MAX_COUNT,
			.max_send_sge = 1,
			.max_recv_sge = 1,
		},
	};
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = 1,
		.qkey = QKEY,
	};

	s->ctx = sroce_open_device(s->name);
	if (!s->ctx)
		return fail("cannot open a device");
	if (ibv_query_gid(s->ctx, 1, s->gid_index, &s->gid))
		return fail("cannot query a GID");
	s->pd = ibv_alloc_pd(s->ctx);
	s->cq = s->pd ? ibv_create_cq(s->ctx, 2 * MAX_COUNT, NULL, NULL, 0) :
			NULL;
	s->buf = calloc(1, len);
	if (!s->cq || !s->buf)
		return fail("cannot allocate a PD, CQ or buffer");
	s->mr = ibv_reg_mr(s->pd, s->buf, len, IBV_ACCESS_LOCAL_WRITE);
	init.send_cq = s->cq;
	init.recv_cq = s->cq;
	s->qp = s->mr ? ibv_create_qp(s->pd, &init) : NULL;
	if (!s->qp)
		return fail("cannot register the buffer or create the QP");
	if (ibv_modify_qp(s->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_QKEY))
		return fail("UD QP to INIT");
	a.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(s->qp, &a, IBV_QP_STATE))
		return fail("UD QP to RTR");
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = 0;
	if (ibv_modify_qp(s->qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN))
		return fail("UD QP to RTS");
	return 0;
}

static int is_v4_mapped(const union ibv_gid *gid)
{
	static const uint8_t prefix[12] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff
	};

	return !memcmp(gid->raw, prefix, sizeof(prefix));
}

/* Ones' complement sum of an IPv4 header: 0xffff when its checksum holds. */
static unsigned int ipv4_sum(const uint8_t *h)
{
	unsigned int sum = 0, i;

	for (i = 0; i < IPV4_HDR_LEN; i += 2)
		sum += (unsigned int)h[i] << 8 | h[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return sum;
}

/* Byte @i of message @msg: the first is its number. */
static uint8_t payload_byte(unsigned int msg, unsigned int i)
{
	return (uint8_t)(i ? msg * 37 + i * 11 + 5 : msg);
}

/*
 * Check a receive's GRH area and payload, @area; @id gets its IPv4 ID.
 * Return: 0, or 1 with the reason printed.
 */
static int check_grh(const struct sroce_test_side *a, const struct sroce_test_side *b,
		     const uint8_t *area, unsigned int size, uint16_t *id)
{
	unsigned int pkt_len = UD_OVERHEAD + ((size + 3) & ~3u);
	unsigned int msg = area[GRH_LEN], i;

	for (i = 0; i < size; i++)
		if (area[GRH_LEN + i] != payload_byte(msg, i)) {
			fprintf(stderr, "ud_grh: message %u: payload byte %u differs\n",
				msg, i);
			return 1;
		}
	if (is_v4_mapped(&a->gid)) {
		const uint8_t *ip = area + GRH_LEN - IPV4_HDR_LEN;
		unsigned int tot = ip[2] << 8 | ip[3];

		*id = (uint16_t)(ip[4] << 8 | ip[5]);
		if (ip[0] != 0x45 || ip[9] != 17 ||
		    tot != IPV4_HDR_LEN + UDP_HDR_LEN + pkt_len ||
		    ipv4_sum(ip) != 0xffff ||
		    memcmp(ip + 12, a->gid.raw + 12, 4) ||
		    memcmp(ip + 16, b->gid.raw + 12, 4)) {
			fprintf(stderr, "ud_grh: message %u: IPv4 header: version/IHL %#x, protocol %u, total length %u (want %u), checksum sum %#x (want 0xffff), addresses %s\n",
				msg, ip[0], ip[9], tot,
				IPV4_HDR_LEN + UDP_HDR_LEN + pkt_len,
				ipv4_sum(ip),
				memcmp(ip + 12, a->gid.raw + 12, 4) ||
				memcmp(ip + 16, b->gid.raw + 12, 4) ?
				"wrong" : "right");
			return 1;
		}
	} else {
		unsigned int plen = area[4] << 8 | area[5];

		if (area[0] >> 4 != 6 || area[6] != 17 ||
		    plen != UDP_HDR_LEN + pkt_len ||
		    memcmp(area + 8, a->gid.raw, 16) ||
		    memcmp(area + 24, b->gid.raw, 16)) {
			fprintf(stderr, "ud_grh: message %u: IPv6 header: version %u, next header %u, payload length %u (want %u), addresses %s\n",
				msg, area[0] >> 4, area[6], plen,
				UDP_HDR_LEN + pkt_len,
				memcmp(area + 8, a->gid.raw, 16) ||
				memcmp(area + 24, b->gid.raw, 16) ?
				"wrong" : "right");
			return 1;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct sroce_test_side a = { .gid_index = -1 }, b = { .gid_index = -1 };
	struct ibv_send_wr swr[MAX_COUNT], *bad_s;
	struct ibv_recv_wr rwr[MAX_COUNT], *bad_r;
	struct ibv_sge ssge[MAX_COUNT], rsge[MAX_COUNT];
	unsigned int count = 32, size = 512, i, j, sent = 0, got = 0;
	struct ibv_ah_attr ah_attr = { .is_global = 1, .port_num = 1 };
	uint16_t ids[MAX_COUNT];
	size_t slot, tx_off;
	struct ibv_ah *ah;
	uint64_t deadline;
	int opt, bad = 0;

	while ((opt = getopt(argc, argv, "a:b:g:G:n:s:")) != -1) {
		switch (opt) {
		case 'a': a.name = optarg; break;
		case 'b': b.name = optarg; break;
		case 'g': a.gid_index = atoi(optarg); break;
		case 'G': b.gid_index = atoi(optarg); break;
		case 'n': count = strtoul(optarg, NULL, 0); break;
		case 's': size = strtoul(optarg, NULL, 0); break;
		default: return fail("bad option");
		}
	}
	if (!a.name || !b.name || a.gid_index < 0 || b.gid_index < 0 ||
	    !count || count > MAX_COUNT || !size || size > MAX_SIZE)
		return fail("usage: ud_grh -a DEV -g GID -b DEV -G GID [-n 1..64] [-s 1..1024]");

	slot = GRH_LEN + size;
	tx_off = count * slot;
	if (side_open(&a, tx_off + count * size) ||
	    side_open(&b, tx_off + count * size))
		return 1;

	for (i = 0; i < count; i++) {
		rsge[i] = (struct ibv_sge){
			.addr = (uintptr_t)b.buf + i * slot,
			.length = slot,
			.lkey = b.mr->lkey,
		};
		rwr[i] = (struct ibv_recv_wr){
			.wr_id = i,
			.sg_list = &rsge[i],
			.num_sge = 1,
			.next = i + 1 < count ? &rwr[i + 1] : NULL,
		};
	}
	if (ibv_post_recv(b.qp, rwr, &bad_r))
		return fail("cannot post the receives");

	ah_attr.grh.dgid = b.gid;
	ah_attr.grh.sgid_index = a.gid_index;
	ah_attr.grh.hop_limit = 64;
	ah = ibv_create_ah(a.pd, &ah_attr);
	if (!ah)
		return fail("cannot create the address handle");
	for (i = 0; i < count; i++) {
		uint8_t *p = a.buf + tx_off + i * size;

		for (j = 0; j < size; j++)
			p[j] = payload_byte(i, j);
		ssge[i] = (struct ibv_sge){
			.addr = (uintptr_t)p,
			.length = size,
			.lkey = a.mr->lkey,
		};
		swr[i] = (struct ibv_send_wr){
			.wr_id = i,
			.sg_list = &ssge[i],
			.num_sge = 1,
			.opcode = IBV_WR_SEND,
			.send_flags = IBV_SEND_SIGNALED,
			.next = i + 1 < count ? &swr[i + 1] : NULL,
		};
		swr[i].wr.ud.ah = ah;
		swr[i].wr.ud.remote_qpn = b.qp->qp_num;
		swr[i].wr.ud.remote_qkey = QKEY;
	}
	if (ibv_post_send(a.qp, swr, &bad_s))
		return fail("cannot post the sends");

	deadline = sroce_now_ms() + 10000;
	while ((sent < count || got < count) && sroce_now_ms() < deadline) {
		struct ibv_wc wc;

		while (sent < count && ibv_poll_cq(a.cq, 1, &wc) == 1) {
			if (wc.status != IBV_WC_SUCCESS)
				return fail("a send failed");
			sent++;
		}
		while (got < count && ibv_poll_cq(b.cq, 1, &wc) == 1) {
			const uint8_t *area = b.buf + wc.wr_id * slot;

			if (wc.status != IBV_WC_SUCCESS ||
			    wc.byte_len != GRH_LEN + size ||
			    !(wc.wc_flags & IBV_WC_GRH))
				return fail("a receive completed wrong (status, length or no GRH)");
			bad |= check_grh(&a, &b, area, size, &ids[got]);
			got++;
		}
	}
	if (sent < count || got < count) {
		fprintf(stderr, "ud_grh: %u of %u sends and %u receives completed in 10 s\n",
			sent, count, got);
		return 1;
	}
	/* Each packet its own ID: a train's header copied would repeat one. */
	if (is_v4_mapped(&a.gid))
		for (i = 0; i < count; i++)
			for (j = i + 1; j < count; j++)
				if (ids[i] == ids[j]) {
					fprintf(stderr, "ud_grh: two packets show IPv4 ID %#x\n",
						ids[i]);
					bad = 1;
					i = j = count;
				}
	printf("ud_grh: %u datagrams of %u bytes, %s, GRH areas %s\n", count,
	       size, is_v4_mapped(&a.gid) ? "IPv4" : "IPv6",
	       bad ? "WRONG" : "right");
	return bad;
}
