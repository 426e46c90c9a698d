// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * sroce firmware: the network attachment of the packet engine.
 *
 * RoCE v2 arrives on UDP port 4791. The firmware owns that port, IPv4 and
 * IPv6, in every network namespace (pernet operations), so that devices in
 * different namespaces joined by veth talk to each other. Owning it in the
 * initial namespace is also what keeps sroce and rdma_rxe (which binds the
 * same port) from running side by side.
 *
 * A received packet belongs to the device whose GID table holds its
 * destination address in the namespace it arrived in, whatever netdev it
 * came through: that is how a device reaches itself (loopback) or another
 * device in the same namespace, whose packets the stack routes through lo.
 *
 * Transmit builds the IP and UDP headers itself, routes in the netdev's
 * namespace and hands the packet to ip_local_out()/ip6_local_out(), so
 * qdiscs, netfilter and tc see RoCE traffic like any other.
 *
 * RoCE v1 is Ethernet frames of type 0x8915 carrying a GRH: sent with
 * dev_queue_xmit() to the MAC address of the path (frames to the device's
 * own address are received again through netif_rx()), received by a
 * packet handler on the netdev the GID lives on or a VLAN of it.
 *
 * MAC Control frames (0x8808, pause) have a packet handler too: they
 * pause the port's transmit priorities (fw_pfc.c).
 */
#include <linux/atomic.h>
#include <linux/crc32.h>
#include <linux/etherdevice.h>
#include <linux/if_vlan.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/netfilter.h>
#include <linux/netfilter_ipv4.h>
#include <linux/netfilter_ipv6.h>
#include <linux/udp.h>
#include <net/inet_ecn.h>
#include <net/ip6_checksum.h>
#include <net/ip6_route.h>
#include <net/net_namespace.h>
#include <net/netfilter/nf_conntrack.h>
#include <net/netns/generic.h>
#include <net/route.h>
#include <net/snmp.h>
#include <net/udp_tunnel.h>
#include <net/xfrm.h>

#include "fw.h"
#include "lib/roce_hdr.h"

/* Set at load: crc32_le() has no accelerated form here, fold instead. */
static bool sroce_fw_crc_fold __read_mostly;

/**
 * sroce_crc32_le() - the CRC-32 primitive of the shared ICRC code
 * @crc: running CRC, not inverted
 * @p: data
 * @len: bytes of @p
 *
 * drivers/lib/icrc.c is shared with userspace, which brings its own. The
 * kernel's crc32_le() where it is accelerated; else, for long inputs, the
 * fold, which needs no table lookups: 1.8 times slice-by-8 natively, 2.75
 * times under TCG, where it is 8 times the byte-at-a-time generic code
 * (Documentation/benchmarks.md, "CRC by folding").
 *
 * Return: the updated CRC.
 */
u32 sroce_crc32_le(u32 crc, const u8 *p, size_t len)
{
	if (len >= SROCE_CRC32_FOLD_MIN && sroce_fw_crc_fold)
		return sroce_crc32_fold(crc, p, len);
	return crc32_le(crc, p, len);
}

/*
 * The namespace's UDP/4791 sockets. Transmit reads them under RCU: a
 * namespace's sockets go before its netdevs do, while sroce devices on
 * those netdevs may still send.
 */
struct sroce_fw_netns {
	struct socket __rcu *sock4;
	struct socket __rcu *sock6;
};

static unsigned int sroce_fw_netns_id;

/*
 * Datagrams no function could be blamed for; everything else is counted
 * in the port counters of the function they were for. A multicast
 * datagram that fails its ICRC or does not parse belongs to no function
 * either: it counts as unparsable, one no local QP joined as no device.
 */
static atomic64_t sroce_fw_rx_no_device = ATOMIC64_INIT(0);
static atomic64_t sroce_fw_rx_unparsable = ATOMIC64_INIT(0);

/* An IPv4 address as a GID: IPv4-mapped. */
static void sroce_fw_gid_from_v4(u8 gid[SROCE_GID_LEN], const __be32 *addr)
{
	memset(gid, 0, 10);
	gid[10] = 0xff;
	gid[11] = 0xff;
	memcpy(gid + 12, addr, 4);
}

/*
 * The addresses and the traffic class of a RoCE v2 packet; the ECN field
 * is masked by the ICRC, so a mark a router added still verifies.
 */
static void sroce_fw_pkt_from_ip(const struct sk_buff *skb,
				 struct sroce_fw_pkt *pkt)
{
	if (skb->protocol == htons(ETH_P_IP)) {
		sroce_fw_gid_from_v4(pkt->dgid, &ip_hdr(skb)->daddr);
		sroce_fw_gid_from_v4(pkt->saddr, &ip_hdr(skb)->saddr);
		pkt->tclass = ip_hdr(skb)->tos;
	} else {
		memcpy(pkt->dgid, &ipv6_hdr(skb)->daddr, SROCE_GID_LEN);
		memcpy(pkt->saddr, &ipv6_hdr(skb)->saddr, SROCE_GID_LEN);
		pkt->tclass = ipv6_get_dsfield(ipv6_hdr(skb));
	}
	pkt->ce = (pkt->tclass & INET_ECN_MASK) == INET_ECN_CE;
}

/*
 * The VLAN a packet came in on, until the destination GID entry tells
 * (multicast has none): an internally looped packet has no device.
 */
static u16 sroce_fw_skb_vlan(const struct sk_buff *skb)
{
	if (skb->dev && is_vlan_dev(skb->dev))
		return vlan_dev_vlan_id(skb->dev);
	return SROCE_VLAN_NONE;
}

/*
 * Release a received skb: consumed if its packet reached the transport,
 * dropped otherwise, so that drop monitors (the skb:kfree_skb tracepoint,
 * dropwatch) see only the packets sroce refused.
 */
static void sroce_fw_rx_release(struct sk_buff *skb, bool consumed)
{
	if (consumed)
		consume_skb(skb);
	else
		kfree_skb(skb);
}

/*
 * A packet for @fw whose ICRC is checked: parse the transport headers,
 * count, hand it to its QP, then send whatever it made ready. Under RCU.
 * With @held (a packet of a train), the QP it made ready is held there
 * instead, for its turn after the train (sroce_fw_rx_train()); one held
 * already for another QP takes its turn now. Returns false if the packet
 * was refused (unparsable), true if the transport took it (which may
 * still discard it by the protocol: a duplicate, an unknown QP).
 */
static bool sroce_fw_rx_take(struct sroce_fw_dev *fw, struct sroce_fw_pkt *pkt,
			     struct sroce_fw_qp **held)
{
	struct sroce_fw_qp *ready;

	if (sroce_roce_parse(pkt->hdr, pkt->len, &pkt->info)) {
		sroce_fw_count(fw, SROCE_STAT_RX_MALFORMED);
		return false;
	}
	sroce_fw_count_pkt(fw, SROCE_STAT_RX_PKTS, SROCE_STAT_RX_BYTES,
			   pkt->len);
	sroce_fw_recv(fw, pkt);
	/* Valid in the caller's RCU section: QPs go after a grace period. */
	ready = pkt->ready_qp;
	if (held && ready) {
		swap(*held, ready);
		if (ready == *held)
			ready = NULL;
	}
	if (ready)
		sroce_fw_ring_sq(fw, ready);
	sroce_fw_sched_run(fw);
	return true;
}

/*
 * A packet for @fw (RoCE v1 or v2): check the ICRC over the @len bytes
 * from @l3 (the last 4 are the ICRC; none came by the internal loopback),
 * then as sroce_fw_rx_take(); false also for a bad ICRC.
 */
static bool sroce_fw_rx_deliver(struct sroce_fw_dev *fw,
				struct sroce_fw_pkt *pkt, const u8 *l3,
				unsigned int len, unsigned int l3_type)
{
	if (pkt->len < 4 ||
	    (!pkt->internal && sroce_icrc_verify(l3, len - 4, l3_type))) {
		sroce_fw_count(fw, SROCE_STAT_RX_ICRC_ERR);
		return false;
	}
	return sroce_fw_rx_take(fw, pkt, NULL);
}

