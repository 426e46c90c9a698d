/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Private state of the sroce software NIC ("firmware"). Nothing in this
 * header is visible to the driver side, which talks to the firmware only
 * through include/sroce/fw_bus.h and the layouts of fw_abi.h.
 */
#ifndef SROCE_FW_H
#define SROCE_FW_H

#include <linux/hrtimer.h>
#include <linux/if_vlan.h>
#include <linux/interrupt.h>
#include <linux/list.h>
#include <linux/llist.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/rdma_user_rxe.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/skbuff.h>
#include <linux/xarray.h>

#include "sroce/fw_bus.h"
#include "sroce_compat.h"
#include "lib/sroce_lib.h"
#include "lib/psn.h"
#include "lib/ring.h"
#include "lib/qp_state.h"
#include "lib/roce_hdr.h"
#include "lib/dcqcn.h"
#include "lib/qos.h"
#include "lib/pfc.h"

#define SROCE_FW_VERSION_MAJOR		0
#define SROCE_FW_VERSION_MINOR		1
#define SROCE_FW_VERSION_PATCH		0
#define SROCE_FW_VENDOR_ID		0xffffff
#define SROCE_FW_VENDOR_PART_ID		0x5352	/* "SR" */
#define SROCE_FW_MAX_PD			0xffff	/* numbers 1..0xffff */

struct sroce_fw_port {
	spinlock_t lock; /* protects the fields below; notifier writes them */
	u8 state;
	u8 phys_state;
	u8 active_mtu;
	u32 netdev_mtu;
	u32 speed_mbps;
	u8 mac[ETH_ALEN];
};

struct sroce_fw_gid_ref;

/**
 * struct sroce_fw_eq - one of the function's event queues
 * @lock: protects @tail, @backlog, writes to @ring and the fields of the
 *	  struct sroce_fw_event_src that post to this queue, and (of the
 *	  async queue) the function's stopped flag; taken with interrupts
 *	  off, from any context (netdev notifier and commands in process
 *	  context, completions in softirq, the doorbell from wherever the
 *	  driver rings it); innermost lock
 * @ring: the driver's ring, 1 << @log2_depth entries
 * @log2_depth: its size
 * @tail: next slot to write
 * @head_db: doorbell, last consumer position written by the driver
 * @backlog: event sources whose event found the ring full, oldest first;
 *	     moved into the ring by the doorbell
 */
struct sroce_fw_eq {
	spinlock_t lock; /* see above; irqsave, any context, innermost */
	struct sroce_eq_entry *ring;
	unsigned int log2_depth;
	u32 tail;
	u32 head_db;
	struct list_head backlog;
};

/**
 * struct sroce_fw_event_src - one source of asynchronous events
 * @node: on its event queue's backlog while @queued
 * @type: enum sroce_event_type of the events it raises; CQ_COMPLETION
 *	  events go to the completion event queue, all others to the
 *	  async event queue
 * @queued: an event of this source found the event ring full and waits
 *	    on the backlog; a further event only updates @data
 * @dead: its object is being destroyed: it raises nothing any more
 * @data: payload of the waiting event (the latest one)
 *
 * Every field after @type is protected by its event queue's lock. A
 * source has at most one event waiting, so the backlog is bounded by the
 * number of objects and needs no allocation.
 */
struct sroce_fw_event_src {
	struct list_head node;
	u16 type;
	bool queued;
	bool dead;
	u8 data[SROCE_EVENT_DATA_MAX];
};

struct sroce_fw_gid {
	bool valid;
	u8 type;
	u16 vlan_id;
	u8 gid[SROCE_GID_LEN];
	u8 smac[ETH_ALEN];
	struct sroce_fw_gid_ref *ref; /* in the address hash while valid */
};

/**
 * struct sroce_fw_cq - completion queue context
 * @cqn: CQ number
 * @lock: protects the fields below it and writes to the ring
 * @ring: the ring, set by CREATE_CQ or RESIZE_CQ
 * @mask: number of slots minus one (never read back from the ring)
 * @prod: producer index, the firmware's own
 * @armed: 0 or the SROCE_CQ_ARM_* level of the pending notification
 * @comp_vector: completion vector requested at creation
 * @users: queue pairs completing into this CQ
 * @comp_ev: source of its CQ_COMPLETION events
 * @err_ev: source of its CQ_ERROR events
 * @rcu: deferred free; producers look CQs up under RCU
 */
struct sroce_fw_cq {
	u32 cqn;
	spinlock_t lock; /* protects ring, mask, prod, armed */
	struct sroce_ring_hdr *ring;
	u32 mask;
	u32 prod;
	u8 armed;
	u32 comp_vector;
	atomic_t users;
	struct sroce_fw_event_src comp_ev;
	struct sroce_fw_event_src err_ev;
	struct rcu_head rcu;
};

/*
 * RC/UC packets a QP may have in flight before it waits for an ACK, and
 * how often it asks for one within a long message. Bounded so that a
 * burst does not overrun the receiving CPU's backlog (veth, loopback).
 */
#define SROCE_FW_SEND_WINDOW		64
#define SROCE_FW_ACKREQ_EVERY		16

/*
 * READ responses the completer can place ahead of the one it waits for:
 * a ring of bits indexed by PSN, at least the send window. It divides the
 * PSN space, so that the index stays right as the 24-bit PSN wraps.
 */
#define SROCE_FW_RD_AHEAD		SROCE_FW_SEND_WINDOW
static_assert((SROCE_PSN_MASK + 1) % SROCE_FW_RD_AHEAD == 0);
/* The last packet a full window allows asks for an ACK. */
static_assert(SROCE_FW_SEND_WINDOW % SROCE_FW_ACKREQ_EVERY == 0);

/*
 * Packets one message may take: half the PSN space less one, so that PSN
 * arithmetic (differences within +-2^23) stays unambiguous across it. At
 * path MTU 256 this caps a message at 1 GiB; from 512 up, the IBA limit of
 * SROCE_FW_MAX_MSG_SIZE applies.
 */
#define SROCE_FW_MAX_MSG_PKTS		(BIT(22) - 1)

/* sq_err_index when no WQE waits to complete in error. */
#define SROCE_FW_NO_SQ_ERR		U32_MAX

/* Largest WQE slot, log2: a send WQE with SROCE_FW_MAX_INLINE fits. */
#define SROCE_FW_MAX_WQE_LOG2		10

/**
 * struct sroce_fw_sq_track - what the requester remembers of a sent WQE
 * @wr_id: for its completion
 * @first_psn: PSN of its first packet
 * @last_psn: PSN of its last packet
 * @length: message length
 * @opcode: IB_WR_* opcode
 * @signaled: it completes with a CQE on success
 * @local: a local operation (registration, invalidation, bind), done when
 *	   it was executed; it completes as soon as everything before it has
 * @started: its first packet was sent (cleared when the slot is given
 *	     back): a partly sent WQE is finished by SQD
 * @asked_end: RC READ: the PSN after the last response asked for so far;
 *	       asking again after a loss goes no further (a responder answers
 *	       a repeat only from what it was asked before)
 */
struct sroce_fw_sq_track {
	u64 wr_id;
	u32 first_psn;
	u32 last_psn;
	u32 length;
	u8 opcode;
	bool signaled;
	bool local;
	bool started;
	u32 asked_end;
};

/**
 * struct sroce_fw_srq - shared receive queue context
 * @srqn: SRQ number
 * @pdn: protection domain
 * @lock: protects @cons, @limit, @ring, @mask and reads of the ring
 * @ring: receive ring (RESIZE_SRQ moves it)
 * @mask: slots minus one
 * @log2_elem: log2 of the slot size
 * @max_sge: SGEs a WQE may carry
 * @cons: consumer index
 * @limit: armed limit, 0 when not armed
 * @users: QPs receiving through this SRQ
 * @limit_ev: source of its SRQ_LIMIT events
 * @rcu: deferred free
 */
struct sroce_fw_srq {
	u32 srqn;
	u32 pdn;
	/*
	 * Protects cons, limit, ring, mask and reads of the ring; taken with
	 * softirqs off by the receive path (softirq) and by the SRQ commands
	 * (process context).
	 */
	spinlock_t lock;
	struct sroce_ring_hdr *ring;
	u32 mask;
	u8 log2_elem;
	u8 max_sge;
	u32 cons;
	u32 limit;
	atomic_t users;
	struct sroce_fw_event_src limit_ev;
	struct rcu_head rcu;
};

/* Transmit priorities of the port: the 802.1p priorities. */
#define SROCE_FW_NUM_PRIO	SROCE_NUM_PRIO

