// SPDX-License-Identifier: GPL-2.0
/* Receive path: every UDP/4791 packet of a namespace arrives here.
 * Nothing in a packet is trusted: it is checked against its headers'
 * lengths before any field is read, its fields against each other and
 * the receive window before anything is allocated, and anything mrc
 * cannot use is counted by reason and dropped.
 *
 * Data is placed by its offset in the message as it arrives, page by
 * page; a bitmap of PSNs ahead of the next expected one gives SACKs and
 * duplicate detection, and messages complete for the reader in order.
 */
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/skbuff.h>
#include <linux/udp.h>
#include <net/inet_ecn.h>
#include <net/udp_tunnel.h>

#include <mrc/mrc.h>
#include <mrc/share.h>

/* Received packet facts the handlers need besides the mrc headers. */
struct mrc_rx_ctx {
	struct in6_addr saddr;
	struct mrc_local local;	/* destination address and link */
	u16 entropy;		/* UDP source port */
	bool ecn;		/* CE-marked */
	u8 dscp;		/* its codepoint, trimmed or not */
	int family;
	unsigned int off;	/* payload offset in the skb */
	unsigned int len;	/* payload length */
	unsigned int wire;	/* UDP payload length: headers and payload */
	/* enum skb_drop_reason when the packet was dropped before any
	 * queue pair took it, so that drop monitors see it; 0 otherwise
	 */
	u16 drop;
};

/**
 * mrc_control_tos() - the TOS byte of the transport's own packets
 * @mn: the namespace, whose dscp-control it is
 *
 * ACKs, SACKs, NACKs and probe responses go in the control class, not
 * ECN-capable: a switch must neither trim nor mark them.
 *
 * Return: dscp-control << 2.
 */
u8 mrc_control_tos(struct mrc_net *mn)
{
	u8 tos;

	rcu_read_lock();
	tos = mrc_cfg(mn)->dscp_control << 2;
	rcu_read_unlock();
	return tos;
}

/* Queues acknowledgment @a on @out; false if there was no memory. */
static bool mrc_rx_queue_ack(struct mrc_qp *qp, struct mrc_ack_hdr *a,
			     u16 sport, struct sk_buff_head *out)
{
	struct sk_buff *skb;
	enum mrc_stat s;
	int len;

	skb = mrc_alloc_skb(MRC_BTH_LEN + MRC_SETH_LEN + MRC_CCSTATE_LEN +
			    MRC_ITETH_LEN);
	if (!skb) {
		mrc_qp_stat_inc(qp, MRC_STAT_TX_ERRORS);
		return false;
	}
	/* The QP's tags, unless it echoes another (a challenge). */
	if (!a->tagged) {
		a->tagged = 1;
		a->tag_echo = qp->tags.peer;
	}
	a->tag = qp->tags.local;
	len = mrc_put_ack_hdr(skb->data, a);
	skb_put(skb, len);
	/* A challenge answers a packet not taken, which brought nothing
	 * to the cap: it is no larger than that packet, one a QP per
	 * MRC_CHALLENGE_GAP_MS, like a refusal without state.  Charged, a
	 * few forged starts would stop a new QP's first answer.
	 */
	if (qp->unvalidated &&
	    !(a->opcode == MRC_OP_NACK &&
	      a->reason == MRC_NACK_TAG_CHALLENGE))
		qp->amp_tx += len;
	/* Acknowledgments are control traffic (DSCP 46 by default, as
	 * the emulator).
	 */
	mrc_skb_set_sport(skb, sport, mrc_control_tos(qp->mn));
	__skb_queue_tail(out, skb);
	s = a->opcode == MRC_OP_ACK ? MRC_STAT_ACK_TX :
	    a->opcode == MRC_OP_SACK ? MRC_STAT_SACK_TX : MRC_STAT_NACK_TX;
	mrc_qp_stat_inc(qp, s);
	mrc_qp_mon(qp, a->opcode == MRC_OP_ACK ? MRC_MON_ACK_TX :
		   a->opcode == MRC_OP_SACK ? MRC_MON_SACK_TX : MRC_MON_NACK_TX,
		   sport, a->psn);
	/* A SACK tells all the receiver has; an ACK, only while nothing is
	 * held above a gap (else, as a window update, it leaves the
	 * arrivals it does not cover to the next SACK); a NACK, one PSN.
	 */
	if (a->opcode == MRC_OP_SACK ||
	    (a->opcode == MRC_OP_ACK && !qp->rx_held))
		qp->rx_unacked = 0;
	return true;
}

static u32 mrc_rx_cum(struct mrc_qp *qp)
{
	return mrc_psn_add(qp->rcv_nxt, MRC_PSN_MASK);
}

static void mrc_rx_send_ack(struct mrc_qp *qp, struct sk_buff_head *out)
{
	struct mrc_ack_hdr a = {
		.opcode = MRC_OP_ACK,
		.dport = qp->rport,
		.sport = qp->lport,
		.epoch = qp->rx_epoch,
		.psn = mrc_rx_cum(qp),
	};

	/* A cumulative ACK takes the rotation's next value, as data. */
	mrc_rx_queue_ack(qp, &a, mrc_peer_entropy(qp, false), out);
}

/* A SACK drawn by PSN @drew (sent at @ts, on value @ev): the cumulative
 * point and the bitmap of the 64 PSNs after it.
 */
static bool mrc_rx_queue_sack(struct mrc_qp *qp, u32 drew, u16 ts, u16 ev,
			      u8 flags, u8 cc_flags, struct sk_buff_head *out)
{
	struct mrc_ack_hdr a = {
		.opcode = MRC_OP_SACK,
		.flags = flags,
		.dport = qp->rport,
		.sport = qp->lport,
		.epoch = qp->rx_epoch,
		.psn = mrc_rx_cum(qp),
		.cc_flags = cc_flags,
		.entropy = ev,
		.sack_off = 1,
		.max_range = MRC_WINDOW / MRC_SETH_RANGE_UNIT,
		.ts_echo = ts,
		.ooo_count = min_t(u32, qp->rx_held, 0x7fff),
		.rcvd_256 = (qp->rx_bytes >> 8) & 0xffffff,
	};
	int d = mrc_psn_sdiff(drew, a.psn);

	a.acked_off = clamp(d, -32768, 32767);
	a.bitmap = mrc_rxwin_sack(qp->rx_bitmap, qp->rcv_nxt);
	return mrc_rx_queue_ack(qp, &a, ev, out);
}

static bool mrc_rx_send_sack(struct mrc_qp *qp, u32 drew, u16 ts, bool dup,
			     const struct mrc_rx_ctx *ctx,
			     struct sk_buff_head *out)
{
	u8 flags = 0;
	bool skip;

	/* ecn-skip: a CE mark steers as a trim does, so that routers that
	 * only mark ECN move load off their congested paths too.
	 */
	if (ctx->ecn) {
		rcu_read_lock();
		skip = mrc_cfg(qp->mn)->ecn_skip;
		rcu_read_unlock();
		if (skip) {
			flags = MRC_MARK_SKIP_ONCE << MRC_SETH_MARK_SHIFT;
			mrc_qp_stat_inc(qp, MRC_STAT_ECN_SKIP_TX);
		}
	}
	return mrc_rx_queue_sack(qp, drew, ts, ctx->entropy, flags,
				 (ctx->ecn ? MRC_CC_FLAG_ECN : 0) |
				 (dup ? MRC_CC_FLAG_DUP : 0), out);
}

/* The NACK of data packet @h, for @reason. */
static void mrc_nack_of(struct mrc_ack_hdr *a, const struct mrc_data_hdr *h,
			u8 reason, const struct mrc_rx_ctx *ctx)
{
	*a = (struct mrc_ack_hdr){
		.opcode = MRC_OP_NACK,
		.dport = h->sport,
		.sport = h->dport,
		.epoch = h->epoch,
		.psn = h->psn,
		.reason = reason,
		.entropy = ctx->entropy,
		.ts_echo = h->ts,
	};
}

static void mrc_rx_send_nack(struct mrc_qp *qp, const struct mrc_data_hdr *h,
			     u8 reason, const struct mrc_rx_ctx *ctx,
			     struct sk_buff_head *out)
{
	struct mrc_ack_hdr a;

	mrc_nack_of(&a, h, reason, ctx);
	mrc_rx_queue_ack(qp, &a, ctx->entropy, out);
}

/* Data no QP takes, answered without state: for a port no socket is
 * bound to, NACK 0x19 (@reason MRC_NACK_UNEXPECTED), and its sender fails
 * its QP (ECONNREFUSED) instead of retrying to its limit; for an
 * incarnation the socket has no QP of, NACK 0x0B (MRC_NACK_PSN_OOW),
 * and its sender, which lost its peer's state, resets (ECONNRESET); for
 * a QP there is no room for (its source's share, or a full table), NACK
 * 0x0A (MRC_NACK_NO_RESOURCE), and its sender waits and retries, to its
 * persist deadline, rather than time out unanswered; for a trimmed packet
 * of an incarnation this end does not know yet, the trim NACK.  No state
 * is kept for it, so the reply is rate-limited per namespace; and it is
 * no larger than the packet it answers.
 */
