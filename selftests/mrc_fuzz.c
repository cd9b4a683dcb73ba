// SPDX-License-Identifier: GPL-2.0
/*
 * mrc_fuzz: a seeded mutation fuzzer of mrc's receive path.
 *
 *   mrc_fuzz [-s SEED] [-n COUNT] [-t SECONDS] [-b BATCH] [-u UDPPORT]
 *            [-i IFNAME] [-w MS] [-P PORT]... [-V PORT]... [-k PORT]
 *            [-r RATE] [-I NETNS:IFNAME] [-D] [-d] ADDRESS
 *
 * Sends COUNT (default 1000000) UDP datagrams to ADDRESS port 4791 from
 * UDP port UDPPORT (default 4792), BATCH (default 32) to a sendmmsg(),
 * at most RATE a second if given (a flood at full speed takes the whole
 * of a single CPU, where RCU's grace periods then wait for minutes).
 * With -D, slower whenever IFNAME's tx_dropped grows: the peer's end of
 * a veth refused what its receive backlog could not hold, which mrc
 * then never saw (see drops_pace()).
 * Each starts as a valid packet of one of six types (data, ACK, SACK,
 * NACK, probe, probe response) built with include/mrc/wire.h, tagged as
 * mrc sends every packet (include/mrc/tag.h): an ITETH, the sender's
 * incarnation tag and the receiver's echoed; but a probe and its
 * response, which keep MRC 1.0's sizes: a probe its sender's tag alone
 * in PETH bytes 0-3, a response both in the SETH's bitmap (bytes 20-27).
 * Most are then mutated: bits flipped, a field set to a boundary (0, 1,
 * its maximum, one off either side of the live window and of its edges),
 * the length cut short or extended, flag combinations, the opcode
 * swapped for another (so the header length the opcode implies lies
 * about what follows), the transport version set, the ITETH's flag
 * flipped (a probe or a response then calls for an ITETH it lacks), the
 * packet cut inside its tags, its tags zeroed, set at random or to a
 * boundary, or swapped.
 *
 * The sequence is a function of SEED (printed; default from the clock)
 * and of what the fuzzer learnt of the live queue pairs, tags included,
 * which it prints too: the same seed against the same learnt values
 * sends the same bytes (-d: build them, send nothing, print their
 * digest).
 *
 * Targets, chosen per packet:
 *   - live queue pairs: with -i, the fuzzer reads the mrc packets on
 *     IFNAME (a packet socket, headers only) and learns each direction's
 *     ports, epoch, PSNs and tags (a data packet carries its sender's tag
 *     and echoes its receiver's; an acknowledgment carries the receiver's
 *     and echoes the sender's), so that mutations land in live QPs'
 *     windows and not only on the refusal path.  With -I NETNS:IFNAME,
 *     the peer's end of the link (the namespace's name for ip netns)
 *     is read too, and both ends see only what they receive: what the
 *     peer's end receives is what this end sent, and the kernel copies
 *     none of the packets sent for the readers.  Directions of a port
 *     given with -V (a victim) are fuzzed with their live epoch, PSNs and
 *     tags most of the time, so that what is mutated passes the tag check
 *     and reaches the window, and with wrong tags otherwise (one claiming
 *     a new incarnation of the peer among them): they may fail, and must
 *     fail cleanly.  A direction involving a port given with -P is
 *     protected: a transfer there must verify.  Its packets carry its live
 *     epoch and PSNs, and data the START flag now and then, in the first
 *     window: a forged first packet of a new incarnation over the live
 *     one (issue 13, item 3), which the tags turn into a challenge
 *     (rx_drop_blind_reset).  They never carry the tags that would make
 *     the QP they reach take them (its peer's as sender tag on data or a
 *     probe, its own as echo): random tags, learnt ones one bit off,
 *     swapped, or none instead, enforced on the final bytes.  What tags
 *     cannot protect is a QP not there, as the first packet of a new one
 *     may carry any tag: so data to a protected port carries START only
 *     to a QP whose far end has been heard within the last second, its
 *     tag known, echoing the near end's.  Other directions learnt are treated as protected.
 *     -w waits MS for the first directions first.
 *   - -k PORT: a socket the fuzzer opens incarnations to itself, as a
 *     peer would (its own source ports, epochs and sender tag each time,
 *     messages in order from PSN 0), mutated copies interleaved: the
 *     receive path's depth (placing, holes, duplicates, completion) on a
 *     QP it knows fully.  The socket's tag on each source port is learnt
 *     from its acknowledgments (with -i: mrc answers this address's UDP
 *     port 4791, from the UDP port it was sent from, UDPPORT) and echoed
 *     from then on, so that an incarnation that finds the last one's QP
 *     still there proves itself (qp_reincarnated) and is not challenged.
 *   - ports at their boundaries, where no QP is or where one gets made:
 *     a small fixed set, so the QPs the fuzzer can open are bounded;
 *     random tags or none.
 *
 * Prints the datagrams sent per type and per target, and the digest.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
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
#include <mrc/rxwin.h>
#include <mrc/wire.h>

#include "mrc_testnet.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define MAX_PKT		4400	/* an MSS of 4096, headers, and more */
#define MAX_BATCH	64
#define MAX_DIRS	32
#define MAX_PORTS	8
#define SINK_BASE	0x5100	/* the fuzzer's source ports to the sink: */
#define SINK_PORTS	8	/* the sink's QPs it opens (a power of 2) */
#define SINK_INC_PKTS	3000	/* valid packets per sink incarnation */
#define LIVE_S		1.0	/* a direction heard from so recently is live */

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
	__u32 tag;		/* our incarnation tag, this incarnation */
	__u32 psn;
	__u16 msn;
	__u32 msg_len, off;	/* the message being sent */
	unsigned long pkts;	/* valid packets in this incarnation */
	unsigned int inc;
	/* Per source port (SINK_BASE + i): our tag of its last incarnation,
	 * and the sink QP's, learnt from its acknowledgments (0: not yet).
	 */
	__u32 ours[SINK_PORTS], theirs[SINK_PORTS];
} sink;

