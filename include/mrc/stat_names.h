/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Names of the MRC_STAT_* counters as the CLI prints them (snake_case,
 * after the spec's records where the spec names one).  Pure logic.
 */
#ifndef _MRC_STAT_NAMES_H
#define _MRC_STAT_NAMES_H

#include <linux/mrc.h>

static const char * const mrc_stat_names[__MRC_STAT_MAX] = {
	[MRC_STAT_RX_PACKETS]		= "rx_packets",
	[MRC_STAT_RX_BYTES]		= "rx_bytes",
	[MRC_STAT_RX_DROP_SHORT]	= "rx_drop_short",
	[MRC_STAT_RX_DROP_BAD_VERSION]	= "rx_drop_bad_version",
	[MRC_STAT_RX_DROP_BAD_OPCODE]	= "rx_drop_bad_opcode",
	[MRC_STAT_RX_DROP_NO_QP]	= "rx_drop_no_qp",
};

#endif /* _MRC_STAT_NAMES_H */
