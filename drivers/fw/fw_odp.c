// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * sroce firmware: on-demand paging regions (SROCE_MR_ODP).
 *
 * Such a region has no pinned table: the firmware keeps one entry per
 * page, absent until the driver writes it (sroce_fw_write_odp_xlt()).
 * Every copy through the region holds the region's lock while it checks
 * its pages and copies, and the driver's UNMAP takes the same lock: once
 * an UNMAP returns, no access uses those pages any more, which is what an
 * MMU notifier needs before the kernel may move or free them.
 *
 * An access that finds a page absent (or read-only, for a write) copies
 * nothing, raises SROCE_EVENT_PAGE_FAULT and returns -EAGAIN; its caller
 * leaves its state as it was and either waits (sroce_fw_odp_park(): the
 * QP is made ready again after the next MAP or FAIL write, or when a
 * region goes) or lets the peer retry (RNR NAK). The driver faults the pages in process context
 * and writes them; pages it could not fault are marked failed, and an
 * access to them fails with -EFAULT (a protection error) until they are
 * written again.
 */
#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/slab.h>

#include "fw.h"

/* Entry values besides a page pointer | SROCE_ODP_XLT_WRITABLE. */
#define SROCE_FW_ODP_ABSENT	0UL
#define SROCE_FW_ODP_FAILED	0x2UL
#define SROCE_FW_ODP_FLAGS	0x3UL

/* No fault is waiting to be answered. */
#define SROCE_FW_ODP_NO_FAULT	U64_MAX

/**
 * sroce_fw_odp_alloc() - the page table of a new on-demand paging region
 * @npages: pages the region spans, 1..SROCE_ODP_MAX_PAGES
 *
 * Context: the command processor; sleeps.
 * Return: the table, every page absent; NULL if no memory is left.
 */
struct sroce_fw_odp *sroce_fw_odp_alloc(u32 npages)
{
	struct sroce_fw_odp *odp;

	odp = kzalloc(sizeof(*odp), GFP_KERNEL);
	if (!odp)
		return NULL;
	odp->entries = kvcalloc(npages, sizeof(*odp->entries), GFP_KERNEL);
	if (!odp->entries) {
		kfree(odp);
		return NULL;
	}
	spin_lock_init(&odp->lock);
	odp->npages = npages;
	odp->last_fault = SROCE_FW_ODP_NO_FAULT;
	sroce_fw_event_src_init(&odp->fault_ev, SROCE_EVENT_PAGE_FAULT);
	return odp;
}

/**
 * sroce_fw_odp_free() - free the page table of a region nobody can reach
 * @fw: the function
 * @odp: the table (NULL: nothing to do)
 */
void sroce_fw_odp_free(struct sroce_fw_dev *fw, struct sroce_fw_odp *odp)
{
	if (!odp)
		return;
	sroce_fw_event_src_kill(fw, &odp->fault_ev);
	kvfree(odp->entries);
	kfree(odp);
}

/*
 * Raise a fault for @page of @mr, unless the same one waits for its
 * answer already. Caller holds the table's lock.
 */
static void sroce_fw_odp_raise(struct sroce_fw_dev *fw,
			       const struct sroce_fw_mr *mr, u32 page,
			       bool write)
{
	struct sroce_fw_odp *odp = mr->odp;
	struct sroce_event_page_fault ev = {
		.key = cpu_to_le32(mr->key),
		.page = cpu_to_le32(page | (write ? SROCE_PAGE_FAULT_WRITE : 0)),
	};
	u64 fault = (u64)page << 1 | write;

	if (odp->last_fault == fault)
		return;
	odp->last_fault = fault;
	sroce_fw_count(fw, SROCE_STAT_ODP_PAGE_FAULTS);
	sroce_fw_post_event(fw, &odp->fault_ev, &ev, sizeof(ev));
}

/*
 * Whether pages @first..@last of @mr can be accessed, for writing if
 * @write: 0, -EAGAIN after raising a fault for the first that cannot, or
 * -EFAULT if one of them could not be faulted (which counts as reported:
 * it is absent again). Caller holds the lock.
 */