/* One direction of a live queue pair: data from @sport to @dport. */
struct dir {
	__u16 sport, dport;	/* the data sender's and receiver's mrc ports */
	int local;		/* the data sender is in this namespace */
	__u16 epoch, prev;	/* its epoch, and the one before */
	__u32 hi_psn;		/* highest data PSN seen: about snd_nxt - 1 */
	__u32 ack_psn;		/* last cumulative PSN acknowledged */
	int acked;
	/* The incarnation tags of its sender's and its receiver's QP end
	 * (0: not seen yet), the ones they had before, and each end's last
	 * echo of the other's (its peer's tag as it knows it, which a
	 * forged challenge may have made another).
	 */
	__u32 tag_s, tag_r, old_s, old_r, view_s, view_r;
	double seen;		/* when a packet of it last went by */
	/* When its end in the other namespace last sent a packet that
	 * echoes a tag: its QP is there and knows its peer's tag, and stays
	 * (the reaper waits for MRC_QP_IDLE_MS, 3 s, of silence both ways
	 * at least).
	 */
	double proof;
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

/* A direction's tags, for the record. */
static void print_tags(const char *what, const struct dir *d)
{
	printf("%s %s direction %u -> %u, tags 0x%08x 0x%08x\n", what,
	       d->local ? "outgoing" : "incoming", d->sport, d->dport,
	       d->tag_s, d->tag_r);
}

/* Tag @*t of a direction is now @v (not 0), the one before kept in @*old;
 * 1 if it changed.
 */
static int tag_note(__u32 *t, __u32 *old, __u32 v)
{
	if (!v || *t == v)
		return 0;
	*old = *t;
	*t = v;
	return 1;
}

/*
 * A data packet of direction @sport -> @dport went by (@is_ack: an
 * acknowledgment of it), with the tags of its ITETH: @tag its sender's,
 * @echo the other end's as its sender knows it.  Epochs are learnt from
 * data alone: an acknowledgment may be mrc's answer to a forged packet (a
 * NACK echoes the epoch it refuses), data comes only from a real sender
 * (the fuzzers' own are skipped by their UDP port).  Each end's tag is
 * learnt from what it sends (mrc's every acknowledgment carries its QP
 * end's, a refusal none), the receiver's from the sender's echo only
 * until then: a sender may echo one that is not the receiver's.
 */
static void dir_note(__u16 sport, __u16 dport, int local, __u16 epoch,
		     __u32 psn, int is_ack, __u32 tag, __u32 echo)
{
	struct dir *d = dir_find(sport, dport, local);
	int changed = 0;

	/* The fuzzer's own incarnations to the sink are not live QPs. */
	if (!epoch || (sink.port && (sport == sink.port || dport == sink.port)))
		return;
	if (is_ack) {
		if (!d)
			return;
		if (epoch == d->epoch) {
			d->ack_psn = psn;
			d->acked = 1;
		}
		if (!tag)
			return;
		if (tag_note(&d->tag_r, &d->old_r, tag))
			print_tags("learnt:", d);
		d->view_s = echo;
		/* From the receiver there: its QP knows the sender's. */
		if (d->local && echo)
			d->proof = now_s();
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
		d->tag_s = tag;
		d->tag_r = echo;
		d->view_r = echo;
		printf("learnt: %s direction %u -> %u, epoch 0x%04x, PSN %u, tags 0x%08x 0x%08x\n",
		       local ? "outgoing" : "incoming", sport, dport, epoch,
		       psn, tag, echo);
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
	changed |= tag_note(&d->tag_s, &d->old_s, tag);
	if (!d->tag_r)
		changed |= tag_note(&d->tag_r, &d->old_r, echo);
	if (changed)
		print_tags("learnt:", d);
	d->view_r = echo;
	/* From the sender there, echoing: its QP knows the receiver's. */
	if (!local && echo)
		d->proof = d->seen;
}

/*
 * An acknowledgment from the sink (-k) to one of the fuzzer's source
 * ports, @p its mrc headers: the tag of the sink's QP, if it echoes the
 * fuzzer's of that port (so that it answers a packet of the fuzzer's,
 * not anybody's).
 */
static void sink_note(const __u8 *p)
{
	struct mrc_ack_hdr a;
	unsigned int i;

	if (!sink.port || (p[0] != MRC_OP_ACK && p[0] != MRC_OP_SACK &&
			   p[0] != MRC_OP_NACK))
		return;
	mrc_get_ack_hdr(p, &a);
	i = (__u16)(a.dport - SINK_BASE);
	if (i >= SINK_PORTS || a.sport != sink.port || !a.tag ||
	    !sink.ours[i] || a.tag_echo != sink.ours[i] ||
	    a.tag == sink.theirs[i])
		return;
	sink.theirs[i] = a.tag;
	printf("learnt: sink %u -> %u, tag 0x%08x\n", a.dport, a.sport,
	       a.tag);
}

/* The packet sockets: [0] on our end of the link; [1], with -I, on the
 * peer's end, in its namespace, where what it receives is what we sent.
 */
static int sniff_fd[2] = { -1, -1 };
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
	if (mrc_get_be16(udp + 2) != MRC_UDP_PORT)
		return;
	p = udp + 8;
	hlen = mrc_hdr_check(p, len - ihl - 8);
	if (hlen < 0)
		return;
	/* mrc's own packets only: not the fuzzers' (from their port), but
	 * for mrc's answers to the fuzzer's, sent from the port they came
	 * from: the sink's acknowledgments among them.
	 */
	if (mrc_get_be16(udp) == own_udp_port) {
		if (!outgoing)
			sink_note(p);
		return;
	}
	if (mrc_is_data_opcode(p[0])) {
		struct mrc_data_hdr h;

		mrc_get_data_hdr(p, &h);
		dir_note(h.sport, h.dport, outgoing, h.epoch, h.psn, 0, h.tag,
			 h.tag_echo);
	} else if (p[0] != MRC_OP_PROBE) {
		struct mrc_ack_hdr a;

		mrc_get_ack_hdr(p, &a);
		if (p[0] == MRC_OP_SACK && a.flags & MRC_SETH_PROBE_RESP)
			return;
		/* An acknowledgment goes against its data's direction. */
		dir_note(a.dport, a.sport, !outgoing, a.epoch, a.psn, 1, a.tag,
			 a.tag_echo);
	}
}

static void sniff_drain_one(int k)
{
	static __u8 buf[64][128];
	struct sockaddr_ll sll[64];
	struct mmsghdr mm[64];
	struct iovec iov[64];
	int i, n, r;

	for (r = 0; sniff_fd[k] >= 0 && r < 8; r++) {
		memset(mm, 0, sizeof(mm));
		for (i = 0; i < 64; i++) {
			iov[i].iov_base = buf[i];
			iov[i].iov_len = sizeof(buf[i]);
			mm[i].msg_hdr.msg_iov = &iov[i];
			mm[i].msg_hdr.msg_iovlen = 1;
			mm[i].msg_hdr.msg_name = &sll[i];
			mm[i].msg_hdr.msg_namelen = sizeof(sll[i]);
		}
		n = recvmmsg(sniff_fd[k], mm, 64, MSG_DONTWAIT, NULL);
		/* What the peer's end received, we sent. */
		for (i = 0; i < n; i++)
			sniff_one(buf[i], mm[i].msg_len, k ||
				  sll[i].sll_pkttype == PACKET_OUTGOING);
		if (n < 64)
			return;
	}
}

static void sniff_drain(void)
{
	sniff_drain_one(0);
	sniff_drain_one(1);
}

/*
 * A packet socket on @ifname, the filter below on it, into *@fd.  With
 * @in_only, it sees what the interface receives alone
 * (PACKET_IGNORE_OUTGOING): the kernel then clones nothing for it on
 * transmission, where a tap of every protocol costs an allocation for
 * each packet sent, the fuzzer's own included (a third of the fuzzer's
 * time on the debug kernel, whose every allocation records a stack).
 */
static int sniff_open(const char *ifname, int in_only, int *fd)
{
	/*
	 * In the kernel, before anything is queued: IPv4, UDP, not a
	 * fragment's tail, to port 4791; from the fuzzers' port, only an
	 * acknowledgment (ACK, SACK or NACK) to one of the sink's source
	 * ports (BTH bytes 6-7; none without a sink): the sink's answers to
	 * this fuzzer among the other's flood.  The first 128 bytes of
	 * those: their headers are all we read.  (A packet socket of
	 * SOCK_DGRAM sees the packet from its IP header on; X holds the
	 * IP header's length, so UDP is at X, the BTH at X + 8.)
	 */
	__u32 sink_ports = sink.port ? SINK_BASE : 0xffffffff;
	struct sock_filter code[] = {
		/* 0 */ BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 0),
		BPF_STMT(BPF_ALU | BPF_AND | BPF_K, 0xf0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0x40, 0, 17),
		BPF_STMT(BPF_LD | BPF_B | BPF_ABS, 9),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, IPPROTO_UDP, 0, 15),
		/* 5 */ BPF_STMT(BPF_LD | BPF_H | BPF_ABS, 6),
		BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, 0x1fff, 13, 0),
		BPF_STMT(BPF_LDX | BPF_B | BPF_MSH, 0),
		BPF_STMT(BPF_LD | BPF_H | BPF_IND, 2),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, MRC_UDP_PORT, 0, 10),
		/* 10 */ BPF_STMT(BPF_LD | BPF_H | BPF_IND, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, own_udp_port, 0, 7),
		BPF_STMT(BPF_LD | BPF_B | BPF_IND, 8),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, MRC_OP_ACK, 2, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, MRC_OP_SACK, 1, 0),
		/* 15 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, MRC_OP_NACK, 0, 4),
		BPF_STMT(BPF_LD | BPF_H | BPF_IND, 8 + 6),
		BPF_STMT(BPF_ALU | BPF_AND | BPF_K, 0xffff & ~(SINK_PORTS - 1)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, sink_ports, 0, 1),
		/* 19: take it */ BPF_STMT(BPF_RET | BPF_K, 128),
		/* 20: not */ BPF_STMT(BPF_RET | BPF_K, 0),
	};
	struct sock_fprog prog = { ARRAY_SIZE(code), code };
	struct sockaddr_ll sll = { 0 };

	int one = 1;

	/* ETH_P_ALL: only taps of every protocol see what goes out. */
	*fd = socket(AF_PACKET, SOCK_DGRAM, htons(ETH_P_ALL));
	if (*fd < 0)
		return -1;
	sll.sll_family = AF_PACKET;
	sll.sll_protocol = htons(ETH_P_ALL);
	sll.sll_ifindex = if_nametoindex(ifname);
	if (!sll.sll_ifindex ||
	    (in_only &&
	     setsockopt(*fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one,
			sizeof(one))) ||
	    setsockopt(*fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog,
		       sizeof(prog)) ||
	    bind(*fd, (struct sockaddr *)&sll, sizeof(sll)))
		return -1;
	return 0;
}

