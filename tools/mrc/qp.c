// SPDX-License-Identifier: GPL-2.0
/*
 * mrc(8): "qp show", the queue pairs of the namespace: a dump of
 * MRC_CMD_QP_GET, one message with an MRC_A_QP nest per queue pair, or a
 * get of one by its number, or a dump of those to one remote address.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/genetlink.h>

#include <mrc/stat_names.h>

#include "cli.h"
#include "dump.h"
#include "nl.h"
#include "output.h"
#include "params.h"
#include "stats.h"

/* One queue pair, as its MRC_A_QP nest describes it. */
struct mrc_qp {
	uint32_t val[MRC_QP_A_MAX + 1];	/* u16 and u32 attributes */
	bool has[MRC_QP_A_MAX + 1];
	uint8_t addr[16];		/* MRC_QP_A_REMOTE_ADDR, 4 or 16 B */
	uint8_t laddr[16];		/* MRC_QP_A_LOCAL_ADDR, 4 or 16 B */
	struct mrc_stats stats;		/* MRC_QP_A_STATS */
};

/* How each attribute of the nest is read; unlisted ones are skipped. */
static const enum mnl_attr_data_type mrc_qp_types[MRC_QP_A_MAX + 1] = {
	[MRC_QP_A_QPN]		= MNL_TYPE_U32,
	[MRC_QP_A_FAMILY]	= MNL_TYPE_U16,
	[MRC_QP_A_LOCAL_PORT]	= MNL_TYPE_U16,
	[MRC_QP_A_REMOTE_ADDR]	= MNL_TYPE_BINARY,
	[MRC_QP_A_REMOTE_PORT]	= MNL_TYPE_U16,
	[MRC_QP_A_UDP_SPORT]	= MNL_TYPE_U16,
	[MRC_QP_A_STATE]	= MNL_TYPE_U32,
	[MRC_QP_A_SND_NXT]	= MNL_TYPE_U32,
	[MRC_QP_A_SND_UNA]	= MNL_TYPE_U32,
	[MRC_QP_A_RCV_NXT]	= MNL_TYPE_U32,
	[MRC_QP_A_CWND]		= MNL_TYPE_U32,
	[MRC_QP_A_INFLIGHT]	= MNL_TYPE_U32,
	[MRC_QP_A_SRTT_US]	= MNL_TYPE_U32,
	[MRC_QP_A_BASE_RTT_US]	= MNL_TYPE_U32,
	[MRC_QP_A_TX_QUEUED]	= MNL_TYPE_U32,
	[MRC_QP_A_RX_PENDING]	= MNL_TYPE_U32,
	[MRC_QP_A_STATS]	= MNL_TYPE_NESTED,
	[MRC_QP_A_REORDER]	= MNL_TYPE_U32,
	[MRC_QP_A_RTO_US]	= MNL_TYPE_U32,
	[MRC_QP_A_LOCAL_ADDR]	= MNL_TYPE_BINARY,
};

static const char * const mrc_qp_state_names[] = {
	[MRC_QP_STATE_OPEN]	= "open",
	[MRC_QP_STATE_FAILED]	= "failed",
};

/* The numbers of plain output after the first line, in order. */
static const struct {
	int attr;
	const char *key;	/* plain output */
	const char *unit;	/* appended to the number in plain output */
	const char *json;	/* JSON output */
} mrc_qp_nums[] = {
	{ MRC_QP_A_SND_NXT,	"snd-nxt",	"",	"snd_nxt" },
	{ MRC_QP_A_SND_UNA,	"snd-una",	"",	"snd_una" },
	{ MRC_QP_A_RCV_NXT,	"rcv-nxt",	"",	"rcv_nxt" },
	{ MRC_QP_A_CWND,	"cwnd",		"",	"cwnd" },
	{ MRC_QP_A_INFLIGHT,	"inflight",	"",	"inflight" },
	{ MRC_QP_A_SRTT_US,	"srtt",		"us",	"srtt_us" },
	{ MRC_QP_A_BASE_RTT_US,	"base-rtt",	"us",	"base_rtt_us" },
	{ MRC_QP_A_TX_QUEUED,	"tx-queued",	"",	"tx_queued" },
	{ MRC_QP_A_RX_PENDING,	"rx-pending",	"",	"rx_pending" },
	{ MRC_QP_A_REORDER,	"reorder",	"",	"reorder" },
	{ MRC_QP_A_RTO_US,	"rto",		"us",	"rto_us" },
};

#define MRC_QP_NR_NUMS	ARRAY_SIZE(mrc_qp_nums)
/* The numbers from srtt on start a line of their own. */
#define MRC_QP_SECOND_LINE	MRC_QP_A_SRTT_US

