/* SPDX-License-Identifier: GPL-2.0 */
/*
 * No amplification: a queue pair that a peer's packet opened sends that
 * peer at most MRC_AMP_FACTOR times the bytes it received from it until
 * the peer acknowledges data of ours, which only a receiver at its
 * address can.  A forged source address then draws no more than a small
 * multiple of what the forger sent towards the address it forged (the
 * limit QUIC puts on a server before address validation, RFC 9000
 * section 8).  Bytes are UDP payloads: mrc's headers and their payload,
 * acknowledgments counted on both sides.
 *
 * Pure logic: compiles in the kernel and in userspace, where the unit
 * tests (tools/unit/unit_amp.c) run it under sanitizers.
 */
#ifndef _MRC_AMP_H
#define _MRC_AMP_H

#include <linux/types.h>

#include <mrc/wire.h>

#define MRC_AMP_FACTOR		3
/* Room data leaves under the limit for the acknowledgment the peer's
 * last packets are owed, if one is, the largest there is (a SACK): the
 * acknowledgment may go after data sent meanwhile.  Every later one is
 * drawn by a data packet of at least 40 bytes, which adds 120 to the
 * limit.
 */
#define MRC_AMP_ACK_RESERVE	(MRC_BTH_LEN + MRC_SETH_LEN + \
				 MRC_CCSTATE_LEN + MRC_ITETH_LEN)

/* A data packet's UDP payload: its headers (mrc sends no TSETH, and
 * always the ITETH) and @len bytes of payload.
 */
static inline __u32 mrc_data_wire_len(__u32 len)
{
	return MRC_DATA_TAGGED_LEN + len;
}

/* What the limit leaves, @rx bytes having come from the peer and @tx
 * gone to it, an acknowledgment kept room for if one is @owed.
 */
static inline __u64 mrc_amp_left(__u64 rx, __u64 tx, int owed)
{
	__u64 cap = MRC_AMP_FACTOR * rx;

	if (owed)
		tx += MRC_AMP_ACK_RESERVE;
	return tx < cap ? cap - tx : 0;
}

/*
 * How many of @len payload bytes a data packet may carry to a peer not
 * yet validated, @rx bytes having come from it and @tx gone to it, an
 * acknowledgment @owed.  A retransmission (!@cut) goes whole or not at
 * all: @len or -1.  A new packet (@cut) takes half of what the limit
 * leaves at most, so that its own resend still fits should it be lost
 * (the peer, having received nothing, would send nothing to raise the
 * limit): @len if that fits, else as much as half leaves, one byte at
 * least; else, if half is not enough for one byte, what is left, one
 * byte at least; else -1, nothing may go.
 */
static inline __s64 mrc_amp_allow(__u64 rx, __u64 tx, __u32 len, int cut,
				  int owed)
{
	__u64 left = mrc_amp_left(rx, tx, owed);

	if (!cut)
		return mrc_data_wire_len(len) <= left ? (__s64)len : -1;
	if (2 * (__u64)mrc_data_wire_len(len) <= left)
		return len;
	if (!len)
		return mrc_data_wire_len(0) <= left ? 0 : -1;
	if (left / 2 >= mrc_data_wire_len(1))
		return left / 2 - mrc_data_wire_len(0);
	if (left < mrc_data_wire_len(1))
		return -1;
	left -= mrc_data_wire_len(0);
	return left < len ? (__s64)left : len;
}

/*
 * Whether a packet of @len payload bytes, sent now, leaves the limit too
 * little for another like it and its resend: the acknowledgment that
 * lifts the limit is then wanted at once.
 */
static inline int mrc_amp_last(__u64 rx, __u64 tx, __u32 len, int owed)
{
	return 3 * (__u64)mrc_data_wire_len(len) >
	       mrc_amp_left(rx, tx, owed);
}

#endif /* _MRC_AMP_H */
