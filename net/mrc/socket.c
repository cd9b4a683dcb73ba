// SPDX-License-Identifier: GPL-2.0
/* The UDP/4791 kernel sockets: one for IPv4 and one for IPv6 in each
 * network namespace, receiving through an encap_rcv hook as RoCEv2 and
 * other UDP tunnels do.
 */
#include <linux/in.h>
#include <linux/in6.h>
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

static int mrc_socket_open(struct net *net, struct mrc_net *mn, int family,
			   struct socket **sockp)
{
	struct udp_tunnel_sock_cfg tcfg = {
		.sk_user_data = mn,
		/* Any non-zero type: the hooks are all that is used. */
		.encap_type = 1,
		.encap_rcv = mrc_udp_encap_recv,
		.encap_err_lookup = mrc_udp_encap_err_lookup,
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
	*sockp = sock;
	return 0;
}

/**
 * mrc_socket_init() - open a namespace's UDP/4791 sockets
 * @net: the namespace
 * @mn: its mrc state, which the sockets' receive hook is given
 *
 * A namespace where IPv6 is unavailable gets the IPv4 socket alone.
 *
 * Return: 0 or a negative errno, with nothing left open.
 */
int mrc_socket_init(struct net *net, struct mrc_net *mn)
{
	int ret;

	ret = mrc_socket_open(net, mn, AF_INET, &mn->sock4);
	if (ret)
		return ret;

	if (!IS_ENABLED(CONFIG_IPV6))
		return 0;
	ret = mrc_socket_open(net, mn, AF_INET6, &mn->sock6);
	if (ret == -EAFNOSUPPORT) {
		mn->sock6 = NULL;
		return 0;
	}
	if (ret) {
		udp_tunnel_sock_release(mn->sock4);
		mn->sock4 = NULL;
	}
	return ret;
}

/**
 * mrc_socket_release() - close a namespace's UDP/4791 sockets
 * @mn: the namespace's mrc state
 *
 * Receivers may still hold @mn until an RCU grace period has passed.
 */
void mrc_socket_release(struct mrc_net *mn)
{
	if (mn->sock6)
		udp_tunnel_sock_release(mn->sock6);
	if (mn->sock4)
		udp_tunnel_sock_release(mn->sock4);
	mn->sock4 = NULL;
	mn->sock6 = NULL;
}
