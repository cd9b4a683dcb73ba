/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-netns configuration: the spec's attributes, their defaults, ranges
 * and the rules between them, and the values derived from them.
 *
 * Pure logic: this header compiles in the kernel and in userspace (the CLI
 * reads its key table, the unit tests check its arithmetic).
 */
#ifndef _MRC_CONFIG_H
#define _MRC_CONFIG_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/stddef.h>
#include <linux/math64.h>
#include <linux/kernel.h>
#define mrc_div_u64(a, b)	div64_u64(a, b)
#else
#include <stddef.h>
#include <linux/types.h>
#define mrc_div_u64(a, b)	((a) / (b))
#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#endif
#endif

#include <linux/mrc.h>

/* Bytes of headers from the IPv4 header to the payload of a data packet. */
#define MRC_DATA_OVERHEAD	60
/* The spec's cap on an active set sized from the bandwidth-delay product. */
#define MRC_ACTIVE_SET_BDP_CAP	100
#define MRC_MAX_PORT		65535U

struct mrc_config {
	__u32 spraying_type;
	__u32 entropy_mask_bits;
	__u32 starting_port_offset;
	__u32 active_ev_set_size;
	__u32 probe_period_us;
	__u32 sack_loss_min_retx_pkts;
	__u32 mss;
	__u32 base_rtt_us;
	__u32 link_rate_mbps;
	__u32 qp_groups;
	__u32 trimming;
	__u32 rto_us;
	__u32 max_msg_size;
	__u32 retry_limit;
	__u32 listen;
	__u32 dscp_no_trim;
	__u32 dscp_trimmable;
	__u32 dscp_trimmable_rtx;
	__u32 dscp_trimmed;
	__u32 dscp_trimmed_lh;
	__u32 dscp_control;
	__u32 ecn_skip;
};

/**
 * struct mrc_config_param - one writable configuration attribute
 * @attr: its netlink attribute (MRC_A_*)
 * @spec: the spec's name for it
 * @key: the CLI's kebab-case key
 * @json: the snake_case key of JSON output
 * @min: smallest accepted value
 * @max: largest accepted value
 * @def: default
 * @offset: offset of the __u32 in struct mrc_config
 * @range_msg: what mrc(8) prints for a value outside @min..@max (the
 *	kernel's policy refuses it, with the range, naming no attribute)
 */
struct mrc_config_param {
	int attr;
	const char *spec;
	const char *key;
	const char *json;
	__u32 min;
	__u32 max;
	__u32 def;
	size_t offset;
	const char *range_msg;
};

