// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of include/mrc/config.h: defaults, ranges, the port rule and
 * the active set size, against the numbers in spec/multipath.md.
 */
#include <string.h>

#include "kselftest_harness.h"

#include <mrc/config.h>

FIXTURE(cfg) {
	struct mrc_config c;
};

FIXTURE_SETUP(cfg)
{
	mrc_config_defaults(&self->c);
}

FIXTURE_TEARDOWN(cfg)
{
}

TEST_F(cfg, defaults__match_spec)
{
	EXPECT_EQ(MRC_SPRAYING_DEFAULT, self->c.spraying_type);
	EXPECT_EQ(7, self->c.entropy_mask_bits);
	EXPECT_EQ(256, self->c.starting_port_offset);
	EXPECT_EQ(0, self->c.active_ev_set_size);
	EXPECT_EQ(150, self->c.probe_period_us);
	EXPECT_EQ(4096, self->c.mss);
	EXPECT_EQ(6, self->c.base_rtt_us);
	EXPECT_EQ(400000, self->c.link_rate_mbps);
	EXPECT_EQ(NULL, mrc_config_check(&self->c));
}

/* Worked example: 400 Gbit/s x 6 us / 8 = 300,000 B; / 4,156 B = 72. */
TEST_F(cfg, active_set__defaults_give_72)
{
	EXPECT_EQ(300000, mrc_bdp_bytes(&self->c));
	EXPECT_EQ(128, mrc_entropy_range(&self->c));
	EXPECT_EQ(72, mrc_active_set_size(&self->c));
}

TEST_F(cfg, active_set__bdp_capped_at_100)
{
	self->c.mss = 1436;	/* 300,000 / 1,496 = 200 packets */
	EXPECT_EQ(100, mrc_active_set_size(&self->c));
}

TEST_F(cfg, active_set__bdp_below_one_packet_gives_1)
{
	self->c.link_rate_mbps = 1000;	/* 750 B BDP < 4,156 B */
	EXPECT_EQ(750, mrc_bdp_bytes(&self->c));
	EXPECT_EQ(1, mrc_active_set_size(&self->c));
}

TEST_F(cfg, active_set__explicit_size_uncapped)
{
	self->c.active_ev_set_size = 120;
	EXPECT_EQ(120, mrc_active_set_size(&self->c));
	self->c.active_ev_set_size = 1;
	EXPECT_EQ(1, mrc_active_set_size(&self->c));
}

TEST_F(cfg, active_set__never_above_range)
{
	self->c.active_ev_set_size = 200;
	EXPECT_EQ(128, mrc_active_set_size(&self->c));
	self->c.entropy_mask_bits = 0;
	EXPECT_EQ(1, mrc_active_set_size(&self->c));
	self->c.active_ev_set_size = 0;
	self->c.entropy_mask_bits = 5;
	EXPECT_EQ(32, mrc_active_set_size(&self->c));
}

TEST_F(cfg, active_set__no_overflow_at_maxima)
{
	self->c.link_rate_mbps = 10000000;
	self->c.base_rtt_us = 1000000;
	self->c.mss = 64;
	self->c.entropy_mask_bits = 8;
	EXPECT_EQ(1250000000000ULL, mrc_bdp_bytes(&self->c));
	EXPECT_EQ(100, mrc_active_set_size(&self->c));
}

TEST_F(cfg, port_rule__largest_offsets)
{
	self->c.starting_port_offset = 65408;
	EXPECT_EQ(NULL, mrc_config_check(&self->c));
	self->c.starting_port_offset = 65409;
	EXPECT_STREQ(MRC_PORT_RULE_MSG, mrc_config_check(&self->c));

	self->c.entropy_mask_bits = 8;
	self->c.starting_port_offset = 65280;
	EXPECT_EQ(NULL, mrc_config_check(&self->c));
	self->c.starting_port_offset = 65281;
	EXPECT_NE(NULL, mrc_config_check(&self->c));

	self->c.entropy_mask_bits = 0;
	self->c.starting_port_offset = 65535;
	EXPECT_EQ(NULL, mrc_config_check(&self->c));
}

