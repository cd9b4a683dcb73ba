// SPDX-License-Identifier: GPL-2.0
/*
 * mrc_inject: send crafted mrc payloads over an ordinary UDP socket.
 *
 *   mrc_inject [-c COUNT] [-p PORT] [-q DQPN] [-s SPORT] [-e EPOCH | -E]
 *              [-n PSN] [-m MSN] [-o OFFSET] [-A FROM [-N NADDR]]
 *              [-P NPORTS] [-t TAG] [-T ECHO] [-R SEED | -U]
 *              ADDRESS KIND [KIND...]
 *   mrc_inject -l
 *
 * ADDRESS is an IPv4 or IPv6 literal (127.0.0.1, ::1); PORT defaults to
 * 4791.  KIND is one of the presets -l lists (with their UDP payload
 * lengths and what mrc should make of them), or raw:LEN:OPCODE[:B1[:B8]]
 * for LEN bytes whose BTH has that opcode, byte 1 and byte 8 (numbers in
 * C syntax; bytes past LEN are not sent).  Several KINDs are sent in
 * order, COUNT times each, back to back.
 *
 * Data packets (opcodes 0xC6..0xCB) are well formed per abi.md unless
 * their kind says otherwise: METH (request sequence 0, MSN), [TSETH],
 * RETH (byte offset, the sender's mrc port SPORT, its epoch EPOCH, the
 * message length), [immediate], then payload bytes 0xa0 + i (i counted
 * from the start of the UDP payload).  The BTH's destination QP is DQPN
 * (the receiving socket's mrc port; default 0x11, where nothing is bound),
 * its PSN the kind's unless -n is given, its RETH offset the kind's unless
 * -o is.  -s, -e and -m default to 7000, 0x1234 and the kind's MSN.
 * Probes carry a PETH: the sender's tag (see below), probe number 7,
 * the ports SPORT and DQPN, timestamp 0x1234.
 *
 * The forged acknowledgments (ack-forged, nack-oow, nack-refused) are
 * well formed: the BTH's destination QP is DQPN (the data sender's mrc
 * port), the acknowledging port SPORT, the data sender's epoch EPOCH,
 * the PSN -n's (0x800000 unless given).  -E sends each kind once per
 * epoch, 1 to 65535, COUNT times: a blind attacker's sweep.
 *
 * Incarnation tags (include/mrc/tag.h): every packet of an mrc opcode
 * at least a BTH long (not raw: ones) but a probe's carries an ITETH,
 * BTH flag 0x08, 8 bytes more than MRC 1.0's layout (-l lists the
 * lengths sent, tagged unless -U comes before it): sender tag TAG (-t,
 * default 0x7a670001, the same for every sender port: each opens its
 * own QP), echo ECHO (-T, default 0, the tag of a receiver not known
 * yet).  A probe (the kinds of opcode 0xDE) keeps MRC 1.0's length and
 * has no ITETH: its PETH, if long enough, carries TAG alone, in bytes
 * 0-3 (include/mrc/wire.h).  -R draws TAG and ECHO anew for each packet
 * from a generator seeded by SEED: a blind guesser.  -U sends the kinds
 * untagged, as MRC 1.0 lays them out (a probe's PETH bytes 0-3 zero).
 *
 * A KIND may end in modifiers that set fields for it alone, over the
 * options: ,t=TAG ,T=ECHO ,e=EPOCH ,n=PSN ,m=MSN ,U (untagged), as in
 * "data-nostart,t=0x5eed,n=1,m=1".  They let one invocation send the
 * packets of a test that must reach a queue pair in one go: between two
 * invocations, the queue pair may have been idle long enough (on a slow
 * emulated machine) to be closed.
 *
 * Many forged sources: -P sends each kind from NPORTS sender ports, SPORT
 * to SPORT + NPORTS - 1 (the mrc port of the RETH and the acknowledging
 * port); -A sends from NADDR source addresses (default 1), FROM and the
 * NADDR - 1 after it (IPv6: its last 32 bits counted up), set per packet
 * with IP_PKTINFO or IPV6_PKTINFO: they must be local here (an "ip route
 * add local FROM/16 dev lo" makes a /16 so; IPv6 sends with
 * IPV6_FREEBIND, so an "ip -6 route add local FROM/64 dev lo" does).
 * Every (address, port) pair sends every kind, COUNT times.
 */
