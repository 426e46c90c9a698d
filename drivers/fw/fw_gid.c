// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * sroce firmware: the GID table. The driver mirrors ib_core's table into
 * it; the packet engine will pick source addresses, VLAN tags and RoCE
 * versions from it.
 */
#include <linux/etherdevice.h>
#include <linux/hashtable.h>
#include <linux/if_vlan.h>
#include <linux/jhash.h>

#include "fw.h"

/**
 * struct sroce_fw_gid_ref - a valid GID table entry in the address hash
 * @node: in a sroce_fw_gid_hash bucket
 * @fw: the function whose table holds it
 * @gid: the address
 * @type: SROCE_GID_ROCE_V1 or SROCE_GID_ROCE_V2
 * @vlan_id: VLAN of the entry, SROCE_VLAN_NONE when untagged
 * @rcu: deferred free; lookups walk the buckets under RCU
 */
struct sroce_fw_gid_ref {
	struct hlist_node node;
	struct sroce_fw_dev *fw;
	u8 gid[SROCE_GID_LEN];
	u8 type;
	u16 vlan_id;
	struct rcu_head rcu;
};

/*
 * Every function's addresses, so that the receive path (and transmit, to
 * loop packets to a local address back) finds the function owning an
 * address in one bucket instead of scanning every table.
 */
static DEFINE_HASHTABLE(sroce_fw_gid_hash, 10);
/* Protects sroce_fw_gid_hash (writers; readers use RCU). */
static DEFINE_SPINLOCK(sroce_fw_gid_hash_lock);

static u32 sroce_fw_gid_key(const u8 gid[SROCE_GID_LEN], u8 type)
{
	return jhash(gid, SROCE_GID_LEN, type);
}

/*
 * A slot changed: paths QPs cached from the table are stale. Release:
 * whoever reads the new generation sees the slot as it is now. Caller
 * holds fw->gid_lock.
 */
static void sroce_fw_gid_changed(struct sroce_fw_dev *fw)
{
	/* Pairs with the acquire in sroce_fw_qp_path(). */
	smp_store_release(&fw->gid_gen, fw->gid_gen + 1);
}

/**
 * sroce_fw_paths_stale() - make every QP resolve its path again (the QoS
 * settings that decide its priority and ECN codepoint changed)
 * @fw: the function
 *
 * Context: process context.
 */
void sroce_fw_paths_stale(struct sroce_fw_dev *fw)
{
	spin_lock_bh(&fw->gid_lock);
	sroce_fw_gid_changed(fw);
	spin_unlock_bh(&fw->gid_lock);
}

/* Take slot @e's address out of the hash. Caller holds fw->gid_lock. */
static void sroce_fw_gid_unhash(struct sroce_fw_gid *e)
{
	if (!e->ref)
		return;
	spin_lock(&sroce_fw_gid_hash_lock);
	hash_del_rcu(&e->ref->node);
	spin_unlock(&sroce_fw_gid_hash_lock);
	kfree_rcu(e->ref, rcu);
	e->ref = NULL;
}

/**
 * sroce_fw_dev_by_gid() - the function that owns an address
 * @net: the namespace the address is looked for in
 * @gid: the address
 * @gid_type: SROCE_GID_ROCE_V1 or SROCE_GID_ROCE_V2
 * @vlan_id: if not NULL, set to the VLAN of the entry holding the address
 *
 * Context: under rcu_read_lock(), which keeps the function returned alive.
 * Return: the function, or NULL if no function of @net has the address.
 */
struct sroce_fw_dev *sroce_fw_dev_by_gid(struct net *net,
					 const u8 gid[SROCE_GID_LEN],
					 u8 gid_type, u16 *vlan_id)
{
	struct sroce_fw_gid_ref *ref;

	hash_for_each_possible_rcu(sroce_fw_gid_hash, ref, node,
				   sroce_fw_gid_key(gid, gid_type))
		if (ref->type == gid_type &&
		    !memcmp(ref->gid, gid, SROCE_GID_LEN) &&
		    net_eq(dev_net(ref->fw->ndev), net)) {
			if (vlan_id)
				*vlan_id = ref->vlan_id;
			return ref->fw;
		}
	return NULL;
}

/**
 * sroce_fw_gids_unhash() - take every address of a function out of the
 * address hash, before it goes
 * @fw: the function
 *
 * Lookups that started before may still return @fw until a grace period
 * has passed.
 */
