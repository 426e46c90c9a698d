// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * resource_limits: the device's object limits as an application meets
 * them, through libibverbs and the unmodified rdma-core librxe provider.
 *
 *  - limit_*: for PDs, CQs, QPs, SRQs, MRs, MWs and AHs, as many objects
 *    as ibv_query_device() advertises can be created; the one past them
 *    fails cleanly (NULL, errno set), every object can be destroyed, and
 *    the pool comes back (a new object can be created, the firmware holds
 *    what it held before). MRs and MWs share one firmware pool
 *    (SROCE_FW_MAX_MR, "regions and windows"): with the pool full of one
 *    kind, the other kind fails too.
 *  - limit_* of one object's capacities: a QP's WRs, SGEs and inline
 *    data, an SRQ's WRs and SGEs, a QP's READs/atomics in modify_qp, a
 *    region's length, the multicast groups and the QPs of a group: the
 *    device's maximum is taken and the one past it refused cleanly.
 *  - memlock_*: without CAP_IPC_LOCK, RLIMIT_MEMLOCK bounds what memory
 *    regions and the queue rings (vmalloc'd by the driver and mapped to
 *    userspace) pin, and destroying them gives it back.
 *  - create_destroy_cycles: thousands of PD, CQ, SRQ, QP (to RTS on a
 *    loopback connection), MR, MW, AH create/destroy cycles leave
 *    unreclaimable kernel memory and pinned pages where they found them,
 *    and no slab cache grows in the second half of them.
 *  - memory_per_object: what one QP, CQ and MR cost the kernel.
 *
 * Objects the kernel holds itself (the GSI QP, its CQ and PD, the PD's
 * DMA MR) take from the same firmware pools. The driver's debugfs file
 * cmd_stats counts every create and destroy command, so the test knows
 * exactly how many objects of each kind the firmware held before it
 * started and expects the rest of each pool, no more, no less.
 *
 * Environment:
 *   SROCE_DEV        the RDMA device (the whole program skips if unset)
 *   SROCE_GID_INDEX  one of its RoCE v2 GIDs (AHs, loopback connection)
 *   SROCE_CYCLES     create/destroy cycles (default 10000)
 *   SROCE_WARMUP     cycles before the first measurement (default 300)
 *   SROCE_MEM_OBJECTS objects per type for memory_per_object (default 1000)
 *   SROCE_CYCLE_MEM_KB  growth of unreclaimable memory the cycles may
 *                    leave, kB (default CYCLE_MEM_TOLERANCE_KB)
 *   SROCE_SLAB_HALF_OBJS  objects a slab cache may grow by in each half
 *                    of the cycles (default SLAB_HALF_TOLERANCE)
 *   SROCE_CASES      comma-separated case names to run, the others skip
 *                    (for development; default: all)
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/capability.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "kselftest_harness.h"
#include "sroce_test.h"

#define KIB		1024L
#define MIB		(1024L * 1024)

/* Defaults of the environment knobs (see the header comment). */
#define DEFAULT_CYCLES		10000UL
#define DEFAULT_WARMUP		300UL
#define DEFAULT_MEM_OBJECTS	1000UL

/* RLIMIT_MEMLOCK for the memlock cases, and what is registered under it. */
#define MEMLOCK_LIMIT		(1 * MIB)
#define MEMLOCK_TOO_BIG		(4 * MIB)
#define MEMLOCK_FITS		(512 * KIB)

/*
 * Growth the create/destroy cycles may leave. SUnreclaim + VmallocUsed +
 * PageTables may end this much higher over all of them (per-CPU caches,
 * the xarrays' nodes and the like settle at a new level; measured: +8
 * kB after 10,000 cycles on 6.1): the bound for what slabinfo does not
 * show, the rings' vmalloc memory and page tables.
 *
 * Slab caches are compared per cache over the two halves of the cycles:
 * a leak grows in both, by cycles / 2 / (cycles per leaked object)
 * objects in each, while /proc/slabinfo's active counts (which include
 * the free objects of per-CPU slabs) swing by up to about 180 objects
 * either way between two readings of an idle cache on 6.1 (kmalloc-96:
 * -112 then +178; +42 and +42 in another run; none of it a leak: with
 * slub_debug=U no allocation site held one object more after 4,000
 * cycles). A cache fails if it grew by more than SLAB_HALF_TOLERANCE
 * objects in each half: at 10,000 cycles a leak of one object in 50
 * cycles fails, whatever its size; smaller ones are kmemleak's, on the
 * debug kernel. The debug kernel needs its own bounds (the environment):
 * KASAN's quarantine and kmemleak's bookkeeping hold freed objects for a
 * while.
 */
#define CYCLE_MEM_TOLERANCE_KB	512L
#define SLAB_HALF_TOLERANCE	128L
/* Reads of /proc/slabinfo per measurement (sample_slabs()). */
#define SLAB_SAMPLES		3
/* Caches named in the diagnostics of the second half's growth. */
#define SLAB_REPORT		5

/* How long freed memory (kfree_rcu, deferred vfree) may take to settle. */
#define SETTLE_MAX_MS		15000
#define SETTLE_QUIET_MS		1000
#define SETTLE_POLL_MS		50

enum obj_kind {
	OBJ_PD,
	OBJ_CQ,
	OBJ_QP,
	OBJ_SRQ,
	OBJ_MR,
	OBJ_MW,
	OBJ_AH,
	OBJ_KINDS
};

/*
 * The kinds by name, and the debugfs cmd_stats rows of the firmware
 * commands that create and destroy them.
 */
static const struct {
	const char *name;
	const char *create_cmd;
	const char *destroy_cmd;
} kinds[OBJ_KINDS] = {
	[OBJ_PD] = { "PD", "ALLOC_PD", "DEALLOC_PD" },
	[OBJ_CQ] = { "CQ", "CREATE_CQ", "DESTROY_CQ" },
	[OBJ_QP] = { "QP", "CREATE_QP", "DESTROY_QP" },
	[OBJ_SRQ] = { "SRQ", "CREATE_SRQ", "DESTROY_SRQ" },
	[OBJ_MR] = { "MR", "REG_MR", "DEREG_MR" },
	[OBJ_MW] = { "MW", "ALLOC_MW", "DEALLOC_MW" },
	[OBJ_AH] = { "AH", "CREATE_AH", "DESTROY_AH" },
};

/* Diagnostics go to stderr: the harness ends each case with _exit(). */
#define diag(fmt, ...) fprintf(stderr, "# " fmt "\n", ##__VA_ARGS__)

static unsigned long env_ulong(const char *name, unsigned long def)
{
	const char *v = sroce_env(name);
	char *end;
	unsigned long n;

	if (!v)
		return def;
	n = strtoul(v, &end, 0);
	return *end ? def : n;
}

static bool case_selected(const char *name)
{
	const char *list = sroce_env("SROCE_CASES");
	size_t len = strlen(name);
	const char *p;

	if (!list)
		return true;
	for (p = list; (p = strstr(p, name)); p += len)
		if ((p == list || p[-1] == ',') &&
		    (p[len] == ',' || p[len] == '\0'))
			return true;
	return false;
}

#define SKIP_UNLESS_SELECTED() do {					\
	if (!case_selected(_metadata->name))				\
		SKIP(return, "not in SROCE_CASES");			\
} while (0)

/* --- kernel memory ------------------------------------------------------ */

/* The /proc/meminfo fields the kernel's share of objects shows in, kB. */
struct meminfo {
	long slab;
	long sunreclaim;
	long vmalloc_used;
	long page_tables;
};

static int read_meminfo(struct meminfo *m)
{
	static const struct {
		const char *key;
		size_t off;
	} fields[] = {
		{ "Slab:", offsetof(struct meminfo, slab) },
		{ "SUnreclaim:", offsetof(struct meminfo, sunreclaim) },
		{ "VmallocUsed:", offsetof(struct meminfo, vmalloc_used) },
		{ "PageTables:", offsetof(struct meminfo, page_tables) },
	};
	char line[128];
	unsigned int found = 0, i;
	FILE *f;

	memset(m, 0, sizeof(*m));
	f = fopen("/proc/meminfo", "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		for (i = 0; i < ARRAY_SIZE(fields); i++) {
			size_t n = strlen(fields[i].key);

			if (strncmp(line, fields[i].key, n))
				continue;
			*(long *)((char *)m + fields[i].off) =
				strtol(line + n, NULL, 10);
			found++;
		}
	}
	fclose(f);
	return found == ARRAY_SIZE(fields) ? 0 : -EBADMSG;
}

/* What objects cost the kernel: slab, vmalloc and page tables, kB. */
static long kernel_kb(const struct meminfo *m)
{
	return m->slab + m->vmalloc_used + m->page_tables;
}

/* The part of it no shrinker gives back: what a leak grows. */
static long unreclaimable_kb(const struct meminfo *m)
{
	return m->sunreclaim + m->vmalloc_used + m->page_tables;
}

/*
 * Shrink every slab cache (root only; best effort): objects freed to
 * per-CPU slabs, and on a KASAN kernel those held in its quarantine,
 * count as active in /proc/slabinfo until then, and empty slabs as Slab
 * in /proc/meminfo.
 */
