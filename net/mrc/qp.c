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
#include <linux/slab.h>
#include <net/ip.h>

#include <mrc/mrc.h>

static u32 mrc_qp_hash(const struct in6_addr *addr, u16 port)
{
	return ipv6_addr_hash(addr) ^ port;
}

static bool mrc_qp_match(const struct mrc_qp *qp, const struct mrc_local *l,
			 const struct in6_addr *addr, u16 port)
{
	return qp->rport == port && ipv6_addr_equal(&qp->raddr, addr) &&
	       mrc_local_match(&qp->local, l);
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
	struct mrc_qp *qp;

	hash_for_each_possible_rcu(ms->qps, qp, node, mrc_qp_hash(addr, port))
		if (mrc_qp_match(qp, l, addr, port) && !READ_ONCE(qp->dead))
			return qp;
	return NULL;
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

static struct mrc_qp *mrc_qp_alloc(struct mrc_sock *ms,
				   const struct mrc_local *l,
				   const struct in6_addr *addr, u16 port,
				   gfp_t gfp)
{
	struct mrc_qp *qp;

	qp = kzalloc(sizeof(*qp), gfp);
	if (!qp)
		return NULL;
	qp->ring = kcalloc(MRC_WINDOW, sizeof(*qp->ring), gfp);
	qp->rx_bitmap = bitmap_zalloc(MRC_WINDOW, gfp);
	qp->rx_slots = kcalloc(MRC_WINDOW, sizeof(*qp->rx_slots), gfp);
	if (!qp->ring || !qp->rx_bitmap || !qp->rx_slots) {
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
	hrtimer_init(&qp->rto_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_SOFT);
	qp->rto_timer.function = mrc_rto_fire;
	hrtimer_init(&qp->ack_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_SOFT);
	qp->ack_timer.function = mrc_ack_fire;
	qp->rx_ackreq = MRC_PSN_MASK;
	qp->last_tx = jiffies;
	qp->last_rx = jiffies;
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

/**
 * mrc_qp_get_or_create() - the socket's QP to a remote socket, opened now
 * if there is none
 * @ms: the socket
 * @l: the local end, as for mrc_qp_lookup(): a new QP takes it, or if
 *	it leaves the address open, the route's source (see
 *	mrc_qp_pick_laddr())
 * @addr: remote address (IPv4 v4-mapped)
 * @port: remote mrc port
 * @gfp: allocation flags for a new QP
 *
 * Return: the QP with a reference the caller puts, or ERR_PTR: -ENOBUFS,
 * -EPIPE when the socket is closing, -EMFILE at the QP limit.
 */
struct mrc_qp *mrc_qp_get_or_create(struct mrc_sock *ms,
				    const struct mrc_local *l,
				    const struct in6_addr *addr, u16 port,
				    gfp_t gfp)
{
	struct mrc_net *mn = ms->mn;
	struct mrc_qp *qp, *new;
	void *old;
	int ret;

	rcu_read_lock();
	qp = mrc_qp_lookup(ms, l, addr, port);
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
	 * at it below, under the locks, allocates nothing.
	 */
	if (xa_alloc_cyclic_bh(&mn->qps, &new->qpn, NULL,
			       XA_LIMIT(1, MRC_QPN_MASK), &mn->next_qpn,
			       gfp) < 0) {
		mrc_qp_free_rcu(&new->rcu);
		return ERR_PTR(-ENOBUFS);
	}
	if (mrc_peer_attach(new, gfp)) {
		mrc_qp_discard(new);
		return ERR_PTR(-ENOBUFS);
	}

	spin_lock_bh(&ms->lock);
	/* By the key asked for: a sender that left the address open takes
	 * one another opened meanwhile at whichever address.
	 */
	hash_for_each_possible(ms->qps, qp, node, mrc_qp_hash(addr, port)) {
		if (mrc_qp_match(qp, l, addr, port) &&
		    !READ_ONCE(qp->dead) && refcount_inc_not_zero(&qp->ref)) {
			spin_unlock_bh(&ms->lock);
			mrc_peer_detach(new);
			mrc_qp_discard(new);
			return qp;
		}
	}
	ret = ms->closing ? -EPIPE :
	      ms->nr_qps >= MRC_MAX_QPS_PER_SOCK ||
	      atomic_read(&mn->nr_qps) >= MRC_MAX_QPS_PER_NET ? -EMFILE : 0;
	if (ret) {
		spin_unlock_bh(&ms->lock);
		mrc_peer_detach(new);
		mrc_qp_discard(new);
		return ERR_PTR(ret);
	}
	new->udp_sport = mrc_qp_pick_sport(new, READ_ONCE(ms->udp_sport));
	sock_hold(mrc_to_sk(ms));
	ms->nr_qps++;
	hash_add_rcu(ms->qps, &new->node, mrc_qp_hash(addr, port));

	spin_lock(&mn->qp_lock);
	/* Into its reserved slot: this allocates nothing, cannot fail. */
	old = xa_store(&mn->qps, new->qpn, new, GFP_ATOMIC);
	WARN_ON_ONCE(xa_is_err(old));
	mrc_qp_gen_bump(mn);
	spin_unlock(&mn->qp_lock);
	atomic_inc(&mn->nr_qps);
	spin_unlock_bh(&ms->lock);

	spin_lock_bh(&new->lock);
	mrc_qp_stat_inc(new, MRC_STAT_QP_OPENED);
	spin_unlock_bh(&new->lock);
	queue_delayed_work(system_wq, &mn->reaper,
			   msecs_to_jiffies(MRC_EPOCH_IDLE_MS / 4));
	return new;
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
}

/* Under the QP's lock: may the reaper close it?  A QP of a closing
 * socket goes once its messages are acknowledged (or its sending
 * direction failed) and its peer has sent nothing for a while: until
 * then it acknowledges again what it took, should the peer have lost
 * the ACK, where a closed port would refuse it.  But not for longer than
 * a peer that lost every such ACK keeps retransmitting, or duplicates,
 * replayed by anyone, would keep it forever.  Any other QP
 * goes once it has been idle both ways, which also drops a message whose
 * sender went silent halfway.
 */
static bool mrc_qp_idle(struct mrc_qp *qp)
{
	unsigned long idle = msecs_to_jiffies(MRC_QP_IDLE_MS);
	/* Nor while a sender has room reserved on it (mrc_sendmsg()). */
	bool tx_done = list_empty(&qp->tx_queue) && !qp->tx_held;

	if (READ_ONCE(qp->ms->closing)) {
		const struct mrc_config *c;
		u32 rto_max_us, linger_us;

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
		linger_us = (c->retry_limit + 1) * rto_max_us;
		rcu_read_unlock();
		return time_after(jiffies, qp->last_rx +
				  usecs_to_jiffies(2 * rto_max_us)) ||
		       time_after(jiffies, qp->linger_since +
				  usecs_to_jiffies(linger_us));
	}
	return tx_done && time_after(jiffies, qp->last_tx + idle) &&
	       time_after(jiffies, qp->last_rx + idle);
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
	struct mrc_net *mn = qp->mn;
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
	struct mrc_qp *qp;
	int bkt;

	for (;;) {
		struct mrc_qp *found = NULL;

		spin_lock_bh(&ms->lock);
		hash_for_each(ms->qps, bkt, qp, node) {
			if (refcount_inc_not_zero(&qp->ref)) {
				found = qp;
				break;
			}
		}
		spin_unlock_bh(&ms->lock);
		if (!found)
			break;
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
			mrc_qp_kill(a[i], true);
			mrc_qp_put(a[i]);
		}
		kvfree(a);
	}

	if (atomic_read(&mn->nr_qps))
		queue_delayed_work(system_wq, &mn->reaper,
				   msecs_to_jiffies(MRC_EPOCH_IDLE_MS / 4));
}
