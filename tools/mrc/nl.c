// SPDX-License-Identifier: GPL-2.0
/*
 * mrc(8): requests to the "mrc" generic netlink family.
 *
 * A doit request has NLM_F_ACK: the kernel sends the reply, if the command
 * has one, then an ack that carries the errno and, with NETLINK_EXT_ACK, a
 * message and the offset of the offending attribute.  A dump request
 * (NLM_F_DUMP) is answered by any number of replies, in as many reads as
 * the kernel likes, and NLMSG_DONE, which carries the errno of a dump that
 * failed part way; a dump refused from the start gets an ack instead.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include <linux/mrc.h>

#include "cli.h"
#include "nl.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK	270
#endif

/* State of one request while its answers are parsed. */
struct mrc_nl_call {
	const struct nlmsghdr *req;
	mnl_cb_t cb;
	void *data;
	struct mrc_nl_err *e;
};

static struct nlmsghdr *mrc_nl_put_header(struct mrc_nl *nl, uint16_t type,
					  uint8_t cmd, uint8_t version)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(nl->req);
	struct genlmsghdr *genl;

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	nlh->nlmsg_seq = ++nl->seq;
	genl = mnl_nlmsg_put_extra_header(nlh, sizeof(*genl));
	genl->cmd = cmd;
	genl->version = version;
	return nlh;
}

/**
 * mrc_nl_request() - start a request to the mrc family
 * @nl: an open session
 * @cmd: MRC_CMD_*
 *
 * Return: the request, in @nl's request buffer; add attributes with
 * mnl_attr_put_*() and pass it to mrc_nl_talk().
 */
struct nlmsghdr *mrc_nl_request(struct mrc_nl *nl, uint8_t cmd)
{
	return mrc_nl_put_header(nl, nl->family, cmd, MRC_GENL_VERSION);
}

/**
 * mrc_nl_dump_request() - start a dump request to the mrc family
 * @nl: an open session
 * @cmd: MRC_CMD_* with a dumpit
 *
 * No NLM_F_ACK: NLMSG_DONE ends a dump that worked, an ack one that did
 * not start.
 *
 * Return: the request, in @nl's request buffer, for mrc_nl_talk().
 */
struct nlmsghdr *mrc_nl_dump_request(struct mrc_nl *nl, uint8_t cmd)
{
	struct nlmsghdr *nlh = mrc_nl_request(nl, cmd);

	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	return nlh;
}

/* The type of the attribute at byte @off of our request, or -1. */
static int mrc_nl_attr_at(const struct nlmsghdr *req, uint32_t off)
{
	uint32_t start = MNL_NLMSG_HDRLEN + GENL_HDRLEN;
	const struct nlattr *attr;

	if (off < start || off > req->nlmsg_len ||
	    req->nlmsg_len - off < sizeof(*attr))
		return -1;
	attr = (const struct nlattr *)((const char *)req + off);
	return mnl_attr_get_type(attr);
}

static int mrc_nl_ext_ack_attr_cb(const struct nlattr *attr, void *data)
{
	const struct nlattr **tb = data;
	uint16_t type = mnl_attr_get_type(attr);

	if (type == NLMSGERR_ATTR_MSG &&
	    mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) == 0)
		tb[type] = attr;
	else if (type == NLMSGERR_ATTR_OFFS &&
		 mnl_attr_validate(attr, MNL_TYPE_U32) == 0)
		tb[type] = attr;
	else if (type == NLMSGERR_ATTR_POLICY &&
		 mnl_attr_validate(attr, MNL_TYPE_NESTED) == 0)
		tb[type] = attr;
	return MNL_CB_OK;
}

/*
 * The bounds of an unsigned attribute's range in NLMSGERR_ATTR_POLICY:
 * the kernel's policy refused a value outside them.
 */
