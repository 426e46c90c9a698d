// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * srq_resize: resizing a shared receive queue (ibv_modify_srq with
 * IBV_SRQ_MAX_WR). Two RC QPs of one device are connected over a RoCE v2
 * loopback GID; the receiving QP takes its WQEs from an SRQ created with
 * max_wr 16. The device moves the WQEs not yet consumed to the start of a
 * new ring and librxe maps that ring in place of the old one.
 *
 * Every receive posted has its own wr_id and buffer, every SEND its own
 * payload; the receives must complete successfully in the order posted,
 * each with its wr_id and the payload of the matching SEND. Cases:
 *  - growing keeps the WQEs waiting, and afterwards more receives than
 *    the old ring held can wait at once (librxe and the device both use
 *    the new ring);
 *  - shrinking below the WQEs waiting fails with EINVAL and leaves the
 *    SRQ as it was;
 *  - shrinking to a size that fits works, and librxe then takes no more
 *    than the new size;
 *  - IBV_SRQ_MAX_WR | IBV_SRQ_LIMIT arms a limit only the new size
 *    allows, and IBV_EVENT_SRQ_LIMIT_REACHED comes when fewer than the
 *    limit remain (not before);
 *  - a limit above the new size fails with EINVAL, resizing nothing.
 *
 * Sizes are rounded up to a power of two minus one (16 -> 31, 64 -> 127,
 * 8 -> 15); the test asserts only bounds: at least what was asked for,
 * and smaller than before after a shrink from a larger size.
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

#define SRQ_SIZE	16U	/* at creation */
#define GROWN		64U	/* resized to in the grow cases */
#define SHRUNK		8U	/* resized to in the shrink cases */
#define SLOTS		64U	/* receive buffers, and as many send buffers */
#define MSG_LEN		256
#define WR_ID_BASE	0x5253000000ULL
#define WAIT_MS		10000
#define QUIET_MS	300

SROCE_REQUIRE_DEVICE("SROCE_GID_INDEX");

/*
 * qp[0] sends, qp[1] receives from the SRQ. Receive number r (counting
 * from 0 over the whole test) has wr_id WR_ID_BASE + r and receive
 * buffer r % SLOTS; SEND number s carries payload(s) from send buffer
 * s % SLOTS. The SRQ hands out WQEs in the order posted, so receive k
 * must complete with SEND k's payload.
 */
FIXTURE(srq_resize)
{
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq[2];
	struct ibv_srq *srq;
	struct ibv_qp *qp[2];
	struct ibv_mr *mr;
	uint8_t *buf;
	union ibv_gid gid;
	int gid_index;
	unsigned int posted;
	unsigned int received;
	unsigned int sent;
};

static uint8_t *recv_buf(FIXTURE_DATA(srq_resize) *self, unsigned int r)
{
	return self->buf + (size_t)(r % SLOTS) * MSG_LEN;
}

static uint8_t *send_buf(FIXTURE_DATA(srq_resize) *self, unsigned int s)
{
	return self->buf + (size_t)(SLOTS + s % SLOTS) * MSG_LEN;
}

/* SEND @seq's payload: its number, then bytes that depend on it. */
static void payload(uint8_t *p, unsigned int seq)
{
	uint32_t v = seq;
	int i;

	memcpy(p, &v, sizeof(v));
	for (i = sizeof(v); i < MSG_LEN; i++)
		p[i] = (uint8_t)(seq * 29 + i * 7 + (seq >> 8));
}

/* Connected to @dest_qpn on the loopback GID. */
static int rc_connect(FIXTURE_DATA(srq_resize) *self, struct ibv_qp *qp,
		      uint32_t dest_qpn)
{
	struct sroce_rc_peer peer = {
		.dgid = self->gid,
		.gid_index = self->gid_index,
		.dest_qpn = dest_qpn,
		.rq_psn = 200,
		.sq_psn = 200,
		.access = 0,
		.max_dest_rd_atomic = 1,
		.max_rd_atomic = 1,
	};

	return sroce_rc_connect(qp, &peer);
}

