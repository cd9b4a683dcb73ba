/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mrcperf: benchmark and end-to-end verification of mrc message sockets
 * (and, for comparison and for self-testing, of TCP).
 *
 * The application protocol, the same over both transports:
 *
 *   client -> server, per client socket, in order:
 *     HELLO    a 64-byte control message (struct layout below): run id,
 *              socket index, number of sockets, message size, count
 *     DATA * N messages of exactly `size` bytes, the pattern of
 *              (run id, socket index, sequence number 0..N-1)
 *     BYE      a 64-byte control message: the number of DATA sent
 *   server -> client: one 16-byte response to each of them, in order.
 *
 * Over TCP every client->server message is framed by an 8-byte big-endian
 * length; the 16-byte responses are not framed.  Over mrc every message is
 * one mrc message and every response one mrc message.
 */
#ifndef MRCPERF_H
#define MRCPERF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#define MRCPERF_EXIT_OK		0
#define MRCPERF_EXIT_FAIL	1
#define MRCPERF_EXIT_USAGE	2

#define MRCPERF_DEFAULT_PORT	5001

enum mrcperf_proto {
	PROTO_MRC,
	PROTO_TCP,
	PROTO_UDP,	/* testing: the mrc code paths, without mrc.ko */
};

struct opts;
const char *proto_name(const struct opts *o);

/* Control messages (HELLO, BYE): all fields big-endian. */
#define CTRL_LEN		64
#define CTRL_MAGIC		0x4d52435045524631ULL	/* "MRCPERF1" */
#define CTRL_OFF_MAGIC		0	/* u64 */
#define CTRL_OFF_KIND		8	/* u32: enum msg_kind */
#define CTRL_OFF_SOCK		12	/* u32: socket index */
#define CTRL_OFF_RUN		16	/* u64: run id */
#define CTRL_OFF_SIZE		24	/* u64: DATA message size */
#define CTRL_OFF_COUNT		32	/* u64: HELLO: planned, BYE: sent */
#define CTRL_OFF_NSOCK		40	/* u32: sockets in the run */
#define CTRL_OFF_FLAGS		44	/* u32: CTRL_F_* */
#define CTRL_OFF_RSVD		48	/* u64: 0 */
#define CTRL_OFF_CHECK		56	/* u64: ctrl_check() of bytes 0..55 */

#define CTRL_F_TIMED		0x1	/* HELLO: count unknown (-t) */

enum msg_kind {
	KIND_HELLO	= 1,
	KIND_BYE	= 2,
	KIND_DATA	= 3,
};

struct ctrl_msg {
	uint32_t kind;
	uint32_t sock;
	uint64_t run;
	uint64_t size;
	uint64_t count;
	uint32_t nsock;
	uint32_t flags;
};

/* Responses, 16 bytes: all fields big-endian. */
#define RESP_LEN		16
#define RESP_MAGIC		0x4d525250U		/* "MRRP" */
#define RESP_OFF_MAGIC		0	/* u32 */
#define RESP_OFF_KIND		4	/* u8: enum msg_kind answered */
#define RESP_OFF_STATUS		5	/* u8: enum resp_status */
#define RESP_OFF_RSVD		6	/* u16: 0 */
#define RESP_OFF_SEQ		8	/* u64: DATA: index, BYE: count seen */

enum resp_status {
	ST_OK		= 0,
	ST_BAD_LEN	= 1,	/* DATA length is not the announced size */
	ST_BAD_DATA	= 2,	/* a byte differs from the pattern */
	ST_BAD_ORDER	= 3,	/* the pattern of another sequence number */
	ST_NO_HELLO	= 4,	/* DATA or BYE before any HELLO */
	ST_BAD_COUNT	= 5,	/* more DATA than announced, or BYE count */
	ST_NO_MEM	= 6,	/* HELLO: the server cannot take that size */
	__ST_MAX,
};

struct resp_msg {
	uint8_t kind;
	uint8_t status;
	uint64_t seq;
};

/*
 * The data pattern: a 64-bit xorshift stream seeded from (run id, socket
 * index, sequence number), its words stored little-endian, so byte i of a
 * message is a function of (run, socket, seq, i).  The state advances byte
 * by byte or 8 bytes at a time, so a message can be produced or checked in
 * pieces of any size (TCP reads).
 */
struct pattern {
	uint64_t x;		/* xorshift state */
	uint64_t word;		/* current word, bytes not yet used */
	unsigned int avail;	/* bytes left in word */
};

uint64_t mix64(uint64_t x);
void pattern_init(struct pattern *p, uint64_t run, uint32_t sock,
		  uint64_t seq);
void pattern_fill(struct pattern *p, void *buf, size_t len);
/*
 * Offset of the first byte that differs, or len if none (then p has
 * advanced by len; otherwise its state is undefined and *expected is the
 * byte the pattern has at that offset).
 */
size_t pattern_check(struct pattern *p, const void *buf, size_t len,
		     uint8_t *expected);

void ctrl_encode(const struct ctrl_msg *c, unsigned char *buf);
bool ctrl_decode(const unsigned char *buf, size_t len, struct ctrl_msg *c);
void resp_encode(const struct resp_msg *r, unsigned char *buf);
bool resp_decode(const unsigned char *buf, struct resp_msg *r);
const char *status_name(unsigned int status);

/* Options of both roles. */
struct opts {
	enum mrcperf_proto proto;
	bool mptcp;			/* PROTO_TCP over IPPROTO_MPTCP */
	int family;			/* server: AF_INET or AF_INET6 */
	const char *addr;		/* client */
	const char *bind_addr;		/* server: NULL for every address */
	unsigned int port;
	uint64_t size;
	uint64_t count;
	double seconds;			/* > 0: -t */
	unsigned int inflight;
	unsigned int sockets;
	bool json;
	bool quiet;
	bool once;			/* server -1 */
	uint64_t rcvbuf, sndbuf;	/* 0: leave alone */
	int udp_sport;			/* -1: leave alone */
	double timeout;
	uint64_t corrupt_every;		/* testing: 0 = never */
	uint64_t eagain_every;		/* testing: 0 = never */
};

int run_client(const struct opts *o);
int run_server(const struct opts *o);

/* util.c */
extern const char *progname;
void die(const char *fmt, ...) __attribute__((format(printf, 1, 2),
					      noreturn));
void warnx(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
uint64_t now_ns(void);
int open_socket(const struct opts *o, int family);
void set_bufs(int fd, const struct opts *o);
void set_nonblock(int fd);
int sock_error(int fd);
void fmt_addr(const struct sockaddr *sa, char *buf, size_t size);
unsigned int sockaddr_port(const struct sockaddr_storage *ss);
bool same_addr(const struct sockaddr_storage *a, const struct sockaddr_storage *b);
void put_be64(unsigned char *p, uint64_t v);
void put_be32(unsigned char *p, uint32_t v);
uint64_t get_be64(const unsigned char *p);
uint32_t get_be32(const unsigned char *p);
void *xmalloc(size_t size);
void *xrealloc(void *p, size_t size);
void *xcalloc(size_t n, size_t size);

#endif /* MRCPERF_H */
