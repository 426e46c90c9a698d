// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * sroce firmware: the responder. Received packets are handed to the QP
 * their BTH names; each consumes WQEs of the QP's receive ring, which is
 * copied and validated first, exactly as on the send side.
 *
 * Implemented: UD (and GSI) receives; RC and UC SEND and RDMA WRITE
 * requests (with immediate); RC RDMA READ, atomics and FLUSH (answered
 * by an empty READ response), recorded in a ring of max_dest_rd_atomic
 * resources whose responses the egress stage (fw_tx.c) sends, and sends
 * again from there for a repeated request (never executed twice); RC
 * sequence checking, acknowledgment, sequence NAKs, RNR NAKs and NAKs for
 * bad requests and access errors, owed here and sent by the egress stage.
 * Responses to our own requests go to the completer (fw_comp.c). The
 * receive path's handlers only record; the responder's part of a QP's
 * turn, sroce_fw_resp_transmit(), sends, whether the turn is the
 * scheduler's or the receive path's direct one (sroce_fw_resp_direct()).
 */
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <net/checksum.h>
#include <rdma/ib_verbs.h>

#include <rdma/ib_mad.h>

#include "fw.h"
#include "lib/psn.h"
#include "lib/qp_state.h"
#include "lib/ring.h"

/* AETH syndromes the responder sends (IBA 9.7.5.2.2). */
#define SROCE_SYN_ACK		(SROCE_AETH_TYPE_ACK | SROCE_AETH_CREDIT_INVALID)
#define SROCE_SYN_RNR_NAK	SROCE_AETH_TYPE_RNR_NAK
#define SROCE_SYN_NAK_PSN_SEQ	(SROCE_AETH_TYPE_NAK | SROCE_AETH_NAK_PSN_SEQ)
#define SROCE_SYN_NAK_INV_REQ	(SROCE_AETH_TYPE_NAK | SROCE_AETH_NAK_INVALID_REQ)
#define SROCE_SYN_NAK_REM_ACCESS (SROCE_AETH_TYPE_NAK | SROCE_AETH_NAK_REM_ACCESS)
#define SROCE_SYN_NAK_REM_OP	(SROCE_AETH_TYPE_NAK | SROCE_AETH_NAK_REM_OP)

/* The 40 bytes a UD receive buffer starts with (IBA 11.4.1.1). */
#define SROCE_GRH_LEN		40

/*
 * Take the next receive WQE (of the QP's own ring or of its SRQ) into
 * qp->rwqe. The slot goes back to the producer at once: only the private
 * copy is used from here on. Return: 0, -ENOENT if none is posted, or
 * -EINVAL for a WQE with too many SGEs (consumed anyway). Caller holds
 * qp->lock.
 */
static int sroce_fw_take_rwqe(struct sroce_fw_dev *fw, struct sroce_fw_qp *qp)
{
	u32 prod;

	if (qp->srq)
		return sroce_fw_srq_take(fw, qp->srq, qp->rwqe);

	/* Acquire: the WQEs before the producer index are complete. */
	prod = smp_load_acquire(&qp->rq->producer_index) & qp->rq_mask;
	if (qp->rq_cons == prod)
		return -ENOENT;
	memcpy(qp->rwqe, sroce_ring_slot(qp->rq, qp->rq_cons, qp->rq_mask,
					 qp->rq_log2_elem),
	       BIT(qp->rq_log2_elem));
	qp->rq_cons = sroce_ring_next(qp->rq_cons, qp->rq_mask);
	/* Release: the slot is the producer's again. */
	smp_store_release(&qp->rq->consumer_index, qp->rq_cons);
	return qp->rwqe->dma.num_sge > qp->max_recv_sge ? -EINVAL : 0;
}

/*
 * Scatter @len bytes of @src into the receive WQE's buffers, @off in. The
 * keys of an SRQ's WQEs belong to the SRQ's PD.
 */
static int sroce_fw_scatter(struct sroce_fw_dev *fw, struct sroce_fw_qp *qp,
			    u64 off, const u8 *src, u64 len)
{
	u32 pdn = qp->srq ? qp->srq->pdn : qp->pdn;

	return sroce_fw_sge_copy(fw, pdn, qp->rwqe->dma.sge,
				 qp->rwqe->dma.num_sge, off, (void *)src, len,
				 true);
}

/* The GRH image a UD receiver finds first in its buffer. */
static void sroce_fw_grh_image(const struct sroce_fw_pkt *pkt,
			       u8 grh[SROCE_GRH_LEN])
{
	memset(grh, 0, SROCE_GRH_LEN);
	if (pkt->net_type == SROCE_NET_ROCE_V1) {
		/* RoCE v1 carries a GRH: the receiver gets it as it came. */
		memcpy(grh, pkt->l3, SROCE_GRH_LEN);
	} else if (pkt->net_type == SROCE_NET_IPV4) {
		struct iphdr *iph = (struct iphdr *)(grh + 20);

		/*
		 * RoCE v2 over IPv4: the IPv4 header in the last 20 bytes,
		 * its checksum made here (a train's packets have headers
		 * rebuilt without one).
		 */
		memcpy(iph, pkt->l3, sizeof(*iph));
		iph->check = 0;
		iph->check = ip_fast_csum(iph, sizeof(*iph) / 4);
	} else {
		memcpy(grh, pkt->l3, sizeof(struct ipv6hdr));
	}
}

/*
 * What a kernel consumer learns of a datagram's network besides the GRH:
 * the header type, and the VLAN of the GID entry it was sent to, by which
 * ib_core finds the GID entry a reply leaves from (a CM REQ over a VLAN is
 * refused without). Taken from the entry, not the ingress device: a
 * packet between two functions of one namespace has none.
 */
static void sroce_fw_ud_cqe_ext(const struct sroce_fw_pkt *pkt,
				struct sroce_cqe_ext *ext)
{
	static const u8 net_type[] = {
		[SROCE_NET_ROCE_V1] = RDMA_NETWORK_ROCE_V1,
		[SROCE_NET_IPV4] = RDMA_NETWORK_IPV4,
		[SROCE_NET_IPV6] = RDMA_NETWORK_IPV6,
	};
	memset(ext, 0, sizeof(*ext));
	if (pkt->net_type < ARRAY_SIZE(net_type)) {
		ext->flags |= SROCE_CQE_EXT_NET_TYPE;
		ext->network_hdr_type = net_type[pkt->net_type];
	}
	if (pkt->vlan_id != SROCE_VLAN_NONE) {
		ext->flags |= SROCE_CQE_EXT_VLAN;
		ext->vlan_id = cpu_to_le16(pkt->vlan_id);
	}
}

/*
 * The sl of a UD receive's completion, as a ConnectX CQE has it for RoCE:
 * bit 3 set for UDP (RoCE v2), bits 2:0 the header in the GRH area (0 a
 * GRH, 1 IPv6, 2 IPv4). rdma_rxe's ABI has no network type field, so
 * userspace learns it here, as mlx5's provider passes it on: UCX before
 * 1.19 reads it to find the destination address in the GRH area and
 * drops the datagram when it finds none of its GIDs there. Kernel
 * consumers get network_hdr_type instead (sroce_cq.c).
 */
