// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * sroce verbs: the ib_device_ops table. Queries and GID programming are
 * firmware commands; the device's identity is that of rdma_rxe so that
 * rdma-core's librxe drives it unmodified.
 */
#include <linux/if_vlan.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_mad.h>
#include <rdma/uverbs_ioctl.h>

#include "sroce.h"

static_assert((int)SROCE_PORT_ACTIVE == (int)IB_PORT_ACTIVE);
static_assert((int)SROCE_PORT_DOWN == (int)IB_PORT_DOWN);
static_assert((int)SROCE_PORT_PHYS_LINK_UP == (int)IB_PORT_PHYS_STATE_LINK_UP);
static_assert((int)SROCE_PORT_PHYS_POLLING == (int)IB_PORT_PHYS_STATE_POLLING);
static_assert((int)SROCE_PORT_PHYS_DISABLED == (int)IB_PORT_PHYS_STATE_DISABLED);
static_assert((int)SROCE_IB_MTU_256 == (int)IB_MTU_256);
static_assert((int)SROCE_IB_MTU_4096 == (int)IB_MTU_4096);
static_assert((int)SROCE_IB_SPEED_SDR == (int)IB_SPEED_SDR);
static_assert((int)SROCE_IB_SPEED_DDR == (int)IB_SPEED_DDR);
static_assert((int)SROCE_IB_SPEED_QDR == (int)IB_SPEED_QDR);
static_assert((int)SROCE_IB_SPEED_FDR10 == (int)IB_SPEED_FDR10);
static_assert((int)SROCE_IB_SPEED_EDR == (int)IB_SPEED_EDR);
static_assert((int)SROCE_IB_SPEED_HDR == (int)IB_SPEED_HDR);
static_assert((int)SROCE_IB_SPEED_NDR == (int)IB_SPEED_NDR);
static_assert((int)SROCE_IB_WIDTH_1X == (int)IB_WIDTH_1X);
static_assert((int)SROCE_IB_WIDTH_4X == (int)IB_WIDTH_4X);
static_assert((int)SROCE_GID_ROCE_V1 == (int)IB_GID_TYPE_ROCE);
static_assert((int)SROCE_GID_ROCE_V2 == (int)IB_GID_TYPE_ROCE_UDP_ENCAP);

/* Largest message the transport will accept, as rdma_rxe reports. */

/**
 * sroce_query_caps() - read the device capabilities from the firmware
 * @sdev: the device
 *
 * Return: 0, -EPROTO if the firmware speaks another interface version, or
 * the command's errno.
 */
int sroce_query_caps(struct sroce_dev *sdev)
{
	struct sroce_query_device_resp *caps = &sdev->caps;
	int err;

	err = sroce_cmd_exec(sdev, SROCE_CMD_QUERY_DEVICE, NULL, 0,
			     caps, sizeof(*caps));
	if (err)
		return err;
	if (le16_to_cpu(caps->abi_major) != SROCE_FW_ABI_MAJOR) {
		pr_err("sroce: firmware interface %u.%u, driver needs %u.x\n",
		       le16_to_cpu(caps->abi_major),
		       le16_to_cpu(caps->abi_minor), SROCE_FW_ABI_MAJOR);
		return -EPROTO;
	}
	memcpy(&sdev->ibdev.node_guid, caps->node_guid,
	       sizeof(sdev->ibdev.node_guid));
	return 0;
}

static int sroce_query_device(struct ib_device *ibdev,
			      struct ib_device_attr *attr,
			      struct ib_udata *udata)
{
	const struct sroce_query_device_resp *c = &to_sdev(ibdev)->caps;

	/*
	 * No driver-specific input or output is defined. The core asks
	 * with no udata at all when it registers the device (7.2).
	 */
	if (udata && (udata->inlen || udata->outlen))
		return -EINVAL;

