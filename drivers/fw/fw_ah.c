// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * sroce firmware: address handles of user UD queue pairs.
 */
#include <linux/slab.h>

#include "fw.h"

/**
 * sroce_fw_cmd_create_ah() - CREATE_AH: store an address vector
 * @fw: the function
 * @req: struct sroce_create_ah_req
 * @resp: struct sroce_ah_num
 *
 * Return: enum sroce_fw_status.
 */
u16 sroce_fw_cmd_create_ah(struct sroce_fw_dev *fw, const void *req,
			   void *resp)
{
	const struct sroce_create_ah_req *q = req;
	struct sroce_ah_num *r = resp;
	struct sroce_fw_ah *ah;
	u16 status;
	u32 ah_num;

	if (!xa_load(&fw->pds, le32_to_cpu(q->pdn)))
		return SROCE_FW_ERR_NOT_FOUND;
	status = sroce_fw_check_av(fw, &q->av);
	if (status)
		return status;

	ah = kzalloc(sizeof(*ah), GFP_KERNEL);
	if (!ah)
		return SROCE_FW_ERR_NO_RESOURCES;
	ah->pdn = le32_to_cpu(q->pdn);
	ah->av = q->av;
	if (xa_alloc(&fw->ahs, &ah_num, ah, XA_LIMIT(1, SROCE_FW_MAX_AH),
		     GFP_KERNEL)) {
		kfree(ah);
		return SROCE_FW_ERR_NO_RESOURCES;
	}
	r->ah_num = cpu_to_le32(ah_num);
	return SROCE_FW_OK;
}

/**
 * sroce_fw_cmd_destroy_ah() - DESTROY_AH: forget an address vector
 * @fw: the function
 * @req: struct sroce_ah_num
 * @resp: unused
 *
 * Return: enum sroce_fw_status.
 */
u16 sroce_fw_cmd_destroy_ah(struct sroce_fw_dev *fw, const void *req,
			    void *resp)
{
	const struct sroce_ah_num *q = req;
	struct sroce_fw_ah *ah;

	ah = xa_erase(&fw->ahs, le32_to_cpu(q->ah_num));
	if (!ah)
		return SROCE_FW_ERR_NOT_FOUND;
	kfree_rcu(ah, rcu);
	return SROCE_FW_OK;
}

/**
 * sroce_fw_ahs_destroy() - free every address handle left at detach
 * @fw: the function
 */
void sroce_fw_ahs_destroy(struct sroce_fw_dev *fw)
{
	struct sroce_fw_ah *ah;
	unsigned long index;

	xa_for_each(&fw->ahs, index, ah) {
		xa_erase(&fw->ahs, index);
		kfree_rcu(ah, rcu);
	}
	xa_destroy(&fw->ahs);
}