static void mrc_nl_parse_policy(const struct nlattr *nest, struct mrc_nl_err *e)
{
	const struct nlattr *a, *min = NULL, *max = NULL;

	mnl_attr_for_each_nested(a, nest) {
		uint16_t type = mnl_attr_get_type(a);

		if (mnl_attr_validate(a, MNL_TYPE_U64) < 0)
			continue;
		if (type == NL_POLICY_TYPE_ATTR_MIN_VALUE_U)
			min = a;
		else if (type == NL_POLICY_TYPE_ATTR_MAX_VALUE_U)
			max = a;
	}
	if (!min || !max)
		return;
	e->has_range = true;
	e->range_min = mnl_attr_get_u64(min);
	e->range_max = mnl_attr_get_u64(max);
}

/*
 * Copy the message, offending attribute and its range of the extended ack
 * TLVs at byte @off of the payload of @nlh, an ack or a NLMSG_DONE.
 */
static void mrc_nl_parse_ext_ack_at(const struct nlmsghdr *nlh, size_t off,
				    struct mrc_nl_call *call)
{
	const struct nlattr *tb[NLMSGERR_ATTR_MAX + 1] = { NULL };
	const struct nlattr *offs;

	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	if (off > mnl_nlmsg_get_payload_len(nlh))
		return;
	if (mnl_attr_parse(nlh, off, mrc_nl_ext_ack_attr_cb, tb) != MNL_CB_OK)
		return;

	if (tb[NLMSGERR_ATTR_MSG])
		snprintf(call->e->msg, sizeof(call->e->msg), "%s",
			 mnl_attr_get_str(tb[NLMSGERR_ATTR_MSG]));
	offs = tb[NLMSGERR_ATTR_OFFS];
	if (offs)
		call->e->bad_attr = mrc_nl_attr_at(call->req,
						   mnl_attr_get_u32(offs));
	if (tb[NLMSGERR_ATTR_POLICY])
		mrc_nl_parse_policy(tb[NLMSGERR_ATTR_POLICY], call->e);
}

/* Copy the message and offending attribute of an extended ack. */
static void mrc_nl_parse_ext_ack(const struct nlmsghdr *nlh,
				 struct mrc_nl_call *call)
{
	const struct nlmsgerr *err = mnl_nlmsg_get_payload(nlh);
	size_t off = sizeof(*err);

	/* Unless capped, the ack echoes our whole request first. */
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off += mnl_nlmsg_get_payload_len(&err->msg);
	mrc_nl_parse_ext_ack_at(nlh, off, call);
}

static int mrc_nl_error_cb(const struct nlmsghdr *nlh, void *data)
{
	struct mrc_nl_call *call = data;
	const struct nlmsgerr *err = mnl_nlmsg_get_payload(nlh);

	if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*err))) {
		errno = EBADMSG;
		return MNL_CB_ERROR;
	}
	mrc_nl_parse_ext_ack(nlh, call);
	if (!err->error)
		return MNL_CB_STOP;
	/* Subsystems have been seen to send either sign. */
	call->e->err = err->error < 0 ? -err->error : err->error;
	errno = call->e->err;
	return MNL_CB_ERROR;
}

/* The end of a dump: its payload is the errno the dump ended with. */
static int mrc_nl_done_cb(const struct nlmsghdr *nlh, void *data)
{
	struct mrc_nl_call *call = data;
	int err;

	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(err))
		return MNL_CB_STOP;	/* nothing to check */
	memcpy(&err, mnl_nlmsg_get_payload(nlh), sizeof(err));
	/* TLVs of an extended ack may follow, as in an ack. */
	mrc_nl_parse_ext_ack_at(nlh, MNL_ALIGN(sizeof(err)), call);
	if (!err)
		return MNL_CB_STOP;
	call->e->err = err < 0 ? -err : err;
	errno = call->e->err;
	return MNL_CB_ERROR;
}