static void shrink_slabs(void)
{
	DIR *d = opendir("/sys/kernel/slab");
	char path[300];
	struct dirent *e;
	int fd;

	if (!d)
		return;
	while ((e = readdir(d))) {
		/* Links are merged caches' other names. */
		if (e->d_name[0] == '.' || e->d_type == DT_LNK)
			continue;
		snprintf(path, sizeof(path), "/sys/kernel/slab/%s/shrink",
			 e->d_name);
		fd = open(path, O_WRONLY);
		if (fd < 0)
			continue;
		/* A cache that cannot shrink is merely measured as it is. */
		(void)!write(fd, "1", 1);
		close(fd);
	}
	closedir(d);
}

/*
 * Wait until freed memory has come back: kfree_rcu() and deferred
 * frees finish after the destroy calls return. Polls until
 * unreclaimable_kb() has not fallen for SETTLE_QUIET_MS, at most
 * SETTLE_MAX_MS, then shrinks the slab caches.
 */
static void settle(struct meminfo *m)
{
	uint64_t start = sroce_now_ms(), quiet_since = start;
	struct meminfo now;
	long low;

	read_meminfo(m);
	low = unreclaimable_kb(m);
	while (sroce_now_ms() - start < SETTLE_MAX_MS &&
	       sroce_now_ms() - quiet_since < SETTLE_QUIET_MS) {
		usleep(SETTLE_POLL_MS * 1000);
		if (read_meminfo(&now))
			break;
		if (unreclaimable_kb(&now) < low) {
			low = unreclaimable_kb(&now);
			quiet_since = sroce_now_ms();
		}
		*m = now;
	}
	shrink_slabs();
	read_meminfo(m);
}

/*
 * The pace of a long run of creates or destroys: the time the first and
 * the last whole PACE_STEP objects took, to tell a constant cost per
 * object from one that grows with the objects already there.
 */
#define PACE_STEP	1000

struct pace {
	uint64_t start;
	uint64_t mark;
	uint64_t first_ms;
	uint64_t last_ms;
};

static void pace_start(struct pace *p)
{
	memset(p, 0, sizeof(*p));
	p->start = sroce_now_ms();
	p->mark = p->start;
}

/* @done objects so far. */
static void pace_tick(struct pace *p, unsigned long done)
{
	uint64_t now;

	if (done % PACE_STEP)
		return;
	now = sroce_now_ms();
	if (done == PACE_STEP)
		p->first_ms = now - p->start;
	p->last_ms = now - p->mark;
	p->mark = now;
}

struct slab_cache {
	char name[64];
	long active;
	long objsize;
};

struct slabinfo {
	struct slab_cache *cache;
	int n;
};

/* /proc/slabinfo (root only). Return: 0 or a negative errno. */
static int read_slabinfo(struct slabinfo *s)
{
	char line[512];
	FILE *f;
	int cap = 0;

	s->cache = NULL;
	s->n = 0;
	f = fopen("/proc/slabinfo", "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		struct slab_cache c;
		long num;

		if (sscanf(line, "%63s %ld %ld %ld", c.name, &c.active, &num,
			   &c.objsize) != 4)
			continue;	/* the two header lines */
		if (s->n == cap) {
			struct slab_cache *more;

			cap = cap ? 2 * cap : 256;
			more = realloc(s->cache, cap * sizeof(*more));
			if (!more) {
				fclose(f);
				return -ENOMEM;
			}
			s->cache = more;
		}
		s->cache[s->n++] = c;
	}
	fclose(f);
	return 0;
}

static const struct slab_cache *slab_find(const struct slabinfo *s,
					  const char *name)
{
	int i;

	for (i = 0; i < s->n; i++)
		if (!strcmp(s->cache[i].name, name))
			return &s->cache[i];
	return NULL;
}

/*
 * The smallest count of each cache over SLAB_SAMPLES reads, each after a
 * shrink: an object waiting for a deferred free (fput, RCU, another
 * CPU's slab) shows in some reads and not in others, a leaked one in
 * all. Return: 0 or a negative errno.
 */
static int sample_slabs(struct slabinfo *s)
{
	struct slabinfo more;
	int i, j, err;

	shrink_slabs();
	err = read_slabinfo(s);
	for (i = 1; i < SLAB_SAMPLES && !err; i++) {
		shrink_slabs();
		err = read_slabinfo(&more);
		for (j = 0; j < s->n && !err; j++) {
			const struct slab_cache *c = slab_find(&more,
							       s->cache[j].name);
			long now = c ? c->active : 0;

			if (now < s->cache[j].active)
				s->cache[j].active = now;
		}
		free(more.cache);
	}
	return err;
}

/* A cache's growth over the two halves of the cycles, in objects. */
struct slab_delta {
	const char *name;
	long first;
	long second;
	long objsize;
};

static int by_second_half(const void *a, const void *b)
{
	const struct slab_delta *x = a, *y = b;

	return (y->second > x->second) - (y->second < x->second);
}

/*
 * The growth of every cache from @s0 to @s1 (the first half of the
 * cycles) and from @s1 to @s2 (the second half), in @d (s2->n entries),
 * most grown in the second half first. Return: how many caches grew by
 * more than @tolerance objects in the second half.
 */
static int slab_halves(const struct slabinfo *s0, const struct slabinfo *s1,
		       const struct slabinfo *s2, long tolerance,
		       struct slab_delta *d)
{
	int i, over = 0;

	for (i = 0; i < s2->n; i++) {
		const struct slab_cache *a = slab_find(s0, s2->cache[i].name);
		const struct slab_cache *b = slab_find(s1, s2->cache[i].name);
		long n0 = a ? a->active : 0, n1 = b ? b->active : 0;

		d[i].name = s2->cache[i].name;
		d[i].first = n1 - n0;
		d[i].second = s2->cache[i].active - n1;
		d[i].objsize = s2->cache[i].objsize;
		over += d[i].first > tolerance && d[i].second > tolerance;
	}
	qsort(d, s2->n, sizeof(*d), by_second_half);
	return over;
}

/* Bytes in active slab objects, summed over all caches. */
static long long slab_active_bytes(const struct slabinfo *s)
{
	long long sum = 0;
	int i;

	for (i = 0; i < s->n; i++)
		sum += (long long)s->cache[i].active * s->cache[i].objsize;
	return sum;
}

/* Lines of a /proc/self file (VMAs in maps), or -1. */
static long count_lines(const char *path)
{
	FILE *f = fopen(path, "r");
	long n = 0;
	int c;

	if (!f)
		return -1;
	while ((c = getc_unlocked(f)) != EOF)
		n += c == '\n';
	fclose(f);
	return n;
}

/*
 * Open file descriptors of this process, or -1: the objects must not
 * take any (RLIMIT_NOFILE is no bound on them).
 */
static long count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	long n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n - 1;	/* the directory's own */
}

/* A "VmXxx:" line of /proc/self/status in kB, or -1. */
static long proc_status_kb(const char *key)
{
	size_t len = strlen(key);
	char line[128];
	long v = -1;
	FILE *f;

	f = fopen("/proc/self/status", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, len) && line[len] == ':') {
			v = strtol(line + len + 1, NULL, 10);
			break;
		}
	fclose(f);
	return v;
}

