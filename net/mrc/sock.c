// SPDX-License-Identifier: GPL-2.0
/* The message socket: socket(AF_INET or AF_INET6, SOCK_DGRAM, IPPROTO_MRC).
 *
 * A socket is bound to an mrc port, which is what the wire's destination QP
 * field names.  Each message goes to a queue pair per remote address and
 * port (qp.c), which segments, sends and retransmits it (tx.c); complete
 * messages from every queue pair wait on the socket's queue for recvmsg().
 *
 * Lifetime: the receive path finds sockets under RCU (SOCK_RCU_FREE), and
 * every queue pair holds a reference.  close() orphans the socket; its
 * queue pairs still deliver what was queued, and the last one to close
 * unbinds the port and drops the last reference.
 */
#include <linux/bpf-cgroup.h>
#include <linux/errqueue.h>
#include <linux/filter.h>
#include <linux/module.h>
#include <linux/net.h>
#include <linux/poll.h>
#include <linux/random.h>
#include <linux/sched/signal.h>
#include <linux/sysctl.h>
#include <linux/vmalloc.h>
#include <net/inet_common.h>
#include <net/addrconf.h>
#include <net/ip.h>
#include <net/protocol.h>
#include <net/route.h>
#include <net/net_namespace.h>
#include <net/sock.h>
#include <net/transp_v6.h>

#include <mrc/mrc.h>

#define MRC_EPHEMERAL_LO	32768
#define MRC_EPHEMERAL_HI	60999

static u32 mrc_port_hash(int family, u16 port)
{
	return (u32)port * 2 + (family == AF_INET6);
}

/* The socket holding @port, under the port lock; NULL if none does.  The
 * table is by port alone, whatever address a socket is bound to: one
 * port is one socket's, at one address or at all of them, since the
 * wire names the destination socket by its port only.
 */
static struct mrc_sock *mrc_port_holder(struct mrc_net *mn, int family,
					u16 port)
{
	struct mrc_sock *ms;

	hash_for_each_possible(mn->ports, ms, port_node,
			       mrc_port_hash(family, port))
		if (ms->port == port && mrc_to_sk(ms)->sk_family == family &&
		    !ms->superseded)
			return ms;
	return NULL;
}

/* A closed socket that has delivered all it sent keeps its port only to
 * acknowledge again what it took (see mrc_qp_idle()); a new bind() may
 * take the port over, as TCP's SO_REUSEADDR does a TIME_WAIT one, and
 * the old socket stays on the port's chain for the incarnations it
 * knows (mrc_superseded_qp()) until its last QP closes.
 */
static bool mrc_port_lingering(struct mrc_sock *ms)
{
	return READ_ONCE(ms->closing) && !atomic64_read(&ms->tx_mem);
}

/* Whether a socket takes what came to local end @l: any if it is bound
 * to no address, else only what came to its address (on its link).
 */
static bool mrc_sock_takes(const struct mrc_sock *ms,
			   const struct mrc_local *l)
{
	const struct mrc_local *b = &ms->bound;

	return ipv6_addr_any(&b->addr) ||
	       (ipv6_addr_equal(&b->addr, &l->addr) &&
		(!b->ifindex || b->ifindex == l->ifindex));
}

/**
 * mrc_sock_lookup() - the socket bound to an mrc port that takes what
 * came to a local address
 * @mn: the namespace
 * @family: AF_INET or AF_INET6
 * @port: the port
 * @l: the packet's destination address and link
 *
 * A socket bound to another address of the host does not take it: the
 * packet is to no socket, as UDP's would be.
 *
 * Context: rcu_read_lock() held; the socket stays valid until it is
 * released.
 *
 * Return: the socket, or NULL.
 */
struct mrc_sock *mrc_sock_lookup(struct mrc_net *mn, int family, u16 port,
				 const struct mrc_local *l)
{
	struct mrc_sock *ms;

	hash_for_each_possible_rcu(mn->ports, ms, port_node,
				   mrc_port_hash(family, port))
		if (READ_ONCE(ms->port) == port &&
		    mrc_to_sk(ms)->sk_family == family &&
		    !READ_ONCE(ms->superseded))
			return mrc_sock_takes(ms, l) ? ms : NULL;
	return NULL;
}

/**
 * mrc_superseded_qp() - the QP of a closed socket whose port was bound
 * again that still receives an incarnation of a peer
 * @mn: the namespace
 * @family: AF_INET or AF_INET6
 * @port: the local port
 * @l: the local end the packet came to
 * @addr: the peer's address (IPv4 v4-mapped)
 * @rport: the peer's port
 * @epoch: the epoch of the peer's data packet
 *
 * Such a socket lingers to acknowledge again what it took; the peer's
 * packets of that incarnation are its, not the new socket's.
 *
 * Context: rcu_read_lock() held.
 *
 * Return: the QP with a reference the caller puts, or NULL.
 */
struct mrc_qp *mrc_superseded_qp(struct mrc_net *mn, int family, u16 port,
				 const struct mrc_local *l,
				 const struct in6_addr *addr, u16 rport,
				 u16 epoch)
{
	struct mrc_sock *ms;
	struct mrc_qp *qp;

	hash_for_each_possible_rcu(mn->ports, ms, port_node,
				   mrc_port_hash(family, port)) {
		if (!READ_ONCE(ms->superseded) || READ_ONCE(ms->port) != port ||
		    mrc_to_sk(ms)->sk_family != family)
			continue;
		qp = mrc_qp_lookup(ms, l, addr, rport);
		if (qp && READ_ONCE(qp->rx_open) &&
		    READ_ONCE(qp->rx_epoch) == epoch &&
		    refcount_inc_not_zero(&qp->ref))
			return qp;
	}
	return NULL;
}

/* Bind @ms to @port (0: an ephemeral one) at address @b (NULL: any). */
static int mrc_do_bind(struct mrc_sock *ms, u16 port,
		       const struct mrc_local *b)
{
	struct sock *sk = mrc_to_sk(ms);
	struct mrc_net *mn = ms->mn;
	int ret = 0;
	u32 i, n;

	spin_lock_bh(&mn->port_lock);
	if (ms->port) {
		ret = -EINVAL;
		goto out;
	}
	if (port) {
		struct mrc_sock *old = mrc_port_holder(mn, sk->sk_family, port);

		if (old && !mrc_port_lingering(old)) {
			ret = -EADDRINUSE;
			goto out;
		}
		/* Packets to the port reach the new socket from now on,
		 * but for the peers' incarnations the old one still holds.
		 */
		if (old)
			WRITE_ONCE(old->superseded, true);
	} else {
		n = MRC_EPHEMERAL_HI - MRC_EPHEMERAL_LO + 1;
		if (!mn->next_port)
			mn->next_port = get_random_u32_below(n);
		for (i = 0; i < n; i++) {
			u16 p = MRC_EPHEMERAL_LO + (mn->next_port + i) % n;

			if (!mrc_port_holder(mn, sk->sk_family, p)) {
				port = p;
				mn->next_port = (mn->next_port + i + 1) % n;
				break;
			}
		}
		if (!port) {
			ret = -EADDRINUSE;
			goto out;
		}
	}
	/* Before the socket is on the table: fixed from then on. */
	if (b)
		ms->bound = *b;
	WRITE_ONCE(ms->port, port);
	inet_sk(sk)->inet_sport = htons(port);
	inet_sk(sk)->inet_num = port;
	hash_add_rcu(mn->ports, &ms->port_node,
		     mrc_port_hash(sk->sk_family, port));
out:
	spin_unlock_bh(&mn->port_lock);
	return ret;
}

