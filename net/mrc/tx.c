// SPDX-License-Identifier: GPL-2.0
/* Sender: segmenting messages into packets, the SACK scoreboard, loss
 * recovery and the retransmission timeout.
 *
 * Everything here runs under the queue pair's lock, with BHs off; packets
 * are built under it into a list and sent once it is released.
 */
#include <linux/random.h>
#include <linux/security.h>
#include <linux/vmalloc.h>
#include <net/ip.h>
#include <net/ip6_route.h>
#include <net/ip_tunnels.h>
#include <net/route.h>
#include <net/udp_tunnel.h>
#include <net/ipv6_stubs.h>

#include <mrc/amp.h>
#include <mrc/mrc.h>

#include "trace.h"

/* Room for link, IP and UDP headers in front of mrc's. */
#define MRC_HEADROOM	(LL_MAX_HEADER + sizeof(struct ipv6hdr) + \
			 sizeof(struct udphdr))

struct mrc_skb_cb {
	u16 sport;
	u8 tos;
	bool frag;	/* larger than the path takes: IP may fragment it */
};

static struct mrc_skb_cb *mrc_cb(struct sk_buff *skb)
{
	BUILD_BUG_ON(sizeof(struct mrc_skb_cb) > sizeof(skb->cb));
	return (struct mrc_skb_cb *)skb->cb;
}

/**
 * mrc_alloc_skb() - an skb for an mrc packet of @len bytes after UDP
 * @len: bytes of mrc headers and payload
 *
 * Return: the skb, its data empty at the mrc headers, or NULL.
 */
struct sk_buff *mrc_alloc_skb(unsigned int len)
{
	struct sk_buff *skb;

	skb = alloc_skb(MRC_HEADROOM + len, GFP_ATOMIC);
	if (!skb)
		return NULL;
	skb_reserve(skb, MRC_HEADROOM);
	return skb;
}

/**
 * mrc_skb_set_sport() - the UDP source port a packet is sent from
 * @skb: the packet
 * @sport: its entropy value
 * @tos: the IP TOS / traffic class byte
 */
void mrc_skb_set_sport(struct sk_buff *skb, u16 sport, u8 tos)
{
	mrc_cb(skb)->sport = sport;
	mrc_cb(skb)->tos = tos;
}

/**
 * mrc_route() - the route an mrc packet takes
 * @mn: the namespace it is sent in
 * @sk: the mrc socket sending it, or NULL (probes, refusals): its mark
 *	and owner select the route as for any socket's packet (ip rule
 *	fwmark, uidrange), and the LSM labels the flow
 * @family: AF_INET or AF_INET6
 * @l: the source address and, for a link-local end, the link; or NULL,
 *	or an unspecified address, for the route's choice of source
 * @daddr: destination (IPv4 v4-mapped)
 * @sport: the UDP source port: the entropy value, on which a multipath
 *	route may hash, so that two values to one destination can leave by
 *	different routes
 * @tos: the TOS byte (IPv4)
 * @fl: the flow looked up, filled in: its source address is the packet's
 *
 * Every packet is routed here, data, acknowledgments and probes alike,
 * and so is a probe's egress device found (probe.c): each takes the
 * route its own value gives.  A queue pair's packets go from its local
 * address, replies with no queue pair from the address the packet they
 * answer came to: a peer knows us by the address it sent to.  A source
 * that is no longer local fails the lookup, as for a connected UDP
 * socket, and the packet is counted in tx_errors.
 *
 * Return: the route, held, or an ERR_PTR.
 */
struct dst_entry *mrc_route(struct mrc_net *mn, struct sock *sk,
			    int family, const struct mrc_local *l,
			    const struct in6_addr *daddr, u16 sport,
			    u8 tos, struct flowi *fl)
{
	static const struct mrc_local any;
	u32 mark = sk ? READ_ONCE(sk->sk_mark) : 0;
	struct rtable *rt;

	if (!l)
		l = &any;
	if (family == AF_INET6) {
#if IS_ENABLED(CONFIG_IPV6)
		/* An AF_INET6 mrc socket is an IPv6 one to the routing
		 * (source preferences); no other may be given.
		 */
		struct sock *sk6 = sk && sk->sk_family == AF_INET6 ? sk : NULL;

		fl->u.ip6 = (struct flowi6){
			.daddr = *daddr,
			.saddr = l->addr,
			.flowi6_oif = l->ifindex,
			.flowi6_proto = IPPROTO_UDP,
			.flowi6_mark = mark,
			.flowi6_uid = sock_net_uid(mn->net, sk),
			.fl6_sport = htons(sport),
			.fl6_dport = htons(MRC_UDP_PORT),
		};
		if (sk)
			security_sk_classify_flow(sk, flowi6_to_flowi_common(&fl->u.ip6));
		return ipv6_stub->ipv6_dst_lookup_flow(mn->net, sk6, &fl->u.ip6,
						       NULL);
#else
		return ERR_PTR(-EAFNOSUPPORT);
#endif
	}
	fl->u.ip4 = (struct flowi4){
		.daddr = daddr->s6_addr32[3],
		/* 0 for an unspecified one, all zeros */
		.saddr = l->addr.s6_addr32[3],
		.flowi4_proto = IPPROTO_UDP,
		.flowi4_tos = RT_TOS(tos),
		.flowi4_mark = mark,
		.flowi4_uid = sock_net_uid(mn->net, sk),
		.fl4_sport = htons(sport),
		.fl4_dport = htons(MRC_UDP_PORT),
	};
	if (sk)
		security_sk_classify_flow(sk, flowi4_to_flowi_common(&fl->u.ip4));
	rt = ip_route_output_key(mn->net, &fl->u.ip4);
	return IS_ERR(rt) ? ERR_CAST(rt) : &rt->dst;
}

/* Sent by the mrc socket that owns @skb (mrc_qp_flush()), or by none
 * (probes, refusals): never by the UDP/4791 sockets, which only receive
 * and may close under a timer's packet once the namespace's last mrc
 * socket is gone (socket.c).  Given to IP as the sending socket, the mrc
 * socket is what netfilter's LOCAL_OUT and the cgroup's egress BPF
 * programs see (these run for a socket that owns the skb); its mark and
 * priority go on the packet, as UDP's do.
 */
static int mrc_xmit_one(struct mrc_net *mn, int family,
			const struct mrc_local *l,
			const struct in6_addr *daddr, struct sk_buff *skb,
			u16 sport, u8 tos, bool frag, u32 *mtu)
{
	struct sock *sk = skb->sk;
	struct dst_entry *dst;
	struct flowi fl;

	if (sk) {
		skb->mark = READ_ONCE(sk->sk_mark);
		skb->priority = READ_ONCE(sk->sk_priority);
	}
	dst = mrc_route(mn, sk, family, l, daddr, sport, tos, &fl);
	if (IS_ERR(dst)) {
		kfree_skb(skb);
		return PTR_ERR(dst);
	}
	if (mtu)
		*mtu = dst_mtu(dst);
#if IS_ENABLED(CONFIG_IPV6)
	if (family == AF_INET6) {
		skb->ignore_df = frag;
		/* No tunnel device: its stats must not be counted on
		 * dst->dev.
		 */
		udp_tunnel6_xmit_skb(dst, sk, skb, NULL,
				     &fl.u.ip6.saddr, &fl.u.ip6.daddr, tos,
				     ip6_dst_hoplimit(dst), 0, htons(sport),
				     htons(MRC_UDP_PORT), false);
		return 0;
	}
#endif
	udp_tunnel_xmit_skb(container_of(dst, struct rtable, dst),
			    sk, skb, fl.u.ip4.saddr,
			    fl.u.ip4.daddr, tos, ip4_dst_hoplimit(dst),
			    frag ? 0 : htons(IP_DF), htons(sport),
			    htons(MRC_UDP_PORT), false, false);
	return 0;
}

/**
 * mrc_xmit_pmtu() - send one mrc packet, and say the route's MTU
 * @mn: the namespace it is sent in
 * @family: AF_INET or AF_INET6
 * @l: the source address and link, or NULL: see mrc_route()
 * @daddr: destination (IPv4 v4-mapped)
 * @skb: the packet, data at the mrc headers, sport set
 * @mtu: where the MTU of the route it took goes, if routed; or NULL
 *
 * Return: 0 or a negative errno; the skb is consumed either way.
 */
