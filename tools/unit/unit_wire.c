// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of include/mrc/wire.h: the sizes the spec names, the
 * header checks the receive path relies on, the data, acknowledgment
 * and probe header writers and readers against the byte layout of
 * Documentation/wire-format.rst, and PSN arithmetic modulo 2^24.
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

/*
 * Everything below checks the writers and readers of wire.h against the
 * byte layout in Documentation/wire-format.rst.  Offsets are from the first
 * byte of the BTH (the start of the UDP payload).
 */

#define BUF_LEN		96
#define CANARY_A	0x00
#define CANARY_B	0xa5

static const __u8 data_ops[] = {
	MRC_OP_WRITE_FIRST, MRC_OP_WRITE_MIDDLE, MRC_OP_WRITE_LAST,
	MRC_OP_WRITE_LAST_IMM, MRC_OP_WRITE_ONLY, MRC_OP_WRITE_ONLY_IMM,
};

/* The opcodes mrc sends: no immediate data. */
static const __u8 sent_data_ops[] = {
	MRC_OP_WRITE_FIRST, MRC_OP_WRITE_MIDDLE, MRC_OP_WRITE_LAST,
	MRC_OP_WRITE_ONLY,
};

static const __u8 data_flags[] = {
	0, MRC_BTH_ACKREQ, MRC_BTH_RETX, MRC_BTH_TSETH,
	MRC_BTH_ACKREQ | MRC_BTH_TSETH,
	MRC_BTH_ACKREQ | MRC_BTH_RETX | MRC_BTH_TSETH,
	MRC_BTH_TAGGED, MRC_BTH_TAGGED | MRC_BTH_TSETH | MRC_BTH_START,
};

static const struct mrc_data_hdr data_edges[] = {
	{ .psn = 0, .dport = 0, .msn = 0, .ts = 0, .offset = 0, .sport = 0,
	  .epoch = 0, .msg_len = 0 },
	{ .psn = 0xffffff, .dport = 0xffff, .msn = 0xffff, .ts = 0xffff,
	  .offset = 0xffffffffffffffffULL, .sport = 0xffff, .epoch = 0xffff,
	  .msg_len = 0xffffffff },
	{ .psn = 0x800000, .dport = 0x8001, .msn = 0x8000, .ts = 0x8001,
	  .offset = 0xffffffffULL, .sport = 0x0001, .epoch = 0x8000,
	  .msg_len = 0 },
	{ .psn = 0x7fffff, .dport = 1, .msn = 1, .ts = 1,
	  .offset = 0x100000000ULL, .sport = 0xfffe, .epoch = 1,
	  .msg_len = 0x80000000 },
	{ .psn = 1, .dport = 0x1388, .msn = 0x7fff, .ts = 0xbeef,
	  .offset = 0xfffffffeULL, .sport = 0x1389, .epoch = 0x5a3c,
	  .msg_len = 0xffffffff },
	{ .psn = 0xfffffe, .dport = 0xff00, .msn = 0x00ff, .ts = 0x7fff,
	  .offset = 0x7fffffffffffffffULL, .sport = 0x00ff, .epoch = 0xff00,
	  .msg_len = 1 },
	{ .psn = 0x123456, .dport = 0x00ff, .msn = 0xabcd, .ts = 0x1234,
	  .offset = 0x8000000000000000ULL, .sport = 0xffff, .epoch = 0xffff,
	  .msg_len = 0xfffffffe },
	{ .psn = 0xabcdef, .dport = 0xffff, .msn = 0, .ts = 0,
	  .offset = 0x8000000000000001ULL, .sport = 0xffff, .epoch = 0xffff,
	  .msg_len = 0 },
};

static int is_imm(__u8 op)
{
	return op == MRC_OP_WRITE_LAST_IMM || op == MRC_OP_WRITE_ONLY_IMM;
}

/* Bytes @from..@to-1 of @p all hold @v. */
static int all_are(const __u8 *p, int from, int to, __u8 v)
{
	int i;

	for (i = from; i < to; i++)
		if (p[i] != v)
			return 0;
	return 1;
}

/*
 * Write @in into buffers pre-filled with two different patterns: the
 * writer must return the documented length, write every byte up to it
 * (the two results agree) and nothing after it.  Leaves the result in @p.
 */
static int put_data_twice(struct __test_metadata *_metadata, __u8 *p,
			  const struct mrc_data_hdr *in)
{
	__u8 q[BUF_LEN];
	int len, len2;

	memset(p, CANARY_A, BUF_LEN);
	memset(q, CANARY_B, BUF_LEN);
	len = mrc_put_data_hdr(p, in);
	len2 = mrc_put_data_hdr(q, in);
	EXPECT_EQ(len, len2);
	EXPECT_EQ((in->flags & MRC_BTH_TSETH ? 36 : 32) +
		  (in->flags & MRC_BTH_TAGGED ? MRC_ITETH_LEN : 0), len);
	if (len <= 0 || len > BUF_LEN || len != len2)
		return len;
	EXPECT_EQ(0, memcmp(p, q, len));
	EXPECT_TRUE(all_are(p, len, BUF_LEN, CANARY_A));
	EXPECT_TRUE(all_are(q, len, BUF_LEN, CANARY_B));
	return len;
}

static void check_data_round_trip(struct __test_metadata *_metadata,
				  const struct mrc_data_hdr *in)
{
	struct mrc_data_hdr out;
	__u8 p[BUF_LEN];
	int len, hlen;

	len = put_data_twice(_metadata, p, in);
	ASSERT_GT(len, 0);

	/* The receive check accepts exactly what was written (plus the
	 * immediate data that the IMM opcodes call for and put() leaves
	 * to the caller), and not one byte less.
	 */
	hlen = len + (is_imm(in->opcode) ? MRC_IMM_LEN : 0);
	EXPECT_EQ(hlen, mrc_hdr_len(p));
	EXPECT_EQ(hlen, mrc_hdr_check(p, hlen));
	EXPECT_EQ(MRC_HDR_SHORT, mrc_hdr_check(p, hlen - 1));
	EXPECT_EQ(hlen, mrc_hdr_check(p, BUF_LEN));

	memset(&out, 0x5a, sizeof(out));
	mrc_get_data_hdr(p, &out);
	EXPECT_EQ(in->opcode, out.opcode);
	EXPECT_EQ(in->flags, out.flags);
	EXPECT_EQ(in->dport, out.dport);
	EXPECT_EQ(in->psn, out.psn);
	EXPECT_EQ(in->msn, out.msn);
	EXPECT_EQ(in->flags & MRC_BTH_TSETH ? in->ts : 0, out.ts);
	EXPECT_EQ(in->offset, out.offset);
	EXPECT_EQ(in->sport, out.sport);
	EXPECT_EQ(in->epoch, out.epoch);
	EXPECT_EQ(in->msg_len, out.msg_len);
	EXPECT_EQ(in->flags & MRC_BTH_TAGGED ? in->tag : 0, out.tag);
	EXPECT_EQ(in->flags & MRC_BTH_TAGGED ? in->tag_echo : 0, out.tag_echo);
	if (!_metadata->passed)
		TH_LOG("opcode 0x%02x flags 0x%02x psn 0x%06x offset 0x%llx",
		       in->opcode, in->flags, in->psn,
		       (unsigned long long)in->offset);
}

TEST(data__round_trip_every_opcode_and_edge)
{
	struct mrc_data_hdr h;
	size_t o, f, e;

	for (o = 0; o < sizeof(data_ops); o++)
		for (f = 0; f < sizeof(data_flags); f++)
			for (e = 0; e < ARRAY_SIZE(data_edges); e++) {
				h = data_edges[e];
				h.opcode = data_ops[o];
				h.flags = data_flags[f];
				h.tag = 0x80000001u ^ (__u32)e;
				h.tag_echo = 0xfedcba98u + (__u32)e;
				check_data_round_trip(_metadata, &h);
			}
}

