// SPDX-License-Identifier: GPL-2.0
/*
 * mrc_fuzz: a seeded mutation fuzzer of mrc's receive path.
 *
 *   mrc_fuzz [-s SEED] [-n COUNT] [-t SECONDS] [-b BATCH] [-u UDPPORT]
 *            [-i IFNAME] [-w MS] [-P PORT]... [-V PORT]... [-k PORT]
 *            [-r RATE] [-d] ADDRESS
 *
 * Sends COUNT (default 1000000) UDP datagrams to ADDRESS port 4791 from
 * UDP port UDPPORT (default 4792), BATCH (default 32) to a sendmmsg(),
 * at most RATE a second if given (a flood at full speed takes the whole
 * of a single CPU, where RCU's grace periods then wait for minutes).
 * Each starts as a valid packet of one of six types (data, ACK, SACK,
 * NACK, probe, probe response) built with include/mrc/wire.h, and most
 * are then mutated: bits flipped, a field set to a boundary (0, 1, its
 * maximum, one off either side of the live window and of its edges),
 * the length cut short or extended, flag combinations, the opcode
 * swapped for another (so the header length the opcode implies lies
 * about what follows), the transport version set.
 *
 * The sequence is a function of SEED (printed; default from the clock)
 * and of what the fuzzer learnt of the live queue pairs, which it prints
 * too: the same seed against the same learnt values sends the same bytes
 * (-d: build them, send nothing, print their digest).
 *
 * Targets, chosen per packet:
 *   - live queue pairs: with -i, the fuzzer reads the mrc packets on
 *     IFNAME (a packet socket, headers only) and learns each direction's
 *     ports, epoch and PSNs, so that mutations land in live QPs' windows
 *     and not only on the refusal path.  A direction involving a port
 *     given with -P is protected: a transfer there must verify, so no
 *     packet aimed at it carries its live epoch, and no data packet the
 *     START flag (today that alone resets a live receive side: issue 13,
 *     item 3); everything else about it is fuzzed.  Directions of a port
 *     given with -V (a victim) are fuzzed with their live epoch and PSNs:
 *     they may fail, and must fail cleanly.  Other directions learnt are
 *     treated as protected.  -w waits MS for the first directions first.
 *   - -k PORT: a socket the fuzzer opens incarnations to itself, as a
 *     peer would (its own source ports and epochs, messages in order
 *     from PSN 0), mutated copies interleaved: the receive path's depth
 *     (placing, holes, duplicates, completion) on a QP it knows fully.
 *   - ports at their boundaries, where no QP is or where one gets made:
 *     a small fixed set, so the QPs the fuzzer can open are bounded.
 *
 * Prints the datagrams sent per type and per target, and the digest.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/filter.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <linux/mrc.h>
#include <mrc/wire.h>

#include "mrc_testnet.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define MAX_PKT		4400	/* an MSS of 4096, headers, and more */
#define MAX_BATCH	64
#define MAX_DIRS	32
#define MAX_PORTS	8
#define SINK_PORTS	8	/* the sink's QPs the fuzzer opens */
#define SINK_INC_PKTS	3000	/* valid packets per sink incarnation */

enum ptype { T_DATA, T_ACK, T_SACK, T_NACK, T_PROBE, T_PRESP, NR_T };
static const char *const tname[NR_T] = {
	"data", "ack", "sack", "nack", "probe", "probe_resp",
};

enum target { G_PROT, G_VICTIM, G_SINK, G_EDGE, NR_G };
static const char *const gname[NR_G] = {
	"protected", "victim", "sink", "edge",
};

/* --- the PRNG: splitmix64, the same sequence everywhere ------------------ */

static __u64 rng;

