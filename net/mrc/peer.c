// SPDX-License-Identifier: GPL-2.0
/* Destinations ("peers"): the state every queue pair to one remote
 * address shares, in either direction: the spraying state of
 * spec/multipath.md (active set, rotation, marks, values assumed bad)
 * and what queue pairs learnt of the paths (reordering depth, RTT).
 *
 * Lifetime: a peer is created with the first queue pair to its address
 * and counts the queue pairs attached to it under mrc_net.peer_lock; the
 * last one to close unlinks it, and it is freed after an RCU grace
 * period, so the next queue pair to the address draws a new active set.
 * Queue pairs attach before they are visible and detach once dead, so a
 * peer outlives every user that reaches it through a live queue pair;
 * the probe timer reaches peers through the table, under RCU.
 */
#include <linux/random.h>
#include <linux/slab.h>
#include <net/genetlink.h>

#include <mrc/mrc.h>

static u32 mrc_peer_hash(struct mrc_net *mn, const struct in6_addr *addr)
{
	return siphash(addr, sizeof(*addr), &mn->peer_key);
}

/**
 * struct mrc_src - the queue pairs one source's packets opened
 * @node: in mrc_net.srcs
 * @key: the source: an IPv4 address (v4-mapped), or an IPv6 /64 (the
 *	interface identifier zeroed), which one host may hold whole
 * @nr_qps: the queue pairs open that its packets opened; the entry goes
 *	with the last
 *
 * Guarded by mrc_net.peer_lock, as the peers are; never read under RCU.
 */
struct mrc_src {
	struct hlist_node node;
	struct in6_addr key;
	u32 nr_qps;
};

static void mrc_src_key(const struct in6_addr *addr, struct in6_addr *key)
{
	*key = *addr;
	if (!ipv6_addr_v4mapped(addr)) {
		key->s6_addr32[2] = 0;
		key->s6_addr32[3] = 0;
	}
}

/* Under mrc_net.peer_lock: the entry of @key, or NULL. */
static struct mrc_src *mrc_src_find(struct mrc_net *mn,
				    const struct in6_addr *key, u32 h)
{
	struct mrc_src *src;

	hash_for_each_possible(mn->srcs, src, node, h)
		if (ipv6_addr_equal(&src->key, key))
			return src;
	return NULL;
}

/**
 * mrc_peer_net_init() - set up a namespace's peer table and probe timer
 * @mn: the namespace's state
 */
void mrc_peer_net_init(struct mrc_net *mn)
{
	spin_lock_init(&mn->peer_lock);
	hash_init(mn->peers);
	hash_init(mn->srcs);
	get_random_bytes(&mn->peer_key, sizeof(mn->peer_key));
	spin_lock_init(&mn->probe_lock);
	hrtimer_init(&mn->probe_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_SOFT);
	mn->probe_timer.function = mrc_probe_fire;
}

/**
 * mrc_peer_net_exit() - stop a namespace's probe timer
 * @mn: the namespace's state, whose queue pairs are all closed
 *
 * With no queue pair there is no peer, so nothing arms the timer again.
 */
void mrc_peer_net_exit(struct mrc_net *mn)
{
	spin_lock_bh(&mn->probe_lock);
	mn->probe_stop = true;
	spin_unlock_bh(&mn->probe_lock);
	hrtimer_cancel(&mn->probe_timer);
	WARN_ON_ONCE(mn->nr_peers);
}

static u32 mrc_peer_rnd(void *ctx)
{
	return get_random_u32();
}

/* A new destination's state.  The configuration is read once, into @c:
 * the size of the per-value array and the active set drawn into it come
 * from the same one, though another may be put in place meanwhile (the
 * allocation may sleep, so not under RCU).
 */
static struct mrc_peer *mrc_peer_alloc(struct mrc_qp *qp, gfp_t gfp)
{
	struct mrc_config c;
	struct mrc_peer *p;
	u32 n = 0;

	/* A configuration change applies to the states created after it. */
	rcu_read_lock();
	c = *mrc_cfg(qp->mn);
	rcu_read_unlock();
	if (c.spraying_type == MRC_SPRAYING_DEFAULT)
		n = mrc_active_set_size(&c);
	/* The configuration's checks keep it within MRC_SPRAY_MAX, which
	 * the active set's indices, and the allocation, rely on.
	 */
	if (WARN_ON_ONCE(n > MRC_SPRAY_MAX ||
			 mrc_entropy_range(&c) > MRC_SPRAY_MAX))
		return NULL;