#define _GNU_SOURCE	/* struct in6_pktinfo */
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <linux/mrc.h>
#ifndef IPV6_FREEBIND
#define IPV6_FREEBIND 78
#endif
#include <mrc/wire.h>

#include "mrc_testnet.h"

struct kind {
	const char *name;
	unsigned int len;	/* UDP payload bytes */
	__u8 opcode;
	__u8 b1;		/* SE, M, pad count, TVer */
	__u8 b8;		/* AckReq, Retx, TSETH flags */
	const char *verdict;	/* what the receiver should count */
	/* Data packets only; 0 = the well-formed value for a message whose
	 * payload this packet carries from offset 0 (ONLY: the payload's
	 * length; FIRST: four times it).
	 */
	__u32 psn;
	__u16 msn;
	__u64 offset;
	__u32 msglen;
	int nack;		/* an ACK or NACK built whole: NACK reason + 1 */
};

#define DATA_HDR	(MRC_BTH_LEN + MRC_METH_LEN + MRC_RETH_LEN)
#define DATA_64		(DATA_HDR + 64)

/* The data fields of struct kind are 0 unless an entry names them. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
static const struct kind kinds[] = {
	{ "empty",		0, 0, 0, 0, "short" },
	{ "short5",		5, MRC_OP_PROBE, 0, 0, "short" },
	{ "bth-short",		MRC_BTH_LEN - 1, MRC_OP_PROBE, 0, 0, "short" },
	{ "bad-opcode",		MRC_BTH_LEN, 0x00, 0, 0, "bad_opcode" },
	{ "bad-opcode-ff",	64, 0xff, 0, 0, "bad_opcode" },
	/* RoCE's RC SEND ONLY: not an mrc opcode */
	{ "bad-opcode-roce",	64, 0x04, 0, 0, "bad_opcode" },
	{ "bad-version",	MRC_BTH_LEN + MRC_PETH_LEN, MRC_OP_PROBE, 0x01, 0,
				"bad_version" },
	{ "bad-version-f",	MRC_BTH_LEN + MRC_PETH_LEN, MRC_OP_PROBE, 0x0f, 0,
				"bad_version" },
	{ "probe",		MRC_BTH_LEN + MRC_PETH_LEN, MRC_OP_PROBE, 0, 0,
				"no_qp" },
	/* SE, M and pad count set: still version 0 */
	{ "probe-b1-high",	MRC_BTH_LEN + MRC_PETH_LEN, MRC_OP_PROBE, 0xf0, 0,
				"no_qp" },
	{ "probe-short",	MRC_BTH_LEN + MRC_PETH_LEN - 1, MRC_OP_PROBE, 0, 0,
				"short" },
	{ "ack",		MRC_BTH_LEN + MRC_AETH_LEN, MRC_OP_ACK, 0, 0,
				"no_qp" },
	{ "ack-short",		MRC_BTH_LEN + MRC_AETH_LEN - 1, MRC_OP_ACK, 0, 0,
				"short" },
	{ "sack",		MRC_BTH_LEN + MRC_SETH_LEN + MRC_CCSTATE_LEN,
				MRC_OP_SACK, 0, 0, "no_qp" },
	{ "sack-short",		20, MRC_OP_SACK, 0, 0, "short" },
	{ "nack",		MRC_BTH_LEN + MRC_NETH_LEN, MRC_OP_NACK, 0, 0,
				"no_qp" },
	{ "nack-short",		MRC_BTH_LEN + MRC_NETH_LEN - 1, MRC_OP_NACK, 0, 0,
				"short" },
	/* Forged, whole: the cumulative ACK and the two NACKs that fail
	 * a QP (no state for the epoch; no socket takes it).  Without the
	 * QP's tag to echo (-T), dropped for that; with it, for their
	 * PSN (out_of_window) unless -n names one in flight.
	 */
	{ "ack-forged",		MRC_BTH_LEN + MRC_AETH_LEN, MRC_OP_ACK, 0, 0,
				"bad_tag", .nack = -1 },
	{ "nack-oow",		MRC_BTH_LEN + MRC_NETH_LEN, MRC_OP_NACK, 0, 0,
				"bad_tag", .nack = MRC_NACK_PSN_OOW + 1 },
	{ "nack-refused",	MRC_BTH_LEN + MRC_NETH_LEN, MRC_OP_NACK, 0, 0,
				"bad_tag",
				.nack = MRC_NACK_UNEXPECTED + 1 },
	/* A challenge (include/mrc/tag.h): would give its receiver a new
	 * tag for its peer, were it not to echo the receiver's own.
	 */
	{ "nack-challenge",	MRC_BTH_LEN + MRC_NETH_LEN, MRC_OP_NACK, 0, 0,
				"bad_tag",
				.nack = MRC_NACK_TAG_CHALLENGE + 1 },
	{ "write-only",		DATA_HDR, MRC_OP_WRITE_ONLY, 0, 0, "no_qp" },
	{ "write-only-1k",	DATA_HDR + 1024, MRC_OP_WRITE_ONLY, 0, 0,
				"no_qp" },
	{ "write-only-short",	DATA_HDR - 1, MRC_OP_WRITE_ONLY, 0, 0, "short" },
	{ "write-first",	DATA_HDR + 100, MRC_OP_WRITE_FIRST, 0,
				MRC_BTH_ACKREQ, "no_qp" },
	{ "write-tseth",	DATA_HDR + MRC_TSETH_LEN, MRC_OP_WRITE_ONLY, 0,
				MRC_BTH_TSETH, "no_qp" },
	{ "write-tseth-short",	DATA_HDR, MRC_OP_WRITE_ONLY, 0, MRC_BTH_TSETH,
				"short" },
	{ "write-imm",		DATA_HDR + MRC_IMM_LEN, MRC_OP_WRITE_ONLY_IMM, 0, 0,
				"no_qp" },
	{ "write-imm-short",	DATA_HDR + MRC_IMM_LEN - 1, MRC_OP_WRITE_ONLY_IMM,
				0, 0, "short" },
	{ "write-imm-tseth",	DATA_HDR + MRC_IMM_LEN + MRC_TSETH_LEN,
				MRC_OP_WRITE_LAST_IMM, 0, MRC_BTH_TSETH, "no_qp" },
	{ "write-imm-tseth-short", DATA_HDR + MRC_IMM_LEN + MRC_TSETH_LEN - 1,
				MRC_OP_WRITE_LAST_IMM, 0, MRC_BTH_TSETH, "short" },
	/*
	 * For a socket bound at -q, from -s/-e: "data" is a whole 64 B
	 * message (PSN 0, MSN 0), delivered the first time and a duplicate
	 * after; the others are dropped, each for its one reason.
	 */
	{ "data",		DATA_64, MRC_OP_WRITE_ONLY, 0, MRC_BTH_ACKREQ |
				MRC_BTH_START,
				"accepted (no_qp if -q has no socket)" },
	/* PSN 0 without the start flag: to a QP of its epoch, a message;
	 * with no QP, nothing (it cannot start one: rx_drop_no_start).
	 */
	{ "data-nostart",	DATA_64, MRC_OP_WRITE_ONLY, 0, MRC_BTH_ACKREQ,
				"accepted (no_start if no QP)" },
	/* 64 Ki PSNs ahead: far beyond the 256-PSN window */
	{ "data-oow",		DATA_64, MRC_OP_WRITE_ONLY, 0, MRC_BTH_ACKREQ |
				MRC_BTH_START,
				"out_of_window", .psn = 0x10000 },
	/* After "data" (cumulative PSN 0): the last PSN of the 1024-PSN
	 * window, held out of order; then the first beyond it.
	 */
	{ "data-edge",		DATA_64, MRC_OP_WRITE_ONLY, 0, MRC_BTH_ACKREQ |
				MRC_BTH_START,
				"accepted, held", .psn = 256, .msn = 2 },
	{ "data-beyond",	DATA_64, MRC_OP_WRITE_ONLY, 0, MRC_BTH_ACKREQ |
				MRC_BTH_START,
				"out_of_window", .psn = 257, .msn = 3 },
	/* The first 64 bytes of a message declaring 64 MiB (the default
	 * max-msg-size), which the rest never follows: charged for what
	 * it carries, and dropped once its sender has been silent for
	 * MRC_RX_STALL_MS while room is short.
	 */
	{ "data-first-64m",	DATA_64, MRC_OP_WRITE_FIRST, 0, MRC_BTH_ACKREQ |
				MRC_BTH_START, "accepted, held",
				.msglen = 64u << 20 },
	/* More of it: 64 bytes at -o (default 4096), PSN -n (default 1). */
	{ "data-middle-64m",	DATA_64, MRC_OP_WRITE_MIDDLE, 0, MRC_BTH_ACKREQ |
				MRC_BTH_START, "accepted, held", .psn = 1,
				.offset = 4096, .msglen = 64u << 20 },
	/* 64 payload bytes of a 32-byte message */
	{ "data-overrun",	DATA_64, MRC_OP_WRITE_ONLY, 0, MRC_BTH_ACKREQ,
				"malformed", .psn = 1, .msn = 1, .msglen = 32 },
	/* bytes 96..159 of a 128-byte message */
	{ "data-offset-overrun", DATA_64, MRC_OP_WRITE_LAST, 0, MRC_BTH_ACKREQ,
				"malformed", .psn = 1, .msn = 1, .offset = 96,
				.msglen = 128 },
	/* the first 64 bytes of a message of 64 MiB + 1 (the default
	 * max-msg-size + 1)
	 */
	{ "data-too-big",	DATA_64, MRC_OP_WRITE_FIRST, 0, MRC_BTH_ACKREQ,
				"malformed", .psn = 1, .msn = 1,
				.msglen = (64u << 20) + 1 },
};
#pragma GCC diagnostic pop

