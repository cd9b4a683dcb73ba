// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of include/mrc/sack.h: the sender's scoreboard, what is in
 * flight, what a SACK takes out of it, and the packets the SACK gaps show
 * lost, by depth and by time, with the clock passed in.
 */
#include <string.h>

#include "kselftest_harness.h"

#include <mrc/sack.h>

#define US		1000ULL
#define LEN		1000

FIXTURE(sb) {
	struct mrc_tx_pkt ring[MRC_WINDOW];
	__u32 snd_una;
	__u32 snd_nxt;
	__u32 high_sacked;
	__u32 inflight;
	__u32 nr_lost;
	struct mrc_sb_loss l;
};

FIXTURE_SETUP(sb)
{
	memset(self->ring, 0, sizeof(self->ring));
	self->snd_una = 0;
	self->snd_nxt = 0;
	self->high_sacked = 0;
	self->inflight = 0;
	self->nr_lost = 0;
	self->l.now_ns = 1000000 * US;
	self->l.depth = 8;	/* SACKLossMinRetxPkts' default */
	self->l.srtt_us = 10;
	self->l.max_rtt_us = 20;
}

FIXTURE_TEARDOWN(sb)
{
}

static struct mrc_tx_pkt *txp(struct _test_data_sb *self, __u32 psn)
{
	return &self->ring[psn % MRC_WINDOW];
}

static void start_at(struct _test_data_sb *self, __u32 psn)
{
	self->snd_una = psn;
	self->snd_nxt = psn;
	self->high_sacked = psn;
}

/* Send @n packets of @len bytes, at the time now. */
static void tx(struct _test_data_sb *self, int n, __u16 len)
{
	while (n--) {
		struct mrc_tx_pkt *e = txp(self, self->snd_nxt);

		memset(e, 0, sizeof(*e));
		e->len = len;
		e->tx_ns = self->l.now_ns;
		self->inflight += len;
		self->snd_nxt = mrc_psn_add(self->snd_nxt, 1);
	}
}

/* A SACK names @psn, as mrc_qp_rx_ack() takes it. */
static __u32 sack(struct _test_data_sb *self, __u32 psn)
{
	__u32 n;

	if (!mrc_sb_inflight(self->snd_una, self->snd_nxt, psn))
		return 0;
	n = mrc_sb_sacked(txp(self, psn), &self->inflight, &self->nr_lost);
	mrc_sb_received(&self->high_sacked, psn);
	return n;
}

static void losses(struct _test_data_sb *self)
{
	mrc_sb_losses(self->ring, self->snd_una, self->high_sacked, &self->l,
		      &self->inflight, &self->nr_lost);
}

TEST_F(sb, inflight__from_una_to_nxt)
{
	start_at(self, 10);
	tx(self, 10, LEN);
	EXPECT_FALSE(mrc_sb_inflight(self->snd_una, self->snd_nxt, 9));
	EXPECT_TRUE(mrc_sb_inflight(self->snd_una, self->snd_nxt, 10));
	EXPECT_TRUE(mrc_sb_inflight(self->snd_una, self->snd_nxt, 19));
	EXPECT_FALSE(mrc_sb_inflight(self->snd_una, self->snd_nxt, 20));
	EXPECT_FALSE(mrc_sb_inflight(10, 10, 10));	/* nothing out */
	EXPECT_EQ(10 * LEN, self->inflight);
}

TEST_F(sb, inflight__across_the_wrap)
{
	EXPECT_TRUE(mrc_sb_inflight(MRC_PSN_MASK - 15, 16, MRC_PSN_MASK));
	EXPECT_TRUE(mrc_sb_inflight(MRC_PSN_MASK - 15, 16, 0));
	EXPECT_TRUE(mrc_sb_inflight(MRC_PSN_MASK - 15, 16, 15));
	EXPECT_FALSE(mrc_sb_inflight(MRC_PSN_MASK - 15, 16, 16));
	EXPECT_FALSE(mrc_sb_inflight(MRC_PSN_MASK - 15, 16,
				     MRC_PSN_MASK - 16));
}

TEST_F(sb, sacked__once_out_of_the_flight)
{
	tx(self, 3, LEN);
	EXPECT_EQ(LEN, sack(self, 1));
	EXPECT_EQ(2 * LEN, self->inflight);
	EXPECT_EQ(MRC_TXP_SACKED, txp(self, 1)->flags);
	EXPECT_EQ(0, sack(self, 1));
	EXPECT_EQ(2 * LEN, self->inflight);
	EXPECT_EQ(2, self->high_sacked);
}

TEST_F(sb, sacked__a_lost_one_leaves_the_loss_count)
{
	struct mrc_tx_pkt *e;

	tx(self, 3, LEN);
	e = txp(self, 0);
	e->flags = MRC_TXP_LOST | MRC_TXP_LOST_RTO | MRC_TXP_RETX;
	self->inflight -= LEN;
	self->nr_lost = 1;
	EXPECT_EQ(LEN, sack(self, 0));
	EXPECT_EQ(0, self->nr_lost);
	EXPECT_EQ(2 * LEN, self->inflight);
	EXPECT_EQ(MRC_TXP_SACKED | MRC_TXP_RETX, e->flags);
}

