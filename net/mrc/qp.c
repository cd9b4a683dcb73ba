// SPDX-License-Identifier: GPL-2.0
/* Queue pairs: one per (socket, local address, remote address, remote
 * port), opened on first use by either end and closed by the reaper once
 * idle.  The local address is part of the key because a peer knows us by
 * the address it sent to: a host of several addresses answers each peer
 * from the one it used, and one peer may reach one socket at two of them.
 * The table hashes the remote end alone, so that sendmsg() on a socket
 * bound to no address finds the QP to a destination at whichever local
 * address it has.
 *
 * Lifetime: a QP is on its socket's table (read under RCU by the receive
 * path) and in its namespace's xarray, which together hold one reference;
 * senders and the reaper take their own.  mrc_qp_kill() unlinks it, marks
 * it dead under its lock so nothing arms its timer again, cancels the
 * timer and drops the tables' reference; the memory goes after an RCU
 * grace period, and the QP's reference on its socket with it.
 */
#include <linux/random.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <net/ip.h>

#include <mrc/mrc.h>

static bool mrc_qp_match(const struct mrc_qp *qp, const struct mrc_local *l,
			 const struct in6_addr *addr, u16 port)
{
	return qp->rport == port && ipv6_addr_equal(&qp->raddr, addr) &&
	       mrc_local_match(&qp->local, l);
}

/* mrc_qp_lookup() in @bucket, the key's (mrc_sock_qp_bucket()). */
static struct mrc_qp *mrc_qp_lookup_in(struct hlist_head *bucket,
				       const struct mrc_local *l,
				       const struct in6_addr *addr, u16 port)
{
	struct mrc_qp *qp;

	hlist_for_each_entry_rcu(qp, bucket, node)
		if (mrc_qp_match(qp, l, addr, port) && !READ_ONCE(qp->dead))
			return qp;
	return NULL;
}

/**
 * mrc_qp_lookup() - find a socket's queue pair to a remote socket
 * @ms: the socket
 * @l: the local end: a packet's destination address and link; or, from
 *	sendmsg() on a socket bound to no address, an unspecified address
 *	that any QP's matches (see mrc_local_match())
 * @addr: remote address (IPv4 v4-mapped)
 * @port: remote mrc port
 *
 * Context: rcu_read_lock() held; the QP may be dead, which its lock tells.
 *
 * Return: the QP or NULL.
 */
struct mrc_qp *mrc_qp_lookup(struct mrc_sock *ms, const struct mrc_local *l,
			     const struct in6_addr *addr, u16 port)
{
	return mrc_qp_lookup_in(mrc_sock_qp_bucket(ms, addr, port), l, addr,
				port);
}

/* The local address a QP that @l leaves open sends from: the source the
 * route to the peer picks now, fixed for the QP's life, as UDP's
 * connect() fixes it.  With no route, none: the QP then sends from the
 * route's source of the moment, and takes the peer's packets at any.
 */
static void mrc_qp_pick_laddr(struct mrc_qp *qp)
{
	struct dst_entry *dst;
	struct flowi fl;

	dst = mrc_route(qp->mn, mrc_to_sk(qp->ms), qp->family, &qp->local,
			&qp->raddr, 0, 0, &fl);
	if (IS_ERR(dst))
		return;
	if (qp->family == AF_INET6)
		qp->local.addr = fl.u.ip6.saddr;
	else if (fl.u.ip4.saddr)
		ipv6_addr_set_v4mapped(fl.u.ip4.saddr, &qp->local.addr);
	dst_release(dst);
}

static void mrc_qp_free_rcu(struct rcu_head *rcu)
{
	struct mrc_qp *qp = container_of(rcu, struct mrc_qp, rcu);

	kfree(qp->ring);
	kfree(qp->rx_bitmap);
	kfree(qp->rx_slots);
	kfree(qp);
}

/**
 * mrc_qp_put() - drop a reference on a queue pair
 * @qp: the QP
 */
void mrc_qp_put(struct mrc_qp *qp)
{
	if (!refcount_dec_and_test(&qp->ref))
		return;
	sock_put(mrc_to_sk(qp->ms));
	call_rcu(&qp->rcu, mrc_qp_free_rcu);
}