/**
 * struct sroce_fw_pause - the link partner's pause of one priority
 *	(fw_pfc.c), under the scheduler's lock
 * @timer: ends the pause when its time is up (softirq)
 * @until_ns: while paused, when the time asked runs out
 * @since_ns: while paused, when the pause began
 * @fw: the function
 * @prio: the priority
 */
struct sroce_fw_pause {
	struct hrtimer timer;
	u64 until_ns;
	u64 since_ns;
	struct sroce_fw_dev *fw;
	u8 prio;
};

/**
 * struct sroce_fw_rxbuf - the port's receive buffers (fw_pfc.c)
 * @lock: protects every field but @drain_mbps, @drain_stop and @held,
 *	  which it serializes the writers of; taken with BHs off by the
 *	  receive path and the drain timer (softirq) and the commands and
 *	  the drain settings (process)
 * @queue: per priority, the packets held, in arrival order
 * @buf: the buffers, by number: size, thresholds, occupancy, pause asked
 * @cfg: the settings as SET_PFC_BUFFER gave them (explicit thresholds
 *	 or 0)
 * @storm: per buffer, the watchdog stopped its pause: no pause is asked
 *	   until it drains below xon
 * @warned: per buffer, the storm warning of this pause was counted
 * @asked_since_ns: per buffer, while a pause is asked, since when
 * @tx_since_ns: per priority, while the partner is asked to pause it,
 *		 since when (tx_prioN_pause_duration)
 * @asking: priorities the partner is asked to pause now
 * @next_ns: when the drain may take its next packet
 * @rr_prio: the queue the drain serves first next
 * @armed: @timer is set or its callback runs and will decide
 * @timer: drains at the set rate and renews the pauses asked (softirq)
 * @ecn_kmin: emulated switch port in front of the buffers: ECT packets
 *	      arriving above this occupancy may be marked CE
 * @ecn_kmax: ... all of them from this one on; 0: no marking
 * @ecn_pmax: the marking probability just below @ecn_kmax, percent
 * @drain_mbps: the host side's rate, 0: unlimited (no buffering)
 * @drain_stop: the host side takes nothing
 * @held: packets queued or being delivered from the queues; with
 *	  @drain_mbps 0 and none held, received packets skip the buffers
 *	  (read without the lock)
 */
struct sroce_fw_rxbuf {
	spinlock_t lock; /* queues, buffers, drain; BHs off: rx, drain timer, commands */
	struct sk_buff_head queue[SROCE_PFC_NUM_PRIO];
	struct sroce_pfc_buf buf[SROCE_PFC_NUM_BUF];
	struct sroce_pfc_buffer_cfg cfg;
	bool storm[SROCE_PFC_NUM_BUF];
	bool warned[SROCE_PFC_NUM_BUF];
	u64 asked_since_ns[SROCE_PFC_NUM_BUF];
	u64 tx_since_ns[SROCE_PFC_NUM_PRIO];
	u8 asking;
	u64 next_ns;
	u8 rr_prio;
	bool armed;
	struct hrtimer timer;
	u32 ecn_kmin;
	u32 ecn_kmax;
	u32 ecn_pmax;
	u32 drain_mbps;
	bool drain_stop;
	u32 held;
};

/* The scheduler's list after the priorities': QPs in ERROR to flush. */
#define SROCE_FW_SCHED_FLUSH	SROCE_FW_NUM_PRIO
#define SROCE_FW_SCHED_LISTS	(SROCE_FW_SCHED_FLUSH + 1)

/**
 * struct sroce_fw_sched - the port's transmit scheduler (fw_sched.c)
 * @lock: protects @ready, @ready_mask, @paused_mask, @pause, @rr_list,
 *	  @running and the sched_* fields of QPs; taken in any context
 *	  (irqsave), innermost: nothing is locked under it (the pause timers
 *	  are started under it: hrtimer bases lock inside)
 * @ready: per priority, the QPs with something to send; then the flush
 *	   lane (SROCE_FW_SCHED_FLUSH): QPs in ERROR, served whatever is
 *	   paused, since a flush sends nothing; all nine round robin
 * @ready_mask: bit N set while @ready[N] is not empty
 * @paused_mask: bit N set while the link partner pauses priority N: its
 *		 list is not served and its QPs take no direct turn
 * @pause: per priority, the pause in force
 * @rr_list: the list (priority or flush lane) served first at the next
 *	     pick
 * @running: some context is serving the lists
 * @work: serves the lists when the context that found them had to hand over
 */
struct sroce_fw_sched {
	spinlock_t lock; /* lists, masks, pauses, running, QPs' sched_*: any ctx */
	struct list_head ready[SROCE_FW_SCHED_LISTS];
	u16 ready_mask;
	u8 paused_mask;
	struct sroce_fw_pause pause[SROCE_FW_NUM_PRIO];
	u8 rr_list;
	bool running;
	struct work_struct work;
};

/**
 * struct sroce_fw_rd_res - an RC responder resource: one READ or atomic
 * request, whose responses the transmit stage sends from here, and sends
 * again from here when the request is repeated
 * @first_psn: PSN of the request, which the first response carries
 * @last_psn: PSN of the last response
 * @next_psn: next response to send; last_psn + 1 once all are sent
 * @answered: every response was sent once; a repeat being answered
 *	      again does not keep the resource from being reused
 * @opcode: SROCE_OP_READ_REQ, SROCE_OP_CMP_SWAP, SROCE_OP_FETCH_ADD or
 *	    SROCE_OP_FLUSH (answered like a READ of no bytes)
 * @msn: the MSN the responses carry
 * @rkey: READ: the key checked when the request was accepted
 * @va: READ: first byte
 * @len: READ: bytes, at most SROCE_FW_MAX_MSG_SIZE
 * @orig: atomic: the value found before the operation
 */
struct sroce_fw_rd_res {
	u32 first_psn;
	u32 last_psn;
	u32 next_psn;
	bool answered;
	u8 opcode;
	u32 msn;
	u32 rkey;
	u64 va;
	u32 len;
	u64 orig;
};

/**
 * struct sroce_fw_resp_ack - the acknowledgment or NAK the responder owes
 * @pending: one is owed
 * @psn: the PSN it names (for a NAK, the PSN expected or refused)
 * @syndrome: AETH syndrome
 * @msn: AETH MSN
 *
 * A later one replaces an earlier one (ACKs are cumulative, a NAK covers
 * what is before it), which coalesces acknowledgments for free; it leaves
 * only after every response to a request before @psn.
 */
struct sroce_fw_resp_ack {
	bool pending;
	u32 psn;
	u8 syndrome;
	u32 msn;
};

/**
 * struct sroce_fw_path - where and how a packet is sent
 * @sgid: source address (IPv4-mapped for IPv4)
 * @dgid: destination address
 * @dmac: next-hop MAC address (RoCE v1 frames are sent to it)
 * @vlan_id: VLAN of the source GID, SROCE_VLAN_NONE when untagged
 * @net_type: enum sroce_net_type
 * @traffic_class: IP TOS / traffic class byte (DSCP and ECN)
 * @hop_limit: TTL / hop limit
 * @flow_label: IPv6 flow label
 * @sl: service level: the 802.1p PCP the packet is tagged with
 * @prio: the port's priority of the packet (enum sroce_qos_trust: the SL
 *	  or the DSCP's), which ECN, the reaction point and the transmit
 *	  lists go by
 * @sport: UDP source port
 */
struct sroce_fw_path {
	u8 sgid[SROCE_GID_LEN];
	u8 dgid[SROCE_GID_LEN];
	u8 dmac[ETH_ALEN];
	u16 vlan_id;
	u8 net_type;
	u8 traffic_class;
	u8 hop_limit;
	u32 flow_label;
	u8 sl;
	u8 prio;
	u16 sport;
};

/*
 * What a command handler returns when the command completes later, after
 * an RCU grace period (sroce_fw_defer()). Never written to a completion.
 */
#define SROCE_FW_DEFERRED	0xffff
static_assert(SROCE_FW_DEFERRED >= SROCE_FW_NUM_STATUS);

/**
 * struct sroce_fw_deferred - the end of a command that waits for a grace
 * period: DESTROY_QP, DEREG_MR and DEALLOC_MW make their object unreachable
 * at once and free it once no RCU reader can hold it, without holding up
 * the commands behind them
 * @node: entry in the function's deferred_waiting list, then in its
 *	  deferred_ready list (and in detach's list of the QPs it frees)
 * @finish: frees the object, in the command processor; returns the
 *	    command's status
 * @cmd_id: the command's id, for its completion (which has no payload)
 */
