// SPDX-License-Identifier: GPL-2.0
/*
 * mrcperf: the data pattern, and the encoding of control messages and
 * responses.
 */
#include <endian.h>
#include <string.h>

#include "mrcperf.h"

/* splitmix64's finaliser: a bijective 64-bit mix. */
uint64_t mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

void pattern_init(struct pattern *p, uint64_t run, uint32_t sock,
		  uint64_t seq)
{
	uint64_t x = mix64(mix64(mix64(run) ^ sock) ^ seq);

	/* xorshift's one forbidden state */
	p->x = x ? x : 0x6d72637065726631ULL;
	p->word = 0;
	p->avail = 0;
}

static inline uint64_t xorshift64(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*s = x;
	return x;
}

static inline uint8_t pattern_byte(struct pattern *p)
{
	uint8_t b;

	if (!p->avail) {
		p->word = xorshift64(&p->x);
		p->avail = 8;
	}
	b = p->word & 0xff;
	p->word >>= 8;
	p->avail--;
	return b;
}

void pattern_fill(struct pattern *p, void *buf, size_t len)
{
	unsigned char *c = buf;
	uint64_t x, w;

	while (len && p->avail) {
		*c++ = pattern_byte(p);
		len--;
	}
	x = p->x;
	while (len >= 8) {
		w = htole64(xorshift64(&x));
		memcpy(c, &w, 8);
		c += 8;
		len -= 8;
	}
	p->x = x;
	while (len--)
		*c++ = pattern_byte(p);
}

size_t pattern_check(struct pattern *p, const void *buf, size_t len,
		     uint8_t *expected)
{
	const unsigned char *c = buf;
	size_t off = 0;
	uint64_t x, w, e;
	unsigned int i;
	uint8_t b;

	while (off < len && p->avail) {
		b = pattern_byte(p);
		if (c[off] != b) {
			*expected = b;
			return off;
		}
		off++;
	}
	x = p->x;
	while (len - off >= 8) {
		e = htole64(xorshift64(&x));
		memcpy(&w, c + off, 8);
		if (w != e) {
			for (i = 0; i < 8; i++)
				if (((unsigned char *)&w)[i] !=
				    ((unsigned char *)&e)[i])
					break;
			*expected = ((unsigned char *)&e)[i];
			return off + i;
		}
		off += 8;
	}
	p->x = x;
	while (off < len) {
		b = pattern_byte(p);
		if (c[off] != b) {
			*expected = b;
			return off;
		}
		off++;
	}
	return len;
}

void put_be64(unsigned char *p, uint64_t v)
{
	v = htobe64(v);
	memcpy(p, &v, 8);
}

void put_be32(unsigned char *p, uint32_t v)
{
	v = htobe32(v);
	memcpy(p, &v, 4);
}

uint64_t get_be64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return be64toh(v);
}

uint32_t get_be32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return be32toh(v);
}

static uint64_t ctrl_check(const unsigned char *buf)
{
	uint64_t h = 0x6d72637065726631ULL;
	unsigned int i;

	for (i = 0; i < CTRL_OFF_CHECK; i += 8)
		h = mix64(h ^ get_be64(buf + i));
	return h;
}

void ctrl_encode(const struct ctrl_msg *c, unsigned char *buf)
{
	memset(buf, 0, CTRL_LEN);
	put_be64(buf + CTRL_OFF_MAGIC, CTRL_MAGIC);
	put_be32(buf + CTRL_OFF_KIND, c->kind);
	put_be32(buf + CTRL_OFF_SOCK, c->sock);
	put_be64(buf + CTRL_OFF_RUN, c->run);
	put_be64(buf + CTRL_OFF_SIZE, c->size);
	put_be64(buf + CTRL_OFF_COUNT, c->count);
	put_be32(buf + CTRL_OFF_NSOCK, c->nsock);
	put_be32(buf + CTRL_OFF_FLAGS, c->flags);
	put_be64(buf + CTRL_OFF_CHECK, ctrl_check(buf));
}

/* A HELLO or BYE, well formed?  DATA of 64 bytes fails the check. */
bool ctrl_decode(const unsigned char *buf, size_t len, struct ctrl_msg *c)
{
	if (len != CTRL_LEN || get_be64(buf + CTRL_OFF_MAGIC) != CTRL_MAGIC ||
	    get_be64(buf + CTRL_OFF_CHECK) != ctrl_check(buf))
		return false;
	c->kind = get_be32(buf + CTRL_OFF_KIND);
	c->sock = get_be32(buf + CTRL_OFF_SOCK);
	c->run = get_be64(buf + CTRL_OFF_RUN);
	c->size = get_be64(buf + CTRL_OFF_SIZE);
	c->count = get_be64(buf + CTRL_OFF_COUNT);
	c->nsock = get_be32(buf + CTRL_OFF_NSOCK);
	c->flags = get_be32(buf + CTRL_OFF_FLAGS);
	return (c->kind == KIND_HELLO || c->kind == KIND_BYE) && c->nsock &&
	       c->sock < c->nsock;
}

void resp_encode(const struct resp_msg *r, unsigned char *buf)
{
	memset(buf, 0, RESP_LEN);
	put_be32(buf + RESP_OFF_MAGIC, RESP_MAGIC);
	buf[RESP_OFF_KIND] = r->kind;
	buf[RESP_OFF_STATUS] = r->status;
	put_be64(buf + RESP_OFF_SEQ, r->seq);
}

bool resp_decode(const unsigned char *buf, struct resp_msg *r)
{
	if (get_be32(buf + RESP_OFF_MAGIC) != RESP_MAGIC)
		return false;
	r->kind = buf[RESP_OFF_KIND];
	r->status = buf[RESP_OFF_STATUS];
	r->seq = get_be64(buf + RESP_OFF_SEQ);
	return r->kind >= KIND_HELLO && r->kind <= KIND_DATA;
}

const char *status_name(unsigned int status)
{
	static const char * const names[__ST_MAX] = {
		[ST_OK]		= "ok",
		[ST_BAD_LEN]	= "wrong length",
		[ST_BAD_DATA]	= "corrupt data",
		[ST_BAD_ORDER]	= "out of order",
		[ST_NO_HELLO]	= "no hello",
		[ST_BAD_COUNT]	= "wrong count",
		[ST_NO_MEM]	= "server out of memory",
	};

	return status < __ST_MAX ? names[status] : "unknown status";
}