	memset(attr, 0, sizeof(*attr));
	attr->fw_ver = le64_to_cpu(c->fw_version);
	attr->sys_image_guid = ibdev->node_guid;
	attr->max_mr_size = le64_to_cpu(c->max_mr_size);
	attr->page_size_cap = le64_to_cpu(c->page_size_cap);
	attr->vendor_id = le32_to_cpu(c->vendor_id);
	attr->vendor_part_id = le32_to_cpu(c->vendor_part_id);
	attr->hw_ver = le32_to_cpu(c->hw_version);
	attr->max_qp = le32_to_cpu(c->max_qp);
	attr->max_qp_wr = le32_to_cpu(c->max_qp_wr);
	attr->device_cap_flags = IB_DEVICE_PORT_ACTIVE_EVENT |
				 IB_DEVICE_RC_RNR_NAK_GEN;
	if (le32_to_cpu(c->caps) & SROCE_DEV_CAP_FAST_REG)
		attr->device_cap_flags |= IB_DEVICE_MEM_MGT_EXTENSIONS;
	if (le32_to_cpu(c->caps) & SROCE_DEV_CAP_MW)
		attr->device_cap_flags |= IB_DEVICE_MEM_WINDOW |
					  IB_DEVICE_MEM_WINDOW_TYPE_2B;
	if (le32_to_cpu(c->caps) & SROCE_DEV_CAP_SRQ_RESIZE)
		attr->device_cap_flags |= IB_DEVICE_SRQ_RESIZE;
	if (le32_to_cpu(c->caps) & SROCE_DEV_CAP_FLUSH_GLOBAL)
		attr->device_cap_flags |= SROCE_IB_DEVICE_FLUSH_GLOBAL;
	if (le32_to_cpu(c->caps) & SROCE_DEV_CAP_ATOMIC)
		attr->atomic_cap = IB_ATOMIC_HCA;
	/* `rdma link del` may remove the device. */
	attr->kernel_cap_flags = IBK_ALLOW_USER_UNREG;
	/* On-demand paging: explicit regions, as rdma_rxe offers it. */
	if (IS_ENABLED(CONFIG_INFINIBAND_ON_DEMAND_PAGING) &&
	    (le32_to_cpu(c->caps) & SROCE_DEV_CAP_ODP)) {
		attr->kernel_cap_flags |= IBK_ON_DEMAND_PAGING;
		attr->odp_caps.general_caps = IB_ODP_SUPPORT;
		attr->odp_caps.per_transport_caps.rc_odp_caps =
			IB_ODP_SUPPORT_SEND | IB_ODP_SUPPORT_RECV |
			IB_ODP_SUPPORT_WRITE | IB_ODP_SUPPORT_READ |
			IB_ODP_SUPPORT_ATOMIC | IB_ODP_SUPPORT_SRQ_RECV |
			SROCE_ODP_SUPPORT_FLUSH_ATOMIC_WRITE;
		attr->odp_caps.per_transport_caps.ud_odp_caps =
			IB_ODP_SUPPORT_SEND;
	}
	attr->max_send_sge = le32_to_cpu(c->max_send_sge);
	attr->max_recv_sge = le32_to_cpu(c->max_recv_sge);
	attr->max_sge_rd = le32_to_cpu(c->max_sge_rd);
	attr->max_cq = le32_to_cpu(c->max_cq);
	attr->max_cqe = le32_to_cpu(c->max_cqe);
	attr->max_mr = le32_to_cpu(c->max_mr);
	attr->max_pd = le32_to_cpu(c->max_pd);
	attr->max_qp_rd_atom = le32_to_cpu(c->max_qp_rd_atom);
	attr->max_qp_init_rd_atom = le32_to_cpu(c->max_qp_init_rd_atom);
	attr->max_res_rd_atom = le32_to_cpu(c->max_res_rd_atom);
	attr->max_srq = le32_to_cpu(c->max_srq);
	attr->max_srq_wr = le32_to_cpu(c->max_srq_wr);
	attr->max_srq_sge = le32_to_cpu(c->max_srq_sge);
	attr->max_ah = le32_to_cpu(c->max_ah);
	attr->max_mcast_grp = le32_to_cpu(c->max_mcast_grp);
	attr->max_mcast_qp_attach = le32_to_cpu(c->max_mcast_qp_attach);
	attr->max_total_mcast_qp_attach = attr->max_mcast_grp *
					  attr->max_mcast_qp_attach;
	attr->max_fast_reg_page_list_len =
		le32_to_cpu(c->max_fast_reg_page_list_len);
	attr->max_mw = le32_to_cpu(c->max_mw);
	attr->max_pkeys = le32_to_cpu(c->max_pkeys);
	attr->local_ca_ack_delay = 15;
	return 0;
}