static int mrc_nl_data_cb(const struct nlmsghdr *nlh, void *data)
{
	struct mrc_nl_call *call = data;

	if (!call->cb)
		return MNL_CB_OK;
	return call->cb(nlh, call->data);
}

/* Not const: libmnl 1.0.4's mnl_cb_run2() takes a plain pointer. */
static mnl_cb_t mrc_nl_ctl_cbs[NLMSG_MIN_TYPE] = {
	[NLMSG_ERROR]	= mrc_nl_error_cb,
	[NLMSG_DONE]	= mrc_nl_done_cb,
};

/**
 * mrc_nl_talk() - send a request, parse the answers until the ack or DONE
 * @nl: an open session
 * @req: the request, from mrc_nl_request(), mrc_nl_dump_request() or
 *	 mrc_nl_put_header()
 * @cb: called with each reply message (may be NULL); it returns MNL_CB_OK,
 *	or MNL_CB_ERROR with errno set.  A dump's replies come until its
 *	NLMSG_DONE; one the kernel flagged NLM_F_DUMP_INTR (the objects
 *	changed during the dump) fails the talk with EINTR
 * @data: passed to @cb
 * @e: filled with the outcome
 *
 * A warning in a successful ack is printed here.
 *
 * Return: 0 if the kernel acked the request or ended the dump without an
 * error, else -1 with @e->err set.
 */
int mrc_nl_talk(struct mrc_nl *nl, struct nlmsghdr *req, mnl_cb_t cb,
		void *data, struct mrc_nl_err *e)
{
	struct mrc_nl_call call = {
		.req = req, .cb = cb, .data = data, .e = e,
	};
	ssize_t len;
	int ret;

	memset(e, 0, sizeof(*e));
	e->bad_attr = -1;
	if (mnl_socket_sendto(nl->sock, req, req->nlmsg_len) < 0)
		goto fail;
	do {
		len = mnl_socket_recvfrom(nl->sock, nl->buf, sizeof(nl->buf));
		if (len <= 0) {
			if (!len)
				errno = ECONNRESET;
			goto fail;
		}
		ret = mnl_cb_run2(nl->buf, (size_t)len, req->nlmsg_seq,
				  nl->portid, mrc_nl_data_cb, &call,
				  mrc_nl_ctl_cbs, NLMSG_MIN_TYPE);
	} while (ret > MNL_CB_STOP);
	if (ret < 0)
		goto fail;
	if (e->msg[0])
		fprintf(stderr, "mrc: Warning: %s\n", e->msg);
	return 0;
fail:
	if (!e->err)
		e->err = errno ? errno : EPROTO;
	return -1;
}

/**
 * mrc_nl_report() - print why a request failed
 * @e: the outcome from mrc_nl_talk()
 * @what: what was being done, e.g. "reading the configuration"
 * @eperm_hint: what needs privilege, for an EPERM without a message; NULL
 *		when the command should not need any
 *
 * Return: the exit status, MRC_EXIT_KERNEL.
 */
int mrc_nl_report(const struct mrc_nl_err *e, const char *what,
		  const char *eperm_hint)
{
	if (e->msg[0] && e->has_range)
		fprintf(stderr, "mrc: Error: %s: must be in %llu..%llu (%s)\n",
			e->msg, (unsigned long long)e->range_min,
			(unsigned long long)e->range_max, strerror(e->err));
	else if (e->msg[0])
		fprintf(stderr, "mrc: Error: %s (%s)\n", e->msg,
			strerror(e->err));
	else if (e->err == EPERM && eperm_hint)
		fprintf(stderr, "mrc: %s (%s needs CAP_NET_ADMIN)\n",
			strerror(e->err), eperm_hint);
	else
		fprintf(stderr, "mrc: %s: %s\n", what, strerror(e->err));
	return MRC_EXIT_KERNEL;
}

/*
 * One entry of CTRL_ATTR_MCAST_GROUPS: keep the id of "monitor".  An
 * entry that does not parse is no group, rather than a failure of every
 * command: only monitor needs one.
 */
