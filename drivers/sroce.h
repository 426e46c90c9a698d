/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * sroce driver side: the ib_core glue. Everything the device knows lives
 * in the firmware and is reached through commands (sroce_cmd.c).
 */
#ifndef SROCE_H
#define SROCE_H

#include <linux/completion.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/semaphore.h>
#include <linux/spinlock.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>
#include <rdma/uverbs_ioctl.h>
#include <rdma/rdma_user_rxe.h>

#include "sroce/fw_bus.h"
#include "lib/sroce_lib.h"
#include "sroce_compat.h"

/* librxe (rdma-core) accepts devices reporting this uverbs ABI version. */
#define SROCE_RXE_UVERBS_ABI_VERSION	2

#define SROCE_CMDQ_LOG2_DEPTH		5
#define SROCE_EQ_LOG2_DEPTH		6
#define SROCE_CEQ_LOG2_DEPTH		6
#define SROCE_CMD_TIMEOUT_MS		10000

enum sroce_cmd_slot_state {
	SROCE_CMD_SLOT_FREE,
	SROCE_CMD_SLOT_PENDING,
	SROCE_CMD_SLOT_DONE,		/* completion arrived; waiter not back yet */
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
 * @lock: protects @sq_tail, @slots, @dead and writes to @sq; taken in
 *	  process context only (posters, and the completion vector, which
 *	  runs on the firmware's workqueue)
 * @dead: a command timed out: the device is dead, every command fails at
 *	  once with -EIO (read without the lock as a hint)
 * @sq_tail: free-running producer position
 * @cq_head: free-running consumer position; completion vector only
 * @slots: outstanding commands, indexed by the low bits of the cmd_id
 * @stats: per-opcode statistics
 */
struct sroce_cmdq {
	struct sroce_cmd_entry *sq;
	struct sroce_cmd_completion *cq;
	struct semaphore slots_free;
	spinlock_t lock; /* sq_tail, slots, dead, sq writes; process context */
	bool dead;
	u32 sq_tail;
	u32 cq_head;
	struct sroce_cmd_slot slots[1 << SROCE_CMDQ_LOG2_DEPTH];
	struct sroce_cmd_stats stats[SROCE_NUM_CMDS];
};

/**
 * struct sroce_cc_knob - what a debugfs cc_params file names
 * @sdev: the device
 * @id: the knob, enum sroce_cc_param
 */
struct sroce_cc_knob {
	struct sroce_dev *sdev;
	u32 id;
};

/**
 * struct sroce_fault_knob - what a debugfs fault file names
 * @sdev: the device
 * @fault: enum sroce_fw_fault
 * @value: the last value written
 */
struct sroce_fault_knob {
	struct sroce_dev *sdev;
	u32 fault;
	u32 value;
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
 * @fatal_work: reports IB_EVENT_DEVICE_FATAL once the command queue died
 * @fault_knobs: the debugfs fault files, by enum sroce_fw_fault
 * @rx_ecn: last profile written to debugfs rx_ecn: kmin, kmax, pmax
 * @ceq: completion event ring
 * @ceq_head: free-running consumer position of @ceq
 * @eq_mutex: serializes reaping @eq (the async event vector, and the
 *	      release of @hold_events from debugfs); process context;
 *	      protects @events_held; @hold_events is written under it and
 *	      @ceq_lock
 * @ceq_lock: serializes reaping @ceq (the completion vector, in softirq
 *	      context, and the release of @hold_events, in process context
 *	      with BHs off); protects @ceq_head and @ceq_held
 * @hold_events: debugfs hold_events: neither event vector is served
 * @events_held: the async event vector was raised while held
 * @ceq_held: the completion vector was raised while held
 * @quarantine_lock: protects @quarantine; process context
 * @quarantine: memory the firmware may still use (of objects whose destroy
 *		failed), freed once the firmware is detached
 * @cqs: CQs by number, for completion events (lock: the xarray's, BH-safe)
 * @qps: QPs by number, for kernel work completions
 * @srqs: SRQs by number, for limit events (lock: the xarray's, IRQ-safe)
 * @odp_mrs: on-demand paging regions by key index, for page faults (lock:
 *	     the xarray's; process context)
 * @cc_knobs: the private data of the debugfs cc_params files
 * @qos_mutex: serializes the read-modify-write of the QoS settings by
 *	       the sysfs qos/ files; process context
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
	struct work_struct fatal_work;
	struct sroce_fault_knob fault_knobs[SROCE_FW_NUM_FAULTS];
	u32 rx_ecn[3];
	struct sroce_eq_entry *ceq;
	u32 ceq_head;
	struct mutex eq_mutex; /* EQ reaping, hold_events; process context */
	spinlock_t ceq_lock; /* CEQ reaping, ceq_held; softirq and _bh */
	bool hold_events;
	bool events_held;
	bool ceq_held;
	struct mutex quarantine_lock; /* protects quarantine; process context */
	struct list_head quarantine;
	struct xarray cqs;
	struct xarray qps;
	struct xarray srqs;
	struct xarray odp_mrs;
	struct sroce_cc_knob cc_knobs[SROCE_NUM_CC_PARAMS];
	struct mutex qos_mutex; /* QoS read-modify-write; process context */
};

struct sroce_ucontext {
	struct ib_ucontext ibuc;
};

struct sroce_pd {
	struct ib_pd ibpd;
	u32 pdn;
};

/**
 * struct sroce_cq - completion queue
 * @ibcq: the ib_core CQ
 * @cqn: the firmware's CQ number
 * @is_user: the ring is mapped by userspace, which polls it
 * @ring: the ring (rdma_rxe layout)
 * @mmap: the ring's mmap entry (user CQs), which owns the ring
 * @poll_lock: protects @ring, @mask, @cons, @resizing against kernel polls
 * @mask: number of slots minus one
 * @cons: consumer index (kernel CQs)
 * @resizing: rings are being swapped; kernel polls find the CQ empty
 * @resize_mutex: one resize at a time
 */
struct sroce_cq {
	struct ib_cq ibcq;
	u32 cqn;
	bool is_user;
	struct sroce_ring_hdr *ring;
	struct rdma_user_mmap_entry *mmap;
	/*
	 * Serializes resizes (process context): ib_core lets two run at
	 * once, and the firmware must end on the ring the driver keeps.
	 */
	struct mutex resize_mutex;
	spinlock_t poll_lock; /* protects ring, mask, cons, resizing */
	u32 mask;
	u32 cons;
	bool resizing;
};

/**
 * struct sroce_qp - queue pair
 * @ibqp: the ib_core QP (qp_num is the firmware's QP number)
 * @is_user: the rings are mapped by userspace, which produces into them
 * @sq_sig_all: every send WQE generates a completion
 * @cap: capacities as created
 * @sq: send ring (rdma_rxe layout)
 * @rq: receive ring
 * @sq_mmap: mmap entry owning @sq (user QPs)
 * @rq_mmap: mmap entry owning @rq (user QPs)
 * @sq_log2_slots: log2 of the number of send slots
 * @sq_log2_elem: log2 of the send slot size
 * @rq_log2_slots: log2 of the number of receive slots
 * @rq_log2_elem: log2 of the receive slot size
 * @sq_lock: serializes kernel posters on the send ring
 * @rq_lock: serializes kernel posters on the receive ring
 * @sq_prod: send producer index (kernel QPs), under @sq_lock
 * @rq_prod: receive producer index (kernel QPs), under @rq_lock
 * @state: last state set through modify_qp (the firmware's is the truth),
 *	   written under both ring locks, read without them by librxe's
 *	   doorbell
 */
struct sroce_qp {
	struct ib_qp ibqp;
	bool is_user;
	bool sq_sig_all;
	struct ib_qp_cap cap;
	struct sroce_ring_hdr *sq;
	struct sroce_ring_hdr *rq;
	struct rdma_user_mmap_entry *sq_mmap;
	struct rdma_user_mmap_entry *rq_mmap;
	u8 sq_log2_slots;
	u8 sq_log2_elem;
	u8 rq_log2_slots;
	u8 rq_log2_elem;
	spinlock_t sq_lock; /* protects the send ring's producer index */
	spinlock_t rq_lock; /* protects the receive ring's producer index */
	u32 sq_prod;
	u32 rq_prod;
	u8 state;
};

static inline struct sroce_dev *to_sdev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct sroce_dev, ibdev);
}

static inline struct sroce_pd *to_spd(struct ib_pd *ibpd)
{
	return container_of(ibpd, struct sroce_pd, ibpd);
}

/* Access flags the firmware does not need to know about. */
#define SROCE_ACCESS_IGNORED	(IB_ACCESS_RELAXED_ORDERING)
/*
 * Region-only flags that consumers also pass as a QP's rights (pyverbs's
 * ODP tests give the QP their MR's flags): they mean nothing for a QP.
 */
#define SROCE_QP_ACCESS_IGNORED	(SROCE_ACCESS_IGNORED | IB_ACCESS_ON_DEMAND)

/**
 * struct sroce_mr - memory region
 * @ibmr: the ib_core MR
 * @umem: pinned user memory (user regions)
 * @pages: the firmware's page table of @umem
 * @npages: entries in @pages; fast registration: entries of @page_list
 *	    filled by the last map_mr_sg
 * @page_list: fast registration: the page list the firmware copies when
 *	       a registration WQE executes (kernel virtual addresses)
 * @max_pages: fast registration: room in @page_list
 * @odp: on-demand paging regions: their driver side (sroce_odp.c); @umem
 *	 is then an ib_umem_odp, nothing pinned
 */
struct sroce_mr {
	struct ib_mr ibmr;
	struct ib_umem *umem;
	struct page **pages;
	u32 npages;
	__le64 *page_list;
	u32 max_pages;
	struct sroce_odp *odp;
};

/**
 * struct sroce_mw - memory window
 * @ibmw: the ib_core MW; its rkey is the firmware's
 */
struct sroce_mw {
	struct ib_mw ibmw;
};

/**
 * struct sroce_ah - address handle
 * @ibah: the ib_core AH
 * @ah_num: the firmware's number (user AHs), 0 for kernel AHs
 * @av: the address vector
 */
struct sroce_ah {
	struct ib_ah ibah;
	u32 ah_num;
	struct sroce_av av;
};

static inline struct sroce_ah *to_sah(struct ib_ah *ibah)
{
	return container_of(ibah, struct sroce_ah, ibah);
}

/**
 * struct sroce_srq - shared receive queue
 * @ibsrq: the ib_core SRQ
 * @srqn: the firmware's SRQ number
 * @is_user: the ring is mapped by userspace
 * @ring: receive ring (rdma_rxe layout)
 * @mmap: mmap entry owning @ring (user SRQs)
 * @log2_slots: log2 of the number of slots
 * @log2_elem: log2 of the slot size
 * @max_sge: SGEs a WQE may carry
 * @lock: serializes kernel posters and a resize's swap of @ring
 * @prod: producer index (kernel SRQs), under @lock
 * @resizing: a resize is swapping the rings: kernel posts are refused
 * @resize_mutex: one resize at a time
 */
struct sroce_srq {
	struct ib_srq ibsrq;
	u32 srqn;
	bool is_user;
	struct sroce_ring_hdr *ring;
	struct rdma_user_mmap_entry *mmap;
	u8 log2_slots;
	u8 log2_elem;
	u32 max_sge;
	/*
	 * Serializes resizes (process context): ib_core lets two run at
	 * once, and the firmware must end on the ring the driver keeps.
	 */
	struct mutex resize_mutex;
	/*
	 * Protects prod and resizing, and ring and log2_slots against a
	 * resize; taken by posters (any context) and modify_srq (process).
	 */
	spinlock_t lock;
	u32 prod;
	bool resizing;
};

static inline struct sroce_srq *to_ssrq(struct ib_srq *ibsrq)
{
	return container_of(ibsrq, struct sroce_srq, ibsrq);
}

static inline struct sroce_mr *to_smr(struct ib_mr *ibmr)
{
	return container_of(ibmr, struct sroce_mr, ibmr);
}

static inline struct sroce_qp *to_sqp(struct ib_qp *ibqp)
{
	return container_of(ibqp, struct sroce_qp, ibqp);
}

static inline struct sroce_cq *to_scq(struct ib_cq *ibcq)
{
	return container_of(ibcq, struct sroce_cq, ibcq);
}

/* The user context behind a verb's udata; NULL for kernel callers. */
static inline struct ib_ucontext *sroce_udata_ucontext(struct ib_udata *udata)
{
	struct sroce_ucontext *uc =
		rdma_udata_to_drv_context(udata, struct sroce_ucontext, ibuc);

	return uc ? &uc->ibuc : NULL;
}

static inline struct ib_qp *sroce_ibqp_by_qpn(struct sroce_dev *sdev, u32 qpn)
{
	struct sroce_qp *qp = xa_load(&sdev->qps, qpn);

	return qp ? &qp->ibqp : NULL;
}

/* sroce_cmd.c */
int sroce_hw_open(struct sroce_dev *sdev);
void sroce_hw_close(struct sroce_dev *sdev);
int sroce_cmd_exec(struct sroce_dev *sdev, unsigned int opcode,
		   const void *req, unsigned int req_len,
		   void *resp, unsigned int resp_len);
void sroce_irq(void *ctx, unsigned int vector);
bool sroce_cmd_dead(struct sroce_dev *sdev);
void sroce_hold_events(struct sroce_dev *sdev, bool hold);
void sroce_quarantine(struct sroce_dev *sdev, void *vmem,
		      struct sroce_mr *mr);

/* sroce_main.c */
int sroce_enable_driver(struct ib_device *ibdev);
void sroce_dealloc_driver(struct ib_device *ibdev);

/* sroce_verbs.c */
extern const struct ib_device_ops sroce_dev_ops;
int sroce_query_caps(struct sroce_dev *sdev);
void sroce_handle_port_change(struct sroce_dev *sdev,
			      const struct sroce_event_port_change *ev);

/* sroce_cq.c */
int sroce_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		    SROCE_CREATE_CQ_ARG *arg);
int sroce_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata);
int sroce_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata);
int sroce_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc);
int sroce_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags);
int sroce_cq_destroy_fw(struct sroce_dev *sdev, u32 cqn);
void sroce_handle_cq_event(struct sroce_dev *sdev, unsigned int type,
			   const struct sroce_event_cq *ev);