/* A QP's memory is charged to the memory cgroup of its socket
 * (sk_memcg, which sk_alloc() took from the socket's creator where that
 * cgroup accounts socket memory), as its buffers are, whichever context
 * allocates it.  In softirq context, where a peer's packet opens a QP,
 * __GFP_ACCOUNT alone would charge nobody (there is no task, and the
 * interrupted one has nothing to do with it): the socket's cgroup is
 * made the active one around the allocation.  Without sk_memcg (the
 * root cgroup, or cgroup v1 without kmem.tcp) a QP is charged as the
 * socket's buffers are: in softirq context to nobody, in sendmsg() to
 * the sender's cgroup.
 */
static struct mem_cgroup *mrc_qp_memcg_enter(struct mrc_sock *ms,
					     struct mem_cgroup **old)
{
	/* Set by sk_alloc(), for the socket's life. */
	struct mem_cgroup *memcg = mrc_to_sk(ms)->sk_memcg;

	if (memcg)
		*old = set_active_memcg(memcg);
	return memcg;
}

static void mrc_qp_memcg_leave(struct mem_cgroup *memcg,
			       struct mem_cgroup *old)
{
	if (memcg)
		set_active_memcg(old);
}

/**
 * mrc_qp_ring_alloc() - the scoreboard of a queue pair's sending direction
 * @qp: the queue pair, not locked
 *
 * Allocated on its first send (see mrc_qp_send()), not with the QP: most
 * QPs a peer opens only receive.
 *
 * Context: process context (sendmsg()).
 *
 * Return: MRC_WINDOW zeroed entries, charged as the QP, or NULL.
 */
struct mrc_tx_pkt *mrc_qp_ring_alloc(struct mrc_qp *qp)
{
	struct mem_cgroup *memcg, *old = NULL;
	struct mrc_tx_pkt *ring;

	memcg = mrc_qp_memcg_enter(qp->ms, &old);
	ring = kcalloc(MRC_WINDOW, sizeof(*ring), GFP_KERNEL_ACCOUNT);
	mrc_qp_memcg_leave(memcg, old);
	return ring;
}

static struct mrc_qp *mrc_qp_alloc(struct mrc_sock *ms,
				   const struct mrc_local *l,
				   const struct in6_addr *addr, u16 port,
				   gfp_t gfp)
{
	struct mem_cgroup *memcg, *old = NULL;
	struct mrc_qp *qp;

	memcg = mrc_qp_memcg_enter(ms, &old);
	gfp |= __GFP_ACCOUNT;
	qp = kzalloc(sizeof(*qp), gfp);
	if (qp) {
		qp->rx_bitmap = bitmap_zalloc(MRC_WINDOW, gfp);
		qp->rx_slots = kcalloc(MRC_WINDOW, sizeof(*qp->rx_slots), gfp);
	}
	mrc_qp_memcg_leave(memcg, old);
	if (!qp)
		return NULL;
	if (!qp->rx_bitmap || !qp->rx_slots) {
		mrc_qp_free_rcu(&qp->rcu);
		return NULL;
	}
	spin_lock_init(&qp->lock);
	refcount_set(&qp->ref, 2);
	qp->ms = ms;
	qp->mn = ms->mn;
	qp->family = mrc_to_sk(ms)->sk_family;
	qp->lport = READ_ONCE(ms->port);
	qp->rport = port;
	qp->raddr = *addr;
	qp->local = *l;
	INIT_LIST_HEAD(&qp->tx_queue);
	__skb_queue_head_init(&qp->xq);
	INIT_LIST_HEAD(&qp->peer_node);
	INIT_LIST_HEAD(&qp->rx_turn);
	hrtimer_init(&qp->rto_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_SOFT);
	qp->rto_timer.function = mrc_rto_fire;
	hrtimer_init(&qp->ack_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_SOFT);
	qp->ack_timer.function = mrc_ack_fire;
	qp->rx_ackreq = MRC_PSN_MASK;
	/* This end's tag: what a packet must echo to be taken as the
	 * peer's (include/mrc/tag.h).
	 */
	mrc_tag_init(&qp->tags, get_random_u32());
	/* Its first challenge may go at once. */
	qp->chal_last = jiffies - mrc_challenge_gap();
	qp->last_tx = jiffies;
	qp->last_rx = jiffies;
	/* Nothing read yet: no idle period after a read keeps it
	 * (mrc_qp_amp_pinned()), or every new QP of a peer not validated
	 * could not be evicted for its first 3 s, and a flood of forged
	 * first packets would keep a full table from new peers.
	 */
	qp->amp_read = jiffies - msecs_to_jiffies(MRC_QP_IDLE_MS) - 1;
	qp->rx_fresh = jiffies;
	return qp;
}

