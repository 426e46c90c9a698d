// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * sroce congestion-control, QoS and PFC settings in sysfs: the stable
 * interface (debugfs cc_params/ mirrors mlx5's for its users, but
 * debugfs is not an ABI and is often not mounted). Under the port, as
 * MLNX_OFED's per-priority ECN switches are under the netdev:
 *
 *   /sys/class/infiniband/DEV/ports/1/cc_params/NAME   every mlx5 knob
 *   /sys/class/infiniband/DEV/ports/1/qos/trust        pcp | dscp
 *   /sys/class/infiniband/DEV/ports/1/qos/dscp2prio    64 priorities, by
 *       DSCP; write "DSCP PRIO" to set one
 *   /sys/class/infiniband/DEV/ports/1/qos/ecn_rp_enable  "1,1,1,1,1,1,1,1":
 *       per priority 0..7, the reaction point (ECT(0) and CNP handling)
 *   /sys/class/infiniband/DEV/ports/1/qos/ecn_np_enable  the same for the
 *       notification point (CNPs for CE marks)
 *   /sys/class/infiniband/DEV/ports/1/pfc/enable  "0,0,0,1,0,0,0,0": per
 *       priority, PFC on (mlnx_qos --pfc); all off: 802.3x PAUSE obeyed
 *   .../pfc/buffer_size, prio2buffer  eight numbers each: bytes per
 *       receive buffer, each priority's buffer (mlnx_qos --buffer_size,
 *       --prio2buffer); cable_len (m) and stall_tout (ms, the storm
 *       watchdog); xoff and xon per buffer, in force (writing xoff sets
 *       explicit thresholds where not 0, the computed ones where 0; xon
 *       after it, if not xoff - MTU); occupancy, read-only: bytes held
 *
 * Reads query the firmware, writes program it by command; a refused
 * value gets EINVAL and one rate-limited line naming device and file.
 *
 * Also a QP's reaction point in `rdma resource show qp -dd` (restrack
 * driver attributes): cc_limited, cc_rate_kbps, cc_target_kbps,
 * cc_alpha, cc_measured_kbps, cc_prio.
 */
#include <linux/kstrtox.h>
#include <rdma/ib_sysfs.h>
#include <net/netlink.h>
#include <rdma/rdma_netlink.h>
#include <rdma/restrack.h>

#include "sroce.h"
#include "lib/dcqcn.h"

/* One cc_params file: the knob it shows. */
struct sroce_cc_port_attr {
	struct ib_port_attribute attr;
	unsigned int id;
};

static ssize_t sroce_cc_param_show(struct ib_device *ibdev, u32 port,
				   struct ib_port_attribute *attr, char *buf)
{
	const struct sroce_cc_port_attr *a =
		container_of(attr, struct sroce_cc_port_attr, attr);
	struct sroce_query_cc_params_resp resp;
	int err;

	err = sroce_cmd_exec(to_sdev(ibdev), SROCE_CMD_QUERY_CC_PARAMS, NULL,
			     0, &resp, sizeof(resp));
	if (err)
		return err;
	return sysfs_emit(buf, "%u\n", le32_to_cpu(resp.value[a->id]));
}

static ssize_t sroce_cc_param_store(struct ib_device *ibdev, u32 port,
				    struct ib_port_attribute *attr,
				    const char *buf, size_t count)
{
	const struct sroce_cc_port_attr *a =
		container_of(attr, struct sroce_cc_port_attr, attr);
	struct sroce_set_cc_param_req req = {};
	u32 value;
	int err;

	err = kstrtou32(buf, 0, &value);
	if (err)
		return err;
	req.id = cpu_to_le32(a->id);
	req.value = cpu_to_le32(value);
	err = sroce_cmd_exec(to_sdev(ibdev), SROCE_CMD_SET_CC_PARAM, &req,
			     sizeof(req), NULL, 0);
	if (err == -EINVAL)
		ibdev_warn_ratelimited(ibdev,
				       "cc_params/%s: %u is out of range %u..%u\n",
				       sroce_cc_params[a->id].name, value,
				       sroce_cc_params[a->id].min,
				       sroce_cc_params[a->id].max);
	return err ? err : count;
}

