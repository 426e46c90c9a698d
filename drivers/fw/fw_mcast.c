// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * sroce firmware: multicast groups of UD QPs. ATTACH_MCAST and
 * DETACH_MCAST keep, per function, the QPs that receive datagrams sent to a
 * multicast GID (ff00::/8, or an IPv4-mapped 224.0.0.0/4 address for RoCE
 * v2 over IPv4). Joining the group on the network (IGMP/MLD) is the RDMA
 * CM's business; the firmware only delivers what reaches the port: one
 * copy of each datagram to every QP attached, in every function of the
 * namespace that has the group.
 *
 * Groups sit on one RCU list, read by the receive path without a lock; the
 * QP numbers of a group are read with READ_ONCE and may be seen half
 * updated during an attach or detach, which costs at most one datagram to
 * a QP joining or leaving (multicast is unreliable anyway).
 */
#include <linux/rculist.h>
#include <linux/slab.h>

#include "fw.h"
#include "lib/qp_state.h"

/**
 * struct sroce_fw_mcg - a multicast group of one function
 * @node: on sroce_fw_mcgs
 * @fw: the function
 * @mgid: the group's GID
 * @nqps: entries of @qpns in use
 * @qpns: the QPs attached
 * @rcu: deferred free; the receive path walks the list under RCU
 */
struct sroce_fw_mcg {
	struct list_head node;
	struct sroce_fw_dev *fw;
	u8 mgid[SROCE_GID_LEN];
	u32 nqps;
	u32 qpns[SROCE_FW_MAX_MCAST_QP_ATTACH];
	struct rcu_head rcu;
};

/* Protects sroce_fw_mcgs (writers) and the groups' QP lists. */
static DEFINE_SPINLOCK(sroce_fw_mcg_lock);
static LIST_HEAD(sroce_fw_mcgs);

/**
 * sroce_fw_gid_is_mcast() - whether a GID names a multicast group
 * @gid: the GID
 *
 * Return: true for ff00::/8 and for IPv4-mapped 224.0.0.0/4.
 */
bool sroce_fw_gid_is_mcast(const u8 gid[SROCE_GID_LEN])
{
	return sroce_gid_is_multicast(gid) ||
	       (sroce_gid_is_v4mapped(gid) && (gid[12] & 0xf0) == 0xe0);
}

/* Caller holds sroce_fw_mcg_lock or RCU. */
static struct sroce_fw_mcg *sroce_fw_mcg_find(struct sroce_fw_dev *fw,
					      const u8 mgid[SROCE_GID_LEN])
{
	struct sroce_fw_mcg *g;

	list_for_each_entry_rcu(g, &sroce_fw_mcgs, node,
				lockdep_is_held(&sroce_fw_mcg_lock))
		if (g->fw == fw && !memcmp(g->mgid, mgid, SROCE_GID_LEN))
			return g;
	return NULL;
}

static unsigned int sroce_fw_mcg_count(struct sroce_fw_dev *fw)
{
	struct sroce_fw_mcg *g;
	unsigned int n = 0;

	list_for_each_entry(g, &sroce_fw_mcgs, node)
		n += g->fw == fw;
	return n;
}

/**
 * sroce_fw_cmd_attach_mcast() - ATTACH_MCAST: a UD QP joins a group
 * @fw: the function
 * @req: struct sroce_mcast_req
 * @resp: unused
 *
 * Attaching a QP that is attached already succeeds.
 *
 * Return: enum sroce_fw_status: NOT_FOUND for no such QP, BAD_PARAM for a
 * QP that is not UD or a GID that is not multicast, NO_RESOURCES when the
 * group or the group table is full.
 */
u16 sroce_fw_cmd_attach_mcast(struct sroce_fw_dev *fw, const void *req,
			      void *resp)
{
	const struct sroce_mcast_req *q = req;
	u32 qpn = le32_to_cpu(q->qpn), i;
	struct sroce_fw_mcg *g, *fresh;
	struct sroce_fw_qp *qp;
	u16 status = SROCE_FW_OK;

	if (!sroce_fw_gid_is_mcast(q->mgid))
		return SROCE_FW_ERR_BAD_PARAM;
	/* The command processor is the only one destroying QPs. */
	qp = xa_load(&fw->qps, qpn);
	if (!qp)
		return SROCE_FW_ERR_NOT_FOUND;
	if (qp->type != SROCE_QPT_UD)
		return SROCE_FW_ERR_BAD_PARAM;
	fresh = kzalloc(sizeof(*fresh), GFP_KERNEL);
	if (!fresh)
		return SROCE_FW_ERR_NO_RESOURCES;

	spin_lock_bh(&sroce_fw_mcg_lock);
	g = sroce_fw_mcg_find(fw, q->mgid);
	if (!g) {
		if (sroce_fw_mcg_count(fw) >= SROCE_FW_MAX_MCAST_GRP) {
			status = SROCE_FW_ERR_NO_RESOURCES;
			goto out_unlock;
		}
		g = fresh;
		fresh = NULL;
		g->fw = fw;
		memcpy(g->mgid, q->mgid, SROCE_GID_LEN);
		list_add_tail_rcu(&g->node, &sroce_fw_mcgs);
	}
	for (i = 0; i < g->nqps; i++)
		if (g->qpns[i] == qpn)
			goto out_unlock;
	if (g->nqps == SROCE_FW_MAX_MCAST_QP_ATTACH) {
		status = SROCE_FW_ERR_NO_RESOURCES;
		goto out_unlock;
	}
	WRITE_ONCE(g->qpns[g->nqps], qpn);
	/* Release: the entry before the count that exposes it. */
	smp_store_release(&g->nqps, g->nqps + 1);
out_unlock:
	spin_unlock_bh(&sroce_fw_mcg_lock);
	kfree(fresh);
	return status;
}