#define NKINDS	(sizeof(kinds) / sizeof(kinds[0]))

static void usage(void)
{
	fprintf(stderr,
		"usage: mrc_inject [-c COUNT] [-p PORT] [-q DQPN] [-s SPORT]\n"
		"                  [-e EPOCH | -E] [-n PSN] [-m MSN] [-o OFFSET]\n"
		"                  ADDRESS KIND...\n"
		"                  [-A FROM [-N NADDR]] [-P NPORTS]\n"
		"                  [-t TAG] [-T ECHO] [-R SEED | -U]\n"
		"       mrc_inject -l\n"
		"KIND: a preset of -l, or raw:LEN:OPCODE[:B1[:B8]], then\n"
		"      [,t=TAG][,T=ECHO][,e=EPOCH][,n=PSN][,m=MSN][,U] for it alone\n");
	exit(1);
}

/* The fields of data packets and the BTH that the options set. */
struct fields {
	__u32 dqpn;
	__u16 sport;
	__u16 epoch;
	long psn;		/* -1: the kind's */
	long msn;		/* -1: the kind's */
	long long offset;	/* -1: the kind's */
	int untagged;		/* -U */
	__u32 tag;		/* ITETH or PETH: the sender's tag */
	__u32 echo;		/* ... and the receiver's, as it knows it */
};

