// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * storm: the traffic of a fault storm, every byte checked. Between device
 * A and device B it opens Q RC QP pairs and U UD QP pairs and keeps each
 * QP busy in both directions, several operations outstanding per QP, with
 * a seeded random mix of SEND, RDMA WRITE, WRITE with immediate, RDMA
 * READ, FETCH_AND_ADD, CMP_AND_SWP and SEND with invalidate (RC) and
 * SEND with immediate (UD), until a deadline, a number of operations or a
 * stop file; then it waits for everything outstanding to end.
 *
 *   storm -a DEV -g GIDX -b DEV -G GIDX [-q RC_PAIRS] [-u UD_PAIRS]
 *         [-d DEPTH] [-t SEC] [-n OPS] [-x STOP_FILE] [-p PROGRESS_FILE]
 *         [-s SEED]
 *         [-m PATH_MTU] [-L MAX_LEN] [-T TIMEOUT] [-r RETRY_CNT]
 *         [-S SLACK_MS] [-E allow|expect] [-K DEFECT,...] [-o OP,...]
 *
 * -x ends the run (as the deadline would) once STOP_FILE exists. -p keeps
 * in PROGRESS_FILE the number of rounds in which every working RC QP
 * completed something: a caller that reads N can wait for N + 2 to know
 * that every QP moved after that moment.
 *
 * -o narrows the RC mix to the operations named (send, write, write_imm,
 * read, fetch_add, cmp_swap, send_inv), to reproduce a failure with less.
 *
 * What it asserts (exit 1 and a "VIOLATION" line for each breach):
 *
 * - Every payload byte is the pattern derived from (seed, stream,
 *   sequence), and the bytes around each destination keep their poison:
 *   no short, long, misplaced or stale delivery.
 * - Each queue's completions come in the order its work requests were
 *   posted, each exactly once: none missing, none duplicated.
 * - An RC operation completes successfully, or its QP fails with
 *   IBV_WC_RETRY_EXC_ERR, after which every work request still on that QP
 *   (send and receive queues) is flushed and nothing succeeds any more.
 *   A QP error is itself a violation unless -E allow (counted) or -E
 *   expect (then every RC QP must end that way: a link down for longer
 *   than the retry budget).
 * - A SEND whose sender saw success was received; a receive the sender
 *   did not learn about (its QP failed) still holds intact data.
 * - Atomics return the value their target held and are applied exactly
 *   once: each target word ends at the value the operations give when
 *   applied in order, or, behind a QP error, at one a prefix of the
 *   unconfirmed ones gives.
 * - SEND with invalidate arrives with IBV_WC_WITH_INV and the rkey of the
 *   type 2 window the receiver bound; a window not invalidated would fail
 *   its next bind.
 * - UD may lose datagrams (counted: sent, received, lost, duplicated);
 *   what arrives is intact and comes from the peer, with its GRH.
 * - Nothing hangs: a QP with work outstanding completes something within
 *   the retry budget plus SLACK_MS, and everything ends within the
 *   retry budget plus SLACK_MS after posting stops. The retry budget is
 *   (RETRY_CNT + 1) transport timeouts of 4.096 us * 2^TIMEOUT, the QP
 *   attributes set here.
 *
 * -K names known driver defects, each recognised by its exact symptom and
 * then counted (known_NAME in the summary) instead of failing the run, so
 * that a run still checks everything else until they are fixed:
 *   inv_flag  the receive completion of a SEND with invalidate has
 *             IBV_WC_IP_CSUM_OK instead of IBV_WC_WITH_INV (the kernel's
 *             IB_WC_WITH_INVALIDATE copied into the user CQ);
 *   read_wrap a QP's first READ whose PSN range passes 0 completes without
 *             the data of its packets before the wrap (the requester
 *             expects response PSN 0 first);
 *   read_gap  a QP does not finish in time only because a READ at the
 *             head of a send queue still advances, a few packets per
 *             transport timeout (out-of-order responses are dropped and
 *             asked for again only when the timer fires);
 *   flush_rwqe a QP that fails while a message is partly received never
 *             completes that message's receive (the flush drops the WQE
 *             the message holds).
 *
 * The first line names the seed and every parameter, so that a failing
 * run can be repeated (the wire's faults are random, so the repetition is
 * of the traffic, not of the timing). The last is a summary of key=value
 * pairs: operations per type, bytes verified, QP errors, UD losses,
 * elapsed and drain time. Exit status: 0 all good, 1 a violation or an
 * error, 4 skipped (a device is missing).
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>

#include "sroce_test.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#define MAX_RC_PAIRS		128
#define MAX_UD_PAIRS		8
#define MAX_DEPTH		16
#define MAX_SGE			4
#define ATOMIC_WORDS		4
/* Poisoned bytes kept before and after each destination. */
#define GUARD			64
/* Below 4096: unaligned start offsets inside a slot. */
#define START_JITTER		4093
#define SGE_GAP_MAX		61
#define RECV_EXTRA_MAX		100
/* A slot's room beyond its largest payload: offset, gaps, slack, guard. */
#define SLOT_SLACK		8192
#define MW_WINDOW_LEN		4096
#define GRH_LEN			40
#define UD_RING			64
/* At most this many UD datagrams not known to be received or lost. */
#define UD_WINDOW		(UD_RING / 2)
/* A UD datagram not received this long after it was posted is late. */
#define UD_FLIGHT_MS		300
#define UD_SLOT			8192
#define UD_QKEY			0x5e0c0001
#define CQ_BATCH		32
#define CQ_ROUNDS		64
#define WAIT_MS			10
#define STOP_FILE_EVERY_MS	20
#define MAX_REPORTED		20
/* A QP this long without a completion has its head READ watched. */
#define READ_WATCH_AFTER_MS	1000

/* Work request kinds, also the top byte of every wr_id. */
enum kind {
	K_SEND,
	K_WRITE,
	K_WRITE_IMM,
	K_READ,
	K_FETCH_ADD,
	K_CMP_SWAP,
	K_SEND_INV,
	K_NUM_RC,
	K_BIND = K_NUM_RC,
	K_RECV,
	K_UD_SEND,
	K_UD_RECV,
	K_NUM,
};

static const char *const kind_name[K_NUM] = {
	[K_SEND] = "send", [K_WRITE] = "write", [K_WRITE_IMM] = "write_imm",
	[K_READ] = "read", [K_FETCH_ADD] = "fetch_add",
	[K_CMP_SWAP] = "cmp_swap", [K_SEND_INV] = "send_inv",
	[K_BIND] = "bind_mw", [K_RECV] = "recv", [K_UD_SEND] = "ud_send",
	[K_UD_RECV] = "ud_recv",
};

enum qp_error_policy { QP_ERRORS_FORBIDDEN, QP_ERRORS_ALLOWED, QP_ERRORS_EXPECTED };

static struct {
	const char *dev_name[2];
	int gid_index[2];
	unsigned int rc_pairs, ud_pairs, depth;
	unsigned int run_secs;
	unsigned long max_ops;
	const char *stop_file;
	uint64_t seed;
	unsigned int path_mtu_bytes;
	uint32_t max_len;
	unsigned int timeout_exp, retry_cnt;
	unsigned int slack_ms;
	enum qp_error_policy qp_errors;
	const char *known_defects;	/* -K */
	const char *progress_file;	/* -p */
	const char *only_kinds;		/* -o */
} cfg = {
	.gid_index = { -1, -1 },
	.rc_pairs = 8,
	.depth = 4,
	.path_mtu_bytes = 1024,
	.max_len = 256u << 10,
	.timeout_exp = 16,
	.retry_cnt = 7,
	.slack_ms = 20000,
};

/* Derived at start-up. */
static unsigned int budget_ms, ud_max_len;
static bool have_atomics, have_mw2;
static enum kind rc_kinds[K_NUM_RC];
static unsigned int num_rc_kinds;

static struct {
	unsigned long ok[K_NUM];
	unsigned long unknown_outcome, cancelled, flushed;
	unsigned long retry_exceeded, closed;
	unsigned long long bytes_verified;
	unsigned long ud_sent, ud_received, ud_dup, ud_lost;
	unsigned long known_inv_flag, known_read_wrap, known_read_gap;
	unsigned long known_flush_rwqe;
	uint64_t max_op_ms;
	/* The longest an RC send queue with work waited for a completion. */
	uint64_t max_sq_quiet_ms;
	char max_sq_quiet_label[16];
} stats;

static unsigned long violations;
/* Past the deadline (or the stop file, or the op count): nothing new goes out. */
static bool posting_stopped;

/* --- reporting -------------------------------------------------------- */

static void __attribute__((format(printf, 1, 2)))
violation(const char *fmt, ...)
{
	va_list ap;

	if (violations++ >= MAX_REPORTED)
		return;
	va_start(ap, fmt);
	printf("storm: VIOLATION: ");
	vprintf(fmt, ap);
	putchar('\n');
	va_end(ap);
}

/* A local failure of the program or of a verb: counted as a violation. */
static void __attribute__((format(printf, 1, 2)))
failure(const char *fmt, ...)
{
	va_list ap;

	violations++;
	va_start(ap, fmt);
	printf("storm: error: ");
	vprintf(fmt, ap);
	printf(" (errno %d: %s)\n", errno, strerror(errno));
	va_end(ap);
}

/* Whether the comma-separated @list names @name. */
static bool list_has(const char *list, const char *name)
{
	size_t len = strlen(name);

	while (list && *list) {
		if (!strncmp(list, name, len) &&
		    (list[len] == ',' || !list[len]))
			return true;
		list = strchr(list, ',');
		if (list)
			list++;
	}
	return false;
}

/* -K: a known driver defect of that name is counted, not a violation. */
static bool known(const char *defect)
{
	return list_has(cfg.known_defects, defect);
}

/* --- randomness and payload patterns ------------------------------------ */

static uint64_t rng_state;

/* splitmix64's finalizer: every input bit moves every output bit. */
static uint64_t mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/* xorshift64*: the choices of operations, sizes and offsets. */
static uint64_t rnd64(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dULL;
}

static uint32_t rnd(void)
{
	return rnd64() >> 32;
}

/*
 * The payload of each operation is named by a key from the seed, the
 * stream (QP and direction) and the operation's sequence number there, so
 * that each byte can be recomputed where it lands, with no copy kept.
 */
static uint64_t payload_key(unsigned int space, unsigned int stream,
			    uint32_t seq)
{
	return mix64(cfg.seed ^ mix64((uint64_t)space << 48 |
				      (uint64_t)stream << 32 | seq));
}

/* Pattern bytes 8 * @index .. 8 * @index + 7, in memory order. */
static uint64_t pattern_word(uint64_t key, uint64_t index)
{
	return htole64(mix64(key ^ (index * 0xd6e8feb86659fd93ULL)));
}

static uint8_t pattern_byte(uint64_t key, uint64_t off)
{
	uint64_t w = pattern_word(key, off >> 3);

	return ((const uint8_t *)&w)[off & 7];
}

/* Write pattern bytes @off .. @off + @n - 1 of @key at @p. */
static void pattern_put(uint8_t *p, uint32_t n, uint64_t key, uint64_t off)
{
	while (n) {
		uint64_t w = pattern_word(key, off >> 3);
		uint32_t skip = off & 7, take = 8 - skip;

		if (take > n)
			take = n;
		memcpy(p, (const uint8_t *)&w + skip, take);
		p += take;
		off += take;
		n -= take;
	}
}

/* Index of the first of @n bytes at @p that is not the pattern, or @n. */
static uint32_t pattern_diff(const uint8_t *p, uint32_t n, uint64_t key,
			     uint64_t off)
{
	uint32_t done = 0, i;

	while (done < n) {
		uint64_t w = pattern_word(key, off >> 3);
		uint32_t skip = off & 7, take = 8 - skip;

		if (take > n - done)
			take = n - done;
		if (memcmp(p + done, (const uint8_t *)&w + skip, take))
			for (i = 0; i < take; i++)
				if (p[done + i] != pattern_byte(key, off + i))
					return done + i;
		done += take;
		off += take;
	}
	return n;
}

static const uint8_t *first_not(const uint8_t *p, const uint8_t *end,
				uint8_t value)
{
	for (; p < end; p++)
		if (*p != value)
			return p;
	return NULL;
}

/* --- scatter lists ----------------------------------------------------- */

/* Where a check found wrong bytes: the first, the last, how many. */
struct mismatch {
	uint32_t at, last;
	uint8_t got, want;
	uint32_t count;
	uint32_t poisoned;	/* of them, still the poison byte */
	uint8_t poison;
};

/*
 * Split @total bytes into 1..MAX_SGE pieces (none for an empty message,
 * sometimes) at unaligned places in @area, with gaps between them.
 * Return: the number of pieces; *@end is the byte after the last one.
 */