static __u64 rnd(void)
{
	__u64 z = (rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Uniform in [0, n). */
static uint32_t below(uint32_t n)
{
	return n ? (uint32_t)(rnd() % n) : 0;
}

static int chance(unsigned int pct)
{
	return below(100) < pct;
}

/* --- what is learnt of the live queue pairs ------------------------------ */

/* The fuzzer's own incarnation to the sink (-k). */
static struct {
	__u16 port;		/* the sink's mrc port; 0: no sink */
	__u16 sport;		/* ours, this incarnation */
	__u16 epoch;
	__u32 psn;
	__u16 msn;
	__u32 msg_len, off;	/* the message being sent */
	unsigned long pkts;	/* valid packets in this incarnation */
	unsigned int inc;
} sink;

/* One direction of a live queue pair: data from @sport to @dport. */
struct dir {
	__u16 sport, dport;	/* the data sender's and receiver's mrc ports */
	int local;		/* the data sender is in this namespace */
	__u16 epoch, prev;	/* its epoch, and the one before */
	__u32 hi_psn;		/* highest data PSN seen: about snd_nxt - 1 */
	__u32 ack_psn;		/* last cumulative PSN acknowledged */
	int acked;
	double seen;		/* when a packet of it last went by */
};

static struct dir dirs[MAX_DIRS];
static unsigned int nr_dirs;
static __u16 prot_ports[MAX_PORTS], victim_ports[MAX_PORTS];
static unsigned int nr_prot, nr_victim;

static int in_ports(const __u16 *ports, unsigned int n, __u16 p)
{
	while (n--)
		if (ports[n] == p)
			return 1;
	return 0;
}

static int is_victim(__u16 a, __u16 b)
{
	return (in_ports(victim_ports, nr_victim, a) ||
		in_ports(victim_ports, nr_victim, b)) &&
	       !in_ports(prot_ports, nr_prot, a) &&
	       !in_ports(prot_ports, nr_prot, b);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static struct dir *dir_find(__u16 sport, __u16 dport, int local)
{
	unsigned int i;

	for (i = 0; i < nr_dirs; i++)
		if (dirs[i].sport == sport && dirs[i].dport == dport &&
		    dirs[i].local == local)
			return &dirs[i];
	return NULL;
}

/*
 * A data packet of direction @sport -> @dport went by (@is_ack: an
 * acknowledgment of it).  Epochs are learnt from data alone: an
 * acknowledgment may be mrc's answer to a forged packet (a NACK echoes
 * the epoch it refuses), data comes only from a real sender (the
 * fuzzers' own are skipped by their UDP port).
 */
static void dir_note(__u16 sport, __u16 dport, int local, __u16 epoch,
		     __u32 psn, int is_ack)
{
	struct dir *d = dir_find(sport, dport, local);

	/* The fuzzer's own incarnations to the sink are not live QPs. */
	if (!epoch || (sink.port && (sport == sink.port || dport == sink.port)))
		return;
	if (is_ack) {
		if (d && epoch == d->epoch) {
			d->ack_psn = psn;
			d->acked = 1;
		}
		return;
	}
	if (!d) {
		unsigned int i, old = 0;

		/* Full: the direction silent for longest makes room. */
		if (nr_dirs < MAX_DIRS)
			old = nr_dirs++;
		for (i = 1; nr_dirs == MAX_DIRS && i < MAX_DIRS; i++)
			if (dirs[i].seen < dirs[old].seen)
				old = i;
		d = &dirs[old];
		memset(d, 0, sizeof(*d));
		d->sport = sport;
		d->dport = dport;
		d->local = local;
		d->epoch = epoch;
		d->hi_psn = psn;
		printf("learnt: %s direction %u -> %u, epoch 0x%04x, PSN %u\n",
		       local ? "outgoing" : "incoming", sport, dport, epoch,
		       psn);
	}
	d->seen = now_s();
	if (epoch != d->epoch) {
		d->prev = d->epoch;
		d->epoch = epoch;
		d->hi_psn = psn;
		d->acked = 0;
	}
	if (mrc_psn_sdiff(psn, d->hi_psn) > 0)
		d->hi_psn = psn;
}

static int sniff_fd = -1;
static __u16 own_udp_port;

/* One mrc packet seen on the wire (an IPv4 packet, headers at least). */
static void sniff_one(const __u8 *ip, size_t len, int outgoing)
{
	const __u8 *udp, *p;
	size_t ihl;
	int hlen;

	if (len < 20 || ip[0] >> 4 != 4 || ip[9] != IPPROTO_UDP)
		return;
	ihl = (ip[0] & 15) * 4;
	if (len < ihl + 8 + MRC_BTH_LEN)
		return;
	udp = ip + ihl;
	/* mrc's own packets only: not the fuzzers' (from their port). */
	if (mrc_get_be16(udp + 2) != MRC_UDP_PORT ||
	    mrc_get_be16(udp) == own_udp_port)
		return;
	p = udp + 8;
	hlen = mrc_hdr_check(p, len - ihl - 8);
	if (hlen < 0)
		return;
	if (mrc_is_data_opcode(p[0])) {
		struct mrc_data_hdr h;

		mrc_get_data_hdr(p, &h);
		dir_note(h.sport, h.dport, outgoing, h.epoch, h.psn, 0);
	} else if (p[0] != MRC_OP_PROBE) {
		struct mrc_ack_hdr a;

		mrc_get_ack_hdr(p, &a);
		if (p[0] == MRC_OP_SACK && a.flags & MRC_SETH_PROBE_RESP)
			return;
		/* An acknowledgment goes against its data's direction. */
		dir_note(a.dport, a.sport, !outgoing, a.epoch, a.psn, 1);
	}
}

static void sniff_drain(void)
{
	static __u8 buf[64][128];
	struct sockaddr_ll sll[64];
	struct mmsghdr mm[64];
	struct iovec iov[64];
	int i, n, r;

	for (r = 0; sniff_fd >= 0 && r < 8; r++) {
		memset(mm, 0, sizeof(mm));
		for (i = 0; i < 64; i++) {
			iov[i].iov_base = buf[i];
			iov[i].iov_len = sizeof(buf[i]);
			mm[i].msg_hdr.msg_iov = &iov[i];
			mm[i].msg_hdr.msg_iovlen = 1;
			mm[i].msg_hdr.msg_name = &sll[i];
			mm[i].msg_hdr.msg_namelen = sizeof(sll[i]);
		}
		n = recvmmsg(sniff_fd, mm, 64, MSG_DONTWAIT, NULL);
		for (i = 0; i < n; i++)
			sniff_one(buf[i], mm[i].msg_len,
				  sll[i].sll_pkttype == PACKET_OUTGOING);
		if (n < 64)
			return;
	}
}

static int sniff_open(const char *ifname)
{
	/*
	 * In the kernel, before anything is queued: IPv4, UDP, not a
	 * fragment's tail, to port 4791 and not from the fuzzers' port.
	 * The first 128 bytes of those: their headers are all we read.
	 * (A packet socket of SOCK_DGRAM sees the packet from its IP
	 * header on.)
	 */
	struct sock_filter code[] = {
		BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 0),
		BPF_STMT(BPF_ALU | BPF_AND | BPF_K, 0xf0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0x40, 0, 10),
		BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 9),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, IPPROTO_UDP, 0, 8),
		BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 6),
		BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, 0x1fff, 6, 0),
		BPF_STMT(BPF_LDX | BPF_B | BPF_MSH, 0),
		BPF_STMT(BPF_LD | BPF_H | BPF_IND, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, own_udp_port, 3, 0),
		BPF_STMT(BPF_LD | BPF_H | BPF_IND, 2),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, MRC_UDP_PORT, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, 128),
		BPF_STMT(BPF_RET | BPF_K, 0),
	};
	struct sock_fprog prog = { ARRAY_SIZE(code), code };
	struct sockaddr_ll sll = { 0 };

	/* ETH_P_ALL: only taps of every protocol see what goes out. */
	sniff_fd = socket(AF_PACKET, SOCK_DGRAM, htons(ETH_P_ALL));
	if (sniff_fd < 0)
		return -1;
	sll.sll_family = AF_PACKET;
	sll.sll_protocol = htons(ETH_P_ALL);
	sll.sll_ifindex = if_nametoindex(ifname);
	if (!sll.sll_ifindex ||
	    setsockopt(sniff_fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog,
		       sizeof(prog)) ||
	    bind(sniff_fd, (struct sockaddr *)&sll, sizeof(sll)))
		return -1;
	return 0;
}

