/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * sroce firmware interface: everything that crosses the boundary between
 * the driver (ib_core glue) and the emulated NIC firmware.
 *
 * The two sides share nothing but what is defined here: command queue
 * entries, completions, event queue entries and the typed payloads they
 * carry. Every structure has a fixed little-endian layout checked at
 * compile time, exactly as if a PCI device sat between the two halves.
 * Documentation/firmware-interface.md describes the protocol.
 *
 * This header is included by kernel code and by the userspace unit tests.
 */
#ifndef SROCE_FW_ABI_H
#define SROCE_FW_ABI_H

#include <linux/types.h>
#ifdef __KERNEL__
#include <linux/build_bug.h>
#include <linux/stddef.h>
#else
#include <assert.h>
#include <stddef.h>
#endif

/* Bumped on any incompatible change of a layout or an opcode's meaning. */
#define SROCE_FW_ABI_MAJOR		1
/*
 * Minor 2: RESIZE_SRQ, 3: RDMA FLUSH, 4: on-demand paging, 5: byte
 * counters, 6: congestion-control parameters, 7: QoS settings, the
 * congestion counters and QUERY_QP_CC, 8: priority flow control, 9: the
 * train counters.
 */
#define SROCE_FW_ABI_MINOR		9

#define SROCE_FW_NUM_PORTS		1
#define SROCE_FW_MAX_CQ			0xffff
/*
 * 2^20 - 1 (a ring of 64 MiB at most): libfabric 1.17's RDM endpoints ask
 * for 262144 entries per CQ and do not clamp to max_cqe (rdma_rxe's
 * 32767 refuses them); ConnectX reports 2^22 - 1.
 */
#define SROCE_FW_MAX_CQE		1048575
#define SROCE_FW_MAX_QP			0x10000
#define SROCE_FW_MIN_QPN		16	/* lower numbers are reserved */
#define SROCE_FW_GSI_QPN		1
#define SROCE_FW_MAX_QP_WR		16383
#define SROCE_FW_MAX_SGE		32
#define SROCE_FW_MAX_INLINE		512	/* SROCE_FW_MAX_SGE * 16 */
#define SROCE_FW_MAX_RD_ATOMIC		128	/* a power of two */
/* Largest message, bytes: the IBA limit (2^31); see also fw.h's packet cap. */
#define SROCE_FW_MAX_MSG_SIZE		0x80000000U
#define SROCE_FW_MAX_MR			0xffff	/* regions and windows */
#define SROCE_FW_MAX_FAST_REG_PAGES	512
#define SROCE_FW_MAX_MCAST_GRP		256	/* per function */
#define SROCE_FW_MAX_MCAST_QP_ATTACH	64	/* per group */
#define SROCE_FW_MAX_AH			0x7fff	/* ah_num 1..32767 */
#define SROCE_FW_MAX_SRQ		0xffff
#define SROCE_FW_GID_TABLE_LEN		128
#define SROCE_GID_LEN			16
#define SROCE_NUM_PRIO			8	/* 802.1p priorities of the port */

/* Sizes of one slot of each queue. */
#define SROCE_CMD_ENTRY_SIZE		256
#define SROCE_CMD_HDR_SIZE		8
#define SROCE_CMD_PAYLOAD_MAX		(SROCE_CMD_ENTRY_SIZE - SROCE_CMD_HDR_SIZE)
#define SROCE_EQ_ENTRY_SIZE		64

/* Interrupt vectors raised by the firmware. */
enum sroce_fw_vector {
	SROCE_VEC_CMD_COMPLETION = 0,
	SROCE_VEC_ASYNC_EVENT = 1,
	SROCE_VEC_COMPLETION = 2,	/* the completion event queue */
	SROCE_NUM_VECTORS,
};

/*
 * Faults the firmware injects when told to (sroce_fw_set_fault()), so
 * that tests can reach the driver's error handling.
 */
enum sroce_fw_fault {
	SROCE_FW_FAULT_CMD_STALL,	/* the command processor executes
					 * no new command until the fault is
					 * cleared (value 1; 0 clears it)
					 */
	SROCE_FW_FAULT_TX_NO_MEM,	/* one packet in N the function builds,
					 * at random, finds no memory (value
					 * N; 0 clears)
					 */
	SROCE_FW_FAULT_RX_DRAIN_MBPS,	/* the host side takes received RoCE
					 * packets from the port's buffers at
					 * most at N Mbit/s, as a busy bus or
					 * host would (value N; 0: as fast as
					 * they come, the buffers unused)
					 */
	SROCE_FW_FAULT_RX_DRAIN_STOP,	/* the host side takes none at all
					 * until cleared (value 1; 0 clears):
					 * a stalled receiver
					 */
	SROCE_FW_FAULT_DEFER_HOLD,	/* commands that end after an RCU
					 * grace period (DESTROY_QP, DEREG_MR,
					 * DEALLOC_MW) end only once cleared,
					 * as if the grace period lasted that
					 * long (value 1; 0 clears)
					 */
	SROCE_FW_NUM_FAULTS,
};

/*
 * Command opcodes. Numbers are part of the ABI: never reuse one.
 * 0x00xx device and port, 0x01xx GID table, 0x02xx protection domains,
 * 0x03xx completion queues, 0x04xx queue pairs, 0x05xx memory regions,
 * 0x06xx address handles, 0x07xx statistics, 0x08xx shared receive queues,
 * 0x09xx congestion control, 0x0Axx priority flow control.
 */