static int mrc_qp_attr_cb(const struct nlattr *attr, void *data)
{
	struct mrc_qp *qp = data;
	uint16_t type = mnl_attr_get_type(attr);
	enum mnl_attr_data_type t;
	uint16_t len;

	/* Padding, and attributes of a newer kernel, are skipped. */
	if (type > MRC_QP_A_MAX || mrc_qp_types[type] == MNL_TYPE_UNSPEC)
		return MNL_CB_OK;
	t = mrc_qp_types[type];
	if (type == MRC_QP_A_STATS) {
		qp->has[type] = true;
		return mrc_stats_parse(attr, &qp->stats);
	}
	if (mnl_attr_validate(attr, t) < 0)
		return mrc_dump_bad();
	if (type == MRC_QP_A_REMOTE_ADDR || type == MRC_QP_A_LOCAL_ADDR) {
		len = mnl_attr_get_payload_len(attr);
		if (len != 4 && len != 16)
			return mrc_dump_bad();
		memcpy(type == MRC_QP_A_LOCAL_ADDR ? qp->laddr : qp->addr,
		       mnl_attr_get_payload(attr), len);
		qp->val[type] = len;
	} else if (t == MNL_TYPE_U16) {
		qp->val[type] = mnl_attr_get_u16(attr);
	} else {
		qp->val[type] = mnl_attr_get_u32(attr);
	}
	qp->has[type] = true;
	return MNL_CB_OK;
}

/* The length of the remote address, 0 if the kernel gave none. */
static unsigned int mrc_qp_addr_len(const struct mrc_qp *qp)
{
	return qp->has[MRC_QP_A_REMOTE_ADDR] ? qp->val[MRC_QP_A_REMOTE_ADDR] : 0;
}

static unsigned int mrc_qp_family(const struct mrc_qp *qp)
{
	return mrc_dump_family(qp->has[MRC_QP_A_FAMILY],
			       qp->val[MRC_QP_A_FAMILY], mrc_qp_addr_len(qp));
}

static int mrc_qp_reply_cb(const struct nlmsghdr *nlh, void *data)
{
	struct mrc_qp qp;
	bool found;
	int ret;

	memset(&qp, 0, sizeof(qp));
	ret = mrc_dump_parse(nlh, MRC_A_QP, mrc_qp_attr_cb, &qp, &found);
	if (ret != MNL_CB_OK)
		return ret;
	if (!found)
		return MNL_CB_OK;	/* nothing this mrc knows of */
	if (!mrc_dump_consistent(qp.has[MRC_QP_A_FAMILY],
				 qp.val[MRC_QP_A_FAMILY], mrc_qp_addr_len(&qp)))
		return mrc_dump_bad();
	return mrc_dump_list_add(data, &qp);
}

/* The remote address, "" if the kernel did not give one. */
static void mrc_qp_addr(const struct mrc_qp *qp, char *buf, size_t size)
{
	mrc_dump_addr(qp->addr, mrc_qp_addr_len(qp), buf, size);
}

/* The local address (older kernels give none: ""), or "any". */
static void mrc_qp_laddr(const struct mrc_qp *qp, char *buf, size_t size)
{
	static const uint8_t zero[16];
	unsigned int len = qp->has[MRC_QP_A_LOCAL_ADDR] ?
			   qp->val[MRC_QP_A_LOCAL_ADDR] : 0;

	if (len && !memcmp(qp->laddr, zero, len))
		snprintf(buf, size, "any");
	else
		mrc_dump_addr(qp->laddr, len, buf, size);
}

/* The name of a state, NULL for one this mrc has no name for. */
static const char *mrc_qp_state_name(uint32_t state)
{
	if (state < ARRAY_SIZE(mrc_qp_state_names))
		return mrc_qp_state_names[state];
	return NULL;
}

