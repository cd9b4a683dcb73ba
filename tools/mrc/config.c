// SPDX-License-Identifier: GPL-2.0
/*
 * mrc(8): "config show" and "config set".
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <linux/genetlink.h>

#include "cli.h"
#include "nl.h"
#include "output.h"
#include "params.h"

/* The attributes of a MRC_CMD_CONFIG_GET reply, widened to u64. */
struct mrc_config_reply {
	uint64_t val[MRC_A_MAX + 1];
	bool has[MRC_A_MAX + 1];
};

/* The pairs of a "config set", in command line order. */
struct mrc_config_set {
	const struct mrc_config_param *param[MRC_NR_CONFIG_PARAMS];
	__u32 val[MRC_NR_CONFIG_PARAMS];
	size_t count;
};

/* The type a reply attribute must have, MNL_TYPE_UNSPEC to ignore it. */
static enum mnl_attr_data_type mrc_config_attr_type(uint16_t type)
{
	if (type == MRC_A_BDP_BYTES)
		return MNL_TYPE_U64;
	if (type == MRC_A_ACTIVE_SET || mrc_config_param_by_attr(type))
		return MNL_TYPE_U32;
	return MNL_TYPE_UNSPEC;
}

static int mrc_config_attr_cb(const struct nlattr *attr, void *data)
{
	struct mrc_config_reply *reply = data;
	uint16_t type = mnl_attr_get_type(attr);
	enum mnl_attr_data_type t = mrc_config_attr_type(type);

	if (t == MNL_TYPE_UNSPEC)
		return MNL_CB_OK;	/* newer kernel, or padding */
	if (mnl_attr_validate(attr, t) < 0) {
		errno = EBADMSG;
		return MNL_CB_ERROR;
	}
	reply->val[type] = t == MNL_TYPE_U64 ? mnl_attr_get_u64(attr) :
					       mnl_attr_get_u32(attr);
	reply->has[type] = true;
	return MNL_CB_OK;
}

static int mrc_config_reply_cb(const struct nlmsghdr *nlh, void *data)
{
	return mnl_attr_parse(nlh, sizeof(struct genlmsghdr),
			      mrc_config_attr_cb, data);
}

static void mrc_config_print_param(struct mrc_out *o,
				   const struct mrc_config_param *p,
				   __u32 val)
{
	const char *name = mrc_param_value_name(p, val);

	if (!name)
		mrc_out_u64(o, p->key, p->json, val);
	else if (mrc_param_kind(p) == MRC_KIND_BOOL)
		mrc_out_bool(o, p->key, p->json, val);
	else
		mrc_out_str(o, p->key, p->json, name);
}

static int mrc_config_print(const struct mrc_config_reply *reply,
			    const struct mrc_opts *opts)
{
	const struct mrc_config_param *p;
	const struct mrc_ro_param *ro;
	struct mrc_out o;
	size_t i;

	mrc_out_begin(&o, stdout, opts->json, opts->pretty);
	for (i = 0; i < MRC_NR_CONFIG_PARAMS; i++) {
		p = &mrc_config_params[i];
		if (reply->has[p->attr])
			mrc_config_print_param(&o, p,
					       (__u32)reply->val[p->attr]);
	}
	for (i = 0; i < mrc_nr_ro_params; i++) {
		ro = &mrc_ro_params[i];
		if (reply->has[ro->attr])
			mrc_out_u64(&o, ro->key, ro->json,
				    reply->val[ro->attr]);
	}
	if (mrc_out_end(&o) < 0) {
		fprintf(stderr, "mrc: writing the output: %s\n",
			strerror(errno));
		return MRC_EXIT_KERNEL;
	}
	return MRC_EXIT_OK;
}

static int mrc_config_show(int argc, char **argv, const struct mrc_opts *opts)
{
	struct mrc_config_reply reply;
	int ret;

	if (argc > 0)
		return mrc_usage_error("unexpected argument \"%s\"", argv[0]);

	memset(&reply, 0, sizeof(reply));
	ret = mrc_nl_get(MRC_CMD_CONFIG_GET, mrc_config_reply_cb, &reply,
			 "reading the configuration");
	if (ret != MRC_EXIT_OK)
		return ret;
	return mrc_config_print(&reply, opts);
}

static void mrc_config_list_keys(void)
{
	size_t i;

	fputs("mrc: valid keys are:", stderr);
	for (i = 0; i < MRC_NR_CONFIG_PARAMS; i++)
		fprintf(stderr, "%s %s", i ? "," : "",
			mrc_config_params[i].key);
	fputc('\n', stderr);
}

