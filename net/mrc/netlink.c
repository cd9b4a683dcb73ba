// SPDX-License-Identifier: GPL-2.0
/* Generic netlink family "mrc": configuration and counters of a network
 * namespace.  uapi/linux/mrc.h documents every command and attribute.
 */
#include <linux/math64.h>
#include <net/genetlink.h>

#include <mrc/mrc.h>

/* The range of each writable attribute, filled from mrc_config_params[]
 * (include/mrc/config.h, which the CLI and the unit tests share) before
 * the family is registered: one table of bounds, and the kernel's policy
 * refuses a value out of range itself, pointing at the attribute and
 * reporting the range (NLMSGERR_ATTR_POLICY).
 */
static struct netlink_range_validation mrc_config_range[MRC_A_MAX + 1]
	__ro_after_init;

#define MRC_POLICY_CONFIG(attr) \
	NLA_POLICY_FULL_RANGE(NLA_U32, &mrc_config_range[attr])

static const struct nla_policy mrc_config_set_policy[MRC_A_MAX + 1] = {
	[MRC_A_SPRAYING_TYPE]	= MRC_POLICY_CONFIG(MRC_A_SPRAYING_TYPE),
	[MRC_A_ENTROPY_MASK_BITS] = MRC_POLICY_CONFIG(MRC_A_ENTROPY_MASK_BITS),
	[MRC_A_STARTING_PORT_OFFSET] =
		MRC_POLICY_CONFIG(MRC_A_STARTING_PORT_OFFSET),
	[MRC_A_ACTIVE_EV_SET_SIZE] =
		MRC_POLICY_CONFIG(MRC_A_ACTIVE_EV_SET_SIZE),
	[MRC_A_PROBE_PERIOD_US]	= MRC_POLICY_CONFIG(MRC_A_PROBE_PERIOD_US),
	[MRC_A_SACK_LOSS_MIN_RETX_PKTS] =
		MRC_POLICY_CONFIG(MRC_A_SACK_LOSS_MIN_RETX_PKTS),
	[MRC_A_MSS]		= MRC_POLICY_CONFIG(MRC_A_MSS),
	[MRC_A_BASE_RTT_US]	= MRC_POLICY_CONFIG(MRC_A_BASE_RTT_US),
	[MRC_A_LINK_RATE_MBPS]	= MRC_POLICY_CONFIG(MRC_A_LINK_RATE_MBPS),
	[MRC_A_QP_GROUPS]	= MRC_POLICY_CONFIG(MRC_A_QP_GROUPS),
	[MRC_A_TRIMMING]	= MRC_POLICY_CONFIG(MRC_A_TRIMMING),
	[MRC_A_RTO_US]		= MRC_POLICY_CONFIG(MRC_A_RTO_US),
	[MRC_A_MAX_MSG_SIZE]	= MRC_POLICY_CONFIG(MRC_A_MAX_MSG_SIZE),
	[MRC_A_RETRY_LIMIT]	= MRC_POLICY_CONFIG(MRC_A_RETRY_LIMIT),
	[MRC_A_LISTEN]		= MRC_POLICY_CONFIG(MRC_A_LISTEN),
	[MRC_A_DSCP_NO_TRIM]	= MRC_POLICY_CONFIG(MRC_A_DSCP_NO_TRIM),
	[MRC_A_DSCP_TRIMMABLE]	= MRC_POLICY_CONFIG(MRC_A_DSCP_TRIMMABLE),
	[MRC_A_DSCP_TRIMMABLE_RTX] =
		MRC_POLICY_CONFIG(MRC_A_DSCP_TRIMMABLE_RTX),
	[MRC_A_DSCP_TRIMMED]	= MRC_POLICY_CONFIG(MRC_A_DSCP_TRIMMED),
	[MRC_A_DSCP_TRIMMED_LAST_HOP] =
		MRC_POLICY_CONFIG(MRC_A_DSCP_TRIMMED_LAST_HOP),
	[MRC_A_DSCP_CONTROL]	= MRC_POLICY_CONFIG(MRC_A_DSCP_CONTROL),
	[MRC_A_ECN_SKIP]	= MRC_POLICY_CONFIG(MRC_A_ECN_SKIP),
	[MRC_A_QP]			= { .type = NLA_REJECT,
		.reject_message = "MRC_A_QP is read-only" },
	[MRC_A_BDP_BYTES]		= { .type = NLA_REJECT,
		.reject_message = "MRC_A_BDP_BYTES (bdp-bytes) is read-only" },
	[MRC_A_ACTIVE_SET]		= { .type = NLA_REJECT,
		.reject_message = "MRC_A_ACTIVE_SET (active-set) is read-only" },
	[MRC_A_STATS]			= { .type = NLA_REJECT,
		.reject_message = "MRC_A_STATS is read-only" },
};