/* Whether kind @k carries an ITETH: an mrc opcode's packet at least a
 * BTH long, but a probe's, unless raw or untagged.  Its short forms stay
 * short: 8 more bytes for 8 more of headers.  A probe keeps MRC 1.0's
 * length whatever it is: its tag is in its PETH (probe_tag()).
 */
static int tagged(const struct kind *k, const struct fields *f)
{
	return !f->untagged && k->verdict[0] != '?' &&
	       k->len >= MRC_BTH_LEN &&
	       (mrc_is_data_opcode(k->opcode) || k->opcode == MRC_OP_ACK ||
		k->opcode == MRC_OP_SACK || k->opcode == MRC_OP_NACK);
}

/* The tag in PETH bytes 0-3 of a probe kind: TAG, 0 untagged. */
static __u32 probe_tag(const struct fields *f)
{
	return f->untagged ? 0 : f->tag;
}

/*
 * Parse KIND[,MOD...] of @arg: the kind in @k (@raw for a raw: one),
 * the options' fields (@base) with the modifiers applied in @f.  0, or -1
 * with the reason on stderr.
 */
static int parse_kind(const char *arg, const struct fields *base,
		      struct fields *f, struct kind *raw,
		      const struct kind **k, int sweep, int rnd);

/* The UDP payload length kind @k is sent with. */
static unsigned int kind_len(const struct kind *k, const struct fields *f)
{
	return k->len + (tagged(k, f) ? MRC_ITETH_LEN : 0);
}

