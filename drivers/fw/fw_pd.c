// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * sroce firmware: protection domains. The firmware hands out PD numbers;
 * memory regions and queue pairs will be checked against them.
 */
#include "fw.h"

/**
 * sroce_fw_cmd_alloc_pd() - ALLOC_PD: allocate a protection domain number
 * @fw: the function
 * @req: unused (no request payload)
 * @resp: struct sroce_alloc_pd_resp
 *
 * Return: enum sroce_fw_status; NO_RESOURCES when all numbers are in use.
 */
u16 sroce_fw_cmd_alloc_pd(struct sroce_fw_dev *fw, const void *req,
			  void *resp)
{
	struct sroce_alloc_pd_resp *r = resp;
	u32 pdn;
	int err;

	/* PD number 0 is never handed out, so it can mean "none". */
	err = xa_alloc(&fw->pds, &pdn, xa_mk_value(0),
		       XA_LIMIT(1, SROCE_FW_MAX_PD), GFP_KERNEL);
	if (err)
		return err == -EBUSY ? SROCE_FW_ERR_NO_RESOURCES :
				       SROCE_FW_ERR_INTERNAL;
	r->pdn = cpu_to_le32(pdn);
	return SROCE_FW_OK;
}

/**
 * sroce_fw_cmd_dealloc_pd() - DEALLOC_PD: release a protection domain
 * @fw: the function
 * @req: struct sroce_dealloc_pd_req
 * @resp: unused
 *
 * Return: enum sroce_fw_status; NOT_FOUND for a number not allocated.
 */
u16 sroce_fw_cmd_dealloc_pd(struct sroce_fw_dev *fw, const void *req,
			    void *resp)
{
	const struct sroce_dealloc_pd_req *q = req;
	u32 pdn = le32_to_cpu(q->pdn);

	if (!pdn || pdn > SROCE_FW_MAX_PD || !xa_erase(&fw->pds, pdn))
		return SROCE_FW_ERR_NOT_FOUND;
	return SROCE_FW_OK;
}
