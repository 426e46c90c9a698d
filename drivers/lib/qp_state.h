/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The InfiniBand queue pair state machine (IBA vol. 1, chapters 10 and 11)
 * as the firmware enforces it on MODIFY_QP: which state changes exist for
 * each transport, and which attributes each change must and may carry.
 *
 * Every number below is the IBA's and equals the kernel's enum
 * ib_qp_state, enum ib_qp_type and enum ib_qp_attr_mask, so the driver can
 * pass ib_core's values through unchanged (it checks that at compile
 * time). sroce has no SMI QP (type 0): it is rejected like any unknown type.
 */
#ifndef SROCE_QP_STATE_H
#define SROCE_QP_STATE_H

#include "sroce_lib.h"

/* QP states */
#define SROCE_QPS_RESET			0
#define SROCE_QPS_INIT			1
#define SROCE_QPS_RTR			2
#define SROCE_QPS_RTS			3
#define SROCE_QPS_SQD			4
#define SROCE_QPS_SQE			5
#define SROCE_QPS_ERR			6
#define SROCE_QPS_NUM			7

/* QP transport types sroce implements */
#define SROCE_QPT_GSI			1
#define SROCE_QPT_RC			2
#define SROCE_QPT_UC			3
#define SROCE_QPT_UD			4

/* MODIFY_QP attribute mask bits */
#define SROCE_QPA_STATE			0x00000001U
#define SROCE_QPA_CUR_STATE		0x00000002U
#define SROCE_QPA_EN_SQD_ASYNC_NOTIFY	0x00000004U
#define SROCE_QPA_ACCESS_FLAGS		0x00000008U
#define SROCE_QPA_PKEY_INDEX		0x00000010U
#define SROCE_QPA_PORT			0x00000020U
#define SROCE_QPA_QKEY			0x00000040U
#define SROCE_QPA_AV			0x00000080U
#define SROCE_QPA_PATH_MTU		0x00000100U
#define SROCE_QPA_TIMEOUT		0x00000200U
#define SROCE_QPA_RETRY_CNT		0x00000400U
#define SROCE_QPA_RNR_RETRY		0x00000800U
#define SROCE_QPA_RQ_PSN		0x00001000U
#define SROCE_QPA_MAX_QP_RD_ATOMIC	0x00002000U
#define SROCE_QPA_ALT_PATH		0x00004000U
#define SROCE_QPA_MIN_RNR_TIMER		0x00008000U
#define SROCE_QPA_SQ_PSN		0x00010000U
#define SROCE_QPA_MAX_DEST_RD_ATOMIC	0x00020000U
#define SROCE_QPA_PATH_MIG_STATE	0x00040000U
#define SROCE_QPA_CAP			0x00080000U
#define SROCE_QPA_DEST_QPN		0x00100000U
#define SROCE_QPA_RATE_LIMIT		0x02000000U

int sroce_qp_modify_check(unsigned int qp_type, unsigned int cur,
			  unsigned int next, u32 mask, u32 *missing,
			  u32 *extra);
const char *sroce_qp_state_name(unsigned int state);
const char *sroce_qp_attr_name(u32 single_bit);

#endif /* SROCE_QP_STATE_H */
