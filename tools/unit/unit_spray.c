// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of include/mrc/spray.h: the active set, the rotation, the
 * skip rule, values assumed bad and probes, against spec/multipath.md.
 */
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"

#include <mrc/spray.h>

/* xorshift32: the tests replay exactly. */
static __u32 rnd(void *ctx)
{
	__u32 *x = ctx;

	*x ^= *x << 13;
	*x ^= *x >> 17;
	*x ^= *x << 5;
	return *x;
}

FIXTURE(spray) {
	struct mrc_config c;
	struct mrc_spray s;
	__u32 seed;
};

FIXTURE_SETUP(spray)
{
	mrc_config_defaults(&self->c);
	self->seed = 2463534242u;
}

FIXTURE_TEARDOWN(spray)
{
}

static void init(struct _test_data_spray *self)
{
	mrc_spray_init(&self->s, &self->c, rnd, &self->seed);
}

static __u16 next(struct mrc_spray *s)
{
	return mrc_spray_next(s).port;
}

TEST_F(spray, init__defaults_72_distinct_values_in_range)
{
	int seen[MRC_SPRAY_MAX] = { 0 };
	int i;

	init(self);
	ASSERT_EQ(72, self->s.n);
	EXPECT_EQ(128, self->s.range);
	EXPECT_EQ(256, self->s.base);
	for (i = 0; i < self->s.n; i++) {
		__u16 v = self->s.ev[i];

		ASSERT_GE(v, 256);
		ASSERT_LE(v, 383);
		EXPECT_EQ(0, seen[v - 256]++);
		EXPECT_EQ(i, mrc_spray_index(&self->s, v));
	}
	EXPECT_EQ(0, self->s.nr_bad);
	EXPECT_LT(self->s.pos, 72);
}

TEST_F(spray, init__sets_differ_between_draws)
{
	struct mrc_spray a;

	init(self);
	a = self->s;
	init(self);
	EXPECT_NE(0, memcmp(a.ev, self->s.ev, sizeof(a.ev)));
}

/* The draw as it was made with an array of its own on the stack: the
 * shuffle in place must give the same set, order and start from the
 * same random numbers.
 */
static void init_reference(struct mrc_spray *s, const struct mrc_config *c,
			   __u32 *seed)
{
	__u16 perm[MRC_SPRAY_MAX];
	__u32 i;

	memset(s, 0, sizeof(*s));
	s->base = (__u16)c->starting_port_offset;
	s->range = (__u16)mrc_entropy_range(c);
	s->n = (__u16)mrc_active_set_size(c);
	for (i = 0; i < s->range; i++)
		perm[i] = (__u16)i;
	for (i = 0; i < MRC_SPRAY_MAX; i++)
		s->idx[i] = MRC_SPRAY_NONE;
	for (i = 0; i < s->n; i++) {
		__u32 j = i + rnd(seed) % (s->range - i);
		__u16 t = perm[i];

		perm[i] = perm[j];
		perm[j] = t;
		s->ev[i] = s->base + perm[i];
		s->idx[perm[i]] = (__u16)i;
	}
	s->pos = (__u16)(rnd(seed) % s->n);
	s->probe_pos = s->pos;
}

TEST_F(spray, init__in_place_shuffle_draws_as_before)
{
	static const struct {
		__u32 bits, offset, size;
	} cases[] = {
		{ 7, 256, 0 }, { 8, 65280, 256 }, { 8, 1000, 255 },
		{ 0, 5000, 0 }, { 3, 40000, 1 }, { 5, 0, 1000 },
	};
	struct mrc_spray want;
	__u32 seed, k, i;

	for (k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		self->c.entropy_mask_bits = cases[k].bits;
		self->c.starting_port_offset = cases[k].offset;
		self->c.active_ev_set_size = cases[k].size;
		seed = self->seed + k;
		init_reference(&want, &self->c, &seed);
		seed = self->seed + k;
		/* What the shuffle leaves in idx must not survive. */
		memset(&self->s, 0x5a, sizeof(self->s));
		mrc_spray_init(&self->s, &self->c, rnd, &seed);
		ASSERT_EQ(want.n, self->s.n);
		EXPECT_EQ(want.range, self->s.range);
		EXPECT_EQ(want.pos, self->s.pos);
		EXPECT_EQ(want.probe_pos, self->s.probe_pos);
		EXPECT_EQ(0, self->s.nr_bad);
		EXPECT_EQ(0, memcmp(want.ev, self->s.ev,
				    want.n * sizeof(want.ev[0])));
		EXPECT_EQ(0, memcmp(want.idx, self->s.idx, sizeof(want.idx)));
		for (i = 0; i < MRC_SPRAY_MAX; i++)
			ASSERT_EQ(0, self->s.flags[i]);
	}
}