/* Named from lib/dcqcn.c's table by sroce_qos_sysfs_init(). */
static struct sroce_cc_port_attr sroce_cc_port_attrs[SROCE_NUM_CC_PARAMS];
static struct attribute *sroce_cc_attrs[SROCE_NUM_CC_PARAMS + 1];

static const struct attribute_group sroce_cc_group = {
	.name = "cc_params",
	.attrs = sroce_cc_attrs,
};

/* The QoS settings now; callers modify them under the device's qos_mutex. */
static int sroce_qos_query(struct sroce_dev *sdev, struct sroce_qos_cfg *cfg)
{
	return sroce_cmd_exec(sdev, SROCE_CMD_QUERY_QOS, NULL, 0, cfg,
			      sizeof(*cfg));
}

/* Read, let @change modify, write back; EINVAL is logged by @change. */
static int sroce_qos_update(struct sroce_dev *sdev,
			    int (*change)(struct sroce_dev *sdev,
					  struct sroce_qos_cfg *cfg,
					  const char *buf),
			    const char *buf)
{
	struct sroce_qos_cfg cfg;
	int err;

	mutex_lock(&sdev->qos_mutex);
	err = sroce_qos_query(sdev, &cfg);
	if (!err)
		err = change(sdev, &cfg, buf);
	if (!err)
		err = sroce_cmd_exec(sdev, SROCE_CMD_SET_QOS, &cfg, sizeof(cfg),
				     NULL, 0);
	mutex_unlock(&sdev->qos_mutex);
	return err;
}

static ssize_t trust_show(struct ib_device *ibdev, u32 port,
			  struct ib_port_attribute *attr, char *buf)
{
	struct sroce_qos_cfg cfg;
	int err;

	err = sroce_qos_query(to_sdev(ibdev), &cfg);
	if (err)
		return err;
	return sysfs_emit(buf, "%s\n",
			  cfg.trust == SROCE_QOS_TRUST_DSCP ? "dscp" : "pcp");
}

static int sroce_trust_change(struct sroce_dev *sdev,
			      struct sroce_qos_cfg *cfg, const char *buf)
{
	if (sysfs_streq(buf, "pcp")) {
		cfg->trust = SROCE_QOS_TRUST_PCP;
	} else if (sysfs_streq(buf, "dscp")) {
		cfg->trust = SROCE_QOS_TRUST_DSCP;
	} else {
		ibdev_warn_ratelimited(&sdev->ibdev,
				       "qos/trust: expected pcp or dscp\n");
		return -EINVAL;
	}
	return 0;
}

static ssize_t trust_store(struct ib_device *ibdev, u32 port,
			   struct ib_port_attribute *attr, const char *buf,
			   size_t count)
{
	int err = sroce_qos_update(to_sdev(ibdev), sroce_trust_change, buf);

	return err ? err : count;
}
static IB_PORT_ATTR_RW(trust);

static ssize_t dscp2prio_show(struct ib_device *ibdev, u32 port,
			      struct ib_port_attribute *attr, char *buf)
{
	struct sroce_qos_cfg cfg;
	unsigned int i;
	int err, len = 0;

	err = sroce_qos_query(to_sdev(ibdev), &cfg);
	if (err)
		return err;
	for (i = 0; i < ARRAY_SIZE(cfg.dscp2prio); i++)
		len += sysfs_emit_at(buf, len, "%u%c", cfg.dscp2prio[i],
				     i + 1 < ARRAY_SIZE(cfg.dscp2prio) ? ' ' :
									 '\n');
	return len;
}

static int sroce_dscp2prio_change(struct sroce_dev *sdev,
				  struct sroce_qos_cfg *cfg, const char *buf)
{
	char dscp_word[4], prio_word[4], junk;
	u8 dscp, prio;

	/*
	 * Two short words, each checked by kstrtou8() (sscanf()'s %u would
	 * wrap); a longer word spills into a third, which is junk.
	 */
	if (sscanf(buf, "%3s %3s %c", dscp_word, prio_word, &junk) != 2 ||
	    kstrtou8(dscp_word, 10, &dscp) || kstrtou8(prio_word, 10, &prio) ||
	    dscp >= ARRAY_SIZE(cfg->dscp2prio) || prio >= 8) {
		ibdev_warn_ratelimited(&sdev->ibdev,
				       "qos/dscp2prio: expected \"DSCP PRIO\", DSCP 0..63, PRIO 0..7\n");
		return -EINVAL;
	}
	cfg->dscp2prio[dscp] = prio;
	return 0;
}

