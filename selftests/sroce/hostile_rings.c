// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * A hostile userspace against the shared rings: this program finds the
 * send, receive and completion rings librxe mapped for its QPs and CQs (in
 * /proc/self/maps, checked against the sizes asked for) and writes into
 * them what librxe never would: garbage WQEs, impossible SGE counts and
 * lengths, bad keys and opcodes, producer indices out of range, the
 * kernel's own consumer indices, and a WQE rewritten while the kernel is
 * sending it. Each case asserts what the kernel must do about it: error
 * completions with the right status, the QP in ERROR, later WQEs
 * flushed, doorbells refused with an errno, no byte written where the
 * WQEs did not point, no CQE written into slots userspace has not freed.
 * The same goes for an SRQ several QPs share while their peers SEND to
 * them. A random walk of WALK_ACTIONS actions (default 10,000) from the
 * seed then mixes all of it over every ring of five pairs at once, and
 * the kernel must come out of it sane. The last case checks that a fresh
 * QP pair still moves data byte-exact.
 *
 *   hostile_rings -d DEV -g GID_INDEX [-s SEED] [-t WAIT_MS]
 *                 [-w WALK_ACTIONS] [-c CASE,...]
 *   hostile_rings -l          (list the cases, one a line)
 *
 * Output is KTAP, one line per case, and a last diagnostic line with the
 * seed and the count of hostile operations made, by kind; exit status 0
 * when every case passed, 1 otherwise, 4 when the device is missing.
 */
#include <endian.h>
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <infiniband/verbs.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/rdma_user_rxe.h>

#include "kselftest.h"
#include "sroce_test.h"

#define BUF_SIZE	(4u << 20)
#define SRC_OFF		0u
#define DST_OFF		(2u << 20)
#define REGION		(1u << 20)
#define SENTINEL	0xee
#define CANARY		0xc5

/* What every RC QP here asks for; the SQ and RQ differ in slot count. */
#define SQ_WR		15
#define RQ_WR		31
#define MAX_SGE		4
#define MAX_INLINE	64
#define CQ_DEPTH	63

#define MAX_MAPS	512

struct ring {
	struct rxe_queue_buf *q;
	size_t len;
	uint32_t mask;
	uint32_t log2;
	bool is_cq;		/* the kernel owns the producer, not the consumer */
	uint32_t kernel_saved;	/* the kernel's index, while we scribble on it */
};

/* A shared receive queue and its ring. */
struct srqx {
	struct ibv_srq *srq;
	struct ring r;
};

struct qpx {
	struct ibv_qp *qp;
	struct ibv_cq *cq;
	struct ring sq, rq, cqr;
	struct ibv_qp_cap cap;
	struct srqx *srq;	/* NULL: receives go to its own RQ */
};

/* Connection timing of an RC pair (IBA encodings). */
struct conn {
	uint8_t timeout;
	uint8_t retry_cnt;
	uint8_t rnr_retry;
	uint8_t min_rnr_timer;
};

/* Two RC QPs on the one device, A sending to B. */
struct pair {
	struct qpx a, b;
	struct conn c;
};

struct umap {
	uintptr_t start, end;
};

static const struct conn conn_default = { 14, 3, 3, 12 };

static const char *dev_name;
static const char *cur_case = "setup";
static int gid_index = -1;
static unsigned int wait_ms = 10000;
static unsigned int walk_actions = 10000;
static uint64_t seed = 1;
static uint64_t rng_state = 1;

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_mr *mr;
static union ibv_gid gid;
static uint8_t *buf;
static uint8_t *ref;	/* what SRC holds at the start of every case */

/* --- small helpers ------------------------------------------------------ */

static void note(const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	ksft_print_msg("%s: %s\n", cur_case, line);
}

#define FAIL(...) do {				\
		note(__VA_ARGS__);		\
		ret = KSFT_FAIL;		\
		goto out;			\
	} while (0)

/*
 * Every hostile operation is counted, so that a run says how much it
 * threw at the kernel. The stores of racing scribbler threads are counted
 * apart: they are as many as a CPU makes while the kernel works on one
 * WQE, not operations chosen one by one.
 */
enum hostile_kind {
	H_INDEX,	/* a ring index written out of range or out of turn */
	H_GARBAGE,	/* a slot of random bytes handed over */
	H_MALFORMED,	/* a WQE handed over with an impossible field */
	H_REWRITE,	/* a WQE rewritten after it was handed over */
	H_DOORBELL,	/* a doorbell rung by hand */
	H_NR,
};

static const char *const hostile_names[H_NR] = {
	"index writes", "garbage slots", "malformed WQEs",
	"rewrites of posted WQEs", "hand-rung doorbells",
};

static unsigned long hostile[H_NR];
static unsigned long racing_stores;

static void hostile_add(enum hostile_kind kind, unsigned long n)
{
	hostile[kind] += n;
}

static unsigned long hostile_total(void)
{
	unsigned long n = 0;
	int k;

	for (k = 0; k < H_NR; k++)
		n += hostile[k];
	return n;
}

static uint64_t rnd64(uint64_t *state)
{
	*state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
	return *state ^ (*state >> 29);
}

static uint32_t rnd(void)
{
	return rnd64(&rng_state) >> 32;
}

/*
 * A generator of a case's own, from the seed alone: its sequence does not
 * depend on which cases ran before (-c), so a seed repeats it.
 */
static uint64_t case_rng(uint64_t salt)
{
	uint64_t s = seed ^ salt;

	rnd64(&s);
	return s;
}

static uint32_t rnd32(uint64_t *state)
{
	return rnd64(state) >> 32;
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The pause of a polling loop (every loop has a deadline). */
static void nap(void)
{
	struct timespec ts = { .tv_nsec = 200 * 1000 };

	nanosleep(&ts, NULL);
}

static uint32_t ld(uint32_t *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static void st(uint32_t *p, uint32_t v)
{
	__atomic_store_n(p, v, __ATOMIC_RELEASE);
}

/* An index write librxe would never make. */
static void st_hostile(uint32_t *p, uint32_t v)
{
	st(p, v);
	hostile_add(H_INDEX, 1);
}

static uint32_t *prod_of(struct ring *r)
{
	return &r->q->producer_index;
}

static uint32_t *cons_of(struct ring *r)
{
	return &r->q->consumer_index;
}

/* The index the kernel writes: a CQ's producer, a work queue's consumer. */
static uint32_t *kidx_of(struct ring *r)
{
	return r->is_cq ? prod_of(r) : cons_of(r);
}

/*
 * Junk in the kernel's index of @r, with a bit above the mask set: the
 * kernel only ever writes masked values there, so a value above the mask
 * is still ours. The kernel keeps its own copy and never reads this one,
 * but librxe does: the last value the kernel wrote is kept for
 * kidx_restore().
 */
static void kidx_scribble(struct ring *r, uint32_t junk)
{
	uint32_t old = __atomic_exchange_n(kidx_of(r), junk | (r->mask + 1),
					   __ATOMIC_ACQ_REL);

	if (old <= r->mask)
		r->kernel_saved = old;
	hostile_add(H_INDEX, 1);
}

/* Put back what the kernel last wrote there, unless it has written since. */
static void kidx_restore(struct ring *r)
{
	uint32_t v = ld(kidx_of(r));

	if (v > r->mask)
		__atomic_compare_exchange_n(kidx_of(r), &v, r->kernel_saved,
					    false, __ATOMIC_ACQ_REL,
					    __ATOMIC_ACQUIRE);
}

/*
 * librxe finds the slot it writes a WQE into or reads a CQE from by the
 * index userspace owns, a work queue's producer or a CQ's consumer, taken
 * as it is: out of range, that is a wild store (post_send writes the WQE
 * before it checks for room) or a wild load in this process. Before
 * librxe is handed a ring with junk there, the index goes back in range.
 * The kernel reads it masked, so the masked value is the one it acted on.
 * The kernel's own index may stay junk: librxe only compares it.
 * Return: whether the index was out of range.
 */
static bool uidx_mask(struct ring *r)
{
	uint32_t *p = r->is_cq ? cons_of(r) : prod_of(r);
	uint32_t v = ld(p);

	if (v <= r->mask)
		return false;
	st(p, v & r->mask);
	return true;
}

static size_t slot_bytes(const struct ring *r)
{
	return (size_t)1 << r->log2;
}

static void *slot(const struct ring *r, uint32_t index)
{
	return r->q->data + ((size_t)(index & r->mask) << r->log2);
}

static uint8_t *src_at(uint32_t off)
{
	return buf + SRC_OFF + off;
}

static uint8_t *dst_at(uint32_t off)
{
	return buf + DST_OFF + off;
}

static void regions_reset(void)
{
	memcpy(src_at(0), ref, REGION);
	memset(dst_at(0), SENTINEL, REGION);
}

static bool all_sentinel(uint32_t off, uint32_t len)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		if (dst_at(off)[i] != SENTINEL)
			return false;
	return true;
}

static bool dst_equals_src(uint32_t off, uint32_t len)
{
	return !memcmp(dst_at(off), ref + off, len);
}

/*
 * Bytes of DST[from, to) that are neither untouched nor the source byte
 * for the same offset: data the kernel took from somewhere the WQE did
 * not point to. The first one is reported with a dump.
 */
static uint32_t foreign_bytes(uint32_t from, uint32_t to)
{
	uint32_t i, n = 0, first = 0;

	for (i = from; i < to; i++) {
		if (dst_at(0)[i] == SENTINEL || dst_at(0)[i] == ref[i])
			continue;
		if (!n++)
			first = i;
	}
	if (n) {
		char hex[3 * 32 + 1] = "";
		uint32_t k;

		for (k = 0; k < 32 && first + k < to; k++)
			sprintf(hex + 3 * k, "%02x ", dst_at(first)[k]);
		note("%u foreign bytes in the destination, the first at offset %u: %s",
		     n, first, hex);
	}
	return n;
}

static const char *wc_str(int status)
{
	return ibv_wc_status_str(status);
}

/* --- finding the rings ---------------------------------------------------- */

static int uverbs_maps(struct umap *m, int max)
{
	char line[512], path[256];
	unsigned long s, e;
	FILE *f;
	int n = 0;

	f = fopen("/proc/self/maps", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		path[0] = 0;
		if (sscanf(line, "%lx-%lx %*s %*s %*s %*s %255s", &s, &e,
			   path) < 3)
			continue;
		if (!strstr(path, "/dev/infiniband/uverbs"))
			continue;
		if (n == max) {
			n = -1;
			break;
		}
		m[n].start = s;
		m[n].end = e;
		n++;
	}
	fclose(f);
	return n;
}

/* The mappings in @after that are not in @before. */
static int new_maps(const struct umap *before, int nb, const struct umap *after,
		    int na, struct umap *out, int max)
{
	int i, j, n = 0;

	for (i = 0; i < na; i++) {
		for (j = 0; j < nb; j++)
			if (after[i].start == before[j].start &&
			    after[i].end == before[j].end)
				break;
		if (j < nb)
			continue;
		if (n == max)
			return -1;
		out[n++] = after[i];
	}
	return n;
}

/* Read a ring header; refuse anything that is not a plausible ring. */
static int ring_probe(struct ring *r, const struct umap *m)
{
	struct rxe_queue_buf *q = (struct rxe_queue_buf *)m->start;
	size_t len = m->end - m->start;
	uint32_t log2, mask;

	if (len < sizeof(*q))
		return -1;
	log2 = q->log2_elem_size;
	mask = q->index_mask;
	if (log2 < 5 || log2 > 16 || !mask || mask > (1u << 20) ||
	    (mask & (mask + 1)) ||
	    sizeof(*q) + ((size_t)(mask + 1) << log2) > len)
		return -1;
	r->q = q;
	r->len = len;
	r->mask = mask;
	r->log2 = log2;
	r->is_cq = false;
	r->kernel_saved = 0;
	return 0;
}

static void ring_describe(const char *what, const struct umap *m)
{
	const struct rxe_queue_buf *q = (const void *)m->start;

	note("%s candidate %#lx-%#lx: log2_elem_size %u index_mask %#x producer %#x consumer %#x",
	     what, (unsigned long)m->start, (unsigned long)m->end,
	     q->log2_elem_size, q->index_mask, q->producer_index,
	     q->consumer_index);
}

/* Create a CQ and find the one ring librxe mapped for it. */
static struct ibv_cq *cq_create(int depth, struct ring *r)
{
	static struct umap before[MAX_MAPS], after[MAX_MAPS];
	struct umap fresh[4];
	struct ibv_cq *cq;
	int nb, na, n;

	nb = uverbs_maps(before, MAX_MAPS);
	cq = ibv_create_cq(ctx, depth, NULL, NULL, 0);
	if (!cq) {
		note("ibv_create_cq(%d): %s", depth, strerror(errno));
		return NULL;
	}
	na = uverbs_maps(after, MAX_MAPS);
	n = nb < 0 || na < 0 ? -1 :
	    new_maps(before, nb, after, na, fresh, 4);
	if (n != 1 || ring_probe(r, &fresh[0]) ||
	    slot_bytes(r) < sizeof(struct ib_uverbs_wc) ||
	    r->mask < (uint32_t)depth ||
	    ld(prod_of(r)) != ld(cons_of(r))) {
		note("cannot identify the ring of a CQ of %d entries: %d new uverbs mappings",
		     depth, n);
		while (n-- > 0)
			ring_describe("CQ", &fresh[n]);
		ibv_destroy_cq(cq);
		return NULL;
	}
	r->is_cq = true;
	return cq;
}

static bool is_sq_ring(const struct ring *r, const struct ibv_qp_cap *cap)
{
	size_t room = cap->max_send_sge * sizeof(struct rxe_sge);

	if (cap->max_inline_data > room)
		room = cap->max_inline_data;
	return r->mask == cap->max_send_wr &&
	       slot_bytes(r) >= sizeof(struct rxe_send_wqe) + room;
}

static bool is_rq_ring(const struct ring *r, const struct ibv_qp_cap *cap)
{
	return r->mask == cap->max_recv_wr &&
	       slot_bytes(r) >= sizeof(struct rxe_recv_wqe) +
				cap->max_recv_sge * sizeof(struct rxe_sge);
}

/*
 * Create a QP with its own CQ and find its rings: the two new uverbs
 * mappings, told apart by the slot counts and sizes the kernel granted
 * (SQ_WR and RQ_WR give different counts). A QP on @srq (if not NULL)
 * has no receive ring of its own: one new mapping, its send ring.
 */
static int qpx_create(struct qpx *x, enum ibv_qp_type type, int cq_depth,
		      struct srqx *srq)
{
	static struct umap before[MAX_MAPS], after[MAX_MAPS];
	struct ibv_qp_init_attr init = {
		.qp_type = type,
		.cap = { .max_send_wr = SQ_WR, .max_recv_wr = RQ_WR,
			 .max_send_sge = MAX_SGE, .max_recv_sge = MAX_SGE,
			 .max_inline_data = MAX_INLINE },
	};
	int nb, na, n, i, sq = -1, rq = -1, rings = srq ? 1 : 2;
	struct umap fresh[4];
	struct ring r[2];

	memset(x, 0, sizeof(*x));
	x->cq = cq_create(cq_depth, &x->cqr);
	if (!x->cq)
		return -1;
	init.send_cq = x->cq;
	init.recv_cq = x->cq;
	if (srq) {
		init.srq = srq->srq;
		init.cap.max_recv_wr = 0;
		init.cap.max_recv_sge = 0;
	}
	nb = uverbs_maps(before, MAX_MAPS);
	x->qp = ibv_create_qp(pd, &init);
	if (!x->qp) {
		note("ibv_create_qp: %s", strerror(errno));
		goto err;
	}
	na = uverbs_maps(after, MAX_MAPS);
	x->cap = init.cap;
	n = nb < 0 || na < 0 ? -1 :
	    new_maps(before, nb, after, na, fresh, 4);
	for (i = 0; n == rings && i < rings; i++) {
		if (ring_probe(&r[i], &fresh[i]))
			continue;
		if (is_sq_ring(&r[i], &x->cap))
			sq = sq < 0 ? i : -2;
		else if (!srq && is_rq_ring(&r[i], &x->cap))
			rq = rq < 0 ? i : -2;
	}
	if (sq < 0 || (!srq && rq < 0) || x->cap.max_send_sge < MAX_SGE ||
	    x->cap.max_inline_data < MAX_INLINE ||
	    (!srq && x->cap.max_send_wr == x->cap.max_recv_wr)) {
		note("cannot identify the rings of a QP (%d new uverbs mappings; cap: send_wr %u recv_wr %u send_sge %u recv_sge %u inline %u)",
		     n, x->cap.max_send_wr, x->cap.max_recv_wr,
		     x->cap.max_send_sge, x->cap.max_recv_sge,
		     x->cap.max_inline_data);
		for (i = 0; i < n; i++)
			ring_describe("QP", &fresh[i]);
		goto err;
	}
	x->sq = r[sq];
	if (srq)
		x->srq = srq;
	else
		x->rq = r[rq];
	if (ld(prod_of(&x->sq)) || ld(cons_of(&x->sq)) ||
	    (!srq && (ld(prod_of(&x->rq)) || ld(cons_of(&x->rq))))) {
		note("a new QP's rings are not empty");
		goto err;
	}
	return 0;
err:
	if (x->qp)
		ibv_destroy_qp(x->qp);
	ibv_destroy_cq(x->cq);
	memset(x, 0, sizeof(*x));
	return -1;
}

/* The ring a QP's receive WQEs go to: its own, or its SRQ's. */
static struct ring *recv_ring(struct qpx *x)
{
	return x->srq ? &x->srq->r : &x->rq;
}

/* --- shared receive queues ------------------------------------------------ */

/*
 * Create an SRQ of at least @max_wr WQEs of MAX_SGE SGEs and find its
 * ring: the one new uverbs mapping, with as many slots as the kernel
 * reports and room for MAX_SGE SGEs in each.
 */
static int srqx_create(struct srqx *s, uint32_t max_wr)
{
	static struct umap before[MAX_MAPS], after[MAX_MAPS];
	struct ibv_srq_init_attr init = {
		.attr = { .max_wr = max_wr, .max_sge = MAX_SGE },
	};
	struct ibv_srq_attr a = { 0 };
	struct umap fresh[4];
	int nb, na, n;

	memset(s, 0, sizeof(*s));
	nb = uverbs_maps(before, MAX_MAPS);
	s->srq = ibv_create_srq(pd, &init);
	if (!s->srq) {
		note("ibv_create_srq(%u): %s", max_wr, strerror(errno));
		return -1;
	}
	na = uverbs_maps(after, MAX_MAPS);
	n = nb < 0 || na < 0 ? -1 :
	    new_maps(before, nb, after, na, fresh, 4);
	if (ibv_query_srq(s->srq, &a) || n != 1 ||
	    ring_probe(&s->r, &fresh[0]) || s->r.mask != a.max_wr ||
	    a.max_wr < max_wr || a.max_sge != MAX_SGE ||
	    slot_bytes(&s->r) < sizeof(struct rxe_recv_wqe) +
				MAX_SGE * sizeof(struct rxe_sge) ||
	    ld(prod_of(&s->r)) || ld(cons_of(&s->r))) {
		note("cannot identify the ring of an SRQ of %u WQEs (%d new uverbs mappings; max_wr %u max_sge %u)",
		     max_wr, n, a.max_wr, a.max_sge);
		while (n-- > 0)
			ring_describe("SRQ", &fresh[n]);
		ibv_destroy_srq(s->srq);
		memset(s, 0, sizeof(*s));
		return -1;
	}
	return 0;
}

static int srqx_destroy(struct srqx *s)
{
	int err = s->srq ? ibv_destroy_srq(s->srq) : 0;

	if (err)
		note("ibv_destroy_srq: %s", strerror(err));
	memset(s, 0, sizeof(*s));
	return err ? -1 : 0;
}

static int qpx_destroy(struct qpx *x)
{
	int err = 0, e;

	if (x->qp) {
		e = ibv_destroy_qp(x->qp);
		if (e) {
			note("ibv_destroy_qp: %s", strerror(e));
			err = -1;
		}
	}
	if (x->cq) {
		e = ibv_destroy_cq(x->cq);
		if (e) {
			note("ibv_destroy_cq: %s", strerror(e));
			err = -1;
		}
	}
	memset(x, 0, sizeof(*x));
	return err;
}

/* --- QP state ------------------------------------------------------------- */

static int qp_state(struct ibv_qp *qp)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr a;

	if (ibv_query_qp(qp, &a, IBV_QP_STATE, &init))
		return -1;
	return a.qp_state;
}