/* xorshift64*: the -R sequence, a function of its seed alone. */
static __u64 rnd_state;

static __u32 rnd32(void)
{
	rnd_state ^= rnd_state >> 12;
	rnd_state ^= rnd_state << 25;
	rnd_state ^= rnd_state >> 27;
	return (__u32)((rnd_state * 0x2545f4914f6cdd1dULL) >> 32);
}

static void put_be(__u8 *p, __u64 v, int n)
{
	while (n--) {
		p[n] = (__u8)v;
		v >>= 8;
	}
}

static unsigned long num(const char *s, unsigned long max, const char *what)
{
	return mrc_arg_num("mrc_inject", s, max, what, 1);
}

static void parse_raw(const char *spec, struct kind *k)
{
	char *copy = strdup(spec + 4), *f[4] = { NULL };
	char *save = NULL, *tok;
	int n = 0;

	for (tok = strtok_r(copy, ":", &save); tok && n < 4;
	     tok = strtok_r(NULL, ":", &save))
		f[n++] = tok;
	if (n < 2)
		usage();
	memset(k, 0, sizeof(*k));
	k->name = spec;
	k->len = num(f[0], 65000, "length");
	k->opcode = num(f[1], 255, "opcode");
	k->b1 = f[2] ? num(f[2], 255, "byte 1") : 0;
	k->b8 = f[3] ? num(f[3], 255, "byte 8") : 0;
	k->verdict = "?";
}

static int parse_kind(const char *arg, const struct fields *base,
		      struct fields *f, struct kind *raw,
		      const struct kind **k, int sweep, int rnd)
{
	char *copy = strdup(arg), *mod, *save = NULL, *name, *spec;
	unsigned int i;
	int ret = -1;

	if (!copy) {
		perror("mrc_inject");
		return -1;
	}
	*f = *base;
	name = strtok_r(copy, ",", &save);
	*k = NULL;
	if (!name) {
		fprintf(stderr, "mrc_inject: empty kind \"%s\"\n", arg);
		goto out;
	}
	if (!strncmp(name, "raw:", 4)) {
		/* The kind's name, for as long as the program runs. */
		spec = strdup(name);
		if (!spec) {
			perror("mrc_inject");
			goto out;
		}
		parse_raw(spec, raw);
		*k = raw;
	} else {
		for (i = 0; i < NKINDS; i++)
			if (!strcmp(kinds[i].name, name))
				*k = &kinds[i];
	}
	if (!*k) {
		fprintf(stderr, "mrc_inject: unknown kind \"%s\"\n", name);
		goto out;
	}
	/* Empty modifiers ("data,,n=1") are no modifiers: refused. */
	if (strstr(arg, ",,") || arg[strlen(arg) - 1] == ',') {
		fprintf(stderr, "mrc_inject: empty modifier in \"%s\"\n", arg);
		goto out;
	}
	while ((mod = strtok_r(NULL, ",", &save))) {
		if (!strcmp(mod, "U")) {
			if (rnd) {
				fprintf(stderr,
					"mrc_inject: modifier \"U\" of \"%s\" with -R\n",
					arg);
				goto out;
			}
			f->untagged = 1;
			continue;
		}
		if (strlen(mod) < 3 || mod[1] != '=' || !strchr("tTenm", mod[0])) {
			fprintf(stderr,
				"mrc_inject: unknown modifier \"%s\" of \"%s\"\n",
				mod, arg);
			goto out;
		}
		/* What -E and -R would set anew for each packet. */
		if ((sweep && mod[0] == 'e') ||
		    (rnd && (mod[0] == 't' || mod[0] == 'T'))) {
			fprintf(stderr,
				"mrc_inject: modifier \"%s\" of \"%s\" with %s\n",
				mod, arg, sweep && mod[0] == 'e' ? "-E" : "-R");
			goto out;
		}
		switch (mod[0]) {
		case 't':
			f->tag = num(mod + 2, 0xffffffffUL, "tag");
			break;
		case 'T':
			f->echo = num(mod + 2, 0xffffffffUL, "echo");
			break;
		case 'e':
			f->epoch = num(mod + 2, 65535, "epoch");
			break;
		case 'n':
			f->psn = num(mod + 2, MRC_PSN_MASK, "PSN");
			break;
		case 'm':
			f->msn = num(mod + 2, 65535, "MSN");
			break;
		}
	}
	ret = 0;
out:
	free(copy);
	return ret;
}

