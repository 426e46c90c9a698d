// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Queue pair state machine: one rule per (set of current states, next
 * state, set of QP types), giving the attributes the transition requires
 * and those it accepts in addition. A (type, current, next) triple that no
 * rule covers is not a legal transition. At most one rule covers a triple.
 */
#include "qp_state.h"

#define QPS_SET(s)	(1U << (s))
#define QPT_SET(t)	(1U << (t))

#define QPS_ANY		(QPS_SET(SROCE_QPS_NUM) - 1)
#define QPT_ANY		(QPT_SET(SROCE_QPT_GSI) | QPT_SET(SROCE_QPT_RC) | \
			 QPT_SET(SROCE_QPT_UC) | QPT_SET(SROCE_QPT_UD))

/* Bind to a port and partition (RESET->INIT, INIT->INIT). */
#define INIT_CONNECTED	(SROCE_QPA_PKEY_INDEX | SROCE_QPA_PORT | \
			 SROCE_QPA_ACCESS_FLAGS)
#define INIT_UD		(SROCE_QPA_PKEY_INDEX | SROCE_QPA_PORT | SROCE_QPA_QKEY)
/* GSI QPs are tied to their port from creation. */
#define INIT_GSI	(SROCE_QPA_PKEY_INDEX | SROCE_QPA_QKEY)

/* Connect the receive side to the remote QP (INIT->RTR). */
#define RTR_UC		(SROCE_QPA_AV | SROCE_QPA_PATH_MTU | \
			 SROCE_QPA_DEST_QPN | SROCE_QPA_RQ_PSN)
#define RTR_RC		(RTR_UC | SROCE_QPA_MAX_DEST_RD_ATOMIC | \
			 SROCE_QPA_MIN_RNR_TIMER)
#define RTR_OPT_CONNECTED (SROCE_QPA_ALT_PATH | SROCE_QPA_ACCESS_FLAGS | \
			 SROCE_QPA_PKEY_INDEX)

/* Start the send side (RTR->RTS); the requester's retry parameters. */
#define RTS_RC		(SROCE_QPA_SQ_PSN | SROCE_QPA_TIMEOUT | \
			 SROCE_QPA_RETRY_CNT | SROCE_QPA_RNR_RETRY | \
			 SROCE_QPA_MAX_QP_RD_ATOMIC)

/*
 * What a sending QP may change on the way into or within RTS: path
 * migration for connected services, the Q_Key for datagram ones. The
 * current state may be asserted (CUR_STATE) on these transitions only.
 */
#define LIVE_UC		(SROCE_QPA_CUR_STATE | SROCE_QPA_ALT_PATH | \
			 SROCE_QPA_ACCESS_FLAGS | SROCE_QPA_PATH_MIG_STATE)
#define LIVE_RC		(LIVE_UC | SROCE_QPA_MIN_RNR_TIMER)
#define LIVE_DGRAM	(SROCE_QPA_CUR_STATE | SROCE_QPA_QKEY)

/* What a drained send queue allows to be changed (SQD->SQD). */
#define SQD_RC		(SROCE_QPA_PORT | SROCE_QPA_AV | SROCE_QPA_TIMEOUT | \
			 SROCE_QPA_RETRY_CNT | SROCE_QPA_RNR_RETRY | \
			 SROCE_QPA_MAX_QP_RD_ATOMIC | \
			 SROCE_QPA_MAX_DEST_RD_ATOMIC | SROCE_QPA_ALT_PATH | \
			 SROCE_QPA_ACCESS_FLAGS | SROCE_QPA_PKEY_INDEX | \
			 SROCE_QPA_MIN_RNR_TIMER | SROCE_QPA_PATH_MIG_STATE)
#define SQD_UC		(SROCE_QPA_AV | SROCE_QPA_ALT_PATH | \
			 SROCE_QPA_ACCESS_FLAGS | SROCE_QPA_PKEY_INDEX | \
			 SROCE_QPA_PATH_MIG_STATE)
#define SQD_DGRAM	(SROCE_QPA_PKEY_INDEX | SROCE_QPA_QKEY)

