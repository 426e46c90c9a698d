// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * sroce firmware: congestion control. The function's congestion-control
 * knobs (enum sroce_cc_param, mlx5's cc_params), set and queried by
 * commands, range-checked by the table of lib/dcqcn.c.
 *
 * The knobs are written only by the command processor and read with
 * READ_ONCE() by whoever needs one, so no lock protects them.
 */
#include "fw.h"

/**
 * sroce_fw_cc_init() - every knob of a new function at its default
 * @fw: the function
 */
void sroce_fw_cc_init(struct sroce_fw_dev *fw)
{
	sroce_cc_params_default(fw->cc_params);
}

/**
 * sroce_fw_cmd_query_cc_params() - QUERY_CC_PARAMS: every knob's value
 * @fw: the function
 * @req: unused (no request payload)
 * @resp: struct sroce_query_cc_params_resp
 *
 * Return: enum sroce_fw_status.
 */
u16 sroce_fw_cmd_query_cc_params(struct sroce_fw_dev *fw, const void *req,
				 void *resp)
{
	struct sroce_query_cc_params_resp *r = resp;
	unsigned int i;

	for (i = 0; i < SROCE_NUM_CC_PARAMS; i++)
		r->value[i] = cpu_to_le32(READ_ONCE(fw->cc_params[i]));
	return SROCE_FW_OK;
}

/**
 * sroce_fw_cmd_set_cc_param() - SET_CC_PARAM: one knob
 * @fw: the function
 * @req: struct sroce_set_cc_param_req
 * @resp: unused
 *
 * Return: enum sroce_fw_status; BAD_PARAM, changing nothing, for an
 * unknown knob or a value out of its range.
 */
u16 sroce_fw_cmd_set_cc_param(struct sroce_fw_dev *fw, const void *req,
			      void *resp)
{
	const struct sroce_set_cc_param_req *r = req;
	u32 id = le32_to_cpu(r->id);
	u32 value = le32_to_cpu(r->value);

	if (sroce_cc_param_check(id, value))
		return SROCE_FW_ERR_BAD_PARAM;
	WRITE_ONCE(fw->cc_params[id], value);
	if (id == SROCE_CC_NP_CNP_PRIO)
		WRITE_ONCE(fw->cc_params[SROCE_CC_NP_CNP_PRIO_MODE], 0);
	return SROCE_FW_OK;
}
