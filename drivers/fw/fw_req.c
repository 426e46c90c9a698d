// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * sroce firmware: the requester. The send doorbell puts a QP on the port's
 * transmit scheduler (fw_sched.c), which lets it turn the WQEs of its send
 * ring into packets.
 *
 * Userspace can rewrite its ring at any moment, so each WQE is copied into
 * a private buffer before anything in it is looked at, and everything is
 * validated on that copy: opcode, SGE count, lengths, keys, address
 * handle. Nothing read from the ring is trusted as an index or a size.
 * What completion needs later (wr_id, PSN range, ...) is remembered in the
 * firmware's own per-slot track, never read back from the ring.
 *
 * Implemented: UD (and GSI) sends; RC and UC SEND and RDMA WRITE, with
 * and without immediate, segmented to the path MTU; RC RDMA READ and
 * atomics (compare-and-swap, fetch-and-add), at most max_rd_atomic of
 * them outstanding, fences honoured.
 */
#include <linux/hash.h>
#include <linux/slab.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_verbs.h>

#include "fw.h"
#include "lib/psn.h"
#include "lib/qp_state.h"
#include "lib/ring.h"

/**
 * sroce_fw_qp_pmtu() - path MTU a connected QP segments to
 * @fw: the function
 * @qp: the QP
 *
 * The QP's own path MTU, whatever the port's active MTU is now: both ends
 * agreed on it at RTR and count packets by it (READ responses, first and
 * middle packets of exactly this size), so it must not change under a
 * live QP when the netdev MTU does. A packet larger than a lowered netdev
 * MTU is fragmented by IP (RoCE v2) or dropped by the device (RoCE v1).
 *
 * Return: bytes.
 */
u32 sroce_fw_qp_pmtu(struct sroce_fw_dev *fw, struct sroce_fw_qp *qp)
{
	return sroce_ib_mtu_bytes(qp->attr.path_mtu) ? : 256;
}

/**
 * sroce_fw_send_complete() - write the completion of a send WQE
 * @fw: the function
 * @qp: the QP
 * @status: IB_WC_* status
 * @t: what was remembered of the WQE
 *
 * Successful unsignaled WQEs complete silently; errors and flushes always
 * produce a completion.
 */
void sroce_fw_send_complete(struct sroce_fw_dev *fw, struct sroce_fw_qp *qp,
			    u32 status, const struct sroce_fw_sq_track *t)
{
	struct ib_uverbs_wc wc = {
		.wr_id = t->wr_id,
		.status = status,
		.byte_len = t->length,
		.qp_num = qp->qpn,
		.port_num = 1,
	};

	if (status == IB_WC_SUCCESS && !t->signaled)
		return;
	switch (t->opcode) {
	case IB_WR_RDMA_WRITE:
		wc.opcode = IB_WC_RDMA_WRITE;
		break;
	case IB_WR_RDMA_WRITE_WITH_IMM:
		wc.opcode = IB_WC_RDMA_WRITE;
		wc.wc_flags = SROCE_CQE_WITH_IMM;
		break;
	case IB_WR_RDMA_READ:
		wc.opcode = IB_WC_RDMA_READ;
		break;
	case IB_WR_ATOMIC_CMP_AND_SWP:
		wc.opcode = IB_WC_COMP_SWAP;
		break;
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		wc.opcode = IB_WC_FETCH_ADD;
		break;
	case IB_WR_SEND_WITH_IMM:
		wc.opcode = IB_WC_SEND;
		wc.wc_flags = SROCE_CQE_WITH_IMM;
		break;
	case IB_WR_LOCAL_INV:
		wc.opcode = IB_WC_LOCAL_INV;
		break;
	case IB_WR_REG_MR:
		wc.opcode = IB_WC_REG_MR;
		break;
	case IB_WR_BIND_MW:
		wc.opcode = IB_WC_BIND_MW;
		break;
	case SROCE_FW_WR_ATOMIC_WRITE:
		wc.opcode = SROCE_FW_WC_ATOMIC_WRITE;
		break;
	case SROCE_FW_WR_RDMA_FLUSH:
		wc.opcode = SROCE_FW_WC_RDMA_FLUSH;
		break;
	default:
		wc.opcode = IB_WC_SEND;
		break;
	}
	sroce_fw_cq_post(fw, qp->scq, &wc, false);
}

/* Move on to the next send WQE; the high mark follows at the frontier. */
static void sroce_fw_sq_next_advance(struct sroce_fw_qp *qp)
{
	bool frontier = qp->sq_next == qp->sq_high;

	qp->sq_next = sroce_ring_next(qp->sq_next, qp->sq_mask);
	qp->sq_next_off = 0;
	if (frontier)
		qp->sq_high = qp->sq_next;
}

/*
 * Give the oldest send slot back and complete its WQE, in that order: a
 * consumer that reacts to the completion by posting again must find the
 * slot free (librxe checks for room before it writes). Caller holds
 * qp->lock.
 */
static void sroce_fw_sq_pop(struct sroce_fw_dev *fw, struct sroce_fw_qp *qp,
			    u32 status, const struct sroce_fw_sq_track *wqe)
{
	struct sroce_fw_sq_track t = *wqe;

	qp->track[qp->sq_cons].started = false;

	if (qp->sq_cons == qp->sq_next)
		sroce_fw_sq_next_advance(qp);
	qp->sq_cons = sroce_ring_next(qp->sq_cons, qp->sq_mask);
	/* Release: the slot is the producer's again, before the CQE shows. */
	smp_store_release(&qp->sq->consumer_index, qp->sq_cons);
	sroce_fw_send_complete(fw, qp, status, &t);
	sroce_fw_sq_drain_check(fw, qp);
}