/**
 * mrc_sock_unbind() - take a closing socket off its port
 * @ms: the socket
 *
 * Called on close once the socket has no queue pair left, either at
 * once or when its last queue pair closes.
 */
void mrc_sock_unbind(struct mrc_sock *ms)
{
	struct mrc_net *mn = ms->mn;

	spin_lock_bh(&mn->port_lock);
	/* Not if a new socket took the port over. */
	if (!hlist_unhashed(&ms->port_node))
		hlist_del_init_rcu(&ms->port_node);
	spin_unlock_bh(&mn->port_lock);
}

/* Parse a destination; IPv4 addresses are kept v4-mapped. */
static int mrc_get_addr(struct sock *sk, const void *uaddr, int len,
			struct in6_addr *addr, u16 *port)
{
	if (sk->sk_family == AF_INET) {
		const struct sockaddr_in *sin = uaddr;

		if (len < (int)sizeof(*sin))
			return -EINVAL;
		if (sin->sin_family != AF_INET)
			return -EAFNOSUPPORT;
		ipv6_addr_set_v4mapped(sin->sin_addr.s_addr, addr);
		*port = ntohs(sin->sin_port);
	} else {
		const struct sockaddr_in6 *sin6 = uaddr;

		if (len < SIN6_LEN_RFC2133)
			return -EINVAL;
		if (sin6->sin6_family != AF_INET6)
			return -EAFNOSUPPORT;
		if (ipv6_addr_v4mapped(&sin6->sin6_addr))
			return -EAFNOSUPPORT;
		*addr = sin6->sin6_addr;
		*port = ntohs(sin6->sin6_port);
	}
	return 0;
}

/* mrc is unicast, with a queue pair per peer: a group address is
 * refused as TCP refuses it; a broadcast address, as UDP does, unless
 * SO_BROADCAST is set (nothing will answer it: receivers take only what
 * was sent to them alone, so the QP times out).
 */
static int mrc_dest_check(struct sock *sk, const struct in6_addr *addr)
{
	struct rtable *rt;
	bool bcast;
	__be32 a;

	if (!ipv6_addr_v4mapped(addr))
		return ipv6_addr_is_multicast(addr) ? -ENETUNREACH : 0;
	a = addr->s6_addr32[3];
	if (ipv4_is_multicast(a))
		return -ENETUNREACH;
	if (sock_flag(sk, SOCK_BROADCAST))
		return 0;
	if (ipv4_is_lbcast(a))
		return -EACCES;
	/* A subnet's broadcast address is known to the routes alone. */
	rt = ip_route_output(sock_net(sk), a, 0, 0, 0);
	if (IS_ERR(rt))
		return 0;
	bcast = rt->rt_flags & RTCF_BROADCAST;
	ip_rt_put(rt);
	return bcast ? -EACCES : 0;
}

/* The socket's bound address and link, which bind() sets once. */
static void mrc_sock_bound(struct mrc_sock *ms, struct mrc_local *b)
{
	spin_lock_bh(&ms->mn->port_lock);
	*b = ms->bound;
	spin_unlock_bh(&ms->mn->port_lock);
}

/* The scope id of an AF_INET6 address, if the caller's holds one. */
static int mrc_get_scope(struct sock *sk, const void *uaddr, int len)
{
	const struct sockaddr_in6 *sin6 = uaddr;

	if (sk->sk_family != AF_INET6 || len < (int)sizeof(*sin6))
		return 0;
	return sin6->sin6_scope_id;
}

/* The local end a message to @addr leaves from: the socket's bound
 * address (or any, for the route's source), and the link if either end
 * is link-local: the destination's sin6_scope_id, else that of a
 * link-local bound address.  A link-local end with no link, or two
 * links that differ, is EINVAL, as for IPv6 UDP.
 */
static int mrc_dest_local(struct mrc_sock *ms, const struct in6_addr *addr,
			  int scope, struct mrc_local *l)
{
	mrc_sock_bound(ms, l);
	if (!mrc_addr_scoped(addr, &l->addr)) {
		l->ifindex = 0;
		return 0;
	}
	if (l->ifindex && scope && scope != l->ifindex)
		return -EINVAL;
	l->ifindex = scope ?: l->ifindex;
	return l->ifindex ? 0 : -EINVAL;
}

static int mrc_put_addr(struct sock *sk, void *uaddr,
			const struct in6_addr *addr, u16 port, int ifindex)
{
	struct sockaddr_in6 *sin6;

	if (sk->sk_family == AF_INET) {
		struct sockaddr_in *sin = uaddr;

		memset(sin, 0, sizeof(*sin));
		sin->sin_family = AF_INET;
		sin->sin_port = htons(port);
		sin->sin_addr.s_addr = addr->s6_addr32[3];
		return sizeof(*sin);
	}
	sin6 = uaddr;
	memset(sin6, 0, sizeof(*sin6));
	sin6->sin6_family = AF_INET6;
	sin6->sin6_port = htons(port);
	sin6->sin6_addr = *addr;
	sin6->sin6_scope_id = ipv6_iface_scope_id(addr, ifindex);
	return sizeof(*sin6);
}

/* The cgroup's sock_addr BPF programs run on mrc's addresses where UDP
 * runs them on its own (bind, connect, and sendmsg to an address): an IP
 * address and, in its port field, the mrc port, ctx->protocol telling
 * them IPPROTO_MRC.  They may refuse the call (EPERM) or rewrite the
 * address, which is parsed again after them.  What mrc cannot honour of
 * theirs is ignored: a sendmsg program's source address (mrc picks the
 * route's), a bind program's leave to bind a privileged port (mrc ports
 * need no privilege).  Called once @uaddr was found valid.
 */
enum mrc_addr_op {
	MRC_ADDR_BIND,
	MRC_ADDR_CONNECT,
	MRC_ADDR_SENDMSG,
};

static int mrc_cgroup_addr(struct sock *sk, struct sockaddr *uaddr,
			   enum mrc_addr_op op)
{
#ifdef CONFIG_CGROUP_BPF
	bool v6 = sk->sk_family == AF_INET6;
	struct in6_addr src = {};
	u32 flags = 0;

	/* The macros need the type as a constant: one static key each. */
	switch (op) {
	case MRC_ADDR_BIND:
		if (v6)
			return BPF_CGROUP_RUN_PROG_INET_BIND_LOCK(sk, uaddr,
					CGROUP_INET6_BIND, &flags);
		return BPF_CGROUP_RUN_PROG_INET_BIND_LOCK(sk, uaddr,
				CGROUP_INET4_BIND, &flags);
	case MRC_ADDR_CONNECT:
		if (v6)
			return BPF_CGROUP_RUN_PROG_INET6_CONNECT_LOCK(sk, uaddr);
		return BPF_CGROUP_RUN_PROG_INET4_CONNECT_LOCK(sk, uaddr);
	case MRC_ADDR_SENDMSG:
		if (v6)
			return BPF_CGROUP_RUN_PROG_UDP6_SENDMSG_LOCK(sk, uaddr,
								     &src);
		return BPF_CGROUP_RUN_PROG_UDP4_SENDMSG_LOCK(sk, uaddr, &src);
	}
#endif
	/* A kernel without cgroup BPF has no such programs to run. */
	return 0;
}

