// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Command codec shared by the driver and the firmware: the opcode table,
 * the encoding and validation of command queue entries and the single
 * mapping from firmware status to errno.
 */
#include "sroce_lib.h"

struct sroce_cmd_desc {
	unsigned int opcode;
	const char *name;
	unsigned int req_len;	/* exact request payload size */
	unsigned int resp_len;	/* exact response payload size */
};

static const struct sroce_cmd_desc sroce_cmds[SROCE_NUM_CMDS] = {
	[SROCE_CMDI_QUERY_DEVICE] = { SROCE_CMD_QUERY_DEVICE, "QUERY_DEVICE",
		0, sizeof(struct sroce_query_device_resp) },
	[SROCE_CMDI_QUERY_PORT] = { SROCE_CMD_QUERY_PORT, "QUERY_PORT",
		sizeof(struct sroce_query_port_req),
		sizeof(struct sroce_query_port_resp) },
	[SROCE_CMDI_ADD_GID] = { SROCE_CMD_ADD_GID, "ADD_GID",
		sizeof(struct sroce_add_gid_req), 0 },
	[SROCE_CMDI_DEL_GID] = { SROCE_CMD_DEL_GID, "DEL_GID",
		sizeof(struct sroce_gid_index_req), 0 },
	[SROCE_CMDI_QUERY_GID] = { SROCE_CMD_QUERY_GID, "QUERY_GID",
		sizeof(struct sroce_gid_index_req),
		sizeof(struct sroce_query_gid_resp) },
	[SROCE_CMDI_ALLOC_PD] = { SROCE_CMD_ALLOC_PD, "ALLOC_PD",
		0, sizeof(struct sroce_alloc_pd_resp) },
	[SROCE_CMDI_DEALLOC_PD] = { SROCE_CMD_DEALLOC_PD, "DEALLOC_PD",
		sizeof(struct sroce_dealloc_pd_req), 0 },
	[SROCE_CMDI_CREATE_CQ] = { SROCE_CMD_CREATE_CQ, "CREATE_CQ",
		sizeof(struct sroce_create_cq_req),
		sizeof(struct sroce_create_cq_resp) },
	[SROCE_CMDI_DESTROY_CQ] = { SROCE_CMD_DESTROY_CQ, "DESTROY_CQ",
		sizeof(struct sroce_cq_req), 0 },
	[SROCE_CMDI_RESIZE_CQ] = { SROCE_CMD_RESIZE_CQ, "RESIZE_CQ",
		sizeof(struct sroce_resize_cq_req), 0 },
	[SROCE_CMDI_CREATE_QP] = { SROCE_CMD_CREATE_QP, "CREATE_QP",
		sizeof(struct sroce_create_qp_req),
		sizeof(struct sroce_create_qp_resp) },
	[SROCE_CMDI_MODIFY_QP] = { SROCE_CMD_MODIFY_QP, "MODIFY_QP",
		sizeof(struct sroce_modify_qp_req), 0 },
	[SROCE_CMDI_QUERY_QP] = { SROCE_CMD_QUERY_QP, "QUERY_QP",
		sizeof(struct sroce_qp_req), sizeof(struct sroce_qp_attr) },
	[SROCE_CMDI_DESTROY_QP] = { SROCE_CMD_DESTROY_QP, "DESTROY_QP",
		sizeof(struct sroce_qp_req), 0 },
	[SROCE_CMDI_ATTACH_MCAST] = { SROCE_CMD_ATTACH_MCAST, "ATTACH_MCAST",
		sizeof(struct sroce_mcast_req), 0 },
	[SROCE_CMDI_DETACH_MCAST] = { SROCE_CMD_DETACH_MCAST, "DETACH_MCAST",
		sizeof(struct sroce_mcast_req), 0 },
	[SROCE_CMDI_REG_MR] = { SROCE_CMD_REG_MR, "REG_MR",
		sizeof(struct sroce_reg_mr_req),
		sizeof(struct sroce_reg_mr_resp) },
	[SROCE_CMDI_DEREG_MR] = { SROCE_CMD_DEREG_MR, "DEREG_MR",
		sizeof(struct sroce_dereg_mr_req), 0 },
	[SROCE_CMDI_ALLOC_MW] = { SROCE_CMD_ALLOC_MW, "ALLOC_MW",
		sizeof(struct sroce_alloc_mw_req),
		sizeof(struct sroce_alloc_mw_resp) },
	[SROCE_CMDI_DEALLOC_MW] = { SROCE_CMD_DEALLOC_MW, "DEALLOC_MW",
		sizeof(struct sroce_dealloc_mw_req), 0 },
	[SROCE_CMDI_CREATE_AH] = { SROCE_CMD_CREATE_AH, "CREATE_AH",
		sizeof(struct sroce_create_ah_req),
		sizeof(struct sroce_ah_num) },
	[SROCE_CMDI_DESTROY_AH] = { SROCE_CMD_DESTROY_AH, "DESTROY_AH",
		sizeof(struct sroce_ah_num), 0 },
	[SROCE_CMDI_QUERY_STATS] = { SROCE_CMD_QUERY_STATS, "QUERY_STATS",
		0, sizeof(struct sroce_query_stats_resp) },
	[SROCE_CMDI_CREATE_SRQ] = { SROCE_CMD_CREATE_SRQ, "CREATE_SRQ",
		sizeof(struct sroce_create_srq_req),
		sizeof(struct sroce_srq_num) },
	[SROCE_CMDI_MODIFY_SRQ] = { SROCE_CMD_MODIFY_SRQ, "MODIFY_SRQ",
		sizeof(struct sroce_modify_srq_req), 0 },
	[SROCE_CMDI_QUERY_SRQ] = { SROCE_CMD_QUERY_SRQ, "QUERY_SRQ",
		sizeof(struct sroce_srq_num),
		sizeof(struct sroce_query_srq_resp) },
	[SROCE_CMDI_DESTROY_SRQ] = { SROCE_CMD_DESTROY_SRQ, "DESTROY_SRQ",
		sizeof(struct sroce_srq_num), 0 },
	[SROCE_CMDI_RESIZE_SRQ] = { SROCE_CMD_RESIZE_SRQ, "RESIZE_SRQ",
		sizeof(struct sroce_resize_srq_req), 0 },
	[SROCE_CMDI_QUERY_CC_PARAMS] = { SROCE_CMD_QUERY_CC_PARAMS,
		"QUERY_CC_PARAMS", 0,
		sizeof(struct sroce_query_cc_params_resp) },
	[SROCE_CMDI_SET_CC_PARAM] = { SROCE_CMD_SET_CC_PARAM, "SET_CC_PARAM",
		sizeof(struct sroce_set_cc_param_req), 0 },
	[SROCE_CMDI_QUERY_QOS] = { SROCE_CMD_QUERY_QOS, "QUERY_QOS", 0,
		sizeof(struct sroce_qos_cfg) },
	[SROCE_CMDI_SET_QOS] = { SROCE_CMD_SET_QOS, "SET_QOS",
		sizeof(struct sroce_qos_cfg), 0 },
	[SROCE_CMDI_QUERY_QP_CC] = { SROCE_CMD_QUERY_QP_CC, "QUERY_QP_CC",
		sizeof(struct sroce_qp_req), sizeof(struct sroce_qp_cc_resp) },
	[SROCE_CMDI_QUERY_PFC] = { SROCE_CMD_QUERY_PFC, "QUERY_PFC", 0,
		sizeof(struct sroce_pfc_cfg) },
	[SROCE_CMDI_SET_PFC] = { SROCE_CMD_SET_PFC, "SET_PFC",
		sizeof(struct sroce_pfc_cfg), 0 },
	[SROCE_CMDI_QUERY_PFC_STATS] = { SROCE_CMD_QUERY_PFC_STATS,
		"QUERY_PFC_STATS", sizeof(struct sroce_pfc_stats_req),
		sizeof(struct sroce_pfc_stats_resp) },
	[SROCE_CMDI_QUERY_PFC_BUFFER] = { SROCE_CMD_QUERY_PFC_BUFFER,
		"QUERY_PFC_BUFFER", 0, sizeof(struct sroce_pfc_buffer_cfg) },
	[SROCE_CMDI_SET_PFC_BUFFER] = { SROCE_CMD_SET_PFC_BUFFER,
		"SET_PFC_BUFFER", sizeof(struct sroce_pfc_buffer_cfg), 0 },
};

