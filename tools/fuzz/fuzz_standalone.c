// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * A fuzz driver that needs no libFuzzer: replay the given files, then run
 * N random mutations of a seed pool through the same target the libFuzzer
 * harness uses (fuzz_target.c). Built with gcc or clang, ASan and UBSan.
 *
 *   fuzz-standalone ITERATIONS [SEED [FILE...]]
 *   fuzz-standalone --corpus DIR
 *
 * The pool starts with the ICRC vectors (as transport packets and as L3
 * packets), one built packet per valid opcode (bare and behind each L3
 * header), PFC bodies, MODIFY_QP requests for every state pair, one
 * encoded command slot per opcode, DCQCN histories, range edges and the
 * FILEs; transport packets that parse are added as the run goes. With
 * --corpus the built seeds are written to DIR, one file each, for
 * libFuzzer's seed corpus, and nothing is run.
 * Every input is handed over in an exact-size heap buffer so that ASan
 * sees any read past its end. On a crash the input is written to
 * fuzz-crash.bin (or $SROCE_FUZZ_CRASH) and can be replayed by passing it
 * as a FILE.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>
#include <sanitizer/common_interface_defs.h>

#include "lib/dcqcn.h"
#include "lib/pfc.h"
#include "lib/qp_state.h"
#include "lib/roce_hdr.h"
#include "icrc_vectors.h"
#include "fuzz_target.h"

#define MAX_INPUT	(1 + SROCE_IPV6_HDR_LEN + SROCE_UDP_HDR_LEN + \
			 SROCE_ROCE_MAX_HDR_LEN + SROCE_ROCE_MAX_PAYLOAD + 64)
#define POOL_MAX	4096

struct input {
	size_t len;
	u8 *data;
};

static struct input pool[POOL_MAX];
static unsigned int pool_len;
static unsigned int nseeds;	/* pool[0 .. nseeds) is never replaced */

/* The input being run, for the crash handlers. */
static const u8 *cur_data;
static size_t cur_len;

static u64 rng_state;

static u64 rnd(void)
{
	/* xorshift64* */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dULL;
}

static size_t rnd_below(size_t n)
{
	return n ? rnd() % n : 0;
}

static void dump_current(void)
{
	const char *path = getenv("SROCE_FUZZ_CRASH");
	int fd;

	if (!cur_data)
		return;
	if (!path)
		path = "fuzz-crash.bin";
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd >= 0) {
		if (write(fd, cur_data, cur_len) != (ssize_t)cur_len)
			cur_len = 0;
		close(fd);
	}
	fprintf(stderr, "fuzz: crashing input (%zu bytes) saved to %s\n",
		cur_len, path);
}