static const u8 sroce_fw_ud_wc_sl[] = {
	[SROCE_NET_ROCE_V1] = 0,
	[SROCE_NET_IPV6] = 0x8 | 1,
	[SROCE_NET_IPV4] = 0x8 | 2,
};

static void sroce_fw_recv_ud(struct sroce_fw_dev *fw, struct sroce_fw_qp *qp,
			     struct sroce_fw_pkt *pkt)
{
	const struct sroce_roce_info *info = &pkt->info;
	struct sroce_cqe_ext ext;
	struct ib_uverbs_wc wc = {
		.status = IB_WC_SUCCESS,
		.opcode = IB_WC_RECV,
		.qp_num = qp->qpn,
		.wc_flags = SROCE_CQE_GRH,
		.port_num = 1,
	};
	u8 grh[SROCE_GRH_LEN] __aligned(4);
	u64 capacity = 0;
	u32 qkey, i;
	int err;

	/* UD carries SEND ONLY, with or without immediate, and nothing else. */
	if (info->opcode != 0x64 && info->opcode != 0x65)
		return;
	qkey = sroce_deth_qkey(pkt->hdr + info->off[SROCE_EXT_DETH]);

	spin_lock_bh(&qp->lock);
	if (!sroce_fw_qp_receives(qp))
		goto out_unlock;
	if (qkey != le32_to_cpu(qp->attr.qkey))
		goto out_unlock;
	/*
	 * MADs are 256 bytes. ib_mad does not repost a receive that completes
	 * in error, so an oversized packet to QP1 is dropped, not allowed to
	 * eat the buffer (which would let any sender starve the agent).
	 */
	if (qp->type == SROCE_QPT_GSI && info->payload_len > IB_MGMT_MAD_SIZE) {
		sroce_fw_count(fw, SROCE_STAT_RX_QP_REFUSED);
		goto out_unlock;
	}
	err = sroce_fw_take_rwqe(fw, qp);
	if (err == -ENOENT) {
		/* No receive posted: UD drops. */
		sroce_fw_count(fw, SROCE_STAT_UD_NO_WQE);
		goto out_unlock;
	}
	wc.wr_id = qp->rwqe->wr_id;
	if (err) {
		wc.status = IB_WC_LOC_LEN_ERR;
		goto out_complete;
	}
	for (i = 0; i < qp->rwqe->dma.num_sge; i++)
		capacity += qp->rwqe->dma.sge[i].length;
	if (capacity < SROCE_GRH_LEN + info->payload_len) {
		wc.status = IB_WC_LOC_LEN_ERR;
		goto out_complete;
	}

	sroce_fw_grh_image(pkt, grh);
	if (sroce_fw_scatter(fw, qp, 0, grh, SROCE_GRH_LEN) ||
	    sroce_fw_scatter(fw, qp, SROCE_GRH_LEN,
			     pkt->hdr + info->payload_off, info->payload_len))
		wc.status = IB_WC_LOC_PROT_ERR;

	wc.byte_len = SROCE_GRH_LEN + info->payload_len;
	wc.src_qp = sroce_deth_sqp(pkt->hdr + info->off[SROCE_EXT_DETH]);
	if (pkt->net_type < ARRAY_SIZE(sroce_fw_ud_wc_sl))
		wc.sl = sroce_fw_ud_wc_sl[pkt->net_type];
	if (info->op->flags & SROCE_OPF_IMM) {
		wc.wc_flags |= SROCE_CQE_WITH_IMM;
		/* Immediate data stays in network byte order. */
		memcpy(&wc.ex.imm_data, pkt->hdr + info->off[SROCE_EXT_IMMDT],
		       sizeof(wc.ex.imm_data));
	}
out_complete:
	sroce_fw_ud_cqe_ext(pkt, &ext);
	sroce_fw_cq_post_ext(fw, qp->rcq, &wc, &ext, info->se);
out_unlock:
	spin_unlock_bh(&qp->lock);
}

static bool sroce_fw_syndrome_is_nak(u8 syndrome)
{
	return (syndrome & SROCE_AETH_TYPE_MASK) != SROCE_AETH_TYPE_ACK;
}

static bool sroce_fw_syndrome_is_rnr(u8 syndrome)
{
	return (syndrome & SROCE_AETH_TYPE_MASK) == SROCE_AETH_TYPE_RNR_NAK;
}

/*
 * Owe the requester an acknowledgment or NAK of @psn (for a NAK, the PSN
 * expected or refused); the egress stage sends it. It replaces one owed
 * already, except that a NAK is not replaced by an ACK of an earlier PSN
 * (a duplicate's). Caller holds qp->lock and makes the QP ready.
 */
static void sroce_fw_resp_owe(struct sroce_fw_qp *qp, u32 psn, u8 syndrome)
{
	struct sroce_fw_resp_ack *ack = &qp->resp_ack;

	if (ack->pending && sroce_fw_syndrome_is_nak(ack->syndrome) &&
	    !sroce_fw_syndrome_is_nak(syndrome) && sroce_psn_before(psn, ack->psn))
		return;
	/*
	 * An RNR NAK's delay must not be lost to a sequence NAK behind it;
	 * an ACK of the same PSN (the retry was accepted) does replace it.
	 */
	if (ack->pending && sroce_fw_syndrome_is_rnr(ack->syndrome) &&
	    sroce_fw_syndrome_is_nak(syndrome) &&
	    !sroce_fw_syndrome_is_rnr(syndrome) && psn == ack->psn)
		return;
	ack->psn = psn;
	ack->syndrome = syndrome;
	ack->msn = qp->msn & 0xffffff;
	ack->pending = true;
}

/* The responder hit an error it reports and cannot recover from. */
static void sroce_fw_resp_fatal(struct sroce_fw_dev *fw,
				struct sroce_fw_qp *qp, u32 psn, u8 syndrome,
				u32 wc_status)
{
	if (qp->type == SROCE_QPT_RC)
		sroce_fw_resp_owe(qp, psn, syndrome);
	if (qp->rwqe_valid) {
		struct ib_uverbs_wc wc = {
			.wr_id = qp->rwqe->wr_id,
			.status = wc_status,
			.opcode = IB_WC_RECV,
			.qp_num = qp->qpn,
			.port_num = 1,
		};

		sroce_fw_cq_post(fw, qp->rcq, &wc, false);
		qp->rwqe_valid = false;
	}
	WRITE_ONCE(qp->attr.state, SROCE_QPS_ERR);
	qp->in_msg = false;
	sroce_fw_sched_add(fw, qp);
}

/* Complete the receive WQE of the message that just ended. */
static void sroce_fw_recv_complete(struct sroce_fw_dev *fw,
				   struct sroce_fw_qp *qp,
				   const struct sroce_fw_pkt *pkt, bool write)
{
	const struct sroce_roce_info *info = &pkt->info;
	struct ib_uverbs_wc wc = {
		.wr_id = qp->rwqe->wr_id,
		.status = IB_WC_SUCCESS,
		.opcode = write ? IB_WC_RECV_RDMA_WITH_IMM : IB_WC_RECV,
		.byte_len = write ? qp->write_len : qp->msg_off,
		.qp_num = qp->qpn,
		.port_num = 1,
	};

	if (info->op->flags & SROCE_OPF_IMM) {
		wc.wc_flags = SROCE_CQE_WITH_IMM;
		memcpy(&wc.ex.imm_data, pkt->hdr + info->off[SROCE_EXT_IMMDT],
		       sizeof(wc.ex.imm_data));
	} else if (info->op->flags & SROCE_OPF_INV) {
		wc.wc_flags = SROCE_CQE_WITH_INV;
		wc.ex.invalidate_rkey =
			sroce_ieth_rkey(pkt->hdr + info->off[SROCE_EXT_IETH]);
	}
	sroce_fw_cq_post(fw, qp->rcq, &wc, info->se);
	qp->rwqe_valid = false;
}

