// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * sroce firmware: memory windows. A window lives in the region table (its
 * rkey names it like a region's) and, once bound by a bind WQE, grants
 * remote access to part of a region with rights of its own. Type 1
 * windows may be used by any QP of their PD; type 2 windows only by the
 * QP they were bound through, until invalidated (fw_mr.c). Each bind
 * publishes a new immutable state (struct sroce_fw_mr), which remote
 * accesses check and use under RCU.
 */
#include <linux/slab.h>
#include <rdma/ib_verbs.h>

#include "fw.h"

/*
 * Rights a bind may name: the remote ones a window grants, and local
 * write, which consumers pass along and which means nothing for a window.
 * No zero-based windows.
 */
#define SROCE_FW_MW_ACCESS	(SROCE_ACCESS_LOCAL_WRITE | \
				 SROCE_ACCESS_REMOTE_WRITE | \
				 SROCE_ACCESS_REMOTE_READ | \
				 SROCE_ACCESS_REMOTE_ATOMIC)

/**
 * sroce_fw_cmd_alloc_mw() - ALLOC_MW: create an unbound memory window
 * @fw: the function
 * @req: struct sroce_alloc_mw_req
 * @resp: struct sroce_alloc_mw_resp
 *
 * Return: enum sroce_fw_status.
 */
u16 sroce_fw_cmd_alloc_mw(struct sroce_fw_dev *fw, const void *req,
			  void *resp)
{
	const struct sroce_alloc_mw_req *q = req;
	struct sroce_alloc_mw_resp *r = resp;
	struct sroce_fw_mkey *mw;

	if (q->type != 1 && q->type != 2)
		return SROCE_FW_ERR_BAD_PARAM;
	if (!xa_load(&fw->pds, le32_to_cpu(q->pdn)))
		return SROCE_FW_ERR_NOT_FOUND;
	mw = kzalloc(sizeof(*mw), GFP_KERNEL);
	if (!mw)
		return SROCE_FW_ERR_NO_RESOURCES;
	mw->type = q->type == 1 ? SROCE_FW_MW_TYPE1 : SROCE_FW_MW_TYPE2;
	mw->pdn = le32_to_cpu(q->pdn);
	/* Unbound: no state until the first bind. */
	if (sroce_fw_mkey_add(fw, mw, NULL)) {
		kfree(mw);
		return SROCE_FW_ERR_NO_RESOURCES;
	}
	r->rkey = cpu_to_le32(mw->key);
	return SROCE_FW_OK;
}

/**
 * sroce_fw_cmd_dealloc_mw() - DEALLOC_MW: destroy a memory window
 * @fw: the function
 * @req: struct sroce_dealloc_mw_req
 * @resp: unused
 *
 * Return: enum sroce_fw_status; NOT_FOUND if the key names no window.
 */
u16 sroce_fw_cmd_dealloc_mw(struct sroce_fw_dev *fw, const void *req,
			    void *resp)
{
	const struct sroce_dealloc_mw_req *q = req;

	return sroce_fw_mr_erase(fw, le32_to_cpu(q->rkey), true);
}

/*
 * The region a window is bound to: caller holds mr_lock, which keeps a
 * fast-registration region's state current until the window is published,
 * and RCU.
 */
static bool sroce_fw_bind_target_ok(struct sroce_fw_dev *fw,
				    struct sroce_fw_qp *qp, u32 mr_key,
				    u32 access, u64 addr, u64 length)
{
	struct sroce_fw_mkey *k = xa_load(&fw->mrs, mr_key >> 8);
	struct sroce_fw_mr *mr;

	if (!k || k->type == SROCE_FW_MW_TYPE1 || k->type == SROCE_FW_MW_TYPE2)
		return false;
	mr = rcu_dereference(k->cur);
	if (!mr)
		return false;
	/* Granting remote writes or atomics needs local write (10.6.7.2). */
	if ((access & (SROCE_ACCESS_REMOTE_WRITE |
		       SROCE_ACCESS_REMOTE_ATOMIC)) &&
	    !(mr->access & SROCE_ACCESS_LOCAL_WRITE))
		return false;
	return mr->key == mr_key && mr->pdn == qp->pdn &&
	       (mr->access & SROCE_ACCESS_MW_BIND) &&
	       sroce_range_within(mr->iova, mr->length, addr, length);
}

/**
 * sroce_fw_bind_mw() - execute a bind work request
 * @fw: the function
 * @qp: the RC or UC QP that posted it
 * @wqe: the private copy of the WQE
 *
 * The window takes the new rkey (same index, new generation), the range
 * and the rights, as a new state. A type 2 window must be unbound first; a
 * type 1 window is rebound, or unbound by a zero length.
 *
 * Context: BHs off (the transmit path).
 * Return: IB_WC_SUCCESS or IB_WC_MW_BIND_ERR (also when no memory is left
 * for the state).
 */
u32 sroce_fw_bind_mw(struct sroce_fw_dev *fw, struct sroce_fw_qp *qp,
		     const struct rxe_send_wqe *wqe)
{
	u32 mw_key = wqe->wr.wr.mw.mw_rkey, new_key = wqe->wr.wr.mw.rkey;
	u32 access = wqe->wr.wr.mw.access, mr_key = wqe->wr.wr.mw.mr_lkey;
	u64 addr = wqe->wr.wr.mw.addr, length = wqe->wr.wr.mw.length;
	struct sroce_fw_mr *mw = NULL, *old = NULL;
	u32 status = IB_WC_MW_BIND_ERR;
	struct sroce_fw_mkey *k;

	if ((access & ~SROCE_FW_MW_ACCESS) || addr + length < addr ||
	    new_key >> 8 != mw_key >> 8)
		return IB_WC_MW_BIND_ERR;
	rcu_read_lock();
	k = xa_load(&fw->mrs, mw_key >> 8);
	if (!k || (k->type != SROCE_FW_MW_TYPE1 &&
		   k->type != SROCE_FW_MW_TYPE2))
		goto out_unlock_rcu;
	/* A type 1 window unbound by a zero length has no state. */
	if (k->type == SROCE_FW_MW_TYPE2 || length) {
		mw = kzalloc(sizeof(*mw), GFP_ATOMIC);
		if (!mw)
			goto out_unlock_rcu;
		mw->key = new_key;
		mw->type = k->type;
		mw->pdn = k->pdn;
		mw->access = access;
		mw->iova = addr;
		mw->length = length;
		mw->mw_mr_key = mr_key;
		mw->mw_qpn = qp->qpn;
	}
	spin_lock_bh(&fw->mr_lock);
	old = rcu_dereference_protected(k->cur,
					lockdep_is_held(&fw->mr_lock));
	if (k->key != mw_key || k->pdn != qp->pdn ||
	    (k->type == SROCE_FW_MW_TYPE2 && old) ||
	    (mw && !sroce_fw_bind_target_ok(fw, qp, mr_key, access, addr,
					    length))) {
		old = NULL;
	} else {
		k->key = new_key;
		rcu_assign_pointer(k->cur, mw);
		mw = NULL;
		status = IB_WC_SUCCESS;
	}
	spin_unlock_bh(&fw->mr_lock);
	if (old)
		kfree_rcu(old, rcu);
out_unlock_rcu:
	rcu_read_unlock();
	kfree(mw);
	return status;
}
