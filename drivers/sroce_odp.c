// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * sroce on-demand paging regions, driver side (IB_ACCESS_ON_DEMAND).
 *
 * Nothing is pinned. The region's ib_umem_odp follows the process's page
 * tables through an MMU interval notifier; the firmware keeps its own
 * translation of every page (SROCE_MR_ODP in fw_abi.h), which this file
 * writes with the translation-write register, always under the umem's
 * umem_mutex:
 * - at registration, the pages present already (no fault);
 * - on a PAGE_FAULT event, a window of pages from the one missing,
 *   faulted in by hmm in a work item (the firmware waits meanwhile);
 * - on invalidation, the notifier unmaps the range in the firmware before
 *   the core unmaps it: once the write returns, the firmware has stopped
 *   using those pages.
 *
 * Locks: umem_mutex (the core's; process context, the notifier and the
 * fault work) before the firmware's region lock; fault_lock (process
 * context) protects the pending fault.
 */
#include <linux/mmu_notifier.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "sroce.h"

/* Pages faulted in per PAGE_FAULT event: a 1 MiB window. */
#define SROCE_ODP_FAULT_PAGES	256

static_assert(SROCE_ODP_FAULT_PAGES <= SROCE_ODP_XLT_MAX_PAGES);

/**
 * struct sroce_odp - what an on-demand paging region needs on the driver
 * side
 * @sdev: the device (ib_core sets the MR's only once registered)
 * @mr: the region
 * @umem: its umem (also mr->umem); umem->private is @mr once the firmware
 *	  knows the region, NULL before and after
 * @npages: pages the region spans (page 0 holds its first byte)
 * @fault_work: resolves the pending fault
 * @fault_lock: protects @fault_pending, @fault_page, @fault_write
 * @fault_pending: a fault is waiting for @fault_work
 * @fault_page: the page that was missing
 * @fault_write: it was missing for a write
 * @users: prefetches in progress, plus one while the region is found in
 *	   odp_mrs
 * @unused: completed when @users drops to zero
 * @entries: translation entries of one write; used under umem_mutex
 */
struct sroce_odp {
	struct sroce_dev *sdev;
	struct sroce_mr *mr;
	struct ib_umem_odp *umem;
	u32 npages;
	refcount_t users;
	struct completion unused;
	struct work_struct fault_work;
	spinlock_t fault_lock; /* the pending fault; process context */
	bool fault_pending;
	u32 fault_page;
	bool fault_write;
	__le64 entries[SROCE_ODP_XLT_MAX_PAGES];
};

/* Write @npages translations from @first (op MAP, UNMAP or FAIL). */
static int sroce_odp_xlt(struct sroce_odp *odp, u8 op, u32 first,
			 u32 npages)
{
	struct sroce_odp_xlt x = {
		.key = cpu_to_le32(odp->mr->ibmr.lkey),
		.first_page = cpu_to_le32(first),
		.npages = cpu_to_le32(npages),
		.op = op,
		.entries_addr = cpu_to_le64(op == SROCE_ODP_XLT_MAP ?
					    (uintptr_t)odp->entries : 0),
	};

	return sroce_fw_status_to_errno(sroce_fw_write_odp_xlt(odp->sdev->fw,
							       &x));
}

/*
 * Map @npages pages from @first (at most SROCE_ODP_XLT_MAX_PAGES) and
 * write their translations: faulted in, writable if @write, or with
 * @fault false only those present now (the others stay absent).
 * Return: 0 or a negative errno.
 */
static int sroce_odp_map(struct sroce_odp *odp, u32 first, u32 npages,
			 bool fault, bool write)
{
	struct ib_umem_odp *umem = odp->umem;
	u64 va = ib_umem_start(umem) + ((u64)first << PAGE_SHIFT);
	bool writable = umem->umem.writable;
	u32 i, present = 0;
	int mapped, err;

	/* Returns with umem_mutex held on success. */
	mapped = ib_umem_odp_map_dma_and_lock(umem, va,
					      (u64)npages << PAGE_SHIFT,
					      sroce_odp_access_mask(writable &&
								    write),
					      fault);
	if (mapped < 0)
		return mapped;
	for (i = 0; i < npages; i++) {
		unsigned long pfn = sroce_odp_hmm_pfn(umem, first + i);
		u64 e = 0;

		if (pfn & HMM_PFN_VALID) {
			e = (uintptr_t)hmm_pfn_to_page(pfn);
			if (writable && sroce_odp_writable(umem, first + i, pfn))
				e |= SROCE_ODP_XLT_WRITABLE;
			present++;
		}
		odp->entries[i] = cpu_to_le64(e);
	}
	/* A snapshot of nothing writes nothing (and wakes nobody). */
	err = fault || present ?
	      sroce_odp_xlt(odp, SROCE_ODP_XLT_MAP, first, npages) : 0;
	mutex_unlock(&umem->umem_mutex);
	return err;
}