/*
 * Refuse request @psn with RNR NAK @syndrome: the QP stays as it was, and
 * what follows is out of sequence until the requester sends it again.
 * Caller holds qp->lock and makes the QP ready.
 */
static void sroce_fw_resp_rnr(struct sroce_fw_dev *fw, struct sroce_fw_qp *qp,
			      u32 psn, u8 syndrome)
{
	sroce_fw_count(fw, SROCE_STAT_RNR_NAK_SENT);
	sroce_fw_resp_owe(qp, psn, syndrome);
	qp->nak_sent = true;
}

/*
 * Place one SEND or WRITE packet. Return: 0, or the AETH syndrome of the
 * NAK to send (RNR NAKs leave the QP as it is, the others are fatal).
 */
static u8 sroce_fw_place(struct sroce_fw_dev *fw, struct sroce_fw_qp *qp,
			 const struct sroce_fw_pkt *pkt, u32 *wc_status)
{
	const struct sroce_roce_info *info = &pkt->info;
	u32 flags = info->op->flags, n = info->payload_len;
	u32 pmtu = sroce_fw_qp_pmtu(fw, qp);
	bool write = info->off[SROCE_EXT_RETH] ||
		     (qp->in_msg && qp->write_len);
	const u8 *payload = pkt->hdr + info->payload_off;
	bool start = flags & SROCE_OPF_START;
	bool end = flags & SROCE_OPF_END;
	struct sroce_fw_mr *mr;
	u32 len;
	int err = 0;

	/* Packets of a message must come in order: FIRST, MIDDLE..., LAST. */
	if (start == qp->in_msg) {
		*wc_status = IB_WC_REM_INV_REQ_ERR;
		return SROCE_SYN_NAK_INV_REQ;
	}
	/*
	 * The IBA's length rule: FIRST and MIDDLE packets carry one path
	 * MTU, LAST ones 1 to one path MTU, ONLY ones up to one. The parser
	 * has dropped the lengths no path MTU allows (an empty LAST, a FIRST
	 * or MIDDLE of no MTU's size); this QP's path MTU is held here. A
	 * peer that packs otherwise (or a forged packet) is refused, as other
	 * responders refuse it, rather than working with sroce alone.
	 */
	if (n > pmtu || (!end && n != pmtu)) {
		*wc_status = IB_WC_REM_INV_REQ_ERR;
		return SROCE_SYN_NAK_INV_REQ;
	}
	if (start) {
		qp->msg_off = 0;
		qp->write_len = 0;
		if (info->off[SROCE_EXT_RETH]) {
			const u8 *reth = pkt->hdr + info->off[SROCE_EXT_RETH];

			qp->write_va = sroce_reth_va(reth);
			qp->write_rkey = sroce_reth_rkey(reth);
			qp->write_len = sroce_reth_len(reth);
			write = true;
		}
	}
	/* No message is longer than the IBA allows (and we advertise). */
	if (qp->write_len > SROCE_FW_MAX_MSG_SIZE ||
	    qp->msg_off + n > SROCE_FW_MAX_MSG_SIZE) {
		*wc_status = IB_WC_REM_INV_REQ_ERR;
		return SROCE_SYN_NAK_INV_REQ;
	}
	/* A receive WQE is needed by SENDs and by WRITEs with immediate. */
	if (!qp->rwqe_valid && ((!write && start) ||
				(write && end && (flags & SROCE_OPF_IMM)))) {
		err = sroce_fw_take_rwqe(fw, qp);
		if (err == -ENOENT)
			return SROCE_SYN_RNR_NAK | qp->attr.min_rnr_timer;
		qp->rwqe_valid = true;
		if (err) {
			*wc_status = IB_WC_LOC_LEN_ERR;
			return SROCE_SYN_NAK_INV_REQ;
		}
	}

	if (write) {
		if (!(le32_to_cpu(qp->attr.access_flags) &
		      SROCE_ACCESS_REMOTE_WRITE) ||
		    qp->msg_off + n > qp->write_len) {
			*wc_status = IB_WC_REM_ACCESS_ERR;
			return SROCE_SYN_NAK_REM_ACCESS;
		}
		/*
		 * The packets carry exactly the DMA length the RETH named:
		 * a shorter WRITE would complete reporting bytes that never
		 * came (and an ATOMIC WRITE carries 8).
		 */
		if (end && qp->msg_off + n != qp->write_len) {
			*wc_status = IB_WC_REM_INV_REQ_ERR;
			return SROCE_SYN_NAK_INV_REQ;
		}
		/* ATOMIC WRITE: 8 naturally aligned bytes, stored as one. */
		if (info->opcode == SROCE_OP_ATOMIC_WRITE && (qp->write_va & 7)) {
			*wc_status = IB_WC_REM_INV_REQ_ERR;
			return SROCE_SYN_NAK_INV_REQ;
		}
		/*
		 * The first packet checks the whole range the RETH names, as
		 * the responder validates a request: a WRITE that runs past
		 * its region leaves no byte of it behind.
		 */
		len = start ? qp->write_len : n;
		rcu_read_lock();
		mr = sroce_fw_mr_lookup(fw, qp->write_rkey, qp->pdn, qp->qpn,
					SROCE_ACCESS_REMOTE_WRITE,
					qp->write_va + qp->msg_off, len);
		if (mr && info->opcode == SROCE_OP_ATOMIC_WRITE) {
			u64 word;

			memcpy(&word, payload, sizeof(word));
			err = sroce_fw_mr_store_u64(fw, mr, qp->write_va, word);
		} else if (mr) {
			err = sroce_fw_mr_copy(fw, mr,
					       qp->write_va + qp->msg_off,
					       (void *)payload, n, true);
		}
		rcu_read_unlock();
		/* A page to fault in: retried after the RNR delay. */
		if (err == -EAGAIN)
			return SROCE_SYN_RNR_NAK | qp->attr.min_rnr_timer;
		if ((!mr && len) || err) {
			*wc_status = IB_WC_REM_ACCESS_ERR;
			return SROCE_SYN_NAK_REM_ACCESS;
		}
		sroce_fw_count(fw, SROCE_STAT_RX_WRITE_REQ);
	} else {
		err = sroce_fw_scatter(fw, qp, qp->msg_off, payload, n);
		if (err == -EAGAIN)
			return SROCE_SYN_RNR_NAK | qp->attr.min_rnr_timer;
		/* A page of the receive buffer that could not be faulted. */
		if (err == -EFAULT) {
			*wc_status = IB_WC_LOC_PROT_ERR;
			return SROCE_SYN_NAK_REM_OP;
		}
		if (err) {
			*wc_status = IB_WC_LOC_LEN_ERR;
			return SROCE_SYN_NAK_INV_REQ;
		}
	}
	/* SEND with invalidate: the key dies before the completion shows. */
	if (end && (flags & SROCE_OPF_INV) &&
	    sroce_fw_invalidate(fw, qp->pdn, qp->qpn,
				sroce_ieth_rkey(pkt->hdr +
						info->off[SROCE_EXT_IETH]),
				true)) {
		*wc_status = IB_WC_REM_INV_REQ_ERR;
		return SROCE_SYN_NAK_INV_REQ;
	}
	qp->msg_off += n;
	qp->in_msg = !end;
	if (end) {
		if (qp->rwqe_valid)
			sroce_fw_recv_complete(fw, qp, pkt, write);
		qp->msn = (qp->msn + 1) & 0xffffff;
	}
	return 0;
}