static int sroce_fw_odp_check(struct sroce_fw_dev *fw,
			      const struct sroce_fw_mr *mr, u32 first,
			      u32 last, bool write)
{
	unsigned long *e = mr->odp->entries;
	u32 i;

	for (i = first; i <= last; i++) {
		/* Reported once: the next access faults afresh. */
		if (e[i] == SROCE_FW_ODP_FAILED) {
			e[i] = SROCE_FW_ODP_ABSENT;
			return -EFAULT;
		}
		if (e[i] == SROCE_FW_ODP_ABSENT ||
		    (write && !(e[i] & SROCE_ODP_XLT_WRITABLE))) {
			sroce_fw_odp_raise(fw, mr, i, write);
			return -EAGAIN;
		}
	}
	return 0;
}

static struct page *sroce_fw_odp_page(const struct sroce_fw_mr *mr, u32 i)
{
	return (struct page *)(mr->odp->entries[i] & ~SROCE_FW_ODP_FLAGS);
}

/**
 * sroce_fw_odp_copy() - copy between an on-demand paging region and a
 * kernel buffer
 * @fw: the function
 * @mr: the state sroce_fw_mr_lookup() returned for this very range
 * @iova: first byte of the region to access
 * @buf: kernel buffer
 * @len: bytes to copy, at least 1 (callers copy at most a packet's worth)
 * @to_mr: true to write into the region, false to read from it
 *
 * All or nothing: nothing is copied unless every page is there.
 *
 * Context: BHs off or softirq, under rcu_read_lock(); does not sleep.
 * Return: 0; -EAGAIN if a page is absent (a fault is raised); -EFAULT if
 * a page could not be faulted.
 */
int sroce_fw_odp_copy(struct sroce_fw_dev *fw, const struct sroce_fw_mr *mr,
		      u64 iova, void *buf, u64 len, bool to_mr)
{
	u64 off = iova - mr->iova + mr->page_offset;
	u32 i = off >> PAGE_SHIFT;
	int err;

	spin_lock_bh(&mr->odp->lock);
	err = sroce_fw_odp_check(fw, mr, i, (off + len - 1) >> PAGE_SHIFT,
				 to_mr);
	while (!err && len) {
		u32 in_page = off & ~PAGE_MASK;
		u32 n = min_t(u64, len, PAGE_SIZE - in_page);

		sroce_fw_page_copy(sroce_fw_odp_page(mr, i), in_page, buf, n,
				   to_mr);
		buf += n;
		off += n;
		len -= n;
		i++;
	}
	spin_unlock_bh(&mr->odp->lock);
	return err;
}

/*
 * The naturally aligned word at @iova of @mr, mapped for writing (unmap
 * it with kunmap_local()); NULL with *@err set as sroce_fw_odp_check()
 * does if its page cannot be written now. Caller holds the table's lock.
 */
static u64 *sroce_fw_odp_map_word(struct sroce_fw_dev *fw,
				  const struct sroce_fw_mr *mr, u64 iova,
				  int *err)
{
	u64 off = iova - mr->iova + mr->page_offset;
	u32 i = off >> PAGE_SHIFT;

	*err = sroce_fw_odp_check(fw, mr, i, i, true);
	if (*err)
		return NULL;
	return kmap_local_page(sroce_fw_odp_page(mr, i)) + (off & ~PAGE_MASK);
}

/**
 * sroce_fw_odp_atomic() - read-modify-write one 64-bit word of an
 * on-demand paging region
 * @fw: the function
 * @mr: the state sroce_fw_mr_lookup() returned for these 8 bytes
 * @iova: address of the word, a multiple of 8 (so within one page)
 * @op: computes the new value from the old one
 * @arg: @op's argument
 * @orig: set to the old value
 * @lock: serializes the atomics of every function, taken inside the
 *	  table's lock
 *
 * Context: BHs off or softirq, under rcu_read_lock(); does not sleep.
 * Return: 0, -EAGAIN (a fault is raised) or -EFAULT, as
 * sroce_fw_odp_copy().
 */
int sroce_fw_odp_atomic(struct sroce_fw_dev *fw, const struct sroce_fw_mr *mr,
			u64 iova, u64 (*op)(u64 orig, const void *arg),
			const void *arg, u64 *orig, spinlock_t *lock)
{
	u64 *word;
	int err;

	spin_lock_bh(&mr->odp->lock);
	word = sroce_fw_odp_map_word(fw, mr, iova, &err);
	if (word) {
		spin_lock(lock);
		*orig = READ_ONCE(*word);
		WRITE_ONCE(*word, op(*orig, arg));
		spin_unlock(lock);
		kunmap_local(word);
	}
	spin_unlock_bh(&mr->odp->lock);
	return err;
}