/**
 * sroce_fw_sq_retire() - complete the oldest sent WQE of an RC QP
 * @fw: the function
 * @qp: the QP, whose lock is held
 * @status: IB_WC_* status
 */
void sroce_fw_sq_retire(struct sroce_fw_dev *fw, struct sroce_fw_qp *qp,
			u32 status)
{
	sroce_fw_sq_pop(fw, qp, status, &qp->track[qp->sq_cons]);
	/* Local operations behind it were done already: they follow. */
	while (status == IB_WC_SUCCESS && qp->sq_cons != qp->sq_high &&
	       qp->sq_cons != qp->sq_err_index &&
	       qp->track[qp->sq_cons].local)
		sroce_fw_sq_pop(fw, qp, status, &qp->track[qp->sq_cons]);
	/* A WQE that failed locally behind them completes now, in order. */
	if (qp->sq_cons == qp->sq_err_index) {
		sroce_fw_sq_pop(fw, qp, qp->sq_err_status,
				&qp->track[qp->sq_cons]);
		qp->sq_err_index = SROCE_FW_NO_SQ_ERR;
		WRITE_ONCE(qp->attr.state, SROCE_QPS_ERR);
		sroce_fw_sched_add(fw, qp);
	}
}

/* Copy the send WQE at slot @index; validate its SGE count. */
static int sroce_fw_fetch_swqe(struct sroce_fw_qp *qp, u32 index)
{
	memcpy(qp->swqe, sroce_ring_slot(qp->sq, index, qp->sq_mask,
					 qp->sq_log2_elem),
	       BIT(qp->sq_log2_elem));
	if (!(qp->swqe->wr.send_flags & IB_SEND_INLINE) &&
	    qp->swqe->dma.num_sge > qp->max_send_sge)
		return -EINVAL;
	return 0;
}

/* Bytes the WQE sends: computed from the private copy, never trusted. */
static int sroce_fw_swqe_length(struct sroce_fw_qp *qp, u64 *len)
{
	const struct rxe_send_wqe *wqe = qp->swqe;
	u32 i;

	/* The word an ATOMIC WRITE stores travels in the WQE itself. */
	if (wqe->wr.opcode == SROCE_FW_WR_ATOMIC_WRITE) {
		*len = SROCE_ATOMIC_WRITE_LEN;
		return 0;
	}
	/* A FLUSH sends and receives no data (dma.length is its range's). */
	if (wqe->wr.opcode == SROCE_FW_WR_RDMA_FLUSH) {
		*len = 0;
		return 0;
	}
	if (wqe->wr.send_flags & IB_SEND_INLINE) {
		if (wqe->dma.length > qp->max_inline)
			return -EINVAL;
		*len = wqe->dma.length;
		return 0;
	}
	*len = 0;
	for (i = 0; i < wqe->dma.num_sge; i++)
		*len += wqe->dma.sge[i].length;
	return *len > U32_MAX ? -EINVAL : 0;
}

/* Gather @len bytes of the WQE's data, starting @off bytes in. */
static int sroce_fw_gather(struct sroce_fw_dev *fw, struct sroce_fw_qp *qp,
			   u64 off, u8 *dst, u64 len)
{
	const struct rxe_send_wqe *wqe = qp->swqe;

	if ((wqe->wr.send_flags & IB_SEND_INLINE) ||
	    wqe->wr.opcode == SROCE_FW_WR_ATOMIC_WRITE) {
		memcpy(dst, wqe->dma.inline_data + off, len);
		return 0;
	}
	return sroce_fw_sge_copy(fw, qp->pdn, wqe->dma.sge, wqe->dma.num_sge,
				 off, dst, len, false);
}

/*
 * Build headers + the WQE's payload @off bytes in, into the turn's train
 * @train. @more: packets expected to follow in this turn.
 */
static int sroce_fw_send_pkt(struct sroce_fw_dev *fw, struct sroce_fw_qp *qp,
			     struct sroce_fw_train *train,
			     struct sroce_roce_fields *f,
			     const struct sroce_fw_path *path, u64 off, u32 more)
{
	u8 *payload;
	int err;

	/*
	 * No memory: lost as on the wire. The retransmission of an RC packet
	 * gathers again (and checks the SGEs then); UC and UD lose it, and
	 * their WQE completes without its SGEs checked.
	 */
	err = sroce_fw_tx_begin(fw, train, path, f, more, &payload);
	if (err)
		return err == -ENOMEM ? 0 : err;
	err = sroce_fw_gather(fw, qp, off, payload, f->payload_len);
	if (err) {
		sroce_fw_tx_cancel(train);
		/* A page to wait for, or a protection error. */
		return err == -EAGAIN ? err : -EACCES;
	}
	sroce_fw_tx_commit(fw, qp, train);
	return 0;
}

/*
 * WQEs posted behind the one at sq_next: a hint only, from the producer
 * index userspace writes (bounded by the ring).
 */
static u32 sroce_fw_sq_behind(struct sroce_fw_qp *qp)
{
	u32 prod = READ_ONCE(qp->sq->producer_index) & qp->sq_mask;

	return (prod - qp->sq_next - 1) & qp->sq_mask;
}

/*
 * Statuses of the send functions besides IB_WC_*: the send window is full;
 * a page of an on-demand paging region is absent and the QP is parked;
 * one was absent but pages came meanwhile (try again after the others);
 * the reaction point holds the next packet until the pacing timer.
 */
#define SROCE_FW_WINDOW_FULL	0xffff
#define SROCE_FW_PAGE_WAIT	0xfffe
#define SROCE_FW_PAGE_RETRY	0xfffd
#define SROCE_FW_PACED		0xfffc