static void mrc_rx_refuse(struct mrc_net *mn, const struct mrc_data_hdr *h,
			  u8 reason, const struct mrc_rx_ctx *ctx)
{
	struct mrc_ack_hdr a;
	struct sk_buff *skb;

	if (!mrc_rate_admit(&mn->refuse_rate, MRC_REFUSE_PER_SEC))
		return;
	mrc_nack_of(&a, h, reason, ctx);
	/* No tag of ours: the sender's echoed, which only a receiver of
	 * its packet knows (include/mrc/tag.h).
	 */
	a.tagged = 1;
	a.tag_echo = h->tag;
	skb = mrc_alloc_skb(MRC_BTH_LEN + MRC_NETH_LEN + MRC_ITETH_LEN);
	if (!skb) {
		mrc_stat_inc(mn, MRC_STAT_TX_ERRORS);
		return;
	}
	skb_put(skb, mrc_put_ack_hdr(skb->data, &a));
	mrc_skb_set_sport(skb, ctx->entropy, mrc_control_tos(mn));
	mrc_stat_inc(mn, MRC_STAT_NACK_TX);
	/* From the address the data came to, which its sender knows. */
	mrc_xmit(mn, ctx->family, &ctx->local, &ctx->saddr, skb);
}

static void mrc_rx_reset(struct mrc_qp *qp, u16 epoch)
{
	mrc_qp_rx_purge(qp);
	mrc_rxwin_reset(qp->rx_bitmap);
	qp->rx_prev_epoch = qp->rx_open ? qp->rx_epoch : 0;
	/* Both read under RCU alone by mrc_superseded_qp(). */
	WRITE_ONCE(qp->rx_epoch, epoch);
	WRITE_ONCE(qp->rx_open, true);
	qp->rcv_nxt = 0;
	qp->rcv_msn = 0;
	qp->rx_held = 0;
	qp->rx_unacked = 0;
	qp->rx_ackreq = MRC_PSN_MASK;
	qp->rx_bytes = 0;
	qp->rx_placed = 0;
}

/* How long a sender with a message half sent may place nothing, or one
 * called in line may take to come: twice the longest backoff of its
 * retransmission timer (rto, if longer than MRC_RTO_MAX_US, is the
 * longest), assuming its rto is ours.
 */
static unsigned long mrc_rx_stall(struct mrc_net *mn)
{
	u32 rto_us;

	rcu_read_lock();
	rto_us = max_t(u32, mrc_cfg(mn)->rto_us, MRC_RTO_MAX_US);
	rcu_read_unlock();
	return usecs_to_jiffies(2 * rto_us);
}

/* Sharing a socket's room (include/mrc/share.h has the rules): a QP
 * refused data for want of room takes its place at the back of its
 * socket's line (rx_waiters), for that message (rx_turn_msn); as room
 * comes back, the first in line are called (rx_called), each granted
 * room for what the message wants (rx_grant, summed in rx_reserved) and
 * sent a window update.  Its turn ends when the message is complete, or
 * its grant spent; a grant not used in time lapses, so that a peer gone
 * silent keeps nothing: mrc_rx_stall().  Only a peer that echoed a tag
 * of ours waits in line: a forger could fill it, each called in turn.
 */

/* Under the share lock: @qp leaves the line, its grant given back. */
static void mrc_rx_turn_end(struct mrc_sock *ms, struct mrc_qp *qp)
{
	if (list_empty(&qp->rx_turn))
		return;
	list_del_init(&qp->rx_turn);
	ms->rx_reserved -= qp->rx_grant;
	WRITE_ONCE(qp->rx_grant, 0);
	WRITE_ONCE(ms->rx_nturn, ms->rx_nturn - 1);
}

/**
 * mrc_qp_rx_turn_end() - take a QP out of its socket's line for room
 * @qp: the queue pair, locked: its receive side is purged
 *
 * Context: softirq, or BHs off.
 */
void mrc_qp_rx_turn_end(struct mrc_qp *qp)
{
	struct mrc_sock *ms = qp->ms;

	spin_lock(&ms->rx_share_lock);
	mrc_rx_turn_end(ms, qp);
	spin_unlock(&ms->rx_share_lock);
}

/* Under the QP's lock: message @msn refused for the QP's own share (its
 * partial messages hold it): a turn for that message ends, as room kept
 * for it would wait unused; a turn for another goes on (completing
 * that one is what frees the share).  Whether it ended one.
 */
static bool mrc_rx_turn_quit(struct mrc_qp *qp, u16 msn)
{
	struct mrc_sock *ms = qp->ms;
	bool quit;

	spin_lock(&ms->rx_share_lock);
	quit = !list_empty(&qp->rx_turn) && qp->rx_turn_msn == msn;
	if (quit)
		mrc_rx_turn_end(ms, qp);
	spin_unlock(&ms->rx_share_lock);
	return quit;
}

/* Under the share lock: call @qp, first in line: room for what its
 * message wants is kept for it until @end.
 */
static void mrc_rx_turn_call(struct mrc_sock *ms, struct mrc_qp *qp,
			     unsigned long end)
{
	list_move_tail(&qp->rx_turn, &ms->rx_called);
	WRITE_ONCE(qp->rx_grant, qp->rx_want);
	ms->rx_reserved += qp->rx_want;
	qp->rx_grant_end = end;
	qp->rx_grant_seq = ++ms->rx_call_seq;
}

/* Whether message @msn is after @ref. */
static bool mrc_msn_after(u16 msn, u16 ref)
{
	return (s16)(msn - ref) > 0;
}

/* Under the QP's lock: whether @n bytes of message @m (number @msn) of
 * @qp may be charged against @rcvbuf (mrc_share_ask()).
 */
static enum mrc_share_verdict mrc_rx_share(struct mrc_qp *qp,
					   struct mrc_rx_msg *m, u16 msn,
					   u32 n, u32 rcvbuf)
{
	bool past = m->charge || (msn == qp->rcv_msn && qp->rx_partial);
	struct mrc_sock *ms = qp->ms;
	enum mrc_share_verdict v;
	bool behind, mine;
	u32 grant;

	/* Nobody in line or called, hence nothing kept: no lock.  One
	 * that joins meanwhile may see a page a CPU go to another first.
	 */
	if (!READ_ONCE(ms->rx_nturn))
		return atomic64_read(&ms->rx_mem) + n <= rcvbuf ?
		       MRC_SHARE_OK : MRC_SHARE_TURN;
	spin_lock(&ms->rx_share_lock);
	if (qp->rx_grant && time_after(jiffies, qp->rx_grant_end))
		mrc_rx_turn_end(ms, qp);
	mine = !list_empty(&qp->rx_turn) &&
	       (msn == qp->rx_turn_msn || msn == qp->rcv_msn);
	grant = mine ? qp->rx_grant : 0;
	behind = !list_empty(&ms->rx_waiters) &&
		 list_first_entry(&ms->rx_waiters, struct mrc_qp,
				  rx_turn) != qp;
	v = mrc_share_ask(&grant, n, atomic64_read(&ms->rx_mem),
			  ms->rx_reserved, rcvbuf, behind, past);
	if (mine && qp->rx_grant) {
		ms->rx_reserved -= qp->rx_grant - grant;
		WRITE_ONCE(qp->rx_grant, grant);
		if (!grant)
			mrc_rx_turn_end(ms, qp);
	}
	spin_unlock(&ms->rx_share_lock);
	return v;
}

/* Under the share lock, @qp just in line: called at once if it is first
 * and the room it wants is there (the reader may have freed it just
 * now, finding nobody in line to call: the barrier pairs with
 * mrc_sock_rx_room()'s, so that either it sees @qp in line or this sees
 * the room it freed).  Whether it was called.
 */
static bool mrc_rx_turn_try_call(struct mrc_sock *ms, struct mrc_qp *qp,
				 u32 rcvbuf)
{
	/* Pairs with mrc_sock_rx_room()'s (see above). */
	smp_mb();
	if (list_first_entry(&ms->rx_waiters, struct mrc_qp, rx_turn) != qp ||
	    !mrc_share_may_call(atomic64_read(&ms->rx_mem), qp->rx_want,
				ms->rx_reserved, rcvbuf))
		return false;
	mrc_rx_turn_call(ms, qp, jiffies + mrc_rx_stall(qp->mn));
	return true;
}

/* Under the QP's lock, message @msn refused for want of room: the QP
 * goes to the back of the line for it, wanting @want (a grant it held
 * for it, too small, given back), or keeps its place.  Refused while
 * called for another message, it keeps that grant: this one waits for
 * the other to complete (mrc_rx_turn_next()).  Whether the QP is first
 * in line and the room it wants is there now (the reader freed some
 * since the refusal, and found nobody in line to call): then it is
 * called at once, and owes its peer a window update.
 */
