// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of include/mrc/tag.h: which packets a queue pair takes from
 * its peer by their incarnation tags.  Every branch of the four helpers
 * on its own, then the flows they exist for: a first contact, both ends
 * opening at once, a restarted peer proving itself through a challenge,
 * and a blind forger who must guess 32 random bits and does not.
 */
#include <string.h>

#include "kselftest_harness.h"

#include <mrc/tag.h>

/* Two ends' tags, as mrc_tag_init() draws them, and a third party's. */
#define TAG_Q		0x9e3779b9u	/* this end */
#define TAG_P		0x7f4a7c15u	/* its peer */
#define TAG_X		0x2545f491u	/* somebody else */

static struct mrc_tags tags(__u32 local, __u32 peer)
{
	struct mrc_tags t = { .local = local, .peer = peer };

	return t;
}

/* Tags that are not @t, the closest first: off by one bit, by one, its
 * complement, 0 and all ones.
 */
static int wrong_tags(__u32 t, __u32 *w)
{
	int n = 0;

	w[n++] = 0;
	w[n++] = t ^ 1;
	w[n++] = t ^ 0x80000000u;
	w[n++] = t + 1;
	w[n++] = t - 1;
	w[n++] = ~t;
	w[n++] = t == 0xffffffffu ? 0xfffffffeu : 0xffffffffu;
	w[n++] = t == TAG_X ? TAG_X + 2 : TAG_X;
	return n;
}

#define MAX_WRONG	8

/* Init: a tag is never 0, since 0 is what "unknown" echoes. */

TEST(init__zero_maps_to_one)
{
	struct mrc_tags t;

	memset(&t, 0xa5, sizeof(t));
	mrc_tag_init(&t, 0);
	EXPECT_EQ(1, t.local);
	EXPECT_EQ(0, t.peer);
}

TEST(init__keeps_nonzero_and_forgets_peer)
{
	static const __u32 rnd[] = { 1, 2, 0x80000000u, 0xfffffffeu,
				     0xffffffffu, TAG_Q };
	struct mrc_tags t;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(rnd); i++) {
		memset(&t, 0xa5, sizeof(t));
		mrc_tag_init(&t, rnd[i]);
		EXPECT_EQ(rnd[i], t.local);
		EXPECT_EQ(0, t.peer);
	}
}

/* Acknowledgments: taken by their echo alone. */

TEST(ack__echo_must_be_local)
{
	__u32 w[MAX_WRONG], peers[] = { 0, TAG_P };
	size_t k;
	int n, i;

	n = wrong_tags(TAG_Q, w);
	for (k = 0; k < ARRAY_SIZE(peers); k++)
		for (i = 0; i < n; i++) {
			struct mrc_tags t = tags(TAG_Q, peers[k]);

			/* Whatever the tag, the peer's included: an
			 * acknowledgment answers a packet of ours.
			 */
			EXPECT_EQ(MRC_TAG_BAD, mrc_tag_ack(&t, TAG_X, w[i]));
			EXPECT_EQ(MRC_TAG_BAD, mrc_tag_ack(&t, TAG_P, w[i]));
			EXPECT_EQ(MRC_TAG_BAD, mrc_tag_ack(&t, 0, w[i]));
			EXPECT_EQ(TAG_Q, t.local);
			EXPECT_EQ(peers[k], t.peer);
		}
}

TEST(ack__learns_unknown_peer)
{
	struct mrc_tags t = tags(TAG_Q, 0);

	EXPECT_EQ(MRC_TAG_OK, mrc_tag_ack(&t, TAG_P, TAG_Q));
	EXPECT_EQ(TAG_Q, t.local);
	EXPECT_EQ(TAG_P, t.peer);
}

/* The peer's tag, known: nothing moves. */
TEST(ack__keeps_known_peer)
{
	struct mrc_tags t = tags(TAG_Q, TAG_P);

	EXPECT_EQ(MRC_TAG_OK, mrc_tag_ack(&t, TAG_P, TAG_Q));
	EXPECT_EQ(TAG_P, t.peer);
	EXPECT_EQ(0U, t.old);
}