/* The address vector a UD WQE sends to. */
static int sroce_fw_ud_av(struct sroce_fw_dev *fw, struct sroce_fw_qp *qp,
			  struct sroce_av *av)
{
	const struct rxe_send_wqe *wqe = qp->swqe;
	u32 ah_num = wqe->wr.wr.ud.ah_num;
	struct sroce_fw_ah *ah;
	int err = 0;

	if (!ah_num) {
		/* Only the driver writes kernel WQEs: it embeds the vector. */
		if (qp->flags & SROCE_QP_F_USER)
			return -EINVAL;
		memcpy(av, &wqe->wr.wr.ud.av, sizeof(*av));
		return 0;
	}
	rcu_read_lock();
	ah = xa_load(&fw->ahs, ah_num);
	if (ah && ah->pdn == qp->pdn)
		*av = ah->av;
	else
		err = -EINVAL;
	rcu_read_unlock();
	return err;
}

/*
 * WQEs behind the UD WQE being sent that may join its train: all of them
 * if the next one is a datagram of the same opcode and length to the same
 * address, else none (a QP sending round robin to many peers would size a
 * train for each datagram in vain). The next WQE is read in the ring, not
 * copied: userspace may rewrite it meanwhile, which sizes a train wrong
 * at worst.
 */
static u32 sroce_fw_ud_behind(struct sroce_fw_qp *qp)
{
	const struct rxe_send_wqe *wqe = qp->swqe, *next;
	u32 behind = sroce_fw_sq_behind(qp);

	if (!behind)
		return 0;
	next = sroce_ring_slot(qp->sq, qp->sq_next + 1, qp->sq_mask,
			       qp->sq_log2_elem);
	if (READ_ONCE(next->wr.opcode) != wqe->wr.opcode ||
	    READ_ONCE(next->dma.length) != wqe->dma.length ||
	    READ_ONCE(next->wr.wr.ud.ah_num) != wqe->wr.wr.ud.ah_num)
		return 0;
	/* An address vector in the WQE (librxe before address handles). */
	if (!wqe->wr.wr.ud.ah_num &&
	    memcmp(&next->wr.wr.ud.av, &wqe->wr.wr.ud.av,
		   sizeof(wqe->wr.wr.ud.av)))
		return 0;
	return behind;
}

/*
 * Send one UD WQE. Return: an IB_WC_* status, SROCE_FW_PAGE_WAIT or
 * SROCE_FW_PAGE_RETRY if its data is in an absent page, or SROCE_FW_PACED
 * (nothing done).
 */
static u32 sroce_fw_send_ud(struct sroce_fw_dev *fw, struct sroce_fw_qp *qp,
			    struct sroce_fw_train *train, u64 len)
{
	const struct rxe_send_wqe *wqe = qp->swqe;
	struct sroce_roce_fields f = {};
	/* Zeroed: trains compare paths whole, padding included. */
	struct sroce_fw_path path = {};
	struct sroce_av av;
	u32 gen;
	int err;

	if (wqe->wr.opcode != IB_WR_SEND &&
	    wqe->wr.opcode != IB_WR_SEND_WITH_IMM)
		return IB_WC_LOC_QP_OP_ERR;
	if (len > sroce_ib_mtu_bytes(READ_ONCE(fw->port.active_mtu)))
		return IB_WC_LOC_LEN_ERR;
	if (sroce_fw_tx_hold(fw, qp))
		return SROCE_FW_PACED;
	if (sroce_fw_ud_av(fw, qp, &av) ||
	    sroce_fw_path_from_av(fw, &av, &path))
		return IB_WC_LOC_QP_OP_ERR;
	path.sport = qp->sport;
	sroce_fw_cc_path_prio(fw, &path, qp->prio);

	f.opcode = SROCE_OPCODE(SROCE_TR_UD, wqe->wr.opcode == IB_WR_SEND ?
				 SROCE_OP_SEND_ONLY : SROCE_OP_SEND_ONLY_IMM);
	f.se = wqe->wr.send_flags & IB_SEND_SOLICITED;
	f.pkey = IB_DEFAULT_PKEY_FULL;
	f.qpn = wqe->wr.wr.ud.remote_qpn & 0xffffff;
	f.psn = qp->next_psn;
	/* A Q_Key with the high bit set means "use the QP's" (IBA 10.2.5). */
	f.deth_qkey = wqe->wr.wr.ud.remote_qkey & 0x80000000 ?
		      le32_to_cpu(qp->attr.qkey) : wqe->wr.wr.ud.remote_qkey;
	f.deth_sqp = qp->qpn;
	f.imm = be32_to_cpu(wqe->wr.ex.imm_data);
	f.payload_len = len;
	gen = sroce_fw_odp_gen(fw);
	/*
	 * Datagrams of one length to one address leave as a train (not to a
	 * group).
	 */
	err = sroce_fw_send_pkt(fw, qp, train, &f, &path, 0,
				sroce_fw_ud_behind(qp));
	if (err == -EAGAIN)
		return sroce_fw_odp_park(fw, qp, gen) ? SROCE_FW_PAGE_WAIT :
							SROCE_FW_PAGE_RETRY;
	if (err)
		return IB_WC_LOC_PROT_ERR;
	qp->next_psn = sroce_psn_add(qp->next_psn, 1);
	return IB_WC_SUCCESS;
}

