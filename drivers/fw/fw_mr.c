// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * sroce firmware: memory regions. A region is found by the index in bits
 * 31..8 of its key; bits 7..0 change with every registration so that a
 * stale key of a freed region does not match a new one.
 *
 * User and DMA regions never change after REG_MR. Fast-registration
 * regions are registered and invalidated by work requests and, like
 * memory windows (fw_mw.c), change state in the datapath under mr_lock.
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

static bool sroce_fw_is_mw(const struct sroce_fw_mr *mr)
{
	return mr->type == SROCE_FW_MW_TYPE1 || mr->type == SROCE_FW_MW_TYPE2;
}

static void sroce_fw_mr_free(struct sroce_fw_mr *mr)
{
	kfree(mr->fast_pages);
	kfree(mr);
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
	struct sroce_fw_mr *mr;
	u32 index;

	if (!sroce_fw_mr_access_ok(access))
		return SROCE_FW_ERR_BAD_PARAM;
	switch (q->type) {
	case SROCE_MR_USER:
		if (!q->mtt_addr || page_offset >= PAGE_SIZE ||
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

	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return SROCE_FW_ERR_NO_RESOURCES;
	mr->type = q->type;
	mr->pdn = le32_to_cpu(q->pdn);
	mr->access = access;
	mr->iova = le64_to_cpu(q->iova);
	mr->length = length;
	mr->page_offset = page_offset;
	if (q->type == SROCE_MR_FAST) {
		mr->max_pages = npages;
		mr->fast_list = (const __le64 *)(uintptr_t)
				le64_to_cpu(q->mtt_addr);
		mr->fast_pages = kcalloc(npages, sizeof(*mr->fast_pages),
					 GFP_KERNEL);
		if (!mr->fast_pages)
			goto err_free_mr;
	} else {
		mr->npages = npages;
		mr->pages = (struct page **)(uintptr_t)
			    le64_to_cpu(q->mtt_addr);
		mr->valid = true;
	}

	if (xa_alloc(&fw->mrs, &index, mr, XA_LIMIT(1, SROCE_FW_MAX_MR),
		     GFP_KERNEL))
		goto err_free_mr;
	mr->key = index << 8 | (fw->mr_key_seq++ & 0xff);
	r->lkey = cpu_to_le32(mr->key);
	r->rkey = cpu_to_le32(mr->key);
	return SROCE_FW_OK;

err_free_mr:
	sroce_fw_mr_free(mr);
	return SROCE_FW_ERR_NO_RESOURCES;
}

/**
 * sroce_fw_mr_erase() - take a region or window out of the key table
 * @fw: the function
 * @key: its current key
 * @window: true for a window, false for a region
 *
 * Waits until no reader can still hold it, then frees it.
 *
 * Return: SROCE_FW_OK, or SROCE_FW_ERR_NOT_FOUND if @key names no object
 * of that kind.
 */
u16 sroce_fw_mr_erase(struct sroce_fw_dev *fw, u32 key, bool window)
{
	struct sroce_fw_mr *mr;

	xa_lock(&fw->mrs);
	mr = xa_load(&fw->mrs, key >> 8);
	/* Fast regions and windows are named by their index. */
	if (!mr || sroce_fw_is_mw(mr) != window ||
	    (mr->type != SROCE_MR_FAST && !window && mr->key != key)) {
		xa_unlock(&fw->mrs);
		return SROCE_FW_ERR_NOT_FOUND;
	}
	__xa_erase(&fw->mrs, key >> 8);
	xa_unlock(&fw->mrs);
	/* Readers hold RCU while they copy: wait for them before the driver
	 * unpins or frees the pages.
	 */
	synchronize_rcu();
	sroce_fw_mr_free(mr);
	return SROCE_FW_OK;
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

/* Key, PD, rights and range of a region; caller holds mr_lock if needed. */
static bool sroce_fw_mr_allows(const struct sroce_fw_mr *mr, u32 key,
			       u32 pdn, u32 access, u64 iova, u64 len)
{
	return mr->valid && mr->key == key && mr->pdn == pdn &&
	       (mr->access & access) == access &&
	       sroce_range_within(mr->iova, mr->length, iova, len);
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
 * Context: under rcu_read_lock().
 * Return: the region, or NULL.
 */
struct sroce_fw_mr *sroce_fw_region_get(struct sroce_fw_dev *fw, u32 key,
					u32 pdn, u32 access, u64 iova, u64 len)
{
	struct sroce_fw_mr *mr = xa_load(&fw->mrs, key >> 8);
	bool ok;

	if (!mr || sroce_fw_is_mw(mr))
		return NULL;
	if (mr->type != SROCE_MR_FAST)
		return sroce_fw_mr_allows(mr, key, pdn, access, iova, len) ?
		       mr : NULL;
	spin_lock_bh(&fw->mr_lock);
	ok = sroce_fw_mr_allows(mr, key, pdn, access, iova, len);
	spin_unlock_bh(&fw->mr_lock);
	return ok ? mr : NULL;
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
 * the region when they were bound, and the region must still exist.
 *
 * Context: caller holds rcu_read_lock() for as long as it uses the region.
 * Return: the region to copy through, or NULL if the key is unknown,
 * stale or invalid, belongs to another PD, lacks a right or does not cover
 * the range.
 */
struct sroce_fw_mr *sroce_fw_mr_lookup(struct sroce_fw_dev *fw, u32 key,
				       u32 pdn, u32 qpn, u32 access, u64 iova,
				       u64 len)
{
	struct sroce_fw_mr *mw = xa_load(&fw->mrs, key >> 8);
	u32 mr_key;
	bool ok;

	if (!mw || !sroce_fw_is_mw(mw))
		return sroce_fw_region_get(fw, key, pdn, access, iova, len);
	if (!(access & (SROCE_ACCESS_REMOTE_WRITE | SROCE_ACCESS_REMOTE_READ |
			SROCE_ACCESS_REMOTE_ATOMIC)))
		return NULL;
	spin_lock_bh(&fw->mr_lock);
	ok = sroce_fw_mr_allows(mw, key, pdn, access, iova, len) &&
	     (mw->type == SROCE_FW_MW_TYPE1 || mw->mw_qpn == qpn);
	mr_key = mw->mw_mr_key;
	spin_unlock_bh(&fw->mr_lock);
	if (!ok)
		return NULL;
	return sroce_fw_region_get(fw, mr_key, pdn, 0, iova, len);
}

/**
 * sroce_fw_fast_reg() - execute a fast-registration work request
 * @fw: the function
 * @qp: the QP that posted it (kernel QPs only)
 * @wr: the private copy of the request
 *
 * The region must be invalid (IBA 10.6.3.5: registered only from the
 * free state). Its page list is copied now; the consumer may reuse it
 * once the WQE completes.
 *
 * Return: IB_WC_SUCCESS, or IB_WC_LOC_QP_OP_ERR.
 */
u32 sroce_fw_fast_reg(struct sroce_fw_dev *fw, struct sroce_fw_qp *qp,
		      const struct sroce_fast_reg_wr *wr)
{
	u32 key = le32_to_cpu(wr->key), access = le32_to_cpu(wr->access);
	u32 npages = le32_to_cpu(wr->npages), status = IB_WC_SUCCESS, i;
	u64 iova = le64_to_cpu(wr->iova), length = le64_to_cpu(wr->length);
	u8 shift = wr->page_shift;
	struct sroce_fw_mr *mr;

	if (qp->flags & SROCE_QP_F_USER)
		return IB_WC_LOC_QP_OP_ERR;
	if (!sroce_fw_mr_access_ok(access) ||
	    shift < SROCE_FW_FAST_REG_MIN_SHIFT ||
	    shift > SROCE_FW_FAST_REG_MAX_SHIFT ||
	    length > ((u64)npages << shift) - (iova & (BIT_ULL(shift) - 1)) ||
	    iova + length < iova)
		return IB_WC_LOC_QP_OP_ERR;

	mr = xa_load(&fw->mrs, key >> 8);
	if (!mr || mr->type != SROCE_MR_FAST || mr->pdn != qp->pdn ||
	    npages > mr->max_pages)
		return IB_WC_LOC_QP_OP_ERR;
	spin_lock_bh(&fw->mr_lock);
	if (mr->valid) {
		status = IB_WC_LOC_QP_OP_ERR;
		goto out_unlock;
	}
	for (i = 0; i < npages; i++)
		mr->fast_pages[i] = le64_to_cpu(READ_ONCE(mr->fast_list[i]));
	mr->npages = npages;
	mr->page_shift = shift;
	mr->iova = iova;
	mr->length = length;
	mr->access = access;
	mr->key = key;
	mr->valid = true;
out_unlock:
	spin_unlock_bh(&fw->mr_lock);
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
 * Invalidating what is already invalid succeeds.
 *
 * Return: 0, or -EINVAL if @key names nothing that can be invalidated
 * from this QP.
 */
int sroce_fw_invalidate(struct sroce_fw_dev *fw, u32 pdn, u32 qpn, u32 key,
			bool remote)
{
	struct sroce_fw_mr *mr;
	int err = 0;

	rcu_read_lock();
	mr = xa_load(&fw->mrs, key >> 8);
	if (!mr || (mr->type != SROCE_MR_FAST &&
		    mr->type != SROCE_FW_MW_TYPE2)) {
		err = -EINVAL;
		goto out_unlock_rcu;
	}
	spin_lock_bh(&fw->mr_lock);
	if (mr->key != key || mr->pdn != pdn ||
	    (remote && mr->type == SROCE_FW_MW_TYPE2 && mr->valid &&
	     mr->mw_qpn != qpn))
		err = -EINVAL;
	else
		mr->valid = false;
	spin_unlock_bh(&fw->mr_lock);
out_unlock_rcu:
	rcu_read_unlock();
	return err;
}

/**
 * sroce_fw_mr_copy() - copy between a region and a kernel buffer
 * @mr: the region, from sroce_fw_mr_lookup() for this very range
 * @iova: first byte of the region to access
 * @buf: kernel buffer
 * @len: bytes to copy
 * @to_mr: true to write into the region, false to read from it
 *
 * Context: under rcu_read_lock(); does not sleep.
 */
void sroce_fw_mr_copy(struct sroce_fw_mr *mr, u64 iova, void *buf, u64 len,
		      bool to_mr)
{
	u64 off, page_size = PAGE_SIZE;
	unsigned int shift = PAGE_SHIFT;

	if (mr->type == SROCE_MR_DMA) {
		void *va = (void *)(uintptr_t)iova;

		if (to_mr)
			memcpy(va, buf, len);
		else
			memcpy(buf, va, len);
		return;
	}
	if (mr->type == SROCE_MR_FAST) {
		shift = READ_ONCE(mr->page_shift);
		page_size = BIT_ULL(shift);
		off = iova - mr->iova + (mr->iova & (page_size - 1));
	} else {
		off = iova - mr->iova + mr->page_offset;
	}

	while (len) {
		u64 in_page = off & (page_size - 1);
		u32 n = min_t(u64, len, min_t(u64, page_size - in_page,
					      PAGE_SIZE));
		void *va;

		if (mr->type == SROCE_MR_FAST) {
			/* Kernel virtual addresses: the device's DMA space. */
			va = (void *)(uintptr_t)(mr->fast_pages[off >> shift] +
						 in_page);
			if (to_mr)
				memcpy(va, buf, n);
			else
				memcpy(buf, va, n);
		} else {
			va = kmap_local_page(mr->pages[off >> PAGE_SHIFT]);
			if (to_mr)
				memcpy(va + in_page, buf, n);
			else
				memcpy(buf, va + in_page, n);
			kunmap_local(va);
		}
		buf += n;
		off += n;
		len -= n;
	}
}

/**
 * sroce_fw_mr_store_u64() - write one naturally aligned 64-bit word at once
 * @mr: the region, from sroce_fw_mr_lookup() for these 8 bytes
 * @iova: address of the word (a multiple of 8: it is within one page)
 * @val: the bytes to store, in memory order
 *
 * Context: under rcu_read_lock(); does not sleep.
 */
void sroce_fw_mr_store_u64(struct sroce_fw_mr *mr, u64 iova, u64 val)
{
	unsigned int shift;
	u64 off;
	void *va;

	switch (mr->type) {
	case SROCE_MR_DMA:
		WRITE_ONCE(*(u64 *)(uintptr_t)iova, val);
		return;
	case SROCE_MR_FAST:
		shift = READ_ONCE(mr->page_shift);
		off = iova - mr->iova + (mr->iova & (BIT_ULL(shift) - 1));
		va = (void *)(uintptr_t)(mr->fast_pages[off >> shift] +
					 (off & (BIT_ULL(shift) - 1)));
		WRITE_ONCE(*(u64 *)va, val);
		return;
	default:
		off = iova - mr->iova + mr->page_offset;
		va = kmap_local_page(mr->pages[off >> PAGE_SHIFT]);
		WRITE_ONCE(*(u64 *)(va + (off & ~PAGE_MASK)), val);
		kunmap_local(va);
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
 * hold fewer than @off + @len bytes.
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
		sroce_fw_mr_copy(mr, sge->addr + off, buf, n, to_mr);
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
	struct sroce_fw_mr *mr;
	unsigned long index;

	/* The QPs are gone: no new reader comes, wait for the last ones. */
	synchronize_rcu();
	xa_for_each(&fw->mrs, index, mr) {
		xa_erase(&fw->mrs, index);
		sroce_fw_mr_free(mr);
	}
	xa_destroy(&fw->mrs);
}
