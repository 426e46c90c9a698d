// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * ccsim: DCQCN at data-centre scale on one machine. N senders, each on
 * its own link, send through one switch egress queue to one receiver.
 * The reaction point is sroce's own (drivers/lib/dcqcn.c, the code the
 * module runs); the rest is a discrete-event model:
 *
 * - sender: a flow always has data; it sends an MTU packet as soon as its
 *   link is free and, while its limiter is on, its pacing allows
 *   (next = max(next, now) + packet time at the current rate);
 * - links: the sender's link serialises at --link-gbps and adds
 *   --delay-us; packets then join the switch queue;
 * - switch (the congestion point): a FIFO of --buffer-kb drained at the
 *   bottleneck rate; a packet arriving to a full buffer is dropped; at
 *   dequeue it is CE-marked with RED's probability on the instantaneous
 *   queue (none below --kmin-kb, linear to --pmax at --kmax-kb, all
 *   above), as both reference simulators do;
 * - receiver (the notification point): a CE-marked packet of a flow that
 *   had no CNP within np_min_time_between_cnps gets one, which reaches
 *   the sender after --delay-us on an uncongested path;
 * - without --no-ecn packets are ECN-capable; with it nothing is marked
 *   and the queue overflows instead (there is no retransmission: a drop
 *   is only counted).
 *
 * Output: a CSV time series (--csv FILE: time, queue, CNPs and each
 * flow's throughput and current rate per --sample-us interval) and a
 * summary; --check makes the summary's claims exit codes.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/dcqcn.h"

#define NS_PER_US	1000ULL
#define MAX_FLOWS	4096

enum ev_type { EV_SEND, EV_ARRIVE, EV_DEQUEUE, EV_CNP, EV_ACK, EV_SAMPLE };

struct event {
	u64 t;
	u64 seq;		/* ties: first scheduled, first served */
	enum ev_type type;
	unsigned int flow;
	u32 bytes;
};

struct heap {
	struct event *ev;
	size_t n, cap;
	u64 seq;
};

struct flow {
	struct sroce_dcqcn_rp rp;
	u64 start_ns;
	u64 link_free_ns;	/* the sender's link is busy until then */
	u64 pace_next_ns;
	u64 last_cnp_ns;	/* at the notification point */
	bool cnp_sent;
	u64 rx_bytes, rx_bytes_sample, rx_bytes_window;
	u64 cnps;
	unsigned int inflight;	/* sent, not yet acknowledged (--window) */
	bool blocked;		/* waits for an acknowledgment */
};

struct pkt {
	unsigned int flow;
	u32 bytes;
};

static struct {
	unsigned int flows;
	double link_gbps, bottleneck_gbps, delay_us;
	double kmin_kb, kmax_kb, pmax, buffer_kb;
	unsigned int mtu, send_window;
	double duration_ms, stagger_ms, sample_us, window_start_ms;
	bool ecn, check;
	const char *csv;
	unsigned long seed;
} opt = {
	.flows = 2, .link_gbps = 40, .bottleneck_gbps = 40, .delay_us = 1,
	.kmin_kb = 5, .kmax_kb = 200, .pmax = 0.01, .buffer_kb = 2048,
	.mtu = 1024, .duration_ms = 100, .stagger_ms = 0, .sample_us = 100,
	.window_start_ms = -1, .ecn = true, .seed = 1,
};

static u32 params[SROCE_NUM_CC_PARAMS];
static struct sroce_dcqcn_cfg cfg;
static struct flow *flows;
static struct heap heap;

/* The switch queue: a ring of packets, and its length in bytes. */
static struct pkt *queue;
static size_t q_head, q_len, q_cap;
static u64 q_bytes, q_max_bytes, q_sum_samples, q_samples;
static bool q_busy;
static u64 drops, drops_window, marks, cnps_total, cnps_sample;

static void heap_push(u64 t, enum ev_type type, unsigned int flow, u32 bytes)
{
	size_t i;

	if (heap.n == heap.cap) {
		heap.cap = heap.cap ? heap.cap * 2 : 1024;
		heap.ev = realloc(heap.ev, heap.cap * sizeof(*heap.ev));
		if (!heap.ev) {
			perror("ccsim");
			exit(1);
		}
	}
	i = heap.n++;
	while (i) {
		size_t parent = (i - 1) / 2;
		struct event *p = &heap.ev[parent];

		if (p->t < t || (p->t == t && p->seq < heap.seq))
			break;
		heap.ev[i] = *p;
		i = parent;
	}
	heap.ev[i] = (struct event){ t, heap.seq++, type, flow, bytes };
}

static bool ev_before(const struct event *a, const struct event *b)
{
	return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

static struct event heap_pop(void)
{
	struct event top = heap.ev[0], last = heap.ev[--heap.n];
	size_t i = 0;

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= heap.n)
			break;
		if (c + 1 < heap.n && ev_before(&heap.ev[c + 1], &heap.ev[c]))
			c++;
		if (!ev_before(&heap.ev[c], &last))
			break;
		heap.ev[i] = heap.ev[c];
		i = c;
	}
	if (heap.n)
		heap.ev[i] = last;
	return top;
}

