// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * A fuzz driver that needs no libFuzzer: replay the given files, then run
 * N random mutations of a seed pool through the same target the libFuzzer
 * harness uses (fuzz_target.c). Built with gcc or clang, ASan and UBSan.
 *
 *   fuzz-standalone ITERATIONS [SEED [FILE...]]
 *
 * The pool starts with the ICRC vectors (as transport packets and as L3
 * packets), one built packet per valid opcode (bare and behind each L3
 * header) and the FILEs; inputs that parse are added as the run goes.
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

#include "lib/pfc.h"
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

			if (i % 2)	/* one of each L3 type is plenty */
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
}

static void mutate(u8 *d, size_t *lenp)
{
	static const u8 interesting[] = {
		0x00, 0x01, 0x03, 0x04, 0x0f, 0x10, 0x1f, 0x20, 0x30, 0x3f,
		0x40, 0x45, 0x60, 0x64, 0x65, 0x7f, 0x80, 0x81, 0xc0, 0xff,
	};
	size_t len = *lenp, pos, n, k;
	unsigned int rounds = 1 + rnd_below(4);
	/* Where the BTH starts for this selector. */
	size_t bth = (d[0] & 3) == 0 ? 1 : (d[0] & 3) == 1 ? 29 :
		     (d[0] & 3) == 2 ? 49 : 41;

	while (rounds--) {
		switch (rnd_below(12)) {
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
		fprintf(stderr, "usage: %s ITERATIONS [SEED [FILE...]]\n",
			argv[0]);
		return 2;
	}
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
		if (!(work[0] & 3) &&
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
	printf("), %llu ICRCs computed, %llu matched\n",
	       sroce_fuzz_stats.icrc_computed, sroce_fuzz_stats.icrc_matched);
	printf("fuzz: %llu pause frames accepted, %llu buffer operations\n",
	       sroce_fuzz_stats.pauses_parsed, sroce_fuzz_stats.buf_ops);
	printf("fuzz: %llu iterations (seed %s), %llu inputs kept, %lds, no failures\n",
	       iterations, argc > 2 ? argv[2] : "1", kept,
	       (long)(time(NULL) - start));
	return 0;
}
