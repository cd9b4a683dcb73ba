/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Congestion control: a send window in bytes, adjusted the way NSCC does
 * from the queueing delay (RTT above the lowest RTT seen) and ECN marks.
 *
 *   delay < target, no ECN:  proportional increase, alpha * (target - delay)
 *   delay >= target, no ECN: fair increase, fi per window of acked bytes
 *   delay >= target, ECN:    multiplicative decrease, at most once per
 *                            base RTT, by (avg_delay - target) / avg_delay
 *                            scaled by 0.8 and to no less than half
 *   trimmed (NACK):          one packet less
 *   timeout:                 less the share of the rotation's values it
 *                            took out, or half the window if none
 *
 * The window stays between one MSS and 1.5 bandwidth-delay products; it
 * starts at one BDP.  Every value is integer arithmetic on bytes and
 * microseconds.
 *
 * Pure logic: compiles in the kernel and in userspace, where the unit
 * tests drive it with a clock of their own.  The caller passes the time
 * and the lowest RTT seen in, and serialises access (the kernel holds
 * the queue pair's lock).
 *
 * The arithmetic is exact for delays under 2^26 us (67 s): the average
 * delay is kept in 1/64 us in 32 bits.  RTT samples come from packets
 * never retransmitted, so they stay far below that.
 */
#ifndef _MRC_CC_H
#define _MRC_CC_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <stdbool.h>
#include <linux/types.h>
#endif

#include <mrc/config.h>
#include <mrc/wire.h>

/* The largest window: a byte count that still adds to another in 32 bits. */
#define MRC_CWND_LIMIT		0x7fffffffU
#define MRC_CC_NSEC_PER_USEC	1000ULL

/**
 * struct mrc_cc - the congestion state of one sending direction
 * @cwnd: the window, in bytes: what may be in flight
 * @avg_delay: the queueing delay's moving average, in 1/64 us
 * @fi_acc: bytes acknowledged above the target since the last fair
 *	increase
 * @last_md_ns: when the window was last cut for ECN (caller's clock,
 *	nanoseconds), 0 before the first cut
 */
struct mrc_cc {
	__u32 cwnd;
	__u32 avg_delay;
	__u32 fi_acc;
	__u64 last_md_ns;
};

/* The largest window: 1.5 BDP, at least one MSS. */
static inline __u32 mrc_cwnd_max(const struct mrc_config *c)
{
	__u64 bdp = mrc_bdp_bytes(c), m = bdp + bdp / 2;

	if (m < c->mss)
		m = c->mss;
	if (m > MRC_CWND_LIMIT)
		m = MRC_CWND_LIMIT;
	return (__u32)m;
}

static inline void mrc_cwnd_clamp(struct mrc_cc *cc,
				  const struct mrc_config *c)
{
	__u32 max = mrc_cwnd_max(c);

	if (cc->cwnd < c->mss)
		cc->cwnd = c->mss;
	if (cc->cwnd > max)
		cc->cwnd = max;
}

/* Queueing delay target: the configured base RTT, 3/4 of it when the
 * fabric trims (a trimmed packet signals congestion sooner).
 */
static inline __u32 mrc_cwnd_target(const struct mrc_config *c)
{
	__u32 t = c->trimming ? c->base_rtt_us * 3 / 4 : c->base_rtt_us;

	return t ? t : 1;
}

/**
 * mrc_cwnd_init() - a new sending direction's window: one BDP
 * @cc: the state to fill
 * @c: the configuration
 */
static inline void mrc_cwnd_init(struct mrc_cc *cc, const struct mrc_config *c)
{
	__u64 bdp = mrc_bdp_bytes(c);

	cc->cwnd = bdp < MRC_CWND_LIMIT ? (__u32)bdp : MRC_CWND_LIMIT;
	cc->avg_delay = 0;
	cc->last_md_ns = 0;
	cc->fi_acc = 0;
	mrc_cwnd_clamp(cc, c);
}

/**
 * mrc_cwnd_on_ack() - newly acknowledged bytes
 * @cc: the state
 * @c: the configuration
 * @base_rtt_us: the lowest RTT seen, 0 while none was
 * @acked: bytes newly known received
 * @rtt_us: an RTT sample, 0 if this acknowledgment gave none
 * @ecn: the receiver saw a congestion mark
 * @now_ns: the time, in nanoseconds of a clock that may wrap
 *
 * Without a sample the delay counts as 0: an acknowledgment still grows
 * the window, and a mark alone does not cut it.
 */
static inline void mrc_cwnd_on_ack(struct mrc_cc *cc,
				   const struct mrc_config *c,
				   __u32 base_rtt_us, __u32 acked,
				   __u32 rtt_us, bool ecn, __u64 now_ns)
{
	__u32 target = mrc_cwnd_target(c), delay = 0, mss = c->mss;
	__u64 inc;

	if (rtt_us && base_rtt_us) {
		delay = rtt_us > base_rtt_us ? rtt_us - base_rtt_us : 0;
		/* EWMA with gain 1/80 (0.0125), kept in 1/64 us units. */
		cc->avg_delay = cc->avg_delay - cc->avg_delay / 80 +
				delay * 64 / 80;
	}

	if (ecn && delay >= target) {
		__u32 avg = cc->avg_delay / 64;
		__u32 rtt = base_rtt_us ? base_rtt_us : 1;

		if (avg < delay)
			avg = delay;
		/* Once per base RTT: the cut's effect shows no sooner. */
		if (now_ns - cc->last_md_ns >=
		    (__u64)rtt * MRC_CC_NSEC_PER_USEC) {
			__u64 cut = mrc_div_u64((__u64)cc->cwnd * 4 *
						(avg - target),
						5 * (__u64)avg);

			if (cut > cc->cwnd / 2)
				cut = cc->cwnd / 2;
			cc->cwnd -= (__u32)cut;
			cc->last_md_ns = now_ns;
		}
	} else if (!ecn && delay < target) {
		/* alpha scales with how far below the target the delay is. */
		inc = mrc_div_u64((__u64)acked * (target - delay), target);
		if (inc > 4 * (__u64)mss)
			inc = 4 * (__u64)mss;
		cc->cwnd += (__u32)inc;
	} else if (!ecn) {
		/* Fair increase: about one MSS per window acknowledged. */
		cc->fi_acc += acked;
		if (cc->fi_acc >= cc->cwnd) {
			cc->fi_acc = 0;
			cc->cwnd += mss;
		}
	}
	mrc_cwnd_clamp(cc, c);
}

/**
 * mrc_cwnd_on_nack() - the receiver refused or the fabric trimmed a packet
 * @cc: the state
 * @c: the configuration
 * @reason: the NACK's reason (MRC_NACK_*)
 */
static inline void mrc_cwnd_on_nack(struct mrc_cc *cc,
				    const struct mrc_config *c, __u8 reason)
{
	switch (reason) {
	case MRC_NACK_TRIMMED:
	case MRC_NACK_TRIMMED_LAST_HOP:
		cc->cwnd -= cc->cwnd < c->mss ? cc->cwnd : c->mss;
		break;
	case MRC_NACK_NO_PKT_BUFFER:
	case MRC_NACK_NO_RESOURCE:
		/* The receiver is out of room: send one packet at a time
		 * until acknowledgments grow the window again.
		 */
		cc->cwnd = c->mss;
		break;
	default:
		break;
	}
	mrc_cwnd_clamp(cc, c);
}

/**
 * mrc_cwnd_on_timeout() - a retransmission timeout
 * @cc: the state
 * @c: the configuration
 * @usable: values of the destination's rotation before the timeout
 * @left: ... and after it, without the values whose transmissions timed out
 *
 * Under spraying a timeout is most often a path's failure, not
 * congestion of every path: the values whose transmissions timed out
 * leave the rotation, and the window shrinks by their share of it, so
 * that what is left of the fabric is used at once (all of them out: one
 * packet).  A timeout that took no value out (spraying none, or values
 * already out) halves it.
 */
static inline void mrc_cwnd_on_timeout(struct mrc_cc *cc,
				       const struct mrc_config *c,
				       __u32 usable, __u32 left)
{
	if (usable && left < usable)
		cc->cwnd = (__u32)mrc_div_u64((__u64)cc->cwnd * left, usable);
	else
		cc->cwnd /= 2;
	mrc_cwnd_clamp(cc, c);
}

#endif /* _MRC_CC_H */