/*
 * What a packet held in the port's buffers needs to be delivered later,
 * in its cb: where its headers are and what the IP header said.
 */
struct sroce_fw_rx_cb {
	u32 l3_off;		/* from skb->head */
	u32 l3_len;		/* bytes checked by the ICRC, from l3 */
	u32 hdr_off;		/* the BTH, from skb->head */
	u32 pkt_len;		/* BTH to ICRC */
	u16 vlan_id;
	u8 l3_type;
	u8 net_type;
	u8 tclass;
	bool ce;
	bool internal;
};

static struct sroce_fw_rx_cb *sroce_fw_rx_cb(struct sk_buff *skb)
{
	static_assert(sizeof(struct sroce_fw_rx_cb) <=
		      sizeof(skb->cb) - SROCE_FW_RXBUF_CB_LEN);
	return (struct sroce_fw_rx_cb *)skb->cb;
}

/*
 * The port's priority of a received packet, which buffer holds it: its
 * DSCP's in DSCP trust (RoCE v2), else the priority of the QP it is for
 * (an untagged frame carries no PCP; a VLAN's is gone by now).
 */
static unsigned int sroce_fw_rx_prio(struct sroce_fw_dev *fw,
				     const struct sroce_fw_pkt *pkt)
{
	const struct sroce_fw_cc *cc = rcu_dereference(fw->cc);
	struct sroce_fw_qp *qp;

	if (cc->qos.trust == SROCE_TRUST_DSCP &&
	    pkt->net_type != SROCE_NET_ROCE_V1)
		return cc->qos.dscp2prio[pkt->tclass >> 2] % SROCE_FW_NUM_PRIO;
	if (pkt->len < SROCE_BTH_LEN)
		return 0;
	qp = xa_load(&fw->qps, sroce_bth_qpn(pkt->hdr));
	return qp ? READ_ONCE(qp->prio) % SROCE_FW_NUM_PRIO : 0;
}

/*
 * A unicast packet reached @fw's port: delivered now, or, while the host
 * side drains the port's buffers at a limited rate, held in its
 * priority's buffer (fw_pfc.c), which then owns it (the drain may run on
 * another CPU at once). Consumes @pkt->skb: dropped if refused or
 * discarded by its buffer. Under RCU.
 */
static void sroce_fw_rx_port(struct sroce_fw_dev *fw,
			     struct sroce_fw_pkt *pkt, u8 *l3,
			     unsigned int len, unsigned int l3_type)
{
	struct sk_buff *skb = pkt->skb;
	struct sroce_fw_rx_cb *cb;

	if (likely(!sroce_fw_rxbuf_on(fw))) {
		sroce_fw_rx_release(skb, sroce_fw_rx_deliver(fw, pkt, l3, len,
							     l3_type));
		return;
	}
	cb = sroce_fw_rx_cb(skb);
	cb->l3_off = l3 - skb->head;
	cb->l3_len = len;
	cb->hdr_off = pkt->hdr - skb->head;
	cb->pkt_len = pkt->len;
	cb->vlan_id = pkt->vlan_id;
	cb->l3_type = l3_type;
	cb->net_type = pkt->net_type;
	cb->tclass = pkt->tclass;
	cb->ce = pkt->ce;
	cb->internal = pkt->internal;
	/* What the wire carried: the Ethernet header and the L3 packet. */
	if (!sroce_fw_rxbuf_queue(fw, skb, sroce_fw_rx_prio(fw, pkt),
				  ETH_HLEN + len,
				  pkt->net_type != SROCE_NET_ROCE_V1 &&
				  (pkt->tclass & INET_ECN_MASK) != INET_ECN_NOT_ECT,
				  &cb->ce))
		kfree_skb(skb);
}

/**
 * sroce_fw_rx_held() - deliver a packet the port's buffer held
 * @fw: the function
 * @skb: the packet, as sroce_fw_rx_port() queued it; consumed
 *
 * Context: softirq (the drain timer), RCU read side.
 */
void sroce_fw_rx_held(struct sroce_fw_dev *fw, struct sk_buff *skb)
{
	const struct sroce_fw_rx_cb *cb = sroce_fw_rx_cb(skb);
	struct sroce_fw_pkt pkt = {};
	u8 *l3 = skb->head + cb->l3_off;

	pkt.skb = skb;
	pkt.l3 = l3;
	pkt.hdr = skb->head + cb->hdr_off;
	pkt.len = cb->pkt_len;
	pkt.net_type = cb->net_type;
	pkt.vlan_id = cb->vlan_id;
	pkt.tclass = cb->tclass;
	pkt.ce = cb->ce;
	pkt.internal = cb->internal;
	if (cb->l3_type == SROCE_L3_IPV4) {
		const struct iphdr *ip = (const struct iphdr *)l3;

		sroce_fw_gid_from_v4(pkt.dgid, &ip->daddr);
		sroce_fw_gid_from_v4(pkt.saddr, &ip->saddr);
	} else {
		const struct ipv6hdr *ip6 = (const struct ipv6hdr *)l3;

		memcpy(pkt.dgid, &ip6->daddr, SROCE_GID_LEN);
		memcpy(pkt.saddr, &ip6->saddr, SROCE_GID_LEN);
	}
	sroce_fw_rx_release(skb, sroce_fw_rx_deliver(fw, &pkt, l3, cb->l3_len,
						     cb->l3_type));
}

/*
 * Consumes @skb; its data starts at the UDP header. @internal: it came by
 * the internal loopback, built by this firmware, and has no ICRC.
 */
static void sroce_fw_rx_v2(struct net *net, struct sk_buff *skb,
			   bool internal)
{
	struct sroce_fw_pkt pkt = {};
	struct sroce_fw_dev *fw;
	struct udphdr *uh;
	unsigned int l3_type, l3_len, udp_len;
	bool valid, consumed;
	u8 *l3;

	if (skb_linearize(skb))
		goto drop;
	uh = udp_hdr(skb);
	udp_len = ntohs(uh->len);
	/* The UDP length is the sender's claim: hold it to the skb. */
	if (udp_len < sizeof(*uh) ||
	    (u8 *)uh + udp_len > skb_tail_pointer(skb))
		goto malformed;

	if (skb->protocol == htons(ETH_P_IP)) {
		l3_type = SROCE_L3_IPV4;
		l3 = (u8 *)ip_hdr(skb);
		if (ip_hdr(skb)->ihl != 5)
			goto malformed;
	} else if (skb->protocol == htons(ETH_P_IPV6)) {
		l3_type = SROCE_L3_IPV6;
		l3 = (u8 *)ipv6_hdr(skb);
		/*
		 * The ICRC covers a UDP header right behind the IPv6 one:
		 * extension headers are refused, as IPv4 options are.
		 */
		if ((u8 *)uh - l3 != sizeof(struct ipv6hdr))
			goto malformed;
	} else {
		goto malformed;
	}
	l3_len = (u8 *)uh - l3;
	pkt.skb = skb;
	pkt.l3 = l3;
	pkt.internal = internal;
	pkt.hdr = (u8 *)(uh + 1);
	pkt.len = udp_len - sizeof(*uh);
	pkt.net_type = l3_type == SROCE_L3_IPV4 ? SROCE_NET_IPV4 :
						  SROCE_NET_IPV6;
	pkt.vlan_id = sroce_fw_skb_vlan(skb);
	sroce_fw_pkt_from_ip(skb, &pkt);

	rcu_read_lock();
	if (sroce_fw_gid_is_mcast(pkt.dgid)) {
		/*
		 * For the groups' QPs, in every function that has the group.
		 * The sender's own copy (the internal loopback's) finding no
		 * group here is no refusal: nobody local joined.
		 */
		valid = pkt.len >= 4 &&
			(internal ||
			 !sroce_icrc_verify(l3, l3_len + udp_len - 4,
					    l3_type)) &&
			!sroce_roce_parse(pkt.hdr, pkt.len, &pkt.info);
		consumed = valid && (sroce_fw_mcast_rx(net, &pkt) || internal);
		if (!valid)
			atomic64_inc(&sroce_fw_rx_unparsable);
		else if (!consumed)
			atomic64_inc(&sroce_fw_rx_no_device);
		rcu_read_unlock();
		sroce_fw_rx_release(skb, consumed);
		return;
	}
	fw = sroce_fw_dev_by_gid(net, pkt.dgid, SROCE_GID_ROCE_V2,
				 &pkt.vlan_id);
	if (fw)
		sroce_fw_rx_port(fw, &pkt, l3, l3_len + udp_len, l3_type);
	rcu_read_unlock();
	if (!fw) {
		atomic64_inc(&sroce_fw_rx_no_device);
		kfree_skb(skb);
	}
	return;

malformed:
	atomic64_inc(&sroce_fw_rx_unparsable);
drop:
	kfree_skb(skb);
}