/* --- packets ---------------------------------------------------------- */

/* A packet in the making, with what the mutations aim at. */
struct pkt {
	__u8 b[MAX_PKT];
	unsigned int len;
	unsigned int hlen;	/* headers of the valid packet */
	enum ptype type;
	enum target g;
	__u32 live_psn;		/* the live window's point, for boundaries */
};

/* A new incarnation: the next of SINK_PORTS source ports, a new epoch. */
static void sink_new(void)
{
	sink.sport = 0x5100 + sink.inc++ % SINK_PORTS;
	do {
		sink.epoch = (__u16)rnd();
	} while (!sink.epoch);
	sink.psn = 0;
	sink.msn = 0;
	sink.msg_len = 0;
	sink.pkts = 0;
}

/* The next valid data packet of the sink's stream. */
static void sink_data(struct pkt *k)
{
	struct mrc_data_hdr h = { 0 };
	__u32 n, i;

	if (sink.pkts++ >= SINK_INC_PKTS)
		sink_new();
	if (!sink.msg_len) {
		/* Mostly small messages, now and then one of 64 KiB. */
		sink.msg_len = chance(5) ? 65536 : 1 + below(6000);
		sink.off = 0;
	}
	n = sink.msg_len - sink.off;
	if (n > 1024)
		n = 1024;
	h.opcode = !sink.off ? (n == sink.msg_len ? MRC_OP_WRITE_ONLY :
				MRC_OP_WRITE_FIRST) :
		   sink.off + n == sink.msg_len ? MRC_OP_WRITE_LAST :
		   MRC_OP_WRITE_MIDDLE;
	h.flags = (sink.psn < 128 ? MRC_BTH_START : 0) |
		  (sink.off + n == sink.msg_len ? MRC_BTH_ACKREQ : 0);
	h.dport = sink.port;
	h.psn = sink.psn;
	h.msn = sink.msn;
	h.offset = sink.off;
	h.sport = sink.sport;
	h.epoch = sink.epoch;
	h.msg_len = sink.msg_len;
	k->hlen = mrc_put_data_hdr(k->b, &h);
	for (i = 0; i < n; i++)
		k->b[k->hlen + i] = (__u8)(sink.psn + i);
	k->len = k->hlen + n;
	k->live_psn = sink.psn;
	sink.psn = mrc_psn_add(sink.psn, 1);
	sink.off += n;
	if (sink.off == sink.msg_len) {
		sink.msg_len = 0;
		sink.msn++;
	}
}