/* The address bind() was given, as @b: any, or one of the namespace's
 * own, as UDP requires (EADDRNOTAVAIL), unless the socket may bind a
 * non-local one (net.ipv4.ip_nonlocal_bind, net.ipv6.ip_nonlocal_bind,
 * IP_FREEBIND, IP_TRANSPARENT), as UDP allows: it then receives nothing
 * and sends nothing (tx_errors) until the address is the host's.  Never
 * a multicast or broadcast one: mrc is unicast.  A link-local one
 * needs its link, sin6_scope_id (EINVAL without; ENODEV for none).
 */
static int mrc_bind_local(struct sock *sk, const struct in6_addr *addr,
			  int scope, struct mrc_local *b)
{
	struct net *net = sock_net(sk);
	int type;

	memset(b, 0, sizeof(*b));
	if (sk->sk_family == AF_INET) {
		__be32 a = addr->s6_addr32[3];

		if (a == htonl(INADDR_ANY))
			return 0;
		type = inet_addr_type_table(net, a, RT_TABLE_LOCAL);
		if (type == RTN_MULTICAST || type == RTN_BROADCAST ||
		    ipv4_is_multicast(a) || ipv4_is_lbcast(a))
			return -EADDRNOTAVAIL;
		if (type != RTN_LOCAL && !inet_can_nonlocal_bind(net, inet_sk(sk)))
			return -EADDRNOTAVAIL;
		b->addr = *addr;
		return 0;
	}
#if IS_ENABLED(CONFIG_IPV6)
	{
		struct net_device *dev = NULL;
		bool local;

		type = ipv6_addr_type(addr);
		if (type == IPV6_ADDR_ANY)
			return 0;
		if (type & IPV6_ADDR_MULTICAST)
			return -EADDRNOTAVAIL;
		rcu_read_lock();
		if (type & IPV6_ADDR_LINKLOCAL) {
			if (!scope) {
				rcu_read_unlock();
				return -EINVAL;
			}
			dev = dev_get_by_index_rcu(net, scope);
			if (!dev) {
				rcu_read_unlock();
				return -ENODEV;
			}
			b->ifindex = scope;
		}
		local = ipv6_chk_addr(net, addr, dev, 0);
		rcu_read_unlock();
		if (!local && !ipv6_can_nonlocal_bind(net, inet_sk(sk)))
			return -EADDRNOTAVAIL;
		b->addr = *addr;
		return 0;
	}
#else
	return -EAFNOSUPPORT;
#endif
}

static int mrc_bind(struct socket *sock, struct sockaddr *uaddr, int len)
{
	struct mrc_sock *ms = mrc_sk(sock->sk);
	struct mrc_local b;
	struct in6_addr addr;
	u16 port;
	int ret;

	ret = mrc_get_addr(sock->sk, uaddr, len, &addr, &port);
	if (ret)
		return ret;
	ret = mrc_cgroup_addr(sock->sk, uaddr, MRC_ADDR_BIND);
	if (ret)
		return ret;
	ret = mrc_get_addr(sock->sk, uaddr, len, &addr, &port);
	if (ret)
		return ret;
	ret = mrc_bind_local(sock->sk, &addr,
			     mrc_get_scope(sock->sk, uaddr, len), &b);
	if (ret)
		return ret;
	return mrc_do_bind(ms, port, &b);
}

static int mrc_connect(struct socket *sock, struct sockaddr *uaddr, int len,
		       int flags)
{
	struct sock *sk = sock->sk;
	struct mrc_sock *ms = mrc_sk(sk);
	struct in6_addr addr;
	struct mrc_local l;
	u16 port;
	int ret;

	if (len >= (int)sizeof(sa_family_t) && uaddr->sa_family == AF_UNSPEC) {
		WRITE_ONCE(ms->peer_port, 0);
		return 0;
	}
	ret = mrc_get_addr(sk, uaddr, len, &addr, &port);
	if (!ret)
		ret = mrc_cgroup_addr(sk, uaddr, MRC_ADDR_CONNECT);
	if (!ret)
		ret = mrc_get_addr(sk, uaddr, len, &addr, &port);
	if (ret)
		return ret;
	if (!port)
		return -EINVAL;
	ret = mrc_dest_check(sk, &addr);
	if (ret)
		return ret;
	ret = mrc_dest_local(ms, &addr, mrc_get_scope(sk, uaddr, len), &l);
	if (ret)
		return ret;
	lock_sock(sk);
	ms->peer = addr;
	ms->peer_ifindex = l.ifindex;
	WRITE_ONCE(ms->peer_port, port);
	release_sock(sk);
	return 0;
}

static int mrc_getname(struct socket *sock, struct sockaddr *uaddr, int peer)
{
	struct sock *sk = sock->sk;
	struct mrc_sock *ms = mrc_sk(sk);
	struct mrc_local b;

	if (peer) {
		struct in6_addr addr;
		int ifindex;
		u16 port;

		/* All of one connect(), which sets them under the lock. */
		lock_sock(sk);
		addr = ms->peer;
		port = ms->peer_port;
		ifindex = ms->peer_ifindex;
		release_sock(sk);
		if (!port)
			return -ENOTCONN;
		return mrc_put_addr(sk, uaddr, &addr, port, ifindex);
	}
	/* The bound address, or any (all zeros, 0.0.0.0 for IPv4). */
	mrc_sock_bound(ms, &b);
	return mrc_put_addr(sk, uaddr, &b.addr, READ_ONCE(ms->port),
			    b.ifindex);
}

/* The memory a message costs while the sender holds it. */
static u32 mrc_tx_charge(u32 len)
{
	return len + sizeof(struct mrc_tx_msg);
}

static bool mrc_tx_wait_over(struct mrc_qp *qp, u32 charge, u32 fails)
{
	return mrc_qp_tx_wait_over(qp, charge, fails) ||
	       READ_ONCE(mrc_to_sk(qp->ms)->sk_err);
}

/* The socket's QP to @addr, @port with room for @charge reserved on it
 * (mrc_qp_tx_reserve()), waiting up to *@timeo for the room.  Only for
 * that QP's share: a destination whose peer takes nothing holds back
 * the senders to it, not those to any other.  A sender waiting for room
 * on a QP whose sending direction fails gets that failure's error: it
 * concerns the destination it sends to (its message is not queued).
 *
 * Return: the QP, with a reference the caller puts, or an ERR_PTR.
 */
