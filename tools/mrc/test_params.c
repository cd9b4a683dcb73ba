// SPDX-License-Identifier: GPL-2.0
/*
 * Unit test of mrc(8)'s key table lookups and value parsers: make check.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "params.h"

static int failures;

#define CHECK(cond)							\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "%s:%d: FAIL: %s\n", __FILE__,	\
				__LINE__, #cond);			\
			failures++;					\
		}							\
	} while (0)

/* Parse @s for @key; return the error, the value in *@val. */
static int parse(const char *key, const char *s, __u32 *val)
{
	const struct mrc_config_param *p = mrc_param_by_key(key);

	if (!p)
		return -ENOENT;
	*val = 0xdeadbeef;
	return mrc_param_parse(p, s, val);
}

static void test_u32(void)
{
	__u32 v;

	CHECK(parse("mss", "4096", &v) == 0 && v == 4096);
	CHECK(parse("mss", "0", &v) == 0 && v == 0);
	CHECK(parse("mss", "007", &v) == 0 && v == 7);
	CHECK(parse("mss", "4294967295", &v) == 0 && v == 4294967295U);
	CHECK(parse("mss", "4294967296", &v) == -ERANGE);
	CHECK(parse("mss", "99999999999999999999999", &v) == -ERANGE);
	CHECK(parse("mss", "", &v) == -EINVAL);
	CHECK(parse("mss", "-1", &v) == -EINVAL);
	CHECK(parse("mss", "+1", &v) == -EINVAL);
	CHECK(parse("mss", " 1", &v) == -EINVAL);
	CHECK(parse("mss", "1 ", &v) == -EINVAL);
	CHECK(parse("mss", "0x10", &v) == -EINVAL);
	CHECK(parse("mss", "12abc", &v) == -EINVAL);
	CHECK(parse("mss", "1.5", &v) == -EINVAL);
	CHECK(parse("probe-period", "1000000", &v) == 0 && v == 1000000);
	/* Ranges are the kernel's business. */
	CHECK(parse("entropy-mask-bits", "9", &v) == 0 && v == 9);
}

static void test_named(void)
{
	__u32 v;

	CHECK(parse("spraying", "none", &v) == 0 && v == MRC_SPRAYING_NONE);
	CHECK(parse("spraying", "default", &v) == 0 &&
	      v == MRC_SPRAYING_DEFAULT);
	CHECK(parse("spraying", "0", &v) == 0 && v == 0);
	CHECK(parse("spraying", "1", &v) == 0 && v == 1);
	CHECK(parse("spraying", "2", &v) == 0 && v == 2);
	CHECK(parse("spraying", "Default", &v) == -EINVAL);
	CHECK(parse("spraying", "on", &v) == -EINVAL);
	CHECK(parse("qp-groups", "on", &v) == 0 && v == 1);
	CHECK(parse("qp-groups", "off", &v) == 0 && v == 0);
	CHECK(parse("trimming", "1", &v) == 0 && v == 1);
	CHECK(parse("trimming", "yes", &v) == -EINVAL);
	CHECK(parse("trimming", "none", &v) == -EINVAL);
}

static void test_rate(void)
{
	__u32 v;

	CHECK(parse("link-rate", "400000", &v) == 0 && v == 400000);
	CHECK(parse("link-rate", "400G", &v) == 0 && v == 400000);
	CHECK(parse("link-rate", "400gbit", &v) == 0 && v == 400000);
	CHECK(parse("link-rate", "100M", &v) == 0 && v == 100);
	CHECK(parse("link-rate", "100Mbit", &v) == 0 && v == 100);
	CHECK(parse("link-rate", "1T", &v) == 0 && v == 1000000);
	CHECK(parse("link-rate", "4294T", &v) == 0 && v == 4294000000U);
	CHECK(parse("link-rate", "4295T", &v) == -ERANGE);
	CHECK(parse("link-rate", "4294967296", &v) == -ERANGE);
	CHECK(parse("link-rate", "G", &v) == -EINVAL);
	CHECK(parse("link-rate", "", &v) == -EINVAL);
	CHECK(parse("link-rate", "1.5G", &v) == -EINVAL);
	CHECK(parse("link-rate", "400Gbps", &v) == -EINVAL);
	CHECK(parse("link-rate", "400 G", &v) == -EINVAL);
	CHECK(parse("link-rate", "-400G", &v) == -EINVAL);
	/* Suffixes are for the link rate and max-msg-size only. */
	CHECK(parse("mss", "4G", &v) == -EINVAL);
	CHECK(parse("mss", "4K", &v) == -EINVAL);
	CHECK(parse("retry-limit", "1K", &v) == -EINVAL);
}