/* Another tag echoing ours is the peer's end as it is now (a challenge,
 * a new QP of its that answers a new epoch of ours, or the real peer
 * after a forger's first packet taught us its tag): taken, the known
 * one remembered as the old, which is then refused.
 */
TEST(ack__another_tag_replaces)
{
	struct mrc_tags t = tags(TAG_Q, TAG_P);

	EXPECT_EQ(MRC_TAG_NEW_PEER, mrc_tag_ack(&t, TAG_X, TAG_Q));
	EXPECT_EQ(TAG_Q, t.local);
	EXPECT_EQ(TAG_X, t.peer);
	EXPECT_EQ(TAG_P, t.old);
	EXPECT_EQ(MRC_TAG_BAD, mrc_tag_ack(&t, TAG_P, TAG_Q));
	EXPECT_EQ(MRC_TAG_BAD, mrc_tag_data(&t, TAG_P, TAG_Q, 1));
	EXPECT_EQ(TAG_X, t.peer);

	/* Unknown before: learnt, nothing replaced. */
	t = tags(TAG_Q, 0);
	EXPECT_EQ(MRC_TAG_OK, mrc_tag_ack(&t, TAG_X, TAG_Q));
	EXPECT_EQ(TAG_X, t.peer);
	EXPECT_EQ(0U, t.old);

	/* The same tag again: nothing moves. */
	EXPECT_EQ(MRC_TAG_OK, mrc_tag_ack(&t, TAG_X, TAG_Q));
	EXPECT_EQ(TAG_X, t.peer);
}

/* Review finding: a forger's start taught a QP opened by a peer's packet
 * (or before the peer's first answer) a wrong tag; the real peer's
 * first acknowledgment, echoing ours, puts it right, and the forger's
 * tag is refused from then on, data and starts alike.
 */
TEST(ack__real_peer_displaces_forged_tag)
{
	struct mrc_tags t = tags(TAG_Q, 0);

	EXPECT_EQ(MRC_TAG_OK, mrc_tag_data(&t, TAG_X, 0, 1));
	EXPECT_EQ(TAG_X, t.peer);
	EXPECT_EQ(MRC_TAG_OK, mrc_tag_data(&t, TAG_X, 0x1234, 0));
	EXPECT_EQ(MRC_TAG_NEW_PEER, mrc_tag_ack(&t, TAG_P, TAG_Q));
	EXPECT_EQ(TAG_P, t.peer);
	EXPECT_EQ(MRC_TAG_BAD, mrc_tag_data(&t, TAG_X, 0, 0));
	EXPECT_EQ(MRC_TAG_BAD, mrc_tag_data(&t, TAG_X, 0, 1));
	EXPECT_EQ(MRC_TAG_OK, mrc_tag_data(&t, TAG_P, TAG_Q, 0));
}

/* A receiver with no QP for our packet refuses it with no tag of its
 * own: taken, and 0 is never learnt as the peer's tag.
 */
TEST(ack__stateless_refusal)
{
	__u32 peers[] = { 0, TAG_P };
	size_t k;

	for (k = 0; k < ARRAY_SIZE(peers); k++) {
		struct mrc_tags t = tags(TAG_Q, peers[k]);

		EXPECT_EQ(MRC_TAG_OK, mrc_tag_ack(&t, 0, TAG_Q));
		EXPECT_EQ(TAG_Q, t.local);
		EXPECT_EQ(peers[k], t.peer);
	}
}

/* Data. */

TEST(data__tag_zero_is_bad)
{
	__u32 peers[] = { 0, TAG_P }, echoes[] = { 0, TAG_Q, TAG_X, TAG_P };
	size_t k, e;
	int s;

	/* Not even with the peer unknown, where 0 == peer. */
	for (k = 0; k < ARRAY_SIZE(peers); k++)
		for (e = 0; e < ARRAY_SIZE(echoes); e++)
			for (s = 0; s <= 1; s++) {
				struct mrc_tags t = tags(TAG_Q, peers[k]);

				EXPECT_EQ(MRC_TAG_BAD,
					  mrc_tag_data(&t, 0, echoes[e], s));
				EXPECT_EQ(TAG_Q, t.local);
				EXPECT_EQ(peers[k], t.peer);
			}
}

