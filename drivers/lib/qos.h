/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Priority, DSCP and ECN of RoCE packets, and the notification point's
 * CNP pacing, as a ConnectX port applies them. Plain C, shared by the
 * firmware and the host unit tests.
 */
#ifndef SROCE_QOS_H
#define SROCE_QOS_H

#include "sroce_lib.h"

#define SROCE_QOS_NUM_PRIO	8
#define SROCE_QOS_NUM_DSCP	64

/* The ECN field, the low two bits of the IPv4 TOS / IPv6 traffic class */
#define SROCE_ECN_MASK		0x3
#define SROCE_ECN_NOT_ECT	0x0
#define SROCE_ECN_ECT1		0x1
#define SROCE_ECN_ECT0		0x2
#define SROCE_ECN_CE		0x3

/* How a port classifies its packets into priorities (mlnx_qos --trust) */
enum sroce_qos_trust {
	SROCE_TRUST_PCP = SROCE_QOS_TRUST_PCP,	/* priority: the SL (PCP) */
	SROCE_TRUST_DSCP = SROCE_QOS_TRUST_DSCP, /* priority: dscp2prio[] */
};

/**
 * struct sroce_qos - a port's classification and ECN settings
 * @trust: enum sroce_qos_trust
 * @rp_enable: bit N set: the reaction point works on priority N (its
 *	RoCE v2 packets leave ECT(0) and its CNPs are handled)
 * @np_enable: bit N set: the notification point answers CE marks on
 *	priority N with CNPs
 * @dscp2prio: priority of each DSCP in DSCP trust
 */
struct sroce_qos {
	u8 trust;
	u8 rp_enable;
	u8 np_enable;
	u8 dscp2prio[SROCE_QOS_NUM_DSCP];
};

void sroce_qos_default(struct sroce_qos *qos);
unsigned int sroce_qos_prio(const struct sroce_qos *qos, u8 sl, u8 tclass);
u8 sroce_qos_tclass(const struct sroce_qos *qos, unsigned int prio,
		    u8 tclass);

/**
 * sroce_np_cnp_due() - whether a CE mark earns a CNP now
 * @now_ns: arrival time of the marked packet
 * @last_ns: when this QP last got a CNP
 * @sent_before: whether it ever got one
 * @min_gap_us: np_min_time_between_cnps
 *
 * Return: true if a CNP is to be sent (the caller then records @now_ns).
 */
static inline bool sroce_np_cnp_due(u64 now_ns, u64 last_ns, bool sent_before,
				    u32 min_gap_us)
{
	return !sent_before || now_ns - last_ns >= (u64)min_gap_us * 1000;
}

#endif /* SROCE_QOS_H */