/**
 * sroce_fw_odp_store_u64() - store one naturally aligned 64-bit word into
 * an on-demand paging region at once
 * @fw: the function
 * @mr: the state sroce_fw_mr_lookup() returned for these 8 bytes
 * @iova: address of the word, a multiple of 8
 * @val: the bytes to store, in memory order
 *
 * Context: BHs off or softirq, under rcu_read_lock(); does not sleep.
 * Return: 0, -EAGAIN (a fault is raised) or -EFAULT, as
 * sroce_fw_odp_copy().
 */
int sroce_fw_odp_store_u64(struct sroce_fw_dev *fw,
			   const struct sroce_fw_mr *mr, u64 iova, u64 val)
{
	u64 *word;
	int err;

	spin_lock_bh(&mr->odp->lock);
	word = sroce_fw_odp_map_word(fw, mr, iova, &err);
	if (word) {
		WRITE_ONCE(*word, val);
		kunmap_local(word);
	}
	spin_unlock_bh(&mr->odp->lock);
	return err;
}

/**
 * sroce_fw_odp_gen() - the translation writes seen so far
 * @fw: the function
 *
 * Read before an access that may park: sroce_fw_odp_park() refuses to
 * park if a MAP or FAIL write came in between (its wake-up may have
 * passed the QP by).
 *
 * Return: the generation.
 */
u32 sroce_fw_odp_gen(struct sroce_fw_dev *fw)
{
	return READ_ONCE(fw->odp_gen);
}

/**
 * sroce_fw_odp_park() - a QP waits for the next translation write
 * @fw: the function
 * @qp: the QP, whose lock is held, that found a page absent
 * @gen: sroce_fw_odp_gen() from before the access
 *
 * The QP is made ready again after the next MAP or FAIL write of any
 * region of @fw (cheap to retry: one look at the table), or after an on-
 * demand paging region is deregistered, and tries again. Parking twice
 * before that keeps one place on the list.
 *
 * Return: true if parked; false if a write came since @gen: the caller
 * retries at once (the page may be there now).
 */
bool sroce_fw_odp_park(struct sroce_fw_dev *fw, struct sroce_fw_qp *qp,
		       u32 gen)
{
	bool parked = false;

	spin_lock(&fw->odp_wait_lock);
	if (fw->odp_gen == gen) {
		if (list_empty(&qp->odp_node) && !READ_ONCE(qp->sched_dead))
			list_add_tail(&qp->odp_node, &fw->odp_waiters);
		parked = true;
	}
	spin_unlock(&fw->odp_wait_lock);
	return parked;
}

/**
 * sroce_fw_odp_unpark() - a QP being destroyed stops waiting
 * @fw: the function
 * @qp: the QP, no longer reachable by number
 */
void sroce_fw_odp_unpark(struct sroce_fw_dev *fw, struct sroce_fw_qp *qp)
{
	spin_lock_bh(&fw->odp_wait_lock);
	list_del_init(&qp->odp_node);
	spin_unlock_bh(&fw->odp_wait_lock);
}

/**
 * sroce_fw_odp_wake() - make every parked QP ready: the page it waits for
 * may be there now, or its region gone
 * @fw: the function
 *
 * The list is emptied first, so a QP that finds its page still absent
 * parks again for the write after this one.
 *
 * Context: process context; BHs enabled.
 */
void sroce_fw_odp_wake(struct sroce_fw_dev *fw)
{
	struct sroce_fw_qp *qp;
	LIST_HEAD(woken);

	local_bh_disable();
	rcu_read_lock();
	spin_lock(&fw->odp_wait_lock);
	WRITE_ONCE(fw->odp_gen, fw->odp_gen + 1);
	list_splice_init(&fw->odp_waiters, &woken);
	/*
	 * One at a time off the private list, under the lock: a destroy's
	 * unpark may take any of them off it meanwhile.
	 */
	while (!list_empty(&woken)) {
		qp = list_first_entry(&woken, struct sroce_fw_qp, odp_node);
		list_del_init(&qp->odp_node);
		spin_unlock(&fw->odp_wait_lock);
		/* Destroy unparks, then waits for a grace period. */
		spin_lock(&qp->lock);
		sroce_fw_odp_resume_completer(fw, qp);
		spin_unlock(&qp->lock);
		sroce_fw_sched_add(fw, qp);
		spin_lock(&fw->odp_wait_lock);
	}
	spin_unlock(&fw->odp_wait_lock);
	rcu_read_unlock();
	sroce_fw_sched_run(fw);
	local_bh_enable();
}

