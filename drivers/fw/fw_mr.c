// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * sroce firmware: memory regions. A region is found by the index in bits
 * 31..8 of its key; bits 7..0 change with every registration so that a
 * stale key of a freed region does not match a new one.
 */
#include <linux/highmem.h>
#include <linux/slab.h>

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
	mr->npages = npages;
	mr->pages = (struct page **)(uintptr_t)le64_to_cpu(q->mtt_addr);

	if (xa_alloc(&fw->mrs, &index, mr, XA_LIMIT(1, SROCE_FW_MAX_MR),
		     GFP_KERNEL)) {
		kfree(mr);
		return SROCE_FW_ERR_NO_RESOURCES;
	}
	mr->key = index << 8 | (fw->mr_key_seq++ & 0xff);
	r->lkey = cpu_to_le32(mr->key);
	r->rkey = cpu_to_le32(mr->key);
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
	u32 key = le32_to_cpu(q->key);
	struct sroce_fw_mr *mr;

	xa_lock(&fw->mrs);
	mr = xa_load(&fw->mrs, key >> 8);
	if (!mr || mr->key != key) {
		xa_unlock(&fw->mrs);
		return SROCE_FW_ERR_NOT_FOUND;
	}
	__xa_erase(&fw->mrs, key >> 8);
	xa_unlock(&fw->mrs);
	/* Readers hold RCU while they copy: wait for them before the driver
	 * unpins the pages.
	 */
	synchronize_rcu();
	kfree(mr);
	return SROCE_FW_OK;
}

/**
 * sroce_fw_mr_lookup() - find the region a key names, for an access
 * @fw: the function
 * @key: lkey or rkey from a WQE or a packet
 * @pdn: protection domain of the QP making the access
 * @access: SROCE_ACCESS_* rights the access needs (0 for a local read)
 * @iova: first byte accessed
 * @len: bytes accessed
 *
 * Context: caller holds rcu_read_lock() for as long as it uses the region.
 * Return: the region, or NULL if the key is unknown or stale, belongs to
 * another PD, lacks a right or does not cover the range.
 */
struct sroce_fw_mr *sroce_fw_mr_lookup(struct sroce_fw_dev *fw, u32 key,
				       u32 pdn, u32 access, u64 iova, u64 len)
{
	struct sroce_fw_mr *mr = xa_load(&fw->mrs, key >> 8);

	if (!mr || mr->key != key || mr->pdn != pdn ||
	    (mr->access & access) != access ||
	    !sroce_range_within(mr->iova, mr->length, iova, len))
		return NULL;
	return mr;
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
	u64 off;

	if (mr->type == SROCE_MR_DMA) {
		void *va = (void *)(uintptr_t)iova;

		if (to_mr)
			memcpy(va, buf, len);
		else
			memcpy(buf, va, len);
		return;
	}

	off = iova - mr->iova + mr->page_offset;
	while (len) {
		struct page *page = mr->pages[off >> PAGE_SHIFT];
		u32 in_page = off & ~PAGE_MASK;
		u32 n = min_t(u64, len, PAGE_SIZE - in_page);
		void *va = kmap_local_page(page);

		if (to_mr)
			memcpy(va + in_page, buf, n);
		else
			memcpy(buf, va + in_page, n);
		kunmap_local(va);
		buf += n;
		off += n;
		len -= n;
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
		mr = sroce_fw_mr_lookup(fw, sge->lkey, pdn, access,
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
 * sroce_fw_mrs_destroy() - free every region left at detach
 * @fw: the function
 */
void sroce_fw_mrs_destroy(struct sroce_fw_dev *fw)
{
	struct sroce_fw_mr *mr;
	unsigned long index;

	xa_for_each(&fw->mrs, index, mr) {
		xa_erase(&fw->mrs, index);
		kfree_rcu(mr, rcu);
	}
	xa_destroy(&fw->mrs);
}
