// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * device_fatal: a firmware that stops answering kills the device cleanly.
 * With objects of every kind in use, the debugfs fault knob makes the
 * firmware's command processor stall; the next verb must fail after the
 * command timeout (not hang), the device must report
 * IBV_EVENT_DEVICE_FATAL on the async event fd, every later verb must
 * fail at once, and the objects must still be destroyable. What the
 * kernel does with the memory the firmware may still use is checked by
 * the wrapper (device removal and module unload without a splat).
 *
 * First, the other side of the same queue: a command that ends late
 * holds up no other. The fault knob fault_defer_hold makes the firmware
 * hold the end of DESTROY_QP and DEREG_MR (as if the RCU grace period
 * they wait for lasted); while they wait, the commands posted after them
 * complete, and once released the destroys succeed and nothing timed out.
 * Before the firmware ended these commands after the grace period on the
 * side, a burst of destroys on a slow machine took one grace period each,
 * in line, and the last of them could pass the command timeout and kill
 * the device.
 *
 * Environment:
 *   SROCE_DEV    the RDMA device (the whole program skips if unset, absent
 *                or without the fault knob in debugfs)
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
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

#define DEBUGFS_SROCE	"/sys/kernel/debug/sroce"
/* The driver's command timeout is 10 s; allow for a slow TCG guest. */
#define TIMEOUT_MAX_MS	30000ULL
#define FAST_MAX_MS	2000ULL
#define EVENT_WAIT_MS	10000
/*
 * Held destroys: how long their posting may take, and how long they stay
 * held at most (well inside the driver's 10 s command timeout).
 */
#define HOLD_POST_MS	3000ULL
#define HOLD_MAX_MS	5000ULL
#define BUF_LEN		65536

static void knob_path(char *path, size_t len)
{
	snprintf(path, len, DEBUGFS_SROCE "/%s/fault_cmd_stall",
		 sroce_env("SROCE_DEV"));
}

static void __attribute__((constructor)) require_device(void)
{
	const char *why = sroce_device_missing();
	char path[256];

	if (why)
		ksft_exit_skip("%s\n", why);
	knob_path(path, sizeof(path));
	if (access(path, W_OK))
		ksft_exit_skip("no fault knob %s\n", path);
}

/* Write 1 or 0 to the debugfs file @knob of the device. */
static int set_knob(const char *knob, bool on)
{
	char path[256];
	int fd, n;

	snprintf(path, sizeof(path), DEBUGFS_SROCE "/%s/%s",
		 sroce_env("SROCE_DEV"), knob);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	n = write(fd, on ? "1\n" : "0\n", 2);
	close(fd);
	return n == 2 ? 0 : -EIO;
}

static int set_stall(bool on)
{
	return set_knob("fault_cmd_stall", on);
}

/* Column @col of command @cmd (NULL: all) in the device's cmd_stats. */
static long long cmd_stat(const char *cmd, enum sroce_cmd_stat col)
{
	return sroce_cmd_stat(sroce_env("SROCE_DEV"), cmd, col);
}

FIXTURE(dev) {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	void *buf;
	bool stalled;
	bool held;
};

