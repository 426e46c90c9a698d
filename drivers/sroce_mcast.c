// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * sroce multicast, driver side: UD QPs join and leave groups through
 * firmware commands. The RDMA CM joins the group on the network (IGMP).
 */
#include "sroce.h"

static int sroce_mcast_cmd(struct ib_qp *ibqp, union ib_gid *gid, u16 opcode)
{
	struct sroce_dev *sdev = to_sdev(ibqp->device);
	struct sroce_mcast_req req = { .qpn = cpu_to_le32(ibqp->qp_num) };

	static_assert(sizeof(req.mgid) == sizeof(gid->raw));
	memcpy(req.mgid, gid->raw, sizeof(req.mgid));
	return sroce_cmd_exec(sdev, opcode, &req, sizeof(req), NULL, 0);
}

/**
 * sroce_attach_mcast() - ib_device_ops.attach_mcast
 * @ibqp: a UD QP
 * @gid: the group's multicast GID
 * @lid: unused on Ethernet
 *
 * Return: 0, -EINVAL for a QP that is not UD or a GID that is not
 * multicast, -ENOSPC-like errors when the group tables are full.
 */
int sroce_attach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid)
{
	return sroce_mcast_cmd(ibqp, gid, SROCE_CMD_ATTACH_MCAST);
}

/**
 * sroce_detach_mcast() - ib_device_ops.detach_mcast
 * @ibqp: the QP
 * @gid: the group's multicast GID
 * @lid: unused on Ethernet
 *
 * Return: 0, or -ENOENT-like errors if the QP is not attached.
 */
int sroce_detach_mcast(struct ib_qp *ibqp, union ib_gid *gid, u16 lid)
{
	return sroce_mcast_cmd(ibqp, gid, SROCE_CMD_DETACH_MCAST);
}
