// SPDX-License-Identifier: GPL-2.0
/*
 * collective: one rank of a training cluster's exchange, for the
 * benchmarks (tools/bench/collective.sh).  Every rank runs one, each in
 * its host's namespace, all given the same host list:
 *
 *   collective --rank I --hosts A0,A1,... --start-at NS
 *              [--proto mrc|tcp] [--pattern a2a|ring] [--rounds R]
 *              [--size BYTES] [--port P] [--buf BYTES] [--timeout SECS]
 *
 * A round: all-to-all (a2a), each rank sends one message of --size bytes
 * to every other rank and receives one from each; ring, each sends one to
 * the next rank and receives one from the one before.  A rank starts its
 * next round once it has received every message of this one and its own
 * are sent, so a round's end over all ranks is the latest of theirs: the
 * ranks share one clock (CLOCK_REALTIME, namespaces of one machine) and
 * the benchmark takes the rounds' times from the ends each rank prints.
 *
 * Every message carries a header (magic, sender's rank, round) and a
 * payload whose bytes follow from both; the receiver checks all of it.
 * mrc: one message socket, sendto() each message, recvfrom() them whole.
 * TCP: a connection between every two ranks (rank i connects to every
 * rank above it at --start-at, having listened from its start), messages
 * of exactly header + size bytes, written and read without blocking; its
 * buffers left to the kernel's autotuning (--buf is mrc's).
 *
 * Prints one JSON object: rank, proto, pattern, size, rounds, start_ns
 * (when the first round began here), end_ns (an array: each round's end
 * here), received, errors (messages whose header or payload was wrong).
 * Exit status 0 only if every round completed with no error.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <linux/mrc.h>

#define MAX_RANKS	16
#define HDR_MAGIC	0x6d726343u	/* "mrcC" */

struct hdr {
	uint32_t magic;
	uint32_t rank;
	uint32_t round;
	uint32_t len;
};

static struct {
	int rank, nranks, rounds, port, timeout;
	size_t size, buf;
	bool tcp, ring;
	uint64_t start_at;
	struct sockaddr_in addr[MAX_RANKS];
} o = {
	.rounds = 20, .port = 7100, .timeout = 30, .size = 1 << 20,
	.buf = 16 << 20,
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static uint64_t *ends;		/* [-1]: the start; [r]: round r's end */
static int *got;		/* messages received, per round */
static int done;		/* rounds completed */
static long received, errors;

/* The report: what was done, also when a failure cut the run short. */
static void report(void)
{
	int r;

	if (!ends)
		return;
	printf("{\"rank\":%d,\"proto\":\"%s\",\"pattern\":\"%s\","
	       "\"size\":%zu,\"rounds\":%d,\"start_ns\":%llu,\"end_ns\":[",
	       o.rank, o.tcp ? "tcp" : "mrc", o.ring ? "ring" : "a2a",
	       o.size, o.rounds, (unsigned long long)ends[-1]);
	for (r = 0; r < done; r++)
		printf("%s%llu", r ? "," : "", (unsigned long long)ends[r]);
	printf("],\"received\":%ld,\"errors\":%ld}\n", received, errors);
	fflush(stdout);
}

static void fail(const char *what)
{
	fprintf(stderr, "collective rank %d: %s (round %d)\n", o.rank, what,
		done + 1);
	report();
	exit(1);
}

static void die(const char *what)
{
	char m[160];

	snprintf(m, sizeof(m), "%s: %s", what, strerror(errno));
	fail(m);
}

/* The payload's 64-bit word i of the message from rank r in round n (a
 * word at a time: under TCG a byte at a time would cost the round tens
 * of ms).  A last partial word takes the low bytes of its value.
 */
static uint64_t pat(uint32_t r, uint32_t n, size_t i)
{
	uint64_t x = ((uint64_t)r << 56) ^ ((uint64_t)n << 32) ^ i;

	return x * 0x9e3779b97f4a7c15ull;
}

static void fill(uint8_t *m, uint32_t round)
{
	struct hdr h = { HDR_MAGIC, o.rank, round, (uint32_t)o.size };
	size_t i;

	memcpy(m, &h, sizeof(h));
	for (i = 0; i * 8 < o.size; i++) {
		uint64_t w = pat(o.rank, round, i);
		size_t n = o.size - i * 8 < 8 ? o.size - i * 8 : 8;

		memcpy(m + sizeof(h) + i * 8, &w, n);
	}
}

/* A received message's round, or -1 if its header or payload is wrong
 * (from is the rank it must come from, -1 if any).
 */
static int check(const uint8_t *m, size_t len, int from)
{
	struct hdr h;
	size_t i;

	if (len != sizeof(h) + o.size)
		return -1;
	memcpy(&h, m, sizeof(h));
	if (h.magic != HDR_MAGIC || h.len != o.size ||
	    h.rank >= (uint32_t)o.nranks || h.rank == (uint32_t)o.rank ||
	    (from >= 0 && h.rank != (uint32_t)from) ||
	    h.round >= (uint32_t)o.rounds)
		return -1;
	for (i = 0; i * 8 < o.size; i++) {
		uint64_t w = pat(h.rank, h.round, i);
		size_t n = o.size - i * 8 < 8 ? o.size - i * 8 : 8;

		if (memcmp(m + sizeof(h) + i * 8, &w, n))
			return -1;
	}
	return (int)h.round;
}

/* Does rank i send to rank j each round? */
static bool sends_to(int i, int j)
{
	if (i == j)
		return false;
	return o.ring ? j == (i + 1) % o.nranks : true;
}

static int expected(void)
{
	return o.ring ? 1 : o.nranks - 1;
}

static void wait_start(void)
{
	uint64_t t = now_ns();
	struct timespec ts;

	if (o.start_at <= t)
		return;
	ts.tv_sec = (o.start_at - t) / 1000000000ull;
	ts.tv_nsec = (o.start_at - t) % 1000000000ull;
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static void setbufs(int fd)
{
	int v = (int)o.buf;

	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &v, sizeof(v)) &&
	    setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &v, sizeof(v)))
		die("SO_SNDBUF");
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &v, sizeof(v)) &&
	    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, sizeof(v)))
		die("SO_RCVBUF");
}

