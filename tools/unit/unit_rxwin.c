// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of include/mrc/rxwin.h: the receive window's verdicts, the
 * cumulative point's moves and the SACK bitmap, through the cases the
 * anti-replay window tests of RFC 4303 and RFC 6479 list, turned to a
 * window that holds what was received ahead of the cumulative point:
 * in order, duplicates, both edges, jumps, the wrap of 24-bit PSNs, and
 * the point moving by 1, 63, 64, 65, 255, 256 and 257 at once.
 */
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"

#include <mrc/rxwin.h>

#define PSN_SPACE	(MRC_PSN_MASK + 1)

FIXTURE(rxw) {
	unsigned long map[MRC_RXWIN_LONGS];
	__u32 rcv_nxt;
	__u32 held;
	int by;			/* shift(): the case, named on failure */
	__u32 from;
};

FIXTURE_SETUP(rxw)
{
	memset(self->map, 0xa5, sizeof(self->map));
	mrc_rxwin_reset(self->map);
	self->rcv_nxt = 0;
	self->held = 0;
	self->by = -1;
}

FIXTURE_TEARDOWN(rxw)
{
	if (!_metadata->passed && self->by >= 0)
		TH_LOG("from %u by %d", self->from, self->by);
}

static __u32 psn(__u32 base, int n)
{
	return (base + (__u32)n) & MRC_PSN_MASK;
}

/* A data packet arrives: what the receive path does with the window. */
static enum mrc_rxwin_verdict rx(struct _test_data_rxw *self, __u32 p)
{
	enum mrc_rxwin_verdict v;

	v = mrc_rxwin_check(self->map, self->rcv_nxt, p);
	if (v == MRC_RXWIN_NEW) {
		mrc_rxwin_mark(self->map, p);
		self->held++;
		self->held -= mrc_rxwin_advance(self->map, &self->rcv_nxt);
	}
	return v;
}

/* Receive @n PSNs in order from @from. */
static void rx_run(struct _test_data_rxw *self, __u32 from, int n)
{
	int i;

	for (i = 0; i < n; i++)
		rx(self, psn(from, i));
}

/* Set bits of the bitmap: the PSNs held, as rx_held counts them. */
static __u32 popcount(const unsigned long *map)
{
	__u32 n = 0, i;

	for (i = 0; i < MRC_WINDOW; i++)
		n += mrc_rxwin_test(map, i);
	return n;
}

/* The cumulative point at @at, nothing held. */
static void start_at(struct _test_data_rxw *self, __u32 at)
{
	mrc_rxwin_reset(self->map);
	self->rcv_nxt = at;
	self->held = 0;
}

TEST_F(rxw, reset__empty)
{
	EXPECT_EQ(0, popcount(self->map));
	EXPECT_EQ(0, mrc_rxwin_sack(self->map, 0));
	EXPECT_EQ(MRC_WINDOW / (8 * sizeof(long)), MRC_RXWIN_LONGS);
}

TEST_F(rxw, in_order__each_new_point_follows)
{
	__u32 i;

	for (i = 0; i < 3 * MRC_WINDOW + 7; i++) {
		ASSERT_EQ(MRC_RXWIN_NEW, rx(self, i));
		ASSERT_EQ(i + 1, self->rcv_nxt);
		ASSERT_EQ(0, self->held);
		ASSERT_EQ(0, mrc_rxwin_sack(self->map, self->rcv_nxt));
	}
	EXPECT_EQ(0, popcount(self->map));
}

TEST_F(rxw, dup__of_the_last_is_behind)
{
	rx_run(self, 0, 10);
	EXPECT_EQ(MRC_RXWIN_BEHIND, rx(self, 9));
	EXPECT_EQ(MRC_RXWIN_BEHIND, rx(self, 0));
	EXPECT_EQ(10, self->rcv_nxt);
	EXPECT_EQ(0, self->held);
}