/*
 * The payload: a BTH (P_Key 0xffff, DQPN, PSN 0x000001 or a data kind's),
 * then a byte pattern; for data opcodes, METH, [TSETH], RETH, [immediate]
 * filled in as far as the length reaches.
 */
static void build(const struct kind *k, const struct fields *f, __u8 *p)
{
	__u8 hdr[MRC_BTH_LEN + MRC_METH_LEN + MRC_TSETH_LEN + MRC_RETH_LEN +
		 MRC_ITETH_LEN + MRC_IMM_LEN];
	unsigned int i, hlen = MRC_BTH_LEN, payload, len = kind_len(k, f);
	int data = mrc_is_data_opcode(k->opcode) && k->verdict[0] != '?';
	int tag = tagged(k, f);
	__u32 psn = 1, msglen;

	for (i = 0; i < len; i++)
		p[i] = (__u8)(0xa0 + i);
	if (len < 1)
		return;
	if (k->nack) {
		struct mrc_ack_hdr a = {
			.opcode = k->opcode,
			.dport = f->dqpn,
			.sport = f->sport,
			.epoch = f->epoch,
			.psn = f->psn >= 0 ? (__u32)f->psn : 0x800000,
			.reason = k->nack > 0 ? k->nack - 1 : 0,
			.tagged = tag,
			.tag = f->tag,
			.tag_echo = f->echo,
		};

		mrc_put_ack_hdr(p, &a);
		return;
	}
	memset(hdr, 0, sizeof(hdr));
	hdr[0] = k->opcode;
	hdr[1] = k->b1;
	hdr[2] = hdr[3] = 0xff;
	put_be(hdr + 5, f->dqpn, 3);
	hdr[8] = k->b8 | (tag ? MRC_BTH_TAGGED : 0);
	if (data) {
		__u8 *reth;
		int imm = k->opcode == MRC_OP_WRITE_LAST_IMM ||
			  k->opcode == MRC_OP_WRITE_ONLY_IMM;

		psn = f->psn >= 0 ? (__u32)f->psn : k->psn;
		put_be(hdr + 14, f->msn >= 0 ? (__u16)f->msn : k->msn, 2);
		hlen += MRC_METH_LEN;
		if (k->b8 & MRC_BTH_TSETH) {
			put_be(hdr + hlen, 0x4791, 2);	/* timestamp */
			hlen += MRC_TSETH_LEN;
		}
		reth = hdr + hlen;
		hlen += MRC_RETH_LEN + (tag ? MRC_ITETH_LEN : 0) +
			(imm ? MRC_IMM_LEN : 0);
		payload = len > hlen ? len - hlen : 0;
		msglen = k->msglen;
		if (!msglen)
			msglen = k->opcode == MRC_OP_WRITE_FIRST ? 4 * payload :
								   payload;
		put_be(reth, f->offset >= 0 ? (__u64)f->offset : k->offset, 8);
		put_be(reth + 8, f->sport, 2);
		put_be(reth + 10, f->epoch, 2);
		put_be(reth + 12, msglen, 4);
		if (tag)
			mrc_put_iteth(reth + MRC_RETH_LEN, f->tag, f->echo);
		if (imm)
			put_be(reth + MRC_RETH_LEN +
			       (tag ? MRC_ITETH_LEN : 0), 0xfeedf00d, 4);
	}
	/* A probe: PETH with the sender's tag, probe number 7, the
	 * ports, a timestamp; never an ITETH.
	 */
	if (k->opcode == MRC_OP_PROBE && k->len >= MRC_BTH_LEN + MRC_PETH_LEN &&
	    k->verdict[0] != '?') {
		hlen += MRC_PETH_LEN;
		put_be(hdr + MRC_BTH_LEN, probe_tag(f), 4);
		put_be(hdr + MRC_BTH_LEN + 4, 7, 2);
		put_be(hdr + MRC_BTH_LEN + 8, f->sport, 2);
		put_be(hdr + MRC_BTH_LEN + 10, f->dqpn, 2);
		put_be(hdr + MRC_BTH_LEN + 12, 0x1234, 2);
	}
	put_be(hdr + 9, psn & MRC_PSN_MASK, 3);
	memcpy(p, hdr, len < hlen ? len : hlen);
}