static long read_long_file(const char *path)
{
	FILE *f = fopen(path, "r");
	long v = -1;

	if (!f)
		return -1;
	if (fscanf(f, "%ld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

/* --- what the firmware holds ------------------------------------------- */

/* Commands @cmd that succeeded, or -1 if cmd_stats has no such row. */
static long long cmd_succeeded(const char *dev, const char *cmd)
{
	long long issued = sroce_cmd_stat(dev, cmd, SROCE_CMD_ISSUED);
	long long failed = sroce_cmd_stat(dev, cmd, SROCE_CMD_FAILED);

	return issued < 0 || failed < 0 ? -1 : issued - failed;
}

/*
 * Objects of each kind the firmware holds now: commands that created one
 * minus commands that destroyed one, from the driver's debugfs cmd_stats
 * (issued and failed per command since the device was created).
 * Return: 0, or -EBADMSG if cmd_stats cannot be read or lacks a row.
 */
static int fw_live(const char *dev, long live[OBJ_KINDS])
{
	long long created, destroyed;
	int k;

	for (k = 0; k < OBJ_KINDS; k++) {
		created = cmd_succeeded(dev, kinds[k].create_cmd);
		destroyed = cmd_succeeded(dev, kinds[k].destroy_cmd);
		if (created < 0 || destroyed < 0)
			return -EBADMSG;
		live[k] = created - destroyed;
	}
	return 0;
}

/*
 * Objects that take from @kind's firmware pool: MRs and MWs share one
 * (SROCE_FW_MAX_MR), and the GSI QP has its fixed number 1 outside the
 * numbered range the other QPs come from (fw_qp.c), so it takes none.
 */
static long pool_held(const long live[OBJ_KINDS], enum obj_kind kind)
{
	switch (kind) {
	case OBJ_MR:
	case OBJ_MW:
		return live[OBJ_MR] + live[OBJ_MW];
	case OBJ_QP:
		/* ib_mad creates the GSI QP with the port: it is there. */
		return live[OBJ_QP] > 0 ? live[OBJ_QP] - 1 : 0;
	default:
		return live[kind];
	}
}

static uint32_t device_max(const struct ibv_device_attr *a, enum obj_kind k)
{
	switch (k) {
	case OBJ_PD:
		return a->max_pd;
	case OBJ_CQ:
		return a->max_cq;
	case OBJ_QP:
		return a->max_qp;
	case OBJ_SRQ:
		return a->max_srq;
	case OBJ_MR:
		return a->max_mr;
	case OBJ_MW:
		return a->max_mw;
	case OBJ_AH:
		return a->max_ah;
	default:
		return 0;
	}
}

/* Mappings each object of @kind adds to the process (librxe's rings). */
static unsigned int maps_per_object(enum obj_kind k)
{
	switch (k) {
	case OBJ_CQ:
	case OBJ_SRQ:
	case OBJ_QP:	/* a send ring: the receives go to the SRQ */
		return 1;
	default:
		return 0;
	}
}

/* --- capabilities -------------------------------------------------------- */

/*
 * Give up CAP_IPC_LOCK for good (effective, permitted, inheritable and,
 * with it, ambient): ib_umem_get() lets a process holding it pin past
 * RLIMIT_MEMLOCK, as root normally does. Return: 0 or a negative errno.
 */
static int drop_ipc_lock(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];
	unsigned int word = CAP_IPC_LOCK / 32;
	uint32_t bit = 1U << (CAP_IPC_LOCK % 32);

	if (syscall(SYS_capget, &hdr, data))
		return -errno;
	data[word].effective &= ~bit;
	data[word].permitted &= ~bit;
	data[word].inheritable &= ~bit;
	if (syscall(SYS_capset, &hdr, data))
		return -errno;
	/*
	 * Out of the bounding set too, so that nothing this process might
	 * run regains it; that needs CAP_SETPCAP, which a caller that is
	 * not root lacks (and then has no CAP_IPC_LOCK either).
	 */
	prctl(PR_CAPBSET_DROP, CAP_IPC_LOCK, 0, 0, 0);

	if (syscall(SYS_capget, &hdr, data))
		return -errno;
	return data[word].effective & bit ? -EPERM : 0;
}

static int set_memlock(rlim_t bytes)
{
	struct rlimit rl = { .rlim_cur = bytes, .rlim_max = bytes };

	return setrlimit(RLIMIT_MEMLOCK, &rl) ? -errno : 0;
}

/* An anonymous mapping of @len bytes, touched, or NULL. */
static void *anon_buf(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	memset(p, 0x5a, len);
	return p;
}

/* --- the fixture --------------------------------------------------------- */

SROCE_REQUIRE_DEVICE("SROCE_GID_INDEX");

/*
 * One context with what the objects under test share: a PD, a CQ and
 * an SRQ for the QPs, and one page every MR registers. @objs holds the
 * objects of a limit case, so that the teardown destroys them after a
 * failed ASSERT.
 */
FIXTURE(limits)
{
	struct ibv_context *ctx;
	struct ibv_device_attr attr;
	const char *dev;
	union ibv_gid gid;
	int gid_index;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_srq *srq;
	void *page;
	size_t page_size;
	enum obj_kind kind;
	void **objs;
	uint32_t nobjs;
	uint64_t start_ms;
};

FIXTURE_SETUP(limits)
{
	struct ibv_srq_init_attr srq_init = {
		.attr = { .max_wr = 1, .max_sge = 1 },
	};

	self->start_ms = sroce_now_ms();
	/* A deadline that kills the harness ends the case too. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	self->dev = sroce_env("SROCE_DEV");
	self->gid_index = atoi(sroce_env("SROCE_GID_INDEX"));
	self->page_size = sysconf(_SC_PAGESIZE);
	self->ctx = sroce_open_device(self->dev);
	ASSERT_NE(NULL, self->ctx) TH_LOG("cannot open %s", self->dev);
	ASSERT_EQ(0, ibv_query_device(self->ctx, &self->attr));
	ASSERT_EQ(0, ibv_query_gid(self->ctx, 1, self->gid_index,
				   &self->gid));
	self->pd = ibv_alloc_pd(self->ctx);
	ASSERT_NE(NULL, self->pd);
	self->cq = ibv_create_cq(self->ctx, 1, NULL, NULL, 0);
	ASSERT_NE(NULL, self->cq);
	self->srq = ibv_create_srq(self->pd, &srq_init);
	ASSERT_NE(NULL, self->srq);
	self->page = anon_buf(self->page_size);
	ASSERT_NE(NULL, self->page);
}

static int obj_destroy(enum obj_kind kind, void *obj)
{
	switch (kind) {
	case OBJ_PD:
		return ibv_dealloc_pd(obj);
	case OBJ_CQ:
		return ibv_destroy_cq(obj);
	case OBJ_QP:
		return ibv_destroy_qp(obj);
	case OBJ_SRQ:
		return ibv_destroy_srq(obj);
	case OBJ_MR:
		return ibv_dereg_mr(obj);
	case OBJ_MW:
		return ibv_dealloc_mw(obj);
	case OBJ_AH:
		return ibv_destroy_ah(obj);
	default:
		return EINVAL;
	}
}

/*
 * Destroy the objects of a limit case, the newest first, keeping @pace
 * if not NULL. Return: how many destroys failed.
 */
static unsigned int destroy_objs(FIXTURE_DATA(limits) *self,
				 struct pace *pace)
{
	unsigned int failed = 0, done = 0;

	while (self->nobjs) {
		failed += obj_destroy(self->kind,
				      self->objs[--self->nobjs]) != 0;
		if (pace)
			pace_tick(pace, ++done);
	}
	free(self->objs);
	self->objs = NULL;
	return failed;
}

FIXTURE_TEARDOWN(limits)
{
	if (self->objs)
		destroy_objs(self, NULL);
	if (self->page)
		munmap(self->page, self->page_size);
	if (self->srq)
		ibv_destroy_srq(self->srq);
	if (self->cq)
		ibv_destroy_cq(self->cq);
	if (self->pd)
		ibv_dealloc_pd(self->pd);
	if (self->ctx)
		ibv_close_device(self->ctx);
	diag("%s: %.1f s", _metadata->name,
	     (sroce_now_ms() - self->start_ms) / 1000.0);
}

/* The address of our own GID: AHs and the loopback connection. */
static struct ibv_ah_attr own_address(const union ibv_gid *gid, int gid_index)
{
	struct ibv_ah_attr a = {
		.is_global = 1,
		.grh = {
			.dgid = *gid,
			.sgid_index = gid_index,
			.hop_limit = 64,
		},
		.port_num = 1,
	};

	return a;
}

/*
 * The smallest object of @kind: CQ of 1 entry; UD QP (no responder
 * resources) of 1 send WR and SGE on the shared CQ, receiving through
 * the shared SRQ (no receive ring of its own); SRQ of 1 WR; MR of the
 * shared page; type 1 MW; AH to our own GID; all on @pd.
 */
static void *obj_create(FIXTURE_DATA(limits) *self, struct ibv_pd *pd,
			enum obj_kind kind)
{
	switch (kind) {
	case OBJ_PD:
		return ibv_alloc_pd(self->ctx);
	case OBJ_CQ:
		return ibv_create_cq(self->ctx, 1, NULL, NULL, 0);
	case OBJ_QP: {
		struct ibv_qp_init_attr init = {
			.send_cq = self->cq,
			.recv_cq = self->cq,
			.srq = self->srq,
			.cap = { .max_send_wr = 1, .max_send_sge = 1 },
			.qp_type = IBV_QPT_UD,
		};

		return ibv_create_qp(pd, &init);
	}
	case OBJ_SRQ: {
		struct ibv_srq_init_attr init = {
			.attr = { .max_wr = 1, .max_sge = 1 },
		};

		return ibv_create_srq(pd, &init);
	}
	case OBJ_MR:
		return ibv_reg_mr(pd, self->page, self->page_size,
				  IBV_ACCESS_LOCAL_WRITE);
	case OBJ_MW:
		return ibv_alloc_mw(pd, IBV_MW_TYPE_1);
	case OBJ_AH: {
		struct ibv_ah_attr a = own_address(&self->gid,
						   self->gid_index);

		return ibv_create_ah(pd, &a);
	}
	default:
		errno = EINVAL;
		return NULL;
	}
}

/* --- memory per object --------------------------------------------------- */

/* An RC QP of 1 WR and 1 SGE each way on the shared CQ. */
static struct ibv_qp *rc_qp(struct ibv_pd *pd, struct ibv_cq *cq,
			    struct ibv_srq *srq)
{
	struct ibv_qp_init_attr init = {
		.send_cq = cq,
		.recv_cq = cq,
		.srq = srq,
		.cap = { .max_send_wr = 1, .max_send_sge = 1,
			 .max_recv_wr = srq ? 0 : 1,
			 .max_recv_sge = srq ? 0 : 1 },
		.qp_type = IBV_QPT_RC,
	};

	return ibv_create_qp(pd, &init);
}

/*
 * What N objects of a kind cost the kernel: the growth of
 * Slab + VmallocUsed + PageTables, and of the bytes in active slab
 * objects, divided by N. RC QPs of 1 WR each way (their responder
 * resources included), the limit case's UD QPs (a send ring only), CQs
 * of 1 entry, MRs of 1 page.
 */
TEST_F_TIMEOUT(limits, memory_per_object, 600)
{
	static const char *const what[] = {
		"RC QP", "UD QP on the SRQ", "CQ", "MR",
	};
	unsigned long n = env_ulong("SROCE_MEM_OBJECTS", DEFAULT_MEM_OBJECTS);
	struct slabinfo s0 = {}, s1 = {};
	struct meminfo m0, m1;
	unsigned int w, i;
	void **objs;

	SKIP_UNLESS_SELECTED();
	ASSERT_LT(0UL, n);
	objs = calloc(n, sizeof(*objs));
	ASSERT_NE(NULL, objs);
	for (w = 0; w < ARRAY_SIZE(what); w++) {
		enum obj_kind kind = w < 2 ? OBJ_QP : w == 2 ? OBJ_CQ : OBJ_MR;
		bool have_slab;
		long kb;

		settle(&m0);
		have_slab = read_slabinfo(&s0) == 0;
		for (i = 0; i < n; i++) {
			objs[i] = w == 0 ? rc_qp(self->pd, self->cq, NULL) :
				  obj_create(self, self->pd, kind);
			if (!objs[i])
				break;
		}
		read_meminfo(&m1);
		have_slab = have_slab && read_slabinfo(&s1) == 0;
		kb = kernel_kb(&m1) - kernel_kb(&m0);
		if (i == n)
			diag("%s: %lu of them: Slab %+ld kB, VmallocUsed %+ld kB, PageTables %+ld kB: %ld B per %s; slab objects %+lld B: %lld B per %s",
			     what[w], n, m1.slab - m0.slab,
			     m1.vmalloc_used - m0.vmalloc_used,
			     m1.page_tables - m0.page_tables,
			     kb * KIB / (long)n, what[w],
			     have_slab ? slab_active_bytes(&s1) -
					 slab_active_bytes(&s0) : 0,
			     have_slab ? (slab_active_bytes(&s1) -
					  slab_active_bytes(&s0)) / (long)n : 0,
			     what[w]);
		else
			diag("%s: only %u of %lu created: %s", what[w], i, n,
			     strerror(errno));
		EXPECT_EQ(n, i);
		while (i)
			EXPECT_EQ(0, obj_destroy(kind, objs[--i]));
		free(s0.cache);
		free(s1.cache);
	}
	free(objs);
}

/*
 * With the MR/MW pool full of @full's kind, the other kind must fail
 * too; with one of @full's objects given back, the other kind gets it,
 * and then @full's kind fails again. Return: 0 or -1 (logged).
 */
static int check_shared_pool(FIXTURE_DATA(limits) *self, enum obj_kind full)
{
	enum obj_kind other = full == OBJ_MR ? OBJ_MW : OBJ_MR;
	void *obj;
	int err;

	errno = 0;
	obj = obj_create(self, self->pd, other);
	if (obj) {
		diag("pool full of %ss, yet a %s was created",
		     kinds[full].name, kinds[other].name);
		obj_destroy(other, obj);
		return -1;
	}
	diag("pool full of %ss: a %s fails too (errno %d, %s)",
	     kinds[full].name, kinds[other].name, errno, strerror(errno));
	if (!self->nobjs)
		return -1;
	if (obj_destroy(full, self->objs[--self->nobjs])) {
		diag("destroying one %s failed", kinds[full].name);
		return -1;
	}
	obj = obj_create(self, self->pd, other);
	if (!obj) {
		diag("one %s freed, yet no %s: errno %d", kinds[full].name,
		     kinds[other].name, errno);
		return -1;
	}
	errno = 0;
	self->objs[self->nobjs] = obj_create(self, self->pd, full);
	err = errno;
	obj_destroy(other, obj);
	if (self->objs[self->nobjs]) {
		diag("the %s took the freed slot, yet a %s was created",
		     kinds[other].name, kinds[full].name);
		self->nobjs++;
		return -1;
	}
	diag("the %s took the slot given back; a %s then fails (errno %d)",
	     kinds[other].name, kinds[full].name, err);
	return 0;
}

/*
 * Why the pool of @kind had @held objects taken before the limit case:
 * this program's shared objects (fixture) and the kernel's. The kernel's
 * are ib_mad's for the GSI QP of the port: its PD, its CQ and the DMA
 * MR ib_alloc_pd() registers for that PD (sroce has no local DMA lkey).
 * The GSI QP itself and kernel AHs take nothing from the pools.
 */
static void explain_gap(enum obj_kind kind, uint32_t max, long held)
{
	static const char *const kernel_holds[OBJ_KINDS] = {
		[OBJ_PD] = "ib_mad's PD",
		[OBJ_CQ] = "ib_mad's CQ",
		[OBJ_MR] = "the DMA MR of ib_mad's PD",
		[OBJ_MW] = "the DMA MR of ib_mad's PD: MRs and MWs share the pool",
	};
	long own = kind == OBJ_PD || kind == OBJ_CQ || kind == OBJ_SRQ;
	const char *name = kinds[kind].name;
	char mine[64] = "", theirs[128] = "";

	if (held < 0)
		return;
	if (own)
		snprintf(mine, sizeof(mine), ", %ld this program's shared %s",
			 own, name);
	if (held - own)
		snprintf(theirs, sizeof(theirs), ", %ld the kernel's (%s)",
			 held - own, kernel_holds[kind] ?: "unexpected");
	diag("%s: %ld of max_%s %u taken before%s%s", name, held, name, max,
	     mine, theirs);
}

/*
 * The limit case of @kind: create up to the device's maximum plus one,
 * expect exactly the objects the pool has free and a clean failure for
 * the next, destroy all, and find the pool back.
 */
static void limit_case(struct __test_metadata *_metadata,
		       FIXTURE_DATA(limits) *self, enum obj_kind kind)
{
	const char *name = kinds[kind].name;
	uint32_t max = device_max(&self->attr, kind);
	long live_before[OBJ_KINDS], live_after[OBJ_KINDS];
	long held = -1, fds_before, fds_peak, vmas_peak, kb;
	long map_count, maps_needed;
	struct meminfo m0, m1;
	struct pace fill, teardown;
	uint64_t t_fill, t_destroy;
	unsigned int destroy_failed;
	int fail_errno = 0, shared_pool = 0;
	uint32_t created;
	bool have_fw;
	void *again;

	ASSERT_LT(0U, max);
	/* librxe maps each ring: the process needs a mapping per ring. */
	map_count = read_long_file("/proc/sys/vm/max_map_count");
	maps_needed = (long)max * maps_per_object(kind) + 1000;
	if (map_count >= 0 && map_count < maps_needed)
		SKIP(return, "vm.max_map_count %ld < %ld mappings %u %ss need",
		     map_count, maps_needed, max, name);

	have_fw = fw_live(self->dev, live_before) == 0;
	if (have_fw)
		held = pool_held(live_before, kind);
	self->kind = kind;
	self->objs = calloc((size_t)max + 1, sizeof(*self->objs));
	ASSERT_NE(NULL, self->objs);
	fds_before = count_fds();

	read_meminfo(&m0);
	pace_start(&fill);
	while (self->nobjs <= max) {
		void *obj;

		errno = 0;
		obj = obj_create(self, self->pd, kind);
		if (!obj) {
			fail_errno = errno;
			break;
		}
		self->objs[self->nobjs++] = obj;
		pace_tick(&fill, self->nobjs);
	}
	t_fill = sroce_now_ms() - fill.start;
	created = self->nobjs;
	read_meminfo(&m1);
	fds_peak = count_fds();
	vmas_peak = count_lines("/proc/self/maps");
	kb = kernel_kb(&m1) - kernel_kb(&m0);

	diag("%s: max_%s %u, the firmware held %ld of its pool before; created %u in %.1f s; the next one failed: errno %d (%s)",
	     name, name, max, held, created, t_fill / 1000.0, fail_errno,
	     fail_errno ? strerror(fail_errno) : "none");
	if (created)
		diag("%s: kernel memory (Slab+VmallocUsed+PageTables) +%ld kB, %ld B per %s; %ld mappings; %ld fds (%ld before)",
		     name, kb, kb * KIB / (long)created, name, vmas_peak,
		     fds_peak, fds_before);
	explain_gap(kind, max, held);
	if (kind == OBJ_QP && have_fw)
		diag("QP: besides these, the GSI QP (number 1, outside the pool): the device holds max_qp + 1 QPs");

	if ((kind == OBJ_MR || kind == OBJ_MW) && created <= max)
		shared_pool = check_shared_pool(self, kind);

	pace_start(&teardown);
	destroy_failed = destroy_objs(self, &teardown);
	t_destroy = sroce_now_ms() - teardown.start;
	diag("%s: destroyed in %.1f s, %u destroys failed", name,
	     t_destroy / 1000.0, destroy_failed);
	diag("%s: pace per %d: created the first in %.1f s, the last in %.1f s; destroyed the first in %.1f s, the last in %.1f s",
	     name, PACE_STEP, fill.first_ms / 1000.0, fill.last_ms / 1000.0,
	     teardown.first_ms / 1000.0, teardown.last_ms / 1000.0);

	/* The pool came back: a new object, and the firmware's count. */
	errno = 0;
	again = obj_create(self, self->pd, kind);
	EXPECT_NE(NULL, again) TH_LOG("no %s after destroying all: %s", name,
				      strerror(errno));
	if (again)
		EXPECT_EQ(0, obj_destroy(kind, again));
	if (have_fw && fw_live(self->dev, live_after) == 0)
		EXPECT_EQ(held, pool_held(live_after, kind))
			TH_LOG("the firmware holds %ld %ss after the destroys, %ld before",
			       pool_held(live_after, kind), name, held);

	/* One past the maximum fails, and cleanly. */
	EXPECT_GE(max, created)
		TH_LOG("%u %ss created, max_%s is %u", created, name, name,
		       max);
	EXPECT_NE(0, fail_errno) TH_LOG("the failed create left errno 0");
	if (have_fw) {
		/* Exactly what the pool had free: the limit is the pool's. */
		EXPECT_EQ((long)max - held, (long)created)
			TH_LOG("%ss: created %u, the pool had %ld free (max %u, held %ld)",
			       name, created, (long)max - held, max, held);
	} else {
		diag("no debugfs cmd_stats: the gap to max_%s is not attributed",
		     name);
		EXPECT_LE(max - 16, created);
	}
	EXPECT_EQ(0U, destroy_failed);
	EXPECT_EQ(0, shared_pool);
}

/* LIMIT_TEST(NAME, KIND): the limit case of KIND, as limits.limit_NAME */
#define LIMIT_TEST(name, kind)					\
TEST_F_TIMEOUT(limits, limit_##name, 1800)			\
{								\
	SKIP_UNLESS_SELECTED();					\
	limit_case(_metadata, self, kind);			\
}

LIMIT_TEST(pd, OBJ_PD)
LIMIT_TEST(cq, OBJ_CQ)
LIMIT_TEST(qp, OBJ_QP)
LIMIT_TEST(srq, OBJ_SRQ)
LIMIT_TEST(mr, OBJ_MR)
LIMIT_TEST(mw, OBJ_MW)
LIMIT_TEST(ah, OBJ_AH)

/* --- per-object maxima --------------------------------------------------- */

/*
 * ibv_device_attr has no max_inline_data: the device's is the firmware
 * ABI's SROCE_FW_MAX_INLINE (include/sroce/fw_abi.h), to which
 * sroce_create_qp() holds a QP's.
 */
#define SROCE_MAX_INLINE	512U

/* The region limit_mr_size registers in place of max_mr_size bytes. */
#define MR_SIZE_AFFORD		(64 * MIB)

/*
 * The multicast cases fill a table whole if the device's maximum is at
 * most this (one firmware command per attach), else this much of it.
 */
#define MCAST_AFFORD		4096U

/* What a case must leave as it found: firmware objects, pinned pages. */
struct held {
	long live[OBJ_KINDS];
	bool have_fw;
	long pinned_kb;
};

static void held_now(FIXTURE_DATA(limits) *self, struct held *h)
{
	h->have_fw = fw_live(self->dev, h->live) == 0;
	h->pinned_kb = proc_status_kb("VmPin");
}

/* Return: how many of @h's counts differ now (logged). */
static int held_changed(FIXTURE_DATA(limits) *self, const struct held *h)
{
	struct held now;
	int k, changed = 0;

	held_now(self, &now);
	for (k = 0; h->have_fw && now.have_fw && k < OBJ_KINDS; k++) {
		if (now.live[k] == h->live[k])
			continue;
		diag("the firmware holds %ld %ss, %ld before", now.live[k],
		     kinds[k].name, h->live[k]);
		changed++;
	}
	if (now.pinned_kb != h->pinned_kb) {
		diag("VmPin %ld kB, %ld kB before", now.pinned_kb,
		     h->pinned_kb);
		changed++;
	}
	return changed;
}

/* A uint32_t member of a verbs struct by its offset. */
#define U32_AT(p, off)	(*(uint32_t *)((char *)(p) + (off)))

/*
 * Create an RC QP on the shared CQ with the capacities @cap, receiving
 * into a ring of its own, and destroy it. Return: 0 with @cap updated to
 * what the QP provided, the errno of a refused create, or -1 for a
 * refusal without errno or a failed destroy (logged).
 */
static int try_qp(FIXTURE_DATA(limits) *self, struct ibv_qp_cap *cap)
{
	struct ibv_qp_init_attr init = {
		.send_cq = self->cq,
		.recv_cq = self->cq,
		.cap = *cap,
		.qp_type = IBV_QPT_RC,
	};
	struct ibv_qp *qp;
	int err;

	errno = 0;
	qp = ibv_create_qp(self->pd, &init);
	if (!qp) {
		if (!errno)
			diag("create_qp refused without an errno");
		return errno ?: -1;
	}
	*cap = init.cap;
	err = ibv_destroy_qp(qp);
	if (err)
		diag("destroy_qp: %s", strerror(err));
	return err ? -1 : 0;
}

/* try_qp() for an SRQ of @attr. */
static int try_srq(FIXTURE_DATA(limits) *self, struct ibv_srq_attr *attr)
{
	struct ibv_srq_init_attr init = { .attr = *attr };
	struct ibv_srq *srq;
	int err;

	errno = 0;
	srq = ibv_create_srq(self->pd, &init);
	if (!srq) {
		if (!errno)
			diag("create_srq refused without an errno");
		return errno ?: -1;
	}
	*attr = init.attr;
	err = ibv_destroy_srq(srq);
	if (err)
		diag("destroy_srq: %s", strerror(err));
	return err ? -1 : 0;
}

/*
 * One capacity at the device's @max and one past it, the others at 1:
 * the one past first, refused with EINVAL (sroce checks every capacity
 * before it allocates or asks the firmware; ib_core checks none), then
 * the maximum, created with at least @max. The capacity is the uint32_t
 * at @off in struct ibv_qp_cap (@srq false) or struct ibv_srq_attr.
 */
static void cap_limit(struct __test_metadata *_metadata,
		      FIXTURE_DATA(limits) *self, bool srq, const char *what,
		      size_t off, uint32_t max)
{
	struct ibv_qp_cap qp_at = {
		.max_send_wr = 1, .max_recv_wr = 1,
		.max_send_sge = 1, .max_recv_sge = 1,
	}, qp_past = qp_at;
	struct ibv_srq_attr srq_at = { .max_wr = 1, .max_sge = 1 };
	struct ibv_srq_attr srq_past = srq_at;
	void *at = srq ? (void *)&srq_at : (void *)&qp_at;
	void *past = srq ? (void *)&srq_past : (void *)&qp_past;
	int err_at, err_past;
	struct held h;

	ASSERT_LT(0U, max);
	ASSERT_GT(UINT32_MAX, max);
	held_now(self, &h);
	U32_AT(past, off) = max + 1;
	err_past = srq ? try_srq(self, past) : try_qp(self, past);
	U32_AT(at, off) = max;
	err_at = srq ? try_srq(self, at) : try_qp(self, at);
	diag("%s %u: %s %s of %u (it provides %u); %u: %s (errno %d)",
	     what, max, err_at ? "no" : "an", srq ? "SRQ" : "RC QP", max,
	     err_at ? 0 : U32_AT(at, off), max + 1,
	     err_past ? "refused" : "created", err_past);
	EXPECT_EQ(0, err_at) TH_LOG("%s %u: %s", what, max,
				    strerror(err_at));
	if (!err_at)
		EXPECT_LE(max, U32_AT(at, off));
	EXPECT_EQ(EINVAL, err_past) TH_LOG("%s %u: %s", what, max + 1,
					   strerror(err_past));
	EXPECT_EQ(0, held_changed(self, &h));
}

#define QP_CAP(m)	offsetof(struct ibv_qp_cap, m)
#define SRQ_ATTR(m)	offsetof(struct ibv_srq_attr, m)

/* max_qp_wr, for the send queue and for the receive queue. */
TEST_F_TIMEOUT(limits, limit_qp_wr, 120)
{
	SKIP_UNLESS_SELECTED();
	cap_limit(_metadata, self, false, "max_send_wr", QP_CAP(max_send_wr),
		  self->attr.max_qp_wr);
	cap_limit(_metadata, self, false, "max_recv_wr", QP_CAP(max_recv_wr),
		  self->attr.max_qp_wr);
}

/* max_sge: ib_uverbs reports the smaller of max_send_sge and max_recv_sge. */
TEST_F_TIMEOUT(limits, limit_sge, 120)
{
	SKIP_UNLESS_SELECTED();
	cap_limit(_metadata, self, false, "max_send_sge",
		  QP_CAP(max_send_sge), self->attr.max_sge);
	cap_limit(_metadata, self, false, "max_recv_sge",
		  QP_CAP(max_recv_sge), self->attr.max_sge);
}

TEST_F_TIMEOUT(limits, limit_inline_data, 120)
{
	SKIP_UNLESS_SELECTED();
	cap_limit(_metadata, self, false, "max_inline_data",
		  QP_CAP(max_inline_data), SROCE_MAX_INLINE);
}

TEST_F_TIMEOUT(limits, limit_srq_wr, 120)
{
	SKIP_UNLESS_SELECTED();
	cap_limit(_metadata, self, true, "max_srq_wr", SRQ_ATTR(max_wr),
		  self->attr.max_srq_wr);
}

TEST_F_TIMEOUT(limits, limit_srq_sge, 120)
{
	SKIP_UNLESS_SELECTED();
	cap_limit(_metadata, self, true, "max_srq_sge", SRQ_ATTR(max_sge),
		  self->attr.max_srq_sge);
}

/* RESET -> INIT, for an RC QP connected to itself. */
static int rc_init(struct ibv_qp *qp)
{
	struct ibv_qp_attr a = { .qp_state = IBV_QPS_INIT, .port_num = 1 };

	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			     IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
}

/* INIT -> RTR, taking up to @max_dest READs and atomics at once. */
static int rc_rtr(FIXTURE_DATA(limits) *self, struct ibv_qp *qp,
		  unsigned int max_dest)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTR,
		.path_mtu = IBV_MTU_1024,
		.dest_qp_num = qp->qp_num,
		.max_dest_rd_atomic = max_dest,
		.min_rnr_timer = 1,
		.ah_attr = own_address(&self->gid, self->gid_index),
	};

	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV |
			     IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			     IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
			     IBV_QP_MIN_RNR_TIMER);
}

/* RTR -> RTS, with up to @max_rd READs and atomics outstanding. */
static int rc_rts(struct ibv_qp *qp, unsigned int max_rd)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_RTS,
		.timeout = 14,
		.retry_cnt = 7,
		.rnr_retry = 7,
		.max_rd_atomic = max_rd,
	};

	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN |
			     IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			     IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC);
}

