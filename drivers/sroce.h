/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * sroce driver side: the ib_core glue. Everything the device knows lives
 * in the firmware and is reached through commands (sroce_cmd.c).
 */
#ifndef SROCE_H
#define SROCE_H

#include <linux/completion.h>
#include <linux/list.h>
#include <linux/semaphore.h>
#include <linux/spinlock.h>
#include <rdma/ib_verbs.h>

#include "sroce/fw_bus.h"
#include "lib/sroce_lib.h"
#include "sroce_compat.h"

/* librxe (rdma-core) accepts devices reporting this uverbs ABI version. */
#define SROCE_RXE_UVERBS_ABI_VERSION	2

#define SROCE_CMDQ_LOG2_DEPTH		5
#define SROCE_EQ_LOG2_DEPTH		6
#define SROCE_CMD_TIMEOUT_MS		10000

enum sroce_cmd_slot_state {
	SROCE_CMD_SLOT_FREE,
	SROCE_CMD_SLOT_PENDING,
	SROCE_CMD_SLOT_ABANDONED,	/* waiter timed out; completion still due */
};

/**
 * struct sroce_cmd_slot - one outstanding command
 * @done: completed by the completion interrupt
 * @state: enum sroce_cmd_slot_state, protected by the queue's @lock
 * @generation: bumped on each use, makes up the high bits of the cmd_id
 * @status: completion status
 * @resp_len: valid bytes of @resp
 * @resp: response payload copied out of the completion ring
 */
struct sroce_cmd_slot {
	struct completion done;
	enum sroce_cmd_slot_state state;
	u16 generation;
	u16 status;
	u16 resp_len;
	u8 resp[SROCE_CMD_PAYLOAD_MAX];
};

/**
 * struct sroce_cmd_stats - per-opcode command statistics
 * @issued: commands posted
 * @failed: completions with a non-OK status
 * @timeouts: commands whose completion did not arrive in time
 * @max_latency_us: slowest completion seen
 */
struct sroce_cmd_stats {
	atomic64_t issued;
	atomic64_t failed;
	atomic64_t timeouts;
	atomic64_t max_latency_us;
};

/**
 * struct sroce_cmdq - driver end of the command queue
 * @sq: command ring
 * @cq: completion ring
 * @slots_free: counts free slots; a poster sleeps on it when all are used
 * @lock: protects @sq_tail, @slots and writes to @sq
 * @sq_tail: free-running producer position
 * @cq_head: free-running consumer position; completion vector only
 * @slots: outstanding commands, indexed by the low bits of the cmd_id
 * @stats: per-opcode statistics
 */
struct sroce_cmdq {
	struct sroce_cmd_entry *sq;
	struct sroce_cmd_completion *cq;
	struct semaphore slots_free;
	spinlock_t lock; /* protects sq_tail, slots and writes to sq */
	u32 sq_tail;
	u32 cq_head;
	struct sroce_cmd_slot slots[1 << SROCE_CMDQ_LOG2_DEPTH];
	struct sroce_cmd_stats stats[SROCE_NUM_CMDS];
};

/**
 * struct sroce_dev - one sroce RDMA device
 * @ibdev: the ib_core device; must be first for ib_alloc_device()
 * @ndev: the Ethernet device it runs over (reference held by @fw)
 * @list: entry in the driver's device list
 * @unregister_work: removes the device when its netdev goes away
 * @fw: the NIC function behind this device
 * @cmdq: command queue
 * @eq: event ring
 * @eq_head: free-running consumer position of @eq; event vector only
 * @caps: QUERY_DEVICE result, read once at probe
 * @port_lock: protects @port_state
 * @port_state: last port state reported to ib_core
 * @debugfs: this device's debugfs directory
 */
struct sroce_dev {
	struct ib_device ibdev;
	struct net_device *ndev;
	struct list_head list;
	struct work_struct unregister_work;
	struct sroce_fw_dev *fw;
	struct sroce_cmdq cmdq;
	struct sroce_eq_entry *eq;
	u32 eq_head;
	struct sroce_query_device_resp caps;
	spinlock_t port_lock; /* protects port_state */
	u8 port_state;
	struct dentry *debugfs;
};

struct sroce_ucontext {
	struct ib_ucontext ibuc;
};

struct sroce_pd {
	struct ib_pd ibpd;
	u32 pdn;
};

/* Placeholders sized for ib_core; filled in with the datapath. */
struct sroce_cq {
	struct ib_cq ibcq;
};

struct sroce_qp {
	struct ib_qp ibqp;
};

static inline struct sroce_dev *to_sdev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct sroce_dev, ibdev);
}

static inline struct sroce_pd *to_spd(struct ib_pd *ibpd)
{
	return container_of(ibpd, struct sroce_pd, ibpd);
}

/* sroce_cmd.c */
int sroce_hw_open(struct sroce_dev *sdev);
void sroce_hw_close(struct sroce_dev *sdev);
int sroce_cmd_exec(struct sroce_dev *sdev, unsigned int opcode,
		   const void *req, unsigned int req_len,
		   void *resp, unsigned int resp_len);
void sroce_irq(void *ctx, unsigned int vector);

/* sroce_main.c */
int sroce_enable_driver(struct ib_device *ibdev);
void sroce_dealloc_driver(struct ib_device *ibdev);

/* sroce_verbs.c */
extern const struct ib_device_ops sroce_dev_ops;
int sroce_query_caps(struct sroce_dev *sdev);
void sroce_handle_port_change(struct sroce_dev *sdev,
			      const struct sroce_event_port_change *ev);

/* sroce_debugfs.c */
void sroce_debugfs_init(void);
void sroce_debugfs_exit(void);
void sroce_debugfs_add_dev(struct sroce_dev *sdev);
void sroce_debugfs_del_dev(struct sroce_dev *sdev);

#endif /* SROCE_H */