static struct mrc_qp *mrc_tx_wait_room(struct mrc_sock *ms,
				       const struct mrc_local *l,
				       const struct in6_addr *addr, u16 port,
				       u32 charge, long *timeo)
{
	struct sock *sk = mrc_to_sk(ms);
	struct mrc_qp *qp;
	bool waits;
	long left;
	u32 fails;
	int ret;

	do {
		/* A QP the reaper closes meanwhile is replaced by a new one. */
		qp = mrc_qp_get_or_create(ms, l, addr, port, GFP_KERNEL);
		if (IS_ERR(qp))
			return qp;
		fails = READ_ONCE(qp->tx_fails);
		ret = mrc_qp_tx_reserve(qp, charge, false);
		waits = ret == -EAGAIN && *timeo;
		if (waits)
			atomic_inc(&qp->tx_waiters);
		while (ret == -EAGAIN && *timeo) {
			left = wait_event_interruptible_timeout(*sk_sleep(sk),
								mrc_tx_wait_over(qp, charge, fails),
								*timeo);
			/* Restarted (SA_RESTART) only without a timeout:
			 * judged from the time left before the wait, not
			 * its error.
			 */
			if (left < 0) {
				ret = sock_intr_errno(*timeo);
				break;
			}
			*timeo = left;
			if (READ_ONCE(qp->tx_fails) != fails) {
				ret = -READ_ONCE(qp->tx_err);
				break;
			}
			ret = sock_error(sk);
			if (ret)
				break;
			ret = mrc_qp_tx_reserve(qp, charge, false);
		}
		if (waits)
			atomic_dec(&qp->tx_waiters);
		if (ret)
			mrc_qp_put(qp);
	} while (ret == -ESTALE);
	return ret ? ERR_PTR(ret) : qp;
}

static int mrc_sendmsg(struct socket *sock, struct msghdr *msg, size_t len)
{
	struct sock *sk = sock->sk;
	struct mrc_sock *ms = mrc_sk(sk);
	struct mrc_tx_msg *m;
	struct in6_addr addr;
	struct mrc_local l;
	struct mrc_qp *qp;
	u32 max_len, charge;
	int scope = 0;
	long timeo;
	u16 port;
	int ret;

	if (msg->msg_flags & MSG_OOB)
		return -EOPNOTSUPP;
	if (msg->msg_name) {
		ret = mrc_get_addr(sk, msg->msg_name, msg->msg_namelen, &addr,
				   &port);
		if (!ret)
			ret = mrc_cgroup_addr(sk, msg->msg_name,
					      MRC_ADDR_SENDMSG);
		if (!ret)
			ret = mrc_get_addr(sk, msg->msg_name,
					   msg->msg_namelen, &addr, &port);
		if (ret)
			return ret;
		if (!port)
			return -EINVAL;
		ret = mrc_dest_check(sk, &addr);
		if (ret)
			return ret;
		scope = mrc_get_scope(sk, msg->msg_name, msg->msg_namelen);
	} else {
		lock_sock(sk);
		port = ms->peer_port;
		addr = ms->peer;
		scope = ms->peer_ifindex;
		release_sock(sk);
		if (!port)
			return -EDESTADDRREQ;
	}

	rcu_read_lock();
	max_len = mrc_cfg(ms->mn)->max_msg_size;
	rcu_read_unlock();
	if (len > max_len)
		return -EMSGSIZE;

	if (!READ_ONCE(ms->port)) {
		ret = mrc_do_bind(ms, 0, NULL);
		if (ret && ret != -EINVAL)
			return ret;
	}
	ret = mrc_dest_local(ms, &addr, scope, &l);
	if (ret)
		return ret;

	ret = sock_error(sk);
	if (ret)
		return ret;

	charge = mrc_tx_charge(len);
	timeo = sock_sndtimeo(sk, msg->msg_flags & MSG_DONTWAIT);
	qp = mrc_tx_wait_room(ms, &l, &addr, port, charge, &timeo);
	if (IS_ERR(qp))
		return PTR_ERR(qp);

	m = kzalloc(sizeof(*m), GFP_KERNEL_ACCOUNT);
	if (!m) {
		ret = -ENOBUFS;
		goto err_uncharge;
	}
	m->len = len;
	m->charge = charge;
	/* Beyond a page, in vmalloc'ed pages that packets can point at
	 * (see mrc_build_data() and MRC_MSG_VHEAD).
	 */
	if (len > PAGE_SIZE) {
		m->area = __vmalloc(MRC_MSG_VHEAD + len, GFP_KERNEL_ACCOUNT);
		m->buf = m->area ? m->area + MRC_MSG_VHEAD : NULL;
	} else {
		m->buf = kmalloc(len ?: 1, GFP_KERNEL_ACCOUNT);
	}
	if (!m->buf) {
		ret = -ENOBUFS;
		goto err_free;
	}
	if (len && !copy_from_iter_full(m->buf, len, &msg->msg_iter)) {
		ret = -EFAULT;
		goto err_free;
	}

	while ((ret = mrc_qp_send(qp, m)) == -ESTALE) {
		/* Closed meanwhile: the message, admitted, moves to the
		 * QP that replaces it.
		 */
		mrc_qp_tx_unreserve(qp, charge);
		mrc_qp_put(qp);
		qp = mrc_qp_get_or_create(ms, &l, &addr, port, GFP_KERNEL);
		if (IS_ERR(qp)) {
			ret = PTR_ERR(qp);
			kvfree(m->area ?: m->buf);
			kfree(m);
			return ret;
		}
		mrc_qp_tx_reserve(qp, charge, true);
	}
	/* No memory for the QP's first send (its scoreboard): the message
	 * was not taken, and its reservation is given back.
	 */
	if (ret)
		goto err_free;
	mrc_qp_put(qp);
	return len;

err_free:
	kvfree(m->area ?: m->buf);
	kfree(m);
err_uncharge:
	mrc_qp_tx_unreserve(qp, charge);
	mrc_qp_put(qp);
	return ret;
}

/* The protocol's memory: the pages that messages being received or
 * waiting to be read hold, all mrc sockets of all namespaces together
 * (net.mrc.mem_used: pages, and 1 under pressure), and its limits,
 * net.mrc.mem (in pages, as net.ipv4.udp_mem and tcp_mem): above the
 * second, pressure, until below the first again; the third is the most
 * there is.  Under pressure a socket may take more only for a message
 * next in order of its queue pair and already started (what its reader
 * waits for, which frees what it holds once read), or while it holds
 * less than MRC_MEM_SOCK_MIN; at the hard limit, nothing more.  What is
 * refused draws NACK "no buffer" and is counted in rx_drop_proto_mem;
 * its sender's timer tries again.  The check comes before the charge,
 * so that all CPUs at once may pass the hard limit by a page each.
 * Transmit memory is bounded by each socket's SO_SNDBUF, not here (as
 * for UDP).
 *
 * Not struct proto's memory_allocated: with it set, 6.1 lets
 * SO_RESERVE_MEM (which mrc cannot refuse there, see
 * mrc_sol_socket_ok()) charge the count through per-CPU reserves that
 * mrc's exact count would never drain.
 */
#define MRC_MEM_SOCK_MIN	(16 * PAGE_SIZE)

static atomic_long_t mrc_memory_allocated;
static unsigned long mrc_memory_pressure;
static long sysctl_mrc_mem[3];
/* Each limit at least a page, and no more than a long holds: above it
 * the limits, read as longs, would be negative and refuse everything.
 */
static unsigned long mrc_mem_min = 1;
static unsigned long mrc_mem_max = LONG_MAX;
/* net.mrc.max_qps: the queue pairs a socket may have (mrc_max_qps()). */
int sysctl_mrc_max_qps __read_mostly = MRC_MAX_QPS_PER_SOCK;
static int mrc_max_qps_min = MRC_MIN_QPS_PER_SOCK;
static int mrc_max_qps_max = MRC_MAX_QPS_PER_NET;

