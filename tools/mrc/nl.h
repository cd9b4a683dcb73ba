/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mrc(8): requests to the "mrc" generic netlink family.
 */
#ifndef _MRC_CLI_NL_H
#define _MRC_CLI_NL_H

#include <stdbool.h>
#include <stdint.h>
#include <libmnl/libmnl.h>

/* Big enough for any reply of the family, and for any request. */
#define MRC_NL_BUF_SIZE		32768

struct mrc_nl {
	struct mnl_socket *sock;
	unsigned int portid;
	unsigned int seq;
	uint16_t family;	/* generic netlink id of "mrc" */
	uint32_t mcgrp_monitor;	/* id of its group "monitor", 0 if none */
	char req[MRC_NL_BUF_SIZE] __attribute__((aligned(8)));
	char buf[MRC_NL_BUF_SIZE] __attribute__((aligned(8)));
};

/* Dumps tried while the objects listed keep changing during one. */
#define MRC_NL_DUMP_TRIES	3

/* How the kernel answered a request. */
struct mrc_nl_err {
	int err;		/* positive errno, 0 if the request succeeded */
	char msg[512];		/* extended ack message, "" if none */
	int bad_attr;		/* attribute the ack points at, or -1 */
	/* The range its policy allows (NLMSGERR_ATTR_POLICY), if sent. */
	bool has_range;
	uint64_t range_min;
	uint64_t range_max;
};

/* Adds the attributes of a request, from @arg. */
typedef void (*mrc_nl_put_t)(struct nlmsghdr *req, const void *arg);

int mrc_nl_open(struct mrc_nl *nl);
void mrc_nl_close(struct mrc_nl *nl);
struct nlmsghdr *mrc_nl_request(struct mrc_nl *nl, uint8_t cmd);
struct nlmsghdr *mrc_nl_dump_request(struct mrc_nl *nl, uint8_t cmd);
int mrc_nl_talk(struct mrc_nl *nl, struct nlmsghdr *req, mnl_cb_t cb,
		void *data, struct mrc_nl_err *e);
int mrc_nl_report(const struct mrc_nl_err *e, const char *what,
		  const char *eperm_hint);
int mrc_nl_get(uint8_t cmd, mnl_cb_t cb, void *data, const char *what);
int mrc_nl_dump(uint8_t cmd, mrc_nl_put_t put, const void *put_arg,
		mnl_cb_t cb, void *data, void (*reset)(void *data),
		struct mrc_nl_err *e);

#endif /* _MRC_CLI_NL_H */
