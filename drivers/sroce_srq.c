// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * sroce shared receive queues, driver side: the receive ring (rdma_rxe
 * layout, mapped for user SRQs), the limit event, kernel posting.
 */
#include <linux/log2.h>
#include <linux/vmalloc.h>

#include "sroce.h"
#include "lib/ring.h"

/**
 * sroce_create_srq() - ib_device_ops.create_srq
 * @ibsrq: the SRQ allocated by ib_core
 * @init: requested size and limit; @init->attr is updated
 * @udata: librxe's response buffer, NULL for kernel SRQs
 *
 * Return: 0 or a negative errno.
 */
int sroce_create_srq(struct ib_srq *ibsrq, struct ib_srq_init_attr *init,
		     struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibsrq->device);
	struct sroce_srq *srq = to_ssrq(ibsrq);
	struct ib_srq_attr *attr = &init->attr;
	struct sroce_create_srq_req req = {};
	struct rxe_create_srq_resp uresp = {};
	struct sroce_srq_num resp;
	size_t size;
	int err;

	if (init->srq_type != IB_SRQT_BASIC)
		return -EOPNOTSUPP;
	if (!attr->max_wr || attr->max_wr > le32_to_cpu(sdev->caps.max_srq_wr) ||
	    attr->max_sge > le32_to_cpu(sdev->caps.max_srq_sge) ||
	    attr->srq_limit > attr->max_wr)
		return -EINVAL;
	if (udata && udata->outlen < sizeof(uresp))
		return -EINVAL;

	srq->is_user = !!udata;
	spin_lock_init(&srq->lock);
	mutex_init(&srq->resize_mutex);
	srq->log2_slots = order_base_2(attr->max_wr + 1);
	srq->log2_elem = order_base_2(sizeof(struct rxe_recv_wqe) +
				      attr->max_sge * sizeof(struct rxe_sge));
	srq->max_sge = attr->max_sge;
	size = sroce_ring_bytes(srq->log2_slots, srq->log2_elem);
	srq->ring = srq->is_user ? vmalloc_user(size) : vzalloc(size);
	if (!srq->ring)
		return -ENOMEM;
	srq->ring->log2_elem_size = srq->log2_elem;
	srq->ring->index_mask = BIT(srq->log2_slots) - 1;

	req.ring_addr = cpu_to_le64((uintptr_t)srq->ring);
	req.pdn = cpu_to_le32(to_spd(ibsrq->pd)->pdn);
	req.limit = cpu_to_le32(attr->srq_limit);
	req.log2_slots = srq->log2_slots;
	req.log2_elem = srq->log2_elem;
	req.max_sge = attr->max_sge;
	err = sroce_cmd_exec(sdev, SROCE_CMD_CREATE_SRQ, &req, sizeof(req),
			     &resp, sizeof(resp));
	if (err)
		goto err_free_ring;
	srq->srqn = le32_to_cpu(resp.srqn);

	if (srq->is_user) {
		srq->mmap = sroce_mmap_publish(sroce_udata_ucontext(udata),
					       srq->ring, size, &uresp.mi);
		if (IS_ERR(srq->mmap)) {
			err = PTR_ERR(srq->mmap);
			srq->mmap = NULL;
			goto err_destroy_srq;
		}
		uresp.srq_num = srq->srqn;
		err = ib_copy_to_udata(udata, &uresp, sizeof(uresp));
		if (err)
			goto err_destroy_srq;
	}
	err = xa_insert_irq(&sdev->srqs, srq->srqn, srq, GFP_KERNEL);
	if (err)
		goto err_destroy_srq;
	attr->max_wr = BIT(srq->log2_slots) - 1;
	return 0;

err_destroy_srq:
	/* The entry, if any, owns the ring and frees it. */
	sroce_ring_free(sdev, srq->mmap, srq->ring,
			sroce_srq_destroy_fw(sdev, srq->srqn) != 0);
	return err;
err_free_ring:
	/* A dead firmware may have created the SRQ after all. */
	sroce_ring_free(sdev, NULL, srq->ring, sroce_cmd_dead(sdev));
	return err;
}

/**
 * sroce_srq_destroy_fw() - tell the firmware to forget an SRQ
 * @sdev: the device
 * @srqn: the SRQ number
 *
 * Return: 0, or the errno of a failed DESTROY_SRQ: the firmware may still
 * read the ring.
 */
int sroce_srq_destroy_fw(struct sroce_dev *sdev, u32 srqn)
{
	struct sroce_srq_num req = { .srqn = cpu_to_le32(srqn) };
	int err;

	err = sroce_cmd_exec(sdev, SROCE_CMD_DESTROY_SRQ, &req, sizeof(req),
			     NULL, 0);
	if (err)
		ibdev_err_ratelimited(&sdev->ibdev,
				      "SRQ %u: DESTROY_SRQ failed: %d\n",
				      srqn, err);
	return err;
}