enum sroce_cmd_opcode {
	SROCE_CMD_QUERY_DEVICE = 0x0001,
	SROCE_CMD_QUERY_PORT = 0x0002,
	SROCE_CMD_ADD_GID = 0x0101,
	SROCE_CMD_DEL_GID = 0x0102,
	SROCE_CMD_QUERY_GID = 0x0103,
	SROCE_CMD_ALLOC_PD = 0x0201,
	SROCE_CMD_DEALLOC_PD = 0x0202,
	SROCE_CMD_CREATE_CQ = 0x0301,
	SROCE_CMD_DESTROY_CQ = 0x0302,
	SROCE_CMD_RESIZE_CQ = 0x0303,
	SROCE_CMD_CREATE_QP = 0x0401,
	SROCE_CMD_MODIFY_QP = 0x0402,
	SROCE_CMD_QUERY_QP = 0x0403,
	SROCE_CMD_DESTROY_QP = 0x0404,
	SROCE_CMD_ATTACH_MCAST = 0x0405,
	SROCE_CMD_DETACH_MCAST = 0x0406,
	SROCE_CMD_REG_MR = 0x0501,
	SROCE_CMD_DEREG_MR = 0x0502,
	SROCE_CMD_ALLOC_MW = 0x0503,
	SROCE_CMD_DEALLOC_MW = 0x0504,
	SROCE_CMD_CREATE_AH = 0x0601,
	SROCE_CMD_DESTROY_AH = 0x0602,
	SROCE_CMD_QUERY_STATS = 0x0701,
	SROCE_CMD_CREATE_SRQ = 0x0801,
	SROCE_CMD_MODIFY_SRQ = 0x0802,
	SROCE_CMD_QUERY_SRQ = 0x0803,
	SROCE_CMD_DESTROY_SRQ = 0x0804,
	SROCE_CMD_RESIZE_SRQ = 0x0805,
	SROCE_CMD_QUERY_CC_PARAMS = 0x0901,
	SROCE_CMD_SET_CC_PARAM = 0x0902,
	SROCE_CMD_QUERY_QOS = 0x0903,
	SROCE_CMD_SET_QOS = 0x0904,
	SROCE_CMD_QUERY_QP_CC = 0x0905,
	SROCE_CMD_QUERY_PFC = 0x0A01,
	SROCE_CMD_SET_PFC = 0x0A02,
	SROCE_CMD_QUERY_PFC_STATS = 0x0A03,
	SROCE_CMD_QUERY_PFC_BUFFER = 0x0A04,
	SROCE_CMD_SET_PFC_BUFFER = 0x0A05,
};

/* Dense index of each opcode, for per-command statistics tables. */
enum sroce_cmd_index {
	SROCE_CMDI_QUERY_DEVICE,
	SROCE_CMDI_QUERY_PORT,
	SROCE_CMDI_ADD_GID,
	SROCE_CMDI_DEL_GID,
	SROCE_CMDI_QUERY_GID,
	SROCE_CMDI_ALLOC_PD,
	SROCE_CMDI_DEALLOC_PD,
	SROCE_CMDI_CREATE_CQ,
	SROCE_CMDI_DESTROY_CQ,
	SROCE_CMDI_RESIZE_CQ,
	SROCE_CMDI_CREATE_QP,
	SROCE_CMDI_MODIFY_QP,
	SROCE_CMDI_QUERY_QP,
	SROCE_CMDI_DESTROY_QP,
	SROCE_CMDI_ATTACH_MCAST,
	SROCE_CMDI_DETACH_MCAST,
	SROCE_CMDI_REG_MR,
	SROCE_CMDI_DEREG_MR,
	SROCE_CMDI_ALLOC_MW,
	SROCE_CMDI_DEALLOC_MW,
	SROCE_CMDI_CREATE_AH,
	SROCE_CMDI_DESTROY_AH,
	SROCE_CMDI_QUERY_STATS,
	SROCE_CMDI_CREATE_SRQ,
	SROCE_CMDI_MODIFY_SRQ,
	SROCE_CMDI_QUERY_SRQ,
	SROCE_CMDI_DESTROY_SRQ,
	SROCE_CMDI_RESIZE_SRQ,
	SROCE_CMDI_QUERY_CC_PARAMS,
	SROCE_CMDI_SET_CC_PARAM,
	SROCE_CMDI_QUERY_QOS,
	SROCE_CMDI_SET_QOS,
	SROCE_CMDI_QUERY_QP_CC,
	SROCE_CMDI_QUERY_PFC,
	SROCE_CMDI_SET_PFC,
	SROCE_CMDI_QUERY_PFC_STATS,
	SROCE_CMDI_QUERY_PFC_BUFFER,
	SROCE_CMDI_SET_PFC_BUFFER,
	SROCE_NUM_CMDS,
	SROCE_CMDI_INVALID = SROCE_NUM_CMDS,
};

/*
 * Completion status. The driver maps these to errno values in exactly one
 * place: sroce_fw_status_to_errno().
 */
enum sroce_fw_status {
	SROCE_FW_OK = 0,
	SROCE_FW_ERR_BAD_OPCODE = 1,	/* opcode unknown to this firmware */
	SROCE_FW_ERR_BAD_LENGTH = 2,	/* request shorter than its opcode needs */
	SROCE_FW_ERR_BAD_PARAM = 3,	/* a field is out of range */
	SROCE_FW_ERR_NO_RESOURCES = 4,	/* table full */
	SROCE_FW_ERR_NOT_FOUND = 5,	/* handle or index not in use */
	SROCE_FW_ERR_BUSY = 6,		/* object still referenced */
	SROCE_FW_ERR_BAD_STATE = 7,	/* not allowed in the current state */
	SROCE_FW_ERR_INTERNAL = 8,	/* firmware bug; device should be reset */
	SROCE_FW_NUM_STATUS,
};

/* One command queue slot, written by the driver, read by the firmware. */
struct sroce_cmd_entry {
	__le16 opcode;
	__le16 cmd_id;		/* echoed in the completion */
	__le16 req_len;		/* valid bytes in payload */
	__le16 flags;		/* must be zero */
	__u8 payload[SROCE_CMD_PAYLOAD_MAX];
};

#define SROCE_CMPL_PHASE		0x1

/*
 * One completion queue slot, written by the firmware. The firmware flips
 * the phase bit each time it wraps the ring, so the driver knows which
 * entries are new without a shared producer index.
 */
struct sroce_cmd_completion {
	__le16 cmd_id;
	__le16 status;		/* enum sroce_fw_status */
	__le16 resp_len;	/* valid bytes in payload */
	__le16 flags;		/* SROCE_CMPL_PHASE */
	__u8 payload[SROCE_CMD_PAYLOAD_MAX];
};

/* --- Command payloads ----------------------------------------------- */

/* Device capability bits reported by QUERY_DEVICE. */
#define SROCE_DEV_CAP_ROCE_V1		0x1
#define SROCE_DEV_CAP_ROCE_V2		0x2
#define SROCE_DEV_CAP_ATOMIC		0x4	/* atomic among this device's QPs */
#define SROCE_DEV_CAP_FAST_REG		0x8	/* fast registration, invalidate */
#define SROCE_DEV_CAP_MW		0x10	/* memory windows type 1 and 2 */
#define SROCE_DEV_CAP_SRQ_RESIZE	0x20	/* RESIZE_SRQ */
#define SROCE_DEV_CAP_FLUSH_GLOBAL	0x40	/* RDMA FLUSH, global visibility */
#define SROCE_DEV_CAP_ODP		0x80	/* on-demand paging regions */

