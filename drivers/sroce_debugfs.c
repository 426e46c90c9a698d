// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * sroce debugfs: per-device diagnostics under /sys/kernel/debug/sroce/<dev>/
 *
 *   cmd_stats   per-command counters of the firmware command queue
 *   fw_gids     the firmware's GID table, read back with QUERY_GID, in the
 *               format of /sys/class/infiniband/<dev>/ports/1/gids/<n>
 *   fault_cmd_stall
 *               write 1 to make the firmware's command processor stall
 *               (the next command times out and kills the device), 0 to
 *               release it; reads back the last value written
 *   hold_events write 1 to stop serving the event vectors, async and
 *               completion (events pile up in the firmware as if the
 *               driver fell behind), 0 to serve them again
 *   fault_tx_no_mem
 *               write N to make one packet in N the firmware builds, at
 *               random, find no memory (it is lost as on the wire), 0 to
 *               stop; reads back the last value written
 *   rx_drain_mbps
 *               emulation of a host side slower than the wire: write N
 *               to make the firmware hand received RoCE packets to its
 *               receive engine at most at N Mbit/s, so that its port
 *               buffers fill (and, with PFC, ask for pauses); 0 (the
 *               default) for no limit
 *   rx_drain_stop
 *               write 1 to stop the drain altogether (a stalled host:
 *               the PFC storm watchdog's case), 0 to let it go again
 *   fault_defer_hold
 *               write 1 to make the firmware hold the end of DESTROY_QP,
 *               DEREG_MR and DEALLOC_MW (as if their RCU grace period
 *               lasted), 0 to let them end; the other commands go on
 *   rx_ecn      "KMIN KMAX PMAX": while the drain is limited, ECT packets
 *               arriving at a buffer holding more than KMIN bytes are
 *               marked CE with a probability rising to PMAX % at KMAX
 *               (all from KMAX on), as by a switch port in front of the
 *               buffers: ECN and PFC on one link; KMAX 0 turns it off
 *   cc_params/NAME
 *               one file per congestion-control knob, named, laid out and
 *               used as mlx5's (rp_*, np_*): reading queries the firmware
 *               and prints the value in decimal; writing a number sets it
 *               (EINVAL out of its range, Documentation/dcqcn.rst)
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/uaccess.h>

#include "sroce.h"
#include "lib/dcqcn.h"

static struct dentry *sroce_debugfs_root;

static int sroce_cmd_stats_show(struct seq_file *s, void *unused)
{
	struct sroce_dev *sdev = s->private;
	unsigned int i;

	seq_printf(s, "%-14s %10s %10s %10s %14s\n", "command", "issued",
		   "failed", "timeouts", "max_latency_us");
	for (i = 0; i < SROCE_NUM_CMDS; i++) {
		struct sroce_cmd_stats *st = &sdev->cmdq.stats[i];

		seq_printf(s, "%-14s %10lld %10lld %10lld %14lld\n",
			   sroce_cmd_name(i),
			   (long long)atomic64_read(&st->issued),
			   (long long)atomic64_read(&st->failed),
			   (long long)atomic64_read(&st->timeouts),
			   (long long)atomic64_read(&st->max_latency_us));
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(sroce_cmd_stats);

static int sroce_fw_gids_show(struct seq_file *s, void *unused)
{
	struct sroce_dev *sdev = s->private;
	struct sroce_gid_index_req req = { .port = 1 };
	struct sroce_query_gid_resp resp;
	unsigned int i;
	int err;

	for (i = 0; i < SROCE_FW_GID_TABLE_LEN; i++) {
		req.index = cpu_to_le32(i);
		err = sroce_cmd_exec(sdev, SROCE_CMD_QUERY_GID, &req,
				     sizeof(req), &resp, sizeof(resp));
		if (err)
			return err;
		if (!resp.valid)
			continue;
		seq_printf(s, "%u %pI6 %s", i, resp.gid,
			   resp.gid_type == SROCE_GID_ROCE_V1 ? "v1" : "v2");
		if (le16_to_cpu(resp.vlan_id) != SROCE_VLAN_NONE)
			seq_printf(s, " vlan %u", le16_to_cpu(resp.vlan_id));
		seq_printf(s, " %pM\n", resp.smac);
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(sroce_fw_gids);

/* The fault knobs, by enum sroce_fw_fault: file name, largest value. */
static const struct {
	const char *name;
	u32 max;
} sroce_faults[SROCE_FW_NUM_FAULTS] = {
	[SROCE_FW_FAULT_CMD_STALL] = { "fault_cmd_stall", 1 },
	[SROCE_FW_FAULT_TX_NO_MEM] = { "fault_tx_no_mem", U32_MAX },
	[SROCE_FW_FAULT_RX_DRAIN_MBPS] = { "rx_drain_mbps", U32_MAX },
	[SROCE_FW_FAULT_RX_DRAIN_STOP] = { "rx_drain_stop", 1 },
	[SROCE_FW_FAULT_DEFER_HOLD] = { "fault_defer_hold", 1 },
};

static int sroce_fault_get(void *data, u64 *val)
{
	const struct sroce_fault_knob *knob = data;

	*val = READ_ONCE(knob->value);
	return 0;
}

static int sroce_fault_set(void *data, u64 val)
{
	struct sroce_fault_knob *knob = data;
	u32 max = sroce_faults[knob->fault].max;
	int err;

	if (val > max) {
		ibdev_err_ratelimited(&knob->sdev->ibdev,
				      "%s: %llu is out of range 0..%u\n",
				      sroce_faults[knob->fault].name, val, max);
		return -EINVAL;
	}
	err = sroce_fw_set_fault(knob->sdev->fw, knob->fault, val);
	if (!err)
		WRITE_ONCE(knob->value, val);
	return err;
}
DEFINE_DEBUGFS_ATTRIBUTE(sroce_fault_fops, sroce_fault_get, sroce_fault_set,
			 "%llu\n");

static int sroce_hold_events_get(void *data, u64 *val)
{
	struct sroce_dev *sdev = data;

	*val = READ_ONCE(sdev->hold_events);
	return 0;
}

static int sroce_hold_events_set(void *data, u64 val)
{
	struct sroce_dev *sdev = data;

	if (val > 1) {
		ibdev_err_ratelimited(&sdev->ibdev,
				      "hold_events: %llu is not 0 or 1\n", val);
		return -EINVAL;
	}
	sroce_hold_events(sdev, val);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(sroce_hold_events_fops, sroce_hold_events_get,
			 sroce_hold_events_set, "%llu\n");

static ssize_t sroce_rx_ecn_read(struct file *file, char __user *ubuf,
				 size_t count, loff_t *pos)
{
	struct sroce_dev *sdev = file->private_data;
	char buf[48];
	int len;

	len = scnprintf(buf, sizeof(buf), "%u %u %u\n",
			READ_ONCE(sdev->rx_ecn[0]), READ_ONCE(sdev->rx_ecn[1]),
			READ_ONCE(sdev->rx_ecn[2]));
	return simple_read_from_buffer(ubuf, count, pos, buf, len);
}

static ssize_t sroce_rx_ecn_write(struct file *file, const char __user *ubuf,
				  size_t count, loff_t *pos)
{
	struct sroce_dev *sdev = file->private_data;
	u32 kmin, kmax, pmax;
	char buf[48];
	int err;

	if (*pos || count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	if (sscanf(buf, "%u %u %u", &kmin, &kmax, &pmax) != 3) {
		ibdev_err_ratelimited(&sdev->ibdev,
				      "rx_ecn: expected KMIN KMAX PMAX_PERCENT\n");
		return -EINVAL;
	}
	err = sroce_fw_set_rx_ecn(sdev->fw, kmin, kmax, pmax);
	if (err)
		return err;
	WRITE_ONCE(sdev->rx_ecn[0], kmin);
	WRITE_ONCE(sdev->rx_ecn[1], kmax);
	WRITE_ONCE(sdev->rx_ecn[2], pmax);
	return count;
}

static const struct file_operations sroce_rx_ecn_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = sroce_rx_ecn_read,
	.write = sroce_rx_ecn_write,
	.llseek = default_llseek,
};

static ssize_t sroce_cc_param_read(struct file *file, char __user *ubuf,
				   size_t count, loff_t *pos)
{
	const struct sroce_cc_knob *knob = file->private_data;
	struct sroce_query_cc_params_resp resp;
	char buf[16];
	int err, len;

	err = sroce_cmd_exec(knob->sdev, SROCE_CMD_QUERY_CC_PARAMS, NULL, 0,
			     &resp, sizeof(resp));
	if (err)
		return err;
	len = scnprintf(buf, sizeof(buf), "%u\n",
			le32_to_cpu(resp.value[knob->id]));
	return simple_read_from_buffer(ubuf, count, pos, buf, len);
}

static ssize_t sroce_cc_param_write(struct file *file,
				    const char __user *ubuf, size_t count,
				    loff_t *pos)
{
	const struct sroce_cc_knob *knob = file->private_data;
	struct sroce_set_cc_param_req req = {};
	u32 value;
	int err;

	err = kstrtou32_from_user(ubuf, count, 0, &value);
	if (err)
		return err;
	req.id = cpu_to_le32(knob->id);
	req.value = cpu_to_le32(value);
	err = sroce_cmd_exec(knob->sdev, SROCE_CMD_SET_CC_PARAM, &req,
			     sizeof(req), NULL, 0);
	if (err == -EINVAL)
		ibdev_warn_ratelimited(&knob->sdev->ibdev,
				       "cc_params/%s: %u is out of range %u..%u\n",
				       sroce_cc_params[knob->id].name, value,
				       sroce_cc_params[knob->id].min,
				       sroce_cc_params[knob->id].max);
	return err ? err : count;
}

static const struct file_operations sroce_cc_param_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = sroce_cc_param_read,
	.write = sroce_cc_param_write,
	.llseek = default_llseek,
};

static void sroce_debugfs_add_cc_params(struct sroce_dev *sdev)
{
	struct dentry *dir = debugfs_create_dir("cc_params", sdev->debugfs);
	unsigned int i;

	for (i = 0; i < SROCE_NUM_CC_PARAMS; i++) {
		sdev->cc_knobs[i].sdev = sdev;
		sdev->cc_knobs[i].id = i;
		debugfs_create_file(sroce_cc_params[i].name, 0600, dir,
				    &sdev->cc_knobs[i], &sroce_cc_param_fops);
	}
}

/**
 * sroce_debugfs_add_dev() - create the directory of a registered device
 * @sdev: the device
 */
void sroce_debugfs_add_dev(struct sroce_dev *sdev)
{
	unsigned int fault;

	sdev->debugfs = debugfs_create_dir(dev_name(&sdev->ibdev.dev),
					   sroce_debugfs_root);
	debugfs_create_file("cmd_stats", 0400, sdev->debugfs, sdev,
			    &sroce_cmd_stats_fops);
	debugfs_create_file("fw_gids", 0400, sdev->debugfs, sdev,
			    &sroce_fw_gids_fops);
	for (fault = 0; fault < SROCE_FW_NUM_FAULTS; fault++) {
		/* A fault added to the ABI without a file here. */
		if (WARN_ON_ONCE(!sroce_faults[fault].name))
			continue;
		sdev->fault_knobs[fault].sdev = sdev;
		sdev->fault_knobs[fault].fault = fault;
		debugfs_create_file_unsafe(sroce_faults[fault].name, 0600,
					   sdev->debugfs,
					   &sdev->fault_knobs[fault],
					   &sroce_fault_fops);
	}
	debugfs_create_file_unsafe("hold_events", 0600, sdev->debugfs, sdev,
				   &sroce_hold_events_fops);
	debugfs_create_file("rx_ecn", 0600, sdev->debugfs, sdev,
			    &sroce_rx_ecn_fops);
	sroce_debugfs_add_cc_params(sdev);
}

/**
 * sroce_debugfs_del_dev() - remove a device's directory
 * @sdev: the device; safe if the directory was never created
 *
 * Waits for open files to be closed, so no file outlives the device.
 */
void sroce_debugfs_del_dev(struct sroce_dev *sdev)
{
	debugfs_remove_recursive(sdev->debugfs);
	sdev->debugfs = NULL;
}

/**
 * sroce_debugfs_init() - create /sys/kernel/debug/sroce
 */
void sroce_debugfs_init(void)
{
	sroce_debugfs_root = debugfs_create_dir("sroce", NULL);
}

/**
 * sroce_debugfs_exit() - remove /sys/kernel/debug/sroce
 */
void sroce_debugfs_exit(void)
{
	debugfs_remove_recursive(sroce_debugfs_root);
}