/* The QP's own UDP source port, its entropy value under spraying None:
 * the socket option, else a random one of the namespace's ephemeral
 * range (ip_local_port_range), as a UDP socket would get, and not of the
 * entropy range, which belongs to spraying.
 */
static u16 mrc_qp_pick_sport(struct mrc_qp *qp, u16 opt)
{
	struct net *net = sock_net(mrc_to_sk(qp->ms));
	int lo, hi;

	if (opt)
		return opt;
	inet_get_local_port_range(net, &lo, &hi);
	return lo + get_random_u32() % (hi - lo + 1);
}

/* A QP that was never visible: release its reserved number, free it. */
static void mrc_qp_discard(struct mrc_qp *qp)
{
	xa_erase_bh(&qp->mn->qps, qp->qpn);
	mrc_qp_free_rcu(&qp->rcu);
}

/* Under mrc_net.qp_lock: the namespace's QPs changed. */
static void mrc_qp_gen_bump(struct mrc_net *mn)
{
	/* 0 would tell a dump "no generation seen yet". */
	if (!++mn->qp_gen)
		mn->qp_gen = 1;
}

/* The rest of closing @qp, dead and off its socket's table: off the
 * namespace's, its timers stopped, what it holds dropped, its
 * destination told.  The tables' reference is the caller's to put.
 * Waits for a timer callback running elsewhere, if any: not from
 * softirq context unless its timers are known idle (mrc_qp_evictable()).
 */
static void mrc_qp_finish(struct mrc_qp *qp)
{
	struct mrc_net *mn = qp->mn;

	spin_lock_bh(&mn->qp_lock);
	xa_erase(&mn->qps, qp->qpn);
	mrc_qp_gen_bump(mn);
	spin_unlock_bh(&mn->qp_lock);
	atomic_dec(&mn->nr_qps);

	hrtimer_cancel(&qp->rto_timer);
	hrtimer_cancel(&qp->ack_timer);

	spin_lock_bh(&qp->lock);
	mrc_qp_tx_purge(qp);
	mrc_qp_rx_purge(qp);
	__skb_queue_purge(&qp->xq);
	mrc_qp_stat_inc(qp, MRC_STAT_QP_CLOSED);
	mrc_peer_learn(qp);
	spin_unlock_bh(&qp->lock);
	/* Its destination's state goes with the last QP to it. */
	mrc_peer_detach(qp);
}

/* Under the QP's lock: whether a QP not validated may be answered yet:
 * its socket holds a message of its peer's unread, or read one within
 * an idle period.  The answer must go through this QP, under its cap
 * (MRC_AMP_FACTOR), not through a new one, which would have none.  The
 * socket's receive buffer and mrc_amp_pinned_max() bound how many such
 * QPs there are.
 */
static bool mrc_qp_amp_pinned(struct mrc_qp *qp)
{
	unsigned long idle = msecs_to_jiffies(MRC_QP_IDLE_MS);

	if (!qp->unvalidated)
		return false;
	/* Pairs with the barrier in mrc_rx_msg_free(): no message
	 * unread, then the time the last was read.
	 */
	if (atomic_read_acquire(&qp->amp_unread))
		return true;
	return !time_after(jiffies, READ_ONCE(qp->amp_read) + idle);
}

/* Whether a QP not validated holds a message of its peer unread, which
 * mrc_amp_pinned_max() bounds for the socket.
 */
static bool mrc_qp_amp_unread(struct mrc_qp *qp)
{
	return qp->unvalidated && atomic_read(&qp->amp_unread);
}