/* SROCE_CMD_QUERY_DEVICE: no request payload. */
struct sroce_query_device_resp {
	__le16 abi_major;
	__le16 abi_minor;
	__le32 caps;			/* SROCE_DEV_CAP_* */
	__le64 fw_version;		/* major << 32 | minor << 16 | patch */
	__u8 node_guid[8];		/* modified EUI-64, wire byte order */
	__le64 max_mr_size;
	__le64 page_size_cap;
	__le32 vendor_id;
	__le32 vendor_part_id;
	__le32 hw_version;
	__le32 num_ports;
	__le32 max_qp;
	__le32 max_qp_wr;
	__le32 max_send_sge;
	__le32 max_recv_sge;
	__le32 max_sge_rd;
	__le32 max_cq;
	__le32 max_cqe;
	__le32 max_mr;
	__le32 max_pd;
	__le32 max_qp_rd_atom;
	__le32 max_qp_init_rd_atom;
	__le32 max_res_rd_atom;
	__le32 max_srq;
	__le32 max_srq_wr;
	__le32 max_srq_sge;
	__le32 max_ah;
	__le32 max_mcast_grp;
	__le32 max_mcast_qp_attach;
	__le32 max_fast_reg_page_list_len;
	__le32 max_mw;
	__le32 max_pkeys;
	__le32 max_inline_data;
};

/* SROCE_CMD_QUERY_PORT */
struct sroce_query_port_req {
	__u8 port;			/* 1-based */
	__u8 rsvd[7];
};

enum sroce_port_state {
	SROCE_PORT_DOWN = 1,
	SROCE_PORT_ACTIVE = 4,
};

enum sroce_port_phys_state {
	SROCE_PORT_PHYS_POLLING = 2,	/* enabled, no carrier */
	SROCE_PORT_PHYS_DISABLED = 3,	/* administratively down */
	SROCE_PORT_PHYS_LINK_UP = 5,
};

struct sroce_query_port_resp {
	__u8 state;			/* enum sroce_port_state */
	__u8 phys_state;		/* enum sroce_port_phys_state */
	__u8 max_mtu;			/* IB MTU code, 1 = 256 ... 5 = 4096 */
	__u8 active_mtu;		/* IB MTU code for the current netdev MTU */
	__le32 netdev_mtu;		/* bytes */
	__le32 link_speed_mbps;		/* 0 if unknown */
	__le32 gid_tbl_len;
	__le32 pkey_tbl_len;
	__u8 mac[6];
	__u8 rsvd[2];
};

/* GID types, numerically equal to the kernel's and uverbs' values. */
enum sroce_gid_type {
	SROCE_GID_ROCE_V1 = 1,
	SROCE_GID_ROCE_V2 = 2,
};

#define SROCE_VLAN_NONE			0xffff

/* SROCE_CMD_ADD_GID */
struct sroce_add_gid_req {
	__le32 index;
	__u8 port;
	__u8 gid_type;			/* enum sroce_gid_type */
	__le16 vlan_id;			/* SROCE_VLAN_NONE when untagged */
	__u8 gid[SROCE_GID_LEN];
	__u8 smac[6];
	__u8 rsvd[2];
};

/* SROCE_CMD_DEL_GID and SROCE_CMD_QUERY_GID */
struct sroce_gid_index_req {
	__le32 index;
	__u8 port;
	__u8 rsvd[3];
};

/* SROCE_CMD_QUERY_GID response: valid == 0 means an empty slot. */
struct sroce_query_gid_resp {
	__u8 valid;
	__u8 gid_type;
	__le16 vlan_id;
	__u8 gid[SROCE_GID_LEN];
	__u8 smac[6];
	__u8 rsvd[2];
};

/* SROCE_CMD_ALLOC_PD: no request payload. */
struct sroce_alloc_pd_resp {
	__le32 pdn;
	__u8 rsvd[4];
};

/* SROCE_CMD_DEALLOC_PD */
struct sroce_dealloc_pd_req {
	__le32 pdn;
	__u8 rsvd[4];
};

/*
 * Work queue rings (completion, send, receive) use the rdma_rxe user ABI,
 * since userspace maps them: this header, then 2^n slots of
 * 2^log2_elem_size bytes. Indices are masked slot numbers, not counters;
 * one slot always stays free. Fields are in host byte order.
 */
struct sroce_ring_hdr {
	__u32 log2_elem_size;
	__u32 index_mask;
	__u32 pad1[30];
	__u32 producer_index;
	__u32 pad2[31];
	__u32 consumer_index;
	__u32 pad3[31];
};

/*
 * A completion queue slot (64 bytes) holds the struct ib_uverbs_wc that
 * userspace reads (48 bytes), then a struct sroce_cqe_ext with what only
 * kernel consumers are given (struct ib_wc has room for it, the rxe ABI
 * has not).
 */
#define SROCE_CQE_LOG2_SIZE		6
#define SROCE_CQE_EXT_OFFSET		48

/*
 * wc_flags of a slot, in libibverbs' numbering (enum ibv_wc_flags), which
 * librxe hands to the application unchanged: bits 2 and 3 are swapped
 * against the kernel's enum ib_wc_flags (IB_WC_WITH_INVALIDATE is bit 2
 * there, IBV_WC_WITH_INV bit 3 here). The driver translates for kernel
 * consumers.
 */
#define SROCE_CQE_GRH			0x01	/* IBV_WC_GRH */
#define SROCE_CQE_WITH_IMM		0x02	/* IBV_WC_WITH_IMM */
#define SROCE_CQE_WITH_INV		0x08	/* IBV_WC_WITH_INV */

#define SROCE_CQE_EXT_VLAN		0x01	/* vlan_id is valid */
#define SROCE_CQE_EXT_NET_TYPE		0x02	/* network_hdr_type is valid */

struct sroce_cqe_ext {
	__u8 flags;			/* SROCE_CQE_EXT_* */
	__u8 network_hdr_type;		/* enum rdma_network_type */
	__le16 vlan_id;			/* the datagram's VLAN */
	__u8 rsvd[12];
};

/*
 * SROCE_CMD_CREATE_CQ. ring_addr is where the ring lives, as a device
 * would be given a DMA address: the firmware owns the producer index and
 * reads the consumer index from the header.
 */
struct sroce_create_cq_req {
	__le64 ring_addr;
	__le32 log2_slots;
	__le32 comp_vector;
};

struct sroce_create_cq_resp {
	__le32 cqn;
	__u8 rsvd[4];
};

/* SROCE_CMD_DESTROY_CQ */
struct sroce_cq_req {
	__le32 cqn;
	__u8 rsvd[4];
};

/*
 * SROCE_CMD_RESIZE_CQ: move to a new ring; completions not yet consumed
 * are copied to the start of the new ring. Fails with BAD_PARAM if they
 * do not fit.
 */
struct sroce_resize_cq_req {
	__le64 ring_addr;
	__le32 cqn;
	__le32 log2_slots;
};

/* CQ arm doorbell values (sroce_fw_ring_cq_arm_doorbell()). */
#define SROCE_CQ_ARM_SOLICITED		1
#define SROCE_CQ_ARM_NEXT		2