static void mrc_qp_text_first_line(struct mrc_line *l,
				   const struct mrc_qp *qp)
{
	char addr[INET6_ADDRSTRLEN];
	const char *name;

	if (qp->has[MRC_QP_A_QPN])
		mrc_line_put(l, "qpn %u", qp->val[MRC_QP_A_QPN]);
	/* The local end as the remote one, with its address if known. */
	mrc_qp_laddr(qp, addr, sizeof(addr));
	if (addr[0] && qp->has[MRC_QP_A_LOCAL_PORT])
		mrc_line_put(l, mrc_qp_family(qp) == AF_INET6 &&
			     strcmp(addr, "any") ?
			     "local [%s]:%u" : "local %s:%u", addr,
			     qp->val[MRC_QP_A_LOCAL_PORT]);
	else if (qp->has[MRC_QP_A_LOCAL_PORT])
		mrc_line_put(l, "local-port %u", qp->val[MRC_QP_A_LOCAL_PORT]);
	mrc_qp_addr(qp, addr, sizeof(addr));
	if (addr[0] && qp->has[MRC_QP_A_REMOTE_PORT])
		mrc_line_put(l, mrc_qp_family(qp) == AF_INET6 ?
			     "remote [%s]:%u" : "remote %s:%u", addr,
			     qp->val[MRC_QP_A_REMOTE_PORT]);
	else if (addr[0])
		mrc_line_put(l, "remote %s", addr);
	else if (qp->has[MRC_QP_A_REMOTE_PORT])
		mrc_line_put(l, "remote-port %u",
			     qp->val[MRC_QP_A_REMOTE_PORT]);
	if (qp->has[MRC_QP_A_UDP_SPORT])
		mrc_line_put(l, "udp-sport %u", qp->val[MRC_QP_A_UDP_SPORT]);
	if (qp->has[MRC_QP_A_STATE]) {
		name = mrc_qp_state_name(qp->val[MRC_QP_A_STATE]);
		if (name)
			mrc_line_put(l, "state %s", name);
		else
			mrc_line_put(l, "state %u", qp->val[MRC_QP_A_STATE]);
	}
	mrc_line_break(l);
}

/*
 * One queue pair in plain output:
 *
 *   qpn 1 local 192.0.2.9:5000 remote 192.0.2.1:6000 udp-sport 300 state open
 *       snd-nxt 1000 snd-una 990 rcv-nxt 500 cwnd 300000 inflight 40960
 *       srtt 12us base-rtt 6us tx-queued 2 rx-pending 1
 *       tx_packets 1000 tx_bytes 4096000 ...
 *
 * the counters that are not zero, or all of them with -s.
 */
static void mrc_qp_text(FILE *f, const void *item, bool all_stats)
{
	const struct mrc_qp *qp = item;
	struct mrc_line l;
	size_t i;
	int s;

	mrc_line_init(&l, f);
	mrc_qp_text_first_line(&l, qp);
	for (i = 0; i < MRC_QP_NR_NUMS; i++) {
		if (mrc_qp_nums[i].attr == MRC_QP_SECOND_LINE)
			mrc_line_break(&l);
		if (qp->has[mrc_qp_nums[i].attr])
			mrc_line_put(&l, "%s %u%s", mrc_qp_nums[i].key,
				     qp->val[mrc_qp_nums[i].attr],
				     mrc_qp_nums[i].unit);
	}
	mrc_line_break(&l);
	for (s = 0; s <= MRC_STAT_MAX; s++)
		if (qp->stats.has[s] && (all_stats || qp->stats.val[s]))
			mrc_line_put(&l, "%s %llu", mrc_stat_names[s],
				     (unsigned long long)qp->stats.val[s]);
	mrc_line_break(&l);
}

/* One queue pair as a JSON object, with the names of plain output. */
static void mrc_qp_json(struct mrc_out *o, const void *item)
{
	const struct mrc_qp *qp = item;
	char addr[INET6_ADDRSTRLEN];
	const char *name;
	size_t i;

	mrc_out_object_begin(o, NULL);
	if (qp->has[MRC_QP_A_QPN])
		mrc_out_u64(o, "qpn", "qpn", qp->val[MRC_QP_A_QPN]);
	mrc_dump_out_family(o, mrc_qp_family(qp));
	if (qp->has[MRC_QP_A_LOCAL_PORT])
		mrc_out_u64(o, "local_port", "local_port",
			    qp->val[MRC_QP_A_LOCAL_PORT]);
	mrc_qp_laddr(qp, addr, sizeof(addr));
	if (addr[0])
		mrc_out_str(o, "local_addr", "local_addr", addr);
	mrc_qp_addr(qp, addr, sizeof(addr));
	if (addr[0])
		mrc_out_str(o, "remote_addr", "remote_addr", addr);
	if (qp->has[MRC_QP_A_REMOTE_PORT])
		mrc_out_u64(o, "remote_port", "remote_port",
			    qp->val[MRC_QP_A_REMOTE_PORT]);
	if (qp->has[MRC_QP_A_UDP_SPORT])
		mrc_out_u64(o, "udp_sport", "udp_sport",
			    qp->val[MRC_QP_A_UDP_SPORT]);
	if (qp->has[MRC_QP_A_STATE]) {
		name = mrc_qp_state_name(qp->val[MRC_QP_A_STATE]);
		if (name)
			mrc_out_str(o, "state", "state", name);
		else
			mrc_out_u64(o, "state", "state",
				    qp->val[MRC_QP_A_STATE]);
	}
	for (i = 0; i < MRC_QP_NR_NUMS; i++)
		if (qp->has[mrc_qp_nums[i].attr])
			mrc_out_u64(o, mrc_qp_nums[i].json,
				    mrc_qp_nums[i].json,
				    qp->val[mrc_qp_nums[i].attr]);
	if (qp->has[MRC_QP_A_STATS]) {
		mrc_out_object_begin(o, "stats");
		mrc_stats_out(o, &qp->stats);
		mrc_out_object_end(o);
	}
	mrc_out_object_end(o);
}