/**
 * sroce_fw_status_to_errno() - translate a completion status
 * @status: enum sroce_fw_status value from a completion
 *
 * Return: 0 for success, otherwise a negative errno. Unknown values are
 * treated as a device fault (-EIO).
 */
int sroce_fw_status_to_errno(unsigned int status)
{
	switch (status) {
	case SROCE_FW_OK:
		return 0;
	case SROCE_FW_ERR_BAD_OPCODE:
		return -EOPNOTSUPP;
	case SROCE_FW_ERR_BAD_LENGTH:
	case SROCE_FW_ERR_BAD_PARAM:
		return -EINVAL;
	case SROCE_FW_ERR_NO_RESOURCES:
		return -ENOSPC;
	case SROCE_FW_ERR_NOT_FOUND:
		return -ENOENT;
	case SROCE_FW_ERR_BUSY:
		return -EBUSY;
	case SROCE_FW_ERR_BAD_STATE:
		return -EPERM;
	default:
		return -EIO;
	}
}

/**
 * sroce_cmd_index() - dense table index of an opcode
 * @opcode: enum sroce_cmd_opcode value
 *
 * Return: the enum sroce_cmd_index value, or SROCE_CMDI_INVALID.
 */
unsigned int sroce_cmd_index(unsigned int opcode)
{
	unsigned int i;

	for (i = 0; i < SROCE_NUM_CMDS; i++)
		if (sroce_cmds[i].opcode == opcode)
			return i;
	return SROCE_CMDI_INVALID;
}