static long mrc_pages(s64 bytes)
{
	return (bytes + PAGE_SIZE - 1) >> PAGE_SHIFT;
}

/**
 * mrc_rx_mem_allow() - whether the protocol's limits let a socket take
 * more received bytes
 * @ms: the socket
 * @n: the bytes
 * @next: they are for a message next in order of its queue pair, and
 *	already started
 *
 * Return: true if they may be charged (mrc_rx_mem_add()).
 */
bool mrc_rx_mem_allow(struct mrc_sock *ms, u32 n, bool next)
{
	s64 held = atomic64_read(&ms->rx_mem);
	long more = mrc_pages(held + n) - mrc_pages(held);
	long total = atomic_long_read(&mrc_memory_allocated);

	if (total + more > READ_ONCE(sysctl_mrc_mem[2]))
		return false;
	if (!READ_ONCE(mrc_memory_pressure))
		return true;
	/* Pressure ends below the first limit, whoever frees memory: a
	 * clear that raced with a set is made good here.
	 */
	if (total < READ_ONCE(sysctl_mrc_mem[0])) {
		WRITE_ONCE(mrc_memory_pressure, 0);
		return true;
	}
	return next || held + n <= MRC_MEM_SOCK_MIN;
}

/**
 * mrc_rx_mem_add() - charge received bytes to a socket and the protocol
 * @ms: the socket
 * @n: the bytes
 *
 * The protocol is charged the pages the socket's bytes round up to:
 * each call adds what its own addition rounds up to, so the sum is
 * exact whatever the order of the calls on all CPUs.
 */
void mrc_rx_mem_add(struct mrc_sock *ms, u32 n)
{
	s64 now = atomic64_add_return(n, &ms->rx_mem);
	long more = mrc_pages(now) - mrc_pages(now - n);

	if (more &&
	    atomic_long_add_return(more, &mrc_memory_allocated) >
	    READ_ONCE(sysctl_mrc_mem[1]) && !READ_ONCE(mrc_memory_pressure))
		WRITE_ONCE(mrc_memory_pressure, 1);
}

/**
 * mrc_rx_mem_sub() - uncharge received bytes (mrc_rx_mem_add())
 * @ms: the socket
 * @n: the bytes
 */
void mrc_rx_mem_sub(struct mrc_sock *ms, u32 n)
{
	s64 now = atomic64_sub_return(n, &ms->rx_mem);
	long less = mrc_pages(now + n) - mrc_pages(now);

	if (less &&
	    atomic_long_sub_return(less, &mrc_memory_allocated) <
	    READ_ONCE(sysctl_mrc_mem[0]) && READ_ONCE(mrc_memory_pressure))
		WRITE_ONCE(mrc_memory_pressure, 0);
}

/**
 * mrc_rx_msg_free() - free a received message and uncharge its socket
 * @ms: the socket it was charged to
 * @m: the message
 */
void mrc_rx_msg_free(struct mrc_sock *ms, struct mrc_rx_msg *m)
{
	struct page *page;
	unsigned long i;

	xa_for_each(&m->pages, i, page)
		__free_page(page);
	xa_destroy(&m->pages);
	mrc_rx_mem_sub(ms, m->charge);
	if (m->over)
		atomic_set(&ms->rx_over, 0);
	if (m->amp_qp) {
		/* Read (or dropped with its socket): the QP's idle period
		 * starts now.  Its last reference may go here, in process
		 * context, or in softirq from mrc_sock_deliver(), where
		 * the caller holds another.
		 */
		WRITE_ONCE(m->amp_qp->amp_read, jiffies);
		/* The reaper that sees no message unread sees this time
		 * (mrc_qp_idle()).
		 */
		smp_mb__before_atomic();
		atomic_dec(&m->amp_qp->amp_unread);
		atomic_dec(&ms->amp_pinned);
		mrc_qp_put(m->amp_qp);
	}
	kfree(m);
}

/**
 * mrc_sock_deliver() - queue a complete message for recvmsg()
 * @ms: the receiving socket
 * @m: the message, whose charge the socket keeps until it is read
 *
 * Context: any; the message's queue pair lock may be held.
 */
void mrc_sock_deliver(struct mrc_sock *ms, struct mrc_rx_msg *m)
{
	struct sock *sk = mrc_to_sk(ms);
	bool closing;

	/* Once close() has emptied the queue, nothing is queued again: a
	 * message would wait for the socket's destructor, and one holding
	 * its QP (amp_qp), which holds the socket, would wait forever.
	 * mrc_release() sets closing before it takes this lock to empty
	 * the queue.
	 */
	spin_lock_bh(&ms->rxq_lock);
	closing = READ_ONCE(ms->closing);
	if (!closing)
		list_add_tail(&m->list, &ms->rxq);
	spin_unlock_bh(&ms->rxq_lock);
	if (closing)
		mrc_rx_msg_free(ms, m);
	else
		sk->sk_data_ready(sk);
}

/**
 * mrc_sock_filter() - whether a socket takes a data packet, by its
 * socket filter, its cgroup's ingress BPF programs and the LSM
 * @ms: the socket the packet's destination port names
 * @skb: the packet, its data at the UDP header
 *
 * A filter's verdict is whole: a packet is taken or dropped, never
 * trimmed (its mrc headers say how long it is).  The drop is counted
 * in the socket's sk_drops; the caller counts it for the namespace.
 *
 * Context: softirq, rcu_read_lock() held.
 *
 * Return: true if the packet is refused.
 */
bool mrc_sock_filter(struct mrc_sock *ms, struct sk_buff *skb)
{
	struct sock *sk = mrc_to_sk(ms);

	if (!sk_filter_trim_cap(sk, skb, skb->len))
		return false;
	atomic_inc(&sk->sk_drops);
	return true;
}

/**
 * mrc_sock_qp_failed() - report a queue pair's failure for its peer
 * @qp: the queue pair, locked
 * @err: the error, a positive errno
 * @dropped: messages to the peer dropped with it
 *
 * The failure concerns one destination, so no call about any other may
 * return it: it is queued on the socket's error queue, for
 * recvmsg(MSG_ERRQUEUE), with the peer's address and port, as UDP
 * reports an ICMP error with IP_RECVERR, and poll() says EPOLLERR.  An
 * error the queue has no room for (SO_RCVBUF) is not reported.  Only
 * when the peer is the socket's connect()ed one, which every send
 * without an address goes to, is it also the socket's error (SO_ERROR),
 * returned once by the next call, as a connected UDP socket's is.
 *
 * Context: any; BHs off.
 */