/* Serializes responder atomics of every function (IB_ATOMIC_HCA). */
static DEFINE_SPINLOCK(sroce_fw_atomic_lock);

static bool sroce_fw_res_done(const struct sroce_fw_rd_res *r)
{
	return sroce_psn_after(r->next_psn, r->last_psn);
}

/* Resource number @n. The ring's size divides 2^32: numbers may wrap. */
static_assert(!(SROCE_FW_MAX_RD_ATOMIC & (SROCE_FW_MAX_RD_ATOMIC - 1)));
static struct sroce_fw_rd_res *sroce_fw_res(struct sroce_fw_qp *qp, u32 n)
{
	return &qp->res[n & (SROCE_FW_MAX_RD_ATOMIC - 1)];
}

/* Move res_tx past resources whose responses are all sent. */
static void sroce_fw_res_skip_done(struct sroce_fw_qp *qp)
{
	while (qp->res_tx != qp->res_tail &&
	       sroce_fw_res_done(sroce_fw_res(qp, qp->res_tx)))
		qp->res_tx++;
}

/*
 * A resource for a new READ, atomic or FLUSH. With res_cap held, the
 * oldest one goes: a new request means the requester is done with it, so
 * a repeat of it being answered again stops; but one never answered in
 * full means the requester has more outstanding than the
 * max_dest_rd_atomic it was given, which is refused (NULL; IBA 9.7.5.2.2).
 */
static struct sroce_fw_rd_res *sroce_fw_res_new(struct sroce_fw_qp *qp)
{
	sroce_fw_res_skip_done(qp);
	if (qp->res_held >= qp->res_cap) {
		u32 oldest = qp->res_tail - qp->res_held;

		if (!sroce_fw_res(qp, oldest)->answered)
			return NULL;
		qp->res_held--;
		if ((int)(qp->res_tx - oldest) <= 0)
			qp->res_tx = oldest + 1;
		sroce_fw_res_skip_done(qp);
	}
	qp->res_held++;
	return sroce_fw_res(qp, qp->res_tail++);
}

/* Whether sroce_fw_res_new() would give a resource now. */
static bool sroce_fw_res_free(struct sroce_fw_qp *qp)
{
	return qp->res_held < qp->res_cap ||
	       sroce_fw_res(qp, qp->res_tail - qp->res_held)->answered;
}

/* Take back the resource sroce_fw_res_new() just gave. */
static void sroce_fw_res_unnew(struct sroce_fw_qp *qp)
{
	qp->res_tail--;
	qp->res_held--;
	if ((int)(qp->res_tx - qp->res_tail) > 0)
		qp->res_tx = qp->res_tail;
}

/*
 * Record an accepted READ or FLUSH in a new resource spanning @npkts PSNs
 * from the request's, with the request's MSN. Return: the resource, or
 * NULL when the requester exceeds max_dest_rd_atomic.
 */
static struct sroce_fw_rd_res *sroce_fw_res_record(struct sroce_fw_qp *qp,
						   const struct sroce_fw_pkt *pkt,
						   u32 npkts)
{
	struct sroce_fw_rd_res *r = sroce_fw_res_new(qp);

	if (!r)
		return NULL;
	qp->msn = (qp->msn + 1) & 0xffffff;
	*r = (struct sroce_fw_rd_res){
		.first_psn = pkt->info.psn,
		.last_psn = sroce_psn_add(pkt->info.psn, npkts - 1),
		.next_psn = pkt->info.psn,
		.opcode = pkt->info.opcode,
		.msn = qp->msn,
	};
	return r;
}

/*
 * Accept an RDMA READ request: check it and record it; the egress stage
 * sends the responses. Return: 0 or the NAK syndrome.
 */
static u8 sroce_fw_take_read(struct sroce_fw_dev *fw, struct sroce_fw_qp *qp,
			     const struct sroce_fw_pkt *pkt, u32 *npkts)
{
	const u8 *reth = pkt->hdr + pkt->info.off[SROCE_EXT_RETH];
	u64 va = sroce_reth_va(reth);
	u32 rkey = sroce_reth_rkey(reth), len = sroce_reth_len(reth);
	u32 pmtu = sroce_fw_qp_pmtu(fw, qp);
	struct sroce_fw_rd_res *r;
	bool ok = true;

	if (!(le32_to_cpu(qp->attr.access_flags) & SROCE_ACCESS_REMOTE_READ))
		return SROCE_SYN_NAK_REM_ACCESS;
	*npkts = len ? DIV_ROUND_UP(len, pmtu) : 1;
	if (len > SROCE_FW_MAX_MSG_SIZE || *npkts > SROCE_FW_MAX_MSG_PKTS)
		return SROCE_SYN_NAK_INV_REQ;
	if (len) {
		rcu_read_lock();
		ok = sroce_fw_mr_lookup(fw, rkey, qp->pdn, qp->qpn,
					SROCE_ACCESS_REMOTE_READ, va, len);
		rcu_read_unlock();
	}
	if (!ok)
		return SROCE_SYN_NAK_REM_ACCESS;
	r = sroce_fw_res_record(qp, pkt, *npkts);
	if (!r)
		return SROCE_SYN_NAK_INV_REQ;
	r->rkey = rkey;
	r->va = va;
	r->len = len;
	return 0;
}

/* What an atomic request asks. */
struct sroce_fw_atomic_req {
	bool cmp_swap;
	u64 cmp;
	u64 swap_add;
};

/* The value atomic request @arg leaves in place of @orig. */
static u64 sroce_fw_atomic_op(u64 orig, const void *arg)
{
	const struct sroce_fw_atomic_req *a = arg;

	if (a->cmp_swap)
		return orig == a->cmp ? a->swap_add : orig;
	return orig + a->swap_add;
}

/*
 * Execute an atomic and record its result. Return: 0 or the NAK syndrome
 * (an RNR NAK leaves the QP as it was: the atomic was not executed).
 */