struct sroce_fw_deferred {
	struct llist_node node;
	u16 (*finish)(struct sroce_fw_dev *fw,
		      struct sroce_fw_deferred *d);
	u16 cmd_id;
};

/**
 * struct sroce_fw_qp - queue pair context
 * @qpn: QP number
 * @type: SROCE_QPT_*
 * @flags: SROCE_QP_F_*
 * @pdn: protection domain
 * @scq: send completion queue (holds a user count)
 * @rcq: receive completion queue (holds a user count)
 * @srq: shared receive queue (holds a user count), or NULL: own @rq
 * @lock: protects @attr and the consumer indices
 * @attr: state and attributes, as QUERY_QP reports them
 * @sq: send ring
 * @sq_mask: send slots minus one
 * @sq_log2_elem: log2 of the send slot size
 * @sq_cons: send consumer index
 * @max_send_sge: SGEs a send WQE may carry
 * @max_inline: inline bytes a send WQE may carry
 * @rq: receive ring
 * @rq_mask: receive slots minus one
 * @rq_log2_elem: log2 of the receive slot size
 * @rq_cons: receive consumer index
 * @max_recv_sge: SGEs a receive WQE may carry
 * @fw: the function, for timers
 * @prio: transmit priority (the port's priority of a connected QP's
 *	  path, 0 for datagram QPs); read when the QP is queued
 * @sched_node: on one of the port scheduler's ready lists
 * @sched_prio: the list it is on (a priority or the flush lane)
 * @sched_queued: on that list now
 * @sched_dead: being destroyed; never queued again
 * @odp_node: on the function's odp_waiters while it waits for a page of
 *	      an on-demand paging region (under odp_wait_lock)
 * @odp_rewind: the completer dropped the response at @odp_rewind_psn of
 *		the WQE at @odp_rewind_cons for want of a page: no ACK
 *		rewinds meanwhile, and the next translation write asks
 *		again from there if that is still where the QP stands
 * @odp_rewind_psn: see @odp_rewind
 * @odp_rewind_cons: see @odp_rewind
 * @next_psn: PSN of the next packet sent
 * @sport: UDP source port of every packet of this QP
 * @path: connected QPs: the path of @attr.av, resolved against the GID
 *	  table at generation @path_gen; valid while @path_valid
 * @path_gen: the function's @gid_gen when @path was resolved
 * @path_valid: @path may be used (cleared when @attr.av changes)
 * @swqe: private copy of the send WQE being processed
 * @rwqe: private copy of the receive WQE being consumed
 * @sq_next: RC/UC: first send WQE not completely sent
 * @sq_next_off: RC/UC: bytes of it already sent
 * @sq_high: RC/UC: first send WQE never processed; after a go-back-N
 *	     rewind, sq_next is behind it and local operations already
 *	     executed are not executed again
 * @track: RC/UC: per send slot, what completion needs
 * @rnr_timer: RC: resends after an RNR NAK's delay
 * @rnr_left: RC: RNR retries left (7: unlimited)
 * @retry_timer: RC: the transport timer, resends when no ACK comes
 * @retry_left: RC: transport retries left
 * @retry_restart: RC: the next send starts the timeout afresh although
 *		   WQEs sent before are unacknowledged: progress or an RNR
 *		   NAK came since the last rewind
 * @retry_deadline: RC: when (jiffies) the transport timer expires, later
 *		    than the timer itself after ACKs made progress
 * @retry_paused_ns: RC: the QP's priority's paused time (rx pause
 *		     duration, ns) when @retry_deadline was last set or moved:
 *		     what was paused since moves the deadline on
 * @retry_paused_prio: RC: the priority @retry_paused_ns is of
 * @una_psn: RC: oldest PSN not acknowledged
 * @comp_psn: RC: next READ response PSN the completer expects
 * @rd_atomic_out: RC: READ and atomic WQEs sent, not yet answered
 * @rd_ahead: RC: READ responses placed ahead of @comp_psn, of the READ
 *	      at sq_cons: bit PSN % SROCE_FW_RD_AHEAD, for PSNs after
 *	      @comp_psn and less than SROCE_FW_RD_AHEAD beyond it (so the
 *	      bit of @comp_psn stays clear). Kept by a rewind to @comp_psn,
 *	      cleared by any other.
 * @rd_gap_psn: RC: the @comp_psn a lost READ response was last asked for
 *		again from (valid while @rd_gap_asked)
 * @rd_gap_asked: RC: see @rd_gap_psn; cleared when @comp_psn moves on
 * @rnr_wait: RC: an RNR NAK's delay is running; nothing is sent until then
 * @sq_err_index: RC: send slot of a WQE that failed locally while WQEs
 *		  before it were still unacknowledged; SROCE_FW_NO_SQ_ERR if
 *		  none. Sending stops there; it completes with @sq_err_status
 *		  when everything before it has completed.
 * @sq_err_status: RC: IB_WC_* status of that WQE
 * @sq_drain_index: SQD: the first WQE not started when the QP entered SQD;
 *		    it starts none from there, and is drained once every WQE
 *		    before it has completed (attr.sq_draining cleared then)
 * @drained_ev: raises SROCE_EVENT_SQ_DRAINED
 * @last_wqe_ev: raises SROCE_EVENT_LAST_WQE (QPs on an SRQ)
 * @last_wqe_raised: SROCE_EVENT_LAST_WQE was raised since the QP last
 *		     entered ERROR; cleared by RESET
 * @res: RC responder: ring of SROCE_FW_MAX_RD_ATOMIC (a power of two)
 *	 READ/atomic resources; resource number N is in slot N masked
 * @res_cap: resources held at most: max_dest_rd_atomic, at least 1
 * @res_held: resources held now (the newest ones), at most @res_cap
 * @res_tail: free-running number of the next resource
 * @res_tx: free-running number of the oldest resource that may have
 *	    responses left to send; res_tail - res_tx <= res_held
 * @resp_ack: RC responder: the acknowledgment owed
 * @epsn: responder: expected PSN
 * @msn: responder: messages completed
 * @nak_sent: responder: a sequence NAK is out, stay quiet until repaired
 * @in_msg: responder: inside a multi-packet SEND or WRITE
 * @rwqe_valid: responder: @rwqe holds the receive WQE being filled
 * @msg_off: responder: bytes of the current message placed
 * @write_va: responder: RDMA WRITE target address
 * @write_rkey: responder: RDMA WRITE key
 * @write_len: responder: RDMA WRITE length
 * @rp: DCQCN reaction point (lib/dcqcn.c); while @rp.active every packet
 *	of the QP but its ACKs and NAKs is paced at @rp.rc_kbps
 * @pace_next_ns: while @rp.active, when (ktime_get_ns()) the next packet
 *		  may leave; at most SROCE_FW_PACE_BURST's worth behind now
 * @pace_timer: gives the QP its turn again when @pace_next_ns comes
 * @rate_win_start: jiffies at which the current rate window began
 * @rate_win_bytes: bytes sent in the current rate window
 * @rate_kbps: send rate measured over the last complete window, the rate
 *	       a first CNP starts the limiter at (rp_rate_to_set_on_first_cnp
 *	       0: "the current rate")
 * @np_last_cnp_ns: notification point: when this QP last sent a CNP
 * @np_cnp_sent: notification point: it has sent one
 * @end: DESTROY_QP's end, after the grace period that lets the packet path,
 *	  doorbells and the scheduler (which find QPs under RCU) let go
 *
 * The fields from @rp to @np_cnp_sent are under @lock, as the rest.
 */
