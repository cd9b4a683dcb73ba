/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mrc(8): what the commands that list kernel objects share ("qp show",
 * "peer show"): their command line, the dump and its errors, the parsing
 * of one object's nest, addresses, and the output of the list.
 */
#ifndef _MRC_CLI_DUMP_H
#define _MRC_CLI_DUMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <libmnl/libmnl.h>

#include "cli.h"
#include "nl.h"
#include "output.h"

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif

/* The objects of a dump, in the kernel's order. */
struct mrc_dump_list {
	void *items;
	size_t count;
	size_t size;		/* items there is room for */
	size_t item_size;
};

/* One listing command: what it dumps and how it prints an object. */
struct mrc_dump_ops {
	const char *noun;	/* "qp": its command, in messages */
	const char *what;	/* "queue pairs": the objects, in messages */
	uint8_t cmd;		/* MRC_CMD_*_GET, dumped */
	const char *cmd_name;	/* its name, in messages */
	/* The dump: each reply, and a new try of an interrupted dump. */
	mnl_cb_t reply_cb;
	void (*reset)(void *data);
	/* Output of one object, as JSON or plain text (@all: -s). */
	void (*json)(struct mrc_out *o, const void *item);
	void (*text)(FILE *f, const void *item, bool all);
};

int mrc_dump_bad(void);
int mrc_dump_list_add(struct mrc_dump_list *list, const void *item);
int mrc_dump_parse(const struct nlmsghdr *nlh, uint16_t type, mnl_attr_cb_t cb,
		   void *data, bool *found);
unsigned int mrc_dump_family(bool has_family, uint64_t family,
			     unsigned int addr_len);
bool mrc_dump_consistent(bool has_family, uint64_t family,
			 unsigned int addr_len);
void mrc_dump_addr(const uint8_t *addr, unsigned int addr_len, char *buf,
		   size_t size);
void mrc_dump_out_family(struct mrc_out *o, unsigned int family);
/* A request that selects objects: its attributes, and whether it is a
 * get of one object (a doit, ENOENT if there is none) or a dump.
 */
struct mrc_dump_req {
	bool doit;
	mrc_nl_put_t put;
	const void *arg;	/* passed to @put */
};

int mrc_dump_show(const struct mrc_dump_ops *ops, void *data,
		  const struct mrc_dump_list *list,
		  const struct mrc_opts *opts);
int mrc_dump_show_req(const struct mrc_dump_ops *ops,
		      const struct mrc_dump_req *req, void *data,
		      const struct mrc_dump_list *list,
		      const struct mrc_opts *opts);
int mrc_dump_cmd(const struct mrc_dump_ops *ops, int argc, char **argv,
		 const struct mrc_opts *opts,
		 int (*show)(int argc, char **argv,
			     const struct mrc_opts *opts));

#endif /* _MRC_CLI_DUMP_H */
