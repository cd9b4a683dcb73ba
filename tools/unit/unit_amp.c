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

/* Nothing received: nothing may go, cut or not. */
TEST(amp__nothing_received)
{
	EXPECT_EQ(-1, mrc_amp_allow(0, 0, 0, 1));
	EXPECT_EQ(-1, mrc_amp_allow(0, 0, 4096, 1));
	EXPECT_EQ(-1, mrc_amp_allow(0, 0, 4096, 0));
}

/* 96 bytes in (a 64-byte message): 288 out, exactly. */
TEST(amp__whole_packet_at_the_edge)
{
	EXPECT_EQ(256, mrc_amp_allow(96, 0, 256, 0));
	EXPECT_EQ(-1, mrc_amp_allow(96, 0, 257, 0));
	EXPECT_EQ(240, mrc_amp_allow(96, 16, 240, 0));
	EXPECT_EQ(-1, mrc_amp_allow(96, 16, 241, 0));
	EXPECT_EQ(0, mrc_amp_allow(96, 256, 0, 0));
	EXPECT_EQ(-1, mrc_amp_allow(96, 257, 0, 0));
}

/* A new packet is cut to what is left, a byte at least. */
TEST(amp__cut)
{
	EXPECT_EQ(256, mrc_amp_allow(96, 0, 4096, 1));
	EXPECT_EQ(240, mrc_amp_allow(96, 16, 4096, 1));
	EXPECT_EQ(1, mrc_amp_allow(96, 255, 4096, 1));
	EXPECT_EQ(-1, mrc_amp_allow(96, 256, 4096, 1));
	EXPECT_EQ(-1, mrc_amp_allow(96, 300, 4096, 1));
	/* An empty message's packet is headers alone: never cut. */
	EXPECT_EQ(-1, mrc_amp_allow(10, 0, 0, 1));
	EXPECT_EQ(0, mrc_amp_allow(11, 0, 0, 1));
}

/* Large counts: no overflow in 64 bits. */
TEST(amp__large)
{
	__u64 rx = 1ULL << 40;

	EXPECT_EQ(4096, mrc_amp_allow(rx, 3 * rx - 4128, 4096, 0));
	EXPECT_EQ(-1, mrc_amp_allow(rx, 3 * rx - 4127, 4096, 0));
	EXPECT_EQ(4095, mrc_amp_allow(rx, 3 * rx - 4127, 4096, 1));
}

/* The last packet the limit lets through asks for its ACK. */
TEST(amp__last)
{
	EXPECT_FALSE(mrc_amp_last(1056, 0, 1024));	/* 2 x 1056 <= 3168 */
	EXPECT_TRUE(mrc_amp_last(1056, 1057, 1024));
	EXPECT_TRUE(mrc_amp_last(96, 0, 256));
	EXPECT_FALSE(mrc_amp_last(96, 0, 112));		/* 2 x 144 = 288 */
	EXPECT_TRUE(mrc_amp_last(96, 0, 113));
}

TEST_HARNESS_MAIN
