/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The maps of mrc_trim.bpf.c, shared with mrc_trimctl, which sets the
 * rule and reads the counts.
 */
#ifndef MRC_TRIM_H
#define MRC_TRIM_H

#include <linux/bpf.h>
#include <linux/types.h>

enum mrc_trim_rule {
	MRC_TRIM_OFF,		/* pass everything */
	MRC_TRIM_EVERY,		/* arg: every arg-th data packet */
	MRC_TRIM_PROB,		/* arg: probability, in 2^-32 */
	MRC_TRIM_BACKLOG,	/* arg: bytes of queue at rate */
	MRC_TRIM_PACE,		/* arg: bytes of queue; the program paces */
};

/* mrc_trim_cfg[0]: written by mrc_trimctl, read by the program. */
struct mrc_trim_cfg {
	__u32 rule;		/* enum mrc_trim_rule */
	__u32 arg;
	__u64 rate;		/* BACKLOG, PACE: the link, bytes/s */
	__u8 dscp;		/* the trimmed codepoint: 12, or 16 */
	__u8 pad[3];
	__u32 delay_us;		/* MRC_TRIM_PACE: the link's delay */
};

/* mrc_trim_stats[0]: counted by the program, read by mrc_trimctl. */
struct mrc_trim_stats {
	struct bpf_spin_lock lock;
	__u32 pad;
	__u64 data;		/* mrc data packets with payload seen */
	__u64 trimmed;		/* of them, trimmed */
	__u64 failed;		/* rewrites that failed: dropped */
	__u64 n;		/* MRC_TRIM_EVERY: since the last trim */
	__u64 queue;		/* MRC_TRIM_BACKLOG: bytes queued */
	__u64 last_ns;		/* MRC_TRIM_BACKLOG: the last packet */
	__u64 next_ns;		/* MRC_TRIM_PACE: when the link is free */
};

#endif