static int make_sges(uint8_t *area, uint32_t total, uint32_t lkey,
		     struct ibv_sge *sge, uint8_t **end)
{
	uint8_t *at = area + GUARD + rnd() % START_JITTER;
	int n = 1 + rnd() % MAX_SGE, i;
	uint32_t left = total;

	if (!total && rnd() % 2)
		n = 0;
	else if (total < (uint32_t)n)
		n = 1;
	for (i = 0; i < n; i++) {
		uint32_t piece = left;

		if (i < n - 1) {
			piece = rnd() % (2 * left / (n - i) + 1);
			if (piece > left)
				piece = left;
		}
		sge[i].addr = (uintptr_t)at;
		sge[i].length = piece;
		sge[i].lkey = lkey;
		at += piece + rnd() % SGE_GAP_MAX;
		left -= piece;
	}
	*end = n ? (uint8_t *)(uintptr_t)(sge[n - 1].addr + sge[n - 1].length) : at;
	return n;
}

/* Fill the first @len bytes the scatter list describes with the pattern. */
static void sges_put_pattern(const struct ibv_sge *sge, int n, uint32_t len,
			     uint64_t key)
{
	uint32_t off = 0;
	int i;

	for (i = 0; i < n && off < len; i++) {
		uint32_t take = sge[i].length;

		if (take > len - off)
			take = len - off;
		pattern_put((uint8_t *)(uintptr_t)sge[i].addr, take, key, off);
		off += take;
	}
}

/*
 * Bytes @from .. @from + @len - 1 of the message scattered over @sge are
 * pattern bytes 0 .. @len - 1 of @key. The caller made sure the list
 * holds that many.
 */
static bool sges_hold_pattern(const struct ibv_sge *sge, int n, uint32_t from,
			      uint32_t len, uint64_t key, struct mismatch *m)
{
	uint32_t pos = 0, k;
	int i;

	m->count = 0;
	m->poisoned = 0;
	for (i = 0; i < n; i++) {
		uint32_t lo = from > pos ? from : pos;
		uint32_t hi = pos + sge[i].length;
		const uint8_t *p = (const uint8_t *)(uintptr_t)sge[i].addr;

		if (hi > from + len)
			hi = from + len;
		for (k = lo; k < hi; k++) {
			k += pattern_diff(p + (k - pos), hi - k, key, k - from);
			if (k >= hi)
				break;
			if (!m->count++) {
				m->at = k - from;
				m->got = p[k - pos];
				m->want = pattern_byte(key, k - from);
			}
			m->last = k - from;
			m->poisoned += p[k - pos] == m->poison;
		}
		pos += sge[i].length;
	}
	return !m->count;
}

/*
 * Every byte of [@lo, @hi) outside the first @used bytes of the message
 * scattered over @sge (in address order) still holds @poison.
 * Return: the first byte that does not, or NULL.
 */
static const uint8_t *poison_outside(const uint8_t *lo, const uint8_t *hi,
				     const struct ibv_sge *sge, int n,
				     uint32_t used, uint8_t poison)
{
	const uint8_t *cursor = lo, *bad;
	uint32_t pos = 0;
	int i;

	for (i = 0; i < n; i++) {
		const uint8_t *a = (const uint8_t *)(uintptr_t)sge[i].addr;
		uint32_t in_use = used > pos ? used - pos : 0;

		if (in_use > sge[i].length)
			in_use = sge[i].length;
		bad = first_not(cursor, a, poison);
		if (bad)
			return bad;
		bad = first_not(a + in_use, a + sge[i].length, poison);
		if (bad)
			return bad;
		cursor = a + sge[i].length;
		pos += sge[i].length;
	}
	return first_not(cursor, hi, poison);
}

/* Copy bytes [0, @len) of the message scattered over @sge to @out. */
static void sges_gather(const struct ibv_sge *sge, int n, uint8_t *out,
			uint32_t len)
{
	uint32_t off = 0;
	int i;

	for (i = 0; i < n && off < len; i++) {
		uint32_t take = sge[i].length;

		if (take > len - off)
			take = len - off;
		memcpy(out + off, (const void *)(uintptr_t)sge[i].addr, take);
		off += take;
	}
}

/* --- work request bookkeeping --------------------------------------------- */

#define WRID(kind, stream, slot, seq) \
	((uint64_t)(kind) << 56 | (uint64_t)(stream) << 40 | \
	 (uint64_t)(slot) << 32 | (uint32_t)(seq))
#define WRID_KIND(id)	((unsigned int)((id) >> 56))
#define WRID_STREAM(id)	((unsigned int)((id) >> 40) & 0xffff)
#define WRID_SLOT(id)	((unsigned int)((id) >> 32) & 0xff)
#define WRID_SEQ(id)	((uint32_t)(id))

/* The most a queue holds: RC sends plus binds, or a UD receive ring. */
#define FIFO_CAP	(2 * MAX_DEPTH + UD_RING + 2)

/* A queue's work requests in posting order: its completions must match. */
struct wr_fifo {
	uint64_t id[FIFO_CAP];
	uint64_t posted_ms[FIFO_CAP];
	unsigned int head, count;
};

static bool fifo_push(struct wr_fifo *f, uint64_t id, uint64_t now)
{
	unsigned int at;

	if (f->count == FIFO_CAP)
		return false;
	at = (f->head + f->count) % FIFO_CAP;
	f->id[at] = id;
	f->posted_ms[at] = now;
	f->count++;
	return true;
}

static void fifo_pop(struct wr_fifo *f)
{
	f->head = (f->head + 1) % FIFO_CAP;
	f->count--;
}

/* --- devices, queue pairs, streams --------------------------------------- */

struct side {
	char tag;
	const char *name;
	int gid_index;
	union ibv_gid gid;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_comp_channel *channel;
	struct ibv_cq *cq;
	unsigned int unacked_events;
	bool armed;
	struct ibv_mr *mr;
	uint8_t *buf;
	size_t buf_len;
	uint32_t port_mtu_bytes;
};

struct ud_rx_slot {
	struct ibv_sge sge[2];
	int nsge;
	uint8_t *span_lo, *span_hi;
	uint8_t poison;
};

struct ud_stream;

/* One QP. */
struct endpoint {
	struct side *side;
	struct ibv_qp *qp;
	bool is_ud;
	unsigned int pair;
	char label[16];
	uint32_t max_inline;
	struct wr_fifo sq, rq;
	/* Its first error completion was seen: only flushes may follow. */
	bool errored;
	/* Moved to the error state here, its peer having failed. */
	bool closed;
	bool stall_reported;
	uint64_t last_progress_ms;
	/*
	 * RC: since when its send queue has waited for a completion: its
	 * last one, or the post that gave an empty queue work.
	 */
	uint64_t sq_quiet_from_ms;
	/* Completed something in the current progress round (-p). */
	bool progressed;
	/* RC: the PSN the next request starts at, for the reports. */
	uint32_t next_psn;
	/* RC: READs and atomics completed successfully. */
	unsigned long rd_atomic_done;
	/* RC: the READ at the head of the send queue, and its progress. */
	uint64_t head_read_id;
	uint32_t head_read_placed;
	uint64_t head_read_grew_ms;
	/* UD: the receive ring and the stream it receives. */
	struct ud_rx_slot rx[UD_RING];
	uint32_t rx_posted;
	struct ud_stream *incoming;
};

enum slot_state { SLOT_FREE, SLOT_BINDING, SLOT_POSTED };

/* One RC operation in flight. */
struct rc_op {
	enum kind kind;
	enum slot_state state;
	uint32_t seq;
	uint32_t len;
	uint64_t key;
	uint64_t posted_ms;
	struct ibv_sge src[MAX_SGE], dst[MAX_SGE];
	int nsrc, ndst;
	/* The poisoned span around the destination. */
	uint8_t *span_lo, *span_hi;
	uint8_t poison;
	bool inline_data;
	bool needs_recv, send_done, recv_done;
	enum ibv_wc_status send_status, recv_status;
	unsigned int word;
	uint64_t compare_add, swap, model_before, model_after;
	uint32_t imm;
	uint32_t inv_rkey;
	uint32_t first_psn, npsn;
};

/* The values an atomic target may end at, behind unconfirmed atomics. */
struct word_outcomes {
	uint64_t value[MAX_DEPTH * 2 + 2];
	unsigned int n;
};

/* Operations from one end of an RC pair to the other. */
struct rc_stream {
	unsigned int id, pair, dir;
	struct endpoint *req, *resp;
	uint32_t next_seq;
	struct rc_op op[MAX_DEPTH];
	uint64_t *target;		/* ATOMIC_WORDS, in the responder */
	uint64_t model[ATOMIC_WORDS];
	struct word_outcomes outcomes[ATOMIC_WORDS];
	struct ibv_mw *mw[MAX_DEPTH];	/* the responder's, per slot */
};

struct ud_stream {
	unsigned int id, pair, dir;
	struct endpoint *tx, *rx;
	struct ibv_ah *ah;
	uint32_t next_seq;
	bool slot_busy[MAX_DEPTH];
	uint64_t posted_ms[UD_WINDOW];
	uint8_t *received;		/* bitmap by sequence number */
	uint32_t received_bits;
	unsigned long distinct;
	uint64_t last_activity_ms;
};

static struct side sides[2];
static struct endpoint rc_ep[MAX_RC_PAIRS][2], ud_ep[MAX_UD_PAIRS][2];
static struct rc_stream rc_streams[MAX_RC_PAIRS * 2];
static struct ud_stream ud_streams[MAX_UD_PAIRS * 2];
static bool pair_broken[MAX_RC_PAIRS];

/* Buffer layout of each side (byte offsets). */
static size_t slot_span, off_resp, off_words, off_ud_tx, off_ud_rx;

static uint8_t *rc_req_area(const struct rc_stream *st, unsigned int slot)
{
	return st->req->side->buf + ((size_t)st->pair * cfg.depth + slot) * slot_span;
}

static uint8_t *rc_resp_area(const struct rc_stream *st, unsigned int slot)
{
	return st->resp->side->buf + off_resp +
	       ((size_t)st->pair * cfg.depth + slot) * slot_span;
}

static uint8_t *ud_tx_area(const struct ud_stream *st, unsigned int slot)
{
	return st->tx->side->buf + off_ud_tx +
	       ((size_t)st->pair * cfg.depth + slot) * UD_SLOT;
}

static uint8_t *ud_rx_area(const struct endpoint *ep, unsigned int slot)
{
	return ep->side->buf + off_ud_rx +
	       ((size_t)ep->pair * UD_RING + slot) * UD_SLOT;
}

static unsigned int mtu_bytes(enum ibv_mtu mtu)
{
	return 128u << mtu;
}

static enum ibv_mtu mtu_enum(unsigned int bytes)
{
	switch (bytes) {
	case 256: return IBV_MTU_256;
	case 512: return IBV_MTU_512;
	case 1024: return IBV_MTU_1024;
	case 2048: return IBV_MTU_2048;
	case 4096: return IBV_MTU_4096;
	}
	return 0;
}

static bool gid_is_v4_mapped(const union ibv_gid *gid)
{
	static const uint8_t prefix[12] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff,
	};

	return !memcmp(gid->raw, prefix, sizeof(prefix));
}

/*
 * Device, PD, one CQ for every queue of the side (completions of all QPs
 * interleave, as in a real consumer) on a completion channel, and one
 * registered buffer. Return: 0, 4 if the device is missing, 1 on error.
 */