struct sroce_fw_qp {
	u32 qpn;
	u8 type;
	u8 flags;
	u32 pdn;
	struct sroce_fw_cq *scq;
	struct sroce_fw_cq *rcq;
	struct sroce_fw_srq *srq;
	spinlock_t lock; /* protects attr, sq_cons, rq_cons */
	struct sroce_qp_attr attr;
	struct sroce_ring_hdr *sq;
	u32 sq_mask;
	u8 sq_log2_elem;
	u32 sq_cons;
	u8 max_send_sge;
	u32 max_inline;
	struct sroce_ring_hdr *rq;
	u32 rq_mask;
	u8 rq_log2_elem;
	u32 rq_cons;
	u8 max_recv_sge;
	struct sroce_fw_dev *fw;
	u8 prio;
	struct list_head sched_node;
	u8 sched_prio;
	bool sched_queued;
	bool sched_dead;
	struct list_head odp_node;
	bool odp_rewind;
	u32 odp_rewind_psn;
	u32 odp_rewind_cons;
	u32 next_psn;
	u16 sport;
	struct sroce_fw_path path;
	u32 path_gen;
	bool path_valid;
	struct rxe_send_wqe *swqe;
	struct rxe_recv_wqe *rwqe;
	u32 sq_next;
	u32 sq_next_off;
	u32 sq_high;
	struct sroce_fw_sq_track *track;
	struct timer_list rnr_timer;
	u8 rnr_left;
	struct timer_list retry_timer;
	u8 retry_left;
	bool retry_restart;
	unsigned long retry_deadline;
	u64 retry_paused_ns;
	u8 retry_paused_prio;
	u32 una_psn;
	u32 comp_psn;
	u32 rd_atomic_out;
	DECLARE_BITMAP(rd_ahead, SROCE_FW_RD_AHEAD);
	u32 rd_gap_psn;
	bool rd_gap_asked;
	bool rnr_wait;
	u32 sq_err_index;
	u32 sq_err_status;
	u32 sq_drain_index;
	struct sroce_fw_event_src drained_ev;
	struct sroce_fw_event_src last_wqe_ev;
	bool last_wqe_raised;
	struct sroce_fw_rd_res *res;
	u32 res_cap;
	u32 res_held;
	u32 res_tail;
	u32 res_tx;
	struct sroce_fw_resp_ack resp_ack;
	u32 epsn;
	u32 msn;
	bool nak_sent;
	bool in_msg;
	bool rwqe_valid;
	u64 msg_off;
	u64 write_va;
	u32 write_rkey;
	u32 write_len;
	struct sroce_dcqcn_rp rp;
	u64 pace_next_ns;
	struct hrtimer pace_timer;
	unsigned long rate_win_start;
	u64 rate_win_bytes;
	u64 rate_kbps;
	u64 np_last_cnp_ns;
	bool np_cnp_sent;
	struct sroce_fw_deferred end;
};

/*
 * RDMA FLUSH and ATOMIC WRITE (IBA 1.5): the uverbs work request and
 * completion opcodes librxe uses; kernel 6.1's headers do not name them.
 */
#define SROCE_FW_WR_RDMA_FLUSH		14
#define SROCE_FW_WC_RDMA_FLUSH		8
#define SROCE_FW_WR_ATOMIC_WRITE	15
#define SROCE_FW_WC_ATOMIC_WRITE	9

/*
 * Work requests answered by the responder in kind rather than by an ACK
 * (READ responses, ATOMIC ACKNOWLEDGE, a FLUSH's empty READ response):
 * each holds one of the responder's max_rd_atomic resources, completes
 * only with its response, and a fence waits for it.
 */
static inline bool sroce_fw_wr_is_rd_atomic(u32 wr_opcode)
{
	return wr_opcode == IB_WR_RDMA_READ ||
	       wr_opcode == IB_WR_ATOMIC_CMP_AND_SWP ||
	       wr_opcode == IB_WR_ATOMIC_FETCH_AND_ADD ||
	       wr_opcode == SROCE_FW_WR_RDMA_FLUSH;
}

/* Memory windows, in the region table next to enum sroce_mr_type. */
#define SROCE_FW_MW_TYPE1	0x11
#define SROCE_FW_MW_TYPE2	0x12

/* Fast-registration page size limits (log2 bytes). */
#define SROCE_FW_FAST_REG_MIN_SHIFT	12
#define SROCE_FW_FAST_REG_MAX_SHIFT	30

/**
 * struct sroce_fw_mr - one state of a memory region or window: what an
 * access is checked against and copied through
 * @key: the key this state answers to: index << 8 | generation
 * @type: enum sroce_mr_type, or SROCE_FW_MW_TYPE1/2 for a window
 * @page_shift: log2 of the page size of @pages or @fast_pages
 * @pdn: protection domain
 * @access: SROCE_ACCESS_* rights
 * @iova: first address of the region or window
 * @length: size in bytes
 * @page_offset: offset of @iova in its first page
 * @npages: entries in @pages or in @fast_pages
 * @pages: user regions: translation table, pinned and owned by the driver
 * @mw_mr_key: windows: key of the region the window is bound to
 * @mw_qpn: type 2 windows: the only QP that may use the window
 * @odp: on-demand paging regions: the page table the firmware keeps
 * @rcu: deferred free of a replaced state
 * @fast_pages: fast registration: the pages (kernel virtual addresses),
 *		copied from the driver's list by the registration WQE
 *
 * Immutable once published in struct sroce_fw_mkey.cur, so the range a
 * lookup checked and the translation a copy uses are always the same. A
 * user or DMA region has one state for its whole life, published by
 * REG_MR. A fast-registration region gets a new state from each
 * registration WQE and a window from each bind; invalidation publishes
 * NULL. Those writers hold the function's mr_lock, publish with
 * rcu_assign_pointer() and free the state they replace with kfree_rcu().
 * Readers (sroce_fw_mr_lookup(), sroce_fw_region_get()) take no lock: they
 * hold rcu_read_lock() from the lookup until the last copy through the
 * state it returned. Freeing the key (DEREG_MR, DEALLOC_MW) waits for a
 * grace period before the driver may release the pages.
 */
struct sroce_fw_mr {
	u32 key;
	u8 type;
	u8 page_shift;
	u32 pdn;
	u32 access;
	u64 iova;
	u64 length;
	u32 page_offset;
	u32 npages;
	struct page **pages;
	u32 mw_mr_key;
	u32 mw_qpn;
	struct sroce_fw_odp *odp;
	struct rcu_head rcu;
	u64 fast_pages[];
};

/**
 * struct sroce_fw_odp - the page table of an on-demand paging region
 * @lock: protects @entries and @last_fault; taken with BHs off by every
 *	  copy through the region (transmit path, receive softirq, under
 *	  the QP's lock) and by the driver's translation writes (process
 *	  context, from MMU notifiers too); before the event and atomic
 *	  locks
 * @npages: entries in @entries
 * @last_fault: the last fault raised (page << 1 | write), not raised
 *		again until a translation write
 * @fault_ev: source of the region's PAGE_FAULT events
 * @entries: per page: a struct page pointer | SROCE_ODP_XLT_WRITABLE,
 *	     absent (0) or failed (fw_odp.c)
 */
struct sroce_fw_odp {
	spinlock_t lock; /* entries, last_fault; BHs off; any context */
	u32 npages;
	u64 last_fault;
	struct sroce_fw_event_src fault_ev;
	unsigned long *entries;
};

/**
 * struct sroce_fw_mkey - an entry of the region table: a memory region or
 * window, by the index in bits 31..8 of its keys
 * @type: enum sroce_mr_type, or SROCE_FW_MW_TYPE1/2
 * @pdn: protection domain
 * @key: current key, including while invalid (what invalidation and the
 *	 next registration or bind check)
 * @max_pages: fast registration: room in @fast_list
 * @fast_list: fast registration: the driver's page list
 * @cur: the current state, NULL while invalid or unbound
 * @end: DEREG_MR's or DEALLOC_MW's end, after the grace period that lets
 *	  readers of @cur let go
 *
 * @type, @pdn, @max_pages and @fast_list never change. @key and @cur of
 * fast-registration regions and windows change in the datapath under the
 * function's mr_lock; those of user and DMA regions never change after
 * REG_MR. Readers use only @cur (see struct sroce_fw_mr).
 */
struct sroce_fw_mkey {
	u8 type;
	u32 pdn;
	u32 key;
	u32 max_pages;
	const __le64 *fast_list;
	struct sroce_fw_mr __rcu *cur;
	struct sroce_fw_deferred end;
};

/**
 * struct sroce_fw_ah - address handle context
 * @pdn: protection domain
 * @av: where packets go
 * @rcu: deferred free; the send path looks handles up under RCU
 */
struct sroce_fw_ah {
	u32 pdn;
	struct sroce_av av;
	struct rcu_head rcu;
};

/**
 * struct sroce_fw_reply - an acknowledgment taken from the responder's
 * debts during a turn, built and sent once the QP's lock is released
 * @f: its header fields
 * @path: where it goes
 * @pending: there is one
 */
struct sroce_fw_reply {
	struct sroce_roce_fields f;
	struct sroce_fw_path path;
	bool pending;
};

