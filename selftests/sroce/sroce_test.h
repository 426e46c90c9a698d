/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Helpers shared by the sroce selftest programs: the device under test
 * from the environment, a monotonic clock, opening a device by name and
 * bringing an RC QP to RTS. Each program is one file, so they are static
 * inline here rather than a library.
 */
#ifndef SROCE_TEST_H
#define SROCE_TEST_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#define SROCE_SYS_IB	"/sys/class/infiniband"

/* Environment variable @name, or NULL when it is unset or empty. */
static inline const char *sroce_env(const char *name)
{
	const char *v = getenv(name);

	return v && *v ? v : NULL;
}

/*
 * Why the device SROCE_DEV names cannot be tested (kselftest then skips
 * the whole program), or NULL if it can.
 */
static inline const char *sroce_device_missing(void)
{
	static char why[256];
	const char *dev = sroce_env("SROCE_DEV");
	char path[256];

	if (!dev)
		return "SROCE_DEV is not set";
	snprintf(path, sizeof(path), SROCE_SYS_IB "/%s", dev);
	if (access(path, F_OK)) {
		snprintf(why, sizeof(why), "no RDMA device %s", dev);
		return why;
	}
	return NULL;
}

/*
 * SROCE_REQUIRE_DEVICE(VAR...): defines the constructor of a kselftest
 * program that skips the whole program unless SROCE_DEV names an RDMA
 * device and each environment variable named is set.
 */
#define SROCE_REQUIRE_DEVICE(...)					\
static void __attribute__((constructor)) sroce_require_device(void)	\
{									\
	static const char *const vars[] = { __VA_ARGS__ };		\
	const char *why = sroce_device_missing();			\
	const char *const *var;						\
									\
	if (why)							\
		ksft_exit_skip("%s\n", why);				\
	for (var = vars; var < vars + sizeof(vars) / sizeof(*vars); var++) \
		if (!sroce_env(*var))					\
			ksft_exit_skip("%s is not set\n", *var);	\
}

static inline uint64_t sroce_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Port 1's hw_counter @name of device @dev; -1 if it cannot be read. */
static inline long long sroce_hw_counter(const char *dev, const char *name)
{
	char path[256];
	long long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), SROCE_SYS_IB "/%s/ports/1/hw_counters/%s",
		 dev, name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%lld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

/* Columns of the driver's debugfs cmd_stats, after the command's name. */
enum sroce_cmd_stat {
	SROCE_CMD_ISSUED = 1,
	SROCE_CMD_FAILED,
	SROCE_CMD_TIMEOUTS,
};

/*
 * Column @col of firmware command @cmd (its name, e.g. "DESTROY_QP") in
 * device @dev's debugfs cmd_stats, or the sum over all commands if @cmd
 * is NULL. Return: the count, or -1 if the file or the row is missing.
 */
static inline long long sroce_cmd_stat(const char *dev, const char *cmd,
				       enum sroce_cmd_stat col)
{
	char path[256], line[256], name[64];
	long long v[4], sum = 0;
	int found = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/kernel/debug/sroce/%s/cmd_stats",
		 dev);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%63s %lld %lld %lld %lld", name, &v[0],
			   &v[1], &v[2], &v[3]) != 5 ||
		    (cmd && strcmp(name, cmd)))
			continue;
		sum += v[col - 1];
		found = 1;
	}
	fclose(f);
	return found ? sum : -1;
}

/* The device called @name, opened; NULL if libibverbs has none. */
static inline struct ibv_context *sroce_open_device(const char *name)
{
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx = NULL;
	int i;

	for (i = 0; list && list[i] && !ctx; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			ctx = ibv_open_device(list[i]);
	if (list)
		ibv_free_device_list(list);
	return ctx;
}

/**
 * struct sroce_test_side - one end of a two-device test program
 * @name: the device's name
 * @gid_index: the source GID's index
 * @ctx: the device, opened
 * @pd: its protection domain
 * @cq: the CQ of both its queues
 * @qp: its QP
 * @mr: @buf registered
 * @buf: the program's buffer on this end
 * @gid: the GID at @gid_index
 */
struct sroce_test_side {
	const char *name;
	int gid_index;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	uint8_t *buf;
	union ibv_gid gid;
};

/**
 * struct sroce_rc_peer - where an RC QP is connected to, and how
 * @dgid: the peer's GID
 * @gid_index: our source GID
 * @dest_qpn: the peer's QP
 * @rq_psn: first PSN expected
 * @sq_psn: first PSN sent
 * @access: remote access granted
 * @max_dest_rd_atomic: READs/atomics the peer may have outstanding here
 * @max_rd_atomic: READs/atomics we may have outstanding there
 * @sl: service level of the path (0 unless set)
 */
struct sroce_rc_peer {
	union ibv_gid dgid;
	int gid_index;
	uint32_t dest_qpn;
	uint32_t rq_psn;
	uint32_t sq_psn;
	int access;
	uint8_t max_dest_rd_atomic;
	uint8_t max_rd_atomic;
	uint8_t sl;
};

/* RESET -> INIT -> RTR -> RTS at path MTU 1024. Return: 0 or errno. */
static inline int sroce_rc_connect(struct ibv_qp *qp,
				   const struct sroce_rc_peer *p)
{
	struct ibv_qp_attr a = {
		.qp_state = IBV_QPS_INIT,
		.port_num = 1,
		.qp_access_flags = p->access,
	};
	int err;

	err = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX |
			    IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
	if (err)
		return err;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = p->dest_qpn;
	a.rq_psn = p->rq_psn;
	a.max_dest_rd_atomic = p->max_dest_rd_atomic;
	a.min_rnr_timer = 1;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid = p->dgid;
	a.ah_attr.grh.sgid_index = p->gid_index;
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.sl = p->sl;
	a.ah_attr.port_num = 1;
	err = ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV |
			    IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			    IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
			    IBV_QP_MIN_RNR_TIMER);
	if (err)
		return err;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = p->sq_psn;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = p->max_rd_atomic;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_SQ_PSN |
			     IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			     IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC);
}

#endif /* SROCE_TEST_H */