/*
 * A new ring for at least @max_wr WQEs; the firmware moves the WQEs
 * waiting to it, and arms @limit in the same step if @set_limit (so that
 * a limit the new size cannot take fails the resize, changing nothing).
 * librxe passes in its command where the new ring's mmap cookie goes, and
 * holds its SRQ's lock meanwhile, so no post races the move; kernel
 * posters are refused while the rings are swapped. The cookie is written
 * before the firmware switches: a user who cannot take it leaves the SRQ
 * on its old ring.
 */
static int sroce_srq_resize(struct sroce_srq *srq, u32 max_wr,
			    bool set_limit, u32 limit, struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(srq->ibsrq.device);
	struct sroce_resize_srq_req req = { .srqn = cpu_to_le32(srq->srqn) };
	struct rdma_user_mmap_entry *mmap = NULL;
	struct rxe_modify_srq_cmd ucmd = {};
	struct sroce_ring_hdr *ring;
	struct mminfo mi = {};
	u8 log2_slots;
	size_t size;
	int err;

	if (!max_wr || max_wr > le32_to_cpu(sdev->caps.max_srq_wr))
		return -EINVAL;
	if (srq->is_user) {
		if (!udata || udata->inlen < sizeof(ucmd))
			return -EINVAL;
		err = ib_copy_from_udata(&ucmd, udata, sizeof(ucmd));
		if (err)
			return err;
	}
	log2_slots = order_base_2(max_wr + 1);
	size = sroce_ring_bytes(log2_slots, srq->log2_elem);
	ring = srq->is_user ? vmalloc_user(size) : vzalloc(size);
	if (!ring)
		return -ENOMEM;
	ring->log2_elem_size = srq->log2_elem;
	ring->index_mask = BIT(log2_slots) - 1;
	if (srq->is_user) {
		mmap = sroce_mmap_publish(sroce_udata_ucontext(udata), ring,
					  size, &mi);
		if (IS_ERR(mmap)) {
			vfree(ring);
			return PTR_ERR(mmap);
		}
		if (copy_to_user(u64_to_user_ptr(ucmd.mmap_info_addr), &mi,
				 sizeof(mi))) {
			sroce_ring_free(sdev, mmap, ring, false);
			return -EFAULT;
		}
	}

	req.ring_addr = cpu_to_le64((uintptr_t)ring);
	req.log2_slots = log2_slots;
	if (set_limit) {
		req.flags = SROCE_RESIZE_SRQ_F_LIMIT;
		req.limit = cpu_to_le32(limit);
	}
	spin_lock_irq(&srq->lock);
	srq->resizing = true;
	spin_unlock_irq(&srq->lock);

	err = sroce_cmd_exec(sdev, SROCE_CMD_RESIZE_SRQ, &req, sizeof(req),
			     NULL, 0);

	spin_lock_irq(&srq->lock);
	if (!err) {
		swap(srq->ring, ring);
		swap(srq->mmap, mmap);
		WRITE_ONCE(srq->log2_slots, log2_slots);
		/* The firmware put the WQEs it moved before this index. */
		srq->prod = READ_ONCE(srq->ring->producer_index);
	}
	srq->resizing = false;
	spin_unlock_irq(&srq->lock);

	/*
	 * Whichever ring is not in use now: the old one, or the new on error
	 * (which a dead firmware may have switched to after all).
	 */
	sroce_ring_free(sdev, mmap, ring, err && sroce_cmd_dead(sdev));
	return err;
}

/**
 * sroce_modify_srq() - ib_device_ops.modify_srq
 * @ibsrq: the SRQ
 * @attr: new attributes
 * @mask: IB_SRQ_MAX_WR (resize: the WQEs waiting move to a ring of at
 *	  least @attr->max_wr), IB_SRQ_LIMIT (arm the limit event)
 * @udata: librxe's command (where the new ring's mmap cookie goes)
 *
 * Kernel posts to the SRQ fail with -EBUSY while a resize swaps its rings.
 *
 * Return: 0; -EINVAL for a size out of range or smaller than the WQEs
 * waiting, or a limit above the size; -EOPNOTSUPP for a resize the
 * firmware cannot do; another negative errno.
 */
int sroce_modify_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr,
		     enum ib_srq_attr_mask mask, struct ib_udata *udata)
{
	struct sroce_srq *srq = to_ssrq(ibsrq);
	struct sroce_modify_srq_req req = {
		.srqn = cpu_to_le32(srq->srqn),
		.limit = cpu_to_le32(attr->srq_limit),
	};
	int err;