int mrc_xmit_pmtu(struct mrc_net *mn, int family, const struct mrc_local *l,
		  const struct in6_addr *daddr, struct sk_buff *skb, u32 *mtu)
{
	u16 sport = mrc_cb(skb)->sport;
	bool frag = mrc_cb(skb)->frag;
	u8 tos = mrc_cb(skb)->tos;
	unsigned int len = skb->len;
	int ret;

	memset(skb->cb, 0, sizeof(skb->cb));
	ret = mrc_xmit_one(mn, family, l, daddr, skb, sport, tos, frag, mtu);
	if (ret) {
		mrc_stat_inc(mn, MRC_STAT_TX_ERRORS);
		return ret;
	}
	mrc_stat_inc(mn, MRC_STAT_TX_PACKETS);
	mrc_stat_add(mn, MRC_STAT_TX_BYTES, len);
	return 0;
}

/**
 * mrc_xmit() - send one mrc packet
 * @mn: the namespace it is sent in
 * @family: AF_INET or AF_INET6
 * @l: the source address and link, or NULL: see mrc_route()
 * @daddr: destination (IPv4 v4-mapped)
 * @skb: the packet, data at the mrc headers, sport set
 *
 * Return: 0 or a negative errno; the skb is consumed either way.
 */
int mrc_xmit(struct mrc_net *mn, int family, const struct mrc_local *l,
	     const struct in6_addr *daddr, struct sk_buff *skb)
{
	return mrc_xmit_pmtu(mn, family, l, daddr, skb, NULL);
}

/* @mtu, the lowest MTU of the routes a batch of packets took, where the
 * QP's next packets are cut.  Routes may differ per value (a lower MTU
 * learnt on one of several next hops): the QP keeps the lowest of the
 * last second or so, lowered at once, raised only once a second.
 */
static void mrc_qp_note_mtu(struct mrc_qp *qp, u32 mtu)
{
	if (!qp->pmtu || mtu < qp->pmtu)
		qp->pmtu = mtu;
	if (!qp->pmtu_low || mtu < qp->pmtu_low)
		qp->pmtu_low = mtu;
	if (time_after(jiffies, qp->pmtu_since + HZ)) {
		qp->pmtu = qp->pmtu_low;
		qp->pmtu_low = 0;
		qp->pmtu_since = jiffies;
	}
}

/**
 * mrc_qp_flush() - send the packets a queue pair queued under its lock
 * @qp: the queue pair, not locked
 *
 * Packets leave in the order they were queued: one context at a time
 * sends, and one that finds another at it leaves its packets to it.
 */
void mrc_qp_flush(struct mrc_qp *qp)
{
	struct sk_buff_head batch;
	struct sk_buff *skb;
	u32 mtu, low;

	__skb_queue_head_init(&batch);
	/* BHs stay off throughout, so a process that flushes is not
	 * preempted while softirqs leave their packets to it.
	 */
	local_bh_disable();
	spin_lock(&qp->lock);
	if (qp->xmitting) {
		spin_unlock(&qp->lock);
		local_bh_enable();
		return;
	}
	qp->xmitting = true;
	while (!skb_queue_empty(&qp->xq)) {
		skb_queue_splice_init(&qp->xq, &batch);
		spin_unlock(&qp->lock);
		low = 0;
		while ((skb = __skb_dequeue(&batch))) {
			mtu = 0;
			/* The socket's packet, charged to it while it
			 * lives (the QP holds the socket).
			 */
			skb_set_owner_w(skb, mrc_to_sk(qp->ms));
			mrc_xmit_pmtu(qp->mn, qp->family, &qp->local,
				      &qp->raddr, skb, &mtu);
			if (mtu && (!low || mtu < low))
				low = mtu;
		}
		spin_lock(&qp->lock);
		if (low)
			mrc_qp_note_mtu(qp, low);
	}
	qp->xmitting = false;
	spin_unlock(&qp->lock);
	local_bh_enable();
}

static u64 mrc_qp_rto_base_us(struct mrc_qp *qp, const struct mrc_config *c)
{
	u64 rto = max3((u64)c->rto_us, (u64)qp->rto_floor_us,
		       (u64)qp->srtt_us + 4ULL * qp->rttvar_us);

	/* Over paths of different delays, the variation of the RTT says
	 * little of the slowest one: never less than half again its RTT.
	 */
	rto = max_t(u64, rto, (u64)qp->max_rtt_us * 3 / 2);

	/* Nothing measured yet (nor learnt of the destination). */
	if (!qp->srtt_us)
		rto = max_t(u64, rto, MRC_RTO_INIT_US);
	return rto;
}

/**
 * mrc_qp_rto_us() - the retransmission timeout a queue pair arms now
 * @qp: the queue pair, locked
 * @c: the namespace's configuration
 *
 * Return: the timeout in microseconds, backoff included.
 */
u32 mrc_qp_rto_us(struct mrc_qp *qp, const struct mrc_config *c)
{
	u64 rto = mrc_qp_rto_base_us(qp, c);

	/* Backoff stops at a second, or at the configured RTO if longer. */
	return min_t(u64, rto << qp->backoff, max_t(u64, rto, MRC_RTO_MAX_US));
}

static void mrc_rto_arm(struct mrc_qp *qp, const struct mrc_config *c)
{
	if (qp->dead)
		return;
	hrtimer_start(&qp->rto_timer, ns_to_ktime((u64)mrc_qp_rto_us(qp, c) * NSEC_PER_USEC),
		      HRTIMER_MODE_REL_SOFT);
}

static struct mrc_tx_pkt *mrc_txp(struct mrc_qp *qp, u32 psn)
{
	return &qp->ring[psn % MRC_WINDOW];
}

static bool mrc_psn_inflight(struct mrc_qp *qp, u32 psn)
{
	return mrc_sb_inflight(qp->snd_una, qp->snd_nxt, psn);
}

static u8 mrc_data_opcode(const struct mrc_tx_pkt *e)
{
	bool first = !e->off;
	bool last = e->off + e->len == e->msg->len;

	if (first && last)
		return MRC_OP_WRITE_ONLY;
	if (first)
		return MRC_OP_WRITE_FIRST;
	return last ? MRC_OP_WRITE_LAST : MRC_OP_WRITE_MIDDLE;
}

/* Attach @len bytes of a vmalloc'ed buffer to @skb as page fragments:
 * the packet holds a reference on each page, so the message may be
 * freed (acknowledged) while a copy of it is still on its way; nothing
 * writes the pages then, beyond the head that packets do not cover
 * (MRC_MSG_VHEAD).
 */
static void mrc_skb_add_vmalloc(struct sk_buff *skb, const u8 *p, u32 len)
{
	while (len) {
		u32 off = offset_in_page(p);
		u32 n = min_t(u32, PAGE_SIZE - off, len);
		struct page *page = vmalloc_to_page(p);

		get_page(page);
		skb_fill_page_desc(skb, skb_shinfo(skb)->nr_frags, page, off,
				   n);
		skb->len += n;
		skb->data_len += n;
		skb->truesize += n;
		p += n;
		len -= n;
	}
}

static struct sk_buff *mrc_build_data(struct mrc_qp *qp,
				      const struct mrc_tx_pkt *e, u32 psn,
				      u8 flags, u8 tos)
{
	struct mrc_data_hdr h = {
		.opcode = mrc_data_opcode(e),
		/* Until the peer acknowledges some of the epoch, it may not
		 * know it: only such packets may start it there.
		 */
		.flags = flags | MRC_BTH_TAGGED |
			 (qp->tx_synced ? 0 : MRC_BTH_START),
		.dport = qp->rport,
		.psn = psn,
		.msn = e->msg->msn,
		.offset = e->off,
		.sport = qp->lport,
		.epoch = qp->tx_epoch,
		.msg_len = e->msg->len,
		.tag = qp->tags.local,
		.tag_echo = qp->tags.peer,
	};
	const u8 *payload = (const u8 *)e->msg->buf + e->off;
	struct sk_buff *skb;
	bool zc;
	int hlen;

	/* No TSETH: RTT comes from the sender's own send times, and every
	 * data packet keeps the 68 bytes from IPv4 header to payload.
	 */
	zc = e->msg->area &&
	     DIV_ROUND_UP(offset_in_page(payload) + e->len, PAGE_SIZE) <=
	     MAX_SKB_FRAGS;
	skb = mrc_alloc_skb(MRC_DATA_TAGGED_LEN + (zc ? 0 : e->len));
	if (!skb)
		return NULL;
	hlen = mrc_put_data_hdr(skb->data, &h);
	skb_put(skb, hlen);
	/* The payload is not copied when the message's pages can carry it. */
	if (zc)
		mrc_skb_add_vmalloc(skb, payload, e->len);
	else
		skb_put_data(skb, payload, e->len);
	mrc_skb_set_sport(skb, e->ev, tos);
	return skb;
}