/*
 * A train received whole: its IP and UDP headers once, then packets of one
 * length (the last maybe shorter) back to back, linear. By the internal
 * loopback they carry no ICRCs; from the IP stack (a peer's train that
 * crossed a veth whole, sroce_fw_train_in()) each carries the ICRC of the
 * headers it would have had once cut, which @hdr is rebuilt into for each
 * packet in turn.
 */
struct sroce_fw_rx_train {
	__be16 protocol;
	u8 hdr[sizeof(struct ipv6hdr) + sizeof(struct udphdr)];
	unsigned int l3_len;
	unsigned int l3_type;
	u16 first_id;
};

/* The packet of @len bytes at @pkt, behind @t's headers, as a datagram. */
static struct sk_buff *sroce_fw_train_seg_copy(const struct sroce_fw_rx_train *t,
					       const u8 *pkt, u32 len)
{
	struct sk_buff *skb = alloc_skb(t->l3_len + len, GFP_ATOMIC);

	if (!skb)
		return NULL;
	skb_put_data(skb, t->hdr, t->l3_len);
	skb_put_data(skb, pkt, len);
	skb_reset_network_header(skb);
	skb_set_transport_header(skb, t->l3_len - sizeof(struct udphdr));
	skb->protocol = t->protocol;
	skb_pull(skb, t->l3_len - sizeof(struct udphdr));
	return skb;
}

/*
 * Deliver the packets of train @skb (@segs of @seg_len bytes, the last
 * maybe shorter; network and transport headers set, linear) where they
 * lie, without an skb each. By the internal loopback (@internal) it is
 * always taken: a packet that meets the port's buffers holding packets
 * gets an skb of its own there. From the IP stack it is taken only by a
 * function whose port buffers hold nothing (the stack then cuts it for
 * the socket, and each packet is buffered as one). The turn a packet
 * makes due (an ACK, READ responses, the requester's next requests) runs
 * after the train, so that a train draws one ACK, not one for every
 * packet that asked for one. Under RCU. Returns whether @skb was taken;
 * it is then consumed.
 */
static bool sroce_fw_rx_train(struct net *net, struct sk_buff *skb,
			      u32 seg_len, u16 segs, bool internal)
{
	u8 *l3 = skb_network_header(skb);
	u8 *pkt = skb_transport_header(skb) + sizeof(struct udphdr);
	u32 left = skb_tail_pointer(skb) - pkt, len;
	struct sroce_fw_pkt tmpl = {}, p;
	struct sroce_fw_qp *held = NULL;
	struct sroce_fw_rx_train t;
	struct sroce_fw_dev *fw;
	bool taken = false;
	u16 i;

	t.protocol = skb->protocol;
	t.l3_len = pkt - l3;
	t.first_id = 0;
	if (skb->protocol == htons(ETH_P_IP)) {
		t.l3_type = SROCE_L3_IPV4;
		tmpl.net_type = SROCE_NET_IPV4;
		t.first_id = ntohs(ip_hdr(skb)->id);
	} else {
		t.l3_type = SROCE_L3_IPV6;
		tmpl.net_type = SROCE_NET_IPV6;
	}
	if (WARN_ON_ONCE(t.l3_len > sizeof(t.hdr))) {
		kfree_skb(skb);
		return true;
	}
	memcpy(t.hdr, l3, t.l3_len);
	tmpl.skb = skb;
	tmpl.l3 = t.hdr;
	tmpl.internal = internal;
	tmpl.in_train = true;
	tmpl.vlan_id = SROCE_VLAN_NONE;
	sroce_fw_pkt_from_ip(skb, &tmpl);

	fw = sroce_fw_dev_by_gid(net, tmpl.dgid, SROCE_GID_ROCE_V2,
				 &tmpl.vlan_id);
	if (!internal && (!fw || sroce_fw_rxbuf_on(fw)))
		return false;
	if (!fw) {
		atomic64_add(segs, &sroce_fw_rx_no_device);
		kfree_skb(skb);
		return true;
	}
	if (!sroce_fw_rxbuf_on(fw))
		sroce_fw_count(fw, SROCE_STAT_RX_TRAINS);
	for (i = 0; i < segs && left; i++, pkt += len, left -= len) {
		len = min(seg_len, left);
		sroce_train_seg_hdr(t.hdr, t.l3_len, t.l3_type, t.first_id, i,
				    len);
		if (unlikely(internal && sroce_fw_rxbuf_on(fw))) {
			struct sk_buff *one;

			/*
			 * The loopback's transmit half found no memory, as
			 * it counts a copy it cannot make (tx_no_mem).
			 */
			one = sroce_fw_train_seg_copy(&t, pkt, len);
			if (one)
				sroce_fw_rx_v2(net, one, true);
			else
				sroce_fw_count(fw, SROCE_STAT_TX_NO_MEM);
			taken = true;
			continue;
		}
		if (!internal &&
		    (len < 4 || sroce_icrc_verify_split(t.hdr, t.l3_len, pkt,
							len - 4, t.l3_type))) {
			sroce_fw_count(fw, SROCE_STAT_RX_ICRC_ERR);
			continue;
		}
		p = tmpl;
		p.hdr = pkt;
		p.len = len;
		taken |= sroce_fw_rx_take(fw, &p, &held);
	}
	if (held) {
		sroce_fw_ring_sq(fw, held);
		sroce_fw_sched_run(fw);
	}
	sroce_fw_rx_release(skb, taken);
	return true;
}

/* Whether a RoCE v1 frame came in on @fw's netdev or a VLAN of it. */
static bool sroce_fw_v1_ingress_ok(const struct sroce_fw_dev *fw,
				   const struct net_device *dev)
{
	if (is_vlan_dev(dev))
		dev = vlan_dev_real_dev(dev);
	return dev == fw->ndev;
}

/* RoCE v1 (ethertype 0x8915): data starts at the GRH. */
static int sroce_fw_rx_v1(struct sk_buff *skb, struct net_device *dev,
			  struct packet_type *pt, struct net_device *orig_dev)
{
	struct sroce_fw_pkt pkt = {};
	struct sroce_fw_dev *fw;
	const struct ipv6hdr *grh;
	unsigned int len;
	bool taken;

	skb = skb_share_check(skb, GFP_ATOMIC);
	if (!skb)
		return NET_RX_DROP;
	if (skb->pkt_type == PACKET_OTHERHOST || skb_linearize(skb))
		goto drop;
	if (skb->len < SROCE_GRH_LEN)
		goto malformed;
	skb_reset_network_header(skb);
	grh = ipv6_hdr(skb);
	len = ntohs(grh->payload_len);
	/* Ethernet pads short frames: the GRH says where the packet ends. */
	if (grh->version != 6 || grh->nexthdr != SROCE_GRH_NEXT_HDR ||
	    len < 4 || len > skb->len - SROCE_GRH_LEN)
		goto malformed;
	pkt.skb = skb;
	pkt.l3 = skb->data;
	pkt.hdr = skb->data + SROCE_GRH_LEN;
	pkt.len = len;
	pkt.net_type = SROCE_NET_ROCE_V1;
	pkt.vlan_id = sroce_fw_skb_vlan(skb);
	memcpy(pkt.dgid, &grh->daddr, SROCE_GID_LEN);
	memcpy(pkt.saddr, &grh->saddr, SROCE_GID_LEN);

