// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * sqd: the SQ Drained state (IBA 10.3.1). Two RC QPs of one device are
 * connected over a RoCE v2 loopback GID. The first posts a batch of
 * SENDs and is taken to SQD with en_sqd_async_notify at once: every SEND
 * it had started completes, IBV_EVENT_SQ_DRAINED arrives and QUERY_QP
 * then reports sq_draining 0. SENDs posted in SQD are not started; the
 * receive side keeps working (the peer's SENDs are received and
 * acknowledged); SQD->SQD changes an attribute once drained; SQD->RTS
 * sends what waited.
 *
 * Environment: SROCE_DEV (the device; skip if unset or absent) and
 * SROCE_GID_INDEX (one of its RoCE v2 GIDs).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <infiniband/verbs.h>

#include "kselftest_harness.h"
#include "sroce_test.h"

#define BATCH		32
#define HELD		8
#define MSG_LEN		256
#define WAIT_MS		10000
#define QUIET_MS	300

SROCE_REQUIRE_DEVICE("SROCE_GID_INDEX");

FIXTURE(sqd)
{
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq[2];
	struct ibv_qp *qp[2];
	struct ibv_mr *mr;
	char *buf;
	union ibv_gid gid;
	int gid_index;
};

/* Connected to @dest_qpn on the loopback GID. */
static int rc_connect(FIXTURE_DATA(sqd) *self, struct ibv_qp *qp,
		      uint32_t dest_qpn)
{
	struct sroce_rc_peer peer = {
		.dgid = self->gid,
		.gid_index = self->gid_index,
		.dest_qpn = dest_qpn,
		.rq_psn = 100,
		.sq_psn = 100,
		.access = IBV_ACCESS_REMOTE_WRITE,
		.max_dest_rd_atomic = 1,
		.max_rd_atomic = 1,
	};

	return sroce_rc_connect(qp, &peer);
}

FIXTURE_SETUP(sqd)
{
	int i;

	self->ctx = sroce_open_device(sroce_env("SROCE_DEV"));
	ASSERT_NE(NULL, self->ctx);
	self->gid_index = atoi(sroce_env("SROCE_GID_INDEX"));
	ASSERT_EQ(0, ibv_query_gid(self->ctx, 1, self->gid_index, &self->gid));
	self->pd = ibv_alloc_pd(self->ctx);
	ASSERT_NE(NULL, self->pd);
	self->buf = calloc(2 * (BATCH + HELD) + 2, MSG_LEN);
	ASSERT_NE(NULL, self->buf);
	self->mr = ibv_reg_mr(self->pd, self->buf,
			      (2 * (BATCH + HELD) + 2) * MSG_LEN,
			      IBV_ACCESS_LOCAL_WRITE);
	ASSERT_NE(NULL, self->mr);
	for (i = 0; i < 2; i++) {
		struct ibv_qp_init_attr init = {
			.cap = { .max_send_wr = 2 * (BATCH + HELD),
				 .max_recv_wr = 2 * (BATCH + HELD),
				 .max_send_sge = 1, .max_recv_sge = 1 },
			.qp_type = IBV_QPT_RC,
		};

		self->cq[i] = ibv_create_cq(self->ctx, 4 * (BATCH + HELD),
					    NULL, NULL, 0);
		ASSERT_NE(NULL, self->cq[i]);
		init.send_cq = self->cq[i];
		init.recv_cq = self->cq[i];
		self->qp[i] = ibv_create_qp(self->pd, &init);
		ASSERT_NE(NULL, self->qp[i]);
	}
	ASSERT_EQ(0, rc_connect(self, self->qp[0], self->qp[1]->qp_num));
	ASSERT_EQ(0, rc_connect(self, self->qp[1], self->qp[0]->qp_num));
}

FIXTURE_TEARDOWN(sqd)
{
	int i;

	for (i = 0; i < 2; i++) {
		if (self->qp[i])
			ibv_destroy_qp(self->qp[i]);
		if (self->cq[i])
			ibv_destroy_cq(self->cq[i]);
	}
	if (self->mr)
		ibv_dereg_mr(self->mr);
	free(self->buf);
	if (self->pd)
		ibv_dealloc_pd(self->pd);
	if (self->ctx)
		ibv_close_device(self->ctx);
}

static int post_recvs(FIXTURE_DATA(sqd) *self, int side, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		struct ibv_sge sge = {
			.addr = (uintptr_t)self->buf + (size_t)i * MSG_LEN,
			.length = MSG_LEN,
			.lkey = self->mr->lkey,
		};
		struct ibv_recv_wr wr = { .wr_id = i, .sg_list = &sge,
					  .num_sge = 1 }, *bad;

		if (ibv_post_recv(self->qp[side], &wr, &bad))
			return -1;
	}
	return 0;
}

static int post_sends(FIXTURE_DATA(sqd) *self, int side, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		struct ibv_sge sge = {
			.addr = (uintptr_t)self->buf +
				(size_t)(2 * (BATCH + HELD) + side) * MSG_LEN,
			.length = MSG_LEN,
			.lkey = self->mr->lkey,
		};
		struct ibv_send_wr wr = {
			.wr_id = 1000 + i, .sg_list = &sge, .num_sge = 1,
			.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
		}, *bad;

		if (ibv_post_send(self->qp[side], &wr, &bad))
			return -1;
	}
	return 0;
}