/* Take @qpn out of @g; free @g once empty. Caller holds the lock. */
static bool sroce_fw_mcg_remove(struct sroce_fw_mcg *g, u32 qpn)
{
	u32 i;

	for (i = 0; i < g->nqps; i++) {
		if (g->qpns[i] != qpn)
			continue;
		WRITE_ONCE(g->qpns[i], g->qpns[g->nqps - 1]);
		WRITE_ONCE(g->nqps, g->nqps - 1);
		if (!g->nqps) {
			list_del_rcu(&g->node);
			kfree_rcu(g, rcu);
		}
		return true;
	}
	return false;
}

/**
 * sroce_fw_cmd_detach_mcast() - DETACH_MCAST: a QP leaves a group
 * @fw: the function
 * @req: struct sroce_mcast_req
 * @resp: unused
 *
 * Return: enum sroce_fw_status; NOT_FOUND if the QP is not attached.
 */
u16 sroce_fw_cmd_detach_mcast(struct sroce_fw_dev *fw, const void *req,
			      void *resp)
{
	const struct sroce_mcast_req *q = req;
	struct sroce_fw_mcg *g;
	bool found = false;

	spin_lock_bh(&sroce_fw_mcg_lock);
	g = sroce_fw_mcg_find(fw, q->mgid);
	if (g)
		found = sroce_fw_mcg_remove(g, le32_to_cpu(q->qpn));
	spin_unlock_bh(&sroce_fw_mcg_lock);
	return found ? SROCE_FW_OK : SROCE_FW_ERR_NOT_FOUND;
}

/**
 * sroce_fw_mcast_forget_qp() - detach a QP being destroyed from its groups
 * @fw: the function
 * @qpn: the QP
 */
void sroce_fw_mcast_forget_qp(struct sroce_fw_dev *fw, u32 qpn)
{
	struct sroce_fw_mcg *g, *tmp;

	spin_lock_bh(&sroce_fw_mcg_lock);
	list_for_each_entry_safe(g, tmp, &sroce_fw_mcgs, node)
		if (g->fw == fw)
			sroce_fw_mcg_remove(g, qpn);
	spin_unlock_bh(&sroce_fw_mcg_lock);
}

/**
 * sroce_fw_mcast_rx() - deliver a datagram sent to a multicast GID
 * @net: the namespace it arrived in
 * @pkt: the packet, ICRC checked and parsed
 *
 * Context: softirq, under rcu_read_lock().
 * Return: the number of functions that had the group.
 */
unsigned int sroce_fw_mcast_rx(struct net *net, struct sroce_fw_pkt *pkt)
{
	struct sroce_fw_mcg *g;
	unsigned int nfw = 0;

	list_for_each_entry_rcu(g, &sroce_fw_mcgs, node) {
		u32 i, n;

		if (!net_eq(dev_net(g->fw->ndev), net) ||
		    memcmp(g->mgid, pkt->dgid, SROCE_GID_LEN))
			continue;
		nfw++;
		sroce_fw_count_pkt(g->fw, SROCE_STAT_RX_PKTS,
				   SROCE_STAT_RX_BYTES, pkt->len);
		/* Acquire: pairs with the attach's release of the count. */
		n = min_t(u32, smp_load_acquire(&g->nqps),
			  SROCE_FW_MAX_MCAST_QP_ATTACH);
		for (i = 0; i < n; i++) {
			struct sroce_fw_qp *qp;

			qp = xa_load(&g->fw->qps, READ_ONCE(g->qpns[i]));
			if (qp && qp->type == SROCE_QPT_UD)
				sroce_fw_recv_ud_mcast(g->fw, qp, pkt);
		}
	}
	return nfw;
}

/**
 * sroce_fw_mcgs_destroy() - drop every group of a function at detach
 * @fw: the function
 */
void sroce_fw_mcgs_destroy(struct sroce_fw_dev *fw)
{
	struct sroce_fw_mcg *g, *tmp;

	spin_lock_bh(&sroce_fw_mcg_lock);
	list_for_each_entry_safe(g, tmp, &sroce_fw_mcgs, node) {
		if (g->fw != fw)
			continue;
		list_del_rcu(&g->node);
		kfree_rcu(g, rcu);
	}
	spin_unlock_bh(&sroce_fw_mcg_lock);
}