/* Dirty what the firmware may have written in @start..@end (addresses). */
static void sroce_odp_dirty_range(struct ib_umem_odp *umem, u64 start,
				  u64 end)
{
	u64 i = (start - ib_umem_start(umem)) >> PAGE_SHIFT;
	u64 last = (end - 1 - ib_umem_start(umem)) >> PAGE_SHIFT;

	for (; i <= last; i++)
		sroce_odp_dirty(umem, i);
}

static bool sroce_odp_invalidate(struct mmu_interval_notifier *mni,
				 const struct mmu_notifier_range *range,
				 unsigned long cur_seq)
{
	struct ib_umem_odp *umem = container_of(mni, struct ib_umem_odp,
						notifier);
	u64 start, end, page, last;
	struct sroce_odp *odp;

	/* The firmware must stop first, which takes umem_mutex. */
	if (!mmu_notifier_range_blockable(range))
		return false;

	mutex_lock(&umem->umem_mutex);
	mmu_interval_set_seq(mni, cur_seq);
	start = max_t(u64, ib_umem_start(umem), range->start);
	end = min_t(u64, ib_umem_end(umem), range->end);
	odp = umem->private;
	if (odp && start < end) {
		page = (start - ib_umem_start(umem)) >> PAGE_SHIFT;
		last = (end - 1 - ib_umem_start(umem)) >> PAGE_SHIFT;
		while (page <= last) {
			u32 n = min_t(u64, last - page + 1,
				      SROCE_ODP_XLT_MAX_PAGES);

			/* Fails only for a region the firmware has dropped. */
			sroce_odp_xlt(odp, SROCE_ODP_XLT_UNMAP, page, n);
			page += n;
		}
	}
	if (start < end)
		sroce_odp_dirty_range(umem, start, end);
	ib_umem_odp_unmap_dma_pages(umem, start, end);
	mutex_unlock(&umem->umem_mutex);
	return true;
}

static const struct mmu_interval_notifier_ops sroce_odp_mn_ops = {
	.invalidate = sroce_odp_invalidate,
};

/* Fault a window from @page in; a page that cannot be is marked failed. */
static void sroce_odp_fault(struct sroce_odp *odp, u32 page, bool write)
{
	u32 n = min_t(u32, odp->npages - page, SROCE_ODP_FAULT_PAGES);
	int err;

	err = sroce_odp_map(odp, page, n, true, write);
	/* The window may reach past the mapping: the page alone, then. */
	if (err && n > 1)
		err = sroce_odp_map(odp, page, 1, true, write);
	if (!err)
		return;
	ibdev_warn_ratelimited(&odp->sdev->ibdev,
			       "MR %#x: page %u of the on-demand paging region cannot be faulted in: %d\n",
			       odp->mr->ibmr.lkey, page, err);
	mutex_lock(&odp->umem->umem_mutex);
	sroce_odp_xlt(odp, SROCE_ODP_XLT_FAIL, page, 1);
	mutex_unlock(&odp->umem->umem_mutex);
}

static void sroce_odp_fault_work(struct work_struct *work)
{
	struct sroce_odp *odp = container_of(work, struct sroce_odp,
					     fault_work);
	bool write;
	u32 page;

	for (;;) {
		spin_lock(&odp->fault_lock);
		if (!odp->fault_pending) {
			spin_unlock(&odp->fault_lock);
			return;
		}
		odp->fault_pending = false;
		page = odp->fault_page;
		write = odp->fault_write;
		spin_unlock(&odp->fault_lock);
		sroce_odp_fault(odp, page, write);
		cond_resched();
	}
}