/* Ports at their boundaries: a fixed set, so few QPs can be made. */
static __u16 edge_port(void)
{
	static const __u16 ports[] = {
		0, 1, 0x11, 4791, 0x7fff, 0x8000, 0xfffe, 0xffff,
	};

	return ports[below(ARRAY_SIZE(ports))];
}

/* An epoch of a boundary, or random. */
static __u16 edge_epoch(void)
{
	static const __u16 e[] = { 0, 1, 0xffff, 0x8000 };
	__u32 i = below(6);

	return i < ARRAY_SIZE(e) ? e[i] : (__u16)rnd();
}

/* A PSN around @live: the point itself, one off, the window's edges
 * (MRC_WINDOW and the 64-PSN SACK bitmap), the 24-bit wrap, or random.
 */
static __u32 near_psn(__u32 live)
{
	static const int off[] = {
		0, 1, -1, 2, 63, 64, 65, 255, 256, 257, -255, -256, -257,
		0x7fffff, 0x800000,
	};

	if (chance(10))
		return below(MRC_PSN_MASK + 1);
	return mrc_psn_add(live, (__u32)off[below(ARRAY_SIZE(off))]);
}

/* Pick a live direction (one seen in the last second) whose sender is
 * local (@local) or not, of target @g; NULL if none.
 */
static struct dir *pick_dir(enum target g, int local, double now)
{
	int victim = g == G_VICTIM;
	struct dir *c[MAX_DIRS];
	unsigned int i, n = 0;

	for (i = 0; i < nr_dirs; i++) {
		if (dirs[i].local != local || now - dirs[i].seen > 1.0 ||
		    victim != is_victim(dirs[i].sport, dirs[i].dport))
			continue;
		c[n++] = &dirs[i];
	}
	return n ? c[below(n)] : NULL;
}

/* The valid packet of type @t aimed at direction @d (its ports, epoch and
 * window), or at boundary ports when @d is NULL.
 */
static void build(struct pkt *k, enum ptype t, const struct dir *d)
{
	__u16 dport = d ? (t == T_DATA ? d->dport : d->sport) : edge_port();
	__u16 sport = d ? (t == T_DATA ? d->sport : d->dport) : edge_port();
	__u16 epoch = d ? d->epoch : edge_epoch();
	__u32 live = !d ? below(1024) : !d->acked ? d->hi_psn :
		     t == T_DATA ? mrc_psn_add(d->ack_psn, 1) : d->ack_psn;
	__u32 i, n;

	k->type = t;
	k->live_psn = live;
	switch (t) {
	case T_DATA: {
		struct mrc_data_hdr h = { 0 };

		n = below(5) ? below(257) : 1024;
		h.opcode = MRC_OP_WRITE_ONLY;
		h.flags = MRC_BTH_ACKREQ;
		h.dport = dport;
		h.psn = near_psn(live);
		h.msn = (__u16)below(4);
		h.sport = sport;
		h.epoch = epoch;
		h.msg_len = n;
		switch (below(4)) {
		case 1:	/* the first packet of a longer message */
			h.opcode = MRC_OP_WRITE_FIRST;
			h.msg_len = n + 1 + below(1 << 20);
			break;
		case 2:
			h.opcode = MRC_OP_WRITE_MIDDLE;
			h.offset = 4096 * (1 + below(4));
			h.msg_len = h.offset + n + 1 + below(4096);
			break;
		case 3:
			h.opcode = MRC_OP_WRITE_LAST;
			h.offset = 4096 * (1 + below(4));
			h.msg_len = h.offset + n;
			break;
		}
		if (chance(30)) {
			h.flags |= MRC_BTH_TSETH;
			h.ts = (__u16)rnd();
		}
		k->hlen = mrc_put_data_hdr(k->b, &h);
		for (i = 0; i < n; i++)
			k->b[k->hlen + i] = (__u8)(0xa0 + i);
		k->len = k->hlen + n;
		return;
	}
	case T_ACK:
	case T_SACK:
	case T_NACK: {
		static const __u8 reasons[] = {
			MRC_NACK_TRIMMED, MRC_NACK_TRIMMED_LAST_HOP,
			MRC_NACK_NO_BITMAP, MRC_NACK_NO_PKT_BUFFER,
			MRC_NACK_NO_RESOURCE, MRC_NACK_PSN_OOW,
			MRC_NACK_UNEXPECTED, 0, 0xff,
		};
		struct mrc_ack_hdr a = { 0 };

		a.opcode = t == T_ACK ? MRC_OP_ACK :
			   t == T_SACK ? MRC_OP_SACK : MRC_OP_NACK;
		a.dport = dport;
		a.sport = sport;
		a.epoch = epoch;
		a.psn = near_psn(live);
		a.cc_flags = (__u8)below(16);
		a.acked_off = (__s16)below(128) - 64;
		a.entropy = 256 + below(128);
		a.max_range = (__u8)below(5);
		a.sack_off = 1;
		a.bitmap = rnd();
		a.ts_echo = (__u16)rnd();
		a.ooo_count = (__u16)below(300);
		a.rcvd_256 = below(1 << 24);
		a.reason = reasons[below(sizeof(reasons))];
		k->hlen = mrc_put_ack_hdr(k->b, &a);
		k->len = k->hlen;
		return;
	}
	case T_PROBE: {
		struct mrc_probe_hdr h = {
			.dport = dport, .sport = sport,
			.id = (__u16)below(64), .ts = (__u16)rnd(),
		};

		k->hlen = mrc_put_probe_hdr(k->b, &h);
		k->len = k->hlen;
		return;
	}
	default: {
		/* A probe's answer: a SACK flagged so, for the probed value. */
		struct mrc_ack_hdr a = {
			.opcode = MRC_OP_SACK,
			.dport = dport,
			.sport = sport,
			.psn = MRC_PSN_MASK,
			.flags = MRC_SETH_PROBE_RESP,
			.acked_off = (__s16)below(64),
			.entropy = 256 + below(128),
			.sack_off = (__s16)below(2000),
			.ts_echo = (__u16)rnd(),
		};

		k->hlen = mrc_put_ack_hdr(k->b, &a);
		k->len = k->hlen;
		return;
	}
	}
}

