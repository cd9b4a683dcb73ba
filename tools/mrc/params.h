/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mrc(8): configuration keys and their values.
 *
 * The keys, spec names, ranges and defaults all come from
 * mrc_config_params[] in <mrc/config.h>; this only adds how a value is
 * written on the command line and in output.  No netlink here, so the unit
 * test can link it alone.
 */
#ifndef _MRC_CLI_PARAMS_H
#define _MRC_CLI_PARAMS_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include <mrc/config.h>

/* How a value is spelled (the kernel checks every range). */
enum mrc_value_kind {
	MRC_KIND_U32,		/* unsigned decimal */
	MRC_KIND_SPRAYING,	/* none | default | unsigned decimal */
	MRC_KIND_BOOL,		/* on | off | unsigned decimal */
	MRC_KIND_RATE,		/* Mbit/s, optional M, G or T suffix */
	MRC_KIND_SIZE,		/* bytes, optional K, M or G suffix */
};

/* A read-only value of MRC_CMD_CONFIG_GET replies. */
struct mrc_ro_param {
	int attr;
	const char *key;	/* plain output */
	const char *json;	/* JSON output */
};

extern const struct mrc_ro_param mrc_ro_params[];
extern const size_t mrc_nr_ro_params;

enum mrc_value_kind mrc_param_kind(const struct mrc_config_param *p);
const char *mrc_param_unit(const struct mrc_config_param *p);
const struct mrc_config_param *mrc_param_by_key(const char *key);
const struct mrc_ro_param *mrc_ro_param_by_key(const char *key);

int mrc_parse_u32(const char *s, __u32 *val);
int mrc_parse_rate(const char *s, __u32 *mbps);
int mrc_parse_size(const char *s, __u32 *bytes);
int mrc_param_parse(const struct mrc_config_param *p, const char *s,
		    __u32 *val);
const char *mrc_param_syntax(const struct mrc_config_param *p);

const char *mrc_param_value_name(const struct mrc_config_param *p, __u32 val);

#endif /* _MRC_CLI_PARAMS_H */
