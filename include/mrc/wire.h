/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mrc wire format: header sizes, opcodes and the BTH, per the published
 * MRC 1.0 layouts (Documentation/wire-format.rst describes every byte).
 *
 * Pure logic: compiles in the kernel and in userspace; it reads bytes
 * explicitly, so it needs no byte-order helpers.
 */
#ifndef _MRC_WIRE_H
#define _MRC_WIRE_H

#ifdef __KERNEL__
#include <linux/types.h>
#else
#include <stddef.h>
#include <linux/types.h>
#ifndef fallthrough
#define fallthrough __attribute__((__fallthrough__))
#endif
#endif

#define MRC_ETH_FCS_LEN		18	/* Ethernet header + FCS */
#define MRC_IPV4_LEN		20
#define MRC_IPV6_LEN		40
#define MRC_UDP_LEN		8

#define MRC_BTH_LEN		12
#define MRC_METH_LEN		4
#define MRC_TSETH_LEN		4
#define MRC_RETH_LEN		16
#define MRC_IMM_LEN		4
#define MRC_AETH_LEN		4
#define MRC_SETH_LEN		28
#define MRC_CCSTATE_LEN		8
#define MRC_NETH_LEN		20
#define MRC_PETH_LEN		16
/* Incarnation tags (an MRC addition, BTH flag 0x08): see mrc_hdr_len(). */
#define MRC_ITETH_LEN		8

/* BTH + METH + RETH: what every data packet carries before its payload. */
#define MRC_DATA_HDR_LEN	(MRC_BTH_LEN + MRC_METH_LEN + MRC_RETH_LEN)
/* ... and the ITETH, as mrc sends every data packet. */
#define MRC_DATA_TAGGED_LEN	(MRC_DATA_HDR_LEN + MRC_ITETH_LEN)

enum mrc_opcode {
	MRC_OP_WRITE_FIRST	= 0xc6,
	MRC_OP_WRITE_MIDDLE	= 0xc7,
	MRC_OP_WRITE_LAST	= 0xc8,
	MRC_OP_WRITE_LAST_IMM	= 0xc9,
	MRC_OP_WRITE_ONLY	= 0xca,
	MRC_OP_WRITE_ONLY_IMM	= 0xcb,
	MRC_OP_ACK		= 0xd1,
	MRC_OP_SACK		= 0xdc,
	MRC_OP_NACK		= 0xdd,
	MRC_OP_PROBE		= 0xde,
};

/* BTH byte 1: solicited event, migration, pad count, transport version. */
#define MRC_BTH_TVER_MASK	0x0f
/* BTH byte 8: ack request (RoCE), and what MRC adds in the same byte. */
#define MRC_BTH_ACKREQ		0x80
#define MRC_BTH_START		0x40	/* nothing of the epoch acked yet */
#define MRC_BTH_RETX		0x20
#define MRC_BTH_TSETH		0x10
#define MRC_BTH_TAGGED		0x08	/* an ITETH follows (mrc) */

#define MRC_PSN_MASK		0xffffff
#define MRC_QPN_MASK		0xffffff

enum mrc_hdr_err {
	MRC_HDR_SHORT		= -1,	/* fewer bytes than the headers */
	MRC_HDR_BAD_VERSION	= -2,	/* transport version not 0 */
	MRC_HDR_BAD_OPCODE	= -3,	/* not an mrc opcode */
};

/* Big-endian 24-bit field at @p. */
static inline __u32 mrc_get_be24(const __u8 *p)
{
	return ((__u32)p[0] << 16) | ((__u32)p[1] << 8) | p[2];
}

static inline __u8 mrc_bth_opcode(const __u8 *bth)
{
	return bth[0];
}

static inline __u32 mrc_bth_dqpn(const __u8 *bth)
{
	return mrc_get_be24(bth + 5);
}

static inline __u32 mrc_bth_psn(const __u8 *bth)
{
	return mrc_get_be24(bth + 9);
}

static inline int mrc_is_data_opcode(__u8 op)
{
	return op >= MRC_OP_WRITE_FIRST && op <= MRC_OP_WRITE_ONLY_IMM;
}

/**
 * mrc_hdr_len() - length of a packet's mrc headers, from its BTH
 * @bth: the first MRC_BTH_LEN bytes after the UDP header
 *
 * Return: the bytes from the BTH to the payload for this opcode and
 * flags, or a negative enum mrc_hdr_err.
 */
