/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The one place where kernel differences live, with sroce_compat.c (the
 * ib_device_ops adapters) and drivers/compat/ (the probes). Every switch
 * is a SROCE_HAVE_* that Kbuild probed from the headers of the kernel
 * being built for (sroce_compat_config.h), never a version number:
 * distributions backport. Supported: Debian 12's 6.1, bookworm-backports'
 * and Debian 13's 6.12, trixie-backports' 7.3, sid's 7.2.
 */
#ifndef SROCE_COMPAT_H
#define SROCE_COMPAT_H

#include <linux/crc32.h>
#include <linux/hmm.h>
#include <linux/hrtimer.h>
#include <linux/timer.h>
#include <net/flow.h>
#include <net/udp_tunnel.h>
#include <rdma/ib_umem.h>
#include <rdma/ib_umem_odp.h>
#include <rdma/rdma_user_rxe.h>
#include <rdma/uverbs_ioctl.h>

#include "sroce/fw_abi.h"

#include "sroce_compat_config.h"

#ifdef SROCE_HAVE_FLOWI4_DSCP
#include <net/inet_dscp.h>
#endif

/*
 * The unbound system workqueue: system_dfl_wq where the headers have it
 * (7.x logs a warning for work queued on system_unbound_wq, its old name).
 */
#ifdef SROCE_HAVE_SYSTEM_DFL_WQ
#define sroce_unbound_wq system_dfl_wq
#else
#define sroce_unbound_wq system_unbound_wq
#endif

/*
 * RDMA FLUSH (6.2): the access rights (QPs and regions carry them as the
 * SROCE_ACCESS_FLUSH_* bits of the same values), the device capability,
 * and the FLUSH fields of a send WQE. Before 6.2 there is no FLUSH: no
 * right to grant and no WQE to read (a FLUSH WQE fails as an unknown
 * opcode).
 */
#ifdef SROCE_HAVE_RDMA_FLUSH
#define SROCE_IB_DEVICE_FLUSH_GLOBAL	IB_DEVICE_FLUSH_GLOBAL
static_assert(IB_ACCESS_FLUSH_GLOBAL == SROCE_ACCESS_FLUSH_GLOBAL);
static_assert(IB_ACCESS_FLUSH_PERSISTENT == SROCE_ACCESS_FLUSH_PERSISTENT);
#else
#define SROCE_IB_DEVICE_FLUSH_GLOBAL	0
#endif

/**
 * struct sroce_wqe_flush - the FLUSH fields of a send WQE's work request
 * @va: first byte to flush (selectivity "range")
 * @rkey: the remote region
 * @type: placement type, IB_FLUSH_GLOBAL / IB_FLUSH_PERSISTENT bits
 * @level: selectivity, IB_FLUSH_RANGE or IB_FLUSH_MR
 */
struct sroce_wqe_flush {
	u64 va;
	u32 rkey;
	u8 type;
	u8 level;
};

/**
 * sroce_wqe_flush() - read the FLUSH fields of a (private) send WQE
 * @wr: the work request
 * @out: the fields
 *
 * Return: false if these headers know no FLUSH.
 */
static inline bool sroce_wqe_flush(const struct rxe_send_wr *wr,
				   struct sroce_wqe_flush *out)
{
#ifdef SROCE_HAVE_RDMA_FLUSH
	*out = (struct sroce_wqe_flush){
		.va = wr->wr.flush.remote_addr,
		.rkey = wr->wr.flush.rkey,
		.type = wr->wr.flush.type,
		.level = wr->wr.flush.level,
	};
	return true;
#else
	return false;
#endif
}

/*
 * A VLAN's egress priority map (the nodes a priority maps through) is read
 * under RCU since 7.x, whose pointers are __rcu; before, the writer's
 * barrier ordered plain pointers. Caller holds rcu_read_lock().
 */