static bool wait_qp_state(struct ibv_qp *qp, int state)
{
	uint64_t end = now_ms() + wait_ms;

	while (qp_state(qp) != state) {
		if (now_ms() > end)
			return false;
		nap();
	}
	return true;
}

static int qp_modify(struct ibv_qp *qp, struct ibv_qp_attr *a, int mask,
		     const char *what)
{
	int err = ibv_modify_qp(qp, a, mask);

	if (err)
		note("modify_qp to %s: %s", what, strerror(err));
	return err;
}

static int qp_to_init(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = 1,
		.qp_access_flags = IBV_ACCESS_LOCAL_WRITE |
				   IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ,
	};

	return qp_modify(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			 IBV_QP_PORT | IBV_QP_ACCESS_FLAGS, "INIT");
}

static int qp_to_rts(struct ibv_qp *qp, uint32_t dest_qpn, uint32_t rq_psn,
		     uint32_t sq_psn, const struct conn *c)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTR,
		.path_mtu = IBV_MTU_1024,
		.dest_qp_num = dest_qpn,
		.rq_psn = rq_psn,
		.max_dest_rd_atomic = 4,
		.min_rnr_timer = c->min_rnr_timer,
		.ah_attr = {
			.is_global = 1,
			.grh = { .dgid = gid, .sgid_index = gid_index,
				 .hop_limit = 64 },
			.port_num = 1,
		},
	};

	if (qp_modify(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
		      IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
		      IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER, "RTR"))
		return -1;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = c->timeout;
	a.retry_cnt = c->retry_cnt;
	a.rnr_retry = c->rnr_retry;
	a.sq_psn = sq_psn;
	a.max_rd_atomic = 4;
	return qp_modify(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT |
			 IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
			 IBV_QP_MAX_QP_RD_ATOMIC, "RTS");
}

static void cq_drain(struct ibv_cq *cq)
{
	struct ibv_wc wc[16];
	int i;

	for (i = 0; i < 64 && ibv_poll_cq(cq, 16, wc) > 0; i++)
		;
}

static int pair_connect(struct pair *p)
{
	uint32_t pa = rnd() & 0xffffff, pb = rnd() & 0xffffff;

	if (qp_to_init(p->a.qp) || qp_to_init(p->b.qp) ||
	    qp_to_rts(p->a.qp, p->b.qp->qp_num, pb, pa, &p->c) ||
	    qp_to_rts(p->b.qp, p->a.qp->qp_num, pa, pb, &p->c))
		return -1;
	return 0;
}

/* A pair whose B takes its receive WQEs from @b_srq (NULL: its own RQ). */
static int pair_create_srq(struct pair *p, const struct conn *c,
			   int a_cq_depth, struct srqx *b_srq, bool connect)
{
	memset(p, 0, sizeof(*p));
	p->c = *c;
	if (qpx_create(&p->a, IBV_QPT_RC, a_cq_depth, NULL))
		return -1;
	if (qpx_create(&p->b, IBV_QPT_RC, CQ_DEPTH, b_srq)) {
		qpx_destroy(&p->a);
		return -1;
	}
	if (connect && pair_connect(p)) {
		qpx_destroy(&p->a);
		qpx_destroy(&p->b);
		return -1;
	}
	return 0;
}

static int pair_create(struct pair *p, const struct conn *c, int a_cq_depth,
		       bool connect)
{
	return pair_create_srq(p, c, a_cq_depth, NULL, connect);
}

static int pair_destroy(struct pair *p)
{
	int err = qpx_destroy(&p->a);

	return qpx_destroy(&p->b) || err ? -1 : 0;
}

/* Both indices of the QP's own rings are 0 (an SRQ is not the QP's). */
static bool qpx_rings_empty(struct qpx *x)
{
	return !ld(prod_of(&x->sq)) && !ld(cons_of(&x->sq)) &&
	       (x->srq || (!ld(prod_of(&x->rq)) && !ld(cons_of(&x->rq))));
}

/* Both QPs back through RESET (which empties their rings) to RTS. */
static int pair_reset(struct pair *p)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RESET };

	if (qp_modify(p->a.qp, &a, IBV_QP_STATE, "RESET") ||
	    qp_modify(p->b.qp, &a, IBV_QP_STATE, "RESET"))
		return -1;
	cq_drain(p->a.cq);
	cq_drain(p->b.cq);
	if (!qpx_rings_empty(&p->a) || !qpx_rings_empty(&p->b)) {
		note("RESET left ring indices behind");
		return -1;
	}
	return pair_connect(p);
}

/* --- posting --------------------------------------------------------------- */

/*
 * The send doorbell exactly as librxe rings it: the legacy POST_SEND
 * command with no work requests. Return: 0 or the errno.
 */
static int doorbell(struct ibv_qp *qp)
{
	struct ib_uverbs_post_send_resp resp = { 0 };
	struct ib_uverbs_cmd_hdr hdr = {
		.command = IB_USER_VERBS_CMD_POST_SEND,
		.in_words = (sizeof(hdr) + sizeof(struct ib_uverbs_post_send)) / 4,
		.out_words = sizeof(resp) / 4,
	};
	struct ib_uverbs_post_send req = {
		.response = (uintptr_t)&resp,
		.qp_handle = qp->handle,
		.wqe_size = sizeof(struct ib_uverbs_send_wr),
	};
	uint8_t cmd[sizeof(hdr) + sizeof(req)];

	memcpy(cmd, &hdr, sizeof(hdr));
	memcpy(cmd + sizeof(hdr), &req, sizeof(req));
	hostile_add(H_DOORBELL, 1);
	if (write(qp->context->cmd_fd, cmd, sizeof(cmd)) != (ssize_t)sizeof(cmd))
		return errno ? errno : EIO;
	return 0;
}

/* A valid signaled RDMA WRITE of SRC[off, off + len) to DST[off, ...). */
static struct rxe_send_wqe *wqe_write(struct qpx *x, uint32_t index,
				      uint64_t wr_id, uint32_t off,
				      uint32_t len)
{
	struct rxe_send_wqe *w = slot(&x->sq, index);

	memset(w, 0, slot_bytes(&x->sq));
	w->wr.wr_id = wr_id;
	w->wr.opcode = IBV_WR_RDMA_WRITE;
	w->wr.send_flags = IBV_SEND_SIGNALED;
	w->wr.wr.rdma.remote_addr = (uintptr_t)dst_at(off);
	w->wr.wr.rdma.rkey = mr->rkey;
	w->iova = w->wr.wr.rdma.remote_addr;
	w->dma.length = len;
	w->dma.resid = len;
	w->dma.num_sge = 1;
	w->dma.sge[0].addr = (uintptr_t)src_at(off);
	w->dma.sge[0].length = len;
	w->dma.sge[0].lkey = mr->lkey;
	return w;
}

/* A valid receive WQE for DST[off, off + len) in slot @index of @r. */
static struct rxe_recv_wqe *wqe_recv(struct ring *r, uint32_t index,
				     uint64_t wr_id, uint32_t off,
				     uint32_t len)
{
	struct rxe_recv_wqe *w = slot(r, index);

	memset(w, 0, slot_bytes(r));
	w->wr_id = wr_id;
	w->dma.length = len;
	w->dma.resid = len;
	w->dma.num_sge = 1;
	w->dma.sge[0].addr = (uintptr_t)dst_at(off);
	w->dma.sge[0].length = len;
	w->dma.sge[0].lkey = mr->lkey;
	return w;
}

/* Hand @n WQEs written at the producer index over and ring the doorbell. */
static int sq_publish(struct qpx *x, uint32_t n)
{
	uint32_t prod = ld(prod_of(&x->sq));
	int err;

	st(prod_of(&x->sq), (prod + n) & x->sq.mask);
	err = doorbell(x->qp);
	if (err)
		note("doorbell: %s", strerror(err));
	return err;
}

/* Hand @n WQEs written at the producer index of a receive ring over. */
static void rq_publish(struct ring *r, uint32_t n)
{
	st(prod_of(r), (ld(prod_of(r)) + n) & r->mask);
}

/*
 * Through librxe: an RDMA WRITE (or SEND) of SRC[off...] to DST[off...].
 * Return: 0 or the errno, quietly (the random walk expects refusals).
 */
static int post_send_lib(struct qpx *x, enum ibv_wr_opcode op,
			 uint64_t wr_id, uint32_t off, uint32_t len)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)src_at(off), .length = len,
		.lkey = mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = wr_id, .sg_list = &sge, .num_sge = 1, .opcode = op,
		.send_flags = IBV_SEND_SIGNALED,
	}, *bad;

	wr.wr.rdma.remote_addr = (uintptr_t)dst_at(off);
	wr.wr.rdma.rkey = mr->rkey;
	return ibv_post_send(x->qp, &wr, &bad);
}

/* Through librxe, to the QP's RQ or SRQ: a receive of DST[off...]. */
static int post_recv_lib(struct qpx *x, uint64_t wr_id, uint32_t off,
			 uint32_t len)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)dst_at(off), .length = len,
		.lkey = mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = wr_id, .sg_list = &sge,
				  .num_sge = 1 }, *bad;

	if (x->srq)
		return ibv_post_srq_recv(x->srq->srq, &wr, &bad);
	return ibv_post_recv(x->qp, &wr, &bad);
}

static int lib_send(struct qpx *x, enum ibv_wr_opcode op, uint64_t wr_id,
		    uint32_t off, uint32_t len)
{
	int err = post_send_lib(x, op, wr_id, off, len);

	if (err)
		note("ibv_post_send: %s", strerror(err));
	return err;
}

static int lib_recv(struct qpx *x, uint64_t wr_id, uint32_t off, uint32_t len)
{
	int err = post_recv_lib(x, wr_id, off, len);

	if (err)
		note("posting a receive: %s", strerror(err));
	return err;
}

/* --- completions and events ---------------------------------------------------- */

/* Poll until @n completions are in @wc or wait_ms passed. Return: how many. */
static int wait_wcs(struct ibv_cq *cq, struct ibv_wc *wc, int n)
{
	uint64_t end = now_ms() + wait_ms;
	int got = 0, k;

	while (got < n) {
		k = ibv_poll_cq(cq, n - got, wc + got);
		if (k < 0) {
			note("ibv_poll_cq failed");
			return got;
		}
		got += k;
		if (got < n) {
			if (now_ms() > end)
				break;
			nap();
		}
	}
	return got;
}

/* One completion with @wr_id and @status (-1: any error but a flush). */
static bool wc_is(const struct ibv_wc *wc, uint64_t wr_id, int status)
{
	bool ok = wc->wr_id == wr_id &&
		  (status >= 0 ? (int)wc->status == status :
		   wc->status != IBV_WC_SUCCESS &&
		   wc->status != IBV_WC_WR_FLUSH_ERR);

	if (!ok)
		note("completion wr_id %#llx status %s, expected wr_id %#llx status %s",
		     (unsigned long long)wc->wr_id, wc_str(wc->status),
		     (unsigned long long)wr_id,
		     status >= 0 ? wc_str(status) : "an error");
	return ok;
}

/* Wait for one completion and check it. */
static bool expect_wc(struct ibv_cq *cq, uint64_t wr_id, int status,
		      struct ibv_wc *out)
{
	struct ibv_wc wc;

	if (wait_wcs(cq, &wc, 1) != 1) {
		note("no completion for wr_id %#llx within %u ms",
		     (unsigned long long)wr_id, wait_ms);
		return false;
	}
	if (out)
		*out = wc;
	return wc_is(&wc, wr_id, status);
}

/*
 * A WRITE through librxe, completed successfully, with nothing before it
 * on the CQ: proves the QP still works and that no unexpected
 * completion was produced before it.
 */
static bool marker(struct qpx *x, uint64_t wr_id, uint32_t off)
{
	memset(dst_at(off), SENTINEL, 64);
	if (lib_send(x, IBV_WR_RDMA_WRITE, wr_id, off, 64) ||
	    !expect_wc(x->cq, wr_id, IBV_WC_SUCCESS, NULL))
		return false;
	if (!dst_equals_src(off, 64)) {
		note("marker WRITE did not arrive");
		return false;
	}
	return true;
}

/*
 * Through librxe: a SEND of SRC[off, off + len) into a receive of
 * DST[off...] posted on B (its RQ or SRQ), then a WRITE of the same bytes;
 * both must complete successfully, byte-exact, and first on their CQs.
 */
static bool round_trip(struct pair *p, uint64_t wr_id, uint32_t off,
		       uint32_t len)
{
	struct ibv_wc wc;

	memset(dst_at(off), SENTINEL, len + 64);
	if (lib_recv(&p->b, wr_id, off, len) ||
	    lib_send(&p->a, IBV_WR_SEND, wr_id + 1, off, len) ||
	    !expect_wc(p->a.cq, wr_id + 1, IBV_WC_SUCCESS, NULL) ||
	    !expect_wc(p->b.cq, wr_id, IBV_WC_SUCCESS, &wc))
		return false;
	if (wc.byte_len != len || !dst_equals_src(off, len) ||
	    !all_sentinel(off + len, 64)) {
		note("SEND of %u bytes: byte_len %u, data %s", len, wc.byte_len,
		     dst_equals_src(off, len) ? "right" : "wrong");
		return false;
	}
	memset(dst_at(off), SENTINEL, len);
	if (lib_send(&p->a, IBV_WR_RDMA_WRITE, wr_id + 2, off, len) ||
	    !expect_wc(p->a.cq, wr_id + 2, IBV_WC_SUCCESS, NULL))
		return false;
	if (!dst_equals_src(off, len) || !all_sentinel(off + len, 64)) {
		note("WRITE of %u bytes delivered wrong data", len);
		return false;
	}
	return true;
}

/*
 * Read and acknowledge every asynchronous event there is (a destroy waits
 * for those read to be acknowledged); count them by type in @seen (32
 * entries) if not NULL.
 */
static void async_drain(unsigned int *seen)
{
	struct pollfd pfd = { .fd = ctx->async_fd, .events = POLLIN };
	struct ibv_async_event ev;

	while (poll(&pfd, 1, 0) == 1 && !ibv_get_async_event(ctx, &ev)) {
		if (seen)
			seen[ev.event_type & 31]++;
		ibv_ack_async_event(&ev);
	}
}

/*
 * Tally asynchronous events into @seen until @n of @type have come, or
 * wait_ms has passed; then take what else is queued.
 */
static void async_wait_count(unsigned int *seen, enum ibv_event_type type,
			     unsigned int n)
{
	uint64_t end = now_ms() + wait_ms;
	struct ibv_async_event ev;

	while (seen[type] < n) {
		struct pollfd pfd = { .fd = ctx->async_fd, .events = POLLIN };
		int64_t left = (int64_t)(end - now_ms());

		if (left <= 0 || poll(&pfd, 1, (int)left) != 1 ||
		    ibv_get_async_event(ctx, &ev))
			break;
		seen[ev.event_type & 31]++;
		ibv_ack_async_event(&ev);
	}
	async_drain(seen);
}

/* Wait for an asynchronous event of @type about @cq. */
static bool wait_cq_error(struct ibv_cq *cq)
{
	uint64_t end = now_ms() + wait_ms;
	struct ibv_async_event ev;
	bool match;

	for (;;) {
		struct pollfd pfd = { .fd = ctx->async_fd, .events = POLLIN };
		int64_t left = (int64_t)(end - now_ms());

		if (left <= 0 || poll(&pfd, 1, (int)left) != 1)
			return false;
		if (ibv_get_async_event(ctx, &ev))
			return false;
		match = ev.event_type == IBV_EVENT_CQ_ERR &&
			ev.element.cq == cq;
		if (!match)
			note("async event %s", ibv_event_type_str(ev.event_type));
		ibv_ack_async_event(&ev);
		if (match)
			return true;
	}
}