/**
 * mrc_qp_validated() - the peer proved it receives at its address
 * @qp: the queue pair, locked
 *
 * It acknowledged data of ours, or echoed our tag: what is sent to it is
 * no longer capped (MRC_AMP_FACTOR), and the QP no longer waits for the
 * cap: a timer run that raced with this would otherwise take it for a
 * wait still on.
 */
void mrc_qp_validated(struct mrc_qp *qp)
{
	WRITE_ONCE(qp->unvalidated, false);
	qp->amp_blocked = false;
}

/* Under the QP's lock: whether a data packet of *@len payload bytes may
 * go to a peer whose address is not validated (see MRC_AMP_FACTOR).  A
 * new packet (@cut) takes half of what the limit leaves at most, so that
 * its resend fits (mrc_amp_allow()); a retransmission goes whole or
 * waits; room for an acknowledgment is kept while one is owed.  If
 * nothing may go, the QP waits for bytes from the peer or its first
 * acknowledgment, that wait counted once, until the retry limit or the
 * persist deadline fails it (mrc_rto_fire()).
 */
static bool mrc_qp_amp_room(struct mrc_qp *qp, u32 *len, bool cut)
{
	s64 n;

	if (qp->unvalidated) {
		n = mrc_amp_allow(qp->amp_rx, qp->amp_tx, *len, cut,
				  qp->rx_unacked != 0);
		if (n < 0) {
			if (!qp->amp_blocked) {
				qp->amp_blocked = true;
				mrc_qp_stat_inc(qp, MRC_STAT_TX_AMP_LIMITED);
			}
			return false;
		}
		*len = n;
	}
	qp->amp_blocked = false;
	return true;
}

static void mrc_queue_data(struct mrc_qp *qp, const struct mrc_config *cfg,
			   struct mrc_tx_pkt *e, u32 psn, u8 flags, u32 max,
			   struct sk_buff_head *out)
{
	struct sk_buff *skb;

	/* Each transmission takes its value anew, a retransmission too,
	 * and the value is kept: a timeout names it.
	 */
	e->ev = mrc_peer_entropy(qp, true);
	mrc_qp_mon(qp, flags & MRC_BTH_RETX ? MRC_MON_DATA_RTX : MRC_MON_DATA_TX,
		   e->ev, psn);
	/* ECT(0), in the class of a first transmission or of a
	 * retransmission: a congested queue may mark rather than drop,
	 * and a trimming switch may trim a retransmission in its own way.
	 * From the push's copy of the configuration, read once for all
	 * its packets.
	 */
	skb = mrc_build_data(qp, e, psn, flags,
			     mrc_data_tos(cfg, flags & MRC_BTH_RETX));
	mrc_qp_stat_inc(qp, MRC_STAT_TX_DATA_PACKETS);
	if (qp->unvalidated)
		qp->amp_tx += mrc_data_wire_len(e->len);
	/* No memory: the packet counts as sent and is lost; recovery
	 * retransmits it as it would any other.
	 */
	if (!skb) {
		mrc_qp_stat_inc(qp, MRC_STAT_TX_ERRORS);
		return;
	}
	/* Cut before the path's MTU fell: IP may fragment this one. */
	if (e->len > max) {
		mrc_cb(skb)->frag = true;
		e->flags |= MRC_TXP_FRAG;
		e->frag_max = max;
	} else {
		e->flags &= ~MRC_TXP_FRAG;
	}
	__skb_queue_tail(out, skb);
}

/* The MTU of the route to the QP's peer, before it sent anything. */
static void mrc_qp_route_mtu(struct mrc_qp *qp)
{
	struct dst_entry *dst;
	struct flowi fl;

	dst = mrc_route(qp->mn, mrc_to_sk(qp->ms), qp->family, &qp->local,
			&qp->raddr, qp->udp_sport, 0, &fl);
	if (IS_ERR(dst))
		return;
	qp->pmtu = dst_mtu(dst);
	dst_release(dst);
}

/* The most payload a data packet of a queue pair (locked) carries now:
 * the MSS, or less where the path's MTU (the route's, lowered by ICMP
 * "fragmentation needed" or "packet too big" as for any socket) cannot
 * hold that much besides the IP, UDP and mrc headers: mrc sends with
 * DF set, so a larger packet would be dropped on the way.
 */
static u32 mrc_qp_payload_max(struct mrc_qp *qp, const struct mrc_config *c)
{
	u32 hdrs = sizeof(struct udphdr) + MRC_DATA_TAGGED_LEN +
		   (qp->family == AF_INET6 ? sizeof(struct ipv6hdr) :
		    sizeof(struct iphdr));

	if (!qp->pmtu)
		mrc_qp_route_mtu(qp);
	if (qp->pmtu <= hdrs)
		return c->mss;
	return min(c->mss, qp->pmtu - hdrs);
}

static bool mrc_retransmit_one(struct mrc_qp *qp,
			       const struct mrc_config *cfg, u32 max,
			       struct sk_buff_head *out)
{
	u32 n = mrc_psn_diff(qp->snd_nxt, qp->snd_una), end = n, i, len;

	/* While the peer has no room, only what it already took in part:
	 * the PSNs before the one it refused.
	 */
	if (qp->peer_starved)
		end = min(n, mrc_psn_diff(qp->starved_psn, qp->snd_una));
	for (i = 0; i < end; i++) {
		u32 psn = mrc_psn_add(qp->snd_una, i);
		struct mrc_tx_pkt *e = mrc_txp(qp, psn);

		if (!(e->flags & MRC_TXP_LOST))
			continue;
		if (qp->inflight && qp->inflight + e->len > qp->cc.cwnd)
			return false;
		len = e->len;
		if (!mrc_qp_amp_room(qp, &len, false))
			return false;
		mrc_qp_stat_inc(qp, e->flags & MRC_TXP_LOST_RTO ?
				MRC_STAT_RTX_TIMEOUT :
				e->flags & MRC_TXP_LOST_MTU ?
				MRC_STAT_RTX_MTU : MRC_STAT_RTX_SACK);
		e->flags &= ~(MRC_TXP_LOST | MRC_TXP_LOST_RTO |
			      MRC_TXP_LOST_MTU);
		e->flags |= MRC_TXP_RETX;
		e->tx_ns = ktime_get_ns();
		qp->nr_lost--;
		qp->inflight += e->len;
		mrc_queue_data(qp, cfg, e, psn, MRC_BTH_RETX | MRC_BTH_ACKREQ,
			       max, out);
		return true;
	}
	if (end < n)
		return false;
	/* The count was wrong; never loop on it. */
	WARN_ON_ONCE(1);
	qp->nr_lost = 0;
	return false;
}

/**
 * mrc_qp_push() - send what the window allows: retransmissions first
 * @qp: the queue pair, locked
 * @out: where the packets go, to be sent after unlocking
 */