void sroce_fw_gids_unhash(struct sroce_fw_dev *fw)
{
	unsigned int i;

	spin_lock_bh(&fw->gid_lock);
	for (i = 0; i < SROCE_FW_GID_TABLE_LEN; i++)
		sroce_fw_gid_unhash(&fw->gids[i]);
	spin_unlock_bh(&fw->gid_lock);
}

static bool sroce_fw_gid_index_ok(u8 port, u32 index)
{
	return port == 1 && index < SROCE_FW_GID_TABLE_LEN;
}

/**
 * sroce_fw_path_from_av() - resolve an address vector for transmission
 * @fw: the function
 * @av: the address vector (checked again here: the GID may be gone)
 * @path: filled in; the caller sets @path->sport
 *
 * Context: any but hard IRQ; does not sleep.
 * Return: 0, or -EINVAL if the source GID is gone or does not match.
 */
int sroce_fw_path_from_av(struct sroce_fw_dev *fw, const struct sroce_av *av,
			  struct sroce_fw_path *path)
{
	struct sroce_fw_gid *e;
	bool ipv4;
	int err = 0;

	if (av->sgid_index >= SROCE_FW_GID_TABLE_LEN)
		return -EINVAL;
	spin_lock_bh(&fw->gid_lock);
	e = &fw->gids[av->sgid_index];
	ipv4 = av->net_type == SROCE_NET_IPV4;
	if (!e->valid ||
	    (av->net_type == SROCE_NET_ROCE_V1 ?
	     e->type != SROCE_GID_ROCE_V1 :
	     (e->type != SROCE_GID_ROCE_V2 ||
	      sroce_gid_is_v4mapped(e->gid) != ipv4))) {
		err = -EINVAL;
	} else {
		memcpy(path->sgid, e->gid, SROCE_GID_LEN);
		path->vlan_id = e->vlan_id;
	}
	spin_unlock_bh(&fw->gid_lock);
	if (err)
		return err;

	memcpy(path->dgid, av->dgid, SROCE_GID_LEN);
	memcpy(path->dmac, av->dmac, ETH_ALEN);
	path->net_type = av->net_type;
	path->traffic_class = av->traffic_class;
	path->hop_limit = av->hop_limit ? av->hop_limit : 64;
	path->flow_label = le32_to_cpu(av->flow_label) & 0xfffff;
	path->sl = av->sl;
	sroce_fw_cc_path(fw, path);
	return 0;
}

/**
 * sroce_fw_qp_path() - the path of a connected QP's packets
 * @fw: the function
 * @qp: an RC or UC QP, whose lock the caller holds
 * @path: filled in, @path->sport included
 *
 * Resolved from the QP's address vector once and kept until the vector
 * or the GID table changes: every turn of the QP needs it, and the table
 * lock would otherwise be taken once per WQE and per turn of responses.
 * A change racing with the resolution only makes the next call resolve
 * again: the generation is read before the table.
 *
 * Context: softirqs disabled or softirq; does not sleep.
 * Return: 0, or -EINVAL if the source GID is gone or does not match.
 */
int sroce_fw_qp_path(struct sroce_fw_dev *fw, struct sroce_fw_qp *qp,
		     struct sroce_fw_path *path)
{
	/* Pairs with sroce_fw_gid_changed(): the table is read after it. */
	u32 gen = smp_load_acquire(&fw->gid_gen);

	if (!qp->path_valid || qp->path_gen != gen) {
		if (sroce_fw_path_from_av(fw, &qp->attr.av, &qp->path)) {
			qp->path_valid = false;
			return -EINVAL;
		}
		qp->path.sport = qp->sport;
		qp->path_gen = gen;
		qp->path_valid = true;
		/* The QoS settings may have moved it to another priority. */
		WRITE_ONCE(qp->prio, qp->path.prio);
	}
	*path = qp->path;
	return 0;
}

/**
 * sroce_fw_cmd_add_gid() - ADD_GID: program one GID table slot
 * @fw: the function
 * @req: struct sroce_add_gid_req
 * @resp: unused
 *
 * Programming a slot that is in use replaces its contents.
 *
 * Return: enum sroce_fw_status.
 */