/* The opcode of one packet of a SEND or WRITE message. */
static u8 sroce_fw_rc_opcode(u32 wr_opcode, bool first, bool last)
{
	bool write = wr_opcode == IB_WR_RDMA_WRITE ||
		     wr_opcode == IB_WR_RDMA_WRITE_WITH_IMM;
	bool imm = wr_opcode == IB_WR_SEND_WITH_IMM ||
		   wr_opcode == IB_WR_RDMA_WRITE_WITH_IMM;

	if (wr_opcode == SROCE_FW_WR_ATOMIC_WRITE)
		return SROCE_OP_ATOMIC_WRITE;	/* 8 bytes: always one packet */
	if (wr_opcode == IB_WR_SEND_WITH_INV && last)
		return first ? SROCE_OP_SEND_ONLY_INV : SROCE_OP_SEND_LAST_INV;
	if (first && last)
		return write ? (imm ? SROCE_OP_WRITE_ONLY_IMM :
				      SROCE_OP_WRITE_ONLY) :
			       (imm ? SROCE_OP_SEND_ONLY_IMM :
				      SROCE_OP_SEND_ONLY);
	if (first)
		return write ? SROCE_OP_WRITE_FIRST : SROCE_OP_SEND_FIRST;
	if (last)
		return write ? (imm ? SROCE_OP_WRITE_LAST_IMM :
				      SROCE_OP_WRITE_LAST) :
			       (imm ? SROCE_OP_SEND_LAST_IMM :
				      SROCE_OP_SEND_LAST);
	return write ? SROCE_OP_WRITE_MIDDLE : SROCE_OP_SEND_MIDDLE;
}

/*
 * The FLUSH request of the WQE: FETH and RETH (IBA 1.5 A19.4). librxe
 * puts the length in the WQE's dma.length, as for data, not in the work
 * request's flush.length, which it leaves 0. With the selectivity "whole
 * region" the range is the region's, the RETH's address and length
 * ignored.
 */
static u32 sroce_fw_flush_fields(const struct rxe_send_wqe *wqe,
				 struct sroce_roce_fields *f)
{
	struct sroce_wqe_flush fl;

	if (!sroce_wqe_flush(&wqe->wr, &fl))
		return IB_WC_LOC_QP_OP_ERR;
	if (!sroce_feth_valid(fl.type, fl.level))
		return IB_WC_LOC_QP_OP_ERR;
	f->opcode = SROCE_OP_FLUSH;
	f->feth = fl.type | fl.level << SROCE_FETH_SEL_SHIFT;
	f->reth_rkey = fl.rkey;
	if (fl.level == SROCE_FETH_SEL_RANGE) {
		f->reth_va = fl.va;
		f->reth_len = wqe->dma.length;
	}
	return IB_WC_SUCCESS;
}

/*
 * Send an RDMA READ request, an atomic or a FLUSH: one packet, answered
 * in kind.
 *
 * A READ asks for at most what the send window has room for: the
 * responder has no acknowledgments to pace its responses by, so the
 * requester does, asking for the next part of a long READ once every
 * response to the previous part has come (the WQE is then the oldest
 * one, and the rest is sq_next_off bytes in). After a loss a READ asks
 * again only for what did not arrive. Every part has its own PSNs, in
 * order, so the WQE's PSN range is the same as for one request.
 */
static u32 sroce_fw_send_rd_atomic(struct sroce_fw_dev *fw,
				   struct sroce_fw_qp *qp,
				   struct sroce_fw_train *train,
				   const struct sroce_fw_path *path, u64 len,
				   u32 pmtu)
{
	const struct rxe_send_wqe *wqe = qp->swqe;
	struct sroce_fw_sq_track *t = &qp->track[qp->sq_next];
	struct sroce_roce_fields f = {
		.pkey = IB_DEFAULT_PKEY_FULL,
		.qpn = le32_to_cpu(qp->attr.dest_qpn),
		.psn = qp->next_psn,
	};
	u32 in_flight = sroce_psn_diff(qp->next_psn, qp->una_psn);
	u64 off = qp->sq_next_off, part = 0;
	bool again = t->started;
	u32 npkts = 1, total = 1;

	if (in_flight >= SROCE_FW_SEND_WINDOW)
		return SROCE_FW_WINDOW_FULL;
	if (off) {
		/* The next part, once all that was asked for has come. */
		if (qp->sq_cons != qp->sq_next || qp->comp_psn != qp->next_psn)
			return SROCE_FW_WINDOW_FULL;
	} else if (qp->rd_atomic_out >= max_t(u32, 1, qp->attr.max_rd_atomic)) {
		return SROCE_FW_WINDOW_FULL;
	}
	if (sroce_fw_tx_hold(fw, qp))
		return SROCE_FW_PACED;

	if (wqe->wr.opcode == IB_WR_RDMA_READ) {
		if (off > len)
			return IB_WC_LOC_LEN_ERR;
		/* The responses use one PSN each. */
		total = len - off ? DIV_ROUND_UP_ULL(len - off, pmtu) : 1;
		npkts = min(total, SROCE_FW_SEND_WINDOW - in_flight);
		/* Asked again after a loss: no further than before. */
		if (again && sroce_psn_before(qp->next_psn, t->asked_end))
			npkts = min_t(u32, npkts, sroce_psn_diff(t->asked_end,
								 qp->next_psn));
		part = min_t(u64, len - off, (u64)npkts * pmtu);
		f.opcode = SROCE_OP_READ_REQ;
		f.reth_va = wqe->wr.wr.rdma.remote_addr + off;
		f.reth_rkey = wqe->wr.wr.rdma.rkey;
		f.reth_len = part;
	} else if (wqe->wr.opcode == SROCE_FW_WR_RDMA_FLUSH) {
		u32 status = sroce_fw_flush_fields(wqe, &f);

		if (status)
			return status;
		/* The completion's byte count is the length, as rdma_rxe's. */
		len = wqe->dma.length;
	} else {
		/* An atomic reads and writes exactly 8 bytes locally. */
		if (len != sizeof(u64))
			return IB_WC_LOC_LEN_ERR;
		f.opcode = wqe->wr.opcode == IB_WR_ATOMIC_CMP_AND_SWP ?
			   SROCE_OP_CMP_SWAP : SROCE_OP_FETCH_ADD;
		f.atm_va = wqe->wr.wr.atomic.remote_addr;
		f.atm_rkey = wqe->wr.wr.atomic.rkey;
		if (f.opcode == SROCE_OP_CMP_SWAP) {
			f.atm_swap_add = wqe->wr.wr.atomic.swap;
			f.atm_cmp = wqe->wr.wr.atomic.compare_add;
		} else {
			f.atm_swap_add = wqe->wr.wr.atomic.compare_add;
		}
	}
	if (sroce_fw_send_pkt(fw, qp, train, &f, path, 0, 0))
		return IB_WC_GENERAL_ERR;

	if (!off) {
		t->wr_id = wqe->wr.wr_id;
		t->first_psn = qp->next_psn;
		t->last_psn = sroce_psn_add(qp->next_psn, total - 1);
		t->length = len;
		t->opcode = wqe->wr.opcode;
		t->local = false;
		t->signaled = (qp->flags & SROCE_QP_F_SIG_ALL) ||
			      (wqe->wr.send_flags & IB_SEND_SIGNALED);
	}
	if (!again) {
		t->started = true;
		t->asked_end = qp->next_psn;
	}
	qp->next_psn = sroce_psn_add(qp->next_psn, npkts);
	if (sroce_psn_after(qp->next_psn, t->asked_end))
		t->asked_end = qp->next_psn;
	/*
	 * Counted once per WQE: a later part finds it counted, unless a
	 * rewind (which counts everything again) came in between.
	 */
	if (!off || !qp->rd_atomic_out)
		qp->rd_atomic_out++;
	if (npkts < total) {
		qp->sq_next_off = off + part;
		return SROCE_FW_WINDOW_FULL;
	}
	return IB_WC_SUCCESS;
}