/* The four opcodes mrc sends: 32 bytes, 36 with a TSETH, exactly. */
TEST(data__length_accepted_exactly)
{
	struct mrc_data_hdr h = data_edges[1];
	__u8 p[BUF_LEN];
	size_t o;
	int len;

	for (o = 0; o < sizeof(sent_data_ops); o++) {
		h.opcode = sent_data_ops[o];
		h.flags = 0;
		len = put_data_twice(_metadata, p, &h);
		EXPECT_EQ(32, len);
		EXPECT_EQ(MRC_DATA_HDR_LEN, len);
		EXPECT_EQ(32, mrc_hdr_check(p, 32));
		EXPECT_EQ(MRC_HDR_SHORT, mrc_hdr_check(p, 31));

		h.flags = MRC_BTH_TSETH | MRC_BTH_ACKREQ;
		len = put_data_twice(_metadata, p, &h);
		EXPECT_EQ(36, len);
		EXPECT_EQ(36, mrc_hdr_check(p, 36));
		EXPECT_EQ(MRC_HDR_SHORT, mrc_hdr_check(p, 35));
	}
}

/*
 * WRITE_LAST_IMM and WRITE_ONLY_IMM: mrc never sends them and put() writes
 * no immediate, so its length is 4 short of what the receive check wants
 * (36/40): the checker must still see the immediate as missing.
 */
TEST(data__imm_opcodes_need_immediate)
{
	struct mrc_data_hdr h = data_edges[4];
	__u8 p[BUF_LEN];
	int len;

	h.opcode = MRC_OP_WRITE_ONLY_IMM;
	len = put_data_twice(_metadata, p, &h);
	EXPECT_EQ(32, len);
	EXPECT_EQ(MRC_HDR_SHORT, mrc_hdr_check(p, len));
	EXPECT_EQ(36, mrc_hdr_check(p, 36));

	h.opcode = MRC_OP_WRITE_LAST_IMM;
	h.flags = MRC_BTH_TSETH;
	len = put_data_twice(_metadata, p, &h);
	EXPECT_EQ(36, len);
	EXPECT_EQ(MRC_HDR_SHORT, mrc_hdr_check(p, 39));
	EXPECT_EQ(40, mrc_hdr_check(p, 40));
}

/* The receive path's consistency check, whole and trimmed. */
TEST(data__fields_ok)
{
	struct mrc_data_hdr h = { .sport = 7, .epoch = 1, .msg_len = 10000 };

	h.opcode = MRC_OP_WRITE_ONLY;
	EXPECT_FALSE(mrc_data_fields_ok(&h, 4096, 65536, 0));
	h.msg_len = 4096;
	EXPECT_TRUE(mrc_data_fields_ok(&h, 4096, 65536, 0));
	EXPECT_FALSE(mrc_data_fields_ok(&h, 4096, 4095, 0));
	EXPECT_TRUE(mrc_data_fields_ok(&h, 4096, 4096, 0));
	h.msg_len = 0;
	EXPECT_TRUE(mrc_data_fields_ok(&h, 0, 65536, 0));

	h.msg_len = 10000;
	h.opcode = MRC_OP_WRITE_FIRST;
	EXPECT_TRUE(mrc_data_fields_ok(&h, 4096, 65536, 0));
	EXPECT_FALSE(mrc_data_fields_ok(&h, 0, 65536, 0));
	EXPECT_FALSE(mrc_data_fields_ok(&h, 10000, 65536, 0));
	h.offset = 4096;
	EXPECT_FALSE(mrc_data_fields_ok(&h, 4096, 65536, 0));

	h.opcode = MRC_OP_WRITE_MIDDLE;
	EXPECT_TRUE(mrc_data_fields_ok(&h, 4096, 65536, 0));
	EXPECT_FALSE(mrc_data_fields_ok(&h, 5904, 65536, 0));
	EXPECT_FALSE(mrc_data_fields_ok(&h, 5905, 65536, 0));
	h.opcode = MRC_OP_WRITE_LAST;
	EXPECT_TRUE(mrc_data_fields_ok(&h, 5904, 65536, 0));
	EXPECT_FALSE(mrc_data_fields_ok(&h, 5903, 65536, 0));
	h.offset = 0;
	EXPECT_FALSE(mrc_data_fields_ok(&h, 10000, 65536, 0));

	/* No port, no epoch, an offset past the end: never. */
	h.offset = 4096;
	h.sport = 0;
	EXPECT_FALSE(mrc_data_fields_ok(&h, 5904, 65536, 0));
	EXPECT_FALSE(mrc_data_fields_ok(&h, 0, 65536, 1));
	h.sport = 7;
	h.epoch = 0;
	EXPECT_FALSE(mrc_data_fields_ok(&h, 5904, 65536, 0));
	EXPECT_FALSE(mrc_data_fields_ok(&h, 0, 65536, 1));
	h.epoch = 1;
	h.offset = 10001;
	EXPECT_FALSE(mrc_data_fields_ok(&h, 0, 65536, 1));

	/* Trimmed: the payload's length says nothing, its start does. */
	h.offset = 4096;
	EXPECT_TRUE(mrc_data_fields_ok(&h, 0, 65536, 1));
	EXPECT_TRUE(mrc_data_fields_ok(&h, 123, 65536, 1));
	h.offset = 10000;
	EXPECT_FALSE(mrc_data_fields_ok(&h, 0, 65536, 1));
	h.offset = 0;
	EXPECT_FALSE(mrc_data_fields_ok(&h, 0, 65536, 1));
	h.opcode = MRC_OP_WRITE_MIDDLE;
	EXPECT_FALSE(mrc_data_fields_ok(&h, 0, 65536, 1));
	h.opcode = MRC_OP_WRITE_FIRST;
	EXPECT_TRUE(mrc_data_fields_ok(&h, 0, 65536, 1));
	h.opcode = MRC_OP_WRITE_ONLY;
	EXPECT_TRUE(mrc_data_fields_ok(&h, 0, 65536, 1));
	EXPECT_FALSE(mrc_data_fields_ok(&h, 0, 9999, 1));
	h.opcode = MRC_OP_WRITE_ONLY_IMM;
	EXPECT_FALSE(mrc_data_fields_ok(&h, 0, 65536, 1));
	EXPECT_FALSE(mrc_data_fields_ok(&h, 10000, 65536, 0));
}

TEST(data__byte_layout)
{
	struct mrc_data_hdr h = {
		.opcode = MRC_OP_WRITE_MIDDLE,
		.flags = MRC_BTH_ACKREQ | MRC_BTH_RETX,
		.dport = 0xfedc,
		.psn = 0xa1b2c3,
		.msn = 0xd4e5,
		.ts = 0x9999,		/* no TSETH flag: not written */
		.offset = 0x0102030405060708ULL,
		.sport = 0x1122,
		.epoch = 0x3344,
		.msg_len = 0x55667788,
	};
	__u8 p[BUF_LEN];

	ASSERT_EQ(32, put_data_twice(_metadata, p, &h));
	EXPECT_EQ(0xc7, p[0]);			/* opcode */
	EXPECT_EQ(0, p[1]);			/* SE, M, pad, version 0 */
	EXPECT_EQ(0xff, p[2]);			/* P_Key 0xffff */
	EXPECT_EQ(0xff, p[3]);
	EXPECT_EQ(0, p[4]);			/* reserved */
	EXPECT_EQ(0x00, p[5]);			/* destination QP = port */
	EXPECT_EQ(0xfe, p[6]);
	EXPECT_EQ(0xdc, p[7]);
	EXPECT_EQ(0xa0, p[8]);			/* ack request + retx */
	EXPECT_EQ(0xa1, p[9]);			/* PSN */
	EXPECT_EQ(0xb2, p[10]);
	EXPECT_EQ(0xc3, p[11]);
	EXPECT_EQ(0, p[12]);			/* METH request MSN: 0 */
	EXPECT_EQ(0, p[13]);
	EXPECT_EQ(0xd4, p[14]);			/* MSN */
	EXPECT_EQ(0xe5, p[15]);
	EXPECT_EQ(0x01, p[16]);			/* RETH offset */
	EXPECT_EQ(0x02, p[17]);
	EXPECT_EQ(0x03, p[18]);
	EXPECT_EQ(0x04, p[19]);
	EXPECT_EQ(0x05, p[20]);
	EXPECT_EQ(0x06, p[21]);
	EXPECT_EQ(0x07, p[22]);
	EXPECT_EQ(0x08, p[23]);
	EXPECT_EQ(0x11, p[24]);			/* source port */
	EXPECT_EQ(0x22, p[25]);
	EXPECT_EQ(0x33, p[26]);			/* epoch */
	EXPECT_EQ(0x44, p[27]);
	EXPECT_EQ(0x55, p[28]);			/* message length */
	EXPECT_EQ(0x66, p[29]);
	EXPECT_EQ(0x77, p[30]);
	EXPECT_EQ(0x88, p[31]);

	/* The BTH readers see the same fields. */
	EXPECT_EQ(0xc7, mrc_bth_opcode(p));
	EXPECT_EQ(0xfedc, mrc_bth_dqpn(p));
	EXPECT_EQ(0xa1b2c3, mrc_bth_psn(p));
}