static long long hw_counter(const char *name)
{
	return sroce_hw_counter(dev_name, name);
}

/* ===================================================================== */
/* The cases                                                              */
/* ===================================================================== */

typedef void (*send_mutation)(struct rxe_send_wqe *w, struct qpx *x);

/*
 * Post one 4 KiB WRITE on A's ring with @mut applied and expect: its
 * completion with @status (-1: any error), A in ERROR, not one byte at
 * the destination, and a WR posted afterwards through librxe flushed.
 * The pair is reset afterwards for the next variant.
 */
static int bad_send(struct pair *p, const char *what, send_mutation mut,
		    int status)
{
	uint32_t prod = ld(prod_of(&p->a.sq));
	struct rxe_send_wqe *w;
	uint64_t id;
	int ret = KSFT_PASS;

	regions_reset();
	w = wqe_write(&p->a, prod, 0xbad0, 0, 4096);
	mut(w, &p->a);
	hostile_add(H_MALFORMED, 1);
	id = w->wr.wr_id;
	if (sq_publish(&p->a, 1))
		FAIL("%s: the doorbell of a QP in RTS was refused", what);
	if (!expect_wc(p->a.cq, id, status, NULL))
		FAIL("%s: wrong completion", what);
	if (!wait_qp_state(p->a.qp, IBV_QPS_ERR))
		FAIL("%s: the QP is not in ERROR after the error", what);
	if (!all_sentinel(0, 8192))
		FAIL("%s: bytes arrived at the destination", what);
	if (lib_send(&p->a, IBV_WR_RDMA_WRITE, 0xf1, 8192, 64) ||
	    !expect_wc(p->a.cq, 0xf1, IBV_WC_WR_FLUSH_ERR, NULL))
		FAIL("%s: a WR posted in ERROR was not flushed", what);
	if (pair_reset(p))
		FAIL("%s: the pair cannot be reset", what);
out:
	return ret;
}

/* --- doorbells in the wrong state ------------------------------------------ */

static int t_doorbell_state(void)
{
	struct ibv_wc wc;
	struct pair p;
	int ret = KSFT_PASS, err;

	if (pair_create(&p, &conn_default, CQ_DEPTH, false))
		return KSFT_FAIL;
	regions_reset();
	wqe_write(&p.a, 0, 0x101, 0, 1000);
	st(prod_of(&p.a.sq), 1);
	/* RESET, then INIT: the WQE is there, the doorbell must be refused. */
	err = doorbell(p.a.qp);
	if (err != EINVAL)
		FAIL("doorbell in RESET: %s, expected EINVAL",
		     err ? strerror(err) : "accepted");
	if (qp_to_init(p.a.qp) || qp_to_init(p.b.qp))
		FAIL("INIT");
	err = doorbell(p.a.qp);
	if (err != EINVAL)
		FAIL("doorbell in INIT: %s, expected EINVAL",
		     err ? strerror(err) : "accepted");
	if (ibv_poll_cq(p.a.cq, 1, &wc) != 0 || !all_sentinel(0, 1000))
		FAIL("a refused doorbell sent something");
	if (qp_to_rts(p.a.qp, p.b.qp->qp_num, 0, 0, &p.c) ||
	    qp_to_rts(p.b.qp, p.a.qp->qp_num, 0, 0, &p.c))
		FAIL("RTS");
	err = doorbell(p.a.qp);
	if (err)
		FAIL("doorbell in RTS: %s", strerror(err));
	if (!expect_wc(p.a.cq, 0x101, IBV_WC_SUCCESS, NULL) ||
	    !dst_equals_src(0, 1000))
		FAIL("the WQE was not sent once the QP could send");
	if (!marker(&p.a, 0x102, 4096))
		FAIL("the WQE completed more than once");
out:
	if (pair_destroy(&p))
		ret = KSFT_FAIL;
	return ret;
}

/* --- garbage ------------------------------------------------------------------- */

static int t_garbage(void)
{
	uint64_t ids[64];
	struct ibv_wc wc[64];
	uint32_t prod, n, i, k;
	struct pair p;
	int ret = KSFT_PASS;

	if (pair_create(&p, &conn_default, CQ_DEPTH, true))
		return KSFT_FAIL;
	regions_reset();
	if (!marker(&p.a, 0x111, 0))
		FAIL("the pair does not work to begin with");
	/* Every slot but the one that stays free: random bytes. */
	prod = ld(prod_of(&p.a.sq));
	n = p.a.sq.mask;
	if (n > 64)
		FAIL("send ring larger than expected");
	for (i = 0; i < n; i++) {
		struct rxe_send_wqe *w = slot(&p.a.sq, prod + i);
		uint8_t *b = (uint8_t *)w;

		for (k = 0; k < slot_bytes(&p.a.sq); k++)
			b[k] = rnd();
		ids[i] = w->wr.wr_id;
	}
	hostile_add(H_GARBAGE, n);
	memset(dst_at(0), SENTINEL, 4096);
	if (sq_publish(&p.a, n))
		FAIL("doorbell refused");
	if (wait_wcs(p.a.cq, wc, n) != (int)n)
		FAIL("fewer than %u completions for %u garbage WQEs", n, n);
	/* The first fails, the QP goes to ERROR, the others are flushed. */
	if (!wc_is(&wc[0], ids[0], -1))
		FAIL("first garbage WQE");
	for (i = 1; i < n; i++)
		if (!wc_is(&wc[i], ids[i], IBV_WC_WR_FLUSH_ERR))
			FAIL("garbage WQE %u", i);
	note("first garbage WQE completed with %s", wc_str(wc[0].status));
	if (!wait_qp_state(p.a.qp, IBV_QPS_ERR))
		FAIL("QP not in ERROR");
	if (ld(cons_of(&p.a.sq)) != ((prod + n) & p.a.sq.mask))
		FAIL("send consumer index %#x, expected %#x",
		     ld(cons_of(&p.a.sq)), (prod + n) & p.a.sq.mask);
	if (lib_send(&p.a, IBV_WR_RDMA_WRITE, 0x112, 0, 64) ||
	    !expect_wc(p.a.cq, 0x112, IBV_WC_WR_FLUSH_ERR, NULL))
		FAIL("a WR posted in ERROR was not flushed");
	if (!all_sentinel(0, 4096))
		FAIL("something arrived at the destination");
out:
	if (pair_destroy(&p))
		ret = KSFT_FAIL;
	return ret;
}

/* --- malformed fields ---------------------------------------------------------- */

static void m_num_sge_max(struct rxe_send_wqe *w, struct qpx *x)
{
	w->dma.num_sge = 0xffffffff;
}

static void m_num_sge_over(struct rxe_send_wqe *w, struct qpx *x)
{
	w->dma.num_sge = x->cap.max_send_sge + 1;
}

static int t_num_sge(void)
{
	struct pair p;
	int ret = KSFT_PASS;

	if (pair_create(&p, &conn_default, CQ_DEPTH, true))
		return KSFT_FAIL;
	if (bad_send(&p, "num_sge 0xffffffff", m_num_sge_max,
		     IBV_WC_LOC_LEN_ERR) ||
	    bad_send(&p, "num_sge max_send_sge + 1", m_num_sge_over,
		     IBV_WC_LOC_LEN_ERR))
		ret = KSFT_FAIL;
	if (pair_destroy(&p))
		ret = KSFT_FAIL;
	return ret;
}

/* Two SGEs whose lengths add up to 2^32 + 16. */
static void m_sge_past_4g(struct rxe_send_wqe *w, struct qpx *x)
{
	w->dma.num_sge = 2;
	w->dma.sge[0].length = 0xffffffff;
	w->dma.sge[1] = w->dma.sge[0];
	w->dma.sge[1].length = 0x11;
	w->dma.length = 0x10;	/* what a 32-bit sum would say */
}

/* Two SGEs of 2 GiB: exactly 2^32, zero in 32-bit arithmetic. */
static void m_sge_wraps_to_zero(struct rxe_send_wqe *w, struct qpx *x)
{
	w->dma.num_sge = 2;
	w->dma.sge[0].length = 0x80000000;
	w->dma.sge[1] = w->dma.sge[0];
	w->dma.length = 0;
}

/* Four SGEs of 4 GiB - 1. */
static void m_sge_four_max(struct rxe_send_wqe *w, struct qpx *x)
{
	int i;

	w->dma.num_sge = 4;
	for (i = 0; i < 4; i++) {
		w->dma.sge[i] = w->dma.sge[0];
		w->dma.sge[i].length = 0xffffffff;
	}
}

static int t_sge_len(void)
{
	struct pair p;
	int ret = KSFT_PASS;

	if (pair_create(&p, &conn_default, CQ_DEPTH, true))
		return KSFT_FAIL;
	if (bad_send(&p, "SGE lengths 2^32 + 16", m_sge_past_4g,
		     IBV_WC_LOC_LEN_ERR) ||
	    bad_send(&p, "SGE lengths 2^32", m_sge_wraps_to_zero,
		     IBV_WC_LOC_LEN_ERR) ||
	    bad_send(&p, "4 SGEs of 2^32 - 1", m_sge_four_max,
		     IBV_WC_LOC_LEN_ERR))
		ret = KSFT_FAIL;
	if (pair_destroy(&p))
		ret = KSFT_FAIL;
	return ret;
}

static void m_inline_one_over(struct rxe_send_wqe *w, struct qpx *x)
{
	uint32_t len = x->cap.max_inline_data + 1;

	w->wr.send_flags |= IBV_SEND_INLINE;
	w->dma.length = len;
	memcpy(w->dma.inline_data, ref,
	       slot_bytes(&x->sq) - sizeof(*w) < len ?
	       slot_bytes(&x->sq) - sizeof(*w) : len);
}

static void m_inline_huge(struct rxe_send_wqe *w, struct qpx *x)
{
	w->wr.send_flags |= IBV_SEND_INLINE;
	w->dma.length = 0xffffffff;
}

/* Inline data as long as the slot itself: still beyond max_inline. */
static void m_inline_slot(struct rxe_send_wqe *w, struct qpx *x)
{
	w->wr.send_flags |= IBV_SEND_INLINE;
	w->dma.length = slot_bytes(&x->sq) - sizeof(*w) + 1;
}

static int t_inline(void)
{
	struct pair p;
	int ret = KSFT_PASS;

	if (pair_create(&p, &conn_default, CQ_DEPTH, true))
		return KSFT_FAIL;
	if (bad_send(&p, "inline max_inline + 1", m_inline_one_over,
		     IBV_WC_LOC_LEN_ERR) ||
	    bad_send(&p, "inline 0xffffffff", m_inline_huge,
		     IBV_WC_LOC_LEN_ERR) ||
	    bad_send(&p, "inline beyond the slot", m_inline_slot,
		     IBV_WC_LOC_LEN_ERR))
		ret = KSFT_FAIL;
	if (pair_destroy(&p))
		ret = KSFT_FAIL;
	return ret;
}

static void m_lkey_index(struct rxe_send_wqe *w, struct qpx *x)
{
	w->dma.sge[0].lkey ^= 0x5500;
}

static void m_lkey_generation(struct rxe_send_wqe *w, struct qpx *x)
{
	w->dma.sge[0].lkey ^= 0x1;
}

static void m_addr_beyond_mr(struct rxe_send_wqe *w, struct qpx *x)
{
	w->dma.sge[0].addr = (uintptr_t)buf + BUF_SIZE - 16;
}

static void m_addr_wraps(struct rxe_send_wqe *w, struct qpx *x)
{
	w->dma.sge[0].addr = (uint64_t)-2048;
}

static int t_lkey(void)
{
	struct pair p;
	int ret = KSFT_PASS;

	if (pair_create(&p, &conn_default, CQ_DEPTH, true))
		return KSFT_FAIL;
	if (bad_send(&p, "lkey of no MR", m_lkey_index, IBV_WC_LOC_PROT_ERR) ||
	    bad_send(&p, "lkey of a wrong generation", m_lkey_generation,
		     IBV_WC_LOC_PROT_ERR) ||
	    bad_send(&p, "SGE past the end of the MR", m_addr_beyond_mr,
		     IBV_WC_LOC_PROT_ERR) ||
	    bad_send(&p, "SGE wrapping the address space", m_addr_wraps,
		     IBV_WC_LOC_PROT_ERR))
		ret = KSFT_FAIL;
	if (pair_destroy(&p))
		ret = KSFT_FAIL;
	return ret;
}

static void m_rkey(struct rxe_send_wqe *w, struct qpx *x)
{
	w->wr.wr.rdma.rkey ^= 0x5500;
}

static void m_raddr_beyond_mr(struct rxe_send_wqe *w, struct qpx *x)
{
	w->wr.wr.rdma.remote_addr = (uintptr_t)buf + BUF_SIZE - 1024;
	w->iova = w->wr.wr.rdma.remote_addr;
}

static void m_read_bad_rkey(struct rxe_send_wqe *w, struct qpx *x)
{
	w->wr.opcode = IBV_WR_RDMA_READ;
	/* READ into SRC from DST: the scatter side must stay untouched. */
	w->wr.wr.rdma.rkey ^= 0x5500;
}

/* memchr_inv_a5: whether any of the @len bytes at @p is not 0xa5 */
static bool memchr_inv_a5(const uint8_t *p, size_t len)
{
	while (len--)
		if (*p++ != 0xa5)
			return true;
	return false;
}

static int t_rkey(void)
{
	struct pair p;
	int ret = KSFT_PASS;

	if (pair_create(&p, &conn_default, CQ_DEPTH, true))
		return KSFT_FAIL;
	/*
	 * The WRITE past the end starts 1 KiB inside the region: the
	 * responder checks the whole range first, so none of it lands.
	 */
	memset(buf + BUF_SIZE - 1024, 0xa5, 1024);
	if (bad_send(&p, "WRITE with an rkey of no MR", m_rkey,
		     IBV_WC_REM_ACCESS_ERR) ||
	    bad_send(&p, "WRITE past the end of the remote MR",
		     m_raddr_beyond_mr, IBV_WC_REM_ACCESS_ERR) ||
	    bad_send(&p, "READ with an rkey of no MR", m_read_bad_rkey,
		     IBV_WC_REM_ACCESS_ERR))
		ret = KSFT_FAIL;
	if (!ret && memchr_inv_a5(buf + BUF_SIZE - 1024, 1024))
		FAIL("a WRITE refused for running past its region wrote its first bytes");
	memset(buf + BUF_SIZE - 1024, 0, 1024);
	if (!ret && memcmp(src_at(0), ref, 4096))
		FAIL("a failed READ changed its local buffer");
out:
	if (pair_destroy(&p))
		ret = KSFT_FAIL;
	return ret;
}

/*
 * 256 KiB, more than the 64-packet send window at a path MTU of 1024:
 * the NAK for the first packet arrives while the WQE is still being
 * sent. It must still complete with the NAK's status, not a flush.
 */
static void m_rkey_long(struct rxe_send_wqe *w, struct qpx *x)
{
	w->wr.wr.rdma.rkey ^= 0x5500;
	w->dma.length = 256 * 1024;
	w->dma.resid = w->dma.length;
	w->dma.sge[0].length = w->dma.length;
}

static int t_rkey_long(void)
{
	struct pair p;
	int ret = KSFT_PASS;

	if (pair_create(&p, &conn_default, CQ_DEPTH, true))
		return KSFT_FAIL;
	if (bad_send(&p, "256 KiB WRITE with an rkey of no MR", m_rkey_long,
		     IBV_WC_REM_ACCESS_ERR))
		ret = KSFT_FAIL;
	if (pair_destroy(&p))
		ret = KSFT_FAIL;
	return ret;
}

static void m_opcode_huge(struct rxe_send_wqe *w, struct qpx *x)
{
	w->wr.opcode = 0xdeadbeef;
}

static void m_opcode_local_inv(struct rxe_send_wqe *w, struct qpx *x)
{
	w->wr.opcode = IBV_WR_LOCAL_INV;
}

static void m_opcode_bind_mw(struct rxe_send_wqe *w, struct qpx *x)
{
	w->wr.opcode = IBV_WR_BIND_MW;
}

static void m_opcode_first_unused(struct rxe_send_wqe *w, struct qpx *x)
{
	w->wr.opcode = 16;
}

static int t_opcode(void)
{
	struct pair p;
	int ret = KSFT_PASS;

	if (pair_create(&p, &conn_default, CQ_DEPTH, true))
		return KSFT_FAIL;
	if (bad_send(&p, "opcode 0xdeadbeef", m_opcode_huge,
		     IBV_WC_LOC_QP_OP_ERR) ||
	    bad_send(&p, "opcode 16", m_opcode_first_unused,
		     IBV_WC_LOC_QP_OP_ERR) ||
	    bad_send(&p, "LOCAL_INV", m_opcode_local_inv,
		     IBV_WC_LOC_QP_OP_ERR) ||
	    bad_send(&p, "BIND_MW", m_opcode_bind_mw, IBV_WC_MW_BIND_ERR))
		ret = KSFT_FAIL;
	if (pair_destroy(&p))
		ret = KSFT_FAIL;
	return ret;
}

/* --- UD --------------------------------------------------------------------- */

#define UD_QKEY 0x11111111

static int ud_up(struct qpx *x)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT, .port_num = 1, .qkey = UD_QKEY,
	};

	if (qp_modify(x->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
		      IBV_QP_PORT | IBV_QP_QKEY, "INIT"))
		return -1;
	a.qp_state = IBV_QPS_RTR;
	if (qp_modify(x->qp, &a, IBV_QP_STATE, "RTR"))
		return -1;
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = rnd() & 0xffffff;
	return qp_modify(x->qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN, "RTS");
}

static int ud_reset(struct qpx *x)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_RESET };

	if (qp_modify(x->qp, &a, IBV_QP_STATE, "RESET"))
		return -1;
	cq_drain(x->cq);
	return ud_up(x);
}