/*
 * The READs and atomics of an RC QP in modify_qp: as the responder
 * (@initiator false: max_dest_rd_atomic on INIT -> RTR, up to
 * max_qp_rd_atom) or as the initiator (max_rd_atomic on RTR -> RTS, up
 * to max_qp_init_rd_atom). One past the maximum is refused with EINVAL
 * (the firmware's range check; ib_core has none) and leaves the QP in
 * its state; then the maximum is taken, and read back by query_qp.
 */
static void rd_atom_limit(struct __test_metadata *_metadata,
			  FIXTURE_DATA(limits) *self, bool initiator)
{
	uint32_t max = initiator ? self->attr.max_qp_init_rd_atom :
				   self->attr.max_qp_rd_atom;
	const char *what = initiator ? "max_rd_atomic" : "max_dest_rd_atomic";
	enum ibv_qp_state stays = initiator ? IBV_QPS_RTR : IBV_QPS_INIT;
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr qa;
	int err_past, err_at;
	enum ibv_qp_state state;
	struct ibv_qp *qp;
	uint32_t got;
	struct held h;

	ASSERT_LT(0U, max);
	/* ibv_qp_attr holds the value in 8 bits. */
	ASSERT_GT(255U, max) TH_LOG("%s %u: nothing past it fits", what,
				    max);
	held_now(self, &h);
	qp = rc_qp(self->pd, self->cq, NULL);
	ASSERT_NE(NULL, qp) TH_LOG("create_qp: %s", strerror(errno));
	EXPECT_EQ(0, rc_init(qp));
	if (initiator)
		EXPECT_EQ(0, rc_rtr(self, qp, 1));

	err_past = initiator ? rc_rts(qp, max + 1) : rc_rtr(self, qp, max + 1);
	memset(&qa, 0, sizeof(qa));
	EXPECT_EQ(0, ibv_query_qp(qp, &qa, IBV_QP_STATE, &init));
	state = qa.qp_state;
	err_at = initiator ? rc_rts(qp, max) : rc_rtr(self, qp, max);
	memset(&qa, 0, sizeof(qa));
	EXPECT_EQ(0, ibv_query_qp(qp, &qa, IBV_QP_STATE |
				  IBV_QP_MAX_QP_RD_ATOMIC |
				  IBV_QP_MAX_DEST_RD_ATOMIC, &init));
	got = initiator ? qa.max_rd_atomic : qa.max_dest_rd_atomic;
	diag("%s: %u past %s %u refused: %s (errno %d), the QP left in state %d; %u taken: %s, read back %u",
	     what, max + 1, initiator ? "max_qp_init_rd_atom" :
	     "max_qp_rd_atom", max, err_past ? "yes" : "no", err_past,
	     state, max, err_at ? strerror(err_at) : "yes", got);
	EXPECT_EQ(EINVAL, err_past);
	EXPECT_EQ(stays, state);
	EXPECT_EQ(0, err_at);
	EXPECT_EQ(max, got);
	EXPECT_EQ(0, ibv_destroy_qp(qp));
	EXPECT_EQ(0, held_changed(self, &h));
}