/* With a TSETH the timestamp sits at 16-17 and the RETH moves to 20-35. */
TEST(data__byte_layout_tseth)
{
	struct mrc_data_hdr h = {
		.opcode = MRC_OP_WRITE_LAST,
		.flags = MRC_BTH_ACKREQ | MRC_BTH_TSETH,
		.dport = 0x0102,
		.psn = 0x000102,
		.msn = 0x0304,
		.ts = 0xbeef,
		.offset = 0x8000000000000001ULL,
		.sport = 0xffff,
		.epoch = 0xfffe,
		.msg_len = 0xfffffffd,
	};
	static const __u8 want[36] = {
		0xc8, 0x00, 0xff, 0xff, 0x00, 0x00, 0x01, 0x02,
		0x90, 0x00, 0x01, 0x02,
		0x00, 0x00, 0x03, 0x04,
		0xbe, 0xef, 0x00, 0x00,
		0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
		0xff, 0xff, 0xff, 0xfe,
		0xff, 0xff, 0xff, 0xfd,
	};
	__u8 p[BUF_LEN];

	ASSERT_EQ(36, put_data_twice(_metadata, p, &h));
	EXPECT_EQ(0, memcmp(want, p, sizeof(want)));
}

/* The two data packets of the worked example, byte for byte. */
TEST(data__doc_worked_example)
{
	static const __u8 pkt1[32] = {
		0xc6, 0x00, 0xff, 0xff, 0x00, 0x00, 0x13, 0x88,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x13, 0x89, 0x5a, 0x3c, 0x00, 0x10, 0x00, 0x00,
	};
	static const __u8 pkt256[36] = {
		0xc8, 0x00, 0xff, 0xff, 0x00, 0x00, 0x13, 0x88,
		0x90, 0x00, 0x00, 0xff, 0x00, 0x00, 0x00, 0x00,
		0x12, 0x34, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x0f, 0xf0, 0x00,
		0x13, 0x89, 0x5a, 0x3c, 0x00, 0x10, 0x00, 0x00,
	};
	struct mrc_data_hdr h = {
		.opcode = MRC_OP_WRITE_FIRST, .dport = 5000, .psn = 0,
		.msn = 0, .offset = 0, .sport = 5001, .epoch = 0x5a3c,
		.msg_len = 1048576,
	};
	__u8 p[BUF_LEN];

	ASSERT_EQ(32, put_data_twice(_metadata, p, &h));
	EXPECT_EQ(0, memcmp(pkt1, p, sizeof(pkt1)));

	h.opcode = MRC_OP_WRITE_LAST;
	h.flags = MRC_BTH_ACKREQ | MRC_BTH_TSETH;
	h.psn = 255;
	h.ts = 0x1234;
	h.offset = 1044480;
	ASSERT_EQ(36, put_data_twice(_metadata, p, &h));
	EXPECT_EQ(0, memcmp(pkt256, p, sizeof(pkt256)));
}

/* The reader takes only what the flags say is there. */
TEST(data__get_ignores_absent_and_reserved)
{
	struct mrc_data_hdr h;
	__u8 p[BUF_LEN];

	memset(p, 0xee, sizeof(p));
	p[0] = MRC_OP_WRITE_ONLY;
	p[1] = 0;
	p[8] = 0;			/* no TSETH */
	memset(&h, 0xff, sizeof(h));
	mrc_get_data_hdr(p, &h);
	EXPECT_EQ(0, h.ts);
	EXPECT_EQ(0xeeee, h.dport);	/* low 16 bits of the 24-bit QP */
	EXPECT_EQ(0xeeeeee, h.psn);
	EXPECT_EQ(0xeeee, h.msn);
	EXPECT_EQ(0xeeeeeeeeeeeeeeeeULL, h.offset);

	/* A TSETH's flags (18-19) are not part of the timestamp. */
	p[8] = MRC_BTH_TSETH;
	p[16] = 0x12;
	p[17] = 0x34;
	mrc_get_data_hdr(p, &h);
	EXPECT_EQ(0x1234, h.ts);
	EXPECT_EQ(0xeeeeeeeeeeeeeeeeULL, h.offset);
}

/* A PSN wider than 24 bits must not spill into the flags byte. */
TEST(data__psn_stays_in_24_bits)
{
	struct mrc_data_hdr h = {
		.opcode = MRC_OP_WRITE_ONLY, .psn = 0xffffffff,
	};
	__u8 p[BUF_LEN];

	ASSERT_EQ(32, put_data_twice(_metadata, p, &h));
	EXPECT_EQ(0, p[8]);
	EXPECT_EQ(0, p[4]);
	EXPECT_EQ(0xffffff, mrc_bth_psn(p));
}

/* Acknowledgements. */

static const __u8 ack_ops[] = { MRC_OP_ACK, MRC_OP_SACK, MRC_OP_NACK };

/* A probe's answer: a SACK with the probe-response flag. */
static int is_probe_resp(const struct mrc_ack_hdr *h)
{
	return h->opcode == MRC_OP_SACK && h->flags & MRC_SETH_PROBE_RESP;
}

/* A probe's answer keeps MRC 1.0's 48 bytes, tagged or not: its tags
 * are in the SETH's bitmap, not in an ITETH.
 */
static int ack_len(const struct mrc_ack_hdr *h)
{
	__u8 op = h->opcode;

	return (op == MRC_OP_ACK ? 16 : op == MRC_OP_SACK ? 48 : 32) +
	       (h->tagged && !is_probe_resp(h) ? MRC_ITETH_LEN : 0);
}

static int put_ack_twice(struct __test_metadata *_metadata, __u8 *p,
			 const struct mrc_ack_hdr *in)
{
	__u8 q[BUF_LEN];
	int len, len2;

	memset(p, CANARY_A, BUF_LEN);
	memset(q, CANARY_B, BUF_LEN);
	len = mrc_put_ack_hdr(p, in);
	len2 = mrc_put_ack_hdr(q, in);
	EXPECT_EQ(len, len2);
	EXPECT_EQ(ack_len(in), len);
	if (len <= 0 || len > BUF_LEN || len != len2)
		return len;
	EXPECT_EQ(0, memcmp(p, q, len));
	EXPECT_TRUE(all_are(p, len, BUF_LEN, CANARY_A));
	EXPECT_TRUE(all_are(q, len, BUF_LEN, CANARY_B));
	return len;
}

