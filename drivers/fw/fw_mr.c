// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * sroce firmware: memory regions. A region is found by the index in bits
 * 31..8 of its key; bits 7..0 change with every registration so that a
 * stale key of a freed region does not match a new one.
 *
 * The table holds a struct sroce_fw_mkey per region or window; accesses
 * are checked against and copied through its current struct sroce_fw_mr,
 * an immutable state read under RCU. User and DMA regions have one state
 * for their whole life. Fast-registration regions get a new one from each
 * registration work request and lose it on invalidation; like memory
 * windows (fw_mw.c), they change state in the datapath under mr_lock.
 */
#include <linux/highmem.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>

#include "fw.h"

static bool sroce_fw_mr_access_ok(u32 access)
{
	if (access & ~SROCE_ACCESS_ALL)
		return false;
	/* Remote writers and atomics write locally too (IBA 10.6.3.1). */
	if ((access & (SROCE_ACCESS_REMOTE_WRITE |
		       SROCE_ACCESS_REMOTE_ATOMIC)) &&
	    !(access & SROCE_ACCESS_LOCAL_WRITE))
		return false;
	return true;
}

static bool sroce_fw_is_mw(u8 type)
{
	return type == SROCE_FW_MW_TYPE1 || type == SROCE_FW_MW_TYPE2;
}

/* Once no reader or writer can reach @k any more (after a grace period). */
static void sroce_fw_mkey_free(struct sroce_fw_dev *fw,
			       struct sroce_fw_mkey *k)
{
	struct sroce_fw_mr *mr = rcu_dereference_protected(k->cur, true);

	if (mr)
		sroce_fw_odp_free(fw, mr->odp);
	kfree(mr);
	kfree(k);
}

/**
 * sroce_fw_mkey_add() - put a new region or window into the table
 * @fw: the function
 * @k: the entry, filled in but for @k->key and @k->cur
 * @mr: its first state, filled in but for @mr->key; NULL for none yet
 *
 * The index is reserved first and @k published only once its key and
 * state are set, so no reader ever sees them change.
 *
 * Context: the command processor.
 * Return: 0, or -ENOMEM if no index or memory is left.
 */
int sroce_fw_mkey_add(struct sroce_fw_dev *fw, struct sroce_fw_mkey *k,
		      struct sroce_fw_mr *mr)
{
	u32 index;

	if (xa_alloc(&fw->mrs, &index, NULL, XA_LIMIT(1, SROCE_FW_MAX_MR),
		     GFP_KERNEL))
		return -ENOMEM;
	k->key = index << 8 | (fw->mr_key_seq++ & 0xff);
	if (mr)
		mr->key = k->key;
	RCU_INIT_POINTER(k->cur, mr);
	if (xa_is_err(xa_store(&fw->mrs, index, k, GFP_KERNEL))) {
		xa_erase(&fw->mrs, index);
		return -ENOMEM;
	}
	return 0;
}

/**
 * sroce_fw_cmd_reg_mr() - REG_MR: register a memory region
 * @fw: the function
 * @req: struct sroce_reg_mr_req
 * @resp: struct sroce_reg_mr_resp
 *
 * Return: enum sroce_fw_status.
 */