static u8 sroce_fw_do_atomic(struct sroce_fw_dev *fw, struct sroce_fw_qp *qp,
			     const struct sroce_fw_pkt *pkt)
{
	const u8 *atm = pkt->hdr + pkt->info.off[SROCE_EXT_ATMETH];
	const struct sroce_fw_atomic_req req = {
		.cmp_swap = pkt->info.opcode == SROCE_OP_CMP_SWAP,
		.cmp = sroce_atmeth_cmp(atm),
		.swap_add = sroce_atmeth_swap_add(atm),
	};
	u64 va = sroce_atmeth_va(atm), orig, val;
	struct sroce_fw_rd_res *r;
	struct sroce_fw_mr *mr;
	int err = 0;

	if (!(le32_to_cpu(qp->attr.access_flags) &
	      SROCE_ACCESS_REMOTE_ATOMIC))
		return SROCE_SYN_NAK_REM_ACCESS;
	/* Atomics work on naturally aligned 64-bit words (IBA 9.4.5). */
	if (va & 7)
		return SROCE_SYN_NAK_INV_REQ;
	/* Checked before the memory changes: a refused one has no effect. */
	r = sroce_fw_res_new(qp);
	if (!r)
		return SROCE_SYN_NAK_INV_REQ;
	rcu_read_lock();
	mr = sroce_fw_mr_lookup(fw, sroce_atmeth_rkey(atm), qp->pdn, qp->qpn,
				SROCE_ACCESS_REMOTE_ATOMIC, va, sizeof(u64));
	if (!mr) {
		rcu_read_unlock();
		sroce_fw_res_unnew(qp);
		return SROCE_SYN_NAK_REM_ACCESS;
	}
	if (mr->type == SROCE_MR_ODP) {
		err = sroce_fw_odp_atomic(fw, mr, va, sroce_fw_atomic_op, &req,
					  &orig, &sroce_fw_atomic_lock);
	} else {
		spin_lock(&sroce_fw_atomic_lock);
		sroce_fw_mr_copy(fw, mr, va, &orig, sizeof(orig), false);
		val = sroce_fw_atomic_op(orig, &req);
		sroce_fw_mr_copy(fw, mr, va, &val, sizeof(val), true);
		spin_unlock(&sroce_fw_atomic_lock);
	}
	rcu_read_unlock();
	if (err) {
		/* Not executed: a page to fault in, or one that failed. */
		sroce_fw_res_unnew(qp);
		return err == -EAGAIN ?
		       SROCE_SYN_RNR_NAK | qp->attr.min_rnr_timer :
		       SROCE_SYN_NAK_REM_ACCESS;
	}

	qp->msn = (qp->msn + 1) & 0xffffff;
	*r = (struct sroce_fw_rd_res){
		.first_psn = pkt->info.psn,
		.last_psn = pkt->info.psn,
		.next_psn = pkt->info.psn,
		.opcode = pkt->info.opcode,
		.msn = qp->msn,
		.orig = orig,
	};
	return 0;
}

/*
 * Execute an RDMA FLUSH (IBA 1.5 A19) and record it: every request before
 * it was placed in PSN order by the CPU, and a write barrier makes that
 * globally visible before its response can leave. Persistence needs a
 * region with the right, which no region has (fw_abi.h); windows carry no
 * FLUSH right either. Return: 0 or the NAK syndrome.
 */
static u8 sroce_fw_do_flush(struct sroce_fw_dev *fw, struct sroce_fw_qp *qp,
			    const struct sroce_fw_pkt *pkt)
{
	const u8 *reth = pkt->hdr + pkt->info.off[SROCE_EXT_RETH];
	u32 feth = sroce_feth(pkt->hdr + pkt->info.off[SROCE_EXT_FETH]);
	u32 type = feth & SROCE_FETH_PLT_MASK, access = 0;
	u32 level = (feth & SROCE_FETH_SEL_MASK) >> SROCE_FETH_SEL_SHIFT;
	u32 rkey = sroce_reth_rkey(reth);
	bool ok;

	if (type & SROCE_FETH_PLT_GLOBAL)
		access |= SROCE_ACCESS_FLUSH_GLOBAL;
	if (type & SROCE_FETH_PLT_PERSISTENT)
		access |= SROCE_ACCESS_FLUSH_PERSISTENT;
	/* A type or a selectivity the IBA does not define is invalid. */
	if (!sroce_feth_valid(type, level))
		return SROCE_SYN_NAK_INV_REQ;
	if ((le32_to_cpu(qp->attr.access_flags) & access) != access)
		return SROCE_SYN_NAK_REM_ACCESS;
	rcu_read_lock();
	if (level == SROCE_FETH_SEL_REGION)
		ok = sroce_fw_region_whole(fw, rkey, qp->pdn, access);
	else
		ok = sroce_fw_mr_lookup(fw, rkey, qp->pdn, qp->qpn, access,
					sroce_reth_va(reth),
					sroce_reth_len(reth));
	rcu_read_unlock();
	if (!ok)
		return SROCE_SYN_NAK_REM_ACCESS;
	if (!sroce_fw_res_record(qp, pkt, 1))
		return SROCE_SYN_NAK_INV_REQ;
	/* What was placed is visible before the response says it is. */
	wmb();
	return 0;
}

/*
 * A repeated READ, atomic or FLUSH: answer it again from its resources, from
 * the PSN it names (a READ is asked again only for what did not arrive,
 * and such a request may span several earlier ones), without executing
 * anything. What is sent again is the resources' own, checked when they
 * were accepted, so a forged repeat costs at most what the ring holds.
 * One no longer held is not answered. Return: true if responses are owed
 * again.
 */
static bool sroce_fw_replay(struct sroce_fw_qp *qp,
			    const struct sroce_fw_pkt *pkt)
{
	u32 held = qp->res_held, psn = pkt->info.psn;
	u32 npkts = 1, i, index;
	bool found = false;

	if (pkt->info.opcode == SROCE_OP_READ_REQ) {
		u32 len = sroce_reth_len(pkt->hdr +
					 pkt->info.off[SROCE_EXT_RETH]);

		npkts = len ? DIV_ROUND_UP(len, sroce_fw_qp_pmtu(qp->fw, qp)) : 1;
	}
	/* The oldest resource held first: they are in PSN order. */
	for (i = held; i; i--) {
		struct sroce_fw_rd_res *r;

		index = qp->res_tail - i;
		r = sroce_fw_res(qp, index);
		if (!found) {
			if (!sroce_psn_in_range(psn, r->first_psn, r->last_psn))
				continue;
			/* A repeat of another request is forged. */
			if (r->opcode != pkt->info.opcode)
				return false;
			if (r->opcode != SROCE_OP_READ_REQ)
				psn = r->first_psn;
			found = true;
			if ((int)(index - qp->res_tx) < 0)
				qp->res_tx = index;
		} else {
			/* The next one, if the repeat asks for it too. */
			if (r->opcode != pkt->info.opcode ||
			    sroce_psn_diff(r->first_psn, pkt->info.psn) >=
			    (int)npkts)
				break;
			psn = r->first_psn;
		}
		if (sroce_fw_res_done(r) || sroce_psn_before(psn, r->next_psn))
			r->next_psn = psn;
	}
	return found;
}

/*
 * RC READ, atomic and FLUSH requests. Caller holds qp->lock. Return: true
 * if a new one was accepted (executed, for an atomic or a FLUSH), its
 * responses owed.
 */
static bool sroce_fw_recv_rd_atomic(struct sroce_fw_dev *fw,
				    struct sroce_fw_qp *qp,
				    struct sroce_fw_pkt *pkt)
{
	int diff = sroce_psn_diff(pkt->info.psn, qp->epsn);
	u32 npkts = 1;
	u8 syndrome;

