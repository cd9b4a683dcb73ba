/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mrc(8): what the commands share.
 */
#ifndef _MRC_CLI_H
#define _MRC_CLI_H

#include <stdbool.h>

/* Exit statuses, documented in mrc(8). */
enum mrc_exit {
	MRC_EXIT_OK		= 0,
	MRC_EXIT_USAGE		= 1,	/* bad command line */
	MRC_EXIT_KERNEL		= 2,	/* kernel refused, netlink failed */
	MRC_EXIT_NO_MODULE	= 3,	/* no genl family "mrc" */
};

struct mrc_opts {
	bool json;
	bool pretty;
	bool stats;	/* qp show: every counter, zeros too; peer show:
			 * the probes of every value
			 */
};

bool mrc_matches(const char *arg, const char *cmd);
int mrc_usage_error(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
int mrc_cmd_config(int argc, char **argv, const struct mrc_opts *opts);
int mrc_cmd_stats(int argc, char **argv, const struct mrc_opts *opts);
int mrc_cmd_qp(int argc, char **argv, const struct mrc_opts *opts);
int mrc_cmd_peer(int argc, char **argv, const struct mrc_opts *opts);
int mrc_cmd_monitor(int argc, char **argv, const struct mrc_opts *opts);
void mrc_help(void);

#endif /* _MRC_CLI_H */