/* A value at one of its field's boundaries, for @bits wide. */
static __u64 edge_val(unsigned int bits, __u64 live)
{
	__u64 max = bits == 64 ? ~0ULL : (1ULL << bits) - 1;

	__u64 v[] = {
		0, 1, max, max - 1, (live - 1) & max, (live + 1) & max,
		1ULL << (bits - 1), rnd() & max,
	};

	return v[below(ARRAY_SIZE(v))];
}

static void put_bits(__u8 *p, unsigned int bytes, __u64 v)
{
	while (bytes--) {
		p[bytes] = (__u8)v;
		v >>= 8;
	}
}

/* Set one header field of the packet (where its valid layout has it) to
 * a boundary value.
 */
static void mutate_field(struct pkt *k)
{
	/* Offset and width in bytes, per layout, from the BTH's start. */
	static const __u8 data_f[][2] = {
		{ 5, 3 }, { 9, 3 }, { 14, 2 }, { 16, 8 }, { 24, 2 },
		{ 26, 2 }, { 28, 4 }, { 2, 2 }, { 4, 1 },
	};
	static const __u8 ack_f[][2] = {
		{ 5, 3 }, { 9, 3 }, { 12, 2 }, { 14, 2 },
	};
	static const __u8 seth_f[][2] = {
		{ 5, 3 }, { 9, 3 }, { 13, 1 }, { 14, 2 }, { 16, 4 },
		{ 20, 2 }, { 22, 2 }, { 25, 3 }, { 28, 1 }, { 29, 1 },
		{ 30, 2 }, { 32, 8 }, { 40, 2 }, { 42, 2 }, { 45, 3 },
	};
	static const __u8 neth_f[][2] = {
		{ 5, 3 }, { 9, 3 }, { 14, 1 }, { 16, 4 }, { 20, 2 },
		{ 22, 2 }, { 25, 3 }, { 28, 1 }, { 30, 2 },
	};
	static const __u8 peth_f[][2] = {
		{ 5, 3 }, { 9, 3 }, { 16, 2 }, { 20, 2 }, { 22, 2 }, { 24, 2 },
	};
#define FIELDS(a)	{ a, sizeof(a) / sizeof(a[0]) }
	/* A SACK's and a probe response's layout is the SETH's. */
	static const struct {
		const __u8 (*f)[2];
		unsigned int n;
	} layout[NR_T] = {
		[T_DATA] = FIELDS(data_f), [T_ACK] = FIELDS(ack_f),
		[T_SACK] = FIELDS(seth_f), [T_NACK] = FIELDS(neth_f),
		[T_PROBE] = FIELDS(peth_f), [T_PRESP] = FIELDS(seth_f),
	};
#undef FIELDS
	const __u8 (*f)[2] = layout[k->type].f;
	unsigned int n = layout[k->type].n, i, at;

	i = below(n);
	at = f[i][0];
	/* A data packet with a timestamp has its RETH 4 bytes further. */
	if (k->type == T_DATA && at >= 16 && k->len > 8 &&
	    k->b[8] & MRC_BTH_TSETH)
		at += MRC_TSETH_LEN;
	if (at + f[i][1] > k->len)
		return;
	put_bits(k->b + at, f[i][1],
		 edge_val(f[i][1] * 8, f[i][1] == 3 ? k->live_psn :
				       mrc_get_be16(k->b + at)));
}