/* sroce_qp.c */
int sroce_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
		    struct ib_udata *udata);
int sroce_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		    struct ib_udata *udata);
int sroce_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr, int mask,
		   struct ib_qp_init_attr *init);
int sroce_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata);
int sroce_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
		    const struct ib_recv_wr **bad_wr);
int sroce_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
		    const struct ib_send_wr **bad_wr);
int sroce_write_recv_wqe(struct sroce_ring_hdr *ring, u32 *prod, u32 mask,
			 unsigned int log2_elem, u32 max_sge,
			 const struct ib_recv_wr *wr);

/* sroce_srq.c */
int sroce_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
		     struct ib_udata *udata);
int sroce_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		     enum ib_srq_attr_mask mask, struct ib_udata *udata);
int sroce_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr);
int sroce_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata);
int sroce_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
			const struct ib_recv_wr **bad_wr);
int sroce_srq_destroy_fw(struct sroce_dev *sdev, u32 srqn);
void sroce_handle_qp_event(struct sroce_dev *sdev, enum ib_event_type type,
			   const struct sroce_event_qp *ev);
void sroce_handle_srq_event(struct sroce_dev *sdev,
			    const struct sroce_srq_num *ev);

/* sroce_ah.c */
int sroce_av_from_ah(const struct rdma_ah_attr *ah, struct sroce_av *av);
int sroce_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init,
		    struct ib_udata *udata);