static bool mrc_rx_turn_wait(struct mrc_qp *qp, u16 msn, u32 want,
			     u32 rcvbuf)
{
	struct mrc_sock *ms = qp->ms;
	bool call = false;

	spin_lock(&ms->rx_share_lock);
	/* An earlier message refused while the QP is in line for a later
	 * one: the later cannot be read before it, so the turn is its.
	 */
	if (!list_empty(&qp->rx_turn) && mrc_msn_after(qp->rx_turn_msn, msn)) {
		qp->rx_turn_msn = msn;
		qp->rx_want = want;
		/* Called already, and told: told again, or the sender
		 * waits for its timer while the room waits for it.  A
		 * grant too small for this one goes back, and the QP to
		 * the back of the line.
		 */
		if (qp->rx_grant >= want) {
			qp->rx_grant_end = jiffies + mrc_rx_stall(qp->mn);
			call = true;
			goto out;
		}
		if (qp->rx_grant)
			mrc_rx_turn_end(ms, qp);
	}
	if (qp->rx_grant) {
		if (msn != qp->rx_turn_msn)
			goto out;
		mrc_rx_turn_end(ms, qp);
	}
	if (list_empty(&qp->rx_turn)) {
		list_add_tail(&qp->rx_turn, &ms->rx_waiters);
		WRITE_ONCE(ms->rx_nturn, ms->rx_nturn + 1);
		qp->rx_turn_msn = msn;
		qp->rx_want = want;
	} else if (msn == qp->rx_turn_msn) {
		qp->rx_want = want;
	}
	call = mrc_rx_turn_try_call(ms, qp, rcvbuf);
out:
	spin_unlock(&ms->rx_share_lock);
	return call;
}

/* Under the QP's lock, its messages up to rcv_msn complete: a turn for
 * one of them ends; if a later one was refused for room meanwhile, the
 * QP takes its place at the back of the line for the next, for a
 * window update (a page and a struct wanted: its length is not known
 * here).
 */
static void mrc_rx_turn_next(struct mrc_qp *qp)
{
	struct mrc_sock *ms = qp->ms;
	u32 rcvbuf;

	if (list_empty_careful(&qp->rx_turn) && !qp->rx_starved)
		return;
	rcvbuf = READ_ONCE(mrc_to_sk(ms)->sk_rcvbuf);
	spin_lock(&ms->rx_share_lock);
	if (!list_empty(&qp->rx_turn) &&
	    mrc_msn_after(qp->rcv_msn, qp->rx_turn_msn))
		mrc_rx_turn_end(ms, qp);
	if (qp->rx_starved && list_empty(&qp->rx_turn)) {
		if (mrc_msn_after(qp->rcv_msn, qp->rx_refused_msn)) {
			qp->rx_starved = false;
		} else {
			list_add_tail(&qp->rx_turn, &ms->rx_waiters);
			WRITE_ONCE(ms->rx_nturn, ms->rx_nturn + 1);
			qp->rx_turn_msn = qp->rcv_msn;
			qp->rx_want = mrc_share_want(PAGE_SIZE, 0, rcvbuf,
						     PAGE_SIZE,
						     sizeof(struct mrc_rx_msg));
			/* Called at once, the acknowledgment of the message
			 * just complete, which its sender takes for room,
			 * tells it.
			 */
			if (mrc_rx_turn_try_call(ms, qp, rcvbuf)) {
				qp->rx_starved = false;
				qp->rx_wait = false;
			}
		}
	}
	spin_unlock(&ms->rx_share_lock);
}

/* Charge @n more bytes of message @m (number @msn) to its socket and its
 * QP (locked), if there is room.  Room is the socket's SO_RCVBUF, shared
 * in turn among the QPs refused for it (mrc_rx_share()), of which one
 * QP's partial messages may hold three quarters at most, so that one
 * peer (or one forging the address of one) always leaves room to the
 * others; or the socket's single place beyond it, for the message next
 * in order of its QP, so that a message larger than SO_RCVBUF can
 * arrive at all.  A message is charged as its pages are placed, not for
 * the length it declares: a first packet declaring 64 MiB takes what it
 * carries.
 *
 * Return: 0; -ENOBUFS, no room at the socket: the QP takes its place in
 * line, for a window update; -ENOSPC, refused by the protocol's limits,
 * or -EDQUOT, its QP's partial messages hold their share: room kept for
 * it at the socket would not end these, and its sender's timer asks
 * again.
 */
static int mrc_rx_charge(struct mrc_qp *qp, struct mrc_rx_msg *m, u16 msn,
			 u32 n)
{
	struct mrc_sock *ms = qp->ms;
	u32 rcvbuf = READ_ONCE(mrc_to_sk(ms)->sk_rcvbuf);

	/* The protocol's limits first, for all sockets together.  Under
	 * pressure, a message next in order goes on once started (charged
	 * for its struct), so that a new queue pair's first, a forger's
	 * say, does not; or, unstarted, when later ones of its QP hold
	 * memory already: they wait for it (its first packet was lost,
	 * say), and what they hold goes only once it is read.
	 */
	if (!mrc_rx_mem_allow(ms, n, msn == qp->rcv_msn &&
			      (m->charge || qp->rx_partial))) {
		mrc_qp_stat_inc(qp, MRC_STAT_RX_DROP_PROTO_MEM);
		return -ENOSPC;
	}
	if (!m->over) {
		bool own = qp->rx_charge + n > rcvbuf - rcvbuf / 4;
		enum mrc_share_verdict v = MRC_SHARE_TURN;
		int err = own ? -EDQUOT : -ENOBUFS;

		if (!own)
			v = mrc_rx_share(qp, m, msn, n, rcvbuf);
		if (v == MRC_SHARE_OK)
			goto charge;
		if (v == MRC_SHARE_WAIT || msn != qp->rcv_msn)
			return err;
		if (atomic_cmpxchg(&ms->rx_over, 0, 1)) {
			/* Its holder must keep up (mrc_qp_rx_evict()). */
			atomic_set(&ms->rx_over_wanted, 1);
			return err;
		}
		atomic_set(&ms->rx_over_wanted, 0);
		m->over = true;
		m->over_since = jiffies;
		m->over_base = m->rcvd;
	}
charge:
	m->charge += n;
	qp->rx_charge += n;
	mrc_rx_mem_add(ms, n);
	return 0;
}

static void mrc_rx_uncharge(struct mrc_qp *qp, struct mrc_rx_msg *m, u32 n)
{
	m->charge -= n;
	qp->rx_charge -= n;
	mrc_rx_mem_sub(qp->ms, n);
}

/* Copy @len payload bytes to @m at @off, allocating (and charging) pages
 * as needed.  A page is zeroed unless this packet fills it whole:
 * whatever a sender does, the reader never sees memory that was not
 * written (a page no packet touched reads as zeros, see mrc_copy_msg()).
 * Pages placed before a failure stay, charged: a retransmission finds
 * them.  Return: 0, or mrc_rx_charge()'s errors, -ENOMEM for a page
 * not allocated or -EFAULT.
 */
static int mrc_rx_place(struct mrc_qp *qp, struct mrc_rx_msg *m, u16 msn,
			struct sk_buff *skb, unsigned int skb_off, u32 off,
			u32 len)
{
	while (len) {
		unsigned long idx = off >> PAGE_SHIFT;
		u32 poff = off & ~PAGE_MASK;
		u32 n = min_t(u32, PAGE_SIZE - poff, len);
		struct page *page = xa_load(&m->pages, idx);
		bool fresh = !page;

		if (fresh) {
			int err = mrc_rx_charge(qp, m, msn, PAGE_SIZE);

			if (err)
				return err;
			page = alloc_page(GFP_ATOMIC | __GFP_NOWARN |
					  (n < PAGE_SIZE ? __GFP_ZERO : 0));
			if (!page)
				goto uncharge;
			if (xa_err(xa_store(&m->pages, idx, page, GFP_ATOMIC))) {
				__free_page(page);
				goto uncharge;
			}
		}
		if (skb_copy_bits(skb, skb_off, page_address(page) + poff, n)) {
			if (fresh) {
				xa_erase(&m->pages, idx);
				__free_page(page);
				mrc_rx_uncharge(qp, m, PAGE_SIZE);
			}
			return -EFAULT;
		}
		skb_off += n;
		off += n;
		len -= n;
	}
	return 0;

uncharge:
	mrc_rx_uncharge(qp, m, PAGE_SIZE);
	return -ENOMEM;
}

static void mrc_rx_note_ooo(struct mrc_qp *qp)
{
	struct mrc_net *mn = qp->mn;
	s64 max = atomic64_read(&mn->max_reorder);

	mrc_qp_stat_inc(qp, MRC_STAT_OOO_EVENTS);
	mrc_qp_stat_add(qp, MRC_STAT_REORDER_DEPTH_SUM, qp->rx_held);
	if (qp->rx_held > qp->stats[MRC_STAT_CALC_MAX_REORDER_DEPTH])
		qp->stats[MRC_STAT_CALC_MAX_REORDER_DEPTH] = qp->rx_held;
	while (qp->rx_held > max) {
		s64 old = atomic64_cmpxchg(&mn->max_reorder, max, qp->rx_held);

		if (old == max)
			break;
		max = old;
	}
}