	if (diff < 0) {
		sroce_fw_count(fw, SROCE_STAT_DUP_REQ);
		if (sroce_fw_replay(qp, pkt))
			pkt->ready_qp = qp;
		return false;
	}
	if (diff > 0) {
		sroce_fw_count(fw, SROCE_STAT_OUT_OF_SEQ);
		if (!qp->nak_sent) {
			sroce_fw_resp_owe(qp, qp->epsn, SROCE_SYN_NAK_PSN_SEQ);
			pkt->ready_qp = qp;
		}
		qp->nak_sent = true;
		return false;
	}
	qp->nak_sent = false;
	if (qp->in_msg) {
		syndrome = SROCE_SYN_NAK_INV_REQ;
	} else if (pkt->info.opcode == SROCE_OP_READ_REQ) {
		sroce_fw_count(fw, SROCE_STAT_RX_READ_REQ);
		syndrome = sroce_fw_take_read(fw, qp, pkt, &npkts);
	} else if (pkt->info.opcode == SROCE_OP_FLUSH) {
		/*
		 * rdma_rxe's requester does not count FLUSHes against
		 * max_rd_atomic: one that finds every resource still owed
		 * is dropped rather than refused, and comes again with the
		 * requester's retry (at once, after the sequence NAK that
		 * what follows it draws).
		 */
		if (!sroce_fw_res_free(qp))
			return false;
		syndrome = sroce_fw_do_flush(fw, qp, pkt);
	} else {
		sroce_fw_count(fw, SROCE_STAT_RX_ATOMIC_REQ);
		syndrome = sroce_fw_do_atomic(fw, qp, pkt);
	}
	pkt->ready_qp = qp;
	if ((syndrome & SROCE_AETH_TYPE_MASK) == SROCE_AETH_TYPE_RNR_NAK) {
		sroce_fw_resp_rnr(fw, qp, pkt->info.psn, syndrome);
		return false;
	}
	if (syndrome) {
		sroce_fw_resp_fatal(fw, qp, pkt->info.psn, syndrome,
				    syndrome == SROCE_SYN_NAK_REM_ACCESS ?
				    IB_WC_REM_ACCESS_ERR :
				    IB_WC_REM_INV_REQ_ERR);
		return false;
	}
	qp->epsn = sroce_psn_add(pkt->info.psn, npkts);
	return true;
}

/*
 * Send up to @budget responses of READ resource @r along @path, built
 * into the turn's @train. Return:
 * 0; -EBUSY when the reaction point holds the next one (the pacing timer
 * brings the QP back); -EAGAIN when a page of an on-demand paging region
 * is absent (a fault is raised; the response waits, unsent); -EACCES when
 * its region no longer covers it (invalidated or deregistered since the
 * request was accepted) or a page could not be faulted.
 */
static int sroce_fw_res_send_read(struct sroce_fw_dev *fw,
				  struct sroce_fw_qp *qp,
				  struct sroce_fw_train *train,
				  struct sroce_fw_rd_res *r,
				  const struct sroce_fw_path *path,
				  unsigned int *budget)
{
	u32 pmtu = sroce_fw_qp_pmtu(fw, qp);
	u32 index = sroce_psn_diff(r->next_psn, r->first_psn);
	u32 npkts = sroce_psn_diff(r->last_psn, r->first_psn) + 1;
	u64 off = (u64)index * pmtu;
	u32 n = min_t(u32, npkts - index, *budget);
	u64 bytes = min_t(u64, (u64)n * pmtu, r->len - off);
	struct sroce_fw_mr *mr = NULL;
	int err = 0;

	rcu_read_lock();
	/* This turn's part of the range, checked again: it may be gone. */
	if (bytes) {
		mr = sroce_fw_mr_lookup(fw, r->rkey, qp->pdn, qp->qpn,
					SROCE_ACCESS_REMOTE_READ, r->va + off,
					bytes);
		if (!mr) {
			err = -EACCES;
			goto out_unlock;
		}
	}
	for (; n; n--, index++, (*budget)--) {
		struct sroce_roce_fields f = {
			.pkey = IB_DEFAULT_PKEY_FULL,
			.qpn = le32_to_cpu(qp->attr.dest_qpn),
			.psn = r->next_psn,
			.aeth_syndrome = SROCE_SYN_ACK,
			.aeth_msn = r->msn,
			.payload_len = min_t(u64, r->len - off, pmtu),
		};
		u8 *payload;

		if (sroce_fw_tx_hold(fw, qp)) {
			err = -EBUSY;
			goto out_unlock;
		}
		if (npkts == 1)
			f.opcode = SROCE_OP_READ_RESP_ONLY;
		else if (!index)
			f.opcode = SROCE_OP_READ_RESP_FIRST;
		else if (index == npkts - 1)
			f.opcode = SROCE_OP_READ_RESP_LAST;
		else
			f.opcode = SROCE_OP_READ_RESP_MIDDLE;
		/*
		 * No memory: lost like a dropped packet, asked for again. A
		 * first response's AETH makes it longer than the middle ones
		 * behind it: a train of its own.
		 */
		if (!sroce_fw_tx_begin(fw, train, path, &f,
				       f.opcode == SROCE_OP_READ_RESP_FIRST ?
				       0 : n - 1, &payload)) {
			err = f.payload_len ?
			      sroce_fw_mr_copy(fw, mr, r->va + off, payload,
					       f.payload_len, false) : 0;
			if (err) {
				/* A page to wait for, or one that failed. */
				sroce_fw_tx_cancel(train);
				if (err != -EAGAIN)
					err = -EACCES;
				goto out_unlock;
			}
			sroce_fw_tx_commit(fw, qp, train);
		}
		off += f.payload_len;
		r->next_psn = sroce_psn_add(r->next_psn, 1);
	}
	if (sroce_fw_res_done(r))
		r->answered = true;
out_unlock:
	rcu_read_unlock();
	return err;
}

/*
 * Send the ATOMIC ACKNOWLEDGE of resource @r along @path. Return: 0, or
 * -EBUSY when the reaction point holds it.
 */
static int sroce_fw_res_send_atomic(struct sroce_fw_dev *fw,
				    struct sroce_fw_qp *qp,
				    struct sroce_fw_train *train,
				    struct sroce_fw_rd_res *r,
				    const struct sroce_fw_path *path,
				    unsigned int *budget)
{
	struct sroce_roce_fields f = {
		.opcode = SROCE_OP_ATOMIC_ACK,
		.pkey = IB_DEFAULT_PKEY_FULL,
		.qpn = le32_to_cpu(qp->attr.dest_qpn),
		.psn = r->first_psn,
		.aeth_syndrome = SROCE_SYN_ACK,
		.aeth_msn = r->msn,
		.atmack_orig = r->orig,
	};
	u8 *payload;

	if (sroce_fw_tx_hold(fw, qp))
		return -EBUSY;
	if (!sroce_fw_tx_begin(fw, train, path, &f, 0, &payload))
		sroce_fw_tx_commit(fw, qp, train);
	r->next_psn = sroce_psn_add(r->first_psn, 1);
	r->answered = true;
	(*budget)--;
	return 0;
}

/*
 * Move the acknowledgment owed into @ack, to be sent after the QP's lock
 * is released; @path if already resolved, else NULL. With no route it is
 * lost, as on a dead link. Caller holds qp->lock; one is owed.
 */
