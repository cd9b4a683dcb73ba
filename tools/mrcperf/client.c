// SPDX-License-Identifier: GPL-2.0
/*
 * mrcperf client: P sockets, each sending HELLO, its share of DATA
 * messages with up to -c outstanding, then BYE; one poll() loop drives
 * them all with non-blocking sends, so a send buffer that stays full
 * (mrc's sendmsg would block) only holds back that socket.
 */
#include <errno.h>
#include <math.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/uio.h>
#include <unistd.h>

#include <linux/mrc.h>

#include "mrcperf.h"

#define MAX_REPORTS	10

struct csock {
	int fd;
	unsigned int idx;
	bool connecting;		/* tcp: connect() under way */
	bool done;			/* BYE answered */
	uint64_t share;			/* DATA to send; UINT64_MAX: timed */
	uint64_t started;		/* DATA begun */
	uint64_t acked;			/* DATA answered */
	bool hello_sent, hello_acked, data_over, bye_sent;
	uint64_t errors;

	/* the message being sent */
	bool tx_busy;
	uint8_t tx_kind;
	unsigned char *tx_data;
	size_t tx_len;
	size_t tx_off;			/* tcp: frame bytes sent */
	unsigned char tx_hdr[8];
	unsigned char ctrl[CTRL_LEN];
	bool fake_eagain;		/* testing: first send would block */
	bool want_out;			/* EAGAIN: wait for POLLOUT */
	bool spurious;			/* POLLOUT, then EAGAIN again */

	uint64_t *t_send;		/* send start, by seq % inflight */
	unsigned char *buf;		/* DATA, size + 1 bytes; mrc, udp: shared */
	unsigned char rx[RESP_LEN];
	size_t rx_have;
};

struct client {
	const struct opts *o;
	struct sockaddr_storage dst;
	socklen_t dstlen;
	char dstname[96];
	uint64_t run;
	struct csock *socks;
	struct csock *filled;		/* whose DATA the shared buffer holds */
	unsigned int ndone;
	bool timed;
	uint64_t deadline;
	uint64_t last_progress;
	uint64_t t_first, t_last;
	bool have_first;
	uint64_t *lat;
	size_t nlat, lat_cap;
	uint64_t messages;
	uint64_t errors;
	unsigned int reports;
};

static void sock_die(struct csock *s, const char *what, int err)
	__attribute__((noreturn));

static void sock_die(struct csock *s, const char *what, int err)
{
	const char *hint = "";

	if (err == ETIMEDOUT)
		hint = " (no acknowledgement from the peer: is the server up?)";
	else if (err == EMSGSIZE)
		hint = " (larger than max-msg-size?)";
	else if (err == ECONNREFUSED)
		hint = " (is the server running?)";
	die("socket %u: %s: %s%s", s->idx, what, strerror(err), hint);
}

static void resolve(struct client *c)
{
	const struct opts *o = c->o;
	struct addrinfo hints, *res;
	char port[16];
	int err;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = o->proto == PROTO_TCP ? SOCK_STREAM : SOCK_DGRAM;
	hints.ai_flags = AI_NUMERICSERV;
	snprintf(port, sizeof(port), "%u", o->port);
	err = getaddrinfo(o->addr, port, &hints, &res);
	if (err)
		die("%s: %s", o->addr, gai_strerror(err));
	memcpy(&c->dst, res->ai_addr, res->ai_addrlen);
	c->dstlen = res->ai_addrlen;
	freeaddrinfo(res);
	fmt_addr((struct sockaddr *)&c->dst, c->dstname, sizeof(c->dstname));
}

