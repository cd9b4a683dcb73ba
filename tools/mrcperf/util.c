// SPDX-License-Identifier: GPL-2.0
/*
 * mrcperf: small helpers shared by the client and the server.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/socket.h>

#include <linux/errqueue.h>

#include <linux/mrc.h>

#include "mrcperf.h"

const char *progname = "mrcperf";

static void vmsg(const char *fmt, va_list ap)
{
	fflush(stdout);
	fprintf(stderr, "%s: ", progname);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
	exit(MRCPERF_EXIT_FAIL);
}

void warnx(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
}

uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

void *xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);

	if (!p)
		die("cannot allocate %zu bytes", size);
	return p;
}

void *xrealloc(void *p, size_t size)
{
	p = realloc(p, size ? size : 1);
	if (!p)
		die("cannot allocate %zu bytes", size);
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		die("cannot allocate %zu x %zu bytes", n, size);
	return p;
}

const char *proto_name(const struct opts *o)
{
	if (o->proto == PROTO_TCP)
		return o->mptcp ? "mptcp" : "tcp";
	return o->proto == PROTO_MRC ? "mrc" : "udp";
}

#ifndef IPPROTO_MPTCP
#define IPPROTO_MPTCP 262
#endif

int open_socket(const struct opts *o, int family)
{
	enum mrcperf_proto proto = o->proto;
	int fd;

	if (proto == PROTO_MRC)
		fd = socket(family, SOCK_DGRAM, IPPROTO_MRC);
	else if (proto == PROTO_UDP)
		fd = socket(family, SOCK_DGRAM, IPPROTO_UDP);
	else
		fd = socket(family, SOCK_STREAM,
			    o->mptcp ? IPPROTO_MPTCP : IPPROTO_TCP);
	if (fd < 0) {
		int err = errno;

		if (o->mptcp && (err == EPROTONOSUPPORT || err == ENOPROTOOPT))
			die("socket: %s (MPTCP: CONFIG_MPTCP, sysctl net.mptcp.enabled?)",
			    strerror(err));
		if (proto == PROTO_MRC && (err == EPROTONOSUPPORT ||
					   err == ESOCKTNOSUPPORT ||
					   err == EPROTOTYPE))
			die("socket: %s (is mrc.ko loaded?)", strerror(err));
		if (err == EAFNOSUPPORT)
			die("socket: %s (%s)", strerror(err),
			    family == AF_INET6 ? "IPv6" : "IPv4");
		die("socket: %s", strerror(err));
	}
	return fd;
}

/* SO_*BUFFORCE (root) first, then the capped SO_*BUF. */
static void set_buf(int fd, int force, int opt, const char *name,
		    uint64_t bytes)
{
	int v = bytes > 0x7fffffff ? 0x7fffffff : (int)bytes;

	if (!setsockopt(fd, SOL_SOCKET, force, &v, sizeof(v)))
		return;
	if (setsockopt(fd, SOL_SOCKET, opt, &v, sizeof(v)))
		die("setsockopt %s %d: %s", name, v, strerror(errno));
}

void set_bufs(int fd, const struct opts *o)
{
	if (o->rcvbuf)
		set_buf(fd, SO_RCVBUFFORCE, SO_RCVBUF, "SO_RCVBUF", o->rcvbuf);
	if (o->sndbuf)
		set_buf(fd, SO_SNDBUFFORCE, SO_SNDBUF, "SO_SNDBUF", o->sndbuf);
}

/*
 * The socket's pending error, 0 if none: SO_ERROR, else the oldest
 * error on the error queue (mrc reports the failure of the queue pair to
 * one peer there, with its address, unless it is the connect()ed one).
 */
int sock_error(int fd)
{
	char ctl[CMSG_SPACE(sizeof(struct sock_extended_err) +
			    sizeof(struct sockaddr_in6))];
	socklen_t sl = sizeof(int);
	struct sock_extended_err ee;
	struct msghdr mh;
	struct cmsghdr *cm;
	int err = 0;

	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &sl) == 0 && err)
		return err;
	memset(&mh, 0, sizeof(mh));
	mh.msg_control = ctl;
	mh.msg_controllen = sizeof(ctl);
	if (recvmsg(fd, &mh, MSG_ERRQUEUE | MSG_DONTWAIT) < 0)
		return 0;
	for (cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm)) {
		if ((cm->cmsg_level == SOL_IP && cm->cmsg_type == IP_RECVERR) ||
		    (cm->cmsg_level == SOL_IPV6 &&
		     cm->cmsg_type == IPV6_RECVERR)) {
			memcpy(&ee, CMSG_DATA(cm), sizeof(ee));
			return (int)ee.ee_errno;
		}
	}
	return 0;
}

void set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
		die("fcntl O_NONBLOCK: %s", strerror(errno));
}

/* "192.0.2.1 port 5001", "2001:db8::1 port 5001" */
void fmt_addr(const struct sockaddr *sa, char *buf, size_t size)
{
	char a[INET6_ADDRSTRLEN] = "?";
	unsigned int port = 0;

	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *s4 = (const void *)sa;

		inet_ntop(AF_INET, &s4->sin_addr, a, sizeof(a));
		port = ntohs(s4->sin_port);
	} else if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *s6 = (const void *)sa;

		inet_ntop(AF_INET6, &s6->sin6_addr, a, sizeof(a));
		port = ntohs(s6->sin6_port);
	}
	snprintf(buf, size, "%s port %u", a, port);
}

unsigned int sockaddr_port(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET)
		return ntohs(((const struct sockaddr_in *)ss)->sin_port);
	if (ss->ss_family == AF_INET6)
		return ntohs(((const struct sockaddr_in6 *)ss)->sin6_port);
	return 0;
}

bool same_addr(const struct sockaddr_storage *a,
	       const struct sockaddr_storage *b)
{
	if (a->ss_family != b->ss_family)
		return false;
	if (a->ss_family == AF_INET) {
		const struct sockaddr_in *x = (const void *)a;
		const struct sockaddr_in *y = (const void *)b;

		return x->sin_port == y->sin_port &&
		       x->sin_addr.s_addr == y->sin_addr.s_addr;
	}
	if (a->ss_family == AF_INET6) {
		const struct sockaddr_in6 *x = (const void *)a;
		const struct sockaddr_in6 *y = (const void *)b;

		return x->sin6_port == y->sin6_port &&
		       !memcmp(&x->sin6_addr, &y->sin6_addr, 16);
	}
	return false;
}
