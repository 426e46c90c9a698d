// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * sroce mmap: queue rings shared with userspace. Each ring is a vmalloc
 * buffer published through an ib_core mmap entry; the offset/size pair
 * handed to librxe (struct mminfo) is the entry's cookie. The entry owns
 * the buffer: it is freed only when the object is destroyed and the last
 * mapping is gone, so userspace never maps freed memory.
 *
 * A user ring is memory the process cannot page out, like a registered
 * region: publishing it charges its pages to the creating process's
 * pinned_vm, held to RLIMIT_MEMLOCK unless the process has CAP_IPC_LOCK,
 * and the charge is returned when the buffer is freed.
 */
#include <linux/capability.h>
#include <linux/mm.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "sroce.h"

/*
 * @charged_mm: the process whose pinned_vm pays @charged_pages (a
 * reference on the mm_struct, not on its address space: the ring may
 * outlive the process).
 * @disowned: the buffer went to the device's quarantine (its object's
 * destroy failed): the entry no longer frees it. Set before the entry is
 * removed, read once its last reference is gone.
 */
struct sroce_mmap_entry {
	struct rdma_user_mmap_entry rdma;
	void *buf;
	struct mm_struct *charged_mm;
	unsigned long charged_pages;
	bool disowned;
};

static struct sroce_mmap_entry *to_smmap(struct rdma_user_mmap_entry *e)
{
	return container_of(e, struct sroce_mmap_entry, rdma);
}

/*
 * Charges @e's pages to the calling process. Like ib_umem's pinning, the
 * pages count even with CAP_IPC_LOCK; only the limit is waived.
 */
static int sroce_ring_charge(struct ib_device *ibdev,
			     struct sroce_mmap_entry *e, size_t size)
{
	unsigned long pages = PAGE_ALIGN(size) >> PAGE_SHIFT;
	unsigned long limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
	struct mm_struct *mm = current->mm;

	if (!mm)
		return -EINVAL;
	if (atomic64_add_return(pages, &mm->pinned_vm) > limit &&
	    !capable(CAP_IPC_LOCK)) {
		atomic64_sub(pages, &mm->pinned_vm);
		ibdev_warn_ratelimited(ibdev,
				       "ring of %lu pages refused: %s[%d] past RLIMIT_MEMLOCK (%lu pages)\n",
				       pages, current->comm,
				       task_pid_nr(current), limit);
		return -ENOMEM;
	}
	mmgrab(mm);
	e->charged_mm = mm;
	e->charged_pages = pages;
	return 0;
}

static void sroce_ring_uncharge(struct sroce_mmap_entry *e)
{
	atomic64_sub(e->charged_pages, &e->charged_mm->pinned_vm);
	mmdrop(e->charged_mm);
}

/**
 * sroce_mmap_publish() - make a ring mappable by a user context
 * @uctx: the user context
 * @buf: vmalloc_user() buffer; owned by the entry on success
 * @size: buffer size in bytes
 * @mi: filled with the cookie librxe passes to mmap()
 *
 * The ring's pages are charged to the calling process (see the top of
 * this file).
 *
 * Return: the entry (for sroce_mmap_unpublish()) or an ERR_PTR (-ENOMEM
 * past RLIMIT_MEMLOCK); on error the caller still owns @buf.
 */
struct rdma_user_mmap_entry *sroce_mmap_publish(struct ib_ucontext *uctx,
						void *buf, size_t size,
						struct mminfo *mi)
{
	struct sroce_mmap_entry *e;
	int err;

	e = kzalloc(sizeof(*e), GFP_KERNEL);
	if (!e)
		return ERR_PTR(-ENOMEM);
	e->buf = buf;
	err = sroce_ring_charge(uctx->device, e, size);
	if (err)
		goto err_free_entry;
	err = rdma_user_mmap_entry_insert(uctx, &e->rdma, PAGE_ALIGN(size));
	if (err)
		goto err_uncharge;
	mi->offset = rdma_user_mmap_get_offset(&e->rdma);
	mi->size = PAGE_ALIGN(size);
	mi->pad = 0;
	return &e->rdma;

err_uncharge:
	sroce_ring_uncharge(e);
err_free_entry:
	kfree(e);
	return ERR_PTR(err);
}

/**
 * sroce_mmap_unpublish() - the object is gone; free once unmapped
 * @entry: from sroce_mmap_publish()
 */
void sroce_mmap_unpublish(struct rdma_user_mmap_entry *entry)
{
	rdma_user_mmap_entry_remove(entry);
}

/**
 * sroce_mmap() - ib_device_ops.mmap: map a published ring
 * @uctx: the user context
 * @vma: the mapping requested
 *
 * Return: 0 or a negative errno (-EINVAL for an unknown cookie or a
 * mapping larger than the ring).
 */
int sroce_mmap(struct ib_ucontext *uctx, struct vm_area_struct *vma)
{
	struct rdma_user_mmap_entry *entry;
	int err;

	entry = rdma_user_mmap_entry_get(uctx, vma);
	if (!entry) {
		ibdev_dbg(uctx->device, "mmap: no ring at offset %#lx\n",
			  vma->vm_pgoff << PAGE_SHIFT);
		return -EINVAL;
	}
	/* Page references taken here keep the pages until munmap. */
	err = remap_vmalloc_range(vma, to_smmap(entry)->buf, 0);
	rdma_user_mmap_entry_put(entry);
	return err;
}

/**
 * sroce_mmap_free() - ib_device_ops.mmap_free: last reference dropped
 * @entry: the entry
 */
void sroce_mmap_free(struct rdma_user_mmap_entry *entry)
{
	struct sroce_mmap_entry *e = to_smmap(entry);

	if (!e->disowned)
		vfree(e->buf);
	sroce_ring_uncharge(e);
	kfree(e);
}

/**
 * sroce_ring_free() - free a ring the firmware was given
 * @sdev: the device
 * @entry: the ring's mmap entry (user rings, which it owns), or NULL
 * @ring: the ring (kernel rings: vmalloc memory), or NULL
 * @fw_may_use: the firmware did not confirm it stopped using the ring (a
 *		destroy that failed): keep the memory until detach
 *
 * A user ring stays mappable by nobody new either way; mappings already
 * made keep their pages until munmap.
 */
void sroce_ring_free(struct sroce_dev *sdev,
		     struct rdma_user_mmap_entry *entry, void *ring,
		     bool fw_may_use)
{
	if (entry) {
		if (fw_may_use) {
			to_smmap(entry)->disowned = true;
			sroce_quarantine(sdev, to_smmap(entry)->buf, NULL);
		}
		sroce_mmap_unpublish(entry);
	} else if (fw_may_use && ring) {
		sroce_quarantine(sdev, ring, NULL);
	} else {
		vfree(ring);
	}
}