/* The commands that take no attribute refuse any, saying so: the core's
 * own default (resv_start_op 0) would refuse them without a message.
 * Types above MRC_A_MAX are refused as unknown by strict validation.
 */
static const struct nla_policy mrc_no_attr_policy[MRC_A_MAX + 1] = {
	[0 ... MRC_A_MAX] = { .type = NLA_REJECT,
		.reject_message = "this command takes no attributes" },
};

#define MRC_QP_GET_REJECT { .type = NLA_REJECT, \
	.reject_message = "MRC_CMD_QP_GET takes MRC_A_QP only" }
#define MRC_QP_KEY_REJECT { .type = NLA_REJECT, \
	.reject_message = "a queue pair is selected by MRC_QP_A_QPN or MRC_QP_A_REMOTE_ADDR only" }

static struct netlink_range_validation mrc_qpn_range = {
	.min = 1,
	.max = MRC_QPN_MASK,
};

/* A remote address is an IPv4 or an IPv6 one, as in the QP's nest. */
static int mrc_nl_validate_addr(const struct nlattr *attr,
				struct netlink_ext_ack *extack)
{
	if (nla_len(attr) == sizeof(struct in_addr) ||
	    nla_len(attr) == sizeof(struct in6_addr))
		return 0;
	NL_SET_ERR_MSG_ATTR(extack, attr,
			    "MRC_QP_A_REMOTE_ADDR must be 4 or 16 bytes");
	return -EINVAL;
}

/* What selects queue pairs in a QP_GET request's MRC_A_QP nest. */
static const struct nla_policy mrc_qp_key_policy[MRC_QP_A_MAX + 1] = {
	[0 ... MRC_QP_A_QPN - 1]	= MRC_QP_KEY_REJECT,
	[MRC_QP_A_QPN]			=
		NLA_POLICY_FULL_RANGE(NLA_U32, &mrc_qpn_range),
	[MRC_QP_A_QPN + 1 ... MRC_QP_A_REMOTE_ADDR - 1] = MRC_QP_KEY_REJECT,
	[MRC_QP_A_REMOTE_ADDR]		=
		NLA_POLICY_VALIDATE_FN(NLA_BINARY, mrc_nl_validate_addr),
	[MRC_QP_A_REMOTE_ADDR + 1 ... MRC_QP_A_MAX] = MRC_QP_KEY_REJECT,
};

static const struct nla_policy mrc_qp_get_policy[MRC_A_MAX + 1] = {
	[0 ... MRC_A_QP - 1]		= MRC_QP_GET_REJECT,
	[MRC_A_QP]			= NLA_POLICY_NESTED(mrc_qp_key_policy),
	[MRC_A_QP + 1 ... MRC_A_MAX]	= MRC_QP_GET_REJECT,
};

static int mrc_nl_put_config(struct sk_buff *msg, const struct mrc_config *c)
{
	size_t i;

	for (i = 0; i < MRC_NR_CONFIG_PARAMS; i++) {
		const struct mrc_config_param *p = &mrc_config_params[i];

		if (nla_put_u32(msg, p->attr,
				*mrc_config_field((struct mrc_config *)c, p)))
			return -EMSGSIZE;
	}
	if (nla_put_u64_64bit(msg, MRC_A_BDP_BYTES, mrc_bdp_bytes(c),
			      MRC_A_PAD) ||
	    nla_put_u32(msg, MRC_A_ACTIVE_SET, mrc_active_set_size(c)))
		return -EMSGSIZE;
	return 0;
}

