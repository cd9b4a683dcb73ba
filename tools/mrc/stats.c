// SPDX-License-Identifier: GPL-2.0
/*
 * mrc(8): "stats show".
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <linux/genetlink.h>

#include <mrc/stat_names.h>

#include "cli.h"
#include "nl.h"
#include "output.h"
#include "stats.h"

static int mrc_stats_attr_cb(const struct nlattr *attr, void *data)
{
	struct mrc_stats *reply = data;
	uint16_t type = mnl_attr_get_type(attr);

	/* Padding, and counters of a newer kernel, have no name here. */
	if (type > MRC_STAT_MAX || !mrc_stat_names[type])
		return MNL_CB_OK;
	if (mnl_attr_validate(attr, MNL_TYPE_U64) < 0) {
		errno = EBADMSG;
		return MNL_CB_ERROR;
	}
	reply->val[type] = mnl_attr_get_u64(attr);
	reply->has[type] = true;
	return MNL_CB_OK;
}

/**
 * mrc_stats_parse() - read a nest of MRC_STAT_* counters
 * @nest: MRC_A_STATS, or MRC_QP_A_STATS
 * @st: where to add the counters
 *
 * Return: MNL_CB_OK, or MNL_CB_ERROR with errno set.
 */
int mrc_stats_parse(const struct nlattr *nest, struct mrc_stats *st)
{
	if (mnl_attr_validate(nest, MNL_TYPE_NESTED) < 0) {
		errno = EBADMSG;
		return MNL_CB_ERROR;
	}
	return mnl_attr_parse_nested(nest, mrc_stats_attr_cb, st);
}

/* Every counter of @st, in MRC_STAT_* order, named as in stat_names.h. */
void mrc_stats_out(struct mrc_out *o, const struct mrc_stats *st)
{
	int i;

	for (i = 0; i <= MRC_STAT_MAX; i++)
		if (st->has[i])
			mrc_out_u64(o, mrc_stat_names[i], mrc_stat_names[i],
				    st->val[i]);
}

static int mrc_stats_top_cb(const struct nlattr *attr, void *data)
{
	if (mnl_attr_get_type(attr) != MRC_A_STATS)
		return MNL_CB_OK;
	return mrc_stats_parse(attr, data);
}

static int mrc_stats_reply_cb(const struct nlmsghdr *nlh, void *data)
{
	return mnl_attr_parse(nlh, sizeof(struct genlmsghdr),
			      mrc_stats_top_cb, data);
}

static int mrc_stats_print(const struct mrc_stats *reply,
			   const struct mrc_opts *opts)
{
	struct mrc_out o;

	mrc_out_begin(&o, stdout, opts->json, opts->pretty);
	mrc_stats_out(&o, reply);
	if (mrc_out_end(&o) < 0) {
		fprintf(stderr, "mrc: writing the output: %s\n",
			strerror(errno));
		return MRC_EXIT_KERNEL;
	}
	return MRC_EXIT_OK;
}

static int mrc_stats_show(int argc, char **argv, const struct mrc_opts *opts)
{
	struct mrc_stats reply;
	int ret;

	if (argc > 0)
		return mrc_usage_error("unexpected argument \"%s\"", argv[0]);

	memset(&reply, 0, sizeof(reply));
	ret = mrc_nl_get(MRC_CMD_STATS_GET, mrc_stats_reply_cb, &reply,
			 "reading the statistics");
	if (ret != MRC_EXIT_OK)
		return ret;
	return mrc_stats_print(&reply, opts);
}

/**
 * mrc_cmd_stats() - mrc stats [ show | help ]
 * @argc: number of arguments after "stats"
 * @argv: the arguments after "stats"
 * @opts: the global options
 *
 * Return: the exit status.
 */
int mrc_cmd_stats(int argc, char **argv, const struct mrc_opts *opts)
{
	if (argc == 0)
		return mrc_stats_show(0, argv, opts);
	if (mrc_matches(argv[0], "show") || mrc_matches(argv[0], "list"))
		return mrc_stats_show(argc - 1, argv + 1, opts);
	if (mrc_matches(argv[0], "help")) {
		mrc_help();
		return MRC_EXIT_OK;
	}
	return mrc_usage_error("unknown stats command \"%s\"", argv[0]);
}