void mrc_qp_push(struct mrc_qp *qp, struct sk_buff_head *out)
{
	const struct mrc_config *c;
	struct mrc_config cfg;
	bool sent = false;
	u32 mss;

	if (qp->dead || qp->state != MRC_QP_STATE_OPEN)
		return;
	rcu_read_lock();
	c = mrc_cfg(qp->mn);
	cfg = *c;
	rcu_read_unlock();
	mss = mrc_qp_payload_max(qp, &cfg);

	for (;;) {
		struct mrc_tx_msg *m = qp->tx_cur;
		struct mrc_tx_pkt *e;
		u32 plen, psn;
		bool last;
		u8 flags = 0;

		if (qp->nr_lost) {
			if (!mrc_retransmit_one(qp, &cfg, mss, out))
				break;
			sent = true;
			continue;
		}
		/* Nothing new while the peer has no room: it would drop it. */
		if (qp->peer_starved)
			break;
		if (!m || mrc_psn_diff(qp->snd_nxt, qp->snd_una) >=
			  MRC_WINDOW - 1)
			break;
		plen = min(mss, m->len - m->sent);
		if (qp->inflight && qp->inflight + plen > qp->cc.cwnd)
			break;
		if (!mrc_qp_amp_room(qp, &plen, true))
			break;

		psn = qp->snd_nxt;
		e = mrc_txp(qp, psn);
		e->msg = m;
		e->off = m->sent;
		e->len = plen;
		e->flags = 0;
		e->lost_depth = 0;
		e->tx_ns = ktime_get_ns();
		m->sent += plen;
		last = m->sent == m->len;
		if (last) {
			m->segmented = true;
			m->last_psn = psn;
			qp->tx_cur = list_is_last(&m->list, &qp->tx_queue) ?
				NULL : list_next_entry(m, list);
		}
		qp->snd_nxt = mrc_psn_add(psn, 1);
		qp->inflight += plen;

		/* Ask for an acknowledgment where the sender would
		 * otherwise wait: a message's end, a full PSN window, or
		 * a full congestion window with too few packets in flight
		 * for the receiver's every-MRC_ACK_EVERY acknowledgment.
		 */
		if (last ||
		    (qp->inflight + mss > qp->cc.cwnd &&
		     qp->inflight < MRC_ACK_EVERY * mss) ||
		    mrc_psn_diff(qp->snd_nxt, qp->snd_una) >= MRC_WINDOW - 1)
			flags |= MRC_BTH_ACKREQ;
		/* The last the limit lets through, about: its
		 * acknowledgment, which lifts the limit, is wanted at once.
		 */
		if (qp->unvalidated &&
		    mrc_amp_last(qp->amp_rx, qp->amp_tx, plen,
				 qp->rx_unacked != 0))
			flags |= MRC_BTH_ACKREQ;
		mrc_queue_data(qp, &cfg, e, psn, flags, mss, out);
		sent = true;
	}

	/* Waiting for room with work to do: the timer ends the wait if
	 * the window update is lost, even with nothing in flight.
	 */
	/* Likewise while capped (MRC_AMP_FACTOR): a peer that never
	 * answers fails at the retry limit, and its messages go.
	 */
	if ((sent || ((qp->peer_starved || qp->amp_blocked) &&
		      (qp->nr_lost || qp->tx_cur))) &&
	    !hrtimer_is_queued(&qp->rto_timer))
		mrc_rto_arm(qp, &cfg);
	if (sent)
		qp->last_tx = jiffies;
}

/* Under the QP's lock: may @charge more bytes be queued on it, the
 * socket holding @held?  A message to a socket that holds nothing always
 * may, whatever its size, as before.  Otherwise each QP holding some of
 * the send buffer may hold at most its fair share of it: the buffer
 * divided among them, or 3/4 of it when it is alone, as a QP may hold
 * at most 3/4 of the receive buffer: the rest is left for the next
 * destination, so that a peer that stops taking data (its reader
 * asleep, "no buffer" NACKs) does not block the others.  And a QP
 * holding nothing may take one message while the socket holds less
 * than twice its buffer, so a destination behind several stuck ones
 * still moves, a message at a time, until the persist deadline frees
 * theirs (mrc_qp_persist()).
 */
static bool mrc_qp_tx_fits(struct mrc_qp *qp, u32 charge, s64 held)
{
	u64 sndbuf = READ_ONCE(mrc_to_sk(qp->ms)->sk_sndbuf);
	u32 busy = atomic_read(&qp->ms->tx_busy) + !qp->tx_held;
	u64 share;

	if (held <= 0)
		return true;
	if (!qp->tx_held)
		return held + charge <= 2 * sndbuf;
	share = busy > 1 ? div_u64(sndbuf, busy) : sndbuf - sndbuf / 4;
	return held + charge <= sndbuf && qp->tx_held + charge <= share;
}

/**
 * mrc_qp_tx_reserve() - charge a message about to be sent on a queue
 * pair to it and to its socket
 * @qp: the queue pair, not locked; the caller holds a reference
 * @charge: the bytes the message costs
 * @force: charge it whatever the QP holds, even if the QP is closed: a
 *	message already admitted to a QP that closed before taking it
 *
 * The charge becomes the message's once mrc_qp_send() takes it; until
 * then the reaper leaves the QP alone.
 *
 * Return: 0; -EAGAIN if it does not fit (mrc_qp_tx_fits()) or -ESTALE
 * if the QP was closed, with nothing charged.
 */
int mrc_qp_tx_reserve(struct mrc_qp *qp, u32 charge, bool force)
{
	struct mrc_sock *ms = qp->ms;
	s64 held, old;
	int ret = 0;

	spin_lock_bh(&qp->lock);
	if (qp->dead && !force) {
		ret = -ESTALE;
		goto out;
	}
	held = atomic64_read(&ms->tx_mem);
	for (;;) {
		if (!force && !mrc_qp_tx_fits(qp, charge, held)) {
			ret = -EAGAIN;
			goto out;
		}
		/* Other QPs charge the socket under their own locks. */
		old = atomic64_cmpxchg(&ms->tx_mem, held, held + charge);
		if (old == held)
			break;
		held = old;
	}
	if (!qp->tx_held)
		atomic_inc(&ms->tx_busy);
	qp->tx_held += charge;
out:
	spin_unlock_bh(&qp->lock);
	return ret;
}

/* Under the QP's lock: @charge bytes no longer held. */
static void mrc_qp_tx_uncharge(struct mrc_qp *qp, u32 charge)
{
	struct mrc_sock *ms = qp->ms;

	if (WARN_ON_ONCE(charge > qp->tx_held))
		charge = qp->tx_held;
	atomic64_sub(charge, &ms->tx_mem);
	qp->tx_held -= charge;
	if (!qp->tx_held)
		atomic_dec(&ms->tx_busy);
}

/**
 * mrc_qp_tx_unreserve() - give back a charge mrc_qp_tx_reserve() took
 * for a message that was not sent
 * @qp: the queue pair, not locked; the caller holds a reference
 * @charge: what was reserved
 */
void mrc_qp_tx_unreserve(struct mrc_qp *qp, u32 charge)
{
	struct sock *sk = mrc_to_sk(qp->ms);

	spin_lock_bh(&qp->lock);
	mrc_qp_tx_uncharge(qp, charge);
	spin_unlock_bh(&qp->lock);
	sk->sk_write_space(sk);
}

/**
 * mrc_qp_tx_wait_over() - whether a sender waiting for room on a queue
 * pair may stop waiting
 * @qp: the queue pair, not locked; the caller holds a reference
 * @charge: the bytes the sender's message costs
 * @fails: mrc_qp.tx_fails when the sender started waiting
 *
 * Return: true if @charge fits now, the QP closed or its sending
 * direction failed since.
 */
bool mrc_qp_tx_wait_over(struct mrc_qp *qp, u32 charge, u32 fails)
{
	bool over;

	spin_lock_bh(&qp->lock);
	over = qp->dead || qp->tx_fails != fails ||
	       mrc_qp_tx_fits(qp, charge, atomic64_read(&qp->ms->tx_mem));
	spin_unlock_bh(&qp->lock);
	return over;
}

static void mrc_tx_msg_free(struct mrc_qp *qp, struct mrc_tx_msg *m)
{
	mrc_qp_tx_uncharge(qp, m->charge);
	list_del(&m->list);
	qp->tx_queued--;
	kvfree(m->area ?: m->buf);
	kfree(m);
}

/**
 * mrc_qp_tx_purge() - drop every message a queue pair has to send
 * @qp: the queue pair, locked
 */
void mrc_qp_tx_purge(struct mrc_qp *qp)
{
	struct mrc_tx_msg *m, *tmp;

	list_for_each_entry_safe(m, tmp, &qp->tx_queue, list)
		mrc_tx_msg_free(qp, m);
	qp->tx_cur = NULL;
	qp->inflight = 0;
	qp->nr_lost = 0;
	qp->snd_una = qp->snd_nxt;
	if (qp->ring)
		memset(qp->ring, 0, MRC_WINDOW * sizeof(*qp->ring));
	mrc_to_sk(qp->ms)->sk_write_space(mrc_to_sk(qp->ms));
}