static int side_open(struct side *s)
{
	struct ibv_device_attr dev;
	struct ibv_port_attr port;
	unsigned int cqe;
	int access;

	s->ctx = sroce_open_device(s->name);
	if (!s->ctx) {
		printf("storm: no RDMA device %s\n", s->name);
		return 4;
	}
	if (ibv_query_device(s->ctx, &dev) || ibv_query_port(s->ctx, 1, &port) ||
	    ibv_query_gid(s->ctx, 1, s->gid_index, &s->gid)) {
		failure("%s: query device, port or GID %d", s->name, s->gid_index);
		return 1;
	}
	s->port_mtu_bytes = mtu_bytes(port.active_mtu);
	if (dev.atomic_cap == IBV_ATOMIC_NONE)
		have_atomics = false;
	if (!(dev.device_cap_flags & IBV_DEVICE_MEM_WINDOW_TYPE_2B))
		have_mw2 = false;
	if (dev.max_qp_rd_atom < (int)cfg.depth ||
	    dev.max_qp_init_rd_atom < (int)cfg.depth) {
		printf("storm: %s allows %d/%d READs and atomics outstanding, fewer than depth %u\n",
		       s->name, dev.max_qp_init_rd_atom, dev.max_qp_rd_atom,
		       cfg.depth);
		return 1;
	}
	s->pd = ibv_alloc_pd(s->ctx);
	s->channel = ibv_create_comp_channel(s->ctx);
	if (!s->pd || !s->channel) {
		failure("%s: PD or completion channel", s->name);
		return 1;
	}
	if (fcntl(s->channel->fd, F_SETFL,
		  fcntl(s->channel->fd, F_GETFL) | O_NONBLOCK)) {
		failure("%s: non-blocking completion channel", s->name);
		return 1;
	}
	cqe = cfg.rc_pairs * (3 * cfg.depth + 2) +
	      cfg.ud_pairs * (cfg.depth + 1 + UD_RING) + 16;
	s->cq = ibv_create_cq(s->ctx, cqe, NULL, s->channel, 0);
	s->buf = aligned_alloc(4096, s->buf_len);
	if (!s->cq || !s->buf) {
		failure("%s: CQ of %u or buffer of %zu bytes", s->name, cqe,
			s->buf_len);
		return 1;
	}
	memset(s->buf, 0, s->buf_len);
	access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		 IBV_ACCESS_REMOTE_READ |
		 (have_atomics ? IBV_ACCESS_REMOTE_ATOMIC : 0) |
		 (have_mw2 ? IBV_ACCESS_MW_BIND : 0);
	s->mr = ibv_reg_mr(s->pd, s->buf, s->buf_len, access);
	if (!s->mr) {
		failure("%s: register %zu bytes", s->name, s->buf_len);
		return 1;
	}
	return 0;
}

static int create_qp(struct endpoint *ep, enum ibv_qp_type type)
{
	struct ibv_qp_init_attr init = {
		.send_cq = ep->side->cq,
		.recv_cq = ep->side->cq,
		.qp_type = type,
		.cap = {
			.max_send_wr = type == IBV_QPT_RC ? 2 * cfg.depth + 1 :
							    cfg.depth + 1,
			.max_recv_wr = type == IBV_QPT_RC ? cfg.depth + 1 :
							    UD_RING,
			.max_send_sge = MAX_SGE,
			.max_recv_sge = MAX_SGE,
			.max_inline_data = 64,
		},
	};

	ep->qp = ibv_create_qp(ep->side->pd, &init);
	if (!ep->qp) {
		/* Inline data is optional: without it, every SEND gathers. */
		init.cap.max_inline_data = 0;
		ep->qp = ibv_create_qp(ep->side->pd, &init);
	}
	if (!ep->qp) {
		failure("%s: create QP", ep->label);
		return -1;
	}
	ep->max_inline = init.cap.max_inline_data;
	return 0;
}

/* A PSN near the 24-bit wrap half of the time: sequence arithmetic. */
static uint32_t initial_psn(void)
{
	return rnd() % 2 ? 0xffffff - rnd() % 512 : rnd() & 0xffffff;
}