static void count(int round)
{
	if (round < 0) {
		errors++;
		return;
	}
	got[round]++;
	received++;
}

static void run_mrc(void)
{
	size_t len = sizeof(struct hdr) + o.size;
	uint8_t *out = malloc(len), *in = malloc(len);
	struct sockaddr_in me = { .sin_family = AF_INET };
	struct timeval tv = { .tv_sec = o.timeout };
	int fd, r, j;

	if (!out || !in)
		fail("out of memory");
	fd = socket(AF_INET, SOCK_DGRAM, IPPROTO_MRC);
	if (fd < 0)
		die("socket(IPPROTO_MRC)");
	setbufs(fd);
	/* Neither a send nor a receive waits past --timeout. */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
	    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)))
		die("SO_RCVTIMEO/SO_SNDTIMEO");
	me.sin_port = htons(o.port);
	me.sin_addr = o.addr[o.rank].sin_addr;
	if (bind(fd, (struct sockaddr *)&me, sizeof(me)))
		die("bind");
	wait_start();
	ends[-1] = now_ns();
	for (r = 0; r < o.rounds; r++) {
		fill(out, r);
		for (j = 0; j < o.nranks; j++) {
			if (!sends_to(o.rank, j))
				continue;
			if (sendto(fd, out, len, 0, (struct sockaddr *)&o.addr[j],
				   sizeof(o.addr[j])) != (ssize_t)len)
				die("sendto");
		}
		while (got[r] < expected()) {
			ssize_t n = recv(fd, in, len, MSG_TRUNC);

			if (n < 0)
				die("recv");
			count(check(in, (size_t)n, o.ring ?
				    (o.rank + o.nranks - 1) % o.nranks : -1));
		}
		ends[r] = now_ns();
		done = r + 1;
	}
	close(fd);
	free(out);
	free(in);
}

/* TCP: one connection a peer, each with its message out and in. */
struct conn {
	int fd;
	size_t out_left;	/* bytes of this round's message left to send */
	size_t in_have;		/* bytes of the message coming in */
	uint8_t *in;
	int nin;		/* messages received from this peer */
	bool eof;		/* it closed, having sent them all */
};