/**
 * mrc_qp_fail() - give up the sending direction of a queue pair
 * @qp: the queue pair, locked
 * @err: what the socket reports, a positive errno
 *
 * Its messages are dropped; the next message starts a new epoch.  The
 * failure is reported for this peer alone (mrc_sock_qp_failed()).
 */
void mrc_qp_fail(struct mrc_qp *qp, int err)
{
	u32 dropped = qp->tx_queued;

	qp->state = MRC_QP_STATE_FAILED;
	mrc_qp_stat_inc(qp, MRC_STAT_QP_FAILED);
	/* A sender waiting for room on this QP returns @err. */
	WRITE_ONCE(qp->tx_err, err);
	WRITE_ONCE(qp->tx_fails, qp->tx_fails + 1);
	mrc_qp_tx_purge(qp);
	hrtimer_try_to_cancel(&qp->rto_timer);
	mrc_sock_qp_failed(qp, err, dropped);
}

/* The least path MTU IPv4 takes from an ICMP error: the stack's
 * default min_pmtu (512 bytes of payload and two 20-byte headers).
 */
#define MRC_IPV4_MIN_PMTU	552

/* The MTU of the route a value takes to the QP's peer, 0 if none. */
static u32 mrc_qp_value_mtu(struct mrc_qp *qp, u16 entropy)
{
	struct dst_entry *dst;
	struct flowi fl;
	u32 mtu;

	dst = mrc_route(qp->mn, mrc_to_sk(qp->ms), qp->family, &qp->local,
			&qp->raddr, entropy, 0, &fl);
	if (IS_ERR(dst))
		return 0;
	mtu = dst_mtu(dst);
	dst_release(dst);
	return mtu;
}

/**
 * mrc_qp_icmp() - act on an ICMP error about a data packet of a queue pair
 * @qp: the queue pair, locked
 * @h: the headers of the data packet the error quotes
 * @entropy: the UDP source port it left with
 * @kind: what the error says
 * @mtu: the next hop's MTU a "too big" error gives, 0 if none
 * @out: where packets to send go
 *
 * ICMP errors are as easily forged as any packet, and late ones are
 * common: only one about a PSN of the current epoch still in flight is
 * acted on, as TCP takes one only for a sequence number in flight.
 *
 * A port or protocol unreachable means no mrc at the peer's address:
 * nobody to retry for, so the sending direction fails at once with
 * ECONNREFUSED rather than after its retry limit.  A "fragmentation
 * needed" or "packet too big" has already lowered the route's MTU (the
 * UDP layer did, as for any socket): the QP's packets are cut to it from
 * now on, and every packet in flight too large for it, dropped on the
 * way like the one quoted (routers answer few of them: ICMP is rate
 * limited), is resent now, in IP fragments, instead of at a timeout.
 */
void mrc_qp_icmp(struct mrc_qp *qp, const struct mrc_data_hdr *h, u16 entropy,
		 enum mrc_icmp_kind kind, u32 mtu, struct sk_buff_head *out)
{
	u32 n, i, route, max, lost = 0;
	struct mrc_config cfg;

	if (qp->state != MRC_QP_STATE_OPEN || !qp->tx_epoch ||
	    h->epoch != qp->tx_epoch || !mrc_psn_inflight(qp, h->psn)) {
		mrc_qp_stat_inc(qp, MRC_STAT_ICMP_IGNORED);
		return;
	}
	if (kind == MRC_ICMP_REFUSED) {
		mrc_qp_stat_inc(qp, MRC_STAT_ICMP_UNREACH);
		mrc_qp_fail(qp, ECONNREFUSED);
		return;
	}

	rcu_read_lock();
	cfg = *mrc_cfg(qp->mn);
	rcu_read_unlock();
	/* The error's MTU, as the stack would take it (no less than the
	 * least it accepts), where the route of this packet's value did
	 * not learn it: the stack keyed what it learnt by the flow without
	 * ports, which with several next hops may take another.
	 */
	if (mtu)
		mtu = max_t(u32, mtu, qp->family == AF_INET6 ? IPV6_MIN_MTU :
			    MRC_IPV4_MIN_PMTU);
	route = mrc_qp_value_mtu(qp, entropy);
	if (route && (!mtu || route < mtu))
		mtu = route;
	if (mtu)
		mrc_qp_note_mtu(qp, mtu);
	max = mrc_qp_payload_max(qp, &cfg);
	/* The route did not take the lower MTU (below the least the stack
	 * accepts), or the packet already fits: nothing to do.
	 */
	if (mrc_txp(qp, h->psn)->len <= max) {
		mrc_qp_stat_inc(qp, MRC_STAT_ICMP_IGNORED);
		return;
	}
	mrc_qp_stat_inc(qp, MRC_STAT_ICMP_TOO_BIG);
	n = mrc_psn_diff(qp->snd_nxt, qp->snd_una);
	for (i = 0; i < n; i++) {
		struct mrc_tx_pkt *e = mrc_txp(qp, mrc_psn_add(qp->snd_una, i));

		/* Sent in fragments already: over IPv4 those get through
		 * (routers fragment them further); IPv6 fragments were cut
		 * here, and need sending again only if cut for a larger
		 * MTU than this one.  Every late error about the packets
		 * a fall of the MTU caught would otherwise send again all
		 * that was resent for the first.
		 */
		if (e->flags & (MRC_TXP_SACKED | MRC_TXP_LOST) ||
		    (e->flags & MRC_TXP_FRAG &&
		     (qp->family != AF_INET6 || e->frag_max <= max)) ||
		    e->len <= max)
			continue;
		e->flags |= MRC_TXP_LOST | MRC_TXP_LOST_MTU;
		qp->inflight -= e->len;
		qp->nr_lost++;
		lost++;
	}
	if (lost)
		mrc_qp_push(qp, out);
}

/**
 * mrc_qp_tx_reset() - start a new epoch of the sending direction
 * @qp: the queue pair, locked, with nothing queued
 *
 * The receiver tells epochs apart, so PSNs and message numbers start
 * again from zero without being taken for stale ones.
 */
void mrc_qp_tx_reset(struct mrc_qp *qp)
{
	const struct mrc_config *c;
	u16 epoch;

	mrc_qp_tx_purge(qp);
	/* Never the last epoch either: the receiver drops its stragglers. */
	do {
		epoch = get_random_u16();
	} while (!epoch || epoch == qp->tx_epoch || epoch == qp->tx_prev_epoch);
	qp->tx_prev_epoch = qp->tx_epoch;
	qp->tx_epoch = epoch;
	qp->snd_una = 0;
	qp->snd_nxt = 0;
	qp->high_sacked = 0;
	qp->tx_synced = false;
	qp->peer_starved = false;
	qp->rto_lo = 0;
	qp->rto_hi = 0;
	/* What was learnt of the path starts over with the epoch. */
	qp->rto_floor_us = 0;
	qp->reorder = 0;
	qp->next_msn = 0;
	qp->backoff = 0;
	qp->retries = 0;
	qp->feedback = false;
	qp->state = MRC_QP_STATE_OPEN;
	rcu_read_lock();
	c = mrc_cfg(qp->mn);
	mrc_cc_init(qp, c);
	rcu_read_unlock();
	/* ... but not what other QPs to the destination learnt. */
	mrc_peer_recall(qp);
}

/**
 * mrc_qp_send() - queue a message on a queue pair and start sending it
 * @qp: the queue pair, not locked; the caller holds a reference
 * @m: the message, which the QP owns from now on when this succeeds
 *
 * Return: 0; -ESTALE if the QP was closed meanwhile; -ENOBUFS if its
 * first send found no memory for its scoreboard.  The message is the
 * caller's still on an error.
 */