/**
 * sroce_handle_page_fault() - the firmware found a page of a region absent
 * @sdev: the device
 * @ev: the event's payload, untrusted
 *
 * A newer fault of the same region replaces one not yet served: the
 * firmware retries every waiting access after each translation write,
 * and those still missing a page fault again.
 *
 * Context: the event vector (process context).
 */
void sroce_handle_page_fault(struct sroce_dev *sdev,
			     const struct sroce_event_page_fault *ev)
{
	u32 key = le32_to_cpu(ev->key), page = le32_to_cpu(ev->page);
	struct sroce_mr *mr;

	xa_lock(&sdev->odp_mrs);
	mr = xa_load(&sdev->odp_mrs, key >> 8);
	if (mr && mr->ibmr.lkey == key &&
	    (page & ~SROCE_PAGE_FAULT_WRITE) < mr->odp->npages) {
		spin_lock(&mr->odp->fault_lock);
		mr->odp->fault_page = page & ~SROCE_PAGE_FAULT_WRITE;
		mr->odp->fault_write = page & SROCE_PAGE_FAULT_WRITE;
		mr->odp->fault_pending = true;
		spin_unlock(&mr->odp->fault_lock);
		/* Under the lock: dereg erases, then cancels the work. */
		queue_work(sroce_unbound_wq, &mr->odp->fault_work);
	} else {
		ibdev_dbg(&sdev->ibdev, "page fault for unknown MR %#x page %#x\n",
			  key, page);
	}
	xa_unlock(&sdev->odp_mrs);
}

static void sroce_odp_put(struct sroce_odp *odp)
{
	if (refcount_dec_and_test(&odp->users))
		complete(&odp->unused);
}

/*
 * Map pages @first..@last in windows of the largest translation write,
 * faulting them in (writable if @write) unless @fault is false. Stops
 * early for a fatal signal. Return: 0 or a negative errno.
 */
static int sroce_odp_map_range(struct sroce_odp *odp, u32 first, u32 last,
			       bool fault, bool write)
{
	u32 page, n;
	int err;

	for (page = first; page <= last; page += n) {
		n = min_t(u32, last - page + 1, SROCE_ODP_XLT_MAX_PAGES);
		err = sroce_odp_map(odp, page, n, fault, write);
		if (err)
			return err;
		if (fatal_signal_pending(current))
			return -EINTR;
		cond_resched();
	}
	return 0;
}

/*
 * Faults and prefetches no longer find the region; wait for those that
 * did. Context: process context; sleeps.
 */
static void sroce_odp_unpublish(struct sroce_dev *sdev, struct sroce_odp *odp)
{
	xa_erase(&sdev->odp_mrs, odp->mr->ibmr.lkey >> 8);
	sroce_odp_put(odp);
	wait_for_completion(&odp->unused);
	cancel_work_sync(&odp->fault_work);
}

/* The pages present now, in windows of the largest translation write. */
static int sroce_odp_snapshot(struct sroce_odp *odp)
{
	return sroce_odp_map_range(odp, 0, odp->npages - 1, false, false);
}

/*
 * The on-demand paging region @lkey of @ibpd if it covers @addr..@len,
 * with a reference the caller drops with sroce_odp_put(); NULL if not.
 */
static struct sroce_odp *sroce_odp_get(struct sroce_dev *sdev,
				       struct ib_pd *ibpd, u32 lkey, u64 addr,
				       u32 len)
{
	struct sroce_odp *odp = NULL;
	struct sroce_mr *mr;

	xa_lock(&sdev->odp_mrs);
	mr = xa_load(&sdev->odp_mrs, lkey >> 8);
	if (mr && mr->ibmr.lkey == lkey && mr->ibmr.pd == ibpd && len &&
	    addr >= mr->ibmr.iova && len <= mr->ibmr.length &&
	    addr - mr->ibmr.iova <= mr->ibmr.length - len &&
	    refcount_inc_not_zero(&mr->odp->users))
		odp = mr->odp;
	xa_unlock(&sdev->odp_mrs);
	return odp;
}

