// SPDX-License-Identifier: GPL-2.0
/*
 * mrc(8): "peer show", the destination states of the namespace: a dump of
 * MRC_CMD_PEER_GET, one message with an MRC_A_PEER nest per destination
 * (the spraying state every queue pair to one remote address shares).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/genetlink.h>

#include <linux/mrc.h>

#include "cli.h"
#include "dump.h"
#include "nl.h"
#include "output.h"

/* Plain output: lines of values wrap to this indent. */
#define MRC_PEER_WRAP_INDENT	8

/* One destination, as its MRC_A_PEER nest describes it. */
struct mrc_peer {
	uint64_t val[MRC_PEER_A_MAX + 1];	/* u16, u32 and u64 attributes */
	bool has[MRC_PEER_A_MAX + 1];
	uint8_t addr[16];		/* MRC_PEER_A_ADDR, 4 or 16 bytes */
	unsigned int addr_len;
	struct mrc_peer_value *values;	/* MRC_PEER_A_VALUES */
	size_t nr_values;
	uint32_t *qpns;			/* the MRC_PEER_A_QPN of ..._QPS */
	size_t nr_qpns;
};

/* The destinations of a dump, in the kernel's order. */
struct mrc_peer_list {
	struct mrc_dump_list l;	/* of struct mrc_peer */
	/* peer show ADDR: only the destination with this address */
	bool filter;
	unsigned int filter_len;	/* 4 or 16 */
	uint8_t filter_addr[16];
};

/* How each attribute of the nest is read; unlisted ones are skipped. */
static const enum mnl_attr_data_type mrc_peer_types[MRC_PEER_A_MAX + 1] = {
	[MRC_PEER_A_FAMILY]		= MNL_TYPE_U16,
	[MRC_PEER_A_ADDR]		= MNL_TYPE_BINARY,
	[MRC_PEER_A_SPRAYING_TYPE]	= MNL_TYPE_U32,
	[MRC_PEER_A_RANGE_FIRST]	= MNL_TYPE_U32,
	[MRC_PEER_A_RANGE_SIZE]		= MNL_TYPE_U32,
	[MRC_PEER_A_POSITION]		= MNL_TYPE_U32,
	[MRC_PEER_A_NR_BAD]		= MNL_TYPE_U32,
	[MRC_PEER_A_VALUES]		= MNL_TYPE_BINARY,
	[MRC_PEER_A_QPS]		= MNL_TYPE_NESTED,
	[MRC_PEER_A_REORDER]		= MNL_TYPE_U32,
	[MRC_PEER_A_SRTT_US]		= MNL_TYPE_U32,
	[MRC_PEER_A_BASE_RTT_US]	= MNL_TYPE_U32,
	[MRC_PEER_A_PROBE_TX]		= MNL_TYPE_U64,
	[MRC_PEER_A_PROBE_RESP_RX]	= MNL_TYPE_U64,
};

static const char * const mrc_spraying_names[] = {
	[MRC_SPRAYING_NONE]	= "none",
	[MRC_SPRAYING_DEFAULT]	= "default",
};

/* The states of a value, in plain output and in JSON. */
static const struct {
	const char *key;
	const char *json;
} mrc_ev_state_names[] = {
	[MRC_EV_STATE_USABLE]		= { "usable",		"usable" },
	[MRC_EV_STATE_SKIP_ONCE]	= { "skip-once",	"skip_once" },
	[MRC_EV_STATE_BAD]		= { "bad",		"bad" },
};

static void mrc_peer_free(struct mrc_peer *peer)
{
	free(peer->values);
	free(peer->qpns);
	peer->values = NULL;
	peer->qpns = NULL;
	peer->nr_values = 0;
	peer->nr_qpns = 0;
}

/* MRC_PEER_A_VALUES: an array of struct mrc_peer_value, nothing else. */
static int mrc_peer_values(const struct nlattr *attr, struct mrc_peer *peer)
{
	uint16_t len = mnl_attr_get_payload_len(attr);
	size_t n = len / sizeof(struct mrc_peer_value);

	if (len % sizeof(struct mrc_peer_value))
		return mrc_dump_bad();
	free(peer->values);
	peer->values = NULL;
	peer->nr_values = 0;
	if (n) {
		peer->values = malloc(len);
		if (!peer->values) {
			errno = ENOMEM;
			return MNL_CB_ERROR;
		}
		/* memcpy(): the payload is only 4-byte aligned. */
		memcpy(peer->values, mnl_attr_get_payload(attr), len);
	}
	peer->nr_values = n;
	return MNL_CB_OK;
}