struct sroce_qp_rule {
	u8 from;	/* QPS_SET() of the current states it applies to */
	u8 to;		/* next state */
	u8 types;	/* QPT_SET() of the QP types it applies to */
	u32 req;	/* attributes that must be given */
	u32 opt;	/* attributes that may be given as well */
};

static const struct sroce_qp_rule sroce_qp_rules[] = {
	/* Reset is reachable from anywhere and takes no attributes. */
	{ QPS_ANY, SROCE_QPS_RESET, QPT_ANY, 0, 0 },
	/* So is Error, except from Reset (a QP there has no resources). */
	{ QPS_ANY & ~QPS_SET(SROCE_QPS_RESET), SROCE_QPS_ERR, QPT_ANY, 0, 0 },

	{ QPS_SET(SROCE_QPS_RESET), SROCE_QPS_INIT,
	  QPT_SET(SROCE_QPT_RC) | QPT_SET(SROCE_QPT_UC), INIT_CONNECTED, 0 },
	{ QPS_SET(SROCE_QPS_RESET), SROCE_QPS_INIT,
	  QPT_SET(SROCE_QPT_UD), INIT_UD, 0 },
	{ QPS_SET(SROCE_QPS_RESET), SROCE_QPS_INIT,
	  QPT_SET(SROCE_QPT_GSI), INIT_GSI, 0 },

	{ QPS_SET(SROCE_QPS_INIT), SROCE_QPS_INIT,
	  QPT_SET(SROCE_QPT_RC) | QPT_SET(SROCE_QPT_UC), 0, INIT_CONNECTED },
	{ QPS_SET(SROCE_QPS_INIT), SROCE_QPS_INIT,
	  QPT_SET(SROCE_QPT_UD), 0, INIT_UD },
	{ QPS_SET(SROCE_QPS_INIT), SROCE_QPS_INIT,
	  QPT_SET(SROCE_QPT_GSI), 0, INIT_GSI },

	{ QPS_SET(SROCE_QPS_INIT), SROCE_QPS_RTR,
	  QPT_SET(SROCE_QPT_RC), RTR_RC, RTR_OPT_CONNECTED },
	{ QPS_SET(SROCE_QPS_INIT), SROCE_QPS_RTR,
	  QPT_SET(SROCE_QPT_UC), RTR_UC, RTR_OPT_CONNECTED },
	{ QPS_SET(SROCE_QPS_INIT), SROCE_QPS_RTR,
	  QPT_SET(SROCE_QPT_UD) | QPT_SET(SROCE_QPT_GSI),
	  0, SROCE_QPA_PKEY_INDEX | SROCE_QPA_QKEY },

	/* RC and UD senders may also be paced (RATE_LIMIT). */
	{ QPS_SET(SROCE_QPS_RTR), SROCE_QPS_RTS,
	  QPT_SET(SROCE_QPT_RC), RTS_RC, LIVE_RC | SROCE_QPA_RATE_LIMIT },
	{ QPS_SET(SROCE_QPS_RTR), SROCE_QPS_RTS,
	  QPT_SET(SROCE_QPT_UC), SROCE_QPA_SQ_PSN, LIVE_UC },
	{ QPS_SET(SROCE_QPS_RTR), SROCE_QPS_RTS,
	  QPT_SET(SROCE_QPT_UD), SROCE_QPA_SQ_PSN,
	  LIVE_DGRAM | SROCE_QPA_RATE_LIMIT },
	{ QPS_SET(SROCE_QPS_RTR), SROCE_QPS_RTS,
	  QPT_SET(SROCE_QPT_GSI), SROCE_QPA_SQ_PSN, LIVE_DGRAM },

	{ QPS_SET(SROCE_QPS_RTS), SROCE_QPS_RTS,
	  QPT_SET(SROCE_QPT_RC), 0, LIVE_RC | SROCE_QPA_RATE_LIMIT },
	{ QPS_SET(SROCE_QPS_RTS), SROCE_QPS_RTS,
	  QPT_SET(SROCE_QPT_UC), 0, LIVE_UC },
	{ QPS_SET(SROCE_QPS_RTS), SROCE_QPS_RTS,
	  QPT_SET(SROCE_QPT_UD), 0, LIVE_DGRAM | SROCE_QPA_RATE_LIMIT },
	{ QPS_SET(SROCE_QPS_RTS), SROCE_QPS_RTS,
	  QPT_SET(SROCE_QPT_GSI), 0, LIVE_DGRAM },

	{ QPS_SET(SROCE_QPS_RTS), SROCE_QPS_SQD,
	  QPT_ANY, 0, SROCE_QPA_EN_SQD_ASYNC_NOTIFY },

	{ QPS_SET(SROCE_QPS_SQD), SROCE_QPS_RTS,
	  QPT_SET(SROCE_QPT_RC), 0, LIVE_RC },
	{ QPS_SET(SROCE_QPS_SQD), SROCE_QPS_RTS,
	  QPT_SET(SROCE_QPT_UC), 0, LIVE_UC },
	{ QPS_SET(SROCE_QPS_SQD), SROCE_QPS_RTS,
	  QPT_SET(SROCE_QPT_UD) | QPT_SET(SROCE_QPT_GSI), 0, LIVE_DGRAM },

	{ QPS_SET(SROCE_QPS_SQD), SROCE_QPS_SQD,
	  QPT_SET(SROCE_QPT_RC), 0, SQD_RC },
	{ QPS_SET(SROCE_QPS_SQD), SROCE_QPS_SQD,
	  QPT_SET(SROCE_QPT_UC), 0, SQD_UC },
	{ QPS_SET(SROCE_QPS_SQD), SROCE_QPS_SQD,
	  QPT_SET(SROCE_QPT_UD) | QPT_SET(SROCE_QPT_GSI), 0, SQD_DGRAM },

	/*
	 * Recovery from a send queue error. A reliable connection never
	 * enters SQE (its errors go straight to Error), so RC has no rule.
	 */
	{ QPS_SET(SROCE_QPS_SQE), SROCE_QPS_RTS,
	  QPT_SET(SROCE_QPT_UC), 0,
	  SROCE_QPA_CUR_STATE | SROCE_QPA_ACCESS_FLAGS },
	{ QPS_SET(SROCE_QPS_SQE), SROCE_QPS_RTS,
	  QPT_SET(SROCE_QPT_UD) | QPT_SET(SROCE_QPT_GSI), 0, LIVE_DGRAM },
};