	rcu_read_lock();
	fw = sroce_fw_dev_by_gid(dev_net(dev), pkt.dgid, SROCE_GID_ROCE_V1,
				 &pkt.vlan_id);
	taken = fw && sroce_fw_v1_ingress_ok(fw, dev);
	if (taken)
		sroce_fw_rx_port(fw, &pkt, skb->data, SROCE_GRH_LEN + len,
				 SROCE_L3_GRH);
	rcu_read_unlock();
	if (taken)
		return NET_RX_SUCCESS;
	atomic64_inc(&sroce_fw_rx_no_device);
	kfree_skb(skb);
	return NET_RX_DROP;

malformed:
	atomic64_inc(&sroce_fw_rx_unparsable);
drop:
	kfree_skb(skb);
	return NET_RX_DROP;
}

static struct packet_type sroce_fw_v1_packet_type = {
	.type = cpu_to_be16(SROCE_ROCE_V1_ETHERTYPE),
	.func = sroce_fw_rx_v1,
};

/*
 * MAC Control (ethertype 0x8808): pause frames for the port's transmit
 * (fw_pfc.c). Addressed to the MAC Control group or to the netdev; a
 * frame that is neither, or that is not PFC or PAUSE, is not ours.
 */
static int sroce_fw_rx_pause(struct sk_buff *skb, struct net_device *dev,
			     struct packet_type *pt,
			     struct net_device *orig_dev)
{
	u8 copy[SROCE_PFC_BODY_LEN];
	struct sroce_pause pause;
	unsigned int len;
	const u8 *body;

	/*
	 * Pause frames are untagged, as a MAC takes them: not a VLAN's, nor
	 * one of a VID with no VLAN device, which the core hands the real
	 * device as another host's with its tag removed. (A VID 0 tag is
	 * removed without a trace: such a frame counts as untagged.)
	 */
	len = min_t(unsigned int, skb->len, sizeof(copy));
	body = skb_header_pointer(skb, 0, len, copy);
	if (!is_vlan_dev(dev) && dev->type == ARPHRD_ETHER &&
	    skb->pkt_type != PACKET_OTHERHOST &&
	    skb_mac_header_was_set(skb) && body &&
	    sroce_pause_dest_ok(eth_hdr(skb)->h_dest, dev->dev_addr) &&
	    !sroce_pause_parse(body, len, &pause)) {
		rcu_read_lock();
		sroce_fw_port_pause_rx(dev, &pause);
		rcu_read_unlock();
	}
	consume_skb(skb);
	return NET_RX_SUCCESS;
}

static struct packet_type sroce_fw_pause_packet_type = {
	.type = cpu_to_be16(SROCE_MAC_CONTROL_TYPE),
	.func = sroce_fw_rx_pause,
};

/*
 * Single packets, and a peer's train the hook below did not take, cut
 * into its packets: the UDP stack segments a GSO datagram for a socket
 * with an encapsulation handler before the handler sees it
 * (udp_unexpected_gso()).
 */
static int sroce_fw_udp_encap_recv(struct sock *sk, struct sk_buff *skb)
{
	sroce_fw_rx_v2(sock_net(sk), skb, false);
	return 0;
}

#if IS_ENABLED(CONFIG_NETFILTER)
/*
 * Whether conntrack still has to confirm @skb's connection: IPv4's confirm
 * hook has the same priority as ours and may come after it. The socket's
 * path confirms it; the next train is taken.
 */
static bool sroce_fw_ct_unconfirmed(const struct sk_buff *skb)
{
#if IS_ENABLED(CONFIG_NF_CONNTRACK)
	enum ip_conntrack_info ctinfo;
	const struct nf_conn *ct = nf_ct_get(skb, &ctinfo);

	return ct && !nf_ct_is_confirmed(ct);
#else
	return false;
#endif
}

/*
 * What the stack would have counted for a train the socket took: IP one
 * delivery, UDP a datagram per packet.
 */
static void sroce_fw_train_mib(struct net *net, u8 pf, struct inet6_dev *idev,
			       u16 segs)
{
	if (pf == NFPROTO_IPV4) {
		IP_INC_STATS(net, IPSTATS_MIB_INDELIVERS);
		SNMP_ADD_STATS(net->mib.udp_statistics, UDP_MIB_INDATAGRAMS,
			       segs);
		return;
	}
#if IS_ENABLED(CONFIG_IPV6)
	IP6_INC_STATS(net, idev, IPSTATS_MIB_INDELIVERS);
	SNMP_ADD_STATS(net->mib.udp_stats_in6, UDP_MIB_INDATAGRAMS, segs);
#endif
}

/*
 * A peer's train, taken whole before UDP would cut it. A veth or bridge
 * between namespaces of this host hands a UDP GSO datagram over as it was
 * sent, but a socket with an encapsulation handler only gets it cut into
 * datagrams of one packet, each with a copy and a checksum pass, which
 * costs as much as the rest of the receive path. So a hook at LOCAL_IN,
 * after every other (the firewall's rules included), takes the port's
 * trains: linear ones a sender on this host built (CHECKSUM_PARTIAL; a
 * NIC's GRO builds paged ones), with the headers the socket would accept
 * (no IPv4 options, no IPv6 extension headers, a UDP length that is the
 * datagram's), packets no shorter than a BTH and an ICRC, not assigned to
 * a socket already (TPROXY, a BPF socket lookup), and what the socket's
 * path checks first passed (conntrack confirmed, IPsec policy).
 * Everything else, single packets included, goes on to the socket. Runs
 * under RCU; an NFQUEUE verdict may run it in process context.
 */
static unsigned int sroce_fw_train_in(void *priv, struct sk_buff *skb,
				      const struct nf_hook_state *state)
{
	const struct skb_shared_info *shinfo = skb_shinfo(skb);
	struct inet6_dev *idev = NULL;
	struct net *net = state->net;
	unsigned int l3_len;
	struct udphdr *uh;
	bool taken;
	u32 payload;
	u16 segs;

	if (!skb_is_gso(skb) || shinfo->gso_type != SKB_GSO_UDP_L4 ||
	    skb->ip_summed != CHECKSUM_PARTIAL || skb_is_nonlinear(skb) ||
	    skb->pkt_type != PACKET_HOST || skb->sk)
		return NF_ACCEPT;
	if (state->pf == NFPROTO_IPV4) {
		l3_len = sizeof(struct iphdr);
		if (skb->protocol != htons(ETH_P_IP) ||
		    ip_hdr(skb)->protocol != IPPROTO_UDP)
			return NF_ACCEPT;
	} else {
		l3_len = sizeof(struct ipv6hdr);
		if (skb->protocol != htons(ETH_P_IPV6) ||
		    ipv6_hdr(skb)->nexthdr != IPPROTO_UDP)
			return NF_ACCEPT;
	}
	if (skb_network_header_len(skb) != l3_len ||
	    skb_tail_pointer(skb) - skb_transport_header(skb) <= sizeof(*uh))
		return NF_ACCEPT;
	uh = udp_hdr(skb);
	payload = skb_tail_pointer(skb) - (u8 *)(uh + 1);
	if (uh->dest != htons(SROCE_ROCE_V2_UDP_DPORT) ||
	    ntohs(uh->len) != sizeof(*uh) + payload ||
	    shinfo->gso_size < SROCE_BTH_LEN + 4 ||
	    payload <= shinfo->gso_size)
		return NF_ACCEPT;
	segs = DIV_ROUND_UP(payload, shinfo->gso_size);
#if IS_ENABLED(CONFIG_IPV6)
	/* Its counters outlive the skb under RCU, as the route's device. */
	if (state->pf == NFPROTO_IPV6)
		idev = ip6_dst_idev(skb_dst(skb));
#endif
	/*
	 * With softirqs off, as the socket's path runs and the receive
	 * path's locks require.
	 */
	local_bh_disable();
	taken = !sroce_fw_ct_unconfirmed(skb) &&
		(state->pf == NFPROTO_IPV4 ?
		 xfrm4_policy_check(NULL, XFRM_POLICY_IN, skb) :
		 xfrm6_policy_check(NULL, XFRM_POLICY_IN, skb)) &&
		sroce_fw_rx_train(net, skb, shinfo->gso_size, segs, false);
	if (taken)
		sroce_fw_train_mib(net, state->pf, idev, segs);
	local_bh_enable();
	return taken ? NF_STOLEN : NF_ACCEPT;
}