/* One lost as too large for the path (an ICMP error), resent in
 * fragments: its loss flags go, what it was sent as stays.
 */
TEST_F(sb, sacked__lost_to_the_mtu)
{
	struct mrc_tx_pkt *e;

	tx(self, 2, LEN);
	e = txp(self, 1);
	e->flags = MRC_TXP_LOST | MRC_TXP_LOST_MTU | MRC_TXP_FRAG;
	self->inflight -= LEN;
	self->nr_lost = 1;
	EXPECT_EQ(LEN, sack(self, 1));
	EXPECT_EQ(0, self->nr_lost);
	EXPECT_EQ(LEN, self->inflight);
	EXPECT_EQ(MRC_TXP_SACKED | MRC_TXP_FRAG, e->flags);
}

TEST_F(sb, received__only_moves_up)
{
	mrc_sb_received(&self->high_sacked, 5);
	EXPECT_EQ(6, self->high_sacked);
	mrc_sb_received(&self->high_sacked, 3);
	EXPECT_EQ(6, self->high_sacked);
	mrc_sb_received(&self->high_sacked, 5);
	EXPECT_EQ(6, self->high_sacked);
	self->high_sacked = MRC_PSN_MASK - 1;
	mrc_sb_received(&self->high_sacked, MRC_PSN_MASK);
	EXPECT_EQ(0, self->high_sacked);
	mrc_sb_received(&self->high_sacked, 2);
	EXPECT_EQ(3, self->high_sacked);
	mrc_sb_received(&self->high_sacked, MRC_PSN_MASK - 3);
	EXPECT_EQ(3, self->high_sacked);
}

TEST_F(sb, losses__below_more_than_depth_received)
{
	__u32 psn;

	tx(self, 20, LEN);
	for (psn = 10; psn < 20; psn++)
		sack(self, psn);
	self->l.now_ns += 1000 * US;
	losses(self);
	/* Highest 19: PSNs 0..10 have more than 8 above; 10 arrived. */
	EXPECT_EQ(10, self->nr_lost);
	EXPECT_EQ(0, self->inflight);
	for (psn = 0; psn < 10; psn++) {
		EXPECT_EQ(MRC_TXP_LOST, txp(self, psn)->flags);
		EXPECT_EQ(19 - psn, txp(self, psn)->lost_depth);
	}
	/* A second scan finds nothing new. */
	losses(self);
	EXPECT_EQ(10, self->nr_lost);
}

TEST_F(sb, losses__exactly_depth_above_is_reordering)
{
	tx(self, 10, LEN);
	sack(self, 8);		/* 8 above PSN 0: not yet */
	self->l.now_ns += 1000 * US;
	losses(self);
	EXPECT_EQ(0, self->nr_lost);
	sack(self, 9);		/* 9 above it */
	losses(self);
	EXPECT_EQ(1, self->nr_lost);
	EXPECT_EQ(MRC_TXP_LOST, txp(self, 0)->flags);
	EXPECT_EQ(0, txp(self, 1)->flags);
	EXPECT_EQ(9, txp(self, 0)->lost_depth);
}

TEST_F(sb, losses__deeper_reordering_waits_longer)
{
	tx(self, 40, LEN);
	sack(self, 39);
	self->l.now_ns += 1000 * US;
	self->l.depth = 30;
	losses(self);
	EXPECT_EQ(9, self->nr_lost);	/* 0..8: more than 30 below 39 */
	EXPECT_EQ(LEN * (40 - 1 - 9), self->inflight);
}

TEST_F(sb, losses__none_while_nothing_above_una)
{
	tx(self, 20, LEN);
	self->l.now_ns += 1000 * US;
	losses(self);
	EXPECT_EQ(0, self->nr_lost);
	self->high_sacked = mrc_psn_add(self->snd_una, MRC_PSN_MASK);
	losses(self);		/* behind snd_una */
	EXPECT_EQ(0, self->nr_lost);
}

TEST_F(sb, losses__out_one_and_a_half_slowest_rtt)
{
	tx(self, 1, LEN);
	self->l.now_ns += 10 * US;
	tx(self, 9, LEN);
	sack(self, 9);
	self->l.max_rtt_us = 101;	/* 1.5 x: 151 us, rounded down */
	self->l.now_ns += 140 * US;	/* PSN 0 out 150 us */
	losses(self);
	EXPECT_EQ(0, self->nr_lost);
	self->l.now_ns += 1 * US - 1;
	losses(self);
	EXPECT_EQ(0, self->nr_lost);
	self->l.now_ns += 1;		/* 151 us */
	losses(self);
	EXPECT_EQ(1, self->nr_lost);
	EXPECT_EQ(MRC_TXP_LOST, txp(self, 0)->flags);
}