static int mrc_peer_qpn_cb(const struct nlattr *attr, void *data)
{
	struct mrc_peer *peer = data;
	uint32_t *grown;

	/* Attributes a newer kernel adds to the nest are skipped. */
	if (mnl_attr_get_type(attr) != MRC_PEER_A_QPN)
		return MNL_CB_OK;
	if (mnl_attr_validate(attr, MNL_TYPE_U32) < 0)
		return mrc_dump_bad();
	grown = realloc(peer->qpns, (peer->nr_qpns + 1) * sizeof(*grown));
	if (!grown) {
		errno = ENOMEM;
		return MNL_CB_ERROR;
	}
	peer->qpns = grown;
	peer->qpns[peer->nr_qpns++] = mnl_attr_get_u32(attr);
	return MNL_CB_OK;
}

static int mrc_peer_attr_cb(const struct nlattr *attr, void *data)
{
	struct mrc_peer *peer = data;
	uint16_t type = mnl_attr_get_type(attr);
	enum mnl_attr_data_type t;
	uint16_t len;

	/* Padding, and attributes of a newer kernel, are skipped. */
	if (type > MRC_PEER_A_MAX || mrc_peer_types[type] == MNL_TYPE_UNSPEC)
		return MNL_CB_OK;
	t = mrc_peer_types[type];
	if (mnl_attr_validate(attr, t) < 0)
		return mrc_dump_bad();
	peer->has[type] = true;
	switch (type) {
	case MRC_PEER_A_ADDR:
		len = mnl_attr_get_payload_len(attr);
		if (len != 4 && len != 16)
			return mrc_dump_bad();
		memcpy(peer->addr, mnl_attr_get_payload(attr), len);
		peer->addr_len = len;
		return MNL_CB_OK;
	case MRC_PEER_A_VALUES:
		return mrc_peer_values(attr, peer);
	case MRC_PEER_A_QPS:
		free(peer->qpns);
		peer->qpns = NULL;
		peer->nr_qpns = 0;
		return mnl_attr_parse_nested(attr, mrc_peer_qpn_cb, peer);
	}
	if (t == MNL_TYPE_U16)
		peer->val[type] = mnl_attr_get_u16(attr);
	else if (t == MNL_TYPE_U32)
		peer->val[type] = mnl_attr_get_u32(attr);
	else
		peer->val[type] = mnl_attr_get_u64(attr);
	return MNL_CB_OK;
}

/* The length of the address, 0 if the kernel gave none. */
static unsigned int mrc_peer_addr_len(const struct mrc_peer *peer)
{
	return peer->has[MRC_PEER_A_ADDR] ? peer->addr_len : 0;
}

static unsigned int mrc_peer_family(const struct mrc_peer *peer)
{
	return mrc_dump_family(peer->has[MRC_PEER_A_FAMILY],
			       peer->val[MRC_PEER_A_FAMILY],
			       mrc_peer_addr_len(peer));
}

/* Whether peer show ADDR shows @peer. */
static bool mrc_peer_wanted(const struct mrc_peer_list *list,
			    const struct mrc_peer *peer)
{
	if (!list->filter)
		return true;
	return peer->has[MRC_PEER_A_ADDR] &&
	       peer->addr_len == list->filter_len &&
	       !memcmp(peer->addr, list->filter_addr, list->filter_len);
}

static int mrc_peer_reply_cb(const struct nlmsghdr *nlh, void *data)
{
	struct mrc_peer_list *list = data;
	struct mrc_peer peer;
	bool found;
	int ret;

	memset(&peer, 0, sizeof(peer));
	ret = mrc_dump_parse(nlh, MRC_A_PEER, mrc_peer_attr_cb, &peer, &found);
	if (ret == MNL_CB_OK && found &&
	    !mrc_dump_consistent(peer.has[MRC_PEER_A_FAMILY],
				 peer.val[MRC_PEER_A_FAMILY],
				 mrc_peer_addr_len(&peer)))
		ret = mrc_dump_bad();
	if (ret == MNL_CB_OK && found && mrc_peer_wanted(list, &peer)) {
		ret = mrc_dump_list_add(&list->l, &peer);
		if (ret == MNL_CB_OK)
			return ret;	/* the list owns what it points at */
	}
	mrc_peer_free(&peer);
	return ret;
}

/* Before each try of the dump: forget what an interrupted one gave. */
static void mrc_peer_list_reset(void *data)
{
	struct mrc_peer_list *list = data;
	struct mrc_peer *peer = list->l.items;
	size_t i;

	for (i = 0; i < list->l.count; i++)
		mrc_peer_free(&peer[i]);
	list->l.count = 0;
}

