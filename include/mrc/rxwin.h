/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The receive window of a queue pair: which PSNs were received ahead of
 * the cumulative point (rcv_nxt), as a bitmap of MRC_WINDOW bits indexed
 * by PSN % MRC_WINDOW, and the SACK bitmap reported from it.
 *
 * The window holds the PSNs rcv_nxt .. rcv_nxt + MRC_WINDOW - 1.  Of the
 * 24-bit PSN space, the half behind rcv_nxt (2^23 PSNs, rcv_nxt - 2^23
 * included) was received and delivered: a packet there is a duplicate.
 * The rest, past the window's right edge, is out of the window.
 *
 * Pure logic: compiles in the kernel and in userspace, where the unit
 * tests pass in a bitmap of their own.  The bitmap is what the kernel's
 * bitmap_zalloc(MRC_WINDOW) gives, an array of unsigned long; the caller
 * serialises access (the kernel holds the queue pair's lock), so the bit
 * operations need not be atomic.
 */
#ifndef _MRC_RXWIN_H
#define _MRC_RXWIN_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <stdbool.h>
#include <linux/types.h>
#endif

#include <mrc/wire.h>

/* PSNs a sender may have in flight, and the receiver's window. */
#define MRC_WINDOW		256
/* Bits of the SACK bitmap: the PSNs from rcv_nxt on that a SACK names. */
#define MRC_SACK_BITS		64

#define MRC_RXWIN_LONG_BITS	(8 * sizeof(unsigned long))
/* Longs of the bitmap, as BITS_TO_LONGS(MRC_WINDOW). */
#define MRC_RXWIN_LONGS		\
	((MRC_WINDOW + MRC_RXWIN_LONG_BITS - 1) / MRC_RXWIN_LONG_BITS)

/* An index must follow its PSN across the wrap at 2^24, and the SACK
 * bitmap must see nothing but the window.
 */
#if (MRC_PSN_MASK + 1) % MRC_WINDOW || MRC_WINDOW < MRC_SACK_BITS
#error "MRC_WINDOW must divide 2^24 and hold the SACK bitmap"
#endif

/* What a data packet's PSN is to the window. */
enum mrc_rxwin_verdict {
	MRC_RXWIN_NEW,		/* in the window, not received yet */
	MRC_RXWIN_DUP,		/* in the window, received already */
	MRC_RXWIN_BEHIND,	/* behind it: received and delivered */
	MRC_RXWIN_AHEAD,	/* past its right edge */
};

static inline bool mrc_rxwin_test(const unsigned long *map, __u32 psn)
{
	__u32 i = psn % MRC_WINDOW;

	return (map[i / MRC_RXWIN_LONG_BITS] >> (i % MRC_RXWIN_LONG_BITS)) & 1;
}

static inline void mrc_rxwin_clear(unsigned long *map, __u32 psn)
{
	__u32 i = psn % MRC_WINDOW;

	map[i / MRC_RXWIN_LONG_BITS] &= ~(1UL << (i % MRC_RXWIN_LONG_BITS));
}

/**
 * mrc_rxwin_reset() - an empty window, for a new epoch
 * @map: the bitmap
 */
static inline void mrc_rxwin_reset(unsigned long *map)
{
	unsigned int i;

	for (i = 0; i < MRC_RXWIN_LONGS; i++)
		map[i] = 0;
}

/**
 * mrc_rxwin_check() - what a data packet's PSN is to the window
 * @map: the bitmap
 * @rcv_nxt: the first PSN not received
 * @psn: the packet's
 *
 * Return: enum mrc_rxwin_verdict.
 */
static inline enum mrc_rxwin_verdict
mrc_rxwin_check(const unsigned long *map, __u32 rcv_nxt, __u32 psn)
{
	__u32 d = mrc_psn_diff(psn, rcv_nxt);

	if (d >= MRC_WINDOW)
		return mrc_psn_diff(rcv_nxt, psn) <= 0x800000 ?
		       MRC_RXWIN_BEHIND : MRC_RXWIN_AHEAD;
	return mrc_rxwin_test(map, psn) ? MRC_RXWIN_DUP : MRC_RXWIN_NEW;
}

/**
 * mrc_rxwin_mark() - a PSN of the window is received
 * @map: the bitmap
 * @psn: a PSN mrc_rxwin_check() found new
 */
static inline void mrc_rxwin_mark(unsigned long *map, __u32 psn)
{
	__u32 i = psn % MRC_WINDOW;

	map[i / MRC_RXWIN_LONG_BITS] |= 1UL << (i % MRC_RXWIN_LONG_BITS);
}

/**
 * mrc_rxwin_advance() - move the cumulative point over what was received
 * @map: the bitmap
 * @rcv_nxt: the first PSN not received, updated
 *
 * Each PSN passed over is cleared: its bit is that of the PSN a window
 * later, not received yet.
 *
 * Return: how many PSNs @rcv_nxt moved over, taken from those held ahead.
 */
static inline __u32 mrc_rxwin_advance(unsigned long *map, __u32 *rcv_nxt)
{
	__u32 n = 0;

	while (mrc_rxwin_test(map, *rcv_nxt)) {
		mrc_rxwin_clear(map, *rcv_nxt);
		*rcv_nxt = mrc_psn_add(*rcv_nxt, 1);
		n++;
	}
	return n;
}

/**
 * mrc_rxwin_sack() - the bitmap a SACK reports
 * @map: the bitmap
 * @rcv_nxt: the first PSN not received
 *
 * Return: bit i set when PSN @rcv_nxt + i was received, for the first
 * MRC_SACK_BITS PSNs of the window (bit 0, @rcv_nxt itself, is clear).
 */
static inline __u64 mrc_rxwin_sack(const unsigned long *map, __u32 rcv_nxt)
{
	__u64 b = 0;
	__u32 i;

	for (i = 0; i < MRC_SACK_BITS; i++)
		if (mrc_rxwin_test(map, mrc_psn_add(rcv_nxt, i)))
			b |= 1ULL << i;
	return b;
}

#endif /* _MRC_RXWIN_H */