	p = kzalloc(struct_size(p, ev, n), gfp | __GFP_NOWARN);
	if (!p)
		return NULL;
	p->mn = qp->mn;
	p->addr = qp->raddr;
	p->family = qp->family;
	spin_lock_init(&p->lock);
	INIT_LIST_HEAD(&p->qps);
	p->spraying = c.spraying_type;
	if (p->spraying == MRC_SPRAYING_DEFAULT)
		mrc_spray_init(&p->spray, &c, mrc_peer_rnd, NULL);
	return p;
}

/**
 * mrc_peer_attach() - attach a new queue pair to its destination's state
 * @qp: the queue pair, not yet visible to anyone
 * @gfp: allocation flags, should the destination be new
 * @rx: a peer's packet opens it: counted against its source, which may
 *	have mrc_max_qps_per_addr() open so at most (those a local send
 *	opened are not counted)
 *
 * Return: 0, -ENOBUFS, or -EDQUOT if the source has its share already.
 */
int mrc_peer_attach(struct mrc_qp *qp, gfp_t gfp, bool rx)
{
	struct mrc_net *mn = qp->mn;
	u32 h = mrc_peer_hash(mn, &qp->raddr), hs = 0;
	struct mrc_src *src = NULL, *new_src = NULL;
	struct mrc_peer *p, *new = NULL;
	struct in6_addr key;

	if (rx) {
		mrc_src_key(&qp->raddr, &key);
		hs = mrc_peer_hash(mn, &key);
	}
again:
	spin_lock_bh(&mn->peer_lock);
	if (rx) {
		src = mrc_src_find(mn, &key, hs);
		if (src && src->nr_qps >= mrc_max_qps_per_addr()) {
			spin_unlock_bh(&mn->peer_lock);
			kfree(new);
			kfree(new_src);
			return -EDQUOT;
		}
		if (!src && !new_src) {
			/* Allocated unlocked: the lookup is made again. */
			spin_unlock_bh(&mn->peer_lock);
			new_src = kmalloc(sizeof(*new_src), gfp | __GFP_NOWARN);
			if (!new_src)
				goto nomem;
			goto again;
		}
	}
	hash_for_each_possible(mn->peers, p, node, h)
		if (p->family == qp->family &&
		    ipv6_addr_equal(&p->addr, &qp->raddr))
			goto found;
	if (!new) {
		spin_unlock_bh(&mn->peer_lock);
		new = mrc_peer_alloc(qp, gfp);
		if (!new)
			goto nomem;
		goto again;
	}
	p = new;
	new = NULL;
	hash_add_rcu(mn->peers, &p->node, h);
	mn->nr_peers++;
	mrc_stat_inc(mn, MRC_STAT_PEER_OPENED);
found:
	if (rx && !src) {
		src = new_src;
		new_src = NULL;
		src->key = key;
		src->nr_qps = 0;
		hash_add(mn->srcs, &src->node, hs);
	}
	if (src)
		src->nr_qps++;
	qp->src = src;
	p->nr_qps++;
	spin_lock(&p->lock);
	list_add_tail(&qp->peer_node, &p->qps);
	spin_unlock(&p->lock);
	spin_unlock_bh(&mn->peer_lock);
	qp->peer = p;
	kfree(new);
	kfree(new_src);
	return 0;

nomem:
	kfree(new);
	kfree(new_src);
	return -ENOBUFS;
}

/**
 * mrc_peer_detach() - detach a closed queue pair from its destination
 * @qp: the queue pair, dead or never made visible
 *
 * The last queue pair to go frees the destination's state.
 */
void mrc_peer_detach(struct mrc_qp *qp)
{
	struct mrc_net *mn = qp->mn;
	struct mrc_src *src;
	struct mrc_peer *p;
	bool last;

	spin_lock_bh(&qp->lock);
	p = qp->peer;
	qp->peer = NULL;
	spin_unlock_bh(&qp->lock);
	if (!p)
		return;

	spin_lock_bh(&mn->peer_lock);
	spin_lock(&p->lock);
	list_del(&qp->peer_node);
	spin_unlock(&p->lock);
	src = qp->src;
	qp->src = NULL;
	if (src && !--src->nr_qps) {
		hash_del(&src->node);
		kfree(src);
	}
	last = !--p->nr_qps;
	if (last) {
		hash_del_rcu(&p->node);
		mn->nr_peers--;
	}
	spin_unlock_bh(&mn->peer_lock);
	if (last) {
		mrc_stat_inc(mn, MRC_STAT_PEER_CLOSED);
		kfree_rcu(p, rcu);
	}
}

static bool mrc_peer_sprays(const struct mrc_peer *p)
{
	return p && p->spraying == MRC_SPRAYING_DEFAULT;
}

