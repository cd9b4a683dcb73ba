// SPDX-License-Identifier: GPL-2.0
/*
 * mrcperf server: receives every client socket's HELLO, DATA and BYE,
 * checks each DATA message's length, every byte, and that it is the next
 * in sequence, and answers every message with a 16-byte response.
 *
 * Over mrc one socket receives from every client socket; a source is the
 * sender's (address, mrc port).  Over TCP a source is a connection, and a
 * DATA message is checked as it streams in, without being buffered whole.
 */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mrcperf.h"

/* The reports of bad messages printed per source. */
#define MAX_REPORTS		10
#define MAX_TOTAL_REPORTS	1000
/* How far either side of the expected sequence number to look for the
 * pattern of a misplaced message.
 */
#define ORDER_WINDOW		64
/* TCP reads: the chunk, and the most read from one connection at a time. */
#define TCP_CHUNK		(256 * 1024)
#define TCP_READ_BURST		(4 * 1024 * 1024)
/* The longest TCP frame taken: a garbage length closes the connection. */
#define TCP_MAX_FRAME		(1ULL << 40)
/* At exit, how long queued responses may take to leave. */
#define FLUSH_NS		(10ULL * 1000000000ULL)

struct run {
	struct run *next;
	uint64_t id;
	uint32_t nsock;
	uint32_t done;
	uint64_t errors;
};

struct source {
	struct source *next;
	struct sockaddr_storage addr;	/* datagram: where responses go */
	socklen_t addrlen;
	char name[96];

	bool active;			/* HELLO seen, BYE not yet */
	struct run *run;
	uint32_t sock;
	uint64_t size;
	uint64_t count;
	bool timed;
	uint64_t next_seq;		/* pattern expected next */
	uint64_t received;		/* DATA since HELLO */
	uint64_t bytes;
	uint64_t errors;
	unsigned int reports;

	/* the message being received */
	uint64_t len;
	uint64_t off;
	unsigned int status;
	struct pattern pat;
	bool bad;
	uint64_t bad_off;
	uint8_t bad_exp, bad_got;
	unsigned char head[CTRL_LEN];
};

struct conn {
	int fd;
	struct source src;
	unsigned char hdr[8];
	unsigned int hdr_have;
	bool in_body;
	uint64_t body_left;
	unsigned char *out;
	size_t out_len, out_off, out_cap;
};

struct dg_reply {
	struct sockaddr_storage addr;
	socklen_t addrlen;
	unsigned char b[RESP_LEN];
};

struct server {
	const struct opts *o;
	struct run *runs;
	struct run *first;		/* -1: the run served */
	bool finished;
	uint64_t messages, bytes, errors;

	unsigned char *buf;
	size_t cap;

	/* mrc (and udp): one datagram socket */
	int fd;
	struct source *sources;
	struct dg_reply *q;
	size_t q_head, q_len, q_cap;