/*
 * Queue pairs. Send and receive rings hold struct rxe_send_wqe and struct
 * rxe_recv_wqe slots (rdma_rxe user ABI); the firmware consumes them and
 * keeps its own consumer indices. Numbers in qp_type, states and attribute
 * masks are those of the IBA (and of the kernel's ib_verbs.h), see
 * drivers/lib/qp_state.h.
 */
#define SROCE_QP_F_SIG_ALL		0x1	/* every send WQE completes */
#define SROCE_QP_F_USER			0x2	/* rings are mapped to userspace */

struct sroce_create_qp_req {
	__le64 sq_addr;
	__le64 rq_addr;			/* 0 when receives come from an SRQ */
	__le32 pdn;
	__le32 send_cqn;
	__le32 recv_cqn;
	__le32 srqn;			/* 0: none */
	__le32 max_inline;
	__u8 qp_type;
	__u8 flags;			/* SROCE_QP_F_* */
	__u8 sq_log2_slots;
	__u8 sq_log2_elem;
	__u8 rq_log2_slots;
	__u8 rq_log2_elem;
	__u8 max_send_sge;
	__u8 max_recv_sge;
	__u8 port;
	__u8 rsvd[7];
};

struct sroce_create_qp_resp {
	__le32 qpn;
	__u8 rsvd[4];
};

/* How a packet reaches the peer: RoCE v1 (GRH), v2 over IPv4 or IPv6. */
enum sroce_net_type {
	SROCE_NET_ROCE_V1 = 1,
	SROCE_NET_IPV4 = 2,
	SROCE_NET_IPV6 = 3,
};

/* Address vector, resolved by the driver from ib_core's attributes. */
struct sroce_av {
	__u8 dgid[SROCE_GID_LEN];
	__u8 dmac[6];
	__le16 vlan_id;			/* SROCE_VLAN_NONE when untagged */
	__le32 flow_label;
	__u8 sgid_index;
	__u8 hop_limit;
	__u8 traffic_class;
	__u8 sl;
	__u8 net_type;			/* enum sroce_net_type */
	__u8 rsvd[3];
};

/* Queue pair attributes, as set by MODIFY_QP and read by QUERY_QP. */
struct sroce_qp_attr {
	__u8 state;
	__u8 cur_state;
	__u8 port;
	__u8 path_mtu;			/* IB MTU code */
	__u8 timeout;
	__u8 retry_cnt;
	__u8 rnr_retry;
	__u8 min_rnr_timer;
	__u8 max_rd_atomic;
	__u8 max_dest_rd_atomic;
	__u8 sq_draining;
	__u8 en_sqd_async_notify;
	__le16 pkey_index;
	__le16 rsvd;
	__le32 qkey;
	__le32 dest_qpn;
	__le32 sq_psn;
	__le32 rq_psn;
	__le32 access_flags;		/* SROCE_QP_ACCESS_ALL bits */
	struct sroce_av av;
};

struct sroce_modify_qp_req {
	__le32 qpn;
	__le32 attr_mask;		/* which fields of attr apply */
	struct sroce_qp_attr attr;
};

/* SROCE_CMD_QUERY_QP and SROCE_CMD_DESTROY_QP */
struct sroce_qp_req {
	__le32 qpn;
	__u8 rsvd[4];
};

/*
 * SROCE_CMD_ATTACH_MCAST and SROCE_CMD_DETACH_MCAST: a UD QP joins or
 * leaves the group of a multicast GID (ff00::/8 or IPv4-mapped 224/4).
 */
struct sroce_mcast_req {
	__u8 mgid[SROCE_GID_LEN];
	__le32 qpn;
	__u8 rsvd[4];
};

/*
 * Memory regions. A user MR is described by a translation table: an array
 * of struct page pointers (mtt_addr) covering page_offset + length bytes,
 * pinned by the driver until DEREG_MR. A DMA MR covers kernel memory by
 * virtual address (iova 0, length all ones, no table).
 *
 * A fast-registration MR (kernel consumers: ib_alloc_mr) is created
 * invalid with room for npages entries; mtt_addr is then the driver's page
 * list, an array of __le64 kernel virtual addresses (the device's DMA
 * addresses). A fast-registration WQE (struct sroce_fast_reg_wr) makes the
 * firmware copy the list and validate the region under a new key; a local
 * invalidate, or a SEND with invalidate from the peer, makes it invalid.
 */
enum sroce_mr_type {
	SROCE_MR_USER = 1,
	SROCE_MR_DMA = 2,
	SROCE_MR_FAST = 3,
	SROCE_MR_ODP = 4,
};

/*
 * On-demand paging (SROCE_MR_ODP): REG_MR as for a user MR but with no
 * table (mtt_addr 0). The firmware keeps the translation of each of the
 * npages pages itself, every page absent at first; the driver writes it
 * with sroce_fw_write_odp_xlt() (fw_bus.h). An access that finds a page
 * absent (or read-only, for a write) raises SROCE_EVENT_PAGE_FAULT and
 * waits: the requester and the READ responder stop the QP until the next
 * translation write, the responder of a SEND, WRITE or atomic answers RNR
 * NAK, the completer drops the response and asks again after the next
 * write; a UD receive completes in error (UD receives are not offered
 * for on-demand paging). Pages the driver could not fault are
 * marked failed: accesses to them end in protection errors until they
 * are written again.
 */
#define SROCE_ODP_MAX_PAGES		0x1000000U	/* 64 GiB of 4 KiB pages */
#define SROCE_ODP_XLT_MAX_PAGES		512

enum sroce_odp_xlt_op {
	SROCE_ODP_XLT_MAP = 1,		/* install npages entries */
	SROCE_ODP_XLT_UNMAP = 2,	/* make npages pages absent */
	SROCE_ODP_XLT_FAIL = 3,		/* npages pages could not be faulted */
};

/* An entry of a MAP: a struct page pointer, with this bit if writable. */
#define SROCE_ODP_XLT_WRITABLE		0x1ULL

/*
 * A translation write: @npages (1..SROCE_ODP_XLT_MAX_PAGES) pages from
 * @first_page (page 0 holds the region's first byte) of the region @key.
 * For MAP, @entries_addr is the driver's array of @npages __le64 entries;
 * an entry of 0 leaves the page absent.
 */
struct sroce_odp_xlt {
	__le32 key;
	__le32 first_page;
	__le32 npages;
	__u8 op;			/* enum sroce_odp_xlt_op */
	__u8 rsvd[3];
	__le64 entries_addr;
};