static void mrc_rx_complete(struct mrc_qp *qp)
{
	u16 msn = qp->rcv_msn;

	for (;;) {
		struct mrc_rx_msg **slot = &qp->rx_slots[qp->rcv_msn %
							 MRC_WINDOW];
		struct mrc_rx_msg *m = *slot;

		if (!m || m->rcvd < m->len)
			break;
		*slot = NULL;
		qp->rx_partial--;
		/* The socket keeps its charge until it is read. */
		qp->rx_charge -= m->charge;
		qp->rcv_msn++;
		/* Weak proof: a blind sender can complete a message too,
		 * but one that never does is evicted first.
		 */
		qp->rx_delivered = true;
		mrc_qp_stat_inc(qp, MRC_STAT_RX_MSGS);
		if (qp->unvalidated &&
		    atomic_inc_return(&qp->ms->amp_pinned) <=
		    mrc_amp_pinned_max()) {
			refcount_inc(&qp->ref);
			atomic_inc(&qp->amp_unread);
			m->amp_qp = qp;
		} else if (qp->unvalidated) {
			/* Beyond the bound its reply may find the QP gone
			 * and go through a new one, uncapped.
			 */
			atomic_dec(&qp->ms->amp_pinned);
		}
		mrc_sock_deliver(qp->ms, m);
	}
	if (msn != qp->rcv_msn)
		mrc_rx_turn_next(qp);
}

/* What mrc_rx_ack_now() decided; beyond the bitmap is told apart, for
 * sack_beyond_tx.
 */
enum mrc_rx_ack {
	MRC_RX_ACK_HOLD,
	MRC_RX_ACK_NOW,
	MRC_RX_ACK_BEYOND,
};

/* Whether data packet @h, just placed, is acknowledged at once (NOW or
 * BEYOND, the latter when only its place beyond the bitmap asks for it)
 * or held back (HOLD).  To
 * acknowledge every packet would double the packets a fabric carries,
 * so one acknowledgment covers up to MRC_ACK_EVERY arrivals, except
 * where the sender may be waiting for it: at or below a PSN that asked
 * for one (the sender asks where its message, its congestion window or
 * its PSN window ends; a packet the one that asked overtook, say the
 * one whose arrival moves the cumulative point, must not wait either),
 * beyond what the SACK bitmap holds, and for a congestion mark.  Not
 * when a gap closes: over paths of different delays every arrival on
 * the slowest one does, and earlier SACKs told the sender of the PSNs
 * held above it.  A timer acknowledges the rest.
 */
static enum mrc_rx_ack mrc_rx_ack_now(const struct mrc_qp *qp,
				      const struct mrc_data_hdr *h,
				      const struct mrc_rx_ctx *ctx)
{
	if (qp->rx_unacked >= MRC_ACK_EVERY || ctx->ecn ||
	    mrc_psn_sdiff(qp->rx_ackreq, h->psn) >= 0)
		return MRC_RX_ACK_NOW;
	if (mrc_psn_sdiff(h->psn, qp->rcv_nxt) >= MRC_SACK_BITS)
		return MRC_RX_ACK_BEYOND;
	return MRC_RX_ACK_HOLD;
}

/* How long an arrival may wait for its acknowledgment: well inside the
 * sender's retransmission timeout.
 */
static ktime_t mrc_rx_delack(const struct mrc_qp *qp)
{
	u32 rto_us;

	rcu_read_lock();
	rto_us = mrc_cfg(qp->mn)->rto_us;
	rcu_read_unlock();
	return ns_to_ktime((u64)clamp(rto_us / 8, 10U, MRC_DELACK_MAX_US) *
			   NSEC_PER_USEC);
}

/**
 * mrc_ack_fire() - the delayed acknowledgment of a queue pair
 * @t: its timer
 *
 * Runs in softirq context: a SACK for the arrivals no acknowledgment
 * has covered yet, flagged so that the sender takes no RTT sample from
 * it (it waited here).
 *
 * Return: HRTIMER_NORESTART; an arrival held back restarts it.
 */
enum hrtimer_restart mrc_ack_fire(struct hrtimer *t)
{
	struct mrc_qp *qp = container_of(t, struct mrc_qp, ack_timer);
	bool sent = false;

	spin_lock(&qp->lock);
	if (!qp->dead && qp->rx_open && qp->rx_unacked &&
	    !hrtimer_is_queued(t) &&
	    mrc_rx_queue_sack(qp, qp->rx_last_psn, qp->rx_last_ts,
			      qp->rx_last_ev, 0, MRC_CC_FLAG_DELAYED,
			      &qp->xq)) {
		mrc_qp_stat_inc(qp, MRC_STAT_ACK_DELAYED_TX);
		sent = true;
	}
	spin_unlock(&qp->lock);
	if (sent)
		mrc_qp_flush(qp);
	return HRTIMER_NORESTART;
}

/* Whether data packet @h may start an incarnation of its direction: it
 * says it is sent before its sender heard from us (the start flag), and
 * lies in the epoch's first window, its message no later than its PSN
 * (each message takes one PSN at least, from 0).  Nothing else may open
 * a QP: any other packet to a QP that does not exist is of an
 * incarnation that ended here (or never began), and allocating for it
 * would let every packet of a flood, of any kind, cost a QP.
 */
static bool mrc_rx_may_start(const struct mrc_data_hdr *h)
{
	return h->flags & MRC_BTH_START && h->psn < MRC_WINDOW &&
	       h->msn <= h->psn;
}

/* What mrc_rx_tags() found of a data packet. */
enum mrc_rx_tag_action {
	MRC_RX_TAG_TAKE,	/* the peer's: on to mrc_qp_rx_data() */
	MRC_RX_TAG_DROP,	/* counted, answered if need be */
	MRC_RX_TAG_REFUSE,	/* counted: refuse it as if no QP were here */
};

/* Under the QP's lock: whether data packet @h is its peer's, by its
 * tags (include/mrc/tag.h).  A proven new incarnation of the peer (a
 * restarted process that echoes our tag) starts the direction anew:
 * what it sends next must start an incarnation.  One that would start a
 * new incarnation unproven, over a live one, is dropped and challenged:
 * NACK 0x1A to its source, with our tag for it to echo (one a QP per
 * MRC_CHALLENGE_GAP_MS); a blind forger never sees it.  Any other packet not the
 * peer's is refused as if there were no QP (NACK 0x0B without state),
 * so that a peer that lost our QP still learns it at once.
 */
static enum mrc_rx_tag_action mrc_rx_tags(struct mrc_qp *qp,
					  const struct mrc_data_hdr *h,
					  const struct mrc_rx_ctx *ctx,
					  struct sk_buff_head *out)
{
	struct mrc_ack_hdr a;

	switch (mrc_tag_data(&qp->tags, h->tag, h->tag_echo,
			     mrc_rx_may_start(h))) {
	case MRC_TAG_OK:
		return MRC_RX_TAG_TAKE;
	case MRC_TAG_NEW_PEER:
		mrc_qp_stat_inc(qp, MRC_STAT_QP_REINCARNATED);
		mrc_qp_rx_purge(qp);
		WRITE_ONCE(qp->rx_open, false);
		return MRC_RX_TAG_TAKE;
	case MRC_TAG_CHALLENGE:
		mrc_qp_stat_inc(qp, MRC_STAT_RX_DROP_BLIND_RESET);
		/* The QP's own limit, not the namespace's refusals': a flood
		 * of those must not keep a restarted peer out, nor tell by
		 * their number which QPs exist.
		 */
		if (jiffies - qp->chal_last >= mrc_challenge_gap()) {
			qp->chal_last = jiffies;
			mrc_nack_of(&a, h, MRC_NACK_TAG_CHALLENGE, ctx);
			a.tagged = 1;
			a.tag_echo = h->tag;
			mrc_rx_queue_ack(qp, &a, ctx->entropy, out);
		}
		return MRC_RX_TAG_DROP;
	default:
		mrc_qp_stat_inc(qp, MRC_STAT_RX_DROP_BAD_TAG);
		return MRC_RX_TAG_REFUSE;
	}
}

static void mrc_qp_rx_data(struct mrc_qp *qp, const struct mrc_data_hdr *h,
			   struct sk_buff *skb, const struct mrc_rx_ctx *ctx,
			   struct sk_buff_head *out)
{
	bool closing = READ_ONCE(qp->ms->closing);
	struct mrc_rx_msg *m, **slot;
	enum mrc_rxwin_verdict v;
	enum mrc_rx_ack ack;
	u32 rcvbuf, want;
	bool ooo;
	int err;

	/* What a closed socket refuses does not keep it lingering. */
	if (!closing)
		qp->last_rx = jiffies;
	if (!qp->rx_open || h->epoch != qp->rx_epoch) {
		/* A stale packet of the direction's last epoch, or one that
		 * cannot be the start of a new one: beyond its first window,
		 * or sent after the epoch's start was acknowledged, to a QP
		 * (or socket) that has since gone.
		 */
		if ((qp->rx_open && h->epoch == qp->rx_prev_epoch) ||
		    h->psn >= MRC_WINDOW || !(h->flags & MRC_BTH_START)) {
			mrc_qp_stat_inc(qp, MRC_STAT_RX_DROP_OUT_OF_WINDOW);
			if (h->epoch != qp->rx_prev_epoch)
				mrc_rx_send_nack(qp, h, MRC_NACK_PSN_OOW, ctx,
						 out);
			return;
		}
		if (closing)
			goto refuse;
		mrc_rx_reset(qp, h->epoch);
	}

