// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of include/mrc/wire.h: the sizes the spec names and the
 * header checks the receive path relies on.
 */
#include <string.h>

#include "kselftest_harness.h"

#include <mrc/wire.h>

static void bth(__u8 *p, __u8 op)
{
	memset(p, 0, MRC_BTH_LEN);
	p[0] = op;
}

/* Ethernet+FCS, IPv4, UDP, BTH and the extension headers. */
TEST(sizes__spec_numbers)
{
	EXPECT_EQ(74, MRC_ETH_FCS_LEN + MRC_IPV4_LEN + MRC_UDP_LEN +
		  MRC_BTH_LEN + MRC_PETH_LEN);
	EXPECT_EQ(94, MRC_ETH_FCS_LEN + MRC_IPV4_LEN + MRC_UDP_LEN +
		  MRC_BTH_LEN + MRC_SETH_LEN + MRC_CCSTATE_LEN);
	EXPECT_EQ(60, MRC_IPV4_LEN + MRC_UDP_LEN + MRC_DATA_HDR_LEN);
}

TEST(hdr__lengths_by_opcode)
{
	__u8 p[64];

	bth(p, MRC_OP_WRITE_ONLY);
	EXPECT_EQ(32, mrc_hdr_len(p));
	bth(p, MRC_OP_WRITE_ONLY_IMM);
	EXPECT_EQ(36, mrc_hdr_len(p));
	bth(p, MRC_OP_WRITE_LAST_IMM);
	EXPECT_EQ(36, mrc_hdr_len(p));
	bth(p, MRC_OP_WRITE_MIDDLE);
	p[8] = MRC_BTH_TSETH;
	EXPECT_EQ(36, mrc_hdr_len(p));
	bth(p, MRC_OP_ACK);
	EXPECT_EQ(16, mrc_hdr_len(p));
	bth(p, MRC_OP_SACK);
	EXPECT_EQ(48, mrc_hdr_len(p));
	bth(p, MRC_OP_NACK);
	EXPECT_EQ(32, mrc_hdr_len(p));
	bth(p, MRC_OP_PROBE);
	EXPECT_EQ(28, mrc_hdr_len(p));
}

TEST(hdr__rejects)
{
	__u8 p[64];
	int op;

	bth(p, MRC_OP_PROBE);
	EXPECT_EQ(MRC_HDR_SHORT, mrc_hdr_check(p, 0));
	EXPECT_EQ(MRC_HDR_SHORT, mrc_hdr_check(p, MRC_BTH_LEN - 1));
	EXPECT_EQ(MRC_HDR_SHORT, mrc_hdr_check(p, 27));
	EXPECT_EQ(28, mrc_hdr_check(p, 28));
	EXPECT_EQ(28, mrc_hdr_check(p, sizeof(p)));

	p[1] = 1;	/* transport version 1 */
	EXPECT_EQ(MRC_HDR_BAD_VERSION, mrc_hdr_check(p, sizeof(p)));

	/* Only the ten mrc opcodes are known. */
	for (op = 0; op < 256; op++) {
		int known = mrc_is_data_opcode(op) || op == MRC_OP_ACK ||
			    op == MRC_OP_SACK || op == MRC_OP_NACK ||
			    op == MRC_OP_PROBE;

		bth(p, op);
		EXPECT_EQ(known, mrc_hdr_check(p, sizeof(p)) > 0);
	}
}

TEST(bth__fields)
{
	__u8 p[MRC_BTH_LEN] = { MRC_OP_WRITE_FIRST, 0, 0xff, 0xff,
				0, 0x12, 0x34, 0x56,
				MRC_BTH_ACKREQ | MRC_BTH_RETX, 0xab, 0xcd,
				0xef };

	EXPECT_EQ(MRC_OP_WRITE_FIRST, mrc_bth_opcode(p));
	EXPECT_EQ(0x123456, mrc_bth_dqpn(p));
	EXPECT_EQ(0xabcdef, mrc_bth_psn(p));
}

TEST_HARNESS_MAIN