u16 sroce_fw_cmd_reg_mr(struct sroce_fw_dev *fw, const void *req,
			void *resp)
{
	const struct sroce_reg_mr_req *q = req;
	struct sroce_reg_mr_resp *r = resp;
	u64 length = le64_to_cpu(q->length);
	u32 page_offset = le32_to_cpu(q->page_offset);
	u32 access = le32_to_cpu(q->access);
	u32 npages = le32_to_cpu(q->npages);
	struct sroce_fw_mr *mr = NULL;
	struct sroce_fw_mkey *k;

	if (!sroce_fw_mr_access_ok(access))
		return SROCE_FW_ERR_BAD_PARAM;
	switch (q->type) {
	case SROCE_MR_USER:
		if (!q->mtt_addr || page_offset >= PAGE_SIZE ||
		    length > (u64)npages << PAGE_SHIFT ||
		    npages != DIV_ROUND_UP_ULL(page_offset + length, PAGE_SIZE))
			return SROCE_FW_ERR_BAD_PARAM;
		break;
	case SROCE_MR_ODP:
		/* The firmware keeps the table: the driver writes it later. */
		if (q->mtt_addr || page_offset >= PAGE_SIZE || !npages ||
		    npages > SROCE_ODP_MAX_PAGES ||
		    length > (u64)npages << PAGE_SHIFT ||
		    npages != DIV_ROUND_UP_ULL(page_offset + length, PAGE_SIZE))
			return SROCE_FW_ERR_BAD_PARAM;
		break;
	case SROCE_MR_DMA:
		if (q->mtt_addr || npages || page_offset)
			return SROCE_FW_ERR_BAD_PARAM;
		break;
	case SROCE_MR_FAST:
		/* Created invalid: a registration WQE gives it a range. */
		if (!q->mtt_addr || !npages ||
		    npages > SROCE_FW_MAX_FAST_REG_PAGES || page_offset ||
		    length || q->iova || access)
			return SROCE_FW_ERR_BAD_PARAM;
		break;
	default:
		return SROCE_FW_ERR_BAD_PARAM;
	}
	if (!xa_load(&fw->pds, le32_to_cpu(q->pdn)))
		return SROCE_FW_ERR_NOT_FOUND;

	k = kzalloc(sizeof(*k), GFP_KERNEL);
	if (!k)
		return SROCE_FW_ERR_NO_RESOURCES;
	k->type = q->type;
	k->pdn = le32_to_cpu(q->pdn);
	if (q->type == SROCE_MR_FAST) {
		k->max_pages = npages;
		k->fast_list = (const __le64 *)(uintptr_t)
			       le64_to_cpu(q->mtt_addr);
	} else {
		mr = kzalloc(sizeof(*mr), GFP_KERNEL);
		if (!mr)
			goto err_free_k;
		mr->type = q->type;
		mr->page_shift = PAGE_SHIFT;
		mr->pdn = k->pdn;
		mr->access = access;
		mr->iova = le64_to_cpu(q->iova);
		mr->length = length;
		mr->page_offset = page_offset;
		mr->npages = npages;
		mr->pages = (struct page **)(uintptr_t)
			    le64_to_cpu(q->mtt_addr);
		if (q->type == SROCE_MR_ODP) {
			mr->odp = sroce_fw_odp_alloc(npages);
			if (!mr->odp)
				goto err_free_mr;
		}
	}

	if (sroce_fw_mkey_add(fw, k, mr))
		goto err_free_odp;
	r->lkey = cpu_to_le32(k->key);
	r->rkey = cpu_to_le32(k->key);
	return SROCE_FW_OK;

err_free_odp:
	if (mr)
		sroce_fw_odp_free(fw, mr->odp);
err_free_mr:
	kfree(mr);
err_free_k:
	kfree(k);
	return SROCE_FW_ERR_NO_RESOURCES;
}

/* DEREG_MR's or DEALLOC_MW's end, a grace period after the erase. */
static u16 sroce_fw_mkey_end(struct sroce_fw_dev *fw,
			     struct sroce_fw_deferred *d)
{
	struct sroce_fw_mkey *k = container_of(d, struct sroce_fw_mkey, end);
	bool odp = k->type == SROCE_MR_ODP;
	u32 index = k->key >> 8;

	sroce_fw_mkey_free(fw, k);
	/* Only now may a registration take the index again. */
	xa_release(&fw->mrs, index);
	/* QPs waiting for its pages find it gone: protection errors. */
	if (odp)
		sroce_fw_odp_wake(fw);
	return SROCE_FW_OK;
}

/**
 * sroce_fw_mr_erase() - take a region or window out of the key table
 * @fw: the function
 * @key: its current key
 * @window: true for a window, false for a region
 *
 * Readers hold RCU while they copy, and writers while they publish a
 * state: the command completes, and the entry is freed, only after a grace
 * period, so the driver never unpins or frees pages still in use.
 *
 * Context: a command handler.
 * Return: SROCE_FW_DEFERRED, or SROCE_FW_ERR_NOT_FOUND if @key names no
 * object of that kind.
 */
u16 sroce_fw_mr_erase(struct sroce_fw_dev *fw, u32 key, bool window)
{
	struct sroce_fw_mkey *k;

	xa_lock(&fw->mrs);
	k = xa_load(&fw->mrs, key >> 8);
	/* Fast regions and windows are named by their index. */
	if (!k || sroce_fw_is_mw(k->type) != window ||
	    (k->type != SROCE_MR_FAST && !window && k->key != key)) {
		xa_unlock(&fw->mrs);
		return SROCE_FW_ERR_NOT_FOUND;
	}
	/* Unreachable at once; the index stays reserved until the end. */
	if (WARN_ON_ONCE(__xa_cmpxchg(&fw->mrs, key >> 8, k, XA_ZERO_ENTRY,
				      0) != k)) {
		xa_unlock(&fw->mrs);
		return SROCE_FW_ERR_INTERNAL;
	}
	xa_unlock(&fw->mrs);
	return sroce_fw_defer(fw, &k->end, sroce_fw_mkey_end);
}