static int mrc_nl_put_stats(struct sk_buff *msg, struct mrc_net *mn)
{
	struct nlattr *nest;
	int s;

	nest = nla_nest_start(msg, MRC_A_STATS);
	if (!nest)
		return -EMSGSIZE;
	for (s = MRC_STAT_PAD + 1; s <= MRC_STAT_MAX; s++) {
		if (nla_put_u64_64bit(msg, s, mrc_stat_read(mn, s),
				      MRC_STAT_PAD)) {
			nla_nest_cancel(msg, nest);
			return -EMSGSIZE;
		}
	}
	nla_nest_end(msg, nest);
	return 0;
}

/* Reply to a get with what @fill puts in the message. */
static int mrc_nl_reply(struct genl_info *info,
			int (*fill)(struct sk_buff *msg, struct mrc_net *mn))
{
	struct mrc_net *mn = mrc_net(genl_info_net(info));
	struct sk_buff *msg;
	void *hdr;
	int ret;

	msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &mrc_genl_family, 0,
				info->genlhdr->cmd);
	if (!hdr) {
		ret = -EMSGSIZE;
		goto err;
	}
	ret = fill(msg, mn);
	if (ret)
		goto err;
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);

err:
	nlmsg_free(msg);
	return ret;
}

static int mrc_nl_fill_config(struct sk_buff *msg, struct mrc_net *mn)
{
	struct mrc_config c;

	rcu_read_lock();
	c = rcu_dereference(mn->cfg)->c;
	rcu_read_unlock();
	return mrc_nl_put_config(msg, &c);
}

static int mrc_nl_config_get(struct sk_buff *skb, struct genl_info *info)
{
	return mrc_nl_reply(info, mrc_nl_fill_config);
}

static int mrc_nl_stats_get(struct sk_buff *skb, struct genl_info *info)
{
	return mrc_nl_reply(info, mrc_nl_put_stats);
}

/* One QP's attributes; its lock is held. */
static int mrc_nl_put_qp(struct sk_buff *msg, struct mrc_qp *qp)
{
	struct nlattr *nest, *st;
	u32 rto_us;
	int s;

	rcu_read_lock();
	rto_us = mrc_qp_rto_us(qp, mrc_cfg(qp->mn));
	rcu_read_unlock();
	nest = nla_nest_start(msg, MRC_A_QP);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u32(msg, MRC_QP_A_QPN, qp->qpn) ||
	    nla_put_u16(msg, MRC_QP_A_FAMILY, qp->family) ||
	    nla_put_u16(msg, MRC_QP_A_LOCAL_PORT, qp->lport) ||
	    (qp->family == AF_INET ?
	     nla_put_in_addr(msg, MRC_QP_A_REMOTE_ADDR,
			     qp->raddr.s6_addr32[3]) :
	     nla_put_in6_addr(msg, MRC_QP_A_REMOTE_ADDR, &qp->raddr)) ||
	    nla_put_u16(msg, MRC_QP_A_REMOTE_PORT, qp->rport) ||
	    nla_put_u16(msg, MRC_QP_A_UDP_SPORT, qp->udp_sport) ||
	    nla_put_u32(msg, MRC_QP_A_STATE, qp->state) ||
	    nla_put_u32(msg, MRC_QP_A_SND_NXT, qp->snd_nxt) ||
	    nla_put_u32(msg, MRC_QP_A_SND_UNA, qp->snd_una) ||
	    nla_put_u32(msg, MRC_QP_A_RCV_NXT, qp->rcv_nxt) ||
	    nla_put_u32(msg, MRC_QP_A_CWND, qp->cc.cwnd) ||
	    nla_put_u32(msg, MRC_QP_A_INFLIGHT, qp->inflight) ||
	    nla_put_u32(msg, MRC_QP_A_SRTT_US, qp->srtt_us) ||
	    nla_put_u32(msg, MRC_QP_A_BASE_RTT_US, qp->base_rtt_us) ||
	    nla_put_u32(msg, MRC_QP_A_TX_QUEUED, qp->tx_queued) ||
	    nla_put_u32(msg, MRC_QP_A_RX_PENDING, qp->rx_partial) ||
	    nla_put_u32(msg, MRC_QP_A_REORDER, qp->reorder) ||
	    nla_put_u32(msg, MRC_QP_A_RTO_US, rto_us) ||
	    (qp->family == AF_INET ?
	     nla_put_in_addr(msg, MRC_QP_A_LOCAL_ADDR,
			     qp->local.addr.s6_addr32[3]) :
	     nla_put_in6_addr(msg, MRC_QP_A_LOCAL_ADDR, &qp->local.addr)))
		goto cancel;
	st = nla_nest_start(msg, MRC_QP_A_STATS);
	if (!st)
		goto cancel;
	for (s = MRC_STAT_PAD + 1; s <= MRC_STAT_MAX; s++) {
		u64 v = qp->stats[s];

		if (s == MRC_STAT_CALC_MEAN_REORDER_DEPTH)
			v = qp->stats[MRC_STAT_OOO_EVENTS] ?
			    div64_u64(qp->stats[MRC_STAT_REORDER_DEPTH_SUM],
				      qp->stats[MRC_STAT_OOO_EVENTS]) : 0;
		if (nla_put_u64_64bit(msg, s, v, MRC_STAT_PAD))
			goto cancel;
	}
	nla_nest_end(msg, st);
	nla_nest_end(msg, nest);
	return 0;