static const struct mrc_ack_hdr ack_edges[] = {
	{ 0 },
	{ .dport = 0xffff, .sport = 0xffff, .epoch = 0xffff, .psn = 0xffffff,
	  .flags = 0xff, .cc_flags = MRC_CC_FLAG_ECN, .acked_off = -1,
	  .entropy = 0xffffffff, .max_range = 0xff, .sack_off = -1,
	  .bitmap = 0xffffffffffffffffULL, .ts_echo = 0xffff,
	  .ooo_count = 0x7fff, .rcvd_256 = 0xffffff, .reason = 0xff },
	{ .dport = 0x8000, .sport = 1, .epoch = 0x8000, .psn = 0x800000,
	  .flags = 0x60, .cc_flags = 0x0f, .acked_off = -32768,
	  .entropy = 0x80000000, .max_range = 4, .sack_off = -32768,
	  .bitmap = 0x8000000000000001ULL, .ts_echo = 0x8000,
	  .ooo_count = 0x4000, .rcvd_256 = 0x800000,
	  .reason = MRC_NACK_PSN_OOW },
	{ .dport = 0x1389, .sport = 0x1388, .epoch = 0x5a3c, .psn = 2,
	  .flags = 0x02, .cc_flags = 0, .acked_off = 32767,
	  .entropy = 300, .max_range = 16, .sack_off = 32767,
	  .bitmap = 0x0000000000000004ULL, .ts_echo = 1,
	  .ooo_count = 1, .rcvd_256 = 0x40, .reason = MRC_NACK_TRIMMED },
	{ .dport = 1, .sport = 0xfffe, .epoch = 1, .psn = 0x7fffff,
	  .flags = 0, .cc_flags = 0, .acked_off = -5,
	  .entropy = 0x0000ffff, .max_range = 0, .sack_off = -64,
	  .bitmap = 0x0123456789abcdefULL, .ts_echo = 0xfffe,
	  .ooo_count = 0x7ffe, .rcvd_256 = 1,
	  .reason = MRC_NACK_UNEXPECTED },
	{ .dport = 0xfffe, .sport = 0x00ff, .epoch = 0xff00, .psn = 0,
	  .flags = 0, .cc_flags = MRC_CC_FLAG_ECN, .acked_off = 0,
	  .entropy = 0x12345678, .max_range = 1, .sack_off = 1,
	  .bitmap = 0xfedcba9876543210ULL, .ts_echo = 0x00ff,
	  .ooo_count = 0, .rcvd_256 = 0xfffffe,
	  .reason = MRC_NACK_NO_PKT_BUFFER },
};

static void check_ack_round_trip(struct __test_metadata *_metadata,
				 const struct mrc_ack_hdr *in)
{
	int presp = is_probe_resp(in);
	struct mrc_ack_hdr out;
	__u32 tag, echo;
	__u8 p[BUF_LEN];
	int len;

	len = put_ack_twice(_metadata, p, in);
	ASSERT_GT(len, 0);
	EXPECT_EQ(len, mrc_hdr_len(p));
	EXPECT_EQ(len, mrc_hdr_check(p, len));
	EXPECT_EQ(MRC_HDR_SHORT, mrc_hdr_check(p, len - 1));
	/* Control packets: flags 0, but for the tagged bit, which a
	 * probe's answer never has.
	 */
	EXPECT_EQ(in->tagged && !presp ? MRC_BTH_TAGGED : 0, p[8]);

	/* What is read as tags: a probe's answer always has them, in
	 * its bitmap's place (what was written there untagged).
	 */
	tag = in->tagged ? in->tag : 0;
	echo = in->tagged ? in->tag_echo : 0;
	if (presp && !in->tagged) {
		tag = (__u32)(in->bitmap >> 32);
		echo = (__u32)in->bitmap;
	}
	memset(&out, 0x5a, sizeof(out));
	mrc_get_ack_hdr(p, &out);
	EXPECT_EQ(in->tagged || presp, out.tagged);
	EXPECT_EQ(tag, out.tag);
	EXPECT_EQ(echo, out.tag_echo);
	EXPECT_EQ(in->opcode, out.opcode);
	EXPECT_EQ(in->dport, out.dport);
	EXPECT_EQ(in->sport, out.sport);
	EXPECT_EQ(in->epoch, out.epoch);
	EXPECT_EQ(in->psn, out.psn);
	switch (in->opcode) {
	case MRC_OP_ACK:
		/* The AETH carries nothing else: the rest reads as 0. */
		EXPECT_EQ(0, out.flags);
		EXPECT_EQ(0, out.cc_flags);
		EXPECT_EQ(0, out.acked_off);
		EXPECT_EQ(0, out.entropy);
		EXPECT_EQ(0, out.max_range);
		EXPECT_EQ(0, out.sack_off);
		EXPECT_EQ(0, out.bitmap);
		EXPECT_EQ(0, out.ts_echo);
		EXPECT_EQ(0, out.ooo_count);
		EXPECT_EQ(0, out.rcvd_256);
		EXPECT_EQ(0, out.reason);
		break;
	case MRC_OP_SACK:
		EXPECT_EQ(in->flags, out.flags);
		EXPECT_EQ(in->cc_flags, out.cc_flags);
		EXPECT_EQ(in->acked_off, out.acked_off);
		EXPECT_EQ(in->entropy, out.entropy);
		EXPECT_EQ(in->max_range, out.max_range);
		EXPECT_EQ(in->sack_off, out.sack_off);
		EXPECT_EQ(presp ? 0 : in->bitmap, out.bitmap);
		EXPECT_EQ(in->ts_echo, out.ts_echo);
		EXPECT_EQ(in->ooo_count, out.ooo_count);
		EXPECT_EQ(in->rcvd_256, out.rcvd_256);
		EXPECT_EQ(0, out.reason);
		break;
	default:
		EXPECT_EQ(in->reason, out.reason);
		EXPECT_EQ(in->entropy, out.entropy);
		EXPECT_EQ(in->ts_echo, out.ts_echo);
		EXPECT_EQ(0, out.flags);
		EXPECT_EQ(0, out.cc_flags);
		EXPECT_EQ(0, out.acked_off);
		EXPECT_EQ(0, out.max_range);
		EXPECT_EQ(0, out.sack_off);
		EXPECT_EQ(0, out.bitmap);
		EXPECT_EQ(0, out.ooo_count);
		EXPECT_EQ(0, out.rcvd_256);
		break;
	}
	if (!_metadata->passed)
		TH_LOG("opcode 0x%02x psn 0x%06x acked_off %d sack_off %d",
		       in->opcode, in->psn, in->acked_off, in->sack_off);
}

TEST(ack__round_trip_every_opcode_and_edge)
{
	struct mrc_ack_hdr h;
	size_t o, e;

	for (o = 0; o < sizeof(ack_ops); o++)
		for (e = 0; e < ARRAY_SIZE(ack_edges); e++) {
			h = ack_edges[e];
			h.opcode = ack_ops[o];
			check_ack_round_trip(_metadata, &h);
			h.tagged = 1;
			h.tag = 0xffffffffu - (__u32)e;
			h.tag_echo = 0x01020304u << (e % 8);
			check_ack_round_trip(_metadata, &h);
		}
}

/* The ITETH: BTH flag 0x08, 8 bytes after the RETH (before immediate
 * data) or after an acknowledgment's last header, big endian.
 */
TEST(iteth__byte_layout)
{
	struct mrc_data_hdr d = {
		.opcode = MRC_OP_WRITE_ONLY_IMM, .flags = MRC_BTH_TAGGED,
		.sport = 1, .epoch = 2, .tag = 0xa1a2a3a4, .tag_echo = 0xb1b2b3b4,
	};
	struct mrc_ack_hdr a = {
		.opcode = MRC_OP_NACK, .reason = MRC_NACK_TAG_CHALLENGE, .tagged = 1,
		.tag = 0xc1c2c3c4, .tag_echo = 0xa1a2a3a4,
	};
	static const __u8 dtag[] = { 0xa1, 0xa2, 0xa3, 0xa4,
				     0xb1, 0xb2, 0xb3, 0xb4 };
	static const __u8 atag[] = { 0xc1, 0xc2, 0xc3, 0xc4,
				     0xa1, 0xa2, 0xa3, 0xa4 };
	__u8 p[BUF_LEN];

	memset(p, 0, sizeof(p));
	ASSERT_EQ(40, mrc_put_data_hdr(p, &d));
	EXPECT_EQ(MRC_BTH_TAGGED, p[8]);
	EXPECT_EQ(0, memcmp(p + 32, dtag, sizeof(dtag)));
	/* The immediate data the caller puts after it. */
	EXPECT_EQ(44, mrc_hdr_len(p));
	EXPECT_EQ(MRC_HDR_SHORT, mrc_hdr_check(p, 43));

	memset(p, 0, sizeof(p));
	ASSERT_EQ(40, mrc_put_ack_hdr(p, &a));
	EXPECT_EQ(MRC_BTH_TAGGED, p[8]);
	EXPECT_EQ(0x1a, p[14]);
	EXPECT_EQ(0, memcmp(p + 32, atag, sizeof(atag)));
	EXPECT_EQ(40, mrc_hdr_check(p, 40));
	EXPECT_EQ(MRC_HDR_SHORT, mrc_hdr_check(p, 39));

	a.opcode = MRC_OP_ACK;
	ASSERT_EQ(24, mrc_put_ack_hdr(p, &a));
	EXPECT_EQ(0, memcmp(p + 16, atag, sizeof(atag)));
	a.opcode = MRC_OP_SACK;
	ASSERT_EQ(56, mrc_put_ack_hdr(p, &a));
	EXPECT_EQ(0, memcmp(p + 48, atag, sizeof(atag)));
}