FIXTURE_SETUP(srq_resize)
{
	struct ibv_srq_init_attr sinit = {
		.attr = { .max_wr = SRQ_SIZE, .max_sge = 1 },
	};
	int flags, i;

	self->ctx = sroce_open_device(sroce_env("SROCE_DEV"));
	ASSERT_NE(NULL, self->ctx);
	flags = fcntl(self->ctx->async_fd, F_GETFL);
	ASSERT_LE(0, flags);
	ASSERT_EQ(0, fcntl(self->ctx->async_fd, F_SETFL, flags | O_NONBLOCK));
	self->gid_index = atoi(sroce_env("SROCE_GID_INDEX"));
	ASSERT_EQ(0, ibv_query_gid(self->ctx, 1, self->gid_index, &self->gid));
	self->pd = ibv_alloc_pd(self->ctx);
	ASSERT_NE(NULL, self->pd);
	self->buf = calloc(2 * SLOTS, MSG_LEN);
	ASSERT_NE(NULL, self->buf);
	self->mr = ibv_reg_mr(self->pd, self->buf, 2 * SLOTS * MSG_LEN,
			      IBV_ACCESS_LOCAL_WRITE);
	ASSERT_NE(NULL, self->mr);
	self->srq = ibv_create_srq(self->pd, &sinit);
	ASSERT_NE(NULL, self->srq);
	for (i = 0; i < 2; i++) {
		struct ibv_qp_init_attr init = {
			.cap = { .max_send_wr = SLOTS, .max_recv_wr = 1,
				 .max_send_sge = 1, .max_recv_sge = 1 },
			.qp_type = IBV_QPT_RC,
		};

		self->cq[i] = ibv_create_cq(self->ctx, 2 * SLOTS, NULL, NULL,
					    0);
		ASSERT_NE(NULL, self->cq[i]);
		init.send_cq = self->cq[i];
		init.recv_cq = self->cq[i];
		if (i == 1) {
			init.srq = self->srq;
			init.cap.max_recv_wr = 0;
			init.cap.max_recv_sge = 0;
		}
		self->qp[i] = ibv_create_qp(self->pd, &init);
		ASSERT_NE(NULL, self->qp[i]);
	}
	ASSERT_EQ(0, rc_connect(self, self->qp[0], self->qp[1]->qp_num));
	ASSERT_EQ(0, rc_connect(self, self->qp[1], self->qp[0]->qp_num));
}

FIXTURE_TEARDOWN(srq_resize)
{
	int i;

	for (i = 0; i < 2; i++)
		if (self->qp[i])
			ibv_destroy_qp(self->qp[i]);
	if (self->srq)
		ibv_destroy_srq(self->srq);
	for (i = 0; i < 2; i++)
		if (self->cq[i])
			ibv_destroy_cq(self->cq[i]);
	if (self->mr)
		ibv_dereg_mr(self->mr);
	free(self->buf);
	if (self->pd)
		ibv_dealloc_pd(self->pd);
	if (self->ctx)
		ibv_close_device(self->ctx);
}

/*
 * @n receives to the SRQ, one at a time, each with the next wr_id and
 * buffer (cleared first). Return: 0, or the error of the first refused
 * post (which does not count as posted).
 */
static int post_recvs(FIXTURE_DATA(srq_resize) *self, unsigned int n)
{
	unsigned int i;
	int err;

	for (i = 0; i < n; i++) {
		unsigned int r = self->posted;
		struct ibv_sge sge = {
			.addr = (uintptr_t)recv_buf(self, r),
			.length = MSG_LEN,
			.lkey = self->mr->lkey,
		};
		struct ibv_recv_wr wr = {
			.wr_id = WR_ID_BASE + r, .sg_list = &sge, .num_sge = 1,
		}, *bad;

		/* A buffer is reused only once its receive has completed. */
		if (r - self->received >= SLOTS)
			return -1;
		memset(recv_buf(self, r), 0, MSG_LEN);
		err = ibv_post_srq_recv(self->srq, &wr, &bad);
		if (err)
			return err;
		self->posted++;
	}
	return 0;
}