static int sroce_query_port(struct ib_device *ibdev, u32 port,
			    struct ib_port_attr *attr)
{
	struct sroce_dev *sdev = to_sdev(ibdev);
	struct sroce_query_port_req req = { .port = port };
	struct sroce_query_port_resp resp;
	int err;

	err = sroce_cmd_exec(sdev, SROCE_CMD_QUERY_PORT, &req, sizeof(req),
			     &resp, sizeof(resp));
	if (err)
		return err;

	/* ib_core hands us a zeroed attr. */
	attr->state = resp.state;
	attr->phys_state = resp.phys_state;
	attr->max_mtu = resp.max_mtu;
	/* Below 340 bytes nothing fits; 256 is the smallest IB MTU. */
	attr->active_mtu = max_t(u8, resp.active_mtu, IB_MTU_256);
	attr->gid_tbl_len = le32_to_cpu(resp.gid_tbl_len);
	attr->pkey_tbl_len = le32_to_cpu(resp.pkey_tbl_len);
	attr->port_cap_flags = IB_PORT_CM_SUP;
	attr->max_msg_sz = SROCE_FW_MAX_MSG_SIZE;
	attr->max_vl_num = 1;
	attr->ip_gids = true;
	sroce_eth_speed_to_ib(le32_to_cpu(resp.link_speed_mbps),
			      &attr->active_speed, &attr->active_width);
	return 0;
}

static int sroce_get_port_immutable(struct ib_device *ibdev, u32 port,
				    struct ib_port_immutable *immutable)
{
	struct ib_port_attr attr = {};
	int err;

	err = sroce_query_port(ibdev, port, &attr);
	if (err)
		return err;
	/* Both RoCE versions: ib_core adds every address as a v1 and a v2 GID. */
	immutable->core_cap_flags = RDMA_CORE_PORT_IBA_ROCE |
				    RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP;
	immutable->gid_tbl_len = attr.gid_tbl_len;
	immutable->pkey_tbl_len = attr.pkey_tbl_len;
	immutable->max_mad_size = IB_MGMT_MAD_SIZE;
	return 0;
}

static enum rdma_link_layer sroce_get_link_layer(struct ib_device *ibdev,
						 u32 port)
{
	return IB_LINK_LAYER_ETHERNET;
}

static int sroce_query_pkey(struct ib_device *ibdev, u32 port, u16 index,
			    u16 *pkey)
{
	if (index)
		return -EINVAL;
	*pkey = IB_DEFAULT_PKEY_FULL;
	return 0;
}

static void sroce_get_dev_fw_str(struct ib_device *ibdev, char *str)
{
	u64 ver = le64_to_cpu(to_sdev(ibdev)->caps.fw_version);

	snprintf(str, IB_FW_VERSION_NAME_MAX, "%llu.%llu.%llu", ver >> 32,
		 (ver >> 16) & 0xffff, ver & 0xffff);
}

