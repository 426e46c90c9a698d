// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * sroce memory windows, driver side: allocation and release through
 * firmware commands. Binding is a work request (librxe writes it into the
 * send ring; ibv_bind_mw does the same for type 1 windows) that the
 * firmware executes in order.
 */
#include "sroce.h"

/**
 * sroce_alloc_mw() - ib_device_ops.alloc_mw
 * @ibmw: the window, its pd and type set by ib_core
 * @udata: librxe passes no driver data
 *
 * Return: 0 or a negative errno.
 */
int sroce_alloc_mw(struct ib_mw *ibmw, struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibmw->device);
	struct sroce_alloc_mw_req req = {
		.pdn = cpu_to_le32(to_spd(ibmw->pd)->pdn),
		.type = ibmw->type == IB_MW_TYPE_1 ? 1 : 2,
	};
	struct sroce_alloc_mw_resp resp;
	int err;

	err = sroce_cmd_exec(sdev, SROCE_CMD_ALLOC_MW, &req, sizeof(req),
			     &resp, sizeof(resp));
	if (err)
		return err;
	ibmw->rkey = le32_to_cpu(resp.rkey);
	return 0;
}

/**
 * sroce_dealloc_mw() - ib_device_ops.dealloc_mw
 * @ibmw: the window
 *
 * Return: 0 or a negative errno; 0 once the device is dead.
 */
int sroce_dealloc_mw(struct ib_mw *ibmw)
{
	struct sroce_dev *sdev = to_sdev(ibmw->device);
	struct sroce_dealloc_mw_req req = { .rkey = cpu_to_le32(ibmw->rkey) };
	int err;

	err = sroce_cmd_exec(sdev, SROCE_CMD_DEALLOC_MW, &req, sizeof(req),
			     NULL, 0);
	/* A dead device's windows go with it (they hold no driver memory). */
	return sroce_cmd_dead(sdev) ? 0 : err;
}