/**
 * sroce_fw_cmd_dereg_mr() - DEREG_MR: release a memory region
 * @fw: the function
 * @req: struct sroce_dereg_mr_req
 * @resp: unused
 *
 * After completion the firmware no longer touches the region's pages.
 *
 * Return: enum sroce_fw_status; NOT_FOUND for a key that names no region.
 */
u16 sroce_fw_cmd_dereg_mr(struct sroce_fw_dev *fw, const void *req,
			  void *resp)
{
	const struct sroce_dereg_mr_req *q = req;

	return sroce_fw_mr_erase(fw, le32_to_cpu(q->key), false);
}

/* Key, PD, rights and range of a state of a region or window. */
static bool sroce_fw_mr_allows(const struct sroce_fw_mr *mr, u32 key,
			       u32 pdn, u32 access, u64 iova, u64 len)
{
	return mr->key == key && mr->pdn == pdn &&
	       (mr->access & access) == access &&
	       sroce_range_within(mr->iova, mr->length, iova, len);
}

/* @mr if it is a region's state that allows the access, else NULL. */
static struct sroce_fw_mr *sroce_fw_region_check(struct sroce_fw_mr *mr,
						 u32 key, u32 pdn, u32 access,
						 u64 iova, u64 len)
{
	if (!mr || sroce_fw_is_mw(mr->type) ||
	    !sroce_fw_mr_allows(mr, key, pdn, access, iova, len))
		return NULL;
	return mr;
}

/* The current state of the region or window a key's index names. */
static struct sroce_fw_mr *sroce_fw_mr_state(struct sroce_fw_dev *fw, u32 key)
{
	struct sroce_fw_mkey *k = xa_load(&fw->mrs, key >> 8);

	return k ? rcu_dereference(k->cur) : NULL;
}

/**
 * sroce_fw_region_get() - find the region (not window) a key names
 * @fw: the function
 * @key: lkey or rkey
 * @pdn: protection domain the access comes from
 * @access: SROCE_ACCESS_* rights needed
 * @iova: first byte accessed
 * @len: bytes accessed
 *
 * Context: under rcu_read_lock(), held until the last copy through the
 * state returned.
 * Return: the state of the region that was checked, to copy through; or
 * NULL.
 */
struct sroce_fw_mr *sroce_fw_region_get(struct sroce_fw_dev *fw, u32 key,
					u32 pdn, u32 access, u64 iova, u64 len)
{
	return sroce_fw_region_check(sroce_fw_mr_state(fw, key), key, pdn,
				     access, iova, len);
}

/**
 * sroce_fw_region_by_key() - the region a key names, for the driver
 * @fw: the function
 * @key: its current key
 *
 * Context: under rcu_read_lock(), held for as long as the state is used.
 * Return: the region's state, or NULL if @key names no region (windows
 * included).
 */
struct sroce_fw_mr *sroce_fw_region_by_key(struct sroce_fw_dev *fw, u32 key)
{
	struct sroce_fw_mr *mr = sroce_fw_mr_state(fw, key);

	return mr && !sroce_fw_is_mw(mr->type) && mr->key == key ? mr : NULL;
}

/**
 * sroce_fw_mr_lookup() - find the region a key names, for an access
 * @fw: the function
 * @key: lkey or rkey from a WQE or a packet; an rkey may name a window
 * @pdn: protection domain of the QP making the access
 * @qpn: the QP making the access (type 2 windows admit only theirs)
 * @access: SROCE_ACCESS_* rights the access needs (0 for a local read)
 * @iova: first byte accessed
 * @len: bytes accessed
 *
 * Windows serve remote accesses only; their rights were checked against
 * the region when they were bound, and the region must still be
 * registered under the key it was bound to.
 *
 * Context: caller holds rcu_read_lock() for as long as it uses the region.
 * Return: the state of the region that was checked, to copy through; or
 * NULL if the key is unknown, stale or invalid, belongs to another PD,
 * lacks a right or does not cover the range.
 */
