// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * cq_events: completion events are never lost, however many CQs complete
 * at once. Hundreds of CQs share one completion channel, each armed and
 * each the receive CQ of a UD QP; one sender QP sends one loopback
 * datagram to every one of them in a single post. Far more events than
 * the device's completion event queue holds are raised together: every
 * CQ's event must arrive on the channel (poll() with a deadline), be
 * acknowledged, and every CQ must hold its one completion.
 *
 * Where the driver has the debugfs knob hold_events, the event vectors
 * are held while the datagrams land, until the port counter
 * eq_events_deferred shows the completion event queue overflowed: the
 * overflow is then certain, not a matter of timing. Without the knob (older
 * modules) the burst alone has to overflow it.
 *
 * Environment:
 *   SROCE_DEV        the RDMA device (the whole program skips if unset or
 *                    absent)
 *   SROCE_GID_INDEX  a RoCE v2 GID index of the device (loopback target)
 *   SROCE_NUM_CQS    CQs to create (default 512, capped by device limits)
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "kselftest_harness.h"
#include "sroce_test.h"

#define DEFAULT_CQS	512
#define QKEY		0x11111111
#define MSG_LEN		64
#define GRH_LEN		40
#define SLOT_LEN	(GRH_LEN + MSG_LEN)
#define EVENT_WAIT_MS	20000
#define SEND_WAIT_MS	20000
#define EQ_SLOTS	64	/* the completion event queue */
#define DEBUGFS_SROCE	"/sys/kernel/debug/sroce"

SROCE_REQUIRE_DEVICE("SROCE_GID_INDEX");

/* Write "0" or "1" to debugfs hold_events. Return: 0 or -errno. */
static int hold_events(bool on)
{
	char path[256];
	int fd, n;

	snprintf(path, sizeof(path), DEBUGFS_SROCE "/%s/hold_events",
		 sroce_env("SROCE_DEV"));
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	n = write(fd, on ? "1\n" : "0\n", 2);
	close(fd);
	return n == 2 ? 0 : -EIO;
}

/* The port counter eq_events_deferred, or -1 if there is none. */
static long long eq_deferred(void)
{
	return sroce_hw_counter(sroce_env("SROCE_DEV"), "eq_events_deferred");
}

static int ud_to_state(struct ibv_qp *qp, enum ibv_qp_state state)
{
	struct ibv_qp_attr a = { .qp_state = state };
	int mask = IBV_QP_STATE;

	if (state == IBV_QPS_INIT) {
		a.port_num = 1;
		a.qkey = QKEY;
		mask |= IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY;
	} else if (state == IBV_QPS_RTS) {
		mask |= IBV_QP_SQ_PSN;
	}
	return ibv_modify_qp(qp, &a, mask);
}

static struct ibv_qp *ud_qp(struct ibv_pd *pd, struct ibv_cq *scq,
			    struct ibv_cq *rcq, uint32_t send_wr)
{
	struct ibv_qp_init_attr init = {
		.send_cq = scq,
		.recv_cq = rcq,
		.cap = { .max_send_wr = send_wr, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_UD,
	};
	struct ibv_qp *qp = ibv_create_qp(pd, &init);