static const struct mrc_config_param mrc_config_params[] = {
	{
		.attr = MRC_A_SPRAYING_TYPE,
		.spec = "PacketSprayingType",
		.key = "spraying",
		.json = "packet_spraying_type",
		.min = 0,
		.max = 1,
		.def = MRC_SPRAYING_DEFAULT,
		.offset = offsetof(struct mrc_config, spraying_type),
		.range_msg = "PacketSprayingType (spraying) must be in 0..1",
	},
	{
		.attr = MRC_A_ENTROPY_MASK_BITS,
		.spec = "EntropyMaskBits",
		.key = "entropy-mask-bits",
		.json = "entropy_mask_bits",
		.min = 0,
		.max = 8,
		.def = 7,
		.offset = offsetof(struct mrc_config, entropy_mask_bits),
		.range_msg = "EntropyMaskBits (entropy-mask-bits) must be in 0..8",
	},
	{
		.attr = MRC_A_STARTING_PORT_OFFSET,
		.spec = "StartingPortOffset",
		.key = "starting-port-offset",
		.json = "starting_port_offset",
		.min = 0,
		.max = 65535,
		.def = 256,
		.offset = offsetof(struct mrc_config, starting_port_offset),
		.range_msg = "StartingPortOffset (starting-port-offset) must be in 0..65535",
	},
	{
		.attr = MRC_A_ACTIVE_EV_SET_SIZE,
		.spec = "ActiveEVSetSize",
		.key = "active-ev-set-size",
		.json = "active_ev_set_size",
		.min = 0,
		.max = 65536,
		.def = 0,
		.offset = offsetof(struct mrc_config, active_ev_set_size),
		.range_msg = "ActiveEVSetSize (active-ev-set-size) must be in 0..65536",
	},
	{
		.attr = MRC_A_PROBE_PERIOD_US,
		.spec = "ReliabilityProbePeriod",
		.key = "probe-period",
		.json = "reliability_probe_period_us",
		.min = 1,
		.max = 1000000,
		.def = 150,
		.offset = offsetof(struct mrc_config, probe_period_us),
		.range_msg = "ReliabilityProbePeriod (probe-period) must be in 1..1000000",
	},
	{
		.attr = MRC_A_SACK_LOSS_MIN_RETX_PKTS,
		.spec = "SACKLossMinRetxPkts",
		.key = "sack-loss-min-retx-pkts",
		.json = "sack_loss_min_retx_pkts",
		.min = 1,
		.max = 65535,
		.def = 8,
		.offset = offsetof(struct mrc_config, sack_loss_min_retx_pkts),
		.range_msg = "SACKLossMinRetxPkts (sack-loss-min-retx-pkts) must be in 1..65535",
	},
	{
		.attr = MRC_A_MSS,
		.spec = "MSS",
		.key = "mss",
		.json = "mss",
		.min = 64,
		.max = 65000,
		.def = 4096,
		.offset = offsetof(struct mrc_config, mss),
		.range_msg = "MSS (mss) must be in 64..65000",
	},
	{
		.attr = MRC_A_BASE_RTT_US,
		.spec = "ConfigBaseRTT",
		.key = "base-rtt",
		.json = "config_base_rtt_us",
		.min = 1,
		.max = 1000000,
		.def = 6,
		.offset = offsetof(struct mrc_config, base_rtt_us),
		.range_msg = "ConfigBaseRTT (base-rtt) must be in 1..1000000",
	},
	{
		.attr = MRC_A_LINK_RATE_MBPS,
		.spec = "LinkRate",
		.key = "link-rate",
		.json = "link_rate_mbps",
		.min = 1,
		.max = 10000000,
		.def = 400000,
		.offset = offsetof(struct mrc_config, link_rate_mbps),
		.range_msg = "LinkRate (link-rate) must be in 1..10000000",
	},
	{
		.attr = MRC_A_QP_GROUPS,
		.spec = "QPGroupsEnabled",
		.key = "qp-groups",
		.json = "qp_groups_enabled",
		.min = 0,
		.max = 1,
		.def = 0,
		.offset = offsetof(struct mrc_config, qp_groups),
		.range_msg = "QPGroupsEnabled (qp-groups) must be in 0..1",
	},
	{
		.attr = MRC_A_TRIMMING,
		.spec = "TrimmingEnabled",
		.key = "trimming",
		.json = "trimming_enabled",
		.min = 0,
		.max = 1,
		.def = 1,
		.offset = offsetof(struct mrc_config, trimming),
		.range_msg = "TrimmingEnabled (trimming) must be in 0..1",
	},
	{
		.attr = MRC_A_RTO_US,
		.spec = "RetransmissionTimeout",
		.key = "rto",
		.json = "rto_us",
		.min = 100,
		.max = 10000000,
		.def = 4000,
		.offset = offsetof(struct mrc_config, rto_us),
		.range_msg = "RetransmissionTimeout (rto) must be in 100..10000000",
	},
	{
		.attr = MRC_A_MAX_MSG_SIZE,
		.spec = "MaxMessageSize",
		.key = "max-msg-size",
		.json = "max_msg_size",
		.min = 1,
		.max = 1073741824,
		.def = 67108864,
		.offset = offsetof(struct mrc_config, max_msg_size),
		.range_msg = "MaxMessageSize (max-msg-size) must be in 1..1073741824",
	},
	{
		.attr = MRC_A_RETRY_LIMIT,
		.spec = "RetryLimit",
		.key = "retry-limit",
		.json = "retry_limit",
		.min = 1,
		.max = 255,
		.def = 7,
		.offset = offsetof(struct mrc_config, retry_limit),
		.range_msg = "RetryLimit (retry-limit) must be in 1..255",
	},
	{
		/* Not the spec's: whether UDP/4791 stays open unused. */
		.attr = MRC_A_LISTEN,
		.spec = "Listen",
		.key = "listen",
		.json = "listen",
		.min = 0,
		.max = 1,
		.def = 0,
		.offset = offsetof(struct mrc_config, listen),
		.range_msg = "Listen (listen) must be in 0..1",
	},
	{
		/* The emulator's classes: what mrc sends data and control in. */
		.attr = MRC_A_DSCP_NO_TRIM,
		.spec = "DscpNoTrim",
		.key = "dscp-no-trim",
		.json = "dscp_no_trim",
		.min = 0,
		.max = 63,
		.def = 0,
		.offset = offsetof(struct mrc_config, dscp_no_trim),
		.range_msg = "DscpNoTrim (dscp-no-trim) must be in 0..63",
	},
	{
		.attr = MRC_A_DSCP_TRIMMABLE,
		.spec = "DscpTrimmable",
		.key = "dscp-trimmable",
		.json = "dscp_trimmable",
		.min = 0,
		.max = 63,
		.def = 4,
		.offset = offsetof(struct mrc_config, dscp_trimmable),
		.range_msg = "DscpTrimmable (dscp-trimmable) must be in 0..63",
	},
	{
		.attr = MRC_A_DSCP_TRIMMABLE_RTX,
		.spec = "DscpTrimmableRetx",
		.key = "dscp-trimmable-rtx",
		.json = "dscp_trimmable_rtx",
		.min = 0,
		.max = 63,
		.def = 8,
		.offset = offsetof(struct mrc_config, dscp_trimmable_rtx),
		.range_msg = "DscpTrimmableRetx (dscp-trimmable-rtx) must be in 0..63",
	},
	{
		/* What a trimming switch marks: mrc only reads these. */
		.attr = MRC_A_DSCP_TRIMMED,
		.spec = "DscpTrimmed",
		.key = "dscp-trimmed",
		.json = "dscp_trimmed",
		.min = 0,
		.max = 63,
		.def = 12,
		.offset = offsetof(struct mrc_config, dscp_trimmed),
		.range_msg = "DscpTrimmed (dscp-trimmed) must be in 0..63",
	},
	{
		.attr = MRC_A_DSCP_TRIMMED_LAST_HOP,
		.spec = "DscpTrimmedLastHop",
		.key = "dscp-trimmed-last-hop",
		.json = "dscp_trimmed_last_hop",
		.min = 0,
		.max = 63,
		.def = 16,
		.offset = offsetof(struct mrc_config, dscp_trimmed_lh),
		.range_msg = "DscpTrimmedLastHop (dscp-trimmed-last-hop) must be in 0..63",
	},
	{
		.attr = MRC_A_DSCP_CONTROL,
		.spec = "DscpControl",
		.key = "dscp-control",
		.json = "dscp_control",
		.min = 0,
		.max = 63,
		.def = 46,
		.offset = offsetof(struct mrc_config, dscp_control),
		.range_msg = "DscpControl (dscp-control) must be in 0..63",
	},
	{
		/* MRC 1.0's emulator, not the spec: CE steers as a trim does. */
		.attr = MRC_A_ECN_SKIP,
		.spec = "EcnSkip",
		.key = "ecn-skip",
		.json = "ecn_skip",
		.min = 0,
		.max = 1,
		.def = 0,
		.offset = offsetof(struct mrc_config, ecn_skip),
		.range_msg = "EcnSkip (ecn-skip) must be in 0..1",
	},
};

