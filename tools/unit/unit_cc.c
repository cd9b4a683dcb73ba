// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of include/mrc/cc.h: the congestion window's start, bounds,
 * increases, cuts and timeouts, with the clock passed in, at the defaults
 * and at the ends of the configuration's ranges.
 */
#include "kselftest_harness.h"

#include <mrc/cc.h>

/* The defaults: 400 Gbit/s x 6 us = 300,000 B; at most 1.5 of it. */
#define BDP		300000
#define MAX		450000
#define MSS		4096
#define SEC		1000000000ULL

static __u32 rnd(__u32 *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 17;
	*x ^= *x << 5;
	return *x;
}

static __u32 bound(int attr, int hi)
{
	const struct mrc_config_param *p = mrc_config_param_by_attr(attr);

	return hi ? p->max : p->min;
}

FIXTURE(cc) {
	struct mrc_config c;
	struct mrc_cc cc;
	__u32 base;		/* the lowest RTT seen, us */
	__u64 now;		/* ns */
};

FIXTURE_SETUP(cc)
{
	mrc_config_defaults(&self->c);
	mrc_cwnd_init(&self->cc, &self->c);
	self->base = 6;
	self->now = 10 * SEC;
}

FIXTURE_TEARDOWN(cc)
{
}

static void ack(struct _test_data_cc *self, __u32 acked, __u32 rtt, bool ecn)
{
	mrc_cwnd_on_ack(&self->cc, &self->c, self->base, acked, rtt, ecn,
			self->now);
}

TEST_F(cc, init__one_bdp)
{
	EXPECT_EQ(BDP, self->cc.cwnd);
	EXPECT_EQ(MAX, mrc_cwnd_max(&self->c));
	EXPECT_EQ(0, self->cc.avg_delay);
	EXPECT_EQ(0, self->cc.fi_acc);
	EXPECT_EQ(0, self->cc.last_md_ns);
}

TEST_F(cc, init__forgets_the_last_direction)
{
	self->cc.cwnd = 5000;
	self->cc.avg_delay = 640;
	self->cc.fi_acc = 77;
	self->cc.last_md_ns = 12345;
	mrc_cwnd_init(&self->cc, &self->c);
	EXPECT_EQ(BDP, self->cc.cwnd);
	EXPECT_EQ(0, self->cc.avg_delay);
	EXPECT_EQ(0, self->cc.fi_acc);
	EXPECT_EQ(0, self->cc.last_md_ns);
}

TEST_F(cc, init__bdp_below_one_mss_gives_mss)
{
	self->c.link_rate_mbps = 1000;	/* 750 B */
	mrc_cwnd_init(&self->cc, &self->c);
	EXPECT_EQ(MSS, self->cc.cwnd);
	EXPECT_EQ(MSS, mrc_cwnd_max(&self->c));
}

TEST_F(cc, target__base_rtt_or_three_quarters_when_trimming)
{
	EXPECT_EQ(4, mrc_cwnd_target(&self->c));
	self->c.trimming = 0;
	EXPECT_EQ(6, mrc_cwnd_target(&self->c));
	self->c.base_rtt_us = 1;	/* 3/4 of 1 us: never 0 */
	self->c.trimming = 1;
	EXPECT_EQ(1, mrc_cwnd_target(&self->c));
}

TEST_F(cc, increase__proportional_below_target)
{
	self->cc.cwnd = 100000;
	ack(self, 1000, 6, false);	/* delay 0: all of it */
	EXPECT_EQ(101000, self->cc.cwnd);
	ack(self, 1000, 8, false);	/* delay 2 of 4: half */
	EXPECT_EQ(101500, self->cc.cwnd);
	ack(self, 1000, 9, false);	/* delay 3 of 4: a quarter */
	EXPECT_EQ(101750, self->cc.cwnd);
	ack(self, 1000, 0, false);	/* no sample: delay 0 */
	EXPECT_EQ(102750, self->cc.cwnd);
	ack(self, 1000, 5, false);	/* under the base: delay 0 */
	EXPECT_EQ(103750, self->cc.cwnd);
	EXPECT_EQ(0, self->cc.fi_acc);
}