FIXTURE_SETUP(dev)
{
	const char *name = sroce_env("SROCE_DEV");
	struct ibv_qp_init_attr init = {
		.cap = { .max_send_wr = 4, .max_recv_wr = 4,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};

	self->ctx = sroce_open_device(name);
	ASSERT_NE(NULL, self->ctx) TH_LOG("open %s", name);
	self->pd = ibv_alloc_pd(self->ctx);
	ASSERT_NE(NULL, self->pd);
	self->cq = ibv_create_cq(self->ctx, 16, NULL, NULL, 0);
	ASSERT_NE(NULL, self->cq);
	init.send_cq = self->cq;
	init.recv_cq = self->cq;
	self->qp = ibv_create_qp(self->pd, &init);
	ASSERT_NE(NULL, self->qp);
	self->buf = calloc(1, BUF_LEN);
	ASSERT_NE(NULL, self->buf);
	self->mr = ibv_reg_mr(self->pd, self->buf, BUF_LEN,
			      IBV_ACCESS_LOCAL_WRITE);
	ASSERT_NE(NULL, self->mr);
}

FIXTURE_TEARDOWN(dev)
{
	if (self->stalled)
		EXPECT_EQ(0, set_stall(false));
	if (self->held)
		EXPECT_EQ(0, set_knob("fault_defer_hold", false));
	/* Destroying must succeed on a dead device, too. */
	if (self->mr)
		EXPECT_EQ(0, ibv_dereg_mr(self->mr));
	if (self->qp)
		EXPECT_EQ(0, ibv_destroy_qp(self->qp));
	if (self->cq)
		EXPECT_EQ(0, ibv_destroy_cq(self->cq));
	if (self->pd)
		EXPECT_EQ(0, ibv_dealloc_pd(self->pd));
	if (self->ctx)
		EXPECT_EQ(0, ibv_close_device(self->ctx));
	free(self->buf);
}

/* A destroy run in a thread of its own: exactly one of @qp and @mr. */
struct held_destroy {
	pthread_t thread;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	int rc;
	bool done;
};

/* Static: a failed ASSERT returns while the threads may still run. */
static struct held_destroy held[2];

static void *held_destroy_run(void *arg)
{
	struct held_destroy *h = arg;

	h->rc = h->qp ? ibv_destroy_qp(h->qp) : ibv_dereg_mr(h->mr);
	__atomic_store_n(&h->done, true, __ATOMIC_RELEASE);
	return NULL;
}

static bool held_destroy_done(struct held_destroy *h)
{
	return __atomic_load_n(&h->done, __ATOMIC_ACQUIRE);
}

/*
 * With fault_defer_hold set, a QP and an MR of their own are destroyed in
 * two threads; return once both commands are in the queue and executed
 * (a verb posted after them completed), their ends held. Sets *@t0 to
 * when the hold began.
 */
static void start_held_destroys(struct __test_metadata *_metadata,
				FIXTURE_DATA(dev) *self, uint64_t *t0)
{
	struct ibv_qp_init_attr init = {
		.send_cq = self->cq,
		.recv_cq = self->cq,
		.cap = { .max_send_wr = 1, .max_recv_wr = 1,
			 .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
	};
	long long qp_destroys, mr_deregs;
	struct ibv_port_attr port;
	unsigned int i;

	memset(held, 0, sizeof(held));
	held[0].qp = ibv_create_qp(self->pd, &init);
	ASSERT_NE(NULL, held[0].qp);
	held[1].mr = ibv_reg_mr(self->pd, self->buf, BUF_LEN,
				IBV_ACCESS_LOCAL_WRITE);
	ASSERT_NE(NULL, held[1].mr);
	qp_destroys = cmd_stat("DESTROY_QP", SROCE_CMD_ISSUED);
	mr_deregs = cmd_stat("DEREG_MR", SROCE_CMD_ISSUED);
	ASSERT_LE(0, qp_destroys);
	ASSERT_LE(0, mr_deregs);

	ASSERT_EQ(0, set_knob("fault_defer_hold", true));
	self->held = true;
	*t0 = sroce_now_ms();
	for (i = 0; i < 2; i++)
		ASSERT_EQ(0, pthread_create(&held[i].thread, NULL,
					    held_destroy_run, &held[i]));
	while ((cmd_stat("DESTROY_QP", SROCE_CMD_ISSUED) == qp_destroys ||
		cmd_stat("DEREG_MR", SROCE_CMD_ISSUED) == mr_deregs) &&
	       sroce_now_ms() - *t0 < HOLD_POST_MS)
		usleep(1000);
	ASSERT_LT(qp_destroys, cmd_stat("DESTROY_QP", SROCE_CMD_ISSUED));
	ASSERT_LT(mr_deregs, cmd_stat("DEREG_MR", SROCE_CMD_ISSUED));
	/* Posted after them: the firmware executes commands in order. */
	ASSERT_EQ(0, ibv_query_port(self->ctx, 1, &port));
}

/*
 * Other verbs run while the ends of a DESTROY_QP and a DEREG_MR are held
 * (defined first: the case below kills the device).
 */
TEST_F_TIMEOUT(dev, held_destroy_holds_up_nothing, 120)
{
	struct ibv_port_attr port;
	unsigned int i, rounds = 0;
	uint64_t t0;

	if (set_knob("fault_defer_hold", false))
		SKIP(return, "no fault_defer_hold knob");
	ASSERT_EQ(0, cmd_stat(NULL, SROCE_CMD_TIMEOUTS));
	start_held_destroys(_metadata, self, &t0);

	/* Verbs behind them complete: a few rounds, inside HOLD_MAX_MS. */
	do {
		struct ibv_pd *pd = ibv_alloc_pd(self->ctx);
		struct ibv_cq *cq;

		ASSERT_NE(NULL, pd);
		cq = ibv_create_cq(self->ctx, 1, NULL, NULL, 0);
		ASSERT_NE(NULL, cq);
		ASSERT_EQ(0, ibv_destroy_cq(cq));
		ASSERT_EQ(0, ibv_dealloc_pd(pd));
		ASSERT_EQ(0, ibv_query_port(self->ctx, 1, &port));
		rounds++;
	} while (rounds < 5 && sroce_now_ms() - t0 < HOLD_MAX_MS);
	EXPECT_FALSE(held_destroy_done(&held[0]))
		TH_LOG("DESTROY_QP was not held");
	EXPECT_FALSE(held_destroy_done(&held[1]))
		TH_LOG("DEREG_MR was not held");
	TH_LOG("%u rounds of 5 verbs while the destroys were held, %llu ms",
	       rounds, (unsigned long long)(sroce_now_ms() - t0));

	ASSERT_EQ(0, set_knob("fault_defer_hold", false));
	self->held = false;
	t0 = sroce_now_ms();
	while ((!held_destroy_done(&held[0]) ||
		!held_destroy_done(&held[1])) &&
	       sroce_now_ms() - t0 < EVENT_WAIT_MS)
		usleep(1000);
	for (i = 0; i < 2; i++) {
		ASSERT_TRUE(held_destroy_done(&held[i]));
		ASSERT_EQ(0, pthread_join(held[i].thread, NULL));
		EXPECT_EQ(0, held[i].rc);
	}
	EXPECT_EQ(0, cmd_stat(NULL, SROCE_CMD_TIMEOUTS));
	EXPECT_EQ(0, ibv_query_port(self->ctx, 1, &port));
}

TEST_F_TIMEOUT(dev, stalled_firmware_is_fatal, 120)
{
	struct ibv_async_event ev;
	struct ibv_port_attr port;
	struct pollfd pfd;
	uint64_t t0, dt;
	struct ibv_pd *pd;
	bool fatal = false, held_destroys;
	unsigned int i;
	int rc;

	/* Alive: a verb that needs the firmware answers. */
	ASSERT_EQ(0, ibv_query_port(self->ctx, 1, &port));

	/*
	 * A DESTROY_QP and a DEREG_MR whose ends are held go down with the
	 * device: the first of them to time out kills it, and detach (the
	 * wrapper's rdma link del) finishes them without completions.
	 */
	held_destroys = !set_knob("fault_defer_hold", false);
	if (held_destroys)
		start_held_destroys(_metadata, self, &t0);
	else
		TH_LOG("no fault_defer_hold knob: no destroy held at death");

	ASSERT_EQ(0, set_stall(true));
	self->stalled = true;

	/* The first command times out: an error after the timeout, no hang. */
	t0 = sroce_now_ms();
	pd = ibv_alloc_pd(self->ctx);
	dt = sroce_now_ms() - t0;
	EXPECT_EQ(NULL, pd) ibv_dealloc_pd(pd);
	EXPECT_GE(TIMEOUT_MAX_MS, dt) TH_LOG("alloc_pd took %llu ms",
					     (unsigned long long)dt);
	TH_LOG("stalled alloc_pd failed after %llu ms",
	       (unsigned long long)dt);

	/* The device says it is dead. */
	ASSERT_EQ(0, fcntl(self->ctx->async_fd, F_SETFL,
			   fcntl(self->ctx->async_fd, F_GETFL) | O_NONBLOCK));
	t0 = sroce_now_ms();
	while (!fatal && sroce_now_ms() - t0 < EVENT_WAIT_MS) {
		pfd.fd = self->ctx->async_fd;
		pfd.events = POLLIN;
		pfd.revents = 0;
		rc = poll(&pfd, 1, EVENT_WAIT_MS - (sroce_now_ms() - t0));
		ASSERT_LE(0, rc);
		if (!rc)
			break;
		while (!ibv_get_async_event(self->ctx, &ev)) {
			TH_LOG("async event %s",
			       ibv_event_type_str(ev.event_type));
			if (ev.event_type == IBV_EVENT_DEVICE_FATAL)
				fatal = true;
			ibv_ack_async_event(&ev);
		}
	}
	ASSERT_TRUE(fatal) TH_LOG("no IBV_EVENT_DEVICE_FATAL within %d ms",
				  EVENT_WAIT_MS);

	/* Later verbs fail at once, even with the firmware released. */
	ASSERT_EQ(0, set_stall(false));
	self->stalled = false;
	t0 = sroce_now_ms();
	pd = ibv_alloc_pd(self->ctx);
	EXPECT_EQ(NULL, pd) ibv_dealloc_pd(pd);
	EXPECT_NE(0, ibv_query_port(self->ctx, 1, &port));
	dt = sroce_now_ms() - t0;
	EXPECT_GE(FAST_MAX_MS, dt) TH_LOG("verbs on the dead device took %llu ms",
					  (unsigned long long)dt);

	/* The held destroys returned with the death (their memory is kept). */
	t0 = sroce_now_ms();
	while (held_destroys && (!held_destroy_done(&held[0]) ||
				 !held_destroy_done(&held[1])) &&
	       sroce_now_ms() - t0 < EVENT_WAIT_MS)
		usleep(1000);
	for (i = 0; held_destroys && i < 2; i++) {
		ASSERT_TRUE(held_destroy_done(&held[i]));
		ASSERT_EQ(0, pthread_join(held[i].thread, NULL));
	}
}

TEST_HARNESS_MAIN