TEST_F(spray, init__zero_bits_one_value_at_offset)
{
	int i;

	self->c.entropy_mask_bits = 0;
	self->c.starting_port_offset = 5000;
	init(self);
	ASSERT_EQ(1, self->s.n);
	for (i = 0; i < 10; i++)
		EXPECT_EQ(5000, next(&self->s));
}

TEST_F(spray, init__set_size_1_one_random_port)
{
	__u16 v;
	int i;

	self->c.active_ev_set_size = 1;
	init(self);
	ASSERT_EQ(1, self->s.n);
	v = next(&self->s);
	EXPECT_GE(v, 256);
	EXPECT_LE(v, 383);
	for (i = 0; i < 10; i++)
		EXPECT_EQ(v, next(&self->s));
}

TEST_F(spray, init__set_size_above_range_whole_range)
{
	self->c.active_ev_set_size = 1000;
	self->c.entropy_mask_bits = 8;
	init(self);
	EXPECT_EQ(256, self->s.n);
}

/* The spec's worked example: a lone 1 MiB message of 4096-byte packets
 * steps 256 packets through 72 values: 40 carry 4, 32 carry 3.
 */
TEST_F(spray, rotation__worked_example_1mib)
{
	int count[MRC_SPRAY_MAX] = { 0 }, by[5] = { 0 };
	int pkts = (1 << 20) / self->c.mss, i;

	init(self);
	ASSERT_EQ(256, pkts);
	for (i = 0; i < pkts; i++)
		count[next(&self->s) - 256]++;
	for (i = 0; i < 128; i++) {
		if (mrc_spray_index(&self->s, 256 + i) == MRC_SPRAY_NONE) {
			EXPECT_EQ(0, count[i]);
			continue;
		}
		ASSERT_GE(count[i], 3);
		ASSERT_LE(count[i], 4);
		by[count[i]]++;
	}
	EXPECT_EQ(40, by[4]);
	EXPECT_EQ(32, by[3]);
}

TEST_F(spray, rotation__follows_active_set_order)
{
	int i, start;

	init(self);
	start = self->s.pos;
	for (i = 0; i < 200; i++)
		EXPECT_EQ(self->s.ev[(start + i) % 72], next(&self->s));
}

TEST_F(spray, skip__marked_value_passed_over_once)
{
	struct mrc_spray_pick p;
	__u16 a, b, c;
	int start;

	init(self);
	start = self->s.pos;
	a = self->s.ev[start];
	b = self->s.ev[(start + 1) % 72];
	c = self->s.ev[(start + 2) % 72];
	EXPECT_EQ(1, mrc_spray_mark_skip(&self->s, a));
	EXPECT_EQ(0, mrc_spray_mark_skip(&self->s, a));
	p = mrc_spray_next(&self->s);
	EXPECT_EQ(b, p.port);
	EXPECT_EQ(1, p.cleared);
	EXPECT_EQ(c, next(&self->s));
	/* Next time round, a is usable again. */
	while (self->s.pos != start)
		next(&self->s);
	EXPECT_EQ(a, next(&self->s));
}

TEST_F(spray, skip__takes_first_unmarked_of_next_7_clears_only_first)
{
	int start, i;

	init(self);
	start = self->s.pos;
	/* Marked: start .. start+3; the 5th value is taken. */
	for (i = 0; i < 4; i++)
		mrc_spray_mark_skip(&self->s, self->s.ev[(start + i) % 72]);
	EXPECT_EQ(self->s.ev[(start + 4) % 72], next(&self->s));
	EXPECT_FALSE(self->s.flags[start] & MRC_EV_SKIP);
	for (i = 1; i < 4; i++)
		EXPECT_TRUE(self->s.flags[(start + i) % 72] & MRC_EV_SKIP);
	EXPECT_EQ((start + 5) % 72, self->s.pos);
}

TEST_F(spray, skip__all_8_marked_uses_cleared_value)
{
	int start, i;

	init(self);
	start = self->s.pos;
	for (i = 0; i < 8; i++)
		mrc_spray_mark_skip(&self->s, self->s.ev[(start + i) % 72]);
	EXPECT_EQ(self->s.ev[start], next(&self->s));
	EXPECT_FALSE(self->s.flags[start] & MRC_EV_SKIP);
	for (i = 1; i < 8; i++)
		EXPECT_TRUE(self->s.flags[(start + i) % 72] & MRC_EV_SKIP);
}

