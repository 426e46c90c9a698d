// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * sroce completion queues, driver side. The ring is allocated here (so it
 * can be mapped to userspace with the rdma_rxe layout) and handed to the
 * firmware, which produces completions into it. Userspace polls user CQs
 * directly; kernel CQs are polled by sroce_poll_cq().
 */
#include <linux/log2.h>
#include <linux/vmalloc.h>
#include <rdma/uverbs_ioctl.h>

#include "sroce.h"
#include "lib/ring.h"

static void sroce_cq_ring_init(struct sroce_ring_hdr *ring,
			       unsigned int log2_slots)
{
	ring->log2_elem_size = SROCE_CQE_LOG2_SIZE;
	ring->index_mask = BIT(log2_slots) - 1;
}

/* Ring size for at least @cqe entries plus the slot that stays free. */
static int sroce_cq_log2_slots(struct sroce_dev *sdev, int cqe,
			       unsigned int *log2_slots)
{
	if (cqe < 1 || cqe > le32_to_cpu(sdev->caps.max_cqe))
		return -EINVAL;
	*log2_slots = order_base_2(cqe + 1);
	return 0;
}

static void *sroce_cq_ring_alloc(bool user, unsigned int log2_slots,
				 size_t *size)
{
	*size = sroce_ring_bytes(log2_slots, SROCE_CQE_LOG2_SIZE);
	return user ? vmalloc_user(*size) : vzalloc(*size);
}

/**
 * sroce_create_cq() - ib_device_ops.create_cq
 * @ibcq: the CQ allocated by ib_core
 * @attr: requested size and completion vector
 * @arg: the udata (6.1) or attribute bundle (6.11+); NULL for kernel CQs
 *
 * Return: 0 or a negative errno.
 */
int sroce_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
		    SROCE_CREATE_CQ_ARG *arg)
{
	struct ib_udata *udata = sroce_create_cq_udata(arg);
	struct sroce_dev *sdev = to_sdev(ibcq->device);
	struct sroce_cq *cq = to_scq(ibcq);
	struct sroce_create_cq_req req = {};
	struct sroce_create_cq_resp resp;
	struct rxe_create_cq_resp uresp = {};
	unsigned int log2_slots;
	size_t size;
	int err;

	if (attr->flags)
		return -EOPNOTSUPP;
	if (attr->comp_vector >= ibcq->device->num_comp_vectors)
		return -EINVAL;
	err = sroce_cq_log2_slots(sdev, attr->cqe, &log2_slots);
	if (err)
		return err;
	if (udata && udata->outlen < sizeof(uresp))
		return -EINVAL;

	spin_lock_init(&cq->poll_lock);
	mutex_init(&cq->resize_mutex);
	cq->is_user = !!udata;
	cq->ring = sroce_cq_ring_alloc(cq->is_user, log2_slots, &size);
	if (!cq->ring)
		return -ENOMEM;
	sroce_cq_ring_init(cq->ring, log2_slots);
	cq->mask = BIT(log2_slots) - 1;

	req.ring_addr = cpu_to_le64((uintptr_t)cq->ring);
	req.log2_slots = cpu_to_le32(log2_slots);
	req.comp_vector = cpu_to_le32(attr->comp_vector);
	err = sroce_cmd_exec(sdev, SROCE_CMD_CREATE_CQ, &req, sizeof(req),
			     &resp, sizeof(resp));
	if (err)
		goto err_free_ring;
	cq->cqn = le32_to_cpu(resp.cqn);

	if (cq->is_user) {
		cq->mmap = sroce_mmap_publish(sroce_udata_ucontext(udata),
					      cq->ring, size, &uresp.mi);
		if (IS_ERR(cq->mmap)) {
			err = PTR_ERR(cq->mmap);
			cq->mmap = NULL;
			goto err_destroy_cq;
		}
		err = ib_copy_to_udata(udata, &uresp, sizeof(uresp));
		if (err)
			goto err_destroy_cq;
	}

	err = xa_insert_bh(&sdev->cqs, cq->cqn, cq, GFP_KERNEL);
	if (err)
		goto err_destroy_cq;
	ibcq->cqe = cq->mask;
	return 0;

err_destroy_cq:
	/* The entry, if any, owns the ring and frees it. */
	sroce_ring_free(sdev, cq->mmap, cq->ring,
			sroce_cq_destroy_fw(sdev, cq->cqn) != 0);
	return err;
err_free_ring:
	/* A dead firmware may have created the CQ after all. */
	sroce_ring_free(sdev, NULL, cq->ring, sroce_cmd_dead(sdev));
	return err;
}