/*
 * -I NETNS:IFNAME: the sniffer on the peer's end of the link, in its
 * namespace (ip netns's name), opened there and kept from here: what it
 * receives is what this end sent.  Both sockets then see received
 * packets alone.
 */
static int sniff_open_peer(const char *spec)
{
	char path[256], ifname[IF_NAMESIZE];
	const char *colon = strchr(spec, ':');
	int here, there, ret;

	if (!colon || colon == spec || !colon[1] ||
	    strlen(colon + 1) >= IF_NAMESIZE ||
	    snprintf(path, sizeof(path), "/run/netns/%.*s",
		     (int)(colon - spec), spec) >= (int)sizeof(path)) {
		errno = EINVAL;
		return -1;
	}
	strcpy(ifname, colon + 1);
	here = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	there = open(path, O_RDONLY | O_CLOEXEC);
	if (here < 0 || there < 0 || setns(there, CLONE_NEWNET)) {
		ret = -1;
		goto out;
	}
	ret = sniff_open(ifname, 1, &sniff_fd[1]);
	if (setns(here, CLONE_NEWNET)) {
		perror("mrc_fuzz: back to our namespace");
		exit(1);
	}
out:
	if (here >= 0)
		close(here);
	if (there >= 0)
		close(there);
	return ret;
}