#ifdef SROCE_HAVE_VLAN_EGRESS_MAP_RCU
#define sroce_vlan_map_deref(p)	rcu_dereference(p)
#else
#define sroce_vlan_map_deref(p)	READ_ONCE(p)
#endif

/*
 * ib_device_ops.create_cq takes the uverbs attribute bundle instead of the
 * udata since 6.11 (the udata is reachable from it).
 */
#ifdef SROCE_HAVE_CREATE_CQ_ATTRS
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

/* reg_user_mr gained a DMA handle argument (6.17); sroce takes none. */
struct ib_dmah;
#ifdef SROCE_HAVE_REG_USER_MR_DMAH
#define SROCE_OPS_REG_USER_MR	.reg_user_mr = sroce_reg_user_mr
#else
#define SROCE_OPS_REG_USER_MR	.reg_user_mr = sroce_compat_reg_user_mr
#endif

/* resize_cq became resize_user_cq, with an unsigned count (7.1). */
#ifdef SROCE_HAVE_RESIZE_USER_CQ
#define SROCE_OPS_RESIZE_CQ	.resize_user_cq = sroce_compat_resize_user_cq
#else
#define SROCE_OPS_RESIZE_CQ	.resize_cq = sroce_resize_cq
#endif

/*
 * Since 6.14 the core reports a port's link changes from the netdev
 * itself unless the driver takes them: sroce's port state is its
 * firmware's, reported through events, so it takes them.
 */
#ifdef SROCE_HAVE_REPORT_PORT_EVENT
#define SROCE_OPS_REPORT_PORT_EVENT \
	.report_port_event = sroce_compat_report_port_event,
#else
#define SROCE_OPS_REPORT_PORT_EVENT
#endif

/* ib_umem_get() became ib_umem_get_va(), same arguments (7.2). */
static inline struct ib_umem *sroce_umem_get(struct ib_device *dev,
					     unsigned long addr, size_t size,
					     int access)
{
#ifdef SROCE_HAVE_IB_UMEM_GET_VA
	return ib_umem_get_va(dev, addr, size, access);
#else
	return ib_umem_get(dev, addr, size, access);
#endif
}

/*
 * hrtimer_setup() (6.13) replaced hrtimer_init() and the separate
 * assignment of the callback, which later kernels no longer allow.
 */
#ifndef SROCE_HAVE_HRTIMER_SETUP
static inline void
sroce_hrtimer_setup(struct hrtimer *timer,
		    enum hrtimer_restart (*fn)(struct hrtimer *),
		    clockid_t clock, enum hrtimer_mode mode)
{
	hrtimer_init(timer, clock, mode);
	timer->function = fn;
}

#define hrtimer_setup(timer, fn, clock, mode) \
	sroce_hrtimer_setup(timer, fn, clock, mode)
#endif

/* from_timer() became timer_container_of() (6.16). */
#ifndef SROCE_HAVE_TIMER_CONTAINER_OF
#define timer_container_of(var, timer, field)	from_timer(var, timer, field)
#endif

/*
 * The UDP tunnel helpers take the struct sock (7.1.5, and backported into
 * some 7.0 distribution kernels).
 */
static inline void sroce_udp_tunnel_setup(struct net *net,
					  struct socket *sock,
					  struct udp_tunnel_sock_cfg *cfg)
{
#ifdef SROCE_HAVE_UDP_TUNNEL_SOCK_SK
	setup_udp_tunnel_sock(net, sock->sk, cfg);
#else
	setup_udp_tunnel_sock(net, sock, cfg);
#endif
}

static inline void sroce_udp_tunnel_release(struct socket *sock)
{
#ifdef SROCE_HAVE_UDP_TUNNEL_SOCK_SK
	udp_tunnel_sock_release(sock->sk);
#else
	udp_tunnel_sock_release(sock);
#endif
}

/* struct flowi4 carries a dscp_t instead of the TOS byte (6.18). */
static inline void sroce_flowi4_set_tos(struct flowi4 *fl, u8 tos)
{
#ifdef SROCE_HAVE_FLOWI4_DSCP
	fl->flowi4_dscp = inet_dsfield_to_dscp(tos);
#else
	fl->flowi4_tos = tos;
#endif
}