/**
 * mrc_peer_entropy() - the entropy value of a queue pair's next packet
 * @qp: the queue pair, locked
 * @data: a data packet (counted against its value), else an ACK
 *
 * Under Default Packet Spraying the destination's rotation's next usable
 * value; under None (or with no state) the queue pair's own port.
 *
 * Return: the value, the packet's UDP source port.
 */
u16 mrc_peer_entropy(struct mrc_qp *qp, bool data)
{
	struct mrc_peer *p = qp->peer;
	struct mrc_spray_pick k;
	u16 i;

	if (!mrc_peer_sprays(p))
		return qp->udp_sport;
	spin_lock(&p->lock);
	k = mrc_spray_next(&p->spray);
	i = mrc_spray_index(&p->spray, k.port);
	if (data && i != MRC_SPRAY_NONE)
		p->ev[i].tx_packets++;
	spin_unlock(&p->lock);
	if (k.cleared)
		mrc_qp_stat_inc(qp, MRC_STAT_SKIP_CLEARED);
	return k.port;
}

/**
 * mrc_peer_usable() - how many values of a queue pair's destination are
 * in the rotation
 * @qp: the queue pair, locked
 *
 * Return: the active set's values not assumed bad; 0 when the
 * destination is not sprayed.
 */
u32 mrc_peer_usable(struct mrc_qp *qp)
{
	struct mrc_peer *p = qp->peer;
	u32 n;

	if (!mrc_peer_sprays(p))
		return 0;
	spin_lock(&p->lock);
	n = p->spray.n - p->spray.nr_bad;
	spin_unlock(&p->lock);
	return n;
}

/**
 * mrc_peer_timed_out() - a transmission on @ev timed out
 * @qp: the queue pair, locked
 * @ev: the transmission's entropy value
 *
 * The value is assumed bad: it leaves the rotation, and probing starts.
 */
void mrc_peer_timed_out(struct mrc_qp *qp, u16 ev)
{
	struct mrc_peer *p = qp->peer;
	int bad;

	if (!mrc_peer_sprays(p))
		return;
	spin_lock(&p->lock);
	bad = mrc_spray_mark_bad(&p->spray, ev);
	spin_unlock(&p->lock);
	if (!bad)
		return;
	mrc_qp_stat_inc(qp, MRC_STAT_EV_BAD);
	mrc_probe_arm(qp->mn);
}

/**
 * mrc_peer_trimmed() - a packet on @ev was trimmed on the way
 * @qp: the queue pair, locked
 * @ev: the value the NACK (reason 0x01) or the SACK marked skip-once
 *	(the peer's ecn-skip) carries back
 *
 * The value is passed over once, even if the packet was acknowledged
 * since.
 */
void mrc_peer_trimmed(struct mrc_qp *qp, u16 ev)
{
	struct mrc_peer *p = qp->peer;
	int marked;

	if (!mrc_peer_sprays(p))
		return;
	spin_lock(&p->lock);
	marked = mrc_spray_mark_skip(&p->spray, ev);
	spin_unlock(&p->lock);
	if (marked)
		mrc_qp_stat_inc(qp, MRC_STAT_SKIP_MARKED);
}

/**
 * mrc_peer_learn() - keep what a queue pair learnt of the paths
 * @qp: the queue pair, locked
 *
 * Reordering is the normal case under spraying: a new queue pair to the
 * destination starts from the deepest reordering one has seen, instead
 * of retransmitting in vain until it learns it again.
 */
void mrc_peer_learn(struct mrc_qp *qp)
{
	struct mrc_peer *p = qp->peer;

	if (!p)
		return;
	spin_lock(&p->lock);
	p->reorder = max(p->reorder, qp->reorder);
	if (qp->srtt_us) {
		p->srtt_us = qp->srtt_us;
		p->rttvar_us = qp->rttvar_us;
		p->max_rtt_us = qp->max_rtt_us;
	}
	if (qp->base_rtt_us &&
	    (!p->base_rtt_us || qp->base_rtt_us < p->base_rtt_us))
		p->base_rtt_us = qp->base_rtt_us;
	spin_unlock(&p->lock);
}

/**
 * mrc_peer_recall() - start a queue pair's epoch from what was learnt
 * @qp: the queue pair, locked, its sending direction just reset
 */
void mrc_peer_recall(struct mrc_qp *qp)
{
	struct mrc_peer *p = qp->peer;

	if (!p)
		return;
	spin_lock(&p->lock);
	qp->reorder = max(qp->reorder, p->reorder);
	if (!qp->srtt_us && p->srtt_us) {
		qp->srtt_us = p->srtt_us;
		qp->rttvar_us = p->rttvar_us;
		qp->max_rtt_us = p->max_rtt_us;
	}
	if (p->base_rtt_us &&
	    (!qp->base_rtt_us || p->base_rtt_us < qp->base_rtt_us))
		qp->base_rtt_us = p->base_rtt_us;
	spin_unlock(&p->lock);
}