/* The address, "" if the kernel did not give one. */
static void mrc_peer_addr(const struct mrc_peer *peer, char *buf,
			  size_t size)
{
	mrc_dump_addr(peer->addr, mrc_peer_addr_len(peer), buf, size);
}

/* The name of a spraying type, NULL for one this mrc has no name for. */
static const char *mrc_peer_spraying_name(uint64_t type)
{
	if (type < ARRAY_SIZE(mrc_spraying_names))
		return mrc_spraying_names[type];
	return NULL;
}

/* The state of a value, NULL for one this mrc has no name for. */
static const char *mrc_peer_state_name(uint8_t state, bool json)
{
	if (state >= ARRAY_SIZE(mrc_ev_state_names))
		return NULL;
	return json ? mrc_ev_state_names[state].json :
		      mrc_ev_state_names[state].key;
}

static void mrc_peer_text_first_line(struct mrc_line *l,
				     const struct mrc_peer *peer)
{
	char addr[INET6_ADDRSTRLEN];
	const char *name;
	uint64_t first, size;

	mrc_peer_addr(peer, addr, sizeof(addr));
	mrc_line_put(l, "%s", addr[0] ? addr : "-");
	if (peer->has[MRC_PEER_A_SPRAYING_TYPE]) {
		name = mrc_peer_spraying_name(peer->val[MRC_PEER_A_SPRAYING_TYPE]);
		if (name)
			mrc_line_put(l, "spraying %s", name);
		else
			mrc_line_put(l, "spraying %llu", (unsigned long long)
				     peer->val[MRC_PEER_A_SPRAYING_TYPE]);
	}
	if (peer->has[MRC_PEER_A_RANGE_FIRST] &&
	    peer->has[MRC_PEER_A_RANGE_SIZE] &&
	    peer->val[MRC_PEER_A_RANGE_SIZE]) {
		first = peer->val[MRC_PEER_A_RANGE_FIRST];
		size = peer->val[MRC_PEER_A_RANGE_SIZE];
		mrc_line_put(l, "range %llu..%llu", (unsigned long long)first,
			     (unsigned long long)(first + size - 1));
	}
	if (peer->has[MRC_PEER_A_VALUES])
		mrc_line_put(l, "active %zu", peer->nr_values);
	if (peer->has[MRC_PEER_A_POSITION])
		mrc_line_put(l, "position %llu", (unsigned long long)
			     peer->val[MRC_PEER_A_POSITION]);
	if (peer->has[MRC_PEER_A_NR_BAD])
		mrc_line_put(l, "bad %llu", (unsigned long long)
			     peer->val[MRC_PEER_A_NR_BAD]);
	mrc_line_break(l);
}

/* What was learnt of the paths, and the probes. */
static void mrc_peer_text_second_line(struct mrc_line *l,
				      const struct mrc_peer *peer)
{
	if (peer->has[MRC_PEER_A_REORDER])
		mrc_line_put(l, "reorder %llu", (unsigned long long)
			     peer->val[MRC_PEER_A_REORDER]);
	if (peer->has[MRC_PEER_A_SRTT_US])
		mrc_line_put(l, "srtt %lluus", (unsigned long long)
			     peer->val[MRC_PEER_A_SRTT_US]);
	if (peer->has[MRC_PEER_A_BASE_RTT_US])
		mrc_line_put(l, "base-rtt %lluus", (unsigned long long)
			     peer->val[MRC_PEER_A_BASE_RTT_US]);
	if (peer->has[MRC_PEER_A_PROBE_TX] &&
	    peer->has[MRC_PEER_A_PROBE_RESP_RX])
		mrc_line_put(l, "probes %llu/%llu", (unsigned long long)
			     peer->val[MRC_PEER_A_PROBE_TX],
			     (unsigned long long)
			     peer->val[MRC_PEER_A_PROBE_RESP_RX]);
	else if (peer->has[MRC_PEER_A_PROBE_TX])
		mrc_line_put(l, "probes-tx %llu", (unsigned long long)
			     peer->val[MRC_PEER_A_PROBE_TX]);
	mrc_line_break(l);
}

/*
 * The active set in rotation order, items separated by commas:
 *
 *   values: 301 usable tx 40, 338 bad tx 12 probes 6/5, ...
 *
 * "probes SENT/ANSWERED" only where a probe was sent or answered, unless
 * @all.
 */
