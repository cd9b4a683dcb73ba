/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Sharing a socket's receive room among the peers that wait for it.
 *
 * A busy socket's reader frees room a message at a time, and many peers
 * may be refused data for want of it.  Told all at once that room came
 * back, they all sent again: the first in took it, the rest were refused
 * again, and the same few peers won most rounds.  So a queue pair
 * refused data for room takes its place at the back of its socket's
 * line, and as room comes back the first in line are called, each
 * granted room for what it wants, kept for it until it comes (or its
 * grant lapses).  These are the rules, on numbers; the line itself and
 * the locking are net/mrc/rx.c's.
 *
 * Bytes throughout: @held is what the socket has charged (partial and
 * unread messages), @reserved what it keeps for the queue pairs called
 * (their grants summed), @rcvbuf its SO_RCVBUF as the kernel keeps it.
 *
 * Pure logic: compiles in the kernel and in userspace, where the unit
 * tests (tools/unit/unit_share.c) run it under sanitizers.
 */
#ifndef _MRC_SHARE_H
#define _MRC_SHARE_H

#include <linux/types.h>

/*
 * What a queue pair refused for room wants kept for it when called: the
 * rest of its message of @len bytes, of which @charged are charged (its
 * struct of @msg_size bytes among them, once it has one), in pages of
 * @page bytes; no less than a struct (a message of no bytes needs only
 * that), and no more than a quarter of @rcvbuf, or a page and a struct
 * if that is more: one large message does not take every turn, and
 * whoever is called can place a page.
 */
static inline __u32 mrc_share_want(__u64 len, __u32 charged, __u32 rcvbuf,
				   __u32 page, __u32 msg_size)
{
	__u64 most = rcvbuf / 4;
	__u64 want;

	if (most < (__u64)page + msg_size)
		most = (__u64)page + msg_size;
	want = (len + page - 1) / page * page + msg_size;
	want = want > charged ? want - charged : 0;
	if (want < msg_size)
		want = msg_size;
	return want < most ? want : most;
}

enum mrc_share_verdict {
	MRC_SHARE_OK,		/* charge it */
	MRC_SHARE_TURN,		/* no room, but nobody is before it */
	MRC_SHARE_WAIT,		/* others are before it: refuse it */
};

/*
 * Whether @n more bytes of a message may be charged, and what is left of
 * the grant for it (*@grant: bytes kept for this message of a queue pair
 * called in line, else 0; what it spends leaves @reserved).  Called, it
 * takes them from its grant; past its grant, from room nobody else is
 * kept for, its grant then all spent.  Otherwise it takes room only if
 * nobody is before its queue pair in line (!@behind), or if it may go
 * @past the line, and only what is kept for nobody.  A message may go
 * past the line once it has begun (its struct charged), or if it is its
 * queue pair's next in order and later ones hold memory: until it is
 * complete none of them can be read, and what they hold cannot come
 * back.  TURN says it may take the socket's one place beyond SO_RCVBUF,
 * if that is free and the message next in order: the first in line may,
 * and a message larger than SO_RCVBUF gets in only so.
 */
static inline enum mrc_share_verdict
mrc_share_ask(__u32 *grant, __u32 n, __s64 held, __u32 reserved,
	      __u32 rcvbuf, int behind, int past)
{
	if (*grant) {
		if (n <= *grant) {
			*grant -= n;
			return MRC_SHARE_OK;
		}
		if (held + n + (reserved - *grant) <= (__s64)rcvbuf) {
			*grant = 0;
			return MRC_SHARE_OK;
		}
		return MRC_SHARE_TURN;
	}
	if (behind && !past)
		return MRC_SHARE_WAIT;
	return held + n + reserved <= (__s64)rcvbuf ? MRC_SHARE_OK :
	       MRC_SHARE_TURN;
}

/*
 * Whether the first in line, wanting @want, may be called now: the room
 * it wants is there besides what is kept for others; or the socket
 * holds nothing and keeps nothing, whatever it wants (a SO_RCVBUF
 * smaller than one message must not keep everyone out: it goes beyond
 * SO_RCVBUF then, by its grant at most, while nothing else is there).
 */
static inline int mrc_share_may_call(__s64 held, __u32 want, __u32 reserved,
				     __u32 rcvbuf)
{
	return held + want + reserved <= (__s64)rcvbuf ||
	       (held <= 0 && !reserved);
}

#endif /* _MRC_SHARE_H */
