// SPDX-License-Identifier: GPL-2.0
/*
 * fanout: one mrc message socket sending to many destinations, or the
 * one receiving from them all, for the scale benchmark
 * (tools/bench/scale.sh):
 *
 *   fanout send --first ADDR --count N --port P [--ports K]
 *               [--size BYTES] [--seconds T] [--buf BYTES]
 *               [--timeout SECS]
 *   fanout sink --port P [--buf BYTES] [--timeout SECS]
 *
 * send: the destinations are N consecutive IPv4 addresses from --first,
 * each at the K mrc ports from --port (K = 1 unless told): a queue pair
 * to each of the N x K, sharing their address's destination state.  A
 * first pass sends one message to each (its first message opens the
 * queue pair, and the address's state with the first), says so on
 * stderr ("fanout: first pass done"), then for --seconds (0: none)
 * messages go to each in turn, round-robin.
 * Every message is --size bytes (at least 12): a magic word, the queue
 * pair's index and the port it is sent to, then a pattern of the index.
 * A send blocks while the socket's send buffer (SO_SNDBUF --buf, which
 * the kernel doubles) is full, so the rate is what the socket takes in
 * and its peers acknowledge, the buffer's worth apart.  Prints
 * one JSON object: dests (N), ports (K), size, first_s (the first
 * pass's seconds), sent (messages of the timed part), seconds (its
 * length), errors.
 *
 * sink: a socket bound to --port on every address; receives until
 * SIGTERM or SIGINT, or --timeout seconds with nothing, and checks each
 * message.  Prints one JSON object: received, bytes, errors (messages
 * whose magic, port or pattern was wrong, or of the wrong size).
 *
 * --timeout: seconds a send or the sink waits at most (0: no limit;
 * default 30).  The addresses must not wrap past 255.255.255.255.
 * Exit status 0 unless a call failed or a message was wrong.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
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

#define MAGIC	0x6d72634eu	/* "mrcN" */

static struct {
	bool send;
	struct in_addr first;
	unsigned long count;
	unsigned int port;
	unsigned int ports;
	size_t size;
	unsigned long seconds;
	unsigned long buf;
	unsigned long timeout;
} o = { .ports = 1, .size = 64, .buf = 1 << 20, .timeout = 30 };

static volatile sig_atomic_t stop;

static void die(const char *what)
{
	fprintf(stderr, "fanout: %s: %s\n", what, strerror(errno));
	exit(2);
}

static void usage(void)
{
	fprintf(stderr,
		"usage: fanout send --first ADDR --count N --port P [--ports K]\n"
		"                   [--size BYTES] [--seconds T] [--buf BYTES]\n"
		"                   [--timeout SECS]\n"
		"       fanout sink --port P [--buf BYTES] [--timeout SECS]\n");
	exit(2);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static unsigned long num(const char *s, unsigned long max)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno || end == s || *end || v > max) {
		fprintf(stderr, "fanout: bad number %s (0..%lu)\n", s, max);
		exit(2);
	}
	return v;
}

/* The message to queue pair @i at @port: the magic, the index and the
 * port, then bytes that follow from the index, so that a message
 * delivered to another port's socket, cut or mixed with another shows.
 */
static void fill(uint8_t *b, uint32_t i, uint32_t port)
{
	uint32_t w[3] = { MAGIC, i, port };
	size_t k;

	memcpy(b, w, sizeof(w));
	for (k = sizeof(w); k < o.size; k++)
		b[k] = (uint8_t)(i * 131 + k);
}

static bool check(const uint8_t *b, size_t n)
{
	uint32_t w[3];
	size_t k;

	if (n != o.size)
		return false;
	memcpy(w, b, sizeof(w));
	if (w[0] != MAGIC || w[2] != o.port)
		return false;
	for (k = sizeof(w); k < n; k++)
		if (b[k] != (uint8_t)(w[1] * 131 + k))
			return false;
	return true;
}

static int open_socket(unsigned int port, time_t timeout)
{
	struct sockaddr_in me = { .sin_family = AF_INET };
	struct timeval tv = { .tv_sec = timeout };
	int fd, v = (int)o.buf;

	fd = socket(AF_INET, SOCK_DGRAM, IPPROTO_MRC);
	if (fd < 0)
		die("socket(IPPROTO_MRC)");
	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &v, sizeof(v)) &&
	    setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &v, sizeof(v)))
		die("SO_SNDBUF");
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &v, sizeof(v)) &&
	    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, sizeof(v)))
		die("SO_RCVBUF");
	/* Neither a send nor a receive waits past @timeout. */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
	    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)))
		die("SO_RCVTIMEO/SO_SNDTIMEO");
	me.sin_port = htons(port);
	if (port && bind(fd, (struct sockaddr *)&me, sizeof(me)))
		die("bind");
	return fd;
}

/* To the @i-th queue pair: address i / K, port i % K from --port. */
static int send_one(int fd, uint8_t *b, unsigned long i)
{
	struct sockaddr_in to = {
		.sin_family = AF_INET,
		.sin_port = htons(o.port + i % o.ports),
		.sin_addr.s_addr = htonl(ntohl(o.first.s_addr) + i / o.ports),
	};

	fill(b, (uint32_t)i, o.port + i % o.ports);
	if (sendto(fd, b, o.size, 0, (struct sockaddr *)&to,
		   sizeof(to)) == (ssize_t)o.size)
		return 0;
	fprintf(stderr, "fanout: sendto %s: %s\n", inet_ntoa(to.sin_addr),
		strerror(errno));
	return -1;
}