/* Whether receive completion @wc is the next one expected, intact. */
static int recv_ok(FIXTURE_DATA(srq_resize) *self, const struct ibv_wc *wc)
{
	unsigned int k = self->received;
	uint8_t want[MSG_LEN];

	if (wc->status != IBV_WC_SUCCESS || wc->opcode != IBV_WC_RECV) {
		fprintf(stderr, "# receive %u: %s, opcode %d (wr_id %#llx)\n",
			k, ibv_wc_status_str(wc->status), wc->opcode,
			(unsigned long long)wc->wr_id);
		return 0;
	}
	if (wc->wr_id != WR_ID_BASE + k || wc->byte_len != MSG_LEN ||
	    wc->qp_num != self->qp[1]->qp_num) {
		fprintf(stderr,
			"# receive %u: wr_id %#llx (want %#llx), %u bytes, QP %u\n",
			k, (unsigned long long)wc->wr_id,
			(unsigned long long)(WR_ID_BASE + k), wc->byte_len,
			wc->qp_num);
		return 0;
	}
	payload(want, k);
	if (memcmp(recv_buf(self, k), want, MSG_LEN)) {
		uint32_t got;

		memcpy(&got, recv_buf(self, k), sizeof(got));
		fprintf(stderr,
			"# receive %u: payload wrong (starts with SEND %u)\n",
			k, got);
		return 0;
	}
	return 1;
}

/*
 * @n SENDs from qp[0], each with the next payload; every one must
 * complete, and the SRQ's next @n receives with it (recv_ok()), within
 * WAIT_MS. Return: 0 or -1.
 */
static int deliver(FIXTURE_DATA(srq_resize) *self, unsigned int n)
{
	uint64_t deadline = sroce_now_ms() + WAIT_MS;
	unsigned int sends = 0, recvs = 0, i;
	struct ibv_wc wc;
	int got;

	if (n > SLOTS)
		return -1;
	for (i = 0; i < n; i++) {
		unsigned int s = self->sent;
		struct ibv_sge sge = {
			.addr = (uintptr_t)send_buf(self, s),
			.length = MSG_LEN,
			.lkey = self->mr->lkey,
		};
		struct ibv_send_wr wr = {
			.wr_id = s, .sg_list = &sge, .num_sge = 1,
			.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
		}, *bad;

		payload(send_buf(self, s), s);
		if (ibv_post_send(self->qp[0], &wr, &bad)) {
			fprintf(stderr, "# SEND %u not posted\n", s);
			return -1;
		}
		self->sent++;
	}
	while (sends < n || recvs < n) {
		got = 0;
		if (sends < n) {
			got = ibv_poll_cq(self->cq[0], 1, &wc);
			if (got < 0 ||
			    (got == 1 && wc.status != IBV_WC_SUCCESS)) {
				fprintf(stderr, "# SEND %llu: %s\n",
					(unsigned long long)wc.wr_id,
					got < 0 ? "poll failed" :
					ibv_wc_status_str(wc.status));
				return -1;
			}
			sends += got;
		}
		if (recvs < n) {
			int r = ibv_poll_cq(self->cq[1], 1, &wc);

			if (r < 0 || (r == 1 && !recv_ok(self, &wc)))
				return -1;
			if (r == 1) {
				self->received++;
				recvs++;
			}
			got += r;
		}
		if (!got && sroce_now_ms() > deadline) {
			fprintf(stderr,
				"# timed out: %u of %u SENDs, %u of %u receives completed\n",
				sends, n, recvs, n);
			return -1;
		}
	}
	return 0;
}

static int srq_query(FIXTURE_DATA(srq_resize) *self, uint32_t *max_wr,
		     uint32_t *limit)
{
	struct ibv_srq_attr a;
	int err;

	memset(&a, 0, sizeof(a));
	err = ibv_query_srq(self->srq, &a);
	*max_wr = a.max_wr;
	*limit = a.srq_limit;
	return err;
}

