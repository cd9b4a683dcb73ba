// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of include/mrc/amp.h: the limit on what a queue pair sends
 * a peer whose address is not validated, at its edges.
 */
#include "kselftest_harness.h"

#include <mrc/amp.h>

/* 32 bytes of headers: a packet of N payload bytes costs N + 32. */
TEST(amp__wire_length)
{
	EXPECT_EQ(32, mrc_data_wire_len(0));
	EXPECT_EQ(4128, mrc_data_wire_len(4096));
}

/* The room kept for an acknowledgment: the largest, a SACK. */
TEST(amp__ack_reserve)
{
	EXPECT_EQ(48, MRC_AMP_ACK_RESERVE);
}

/* Nothing received: nothing may go, cut or not. */
TEST(amp__nothing_received)
{
	EXPECT_EQ(-1, mrc_amp_allow(0, 0, 0, 1));
	EXPECT_EQ(-1, mrc_amp_allow(0, 0, 4096, 1));
	EXPECT_EQ(-1, mrc_amp_allow(0, 0, 4096, 0));
}

/* 96 bytes in (a 64-byte message): 288 out, 48 of them kept for the
 * acknowledgment; so 208 bytes of payload, exactly.
 */
TEST(amp__whole_packet_at_the_edge)
{
	EXPECT_EQ(208, mrc_amp_allow(96, 0, 208, 0));
	EXPECT_EQ(-1, mrc_amp_allow(96, 0, 209, 0));
	EXPECT_EQ(192, mrc_amp_allow(96, 16, 192, 0));
	EXPECT_EQ(-1, mrc_amp_allow(96, 16, 193, 0));
	EXPECT_EQ(0, mrc_amp_allow(96, 208, 0, 0));
	EXPECT_EQ(-1, mrc_amp_allow(96, 209, 0, 0));
}

/* A new packet is cut to what is left, a byte at least. */
TEST(amp__cut)
{
	EXPECT_EQ(208, mrc_amp_allow(96, 0, 4096, 1));
	EXPECT_EQ(192, mrc_amp_allow(96, 16, 4096, 1));
	EXPECT_EQ(1, mrc_amp_allow(96, 207, 4096, 1));
	EXPECT_EQ(-1, mrc_amp_allow(96, 208, 4096, 1));
	EXPECT_EQ(-1, mrc_amp_allow(96, 300, 4096, 1));
	/* An empty message's packet is headers alone: never cut. */
	EXPECT_EQ(-1, mrc_amp_allow(26, 0, 0, 1));
	EXPECT_EQ(0, mrc_amp_allow(27, 0, 0, 1));
}

/* Whatever is sent, data and the reserved acknowledgment stay within
 * three times what came in.
 */
TEST(amp__never_beyond_three_times)
{
	__u64 rx, tx;
	__s64 n;

	for (rx = 0; rx < 2000; rx += 7) {
		for (tx = 0; tx < 3 * rx + 100; tx += 13) {
			n = mrc_amp_allow(rx, tx, 4096, 1);
			if (n >= 0)
				EXPECT_LE(tx + mrc_data_wire_len(n) +
					  MRC_AMP_ACK_RESERVE, 3 * rx);
		}
	}
}

/* Large counts: no overflow in 64 bits. */
TEST(amp__large)
{
	__u64 rx = 1ULL << 40;

	EXPECT_EQ(4096, mrc_amp_allow(rx, 3 * rx - 4128 - 48, 4096, 0));
	EXPECT_EQ(-1, mrc_amp_allow(rx, 3 * rx - 4127 - 48, 4096, 0));
	EXPECT_EQ(4095, mrc_amp_allow(rx, 3 * rx - 4127 - 48, 4096, 1));
}

/* The last packet the limit lets through asks for its ACK. */
TEST(amp__last)
{
	EXPECT_FALSE(mrc_amp_last(1056, 0, 1024));	/* 2112 + 48 <= 3168 */
	EXPECT_TRUE(mrc_amp_last(1056, 1057, 1024));
	EXPECT_TRUE(mrc_amp_last(96, 0, 256));
	EXPECT_FALSE(mrc_amp_last(96, 0, 88));		/* 240 + 48 = 288 */
	EXPECT_TRUE(mrc_amp_last(96, 0, 89));
}

TEST_HARNESS_MAIN
