// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * sroce address handles and address vectors, driver side. User AHs live
 * in the firmware (CREATE_AH) and librxe names them by number in its UD
 * WQEs; kernel AHs only keep the address vector, which the driver writes
 * into each kernel UD WQE, so they can be created without sleeping.
 */
#include <linux/if_vlan.h>
#include <rdma/ib_cache.h>

#include "sroce.h"

/**
 * sroce_av_from_ah() - the firmware's address vector for ib_core's
 * @ah: address attributes, with the source GID attribute resolved
 * @av: filled in
 *
 * Return: 0, or -EINVAL for an address without a GRH or source GID.
 */
int sroce_av_from_ah(const struct rdma_ah_attr *ah, struct sroce_av *av)
{
	const struct ib_global_route *grh;
	u16 vlan_id;
	u8 smac[ETH_ALEN];
	int err;

	/* RoCE addresses are always global. */
	if (!(rdma_ah_get_ah_flags(ah) & IB_AH_GRH))
		return -EINVAL;
	grh = rdma_ah_read_grh(ah);
	if (!grh->sgid_attr)
		return -EINVAL;

	switch (rdma_gid_attr_network_type(grh->sgid_attr)) {
	case RDMA_NETWORK_ROCE_V1:
		av->net_type = SROCE_NET_ROCE_V1;
		break;
	case RDMA_NETWORK_IPV4:
		av->net_type = SROCE_NET_IPV4;
		break;
	case RDMA_NETWORK_IPV6:
		av->net_type = SROCE_NET_IPV6;
		break;
	default:
		return -EINVAL;
	}
	err = rdma_read_gid_l2_fields(grh->sgid_attr, &vlan_id, smac);
	if (err)
		return err;
	av->vlan_id = cpu_to_le16(vlan_id < VLAN_N_VID ? vlan_id :
				  SROCE_VLAN_NONE);
	memcpy(av->dgid, grh->dgid.raw, sizeof(av->dgid));
	memcpy(av->dmac, ah->roce.dmac, sizeof(av->dmac));
	av->flow_label = cpu_to_le32(grh->flow_label);
	av->sgid_index = grh->sgid_index;
	av->hop_limit = grh->hop_limit;
	av->traffic_class = grh->traffic_class;
	av->sl = rdma_ah_get_sl(ah);
	return 0;
}

/**
 * sroce_create_ah() - ib_device_ops.create_ah (and create_user_ah)
 * @ibah: the AH allocated by ib_core
 * @init: the address and creation flags
 * @udata: librxe's response buffer (user AHs), NULL for kernel AHs
 *
 * Return: 0 or a negative errno.
 */
int sroce_create_ah(struct ib_ah *ibah, struct rdma_ah_init_attr *init,
		    struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibah->device);
	struct sroce_ah *ah = to_sah(ibah);
	struct sroce_create_ah_req req = {
		.pdn = cpu_to_le32(to_spd(ibah->pd)->pdn),
	};
	struct rxe_create_ah_resp uresp = {};
	struct sroce_ah_num resp;
	int err;

	err = sroce_av_from_ah(init->ah_attr, &ah->av);
	if (err)
		return err;
	if (!udata)
		return 0;

	req.av = ah->av;
	err = sroce_cmd_exec(sdev, SROCE_CMD_CREATE_AH, &req, sizeof(req),
			     &resp, sizeof(resp));
	if (err)
		return err;
	ah->ah_num = le32_to_cpu(resp.ah_num);
	/* Providers older than rdma-core 39 have no room for the number. */
	if (udata->outlen >= sizeof(uresp)) {
		uresp.ah_num = ah->ah_num;
		err = ib_copy_to_udata(udata, &uresp, sizeof(uresp));
		if (err) {
			sroce_destroy_ah(ibah, RDMA_DESTROY_AH_SLEEPABLE);
			return err;
		}
	}
	return 0;
}

/**
 * sroce_destroy_ah() - ib_device_ops.destroy_ah
 * @ibah: the AH
 * @flags: RDMA_DESTROY_AH_SLEEPABLE or 0
 *
 * Return: 0.
 */
int sroce_destroy_ah(struct ib_ah *ibah, u32 flags)
{
	struct sroce_dev *sdev = to_sdev(ibah->device);
	struct sroce_ah *ah = to_sah(ibah);
	struct sroce_ah_num req = { .ah_num = cpu_to_le32(ah->ah_num) };
	int err;

	/* Only user AHs, always destroyed from process context, have one. */
	if (!ah->ah_num)
		return 0;
	err = sroce_cmd_exec(sdev, SROCE_CMD_DESTROY_AH, &req, sizeof(req),
			     NULL, 0);
	if (err)
		ibdev_err_ratelimited(&sdev->ibdev,
				      "AH %u: DESTROY_AH failed: %d\n",
				      ah->ah_num, err);
	return 0;
}