TEST_F(spray, skip__value_outside_set_ignored)
{
	init(self);
	EXPECT_EQ(0, mrc_spray_mark_skip(&self->s, 100));
	EXPECT_EQ(0, mrc_spray_mark_skip(&self->s, 60000));
	EXPECT_EQ(0, mrc_spray_mark_bad(&self->s, 384));
	EXPECT_EQ(0, mrc_spray_restore(&self->s, 255));
}

TEST_F(spray, bad__value_leaves_rotation_until_restored)
{
	__u16 bad;
	int i;

	init(self);
	bad = self->s.ev[5];
	EXPECT_EQ(1, mrc_spray_mark_bad(&self->s, bad));
	EXPECT_EQ(0, mrc_spray_mark_bad(&self->s, bad));
	EXPECT_EQ(1, self->s.nr_bad);
	for (i = 0; i < 3 * 72; i++)
		ASSERT_NE(bad, next(&self->s));
	EXPECT_EQ(1, mrc_spray_restore(&self->s, bad));
	EXPECT_EQ(0, mrc_spray_restore(&self->s, bad));
	EXPECT_EQ(0, self->s.nr_bad);
	for (i = 0; i < 72; i++)
		if (next(&self->s) == bad)
			break;
	EXPECT_LT(i, 72);
}

TEST_F(spray, bad__all_bad_still_sends_on_every_value)
{
	int count[MRC_SPRAY_MAX] = { 0 }, i;

	init(self);
	for (i = 0; i < 72; i++)
		mrc_spray_mark_bad(&self->s, self->s.ev[i]);
	EXPECT_EQ(72, self->s.nr_bad);
	for (i = 0; i < 144; i++)
		count[next(&self->s) - 256]++;
	for (i = 0; i < 72; i++)
		EXPECT_EQ(2, count[self->s.ev[i] - 256]);
}

TEST_F(spray, bad__skip_window_counts_only_values_in_use)
{
	int start, i;

	init(self);
	start = self->s.pos;
	mrc_spray_mark_skip(&self->s, self->s.ev[start]);
	/* The next 7 after it: bad, so the skip lands beyond them. */
	for (i = 1; i <= 7; i++)
		mrc_spray_mark_bad(&self->s, self->s.ev[(start + i) % 72]);
	EXPECT_EQ(self->s.ev[(start + 8) % 72], next(&self->s));
}

TEST_F(spray, probe__bad_values_in_turn)
{
	int seen[3] = { 0 }, i, j;
	__u16 v[3];

	init(self);
	EXPECT_EQ(-1, mrc_spray_next_probe(&self->s));
	v[0] = self->s.ev[3];
	v[1] = self->s.ev[40];
	v[2] = self->s.ev[70];
	for (i = 0; i < 3; i++)
		mrc_spray_mark_bad(&self->s, v[i]);
	/* k = 3 bad values: each is probed once in every 3 probes. */
	for (i = 0; i < 9; i++) {
		int p = mrc_spray_next_probe(&self->s);

		for (j = 0; j < 3; j++)
			if (p == v[j])
				seen[j]++;
	}
	for (j = 0; j < 3; j++)
		EXPECT_EQ(3, seen[j]);
	mrc_spray_restore(&self->s, v[1]);
	for (i = 0; i < 4; i++) {
		int p = mrc_spray_next_probe(&self->s);

		EXPECT_NE(v[1], p);
		EXPECT_TRUE(p == v[0] || p == v[2]);
	}
}

/* A probe not sent (its egress queue stopped) still took its value's
 * turn: the rotation moves on, and the value comes up again k probes
 * later, as if its probe had been lost.
 */
TEST_F(spray, probe__turn_not_taken_comes_back_after_k)
{
	int skipped, i;

	init(self);
	mrc_spray_mark_bad(&self->s, self->s.ev[10]);
	mrc_spray_mark_bad(&self->s, self->s.ev[20]);
	mrc_spray_mark_bad(&self->s, self->s.ev[30]);
	skipped = mrc_spray_next_probe(&self->s);
	for (i = 0; i < 2; i++)
		EXPECT_NE(skipped, mrc_spray_next_probe(&self->s));
	EXPECT_EQ(skipped, mrc_spray_next_probe(&self->s));
}

TEST_F(spray, range__top_of_port_space)
{
	int i;

	self->c.entropy_mask_bits = 8;
	self->c.starting_port_offset = 65280;
	self->c.active_ev_set_size = 256;
	init(self);
	ASSERT_EQ(256, self->s.n);
	for (i = 0; i < 512; i++) {
		__u16 v = next(&self->s);

		ASSERT_GE(v, 65280);
	}
	EXPECT_EQ(1, mrc_spray_mark_bad(&self->s, 65535));
	EXPECT_EQ(65535, mrc_spray_next_probe(&self->s));
}

TEST_HARNESS_MAIN
