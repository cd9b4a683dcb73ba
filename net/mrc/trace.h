/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mrc's tracepoints: mrc_pkt, one event per packet sent or taken, with
 * its entropy value, PSN and queue pair (the spec's mrc-monitor record);
 * mrc_rto, one per retransmission timeout, with the sender's state when
 * it fired, to tell a lost packet from a timer that was too short.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM mrc

#if !defined(_MRC_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _MRC_TRACE_H

#include <linux/in6.h>
#include <linux/math64.h>
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

TRACE_EVENT(mrc_rto,
	    TP_PROTO(u32 qpn, u32 snd_una, u32 outstanding, u32 inflight,
		     u32 cwnd, u32 rto_us, u32 backoff, u64 head_age_ns,
		     u8 head_flags, u32 idle_ms),
	    TP_ARGS(qpn, snd_una, outstanding, inflight, cwnd, rto_us,
		    backoff, head_age_ns, head_flags, idle_ms),
	    TP_STRUCT__entry(__field(u32, qpn)
			     __field(u32, snd_una)
			     __field(u32, outstanding)
			     __field(u32, inflight)
			     __field(u32, cwnd)
			     __field(u32, rto_us)
			     __field(u32, backoff)
			     __field(u64, head_age_us)
			     __field(u8, head_flags)
			     __field(u32, idle_ms)),
	    TP_fast_assign(__entry->qpn = qpn;
			   __entry->snd_una = snd_una;
			   __entry->outstanding = outstanding;
			   __entry->inflight = inflight;
			   __entry->cwnd = cwnd;
			   __entry->rto_us = rto_us;
			   __entry->backoff = backoff;
			   __entry->head_age_us = div_u64(head_age_ns,
							  NSEC_PER_USEC);
			   __entry->head_flags = head_flags;
			   __entry->idle_ms = idle_ms;),
	    TP_printk("qpn=%u snd_una=%u outstanding=%u inflight=%u cwnd=%u rto_us=%u backoff=%u head_age_us=%llu head_flags=0x%02x idle_ms=%u",
		      __entry->qpn, __entry->snd_una, __entry->outstanding,
		      __entry->inflight, __entry->cwnd, __entry->rto_us,
		      __entry->backoff, __entry->head_age_us,
		      __entry->head_flags, __entry->idle_ms)
);

#endif /* _MRC_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
