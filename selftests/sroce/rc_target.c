// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * rc_target: an RC QP that forged requests can be aimed at from a raw
 * socket (forge_read.py, forge_write.py). It registers a buffer for
 * remote reads, connects its QP to a peer that does not exist (a QP
 * number nobody owns at the address given), prints what a requester must
 * know and waits until its standard input closes.
 *
 *   rc_target DEV GID_INDEX PEER_IPV4 RQ_PSN MAX_DEST_RD_ATOMIC [flush|write]
 *
 * With "flush", the QP and the region also get the FLUSH right of global
 * visibility (kernel 6.2+) and the buffer is 16 MiB, room for READs whose
 * responses keep every responder resource owed for a while.
 *
 * With "write", they get the remote write right instead, and the QP has
 * RECV_WQES receives posted (for WRITEs with immediate). Its input may
 * say how many completions to wait for (a decimal number; RECV_WQES if it
 * says none, as many as a QP in error gives). Once the input closes, it
 * prints those completions, "wc opcode=N status=N byte_len=N imm=0xN"
 * (ibv_wc's values; imm 0 without one), then "state=N" (the QP's
 * ibv_qp_state) and "first_zero=N", the offset of the buffer's first zero
 * byte (its length if none; forge_write.py writes no zero data byte).
 *
 * Prints first "qpn=N rkey=N va=N len=N" (decimal). Exit status 0, 1 on
 * a verbs error, 4 if DEV does not exist.
 */
#include <arpa/inet.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "sroce_test.h"

#define BUF_LEN		65536
#define FLUSH_BUF_LEN	(16U << 20)
#define FAKE_PEER_QPN	0xabcde
#define RECV_WQES	4
#define CQ_DEPTH	(RECV_WQES + 4)
#define REPORT_WAIT_MS	10000
/* IBV_ACCESS_FLUSH_GLOBAL, which rdma-core 44's headers do not name. */
#define ACCESS_FLUSH_GLOBAL	(1 << 8)

/* To a QP nobody owns at @peer, an IPv4 address. */
static int connect_qp(struct ibv_qp *qp, int gid_index, const char *peer,
		      uint32_t rq_psn, int max_dest, int extra_access)
{
	struct sroce_rc_peer p = {
		.gid_index = gid_index,
		.dest_qpn = FAKE_PEER_QPN,
		.rq_psn = rq_psn,
		.access = IBV_ACCESS_REMOTE_READ | extra_access,
		.max_dest_rd_atomic = max_dest,
		.max_rd_atomic = 1,
	};
	struct in_addr addr;

	if (inet_pton(AF_INET, peer, &addr) != 1)
		return -1;
	/* The IPv4-mapped GID. */
	p.dgid.raw[10] = 0xff;
	p.dgid.raw[11] = 0xff;
	memcpy(&p.dgid.raw[12], &addr, 4);
	return sroce_rc_connect(qp, &p);
}

/* RECV_WQES receives without buffers: WRITEs with immediate take them. */
static int post_receives(struct ibv_qp *qp)
{
	struct ibv_recv_wr wr = { .num_sge = 0 }, *bad;
	int i;

	for (i = 0; i < RECV_WQES; i++) {
		wr.wr_id = i;
		if (ibv_post_recv(qp, &wr, &bad)) {
			perror("rc_target: ibv_post_recv");
			return -1;
		}
	}
	return 0;
}

/*
 * What the forged WRITEs left: the completions (every receive completes
 * once the QP is in error, flushed if no WRITE took it: wait up to
 * REPORT_WAIT_MS for @expect of them, then print any more there are), the
 * QP's state, the buffer.
 */
static int report(struct ibv_qp *qp, struct ibv_cq *cq, const char *buf,
		  unsigned int len, int expect)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr attr;
	int n = 0, seen = 0, waited = 0;
	struct ibv_wc wc;
	unsigned int i;

	for (;;) {
		n = ibv_poll_cq(cq, 1, &wc);
		if (n < 0)
			break;
		if (!n && (seen >= expect || waited >= REPORT_WAIT_MS))
			break;
		if (!n) {
			usleep(1000);
			waited++;
			continue;
		}
		seen++;
		printf("wc opcode=%d status=%d byte_len=%u imm=0x%x\n",
		       wc.opcode, wc.status, wc.byte_len,
		       wc.wc_flags & IBV_WC_WITH_IMM ? ntohl(wc.imm_data) : 0);
	}
	if (n < 0 || ibv_query_qp(qp, &attr, IBV_QP_STATE, &init)) {
		fprintf(stderr, "rc_target: poll or query failed\n");
		return -1;
	}
	for (i = 0; i < len && buf[i]; i++)
		;
	printf("state=%d\nfirst_zero=%u\n", attr.qp_state, i);
	return 0;
}

int main(int argc, char **argv)
{
	struct ibv_qp_init_attr init = {
		.cap = { .max_send_wr = 1, .max_recv_wr = RECV_WQES,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};
	struct ibv_context *ctx;
	struct ibv_qp *qp = NULL;
	struct ibv_cq *cq = NULL;
	struct ibv_mr *mr = NULL;
	struct ibv_pd *pd = NULL;
	unsigned int len = BUF_LEN;
	int status = 1, c, extra = 0, expect;
	bool write = false;
	char *buf = NULL;

	if (argc == 7 && !strcmp(argv[6], "flush")) {
		extra = ACCESS_FLUSH_GLOBAL;
		len = FLUSH_BUF_LEN;
	} else if (argc == 7 && !strcmp(argv[6], "write")) {
		extra = IBV_ACCESS_REMOTE_WRITE;
		write = true;
	} else if (argc != 6) {
		fprintf(stderr, "usage: %s DEV GID_INDEX PEER_IPV4 RQ_PSN MAX_DEST_RD_ATOMIC [flush|write]\n",
			argv[0]);
		return 1;
	}
	ctx = sroce_open_device(argv[1]);
	if (!ctx) {
		fprintf(stderr, "no device %s\n", argv[1]);
		return 4;
	}
	pd = ibv_alloc_pd(ctx);
	buf = calloc(1, len);
	if (!pd || !buf)
		goto out;
	mr = ibv_reg_mr(pd, buf, len, IBV_ACCESS_LOCAL_WRITE |
			IBV_ACCESS_REMOTE_READ | extra);
	cq = ibv_create_cq(ctx, CQ_DEPTH, NULL, NULL, 0);
	if (!mr || !cq)
		goto out;
	init.send_cq = cq;
	init.recv_cq = cq;
	qp = ibv_create_qp(pd, &init);
	if (!qp || connect_qp(qp, atoi(argv[2]), argv[3],
			      strtoul(argv[4], NULL, 0), atoi(argv[5]), extra)) {
		perror("rc_target: QP set-up");
		goto out;
	}
	if (write && post_receives(qp))
		goto out;
	printf("qpn=%u rkey=%u va=%llu len=%u\n", qp->qp_num, mr->rkey,
	       (unsigned long long)(uintptr_t)buf, len);
	fflush(stdout);
	if (scanf("%d", &expect) != 1 || expect < 0 || expect > RECV_WQES)
		expect = RECV_WQES;
	while ((c = getchar()) != EOF)
		;
	if (write && report(qp, cq, buf, len, expect))
		goto out;
	status = 0;
out:
	if (qp)
		ibv_destroy_qp(qp);
	if (cq)
		ibv_destroy_cq(cq);
	if (mr)
		ibv_dereg_mr(mr);
	free(buf);
	if (pd)
		ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	return status;
}
