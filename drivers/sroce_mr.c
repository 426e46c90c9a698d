// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * sroce memory regions, driver side: pinning user memory (ib_umem, which
 * also charges RLIMIT_MEMLOCK), building the page table the firmware
 * reads, and the DMA region kernel consumers use.
 */
#include <linux/mm.h>
#include <linux/slab.h>
#include <rdma/ib_umem.h>

#include "sroce.h"

static_assert(SROCE_ACCESS_LOCAL_WRITE == IB_ACCESS_LOCAL_WRITE);
static_assert(SROCE_ACCESS_REMOTE_WRITE == IB_ACCESS_REMOTE_WRITE);
static_assert(SROCE_ACCESS_REMOTE_READ == IB_ACCESS_REMOTE_READ);
static_assert(SROCE_ACCESS_REMOTE_ATOMIC == IB_ACCESS_REMOTE_ATOMIC);
static_assert(SROCE_ACCESS_MW_BIND == IB_ACCESS_MW_BIND);

/* Access flags the firmware does not need to know about. */
#define SROCE_ACCESS_IGNORED	(IB_ACCESS_RELAXED_ORDERING)

static int sroce_mr_register(struct sroce_dev *sdev, struct sroce_mr *mr,
			     struct sroce_reg_mr_req *req)
{
	struct sroce_reg_mr_resp resp;
	int err;

	req->pdn = cpu_to_le32(to_spd(mr->ibmr.pd)->pdn);
	err = sroce_cmd_exec(sdev, SROCE_CMD_REG_MR, req, sizeof(*req),
			     &resp, sizeof(resp));
	if (err)
		return err;
	mr->ibmr.lkey = le32_to_cpu(resp.lkey);
	mr->ibmr.rkey = le32_to_cpu(resp.rkey);
	return 0;
}

/**
 * sroce_get_dma_mr() - ib_device_ops.get_dma_mr: all of kernel memory
 * @ibpd: the protection domain
 * @access: IB_ACCESS_* rights
 *
 * Return: the region or an ERR_PTR.
 */
struct ib_mr *sroce_get_dma_mr(struct ib_pd *ibpd, int access)
{
	struct sroce_dev *sdev = to_sdev(ibpd->device);
	struct sroce_reg_mr_req req = {
		.length = cpu_to_le64(U64_MAX),
		.access = cpu_to_le32(access & ~SROCE_ACCESS_IGNORED),
		.type = SROCE_MR_DMA,
	};
	struct sroce_mr *mr;
	int err;

	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->ibmr.pd = ibpd;
	err = sroce_mr_register(sdev, mr, &req);
	if (err) {
		kfree(mr);
		return ERR_PTR(err);
	}
	return &mr->ibmr;
}

/* The firmware's page table: one struct page pointer per page. */
static int sroce_mr_build_mtt(struct sroce_mr *mr)
{
	struct sg_page_iter it;
	u32 i = 0;

	mr->npages = ib_umem_num_pages(mr->umem);
	mr->pages = kvcalloc(mr->npages, sizeof(*mr->pages), GFP_KERNEL);
	if (!mr->pages)
		return -ENOMEM;
	for_each_sgtable_page(&mr->umem->sgt_append.sgt, &it, 0) {
		if (WARN_ON_ONCE(i >= mr->npages))
			return -EINVAL;
		mr->pages[i++] = sg_page_iter_page(&it);
	}
	return i == mr->npages ? 0 : -EINVAL;
}

/**
 * sroce_reg_user_mr() - ib_device_ops.reg_user_mr
 * @ibpd: the protection domain
 * @start: user virtual address of the memory
 * @length: size in bytes
 * @iova: address the region is known by on the wire
 * @access: IB_ACCESS_* rights
 * @udata: unused by librxe
 *
 * Return: the region or an ERR_PTR (-EOPNOTSUPP for on-demand paging).
 */
struct ib_mr *sroce_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
				u64 iova, int access, struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibpd->device);
	struct sroce_reg_mr_req req = {
		.iova = cpu_to_le64(iova),
		.length = cpu_to_le64(length),
		.access = cpu_to_le32(access & ~SROCE_ACCESS_IGNORED),
		.type = SROCE_MR_USER,
	};
	struct sroce_mr *mr;
	int err;

	if (access & IB_ACCESS_ON_DEMAND)
		return ERR_PTR(-EOPNOTSUPP);

	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->ibmr.pd = ibpd;
	mr->umem = ib_umem_get(ibpd->device, start, length, access);
	if (IS_ERR(mr->umem)) {
		err = PTR_ERR(mr->umem);
		goto err_free_mr;
	}
	err = sroce_mr_build_mtt(mr);
	if (err)
		goto err_release_umem;

	req.mtt_addr = cpu_to_le64((uintptr_t)mr->pages);
	req.npages = cpu_to_le32(mr->npages);
	req.page_offset = cpu_to_le32(ib_umem_offset(mr->umem));
	err = sroce_mr_register(sdev, mr, &req);
	if (err)
		goto err_release_umem;
	mr->ibmr.iova = iova;
	mr->ibmr.length = length;
	return &mr->ibmr;

err_release_umem:
	kvfree(mr->pages);
	ib_umem_release(mr->umem);
err_free_mr:
	kfree(mr);
	return ERR_PTR(err);
}

/**
 * sroce_dereg_mr() - ib_device_ops.dereg_mr
 * @ibmr: the region
 * @udata: unused
 *
 * The firmware stops using the pages before they are unpinned.
 *
 * Return: 0.
 */
int sroce_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibmr->device);
	struct sroce_mr *mr = to_smr(ibmr);
	struct sroce_dereg_mr_req req = { .key = cpu_to_le32(ibmr->lkey) };
	int err;

	err = sroce_cmd_exec(sdev, SROCE_CMD_DEREG_MR, &req, sizeof(req),
			     NULL, 0);
	if (err) {
		/* Keep the pages pinned: the firmware may still use them. */
		ibdev_err_ratelimited(&sdev->ibdev,
				      "MR %#x: DEREG_MR failed: %d, pages leaked\n",
				      ibmr->lkey, err);
		kfree(mr);
		return 0;
	}
	kvfree(mr->pages);
	if (mr->umem)
		ib_umem_release(mr->umem);
	kfree(mr);
	return 0;
}