/*
 * Completions of CQ @side until @sends send and @recvs receive
 * completions have come or @ms passed; any error status fails.
 * Return: 0 when all came, -1 on an error or a timeout.
 */
static int reap(FIXTURE_DATA(sqd) *self, int side, int sends, int recvs,
		uint64_t ms)
{
	uint64_t deadline = sroce_now_ms() + ms;
	struct ibv_wc wc;
	int n;

	while (sends > 0 || recvs > 0) {
		n = ibv_poll_cq(self->cq[side], 1, &wc);
		if (n < 0 || (n == 1 && wc.status != IBV_WC_SUCCESS)) {
			fprintf(stderr, "# CQ %d: %s (wr_id %llu)\n", side,
				n < 0 ? "poll failed" :
				ibv_wc_status_str(wc.status),
				(unsigned long long)wc.wr_id);
			return -1;
		}
		if (n == 1) {
			if (wc.opcode == IBV_WC_RECV)
				recvs--;
			else
				sends--;
		} else if (sroce_now_ms() > deadline) {
			return -1;
		}
	}
	return 0;
}

/* Whether CQ @side stays empty for QUIET_MS. */
static int quiet(FIXTURE_DATA(sqd) *self, int side)
{
	uint64_t deadline = sroce_now_ms() + QUIET_MS;
	struct ibv_wc wc;

	while (sroce_now_ms() < deadline)
		if (ibv_poll_cq(self->cq[side], 1, &wc))
			return 0;
	return 1;
}

/* The next async event of @type on the device within @ms. */
static int wait_async(struct ibv_context *ctx, enum ibv_event_type type,
		      struct ibv_qp *qp, uint64_t ms)
{
	uint64_t deadline = sroce_now_ms() + ms;
	struct pollfd pfd = { .fd = ctx->async_fd, .events = POLLIN };
	struct ibv_async_event ev;
	int flags = fcntl(ctx->async_fd, F_GETFL);

	fcntl(ctx->async_fd, F_SETFL, flags | O_NONBLOCK);
	while (sroce_now_ms() < deadline) {
		if (poll(&pfd, 1, (int)(deadline - sroce_now_ms())) <= 0)
			continue;
		if (ibv_get_async_event(ctx, &ev))
			continue;
		ibv_ack_async_event(&ev);
		if (ev.event_type == type && ev.element.qp == qp)
			return 0;
		fprintf(stderr, "# other async event %s\n",
			ibv_event_type_str(ev.event_type));
	}
	return -1;
}

TEST_F_TIMEOUT(sqd, drain_hold_resume, 120)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_SQD,
		.en_sqd_async_notify = 1,
	};
	struct ibv_qp_init_attr init;

	ASSERT_EQ(0, post_recvs(self, 1, BATCH + HELD));
	ASSERT_EQ(0, post_recvs(self, 0, 1));
	ASSERT_EQ(0, post_sends(self, 0, BATCH));
	/* At once: some of the batch are still on their way. */
	ASSERT_EQ(0, ibv_modify_qp(self->qp[0], &a, IBV_QP_STATE |
				   IBV_QP_EN_SQD_ASYNC_NOTIFY));

	/* Everything started completes; then the SQ_DRAINED event. */
	ASSERT_EQ(0, wait_async(self->ctx, IBV_EVENT_SQ_DRAINED,
				self->qp[0], WAIT_MS));
	ASSERT_EQ(0, ibv_query_qp(self->qp[0], &a, IBV_QP_STATE, &init));
	EXPECT_EQ((int)IBV_QPS_SQD, (int)a.qp_state);
	EXPECT_EQ(0, a.sq_draining);
	/* The batch was posted before SQD: all of it was started. */
	ASSERT_EQ(0, reap(self, 0, BATCH, 0, WAIT_MS));
	ASSERT_EQ(0, reap(self, 1, 0, BATCH, WAIT_MS));

	/* Posted in SQD: not started. */
	ASSERT_EQ(0, post_sends(self, 0, HELD));
	EXPECT_EQ(1, quiet(self, 1));
	EXPECT_EQ(1, quiet(self, 0));

	/* The receive side of a QP in SQD works: the peer's SEND lands. */
	ASSERT_EQ(0, post_sends(self, 1, 1));
	ASSERT_EQ(0, reap(self, 1, 1, 0, WAIT_MS));
	ASSERT_EQ(0, reap(self, 0, 0, 1, WAIT_MS));

	/* Drained: SQD->SQD may change an attribute. */
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_SQD;
	a.timeout = 15;
	ASSERT_EQ(0, ibv_modify_qp(self->qp[0], &a,
				   IBV_QP_STATE | IBV_QP_TIMEOUT));

	/* Back to RTS: what waited is sent. */
	a.qp_state = IBV_QPS_RTS;
	ASSERT_EQ(0, ibv_modify_qp(self->qp[0], &a, IBV_QP_STATE));
	ASSERT_EQ(0, reap(self, 0, HELD, 0, WAIT_MS));
	ASSERT_EQ(0, reap(self, 1, 0, HELD, WAIT_MS));
}

TEST_HARNESS_MAIN
