// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * sroce: ib_device_ops adapters for the kernels whose operations differ
 * from the ones sroce implements (see sroce_compat.h for the switches).
 */
#include "sroce.h"

#ifndef SROCE_HAVE_REG_USER_MR_DMAH
/**
 * sroce_compat_reg_user_mr() - ib_device_ops.reg_user_mr before 6.17
 * @ibpd: the protection domain
 * @start: user virtual address of the memory
 * @length: size in bytes
 * @iova: address the region is known by on the wire
 * @access: IB_ACCESS_* rights
 * @udata: unused by librxe
 *
 * Return: as sroce_reg_user_mr(), which gets no DMA handle.
 */
struct ib_mr *sroce_compat_reg_user_mr(struct ib_pd *ibpd, u64 start,
				       u64 length, u64 iova, int access,
				       struct ib_udata *udata)
{
	return sroce_reg_user_mr(ibpd, start, length, iova, access, NULL,
				 udata);
}
#endif

#ifdef SROCE_HAVE_RESIZE_USER_CQ
/**
 * sroce_compat_resize_user_cq() - ib_device_ops.resize_user_cq (7.1)
 * @ibcq: the CQ
 * @cqe: the new minimum number of entries
 * @udata: user data: receives the new ring's mmap cookie
 *
 * Return: as sroce_resize_cq(); -EINVAL for a count it cannot take.
 */
int sroce_compat_resize_user_cq(struct ib_cq *ibcq, unsigned int cqe,
				struct ib_udata *udata)
{
	if (cqe > INT_MAX)
		return -EINVAL;
	return sroce_resize_cq(ibcq, cqe, udata);
}
#endif

#ifdef SROCE_HAVE_REPORT_PORT_EVENT
/**
 * sroce_compat_report_port_event() - ib_device_ops.report_port_event (6.14)
 * @ibdev: the device
 * @ndev: its netdev
 * @event: the netdev notifier event
 *
 * Nothing to do: the firmware watches the netdev and reports the port's
 * state changes as PORT_CHANGE events, which the driver dispatches. Left
 * to itself the core would report each change a second time, from the
 * netdev, before the firmware has seen it.
 */
void sroce_compat_report_port_event(struct ib_device *ibdev,
				    struct net_device *ndev,
				    unsigned long event)
{
}
#endif