void mrc_sock_qp_failed(struct mrc_qp *qp, int err, u32 dropped)
{
	struct mrc_sock *ms = qp->ms;
	struct sock *sk = mrc_to_sk(ms);
	struct sock_exterr_skb *serr;
	struct sk_buff *skb;

	/* Read without the socket's lock: a connect() racing with the
	 * failure may see it or not, either is right.
	 */
	if (READ_ONCE(ms->peer_port) == qp->rport &&
	    ipv6_addr_equal(&ms->peer, &qp->raddr) &&
	    READ_ONCE(ms->peer_ifindex) == qp->local.ifindex) {
		WRITE_ONCE(sk->sk_err, err);
		sk_error_report(sk);
	}
	/* Nobody reads the error queue of a closed socket. */
	if (!sock_flag(sk, SOCK_DEAD)) {
		/* The peer's address and, for a link-local one, its link. */
		skb = alloc_skb(sizeof(qp->raddr) + sizeof(int), GFP_ATOMIC);
		if (skb) {
			skb_put_data(skb, &qp->raddr, sizeof(qp->raddr));
			skb_put_data(skb, &qp->local.ifindex, sizeof(int));
			serr = SKB_EXT_ERR(skb);
			memset(serr, 0, sizeof(*serr));
			serr->ee.ee_errno = err;
			serr->ee.ee_origin = SO_EE_ORIGIN_LOCAL;
			serr->ee.ee_data = dropped;
			serr->port = htons(qp->rport);
			if (sock_queue_err_skb(sk, skb))
				kfree_skb(skb);
		}
	}
	sk->sk_write_space(sk);
}

/* recvmsg(MSG_ERRQUEUE): the oldest failure mrc_sock_qp_failed() queued,
 * as ip_recv_error() gives an ICMP error: no data, the peer's address in
 * msg_name, and an IP_RECVERR (IPV6_RECVERR) control message holding the
 * sock_extended_err with the peer as offender (SO_EE_OFFENDER()).
 */
static int mrc_recv_error(struct sock *sk, struct msghdr *msg)
{
	struct sock_exterr_skb *serr;
	struct {
		struct sock_extended_err ee;
		struct sockaddr_in6 offender;
	} errhdr;
	struct in6_addr peer;
	struct sk_buff *skb;
	int ifindex;
	u16 port;

	skb = sock_dequeue_err_skb(sk);
	if (!skb)
		return -EAGAIN;
	serr = SKB_EXT_ERR(skb);
	memcpy(&peer, skb->data, sizeof(peer));
	memcpy(&ifindex, skb->data + sizeof(peer), sizeof(ifindex));
	port = ntohs(serr->port);
	if (msg->msg_name)
		msg->msg_namelen = mrc_put_addr(sk, msg->msg_name, &peer, port,
						ifindex);
	memset(&errhdr, 0, sizeof(errhdr));
	errhdr.ee = serr->ee;
	mrc_put_addr(sk, &errhdr.offender, &peer, port, ifindex);
	if (sk->sk_family == AF_INET6)
		put_cmsg(msg, SOL_IPV6, IPV6_RECVERR, sizeof(errhdr), &errhdr);
	else
		put_cmsg(msg, SOL_IP, IP_RECVERR, sizeof(errhdr), &errhdr);
	msg->msg_flags |= MSG_ERRQUEUE;
	consume_skb(skb);
	return 0;
}

static struct mrc_rx_msg *mrc_rxq_pop(struct mrc_sock *ms)
{
	struct mrc_rx_msg *m;

	spin_lock_bh(&ms->rxq_lock);
	m = list_first_entry_or_null(&ms->rxq, struct mrc_rx_msg, list);
	if (m)
		list_del(&m->list);
	spin_unlock_bh(&ms->rxq_lock);
	return m;
}

static bool mrc_rxq_ready(struct mrc_sock *ms)
{
	return !list_empty_careful(&ms->rxq);
}

static int mrc_copy_msg(struct mrc_rx_msg *m, struct msghdr *msg, u32 len)
{
	u32 off = 0;

	while (off < len) {
		struct page *page = xa_load(&m->pages, off >> PAGE_SHIFT);
		u32 poff = off & ~PAGE_MASK;
		u32 n = min_t(u32, PAGE_SIZE - poff, len - off);

		if (page) {
			if (copy_page_to_iter(page, poff, n, &msg->msg_iter) != n)
				return -EFAULT;
		} else if (iov_iter_zero(n, &msg->msg_iter) != n) {
			return -EFAULT;
		}
		off += n;
	}
	return 0;
}

static int mrc_recvmsg(struct socket *sock, struct msghdr *msg, size_t size,
		       int flags)
{
	struct sock *sk = sock->sk;
	struct mrc_sock *ms = mrc_sk(sk);
	struct mrc_rx_msg *m;
	long timeo, left;
	u32 copy;
	int ret;

	if (flags & (MSG_OOB | MSG_PEEK))
		return -EOPNOTSUPP;
	if (flags & MSG_ERRQUEUE)
		return mrc_recv_error(sk, msg);

	timeo = sock_rcvtimeo(sk, flags & MSG_DONTWAIT);
	for (;;) {
		m = mrc_rxq_pop(ms);
		if (m)
			break;
		ret = sock_error(sk);
		if (ret)
			return ret;
		if (!timeo)
			return -EAGAIN;
		left = wait_event_interruptible_timeout(*sk_sleep(sk),
							mrc_rxq_ready(ms) ||
							READ_ONCE(sk->sk_err),
							timeo);
		if (left < 0)
			return sock_intr_errno(timeo);
		timeo = left;
	}

	copy = min_t(u32, m->len, size);
	ret = mrc_copy_msg(m, msg, copy);
	if (!ret) {
		if (copy < m->len)
			msg->msg_flags |= MSG_TRUNC;
		if (msg->msg_name)
			msg->msg_namelen = mrc_put_addr(sk, msg->msg_name,
							&m->saddr, m->sport,
							m->ifindex);
		ret = flags & MSG_TRUNC ? m->len : copy;
	}
	mrc_rx_msg_free(ms, m);
	mrc_sock_rx_room(ms);
	return ret;
}

static __poll_t mrc_poll(struct file *file, struct socket *sock,
			 poll_table *wait)
{
	struct sock *sk = sock->sk;
	struct mrc_sock *ms = mrc_sk(sk);
	__poll_t mask = 0;

	sock_poll_wait(file, sock, wait);
	if (READ_ONCE(sk->sk_err) ||
	    !skb_queue_empty_lockless(&sk->sk_error_queue))
		mask |= EPOLLERR |
			(sock_flag(sk, SOCK_SELECT_ERR_QUEUE) ? EPOLLPRI : 0);
	if (mrc_rxq_ready(ms))
		mask |= EPOLLIN | EPOLLRDNORM;
	if (atomic64_read(&ms->tx_mem) < READ_ONCE(sk->sk_sndbuf))
		mask |= EPOLLOUT | EPOLLWRNORM | EPOLLWRBAND;
	return mask;
}

/* The SOL_SOCKET options mrc honours; any other is refused with
 * ENOPROTOOPT rather than taken and ignored, where the kernel lets a
 * protocol see them first (SOCK_CUSTOM_SOCKOPT, not in 6.1: there the
 * socket layer takes them all, and mrc refuses only SO_RCVLOWAT, by
 * mrc_set_rcvlowat(); SO_ZEROCOPY and SO_PEEK_OFF it refuses itself for
 * mrc).  Buffers bound the
 * memory of messages (SO_SNDBUF, SO_RCVBUF); the timeouts bound
 * blocking calls; SO_LINGER {1, 0} aborts on close; SO_BROADCAST lets a
 * broadcast destination be sent to; the mark and priority go on every
 * packet of the socket's (the mark into its route lookup too); a socket
 * filter, or a cgroup's ingress program, judges each data packet for
 * the socket before mrc takes it.  Not honoured: SO_BINDTODEVICE (data
 * would still arrive by any device), SO_REUSEADDR and SO_REUSEPORT
 * (bind() has its own rule), timestamps, SO_RCVLOWAT, SO_KEEPALIVE,
 * busy polling, SO_ZEROCOPY, SO_TXTIME and the rest.
 */