/* Under the socket's lock and the QP's: may @qp be closed to make room
 * for a new peer?  Only one the peer never answered (it may be forged:
 * an address that sends and never receives), or one of a proven peer
 * idle both ways for MRC_QP_IDLE_MS with no message half received,
 * which the reaper would have closed but holds on to (mrc_qp_idle()):
 * either with nothing of ours to
 * send nor room reserved for a message about to be (mrc_sendmsg()), and
 * no timer armed: marked dead under its lock, nothing arms them again,
 * so closing it needs no wait (see mrc_qp_finish()).  Nor one with a
 * message half received whose sender placed more than its first packet:
 * closing it would reset a live sender (its next packet draws NACK
 * 0x0B); it is held until its sender stalls and the reaper drops its
 * partial messages (mrc_qp_rx_evict(), which a full table triggers),
 * and never again after that: a sender replaying its first packets of
 * a new incarnation every stall period would keep it for ever.  Nor,
 * as for the reaper (mrc_qp_idle()), one a sender waits for room on,
 * or one whose peer's message waits unread (mrc_qp_amp_unread()): a
 * reply would go through a new QP, without its cap.  The socket's
 * buffers and mrc_amp_pinned_max() bound how many those are.  But not
 * for the idle period after a read that the reaper waits (unbounded:
 * forged senders of whole messages to a server that reads them and
 * never answers would keep a full table from every new peer); such a
 * QP completed a message and was heard from lately, so it comes last in
 * mrc_qp_evict_before() order anyway.
 */
static bool mrc_qp_evictable(struct mrc_qp *qp)
{
	unsigned long idle = msecs_to_jiffies(MRC_QP_IDLE_MS);

	if (atomic_read(&qp->tx_waiters) || mrc_qp_amp_unread(qp))
		return false;
	/* A proven peer's QP the reaper holds on to past the idle period,
	 * should the peer still be resending (mrc_qp_idle()): with no
	 * message of its half received, a full table takes it as the
	 * reaper would have.
	 */
	if (qp->proven &&
	    (qp->rx_partial || !time_after(jiffies, qp->last_tx + idle) ||
	     !time_after(jiffies, qp->last_rx + idle)))
		return false;
	return !qp->dead && !qp->tx_held &&
	       list_empty(&qp->tx_queue) &&
	       skb_queue_empty(&qp->xq) && !qp->xmitting &&
	       !hrtimer_active(&qp->rto_timer) &&
	       !hrtimer_active(&qp->ack_timer) &&
	       (!qp->rx_partial || qp->rx_placed < MRC_EVICT_PARTIAL_PKTS ||
		qp->rx_stalled);
}

/* Of two evictable QPs, whether the one last heard from with new data
 * (or last sending) at @la, which completed a message of its peer if
 * @da, goes before the one of @lb and @db: one that never completed a
 * message first, then the one idle the longest.
 */
static bool mrc_qp_evict_before(bool da, unsigned long la, bool db,
				unsigned long lb)
{
	if (da != db)
		return !da;
	return time_before(la, lb);
}

/* Under the socket's lock, its table full: a QP to close for a new
 * peer, taken off the table (dead, the socket's count down by one), or
 * NULL.  Of up to MRC_EVICT_SCAN QPs from a random bucket on, in
 * MRC_EVICT_BUCKETS buckets at most (not the whole table: this runs for
 * each packet of a flood), the evictable one
 * first in mrc_qp_evict_before() order: a real peer in the middle of a
 * transfer is recent (its duplicates, which anyone could replay, do not
 * count), a forged source that sent a first packet and nothing since is
 * not, and a new real peer is not refused because forgeries came first.
 * But a table sized for far more QPs than it holds (the namespace's
 * table full, or net.mrc.max_qps lowered since the socket opened) may
 * show the sample none, and the new peer is refused (it retries).
 */
static struct mrc_qp *mrc_qp_evict_one(struct mrc_sock *ms)
{
	u32 nb = mrc_sock_qp_buckets(ms), start = get_random_u32_below(nb), b;
	struct mrc_qp *qp, *victim = NULL;
	unsigned long vlast = 0;
	bool vdel = false;
	u32 seen = 0;