static int rc_connect(struct endpoint *ep, const struct endpoint *peer,
		      uint32_t sq_psn, uint32_t rq_psn)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = 1,
		.qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
				   IBV_ACCESS_REMOTE_READ |
				   (have_atomics ? IBV_ACCESS_REMOTE_ATOMIC : 0),
	};

	if (ibv_modify_qp(ep->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		goto fail;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = mtu_enum(cfg.path_mtu_bytes);
	a.dest_qp_num = peer->qp->qp_num;
	a.rq_psn = rq_psn;
	a.max_dest_rd_atomic = cfg.depth;
	a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = peer->side->gid;
	a.ah_attr.grh.sgid_index = ep->side->gid_index;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.port_num = 1;
	if (ibv_modify_qp(ep->qp, &a, IBV_QP_STATE | IBV_QP_AV |
			  IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
			  IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		goto fail;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = sq_psn;
	a.timeout = cfg.timeout_exp;
	a.retry_cnt = cfg.retry_cnt;
	/* Receives are always posted first: an RNR NAK would be a bug. */
	a.rnr_retry = 7;
	a.max_rd_atomic = cfg.depth;
	if (ibv_modify_qp(ep->qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN |
			  IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			  IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC))
		goto fail;
	return 0;
fail:
	failure("%s: connect", ep->label);
	return -1;
}

static int ud_ready(struct endpoint *ep)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = 1,
		.qkey = UD_QKEY,
	};

	if (ibv_modify_qp(ep->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			  IBV_QP_PORT | IBV_QP_QKEY))
		goto fail;
	a.qp_state = IBV_QPS_RTR;
	if (ibv_modify_qp(ep->qp, &a, IBV_QP_STATE))
		goto fail;
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = initial_psn();
	if (ibv_modify_qp(ep->qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN))
		goto fail;
	return 0;
fail:
	failure("%s: UD to RTS", ep->label);
	return -1;
}

/* Progress is measured from the moment an idle QP gets work. */
static void note_posted(struct endpoint *ep, uint64_t now)
{
	if (ep->sq.count + ep->rq.count == 0) {
		ep->last_progress_ms = now;
		ep->stall_reported = false;
	}
}

static bool post_recv(struct endpoint *ep, struct ibv_recv_wr *wr,
		      uint64_t now)
{
	struct ibv_recv_wr *bad;

	note_posted(ep, now);
	if (ibv_post_recv(ep->qp, wr, &bad)) {
		failure("%s: post_recv %s", ep->label,
			kind_name[WRID_KIND(wr->wr_id)]);
		return false;
	}
	if (!fifo_push(&ep->rq, wr->wr_id, now)) {
		violation("%s: receive queue bookkeeping overflow", ep->label);
		return false;
	}
	return true;
}

static bool post_send(struct endpoint *ep, struct ibv_send_wr *wr,
		      uint64_t now)
{
	struct ibv_send_wr *bad;

	note_posted(ep, now);
	if (!ep->sq.count)
		ep->sq_quiet_from_ms = now;
	if (ibv_post_send(ep->qp, wr, &bad)) {
		failure("%s: post_send %s", ep->label,
			kind_name[WRID_KIND(wr->wr_id)]);
		return false;
	}
	if (!fifo_push(&ep->sq, wr->wr_id, now)) {
		violation("%s: send queue bookkeeping overflow", ep->label);
		return false;
	}
	return true;
}

/* --- RC operations -------------------------------------------------------- */

/* Mostly small and mid sizes, a quarter up to the maximum, some empty. */
static uint32_t pick_len(void)
{
	switch (rnd() % 8) {
	case 0:
		return 0;
	case 1:
	case 2:
		return rnd() % (cfg.max_len + 1);
	default:
		return rnd() % (cfg.max_len < 5000 ? cfg.max_len + 1 : 5000);
	}
}

static bool stream_usable(const struct rc_stream *st)
{
	return !pair_broken[st->pair] && !st->req->errored &&
	       !st->req->closed && !st->resp->errored && !st->resp->closed;
}

/* Post the request of a prepared operation (and its receive first). */
static bool rc_post_request(struct rc_stream *st, unsigned int slot,
			    uint64_t now)
{
	struct rc_op *op = &st->op[slot];
	struct ibv_send_wr wr = {
		.wr_id = WRID(op->kind, st->id, slot, op->seq),
		.send_flags = IBV_SEND_SIGNALED |
			      (op->inline_data ? IBV_SEND_INLINE : 0),
		.sg_list = op->src,
		.num_sge = op->nsrc,
	};

	if (op->needs_recv) {
		struct ibv_recv_wr rwr = {
			.wr_id = WRID(K_RECV, st->id, slot, op->seq),
		};

		/* WRITE with immediate consumes a receive but fills none. */
		if (op->kind != K_WRITE_IMM) {
			rwr.sg_list = op->dst;
			rwr.num_sge = op->ndst;
		}
		if (!post_recv(st->resp, &rwr, now))
			return false;
	}
	switch (op->kind) {
	case K_SEND:
		wr.opcode = IBV_WR_SEND;
		break;
	case K_SEND_INV:
		wr.opcode = IBV_WR_SEND_WITH_INV;
		wr.invalidate_rkey = op->inv_rkey;
		break;
	case K_WRITE:
	case K_WRITE_IMM:
		wr.opcode = op->kind == K_WRITE ? IBV_WR_RDMA_WRITE :
						  IBV_WR_RDMA_WRITE_WITH_IMM;
		wr.imm_data = htobe32(op->imm);
		wr.wr.rdma.remote_addr = op->dst[0].addr;
		wr.wr.rdma.rkey = st->resp->side->mr->rkey;
		break;
	case K_READ:
		wr.opcode = IBV_WR_RDMA_READ;
		wr.sg_list = op->dst;
		wr.num_sge = op->ndst;
		wr.wr.rdma.remote_addr = op->src[0].addr;
		wr.wr.rdma.rkey = st->resp->side->mr->rkey;
		break;
	case K_FETCH_ADD:
	case K_CMP_SWAP:
		wr.opcode = op->kind == K_FETCH_ADD ?
			    IBV_WR_ATOMIC_FETCH_AND_ADD :
			    IBV_WR_ATOMIC_CMP_AND_SWP;
		wr.sg_list = op->dst;
		wr.num_sge = 1;
		wr.wr.atomic.remote_addr = (uintptr_t)&st->target[op->word];
		wr.wr.atomic.rkey = st->resp->side->mr->rkey;
		wr.wr.atomic.compare_add = op->compare_add;
		wr.wr.atomic.swap = op->swap;
		break;
	default:
		return false;
	}
	op->state = SLOT_POSTED;
	/* Each packet of a request, or of a READ's response, takes a PSN. */
	op->first_psn = st->req->next_psn;
	op->npsn = op->kind == K_FETCH_ADD || op->kind == K_CMP_SWAP || !op->len ?
		   1 : (op->len + cfg.path_mtu_bytes - 1) / cfg.path_mtu_bytes;
	st->req->next_psn = (st->req->next_psn + op->npsn) & 0xffffff;
	return post_send(st->req, &wr, now);
}

/*
 * SEND with invalidate, first half: the receiver binds its type 2 window
 * of this slot (through its own QP, which alone may then use it) under a
 * new rkey; the SEND follows when the bind has completed, as a consumer
 * would advertise the key only then.
 */
static bool rc_post_bind(struct rc_stream *st, unsigned int slot, uint64_t now)
{
	struct rc_op *op = &st->op[slot];
	struct ibv_mw *mw = st->mw[slot];
	struct ibv_send_wr wr = {
		.wr_id = WRID(K_BIND, st->id, slot, op->seq),
		.opcode = IBV_WR_BIND_MW,
		.send_flags = IBV_SEND_SIGNALED,
	};

	op->inv_rkey = ibv_inc_rkey(mw->rkey);
	wr.bind_mw.mw = mw;
	wr.bind_mw.rkey = op->inv_rkey;
	wr.bind_mw.bind_info.mr = st->resp->side->mr;
	wr.bind_mw.bind_info.addr = (uintptr_t)rc_resp_area(st, slot);
	wr.bind_mw.bind_info.length = MW_WINDOW_LEN;
	wr.bind_mw.bind_info.mw_access_flags = IBV_ACCESS_REMOTE_WRITE;
	op->state = SLOT_BINDING;
	return post_send(st->resp, &wr, now);
}

/* Choose, prepare and post a new operation in a free slot. */
static bool rc_start(struct rc_stream *st, unsigned int slot, uint64_t now)
{
	struct rc_op *op = &st->op[slot];
	uint8_t *req_area = rc_req_area(st, slot);
	uint8_t *resp_area = rc_resp_area(st, slot);
	uint32_t req_lkey = st->req->side->mr->lkey;
	uint32_t resp_lkey = st->resp->side->mr->lkey;
	uint8_t *end, *dst;
	uint64_t *model;
	uint32_t capacity;

	memset(op, 0, sizeof(*op));
	op->kind = rc_kinds[rnd() % num_rc_kinds];
	op->seq = st->next_seq++;
	op->key = payload_key(1, st->id, op->seq);
	op->poison = rnd();
	op->posted_ms = now;
	switch (op->kind) {
	case K_SEND:
	case K_SEND_INV:
		op->len = pick_len();
		op->nsrc = make_sges(req_area, op->len, req_lkey, op->src, &end);
		sges_put_pattern(op->src, op->nsrc, op->len, op->key);
		/* Sometimes more room than the message: the rest stays. */
		capacity = op->len + (rnd() % 4 ? 0 : rnd() % RECV_EXTRA_MAX);
		op->ndst = make_sges(resp_area, capacity, resp_lkey, op->dst,
				     &end);
		op->span_lo = resp_area;
		op->span_hi = end + GUARD;
		op->needs_recv = true;
		break;
	case K_WRITE:
	case K_WRITE_IMM:
		op->len = pick_len();
		op->nsrc = make_sges(req_area, op->len, req_lkey, op->src, &end);
		sges_put_pattern(op->src, op->nsrc, op->len, op->key);
		dst = resp_area + GUARD + rnd() % START_JITTER;
		op->dst[0].addr = (uintptr_t)dst;
		op->dst[0].length = op->len;
		op->dst[0].lkey = resp_lkey;
		op->ndst = 1;
		op->span_lo = resp_area;
		op->span_hi = dst + op->len + GUARD;
		op->needs_recv = op->kind == K_WRITE_IMM;
		op->imm = (uint32_t)mix64(op->key);
		break;
	case K_READ:
		op->len = pick_len();
		op->src[0].addr = (uintptr_t)resp_area + GUARD +
				  rnd() % START_JITTER;
		op->src[0].length = op->len;
		op->src[0].lkey = resp_lkey;
		op->nsrc = 1;
		pattern_put((uint8_t *)(uintptr_t)op->src[0].addr, op->len,
			    op->key, 0);
		op->ndst = make_sges(req_area, op->len, req_lkey, op->dst, &end);
		op->span_lo = req_area;
		op->span_hi = end + GUARD;
		break;
	case K_FETCH_ADD:
	case K_CMP_SWAP:
		op->len = 8;
		op->word = rnd() % ATOMIC_WORDS;
		model = &st->model[op->word];
		op->model_before = *model;
		if (op->kind == K_FETCH_ADD) {
			op->compare_add = rnd64();
			*model += op->compare_add;
		} else if (rnd() % 4) {
			op->compare_add = *model;	/* matches: swaps */
			op->swap = rnd64();
			*model = op->swap;
		} else {
			/* A compare that fails leaves the target as it is. */
			op->compare_add = *model ^ (1ULL << (rnd() % 64));
			op->swap = rnd64();
		}
		op->model_after = *model;
		op->dst[0].addr = (uintptr_t)req_area + GUARD;
		op->dst[0].length = 8;
		op->dst[0].lkey = req_lkey;
		op->ndst = 1;
		op->span_lo = req_area;
		op->span_hi = req_area + 2 * GUARD + 8;
		break;
	default:
		return false;
	}
	if (op->span_lo)
		memset(op->span_lo, op->poison, op->span_hi - op->span_lo);
	if (op->kind != K_READ && op->kind != K_FETCH_ADD &&
	    op->kind != K_CMP_SWAP && op->len <= st->req->max_inline)
		op->inline_data = rnd() % 2;
	if (op->kind == K_SEND_INV)
		return rc_post_bind(st, slot, now);
	return rc_post_request(st, slot, now);
}

static const char *side_tag_name(const struct rc_stream *st)
{
	return st->dir ? "B->A" : "A->B";
}

/* Describe an operation for a violation report. */
static void op_describe(const struct rc_stream *st, const struct rc_op *op,
			char *out, size_t size)
{
	snprintf(out, size, "rc%u %s seq %u %s of %u bytes%s (QP %#x to %#x, PSN %#x..%#x)",
		 st->pair, side_tag_name(st), op->seq, kind_name[op->kind],
		 op->len, op->inline_data ? " (inline)" : "",
		 st->req->qp->qp_num, st->resp->qp->qp_num, op->first_psn,
		 (op->first_psn + op->npsn - 1) & 0xffffff);
}

static void report_mismatch(const struct rc_stream *st, const struct rc_op *op,
			    const char *where, const struct mismatch *m)
{
	char what[160];

	op_describe(st, op, what, sizeof(what));
	violation("%s: %s: %u bytes wrong from byte %u (%#x, want %#x) to byte %u, %u of them never written (poison %#x); posted %" PRIu64 " ms before",
		  what, where, m->count, m->at, m->got, m->want, m->last,
		  m->poisoned, m->poison, sroce_now_ms() - op->posted_ms);
}

static void check_poison(const struct rc_stream *st, const struct rc_op *op,
			 uint32_t used)
{
	const uint8_t *bad = poison_outside(op->span_lo, op->span_hi, op->dst,
					    op->ndst, used, op->poison);
	char what[160];

	if (!bad)
		return;
	op_describe(st, op, what, sizeof(what));
	violation("%s: byte %+td from the destination's start was overwritten (%#x, poison %#x)",
		  what, bad - (const uint8_t *)(uintptr_t)op->dst[0].addr,
		  *bad, op->poison);
}

/*
 * Known defect read_wrap: the requester's expected response PSN starts at
 * 0, not at the initial SQ PSN, so a QP's first READ (or atomic) whose
 * PSN range passes 0 takes PSN 0 for its next response: the responses
 * before the wrap are dropped and the READ completes without them. The
 * signature: that first READ, its range wrapping, every wrong byte still
 * the poison, all of them in the packets before the wrap.
 */
static bool read_wrap_signature(const struct rc_stream *st,
				const struct rc_op *op,
				const struct mismatch *m)
{
	uint32_t before_wrap = 0x1000000 - op->first_psn;

	return op->kind == K_READ && op->first_psn + op->npsn > 0x1000000 &&
	       !st->req->rd_atomic_done && m->poisoned == m->count &&
	       (uint64_t)m->last < (uint64_t)before_wrap * cfg.path_mtu_bytes;
}

/* The destination holds the payload, and nothing around it changed. */
static void verify_destination(const struct rc_stream *st,
			       const struct rc_op *op, const char *where)
{
	struct mismatch m = { .poison = op->poison };
	char what[160];

	if (!sges_hold_pattern(op->dst, op->ndst, 0, op->len, op->key, &m)) {
		if (!known("read_wrap") || !read_wrap_signature(st, op, &m)) {
			report_mismatch(st, op, where, &m);
			return;
		}
		stats.known_read_wrap++;
		op_describe(st, op, what, sizeof(what));
		printf("storm: known defect read_wrap: %s: bytes %u..%u, the packets before PSN 0, never written\n",
		       what, m.at, m.last);
	} else {
		stats.bytes_verified += op->len;
	}
	check_poison(st, op, op->len);
}

static void verify_atomic(const struct rc_stream *st, const struct rc_op *op)
{
	uint64_t got;
	char what[160];

	memcpy(&got, (const void *)(uintptr_t)op->dst[0].addr, sizeof(got));
	if (got != op->model_before) {
		op_describe(st, op, what, sizeof(what));
		violation("%s: returned %#" PRIx64 ", the target held %#" PRIx64,
			  what, got, op->model_before);
		return;
	}
	check_poison(st, op, 8);
	stats.bytes_verified += 8;
}

/*
 * An atomic whose outcome is unknown (its QP failed): it and those after
 * it on the same word may or may not have been applied, in order.
 */
static void atomic_unconfirmed(struct rc_stream *st, const struct rc_op *op)
{
	struct word_outcomes *w = &st->outcomes[op->word];

	if (!w->n)
		w->value[w->n++] = op->model_before;
	if (w->n < ARRAY_SIZE(w->value))
		w->value[w->n++] = op->model_after;
}

/* Both halves seen (the send, and the receive if any): the slot frees. */
static void rc_try_finish(struct rc_stream *st, struct rc_op *op, uint64_t now)
{
	uint64_t took;

	if (op->state != SLOT_POSTED || !op->send_done ||
	    (op->needs_recv && !op->recv_done))
		return;
	if (op->send_status == IBV_WC_SUCCESS)
		stats.ok[op->kind]++;
	else
		stats.unknown_outcome++;
	took = now - op->posted_ms;
	if (took > stats.max_op_ms)
		stats.max_op_ms = took;
	op->state = SLOT_FREE;
}

static enum ibv_wc_opcode send_opcode(enum kind kind)
{
	switch (kind) {
	case K_WRITE:
	case K_WRITE_IMM:
		return IBV_WC_RDMA_WRITE;
	case K_READ:
		return IBV_WC_RDMA_READ;
	case K_FETCH_ADD:
		return IBV_WC_FETCH_ADD;
	case K_CMP_SWAP:
		return IBV_WC_COMP_SWAP;
	case K_BIND:
		return IBV_WC_BIND_MW;
	default:
		return IBV_WC_SEND;
	}
}

static struct rc_op *rc_op_of(struct rc_stream *st, uint64_t wr_id,
			      enum slot_state want)
{
	unsigned int slot = WRID_SLOT(wr_id);
	struct rc_op *op = &st->op[slot];

	if (slot >= cfg.depth || op->state != want || op->seq != WRID_SEQ(wr_id)) {
		violation("rc%u %s: completion of %s seq %u in slot %u, which holds seq %u in state %d",
			  st->pair, side_tag_name(st),
			  kind_name[WRID_KIND(wr_id)], WRID_SEQ(wr_id), slot,
			  op->seq, op->state);
		return NULL;
	}
	return op;
}

static void rc_send_completion(struct rc_stream *st, const struct ibv_wc *wc,
			       uint64_t now)
{
	struct rc_op *op = rc_op_of(st, wc->wr_id, SLOT_POSTED);
	char what[160];

	if (!op)
		return;
	op->send_done = true;
	op->send_status = wc->status;
	if (wc->status != IBV_WC_SUCCESS) {
		if (op->kind == K_FETCH_ADD || op->kind == K_CMP_SWAP)
			atomic_unconfirmed(st, op);
		rc_try_finish(st, op, now);
		return;
	}
	if (wc->opcode != send_opcode(op->kind)) {
		op_describe(st, op, what, sizeof(what));
		violation("%s: completion opcode %d, want %d", what, wc->opcode,
			  send_opcode(op->kind));
	}
	switch (op->kind) {
	case K_READ:
		verify_destination(st, op, "READ data");
		break;
	case K_WRITE:
		verify_destination(st, op, "WRITE data at the responder");
		break;
	case K_FETCH_ADD:
	case K_CMP_SWAP:
		verify_atomic(st, op);
		break;
	default:
		break;
	}
	if (op->kind == K_READ || op->kind == K_FETCH_ADD ||
	    op->kind == K_CMP_SWAP)
		st->req->rd_atomic_done++;
	/* A SEND the requester saw acknowledged was received. */
	if (op->needs_recv && op->recv_done &&
	    op->recv_status != IBV_WC_SUCCESS) {
		op_describe(st, op, what, sizeof(what));
		violation("%s: the sender completed it, the receive was %s (silent loss)",
			  what, ibv_wc_status_str(op->recv_status));
	}
	rc_try_finish(st, op, now);
}

static void rc_recv_completion(struct rc_stream *st, const struct ibv_wc *wc,
			       uint64_t now)
{
	struct rc_op *op = rc_op_of(st, wc->wr_id, SLOT_POSTED);
	unsigned int want_flags = 0, flags;
	enum ibv_wc_opcode want_opcode = IBV_WC_RECV;
	char what[160];

	if (!op)
		return;
	op->recv_done = true;
	op->recv_status = wc->status;
	if (wc->status != IBV_WC_SUCCESS) {
		if (op->send_done && op->send_status == IBV_WC_SUCCESS) {
			op_describe(st, op, what, sizeof(what));
			violation("%s: the sender completed it, the receive was %s (silent loss)",
				  what, ibv_wc_status_str(wc->status));
		}
		rc_try_finish(st, op, now);
		return;
	}
	op_describe(st, op, what, sizeof(what));
	if (op->kind == K_WRITE_IMM) {
		want_opcode = IBV_WC_RECV_RDMA_WITH_IMM;
		want_flags = IBV_WC_WITH_IMM;
	} else if (op->kind == K_SEND_INV) {
		want_flags = IBV_WC_WITH_INV;
	}
	flags = wc->wc_flags & (IBV_WC_WITH_IMM | IBV_WC_WITH_INV);
	/*
	 * Known defect inv_flag: the kernel's IB_WC_WITH_INVALIDATE (bit 2)
	 * written into the user CQ, where it reads as IBV_WC_IP_CSUM_OK.
	 * Counted, and the rest still checked.
	 */
	if (known("inv_flag") && op->kind == K_SEND_INV && !flags &&
	    (wc->wc_flags & IBV_WC_IP_CSUM_OK)) {
		stats.known_inv_flag++;
		flags = IBV_WC_WITH_INV;
	}
	if (wc->opcode != want_opcode || flags != want_flags ||
	    wc->byte_len != op->len) {
		violation("%s: receive completion opcode %d, wc_flags %#x, %u bytes; want opcode %d, flags %#x set, %u bytes",
			  what, wc->opcode, wc->wc_flags, wc->byte_len,
			  want_opcode, want_flags, op->len);
	} else if (op->kind == K_WRITE_IMM && be32toh(wc->imm_data) != op->imm) {
		violation("%s: immediate %#x, want %#x", what,
			  be32toh(wc->imm_data), op->imm);
	} else if (op->kind == K_SEND_INV &&
		   wc->invalidated_rkey != op->inv_rkey) {
		violation("%s: invalidated rkey %#x, want %#x", what,
			  wc->invalidated_rkey, op->inv_rkey);
	} else {
		verify_destination(st, op, op->kind == K_WRITE_IMM ?
				   "WRITE data" : "received data");
	}
	rc_try_finish(st, op, now);
}

static void rc_bind_completion(struct rc_stream *st, const struct ibv_wc *wc,
			       uint64_t now)
{
	unsigned int slot = WRID_SLOT(wc->wr_id);
	struct rc_op *op = rc_op_of(st, wc->wr_id, SLOT_BINDING);
	char what[160];

	if (!op)
		return;
	if (wc->status == IBV_WC_SUCCESS) {
		if (wc->opcode != IBV_WC_BIND_MW) {
			op_describe(st, op, what, sizeof(what));
			violation("%s: bind completion opcode %d, want %d",
				  what, wc->opcode, IBV_WC_BIND_MW);
		}
		/* The window has its new key; the library keeps the old. */
		st->mw[slot]->rkey = op->inv_rkey;
		if (stream_usable(st) && !posting_stopped) {
			rc_post_request(st, slot, now);
			return;
		}
	}
	/* Its QP failed, or posting stopped, before the SEND could follow. */
	stats.cancelled++;
	op->state = SLOT_FREE;
}

/* --- UD ----------------------------------------------------------------- */

/* A datagram's size follows from its sequence: the receiver checks it. */
static uint32_t ud_len(const struct ud_stream *st, uint32_t seq)
{
	uint64_t r = mix64(payload_key(3, st->id, seq));

	switch (r % 8) {
	case 0:
		return 0;
	case 1:
		return ud_max_len;
	default:
		return (r >> 8) % (ud_max_len + 1);
	}
}

static bool ud_seen(const struct ud_stream *st, uint32_t seq)
{
	return seq < st->received_bits &&
	       (st->received[seq / 8] & (1u << (seq % 8)));
}

static bool ud_post_recv(struct endpoint *ep, unsigned int slot, uint64_t now)
{
	struct ud_rx_slot *r = &ep->rx[slot];
	uint8_t *area = ud_rx_area(ep, slot);
	uint8_t *at = area + GUARD + rnd() % SGE_GAP_MAX;
	uint32_t capacity = GRH_LEN + ud_max_len, first;
	struct ibv_recv_wr wr = {
		.wr_id = WRID(K_UD_RECV, ep->pair, slot, ep->rx_posted++),
		.sg_list = r->sge,
	};

	/* One piece, or two with a gap, split anywhere (in the GRH, too). */
	r->nsge = 1 + rnd() % 2;
	first = r->nsge == 1 ? capacity : 1 + rnd() % (capacity - 1);
	r->sge[0].addr = (uintptr_t)at;
	r->sge[0].length = first;
	r->sge[0].lkey = ep->side->mr->lkey;
	at += first + rnd() % SGE_GAP_MAX;
	r->sge[1].addr = (uintptr_t)at;
	r->sge[1].length = capacity - first;
	r->sge[1].lkey = ep->side->mr->lkey;
	if (r->nsge == 2)
		at += capacity - first;
	r->span_lo = area;
	r->span_hi = at + GUARD;
	r->poison = rnd();
	memset(r->span_lo, r->poison, r->span_hi - r->span_lo);
	wr.num_sge = r->nsge;
	return post_recv(ep, &wr, now);
}

/*
 * Whether the next datagram may go: at most UD_WINDOW sent that are
 * neither received nor older than UD_FLIGHT_MS, so that the receive ring
 * (twice that) never runs dry while datagrams are on their way.
 */
static bool ud_may_send(const struct ud_stream *st, uint64_t now)
{
	uint32_t seq = st->next_seq, oldest;

	if (seq < UD_WINDOW)
		return true;
	oldest = seq - UD_WINDOW;
	return ud_seen(st, oldest) ||
	       now - st->posted_ms[oldest % UD_WINDOW] >= UD_FLIGHT_MS;
}

static bool ud_send(struct ud_stream *st, unsigned int slot, uint64_t now)
{
	uint32_t seq = st->next_seq, len = ud_len(st, seq), split;
	uint8_t *at = ud_tx_area(st, slot) + GUARD + rnd() % SGE_GAP_MAX;
	struct ibv_sge sge[2];
	struct ibv_send_wr wr = {
		.wr_id = WRID(K_UD_SEND, st->id, slot, seq),
		.opcode = IBV_WR_SEND_WITH_IMM,
		.send_flags = IBV_SEND_SIGNALED,
		.imm_data = htobe32(seq),
		.sg_list = sge,
		.num_sge = len && rnd() % 2 ? 2 : 1,
	};
	uint64_t key = payload_key(2, st->id, seq);

	split = wr.num_sge == 2 ? rnd() % (len + 1) : len;
	sge[0].addr = (uintptr_t)at;
	sge[0].length = split;
	sge[0].lkey = st->tx->side->mr->lkey;
	sge[1].addr = (uintptr_t)at + split + rnd() % SGE_GAP_MAX;
	sge[1].length = len - split;
	sge[1].lkey = st->tx->side->mr->lkey;
	sges_put_pattern(sge, wr.num_sge, len, key);
	wr.wr.ud.ah = st->ah;
	wr.wr.ud.remote_qpn = st->rx->qp->qp_num;
	wr.wr.ud.remote_qkey = UD_QKEY;
	if (seq / 8 >= st->received_bits / 8) {
		uint32_t bits = st->received_bits ? 2 * st->received_bits : 8192;
		uint8_t *grown = realloc(st->received, bits / 8);

		if (!grown) {
			failure("UD bitmap of %u bits", bits);
			return false;
		}
		memset(grown + st->received_bits / 8, 0,
		       (bits - st->received_bits) / 8);
		st->received = grown;
		st->received_bits = bits;
	}
	st->posted_ms[seq % UD_WINDOW] = now;
	st->slot_busy[slot] = true;
	st->next_seq++;
	stats.ud_sent++;
	return post_send(st->tx, &wr, now);
}

static void ud_send_completion(struct ud_stream *st, const struct ibv_wc *wc,
			       uint64_t now)
{
	unsigned int slot = WRID_SLOT(wc->wr_id);

	if (wc->status != IBV_WC_SUCCESS || wc->opcode != IBV_WC_SEND)
		violation("ud%u %s: datagram %u completed with %s, opcode %d",
			  st->pair, st->dir ? "B->A" : "A->B",
			  WRID_SEQ(wc->wr_id), ibv_wc_status_str(wc->status),
			  wc->opcode);
	if (slot < cfg.depth)
		st->slot_busy[slot] = false;
	stats.ok[K_UD_SEND]++;
	st->last_activity_ms = now;
}

/* The GRH area holds the IP header the datagram came with. */
static bool ud_grh_ok(const uint8_t *grh, const union ibv_gid *src,
		      const union ibv_gid *dst)
{
	if (gid_is_v4_mapped(src))
		return grh[20] >> 4 == 4 &&
		       !memcmp(grh + 20 + 12, src->raw + 12, 4) &&
		       !memcmp(grh + 20 + 16, dst->raw + 12, 4);
	return grh[0] >> 4 == 6 && !memcmp(grh + 8, src->raw, 16) &&
	       !memcmp(grh + 24, dst->raw, 16);
}

/* Whether a received datagram is wrong in any way (each way reported). */
static bool ud_datagram_bad(const struct endpoint *ep, const struct ibv_wc *wc,
			    uint32_t seq)
{
	const struct ud_stream *st = ep->incoming;
	const struct ud_rx_slot *r = &ep->rx[WRID_SLOT(wc->wr_id)];
	struct mismatch m = { .poison = r->poison };
	uint8_t grh[GRH_LEN];
	const uint8_t *bad;
	uint32_t len;

	if (wc->opcode != IBV_WC_RECV ||
	    (wc->wc_flags & (IBV_WC_GRH | IBV_WC_WITH_IMM)) !=
	    (IBV_WC_GRH | IBV_WC_WITH_IMM)) {
		violation("%s: UD receive opcode %d, flags %#x: want a SEND with immediate and a GRH",
			  ep->label, wc->opcode, wc->wc_flags);
		return true;
	}
	if (seq >= st->next_seq) {
		violation("%s: datagram %u received, only %u were sent",
			  ep->label, seq, st->next_seq);
		return true;
	}
	if (wc->src_qp != st->tx->qp->qp_num) {
		violation("%s: datagram %u from QP %u, want %u", ep->label, seq,
			  wc->src_qp, st->tx->qp->qp_num);
		return true;
	}
	len = ud_len(st, seq);
	if (wc->byte_len != GRH_LEN + len) {
		violation("%s: datagram %u of %u bytes, want %u + %u of GRH",
			  ep->label, seq, wc->byte_len, len, GRH_LEN);
		return true;
	}
	sges_gather(r->sge, r->nsge, grh, GRH_LEN);
	if (!ud_grh_ok(grh, &st->tx->side->gid, &ep->side->gid)) {
		violation("%s: datagram %u: the GRH area does not hold its IP header",
			  ep->label, seq);
		return true;
	}
	if (!sges_hold_pattern(r->sge, r->nsge, GRH_LEN, len,
			       payload_key(2, st->id, seq), &m)) {
		violation("%s: datagram %u of %u bytes: %u bytes wrong, first at byte %u (%#x, want %#x)",
			  ep->label, seq, len, m.count, m.at, m.got, m.want);
		return true;
	}
	bad = poison_outside(r->span_lo, r->span_hi, r->sge, r->nsge,
			     GRH_LEN + len, r->poison);
	if (bad) {
		violation("%s: datagram %u: byte %td of its receive area was overwritten",
			  ep->label, seq, bad - r->span_lo);
		return true;
	}
	return false;
}

static void ud_recv_completion(struct endpoint *ep, const struct ibv_wc *wc,
			       uint64_t now)
{
	struct ud_stream *st = ep->incoming;
	uint32_t seq = be32toh(wc->imm_data);

	if (wc->status != IBV_WC_SUCCESS) {
		violation("%s: UD receive %s", ep->label,
			  ibv_wc_status_str(wc->status));
		return;
	}
	st->last_activity_ms = now;
	if (ud_datagram_bad(ep, wc, seq)) {
		/* reported */
	} else if (ud_seen(st, seq)) {
		stats.ud_dup++;	/* the wire may duplicate: not a violation */
	} else {
		st->received[seq / 8] |= 1u << (seq % 8);
		st->distinct++;
		stats.ok[K_UD_RECV]++;
		stats.bytes_verified += ud_len(st, seq);
	}
	if (!ep->errored && !ep->closed)
		ud_post_recv(ep, WRID_SLOT(wc->wr_id), now);
}

/*
 * Length of the prefix of an operation's destination that holds its data
 * (READ responses and SEND packets are placed in PSN order).
 */
static uint32_t placed_prefix(const struct rc_op *op)
{
	uint32_t off = 0, take, k;
	int i;

	for (i = 0; i < op->ndst && off < op->len; i++) {
		take = op->dst[i].length;
		if (take > op->len - off)
			take = op->len - off;
		k = pattern_diff((const uint8_t *)(uintptr_t)op->dst[i].addr,
				 take, op->key, off);
		off += k;
		if (k < take)
			break;
	}
	return off;
}

/*
 * Known defect flush_rwqe: when an RC QP goes to the error state while a
 * message is partly received, the receive WQE that message holds (already
 * taken off the ring) is dropped instead of flushed: it never completes.
 * The signature: a QP that failed (or was closed), a receive never
 * completed whose buffer holds part of its message and not all of it.
 * Such a receive is then settled as flushed. Return: whether it matched.
 */
static bool lost_partial_receive(struct endpoint *ep, uint64_t id)
{
	struct rc_stream *st = &rc_streams[WRID_STREAM(id)];
	struct rc_op *op = &st->op[WRID_SLOT(id) % MAX_DEPTH];
	uint32_t placed;
	char what[160];

	if (!known("flush_rwqe") || ep->is_ud || !(ep->errored || ep->closed) ||
	    WRID_KIND(id) != K_RECV || op->state != SLOT_POSTED ||
	    op->seq != WRID_SEQ(id) || op->kind == K_WRITE_IMM)
		return false;
	placed = placed_prefix(op);
	if (!placed || placed >= op->len)
		return false;
	stats.known_flush_rwqe++;
	op_describe(st, op, what, sizeof(what));
	printf("storm: known defect flush_rwqe: %s: its receive on %s, %u of %u bytes in, never completed after the QP's error\n",
	       what, ep->label, placed, op->len);
	op->recv_done = true;
	op->recv_status = IBV_WC_WR_FLUSH_ERR;
	rc_try_finish(st, op, sroce_now_ms());
	return true;
}

/* --- completions ------------------------------------------------------------- */

static struct endpoint *endpoint_of(const struct side *s, uint32_t qpn)
{
	unsigned int p, side = s == &sides[1];

	for (p = 0; p < cfg.rc_pairs; p++)
		if (rc_ep[p][side].qp->qp_num == qpn)
			return &rc_ep[p][side];
	for (p = 0; p < cfg.ud_pairs; p++)
		if (ud_ep[p][side].qp->qp_num == qpn)
			return &ud_ep[p][side];
	return NULL;
}

/* A QP failed: its pair carries nothing new in either direction. */
static void break_pair(unsigned int pair)
{
	if (!pair_broken[pair])
		printf("storm: rc%u failed; its pair stops\n", pair);
	pair_broken[pair] = true;
}

/*
 * A failed QP's peer may be left waiting with receives only; once its own
 * sends are done (or failed), it is moved to the error state, which must
 * flush them, as a consumer would tear the connection down.
 */
static void close_broken_peers(void)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_ERR };
	unsigned int p, s;

	for (p = 0; p < cfg.rc_pairs; p++) {
		if (!pair_broken[p])
			continue;
		for (s = 0; s < 2; s++) {
			struct endpoint *ep = &rc_ep[p][s];

			if (ep->errored || ep->closed || ep->sq.count)
				continue;
			ep->closed = true;
			stats.closed++;
			if (ibv_modify_qp(ep->qp, &a, IBV_QP_STATE))
				failure("%s: modify to ERR", ep->label);
		}
	}
}