/**
 * sroce_cq_destroy_fw() - tell the firmware to stop using a CQ
 * @sdev: the device
 * @cqn: the CQ number
 *
 * Return: 0, or the errno of a failed DESTROY_CQ: the firmware may still
 * write the ring.
 */
int sroce_cq_destroy_fw(struct sroce_dev *sdev, u32 cqn)
{
	struct sroce_cq_req req = { .cqn = cpu_to_le32(cqn) };
	int err;

	err = sroce_cmd_exec(sdev, SROCE_CMD_DESTROY_CQ, &req, sizeof(req),
			     NULL, 0);
	if (err)
		ibdev_err_ratelimited(&sdev->ibdev,
				      "CQ %u: DESTROY_CQ failed: %d\n", cqn,
				      err);
	return err;
}

/**
 * sroce_destroy_cq() - ib_device_ops.destroy_cq
 * @ibcq: the CQ
 * @udata: user data, unused
 *
 * Return: 0.
 */
int sroce_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibcq->device);
	struct sroce_cq *cq = to_scq(ibcq);
	int err;

	err = sroce_cq_destroy_fw(sdev, cq->cqn);
	/* After this no event handler can be running for the CQ. */
	xa_erase_bh(&sdev->cqs, cq->cqn);
	/* The ring stays allocated while the firmware may still write it. */
	sroce_ring_free(sdev, cq->mmap, cq->ring, err != 0);
	return 0;
}

/* The resize itself; caller holds cq->resize_mutex. */
static int sroce_cq_resize(struct ib_cq *ibcq, int cqe,
			   struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibcq->device);
	struct sroce_cq *cq = to_scq(ibcq);
	struct sroce_resize_cq_req req = { .cqn = cpu_to_le32(cq->cqn) };
	struct rxe_resize_cq_resp uresp = {};
	struct rdma_user_mmap_entry *mmap = NULL;
	struct sroce_ring_hdr *ring;
	unsigned int log2_slots;
	size_t size;
	int err;

	err = sroce_cq_log2_slots(sdev, cqe, &log2_slots);
	if (err)
		return err;
	if (cq->is_user && (!udata || udata->outlen < sizeof(uresp)))
		return -EINVAL;

	ring = sroce_cq_ring_alloc(cq->is_user, log2_slots, &size);
	if (!ring)
		return -ENOMEM;
	sroce_cq_ring_init(ring, log2_slots);
	if (cq->is_user) {
		mmap = sroce_mmap_publish(sroce_udata_ucontext(udata), ring,
					  size, &uresp.mi);
		if (IS_ERR(mmap)) {
			vfree(ring);
			return PTR_ERR(mmap);
		}
		/*
		 * The cookie goes out before the firmware switches rings: a
		 * user who cannot take it leaves the CQ on its old ring,
		 * instead of the firmware writing into a ring freed here.
		 */
		err = ib_copy_to_udata(udata, &uresp, sizeof(uresp));
		if (err) {
			sroce_ring_free(sdev, mmap, ring, false);
			return err;
		}
	}

	req.ring_addr = cpu_to_le64((uintptr_t)ring);
	req.log2_slots = cpu_to_le32(log2_slots);
	/* Kernel pollers see an empty CQ while the rings are swapped. */
	spin_lock_irq(&cq->poll_lock);
	cq->resizing = true;
	spin_unlock_irq(&cq->poll_lock);

	err = sroce_cmd_exec(sdev, SROCE_CMD_RESIZE_CQ, &req, sizeof(req),
			     NULL, 0);

	spin_lock_irq(&cq->poll_lock);
	if (!err) {
		swap(cq->ring, ring);
		swap(cq->mmap, mmap);
		cq->mask = BIT(log2_slots) - 1;
		cq->cons = 0;
		ibcq->cqe = cq->mask;
	}
	cq->resizing = false;
	spin_unlock_irq(&cq->poll_lock);

	/*
	 * Whichever ring is not in use now: the old one, or the new on error
	 * (which a dead firmware may have switched to after all).
	 */
	sroce_ring_free(sdev, mmap, ring, err && sroce_cmd_dead(sdev));
	return err;
}