static ssize_t dscp2prio_store(struct ib_device *ibdev, u32 port,
			       struct ib_port_attribute *attr, const char *buf,
			       size_t count)
{
	int err = sroce_qos_update(to_sdev(ibdev), sroce_dscp2prio_change,
				   buf);

	return err ? err : count;
}
static IB_PORT_ATTR_RW(dscp2prio);

/* "1,0,1,..." of a per-priority mask, priority 0 first. */
static ssize_t sroce_prio_mask_show(char *buf, u8 mask)
{
	unsigned int prio;
	int len = 0;

	for (prio = 0; prio < 8; prio++)
		len += sysfs_emit_at(buf, len, "%u%c", !!(mask & BIT(prio)),
				     prio < 7 ? ',' : '\n');
	return len;
}

/* Parse eight comma-separated 0/1 values into a mask. */
static int sroce_prio_mask_parse(const char *buf, u8 *mask)
{
	unsigned int prio = 0;
	const char *p = buf;

	*mask = 0;
	for (prio = 0; prio < 8; prio++) {
		if (*p != '0' && *p != '1')
			return -EINVAL;
		if (*p == '1')
			*mask |= BIT(prio);
		p++;
		if (prio < 7 && *p++ != ',')
			return -EINVAL;
	}
	return *p == '\0' || (*p == '\n' && p[1] == '\0') ? 0 : -EINVAL;
}

/* An ecn_*_enable file: which role's mask it shows. */
struct sroce_ecn_port_attr {
	struct ib_port_attribute attr;
	bool np;
};

static u8 *sroce_ecn_mask(struct sroce_qos_cfg *cfg, bool np)
{
	return np ? &cfg->np_enable : &cfg->rp_enable;
}

static ssize_t sroce_ecn_show(struct ib_device *ibdev, u32 port,
			      struct ib_port_attribute *attr, char *buf)
{
	const struct sroce_ecn_port_attr *a =
		container_of(attr, struct sroce_ecn_port_attr, attr);
	struct sroce_qos_cfg cfg;
	int err = sroce_qos_query(to_sdev(ibdev), &cfg);

	return err ? err : sroce_prio_mask_show(buf,
						*sroce_ecn_mask(&cfg, a->np));
}

static int sroce_ecn_rp_change(struct sroce_dev *sdev,
			       struct sroce_qos_cfg *cfg, const char *buf)
{
	if (!sroce_prio_mask_parse(buf, &cfg->rp_enable))
		return 0;
	ibdev_warn_ratelimited(&sdev->ibdev,
			       "qos/ecn_rp_enable: expected eight comma-separated 0 or 1, priority 0 first\n");
	return -EINVAL;
}

static int sroce_ecn_np_change(struct sroce_dev *sdev,
			       struct sroce_qos_cfg *cfg, const char *buf)
{
	if (!sroce_prio_mask_parse(buf, &cfg->np_enable))
		return 0;
	ibdev_warn_ratelimited(&sdev->ibdev,
			       "qos/ecn_np_enable: expected eight comma-separated 0 or 1, priority 0 first\n");
	return -EINVAL;
}

static ssize_t sroce_ecn_store(struct ib_device *ibdev, u32 port,
			       struct ib_port_attribute *attr,
			       const char *buf, size_t count)
{
	const struct sroce_ecn_port_attr *a =
		container_of(attr, struct sroce_ecn_port_attr, attr);
	int err = sroce_qos_update(to_sdev(ibdev), a->np ?
				   sroce_ecn_np_change : sroce_ecn_rp_change,
				   buf);

	return err ? err : count;
}

static struct sroce_ecn_port_attr sroce_ecn_rp_attr = {
	.attr = __ATTR(ecn_rp_enable, 0644, sroce_ecn_show, sroce_ecn_store),
	.np = false,
};

static struct sroce_ecn_port_attr sroce_ecn_np_attr = {
	.attr = __ATTR(ecn_np_enable, 0644, sroce_ecn_show, sroce_ecn_store),
	.np = true,
};

static struct attribute *sroce_qos_attrs[] = {
	&ib_port_attr_trust.attr,
	&ib_port_attr_dscp2prio.attr,
	&sroce_ecn_rp_attr.attr.attr,
	&sroce_ecn_np_attr.attr.attr,
	NULL,
};