static const struct nf_hook_ops sroce_fw_train_hooks[] = {
	{
		.hook = sroce_fw_train_in,
		.pf = NFPROTO_IPV4,
		.hooknum = NF_INET_LOCAL_IN,
		.priority = NF_IP_PRI_LAST,
	},
#if IS_ENABLED(CONFIG_IPV6)
	{
		.hook = sroce_fw_train_in,
		.pf = NFPROTO_IPV6,
		.hooknum = NF_INET_LOCAL_IN,
		.priority = NF_IP6_PRI_LAST,
	},
#endif
};

static int sroce_fw_train_hooks_add(struct net *net)
{
	return nf_register_net_hooks(net, sroce_fw_train_hooks,
				     ARRAY_SIZE(sroce_fw_train_hooks));
}

static void sroce_fw_train_hooks_del(struct net *net)
{
	nf_unregister_net_hooks(net, sroce_fw_train_hooks,
				ARRAY_SIZE(sroce_fw_train_hooks));
}
#else
/* Without netfilter the UDP stack cuts every train for the socket. */
static int sroce_fw_train_hooks_add(struct net *net)
{
	return 0;
}

static void sroce_fw_train_hooks_del(struct net *net)
{
}
#endif

static struct socket *sroce_fw_udp_open(struct net *net, int family)
{
	struct udp_tunnel_sock_cfg tunnel_cfg = {
		.encap_type = 1,
		.encap_rcv = sroce_fw_udp_encap_recv,
	};
	struct udp_port_cfg port_cfg = {
		.family = family,
		.local_udp_port = htons(SROCE_ROCE_V2_UDP_DPORT),
		.ipv6_v6only = family == AF_INET6,
	};
	struct socket *sock;
	int err;

	err = udp_sock_create(net, &port_cfg, &sock);
	if (err)
		return ERR_PTR(err);
	sroce_udp_tunnel_setup(net, sock, &tunnel_cfg);
	return sock;
}

static int __net_init sroce_fw_netns_init(struct net *net)
{
	struct sroce_fw_netns *ns = net_generic(net, sroce_fw_netns_id);
	struct socket *sock4, *sock6;
	int err;

	sock4 = sroce_fw_udp_open(net, AF_INET);
	if (IS_ERR(sock4))
		return PTR_ERR(sock4);
	sock6 = sroce_fw_udp_open(net, AF_INET6);
	if (IS_ERR(sock6) && PTR_ERR(sock6) != -EAFNOSUPPORT) {
		sroce_udp_tunnel_release(sock4);
		return PTR_ERR(sock6);
	}
	err = sroce_fw_train_hooks_add(net);
	if (err)
		goto err_release_sockets;
	rcu_assign_pointer(ns->sock4, sock4);
	rcu_assign_pointer(ns->sock6, IS_ERR(sock6) ? NULL : sock6);
	return 0;

err_release_sockets:
	if (!IS_ERR(sock6))
		sroce_udp_tunnel_release(sock6);
	sroce_udp_tunnel_release(sock4);
	return err;
}

/*
 * Runs before the namespace's netdevs are unregistered (a pernet device
 * operation): a socket can hold a route through the namespace's loopback
 * device (UDP caches the input route of multicast datagrams it demuxed
 * early), which would keep lo from ever being freed if the sockets went
 * after the devices.
 */
static void __net_exit sroce_fw_netns_exit(struct net *net)
{
	struct sroce_fw_netns *ns = net_generic(net, sroce_fw_netns_id);
	struct socket *sock4 = rcu_dereference_protected(ns->sock4, true);
	struct socket *sock6 = rcu_dereference_protected(ns->sock6, true);

	sroce_fw_train_hooks_del(net);
	RCU_INIT_POINTER(ns->sock4, NULL);
	RCU_INIT_POINTER(ns->sock6, NULL);
	/* No transmit uses them after this, nor the hook a train. */
	synchronize_net();
	if (sock6)
		sroce_udp_tunnel_release(sock6);
	if (sock4)
		sroce_udp_tunnel_release(sock4);
}

static struct pernet_operations sroce_fw_netns_ops = {
	.init = sroce_fw_netns_init,
	.exit = sroce_fw_netns_exit,
	.id = &sroce_fw_netns_id,
	.size = sizeof(struct sroce_fw_netns),
};

#if IS_ENABLED(CONFIG_VLAN_8021Q)
/*
 * The skb priority that VLAN device @vlan turns into 802.1p priority @sl.
 * The SL is the frame's PCP, as on ConnectX and as the RDMA CM expects: it
 * derived the SL from this same egress map. A software VLAN device tags a
 * frame with what its egress map gives for skb->priority, so pick a
 * priority that maps to @sl; if none does, @sl itself. Caller holds
 * rcu_read_lock() (the transmit path).
 */
static u32 sroce_fw_vlan_skb_priority(struct net_device *vlan, u8 sl)
{
	const struct vlan_priority_tci_mapping *map;
	const struct vlan_dev_priv *v;
	u16 want = ((u16)sl << VLAN_PRIO_SHIFT) & VLAN_PRIO_MASK;
	unsigned int i;

	if ((vlan_dev_get_egress_qos_mask(vlan, sl) & VLAN_PRIO_MASK) == want)
		return sl;
	v = vlan_dev_priv(vlan);
	/* Pairs with the write barrier of vlan_dev_set_egress_priority(). */
	smp_rmb();
	for (i = 0; i < ARRAY_SIZE(v->egress_priority_map); i++)
		for (map = sroce_vlan_map_deref(v->egress_priority_map[i]);
		     map; map = sroce_vlan_map_deref(map->next))
			if ((READ_ONCE(map->vlan_qos) & VLAN_PRIO_MASK) == want)
				return map->priority;
	return sl;
}
#else
static u32 sroce_fw_vlan_skb_priority(struct net_device *vlan, u8 sl)
{
	return sl;
}
#endif

/*
 * skb->priority for a packet leaving through @dev at service level @sl:
 * the SL (qdiscs and, later, PFC classify by it), or on a VLAN device the
 * priority its egress map turns into PCP @sl.
 */
static void sroce_fw_set_priority(struct sk_buff *skb,
				  struct net_device *dev, u8 sl)
{
	skb->priority = is_vlan_dev(dev) ? sroce_fw_vlan_skb_priority(dev, sl)
					 : sl;
}

/* The netdev a source GID belongs to: the port's or one of its VLANs. */
static struct net_device *sroce_fw_path_dev(struct sroce_fw_dev *fw,
					    u16 vlan_id)
{
	if (vlan_id == SROCE_VLAN_NONE)
		return fw->ndev;
	return __vlan_find_dev_deep_rcu(fw->ndev, htons(ETH_P_8021Q),
					vlan_id);
}

/*
 * Put the IPv4 header of @path in front of the UDP datagram in @skb.
 * @frag_off: DF or nothing. @segs: datagrams it will be cut into, each
 * taking the next IP ID.
 */