TEST_F(cc, increase__proportional_at_most_four_mss)
{
	self->cc.cwnd = 100000;
	ack(self, 100000, 6, false);
	EXPECT_EQ(100000 + 4 * MSS, self->cc.cwnd);
}

TEST_F(cc, increase__no_base_rtt_yet_counts_as_no_delay)
{
	self->cc.cwnd = 100000;
	self->base = 0;
	ack(self, 1000, 500, false);
	EXPECT_EQ(101000, self->cc.cwnd);
	EXPECT_EQ(0, self->cc.avg_delay);
}

TEST_F(cc, increase__target_without_trimming_is_the_base_rtt)
{
	self->c.trimming = 0;
	self->cc.cwnd = 100000;
	ack(self, 600, 9, false);	/* delay 3 of 6 */
	EXPECT_EQ(100300, self->cc.cwnd);
}

TEST_F(cc, increase__fair_above_target_one_mss_per_window)
{
	self->cc.cwnd = 100000;
	ack(self, 40000, 10, false);	/* delay 4: at the target */
	EXPECT_EQ(100000, self->cc.cwnd);
	EXPECT_EQ(40000, self->cc.fi_acc);
	ack(self, 40000, 10, false);
	EXPECT_EQ(100000, self->cc.cwnd);
	ack(self, 40000, 20, false);	/* a window's worth: one MSS */
	EXPECT_EQ(100000 + MSS, self->cc.cwnd);
	EXPECT_EQ(0, self->cc.fi_acc);	/* the excess is not carried */
}

TEST_F(cc, increase__stops_at_one_and_a_half_bdp)
{
	int i;

	for (i = 0; i < 1000; i++)
		ack(self, 65536, 6, false);
	EXPECT_EQ(MAX, self->cc.cwnd);
	self->cc.cwnd = MAX;
	self->cc.fi_acc = MAX - 1;
	ack(self, 1, 100, false);
	EXPECT_EQ(MAX, self->cc.cwnd);
}

TEST_F(cc, average__ewma_gain_one_eightieth_in_64ths)
{
	ack(self, 1, 106, false);	/* delay 100 */
	EXPECT_EQ(80, self->cc.avg_delay);	/* 100 * 64 / 80 */
	ack(self, 1, 106, false);
	EXPECT_EQ(80 - 1 + 80, self->cc.avg_delay);
	ack(self, 1, 0, false);		/* no sample: unchanged */
	EXPECT_EQ(159, self->cc.avg_delay);
}

TEST_F(cc, decrease__ecn_above_target_scaled_by_four_fifths)
{
	self->cc.cwnd = 100000;
	/* delay 8, target 4: 100000 * 0.8 * (8 - 4) / 8 = 40000 */
	ack(self, MSS, 14, true);
	EXPECT_EQ(60000, self->cc.cwnd);
	EXPECT_EQ(self->now, self->cc.last_md_ns);
	EXPECT_EQ(0, self->cc.fi_acc);
}

TEST_F(cc, decrease__uses_the_average_when_larger)
{
	self->cc.cwnd = 100000;
	self->cc.avg_delay = 20 * 64;	/* 20 us of queueing lately */
	/* avg (1280 - 16 + 6) / 64 = 19, target 4:
	 * 100000 * 4 * 15 / 95 = 63157, capped at half.
	 */
	ack(self, MSS, 14, true);
	EXPECT_EQ(50000, self->cc.cwnd);
	self->cc.cwnd = 100000;
	self->cc.avg_delay = 10 * 64;
	self->now += SEC;
	/* avg (640 - 8 + 6) / 64 = 9: 100000 * 4 * 5 / 45 = 44444 */
	ack(self, MSS, 14, true);
	EXPECT_EQ(100000 - 44444, self->cc.cwnd);
}

TEST_F(cc, decrease__at_most_once_per_base_rtt)
{
	self->cc.cwnd = 100000;
	ack(self, MSS, 14, true);
	EXPECT_EQ(60000, self->cc.cwnd);
	self->now += 5999;		/* base RTT 6 us */
	ack(self, MSS, 14, true);
	EXPECT_EQ(60000, self->cc.cwnd);
	self->now += 1;
	ack(self, MSS, 14, true);
	EXPECT_EQ(36000, self->cc.cwnd);
	EXPECT_EQ(self->now, self->cc.last_md_ns);
}