/**
 * sroce_advise_mr() - ib_device_ops.advise_mr: prefetch on-demand paging
 * regions
 * @ibpd: the PD the regions must belong to
 * @advice: PREFETCH (read), PREFETCH_WRITE, or PREFETCH_NO_FAULT (map
 *	    only what is present)
 * @flags: IB_UVERBS_ADVISE_MR_FLAG_FLUSH or 0; the prefetch is done before
 *	   returning either way (an asynchronous one may be)
 * @sg_list: the ranges, by lkey and iova
 * @num_sge: entries in @sg_list
 * @attrs: unused
 *
 * Context: process context; sleeps.
 * Return: 0; -EOPNOTSUPP for another advice; -EINVAL for an SGE outside
 * an on-demand paging region of @ibpd; -EPERM to prefetch a read-only
 * region for writing; -EINTR on a fatal signal; or a fault's errno.
 */
int sroce_advise_mr(struct ib_pd *ibpd, enum ib_uverbs_advise_mr_advice advice,
		    u32 flags, struct ib_sge *sg_list, u32 num_sge,
		    struct uverbs_attr_bundle *attrs)
{
	bool write = advice == IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_WRITE;
	bool fault = advice != IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT;
	struct sroce_dev *sdev = to_sdev(ibpd->device);
	struct sroce_odp *odp;
	u64 first, last;
	int err = 0;
	u32 i;

	if (advice != IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH &&
	    advice != IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_WRITE &&
	    advice != IB_UVERBS_ADVISE_MR_ADVICE_PREFETCH_NO_FAULT)
		return -EOPNOTSUPP;
	if (flags & ~IB_UVERBS_ADVISE_MR_FLAG_FLUSH)
		return -EOPNOTSUPP;
	for (i = 0; i < num_sge && !err; i++) {
		odp = sroce_odp_get(sdev, ibpd, sg_list[i].lkey,
				    sg_list[i].addr, sg_list[i].length);
		if (!odp) {
			ibdev_dbg(&sdev->ibdev, "advise_mr: SGE %u (lkey %#x) names no ODP region of the PD\n",
				  i, sg_list[i].lkey);
			return -EINVAL;
		}
		if (write && !odp->umem->umem.writable) {
			err = -EPERM;
		} else {
			first = sg_list[i].addr - odp->mr->ibmr.iova +
				ib_umem_offset(&odp->umem->umem);
			last = first + sg_list[i].length - 1;
			err = sroce_odp_map_range(odp, first >> PAGE_SHIFT,
						  last >> PAGE_SHIFT, fault,
						  write);
		}
		sroce_odp_put(odp);
	}
	return err;
}

/**
 * sroce_odp_reg_mr() - register an on-demand paging region
 * @sdev: the device
 * @mr: the region, its PD set
 * @start: user virtual address
 * @length: size in bytes
 * @iova: address on the wire
 * @access: IB_ACCESS_* rights, IB_ACCESS_ON_DEMAND among them
 *
 * Implicit regions (the whole address space) and huge-page regions are
 * not offered.
 *
 * Context: process context; sleeps.
 * Return: 0 or a negative errno (-EOPNOTSUPP for what is not offered).
 */