TEST_F_TIMEOUT(limits, limit_qp_rd_atom, 120)
{
	SKIP_UNLESS_SELECTED();
	rd_atom_limit(_metadata, self, false);
}

TEST_F_TIMEOUT(limits, limit_qp_init_rd_atom, 120)
{
	SKIP_UNLESS_SELECTED();
	rd_atom_limit(_metadata, self, true);
}

/*
 * max_mr_size: sroce advertises no bound (2^64 - 1), so no length lies
 * past it. What bounds a region is the address space: one of
 * max_mr_size bytes from the shared page would run past its end and is
 * refused with EINVAL (ib_umem_get(), before it pins a page), pinning
 * nothing. In its place a region of MR_SIZE_AFFORD (what a guest of 2
 * GiB pins without trouble) is registered.
 */
TEST_F_TIMEOUT(limits, limit_mr_size, 120)
{
	uint64_t max = self->attr.max_mr_size;
	struct ibv_mr *mr;
	struct held h;
	void *big;
	int err;

	SKIP_UNLESS_SELECTED();
	EXPECT_EQ(UINT64_MAX, max)
		TH_LOG("max_mr_size %" PRIu64 ": this case tests only 2^64 - 1, the largest length there is",
		       max);
	held_now(self, &h);
	errno = 0;
	mr = ibv_reg_mr(self->pd, self->page, max, IBV_ACCESS_LOCAL_WRITE);
	err = errno;
	if (mr)
		ibv_dereg_mr(mr);
	EXPECT_EQ(NULL, mr);
	EXPECT_EQ(EINVAL, err) TH_LOG("%s", strerror(err));

	big = anon_buf(MR_SIZE_AFFORD);
	ASSERT_NE(NULL, big);
	mr = ibv_reg_mr(self->pd, big, MR_SIZE_AFFORD, IBV_ACCESS_LOCAL_WRITE);
	diag("max_mr_size %#" PRIx64 ": a region of it from %p refused (errno %d, %s); one of %ld MiB %s, VmPin %ld kB",
	     max, self->page, err, strerror(err), MR_SIZE_AFFORD / MIB,
	     mr ? "registered" : "refused", proc_status_kb("VmPin"));
	EXPECT_NE(NULL, mr) TH_LOG("%ld MiB: %s", MR_SIZE_AFFORD / MIB,
				   strerror(errno));
	if (mr) {
		EXPECT_EQ((size_t)MR_SIZE_AFFORD, mr->length);
		EXPECT_EQ(0, ibv_dereg_mr(mr));
	}
	munmap(big, MR_SIZE_AFFORD);
	EXPECT_EQ(0, held_changed(self, &h));
}