int sroce_destroy_ah(struct ib_ah *ibah, u32 flags);

/* sroce_mr.c */
struct ib_mr *sroce_get_dma_mr(struct ib_pd *ibpd, int access);
struct ib_mr *sroce_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
				u64 iova, int access, struct ib_dmah *dmah,
				struct ib_udata *udata);
int sroce_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata);
struct ib_mr *sroce_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type type,
			     u32 max_num_sg);
int sroce_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		    unsigned int *sg_offset);
void sroce_mr_free(struct sroce_mr *mr);
int sroce_mr_register(struct sroce_dev *sdev, struct sroce_mr *mr,
		      struct sroce_reg_mr_req *req);

/* sroce_odp.c, built where the kernel has on-demand paging */
#if IS_ENABLED(CONFIG_INFINIBAND_ON_DEMAND_PAGING)
int sroce_odp_reg_mr(struct sroce_dev *sdev, struct sroce_mr *mr, u64 start,
		     u64 length, u64 iova, int access);
int sroce_odp_dereg(struct sroce_dev *sdev, struct sroce_mr *mr);
int sroce_odp_dereg_mr(struct sroce_dev *sdev, struct sroce_mr *mr);
void sroce_odp_orphan(struct sroce_mr *mr);
void sroce_odp_free(struct sroce_mr *mr);
void sroce_handle_page_fault(struct sroce_dev *sdev,
			     const struct sroce_event_page_fault *ev);