static int mrc_nl_mcgrp_cb(const struct nlattr *attr, void *data)
{
	const struct nlattr *tb[CTRL_ATTR_MCAST_GRP_MAX + 1] = { NULL };
	const struct nlattr *a, *name, *id;
	struct mrc_nl *nl = data;

	if (mnl_attr_validate(attr, MNL_TYPE_NESTED) < 0)
		return MNL_CB_OK;
	mnl_attr_for_each_nested(a, attr) {
		uint16_t type = mnl_attr_get_type(a);

		if ((type == CTRL_ATTR_MCAST_GRP_NAME &&
		     mnl_attr_validate(a, MNL_TYPE_NUL_STRING) == 0) ||
		    (type == CTRL_ATTR_MCAST_GRP_ID &&
		     mnl_attr_validate(a, MNL_TYPE_U32) == 0))
			tb[type] = a;
	}
	name = tb[CTRL_ATTR_MCAST_GRP_NAME];
	id = tb[CTRL_ATTR_MCAST_GRP_ID];
	if (name && id && !strcmp(mnl_attr_get_str(name), MRC_MCGRP_MONITOR))
		nl->mcgrp_monitor = mnl_attr_get_u32(id);
	return MNL_CB_OK;
}

/* The family's id and, if it has one, its "monitor" group's id. */
static int mrc_nl_family_cb(const struct nlmsghdr *nlh, void *data)
{
	struct mrc_nl *nl = data;
	struct nlattr *attr;

	mnl_attr_for_each(attr, nlh, sizeof(struct genlmsghdr)) {
		switch (mnl_attr_get_type(attr)) {
		case CTRL_ATTR_FAMILY_ID:
			if (mnl_attr_validate(attr, MNL_TYPE_U16) < 0)
				return MNL_CB_ERROR;
			nl->family = mnl_attr_get_u16(attr);
			break;
		case CTRL_ATTR_MCAST_GROUPS:
			if (mnl_attr_validate(attr, MNL_TYPE_NESTED) == 0)
				mnl_attr_parse_nested(attr, mrc_nl_mcgrp_cb, nl);
			break;
		}
	}
	return MNL_CB_OK;
}

/*
 * Find the id of the "mrc" family, the kernel loading mrc.ko if it can,
 * and the id of its multicast group "monitor".
 */
static int mrc_nl_resolve(struct mrc_nl *nl)
{
	struct nlmsghdr *req;
	struct mrc_nl_err e;

	req = mrc_nl_put_header(nl, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 1);
	mnl_attr_put_strz(req, CTRL_ATTR_FAMILY_NAME, MRC_GENL_NAME);
	nl->family = 0;
	nl->mcgrp_monitor = 0;
	if (mrc_nl_talk(nl, req, mrc_nl_family_cb, nl, &e) < 0) {
		if (e.err == ENOENT) {
			fprintf(stderr,
				"mrc: the mrc module is not loaded (generic netlink family \"%s\" not found)\n",
				MRC_GENL_NAME);
			return MRC_EXIT_NO_MODULE;
		}
		return mrc_nl_report(&e, "looking up the generic netlink family",
				     NULL);
	}
	if (!nl->family) {
		fprintf(stderr,
			"mrc: no family id in the reply for generic netlink family \"%s\"\n",
			MRC_GENL_NAME);
		return MRC_EXIT_KERNEL;
	}
	return MRC_EXIT_OK;
}

/* Ask for extended acks, and for acks without a copy of the request. */
static void mrc_nl_set_ack_options(struct mrc_nl *nl)
{
	int one = 1;

	/* Both are optional: older kernels only lose the messages. */
	mnl_socket_setsockopt(nl->sock, NETLINK_EXT_ACK, &one, sizeof(one));
	mnl_socket_setsockopt(nl->sock, NETLINK_CAP_ACK, &one, sizeof(one));
}