/*
 * Send what is left of the RC/UC WQE at qp->sq_next, as far as the send
 * window and the pacing allow. Return: an IB_WC_* status, or
 * SROCE_FW_WINDOW_FULL, SROCE_FW_PAGE_WAIT, SROCE_FW_PAGE_RETRY or
 * SROCE_FW_PACED with the progress kept in qp->sq_next_off.
 */
static u32 sroce_fw_send_rc(struct sroce_fw_dev *fw, struct sroce_fw_qp *qp,
			    struct sroce_fw_train *train)
{
	const struct rxe_send_wqe *wqe = qp->swqe;
	struct sroce_fw_sq_track *t = &qp->track[qp->sq_next];
	u32 pmtu = sroce_fw_qp_pmtu(fw, qp);
	struct sroce_fw_path path;
	u64 len, off = qp->sq_next_off;
	u32 gen, more;
	int err;

	switch (wqe->wr.opcode) {
	case IB_WR_SEND:
	case IB_WR_SEND_WITH_IMM:
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
		break;
	case IB_WR_SEND_WITH_INV:
	case SROCE_FW_WR_ATOMIC_WRITE:
	case SROCE_FW_WR_RDMA_FLUSH:
	case IB_WR_RDMA_READ:
	case IB_WR_ATOMIC_CMP_AND_SWP:
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		if (qp->type != SROCE_QPT_RC)
			return IB_WC_LOC_QP_OP_ERR;
		break;
	default:
		return IB_WC_LOC_QP_OP_ERR;
	}
	if (sroce_fw_swqe_length(qp, &len) || len > SROCE_FW_MAX_MSG_SIZE ||
	    DIV_ROUND_UP_ULL(len, pmtu) > SROCE_FW_MAX_MSG_PKTS)
		return IB_WC_LOC_LEN_ERR;
	/*
	 * Resuming mid-message reads the WQE from the ring again; userspace
	 * may have shortened it since, so the offset must still lie in it.
	 */
	if (off && off >= len)
		return IB_WC_LOC_LEN_ERR;
	if (sroce_fw_qp_path(fw, qp, &path))
		return IB_WC_LOC_QP_OP_ERR;

	/* A fenced WQE waits for every READ, atomic and FLUSH before it. */
	if ((wqe->wr.send_flags & IB_SEND_FENCE) && qp->rd_atomic_out)
		return SROCE_FW_WINDOW_FULL;
	if (sroce_fw_wr_is_rd_atomic(wqe->wr.opcode))
		return sroce_fw_send_rd_atomic(fw, qp, train, &path, len,
					       pmtu);