static inline int mrc_hdr_len(const __u8 *bth)
{
	__u8 op = mrc_bth_opcode(bth);
	int len = MRC_BTH_LEN;

	if (bth[1] & MRC_BTH_TVER_MASK)
		return MRC_HDR_BAD_VERSION;

	/* The ITETH of a tagged packet: after the RETH of a data packet
	 * (before any immediate data), after the last header of any other.
	 */
	if (bth[8] & MRC_BTH_TAGGED)
		len += MRC_ITETH_LEN;
	switch (op) {
	case MRC_OP_WRITE_LAST_IMM:
	case MRC_OP_WRITE_ONLY_IMM:
		len += MRC_IMM_LEN;
		fallthrough;
	case MRC_OP_WRITE_FIRST:
	case MRC_OP_WRITE_MIDDLE:
	case MRC_OP_WRITE_LAST:
	case MRC_OP_WRITE_ONLY:
		len += MRC_METH_LEN + MRC_RETH_LEN;
		if (bth[8] & MRC_BTH_TSETH)
			len += MRC_TSETH_LEN;
		return len;
	case MRC_OP_ACK:
		return len + MRC_AETH_LEN;
	case MRC_OP_SACK:
		return len + MRC_SETH_LEN + MRC_CCSTATE_LEN;
	case MRC_OP_NACK:
		return len + MRC_NETH_LEN;
	case MRC_OP_PROBE:
		return len + MRC_PETH_LEN;
	default:
		return MRC_HDR_BAD_OPCODE;
	}
}

/**
 * mrc_hdr_check() - validate the mrc headers of a received packet
 * @p: the bytes after the UDP header
 * @len: how many there are
 *
 * Return: the header length when @len holds the BTH and every extension
 * header its opcode and flags call for, else a negative enum mrc_hdr_err.
 */
static inline int mrc_hdr_check(const __u8 *p, size_t len)
{
	int hlen;

	if (len < MRC_BTH_LEN)
		return MRC_HDR_SHORT;
	hlen = mrc_hdr_len(p);
	if (hlen < 0)
		return hlen;
	if (len < (size_t)hlen)
		return MRC_HDR_SHORT;
	return hlen;
}

/*
 * Queue pairs on the wire (Documentation/wire-format.rst): the BTH's
 * destination QP holds the destination socket's mrc port; the source mrc
 * port and the epoch of the sending direction travel in the RETH key
 * (data), the AETH (ACK), and the connection ids of the SETH and NETH.
 */
#define MRC_PKEY_DEFAULT	0xffff
#define MRC_CC_TYPE_NSCC	0x10	/* SETH/NETH byte 16, high nibble */
#define MRC_CC_FLAG_ECN		0x01	/* SACK: the drawing packet was CE */
#define MRC_CC_FLAG_DUP		0x02	/* SACK: ... a duplicate (mrc) */
#define MRC_CC_FLAG_DELAYED	0x04	/* SACK: sent by a timer (mrc) */
/* SETH byte 17: the receive window in units of this many PSNs, as MRC
 * 1.0's public emulator counts it (Documentation/wire-format.rst).
 */
#define MRC_SETH_RANGE_UNIT	128
/* SETH byte 1: the mark (bits 6:5) and the probe-response flag (bit 1). */
#define MRC_SETH_PROBE_RESP	0x02
#define MRC_SETH_MARK_SHIFT	5
#define MRC_SETH_MARK_MASK	0x60
#define MRC_MARK_SKIP_ONCE	1	/* pass the value over once */
#define MRC_MARK_ALWAYS_SKIP	2	/* MRC 1.0; mrc neither sends nor acts on it */

enum mrc_nack_reason {
	MRC_NACK_TRIMMED		= 0x01,
	MRC_NACK_TRIMMED_LAST_HOP	= 0x02,
	MRC_NACK_NO_BITMAP		= 0x06,
	MRC_NACK_NO_PKT_BUFFER		= 0x07,
	MRC_NACK_NO_RESOURCE		= 0x0a,
	MRC_NACK_PSN_OOW		= 0x0b,
	MRC_NACK_UNEXPECTED		= 0x19,	/* mrc: no socket takes it */
	MRC_NACK_TAG_CHALLENGE		= 0x1a,	/* mrc: echo this tag */
};

