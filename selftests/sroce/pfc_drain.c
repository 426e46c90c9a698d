// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * pfc_drain: a QP whose priority the link partner keeps paused (PFC) can
 * still be drained, as ib_drain_qp() does before a kernel consumer
 * destroys it. Two RC QPs of one device are connected at service level
 * SROCE_SL over a RoCE v2 GID; the caller (pfc_pause_rx.sh) holds that
 * priority paused throughout, with frames of 3.4 s renewed every 0.5 s.
 * SENDs posted on the first QP stay unsent; moved to ERROR, every one of
 * them completes with a flush error, and so does a SEND posted afterwards
 * (the drain's marker), while the pause still holds: the priority's
 * rx_prioN_pause_transition counter, which counts every end of its
 * pause, is the same before ERROR and after the flushes. Should the
 * partner's renewals lapse, a flush that waited for the lapse would come
 * with it: an attempt in which the pause ended proves nothing and is
 * made again, up to ATTEMPTS times.
 *
 * Environment: SROCE_DEV (the device; skip if unset or absent),
 * SROCE_GID_INDEX (one of its RoCE v2 GIDs) and SROCE_SL (the paused
 * priority's service level, PCP trust).
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "kselftest_harness.h"
#include "sroce_test.h"

#define HELD		16
#define MSG_LEN		256
/*
 * Long enough for a SEND to have gone if the pause did not hold (a few
 * ms in loopback under TCG), short beside the partner's lapses.
 */
#define QUIET_MS	50
/* The flush is immediate; this bounds a TCG guest's scheduling delays. */
#define FLUSH_MS	5000
#define ATTEMPTS	5
#define POLL_US		100
/* ib_core serves hw_counters reads from a cache this young (10 ms). */
#define COUNTER_CACHE_MS	20
/* The quiet wait also lets the cache expire before ERROR's reading. */
_Static_assert(QUIET_MS > COUNTER_CACHE_MS, "QUIET_MS too short");

SROCE_REQUIRE_DEVICE("SROCE_GID_INDEX", "SROCE_SL");

/* Two RC QPs of one device connected to each other, one CQ each. */
struct pair {
	struct ibv_pd *pd;
	struct ibv_cq *cq[2];
	struct ibv_qp *qp[2];
	struct ibv_mr *mr;
	char buf[(HELD + 1) * MSG_LEN];
};

static void pair_free(struct pair *p)
{
	int i;

	for (i = 0; i < 2; i++) {
		if (p->qp[i])
			ibv_destroy_qp(p->qp[i]);
		if (p->cq[i])
			ibv_destroy_cq(p->cq[i]);
	}
	if (p->mr)
		ibv_dereg_mr(p->mr);
	if (p->pd)
		ibv_dealloc_pd(p->pd);
	free(p);
}

static struct pair *pair_new(struct ibv_context *ctx, int gid_index, int sl)
{
	struct sroce_rc_peer peer = {
		.gid_index = gid_index,
		.rq_psn = 100,
		.sq_psn = 100,
		.max_dest_rd_atomic = 1,
		.max_rd_atomic = 1,
		.sl = sl,
	};
	struct pair *p = calloc(1, sizeof(*p));
	int i;

	if (!p)
		return NULL;
	if (ibv_query_gid(ctx, 1, gid_index, &peer.dgid))
		goto err_free;
	p->pd = ibv_alloc_pd(ctx);
	if (!p->pd)
		goto err_free;
	p->mr = ibv_reg_mr(p->pd, p->buf, sizeof(p->buf),
			   IBV_ACCESS_LOCAL_WRITE);
	if (!p->mr)
		goto err_free;
	for (i = 0; i < 2; i++) {
		struct ibv_qp_init_attr init = {
			.cap = { .max_send_wr = 2 * HELD,
				 .max_recv_wr = 2 * HELD,
				 .max_send_sge = 1, .max_recv_sge = 1 },
			.qp_type = IBV_QPT_RC,
		};

		p->cq[i] = ibv_create_cq(ctx, 4 * HELD, NULL, NULL, 0);
		if (!p->cq[i])
			goto err_free;
		init.send_cq = p->cq[i];
		init.recv_cq = p->cq[i];
		p->qp[i] = ibv_create_qp(p->pd, &init);
		if (!p->qp[i])
			goto err_free;
	}
	for (i = 0; i < 2; i++) {
		peer.dest_qpn = p->qp[!i]->qp_num;
		if (sroce_rc_connect(p->qp[i], &peer))
			goto err_free;
	}
	return p;

err_free:
	pair_free(p);
	return NULL;
}

static int post_send(struct pair *p, uint64_t wr_id)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)p->buf + HELD * MSG_LEN,
		.length = MSG_LEN,
		.lkey = p->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = wr_id, .sg_list = &sge, .num_sge = 1,
		.opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED,
	}, *bad;

	return ibv_post_send(p->qp[0], &wr, &bad);
}

