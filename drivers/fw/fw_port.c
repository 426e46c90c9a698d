// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * sroce firmware: the port. The Ethernet device stands in for the PHY, so
 * the firmware watches its carrier, admin state, MTU, MAC and speed, and
 * tells the driver about changes with PORT_CHANGE events. Also answers
 * the device and port queries.
 */
#include <linux/ethtool.h>
#include <linux/etherdevice.h>
#include <linux/rtnetlink.h>

#include "fw.h"

/* Functions with armed events, walked by the notifier; protected by RTNL. */
static LIST_HEAD(sroce_fw_devs);

/*
 * The link speed, from ethtool. Not from the netdev notifier: since 6.15
 * the core calls it with the device's instance lock held for devices
 * whose ops take it (dummy, for one), and ethtool takes that lock again.
 * Caller holds RTNL, in process context.
 */
static void sroce_fw_port_sample_speed(struct sroce_fw_dev *fw)
{
	struct ethtool_link_ksettings ks;
	bool changed;
	u32 speed = 0;

	ASSERT_RTNL();
	if (!__ethtool_get_link_ksettings(fw->ndev, &ks) &&
	    ks.base.speed != SPEED_UNKNOWN)
		speed = ks.base.speed;
	spin_lock(&fw->port.lock);
	changed = fw->port.speed_mbps != speed;
	WRITE_ONCE(fw->port.speed_mbps, speed);
	spin_unlock(&fw->port.lock);
	/* The reaction point's maximum rate follows the link's. */
	if (changed)
		sroce_fw_cc_speed_changed(fw);
}

/* A PHY change seen by the notifier: the speed is sampled from here. */
static void sroce_fw_port_speed_work(struct work_struct *work)
{
	struct sroce_fw_dev *fw = container_of(work, struct sroce_fw_dev,
					       speed_work);

	rtnl_lock();
	sroce_fw_port_sample_speed(fw);
	rtnl_unlock();
	/* The computed PFC thresholds follow the MTU and speed just sampled. */
	sroce_fw_pfc_link_changed(fw);
}

/*
 * State, MTU and MAC, which the notifier may read. Caller holds RTNL.
 * Return: true if the state seen by the driver changed.
 */
static bool sroce_fw_port_sample(struct sroce_fw_dev *fw)
{
	struct net_device *ndev = fw->ndev;
	struct sroce_fw_port *port = &fw->port;
	bool up = netif_running(ndev) && netif_carrier_ok(ndev);
	u8 state = up ? SROCE_PORT_ACTIVE : SROCE_PORT_DOWN;
	u32 mtu = READ_ONCE(ndev->mtu);
	bool changed;

	ASSERT_RTNL();
	spin_lock(&port->lock);
	changed = port->state != state || port->netdev_mtu != mtu;
	port->state = state;
	if (up)
		port->phys_state = SROCE_PORT_PHYS_LINK_UP;
	else if (netif_running(ndev))
		port->phys_state = SROCE_PORT_PHYS_POLLING;
	else
		port->phys_state = SROCE_PORT_PHYS_DISABLED;
	port->netdev_mtu = mtu;
	port->active_mtu = sroce_active_ib_mtu(mtu);
	ether_addr_copy(port->mac, ndev->dev_addr);
	spin_unlock(&port->lock);
	return changed;
}

static void sroce_fw_port_report(struct sroce_fw_dev *fw)
{
	struct sroce_event_port_change ev = { .port = 1 };

	spin_lock(&fw->port.lock);
	ev.state = fw->port.state;
	ev.active_mtu = fw->port.active_mtu;
	ev.netdev_mtu = cpu_to_le32(fw->port.netdev_mtu);
	spin_unlock(&fw->port.lock);
	/* A change not yet delivered is replaced by this newer state. */
	sroce_fw_post_event(fw, &fw->port_ev, &ev, sizeof(ev));
}

static int sroce_fw_netdev_event(struct notifier_block *nb,
				 unsigned long event, void *ptr)
{
	struct net_device *ndev = netdev_notifier_info_to_dev(ptr);
	struct sroce_fw_dev *fw;

	switch (event) {
	case NETDEV_UP:
	case NETDEV_DOWN:
	case NETDEV_CHANGE:
	case NETDEV_CHANGEMTU:
	case NETDEV_CHANGEADDR:
		break;
	default:
		return NOTIFY_DONE;
	}

	list_for_each_entry(fw, &sroce_fw_devs, node) {
		if (fw->ndev != ndev)
			continue;
		if (sroce_fw_port_sample(fw))
			sroce_fw_port_report(fw);
		queue_work(sroce_fw_wq, &fw->speed_work);
	}
	return NOTIFY_DONE;
}

static struct notifier_block sroce_fw_netdev_nb = {
	.notifier_call = sroce_fw_netdev_event,
};