/*
 * The status rules every completion obeys: success while the QP is
 * healthy; after its first error (or after it was closed here) flushes
 * only; that error a transport retry exhaustion of an RC QP, and only when
 * -E allows it.
 */
static void apply_status_rules(struct endpoint *ep, const struct ibv_wc *wc,
			       bool receive)
{
	const char *what = kind_name[WRID_KIND(wc->wr_id)];

	if (wc->status == IBV_WC_SUCCESS) {
		if (ep->errored || ep->closed)
			violation("%s: %s seq %u succeeded after the QP's error",
				  ep->label, what, WRID_SEQ(wc->wr_id));
		return;
	}
	if (wc->status == IBV_WC_WR_FLUSH_ERR) {
		stats.flushed++;
		if (!ep->errored && !ep->closed)
			violation("%s: %s seq %u flushed, but the QP reported no error",
				  ep->label, what, WRID_SEQ(wc->wr_id));
		return;
	}
	if (!ep->is_ud && !receive && !ep->errored && !ep->closed &&
	    wc->status == IBV_WC_RETRY_EXC_ERR &&
	    cfg.qp_errors != QP_ERRORS_FORBIDDEN) {
		ep->errored = true;
		stats.retry_exceeded++;
		printf("storm: %s: %s seq %u: %s, the rest must flush\n",
		       ep->label, what, WRID_SEQ(wc->wr_id),
		       ibv_wc_status_str(wc->status));
		break_pair(ep->pair);
		return;
	}
	violation("%s: %s seq %u completed with %s (vendor error %#x)%s",
		  ep->label, what, WRID_SEQ(wc->wr_id),
		  ibv_wc_status_str(wc->status), wc->vendor_err,
		  ep->errored ? " after the QP's error" : "");
	if (!ep->is_ud) {
		ep->errored = true;
		break_pair(ep->pair);
	}
}

