// SPDX-License-Identifier: GPL-2.0
/*
 * mrc(8): what "qp show" and "peer show" share; see dump.h.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/genetlink.h>

#include "dump.h"
#include "nl.h"

/**
 * mrc_dump_bad() - a reply this mrc cannot read
 *
 * Return: MNL_CB_ERROR, errno EBADMSG.
 */
int mrc_dump_bad(void)
{
	errno = EBADMSG;
	return MNL_CB_ERROR;
}

/**
 * mrc_dump_list_add() - append a copy of an object to a list
 * @list: the list
 * @item: the object, @list->item_size bytes
 *
 * Return: MNL_CB_OK, or MNL_CB_ERROR with errno ENOMEM.
 */
int mrc_dump_list_add(struct mrc_dump_list *list, const void *item)
{
	size_t size;
	void *grown;

	if (list->count == list->size) {
		size = list->size ? 2 * list->size : 16;
		grown = realloc(list->items, size * list->item_size);
		if (!grown) {
			errno = ENOMEM;
			return MNL_CB_ERROR;
		}
		list->items = grown;
		list->size = size;
	}
	memcpy((char *)list->items + list->count++ * list->item_size, item,
	       list->item_size);
	return MNL_CB_OK;
}

struct mrc_dump_nest {
	uint16_t type;
	mnl_attr_cb_t cb;
	void *data;
	bool found;
};

static int mrc_dump_top_cb(const struct nlattr *attr, void *data)
{
	struct mrc_dump_nest *n = data;

	if (mnl_attr_get_type(attr) != n->type)
		return MNL_CB_OK;
	if (mnl_attr_validate(attr, MNL_TYPE_NESTED) < 0)
		return mrc_dump_bad();
	n->found = true;
	return mnl_attr_parse_nested(attr, n->cb, n->data);
}

/**
 * mrc_dump_parse() - read the object of one reply of a dump
 * @nlh: the reply
 * @type: the attribute of the object's nest (MRC_A_QP, MRC_A_PEER)
 * @cb: called for each attribute of the nest
 * @data: passed to @cb
 * @found: set to whether the reply had the nest
 *
 * Return: MNL_CB_OK, or MNL_CB_ERROR with errno set.
 */
int mrc_dump_parse(const struct nlmsghdr *nlh, uint16_t type, mnl_attr_cb_t cb,
		   void *data, bool *found)
{
	struct mrc_dump_nest n = { .type = type, .cb = cb, .data = data };
	int ret;

	ret = mnl_attr_parse(nlh, sizeof(struct genlmsghdr), mrc_dump_top_cb,
			     &n);
	*found = n.found;
	return ret;
}

/**
 * mrc_dump_family() - the address family of an object
 * @has_family: the kernel gave its family
 * @family: that family
 * @addr_len: the length of its address, 0 if the kernel gave none
 *
 * Return: the family, else the one the address length says, else
 * AF_UNSPEC.
 */
unsigned int mrc_dump_family(bool has_family, uint64_t family,
			     unsigned int addr_len)
{
	if (has_family)
		return (unsigned int)family;
	if (!addr_len)
		return AF_UNSPEC;
	return addr_len == 4 ? AF_INET : AF_INET6;
}

/**
 * mrc_dump_consistent() - whether an object's address fits its family
 * @has_family: the kernel gave its family
 * @family: that family
 * @addr_len: the length of its address, 0 if the kernel gave none
 *
 * An address whose length contradicts the family is not printed.
 *
 * Return: true unless both are given and contradict each other.
 */
bool mrc_dump_consistent(bool has_family, uint64_t family,
			 unsigned int addr_len)
{
	if (!addr_len || !has_family)
		return true;
	switch (family) {
	case AF_INET:
		return addr_len == 4;
	case AF_INET6:
		return addr_len == 16;
	default:
		return false;
	}
}

/**
 * mrc_dump_addr() - an address as text
 * @addr: 4 or 16 bytes
 * @addr_len: 4 or 16, 0 if the kernel gave none
 * @buf: where to write it, "" if there is none
 * @size: of @buf, at least INET6_ADDRSTRLEN
 */
void mrc_dump_addr(const uint8_t *addr, unsigned int addr_len, char *buf,
		   size_t size)
{
	int af = addr_len == 4 ? AF_INET : AF_INET6;

	buf[0] = '\0';
	if (addr_len && !inet_ntop(af, addr, buf, (socklen_t)size))
		buf[0] = '\0';
}

/**
 * mrc_dump_out_family() - the "family" member of a JSON object
 * @o: the output
 * @family: AF_INET, AF_INET6, another (as its number) or AF_UNSPEC (none)
 */
void mrc_dump_out_family(struct mrc_out *o, unsigned int family)
{
	if (family == AF_INET)
		mrc_out_str(o, NULL, "family", "inet");
	else if (family == AF_INET6)
		mrc_out_str(o, NULL, "family", "inet6");
	else if (family != AF_UNSPEC)
		mrc_out_u64(o, NULL, "family", family);
}

