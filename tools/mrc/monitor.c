// SPDX-License-Identifier: GPL-2.0
/*
 * mrc(8): "monitor", the packet events of the namespace as they happen.
 *
 * The family's multicast group "monitor" carries one MRC_CMD_MONITOR
 * message per event, an MRC_A_MON nest of MRC_MON_A_* attributes.  Any
 * user may join it.  Each event is printed as one line, flushed at once,
 * until COUNT events or SIGINT or SIGTERM; then the events already queued
 * to the socket are printed too, the group having been left first.
 *
 * The kernel never waits for a listener: when the socket's receive buffer
 * is full it drops events and the next read fails with ENOBUFS, which is
 * reported and survived.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include <linux/mrc.h>

#include "cli.h"
#include "nl.h"
#include "output.h"
#include "params.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* The receive buffer asked for: bursts at MRC_MON_PER_SEC fit. */
#define MRC_MON_RCVBUF		(4 << 20)

/* Names of enum mrc_mon_event, in plain output and in JSON. */
static const char * const mrc_mon_event_names[__MRC_MON_MAX] = {
	[MRC_MON_DATA_TX]	= "data_tx",
	[MRC_MON_DATA_RTX]	= "data_rtx",
	[MRC_MON_DATA_RX]	= "data_rx",
	[MRC_MON_ACK_TX]	= "ack_tx",
	[MRC_MON_ACK_RX]	= "ack_rx",
	[MRC_MON_SACK_TX]	= "sack_tx",
	[MRC_MON_SACK_RX]	= "sack_rx",
	[MRC_MON_NACK_TX]	= "nack_tx",
	[MRC_MON_NACK_RX]	= "nack_rx",
	[MRC_MON_PROBE_TX]	= "probe_tx",
	[MRC_MON_PROBE_RX]	= "probe_rx",
	[MRC_MON_PROBE_RESP_TX]	= "probe_resp_tx",
	[MRC_MON_PROBE_RESP_RX]	= "probe_resp_rx",
};

/* How each attribute of the nest is read; unlisted ones are skipped. */
static const enum mnl_attr_data_type mrc_mon_types[MRC_MON_A_MAX + 1] = {
	[MRC_MON_A_EVENT]	= MNL_TYPE_U32,
	[MRC_MON_A_QPN]		= MNL_TYPE_U32,
	[MRC_MON_A_EV]		= MNL_TYPE_U16,
	[MRC_MON_A_PSN]		= MNL_TYPE_U32,
	[MRC_MON_A_ADDR]	= MNL_TYPE_BINARY,
	[MRC_MON_A_TIME_NS]	= MNL_TYPE_U64,
};

/* One event, as its MRC_A_MON nest describes it. */
struct mrc_mon_rec {
	uint64_t val[MRC_MON_A_MAX + 1];	/* u16, u32 and u64 attributes */
	bool has[MRC_MON_A_MAX + 1];
	uint8_t addr[16];		/* MRC_MON_A_ADDR, 4 or 16 bytes */
	unsigned int addr_len;
};

/* The state of one monitor session. */
struct mrc_mon {
	const struct mrc_opts *opts;
	uint16_t family;
	uint32_t count;		/* events to print, 0 for no limit */
	uint32_t printed;
	bool started;		/* t0 is the first event's time */
	uint64_t t0;
	bool out_err;		/* writing the output failed */
};

/* The signals that end a session. */
static const int mrc_mon_sigs[] = { SIGINT, SIGTERM };
static volatile sig_atomic_t mrc_mon_stop;

static void mrc_mon_signal(int sig)
{
	(void)sig;
	mrc_mon_stop = 1;
}

static int mrc_mon_attr_cb(const struct nlattr *attr, void *data)
{
	struct mrc_mon_rec *e = data;
	uint16_t type = mnl_attr_get_type(attr);
	enum mnl_attr_data_type t;
	size_t len;

	/* Padding, and attributes of a newer kernel, are skipped. */
	if (type > MRC_MON_A_MAX || !mrc_mon_types[type])
		return MNL_CB_OK;
	t = mrc_mon_types[type];
	if (mnl_attr_validate(attr, t) < 0)
		goto bad;
	switch (t) {
	case MNL_TYPE_U16:
		e->val[type] = mnl_attr_get_u16(attr);
		break;
	case MNL_TYPE_U32:
		e->val[type] = mnl_attr_get_u32(attr);
		break;
	case MNL_TYPE_U64:
		e->val[type] = mnl_attr_get_u64(attr);
		break;
	default:
		len = mnl_attr_get_payload_len(attr);
		if (len != 4 && len != 16)
			goto bad;
		memcpy(e->addr, mnl_attr_get_payload(attr), len);
		e->addr_len = (unsigned int)len;
		break;
	}
	e->has[type] = true;
	return MNL_CB_OK;
bad:
	errno = EBADMSG;
	return MNL_CB_ERROR;
}

