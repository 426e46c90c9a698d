// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Priority, DSCP and ECN of RoCE packets (qos.h). ConnectX's defaults:
 * PCP trust, the reaction and notification points on every priority
 * (ROCE_CC_PRIO_MASK 255), and a DSCP map of DSCP >> 3, so that DSCP 48
 * (CNPs) is priority 6 and DSCP 26 (a common RoCE class) priority 3.
 */
#include "qos.h"

/**
 * sroce_qos_default() - a port's settings after device creation
 * @qos: result
 */
void sroce_qos_default(struct sroce_qos *qos)
{
	unsigned int dscp;

	qos->trust = SROCE_TRUST_PCP;
	qos->rp_enable = 0xff;
	qos->np_enable = 0xff;
	for (dscp = 0; dscp < SROCE_QOS_NUM_DSCP; dscp++)
		qos->dscp2prio[dscp] = dscp >> 3;
}

/**
 * sroce_qos_prio() - the priority of a QP's packets
 * @qos: the port's settings
 * @sl: the address vector's service level
 * @tclass: its traffic class (DSCP in the upper six bits)
 *
 * Return: 0..7.
 */
unsigned int sroce_qos_prio(const struct sroce_qos *qos, u8 sl, u8 tclass)
{
	if (qos->trust == SROCE_TRUST_DSCP)
		return qos->dscp2prio[tclass >> 2] % SROCE_QOS_NUM_PRIO;
	return sl % SROCE_QOS_NUM_PRIO;
}

/**
 * sroce_qos_tclass() - the traffic class a RoCE v2 packet leaves with
 * @qos: the port's settings
 * @prio: the packet's priority (sroce_qos_prio())
 * @tclass: the address vector's traffic class
 *
 * The DSCP is the address vector's; the ECN field is the port's, whatever
 * the application asked: ECT(0) where the reaction point works on
 * @prio, so that switches mark instead of dropping, else Not-ECT.
 *
 * Return: the IPv4 TOS / IPv6 traffic class byte.
 */
u8 sroce_qos_tclass(const struct sroce_qos *qos, unsigned int prio, u8 tclass)
{
	u8 ecn = qos->rp_enable & (1U << (prio % SROCE_QOS_NUM_PRIO)) ?
		 SROCE_ECN_ECT0 : SROCE_ECN_NOT_ECT;

	return (tclass & ~SROCE_ECN_MASK) | ecn;
}