/* ibv_modify_srq(): 0 or an errno. */
static int srq_modify(FIXTURE_DATA(srq_resize) *self, uint32_t max_wr,
		      uint32_t limit, int mask)
{
	struct ibv_srq_attr a = { .max_wr = max_wr, .srq_limit = limit };

	return ibv_modify_srq(self->srq, &a, mask);
}

/*
 * Whether IBV_EVENT_SRQ_LIMIT_REACHED for our SRQ arrives within @ms.
 * Return: 1 if it did, 0 if not.
 */
static int srq_limit_event(FIXTURE_DATA(srq_resize) *self, uint64_t ms)
{
	uint64_t deadline = sroce_now_ms() + ms;
	struct pollfd pfd = { .fd = self->ctx->async_fd, .events = POLLIN };
	struct ibv_async_event ev;
	uint64_t now;

	while ((now = sroce_now_ms()) < deadline) {
		if (poll(&pfd, 1, (int)(deadline - now)) <= 0)
			continue;
		if (ibv_get_async_event(self->ctx, &ev))
			continue;
		ibv_ack_async_event(&ev);
		if (ev.event_type == IBV_EVENT_SRQ_LIMIT_REACHED &&
		    ev.element.srq == self->srq)
			return 1;
		fprintf(stderr, "# other async event %s\n",
			ibv_event_type_str(ev.event_type));
	}
	return 0;
}

/* Grow with WQEs waiting: they move to the new ring, none lost. */
TEST_F_TIMEOUT(srq_resize, grow_keeps_waiting, 120)
{
	uint32_t old, max_wr, limit;

	ASSERT_EQ(0, srq_query(self, &old, &limit));
	ASSERT_LE(SRQ_SIZE, old);
	ASSERT_EQ(0, post_recvs(self, 10));
	ASSERT_EQ(0, srq_modify(self, GROWN, 0, IBV_SRQ_MAX_WR));
	ASSERT_EQ(0, srq_query(self, &max_wr, &limit));
	ASSERT_LE(GROWN, max_wr);
	/* The 10 posted before the resize, in order, intact. */
	ASSERT_EQ(0, deliver(self, 10));

	/*
	 * More waiting at once than the old ring held: librxe must post
	 * into the new ring and the device must take from it.
	 */
	ASSERT_LT(old, 40U);
	ASSERT_EQ(0, post_recvs(self, 40));
	ASSERT_EQ(0, deliver(self, 40));
}

/* Shrink below the WQEs waiting: EINVAL, and the SRQ is as it was. */
TEST_F_TIMEOUT(srq_resize, shrink_below_waiting_fails, 120)
{
	uint32_t old, max_wr, limit;

	ASSERT_EQ(0, srq_query(self, &old, &limit));
	ASSERT_EQ(0, post_recvs(self, 12));
	EXPECT_EQ(EINVAL, srq_modify(self, 4, 0, IBV_SRQ_MAX_WR));
	ASSERT_EQ(0, srq_query(self, &max_wr, &limit));
	EXPECT_EQ(old, max_wr);
	/* What waited arrives, and so does what is posted afterwards. */
	ASSERT_EQ(0, deliver(self, 12));
	ASSERT_EQ(0, post_recvs(self, 4));
	ASSERT_EQ(0, deliver(self, 4));
}

/* Shrink to a size the WQEs waiting fit in. */
TEST_F_TIMEOUT(srq_resize, shrink_to_fit, 120)
{
	uint32_t old, max_wr, limit;

	ASSERT_EQ(0, srq_query(self, &old, &limit));
	/* Created larger (16 -> 31) than the size shrunk to. */
	ASSERT_LT(SHRUNK, old);
	ASSERT_EQ(0, post_recvs(self, 3));
	ASSERT_EQ(0, srq_modify(self, SHRUNK, 0, IBV_SRQ_MAX_WR));
	ASSERT_EQ(0, srq_query(self, &max_wr, &limit));
	/* At least what was asked for (8 -> 15), less than before. */
	ASSERT_LE(SHRUNK, max_wr);
	ASSERT_LT(max_wr, old);
	ASSERT_EQ(0, deliver(self, 3));

	/* librxe posts into the smaller ring: max_wr fit, one more not. */
	ASSERT_GE(SLOTS - 1, max_wr);
	ASSERT_EQ(0, post_recvs(self, max_wr));
	EXPECT_EQ(ENOMEM, post_recvs(self, 1));
	ASSERT_EQ(0, deliver(self, max_wr));
}