/* Access rights, the IB_ACCESS_* bits a region may carry. */
#define SROCE_ACCESS_LOCAL_WRITE	0x1
#define SROCE_ACCESS_REMOTE_WRITE	0x2
#define SROCE_ACCESS_REMOTE_READ	0x4
#define SROCE_ACCESS_REMOTE_ATOMIC	0x8
#define SROCE_ACCESS_MW_BIND		0x10
/*
 * RDMA FLUSH (IBA 1.5 A19) of the global-visibility and persistence types.
 * A region cannot carry the persistence right: the firmware has no
 * persistent memory to make data durable in. A QP can: it only admits the
 * request, which the region then refuses.
 */
#define SROCE_ACCESS_FLUSH_GLOBAL	0x100
#define SROCE_ACCESS_FLUSH_PERSISTENT	0x200
#define SROCE_ACCESS_ALL		0x11f
/* The rights a QP admits: LOCAL_WRITE..REMOTE_ATOMIC and both FLUSH. */
#define SROCE_QP_ACCESS_ALL		0x30f

struct sroce_reg_mr_req {
	__le64 iova;
	__le64 length;
	__le64 mtt_addr;
	__le32 pdn;
	__le32 access;			/* SROCE_ACCESS_* */
	__le32 npages;
	__le32 page_offset;		/* of iova within the first page */
	__u8 type;			/* enum sroce_mr_type */
	__u8 rsvd[7];
};

struct sroce_reg_mr_resp {
	__le32 lkey;
	__le32 rkey;
};

/* SROCE_CMD_DEREG_MR */
struct sroce_dereg_mr_req {
	__le32 key;
	__u8 rsvd[4];
};

/*
 * IB_WR_REG_MR, the fast-registration work request of kernel QPs, in the
 * work-request union of struct rxe_send_wr (user QPs cannot post it): the
 * region named by the index bits of @key takes @key as its new lkey and
 * rkey and covers @length bytes from @iova, which lie at offset
 * (@iova mod page size) of the first of @npages pages of 1 << @page_shift
 * bytes listed in its page list.
 */
struct sroce_fast_reg_wr {
	__le64 iova;
	__le64 length;
	__le32 key;
	__le32 access;			/* SROCE_ACCESS_* */
	__le32 npages;
	__u8 page_shift;
	__u8 rsvd[3];
};

/*
 * Memory windows share the key space of regions. Type 1 windows are bound
 * by a bind WQE on any QP of their PD and stay bound until rebound; type 2
 * windows are bound to one QP, which alone may use them, until a local
 * invalidate or a SEND with invalidate.
 */
struct sroce_alloc_mw_req {
	__le32 pdn;
	__u8 type;			/* 1 or 2 (IB_MW_TYPE_*) */
	__u8 rsvd[3];
};

struct sroce_alloc_mw_resp {
	__le32 rkey;
	__u8 rsvd[4];
};

/* SROCE_CMD_DEALLOC_MW */
struct sroce_dealloc_mw_req {
	__le32 rkey;
	__u8 rsvd[4];
};

/*
 * Address handles of user UD QPs: librxe puts the returned number in each
 * UD WQE (wr.ud.ah_num); the firmware checks the PD at send time. Kernel
 * QPs, whose WQEs only the driver writes, carry the address vector in the
 * WQE instead, so kernel AHs can be created in atomic context.
 */
struct sroce_create_ah_req {
	__le32 pdn;
	__u8 rsvd[4];
	struct sroce_av av;
};

/* SROCE_CMD_CREATE_AH response and SROCE_CMD_DESTROY_AH request */
struct sroce_ah_num {
	__le32 ah_num;
	__u8 rsvd[4];
};

/*
 * Port counters, in this order in the QUERY_STATS response. Indices are
 * ABI; new counters are appended. The driver exports them under the
 * names rdma_rxe and mlx5 users know (rdma statistic).
 */
enum sroce_stat {
	SROCE_STAT_TX_PKTS,		/* RoCE packets sent */
	SROCE_STAT_RX_PKTS,		/* RoCE packets accepted */
	SROCE_STAT_RX_ICRC_ERR,		/* dropped: bad ICRC */
	SROCE_STAT_RX_MALFORMED,	/* dropped: headers or lengths invalid */
	SROCE_STAT_RX_NO_QP,		/* dropped: no such QP */
	SROCE_STAT_DUP_REQ,		/* responder: duplicate requests */
	SROCE_STAT_OUT_OF_SEQ,		/* responder: PSN ahead (NAK sent) */
	SROCE_STAT_SEQ_NAK_RCVD,	/* requester: sequence NAKs received */
	SROCE_STAT_RNR_NAK_SENT,	/* responder: RNR NAKs sent */
	SROCE_STAT_RNR_NAK_RCVD,	/* requester: RNR NAKs received */
	SROCE_STAT_ACK_TIMEOUT,		/* requester: transport timer expired */
	SROCE_STAT_RETRY_EXC,		/* requester: retries exhausted */
	SROCE_STAT_RNR_RETRY_EXC,	/* requester: RNR retries exhausted */
	SROCE_STAT_RX_READ_REQ,		/* responder: RDMA READ requests */
	SROCE_STAT_RX_WRITE_REQ,	/* responder: RDMA WRITE packets */
	SROCE_STAT_RX_ATOMIC_REQ,	/* responder: atomic requests */
	SROCE_STAT_UD_NO_WQE,		/* dropped: UD packet, no receive posted */
	SROCE_STAT_RX_QP_REFUSED,	/* dropped: wrong transport for the QP,
					 * oversized MAD
					 */
	SROCE_STAT_EQ_DEFERRED,		/* events that found the event ring
					 * full and waited for the EQ doorbell
					 */
	SROCE_STAT_TX_NO_MEM,		/* packets not sent for want of memory
					 * (lost: RC resends them)
					 */
	SROCE_STAT_ODP_PAGE_FAULTS,	/* on-demand paging: faults raised */
	SROCE_STAT_ODP_INVALIDATIONS,	/* on-demand paging: pages unmapped */
	SROCE_STAT_TX_BYTES,		/* bytes of the RoCE packets sent, BTH
					 * to ICRC (the IB transport packet)
					 */
	SROCE_STAT_RX_BYTES,		/* the same, of the packets accepted */
	SROCE_STAT_NP_ECN_MARKED,	/* RoCE v2 packets received with CE */
	SROCE_STAT_NP_CNP_SENT,		/* CNPs sent for CE-marked packets */
	SROCE_STAT_RP_CNP_HANDLED,	/* CNPs that slowed a QP down */
	SROCE_STAT_RP_CNP_IGNORED,	/* CNPs for a QP whose priority has
					 * the reaction point off, or that
					 * does not send
					 */
	SROCE_STAT_TX_TRAINS,		/* datagrams of more than one packet
					 * sent (each packet counts in
					 * sent_pkts)
					 */
	SROCE_STAT_RX_TRAINS,		/* such datagrams received whole, not
					 * cut by the IP stack first
					 */
	SROCE_NUM_STATS,
};