static void on_completion(struct side *s, const struct ibv_wc *wc,
			  uint64_t now)
{
	struct endpoint *ep = endpoint_of(s, wc->qp_num);
	unsigned int kind = WRID_KIND(wc->wr_id);
	unsigned int stream = WRID_STREAM(wc->wr_id);
	bool receive = kind == K_RECV || kind == K_UD_RECV;
	struct wr_fifo *f;
	unsigned int i;

	if (!ep) {
		violation("%c: completion of wr_id %#" PRIx64 " for QP %u, which is none of ours",
			  s->tag, wc->wr_id, wc->qp_num);
		return;
	}
	f = receive ? &ep->rq : &ep->sq;
	/* The one receive a partly received message held, skipped. */
	if (receive && f->count > 1 && f->id[f->head] != wc->wr_id &&
	    f->id[(f->head + 1) % FIFO_CAP] == wc->wr_id &&
	    wc->status == IBV_WC_WR_FLUSH_ERR &&
	    lost_partial_receive(ep, f->id[f->head]))
		fifo_pop(f);
	if (!f->count || f->id[f->head] != wc->wr_id) {
		for (i = 1; i < f->count; i++)
			if (f->id[(f->head + i) % FIFO_CAP] == wc->wr_id)
				break;
		if (i < f->count)
			violation("%s: %s seq %u completed, but the %u posted before it on that queue did not",
				  ep->label, kind_name[kind % K_NUM],
				  WRID_SEQ(wc->wr_id), i);
		else
			violation("%s: completion of wr_id %#" PRIx64 " (%s) that is not outstanding: duplicate or unknown",
				  ep->label, wc->wr_id, kind < K_NUM ?
				  kind_name[kind] : "?");
		return;
	}
	fifo_pop(f);
	ep->last_progress_ms = now;
	ep->progressed = true;
	if (!receive && !ep->is_ud) {
		if (now - ep->sq_quiet_from_ms > stats.max_sq_quiet_ms) {
			stats.max_sq_quiet_ms = now - ep->sq_quiet_from_ms;
			snprintf(stats.max_sq_quiet_label,
				 sizeof(stats.max_sq_quiet_label), "%s",
				 ep->label);
		}
		ep->sq_quiet_from_ms = now;
	}
	apply_status_rules(ep, wc, receive);
	switch (kind) {
	case K_UD_SEND:
		ud_send_completion(&ud_streams[stream], wc, now);
		break;
	case K_UD_RECV:
		ud_recv_completion(ep, wc, now);
		break;
	case K_BIND:
		rc_bind_completion(&rc_streams[stream], wc, now);
		break;
	case K_RECV:
		rc_recv_completion(&rc_streams[stream], wc, now);
		break;
	default:
		rc_send_completion(&rc_streams[stream], wc, now);
		break;
	}
}

/* Take every completion of a side; re-arm its CQ after an event. */
static int service_cq(struct side *s)
{
	struct ibv_wc wc[CQ_BATCH];
	struct ibv_cq *ev_cq;
	void *ev_ctx;
	int n, i, total = 0, round;

	while (!ibv_get_cq_event(s->channel, &ev_cq, &ev_ctx)) {
		ibv_ack_cq_events(ev_cq, 1);
		s->armed = false;
	}
	if (!s->armed) {
		if (ibv_req_notify_cq(s->cq, 0)) {
			failure("%c: arm CQ", s->tag);
			return -1;
		}
		s->armed = true;
	}
	for (round = 0; round < CQ_ROUNDS; round++) {
		n = ibv_poll_cq(s->cq, CQ_BATCH, wc);
		if (n < 0) {
			failure("%c: poll CQ", s->tag);
			return -1;
		}
		for (i = 0; i < n; i++)
			on_completion(s, &wc[i], sroce_now_ms());
		total += n;
		if (n < CQ_BATCH)
			break;
	}
	return total;
}

/* --- the run ---------------------------------------------------------------- */

static unsigned long ops_posted;

static bool posting_allowed(void)
{
	return !violations && (!cfg.max_ops || ops_posted < cfg.max_ops);
}

static void post_work(uint64_t now)
{
	unsigned int i, slot;

	for (i = 0; i < 2 * cfg.rc_pairs; i++) {
		struct rc_stream *st = &rc_streams[i];

		for (slot = 0; slot < cfg.depth && stream_usable(st) &&
		     posting_allowed(); slot++) {
			if (st->op[slot].state != SLOT_FREE)
				continue;
			if (!rc_start(st, slot, now))
				return;
			ops_posted++;
		}
	}
	for (i = 0; i < 2 * cfg.ud_pairs; i++) {
		struct ud_stream *st = &ud_streams[i];

		for (slot = 0; slot < cfg.depth && posting_allowed(); slot++) {
			if (st->slot_busy[slot] || !ud_may_send(st, now))
				continue;
			if (!ud_send(st, slot, now))
				return;
			ops_posted++;
		}
	}
}

static bool all_queues_empty(void)
{
	unsigned int p, s;

	for (p = 0; p < cfg.rc_pairs; p++)
		for (s = 0; s < 2; s++)
			if (rc_ep[p][s].sq.count || rc_ep[p][s].rq.count)
				return false;
	for (p = 0; p < cfg.ud_pairs; p++)
		for (s = 0; s < 2; s++)
			if (ud_ep[p][s].sq.count)
				return false;
	return true;
}

/* UD is done once every datagram arrived or none came for a while. */
static bool ud_quiet(uint64_t now)
{
	unsigned int i;

	for (i = 0; i < 2 * cfg.ud_pairs; i++) {
		const struct ud_stream *st = &ud_streams[i];

		if (st->distinct < st->next_seq &&
		    now - st->last_activity_ms < UD_FLIGHT_MS)
			return false;
	}
	return true;
}

/*
 * A READ places its responses in PSN order, so its destination fills
 * from the front: how far it got, and when that last moved, tells a READ
 * that advances slowly from one that is stuck.
 */
static void watch_head_read(struct endpoint *ep, uint64_t now)
{
	uint64_t id = ep->sq.count ? ep->sq.id[ep->sq.head] : 0;
	uint32_t placed;

	if (!id || WRID_KIND(id) != K_READ) {
		ep->head_read_id = 0;
		return;
	}
	placed = placed_prefix(&rc_streams[WRID_STREAM(id)].op[WRID_SLOT(id)]);
	if (id != ep->head_read_id) {
		/* First seen: it moved no later than the QP's last completion. */
		ep->head_read_id = id;
		ep->head_read_placed = placed;
		ep->head_read_grew_ms = ep->last_progress_ms;
	} else if (placed > ep->head_read_placed) {
		ep->head_read_placed = placed;
		ep->head_read_grew_ms = now;
	}
}

/* The other end of an RC QP's connection. */
static const struct endpoint *rc_peer(const struct endpoint *ep)
{
	return &rc_ep[ep->pair][ep->side == &sides[0]];
}

/*
 * The QP whose head READ an RC QP waits on: itself while it has requests
 * outstanding, else (receives only) its peer, whose requests they await.
 */
static const struct endpoint *slow_reader(const struct endpoint *ep)
{
	return ep->sq.count ? ep : rc_peer(ep);
}

/* Its oldest request is a READ whose data arrived within a retry budget. */
static bool head_read_advancing(const struct endpoint *ep, uint64_t now)
{
	return ep->sq.count && ep->head_read_id == ep->sq.id[ep->sq.head] &&
	       now - ep->head_read_grew_ms <= budget_ms;
}

/*
 * Known defect read_gap: a READ response that comes out of order (after
 * a loss, or reordered) is dropped and asked for again only when the
 * transport timer fires, so a long READ under loss or reordering
 * advances a few packets per timeout. A QP waits on it if its oldest
 * request is such a READ still advancing, or if it only waits for
 * requests of a peer in that state.
 */
static bool waits_on_slow_read(const struct endpoint *ep, uint64_t now)
{
	return head_read_advancing(slow_reader(ep), now);
}

/* What a queue still holds, described by its oldest work request. */
static void describe_oldest(const struct wr_fifo *f, uint64_t now, char *out,
			    size_t size)
{
	uint64_t id = f->id[f->head];
	unsigned int kind = WRID_KIND(id) % K_NUM;
	const struct rc_op *op;

	if (kind == K_UD_SEND || kind == K_UD_RECV) {
		snprintf(out, size, "oldest %s seq %u, posted %" PRIu64 " ms ago",
			 kind_name[kind], WRID_SEQ(id),
			 now - f->posted_ms[f->head]);
		return;
	}
	op = &rc_streams[WRID_STREAM(id)].op[WRID_SLOT(id)];
	snprintf(out, size, "oldest %s for %s seq %u, %s of %u bytes, PSN %#x..%#x, posted %" PRIu64 " ms ago",
		 kind_name[kind],
		 side_tag_name(&rc_streams[WRID_STREAM(id)]), WRID_SEQ(id),
		 kind_name[op->kind], op->len, op->first_psn,
		 (op->first_psn + op->npsn - 1) & 0xffffff,
		 now - f->posted_ms[f->head]);
}

/* How far the READ at the head of the send queue got, for a report. */
static const char *head_read_state(const struct endpoint *ep, uint64_t now)
{
	static char out[96];

	if (!ep->sq.count || ep->head_read_id != ep->sq.id[ep->sq.head])
		return "";
	snprintf(out, sizeof(out), "; %u bytes of it placed, the last %" PRIu64 " ms ago",
		 ep->head_read_placed, now - ep->head_read_grew_ms);
	return out;
}

