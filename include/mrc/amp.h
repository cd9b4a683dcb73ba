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
 * last packets are owed, the largest there is (a SACK): the
 * acknowledgment may go after data sent meanwhile.  Every later one is
 * drawn by a packet of at least 32 bytes, which adds 96 to the limit.
 */
#define MRC_AMP_ACK_RESERVE	(MRC_BTH_LEN + MRC_SETH_LEN + MRC_CCSTATE_LEN)

/* A data packet's UDP payload: its headers (mrc sends no TSETH) and @len
 * bytes of payload.
 */
static inline __u32 mrc_data_wire_len(__u32 len)
{
	return MRC_DATA_HDR_LEN + len;
}

/*
 * How many of @len payload bytes a data packet may carry to a peer not
 * yet validated, @rx bytes having come from it and @tx gone to it: @len
 * if the whole packet fits under the limit, MRC_AMP_ACK_RESERVE kept;
 * else, if @cut (a new packet, which may be cut short), what the limit
 * leaves, one byte at least; else -1, nothing may go.
 */
static inline __s64 mrc_amp_allow(__u64 rx, __u64 tx, __u32 len, int cut)
{
	__u64 cap = MRC_AMP_FACTOR * rx;

	tx += MRC_AMP_ACK_RESERVE;
	if (tx + mrc_data_wire_len(len) <= cap)
		return len;
	if (cut && len && tx + mrc_data_wire_len(1) <= cap)
		return cap - tx - mrc_data_wire_len(0);
	return -1;
}

/*
 * Whether a packet of @len payload bytes, sent now, leaves the limit too
 * little for another like it: the acknowledgment that lifts the limit
 * is then wanted at once.
 */
static inline int mrc_amp_last(__u64 rx, __u64 tx, __u32 len)
{
	return tx + MRC_AMP_ACK_RESERVE + 2 * (__u64)mrc_data_wire_len(len) >
	       MRC_AMP_FACTOR * rx;
}

#endif /* _MRC_AMP_H */