static void open_sock(struct client *c, struct csock *s)
{
	const struct opts *o = c->o;
	int one = 1;

	s->fd = open_socket(o, c->dst.ss_family);
	set_bufs(s->fd, o);
	if (o->proto == PROTO_MRC && o->udp_sport >= 0 &&
	    setsockopt(s->fd, SOL_MRC, MRC_SO_UDP_SPORT, &o->udp_sport,
		       sizeof(o->udp_sport)) < 0)
		die("setsockopt MRC_SO_UDP_SPORT %d: %s", o->udp_sport,
		    strerror(errno));
	set_nonblock(s->fd);
	if (o->proto != PROTO_TCP)
		return;
	setsockopt(s->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (connect(s->fd, (struct sockaddr *)&c->dst, c->dstlen) < 0) {
		if (errno != EINPROGRESS)
			die("connect to %s: %s", c->dstname, strerror(errno));
		s->connecting = true;
	}
}

static void connected(struct client *c, struct csock *s)
{
	socklen_t sl = sizeof(int);
	int err = 0;

	if (getsockopt(s->fd, SOL_SOCKET, SO_ERROR, &err, &sl) < 0)
		err = errno;
	if (err)
		die("connect to %s: %s", c->dstname, strerror(err));
	s->connecting = false;
	c->last_progress = now_ns();
}

static void corrupt(const struct opts *o, unsigned char *buf, uint64_t seq,
		    size_t *len)
{
	if (!o->corrupt_every || (seq + 1) % o->corrupt_every)
		return;
	if (*len)
		buf[mix64(seq) % *len] ^= 0xa5;
	else
		buf[(*len)++] = 0;
}

/* testing: the first send of every Nth DATA message would block */
static bool eagain_due(const struct opts *o, const struct csock *s)
{
	return o->eagain_every && s->tx_kind == KIND_DATA &&
	       s->started % o->eagain_every == 0;
}

/* Put DATA message @seq of socket @s into its buffer. */
static void fill_data(struct client *c, struct csock *s, uint64_t seq)
{
	struct pattern p;

	pattern_init(&p, c->run, s->idx, seq);
	s->tx_len = c->o->size;
	pattern_fill(&p, s->buf, s->tx_len);
	corrupt(c->o, s->buf, seq, &s->tx_len);
	c->filled = s;
}

/* Set up control message @m as the socket's next message. */
static bool next_ctrl(struct csock *s, struct ctrl_msg *m, int kind)
{
	m->kind = kind;
	ctrl_encode(m, s->ctrl);
	s->tx_kind = kind;
	s->tx_data = s->ctrl;
	s->tx_len = CTRL_LEN;
	return true;
}

/* Set up the socket's next message; false: nothing to send now. */
static bool next_msg(struct client *c, struct csock *s)
{
	const struct opts *o = c->o;
	struct ctrl_msg m = {
		.sock = s->idx,
		.run = c->run,
		.size = o->size,
		.nsock = o->sockets,
	};

	if (!s->hello_sent) {
		m.count = c->timed ? 0 : s->share;
		m.flags = c->timed ? CTRL_F_TIMED : 0;
		s->hello_sent = true;
		return next_ctrl(s, &m, KIND_HELLO);
	}
	if (!s->data_over &&
	    (c->timed ? now_ns() >= c->deadline : s->started == s->share))
		s->data_over = true;
	if (!s->data_over) {
		if (s->started - s->acked >= o->inflight)
			return false;
		fill_data(c, s, s->started);
		s->started++;
		s->tx_kind = KIND_DATA;
		s->tx_data = s->buf;
		return true;
	}
	if (s->bye_sent)
		return false;
	m.count = s->started;
	s->bye_sent = true;
	return next_ctrl(s, &m, KIND_BYE);
}

static void sent_some(struct client *c, struct csock *s, uint64_t t)
{
	c->last_progress = now_ns();
	if (s->tx_kind != KIND_DATA || s->tx_off)
		return;
	s->t_send[(s->started - 1) % c->o->inflight] = t;
	if (!c->have_first) {
		c->have_first = true;
		c->t_first = t;
	}
}

/* true: the message is all sent; false: would block */
static bool tx_dgram(struct client *c, struct csock *s)
{
	uint64_t t;
	ssize_t n;

	/*
	 * The sockets share one DATA buffer: when this one's send would
	 * have blocked, another may have filled it with its own message
	 * since.  Put this socket's message back before trying again.
	 */
	if (s->tx_kind == KIND_DATA && c->filled != s)
		fill_data(c, s, s->started - 1);
	for (;;) {
		t = now_ns();
		n = sendto(s->fd, s->tx_data, s->tx_len, MSG_DONTWAIT,
			   (struct sockaddr *)&c->dst, c->dstlen);
		if (n >= 0)
			break;
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			return false;
		sock_die(s, "send", errno);
	}
	if ((size_t)n != s->tx_len)
		die("socket %u: send: %zd of %zu bytes", s->idx, n, s->tx_len);
	sent_some(c, s, t);
	return true;
}

static bool tx_tcp(struct client *c, struct csock *s)
{
	struct iovec iov[2];
	struct msghdr mh;
	size_t total = 8 + s->tx_len;
	uint64_t t;
	ssize_t n;

	if (!s->tx_off)
		put_be64(s->tx_hdr, s->tx_len);
	while (s->tx_off < total) {
		memset(&mh, 0, sizeof(mh));
		if (s->tx_off < 8) {
			iov[0].iov_base = s->tx_hdr + s->tx_off;
			iov[0].iov_len = 8 - s->tx_off;
			iov[1].iov_base = s->tx_data;
			iov[1].iov_len = s->tx_len;
			mh.msg_iovlen = s->tx_len ? 2 : 1;
		} else {
			iov[0].iov_base = s->tx_data + s->tx_off - 8;
			iov[0].iov_len = total - s->tx_off;
			mh.msg_iovlen = 1;
		}
		mh.msg_iov = iov;
		t = now_ns();
		n = sendmsg(s->fd, &mh, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return false;
			sock_die(s, "send", errno);
		}
		sent_some(c, s, t);
		s->tx_off += n;
	}
	return true;
}

/* Send what the socket may; true if it sent anything. */
static bool pump(struct client *c, struct csock *s)
{
	bool progress = false;
	bool all;

	while (!s->connecting && !s->done) {
		if (!s->tx_busy) {
			if (!next_msg(c, s))
				break;
			s->tx_busy = true;
			s->tx_off = 0;
			s->fake_eagain = eagain_due(c->o, s);
		}
		if (s->fake_eagain) {
			s->fake_eagain = false;
			all = false;
		} else if (c->o->proto != PROTO_TCP)
			all = tx_dgram(c, s);
		else
			all = tx_tcp(c, s);
		if (!all) {
			s->want_out = true;
			break;
		}
		progress = true;
		s->tx_busy = false;
		s->want_out = false;
	}
	return progress;
}

static void count_error(struct client *c, struct csock *s,
			const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* A verification failure: counted, and the first few reported. */
static void count_error(struct client *c, struct csock *s,
			const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	c->errors++;
	s->errors++;
	if (c->reports++ >= MAX_REPORTS) {
		if (c->reports == MAX_REPORTS + 1)
			warnx("more errors, not shown");
		return;
	}
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	warnx("socket %u: %s", s->idx, msg);
}

static void add_latency(struct client *c, uint64_t ns)
{
	if (c->nlat == c->lat_cap) {
		c->lat_cap = c->lat_cap ? 2 * c->lat_cap : 4096;
		c->lat = xrealloc(c->lat, c->lat_cap * sizeof(*c->lat));
	}
	c->lat[c->nlat++] = ns;
}

static void sock_done(struct client *c, struct csock *s)
{
	s->done = true;
	c->ndone++;
	if (!c->o->quiet && !c->o->json)
		printf("socket %u: %llu messages, %llu errors\n", s->idx,
		       (unsigned long long)s->acked,
		       (unsigned long long)s->errors);
}

static void handle_resp(struct client *c, struct csock *s,
			const unsigned char *b)
{
	uint64_t now = now_ns();
	struct resp_msg r;

	if (!resp_decode(b, &r))
		die("socket %u: malformed response from the server", s->idx);
	c->last_progress = now;
	if (!s->hello_acked) {
		if (r.kind != KIND_HELLO)
			die("socket %u: response to message kind %u before the hello's",
			    s->idx, r.kind);
		if (r.status != ST_OK)
			die("socket %u: the server refused the run: %s",
			    s->idx, status_name(r.status));
		s->hello_acked = true;
		return;
	}
	if (r.kind == KIND_DATA) {
		/* a DATA still being sent cannot have been answered */
		uint64_t sent = s->started -
			(s->tx_busy && s->tx_kind == KIND_DATA);

		if (s->acked == sent) {
			count_error(c, s, "response %llu: to no message sent",
				    (unsigned long long)r.seq);
			return;
		}
		if (r.status != ST_OK)
			count_error(c, s, "message %llu: server says %s",
				    (unsigned long long)s->acked,
				    status_name(r.status));
		add_latency(c, now - s->t_send[s->acked % c->o->inflight]);
		s->acked++;
		c->messages++;
		c->t_last = now;
		return;
	}
	if (r.kind != KIND_BYE || !s->bye_sent)
		die("socket %u: unexpected response (kind %u)", s->idx, r.kind);
	if (s->acked < s->started)
		count_error(c, s, "no response to %llu messages",
			    (unsigned long long)(s->started - s->acked));
	if (r.status != ST_OK)
		count_error(c, s, "server received %llu messages: %s",
			    (unsigned long long)r.seq, status_name(r.status));
	sock_done(c, s);
}

static void rx_dgram(struct client *c, struct csock *s)
{
	unsigned char b[RESP_LEN + 1];
	struct sockaddr_storage from;
	socklen_t fl;
	ssize_t n;

	while (!s->done) {
		fl = sizeof(from);
		memset(&from, 0, sizeof(from));
		n = recvfrom(s->fd, b, sizeof(b), MSG_DONTWAIT,
			     (struct sockaddr *)&from, &fl);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return;
			sock_die(s, "recv", errno);
		}
		/*
		 * From the server's port: its address may differ from the
		 * one the client sends to (a server with several).
		 */
		if (from.ss_family != c->dst.ss_family ||
		    sockaddr_port(&from) != sockaddr_port(&c->dst))
			continue;
		if (n != RESP_LEN)
			die("socket %u: %zd-byte response from the server",
			    s->idx, n);
		handle_resp(c, s, b);
	}
}

static void rx_tcp(struct client *c, struct csock *s)
{
	ssize_t n;

	while (!s->done) {
		n = recv(s->fd, s->rx + s->rx_have, RESP_LEN - s->rx_have,
			 MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return;
			sock_die(s, "recv", errno);
		}
		if (!n)
			die("socket %u: the server closed the connection",
			    s->idx);
		s->rx_have += n;
		if (s->rx_have == RESP_LEN) {
			s->rx_have = 0;
			handle_resp(c, s, s->rx);
		}
	}
}

static void check_error(struct csock *s)
{
	int err = sock_error(s->fd);

	if (err)
		sock_die(s, "socket error", err);
}

static void timed_out(struct client *c)
{
	struct csock *s;
	unsigned int i;

	for (i = 0; i < c->o->sockets; i++) {
		s = &c->socks[i];
		if (s->done)
			continue;
		if (s->connecting)
			die("timed out after %g s: socket %u: connecting to %s",
			    c->o->timeout, i, c->dstname);
		if (s->want_out)
			die("timed out after %g s: socket %u: cannot send (%llu of %llu messages answered)",
			    c->o->timeout, i, (unsigned long long)s->acked,
			    (unsigned long long)s->started);
		if (!s->hello_acked)
			die("timed out after %g s: socket %u: no response to the hello from %s",
			    c->o->timeout, i, c->dstname);
		die("timed out after %g s: socket %u: %llu of %llu messages answered%s",
		    c->o->timeout, i, (unsigned long long)s->acked,
		    (unsigned long long)s->started,
		    s->bye_sent ? ", the bye not yet" : "");
	}
	die("timed out after %g s", c->o->timeout);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static double pct_us(const struct client *c, double pct)
{
	size_t i;

	if (!c->nlat)
		return 0;
	i = (size_t)ceil(pct / 100.0 * c->nlat);
	i = i ? i - 1 : 0;
	if (i >= c->nlat)
		i = c->nlat - 1;
	return c->lat[i] / 1000.0;
}

static void summary(struct client *c)
{
	const struct opts *o = c->o;
	uint64_t bytes = c->messages * o->size;
	double secs = 0, mbps = 0, rate = 0;
	uint64_t lo = UINT64_MAX, hi = 0;
	double p50, p90, p99, max;
	unsigned int i;

	/* How evenly the sockets fared: a peer's fairness between them. */
	for (i = 0; i < o->sockets; i++) {
		if (c->socks[i].acked < lo)
			lo = c->socks[i].acked;
		if (c->socks[i].acked > hi)
			hi = c->socks[i].acked;
	}
	if (c->messages && c->t_last > c->t_first)
		secs = (c->t_last - c->t_first) / 1e9;
	if (secs > 0) {
		mbps = bytes * 8.0 / secs / 1e6;
		rate = c->messages / secs;
	}
	if (c->nlat)
		qsort(c->lat, c->nlat, sizeof(*c->lat), cmp_u64);
	p50 = pct_us(c, 50);
	p90 = pct_us(c, 90);
	p99 = pct_us(c, 99);
	max = pct_us(c, 100);
	if (o->json) {
		printf("{\"proto\":\"%s\",\"size\":%llu,\"messages\":%llu,\"bytes\":%llu,\"seconds\":%.6f,\"goodput_mbps\":%.3f,\"msgs_per_sec\":%.1f,\"lat_us\":{\"p50\":%.1f,\"p90\":%.1f,\"p99\":%.1f,\"max\":%.1f},\"errors\":%llu,\"socket_msgs\":{\"min\":%llu,\"max\":%llu}}\n",
		       proto_name(o), (unsigned long long)o->size,
		       (unsigned long long)c->messages,
		       (unsigned long long)bytes, secs, mbps, rate,
		       p50, p90, p99, max, (unsigned long long)c->errors,
		       (unsigned long long)lo, (unsigned long long)hi);
		return;
	}
	printf("%llu messages, %llu bytes in %.6f s: %.3f Mbit/s, %.1f msgs/s\n",
	       (unsigned long long)c->messages, (unsigned long long)bytes,
	       secs, mbps, rate);
	printf("latency (us): p50 %.1f, p90 %.1f, p99 %.1f, max %.1f\n",
	       p50, p90, p99, max);
	printf("verify errors: %llu\n", (unsigned long long)c->errors);
	if (o->sockets > 1)
		printf("messages a socket: min %llu, max %llu\n",
		       (unsigned long long)lo, (unsigned long long)hi);
}

static uint64_t random_run(void)
{
	uint64_t r;

	if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != sizeof(r))
		r = mix64(now_ns() ^ ((uint64_t)getpid() << 32));
	return r;
}

static int poll_timeout(struct client *c, uint64_t now, bool spurious)
{
	uint64_t limit = (uint64_t)(c->o->timeout * 1e9);
	uint64_t end = c->last_progress + limit;
	int ms;

	if (c->timed && now < c->deadline && c->deadline < end)
		end = c->deadline;
	if (end <= now)
		return 0;
	ms = (end - now + 999999) / 1000000;
	if (spurious && ms > 1)
		ms = 1;
	return ms;
}

static void loop(struct client *c)
{
	const struct opts *o = c->o;
	uint64_t limit = (uint64_t)(o->timeout * 1e9);
	struct pollfd *pfds = xcalloc(o->sockets, sizeof(*pfds));
	unsigned int *map = xcalloc(o->sockets, sizeof(*map));
	bool spurious, deadline_seen = false;
	unsigned int i, n;
	struct csock *s;
	uint64_t now;
	short ev;

	for (i = 0; i < o->sockets; i++)
		pump(c, &c->socks[i]);
	while (c->ndone < o->sockets) {
		spurious = false;
		for (i = n = 0; i < o->sockets; i++) {
			s = &c->socks[i];
			if (s->done)
				continue;
			if (s->spurious) {
				spurious = true;
				ev = POLLIN;
			} else if (s->connecting) {
				ev = POLLOUT;
			} else {
				ev = POLLIN | (s->want_out ? POLLOUT : 0);
			}
			pfds[n].fd = s->fd;
			pfds[n].events = ev;
			pfds[n].revents = 0;
			map[n++] = i;
		}
		if (poll(pfds, n, poll_timeout(c, now_ns(), spurious)) < 0 &&
		    errno != EINTR)
			die("poll: %s", strerror(errno));
		for (i = 0; i < n; i++) {
			short re = pfds[i].revents;

			s = &c->socks[map[i]];
			if (s->spurious) {
				s->spurious = false;
				pump(c, s);
			}
			if (!re)
				continue;
			if (s->connecting) {
				connected(c, s);
				pump(c, s);
				continue;
			}
			if (re & POLLERR)
				check_error(s);
			if (re & (POLLIN | POLLHUP | POLLERR)) {
				if (o->proto != PROTO_TCP)
					rx_dgram(c, s);
				else
					rx_tcp(c, s);
			}
			if (s->done)
				continue;
			if (re & POLLOUT) {
				if (!pump(c, s) && s->want_out)
					s->spurious = true;
			} else {
				pump(c, s);
			}
		}
		now = now_ns();
		if (c->timed && !deadline_seen && now >= c->deadline) {
			deadline_seen = true;
			for (i = 0; i < o->sockets; i++)
				if (!c->socks[i].done)
					pump(c, &c->socks[i]);
		}
		/* pump() may have moved last_progress past now */
		now = now_ns();
		if (c->ndone < o->sockets && now - c->last_progress > limit)
			timed_out(c);
	}
	free(pfds);
	free(map);
}

int run_client(const struct opts *o)
{
	struct client c = { .o = o };
	unsigned char *shared = NULL;
	struct csock *s;
	unsigned int i;
	uint64_t per, extra;

	signal(SIGPIPE, SIG_IGN);
	if (o->size > SIZE_MAX / 2)
		die("message size %llu too large",
		    (unsigned long long)o->size);
	resolve(&c);
	c.run = random_run();
	c.timed = o->seconds > 0;
	c.socks = xcalloc(o->sockets, sizeof(*c.socks));
	per = o->count / o->sockets;
	extra = o->count % o->sockets;
	/*
	 * mrc (udp) copies a message when it is sent: one buffer for all,
	 * refilled by tx_dgram() when a socket tries a message again.
	 */
	if (o->proto != PROTO_TCP)
		shared = xmalloc(o->size + 1);
	for (i = 0; i < o->sockets; i++) {
		s = &c.socks[i];
		s->idx = i;
		s->share = c.timed ? UINT64_MAX : per + (i < extra);
		s->t_send = xcalloc(o->inflight, sizeof(*s->t_send));
		s->buf = shared ? shared : xmalloc(o->size + 1);
		open_sock(&c, s);
	}
	if (!o->quiet && !o->json) {
		printf("mrcperf: %s to %s, run %016llx: ",
		       proto_name(o), c.dstname,
		       (unsigned long long)c.run);
		if (c.timed)
			printf("%g s", o->seconds);
		else
			printf("%llu", (unsigned long long)o->count);
		printf(" x %llu bytes, %u socket%s, %u in flight each\n",
		       (unsigned long long)o->size, o->sockets,
		       o->sockets == 1 ? "" : "s", o->inflight);
		fflush(stdout);
	}
	c.last_progress = now_ns();
	c.deadline = c.last_progress + (uint64_t)(o->seconds * 1e9);
	loop(&c);
	summary(&c);
	for (i = 0; i < o->sockets; i++) {
		close(c.socks[i].fd);
		free(c.socks[i].t_send);
		if (!shared)
			free(c.socks[i].buf);
	}
	free(shared);
	free(c.socks);
	free(c.lat);
	return c.errors ? MRCPERF_EXIT_FAIL : MRCPERF_EXIT_OK;
}