	v = mrc_rxwin_check(qp->rx_bitmap, qp->rcv_nxt, h->psn);
	if (v == MRC_RXWIN_AHEAD) {
		mrc_qp_stat_inc(qp, MRC_STAT_RX_DROP_OUT_OF_WINDOW);
		mrc_rx_send_nack(qp, h, MRC_NACK_PSN_OOW, ctx, out);
		return;
	}
	if (v != MRC_RXWIN_NEW) {
		/* Received already, in the window or behind it (and
		 * acknowledged).  The SACK names it, so that a sender
		 * learns its retransmission was not needed.
		 */
		mrc_qp_stat_inc(qp, MRC_STAT_RX_DUP_PACKETS);
		mrc_rx_send_sack(qp, h->psn, h->ts, true, ctx, out);
		qp->last_rx = jiffies;
		return;
	}
	/* A closed socket still acknowledges what it took, above, so
	 * that a lost ACK fails no sender; anything new is refused.
	 */
	if (closing)
		goto refuse;
	if ((u16)(h->msn - qp->rcv_msn) >= MRC_WINDOW) {
		mrc_qp_stat_inc(qp, MRC_STAT_RX_DROP_OUT_OF_WINDOW);
		return;
	}

	slot = &qp->rx_slots[h->msn % MRC_WINDOW];
	m = *slot;
	if (!m) {
		struct mrc_rx_msg probe = {};

		/* The message's own struct is charged as its pages are. */
		err = mrc_rx_charge(qp, &probe, h->msn, sizeof(*m));
		if (err)
			goto no_mem;
		m = kzalloc(sizeof(*m), GFP_ATOMIC | __GFP_NOWARN);
		if (!m) {
			mrc_rx_uncharge(qp, &probe, sizeof(*m));
			if (probe.over)
				atomic_set(&qp->ms->rx_over, 0);
			err = -ENOMEM;
			goto no_mem;
		}
		xa_init(&m->pages);
		m->len = h->msg_len;
		m->saddr = qp->raddr;
		m->ifindex = qp->local.ifindex;
		m->sport = qp->rport;
		m->charge = probe.charge;
		m->over = probe.over;
		m->over_since = probe.over_since;
		*slot = m;
		qp->rx_partial++;
	} else if (m->len != h->msg_len) {
		mrc_qp_stat_inc(qp, MRC_STAT_RX_DROP_MALFORMED);
		return;
	}

	err = mrc_rx_place(qp, m, h->msn, skb, ctx->off, h->offset,
			   ctx->len);
	if (err)
		goto no_mem;
	m->rcvd += ctx->len;
	qp->rx_progress = jiffies;
	qp->rx_fresh = jiffies;
	qp->rx_wait = false;
	if (qp->rx_placed < U32_MAX)
		qp->rx_placed++;

	mrc_qp_stat_inc(qp, MRC_STAT_RX_DATA_PACKETS);
	mrc_qp_mon(qp, MRC_MON_DATA_RX, ctx->entropy, h->psn);
	qp->rx_bytes += ctx->len;
	mrc_rxwin_mark(qp->rx_bitmap, h->psn);
	qp->rx_held++;
	ooo = h->psn != qp->rcv_nxt;
	if (ooo && !(h->flags & MRC_BTH_RETX))
		mrc_rx_note_ooo(qp);
	/* The highest PSN that asked for an acknowledgment, while ahead. */
	if (mrc_psn_sdiff(qp->rx_ackreq, qp->rcv_nxt) < 0)
		qp->rx_ackreq = mrc_rx_cum(qp);
	if (h->flags & MRC_BTH_ACKREQ &&
	    mrc_psn_sdiff(h->psn, qp->rx_ackreq) > 0)
		qp->rx_ackreq = h->psn;
	qp->rx_held -= mrc_rxwin_advance(qp->rx_bitmap, &qp->rcv_nxt);
	mrc_rx_complete(qp);

	qp->rx_unacked++;
	ack = mrc_rx_ack_now(qp, h, ctx);
	if (ack != MRC_RX_ACK_HOLD) {
		/* Beyond the bitmap is out of order: always a SACK. */
		if (ooo || qp->rx_held || ctx->ecn ||
		    h->flags & MRC_BTH_ACKREQ) {
			if (mrc_rx_send_sack(qp, h->psn, h->ts, false, ctx,
					     out) &&
			    ack == MRC_RX_ACK_BEYOND)
				mrc_qp_stat_inc(qp, MRC_STAT_SACK_BEYOND_TX);
		} else {
			mrc_rx_send_ack(qp, out);
		}
		return;
	}
	/* Held back: the next acknowledgment covers it, or the timer. */
	qp->rx_last_psn = h->psn;
	qp->rx_last_ts = h->ts;
	qp->rx_last_ev = ctx->entropy;
	/* From the first arrival held; or from this one if none is armed
	 * (an acknowledgment found no memory).
	 */
	if ((qp->rx_unacked == 1 || !hrtimer_is_queued(&qp->ack_timer)) &&
	    !qp->dead)
		hrtimer_start(&qp->ack_timer, mrc_rx_delack(qp),
			      HRTIMER_MODE_REL_SOFT);
	return;

no_mem:
	mrc_qp_stat_inc(qp, MRC_STAT_RX_DROP_NO_MEM);
	/* Refused its next message in order: the sender waits for us
	 * now, and its silence until room comes back says nothing of it
	 * (see mrc_qp_rx_evict()).  Not for a later message: one whose
	 * next is stuck could keep any partial message alive so.
	 */
	if (h->msn == qp->rcv_msn)
		qp->rx_progress = jiffies;
	mrc_rx_send_nack(qp, h, MRC_NACK_NO_PKT_BUFFER, ctx, out);
	if (err != -ENOBUFS || qp->unvalidated) {
		/* Refused by the protocol's limits, for its own share, or
		 * no page or struct to be had: the sender's timer asks
		 * again.  Room kept for it would wait unused meanwhile.
		 * So for a peer that never echoed a tag of ours: a forger
		 * could fill the line with such, each called in turn and
		 * keeping room it never uses; a real one echoes our tag
		 * from its resend on (the NACK carries it).  Taken out of
		 * line, a QP is owed nothing: its partial messages may
		 * stall again (mrc_qp_rx_evict()).
		 */
		if (err == -EDQUOT && mrc_rx_turn_quit(qp, h->msn))
			qp->rx_wait = false;
		return;
	}
	/* Waiting in line, it is owed a window update: until then its
	 * partial messages are not stalled (mrc_qp_rx_evict()).  Not so
	 * for the others: an honest sender's timer asks again well
	 * within mrc_rx_stall().
	 */
	if (h->msn == qp->rcv_msn)
		qp->rx_wait = true;
	/* Refused for want of room at the socket.  A message refused its
	 * first bytes keeps nothing: its struct, charged, would hold room
	 * that others in line are called for.
	 */
	m = *slot;
	if (m && !m->rcvd && xa_empty(&m->pages)) {
		*slot = NULL;
		qp->rx_partial--;
		mrc_rx_uncharge(qp, m, m->charge);
		mrc_rx_msg_free(qp->ms, m);
		m = NULL;
	}
	/* Its place in line, for a window update; at once if room came
	 * back since and nobody is before it.
	 */
	rcvbuf = READ_ONCE(mrc_to_sk(qp->ms)->sk_rcvbuf);
	if (!qp->rx_starved || mrc_msn_after(h->msn, qp->rx_refused_msn))
		qp->rx_refused_msn = h->msn;
	qp->rx_starved = true;
	want = m ? mrc_share_want(m->len, m->charge, rcvbuf, PAGE_SIZE,
				  sizeof(*m)) :
		   mrc_share_want(h->msg_len, 0, rcvbuf, PAGE_SIZE,
				  sizeof(*m));
	if (mrc_rx_turn_wait(qp, h->msn, want, rcvbuf)) {
		qp->rx_starved = false;
		qp->rx_wait = false;
		mrc_rx_send_ack(qp, out);
	}
	return;

refuse:
	mrc_qp_stat_inc(qp, MRC_STAT_RX_DROP_NO_QP);
	mrc_rx_send_nack(qp, h, MRC_NACK_UNEXPECTED, ctx, out);
}

/* A data packet a switch trimmed (its codepoint says so): nothing of it
 * is placed, and its sender is told at once with a NACK carrying its PSN
 * and entropy value, so that it resends the PSN without waiting for a
 * timer and, if it was trimmed on the way, passes over that value once.
 * The queue pair is looked up, never opened: a trimmed packet proves
 * nothing.  With none for this incarnation yet (its first packets were
 * trimmed), the NACK is sent as a refusal is, from no state.
 */