static void tcp_mesh(struct conn *c)
{
	struct sockaddr_in me = { .sin_family = AF_INET };
	struct timeval tv = { .tv_sec = o.timeout };
	int lfd, j, one = 1, accepted = 0;
	uint64_t give_up;

	lfd = socket(AF_INET, SOCK_STREAM, 0);
	if (lfd < 0)
		die("socket");
	if (setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)))
		die("SO_REUSEADDR");
	me.sin_port = htons(o.port);
	me.sin_addr = o.addr[o.rank].sin_addr;
	if (bind(lfd, (struct sockaddr *)&me, sizeof(me)) || listen(lfd, 64))
		die("bind/listen");
	wait_start();
	give_up = now_ns() + (uint64_t)o.timeout * 1000000000ull;
	for (j = o.rank + 1; j < o.nranks; j++) {
		uint32_t id = o.rank;

		for (;;) {
			/* connect() gives up after a second (SO_SNDTIMEO), not
			 * after the minutes of SYN retries, to try again.
			 */
			struct timeval one_s = { .tv_sec = 1 };

			c[j].fd = socket(AF_INET, SOCK_STREAM, 0);
			if (c[j].fd < 0)
				die("socket");
			if (setsockopt(c[j].fd, SOL_SOCKET, SO_SNDTIMEO, &one_s,
				       sizeof(one_s)))
				die("SO_SNDTIMEO");
			if (!connect(c[j].fd, (struct sockaddr *)&o.addr[j],
				     sizeof(o.addr[j])))
				break;
			if (now_ns() > give_up)
				die("connect");
			close(c[j].fd);
			usleep(100000);
		}
		if (write(c[j].fd, &id, sizeof(id)) != sizeof(id))
			die("write rank");
	}
	while (accepted < o.rank) {
		struct pollfd pl = { .fd = lfd, .events = POLLIN };
		uint32_t id;
		ssize_t n;
		int fd;

		if (poll(&pl, 1, o.timeout * 1000) <= 0)
			fail("no connection from a lower rank (poll)");
		fd = accept(lfd, NULL, NULL);
		if (fd < 0)
			die("accept");
		if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)))
			die("SO_RCVTIMEO");
		n = read(fd, &id, sizeof(id));
		if (n < 0)
			die("read rank id");
		if (n != sizeof(id) || id >= (uint32_t)o.rank || c[id].fd >= 0)
			fail("a connection that is no lower rank's");
		c[id].fd = fd;
		accepted++;
	}
	close(lfd);
	for (j = 0; j < o.nranks; j++)
		if (c[j].fd >= 0 && fcntl(c[j].fd, F_SETFL, O_NONBLOCK))
			die("O_NONBLOCK");
}

static void run_tcp(void)
{
	size_t len = sizeof(struct hdr) + o.size;
	struct conn c[MAX_RANKS];
	struct pollfd p[MAX_RANKS];
	uint8_t *out = malloc(len);
	int r, j, n;

	if (!out)
		fail("out of memory");
	for (j = 0; j < o.nranks; j++) {
		c[j] = (struct conn){ .fd = -1 };
		if (j != o.rank && !(c[j].in = malloc(len)))
			fail("out of memory");
	}
	tcp_mesh(c);
	ends[-1] = now_ns();
	for (r = 0; r < o.rounds; r++) {
		bool sending;

		fill(out, r);
		for (j = 0; j < o.nranks; j++)
			c[j].out_left = sends_to(o.rank, j) ? len : 0;
		do {
			sending = false;
			for (j = 0, n = 0; j < o.nranks; j++) {
				if (j == o.rank)
					continue;
				/* A negative fd: poll() passes over it. */
				p[n].fd = c[j].eof ? -1 : c[j].fd;
				p[n].events = POLLIN |
					(c[j].out_left ? POLLOUT : 0);
				n++;
			}
			if (poll(p, n, o.timeout * 1000) <= 0)
				fail("no progress (poll)");
			for (j = 0, n = 0; j < o.nranks; j++) {
				struct conn *k = &c[j];
				ssize_t m;

				if (j == o.rank)
					continue;
				if ((p[n].revents & POLLOUT) && k->out_left) {
					m = write(k->fd, out + len - k->out_left,
						  k->out_left);
					if (m < 0 && errno != EAGAIN)
						die("write");
					if (m > 0)
						k->out_left -= m;
				}
				if (p[n].revents & (POLLIN | POLLERR | POLLHUP)) {
					m = read(k->fd, k->in + k->in_have,
						 len - k->in_have);
					if (m < 0 && errno != EAGAIN)
						die("read");
					if (m == 0 && (k->in_have ||
						k->nin < (sends_to(j, o.rank) ?
							  o.rounds : 0)))
						fail("a peer closed early");
					if (m == 0)
						k->eof = true;
					if (m > 0 && (k->in_have += m) == len) {
						count(check(k->in, len, j));
						k->in_have = 0;
						k->nin++;
					}
				}
				if (k->out_left)
					sending = true;
				n++;
			}
		} while (sending || got[r] < expected());
		ends[r] = now_ns();
		done = r + 1;
	}
	for (j = 0; j < o.nranks; j++) {
		if (c[j].fd >= 0)
			close(c[j].fd);
		free(c[j].in);
	}
	free(out);
}

