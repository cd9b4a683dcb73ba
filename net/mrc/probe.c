// SPDX-License-Identifier: GPL-2.0
/* Probes: how a value assumed bad comes back into the rotation.
 *
 * While some destination of the namespace has a value assumed bad, one
 * hrtimer sends, every probe-period, one probe to each such destination,
 * on its bad values in turn; a probe goes between the mrc ports of an
 * open queue pair to the destination, so its receiver answers only where
 * it has that queue pair too.  The answer, a SACK flagged as a probe
 * response that leaves the receiver's PSN state alone, returns the value
 * to the rotation and gives an RTT sample with no data packet in it.
 */
#include <linux/ktime.h>
#include <linux/netdevice.h>
#include <net/inet_ecn.h>
#include <net/ip6_route.h>
#include <net/ipv6_stubs.h>
#include <net/route.h>

#include <mrc/mrc.h>

/* Probe numbers, counted back from the last probe on a value, that may
 * still be answered: the destination's probes are numbered in one
 * sequence, so this spans at least 1024 / k probes on each of its k bad
 * values.
 */
#define MRC_PROBE_ID_WINDOW	1024
/* Periods a late timer catches up on at once. */
#define MRC_PROBE_BURST		4

static u32 mrc_probe_now_us(void)
{
	return (u32)div_u64(ktime_get_ns(), NSEC_PER_USEC);
}

static ktime_t mrc_probe_period(struct mrc_net *mn)
{
	u32 us;

	rcu_read_lock();
	us = mrc_cfg(mn)->probe_period_us;
	rcu_read_unlock();
	return ns_to_ktime((u64)us * NSEC_PER_USEC);
}

/**
 * mrc_probe_arm() - start probing, a value having just gone bad
 * @mn: the namespace
 *
 * The timer is started only when it is neither queued nor running: a
 * running one is told to run again instead, so that only its own
 * callback ever forwards it.
 */
void mrc_probe_arm(struct mrc_net *mn)
{
	spin_lock_bh(&mn->probe_lock);
	if (mn->probe_stop) {
		/* Namespace exit: nothing probes any more. */
	} else if (mn->probe_armed) {
		mn->probe_kick = true;
	} else {
		mn->probe_armed = true;
		hrtimer_start(&mn->probe_timer, mrc_probe_period(mn),
			      HRTIMER_MODE_REL_SOFT);
	}
	spin_unlock_bh(&mn->probe_lock);
}

/* What one probe needs, taken under the peer's lock. */
struct mrc_probe {
	struct mrc_local local;	/* that of the QP it names */
	struct in6_addr daddr;
	int family;
	u32 qpn;
	u16 ev;
	struct mrc_probe_hdr h;
};

/* Under @p's lock: the queue pair a probe to @p goes between the ports
 * of: one whose socket is open, whose peer keeps its end as long; else
 * one still delivering after close().
 */
static struct mrc_qp *mrc_probe_qp(struct mrc_peer *p)
{
	struct mrc_qp *qp, *lingering = NULL;

	list_for_each_entry(qp, &p->qps, peer_node) {
		/* Nor one whose peer never acknowledged our data (which
		 * also validates it): its address may be forged, or nobody
		 * there answers, and probes would go to it unasked, a
		 * period apart, until the QP fails (see MRC_AMP_FACTOR).
		 */
		if (READ_ONCE(qp->dead) || !READ_ONCE(qp->proven))
			continue;
		if (!READ_ONCE(qp->ms->closing))
			return qp;
		lingering = lingering ?: qp;
	}
	return lingering;
}

/* Under @p's lock: the next probe to @p, if it has an open queue pair
 * and a value assumed bad.  The value's turn is taken even if the probe
 * is not sent after all (mrc_probe_send()): the rotation moves on.
 */
static bool mrc_probe_next(struct mrc_peer *p, struct mrc_probe *pr)
{
	struct mrc_qp *qp = mrc_probe_qp(p);
	int ev;

	if (!qp)
		return false;
	ev = mrc_spray_next_probe(&p->spray);
	if (ev < 0)
		return false;
	/* From the QP's own address: the peer answers where it has the
	 * QP, which it knows by the address it sends to.
	 */
	pr->local = qp->local;
	pr->daddr = p->addr;
	pr->family = p->family;
	pr->qpn = qp->qpn;
	pr->ev = ev;
	/* The QP's tag: the peer answers only a probe with it
	 * (include/mrc/tag.h), read here without the QP's lock.
	 */
	pr->h = (struct mrc_probe_hdr){
		.dport = qp->rport,
		.sport = qp->lport,
		.tag = READ_ONCE(qp->tags.local),
	};
	return true;
}