static int post_recvs(struct pair *p)
{
	struct ibv_sge sge = { .length = MSG_LEN, .lkey = p->mr->lkey };
	struct ibv_recv_wr wr = { .sg_list = &sge, .num_sge = 1 }, *bad;
	int i;

	for (i = 0; i < HELD; i++) {
		sge.addr = (uintptr_t)p->buf + (size_t)i * MSG_LEN;
		if (ibv_post_recv(p->qp[1], &wr, &bad))
			return -1;
	}
	return 0;
}

/*
 * Up to @n completions of CQ @side within @ms; @bad counts those whose
 * status is not @status. Return: how many came, -1 if polling failed.
 */
static int reap(struct pair *p, int side, int n, enum ibv_wc_status status,
		uint64_t ms, int *bad)
{
	uint64_t deadline = sroce_now_ms() + ms;
	struct ibv_wc wc;
	int got = 0, r;

	do {
		r = ibv_poll_cq(p->cq[side], 1, &wc);
		if (r < 0)
			return -1;
		if (!r) {
			/* Not busy: the partner's injector needs the CPUs. */
			usleep(POLL_US);
			continue;
		}
		if (wc.status != status)
			(*bad)++;
		got++;
	} while (got < n && sroce_now_ms() < deadline);
	return got;
}

/* The pause's transitions so far (rx_prioSL_pause_transition). */
static int64_t pause_ends(const char *dev, int sl)
{
	char name[64];

	snprintf(name, sizeof(name), "rx_prio%d_pause_transition", sl);
	return sroce_hw_counter(dev, name);
}

enum attempt { HELD_AND_FLUSHED, LAPSED, FAILED };

/*
 * One attempt on a fresh pair: SENDs held by the pause, ERROR, flushes.
 * Return: HELD_AND_FLUSHED if all was flushed while the pause held,
 * LAPSED if the pause ended meanwhile, FAILED otherwise.
 */
static enum attempt attempt(struct ibv_context *ctx, const char *dev,
			    int gid_index, int sl)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };
	int64_t posted_at, error_at, flushed_at;
	int early, flushed, bad = 0, i;
	enum attempt ret = FAILED;
	struct pair *p;

	p = pair_new(ctx, gid_index, sl);
	if (!p) {
		fprintf(stderr, "# cannot make a connected QP pair\n");
		return FAILED;
	}
	if (post_recvs(p))
		goto out;
	posted_at = pause_ends(dev, sl);
	for (i = 0; i < HELD; i++)
		if (post_send(p, i))
			goto out;
	/* The pause holds them: nothing is sent, nothing is received. */
	usleep(QUIET_MS * 1000);
	early = reap(p, 1, 1, IBV_WC_SUCCESS, 0, &bad);
	error_at = pause_ends(dev, sl);
	if (!ibv_modify_qp(p->qp[0], &a, IBV_QP_STATE)) {
		/* ERROR flushes what waits, the pause notwithstanding... */
		flushed = reap(p, 0, HELD, IBV_WC_WR_FLUSH_ERR, FLUSH_MS, &bad);
		/* ...and a SEND posted in ERROR (ib_drain_qp()'s marker). */
		if (!post_send(p, HELD))
			flushed += reap(p, 0, 1, IBV_WC_WR_FLUSH_ERR, FLUSH_MS,
					&bad);
	} else {
		flushed = -1;
	}
	usleep(COUNTER_CACHE_MS * 1000);
	flushed_at = pause_ends(dev, sl);
	fprintf(stderr,
		"# received before ERROR %d, flushed %d of %d, other status %d; pause ends at post, ERROR, flushed: %" PRId64 " %" PRId64 " %" PRId64 "\n",
		early, flushed, HELD + 1, bad, posted_at, error_at, flushed_at);
	/*
	 * A SEND received, or a pause that ended: the priority was not
	 * paused throughout (an end counted before posted_at may have left
	 * a gap after it), and the attempt proves nothing.
	 */
	if (posted_at < 0 || error_at < 0 || flushed_at < 0)
		ret = FAILED;
	else if (early || error_at != posted_at || flushed_at != error_at)
		ret = LAPSED;
	else if (flushed == HELD + 1 && !bad)
		ret = HELD_AND_FLUSHED;
out:
	pair_free(p);
	return ret;
}

FIXTURE(pfc_drain)
{
	struct ibv_context *ctx;
};

FIXTURE_SETUP(pfc_drain)
{
	self->ctx = sroce_open_device(sroce_env("SROCE_DEV"));
	ASSERT_NE(NULL, self->ctx);
}

FIXTURE_TEARDOWN(pfc_drain)
{
	if (self->ctx)
		ibv_close_device(self->ctx);
}

TEST_F_TIMEOUT(pfc_drain, error_flushes_while_paused, 120)
{
	const char *dev = sroce_env("SROCE_DEV");
	int gid_index = atoi(sroce_env("SROCE_GID_INDEX"));
	int sl = atoi(sroce_env("SROCE_SL"));
	enum attempt r = LAPSED;
	int n;

	for (n = 0; n < ATTEMPTS && r == LAPSED; n++)
		r = attempt(self->ctx, dev, gid_index, sl);
	/* Every attempt saw the pause end or leak: it was never held. */
	EXPECT_NE((int)LAPSED, (int)r);
	EXPECT_EQ((int)HELD_AND_FLUSHED, (int)r);
}

TEST_HARNESS_MAIN