/* --- pacing by the link's drops --------------------------------------- */

/*
 * -D: the interface's tx_dropped (sysfs: the namespace's own under ip
 * netns exec), where a veth counts what the peer's receive backlog
 * refused.  A flood faster than the receiving end's softirqs take it
 * (on a loaded debug kernel they run in ksoftirqd, beside the fuzzers)
 * is dropped there, before mrc sees it; the fuzzer slows down instead,
 * so that what it sends reaches mrc.
 */
static int drops_fd = -1;
static unsigned long long drops_last, drops_total;

static unsigned long long drops_read(void)
{
	char b[32];
	ssize_t n;

	n = pread(drops_fd, b, sizeof(b) - 1, 0);
	if (n <= 0)
		return drops_last;
	b[n] = 0;
	return strtoull(b, NULL, 10);
}

/* After a batch: the pause before the next, in microseconds. */
static unsigned long drops_pace(unsigned long pause_us)
{
	unsigned long long d;

	if (drops_fd < 0)
		return 0;
	d = drops_read();
	if (d != drops_last) {
		drops_total += d - drops_last;
		drops_last = d;
		/* Refused: back off, doubling up to 50 ms a batch. */
		return pause_us ? (pause_us * 2 > 50000 ? 50000 : pause_us * 2)
				: 500;
	}
	/* Taken: a little faster each batch. */
	if (pause_us < 16)
		return pause_us ? pause_us - 1 : 0;
	return pause_us - pause_us / 16;
}