	if (!off) {
		t->wr_id = wqe->wr.wr_id;
		t->first_psn = qp->next_psn;
		t->length = len;
		t->opcode = wqe->wr.opcode;
		t->local = false;
		t->signaled = (qp->flags & SROCE_QP_F_SIG_ALL) ||
			      (wqe->wr.send_flags & IB_SEND_SIGNALED);
		t->started = true;
	}
	do {
		struct sroce_roce_fields f = {};
		u32 n = min_t(u64, len - off, pmtu);
		bool first = !off, last = off + n == len;
		u32 in_flight = sroce_psn_diff(qp->next_psn, qp->una_psn);

		if (qp->type == SROCE_QPT_RC &&
		    in_flight >= SROCE_FW_SEND_WINDOW) {
			qp->sq_next_off = off;
			return SROCE_FW_WINDOW_FULL;
		}
		if (sroce_fw_tx_hold(fw, qp)) {
			qp->sq_next_off = off;
			return SROCE_FW_PACED;
		}

		f.opcode = sroce_fw_rc_opcode(wqe->wr.opcode, first, last);
		if (qp->type == SROCE_QPT_UC)
			f.opcode = SROCE_OPCODE(SROCE_TR_UC, f.opcode);
		f.se = last && (wqe->wr.send_flags & IB_SEND_SOLICITED);
		f.pkey = IB_DEFAULT_PKEY_FULL;
		f.qpn = le32_to_cpu(qp->attr.dest_qpn);
		f.psn = qp->next_psn;
		/*
		 * Ask for an ACK at the end and now and then inside; on
		 * every packet while paced, whose gaps could otherwise
		 * outlast the transport timeout before an ACK is asked for.
		 */
		f.ackreq = qp->type == SROCE_QPT_RC &&
			   (last || qp->rp.active ||
			    in_flight % SROCE_FW_ACKREQ_EVERY ==
			    SROCE_FW_ACKREQ_EVERY - 1);
		f.reth_va = wqe->wr.wr.rdma.remote_addr;
		f.reth_rkey = wqe->wr.wr.rdma.rkey;
		f.reth_len = len;
		f.imm = be32_to_cpu(wqe->wr.ex.imm_data);
		f.ieth_rkey = wqe->wr.ex.invalidate_rkey;
		f.payload_len = n;
		gen = sroce_fw_odp_gen(fw);
		/*
		 * What may follow in this turn (sizes the train): the rest
		 * of this message, or after its last packet the WQEs behind
		 * it, as far as the window lets; nothing after a WRITE's
		 * first packet, whose RETH makes it longer than the packets
		 * behind it (a train takes one length).
		 */
		if (last)
			more = sroce_fw_sq_behind(qp);
		else if (first && (wqe->wr.opcode == IB_WR_RDMA_WRITE ||
				   wqe->wr.opcode == IB_WR_RDMA_WRITE_WITH_IMM))
			more = 0;
		else
			more = DIV_ROUND_UP_ULL(len - off - n, pmtu);
		if (qp->type == SROCE_QPT_RC)
			more = min(more, SROCE_FW_SEND_WINDOW - in_flight - 1);
		err = sroce_fw_send_pkt(fw, qp, train, &f, &path, off, more);
		if (err == -EAGAIN) {
			/* Nothing of this packet went out: resume at it. */
			qp->sq_next_off = off;
			return sroce_fw_odp_park(fw, qp, gen) ?
			       SROCE_FW_PAGE_WAIT : SROCE_FW_PAGE_RETRY;
		}
		if (err)
			return IB_WC_LOC_PROT_ERR;
		t->last_psn = qp->next_psn;
		qp->next_psn = sroce_psn_add(qp->next_psn, 1);
		off += n;
	} while (off < len);
	return IB_WC_SUCCESS;
}

/**
 * sroce_fw_flush() - ERROR state: complete everything posted with a flush
 * status
 * @fw: the function
 * @qp: the QP, whose lock is held
 */
void sroce_fw_flush(struct sroce_fw_dev *fw, struct sroce_fw_qp *qp)
{
	struct ib_uverbs_wc wc = {
		.status = IB_WC_WR_FLUSH_ERR,
		.opcode = IB_WC_RECV,
		.qp_num = qp->qpn,
		.port_num = 1,
	};
	struct sroce_fw_sq_track t = {};
	u32 prod;

	/* Acquire: the WQEs before the producer index are complete. */
	prod = smp_load_acquire(&qp->sq->producer_index) & qp->sq_mask;
	while (qp->sq_cons != prod) {
		/* Sent WQEs are known; for the others the copy has the id. */
		if (qp->sq_cons != qp->sq_high &&
		    (qp->type == SROCE_QPT_RC || qp->type == SROCE_QPT_UC)) {
			t = qp->track[qp->sq_cons];
		} else {
			sroce_fw_fetch_swqe(qp, qp->sq_cons);
			t.wr_id = qp->swqe->wr.wr_id;
			t.opcode = qp->swqe->wr.opcode;
		}
		t.length = 0;
		sroce_fw_sq_pop(fw, qp, IB_WC_WR_FLUSH_ERR, &t);
	}
	qp->sq_next = qp->sq_cons;
	qp->sq_next_off = 0;
	qp->sq_high = qp->sq_cons;
	qp->sq_err_index = SROCE_FW_NO_SQ_ERR;

	/*
	 * The receive WQE a partly received message took off the ring (or
	 * the SRQ) is the oldest: it completes first, or never would.
	 */
	if (qp->rwqe_valid) {
		wc.wr_id = qp->rwqe->wr_id;
		sroce_fw_cq_post(fw, qp->rcq, &wc, false);
		qp->rwqe_valid = false;
	}
	/* SRQ WQEs belong to the SRQ, not to this QP: they stay. */
	if (!qp->rq)
		goto out_rq_done;
	/* Acquire: as above, for the receive ring. */
	prod = smp_load_acquire(&qp->rq->producer_index) & qp->rq_mask;
	while (qp->rq_cons != prod) {
		const struct rxe_recv_wqe *rwqe =
			sroce_ring_slot(qp->rq, qp->rq_cons, qp->rq_mask,
					qp->rq_log2_elem);

		wc.wr_id = READ_ONCE(rwqe->wr_id);
		sroce_fw_cq_post(fw, qp->rcq, &wc, false);
		qp->rq_cons = sroce_ring_next(qp->rq_cons, qp->rq_mask);
	}
	/* Release: the receive slots are the producer's again. */
	smp_store_release(&qp->rq->consumer_index, qp->rq_cons);
out_rq_done:
	qp->rwqe_valid = false;
	qp->in_msg = false;
	/*
	 * A QP on an SRQ takes nothing more from it: its consumer may now
	 * destroy it without losing a WQE (IBA's Last WQE Reached).
	 */
	if (qp->srq && !qp->last_wqe_raised) {
		struct sroce_event_qp ev = { .qpn = cpu_to_le32(qp->qpn) };

		qp->last_wqe_raised = true;
		sroce_fw_post_event(fw, &qp->last_wqe_ev, &ev, sizeof(ev));
	}
}