/* Under @p's lock: number and time the probe about to be sent, so that
 * its answer is known for one (mrc_rx_probe_resp()).  Done before it is
 * sent, as an answer may come back before the sender's next look at @p;
 * it is counted only once sent (mrc_probe_sent()).
 */
static void mrc_probe_stamp(struct mrc_peer *p, struct mrc_probe *pr)
{
	u16 i = mrc_spray_index(&p->spray, pr->ev);

	p->spray.flags[i] |= MRC_EV_PROBED;
	p->ev[i].probe_id = p->probe_seq++;
	p->ev[i].probe_us = mrc_probe_now_us();
	pr->h.id = p->ev[i].probe_id;
	pr->h.ts = (u16)p->ev[i].probe_us;
}

/* Count a probe the IP layer took. */
static void mrc_probe_sent(struct mrc_net *mn, struct mrc_peer *p,
			   const struct mrc_probe *pr)
{
	spin_lock(&p->lock);
	p->ev[mrc_spray_index(&p->spray, pr->ev)].probes_tx++;
	p->nr_probe_tx++;
	spin_unlock(&p->lock);
	mrc_stat_inc(mn, MRC_STAT_PROBE_TX);
	mrc_mon(mn, pr->qpn, MRC_MON_PROBE_TX, pr->ev, pr->h.id, &pr->daddr,
		pr->family);
}

/* Whether the driver stopped every transmit queue of @dev: its rings
 * are full (netif_tx_queue_stopped()).  Not the byte queue limits' stop
 * that netif_xmit_stopped() also sees: that one paces a busy NIC on and
 * off all the time while its qdisc still takes packets, and probes would
 * be skipped exactly when the links are loaded.
 *
 * A multi-queue device picks a packet's queue only once the packet
 * reaches it (netdev_core_pick_tx(): the driver's choice, XPS by the
 * sending CPU, or a hash of the packet), so which queue a probe would
 * take cannot be known before it is built and routed.  One stopped
 * queue of a busy multi-queue device says little: the probe may well go
 * to one with room, and skipping on it would starve probing.  All of
 * them stopped means no room whichever queue is picked.  A device that
 * queues nothing itself (veth, or an upper device such as a VLAN, bond
 * or VRF over the real one) never shows a stop here: probes go.
 */
static bool mrc_dev_xmit_stopped(struct net_device *dev)
{
	unsigned int i;

	for (i = 0; i < dev->real_num_tx_queues; i++)
		if (!netif_tx_queue_stopped(netdev_get_tx_queue(dev, i)))
			return false;
	return dev->real_num_tx_queues > 0;
}

/* Whether the device a probe would leave by has no room for it (spec:
 * "when the egress pool has no room for it, it is not sent").  The route
 * is the one mrc_xmit() sends the probe by, that of the probed value.
 * With no route the probe goes on to mrc_xmit(), which counts the
 * failure as for every packet.
 */
static bool mrc_probe_egress_stopped(struct mrc_net *mn,
				     const struct mrc_probe *pr, u8 tos)
{
	struct net_device *dev;
	struct dst_entry *dst;
	struct flowi fl;
	bool stopped;

	dst = mrc_route(mn, NULL, pr->family, &pr->local, &pr->daddr, pr->ev,
			tos, &fl);
	if (IS_ERR(dst))
		return false;
	dev = dst->dev;
	stopped = dev && mrc_dev_xmit_stopped(dev);
	dst_release(dst);
	return stopped;
}

/* Sends the probe @pr to @p, unless its egress device has no room. */
static void mrc_probe_send(struct mrc_net *mn, struct mrc_peer *p,
			   struct mrc_probe *pr)
{
	struct sk_buff *skb;
	u8 tos;

	/* The data class, as a first transmission of data. */
	rcu_read_lock();
	tos = mrc_data_tos(mrc_cfg(mn), false);
	rcu_read_unlock();
	if (mrc_probe_egress_stopped(mn, pr, tos)) {
		mrc_stat_inc(mn, MRC_STAT_PROBE_SKIP_QUEUE_STOPPED);
		return;
	}
	spin_lock(&p->lock);
	mrc_probe_stamp(p, pr);
	spin_unlock(&p->lock);