cancel:
	nla_nest_cancel(msg, nest);
	return -EMSGSIZE;
}

/* The queue pairs a QP_GET request selects. */
struct mrc_qp_filter {
	u32 qpn;			/* 0: any */
	bool has_addr;
	struct in6_addr addr;		/* IPv4 as v4-mapped */
};

/* Read the MRC_A_QP nest of a request, @attr (may be NULL), which the
 * policy validated.
 */
static void mrc_nl_qp_filter(const struct nlattr *attr,
			     struct mrc_qp_filter *f,
			     struct nlattr **tb)
{
	memset(f, 0, sizeof(*f));
	if (!attr || nla_parse_nested(tb, MRC_QP_A_MAX, attr,
				      mrc_qp_key_policy, NULL))
		return;
	if (tb[MRC_QP_A_QPN])
		f->qpn = nla_get_u32(tb[MRC_QP_A_QPN]);
	if (tb[MRC_QP_A_REMOTE_ADDR]) {
		const struct nlattr *a = tb[MRC_QP_A_REMOTE_ADDR];

		f->has_addr = true;
		if (nla_len(a) == sizeof(struct in_addr))
			ipv6_addr_set_v4mapped(nla_get_in_addr(a), &f->addr);
		else
			f->addr = nla_get_in6_addr(a);
	}
}

static bool mrc_nl_qp_match(const struct mrc_qp *qp,
			    const struct mrc_qp_filter *f)
{
	return (!f->qpn || qp->qpn == f->qpn) &&
	       (!f->has_addr || ipv6_addr_equal(&qp->raddr, &f->addr));
}

/* The namespace's QPs by QP number, from cb->args[0], the number after
 * the last one dumped: a QP added or removed between two parts of the
 * dump neither shifts nor repeats the others, and the generation in
 * cb->seq flags the parts after such a change NLM_F_DUMP_INTR.  The
 * request may select QPs as a get does (mrc_nl_qp_get()).
 */
static int mrc_nl_qp_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	const struct genl_dumpit_info *info = genl_dumpit_info(cb);
	struct mrc_net *mn = mrc_net(sock_net(skb->sk));
	struct nlattr *tb[MRC_QP_A_MAX + 1];
	unsigned long qpn, start = cb->args[0];
	struct mrc_qp_filter f;
	struct mrc_qp *qp;
	int ret = 0;

	mrc_nl_qp_filter(info->attrs[MRC_A_QP], &f, tb);
	/* One number: none below it to walk. */
	if (f.qpn && start < f.qpn)
		start = f.qpn;

	spin_lock_bh(&mn->qp_lock);
	cb->seq = mn->qp_gen;
	xa_for_each_start(&mn->qps, qpn, qp, start) {
		void *hdr;

		if (f.qpn && qpn > f.qpn)
			break;
		if (!mrc_nl_qp_match(qp, &f))
			continue;
		hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid,
				  cb->nlh->nlmsg_seq, &mrc_genl_family,
				  NLM_F_MULTI, MRC_CMD_QP_GET);
		if (!hdr) {
			ret = -EMSGSIZE;
			break;
		}
		genl_dump_check_consistent(cb, hdr);
		spin_lock(&qp->lock);
		ret = mrc_nl_put_qp(skb, qp);
		spin_unlock(&qp->lock);
		if (ret) {
			genlmsg_cancel(skb, hdr);
			break;
		}
		genlmsg_end(skb, hdr);
		cb->args[0] = qpn + 1;
	}
	spin_unlock_bh(&mn->qp_lock);
	/* A full message ends this part of the dump; the next resumes. */
	if (ret == -EMSGSIZE && skb->len)
		return skb->len;
	return ret ?: skb->len;
}