static inline void mrc_put_be16(__u8 *p, __u16 v)
{
	p[0] = v >> 8;
	p[1] = v;
}

static inline void mrc_put_be24(__u8 *p, __u32 v)
{
	p[0] = v >> 16;
	p[1] = v >> 8;
	p[2] = v;
}

static inline void mrc_put_be32(__u8 *p, __u32 v)
{
	mrc_put_be16(p, v >> 16);
	mrc_put_be16(p + 2, v);
}

static inline void mrc_put_be64(__u8 *p, __u64 v)
{
	mrc_put_be32(p, v >> 32);
	mrc_put_be32(p + 4, v);
}

static inline __u16 mrc_get_be16(const __u8 *p)
{
	return ((__u16)p[0] << 8) | p[1];
}

static inline __u32 mrc_get_be32(const __u8 *p)
{
	return ((__u32)mrc_get_be16(p) << 16) | mrc_get_be16(p + 2);
}

static inline __u64 mrc_get_be64(const __u8 *p)
{
	return ((__u64)mrc_get_be32(p) << 32) | mrc_get_be32(p + 4);
}

/*
 * The ITETH (incarnation tag extended transport header, an MRC
 * addition): 8 bytes, present when BTH flag 0x08 is set.  Bytes 0-3 the
 * tag of the queue pair end that sends the packet, 4-7 the tag of the
 * receiving end as the sender knows it (0: not yet known).
 */
static inline void mrc_put_iteth(__u8 *p, __u32 tag, __u32 echo)
{
	mrc_put_be32(p, tag);
	mrc_put_be32(p + 4, echo);
}

static inline void mrc_get_iteth(const __u8 *p, __u32 *tag, __u32 *echo)
{
	*tag = mrc_get_be32(p);
	*echo = mrc_get_be32(p + 4);
}

/* PSN arithmetic modulo 2^24. */
static inline __u32 mrc_psn_add(__u32 psn, __u32 n)
{
	return (psn + n) & MRC_PSN_MASK;
}

/* How far @b is ahead of @a, modulo 2^24. */
static inline __u32 mrc_psn_diff(__u32 b, __u32 a)
{
	return (b - a) & MRC_PSN_MASK;
}

/* Sign-extend a 24-bit distance: negative when @b is behind @a. */
static inline int mrc_psn_sdiff(__u32 b, __u32 a)
{
	__u32 d = mrc_psn_diff(b, a);

	return d & 0x800000 ? (int)d - 0x1000000 : (int)d;
}

static inline void mrc_put_bth(__u8 *p, __u8 opcode, __u32 dqpn, __u8 flags,
			       __u32 psn)
{
	p[0] = opcode;
	p[1] = 0;
	mrc_put_be16(p + 2, MRC_PKEY_DEFAULT);
	p[4] = 0;
	mrc_put_be24(p + 5, dqpn);
	p[8] = flags;
	mrc_put_be24(p + 9, psn);
}

/* The fields of a data packet's headers. */
struct mrc_data_hdr {
	__u8 opcode;
	__u8 flags;		/* MRC_BTH_* of byte 8 */
	__u16 dport;		/* destination mrc port (BTH dest QP) */
	__u32 psn;
	__u16 msn;
	__u16 ts;		/* TSETH transmit timestamp, if flagged */
	__u64 offset;
	__u16 sport;		/* source mrc port (RETH key, high half) */
	__u16 epoch;		/* RETH key, low half */
	__u32 msg_len;
	__u32 tag;		/* ITETH, if flagged: the sender's tag */
	__u32 tag_echo;		/* ... and the receiver's, as it knows it */
};

/* Write the headers of a data packet to @p; return their length. */
static inline int mrc_put_data_hdr(__u8 *p, const struct mrc_data_hdr *h)
{
	int off = MRC_BTH_LEN;

	mrc_put_bth(p, h->opcode, h->dport, h->flags, h->psn);
	mrc_put_be16(p + off, 0);
	mrc_put_be16(p + off + 2, h->msn);
	off += MRC_METH_LEN;
	if (h->flags & MRC_BTH_TSETH) {
		mrc_put_be16(p + off, h->ts);
		mrc_put_be16(p + off + 2, 0);
		off += MRC_TSETH_LEN;
	}
	mrc_put_be64(p + off, h->offset);
	mrc_put_be16(p + off + 8, h->sport);
	mrc_put_be16(p + off + 10, h->epoch);
	mrc_put_be32(p + off + 12, h->msg_len);
	off += MRC_RETH_LEN;
	if (h->flags & MRC_BTH_TAGGED) {
		mrc_put_iteth(p + off, h->tag, h->tag_echo);
		off += MRC_ITETH_LEN;
	}
	return off;
}