static const struct sroce_qp_rule *sroce_qp_find_rule(unsigned int qp_type,
						      unsigned int cur,
						      unsigned int next)
{
	unsigned int i;

	if (qp_type < SROCE_QPT_GSI || qp_type > SROCE_QPT_UD ||
	    cur >= SROCE_QPS_NUM || next >= SROCE_QPS_NUM)
		return NULL;

	for (i = 0; i < ARRAY_SIZE(sroce_qp_rules); i++) {
		const struct sroce_qp_rule *r = &sroce_qp_rules[i];

		if ((r->from & QPS_SET(cur)) && r->to == next &&
		    (r->types & QPT_SET(qp_type)))
			return r;
	}
	return NULL;
}

/**
 * sroce_qp_modify_check() - validate a MODIFY_QP request
 * @qp_type: SROCE_QPT_* type of the QP
 * @cur: SROCE_QPS_* state the QP is in
 * @next: SROCE_QPS_* state requested; ignored unless @mask has
 *	SROCE_QPA_STATE, as a request without it modifies attributes in @cur
 * @mask: SROCE_QPA_* attributes the request carries
 * @missing: if not NULL, set to the required attributes @mask lacks
 * @extra: if not NULL, set to the attributes in @mask the transition does
 *	not accept
 *
 * The transition must exist for @qp_type, @mask must hold every attribute
 * it requires and nothing but those, the ones it accepts optionally and
 * SROCE_QPA_STATE. SROCE_QPA_CUR_STATE is only accepted on the
 * transitions into RTS from RTR, RTS, SQD and SQE.
 *
 * Return: 0 if the request is valid. -EINVAL otherwise; when the type, a
 * state or the transition itself is invalid, *@missing and *@extra are
 * both 0, else they tell which attributes are wrong.
 */