/*
 * A local error (IBA 10.8.3): the WQE completes with @status and the QP
 * goes to ERROR, which flushes the rest. Completions stay in order: on an
 * RC QP whose earlier WQEs still wait for their acknowledgments, sending
 * stops at this one, which completes once they have (sroce_fw_sq_retire()),
 * so the error is reported in its place and not behind flushed WQEs.
 * Return: true if the QP went to ERROR, false if the error waits (the
 * caller's turn then ends as one that sent, arming the transport timer
 * for the WQEs before it).
 */
static bool sroce_fw_send_error(struct sroce_fw_dev *fw,
				struct sroce_fw_qp *qp, u32 status)
{
	struct sroce_fw_sq_track t = {
		.wr_id = qp->swqe->wr.wr_id,
		.opcode = qp->swqe->wr.opcode,
	};

	if (qp->type == SROCE_QPT_RC && qp->sq_cons != qp->sq_next) {
		qp->track[qp->sq_next] = t;
		qp->sq_err_index = qp->sq_next;
		qp->sq_err_status = status;
		return false;
	}
	sroce_fw_sq_pop(fw, qp, status, &t);
	WRITE_ONCE(qp->attr.state, SROCE_QPS_ERR);
	sroce_fw_flush(fw, qp);
	return true;
}

/* A fast-registration request fits in the work-request union. */
static_assert(sizeof(struct sroce_fast_reg_wr) <=
	      sizeof(((struct rxe_send_wr *)NULL)->wr));

static bool sroce_fw_is_local_op(u32 wr_opcode)
{
	return wr_opcode == IB_WR_LOCAL_INV || wr_opcode == IB_WR_REG_MR ||
	       wr_opcode == IB_WR_BIND_MW;
}

/*
 * Execute a local operation WQE: no packet, done when executed, completed
 * in order after the WQEs before it.
 */
static u32 sroce_fw_local_op(struct sroce_fw_dev *fw, struct sroce_fw_qp *qp)
{
	const struct rxe_send_wqe *wqe = qp->swqe;
	struct sroce_fast_reg_wr reg;

	/* A fenced one waits for every READ, atomic and FLUSH before it. */
	if ((wqe->wr.send_flags & IB_SEND_FENCE) && qp->rd_atomic_out)
		return SROCE_FW_WINDOW_FULL;
	switch (wqe->wr.opcode) {
	case IB_WR_LOCAL_INV:
		if (sroce_fw_invalidate(fw, qp->pdn, qp->qpn,
					wqe->wr.ex.invalidate_rkey, false))
			return IB_WC_LOC_QP_OP_ERR;
		return IB_WC_SUCCESS;
	case IB_WR_REG_MR:
		memcpy(&reg, &wqe->wr.wr, sizeof(reg));
		return sroce_fw_fast_reg(fw, qp, &reg);
	default:
		if (qp->type != SROCE_QPT_RC && qp->type != SROCE_QPT_UC)
			return IB_WC_LOC_QP_OP_ERR;
		return sroce_fw_bind_mw(fw, qp, wqe);
	}
}

/* WQEs a QP may turn into packets per turn of the scheduler. */
#define SROCE_FW_TX_QUANTUM	16

/*
 * Up to a quantum of WQEs from the send ring into packets, built into
 * @train. Return: as sroce_fw_req_transmit().
 */
static bool sroce_fw_req_quantum(struct sroce_fw_dev *fw,
				 struct sroce_fw_qp *qp,
				 struct sroce_fw_train *train)
{
	unsigned int quantum = SROCE_FW_TX_QUANTUM;
	/*
	 * Sending from idle, or resending after progress or an RNR delay,
	 * starts the transport timeout afresh. Resending after a rewind that
	 * was not progress does not: the timeout must run on, or a path that
	 * loses what is resent would never time out.
	 */
	bool idle = !sroce_fw_outstanding(qp) &&
		    (qp->sq_cons == qp->sq_high || qp->retry_restart);
	struct sroce_fw_sq_track t;
	bool more = false, local;
	u32 prod, status;
	u64 len;

