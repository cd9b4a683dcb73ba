// SPDX-License-Identifier: GPL-2.0
/* The UDP/4791 kernel sockets: one for IPv4 and one for IPv6 in each
 * network namespace, receiving through an encap_rcv hook as RoCEv2 and
 * other UDP tunnels do.
 */
#include <linux/icmp.h>
#include <linux/icmpv6.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <net/udp.h>
#include <net/udp_tunnel.h>

#include <mrc/mrc.h>

/* An ICMP error quotes a packet sent from an entropy value, a port no
 * socket has, to 4791: UDP then asks the tunnel socket of 4791 whether
 * the packet was its own.  Claiming those that went to 4791 lets the
 * stack take what the error says of the path, as for any socket: a
 * lower MTU ("fragmentation needed", "packet too big") goes into the
 * route, where mrc's queue pairs find it for their next packets.  The
 * quoted UDP header is there in full (the ICMP layers check it).
 */
static int mrc_udp_encap_err_lookup(struct sock *sk, struct sk_buff *skb)
{
	return udp_hdr(skb)->dest == htons(MRC_UDP_PORT) ? 0 : -ENOENT;
}

/* What an ICMP error says that mrc acts on, or -1: the UDP layer has
 * done the rest (a lower MTU is in the route already).  Unreachable
 * networks, hosts and the like are left to the retransmission timer and
 * the spraying: under spraying they are news of one path, not of the
 * peer.  IPv6's "unknown next header" is its protocol unreachable.
 */
static int mrc_icmp_kind(int family, const struct sk_buff *skb)
{
	/* ICMP and ICMPv6 headers both start with the type and the code. */
	u8 type = icmp_hdr(skb)->type, code = icmp_hdr(skb)->code;

	if (family == AF_INET6) {
		if (type == ICMPV6_PKT_TOOBIG)
			return MRC_ICMP_TOO_BIG;
		if ((type == ICMPV6_DEST_UNREACH &&
		     code == ICMPV6_PORT_UNREACH) ||
		    (type == ICMPV6_PARAMPROB && code == ICMPV6_UNK_NEXTHDR))
			return MRC_ICMP_REFUSED;
		return -1;
	}
	if (type != ICMP_DEST_UNREACH)
		return -1;
	if (code == ICMP_FRAG_NEEDED)
		return MRC_ICMP_TOO_BIG;
	if (code == ICMP_PORT_UNREACH || code == ICMP_PROT_UNREACH)
		return MRC_ICMP_REFUSED;
	return -1;
}

/* An ICMP error about a packet the namespace sent to UDP/4791: @skb's
 * data is at the quoted IP header, its UDP header @udp_offset bytes in
 * (the stack checked that much is there, no more), the ICMP header at
 * its transport header.
 */
static void mrc_udp_err(struct sock *sk, struct sk_buff *skb,
			unsigned int udp_offset)
{
	u8 buf[MRC_DATA_TAGGED_LEN + MRC_TSETH_LEN + MRC_IMM_LEN];
	unsigned int off = udp_offset + sizeof(struct udphdr);
	int family = sk->sk_family, kind, hlen;
	u32 mtu = 0;
	struct mrc_local local = {};
	struct in6_addr daddr;
	struct mrc_net *mn;
	const u8 *p;

	rcu_read_lock();
	mn = rcu_dereference_sk_user_data(sk);
	if (unlikely(!mn))
		goto out;
	kind = mrc_icmp_kind(family, skb);
	/* Only a data packet's error concerns a QP: an acknowledgment's or
	 * a probe's is ignored, as are bytes too few to be read.
	 */
	p = skb_header_pointer(skb, off, MRC_BTH_LEN, buf);
	hlen = p ? mrc_hdr_len(p) : -1;
	if (kind >= 0 && hlen > 0 && mrc_is_data_opcode(mrc_bth_opcode(p)))
		p = skb_header_pointer(skb, off, hlen, buf);
	else
		p = NULL;
	if (!p) {
		mrc_stat_inc(mn, MRC_STAT_ICMP_IGNORED);
		goto out;
	}
	/* The quoted packet's source is the QP's local address. */
	if (family == AF_INET6) {
		const struct ipv6hdr *ip6h = (const struct ipv6hdr *)skb->data;

		daddr = ip6h->daddr;
		local.addr = ip6h->saddr;
		if (mrc_addr_scoped(&local.addr, &daddr))
			local.ifindex = inet6_iif(skb);
	} else {
		const struct iphdr *iph = (const struct iphdr *)skb->data;

		ipv6_addr_set_v4mapped(iph->daddr, &daddr);
		ipv6_addr_set_v4mapped(iph->saddr, &local.addr);
	}
	/* The MTU the error gives: the stack put it into the route of
	 * the flow without ports, which with routes of several next hops
	 * may not be the one this packet's value takes.
	 */
	if (kind == MRC_ICMP_TOO_BIG)
		mtu = family == AF_INET6 ? ntohl(icmp6_hdr(skb)->icmp6_mtu) :
		      ntohs(icmp_hdr(skb)->un.frag.mtu);
	mrc_rx_icmp(mn, family, &local, &daddr, p,
		    ntohs(((const struct udphdr *)(skb->data + udp_offset))->source),
		    kind, mtu);
out:
	rcu_read_unlock();
}