TEST_F(cfg, dscp_rule__trimmed_classes_are_nobody_elses)
{
	__u32 *sent[] = { &self->c.dscp_no_trim, &self->c.dscp_trimmable,
			  &self->c.dscp_trimmable_rtx, &self->c.dscp_control };
	size_t i;

	/* The emulator's classes. */
	EXPECT_EQ(0, self->c.dscp_no_trim);
	EXPECT_EQ(4, self->c.dscp_trimmable);
	EXPECT_EQ(8, self->c.dscp_trimmable_rtx);
	EXPECT_EQ(12, self->c.dscp_trimmed);
	EXPECT_EQ(16, self->c.dscp_trimmed_lh);
	EXPECT_EQ(46, self->c.dscp_control);
	EXPECT_EQ(NULL, mrc_config_check(&self->c));

	self->c.dscp_trimmed_lh = self->c.dscp_trimmed;
	EXPECT_STREQ(MRC_DSCP_RULE_MSG, mrc_config_check(&self->c));
	self->c.dscp_trimmed_lh = 16;

	for (i = 0; i < ARRAY_SIZE(sent); i++) {
		__u32 was = *sent[i];

		*sent[i] = 12;
		EXPECT_STREQ(MRC_DSCP_RULE_MSG, mrc_config_check(&self->c));
		*sent[i] = 16;
		EXPECT_STREQ(MRC_DSCP_RULE_MSG, mrc_config_check(&self->c));
		*sent[i] = 63;
		EXPECT_EQ(NULL, mrc_config_check(&self->c));
		*sent[i] = was;
	}
	/* Classes mrc sends in may share a codepoint. */
	self->c.dscp_trimmable_rtx = self->c.dscp_trimmable;
	EXPECT_EQ(NULL, mrc_config_check(&self->c));
}

TEST_F(cfg, data_tos__class_by_trimming_and_rtx)
{
	/* DSCP << 2, ECT(0). */
	EXPECT_EQ(4 << 2 | 2, mrc_data_tos(&self->c, 0));
	EXPECT_EQ(8 << 2 | 2, mrc_data_tos(&self->c, 1));
	self->c.trimming = 0;
	EXPECT_EQ(0 << 2 | 2, mrc_data_tos(&self->c, 0));
	EXPECT_EQ(0 << 2 | 2, mrc_data_tos(&self->c, 1));
	self->c.dscp_no_trim = 63;
	EXPECT_EQ(0xfe, mrc_data_tos(&self->c, 1));
}

TEST(params__table_consistent)
{
	struct mrc_config c;
	size_t i, j;

	mrc_config_defaults(&c);
	for (i = 0; i < MRC_NR_CONFIG_PARAMS; i++) {
		const struct mrc_config_param *p = &mrc_config_params[i];
		char want[128];

		EXPECT_LE(p->min, p->def);
		EXPECT_LE(p->def, p->max);
		EXPECT_EQ(p->def, *mrc_config_field(&c, p));
		EXPECT_EQ(p, mrc_config_param_by_attr(p->attr));
		snprintf(want, sizeof(want), "%s (%s) must be in %u..%u",
			 p->spec, p->key, p->min, p->max);
		EXPECT_STREQ(want, p->range_msg);
		for (j = i + 1; j < MRC_NR_CONFIG_PARAMS; j++) {
			EXPECT_NE(p->attr, mrc_config_params[j].attr);
			EXPECT_NE(p->offset, mrc_config_params[j].offset);
			EXPECT_NE(0, strcmp(p->key, mrc_config_params[j].key));
		}
	}
	/* Every field of struct mrc_config has its row. */
	EXPECT_EQ(sizeof(struct mrc_config) / sizeof(__u32),
		  MRC_NR_CONFIG_PARAMS);
	EXPECT_EQ(NULL, mrc_config_param_by_attr(MRC_A_BDP_BYTES));
}

TEST_HARNESS_MAIN