/**
 * sroce_resize_cq() - ib_device_ops.resize_cq
 * @ibcq: the CQ
 * @cqe: the new minimum number of entries
 * @udata: user data: receives the new ring's mmap cookie (user CQs)
 *
 * Return: 0, -EINVAL if the size is out of range or smaller than the
 * completions waiting, or another negative errno.
 */
int sroce_resize_cq(struct ib_cq *ibcq, int cqe, struct ib_udata *udata)
{
	struct sroce_cq *cq = to_scq(ibcq);
	int err;

	mutex_lock(&cq->resize_mutex);
	err = sroce_cq_resize(ibcq, cqe, udata);
	mutex_unlock(&cq->resize_mutex);
	return err;
}

/*
 * Fill a kernel work completion from a ring slot: the uverbs completion
 * and the extension after it. Kernel CQ rings are the driver's own memory.
 */
static void sroce_wc_from_slot(struct sroce_dev *sdev, struct ib_wc *wc,
			       const void *slot)
{
	const struct ib_uverbs_wc *uwc = slot;
	const struct sroce_cqe_ext *ext = slot + SROCE_CQE_EXT_OFFSET;

	static_assert(sizeof(*uwc) == SROCE_CQE_EXT_OFFSET);
	memset(wc, 0, sizeof(*wc));
	wc->wr_id = uwc->wr_id;
	wc->status = uwc->status;
	wc->opcode = uwc->opcode;
	wc->vendor_err = uwc->vendor_err;
	wc->byte_len = uwc->byte_len;
	wc->ex.imm_data = (__force __be32)uwc->ex.imm_data;
	wc->qp = sroce_ibqp_by_qpn(sdev, uwc->qp_num);
	wc->src_qp = uwc->src_qp;
	wc->wc_flags = (uwc->wc_flags & SROCE_CQE_GRH ? IB_WC_GRH : 0) |
		       (uwc->wc_flags & SROCE_CQE_WITH_IMM ? IB_WC_WITH_IMM : 0) |
		       (uwc->wc_flags & SROCE_CQE_WITH_INV ?
			IB_WC_WITH_INVALIDATE : 0);
	wc->pkey_index = uwc->pkey_index;
	wc->sl = uwc->sl;
	wc->port_num = uwc->port_num;
	if (ext->flags & SROCE_CQE_EXT_VLAN) {
		wc->wc_flags |= IB_WC_WITH_VLAN;
		wc->vlan_id = le16_to_cpu(ext->vlan_id);
	}
	if (ext->flags & SROCE_CQE_EXT_NET_TYPE) {
		wc->wc_flags |= IB_WC_WITH_NETWORK_HDR_TYPE;
		wc->network_hdr_type = ext->network_hdr_type;
		/*
		 * The CQE's sl is the RoCE packet type here, for userspace;
		 * a kernel consumer's reply AH takes its SL from wc->sl
		 * (ib_init_ah_attr_from_wc()): 0, as mlx5 reports untagged.
		 */
		wc->sl = 0;
	}
}

/**
 * sroce_poll_cq() - ib_device_ops.poll_cq, for kernel CQs
 * @ibcq: the CQ
 * @num_entries: room in @wc
 * @wc: completions returned
 *
 * Return: the number of completions returned.
 */
