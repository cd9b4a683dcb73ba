/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mrc incarnation tags: which packets a queue pair takes from its peer.
 *
 * Each end of a queue pair draws a random 32-bit tag, never 0, when the
 * QP opens; every packet it sends carries its own tag and the peer's as
 * it knows it, 0 until then, in an ITETH (include/mrc/wire.h,
 * Documentation/wire-format.rst).  A packet that echoes this end's tag
 * comes from somebody who received a packet of this QP: the peer, or a
 * host on the path.  A blind forger must guess 32 random bits for an
 * acknowledgment to count, and the peer's 32 for data.  A new
 * incarnation of the peer (a restarted process on the same port, with a
 * tag of its own) is taken over a live one only once it has echoed this
 * end's tag, which it learns from a challenge sent to its address.
 *
 * Pure logic: compiles in the kernel and in userspace
 * (tools/unit/unit_tag.c).
 */
#ifndef _MRC_TAG_H
#define _MRC_TAG_H

#include <linux/types.h>

/* A tag changes under its QP's lock, and a probe reads it without. */
#ifdef __KERNEL__
#include <linux/compiler.h>
#define mrc_tag_set(x, v)	WRITE_ONCE(x, v)
#else
#define mrc_tag_set(x, v)	((x) = (v))
#endif

/**
 * struct mrc_tags - a queue pair's incarnation tags
 * @local: this end's tag, random, never 0
 * @peer: the peer's, 0 while unknown
 * @old: the peer's before its last new incarnation, 0 if none: a
 *	restarted peer's old socket may linger, resending what it sent
 *	(and echoing our tag), and must not take the QP back
 */
struct mrc_tags {
	__u32 local;
	__u32 peer;
	__u32 old;
};

/* What becomes of a packet of the peer's, by its tags. */
enum mrc_tag_verdict {
	MRC_TAG_OK,		/* the incarnation's, or the first one's */
	MRC_TAG_NEW_PEER,	/* a new incarnation of the peer, proven: its
				 * tag is taken, its direction starts anew
				 */
	MRC_TAG_BAD,		/* not the QP's: dropped */
	MRC_TAG_CHALLENGE,	/* a new incarnation, unproven, over a live
				 * one: dropped, and its sender is sent our
				 * tag to echo (NACK 0x1A)
				 */
};

/**
 * mrc_tag_init() - a new queue pair's tags
 * @t: the tags
 * @rnd: a random 32-bit number
 */
static inline void mrc_tag_init(struct mrc_tags *t, __u32 rnd)
{
	mrc_tag_set(t->local, rnd ? rnd : 1);
	mrc_tag_set(t->peer, 0);
	t->old = 0;
}

/**
 * mrc_tag_ack() - whether an acknowledgment (ACK, SACK, NACK or a probe's
 * answer) is the peer's
 * @t: the QP's tags
 * @tag: the packet's sender tag (0 from a receiver without state)
 * @echo: the tag it echoes
 *
 * By the echo alone: an acknowledgment answers a packet of ours, and a
 * receiver that had no QP for it (a refusal) has no tag to send.  Its
 * sender is the peer's end as it is now, at the address our packet went
 * to: a tag of its not known yet is taken, whether none was (the first
 * answer) or another (learnt from a packet that could start an
 * incarnation, which anyone could have sent first; or of a peer's end
 * since closed, whose new one answers a new epoch of ours; or a
 * challenge's), and the tag it replaces is remembered.  One from the
 * peer's end before is not taken.
 *
 * Return: MRC_TAG_OK, MRC_TAG_NEW_PEER when it replaced a known tag, or
 * MRC_TAG_BAD.
 */
static inline enum mrc_tag_verdict mrc_tag_ack(struct mrc_tags *t,
					       __u32 tag, __u32 echo)
{
	__u32 was = t->peer;

	if (echo != t->local || (tag && tag == t->old))
		return MRC_TAG_BAD;
	if (!tag || tag == was)
		return MRC_TAG_OK;
	if (was)
		t->old = was;
	mrc_tag_set(t->peer, tag);
	return was ? MRC_TAG_NEW_PEER : MRC_TAG_OK;
}

/**
 * mrc_tag_data() - whether a data packet is the peer's
 * @t: the QP's tags
 * @tag: the packet's sender tag
 * @echo: the tag it echoes
 * @may_start: the packet may start an incarnation (rx.c's
 *	mrc_rx_may_start())
 *
 * Taken: the peer's tag, whatever it echoes (we may have been made to
 * learn a wrong one, which the peer's first answer puts right: see
 * mrc_tag_ack()); and, if it may start an incarnation, one that echoes
 * ours, from a peer that restarted and has heard from us since, a new
 * incarnation (but never the tag that one replaced), or, with the peer's
 * tag not known yet (nothing of its direction taken), any, whatever it
 * echoes (the peer may know a tag of an earlier QP of ours).  A packet
 * that may start an incarnation, with another tag and ours unknown to
 * it, is a restarted peer's first, or a blind forger's: it is
 * challenged, and taken only once its sender echoes our tag.
 *
 * Return: an enum mrc_tag_verdict.
 */
static inline enum mrc_tag_verdict mrc_tag_data(struct mrc_tags *t,
						__u32 tag, __u32 echo,
						int may_start)
{
	__u32 was = t->peer;

	if (!tag || tag == t->old)
		return MRC_TAG_BAD;
	if (tag == was)
		return MRC_TAG_OK;
	if (!may_start)
		return MRC_TAG_BAD;
	if (echo == t->local || !was) {
		if (was)
			t->old = was;
		mrc_tag_set(t->peer, tag);
		return was ? MRC_TAG_NEW_PEER : MRC_TAG_OK;
	}
	return MRC_TAG_CHALLENGE;
}

/**
 * mrc_tag_probe() - whether to answer a probe
 * @t: the QP's tags
 * @tag: the probe's sender tag
 *
 * A probe keeps MRC 1.0's size and carries its sender's tag alone
 * (include/mrc/wire.h): it must be the peer's, or the answer would be
 * one to anybody.  The answer echoes it, and the prober takes the
 * answer only if it does (mrc_tag_ack()).
 *
 * Return: whether it is the peer's.
 */
static inline int mrc_tag_probe(const struct mrc_tags *t, __u32 tag)
{
	return t->peer && tag == t->peer;
}

#endif /* _MRC_TAG_H */