TEST_F(rxw, dup__inside_the_window)
{
	EXPECT_EQ(MRC_RXWIN_NEW, rx(self, 5));
	EXPECT_EQ(0, self->rcv_nxt);
	EXPECT_EQ(1, self->held);
	EXPECT_EQ(MRC_RXWIN_DUP, rx(self, 5));
	EXPECT_EQ(1, self->held);
	EXPECT_EQ(1ULL << 5, mrc_rxwin_sack(self->map, 0));
	EXPECT_EQ(MRC_RXWIN_NEW, rx(self, 4));
	EXPECT_EQ(MRC_RXWIN_DUP, rx(self, 4));
	EXPECT_EQ(2, self->held);
}

TEST_F(rxw, edge__left_just_inside_and_just_outside)
{
	rx_run(self, 0, 100);
	EXPECT_EQ(MRC_RXWIN_BEHIND, rx(self, 99));	/* just outside */
	EXPECT_EQ(MRC_RXWIN_NEW, rx(self, 100));	/* just inside */
	EXPECT_EQ(101, self->rcv_nxt);
}

TEST_F(rxw, edge__right_just_inside_and_exactly_a_window_ahead)
{
	rx_run(self, 0, 100);
	EXPECT_EQ(MRC_RXWIN_NEW, rx(self, 100 + MRC_WINDOW - 1));
	EXPECT_EQ(1, self->held);
	EXPECT_EQ(MRC_RXWIN_DUP, rx(self, 100 + MRC_WINDOW - 1));
	EXPECT_EQ(MRC_RXWIN_AHEAD, rx(self, 100 + MRC_WINDOW));
	EXPECT_EQ(MRC_RXWIN_AHEAD, rx(self, 100 + MRC_WINDOW + 1));
	EXPECT_EQ(100, self->rcv_nxt);
	EXPECT_EQ(1, self->held);
	EXPECT_EQ(1, popcount(self->map));
}

/* The half of the PSN space behind the point is taken as received. */
TEST_F(rxw, jump__far_ahead_is_out_until_half_the_space)
{
	rx_run(self, 0, 100);
	EXPECT_EQ(MRC_RXWIN_AHEAD, rx(self, 100 + 1000));
	EXPECT_EQ(MRC_RXWIN_AHEAD, rx(self, psn(100, 0x7fffff)));
	EXPECT_EQ(MRC_RXWIN_BEHIND, rx(self, psn(100, 0x800000)));
	EXPECT_EQ(MRC_RXWIN_BEHIND, rx(self, psn(100, -0x800000)));
	EXPECT_EQ(MRC_RXWIN_AHEAD, rx(self, psn(100, -0x800001)));
	EXPECT_EQ(MRC_RXWIN_BEHIND, rx(self, psn(100, -MRC_WINDOW - 1)));
	EXPECT_EQ(100, self->rcv_nxt);
	EXPECT_EQ(0, self->held);
}

TEST_F(rxw, full__window_held_but_its_first_psn)
{
	int i;

	for (i = MRC_WINDOW - 1; i >= 1; i--)
		ASSERT_EQ(MRC_RXWIN_NEW, rx(self, i));
	EXPECT_EQ(MRC_WINDOW - 1, self->held);
	EXPECT_EQ(MRC_WINDOW - 1, popcount(self->map));
	EXPECT_EQ(~1ULL, mrc_rxwin_sack(self->map, 0));
	EXPECT_EQ(MRC_RXWIN_AHEAD, rx(self, MRC_WINDOW));
	EXPECT_EQ(MRC_RXWIN_NEW, rx(self, 0));
	EXPECT_EQ(MRC_WINDOW, self->rcv_nxt);
	EXPECT_EQ(0, self->held);
	EXPECT_EQ(0, popcount(self->map));
}