/* The peer's tag: taken whatever it echoes, since the peer may have
 * learnt a wrong one of ours (from a forger's packet, or an earlier QP).
 */
TEST(data__peer_tag_ok_whatever_echo)
{
	__u32 w[MAX_WRONG];
	int n, i, s;

	n = wrong_tags(TAG_Q, w);
	for (s = 0; s <= 1; s++) {
		struct mrc_tags t = tags(TAG_Q, TAG_P);

		EXPECT_EQ(MRC_TAG_OK, mrc_tag_data(&t, TAG_P, TAG_Q, s));
		for (i = 0; i < n; i++)
			EXPECT_EQ(MRC_TAG_OK,
				  mrc_tag_data(&t, TAG_P, w[i], s));
		EXPECT_EQ(TAG_Q, t.local);
		EXPECT_EQ(TAG_P, t.peer);
	}
}

/* A new tag that echoes ours, over a known peer, on a packet that may
 * start an incarnation: a new incarnation that heard from us, taken
 * once; its next packets are plain OK.  One that may not start one
 * (its first packet would) is not taken, and moves nothing.
 */
TEST(data__echo_proves_new_peer)
{
	struct mrc_tags t = tags(TAG_Q, TAG_P);

	EXPECT_EQ(MRC_TAG_BAD, mrc_tag_data(&t, TAG_X, TAG_Q, 0));
	EXPECT_EQ(TAG_P, t.peer);
	EXPECT_EQ(MRC_TAG_NEW_PEER, mrc_tag_data(&t, TAG_X, TAG_Q, 1));
	EXPECT_EQ(TAG_Q, t.local);
	EXPECT_EQ(TAG_X, t.peer);
	EXPECT_EQ(TAG_P, t.old);
	EXPECT_EQ(MRC_TAG_OK, mrc_tag_data(&t, TAG_X, TAG_Q, 1));
	EXPECT_EQ(MRC_TAG_OK, mrc_tag_data(&t, TAG_X, 0, 0));
	EXPECT_EQ(TAG_X, t.peer);
}

/* ... and with no peer known yet it is simply the first one: OK, if it
 * may start an incarnation.
 */
TEST(data__echo_learns_unknown_peer)
{
	struct mrc_tags t = tags(TAG_Q, 0);

	EXPECT_EQ(MRC_TAG_BAD, mrc_tag_data(&t, TAG_P, TAG_Q, 0));
	EXPECT_EQ(0U, t.peer);
	EXPECT_EQ(MRC_TAG_OK, mrc_tag_data(&t, TAG_P, TAG_Q, 1));
	EXPECT_EQ(TAG_Q, t.local);
	EXPECT_EQ(TAG_P, t.peer);
}

/* A packet that may start an incarnation, to a QP with no peer known:
 * its tag is learnt whatever it echoes, 0 from a fresh peer, or a tag of
 * an earlier QP of ours from a peer that outlived it.
 */
TEST(data__start_learns_unknown_peer_whatever_echo)
{
	__u32 w[MAX_WRONG];
	int n, i;

	n = wrong_tags(TAG_Q, w);
	for (i = 0; i < n; i++) {
		struct mrc_tags t = tags(TAG_Q, 0);

		EXPECT_EQ(MRC_TAG_OK, mrc_tag_data(&t, TAG_P, w[i], 1));
		EXPECT_EQ(TAG_Q, t.local);
		EXPECT_EQ(TAG_P, t.peer);
	}
}

TEST(data__unknown_peer_no_start_is_bad)
{
	__u32 w[MAX_WRONG];
	int n, i;

	n = wrong_tags(TAG_Q, w);
	for (i = 0; i < n; i++) {
		struct mrc_tags t = tags(TAG_Q, 0);

		EXPECT_EQ(MRC_TAG_BAD, mrc_tag_data(&t, TAG_P, w[i], 0));
		EXPECT_EQ(TAG_Q, t.local);
		EXPECT_EQ(0, t.peer);
	}
}