static int run_send(void)
{
	uint8_t *b = malloc(o.size);
	unsigned long i, n = o.count * o.ports, sent = 0, errors = 0;
	double t0, t1, t2 = 0;
	int fd;

	if (!b)
		die("malloc");
	fd = open_socket(0, (time_t)o.timeout);
	t0 = now_s();
	for (i = 0; i < n && !errors; i++)
		errors += !!send_one(fd, b, i);
	t1 = now_s();
	fprintf(stderr, "fanout: first pass done\n");
	if (o.seconds && !errors) {
		double end = t1 + (double)o.seconds;

		for (i = 0;; i = (i + 1) % n) {
			if (send_one(fd, b, i)) {
				errors++;
				break;
			}
			sent++;
			/* The clock is read every 64 sends: cheap enough. */
			if (!(sent % 64) && (t2 = now_s()) >= end)
				break;
		}
	}
	if (!t2)
		t2 = t1;
	printf("{\"dests\": %lu, \"ports\": %u, \"size\": %zu, "
	       "\"first_s\": %.6f, \"sent\": %lu, \"seconds\": %.6f, "
	       "\"errors\": %lu}\n",
	       o.count, o.ports, o.size, t1 - t0, sent, t2 - t1, errors);
	close(fd);
	free(b);
	return errors ? 1 : 0;
}

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int run_sink(void)
{
	struct sigaction sa = { .sa_handler = on_signal };
	unsigned long received = 0, errors = 0, idle = 0;
	unsigned long long bytes = 0;
	uint8_t *b = malloc(o.size + 1);
	int fd, ret = 0;

	if (!b)
		die("malloc");
	/* No SA_RESTART: the signal ends the recv() it interrupts. */
	if (sigaction(SIGTERM, &sa, NULL) || sigaction(SIGINT, &sa, NULL))
		die("sigaction");
	/* A receive waits a second at most, so that a signal that came
	 * between the test of stop and recv() is seen a second late.
	 */
	fd = open_socket(o.port, 1);
	/* Ready: the script waits for this line on stderr. */
	fprintf(stderr, "fanout: listening on %u\n", o.port);
	while (!stop && (!o.timeout || idle < o.timeout)) {
		ssize_t n = recv(fd, b, o.size + 1, MSG_TRUNC);

		if (n < 0) {
			if (errno == EAGAIN) {
				idle++;
				continue;
			}
			if (errno == EINTR)
				continue;
			fprintf(stderr, "fanout: recv: %s\n", strerror(errno));
			ret = 2;
			break;
		}
		idle = 0;
		received++;
		bytes += (unsigned long long)n;
		errors += !check(b, (size_t)n);
	}
	/* Told to stop: what is queued already counts. */
	while (!ret) {
		ssize_t n = recv(fd, b, o.size + 1, MSG_TRUNC | MSG_DONTWAIT);

		if (n < 0)
			break;
		received++;
		bytes += (unsigned long long)n;
		errors += !check(b, (size_t)n);
	}
	printf("{\"received\": %lu, \"bytes\": %llu, \"errors\": %lu}\n",
	       received, bytes, errors);
	close(fd);
	free(b);
	return ret ? ret : errors ? 1 : 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "first", required_argument, NULL, 'f' },
		{ "count", required_argument, NULL, 'n' },
		{ "port", required_argument, NULL, 'p' },
		{ "ports", required_argument, NULL, 'k' },
		{ "size", required_argument, NULL, 's' },
		{ "seconds", required_argument, NULL, 't' },
		{ "buf", required_argument, NULL, 'b' },
		{ "timeout", required_argument, NULL, 'T' },
		{ NULL, 0, NULL, 0 },
	};
	bool have_first = false;
	int c;

	if (argc < 2)
		usage();
	if (!strcmp(argv[1], "send"))
		o.send = true;
	else if (strcmp(argv[1], "sink"))
		usage();
	optind = 2;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			if (inet_pton(AF_INET, optarg, &o.first) != 1)
				usage();
			have_first = true;
			break;
		case 'n':
			o.count = num(optarg, 1 << 20);
			break;
		case 'p':
			o.port = (unsigned int)num(optarg, 65535);
			break;
		case 'k':
			o.ports = (unsigned int)num(optarg, 64);
			break;
		case 's':
			o.size = num(optarg, 1 << 20);
			break;
		case 't':
			o.seconds = num(optarg, 3600);
			break;
		case 'b':
			o.buf = num(optarg, 1UL << 30);
			break;
		case 'T':
			o.timeout = num(optarg, 3600);
			break;
		default:
			usage();
		}
	}
	if (optind != argc || !o.port || !o.ports ||
	    o.port + o.ports - 1 > 65535 || o.size < 12 ||
	    (o.send && (!have_first || !o.count ||
			(uint32_t)(ntohl(o.first.s_addr) + (o.count - 1)) <
			ntohl(o.first.s_addr))))
		usage();
	return o.send ? run_send() : run_sink();
}