/* Mutate the packet in 1 to 3 ways, or leave it valid (0). */
static int mutate(struct pkt *k)
{
	static const __u8 ops[] = {
		MRC_OP_WRITE_FIRST, MRC_OP_WRITE_MIDDLE, MRC_OP_WRITE_LAST,
		MRC_OP_WRITE_LAST_IMM, MRC_OP_WRITE_ONLY,
		MRC_OP_WRITE_ONLY_IMM, MRC_OP_ACK, MRC_OP_SACK, MRC_OP_NACK,
		MRC_OP_PROBE, 0x00, 0x04, 0xc5, 0xcc, 0xd0, 0xd2, 0xdb, 0xdf,
		0xff,
	};
	unsigned int m = 1 + below(3), i, j;

	if (chance(15))
		return 0;
	while (m--) {
		switch (below(8)) {
		case 0:	/* bit flips in the headers */
			for (j = 1 + below(3); j; j--) {
				i = below(k->hlen + 4 < k->len ? k->hlen + 4 :
					  k->len);
				if (k->len)
					k->b[i] ^= 1 << below(8);
			}
			break;
		case 1:
		case 2:
			mutate_field(k);
			break;
		case 3:	/* cut short: at the headers' edges, or anywhere */
			j = below(4);
			if (j == 0)
				k->len = below(k->len + 1);
			else if (j == 1)
				k->len = k->hlen ? k->hlen - 1 : 0;
			else if (j == 2)
				k->len = MRC_BTH_LEN - below(2);
			else
				k->len = k->hlen;
			break;
		case 4:	/* extended: bytes past what the headers say */
			j = below(5) ? 1 + below(64) : 1 + below(2048);
			if (k->len + j > MAX_PKT)
				j = MAX_PKT - k->len;
			for (i = 0; i < j; i++)
				k->b[k->len + i] = (__u8)rnd();
			k->len += j;
			break;
		case 5:	/* flags: byte 8, the SETH's, the version */
			if (k->len > 8)
				k->b[8] = (__u8)rnd() & (below(2) ? 0xf0 : 0xff);
			if (k->len > 13 && chance(30))
				k->b[13] = (__u8)rnd();
			if (k->len > 1 && chance(20))
				k->b[1] = (__u8)below(256);
			break;
		case 6:	/* the opcode swapped: the header length lies */
			if (k->len)
				k->b[0] = ops[below(sizeof(ops))];
			break;
		default: /* the TSETH flag alone: 4 bytes more or less */
			if (k->len > 8)
				k->b[8] ^= MRC_BTH_TSETH;
			break;
		}
	}
	return 1;
}

/* A port of a protected direction, learnt or given with -P. */
static int port_protected(__u16 p)
{
	unsigned int i;

	if (in_ports(prot_ports, nr_prot, p))
		return 1;
	for (i = 0; i < nr_dirs; i++)
		if ((dirs[i].sport == p || dirs[i].dport == p) &&
		    !is_victim(dirs[i].sport, dirs[i].dport))
			return 1;
	return 0;
}

/*
 * What the kernel will make of the final bytes, for a protected
 * direction: no live epoch, no START on data (see the top).  Parsed as
 * rx.c parses them, so exactly what reaches a queue pair is fixed.
 * A port of a protected direction whose epoch is not known gets epoch 0,
 * which no incarnation has.  Returns 1 if the packet was changed.
 */
static int protect(struct pkt *k)
{
	int hlen = mrc_hdr_check(k->b, k->len), data, danger;
	__u16 s, d, e;
	struct dir *dr;
	__u8 *ep;

	if (hlen < 0 || k->b[0] == MRC_OP_PROBE)
		return 0;
	data = mrc_is_data_opcode(k->b[0]);
	if (data) {
		struct mrc_data_hdr h;

		mrc_get_data_hdr(k->b, &h);
		s = h.sport;
		d = h.dport;
		e = h.epoch;
		/* The RETH's key: 8 bytes into it, the epoch 2 bytes on. */
		ep = k->b + MRC_BTH_LEN + MRC_METH_LEN +
		     (h.flags & MRC_BTH_TSETH ? MRC_TSETH_LEN : 0) + 10;
	} else {
		struct mrc_ack_hdr a;

		mrc_get_ack_hdr(k->b, &a);
		if (k->b[0] == MRC_OP_SACK && a.flags & MRC_SETH_PROBE_RESP)
			return 0;
		s = a.dport;	/* the data sender, in the other namespace */
		d = a.sport;
		e = a.epoch;
		ep = k->b + MRC_BTH_LEN + (k->b[0] == MRC_OP_ACK ? 2 : 10);
	}
	if (is_victim(s, d))
		return 0;
	/* Data goes out from here; acknowledgments to a sender there. */
	dr = dir_find(s, d, data);
	if (dr)
		danger = e == dr->epoch || e == dr->prev ||
			 (data && k->b[8] & MRC_BTH_START);
	else
		danger = e && (port_protected(s) || port_protected(d));
	if (!danger)
		return 0;
	if (data)
		k->b[8] &= ~MRC_BTH_START;
	if (!dr) {
		e = 0;
	} else if (e == dr->epoch || e == dr->prev) {
		e = dr->epoch ^ 0x8000;
		if (e == dr->prev || !e)
			e ^= 0x4000;
	}
	mrc_put_be16(ep, e);
	return 1;
}