static void usage(void)
{
	fputs("usage: collective --rank I --hosts A0,A1,... --start-at NS\n"
	      "       [--proto mrc|tcp] [--pattern a2a|ring] [--rounds R]\n"
	      "       [--size BYTES] [--port P] [--buf BYTES] [--timeout S]\n",
	      stderr);
	exit(2);
}

static void parse_hosts(char *s)
{
	char *a;

	for (a = strtok(s, ","); a; a = strtok(NULL, ",")) {
		if (o.nranks == MAX_RANKS)
			usage();
		o.addr[o.nranks].sin_family = AF_INET;
		if (inet_pton(AF_INET, a, &o.addr[o.nranks].sin_addr) != 1)
			usage();
		o.nranks++;
	}
}

/* A whole decimal number in [min, max], or usage(). */
static long long num(const char *s, long long min, long long max)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (errno || end == s || *end || v < min || v > max)
		usage();
	return v;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "rank", required_argument, NULL, 'r' },
		{ "hosts", required_argument, NULL, 'h' },
		{ "start-at", required_argument, NULL, 'a' },
		{ "proto", required_argument, NULL, 'p' },
		{ "pattern", required_argument, NULL, 'P' },
		{ "rounds", required_argument, NULL, 'n' },
		{ "size", required_argument, NULL, 's' },
		{ "port", required_argument, NULL, 'o' },
		{ "buf", required_argument, NULL, 'b' },
		{ "timeout", required_argument, NULL, 't' },
		{ NULL, 0, NULL, 0 }
	};
	uint64_t *e;
	int c, r;

	o.rank = -1;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'r':
			o.rank = num(optarg, 0, MAX_RANKS - 1);
			break;
		case 'h':
			parse_hosts(optarg);
			break;
		case 'a':
			o.start_at = num(optarg, 0, LLONG_MAX);
			break;
		case 'p':
			if (strcmp(optarg, "tcp") && strcmp(optarg, "mrc"))
				usage();
			o.tcp = !strcmp(optarg, "tcp");
			break;
		case 'P':
			if (strcmp(optarg, "ring") && strcmp(optarg, "a2a"))
				usage();
			o.ring = !strcmp(optarg, "ring");
			break;
		case 'n':
			o.rounds = num(optarg, 1, 1000000);
			break;
		case 's':
			o.size = num(optarg, 1, 64 << 20);
			break;
		case 'o':
			o.port = num(optarg, 1, 65535);
			break;
		case 'b':
			o.buf = num(optarg, 4096, INT_MAX);
			break;
		case 't':
			o.timeout = num(optarg, 1, 3600);
			break;
		default:
			usage();
		}
	}
	if (optind != argc || o.nranks < 2 || o.rank < 0 ||
	    o.rank >= o.nranks)
		usage();
	/* A peer that gave up resets its connections: a write to one
	 * must fail, and this rank report, not die of the signal.
	 */
	signal(SIGPIPE, SIG_IGN);
	for (r = 0; r < o.nranks; r++)
		o.addr[r].sin_port = htons(o.port);
	e = calloc(o.rounds + 1, sizeof(*e));
	got = calloc(o.rounds, sizeof(*got));
	if (!e || !got)
		fail("out of memory");
	ends = e + 1;
	if (o.tcp)
		run_tcp();
	else
		run_mrc();
	report();
	return errors ? 1 : 0;
}