/*
 * Congestion-control parameters, one identifier each, named after the
 * mlx5 debugfs cc_params files they match (rp_* for the DCQCN reaction
 * point, np_* for the notification point), in mlx5's units: microseconds,
 * Mbit/s, bytes, percent, alpha in 1/1024. Identifiers are ABI; new ones
 * are appended, with an ABI minor that QUERY_CC_PARAMS's longer response
 * goes with. Ranges and defaults: drivers/lib/dcqcn.c.
 */
enum sroce_cc_param {
	SROCE_CC_RP_CLAMP_TGT_RATE,
	SROCE_CC_RP_CLAMP_TGT_RATE_ATI,
	SROCE_CC_RP_TIME_RESET,
	SROCE_CC_RP_BYTE_RESET,
	SROCE_CC_RP_THRESHOLD,
	SROCE_CC_RP_AI_RATE,
	SROCE_CC_RP_HAI_RATE,
	SROCE_CC_RP_MAX_RATE,
	SROCE_CC_RP_MIN_DEC_FAC,
	SROCE_CC_RP_MIN_RATE,
	SROCE_CC_RP_RATE_TO_SET_ON_FIRST_CNP,
	SROCE_CC_RP_DCE_TCP_G,
	SROCE_CC_RP_DCE_TCP_RTT,
	SROCE_CC_RP_RATE_REDUCE_MONITOR_PERIOD,
	SROCE_CC_RP_INITIAL_ALPHA_VALUE,
	SROCE_CC_RP_GD,
	SROCE_CC_NP_MIN_TIME_BETWEEN_CNPS,
	SROCE_CC_NP_CNP_DSCP,
	SROCE_CC_NP_CNP_PRIO_MODE,
	SROCE_CC_NP_CNP_PRIO,
	SROCE_NUM_CC_PARAMS,
};

/* SROCE_CMD_QUERY_CC_PARAMS: no request payload. */
struct sroce_query_cc_params_resp {
	__le32 value[SROCE_NUM_CC_PARAMS];	/* by enum sroce_cc_param */
};

/*
 * SROCE_CMD_SET_CC_PARAM: one knob. BAD_PARAM for an unknown @id or a
 * value out of its range, changing nothing. Setting np_cnp_prio also
 * sets np_cnp_prio_mode to 0 (the priority is then np_cnp_prio), as
 * ConnectX does.
 */
struct sroce_set_cc_param_req {
	__le32 id;				/* enum sroce_cc_param */
	__le32 value;
};

/*
 * SROCE_CMD_QUERY_QP_CC (request struct sroce_qp_req): a QP's reaction
 * point as of its last packet or CNP. NOT_FOUND for no such QP.
 */
struct sroce_qp_cc_resp {
	__le64 rate_kbps;			/* current rate, while limited */
	__le64 target_kbps;			/* target rate, while limited */
	__le64 measured_kbps;			/* send rate measured, 0: idle */
	__le16 alpha;				/* 1/1024 */
	__u8 limited;				/* the limiter is on */
	__u8 prio;				/* the QP's priority */
	__u8 rsvd[4];
};

/* Port trust modes of struct sroce_qos_cfg (mlnx_qos --trust) */
#define SROCE_QOS_TRUST_PCP		0	/* priority = the SL (PCP) */
#define SROCE_QOS_TRUST_DSCP		1	/* priority = dscp2prio[DSCP] */

/*
 * SROCE_CMD_QUERY_QOS response and SROCE_CMD_SET_QOS request: how the
 * port classifies RoCE packets into priorities and where ECN works. SET
 * replaces all of it (BAD_PARAM, changing nothing, for a trust mode or a
 * priority out of range, or @rsvd not zero). Bit N of @rp_enable: priority N's RoCE v2
 * packets leave ECT(0) and its QPs slow down for CNPs; of @np_enable:
 * CE marks on priority N are answered with CNPs. After creation: trust
 * PCP, both masks 0xff, dscp2prio[D] = D >> 3 (as ConnectX).
 */
struct sroce_qos_cfg {
	__u8 trust;				/* SROCE_QOS_TRUST_* */
	__u8 rp_enable;
	__u8 np_enable;
	__u8 rsvd;
	__u8 dscp2prio[64];			/* 0..7 each */
};

/*
 * SROCE_CMD_QUERY_PFC response and SROCE_CMD_SET_PFC request: priority
 * flow control of the port (mlnx_qos --pfc, dcb pfc prio-pfc). Bit N of
 * @enable: priority N is lossless: its transmit lists obey the link
 * partner's 802.1Qbb pause frames. With no bit set the port obeys 802.3x
 * PAUSE instead, for every priority, as a MAC with PFC off does. SET
 * replaces it (BAD_PARAM, changing nothing, if @rsvd is not zero). After
 * creation: 0.
 */
struct sroce_pfc_cfg {
	__u8 enable;
	__u8 rsvd[7];
};

/* The port's receive buffers: at most this many bytes in all */
#define SROCE_PFC_BUFFER_TOTAL		(4U << 20)
#define SROCE_PFC_CABLE_LEN_MAX		10000	/* metres */
#define SROCE_PFC_STALL_TOUT_MIN	80	/* ms, as mlx5's pfc-prevention-tout */
#define SROCE_PFC_STALL_TOUT_MAX	8000

/*
 * SROCE_CMD_QUERY_PFC_BUFFER response and SROCE_CMD_SET_PFC_BUFFER
 * request: the port's receive buffers (mlnx_qos --buffer_size,
 * --prio2buffer, --cable_len; dcb buffer) and its PFC storm watchdog
 * (ethtool's pfc-prevention-tout). Received RoCE packets of priority N
 * wait in buffer @prio2buffer[N] while the host side drains them. A
 * buffer holding a priority with PFC on is lossless: it asks the link
 * partner to pause those priorities at @xoff bytes and lifts the pause
 * below @xon. Bit B of @xoff_set: buffer B's thresholds are @xoff[B]
 * (<= size) and @xon[B] (below it; 0: xoff - MTU); clear: computed as
 * ConnectX does (xoff = size - headroom, headroom = (301 + 2.16 x cable
 * m) x Gbit/s (at least 40) + 2.72 x MTU, xon = xoff - MTU), and SET
 * wants @xoff[B] and @xon[B] 0. QUERY returns them as set, and in
 * @active_xoff, @active_xon those in force (0: a lossy buffer);
 * @occupancy: bytes held now. SET wants the last three 0. BAD_PARAM, changing
 * nothing, for sizes above SROCE_PFC_BUFFER_TOTAL in all, a buffer
 * number above 7, a lossless buffer too small for its thresholds, a
 * cable longer than SROCE_PFC_CABLE_LEN_MAX, a stall timeout out of
 * SROCE_PFC_STALL_TOUT_MIN..MAX, or @rsvd not zero. After creation:
 * buffer 0 of 256 KiB holds every priority, 7 m of cable, 100 ms.
 */