#define MRC_QP_GET_QPN_MSG \
	"a get needs MRC_QP_A_QPN in MRC_A_QP (dump to list queue pairs)"

/* One queue pair by its number (MRC_QP_A_QPN in the MRC_A_QP nest, and
 * its remote address too if MRC_QP_A_REMOTE_ADDR is given), or -ENOENT.
 */
static int mrc_nl_qp_get(struct sk_buff *skb, struct genl_info *info)
{
	struct mrc_net *mn = mrc_net(genl_info_net(info));
	struct nlattr *tb[MRC_QP_A_MAX + 1];
	struct mrc_qp_filter f;
	struct sk_buff *msg;
	struct mrc_qp *qp;
	void *hdr;
	int ret;

	mrc_nl_qp_filter(info->attrs[MRC_A_QP], &f, tb);
	if (!f.qpn) {
		/* The nest's, or the nest itself, is what is missing. */
		if (info->attrs[MRC_A_QP])
			NL_SET_ERR_ATTR_MISS(info->extack,
					     info->attrs[MRC_A_QP],
					     MRC_QP_A_QPN);
		else
			NL_SET_ERR_ATTR_MISS(info->extack, NULL, MRC_A_QP);
		NL_SET_ERR_MSG(info->extack, MRC_QP_GET_QPN_MSG);
		return -EINVAL;
	}

	msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = genlmsg_put_reply(msg, info, &mrc_genl_family, 0,
				MRC_CMD_QP_GET);
	if (!hdr) {
		ret = -EMSGSIZE;
		goto err;
	}

	spin_lock_bh(&mn->qp_lock);
	qp = xa_load(&mn->qps, f.qpn);
	if (!qp || !mrc_nl_qp_match(qp, &f)) {
		spin_unlock_bh(&mn->qp_lock);
		if (f.has_addr)
			NL_SET_ERR_MSG_ATTR(info->extack, tb[MRC_QP_A_QPN],
					    "no queue pair with this number and remote address");
		else
			NL_SET_ERR_MSG_ATTR(info->extack, tb[MRC_QP_A_QPN],
					    "no queue pair with this number");
		ret = -ENOENT;
		goto err;
	}
	spin_lock(&qp->lock);
	ret = mrc_nl_put_qp(msg, qp);
	spin_unlock(&qp->lock);
	spin_unlock_bh(&mn->qp_lock);
	if (ret)
		goto err;
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);

err:
	nlmsg_free(msg);
	return ret;
}

/* Point the extack at @attr with @msg, a message that is not a literal
 * (the kernel's own NLA_REJECT handling does the same).
 */
static void mrc_nl_err(struct netlink_ext_ack *extack,
		       const struct nlattr *attr, const char *msg)
{
	if (!extack)
		return;
	extack->_msg = msg;
	extack->bad_attr = attr;
}

/* Apply the attributes of @info to @c; the policy checked their ranges. */
static void mrc_nl_parse_config(struct genl_info *info, struct mrc_config *c)
{
	size_t i;

	for (i = 0; i < MRC_NR_CONFIG_PARAMS; i++) {
		const struct mrc_config_param *p = &mrc_config_params[i];
		struct nlattr *attr = info->attrs[p->attr];

		if (attr)
			*mrc_config_field(c, p) = nla_get_u32(attr);
	}
}