static u64 gbps_kbps(double gbps)
{
	return (u64)(gbps * 1e6);
}

static u64 ser_ns(u32 bytes, double gbps)
{
	return llround(bytes * 8.0 / gbps);
}

/* The flow's next packet: when its link and its pacing both allow. */
static void schedule_send(unsigned int i, u64 now)
{
	struct flow *f = &flows[i];
	u64 t = now > f->link_free_ns ? now : f->link_free_ns;

	if (f->rp.active && f->pace_next_ns > t)
		t = f->pace_next_ns;
	heap_push(t, EV_SEND, i, opt.mtu);
}

static void do_send(const struct event *e)
{
	struct flow *f = &flows[e->flow];
	u64 now = e->t;

	/* The state may have moved since this send was scheduled. */
	sroce_dcqcn_advance(&f->rp, &cfg, now);
	if (f->rp.active && f->pace_next_ns > now) {
		heap_push(f->pace_next_ns, EV_SEND, e->flow, e->bytes);
		return;
	}
	/* An RC send window: the next acknowledgment sends again. */
	if (opt.send_window && f->inflight >= opt.send_window) {
		f->blocked = true;
		return;
	}
	f->inflight++;
	f->link_free_ns = now + ser_ns(e->bytes, opt.link_gbps);
	if (f->rp.active) {
		u64 base = f->pace_next_ns > now ? f->pace_next_ns : now;

		f->pace_next_ns = base + sroce_dcqcn_tx_ns(e->bytes,
							   f->rp.rc_kbps);
	}
	sroce_dcqcn_sent(&f->rp, &cfg, now, e->bytes);
	heap_push(f->link_free_ns + (u64)(opt.delay_us * NS_PER_US),
		  EV_ARRIVE, e->flow, e->bytes);
	schedule_send(e->flow, f->link_free_ns);
}

static void start_dequeue(u64 now)
{
	if (q_busy || !q_len)
		return;
	q_busy = true;
	heap_push(now + ser_ns(queue[q_head].bytes, opt.bottleneck_gbps),
		  EV_DEQUEUE, 0, 0);
}

static void do_arrive(const struct event *e)
{
	if (q_bytes + e->bytes > (u64)(opt.buffer_kb * 1000)) {
		drops++;
		if (e->t >= (u64)(opt.window_start_ms * 1e6))
			drops_window++;
		/* No retransmission modelled: the slot comes back. */
		if (opt.send_window)
			heap_push(e->t, EV_ACK, e->flow, 0);
		return;
	}
	if (q_len == q_cap) {
		size_t n = q_cap ? q_cap * 2 : 1024, k;
		struct pkt *nq = malloc(n * sizeof(*nq));

		if (!nq) {
			perror("ccsim");
			exit(1);
		}
		for (k = 0; k < q_len; k++)
			nq[k] = queue[(q_head + k) % q_cap];
		free(queue);
		queue = nq;
		q_cap = n;
		q_head = 0;
	}
	queue[(q_head + q_len++) % q_cap] = (struct pkt){ e->flow, e->bytes };
	q_bytes += e->bytes;
	if (q_bytes > q_max_bytes)
		q_max_bytes = q_bytes;
	start_dequeue(e->t);
}

