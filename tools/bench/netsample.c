// SPDX-License-Identifier: GPL-2.0
/*
 * netsample: the receive counters of network devices, sampled every few
 * milliseconds, for the failover benchmark (tools/bench/failover.sh).
 *
 *   netsample [-i MS] [-d SECONDS] NETNS:DEV...
 *
 * Every MS milliseconds (default 10) it prints one line:
 *
 *   T_US RX_BYTES RX_PACKETS [RX_BYTES RX_PACKETS]...
 *
 * T_US is CLOCK_REALTIME in microseconds, the clock bash's $EPOCHREALTIME
 * reads, so a script can place its own events among the samples; the
 * pairs are the devices' rx_bytes and rx_packets, in the order given.
 * NETNS is a name under /run/netns, or "." for the caller's namespace: the
 * devices may be in different namespaces.
 *
 * A shell loop cannot do this under an emulated CPU: each process it
 * starts costs tens of milliseconds, and its sleeps come late.  Here one
 * process keeps one /proc/self/net/dev open per namespace (entering each
 * namespace only to open it: the file stays bound to it) and re-reads it
 * at absolute times on CLOCK_MONOTONIC, so a late wake-up does not shift
 * the samples after it.  Ticks missed altogether are skipped, not made up.
 *
 * It stops after SECONDS (default: on SIGINT or SIGTERM); then, on
 * stderr, how many samples it took and how late they came.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_DEVS	16
#define BUF_SIZE	16384

struct dev {
	const char *spec;	/* NETNS:DEV as given */
	const char *name;	/* DEV */
	int fd;			/* /proc/self/net/dev of its namespace */
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: netsample [-i MS] [-d SECONDS] NETNS:DEV...\n"
		"  every MS ms (default 10): T_US then RX_BYTES RX_PACKETS of\n"
		"  each DEV; NETNS a name under /run/netns, or . for this one\n");
	exit(2);
}

static uint64_t ns_of(const struct timespec *ts)
{
	return (uint64_t)ts->tv_sec * 1000000000ull + ts->tv_nsec;
}

static uint64_t now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return ns_of(&ts);
}

/* Open /proc/self/net/dev as seen from namespace @ns ("." for ours). */
static int open_netdev(const char *ns, int self_ns)
{
	char path[256];
	int nsfd, fd;

	if (strcmp(ns, ".") != 0) {
		snprintf(path, sizeof(path), "/run/netns/%s", ns);
		nsfd = open(path, O_RDONLY | O_CLOEXEC);
		if (nsfd < 0 || setns(nsfd, CLONE_NEWNET) < 0) {
			fprintf(stderr, "netsample: netns %s: %s\n", ns,
				strerror(errno));
			exit(1);
		}
		close(nsfd);
	}
	fd = open("/proc/self/net/dev", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fprintf(stderr, "netsample: /proc/self/net/dev in %s: %s\n",
			ns, strerror(errno));
		exit(1);
	}
	if (strcmp(ns, ".") != 0 && setns(self_ns, CLONE_NEWNET) < 0) {
		fprintf(stderr, "netsample: back to our netns: %s\n",
			strerror(errno));
		exit(1);
	}
	return fd;
}

/*
 * The rx_bytes and rx_packets of @name in /proc/net/dev text @buf: the
 * first two numbers after "NAME:".  Returns 0, or -1 if it is not there.
 */
static int parse_dev(const char *buf, const char *name, unsigned long long *b,
		     unsigned long long *p)
{
	size_t len = strlen(name);
	const char *l = buf;
	char *end;

	while (l && *l) {
		while (*l == ' ')
			l++;
		if (!strncmp(l, name, len) && l[len] == ':') {
			l += len + 1;
			*b = strtoull(l, &end, 10);
			*p = strtoull(end, NULL, 10);
			return 0;
		}
		l = strchr(l, '\n');
		if (l)
			l++;
	}
	return -1;
}

int main(int argc, char **argv)
{
	static char buf[BUF_SIZE];
	struct dev devs[MAX_DEVS];
	uint64_t interval, dur = 0, start, next, now, late, max_late = 0;
	unsigned long nsamples = 0, nlate = 0, nskipped = 0;
	struct sigaction sa = { .sa_handler = on_signal };
	int ndevs = 0, self_ns, opt, i, j;

	interval = 10 * 1000000ull;
	while ((opt = getopt(argc, argv, "i:d:h")) != -1) {
		switch (opt) {
		case 'i':
			interval = strtoull(optarg, NULL, 10) * 1000000ull;
			if (!interval)
				usage();
			break;
		case 'd':
			dur = strtoull(optarg, NULL, 10) * 1000000000ull;
			break;
		default:
			usage();
		}
	}
	if (optind >= argc || argc - optind > MAX_DEVS)
		usage();

	self_ns = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (self_ns < 0) {
		perror("netsample: /proc/self/ns/net");
		return 1;
	}
	for (i = optind; i < argc; i++) {
		struct dev *d = &devs[ndevs++];
		char *colon, *ns = strdup(argv[i]);

		colon = ns ? strchr(ns, ':') : NULL;
		if (!colon || !colon[1])
			usage();
		*colon = '\0';
		d->spec = argv[i];
		d->name = colon + 1;
		/* One open file per namespace is enough. */
		d->fd = -1;
		for (j = 0; j < ndevs - 1; j++)
			if (!strncmp(devs[j].spec, argv[i], colon - ns + 1))
				d->fd = devs[j].fd;
		if (d->fd < 0)
			d->fd = open_netdev(ns, self_ns);
	}

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* Lines go out in blocks: a write per sample would cost more. */
	setvbuf(stdout, NULL, _IOFBF, 1 << 16);

	start = now_ns(CLOCK_MONOTONIC);
	next = start;
	while (!stop && (!dur || next - start < dur)) {
		struct timespec ts = {
			.tv_sec = next / 1000000000ull,
			.tv_nsec = next % 1000000000ull,
		};
		int fd = -1;
		ssize_t n = 0;

		if (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts,
				    NULL) == EINTR)
			continue;
		now = now_ns(CLOCK_MONOTONIC);
		late = now - next;
		if (late > max_late)
			max_late = late;
		if (late > interval / 2)
			nlate++;
		printf("%" PRIu64, now_ns(CLOCK_REALTIME) / 1000);
		for (i = 0; i < ndevs; i++) {
			unsigned long long b = 0, p = 0;

			/* Devices of one namespace share a read. */
			if (devs[i].fd != fd) {
				fd = devs[i].fd;
				n = pread(fd, buf, sizeof(buf) - 1, 0);
				buf[n > 0 ? n : 0] = '\0';
			}
			if (parse_dev(buf, devs[i].name, &b, &p) < 0) {
				fprintf(stderr, "netsample: no device %s\n",
					devs[i].spec);
				return 1;
			}
			printf(" %llu %llu", b, p);
		}
		putchar('\n');
		nsamples++;
		next += interval;
		/* Came later than a whole tick: skip the ticks missed. */
		now = now_ns(CLOCK_MONOTONIC);
		if (now > next + interval) {
			nskipped += (now - next) / interval;
			next += (now - next) / interval * interval;
		}
	}
	fflush(stdout);
	fprintf(stderr,
		"netsample: %lu samples every %" PRIu64 " ms, %lu over half a tick late, %lu ticks skipped, latest %.1f ms\n",
		nsamples, interval / 1000000, nlate, nskipped,
		max_late / 1e6);
	return 0;
}