static void mrc_peer_text_values(struct mrc_line *l,
				 const struct mrc_peer *peer, bool all)
{
	const struct mrc_peer_value *v;
	const char *name, *sep;
	char state[16], probes[32];
	size_t i;

	if (!peer->has[MRC_PEER_A_VALUES])
		return;
	mrc_line_put(l, "values:%s", peer->nr_values ? "" : " none");
	mrc_line_wrap_indent(l, MRC_PEER_WRAP_INDENT);
	for (i = 0; i < peer->nr_values; i++) {
		v = &peer->values[i];
		name = mrc_peer_state_name(v->state, false);
		if (name)
			snprintf(state, sizeof(state), "%s", name);
		else
			snprintf(state, sizeof(state), "%u", v->state);
		probes[0] = '\0';
		if (all || v->probes_tx || v->probes_rx)
			snprintf(probes, sizeof(probes), " probes %u/%u",
				 v->probes_tx, v->probes_rx);
		sep = i + 1 < peer->nr_values ? "," : "";
		mrc_line_put(l, "%u %s tx %u%s%s", v->port, state,
			     v->tx_packets, probes, sep);
	}
	mrc_line_break(l);
}

static void mrc_peer_text_qps(struct mrc_line *l,
			      const struct mrc_peer *peer)
{
	size_t i;

	if (!peer->has[MRC_PEER_A_QPS])
		return;
	mrc_line_put(l, "qps:%s", peer->nr_qpns ? "" : " none");
	for (i = 0; i < peer->nr_qpns; i++)
		mrc_line_put(l, "%u", peer->qpns[i]);
	mrc_line_break(l);
}

/*
 * One destination in plain output:
 *
 *   10.0.2.1 spraying default range 256..383 active 72 position 5 bad 2
 *       reorder 16 srtt 4100us base-rtt 3900us probes 12/10
 *       values: 301 usable tx 40, 338 bad tx 12 probes 6/5, ...
 *           ...
 *       qps: 3 7
 */
static void mrc_peer_text(FILE *f, const void *item, bool all)
{
	const struct mrc_peer *peer = item;
	struct mrc_line l;

	mrc_line_init(&l, f);
	mrc_peer_text_first_line(&l, peer);
	mrc_peer_text_second_line(&l, peer);
	mrc_peer_text_values(&l, peer, all);
	mrc_peer_text_qps(&l, peer);
}

/* The numbers of JSON output after the active set, in order. */
static const struct {
	int attr;
	const char *json;
} mrc_peer_nums[] = {
	{ MRC_PEER_A_POSITION,		"position" },
	{ MRC_PEER_A_NR_BAD,		"nr_bad" },
	{ MRC_PEER_A_REORDER,		"reorder" },
	{ MRC_PEER_A_SRTT_US,		"srtt_us" },
	{ MRC_PEER_A_BASE_RTT_US,	"base_rtt_us" },
	{ MRC_PEER_A_PROBE_TX,		"probes_tx" },
	{ MRC_PEER_A_PROBE_RESP_RX,	"probe_responses_rx" },
};

/* The ports of the active set, in rotation order. */
static void mrc_peer_json_active_set(struct mrc_out *o,
				     const struct mrc_peer *peer)
{
	size_t i;

	mrc_out_array_begin(o, "active_set");
	for (i = 0; i < peer->nr_values; i++)
		mrc_out_u64(o, NULL, NULL, peer->values[i].port);
	mrc_out_array_end(o);
}

/* The same values, each an object with its state and counters. */
static void mrc_peer_json_values(struct mrc_out *o,
				 const struct mrc_peer *peer)
{
	const struct mrc_peer_value *v;
	const char *name;
	size_t i;

	mrc_out_array_begin(o, "values");
	for (i = 0; i < peer->nr_values; i++) {
		v = &peer->values[i];
		mrc_out_object_begin(o, NULL);
		mrc_out_u64(o, NULL, "port", v->port);
		name = mrc_peer_state_name(v->state, true);
		if (name)
			mrc_out_str(o, NULL, "state", name);
		else
			mrc_out_u64(o, NULL, "state", v->state);
		mrc_out_u64(o, NULL, "tx_packets", v->tx_packets);
		mrc_out_u64(o, NULL, "probes_tx", v->probes_tx);
		mrc_out_u64(o, NULL, "probes_rx", v->probes_rx);
		mrc_out_object_end(o);
	}
	mrc_out_array_end(o);
}

