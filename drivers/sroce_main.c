// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * sroce: a RoCE device over any Ethernet netdev, with a software NIC.
 *
 * Module init/exit, `rdma link add/del` and device lifetime. A device is
 * created by `rdma link add NAME type sroce netdev IF` and removed by
 * `rdma link del`, by the netdev going away, or by module unload.
 */
#include <linux/if_arp.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/string.h>
#include <rdma/rdma_netlink.h>

#include "sroce.h"

static struct lock_class_key sroce_cq_table_key;

/* Devices of this driver; protected by sroce_devs_lock. */
static LIST_HEAD(sroce_devs);
/* protects sroce_devs */
static DEFINE_SPINLOCK(sroce_devs_lock);
/* protects against two `rdma link add` racing for one netdev */
static DEFINE_MUTEX(sroce_newlink_mutex);
/* Runs unregistrations requested by netdev events; flushed at unload. */
static struct workqueue_struct *sroce_wq;

static bool sroce_netdev_in_use(struct net_device *ndev)
{
	struct sroce_dev *sdev;
	bool found = false;

	spin_lock(&sroce_devs_lock);
	list_for_each_entry(sdev, &sroce_devs, list) {
		if (sdev->ndev == ndev) {
			found = true;
			break;
		}
	}
	spin_unlock(&sroce_devs_lock);
	return found;
}

/**
 * sroce_enable_driver() - last step of registration before clients attach
 * @ibdev: the device
 *
 * Creates the debugfs directory and lets the firmware report port changes;
 * sroce_dealloc_driver() undoes both.
 *
 * Return: 0.
 */
int sroce_enable_driver(struct ib_device *ibdev)
{
	struct sroce_dev *sdev = to_sdev(ibdev);

	sroce_debugfs_add_dev(sdev);
	sroce_fw_arm_events(sdev->fw);
	return 0;
}

/**
 * sroce_dealloc_driver() - free what the driver owns of a device
 * @ibdev: the device, unregistered or never registered
 *
 * Called by ib_core exactly once, after the last verb has returned.
 */
void sroce_dealloc_driver(struct ib_device *ibdev)
{
	struct sroce_dev *sdev = to_sdev(ibdev);

	sroce_debugfs_del_dev(sdev);
	sroce_hw_close(sdev);
	spin_lock(&sroce_devs_lock);
	list_del_init(&sdev->list);
	spin_unlock(&sroce_devs_lock);
}

static void sroce_unregister_work(struct work_struct *work)
{
	struct sroce_dev *sdev = container_of(work, struct sroce_dev,
					      unregister_work);

	ib_unregister_device(&sdev->ibdev);
	put_device(&sdev->ibdev.dev);
}

static int sroce_dev_register(struct sroce_dev *sdev, const char *name)
{
	struct ib_device *ibdev = &sdev->ibdev;
	int err;

	err = sroce_query_caps(sdev);
	if (err)
		return err;

	ibdev->node_type = RDMA_NODE_IB_CA;
	ibdev->phys_port_cnt = SROCE_FW_NUM_PORTS;
	ibdev->num_comp_vectors = num_possible_cpus();
	ibdev->local_dma_lkey = 0;
	strscpy(ibdev->node_desc, "sroce", sizeof(ibdev->node_desc));
	/* librxe rings its send doorbell and arms CQs with legacy commands. */
	ibdev->uverbs_cmd_mask |= BIT_ULL(IB_USER_VERBS_CMD_POST_SEND) |
				  BIT_ULL(IB_USER_VERBS_CMD_REQ_NOTIFY_CQ);

	err = ib_device_set_netdev(ibdev, sdev->ndev, 1);
	if (err)
		return err;

	return ib_register_device(ibdev, name, NULL);
}