/* The hook's arguments changed in 6.2 (see Kbuild); the quoted packet
 * is found the same way.
 */
#ifdef MRC_ENCAP_ERR_RCV_PAYLOAD
static void mrc_udp_encap_err_rcv(struct sock *sk, struct sk_buff *skb,
				  int err, __be16 port, u32 info, u8 *payload)
{
	mrc_udp_err(sk, skb, payload - sizeof(struct udphdr) - skb->data);
}
#else
static void mrc_udp_encap_err_rcv(struct sock *sk, struct sk_buff *skb,
				  unsigned int udp_offset)
{
	mrc_udp_err(sk, skb, udp_offset);
}
#endif

/* The socket received from its bind() to the setting of its hook as any
 * UDP socket does: into its queue, which nothing reads.  What came then
 * is taken off it, UDP's memory released as a read releases it, counted
 * as delivered (UDP's InDatagrams, as a read counts it) and as a packet
 * mrc took without a queue pair (rx_drop_no_qp, as one a moment earlier,
 * to no port, would have been refused), and freed: its sender resends.
 */
static void mrc_socket_drain(struct mrc_net *mn, struct sock *sk)
{
	struct sk_buff *skb;
	int err;

	while ((skb = skb_recv_udp(sk, MSG_DONTWAIT, &err))) {
#if IS_ENABLED(CONFIG_IPV6)
		if (sk->sk_family == AF_INET6)
			UDP6_INC_STATS(mn->net, UDP_MIB_INDATAGRAMS, 0);
		else
#endif
			UDP_INC_STATS(mn->net, UDP_MIB_INDATAGRAMS, 0);
		/* Queued by UDP, its header pulled. */
		mrc_rx_no_socket(mn, skb, skb->len);
	}
}

static int mrc_socket_open(struct net *net, struct mrc_net *mn, int family,
			   struct socket **sockp)
{
	struct udp_tunnel_sock_cfg tcfg = {
		.sk_user_data = mn,
		/* Any non-zero type: the hooks are all that is used. */
		.encap_type = 1,
		.encap_rcv = mrc_udp_encap_recv,
		.encap_err_lookup = mrc_udp_encap_err_lookup,
		.encap_err_rcv = mrc_udp_encap_err_rcv,
	};
	struct udp_port_cfg pcfg = {
		.family = family,
		.local_udp_port = htons(MRC_UDP_PORT),
	};
	struct socket *sock;
	int ret;

	if (family == AF_INET6) {
		pcfg.local_ip6 = in6addr_any;
		/* Leave the IPv4 port to the IPv4 socket. */
		pcfg.ipv6_v6only = 1;
	} else {
		pcfg.local_ip.s_addr = htonl(INADDR_ANY);
	}

	ret = udp_sock_create(net, &pcfg, &sock);
	if (ret)
		return ret;

	setup_udp_tunnel_sock(net, sock, &tcfg);
	mrc_socket_drain(mn, sock->sk);
	*sockp = sock;
	return 0;
}

/* Open what is not open yet: the IPv4 socket, and the IPv6 one where
 * IPv6 is available.  On failure nothing of the namespace's is left open:
 * a port another socket holds is -EADDRINUSE, from udp_sock_create().
 */
