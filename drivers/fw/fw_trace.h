/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Tracepoints of the firmware's congestion control (system "sroce"), so
 * that perf and trace-cmd can draw the control loop: CNPs sent and
 * received, every change of a QP's reaction point, and the pauses of
 * priority flow control. A function is named by the ifindex of its
 * netdev in the netdev's namespace.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM sroce

#if !defined(SROCE_FW_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define SROCE_FW_TRACE_H

#include <linux/tracepoint.h>

TRACE_EVENT(sroce_cnp_sent,
	    TP_PROTO(int ifindex, u32 qpn, u32 dest_qpn, u8 prio, u8 tclass),
	    TP_ARGS(ifindex, qpn, dest_qpn, prio, tclass),
	    TP_STRUCT__entry(__field(int, ifindex)
			     __field(u32, qpn)
			     __field(u32, dest_qpn)
			     __field(u8, prio)
			     __field(u8, tclass)),
	    TP_fast_assign(__entry->ifindex = ifindex;
			   __entry->qpn = qpn;
			   __entry->dest_qpn = dest_qpn;
			   __entry->prio = prio;
			   __entry->tclass = tclass;),
	    TP_printk("ifindex=%d qpn=%u dest_qpn=%u prio=%u dscp=%u",
		      __entry->ifindex, __entry->qpn, __entry->dest_qpn,
		      __entry->prio, __entry->tclass >> 2)
);

TRACE_EVENT(sroce_cnp_recv,
	    TP_PROTO(int ifindex, u32 qpn, bool handled),
	    TP_ARGS(ifindex, qpn, handled),
	    TP_STRUCT__entry(__field(int, ifindex)
			     __field(u32, qpn)
			     __field(bool, handled)),
	    TP_fast_assign(__entry->ifindex = ifindex;
			   __entry->qpn = qpn;
			   __entry->handled = handled;),
	    TP_printk("ifindex=%d qpn=%u %s", __entry->ifindex, __entry->qpn,
		      __entry->handled ? "handled" : "ignored")
);

TRACE_EVENT(sroce_rate,
	    TP_PROTO(int ifindex, u32 qpn, u64 old_kbps, u64 rc_kbps, u64 rt_kbps,
		     u16 alpha, bool active),
	    TP_ARGS(ifindex, qpn, old_kbps, rc_kbps, rt_kbps, alpha, active),
	    TP_STRUCT__entry(__field(int, ifindex)
			     __field(u32, qpn)
			     __field(u64, old_kbps)
			     __field(u64, rc_kbps)
			     __field(u64, rt_kbps)
			     __field(u16, alpha)
			     __field(bool, active)),
	    TP_fast_assign(__entry->ifindex = ifindex;
			   __entry->qpn = qpn;
			   __entry->old_kbps = old_kbps;
			   __entry->rc_kbps = rc_kbps;
			   __entry->rt_kbps = rt_kbps;
			   __entry->alpha = alpha;
			   __entry->active = active;),
	    TP_printk("ifindex=%d qpn=%u rate=%llu->%llu target=%llu kbit/s alpha=%u/1024%s",
		      __entry->ifindex, __entry->qpn, __entry->old_kbps,
		      __entry->rc_kbps, __entry->rt_kbps, __entry->alpha,
		      __entry->active ? "" : " released")
);

TRACE_EVENT(sroce_pause_recv,
	    TP_PROTO(int ifindex, u8 prio, u16 quanta, u64 pause_ns, bool obeyed),
	    TP_ARGS(ifindex, prio, quanta, pause_ns, obeyed),
	    TP_STRUCT__entry(__field(int, ifindex)
			     __field(u8, prio)
			     __field(u16, quanta)
			     __field(u64, pause_ns)
			     __field(bool, obeyed)),
	    TP_fast_assign(__entry->ifindex = ifindex;
			   __entry->prio = prio;
			   __entry->quanta = quanta;
			   __entry->pause_ns = pause_ns;
			   __entry->obeyed = obeyed;),
	    TP_printk("ifindex=%d prio=%u quanta=%u pause_ns=%llu%s",
		      __entry->ifindex, __entry->prio, __entry->quanta,
		      __entry->pause_ns, __entry->obeyed ? "" : " ignored")
);

TRACE_EVENT(sroce_pause_sent,
	    TP_PROTO(int ifindex, u8 prio, u16 quanta),
	    TP_ARGS(ifindex, prio, quanta),
	    TP_STRUCT__entry(__field(int, ifindex)
			     __field(u8, prio)
			     __field(u16, quanta)),
	    TP_fast_assign(__entry->ifindex = ifindex;
			   __entry->prio = prio;
			   __entry->quanta = quanta;),
	    TP_printk("ifindex=%d prio=%u quanta=%u %s",
		      __entry->ifindex, __entry->prio, __entry->quanta,
		      __entry->quanta ? "xoff" : "xon")
);

TRACE_EVENT(sroce_pause_end,
	    TP_PROTO(int ifindex, u8 prio, u64 held_ns, bool expired),
	    TP_ARGS(ifindex, prio, held_ns, expired),
	    TP_STRUCT__entry(__field(int, ifindex)
			     __field(u8, prio)
			     __field(u64, held_ns)
			     __field(bool, expired)),
	    TP_fast_assign(__entry->ifindex = ifindex;
			   __entry->prio = prio;
			   __entry->held_ns = held_ns;
			   __entry->expired = expired;),
	    TP_printk("ifindex=%d prio=%u held_ns=%llu %s",
		      __entry->ifindex, __entry->prio, __entry->held_ns,
		      __entry->expired ? "expired" : "xon")
);

#endif /* SROCE_FW_TRACE_H */

/* Out of the kernel tree: the header is found next to its users. */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE fw_trace
#include <trace/define_trace.h>