struct sroce_fw_mr *sroce_fw_mr_lookup(struct sroce_fw_dev *fw, u32 key,
				       u32 pdn, u32 qpn, u32 access, u64 iova,
				       u64 len)
{
	struct sroce_fw_mr *mw = sroce_fw_mr_state(fw, key);

	if (!mw || !sroce_fw_is_mw(mw->type))
		return sroce_fw_region_check(mw, key, pdn, access, iova, len);
	if (!(access & (SROCE_ACCESS_REMOTE_WRITE | SROCE_ACCESS_REMOTE_READ |
			SROCE_ACCESS_REMOTE_ATOMIC)) ||
	    !sroce_fw_mr_allows(mw, key, pdn, access, iova, len) ||
	    (mw->type == SROCE_FW_MW_TYPE2 && mw->mw_qpn != qpn))
		return NULL;
	return sroce_fw_region_get(fw, mw->mw_mr_key, pdn, 0, iova, len);
}

/**
 * sroce_fw_region_whole() - find the region a key names, for an access to
 * all of its range
 * @fw: the function
 * @key: rkey from a packet
 * @pdn: protection domain of the QP making the access
 * @access: SROCE_ACCESS_* rights the access needs
 *
 * For an RDMA FLUSH of a whole region, which names no range. Windows
 * are not found: they carry no FLUSH rights.
 *
 * Context: caller holds rcu_read_lock() for as long as it uses the region.
 * Return: the state checked, or NULL.
 */
struct sroce_fw_mr *sroce_fw_region_whole(struct sroce_fw_dev *fw, u32 key,
					  u32 pdn, u32 access)
{
	struct sroce_fw_mr *mr = sroce_fw_mr_state(fw, key);

	return mr ? sroce_fw_region_check(mr, key, pdn, access, mr->iova,
					  mr->length) : NULL;
}

/**
 * sroce_fw_fast_reg() - execute a fast-registration work request
 * @fw: the function
 * @qp: the QP that posted it (kernel QPs only)
 * @wr: the private copy of the request
 *
 * The region must be invalid (IBA 10.6.3.5: registered only from the
 * free state). Its page list is copied now into a new state, which is
 * published whole; the consumer may reuse the list once the WQE
 * completes.
 *
 * Context: BHs off (the transmit path).
 * Return: IB_WC_SUCCESS, or IB_WC_LOC_QP_OP_ERR (also when no memory is
 * left for the state).
 */
u32 sroce_fw_fast_reg(struct sroce_fw_dev *fw, struct sroce_fw_qp *qp,
		      const struct sroce_fast_reg_wr *wr)
{
	u32 key = le32_to_cpu(wr->key), access = le32_to_cpu(wr->access);
	u32 npages = le32_to_cpu(wr->npages), status = IB_WC_LOC_QP_OP_ERR, i;
	u64 iova = le64_to_cpu(wr->iova), length = le64_to_cpu(wr->length);
	u8 shift = wr->page_shift;
	struct sroce_fw_mr *mr = NULL;
	struct sroce_fw_mkey *k;

	if (qp->flags & SROCE_QP_F_USER)
		return IB_WC_LOC_QP_OP_ERR;
	/* The range must lie in the pages: at least one, for any offset. */
	if (!sroce_fw_mr_access_ok(access) || !npages ||
	    shift < SROCE_FW_FAST_REG_MIN_SHIFT ||
	    shift > SROCE_FW_FAST_REG_MAX_SHIFT ||
	    length > ((u64)npages << shift) - (iova & (BIT_ULL(shift) - 1)) ||
	    iova + length < iova)
		return IB_WC_LOC_QP_OP_ERR;

	rcu_read_lock();
	k = xa_load(&fw->mrs, key >> 8);
	if (!k || k->type != SROCE_MR_FAST || k->pdn != qp->pdn ||
	    npages > k->max_pages)
		goto out_unlock_rcu;
	mr = kmalloc(struct_size(mr, fast_pages, npages), GFP_ATOMIC);
	if (!mr)
		goto out_unlock_rcu;
	mr->key = key;
	mr->type = SROCE_MR_FAST;
	mr->page_shift = shift;
	mr->pdn = k->pdn;
	mr->access = access;
	mr->iova = iova;
	mr->length = length;
	mr->page_offset = iova & (BIT_ULL(shift) - 1);
	mr->npages = npages;
	mr->pages = NULL;
	mr->mw_mr_key = 0;
	mr->mw_qpn = 0;
	mr->odp = NULL;
	for (i = 0; i < npages; i++)
		mr->fast_pages[i] = le64_to_cpu(READ_ONCE(k->fast_list[i]));

	spin_lock_bh(&fw->mr_lock);
	if (!rcu_access_pointer(k->cur)) {
		k->key = key;
		rcu_assign_pointer(k->cur, mr);
		mr = NULL;
		status = IB_WC_SUCCESS;
	}
	spin_unlock_bh(&fw->mr_lock);
out_unlock_rcu:
	rcu_read_unlock();
	kfree(mr);
	return status;
}