/* Negative offsets travel as 16-bit two's complement and come back signed. */
TEST(ack__sack_negative_offsets)
{
	static const __s16 offs[] = { -1, -2, -64, -255, -256, -1024,
				      -32767, -32768, 0, 1, 255, 32767 };
	struct mrc_ack_hdr h = { .opcode = MRC_OP_SACK, .psn = 0x10 };
	struct mrc_ack_hdr out;
	__u8 p[BUF_LEN];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(offs); i++) {
		h.acked_off = offs[i];
		h.sack_off = (__s16)-offs[i] - 1;
		ASSERT_EQ(48, put_ack_twice(_metadata, p, &h));
		EXPECT_EQ((__u16)offs[i], mrc_get_be16(p + 14));
		EXPECT_EQ((__u16)h.sack_off, mrc_get_be16(p + 30));
		mrc_get_ack_hdr(p, &out);
		EXPECT_EQ(offs[i], out.acked_off);
		EXPECT_EQ(h.sack_off, out.sack_off);
		EXPECT_EQ((int)offs[i], (int)out.acked_off);
	}
	h.acked_off = -1;
	h.sack_off = -2;
	put_ack_twice(_metadata, p, &h);
	EXPECT_EQ(0xff, p[14]);
	EXPECT_EQ(0xff, p[15]);
	EXPECT_EQ(0xff, p[30]);
	EXPECT_EQ(0xfe, p[31]);
}

/*
 * get() must clear what the opcode does not carry, whatever the caller's
 * struct held and whatever lies in the buffer past the header.
 */
TEST(ack__get_zeroes_fields_not_carried)
{
	struct mrc_ack_hdr in = ack_edges[1], out;
	__u8 p[BUF_LEN];

	in.opcode = MRC_OP_ACK;
	put_ack_twice(_metadata, p, &in);
	memset(p + 16, 0xff, BUF_LEN - 16);
	memset(&out, 0xff, sizeof(out));
	mrc_get_ack_hdr(p, &out);
	EXPECT_EQ(0, out.flags);
	EXPECT_EQ(0, out.cc_flags);
	EXPECT_EQ(0, out.acked_off);
	EXPECT_EQ(0, out.entropy);
	EXPECT_EQ(0, out.max_range);
	EXPECT_EQ(0, out.sack_off);
	EXPECT_EQ(0, out.bitmap);
	EXPECT_EQ(0, out.ts_echo);
	EXPECT_EQ(0, out.ooo_count);
	EXPECT_EQ(0, out.rcvd_256);
	EXPECT_EQ(0, out.reason);

	in.opcode = MRC_OP_NACK;
	put_ack_twice(_metadata, p, &in);
	memset(p + 32, 0xff, BUF_LEN - 32);
	memset(&out, 0xff, sizeof(out));
	mrc_get_ack_hdr(p, &out);
	EXPECT_EQ(0xff, out.reason);
	EXPECT_EQ(0, out.flags);
	EXPECT_EQ(0, out.cc_flags);
	EXPECT_EQ(0, out.acked_off);
	EXPECT_EQ(0, out.max_range);
	EXPECT_EQ(0, out.sack_off);
	EXPECT_EQ(0, out.bitmap);
	EXPECT_EQ(0, out.ooo_count);
	EXPECT_EQ(0, out.rcvd_256);

	in.opcode = MRC_OP_SACK;
	put_ack_twice(_metadata, p, &in);
	memset(&out, 0xff, sizeof(out));
	mrc_get_ack_hdr(p, &out);
	EXPECT_EQ(0, out.reason);
}

TEST(ack__ack_byte_layout)
{
	struct mrc_ack_hdr h = {
		.opcode = MRC_OP_ACK, .dport = 0xabcd, .sport = 0x1234,
		.epoch = 0xfedc, .psn = 0xffffff,
		/* not carried by an ACK */
		.entropy = 0x11111111, .bitmap = ~0ULL, .reason = 0x22,
	};
	/* The worked example: cumulative PSN 3, from 5000 to 5001. */
	static const __u8 doc[16] = {
		0xd1, 0x00, 0xff, 0xff, 0x00, 0x00, 0x13, 0x89,
		0x00, 0x00, 0x00, 0x03, 0x13, 0x88, 0x5a, 0x3c,
	};
	__u8 p[BUF_LEN];

	ASSERT_EQ(16, put_ack_twice(_metadata, p, &h));
	EXPECT_EQ(0xd1, p[0]);
	EXPECT_EQ(0, p[1]);
	EXPECT_EQ(0xff, p[2]);
	EXPECT_EQ(0xff, p[3]);
	EXPECT_EQ(0, p[4]);
	EXPECT_EQ(0x00, p[5]);
	EXPECT_EQ(0xab, p[6]);
	EXPECT_EQ(0xcd, p[7]);
	EXPECT_EQ(0, p[8]);
	EXPECT_EQ(0xff, p[9]);
	EXPECT_EQ(0xff, p[10]);
	EXPECT_EQ(0xff, p[11]);
	EXPECT_EQ(0x12, p[12]);		/* AETH: source port */
	EXPECT_EQ(0x34, p[13]);
	EXPECT_EQ(0xfe, p[14]);		/* AETH: epoch */
	EXPECT_EQ(0xdc, p[15]);

	memset(&h, 0, sizeof(h));
	h.opcode = MRC_OP_ACK;
	h.dport = 5001;
	h.sport = 5000;
	h.epoch = 0x5a3c;
	h.psn = 3;
	ASSERT_EQ(16, put_ack_twice(_metadata, p, &h));
	EXPECT_EQ(0, memcmp(doc, p, sizeof(doc)));
}

TEST(ack__sack_byte_layout)
{
	struct mrc_ack_hdr h = {
		.opcode = MRC_OP_SACK, .dport = 0x4321, .sport = 0xa1a2,
		.epoch = 0xb1b2, .psn = 0xc1c2c3, .flags = 0x42,
		.cc_flags = MRC_CC_FLAG_ECN, .acked_off = 0x0d0e,
		.entropy = 0x0000f1f2, .max_range = 4, .sack_off = 1,
		.bitmap = 0x0102030405060708ULL, .ts_echo = 0xe1e2,
		.ooo_count = 0x7123, .rcvd_256 = 0x313233,
		.reason = 0x77,		/* not carried by a SACK */
	};
	__u8 p[BUF_LEN];

	ASSERT_EQ(48, put_ack_twice(_metadata, p, &h));
	EXPECT_EQ(0xdc, p[0]);
	EXPECT_EQ(0, p[1]);
	EXPECT_EQ(0xff, p[2]);
	EXPECT_EQ(0xff, p[3]);
	EXPECT_EQ(0, p[4]);
	EXPECT_EQ(0x004321, mrc_get_be24(p + 5));
	EXPECT_EQ(0, p[8]);
	EXPECT_EQ(0xc1, p[9]);		/* BTH PSN: cumulative PSN */
	EXPECT_EQ(0xc2, p[10]);
	EXPECT_EQ(0xc3, p[11]);
	EXPECT_EQ(0, p[12]);		/* next header */
	EXPECT_EQ(0x42, p[13]);		/* mark, probe response */
	EXPECT_EQ(0x0d, p[14]);		/* acknowledged-PSN offset */
	EXPECT_EQ(0x0e, p[15]);
	EXPECT_EQ(0x00, p[16]);		/* reflected entropy */
	EXPECT_EQ(0x00, p[17]);
	EXPECT_EQ(0xf1, p[18]);
	EXPECT_EQ(0xf2, p[19]);
	EXPECT_EQ(0xa1, p[20]);		/* source port */
	EXPECT_EQ(0xa2, p[21]);
	EXPECT_EQ(0xb1, p[22]);		/* epoch */
	EXPECT_EQ(0xb2, p[23]);
	EXPECT_EQ(0, p[24]);		/* reserved */
	EXPECT_EQ(0xc1, p[25]);		/* cumulative PSN */
	EXPECT_EQ(0xc2, p[26]);
	EXPECT_EQ(0xc3, p[27]);
	EXPECT_EQ(0x11, p[28]);		/* NSCC, ECN */
	EXPECT_EQ(0x1, p[28] >> 4);
	EXPECT_EQ(4, p[29]);		/* maximum PSN range */
	EXPECT_EQ(0x00, p[30]);		/* SACK offset */
	EXPECT_EQ(0x01, p[31]);
	EXPECT_EQ(0x01, p[32]);		/* bitmap, big endian */
	EXPECT_EQ(0x02, p[33]);
	EXPECT_EQ(0x03, p[34]);
	EXPECT_EQ(0x04, p[35]);
	EXPECT_EQ(0x05, p[36]);
	EXPECT_EQ(0x06, p[37]);
	EXPECT_EQ(0x07, p[38]);
	EXPECT_EQ(0x08, p[39]);
	EXPECT_EQ(0xe1, p[40]);		/* echoed timestamp */
	EXPECT_EQ(0xe2, p[41]);
	EXPECT_EQ(0x71, p[42]);		/* out-of-order count */
	EXPECT_EQ(0x23, p[43]);
	EXPECT_EQ(0, p[44]);		/* restore window, penalty */
	EXPECT_EQ(0x31, p[45]);		/* bytes received / 256 */
	EXPECT_EQ(0x32, p[46]);
	EXPECT_EQ(0x33, p[47]);
}

