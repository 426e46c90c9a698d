/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The "bus" between the sroce driver and its software NIC: what a PCI
 * device would offer as BAR registers and MSI-X vectors. The driver
 * programs the addresses of its queue rings once, rings doorbells with
 * producer/consumer positions and is interrupted through a callback.
 * Command and event contents are defined in fw_abi.h; nothing else
 * crosses the boundary.
 */
#ifndef SROCE_FW_BUS_H
#define SROCE_FW_BUS_H

#include <linux/types.h>
#include "sroce/fw_abi.h"

struct net_device;
struct sroce_fw_dev;

/**
 * typedef sroce_fw_irq_fn - interrupt handler of the driver
 * @ctx: the driver's context given to sroce_fw_attach()
 * @vector: enum sroce_fw_vector
 *
 * SROCE_VEC_CMD_COMPLETION and SROCE_VEC_ASYNC_EVENT run in process
 * context on the firmware's workqueue; SROCE_VEC_COMPLETION runs in
 * softirq context (a tasklet), as a NIC's completion interrupt would run
 * its handler at once, and must not sleep. A vector never runs
 * concurrently with itself. The handler must not wait for the firmware.
 */
typedef void (*sroce_fw_irq_fn)(void *ctx, unsigned int vector);

/**
 * struct sroce_fw_queue_cfg - queue rings owned by the driver
 * @cmdq: command queue, 1 << @cmdq_log2_depth entries
 * @cmd_cq: command completion queue, same depth as @cmdq
 * @cmdq_log2_depth: log2 of the number of command slots
 * @eq: asynchronous event queue, 1 << @eq_log2_depth entries
 * @eq_log2_depth: log2 of the number of event slots
 * @ceq: completion event queue (CQ_COMPLETION events only), 1 <<
 *	 @ceq_log2_depth entries
 * @ceq_log2_depth: log2 of the number of completion event slots
 *
 * All rings must be zeroed before attaching and stay allocated until
 * sroce_fw_detach() returns.
 */
struct sroce_fw_queue_cfg {
	struct sroce_cmd_entry *cmdq;
	struct sroce_cmd_completion *cmd_cq;
	unsigned int cmdq_log2_depth;
	struct sroce_eq_entry *eq;
	unsigned int eq_log2_depth;
	struct sroce_eq_entry *ceq;
	unsigned int ceq_log2_depth;
};

#define SROCE_FW_MAX_LOG2_DEPTH		12

int sroce_fw_subsystem_init(void);
void sroce_fw_subsystem_exit(void);

struct sroce_fw_dev *sroce_fw_attach(struct net_device *ndev,
				     const struct sroce_fw_queue_cfg *cfg,
				     sroce_fw_irq_fn irq, void *ctx);
void sroce_fw_arm_events(struct sroce_fw_dev *fw);
void sroce_fw_detach(struct sroce_fw_dev *fw);
void sroce_fw_stop(struct sroce_fw_dev *fw);
int sroce_fw_set_fault(struct sroce_fw_dev *fw, unsigned int fault,
		       u32 value);
int sroce_fw_set_rx_ecn(struct sroce_fw_dev *fw, u32 kmin, u32 kmax,
			u32 pmax_pct);
void sroce_fw_ring_cmd_doorbell(struct sroce_fw_dev *fw, u32 sq_tail);
void sroce_fw_ring_eq_doorbell(struct sroce_fw_dev *fw, u32 eq_head);
void sroce_fw_ring_ceq_doorbell(struct sroce_fw_dev *fw, u32 ceq_head);
void sroce_fw_ring_cq_arm_doorbell(struct sroce_fw_dev *fw, u32 cqn,
				   unsigned int how);
void sroce_fw_ring_sq_doorbell(struct sroce_fw_dev *fw, u32 qpn);
u16 sroce_fw_write_odp_xlt(struct sroce_fw_dev *fw,
			   const struct sroce_odp_xlt *x);

#endif /* SROCE_FW_BUS_H */