static const struct attribute_group sroce_qos_group = {
	.name = "qos",
	.attrs = sroce_qos_attrs,
};

static ssize_t sroce_pfc_enable_show(struct ib_device *ibdev, u32 port,
				     struct ib_port_attribute *attr, char *buf)
{
	struct sroce_pfc_cfg cfg;
	int err;

	err = sroce_cmd_exec(to_sdev(ibdev), SROCE_CMD_QUERY_PFC, NULL, 0,
			     &cfg, sizeof(cfg));
	return err ? err : sroce_prio_mask_show(buf, cfg.enable);
}

static ssize_t sroce_pfc_enable_store(struct ib_device *ibdev, u32 port,
				      struct ib_port_attribute *attr,
				      const char *buf, size_t count)
{
	struct sroce_dev *sdev = to_sdev(ibdev);
	struct sroce_pfc_cfg cfg = {};
	int err;

	if (sroce_prio_mask_parse(buf, &cfg.enable)) {
		ibdev_warn_ratelimited(ibdev,
				       "pfc/enable: expected eight comma-separated 0 or 1, priority 0 first\n");
		return -EINVAL;
	}
	mutex_lock(&sdev->qos_mutex);
	err = sroce_cmd_exec(sdev, SROCE_CMD_SET_PFC, &cfg, sizeof(cfg), NULL, 0);
	mutex_unlock(&sdev->qos_mutex);
	return err ? err : count;
}

static struct ib_port_attribute sroce_pfc_enable_attr =
	__ATTR(enable, 0644, sroce_pfc_enable_show, sroce_pfc_enable_store);

/* A pfc/ buffer file: which field of struct sroce_pfc_buffer_cfg it is. */
enum sroce_buf_field {
	SROCE_BUF_SIZE,
	SROCE_BUF_PRIO2BUFFER,
	SROCE_BUF_XOFF,
	SROCE_BUF_XON,
	SROCE_BUF_OCCUPANCY,
	SROCE_BUF_CABLE_LEN,
	SROCE_BUF_STALL_TOUT,
};

struct sroce_buf_port_attr {
	struct ib_port_attribute attr;
	enum sroce_buf_field field;
};

/* The per-buffer u32 array of @f, NULL for the others. */
static __le32 *sroce_buf_array(struct sroce_pfc_buffer_cfg *cfg,
			       enum sroce_buf_field f)
{
	switch (f) {
	case SROCE_BUF_SIZE:
		return cfg->size;
	case SROCE_BUF_XOFF:
		return cfg->active_xoff;
	case SROCE_BUF_XON:
		return cfg->active_xon;
	case SROCE_BUF_OCCUPANCY:
		return cfg->occupancy;
	default:
		return NULL;
	}
}

static ssize_t sroce_buf_show(struct ib_device *ibdev, u32 port,
			      struct ib_port_attribute *attr, char *buf)
{
	const struct sroce_buf_port_attr *a =
		container_of(attr, struct sroce_buf_port_attr, attr);
	struct sroce_pfc_buffer_cfg cfg;
	unsigned int i;
	__le32 *arr;
	int err, len = 0;

	err = sroce_cmd_exec(to_sdev(ibdev), SROCE_CMD_QUERY_PFC_BUFFER, NULL,
			     0, &cfg, sizeof(cfg));
	if (err)
		return err;
	if (a->field == SROCE_BUF_CABLE_LEN)
		return sysfs_emit(buf, "%u\n", le16_to_cpu(cfg.cable_len));
	if (a->field == SROCE_BUF_STALL_TOUT)
		return sysfs_emit(buf, "%u\n", le16_to_cpu(cfg.stall_tout_ms));
	arr = sroce_buf_array(&cfg, a->field);
	for (i = 0; i < SROCE_NUM_PRIO; i++)
		len += sysfs_emit_at(buf, len, "%u%c",
				     arr ? le32_to_cpu(arr[i]) :
					   cfg.prio2buffer[i],
				     i < SROCE_NUM_PRIO - 1 ? ',' : '\n');
	return len;
}