/* A UD SEND to this QP itself, with the bad address handle number @ah_num. */
static void wqe_ud(struct qpx *x, uint64_t wr_id, uint32_t ah_num,
		   uint32_t len)
{
	struct rxe_send_wqe *w = wqe_write(x, ld(prod_of(&x->sq)), wr_id, 0,
					   len);

	w->wr.opcode = IBV_WR_SEND;
	memset(&w->wr.wr, 0, sizeof(w->wr.wr));
	w->wr.wr.ud.remote_qpn = x->qp->qp_num;
	w->wr.wr.ud.remote_qkey = UD_QKEY;
	w->wr.wr.ud.ah_num = ah_num;
	w->iova = 0;
	hostile_add(H_MALFORMED, 1);
}

static int t_ud(void)
{
	struct ibv_ah_attr aa = {
		.is_global = 1,
		.grh = { .dgid = gid, .sgid_index = gid_index, .hop_limit = 64 },
		.port_num = 1,
	};
	struct ibv_sge sge = { .lkey = 0 };
	struct ibv_send_wr wr = { 0 }, *bad;
	struct ibv_ah *ah = NULL;
	struct qpx u;
	int ret = KSFT_PASS, err;

	if (qpx_create(&u, IBV_QPT_UD, CQ_DEPTH, NULL))
		return KSFT_FAIL;
	if (ud_up(&u))
		FAIL("UD QP does not come up");
	regions_reset();

	/* A user QP must name an address handle; 0 means "embedded". */
	wqe_ud(&u, 0x151, 0, 64);
	if (sq_publish(&u, 1) ||
	    !expect_wc(u.cq, 0x151, IBV_WC_LOC_QP_OP_ERR, NULL) ||
	    !wait_qp_state(u.qp, IBV_QPS_ERR))
		FAIL("UD WQE without an address handle");
	if (ud_reset(&u))
		FAIL("reset");
	wqe_ud(&u, 0x152, 0x7ffe, 64);
	if (sq_publish(&u, 1) ||
	    !expect_wc(u.cq, 0x152, IBV_WC_LOC_QP_OP_ERR, NULL) ||
	    !wait_qp_state(u.qp, IBV_QPS_ERR))
		FAIL("UD WQE naming an address handle that does not exist");
	if (ud_reset(&u))
		FAIL("reset");
	wqe_ud(&u, 0x153, 0xffffffff, 64);
	if (sq_publish(&u, 1) ||
	    !expect_wc(u.cq, 0x153, IBV_WC_LOC_QP_OP_ERR, NULL))
		FAIL("UD WQE with address handle 0xffffffff");
	if (ud_reset(&u))
		FAIL("reset");

	/* A real address handle, and a message larger than the MTU. */
	ah = ibv_create_ah(pd, &aa);
	if (!ah)
		FAIL("ibv_create_ah: %s", strerror(errno));
	sge.addr = (uintptr_t)src_at(0);
	sge.length = 5000;
	sge.lkey = mr->lkey;
	wr.wr_id = 0x154;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.ud.ah = ah;
	wr.wr.ud.remote_qpn = u.qp->qp_num;
	wr.wr.ud.remote_qkey = UD_QKEY;
	err = ibv_post_send(u.qp, &wr, &bad);
	if (err)
		FAIL("ibv_post_send: %s", strerror(err));
	if (!expect_wc(u.cq, 0x154, IBV_WC_LOC_LEN_ERR, NULL))
		FAIL("UD SEND larger than the MTU");
	if (ud_reset(&u))
		FAIL("reset");
	/* And one that is fine (nobody receives it: UD drops it). */
	sge.length = 64;
	wr.wr_id = 0x155;
	err = ibv_post_send(u.qp, &wr, &bad);
	if (err)
		FAIL("ibv_post_send: %s", strerror(err));
	if (!expect_wc(u.cq, 0x155, IBV_WC_SUCCESS, NULL))
		FAIL("valid UD SEND after the errors");
out:
	if (ah && ibv_destroy_ah(ah)) {
		note("ibv_destroy_ah failed");
		ret = KSFT_FAIL;
	}
	if (qpx_destroy(&u))
		ret = KSFT_FAIL;
	return ret;
}

/* --- the send producer index ------------------------------------------------- */

static int t_sq_prod(void)
{
	struct ibv_wc wc[16];
	uint32_t p0, size, mask, i, cons;
	struct pair p;
	int ret = KSFT_PASS;

	if (pair_create(&p, &conn_default, CQ_DEPTH, true))
		return KSFT_FAIL;
	regions_reset();
	mask = p.a.sq.mask;
	size = mask + 1;
	p0 = ld(prod_of(&p.a.sq));
	/* Every slot holds a valid WRITE of its own 256 bytes. */
	for (i = 0; i < size; i++)
		wqe_write(&p.a, p0 + i, 0x200 + i, i * 256, 256);

	/* 5 + 7 rings ahead: only the 5 count (the index is masked). */
	st_hostile(prod_of(&p.a.sq), p0 + 5 + 7 * size);
	if (doorbell(p.a.qp))
		FAIL("doorbell refused");
	if (wait_wcs(p.a.cq, wc, 5) != 5)
		FAIL("fewer than 5 completions");
	for (i = 0; i < 5; i++)
		if (!wc_is(&wc[i], 0x200 + i, IBV_WC_SUCCESS))
			FAIL("producer index %#x: completion %u",
			     p0 + 5 + 7 * size, i);
	cons = ld(cons_of(&p.a.sq));
	if (cons != ((p0 + 5) & mask))
		FAIL("consumer index %#x after 5 WQEs from %#x", cons, p0);

	/* The next 3, with bits above the mask set. */
	st_hostile(prod_of(&p.a.sq), ((p0 + 8) & mask) | 0xa5a50000);
	if (doorbell(p.a.qp))
		FAIL("doorbell refused");
	if (wait_wcs(p.a.cq, wc, 3) != 3)
		FAIL("fewer than 3 completions");
	for (i = 0; i < 3; i++)
		if (!wc_is(&wc[i], 0x205 + i, IBV_WC_SUCCESS))
			FAIL("producer index with high bits: completion %u", i);

	/* A whole ring ahead is the same as no new WQE at all. */
	st_hostile(prod_of(&p.a.sq), p0 + 8 + size);
	if (doorbell(p.a.qp))
		FAIL("doorbell refused");
	/* librxe must find a masked index again before it posts. */
	st(prod_of(&p.a.sq), (p0 + 8) & mask);
	if (!marker(&p.a, 0x2ff, 512 * 1024))
		FAIL("a producer index one ring ahead was taken for WQEs");
	cons = ld(cons_of(&p.a.sq));
	if (cons != ((p0 + 9) & mask))
		FAIL("consumer index %#x, expected %#x", cons, (p0 + 9) & mask);
	for (i = 0; i < size; i++) {
		bool sent = i < 8;

		if (sent ? !dst_equals_src(i * 256, 256) :
			   !all_sentinel(i * 256, 256))
			FAIL("slot %u: WRITE %s", i,
			     sent ? "did not arrive" : "was executed");
	}
out:
	if (pair_destroy(&p))
		ret = KSFT_FAIL;
	return ret;
}

/* --- the send consumer index (the kernel's) ------------------------------------- */

/* A thread writing random values into a ring index until told to stop. */
struct index_scribbler {
	pthread_t thread;
	uint32_t *index;
	uint64_t rng;
	unsigned long writes;
	int stop;
};

static void *scribble_index(void *arg)
{
	struct index_scribbler *s = arg;

	while (!__atomic_load_n(&s->stop, __ATOMIC_ACQUIRE)) {
		st(s->index, rnd64(&s->rng) >> 32);
		__atomic_store_n(&s->writes, s->writes + 1, __ATOMIC_RELEASE);
	}
	return NULL;
}

/* Wait until a scribbler has written at least once. */
static bool scribbler_running(unsigned long *writes)
{
	uint64_t end = now_ms() + wait_ms;

	while (!__atomic_load_n(writes, __ATOMIC_ACQUIRE)) {
		if (now_ms() > end)
			return false;
		nap();
	}
	return true;
}

static int t_sq_cons(void)
{
	struct index_scribbler is = { 0 };
	struct ibv_wc wc[4];
	uint32_t c, mask, i;
	struct pair p;
	int ret = KSFT_PASS, n, err;

	if (pair_create(&p, &conn_default, CQ_DEPTH, true))
		return KSFT_FAIL;
	regions_reset();
	mask = p.a.sq.mask;
	if (lib_send(&p.a, IBV_WR_RDMA_WRITE, 0x300, 0, 4096) ||
	    lib_send(&p.a, IBV_WR_RDMA_WRITE, 0x301, 4096, 4096) ||
	    wait_wcs(p.a.cq, wc, 2) != 2 ||
	    !wc_is(&wc[0], 0x300, IBV_WC_SUCCESS) ||
	    !wc_is(&wc[1], 0x301, IBV_WC_SUCCESS))
		FAIL("the pair does not work to begin with");
	c = ld(cons_of(&p.a.sq));
	memset(dst_at(0), SENTINEL, 8192);

	/* Pretend the two old WQEs were never consumed, with junk above. */
	st_hostile(cons_of(&p.a.sq), ((c - 2) & mask) | 0xdead0000);
	for (i = 0; i < 3; i++)
		wqe_write(&p.a, c + i, 0x310 + i, 16384 + i * 4096, 4096);
	if (sq_publish(&p.a, 3))
		FAIL("doorbell refused");
	if (wait_wcs(p.a.cq, wc, 3) != 3)
		FAIL("fewer than 3 completions");
	for (i = 0; i < 3; i++)
		if (!wc_is(&wc[i], 0x310 + i, IBV_WC_SUCCESS))
			FAIL("completion %u", i);
	if (!marker(&p.a, 0x31f, 65536))
		FAIL("unexpected completions before the marker");
	if (!all_sentinel(0, 8192))
		FAIL("the old WQEs were sent again");
	if (!dst_equals_src(16384, 3 * 4096))
		FAIL("the new WQEs did not deliver their data");
	if (ld(cons_of(&p.a.sq)) != ((c + 4) & mask))
		FAIL("consumer index %#x, expected the kernel's %#x",
		     ld(cons_of(&p.a.sq)), (c + 4) & mask);

	/*
	 * Junk in the consumer index all the time a long WRITE is sent: a
	 * thread scribbles from before the doorbell until the completion.
	 */
	c = ld(prod_of(&p.a.sq));
	wqe_write(&p.a, c, 0x320, 128 * 1024, 256 * 1024);
	st(prod_of(&p.a.sq), (c + 1) & mask);
	is.index = cons_of(&p.a.sq);
	is.rng = rng_state;
	if (pthread_create(&is.thread, NULL, scribble_index, &is))
		FAIL("pthread_create");
	err = scribbler_running(&is.writes) ? doorbell(p.a.qp) : ETIMEDOUT;
	n = err ? 0 : wait_wcs(p.a.cq, wc, 1);
	__atomic_store_n(&is.stop, 1, __ATOMIC_RELEASE);
	pthread_join(is.thread, NULL);
	racing_stores += is.writes;
	if (err)
		FAIL("doorbell: %s", strerror(err));
	if (n != 1 || !wc_is(&wc[0], 0x320, IBV_WC_SUCCESS))
		FAIL("256 KiB WRITE with a scribbled consumer index: %s",
		     n == 1 ? "wrong completion" : "no completion");
	note("consumer index overwritten %lu times during the WRITE",
	     is.writes);
	if (!dst_equals_src(128 * 1024, 256 * 1024))
		FAIL("256 KiB WRITE delivered wrong data");
	st_hostile(cons_of(&p.a.sq), rnd());
	if (!marker(&p.a, 0x32f, 65536))
		FAIL("no marker after the scribbled WRITE");
	if (ld(cons_of(&p.a.sq)) != ((c + 2) & mask))
		FAIL("consumer index %#x, expected the kernel's %#x",
		     ld(cons_of(&p.a.sq)), (c + 2) & mask);
out:
	if (pair_destroy(&p))
		ret = KSFT_FAIL;
	return ret;
}

/* --- the CQ consumer index ----------------------------------------------------- */

static bool cq_slot_is_canary(const struct ring *r, uint32_t i)
{
	const uint8_t *b = slot(r, i);
	size_t k;

	for (k = 0; k < slot_bytes(r); k++)
		if (b[k] != CANARY)
			return false;
	return true;
}

/* Wait until the kernel has retired every WQE on A's send ring. */
static bool sq_drained(struct qpx *x)
{
	uint64_t end = now_ms() + wait_ms;

	while (ld(cons_of(&x->sq)) != (ld(prod_of(&x->sq)) & x->sq.mask)) {
		if (now_ms() > end)
			return false;
		nap();
	}
	return true;
}

static int t_cq_cons(void)
{
	const uint32_t high = 0x3c000000;
	struct ring *r;
	struct ibv_wc wc;
	uint32_t P, mask, i, sp, now;
	struct pair p;
	int ret = KSFT_PASS, err;

	/* A's CQ: 15 entries, at least 16 slots; only A's sends use it. */
	if (pair_create(&p, &conn_default, 15, true))
		return KSFT_FAIL;
	regions_reset();
	r = &p.a.cqr;
	mask = r->mask;
	P = ld(prod_of(r));
	if (P != ld(cons_of(r)) || P > mask)
		FAIL("CQ not empty at the start");
	async_drain(NULL);
	for (i = 0; i <= mask; i++)
		memset(slot(r, i), CANARY, slot_bytes(r));

	/* 1: the consumer one ahead of the producer: the ring is full. */
	st_hostile(cons_of(r), ((P + 1) & mask) | high);
	sp = ld(prod_of(&p.a.sq));
	wqe_write(&p.a, sp, 0x400, 0, 512);
	if (sq_publish(&p.a, 1))
		FAIL("doorbell refused");
	if (!wait_cq_error(p.a.cq))
		FAIL("no IBV_EVENT_CQ_ERR for a completion that did not fit");
	if (!sq_drained(&p.a))
		FAIL("WRITE not retired");
	if (ld(prod_of(r)) != P)
		FAIL("the kernel moved the producer index of a full CQ to %#x",
		     ld(prod_of(r)));
	for (i = 0; i <= mask; i++)
		if (!cq_slot_is_canary(r, i))
			FAIL("a full CQ: slot %u was written", i);

	/* 2: four free slots, eight completions. */
	st_hostile(cons_of(r), ((P + 5) & mask) | high);
	sp = ld(prod_of(&p.a.sq));
	for (i = 0; i < 8; i++)
		wqe_write(&p.a, sp + i, 0x410 + i, 4096 * (i + 1), 512);
	if (sq_publish(&p.a, 8))
		FAIL("doorbell refused");
	if (!wait_cq_error(p.a.cq))
		FAIL("no IBV_EVENT_CQ_ERR for the completions that did not fit");
	if (!sq_drained(&p.a))
		FAIL("WRITEs not retired");
	now = ld(prod_of(r));
	if (now != ((P + 4) & mask))
		FAIL("producer index %#x, expected %#x (4 free slots)", now,
		     (P + 4) & mask);
	for (i = 0; i < 4; i++) {
		const struct ib_uverbs_wc *c = slot(r, P + i);

		if (c->wr_id != 0x410 + i || c->status != IBV_WC_SUCCESS)
			FAIL("CQE %u: wr_id %#llx status %u", i,
			     (unsigned long long)c->wr_id, c->status);
	}
	/* The slot before the consumer and all "unconsumed" ones intact. */
	for (i = 4; i <= mask; i++)
		if (!cq_slot_is_canary(r, P + i))
			FAIL("slot %u (%u after the producer) was written although userspace had not freed it",
			     (P + i) & mask, i);
	for (i = 0; i < 8; i++)
		if (!dst_equals_src(4096 * (i + 1), 512))
			FAIL("WRITE %u did not arrive", i);

	/* 3: consume everything: the CQ works again. */
	st(cons_of(r), now);
	if (!marker(&p.a, 0x42f, 65536))
		FAIL("the CQ does not work after the overrun");

	/* 4: resizing must refuse to carry more entries than fit. */
	now = ld(prod_of(r));
	st_hostile(cons_of(r), (now + 1) & mask);
	err = ibv_resize_cq(p.a.cq, 4);
	if (!err) {
		/* librxe has unmapped the ring we were looking at. */
		p.a.cqr.q = NULL;
		FAIL("resize to 4 entries accepted with %u entries in the ring",
		     mask);
	}
	note("resize with %u entries to 4 refused: %s", mask, strerror(err));
	if (r->q->index_mask != mask || ld(prod_of(r)) != now)
		FAIL("the refused resize changed the ring");
	st(cons_of(r), now);
	if (ibv_poll_cq(p.a.cq, 1, &wc) != 0)
		FAIL("a completion appeared from nowhere");
	if (!marker(&p.a, 0x43f, 65536))
		FAIL("the CQ does not work after the refused resize");
out:
	/* Leave the CQ consistent for librxe and the destroy. */
	if (p.a.cqr.q)
		st(cons_of(&p.a.cqr), ld(prod_of(&p.a.cqr)));
	if (pair_destroy(&p))
		ret = KSFT_FAIL;
	return ret;
}

/* --- receive WQEs --------------------------------------------------------------- */

/* What a sender must see when the receiver refused its request. */
static bool remote_error(int status)
{
	return status == IBV_WC_REM_INV_REQ_ERR ||
	       status == IBV_WC_REM_ACCESS_ERR ||
	       status == IBV_WC_REM_OP_ERR;
}

typedef void (*recv_mutation)(struct rxe_recv_wqe *w, const struct ring *r);

/*
 * B's next receive WQE is valid but for @mut; A sends 3000 bytes. B must
 * complete the WQE with @status (-1: any error), A must see a remote
 * error, both end in ERROR, and nothing may be written except the
 * first @may_write bytes of DST (as SRC).
 */
