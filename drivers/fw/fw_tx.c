// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * sroce firmware: the egress stage. Every packet a QP sends leaves here:
 * requests and retransmissions of its requester, READ responses, atomic
 * acknowledgments, ACKs and NAKs of its responder. The scheduler
 * (fw_sched.c) gives a QP its turn, sroce_fw_qp_transmit() spends it, and
 * sroce_fw_tx() is the one place a packet goes to the network attachment
 * (fw_net.c builds the IP/UDP/VLAN/GRH headers in one place behind it).
 *
 * The responder (fw_resp.c) and the completer (fw_comp.c) run in the
 * receive path and send nothing themselves: they record what is owed (a
 * pending ACK/NAK, the READ/atomic resource ring, a rewind) and mark the
 * QP ready. When no QP waits, the receive path spends the responder's
 * part of the turn at once, in the lock hold it has
 * (sroce_fw_resp_transmit(), the same code as a turn's), and the rest of
 * the turn follows. A turn serves the responder's debts first, then the
 * send queue, each in a quantum, so a long READ response shares the port
 * with other QPs the way a long SEND does. Per-QP pacing (the DCQCN
 * reaction point, fw_cc.c) applies here to every packet of a QP alike:
 * before each one its sender asks sroce_fw_tx_hold(), which may end the
 * quantum until the QP's pacing timer; sroce_fw_tx() accounts it. A QP
 * whose priority the link partner pauses (PFC) sends nothing at all
 * until the pause ends: its turn ends before it begins.
 */
#include <linux/ipv6.h>
#include <linux/random.h>
#include <linux/udp.h>

#include "fw.h"

/*
 * SROCE_FW_FAULT_TX_NO_MEM: whether this packet is to find no memory, one
 * in N at random. Not every Nth: go-back-N resends bursts whose length
 * can be a multiple of N, which would lose the same packet every time.
 */
static bool sroce_fw_tx_fault(struct sroce_fw_dev *fw)
{
	u32 one_in = READ_ONCE(fw->fault_tx_no_mem);

	return unlikely(one_in) && get_random_u32() % one_in == 0;
}

/**
 * sroce_fw_tx_alloc() - a packet with its transport headers built
 * @fw: the function sending it
 * @f: the header fields; @f->payload_len bytes of payload follow them
 * @payload: set to where the caller writes the payload
 *
 * The pad and the ICRC's room are appended and zeroed; the ICRC itself is
 * written when the network headers are (sroce_fw_xmit()). A packet no
 * memory is left for is counted (tx_no_mem) and treated by the callers
 * as lost on the wire: RC recovers it as it does a drop.
 *
 * Context: any; does not sleep.
 * Return: the skb; ERR_PTR(-ENOMEM) if no memory was left for it, or
 * ERR_PTR(-EINVAL) if @f cannot be built (a bug of the caller's).
 */
struct sk_buff *sroce_fw_tx_alloc(struct sroce_fw_dev *fw,
				  const struct sroce_roce_fields *f,
				  u8 **payload)
{
	unsigned int pad = sroce_roce_pad(f->payload_len);
	struct sk_buff *skb;
	int hdr_len;

	skb = sroce_fw_tx_fault(fw) ? NULL :
	      alloc_skb(SROCE_FW_XMIT_HEADROOM + SROCE_ROCE_MAX_HDR_LEN +
			f->payload_len + pad + 4, GFP_ATOMIC);
	if (!skb) {
		sroce_fw_count(fw, SROCE_STAT_TX_NO_MEM);
		return ERR_PTR(-ENOMEM);
	}
	skb_reserve(skb, SROCE_FW_XMIT_HEADROOM);
	hdr_len = sroce_roce_build(skb_tail_pointer(skb),
				   SROCE_ROCE_MAX_HDR_LEN, f);
	if (WARN_ON_ONCE(hdr_len < 0)) {
		kfree_skb(skb);
		return ERR_PTR(-EINVAL);
	}
	skb_put(skb, hdr_len);
	*payload = skb_put(skb, f->payload_len);
	skb_put_zero(skb, pad + 4);
	return skb;
}

/**
 * sroce_fw_tx() - the egress of every packet a QP sends but its ACKs
 * @fw: the function
 * @qp: the QP sending it, whose lock is held
 * @skb: from sroce_fw_tx_alloc(), payload written
 * @path: where it goes
 *
 * The only caller of sroce_fw_xmit() besides sroce_fw_tx_ctrl(): the
 * reaction point accounts the packet here (rate measurement, pacing, the
 * byte counter); its callers asked sroce_fw_tx_hold() before building
 * it. Consumes @skb.
 *
 * Context: softirqs disabled, inside an RCU read-side section.
 * Return: 0 or the negative errno of the drop.
 */
int sroce_fw_tx(struct sroce_fw_dev *fw, struct sroce_fw_qp *qp,
		struct sk_buff *skb, const struct sroce_fw_path *path)
{
	sroce_fw_rp_sent(fw, qp, skb->len);
	return sroce_fw_xmit(fw, skb, path);
}

/**
 * sroce_fw_tx_ctrl() - the egress of the packets no limiter paces
 * @fw: the function
 * @skb: from sroce_fw_tx_alloc()
 * @path: where it goes
 *
 * ACKs and NAKs, sent after the QP's lock is released (holding them would
 * slow the peer's flow, not this QP's: they carry no data), and CNPs,
 * which belong to no QP of this function. Consumes @skb.
 *
 * Context: softirqs disabled, inside an RCU read-side section.
 * Return: 0 or the negative errno of the drop.
 */
int sroce_fw_tx_ctrl(struct sroce_fw_dev *fw, struct sk_buff *skb,
		     const struct sroce_fw_path *path)
{
	return sroce_fw_xmit(fw, skb, path);
}

/**
 * sroce_fw_qp_transmit() - one turn of a QP at the egress stage
 * @fw: the function
 * @qp: the QP the scheduler picked, or the doorbell's direct turn
 *
 * Sends a quantum of what the responder owes (READ responses, atomic
 * acknowledgments, then the ACK or NAK, in PSN order), then a quantum of
 * send WQEs; in ERROR, the last NAK owed and the flush. An acknowledgment
 * leaves before the requests; with no request to send it is built and
 * sent after the QP's lock is released: the consumer whose completion it
 * follows is likely to post at once and needs that lock.
 *
 * Context: softirqs disabled, inside an RCU read-side section.
 * Return: true if the QP has more to send now (the scheduler serves it
 * again after the others), false if it is done or waits for ACKs.
 */
bool sroce_fw_qp_transmit(struct sroce_fw_dev *fw, struct sroce_fw_qp *qp)
{
	struct sroce_fw_reply ack;
	bool more = false;

	/* A stopped function sends nothing more, retransmissions included. */
	if (READ_ONCE(fw->stopped))
		return false;
	/*
	 * Paused by the link partner (PFC): everything of the QP waits, its
	 * ACKs and READ responses too, back on its list until the pause ends.
	 * Not the flush of a QP in ERROR, which sends nothing: a partner
	 * that never lifts its pause must not keep the QP from draining. In
	 * ERROR the QP is done (what it owes the peer goes unanswered, as
	 * the peer's retries will find), so it is not queued again.
	 */
	if (sroce_fw_prio_paused(fw, READ_ONCE(qp->prio))) {
		bool in_error;

		spin_lock(&qp->lock);
		in_error = qp->attr.state == SROCE_QPS_ERR;
		if (in_error)
			sroce_fw_flush(fw, qp);
		spin_unlock(&qp->lock);
		return !in_error;
	}
	ack.pending = false;
	spin_lock(&qp->lock);
	if (qp->type == SROCE_QPT_RC)
		more = sroce_fw_resp_transmit(fw, qp, &ack);
	/* Not behind a quantum of requests: the peer's window waits for it. */
	if (ack.pending && sroce_fw_qp_sends(qp) &&
	    qp->sq_next != (READ_ONCE(qp->sq->producer_index) & qp->sq_mask)) {
		sroce_fw_reply_send(fw, &ack);
		ack.pending = false;
	}
	if (qp->attr.state == SROCE_QPS_ERR)
		sroce_fw_flush(fw, qp);
	else if (sroce_fw_qp_sends(qp))
		more |= sroce_fw_req_transmit(fw, qp);
	spin_unlock(&qp->lock);
	sroce_fw_reply_send(fw, &ack);
	return more;
}
