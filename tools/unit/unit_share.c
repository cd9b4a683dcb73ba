// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of include/mrc/share.h: how a socket's receive room is
 * shared among the peers that wait for it; and a small model of 64
 * peers and one slow reader run on its rules.
 */
#include "kselftest_harness.h"

#include <mrc/share.h>

#define PG	4096
#define MSG	96	/* sizeof(struct mrc_rx_msg) on x86-64 */

/* The rest of a message, in pages, with its struct. */
TEST(share__want_is_the_rest_of_the_message)
{
	/* A new message of 4 KiB: a page and its struct. */
	EXPECT_EQ(PG + MSG, mrc_share_want(4096, 0, 212992, PG, MSG));
	/* 1 byte more: two pages. */
	EXPECT_EQ(2 * PG + MSG, mrc_share_want(4097, 0, 212992, PG, MSG));
	/* Its struct and a page charged: one page left. */
	EXPECT_EQ(PG, mrc_share_want(8192, PG + MSG, 212992, PG, MSG));
	/* An empty message: its struct only. */
	EXPECT_EQ(MSG, mrc_share_want(0, 0, 212992, PG, MSG));
	/* All charged: a struct's worth still (never 0). */
	EXPECT_EQ(MSG, mrc_share_want(4096, PG + MSG, 212992, PG, MSG));
}

/* A quarter of SO_RCVBUF at most, or a page and a struct if more. */
TEST(share__want_is_bounded)
{
	EXPECT_EQ(212992 / 4, mrc_share_want(1 << 20, 0, 212992, PG, MSG));
	EXPECT_EQ(PG + MSG, mrc_share_want(1 << 20, 0, 4608, PG, MSG));
	/* A length near 4 GiB does not wrap. */
	EXPECT_EQ(212992 / 4, mrc_share_want(0xffffffffULL, 0, 212992, PG,
					     MSG));
}

/* Called: from its grant, then past it from room kept for nobody. */
TEST(share__called_takes_its_grant)
{
	__u32 grant = PG + MSG;

	/* The room is all held or kept: its grant still serves. */
	EXPECT_EQ(MRC_SHARE_OK, mrc_share_ask(&grant, MSG, 32768 - PG - MSG,
					      PG + MSG, 32768, 1, 0));
	EXPECT_EQ(PG, grant);
	EXPECT_EQ(MRC_SHARE_OK, mrc_share_ask(&grant, PG, 32768 - PG, PG,
					      32768, 1, 1));
	EXPECT_EQ(0, grant);

	/* More than its grant, with room besides what others are kept:
	 * taken, its grant given back whole.
	 */
	grant = MSG;
	EXPECT_EQ(MRC_SHARE_OK, mrc_share_ask(&grant, PG, 0, MSG + 1000,
					      32768, 1, 1));
	EXPECT_EQ(0, grant);

	/* ... without: its turn still (the place beyond SO_RCVBUF), the
	 * grant kept.
	 */
	grant = MSG;
	EXPECT_EQ(MRC_SHARE_TURN, mrc_share_ask(&grant, PG, 32768 - 100,
						MSG, 32768, 1, 1));
	EXPECT_EQ(MSG, grant);
}

/* Not called: behind the line, unless it may go past it. */
TEST(share__nobody_jumps_the_line)
{
	__u32 grant = 0;

	/* Room enough, but others are before it: refused. */
	EXPECT_EQ(MRC_SHARE_WAIT, mrc_share_ask(&grant, PG, 0, 0, 32768,
						1, 0));
	/* Past the line (begun, or next in order with later ones held):
	 * on, in room kept for nobody; or its turn for the place beyond.
	 */
	EXPECT_EQ(MRC_SHARE_OK, mrc_share_ask(&grant, PG, 0, 0, 32768, 1, 1));
	EXPECT_EQ(MRC_SHARE_OK, mrc_share_ask(&grant, PG, 32768 - PG - 1, 1,
					      32768, 1, 1));
	EXPECT_EQ(MRC_SHARE_TURN, mrc_share_ask(&grant, PG, 32768 - PG,
						1, 32768, 1, 1));
	/* Nobody before it (the first in line, or no line): free room is
	 * taken, kept room is not, and no room is its turn.
	 */
	EXPECT_EQ(MRC_SHARE_OK, mrc_share_ask(&grant, PG, 32768 - PG, 0,
					      32768, 0, 0));
	EXPECT_EQ(MRC_SHARE_TURN, mrc_share_ask(&grant, PG, 32768 - PG - MSG,
						MSG + 1, 32768, 0, 0));
	EXPECT_EQ(MRC_SHARE_TURN, mrc_share_ask(&grant, PG, 0, 0, 2304, 0, 0));
}