#define MRC_NR_CONFIG_PARAMS ARRAY_SIZE(mrc_config_params)

#define MRC_PORT_RULE_MSG \
	"StartingPortOffset + 2^EntropyMaskBits - 1 must not exceed 65535"
#define MRC_DSCP_RULE_MSG \
	"dscp-trimmed and dscp-trimmed-last-hop must differ from each other " \
	"and from dscp-no-trim, dscp-trimmable, dscp-trimmable-rtx and " \
	"dscp-control"

static inline __u32 *mrc_config_field(struct mrc_config *cfg,
				      const struct mrc_config_param *p)
{
	return (__u32 *)((char *)cfg + p->offset);
}

static inline const struct mrc_config_param *mrc_config_param_by_attr(int attr)
{
	size_t i;

	for (i = 0; i < MRC_NR_CONFIG_PARAMS; i++)
		if (mrc_config_params[i].attr == attr)
			return &mrc_config_params[i];
	return NULL;
}

static inline void mrc_config_defaults(struct mrc_config *cfg)
{
	size_t i;

	for (i = 0; i < MRC_NR_CONFIG_PARAMS; i++)
		*mrc_config_field(cfg, &mrc_config_params[i]) =
			mrc_config_params[i].def;
}

/* Number of entropy values in the range: 2^EntropyMaskBits. */
static inline __u32 mrc_entropy_range(const struct mrc_config *cfg)
{
	return 1U << cfg->entropy_mask_bits;
}