	/* An RNR NAK's delay: its timer makes the QP ready again. */
	if (qp->rnr_wait)
		return false;
	/* Acquire: the WQEs before the producer index are complete. */
	prod = smp_load_acquire(&qp->sq->producer_index) & qp->sq_mask;
	/* SQD finishes what was started and starts nothing new. */
	if (qp->attr.state == SROCE_QPS_SQD)
		prod = qp->sq_drain_index;
	while (qp->sq_next != prod && qp->sq_next != qp->sq_err_index) {
		if (!quantum--) {
			more = true;
			break;
		}
		/* Sent again after a rewind: local operations stay done. */
		if (qp->sq_next != qp->sq_high && qp->track[qp->sq_next].local) {
			if (qp->sq_cons == qp->sq_next)
				sroce_fw_sq_retire(fw, qp, IB_WC_SUCCESS);
			else
				sroce_fw_sq_next_advance(qp);
			continue;
		}
		if (sroce_fw_fetch_swqe(qp, qp->sq_next) ||
		    sroce_fw_swqe_length(qp, &len)) {
			status = IB_WC_LOC_LEN_ERR;
			goto error;
		}
		/* Resuming a WQE that userspace turned into another one. */
		if (qp->sq_next_off &&
		    qp->swqe->wr.opcode != qp->track[qp->sq_next].opcode) {
			status = IB_WC_LOC_QP_OP_ERR;
			goto error;
		}
		local = sroce_fw_is_local_op(qp->swqe->wr.opcode);
		if (local)
			status = sroce_fw_local_op(fw, qp);
		else if (qp->type == SROCE_QPT_RC || qp->type == SROCE_QPT_UC)
			status = sroce_fw_send_rc(fw, qp, train);
		else
			status = sroce_fw_send_ud(fw, qp, train, len);
		/*
		 * The completer reschedules us when ACKs come, a translation
		 * write when the page waited for may be there, the pacing
		 * timer when the next packet is due.
		 */
		if (status == SROCE_FW_WINDOW_FULL ||
		    status == SROCE_FW_PAGE_WAIT || status == SROCE_FW_PACED)
			break;
		if (status == SROCE_FW_PAGE_RETRY) {
			more = true;
			break;
		}
		/* A local error takes the QP to ERROR (IBA 10.8.3). */
		if (status != IB_WC_SUCCESS)
			goto error;
		t = (struct sroce_fw_sq_track){
			.wr_id = qp->swqe->wr.wr_id,
			.length = local ? 0 : len,
			.opcode = qp->swqe->wr.opcode,
			.signaled = (qp->flags & SROCE_QP_F_SIG_ALL) ||
				    (qp->swqe->wr.send_flags &
				     IB_SEND_SIGNALED),
			.local = local,
		};
		if (local && qp->type == SROCE_QPT_RC) {
			/* Done: it completes once all before it have. */
			qp->track[qp->sq_next] = t;
			if (qp->sq_cons == qp->sq_next) {
				sroce_fw_sq_retire(fw, qp, IB_WC_SUCCESS);
				continue;
			}
		}
		sroce_fw_sq_next_advance(qp);
		/* RC completes on acknowledgment; UD and UC once sent. */
		if (qp->type != SROCE_QPT_RC) {
			qp->sq_cons = qp->sq_next;
			/* Release: the slot is free before the CQE shows. */
			smp_store_release(&qp->sq->consumer_index,
					  qp->sq_cons);
			sroce_fw_send_complete(fw, qp, IB_WC_SUCCESS, &t);
		}
	}
	goto out;

error:
	/*
	 * Flushed, or waiting behind WQEs that may have left in this very
	 * turn: those need the transport timer below, or a peer that never
	 * answers leaves them, and the error behind them, waiting for ever.
	 */
	if (sroce_fw_send_error(fw, qp, status))
		return false;
out:
	/* Release: the slots are the producer's again. */
	smp_store_release(&qp->sq->consumer_index, qp->sq_cons);
	if (qp->type == SROCE_QPT_RC) {
		sroce_fw_arm_retry(qp, idle);
		if (sroce_fw_outstanding(qp))
			qp->retry_restart = false;
		sroce_fw_check_sq(qp);
	}
	sroce_fw_sq_drain_check(fw, qp);
	return more;
}

/**
 * sroce_fw_req_transmit() - the requester's part of a QP's turn
 * @fw: the function
 * @qp: the QP, in RTS or SQD, whose lock is held
 *
 * Sends up to a quantum of WQEs from the send ring.
 *
 * Context: softirqs disabled, inside an RCU read-side section.
 * Return: true if the QP has more to send now, false if it is done or
 * waits for ACKs (the completer makes it ready again).
 */
bool sroce_fw_req_transmit(struct sroce_fw_dev *fw, struct sroce_fw_qp *qp)
{
	struct sroce_fw_train train;
	bool more;

	sroce_fw_train_init(&train);
	more = sroce_fw_req_quantum(fw, qp, &train);
	sroce_fw_train_send(fw, &train);
	return more;
}

/**
 * sroce_fw_sq_drain_check() - raise SQ_DRAINED once a QP in SQD is drained
 * @fw: the function
 * @qp: the QP, whose lock is held
 *
 * Drained: every WQE started before the QP entered SQD has completed (RC:
 * acknowledged; UC and UD: sent). The event is raised once per entry into
 * SQD, if that transition asked for it (en_sqd_async_notify).
 */
void sroce_fw_sq_drain_check(struct sroce_fw_dev *fw, struct sroce_fw_qp *qp)
{
	struct sroce_event_qp ev = { .qpn = cpu_to_le32(qp->qpn) };

	if (qp->attr.state != SROCE_QPS_SQD || !qp->attr.sq_draining ||
	    qp->sq_cons != qp->sq_drain_index)
		return;
	qp->attr.sq_draining = 0;
	if (qp->attr.en_sqd_async_notify)
		sroce_fw_post_event(fw, &qp->drained_ev, &ev, sizeof(ev));
}

/**
 * sroce_fw_ring_sq_doorbell() - the send doorbell
 * @fw: the function
 * @qpn: the QP whose send ring has new WQEs
 *
 * Context: any; does not sleep.
 */
void sroce_fw_ring_sq_doorbell(struct sroce_fw_dev *fw, u32 qpn)
{
	struct sroce_fw_qp *qp;

	if (READ_ONCE(fw->stopped))
		return;
	rcu_read_lock();
	qp = xa_load(&fw->qps, qpn);
	if (qp)
		sroce_fw_ring_sq(fw, qp);
	rcu_read_unlock();
}

/**
 * sroce_fw_qp_sport() - the UDP source port of a QP
 * @qpn: the QP number
 *
 * Constant for the QP (ECMP must not reorder its packets), spread over
 * the range RoCE reserves for it, 0xc000-0xffff.
 *
 * Return: the port.
 */
u16 sroce_fw_qp_sport(u32 qpn)
{
	return 0xc000 | hash_32(qpn, 14);
}
