// SPDX-License-Identifier: GPL-2.0
/* Congestion control: a send window in bytes, adjusted the way NSCC does
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
 */
#include <mrc/mrc.h>

static u32 mrc_cc_max(const struct mrc_config *c)
{
	u64 bdp = mrc_bdp_bytes(c);

	return clamp_t(u64, bdp + bdp / 2, c->mss, U32_MAX / 2);
}

static void mrc_cc_clamp(struct mrc_qp *qp, const struct mrc_config *c)
{
	qp->cwnd = clamp_t(u32, qp->cwnd, c->mss, mrc_cc_max(c));
}

/* Queueing delay target: the configured base RTT, 3/4 of it when the
 * fabric trims (a trimmed packet signals congestion sooner).
 */
static u32 mrc_cc_target(const struct mrc_config *c)
{
	u32 t = c->trimming ? c->base_rtt_us * 3 / 4 : c->base_rtt_us;

	return max(t, 1U);
}

/**
 * mrc_cc_init() - a new sending direction's window: one BDP
 * @qp: the queue pair, locked
 * @c: the configuration
 */
void mrc_cc_init(struct mrc_qp *qp, const struct mrc_config *c)
{
	u64 bdp = mrc_bdp_bytes(c);

	qp->cwnd = min_t(u64, bdp, U32_MAX / 2);
	qp->avg_delay_us = 0;
	qp->last_md_ns = 0;
	qp->fi_acc = 0;
	mrc_cc_clamp(qp, c);
}

/**
 * mrc_cc_on_ack() - newly acknowledged bytes
 * @qp: the queue pair, locked
 * @c: the configuration
 * @acked: bytes newly known received
 * @rtt_us: an RTT sample, 0 if this acknowledgment gave none
 * @ecn: the receiver saw a congestion mark
 */
void mrc_cc_on_ack(struct mrc_qp *qp, const struct mrc_config *c, u32 acked,
		   u32 rtt_us, bool ecn)
{
	u32 target = mrc_cc_target(c), delay = 0, mss = c->mss;
	u64 inc;

	if (rtt_us && qp->base_rtt_us) {
		delay = rtt_us - min(rtt_us, qp->base_rtt_us);
		/* EWMA with gain 1/80 (0.0125), kept in 1/64 us units. */
		qp->avg_delay_us = qp->avg_delay_us -
			qp->avg_delay_us / 80 + delay * 64 / 80;
	}

	if (ecn && delay >= target) {
		u64 now = ktime_get_ns();
		u32 avg = max(qp->avg_delay_us / 64, delay);

		if (now - qp->last_md_ns >=
		    (u64)max(qp->base_rtt_us, 1U) * NSEC_PER_USEC) {
			u64 cut = (u64)qp->cwnd * 4 * (avg - target) /
				  (5 * (u64)avg);

			qp->cwnd -= min_t(u64, cut, qp->cwnd / 2);
			qp->last_md_ns = now;
		}
	} else if (!ecn && delay < target) {
		/* alpha scales with how far below the target the delay is. */
		inc = (u64)acked * (target - delay) / target;
		qp->cwnd += min_t(u64, inc, 4 * mss);
	} else if (!ecn) {
		/* Fair increase: about one MSS per window acknowledged. */
		qp->fi_acc += acked;
		if (qp->fi_acc >= qp->cwnd) {
			qp->fi_acc = 0;
			qp->cwnd += mss;
		}
	}
	mrc_cc_clamp(qp, c);
}

/**
 * mrc_cc_on_nack() - the receiver refused or the fabric trimmed a packet
 * @qp: the queue pair, locked
 * @c: the configuration
 * @reason: the NACK's reason
 */
void mrc_cc_on_nack(struct mrc_qp *qp, const struct mrc_config *c, u8 reason)
{
	switch (reason) {
	case MRC_NACK_TRIMMED:
	case MRC_NACK_TRIMMED_LAST_HOP:
		qp->cwnd -= min(qp->cwnd, c->mss);
		break;
	case MRC_NACK_NO_PKT_BUFFER:
	case MRC_NACK_NO_RESOURCE:
		/* The receiver is out of room: send one packet at a time
		 * until acknowledgments grow the window again.
		 */
		qp->cwnd = c->mss;
		break;
	default:
		break;
	}
	mrc_cc_clamp(qp, c);
}

/**
 * mrc_cc_on_timeout() - a retransmission timeout
 * @qp: the queue pair, locked
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
void mrc_cc_on_timeout(struct mrc_qp *qp, const struct mrc_config *c,
		       u32 usable, u32 left)
{
	if (usable && left < usable)
		qp->cwnd = div_u64((u64)qp->cwnd * left, usable);
	else
		qp->cwnd /= 2;
	mrc_cc_clamp(qp, c);
}