/* Read a data packet's headers, already checked by mrc_hdr_check(). */
static inline void mrc_get_data_hdr(const __u8 *p, struct mrc_data_hdr *h)
{
	int off = MRC_BTH_LEN;

	h->opcode = p[0];
	h->flags = p[8];
	h->dport = mrc_bth_dqpn(p) & 0xffff;
	h->psn = mrc_bth_psn(p);
	h->msn = mrc_get_be16(p + off + 2);
	off += MRC_METH_LEN;
	h->ts = 0;
	if (h->flags & MRC_BTH_TSETH) {
		h->ts = mrc_get_be16(p + off);
		off += MRC_TSETH_LEN;
	}
	h->offset = mrc_get_be64(p + off);
	h->sport = mrc_get_be16(p + off + 8);
	h->epoch = mrc_get_be16(p + off + 10);
	h->msg_len = mrc_get_be32(p + off + 12);
	h->tag = 0;
	h->tag_echo = 0;
	if (h->flags & MRC_BTH_TAGGED)
		mrc_get_iteth(p + off + MRC_RETH_LEN, &h->tag, &h->tag_echo);
}

/*
 * Whether a data packet's fields are consistent with its @plen payload
 * bytes and a receiver's @max_msg limit: a port and an epoch, a message
 * no larger than the limit, and the payload where its opcode puts it
 * (FIRST and ONLY at offset 0, ONLY whole, FIRST and MIDDLE short of the
 * end, LAST at it; MIDDLE and LAST not at 0).  A @trimmed packet's
 * payload was cut by a switch, so its length says nothing: only where
 * it started is checked.  mrc sends no immediate data, so an _IMM
 * opcode is never consistent.
 */
static inline int mrc_data_fields_ok(const struct mrc_data_hdr *h,
				     __u32 plen, __u32 max_msg, int trimmed)
{
	__u64 end;

	if (!h->sport || !h->epoch || h->msg_len > max_msg ||
	    h->offset > h->msg_len)
		return 0;
	if (trimmed) {
		switch (h->opcode) {
		case MRC_OP_WRITE_ONLY:
		case MRC_OP_WRITE_FIRST:
			return !h->offset;
		case MRC_OP_WRITE_MIDDLE:
		case MRC_OP_WRITE_LAST:
			return h->offset && h->offset < h->msg_len;
		default:
			return 0;
		}
	}
	if (plen > h->msg_len - h->offset)
		return 0;
	end = h->offset + plen;
	switch (h->opcode) {
	case MRC_OP_WRITE_ONLY:
		return !h->offset && plen == h->msg_len;
	case MRC_OP_WRITE_FIRST:
		return !h->offset && plen && end < h->msg_len;
	case MRC_OP_WRITE_MIDDLE:
		return h->offset && plen && end < h->msg_len;
	case MRC_OP_WRITE_LAST:
		return h->offset && plen && end == h->msg_len;
	default:
		return 0;
	}
}

/* Acknowledgments: ACK, SACK and NACK share what identifies them. */
struct mrc_ack_hdr {
	__u8 opcode;
	__u16 dport;		/* the data sender's mrc port */
	__u16 sport;		/* the acknowledging socket's mrc port */
	__u16 epoch;		/* the data sender's epoch */
	__u32 psn;		/* cumulative PSN; NACK: the PSN refused */
	/* SACK */
	__u8 flags;		/* mark and probe-response bits */
	__u8 cc_flags;
	__s16 acked_off;	/* PSN that drew it, minus the cumulative PSN */
	__u32 entropy;
	__u8 max_range;		/* receive window, MRC_SETH_RANGE_UNIT PSNs */
	__s16 sack_off;		/* bitmap base minus the cumulative PSN */
	__u64 bitmap;
	__u16 ts_echo;
	__u16 ooo_count;
	__u32 rcvd_256;		/* bytes received, 256 B units, 24 bit */
	/* NACK */
	__u8 reason;
	/* ITETH, if @tagged */
	__u8 tagged;
	__u32 tag;		/* the acknowledging end's tag */
	__u32 tag_echo;		/* the data sender's, echoed */
};