static int bad_recv(struct pair *p, const char *what, recv_mutation mut,
		    int status, uint32_t may_write)
{
	uint32_t rp = ld(prod_of(&p->b.rq));
	struct rxe_recv_wqe *w;
	struct ibv_wc wc;
	uint64_t id;
	int ret = KSFT_PASS;

	regions_reset();
	w = wqe_recv(&p->b.rq, rp, 0xbec0, 0, 8192);
	mut(w, &p->b.rq);
	id = w->wr_id;
	st(prod_of(&p->b.rq), (rp + 1) & p->b.rq.mask);
	if (lib_send(&p->a, IBV_WR_SEND, 0x500, 0, 3000))
		FAIL("%s: post_send", what);
	if (!expect_wc(p->b.cq, id, status, &wc))
		FAIL("%s: receive completion", what);
	note("%s: receive completed with %s", what, wc_str(wc.status));
	if (!expect_wc(p->a.cq, 0x500, -1, &wc))
		FAIL("%s: send completion", what);
	if (!remote_error(wc.status))
		FAIL("%s: sender got %s, not a remote error", what,
		     wc_str(wc.status));
	if (!wait_qp_state(p->b.qp, IBV_QPS_ERR) ||
	    !wait_qp_state(p->a.qp, IBV_QPS_ERR))
		FAIL("%s: QPs not in ERROR", what);
	if (foreign_bytes(0, 16384) || !all_sentinel(may_write, 16384 - may_write))
		FAIL("%s: the receiver's memory was written where it must not be",
		     what);
	if (pair_reset(p))
		FAIL("%s: reset", what);
out:
	return ret;
}

static uint64_t recv_garbage_seed;

/* The receive mutations count themselves: one is garbage, the rest not. */
static void r_random(struct rxe_recv_wqe *w, const struct ring *r)
{
	uint8_t *b = (uint8_t *)w;
	size_t k;

	for (k = 0; k < slot_bytes(r); k++)
		b[k] = rnd64(&recv_garbage_seed) >> 40;
	hostile_add(H_GARBAGE, 1);
}

static void r_num_sge(struct rxe_recv_wqe *w, const struct ring *r)
{
	w->dma.num_sge = 0xffffffff;
	hostile_add(H_MALFORMED, 1);
}

/* One more SGE than every receive ring here was created with. */
static void r_num_sge_over(struct rxe_recv_wqe *w, const struct ring *r)
{
	w->dma.num_sge = MAX_SGE + 1;
	hostile_add(H_MALFORMED, 1);
}

static void r_lkey(struct rxe_recv_wqe *w, const struct ring *r)
{
	w->dma.sge[0].lkey ^= 0x5500;
	hostile_add(H_MALFORMED, 1);
}

/* Two SGEs of 4 GiB - 1, neither with a key of an MR. */
static void r_huge_bad_lkey(struct rxe_recv_wqe *w, const struct ring *r)
{
	w->dma.num_sge = 2;
	w->dma.sge[0].length = 0xffffffff;
	w->dma.sge[0].lkey ^= 0x5500;
	w->dma.sge[1] = w->dma.sge[0];
	w->dma.length = 0xfffffffe;
	hostile_add(H_MALFORMED, 1);
}

static void r_short(struct rxe_recv_wqe *w, const struct ring *r)
{
	w->dma.sge[0].length = 16;
	w->dma.length = 8192;	/* lies */
	hostile_add(H_MALFORMED, 1);
}

static void r_beyond_mr(struct rxe_recv_wqe *w, const struct ring *r)
{
	w->dma.sge[0].addr = (uintptr_t)buf + BUF_SIZE - 1024;
	hostile_add(H_MALFORMED, 1);
}

static int t_rq_garbage(void)
{
	struct pair p;
	int ret = KSFT_PASS;

	recv_garbage_seed = rng_state ^ 0x5eed;
	if (pair_create(&p, &conn_default, CQ_DEPTH, true))
		return KSFT_FAIL;
	if (bad_recv(&p, "random bytes", r_random, -1, 0) ||
	    bad_recv(&p, "num_sge 0xffffffff", r_num_sge, IBV_WC_LOC_LEN_ERR,
		     0) ||
	    bad_recv(&p, "lkey of no MR", r_lkey, -1, 0) ||
	    bad_recv(&p, "SGE past the end of the MR", r_beyond_mr, -1, 0) ||
	    bad_recv(&p, "16-byte buffer for 3000 bytes", r_short,
		     IBV_WC_LOC_LEN_ERR, 16))
		ret = KSFT_FAIL;
	if (pair_destroy(&p))
		ret = KSFT_FAIL;
	return ret;
}

static int t_rq_len(void)
{
	struct rxe_recv_wqe *w;
	struct ibv_wc wc;
	uint32_t rp, i;
	struct pair p;
	int ret = KSFT_PASS;

	if (pair_create(&p, &conn_default, CQ_DEPTH, true))
		return KSFT_FAIL;
	regions_reset();
	/* Three SGEs: 4 GiB - 1, 4 GiB - 1 and 16 bytes, all at DST. */
	rp = ld(prod_of(&p.b.rq));
	w = wqe_recv(&p.b.rq, rp, 0x510, 0, 0xffffffff);
	w->dma.num_sge = 3;
	for (i = 1; i < 3; i++)
		w->dma.sge[i] = w->dma.sge[0];
	w->dma.sge[2].length = 16;
	w->dma.length = 14;	/* the 32-bit sum */
	hostile_add(H_MALFORMED, 1);
	st(prod_of(&p.b.rq), (rp + 1) & p.b.rq.mask);
	if (lib_send(&p.a, IBV_WR_SEND, 0x511, 0, 3000))
		FAIL("post_send");
	if (wait_wcs(p.b.cq, &wc, 1) != 1)
		FAIL("no receive completion");
	if (wc.status == IBV_WC_SUCCESS) {
		/* The payload fits in the first SGE: fine, if exact. */
		if (wc.wr_id != 0x510 || wc.byte_len != 3000 ||
		    !dst_equals_src(0, 3000))
			FAIL("receive: wr_id %#llx byte_len %u, data %s",
			     (unsigned long long)wc.wr_id, wc.byte_len,
			     dst_equals_src(0, 3000) ? "right" : "wrong");
		if (!expect_wc(p.a.cq, 0x511, IBV_WC_SUCCESS, NULL))
			FAIL("send completion");
	} else {
		note("refused with %s", wc_str(wc.status));
		if (!wc_is(&wc, 0x510, -1))
			FAIL("receive completion");
		if (!expect_wc(p.a.cq, 0x511, -1, NULL))
			FAIL("send completion");
	}
	if (foreign_bytes(0, 65536) || !all_sentinel(3000, 65536 - 3000))
		FAIL("bytes written beyond the message");
out:
	if (pair_destroy(&p))
		ret = KSFT_FAIL;
	return ret;
}

static int t_rq_idx(void)
{
	struct ibv_wc wc[2];
	uint32_t rp, mask, cons;
	struct pair p;
	int ret = KSFT_PASS;

	if (pair_create(&p, &conn_default, CQ_DEPTH, true))
		return KSFT_FAIL;
	regions_reset();
	mask = p.b.rq.mask;
	rp = ld(prod_of(&p.b.rq));
	wqe_recv(&p.b.rq, rp, 0x520, 0, 8192);
	wqe_recv(&p.b.rq, rp + 1, 0x521, 8192, 8192);
	/* Bits above the mask in the producer, junk in the consumer. */
	st_hostile(prod_of(&p.b.rq), ((rp + 2) & mask) | 0x77000000);
	st_hostile(cons_of(&p.b.rq), ((rp + 9) & mask) | 0xdead0000);
	if (lib_send(&p.a, IBV_WR_SEND, 0x530, 0, 3000) ||
	    lib_send(&p.a, IBV_WR_SEND, 0x531, 8192, 2000))
		FAIL("post_send");
	if (wait_wcs(p.b.cq, wc, 2) != 2 ||
	    !wc_is(&wc[0], 0x520, IBV_WC_SUCCESS) ||
	    !wc_is(&wc[1], 0x521, IBV_WC_SUCCESS))
		FAIL("receive completions");
	if (wc[0].byte_len != 3000 || wc[1].byte_len != 2000 ||
	    !dst_equals_src(0, 3000) || !dst_equals_src(8192, 2000) ||
	    !all_sentinel(3000, 8192 - 3000) ||
	    !all_sentinel(8192 + 2000, 8192 - 2000))
		FAIL("received data or lengths wrong");
	if (wait_wcs(p.a.cq, wc, 2) != 2 ||
	    !wc_is(&wc[0], 0x530, IBV_WC_SUCCESS) ||
	    !wc_is(&wc[1], 0x531, IBV_WC_SUCCESS))
		FAIL("send completions");
	cons = ld(cons_of(&p.b.rq));
	if (cons != ((rp + 2) & mask))
		FAIL("receive consumer index %#x, expected the kernel's %#x",
		     cons, (rp + 2) & mask);
	/* librxe goes on from a masked producer index. */
	st(prod_of(&p.b.rq), (rp + 2) & mask);
	memset(dst_at(16384), SENTINEL, 4096);
	if (lib_recv(&p.b, 0x522, 16384, 4096) ||
	    lib_send(&p.a, IBV_WR_SEND, 0x532, 16384, 100) ||
	    !expect_wc(p.b.cq, 0x522, IBV_WC_SUCCESS, NULL) ||
	    !expect_wc(p.a.cq, 0x532, IBV_WC_SUCCESS, NULL) ||
	    !dst_equals_src(16384, 100))
		FAIL("the receive ring does not work afterwards");
out:
	if (pair_destroy(&p))
		ret = KSFT_FAIL;
	return ret;
}

/* --- the shared receive queue ------------------------------------------------------ */

#define SRQ_WR		31
#define SRQ_PAIRS	3	/* pairs whose B takes its receives from the SRQ */
#define SRQ_MSG		3000

/* What an SRQ's receive WQE may hold that must never be used. */
struct srq_bad {
	const char *what;
	recv_mutation mut;
	int status;		/* of the receive; -1: any error but a flush */
	uint32_t may_write;	/* bytes of its buffer the error may leave */
};

static const struct srq_bad srq_bad[] = {
	{ "num_sge max_sge + 1", r_num_sge_over, IBV_WC_LOC_LEN_ERR, 0 },
	{ "num_sge 0xffffffff", r_num_sge, IBV_WC_LOC_LEN_ERR, 0 },
	{ "two SGEs of 4 GiB - 1, lkey of no MR", r_huge_bad_lkey, -1, 0 },
	{ "lkey of no MR", r_lkey, -1, 0 },
	{ "SGE past the end of the MR", r_beyond_mr, -1, 0 },
	{ "16-byte buffer for 3000 bytes", r_short, IBV_WC_LOC_LEN_ERR, 16 },
	{ "random bytes", r_random, -1, 0 },
};

/* Each bad kind once and as many valid WQEs. */
#define SRQ_WQES	(2 * ARRAY_SIZE(srq_bad))

/* An SRQ and the pairs whose B QPs share it. */
struct srq_set {
	struct srqx s;
	struct pair p[SRQ_PAIRS];
};

static int srq_set_create(struct srq_set *t)
{
	int k;

	memset(t, 0, sizeof(*t));
	if (srqx_create(&t->s, SRQ_WR))
		return -1;
	for (k = 0; k < SRQ_PAIRS; k++) {
		if (pair_create_srq(&t->p[k], &conn_default, CQ_DEPTH, &t->s,
				    true)) {
			while (k--)
				pair_destroy(&t->p[k]);
			srqx_destroy(&t->s);
			return -1;
		}
	}
	return 0;
}

static int srq_set_destroy(struct srq_set *t)
{
	int k, err = 0;

	async_drain(NULL);
	for (k = 0; k < SRQ_PAIRS; k++)
		if (pair_destroy(&t->p[k]))
			err = -1;
	return srqx_destroy(&t->s) || err ? -1 : 0;
}

/*
 * Pair @k's A SENDs SRQ_MSG bytes from SRC[i * 4096], which must take WQE
 * @i of the SRQ (the next one, for a buffer at DST[i * 4096]). Valid
 * (@bad < 0), it receives them exactly. Bad (srq_bad[@bad]): B completes
 * it with the variant's status, A gets a remote error, both go to ERROR,
 * and B takes no other WQE of the SRQ: those are not B's to flush (B's
 * own flushed WRITEs come back to back on its CQ, and the SRQ's consumer
 * index stays at @cons_after). The pair is reset then.
 */
static int srq_take(struct srq_set *t, uint32_t i, int bad, uint64_t id,
		    unsigned int k, uint32_t cons_after)
{
	const struct srq_bad *v = bad >= 0 ? &srq_bad[bad] : NULL;
	const char *what = v ? v->what : "valid";
	struct pair *p = &t->p[k];
	uint32_t off = i * 4096, cons;
	struct ibv_wc wc;
	int ret = KSFT_PASS;

	if (lib_send(&p->a, IBV_WR_SEND, 0x5200 + i, off, SRQ_MSG))
		FAIL("WQE %u (%s): post_send", i, what);
	if (!expect_wc(p->b.cq, id, v ? v->status : IBV_WC_SUCCESS, &wc))
		FAIL("WQE %u (%s), SENT to pair %u: receive completion", i,
		     what, k);
	if (!v) {
		if (wc.byte_len != SRQ_MSG || !dst_equals_src(off, SRQ_MSG) ||
		    !all_sentinel(off + SRQ_MSG, 4096 - SRQ_MSG))
			FAIL("WQE %u (valid): byte_len %u, data %s", i,
			     wc.byte_len,
			     dst_equals_src(off, SRQ_MSG) ? "right" : "wrong");
		if (!expect_wc(p->a.cq, 0x5200 + i, IBV_WC_SUCCESS, NULL))
			FAIL("WQE %u (valid): send completion", i);
		goto out;
	}
	note("WQE %u (%s), pair %u: receive completed with %s", i, what, k,
	     wc_str(wc.status));
	if (!expect_wc(p->a.cq, 0x5200 + i, -1, &wc))
		FAIL("WQE %u (%s): send completion", i, what);
	if (!remote_error(wc.status))
		FAIL("WQE %u (%s): sender got %s, not a remote error", i, what,
		     wc_str(wc.status));
	if (!wait_qp_state(p->b.qp, IBV_QPS_ERR) ||
	    !wait_qp_state(p->a.qp, IBV_QPS_ERR))
		FAIL("WQE %u (%s): QPs not in ERROR", i, what);
	if (lib_send(&p->b, IBV_WR_RDMA_WRITE, 0x5400 + i, off, 64) ||
	    !expect_wc(p->b.cq, 0x5400 + i, IBV_WC_WR_FLUSH_ERR, NULL) ||
	    lib_send(&p->b, IBV_WR_RDMA_WRITE, 0x5480 + i, off, 64) ||
	    !expect_wc(p->b.cq, 0x5480 + i, IBV_WC_WR_FLUSH_ERR, NULL))
		FAIL("WQE %u (%s): B in ERROR does not flush just its own WRITEs",
		     i, what);
	cons = ld(cons_of(&t->s.r));
	if (cons != cons_after)
		FAIL("WQE %u (%s): SRQ consumer index %#x, expected %#x: a QP in ERROR took WQEs of the SRQ",
		     i, what, cons, cons_after);
	if (!all_sentinel(off + v->may_write, 4096 - v->may_write))
		FAIL("WQE %u (%s): bytes written into its buffer", i, what);
	if (pair_reset(p))
		FAIL("WQE %u (%s): reset", i, what);
out:
	return ret;
}

/*
 * Bad WQEs on an SRQ three QPs share, taken one at a time: each kind of
 * srq_bad once and as many valid WQEs, in an order the seed shuffles,
 * handed over with producer indices some rings ahead or with bits above
 * the mask, and junk in the consumer index (the kernel's); a pair the
 * seed picks SENDs for each. Whatever a bad WQE did to the QP that took
 * it, the next WQE goes to the next SEND. A producer index a whole ring
 * ahead is no WQE at all: the SEND meets an empty SRQ (RNR NAKs until the
 * sender gives up) and nothing is taken. Then every pair still receives
 * through librxe.
 */
static int t_srq_wqes(void)
{
	uint64_t rs = case_rng(0x5352510001ULL), ids[SRQ_WQES];
	unsigned int events[32] = { 0 }, k;
	uint32_t mask, size, p0, i, j, cons;
	int kind[SRQ_WQES], tmp;
	struct srq_set t;
	struct ibv_wc wc;
	int ret = KSFT_PASS;

	if (srq_set_create(&t))
		return KSFT_FAIL;
	regions_reset();
	async_drain(NULL);
	recv_garbage_seed = rnd64(&rs);
	mask = t.s.r.mask;
	size = mask + 1;
	p0 = ld(prod_of(&t.s.r));
	for (i = 0; i < SRQ_WQES; i++)
		kind[i] = i < ARRAY_SIZE(srq_bad) ? (int)i : -1;
	for (i = SRQ_WQES - 1; i > 0; i--) {
		j = rnd32(&rs) % (i + 1);
		tmp = kind[i];
		kind[i] = kind[j];
		kind[j] = tmp;
	}
	for (i = 0; i < SRQ_WQES; i++) {
		struct rxe_recv_wqe *w = wqe_recv(&t.s.r, p0 + i, 0x5100 + i,
						  i * 4096, 4096);

		if (kind[i] >= 0)
			srq_bad[kind[i]].mut(w, &t.s.r);
		ids[i] = w->wr_id;
	}
	kidx_scribble(&t.s.r, rnd32(&rs));

	/* The first half, a few rings ahead. */
	st_hostile(prod_of(&t.s.r), p0 + SRQ_WQES / 2 + 3 * size);
	for (i = 0; i < SRQ_WQES / 2; i++)
		if (srq_take(&t, i, kind[i], ids[i], rnd32(&rs) % SRQ_PAIRS,
			     (p0 + i + 1) & mask))
			FAIL("the SRQ mishandled WQE %u", i);

	/* A whole ring further is no new WQE. */
	st_hostile(prod_of(&t.s.r), p0 + SRQ_WQES / 2 + 4 * size);
	k = rnd32(&rs) % SRQ_PAIRS;
	cons = ld(cons_of(&t.s.r));
	if (lib_send(&t.p[k].a, IBV_WR_SEND, 0x52ff, 0, SRQ_MSG) ||
	    !expect_wc(t.p[k].a.cq, 0x52ff, IBV_WC_RNR_RETRY_EXC_ERR, NULL))
		FAIL("a SEND to an SRQ whose producer index is a ring ahead");
	if (ibv_poll_cq(t.p[k].b.cq, 1, &wc) != 0 ||
	    ld(cons_of(&t.s.r)) != cons)
		FAIL("a WQE was taken from an SRQ whose producer index is a whole ring ahead");
	if (qp_state(t.p[k].b.qp) != IBV_QPS_RTS)
		FAIL("the receiver left RTS over an empty SRQ");
	if (pair_reset(&t.p[k]))
		FAIL("reset after the RNR");

	/* The second half, with bits above the mask. */
	st_hostile(prod_of(&t.s.r), ((p0 + SRQ_WQES) & mask) | 0xa5000000);
	for (i = SRQ_WQES / 2; i < SRQ_WQES; i++)
		if (srq_take(&t, i, kind[i], ids[i], rnd32(&rs) % SRQ_PAIRS,
			     (p0 + i + 1) & mask))
			FAIL("the SRQ mishandled WQE %u", i);
	if (ld(cons_of(&t.s.r)) != ((p0 + SRQ_WQES) & mask))
		FAIL("SRQ consumer index %#x, expected the kernel's %#x",
		     ld(cons_of(&t.s.r)), (p0 + SRQ_WQES) & mask);
	if (foreign_bytes(0, (SRQ_WQES + 2) * 4096))
		FAIL("bytes the SENDs never carried in the receive buffers");

	/* librxe goes on from a masked producer index. */
	st(prod_of(&t.s.r), (p0 + SRQ_WQES) & mask);
	for (k = 0; k < SRQ_PAIRS; k++)
		if (!round_trip(&t.p[k], 0x5300 + 16 * k, 65536 + k * 8192,
				4096))
			FAIL("pair %u does not receive through the SRQ afterwards",
			     k);
	/*
	 * Each time a QP of the SRQ entered ERROR it took no more from it:
	 * IBA's Last WQE Reached, once per entry (it may lag behind).
	 */
	async_wait_count(events, IBV_EVENT_QP_LAST_WQE_REACHED,
			 ARRAY_SIZE(srq_bad));
	note("a QP of the SRQ went to ERROR %zu times; %u IBV_EVENT_QP_LAST_WQE_REACHED",
	     ARRAY_SIZE(srq_bad), events[IBV_EVENT_QP_LAST_WQE_REACHED]);
	if (events[IBV_EVENT_QP_LAST_WQE_REACHED] != ARRAY_SIZE(srq_bad))
		FAIL("%u Last WQE Reached events for %zu entries into ERROR",
		     events[IBV_EVENT_QP_LAST_WQE_REACHED], ARRAY_SIZE(srq_bad));
out:
	if (srq_set_destroy(&t))
		ret = KSFT_FAIL;
	return ret;
}