int sroce_odp_reg_mr(struct sroce_dev *sdev, struct sroce_mr *mr, u64 start,
		     u64 length, u64 iova, int access)
{
	struct sroce_reg_mr_req req = {
		.iova = cpu_to_le64(iova),
		.length = cpu_to_le64(length),
		.access = cpu_to_le32(access & ~(SROCE_ACCESS_IGNORED |
						 IB_ACCESS_ON_DEMAND)),
		.type = SROCE_MR_ODP,
	};
	struct ib_umem_odp *umem;
	struct sroce_odp *odp;
	size_t npages;
	int err;

	if (!(le32_to_cpu(sdev->caps.caps) & SROCE_DEV_CAP_ODP) ||
	    (access & IB_ACCESS_HUGETLB) || (!start && length == U64_MAX))
		return -EOPNOTSUPP;

	odp = kvzalloc(sizeof(*odp), GFP_KERNEL);
	if (!odp)
		return -ENOMEM;
	umem = ib_umem_odp_get(&sdev->ibdev, start, length, access,
			       &sroce_odp_mn_ops);
	if (IS_ERR(umem)) {
		err = PTR_ERR(umem);
		goto err_free_odp;
	}
	npages = ib_umem_odp_num_pages(umem);
	if (npages > SROCE_ODP_MAX_PAGES || umem->page_shift != PAGE_SHIFT) {
		err = -EINVAL;
		goto err_release_umem;
	}
	odp->sdev = sdev;
	odp->mr = mr;
	odp->umem = umem;
	odp->npages = npages;
	spin_lock_init(&odp->fault_lock);
	INIT_WORK(&odp->fault_work, sroce_odp_fault_work);
	refcount_set(&odp->users, 1);
	init_completion(&odp->unused);
	mr->umem = &umem->umem;
	mr->odp = odp;

	req.npages = cpu_to_le32(npages);
	req.page_offset = cpu_to_le32(ib_umem_offset(&umem->umem));
	err = sroce_mr_register(sdev, mr, &req);
	if (err)
		goto err_unregistered;
	/* Invalidations reach the firmware before any page can be mapped. */
	mutex_lock(&umem->umem_mutex);
	umem->private = odp;
	mutex_unlock(&umem->umem_mutex);
	err = xa_insert(&sdev->odp_mrs, mr->ibmr.lkey >> 8, mr, GFP_KERNEL);
	if (err)
		goto err_dereg;
	err = sroce_odp_snapshot(odp);
	if (err)
		goto err_erase;
	return 0;

err_erase:
	sroce_odp_unpublish(sdev, odp);
err_dereg:
	if (sroce_odp_dereg(sdev, mr))
		return err;
	goto err_release_umem;
err_unregistered:
	/* A dead firmware may use the region after all: keep it. */
	if (sroce_cmd_dead(sdev)) {
		sroce_quarantine(sdev, NULL, mr);
		return err;
	}
err_release_umem:
	mr->umem = NULL;
	mr->odp = NULL;
	ib_umem_odp_release(umem);
err_free_odp:
	kvfree(odp);
	return err;
}

/**
 * sroce_odp_dereg() - the firmware forgets an on-demand paging region
 * @sdev: the device
 * @mr: the region, no longer found by its faults
 *
 * After this the notifier no longer writes to the firmware; the umem is
 * still to be released (sroce_mr_free()).
 *
 * Context: process context; sleeps.
 * Return: 0, or the errno of a DEREG_MR that failed (the region is then
 * quarantined: the firmware may still use its pages).
 */
int sroce_odp_dereg(struct sroce_dev *sdev, struct sroce_mr *mr)
{
	struct sroce_dereg_mr_req req = { .key = cpu_to_le32(mr->ibmr.lkey) };
	int err;

	err = sroce_cmd_exec(sdev, SROCE_CMD_DEREG_MR, &req, sizeof(req),
			     NULL, 0);
	if (err) {
		ibdev_err_ratelimited(&sdev->ibdev,
				      "MR %#x: DEREG_MR failed: %d, region kept until the device goes\n",
				      mr->ibmr.lkey, err);
		sroce_quarantine(sdev, NULL, mr);
		return err;
	}
	sroce_odp_orphan(mr);
	return 0;
}

/**
 * sroce_odp_orphan() - the notifier stops writing to the firmware
 * @mr: an on-demand paging region the firmware no longer uses (dropped,
 *	or stopped for good)
 *
 * What the firmware may have written is marked dirty first: releasing the
 * umem unmaps every page, and on 6.15+ the core does not dirty those of a
 * virtual-DMA device.
 *
 * Context: process context; sleeps.
 */
void sroce_odp_orphan(struct sroce_mr *mr)
{
	struct ib_umem_odp *umem = mr->odp->umem;

	mutex_lock(&umem->umem_mutex);
	umem->private = NULL;
	sroce_odp_dirty_range(umem, ib_umem_start(umem), ib_umem_end(umem));
	mutex_unlock(&umem->umem_mutex);
}

/**
 * sroce_odp_dereg_mr() - ib_device_ops.dereg_mr of an on-demand paging
 * region
 * @sdev: the device
 * @mr: the region
 *
 * Return: 0 (a failed DEREG_MR quarantines the region).
 */
int sroce_odp_dereg_mr(struct sroce_dev *sdev, struct sroce_mr *mr)
{
	sroce_odp_unpublish(sdev, mr->odp);
	if (!sroce_odp_dereg(sdev, mr))
		sroce_mr_free(mr);
	return 0;
}

/**
 * sroce_odp_free() - the driver side of a region the firmware forgot
 * @mr: the region; its umem is released by the caller
 */
void sroce_odp_free(struct sroce_mr *mr)
{
	kvfree(mr->odp);
	mr->odp = NULL;
}
