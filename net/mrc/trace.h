/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mrc's tracepoint: one event per packet sent or taken, with its entropy
 * value, PSN and queue pair (the spec's mrc-monitor record).
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM mrc

#if !defined(_MRC_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _MRC_TRACE_H

#include <linux/in6.h>
#include <linux/tracepoint.h>

TRACE_EVENT(mrc_pkt,
	    TP_PROTO(u32 qpn, u32 event, u16 ev, u32 psn,
		     const struct in6_addr *addr),
	    TP_ARGS(qpn, event, ev, psn, addr),
	    TP_STRUCT__entry(__field(u32, qpn)
			     __field(u32, event)
			     __field(u16, ev)
			     __field(u32, psn)
			     __array(u8, addr, sizeof(struct in6_addr))),
	    TP_fast_assign(__entry->qpn = qpn;
			   __entry->event = event;
			   __entry->ev = ev;
			   __entry->psn = psn;
			   memcpy(__entry->addr, addr,
				  sizeof(struct in6_addr));),
	    TP_printk("qpn=%u event=%u ev=%u psn=%u addr=%pI6c",
		      __entry->qpn, __entry->event, __entry->ev,
		      __entry->psn, __entry->addr)
);

#endif /* _MRC_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