static void on_abort(int sig)
{
	dump_current();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void pool_add(const u8 *data, size_t len)
{
	struct input *in;

	if (!len || len > MAX_INPUT)
		return;
	if (pool_len < POOL_MAX) {
		in = &pool[pool_len++];
	} else {
		in = &pool[nseeds + rnd_below(POOL_MAX - nseeds)];
		free(in->data);
	}
	in->data = malloc(len);
	memcpy(in->data, data, len);
	in->len = len;
}

static void add_file(const char *path)
{
	static u8 buf[MAX_INPUT];
	size_t len;
	FILE *f = fopen(path, "rb");

	if (!f) {
		perror(path);
		exit(2);
	}
	len = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	pool_add(buf, len);
}

/* The smallest selector byte that picks @mode. */
static u8 selector(unsigned int mode)
{
	unsigned int sel;

	for (sel = 0; sroce_fuzz_mode(sel) != mode; sel++)
		;
	return sel;
}

static void put_le(u8 *p, u64 v, unsigned int width)
{
	while (width--) {
		*p++ = v;
		v >>= 8;
	}
}

/*
 * MODIFY_QP: every (current, requested) pair for each QP type and for an
 * invalid one, with the state alone and with every attribute, and the
 * usual way up to RTS with the attributes it needs.
 */
static void add_qp_seeds(void)
{
	static const u32 types[] = { SROCE_QPT_GSI, SROCE_QPT_RC,
				     SROCE_QPT_UC, SROCE_QPT_UD, 0 };
	static const struct { u32 t, cur, next, mask; } path[] = {
		{ SROCE_QPT_RC, SROCE_QPS_RESET, SROCE_QPS_INIT,
		  SROCE_QPA_PKEY_INDEX | SROCE_QPA_PORT |
		  SROCE_QPA_ACCESS_FLAGS },
		{ SROCE_QPT_RC, SROCE_QPS_INIT, SROCE_QPS_RTR,
		  SROCE_QPA_AV | SROCE_QPA_PATH_MTU | SROCE_QPA_DEST_QPN |
		  SROCE_QPA_RQ_PSN | SROCE_QPA_MAX_DEST_RD_ATOMIC |
		  SROCE_QPA_MIN_RNR_TIMER },
		{ SROCE_QPT_RC, SROCE_QPS_RTR, SROCE_QPS_RTS,
		  SROCE_QPA_SQ_PSN | SROCE_QPA_TIMEOUT | SROCE_QPA_RETRY_CNT |
		  SROCE_QPA_RNR_RETRY | SROCE_QPA_MAX_QP_RD_ATOMIC },
		{ SROCE_QPT_UD, SROCE_QPS_RESET, SROCE_QPS_INIT,
		  SROCE_QPA_PKEY_INDEX | SROCE_QPA_PORT | SROCE_QPA_QKEY },
		{ SROCE_QPT_UD, SROCE_QPS_RTR, SROCE_QPS_RTS,
		  SROCE_QPA_SQ_PSN | SROCE_QPA_RATE_LIMIT },
		{ SROCE_QPT_UC, SROCE_QPS_SQE, SROCE_QPS_RTS,
		  SROCE_QPA_CUR_STATE | SROCE_QPA_ACCESS_FLAGS },
		{ SROCE_QPT_GSI, SROCE_QPS_RTS, SROCE_QPS_SQD,
		  SROCE_QPA_EN_SQD_ASYNC_NOTIFY },
	};
	static u8 buf[1 + SROCE_QPS_NUM * SROCE_QPS_NUM * SROCE_FUZZ_QP_REC];
	unsigned int i, all, cur, next;
	u8 *r;

	buf[0] = selector(SROCE_FUZZ_QP);
	for (i = 0; i < ARRAY_SIZE(types); i++) {
		for (all = 0; all < 2; all++) {
			r = buf + 1;
			for (cur = 0; cur < SROCE_QPS_NUM; cur++) {
				for (next = 0; next < SROCE_QPS_NUM; next++) {
					put_le(r, types[i], 4);
					put_le(r + 4, cur, 4);
					put_le(r + 8, next, 4);
					put_le(r + 12, all ? ~0U : SROCE_QPA_STATE,
					       4);
					r += SROCE_FUZZ_QP_REC;
				}
			}
			pool_add(buf, r - buf);
		}
	}
	for (i = 0; i < ARRAY_SIZE(path); i++) {
		put_le(buf + 1, path[i].t, 4);
		put_le(buf + 5, path[i].cur, 4);
		put_le(buf + 9, path[i].next, 4);
		put_le(buf + 13, path[i].mask | SROCE_QPA_STATE, 4);
		pool_add(buf, 1 + SROCE_FUZZ_QP_REC);
	}
}

/*
 * Commands: a slot encoded for every opcode, the payload a pattern; and
 * completion headers with every status and one unknown.
 */
static void add_cmd_seeds(void)
{
	static u8 buf[1 + sizeof(struct sroce_cmd_entry)];
	u8 req[SROCE_CMD_PAYLOAD_MAX];
	struct sroce_cmd_entry e;
	unsigned int i;

	buf[0] = selector(SROCE_FUZZ_CMD);
	for (i = 0; i < SROCE_NUM_CMDS; i++) {
		unsigned int len = sroce_cmd_req_len(i);

		memset(req, 0x40 + i, sizeof(req));
		if (sroce_cmd_encode(&e, sroce_cmd_opcode(i), 0x100 + i, req,
				     len))
			abort();
		memcpy(buf + 1, &e, sizeof(e));
		pool_add(buf, sizeof(buf));
	}
	for (i = 0; i <= SROCE_FW_NUM_STATUS; i++) {
		memset(buf + 1, 0, sizeof(buf) - 1);
		put_le(buf + 1, 0x100 + i, 2);		/* cmd_id */
		put_le(buf + 3, i < SROCE_FW_NUM_STATUS ? i : 0xffff, 2);
		put_le(buf + 5, 64, 2);			/* resp_len */
		put_le(buf + 7, SROCE_CMPL_PHASE, 2);
		pool_add(buf, 1 + SROCE_CMD_HDR_SIZE);
	}
}

static size_t put_ev(u8 *p, size_t len, unsigned int kind,
		     unsigned int flags, u8 dtb, u32 arg)
{
	p[len] = kind | flags << 3;
	p[len + 1] = dtb;
	put_le(p + len + 2, arg, 4);
	return len + SROCE_FUZZ_DCQCN_EV;
}

/* dtb for about @us microseconds (the target's time step encoding). */
static u8 dt_us(unsigned int us)
{
	unsigned int e = 0;
	u64 ns = us * 1000ULL;

	while ((ns / 100) >> (4 * e) > 31 && e < 7)
		e++;
	return (u8)(((ns / 100) >> (4 * e)) | e << 5);
}

/*
 * DCQCN histories on a 100 Gbit/s port: a congested sender (CNPs among
 * packets), a recovery through every increase phase to release, every
 * knob at its bounds, and port speed changes under a limited QP.
 */
static void add_dcqcn_seeds(void)
{
	static u8 buf[1 + SROCE_FUZZ_DCQCN_HDR + 256 * SROCE_FUZZ_DCQCN_EV];
	size_t len;
	unsigned int i;

	memset(buf, 0, sizeof(buf));
	buf[0] = selector(SROCE_FUZZ_DCQCN);
	put_le(buf + 1, 100000000, 4);		/* 100 Gbit/s in kbit/s */

	len = 1 + SROCE_FUZZ_DCQCN_HDR;
	len = put_ev(buf, len, SROCE_FUZZ_EV_CNP, 0, 0, 25000000);
	for (i = 0; i < 120; i++)
		len = put_ev(buf, len, i % 10 == 9 ? SROCE_FUZZ_EV_CNP :
			     SROCE_FUZZ_EV_SENT, 0, dt_us(1 + i % 7),
			     i % 10 == 9 ? 25000000 : 4096);
	pool_add(buf, len);

	/* No byte counter, short timer: recovery and release by time. */
	len = 1 + SROCE_FUZZ_DCQCN_HDR;
	len = put_ev(buf, len, SROCE_FUZZ_EV_KNOB, 3, 0,
		     SROCE_CC_RP_BYTE_RESET);
	len = put_ev(buf, len, SROCE_FUZZ_EV_KNOB, 3, 0,
		     SROCE_CC_RP_TIME_RESET | 1 << 8);
	len = put_ev(buf, len, SROCE_FUZZ_EV_KNOB, 3, 0,
		     SROCE_CC_RP_RATE_TO_SET_ON_FIRST_CNP | 1000 << 8);
	len = put_ev(buf, len, SROCE_FUZZ_EV_CNP, 0, 0, 0);
	for (i = 0; i < 40; i++)
		len = put_ev(buf, len, SROCE_FUZZ_EV_ADVANCE, 0,
			     dt_us(3 << (i / 4)), 0);
	len = put_ev(buf, len, SROCE_FUZZ_EV_IDLE, 0, 0, 1000000000);
	len = put_ev(buf, len, SROCE_FUZZ_EV_CNP_SENT, 0, 0, 5000000);
	pool_add(buf, len);

	/* Every knob at its minimum, then at its maximum, under traffic. */
	len = 1 + SROCE_FUZZ_DCQCN_HDR;
	len = put_ev(buf, len, SROCE_FUZZ_EV_CNP, 0, 0, 10000000);
	for (i = 0; i < 2 * SROCE_NUM_CC_PARAMS; i++) {
		const struct sroce_cc_param_desc *d =
			&sroce_cc_params[i % SROCE_NUM_CC_PARAMS];
		u32 v = i < SROCE_NUM_CC_PARAMS ? d->min : d->max;

		len = put_ev(buf, len, SROCE_FUZZ_EV_KNOB, 3, 0,
			     (i % SROCE_NUM_CC_PARAMS) | (v & 0xffffff) << 8);
		len = put_ev(buf, len, SROCE_FUZZ_EV_SENT, 0, dt_us(2), 9000);
		if (i % 5 == 0)
			len = put_ev(buf, len, SROCE_FUZZ_EV_CNP, 0, dt_us(1),
				     10000000);
	}
	pool_add(buf, len);

	/* The port slows down, stops, comes back; time goes back. */
	len = 1 + SROCE_FUZZ_DCQCN_HDR;
	len = put_ev(buf, len, SROCE_FUZZ_EV_CNP, 0, 0, 100000000);
	len = put_ev(buf, len, SROCE_FUZZ_EV_LINE, 0, 0, 10000);
	len = put_ev(buf, len, SROCE_FUZZ_EV_SENT, 0, dt_us(5), 1500);
	len = put_ev(buf, len, SROCE_FUZZ_EV_LINE, 0, 0, 0);
	len = put_ev(buf, len, SROCE_FUZZ_EV_CNP, 0, dt_us(5), 0);
	len = put_ev(buf, len, SROCE_FUZZ_EV_LINE, 8, 0, 400000000 >> 8);
	len = put_ev(buf, len, SROCE_FUZZ_EV_BACK, 1, dt_us(100), 5000);
	len = put_ev(buf, len, SROCE_FUZZ_EV_SENT, 0, dt_us(500), 65536);
	pool_add(buf, len);
}

/* Range edges and link values (addr.c). */
static void add_addr_seeds(void)
{
	static const u64 recs[][4] = {
		{ 0x1000, 0x100, 0x1000, 0x100 },
		{ 0x1000, 0x100, 0x10ff, 2 },
		{ ~0ULL - 10, 5, ~0ULL - 8, 10 },
		{ 0, ~0ULL, ~0ULL - 1, 1 },
		{ 1, ~0ULL - 1, 0, 1 },
		{ ~0ULL, ~0ULL, ~0ULL, ~0ULL },
		{ 1500, 9000, 1ULL << 63, 4096 + 84 },
		{ 25000ULL << 32 | 100000, 1ULL << 32, 340, 339 },
	};
	u8 buf[1 + SROCE_FUZZ_ADDR_REC];
	unsigned int i, k;

	buf[0] = selector(SROCE_FUZZ_ADDR);
	for (i = 0; i < ARRAY_SIZE(recs); i++) {
		for (k = 0; k < 4; k++)
			put_le(buf + 1 + 8 * k, recs[i][k], 8);
		pool_add(buf, sizeof(buf));
	}
}

/* Seeds: the vectors, and a built packet per opcode bare and behind L3. */
static void add_seeds(void)
{
	static u8 buf[MAX_INPUT];
	unsigned int i, opcode;

	for (i = 0; i < ARRAY_SIZE(sroce_icrc_vectors); i++) {
		const struct sroce_icrc_vector *v = &sroce_icrc_vectors[i];

		buf[0] = 0;
		memcpy(buf + 1, v->frame + v->bth_off, v->len - v->bth_off);
		pool_add(buf, 1 + v->len - v->bth_off);
		buf[0] = v->l3_type;
		memcpy(buf + 1, v->frame + v->l3_off, v->len - v->l3_off);
		pool_add(buf, 1 + v->len - v->l3_off);
	}
	for (opcode = 0; opcode < 256; opcode++) {
		const struct sroce_roce_opinfo *op = sroce_roce_opinfo(opcode);
		struct sroce_roce_fields f = {
			.opcode = opcode, .pkey = 0xffff, .qpn = 0x11,
			.psn = 0xfffffe, .aeth_syndrome = 0x1f,
			.deth_qkey = SROCE_GSI_QKEY, .feth = 1,
			.reth_len = 300, .imm = 0x01020304,
		};
		size_t len;
		int hlen;

		if (!op)
			continue;
		if (op->flags & SROCE_OPF_PAYLOAD)
			f.payload_len = op->flags & (SROCE_OPF_FIRST |
						     SROCE_OPF_MIDDLE) ? 256 :
					op->kind == SROCE_OPK_ATOMIC_WRITE ? 8 : 5;
		hlen = sroce_roce_build(buf + 1, sizeof(buf) - 1, &f);
		if (hlen < 0)
			abort();
		len = 1 + hlen + f.payload_len + sroce_roce_pad(f.payload_len);
		memset(buf + 1 + hlen, 0x42, len - 1 - hlen);
		memset(buf + len, 0, SROCE_ICRC_LEN);
		len += SROCE_ICRC_LEN;
		buf[0] = 0;
		pool_add(buf, len);
		/* The same behind each vector's L3 (+ UDP) headers. */
		for (i = 0; i < ARRAY_SIZE(sroce_icrc_vectors); i++) {
			const struct sroce_icrc_vector *v =
				&sroce_icrc_vectors[i];
			static u8 l3[MAX_INPUT];
			size_t pre = v->bth_off - v->l3_off;
			unsigned int j;

			/* One of each L3 type is plenty: the first. */
			for (j = 0; j < i; j++)
				if (sroce_icrc_vectors[j].l3_type == v->l3_type)
					break;
			if (j < i)
				continue;
			l3[0] = v->l3_type;
			memcpy(l3 + 1, v->frame + v->l3_off, pre);
			memcpy(l3 + 1 + pre, buf + 1, len - 1);
			pool_add(l3, 1 + pre + len - 1);
		}
	}
	/* A PFC XOFF and an 802.3x PAUSE body, each with buffer operations. */
	{
		static const u16 quanta[SROCE_PFC_NUM_PRIO] = { [3] = 0xffff };
		static const u8 mac[SROCE_ETH_ALEN] = { 2, 0, 0, 0, 0, 1 };
		u8 frame[SROCE_PAUSE_FRAME_LEN];

		sroce_pfc_build(frame, sizeof(frame), mac, 0x08, quanta);
		buf[0] = 4;
		memcpy(buf + 1, frame + SROCE_ETH_HLEN,
		       SROCE_PAUSE_FRAME_LEN - SROCE_ETH_HLEN);
		pool_add(buf, 1 + SROCE_PAUSE_FRAME_LEN - SROCE_ETH_HLEN);
		/* The same body as an 802.3x PAUSE: opcode 0x0001. */
		buf[1] = SROCE_PAUSE_OPCODE >> 8;
		buf[2] = SROCE_PAUSE_OPCODE & 0xff;
		pool_add(buf, 1 + SROCE_PAUSE_FRAME_LEN - SROCE_ETH_HLEN);
	}
	add_qp_seeds();
	add_cmd_seeds();
	add_dcqcn_seeds();
	add_addr_seeds();
}

static void mutate(u8 *d, size_t *lenp)
{
	static const u8 interesting[] = {
		0x00, 0x01, 0x03, 0x04, 0x0f, 0x10, 0x1f, 0x20, 0x30, 0x3f,
		0x40, 0x45, 0x60, 0x64, 0x65, 0x7f, 0x80, 0x81, 0xc0, 0xff,
	};
	/* Small numbers (QP types, states) and where sums wrap. */
	static const u64 wide[] = {
		0, 1, 2, 3, 4, 5, 6, 7, 8, 0x7f, 0x80, 0xff, 0x100, 0x7fff,
		0x8000, 0xffff, 0x10000, 0x7fffffff, 0x80000000U, 0xffffffffU,
		1ULL << 32, 1ULL << 40, 1ULL << 62, 1ULL << 63, ~0ULL,
	};
	size_t len = *lenp, pos, n, k;
	unsigned int rounds = 1 + rnd_below(4);
	/* Where the BTH starts for this selector. */
	size_t bth = (d[0] & 3) == 0 ? 1 : (d[0] & 3) == 1 ? 29 :
		     (d[0] & 3) == 2 ? 49 : 41;

	while (rounds--) {
		switch (rnd_below(13)) {
		case 0:
			pos = rnd_below(len);
			d[pos] ^= 1U << rnd_below(8);
			break;
		case 1:
			d[rnd_below(len)] = rnd();
			break;
		case 2:
			n = rnd_below(ARRAY_SIZE(interesting));
			d[rnd_below(len)] = interesting[n];
			break;
		case 3:
			len = 1 + rnd_below(len);
			break;
		case 4:
			n = 1 + rnd_below(8);
			if (len + n > MAX_INPUT)
				break;
			while (n--)
				d[len++] = rnd();
			break;
		case 5:
			if (len < 2)
				break;
			pos = 1 + rnd_below(len - 1);
			n = 1 + rnd_below(len - pos);
			memmove(d + pos, d + pos + n, len - pos - n);
			len -= n;
			break;
		case 6:
			n = 1 + rnd_below(16);
			if (len + n > MAX_INPUT)
				break;
			pos = 1 + rnd_below(len);
			memmove(d + pos + n, d + pos, len - pos);
			for (k = 0; k < n; k++)
				d[pos + k] = rnd();
			len += n;
			break;
		case 7:			/* opcode */
			n = rnd_below(ARRAY_SIZE(interesting));
			if (bth < len)
				d[bth] = rnd_below(2) ? rnd() : interesting[n];
			break;
		case 8:			/* SE/M/PadCnt/TVer */
			if (bth + 1 < len)
				d[bth + 1] ^= 1U << rnd_below(8);
			break;
		case 9:			/* selector */
			d[0] = rnd();
			break;
		case 10:		/* splice another input's tail */
			if (pool_len) {
				const struct input *o =
					&pool[rnd_below(pool_len)];

				pos = rnd_below(len);
				n = rnd_below(o->len);
				if (pos + o->len - n > MAX_INPUT)
					break;
				memcpy(d + pos, o->data + n, o->len - n);
				len = pos + o->len - n;
			}
			break;
		case 12:		/* an edge value in an integer field */
			n = (size_t)1 << rnd_below(4);
			pos = 1 + rnd_below(len);
			if (pos + n > len)
				break;
			put_le(d + pos, wide[rnd_below(ARRAY_SIZE(wide))] +
			       rnd_below(3) - 1, n);
			break;
		default:		/* whole words: keep 4-alignment */
			if (rnd_below(2) && len > 5) {
				len -= 4;
			} else if (len + 4 <= MAX_INPUT) {
				memset(d + len, 0, 4);
				len += 4;
			}
			break;
		}
		if (!len)
			len = 1;
	}
	*lenp = len;
}

/* The built seeds as files, named after their mode, for libFuzzer. */
static int write_corpus(const char *dir)
{
	static const char *const names[SROCE_FUZZ_NUM_MODES] = {
		"bth", "ipv4", "ipv6", "grh", "pfc", "qp", "cmd", "dcqcn",
		"addr",
	};
	char path[4096];
	unsigned int i;
	FILE *f;

	rng_state = 1;
	add_seeds();
	for (i = 0; i < pool_len; i++) {
		snprintf(path, sizeof(path), "%s/built-%s-%04u", dir,
			 names[sroce_fuzz_mode(pool[i].data[0])], i);
		f = fopen(path, "wb");
		if (!f || fwrite(pool[i].data, 1, pool[i].len, f) !=
		    pool[i].len) {
			perror(path);
			return 1;
		}
		fclose(f);
	}
	printf("fuzz: %u seeds written to %s\n", pool_len, dir);
	return 0;
}

static void run_one(const u8 *data, size_t len)
{
	u8 *exact = malloc(len ? len : 1);

	memcpy(exact, data, len);
	cur_data = exact;
	cur_len = len;
	sroce_fuzz_one(exact, len);
	cur_data = NULL;
	free(exact);
}

int main(int argc, char **argv)
{
	static u8 work[MAX_INPUT + 64];
	unsigned long long iterations, i, kept = 0;
	struct sroce_roce_info info;
	time_t start = time(NULL);
	int a;

	if (argc < 2) {
		fprintf(stderr, "usage: %s ITERATIONS [SEED [FILE...]]\n"
			"       %s --corpus DIR\n", argv[0], argv[0]);
		return 2;
	}
	if (!strcmp(argv[1], "--corpus"))
		return argc == 3 ? write_corpus(argv[2]) : 2;
	iterations = strtoull(argv[1], NULL, 0);
	rng_state = argc > 2 ? strtoull(argv[2], NULL, 0) : 1;
	if (!rng_state)
		rng_state = 1;
	signal(SIGABRT, on_abort);
	__sanitizer_set_death_callback(dump_current);

	add_seeds();
	for (a = 3; a < argc; a++)
		add_file(argv[a]);
	nseeds = pool_len;
	/* Replay: every seed and file as is. */
	for (i = 0; i < pool_len; i++)
		run_one(pool[i].data, pool[i].len);
	printf("fuzz: replayed %u inputs\n", pool_len);

	for (i = 0; i < iterations; i++) {
		/* Half from the seeds, so that L3 inputs keep their share. */
		const struct input *in = &pool[rnd_below(rnd_below(2) ?
							 nseeds : pool_len)];
		size_t len = in->len;

		memcpy(work, in->data, len);
		mutate(work, &len);
		run_one(work, len);
		/* Keep transport packets that parse: they reach deeper. */
		if (sroce_fuzz_mode(work[0]) == SROCE_FUZZ_TRANSPORT &&
		    !sroce_roce_parse(work + 1, len - 1, &info) &&
		    rnd_below(16) == 0) {
			pool_add(work, len);
			kept++;
		}
	}
	printf("fuzz: accepted %llu transport packets (kinds:",
	       sroce_fuzz_stats.parsed);
	for (a = 1; a <= SROCE_OPK_CNP; a++)
		printf(" %llu", sroce_fuzz_stats.per_kind[a]);
	printf("), %llu ICRCs computed, %llu matched, %llu train packets\n",
	       sroce_fuzz_stats.icrc_computed, sroce_fuzz_stats.icrc_matched,
	       sroce_fuzz_stats.train_pkts);
	printf("fuzz: %llu pause frames accepted, %llu buffer operations\n",
	       sroce_fuzz_stats.pauses_parsed, sroce_fuzz_stats.buf_ops);
	printf("fuzz: %llu MODIFY_QP checks (%llu accepted as given), ",
	       sroce_fuzz_stats.qp_checks, sroce_fuzz_stats.qp_accepted);
	printf("%llu command slots (%llu executable)\n",
	       sroce_fuzz_stats.cmd_entries, sroce_fuzz_stats.cmd_valid);
	printf("fuzz: %llu DCQCN calls (%llu limited, %llu releases), ",
	       sroce_fuzz_stats.dcqcn_calls, sroce_fuzz_stats.dcqcn_limited,
	       sroce_fuzz_stats.dcqcn_released);
	printf("%llu range checks (%llu within)\n",
	       sroce_fuzz_stats.addr_checks, sroce_fuzz_stats.addr_within);
	printf("fuzz: %llu iterations (seed %s), %llu inputs kept, %lds, no failures\n",
	       iterations, argc > 2 ? argv[2] : "1", kept,
	       (long)(time(NULL) - start));
	return 0;
}
