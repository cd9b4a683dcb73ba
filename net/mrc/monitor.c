// SPDX-License-Identifier: GPL-2.0
/* The monitor record: every packet event goes to the tracepoint
 * mrc:mrc_pkt and, while someone listens to the "monitor" multicast
 * group of the namespace, to them as a generic netlink message.
 *
 * Listening must never slow or stall the data path: a namespace sends at
 * most MRC_MON_PER_SEC events a second, allocates with GFP_ATOMIC and
 * never waits for a listener; what is not sent is counted in
 * monitor_drops.  With nobody listening an event costs one check.
 */
#include <linux/ktime.h>
#include <net/genetlink.h>

#include <mrc/mrc.h>

#define CREATE_TRACE_POINTS
#include "trace.h"

static void mrc_mon_send(struct mrc_net *mn, u32 qpn, u32 event, u16 ev,
			 u32 psn, const struct in6_addr *addr, int family)
{
	struct nlattr *nest;
	struct sk_buff *skb;
	void *hdr;
	int ret;

	if (!mrc_rate_admit(&mn->mon_rate, MRC_MON_PER_SEC))
		goto drop;
	skb = genlmsg_new(NLMSG_GOODSIZE < 256 ? NLMSG_GOODSIZE : 256,
			  GFP_ATOMIC);
	if (!skb)
		goto drop;
	hdr = genlmsg_put(skb, 0, 0, &mrc_genl_family, 0, MRC_CMD_MONITOR);
	if (!hdr)
		goto free;
	nest = nla_nest_start(skb, MRC_A_MON);
	if (!nest ||
	    nla_put_u32(skb, MRC_MON_A_EVENT, event) ||
	    nla_put_u32(skb, MRC_MON_A_QPN, qpn) ||
	    nla_put_u16(skb, MRC_MON_A_EV, ev) ||
	    nla_put_u32(skb, MRC_MON_A_PSN, psn) ||
	    (family == AF_INET ?
	     nla_put_in_addr(skb, MRC_MON_A_ADDR, addr->s6_addr32[3]) :
	     nla_put_in6_addr(skb, MRC_MON_A_ADDR, addr)) ||
	    nla_put_u64_64bit(skb, MRC_MON_A_TIME_NS, ktime_get_ns(),
			      MRC_MON_A_PAD))
		goto free;
	nla_nest_end(skb, nest);
	genlmsg_end(skb, hdr);
	ret = genlmsg_multicast_netns(&mrc_genl_family, mn->net, skb, 0,
				      MRC_MCGRP_MON_ID, GFP_ATOMIC);
	/* -ESRCH: the last listener left meanwhile. */
	if (ret && ret != -ESRCH)
		goto drop;
	if (!ret)
		mrc_stat_inc(mn, MRC_STAT_MONITOR_EVENTS);
	return;

free:
	nlmsg_free(skb);
drop:
	mrc_stat_inc(mn, MRC_STAT_MONITOR_DROPS);
}

/**
 * mrc_mon() - record one packet event
 * @mn: the namespace
 * @qpn: the local queue pair, 0 if none
 * @event: enum mrc_mon_event
 * @ev: the entropy value (see MRC_MON_A_EV)
 * @psn: the PSN, or the probe number of a probe event
 * @addr: the remote address (IPv4 v4-mapped)
 * @family: AF_INET or AF_INET6
 *
 * Context: any; BHs off or softirq.
 */
void mrc_mon(struct mrc_net *mn, u32 qpn, u32 event, u16 ev, u32 psn,
	     const struct in6_addr *addr, int family)
{
	trace_mrc_pkt(qpn, event, ev, psn, addr);
	if (genl_has_listeners(&mrc_genl_family, mn->net, MRC_MCGRP_MON_ID))
		mrc_mon_send(mn, qpn, event, ev, psn, addr, family);
}