static bool mrc_sol_socket_ok(int optname)
{
	switch (optname) {
	case SO_SNDBUF:
	case SO_SNDBUFFORCE:
	case SO_RCVBUF:
	case SO_RCVBUFFORCE:
	case SO_SNDTIMEO_OLD:
	case SO_SNDTIMEO_NEW:
	case SO_RCVTIMEO_OLD:
	case SO_RCVTIMEO_NEW:
	case SO_LINGER:
	case SO_BROADCAST:
	case SO_MARK:
	case SO_PRIORITY:
	case SO_ATTACH_FILTER:
	case SO_ATTACH_BPF:
	case SO_DETACH_FILTER:
	case SO_LOCK_FILTER:
		return true;
	default:
		return false;
	}
}

static int mrc_setsockopt(struct socket *sock, int level, int optname,
			  sockptr_t optval, unsigned int optlen)
{
	struct mrc_sock *ms = mrc_sk(sock->sk);
	struct net *net = sock_net(sock->sk);
	int val;

	if (level == SOL_SOCKET)
		return mrc_sol_socket_ok(optname) ?
		       sock_setsockopt(sock, level, optname, optval, optlen) :
		       -ENOPROTOOPT;
	if (level != SOL_MRC)
		return -ENOPROTOOPT;
	if (optlen < sizeof(int))
		return -EINVAL;
	if (copy_from_sockptr(&val, optval, sizeof(val)))
		return -EFAULT;
	switch (optname) {
	case MRC_SO_UDP_SPORT:
		if (val < 0 || val > 65535)
			return -EINVAL;
		/* A privileged port, as for bind(). */
		if (val && inet_port_requires_bind_service(net, val) &&
		    !ns_capable(net->user_ns, CAP_NET_BIND_SERVICE))
			return -EACCES;
		WRITE_ONCE(ms->udp_sport, val);
		return 0;
	default:
		return -ENOPROTOOPT;
	}
}

static int mrc_getsockopt(struct socket *sock, int level, int optname,
			  char __user *optval, int __user *optlen)
{
	struct mrc_sock *ms = mrc_sk(sock->sk);
	int val, len;

	if (level != SOL_MRC)
		return -ENOPROTOOPT;
	if (get_user(len, optlen))
		return -EFAULT;
	if (len < (int)sizeof(int))
		return -EINVAL;
	switch (optname) {
	case MRC_SO_UDP_SPORT:
		val = READ_ONCE(ms->udp_sport);
		break;
	default:
		return -ENOPROTOOPT;
	}
	len = sizeof(int);
	if (put_user(len, optlen) || copy_to_user(optval, &val, len))
		return -EFAULT;
	return 0;
}

/* A message is returned whole or not at all: no low-water mark. */
static int mrc_set_rcvlowat(struct sock *sk, int val)
{
	return -ENOPROTOOPT;
}

static int mrc_ioctl(struct socket *sock, unsigned int cmd, unsigned long arg)
{
	return -ENOIOCTLCMD;
}

static int mrc_release(struct socket *sock)
{
	struct sock *sk = sock->sk;
	struct mrc_sock *ms;
	struct mrc_rx_msg *m;
	bool abort, idle;

	if (!sk)
		return 0;
	ms = mrc_sk(sk);
	abort = sock_flag(sk, SOCK_LINGER) && !sk->sk_lingertime;

	spin_lock_bh(&ms->lock);
	/* Read without the lock by the receive path and the reaper. */
	WRITE_ONCE(ms->closing, true);
	idle = !ms->nr_qps;
	spin_unlock_bh(&ms->lock);

	while ((m = mrc_rxq_pop(ms)))
		mrc_rx_msg_free(ms, m);

	sock_orphan(sk);
	sock->sk = NULL;

	if (abort)
		mrc_qp_close_all(ms);
	else if (!idle)
		/* The reaper closes each QP once its messages are acked. */
		mod_delayed_work(system_wq, &ms->mn->reaper, 0);

	if (idle || abort) {
		spin_lock_bh(&ms->lock);
		idle = !ms->nr_qps;
		spin_unlock_bh(&ms->lock);
		if (idle)
			mrc_sock_unbind(ms);
	}
	sock_put(sk);
	return 0;
}

static void mrc_sk_destruct(struct sock *sk)
{
	struct mrc_sock *ms = mrc_sk(sk);
	struct mrc_rx_msg *m;

	while ((m = mrc_rxq_pop(ms)))
		mrc_rx_msg_free(ms, m);
	WARN_ON_ONCE(atomic64_read(&ms->tx_mem));
	WARN_ON_ONCE(atomic64_read(&ms->rx_mem));
	WARN_ON_ONCE(ms->rx_nturn || ms->rx_reserved);
	/* No QP is left, nor any packet of the socket's: the namespace's
	 * UDP/4791 sockets may close.
	 */
	mrc_udp_put(ms->mn);
	/* After a grace period (SOCK_RCU_FREE): no lookup reads it. */
	kvfree(ms->qps);
	ms->orig_destruct(sk);
}

static int mrc_sk_init(struct sock *sk)
{
	struct mrc_sock *ms = mrc_sk(sk);
	int ret;

	ms->mn = mrc_net(sock_net(sk));
	ms->qp_hash_bits = mrc_qp_hash_bits();
	/* Empty buckets are zeroes. */
	ms->qps = kvcalloc(mrc_sock_qp_buckets(ms), sizeof(*ms->qps),
			   GFP_KERNEL_ACCOUNT);
	if (!ms->qps)
		return -ENOBUFS;
	/* The namespace's first socket opens UDP/4791, or fails here if
	 * another socket holds the port (-EADDRINUSE).  With no destructor
	 * of ours set yet, a failure leaves nothing else to undo.
	 */
	ret = mrc_udp_get(ms->mn);
	if (ret) {
		kvfree(ms->qps);
		ms->qps = NULL;
		return ret;
	}
	spin_lock_init(&ms->lock);
	spin_lock_init(&ms->rxq_lock);
	INIT_LIST_HEAD(&ms->rxq);
	atomic64_set(&ms->tx_mem, 0);
	atomic_set(&ms->tx_busy, 0);
	atomic64_set(&ms->rx_mem, 0);
	atomic_set(&ms->rx_over, 0);
	atomic_set(&ms->rx_over_wanted, 0);
	spin_lock_init(&ms->rx_share_lock);
	INIT_LIST_HEAD(&ms->rx_waiters);
	INIT_LIST_HEAD(&ms->rx_called);
	ms->rx_reserved = 0;
	ms->rx_nturn = 0;
	ms->rx_share_tick = jiffies;
	atomic_set(&ms->amp_pinned, 0);
	INIT_HLIST_NODE(&ms->port_node);
#ifdef SOCK_CUSTOM_SOCKOPT
	/* SOL_SOCKET options come to mrc_setsockopt() to be sorted. */
	if (sk->sk_socket)
		set_bit(SOCK_CUSTOM_SOCKOPT, &sk->sk_socket->flags);
#endif
	ms->orig_destruct = sk->sk_destruct;
	sk->sk_destruct = mrc_sk_destruct;
	sock_set_flag(sk, SOCK_RCU_FREE);
	return 0;
}