struct sroce_pfc_buffer_cfg {
	__le32 size[8];
	__le32 xoff[8];
	__le32 xon[8];
	__le32 occupancy[8];
	__le32 active_xoff[8];
	__le32 active_xon[8];
	__u8 prio2buffer[8];
	__le16 cable_len;
	__le16 stall_tout_ms;
	__u8 xoff_set;
	__u8 rsvd[3];
};

/*
 * Counters of one priority in the SROCE_CMD_QUERY_PFC_STATS response,
 * named as mlx5's ethtool counters rx_prioN_pause and so on.
 */
enum sroce_pfc_prio_stat {
	SROCE_PFC_RX_PAUSE,		/* 802.1Qbb frames naming it received */
	SROCE_PFC_RX_PAUSE_DURATION,	/* microseconds it was held paused */
	SROCE_PFC_RX_PAUSE_TRANSITION,	/* pauses that ended (XON, expiry) */
	SROCE_PFC_TX_PAUSE,		/* 802.1Qbb frames naming it sent */
	SROCE_PFC_TX_PAUSE_DURATION,	/* microseconds the partner was asked
					 * to hold it
					 */
	SROCE_PFC_RX_BUF_DISCARD,	/* packets its full buffer dropped */
	SROCE_PFC_NUM_PRIO_STATS,
};

/* Port counters in the SROCE_CMD_QUERY_PFC_STATS response */
enum sroce_pfc_port_stat {
	SROCE_PFC_RX_PAUSE_CTRL_PHY,	/* 802.3x PAUSE frames received */
	SROCE_PFC_TX_PAUSE_CTRL_PHY,	/* 802.3x PAUSE frames sent */
	SROCE_PFC_TX_PAUSE_STORM_WARNING, /* pausing long: warning */
	SROCE_PFC_TX_PAUSE_STORM_ERROR,	/* pausing too long: pause sending
					 * stopped
					 */
	SROCE_PFC_NUM_PORT_STATS,
};

/* SROCE_CMD_QUERY_PFC_STATS request: the priority asked (0..7) */
struct sroce_pfc_stats_req {
	__u8 prio;
	__u8 rsvd[7];
};

/*
 * SROCE_CMD_QUERY_PFC_STATS response: one priority's counters and the
 * port's; BAD_PARAM for a priority out of range. More counters would
 * come with an ABI minor and a longer response, after @rsvd.
 */
struct sroce_pfc_stats_resp {
	__le64 prio[SROCE_PFC_NUM_PRIO_STATS];	/* enum sroce_pfc_prio_stat */
	__le64 port[SROCE_PFC_NUM_PORT_STATS];	/* enum sroce_pfc_port_stat */
	__u8 paused;				/* transmit held now */
	__u8 rsvd[7];
};

/* SROCE_CMD_QUERY_STATS: no request payload. */
struct sroce_query_stats_resp {
	__le64 counter[SROCE_NUM_STATS];
};

/*
 * Shared receive queues: a receive ring (struct rxe_recv_wqe slots) that
 * several QPs consume. An armed limit raises SRQ_LIMIT once, when fewer
 * WQEs than the limit remain.
 */
struct sroce_create_srq_req {
	__le64 ring_addr;
	__le32 pdn;
	__le32 limit;
	__u8 log2_slots;
	__u8 log2_elem;
	__u8 max_sge;
	__u8 rsvd[5];
};

/* CREATE_SRQ response, QUERY_SRQ and DESTROY_SRQ request */
struct sroce_srq_num {
	__le32 srqn;
	__u8 rsvd[4];
};

/* SROCE_CMD_MODIFY_SRQ: arm the limit (0 disarms) */
struct sroce_modify_srq_req {
	__le32 srqn;
	__le32 limit;
};

/*
 * SROCE_CMD_RESIZE_SRQ: move to a new ring of the same slot size; the
 * WQEs not yet taken are copied to the start of the new ring. With
 * SROCE_RESIZE_SRQ_F_LIMIT, @limit replaces the armed limit in the same
 * step. Fails with BAD_PARAM, changing nothing, if the WQEs waiting or
 * the limit (the new one, else the armed one) do not fit.
 */
struct sroce_resize_srq_req {
	__le64 ring_addr;
	__le32 srqn;
	__le32 limit;
	__u8 log2_slots;
	__u8 flags;			/* SROCE_RESIZE_SRQ_F_* */
	__u8 rsvd[6];
};

#define SROCE_RESIZE_SRQ_F_LIMIT	0x1

/* SROCE_CMD_QUERY_SRQ response */
struct sroce_query_srq_resp {
	__le32 limit;
	__u8 rsvd[4];
};

/* --- Asynchronous events -------------------------------------------- */

enum sroce_event_type {
	SROCE_EVENT_PORT_CHANGE = 1,
	SROCE_EVENT_CQ_COMPLETION = 2,
	SROCE_EVENT_CQ_ERROR = 3,
	SROCE_EVENT_SRQ_LIMIT = 4,
	SROCE_EVENT_SQ_DRAINED = 5,
	SROCE_EVENT_PAGE_FAULT = 6,
	SROCE_EVENT_LAST_WQE = 7,
};

#define SROCE_EQE_PHASE			0x1

struct sroce_eq_entry {
	__le16 type;			/* enum sroce_event_type */
	__le16 flags;			/* SROCE_EQE_PHASE */
	__le32 rsvd;
	__u8 data[SROCE_EQ_ENTRY_SIZE - 8];
};

/* SROCE_EVENT_PORT_CHANGE: the port's state or MTU changed. */
struct sroce_event_port_change {
	__u8 port;
	__u8 state;			/* enum sroce_port_state */
	__u8 active_mtu;
	__u8 rsvd;
	__le32 netdev_mtu;
};

/* SROCE_EVENT_CQ_COMPLETION (armed CQ got a completion), CQ_ERROR (overrun) */
struct sroce_event_cq {
	__le32 cqn;
	__u8 rsvd[4];
};

/*
 * SROCE_EVENT_SQ_DRAINED: a QP in SQD has completed every WQE it had
 * started (raised when it was taken to SQD with en_sqd_async_notify).
 * SROCE_EVENT_LAST_WQE: a QP on an SRQ is in ERROR and will take no
 * more WQEs from the SRQ (the one a partly received message held has
 * been flushed); once each time it enters ERROR.
 */