/* Eight comma-separated numbers, each at most @max. */
static int sroce_u32_list_parse(const char *buf, u32 *vals, u32 max)
{
	char copy[128], *p = copy, *tok;
	unsigned int i = 0;

	if (strscpy(copy, buf, sizeof(copy)) < 0)
		return -EINVAL;
	strim(copy);
	while ((tok = strsep(&p, ","))) {
		if (i == SROCE_NUM_PRIO || kstrtou32(tok, 0, &vals[i]) ||
		    vals[i] > max)
			return -EINVAL;
		i++;
	}
	return i == SROCE_NUM_PRIO ? 0 : -EINVAL;
}

/* Apply @buf to @cfg's field @f. */
static int sroce_buf_parse(struct sroce_pfc_buffer_cfg *cfg,
			   enum sroce_buf_field f, const char *buf)
{
	u32 vals[SROCE_NUM_PRIO], v;
	unsigned int i;
	__le32 *arr;

	if (f == SROCE_BUF_CABLE_LEN || f == SROCE_BUF_STALL_TOUT) {
		if (kstrtou32(buf, 0, &v) || v > U16_MAX)
			return -EINVAL;
		if (f == SROCE_BUF_CABLE_LEN)
			cfg->cable_len = cpu_to_le16(v);
		else
			cfg->stall_tout_ms = cpu_to_le16(v);
		return 0;
	}
	if (sroce_u32_list_parse(buf, vals,
				 f == SROCE_BUF_PRIO2BUFFER ? 7 : U32_MAX))
		return -EINVAL;
	arr = f == SROCE_BUF_XOFF ? cfg->xoff : f == SROCE_BUF_XON ? cfg->xon :
	      sroce_buf_array(cfg, f);
	for (i = 0; i < SROCE_NUM_PRIO; i++) {
		if (arr)
			arr[i] = cpu_to_le32(vals[i]);
		else
			cfg->prio2buffer[i] = vals[i];
	}
	if (f == SROCE_BUF_XOFF) {
		/* Explicit where not 0; xon a frame below unless set after. */
		cfg->xoff_set = 0;
		for (i = 0; i < SROCE_NUM_PRIO; i++)
			if (vals[i])
				cfg->xoff_set |= BIT(i);
		memset(cfg->xon, 0, sizeof(cfg->xon));
	}
	if (f == SROCE_BUF_XON)
		for (i = 0; i < SROCE_NUM_PRIO; i++)
			if (vals[i] && !(cfg->xoff_set & BIT(i)))
				return -EINVAL;
	return 0;
}

static ssize_t sroce_buf_store(struct ib_device *ibdev, u32 port,
			       struct ib_port_attribute *attr,
			       const char *buf, size_t count)
{
	const struct sroce_buf_port_attr *a =
		container_of(attr, struct sroce_buf_port_attr, attr);
	struct sroce_dev *sdev = to_sdev(ibdev);
	struct sroce_pfc_buffer_cfg cfg;
	int err;

	mutex_lock(&sdev->qos_mutex);
	err = sroce_cmd_exec(sdev, SROCE_CMD_QUERY_PFC_BUFFER, NULL, 0, &cfg,
			     sizeof(cfg));
	if (err)
		goto out_unlock;
	/* What QUERY adds to the settings goes back as 0. */
	memset(cfg.occupancy, 0, sizeof(cfg.occupancy));
	memset(cfg.active_xoff, 0, sizeof(cfg.active_xoff));
	memset(cfg.active_xon, 0, sizeof(cfg.active_xon));
	err = sroce_buf_parse(&cfg, a->field, buf);
	if (!err)
		err = sroce_cmd_exec(sdev, SROCE_CMD_SET_PFC_BUFFER, &cfg,
				     sizeof(cfg), NULL, 0);
	if (err == -EINVAL)
		ibdev_warn_ratelimited(ibdev,
				       "pfc/%s: refused (see Documentation/pfc.rst for the limits)\n",
				       a->attr.attr.name);
out_unlock:
	mutex_unlock(&sdev->qos_mutex);
	return err ? err : count;
}

#define SROCE_BUF_ATTR(_name, _field, _mode)				\
	static struct sroce_buf_port_attr sroce_buf_attr_##_name = {	\
		.attr = __ATTR(_name, _mode, sroce_buf_show,		\
			       sroce_buf_store),			\
		.field = _field,					\
	}

