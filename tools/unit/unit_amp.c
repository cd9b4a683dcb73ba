// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of include/mrc/amp.h: the limit on what a queue pair sends
 * a peer whose address is not validated, at its edges.
 */
#include "kselftest_harness.h"

#include <mrc/amp.h>

/* 40 bytes of headers (the ITETH's 8 among them): a packet of N payload
 * bytes costs N + 40.
 */
TEST(amp__wire_length)
{
	EXPECT_EQ(40, mrc_data_wire_len(0));
	EXPECT_EQ(4136, mrc_data_wire_len(4096));
}

/* The room kept for an acknowledgment: the largest, a SACK. */
TEST(amp__ack_reserve)
{
	EXPECT_EQ(56, MRC_AMP_ACK_RESERVE);
}

/* Nothing received: nothing may go, cut or not. */
TEST(amp__nothing_received)
{
	EXPECT_EQ(-1, mrc_amp_allow(0, 0, 0, 1, 0));
	EXPECT_EQ(-1, mrc_amp_allow(0, 0, 4096, 1, 1));
	EXPECT_EQ(-1, mrc_amp_allow(0, 0, 4096, 0, 0));
}

/* A retransmission goes whole or waits: 104 bytes in (a 64-byte
 * message), 312 out, 56 kept while an acknowledgment is owed.
 */
TEST(amp__resend_whole)
{
	EXPECT_EQ(216, mrc_amp_allow(104, 0, 216, 0, 1));
	EXPECT_EQ(-1, mrc_amp_allow(104, 0, 217, 0, 1));
	EXPECT_EQ(272, mrc_amp_allow(104, 0, 272, 0, 0));
	EXPECT_EQ(-1, mrc_amp_allow(104, 0, 273, 0, 0));
	EXPECT_EQ(0, mrc_amp_allow(104, 216, 0, 0, 1));
	EXPECT_EQ(-1, mrc_amp_allow(104, 217, 0, 0, 1));
}

/* A new packet takes half of what is left at most, so that its resend
 * fits: 312 - 56 (the SACK sent) = 256 left, 128 a packet, 88 of them
 * payload.
 */
TEST(amp__new_packet_leaves_room_for_its_resend)
{
	EXPECT_EQ(88, mrc_amp_allow(104, 56, 4096, 1, 0));
	EXPECT_EQ(88, mrc_amp_allow(104, 56, 88, 1, 0));
	EXPECT_EQ(60, mrc_amp_allow(104, 56, 60, 1, 0));
	/* With the SACK still owed: (312 - 56) / 2 - 40. */
	EXPECT_EQ(88, mrc_amp_allow(104, 0, 4096, 1, 1));
	/* Its resend then fits whole. */
	EXPECT_EQ(88, mrc_amp_allow(104, 56 + 128, 88, 0, 0));
}

/* Too little for half: what is left, a byte at least. */
TEST(amp__small_requests)
{
	/* A 0-byte request: 40 in, 120 out, 56 sent (the SACK): 24
	 * bytes of payload, no room for a resend.
	 */
	EXPECT_EQ(24, mrc_amp_allow(40, 56, 4096, 1, 0));
	/* ... the same before the SACK, kept room for; nothing once the
	 * SACK is sent and another owed.
	 */
	EXPECT_EQ(24, mrc_amp_allow(40, 0, 4096, 1, 1));
	EXPECT_EQ(-1, mrc_amp_allow(40, 56, 4096, 1, 1));
	/* A 4-byte request: 44 in, 132 out, 76 left, 36 payload. */
	EXPECT_EQ(36, mrc_amp_allow(44, 56, 4096, 1, 0));
	/* 41 left: one byte; 40 left: none. */
	EXPECT_EQ(1, mrc_amp_allow(104, 271, 4096, 1, 0));
	EXPECT_EQ(-1, mrc_amp_allow(104, 272, 4096, 1, 0));
	/* An empty message's packet is headers alone: never cut (39
	 * left: nothing; 40 left: the whole packet).
	 */
	EXPECT_EQ(-1, mrc_amp_allow(13, 0, 0, 1, 0));
	EXPECT_EQ(0, mrc_amp_allow(14, 2, 0, 1, 0));
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

	EXPECT_EQ(4096, mrc_amp_allow(rx, 3 * rx - 4136 - 56, 4096, 0, 1));
	EXPECT_EQ(-1, mrc_amp_allow(rx, 3 * rx - 4135 - 56, 4096, 0, 1));
	EXPECT_EQ(4096, mrc_amp_allow(rx, 0, 4096, 1, 1));
}

/* The packet after which the limit holds no other like it and its
 * resend asks for its ACK.  Three 1024-byte packets are 3192 bytes;
 * 3 * rx - 56 is never 3192, so the edge is reached with tx = 1.
 */
TEST(amp__last)
{
	EXPECT_TRUE(mrc_amp_last(1064, 0, 1024, 1));	/* 3192 > 3136 */
	EXPECT_FALSE(mrc_amp_last(1083, 1, 1024, 1));	/* 3192 <= 3192 */
	EXPECT_TRUE(mrc_amp_last(1083, 2, 1024, 1));	/* 3192 > 3191 */
	EXPECT_FALSE(mrc_amp_last(1083, 57, 1024, 0));	/* 3192 <= 3192 */
	EXPECT_TRUE(mrc_amp_last(104, 56, 88, 0));	/* 384 > 256 */
	EXPECT_TRUE(mrc_amp_last(104, 56, 46, 0));	/* 258 > 256 */
	EXPECT_FALSE(mrc_amp_last(104, 56, 45, 0));	/* 255 <= 256 */
}

TEST_HARNESS_MAIN