/* The first in line: when the room it wants is there, besides what is
 * kept for others; or when nothing is held or kept, whatever it wants.
 */
TEST(share__who_is_called)
{
	EXPECT_TRUE(mrc_share_may_call(32768 - PG - MSG, PG + MSG, 0, 32768));
	EXPECT_FALSE(mrc_share_may_call(32768 - PG - MSG + 1, PG + MSG, 0,
					32768));
	EXPECT_FALSE(mrc_share_may_call(0, PG + MSG, 32768 - PG - MSG + 1,
					32768));
	EXPECT_TRUE(mrc_share_may_call(0, PG + MSG, 32768 - PG - MSG, 32768));
	/* Larger than SO_RCVBUF: only into an empty socket. */
	EXPECT_TRUE(mrc_share_may_call(0, PG + MSG, 0, 2304));
	EXPECT_FALSE(mrc_share_may_call(1, PG + MSG, 0, 2304));
	EXPECT_FALSE(mrc_share_may_call(0, PG + MSG, 1, 2304));
}

/*
 * A model of the kernel's line (net/mrc/rx.c) on these rules: NQP peers,
 * each with messages of a page always outstanding (a struct, then a
 * page, as the kernel charges them), send to one socket whose reader
 * reads one message a round.  Each round, in an order that changes
 * every round (as races would), every peer sends its next message if it
 * is not waiting for a window update, or if its timer fired (every
 * TIMER rounds while it waits: about as long as the line takes); a message refused its struct or its
 * page keeps nothing and puts its peer in line (at the back, unless it
 * is there), a grant it held given back; the reader reads; the first in
 * line the room now holds are called, and a peer's turn ends as its
 * message completes.  Every peer must be served about as often as every
 * other, and the socket never hold or keep more than SO_RCVBUF (nor one
 * message more, for the socket larger than nothing).
 */
#define NQP	64
#define ROUNDS	20000
#define TIMER	50

struct peer {
	__u32 grant;
	int in_line;		/* waiting or called */
	int waits;		/* for a window update */
	int since;		/* rounds waited */
	unsigned int served;
};

struct model {
	__u32 rcvbuf;
	struct peer p[NQP];
	int line[NQP], line_len;	/* waiting, first first */
	int rxq[4096], rxq_len;
	__s64 held, most;
	__u32 reserved;
	unsigned int refusals, sent;
};

static int behind(struct model *m, int i)
{
	return m->line_len && m->line[0] != i;
}

static void line_drop(struct model *m, int i)
{
	int k, j = 0;

	for (k = 0; k < m->line_len; k++)
		if (m->line[k] != i)
			m->line[j++] = m->line[k];
	m->line_len = j;
}

static void turn_end(struct model *m, int i)
{
	m->reserved -= m->p[i].grant;
	m->p[i].grant = 0;
	m->p[i].in_line = 0;
	line_drop(m, i);
}

/* @n bytes of peer @i's message, @past once its struct is charged. */
static int model_charge(struct model *m, int i, __u32 n, int past)
{
	struct peer *p = &m->p[i];
	__u32 grant = p->grant;
	enum mrc_share_verdict v;

	v = mrc_share_ask(&grant, n, m->held, m->reserved, m->rcvbuf,
			  behind(m, i), past);
	if (p->grant) {
		m->reserved -= p->grant - grant;
		p->grant = grant;
		if (!grant)
			turn_end(m, i);
	}
	/* TURN: the place beyond SO_RCVBUF, when nothing is held. */
	if (v == MRC_SHARE_OK || (v == MRC_SHARE_TURN && m->held <= 0)) {
		m->held += n;
		return 1;
	}
	return 0;
}