/**
 * sroce_fw_write_odp_xlt() - the translation-write register of on-demand
 * paging regions
 * @fw: the function
 * @xlt: the write (struct sroce_odp_xlt), read once
 *
 * Applied before it returns, the way a driver reads a register back to
 * know its posted write has landed: after an UNMAP no access uses the
 * pages any more. Does not allocate and does not wait for the command
 * processor, so that an MMU notifier may use it. A FAIL marks only the
 * pages still absent (one mapped meanwhile stays). After a MAP or FAIL
 * the QPs waiting for pages try again.
 *
 * Context: process context, may hold sleeping locks; does not sleep.
 * Return: enum sroce_fw_status: BAD_PARAM for a malformed write,
 * NOT_FOUND if its key names no on-demand paging region, BAD_STATE once
 * the function is stopped.
 */
u16 sroce_fw_write_odp_xlt(struct sroce_fw_dev *fw,
			   const struct sroce_odp_xlt *xlt)
{
	const struct sroce_odp_xlt x = *xlt;
	u32 key = le32_to_cpu(x.key), first = le32_to_cpu(x.first_page);
	u32 npages = le32_to_cpu(x.npages), unmapped = 0, i;
	const __le64 *src = (const __le64 *)(uintptr_t)
			    le64_to_cpu(x.entries_addr);
	bool map = x.op == SROCE_ODP_XLT_MAP;
	struct sroce_fw_odp *odp;
	struct sroce_fw_mr *mr;
	u16 status = SROCE_FW_OK;

	if (!npages || npages > SROCE_ODP_XLT_MAX_PAGES || map != !!src ||
	    (!map && x.op != SROCE_ODP_XLT_UNMAP &&
	     x.op != SROCE_ODP_XLT_FAIL))
		return SROCE_FW_ERR_BAD_PARAM;

	rcu_read_lock();
	/* Detach frees the regions a grace period after stopping. */
	if (READ_ONCE(fw->stopped)) {
		status = SROCE_FW_ERR_BAD_STATE;
		goto out_unlock_rcu;
	}
	mr = sroce_fw_region_by_key(fw, key);
	if (!mr || mr->type != SROCE_MR_ODP) {
		status = SROCE_FW_ERR_NOT_FOUND;
		goto out_unlock_rcu;
	}
	odp = mr->odp;
	if (first >= odp->npages || npages > odp->npages - first) {
		status = SROCE_FW_ERR_BAD_PARAM;
		goto out_unlock_rcu;
	}
	spin_lock_bh(&odp->lock);
	for (i = 0; i < npages; i++) {
		unsigned long *e = &odp->entries[first + i], v;

		switch (x.op) {
		case SROCE_ODP_XLT_MAP:
			v = le64_to_cpu(READ_ONCE(src[i]));
			/* A page, and only the writable bit beside it. */
			if (!(v & ~SROCE_FW_ODP_FLAGS) ||
			    (v & SROCE_FW_ODP_FLAGS & ~SROCE_ODP_XLT_WRITABLE))
				v = SROCE_FW_ODP_ABSENT;
			*e = v;
			break;
		case SROCE_ODP_XLT_UNMAP:
			if (*e != SROCE_FW_ODP_ABSENT &&
			    *e != SROCE_FW_ODP_FAILED)
				unmapped++;
			*e = SROCE_FW_ODP_ABSENT;
			break;
		default:
			if (*e == SROCE_FW_ODP_ABSENT)
				*e = SROCE_FW_ODP_FAILED;
			break;
		}
	}
	odp->last_fault = SROCE_FW_ODP_NO_FAULT;
	spin_unlock_bh(&odp->lock);
	if (unmapped)
		sroce_fw_count_add(fw, SROCE_STAT_ODP_INVALIDATIONS,
				   unmapped);
out_unlock_rcu:
	rcu_read_unlock();
	if (status == SROCE_FW_OK && x.op != SROCE_ODP_XLT_UNMAP)
		sroce_fw_odp_wake(fw);
	return status;
}
