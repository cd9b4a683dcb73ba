// SPDX-License-Identifier: GPL-2.0
/*
 * mrc_inject: send crafted mrc payloads over an ordinary UDP socket.
 *
 *   mrc_inject [-c COUNT] [-p PORT] ADDRESS KIND
 *   mrc_inject -l
 *
 * ADDRESS is an IPv4 or IPv6 literal (127.0.0.1, ::1); PORT defaults to
 * 4791.  KIND is one of the presets -l lists (with their UDP payload
 * lengths and what mrc should make of them), or raw:LEN:OPCODE[:B1[:B8]]
 * for LEN bytes whose BTH has that opcode, byte 1 and byte 8 (numbers in
 * C syntax; bytes past LEN are not sent).
 */
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
#include <mrc/wire.h>

struct kind {
	const char *name;
	unsigned int len;	/* UDP payload bytes */
	__u8 opcode;
	__u8 b1;		/* SE, M, pad count, TVer */
	__u8 b8;		/* AckReq, Retx, TSETH flags */
	const char *verdict;	/* what the receiver should count */
};

#define DATA_HDR	(MRC_BTH_LEN + MRC_METH_LEN + MRC_RETH_LEN)

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
};

#define NKINDS	(sizeof(kinds) / sizeof(kinds[0]))

static void usage(void)
{
	fprintf(stderr,
		"usage: mrc_inject [-c COUNT] [-p PORT] ADDRESS KIND\n"
		"       mrc_inject -l\n"
		"KIND: a preset of -l, or raw:LEN:OPCODE[:B1[:B8]]\n");
	exit(1);
}

static unsigned long num(const char *s, unsigned long max, const char *what)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || !*s || *end || v > max) {
		fprintf(stderr, "mrc_inject: bad %s \"%s\"\n", what, s);
		exit(1);
	}
	return v;
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
	k->name = spec;
	k->len = num(f[0], 65000, "length");
	k->opcode = num(f[1], 255, "opcode");
	k->b1 = f[2] ? num(f[2], 255, "byte 1") : 0;
	k->b8 = f[3] ? num(f[3], 255, "byte 8") : 0;
	k->verdict = "?";
}

/* The payload: a BTH (P_Key 0xffff, DQPN 0x000011, PSN 0x000001), then
 * a byte pattern.
 */
static void build(const struct kind *k, __u8 *p)
{
	unsigned int i;

	for (i = 0; i < k->len; i++)
		p[i] = (__u8)(0xa0 + i);
	if (k->len < 1)
		return;
	memset(p, 0, k->len < MRC_BTH_LEN ? k->len : MRC_BTH_LEN);
	p[0] = k->opcode;
	if (k->len > 1)
		p[1] = k->b1;
	if (k->len > 3)
		p[2] = p[3] = 0xff;
	if (k->len > 7)
		p[7] = 0x11;
	if (k->len > 8)
		p[8] = k->b8;
	if (k->len > 11)
		p[11] = 0x01;
}

int main(int argc, char **argv)
{
	static __u8 buf[65536];
	struct sockaddr_storage ss = { 0 };
	unsigned long count = 1, port = MRC_UDP_PORT, i;
	struct kind raw, *k = NULL;
	socklen_t sslen;
	const char *addr;
	int opt, fd;

	while ((opt = getopt(argc, argv, "c:p:l")) != -1) {
		switch (opt) {
		case 'c':
			count = num(optarg, 1000000, "count");
			break;
		case 'p':
			port = num(optarg, 65535, "port");
			break;
		case 'l':
			for (i = 0; i < NKINDS; i++)
				printf("%-22s %5u %s\n", kinds[i].name,
				       kinds[i].len, kinds[i].verdict);
			return 0;
		default:
			usage();
		}
	}
	if (argc - optind != 2)
		usage();
	addr = argv[optind];

	if (!strncmp(argv[optind + 1], "raw:", 4)) {
		parse_raw(argv[optind + 1], &raw);
		k = &raw;
	} else {
		for (i = 0; i < NKINDS; i++)
			if (!strcmp(kinds[i].name, argv[optind + 1]))
				k = (struct kind *)&kinds[i];
		if (!k) {
			fprintf(stderr, "mrc_inject: unknown kind \"%s\"\n",
				argv[optind + 1]);
			return 1;
		}
	}

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

	fd = socket(ss.ss_family, SOCK_DGRAM, 0);
	if (fd < 0) {
		perror("mrc_inject: socket");
		return 1;
	}
	build(k, buf);
	for (i = 0; i < count; i++) {
		if (sendto(fd, buf, k->len, 0, (struct sockaddr *)&ss,
			   sslen) != (ssize_t)k->len) {
			fprintf(stderr, "mrc_inject: sendto %s port %lu: %s\n",
				addr, port, strerror(errno));
			return 1;
		}
	}
	close(fd);
	printf("sent %lu x %s (%u bytes) to %s port %lu\n", count, k->name,
	       k->len, addr, port);
	return 0;

bad_addr:
	fprintf(stderr, "mrc_inject: bad address \"%s\"\n", addr);
	return 1;
}
