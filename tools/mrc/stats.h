/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mrc(8): the MRC_STAT_* counters of a reply, the namespace's or a queue
 * pair's.
 */
#ifndef _MRC_CLI_STATS_H
#define _MRC_CLI_STATS_H

#include <stdbool.h>
#include <stdint.h>
#include <libmnl/libmnl.h>

#include <linux/mrc.h>

#include "output.h"

/* The counters of a stats nest that this mrc has names for. */
struct mrc_stats {
	uint64_t val[MRC_STAT_MAX + 1];
	bool has[MRC_STAT_MAX + 1];
};

int mrc_stats_parse(const struct nlattr *nest, struct mrc_stats *st);
void mrc_stats_out(struct mrc_out *o, const struct mrc_stats *st);

#endif /* _MRC_CLI_STATS_H */