/* Before each try of the dump: forget what an interrupted one gave. */
static void mrc_qp_list_reset(void *data)
{
	struct mrc_dump_list *list = data;

	list->count = 0;
}

static const struct mrc_dump_ops mrc_qp_ops = {
	.noun		= "qp",
	.what		= "queue pairs",
	.cmd		= MRC_CMD_QP_GET,
	.cmd_name	= "MRC_CMD_QP_GET",
	.reply_cb	= mrc_qp_reply_cb,
	.reset		= mrc_qp_list_reset,
	.json		= mrc_qp_json,
	.text		= mrc_qp_text,
};

/* What "qp show qpn N remote ADDR" selects. */
struct mrc_qp_select {
	uint32_t qpn;			/* 0: any */
	unsigned int addr_len;		/* 0: any address */
	uint8_t addr[16];
};

/* The request's MRC_A_QP nest: the QP number and remote address. */
static void mrc_qp_put_select(struct nlmsghdr *req, const void *arg)
{
	const struct mrc_qp_select *sel = arg;
	struct nlattr *nest;

	nest = mnl_attr_nest_start(req, MRC_A_QP);
	if (sel->qpn)
		mnl_attr_put_u32(req, MRC_QP_A_QPN, sel->qpn);
	if (sel->addr_len)
		mnl_attr_put(req, MRC_QP_A_REMOTE_ADDR, sel->addr_len,
			     sel->addr);
	mnl_attr_nest_end(req, nest);
}

/* [ qpn N ] [ remote ADDR ], each once, into @sel. */
static int mrc_qp_parse_select(int argc, char **argv,
			       struct mrc_qp_select *sel)
{
	__u32 qpn;

	memset(sel, 0, sizeof(*sel));
	for (; argc > 0; argc -= 2, argv += 2) {
		bool is_qpn = mrc_matches(argv[0], "qpn");

		if (!is_qpn && !mrc_matches(argv[0], "remote"))
			return mrc_usage_error("unexpected argument \"%s\"",
					       argv[0]);
		if (argc < 2)
			return mrc_usage_error("missing value for \"%s\"",
					       argv[0]);
		if (is_qpn) {
			if (sel->qpn)
				return mrc_usage_error("qpn given more than once");
			/* The kernel checks the range (1..2^24 - 1). */
			if (mrc_parse_u32(argv[1], &qpn) || !qpn)
				return mrc_usage_error("invalid queue pair number \"%s\"",
						       argv[1]);
			sel->qpn = qpn;
		} else {
			if (sel->addr_len)
				return mrc_usage_error("remote given more than once");
			if (inet_pton(AF_INET, argv[1], sel->addr) == 1)
				sel->addr_len = 4;
			else if (inet_pton(AF_INET6, argv[1], sel->addr) == 1)
				sel->addr_len = 16;
			else
				return mrc_usage_error("invalid address \"%s\"",
						       argv[1]);
		}
	}
	return MRC_EXIT_OK;
}

/*
 * qp show [ qpn N ] [ remote ADDR ]: every queue pair; the one numbered N
 * (a get: an error if there is none), and only if its remote address is
 * ADDR too; or those whose remote address is ADDR (a dump the kernel
 * filters, maybe empty).
 */
static int mrc_qp_show(int argc, char **argv, const struct mrc_opts *opts)
{
	struct mrc_dump_list list = { .item_size = sizeof(struct mrc_qp) };
	struct mrc_qp_select sel;
	struct mrc_dump_req req = {
		.put = mrc_qp_put_select,
		.arg = &sel,
	};
	int ret;

	ret = mrc_qp_parse_select(argc, argv, &sel);
	if (ret != MRC_EXIT_OK)
		return ret;
	req.doit = sel.qpn != 0;
	ret = mrc_dump_show_req(&mrc_qp_ops,
				sel.qpn || sel.addr_len ? &req : NULL,
				&list, &list, opts);
	free(list.items);
	return ret;
}

/**
 * mrc_cmd_qp() - mrc qp [ show [ qpn N ] [ remote ADDR ] | help ]
 * @argc: number of arguments after "qp"
 * @argv: the arguments after "qp"
 * @opts: the global options
 *
 * Return: the exit status.
 */
int mrc_cmd_qp(int argc, char **argv, const struct mrc_opts *opts)
{
	return mrc_dump_cmd(&mrc_qp_ops, argc, argv, opts, mrc_qp_show);
}