/**
 * sroce_cmd_name() - printable name of a command
 * @index: enum sroce_cmd_index value
 *
 * Return: a static string, "INVALID" for an out-of-range index.
 */
const char *sroce_cmd_name(unsigned int index)
{
	return index < SROCE_NUM_CMDS ? sroce_cmds[index].name : "INVALID";
}

/**
 * sroce_cmd_opcode() - opcode of a command index
 * @index: enum sroce_cmd_index value
 *
 * Return: the opcode, or 0 for an out-of-range index.
 */
unsigned int sroce_cmd_opcode(unsigned int index)
{
	return index < SROCE_NUM_CMDS ? sroce_cmds[index].opcode : 0;
}

/**
 * sroce_cmd_req_len() - request payload size of a command
 * @index: enum sroce_cmd_index value
 *
 * Return: size in bytes, 0 for an out-of-range index.
 */
unsigned int sroce_cmd_req_len(unsigned int index)
{
	return index < SROCE_NUM_CMDS ? sroce_cmds[index].req_len : 0;
}

/**
 * sroce_cmd_resp_len() - response payload size of a command
 * @index: enum sroce_cmd_index value
 *
 * Return: size in bytes, 0 for an out-of-range index.
 */
unsigned int sroce_cmd_resp_len(unsigned int index)
{
	return index < SROCE_NUM_CMDS ? sroce_cmds[index].resp_len : 0;
}

/**
 * sroce_cmd_encode() - fill a command queue entry
 * @entry: slot to fill (the whole slot is written)
 * @opcode: enum sroce_cmd_opcode value
 * @cmd_id: identifier the completion will echo
 * @req: request payload, may be NULL when @req_len is 0
 * @req_len: must equal the opcode's request size
 *
 * Return: 0, -EOPNOTSUPP for an unknown opcode or -EINVAL for a payload
 * of the wrong size.
 */
int sroce_cmd_encode(struct sroce_cmd_entry *entry, unsigned int opcode,
		     u16 cmd_id, const void *req, unsigned int req_len)
{
	unsigned int index = sroce_cmd_index(opcode);

	if (index == SROCE_CMDI_INVALID)
		return -EOPNOTSUPP;
	if (req_len != sroce_cmds[index].req_len || (req_len && !req))
		return -EINVAL;

	memset(entry, 0, sizeof(*entry));
	entry->opcode = cpu_to_le16(opcode);
	entry->cmd_id = cpu_to_le16(cmd_id);
	entry->req_len = cpu_to_le16(req_len);
	if (req_len)
		memcpy(entry->payload, req, req_len);
	return 0;
}

/**
 * sroce_cmd_decode() - validate a command queue entry
 * @entry: private copy of the slot (never the shared ring itself)
 * @index: set to the command's table index on success
 * @cmd_id: set to the entry's identifier, even on failure, so that the
 *          failure can be completed
 *
 * Return: an enum sroce_fw_status value, SROCE_FW_OK if the entry may be
 * executed.
 */
int sroce_cmd_decode(const struct sroce_cmd_entry *entry,
		     unsigned int *index, u16 *cmd_id)
{
	unsigned int i = sroce_cmd_index(le16_to_cpu(entry->opcode));

	*cmd_id = le16_to_cpu(entry->cmd_id);
	*index = i;
	if (i == SROCE_CMDI_INVALID)
		return SROCE_FW_ERR_BAD_OPCODE;
	if (le16_to_cpu(entry->req_len) != sroce_cmds[i].req_len ||
	    le16_to_cpu(entry->flags))
		return SROCE_FW_ERR_BAD_LENGTH;
	return SROCE_FW_OK;
}