	/* Buckets are bounded too: a table sized for thousands may hold
	 * few when it is the namespace's table that is full.
	 */
	for (b = 0; b < min(nb, MRC_EVICT_BUCKETS) && seen < MRC_EVICT_SCAN;
	     b++) {
		hlist_for_each_entry(qp, &ms->qps[(start + b) % nb], node) {
			unsigned long last;
			bool ok, del;

			if (seen++ == MRC_EVICT_SCAN)
				break;
			spin_lock(&qp->lock);
			ok = mrc_qp_evictable(qp);
			del = qp->rx_delivered;
			last = time_after(qp->rx_fresh, qp->last_tx) ?
			       qp->rx_fresh : qp->last_tx;
			spin_unlock(&qp->lock);
			if (ok && (!victim ||
				   mrc_qp_evict_before(del, last, vdel,
						       vlast))) {
				victim = qp;
				vlast = last;
				vdel = del;
			}
		}
	}
	if (!victim)
		return NULL;
	/* Unlocked since it was looked at: it may have moved since. */
	spin_lock(&victim->lock);
	if (!mrc_qp_evictable(victim)) {
		spin_unlock(&victim->lock);
		return NULL;
	}
	WRITE_ONCE(victim->dead, true);
	mrc_qp_stat_inc(victim, MRC_STAT_QP_EVICTED);
	/* A first packet placed alone, dropped with its QP. */
	if (victim->rx_partial)
		mrc_qp_stat_add(victim, MRC_STAT_RX_EVICTED,
				victim->rx_partial);
	spin_unlock(&victim->lock);
	hash_del_rcu(&victim->node);
	ms->nr_qps--;
	return victim;
}

/**
 * mrc_qp_table_full() - whether a new QP of a socket must take the place
 * of one (mrc_qp_evict_one())
 * @ms: the socket
 *
 * Context: any; read without the socket's lock, a hint outside it.
 *
 * Return: true if the socket's table, or its namespace's, is full.
 */
bool mrc_qp_table_full(struct mrc_sock *ms)
{
	return READ_ONCE(ms->nr_qps) >= mrc_max_qps() ||
	       atomic_read(&ms->mn->nr_qps) >= MRC_MAX_QPS_PER_NET;
}

static struct mrc_qp *mrc_qp_open(struct mrc_sock *ms,
				  const struct mrc_local *l,
				  const struct in6_addr *addr, u16 port,
				  gfp_t gfp, bool rx)
{
	struct mrc_qp *qp, *new, *victim = NULL;
	struct mrc_net *mn = ms->mn;
	struct hlist_head *bucket;
	void *old;
	int ret;

	/* One hash for the lookups and the insertion below. */
	bucket = mrc_sock_qp_bucket(ms, addr, port);
	rcu_read_lock();
	qp = mrc_qp_lookup_in(bucket, l, addr, port);
	if (qp && refcount_inc_not_zero(&qp->ref)) {
		rcu_read_unlock();
		return qp;
	}
	rcu_read_unlock();

	/* Checked again under the lock; this spares the allocations. */
	if (READ_ONCE(ms->closing))
		return ERR_PTR(-EPIPE);
	new = mrc_qp_alloc(ms, l, addr, port, gfp);
	if (!new)
		return ERR_PTR(-ENOBUFS);
	if (ipv6_addr_any(&l->addr))
		mrc_qp_pick_laddr(new);
	/* Its number, reserved here where @gfp may sleep: storing the QP
	 * at it below, under the locks, allocates nothing.  The tables are
	 * the namespace's: not charged to this socket's cgroup.
	 */
	gfp &= ~__GFP_ACCOUNT;
	if (xa_alloc_cyclic_bh(&mn->qps, &new->qpn, NULL,
			       XA_LIMIT(1, MRC_QPN_MASK), &mn->next_qpn,
			       gfp) < 0) {
		mrc_qp_free_rcu(&new->rcu);
		return ERR_PTR(-ENOBUFS);
	}
	ret = mrc_peer_attach(new, gfp, rx);
	if (ret) {
		mrc_qp_discard(new);
		return ERR_PTR(ret);
	}

	spin_lock_bh(&ms->lock);
	/* By the key asked for: a sender that left the address open takes
	 * one another opened meanwhile at whichever address.
	 */
	hlist_for_each_entry(qp, bucket, node) {
		if (mrc_qp_match(qp, l, addr, port) &&
		    !READ_ONCE(qp->dead) && refcount_inc_not_zero(&qp->ref)) {
			spin_unlock_bh(&ms->lock);
			mrc_peer_detach(new);
			mrc_qp_discard(new);
			return qp;
		}
	}
	ret = ms->closing ? -EPIPE : 0;
	/* A full table makes room if it can: by a QP of this socket, for
	 * a peer's packet or a local send alike.
	 */
	if (!ret && mrc_qp_table_full(ms)) {
		victim = mrc_qp_evict_one(ms);
		if (!victim)
			ret = -EMFILE;
	}
	if (ret) {
		spin_unlock_bh(&ms->lock);
		mrc_peer_detach(new);
		mrc_qp_discard(new);
		return ERR_PTR(ret);
	}
	new->unvalidated = rx;
	new->udp_sport = mrc_qp_pick_sport(new, READ_ONCE(ms->udp_sport));
	sock_hold(mrc_to_sk(ms));
	ms->nr_qps++;
	hlist_add_head_rcu(&new->node, bucket);

	spin_lock(&mn->qp_lock);
	/* Into its reserved slot: this allocates nothing, cannot fail. */
	old = xa_store(&mn->qps, new->qpn, new, GFP_ATOMIC);
	WARN_ON_ONCE(xa_is_err(old));
	mrc_qp_gen_bump(mn);
	spin_unlock(&mn->qp_lock);
	atomic_inc(&mn->nr_qps);
	spin_unlock_bh(&ms->lock);

	if (victim) {
		mrc_qp_finish(victim);
		mrc_qp_put(victim);
	}
	spin_lock_bh(&new->lock);
	mrc_qp_stat_inc(new, MRC_STAT_QP_OPENED);
	spin_unlock_bh(&new->lock);
	queue_delayed_work(system_wq, &mn->reaper,
			   msecs_to_jiffies(MRC_EPOCH_IDLE_MS / 4));
	return new;
}