#define STORM_ROUNDS	8
#define STORM_EARLY	12	/* WQEs handed over before the SENDs */
#define STORM_LATE	3	/* and while they are under way */
#define STORM_WQES	(STORM_EARLY + STORM_LATE)
#define STORM_SENDS	3	/* by each pair's A in a round */
#define STORM_LEN	2000
#define STORM_BUF	8192	/* WQE j's buffer is DST[j * STORM_BUF...] */

struct storm_wqe {
	uint64_t id;
	int bad;		/* -1: valid, else an index in srq_bad */
	bool done;
};

struct storm_stats {
	unsigned int wqes, taken, delivered, refused, withdrawn, send_errors;
};

/* WQE @j of a round in slot @index: valid 7 times in 10, else bad. */
static void storm_write(struct srqx *s, struct storm_wqe *q, uint32_t index,
			uint32_t j, uint32_t r, uint64_t id)
{
	struct rxe_recv_wqe *w = wqe_recv(&s->r, index, id, j * STORM_BUF,
					  STORM_BUF);

	q->bad = r % 10 < 7 ? -1 : (int)((r >> 8) % ARRAY_SIZE(srq_bad));
	if (q->bad >= 0)
		srq_bad[q->bad].mut(w, &s->r);
	q->id = w->wr_id;
	q->done = false;
}

/* Bytes of DST[off, off + len) that are neither untouched nor REF[i]. */
static bool holds_ref_or_sentinel(uint32_t off, uint32_t len)
{
	uint32_t i;

	for (i = 0; i < len; i++)
		if (dst_at(off)[i] != SENTINEL && dst_at(off)[i] != ref[i])
			return false;
	return true;
}

/*
 * A receive completion of a round: one of the first @taken WQEs (the SRQ
 * hands them out in order), not completed before; a valid one received
 * the SEND exactly, a bad one failed and wrote at most what its kind may.
 */
static bool storm_match(struct storm_wqe *q, uint32_t taken,
			const struct ibv_wc *wc, struct storm_stats *stats)
{
	uint32_t j, off, may;

	for (j = 0; j < taken; j++)
		if (q[j].id == wc->wr_id && !q[j].done)
			break;
	if (j == taken) {
		note("receive completion (%s) for wr_id %#llx: not one of the %u WQEs taken, or completed twice",
		     wc_str(wc->status), (unsigned long long)wc->wr_id, taken);
		return false;
	}
	q[j].done = true;
	off = j * STORM_BUF;
	if (q[j].bad < 0) {
		stats->delivered++;
		if (wc->status != IBV_WC_SUCCESS || wc->byte_len != STORM_LEN ||
		    memcmp(dst_at(off), ref, STORM_LEN) ||
		    !all_sentinel(off + STORM_LEN, STORM_BUF - STORM_LEN)) {
			note("valid WQE %u: %s, byte_len %u, data %s", j,
			     wc_str(wc->status), wc->byte_len,
			     memcmp(dst_at(off), ref, STORM_LEN) ? "wrong" :
								   "right");
			return false;
		}
		return true;
	}
	stats->refused++;
	may = srq_bad[q[j].bad].may_write;
	if (wc->status == IBV_WC_SUCCESS || wc->status == IBV_WC_WR_FLUSH_ERR ||
	    !holds_ref_or_sentinel(off, may) ||
	    !all_sentinel(off + may, STORM_BUF - may)) {
		note("bad WQE %u (%s) completed with %s, its buffer %s", j,
		     srq_bad[q[j].bad].what, wc_str(wc->status),
		     all_sentinel(off + may, STORM_BUF - may) ? "clean" :
								 "written");
		return false;
	}
	return true;
}

/* What a SEND may end with here: delivered, refused, or given up on. */
static bool storm_send_status_ok(int status)
{
	return status == IBV_WC_SUCCESS || remote_error(status) ||
	       status == IBV_WC_RETRY_EXC_ERR ||
	       status == IBV_WC_RNR_RETRY_EXC_ERR;
}

/*
 * One round: WQEs on the SRQ, SENDs from every pair at once, more WQEs
 * and junk in the consumer index while they are under way; then every
 * SEND completes (after its first failure, flushed), every WQE taken
 * completes once, in SRQ order, and nothing else arrived.
 */
static int storm_round(struct srq_set *t, uint64_t *rs, unsigned int round,
		       struct storm_stats *stats)
{
	struct ibv_wc wc[STORM_SENDS * SRQ_PAIRS];
	struct storm_wqe q[STORM_WQES];
	uint32_t mask = t->s.r.mask, p0, taken, got = 0, j, r;
	unsigned int k, m;
	uint64_t end;
	int ret = KSFT_PASS, n;
	bool failed;

	regions_reset();
	p0 = ld(prod_of(&t->s.r));
	if (ld(cons_of(&t->s.r)) != p0)
		FAIL("round %u: the SRQ is not empty to begin with", round);
	for (j = 0; j < STORM_EARLY; j++)
		storm_write(&t->s, &q[j], p0 + j, j, rnd32(rs),
			    0x6000 + round * 64 + j);
	r = rnd32(rs);
	st_hostile(prod_of(&t->s.r),
		   r & 1 ? p0 + STORM_EARLY + (1 + (r >> 1) % 7) * (mask + 1) :
			   ((p0 + STORM_EARLY) & mask) | (r & ~mask) |
			   (mask + 1));
	for (k = 0; k < SRQ_PAIRS; k++)
		for (m = 0; m < STORM_SENDS; m++)
			if (lib_send(&t->p[k].a, IBV_WR_SEND,
				     0x7000 + round * 64 + k * 8 + m, 0,
				     STORM_LEN))
				FAIL("round %u: post_send", round);
	kidx_scribble(&t->s.r, rnd32(rs));
	for (j = STORM_EARLY; j < STORM_WQES; j++)
		storm_write(&t->s, &q[j], p0 + j, j, rnd32(rs),
			    0x6000 + round * 64 + j);
	st_hostile(prod_of(&t->s.r), ((p0 + STORM_WQES) & mask) | 0x5a000000);
	stats->wqes += STORM_WQES;

	for (k = 0; k < SRQ_PAIRS; k++) {
		if (wait_wcs(t->p[k].a.cq, wc, STORM_SENDS) != STORM_SENDS)
			FAIL("round %u, pair %u: fewer than %u send completions within %u ms",
			     round, k, STORM_SENDS, wait_ms);
		for (m = 0, failed = false; m < STORM_SENDS; m++) {
			int s = wc[m].status;

			if (wc[m].wr_id != 0x7000 + round * 64 + k * 8 + m ||
			    (failed ? s != IBV_WC_WR_FLUSH_ERR :
				      !storm_send_status_ok(s)))
				FAIL("round %u, pair %u: SEND %u completed as wr_id %#llx with %s",
				     round, k, m,
				     (unsigned long long)wc[m].wr_id, wc_str(s));
			if (s != IBV_WC_SUCCESS) {
				failed = true;
				stats->send_errors++;
			}
		}
	}

	kidx_restore(&t->s.r);
	taken = (ld(cons_of(&t->s.r)) - p0) & mask;
	if (taken > STORM_SENDS * SRQ_PAIRS)
		FAIL("round %u: %u WQEs taken for %u SENDs", round, taken,
		     STORM_SENDS * SRQ_PAIRS);
	end = now_ms() + wait_ms;
	while (got < taken && now_ms() <= end) {
		for (k = 0; k < SRQ_PAIRS; k++) {
			n = ibv_poll_cq(t->p[k].b.cq, ARRAY_SIZE(wc), wc);
			if (n < 0)
				FAIL("round %u: ibv_poll_cq failed", round);
			for (m = 0; m < (unsigned int)n; m++, got++)
				if (!storm_match(q, taken, &wc[m], stats))
					FAIL("round %u, pair %u", round, k);
		}
		if (got < taken)
			nap();
	}
	if (got != taken)
		FAIL("round %u: %u receive completions for %u WQEs taken",
		     round, got, taken);
	for (k = 0; k < SRQ_PAIRS; k++)
		if (ibv_poll_cq(t->p[k].b.cq, 1, wc) != 0)
			FAIL("round %u: more receive completions than WQEs taken",
			     round);
	for (j = taken; j < STORM_WQES; j++)
		if (!all_sentinel(j * STORM_BUF, STORM_BUF))
			FAIL("round %u: the buffer of WQE %u, never taken, was written",
			     round, j);
	if (!all_sentinel(STORM_WQES * STORM_BUF, 16384))
		FAIL("round %u: bytes beyond the receive buffers", round);
	stats->taken += taken;

	for (k = 0; k < SRQ_PAIRS; k++)
		if (pair_reset(&t->p[k]))
			FAIL("round %u: reset of pair %u", round, k);
	/* Userspace takes back what is left: the SRQ starts empty again. */
	stats->withdrawn += STORM_WQES - taken;
	st(prod_of(&t->s.r), ld(cons_of(&t->s.r)));
out:
	return ret;
}

/*
 * Three QPs share an SRQ; their peers SEND to all three at once while
 * the SRQ holds valid and bad WQEs (srq_bad) in a seeded mix and this
 * thread hands over more, with producer indices rings ahead or with bits
 * above the mask, and writes junk into the consumer index. See
 * storm_round() for what each round asserts. Afterwards one of the QPs
 * is destroyed and created again on the SRQ, and every pair receives
 * through it exactly.
 */
static int t_srq_storm(void)
{
	struct ibv_qp_attr reset = { .qp_state = IBV_QPS_RESET };
	uint64_t rs = case_rng(0x5352510002ULL);
	struct storm_stats stats = { 0 };
	struct srq_set t;
	unsigned int i;
	int ret = KSFT_PASS;

	if (srq_set_create(&t))
		return KSFT_FAIL;
	recv_garbage_seed = rnd64(&rs);
	for (i = 0; i < STORM_ROUNDS; i++)
		if (storm_round(&t, &rs, i, &stats))
			FAIL("round %u", i);
	note("%u rounds: %u WQEs handed over, %u taken (%u delivered, %u refused), %u withdrawn; %u SENDs refused or flushed",
	     STORM_ROUNDS, stats.wqes, stats.taken, stats.delivered,
	     stats.refused, stats.withdrawn, stats.send_errors);

	if (qpx_destroy(&t.p[0].b) ||
	    qpx_create(&t.p[0].b, IBV_QPT_RC, CQ_DEPTH, &t.s) ||
	    qp_modify(t.p[0].a.qp, &reset, IBV_QP_STATE, "RESET") ||
	    pair_connect(&t.p[0]))
		FAIL("a QP cannot be created again on the SRQ");
	regions_reset();
	for (i = 0; i < SRQ_PAIRS; i++)
		if (!round_trip(&t.p[i], 0x7f00 + 16 * i, 131072 + i * 8192,
				4096))
			FAIL("pair %u does not receive through the SRQ after the storm",
			     i);
out:
	if (srq_set_destroy(&t))
		ret = KSFT_FAIL;
	return ret;
}

/* --- a WQE rewritten after the kernel sent part of it ------------------------------ */

#define RESUME_LEN	4096	/* four packets at a path MTU of 1024 */

/*
 * A 4-packet RDMA WRITE with immediate to a QP with no receive posted:
 * the first three packets are placed, the last is refused with an RNR
 * NAK, and after the RNR delay (164 ms) the requester sends again from
 * the fourth packet, reading the WQE from the ring once more. Meanwhile
 * this rewrites the WQE with @rewrite. Whatever the kernel makes of it,
 * the only bytes that may reach the destination are the WQE's source
 * bytes, at their own offsets.
 */
static int resume_rewritten(send_mutation rewrite)
{
	const struct conn c = { .timeout = 12, .retry_cnt = 2, .rnr_retry = 6,
				.min_rnr_timer = 28 };
	struct rxe_send_wqe *w;
	struct ibv_wc wc;
	long long rnr0, rnr;
	uint64_t end;
	uint32_t sp;
	struct pair p;
	int ret = KSFT_PASS;

	if (pair_create(&p, &c, CQ_DEPTH, true))
		return KSFT_FAIL;
	regions_reset();
	rnr0 = hw_counter("rcvd_rnr_err");
	if (rnr0 < 0)
		FAIL("no rcvd_rnr_err counter for %s", dev_name);
	sp = ld(prod_of(&p.a.sq));
	w = wqe_write(&p.a, sp, 0x600, 0, RESUME_LEN);
	w->wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
	w->wr.ex.imm_data = htobe32(0x600);
	if (sq_publish(&p.a, 1))
		FAIL("doorbell refused");
	end = now_ms() + wait_ms;
	while ((rnr = hw_counter("rcvd_rnr_err")) == rnr0 && now_ms() < end)
		nap();
	if (rnr == rnr0)
		FAIL("no RNR NAK within %u ms", wait_ms);
	if (!dst_equals_src(0, RESUME_LEN - 1024))
		note("the first three packets are not all there");
	rewrite(w, &p.a);
	hostile_add(H_REWRITE, 1);
	if (wait_wcs(p.a.cq, &wc, 1) != 1)
		FAIL("no completion for the rewritten WQE within %u ms",
		     wait_ms);
	if (wc.wr_id != 0x600)
		FAIL("completion for wr_id %#llx, expected 0x600",
		     (unsigned long long)wc.wr_id);
	note("rewritten WQE completed with %s; %lld RNR NAKs", wc_str(wc.status),
	     hw_counter("rcvd_rnr_err") - rnr0);
	if (foreign_bytes(0, 2 * RESUME_LEN))
		FAIL("the kernel sent bytes the WQE never pointed to");
	if (!all_sentinel(RESUME_LEN, RESUME_LEN))
		FAIL("bytes beyond the message were written");
	if (wc.status == IBV_WC_SUCCESS && !dst_equals_src(0, RESUME_LEN))
		FAIL("completed successfully without delivering the message");
out:
	if (pair_destroy(&p))
		ret = KSFT_FAIL;
	return ret;
}

static void rw_shorter(struct rxe_send_wqe *w, struct qpx *x)
{
	w->dma.sge[0].length = 16;
	w->dma.length = 16;
	w->dma.resid = 16;
}

static void rw_inline(struct rxe_send_wqe *w, struct qpx *x)
{
	w->dma.length = 16;
	w->dma.resid = 16;
	memcpy(w->dma.inline_data, ref, 16);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	w->wr.send_flags |= IBV_SEND_INLINE;
}

static int t_resume_shorter(void)
{
	return resume_rewritten(rw_shorter);
}

static int t_resume_inline(void)
{
	return resume_rewritten(rw_inline);
}

/* --- a thread scribbling over a WQE while the kernel sends it ------------------------ */

#define RACE_LEN	(128u * 1024)
#define RACE_ITERS	100
#define RACE_MS		5000

struct scribbler {
	pthread_t thread;
	struct rxe_send_wqe *w;
	struct rxe_send_wqe *orig;
	size_t orig_len;
	uint32_t max_inline;
	uint64_t rng;
	unsigned long writes;
	int stop;
};

static void put32(uint32_t *p, uint32_t v)
{
	__atomic_store_n(p, v, __ATOMIC_RELAXED);
}

/*
 * Field rewrites that keep one property: no byte the WQE could
 * legitimately send lands at a destination offset of max_inline or more
 * unless it is the source byte of that offset (remote address and SGE
 * addresses are never changed, inline data only covers the first
 * max_inline bytes).
 */