/* Bit i of the bitmap is bit i of the big-endian u64 at 32-39. */
TEST(ack__sack_bitmap_bits)
{
	struct mrc_ack_hdr h = { .opcode = MRC_OP_SACK }, out;
	__u8 p[BUF_LEN];
	int i, j;

	for (i = 0; i < 64; i++) {
		h.bitmap = 1ULL << i;
		ASSERT_EQ(48, put_ack_twice(_metadata, p, &h));
		for (j = 0; j < 8; j++)
			EXPECT_EQ(j == 7 - i / 8 ? 1 << (i % 8) : 0,
				  p[32 + j]);
		mrc_get_ack_hdr(p, &out);
		EXPECT_EQ(1ULL << i, out.bitmap);
	}
	/* bit 0 in byte 39, bit 63 in byte 32 */
	h.bitmap = 1;
	put_ack_twice(_metadata, p, &h);
	EXPECT_EQ(0x01, p[39]);
	h.bitmap = 1ULL << 63;
	put_ack_twice(_metadata, p, &h);
	EXPECT_EQ(0x80, p[32]);
}

/* The worked example's SACK (PSNs 3 and 4 lost, PSN 5 arrives). */
TEST(ack__sack_doc_worked_example)
{
	static const __u8 doc[48] = {
		0xdc, 0x00, 0xff, 0xff, 0x00, 0x00, 0x13, 0x89,
		0x00, 0x00, 0x00, 0x02,
		0x00, 0x00, 0x00, 0x03,
		0x00, 0x00, 0x01, 0x2c,
		0x13, 0x88, 0x5a, 0x3c, 0x00, 0x00, 0x00, 0x02,
		0x10, 0x10, 0x00, 0x01,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04,
		0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x40,
	};
	struct mrc_ack_hdr h = {
		.opcode = MRC_OP_SACK, .dport = 5001, .sport = 5000,
		.epoch = 0x5a3c, .psn = 2, .acked_off = 3, .entropy = 300,
		.max_range = 16, .sack_off = 1, .bitmap = 1 << 2,
		.ooo_count = 1, .rcvd_256 = 0x40,
	};
	__u8 p[BUF_LEN];

	ASSERT_EQ(48, put_ack_twice(_metadata, p, &h));
	EXPECT_EQ(0, memcmp(doc, p, sizeof(doc)));
}

/* Fields the wire cannot hold are cut, never spilled into neighbours. */
TEST(ack__sack_field_widths)
{
	struct mrc_ack_hdr h = {
		.opcode = MRC_OP_SACK, .cc_flags = 0xff, .ooo_count = 0xffff,
		.rcvd_256 = 0xff123456, .psn = 0xff654321,
	}, out;
	__u8 p[BUF_LEN];

	ASSERT_EQ(48, put_ack_twice(_metadata, p, &h));
	EXPECT_EQ(0x1f, p[28]);		/* the type nibble stays NSCC */
	EXPECT_EQ(0x7f, p[42]);		/* bit 15 reserved */
	EXPECT_EQ(0xff, p[43]);
	EXPECT_EQ(0, p[44]);
	EXPECT_EQ(0x123456, mrc_get_be24(p + 45));
	EXPECT_EQ(0, p[8]);
	EXPECT_EQ(0, p[24]);
	EXPECT_EQ(0x654321, mrc_get_be24(p + 9));
	EXPECT_EQ(0x654321, mrc_get_be24(p + 25));
	mrc_get_ack_hdr(p, &out);
	EXPECT_EQ(0x0f, out.cc_flags);
	EXPECT_EQ(0x7fff, out.ooo_count);
	EXPECT_EQ(0x123456, out.rcvd_256);
	EXPECT_EQ(0x654321, out.psn);
}

TEST(ack__nack_byte_layout)
{
	struct mrc_ack_hdr h = {
		.opcode = MRC_OP_NACK, .dport = 0x0f0e, .sport = 0xa1a2,
		.epoch = 0xb1b2, .psn = 0xc1c2c3,
		.reason = MRC_NACK_PSN_OOW, .entropy = 0x0000017f,
		.ts_echo = 0xe1e2,
		/* SACK fields: not carried by a NACK */
		.flags = 0xff, .cc_flags = 0x0f, .acked_off = -1,
		.max_range = 0xff, .sack_off = -1, .bitmap = ~0ULL,
		.ooo_count = 0x7fff, .rcvd_256 = 0xffffff,
	};
	static const __u8 want[32] = {
		0xdd, 0x00, 0xff, 0xff, 0x00, 0x00, 0x0f, 0x0e,
		0x00, 0xc1, 0xc2, 0xc3,
		0x00, 0x00, 0x0b, 0x00,		/* next, rsvd, reason, vendor */
		0x00, 0x00, 0x01, 0x7f,		/* reflected entropy */
		0xa1, 0xa2, 0xb1, 0xb2,		/* source port, epoch */
		0x00, 0xc1, 0xc2, 0xc3,		/* reserved, NACK PSN */
		0x10, 0x00, 0xe1, 0xe2,		/* NSCC, rsvd, echo */
	};
	__u8 p[BUF_LEN];

	ASSERT_EQ(32, put_ack_twice(_metadata, p, &h));
	EXPECT_EQ(0x0b, p[14]);			/* reason */
	EXPECT_EQ(0xc1, p[25]);			/* NACK PSN */
	EXPECT_EQ(0xc2, p[26]);
	EXPECT_EQ(0xc3, p[27]);
	EXPECT_EQ(0x10, p[28]);
	EXPECT_EQ(0, memcmp(want, p, sizeof(want)));
}

TEST(ack__total_lengths)
{
	struct mrc_ack_hdr h = { 0 };
	__u8 p[BUF_LEN];

	h.opcode = MRC_OP_ACK;
	EXPECT_EQ(16, put_ack_twice(_metadata, p, &h));
	EXPECT_EQ(MRC_BTH_LEN + MRC_AETH_LEN, mrc_hdr_len(p));
	h.opcode = MRC_OP_SACK;
	EXPECT_EQ(48, put_ack_twice(_metadata, p, &h));
	EXPECT_EQ(MRC_BTH_LEN + MRC_SETH_LEN + MRC_CCSTATE_LEN,
		  mrc_hdr_len(p));
	h.opcode = MRC_OP_NACK;
	EXPECT_EQ(32, put_ack_twice(_metadata, p, &h));
	EXPECT_EQ(MRC_BTH_LEN + MRC_NETH_LEN, mrc_hdr_len(p));
}