/**
 * mrc_nl_open() - open a generic netlink socket and find the mrc family
 * @nl: the session to set up
 *
 * Errors are printed.  On success, close @nl with mrc_nl_close().
 *
 * Return: MRC_EXIT_OK, else the exit status to end with.
 */
int mrc_nl_open(struct mrc_nl *nl)
{
	int ret;

	nl->seq = (unsigned int)time(NULL);
	nl->sock = mnl_socket_open(NETLINK_GENERIC);
	if (!nl->sock) {
		fprintf(stderr,
			"mrc: cannot open a generic netlink socket: %s\n",
			strerror(errno));
		return MRC_EXIT_KERNEL;
	}
	if (mnl_socket_bind(nl->sock, 0, MNL_SOCKET_AUTOPID) < 0) {
		fprintf(stderr, "mrc: cannot bind the netlink socket: %s\n",
			strerror(errno));
		mrc_nl_close(nl);
		return MRC_EXIT_KERNEL;
	}
	nl->portid = mnl_socket_get_portid(nl->sock);
	mrc_nl_set_ack_options(nl);

	ret = mrc_nl_resolve(nl);
	if (ret != MRC_EXIT_OK)
		mrc_nl_close(nl);
	return ret;
}

void mrc_nl_close(struct mrc_nl *nl)
{
	if (nl->sock)
		mnl_socket_close(nl->sock);
	nl->sock = NULL;
}

/**
 * mrc_nl_get() - one request without attributes, its reply to @cb
 * @cmd: the MRC_CMD_* to send
 * @cb: called with each reply message
 * @data: passed to @cb
 * @what: what is being read, for the error message
 *
 * Return: MRC_EXIT_OK, else the exit status to end with (errors printed).
 */
int mrc_nl_get(uint8_t cmd, mnl_cb_t cb, void *data, const char *what)
{
	struct mrc_nl nl;
	struct mrc_nl_err e;
	int ret;

	ret = mrc_nl_open(&nl);
	if (ret != MRC_EXIT_OK)
		return ret;
	ret = mrc_nl_talk(&nl, mrc_nl_request(&nl, cmd), cb, data, &e);
	mrc_nl_close(&nl);
	if (ret < 0)
		return mrc_nl_report(&e, what, NULL);
	return MRC_EXIT_OK;
}

/**
 * mrc_nl_dump() - a dump, its replies to @cb
 * @cmd: the MRC_CMD_* with a dumpit
 * @put: adds the request's attributes (what to dump), or NULL: none
 * @put_arg: passed to @put
 * @cb: called with each reply message
 * @data: passed to @cb
 * @reset: called with @data before each try, to forget what an interrupted
 *	   one gave
 * @e: filled with the outcome of the last try
 *
 * A dump the kernel flags NLM_F_DUMP_INTR (the objects changed during it)
 * fails with EINTR; it is tried again, MRC_NL_DUMP_TRIES times at most.
 *
 * Return: MRC_EXIT_OK, with @e->err set if the dump failed (for the
 * caller to report); else the exit status to end with (errors printed).
 */
int mrc_nl_dump(uint8_t cmd, mrc_nl_put_t put, const void *put_arg,
		mnl_cb_t cb, void *data, void (*reset)(void *data),
		struct mrc_nl_err *e)
{
	struct nlmsghdr *req;
	struct mrc_nl nl;
	int tries, ret;

	for (tries = 0; tries < MRC_NL_DUMP_TRIES; tries++) {
		ret = mrc_nl_open(&nl);
		if (ret != MRC_EXIT_OK)
			return ret;
		reset(data);
		req = mrc_nl_dump_request(&nl, cmd);
		if (put)
			put(req, put_arg);
		mrc_nl_talk(&nl, req, cb, data, e);
		mrc_nl_close(&nl);
		if (e->err != EINTR)
			break;
	}
	return MRC_EXIT_OK;
}