int mrc_qp_send(struct mrc_qp *qp, struct mrc_tx_msg *m)
{
	struct mrc_tx_pkt *ring = NULL;

	/* The scoreboard, on first send: a QP a peer opened that never
	 * sends (or a forged one) does without its 8 KiB.
	 */
	if (!READ_ONCE(qp->ring)) {
		ring = mrc_qp_ring_alloc(qp);
		if (!ring)
			return -ENOBUFS;
	}
	spin_lock_bh(&qp->lock);
	if (ring && !qp->ring) {
		WRITE_ONCE(qp->ring, ring);
		ring = NULL;
	}
	kfree(ring);
	if (qp->dead) {
		spin_unlock_bh(&qp->lock);
		return -ESTALE;
	}
	if (list_empty(&qp->tx_queue) &&
	    (!qp->tx_epoch || qp->state != MRC_QP_STATE_OPEN ||
	     time_after(jiffies, qp->last_tx +
			msecs_to_jiffies(MRC_EPOCH_IDLE_MS))))
		mrc_qp_tx_reset(qp);
	/* The persist deadline runs from here when nothing waited. */
	if (list_empty(&qp->tx_queue))
		qp->tx_progress = jiffies;
	m->msn = qp->next_msn++;
	list_add_tail(&m->list, &qp->tx_queue);
	qp->tx_queued++;
	if (!qp->tx_cur)
		qp->tx_cur = m;
	qp->last_tx = jiffies;
	mrc_qp_push(qp, &qp->xq);
	spin_unlock_bh(&qp->lock);

	mrc_qp_flush(qp);
	return 0;
}

/* Everything up to @una is acknowledged: free the messages it completes. */
static void mrc_tx_free_acked(struct mrc_qp *qp)
{
	struct mrc_tx_msg *m, *tmp;
	bool freed = false;

	list_for_each_entry_safe(m, tmp, &qp->tx_queue, list) {
		if (!m->segmented || mrc_psn_sdiff(qp->snd_una, m->last_psn) <= 0)
			break;
		mrc_qp_stat_inc(qp, MRC_STAT_TX_MSGS);
		mrc_tx_msg_free(qp, m);
		freed = true;
	}
	if (freed)
		mrc_to_sk(qp->ms)->sk_write_space(mrc_to_sk(qp->ms));
}

static void mrc_rtt_sample(struct mrc_qp *qp, const struct mrc_tx_pkt *e,
			   u32 *rtt_us)
{
	u64 now = ktime_get_ns();
	u32 rtt;

	/* Karn: a retransmitted packet's answer could be for either copy. */
	if (e->flags & MRC_TXP_RETX || now < e->tx_ns)
		return;
	rtt = max_t(u64, div_u64(now - e->tx_ns, NSEC_PER_USEC), 1);
	*rtt_us = rtt;
	if (!qp->srtt_us) {
		qp->srtt_us = rtt;
		qp->rttvar_us = rtt / 2;
	} else {
		u32 err = abs((int)rtt - (int)qp->srtt_us);

		qp->rttvar_us = (3 * qp->rttvar_us + err) / 4;
		qp->srtt_us = (7 * qp->srtt_us + rtt) / 8;
	}
	/* The slowest path's RTT, forgotten over a few hundred samples. */
	qp->max_rtt_us = max(rtt, qp->max_rtt_us - qp->max_rtt_us / 256);
	if (!qp->base_rtt_us || rtt < qp->base_rtt_us)
		qp->base_rtt_us = rtt;
}

/* A packet the receiver has: out of the flight and the loss count. */
static u32 mrc_txp_sacked(struct mrc_qp *qp, struct mrc_tx_pkt *e)
{
	return mrc_sb_sacked(e, &qp->inflight, &qp->nr_lost);
}

static void mrc_note_received(struct mrc_qp *qp, u32 psn)
{
	mrc_sb_received(&qp->high_sacked, psn);
}

/* A SACK says a duplicate of @psn reached the receiver: a copy was sent
 * that was not needed.  If the SACK gaps had taken it as lost, it was
 * only reordered deeper than that (paths of different delay; senders on
 * several CPUs): take twice the depth it was taken as lost at as
 * reordering from now on, up to half the window.  The duplicates of one
 * burst, all taken as lost at about one depth, raise it once.
 */
static void mrc_note_dup(struct mrc_qp *qp, u32 psn,
			 const struct mrc_config *c)
{
	struct mrc_tx_pkt *e = mrc_txp(qp, psn);

	/* A copy resent by the last timeout: that timeout came too early
	 * (a stall longer than the RTT's variation foretold).  Wait twice
	 * as long from now on, up to the backoff's cap.
	 */
	if (mrc_psn_sdiff(psn, qp->rto_lo) >= 0 &&
	    mrc_psn_sdiff(psn, qp->rto_hi) < 0) {
		qp->rto_floor_us = min_t(u64, 2 * mrc_qp_rto_base_us(qp, c),
					 MRC_RTO_MAX_US);
		qp->rto_hi = qp->rto_lo;
		return;
	}
	/* Its ring entry, unless a later PSN has taken it since. */
	if (mrc_psn_diff(qp->snd_nxt, psn) > MRC_WINDOW || !e->lost_depth)
		return;
	qp->reorder = max_t(u32, qp->reorder,
			    min_t(u32, 2 * e->lost_depth, MRC_WINDOW / 2));
	e->lost_depth = 0;
	mrc_peer_learn(qp);
}

static void mrc_sack_losses(struct mrc_qp *qp, const struct mrc_config *c)
{
	struct mrc_sb_loss l = {
		.now_ns = ktime_get_ns(),
		.depth = max(c->sack_loss_min_retx_pkts, qp->reorder),
		.srtt_us = qp->srtt_us,
		.max_rtt_us = qp->max_rtt_us,
	};

	mrc_sb_losses(qp->ring, qp->snd_una, qp->high_sacked, &l,
		      &qp->inflight, &qp->nr_lost);
}

/* Whether an acknowledgment of the current epoch may be genuine.  The
 * cumulative PSN of an ACK or SACK names one already sent (or the one
 * before the epoch's first): beyond snd_nxt it is forged, or of a
 * confused peer; late ones, behind snd_una, are common under spraying
 * and harmless.  A NACK names the packet it refuses, which is in flight
 * unless the NACK is late: then, whatever its reason (one fails the QP,
 * others cut the window or stop sending), it is news of nothing.
 */
static bool mrc_ack_plausible(struct mrc_qp *qp, const struct mrc_ack_hdr *h)
{
	if (h->opcode != MRC_OP_NACK)
		return mrc_psn_sdiff(h->psn, qp->snd_nxt) < 0;
	return mrc_psn_inflight(qp, h->psn);
}

/**
 * mrc_qp_rx_ack() - take an ACK, SACK or NACK for the sending direction
 * @qp: the queue pair, locked
 * @h: the acknowledgment's fields, its tags checked by the caller
 * @fresh: it told us a tag of the peer's other than the one we knew: a
 *	new end, which refused all we had sent the one before
 * @out: where packets to send go
 */
