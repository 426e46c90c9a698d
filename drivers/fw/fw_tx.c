// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * sroce firmware: the egress stage. Every packet a QP sends leaves here:
 * requests and retransmissions of its requester, READ responses, atomic
 * acknowledgments, ACKs and NAKs of its responder. The scheduler
 * (fw_sched.c) gives a QP its turn, sroce_fw_qp_transmit() spends it,
 * packets are built into the turn's trains (sroce_fw_tx_begin()), and
 * sroce_fw_train_send() is the one place they go to the network
 * attachment (fw_net.c builds the IP/UDP/VLAN/GRH headers in one place
 * behind it).
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
 * quantum until the QP's pacing timer; sroce_fw_tx_commit() accounts it.
 * A QP whose priority the link partner pauses (PFC) sends nothing at all
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
 * sroce_fw_tx_alloc() - a control packet with its transport headers built
 * @fw: the function sending it
 * @f: the header fields; @f->payload_len bytes of payload follow them
 * @payload: set to where the caller writes the payload
 *
 * For the packets sroce_fw_tx_ctrl() sends (ACKs, NAKs, CNPs). The pad
 * and the ICRC's room are appended and zeroed; the ICRC itself is written
 * when the network headers are (sroce_fw_xmit()). A packet no memory is
 * left for is counted (tx_no_mem) and treated by the callers as lost on
 * the wire.
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

/*
 * Trains. Consecutive packets of a QP's turn are built back to back into
 * one skb, as TCP builds its segments into one GSO skb, and leave as one
 * UDP datagram marked for segmentation into datagrams of one packet each
 * (sroce_fw_xmit()): the IP stack, the qdiscs and a veth handle the
 * train once, and whoever cuts it (the NIC, the stack before a device
 * that cannot, or the receiving socket behind a veth) gives each packet
 * its own IP and UDP header. A train takes packets of one length; a
 * shorter one ends it (the last packet of a message).
 *
 * Its size: the packets the caller says follow, bounded by
 * SROCE_FW_TRAIN_MAX_SEGS and by SROCE_FW_TRAIN_BYTES, which keeps the
 * skb's one allocation within 32 KiB (order 3, which the page allocator
 * keeps per CPU). One that finds no memory of that order is a train of
 * one packet.
 */
#define SROCE_FW_TRAIN_MAX_SEGS	64
#define SROCE_FW_TRAIN_BYTES	(SZ_32K - SZ_1K - SROCE_FW_XMIT_HEADROOM)

static bool sroce_fw_train_takes(const struct sroce_fw_train *t,
				 const struct sroce_fw_path *path, u32 len)
{
	return t->skb && t->segs < t->room && len <= t->seg_len &&
	       t->skb->len == t->segs * t->seg_len &&
	       !memcmp(&t->path, path, sizeof(*path));
}

static bool sroce_fw_train_alloc(struct sroce_fw_train *t,
				 const struct sroce_fw_path *path, u32 len,
				 u32 more)
{
	u32 room = 1;

	/*
	 * RoCE v1 frames have no segmentation offload; a datagram to a
	 * multicast group leaves alone (the sender's own groups get a copy
	 * of each through the internal loopback).
	 */
	if (path->net_type != SROCE_NET_ROCE_V1 &&
	    !sroce_fw_gid_is_mcast(path->dgid) && more)
		room = min3(more + 1, (u32)SROCE_FW_TRAIN_MAX_SEGS,
			    max_t(u32, SROCE_FW_TRAIN_BYTES / len, 1));
	t->skb = NULL;
	/* Not from the reserves: a train of one does as well. */
	if (room > 1)
		t->skb = alloc_skb(SROCE_FW_XMIT_HEADROOM + room * len,
				   GFP_NOWAIT | __GFP_NOWARN |
				   __GFP_NORETRY);
	if (!t->skb) {
		room = 1;
		t->skb = alloc_skb(SROCE_FW_XMIT_HEADROOM + len, GFP_ATOMIC);
		if (!t->skb)
			return false;
	}
	skb_reserve(t->skb, SROCE_FW_XMIT_HEADROOM);
	t->path = *path;
	t->seg_len = len;
	t->segs = 0;
	t->room = room;
	return true;
}