static int sroce_newlink(const char *name, struct net_device *ndev)
{
	struct sroce_query_port_req port_req = { .port = 1 };
	struct sroce_query_port_resp port;
	struct sroce_dev *sdev;
	bool netdev_gone;
	int err;

	if (ndev->type != ARPHRD_ETHER) {
		pr_err_ratelimited("sroce: %s: netdev %s is not an Ethernet device (type %u)\n",
				   name, netdev_name(ndev), ndev->type);
		return -EINVAL;
	}

	mutex_lock(&sroce_newlink_mutex);
	if (sroce_netdev_in_use(ndev)) {
		pr_err_ratelimited("sroce: %s: netdev %s already has an sroce device\n",
				   name, netdev_name(ndev));
		err = -EEXIST;
		goto err_unlock;
	}

	sdev = ib_alloc_device(sroce_dev, ibdev);
	if (!sdev) {
		err = -ENOMEM;
		goto err_unlock;
	}
	/*
	 * Ops first: ib_dealloc_device() on the error paths below calls
	 * dealloc_driver, which closes the function sroce_hw_open() opened.
	 */
	ib_set_device_ops(&sdev->ibdev, &sroce_dev_ops);
	INIT_LIST_HEAD(&sdev->list);
	INIT_WORK(&sdev->unregister_work, sroce_unregister_work);
	spin_lock_init(&sdev->port_lock);
	xa_init_flags(&sdev->cqs, XA_FLAGS_LOCK_BH);
	/*
	 * The tables' locks share one lockdep class, that of xa_init_flags()
	 * in this file. The CQ table's is taken in softirq (the completion
	 * vector), the QP table's without BHs off: a class of its own keeps
	 * lockdep from taking them for one lock.
	 */
	lockdep_set_class(&sdev->cqs.xa_lock, &sroce_cq_table_key);
	xa_init(&sdev->qps);
	xa_init_flags(&sdev->srqs, XA_FLAGS_LOCK_IRQ);
	xa_init(&sdev->odp_mrs);
	sdev->ndev = ndev;

	err = sroce_hw_open(sdev);
	if (err)
		goto err_dealloc;
	err = sroce_cmd_exec(sdev, SROCE_CMD_QUERY_PORT, &port_req,
			     sizeof(port_req), &port, sizeof(port));
	if (err)
		goto err_dealloc;
	sdev->port_state = port.state;

	err = sroce_dev_register(sdev, name);
	if (err)
		goto err_dealloc;
	ibdev_info(&sdev->ibdev, "added over %s\n", netdev_name(ndev));

	/*
	 * Publish the device for the netdev notifier, which runs under RTNL:
	 * either it already saw the netdev unregistering (then undo here) or
	 * it will find us listed. A racing `rdma link del` may have begun to
	 * unregister the device already (refcount zero): then it stays
	 * unlisted. Our reference keeps the memory valid meanwhile.
	 */
	get_device(&sdev->ibdev.dev);
	rtnl_lock();
	if (ib_device_try_get(&sdev->ibdev)) {
		spin_lock(&sroce_devs_lock);
		list_add_tail(&sdev->list, &sroce_devs);
		spin_unlock(&sroce_devs_lock);
		ib_device_put(&sdev->ibdev);
	}
	netdev_gone = ndev->reg_state != NETREG_REGISTERED;
	rtnl_unlock();
	mutex_unlock(&sroce_newlink_mutex);

	/* The notifier never saw this device: nobody else removes it. */
	if (netdev_gone)
		ib_unregister_device(&sdev->ibdev);
	put_device(&sdev->ibdev.dev);
	return netdev_gone ? -ENODEV : 0;

err_dealloc:
	ib_dealloc_device(&sdev->ibdev);
err_unlock:
	mutex_unlock(&sroce_newlink_mutex);
	if (err != -EEXIST)
		pr_err_ratelimited("sroce: %s over %s: creation failed: %d\n",
				   name, netdev_name(ndev), err);
	return err;
}

static struct rdma_link_ops sroce_link_ops = {
	.type = "sroce",
	.newlink = sroce_newlink,
};