void mrc_qp_rx_ack(struct mrc_qp *qp, const struct mrc_ack_hdr *h,
		   bool fresh, struct sk_buff_head *out)
{
	u32 acked = 0, rtt_us = 0, cum_next, n, i;
	bool starved, sample, progressed = false;
	const struct mrc_config *c;
	struct mrc_config cfg;

	/* A probe's answer concerns the path, not this epoch's PSNs. */
	if (h->opcode == MRC_OP_SACK && h->flags & MRC_SETH_PROBE_RESP) {
		mrc_rx_probe_resp(qp, h);
		return;
	}
	if (!qp->tx_epoch || h->epoch != qp->tx_epoch ||
	    qp->state != MRC_QP_STATE_OPEN) {
		mrc_qp_stat_inc(qp, MRC_STAT_RX_DROP_OUT_OF_WINDOW);
		return;
	}
	/* Trimmed on the way, not on the last hop: that path is congested,
	 * pass over its value once, even if the PSN was acknowledged since
	 * (another copy got through): the spec's table.  Only for a PSN
	 * sent in the last window, and a mark is all it does then.
	 */
	if (h->opcode == MRC_OP_NACK && h->reason == MRC_NACK_TRIMMED &&
	    mrc_psn_sdiff(h->psn, qp->snd_nxt) < 0 &&
	    mrc_psn_sdiff(h->psn, qp->snd_una) >= -MRC_WINDOW) {
		mrc_peer_trimmed(qp, h->entropy);
		if (!mrc_psn_inflight(qp, h->psn)) {
			mrc_qp_mon(qp, MRC_MON_NACK_RX, h->entropy, h->psn);
			mrc_qp_stat_inc(qp, MRC_STAT_NACK_RX);
			return;
		}
	}
	if (!mrc_ack_plausible(qp, h)) {
		mrc_qp_stat_inc(qp, MRC_STAT_RX_DROP_OUT_OF_WINDOW);
		return;
	}
	mrc_qp_mon(qp, h->opcode == MRC_OP_ACK ? MRC_MON_ACK_RX :
		   h->opcode == MRC_OP_SACK ? MRC_MON_SACK_RX : MRC_MON_NACK_RX,
		   h->entropy, h->psn);
	rcu_read_lock();
	c = mrc_cfg(qp->mn);
	cfg = *c;
	rcu_read_unlock();

	if (h->opcode == MRC_OP_NACK) {
		mrc_qp_stat_inc(qp, MRC_STAT_NACK_RX);
		if (h->reason == MRC_NACK_TAG_CHALLENGE) {
			/* The peer's end refused it for want of our proof:
			 * its tag is ours to echo now (mrc_rx_ack() took
			 * it), and the packet goes again at once, as no
			 * congestion lost it.  If the tag was new, so is
			 * its end, which refused all we had sent it: all of
			 * it goes again (its challenges are one per
			 * MRC_CHALLENGE_GAP_MS, and would leave the rest
			 * to a timeout).
			 */
			n = fresh ? mrc_psn_diff(qp->snd_nxt, qp->snd_una) : 1;
			for (i = 0; i < n; i++) {
				struct mrc_tx_pkt *e;

				e = mrc_txp(qp, fresh ?
					    mrc_psn_add(qp->snd_una, i) :
					    h->psn);
				if (e->flags & (MRC_TXP_SACKED | MRC_TXP_LOST))
					continue;
				e->flags |= MRC_TXP_LOST;
				qp->inflight -= e->len;
				qp->nr_lost++;
			}
			mrc_qp_push(qp, out);
			return;
		}
		if (h->reason == MRC_NACK_PSN_OOW) {
			/* The peer has no state for this epoch: it restarted,
			 * and what is in flight can never be acknowledged.
			 */
			mrc_qp_fail(qp, ECONNRESET);
			return;
		}
		if (h->reason == MRC_NACK_UNEXPECTED) {
			/* No socket at the peer takes this: nobody to retry
			 * for.
			 */
			mrc_qp_fail(qp, ECONNREFUSED);
			return;
		}
		starved = h->reason == MRC_NACK_NO_PKT_BUFFER ||
			  h->reason == MRC_NACK_NO_RESOURCE;
		/* A receiver out of room is alive: wait for its reader,
		 * unless nobody is left to wait for us.  Its next ACK says
		 * there is room again (or the timer gives up waiting).
		 */
		if (starved && !READ_ONCE(qp->ms->closing))
			qp->feedback = true;
		if (mrc_psn_inflight(qp, h->psn)) {
			struct mrc_tx_pkt *e = mrc_txp(qp, h->psn);

			/* Only for what is still in flight: a late NACK must
			 * not stop a QP that has since moved on.  Nor one
			 * for a transmission sent before the peer last said
			 * it had room: the NACK may be older than that
			 * window update, which overtook it (by another path,
			 * or another CPU's backlog), and no other would
			 * come.  If the refusal is newer, the resend below
			 * is refused again, and that NACK stops the QP.
			 */
			if (starved && e->tx_ns >= qp->room_ns &&
			    (!qp->peer_starved ||
			     mrc_psn_sdiff(h->psn, qp->starved_psn) < 0)) {
				qp->peer_starved = true;
				qp->starved_psn = h->psn;
			}

			/* Trimmed or dropped for room: gone, resend it. */
			if ((starved || h->reason == MRC_NACK_TRIMMED ||
			     h->reason == MRC_NACK_TRIMMED_LAST_HOP) &&
			    !(e->flags & (MRC_TXP_SACKED | MRC_TXP_LOST))) {
				e->flags |= MRC_TXP_LOST;
				qp->inflight -= e->len;
				qp->nr_lost++;
			}
		}
		mrc_cc_on_nack(qp, &cfg, h->reason);
		mrc_qp_push(qp, out);
		return;
	}
	mrc_qp_stat_inc(qp, h->opcode == MRC_OP_ACK ? MRC_STAT_ACK_RX :
			MRC_STAT_SACK_RX);
	/* The receiver's mark (MRC 1.0): skip-once for a packet it saw
	 * CE-marked, with ecn-skip on there.  Honoured whatever this end's
	 * own setting: it is the receiver's to say.
	 */
	if (h->opcode == MRC_OP_SACK &&
	    (h->flags & MRC_SETH_MARK_MASK) >> MRC_SETH_MARK_SHIFT ==
	    MRC_MARK_SKIP_ONCE)
		mrc_peer_trimmed(qp, h->entropy);
	/* A plain ACK is sent in order or as a window update: room, unless
	 * it is a late one (or forged), from before snd_una.
	 */
	if (h->opcode == MRC_OP_ACK &&
	    mrc_psn_sdiff(mrc_psn_add(h->psn, 1), qp->snd_una) >= 0) {
		qp->peer_starved = false;
		qp->room_ns = ktime_get_ns();
	}

	/* A SACK the receiver's timer sent drew no packet: no RTT sample.
	 * Otherwise, samples as before coalescing: from the last PSN the
	 * cumulative point passes, if no SACK said it had arrived (it drew
	 * this answer, or waited at the receiver no longer than the packet
	 * that closed a gap below it took), and from a PSN that drew a
	 * SACK while not in its bitmap.  Not from every packet that closes
	 * a gap: over paths of different delays that is most SACKs, and
	 * max_rtt_us, which decays per sample, then forgot the slowest
	 * path within milliseconds, so that its packets were taken as
	 * lost (measured: a fifth of the data packets resent in vain).
	 */
	sample = !(h->cc_flags & MRC_CC_FLAG_DELAYED);

	/* Cumulative part: everything up to and including h->psn. */
	cum_next = mrc_psn_add(h->psn, 1);
	n = mrc_psn_diff(cum_next, qp->snd_una);
	if (n && n <= mrc_psn_diff(qp->snd_nxt, qp->snd_una)) {
		for (i = 0; i < n; i++) {
			struct mrc_tx_pkt *e = mrc_txp(qp,
						mrc_psn_add(qp->snd_una, i));

			if (sample && i == n - 1 &&
			    !(e->flags & MRC_TXP_SACKED))
				mrc_rtt_sample(qp, e, &rtt_us);
			acked += mrc_txp_sacked(qp, e);
			e->msg = NULL;
			e->flags = 0;
		}
		qp->snd_una = cum_next;
		progressed = true;
		qp->tx_synced = true;
		/* It answered what only a receiver of ours could: no
		 * longer a QP a full table may evict.
		 */
		if (!qp->proven) {
			WRITE_ONCE(qp->proven, true);
			/* Values its destination lost while none of its
			 * QPs could be probed through (mrc_probe_qp()).
			 */
			if (READ_ONCE(qp->peer->spray.nr_bad))
				mrc_probe_arm(qp->mn);
		}
		qp->peer_starved = false;
		qp->room_ns = ktime_get_ns();
		qp->feedback = true;
		if (mrc_psn_sdiff(qp->high_sacked, cum_next) < 0)
			qp->high_sacked = cum_next;
		qp->backoff = 0;
		qp->retries = 0;
		mrc_tx_free_acked(qp);
	}

	if (h->opcode == MRC_OP_SACK) {
		u32 base = mrc_psn_add(h->psn, (u32)(s32)h->sack_off);
		u32 drew = mrc_psn_add(h->psn, (u32)(s32)h->acked_off);

		for (i = 0; i < 64; i++) {
			u32 psn = mrc_psn_add(base, i);

			if (!(h->bitmap & BIT_ULL(i)) ||
			    !mrc_psn_inflight(qp, psn))
				continue;
			acked += mrc_txp_sacked(qp, mrc_txp(qp, psn));
			mrc_note_received(qp, psn);
		}
		if (mrc_psn_inflight(qp, drew)) {
			struct mrc_tx_pkt *e = mrc_txp(qp, drew);

			if (sample && !(e->flags & MRC_TXP_SACKED))
				mrc_rtt_sample(qp, e, &rtt_us);
			acked += mrc_txp_sacked(qp, e);
			mrc_note_received(qp, drew);
		}
		if (h->cc_flags & MRC_CC_FLAG_DUP)
			mrc_note_dup(qp, drew, &cfg);
		mrc_sack_losses(qp, &cfg);
	}

	if (acked) {
		qp->feedback = true;
		qp->tx_progress = jiffies;
		mrc_cc_on_ack(qp, &cfg, acked, rtt_us,
			      h->cc_flags & MRC_CC_FLAG_ECN);
	}

	/* Restarted by cumulative progress only: a late SACK from before
	 * snd_una must not push a timeout out.
	 */
	if (qp->snd_una == qp->snd_nxt)
		hrtimer_try_to_cancel(&qp->rto_timer);
	else if (progressed)
		mrc_rto_arm(qp, &cfg);
	mrc_qp_push(qp, out);
}