TEST_F(cc, decrease__interval_is_the_measured_base_rtt)
{
	self->base = 100;
	self->cc.cwnd = 100000;
	ack(self, MSS, 108, true);
	EXPECT_EQ(60000, self->cc.cwnd);
	self->now += 99999;
	ack(self, MSS, 108, true);
	EXPECT_EQ(60000, self->cc.cwnd);
	self->now += 1;
	ack(self, MSS, 108, true);
	EXPECT_LT(self->cc.cwnd, 60000);
}

TEST_F(cc, decrease__never_below_half)
{
	self->cc.cwnd = 100000;
	ack(self, MSS, 6 + 1000000, true);	/* 0.8 of it: capped */
	EXPECT_EQ(50000, self->cc.cwnd);
	self->cc.cwnd = 100001;
	self->now += SEC;
	ack(self, MSS, 6 + 1000000, true);
	EXPECT_EQ(50001, self->cc.cwnd);	/* less half, rounded down */
}

TEST_F(cc, decrease__not_below_one_mss)
{
	self->cc.cwnd = MSS + 1;
	ack(self, MSS, 6 + 1000000, true);
	EXPECT_EQ(MSS, self->cc.cwnd);
}

TEST_F(cc, ecn__below_target_or_without_sample_changes_nothing)
{
	self->cc.cwnd = 100000;
	ack(self, MSS, 8, true);	/* delay 2 < 4 */
	EXPECT_EQ(100000, self->cc.cwnd);
	ack(self, MSS, 0, true);
	EXPECT_EQ(100000, self->cc.cwnd);
	EXPECT_EQ(0, self->cc.fi_acc);
	EXPECT_EQ(0, self->cc.last_md_ns);
}

/* The clock is the kernel's since boot: a cut needs one base RTT of it. */
TEST_F(cc, decrease__first_cut_needs_a_clock_past_one_base_rtt)
{
	self->cc.cwnd = 100000;
	self->now = 5999;
	ack(self, MSS, 14, true);
	EXPECT_EQ(100000, self->cc.cwnd);
	self->now = 6000;
	ack(self, MSS, 14, true);
	EXPECT_EQ(60000, self->cc.cwnd);
}

TEST_F(cc, decrease__clock_wrap)
{
	self->cc.cwnd = 100000;
	self->now = ~0ULL - 1000;
	ack(self, MSS, 14, true);
	EXPECT_EQ(60000, self->cc.cwnd);
	self->now = 4000;		/* 5001 ns later */
	ack(self, MSS, 14, true);
	EXPECT_EQ(60000, self->cc.cwnd);
	self->now = 4999;		/* 6000 ns later */
	ack(self, MSS, 14, true);
	EXPECT_EQ(36000, self->cc.cwnd);
	EXPECT_EQ(4999, self->cc.last_md_ns);
}

TEST_F(cc, nack__trimmed_one_packet_less)
{
	self->cc.cwnd = 100000;
	mrc_cwnd_on_nack(&self->cc, &self->c, MRC_NACK_TRIMMED);
	EXPECT_EQ(100000 - MSS, self->cc.cwnd);
	mrc_cwnd_on_nack(&self->cc, &self->c, MRC_NACK_TRIMMED_LAST_HOP);
	EXPECT_EQ(100000 - 2 * MSS, self->cc.cwnd);
	self->cc.cwnd = MSS + 10;
	mrc_cwnd_on_nack(&self->cc, &self->c, MRC_NACK_TRIMMED);
	EXPECT_EQ(MSS, self->cc.cwnd);
	mrc_cwnd_on_nack(&self->cc, &self->c, MRC_NACK_TRIMMED);
	EXPECT_EQ(MSS, self->cc.cwnd);
}

TEST_F(cc, nack__receiver_out_of_room_one_packet)
{
	mrc_cwnd_on_nack(&self->cc, &self->c, MRC_NACK_NO_PKT_BUFFER);
	EXPECT_EQ(MSS, self->cc.cwnd);
	self->cc.cwnd = BDP;
	mrc_cwnd_on_nack(&self->cc, &self->c, MRC_NACK_NO_RESOURCE);
	EXPECT_EQ(MSS, self->cc.cwnd);
}