/* The multicast GID ff0e::@n. */
static union ibv_gid mcast_gid(uint32_t n)
{
	union ibv_gid g = { .raw = { 0xff, 0x0e } };

	g.raw[12] = n >> 24;
	g.raw[13] = n >> 16;
	g.raw[14] = n >> 8;
	g.raw[15] = n;
	return g;
}

static int attach(struct ibv_qp *qp, uint32_t group)
{
	union ibv_gid g = mcast_gid(group);

	return ibv_attach_mcast(qp, &g, 0);
}

static int detach(struct ibv_qp *qp, uint32_t group)
{
	union ibv_gid g = mcast_gid(group);

	return ibv_detach_mcast(qp, &g, 0);
}

/*
 * @n UD QPs (limit case objects, destroyed by the teardown if the case
 * ends early). Return: how many were created.
 */
static uint32_t ud_qps(FIXTURE_DATA(limits) *self, uint32_t n)
{
	self->kind = OBJ_QP;
	self->objs = calloc(n, sizeof(*self->objs));
	while (self->objs && self->nobjs < n) {
		void *qp = obj_create(self, self->pd, OBJ_QP);

		if (!qp)
			break;
		self->objs[self->nobjs++] = qp;
	}
	return self->nobjs;
}

/*
 * max_mcast_grp: one UD QP attaches to that many groups of the device
 * (its table is per device, and the device is this program's alone);
 * the next group is refused with ENOSPC, while another QP still
 * attaches to a group that exists; with one group left, the next one
 * is taken. Detaching every group gives the table back.
 */
TEST_F_TIMEOUT(limits, limit_mcast_grp, 120)
{
	uint32_t max = self->attr.max_mcast_grp;
	uint32_t groups = max < MCAST_AFFORD ? max : MCAST_AFFORD;
	uint32_t attached = 0, i, detach_failed = 0;
	int err = 0, err_past, err_other, err_again;
	struct ibv_qp *qp, *other;
	struct held h;

	SKIP_UNLESS_SELECTED();
	ASSERT_LT(0U, max);
	held_now(self, &h);
	ASSERT_EQ(2U, ud_qps(self, 2)) TH_LOG("UD QPs: %s", strerror(errno));
	qp = self->objs[0];
	other = self->objs[1];
	while (attached < groups && !(err = attach(qp, attached)))
		attached++;
	diag("max_mcast_grp %u: the QP attached to %u groups%s%s",
	     max, attached, err ? ", then: " : "",
	     err ? strerror(err) : "");
	EXPECT_EQ(groups, attached);
	if (groups < max)
		diag("max_mcast_grp %u: past the %u groups this case affords; one past the maximum untested",
		     max, MCAST_AFFORD);
	if (attached == max) {
		err_past = attach(qp, max);
		err_other = attach(other, 0);
		EXPECT_EQ(0, detach(qp, 0));
		/* The group stays: the other QP holds it. */
		err_again = attach(qp, max);
		diag("one more group: %s (errno %d); another QP to group 0: %s; group 0 left by the first QP, one more group: %s",
		     strerror(err_past), err_past, strerror(err_other),
		     strerror(err_again));
		EXPECT_EQ(ENOSPC, err_past);
		EXPECT_EQ(0, err_other);
		EXPECT_EQ(ENOSPC, err_again);
		if (!err_other)
			EXPECT_EQ(0, detach(other, 0));
		/* Now group 0 is gone, and its slot free. */
		err_again = attach(qp, max);
		EXPECT_EQ(0, err_again) TH_LOG("a group's slot given back: %s",
					       strerror(err_again));
		if (!err_again)
			EXPECT_EQ(0, detach(qp, max));
		EXPECT_EQ(0, attach(qp, 0));
	}
	for (i = 0; i < attached; i++)
		detach_failed += detach(qp, i) != 0;
	EXPECT_EQ(0U, detach_failed);
	/* The table is empty again: a new group is taken. */
	err = attach(qp, max);
	EXPECT_EQ(0, err) TH_LOG("a group after all were left: %s",
				 strerror(err));
	/* ib_uverbs refuses to destroy a QP still attached (EBUSY). */
	if (!err)
		EXPECT_EQ(0, detach(qp, max));
	EXPECT_EQ(0U, destroy_objs(self, NULL));
	EXPECT_EQ(0, held_changed(self, &h));
}