	if (!qp)
		return NULL;
	if (ud_to_state(qp, IBV_QPS_INIT) || ud_to_state(qp, IBV_QPS_RTR) ||
	    ud_to_state(qp, IBV_QPS_RTS)) {
		ibv_destroy_qp(qp);
		return NULL;
	}
	return qp;
}

FIXTURE(many) {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_comp_channel *ch;
	struct ibv_mr *mr;
	uint8_t *buf;
	unsigned int n;
	struct ibv_cq **cq;
	struct ibv_qp **qp;
	unsigned int *events;	/* per CQ: events received, not yet acked */
	struct ibv_cq *scq;
	struct ibv_qp *sqp;
	struct ibv_ah *ah;
};

FIXTURE_SETUP(many)
{
	const char *name = sroce_env("SROCE_DEV");
	struct ibv_device_attr attr;
	unsigned int want = DEFAULT_CQS;

	if (sroce_env("SROCE_NUM_CQS"))
		want = strtoul(sroce_env("SROCE_NUM_CQS"), NULL, 0);
	self->ctx = sroce_open_device(name);
	ASSERT_NE(NULL, self->ctx) TH_LOG("open %s: %s", name,
					  strerror(errno));
	ASSERT_EQ(0, ibv_query_device(self->ctx, &attr));
	/* One CQ and one QP are the sender's; leave some for the system. */
	self->n = want;
	if (attr.max_cq > 8 && self->n > (unsigned int)attr.max_cq - 8)
		self->n = attr.max_cq - 8;
	if (attr.max_qp > 8 && self->n > (unsigned int)attr.max_qp - 8)
		self->n = attr.max_qp - 8;
	if (self->n > (unsigned int)attr.max_qp_wr)
		self->n = attr.max_qp_wr;
	ASSERT_LT(64U, self->n) TH_LOG("device allows only %u CQs", self->n);

	self->pd = ibv_alloc_pd(self->ctx);
	ASSERT_NE(NULL, self->pd);
	self->ch = ibv_create_comp_channel(self->ctx);
	ASSERT_NE(NULL, self->ch);
	ASSERT_EQ(0, fcntl(self->ch->fd, F_SETFL,
			   fcntl(self->ch->fd, F_GETFL) | O_NONBLOCK));
	self->buf = calloc(self->n + 1, SLOT_LEN);
	self->cq = calloc(self->n, sizeof(*self->cq));
	self->qp = calloc(self->n, sizeof(*self->qp));
	self->events = calloc(self->n, sizeof(*self->events));
	ASSERT_TRUE(self->buf && self->cq && self->qp && self->events);
	self->mr = ibv_reg_mr(self->pd, self->buf, (self->n + 1) * SLOT_LEN,
			      IBV_ACCESS_LOCAL_WRITE);
	ASSERT_NE(NULL, self->mr);
}

FIXTURE_TEARDOWN(many)
{
	unsigned int i, unacked = 0;

	/* Never leave the vector held (ignored where there is no knob). */
	hold_events(false);
	if (self->ah)
		EXPECT_EQ(0, ibv_destroy_ah(self->ah));
	if (self->sqp)
		EXPECT_EQ(0, ibv_destroy_qp(self->sqp));
	if (self->scq)
		EXPECT_EQ(0, ibv_destroy_cq(self->scq));
	for (i = 0; self->qp && i < self->n; i++)
		if (self->qp[i])
			EXPECT_EQ(0, ibv_destroy_qp(self->qp[i]));
	for (i = 0; self->cq && i < self->n; i++) {
		if (!self->cq[i])
			continue;
		/* Destroying a CQ waits for its events to be acked. */
		if (self->events[i])
			ibv_ack_cq_events(self->cq[i], self->events[i]);
		unacked += self->events[i];
		EXPECT_EQ(0, ibv_destroy_cq(self->cq[i]));
	}
	if (unacked)
		TH_LOG("%u events acked at teardown", unacked);
	if (self->mr)
		EXPECT_EQ(0, ibv_dereg_mr(self->mr));
	if (self->ch)
		EXPECT_EQ(0, ibv_destroy_comp_channel(self->ch));
	if (self->pd)
		EXPECT_EQ(0, ibv_dealloc_pd(self->pd));
	if (self->ctx)
		EXPECT_EQ(0, ibv_close_device(self->ctx));
	free(self->events);
	free(self->qp);
	free(self->cq);
	free(self->buf);
}

/*
 * Every armed CQ of one channel gets its completion event, even when
 * hundreds complete in one burst.
 */
TEST_F_TIMEOUT(many, every_cq_event_delivered, 600)
{
	int gid_index = atoi(sroce_env("SROCE_GID_INDEX"));
	struct ibv_send_wr *wrs, *bad_wr;
	struct ibv_sge *sges;
	unsigned int i, got = 0, polled = 0, dups = 0;
	union ibv_gid gid;
	struct ibv_ah_attr aa = {
		.is_global = 1,
		.grh = { .sgid_index = gid_index, .hop_limit = 64 },
		.port_num = 1,
	};
	long long deferred0 = eq_deferred(), deferred;
	struct timespec pause = { 0, 1000000 };
	bool held = false;
	uint64_t deadline;
	struct ibv_wc wc;
	int rc;

	ASSERT_EQ(0, ibv_query_gid(self->ctx, 1, gid_index, &gid));
	aa.grh.dgid = gid;

	/* The receivers: each a CQ of its own on the channel, armed. */
	for (i = 0; i < self->n; i++) {
		struct ibv_sge sge = {
			.addr = (uintptr_t)(self->buf + (size_t)i * SLOT_LEN),
			.length = SLOT_LEN,
			.lkey = self->mr->lkey,
		};
		struct ibv_recv_wr rwr = { .wr_id = i, .sg_list = &sge,
					   .num_sge = 1 };
		struct ibv_recv_wr *bad;

		self->cq[i] = ibv_create_cq(self->ctx, 2,
					    (void *)(uintptr_t)i, self->ch, 0);
		ASSERT_NE(NULL, self->cq[i]) TH_LOG("CQ %u: %s", i,
						    strerror(errno));
		self->qp[i] = ud_qp(self->pd, self->cq[i], self->cq[i], 1);
		ASSERT_NE(NULL, self->qp[i]) TH_LOG("QP %u: %s", i,
						    strerror(errno));
		ASSERT_EQ(0, ibv_post_recv(self->qp[i], &rwr, &bad));
		ASSERT_EQ(0, ibv_req_notify_cq(self->cq[i], 0));
	}

	/* The sender, with a CQ outside the channel, polled. */
	self->scq = ibv_create_cq(self->ctx, self->n + 1, NULL, NULL, 0);
	ASSERT_NE(NULL, self->scq);
	self->sqp = ud_qp(self->pd, self->scq, self->scq, self->n);
	ASSERT_NE(NULL, self->sqp) TH_LOG("sender QP: %s", strerror(errno));
	self->ah = ibv_create_ah(self->pd, &aa);
	ASSERT_NE(NULL, self->ah) TH_LOG("ibv_create_ah: %s", strerror(errno));

	/* Events pile up in the firmware while the vector is held. */
	rc = hold_events(true);
	if (rc)
		TH_LOG("no hold_events knob (%s): overflow left to timing",
		       strerror(-rc));
	else
		held = true;

	/* One datagram to each receiver, all in one post. */
	wrs = calloc(self->n, sizeof(*wrs));
	sges = calloc(self->n, sizeof(*sges));
	ASSERT_TRUE(wrs && sges);
	for (i = 0; i < self->n; i++) {
		sges[i].addr = (uintptr_t)(self->buf +
					   (size_t)self->n * SLOT_LEN);
		sges[i].length = MSG_LEN;
		sges[i].lkey = self->mr->lkey;
		wrs[i].wr_id = i;
		wrs[i].sg_list = &sges[i];
		wrs[i].num_sge = 1;
		wrs[i].opcode = IBV_WR_SEND;
		wrs[i].send_flags = IBV_SEND_SIGNALED;
		wrs[i].wr.ud.ah = self->ah;
		wrs[i].wr.ud.remote_qpn = self->qp[i]->qp_num;
		wrs[i].wr.ud.remote_qkey = QKEY;
		wrs[i].next = i + 1 < self->n ? &wrs[i + 1] : NULL;
	}
	rc = ibv_post_send(self->sqp, wrs, &bad_wr);
	free(sges);
	free(wrs);
	ASSERT_EQ(0, rc) TH_LOG("ibv_post_send: %s", strerror(rc));

	/* Every send completes. */
	deadline = sroce_now_ms() + SEND_WAIT_MS;
	while (polled < self->n && sroce_now_ms() < deadline) {
		rc = ibv_poll_cq(self->scq, 1, &wc);
		ASSERT_LE(0, rc);
		if (!rc)
			continue;
		EXPECT_EQ((int)IBV_WC_SUCCESS, (int)wc.status)
			TH_LOG("send %llu: %s", (unsigned long long)wc.wr_id,
			       ibv_wc_status_str(wc.status));
		polled++;
	}
	ASSERT_EQ(self->n, polled) TH_LOG("%u of %u sends completed",
					  polled, self->n);

	/* Held: wait until the completion queue's events overflowed. */
	if (held) {
		deadline = sroce_now_ms() + SEND_WAIT_MS;
		do {
			deferred = eq_deferred() - deferred0;
			if (deferred >= self->n - EQ_SLOTS)
				break;
			nanosleep(&pause, NULL);
		} while (sroce_now_ms() < deadline);
		TH_LOG("%lld events waited for event-queue room", deferred);
		EXPECT_LE(self->n - EQ_SLOTS, deferred);
		ASSERT_EQ(0, hold_events(false));
	}

	/* Every CQ's event arrives on the channel. */
	deadline = sroce_now_ms() + EVENT_WAIT_MS;
	while (got < self->n) {
		struct pollfd pfd = { .fd = self->ch->fd, .events = POLLIN };
		uint64_t now = sroce_now_ms();
		struct ibv_cq *ev_cq;
		void *ev_ctx;

		if (now >= deadline)
			break;
		rc = poll(&pfd, 1, deadline - now);
		ASSERT_LE(0, rc) TH_LOG("poll: %s", strerror(errno));
		if (!rc)
			break;
		while (!ibv_get_cq_event(self->ch, &ev_cq, &ev_ctx)) {
			i = (uintptr_t)ev_ctx;
			ASSERT_GT(self->n, i);
			ASSERT_EQ(self->cq[i], ev_cq);
			if (self->events[i]++)
				dups++;
			else
				got++;
		}
		ASSERT_EQ(EAGAIN, errno) TH_LOG("ibv_get_cq_event: %s",
						strerror(errno));
	}
	if (got < self->n) {
		unsigned int shown = 0;

		for (i = 0; i < self->n && shown < 8; i++)
			if (!self->events[i]) {
				TH_LOG("CQ %u (index %u) got no event",
				       self->cq[i]->handle, i);
				shown++;
			}
	}
	ASSERT_EQ(self->n, got) TH_LOG("%u of %u CQ events within %u ms",
				       got, self->n, EVENT_WAIT_MS);
	/* Armed once, a CQ raises one event. */
	EXPECT_EQ(0U, dups);

	/* Acked, and each CQ holds its completion. */
	for (i = 0; i < self->n; i++) {
		ibv_ack_cq_events(self->cq[i], self->events[i]);
		self->events[i] = 0;
		rc = ibv_poll_cq(self->cq[i], 1, &wc);
		ASSERT_EQ(1, rc) TH_LOG("CQ %u holds no completion", i);
		EXPECT_EQ((int)IBV_WC_SUCCESS, (int)wc.status);
		EXPECT_EQ((int)IBV_WC_RECV, (int)wc.opcode);
		EXPECT_EQ((uint64_t)i, wc.wr_id);
		EXPECT_EQ((uint32_t)(GRH_LEN + MSG_LEN), wc.byte_len);
		EXPECT_EQ(self->sqp->qp_num, wc.src_qp);
	}
	TH_LOG("%u CQs on one channel: %u events, every CQ its completion",
	       self->n, got);
}

TEST_HARNESS_MAIN