static int mrc_nl_config_set(struct sk_buff *skb, struct genl_info *info)
{
	struct mrc_net *mn = mrc_net(genl_info_net(info));
	struct mrc_net_config *old, *new;
	const char *rule;
	int ret;

	new = kmalloc(sizeof(*new), GFP_KERNEL);
	if (!new)
		return -ENOMEM;

	mutex_lock(&mn->cfg_lock);
	old = rcu_dereference_protected(mn->cfg,
					lockdep_is_held(&mn->cfg_lock));
	new->c = old->c;

	mrc_nl_parse_config(info, &new->c);
	rule = mrc_config_check(&new->c);
	if (rule) {
		struct nlattr *bad = info->attrs[MRC_A_STARTING_PORT_OFFSET];

		/* Point at whichever of the two this request changed. */
		if (!bad)
			bad = info->attrs[MRC_A_ENTROPY_MASK_BITS];
		mrc_nl_err(info->extack, bad, rule);
		ret = -EINVAL;
		goto err;
	}
	/* Listening is a use of UDP/4791 as a socket is, taken before
	 * anything changes: a port held by another fails the whole set.
	 */
	if (new->c.listen && !old->c.listen) {
		ret = mrc_udp_get(mn);
		if (ret) {
			mrc_nl_err(info->extack, info->attrs[MRC_A_LISTEN],
				   ret == -EADDRINUSE ?
				   "UDP port 4791 is in use by another socket" :
				   "cannot open UDP port 4791");
			goto err;
		}
	}

	rcu_assign_pointer(mn->cfg, new);
	if (!new->c.listen && old->c.listen)
		mrc_udp_put(mn);
	mutex_unlock(&mn->cfg_lock);
	kfree_rcu(old, rcu);
	return 0;

err:
	mutex_unlock(&mn->cfg_lock);
	kfree(new);
	return ret;
}

static const struct genl_ops mrc_genl_ops[] = {
	{
		.cmd = MRC_CMD_CONFIG_GET,
		.doit = mrc_nl_config_get,
		.policy = mrc_no_attr_policy,
		.maxattr = MRC_A_MAX,
	},
	{
		.cmd = MRC_CMD_CONFIG_SET,
		.doit = mrc_nl_config_set,
		.policy = mrc_config_set_policy,
		.maxattr = MRC_A_MAX,
		.flags = GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd = MRC_CMD_STATS_GET,
		.doit = mrc_nl_stats_get,
		.policy = mrc_no_attr_policy,
		.maxattr = MRC_A_MAX,
	},
	{
		.cmd = MRC_CMD_QP_GET,
		.doit = mrc_nl_qp_get,
		.dumpit = mrc_nl_qp_dump,
		.policy = mrc_qp_get_policy,
		.maxattr = MRC_A_MAX,
	},
	{
		.cmd = MRC_CMD_PEER_GET,
		.dumpit = mrc_nl_peer_dump,
		.policy = mrc_no_attr_policy,
		.maxattr = MRC_A_MAX,
	},
};

static const struct genl_multicast_group mrc_genl_mcgrps[] = {
	[MRC_MCGRP_MON_ID] = { .name = MRC_MCGRP_MONITOR },
};

struct genl_family mrc_genl_family __ro_after_init = {
	.name = MRC_GENL_NAME,
	.version = MRC_GENL_VERSION,
	.netnsok = true,
	.module = THIS_MODULE,
	.ops = mrc_genl_ops,
	.n_ops = ARRAY_SIZE(mrc_genl_ops),
	.mcgrps = mrc_genl_mcgrps,
	.n_mcgrps = ARRAY_SIZE(mrc_genl_mcgrps),
	/* Every command validated strictly: the genetlink header's reserved
	 * field and flags, no trailing bytes, no unknown attribute, each of
	 * its policy's type and length.
	 */
	.resv_start_op = 0,
};

/**
 * mrc_genl_init() - register the "mrc" generic netlink family
 *
 * Return: 0 or a negative errno.
 */
int __init mrc_genl_init(void)
{
	size_t i;

	for (i = 0; i < MRC_NR_CONFIG_PARAMS; i++) {
		const struct mrc_config_param *p = &mrc_config_params[i];

		/* Every writable attribute's policy points at its range. */
		if (WARN_ON(mrc_config_set_policy[p->attr].range !=
			    &mrc_config_range[p->attr]))
			return -EINVAL;
		mrc_config_range[p->attr].min = p->min;
		mrc_config_range[p->attr].max = p->max;
	}
	return genl_register_family(&mrc_genl_family);
}

/**
 * mrc_genl_exit() - unregister the family, waiting for requests under way
 */
void mrc_genl_exit(void)
{
	genl_unregister_family(&mrc_genl_family);
}