/*
 * IBV_SRQ_MAX_WR | IBV_SRQ_LIMIT: a limit that only the new size allows
 * is armed, and the event comes once fewer than it remain.
 */
TEST_F_TIMEOUT(srq_resize, resize_arms_limit, 120)
{
	const uint32_t lim = 40;
	uint32_t old, max_wr, limit;

	ASSERT_EQ(0, srq_query(self, &old, &limit));
	ASSERT_LT(old, lim);
	ASSERT_EQ(0, post_recvs(self, 10));
	ASSERT_EQ(0, srq_modify(self, GROWN, lim,
				IBV_SRQ_MAX_WR | IBV_SRQ_LIMIT));
	ASSERT_EQ(0, srq_query(self, &max_wr, &limit));
	ASSERT_LE(GROWN, max_wr);
	ASSERT_EQ(lim, limit);

	/* 45 waiting; 40 left is not fewer than the limit: no event. */
	ASSERT_EQ(0, post_recvs(self, 35));
	ASSERT_EQ(0, deliver(self, 5));
	ASSERT_EQ(0, srq_limit_event(self, QUIET_MS));
	ASSERT_EQ(0, srq_query(self, &max_wr, &limit));
	ASSERT_EQ(lim, limit);

	/* 39 left: the event, and the limit is disarmed. */
	ASSERT_EQ(0, deliver(self, 1));
	ASSERT_EQ(1, srq_limit_event(self, WAIT_MS));
	ASSERT_EQ(0, srq_query(self, &max_wr, &limit));
	EXPECT_EQ(0U, limit);
	ASSERT_EQ(0, deliver(self, 39));
}

/*
 * A limit above the new size: EINVAL, whether it comes with the resize
 * or after it, and nothing changes (the SRQ keeps its size and ring).
 */
TEST_F_TIMEOUT(srq_resize, limit_above_new_size, 120)
{
	uint32_t old, max_wr, now, limit;

	ASSERT_EQ(0, srq_query(self, &old, &limit));
	ASSERT_LT(SHRUNK, old);
	ASSERT_EQ(0, post_recvs(self, 3));
	/* old fits the old size, not the smaller one (see shrink_to_fit) */
	EXPECT_EQ(EINVAL, srq_modify(self, SHRUNK, old,
				     IBV_SRQ_MAX_WR | IBV_SRQ_LIMIT));
	ASSERT_EQ(0, srq_query(self, &max_wr, &limit));
	EXPECT_EQ(old, max_wr);
	EXPECT_EQ(0U, limit);
	/* librxe and the device still share one ring. */
	ASSERT_EQ(0, post_recvs(self, 3));
	ASSERT_EQ(0, deliver(self, 6));

	/* Resized first, then a limit above the new size alone. */
	ASSERT_EQ(0, srq_modify(self, SHRUNK, 0, IBV_SRQ_MAX_WR));
	ASSERT_EQ(0, srq_query(self, &max_wr, &limit));
	ASSERT_LT(max_wr, old);
	EXPECT_EQ(EINVAL, srq_modify(self, 0, max_wr + 1, IBV_SRQ_LIMIT));
	ASSERT_EQ(0, srq_query(self, &now, &limit));
	EXPECT_EQ(max_wr, now);
	EXPECT_EQ(0U, limit);
	ASSERT_EQ(0, post_recvs(self, 2));
	ASSERT_EQ(0, deliver(self, 2));
}

TEST_HARNESS_MAIN