static void *scribble(void *arg)
{
	static const uint32_t opcodes[] = {
		IBV_WR_RDMA_WRITE_WITH_IMM, IBV_WR_SEND, IBV_WR_SEND_WITH_IMM,
		IBV_WR_LOCAL_INV, 0x12345678,
	};
	struct scribbler *s = arg;
	struct rxe_send_wqe *w = s->w;
	uint32_t r;

	while (!__atomic_load_n(&s->stop, __ATOMIC_ACQUIRE)) {
		r = rnd64(&s->rng) >> 32;
		/*
		 * Mostly the original and its inline twin, so that the WQE
		 * often starts as one and is read again as the other.
		 */
		switch (r % 16) {
		case 0 ... 2:
			put32(&w->dma.length, 1 + (r >> 8) % s->max_inline);
			put32(&w->wr.send_flags,
			      w->wr.send_flags | IBV_SEND_INLINE);
			break;
		case 3:
			put32(&w->dma.num_sge, r & 1 ? 0xffffffff : MAX_SGE + 1);
			break;
		case 4:
			put32(&w->dma.sge[1].length, 0xffffffff);
			break;
		case 5:
			put32(&w->dma.sge[1].length, 100);
			break;
		case 6:
			put32(&w->dma.sge[0].lkey, s->orig->dma.sge[0].lkey ^
						  0x5500);
			break;
		case 7:
			put32(&w->wr.wr.rdma.rkey, s->orig->wr.wr.rdma.rkey ^
						   0x5500);
			break;
		case 8:
			put32(&w->wr.opcode,
			      opcodes[(r >> 8) % ARRAY_SIZE(opcodes)]);
			break;
		case 9:
			/* Signaled stays: a silent success would look like a hang. */
			put32(&w->wr.send_flags,
			      ((r >> 8) & 0x1f) | IBV_SEND_SIGNALED);
			break;
		default:
			memcpy(w, s->orig, s->orig_len);
			break;
		}
		__atomic_store_n(&s->writes, s->writes + 1, __ATOMIC_RELEASE);
	}
	return NULL;
}

static int t_race(void)
{
	const struct conn c = { .timeout = 12, .retry_cnt = 3, .rnr_retry = 2,
				.min_rnr_timer = 1 };
	unsigned int it, good = 0, resets = 0, statuses[32] = { 0 };
	struct rxe_send_wqe *w, *orig = NULL;
	struct scribbler s;
	uint64_t start = now_ms();
	unsigned long writes = 0;
	struct ibv_wc wc;
	struct pair p;
	int ret = KSFT_PASS, err, n;
	uint32_t sp;

	if (pair_create(&p, &c, CQ_DEPTH, true))
		return KSFT_FAIL;
	orig = malloc(slot_bytes(&p.a.sq));
	if (!orig)
		FAIL("out of memory");
	for (it = 0; it < RACE_ITERS && now_ms() - start < RACE_MS; it++) {
		memcpy(src_at(0), ref, RACE_LEN);
		memset(dst_at(0), SENTINEL, RACE_LEN + 4096);
		sp = ld(prod_of(&p.a.sq));
		/* 128 KiB in two SGEs of 64 KiB: two send windows' worth. */
		w = wqe_write(&p.a, sp, 0x700 + it, 0, RACE_LEN);
		w->dma.num_sge = 2;
		w->dma.sge[0].length = RACE_LEN / 2;
		w->dma.sge[1] = w->dma.sge[0];
		w->dma.sge[1].addr += RACE_LEN / 2;
		memcpy(orig, w, slot_bytes(&p.a.sq));
		st(prod_of(&p.a.sq), (sp + 1) & p.a.sq.mask);

		memset(&s, 0, sizeof(s));
		s.w = w;
		s.orig = orig;
		s.orig_len = sizeof(*w) + 2 * sizeof(struct rxe_sge);
		s.max_inline = p.a.cap.max_inline_data;
		s.rng = rng_state + it;
		if (pthread_create(&s.thread, NULL, scribble, &s))
			FAIL("pthread_create");
		err = scribbler_running(&s.writes) ? doorbell(p.a.qp) :
						     ETIMEDOUT;
		n = err ? 0 : wait_wcs(p.a.cq, &wc, 1);
		__atomic_store_n(&s.stop, 1, __ATOMIC_RELEASE);
		pthread_join(s.thread, NULL);
		writes += s.writes;
		racing_stores += s.writes;
		if (err)
			FAIL("iteration %u: doorbell: %s", it, strerror(err));
		if (n != 1)
			FAIL("iteration %u: no completion within %u ms", it,
			     wait_ms);
		if (wc.wr_id != 0x700 + it)
			FAIL("iteration %u: completion (%s) for wr_id %#llx", it,
			     wc_str(wc.status), (unsigned long long)wc.wr_id);
		statuses[wc.status & 31]++;
		if (foreign_bytes(p.a.cap.max_inline_data, RACE_LEN + 4096))
			FAIL("iteration %u: the kernel sent bytes the WQE never pointed to (completion %s)",
			     it, wc_str(wc.status));
		if (wc.status == IBV_WC_SUCCESS)
			good++;
		if (wc.status != IBV_WC_SUCCESS ||
		    qp_state(p.a.qp) != IBV_QPS_RTS ||
		    qp_state(p.b.qp) != IBV_QPS_RTS) {
			if (pair_reset(&p))
				FAIL("iteration %u: reset", it);
			resets++;
		}
		cq_drain(p.b.cq);
	}
	note("%u iterations, %lu rewrites, %u successful, %u resets", it,
	     writes, good, resets);
	for (n = 0; n < 32; n++)
		if (statuses[n])
			note("  %u x %s", statuses[n], wc_str(n));
	/* The pair, reset, still moves data. */
	if (pair_reset(&p))
		FAIL("reset");
	memcpy(src_at(0), ref, RACE_LEN);
	memset(dst_at(0), SENTINEL, RACE_LEN);
	if (lib_send(&p.a, IBV_WR_RDMA_WRITE, 0x7ff, 0, RACE_LEN) ||
	    !expect_wc(p.a.cq, 0x7ff, IBV_WC_SUCCESS, NULL) ||
	    !dst_equals_src(0, RACE_LEN))
		FAIL("the pair does not work after the race");
out:
	free(orig);
	if (pair_destroy(&p))
		ret = KSFT_FAIL;
	return ret;
}

/* --- a seeded random walk over every ring ------------------------------------------- */

#define WALK_PAIRS	5
#define WALK_RQ_PAIRS	2	/* the other pairs' B QPs share one SRQ */
#define WALK_QPS	(2 * WALK_PAIRS)
#define WALK_RINGS	(3 * WALK_QPS + 1)	/* SQ, RQ, CQ of each, the SRQ */
#define WALK_WIN	(64u * 1024)	/* each pair's part of SRC and DST */
#define WALK_SLOTS	14	/* 4 KiB message slots in it; then probes */
#define WALK_ID		0x3a1c000000000000ULL

enum walk_act {
	W_POST, W_RECV, W_RAW, W_MALFORMED, W_GARBAGE, W_PROD, W_CONS,
	W_DOORBELL, W_REWRITE, W_POLL, W_RESET, W_NR,
};

/* The menu, and how often each action is drawn (weight in the sum). */
static const struct {
	const char *name;
	unsigned int weight;
} walk_menu[W_NR] = {
	[W_POST] = { "librxe sends", 12 },
	[W_RECV] = { "librxe receives", 10 },
	[W_RAW] = { "valid WQEs by hand", 6 },
	[W_MALFORMED] = { "malformed WQEs", 8 },
	[W_GARBAGE] = { "garbage slots", 6 },
	[W_PROD] = { "producer index writes", 6 },
	[W_CONS] = { "consumer index writes", 6 },
	[W_DOORBELL] = { "bare doorbells", 4 },
	[W_REWRITE] = { "rewrites of the last WQE", 6 },
	[W_POLL] = { "polls", 12 },
	[W_RESET] = { "pair resets", 3 },
};

static const send_mutation walk_send_bad[] = {
	m_num_sge_max, m_num_sge_over, m_sge_past_4g, m_sge_wraps_to_zero,
	m_sge_four_max, m_inline_one_over, m_inline_huge, m_inline_slot,
	m_lkey_index, m_lkey_generation, m_addr_beyond_mr, m_addr_wraps,
	m_rkey, m_raddr_beyond_mr, m_read_bad_rkey, m_opcode_huge,
	m_opcode_local_inv, m_opcode_bind_mw, m_opcode_first_unused,
};

/* What may happen to a WQE the kernel is working on (as in t_race). */
static const send_mutation walk_rewrites[] = {
	rw_shorter, rw_inline, m_num_sge_max, m_lkey_index, m_rkey,
	m_opcode_huge, m_opcode_local_inv, m_inline_huge,
};

static const recv_mutation walk_recv_bad[] = {
	r_num_sge, r_num_sge_over, r_lkey, r_huge_bad_lkey, r_short,
	r_beyond_mr,
};

/*
 * Pairs 0 .. WALK_RQ_PAIRS - 1 receive on their own RQs, the others' B
 * QPs on the SRQ; QP i is pair i / 2's A (even) or B (odd).
 */
struct walk {
	struct srqx srq;
	struct pair p[WALK_PAIRS];
	struct ring *rings[WALK_RINGS];
	struct qpx *sq_owner[WALK_RINGS];	/* of a send ring, else NULL */
	unsigned int nrings;
	unsigned long acts[W_NR];
	unsigned long refused;			/* posts librxe refused */
	unsigned long masked;			/* indices uidx_mask() fixed */
	unsigned long wcs[IBV_WC_GENERAL_ERR + 2]; /* by status; last: junk */
	unsigned int events[32];
	uint64_t digest;
};

static struct qpx *walk_qp(struct walk *w, unsigned int i)
{
	return i & 1 ? &w->p[i / 2].b : &w->p[i / 2].a;
}

static enum walk_act walk_kind(uint32_t pick)
{
	unsigned int sum = 0, k;

	for (k = 0; k < W_NR; k++)
		sum += walk_menu[k].weight;
	pick %= sum;
	for (k = 0; pick >= walk_menu[k].weight; k++)
		pick -= walk_menu[k].weight;
	return k;
}

static uint64_t fnv(uint64_t h, uint64_t v)
{
	return (h ^ v) * 0x100000001b3ULL;
}

static int walk_create(struct walk *w)
{
	unsigned int i, k;

	memset(w, 0, sizeof(*w));
	w->digest = 0xcbf29ce484222325ULL;
	if (srqx_create(&w->srq, SRQ_WR))
		return -1;
	for (k = 0; k < WALK_PAIRS; k++)
		if (pair_create_srq(&w->p[k], &conn_default, CQ_DEPTH,
				    k < WALK_RQ_PAIRS ? NULL : &w->srq, true))
			return -1;
	for (i = 0; i < WALK_QPS; i++) {
		struct qpx *x = walk_qp(w, i);

		w->sq_owner[w->nrings] = x;
		w->rings[w->nrings++] = &x->sq;
		if (!x->srq)
			w->rings[w->nrings++] = &x->rq;
		w->rings[w->nrings++] = &x->cqr;
	}
	w->rings[w->nrings++] = &w->srq.r;
	return 0;
}

static int walk_destroy(struct walk *w)
{
	int k, err = 0;

	async_drain(w->events);
	for (k = 0; k < WALK_PAIRS; k++)
		if (pair_destroy(&w->p[k]))
			err = -1;
	return srqx_destroy(&w->srq) || err ? -1 : 0;
}

/*
 * A producer index out of range: userspace's own of a work queue (rings
 * ahead, bits above the mask, anything, or stale slots within the ring
 * handed over), with a doorbell for a send ring half of the time; the
 * kernel's of a CQ. Userspace's stays until a WQE is published by hand
 * after it, the QP is reset, or librxe posts to the ring (uidx_mask()
 * first).
 */
static int walk_prod(struct walk *w, unsigned int ri, uint32_t a, uint32_t b)
{
	struct ring *r = w->rings[ri];
	uint32_t cur, n = (b >> 2) % 4, v;
	int err;

	if (r->is_cq) {
		kidx_scribble(r, a);
		return 0;
	}
	cur = ld(prod_of(r)) & r->mask;
	switch (b % 4) {
	case 0:
		v = cur + n + (1 + (b >> 4) % 7) * (r->mask + 1);
		break;
	case 1:
		v = ((cur + n) & r->mask) | (a & ~r->mask) | (r->mask + 1);
		break;
	case 2:
		v = a;
		break;
	default:
		v = a & r->mask;
		break;
	}
	st_hostile(prod_of(r), v);
	if (!w->sq_owner[ri] || !(b & 0x100))
		return 0;
	err = doorbell(w->sq_owner[ri]->qp);
	if (err)
		note("doorbell: %s", strerror(err));
	return err;
}

/*
 * A consumer index out of range: the kernel's of a work queue; userspace's
 * own of a CQ (one ahead of the producer: the CQ looks full; completions
 * read already handed back; anything; all consumed with junk above),
 * which stays until librxe polls the CQ (uidx_mask() first).
 */
static void walk_cons(struct ring *r, uint32_t a, uint32_t b)
{
	uint32_t prod, v;

	if (!r->is_cq) {
		kidx_scribble(r, a);
		return;
	}
	prod = ld(prod_of(r)) & r->mask;
	switch (b % 4) {
	case 0:
		v = prod + 1;
		break;
	case 1:
		v = (prod - 1 - (b >> 2) % 8) & r->mask;
		break;
	case 2:
		v = a;
		break;
	default:
		v = prod | (a & ~r->mask) | (r->mask + 1);
		break;
	}
	st_hostile(cons_of(r), v);
}

/* WQE slot @index of @r, filled with bytes of the generator @g. */
static void fill_garbage(struct ring *r, uint32_t index, uint64_t g)
{
	uint8_t *p = slot(r, index);
	size_t i;

	for (i = 0; i < slot_bytes(r); i++)
		p[i] = rnd64(&g) >> 40;
	hostile_add(H_GARBAGE, 1);
}

/*
 * Action @n. Four numbers from the walk's generator decide it all: what,
 * on which QP or ring, and the garbage; so a seed gives the same actions
 * whatever the kernel makes of them. Return: 0, or -1 when the kernel
 * refused what it must take (noted).
 */
static int walk_step(struct walk *w, uint64_t *rs, unsigned long n)
{
	uint32_t pick = rnd32(rs), where = rnd32(rs), a = rnd32(rs),
		 b = rnd32(rs);
	enum walk_act act = walk_kind(pick);
	unsigned int qi = where % WALK_QPS, ri = where % w->nrings;
	struct qpx *x = walk_qp(w, qi);
	struct ring *rr = recv_ring(x);
	uint32_t off = qi / 2 * WALK_WIN + (a % WALK_SLOTS) * 4096;
	uint32_t len = 1 + (a >> 8) % 4096;
	uint64_t id = WALK_ID | n, g = ((uint64_t)a << 32 | b) ^ n;
	struct rxe_send_wqe *s;
	struct ibv_wc wc[16];
	int err = 0, i;

	w->digest = fnv(fnv(fnv(fnv(w->digest, act), where), a), b);
	w->acts[act]++;
	switch (act) {
	case W_POST:
		w->masked += uidx_mask(&x->sq);
		if (post_send_lib(x, b & 2 ? IBV_WR_SEND : IBV_WR_RDMA_WRITE,
				  id, off, len))
			w->refused++;
		break;
	case W_RECV:
		w->masked += uidx_mask(rr);
		if (post_recv_lib(x, id, off, 4096))
			w->refused++;
		break;
	case W_RAW:
		if (b & 1) {
			s = wqe_write(x, ld(prod_of(&x->sq)), id, off, len);
			if (b & 2)
				s->wr.opcode = IBV_WR_SEND;
			err = sq_publish(x, 1);
		} else {
			wqe_recv(rr, ld(prod_of(rr)), id, off, 4096);
			rq_publish(rr, 1);
		}
		break;
	case W_MALFORMED:
		if (b & 1) {
			s = wqe_write(x, ld(prod_of(&x->sq)), id, off, len);
			walk_send_bad[(b >> 1) % ARRAY_SIZE(walk_send_bad)](s, x);
			hostile_add(H_MALFORMED, 1);
			err = sq_publish(x, 1);
		} else {
			walk_recv_bad[(b >> 1) % ARRAY_SIZE(walk_recv_bad)]
				(wqe_recv(rr, ld(prod_of(rr)), id, off, 4096),
				 rr);
			rq_publish(rr, 1);
		}
		break;
	case W_GARBAGE:
		if (b & 1) {
			fill_garbage(&x->sq, ld(prod_of(&x->sq)), g);
			err = sq_publish(x, 1);
		} else {
			fill_garbage(rr, ld(prod_of(rr)), g);
			rq_publish(rr, 1);
		}
		break;
	case W_PROD:
		err = walk_prod(w, ri, a, b);
		break;
	case W_CONS:
		walk_cons(w->rings[ri], a, b);
		break;
	case W_DOORBELL:
		err = doorbell(x->qp);
		if (err)
			note("doorbell: %s", strerror(err));
		break;
	case W_REWRITE:
		s = slot(&x->sq, ld(prod_of(&x->sq)) - 1);
		walk_rewrites[(b >> 1) % ARRAY_SIZE(walk_rewrites)](s, x);
		hostile_add(H_REWRITE, 1);
		if (b & 1) {
			err = doorbell(x->qp);
			if (err)
				note("doorbell: %s", strerror(err));
		}
		break;
	case W_POLL:
		w->masked += uidx_mask(&x->cqr);
		i = ibv_poll_cq(x->cq, ARRAY_SIZE(wc), wc);
		if (i < 0) {
			note("ibv_poll_cq failed");
			err = -1;
		}
		while (i-- > 0)
			w->wcs[wc[i].status <= IBV_WC_GENERAL_ERR ?
			       wc[i].status : IBV_WC_GENERAL_ERR + 1]++;
		async_drain(w->events);
		break;
	default:
		/* The reset drains both CQs through librxe. */
		w->masked += uidx_mask(&w->p[qi / 2].a.cqr);
		w->masked += uidx_mask(&w->p[qi / 2].b.cqr);
		err = pair_reset(&w->p[qi / 2]);
		break;
	}
	if (err)
		note("action %lu (%s, QP %u) failed", n, walk_menu[act].name,
		     qi);
	return err ? -1 : 0;
}