/* Another tag over a live peer, not echoing ours: a restarted peer's
 * first packet or a forger's.  Challenged if it may start an incarnation,
 * dropped if not; either way nothing changes until ours is echoed.
 */
TEST(data__other_tag_over_live_peer)
{
	__u32 w[MAX_WRONG];
	int n, i;

	n = wrong_tags(TAG_Q, w);
	for (i = 0; i < n; i++) {
		struct mrc_tags t = tags(TAG_Q, TAG_P);

		EXPECT_EQ(MRC_TAG_CHALLENGE,
			  mrc_tag_data(&t, TAG_X, w[i], 1));
		EXPECT_EQ(TAG_Q, t.local);
		EXPECT_EQ(TAG_P, t.peer);
		EXPECT_EQ(MRC_TAG_BAD, mrc_tag_data(&t, TAG_X, w[i], 0));
		EXPECT_EQ(TAG_Q, t.local);
		EXPECT_EQ(TAG_P, t.peer);
	}
}

/* Probes: a probe carries its sender's tag alone (MRC 1.0's size, the
 * tag in PETH bytes 0-3): answered only if it is the peer's.  The answer
 * echoes it, and the prober takes it by the echo (mrc_tag_ack()).
 */

TEST(probe__needs_the_peer_tag)
{
	struct mrc_tags t = tags(TAG_Q, TAG_P);
	__u32 w[MAX_WRONG];
	int n, i;

	EXPECT_TRUE(mrc_tag_probe(&t, TAG_P));
	n = wrong_tags(TAG_P, w);
	for (i = 0; i < n; i++)
		EXPECT_FALSE(mrc_tag_probe(&t, w[i]));
	/* Our own tag: a probe of ours reflected back. */
	EXPECT_FALSE(mrc_tag_probe(&t, TAG_Q));
	/* The peer's incarnation before the last: not answered. */
	t.old = TAG_X;
	EXPECT_FALSE(mrc_tag_probe(&t, TAG_X));
	EXPECT_TRUE(mrc_tag_probe(&t, TAG_P));
}

/* With no peer known nothing proves the prober is one: not even a tag
 * of 0 (an untagged probe, MRC 1.0's), which equals the unknown peer's.
 */
TEST(probe__never_with_peer_unknown)
{
	const struct mrc_tags t = tags(TAG_Q, 0);

	EXPECT_FALSE(mrc_tag_probe(&t, 0));
	EXPECT_FALSE(mrc_tag_probe(&t, TAG_P));
	EXPECT_FALSE(mrc_tag_probe(&t, TAG_Q));
	EXPECT_FALSE(mrc_tag_probe(&t, 0xffffffffu));
}

/* An untagged probe (PETH bytes 0-3 zero) is never answered. */
TEST(probe__untagged_never)
{
	const struct mrc_tags t = tags(TAG_Q, TAG_P);

	EXPECT_FALSE(mrc_tag_probe(&t, 0));
}

/* The answer carries the responder's tags: its own, and the prober's
 * echoed.  The prober takes it only if the echo is its tag.
 */
TEST(probe__answer_taken_by_its_echo)
{
	struct mrc_tags q = tags(TAG_Q, TAG_P), r = tags(TAG_P, TAG_Q);
	__u32 w[MAX_WRONG];
	int n, i;

	EXPECT_TRUE(mrc_tag_probe(&r, q.local));
	EXPECT_EQ(MRC_TAG_OK, mrc_tag_ack(&q, r.local, r.peer));
	n = wrong_tags(TAG_Q, w);
	for (i = 0; i < n; i++)
		EXPECT_EQ(MRC_TAG_BAD, mrc_tag_ack(&q, r.local, w[i]));
	EXPECT_EQ(TAG_Q, q.local);
	EXPECT_EQ(TAG_P, q.peer);
}

/*
 * Scenarios.  An end is its tags; a packet it sends carries
 * (local, peer) as mrc_tx and mrc_rx put them in the ITETH.
 */