/**
 * sroce_fw_tx_begin() - the next packet of a QP's turn, its headers built
 * @fw: the function sending it
 * @t: the turn's train, sent first if the packet cannot join it
 * @path: where the packet goes
 * @f: the header fields; @f->payload_len bytes of payload follow them
 * @more: packets the caller expects to send after this one in the turn
 *	  (sizes a new train; 0: a train of one)
 * @payload: set to where the caller writes the payload
 *
 * The pad and the ICRC's room are appended and zeroed; the ICRC itself is
 * written when the network headers are. The caller then commits the
 * packet (sroce_fw_tx_commit()) or takes it back (sroce_fw_tx_cancel()),
 * before it begins another. A packet no memory is left for is counted
 * (tx_no_mem) and treated by the callers as lost on the wire: RC recovers
 * it as it does a drop.
 *
 * Context: softirqs disabled, inside an RCU read-side section; the QP's
 * lock held.
 * Return: 0; -ENOMEM if no memory was left for it, or -EINVAL if @f
 * cannot be built (a bug of the caller's).
 */
int sroce_fw_tx_begin(struct sroce_fw_dev *fw, struct sroce_fw_train *t,
		      const struct sroce_fw_path *path,
		      const struct sroce_roce_fields *f, u32 more,
		      u8 **payload)
{
	unsigned int pad = sroce_roce_pad(f->payload_len);
	u8 hdr[SROCE_ROCE_MAX_HDR_LEN];
	int hdr_len;
	u32 len;

	hdr_len = sroce_roce_build(hdr, sizeof(hdr), f);
	if (WARN_ON_ONCE(hdr_len < 0))
		return -EINVAL;
	len = hdr_len + f->payload_len + pad + 4;
	if (sroce_fw_tx_fault(fw))
		goto no_mem;
	if (!sroce_fw_train_takes(t, path, len)) {
		sroce_fw_train_send(fw, t);
		if (!sroce_fw_train_alloc(t, path, len, more))
			goto no_mem;
	}
	t->open_len = t->skb->len;
	skb_put_data(t->skb, hdr, hdr_len);
	*payload = skb_put(t->skb, f->payload_len);
	skb_put_zero(t->skb, pad + 4);
	return 0;

no_mem:
	sroce_fw_count(fw, SROCE_STAT_TX_NO_MEM);
	return -ENOMEM;
}

/**
 * sroce_fw_tx_commit() - the packet begun is complete
 * @fw: the function
 * @qp: the QP sending it, whose lock is held
 * @t: its train
 *
 * The reaction point accounts the packet here (rate measurement, pacing,
 * the byte counter); its callers asked sroce_fw_tx_hold() before
 * beginning it. A train with no room left, or ended by a short packet,
 * leaves at once.
 *
 * Context: as sroce_fw_tx_begin().
 */
void sroce_fw_tx_commit(struct sroce_fw_dev *fw, struct sroce_fw_qp *qp,
			struct sroce_fw_train *t)
{
	u32 len = t->skb->len - t->open_len;

	sroce_fw_rp_sent(fw, qp, len);
	t->segs++;
	if (t->segs == t->room || len < t->seg_len)
		sroce_fw_train_send(fw, t);
}

/**
 * sroce_fw_tx_cancel() - take back the packet begun
 * @t: its train
 *
 * For a packet whose payload could not be gathered (a page to wait for,
 * a protection error). The packets before it stay.
 */
void sroce_fw_tx_cancel(struct sroce_fw_train *t)
{
	skb_trim(t->skb, t->open_len);
	if (!t->segs) {
		kfree_skb(t->skb);
		t->skb = NULL;
	}
}

/**
 * sroce_fw_train_send() - the egress of every packet a QP sends but its
 * ACKs
 * @fw: the function
 * @t: the train; empty afterwards
 *
 * The only caller of sroce_fw_xmit() besides
 * sroce_fw_tx_ctrl(). A train that failed to leave is lost as on the wire.
 *
 * Context: as sroce_fw_tx_begin().
 */
void sroce_fw_train_send(struct sroce_fw_dev *fw, struct sroce_fw_train *t)
{
	struct sk_buff *skb = t->skb;

	if (!skb)
		return;
	t->skb = NULL;
	sroce_fw_xmit(fw, skb, &t->path, t->segs == 1 ? skb->len : t->seg_len,
		      t->segs);
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
	return sroce_fw_xmit(fw, skb, path, skb->len, 1);
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