static void sroce_fw_push_ipv4(struct net *net, struct sk_buff *skb,
			       const struct sroce_fw_path *path,
			       __be16 frag_off, u16 segs)
{
	struct iphdr *iph;

	skb_push(skb, sizeof(*iph));
	skb_reset_network_header(skb);
	iph = ip_hdr(skb);
	iph->version = 4;
	iph->ihl = 5;
	iph->tos = path->traffic_class;
	iph->tot_len = htons(skb->len);
	iph->frag_off = frag_off;
	iph->ttl = path->hop_limit;
	iph->protocol = IPPROTO_UDP;
	memcpy(&iph->saddr, path->sgid + 12, 4);
	memcpy(&iph->daddr, path->dgid + 12, 4);
	ip_select_ident_segs(net, skb, NULL, segs);
	ip_send_check(iph);
	skb->protocol = htons(ETH_P_IP);
}

/* The same with an IPv6 header. */
static void sroce_fw_push_ipv6(struct sk_buff *skb,
			       const struct sroce_fw_path *path)
{
	struct ipv6hdr *ip6h;

	skb_push(skb, sizeof(*ip6h));
	skb_reset_network_header(skb);
	ip6h = ipv6_hdr(skb);
	ip6_flow_hdr(ip6h, path->traffic_class,
		     cpu_to_be32(path->flow_label));
	ip6h->payload_len = htons(skb->len - sizeof(*ip6h));
	ip6h->nexthdr = IPPROTO_UDP;
	ip6h->hop_limit = path->hop_limit;
	memcpy(&ip6h->saddr, path->sgid, SROCE_GID_LEN);
	memcpy(&ip6h->daddr, path->dgid, SROCE_GID_LEN);
	skb->protocol = htons(ETH_P_IPV6);
}

/* Write the ICRC of the packet in @skb, which starts at its IP header. */
static int sroce_fw_icrc_write(struct sk_buff *skb, unsigned int l3_type)
{
	return sroce_icrc_generate(skb->data, skb->len - 4, l3_type);
}

/*
 * A train (@skb from its IP header, @segs packets of @seg_len bytes, the
 * last maybe shorter) as one datagram for UDP segmentation: each packet's
 * ICRC for the IP and UDP header it will have once cut
 * (sroce_train_seg_hdr()). The UDP checksum is left for whoever cuts it (an
 * offload, the stack in software, or nobody behind a veth): segmentation
 * requires one.
 */
static int sroce_fw_train_finish(struct sk_buff *skb, u32 seg_len, u16 segs,
				 unsigned int l3_type)
{
	unsigned int l3_len = skb_transport_offset(skb) + sizeof(struct udphdr);
	u8 hdr[sizeof(struct ipv6hdr) + sizeof(struct udphdr)];
	u32 left = skb->len - l3_len, len, icrc;
	struct udphdr *uh;
	u8 *pkt = skb->data + l3_len;
	u16 id = 0, i;
	int err;

	if (WARN_ON_ONCE(l3_len > sizeof(hdr) || skb_is_nonlinear(skb)))
		return -EINVAL;
	memcpy(hdr, skb->data, l3_len);
	if (l3_type == SROCE_L3_IPV4)
		id = ntohs(((struct iphdr *)hdr)->id);
	for (i = 0; i < segs; i++, pkt += len, left -= len) {
		len = min(seg_len, left);
		if (len < 4)
			return -EINVAL;
		sroce_train_seg_hdr(hdr, l3_len, l3_type, id, i, len);
		err = sroce_icrc_compute_split(hdr, l3_len, pkt, len - 4,
					       l3_type, &icrc);
		if (err)
			return err;
		sroce_put_le32(pkt + len - 4, icrc);
	}
	if (left)
		return -EINVAL;

	skb_shinfo(skb)->gso_size = seg_len;
	skb_shinfo(skb)->gso_type = SKB_GSO_UDP_L4;
	skb_shinfo(skb)->gso_segs = segs;
	skb->ip_summed = CHECKSUM_PARTIAL;
	skb->csum_start = skb_transport_header(skb) - skb->head;
	skb->csum_offset = offsetof(struct udphdr, check);
	uh = udp_hdr(skb);
	if (l3_type == SROCE_L3_IPV4)
		uh->check = ~csum_tcpudp_magic(ip_hdr(skb)->saddr,
					       ip_hdr(skb)->daddr,
					       ntohs(uh->len), IPPROTO_UDP, 0);
	else
		uh->check = ~csum_ipv6_magic(&ipv6_hdr(skb)->saddr,
					     &ipv6_hdr(skb)->daddr,
					     ntohs(uh->len), IPPROTO_UDP, 0);
	return 0;
}

/* The ICRC of each packet in @skb: one, or a train (@segs > 1). */
static int sroce_fw_icrc_finish(struct sk_buff *skb, u32 seg_len, u16 segs,
				unsigned int l3_type)
{
	return segs > 1 ? sroce_fw_train_finish(skb, seg_len, segs, l3_type) :
			  sroce_fw_icrc_write(skb, l3_type);
}

/*
 * @skb: one RoCE packet, or a train of @segs of @seg_len bytes (the last
 * maybe shorter), behind its UDP header.
 */
static int sroce_fw_xmit_v4(struct net *net, struct sk_buff *skb,
			    const struct sroce_fw_path *path,
			    struct net_device *dev, u32 seg_len, u16 segs)
{
	struct sroce_fw_netns *ns = net_generic(net, sroce_fw_netns_id);
	struct flowi4 fl = { .flowi4_proto = IPPROTO_UDP };
	struct socket *sock = rcu_dereference(ns->sock4);
	__be16 frag_off;
	struct rtable *rt;
	int err;

	if (!sock) {
		err = -ENETDOWN;
		goto err_drop;
	}
	sroce_flowi4_set_tos(&fl, path->traffic_class & ~INET_ECN_MASK);
	memcpy(&fl.saddr, path->sgid + 12, 4);
	memcpy(&fl.daddr, path->dgid + 12, 4);
	/* A multicast group is reached through our own netdev. */
	if (ipv4_is_multicast(fl.daddr))
		fl.flowi4_oif = dev->ifindex;
	rt = ip_route_output_key(net, &fl);
	if (IS_ERR(rt)) {
		err = PTR_ERR(rt);
		goto err_drop;
	}
	skb_dst_set(skb, &rt->dst);
	sroce_fw_set_priority(skb, rt->dst.dev, path->sl);

	/*
	 * RoCE v2 sets DF, except on a packet larger than the route's MTU (a
	 * QP keeps its path MTU when the netdev MTU drops): that one leaves
	 * without DF for IP to fragment, since the receiver checks the ICRC
	 * against the header it reassembles, which has DF only if every
	 * fragment had it.
	 */
	frag_off = sizeof(struct iphdr) + sizeof(struct udphdr) + seg_len >
		   dst_mtu(&rt->dst) ? 0 : htons(IP_DF);
	sroce_fw_push_ipv4(net, skb, path, frag_off, segs);
	if (sroce_fw_icrc_finish(skb, seg_len, segs, SROCE_L3_IPV4)) {
		err = -EINVAL;
		goto err_drop;
	}
	return ip_local_out(net, sock->sk, skb);

err_drop:
	kfree_skb(skb);
	return err;
}

/* The same over IPv6. */
static int sroce_fw_xmit_v6(struct net *net, struct sk_buff *skb,
			    const struct sroce_fw_path *path,
			    struct net_device *dev, u32 seg_len, u16 segs)
{
	struct sroce_fw_netns *ns = net_generic(net, sroce_fw_netns_id);
	struct flowi6 fl = {
		.flowi6_proto = IPPROTO_UDP,
	};
	struct socket *sock = rcu_dereference(ns->sock6);
	struct dst_entry *dst;
	int err;

	if (!sock) {
		err = -EAFNOSUPPORT;
		goto err_drop;
	}
	memcpy(&fl.saddr, path->sgid, SROCE_GID_LEN);
	memcpy(&fl.daddr, path->dgid, SROCE_GID_LEN);
	/* Link-local destinations only make sense through our own netdev. */
	if (ipv6_addr_type(&fl.daddr) &
	    (IPV6_ADDR_LINKLOCAL | IPV6_ADDR_MULTICAST))
		fl.flowi6_oif = dev->ifindex;
	dst = ip6_route_output(net, sock->sk, &fl);
	if (dst->error) {
		err = dst->error;
		dst_release(dst);
		goto err_drop;
	}
	skb_dst_set(skb, dst);
	sroce_fw_set_priority(skb, dst->dev, path->sl);