/**
 * struct sroce_fw_pkt - a received RoCE packet being handled
 * @skb: the packet (network header set)
 * @hdr: first byte of the BTH
 * @len: bytes from @hdr through the ICRC
 * @info: what sroce_roce_parse() found
 * @dgid: the destination address
 * @net_type: enum sroce_net_type it arrived over
 * @vlan_id: VLAN of the destination GID entry (internally looped packets
 *	     have no ingress device to tell), SROCE_VLAN_NONE if untagged
 * @tclass: RoCE v2: the IPv4 TOS / IPv6 traffic class it arrived with
 * @ce: RoCE v2: it is marked Congestion Experienced
 * @saddr: its source address (RoCE v2: IPv4-mapped for IPv4; RoCE v1:
 *	   the GRH's), checked against a connected QP's peer by the
 *	   congestion control and where a UD QP's CNP goes
 * @ready_qp: set by the completer when the packet let its QP send more,
 *	      or by the responder when it owes a response; the receive path
 *	      runs its turn once the QP's lock is released (a train's
 *	      receiver once the train's last packet is in). Cleared by the
 *	      responder's direct turn, which sent what was owed or queued
 *	      the rest
 * @internal: it came by the internal loopback and carries no ICRC
 * @in_train: it came in a train received whole; the responder takes no
 *	      direct turn for it, the train's receiver runs the turn it
 *	      made due after the train's last packet (one ACK for the
 *	      train's packets that asked for one, not one each)
 * @l3: its IPv4 or IPv6 header (RoCE v2) or GRH (RoCE v1) as the wire had
 *	it; for a packet of a train, the header it would have had once cut
 *	(the train's skb holds only the first)
 */
struct sroce_fw_pkt {
	struct sk_buff *skb;
	const u8 *l3;
	u8 *hdr;
	u32 len;
	struct sroce_roce_info info;
	u8 dgid[SROCE_GID_LEN];
	u8 net_type;
	u16 vlan_id;
	u8 tclass;
	bool ce;
	u8 saddr[SROCE_GID_LEN];
	struct sroce_fw_qp *ready_qp;
	bool internal;
	bool in_train;
};

/**
 * struct sroce_fw_cc - the congestion-control configuration in force, in
 * the units the datapath uses
 * @rp: the reaction point's knobs, bounded by the link speed
 * @qos: trust, dscp2prio and the per-priority ECN switches
 * @np_min_gap_us: np_min_time_between_cnps
 * @cnp_tclass: traffic class byte of a CNP: np_cnp_dscp, Not-ECT
 * @cnp_prio_mode: np_cnp_prio_mode; 1: a CNP has the priority of the
 *		   packet that drew it, 0: @cnp_prio
 * @cnp_prio: np_cnp_prio
 * @rcu: deferred free of a replaced configuration
 *
 * Built whole from the knobs, the QoS settings and the link speed by
 * sroce_fw_cc_publish() and replaced with RCU: a packet sees one
 * consistent configuration, without a lock.
 */
struct sroce_fw_cc {
	struct sroce_dcqcn_cfg rp;
	struct sroce_qos qos;
	u32 np_min_gap_us;
	u8 cnp_tclass;
	u8 cnp_prio_mode;
	u8 cnp_prio;
	struct rcu_head rcu;
};

/* Headroom a transmitted packet needs below its transport headers. */
#define SROCE_FW_XMIT_HEADROOM	(LL_MAX_HEADER + sizeof(struct ipv6hdr) + \
				 sizeof(struct udphdr))

/* A CPU's counts of enum sroce_stat (sroce_fw_count()). */
struct sroce_fw_stats {
	u64 count[SROCE_NUM_STATS];
};

/**
 * struct sroce_fw_dev - one emulated NIC function
 * @node: entry in the list of functions with armed events; written under
 *        RTNL, read under RCU by the receive path; empty until
 *        sroce_fw_arm_events()
 * @ndev: the Ethernet device standing in for the PHY
 * @ndev_tracker: reference tracker for @ndev
 * @q: queue rings programmed by the driver
 * @irq: the driver's interrupt handler
 * @irq_ctx: argument of @irq
 * @cmd_work: the command processor
 * @sq_tail_db: command doorbell, last producer position written
 * @sq_head: next command to execute; owned by @cmd_work
 * @cq_tail: next completion slot; owned by @cmd_work
 * @cmd_id: id of the command executing; owned by @cmd_work
 * @deferred_waiting: deferred command ends waiting for a grace period
 *		      (lockless list, added to by @cmd_work)
 * @deferred_work: waits for one grace period for all of @deferred_waiting
 *		   at a time, then moves them to @deferred_ready
 * @deferred_ready: deferred command ends whose grace period is over, for
 *		    @cmd_work to finish and complete (lockless list; at
 *		    detach, for sroce_fw_detach() once both works stopped)
 * @eq: the async event queue (port, CQ error, SRQ limit, SQ drained,
 *	page fault events), raised through @event_irq_work
 * @ceq: the completion event queue (CQ_COMPLETION events), raised
 *	 through @ceq_tasklet
 * @port_ev: source of PORT_CHANGE events
 * @stopped: the function is stopped (sroce_fw_stop(), detach): it
 *	     executes no command, raises no event, sends and receives
 *	     nothing; written under @eq's lock, read anywhere with
 *	     READ_ONCE()
 * @fault_cmd_stall: SROCE_FW_FAULT_CMD_STALL is set
 * @fault_wait: the command processor waits here while stalled
 * @fault_defer_hold: SROCE_FW_FAULT_DEFER_HOLD is set
 * @fault_tx_no_mem: SROCE_FW_FAULT_TX_NO_MEM's N (0: off)
 * @event_irq_work: raises the async-event vector outside notifier context
 * @ceq_tasklet: raises the completion vector in softirq context, after
 *		 whatever lock the completion was written under is released
 * @port: the single port's PHY state
 * @speed_work: samples the link speed outside the netdev notifier, then
 *		lets the PFC thresholds follow the MTU and speed
 * @sched: the port's transmit scheduler
 * @gid_lock: protects @gids
 * @gid_gen: bumped (release, under @gid_lock) whenever a slot of @gids
 *	     changes; read with acquire to know a QP's cached path is stale
 * @gids: the GID table, indexed like the driver's
 * @pds: allocated protection domain numbers
 * @cqs: completion queues by number
 * @qps: queue pairs by number
 * @mrs: memory regions by key index
 * @ahs: address handles by ah_num
 * @srqs: shared receive queues by number
 * @stats: port counters, enum sroce_stat, a set per CPU
 * @pfc_enable: the priorities whose transmit obeys 802.1Qbb pauses (0:
 *		802.3x PAUSE for all), as SET_PFC set them; written under
 *		@cc_mutex and the scheduler's lock, under which the pause
 *		handler reads it; the receive buffers read it locklessly
 * @rxbuf: the port's receive buffers and their drain (PFC)
 * @pfc_stats: per priority, enum sroce_pfc_prio_stat; the durations in
 *	       nanoseconds (QUERY_PFC_STATS reports microseconds)
 * @pfc_port_stats: enum sroce_pfc_port_stat
 * @mr_lock: serializes the writers of fast-registration regions and
 *	     windows: @key and @cur of their struct sroce_fw_mkey; taken
 *	     with BHs off by the transmit path (registration, invalidation,
 *	     bind WQEs) and the receive softirq (SEND with invalidate);
 *	     readers take RCU instead
 * @odp_wait_lock: protects @odp_waiters, @odp_gen and the QPs' odp_node;
 *		   taken with BHs off, inside a QP's lock
 * @odp_waiters: QPs waiting for a page of an on-demand paging region,
 *		 made ready after the next MAP or FAIL translation write
 * @odp_gen: counts those wake-ups (read locklessly before an access)
 * @mr_key_seq: generation for the low byte of the next key; command
 *              processor only
 * @qpn_next: where the cyclic QP number allocation continues; command
 *	      processor only
 * @cc_mutex: serializes the writers of @cc_params, @qos, @cc and
 *	      @pfc_enable: the
 *	      command processor and the link-speed sampling (process
 *	      context; taken under RTNL by the latter)
 * @cc_params: congestion-control knobs, by enum sroce_cc_param; under
 *	       @cc_mutex
 * @qos: the QoS settings as SET_QOS last set them; under @cc_mutex
 * @cc: what the datapath reads (under RCU), built from the above
 */
struct sroce_fw_dev {
	struct list_head node;
	struct net_device *ndev;
	netdevice_tracker ndev_tracker;
	struct sroce_fw_queue_cfg q;
	sroce_fw_irq_fn irq;
	void *irq_ctx;

	struct work_struct cmd_work;
	u32 sq_tail_db;
	u32 sq_head;
	u32 cq_tail;
	u16 cmd_id;
	struct llist_head deferred_waiting;
	struct work_struct deferred_work;
	struct llist_head deferred_ready;

	struct sroce_fw_eq eq;
	struct sroce_fw_eq ceq;
	struct sroce_fw_event_src port_ev;
	bool stopped;
	bool fault_cmd_stall;
	wait_queue_head_t fault_wait;
	bool fault_defer_hold;
	u32 fault_tx_no_mem;
	struct work_struct event_irq_work;
	struct tasklet_struct ceq_tasklet;