/* One peer's attributes; its lock is held. */
static int mrc_nl_put_peer(struct sk_buff *msg, struct mrc_peer *p)
{
	const struct mrc_spray *s = &p->spray;
	struct mrc_peer_value *v;
	struct nlattr *nest, *qps, *a;
	struct mrc_qp *qp;
	u16 n = mrc_peer_sprays(p) ? s->n : 0, i;

	nest = nla_nest_start(msg, MRC_A_PEER);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u16(msg, MRC_PEER_A_FAMILY, p->family) ||
	    (p->family == AF_INET ?
	     nla_put_in_addr(msg, MRC_PEER_A_ADDR, p->addr.s6_addr32[3]) :
	     nla_put_in6_addr(msg, MRC_PEER_A_ADDR, &p->addr)) ||
	    nla_put_u32(msg, MRC_PEER_A_SPRAYING_TYPE, p->spraying) ||
	    nla_put_u32(msg, MRC_PEER_A_REORDER, p->reorder) ||
	    nla_put_u32(msg, MRC_PEER_A_SRTT_US, p->srtt_us) ||
	    nla_put_u32(msg, MRC_PEER_A_BASE_RTT_US, p->base_rtt_us) ||
	    nla_put_u64_64bit(msg, MRC_PEER_A_PROBE_TX, p->nr_probe_tx,
			      MRC_PEER_A_PAD) ||
	    nla_put_u64_64bit(msg, MRC_PEER_A_PROBE_RESP_RX, p->nr_probe_rx,
			      MRC_PEER_A_PAD))
		goto cancel;
	if (n) {
		if (nla_put_u32(msg, MRC_PEER_A_RANGE_FIRST, s->base) ||
		    nla_put_u32(msg, MRC_PEER_A_RANGE_SIZE, s->range) ||
		    nla_put_u32(msg, MRC_PEER_A_POSITION, s->pos) ||
		    nla_put_u32(msg, MRC_PEER_A_NR_BAD, s->nr_bad))
			goto cancel;
		a = nla_reserve(msg, MRC_PEER_A_VALUES, n * sizeof(*v));
		if (!a)
			goto cancel;
		v = nla_data(a);
		for (i = 0; i < n; i++) {
			v[i] = (struct mrc_peer_value){
				.port = s->ev[i],
				.state = s->flags[i] & MRC_EV_BAD ?
					 MRC_EV_STATE_BAD :
					 s->flags[i] & MRC_EV_SKIP ?
					 MRC_EV_STATE_SKIP_ONCE :
					 MRC_EV_STATE_USABLE,
				.tx_packets = p->ev[i].tx_packets,
				.probes_tx = p->ev[i].probes_tx,
				.probes_rx = p->ev[i].probes_rx,
			};
		}
	}
	qps = nla_nest_start(msg, MRC_PEER_A_QPS);
	if (!qps)
		goto cancel;
	list_for_each_entry(qp, &p->qps, peer_node)
		if (nla_put_u32(msg, MRC_PEER_A_QPN, qp->qpn))
			goto cancel;
	nla_nest_end(msg, qps);
	nla_nest_end(msg, nest);
	return 0;

cancel:
	nla_nest_cancel(msg, nest);
	return -EMSGSIZE;
}

/**
 * mrc_nl_peer_dump() - MRC_CMD_PEER_GET: one message per destination
 * @skb: the reply
 * @cb: the dump's state; args[0] counts the peers already sent
 *
 * Return: the reply's length, 0 when done, or a negative errno.
 */
int mrc_nl_peer_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct mrc_net *mn = mrc_net(sock_net(skb->sk));
	long skip = cb->args[0], i = 0;
	struct mrc_peer *p;
	int bkt, ret = 0;

	rcu_read_lock();
	hash_for_each_rcu(mn->peers, bkt, p, node) {
		void *hdr;

		if (i++ < skip)
			continue;
		hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid,
				  cb->nlh->nlmsg_seq, &mrc_genl_family,
				  NLM_F_MULTI, MRC_CMD_PEER_GET);
		if (!hdr) {
			ret = -EMSGSIZE;
			break;
		}
		spin_lock_bh(&p->lock);
		ret = mrc_nl_put_peer(skb, p);
		spin_unlock_bh(&p->lock);
		if (ret) {
			genlmsg_cancel(skb, hdr);
			break;
		}
		genlmsg_end(skb, hdr);
		cb->args[0] = i;
	}
	rcu_read_unlock();
	/* A peer too big for an empty message: say so, do not loop. */
	if (ret && !skb->len)
		return ret;
	return skb->len;
}