/**
 * mrc_qp_get_or_create() - the socket's QP to a remote socket, opened now
 * if there is none, for a local send
 * @ms: the socket
 * @l: the local end, as for mrc_qp_lookup(): a new QP takes it, or if
 *	it leaves the address open, the route's source (see
 *	mrc_qp_pick_laddr())
 * @addr: remote address (IPv4 v4-mapped)
 * @port: remote mrc port
 * @gfp: allocation flags for a new QP
 *
 * With the socket's (or namespace's) table full, a QP of the socket that
 * its peer never answered and that is idle goes to make room.
 *
 * Return: the QP with a reference the caller puts, or ERR_PTR: -ENOBUFS,
 * -EPIPE when the socket is closing, -EMFILE at the QP limit.
 */
struct mrc_qp *mrc_qp_get_or_create(struct mrc_sock *ms,
				    const struct mrc_local *l,
				    const struct in6_addr *addr, u16 port,
				    gfp_t gfp)
{
	return mrc_qp_open(ms, l, addr, port, gfp, false);
}

/**
 * mrc_qp_rx_open() - the socket's QP to a remote socket whose packet may
 * start one, opened now if there is none
 * @ms: the socket
 * @l: the local end: the address (and link) the packet came to
 * @addr: remote address (IPv4 v4-mapped)
 * @port: remote mrc port
 *
 * As mrc_qp_get_or_create(), but the packets of one source (an IPv4
 * address, an IPv6 /64) may open mrc_max_qps_per_addr() of the namespace's
 * QPs at most: its mrc port is as free to choose as a UDP port, and one
 * source must not fill a table.  Those a local send opened to it are not
 * counted.
 *
 * Context: softirq context, under rcu_read_lock().
 *
 * Return: the QP with a reference the caller puts, or ERR_PTR: as
 * mrc_qp_get_or_create(), or -EDQUOT at the source's limit.
 */
struct mrc_qp *mrc_qp_rx_open(struct mrc_sock *ms,
			      const struct mrc_local *l,
			      const struct in6_addr *addr, u16 port)
{
	return mrc_qp_open(ms, l, addr, port, GFP_ATOMIC | __GFP_NOWARN,
			   true);
}

/**
 * mrc_qp_rx_purge() - drop every message being received
 * @qp: the queue pair, locked
 */