/* RED on the instantaneous queue, at dequeue. */
static bool red_mark(void)
{
	double kb = q_bytes / 1000.0, p;

	if (!opt.ecn || kb <= opt.kmin_kb)
		return false;
	if (kb > opt.kmax_kb)
		return true;
	p = opt.pmax * (kb - opt.kmin_kb) / (opt.kmax_kb - opt.kmin_kb);
	return drand48() < p;
}

static void do_dequeue(const struct event *e)
{
	struct pkt p = queue[q_head];
	struct flow *f = &flows[p.flow];
	u64 at_rx = e->t + (u64)(opt.delay_us * NS_PER_US);
	u64 gap = params[SROCE_CC_NP_MIN_TIME_BETWEEN_CNPS] * NS_PER_US;
	bool ce = red_mark();

	q_head = (q_head + 1) % q_cap;
	q_len--;
	q_busy = false;
	/* Bytes leave the queue now; marking saw them still queued. */
	q_bytes -= p.bytes;
	f->rx_bytes += p.bytes;
	if (e->t >= (u64)(opt.window_start_ms * 1e6))
		f->rx_bytes_window += p.bytes;
	if (opt.send_window)
		heap_push(at_rx + (u64)(opt.delay_us * NS_PER_US), EV_ACK,
			  p.flow, 0);
	if (ce) {
		marks++;
		if (!f->cnp_sent || at_rx - f->last_cnp_ns >= gap) {
			f->cnp_sent = true;
			f->last_cnp_ns = at_rx;
			f->cnps++;
			cnps_total++;
			cnps_sample++;
			heap_push(at_rx + (u64)(opt.delay_us * NS_PER_US),
				  EV_CNP, p.flow, 0);
		}
	}
	start_dequeue(e->t);
}

static void do_cnp(const struct event *e)
{
	struct flow *f = &flows[e->flow];
	bool was_active = f->rp.active;

	sroce_dcqcn_cnp(&f->rp, &cfg, e->t, gbps_kbps(opt.link_gbps));
	if (!was_active)
		f->pace_next_ns = e->t;
}

/* An acknowledgment back at the sender frees a slot of its window. */
static void do_ack(const struct event *e)
{
	struct flow *f = &flows[e->flow];

	f->inflight--;
	if (f->blocked) {
		f->blocked = false;
		schedule_send(e->flow, e->t);
	}
}

static FILE *csv;

static void do_sample(const struct event *e)
{
	double us = opt.sample_us;
	unsigned int i;

	if (e->t >= (u64)(opt.window_start_ms * 1e6)) {
		q_sum_samples += q_bytes;
		q_samples++;
	}
	if (csv) {
		fprintf(csv, "%.1f,%.3f,%llu", e->t / 1e3, q_bytes / 1e3,
			(unsigned long long)cnps_sample);
		for (i = 0; i < opt.flows; i++) {
			struct flow *f = &flows[i];
			u64 b = f->rx_bytes - f->rx_bytes_sample;

			sroce_dcqcn_advance(&f->rp, &cfg, e->t);
			fprintf(csv, ",%.3f,%.3f", b * 8.0 / (us * 1e3),
				f->rp.active ? f->rp.rc_kbps / 1e6 :
					       opt.link_gbps);
			f->rx_bytes_sample = f->rx_bytes;
		}
		fputc('\n', csv);
	}
	cnps_sample = 0;
	heap_push(e->t + (u64)(us * NS_PER_US), EV_SAMPLE, 0, 0);
}

static int set_cc(char *arg)
{
	char *tok, *save = NULL;

	for (tok = strtok_r(arg, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '=');
		unsigned int id;

		if (!eq)
			return -EINVAL;
		*eq = 0;
		for (id = 0; id < SROCE_NUM_CC_PARAMS; id++)
			if (!strcmp(sroce_cc_params[id].name, tok))
				break;
		if (id == SROCE_NUM_CC_PARAMS) {
			fprintf(stderr, "ccsim: no knob %s\n", tok);
			return -EINVAL;
		}
		params[id] = strtoul(eq + 1, NULL, 0);
		if (sroce_cc_param_check(id, params[id])) {
			fprintf(stderr, "ccsim: %s=%u out of range %u..%u\n",
				tok, params[id], sroce_cc_params[id].min,
				sroce_cc_params[id].max);
			return -EINVAL;
		}
	}
	return 0;
}