/**
 * sroce_fw_port_attach() - sample the PHY of a new function
 * @fw: the function, with @fw->ndev set
 *
 * No event is posted: the driver queries the initial state.
 */
void sroce_fw_port_attach(struct sroce_fw_dev *fw)
{
	spin_lock_init(&fw->port.lock);
	INIT_LIST_HEAD(&fw->node);
	INIT_WORK(&fw->speed_work, sroce_fw_port_speed_work);
	rtnl_lock();
	sroce_fw_port_sample(fw);
	sroce_fw_port_sample_speed(fw);
	rtnl_unlock();
}

/**
 * sroce_fw_port_arm() - start reporting PHY changes of a function
 * @fw: the function
 *
 * A change since the last sample is reported at once, so the driver never
 * misses a transition that happened before it armed the events.
 */
void sroce_fw_port_arm(struct sroce_fw_dev *fw)
{
	rtnl_lock();
	if (list_empty(&fw->node)) {
		list_add_rcu(&fw->node, &sroce_fw_devs);
		if (sroce_fw_port_sample(fw))
			sroce_fw_port_report(fw);
		sroce_fw_port_sample_speed(fw);
	}
	rtnl_unlock();
}

/**
 * sroce_fw_port_detach() - stop tracking the PHY of a function
 * @fw: the function
 *
 * No PORT_CHANGE event is posted for @fw after return.
 */
void sroce_fw_port_detach(struct sroce_fw_dev *fw)
{
	rtnl_lock();
	if (!list_empty(&fw->node))
		list_del_rcu(&fw->node);
	rtnl_unlock();
	/* Off the list: nothing queues it again. */
	cancel_work_sync(&fw->speed_work);
	/* The receive path may still be looking at this function. */
	synchronize_rcu();
}

/**
 * sroce_fw_port_pause_rx() - a pause frame arrived on a netdev
 * @ndev: the netdev (not a VLAN: pause frames are untagged)
 * @pause: what it asks
 *
 * Every function whose PHY @ndev is, directly or under a VLAN, obeys it.
 *
 * Context: softirq, RCU read side.
 */
void sroce_fw_port_pause_rx(const struct net_device *ndev,
			    const struct sroce_pause *pause)
{
	struct sroce_fw_dev *fw;

	list_for_each_entry_rcu(fw, &sroce_fw_devs, node)
		if (sroce_fw_phys_dev(fw->ndev) == ndev)
			sroce_fw_pfc_rx(fw, pause);
}

/**
 * sroce_fw_port_init() - start watching netdev events
 *
 * Return: 0 or a negative errno.
 */
int sroce_fw_port_init(void)
{
	return register_netdevice_notifier(&sroce_fw_netdev_nb);
}

/**
 * sroce_fw_port_exit() - stop watching netdev events
 */
void sroce_fw_port_exit(void)
{
	unregister_netdevice_notifier(&sroce_fw_netdev_nb);
}

/**
 * sroce_fw_cmd_query_device() - QUERY_DEVICE: capabilities and limits
 * @fw: the function
 * @req: unused (no request payload)
 * @resp: struct sroce_query_device_resp
 *
 * Object limits are those of what this firmware implements today; a zero
 * means the object type is not available yet.
 *
 * Return: enum sroce_fw_status.
 */