/* "data_tx", or "event-N" for an event of a newer kernel. */
static const char *mrc_mon_event_name(uint64_t event, char *buf, size_t size)
{
	if (event < __MRC_MON_MAX && mrc_mon_event_names[event])
		return mrc_mon_event_names[event];
	snprintf(buf, size, "event-%" PRIu64, event);
	return buf;
}

/* Plain output: seconds since the first event, microseconds. */
static void mrc_mon_print_time(struct mrc_mon *mon, uint64_t t)
{
	uint64_t d;
	bool neg;

	/* Events of several CPUs may arrive a little out of order. */
	neg = t < mon->t0;
	d = neg ? mon->t0 - t : t - mon->t0;
	printf("%s%" PRIu64 ".%06" PRIu64, neg ? "-" : "", d / 1000000000,
	       d % 1000000000 / 1000);
}

static void mrc_mon_print_plain(struct mrc_mon *mon,
				const struct mrc_mon_rec *e,
				const char *name, const char *addr)
{
	mrc_mon_print_time(mon, e->val[MRC_MON_A_TIME_NS]);
	printf(" %s", name);
	if (e->has[MRC_MON_A_QPN])
		printf(" qpn %" PRIu64, e->val[MRC_MON_A_QPN]);
	if (e->has[MRC_MON_A_EV])
		printf(" ev %" PRIu64, e->val[MRC_MON_A_EV]);
	if (e->has[MRC_MON_A_PSN])
		printf(" psn %" PRIu64, e->val[MRC_MON_A_PSN]);
	if (addr)
		printf(" addr %s", addr);
	putchar('\n');
}

/* JSON Lines: one object a line, whatever -p says. */
static void mrc_mon_print_json(const struct mrc_mon_rec *e,
			       const char *name, const char *addr)
{
	static const struct {
		uint16_t attr;
		const char *key;
	} nums[] = {
		{ MRC_MON_A_QPN,	"qpn" },
		{ MRC_MON_A_EV,		"ev" },
		{ MRC_MON_A_PSN,	"psn" },
	};
	struct mrc_out o;
	size_t i;

	mrc_out_begin(&o, stdout, true, false);
	mrc_out_u64(&o, "time", "time_ns", e->val[MRC_MON_A_TIME_NS]);
	mrc_out_str(&o, "event", "event", name);
	for (i = 0; i < ARRAY_SIZE(nums); i++)
		if (e->has[nums[i].attr])
			mrc_out_u64(&o, nums[i].key, nums[i].key,
				    e->val[nums[i].attr]);
	if (addr)
		mrc_out_str(&o, "addr", "address", addr);
	mrc_out_end(&o);
}

static int mrc_mon_print(struct mrc_mon *mon, const struct mrc_mon_rec *e)
{
	char name[32], addr[INET6_ADDRSTRLEN];
	const char *event, *a = NULL;

	/* An event without its kind or time is no event. */
	if (!e->has[MRC_MON_A_EVENT] || !e->has[MRC_MON_A_TIME_NS]) {
		errno = EBADMSG;
		return MNL_CB_ERROR;
	}
	if (e->addr_len) {
		a = inet_ntop(e->addr_len == 4 ? AF_INET : AF_INET6, e->addr,
			      addr, sizeof(addr));
		if (!a) {
			errno = EBADMSG;
			return MNL_CB_ERROR;
		}
	}
	event = mrc_mon_event_name(e->val[MRC_MON_A_EVENT], name,
				   sizeof(name));
	if (!mon->started) {
		mon->started = true;
		mon->t0 = e->val[MRC_MON_A_TIME_NS];
	}
	if (mon->opts->json)
		mrc_mon_print_json(e, event, a);
	else
		mrc_mon_print_plain(mon, e, event, a);
	/* At once: whoever reads a pipe sees each event as it happens. */
	if (fflush(stdout) || ferror(stdout)) {
		mon->out_err = true;
		return MNL_CB_ERROR;
	}
	mon->printed++;
	if (mon->count && mon->printed >= mon->count)
		return MNL_CB_STOP;
	return MNL_CB_OK;
}