/*
 * After the walk: userspace's indices as librxe would leave them (masked;
 * a CQ's consumer at its producer, dropping what is there), the kernel's
 * back to what it last wrote, every doorbell rung, and every send ring
 * drained within wait_ms while all CQs are polled, so that none is full.
 */
static int walk_settle(struct walk *w)
{
	unsigned int i, j, busy;
	struct ibv_wc wc[16];
	uint64_t end;
	int err;

	for (i = 0; i < w->nrings; i++) {
		struct ring *r = w->rings[i];

		kidx_restore(r);
		if (r->is_cq)
			st(cons_of(r), ld(prod_of(r)));
		else
			st(prod_of(r), ld(prod_of(r)) & r->mask);
	}
	for (i = 0; i < WALK_QPS; i++) {
		err = doorbell(walk_qp(w, i)->qp);
		if (err) {
			note("doorbell of QP %u: %s", i, strerror(err));
			return -1;
		}
	}
	end = now_ms() + wait_ms;
	do {
		for (busy = 0, i = 0; i < WALK_QPS; i++) {
			struct qpx *x = walk_qp(w, i);

			for (j = 0; j < 8 && ibv_poll_cq(x->cq, 16, wc) > 0; j++)
				;
			if (ld(cons_of(&x->sq)) != ld(prod_of(&x->sq)))
				busy = i + 1;
		}
		if (busy)
			nap();
	} while (busy && now_ms() <= end);
	if (busy) {
		note("QP %u: send ring not drained within %u ms", busy - 1,
		     wait_ms);
		return -1;
	}
	return 0;
}

/*
 * Poll @cq until @wr_id completes (wait_ms), past other completions (which
 * must be flushes if @only_flushes).
 */
static bool wait_for_id(struct ibv_cq *cq, uint64_t wr_id, struct ibv_wc *wc,
			bool only_flushes)
{
	uint64_t end = now_ms() + wait_ms;
	int n;

	while (now_ms() <= end) {
		n = ibv_poll_cq(cq, 1, wc);
		if (n < 0)
			return false;
		if (!n) {
			nap();
			continue;
		}
		if (wc->wr_id == wr_id)
			return true;
		if (only_flushes && wc->status != IBV_WC_WR_FLUSH_ERR) {
			note("completion wr_id %#llx %s before the probe of a QP in ERROR",
			     (unsigned long long)wc->wr_id, wc_str(wc->status));
			return false;
		}
	}
	return false;
}

/*
 * A WRITE through librxe on every QP, waited for among whatever else its
 * CQ holds: after it, nothing the walk started is under way on the QP.
 * It may fail (the QP or its peer is in ERROR, or goes there now), but
 * then the QP must be in ERROR.
 */
static int walk_sync(struct walk *w)
{
	unsigned int i;
	struct ibv_wc wc;

	for (i = 0; i < WALK_QPS; i++) {
		struct qpx *x = walk_qp(w, i);
		uint32_t off = i / 2 * WALK_WIN + (WALK_SLOTS + i % 2) * 4096;

		if (lib_send(x, IBV_WR_RDMA_WRITE, WALK_ID - 1 - i, off, 64))
			return -1;
		if (!wait_for_id(x->cq, WALK_ID - 1 - i, &wc, false)) {
			note("QP %u: its WRITE did not complete within %u ms",
			     i, wait_ms);
			return -1;
		}
		if (wc.status != IBV_WC_SUCCESS &&
		    !wait_qp_state(x->qp, IBV_QPS_ERR)) {
			note("QP %u: WRITE completed with %s, QP not in ERROR",
			     i, wc_str(wc.status));
			return -1;
		}
	}
	return 0;
}

/*
 * Every QP is in RTS or ERROR. A pair with one of each has its RTS QP
 * moved to ERROR too (it has no one to talk to). A QP in RTS then moves
 * data exactly, its WRITE the first completion on its CQ; one in ERROR
 * completes everything, up to a WRITE posted now, as flushed.
 */
static int walk_probe(struct walk *w, unsigned int *in_err,
		      unsigned int *moved)
{
	struct ibv_qp_attr err_attr = { .qp_state = IBV_QPS_ERR };
	unsigned int i;
	struct ibv_wc wc;
	int s[2];

	for (i = 0; i < WALK_QPS; i++) {
		struct qpx *x = walk_qp(w, i);
		uint32_t off = i / 2 * WALK_WIN + (WALK_SLOTS + i % 2) * 4096;
		uint64_t id = WALK_ID - 0x100 - i;

		if (i % 2 == 0) {
			s[0] = qp_state(x->qp);
			s[1] = qp_state(walk_qp(w, i + 1)->qp);
			if ((s[0] != IBV_QPS_RTS && s[0] != IBV_QPS_ERR) ||
			    (s[1] != IBV_QPS_RTS && s[1] != IBV_QPS_ERR)) {
				note("pair %u: QP states %d and %d, neither RTS nor ERROR",
				     i / 2, s[0], s[1]);
				return -1;
			}
			if (s[0] != s[1]) {
				struct qpx *rts = walk_qp(w, s[0] == IBV_QPS_RTS ?
							     i : i + 1);

				if (qp_modify(rts->qp, &err_attr, IBV_QP_STATE,
					      "ERR"))
					return -1;
				s[0] = IBV_QPS_ERR;
				s[1] = IBV_QPS_ERR;
				++*moved;
			}
		}
		if (s[i % 2] == IBV_QPS_RTS) {
			if (!marker(x, id, off)) {
				note("QP %u in RTS does not move data", i);
				return -1;
			}
			continue;
		}
		++*in_err;
		if (lib_send(x, IBV_WR_RDMA_WRITE, id, off, 64) ||
		    !wait_for_id(x->cq, id, &wc, true) ||
		    wc.status != IBV_WC_WR_FLUSH_ERR) {
			note("QP %u in ERROR does not flush", i);
			return -1;
		}
	}
	return 0;
}

static void walk_report(struct walk *w, unsigned long done, uint64_t ms,
			unsigned int in_err, unsigned int moved)
{
	unsigned long other = 0;
	char line[1024];
	size_t len = 0;
	int k;

	for (k = 0; k < W_NR; k++)
		len += snprintf(line + len, sizeof(line) - len, "%s%s %lu",
				k ? ", " : "", walk_menu[k].name, w->acts[k]);
	note("%lu of %u actions in %llu ms (sequence digest %016llx): %s",
	     done, walk_actions, (unsigned long long)ms,
	     (unsigned long long)w->digest, line);
	for (k = 0; k <= IBV_WC_GENERAL_ERR; k++)
		if (k != IBV_WC_SUCCESS && k != IBV_WC_WR_FLUSH_ERR)
			other += w->wcs[k];
	note("polled during the walk: %lu successful, %lu flushed, %lu other errors, %lu junk (stale CQEs read again)",
	     w->wcs[IBV_WC_SUCCESS], w->wcs[IBV_WC_WR_FLUSH_ERR], other,
	     w->wcs[IBV_WC_GENERAL_ERR + 1]);
	note("librxe refused %lu posts; %lu out-of-range indices masked before librxe used their rings; %u IBV_EVENT_CQ_ERR; %u QPs in ERROR after the walk (%u moved there beside their peer)",
	     w->refused, w->masked, w->events[IBV_EVENT_CQ_ERR], in_err,
	     moved);
}

/*
 * walk_actions actions drawn from a menu of everything the cases above do
 * one at a time (walk_menu), on the SQs, RQs, CQs and the SRQ of five
 * pairs at once, without waiting for anything. Then the kernel must
 * still be sane: every send ring drains (bounded), every QP is in RTS
 * and moves data exactly or in ERROR and flushes, every pair comes back
 * from RESET and moves data exactly, through its RQ or the SRQ, no byte
 * of DST landed outside the pairs' windows (where every address a WQE of
 * the walk names lies, or beyond the MR), and fresh pairs (one on the
 * same SRQ) work.
 */
static int t_walk(void)
{
	uint64_t rs = case_rng(0x77616c6bULL), t0 = now_ms();
	unsigned int in_err = 0, moved = 0, i;
	unsigned long n = 0;
	struct pair fresh;
	struct walk w;
	int ret = KSFT_PASS;

	memset(&fresh, 0, sizeof(fresh));
	if (walk_create(&w))
		FAIL("setup");
	regions_reset();
	async_drain(NULL);
	for (n = 0; n < walk_actions; n++)
		if (walk_step(&w, &rs, n))
			FAIL("action %lu failed", n);

	if (walk_settle(&w) || walk_sync(&w))
		FAIL("the QPs did not come to rest after the walk");
	if (walk_probe(&w, &in_err, &moved))
		FAIL("a QP after the walk");
	for (i = 0; i < WALK_PAIRS; i++)
		if (pair_reset(&w.p[i]))
			FAIL("pair %u cannot be reset", i);
	/* What is left on the SRQ is taken back: it starts empty. */
	kidx_restore(&w.srq.r);
	st(prod_of(&w.srq.r), ld(cons_of(&w.srq.r)));
	for (i = 0; i < WALK_PAIRS; i++)
		if (!round_trip(&w.p[i], WALK_ID - 0x200 - 4 * i,
				i * WALK_WIN + WALK_SLOTS * 4096, 4096))
			FAIL("pair %u does not move data after its reset", i);
	if (!all_sentinel(WALK_PAIRS * WALK_WIN,
			  REGION - WALK_PAIRS * WALK_WIN))
		FAIL("bytes written outside what the WQEs pointed to");
	for (i = 0; i < 2; i++) {
		if (pair_create_srq(&fresh, &conn_default, CQ_DEPTH,
				    i ? &w.srq : NULL, true))
			FAIL("a fresh pair cannot be created");
		if (!round_trip(&fresh, WALK_ID - 0x300 - 4 * i,
				WALK_PAIRS * WALK_WIN, 4096))
			FAIL("a fresh pair%s does not move data",
			     i ? " on the SRQ" : "");
		if (pair_destroy(&fresh))
			FAIL("destroying the fresh pair");
	}
out:
	walk_report(&w, n, now_ms() - t0, in_err, moved);
	if (pair_destroy(&fresh))
		ret = KSFT_FAIL;
	if (walk_destroy(&w))
		ret = KSFT_FAIL;
	regions_reset();
	return ret;
}

/* --- afterwards: a fresh pair is byte-exact ------------------------------------------ */

static int t_fresh(void)
{
	static const uint32_t sizes[] = { 0, 1, 1000, 1024, 4097, 70001,
					  200000 };
	struct ibv_sge sge;
	struct ibv_send_wr wr, *bad;
	struct ibv_wc wc;
	struct pair p;
	unsigned int i;
	int ret = KSFT_PASS;

	if (pair_create(&p, &conn_default, CQ_DEPTH, true))
		return KSFT_FAIL;
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		uint32_t len = sizes[i];

		regions_reset();
		if (lib_recv(&p.b, 0x800 + i, 0, REGION) ||
		    lib_send(&p.a, IBV_WR_SEND, 0x900 + i, 0, len) ||
		    !expect_wc(p.a.cq, 0x900 + i, IBV_WC_SUCCESS, NULL) ||
		    !expect_wc(p.b.cq, 0x800 + i, IBV_WC_SUCCESS, &wc) ||
		    wc.byte_len != len || !dst_equals_src(0, len) ||
		    !all_sentinel(len, 4096))
			FAIL("SEND of %u bytes", len);

		regions_reset();
		if (lib_send(&p.a, IBV_WR_RDMA_WRITE, 0xa00 + i, 0, len) ||
		    !expect_wc(p.a.cq, 0xa00 + i, IBV_WC_SUCCESS, NULL) ||
		    !dst_equals_src(0, len) || !all_sentinel(len, 4096))
			FAIL("RDMA WRITE of %u bytes", len);

		/* READ: DST of B (holding SRC's bytes) into A's SRC+512K. */
		memset(src_at(512 * 1024), SENTINEL, len + 4096);
		sge.addr = (uintptr_t)src_at(512 * 1024);
		sge.length = len;
		sge.lkey = mr->lkey;
		memset(&wr, 0, sizeof(wr));
		wr.wr_id = 0xb00 + i;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		wr.opcode = IBV_WR_RDMA_READ;
		wr.send_flags = IBV_SEND_SIGNALED;
		wr.wr.rdma.remote_addr = (uintptr_t)dst_at(0);
		wr.wr.rdma.rkey = mr->rkey;
		if (ibv_post_send(p.a.qp, &wr, &bad) ||
		    !expect_wc(p.a.cq, 0xb00 + i, IBV_WC_SUCCESS, NULL) ||
		    memcmp(src_at(512 * 1024), ref, len))
			FAIL("RDMA READ of %u bytes", len);
	}
out:
	if (pair_destroy(&p))
		ret = KSFT_FAIL;
	return ret;
}

/* ===================================================================== */

static const struct test_case {
	const char *name;
	int (*fn)(void);
} cases[] = {
	{ "doorbell_refused_before_rts", t_doorbell_state },
	{ "garbage_wqes_fill_ring", t_garbage },
	{ "num_sge_huge", t_num_sge },
	{ "sge_lengths_past_4g", t_sge_len },
	{ "inline_beyond_max_inline", t_inline },
	{ "bad_lkey", t_lkey },
	{ "bad_rkey", t_rkey },
	{ "bad_rkey_longer_than_send_window", t_rkey_long },
	{ "opcode_out_of_range", t_opcode },
	{ "ud_bad_wqes", t_ud },
	{ "sq_producer_out_of_range", t_sq_prod },
	{ "sq_consumer_overwritten", t_sq_cons },
	{ "cq_consumer_overwritten", t_cq_cons },
	{ "recv_wqe_garbage", t_rq_garbage },
	{ "recv_sge_lengths_past_4g", t_rq_len },
	{ "rq_indices_overwritten", t_rq_idx },
	{ "srq_bad_wqes_shared", t_srq_wqes },
	{ "srq_storm_shared_by_three_qps", t_srq_storm },
	{ "partial_wqe_rewritten_shorter", t_resume_shorter },
	{ "partial_wqe_rewritten_inline", t_resume_inline },
	{ "wqe_scribbled_while_sent", t_race },
	{ "random_walk_all_rings", t_walk },
	{ "fresh_pair_byte_exact", t_fresh },
};

/* What the run threw at the kernel; the seed repeats it. */
static void hostile_summary(void)
{
	char line[512];
	size_t len = 0;
	int k;

	for (k = 0; k < H_NR; k++)
		len += snprintf(line + len, sizeof(line) - len, "%s%s %lu",
				k ? ", " : "", hostile_names[k], hostile[k]);
	ksft_print_msg("hostile_rings: seed %llu, %lu hostile operations (%s); besides, %lu stores by racing scribbler threads\n",
		       (unsigned long long)seed, hostile_total(), line,
		       racing_stores);
}

static bool selected(const char *list, const char *name)
{
	size_t n = strlen(name);
	const char *p = list;

	if (!list)
		return true;
	while ((p = strstr(p, name))) {
		if ((p == list || p[-1] == ',') && (p[n] == ',' || !p[n]))
			return true;
		p += n;
	}
	return false;
}

int main(int argc, char **argv)
{
	const char *only = NULL;
	unsigned int i, n = 0;
	int opt, ret;

	setvbuf(stdout, NULL, _IOLBF, 0);
	while ((opt = getopt(argc, argv, "d:g:s:t:w:c:l")) != -1) {
		switch (opt) {
		case 'd':
			dev_name = optarg;
			break;
		case 'g':
			gid_index = atoi(optarg);
			break;
		case 's':
			seed = strtoull(optarg, NULL, 0);
			rng_state = seed;
			break;
		case 't':
			wait_ms = strtoul(optarg, NULL, 0);
			break;
		case 'w':
			walk_actions = strtoul(optarg, NULL, 0);
			break;
		case 'c':
			only = optarg;
			break;
		case 'l':
			for (i = 0; i < ARRAY_SIZE(cases); i++)
				printf("%s\n", cases[i].name);
			return 0;
		default:
			return 1;
		}
	}
	if (!dev_name || gid_index < 0) {
		fprintf(stderr, "usage: %s -d DEV -g GID_INDEX [-s SEED] [-t WAIT_MS] [-w WALK_ACTIONS] [-c CASE,...] | -l\n",
			argv[0]);
		return 1;
	}
	for (i = 0; i < ARRAY_SIZE(cases); i++)
		n += selected(only, cases[i].name);

	ksft_print_header();
	ctx = sroce_open_device(dev_name);
	if (!ctx)
		ksft_exit_skip("device %s not found\n", dev_name);
	ksft_set_plan(n);
	pd = ibv_alloc_pd(ctx);
	buf = aligned_alloc(4096, BUF_SIZE);
	ref = malloc(REGION);
	if (!pd || !buf || !ref)
		ksft_exit_fail_msg("resources: %s\n", strerror(errno));
	mr = ibv_reg_mr(pd, buf, BUF_SIZE, IBV_ACCESS_LOCAL_WRITE |
			IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	if (!mr || ibv_query_gid(ctx, 1, gid_index, &gid))
		ksft_exit_fail_msg("MR or GID: %s\n", strerror(errno));
	/* Source bytes are never 0 or the sentinel. */
	for (i = 0; i < REGION; i++)
		ref[i] = 1 + rnd() % (SENTINEL - 1);
	memset(buf, 0, BUF_SIZE);

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		unsigned long ops = hostile_total();
		uint64_t t0 = now_ms();

		if (!selected(only, cases[i].name))
			continue;
		cur_case = cases[i].name;
		ret = cases[i].fn();
		note("%llu ms, %lu hostile operations",
		     (unsigned long long)(now_ms() - t0), hostile_total() - ops);
		if (ret == KSFT_PASS)
			ksft_test_result_pass("%s\n", cur_case);
		else if (ret == KSFT_SKIP)
			ksft_test_result_skip("%s\n", cur_case);
		else
			ksft_test_result_fail("%s\n", cur_case);
	}
	cur_case = "teardown";
	async_drain(NULL);
	if (ibv_dereg_mr(mr) || ibv_dealloc_pd(pd) || ibv_close_device(ctx))
		ksft_exit_fail_msg("teardown failed\n");
	free(buf);
	free(ref);
	hostile_summary();
	ksft_finished();
	return 0;
}