/*
 * max_mcast_qp_attach: that many UD QPs attach to one group; the next
 * QP is refused with ENOSPC but attaches to another group; once one QP
 * has left, it takes the place.
 */
TEST_F_TIMEOUT(limits, limit_mcast_qp_attach, 120)
{
	uint32_t max = self->attr.max_mcast_qp_attach;
	uint32_t n = max < MCAST_AFFORD ? max : MCAST_AFFORD;
	uint32_t attached = 0, i, detach_failed = 0;
	int err = 0, err_past, err_elsewhere, err_again;
	struct held h;

	SKIP_UNLESS_SELECTED();
	ASSERT_LT(0U, max);
	held_now(self, &h);
	ASSERT_EQ(n + 1, ud_qps(self, n + 1))
		TH_LOG("UD QPs: %s", strerror(errno));
	while (attached < n && !(err = attach(self->objs[attached], 0)))
		attached++;
	diag("max_mcast_qp_attach %u: %u QPs attached to one group%s%s",
	     max, attached, err ? ", then: " : "",
	     err ? strerror(err) : "");
	EXPECT_EQ(n, attached);
	if (n < max)
		diag("max_mcast_qp_attach %u: past the %u QPs this case affords; one past the maximum untested",
		     max, MCAST_AFFORD);
	if (attached == max) {
		err_past = attach(self->objs[max], 0);
		err_elsewhere = attach(self->objs[max], 1);
		EXPECT_EQ(0, detach(self->objs[0], 0));
		err_again = attach(self->objs[max], 0);
		diag("one more QP: %s (errno %d); to another group: %s; one QP gone, then: %s",
		     strerror(err_past), err_past, strerror(err_elsewhere),
		     strerror(err_again));
		EXPECT_EQ(ENOSPC, err_past);
		EXPECT_EQ(0, err_elsewhere);
		EXPECT_EQ(0, err_again);
		EXPECT_EQ(ENOSPC, attach(self->objs[0], 0));
		if (!err_elsewhere)
			EXPECT_EQ(0, detach(self->objs[max], 1));
		if (!err_again)
			EXPECT_EQ(0, detach(self->objs[max], 0));
		EXPECT_EQ(0, attach(self->objs[0], 0));
	}
	for (i = 0; i < attached; i++)
		detach_failed += detach(self->objs[i], 0) != 0;
	EXPECT_EQ(0U, detach_failed);
	EXPECT_EQ(0U, destroy_objs(self, NULL));
	EXPECT_EQ(0, held_changed(self, &h));
}

/* --- RLIMIT_MEMLOCK ------------------------------------------------------ */

/*
 * Without CAP_IPC_LOCK and with RLIMIT_MEMLOCK 1 MiB above what the
 * process pins already (the rings of the fixture's CQ, QP and SRQ), a
 * 4 MiB region is refused and 512 KiB is not; what regions pin adds up
 * (two of 512 KiB reach the limit, a page more is refused) and a
 * deregistered region gives its share back.
 */
TEST_F_TIMEOUT(limits, memlock_mr, 120)
{
	struct ibv_mr *fits[2] = {}, *mr;
	void *big, *small[2], *extra;
	long pinned;
	int err, i;

	SKIP_UNLESS_SELECTED();
	ASSERT_EQ(0, drop_ipc_lock());
	pinned = proc_status_kb("VmPin");
	ASSERT_LE(0, pinned);
	ASSERT_EQ(0, set_memlock(pinned * KIB + MEMLOCK_LIMIT));
	big = anon_buf(MEMLOCK_TOO_BIG);
	small[0] = anon_buf(MEMLOCK_FITS);
	small[1] = anon_buf(MEMLOCK_FITS);
	extra = anon_buf(self->page_size);
	ASSERT_TRUE(big && small[0] && small[1] && extra);

	errno = 0;
	mr = ibv_reg_mr(self->pd, big, MEMLOCK_TOO_BIG,
			IBV_ACCESS_LOCAL_WRITE);
	err = errno;
	diag("RLIMIT_MEMLOCK %ld KiB above VmPin %ld kB, no CAP_IPC_LOCK: %ld KiB MR %s (errno %d, %s)",
	     MEMLOCK_LIMIT / KIB, pinned, MEMLOCK_TOO_BIG / KIB,
	     mr ? "registered" : "refused", err, strerror(err));
	if (mr)
		ibv_dereg_mr(mr);
	EXPECT_EQ(NULL, mr);
	EXPECT_TRUE(err == ENOMEM || err == EPERM) TH_LOG("errno %d", err);

	for (i = 0; i < 2; i++) {
		fits[i] = ibv_reg_mr(self->pd, small[i], MEMLOCK_FITS,
				     IBV_ACCESS_LOCAL_WRITE);
		EXPECT_NE(NULL, fits[i]) TH_LOG("%ld KiB MR #%d: %s",
						MEMLOCK_FITS / KIB, i + 1,
						strerror(errno));
	}
	diag("two %ld KiB MRs registered: VmPin %ld kB", MEMLOCK_FITS / KIB,
	     proc_status_kb("VmPin"));

	/* The limit is reached: one page more is refused. */
	if (fits[0] && fits[1]) {
		errno = 0;
		mr = ibv_reg_mr(self->pd, extra, self->page_size,
				IBV_ACCESS_LOCAL_WRITE);
		err = errno;
		diag("one page more: %s (errno %d)",
		     mr ? "registered" : "refused", err);
		if (mr)
			ibv_dereg_mr(mr);
		EXPECT_EQ(NULL, mr);
	}

	/* Deregistering gives the pinned pages back to the limit. */
	if (fits[0]) {
		EXPECT_EQ(0, ibv_dereg_mr(fits[0]));
		fits[0] = ibv_reg_mr(self->pd, small[0], MEMLOCK_FITS,
				     IBV_ACCESS_LOCAL_WRITE);
		EXPECT_NE(NULL, fits[0]) TH_LOG("after a dereg: %s",
						strerror(errno));
	}
	for (i = 0; i < 2; i++)
		if (fits[i])
			EXPECT_EQ(0, ibv_dereg_mr(fits[i]));
	munmap(big, MEMLOCK_TOO_BIG);
	munmap(small[0], MEMLOCK_FITS);
	munmap(small[1], MEMLOCK_FITS);
	munmap(extra, self->page_size);
}

/*
 * The queue rings are kernel memory (vmalloc_user()) mapped into the
 * process, which cannot page them out: sroce charges them to the
 * creator's pinned memory, as registered regions are. Without
 * CAP_IPC_LOCK and with RLIMIT_MEMLOCK at 1 MiB, a CQ of max_cqe entries,
 * a QP of max_qp_wr WRs each way and an SRQ of max_srq_wr (rings of
 * several MiB each) are refused with ENOMEM; a CQ of 256 entries (16 KiB)
 * is created and VmPin grows by its ring; destroying it (librxe unmaps
 * the ring) gives the pages back.
 */
