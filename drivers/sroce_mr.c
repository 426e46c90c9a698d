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

/**
 * sroce_mr_register() - REG_MR: the firmware learns a region
 * @sdev: the device
 * @mr: the region, its PD set; its keys are set on success
 * @req: the request, filled in but for the PD
 *
 * Return: 0 or a negative errno.
 */
int sroce_mr_register(struct sroce_dev *sdev, struct sroce_mr *mr,
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
 * @dmah: a DMA handle (6.17+): sroce has no DMA, so none is accepted
 * @udata: unused by librxe
 *
 * Return: the region or an ERR_PTR (-EOPNOTSUPP for a DMA handle, or for
 * the on-demand paging not offered: implicit, huge pages).
 */
struct ib_mr *sroce_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
				u64 iova, int access, struct ib_dmah *dmah,
				struct ib_udata *udata)
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

	if (dmah)
		return ERR_PTR(-EOPNOTSUPP);

	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->ibmr.pd = ibpd;
	if (access & IB_ACCESS_ON_DEMAND) {
		err = sroce_odp_reg_mr(sdev, mr, start, length, iova, access);
		if (err) {
			/* Quarantined (dead firmware) if mr->odp is left. */
			if (!mr->odp)
				kfree(mr);
			return ERR_PTR(err);
		}
		mr->ibmr.iova = iova;
		mr->ibmr.length = length;
		return &mr->ibmr;
	}
	mr->umem = sroce_umem_get(ibpd->device, start, length, access);
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
		goto err_unregistered;
	mr->ibmr.iova = iova;
	mr->ibmr.length = length;
	return &mr->ibmr;

err_unregistered:
	/* A dead firmware may have registered the pages after all. */
	if (sroce_cmd_dead(sdev)) {
		sroce_quarantine(sdev, NULL, mr);
		return ERR_PTR(err);
	}
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

	if (mr->odp)
		return sroce_odp_dereg_mr(sdev, mr);
	err = sroce_cmd_exec(sdev, SROCE_CMD_DEREG_MR, &req, sizeof(req),
			     NULL, 0);
	if (err) {
		/* Pages stay pinned until detach: the firmware may use them. */
		ibdev_err_ratelimited(&sdev->ibdev,
				      "MR %#x: DEREG_MR failed: %d, pages kept until the device goes\n",
				      ibmr->lkey, err);
		sroce_quarantine(sdev, NULL, mr);
		return 0;
	}
	sroce_mr_free(mr);
	return 0;
}

/**
 * sroce_mr_free() - free a region's page table, pages and context
 * @mr: a region the firmware no longer uses
 */
void sroce_mr_free(struct sroce_mr *mr)
{
	kvfree(mr->pages);
	kfree(mr->page_list);
	/* An on-demand paging umem stops its notifier here. */
	if (mr->umem)
		ib_umem_release(mr->umem);
	sroce_odp_free(mr);
	kfree(mr);
}

/**
 * sroce_alloc_mr() - ib_device_ops.alloc_mr: a fast-registration region
 * @ibpd: the protection domain
 * @type: IB_MR_TYPE_MEM_REG only
 * @max_num_sg: pages the region can map
 *
 * The region is invalid until an IB_WR_REG_MR work request registers the
 * pages map_mr_sg() put in its page list.
 *
 * Return: the region or an ERR_PTR (-EOPNOTSUPP for other types, -EINVAL
 * for more pages than the device's page list holds).
 */
struct ib_mr *sroce_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type type,
			     u32 max_num_sg)
{
	struct sroce_dev *sdev = to_sdev(ibpd->device);
	u32 limit = le32_to_cpu(sdev->caps.max_fast_reg_page_list_len);
	struct sroce_reg_mr_req req = {
		.npages = cpu_to_le32(max_num_sg),
		.type = SROCE_MR_FAST,
	};
	struct sroce_mr *mr;
	int err;

	if (type != IB_MR_TYPE_MEM_REG)
		return ERR_PTR(-EOPNOTSUPP);
	if (!max_num_sg || max_num_sg > limit)
		return ERR_PTR(-EINVAL);
	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->page_list = kcalloc(max_num_sg, sizeof(*mr->page_list),
				GFP_KERNEL);
	if (!mr->page_list) {
		err = -ENOMEM;
		goto err_free_mr;
	}
	mr->max_pages = max_num_sg;
	mr->ibmr.pd = ibpd;
	req.mtt_addr = cpu_to_le64((uintptr_t)mr->page_list);
	err = sroce_mr_register(sdev, mr, &req);
	if (err)
		goto err_unregistered;
	return &mr->ibmr;

err_unregistered:
	/* A dead firmware may have taken the page list after all. */
	if (sroce_cmd_dead(sdev)) {
		sroce_quarantine(sdev, NULL, mr);
		return ERR_PTR(err);
	}
	kfree(mr->page_list);
err_free_mr:
	kfree(mr);
	return ERR_PTR(err);
}

static int sroce_mr_set_page(struct ib_mr *ibmr, u64 addr)
{
	struct sroce_mr *mr = to_smr(ibmr);

	if (mr->npages >= mr->max_pages)
		return -ENOMEM;
	mr->page_list[mr->npages++] = cpu_to_le64(addr);
	return 0;
}

/**
 * sroce_map_mr_sg() - ib_device_ops.map_mr_sg: fill a region's page list
 * @ibmr: a region from sroce_alloc_mr()
 * @sg: the scatterlist, mapped for this device (kernel virtual addresses)
 * @sg_nents: entries in @sg
 * @sg_offset: bytes to skip in the first entry
 *
 * Return: the number of entries mapped (ib_sg_to_pages()).
 */
int sroce_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		    unsigned int *sg_offset)
{
	struct sroce_mr *mr = to_smr(ibmr);

	mr->npages = 0;
	return ib_sg_to_pages(ibmr, sg, sg_nents, sg_offset,
			      sroce_mr_set_page);
}