/* --- main ---------------------------------------------------------------- */

static void usage(void)
{
	fprintf(stderr,
		"Usage: mrc_fuzz [-s SEED] [-n COUNT] [-t SECONDS] [-b BATCH]\n"
		"                [-u UDPPORT] [-i IFNAME] [-w MS] [-P PORT]...\n"
		"                [-V PORT]... [-k PORT] [-r RATE] [-d] ADDRESS\n");
	exit(2);
}

static unsigned long num(const char *s, unsigned long max, const char *what)
{
	return mrc_arg_num("mrc_fuzz", s, max, what, 2);
}

int main(int argc, char **argv)
{
	static struct pkt pk[MAX_BATCH];
	static struct mmsghdr mm[MAX_BATCH];
	static struct iovec iov[MAX_BATCH];
	unsigned long count = 1000000, sent = 0, seconds = 0, warm = 0;
	unsigned long by_type[NR_T] = { 0 }, by_g[NR_G] = { 0 };
	unsigned long mutated = 0, fixed = 0, batch = 32, rate = 0;
	unsigned long long seed = 0;
	__u64 digest = 0xcbf29ce484222325ULL;
	struct sockaddr_storage ss = { 0 };
	const char *ifname = NULL;
	int opt, fd = -1, dry = 0, have_seed = 0;
	socklen_t sslen;
	double t0, end;
	unsigned int i, j;

	own_udp_port = 4792;
	while ((opt = getopt(argc, argv, "s:n:t:b:u:i:w:P:V:k:r:d")) != -1) {
		switch (opt) {
		case 's':
			seed = strtoull(optarg, NULL, 0);
			have_seed = 1;
			break;
		case 'n':
			count = num(optarg, 1UL << 40, "count");
			break;
		case 't':
			seconds = num(optarg, 86400, "seconds");
			break;
		case 'b':
			batch = num(optarg, MAX_BATCH, "batch");
			if (!batch)
				usage();
			break;
		case 'u':
			own_udp_port = num(optarg, 65535, "UDP port");
			break;
		case 'i':
			ifname = optarg;
			break;
		case 'w':
			warm = num(optarg, 600000, "milliseconds");
			break;
		case 'P':
			if (nr_prot == MAX_PORTS)
				usage();
			prot_ports[nr_prot++] = num(optarg, 65535, "port");
			break;
		case 'V':
			if (nr_victim == MAX_PORTS)
				usage();
			victim_ports[nr_victim++] = num(optarg, 65535, "port");
			break;
		case 'k':
			sink.port = num(optarg, 65535, "port");
			break;
		case 'r':
			rate = num(optarg, 100000000, "rate");
			break;
		case 'd':
			dry = 1;
			break;
		default:
			usage();
		}
	}
	if (optind != argc - 1)
		usage();
	if (!have_seed)
		seed = (unsigned long long)time(NULL) ^ getpid();
	rng = seed;
	printf("seed %llu\n", seed);
	fflush(stdout);

	if (strchr(argv[optind], ':')) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;

		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(MRC_UDP_PORT);
		if (inet_pton(AF_INET6, argv[optind], &s6->sin6_addr) != 1)
			usage();
		sslen = sizeof(*s6);
	} else {
		struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;

		s4->sin_family = AF_INET;
		s4->sin_port = htons(MRC_UDP_PORT);
		if (inet_pton(AF_INET, argv[optind], &s4->sin_addr) != 1)
			usage();
		sslen = sizeof(*s4);
	}
	if (!dry) {
		struct sockaddr_storage me = { 0 };
		int one = 1;

		fd = socket(ss.ss_family, SOCK_DGRAM, 0);
		me.ss_family = ss.ss_family;
		((struct sockaddr_in *)&me)->sin_port = htons(own_udp_port);
		if (ss.ss_family == AF_INET6)
			((struct sockaddr_in6 *)&me)->sin6_port =
				htons(own_udp_port);
		if (fd < 0 ||
		    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one,
			       sizeof(one)) ||
		    bind(fd, (struct sockaddr *)&me, sslen)) {
			perror("mrc_fuzz: UDP socket");
			return 1;
		}
		if (ifname && sniff_open(ifname)) {
			fprintf(stderr, "mrc_fuzz: packet socket on %s: %s\n",
				ifname, strerror(errno));
			return 1;
		}
	}
	/* Learn the live directions first, for up to @warm ms. */
	t0 = now_s();
	while (sniff_fd >= 0 && now_s() - t0 < warm / 1000.0) {
		struct pollfd pf = { sniff_fd, POLLIN, 0 };

		poll(&pf, 1, 50);
		sniff_drain();
		if (nr_dirs >= 2 * (nr_prot + nr_victim) &&
		    now_s() - t0 > 0.5)
			break;
	}
	if (sink.port)
		sink_new();

	t0 = now_s();
	end = seconds ? t0 + seconds : 0;
	while (sent < count && !(end && now_s() > end)) {
		unsigned int nb = count - sent < batch ? count - sent : batch;
		int r;

		double now = now_s();

		sniff_drain();
		for (i = 0; i < nb; i++) {
			struct pkt *k = &pk[i];
			enum ptype t = below(NR_T + 2);
			enum target g = below(NR_G + 1);
			struct dir *d = NULL;

			if (t >= NR_T)		/* data twice as often */
				t = T_DATA;
			if (g >= NR_G || (g == G_SINK && !sink.port))
				g = G_PROT;
			if (g == G_SINK && t == T_DATA) {
				sink_data(k);
				k->type = T_DATA;
				k->g = G_SINK;
				/* Mostly the valid stream, so that it moves. */
				if (chance(35))
					mutated += mutate(k);
			} else {
				if (g == G_SINK)
					g = G_EDGE;
				if (g != G_EDGE) {
					/* Data from here, acknowledgments of
					 * data to here; probes either way.
					 */
					d = pick_dir(g, t == T_DATA ||
						     (t >= T_PROBE && chance(50)),
						     now);
					if (!d)
						g = G_EDGE;
				}
				k->g = g;
				build(k, t, d);
				mutated += mutate(k);
			}
			fixed += protect(k);
			by_type[k->type]++;
			by_g[k->g]++;
			for (j = 0; j < k->len; j++)
				digest = (digest ^ k->b[j]) *
					 0x100000001b3ULL;
			digest = (digest ^ k->len) * 0x100000001b3ULL;
			iov[i].iov_base = k->b;
			iov[i].iov_len = k->len;
			memset(&mm[i], 0, sizeof(mm[i]));
			mm[i].msg_hdr.msg_name = &ss;
			mm[i].msg_hdr.msg_namelen = sslen;
			mm[i].msg_hdr.msg_iov = &iov[i];
			mm[i].msg_hdr.msg_iovlen = 1;
		}
		for (i = 0; !dry && i < nb; i += r) {
			r = sendmmsg(fd, mm + i, nb - i, 0);
			if (r < 0) {
				if (errno == EINTR || errno == ENOBUFS ||
				    errno == EAGAIN) {
					r = 0;
					continue;
				}
				/* A datagram the stack refuses outright is
				 * not sent: say so, and stop.
				 */
				fprintf(stderr, "mrc_fuzz: sendmmsg: %s\n",
					strerror(errno));
				goto out;
			}
		}
		sent += nb;
		/* Paced: the next batch when the rate allows it. */
		if (rate && !dry) {
			double wait = t0 + (double)sent / rate - now_s();

			if (wait > 0) {
				struct timespec ts = {
					.tv_sec = (time_t)wait,
					.tv_nsec = (long)((wait - (time_t)wait) *
							  1e9),
				};

				nanosleep(&ts, NULL);
			}
		}
	}
out:
	printf("sent %lu in %.1f s:", sent, now_s() - t0);
	for (i = 0; i < NR_T; i++)
		printf(" %s %lu", tname[i], by_type[i]);
	printf("\ntargets:");
	for (i = 0; i < NR_G; i++)
		printf(" %s %lu", gname[i], by_g[i]);
	printf("\nmutated %lu, protected fix-ups %lu\n", mutated, fixed);
	for (i = 0; i < nr_dirs; i++)
		printf("direction %s %u -> %u epoch 0x%04x hi_psn %u ack_psn %u%s\n",
		       dirs[i].local ? "outgoing" : "incoming", dirs[i].sport,
		       dirs[i].dport, dirs[i].epoch, dirs[i].hi_psn,
		       dirs[i].ack_psn,
		       is_victim(dirs[i].sport, dirs[i].dport) ? " victim" :
		       " protected");
	printf("digest %016llx\n", (unsigned long long)digest);
	/* Said before the sockets close: a packet socket's release waits
	 * for an RCU grace period, which a loaded kernel may put off.
	 */
	fflush(stdout);
	return sent == count ? 0 : 1;
}