TEST_F_TIMEOUT(limits, memlock_rings, 120)
{
	struct ibv_qp_init_attr qinit = {
		.send_cq = self->cq,
		.recv_cq = self->cq,
		.cap = { .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_UD,
	};
	struct ibv_srq_init_attr sinit = { .attr = { .max_sge = 1 } };
	long pin0, pin_small, pin_after;
	struct ibv_cq *cq, *small;
	struct ibv_qp *qp;
	struct ibv_srq *srq;
	int err;

	SKIP_UNLESS_SELECTED();
	ASSERT_EQ(0, drop_ipc_lock());
	ASSERT_EQ(0, set_memlock(MEMLOCK_LIMIT));
	pin0 = proc_status_kb("VmPin");

	errno = 0;
	cq = ibv_create_cq(self->ctx, self->attr.max_cqe, NULL, NULL, 0);
	err = errno;
	diag("RLIMIT_MEMLOCK %ld KiB, no CAP_IPC_LOCK, VmPin %ld kB: CQ of max_cqe %d entries %s (errno %d)",
	     MEMLOCK_LIMIT / KIB, pin0, self->attr.max_cqe,
	     cq ? "created" : "refused", cq ? 0 : err);
	if (cq)
		ibv_destroy_cq(cq);
	EXPECT_EQ(NULL, cq);
	EXPECT_EQ(ENOMEM, err);

	qinit.cap.max_send_wr = self->attr.max_qp_wr;
	qinit.cap.max_recv_wr = self->attr.max_qp_wr;
	errno = 0;
	qp = ibv_create_qp(self->pd, &qinit);
	err = errno;
	diag("QP of max_qp_wr %d WRs each way %s (errno %d)",
	     self->attr.max_qp_wr, qp ? "created" : "refused", qp ? 0 : err);
	if (qp)
		ibv_destroy_qp(qp);
	EXPECT_EQ(NULL, qp);
	EXPECT_EQ(ENOMEM, err);

	sinit.attr.max_wr = self->attr.max_srq_wr;
	errno = 0;
	srq = ibv_create_srq(self->pd, &sinit);
	err = errno;
	diag("SRQ of max_srq_wr %d WRs %s (errno %d)",
	     self->attr.max_srq_wr, srq ? "created" : "refused",
	     srq ? 0 : err);
	if (srq)
		ibv_destroy_srq(srq);
	EXPECT_EQ(NULL, srq);
	EXPECT_EQ(ENOMEM, err);

	/* A refused ring left no charge behind. */
	EXPECT_EQ(pin0, proc_status_kb("VmPin"));

	small = ibv_create_cq(self->ctx, 256, NULL, NULL, 0);
	ASSERT_NE(NULL, small) TH_LOG("CQ of 256 entries: %s",
				      strerror(errno));
	pin_small = proc_status_kb("VmPin");
	EXPECT_EQ(0, ibv_destroy_cq(small));
	pin_after = proc_status_kb("VmPin");
	diag("CQ of 256 entries: VmPin %ld -> %ld kB, after its destroy %ld kB",
	     pin0, pin_small, pin_after);
	/* 256 + 1 CQEs of 64 bytes and the ring header: 5 pages. */
	EXPECT_GE(pin_small - pin0, 16);
	EXPECT_EQ(pin0, pin_after);
}

/* --- create/destroy cycles ----------------------------------------------- */

/*
 * One cycle: a PD, a CQ of 1 entry, an SRQ of 1 WR, an RC QP on them
 * taken to RTS connected to itself over our GID, an MR of the shared
 * page, a type 1 MW and an AH, all on the new PD; then destroyed in
 * reverse. Return: NULL, or the name of the first step that failed.
 */
static const char *one_cycle(FIXTURE_DATA(limits) *self)
{
	struct ibv_srq_init_attr sinit = {
		.attr = { .max_wr = 1, .max_sge = 1 },
	};
	struct ibv_ah_attr addr = own_address(&self->gid, self->gid_index);
	struct sroce_rc_peer peer = {
		.dgid = self->gid,
		.gid_index = self->gid_index,
		.max_dest_rd_atomic = 1,
		.max_rd_atomic = 1,
	};
	const char *failed = NULL;
	struct ibv_pd *pd;
	struct ibv_cq *cq = NULL;
	struct ibv_srq *srq = NULL;
	struct ibv_qp *qp = NULL;
	struct ibv_mr *mr = NULL;
	struct ibv_mw *mw = NULL;
	struct ibv_ah *ah = NULL;

	pd = ibv_alloc_pd(self->ctx);
	if (!pd)
		return "alloc_pd";
	cq = ibv_create_cq(self->ctx, 1, NULL, NULL, 0);
	if (!cq) {
		failed = "create_cq";
		goto out;
	}
	srq = ibv_create_srq(pd, &sinit);
	if (!srq) {
		failed = "create_srq";
		goto out;
	}
	qp = rc_qp(pd, cq, srq);
	if (!qp) {
		failed = "create_qp";
		goto out;
	}
	peer.dest_qpn = qp->qp_num;
	if (sroce_rc_connect(qp, &peer)) {
		failed = "modify_qp to RTS";
		goto out;
	}
	mr = ibv_reg_mr(pd, self->page, self->page_size,
			IBV_ACCESS_LOCAL_WRITE);
	if (!mr) {
		failed = "reg_mr";
		goto out;
	}
	mw = ibv_alloc_mw(pd, IBV_MW_TYPE_1);
	if (!mw) {
		failed = "alloc_mw";
		goto out;
	}
	ah = ibv_create_ah(pd, &addr);
	if (!ah)
		failed = "create_ah";
out:
	if (ah && ibv_destroy_ah(ah) && !failed)
		failed = "destroy_ah";
	if (mw && ibv_dealloc_mw(mw) && !failed)
		failed = "dealloc_mw";
	if (mr && ibv_dereg_mr(mr) && !failed)
		failed = "dereg_mr";
	if (qp && ibv_destroy_qp(qp) && !failed)
		failed = "destroy_qp";
	if (srq && ibv_destroy_srq(srq) && !failed)
		failed = "destroy_srq";
	if (cq && ibv_destroy_cq(cq) && !failed)
		failed = "destroy_cq";
	if (ibv_dealloc_pd(pd) && !failed)
		failed = "dealloc_pd";
	return failed;
}

/* @n cycles. Return: NULL, or what failed, logged with the cycle. */
static const char *run_cycles(FIXTURE_DATA(limits) *self, unsigned long n)
{
	const char *failed = NULL;
	unsigned long i;

	for (i = 0; i < n && !failed; i++)
		failed = one_cycle(self);
	if (failed)
		diag("cycle %lu: %s failed: %s", i, failed, strerror(errno));
	return failed;
}

/* Settled memory and slab caches at one point of the cycles. */
struct checkpoint {
	struct meminfo mem;
	struct slabinfo slab;
	bool have_slab;
};

static void checkpoint(struct checkpoint *c)
{
	settle(&c->mem);
	c->have_slab = sample_slabs(&c->slab) == 0;
}

/*
 * SROCE_CYCLES cycles after SROCE_WARMUP, measured after the warm-up,
 * half-way and at the end: unreclaimable kernel memory (SUnreclaim +
 * VmallocUsed + PageTables) within CYCLE_MEM_TOLERANCE_KB of where it
 * was, no slab cache growing by more than SLAB_HALF_TOLERANCE objects in
 * both halves, the firmware holding what it held and VmPin where it was.
 */
TEST_F_TIMEOUT(limits, create_destroy_cycles, 3600)
{
	unsigned long cycles = env_ulong("SROCE_CYCLES", DEFAULT_CYCLES);
	unsigned long warmup = env_ulong("SROCE_WARMUP", DEFAULT_WARMUP);
	long mem_kb = env_ulong("SROCE_CYCLE_MEM_KB", CYCLE_MEM_TOLERANCE_KB);
	long tolerance = env_ulong("SROCE_SLAB_HALF_OBJS",
				   SLAB_HALF_TOLERANCE);
	unsigned long half[2] = { cycles / 2, cycles - cycles / 2 };
	struct checkpoint cp[3] = {};
	struct slab_delta *d = NULL;
	char top[SLAB_REPORT * 128] = "";
	struct held before;
	int h, i, over;
	uint64_t t0, ms;
	long grew_kb;

	SKIP_UNLESS_SELECTED();
	ASSERT_LT(1UL, cycles);
	t0 = sroce_now_ms();
	ASSERT_EQ(NULL, run_cycles(self, warmup));
	diag("%lu warm-up cycles in %.1f s", warmup,
	     (sroce_now_ms() - t0) / 1000.0);

	checkpoint(&cp[0]);
	held_now(self, &before);
	for (h = 0; h < 2; h++) {
		t0 = sroce_now_ms();
		ASSERT_EQ(NULL, run_cycles(self, half[h]));
		ms = sroce_now_ms() - t0;
		diag("half %d: %lu cycles in %.1f s (%.2f ms per cycle)",
		     h + 1, half[h], ms / 1000.0, (double)ms / half[h]);
		checkpoint(&cp[h + 1]);
	}

	for (i = 0; i < 3; i++)
		diag("%-9s Slab %ld kB, SUnreclaim %ld kB, VmallocUsed %ld kB, PageTables %ld kB",
		     i == 0 ? "before:" : i == 1 ? "half-way:" : "after:",
		     cp[i].mem.slab, cp[i].mem.sunreclaim,
		     cp[i].mem.vmalloc_used, cp[i].mem.page_tables);
	grew_kb = unreclaimable_kb(&cp[2].mem) - unreclaimable_kb(&cp[0].mem);
	diag("SUnreclaim+VmallocUsed+PageTables %+ld kB over %lu cycles (%+ld kB in the second half; tolerance %ld kB)",
	     grew_kb, cycles,
	     unreclaimable_kb(&cp[2].mem) - unreclaimable_kb(&cp[1].mem),
	     mem_kb);
	EXPECT_GE(mem_kb, grew_kb);

	if (cp[0].have_slab && cp[1].have_slab && cp[2].have_slab) {
		d = calloc(cp[2].slab.n, sizeof(*d));
		ASSERT_NE(NULL, d);
		over = slab_halves(&cp[0].slab, &cp[1].slab, &cp[2].slab,
				   tolerance, d);
		for (i = 0; i < SLAB_REPORT && i < cp[2].slab.n; i++)
			snprintf(top + strlen(top), sizeof(top) - strlen(top),
				 "%s%s %+ld (first half %+ld, %ld B)",
				 i ? ", " : "", d[i].name, d[i].second,
				 d[i].first, d[i].objsize);
		diag("slab objects %+lld B in all; most grown in the second half: %s",
		     slab_active_bytes(&cp[2].slab) -
		     slab_active_bytes(&cp[0].slab), top);
		EXPECT_EQ(0, over)
			TH_LOG("%d caches grew by more than %ld objects in each half of %lu cycles; %s grew most in the second (%+ld; %+ld in the first)",
			       over, tolerance, half[1], d[0].name,
			       d[0].second, d[0].first);
	} else {
		diag("no /proc/slabinfo: slab caches not compared");
	}
	EXPECT_EQ(0, held_changed(self, &before));
	free(d);
	for (i = 0; i < 3; i++)
		free(cp[i].slab.cache);
}

TEST_HARNESS_MAIN