SROCE_BUF_ATTR(buffer_size, SROCE_BUF_SIZE, 0644);
SROCE_BUF_ATTR(prio2buffer, SROCE_BUF_PRIO2BUFFER, 0644);
SROCE_BUF_ATTR(xoff, SROCE_BUF_XOFF, 0644);
SROCE_BUF_ATTR(xon, SROCE_BUF_XON, 0644);
SROCE_BUF_ATTR(occupancy, SROCE_BUF_OCCUPANCY, 0444);
SROCE_BUF_ATTR(cable_len, SROCE_BUF_CABLE_LEN, 0644);
SROCE_BUF_ATTR(stall_tout, SROCE_BUF_STALL_TOUT, 0644);

static struct attribute *sroce_pfc_attrs[] = {
	&sroce_pfc_enable_attr.attr,
	&sroce_buf_attr_buffer_size.attr.attr,
	&sroce_buf_attr_prio2buffer.attr.attr,
	&sroce_buf_attr_xoff.attr.attr,
	&sroce_buf_attr_xon.attr.attr,
	&sroce_buf_attr_occupancy.attr.attr,
	&sroce_buf_attr_cable_len.attr.attr,
	&sroce_buf_attr_stall_tout.attr.attr,
	NULL,
};

static const struct attribute_group sroce_pfc_group = {
	.name = "pfc",
	.attrs = sroce_pfc_attrs,
};

/* ib_device_ops.port_groups */
const struct attribute_group *sroce_port_groups[] = {
	&sroce_cc_group,
	&sroce_qos_group,
	&sroce_pfc_group,
	NULL,
};

/**
 * sroce_qos_sysfs_init() - name the cc_params files after the knob table
 * (once, at module load, before any device registers)
 */
void sroce_qos_sysfs_init(void)
{
	unsigned int i;

	for (i = 0; i < SROCE_NUM_CC_PARAMS; i++) {
		struct sroce_cc_port_attr *a = &sroce_cc_port_attrs[i];

		a->id = i;
		a->attr.attr.name = sroce_cc_params[i].name;
		a->attr.attr.mode = 0644;
		a->attr.show = sroce_cc_param_show;
		a->attr.store = sroce_cc_param_store;
		sroce_cc_attrs[i] = &a->attr.attr;
	}
}

/**
 * sroce_fill_res_qp_entry() - ib_device_ops.fill_res_qp_entry: a QP's
 * reaction point as restrack driver attributes
 * @msg: the netlink message
 * @ibqp: the QP
 *
 * Context: process context (a netlink dump); sleeps on the command.
 * Return: 0, or -EMSGSIZE when the message is full; a QP the firmware
 * does not know (being destroyed) shows no attribute.
 */
int sroce_fill_res_qp_entry(struct sk_buff *msg, struct ib_qp *ibqp)
{
	struct sroce_qp_req req = { .qpn = cpu_to_le32(ibqp->qp_num) };
	struct sroce_qp_cc_resp resp;
	struct nlattr *table;

	if (sroce_cmd_exec(to_sdev(ibqp->device), SROCE_CMD_QUERY_QP_CC, &req,
			   sizeof(req), &resp, sizeof(resp)))
		return 0;
	/* Driver attributes travel in their own nested table. */
	table = nla_nest_start_noflag(msg, RDMA_NLDEV_ATTR_DRIVER);
	if (!table)
		return -EMSGSIZE;
	if (rdma_nl_put_driver_u32(msg, "cc_limited", resp.limited) ||
	    rdma_nl_put_driver_u32(msg, "cc_prio", resp.prio) ||
	    rdma_nl_put_driver_u64(msg, "cc_measured_kbps",
				   le64_to_cpu(resp.measured_kbps)))
		goto err_cancel;
	if (resp.limited &&
	    (rdma_nl_put_driver_u64(msg, "cc_rate_kbps",
				    le64_to_cpu(resp.rate_kbps)) ||
	     rdma_nl_put_driver_u64(msg, "cc_target_kbps",
				    le64_to_cpu(resp.target_kbps)) ||
	     rdma_nl_put_driver_u32(msg, "cc_alpha",
				    le16_to_cpu(resp.alpha))))
		goto err_cancel;
	nla_nest_end(msg, table);
	return 0;

err_cancel:
	nla_nest_cancel(msg, table);
	return -EMSGSIZE;
}