	/* tcp */
	struct conn **conns;
	size_t nconns, conns_cap;
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static struct run *find_run(struct server *s, uint64_t id, uint32_t nsock)
{
	struct run *r;

	for (r = s->runs; r; r = r->next)
		if (r->id == id)
			return r;
	r = xcalloc(1, sizeof(*r));
	r->id = id;
	r->nsock = nsock;
	r->next = s->runs;
	s->runs = r;
	if (!s->first)
		s->first = r;
	return r;
}

static void report(struct source *src, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void report(struct source *src, const char *fmt, ...)
{
	static unsigned long total;
	char msg[256];
	va_list ap;

	if (total >= MAX_TOTAL_REPORTS)
		return;
	if (++total == MAX_TOTAL_REPORTS) {
		warnx("too many errors, no more shown");
		return;
	}
	if (src->reports++ >= MAX_REPORTS) {
		if (src->reports == MAX_REPORTS + 1)
			warnx("%s: more errors, not shown", src->name);
		return;
	}
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (src->run)
		warnx("%s (run %016llx socket %u): %s", src->name,
		      (unsigned long long)src->run->id, src->sock, msg);
	else
		warnx("%s: %s", src->name, msg);
}

static void count_error(struct server *s, struct source *src)
{
	s->errors++;
	src->errors++;
	if (src->run)
		src->run->errors++;
}

/* A source's run on it ended: by its BYE (ok or not), or cut short. */
static void finish_source(struct server *s, struct source *src)
{
	struct run *r = src->run;

	if (!s->o->json)
		printf("run %016llx socket %u/%u from %s: %llu messages, %llu bytes, %llu errors\n",
		       (unsigned long long)r->id, src->sock, r->nsock,
		       src->name, (unsigned long long)src->received,
		       (unsigned long long)src->bytes,
		       (unsigned long long)src->errors);
	src->active = false;
	r->done++;
	if (s->o->once && r == s->first && r->done >= r->nsock)
		s->finished = true;
}

/* The source went away (TCP close) or began again in the middle of a run. */
static void abandon_source(struct server *s, struct source *src,
			   const char *why)
{
	if (!src->active)
		return;
	report(src, "%s after %llu of %s%llu messages", why,
	       (unsigned long long)src->received, src->timed ? "? " : "",
	       (unsigned long long)src->count);
	count_error(s, src);
	finish_source(s, src);
}

static void msg_begin(struct source *src, uint64_t len)
{
	src->len = len;
	src->off = 0;
	src->status = ST_OK;
	src->bad = false;
	if (!src->active)
		return;
	if (len != src->size)
		src->status = ST_BAD_LEN;
	else
		pattern_init(&src->pat, src->run->id, src->sock,
			     src->next_seq);
}

static void msg_data(struct source *src, const unsigned char *p, size_t n)
{
	uint8_t exp;
	size_t r;

	if (src->off < CTRL_LEN) {
		size_t take = CTRL_LEN - src->off;

		memcpy(src->head + src->off, p, take < n ? take : n);
	}
	if (src->active && src->status == ST_OK && !src->bad) {
		r = pattern_check(&src->pat, p, n, &exp);
		if (r < n) {
			src->bad = true;
			src->bad_off = src->off + r;
			src->bad_exp = exp;
			src->bad_got = p[r];
		}
	}
	src->off += n;
}

/* Which sequence number's pattern do the first 8 bytes have? */
static bool find_seq(struct source *src, uint64_t *seq)
{
	struct pattern p;
	uint64_t lo, hi, q;
	uint8_t exp;

	if (src->len < 8)
		return false;
	lo = src->next_seq > ORDER_WINDOW ? src->next_seq - ORDER_WINDOW : 0;
	hi = src->next_seq + ORDER_WINDOW;
	for (q = lo; q <= hi; q++) {
		if (q == src->next_seq)
			continue;
		pattern_init(&p, src->run->id, src->sock, q);
		if (pattern_check(&p, src->head, 8, &exp) == 8) {
			*seq = q;
			return true;
		}
	}
	return false;
}

static bool grow_buf(struct server *s, uint64_t size)
{
	unsigned char *nb;

	if (s->o->proto == PROTO_TCP || size <= s->cap)
		return true;
	if (size > SIZE_MAX / 2)
		return false;
	nb = realloc(s->buf, size);
	if (!nb)
		return false;
	s->buf = nb;
	s->cap = size;
	return true;
}

static void handle_ctrl(struct server *s, struct source *src,
			const struct ctrl_msg *c, struct resp_msg *r)
{
	r->kind = c->kind;
	r->status = ST_OK;
	r->seq = 0;
	if (c->kind == KIND_HELLO) {
		abandon_source(s, src, "new run");
		src->run = find_run(s, c->run, c->nsock);
		src->sock = c->sock;
		src->size = c->size;
		src->count = c->count;
		src->timed = c->flags & CTRL_F_TIMED;
		src->next_seq = 0;
		src->received = 0;
		src->bytes = 0;
		src->errors = 0;
		src->reports = 0;
		if (!grow_buf(s, c->size)) {
			report(src, "no memory for %llu-byte messages",
			       (unsigned long long)c->size);
			r->status = ST_NO_MEM;
			count_error(s, src);
			src->active = true;
			finish_source(s, src);
			return;
		}
		src->active = true;
		return;
	}
	/* BYE */
	r->seq = src->received;
	if (!src->active) {
		report(src, "bye without hello");
		r->status = ST_NO_HELLO;
		s->errors++;
		return;
	}
	if (c->run != src->run->id || c->sock != src->sock ||
	    c->count != src->received ||
	    (!src->timed && c->count != src->count)) {
		report(src, "bye says %llu messages sent, %llu received",
		       (unsigned long long)c->count,
		       (unsigned long long)src->received);
		r->status = ST_BAD_COUNT;
		count_error(s, src);
	}
	finish_source(s, src);
}

/* The message is complete: verdict into r. */
static void msg_end(struct server *s, struct source *src, struct resp_msg *r)
{
	struct ctrl_msg c;
	uint64_t seq;

	if (src->len == CTRL_LEN && ctrl_decode(src->head, src->len, &c)) {
		handle_ctrl(s, src, &c, r);
		return;
	}
	r->kind = KIND_DATA;
	s->messages++;
	s->bytes += src->len;
	if (!src->active) {
		r->status = ST_NO_HELLO;
		r->seq = 0;
		report(src, "%llu-byte message without hello",
		       (unsigned long long)src->len);
		s->errors++;
		return;
	}
	r->seq = src->received++;
	src->bytes += src->len;
	r->status = src->status;
	if (r->status == ST_BAD_LEN) {
		report(src, "message %llu: %llu bytes, expected %llu",
		       (unsigned long long)r->seq,
		       (unsigned long long)src->len,
		       (unsigned long long)src->size);
		src->next_seq++;
	} else if (!src->timed && src->received > src->count) {
		r->status = ST_BAD_COUNT;
		report(src, "message %llu: more than the %llu announced",
		       (unsigned long long)r->seq,
		       (unsigned long long)src->count);
		src->next_seq++;
	} else if (src->bad && find_seq(src, &seq)) {
		r->status = ST_BAD_ORDER;
		report(src, "message %llu: has the pattern of message %llu",
		       (unsigned long long)src->next_seq,
		       (unsigned long long)seq);
		src->next_seq = seq + 1;
	} else if (src->bad) {
		r->status = ST_BAD_DATA;
		report(src, "message %llu: byte %llu of %llu is 0x%02x, expected 0x%02x",
		       (unsigned long long)src->next_seq,
		       (unsigned long long)src->bad_off,
		       (unsigned long long)src->len, src->bad_got,
		       src->bad_exp);
		src->next_seq++;
	} else {
		src->next_seq++;
	}
	if (r->status != ST_OK)
		count_error(s, src);
}

/* ------------------------------------------ datagrams: mrc (and udp) */

static struct source *dg_source(struct server *s,
				const struct sockaddr_storage *addr,
				socklen_t addrlen)
{
	struct source *src;

	for (src = s->sources; src; src = src->next)
		if (same_addr(&src->addr, addr))
			return src;
	src = xcalloc(1, sizeof(*src));
	memcpy(&src->addr, addr, sizeof(*addr));
	src->addrlen = addrlen;
	fmt_addr((const struct sockaddr *)addr, src->name, sizeof(src->name));
	src->next = s->sources;
	s->sources = src;
	return src;
}

/* Its run is over (or it never began one): the next message starts anew. */
static void dg_forget(struct server *s, struct source *src)
{
	struct source **pp;

	for (pp = &s->sources; *pp; pp = &(*pp)->next) {
		if (*pp == src) {
			*pp = src->next;
			free(src);
			return;
		}
	}
}

/* 0 sent, 1 would block, -1 failed (reported) */
static int dg_send_reply(struct server *s, struct dg_reply *m)
{
	char name[96];
	int tries = 0;

	for (;;) {
		if (sendto(s->fd, m->b, RESP_LEN, MSG_DONTWAIT,
			   (struct sockaddr *)&m->addr, m->addrlen) >= 0)
			return 0;
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			return 1;
		fmt_addr((struct sockaddr *)&m->addr, name, sizeof(name));
		warnx("response to %s: %s", name, strerror(errno));
		/* a socket error (a failed QP) is reported once: try again */
		if (++tries > 1)
			return -1;
	}
}

static void dg_flush(struct server *s)
{
	while (s->q_len) {
		if (dg_send_reply(s, &s->q[s->q_head]) == 1)
			return;
		s->q_head = (s->q_head + 1) % s->q_cap;
		s->q_len--;
	}
}

static void dg_reply(struct server *s, struct source *src,
		     const struct resp_msg *r)
{
	struct dg_reply m, *nq;
	size_t i;

	memcpy(&m.addr, &src->addr, sizeof(m.addr));
	m.addrlen = src->addrlen;
	resp_encode(r, m.b);
	if (!s->q_len && dg_send_reply(s, &m) != 1)
		return;
	if (s->q_len == s->q_cap) {
		size_t ncap = s->q_cap ? 2 * s->q_cap : 64;

		nq = xmalloc(ncap * sizeof(*nq));
		for (i = 0; i < s->q_len; i++)
			nq[i] = s->q[(s->q_head + i) % s->q_cap];
		free(s->q);
		s->q = nq;
		s->q_cap = ncap;
		s->q_head = 0;
	}
	s->q[(s->q_head + s->q_len) % s->q_cap] = m;
	s->q_len++;
}

static bool soft_error(int err)
{
	switch (err) {
	case ETIMEDOUT:
	case ECONNREFUSED:
	case ECONNRESET:
	case EHOSTUNREACH:
	case ENETUNREACH:
	case ENOMEM:
	case ENOBUFS:
	case EPIPE:
		return true;
	}
	return false;
}

static void dg_receive(struct server *s)
{
	struct sockaddr_storage addr;
	struct source *src;
	struct resp_msg r;
	struct msghdr mh;
	struct iovec iov;
	unsigned int n;
	ssize_t len;
	size_t got;

	for (n = 0; n < 256 && !s->finished; n++) {
		memset(&mh, 0, sizeof(mh));
		memset(&addr, 0, sizeof(addr));
		iov.iov_base = s->buf;
		iov.iov_len = s->cap;
		mh.msg_name = &addr;
		mh.msg_namelen = sizeof(addr);
		mh.msg_iov = &iov;
		mh.msg_iovlen = 1;
		len = recvmsg(s->fd, &mh, MSG_DONTWAIT | MSG_TRUNC);
		if (len < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return;
			if (errno == EINTR)
				continue;
			if (soft_error(errno)) {
				warnx("recv: %s", strerror(errno));
				continue;
			}
			die("recv: %s", strerror(errno));
		}
		got = (size_t)len < s->cap ? (size_t)len : s->cap;
		/* MSG_TRUNC in flags should give the full length; if not: */
		if ((mh.msg_flags & MSG_TRUNC) && (size_t)len <= s->cap)
			len = s->cap + 1;
		src = dg_source(s, &addr, mh.msg_namelen);
		msg_begin(src, len);
		msg_data(src, s->buf, got);
		msg_end(s, src, &r);
		dg_reply(s, src, &r);
		if (!src->active)
			dg_forget(s, src);
	}
}

/* --bind ADDR with the server's port into @ss: its family wins over -4. */
static socklen_t bind_addr(const struct opts *o, struct sockaddr_storage *ss)
{
	struct addrinfo hints, *res;
	socklen_t sl;
	char port[16];
	int err;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_DGRAM;
	hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV;
	snprintf(port, sizeof(port), "%u", o->port);
	err = getaddrinfo(o->bind_addr, port, &hints, &res);
	if (err)
		die("--bind %s: %s", o->bind_addr, gai_strerror(err));
	memset(ss, 0, sizeof(*ss));
	memcpy(ss, res->ai_addr, res->ai_addrlen);
	sl = res->ai_addrlen;
	freeaddrinfo(res);
	return sl;
}

static int open_listener(const struct server *s)
{
	const struct opts *o = s->o;
	struct sockaddr_storage ss;
	socklen_t sl;
	int fd, one = 1;

	memset(&ss, 0, sizeof(ss));
	if (o->family == AF_INET6) {
		struct sockaddr_in6 *s6 = (void *)&ss;

		s6->sin6_family = AF_INET6;
		s6->sin6_addr = in6addr_any;
		s6->sin6_port = htons(o->port);
		sl = sizeof(*s6);
	} else {
		struct sockaddr_in *s4 = (void *)&ss;

		s4->sin_family = AF_INET;
		s4->sin_addr.s_addr = htonl(INADDR_ANY);
		s4->sin_port = htons(o->port);
		sl = sizeof(*s4);
	}
	if (o->bind_addr)
		sl = bind_addr(o, &ss);
	fd = open_socket(o, ss.ss_family);
	if (o->proto == PROTO_TCP) {
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (ss.ss_family == AF_INET6)
			setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one,
				   sizeof(one));
	}
	set_bufs(fd, o);
	if (bind(fd, (struct sockaddr *)&ss, sl) < 0)
		die("bind %s port %u: %s", o->bind_addr ?: "any", o->port,
		    strerror(errno));
	if (o->proto == PROTO_TCP && listen(fd, 128) < 0)
		die("listen: %s", strerror(errno));
	set_nonblock(fd);
	return fd;
}

static void dg_serve(struct server *s)
{
	struct pollfd pfd;
	uint64_t t0;
	int err;

	while (!stop && !s->finished) {
		pfd.fd = s->fd;
		pfd.events = POLLIN | (s->q_len ? POLLOUT : 0);
		if (poll(&pfd, 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			die("poll: %s", strerror(errno));
		}
		if (pfd.revents & POLLERR) {
			/* Every one queued, or POLLERR stays. */
			while ((err = sock_error(s->fd)))
				warnx("socket error: %s (a client gone?)",
				      strerror(err));
		}
		if (pfd.revents & POLLOUT)
			dg_flush(s);
		if (pfd.revents & POLLIN)
			dg_receive(s);
	}
	t0 = now_ns();
	while (s->q_len && !stop && now_ns() - t0 < FLUSH_NS) {
		pfd.fd = s->fd;
		pfd.events = POLLOUT;
		poll(&pfd, 1, 100);
		dg_flush(s);
	}
	if (s->q_len)
		warnx("%zu responses not sent", s->q_len);
}

/* ------------------------------------------------------------------ tcp */

static void conn_close(struct server *s, size_t i, const char *why)
{
	struct conn *c = s->conns[i];

	abandon_source(s, &c->src, why);
	close(c->fd);
	free(c->out);
	free(c);
	s->conns[i] = s->conns[--s->nconns];
}

/* false: the connection failed (reported) */
static bool conn_flush(struct conn *c)
{
	ssize_t n;

	while (c->out_off < c->out_len) {
		n = send(c->fd, c->out + c->out_off, c->out_len - c->out_off,
			 MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return true;
			warnx("%s: send: %s", c->src.name, strerror(errno));
			return false;
		}
		c->out_off += n;
	}
	c->out_off = c->out_len = 0;
	return true;
}

static void conn_reply(struct conn *c, const struct resp_msg *r)
{
	if (c->out_off && c->out_off == c->out_len)
		c->out_off = c->out_len = 0;
	if (c->out_len + RESP_LEN > c->out_cap) {
		if (c->out_off) {
			memmove(c->out, c->out + c->out_off,
				c->out_len - c->out_off);
			c->out_len -= c->out_off;
			c->out_off = 0;
		}
		if (c->out_len + RESP_LEN > c->out_cap) {
			c->out_cap = c->out_cap ? 2 * c->out_cap : 1024;
			c->out = xrealloc(c->out, c->out_cap);
		}
	}
	resp_encode(r, c->out + c->out_len);
	c->out_len += RESP_LEN;
}

/* Frame parsing; false: close the connection (why says why). */
static bool conn_input(struct server *s, struct conn *c,
		       const unsigned char *p, size_t n, const char **why)
{
	struct resp_msg r;
	size_t take;

	while (n) {
		if (!c->in_body) {
			take = 8 - c->hdr_have;
			if (take > n)
				take = n;
			memcpy(c->hdr + c->hdr_have, p, take);
			c->hdr_have += take;
			p += take;
			n -= take;
			if (c->hdr_have < 8)
				break;
			c->hdr_have = 0;
			c->body_left = get_be64(c->hdr);
			if (c->body_left > TCP_MAX_FRAME) {
				*why = "bad frame length";
				return false;
			}
			msg_begin(&c->src, c->body_left);
			c->in_body = true;
		} else {
			take = n < c->body_left ? n : c->body_left;
			msg_data(&c->src, p, take);
			c->body_left -= take;
			p += take;
			n -= take;
		}
		if (c->in_body && !c->body_left) {
			c->in_body = false;
			msg_end(s, &c->src, &r);
			conn_reply(c, &r);
		}
	}
	return true;
}

/* false: closed */
static bool conn_read(struct server *s, size_t i)
{
	struct conn *c = s->conns[i];
	const char *why = NULL;
	size_t total = 0;
	ssize_t n;

	while (total < TCP_READ_BURST && !s->finished) {
		n = recv(c->fd, s->buf, s->cap, MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				break;
			warnx("%s: recv: %s", c->src.name, strerror(errno));
			conn_close(s, i, "connection failed");
			return false;
		}
		if (!n) {
			conn_close(s, i, c->in_body || c->hdr_have ?
				   "closed inside a message" :
				   "connection closed");
			return false;
		}
		total += n;
		if (!conn_input(s, c, s->buf, n, &why)) {
			warnx("%s: %s", c->src.name, why);
			conn_close(s, i, why);
			return false;
		}
	}
	if (!conn_flush(c)) {
		conn_close(s, i, "connection failed");
		return false;
	}
	return true;
}

static void tcp_accept(struct server *s, int lfd)
{
	struct sockaddr_storage ss;
	struct conn *c;
	socklen_t sl;
	int fd, one = 1;

	for (;;) {
		sl = sizeof(ss);
		fd = accept4(lfd, (struct sockaddr *)&ss, &sl,
			     SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN && errno != EWOULDBLOCK &&
			    errno != ECONNABORTED)
				warnx("accept: %s", strerror(errno));
			return;
		}
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		c = xcalloc(1, sizeof(*c));
		c->fd = fd;
		fmt_addr((struct sockaddr *)&ss, c->src.name,
			 sizeof(c->src.name));
		if (s->nconns == s->conns_cap) {
			s->conns_cap = s->conns_cap ? 2 * s->conns_cap : 16;
			s->conns = xrealloc(s->conns,
					    s->conns_cap * sizeof(*s->conns));
		}
		s->conns[s->nconns++] = c;
	}
}

static void tcp_serve(struct server *s, int lfd)
{
	struct pollfd *pfds = NULL;
	size_t i, n, cap = 0;
	uint64_t t0;
	bool pending;

	while (!stop && !s->finished) {
		if (cap < s->nconns + 1) {
			cap = 2 * (s->nconns + 1);
			pfds = xrealloc(pfds, cap * sizeof(*pfds));
		}
		pfds[0].fd = lfd;
		pfds[0].events = POLLIN;
		for (i = 0; i < s->nconns; i++) {
			pfds[i + 1].fd = s->conns[i]->fd;
			pfds[i + 1].events = POLLIN;
			if (s->conns[i]->out_len > s->conns[i]->out_off)
				pfds[i + 1].events |= POLLOUT;
		}
		n = s->nconns;
		if (poll(pfds, n + 1, -1) < 0) {
			if (errno == EINTR)
				continue;
			die("poll: %s", strerror(errno));
		}
		/* backwards: conn_close() moves the last into the gap */
		for (i = n; i-- > 0;) {
			if (!pfds[i + 1].revents)
				continue;
			if (pfds[i + 1].revents & (POLLIN | POLLHUP | POLLERR)) {
				if (!conn_read(s, i))
					continue;
			} else if (!conn_flush(s->conns[i])) {
				conn_close(s, i, "connection failed");
			}
		}
		if (pfds[0].revents & POLLIN)
			tcp_accept(s, lfd);
	}
	free(pfds);
	/* -1: the responses still queued, then close */
	t0 = now_ns();
	do {
		pending = false;
		for (i = 0; i < s->nconns; i++) {
			if (!conn_flush(s->conns[i]))
				s->conns[i]->out_len = 0;
			if (s->conns[i]->out_len > s->conns[i]->out_off)
				pending = true;
		}
		if (pending)
			usleep(1000);
	} while (pending && !stop && now_ns() - t0 < FLUSH_NS);
	for (i = 0; i < s->nconns; i++) {
		close(s->conns[i]->fd);
		free(s->conns[i]->out);
		free(s->conns[i]);
	}
	s->nconns = 0;
}

int run_server(const struct opts *o)
{
	struct server s = { .o = o };
	struct sigaction sa;
	int fd;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	setvbuf(stdout, NULL, _IOLBF, 0);

	fd = open_listener(&s);
	s.cap = o->proto == PROTO_TCP ? TCP_CHUNK : 64 * 1024;
	s.buf = xmalloc(s.cap);
	if (!o->json)
		printf("mrcperf server: %s port %u, %s%s%s%s\n",
		       proto_name(o), o->port,
		       o->family == AF_INET6 ? "IPv6" : "IPv4",
		       o->bind_addr ? ", bound to " : "",
		       o->bind_addr ?: "", o->once ? ", one run" : "");
	if (o->proto != PROTO_TCP) {
		s.fd = fd;
		dg_serve(&s);
	} else {
		tcp_serve(&s, fd);
	}
	close(fd);
	free(s.buf);
	free(s.q);
	free(s.conns);
	while (s.sources) {
		struct source *src = s.sources;

		s.sources = src->next;
		free(src);
	}
	while (s.runs) {
		struct run *r = s.runs;

		s.runs = r->next;
		free(r);
	}

	if (o->json)
		printf("{\"messages\":%llu,\"bytes\":%llu,\"errors\":%llu}\n",
		       (unsigned long long)s.messages,
		       (unsigned long long)s.bytes,
		       (unsigned long long)s.errors);
	else
		printf("server: %llu messages, %llu bytes, %llu errors\n",
		       (unsigned long long)s.messages,
		       (unsigned long long)s.bytes,
		       (unsigned long long)s.errors);
	return s.errors ? MRCPERF_EXIT_FAIL : MRCPERF_EXIT_OK;
}