	struct sroce_fw_port port;
	struct work_struct speed_work;
	struct sroce_fw_sched sched;

	spinlock_t gid_lock; /* protects gids */
	struct sroce_fw_gid gids[SROCE_FW_GID_TABLE_LEN];
	u32 gid_gen;

	struct xarray pds;
	struct xarray cqs;
	struct xarray qps;
	struct xarray mrs;
	spinlock_t mr_lock; /* protects key, cur of fast MRs' and MWs' mkeys */
	spinlock_t odp_wait_lock; /* odp_waiters, odp_gen, odp_node; BHs off */
	struct list_head odp_waiters;
	u32 odp_gen;
	u32 mr_key_seq;
	u32 qpn_next;
	struct xarray ahs;
	struct xarray srqs;
	/*
	 * enum sroce_stat, a set per CPU: a packet's counts are two to four
	 * additions, which on one shared set were locked instructions on
	 * cache lines every CPU of the datapath wrote. QUERY_STATS sums them.
	 */
	struct sroce_fw_stats __percpu *stats;
	u8 pfc_enable;
	struct sroce_fw_rxbuf rxbuf;
	atomic64_t pfc_stats[SROCE_FW_NUM_PRIO][SROCE_PFC_NUM_PRIO_STATS];
	atomic64_t pfc_port_stats[SROCE_PFC_NUM_PORT_STATS];
	struct mutex cc_mutex; /* cc_params, qos, cc, pfc_enable writers; process ctx */
	u32 cc_params[SROCE_NUM_CC_PARAMS];
	struct sroce_qos qos;
	struct sroce_fw_cc __rcu *cc;
};

/*
 * Add @n to enum sroce_stat @stat on @fw. In any context: this_cpu_add()
 * is safe against preemption and interrupts.
 */
static inline void sroce_fw_count_add(struct sroce_fw_dev *fw,
				      unsigned int stat, u64 n)
{
	this_cpu_add(fw->stats->count[stat], n);
}

/* Count one event of enum sroce_stat @stat on @fw. */
static inline void sroce_fw_count(struct sroce_fw_dev *fw, unsigned int stat)
{
	sroce_fw_count_add(fw, stat, 1);
}

/* A packet of @len bytes (BTH to ICRC) sent or accepted: two counters. */
static inline void sroce_fw_count_pkt(struct sroce_fw_dev *fw,
				      unsigned int pkts, unsigned int bytes,
				      u32 len)
{
	sroce_fw_count_add(fw, pkts, 1);
	sroce_fw_count_add(fw, bytes, len);
}

/* fw_main.c */
extern struct workqueue_struct *sroce_fw_wq;
void sroce_fw_event_src_init(struct sroce_fw_event_src *src,
			     unsigned int type);
void sroce_fw_post_event(struct sroce_fw_dev *fw,
			 struct sroce_fw_event_src *src, const void *data,
			 unsigned int len);
void sroce_fw_event_src_kill(struct sroce_fw_dev *fw,
			     struct sroce_fw_event_src *src);
u16 sroce_fw_defer(struct sroce_fw_dev *fw, struct sroce_fw_deferred *d,
		   u16 (*finish)(struct sroce_fw_dev *fw,
				 struct sroce_fw_deferred *d));

/* fw_port.c */
struct sroce_fw_dev *sroce_fw_dev_by_gid(struct net *net,
					 const u8 gid[SROCE_GID_LEN],
					 u8 gid_type, u16 *vlan_id);
void sroce_fw_port_pause_rx(const struct net_device *ndev,
			    const struct sroce_pause *pause);
int sroce_fw_port_init(void);
void sroce_fw_port_exit(void);
void sroce_fw_port_attach(struct sroce_fw_dev *fw);
void sroce_fw_port_arm(struct sroce_fw_dev *fw);
void sroce_fw_port_detach(struct sroce_fw_dev *fw);
u16 sroce_fw_cmd_query_device(struct sroce_fw_dev *fw, const void *req,
			      void *resp);
u16 sroce_fw_cmd_query_port(struct sroce_fw_dev *fw, const void *req,
			    void *resp);
u16 sroce_fw_cmd_query_stats(struct sroce_fw_dev *fw, const void *req,
			     void *resp);

/* fw_cc.c */
int sroce_fw_cc_init(struct sroce_fw_dev *fw);
void sroce_fw_cc_free(struct sroce_fw_dev *fw);
void sroce_fw_cc_speed_changed(struct sroce_fw_dev *fw);
u16 sroce_fw_cmd_query_cc_params(struct sroce_fw_dev *fw, const void *req,
				 void *resp);
u16 sroce_fw_cmd_set_cc_param(struct sroce_fw_dev *fw, const void *req,
			      void *resp);
u16 sroce_fw_cmd_query_qos(struct sroce_fw_dev *fw, const void *req,
			   void *resp);
u16 sroce_fw_cmd_set_qos(struct sroce_fw_dev *fw, const void *req,
			 void *resp);
u16 sroce_fw_cmd_query_qp_cc(struct sroce_fw_dev *fw, const void *req,
			     void *resp);
unsigned int sroce_fw_cc_prio(struct sroce_fw_dev *fw, u8 sl, u8 tclass);
void sroce_fw_cc_path(struct sroce_fw_dev *fw, struct sroce_fw_path *path);
void sroce_fw_cc_path_prio(struct sroce_fw_dev *fw, struct sroce_fw_path *path,
			   unsigned int prio);
void sroce_fw_qp_cc_init(struct sroce_fw_qp *qp);
void sroce_fw_qp_cc_stop(struct sroce_fw_qp *qp);
void sroce_fw_qp_cc_reset(struct sroce_fw_qp *qp);
bool sroce_fw_rp_hold(struct sroce_fw_dev *fw, struct sroce_fw_qp *qp);
void sroce_fw_rp_sent(struct sroce_fw_dev *fw, struct sroce_fw_qp *qp,
		      u32 len);
void sroce_fw_rp_cnp(struct sroce_fw_dev *fw, struct sroce_fw_qp *qp,
		     const struct sroce_fw_pkt *pkt);
void sroce_fw_np_ce(struct sroce_fw_dev *fw, struct sroce_fw_qp *qp,
		    const struct sroce_fw_pkt *pkt);

/*
 * Whether the reaction point holds a QP's next packet: the caller stops
 * its quantum where it is, and the pacing timer gives the QP its turn
 * again. Only a limited QP pays more than this test. Caller holds
 * qp->lock, in the egress stage (RCU read side).
 */
static inline bool sroce_fw_tx_hold(struct sroce_fw_dev *fw,
				    struct sroce_fw_qp *qp)
{
	return unlikely(qp->rp.active) && sroce_fw_rp_hold(fw, qp);
}

/* fw_pfc.c */
void sroce_fw_pfc_init(struct sroce_fw_dev *fw);
void sroce_fw_pfc_stop(struct sroce_fw_dev *fw);
void sroce_fw_pfc_rx(struct sroce_fw_dev *fw, const struct sroce_pause *pause);
void sroce_fw_rxbuf_stop(struct sroce_fw_dev *fw);
void sroce_fw_pfc_link_changed(struct sroce_fw_dev *fw);
void sroce_fw_rxbuf_drain(struct sroce_fw_dev *fw, bool stop_knob, u32 value);
bool sroce_fw_rxbuf_queue(struct sroce_fw_dev *fw, struct sk_buff *skb,
			  unsigned int prio, u32 bytes, bool ect, bool *ce);
u16 sroce_fw_cmd_query_pfc_buffer(struct sroce_fw_dev *fw, const void *req,
				  void *resp);
u16 sroce_fw_cmd_set_pfc_buffer(struct sroce_fw_dev *fw, const void *req,
				void *resp);

/* Whether received packets go through the port's buffers. Lockless. */
static inline bool sroce_fw_rxbuf_on(const struct sroce_fw_dev *fw)
{
	return READ_ONCE(fw->rxbuf.drain_mbps) ||
	       READ_ONCE(fw->rxbuf.drain_stop) || READ_ONCE(fw->rxbuf.held);
}

u16 sroce_fw_cmd_query_pfc(struct sroce_fw_dev *fw, const void *req,
			   void *resp);
u16 sroce_fw_cmd_set_pfc(struct sroce_fw_dev *fw, const void *req,
			 void *resp);
u16 sroce_fw_cmd_query_pfc_stats(struct sroce_fw_dev *fw, const void *req,
				 void *resp);