static int sroce_netdev_event(struct notifier_block *nb, unsigned long event,
			      void *ptr)
{
	struct net_device *ndev = netdev_notifier_info_to_dev(ptr);
	struct sroce_dev *sdev;

	if (event != NETDEV_UNREGISTER)
		return NOTIFY_DONE;

	/*
	 * Unregistering waits for users of the device, so it cannot run under
	 * RTNL. Our own workqueue (not ib_core's) lets unload wait for it.
	 */
	spin_lock(&sroce_devs_lock);
	list_for_each_entry(sdev, &sroce_devs, list) {
		if (sdev->ndev != ndev)
			continue;
		get_device(&sdev->ibdev.dev);
		if (!queue_work(sroce_wq, &sdev->unregister_work))
			put_device(&sdev->ibdev.dev);
	}
	spin_unlock(&sroce_devs_lock);
	return NOTIFY_DONE;
}

static struct notifier_block sroce_netdev_nb = {
	.notifier_call = sroce_netdev_event,
};

/*
 * sroce serves rdma_rxe's user ABI and owns UDP port 4791 in every network
 * namespace, so the two never run together. Up to 7.0 rdma_rxe claims the
 * port when it loads and fails beside sroce by itself; since 7.1 it claims
 * it only with its first device, so its load is refused here instead.
 */
static int sroce_module_event(struct notifier_block *nb, unsigned long event,
			      void *data)
{
	struct module *mod = data;

	if (event != MODULE_STATE_COMING || strcmp(mod->name, "rdma_rxe"))
		return NOTIFY_DONE;
	pr_err_ratelimited("sroce: refusing to load rdma_rxe: sroce is loaded and serves the same user ABI and UDP port 4791; unload sroce first\n");
	return notifier_from_errno(-EBUSY);
}

static struct notifier_block sroce_module_nb = {
	.notifier_call = sroce_module_event,
};

static void sroce_unregister_all(void)
{
	struct sroce_dev *sdev;

	for (;;) {
		spin_lock(&sroce_devs_lock);
		sdev = list_first_entry_or_null(&sroce_devs, struct sroce_dev,
						list);
		/* Keep the memory alive across a racing `rdma link del`. */
		if (sdev)
			get_device(&sdev->ibdev.dev);
		spin_unlock(&sroce_devs_lock);
		if (!sdev)
			break;
		ib_unregister_device(&sdev->ibdev);
		put_device(&sdev->ibdev.dev);
	}
}

static int __init sroce_init(void)
{
	int err;

	sroce_qos_sysfs_init();
	sroce_stats_init();
	sroce_wq = alloc_workqueue("sroce", WQ_UNBOUND, 0);
	if (!sroce_wq)
		return -ENOMEM;

	err = sroce_fw_subsystem_init();
	if (err == -EADDRINUSE) {
		pr_err("sroce: UDP port 4791 is already bound in the initial network namespace: rdma_rxe (or another RoCE v2 stack) is loaded; unload it first\n");
		goto err_destroy_wq;
	}
	if (err) {
		pr_err("sroce: firmware start failed: %d\n", err);
		goto err_destroy_wq;
	}

	err = register_module_notifier(&sroce_module_nb);
	if (err)
		goto err_fw_exit;

	err = register_netdevice_notifier(&sroce_netdev_nb);
	if (err)
		goto err_module_nb;

	sroce_debugfs_init();
	rdma_link_register(&sroce_link_ops);
	pr_info("sroce: loaded\n");
	return 0;

err_module_nb:
	unregister_module_notifier(&sroce_module_nb);
err_fw_exit:
	sroce_fw_subsystem_exit();
err_destroy_wq:
	destroy_workqueue(sroce_wq);
	return err;
}

static void __exit sroce_exit(void)
{
	rdma_link_unregister(&sroce_link_ops);
	unregister_netdevice_notifier(&sroce_netdev_nb);
	flush_workqueue(sroce_wq);
	sroce_unregister_all();
	destroy_workqueue(sroce_wq);
	sroce_debugfs_exit();
	sroce_fw_subsystem_exit();
	unregister_module_notifier(&sroce_module_nb);
	pr_info("sroce: unloaded\n");
}

module_init(sroce_init);
module_exit(sroce_exit);

MODULE_ALIAS_RDMA_LINK("sroce");
MODULE_DESCRIPTION("sroce: RoCE over any Ethernet device, with a software NIC");
MODULE_LICENSE("Dual BSD/GPL");