	/* No memory is no drop reason of its own on the sending side:
	 * tx_errors counts it, as for every packet mrc builds.
	 */
	skb = mrc_alloc_skb(MRC_BTH_LEN + MRC_PETH_LEN);
	if (!skb) {
		mrc_stat_inc(mn, MRC_STAT_TX_ERRORS);
		return;
	}
	skb_put(skb, mrc_put_probe_hdr(skb->data, &pr->h));
	mrc_skb_set_sport(skb, pr->ev, tos);
	/* Counted once the IP layer took it: mrc_xmit() counts a failure. */
	if (!mrc_xmit(mn, pr->family, &pr->local, &pr->daddr, skb))
		mrc_probe_sent(mn, p, pr);
}

/**
 * mrc_probe_fire() - the namespace's probe timer
 * @t: the timer
 *
 * Runs in softirq context.  Each period that passed since it last ran
 * (a softirq may run late, under load), up to MRC_PROBE_BURST, sends one
 * probe to each destination that has a value assumed bad: on average one
 * probe a period, as the spec says.
 *
 * A probe whose egress device has no room is not sent, and its value's
 * turn is over all the same: the rotation moves on rather than retry
 * the value at the next period.  A full queue says nothing of the value
 * (it is the host's own egress), and with a multipath route the next
 * value may leave by another device that has room, where retrying would
 * hold up every value behind the stopped one; the skipped value is
 * probed at its next turn, k periods on with k values assumed bad, as if
 * its probe had been lost, which the spec already allows for.
 *
 * Return: HRTIMER_RESTART while some destination has a value assumed bad.
 */
enum hrtimer_restart mrc_probe_fire(struct hrtimer *t)
{
	struct mrc_net *mn = container_of(t, struct mrc_net, probe_timer);
	struct mrc_peer *p;
	struct mrc_probe pr;
	bool more = false;
	u64 periods;
	int bkt, k;

	spin_lock(&mn->probe_lock);
	periods = hrtimer_forward_now(t, mrc_probe_period(mn));
	mn->probe_kick = false;
	spin_unlock(&mn->probe_lock);
	periods = clamp_t(u64, periods, 1, MRC_PROBE_BURST);

	rcu_read_lock();
	hash_for_each_rcu(mn->peers, bkt, p, node) {
		if (p->spraying != MRC_SPRAYING_DEFAULT ||
		    !READ_ONCE(p->spray.nr_bad))
			continue;
		for (k = 0; k < periods; k++) {
			bool send;

			spin_lock(&p->lock);
			send = mrc_probe_next(p, &pr);
			/* Nothing to probe through (no QP its peer
			 * answered): the timer rests until one is
			 * proven (mrc_qp_rx_ack()).
			 */
			more |= send;
			spin_unlock(&p->lock);
			if (!send)
				break;
			mrc_probe_send(mn, p, &pr);
		}
	}
	rcu_read_unlock();

	spin_lock(&mn->probe_lock);
	more = (more || mn->probe_kick) && !mn->probe_stop;
	mn->probe_armed = more;
	spin_unlock(&mn->probe_lock);
	return more ? HRTIMER_RESTART : HRTIMER_NORESTART;
}

/**
 * mrc_rx_probe() - answer a probe
 * @mn: the namespace
 * @p: the packet's mrc headers, checked
 * @saddr: its source (IPv4 v4-mapped)
 * @l: its destination and link
 * @family: AF_INET or AF_INET6
 * @entropy: its UDP source port, the probed value
 *
 * Only a probe between the ports of an open queue pair, with its peer's
 * tag, is answered: a forged one draws nothing, so probes cannot reflect
 * traffic.  The answer goes from the address the probe came to, which is
 * the QP's.
 *
 * Return: 0, or the drop reason of a probe not answered.
 */