struct sroce_event_qp {
	__le32 qpn;
	__u8 rsvd[4];
};

/*
 * SROCE_EVENT_PAGE_FAULT: an access to the on-demand paging region @key
 * found page @page absent (or read-only, for a write). One source per
 * region: a fault raised while the last one waits replaces it; the
 * accesses that wait are retried after every MAP or FAIL translation
 * write, and fault again if their page is still absent.
 */
#define SROCE_PAGE_FAULT_WRITE		0x80000000U
struct sroce_event_page_fault {
	__le32 key;
	__le32 page;			/* | SROCE_PAGE_FAULT_WRITE */
};

/* Largest event payload; the firmware keeps one per event source. */
#define SROCE_EVENT_DATA_MAX		8

/* Layouts are ABI: catch any accidental change at compile time. */
#define SROCE_ABI_ASSERT_SIZE(type, size) \
	static_assert(sizeof(struct type) == (size), #type " layout changed")
#define SROCE_ABI_ASSERT_FITS(type, room) \
	static_assert(sizeof(struct type) <= (room), #type " too large")

SROCE_ABI_ASSERT_SIZE(sroce_cmd_entry, SROCE_CMD_ENTRY_SIZE);
SROCE_ABI_ASSERT_SIZE(sroce_cmd_completion, SROCE_CMD_ENTRY_SIZE);
SROCE_ABI_ASSERT_SIZE(sroce_eq_entry, SROCE_EQ_ENTRY_SIZE);
SROCE_ABI_ASSERT_SIZE(sroce_query_device_resp, 144);
SROCE_ABI_ASSERT_SIZE(sroce_query_port_req, 8);
SROCE_ABI_ASSERT_SIZE(sroce_query_port_resp, 28);
SROCE_ABI_ASSERT_SIZE(sroce_add_gid_req, 32);
SROCE_ABI_ASSERT_SIZE(sroce_gid_index_req, 8);
SROCE_ABI_ASSERT_SIZE(sroce_query_gid_resp, 28);
SROCE_ABI_ASSERT_SIZE(sroce_alloc_pd_resp, 8);
SROCE_ABI_ASSERT_SIZE(sroce_dealloc_pd_req, 8);
SROCE_ABI_ASSERT_SIZE(sroce_event_port_change, SROCE_EVENT_DATA_MAX);
SROCE_ABI_ASSERT_SIZE(sroce_ring_hdr, 384);
SROCE_ABI_ASSERT_SIZE(sroce_create_cq_req, 16);
SROCE_ABI_ASSERT_SIZE(sroce_create_cq_resp, 8);
SROCE_ABI_ASSERT_SIZE(sroce_cq_req, 8);
SROCE_ABI_ASSERT_SIZE(sroce_resize_cq_req, 16);
SROCE_ABI_ASSERT_SIZE(sroce_event_cq, SROCE_EVENT_DATA_MAX);
SROCE_ABI_ASSERT_SIZE(sroce_cqe_ext, (1 << SROCE_CQE_LOG2_SIZE) -
		      SROCE_CQE_EXT_OFFSET);
SROCE_ABI_ASSERT_SIZE(sroce_create_qp_req, 56);
SROCE_ABI_ASSERT_SIZE(sroce_create_qp_resp, 8);
SROCE_ABI_ASSERT_SIZE(sroce_av, 36);
SROCE_ABI_ASSERT_SIZE(sroce_qp_attr, 72);
SROCE_ABI_ASSERT_SIZE(sroce_modify_qp_req, 80);
SROCE_ABI_ASSERT_SIZE(sroce_qp_req, 8);
SROCE_ABI_ASSERT_SIZE(sroce_mcast_req, 24);
SROCE_ABI_ASSERT_SIZE(sroce_reg_mr_req, 48);
SROCE_ABI_ASSERT_SIZE(sroce_reg_mr_resp, 8);
SROCE_ABI_ASSERT_SIZE(sroce_dereg_mr_req, 8);
SROCE_ABI_ASSERT_SIZE(sroce_fast_reg_wr, 32);
SROCE_ABI_ASSERT_SIZE(sroce_alloc_mw_req, 8);
SROCE_ABI_ASSERT_SIZE(sroce_alloc_mw_resp, 8);
SROCE_ABI_ASSERT_SIZE(sroce_dealloc_mw_req, 8);
SROCE_ABI_ASSERT_SIZE(sroce_create_ah_req, 44);
SROCE_ABI_ASSERT_SIZE(sroce_ah_num, 8);
SROCE_ABI_ASSERT_FITS(sroce_query_stats_resp, SROCE_CMD_PAYLOAD_MAX);
SROCE_ABI_ASSERT_SIZE(sroce_create_srq_req, 24);
SROCE_ABI_ASSERT_SIZE(sroce_srq_num, SROCE_EVENT_DATA_MAX);
SROCE_ABI_ASSERT_SIZE(sroce_event_page_fault, SROCE_EVENT_DATA_MAX);
SROCE_ABI_ASSERT_SIZE(sroce_odp_xlt, 24);
SROCE_ABI_ASSERT_SIZE(sroce_modify_srq_req, 8);
SROCE_ABI_ASSERT_SIZE(sroce_query_srq_resp, 8);
SROCE_ABI_ASSERT_SIZE(sroce_resize_srq_req, 24);
SROCE_ABI_ASSERT_SIZE(sroce_query_cc_params_resp, 4 * SROCE_NUM_CC_PARAMS);
SROCE_ABI_ASSERT_FITS(sroce_query_cc_params_resp, SROCE_CMD_PAYLOAD_MAX);
SROCE_ABI_ASSERT_SIZE(sroce_set_cc_param_req, 8);
SROCE_ABI_ASSERT_SIZE(sroce_qos_cfg, 68);
SROCE_ABI_ASSERT_SIZE(sroce_qp_cc_resp, 32);
SROCE_ABI_ASSERT_SIZE(sroce_pfc_cfg, 8);
SROCE_ABI_ASSERT_SIZE(sroce_pfc_stats_req, 8);
SROCE_ABI_ASSERT_SIZE(sroce_pfc_stats_resp, 88);
SROCE_ABI_ASSERT_SIZE(sroce_pfc_buffer_cfg, 208);
static_assert(offsetof(struct sroce_ring_hdr, producer_index) == 128,
	      "ring producer index moved");
static_assert(offsetof(struct sroce_ring_hdr, consumer_index) == 256,
	      "ring consumer index moved");
SROCE_ABI_ASSERT_FITS(sroce_query_device_resp, SROCE_CMD_PAYLOAD_MAX);
SROCE_ABI_ASSERT_FITS(sroce_event_port_change, SROCE_EQ_ENTRY_SIZE - 8);

#endif /* SROCE_FW_ABI_H */