	sroce_fw_push_ipv6(skb, path);
	if (sroce_fw_icrc_finish(skb, seg_len, segs, SROCE_L3_IPV6)) {
		err = -EINVAL;
		goto err_drop;
	}
	return ip6_local_out(net, sock->sk, skb);

err_drop:
	kfree_skb(skb);
	return err;
}

/*
 * Internal loopback. A packet to an address of a function in the same
 * namespace would only go out to lo and come back; like a NIC that loops
 * traffic between its own functions, the firmware hands it to its receive
 * path without the IP stack. Never in the sender's call chain (the sender
 * holds its QP's lock, the receiver may need it): packets wait on a
 * per-CPU queue for a tasklet, as lo's wait for the backlog.
 *
 * Senders and the tasklet run with softirqs off, so the queue's lock is
 * taken without disabling interrupts. It is almost never contended: only
 * a tasklet that CPU hotplug moved to another CPU drains a queue from
 * outside its CPU. The lock also protects @pkts, the packets the queued
 * skbs hold (a train holds many), which bounds the queue.
 */
struct sroce_fw_loopback {
	struct sk_buff_head queue;
	unsigned int pkts;
	struct tasklet_struct tasklet;
};

static DEFINE_PER_CPU(struct sroce_fw_loopback, sroce_fw_loopback);

/*
 * What rides in a looped-back skb's cb: its namespace (a reference), and
 * for a train the length of its packets and their number.
 */
struct sroce_fw_loop_cb {
	struct net *net;
	u32 seg_len;
	u16 segs;
};

static struct sroce_fw_loop_cb *sroce_fw_loop_cb(struct sk_buff *skb)
{
	static_assert(sizeof(struct sroce_fw_loop_cb) <= sizeof(skb->cb));
	return (struct sroce_fw_loop_cb *)skb->cb;
}

/* Packets received per tasklet run before it yields to other softirqs. */
#define SROCE_FW_LOOPBACK_BUDGET	64
/* Packets a CPU's queue holds; more are dropped, as lo's backlog would. */
#define SROCE_FW_LOOPBACK_MAX		4096

static void sroce_fw_loopback_rx(struct tasklet_struct *t)
{
	struct sroce_fw_loopback *lb = from_tasklet(lb, t, tasklet);
	int budget = SROCE_FW_LOOPBACK_BUDGET;
	struct sk_buff *skb;

	while (budget > 0) {
		struct sroce_fw_loop_cb cb;

		spin_lock(&lb->queue.lock);
		skb = __skb_dequeue(&lb->queue);
		if (skb)
			lb->pkts -= sroce_fw_loop_cb(skb)->segs;
		spin_unlock(&lb->queue.lock);
		if (!skb)
			return;
		cb = *sroce_fw_loop_cb(skb);
		if (cb.segs > 1) {
			rcu_read_lock();
			sroce_fw_rx_train(cb.net, skb, cb.seg_len, cb.segs,
					  true);
			rcu_read_unlock();
		} else {
			sroce_fw_rx_v2(cb.net, skb, true);
		}
		put_net(cb.net);
		budget -= cb.segs;
	}
	if (!skb_queue_empty_lockless(&lb->queue))
		tasklet_schedule(&lb->tasklet);
}

/* Drop what a queue still holds once nothing sends or drains any more. */
static void sroce_fw_loopback_purge(struct sroce_fw_loopback *lb)
{
	struct sk_buff *skb;

	while ((skb = __skb_dequeue(&lb->queue))) {
		put_net(sroce_fw_loop_cb(skb)->net);
		kfree_skb(skb);
	}
	lb->pkts = 0;
}

/* @skb: as for sroce_fw_xmit_v4(). */
static int sroce_fw_xmit_loopback(struct net *net, struct sk_buff *skb,
				  const struct sroce_fw_path *path,
				  u32 seg_len, u16 segs)
{
	struct sroce_fw_loop_cb *cb = sroce_fw_loop_cb(skb);
	struct sroce_fw_loopback *lb;

	/*
	 * No ICRC: the packet never leaves the firmware, as a NIC's own
	 * loopback never crosses a wire, and the receive path knows it from
	 * the queue it came by. Its room stays, zeroed.
	 */
	if (path->net_type == SROCE_NET_IPV4)
		sroce_fw_push_ipv4(net, skb, path, htons(IP_DF), segs);
	else
		sroce_fw_push_ipv6(skb, path);
	/* None: the namespace is being dismantled, nobody will receive. */
	net = maybe_get_net(net);
	if (!net) {
		kfree_skb(skb);
		return -ENETDOWN;
	}
	cb->net = net;
	cb->seg_len = seg_len;
	cb->segs = segs;
	/*
	 * Senders run with softirqs off already (the tasklet must not run
	 * in their call chain); this pair only pins the CPU.
	 */
	local_bh_disable();
	lb = this_cpu_ptr(&sroce_fw_loopback);
	spin_lock(&lb->queue.lock);
	if (lb->pkts + segs <= SROCE_FW_LOOPBACK_MAX) {
		__skb_queue_tail(&lb->queue, skb);
		lb->pkts += segs;
		skb = NULL;
	}
	spin_unlock(&lb->queue.lock);
	if (!skb)
		tasklet_schedule(&lb->tasklet);
	local_bh_enable();
	if (skb) {
		put_net(net);
		kfree_skb(skb);
		return -ENOBUFS;
	}
	return 0;
}

/* RoCE v1: GRH, then the Ethernet header, then out of the (VLAN) device. */
static int sroce_fw_xmit_v1(struct sk_buff *skb,
			    const struct sroce_fw_path *path,
			    struct net_device *dev)
{
	unsigned int payload = skb->len;
	struct ipv6hdr *grh;

	grh = skb_push(skb, SROCE_GRH_LEN);
	skb_reset_network_header(skb);
	ip6_flow_hdr(grh, path->traffic_class, cpu_to_be32(path->flow_label));
	grh->payload_len = htons(payload);
	grh->nexthdr = SROCE_GRH_NEXT_HDR;
	grh->hop_limit = path->hop_limit;
	memcpy(&grh->saddr, path->sgid, SROCE_GID_LEN);
	memcpy(&grh->daddr, path->dgid, SROCE_GID_LEN);
	if (sroce_icrc_generate(skb->data, skb->len - 4, SROCE_L3_GRH)) {
		kfree_skb(skb);
		return -EINVAL;
	}
	if (dev_hard_header(skb, dev, SROCE_ROCE_V1_ETHERTYPE, path->dmac,
			    dev->dev_addr, skb->len) < 0) {
		kfree_skb(skb);
		return -EINVAL;
	}
	skb->dev = dev;
	sroce_fw_set_priority(skb, dev, path->sl);
	skb->protocol = htons(SROCE_ROCE_V1_ETHERTYPE);
	/* A frame to ourselves: the wire would not bring it back. */
	if (ether_addr_equal(path->dmac, dev->dev_addr)) {
		skb->protocol = eth_type_trans(skb, dev);
		return netif_rx(skb) == NET_RX_SUCCESS ? 0 : -ENOBUFS;
	}
	return dev_queue_xmit(skb);
}

/*
 * A datagram to an IPv4 multicast group also reaches the group's QPs in
 * this namespace, ours included, as an HCA loops multicast back to the
 * QPs of its own ports: IPv4 will not (setup_udp_tunnel_sock() turns
 * IP_MULTICAST_LOOP off on the port's socket), so the receive path gets a
 * copy through the internal loopback. (IPv6 keeps IPV6_MULTICAST_LOOP on
 * the IPv6 socket and loops such datagrams itself.) A copy that cannot be
 * made or queued is counted as a packet that found no memory (tx_no_mem):
 * multicast is unreliable.
 */
