/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The sender's scoreboard: the state of each PSN in flight, kept in a ring
 * of MRC_WINDOW entries indexed by PSN % MRC_WINDOW, what the SACKs say
 * was received, and the packets the SACK gaps show lost.
 *
 * Pure logic: compiles in the kernel and in userspace, where the unit
 * tests pass in a ring, the counters and the time of their own.  The
 * caller serialises access (the kernel holds the queue pair's lock).
 */
#ifndef _MRC_SACK_H
#define _MRC_SACK_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <stdbool.h>
#include <linux/types.h>
#endif

#include <mrc/rxwin.h>
#include <mrc/wire.h>

struct mrc_tx_msg;

/**
 * struct mrc_tx_pkt - the sender's state of one PSN in flight
 * @msg: the message it carries a part of
 * @tx_ns: when it was last sent
 * @off: where its payload starts in @msg
 * @len: its payload's length
 * @ev: the entropy value of its last transmission
 * @flags: MRC_TXP_*
 * @lost_depth: the SACK gap's depth it was taken as lost at, 0 if it was
 *	not: a duplicate of it then tells how deep reordering goes
 * @frag_max: with MRC_TXP_FRAG, the most payload a packet could carry
 *	when this one was last sent in fragments: over IPv6 they were cut
 *	here, to the MTU of that time, and need sending again only once
 *	the MTU has fallen below it
 */
struct mrc_tx_pkt {
	struct mrc_tx_msg *msg;
	__u64 tx_ns;
	__u32 off;
	__u16 len;
	__u16 ev;
	__u8 flags;
	__u8 lost_depth;
	__u16 frag_max;
};

#define MRC_TXP_SACKED		0x01	/* the receiver has it */
#define MRC_TXP_LOST		0x02	/* to be retransmitted */
#define MRC_TXP_LOST_RTO	0x04	/* ... because of a timeout */
#define MRC_TXP_RETX		0x08	/* retransmitted at least once */
#define MRC_TXP_FRAG		0x10	/* last sent without DF: IP may
					 * fragment it on the way
					 */
#define MRC_TXP_LOST_MTU	0x20	/* lost: too large for the path */

/* The deepest gap lost_depth records. */
#define MRC_LOST_DEPTH_MAX	255

static inline bool mrc_sb_inflight(__u32 snd_una, __u32 snd_nxt, __u32 psn)
{
	return mrc_psn_diff(psn, snd_una) < mrc_psn_diff(snd_nxt, snd_una);
}

/**
 * mrc_sb_sacked() - a packet the receiver has: out of the flight and the
 * loss count
 * @e: its entry
 * @inflight: bytes in flight, less its own if it was counted there
 * @nr_lost: packets to retransmit, less one if it was among them
 *
 * Return: its length if this is news, else 0.
 */
static inline __u32 mrc_sb_sacked(struct mrc_tx_pkt *e, __u32 *inflight,
				  __u32 *nr_lost)
{
	if (e->flags & MRC_TXP_SACKED)
		return 0;
	if (e->flags & MRC_TXP_LOST)
		(*nr_lost)--;
	else
		*inflight -= e->len;
	e->flags = (e->flags & ~(MRC_TXP_LOST | MRC_TXP_LOST_RTO |
				 MRC_TXP_LOST_MTU)) |
		   MRC_TXP_SACKED;
	return e->len;
}

/* @psn was received: one past the highest PSN known received moves up. */
static inline void mrc_sb_received(__u32 *high_sacked, __u32 psn)
{
	__u32 next = mrc_psn_add(psn, 1);

	if (mrc_psn_sdiff(next, *high_sacked) > 0)
		*high_sacked = next;
}

/**
 * struct mrc_sb_loss - what decides that a packet below a SACK gap is lost
 * @now_ns: the time, on the clock of mrc_tx_pkt.tx_ns
 * @depth: PSNs received above it that still count as reordering
 * @srtt_us: the smoothed RTT
 * @max_rtt_us: the slowest path's recent RTT
 */
struct mrc_sb_loss {
	__u64 now_ns;
	__u32 depth;
	__u32 srtt_us;
	__u32 max_rtt_us;
};

/**
 * mrc_sb_losses() - take as lost what the SACKs passed over
 * @ring: the entries, MRC_WINDOW of them
 * @snd_una: the first PSN not acknowledged
 * @high_sacked: one past the highest PSN known received
 * @l: the rule's parameters
 * @inflight: bytes in flight, less those of the packets taken as lost
 * @nr_lost: packets to retransmit, plus those
 *
 * A packet neither received nor lost already is lost when more than
 * @l->depth PSNs above it were received, and it has been out long enough
 * for the answer to have come: a retransmission, two smoothed RTTs;
 * any packet, 1.5 times the slowest path's recent RTT, as sprayed packets
 * take paths of different delays and the slowest is overtaken.
 */
static inline void mrc_sb_losses(struct mrc_tx_pkt *ring, __u32 snd_una,
				 __u32 high_sacked,
				 const struct mrc_sb_loss *l,
				 __u32 *inflight, __u32 *nr_lost)
{
	__u32 psn, highest, srtt = l->srtt_us ? l->srtt_us : 1;
	int d;

	if (mrc_psn_sdiff(high_sacked, snd_una) <= 0)
		return;
	highest = mrc_psn_add(high_sacked, MRC_PSN_MASK);
	for (psn = snd_una; mrc_psn_sdiff(highest, psn) > (int)l->depth;
	     psn = mrc_psn_add(psn, 1)) {
		struct mrc_tx_pkt *e = &ring[psn % MRC_WINDOW];

		if (e->flags & (MRC_TXP_SACKED | MRC_TXP_LOST))
			continue;
		/* A retransmission gets a round trip before it is lost. */
		if (e->flags & MRC_TXP_RETX &&
		    l->now_ns - e->tx_ns < (__u64)srtt * 2 * 1000)
			continue;
		/* Sprayed packets take paths of different delays: one that
		 * later packets overtook is lost only once it has been out
		 * longer than the slowest path's recent RTT.
		 */
		if (l->now_ns - e->tx_ns <
		    (__u64)l->max_rtt_us * 3 / 2 * 1000)
			continue;
		e->flags |= MRC_TXP_LOST;
		d = mrc_psn_sdiff(highest, psn);
		e->lost_depth = d < MRC_LOST_DEPTH_MAX ? d : MRC_LOST_DEPTH_MAX;
		*inflight -= e->len;
		(*nr_lost)++;
	}
}

#endif /* _MRC_SACK_H */