/* The bit a PSN leaves is its successor's a window later: cleared. */
TEST_F(rxw, reuse__a_window_later_is_new)
{
	rx_run(self, 0, MRC_WINDOW);
	EXPECT_EQ(MRC_RXWIN_NEW, rx(self, MRC_WINDOW + 1));
	EXPECT_EQ(MRC_RXWIN_NEW, rx(self, 2 * MRC_WINDOW - 1));
	EXPECT_EQ(MRC_RXWIN_AHEAD, rx(self, 2 * MRC_WINDOW));
	EXPECT_EQ(MRC_RXWIN_NEW, rx(self, MRC_WINDOW));
	EXPECT_EQ(MRC_WINDOW + 2, self->rcv_nxt);
	EXPECT_EQ(1, self->held);
}

TEST_F(rxw, wrap__in_order_across_2_24)
{
	start_at(self, MRC_PSN_MASK - 2);
	rx_run(self, MRC_PSN_MASK - 2, 5);
	EXPECT_EQ(2, self->rcv_nxt);
	EXPECT_EQ(0, self->held);
	EXPECT_EQ(MRC_RXWIN_BEHIND, rx(self, MRC_PSN_MASK));
	EXPECT_EQ(MRC_RXWIN_BEHIND, rx(self, 1));
	EXPECT_EQ(MRC_RXWIN_NEW, rx(self, 2));
}

TEST_F(rxw, wrap__held_across_2_24)
{
	start_at(self, PSN_SPACE - 16);
	EXPECT_EQ(MRC_RXWIN_NEW, rx(self, 16));		/* 32 ahead */
	EXPECT_EQ(MRC_RXWIN_DUP, rx(self, 16));
	EXPECT_EQ(1ULL << 32, mrc_rxwin_sack(self->map, self->rcv_nxt));
	EXPECT_EQ(MRC_RXWIN_NEW, rx(self, psn(PSN_SPACE - 16, MRC_WINDOW - 1)));
	EXPECT_EQ(MRC_RXWIN_AHEAD, rx(self, psn(PSN_SPACE - 16, MRC_WINDOW)));
	rx_run(self, PSN_SPACE - 16, 32);
	EXPECT_EQ(17, self->rcv_nxt);
	EXPECT_EQ(1, self->held);
	EXPECT_EQ(MRC_RXWIN_BEHIND, rx(self, PSN_SPACE - 16));
	EXPECT_EQ(MRC_RXWIN_BEHIND, rx(self, PSN_SPACE - 1));
}

TEST_F(rxw, sack__first_64_of_the_window)
{
	rx_run(self, 0, 1000);
	rx(self, 1001);
	rx(self, 1002);
	rx(self, 1063);
	rx(self, 1064);		/* held, past the bitmap */
	rx(self, 1200);
	EXPECT_EQ(5, self->held);
	EXPECT_EQ((1ULL << 1) | (1ULL << 2) | (1ULL << 63),
		  mrc_rxwin_sack(self->map, self->rcv_nxt));
	rx(self, 1000);
	EXPECT_EQ(1003, self->rcv_nxt);
	/* Now 1063 is bit 60, 1064 bit 61. */
	EXPECT_EQ((1ULL << 60) | (1ULL << 61),
		  mrc_rxwin_sack(self->map, self->rcv_nxt));
}

/* One PSN held @n ahead, then the gap filled in order: the point moves
 * by @n + 1 with the last of it; or @n is past the window.
 */
static void shift(struct _test_data_rxw *self,
		  struct __test_metadata *_metadata, __u32 from, int n)
{
	enum mrc_rxwin_verdict v;
	int i;