static int sroce_add_gid(const struct ib_gid_attr *attr, void **context)
{
	struct sroce_dev *sdev = to_sdev(attr->device);
	struct sroce_add_gid_req req = {
		.index = cpu_to_le32(attr->index),
		.port = attr->port_num,
		.gid_type = attr->gid_type,
	};
	u16 vlan_id;
	int err;

	if (attr->gid_type != IB_GID_TYPE_ROCE &&
	    attr->gid_type != IB_GID_TYPE_ROCE_UDP_ENCAP)
		return -EINVAL;
	err = rdma_read_gid_l2_fields(attr, &vlan_id, req.smac);
	if (err)
		return err;
	req.vlan_id = cpu_to_le16(vlan_id < VLAN_N_VID ? vlan_id :
				  SROCE_VLAN_NONE);
	memcpy(req.gid, attr->gid.raw, sizeof(req.gid));

	err = sroce_cmd_exec(sdev, SROCE_CMD_ADD_GID, &req, sizeof(req),
			     NULL, 0);
	if (err)
		ibdev_err_ratelimited(&sdev->ibdev,
				      "GID %pI6 index %u: ADD_GID failed: %d\n",
				      attr->gid.raw, attr->index, err);
	return err;
}

static int sroce_del_gid(const struct ib_gid_attr *attr, void **context)
{
	struct sroce_dev *sdev = to_sdev(attr->device);
	struct sroce_gid_index_req req = {
		.index = cpu_to_le32(attr->index),
		.port = attr->port_num,
	};
	int err;

	err = sroce_cmd_exec(sdev, SROCE_CMD_DEL_GID, &req, sizeof(req),
			     NULL, 0);
	if (err)
		ibdev_err_ratelimited(&sdev->ibdev,
				      "GID index %u: DEL_GID failed: %d\n",
				      attr->index, err);
	return err;
}

/**
 * sroce_handle_port_change() - act on a PORT_CHANGE firmware event
 * @sdev: the device
 * @ev: the event payload
 *
 * Tells ib_core (and through it userspace async event listeners) when
 * the port goes up or down.
 */
void sroce_handle_port_change(struct sroce_dev *sdev,
			      const struct sroce_event_port_change *ev)
{
	struct ib_event event = {
		.device = &sdev->ibdev,
		.element.port_num = 1,
	};
	u8 old;

	if (ev->port != 1)
		return;

	spin_lock(&sdev->port_lock);
	old = sdev->port_state;
	sdev->port_state = ev->state;
	spin_unlock(&sdev->port_lock);

	if (old == ev->state)
		return;
	event.event = ev->state == SROCE_PORT_ACTIVE ? IB_EVENT_PORT_ACTIVE :
						       IB_EVENT_PORT_ERR;
	ibdev_info(&sdev->ibdev, "port 1 %s, active MTU %u\n",
		   ev->state == SROCE_PORT_ACTIVE ? "active" : "down",
		   sroce_ib_mtu_bytes(ev->active_mtu));
	ib_dispatch_event(&event);
}

static int sroce_alloc_ucontext(struct ib_ucontext *ibuc,
				struct ib_udata *udata)
{
	return 0;
}

static void sroce_dealloc_ucontext(struct ib_ucontext *ibuc)
{
}

/*
 * The device goes while a process still has it open (rdma link del, its
 * netdev or namespace deleted, module unload): ib_uverbs has destroyed the
 * context's objects and fails every later call with EIO; only mappings are
 * left. Ours map ring pages, never device memory, and each mapping holds
 * its own page references (sroce_mmap()), so the process keeps reading
 * memory that is its own until it unmaps: nothing to revoke. Declaring the
 * op is what lets removal proceed without waiting for the process.
 */
static void sroce_disassociate_ucontext(struct ib_ucontext *ibuc)
{
}

static int sroce_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibpd->device);
	struct sroce_alloc_pd_resp resp;
	int err;

	err = sroce_cmd_exec(sdev, SROCE_CMD_ALLOC_PD, NULL, 0,
			     &resp, sizeof(resp));
	if (err)
		return err;
	to_spd(ibpd)->pdn = le32_to_cpu(resp.pdn);
	return 0;
}

