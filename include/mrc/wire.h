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

/* BTH + METH + RETH: what every data packet carries before its payload. */
#define MRC_DATA_HDR_LEN	(MRC_BTH_LEN + MRC_METH_LEN + MRC_RETH_LEN)

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
#define MRC_BTH_RETX		0x20
#define MRC_BTH_TSETH		0x10

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

#endif /* _MRC_WIRE_H */
