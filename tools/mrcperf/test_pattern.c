// SPDX-License-Identifier: GPL-2.0
/*
 * Unit test of mrcperf's data pattern and message encodings.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mrcperf.h"

static int failures;

#define CHECK(cond, ...)						\
	do {								\
		if (!(cond)) {						\
			printf("FAIL %s:%d: ", __FILE__, __LINE__);	\
			printf(__VA_ARGS__);				\
			putchar('\n');					\
			failures++;					\
		}							\
	} while (0)

static uint64_t rng = 88172645463325252ULL;

static uint64_t rnd(uint64_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return n ? rng % n : 0;
}

/* Produced or checked in pieces of any size, the pattern is the same. */
static void test_chunks(size_t len)
{
	unsigned char *a = malloc(len + 1), *b = malloc(len + 1);
	struct pattern p;
	size_t off, n, r;
	uint8_t exp;

	pattern_init(&p, 0x1234, 3, 77);
	pattern_fill(&p, a, len);
	pattern_init(&p, 0x1234, 3, 77);
	for (off = 0; off < len; off += n) {
		n = 1 + rnd(len - off < 20 ? len - off : 20);
		pattern_fill(&p, b + off, n);
	}
	CHECK(!memcmp(a, b, len), "len %zu: chunked fill differs", len);

	pattern_init(&p, 0x1234, 3, 77);
	for (off = 0; off < len; off += n) {
		n = 1 + rnd(len - off < 13 ? len - off : 13);
		r = pattern_check(&p, a + off, n, &exp);
		CHECK(r == n, "len %zu: chunked check fails at %zu", len,
		      off + r);
	}
	pattern_init(&p, 0x1234, 3, 77);
	CHECK(pattern_check(&p, a, len, &exp) == len, "len %zu: check", len);

	/* every single-byte change is found, at its offset */
	for (off = 0; off < len; off += 1 + len / 50) {
		memcpy(b, a, len);
		b[off] ^= 1 << rnd(8);
		pattern_init(&p, 0x1234, 3, 77);
		r = pattern_check(&p, b, len, &exp);
		CHECK(r == off && exp == a[off],
		      "len %zu: change at %zu found at %zu", len, off, r);
		/* also when checked in two pieces around it */
		pattern_init(&p, 0x1234, 3, 77);
		n = rnd(len);
		r = pattern_check(&p, b, n, &exp);
		if (r == n)
			r = n + pattern_check(&p, b + n, len - n, &exp);
		CHECK(r == off && exp == a[off],
		      "len %zu split %zu: change at %zu found at %zu", len, n,
		      off, r);
	}
	free(a);
	free(b);
}

static void test_keys(void)
{
	static const uint64_t keys[][3] = {
		{ 1, 0, 0 }, { 1, 0, 1 }, { 1, 1, 0 }, { 2, 0, 0 },
		{ 0, 0, 0 }, { 1ULL << 32, 0, 0 }, { 1, 0, 1ULL << 32 },
	};
	unsigned char w[8][16];
	struct pattern p;
	unsigned int i, j;

	for (i = 0; i < 7; i++) {
		pattern_init(&p, keys[i][0], keys[i][1], keys[i][2]);
		pattern_fill(&p, w[i], 16);
	}
	for (i = 0; i < 7; i++)
		for (j = 0; j < i; j++)
			CHECK(memcmp(w[i], w[j], 8), "keys %u and %u agree",
			      i, j);
	/* the first byte alone tells neighbouring seqs apart mostly */
	for (i = j = 0; i < 256; i++) {
		unsigned char x, y;

		pattern_init(&p, 9, 0, i);
		pattern_fill(&p, &x, 1);
		pattern_init(&p, 9, 0, i + 1);
		pattern_fill(&p, &y, 1);
		j += x == y;
	}
	CHECK(j < 8, "%u of 256 neighbours share the first byte", j);
}

static void test_ctrl(void)
{
	struct ctrl_msg c = {
		.kind = KIND_HELLO, .sock = 2, .run = 0xfeedULL << 40,
		.size = 64ULL << 20, .count = 1000, .nsock = 4,
		.flags = CTRL_F_TIMED,
	}, d;
	unsigned char b[CTRL_LEN];
	struct pattern p;
	struct resp_msg r = { .kind = KIND_DATA, .status = ST_BAD_ORDER,
			      .seq = 0x0102030405060708ULL }, q;
	unsigned int i;

	ctrl_encode(&c, b);
	CHECK(ctrl_decode(b, CTRL_LEN, &d), "ctrl round trip");
	CHECK(!memcmp(&c, &d, sizeof(c)), "ctrl fields");
	CHECK(!ctrl_decode(b, CTRL_LEN - 1, &d), "ctrl short");
	for (i = 0; i < CTRL_LEN; i++) {
		b[i] ^= 0x10;
		CHECK(!ctrl_decode(b, CTRL_LEN, &d), "ctrl byte %u changed",
		      i);
		b[i] ^= 0x10;
	}
	/* DATA of the control length is not a control message */
	for (i = 0; i < 1000; i++) {
		pattern_init(&p, i, 0, i);
		pattern_fill(&p, b, CTRL_LEN);
		CHECK(!ctrl_decode(b, CTRL_LEN, &d), "data %u as ctrl", i);
	}
	resp_encode(&r, b);
	CHECK(resp_decode(b, &q) && q.kind == r.kind &&
	      q.status == r.status && q.seq == r.seq, "resp round trip");
	b[0] ^= 1;
	CHECK(!resp_decode(b, &q), "resp magic");
}

static void test_speed(void)
{
	size_t len = 64 << 20;
	unsigned char *a = malloc(len);
	struct pattern p;
	uint64_t t0, t1, t2;
	uint8_t exp;

	pattern_init(&p, 1, 2, 3);
	pattern_fill(&p, a, len);	/* faults the pages in */
	t0 = now_ns();
	pattern_init(&p, 1, 2, 3);
	pattern_fill(&p, a, len);
	t1 = now_ns();
	pattern_init(&p, 1, 2, 3);
	CHECK(pattern_check(&p, a, len, &exp) == len, "64 MiB check");
	t2 = now_ns();
	printf("test_pattern: 64 MiB fill %.0f MB/s, check %.0f MB/s\n",
	       len * 1e3 / (t1 - t0), len * 1e3 / (t2 - t1));
	free(a);
}

int main(void)
{
	static const size_t lens[] = {
		0, 1, 2, 7, 8, 9, 15, 16, 17, 63, 64, 65, 4095, 4096, 4097,
		100003,
	};
	unsigned int i;

	for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++)
		test_chunks(lens[i]);
	test_keys();
	test_ctrl();
	test_speed();
	if (failures) {
		printf("test_pattern: %d failures\n", failures);
		return 1;
	}
	printf("test_pattern: ok\n");
	return 0;
}
