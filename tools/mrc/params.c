// SPDX-License-Identifier: GPL-2.0
/*
 * mrc(8): configuration keys and their values.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

#include "params.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

const struct mrc_ro_param mrc_ro_params[] = {
	{ MRC_A_BDP_BYTES,	"bdp-bytes",	"bdp_bytes" },
	{ MRC_A_ACTIVE_SET,	"active-set",	"active_ev_set" },
};

const size_t mrc_nr_ro_params = ARRAY_SIZE(mrc_ro_params);

static const char * const mrc_spraying_names[] = {
	[MRC_SPRAYING_NONE]	= "none",
	[MRC_SPRAYING_DEFAULT]	= "default",
};

static const char * const mrc_bool_names[] = { "off", "on" };

/* A suffix of a number, and what it multiplies the number by. */
struct mrc_suffix {
	const char *suffix;
	__u32 mult;
};

/* The link rate's suffixes, to Mbit/s. */
static const struct mrc_suffix mrc_rate_suffixes[] = {
	{ "",		1 },
	{ "m",		1 },
	{ "mbit",	1 },
	{ "g",		1000 },
	{ "gbit",	1000 },
	{ "t",		1000000 },
	{ "tbit",	1000000 },
};

/* A size's suffixes, to bytes: powers of 1024, as for ip link's sizes. */
static const struct mrc_suffix mrc_size_suffixes[] = {
	{ "",		1 },
	{ "k",		1024 },
	{ "kib",	1024 },
	{ "m",		1024 * 1024 },
	{ "mib",	1024 * 1024 },
	{ "g",		1024 * 1024 * 1024 },
	{ "gib",	1024 * 1024 * 1024 },
};

enum mrc_value_kind mrc_param_kind(const struct mrc_config_param *p)
{
	switch (p->attr) {
	case MRC_A_SPRAYING_TYPE:
		return MRC_KIND_SPRAYING;
	case MRC_A_QP_GROUPS:
	case MRC_A_TRIMMING:
	case MRC_A_ECN_SKIP:
		return MRC_KIND_BOOL;
	case MRC_A_LINK_RATE_MBPS:
		return MRC_KIND_RATE;
	case MRC_A_MAX_MSG_SIZE:
		return MRC_KIND_SIZE;
	default:
		return MRC_KIND_U32;
	}
}

/* The unit of a value, "" when it has none worth naming. */
const char *mrc_param_unit(const struct mrc_config_param *p)
{
	switch (p->attr) {
	case MRC_A_PROBE_PERIOD_US:
	case MRC_A_BASE_RTT_US:
	case MRC_A_RTO_US:
		return "us";
	case MRC_A_LINK_RATE_MBPS:
		return "Mbit/s";
	case MRC_A_MSS:
	case MRC_A_MAX_MSG_SIZE:
		return "bytes";
	case MRC_A_SACK_LOSS_MIN_RETX_PKTS:
		return "packets";
	default:
		return "";
	}
}

const struct mrc_config_param *mrc_param_by_key(const char *key)
{
	size_t i;

	for (i = 0; i < MRC_NR_CONFIG_PARAMS; i++)
		if (!strcmp(mrc_config_params[i].key, key))
			return &mrc_config_params[i];
	return NULL;
}

const struct mrc_ro_param *mrc_ro_param_by_key(const char *key)
{
	size_t i;

	for (i = 0; i < mrc_nr_ro_params; i++)
		if (!strcmp(mrc_ro_params[i].key, key))
			return &mrc_ro_params[i];
	return NULL;
}

/* Parse the first @len characters of @s as an unsigned decimal u32. */
static int mrc_parse_u32_len(const char *s, size_t len, __u32 *val)
{
	__u64 v = 0;
	size_t i;

	if (!len)
		return -EINVAL;
	for (i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -EINVAL;
		v = v * 10 + (__u64)(s[i] - '0');
		if (v > UINT32_MAX)
			return -ERANGE;
	}
	*val = (__u32)v;
	return 0;
}

/**
 * mrc_parse_u32() - parse an unsigned decimal integer, strictly
 * @s: the string; digits only: no sign, blanks, base prefix or suffix
 * @val: where to store the value
 *
 * Return: 0, -EINVAL if @s is not a number, -ERANGE if it exceeds u32.
 */
int mrc_parse_u32(const char *s, __u32 *val)
{
	return mrc_parse_u32_len(s, strlen(s), val);
}