static void mrc_rx_trimmed(struct mrc_net *mn, struct sk_buff *skb,
			   const struct mrc_data_hdr *h, u8 reason,
			   struct mrc_rx_ctx *ctx)
{
	struct mrc_sock *ms;
	struct mrc_qp *qp;

	if (!mrc_data_fields_ok(h, 0, mrc_cfg(mn)->max_msg_size, true)) {
		mrc_stat_inc(mn, MRC_STAT_RX_DROP_MALFORMED);
		ctx->drop = SKB_DROP_REASON_NOT_SPECIFIED;
		return;
	}
	/* A switch cuts the payload, never the headers: no tag, no mrc. */
	if (!h->tag) {
		mrc_stat_inc(mn, MRC_STAT_RX_TRIMMED);
		mrc_stat_inc(mn, MRC_STAT_RX_DROP_BAD_TAG);
		ctx->drop = SKB_DROP_REASON_NOT_SPECIFIED;
		return;
	}
	/* Every trimmed packet is counted, whatever becomes of it: what
	 * the fabric trimmed on its way here.  In the QP's counters too
	 * when it has one.
	 */
	ms = mrc_sock_lookup(mn, ctx->family, h->dport, &ctx->local);
	if (!ms) {
		mrc_stat_inc(mn, MRC_STAT_RX_TRIMMED);
		mrc_stat_inc(mn, MRC_STAT_RX_DROP_NO_QP);
		ctx->drop = SKB_DROP_REASON_NO_SOCKET;
		mrc_rx_refuse(mn, h, MRC_NACK_UNEXPECTED, ctx);
		return;
	}
	if (mrc_sock_filter(ms, skb)) {
		mrc_stat_inc(mn, MRC_STAT_RX_TRIMMED);
		mrc_stat_inc(mn, MRC_STAT_RX_DROP_FILTER);
		ctx->drop = SKB_DROP_REASON_SOCKET_FILTER;
		return;
	}
	qp = mrc_qp_lookup(ms, &ctx->local, &ctx->saddr, h->sport);
	if (qp && !refcount_inc_not_zero(&qp->ref))
		qp = NULL;
	if (qp) {
		spin_lock(&qp->lock);
		/* Only the peer's draws a NACK through the QP: a forged one
		 * would have its sender pass a value over.  Another is
		 * answered as if there were no QP, echoing its own tag: a
		 * restarted peer's first packets, trimmed, are resent at
		 * once (and then challenged), not at a timeout.
		 */
		if (!qp->dead && qp->tags.peer && h->tag != qp->tags.peer) {
			mrc_qp_stat_inc(qp, MRC_STAT_RX_TRIMMED);
			mrc_qp_stat_inc(qp, MRC_STAT_RX_DROP_BAD_TAG);
			ctx->drop = SKB_DROP_REASON_NOT_SPECIFIED;
			spin_unlock(&qp->lock);
			mrc_qp_put(qp);
			mrc_rx_refuse(mn, h, reason, ctx);
			return;
		}
		if (!qp->dead && qp->rx_open && qp->rx_epoch == h->epoch) {
			mrc_qp_stat_inc(qp, MRC_STAT_RX_TRIMMED);
			mrc_rx_send_nack(qp, h, reason, ctx, &qp->xq);
			spin_unlock(&qp->lock);
			mrc_qp_flush(qp);
			mrc_qp_put(qp);
			return;
		}
		spin_unlock(&qp->lock);
		mrc_qp_put(qp);
	}
	mrc_stat_inc(mn, MRC_STAT_RX_TRIMMED);
	mrc_rx_refuse(mn, h, reason, ctx);
}

/* The QP data packet @h from @ctx's source goes to, with a reference,
 * opened for it if it may start one; or an ERR_PTR, counted: -EPIPE, no
 * socket (or one closing) takes it; -ESRCH, it cannot start a QP;
 * -EDQUOT, its source (address, or IPv6 /64) opened its share of QPs;
 * -EMFILE, the table is full of QPs too busy to evict; -ENOBUFS, no
 * memory.
 */
static struct mrc_qp *mrc_rx_qp(struct mrc_net *mn, struct mrc_sock *ms,
				const struct mrc_data_hdr *h,
				const struct mrc_rx_ctx *ctx)
{
	struct mrc_qp *qp;

	qp = ms ? mrc_qp_lookup(ms, &ctx->local, &ctx->saddr, h->sport) :
		  NULL;
	if (qp && refcount_inc_not_zero(&qp->ref))
		return qp;
	/* A peer new to the socket may be one of a closed socket that the
	 * port belonged to.
	 */
	qp = mrc_superseded_qp(mn, ctx->family, h->dport, &ctx->local,
			       &ctx->saddr, h->sport, h->epoch);
	if (qp)
		return qp;
	/* A closing socket takes nothing new, whatever the packet: that
	 * the port is closed is what its sender is told (NACK 0x19).
	 */
	if (!ms || READ_ONCE(ms->closing))
		return ERR_PTR(-EPIPE);
	if (!mrc_rx_may_start(h))
		return ERR_PTR(-ESRCH);
	return mrc_qp_rx_open(ms, &ctx->local, &ctx->saddr, h->sport);
}

static void mrc_rx_data(struct mrc_net *mn, struct sk_buff *skb,
			const u8 *p, struct mrc_rx_ctx *ctx)
{
	enum mrc_rx_tag_action act;
	const struct mrc_config *cfg;
	struct mrc_data_hdr h;
	struct mrc_sock *ms;
	struct mrc_qp *qp;
	u32 max_msg;

	mrc_get_data_hdr(p, &h);
	cfg = mrc_cfg(mn);
	if (ctx->dscp == cfg->dscp_trimmed ||
	    ctx->dscp == cfg->dscp_trimmed_lh) {
		mrc_rx_trimmed(mn, skb, &h, ctx->dscp == cfg->dscp_trimmed ?
			       MRC_NACK_TRIMMED : MRC_NACK_TRIMMED_LAST_HOP,
			       ctx);
		return;
	}
	max_msg = cfg->max_msg_size;
	if (!mrc_data_fields_ok(&h, ctx->len, max_msg, false)) {
		mrc_stat_inc(mn, MRC_STAT_RX_DROP_MALFORMED);
		ctx->drop = SKB_DROP_REASON_NOT_SPECIFIED;
		return;
	}
	/* No tag: not from mrc (an MRC 1.0 sender's, or a forger's).  Not
	 * answered either: every answer is then no larger than the tagged
	 * packet it answers.
	 */
	if (!h.tag) {
		mrc_stat_inc(mn, MRC_STAT_RX_DROP_BAD_TAG);
		ctx->drop = SKB_DROP_REASON_NOT_SPECIFIED;
		return;
	}
	ms = mrc_sock_lookup(mn, ctx->family, h.dport, &ctx->local);
	if (ms && mrc_sock_filter(ms, skb)) {
		mrc_stat_inc(mn, MRC_STAT_RX_DROP_FILTER);
		ctx->drop = SKB_DROP_REASON_SOCKET_FILTER;
		return;
	}
	qp = mrc_rx_qp(mn, ms, &h, ctx);
	if (IS_ERR(qp)) {
		switch (PTR_ERR(qp)) {
		case -EPIPE:
			/* No socket, or one closing with no QP to it. */
			mrc_stat_inc(mn, MRC_STAT_RX_DROP_NO_QP);
			ctx->drop = SKB_DROP_REASON_NO_SOCKET;
			mrc_rx_refuse(mn, &h, MRC_NACK_UNEXPECTED, ctx);
			break;
		case -ESRCH:
			/* Its sender may have lost our QP (reaped, or its
			 * socket gone): as a QP would, say the epoch is
			 * unknown here.
			 */
			mrc_stat_inc(mn, MRC_STAT_RX_DROP_NO_START);
			ctx->drop = SKB_DROP_REASON_NO_SOCKET;
			mrc_rx_refuse(mn, &h, MRC_NACK_PSN_OOW, ctx);
			break;
		case -EDQUOT:
			mrc_stat_inc(mn, MRC_STAT_RX_DROP_ADDR_LIMIT);
			ctx->drop = SKB_DROP_REASON_NOT_SPECIFIED;
			mrc_rx_refuse(mn, &h, MRC_NACK_NO_RESOURCE, ctx);
			break;
		case -EMFILE:
			mrc_stat_inc(mn, MRC_STAT_RX_DROP_QP_LIMIT);
			ctx->drop = SKB_DROP_REASON_NOT_SPECIFIED;
			mrc_rx_refuse(mn, &h, MRC_NACK_NO_RESOURCE, ctx);
			break;
		default:
			mrc_stat_inc(mn, MRC_STAT_RX_DROP_NO_MEM);
			ctx->drop = SKB_DROP_REASON_NOMEM;
		}
		return;
	}

	spin_lock(&qp->lock);
	if (qp->dead) {
		mrc_stat_inc(mn, MRC_STAT_RX_DROP_NO_QP);
		ctx->drop = SKB_DROP_REASON_NO_SOCKET;
		act = MRC_RX_TAG_DROP;
	} else {
		act = mrc_rx_tags(qp, &h, ctx, &qp->xq);
	}
	if (act == MRC_RX_TAG_TAKE) {
		/* Our tag echoed: the peer received a packet of ours. */
		if (qp->unvalidated && h.tag_echo == qp->tags.local)
			mrc_qp_validated(qp);
		if (qp->unvalidated)
			qp->amp_rx += ctx->wire;
		mrc_qp_rx_data(qp, &h, skb, ctx, &qp->xq);
		/* Data of ours held back for want of bytes from the peer
		 * (mrc_qp_amp_room()) may have room now.
		 */
		if (qp->amp_blocked)
			mrc_qp_push(qp, &qp->xq);
	} else if (!qp->dead) {
		ctx->drop = SKB_DROP_REASON_NOT_SPECIFIED;
	}
	spin_unlock(&qp->lock);
	mrc_qp_flush(qp);
	mrc_qp_put(qp);
	if (act == MRC_RX_TAG_REFUSE)
		mrc_rx_refuse(mn, &h, MRC_NACK_PSN_OOW, ctx);
}