TEST_F(sb, losses__a_retransmission_gets_two_srtt)
{
	tx(self, 10, LEN);
	sack(self, 9);
	txp(self, 0)->flags = MRC_TXP_RETX;
	self->l.srtt_us = 100;
	self->l.max_rtt_us = 0;
	self->l.now_ns += 199 * US;
	losses(self);
	EXPECT_EQ(0, self->nr_lost);
	self->l.now_ns += 1 * US;
	losses(self);
	EXPECT_EQ(1, self->nr_lost);
	EXPECT_EQ(MRC_TXP_RETX | MRC_TXP_LOST, txp(self, 0)->flags);
}

TEST_F(sb, losses__no_srtt_yet_counts_as_1us)
{
	tx(self, 10, LEN);
	sack(self, 9);
	txp(self, 0)->flags = MRC_TXP_RETX;
	self->l.srtt_us = 0;
	self->l.max_rtt_us = 0;
	self->l.now_ns += 2 * US - 1;
	losses(self);
	EXPECT_EQ(0, self->nr_lost);
	self->l.now_ns += 1;
	losses(self);
	EXPECT_EQ(1, self->nr_lost);
}

TEST_F(sb, losses__depth_of_a_whole_window)
{
	tx(self, MRC_WINDOW, LEN);
	sack(self, MRC_WINDOW - 1);
	self->l.now_ns += 1000 * US;
	losses(self);
	EXPECT_EQ(MRC_WINDOW - 1 - 8, self->nr_lost);
	EXPECT_EQ(MRC_WINDOW - 1, txp(self, 0)->lost_depth);
	EXPECT_EQ(9, txp(self, MRC_WINDOW - 10)->lost_depth);
	EXPECT_EQ(0, txp(self, MRC_WINDOW - 9)->flags);
}

TEST_F(sb, losses__across_the_psn_wrap)
{
	__u32 from = MRC_PSN_MASK - 4;

	start_at(self, from);
	tx(self, 20, LEN);
	sack(self, mrc_psn_add(from, 19));
	self->l.now_ns += 1000 * US;
	losses(self);
	EXPECT_EQ(11, self->nr_lost);	/* from .. from + 10 */
	EXPECT_EQ(MRC_TXP_LOST, txp(self, MRC_PSN_MASK)->flags);
	EXPECT_EQ(MRC_TXP_LOST, txp(self, 5)->flags);
	EXPECT_EQ(0, txp(self, 6)->flags);
	EXPECT_EQ(19, txp(self, from)->lost_depth);
}

TEST_F(sb, losses__across_the_clock_wrap)
{
	self->l.now_ns = ~0ULL - 50 * US;
	tx(self, 10, LEN);
	sack(self, 9);
	self->l.max_rtt_us = 54;	/* 81 us */
	self->l.now_ns = 31 * US - 2;	/* 81 us later, 1 ns short */
	losses(self);
	EXPECT_EQ(0, self->nr_lost);
	self->l.now_ns++;
	losses(self);
	EXPECT_EQ(1, self->nr_lost);
}

static __u32 rnd(__u32 *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 17;
	*x ^= *x << 5;
	return *x;
}

/* Sends, SACKs, cumulative ACKs (as mrc_qp_rx_ack() does them) and loss
 * scans at random: the counters always match the ring.
 */
TEST_F(sb, random__counters_match_the_ring)
{
	__u32 seed = 424242u, i, k, r, in, lost, n;

	start_at(self, MRC_PSN_MASK - 1000);
	for (i = 0; i < 100000; i++) {
		r = rnd(&seed);
		self->l.now_ns += r % (20 * US);
		n = mrc_psn_diff(self->snd_nxt, self->snd_una);
		switch (r % 6) {
		case 0:
		case 1:
			if (n < MRC_WINDOW - 1)
				tx(self, 1, 1 + (r >> 8) % 9000);
			break;
		case 2:
			if (n)
				sack(self, mrc_psn_add(self->snd_una,
						       (r >> 8) % n));
			break;
		case 3:
			if (!n || r & 0x300)
				break;
			n = 1 + (r >> 12) % n;
			for (k = 0; k < n; k++) {
				struct mrc_tx_pkt *e;

				e = txp(self, mrc_psn_add(self->snd_una, k));
				mrc_sb_sacked(e, &self->inflight,
					      &self->nr_lost);
				e->flags = 0;
			}
			self->snd_una = mrc_psn_add(self->snd_una, n);
			mrc_sb_received(&self->high_sacked,
					mrc_psn_add(self->snd_una, MRC_PSN_MASK));
			break;
		default:
			self->l.depth = 1 + (r >> 8) % 40;
			self->l.max_rtt_us = (r >> 16) % 100;
			losses(self);
			break;
		}
		n = mrc_psn_diff(self->snd_nxt, self->snd_una);
		for (in = 0, lost = 0, k = 0; k < n; k++) {
			struct mrc_tx_pkt *e;

			e = txp(self, mrc_psn_add(self->snd_una, k));
			if (e->flags & MRC_TXP_SACKED)
				continue;
			if (e->flags & MRC_TXP_LOST)
				lost++;
			else
				in += e->len;
		}
		ASSERT_EQ(in, self->inflight);
		ASSERT_EQ(lost, self->nr_lost);
	}
	EXPECT_LT(self->snd_una, MRC_PSN_MASK - 1000);	/* it did wrap */
}

TEST_HARNESS_MAIN