static void sroce_fw_resp_take_ack(struct sroce_fw_dev *fw,
				   struct sroce_fw_qp *qp,
				   const struct sroce_fw_path *path,
				   struct sroce_fw_reply *ack)
{
	struct sroce_fw_resp_ack *owed = &qp->resp_ack;

	owed->pending = false;
	if (path)
		ack->path = *path;
	else if (sroce_fw_qp_path(fw, qp, &ack->path))
		return;
	ack->f = (struct sroce_roce_fields){
		.opcode = SROCE_OP_ACK,
		.pkey = IB_DEFAULT_PKEY_FULL,
		.qpn = le32_to_cpu(qp->attr.dest_qpn),
		.psn = owed->psn,
		.aeth_syndrome = owed->syndrome,
		.aeth_msn = owed->msn,
	};
	ack->pending = true;
}

/*
 * The receive path's direct turn: when a direct turn is allowed
 * (sroce_fw_sched_direct_ok()), the responder's part of the turn the
 * packet made due (ACK, READ responses, atomic acknowledgment) is taken
 * here, under the lock already held, rather than in a turn of its own once
 * it is released, as the doorbell's direct turn sends a poster's WQEs.
 * What one quantum leaves goes on the ready list, behind the QPs that
 * come to wait meanwhile; the receive path then runs the list. Not for a
 * packet of a train received whole (@pkt->in_train): the train's receiver
 * rings the QP after the train instead. Caller holds qp->lock, inside an
 * RCU read-side section; the packet was accepted and made the QP ready.
 * @ack: as for sroce_fw_resp_transmit(), sent once the lock is released.
 */
static void sroce_fw_resp_direct(struct sroce_fw_dev *fw,
				 struct sroce_fw_qp *qp,
				 struct sroce_fw_pkt *pkt,
				 struct sroce_fw_reply *ack)
{
	if (pkt->in_train || !sroce_fw_sched_direct_ok(fw, qp))
		return;
	if (sroce_fw_resp_transmit(fw, qp, ack))
		sroce_fw_sched_add(fw, qp);
	pkt->ready_qp = NULL;
}

/*
 * READ response packets (or atomic acknowledgments) per turn of a QP, so
 * that a long READ shares the port with other QPs' turns whatever the
 * requester's window (SROCE_FW_SEND_WINDOW, 64 today).
 */
#define SROCE_FW_RESP_QUANTUM	64

/**
 * sroce_fw_resp_transmit() - the responder's part of a QP's turn
 * @fw: the function
 * @qp: an RC QP, whose lock is held
 * @ack: set to the acknowledgment owed, if it may leave now; the caller
 *	 sends it with sroce_fw_reply_send() after releasing the lock
 *
 * Sends up to a quantum of responses, oldest resource first, then takes
 * the ACK or NAK owed if no response to an earlier request is still to
 * be sent (responses leave in PSN order). In ERROR only a NAK leaves.
 *
 * Context: softirqs disabled, inside an RCU read-side section.
 * Return: true if responses are still owed and can be sent now (not
 * while waiting for a page of an on-demand paging region).
 */
bool sroce_fw_resp_transmit(struct sroce_fw_dev *fw, struct sroce_fw_qp *qp,
			    struct sroce_fw_reply *ack)
{
	unsigned int budget = SROCE_FW_RESP_QUANTUM;
	struct sroce_fw_resp_ack *owed = &qp->resp_ack;
	struct sroce_fw_train train;
	struct sroce_fw_path path;
	bool routed = false, parked = false, paced = false;
	u32 gen;
	int err;

	switch (qp->attr.state) {
	case SROCE_QPS_RTR:
	case SROCE_QPS_RTS:
	case SROCE_QPS_SQD:
		break;
	case SROCE_QPS_ERR:
		qp->res_tx = qp->res_tail;
		if (owed->pending && !sroce_fw_syndrome_is_nak(owed->syndrome))
			owed->pending = false;
		goto out_ack;
	default:
		return false;
	}
	sroce_fw_train_init(&train);
	for (sroce_fw_res_skip_done(qp); qp->res_tx != qp->res_tail && budget;
	     sroce_fw_res_skip_done(qp)) {
		struct sroce_fw_rd_res *r = sroce_fw_res(qp, qp->res_tx);

		if (!routed && sroce_fw_qp_path(fw, qp, &path)) {
			/* No route: what is owed is lost, as on a dead link. */
			qp->res_tx = qp->res_tail;
			owed->pending = false;
			return false;
		}
		routed = true;
		if (r->opcode == SROCE_OP_CMP_SWAP ||
		    r->opcode == SROCE_OP_FETCH_ADD) {
			paced = sroce_fw_res_send_atomic(fw, qp, &train, r,
							 &path, &budget) ==
				-EBUSY;
			if (paced)
				break;
			continue;
		}
		gen = sroce_fw_odp_gen(fw);
		err = sroce_fw_res_send_read(fw, qp, &train, r, &path,
					     &budget);
		if (err == -EBUSY) {
			paced = true;
			break;
		}
		if (err == -EAGAIN) {
			/*
			 * Made ready again by the driver's next page write, or
			 * at once if one came meanwhile.
			 */
			parked = sroce_fw_odp_park(fw, qp, gen);
			break;
		}
		if (err) {
			sroce_fw_train_send(fw, &train);
			sroce_fw_resp_fatal(fw, qp, r->next_psn,
					    SROCE_SYN_NAK_REM_ACCESS,
					    IB_WC_REM_ACCESS_ERR);
			qp->res_tx = qp->res_tail;
			break;
		}
	}
	/* Before the ACK this turn takes, which follows them. */
	sroce_fw_train_send(fw, &train);
	if (qp->res_tx != qp->res_tail &&
	    !sroce_psn_before(owed->psn,
			      sroce_fw_res(qp, qp->res_tx)->first_psn))
		return !parked && !paced;
out_ack:
	if (owed->pending)
		sroce_fw_resp_take_ack(fw, qp, routed ? &path : NULL, ack);
	return qp->res_tx != qp->res_tail && !parked && !paced;
}

/**
 * sroce_fw_reply_send() - send what sroce_fw_resp_transmit() took
 * @fw: the function
 * @ack: the acknowledgment, if ack->pending
 *
 * Context: softirqs disabled, inside an RCU read-side section; the QP's
 * lock may be held or not.
 */
void sroce_fw_reply_send(struct sroce_fw_dev *fw, struct sroce_fw_reply *ack)
{
	struct sk_buff *skb;
	u8 *payload;

	if (!ack->pending)
		return;
	skb = sroce_fw_tx_alloc(fw, &ack->f, &payload);
	if (!IS_ERR(skb))
		sroce_fw_tx_ctrl(fw, skb, &ack->path);
}

/**
 * sroce_fw_resp_set_cap() - take max_dest_rd_atomic as the number of
 * resources held
 * @qp: an RC QP, whose lock is held
 *
 * Resources keep their slots whatever the number: those held stay held,
 * but for the oldest ones when it shrinks below them (a requester still
 * owed their responses exceeds the new limit).
 */
void sroce_fw_resp_set_cap(struct sroce_fw_qp *qp)
{
	qp->res_cap = clamp_t(u32, qp->attr.max_dest_rd_atomic, 1,
			      SROCE_FW_MAX_RD_ATOMIC);
	if (qp->res_held <= qp->res_cap)
		return;
	qp->res_held = qp->res_cap;
	if ((int)(qp->res_tx - (qp->res_tail - qp->res_held)) < 0)
		qp->res_tx = qp->res_tail - qp->res_held;
}