/**
 * sroce_fw_invalidate() - invalidate a fast-registration region or a type
 * 2 window
 * @fw: the function
 * @pdn: protection domain of the QP asking
 * @qpn: the QP asking
 * @key: the key to invalidate, exactly as it was registered or bound
 * @remote: a SEND with invalidate from the peer (a type 2 window must be
 *	    bound to @qpn)
 *
 * Invalidating what is already invalid succeeds. The state it had stays
 * readable by accesses already past their lookup.
 *
 * Context: BHs off or softirq (the transmit and receive paths).
 * Return: 0, or -EINVAL if @key names nothing that can be invalidated
 * from this QP.
 */
int sroce_fw_invalidate(struct sroce_fw_dev *fw, u32 pdn, u32 qpn, u32 key,
			bool remote)
{
	struct sroce_fw_mr *old = NULL;
	struct sroce_fw_mkey *k;
	int err = -EINVAL;

	rcu_read_lock();
	k = xa_load(&fw->mrs, key >> 8);
	if (!k || (k->type != SROCE_MR_FAST &&
		   k->type != SROCE_FW_MW_TYPE2))
		goto out_unlock_rcu;
	spin_lock_bh(&fw->mr_lock);
	old = rcu_dereference_protected(k->cur,
					lockdep_is_held(&fw->mr_lock));
	if (k->key != key || k->pdn != pdn ||
	    (remote && k->type == SROCE_FW_MW_TYPE2 && old &&
	     old->mw_qpn != qpn)) {
		old = NULL;
	} else {
		RCU_INIT_POINTER(k->cur, NULL);
		err = 0;
	}
	spin_unlock_bh(&fw->mr_lock);
	if (old)
		kfree_rcu(old, rcu);
out_unlock_rcu:
	rcu_read_unlock();
	return err;
}

/**
 * sroce_fw_page_copy() - copy between part of a page and a kernel buffer
 * @page: the page
 * @in_page: offset in it
 * @buf: kernel buffer
 * @n: bytes, at most PAGE_SIZE - @in_page
 * @to_mr: true to write into the page, false to read from it
 *
 * Context: any; does not sleep.
 */
void sroce_fw_page_copy(struct page *page, u32 in_page, void *buf, u32 n,
			bool to_mr)
{
	void *va = kmap_local_page(page);

	if (to_mr)
		memcpy(va + in_page, buf, n);
	else
		memcpy(buf, va + in_page, n);
	kunmap_local(va);
}

/**
 * sroce_fw_mr_copy() - copy between a region and a kernel buffer
 * @fw: the function
 * @mr: the state sroce_fw_mr_lookup() returned for this very range
 * @iova: first byte of the region to access
 * @buf: kernel buffer
 * @len: bytes to copy
 * @to_mr: true to write into the region, false to read from it
 *
 * The page indexes stay within @mr's table: its registration checked that
 * its range lies in its pages, and the lookup that the access lies in its
 * range. Only an on-demand paging region can fail, copying nothing.
 *
 * Context: under rcu_read_lock(); does not sleep.
 * Return: 0; for an on-demand paging region also -EAGAIN (a page is
 * absent, a fault is raised) or -EFAULT (a page could not be faulted).
 */
int sroce_fw_mr_copy(struct sroce_fw_dev *fw, const struct sroce_fw_mr *mr,
		     u64 iova, void *buf, u64 len, bool to_mr)
{
	u64 page_size = BIT_ULL(mr->page_shift);
	u64 off = iova - mr->iova + mr->page_offset;

	if (!len)
		return 0;
	if (mr->type == SROCE_MR_ODP)
		return sroce_fw_odp_copy(fw, mr, iova, buf, len, to_mr);
	if (mr->type == SROCE_MR_DMA) {
		void *va = (void *)(uintptr_t)iova;

		if (to_mr)
			memcpy(va, buf, len);
		else
			memcpy(buf, va, len);
		return 0;
	}

	while (len) {
		u64 in_page = off & (page_size - 1);
		u32 n = min_t(u64, len, min_t(u64, page_size - in_page,
					      PAGE_SIZE));
		void *va;

		if (mr->type == SROCE_MR_FAST) {
			/* Kernel virtual addresses: the device's DMA space. */
			va = (void *)(uintptr_t)
			     (mr->fast_pages[off >> mr->page_shift] + in_page);
			if (to_mr)
				memcpy(va, buf, n);
			else
				memcpy(buf, va, n);
		} else {
			sroce_fw_page_copy(mr->pages[off >> PAGE_SHIFT], in_page,
					   buf, n, to_mr);
		}
		buf += n;
		off += n;
		len -= n;
	}
	return 0;
}