/* A source address of -A: which family is set, and the address. */
struct from {
	int family;		/* 0: the route's */
	struct in_addr a4;
	struct in6_addr a6;
};

/* One packet to @ss; from source address @from + @ai if @from is set
 * (IP_PKTINFO, IPV6_PKTINFO), else from whatever the route gives.  0 or
 * -1 (errno).
 */
static int send_one(int fd, const void *buf, size_t len,
		    const struct sockaddr_storage *ss, socklen_t sslen,
		    const struct from *from, unsigned long ai)
{
	union {
		char buf[CMSG_SPACE(sizeof(struct in6_pktinfo))];
		struct cmsghdr align;
	} u;
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct msghdr m = {
		.msg_name = (void *)ss,
		.msg_namelen = sslen,
		.msg_iov = &iov,
		.msg_iovlen = 1,
	};
	struct in6_pktinfo *pi6;
	struct in_pktinfo *pi;
	struct cmsghdr *c;

	if (from->family) {
		memset(&u, 0, sizeof(u));
		m.msg_control = u.buf;
		c = (struct cmsghdr *)u.buf;
	}
	if (from->family == AF_INET) {
		m.msg_controllen = CMSG_SPACE(sizeof(*pi));
		c->cmsg_level = IPPROTO_IP;
		c->cmsg_type = IP_PKTINFO;
		c->cmsg_len = CMSG_LEN(sizeof(*pi));
		pi = (struct in_pktinfo *)CMSG_DATA(c);
		pi->ipi_spec_dst.s_addr = htonl(ntohl(from->a4.s_addr) + ai);
	} else if (from->family == AF_INET6) {
		__u32 lo = ntohl(from->a6.s6_addr32[3]) + (__u32)ai;

		m.msg_controllen = CMSG_SPACE(sizeof(*pi6));
		c->cmsg_level = IPPROTO_IPV6;
		c->cmsg_type = IPV6_PKTINFO;
		c->cmsg_len = CMSG_LEN(sizeof(*pi6));
		pi6 = (struct in6_pktinfo *)CMSG_DATA(c);
		pi6->ipi6_addr = from->a6;
		pi6->ipi6_addr.s6_addr32[3] = htonl(lo);
	}
	return sendmsg(fd, &m, 0) == (ssize_t)len ? 0 : -1;
}