	if (mask & IB_SRQ_MAX_WR) {
		if (!(to_sdev(ibsrq->device)->caps.caps &
		      cpu_to_le32(SROCE_DEV_CAP_SRQ_RESIZE)))
			return -EOPNOTSUPP;
		mutex_lock(&srq->resize_mutex);
		err = sroce_srq_resize(srq, attr->max_wr, mask & IB_SRQ_LIMIT,
				       attr->srq_limit, udata);
		mutex_unlock(&srq->resize_mutex);
		return err;
	}
	if (!(mask & IB_SRQ_LIMIT))
		return 0;
	return sroce_cmd_exec(to_sdev(ibsrq->device), SROCE_CMD_MODIFY_SRQ,
			      &req, sizeof(req), NULL, 0);
}

/**
 * sroce_query_srq() - ib_device_ops.query_srq
 * @ibsrq: the SRQ
 * @attr: filled in
 *
 * Return: 0 or a negative errno.
 */
int sroce_query_srq(struct ib_srq *ibsrq, struct ib_srq_attr *attr)
{
	struct sroce_srq *srq = to_ssrq(ibsrq);
	struct sroce_srq_num req = { .srqn = cpu_to_le32(srq->srqn) };
	struct sroce_query_srq_resp resp;
	int err;

	err = sroce_cmd_exec(to_sdev(ibsrq->device), SROCE_CMD_QUERY_SRQ,
			     &req, sizeof(req), &resp, sizeof(resp));
	if (err)
		return err;
	attr->max_wr = BIT(READ_ONCE(srq->log2_slots)) - 1;
	attr->max_sge = srq->max_sge;
	attr->srq_limit = le32_to_cpu(resp.limit);
	return 0;
}

/**
 * sroce_destroy_srq() - ib_device_ops.destroy_srq
 * @ibsrq: the SRQ
 * @udata: unused
 *
 * Return: 0.
 */
int sroce_destroy_srq(struct ib_srq *ibsrq, struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibsrq->device);
	struct sroce_srq *srq = to_ssrq(ibsrq);
	int err;

	err = sroce_srq_destroy_fw(sdev, srq->srqn);
	/* After this no event handler can be running for the SRQ. */
	xa_erase_irq(&sdev->srqs, srq->srqn);
	/* The ring stays allocated while the firmware may still read it. */
	sroce_ring_free(sdev, srq->mmap, srq->ring, err != 0);
	return 0;
}

/**
 * sroce_post_srq_recv() - ib_device_ops.post_srq_recv, for kernel SRQs
 * @ibsrq: the SRQ
 * @wr: chain of receive work requests
 * @bad_wr: set to the first request not posted
 *
 * Return: 0, -EINVAL for too many SGEs, -ENOMEM when the ring is full,
 * -EBUSY during a resize.
 */
int sroce_post_srq_recv(struct ib_srq *ibsrq, const struct ib_recv_wr *wr,
			const struct ib_recv_wr **bad_wr)
{
	struct sroce_srq *srq = to_ssrq(ibsrq);
	unsigned long flags;
	int err = 0;

	if (srq->is_user) {
		*bad_wr = wr;
		return -EINVAL;
	}
	spin_lock_irqsave(&srq->lock, flags);
	for (; wr; wr = wr->next) {
		/* The rings are being swapped (a resize): nothing is taken. */
		err = srq->resizing ? -EBUSY :
		      sroce_write_recv_wqe(srq->ring, &srq->prod,
					   BIT(srq->log2_slots) - 1,
					   srq->log2_elem, srq->max_sge, wr);
		if (err)
			break;
	}
	spin_unlock_irqrestore(&srq->lock, flags);
	if (err)
		*bad_wr = wr;
	return err;
}

/**
 * sroce_handle_srq_event() - the SRQ limit was reached
 * @sdev: the device
 * @ev: the event payload
 */
void sroce_handle_srq_event(struct sroce_dev *sdev,
			    const struct sroce_srq_num *ev)
{
	struct sroce_srq *srq;
	unsigned long flags;

	xa_lock_irqsave(&sdev->srqs, flags);
	srq = xa_load(&sdev->srqs, le32_to_cpu(ev->srqn));
	if (srq && srq->ibsrq.event_handler) {
		struct ib_event event = {
			.device = &sdev->ibdev,
			.element.srq = &srq->ibsrq,
			.event = IB_EVENT_SRQ_LIMIT_REACHED,
		};

		srq->ibsrq.event_handler(&event, srq->ibsrq.srq_context);
	}
	xa_unlock_irqrestore(&sdev->srqs, flags);
}
