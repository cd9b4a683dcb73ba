// SPDX-License-Identifier: GPL-2.0
/* Congestion control of a queue pair's sending direction: the window's
 * arithmetic is in include/mrc/cc.h, where the unit tests reach it; these
 * give it the queue pair's state, its lowest RTT and the clock.
 */
#include <mrc/mrc.h>

/**
 * mrc_cc_init() - a new sending direction's window: one BDP
 * @qp: the queue pair, locked
 * @c: the configuration
 */
void mrc_cc_init(struct mrc_qp *qp, const struct mrc_config *c)
{
	mrc_cwnd_init(&qp->cc, c);
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
	mrc_cwnd_on_ack(&qp->cc, c, qp->base_rtt_us, acked, rtt_us, ecn,
			ktime_get_ns());
}

/**
 * mrc_cc_on_nack() - the receiver refused or the fabric trimmed a packet
 * @qp: the queue pair, locked
 * @c: the configuration
 * @reason: the NACK's reason
 */
void mrc_cc_on_nack(struct mrc_qp *qp, const struct mrc_config *c, u8 reason)
{
	mrc_cwnd_on_nack(&qp->cc, c, reason);
}

/**
 * mrc_cc_on_timeout() - a retransmission timeout
 * @qp: the queue pair, locked
 * @c: the configuration
 * @usable: values of the destination's rotation before the timeout
 * @left: ... and after it, without the values whose transmissions timed out
 *
 * See mrc_cwnd_on_timeout(): the window shrinks by the share of the
 * values taken out, or by half when none was.
 */
void mrc_cc_on_timeout(struct mrc_qp *qp, const struct mrc_config *c,
		       u32 usable, u32 left)
{
	mrc_cwnd_on_timeout(&qp->cc, c, usable, left);
}
