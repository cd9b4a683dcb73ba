/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Default Packet Spraying: one destination's active set of entropy values,
 * the rotation over it, skip-once marks and values assumed bad
 * (spec/multipath.md, "Default packet spraying" and "Path feedback").
 *
 * Pure logic: compiles in the kernel and in userspace, where the unit
 * tests drive it with their own random numbers.  The caller serialises
 * access (the kernel holds the destination's lock).
 */
#ifndef _MRC_SPRAY_H
#define _MRC_SPRAY_H

#include <linux/types.h>

#include <mrc/config.h>

/* 2^8, the largest range EntropyMaskBits allows. */
#define MRC_SPRAY_MAX		256
/* A marked value is passed over for the first unmarked of the 7 after it. */
#define MRC_SPRAY_SKIP_WINDOW	7
/* Not in the active set, in mrc_spray.idx. */
#define MRC_SPRAY_NONE		0xffff

/* Per-value flags. */
#define MRC_EV_SKIP		0x01	/* marked: pass over once */
#define MRC_EV_BAD		0x02	/* assumed bad: out of the rotation */
/* A probe was numbered on it: answers to recent probes are taken.  Kept
 * by the caller; the rotation ignores it.
 */
#define MRC_EV_PROBED		0x04

/**
 * struct mrc_spray - the spraying state of one destination
 * @base: the first port of the range (StartingPortOffset)
 * @range: ports in the range, 2^EntropyMaskBits
 * @n: values in the active set
 * @pos: index in @ev of the next value the rotation offers
 * @nr_bad: values assumed bad
 * @probe_pos: index in @ev where the search for the next value to probe
 *	starts, so that bad values are probed in turn
 * @ev: the active set, as ports, in rotation order
 * @flags: MRC_EV_* of each value of @ev
 * @idx: index in @ev of each port of the range, or MRC_SPRAY_NONE
 */
struct mrc_spray {
	__u16 base;
	__u16 range;
	__u16 n;
	__u16 pos;
	__u16 nr_bad;
	__u16 probe_pos;
	__u16 ev[MRC_SPRAY_MAX];
	__u8 flags[MRC_SPRAY_MAX];
	__u16 idx[MRC_SPRAY_MAX];
};

/* What one choice of a value did, for the counters. */
struct mrc_spray_pick {
	__u16 port;		/* the entropy value to send on */
	__u8 cleared;		/* a skip mark was cleared */
};

/**
 * mrc_spray_init() - draw a destination's active set
 * @s: the state to fill
 * @cfg: the configuration in force now
 * @rnd: a source of random numbers
 * @ctx: passed to @rnd
 *
 * The active set is a random subset of the range in random order (a
 * partial Fisher-Yates shuffle of the range), entered at a random point;
 * every value is usable.
 *
 * The shuffle runs in @s->idx, which has room for the whole range, so it
 * needs no array of its own: kernel stacks are small, and the range may
 * have 256 values.  Its first @s->n entries end up holding the values
 * drawn, which are copied to @s->ev before @s->idx is made their index.
 */
static inline void mrc_spray_init(struct mrc_spray *s,
				  const struct mrc_config *cfg,
				  __u32 (*rnd)(void *ctx), void *ctx)
{
	__u16 *perm = s->idx;
	__u32 i;

	s->base = (__u16)cfg->starting_port_offset;
	s->range = (__u16)mrc_entropy_range(cfg);
	s->n = (__u16)mrc_active_set_size(cfg);
	s->nr_bad = 0;
	for (i = 0; i < s->range; i++)
		perm[i] = (__u16)i;
	for (i = 0; i < s->n; i++) {
		__u32 j = i + rnd(ctx) % (s->range - i);
		__u16 t = perm[i];

		perm[i] = perm[j];
		perm[j] = t;
		s->ev[i] = s->base + perm[i];
	}
	for (i = 0; i < MRC_SPRAY_MAX; i++) {
		s->idx[i] = MRC_SPRAY_NONE;
		s->flags[i] = 0;
	}
	for (i = 0; i < s->n; i++)
		s->idx[s->ev[i] - s->base] = (__u16)i;
	s->pos = (__u16)(rnd(ctx) % s->n);
	s->probe_pos = s->pos;
}

/* The index of @port in the active set, or MRC_SPRAY_NONE. */
static inline __u16 mrc_spray_index(const struct mrc_spray *s, __u32 port)
{
	if (port < s->base || port - s->base >= s->range)
		return MRC_SPRAY_NONE;
	return s->idx[port - s->base];
}

static inline __u16 mrc_spray_after(const struct mrc_spray *s, __u16 i)
{
	return i + 1 == s->n ? 0 : i + 1;
}

/* The first value at or after @i that is in the rotation. */
static inline __u16 mrc_spray_usable(const struct mrc_spray *s, __u16 i)
{
	while (s->flags[i] & MRC_EV_BAD)
		i = mrc_spray_after(s, i);
	return i;
}

/**
 * mrc_spray_next() - the entropy value of the next packet to a destination
 * @s: the destination's state
 *
 * The rotation's next value in use (not assumed bad).  If it is marked,
 * its mark is cleared and the first unmarked value in use among the
 * MRC_SPRAY_SKIP_WINDOW after it is taken instead, or the cleared value
 * itself if they are all marked; only that first mark is cleared.  With
 * every value assumed bad, all of them are used, so sending never stops.
 *
 * Return: the value and whether a mark was cleared.
 */
static inline struct mrc_spray_pick mrc_spray_next(struct mrc_spray *s)
{
	struct mrc_spray_pick p = { 0, 0 };
	__u16 i = s->pos, j, k;

	if (s->nr_bad < s->n)
		i = mrc_spray_usable(s, i);
	if (s->flags[i] & MRC_EV_SKIP) {
		s->flags[i] &= ~MRC_EV_SKIP;
		p.cleared = 1;
		for (j = i, k = 0; k < MRC_SPRAY_SKIP_WINDOW; k++) {
			j = mrc_spray_after(s, j);
			if (s->nr_bad < s->n)
				j = mrc_spray_usable(s, j);
			if (j == i)
				break;
			if (!(s->flags[j] & MRC_EV_SKIP)) {
				i = j;
				break;
			}
		}
	}
	s->pos = mrc_spray_after(s, i);
	p.port = s->ev[i];
	return p;
}

/**
 * mrc_spray_mark_skip() - feedback: pass over @port once
 * @s: the destination's state
 * @port: the value a trimmed packet was sent on
 *
 * Return: 1 if a mark was set, 0 if @port is not in the active set or
 * already marked.
 */
static inline int mrc_spray_mark_skip(struct mrc_spray *s, __u32 port)
{
	__u16 i = mrc_spray_index(s, port);

	if (i == MRC_SPRAY_NONE || s->flags[i] & MRC_EV_SKIP)
		return 0;
	s->flags[i] |= MRC_EV_SKIP;
	return 1;
}

/**
 * mrc_spray_mark_bad() - feedback: a transmission on @port timed out
 * @s: the destination's state
 * @port: its entropy value
 *
 * The value leaves the rotation until mrc_spray_restore().
 *
 * Return: 1 if it was usable until now, else 0.
 */
static inline int mrc_spray_mark_bad(struct mrc_spray *s, __u32 port)
{
	__u16 i = mrc_spray_index(s, port);

	if (i == MRC_SPRAY_NONE || s->flags[i] & MRC_EV_BAD)
		return 0;
	s->flags[i] |= MRC_EV_BAD;
	s->nr_bad++;
	return 1;
}

/**
 * mrc_spray_restore() - a probe on @port was answered
 * @s: the destination's state
 * @port: the probed value
 *
 * Return: 1 if it was assumed bad and is back in the rotation, else 0.
 */
static inline int mrc_spray_restore(struct mrc_spray *s, __u32 port)
{
	__u16 i = mrc_spray_index(s, port);

	if (i == MRC_SPRAY_NONE || !(s->flags[i] & MRC_EV_BAD))
		return 0;
	s->flags[i] &= ~MRC_EV_BAD;
	s->nr_bad--;
	return 1;
}

/**
 * mrc_spray_next_probe() - the value the next probe to a destination tests
 * @s: the destination's state
 *
 * Bad values are taken in turn: with k of them, each comes up once in k
 * calls.
 *
 * Return: the value, or -1 when none is assumed bad.
 */
static inline int mrc_spray_next_probe(struct mrc_spray *s)
{
	__u16 i = s->probe_pos, k;

	if (!s->nr_bad)
		return -1;
	for (k = 0; k < s->n; k++, i = mrc_spray_after(s, i)) {
		if (s->flags[i] & MRC_EV_BAD) {
			s->probe_pos = mrc_spray_after(s, i);
			return s->ev[i];
		}
	}
	return -1;
}

#endif /* _MRC_SPRAY_H */