/* After the headers @len bytes long of an acknowledgment: its ITETH. */
static inline int mrc_put_ack_iteth(__u8 *p, int len,
				    const struct mrc_ack_hdr *h)
{
	if (!h->tagged)
		return len;
	p[8] = MRC_BTH_TAGGED;
	mrc_put_iteth(p + len, h->tag, h->tag_echo);
	return len + MRC_ITETH_LEN;
}

/* Write an ACK, SACK or NACK per @h->opcode; return its length. */
static inline int mrc_put_ack_hdr(__u8 *p, const struct mrc_ack_hdr *h)
{
	__u8 *x = p + MRC_BTH_LEN;
	int i;

	mrc_put_bth(p, h->opcode, h->dport, 0, h->psn);
	switch (h->opcode) {
	case MRC_OP_ACK:
		mrc_put_be16(x, h->sport);
		mrc_put_be16(x + 2, h->epoch);
		return mrc_put_ack_iteth(p, MRC_BTH_LEN + MRC_AETH_LEN, h);
	case MRC_OP_SACK:
		for (i = 0; i < MRC_SETH_LEN + MRC_CCSTATE_LEN; i++)
			x[i] = 0;
		x[1] = h->flags;
		mrc_put_be16(x + 2, (__u16)h->acked_off);
		mrc_put_be32(x + 4, h->entropy);
		mrc_put_be16(x + 8, h->sport);
		mrc_put_be16(x + 10, h->epoch);
		mrc_put_be24(x + 13, h->psn);
		x[16] = MRC_CC_TYPE_NSCC | (h->cc_flags & 0x0f);
		x[17] = h->max_range;
		mrc_put_be16(x + 18, (__u16)h->sack_off);
		mrc_put_be64(x + 20, h->bitmap);
		mrc_put_be16(x + 28, h->ts_echo);
		mrc_put_be16(x + 30, h->ooo_count & 0x7fff);
		mrc_put_be24(x + 33, h->rcvd_256);
		/* A probe's answer keeps MRC 1.0's size: its tags go where
		 * its bitmap would, which it does not use.
		 */
		if (h->flags & MRC_SETH_PROBE_RESP) {
			if (h->tagged)
				mrc_put_iteth(x + 20, h->tag, h->tag_echo);
			return MRC_BTH_LEN + MRC_SETH_LEN + MRC_CCSTATE_LEN;
		}
		return mrc_put_ack_iteth(p, MRC_BTH_LEN + MRC_SETH_LEN +
					 MRC_CCSTATE_LEN, h);
	default:
		for (i = 0; i < MRC_NETH_LEN; i++)
			x[i] = 0;
		x[2] = h->reason;
		mrc_put_be32(x + 4, h->entropy);
		mrc_put_be16(x + 8, h->sport);
		mrc_put_be16(x + 10, h->epoch);
		mrc_put_be24(x + 13, h->psn);
		x[16] = MRC_CC_TYPE_NSCC;
		mrc_put_be16(x + 18, h->ts_echo);
		return mrc_put_ack_iteth(p, MRC_BTH_LEN + MRC_NETH_LEN, h);
	}
}