/* Probes. */

/*
 * Write @in as put_data_twice() does: the documented length, every byte
 * up to it written, none after it.  Leaves the result in @p.
 */
static int put_probe_twice(struct __test_metadata *_metadata, __u8 *p,
			   const struct mrc_probe_hdr *in)
{
	__u8 q[BUF_LEN];
	int len, len2;

	memset(p, CANARY_A, BUF_LEN);
	memset(q, CANARY_B, BUF_LEN);
	len = mrc_put_probe_hdr(p, in);
	len2 = mrc_put_probe_hdr(q, in);
	EXPECT_EQ(len, len2);
	EXPECT_EQ(MRC_BTH_LEN + MRC_PETH_LEN, len);
	if (len <= 0 || len > BUF_LEN || len != len2)
		return len;
	EXPECT_EQ(0, memcmp(p, q, len));
	EXPECT_TRUE(all_are(p, len, BUF_LEN, CANARY_A));
	EXPECT_TRUE(all_are(q, len, BUF_LEN, CANARY_B));
	return len;
}

static void check_probe_round_trip(struct __test_metadata *_metadata,
				   const struct mrc_probe_hdr *in)
{
	struct mrc_probe_hdr out;
	__u8 p[BUF_LEN];
	int len, cut;

	/* MRC 1.0's 28 bytes, with a tag or without: never an ITETH. */
	len = put_probe_twice(_metadata, p, in);
	ASSERT_EQ(28, len);
	EXPECT_EQ(MRC_OP_PROBE, mrc_bth_opcode(p));
	EXPECT_EQ(0, p[8]);
	EXPECT_EQ(in->dport, mrc_bth_dqpn(p));
	EXPECT_EQ(0, mrc_bth_psn(p));		/* a probe consumes no PSN */
	EXPECT_EQ(in->tag, mrc_get_be32(p + MRC_BTH_LEN));

	/* The receive check agrees with the writer, to the byte: a
	 * packet cut anywhere short of it is short.
	 */
	EXPECT_EQ(len, mrc_hdr_len(p));
	EXPECT_EQ(len, mrc_hdr_check(p, len));
	EXPECT_EQ(len, mrc_hdr_check(p, BUF_LEN));
	for (cut = 0; cut < len; cut++)
		EXPECT_EQ(MRC_HDR_SHORT, mrc_hdr_check(p, cut));

	memset(&out, 0x5a, sizeof(out));
	mrc_get_probe_hdr(p, &out);
	EXPECT_EQ(in->dport, out.dport);
	EXPECT_EQ(in->sport, out.sport);
	EXPECT_EQ(in->id, out.id);
	EXPECT_EQ(in->ts, out.ts);
	EXPECT_EQ(in->tag, out.tag);
	if (!_metadata->passed)
		TH_LOG("dport 0x%04x sport 0x%04x id 0x%04x tag 0x%08x",
		       in->dport, in->sport, in->id, in->tag);
}

TEST(probe__round_trip_untagged_and_tagged)
{
	static const struct mrc_probe_hdr edges[] = {
		{ 0 },
		{ .dport = 0xffff, .sport = 0xffff, .id = 0xffff,
		  .ts = 0xffff, .tag = 0xffffffff },
		{ .dport = 0x1388, .sport = 0x1389, .id = 0x8001,
		  .ts = 0x7ffe, .tag = 0x80000001 },
		{ .dport = 0x8000, .sport = 1, .id = 1, .ts = 0x8000,
		  .tag = 1 },
	};
	struct mrc_probe_hdr h;
	size_t e;

	for (e = 0; e < ARRAY_SIZE(edges); e++) {
		h = edges[e];
		check_probe_round_trip(_metadata, &h);
		/* Untagged: PETH bytes 0-3 zero, as MRC 1.0 sends them. */
		h.tag = 0;
		check_probe_round_trip(_metadata, &h);
	}
}

/* The PETH of a probe, byte for byte: its tag in bytes 0-3. */
TEST(probe__byte_layout)
{
	struct mrc_probe_hdr h = {
		.dport = 0x1388, .sport = 0x1389, .id = 0xa1a2, .ts = 0xb1b2,
		.tag = 0xc1c2c3c4,
	};
	static const __u8 want[28] = {
		0xde, 0x00, 0xff, 0xff, 0x00, 0x00, 0x13, 0x88,
		0x00, 0x00, 0x00, 0x00,
		0xc1, 0xc2, 0xc3, 0xc4, 0xa1, 0xa2, 0x00, 0x00,
		0x13, 0x89, 0x13, 0x88, 0xb1, 0xb2, 0x00, 0x00,
	};
	__u8 p[BUF_LEN];

	ASSERT_EQ(28, put_probe_twice(_metadata, p, &h));
	EXPECT_EQ(0, memcmp(want, p, sizeof(want)));
	EXPECT_EQ(28, mrc_hdr_len(p));

	/* Untagged: MRC 1.0's probe, bytes 12-15 zero. */
	h.tag = 0;
	ASSERT_EQ(28, put_probe_twice(_metadata, p, &h));
	EXPECT_EQ(0, memcmp(want, p, 12));
	EXPECT_EQ(0, p[12] | p[13] | p[14] | p[15]);
	EXPECT_EQ(0, memcmp(want + 16, p + 16, 28 - 16));
}

/*
 * A probe's answer: a SACK with the probe-response flag, MRC 1.0's 48
 * bytes, no BTH flag 0x08: the responder's tag in SETH bytes 20-23 (UDP
 * payload 32-35), the prober's echoed in 24-27 (36-39), where the bitmap
 * of another SACK is.  Read back as tags, with no bitmap.  A SACK that
 * answers data, tagged, still has an ITETH after its CC state.
 */
TEST(probe__response_round_trip)
{
	struct mrc_ack_hdr h = {
		.opcode = MRC_OP_SACK, .dport = 0x1389, .sport = 0x1388,
		.psn = 0xffffff, .flags = MRC_SETH_PROBE_RESP,
		.acked_off = (__s16)0xa1a2, .entropy = 0xc000, .ts_echo = 0xb1b2,
		.sack_off = 0x0017,
		/* no bitmap in an answer: the tags take its place */
		.bitmap = 0x1111111111111111ULL,
		.tagged = 1, .tag = 0xd1d2d3d4, .tag_echo = 0xe1e2e3e4,
	};
	static const __u8 tags[8] = { 0xd1, 0xd2, 0xd3, 0xd4,
				      0xe1, 0xe2, 0xe3, 0xe4 };
	struct mrc_ack_hdr out;
	__u8 p[BUF_LEN];

	ASSERT_EQ(48, put_ack_twice(_metadata, p, &h));
	EXPECT_EQ(0xdc, p[0]);
	EXPECT_EQ(0, p[8]);			/* no ITETH */
	EXPECT_EQ(48, mrc_hdr_len(p));
	EXPECT_EQ(48, mrc_hdr_check(p, 48));
	EXPECT_EQ(MRC_HDR_SHORT, mrc_hdr_check(p, 47));
	EXPECT_EQ(MRC_SETH_PROBE_RESP, p[13]);
	EXPECT_EQ(0xa1, p[14]);			/* probe number */
	EXPECT_EQ(0xa2, p[15]);
	EXPECT_EQ(0x00, p[30]);			/* service time */
	EXPECT_EQ(0x17, p[31]);
	EXPECT_EQ(0, memcmp(tags, p + 32, sizeof(tags)));
	EXPECT_EQ(0xb1, p[40]);			/* echoed timestamp */
	EXPECT_EQ(0xb2, p[41]);

	memset(&out, 0x5a, sizeof(out));
	mrc_get_ack_hdr(p, &out);
	EXPECT_EQ(1, out.tagged);
	EXPECT_EQ(0xd1d2d3d4, out.tag);
	EXPECT_EQ(0xe1e2e3e4, out.tag_echo);
	EXPECT_EQ(0, out.bitmap);
	EXPECT_EQ(MRC_SETH_PROBE_RESP, out.flags);
	EXPECT_EQ((__s16)0xa1a2, out.acked_off);
	EXPECT_EQ(0xc000, out.entropy);
	EXPECT_EQ(0xb1b2, out.ts_echo);
	EXPECT_EQ(0x0017, out.sack_off);
	EXPECT_EQ(0xffffff, out.psn);

	/* A responder's tag of 0 (none) reads back as 0, still tagged:
	 * the prober's mrc_tag_ack() decides by the echo.
	 */
	h.tag = 0;
	ASSERT_EQ(48, put_ack_twice(_metadata, p, &h));
	EXPECT_EQ(0, p[32] | p[33] | p[34] | p[35]);
	EXPECT_EQ(0, memcmp(tags + 4, p + 36, 4));
	mrc_get_ack_hdr(p, &out);
	EXPECT_EQ(1, out.tagged);
	EXPECT_EQ(0, out.tag);
	EXPECT_EQ(0xe1e2e3e4, out.tag_echo);

	/* The same SACK answering data: 48 bytes and an ITETH. */
	h.flags = 0;
	h.tag = 0xd1d2d3d4;
	ASSERT_EQ(56, put_ack_twice(_metadata, p, &h));
	EXPECT_EQ(MRC_BTH_TAGGED, p[8]);
	EXPECT_EQ(56, mrc_hdr_len(p));
	EXPECT_EQ(0x11, p[32]);			/* its bitmap */
	EXPECT_EQ(0x11, p[39]);
	EXPECT_EQ(0, memcmp(tags, p + 48, sizeof(tags)));
	mrc_get_ack_hdr(p, &out);
	EXPECT_EQ(1, out.tagged);
	EXPECT_EQ(0xd1d2d3d4, out.tag);
	EXPECT_EQ(0xe1e2e3e4, out.tag_echo);
	EXPECT_EQ(0x1111111111111111ULL, out.bitmap);
}