static int mrc_udp_open(struct mrc_net *mn)
{
	int ret;

	lockdep_assert_held(&mn->udp_lock);
	if (!mn->sock4) {
		ret = mrc_socket_open(mn->net, mn, AF_INET, &mn->sock4);
		if (ret)
			return ret;
	}
	if (!IS_ENABLED(CONFIG_IPV6) || mn->sock6)
		return 0;
	ret = mrc_socket_open(mn->net, mn, AF_INET6, &mn->sock6);
	if (ret == -EAFNOSUPPORT)
		return 0;
	if (ret) {
		udp_tunnel_sock_release(mn->sock4);
		mn->sock4 = NULL;
	}
	return ret;
}

/* Receivers that found a socket's mrc_net go on using it: it lives as
 * long as the namespace, and the socket's memory until a grace period
 * has passed (UDP sockets are SOCK_RCU_FREE).  Nothing sends through
 * these sockets, so no sender can be holding one.
 */
static void mrc_udp_close(struct mrc_net *mn)
{
	lockdep_assert_held(&mn->udp_lock);
	if (mn->sock6)
		udp_tunnel_sock_release(mn->sock6);
	if (mn->sock4)
		udp_tunnel_sock_release(mn->sock4);
	WRITE_ONCE(mn->sock4, NULL);
	WRITE_ONCE(mn->sock6, NULL);
}

/* The last user went: close, unless a new one came meanwhile. */
static void mrc_udp_close_work(struct work_struct *work)
{
	struct mrc_net *mn = container_of(work, struct mrc_net, udp_close);

	mutex_lock(&mn->udp_lock);
	if (!atomic_read(&mn->udp_users))
		mrc_udp_close(mn);
	mutex_unlock(&mn->udp_lock);
}

/**
 * mrc_udp_get() - take a use of the namespace's UDP/4791 sockets,
 * opening them if none is open
 * @mn: the namespace's mrc state
 *
 * Nothing but a use of mrc opens port 4791: a namespace where mrc is
 * unused leaves it to others (rdma_rxe, a plain UDP socket), and then
 * mrc's first use there fails.
 *
 * Context: process context; may sleep.  Takes mrc_net.udp_lock.
 *
 * Return: 0, or a negative errno with no use taken: -EADDRINUSE if
 * another socket holds the port.
 */
int mrc_udp_get(struct mrc_net *mn)
{
	int ret = 0;

	might_sleep();
	if (atomic_inc_not_zero(&mn->udp_users))
		return 0;
	mutex_lock(&mn->udp_lock);
	/* Open unless the last user's close has yet to run. */
	ret = mrc_udp_open(mn);
	if (!ret)
		atomic_inc(&mn->udp_users);
	mutex_unlock(&mn->udp_lock);
	return ret;
}

/**
 * mrc_udp_put() - give back a use taken by mrc_udp_get()
 * @mn: the namespace's mrc state
 *
 * The last one closes the sockets soon after, in process context.
 *
 * Context: any (a socket's destructor runs from an RCU callback).
 */
void mrc_udp_put(struct mrc_net *mn)
{
	if (atomic_dec_and_test(&mn->udp_users))
		queue_work(system_wq, &mn->udp_close);
}

/**
 * mrc_udp_nr_open() - how many UDP/4791 sockets the namespace has open
 * @mn: the namespace's mrc state
 *
 * Return: 0, 1 (IPv4, or IPv4 alone available) or 2.
 */
u64 mrc_udp_nr_open(struct mrc_net *mn)
{
	return !!READ_ONCE(mn->sock4) + !!READ_ONCE(mn->sock6);
}

/**
 * mrc_socket_net_init() - a namespace starts with its sockets closed
 * @mn: the namespace's mrc state
 */
void mrc_socket_net_init(struct mrc_net *mn)
{
	mutex_init(&mn->udp_lock);
	atomic_set(&mn->udp_users, 0);
	INIT_WORK(&mn->udp_close, mrc_udp_close_work);
}

/**
 * mrc_socket_net_exit() - close a dying namespace's UDP/4791 sockets
 * @mn: the namespace's mrc state
 *
 * No message socket is left (each holds the namespace), so the uses left
 * are the configuration's alone; a close queued by the last socket is
 * done or cancelled here.  Receivers may still hold @mn until an RCU
 * grace period has passed.
 */
void mrc_socket_net_exit(struct mrc_net *mn)
{
	cancel_work_sync(&mn->udp_close);
	mutex_lock(&mn->udp_lock);
	mrc_udp_close(mn);
	mutex_unlock(&mn->udp_lock);
}