int sroce_qp_modify_check(unsigned int qp_type, unsigned int cur,
			  unsigned int next, u32 mask, u32 *missing,
			  u32 *extra)
{
	const struct sroce_qp_rule *rule;
	u32 lacking = 0, excess = 0;

	if (!(mask & SROCE_QPA_STATE))
		next = cur;
	rule = sroce_qp_find_rule(qp_type, cur, next);
	if (rule) {
		lacking = rule->req & ~mask;
		excess = mask & ~(rule->req | rule->opt | SROCE_QPA_STATE);
	}
	if (missing)
		*missing = lacking;
	if (extra)
		*extra = excess;
	return rule && !lacking && !excess ? 0 : -EINVAL;
}

static const char *const sroce_qp_state_names[SROCE_QPS_NUM] = {
	[SROCE_QPS_RESET] = "RESET",
	[SROCE_QPS_INIT] = "INIT",
	[SROCE_QPS_RTR] = "RTR",
	[SROCE_QPS_RTS] = "RTS",
	[SROCE_QPS_SQD] = "SQD",
	[SROCE_QPS_SQE] = "SQE",
	[SROCE_QPS_ERR] = "ERR",
};

/**
 * sroce_qp_state_name() - printable name of a QP state
 * @state: SROCE_QPS_* value
 *
 * Return: a static string, "INVALID" for an unknown state.
 */
const char *sroce_qp_state_name(unsigned int state)
{
	return state < SROCE_QPS_NUM ? sroce_qp_state_names[state] : "INVALID";
}

static const struct {
	u32 bit;
	const char *name;
} sroce_qp_attr_names[] = {
	{ SROCE_QPA_STATE, "STATE" },
	{ SROCE_QPA_CUR_STATE, "CUR_STATE" },
	{ SROCE_QPA_EN_SQD_ASYNC_NOTIFY, "EN_SQD_ASYNC_NOTIFY" },
	{ SROCE_QPA_ACCESS_FLAGS, "ACCESS_FLAGS" },
	{ SROCE_QPA_PKEY_INDEX, "PKEY_INDEX" },
	{ SROCE_QPA_PORT, "PORT" },
	{ SROCE_QPA_QKEY, "QKEY" },
	{ SROCE_QPA_AV, "AV" },
	{ SROCE_QPA_PATH_MTU, "PATH_MTU" },
	{ SROCE_QPA_TIMEOUT, "TIMEOUT" },
	{ SROCE_QPA_RETRY_CNT, "RETRY_CNT" },
	{ SROCE_QPA_RNR_RETRY, "RNR_RETRY" },
	{ SROCE_QPA_RQ_PSN, "RQ_PSN" },
	{ SROCE_QPA_MAX_QP_RD_ATOMIC, "MAX_QP_RD_ATOMIC" },
	{ SROCE_QPA_ALT_PATH, "ALT_PATH" },
	{ SROCE_QPA_MIN_RNR_TIMER, "MIN_RNR_TIMER" },
	{ SROCE_QPA_SQ_PSN, "SQ_PSN" },
	{ SROCE_QPA_MAX_DEST_RD_ATOMIC, "MAX_DEST_RD_ATOMIC" },
	{ SROCE_QPA_PATH_MIG_STATE, "PATH_MIG_STATE" },
	{ SROCE_QPA_CAP, "CAP" },
	{ SROCE_QPA_DEST_QPN, "DEST_QPN" },
	{ SROCE_QPA_RATE_LIMIT, "RATE_LIMIT" },
};

/**
 * sroce_qp_attr_name() - printable name of one attribute mask bit
 * @single_bit: exactly one SROCE_QPA_* bit, e.g. the lowest bit of an
 *	attribute set reported by sroce_qp_modify_check()
 *
 * Return: a static string, "INVALID" for 0, several bits or an undefined
 * bit.
 */
const char *sroce_qp_attr_name(u32 single_bit)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(sroce_qp_attr_names); i++)
		if (sroce_qp_attr_names[i].bit == single_bit)
			return sroce_qp_attr_names[i].name;
	return "INVALID";
}