int sroce_poll_cq(struct ib_cq *ibcq, int num_entries, struct ib_wc *wc)
{
	struct sroce_dev *sdev = to_sdev(ibcq->device);
	struct sroce_cq *cq = to_scq(ibcq);
	unsigned long flags;
	u32 prod;
	int n = 0;

	spin_lock_irqsave(&cq->poll_lock, flags);
	if (cq->resizing)
		goto out_unlock;
	/* Acquire: pairs with the firmware's release of each completion. */
	prod = smp_load_acquire(&cq->ring->producer_index) & cq->mask;
	while (n < num_entries && cq->cons != prod) {
		sroce_wc_from_slot(sdev, &wc[n++],
				   sroce_ring_slot(cq->ring, cq->cons, cq->mask,
						   SROCE_CQE_LOG2_SIZE));
		cq->cons = sroce_ring_next(cq->cons, cq->mask);
	}
	/* Release: the slots are free for the firmware once it sees this. */
	smp_store_release(&cq->ring->consumer_index, cq->cons);
out_unlock:
	spin_unlock_irqrestore(&cq->poll_lock, flags);
	return n;
}

/**
 * sroce_req_notify_cq() - ib_device_ops.req_notify_cq
 * @ibcq: the CQ
 * @flags: IB_CQ_SOLICITED or IB_CQ_NEXT_COMP, maybe with
 *         IB_CQ_REPORT_MISSED_EVENTS
 *
 * Return: 0, or 1 if missed events were asked about and completions are
 * already waiting (kernel CQs).
 */
int sroce_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags flags)
{
	struct sroce_dev *sdev = to_sdev(ibcq->device);
	struct sroce_cq *cq = to_scq(ibcq);
	unsigned long irqflags;
	int missed = 0;

	sroce_fw_ring_cq_arm_doorbell(sdev->fw, cq->cqn,
				      (flags & IB_CQ_SOLICITED_MASK) ==
				      IB_CQ_SOLICITED ?
				      SROCE_CQ_ARM_SOLICITED :
				      SROCE_CQ_ARM_NEXT);
	if ((flags & IB_CQ_REPORT_MISSED_EVENTS) && !cq->is_user) {
		spin_lock_irqsave(&cq->poll_lock, irqflags);
		/* Acquire: pairs with the firmware's release. */
		missed = (smp_load_acquire(&cq->ring->producer_index) &
			  cq->mask) != cq->cons;
		spin_unlock_irqrestore(&cq->poll_lock, irqflags);
	}
	return missed;
}

/**
 * sroce_handle_cq_event() - act on a CQ_COMPLETION or CQ_ERROR event
 * @sdev: the device
 * @type: SROCE_EVENT_CQ_COMPLETION or SROCE_EVENT_CQ_ERROR
 * @ev: the event payload
 *
 * Calls the CQ's completion handler, or reports IB_EVENT_CQ_ERR. Runs
 * under the CQ table lock, so destroy_cq cannot free the CQ meanwhile;
 * with BHs off but interrupts on, so that a handler may post or re-arm.
 *
 * Context: softirq (the completion vector, CQ_COMPLETION) or process
 * context (the async event vector, CQ_ERROR).
 */
void sroce_handle_cq_event(struct sroce_dev *sdev, unsigned int type,
			   const struct sroce_event_cq *ev)
{
	struct sroce_cq *cq;

	xa_lock_bh(&sdev->cqs);
	cq = xa_load(&sdev->cqs, le32_to_cpu(ev->cqn));
	if (cq && type == SROCE_EVENT_CQ_COMPLETION &&
	    cq->ibcq.comp_handler) {
		cq->ibcq.comp_handler(&cq->ibcq, cq->ibcq.cq_context);
	} else if (cq && type == SROCE_EVENT_CQ_ERROR &&
		   cq->ibcq.event_handler) {
		struct ib_event event = {
			.device = &sdev->ibdev,
			.element.cq = &cq->ibcq,
			.event = IB_EVENT_CQ_ERR,
		};

		cq->ibcq.event_handler(&event, cq->ibcq.cq_context);
	}
	xa_unlock_bh(&sdev->cqs);
}