/**
 * sroce_fw_resp_reset() - forget every response owed
 * @qp: an RC QP, whose lock is held, going to RESET
 */
void sroce_fw_resp_reset(struct sroce_fw_qp *qp)
{
	sroce_fw_resp_set_cap(qp);
	qp->res_held = 0;
	qp->res_tail = 0;
	qp->res_tx = 0;
	qp->resp_ack.pending = false;
}

static void sroce_fw_recv_rc(struct sroce_fw_dev *fw, struct sroce_fw_qp *qp,
			     struct sroce_fw_pkt *pkt)
{
	const struct sroce_roce_info *info = &pkt->info;
	u32 flags = info->op->flags;
	u32 wc_status = IB_WC_REM_INV_REQ_ERR;
	bool rc = qp->type == SROCE_QPT_RC;
	struct sroce_fw_reply ack;
	u8 syndrome;
	int diff;

	/* Responses go to the completer, requests are for us. */
	if (flags & SROCE_OPF_RESP) {
		if (rc)
			sroce_fw_complete_rc(fw, qp, pkt);
		return;
	}
	if (rc && (info->opcode == SROCE_OP_READ_REQ ||
		   info->opcode == SROCE_OP_CMP_SWAP ||
		   info->opcode == SROCE_OP_FETCH_ADD ||
		   info->opcode == SROCE_OP_FLUSH)) {
		ack.pending = false;
		spin_lock_bh(&qp->lock);
		if (sroce_fw_qp_receives(qp) &&
		    sroce_fw_recv_rd_atomic(fw, qp, pkt))
			sroce_fw_resp_direct(fw, qp, pkt, &ack);
		spin_unlock_bh(&qp->lock);
		sroce_fw_reply_send(fw, &ack);
		return;
	}
	/* Otherwise SEND and WRITE only: other requests are refused. */
	if (!(flags & SROCE_OPF_PAYLOAD))
		goto inv_request;

	ack.pending = false;
	spin_lock_bh(&qp->lock);
	if (!sroce_fw_qp_receives(qp))
		goto out_unlock;

	diff = sroce_psn_diff(info->psn, qp->epsn);
	if (rc && diff < 0) {
		sroce_fw_count(fw, SROCE_STAT_DUP_REQ);
		/* A duplicate: the earlier ACK was lost, acknowledge again. */
		if (info->ackreq) {
			sroce_fw_resp_owe(qp, sroce_psn_sub(qp->epsn, 1),
					  SROCE_SYN_ACK);
			pkt->ready_qp = qp;
		}
		goto out_unlock;
	}
	if (rc && diff > 0) {
		sroce_fw_count(fw, SROCE_STAT_OUT_OF_SEQ);
		/* Something was lost: ask for it once (go-back-N). */
		if (!qp->nak_sent) {
			sroce_fw_resp_owe(qp, qp->epsn, SROCE_SYN_NAK_PSN_SEQ);
			pkt->ready_qp = qp;
		}
		qp->nak_sent = true;
		goto out_unlock;
	}
	if (!rc && diff) {
		/* UC: a lost packet ruins its message; resynchronize. */
		qp->in_msg = false;
		if (!(flags & SROCE_OPF_START))
			goto out_unlock;
	}
	qp->nak_sent = false;

	syndrome = sroce_fw_place(fw, qp, pkt, &wc_status);
	if ((syndrome & SROCE_AETH_TYPE_MASK) == SROCE_AETH_TYPE_RNR_NAK) {
		/* No receive posted, or a page absent: retried later. */
		if (rc) {
			sroce_fw_resp_rnr(fw, qp, info->psn, syndrome);
			pkt->ready_qp = qp;
		}
		goto out_unlock;
	}
	if (syndrome) {
		if (rc) {
			sroce_fw_resp_fatal(fw, qp, info->psn, syndrome,
					    wc_status);
			pkt->ready_qp = qp;
		} else {
			qp->in_msg = false;
		}
		goto out_unlock;
	}
	qp->epsn = sroce_psn_add(info->psn, 1);
	if (rc && info->ackreq) {
		sroce_fw_resp_owe(qp, info->psn, SROCE_SYN_ACK);
		pkt->ready_qp = qp;
		sroce_fw_resp_direct(fw, qp, pkt, &ack);
	}
out_unlock:
	spin_unlock_bh(&qp->lock);
	sroce_fw_reply_send(fw, &ack);
	return;

inv_request:
	spin_lock_bh(&qp->lock);
	if (rc && sroce_fw_qp_receives(qp) &&
	    sroce_psn_diff(info->psn, qp->epsn) == 0) {
		sroce_fw_resp_fatal(fw, qp, info->psn, SROCE_SYN_NAK_INV_REQ,
				    wc_status);
		pkt->ready_qp = qp;
	}
	spin_unlock_bh(&qp->lock);
}

/**
 * sroce_fw_recv_ud_mcast() - a multicast datagram for one attached QP
 * @fw: the function
 * @qp: a UD QP attached to the packet's group
 * @pkt: the packet
 *
 * Context: softirq, under rcu_read_lock().
 */
void sroce_fw_recv_ud_mcast(struct sroce_fw_dev *fw, struct sroce_fw_qp *qp,
			    struct sroce_fw_pkt *pkt)
{
	if ((pkt->info.opcode & SROCE_TR_MASK) == SROCE_TR_UD)
		sroce_fw_recv_ud(fw, qp, pkt);
}

/**
 * sroce_fw_recv() - hand a received packet to its queue pair
 * @fw: the function owning the destination address
 * @pkt: the parsed packet; the skb stays the caller's
 *
 * Context: softirq, rcu_read_lock() held.
 */
void sroce_fw_recv(struct sroce_fw_dev *fw, struct sroce_fw_pkt *pkt)
{
	unsigned int tr = pkt->info.opcode & SROCE_TR_MASK, expected;
	struct sroce_fw_qp *qp;

	if (READ_ONCE(fw->stopped))
		return;
	qp = xa_load(&fw->qps, pkt->info.qpn);
	if (!qp) {
		sroce_fw_count(fw, SROCE_STAT_RX_NO_QP);
		return;
	}
	/* A CNP feeds the QP's reaction point, never its transport. */
	if (tr == SROCE_TR_CNP) {
		sroce_fw_rp_cnp(fw, qp, pkt);
		return;
	}
	/* The opcode's transport must be the QP's (IBA 9.6.1.1). */
	switch (qp->type) {
	case SROCE_QPT_UD:
	case SROCE_QPT_GSI:
		expected = SROCE_TR_UD;
		break;
	case SROCE_QPT_RC:
		expected = SROCE_TR_RC;
		break;
	default:
		expected = SROCE_TR_UC;
		break;
	}
	if (tr != expected) {
		sroce_fw_count(fw, SROCE_STAT_RX_QP_REFUSED);
		return;
	}
	if (unlikely(pkt->ce))
		sroce_fw_np_ce(fw, qp, pkt);
	if (tr == SROCE_TR_UD)
		sroce_fw_recv_ud(fw, qp, pkt);
	else
		sroce_fw_recv_rc(fw, qp, pkt);
}