int sroce_advise_mr(struct ib_pd *ibpd, enum ib_uverbs_advise_mr_advice advice,
		    u32 flags, struct ib_sge *sg_list, u32 num_sge,
		    struct uverbs_attr_bundle *attrs);
#else
static inline int sroce_odp_reg_mr(struct sroce_dev *sdev,
				   struct sroce_mr *mr, u64 start, u64 length,
				   u64 iova, int access)
{
	return -EOPNOTSUPP;
}

/* No region has mr->odp set: these are never reached. */
static inline int sroce_odp_dereg_mr(struct sroce_dev *sdev,
				     struct sroce_mr *mr)
{
	return 0;
}

static inline void sroce_odp_orphan(struct sroce_mr *mr)
{
}

static inline void sroce_odp_free(struct sroce_mr *mr)
{
}

static inline void
sroce_handle_page_fault(struct sroce_dev *sdev,
			const struct sroce_event_page_fault *ev)
{
}

static inline int sroce_advise_mr(struct ib_pd *ibpd,
				  enum ib_uverbs_advise_mr_advice advice,
				  u32 flags, struct ib_sge *sg_list,
				  u32 num_sge,
				  struct uverbs_attr_bundle *attrs)
{
	return -EOPNOTSUPP;
}
#endif

/* sroce_mcast.c */
int sroce_attach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid);
int sroce_detach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid);