/* (a) First contact: the responder's QP is opened by the START. */
TEST(scenario__first_contact)
{
	struct mrc_tags i, r;

	mrc_tag_init(&i, TAG_Q);
	mrc_tag_init(&r, TAG_P);

	/* The initiator's START, echoing nothing, opens the responder's
	 * QP, which learns its tag.
	 */
	EXPECT_EQ(MRC_TAG_OK, mrc_tag_data(&r, i.local, i.peer, 1));
	EXPECT_EQ(TAG_Q, r.peer);
	/* The responder's ACK echoes the initiator's tag: learnt. */
	EXPECT_EQ(MRC_TAG_OK, mrc_tag_ack(&i, r.local, r.peer));
	EXPECT_EQ(TAG_P, i.peer);

	/* From then on, both directions' data, acks and probes pass and
	 * neither end's tags move.
	 */
	EXPECT_EQ(MRC_TAG_OK, mrc_tag_data(&r, i.local, i.peer, 0));
	EXPECT_EQ(MRC_TAG_OK, mrc_tag_ack(&i, r.local, r.peer));
	EXPECT_EQ(MRC_TAG_OK, mrc_tag_data(&i, r.local, r.peer, 1));
	EXPECT_EQ(MRC_TAG_OK, mrc_tag_data(&i, r.local, r.peer, 0));
	EXPECT_EQ(MRC_TAG_OK, mrc_tag_ack(&r, i.local, i.peer));
	EXPECT_TRUE(mrc_tag_probe(&r, i.local));
	EXPECT_TRUE(mrc_tag_probe(&i, r.local));
	EXPECT_EQ(TAG_Q, i.local);
	EXPECT_EQ(TAG_P, i.peer);
	EXPECT_EQ(TAG_P, r.local);
	EXPECT_EQ(TAG_Q, r.peer);
}

/* The responder's data overtakes its first ACK (another path): it
 * echoes the initiator's tag, which is proof enough (and is a start of
 * its direction, as its first packets are until acknowledged); the ACK
 * then passes too.  A START of the initiator's that arrives late, still
 * echoing 0, is its own.
 */
TEST(scenario__first_contact_data_before_ack)
{
	struct mrc_tags i, r;

	mrc_tag_init(&i, TAG_Q);
	mrc_tag_init(&r, TAG_P);
	EXPECT_EQ(MRC_TAG_OK, mrc_tag_data(&r, i.local, 0, 1));
	EXPECT_EQ(MRC_TAG_OK, mrc_tag_data(&i, r.local, r.peer, 1));
	EXPECT_EQ(TAG_P, i.peer);
	EXPECT_EQ(MRC_TAG_OK, mrc_tag_ack(&i, r.local, r.peer));
	EXPECT_EQ(MRC_TAG_OK, mrc_tag_data(&r, i.local, 0, 1));
	EXPECT_EQ(TAG_P, i.peer);
	EXPECT_EQ(TAG_Q, r.peer);
}

/* Both ends open at once: each START, echoing 0, reaches a QP with no
 * peer known and is taken; the acks echo the right tags.
 */
TEST(scenario__simultaneous_open)
{
	struct mrc_tags a, b;

	mrc_tag_init(&a, TAG_Q);
	mrc_tag_init(&b, TAG_P);
	EXPECT_EQ(MRC_TAG_OK, mrc_tag_data(&b, a.local, 0, 1));
	EXPECT_EQ(MRC_TAG_OK, mrc_tag_data(&a, b.local, 0, 1));
	EXPECT_EQ(MRC_TAG_OK, mrc_tag_ack(&a, b.local, b.peer));
	EXPECT_EQ(MRC_TAG_OK, mrc_tag_ack(&b, a.local, a.peer));
	EXPECT_EQ(TAG_P, a.peer);
	EXPECT_EQ(TAG_Q, b.peer);
}

/*
 * (b) The peer restarts on the same port, with a new QP and tag.  Its
 * START is challenged; the challenge, a NACK 0x1A carrying our tag and
 * echoing the packet's, teaches it ours; its resend echoes it and is
 * taken as a new incarnation.
 */