static void usage(FILE *out)
{
	fprintf(out,
		"usage: ccsim [options]\n"
		"  --flows N          senders (default 2, at most %u)\n"
		"  --link-gbps G      each sender's link (40)\n"
		"  --bottleneck-gbps G  the switch egress (40)\n"
		"  --delay-us D       propagation delay of each hop (1)\n"
		"  --kmin-kb K --kmax-kb K --pmax P   RED marking (5, 200, 0.01)\n"
		"  --buffer-kb B      switch buffer (2048)\n"
		"  --mtu BYTES        packet size (1024)\n"
		"  --send-window N    packets a flow has unacknowledged at most, its\n"
		"                     acknowledgment one hop after delivery (0: no\n"
		"                     window, a flow sends at its rate)\n"
		"  --duration-ms T    simulated time (100)\n"
		"  --stagger-ms S     flow i starts at i * S (0)\n"
		"  --window-ms W      fairness over [W, end] (default: second half)\n"
		"  --sample-us S      CSV interval (100)\n"
		"  --cc NAME=V,...    congestion knobs (mlx5 cc_params names)\n"
		"  --no-ecn           no marking: the queue overflows instead\n"
		"  --csv FILE         time series\n"
		"  --seed N           marking's random numbers (1)\n"
		"  --check            exit 1 unless, over the window: fair (Jain\n"
		"                     >= 0.95), no drop, mean queue within\n"
		"                     [0.5 Kmin, 1.5 Kmax], 80%% of the bottleneck used\n",
		MAX_FLOWS);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "flows", 1, NULL, 'n' }, { "link-gbps", 1, NULL, 'l' },
		{ "bottleneck-gbps", 1, NULL, 'b' }, { "delay-us", 1, NULL, 'd' },
		{ "kmin-kb", 1, NULL, 'k' }, { "kmax-kb", 1, NULL, 'K' },
		{ "pmax", 1, NULL, 'p' }, { "buffer-kb", 1, NULL, 'B' },
		{ "mtu", 1, NULL, 'm' }, { "duration-ms", 1, NULL, 't' },
		{ "stagger-ms", 1, NULL, 's' }, { "window-ms", 1, NULL, 'w' },
		{ "sample-us", 1, NULL, 'S' }, { "cc", 1, NULL, 'c' },
		{ "no-ecn", 0, NULL, 'E' }, { "csv", 1, NULL, 'o' },
		{ "seed", 1, NULL, 'r' }, { "check", 0, NULL, 'C' },
		{ "send-window", 1, NULL, 'W' },
		{ "help", 0, NULL, 'h' }, { NULL, 0, NULL, 0 },
	};
	double sum = 0, sum2 = 0, jain, q_mean, end_ns;
	unsigned int i;
	int c, bad = 0;

	sroce_cc_params_default(params);
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'n': opt.flows = strtoul(optarg, NULL, 0); break;
		case 'l': opt.link_gbps = atof(optarg); break;
		case 'b': opt.bottleneck_gbps = atof(optarg); break;
		case 'd': opt.delay_us = atof(optarg); break;
		case 'k': opt.kmin_kb = atof(optarg); break;
		case 'K': opt.kmax_kb = atof(optarg); break;
		case 'p': opt.pmax = atof(optarg); break;
		case 'B': opt.buffer_kb = atof(optarg); break;
		case 'm': opt.mtu = strtoul(optarg, NULL, 0); break;
		case 'W': opt.send_window = strtoul(optarg, NULL, 0); break;
		case 't': opt.duration_ms = atof(optarg); break;
		case 's': opt.stagger_ms = atof(optarg); break;
		case 'w': opt.window_start_ms = atof(optarg); break;
		case 'S': opt.sample_us = atof(optarg); break;
		case 'c':
			if (set_cc(optarg))
				return 2;
			break;
		case 'E': opt.ecn = false; break;
		case 'o': opt.csv = optarg; break;
		case 'r': opt.seed = strtoul(optarg, NULL, 0); break;
		case 'C': opt.check = true; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (!opt.flows || opt.flows > MAX_FLOWS || opt.link_gbps <= 0 ||
	    opt.bottleneck_gbps <= 0 || opt.mtu < 64 || opt.mtu > 9000 ||
	    opt.duration_ms <= 0 || opt.sample_us <= 0 ||
	    opt.kmax_kb <= opt.kmin_kb || opt.delay_us < 0) {
		usage(stderr);
		return 2;
	}
	if (opt.window_start_ms < 0)
		opt.window_start_ms = opt.duration_ms / 2;
	srand48(opt.seed);
	sroce_dcqcn_cfg_init(&cfg, params, gbps_kbps(opt.link_gbps));
	flows = calloc(opt.flows, sizeof(*flows));
	if (!flows) {
		perror("ccsim");
		return 1;
	}
	if (opt.csv) {
		csv = fopen(opt.csv, "w");
		if (!csv) {
			perror(opt.csv);
			return 1;
		}
		fprintf(csv, "time_us,queue_kb,cnps");
		for (i = 0; i < opt.flows; i++)
			fprintf(csv, ",flow%u_gbps,flow%u_rate_gbps", i, i);
		fputc('\n', csv);
	}
	for (i = 0; i < opt.flows; i++) {
		flows[i].start_ns = (u64)(i * opt.stagger_ms * 1e6);
		schedule_send(i, flows[i].start_ns);
	}
	heap_push((u64)(opt.sample_us * NS_PER_US), EV_SAMPLE, 0, 0);
	end_ns = opt.duration_ms * 1e6;

	while (heap.n) {
		struct event e = heap_pop();

		if (e.t > end_ns)
			break;
		switch (e.type) {
		case EV_SEND: do_send(&e); break;
		case EV_ARRIVE: do_arrive(&e); break;
		case EV_DEQUEUE: do_dequeue(&e); break;
		case EV_CNP: do_cnp(&e); break;
		case EV_ACK: do_ack(&e); break;
		case EV_SAMPLE: do_sample(&e); break;
		}
	}
	if (csv)
		fclose(csv);

	for (i = 0; i < opt.flows; i++) {
		double g = flows[i].rx_bytes_window * 8.0 /
			   ((opt.duration_ms - opt.window_start_ms) * 1e6);

		sum += g;
		sum2 += g * g;
	}
	jain = sum2 > 0 ? sum * sum / (opt.flows * sum2) : 0;
	q_mean = q_samples ? q_sum_samples / (double)q_samples / 1e3 : 0;
	printf("flows %u, bottleneck %.1f Gbit/s, %.1f ms\n", opt.flows,
	       opt.bottleneck_gbps, opt.duration_ms);
	printf("throughput over [%.1f, %.1f] ms: total %.3f Gbit/s, Jain %.4f\n",
	       opt.window_start_ms, opt.duration_ms, sum, jain);
	if (opt.flows <= 8)
		for (i = 0; i < opt.flows; i++)
			printf("  flow %u: %.3f Gbit/s, %llu CNPs\n", i,
			       flows[i].rx_bytes_window * 8.0 /
			       ((opt.duration_ms - opt.window_start_ms) * 1e6),
			       (unsigned long long)flows[i].cnps);
	printf("queue: mean over the window %.1f KB, max %.1f KB; marked %llu, CNPs %llu, dropped %llu (%llu in the window)\n",
	       q_mean, q_max_bytes / 1e3, (unsigned long long)marks,
	       (unsigned long long)cnps_total, (unsigned long long)drops,
	       (unsigned long long)drops_window);
	if (opt.check) {
		if (jain < 0.95) {
			printf("check: Jain index %.4f < 0.95\n", jain);
			bad = 1;
		}
		if (drops_window) {
			printf("check: %llu packets dropped in the window\n",
			       (unsigned long long)drops_window);
			bad = 1;
		}
		if (q_mean < opt.kmin_kb / 2 || q_mean > 1.5 * opt.kmax_kb) {
			printf("check: mean queue %.1f KB outside [%.1f, %.1f]\n",
			       q_mean, opt.kmin_kb / 2, 1.5 * opt.kmax_kb);
			bad = 1;
		}
		if (sum < 0.8 * opt.bottleneck_gbps) {
			printf("check: bottleneck %.0f%% used\n",
			       100 * sum / opt.bottleneck_gbps);
			bad = 1;
		}
		printf("check: %s\n", bad ? "FAILED" : "passed");
	}
	free(flows);
	free(queue);
	free(heap.ev);
	return bad;
}