/* The tail of a held packet's cb that the port's buffers keep (fw_pfc.c) */
#define SROCE_FW_RXBUF_CB_LEN	8

/* The Ethernet device under @ndev's VLANs: where pause frames come and go. */
static inline struct net_device *sroce_fw_phys_dev(struct net_device *ndev)
{
	return is_vlan_dev(ndev) ? vlan_dev_real_dev(ndev) : ndev;
}

/* Whether the link partner pauses priority @prio now. Lockless: a hint. */
static inline bool sroce_fw_prio_paused(const struct sroce_fw_dev *fw,
					unsigned int prio)
{
	return READ_ONCE(fw->sched.paused_mask) &
	       BIT(prio % SROCE_FW_NUM_PRIO);
}

/* Nanoseconds priority @prio was held by pauses that ended. */
static inline u64 sroce_fw_prio_paused_ns(struct sroce_fw_dev *fw,
					  unsigned int prio)
{
	return atomic64_read(&fw->pfc_stats[prio % SROCE_FW_NUM_PRIO]
				       [SROCE_PFC_RX_PAUSE_DURATION]);
}

/* fw_gid.c */
void sroce_fw_gids_unhash(struct sroce_fw_dev *fw);
void sroce_fw_paths_stale(struct sroce_fw_dev *fw);
int sroce_fw_path_from_av(struct sroce_fw_dev *fw, const struct sroce_av *av,
			  struct sroce_fw_path *path);
int sroce_fw_qp_path(struct sroce_fw_dev *fw, struct sroce_fw_qp *qp,
		     struct sroce_fw_path *path);
u16 sroce_fw_cmd_add_gid(struct sroce_fw_dev *fw, const void *req,
			 void *resp);
u16 sroce_fw_cmd_del_gid(struct sroce_fw_dev *fw, const void *req,
			 void *resp);
u16 sroce_fw_cmd_query_gid(struct sroce_fw_dev *fw, const void *req,
			   void *resp);

/* fw_pd.c */
u16 sroce_fw_cmd_alloc_pd(struct sroce_fw_dev *fw, const void *req,
			  void *resp);
u16 sroce_fw_cmd_dealloc_pd(struct sroce_fw_dev *fw, const void *req,
			    void *resp);

/* fw_cq.c */
u16 sroce_fw_cmd_create_cq(struct sroce_fw_dev *fw, const void *req,
			   void *resp);
u16 sroce_fw_cmd_destroy_cq(struct sroce_fw_dev *fw, const void *req,
			    void *resp);
u16 sroce_fw_cmd_resize_cq(struct sroce_fw_dev *fw, const void *req,
			   void *resp);
int sroce_fw_cq_post_ext(struct sroce_fw_dev *fw, struct sroce_fw_cq *cq,
			 const struct ib_uverbs_wc *wc,
			 const struct sroce_cqe_ext *ext, bool solicited);
int sroce_fw_cq_post(struct sroce_fw_dev *fw, struct sroce_fw_cq *cq,
		     const struct ib_uverbs_wc *wc, bool solicited);
void sroce_fw_cqs_destroy(struct sroce_fw_dev *fw);

/* fw_qp.c */
u16 sroce_fw_cmd_create_qp(struct sroce_fw_dev *fw, const void *req,
			   void *resp);
u16 sroce_fw_cmd_modify_qp(struct sroce_fw_dev *fw, const void *req,
			   void *resp);
u16 sroce_fw_cmd_query_qp(struct sroce_fw_dev *fw, const void *req,
			  void *resp);
u16 sroce_fw_cmd_destroy_qp(struct sroce_fw_dev *fw, const void *req,
			    void *resp);
void sroce_fw_qps_destroy(struct sroce_fw_dev *fw);
u16 sroce_fw_check_av(struct sroce_fw_dev *fw, const struct sroce_av *av);

/* fw_srq.c */
u16 sroce_fw_cmd_create_srq(struct sroce_fw_dev *fw, const void *req,
			    void *resp);
u16 sroce_fw_cmd_modify_srq(struct sroce_fw_dev *fw, const void *req,
			    void *resp);
u16 sroce_fw_cmd_query_srq(struct sroce_fw_dev *fw, const void *req,
			   void *resp);
u16 sroce_fw_cmd_destroy_srq(struct sroce_fw_dev *fw, const void *req,
			     void *resp);
u16 sroce_fw_cmd_resize_srq(struct sroce_fw_dev *fw, const void *req,
			    void *resp);
int sroce_fw_srq_take(struct sroce_fw_dev *fw, struct sroce_fw_srq *srq,
		      struct rxe_recv_wqe *wqe);
void sroce_fw_srqs_destroy(struct sroce_fw_dev *fw);

/* fw_ah.c */
u16 sroce_fw_cmd_create_ah(struct sroce_fw_dev *fw, const void *req,
			   void *resp);
u16 sroce_fw_cmd_destroy_ah(struct sroce_fw_dev *fw, const void *req,
			    void *resp);
void sroce_fw_ahs_destroy(struct sroce_fw_dev *fw);

/* fw_mr.c */
u16 sroce_fw_cmd_reg_mr(struct sroce_fw_dev *fw, const void *req,
			void *resp);
u16 sroce_fw_cmd_dereg_mr(struct sroce_fw_dev *fw, const void *req,
			  void *resp);
struct sroce_fw_mr *sroce_fw_mr_lookup(struct sroce_fw_dev *fw, u32 key,
				       u32 pdn, u32 qpn, u32 access, u64 iova,
				       u64 len);
struct sroce_fw_mr *sroce_fw_region_whole(struct sroce_fw_dev *fw, u32 key,
					  u32 pdn, u32 access);
u32 sroce_fw_fast_reg(struct sroce_fw_dev *fw, struct sroce_fw_qp *qp,
		      const struct sroce_fast_reg_wr *wr);
int sroce_fw_invalidate(struct sroce_fw_dev *fw, u32 pdn, u32 qpn, u32 key,
			bool remote);
struct sroce_fw_mr *sroce_fw_region_get(struct sroce_fw_dev *fw, u32 key,
					u32 pdn, u32 access, u64 iova, u64 len);
int sroce_fw_mkey_add(struct sroce_fw_dev *fw, struct sroce_fw_mkey *k,
		      struct sroce_fw_mr *mr);
u16 sroce_fw_mr_erase(struct sroce_fw_dev *fw, u32 key, bool window);
u16 sroce_fw_cmd_alloc_mw(struct sroce_fw_dev *fw, const void *req,
			  void *resp);
u16 sroce_fw_cmd_dealloc_mw(struct sroce_fw_dev *fw, const void *req,
			    void *resp);
u32 sroce_fw_bind_mw(struct sroce_fw_dev *fw, struct sroce_fw_qp *qp,
		     const struct rxe_send_wqe *wqe);
int sroce_fw_mr_copy(struct sroce_fw_dev *fw, const struct sroce_fw_mr *mr,
		     u64 iova, void *buf, u64 len, bool to_mr);
int sroce_fw_mr_store_u64(struct sroce_fw_dev *fw,
			  const struct sroce_fw_mr *mr, u64 iova, u64 val);
struct sroce_fw_mr *sroce_fw_region_by_key(struct sroce_fw_dev *fw, u32 key);
void sroce_fw_page_copy(struct page *page, u32 in_page, void *buf, u32 n,
			bool to_mr);

/* fw_odp.c */
struct sroce_fw_odp *sroce_fw_odp_alloc(u32 npages);
void sroce_fw_odp_free(struct sroce_fw_dev *fw, struct sroce_fw_odp *odp);
int sroce_fw_odp_copy(struct sroce_fw_dev *fw, const struct sroce_fw_mr *mr,
		      u64 iova, void *buf, u64 len, bool to_mr);
int sroce_fw_odp_store_u64(struct sroce_fw_dev *fw,
			   const struct sroce_fw_mr *mr, u64 iova, u64 val);
int sroce_fw_odp_atomic(struct sroce_fw_dev *fw, const struct sroce_fw_mr *mr,
			u64 iova, u64 (*op)(u64 orig, const void *arg),
			const void *arg, u64 *orig, spinlock_t *lock);
u32 sroce_fw_odp_gen(struct sroce_fw_dev *fw);
bool sroce_fw_odp_park(struct sroce_fw_dev *fw, struct sroce_fw_qp *qp,
		       u32 gen);
void sroce_fw_odp_unpark(struct sroce_fw_dev *fw, struct sroce_fw_qp *qp);
void sroce_fw_odp_wake(struct sroce_fw_dev *fw);
void sroce_fw_mrs_destroy(struct sroce_fw_dev *fw);
int sroce_fw_sge_copy(struct sroce_fw_dev *fw, u32 pdn,
		      const struct rxe_sge *sge, u32 num_sge, u64 off,
		      void *buf, u64 len, bool to_mr);