/* A QP with work outstanding must complete something in time. */
static void watchdog(uint64_t now)
{
	static uint64_t next_read_watch;
	bool watch_reads = now >= next_read_watch;
	char what[192];
	unsigned int p, s;

	if (watch_reads)
		next_read_watch = now + WAIT_MS * 20;
	for (p = 0; p < cfg.rc_pairs; p++)
		for (s = 0; s < 2; s++) {
			struct endpoint *ep = &rc_ep[p][s];

			if (!ep->sq.count && !ep->rq.count)
				continue;
			/* Only for QPs that have waited a while: it reads memory. */
			if (watch_reads && now - ep->last_progress_ms > READ_WATCH_AFTER_MS)
				watch_head_read(ep, now);
			if (ep->stall_reported ||
			    now - ep->last_progress_ms <= budget_ms + cfg.slack_ms)
				continue;
			if (known("read_gap") && waits_on_slow_read(ep, now))
				continue;
			ep->stall_reported = true;
			describe_oldest(ep->sq.count ? &ep->sq : &ep->rq, now,
					what, sizeof(what));
			violation("%s: %u sends and %u receives outstanding, no completion for %" PRIu64 " ms (retry budget %u ms + slack %u ms); %s%s",
				  ep->label, ep->sq.count, ep->rq.count,
				  now - ep->last_progress_ms, budget_ms,
				  cfg.slack_ms, what, head_read_state(ep, now));
		}
}

/*
 * The end came with work outstanding: every QP still waiting is a
 * violation (@final: the time is up; else only shown, a violation having
 * ended the run early), unless -K read_gap and it waits on a READ still
 * advancing. Return: whether any was a violation.
 */
static bool report_unfinished(uint64_t now, bool final)
{
	struct endpoint *ep;
	bool any = false;
	char what[192];
	unsigned int p, s;

	for (p = 0; p < cfg.rc_pairs; p++)
		for (s = 0; s < 2; s++)
			watch_head_read(&rc_ep[p][s], now);
	for (p = 0; p < cfg.rc_pairs + cfg.ud_pairs; p++)
		for (s = 0; s < 2; s++) {
			ep = p < cfg.rc_pairs ? &rc_ep[p][s] :
						&ud_ep[p - cfg.rc_pairs][s];
			if (!ep->sq.count && (ep->is_ud || !ep->rq.count))
				continue;
			/* A failed QP's lost receive, the last it had. */
			if (!ep->sq.count && ep->rq.count == 1 &&
			    lost_partial_receive(ep, ep->rq.id[ep->rq.head])) {
				fifo_pop(&ep->rq);
				continue;
			}
			describe_oldest(ep->sq.count ? &ep->sq : &ep->rq, now,
					what, sizeof(what));
			if (!ep->is_ud && known("read_gap") &&
			    waits_on_slow_read(ep, now)) {
				const struct endpoint *reader = slow_reader(ep);

				stats.known_read_gap++;
				printf("storm: known defect read_gap: %s: %u sends, %u receives outstanding behind a READ advancing one transport timeout at a time (%u bytes placed, last %" PRIu64 " ms ago); %s\n",
				       ep->label, ep->sq.count, ep->rq.count,
				       reader->head_read_placed,
				       now - reader->head_read_grew_ms, what);
				continue;
			}
			if (!final) {
				printf("storm: %s: %u sends, %u receives outstanding at the end; %s\n",
				       ep->label, ep->sq.count,
				       ep->is_ud ? 0 : ep->rq.count, what);
				continue;
			}
			any = true;
			violation("%s: %u sends, %u receives never completed; %s",
				  ep->label, ep->sq.count,
				  ep->is_ud ? 0 : ep->rq.count, what);
		}
	return any;
}

/*
 * Atomics still outstanding when the run ended (behind a READ that -K
 * read_gap let go unfinished) are unconfirmed too; they are the last ones
 * posted, and join in posting order.
 */
static void atomics_outstanding_unconfirmed(struct rc_stream *st)
{
	const struct rc_op *next;
	uint32_t after = 0;
	unsigned int slot, round;
	bool first = true;

	for (round = 0; round < cfg.depth; round++) {
		next = NULL;
		for (slot = 0; slot < cfg.depth; slot++) {
			const struct rc_op *op = &st->op[slot];

			if (op->state != SLOT_POSTED || op->send_done ||
			    (op->kind != K_FETCH_ADD && op->kind != K_CMP_SWAP) ||
			    (!first && op->seq <= after))
				continue;
			if (!next || op->seq < next->seq)
				next = op;
		}
		if (!next)
			return;
		atomic_unconfirmed(st, next);
		after = next->seq;
		first = false;
	}
}

/* Each atomic target ends where the operations, applied once, put it. */
static void check_atomic_targets(void)
{
	unsigned int i, w, k;

	for (i = 0; i < 2 * cfg.rc_pairs; i++) {
		struct rc_stream *st = &rc_streams[i];

		atomics_outstanding_unconfirmed(st);
		for (w = 0; w < ATOMIC_WORDS; w++) {
			const struct word_outcomes *o = &st->outcomes[w];
			uint64_t got = st->target[w];

			if (!o->n) {
				if (got != st->model[w])
					violation("rc%u %s: atomic word %u is %#" PRIx64 ", want %#" PRIx64 " (an atomic applied twice or not at all)",
						  st->pair, side_tag_name(st), w,
						  got, st->model[w]);
				continue;
			}
			for (k = 0; k < o->n && o->value[k] != got; k++)
				;
			if (k == o->n)
				violation("rc%u %s: atomic word %u is %#" PRIx64 ", which no prefix of the %u unconfirmed atomics gives",
					  st->pair, side_tag_name(st), w, got,
					  o->n - 1);
		}
	}
}

/*
 * -p: a round ends when every RC QP still working has completed
 * something (or has nothing outstanding); FILE holds the number of
 * rounds, so that a caller can wait until every QP moved after an event
 * (the link back up: each QP resends only when its own timer fires).
 */
static void progress_rounds(void)
{
	static unsigned long rounds;
	unsigned int p, s;
	char line[32];
	int fd, len;

	if (!cfg.progress_file)
		return;
	for (p = 0; p < cfg.rc_pairs; p++)
		for (s = 0; s < 2; s++) {
			const struct endpoint *ep = &rc_ep[p][s];

			if (!ep->progressed && !ep->errored && !ep->closed &&
			    (ep->sq.count || ep->rq.count))
				return;
		}
	for (p = 0; p < cfg.rc_pairs; p++)
		for (s = 0; s < 2; s++)
			rc_ep[p][s].progressed = false;
	rounds++;
	len = snprintf(line, sizeof(line), "%lu\n", rounds);
	fd = open(cfg.progress_file, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, line, len) != len)
		failure("write %s", cfg.progress_file);
	if (fd >= 0)
		close(fd);
}

static bool stop_file_exists(void)
{
	return cfg.stop_file && !access(cfg.stop_file, F_OK);
}

static void run(void)
{
	uint64_t start = sroce_now_ms(), now = start, stop = 0;
	uint64_t deadline = cfg.run_secs ? start + cfg.run_secs * 1000ULL : 0;
	uint64_t next_stop_check = 0;
	struct pollfd fds[2] = {
		{ .fd = sides[0].channel->fd, .events = POLLIN },
		{ .fd = sides[1].channel->fd, .events = POLLIN },
	};
	unsigned int p, s;
	int got;

	printf("storm: traffic started\n");
	/*
	 * Bounded in time: posting stops at the deadline, the stop file, the
	 * op count or the first violation, and the loop ends at most the
	 * retry budget plus the slack after that.
	 */
	for (;;) {
		now = sroce_now_ms();
		if (!stop) {
			bool stop_now = (deadline && now >= deadline) ||
					!posting_allowed();

			if (!stop_now && now >= next_stop_check) {
				stop_now = stop_file_exists();
				next_stop_check = now + STOP_FILE_EVERY_MS;
			}
			if (stop_now) {
				stop = now;
				posting_stopped = true;
			} else {
				post_work(now);
			}
		}
		close_broken_peers();
		got = service_cq(&sides[0]);
		if (got >= 0) {
			int more = service_cq(&sides[1]);

			got = more < 0 ? more : got + more;
		}
		if (got < 0)
			break;
		if (got)
			progress_rounds();
		now = sroce_now_ms();
		if (stop && all_queues_empty() && ud_quiet(now))
			break;
		watchdog(now);
		/*
		 * The end: the retry budget and the slack after posting
		 * stopped, or a retry budget after a violation (what is
		 * still outstanding then is shown, not waited for).
		 */
		if (stop && now - stop > budget_ms + cfg.slack_ms) {
			if (report_unfinished(now, true))
				violation("not finished %u ms after posting stopped (retry budget %u ms + slack %u ms)",
					  (unsigned int)(now - stop), budget_ms,
					  cfg.slack_ms);
			break;
		}
		if (stop && violations && now - stop > budget_ms) {
			report_unfinished(now, false);
			break;
		}
		if (!got && poll(fds, 2, WAIT_MS) < 0 && errno != EINTR) {
			failure("poll");
			break;
		}
	}
	if (!stop)
		stop = now;
	if (!violations)
		check_atomic_targets();
	for (p = 0; p < 2 * cfg.ud_pairs; p++)
		stats.ud_lost += ud_streams[p].next_seq - ud_streams[p].distinct;
	stats.ud_received = stats.ok[K_UD_RECV];
	if (cfg.qp_errors == QP_ERRORS_EXPECTED)
		for (p = 0; p < cfg.rc_pairs; p++)
			for (s = 0; s < 2; s++)
				if (!rc_ep[p][s].errored)
					violation("%s: %s, want it failed with a retry-exceeded completion",
						  rc_ep[p][s].label,
						  rc_ep[p][s].closed ?
						  "closed after its peer failed" :
						  "never failed");
	printf("storm: summary ops=%lu send=%lu write=%lu write_imm=%lu read=%lu fetch_add=%lu cmp_swap=%lu send_inv=%lu ud_send=%lu bytes_verified=%llu rc_qp_errors=%lu closed=%lu unknown_outcome=%lu cancelled=%lu flushed=%lu ud_sent=%lu ud_received=%lu ud_lost=%lu ud_dup=%lu known_inv_flag=%lu known_read_wrap=%lu known_read_gap=%lu known_flush_rwqe=%lu elapsed_ms=%" PRIu64 " drain_ms=%" PRIu64 " max_op_ms=%" PRIu64 " max_sq_quiet_ms=%" PRIu64 " max_sq_quiet_qp=%s budget_ms=%u violations=%lu\n",
	       stats.ok[K_SEND] + stats.ok[K_WRITE] + stats.ok[K_WRITE_IMM] +
	       stats.ok[K_READ] + stats.ok[K_FETCH_ADD] + stats.ok[K_CMP_SWAP] +
	       stats.ok[K_SEND_INV] + stats.ok[K_UD_SEND],
	       stats.ok[K_SEND], stats.ok[K_WRITE], stats.ok[K_WRITE_IMM],
	       stats.ok[K_READ], stats.ok[K_FETCH_ADD], stats.ok[K_CMP_SWAP],
	       stats.ok[K_SEND_INV], stats.ok[K_UD_SEND], stats.bytes_verified,
	       stats.retry_exceeded, stats.closed, stats.unknown_outcome,
	       stats.cancelled, stats.flushed, stats.ud_sent, stats.ud_received,
	       stats.ud_lost, stats.ud_dup, stats.known_inv_flag,
	       stats.known_read_wrap, stats.known_read_gap,
	       stats.known_flush_rwqe, now - start,
	       now - stop,
	       stats.max_op_ms, stats.max_sq_quiet_ms,
	       stats.max_sq_quiet_label[0] ? stats.max_sq_quiet_label : "-",
	       budget_ms, violations);
}

/* --- set-up and teardown ------------------------------------------------------ */

/* -o: a comma-separated list of operation names narrows the mix. */
static bool kind_selected(enum kind kind)
{
	return !cfg.only_kinds || list_has(cfg.only_kinds, kind_name[kind]);
}