/**
 * mrc_qp_persist() - the persist deadline of a namespace's queue pairs
 * @c: its configuration
 *
 * How long a queue pair with messages to send may see none of its bytes
 * acknowledged before its sending direction fails with ETIMEDOUT.  A
 * peer that answers "no buffer" is alive, and each refusal resets the
 * retry count; but its reader is not reading, and its QP holds its share
 * of the send buffer.  It is given as long as the retry limit's timeouts
 * take at the longest backoff (MRC_RTO_MAX_US, or the configured RTO if
 * longer), which is longer than a silent peer gets (its backoff starts
 * from the RTT): by default 8 times a second.  The timer, armed while
 * the peer refuses, checks it at least that often.  A receiver keeps a
 * QP it hears nothing on for a little longer (mrc_qp_hold()), assuming
 * its peer's configuration is its own.
 *
 * Return: the deadline, in jiffies from the last progress.
 */
unsigned long mrc_qp_persist(const struct mrc_config *c)
{
	return usecs_to_jiffies((c->retry_limit + 1) *
				max_t(u32, c->rto_us, MRC_RTO_MAX_US));
}

/* When the retransmission timeout is due: a whole RTO (@rto_us, backoff
 * included) after the oldest transmission still unanswered.  0 (due now)
 * if every PSN out is acknowledged selectively or waits to be resent: the
 * timer runs for a wait (room, a window), not for a packet.
 */
static u64 mrc_qp_rto_due_ns(struct mrc_qp *qp, u32 rto_us)
{
	u32 n = mrc_psn_diff(qp->snd_nxt, qp->snd_una), i;
	u64 oldest = U64_MAX;

	for (i = 0; i < n; i++) {
		const struct mrc_tx_pkt *e;

		e = mrc_txp(qp, mrc_psn_add(qp->snd_una, i));
		if (!(e->flags & (MRC_TXP_SACKED | MRC_TXP_LOST)) &&
		    e->tx_ns < oldest)
			oldest = e->tx_ns;
	}
	if (oldest == U64_MAX)
		return 0;
	return oldest + (u64)rto_us * NSEC_PER_USEC;
}

/**
 * mrc_rto_fire() - the retransmission timeout of a queue pair
 * @t: its timer
 *
 * Runs in softirq context.  Not yet a timeout if the peer acknowledged
 * data within the RTO and every packet out was sent less than an RTO
 * ago: the timer is started again for the oldest (rto_deferred).
 * Otherwise everything in flight and not SACKed is taken as lost; after
 * retry-limit timeouts in a row with no word from the peer, or past the
 * persist deadline (mrc_qp_persist()), the sending direction fails with
 * ETIMEDOUT.
 *
 * Return: HRTIMER_NORESTART; the timer is started again here, or by
 * mrc_rto_arm() when needed.
 */
enum hrtimer_restart mrc_rto_fire(struct hrtimer *t)
{
	struct mrc_qp *qp = container_of(t, struct mrc_qp, rto_timer);
	const struct mrc_config *c;
	struct mrc_config cfg;
	u64 now, timed_out;
	u32 n, i, usable, rto_us;

	rcu_read_lock();
	c = mrc_cfg(qp->mn);
	cfg = *c;
	rcu_read_unlock();

	spin_lock(&qp->lock);
	/* Re-armed while this run waited for the lock: not due yet.  With
	 * nothing in flight it is due only to end a wait for room, or for
	 * the peer's bytes under the cap (MRC_AMP_FACTOR): the retry limit
	 * and the persist deadline end those.
	 */
	if (qp->dead ||
	    (qp->snd_una == qp->snd_nxt && !qp->peer_starved &&
	     !qp->amp_blocked) ||
	    qp->state != MRC_QP_STATE_OPEN || hrtimer_is_queued(t))
		goto unlock;

	now = ktime_get_ns();
	rto_us = mrc_qp_rto_us(qp, &cfg);
	if (!qp->peer_starved && !qp->amp_blocked &&
	    time_before(jiffies, qp->tx_progress + usecs_to_jiffies(rto_us))) {
		u64 due = mrc_qp_rto_due_ns(qp, rto_us);

		/* The timer ran from the last cumulative progress, but the
		 * peer acknowledged data within this RTO and what is out
		 * was resent since (a trim's NACK, a SACK's gap): nothing
		 * has waited a whole RTO unanswered yet.  Wait for the
		 * oldest.  A peer that acknowledges nothing gets no such
		 * wait: its timeouts count toward the retry limit.
		 */
		if (due > now) {
			mrc_qp_stat_inc(qp, MRC_STAT_RTO_DEFERRED);
			hrtimer_start(t, ns_to_ktime(due - now),
				      HRTIMER_MODE_REL_SOFT);
			goto unlock;
		}
	}

	mrc_qp_stat_inc(qp, MRC_STAT_TIMEOUTS);
	if (trace_mrc_rto_enabled()) {
		const struct mrc_tx_pkt *h = mrc_txp(qp, qp->snd_una);
		bool any = qp->snd_una != qp->snd_nxt;

		trace_mrc_rto(qp->qpn, qp->snd_una,
			      mrc_psn_diff(qp->snd_nxt, qp->snd_una),
			      qp->inflight, qp->cc.cwnd,
			      rto_us, qp->backoff, any ? now - h->tx_ns : 0,
			      any ? h->flags : 0,
			      jiffies_to_msecs(jiffies - qp->tx_progress));
	}
	if (qp->feedback)
		qp->retries = 0;
	qp->feedback = false;
	if (++qp->retries > cfg.retry_limit ||
	    time_after(jiffies, qp->tx_progress + mrc_qp_persist(&cfg))) {
		mrc_qp_fail(qp, ETIMEDOUT);
		goto unlock;
	}

	/* A transmission sent a whole RTO ago and not acknowledged timed
	 * out: each names its value, which is assumed bad.  Those sent
	 * since are resent too, but say nothing of their path.
	 */
	usable = mrc_peer_usable(qp);
	timed_out = mrc_qp_rto_base_us(qp, &cfg) * NSEC_PER_USEC;
	n = mrc_psn_diff(qp->snd_nxt, qp->snd_una);
	for (i = 0; i < n; i++) {
		struct mrc_tx_pkt *e = mrc_txp(qp, mrc_psn_add(qp->snd_una, i));

		if (e->flags & (MRC_TXP_SACKED | MRC_TXP_LOST))
			continue;
		if (now - e->tx_ns >= timed_out)
			mrc_peer_timed_out(qp, e->ev);
		e->flags |= MRC_TXP_LOST | MRC_TXP_LOST_RTO;
		qp->inflight -= e->len;
		qp->nr_lost++;
	}
	qp->rto_lo = qp->snd_una;
	qp->rto_hi = qp->snd_nxt;
	qp->peer_starved = false;
	mrc_cc_on_timeout(qp, &cfg, usable, mrc_peer_usable(qp));
	if (qp->backoff < 16)
		qp->backoff++;
	mrc_qp_push(qp, &qp->xq);
	mrc_rto_arm(qp, &cfg);
unlock:
	spin_unlock(&qp->lock);
	mrc_qp_flush(qp);
	return HRTIMER_NORESTART;
}