/* --- packets ---------------------------------------------------------- */

/* A packet in the making, with what the mutations aim at. */
struct pkt {
	__u8 b[MAX_PKT];
	unsigned int len;
	unsigned int hlen;	/* headers of the valid packet */
	/* Where its tags are: its ITETH; a probe's PETH bytes 0-3 (its
	 * sender's alone), a probe response's SETH bytes 20-27.
	 */
	unsigned int tags;
	enum ptype type;
	enum target g;
	__u32 live_psn;		/* the live window's point, for boundaries */
};

/* A random tag, never 0, as a QP end draws one. */
static __u32 new_tag(void)
{
	__u32 t;

	do {
		t = (__u32)rnd();
	} while (!t);
	return t;
}

/* A new incarnation: the next of SINK_PORTS source ports, a new epoch
 * and a new tag.
 */
static void sink_new(void)
{
	sink.sport = SINK_BASE + sink.inc++ % SINK_PORTS;
	do {
		sink.epoch = (__u16)rnd();
	} while (!sink.epoch);
	sink.tag = new_tag();
	sink.ours[sink.sport - SINK_BASE] = sink.tag;
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
	/* Ours, and the sink QP's as far as we know it: if an earlier
	 * incarnation's QP is still there, it takes the new one for it.
	 */
	h.flags |= MRC_BTH_TAGGED;
	h.tag = sink.tag;
	h.tag_echo = sink.theirs[sink.sport - SINK_BASE];
	k->hlen = mrc_put_data_hdr(k->b, &h);
	k->tags = k->hlen - MRC_ITETH_LEN;
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

/* A tag at a boundary, or random. */
static __u32 edge_tag(void)
{
	static const __u32 t[] = { 1, 0xffffffff, 0x80000000 };
	__u32 i = below(5);

	return i < ARRAY_SIZE(t) ? t[i] : new_tag();
}

/*
 * The tags of a packet from the @near end of a queue pair (tag @near) to
 * its far end (@far), of target @g: a victim's right most of the time,
 * so that the rest of the packet reaches the QP; else wrong ones, as a
 * protected direction's always are (protect() makes sure of it).  At
 * boundary ports (no QP known), random ones or none.
 */
static void pick_tags(enum target g, __u32 near, __u32 far, __u32 *tag,
		      __u32 *echo)
{
	if (g == G_EDGE) {
		*tag = chance(10) ? 0 : edge_tag();
		*echo = chance(50) ? 0 : edge_tag();
		return;
	}
	if (g == G_VICTIM && !chance(15)) {
		*tag = near;
		*echo = far;
		return;
	}
	switch (below(g == G_VICTIM ? 7 : 5)) {
	case 0:	/* a blind forger's */
		*tag = new_tag();
		*echo = new_tag();
		break;
	case 1:	/* near misses: one bit off each */
		*tag = near ^ 1u << below(32);
		*echo = far ^ 1u << below(32);
		break;
	case 2:	/* the wrong way round */
		*tag = far;
		*echo = near;
		break;
	case 3:	/* a new incarnation's first, the peer's tag unknown */
		*tag = new_tag();
		*echo = 0;
		break;
	case 4:	/* no tag of its own */
		*tag = 0;
		*echo = chance(50) ? new_tag() : far ^ 1u << below(32);
		break;
	case 5:	/* a new incarnation of the peer's, proven (a victim's) */
		*tag = new_tag();
		*echo = far;
		break;
	default: /* the peer's, echoing another */
		*tag = near;
		*echo = new_tag();
		break;
	}
}

/* The valid packet of type @t aimed at direction @d (its ports, epoch,
 * window and tags), or at boundary ports when @d is NULL.  Data goes from
 * its sender (a direction whose sender is here), acknowledgments from its
 * receiver (one whose receiver is here); a probe and its answer from
 * whichever end is here: the sender probes, the receiver answers.
 */
static void build(struct pkt *k, enum ptype t, const struct dir *d,
		  enum target g)
{
	int fwd = d && d->local;
	__u16 dport = !d ? edge_port() : fwd ? d->dport : d->sport;
	__u16 sport = !d ? edge_port() : fwd ? d->sport : d->dport;
	__u16 epoch = d ? d->epoch : edge_epoch();
	__u32 live = !d ? below(1024) : !d->acked ? d->hi_psn :
		     t == T_DATA ? mrc_psn_add(d->ack_psn, 1) : d->ack_psn;
	__u32 i, n, tag, echo;

	if (d)
		pick_tags(g, fwd ? d->tag_s : d->tag_r,
			  fwd ? d->tag_r : d->tag_s, &tag, &echo);
	else
		pick_tags(G_EDGE, 0, 0, &tag, &echo);
	k->type = t;
	k->live_psn = live;
	switch (t) {
	case T_DATA: {
		struct mrc_data_hdr h = { 0 };

		n = below(5) ? below(257) : 1024;
		h.opcode = MRC_OP_WRITE_ONLY;
		h.flags = MRC_BTH_ACKREQ | MRC_BTH_TAGGED;
		h.dport = dport;
		h.psn = near_psn(live);
		h.msn = (__u16)below(4);
		h.sport = sport;
		h.epoch = epoch;
		h.msg_len = n;
		h.tag = tag;
		h.tag_echo = echo;
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
		/* Now and then one that may start an incarnation: START, in
		 * the first window (or just past it), its message no later
		 * than its PSN.
		 */
		if (chance(15)) {
			h.flags |= MRC_BTH_START;
			h.psn = below(MRC_WINDOW + 8);
			h.msn = (__u16)below((h.psn < 3 ? h.psn : 3) + 1);
		}
		k->hlen = mrc_put_data_hdr(k->b, &h);
		for (i = 0; i < n; i++)
			k->b[k->hlen + i] = (__u8)(0xa0 + i);
		k->len = k->hlen + n;
		break;
	}
	case T_ACK:
	case T_SACK:
	case T_NACK: {
		static const __u8 reasons[] = {
			MRC_NACK_TRIMMED, MRC_NACK_TRIMMED_LAST_HOP,
			MRC_NACK_NO_BITMAP, MRC_NACK_NO_PKT_BUFFER,
			MRC_NACK_NO_RESOURCE, MRC_NACK_PSN_OOW,
			MRC_NACK_UNEXPECTED, MRC_NACK_TAG_CHALLENGE, 0, 0xff,
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
		a.tagged = 1;
		a.tag = tag;
		a.tag_echo = echo;
		k->hlen = mrc_put_ack_hdr(k->b, &a);
		k->len = k->hlen;
		break;
	}
	case T_PROBE: {
		/* Its sender's tag alone: the echo drawn goes unused. */
		struct mrc_probe_hdr h = {
			.dport = dport, .sport = sport,
			.id = (__u16)below(64), .ts = (__u16)rnd(),
			.tag = tag,
		};

		k->hlen = mrc_put_probe_hdr(k->b, &h);
		k->len = k->hlen;
		break;
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
			.tagged = 1, .tag = tag, .tag_echo = echo,
		};

		k->hlen = mrc_put_ack_hdr(k->b, &a);
		k->len = k->hlen;
		break;
	}
	}
	/* Every type with an ITETH has it last of its headers, mrc
	 * sending no IMM; a probe and its response have none.
	 */
	k->tags = t == T_PROBE ? MRC_BTH_LEN :
		  t == T_PRESP ? MRC_BTH_LEN + 20 : k->hlen - MRC_ITETH_LEN;
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
		{ 5, 3 }, { 9, 3 }, { 12, 4 }, { 16, 2 }, { 20, 2 }, { 22, 2 },
		{ 24, 2 },
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

/* Mutate the packet's tags (where the valid packet has them): the ITETH's
 * flag, the packet cut inside them, the tags.  A probe has one, its
 * sender's.
 */
static void mutate_tags(struct pkt *k)
{
	unsigned int tlen = k->type == T_PROBE ? 4 : MRC_ITETH_LEN;
	__u8 *it = k->b + k->tags;
	__u32 tag, echo = 0;

	if (k->len <= 8)
		return;
	if (k->tags + tlen > k->len || !below(5)) {
		/* Flagged or not: 8 bytes more or less. */
		k->b[8] ^= MRC_BTH_TAGGED;
		return;
	}
	tag = mrc_get_be32(it);
	if (tlen == MRC_ITETH_LEN)
		echo = mrc_get_be32(it + 4);
	switch (below(5)) {
	case 0:	/* cut inside them */
		k->len = k->tags + below(tlen);
		return;
	case 1:	/* the wrong way round; a probe's one bit off */
		if (tlen == MRC_ITETH_LEN)
			mrc_put_iteth(it, echo, tag);
		else
			mrc_put_be32(it, tag ^ 1u << below(32));
		return;
	case 2:	/* one of them at a boundary, or random */
		if (below(2))
			tag = (__u32)edge_val(32, tag);
		else
			echo = (__u32)edge_val(32, echo);
		break;
	case 3:	/* one of them 0 */
		if (below(2))
			tag = 0;
		else
			echo = 0;
		break;
	default: /* both 0, or both random */
		tag = below(2) ? 0 : (__u32)rnd();
		echo = tag ? (__u32)rnd() : 0;
		break;
	}
	mrc_put_be32(it, tag);
	if (tlen == MRC_ITETH_LEN)
		mrc_put_be32(it + 4, echo);
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
		switch (below(9)) {
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
		case 5:	/* flags: byte 8 (mrc's, the ITETH's kept; or all
			 * of it), the SETH's, the version
			 */
			if (k->len > 8)
				k->b[8] = below(2) ? ((__u8)rnd() & 0xf0) |
						     (k->b[8] & MRC_BTH_TAGGED) :
					  (__u8)rnd();
			if (k->len > 13 && chance(30))
				k->b[13] = (__u8)rnd();
			if (k->len > 1 && chance(20))
				k->b[1] = (__u8)below(256);
			break;
		case 6:	/* the opcode swapped: the header length lies */
			if (k->len)
				k->b[0] = ops[below(sizeof(ops))];
			break;
		case 7: /* the TSETH flag alone: 4 bytes more or less */
			if (k->len > 8)
				k->b[8] ^= MRC_BTH_TSETH;
			break;
		default:
			mutate_tags(k);
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

/* Whether @v (not 0) is one of the @n tags at @t. */
static int tag_in(__u32 v, const __u32 *t, unsigned int n)
{
	while (v && n--)
		if (t[n] == v)
			return 1;
	return 0;
}

/* @v, or if it is one of the @n tags at @t, another that is not. */
static __u32 tag_away(__u32 v, const __u32 *t, unsigned int n)
{
	while (tag_in(v, t, n))
		v += 0x9e3779b9;
	return v;
}

/*
 * What the kernel will make of the final bytes, for a packet not of a
 * victim (see the top): parsed as rx.c parses them, so exactly what
 * reaches a queue pair is fixed.  The packet goes from this address to
 * socket @d there, to the QP of source port @s: the QP of a direction
 * learnt, sent from here (@s -> @d) or to here (@d -> @s), whose end
 * there has the far tags, the end here the near ones (include/mrc/
 * tag.h), each as its end sent it and as the other echoed it.  It must
 * not carry a near tag as data's own (the QP's peer's: taken; a
 * challenge to it would echo it here, taken too) or a probe's (answered,
 * to the near end, which would take the answer), nor echo a far one
 * (the QP's own: an acknowledgment taken, data taken as a proven new
 * incarnation of the peer).  The tags are read where rx.c reads them:
 * an ITETH if flagged; a probe's PETH bytes 0-3, whatever its flags; a
 * probe response's SETH bytes 20-27 if it has no ITETH.  And data to a
 * protected port carries START only if its QP is there, proven within
 * LIVE_S: a new QP takes the tags of its first packet, whatever they
 * are.  Returns 1 if the packet was changed.
 */
static int protect(struct pkt *k, double now)
{
	int hlen = mrc_hdr_check(k->b, k->len), data, probe, fixed = 0;
	__u32 near[3 * MAX_DIRS], far[3 * MAX_DIRS], tag, echo;
	int there = 0;
	unsigned int nn = 0, nf = 0, i;
	__u8 *it = NULL;
	__u16 s, d;

	if (hlen < 0)
		return 0;
	data = mrc_is_data_opcode(k->b[0]);
	probe = k->b[0] == MRC_OP_PROBE;
	if (k->b[8] & MRC_BTH_TAGGED)
		it = k->b + hlen - MRC_ITETH_LEN;
	if (data) {
		struct mrc_data_hdr h;

		mrc_get_data_hdr(k->b, &h);
		s = h.sport;
		d = h.dport;
		tag = h.tag;
		echo = h.tag_echo;
		/* Before any immediate data, after the RETH. */
		if (it)
			it = k->b + MRC_BTH_LEN + MRC_METH_LEN +
			     (h.flags & MRC_BTH_TSETH ? MRC_TSETH_LEN : 0) +
			     MRC_RETH_LEN;
	} else if (probe) {
		struct mrc_probe_hdr h;

		/* Its sender's tag alone, in the PETH: no echo. */
		mrc_get_probe_hdr(k->b, &h);
		s = h.sport;
		d = h.dport;
		tag = h.tag;
		echo = 0;
		it = k->b + MRC_BTH_LEN;
	} else {
		struct mrc_ack_hdr a;

		mrc_get_ack_hdr(k->b, &a);
		s = a.sport;
		d = a.dport;
		tag = a.tag;
		echo = a.tag_echo;
		/* A probe's answer without an ITETH: in the bitmap's place. */
		if (!it && a.tagged)
			it = k->b + MRC_BTH_LEN + 20;
	}
	if (is_victim(s, d))
		return 0;
	for (i = 0; i < nr_dirs; i++) {
		const struct dir *r = &dirs[i];
		int fwd = r->local && r->sport == s && r->dport == d;

		if (!fwd && (r->local || r->sport != d || r->dport != s))
			continue;
		near[nn++] = fwd ? r->tag_s : r->tag_r;
		near[nn++] = fwd ? r->old_s : r->old_r;
		near[nn++] = fwd ? r->view_s : r->view_r;
		far[nf++] = fwd ? r->tag_r : r->tag_s;
		far[nf++] = fwd ? r->old_r : r->old_s;
		far[nf++] = fwd ? r->view_r : r->view_s;
		there |= r->proof && now - r->proof < LIVE_S;
	}
	if ((data || probe) && tag_in(tag, near, nn)) {
		tag = tag_away(tag, near, nn);
		fixed = 1;
	}
	if (tag_in(echo, far, nf)) {
		echo = tag_away(echo, far, nf);
		fixed = 1;
	}
	if (fixed && probe)
		mrc_put_be32(it, tag);
	else if (fixed)
		mrc_put_iteth(it, tag, echo);
	if (data && k->b[8] & MRC_BTH_START && !there &&
	    (port_protected(s) || port_protected(d))) {
		k->b[8] &= ~MRC_BTH_START;
		fixed = 1;
	}
	return fixed;
}

/* --- main ---------------------------------------------------------------- */

static void usage(void)
{
	fprintf(stderr,
		"Usage: mrc_fuzz [-s SEED] [-n COUNT] [-t SECONDS] [-b BATCH]\n"
		"                [-u UDPPORT] [-i IFNAME] [-w MS] [-P PORT]...\n"
		"                [-V PORT]... [-k PORT] [-r RATE]\n"
		"                [-I NETNS:IFNAME] [-D] [-d] ADDRESS\n");
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
	const char *ifname = NULL, *peer = NULL;
	int opt, fd = -1, dry = 0, have_seed = 0, by_drops = 0;
	unsigned long pause_us = 0;
	socklen_t sslen;
	double t0, end;
	unsigned int i, j;

	own_udp_port = 4792;
	while ((opt = getopt(argc, argv, "s:n:t:b:u:i:w:P:V:k:r:I:Dd")) != -1) {
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
		case 'I':
			peer = optarg;
			break;
		case 'D':
			by_drops = 1;
			break;
		case 'd':
			dry = 1;
			break;
		default:
			usage();
		}
	}
	if (optind != argc - 1 || ((peer || by_drops) && !ifname))
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
		if (ifname && sniff_open(ifname, !!peer, &sniff_fd[0])) {
			fprintf(stderr, "mrc_fuzz: packet socket on %s: %s\n",
				ifname, strerror(errno));
			return 1;
		}
		if (peer && sniff_open_peer(peer)) {
			fprintf(stderr, "mrc_fuzz: packet socket on %s: %s\n",
				peer, strerror(errno));
			return 1;
		}
		if (by_drops) {
			char path[64 + IF_NAMESIZE];

			snprintf(path, sizeof(path),
				 "/sys/class/net/%s/statistics/tx_dropped",
				 ifname);
			drops_fd = open(path, O_RDONLY | O_CLOEXEC);
			if (drops_fd < 0) {
				fprintf(stderr, "mrc_fuzz: %s: %s\n", path,
					strerror(errno));
				return 1;
			}
			drops_last = drops_read();
		}
	}
	/* Learn the live directions first, for up to @warm ms. */
	t0 = now_s();
	while (sniff_fd[0] >= 0 && now_s() - t0 < warm / 1000.0) {
		struct pollfd pf[2] = {
			{ sniff_fd[0], POLLIN, 0 }, { sniff_fd[1], POLLIN, 0 },
		};

		poll(pf, 2, 50);
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
				build(k, t, d, g);
				mutated += mutate(k);
			}
			fixed += protect(k, now);
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
		pause_us = drops_pace(pause_us);
		if (pause_us && !dry) {
			struct timespec ts = {
				.tv_sec = pause_us / 1000000,
				.tv_nsec = (long)(pause_us % 1000000) * 1000,
			};

			nanosleep(&ts, NULL);
		}
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
	if (drops_fd >= 0)
		printf("dropped on the way %llu\n", drops_total);
	for (i = 0; i < nr_dirs; i++)
		printf("direction %s %u -> %u epoch 0x%04x hi_psn %u ack_psn %u tags 0x%08x 0x%08x%s\n",
		       dirs[i].local ? "outgoing" : "incoming", dirs[i].sport,
		       dirs[i].dport, dirs[i].epoch, dirs[i].hi_psn,
		       dirs[i].ack_psn, dirs[i].tag_s, dirs[i].tag_r,
		       is_victim(dirs[i].sport, dirs[i].dport) ? " victim" :
		       " protected");
	for (i = 0; sink.port && i < SINK_PORTS; i++)
		if (sink.ours[i])
			printf("sink %u -> %u tags 0x%08x 0x%08x\n",
			       SINK_BASE + i, sink.port, sink.ours[i],
			       sink.theirs[i]);
	printf("digest %016llx\n", (unsigned long long)digest);
	/* Said before the sockets close: a packet socket's release waits
	 * for an RCU grace period, which a loaded kernel may put off.
	 */
	fflush(stdout);
	return sent == count ? 0 : 1;
}