static int mrc_dump_print(const struct mrc_dump_ops *ops,
			  const struct mrc_dump_list *list,
			  const struct mrc_opts *opts)
{
	const char *item;
	struct mrc_out o;
	size_t i;

	mrc_out_begin_list(&o, stdout, opts->json, opts->pretty);
	for (i = 0; i < list->count; i++) {
		item = (const char *)list->items + i * list->item_size;
		if (opts->json)
			ops->json(&o, item);
		else
			ops->text(stdout, item, opts->stats);
	}
	if (mrc_out_end(&o) < 0) {
		fprintf(stderr, "mrc: writing the output: %s\n",
			strerror(errno));
		return MRC_EXIT_KERNEL;
	}
	return MRC_EXIT_OK;
}

static int mrc_dump_report(const struct mrc_dump_ops *ops,
			   const struct mrc_dump_req *req,
			   const struct mrc_nl_err *e)
{
	char what[64];

	if (req && req->doit && e->err == EOPNOTSUPP && !e->msg[0]) {
		fprintf(stderr,
			"mrc: the loaded mrc module cannot get one of its %s (no %s doit): %s\n",
			ops->what, ops->cmd_name, strerror(e->err));
		return MRC_EXIT_KERNEL;
	}

	if (e->err == EINTR && !e->msg[0]) {
		fprintf(stderr,
			"mrc: the %s changed during each of %d dumps; try again\n",
			ops->what, MRC_NL_DUMP_TRIES);
		return MRC_EXIT_KERNEL;
	}
	if (e->err == EOPNOTSUPP && !e->msg[0]) {
		fprintf(stderr,
			"mrc: the loaded mrc module cannot list %s (no %s dump): %s\n",
			ops->what, ops->cmd_name, strerror(e->err));
		return MRC_EXIT_KERNEL;
	}
	snprintf(what, sizeof(what), "reading the %s", ops->what);
	return mrc_nl_report(e, what, NULL);
}

/**
 * mrc_dump_show() - dump the objects of a command and print them
 * @ops: the command
 * @data: what @ops->reply_cb and @ops->reset are given
 * @list: the list @ops->reply_cb fills
 * @opts: the global options
 *
 * Return: the exit status.
 */
int mrc_dump_show(const struct mrc_dump_ops *ops, void *data,
		  const struct mrc_dump_list *list,
		  const struct mrc_opts *opts)
{
	return mrc_dump_show_req(ops, NULL, data, list, opts);
}

/* A get of one object: its reply to @ops->reply_cb. */
static int mrc_dump_get(const struct mrc_dump_ops *ops,
			const struct mrc_dump_req *req, void *data,
			struct mrc_nl_err *e)
{
	struct nlmsghdr *nlh;
	struct mrc_nl nl;
	int ret;

	ret = mrc_nl_open(&nl);
	if (ret != MRC_EXIT_OK)
		return ret;
	ops->reset(data);
	nlh = mrc_nl_request(&nl, ops->cmd);
	req->put(nlh, req->arg);
	mrc_nl_talk(&nl, nlh, ops->reply_cb, data, e);
	mrc_nl_close(&nl);
	return MRC_EXIT_OK;
}

/**
 * mrc_dump_show_req() - the objects a request selects, printed
 * @ops: the command
 * @req: the request's attributes and kind; NULL: a dump of every object
 * @data: what @ops->reply_cb and @ops->reset are given
 * @list: the list @ops->reply_cb fills
 * @opts: the global options
 *
 * Return: the exit status.
 */
int mrc_dump_show_req(const struct mrc_dump_ops *ops,
		      const struct mrc_dump_req *req, void *data,
		      const struct mrc_dump_list *list,
		      const struct mrc_opts *opts)
{
	struct mrc_nl_err e;
	int ret;

	if (req && req->doit)
		ret = mrc_dump_get(ops, req, data, &e);
	else
		ret = mrc_nl_dump(ops->cmd, req ? req->put : NULL,
				  req ? req->arg : NULL, ops->reply_cb, data,
				  ops->reset, &e);
	if (ret != MRC_EXIT_OK)
		return ret;
	if (e.err)
		return mrc_dump_report(ops, req, &e);
	return mrc_dump_print(ops, list, opts);
}

/**
 * mrc_dump_cmd() - mrc NOUN [ show | list | help ], show the default
 * @ops: the command
 * @argc: number of arguments after NOUN
 * @argv: the arguments after NOUN
 * @opts: the global options
 * @show: the show command, given the arguments after "show"
 *
 * Return: the exit status.
 */
int mrc_dump_cmd(const struct mrc_dump_ops *ops, int argc, char **argv,
		 const struct mrc_opts *opts,
		 int (*show)(int argc, char **argv,
			     const struct mrc_opts *opts))
{
	if (argc == 0)
		return show(0, argv, opts);
	if (mrc_matches(argv[0], "show") || mrc_matches(argv[0], "list"))
		return show(argc - 1, argv + 1, opts);
	if (mrc_matches(argv[0], "help")) {
		mrc_help();
		return MRC_EXIT_OK;
	}
	return mrc_usage_error("unknown %s command \"%s\"", ops->noun, argv[0]);
}