TEST(scenario__restarted_peer)
{
	struct mrc_tags q = tags(TAG_Q, TAG_P), r2;
	__u32 w[MAX_WRONG];
	int n, i;

	mrc_tag_init(&r2, TAG_X);

	EXPECT_EQ(MRC_TAG_CHALLENGE, mrc_tag_data(&q, r2.local, r2.peer, 1));
	EXPECT_EQ(TAG_Q, q.local);
	EXPECT_EQ(TAG_P, q.peer);

	/* The challenge: our tag, echoing the challenged packet's. */
	EXPECT_EQ(MRC_TAG_OK, mrc_tag_ack(&r2, q.local, TAG_X));
	EXPECT_EQ(TAG_Q, r2.peer);

	EXPECT_EQ(MRC_TAG_NEW_PEER, mrc_tag_data(&q, r2.local, r2.peer, 1));
	EXPECT_EQ(TAG_Q, q.local);
	EXPECT_EQ(TAG_X, q.peer);

	/* Both directions go on with the new incarnation. */
	EXPECT_EQ(MRC_TAG_OK, mrc_tag_data(&q, r2.local, r2.peer, 0));
	EXPECT_EQ(MRC_TAG_OK, mrc_tag_ack(&r2, q.local, q.peer));
	EXPECT_EQ(MRC_TAG_OK, mrc_tag_data(&r2, q.local, q.peer, 0));
	EXPECT_EQ(MRC_TAG_OK, mrc_tag_ack(&q, r2.local, r2.peer));
	EXPECT_TRUE(mrc_tag_probe(&q, r2.local));
	EXPECT_FALSE(mrc_tag_probe(&q, TAG_P));

	/* The old incarnation, unless it echoes our tag (see the next
	 * test), is not taken: dropped, or at most challenged if it may
	 * start one (tag.h, remembering it, drops that too), and
	 * the new one stays.
	 */
	n = wrong_tags(TAG_Q, w);
	for (i = 0; i < n; i++) {
		enum mrc_tag_verdict v;

		EXPECT_EQ(MRC_TAG_BAD, mrc_tag_data(&q, TAG_P, w[i], 0));
		v = mrc_tag_data(&q, TAG_P, w[i], 1);
		EXPECT_TRUE(v == MRC_TAG_CHALLENGE || v == MRC_TAG_BAD);
		EXPECT_EQ(TAG_X, q.peer);
	}
	EXPECT_EQ(MRC_TAG_OK, mrc_tag_data(&q, r2.local, r2.peer, 0));
}

/*
 * A data packet of the old incarnation's after the new one was taken:
 * one that took a slower path, or a retransmission of the old socket's,
 * which lingers superseded on the port until its messages are acked
 * (net/mrc/sock.c, mrc_do_bind()).  It echoes our tag, since the old
 * incarnation had heard from us.  It must not take the QP back: each
 * NEW_PEER purges the receive direction (rx.c), so the two incarnations
 * would purge each other's messages in turn for as long as the old one
 * lingers: tag.h remembers the tag it replaced (mrc_tags.old).
 */
TEST(scenario__restarted_peer_stale_packet)
{
	struct mrc_tags q = tags(TAG_Q, TAG_P);
	enum mrc_tag_verdict v;

	/* TAG_P restarted as TAG_X, which proved itself (as above). */
	ASSERT_EQ(MRC_TAG_NEW_PEER, mrc_tag_data(&q, TAG_X, TAG_Q, 1));
	v = mrc_tag_data(&q, TAG_P, TAG_Q, 0);
	EXPECT_EQ(MRC_TAG_BAD, v);
	/* Nor an acknowledgment of the old one's. */
	EXPECT_EQ(MRC_TAG_BAD, mrc_tag_ack(&q, TAG_P, TAG_Q));
	EXPECT_EQ(TAG_X, q.peer);
	/* Nor with a START: the old incarnation proved nothing new. */
	EXPECT_NE(MRC_TAG_NEW_PEER, mrc_tag_data(&q, TAG_P, TAG_Q, 1));
	EXPECT_EQ(TAG_X, q.peer);
	/* The new incarnation goes on undisturbed. */
	EXPECT_EQ(MRC_TAG_OK, mrc_tag_data(&q, TAG_X, TAG_Q, 0));
}