/* fw_req.c */
bool sroce_fw_req_transmit(struct sroce_fw_dev *fw, struct sroce_fw_qp *qp);
void sroce_fw_flush(struct sroce_fw_dev *fw, struct sroce_fw_qp *qp);
void sroce_fw_sq_drain_check(struct sroce_fw_dev *fw, struct sroce_fw_qp *qp);
u16 sroce_fw_qp_sport(u32 qpn);

/* fw_tx.c */

/**
 * struct sroce_fw_train - packets of a QP's turn leaving as one skb
 * @skb: the packets so far, back to back from the first BTH; NULL when
 *	 the train is empty
 * @path: where they go
 * @seg_len: length of each packet, BTH through ICRC; only the last may be
 *	     shorter, and a shorter one ends the train
 * @segs: packets in @skb
 * @room: packets @skb has room for
 * @open_len: @skb->len before the packet being built
 *
 * Lives on the stack of the function that spends a turn, under the QP's
 * lock, and is sent (sroce_fw_train_send()) before that function returns:
 * no packet of the QP may leave while an earlier one waits in a train.
 */
struct sroce_fw_train {
	struct sk_buff *skb;
	struct sroce_fw_path path;
	u32 seg_len;
	u32 open_len;
	u16 segs;
	u16 room;
};

static inline void sroce_fw_train_init(struct sroce_fw_train *t)
{
	t->skb = NULL;
}

struct sk_buff *sroce_fw_tx_alloc(struct sroce_fw_dev *fw,
				  const struct sroce_roce_fields *f,
				  u8 **payload);
int sroce_fw_tx_begin(struct sroce_fw_dev *fw, struct sroce_fw_train *t,
		      const struct sroce_fw_path *path,
		      const struct sroce_roce_fields *f, u32 more,
		      u8 **payload);
void sroce_fw_tx_commit(struct sroce_fw_dev *fw, struct sroce_fw_qp *qp,
			struct sroce_fw_train *t);
void sroce_fw_tx_cancel(struct sroce_fw_train *t);
void sroce_fw_train_send(struct sroce_fw_dev *fw, struct sroce_fw_train *t);
int sroce_fw_tx_ctrl(struct sroce_fw_dev *fw, struct sk_buff *skb,
		     const struct sroce_fw_path *path);
bool sroce_fw_qp_transmit(struct sroce_fw_dev *fw, struct sroce_fw_qp *qp);

/* fw_mcast.c */
bool sroce_fw_gid_is_mcast(const u8 gid[SROCE_GID_LEN]);
u16 sroce_fw_cmd_attach_mcast(struct sroce_fw_dev *fw, const void *req,
			      void *resp);
u16 sroce_fw_cmd_detach_mcast(struct sroce_fw_dev *fw, const void *req,
			      void *resp);
void sroce_fw_mcast_forget_qp(struct sroce_fw_dev *fw, u32 qpn);
unsigned int sroce_fw_mcast_rx(struct net *net, struct sroce_fw_pkt *pkt);
void sroce_fw_mcgs_destroy(struct sroce_fw_dev *fw);

/* fw_sched.c */
void sroce_fw_sched_init(struct sroce_fw_dev *fw);
void sroce_fw_sched_stop(struct sroce_fw_dev *fw);
void sroce_fw_sched_add(struct sroce_fw_dev *fw, struct sroce_fw_qp *qp);
void sroce_fw_sched_run(struct sroce_fw_dev *fw);
void sroce_fw_sched_remove(struct sroce_fw_dev *fw, struct sroce_fw_qp *qp);
void sroce_fw_ring_sq(struct sroce_fw_dev *fw, struct sroce_fw_qp *qp);
bool sroce_fw_sched_direct_ok(struct sroce_fw_dev *fw, struct sroce_fw_qp *qp);

/* fw_resp.c */
void sroce_fw_recv(struct sroce_fw_dev *fw, struct sroce_fw_pkt *pkt);
bool sroce_fw_resp_transmit(struct sroce_fw_dev *fw, struct sroce_fw_qp *qp,
			    struct sroce_fw_reply *ack);
void sroce_fw_reply_send(struct sroce_fw_dev *fw, struct sroce_fw_reply *ack);
void sroce_fw_resp_set_cap(struct sroce_fw_qp *qp);
void sroce_fw_resp_reset(struct sroce_fw_qp *qp);
void sroce_fw_recv_ud_mcast(struct sroce_fw_dev *fw, struct sroce_fw_qp *qp,
			    struct sroce_fw_pkt *pkt);

/* Whether packets are out that no ACK covered yet. Caller holds qp->lock. */
static inline bool sroce_fw_outstanding(const struct sroce_fw_qp *qp)
{
	return qp->una_psn != qp->next_psn;
}

/* Whether the QP's receive side runs: RTR, RTS and SQD (IBA 10.3.1). */
static inline bool sroce_fw_qp_receives(const struct sroce_fw_qp *qp)
{
	return qp->attr.state == SROCE_QPS_RTR ||
	       qp->attr.state == SROCE_QPS_RTS ||
	       qp->attr.state == SROCE_QPS_SQD;
}

/*
 * Whether the QP's requester runs: RTS, and SQD, which finishes (and
 * retransmits) the WQEs started before it but starts no new one.
 */
static inline bool sroce_fw_qp_sends(const struct sroce_fw_qp *qp)
{
	return qp->attr.state == SROCE_QPS_RTS ||
	       qp->attr.state == SROCE_QPS_SQD;
}

/*
 * Whether an acknowledgment can let the requester send: WQEs not sent in
 * full wait on the ring (a rewind leaves sq_next behind them too), or SQD
 * has a drain to finish. A hint for the completer, which otherwise leaves
 * the QP off the egress stage: a poster's doorbell follows its WQEs, and
 * a flush is scheduled by whoever takes the QP to ERROR. Caller holds
 * qp->lock.
 */
static inline bool sroce_fw_req_waiting(const struct sroce_fw_qp *qp)
{
	return qp->attr.state != SROCE_QPS_RTS ||
	       qp->sq_next != (READ_ONCE(qp->sq->producer_index) & qp->sq_mask);
}

/*
 * The requester's invariants (Documentation/datapath.md), checked where
 * they can break. In ring order sq_cons <= sq_next <= sq_high <= the
 * producer; una_psn <= next_psn in PSN order: nothing is acknowledged
 * that was not sent. Caller holds qp->lock.
 */
static inline void sroce_fw_check_sq(const struct sroce_fw_qp *qp)
{
	WARN_ON_ONCE(sroce_psn_diff(qp->next_psn, qp->una_psn) < 0);
	WARN_ON_ONCE(sroce_ring_count(qp->sq_next, qp->sq_cons, qp->sq_mask) >
		     sroce_ring_count(qp->sq_high, qp->sq_cons, qp->sq_mask));
}

/* fw_comp.c */
void sroce_fw_complete_rc(struct sroce_fw_dev *fw, struct sroce_fw_qp *qp,
			  struct sroce_fw_pkt *pkt);
void sroce_fw_rnr_timer(struct timer_list *t);
void sroce_fw_retry_timer(struct timer_list *t);
void sroce_fw_arm_retry(struct sroce_fw_qp *qp, bool restart);
void sroce_fw_retry_defer(struct sroce_fw_qp *qp, u64 wait_ns);
void sroce_fw_send_complete(struct sroce_fw_dev *fw, struct sroce_fw_qp *qp,
			    u32 status, const struct sroce_fw_sq_track *t);
void sroce_fw_sq_retire(struct sroce_fw_dev *fw, struct sroce_fw_qp *qp,
			u32 status);
u32 sroce_fw_qp_pmtu(struct sroce_fw_dev *fw, struct sroce_fw_qp *qp);
void sroce_fw_odp_resume_completer(struct sroce_fw_dev *fw,
				   struct sroce_fw_qp *qp);

/* fw_net.c */
int sroce_fw_net_init(void);
void sroce_fw_net_exit(void);
int sroce_fw_xmit(struct sroce_fw_dev *fw, struct sk_buff *skb,
		  const struct sroce_fw_path *path, u32 seg_len, u16 segs);
void sroce_fw_rx_held(struct sroce_fw_dev *fw, struct sk_buff *skb);
int sroce_fw_xmit_pause(struct sroce_fw_dev *fw, u8 enable,
			const u16 *quanta);

#endif /* SROCE_FW_H */