static void test_size(void)
{
	__u32 v;

	CHECK(parse("max-msg-size", "67108864", &v) == 0 && v == 67108864);
	CHECK(parse("max-msg-size", "0", &v) == 0 && v == 0);
	CHECK(parse("max-msg-size", "64M", &v) == 0 && v == 67108864);
	CHECK(parse("max-msg-size", "64m", &v) == 0 && v == 67108864);
	CHECK(parse("max-msg-size", "64MiB", &v) == 0 && v == 67108864);
	CHECK(parse("max-msg-size", "1k", &v) == 0 && v == 1024);
	CHECK(parse("max-msg-size", "1KiB", &v) == 0 && v == 1024);
	CHECK(parse("max-msg-size", "1G", &v) == 0 && v == 1073741824);
	CHECK(parse("max-msg-size", "3gib", &v) == 0 && v == 3221225472U);
	CHECK(parse("max-msg-size", "4194303K", &v) == 0 &&
	      v == 4294966272U);
	CHECK(parse("max-msg-size", "4G", &v) == -ERANGE);
	CHECK(parse("max-msg-size", "4194304K", &v) == -ERANGE);
	CHECK(parse("max-msg-size", "4294967296", &v) == -ERANGE);
	CHECK(parse("max-msg-size", "M", &v) == -EINVAL);
	CHECK(parse("max-msg-size", "", &v) == -EINVAL);
	CHECK(parse("max-msg-size", "1.5M", &v) == -EINVAL);
	CHECK(parse("max-msg-size", "64MB", &v) == -EINVAL);
	CHECK(parse("max-msg-size", "64 M", &v) == -EINVAL);
	CHECK(parse("max-msg-size", "1T", &v) == -EINVAL);
	CHECK(parse("max-msg-size", "-1", &v) == -EINVAL);
	CHECK(parse("retry-limit", "7", &v) == 0 && v == 7);
	/* Ranges are the kernel's business. */
	CHECK(parse("retry-limit", "256", &v) == 0 && v == 256);
}

static void test_keys(void)
{
	size_t i;

	/* Each file has its own copy of the table: compare attributes. */
	for (i = 0; i < MRC_NR_CONFIG_PARAMS; i++)
		CHECK(mrc_param_by_key(mrc_config_params[i].key)->attr ==
		      mrc_config_params[i].attr);
	CHECK(!mrc_param_by_key("EntropyMaskBits"));
	CHECK(!mrc_param_by_key("entropy_mask_bits"));
	CHECK(!mrc_param_by_key("bdp-bytes"));
	CHECK(!mrc_param_by_key(""));
	CHECK(mrc_ro_param_by_key("bdp-bytes")->attr == MRC_A_BDP_BYTES);
	CHECK(mrc_ro_param_by_key("active-set")->attr == MRC_A_ACTIVE_SET);
	CHECK(!mrc_ro_param_by_key("mss"));
	CHECK(mrc_param_by_key("max-msg-size")->attr == MRC_A_MAX_MSG_SIZE);
	CHECK(mrc_param_by_key("retry-limit")->attr == MRC_A_RETRY_LIMIT);
	CHECK(!strcmp(mrc_param_unit(mrc_param_by_key("max-msg-size")),
		      "bytes"));
	CHECK(!strcmp(mrc_param_unit(mrc_param_by_key("retry-limit")), ""));
}

static void test_names(void)
{
	const struct mrc_config_param *spray = mrc_param_by_key("spraying");
	const struct mrc_config_param *trim = mrc_param_by_key("trimming");
	const struct mrc_config_param *mss = mrc_param_by_key("mss");

	CHECK(!strcmp(mrc_param_value_name(spray, 0), "none"));
	CHECK(!strcmp(mrc_param_value_name(spray, 1), "default"));
	CHECK(!mrc_param_value_name(spray, 2));
	CHECK(!strcmp(mrc_param_value_name(trim, 0), "off"));
	CHECK(!strcmp(mrc_param_value_name(trim, 1), "on"));
	CHECK(!mrc_param_value_name(trim, 7));
	CHECK(!mrc_param_value_name(mss, 0));
	CHECK(!mrc_param_value_name(mrc_param_by_key("max-msg-size"),
				    67108864));
	CHECK(!mrc_param_value_name(mrc_param_by_key("retry-limit"), 1));
}

/* The active set at the defaults is what mrc(8) documents. */
static void test_defaults(void)
{
	struct mrc_config cfg;

	mrc_config_defaults(&cfg);
	CHECK(mrc_bdp_bytes(&cfg) == 300000);
	CHECK(mrc_active_set_size(&cfg) == 72);
	CHECK(!mrc_config_check(&cfg));
	CHECK(cfg.max_msg_size == 67108864);
	CHECK(cfg.retry_limit == 7);
}

int main(void)
{
	test_u32();
	test_named();
	test_rate();
	test_size();
	test_keys();
	test_names();
	test_defaults();
	if (failures) {
		fprintf(stderr, "test_params: %d failure(s)\n", failures);
		return 1;
	}
	printf("test_params: all passed\n");
	return 0;
}