/*
 * A forger's START over a live QP is challenged; the challenge goes to
 * the address the forger claimed, the live peer's, which drops it (it
 * echoes the forger's tag, not the peer's) and goes on unharmed.
 */
TEST(scenario__challenge_reaching_live_peer)
{
	struct mrc_tags q = tags(TAG_Q, TAG_P), p = tags(TAG_P, TAG_Q);

	EXPECT_EQ(MRC_TAG_CHALLENGE, mrc_tag_data(&q, TAG_X, 0, 1));
	EXPECT_EQ(MRC_TAG_BAD, mrc_tag_ack(&p, q.local, TAG_X));
	EXPECT_EQ(TAG_Q, p.peer);
	EXPECT_EQ(TAG_P, q.peer);
	EXPECT_EQ(MRC_TAG_OK, mrc_tag_data(&q, p.local, p.peer, 0));
	EXPECT_EQ(MRC_TAG_OK, mrc_tag_ack(&p, q.local, q.peer));
}

/* A packet of ours reflected back to us (tags swapped) is not the
 * peer's: the echo is the peer's tag, not ours.
 */
TEST(scenario__reflection)
{
	struct mrc_tags q = tags(TAG_Q, TAG_P);

	EXPECT_EQ(MRC_TAG_BAD, mrc_tag_ack(&q, q.local, q.peer));
	EXPECT_EQ(MRC_TAG_BAD, mrc_tag_data(&q, q.local, q.peer, 0));
	EXPECT_EQ(MRC_TAG_CHALLENGE, mrc_tag_data(&q, q.local, q.peer, 1));
	EXPECT_FALSE(mrc_tag_probe(&q, q.local));
	EXPECT_EQ(TAG_Q, q.local);
	EXPECT_EQ(TAG_P, q.peer);
}

/* xorshift32 (Marsaglia): a fixed seed, so a failure reproduces. */
static __u32 xorshift32(__u32 *s)
{
	__u32 x = *s;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	*s = x;
	return x;
}

#define FORGER_TRIES	100000

/*
 * (c) A blind forger knows the QP's addresses and ports but not its
 * tags: none of its acknowledgments count, none of its data is taken
 * (a START is at most challenged), none of its probes is answered, and
 * the QP's tags never move.
 */
TEST(scenario__blind_forger)
{
	struct mrc_tags q = tags(TAG_Q, TAG_P);
	__u32 seed = 0x12345678, tag, echo, bits;
	int i, challenged = 0;

	for (i = 0; i < FORGER_TRIES; i++) {
		enum mrc_tag_verdict v;

		tag = xorshift32(&seed);
		echo = xorshift32(&seed);
		bits = xorshift32(&seed);
		/* Now and then the forger's zeros, or its tag as an echo. */
		if (!(bits & 0x700))
			tag = 0;
		if (!(bits & 0x7000))
			echo = 0;
		if (!(bits & 0x70000))
			echo = tag;

		EXPECT_EQ(MRC_TAG_BAD, mrc_tag_ack(&q, tag, echo));
		v = mrc_tag_data(&q, tag, echo, bits & 2);
		if (tag && bits & 2) {
			EXPECT_EQ(MRC_TAG_CHALLENGE, v);
			challenged++;
		} else {
			EXPECT_EQ(MRC_TAG_BAD, v);
		}
		EXPECT_FALSE(mrc_tag_probe(&q, tag));
		EXPECT_EQ(MRC_TAG_BAD, mrc_tag_ack(&q, TAG_P, echo));
		EXPECT_EQ(TAG_Q, q.local);
		EXPECT_EQ(TAG_P, q.peer);
		if (!_metadata->passed) {
			TH_LOG("try %d: tag 0x%08x echo 0x%08x bits 0x%x",
			       i, tag, echo, bits);
			break;
		}
	}
	/* The sweep reached the challenge branch, not only the drops. */
	EXPECT_GT(challenged, FORGER_TRIES / 4);
}

TEST_HARNESS_MAIN
