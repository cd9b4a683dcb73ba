// SPDX-License-Identifier: GPL-2.0
/* Receive path: every UDP/4791 packet of a namespace arrives here.
 * Nothing in a packet is trusted: it is checked against its headers'
 * lengths before any field is read, and anything mrc cannot use is
 * counted by reason and dropped.
 */
#include <linux/skbuff.h>
#include <linux/udp.h>
#include <net/udp_tunnel.h>

#include <mrc/mrc.h>
#include <mrc/wire.h>

static void mrc_rx(struct mrc_net *mn, struct sk_buff *skb)
{
	unsigned int hoff = sizeof(struct udphdr);
	int hlen;

	mrc_stat_inc(mn, MRC_STAT_RX_PACKETS);
	mrc_stat_add(mn, MRC_STAT_RX_BYTES, skb->len - hoff);

	if (!pskb_may_pull(skb, hoff + MRC_BTH_LEN))
		goto short_pkt;
	hlen = mrc_hdr_len(skb->data + hoff);
	if (hlen == MRC_HDR_BAD_VERSION) {
		mrc_stat_inc(mn, MRC_STAT_RX_DROP_BAD_VERSION);
		goto drop;
	}
	if (hlen < 0) {
		mrc_stat_inc(mn, MRC_STAT_RX_DROP_BAD_OPCODE);
		goto drop;
	}
	if (!pskb_may_pull(skb, hoff + hlen))
		goto short_pkt;

	/* A well-formed packet; no queue pair exists to take it yet. */
	mrc_stat_inc(mn, MRC_STAT_RX_DROP_NO_QP);
	goto drop;

short_pkt:
	mrc_stat_inc(mn, MRC_STAT_RX_DROP_SHORT);
drop:
	kfree_skb(skb);
}

/**
 * mrc_udp_encap_recv() - UDP encap_rcv hook of the UDP/4791 sockets
 * @sk: the receiving socket
 * @skb: the packet, its data at the UDP header
 *
 * Called in softirq context under rcu_read_lock().
 *
 * Return: 0, the packet is consumed.
 */
int mrc_udp_encap_recv(struct sock *sk, struct sk_buff *skb)
{
	struct mrc_net *mn = rcu_dereference_sk_user_data(sk);

	if (unlikely(!mn)) {
		kfree_skb(skb);
		return 0;
	}
	mrc_rx(mn, skb);
	return 0;
}