TEST_F(cc, nack__other_reasons_change_nothing)
{
	static const __u8 r[] = {
		0, MRC_NACK_NO_BITMAP, MRC_NACK_PSN_OOW, MRC_NACK_UNEXPECTED,
		0xff,
	};
	unsigned int i;

	for (i = 0; i < sizeof(r); i++) {
		mrc_cwnd_on_nack(&self->cc, &self->c, r[i]);
		EXPECT_EQ(BDP, self->cc.cwnd);
	}
}

TEST_F(cc, timeout__cut_by_the_share_taken_out)
{
	self->cc.cwnd = 100000;
	mrc_cwnd_on_timeout(&self->cc, &self->c, 8, 6);
	EXPECT_EQ(75000, self->cc.cwnd);
	self->cc.cwnd = 100000;
	mrc_cwnd_on_timeout(&self->cc, &self->c, 3, 2);
	EXPECT_EQ(66666, self->cc.cwnd);
	self->cc.cwnd = 100000;
	mrc_cwnd_on_timeout(&self->cc, &self->c, 72, 71);
	EXPECT_EQ(98611, self->cc.cwnd);
}

TEST_F(cc, timeout__all_taken_out_one_packet)
{
	mrc_cwnd_on_timeout(&self->cc, &self->c, 8, 0);
	EXPECT_EQ(MSS, self->cc.cwnd);
}

TEST_F(cc, timeout__none_taken_out_halves)
{
	mrc_cwnd_on_timeout(&self->cc, &self->c, 8, 8);
	EXPECT_EQ(BDP / 2, self->cc.cwnd);
	mrc_cwnd_on_timeout(&self->cc, &self->c, 0, 0);	/* no spraying */
	EXPECT_EQ(BDP / 4, self->cc.cwnd);
	mrc_cwnd_on_timeout(&self->cc, &self->c, 4, 5);	/* values came back */
	EXPECT_EQ(BDP / 8, self->cc.cwnd);
	self->cc.cwnd = MSS + 1;
	mrc_cwnd_on_timeout(&self->cc, &self->c, 0, 0);
	EXPECT_EQ(MSS, self->cc.cwnd);
}

/* Largest link rate and base RTT: the BDP (1.25 TB) is past 32 bits. */
TEST_F(cc, extreme__largest_bdp_capped_without_overflow)
{
	unsigned __int128 want;
	__u32 avg, t;

	self->c.link_rate_mbps = bound(MRC_A_LINK_RATE_MBPS, 1);
	self->c.base_rtt_us = bound(MRC_A_BASE_RTT_US, 1);
	self->base = self->c.base_rtt_us;
	mrc_cwnd_init(&self->cc, &self->c);
	EXPECT_EQ(MRC_CWND_LIMIT, self->cc.cwnd);
	EXPECT_EQ(MRC_CWND_LIMIT, mrc_cwnd_max(&self->c));

	ack(self, MRC_CWND_LIMIT, self->base, false);
	EXPECT_EQ(MRC_CWND_LIMIT, self->cc.cwnd);

	/* Fair increase: the count of acked bytes stays in 32 bits. */
	ack(self, MRC_CWND_LIMIT - 1, 2 * self->base, false);
	EXPECT_EQ(MRC_CWND_LIMIT - 1, self->cc.fi_acc);
	ack(self, MRC_CWND_LIMIT - 1, 2 * self->base, false);
	EXPECT_EQ(0, self->cc.fi_acc);
	EXPECT_EQ(MRC_CWND_LIMIT, self->cc.cwnd);

	/* A cut of 0.2: against 128-bit arithmetic. */
	self->cc.cwnd = MRC_CWND_LIMIT;
	self->cc.avg_delay = 0;
	t = mrc_cwnd_target(&self->c);
	ack(self, 1, 2 * self->base, true);
	avg = self->base;
	want = (unsigned __int128)MRC_CWND_LIMIT * 4 * (avg - t) / (5 * avg);
	EXPECT_EQ(MRC_CWND_LIMIT - (__u64)want, self->cc.cwnd);

	/* A delay of a minute: capped at half. */
	self->cc.cwnd = MRC_CWND_LIMIT;
	self->now += 10 * SEC;
	ack(self, 1, self->base + 60000000, true);
	EXPECT_EQ(MRC_CWND_LIMIT - MRC_CWND_LIMIT / 2, self->cc.cwnd);

	self->cc.cwnd = MRC_CWND_LIMIT;
	mrc_cwnd_on_timeout(&self->cc, &self->c, 256, 255);	/* the most */
	want = (unsigned __int128)MRC_CWND_LIMIT * 255 / 256;
	EXPECT_EQ((__u64)want, self->cc.cwnd);
}