u16 sroce_fw_cmd_query_device(struct sroce_fw_dev *fw, const void *req,
			      void *resp)
{
	struct sroce_query_device_resp *r = resp;
	u8 mac[ETH_ALEN];

	spin_lock(&fw->port.lock);
	ether_addr_copy(mac, fw->port.mac);
	spin_unlock(&fw->port.lock);

	r->abi_major = cpu_to_le16(SROCE_FW_ABI_MAJOR);
	r->abi_minor = cpu_to_le16(SROCE_FW_ABI_MINOR);
	r->caps = cpu_to_le32(SROCE_DEV_CAP_ROCE_V1 | SROCE_DEV_CAP_ROCE_V2 |
			      SROCE_DEV_CAP_ATOMIC | SROCE_DEV_CAP_FAST_REG |
			      SROCE_DEV_CAP_MW | SROCE_DEV_CAP_SRQ_RESIZE |
			      SROCE_DEV_CAP_FLUSH_GLOBAL | SROCE_DEV_CAP_ODP);
	r->fw_version = cpu_to_le64((u64)SROCE_FW_VERSION_MAJOR << 32 |
				    SROCE_FW_VERSION_MINOR << 16 |
				    SROCE_FW_VERSION_PATCH);
	sroce_guid_from_mac(mac, r->node_guid);
	r->page_size_cap = cpu_to_le64(PAGE_SIZE);
	r->vendor_id = cpu_to_le32(SROCE_FW_VENDOR_ID);
	r->vendor_part_id = cpu_to_le32(SROCE_FW_VENDOR_PART_ID);
	r->num_ports = cpu_to_le32(SROCE_FW_NUM_PORTS);
	r->max_pd = cpu_to_le32(SROCE_FW_MAX_PD);
	r->max_cq = cpu_to_le32(SROCE_FW_MAX_CQ);
	r->max_cqe = cpu_to_le32(SROCE_FW_MAX_CQE);
	r->max_qp = cpu_to_le32(SROCE_FW_MAX_QP);
	r->max_mr = cpu_to_le32(SROCE_FW_MAX_MR);
	r->max_mw = cpu_to_le32(SROCE_FW_MAX_MR);
	r->max_mcast_grp = cpu_to_le32(SROCE_FW_MAX_MCAST_GRP);
	r->max_mcast_qp_attach = cpu_to_le32(SROCE_FW_MAX_MCAST_QP_ATTACH);
	r->max_fast_reg_page_list_len =
		cpu_to_le32(SROCE_FW_MAX_FAST_REG_PAGES);
	r->max_ah = cpu_to_le32(SROCE_FW_MAX_AH);
	r->max_srq = cpu_to_le32(SROCE_FW_MAX_SRQ);
	r->max_srq_wr = cpu_to_le32(SROCE_FW_MAX_QP_WR);
	r->max_srq_sge = cpu_to_le32(SROCE_FW_MAX_SGE);
	r->max_mr_size = cpu_to_le64(U64_MAX);
	r->max_qp_wr = cpu_to_le32(SROCE_FW_MAX_QP_WR);
	r->max_send_sge = cpu_to_le32(SROCE_FW_MAX_SGE);
	r->max_recv_sge = cpu_to_le32(SROCE_FW_MAX_SGE);
	r->max_sge_rd = cpu_to_le32(SROCE_FW_MAX_SGE);
	r->max_inline_data = cpu_to_le32(SROCE_FW_MAX_INLINE);
	r->max_qp_rd_atom = cpu_to_le32(SROCE_FW_MAX_RD_ATOMIC);
	r->max_qp_init_rd_atom = cpu_to_le32(SROCE_FW_MAX_RD_ATOMIC);
	r->max_res_rd_atom = cpu_to_le32(SROCE_FW_MAX_RD_ATOMIC *
					 SROCE_FW_MAX_QP);
	r->max_pkeys = cpu_to_le32(1);
	return SROCE_FW_OK;
}

/**
 * sroce_fw_cmd_query_stats() - QUERY_STATS: the port counters
 * @fw: the function
 * @req: unused (no request payload)
 * @resp: struct sroce_query_stats_resp
 *
 * Return: enum sroce_fw_status.
 */
u16 sroce_fw_cmd_query_stats(struct sroce_fw_dev *fw, const void *req,
			     void *resp)
{
	struct sroce_query_stats_resp *r = resp;
	unsigned int i;
	u64 sum;
	int cpu;

	/*
	 * Each CPU's counts as they stand. A 32-bit CPU may read a count
	 * half before, half after a carry of its low word (the byte
	 * counters' carry every 4 GiB): that query is off by 2^32, the
	 * next one right.
	 */
	for (i = 0; i < SROCE_NUM_STATS; i++) {
		sum = 0;
		for_each_possible_cpu(cpu)
			sum += READ_ONCE(per_cpu_ptr(fw->stats, cpu)->count[i]);
		r->counter[i] = cpu_to_le64(sum);
	}
	return SROCE_FW_OK;
}

/**
 * sroce_fw_cmd_query_port() - QUERY_PORT: state, MTU and link of a port
 * @fw: the function
 * @req: struct sroce_query_port_req
 * @resp: struct sroce_query_port_resp
 *
 * Return: enum sroce_fw_status.
 */
u16 sroce_fw_cmd_query_port(struct sroce_fw_dev *fw, const void *req,
			    void *resp)
{
	const struct sroce_query_port_req *q = req;
	struct sroce_query_port_resp *r = resp;

	if (q->port != 1)
		return SROCE_FW_ERR_BAD_PARAM;

	spin_lock(&fw->port.lock);
	r->state = fw->port.state;
	r->phys_state = fw->port.phys_state;
	r->active_mtu = fw->port.active_mtu;
	r->netdev_mtu = cpu_to_le32(fw->port.netdev_mtu);
	r->link_speed_mbps = cpu_to_le32(fw->port.speed_mbps);
	ether_addr_copy(r->mac, fw->port.mac);
	spin_unlock(&fw->port.lock);

	r->max_mtu = SROCE_IB_MTU_4096;
	r->gid_tbl_len = cpu_to_le32(SROCE_FW_GID_TABLE_LEN);
	r->pkey_tbl_len = cpu_to_le32(1);
	return SROCE_FW_OK;
}