static const struct mrc_config_param *mrc_config_key(const char *key)
{
	const struct mrc_config_param *p = mrc_param_by_key(key);

	if (p)
		return p;
	if (mrc_ro_param_by_key(key)) {
		fprintf(stderr, "mrc: \"%s\" is read-only\n", key);
		return NULL;
	}
	fprintf(stderr, "mrc: unknown key \"%s\"\n", key);
	mrc_config_list_keys();
	return NULL;
}

static int mrc_config_value(const struct mrc_config_param *p,
			    const char *s, __u32 *val)
{
	switch (mrc_param_parse(p, s, val)) {
	case 0:
		return MRC_EXIT_OK;
	case -ERANGE:
		return mrc_usage_error("value \"%s\" for %s does not fit in 32 bits",
				       s, p->key);
	default:
		return mrc_usage_error("invalid value \"%s\" for %s: expected %s",
				       s, p->key, mrc_param_syntax(p));
	}
}

/* Parse the KEY VALUE pairs of "config set" into @set. */
static int mrc_config_parse_pairs(int argc, char **argv,
				  struct mrc_config_set *set)
{
	const struct mrc_config_param *p;
	size_t i;
	int ret;

	if (argc == 0)
		return mrc_usage_error("config set needs at least one KEY VALUE pair");
	for (set->count = 0; argc > 0; argc -= 2, argv += 2) {
		p = mrc_config_key(argv[0]);
		if (!p)
			return MRC_EXIT_USAGE;
		for (i = 0; i < set->count; i++)
			if (set->param[i] == p)
				return mrc_usage_error("key \"%s\" given more than once",
						       p->key);
		if (argc < 2)
			return mrc_usage_error("missing value for key \"%s\"",
					       p->key);
		ret = mrc_config_value(p, argv[1], &set->val[set->count]);
		if (ret != MRC_EXIT_OK)
			return ret;
		set->param[set->count++] = p;
	}
	return MRC_EXIT_OK;
}

static int mrc_config_set_report(const struct mrc_nl_err *e)
{
	const struct mrc_config_param *p;

	p = mrc_config_param_by_attr(e->bad_attr);
	/*
	 * The kernel's policy refuses a value out of range itself, with a
	 * message that does not name the attribute ("integer out of range"),
	 * pointing at it and giving its range: name both.
	 */
	if (p && e->err == ERANGE && e->has_range) {
		fprintf(stderr, "mrc: Error: %s (%s) must be in %llu..%llu (%s)\n",
			p->spec, p->key, (unsigned long long)e->range_min,
			(unsigned long long)e->range_max, strerror(e->err));
		return MRC_EXIT_KERNEL;
	}
	if (p && e->err == ERANGE) {
		fprintf(stderr, "mrc: Error: %s (%s)\n", p->range_msg,
			strerror(e->err));
		return MRC_EXIT_KERNEL;
	}
	if (!e->msg[0] && p) {
		fprintf(stderr, "mrc: the kernel rejected %s: %s\n", p->key,
			strerror(e->err));
		return MRC_EXIT_KERNEL;
	}
	return mrc_nl_report(e, "setting the configuration",
			     "changing the configuration");
}

static int mrc_config_set(int argc, char **argv)
{
	struct mrc_config_set set;
	struct nlmsghdr *req;
	struct mrc_nl nl;
	struct mrc_nl_err e;
	size_t i;
	int ret;

	ret = mrc_config_parse_pairs(argc, argv, &set);
	if (ret != MRC_EXIT_OK)
		return ret;

	ret = mrc_nl_open(&nl);
	if (ret != MRC_EXIT_OK)
		return ret;
	req = mrc_nl_request(&nl, MRC_CMD_CONFIG_SET);
	for (i = 0; i < set.count; i++)
		mnl_attr_put_u32(req, (uint16_t)set.param[i]->attr,
				 set.val[i]);
	ret = mrc_nl_talk(&nl, req, NULL, NULL, &e);
	mrc_nl_close(&nl);
	if (ret < 0)
		return mrc_config_set_report(&e);
	return MRC_EXIT_OK;
}

/**
 * mrc_cmd_config() - mrc config { show | set KEY VALUE... | help }
 * @argc: number of arguments after "config"
 * @argv: the arguments after "config"
 * @opts: the global options
 *
 * Return: the exit status.
 */
int mrc_cmd_config(int argc, char **argv, const struct mrc_opts *opts)
{
	if (argc == 0)
		return mrc_config_show(0, argv, opts);
	if (mrc_matches(argv[0], "show") || mrc_matches(argv[0], "list"))
		return mrc_config_show(argc - 1, argv + 1, opts);
	if (mrc_matches(argv[0], "set"))
		return mrc_config_set(argc - 1, argv + 1);
	if (mrc_matches(argv[0], "help")) {
		mrc_help();
		return MRC_EXIT_OK;
	}
	return mrc_usage_error("unknown config command \"%s\"", argv[0]);
}