/* Read an ACK, SACK or NACK already checked by mrc_hdr_check(). */
static inline void mrc_get_ack_hdr(const __u8 *p, struct mrc_ack_hdr *h)
{
	const __u8 *x = p + MRC_BTH_LEN;

	h->opcode = p[0];
	h->dport = mrc_bth_dqpn(p) & 0xffff;
	h->psn = mrc_bth_psn(p);
	h->flags = 0;
	h->cc_flags = 0;
	h->max_range = 0;
	h->acked_off = 0;
	h->entropy = 0;
	h->sack_off = 0;
	h->bitmap = 0;
	h->ts_echo = 0;
	h->ooo_count = 0;
	h->rcvd_256 = 0;
	h->reason = 0;
	h->tagged = !!(p[8] & MRC_BTH_TAGGED);
	h->tag = 0;
	h->tag_echo = 0;
	if (h->tagged)
		mrc_get_iteth(p + mrc_hdr_len(p) - MRC_ITETH_LEN, &h->tag,
			      &h->tag_echo);
	switch (h->opcode) {
	case MRC_OP_ACK:
		h->sport = mrc_get_be16(x);
		h->epoch = mrc_get_be16(x + 2);
		break;
	case MRC_OP_SACK:
		h->flags = x[1];
		h->acked_off = (__s16)mrc_get_be16(x + 2);
		h->entropy = mrc_get_be32(x + 4);
		h->sport = mrc_get_be16(x + 8);
		h->epoch = mrc_get_be16(x + 10);
		h->psn = mrc_get_be24(x + 13);
		h->cc_flags = x[16] & 0x0f;
		h->max_range = x[17];
		h->sack_off = (__s16)mrc_get_be16(x + 18);
		h->bitmap = mrc_get_be64(x + 20);
		h->ts_echo = mrc_get_be16(x + 28);
		h->ooo_count = mrc_get_be16(x + 30) & 0x7fff;
		h->rcvd_256 = mrc_get_be24(x + 33);
		/* A probe's answer: its tags in the bitmap's place. */
		if (h->flags & MRC_SETH_PROBE_RESP && !h->tagged) {
			mrc_get_iteth(x + 20, &h->tag, &h->tag_echo);
			h->tagged = 1;
			h->bitmap = 0;
		}
		break;
	default:
		h->reason = x[2];
		h->entropy = mrc_get_be32(x + 4);
		h->sport = mrc_get_be16(x + 8);
		h->epoch = mrc_get_be16(x + 10);
		h->psn = mrc_get_be24(x + 13);
		h->ts_echo = mrc_get_be16(x + 18);
		break;
	}
}

/*
 * A probe (opcode 0xDE): BTH (destination QP = the destination socket's
 * mrc port, PSN 0: a probe consumes none) and PETH: bytes 4-5 the probe
 * number, 8-9 and 10-11 the source and destination mrc ports, 12-13 the
 * sender's 16-bit timestamp (microseconds), the rest zero.  Its answer is
 * a SACK with MRC_SETH_PROBE_RESP set: the probe number in the acked-PSN
 * offset (bytes 2-3), the probed entropy value, the timestamp echoed, and
 * the receiver's service time in microseconds in the SACK offset (bytes
 * 18-19); its PSN fields (BTH and cumulative PSN) are 0xFFFFFF and its
 * epoch 0: it acknowledges no data, and the receiver's PSN state does not
 * change.
 *
 * Probes and their answers keep MRC 1.0's sizes (74 and 94 bytes on an
 * Ethernet wire, the specification's numbers): no ITETH.  A probe's tag,
 * its sender's, is in PETH bytes 0-3, which MRC 1.0 leaves 0; its
 * answer's tags, as an ITETH's, in the SETH's bitmap (bytes 20-27),
 * which an answer does not use.
 */
struct mrc_probe_hdr {
	__u16 dport;		/* the probed socket's mrc port */
	__u16 sport;		/* the prober's mrc port */
	__u16 id;		/* probe number */
	__u16 ts;		/* send time, microseconds, 16 bit */
	__u32 tag;		/* PETH bytes 0-3: the prober's tag, 0: none */
};

/* Write a probe; return its length. */
static inline int mrc_put_probe_hdr(__u8 *p, const struct mrc_probe_hdr *h)
{
	__u8 *x = p + MRC_BTH_LEN;
	int i;

	mrc_put_bth(p, MRC_OP_PROBE, h->dport, 0, 0);
	for (i = 0; i < MRC_PETH_LEN; i++)
		x[i] = 0;
	mrc_put_be32(x, h->tag);
	mrc_put_be16(x + 4, h->id);
	mrc_put_be16(x + 8, h->sport);
	mrc_put_be16(x + 10, h->dport);
	mrc_put_be16(x + 12, h->ts);
	return MRC_BTH_LEN + MRC_PETH_LEN;
}

/* Read a probe already checked by mrc_hdr_check(). */
static inline void mrc_get_probe_hdr(const __u8 *p, struct mrc_probe_hdr *h)
{
	const __u8 *x = p + MRC_BTH_LEN;

	h->dport = mrc_bth_dqpn(p) & 0xffff;
	h->tag = mrc_get_be32(x);
	h->id = mrc_get_be16(x + 4);
	h->sport = mrc_get_be16(x + 8);
	h->ts = mrc_get_be16(x + 12);
}

#endif /* _MRC_WIRE_H */