static void sroce_fw_mcast_loop(struct sroce_fw_dev *fw, struct net *net,
				const struct sk_buff *skb,
				const struct sroce_fw_path *path)
{
	struct sk_buff *copy = skb_copy(skb, GFP_ATOMIC);

	if (!copy || sroce_fw_xmit_loopback(net, copy, path, copy->len, 1))
		sroce_fw_count(fw, SROCE_STAT_TX_NO_MEM);
}

/**
 * sroce_fw_xmit_pause() - ask the link partner to pause or resume
 * @fw: the function whose port asks
 * @enable: the priorities the frame names
 * @quanta: per priority, the pause time (0: resume)
 *
 * An 802.1Qbb frame from the port's MAC to the MAC Control group, out of
 * the netdev (the real device under a VLAN) untagged and link-local. It
 * bypasses the port's transmit scheduler (it is no QP's, and a paused
 * priority must not hold it) and goes to the netdev's queue at control
 * priority. One that finds no memory is lost, as on a wire: the next
 * refresh asks again.
 *
 * Context: softirq or process context; no lock of the caller's held.
 * Return: 0, or a negative errno if it was not sent.
 */
int sroce_fw_xmit_pause(struct sroce_fw_dev *fw, u8 enable, const u16 *quanta)
{
	struct net_device *dev = sroce_fw_phys_dev(fw->ndev);
	struct sk_buff *skb;
	int err;

	skb = alloc_skb(LL_RESERVED_SPACE(dev) + SROCE_PAUSE_FRAME_LEN,
			GFP_ATOMIC);
	if (!skb)
		return -ENOMEM;
	skb_reserve(skb, LL_RESERVED_SPACE(dev));
	skb_reset_mac_header(skb);
	if (sroce_pfc_build(skb_put(skb, SROCE_PAUSE_FRAME_LEN),
			    SROCE_PAUSE_FRAME_LEN, dev->dev_addr, enable,
			    quanta) < 0) {
		kfree_skb(skb);
		return -EINVAL;
	}
	skb_set_network_header(skb, ETH_HLEN);
	skb->dev = dev;
	skb->protocol = htons(SROCE_MAC_CONTROL_TYPE);
	skb->priority = TC_PRIO_CONTROL;
	/*
	 * Congestion notified is sent all the same; a drop is not. Not
	 * net_xmit_eval(dev_queue_xmit()): the macro evaluates its argument
	 * twice, which sent the frame again after it was consumed.
	 */
	err = dev_queue_xmit(skb);
	err = net_xmit_eval(err);
	return err > 0 ? -ENOBUFS : err;
}

/**
 * sroce_fw_xmit() - send one RoCE packet or a train of them
 * @fw: the function
 * @skb: transport headers, payload and pad, with 4 bytes reserved at the
 *	 tail for the ICRC, and SROCE_FW_XMIT_HEADROOM of headroom; for a
 *	 train, linear: @segs such packets back to back
 * @path: addresses and header fields
 * @seg_len: length of a packet, BTH through ICRC (the last of a train may
 *	     be shorter); @skb->len for one packet
 * @segs: packets in @skb; more than 1 only for RoCE v2
 *
 * Out of the port a train is one UDP datagram for segmentation into one
 * per packet; to a function of this namespace the internal loopback hands
 * it over whole. Consumes @skb in every case.
 *
 * Context: process or softirq context.
 * Return: 0 or a negative errno (the packet or train is dropped).
 */
int sroce_fw_xmit(struct sroce_fw_dev *fw, struct sk_buff *skb,
		  const struct sroce_fw_path *path, u32 seg_len, u16 segs)
{
	struct net_device *dev;
	struct udphdr *uh;
	struct net *net;
	int err;

	rcu_read_lock();
	dev = sroce_fw_path_dev(fw, path->vlan_id);
	if (!dev) {
		err = -ENETUNREACH;
		goto err_drop;
	}
	/* The skb holds the transport packets, their ICRCs included. */
	sroce_fw_count_add(fw, SROCE_STAT_TX_PKTS, segs);
	if (segs > 1)
		sroce_fw_count(fw, SROCE_STAT_TX_TRAINS);
	sroce_fw_count_add(fw, SROCE_STAT_TX_BYTES, skb->len);
	if (path->net_type == SROCE_NET_ROCE_V1) {
		if (WARN_ON_ONCE(segs != 1)) {
			err = -EINVAL;
			goto err_drop;
		}
		err = sroce_fw_xmit_v1(skb, path, dev);
		rcu_read_unlock();
		return net_xmit_eval(err);
	}
	net = dev_net(dev);

	skb_push(skb, sizeof(*uh));
	skb_reset_transport_header(skb);
	uh = udp_hdr(skb);
	uh->source = htons(path->sport);
	uh->dest = htons(SROCE_ROCE_V2_UDP_DPORT);
	uh->len = htons(skb->len);
	/*
	 * Zero: the ICRC protects the payload; the sockets accept this. A
	 * train's is set for its segmentation (sroce_fw_train_finish()).
	 */
	uh->check = 0;
	skb->ignore_df = 1;

	if (sroce_fw_dev_by_gid(net, path->dgid, SROCE_GID_ROCE_V2, NULL)) {
		err = sroce_fw_xmit_loopback(net, skb, path, seg_len, segs);
	} else {
		if (path->net_type == SROCE_NET_IPV4 &&
		    sroce_fw_gid_is_mcast(path->dgid))
			sroce_fw_mcast_loop(fw, net, skb, path);
		if (path->net_type == SROCE_NET_IPV4)
			err = sroce_fw_xmit_v4(net, skb, path, dev, seg_len,
					       segs);
		else
			err = sroce_fw_xmit_v6(net, skb, path, dev, seg_len,
					       segs);
	}
	rcu_read_unlock();
	return net_xmit_eval(err);

err_drop:
	rcu_read_unlock();
	kfree_skb(skb);
	return err;
}

/**
 * sroce_fw_net_init() - claim UDP port 4791 in every network namespace
 * and the RoCE v1 and MAC Control ethertypes
 *
 * Return: 0; -EADDRINUSE if another stack holds the port in the initial
 * namespace; another negative errno on failure.
 */
int sroce_fw_net_init(void)
{
	unsigned int cpu;
	int err;

	sroce_fw_crc_fold = !sroce_crc32_le_accelerated();
	pr_info("sroce: ICRC by %s\n", sroce_fw_crc_fold ?
		"folding (crc32_le() is not accelerated here)" :
		"the kernel's accelerated crc32_le()");
	for_each_possible_cpu(cpu) {
		struct sroce_fw_loopback *lb = per_cpu_ptr(&sroce_fw_loopback,
							   cpu);

		skb_queue_head_init(&lb->queue);
		tasklet_setup(&lb->tasklet, sroce_fw_loopback_rx);
	}

	err = register_pernet_device(&sroce_fw_netns_ops);
	if (err)
		return err;
	dev_add_pack(&sroce_fw_v1_packet_type);
	dev_add_pack(&sroce_fw_pause_packet_type);
	return 0;
}

/**
 * sroce_fw_net_exit() - release UDP port 4791 everywhere
 */
void sroce_fw_net_exit(void)
{
	unsigned int cpu;

	/*
	 * No function is left to send. A tasklet killed after a full budget
	 * leaves the rest of its queue behind: drop it.
	 */
	for_each_possible_cpu(cpu) {
		struct sroce_fw_loopback *lb = per_cpu_ptr(&sroce_fw_loopback,
							   cpu);

		tasklet_kill(&lb->tasklet);
		sroce_fw_loopback_purge(lb);
	}
	/* Each waits until no packet is in the handler any more. */
	dev_remove_pack(&sroce_fw_pause_packet_type);
	dev_remove_pack(&sroce_fw_v1_packet_type);
	unregister_pernet_device(&sroce_fw_netns_ops);
	pr_debug("sroce_fw: rx dropped: %lld for no device, %lld unparsable\n",
		 (long long)atomic64_read(&sroce_fw_rx_no_device),
		 (long long)atomic64_read(&sroce_fw_rx_unparsable));
}