/* Digits, then one of the @n suffixes of @sfx in any case. */
static int mrc_parse_suffixed(const char *s, const struct mrc_suffix *sfx,
			      size_t n, __u32 *val)
{
	size_t ndigits = strspn(s, "0123456789");
	const char *suffix = s + ndigits;
	__u32 v;
	size_t i;
	int err;

	for (i = 0; i < n; i++)
		if (!strcasecmp(suffix, sfx[i].suffix))
			break;
	if (i == n)
		return -EINVAL;

	err = mrc_parse_u32_len(s, ndigits, &v);
	if (err)
		return err;
	if ((__u64)v * sfx[i].mult > UINT32_MAX)
		return -ERANGE;
	*val = v * sfx[i].mult;
	return 0;
}

/**
 * mrc_parse_rate() - parse a link rate
 * @s: decimal Mbit/s, optionally followed by M, G or T (or Mbit, Gbit,
 *     Tbit; any case) for units of 1, 1000 or 1000000 Mbit/s
 * @mbps: where to store the rate in Mbit/s
 *
 * Return: 0, -EINVAL if @s is not a rate, -ERANGE if it exceeds u32.
 */
int mrc_parse_rate(const char *s, __u32 *mbps)
{
	return mrc_parse_suffixed(s, mrc_rate_suffixes,
				  ARRAY_SIZE(mrc_rate_suffixes), mbps);
}

/**
 * mrc_parse_size() - parse a size in bytes
 * @s: decimal bytes, optionally followed by K, M or G (or KiB, MiB, GiB;
 *     any case) for units of 1024, 1024^2 or 1024^3 bytes
 * @bytes: where to store the size in bytes
 *
 * Return: 0, -EINVAL if @s is not a size, -ERANGE if it exceeds u32.
 */
int mrc_parse_size(const char *s, __u32 *bytes)
{
	return mrc_parse_suffixed(s, mrc_size_suffixes,
				  ARRAY_SIZE(mrc_size_suffixes), bytes);
}

/* Look @s up in @names (NULL holes allowed), else parse it as a number. */
static int mrc_parse_named(const char * const *names, size_t n,
			   const char *s, __u32 *val)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (names[i] && !strcmp(names[i], s)) {
			*val = (__u32)i;
			return 0;
		}
	}
	return mrc_parse_u32(s, val);
}

/**
 * mrc_param_parse() - parse a value for a configuration key
 * @p: the key's parameter
 * @s: the value as given on the command line
 * @val: where to store the attribute's value
 *
 * Only the syntax is checked; the kernel checks ranges and rules.
 *
 * Return: 0, -EINVAL if @s is not a valid spelling, -ERANGE if the number
 * does not fit in 32 bits.
 */
int mrc_param_parse(const struct mrc_config_param *p, const char *s,
		    __u32 *val)
{
	switch (mrc_param_kind(p)) {
	case MRC_KIND_SPRAYING:
		return mrc_parse_named(mrc_spraying_names,
				       ARRAY_SIZE(mrc_spraying_names), s, val);
	case MRC_KIND_BOOL:
		return mrc_parse_named(mrc_bool_names,
				       ARRAY_SIZE(mrc_bool_names), s, val);
	case MRC_KIND_RATE:
		return mrc_parse_rate(s, val);
	case MRC_KIND_SIZE:
		return mrc_parse_size(s, val);
	default:
		return mrc_parse_u32(s, val);
	}
}

/* What mrc_param_parse() accepts for @p, for error messages and help. */
const char *mrc_param_syntax(const struct mrc_config_param *p)
{
	switch (mrc_param_kind(p)) {
	case MRC_KIND_SPRAYING:
		return "none, default or an unsigned decimal integer";
	case MRC_KIND_BOOL:
		return "on, off or an unsigned decimal integer";
	case MRC_KIND_RATE:
		return "an unsigned decimal integer in Mbit/s, optionally followed by M, G or T";
	case MRC_KIND_SIZE:
		return "an unsigned decimal integer in bytes, optionally followed by K, M or G (powers of 1024)";
	default:
		return "an unsigned decimal integer";
	}
}

/**
 * mrc_param_value_name() - the name of a value, for output
 * @p: the parameter
 * @val: its value
 *
 * Return: "none"/"default" for the spraying type, "on"/"off" for a switch,
 * or NULL when the value is shown as a number (also for a value out of the
 * names' range, which a newer kernel might report).
 */
const char *mrc_param_value_name(const struct mrc_config_param *p, __u32 val)
{
	switch (mrc_param_kind(p)) {
	case MRC_KIND_SPRAYING:
		if (val < ARRAY_SIZE(mrc_spraying_names))
			return mrc_spraying_names[val];
		return NULL;
	case MRC_KIND_BOOL:
		if (val < ARRAY_SIZE(mrc_bool_names))
			return mrc_bool_names[val];
		return NULL;
	default:
		return NULL;
	}
}