/*
 * On-demand paging: where a umem's page list is, and the access mask that
 * asks ib_umem_odp_map_dma_and_lock() for writable pages (6.15 moved both
 * to struct hmm_dma_map and HMM_PFN_* bits). The list's entries are HMM
 * PFNs (HMM_PFN_VALID, HMM_PFN_WRITE) either way.
 */
/*
 * RDMA FLUSH and ATOMIC WRITE to on-demand paging regions, which the
 * capabilities name since 6.15 (kernels before have neither bit).
 */
#ifdef SROCE_HAVE_ODP_FLUSH_ATOMIC_WRITE
#define SROCE_ODP_SUPPORT_FLUSH_ATOMIC_WRITE \
	(IB_ODP_SUPPORT_FLUSH | IB_ODP_SUPPORT_ATOMIC_WRITE)
#else
#define SROCE_ODP_SUPPORT_FLUSH_ATOMIC_WRITE	0
#endif

#ifdef SROCE_HAVE_UMEM_ODP_HMM_MAP
static inline unsigned long sroce_odp_hmm_pfn(const struct ib_umem_odp *umem,
					      size_t index)
{
	return umem->map.pfn_list[index];
}

static inline u64 sroce_odp_access_mask(bool write)
{
	return write ? HMM_PFN_WRITE : 0;
}

/* Whether page @index, just mapped (HMM PFN @pfn), may be written. */
static inline bool sroce_odp_writable(const struct ib_umem_odp *umem,
				      size_t index, unsigned long pfn)
{
	return pfn & HMM_PFN_WRITE;
}

/*
 * Before the core unmaps page @index: mark it dirty if it was mapped
 * writable. The core dirties only DMA-mapped pages here, and a virtual-DMA
 * device's are not; it clears the PFN's flags after the unmap, so a stale
 * entry is never dirtied. Caller holds umem_mutex.
 */
static inline void sroce_odp_dirty(struct ib_umem_odp *umem, size_t index)
{
	unsigned long pfn = umem->map.pfn_list[index];

	if ((pfn & (HMM_PFN_VALID | HMM_PFN_WRITE)) ==
	    (HMM_PFN_VALID | HMM_PFN_WRITE))
		set_page_dirty(compound_head(hmm_pfn_to_page(pfn)));
}
#else
static inline unsigned long sroce_odp_hmm_pfn(const struct ib_umem_odp *umem,
					      size_t index)
{
	return umem->pfn_list[index];
}

static inline u64 sroce_odp_access_mask(bool write)
{
	return ODP_READ_ALLOWED_BIT | (write ? ODP_WRITE_ALLOWED_BIT : 0);
}

/*
 * Writable only if mapped for writing: those are the pages the core marks
 * dirty when it unmaps them.
 */
static inline bool sroce_odp_writable(const struct ib_umem_odp *umem,
				      size_t index, unsigned long pfn)
{
	return umem->dma_list[index] & ODP_WRITE_ALLOWED_BIT;
}

/* The core marks the pages mapped for writing dirty itself. */
static inline void sroce_odp_dirty(struct ib_umem_odp *umem, size_t index)
{
}
#endif

/*
 * Whether crc32_le() runs an accelerated form on this CPU, which the ICRC
 * should then use rather than folding (drivers/lib/icrc.c). Where
 * crc32_optimizations() does not exist, only arm64's crc32_le() uses CRC
 * instructions; x86's and the others' are the generic table code.
 */
static inline bool sroce_crc32_le_accelerated(void)
{
#ifdef SROCE_HAVE_CRC32_OPTIMIZATIONS
	return crc32_optimizations() & CRC32_LE_OPTIMIZATION;
#else
	return IS_ENABLED(CONFIG_ARM64);
#endif
}

#endif /* SROCE_COMPAT_H */