static void model_send(struct model *m, int i)
{
	struct peer *p = &m->p[i];

	m->sent++;
	if (model_charge(m, i, MSG, 0)) {
		if (model_charge(m, i, PG, 1)) {
			m->rxq[m->rxq_len++] = i;
			/* Its message complete: its turn ends. */
			if (p->in_line)
				turn_end(m, i);
			p->waits = 0;
			return;
		}
		m->held -= MSG;		/* refused its page: keeps nothing */
	}
	m->refusals++;
	if (p->grant)
		turn_end(m, i);
	if (!p->in_line) {
		p->in_line = 1;
		m->line[m->line_len++] = i;
	}
	p->waits = 1;
	p->since = 0;
}

static void model_call(struct model *m)
{
	while (m->line_len) {
		int i = m->line[0];
		__u32 want = mrc_share_want(PG, 0, m->rcvbuf, PG, MSG);

		if (!mrc_share_may_call(m->held, want, m->reserved,
					m->rcvbuf))
			break;
		line_drop(m, i);
		m->p[i].grant = want;
		m->reserved += want;
		m->p[i].waits = 0;
	}
}

static void model_run(struct model *m, __u32 rcvbuf, unsigned int *lo,
		      unsigned int *hi)
{
	unsigned int seed = 1;

	memset(m, 0, sizeof(*m));
	m->rcvbuf = rcvbuf;
	for (int r = 0; r < ROUNDS; r++) {
		int start;

		seed = seed * 1103515245 + 12345;
		start = (seed >> 16) % NQP;
		for (int k = 0; k < NQP; k++) {
			int i = (start + k * 7) % NQP;	/* 7: prime to 64 */
			struct peer *p = &m->p[i];

			if (!p->waits || ++p->since % TIMER == 0)
				model_send(m, i);
		}
		if (m->held + m->reserved > m->most)
			m->most = m->held + m->reserved;
		if (m->rxq_len) {
			m->p[m->rxq[0]].served++;
			m->held -= PG + MSG;
			m->rxq_len--;
			memmove(m->rxq, m->rxq + 1, m->rxq_len * sizeof(int));
		}
		model_call(m);
	}
	*lo = ~0u;
	*hi = 0;
	for (int i = 0; i < NQP; i++) {
		if (m->p[i].served < *lo)
			*lo = m->p[i].served;
		if (m->p[i].served > *hi)
			*hi = m->p[i].served;
	}
	fprintf(stderr,
		"# SO_RCVBUF %u: served %u to %u a peer; %u refusals of %u sent; held and kept at most %lld\n",
		rcvbuf, *lo, *hi, m->refusals, m->sent, (long long)m->most);
}

/* SO_RCVBUF 16 KiB as the kernel keeps it (32 KiB): 7 messages. */
TEST(share__model_64_peers_one_reader)
{
	static struct model m;
	unsigned int lo, hi;

	model_run(&m, 32768, &lo, &hi);
	/* One message a round is read, shared in turn. */
	EXPECT_GE(lo, ROUNDS / NQP - 2);
	EXPECT_LE(hi - lo, 2);
	EXPECT_LE(m.most, 32768);
	/* A refusal a message, or fewer, plus the timers' tries. */
	EXPECT_LE(m.refusals, 3 * ROUNDS);
}

/* SO_RCVBUF smaller than one message: one at a time, each in turn. */
TEST(share__model_tiny_rcvbuf)
{
	static struct model m;
	unsigned int lo, hi;

	model_run(&m, 2304, &lo, &hi);
	EXPECT_GE(lo, 1);
	EXPECT_LE(hi - lo, 2);
	EXPECT_LE(m.most, PG + MSG);
}

TEST_HARNESS_MAIN