static int sroce_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct sroce_dev *sdev = to_sdev(ibpd->device);
	struct sroce_dealloc_pd_req req = {
		.pdn = cpu_to_le32(to_spd(ibpd)->pdn),
	};
	int err;

	err = sroce_cmd_exec(sdev, SROCE_CMD_DEALLOC_PD, &req, sizeof(req),
			     NULL, 0);
	/* ib_core frees the PD regardless; a failure here is only reported. */
	if (err)
		ibdev_err_ratelimited(&sdev->ibdev,
				      "PD %u: DEALLOC_PD failed: %d\n",
				      to_spd(ibpd)->pdn, err);
	return 0;
}

const struct ib_device_ops sroce_dev_ops = {
	.owner = THIS_MODULE,
	.driver_id = RDMA_DRIVER_RXE,
	.uverbs_abi_ver = SROCE_RXE_UVERBS_ABI_VERSION,

	.add_gid = sroce_add_gid,
	.alloc_hw_port_stats = sroce_alloc_hw_port_stats,
	.advise_mr = sroce_advise_mr,
	.alloc_mr = sroce_alloc_mr,
	.alloc_mw = sroce_alloc_mw,
	.create_ah = sroce_create_ah,
	.create_user_ah = sroce_create_ah,
	.destroy_ah = sroce_destroy_ah,
	.alloc_pd = sroce_alloc_pd,
	.attach_mcast = sroce_attach_mcast,
	.alloc_ucontext = sroce_alloc_ucontext,
	.create_cq = sroce_create_cq,
	.create_qp = sroce_create_qp,
	.create_srq = sroce_create_srq,
	.dealloc_driver = sroce_dealloc_driver,
	.dealloc_mw = sroce_dealloc_mw,
	.dealloc_pd = sroce_dealloc_pd,
	.dealloc_ucontext = sroce_dealloc_ucontext,
	.disassociate_ucontext = sroce_disassociate_ucontext,
	.del_gid = sroce_del_gid,
	.detach_mcast = sroce_detach_mcast,
	.dereg_mr = sroce_dereg_mr,
	.destroy_cq = sroce_destroy_cq,
	.destroy_qp = sroce_destroy_qp,
	.destroy_srq = sroce_destroy_srq,
	.enable_driver = sroce_enable_driver,
	.fill_res_qp_entry = sroce_fill_res_qp_entry,
	.get_dev_fw_str = sroce_get_dev_fw_str,
	.get_dma_mr = sroce_get_dma_mr,
	.get_hw_stats = sroce_get_hw_stats,
	.get_link_layer = sroce_get_link_layer,
	.get_port_immutable = sroce_get_port_immutable,
	.map_mr_sg = sroce_map_mr_sg,
	.mmap = sroce_mmap,
	.mmap_free = sroce_mmap_free,
	.modify_qp = sroce_modify_qp,
	.modify_srq = sroce_modify_srq,
	.poll_cq = sroce_poll_cq,
	.post_recv = sroce_post_recv,
	.post_send = sroce_post_send,
	.port_groups = sroce_port_groups,
	.post_srq_recv = sroce_post_srq_recv,
	.process_mad = sroce_process_mad,
	.query_device = sroce_query_device,
	.query_pkey = sroce_query_pkey,
	.query_port = sroce_query_port,
	.query_qp = sroce_query_qp,
	.query_srq = sroce_query_srq,
	SROCE_OPS_REG_USER_MR,
	SROCE_OPS_REPORT_PORT_EVENT
	.req_notify_cq = sroce_req_notify_cq,
	SROCE_OPS_RESIZE_CQ,

	INIT_RDMA_OBJ_SIZE(ib_ah, sroce_ah, ibah),
	INIT_RDMA_OBJ_SIZE(ib_cq, sroce_cq, ibcq),
	INIT_RDMA_OBJ_SIZE(ib_mw, sroce_mw, ibmw),
	INIT_RDMA_OBJ_SIZE(ib_pd, sroce_pd, ibpd),
	INIT_RDMA_OBJ_SIZE(ib_qp, sroce_qp, ibqp),
	INIT_RDMA_OBJ_SIZE(ib_srq, sroce_srq, ibsrq),
	INIT_RDMA_OBJ_SIZE(ib_ucontext, sroce_ucontext, ibuc),
};