/**
 * sroce_fw_mr_store_u64() - write one naturally aligned 64-bit word at once
 * @fw: the function
 * @mr: the state sroce_fw_mr_lookup() returned for these 8 bytes
 * @iova: address of the word (a multiple of 8: it is within one page)
 * @val: the bytes to store, in memory order
 *
 * Context: under rcu_read_lock(); does not sleep.
 * Return: 0, or as sroce_fw_mr_copy() for an on-demand paging region.
 */
int sroce_fw_mr_store_u64(struct sroce_fw_dev *fw,
			  const struct sroce_fw_mr *mr, u64 iova, u64 val)
{
	u64 off = iova - mr->iova + mr->page_offset;
	void *va;

	switch (mr->type) {
	case SROCE_MR_DMA:
		WRITE_ONCE(*(u64 *)(uintptr_t)iova, val);
		return 0;
	case SROCE_MR_FAST:
		va = (void *)(uintptr_t)
		     (mr->fast_pages[off >> mr->page_shift] +
		      (off & (BIT_ULL(mr->page_shift) - 1)));
		WRITE_ONCE(*(u64 *)va, val);
		return 0;
	case SROCE_MR_ODP:
		return sroce_fw_odp_store_u64(fw, mr, iova, val);
	default:
		va = kmap_local_page(mr->pages[off >> PAGE_SHIFT]);
		WRITE_ONCE(*(u64 *)(va + (off & ~PAGE_MASK)), val);
		kunmap_local(va);
		return 0;
	}
}

/**
 * sroce_fw_sge_copy() - copy between a buffer and a list of local SGEs
 * @fw: the function
 * @pdn: protection domain the keys must belong to
 * @sge: the SGEs (a validated private copy)
 * @num_sge: entries in @sge
 * @off: bytes into the SGE list where the copy starts
 * @buf: kernel buffer
 * @len: bytes to copy
 * @to_mr: true to write into the SGEs (needs local write), false to read
 *
 * Context: any; takes rcu_read_lock() itself.
 * Return: 0; -EACCES for a bad key, right or range; -EINVAL if the SGEs
 * hold fewer than @off + @len bytes; -EAGAIN (a fault is raised: retry
 * the whole copy later) or -EFAULT for on-demand paging regions, as
 * sroce_fw_mr_copy().
 */
int sroce_fw_sge_copy(struct sroce_fw_dev *fw, u32 pdn,
		      const struct rxe_sge *sge, u32 num_sge, u64 off,
		      void *buf, u64 len, bool to_mr)
{
	u32 access = to_mr ? SROCE_ACCESS_LOCAL_WRITE : 0;
	struct sroce_fw_mr *mr;
	int err = 0;
	u32 i;

	rcu_read_lock();
	for (i = 0; i < num_sge && len; i++, sge++) {
		u64 n;

		if (off >= sge->length) {
			off -= sge->length;
			continue;
		}
		n = min_t(u64, len, sge->length - off);
		mr = sroce_fw_region_get(fw, sge->lkey, pdn, access,
					 sge->addr + off, n);
		if (!mr) {
			err = -EACCES;
			break;
		}
		err = sroce_fw_mr_copy(fw, mr, sge->addr + off, buf, n, to_mr);
		if (err)
			break;
		buf += n;
		len -= n;
		off = 0;
	}
	rcu_read_unlock();
	return err ? err : (len ? -EINVAL : 0);
}

/**
 * sroce_fw_mrs_destroy() - free every region and window left at detach
 * @fw: the function
 */
void sroce_fw_mrs_destroy(struct sroce_fw_dev *fw)
{
	struct sroce_fw_mkey *k;
	unsigned long index;

	/* The QPs are gone: no new reader comes, wait for the last ones. */
	synchronize_rcu();
	xa_for_each(&fw->mrs, index, k) {
		xa_erase(&fw->mrs, index);
		sroce_fw_mkey_free(fw, k);
	}
	/* An index still reserved would be a deferred end that was lost. */
	WARN_ON_ONCE(!xa_empty(&fw->mrs));
	xa_destroy(&fw->mrs);
}