/* sroce_mw.c */
int sroce_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata);
int sroce_dealloc_mw(struct ib_mw *ibmw);

/* sroce_stats.c */
struct rdma_hw_stats *sroce_alloc_hw_port_stats(struct ib_device *ibdev,
						u32 port);
int sroce_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
		       u32 port, int index);
int sroce_process_mad(struct ib_device *ibdev, int mad_flags, u32 port_num,
		      const struct ib_wc *in_wc, const struct ib_grh *in_grh,
		      const struct ib_mad *in, struct ib_mad *out,
		      size_t *out_mad_size, u16 *out_mad_pkey_index);

/* sroce_mmap.c */
struct rdma_user_mmap_entry *sroce_mmap_publish(struct ib_ucontext *uctx,
						void *buf, size_t size,
						struct mminfo *mi);
void sroce_mmap_unpublish(struct rdma_user_mmap_entry *entry);
int sroce_mmap(struct ib_ucontext *uctx, struct vm_area_struct *vma);
void sroce_mmap_free(struct rdma_user_mmap_entry *entry);
void sroce_ring_free(struct sroce_dev *sdev,
		     struct rdma_user_mmap_entry *entry, void *ring,
		     bool fw_may_use);

/* sroce_qos.c */
extern const struct attribute_group *sroce_port_groups[];
void sroce_qos_sysfs_init(void);
void sroce_stats_init(void);
int sroce_fill_res_qp_entry(struct sk_buff *msg, struct ib_qp *ibqp);

/* sroce_debugfs.c */
void sroce_debugfs_init(void);
void sroce_debugfs_exit(void);
void sroce_debugfs_add_dev(struct sroce_dev *sdev);
void sroce_debugfs_del_dev(struct sroce_dev *sdev);

/* sroce_compat.c */
struct ib_mr *sroce_compat_reg_user_mr(struct ib_pd *ibpd, u64 start,
				       u64 length, u64 iova, int access,
				       struct ib_udata *udata);
int sroce_compat_resize_user_cq(struct ib_cq *ibcq, unsigned int cqe,
				struct ib_udata *udata);
void sroce_compat_report_port_event(struct ib_device *ibdev,
				    struct net_device *ndev,
				    unsigned long event);

#endif /* SROCE_H */