static void mrc_rx_ack(struct mrc_net *mn, const u8 *p, struct mrc_rx_ctx *ctx)
{
	enum mrc_tag_verdict v;
	struct mrc_ack_hdr h;
	struct mrc_sock *ms;
	struct mrc_qp *qp;
	u32 peer;

	mrc_get_ack_hdr(p, &h);
	ms = mrc_sock_lookup(mn, ctx->family, h.dport, &ctx->local);
	qp = ms ? mrc_qp_lookup(ms, &ctx->local, &ctx->saddr, h.sport) : NULL;
	if (!qp) {
		mrc_stat_inc(mn, MRC_STAT_RX_DROP_NO_QP);
		ctx->drop = SKB_DROP_REASON_NO_SOCKET;
		return;
	}

	spin_lock(&qp->lock);
	peer = qp->tags.peer;
	v = qp->dead ? MRC_TAG_BAD : mrc_tag_ack(&qp->tags, h.tag, h.tag_echo);
	if (qp->dead) {
		mrc_stat_inc(mn, MRC_STAT_RX_DROP_NO_QP);
		ctx->drop = SKB_DROP_REASON_NO_SOCKET;
	} else if (v == MRC_TAG_BAD) {
		/* Not an answer to a packet of ours (include/mrc/tag.h). */
		mrc_qp_stat_inc(qp, MRC_STAT_RX_DROP_BAD_TAG);
		ctx->drop = SKB_DROP_REASON_NOT_SPECIFIED;
	} else {
		/* ... which replaced a known one: what we took of the one
		 * before, half received, is not the new one's.
		 */
		if (v == MRC_TAG_NEW_PEER) {
			mrc_qp_stat_inc(qp, MRC_STAT_QP_REINCARNATED);
			mrc_qp_rx_purge(qp);
			WRITE_ONCE(qp->rx_open, false);
		}
		/* It echoes our tag: its sender received a packet of ours
		 * (a refusal's too: the address receives).  This is the
		 * one place an acknowledgment validates the address.
		 */
		if (qp->unvalidated)
			mrc_qp_validated(qp);
		/* A tag other than the one we knew: another end, whose
		 * challenge then refused all we had sent it.
		 */
		mrc_qp_rx_ack(qp, &h, h.tag && h.tag != peer, &qp->xq);
	}
	spin_unlock(&qp->lock);
	mrc_qp_flush(qp);
}

/**
 * mrc_rx_icmp() - an ICMP error quoting a data packet this namespace sent
 * @mn: the namespace
 * @family: AF_INET or AF_INET6, the UDP/4791 socket's
 * @l: where the quoted packet came from, and its link
 * @daddr: where the quoted packet went (IPv4 as v4-mapped)
 * @p: its mrc headers, all of them, checked by mrc_hdr_len() to be a
 *	data packet's
 * @entropy: its UDP source port
 * @kind: what the error says
 * @mtu: the next hop's MTU a "too big" error gives (0 if none)
 *
 * Called in softirq context under rcu_read_lock().
 */
void mrc_rx_icmp(struct mrc_net *mn, int family, const struct mrc_local *l,
		 const struct in6_addr *daddr, const u8 *p, u16 entropy,
		 enum mrc_icmp_kind kind, u32 mtu)
{
	struct mrc_data_hdr h;
	struct mrc_sock *ms;
	struct mrc_qp *qp;

	mrc_get_data_hdr(p, &h);
	/* The quoted packet went from our socket (its sport) to the peer's
	 * (its dport): the QP is ours to the peer's port.
	 */
	ms = mrc_sock_lookup(mn, family, h.sport, l);
	qp = ms ? mrc_qp_lookup(ms, l, daddr, h.dport) : NULL;
	if (!qp) {
		mrc_stat_inc(mn, MRC_STAT_ICMP_IGNORED);
		return;
	}

	spin_lock(&qp->lock);
	/* A packet of ours carries our tag: an error quoting another is
	 * forged (or of an earlier QP), and changes nothing.
	 */
	if (qp->dead || h.tag != qp->tags.local)
		mrc_stat_inc(mn, MRC_STAT_ICMP_IGNORED);
	else
		mrc_qp_icmp(qp, &h, entropy, kind, mtu, &qp->xq);
	spin_unlock(&qp->lock);
	mrc_qp_flush(qp);
}

static void mrc_rx(struct mrc_net *mn, struct sock *usk, struct sk_buff *skb)
{
	unsigned int hoff = sizeof(struct udphdr);
	struct mrc_rx_ctx ctx = {};
	const u8 *p;
	enum skb_drop_reason why;
	int hlen;
	u8 tos;

	mrc_stat_inc(mn, MRC_STAT_RX_PACKETS);
	mrc_stat_add(mn, MRC_STAT_RX_BYTES, skb->len - hoff);

	/* mrc is unicast: what was sent to a group or to all, nothing
	 * takes or answers (a refusal would be an amplifier).
	 */
	if (skb->pkt_type != PACKET_HOST) {
		mrc_stat_inc(mn, MRC_STAT_RX_DROP_NO_QP);
		why = SKB_DROP_REASON_OTHERHOST;
		goto drop;
	}

	if (!pskb_may_pull(skb, hoff + MRC_BTH_LEN))
		goto short_pkt;
	hlen = mrc_hdr_len(skb->data + hoff);
	if (hlen == MRC_HDR_BAD_VERSION) {
		mrc_stat_inc(mn, MRC_STAT_RX_DROP_BAD_VERSION);
		why = SKB_DROP_REASON_UNHANDLED_PROTO;
		goto drop;
	}
	if (hlen < 0) {
		mrc_stat_inc(mn, MRC_STAT_RX_DROP_BAD_OPCODE);
		why = SKB_DROP_REASON_UNHANDLED_PROTO;
		goto drop;
	}
	if (!pskb_may_pull(skb, hoff + hlen))
		goto short_pkt;

	p = skb->data + hoff;
	ctx.family = usk->sk_family;
	ctx.entropy = ntohs(udp_hdr(skb)->source);
	ctx.off = hoff + hlen;
	ctx.wire = skb->len - hoff;
	ctx.len = skb->len - ctx.off;
	if (ctx.family == AF_INET6) {
		ctx.saddr = ipv6_hdr(skb)->saddr;
		ctx.local.addr = ipv6_hdr(skb)->daddr;
		if (mrc_addr_scoped(&ctx.local.addr, &ctx.saddr))
			ctx.local.ifindex = inet6_iif(skb);
		tos = ipv6_get_dsfield(ipv6_hdr(skb));
	} else {
		ipv6_addr_set_v4mapped(ip_hdr(skb)->saddr, &ctx.saddr);
		ipv6_addr_set_v4mapped(ip_hdr(skb)->daddr, &ctx.local.addr);
		tos = ip_hdr(skb)->tos;
	}
	ctx.ecn = INET_ECN_is_ce(tos);
	ctx.dscp = tos >> 2;

	switch (mrc_bth_opcode(p)) {
	case MRC_OP_ACK:
	case MRC_OP_SACK:
	case MRC_OP_NACK:
		mrc_rx_ack(mn, p, &ctx);
		break;
	case MRC_OP_PROBE:
		ctx.drop = mrc_rx_probe(mn, p, &ctx.saddr, &ctx.local,
					ctx.family, ctx.entropy);
		break;
	default:
		mrc_rx_data(mn, skb, p, &ctx);
		break;
	}
	/* What mrc keeps of a packet it has copied; it is done with it. */
	if (ctx.drop)
		kfree_skb_reason(skb, ctx.drop);
	else
		consume_skb(skb);
	return;

short_pkt:
	mrc_stat_inc(mn, MRC_STAT_RX_DROP_SHORT);
	why = SKB_DROP_REASON_PKT_TOO_SMALL;
drop:
	kfree_skb_reason(skb, why);
}

/* Under the QP's lock: whether its message next in order holds the
 * socket's place beyond SO_RCVBUF while others want it, and placed less
 * than SO_RCVBUF (or its rest) over the last stall period.  Such a
 * sender may trickle a page now and then to keep the place for ever.
 */