int main(int argc, char **argv)
{
	static __u8 buf[65536];
	struct sockaddr_storage ss = { 0 };
	unsigned long count = 1, port = MRC_UDP_PORT, i, e0, e1;
	struct fields f = { 0x11, 7000, 0x1234, -1, -1, -1, 0, 0x7a670001, 0 };
	struct fields kf;
	unsigned long naddr = 1, nports = 1, ne, j, sent;
	struct from from = { 0 };
	const struct kind *k;
	struct kind raw;
	socklen_t sslen;
	const char *addr;
	int opt, fd, a, sweep = 0, rnd = 0;
	__u16 sport0;

	while ((opt = getopt(argc, argv, "c:p:q:s:e:En:m:o:lA:N:P:t:T:R:U")) !=
	       -1) {
		switch (opt) {
		case 't':
			f.tag = num(optarg, 0xffffffffUL, "tag");
			break;
		case 'T':
			f.echo = num(optarg, 0xffffffffUL, "echo");
			break;
		case 'R':
			rnd = 1;
			rnd_state = num(optarg, 0xffffffffUL, "seed") |
				    0x100000000ULL;
			break;
		case 'U':
			f.untagged = 1;
			break;
		case 'A':
			if (inet_pton(AF_INET, optarg, &from.a4) == 1) {
				from.family = AF_INET;
			} else if (inet_pton(AF_INET6, optarg, &from.a6) == 1) {
				from.family = AF_INET6;
			} else {
				fprintf(stderr, "mrc_inject: bad -A \"%s\"\n",
					optarg);
				return 1;
			}
			break;
		case 'N':
			naddr = num(optarg, 1UL << 24, "address count");
			break;
		case 'P':
			nports = num(optarg, 65535, "port count");
			break;
		case 'c':
			count = num(optarg, 1000000, "count");
			break;
		case 'p':
			port = num(optarg, 65535, "port");
			break;
		case 'q':
			f.dqpn = num(optarg, MRC_QPN_MASK, "destination QP");
			break;
		case 's':
			f.sport = num(optarg, 65535, "sender port");
			break;
		case 'e':
			f.epoch = num(optarg, 65535, "epoch");
			break;
		case 'E':
			sweep = 1;
			break;
		case 'n':
			f.psn = num(optarg, MRC_PSN_MASK, "PSN");
			break;
		case 'o':
			f.offset = num(optarg, 0xffffffffUL, "offset");
			break;
		case 'm':
			f.msn = num(optarg, 65535, "MSN");
			break;
		case 'l':
			for (i = 0; i < NKINDS; i++)
				printf("%-22s %5u %s\n", kinds[i].name,
				       kind_len(&kinds[i], &f),
				       kinds[i].verdict);
			return 0;
		default:
			usage();
		}
	}
	if (argc - optind < 2 || (rnd && f.untagged))
		usage();
	addr = argv[optind];
	/* Every kind checked before anything is sent. */
	for (a = optind + 1; a < argc; a++)
		if (parse_kind(argv[a], &f, &kf, &raw, &k, sweep, rnd))
			return 1;

	if (strchr(addr, ':')) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;

		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(port);
		if (inet_pton(AF_INET6, addr, &s6->sin6_addr) != 1)
			goto bad_addr;
		sslen = sizeof(*s6);
	} else {
		struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;

		s4->sin_family = AF_INET;
		s4->sin_port = htons(port);
		if (inet_pton(AF_INET, addr, &s4->sin_addr) != 1)
			goto bad_addr;
		sslen = sizeof(*s4);
	}

	if ((from.family || naddr > 1) && from.family != ss.ss_family) {
		fprintf(stderr,
			"mrc_inject: -N needs -A, of ADDRESS's family\n");
		return 1;
	}
	if (!naddr || !nports || f.sport + nports - 1 > 65535)
		usage();
	sport0 = f.sport;

	fd = socket(ss.ss_family, SOCK_DGRAM, 0);
	if (fd < 0) {
		perror("mrc_inject: socket");
		return 1;
	}
	/* An address of a local route is no address of an interface. */
	if (from.family == AF_INET6 &&
	    setsockopt(fd, IPPROTO_IPV6, IPV6_FREEBIND, &(int){ 1 },
		       sizeof(int))) {
		perror("mrc_inject: IPV6_FREEBIND");
		return 1;
	}
	for (a = optind + 1; a < argc; a++) {
		if (parse_kind(argv[a], &f, &kf, &raw, &k, sweep, rnd))
			return 1;
		e0 = sweep ? 1 : kf.epoch;
		e1 = sweep ? 65535 : kf.epoch;
		ne = e1 - e0 + 1;
		sent = 0;
		/* Each address, each of its ports, each epoch. */
		for (j = 0; j < naddr * nports * ne; j++) {
			kf.sport = sport0 + (j / ne) % nports;
			kf.epoch = e0 + j % ne;
			for (i = 0; i < count; i++, sent++) {
				/* A guesser's tags: new ones every packet. */
				if (rnd) {
					kf.tag = rnd32();
					kf.echo = rnd32();
				}
				if (rnd || !i)
					build(k, &kf, buf);
				if (send_one(fd, buf, kind_len(k, &kf), &ss,
					     sslen, &from, j / (nports * ne)))
					goto send_err;
			}
		}
		printf("sent %lu x %s (%u bytes) to %s port %lu\n",
		       sent, argv[a], kind_len(k, &kf), addr, port);
	}
	close(fd);
	return 0;

bad_addr:
	fprintf(stderr, "mrc_inject: bad address \"%s\"\n", addr);
	return 1;

send_err:
	fprintf(stderr, "mrc_inject: sendto %s port %lu: %s\n", addr, port,
		strerror(errno));
	return 1;
}