/* Smallest link rate and base RTT, largest MSS: the window is one MSS. */
TEST_F(cc, extreme__smallest_bdp_one_mss_throughout)
{
	int i;

	self->c.link_rate_mbps = bound(MRC_A_LINK_RATE_MBPS, 0);
	self->c.base_rtt_us = bound(MRC_A_BASE_RTT_US, 0);
	self->c.mss = bound(MRC_A_MSS, 1);
	self->base = 1;
	mrc_cwnd_init(&self->cc, &self->c);
	EXPECT_EQ(self->c.mss, self->cc.cwnd);
	for (i = 0; i < 100; i++) {
		ack(self, self->c.mss, 1 + i % 3, i & 1);
		mrc_cwnd_on_nack(&self->cc, &self->c, MRC_NACK_TRIMMED);
		mrc_cwnd_on_timeout(&self->cc, &self->c, 2, 1);
		ASSERT_EQ(self->c.mss, self->cc.cwnd);
		self->now += 1000;
	}
}

/* Delays just under 2^26 us: the average in 64ths does not wrap. */
TEST_F(cc, extreme__average_of_the_longest_delay_fits)
{
	__u32 delay = (1U << 26) - 1, prev = 0;
	int i;

	for (i = 0; i < 3000; i++) {
		ack(self, 1, self->base + delay, false);
		ASSERT_GE(self->cc.avg_delay, prev);
		prev = self->cc.avg_delay;
	}
	EXPECT_LE(self->cc.avg_delay / 64, delay);
	EXPECT_GE(self->cc.avg_delay / 64, delay - 2);
}

/* Random events at random configurations within their ranges. */
TEST_F(cc, bounds__window_within_mss_and_max_under_any_events)
{
	__u32 seed = 88172645u;
	int cfgs, i;

	for (cfgs = 0; cfgs < 200; cfgs++) {
		struct mrc_config *c = &self->c;
		__u32 max, r;
		__u64 bdp;

		c->mss = bound(MRC_A_MSS, 0) +
			 rnd(&seed) % (bound(MRC_A_MSS, 1) - 63);
		c->base_rtt_us = 1 + rnd(&seed) % (cfgs & 1 ? 20 : 1000000);
		c->link_rate_mbps = 1 + rnd(&seed) %
					(cfgs & 2 ? 10000000 : 100000);
		c->trimming = rnd(&seed) & 1;
		mrc_cwnd_init(&self->cc, c);
		max = mrc_cwnd_max(c);
		bdp = mrc_bdp_bytes(c);
		ASSERT_EQ(bdp < c->mss ? c->mss :
			  bdp > MRC_CWND_LIMIT ? MRC_CWND_LIMIT : bdp,
			  self->cc.cwnd);
		ASSERT_GE(max, c->mss);
		ASSERT_LE(max, MRC_CWND_LIMIT);
		self->base = 0;
		for (i = 0; i < 500; i++) {
			r = rnd(&seed);
			self->now += r % 4096;
			switch (r % 8) {
			case 0:
				mrc_cwnd_on_nack(&self->cc, c, r >> 8);
				break;
			case 1:
				mrc_cwnd_on_timeout(&self->cc, c,
						    (r >> 8) % 9,
						    (r >> 12) % 9);
				break;
			default:
				if (!self->base || r % 5 == 0)
					self->base = 1 + (r >> 4) % 2000;
				ack(self, rnd(&seed) % (max + 1),
				    r % 3 ? self->base + rnd(&seed) % 3000 : 0,
				    r & 0x100);
				break;
			}
			ASSERT_GE(self->cc.cwnd, c->mss);
			ASSERT_LE(self->cc.cwnd, max);
		}
	}
}

TEST_HARNESS_MAIN