u16 mrc_rx_probe(struct mrc_net *mn, const u8 *p, const struct in6_addr *saddr,
		 const struct mrc_local *l, int family, u16 entropy)
{
	u16 t0 = (u16)mrc_probe_now_us();
	struct mrc_probe_hdr h;
	struct mrc_tags t;
	struct mrc_ack_hdr a;
	struct sk_buff *skb;
	struct mrc_sock *ms;
	struct mrc_qp *qp;

	mrc_get_probe_hdr(p, &h);
	ms = mrc_sock_lookup(mn, family, h.dport, l);
	qp = ms ? mrc_qp_lookup(ms, l, saddr, h.sport) : NULL;
	if (!qp || READ_ONCE(qp->dead)) {
		mrc_stat_inc(mn, MRC_STAT_RX_DROP_NO_QP);
		return SKB_DROP_REASON_NO_SOCKET;
	}
	/* Read without the QP's lock: a tag that changes meanwhile drops
	 * one probe, which the prober's next one makes good.
	 */
	t.local = READ_ONCE(qp->tags.local);
	t.peer = READ_ONCE(qp->tags.peer);
	if (!mrc_tag_probe(&t, h.tag)) {
		mrc_stat_inc(mn, MRC_STAT_RX_DROP_BAD_TAG);
		return SKB_DROP_REASON_NOT_SPECIFIED;
	}
	mrc_stat_inc(mn, MRC_STAT_PROBE_RX);
	mrc_mon(mn, qp->qpn, MRC_MON_PROBE_RX, entropy, h.id, saddr, family);

	a = (struct mrc_ack_hdr){
		.opcode = MRC_OP_SACK,
		.dport = h.sport,
		.sport = h.dport,
		.psn = MRC_PSN_MASK,
		.flags = MRC_SETH_PROBE_RESP,
		.acked_off = (s16)h.id,
		.entropy = entropy,
		.ts_echo = h.ts,
		/* Service time: from taking the probe to answering it. */
		.sack_off = (s16)(u16)((u16)mrc_probe_now_us() - t0),
		.tagged = 1,
		.tag = t.local,
		.tag_echo = t.peer,
	};
	skb = mrc_alloc_skb(MRC_BTH_LEN + MRC_SETH_LEN + MRC_CCSTATE_LEN);
	if (!skb) {
		mrc_stat_inc(mn, MRC_STAT_TX_ERRORS);
		return 0;
	}
	skb_put(skb, mrc_put_ack_hdr(skb->data, &a));
	/* The control class, as every acknowledgment. */
	mrc_skb_set_sport(skb, entropy, mrc_control_tos(mn));
	mrc_stat_inc(mn, MRC_STAT_PROBE_RESP_TX);
	mrc_mon(mn, qp->qpn, MRC_MON_PROBE_RESP_TX, entropy, h.id, saddr,
		family);
	mrc_xmit(mn, family, l, saddr, skb);
	return 0;
}

/**
 * mrc_rx_probe_resp() - a probe was answered
 * @qp: the queue pair it was sent for, locked, not dead
 * @h: the response
 *
 * Only the answer to a recent probe counts: its value must have been
 * probed, and its number be at most MRC_PROBE_ID_WINDOW before that of
 * the last probe sent on the value (a round trip may outlast several
 * periods, so the last probe is not always the one answered); a response
 * to no such probe is dropped and brings nothing back.  A value assumed
 * bad returns to the rotation; one already back (an earlier probe on it
 * was answered first) stays as it is.  The answer to the last probe also
 * gives a round trip, timed from that probe's own send time less the
 * receiver's service time, which may lower the base RTT.
 */
void mrc_rx_probe_resp(struct mrc_qp *qp, const struct mrc_ack_hdr *h)
{
	struct mrc_peer *p = qp->peer;
	u32 now = mrc_probe_now_us(), rtt = 0;
	bool ours = false;
	int restored = 0;
	u16 i;

	if (!p || p->spraying != MRC_SPRAYING_DEFAULT) {
		mrc_qp_stat_inc(qp, MRC_STAT_RX_DROP_OUT_OF_WINDOW);
		return;
	}
	spin_lock(&p->lock);
	i = mrc_spray_index(&p->spray, h->entropy);
	if (i != MRC_SPRAY_NONE && p->spray.flags[i] & MRC_EV_PROBED &&
	    (u16)(p->ev[i].probe_id - (u16)h->acked_off) <
	    MRC_PROBE_ID_WINDOW) {
		ours = true;
		restored = mrc_spray_restore(&p->spray, h->entropy);
		p->ev[i].probes_rx++;
		p->nr_probe_rx++;
		if (p->ev[i].probe_id == (u16)h->acked_off) {
			rtt = now - p->ev[i].probe_us;
			rtt -= min_t(u32, rtt, (u16)h->sack_off);
		}
		/* A round trip over a second is no sample. */
		if (rtt > USEC_PER_SEC)
			rtt = 0;
		if (rtt && (!p->base_rtt_us || rtt < p->base_rtt_us))
			p->base_rtt_us = rtt;
	}
	spin_unlock(&p->lock);
	/* An answer to no recent probe: stale, or never asked for. */
	if (!ours) {
		mrc_qp_stat_inc(qp, MRC_STAT_RX_DROP_OUT_OF_WINDOW);
		return;
	}
	mrc_qp_stat_inc(qp, MRC_STAT_PROBE_RESP_RX);
	if (restored)
		mrc_qp_stat_inc(qp, MRC_STAT_EV_RESTORED);
	mrc_qp_mon(qp, MRC_MON_PROBE_RESP_RX, h->entropy, (u16)h->acked_off);
	if (rtt && (!qp->base_rtt_us || rtt < qp->base_rtt_us))
		qp->base_rtt_us = rtt;
}
