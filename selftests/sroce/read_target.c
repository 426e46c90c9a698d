// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * read_target: an RC QP that RDMA READ requests can be aimed at from a
 * raw socket (forge_read.py). It registers a buffer for remote reads,
 * connects its QP to a peer that does not exist (a QP number nobody owns
 * at the address given), prints what a requester must know and waits
 * until its standard input closes.
 *
 *   read_target DEV GID_INDEX PEER_IPV4 RQ_PSN MAX_DEST_RD_ATOMIC
 *
 * Prints one line: "qpn=N rkey=N va=N len=N" (decimal). Exit status 0,
 * 1 on a verbs error, 4 if DEV does not exist.
 */
#include <arpa/inet.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

#define BUF_LEN		65536
#define FAKE_PEER_QPN	0xabcde

static struct ibv_context *open_dev(const char *name)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx = NULL;
	int i;

	for (i = 0; list && list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			ctx = ibv_open_device(list[i]);
	if (list)
		ibv_free_device_list(list);
	return ctx;
}

static int connect_qp(struct ibv_qp *qp, int gid_index, const char *peer,
		      uint32_t rq_psn, int max_dest)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_READ,
	};
	struct in_addr addr;

	if (inet_pton(AF_INET, peer, &addr) != 1)
		return -1;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = FAKE_PEER_QPN;
	a.rq_psn = rq_psn;
	a.max_dest_rd_atomic = max_dest;
	a.min_rnr_timer = 1;
	a.ah_attr.is_global = 1;
	/* The peer's IPv4 address as an IPv4-mapped GID. */
	a.ah_attr.grh.dgid.raw[10] = 0xff;
	a.ah_attr.grh.dgid.raw[11] = 0xff;
	memcpy(&a.ah_attr.grh.dgid.raw[12], &addr, 4);
	a.ah_attr.grh.sgid_index = gid_index;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.port_num = 1;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN |
			     IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			     IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC);
}

int main(int argc, char **argv)
{
	struct ibv_qp_init_attr init = {
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};
	struct ibv_context *ctx;
	struct ibv_qp *qp = NULL;
	struct ibv_cq *cq = NULL;
	struct ibv_mr *mr = NULL;
	struct ibv_pd *pd = NULL;
	char *buf = NULL;
	int status = 1, c;

	if (argc != 6) {
		fprintf(stderr, "usage: %s DEV GID_INDEX PEER_IPV4 RQ_PSN MAX_DEST_RD_ATOMIC\n",
			argv[0]);
		return 1;
	}
	ctx = open_dev(argv[1]);
	if (!ctx) {
		fprintf(stderr, "no device %s\n", argv[1]);
		return 4;
	}
	pd = ibv_alloc_pd(ctx);
	buf = calloc(1, BUF_LEN);
	if (!pd || !buf)
		goto out;
	mr = ibv_reg_mr(pd, buf, BUF_LEN, IBV_ACCESS_LOCAL_WRITE |
			IBV_ACCESS_REMOTE_READ);
	cq = ibv_create_cq(ctx, 4, NULL, NULL, 0);
	if (!mr || !cq)
		goto out;
	init.send_cq = cq;
	init.recv_cq = cq;
	qp = ibv_create_qp(pd, &init);
	if (!qp || connect_qp(qp, atoi(argv[2]), argv[3],
			      strtoul(argv[4], NULL, 0), atoi(argv[5]))) {
		perror("read_target: QP set-up");
		goto out;
	}
	printf("qpn=%u rkey=%u va=%llu len=%u\n", qp->qp_num, mr->rkey,
	       (unsigned long long)(uintptr_t)buf, BUF_LEN);
	fflush(stdout);
	while ((c = getchar()) != EOF)
		;
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