	self->from = from;
	self->by = n;
	start_at(self, from);
	v = rx(self, psn(from, n));
	if (n >= MRC_WINDOW) {
		ASSERT_EQ(MRC_RXWIN_AHEAD, v);
		ASSERT_EQ(from, self->rcv_nxt);
		ASSERT_EQ(0, self->held);
		ASSERT_EQ(0, popcount(self->map));
		return;
	}
	ASSERT_EQ(MRC_RXWIN_NEW, v);
	ASSERT_EQ(1, self->held);
	ASSERT_EQ(n < 64 ? 1ULL << n : 0,
		  mrc_rxwin_sack(self->map, self->rcv_nxt));
	for (i = 0; i < n - 1; i++) {
		ASSERT_EQ(MRC_RXWIN_NEW, rx(self, psn(from, i)));
		ASSERT_EQ(psn(from, i + 1), self->rcv_nxt);
		ASSERT_EQ(1, self->held);
	}
	ASSERT_EQ(MRC_RXWIN_NEW, rx(self, psn(from, n - 1)));
	ASSERT_EQ(psn(from, n + 1), self->rcv_nxt);
	ASSERT_EQ(0, self->held);
	ASSERT_EQ(0, popcount(self->map));
	ASSERT_EQ(MRC_RXWIN_BEHIND, rx(self, psn(from, n)));
	ASSERT_EQ(MRC_RXWIN_NEW, rx(self, psn(from, n + MRC_WINDOW)));
}

TEST_F(rxw, shift__by_1_63_64_65_255_256_257)
{
	static const int n[] = { 1, 63, 64, 65, 255, 256, 257 };
	static const __u32 from[] = {
		0, 1, 63, 64, 1000, PSN_SPACE - 300, PSN_SPACE - 64,
		PSN_SPACE - 1,
	};
	unsigned int i, j;

	for (j = 0; j < ARRAY_SIZE(from); j++)
		for (i = 0; i < ARRAY_SIZE(n); i++)
			shift(self, _metadata, from[j], n[i]);
}

TEST_F(rxw, reverse__a_whole_window_then_one_move)
{
	int i;

	start_at(self, PSN_SPACE - 100);
	for (i = MRC_WINDOW - 1; i >= 0; i--)
		ASSERT_EQ(MRC_RXWIN_NEW, rx(self, psn(PSN_SPACE - 100, i)));
	EXPECT_EQ(MRC_WINDOW - 100, self->rcv_nxt);
	EXPECT_EQ(0, self->held);
}

static __u32 rnd(__u32 *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 17;
	*x ^= *x << 5;
	return *x;
}

/* Random arrivals around the point, across the wrap, against a model
 * that keeps every PSN of the space.
 */
TEST_F(rxw, random__against_a_model_of_the_whole_space)
{
	unsigned char *got = calloc(PSN_SPACE, 1);
	__u32 seed = 1234567u, nxt, p, r, i, k;
	enum mrc_rxwin_verdict want;
	__u64 sack;

	ASSERT_NE(NULL, got);
	nxt = PSN_SPACE - 5000;
	start_at(self, nxt);
	for (i = 0; i < 200000; i++) {
		r = rnd(&seed);
		/* Mostly the window, some behind it, some past it. */
		p = psn(nxt, (int)(r % 700) - 200);
		if (r % 97 == 0)
			p = psn(nxt, r >> 8);
		if (mrc_psn_diff(p, nxt) >= MRC_WINDOW)
			want = mrc_psn_diff(p, nxt) >= 0x800000 ?
			       MRC_RXWIN_BEHIND : MRC_RXWIN_AHEAD;
		else
			want = got[p] ? MRC_RXWIN_DUP : MRC_RXWIN_NEW;
		ASSERT_EQ(want, rx(self, p));
		if (want == MRC_RXWIN_NEW)
			got[p] = 1;
		while (got[nxt])
			nxt = psn(nxt, 1);
		ASSERT_EQ(nxt, self->rcv_nxt);
		ASSERT_EQ(popcount(self->map), self->held);
		if (i % 64)
			continue;
		for (sack = 0, k = 0; k < 64; k++)
			if (got[psn(nxt, k)])
				sack |= 1ULL << k;
		ASSERT_EQ(sack, mrc_rxwin_sack(self->map, nxt));
		for (k = 0; k < MRC_WINDOW; k++)
			ASSERT_EQ(got[psn(nxt, k)],
				  mrc_rxwin_test(self->map, psn(nxt, k)));
	}
	EXPECT_LT(self->rcv_nxt, PSN_SPACE - 5000);	/* it did wrap */
	free(got);
}

TEST_HARNESS_MAIN