void mrc_qp_rx_purge(struct mrc_qp *qp)
{
	u32 i;

	for (i = 0; i < MRC_WINDOW; i++) {
		if (qp->rx_slots[i]) {
			mrc_rx_msg_free(qp->ms, qp->rx_slots[i]);
			qp->rx_slots[i] = NULL;
		}
	}
	qp->rx_partial = 0;
	qp->rx_charge = 0;
	qp->rx_wait = false;
	qp->rx_starved = false;
	/* Nothing left to wait for room for, nor to keep room for. */
	mrc_qp_rx_turn_end(qp);
}

/* How long a QP whose peer proved itself ours may hear nothing before
 * it goes: as long as that peer may still be resending to it, assuming
 * its configuration is ours.  It gives up by itself at its persist
 * deadline (mrc_qp_persist()) after its last progress, or after the
 * first message it queued since, which continues the epoch if queued
 * within an epoch's idle period of its last packet (MRC_EPOCH_IDLE_MS);
 * and its last resend may arrive up to its longest RTO after it was
 * due.  10 s by default.
 */
static unsigned long mrc_qp_hold(struct mrc_qp *qp)
{
	const struct mrc_config *c;
	unsigned long hold;

	rcu_read_lock();
	c = mrc_cfg(qp->mn);
	hold = mrc_qp_persist(c) + msecs_to_jiffies(MRC_EPOCH_IDLE_MS) +
	       usecs_to_jiffies(max_t(u32, c->rto_us, MRC_RTO_MAX_US));
	rcu_read_unlock();
	return hold;
}

/* Under the QP's lock: may the reaper close it?  A QP of a closing
 * socket goes once its messages are acknowledged (or its sending
 * direction failed) and its peer has sent nothing for a while: until
 * then it acknowledges again what it took, should the peer have lost
 * the ACK, where a closed port would refuse it.  But not for longer than
 * a peer that lost every such ACK keeps retransmitting, or duplicates,
 * replayed by anyone, would keep it forever.  Any other QP
 * goes once it has been idle both ways, which also drops a message whose
 * sender went silent halfway: for MRC_QP_IDLE_MS, or, once its peer
 * proved it receives at its address, for as long as that peer may still
 * be resending to it (mrc_qp_persist()).
 */
static bool mrc_qp_idle(struct mrc_qp *qp)
{
	unsigned long idle = msecs_to_jiffies(MRC_QP_IDLE_MS);
	/* Nor while a sender has room reserved on it, or waits for room
	 * (mrc_sendmsg()).
	 */
	bool tx_done = list_empty(&qp->tx_queue) && !qp->tx_held &&
		       !atomic_read(&qp->tx_waiters);

	if (READ_ONCE(qp->ms->closing)) {
		const struct mrc_config *c;
		unsigned long linger;
		u32 rto_max_us;

		if (!tx_done)
			return false;
		if (!qp->lingering) {
			qp->lingering = true;
			qp->linger_since = jiffies;
		}
		/* Silence: long enough for the peer's retransmission timer
		 * to fire twice at its longest (assuming its rto is ours).
		 * At most: as long as its retry limit's timeouts take at
		 * the longest backoff, after which it has given up.
		 */
		rcu_read_lock();
		c = mrc_cfg(qp->mn);
		rto_max_us = max_t(u32, c->rto_us, MRC_RTO_MAX_US);
		linger = mrc_qp_persist(c);
		rcu_read_unlock();
		return time_after(jiffies, qp->last_rx +
				  usecs_to_jiffies(2 * rto_max_us)) ||
		       time_after(jiffies, qp->linger_since + linger);
	}
	/* Nor while a peer not validated may be answered yet. */
	if (mrc_qp_amp_pinned(qp))
		return false;
	if (!tx_done || !time_after(jiffies, qp->last_tx + idle))
		return false;
	/* A peer that proved itself ours may be resending into a longer
	 * silence: every path out for seconds, its timer at the longest
	 * backoff.  Its next packet, of an epoch forgotten here, would
	 * draw NACK 0x0B and fail it with ECONNRESET where waiting sees
	 * the outage through.  It gives up by itself at its persist
	 * deadline (assuming its configuration is ours), which runs from
	 * its last progress, or from a message it queued after it: a
	 * message queued more than an epoch's idle period after the last
	 * packet we heard opens an epoch we take anew (mrc_qp_hold()).
	 * One not validated may be forged, and goes after the idle period.
	 * A full table may still take one idle for that period
	 * (mrc_qp_evictable()).
	 */
	if (!qp->unvalidated)
		idle = max(idle, mrc_qp_hold(qp));
	return time_after(jiffies, qp->last_rx + idle);
}