static bool mrc_rx_over_slow(struct mrc_qp *qp, unsigned long stall,
			     u32 rcvbuf)
{
	struct mrc_rx_msg *m = qp->rx_slots[qp->rcv_msn % MRC_WINDOW];
	u32 want;

	if (!m || !m->over || m->rcvd >= m->len ||
	    time_before(jiffies, m->over_since + stall))
		return false;
	want = min(rcvbuf, m->len - m->over_base);
	if (m->rcvd - m->over_base < want &&
	    atomic_xchg(&qp->ms->rx_over_wanted, 0))
		return true;
	/* A new period. */
	m->over_since = jiffies;
	m->over_base = m->rcvd;
	return false;
}

/**
 * mrc_qp_rx_evict() - drop the partial messages of a sender gone silent,
 * or too slow to keep what it holds, if room is short
 * @qp: the queue pair, not locked
 *
 * A message is charged as it arrives, so a sender that stops halfway
 * (gone, or forging the first packets of messages it never sends) keeps
 * what it sent charged until its QP closes; and a full table may not
 * evict its QP (mrc_qp_evictable()), which it keeps as long as it
 * sends duplicates now and then.  Once room is short (the socket's
 * place beyond SO_RCVBUF is taken, or SO_RCVBUF is full) or its table
 * of QPs is full, the
 * partial messages of a QP that placed nothing for a stall period
 * (mrc_rx_stall()), and is not waiting for room for its next message in
 * order (then it waits for us, not we for it: until the window update,
 * which a slow reader may put off), are dropped; so are
 * those of the QP whose message holds the place beyond SO_RCVBUF, if
 * others want it and it placed less than SO_RCVBUF in the last period.
 * The direction's incarnation goes with them: a live sender's next
 * packet draws NACK 0x0B, and it fails with ECONNRESET rather than wait
 * for a message that can never complete.
 *
 * Context: process context (the reaper).
 *
 * Return: true if messages were dropped.
 */
bool mrc_qp_rx_evict(struct mrc_qp *qp)
{
	u32 rcvbuf = READ_ONCE(mrc_to_sk(qp->ms)->sk_rcvbuf);
	unsigned long stall;
	bool evict;

	if (!atomic_read(&qp->ms->rx_over) &&
	    atomic64_read(&qp->ms->rx_mem) + PAGE_SIZE <= rcvbuf &&
	    !mrc_qp_table_full(qp->ms))
		return false;
	stall = mrc_rx_stall(qp->mn);
	spin_lock_bh(&qp->lock);
	evict = !qp->dead && qp->rx_open && qp->rx_partial &&
		((!qp->rx_wait &&
		  time_after(jiffies, qp->rx_progress + stall)) ||
		 mrc_rx_over_slow(qp, stall, rcvbuf));
	if (evict) {
		mrc_qp_stat_add(qp, MRC_STAT_RX_EVICTED, qp->rx_partial);
		mrc_qp_rx_purge(qp);
		WRITE_ONCE(qp->rx_open, false);
		/* A full table may evict it from now on, partial or not. */
		qp->rx_stalled = true;
	}
	spin_unlock_bh(&qp->lock);
	return evict;
}

/* A window update to @qp, called in line by call @seq: a reader freed
 * room.  Not if, refused again meanwhile and given back its grant, it
 * waits anew (or was called anew, and told), nor if its receive side
 * was purged or it died (its grant went back then).
 */
static void mrc_qp_rx_room(struct mrc_qp *qp, u32 seq)
{
	bool owed, later;

	spin_lock_bh(&qp->lock);
	spin_lock(&qp->ms->rx_share_lock);
	owed = qp->rx_grant && qp->rx_grant_seq == seq;
	/* A later message refused since the call still waits, for its
	 * turn after this one (mrc_rx_turn_next()).
	 */
	later = owed && qp->rx_refused_msn != qp->rx_turn_msn;
	spin_unlock(&qp->ms->rx_share_lock);
	owed = owed && qp->rx_open && !qp->dead;
	if (owed) {
		if (!later)
			qp->rx_starved = false;
		/* Its sender's silence counts from now. */
		qp->rx_progress = jiffies;
		qp->rx_wait = false;
		mrc_rx_send_ack(qp, &qp->xq);
	}
	spin_unlock_bh(&qp->lock);
	if (owed)
		mrc_qp_flush(qp);
}

/* At most this many QPs called a time; the rest at the next read, or
 * the reaper's next look (mrc_sock_rx_share_tick()).
 */
#define MRC_RX_CALL_MAX		16

/**
 * mrc_sock_rx_room() - call the first in the socket's line for room, as
 * many as its room holds now
 * @ms: the socket, whose reader has just freed a message, or whose room
 *	kept for a QP may have lapsed
 *
 * Grants lapsed are given back first.  Each QP called is granted what it
 * wants, kept for it, and sent a window update: its peer waits for one
 * (or for its timer) before sending again.  See include/mrc/share.h.
 *
 * Context: process context.
 */
void mrc_sock_rx_room(struct mrc_sock *ms)
{
	u32 rcvbuf = READ_ONCE(mrc_to_sk(ms)->sk_rcvbuf);
	struct mrc_qp *call[MRC_RX_CALL_MAX], *qp, *tmp;
	u32 seq[MRC_RX_CALL_MAX];
	unsigned int i, n = 0;
	unsigned long stall;

	/* Pairs with the barrier in mrc_rx_turn_try_call(): either this sees
	 * a QP that joined the line, or it sees the room freed here.
	 */
	smp_mb();
	if (!READ_ONCE(ms->rx_nturn))
		return;
	stall = mrc_rx_stall(ms->mn);
	spin_lock_bh(&ms->rx_share_lock);
	list_for_each_entry_safe(qp, tmp, &ms->rx_called, rx_turn)
		if (time_after(jiffies, qp->rx_grant_end))
			mrc_rx_turn_end(ms, qp);
	while (n < MRC_RX_CALL_MAX && !list_empty(&ms->rx_waiters)) {
		qp = list_first_entry(&ms->rx_waiters, struct mrc_qp, rx_turn);
		if (!mrc_share_may_call(atomic64_read(&ms->rx_mem), qp->rx_want,
					ms->rx_reserved, rcvbuf))
			break;
		/* In line, so not finished (mrc_qp_finish() takes it out
		 * first): alive.  Checked all the same.
		 */
		if (WARN_ON_ONCE(!refcount_inc_not_zero(&qp->ref))) {
			mrc_rx_turn_end(ms, qp);
			continue;
		}
		mrc_rx_turn_call(ms, qp, jiffies + stall);
		seq[n] = qp->rx_grant_seq;
		call[n++] = qp;
	}
	spin_unlock_bh(&ms->rx_share_lock);
	for (i = 0; i < n; i++) {
		mrc_qp_rx_room(call[i], seq[i]);
		mrc_qp_put(call[i]);
	}
}

/**
 * mrc_sock_rx_share_tick() - give back the room kept for QPs that were
 * called and did not come, and call the next in line
 * @ms: the socket
 *
 * For the reaper: a reader that reads nothing more calls nobody.  Once a
 * jiffy at most, for the socket's many QPs.
 *
 * Context: process context.
 */
void mrc_sock_rx_share_tick(struct mrc_sock *ms)
{
	unsigned long now = jiffies;

	if (!READ_ONCE(ms->rx_nturn) || READ_ONCE(ms->rx_share_tick) == now)
		return;
	WRITE_ONCE(ms->rx_share_tick, now);
	mrc_sock_rx_room(ms);
}

/**
 * mrc_rx_no_socket() - drop a datagram that came to a UDP/4791 socket
 * outside its hook, and count it as for no mrc socket bound
 * @mn: the namespace's mrc state
 * @skb: the datagram, freed here
 * @len: its UDP payload's length
 *
 * For what reached the socket while it closed (its hook's data cleared)
 * or before its hook was set (mrc_socket_drain()): the namespace's
 * counters take it as the hook would have, had no mrc socket been there.
 */
void mrc_rx_no_socket(struct mrc_net *mn, struct sk_buff *skb,
		      unsigned int len)
{
	mrc_stat_inc(mn, MRC_STAT_RX_PACKETS);
	mrc_stat_add(mn, MRC_STAT_RX_BYTES, len);
	mrc_stat_inc(mn, MRC_STAT_RX_DROP_NO_QP);
	kfree_skb_reason(skb, SKB_DROP_REASON_NO_SOCKET);
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
		/* The socket closes: udp_tunnel_sock_release() cleared its
		 * data and waits a grace period (seconds on a loaded
		 * debug kernel) before unhashing it, while packets go on
		 * arriving.  No mrc socket is left in the namespace to
		 * take them; counted as for none bound, in the namespace's
		 * state, which outlives its UDP sockets (mrc_net_exit_batch()
		 * frees it a grace period after closing them).
		 */
		mrc_rx_no_socket(mrc_net(sock_net(sk)), skb,
				 skb->len - sizeof(struct udphdr));
		return 0;
	}
	mrc_rx(mn, sk, skb);
	return 0;
}
