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
	EXPECT_EQ(-1, mrc_amp_allow(0, 0, 0, 1, 0));
	EXPECT_EQ(-1, mrc_amp_allow(0, 0, 4096, 1, 1));
	EXPECT_EQ(-1, mrc_amp_allow(0, 0, 4096, 0, 0));
}

/* A retransmission goes whole or waits: 96 bytes in (a 64-byte
 * message), 288 out, 48 kept while an acknowledgment is owed.
 */
TEST(amp__resend_whole)
{
	EXPECT_EQ(208, mrc_amp_allow(96, 0, 208, 0, 1));
	EXPECT_EQ(-1, mrc_amp_allow(96, 0, 209, 0, 1));
	EXPECT_EQ(256, mrc_amp_allow(96, 0, 256, 0, 0));
	EXPECT_EQ(-1, mrc_amp_allow(96, 0, 257, 0, 0));
	EXPECT_EQ(0, mrc_amp_allow(96, 208, 0, 0, 1));
	EXPECT_EQ(-1, mrc_amp_allow(96, 209, 0, 0, 1));
}

/* A new packet takes half of what is left at most, so that its resend
 * fits: 288 - 48 (the SACK sent) = 240 left, 120 a packet, 88 of them
 * payload.
 */
TEST(amp__new_packet_leaves_room_for_its_resend)
{
	EXPECT_EQ(88, mrc_amp_allow(96, 48, 4096, 1, 0));
	EXPECT_EQ(88, mrc_amp_allow(96, 48, 88, 1, 0));
	EXPECT_EQ(60, mrc_amp_allow(96, 48, 60, 1, 0));
	/* With the SACK still owed: (288 - 48) / 2 - 32. */
	EXPECT_EQ(88, mrc_amp_allow(96, 0, 4096, 1, 1));
	/* Its resend then fits whole. */
	EXPECT_EQ(88, mrc_amp_allow(96, 48 + 120, 88, 0, 0));
}

/* Too little for half: what is left, a byte at least. */
TEST(amp__small_requests)
{
	/* A 0-byte request: 32 in, 96 out, 48 sent (the SACK): 16
	 * bytes of payload, no room for a resend.
	 */
	EXPECT_EQ(16, mrc_amp_allow(32, 48, 4096, 1, 0));
	/* ... the same before the SACK, kept room for; nothing once the
	 * SACK is sent and another owed.
	 */
	EXPECT_EQ(16, mrc_amp_allow(32, 0, 4096, 1, 1));
	EXPECT_EQ(-1, mrc_amp_allow(32, 48, 4096, 1, 1));
	/* A 4-byte request: 36 in, 108 out, 60 left, 28 payload. */
	EXPECT_EQ(28, mrc_amp_allow(36, 48, 4096, 1, 0));
	EXPECT_EQ(1, mrc_amp_allow(96, 255, 4096, 1, 0));
	EXPECT_EQ(-1, mrc_amp_allow(96, 256, 4096, 1, 0));
	/* An empty message's packet is headers alone: never cut. */
	EXPECT_EQ(-1, mrc_amp_allow(10, 0, 0, 1, 0));
	EXPECT_EQ(0, mrc_amp_allow(11, 1, 0, 1, 0));
}

/* Whatever is sent, data and the reserved acknowledgment stay within
 * three times what came in.
 */
TEST(amp__never_beyond_three_times)
{
	__u64 rx, tx;
	__s64 n;
	int cut, owed;

	for (rx = 0; rx < 2000; rx += 7)
		for (tx = 0; tx < 3 * rx + 100; tx += 13)
			for (cut = 0; cut < 2; cut++)
				for (owed = 0; owed < 2; owed++) {
					n = mrc_amp_allow(rx, tx, 4096, cut,
							  owed);
					if (n < 0)
						continue;
					EXPECT_LE(tx + mrc_data_wire_len(n) +
						  (owed ? MRC_AMP_ACK_RESERVE :
						   0), 3 * rx);
				}
}

/* A new packet that is cut leaves room for its resend whenever half of
 * what is left holds a byte.
 */
TEST(amp__resend_fits)
{
	__u64 rx, tx;
	__s64 n;

	for (rx = 11; rx < 2000; rx += 5)
		for (tx = 0; tx < 3 * rx; tx += 11) {
			if (mrc_amp_left(rx, tx, 0) / 2 < mrc_data_wire_len(1))
				continue;
			n = mrc_amp_allow(rx, tx, 4096, 1, 0);
			ASSERT_GE(n, 1);
			EXPECT_EQ(n, mrc_amp_allow(rx,
						   tx + mrc_data_wire_len(n),
						   n, 0, 0));
		}
}

/* Large counts: no overflow in 64 bits. */
TEST(amp__large)
{
	__u64 rx = 1ULL << 40;

	EXPECT_EQ(4096, mrc_amp_allow(rx, 3 * rx - 4128 - 48, 4096, 0, 1));
	EXPECT_EQ(-1, mrc_amp_allow(rx, 3 * rx - 4127 - 48, 4096, 0, 1));
	EXPECT_EQ(4096, mrc_amp_allow(rx, 0, 4096, 1, 1));
}

/* The packet after which the limit holds no other like it and its
 * resend asks for its ACK.
 */
TEST(amp__last)
{
	EXPECT_TRUE(mrc_amp_last(1056, 0, 1024, 1));	/* 3168 > 3120 */
	EXPECT_FALSE(mrc_amp_last(1072, 0, 1024, 1));	/* 3168 <= 3168 */
	EXPECT_TRUE(mrc_amp_last(1072, 1, 1024, 1));
	EXPECT_FALSE(mrc_amp_last(1072, 48, 1024, 0));
	EXPECT_TRUE(mrc_amp_last(96, 48, 88, 0));	/* 360 > 240 */
	EXPECT_FALSE(mrc_amp_last(96, 48, 48, 0));	/* 240 <= 240 */
}

TEST_HARNESS_MAIN