/* One message of the group: an MRC_CMD_MONITOR is printed. */
static int mrc_mon_msg_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct genlmsghdr *genl = mnl_nlmsg_get_payload(nlh);
	struct mrc_mon *mon = data;
	struct mrc_mon_rec e;
	struct nlattr *attr;
	bool found = false;

	/* Anything else a newer kernel may send the group is skipped. */
	if (nlh->nlmsg_type != mon->family ||
	    mnl_nlmsg_get_payload_len(nlh) < sizeof(*genl) ||
	    genl->cmd != MRC_CMD_MONITOR)
		return MNL_CB_OK;
	memset(&e, 0, sizeof(e));
	mnl_attr_for_each(attr, nlh, sizeof(*genl)) {
		if (mnl_attr_get_type(attr) != MRC_A_MON)
			continue;
		if (mnl_attr_validate(attr, MNL_TYPE_NESTED) < 0 ||
		    mnl_attr_parse_nested(attr, mrc_mon_attr_cb, &e) !=
		    MNL_CB_OK) {
			errno = EBADMSG;
			return MNL_CB_ERROR;
		}
		found = true;
	}
	if (!found)
		return MNL_CB_OK;
	return mrc_mon_print(mon, &e);
}

/*
 * Print the events of one read.  Return: 1 to go on, 0 when COUNT events
 * are printed, else the exit status to end with (errors printed).
 */
static int mrc_mon_read(struct mrc_nl *nl, struct mrc_mon *mon,
			bool draining)
{
	ssize_t len;
	int ret;

	len = mnl_socket_recvfrom(nl->sock, nl->buf, sizeof(nl->buf));
	if (len < 0) {
		if (errno == ENOBUFS) {
			fputs("mrc: monitor: events lost (receive buffer full)\n",
			      stderr);
			return 1;
		}
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			return draining ? 0 : 1;
		if (errno == EINTR)
			return 1;
	} else if (!len) {
		errno = ECONNRESET;
		len = -1;
	}
	if (len < 0) {
		fprintf(stderr, "mrc: monitor: reading the events: %s\n",
			strerror(errno));
		return MRC_EXIT_KERNEL;
	}
	/* Notifications: sequence number and port id 0, not checked. */
	ret = mnl_cb_run(nl->buf, (size_t)len, 0, 0, mrc_mon_msg_cb, mon);
	if (ret == MNL_CB_ERROR) {
		if (mon->out_err)
			fprintf(stderr, "mrc: writing the output: %s\n",
				strerror(errno));
		else
			fprintf(stderr,
				"mrc: monitor: reading the events: %s\n",
				strerror(errno));
		return MRC_EXIT_KERNEL;
	}
	if (mon->count && mon->printed >= mon->count)
		return 0;
	return 1;
}

/*
 * A signal ends the session: leave the group, so that no new event comes,
 * and print those already queued.
 */
static int mrc_mon_drain(struct mrc_nl *nl, struct mrc_mon *mon)
{
	int fd = mnl_socket_get_fd(nl->sock);
	uint32_t grp = nl->mcgrp_monitor;
	int flags, ret;

	mnl_socket_setsockopt(nl->sock, NETLINK_DROP_MEMBERSHIP, &grp,
			      sizeof(grp));
	flags = fcntl(fd, F_GETFL);
	if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0)
		return MRC_EXIT_OK;
	do
		ret = mrc_mon_read(nl, mon, true);
	while (ret == 1);
	return ret ? ret : MRC_EXIT_OK;
}

/* A large receive buffer: above rmem_max if allowed, else up to it. */
static void mrc_mon_rcvbuf(struct mrc_nl *nl)
{
	int fd = mnl_socket_get_fd(nl->sock);
	int size = MRC_MON_RCVBUF;

	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size,
		       sizeof(size)) < 0)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
}

/*
 * SIGINT and SIGTERM end the session.  They are blocked but while waiting
 * for events (ppoll()), so that none comes half way through printing one;
 * and, as ppoll() returns events ready without taking a signal, one that
 * came while events keep coming is found pending (mrc_mon_pending()).  A
 * signal ignored when mrc started (a background job's SIGINT) stays
 * ignored.
 */