u16 sroce_fw_cmd_add_gid(struct sroce_fw_dev *fw, const void *req,
			 void *resp)
{
	const struct sroce_add_gid_req *q = req;
	u32 index = le32_to_cpu(q->index);
	u16 vlan_id = le16_to_cpu(q->vlan_id);
	struct sroce_fw_gid_ref *ref;
	struct sroce_fw_gid *e;

	if (!sroce_fw_gid_index_ok(q->port, index) ||
	    (q->gid_type != SROCE_GID_ROCE_V1 &&
	     q->gid_type != SROCE_GID_ROCE_V2) ||
	    sroce_gid_is_zero(q->gid) || sroce_gid_is_multicast(q->gid) ||
	    (vlan_id != SROCE_VLAN_NONE && vlan_id >= VLAN_N_VID) ||
	    !is_valid_ether_addr(q->smac))
		return SROCE_FW_ERR_BAD_PARAM;
	ref = kzalloc(sizeof(*ref), GFP_KERNEL);
	if (!ref)
		return SROCE_FW_ERR_NO_RESOURCES;
	ref->fw = fw;
	ref->type = q->gid_type;
	ref->vlan_id = vlan_id;
	memcpy(ref->gid, q->gid, SROCE_GID_LEN);

	spin_lock_bh(&fw->gid_lock);
	e = &fw->gids[index];
	sroce_fw_gid_unhash(e);
	e->type = q->gid_type;
	e->vlan_id = vlan_id;
	memcpy(e->gid, q->gid, SROCE_GID_LEN);
	ether_addr_copy(e->smac, q->smac);
	e->valid = true;
	e->ref = ref;
	spin_lock(&sroce_fw_gid_hash_lock);
	hash_add_rcu(sroce_fw_gid_hash, &ref->node,
		     sroce_fw_gid_key(ref->gid, ref->type));
	spin_unlock(&sroce_fw_gid_hash_lock);
	sroce_fw_gid_changed(fw);
	spin_unlock_bh(&fw->gid_lock);
	return SROCE_FW_OK;
}

/**
 * sroce_fw_cmd_del_gid() - DEL_GID: clear one GID table slot
 * @fw: the function
 * @req: struct sroce_gid_index_req
 * @resp: unused
 *
 * Return: enum sroce_fw_status; NOT_FOUND for a slot not in use.
 */
u16 sroce_fw_cmd_del_gid(struct sroce_fw_dev *fw, const void *req,
			 void *resp)
{
	const struct sroce_gid_index_req *q = req;
	u32 index = le32_to_cpu(q->index);
	u16 status = SROCE_FW_OK;

	if (!sroce_fw_gid_index_ok(q->port, index))
		return SROCE_FW_ERR_BAD_PARAM;

	spin_lock_bh(&fw->gid_lock);
	if (fw->gids[index].valid) {
		sroce_fw_gid_unhash(&fw->gids[index]);
		memset(&fw->gids[index], 0, sizeof(fw->gids[index]));
		sroce_fw_gid_changed(fw);
	} else {
		status = SROCE_FW_ERR_NOT_FOUND;
	}
	spin_unlock_bh(&fw->gid_lock);
	return status;
}

/**
 * sroce_fw_cmd_query_gid() - QUERY_GID: read one GID table slot
 * @fw: the function
 * @req: struct sroce_gid_index_req
 * @resp: struct sroce_query_gid_resp; valid == 0 for an empty slot
 *
 * Return: enum sroce_fw_status.
 */
u16 sroce_fw_cmd_query_gid(struct sroce_fw_dev *fw, const void *req,
			   void *resp)
{
	const struct sroce_gid_index_req *q = req;
	struct sroce_query_gid_resp *r = resp;
	u32 index = le32_to_cpu(q->index);
	struct sroce_fw_gid *e;

	if (!sroce_fw_gid_index_ok(q->port, index))
		return SROCE_FW_ERR_BAD_PARAM;

	spin_lock_bh(&fw->gid_lock);
	e = &fw->gids[index];
	if (e->valid) {
		r->valid = 1;
		r->gid_type = e->type;
		r->vlan_id = cpu_to_le16(e->vlan_id);
		memcpy(r->gid, e->gid, SROCE_GID_LEN);
		ether_addr_copy(r->smac, e->smac);
	}
	spin_unlock_bh(&fw->gid_lock);
	return SROCE_FW_OK;
}