/* One destination as a JSON object. */
static void mrc_peer_json(struct mrc_out *o, const void *item)
{
	const struct mrc_peer *peer = item;
	char addr[INET6_ADDRSTRLEN];
	uint64_t first, size;
	const char *name;
	size_t i;

	mrc_out_object_begin(o, NULL);
	mrc_peer_addr(peer, addr, sizeof(addr));
	if (addr[0])
		mrc_out_str(o, NULL, "address", addr);
	mrc_dump_out_family(o, mrc_peer_family(peer));
	if (peer->has[MRC_PEER_A_SPRAYING_TYPE]) {
		name = mrc_peer_spraying_name(peer->val[MRC_PEER_A_SPRAYING_TYPE]);
		if (name)
			mrc_out_str(o, NULL, "spraying", name);
		else
			mrc_out_u64(o, NULL, "spraying",
				    peer->val[MRC_PEER_A_SPRAYING_TYPE]);
	}
	if (peer->has[MRC_PEER_A_RANGE_FIRST] &&
	    peer->has[MRC_PEER_A_RANGE_SIZE]) {
		first = peer->val[MRC_PEER_A_RANGE_FIRST];
		size = peer->val[MRC_PEER_A_RANGE_SIZE];
		mrc_out_object_begin(o, "range");
		mrc_out_u64(o, NULL, "first", first);
		if (size)
			mrc_out_u64(o, NULL, "last", first + size - 1);
		mrc_out_u64(o, NULL, "size", size);
		mrc_out_object_end(o);
	}
	if (peer->has[MRC_PEER_A_VALUES])
		mrc_peer_json_active_set(o, peer);
	for (i = 0; i < ARRAY_SIZE(mrc_peer_nums); i++)
		if (peer->has[mrc_peer_nums[i].attr])
			mrc_out_u64(o, NULL, mrc_peer_nums[i].json,
				    peer->val[mrc_peer_nums[i].attr]);
	if (peer->has[MRC_PEER_A_VALUES])
		mrc_peer_json_values(o, peer);
	if (peer->has[MRC_PEER_A_QPS]) {
		mrc_out_array_begin(o, "qps");
		for (i = 0; i < peer->nr_qpns; i++)
			mrc_out_u64(o, NULL, NULL, peer->qpns[i]);
		mrc_out_array_end(o);
	}
	mrc_out_object_end(o);
}

static const struct mrc_dump_ops mrc_peer_ops = {
	.noun		= "peer",
	.what		= "peers",
	.cmd		= MRC_CMD_PEER_GET,
	.cmd_name	= "MRC_CMD_PEER_GET",
	.reply_cb	= mrc_peer_reply_cb,
	.reset		= mrc_peer_list_reset,
	.json		= mrc_peer_json,
	.text		= mrc_peer_text,
};

/*
 * ADDR of peer show: IPv4 or IPv6.  An IPv4-mapped IPv6 address is the
 * IPv4 one: the kernel reports IPv4 destinations with 4 bytes.
 */
static int mrc_peer_parse_addr(const char *arg, struct mrc_peer_list *list)
{
	static const uint8_t v4mapped[12] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff,
	};
	uint8_t a6[16];

	if (inet_pton(AF_INET, arg, list->filter_addr) == 1) {
		list->filter_len = 4;
	} else if (inet_pton(AF_INET6, arg, a6) == 1) {
		if (!memcmp(a6, v4mapped, sizeof(v4mapped))) {
			memcpy(list->filter_addr, a6 + 12, 4);
			list->filter_len = 4;
		} else {
			memcpy(list->filter_addr, a6, 16);
			list->filter_len = 16;
		}
	} else {
		return mrc_usage_error("invalid address \"%s\": expected an IPv4 or IPv6 address",
				       arg);
	}
	list->filter = true;
	return MRC_EXIT_OK;
}

static int mrc_peer_show(int argc, char **argv, const struct mrc_opts *opts)
{
	struct mrc_peer_list list;
	int ret;

	memset(&list, 0, sizeof(list));
	list.l.item_size = sizeof(struct mrc_peer);
	if (argc > 0) {
		ret = mrc_peer_parse_addr(argv[0], &list);
		if (ret != MRC_EXIT_OK)
			return ret;
	}
	if (argc > 1)
		return mrc_usage_error("unexpected argument \"%s\"", argv[1]);

	ret = mrc_dump_show(&mrc_peer_ops, &list, &list.l, opts);
	mrc_peer_list_reset(&list);
	free(list.l.items);
	return ret;
}

/**
 * mrc_cmd_peer() - mrc peer [ show [ ADDR ] | help ]
 * @argc: number of arguments after "peer"
 * @argv: the arguments after "peer"
 * @opts: the global options
 *
 * Return: the exit status.
 */
int mrc_cmd_peer(int argc, char **argv, const struct mrc_opts *opts)
{
	return mrc_dump_cmd(&mrc_peer_ops, argc, argv, opts, mrc_peer_show);
}
