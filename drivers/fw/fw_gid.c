// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * sroce firmware: the GID table. The driver mirrors ib_core's table into
 * it; the packet engine will pick source addresses, VLAN tags and RoCE
 * versions from it.
 */
#include <linux/etherdevice.h>
#include <linux/if_vlan.h>

#include "fw.h"

static bool sroce_fw_gid_index_ok(u8 port, u32 index)
{
	return port == 1 && index < SROCE_FW_GID_TABLE_LEN;
}

/**
 * sroce_fw_gid_present() - whether the GID table holds an address
 * @fw: the function
 * @gid: the address
 * @gid_type: SROCE_GID_ROCE_V1 or SROCE_GID_ROCE_V2
 *
 * Context: any but hard IRQ; does not sleep.
 * Return: true if a valid entry of that type has it.
 */
bool sroce_fw_gid_present(struct sroce_fw_dev *fw,
			  const u8 gid[SROCE_GID_LEN], u8 gid_type)
{
	bool found = false;
	unsigned int i;

	spin_lock_bh(&fw->gid_lock);
	for (i = 0; i < SROCE_FW_GID_TABLE_LEN && !found; i++)
		found = fw->gids[i].valid && fw->gids[i].type == gid_type &&
			!memcmp(fw->gids[i].gid, gid, SROCE_GID_LEN);
	spin_unlock_bh(&fw->gid_lock);
	return found;
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
	struct sroce_fw_gid *e;

	if (!sroce_fw_gid_index_ok(q->port, index) ||
	    (q->gid_type != SROCE_GID_ROCE_V1 &&
	     q->gid_type != SROCE_GID_ROCE_V2) ||
	    sroce_gid_is_zero(q->gid) || sroce_gid_is_multicast(q->gid) ||
	    (vlan_id != SROCE_VLAN_NONE && vlan_id >= VLAN_N_VID) ||
	    !is_valid_ether_addr(q->smac))
		return SROCE_FW_ERR_BAD_PARAM;

	spin_lock_bh(&fw->gid_lock);
	e = &fw->gids[index];
	e->type = q->gid_type;
	e->vlan_id = vlan_id;
	memcpy(e->gid, q->gid, SROCE_GID_LEN);
	ether_addr_copy(e->smac, q->smac);
	e->valid = true;
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
	if (fw->gids[index].valid)
		memset(&fw->gids[index], 0, sizeof(fw->gids[index]));
	else
		status = SROCE_FW_ERR_NOT_FOUND;
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