static int setup(void)
{
	unsigned int p, d, slot, w;
	int ret;

	slot_span = ((size_t)cfg.max_len + SLOT_SLACK + 4095) & ~(size_t)4095;
	off_resp = (size_t)cfg.rc_pairs * cfg.depth * slot_span;
	off_words = 2 * off_resp;
	off_ud_tx = off_words + 4096 +
		    (((size_t)cfg.rc_pairs * ATOMIC_WORDS * 8 + 4095) & ~(size_t)4095);
	off_ud_rx = off_ud_tx + (size_t)cfg.ud_pairs * cfg.depth * UD_SLOT;
	for (d = 0; d < 2; d++) {
		sides[d].tag = d ? 'B' : 'A';
		sides[d].name = cfg.dev_name[d];
		sides[d].gid_index = cfg.gid_index[d];
		sides[d].buf_len = off_ud_rx +
				   (size_t)cfg.ud_pairs * UD_RING * UD_SLOT;
		ret = side_open(&sides[d]);
		if (ret)
			return ret;
	}
	ud_max_len = sides[0].port_mtu_bytes < sides[1].port_mtu_bytes ?
		     sides[0].port_mtu_bytes : sides[1].port_mtu_bytes;
	if (!have_atomics)
		printf("storm: note: no atomics on these devices: FETCH_AND_ADD and CMP_AND_SWP skipped\n");
	if (!have_mw2)
		printf("storm: note: no IBV_DEVICE_MEM_WINDOW_TYPE_2B: SEND_WITH_INV skipped\n");
	for (d = 0; d < K_NUM_RC; d++)
		if ((have_atomics || (d != K_FETCH_ADD && d != K_CMP_SWAP)) &&
		    (have_mw2 || d != K_SEND_INV) && kind_selected(d))
			rc_kinds[num_rc_kinds++] = d;
	if (cfg.rc_pairs && !num_rc_kinds) {
		printf("storm: -o %s leaves no RC operation\n", cfg.only_kinds);
		return 1;
	}

	for (p = 0; p < cfg.rc_pairs; p++) {
		uint32_t psn[2] = { initial_psn(), initial_psn() };

		for (d = 0; d < 2; d++) {
			rc_ep[p][d].side = &sides[d];
			rc_ep[p][d].pair = p;
			snprintf(rc_ep[p][d].label, sizeof(rc_ep[p][d].label),
				 "rc%u.%c", p, sides[d].tag);
			if (create_qp(&rc_ep[p][d], IBV_QPT_RC))
				return 1;
		}
		for (d = 0; d < 2; d++) {
			if (rc_connect(&rc_ep[p][d], &rc_ep[p][!d], psn[d],
				       psn[!d]))
				return 1;
			rc_ep[p][d].next_psn = psn[d];
		}
		for (d = 0; d < 2; d++) {
			struct rc_stream *st = &rc_streams[2 * p + d];

			st->id = 2 * p + d;
			st->pair = p;
			st->dir = d;
			st->req = &rc_ep[p][d];
			st->resp = &rc_ep[p][!d];
			st->target = (uint64_t *)(st->resp->side->buf + off_words) +
				     (size_t)p * ATOMIC_WORDS;
			for (w = 0; w < ATOMIC_WORDS; w++)
				st->target[w] = rnd64();
			memcpy(st->model, st->target, sizeof(st->model));
			for (slot = 0; have_mw2 && slot < cfg.depth; slot++) {
				st->mw[slot] = ibv_alloc_mw(st->resp->side->pd,
							    IBV_MW_TYPE_2);
				if (!st->mw[slot]) {
					failure("%s: allocate a type 2 memory window",
						st->resp->label);
					return 1;
				}
			}
		}
	}
	for (p = 0; p < cfg.ud_pairs; p++) {
		for (d = 0; d < 2; d++) {
			ud_ep[p][d].side = &sides[d];
			ud_ep[p][d].pair = p;
			ud_ep[p][d].is_ud = true;
			snprintf(ud_ep[p][d].label, sizeof(ud_ep[p][d].label),
				 "ud%u.%c", p, sides[d].tag);
			if (create_qp(&ud_ep[p][d], IBV_QPT_UD) ||
			    ud_ready(&ud_ep[p][d]))
				return 1;
		}
		for (d = 0; d < 2; d++) {
			struct ud_stream *st = &ud_streams[2 * p + d];
			struct ibv_ah_attr ah = {
				.is_global = 1,
				.port_num = 1,
				.grh = {
					.dgid = sides[!d].gid,
					.sgid_index = sides[d].gid_index,
					.hop_limit = 64,
				},
			};

			st->id = 2 * p + d;
			st->pair = p;
			st->dir = d;
			st->tx = &ud_ep[p][d];
			st->rx = &ud_ep[p][!d];
			st->rx->incoming = st;
			st->ah = ibv_create_ah(sides[d].pd, &ah);
			if (!st->ah) {
				failure("%s: address handle", st->tx->label);
				return 1;
			}
		}
		for (d = 0; d < 2; d++)
			for (slot = 0; slot < UD_RING; slot++)
				if (!ud_post_recv(&ud_ep[p][d], slot,
						  sroce_now_ms()))
					return 1;
	}
	for (d = 0; d < 2; d++) {
		if (ibv_req_notify_cq(sides[d].cq, 0)) {
			failure("%c: arm CQ", sides[d].tag);
			return 1;
		}
		sides[d].armed = true;
	}
	return 0;
}

/* Undo whatever setup() did, in reverse; safe on a partial set-up. */
static void teardown(void)
{
	unsigned int p, d, slot;

	for (p = 0; p < MAX_UD_PAIRS; p++)
		for (d = 0; d < 2; d++) {
			if (ud_streams[2 * p + d].ah)
				ibv_destroy_ah(ud_streams[2 * p + d].ah);
			free(ud_streams[2 * p + d].received);
			if (ud_ep[p][d].qp)
				ibv_destroy_qp(ud_ep[p][d].qp);
		}
	/* Windows first: a type 2 window belongs to the QP it was bound through. */
	for (p = 0; p < 2 * MAX_RC_PAIRS; p++)
		for (slot = 0; slot < MAX_DEPTH; slot++)
			if (rc_streams[p].mw[slot])
				ibv_dealloc_mw(rc_streams[p].mw[slot]);
	for (p = 0; p < MAX_RC_PAIRS; p++)
		for (d = 0; d < 2; d++)
			if (rc_ep[p][d].qp)
				ibv_destroy_qp(rc_ep[p][d].qp);
	for (d = 0; d < 2; d++) {
		struct side *s = &sides[d];

		if (s->mr)
			ibv_dereg_mr(s->mr);
		if (s->cq)
			ibv_destroy_cq(s->cq);
		if (s->channel)
			ibv_destroy_comp_channel(s->channel);
		if (s->pd)
			ibv_dealloc_pd(s->pd);
		if (s->ctx)
			ibv_close_device(s->ctx);
		free(s->buf);
	}
}

static void usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s -a DEV -g GIDX -b DEV -G GIDX [-q RC_PAIRS] [-u UD_PAIRS] [-d DEPTH]\n"
		"       [-t SEC] [-n OPS] [-x STOP_FILE] [-p PROGRESS_FILE] [-s SEED]\n"
		"       [-m PATH_MTU] [-L MAX_LEN]\n"
		"       [-T TIMEOUT] [-r RETRY_CNT] [-S SLACK_MS] [-E allow|expect]\n"
		"       [-K inv_flag,read_wrap,read_gap,flush_rwqe] [-o OP,...]\n"
		"  OP: send write write_imm read fetch_add cmp_swap send_inv\n",
		prog);
}

static bool parse_uint(const char *s, unsigned long max, unsigned long *out)
{
	char *end;

	errno = 0;
	*out = strtoul(s, &end, 0);
	return !errno && *s && !*end && *out <= max;
}

static int parse_args(int argc, char **argv)
{
	unsigned long v;
	bool seeded = false;
	int opt;

	while ((opt = getopt(argc, argv, "a:b:g:G:q:u:d:t:n:x:p:s:m:L:T:r:S:E:K:o:")) != -1) {
		bool ok = true;

		switch (opt) {
		case 'a':
			cfg.dev_name[0] = optarg;
			break;
		case 'b':
			cfg.dev_name[1] = optarg;
			break;
		case 'g':
		case 'G':
			ok = parse_uint(optarg, 255, &v);
			cfg.gid_index[opt == 'G'] = v;
			break;
		case 'q':
			ok = parse_uint(optarg, MAX_RC_PAIRS, &v);
			cfg.rc_pairs = v;
			break;
		case 'u':
			ok = parse_uint(optarg, MAX_UD_PAIRS, &v);
			cfg.ud_pairs = v;
			break;
		case 'd':
			ok = parse_uint(optarg, MAX_DEPTH, &v) && v;
			cfg.depth = v;
			break;
		case 't':
			ok = parse_uint(optarg, 86400, &v);
			cfg.run_secs = v;
			break;
		case 'n':
			ok = parse_uint(optarg, ~0UL, &v);
			cfg.max_ops = v;
			break;
		case 'x':
			cfg.stop_file = optarg;
			break;
		case 'p':
			cfg.progress_file = optarg;
			break;
		case 'K':
			cfg.known_defects = optarg;
			break;
		case 'o':
			cfg.only_kinds = optarg;
			break;
		case 's':
			errno = 0;
			cfg.seed = strtoull(optarg, NULL, 0);
			ok = !errno;
			seeded = true;
			break;
		case 'm':
			ok = parse_uint(optarg, 4096, &v) && mtu_enum(v);
			cfg.path_mtu_bytes = v;
			break;
		case 'L':
			ok = parse_uint(optarg, 1u << 24, &v);
			cfg.max_len = v;
			break;
		case 'T':
			ok = parse_uint(optarg, 31, &v) && v;
			cfg.timeout_exp = v;
			break;
		case 'r':
			ok = parse_uint(optarg, 7, &v);
			cfg.retry_cnt = v;
			break;
		case 'S':
			ok = parse_uint(optarg, 3600000, &v);
			cfg.slack_ms = v;
			break;
		case 'E':
			if (!strcmp(optarg, "allow"))
				cfg.qp_errors = QP_ERRORS_ALLOWED;
			else if (!strcmp(optarg, "expect"))
				cfg.qp_errors = QP_ERRORS_EXPECTED;
			else
				ok = false;
			break;
		default:
			ok = false;
			break;
		}
		if (!ok) {
			usage(argv[0]);
			return 1;
		}
	}
	if (optind != argc || !cfg.dev_name[0] || !cfg.dev_name[1] ||
	    cfg.gid_index[0] < 0 || cfg.gid_index[1] < 0 ||
	    !(cfg.rc_pairs + cfg.ud_pairs)) {
		usage(argv[0]);
		return 1;
	}
	if (!cfg.run_secs && !cfg.max_ops && !cfg.stop_file)
		cfg.run_secs = 10;
	if (!seeded)
		cfg.seed = (uint64_t)time(NULL) ^ (uint64_t)getpid() << 32;
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long long timeout_us;
	uint64_t teardown_ms;
	int ret;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (parse_args(argc, argv))
		return 1;
	rng_state = mix64(cfg.seed) | 1;
	have_atomics = true;
	have_mw2 = true;
	/* The transport timeout is 4.096 us * 2^TIMEOUT, tried RETRY_CNT + 1 times. */
	timeout_us = (4096ULL << cfg.timeout_exp) / 1000;
	budget_ms = (cfg.retry_cnt + 1) * timeout_us / 1000;
	printf("storm: seed %" PRIu64 ": -a %s -g %d -b %s -G %d -q %u -u %u -d %u -t %u -n %lu%s%s -m %u -L %u -T %u -r %u -S %u%s%s%s%s%s; retry budget %u ms\n",
	       cfg.seed, cfg.dev_name[0], cfg.gid_index[0], cfg.dev_name[1],
	       cfg.gid_index[1], cfg.rc_pairs, cfg.ud_pairs, cfg.depth,
	       cfg.run_secs, cfg.max_ops, cfg.stop_file ? " -x " : "",
	       cfg.stop_file ? cfg.stop_file : "", cfg.path_mtu_bytes,
	       cfg.max_len, cfg.timeout_exp, cfg.retry_cnt, cfg.slack_ms,
	       cfg.qp_errors == QP_ERRORS_ALLOWED ? " -E allow" :
	       cfg.qp_errors == QP_ERRORS_EXPECTED ? " -E expect" : "",
	       cfg.known_defects ? " -K " : "",
	       cfg.known_defects ? cfg.known_defects : "",
	       cfg.only_kinds ? " -o " : "",
	       cfg.only_kinds ? cfg.only_kinds : "", budget_ms);
	ret = setup();
	if (!ret)
		run();
	teardown_ms = sroce_now_ms();
	teardown();
	teardown_ms = sroce_now_ms() - teardown_ms;
	/* The teardown must be bounded too: a QP destroy that waits is a hang. */
	printf("storm: resources released in %" PRIu64 " ms\n", teardown_ms);
	if (ret == 4)
		return 4;
	if (ret || violations) {
		printf("storm: FAILED: %lu violations%s (seed %" PRIu64 ")\n",
		       violations, ret ? ", set-up failed" : "", cfg.seed);
		return 1;
	}
	printf("storm: ok\n");
	return 0;
}