static void mrc_mon_signals(sigset_t *wait_mask, sigset_t *stop_mask)
{
	struct sigaction sa, old;
	sigset_t block;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = mrc_mon_signal;
	sigemptyset(&sa.sa_mask);
	sigemptyset(&block);
	for (i = 0; i < ARRAY_SIZE(mrc_mon_sigs); i++) {
		if (sigaction(mrc_mon_sigs[i], NULL, &old) == 0 &&
		    old.sa_handler == SIG_IGN)
			continue;
		sigaction(mrc_mon_sigs[i], &sa, NULL);
		sigaddset(&block, mrc_mon_sigs[i]);
	}
	sigprocmask(SIG_BLOCK, &block, wait_mask);
	for (i = 0; i < ARRAY_SIZE(mrc_mon_sigs); i++)
		if (sigismember(&block, mrc_mon_sigs[i]))
			sigdelset(wait_mask, mrc_mon_sigs[i]);
	*stop_mask = block;
}

/* Whether one of the signals of @stop_mask is pending. */
static bool mrc_mon_pending(const sigset_t *stop_mask)
{
	sigset_t pending;

	size_t i;

	if (sigpending(&pending) < 0)
		return false;
	for (i = 0; i < ARRAY_SIZE(mrc_mon_sigs); i++)
		if (sigismember(stop_mask, mrc_mon_sigs[i]) == 1 &&
		    sigismember(&pending, mrc_mon_sigs[i]) == 1)
			return true;
	return false;
}

static int mrc_mon_loop(struct mrc_nl *nl, struct mrc_mon *mon)
{
	struct pollfd pfd = {
		.fd = mnl_socket_get_fd(nl->sock), .events = POLLIN,
	};
	sigset_t wait_mask, stop_mask;
	int ret;

	mrc_mon_signals(&wait_mask, &stop_mask);
	for (;;) {
		if (mrc_mon_stop || mrc_mon_pending(&stop_mask))
			return mrc_mon_drain(nl, mon);
		if (ppoll(&pfd, 1, NULL, &wait_mask) < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "mrc: monitor: waiting for events: %s\n",
				strerror(errno));
			return MRC_EXIT_KERNEL;
		}
		ret = mrc_mon_read(nl, mon, false);
		if (ret != 1)
			return ret;
	}
}

static int mrc_mon_run(uint32_t count, const struct mrc_opts *opts)
{
	struct mrc_mon mon = {
		.opts = opts, .count = count,
	};
	struct mrc_nl nl;
	uint32_t grp;
	int ret;

	ret = mrc_nl_open(&nl);
	if (ret != MRC_EXIT_OK)
		return ret;
	if (!nl.mcgrp_monitor) {
		fprintf(stderr,
			"mrc: monitor: the kernel's mrc has no %s group\n",
			MRC_MCGRP_MONITOR);
		mrc_nl_close(&nl);
		return MRC_EXIT_KERNEL;
	}
	mon.family = nl.family;
	mrc_mon_rcvbuf(&nl);
	grp = nl.mcgrp_monitor;
	if (mnl_socket_setsockopt(nl.sock, NETLINK_ADD_MEMBERSHIP, &grp,
				  sizeof(grp)) < 0) {
		fprintf(stderr, "mrc: monitor: joining the %s group: %s\n",
			MRC_MCGRP_MONITOR, strerror(errno));
		mrc_nl_close(&nl);
		return MRC_EXIT_KERNEL;
	}
	ret = mrc_mon_loop(&nl, &mon);
	mrc_nl_close(&nl);
	return ret;
}

/**
 * mrc_cmd_monitor() - mrc monitor [ -c COUNT ] | help
 * @argc: number of arguments after "monitor"
 * @argv: the arguments after "monitor"
 * @opts: the global options
 *
 * Return: the exit status.
 */
int mrc_cmd_monitor(int argc, char **argv, const struct mrc_opts *opts)
{
	uint32_t count = 0;
	int i;

	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "-c") || !strcmp(argv[i], "-count") ||
		    !strcmp(argv[i], "--count")) {
			if (++i == argc)
				return mrc_usage_error("missing value for %s",
						       argv[i - 1]);
			if (mrc_parse_u32(argv[i], &count) || !count)
				return mrc_usage_error("invalid count \"%s\": expected an integer in 1..4294967295",
						       argv[i]);
		} else if (i == 0 && mrc_matches(argv[i], "help")) {
			mrc_help();
			return MRC_EXIT_OK;
		} else {
			return mrc_usage_error("unexpected argument \"%s\"",
					       argv[i]);
		}
	}
	return mrc_mon_run(count, opts);
}