/* The socket layer calls these through sk_common_release() on errors. */
static int mrc_sk_hash(struct sock *sk)
{
	return 0;
}

static void mrc_sk_unhash(struct sock *sk)
{
}

/* The two address families differ only in the family, the name and the
 * size of the socket: everything else is shared.
 */
#define MRC_PROTO(_name, _obj_size) {				\
	.name		= _name,				\
	.owner		= THIS_MODULE,				\
	.init		= mrc_sk_init,				\
	.hash		= mrc_sk_hash,				\
	.unhash		= mrc_sk_unhash,			\
	.obj_size	= _obj_size,				\
}

#define MRC_PROTO_OPS(_family) {				\
	.family		= _family,				\
	.owner		= THIS_MODULE,				\
	.release	= mrc_release,				\
	.bind		= mrc_bind,				\
	.connect	= mrc_connect,				\
	.socketpair	= sock_no_socketpair,			\
	.accept		= sock_no_accept,			\
	.getname	= mrc_getname,				\
	.poll		= mrc_poll,				\
	.ioctl		= mrc_ioctl,				\
	.listen		= sock_no_listen,			\
	.shutdown	= sock_no_shutdown,			\
	.setsockopt	= mrc_setsockopt,			\
	.getsockopt	= mrc_getsockopt,			\
	.sendmsg	= mrc_sendmsg,				\
	.recvmsg	= mrc_recvmsg,				\
	.mmap		= sock_no_mmap,				\
	.set_rcvlowat	= mrc_set_rcvlowat,			\
}

#define MRC_PROTOSW(_prot, _ops) {				\
	.type		= SOCK_DGRAM,				\
	.protocol	= IPPROTO_MRC,				\
	.prot		= _prot,				\
	.ops		= _ops,					\
}

static struct proto mrc_prot = MRC_PROTO("MRC", sizeof(struct mrc_sock));
static const struct proto_ops mrc_ops = MRC_PROTO_OPS(PF_INET);
static struct inet_protosw mrc_protosw = MRC_PROTOSW(&mrc_prot, &mrc_ops);

#if IS_ENABLED(CONFIG_IPV6)
static struct proto mrc6_prot = MRC_PROTO("MRCv6", sizeof(struct mrc6_sock));
static const struct proto_ops mrc6_ops = MRC_PROTO_OPS(PF_INET6);
static struct inet_protosw mrc6_protosw = MRC_PROTOSW(&mrc6_prot, &mrc6_ops);
#endif

/* net.mrc.mem_used, read-only: the pages held, and 1 under pressure. */
#ifdef MRC_CTL_TABLE_CONST
static int mrc_sysctl_used(const struct ctl_table *table, int write,
			   void *buffer, size_t *lenp, loff_t *ppos)
#else
static int mrc_sysctl_used(struct ctl_table *table, int write,
			   void *buffer, size_t *lenp, loff_t *ppos)
#endif
{
	unsigned long used[2] = {
		max(0L, atomic_long_read(&mrc_memory_allocated)),
		READ_ONCE(mrc_memory_pressure),
	};
	struct ctl_table t = {
		.data = used,
		.maxlen = sizeof(used),
	};

	if (write)
		return -EPERM;
	return proc_doulongvec_minmax(&t, 0, buffer, lenp, ppos);
}

static struct ctl_table mrc_sysctl[] = {
	{
		.procname	= "mem",
		.data		= &sysctl_mrc_mem,
		.maxlen		= sizeof(sysctl_mrc_mem),
		.mode		= 0644,
		.proc_handler	= proc_doulongvec_minmax,
		.extra1		= &mrc_mem_min,
		.extra2		= &mrc_mem_max,
	},
	{
		.procname	= "mem_used",
		.mode		= 0444,
		.proc_handler	= mrc_sysctl_used,
	},
	{
		.procname	= "max_qps",
		.data		= &sysctl_mrc_max_qps,
		.maxlen		= sizeof(sysctl_mrc_max_qps),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= &mrc_max_qps_min,
		.extra2		= &mrc_max_qps_max,
	},
	{ }
};

static struct ctl_table_header *mrc_sysctl_hdr;

/**
 * mrc_sock_init() - offer the message socket in both address families
 *
 * Return: 0 or a negative errno, with nothing registered.
 */
int __init mrc_sock_init(void)
{
	unsigned long limit = max(nr_free_buffer_pages() / 8, 128UL);
	int ret;

	/* As UDP's defaults: an eighth of the memory buffers may use. */
	sysctl_mrc_mem[0] = limit / 4 * 3;
	sysctl_mrc_mem[1] = limit;
	sysctl_mrc_mem[2] = sysctl_mrc_mem[0] * 2;
	/* The initial namespace's, as tcp_mem: the limits are global. */
#ifdef register_net_sysctl
	/* 6.6 and later take the table's size, without the sentinel. */
	mrc_sysctl_hdr = register_net_sysctl_sz(&init_net, "net/mrc",
						mrc_sysctl,
						ARRAY_SIZE(mrc_sysctl) - 1);
#else
	mrc_sysctl_hdr = register_net_sysctl(&init_net, "net/mrc", mrc_sysctl);
#endif
	if (!mrc_sysctl_hdr)
		return -ENOMEM;

	ret = proto_register(&mrc_prot, 1);
	if (ret)
		goto err_sysctl;
	inet_register_protosw(&mrc_protosw);
#if IS_ENABLED(CONFIG_IPV6)
	ret = proto_register(&mrc6_prot, 1);
	if (ret)
		goto err_v4;
	ret = inet6_register_protosw(&mrc6_protosw);
	if (ret)
		goto err_prot6;
#endif
	return 0;

#if IS_ENABLED(CONFIG_IPV6)
err_prot6:
	proto_unregister(&mrc6_prot);
err_v4:
	inet_unregister_protosw(&mrc_protosw);
	proto_unregister(&mrc_prot);
#endif
err_sysctl:
	unregister_net_sysctl_table(mrc_sysctl_hdr);
	return ret;
}

/**
 * mrc_sock_exit() - withdraw the message socket
 *
 * No socket can exist: each holds a reference on the module.
 */
void mrc_sock_exit(void)
{
#if IS_ENABLED(CONFIG_IPV6)
	inet6_unregister_protosw(&mrc6_protosw);
	proto_unregister(&mrc6_prot);
#endif
	inet_unregister_protosw(&mrc_protosw);
	proto_unregister(&mrc_prot);
	unregister_net_sysctl_table(mrc_sysctl_hdr);
}

MODULE_ALIAS_NET_PF_PROTO_TYPE(PF_INET, IPPROTO_MRC, SOCK_DGRAM);
MODULE_ALIAS_NET_PF_PROTO_TYPE(PF_INET6, IPPROTO_MRC, SOCK_DGRAM);
