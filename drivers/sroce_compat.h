/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The one place where kernel version differences live. Supported: Debian
 * 12's 6.1 and bookworm-backports' 6.12.
 */
#ifndef SROCE_COMPAT_H
#define SROCE_COMPAT_H

#include <linux/version.h>
#include <rdma/uverbs_ioctl.h>

/*
 * ib_device_ops.create_cq takes the uverbs attribute bundle instead of the
 * udata since 6.11 (the udata is reachable from it).
 */
#if KERNEL_VERSION(6, 11, 0) <= LINUX_VERSION_CODE
#define SROCE_CREATE_CQ_ARG		struct uverbs_attr_bundle

static inline struct ib_udata *
sroce_create_cq_udata(struct uverbs_attr_bundle *attrs)
{
	return attrs ? &attrs->driver_udata : NULL;
}
#else
#define SROCE_CREATE_CQ_ARG		struct ib_udata

static inline struct ib_udata *sroce_create_cq_udata(struct ib_udata *udata)
{
	return udata;
}
#endif

#endif /* SROCE_COMPAT_H */