/**
 * mrc_config_check() - check the rules between attributes
 * @cfg: a configuration whose every field is already within its range
 *
 * Return: NULL if @cfg is valid, else the message naming the broken rule.
 */
static inline const char *mrc_config_check(const struct mrc_config *cfg)
{
	__u32 sent[] = { cfg->dscp_no_trim, cfg->dscp_trimmable,
			 cfg->dscp_trimmable_rtx, cfg->dscp_control };
	size_t i;

	if (cfg->starting_port_offset + mrc_entropy_range(cfg) - 1 >
	    MRC_MAX_PORT)
		return MRC_PORT_RULE_MSG;
	/* A receiver takes a packet in a trimmed class for a trimmed one:
	 * no class mrc sends in may be one.
	 */
	if (cfg->dscp_trimmed == cfg->dscp_trimmed_lh)
		return MRC_DSCP_RULE_MSG;
	for (i = 0; i < ARRAY_SIZE(sent); i++)
		if (sent[i] == cfg->dscp_trimmed ||
		    sent[i] == cfg->dscp_trimmed_lh)
			return MRC_DSCP_RULE_MSG;
	return NULL;
}

/**
 * mrc_data_tos() - the TOS byte of a data packet or a probe
 * @cfg: the configuration
 * @rtx: whether it is a retransmission
 *
 * Data and probes are ECN-capable (ECT(0)), in the trimmable classes
 * while trimming is on, else in the no-trim class.
 *
 * Return: DSCP << 2 | ECT(0).
 */
static inline __u8 mrc_data_tos(const struct mrc_config *cfg, int rtx)
{
	__u32 dscp = !cfg->trimming ? cfg->dscp_no_trim :
		     rtx ? cfg->dscp_trimmable_rtx : cfg->dscp_trimmable;

	return (__u8)(dscp << 2 | 0x02);
}

/* Bandwidth-delay product in bytes: Mbit/s x us is bits. */
static inline __u64 mrc_bdp_bytes(const struct mrc_config *cfg)
{
	return (__u64)cfg->link_rate_mbps * cfg->base_rtt_us / 8;
}

/**
 * mrc_active_set_size() - how many entropy values a new destination uses
 * @cfg: the configuration in force when the destination's state is made
 *
 * ActiveEVSetSize when non-zero, else one bandwidth-delay product of
 * nominal (MSS + 60 byte) packets capped at 100; then at least 1 and at
 * most 2^EntropyMaskBits.
 *
 * Return: the active set size.
 */
static inline __u32 mrc_active_set_size(const struct mrc_config *cfg)
{
	__u64 n = cfg->active_ev_set_size;

	if (!n) {
		n = mrc_div_u64(mrc_bdp_bytes(cfg),
				(__u64)cfg->mss + MRC_DATA_OVERHEAD);
		if (n > MRC_ACTIVE_SET_BDP_CAP)
			n = MRC_ACTIVE_SET_BDP_CAP;
	}
	if (n < 1)
		n = 1;
	if (n > mrc_entropy_range(cfg))
		n = mrc_entropy_range(cfg);
	return (__u32)n;
}

#endif /* _MRC_CONFIG_H */