/**
 * mrc_qp_kill() - close a queue pair, dropping what it still holds
 * @qp: the QP; the caller holds a reference besides the tables'
 * @if_idle: only if the reaper may close it, decided under its lock
 *
 * Context: process context (cancels the QP's timer).
 *
 * Return: true if this call closed the QP.
 */
bool mrc_qp_kill(struct mrc_qp *qp, bool if_idle)
{
	struct mrc_sock *ms = qp->ms;
	bool last;

	/* Once dead, nothing is queued, placed or acknowledged on it:
	 * senders retry on a new QP and receivers drop.
	 */
	spin_lock_bh(&qp->lock);
	if (qp->dead || (if_idle && !mrc_qp_idle(qp))) {
		spin_unlock_bh(&qp->lock);
		return false;
	}
	WRITE_ONCE(qp->dead, true);
	spin_unlock_bh(&qp->lock);

	spin_lock_bh(&ms->lock);
	hash_del_rcu(&qp->node);
	ms->nr_qps--;
	last = ms->closing && !ms->nr_qps;
	spin_unlock_bh(&ms->lock);

	mrc_qp_finish(qp);
	if (last)
		mrc_sock_unbind(ms);
	mrc_qp_put(qp);
	return true;
}

/**
 * mrc_qp_close_all() - close every queue pair of a socket now
 * @ms: the socket, closing
 */
void mrc_qp_close_all(struct mrc_sock *ms)
{
	u32 nb = mrc_sock_qp_buckets(ms), bkt = 0;
	struct mrc_qp *qp;

	for (;;) {
		struct mrc_qp *found = NULL;

		/* From the bucket the last one was found in: those before
		 * it are empty (closing, the socket opens no QP), and a
		 * table of thousands is not walked from its start for each.
		 */
		spin_lock_bh(&ms->lock);
		for (; bkt < nb && !found; bkt++) {
			hlist_for_each_entry(qp, &ms->qps[bkt], node) {
				if (refcount_inc_not_zero(&qp->ref)) {
					found = qp;
					break;
				}
			}
		}
		spin_unlock_bh(&ms->lock);
		if (!found)
			break;
		bkt--;
		if (!mrc_qp_kill(found, false)) {
			/* Dead but not yet unlinked by whoever killed it. */
			mrc_qp_put(found);
			cond_resched();
			continue;
		}
		mrc_qp_put(found);
	}
}

/**
 * mrc_reaper_work() - close the namespace's idle queue pairs
 * @work: the namespace's reaper
 *
 * Runs while the namespace has queue pairs.
 */
void mrc_reaper_work(struct work_struct *work)
{
	struct mrc_net *mn = container_of(to_delayed_work(work),
					  struct mrc_net, reaper);
	unsigned int cap = atomic_read(&mn->nr_qps) + 16, i, n = 0;
	struct mrc_qp *qp, **a;
	unsigned long qpn;

	a = kvmalloc_array(cap, sizeof(*a), GFP_KERNEL);
	if (a) {
		spin_lock_bh(&mn->qp_lock);
		xa_for_each(&mn->qps, qpn, qp) {
			if (n == cap)
				break;
			if (refcount_inc_not_zero(&qp->ref))
				a[n++] = qp;
		}
		spin_unlock_bh(&mn->qp_lock);
		for (i = 0; i < n; i++) {
			/* Room an evicted message held is owed to the
			 * peers that were refused for want of it.
			 */
			if (mrc_qp_rx_evict(a[i]))
				mrc_sock_rx_room(a[i]->ms);
			else
				mrc_sock_rx_share_tick(a[i]->ms);
			mrc_qp_kill(a[i], true);
			mrc_qp_put(a[i]);
		}
		kvfree(a);
	}

	if (atomic_read(&mn->nr_qps))
		queue_delayed_work(system_wq, &mn->reaper,
				   msecs_to_jiffies(MRC_EPOCH_IDLE_MS / 4));
}