/* PSN arithmetic, modulo 2^24. */

TEST(psn__wrap_around)
{
	EXPECT_EQ(0, mrc_psn_add(0xffffff, 1));
	EXPECT_EQ(0xfffffe, mrc_psn_add(0xffffff, 0xffffff));
	EXPECT_EQ(0xffffff, mrc_psn_add(0, 0xffffff));
	EXPECT_EQ(0xffffff, mrc_psn_add(0, (__u32)-1));	/* adding -1 */
	EXPECT_EQ(0x000004, mrc_psn_add(0xfffffc, 8));
	EXPECT_EQ(5, mrc_psn_add(5, 0x1000000));
	EXPECT_EQ(0x3ff, mrc_psn_add(0xffffff, 0x400));

	EXPECT_EQ(1, mrc_psn_diff(0, 0xffffff));
	EXPECT_EQ(0xffffff, mrc_psn_diff(0xffffff, 0));
	EXPECT_EQ(0, mrc_psn_diff(0x123456, 0x123456));
	EXPECT_EQ(0x400, mrc_psn_diff(0x3ff, 0xffffff));
	EXPECT_EQ(0xfffc00, mrc_psn_diff(0xffffff, 0x3ff));

	EXPECT_EQ(1, mrc_psn_sdiff(0, 0xffffff));
	EXPECT_EQ(-1, mrc_psn_sdiff(0xffffff, 0));
	EXPECT_EQ(0, mrc_psn_sdiff(0xffffff, 0xffffff));
	EXPECT_EQ(0x400, mrc_psn_sdiff(0x3ff, 0xffffff));
	EXPECT_EQ(-0x400, mrc_psn_sdiff(0xffffff, 0x3ff));
}

TEST(psn__sdiff_half_range)
{
	EXPECT_EQ(0x7fffff, mrc_psn_sdiff(0x7fffff, 0));
	EXPECT_EQ(-0x7fffff, mrc_psn_sdiff(0, 0x7fffff));
	EXPECT_EQ(-0x800000, mrc_psn_sdiff(0x800000, 0));
	EXPECT_EQ(-0x800000, mrc_psn_sdiff(0, 0x800000));
	EXPECT_EQ(-0x7fffff, mrc_psn_sdiff(0x800001, 0));
	EXPECT_EQ(0x7fffff, mrc_psn_sdiff(0, 0x800001));
	/* the same boundary across the wrap */
	EXPECT_EQ(0x7fffff, mrc_psn_sdiff(0x7ffffe, 0xffffff));
	EXPECT_EQ(-0x800000, mrc_psn_sdiff(0x7fffff, 0xffffff));
	EXPECT_EQ(-0x7fffff, mrc_psn_sdiff(0xffffff, 0x7ffffe));
	EXPECT_EQ(0x7fffff, mrc_psn_sdiff(0x7fffff + 0x800000, 0x800000));
	EXPECT_EQ(-0x800000, mrc_psn_sdiff(0, 0x800000 + 0));
}

/* sdiff undoes add for every distance in [-2^23, 2^23). */
TEST(psn__sdiff_inverts_add)
{
	static const __u32 bases[] = { 0, 1, 0x3ff, 0x7fffff, 0x800000,
				       0x800001, 0xfffc00, 0xfffffe,
				       0xffffff };
	static const int dists[] = { 0, 1, -1, 2, -2, 255, 256, -256,
				     1023, 1024, -1024, 0x7ffffe, 0x7fffff,
				     -0x7fffff, -0x800000 };
	size_t b, d;

	for (b = 0; b < ARRAY_SIZE(bases); b++)
		for (d = 0; d < ARRAY_SIZE(dists); d++) {
			__u32 to = mrc_psn_add(bases[b], (__u32)dists[d]);

			EXPECT_EQ(0, to & ~MRC_PSN_MASK);
			EXPECT_EQ(dists[d], mrc_psn_sdiff(to, bases[b]));
			EXPECT_EQ((__u32)dists[d] & MRC_PSN_MASK,
				  mrc_psn_diff(to, bases[b]));
			if (dists[d] != -0x800000)
				EXPECT_EQ(-dists[d],
					  mrc_psn_sdiff(bases[b], to));
		}
}

/* Byte-order helpers. */
TEST(be__helpers)
{
	__u8 p[10];

	memset(p, 0xee, sizeof(p));
	mrc_put_be16(p + 1, 0x1234);
	EXPECT_EQ(0xee, p[0]);
	EXPECT_EQ(0x12, p[1]);
	EXPECT_EQ(0x34, p[2]);
	EXPECT_EQ(0xee, p[3]);
	EXPECT_EQ(0x1234, mrc_get_be16(p + 1));

	memset(p, 0xee, sizeof(p));
	mrc_put_be24(p + 1, 0xff123456);	/* the top byte is dropped */
	EXPECT_EQ(0xee, p[0]);
	EXPECT_EQ(0x12, p[1]);
	EXPECT_EQ(0x34, p[2]);
	EXPECT_EQ(0x56, p[3]);
	EXPECT_EQ(0xee, p[4]);
	EXPECT_EQ(0x123456, mrc_get_be24(p + 1));

	memset(p, 0xee, sizeof(p));
	mrc_put_be32(p + 1, 0x89abcdef);
	EXPECT_EQ(0xee, p[0]);
	EXPECT_EQ(0x89, p[1]);
	EXPECT_EQ(0xef, p[4]);
	EXPECT_EQ(0xee, p[5]);
	EXPECT_EQ(0x89abcdef, mrc_get_be32(p + 1));

	memset(p, 0xee, sizeof(p));
	mrc_put_be64(p + 1, 0x8102030405060788ULL);
	EXPECT_EQ(0xee, p[0]);
	EXPECT_EQ(0x81, p[1]);
	EXPECT_EQ(0x02, p[2]);
	EXPECT_EQ(0x07, p[7]);
	EXPECT_EQ(0x88, p[8]);
	EXPECT_EQ(0xee, p[9]);
	EXPECT_EQ(0x8102030405060788ULL, mrc_get_be64(p + 1));

	/* high bits set everywhere: no sign extension on the way back */
	memset(p, 0xff, sizeof(p));
	EXPECT_EQ(0xffff, mrc_get_be16(p));
	EXPECT_EQ(0xffffff, mrc_get_be24(p));
	EXPECT_EQ(0xffffffff, mrc_get_be32(p));
	EXPECT_EQ(0xffffffffffffffffULL, mrc_get_be64(p));
}

TEST_HARNESS_MAIN
