// SPDX-License-Identifier: GPL-2.0
/*
 * mrc_genl: the generic netlink ABI of mrc.ko, byte by byte, over a raw
 * NETLINK_GENERIC socket (no libmnl): attribute types and lengths of the
 * replies, errnos, extended ack messages and the offsets they point at,
 * and the queue pair dump.
 *
 * Every test runs in a network namespace of its own (the harness forks
 * each test; the fixture unshares the netns), so it starts from the
 * defaults and leaves nothing behind.  Run it through mrc_genl.sh, which
 * loads the module first; run bare, it skips if the family is absent.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <linux/capability.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include <linux/mrc.h>
#include <mrc/config.h>
#include <mrc/stat_names.h>

/* The harness itself has an unused parameter, which -Wextra reports. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "kselftest_harness.h"
#include "mrc_testnet.h"
#pragma GCC diagnostic pop

#ifndef SOL_NETLINK
#define SOL_NETLINK		270
#endif

#define BUF_SIZE		32768

/* Text the kernel's own attribute validation puts in the extack. */
#define MSG_BAD_LEN		"invalid attribute length"
#define MSG_UNKNOWN_ATTR	"Unknown attribute type"
#define MSG_RANGE		"integer out of range"
#define MSG_TRAILING		"bytes leftover after parsing attributes"
#define MSG_RESERVED		"genlmsghdr.reserved field is not 0"
/* ... and mrc's, for an attribute to a command that takes none. */
#define MSG_NO_ATTRS		"this command takes no attributes"
#define MSG_QP_GET_ONLY		"MRC_CMD_QP_GET takes MRC_A_QP only"
#define MSG_QP_KEY_ONLY		"a queue pair is selected by MRC_QP_A_QPN or MRC_QP_A_REMOTE_ADDR only"
#define MSG_QP_ADDR_LEN		"MRC_QP_A_REMOTE_ADDR must be 4 or 16 bytes"
#define MSG_QP_GET_QPN		"a get needs MRC_QP_A_QPN in MRC_A_QP (dump to list queue pairs)"
#define MSG_QP_NONE		"no queue pair with this number"
#define MSG_QP_NONE_ADDR	"no queue pair with this number and remote address"
#define MSG_NESTED_MISSING	"NLA_F_NESTED is missing"

/* What the kernel answered to one request. */
struct answer {
	int err;		/* the ack's error: 0 or a negative errno */
	char msg[512];		/* NLMSGERR_ATTR_MSG, "" without one */
	int has_offs;		/* NLMSGERR_ATTR_OFFS present */
	__u32 offs;		/* its value: offset in the request */
	int has_range;		/* NLMSGERR_ATTR_POLICY had a u64 range */
	__u64 range_min, range_max;	/* ... that range */
	int nreplies;		/* replies before the ack */
	int done;		/* a dump: ended by NLMSG_DONE, not an ack */
	__u16 flags;		/* nlmsg_flags of the last reply */
	__u8 cmd;		/* genl command of the last reply */
	__u8 version;		/* genl version of the last reply */
	int alen;		/* length of its attributes */
	char attrs[BUF_SIZE] __attribute__((aligned(NLA_ALIGNTO)));
};

struct req {
	char buf[BUF_SIZE] __attribute__((aligned(NLMSG_ALIGNTO)));
};

static struct nlmsghdr *req_start(struct req *r, __u16 type, __u8 cmd,
				  __u8 version)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)r->buf;
	struct genlmsghdr *g;

	memset(r->buf, 0, sizeof(r->buf));
	nlh->nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	g = NLMSG_DATA(nlh);
	g->cmd = cmd;
	g->version = version;
	return nlh;
}

/* Append an attribute; return it, to know its offset. */
static struct nlattr *req_put(struct nlmsghdr *nlh, __u16 type,
			      const void *data, __u16 len)
{
	struct nlattr *a = (struct nlattr *)((char *)nlh +
					     NLMSG_ALIGN(nlh->nlmsg_len));

	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + len;
	if (len)
		memcpy((char *)a + NLA_HDRLEN, data, len);
	nlh->nlmsg_len = NLMSG_ALIGN(nlh->nlmsg_len) + NLA_ALIGN(a->nla_len);
	return a;
}

static struct nlattr *req_put_u32(struct nlmsghdr *nlh, __u16 type, __u32 v)
{
	return req_put(nlh, type, &v, sizeof(v));
}

static __u32 offset_of(const struct nlmsghdr *nlh, const struct nlattr *a)
{
	return (__u32)((const char *)a - (const char *)nlh);
}

/* Open a generic netlink socket with extended and capped acks. */
static int nl_open(void)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	int one = 1;
	int fd;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one)) ||
	    setsockopt(fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one))) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

/* The unsigned range in an NLMSGERR_ATTR_POLICY nest. */
static void parse_policy(const char *data, int len, struct answer *a)
{
	const struct nlattr *attr = (const struct nlattr *)data;
	int got = 0;

	for (; len >= NLA_HDRLEN && attr->nla_len >= NLA_HDRLEN &&
	       attr->nla_len <= len;
	     len -= NLA_ALIGN(attr->nla_len),
	     attr = (const void *)((const char *)attr +
				   NLA_ALIGN(attr->nla_len))) {
		if (attr->nla_len != NLA_HDRLEN + 8)
			continue;
		if (attr->nla_type == NL_POLICY_TYPE_ATTR_MIN_VALUE_U) {
			memcpy(&a->range_min, (const char *)attr + NLA_HDRLEN, 8);
			got |= 1;
		} else if (attr->nla_type == NL_POLICY_TYPE_ATTR_MAX_VALUE_U) {
			memcpy(&a->range_max, (const char *)attr + NLA_HDRLEN, 8);
			got |= 2;
		}
	}
	a->has_range = got == 3;
}

static void parse_ack_tlvs(const struct nlmsghdr *nlh, struct answer *a)
{
	const struct nlmsgerr *e = NLMSG_DATA(nlh);
	int off = sizeof(*e);
	const struct nlattr *attr;
	int rem;

	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off += e->msg.nlmsg_len - NLMSG_HDRLEN;
	rem = (int)nlh->nlmsg_len - NLMSG_HDRLEN - NLMSG_ALIGN(off);
	attr = (const struct nlattr *)((const char *)e + NLMSG_ALIGN(off));
	for (; rem >= NLA_HDRLEN && attr->nla_len >= NLA_HDRLEN &&
	       attr->nla_len <= rem;
	     rem -= NLA_ALIGN(attr->nla_len),
	     attr = (const void *)((const char *)attr +
				   NLA_ALIGN(attr->nla_len))) {
		const char *data = (const char *)attr + NLA_HDRLEN;
		int len = attr->nla_len - NLA_HDRLEN;

		switch (attr->nla_type & NLA_TYPE_MASK) {
		case NLMSGERR_ATTR_MSG:
			snprintf(a->msg, sizeof(a->msg), "%.*s", len, data);
			break;
		case NLMSGERR_ATTR_OFFS:
			if (len == 4) {
				memcpy(&a->offs, data, 4);
				a->has_offs = 1;
			}
			break;
		case NLMSGERR_ATTR_POLICY:
			parse_policy(data, len, a);
			break;
		}
	}
}

/*
 * Send @nlh and read until its ack, or the NLMSG_DONE of a dump (whose
 * errno goes to @a->err).  Return: 0 with @a filled, or a negative errno
 * if talking to the kernel failed.
 */
static int nl_talk(int fd, struct nlmsghdr *nlh, struct answer *a)
{
	static __u32 seq = 1;
	static char buf[BUF_SIZE] __attribute__((aligned(NLMSG_ALIGNTO)));
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };

	memset(a, 0, sizeof(*a));
	nlh->nlmsg_seq = ++seq;
	if (sendto(fd, nlh, nlh->nlmsg_len, 0, (struct sockaddr *)&sa,
		   sizeof(sa)) != (ssize_t)nlh->nlmsg_len)
		return -errno;
	for (;;) {
		ssize_t n = recv(fd, buf, sizeof(buf), 0);
		struct nlmsghdr *m;
		int rem;

		if (n < 0)
			return -errno;
		rem = (int)n;
		for (m = (struct nlmsghdr *)buf; NLMSG_OK(m, rem);
		     m = NLMSG_NEXT(m, rem)) {
			if (m->nlmsg_seq != nlh->nlmsg_seq)
				continue;
			if (m->nlmsg_type == NLMSG_ERROR) {
				a->err = ((struct nlmsgerr *)NLMSG_DATA(m))->error;
				parse_ack_tlvs(m, a);
				return 0;
			}
			if (m->nlmsg_type == NLMSG_DONE) {
				/* No ack follows a dump that started. */
				if (m->nlmsg_len < NLMSG_LENGTH(sizeof(int)))
					return -EBADMSG;
				memcpy(&a->err, NLMSG_DATA(m), sizeof(int));
				a->done = 1;
				return 0;
			}
			if (m->nlmsg_len < NLMSG_LENGTH(GENL_HDRLEN))
				return -EBADMSG;
			a->nreplies++;
			a->flags = m->nlmsg_flags;
			a->cmd = ((struct genlmsghdr *)NLMSG_DATA(m))->cmd;
			a->version = ((struct genlmsghdr *)NLMSG_DATA(m))->version;
			a->alen = m->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN);
			memcpy(a->attrs, (char *)NLMSG_DATA(m) + GENL_HDRLEN,
			       a->alen);
		}
	}
}

/*
 * Index the attributes of @data..@len by type (the last one wins) in @tb
 * (types 0..@max); @counts[type] counts them.  Return: the number of
 * attributes with a type above @max, or -1 if they do not tile @len.
 */
static int attr_index(const void *data, int len, const struct nlattr **tb,
		      int *counts, int max)
{
	const struct nlattr *attr = data;
	int unknown = 0;

	memset(tb, 0, sizeof(*tb) * (max + 1));
	memset(counts, 0, sizeof(*counts) * (max + 1));
	while (len >= NLA_HDRLEN) {
		int type = attr->nla_type & NLA_TYPE_MASK;

		if (attr->nla_len < NLA_HDRLEN || attr->nla_len > len)
			return -1;
		if (type <= max) {
			tb[type] = attr;
			counts[type]++;
		} else {
			unknown++;
		}
		len -= NLA_ALIGN(attr->nla_len);
		attr = (const void *)((const char *)attr +
				      NLA_ALIGN(attr->nla_len));
	}
	return len ? -1 : unknown;
}

static int attr_len(const struct nlattr *a)
{
	return a->nla_len - NLA_HDRLEN;
}

static __u16 attr_u16(const struct nlattr *a)
{
	__u16 v;

	memcpy(&v, (const char *)a + NLA_HDRLEN, sizeof(v));
	return v;
}

static __u32 attr_u32(const struct nlattr *a)
{
	__u32 v;

	memcpy(&v, (const char *)a + NLA_HDRLEN, sizeof(v));
	return v;
}

static __u64 attr_u64(const struct nlattr *a)
{
	__u64 v;

	memcpy(&v, (const char *)a + NLA_HDRLEN, sizeof(v));
	return v;
}

/* The family's id and what the controller says about it. */
struct family {
	__u16 id;
	__u32 version;
	__u32 op_flags[MRC_CMD_MAX + 2];	/* by op id; 0 if absent */
	int op_seen[MRC_CMD_MAX + 2];
	int nops;
};

/* Return: 0, -ENOENT if there is no family "mrc", or another -errno. */
static int family_get(int fd, struct family *fam)
{
	static struct answer a;
	const struct nlattr *tb[CTRL_ATTR_MAX + 1];
	int counts[CTRL_ATTR_MAX + 1];
	struct nlmsghdr *nlh;
	struct req r;

	memset(fam, 0, sizeof(*fam));
	nlh = req_start(&r, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 1);
	req_put(nlh, CTRL_ATTR_FAMILY_NAME, MRC_GENL_NAME,
		sizeof(MRC_GENL_NAME));
	if (nl_talk(fd, nlh, &a))
		return -EIO;
	if (a.err)
		return a.err;
	if (attr_index(a.attrs, a.alen, tb, counts, CTRL_ATTR_MAX) < 0 ||
	    !tb[CTRL_ATTR_FAMILY_ID] || attr_len(tb[CTRL_ATTR_FAMILY_ID]) != 2)
		return -EBADMSG;
	memcpy(&fam->id, (const char *)tb[CTRL_ATTR_FAMILY_ID] + NLA_HDRLEN, 2);
	if (tb[CTRL_ATTR_VERSION])
		fam->version = attr_u32(tb[CTRL_ATTR_VERSION]);
	if (tb[CTRL_ATTR_OPS]) {
		const struct nlattr *op = (const void *)((const char *)
					  tb[CTRL_ATTR_OPS] + NLA_HDRLEN);
		int rem = attr_len(tb[CTRL_ATTR_OPS]);

		while (rem >= NLA_HDRLEN && op->nla_len >= NLA_HDRLEN &&
		       op->nla_len <= rem) {
			const struct nlattr *otb[CTRL_ATTR_OP_MAX + 1];
			int ocounts[CTRL_ATTR_OP_MAX + 1];

			if (attr_index((const char *)op + NLA_HDRLEN,
				       attr_len(op), otb, ocounts,
				       CTRL_ATTR_OP_MAX) >= 0 &&
			    otb[CTRL_ATTR_OP_ID]) {
				__u32 id = attr_u32(otb[CTRL_ATTR_OP_ID]);

				fam->nops++;
				if (id <= MRC_CMD_MAX + 1) {
					fam->op_seen[id] = 1;
					if (otb[CTRL_ATTR_OP_FLAGS])
						fam->op_flags[id] =
						attr_u32(otb[CTRL_ATTR_OP_FLAGS]);
				}
			}
			rem -= NLA_ALIGN(op->nla_len);
			op = (const void *)((const char *)op +
					    NLA_ALIGN(op->nla_len));
		}
	}
	return 0;
}

FIXTURE(mrc) {
	int fd;
	__u16 family;
	struct answer a;	/* the answer of the last request */
	struct req r;
	const struct nlattr *tb[MRC_A_MAX + 1];
	int counts[MRC_A_MAX + 1];
};

FIXTURE_SETUP(mrc)
{
	struct family fam;

	/* A netns of our own: the defaults, and nothing left behind. */
	ASSERT_EQ(0, unshare(CLONE_NEWNET)) {
		TH_LOG("unshare(CLONE_NEWNET): %s", strerror(errno));
	}
	self->fd = nl_open();
	ASSERT_LE(0, self->fd) {
		TH_LOG("netlink socket: %s", strerror(-self->fd));
	}
	ASSERT_EQ(0, family_get(self->fd, &fam)) {
		TH_LOG("no generic netlink family \"%s\" in the new netns",
		       MRC_GENL_NAME);
	}
	self->family = fam.id;
}

FIXTURE_TEARDOWN(mrc)
{
	if (self->fd >= 0)
		close(self->fd);
}

static struct nlmsghdr *mrc_req(FIXTURE_DATA(mrc) *self, __u8 cmd)
{
	return req_start(&self->r, self->family, cmd, MRC_GENL_VERSION);
}

/* Send a request; return the ack's error (0 or -errno). */
static int mrc_talk(struct __test_metadata *_metadata,
		    FIXTURE_DATA(mrc) *self, struct nlmsghdr *nlh)
{
	int ret = nl_talk(self->fd, nlh, &self->a);

	ASSERT_EQ(0, ret) {
		TH_LOG("netlink: %s", strerror(-ret));
	}
	return self->a.err;
}

/* CONFIG_GET, its attributes indexed in self->tb. */
static void config_get(struct __test_metadata *_metadata,
		       FIXTURE_DATA(mrc) *self)
{
	ASSERT_EQ(0, mrc_talk(_metadata, self,
			      mrc_req(self, MRC_CMD_CONFIG_GET)));
	ASSERT_EQ(1, self->a.nreplies);
	ASSERT_EQ(MRC_CMD_CONFIG_GET, self->a.cmd);
	ASSERT_EQ(0, attr_index(self->a.attrs, self->a.alen, self->tb,
				self->counts, MRC_A_MAX));
}

/* The value of a writable attribute in the last CONFIG_GET. */
static __u32 cfg_val(struct __test_metadata *_metadata,
		     FIXTURE_DATA(mrc) *self, int attr)
{
	ASSERT_NE(NULL, self->tb[attr]);
	ASSERT_EQ(4, attr_len(self->tb[attr]));
	return attr_u32(self->tb[attr]);
}

/* Every writable attribute of the current configuration is at @want. */
static void expect_config(struct __test_metadata *_metadata,
			  FIXTURE_DATA(mrc) *self, const __u32 *want,
			  const char *when)
{
	size_t i;

	config_get(_metadata, self);
	for (i = 0; i < MRC_NR_CONFIG_PARAMS; i++) {
		const struct mrc_config_param *p = &mrc_config_params[i];

		EXPECT_EQ(want[i], cfg_val(_metadata, self, p->attr)) {
			TH_LOG("%s: %s changed", when, p->key);
		}
	}
}

/* The index of @attr in mrc_config_params[] (and in want[] arrays). */
static size_t pidx(int attr)
{
	size_t i;

	for (i = 0; i < MRC_NR_CONFIG_PARAMS; i++)
		if (mrc_config_params[i].attr == attr)
			return i;
	abort();
}

static void defaults(__u32 *v)
{
	size_t i;

	for (i = 0; i < MRC_NR_CONFIG_PARAMS; i++)
		v[i] = mrc_config_params[i].def;
}

/* The family as the controller lists it: version and commands. */
TEST_F(mrc, family)
{
	struct family fam;

	ASSERT_EQ(0, family_get(self->fd, &fam));
	EXPECT_EQ((__u32)MRC_GENL_VERSION, fam.version);
	/* Every command but MRC_CMD_MONITOR, a notification only. */
	EXPECT_EQ(MRC_CMD_MAX - 1, fam.nops);
	EXPECT_TRUE(fam.op_seen[MRC_CMD_CONFIG_GET]);
	EXPECT_TRUE(fam.op_seen[MRC_CMD_CONFIG_SET]);
	EXPECT_TRUE(fam.op_seen[MRC_CMD_STATS_GET]);
	EXPECT_TRUE(fam.op_seen[MRC_CMD_QP_GET]);
	EXPECT_TRUE(fam.op_seen[MRC_CMD_PEER_GET]);
	EXPECT_FALSE(fam.op_seen[MRC_CMD_MONITOR]);
	EXPECT_FALSE(fam.op_seen[MRC_CMD_MAX + 1]);
	/* Only SET needs privilege, and in the netns's own user ns. */
	EXPECT_EQ((__u32)GENL_UNS_ADMIN_PERM,
		  fam.op_flags[MRC_CMD_CONFIG_SET] &
		  (GENL_ADMIN_PERM | GENL_UNS_ADMIN_PERM));
	EXPECT_EQ(0U, fam.op_flags[MRC_CMD_CONFIG_GET] &
		  (GENL_ADMIN_PERM | GENL_UNS_ADMIN_PERM));
	EXPECT_EQ(0U, fam.op_flags[MRC_CMD_STATS_GET] &
		  (GENL_ADMIN_PERM | GENL_UNS_ADMIN_PERM));
	EXPECT_EQ(0U, fam.op_flags[MRC_CMD_QP_GET] &
		  (GENL_ADMIN_PERM | GENL_UNS_ADMIN_PERM));
	/* QP_GET is a dump, and a get of one QP by number. */
	EXPECT_TRUE(!!(fam.op_flags[MRC_CMD_QP_GET] & GENL_CMD_CAP_DUMP));
	EXPECT_TRUE(!!(fam.op_flags[MRC_CMD_QP_GET] & GENL_CMD_CAP_DO));
	EXPECT_FALSE(!!(fam.op_flags[MRC_CMD_PEER_GET] & GENL_CMD_CAP_DO));
	EXPECT_TRUE(!!(fam.op_flags[MRC_CMD_CONFIG_SET] & GENL_CMD_CAP_DO));
	/* Every command has a policy: strict validation, whatever it takes. */
	EXPECT_TRUE(!!(fam.op_flags[MRC_CMD_CONFIG_GET] &
		      GENL_CMD_CAP_HASPOL));
	EXPECT_TRUE(!!(fam.op_flags[MRC_CMD_CONFIG_SET] &
		      GENL_CMD_CAP_HASPOL));
	EXPECT_TRUE(!!(fam.op_flags[MRC_CMD_STATS_GET] &
		      GENL_CMD_CAP_HASPOL));
	EXPECT_TRUE(!!(fam.op_flags[MRC_CMD_QP_GET] & GENL_CMD_CAP_HASPOL));
	EXPECT_TRUE(!!(fam.op_flags[MRC_CMD_PEER_GET] & GENL_CMD_CAP_HASPOL));
}

/* CONFIG_GET: every attribute once, u32s of 4 bytes at their defaults,
 * BDP_BYTES a u64 of 8, ACTIVE_SET a u32, nothing else.
 */
TEST_F(mrc, config_get_defaults)
{
	int t, total = 0;
	size_t i;

	config_get(_metadata, self);
	EXPECT_EQ(MRC_GENL_VERSION, self->a.version);
	for (i = 0; i < MRC_NR_CONFIG_PARAMS; i++) {
		const struct mrc_config_param *p = &mrc_config_params[i];

		ASSERT_NE(NULL, self->tb[p->attr]) {
			TH_LOG("%s (attr %d) missing", p->key, p->attr);
		}
		EXPECT_EQ(1, self->counts[p->attr]);
		EXPECT_EQ(4, attr_len(self->tb[p->attr])) {
			TH_LOG("%s: length", p->key);
		}
		EXPECT_EQ(p->def, attr_u32(self->tb[p->attr])) {
			TH_LOG("%s: default", p->key);
		}
	}
	ASSERT_NE(NULL, self->tb[MRC_A_BDP_BYTES]);
	EXPECT_EQ(8, attr_len(self->tb[MRC_A_BDP_BYTES]));
	EXPECT_EQ(300000ULL, attr_u64(self->tb[MRC_A_BDP_BYTES]));
	ASSERT_NE(NULL, self->tb[MRC_A_ACTIVE_SET]);
	EXPECT_EQ(4, attr_len(self->tb[MRC_A_ACTIVE_SET]));
	EXPECT_EQ(72U, attr_u32(self->tb[MRC_A_ACTIVE_SET]));
	EXPECT_EQ(NULL, self->tb[MRC_A_STATS]);
	EXPECT_EQ(NULL, self->tb[MRC_A_QP]);
	EXPECT_EQ(NULL, self->tb[MRC_A_UNSPEC]);
	for (t = MRC_A_SPRAYING_TYPE; t <= MRC_A_MAX; t++)
		total += self->counts[t];
	EXPECT_EQ((int)MRC_NR_CONFIG_PARAMS + 2, total);
}

/* Explicit numbers, not the header's: the ABI as documented. */
TEST_F(mrc, config_defaults_documented)
{
	static const struct { int attr; __u32 def; } doc[] = {
		{ MRC_A_SPRAYING_TYPE, MRC_SPRAYING_DEFAULT },
		{ MRC_A_ENTROPY_MASK_BITS, 7 },
		{ MRC_A_STARTING_PORT_OFFSET, 256 },
		{ MRC_A_ACTIVE_EV_SET_SIZE, 0 },
		{ MRC_A_PROBE_PERIOD_US, 150 },
		{ MRC_A_SACK_LOSS_MIN_RETX_PKTS, 8 },
		{ MRC_A_MSS, 4096 },
		{ MRC_A_BASE_RTT_US, 6 },
		{ MRC_A_LINK_RATE_MBPS, 400000 },
		{ MRC_A_QP_GROUPS, 0 },
		{ MRC_A_TRIMMING, 1 },
		{ MRC_A_RTO_US, 4000 },
		{ MRC_A_MAX_MSG_SIZE, 67108864 },
		{ MRC_A_RETRY_LIMIT, 7 },
		{ MRC_A_LISTEN, 0 },
		{ MRC_A_DSCP_NO_TRIM, 0 },
		{ MRC_A_DSCP_TRIMMABLE, 4 },
		{ MRC_A_DSCP_TRIMMABLE_RTX, 8 },
		{ MRC_A_DSCP_TRIMMED, 12 },
		{ MRC_A_DSCP_TRIMMED_LAST_HOP, 16 },
		{ MRC_A_DSCP_CONTROL, 46 },
		{ MRC_A_ECN_SKIP, 0 },
	};
	size_t i;

	config_get(_metadata, self);
	/* (Braces: EXPECT_*() with a log block is two statements.) */
	for (i = 0; i < sizeof(doc) / sizeof(doc[0]); i++) {
		EXPECT_EQ(doc[i].def, cfg_val(_metadata, self, doc[i].attr)) {
			TH_LOG("attr %d", doc[i].attr);
		}
	}
}

/* SET is acked with no reply; an empty SET changes nothing. */
TEST_F(mrc, config_set_ack_only)
{
	__u32 want[MRC_NR_CONFIG_PARAMS];
	struct nlmsghdr *nlh;

	defaults(want);
	nlh = mrc_req(self, MRC_CMD_CONFIG_SET);
	EXPECT_EQ(0, mrc_talk(_metadata, self, nlh));
	EXPECT_EQ(0, self->a.nreplies);
	expect_config(_metadata, self, want, "empty SET");

	nlh = mrc_req(self, MRC_CMD_CONFIG_SET);
	req_put_u32(nlh, MRC_A_MSS, 1500);
	EXPECT_EQ(0, mrc_talk(_metadata, self, nlh));
	EXPECT_EQ(0, self->a.nreplies);
	EXPECT_STREQ("", self->a.msg);
	want[pidx(MRC_A_MSS)] = 1500;
	expect_config(_metadata, self, want, "SET mss 1500");
}

/* The DSCP rule: a trimmed codepoint may be no class mrc sends in, nor
 * the other trimmed one.  Where a request sets DSCP attribute @attr to
 * its max, the others it puts out of the way: the sent classes to 0 and
 * the other trimmed codepoint to 1 for a trimmed one, the trimmed ones
 * to 1 and 2 for a sent class.
 */
static void dscp_apart(struct nlmsghdr *nlh, __u32 *want, int attr)
{
	static const int sent[] = { MRC_A_DSCP_NO_TRIM, MRC_A_DSCP_TRIMMABLE,
				    MRC_A_DSCP_TRIMMABLE_RTX,
				    MRC_A_DSCP_CONTROL };
	size_t j;

	switch (attr) {
	case MRC_A_DSCP_TRIMMED:
	case MRC_A_DSCP_TRIMMED_LAST_HOP:
		for (j = 0; j < sizeof(sent) / sizeof(sent[0]); j++) {
			req_put_u32(nlh, sent[j], 0);
			want[pidx(sent[j])] = 0;
		}
		attr = attr == MRC_A_DSCP_TRIMMED ?
		       MRC_A_DSCP_TRIMMED_LAST_HOP : MRC_A_DSCP_TRIMMED;
		req_put_u32(nlh, attr, 1);
		want[pidx(attr)] = 1;
		break;
	case MRC_A_DSCP_NO_TRIM:
	case MRC_A_DSCP_TRIMMABLE:
	case MRC_A_DSCP_TRIMMABLE_RTX:
	case MRC_A_DSCP_CONTROL:
		req_put_u32(nlh, MRC_A_DSCP_TRIMMED, 1);
		want[pidx(MRC_A_DSCP_TRIMMED)] = 1;
		req_put_u32(nlh, MRC_A_DSCP_TRIMMED_LAST_HOP, 2);
		want[pidx(MRC_A_DSCP_TRIMMED_LAST_HOP)] = 2;
		break;
	}
}

/* Every attribute at its minimum in one request (but the trimmed
 * codepoints, 1 and 2: 0 is the sent classes'), then each at its max.
 */
TEST_F(mrc, config_set_bounds)
{
	__u32 want[MRC_NR_CONFIG_PARAMS];
	struct nlmsghdr *nlh;
	size_t i;

	nlh = mrc_req(self, MRC_CMD_CONFIG_SET);
	for (i = 0; i < MRC_NR_CONFIG_PARAMS; i++) {
		__u32 v = mrc_config_params[i].min;

		if (mrc_config_params[i].attr == MRC_A_DSCP_TRIMMED)
			v = 1;
		if (mrc_config_params[i].attr == MRC_A_DSCP_TRIMMED_LAST_HOP)
			v = 2;
		req_put_u32(nlh, mrc_config_params[i].attr, v);
		want[i] = v;
	}
	ASSERT_EQ(0, mrc_talk(_metadata, self, nlh)) {
		TH_LOG("all at min: %s", self->a.msg);
	}
	expect_config(_metadata, self, want, "all at min");

	for (i = 0; i < MRC_NR_CONFIG_PARAMS; i++) {
		const struct mrc_config_param *p = &mrc_config_params[i];

		nlh = mrc_req(self, MRC_CMD_CONFIG_SET);
		req_put_u32(nlh, p->attr, p->max);
		if (p->attr == MRC_A_STARTING_PORT_OFFSET) {
			/* 65535 leaves room for one entropy value only. */
			req_put_u32(nlh, MRC_A_ENTROPY_MASK_BITS, 0);
			want[pidx(MRC_A_ENTROPY_MASK_BITS)] = 0;
		}
		dscp_apart(nlh, want, p->attr);
		EXPECT_EQ(0, mrc_talk(_metadata, self, nlh)) {
			TH_LOG("%s %u: %s", p->key, p->max, self->a.msg);
		}
		want[i] = p->max;
		expect_config(_metadata, self, want, p->key);
	}
}

/*
 * Each attribute below its min, above its max and at U32_MAX, after a
 * valid attribute in the same request: the policy's -ERANGE and message,
 * the offset of the bad attribute, its range as the table has it in
 * NLMSGERR_ATTR_POLICY, and nothing changed.
 */
TEST_F(mrc, config_set_out_of_range)
{
	__u32 want[MRC_NR_CONFIG_PARAMS];
	size_t i, j;

	defaults(want);
	for (i = 0; i < MRC_NR_CONFIG_PARAMS; i++) {
		const struct mrc_config_param *p = &mrc_config_params[i];
		__u32 bad[3];
		size_t nbad = 0;

		if (p->min > 0)
			bad[nbad++] = p->min - 1;
		bad[nbad++] = p->max + 1;
		bad[nbad++] = 0xffffffff;
		for (j = 0; j < nbad; j++) {
			struct nlmsghdr *nlh = mrc_req(self, MRC_CMD_CONFIG_SET);
			int other = p->attr == MRC_A_RTO_US ? MRC_A_MSS :
							      MRC_A_RTO_US;
			struct nlattr *a;

			req_put_u32(nlh, other, other == MRC_A_MSS ? 1000 : 5000);
			a = req_put_u32(nlh, p->attr, bad[j]);
			EXPECT_EQ(-ERANGE, mrc_talk(_metadata, self, nlh)) {
				TH_LOG("%s %u", p->key, bad[j]);
			}
			EXPECT_STREQ(MSG_RANGE, self->a.msg);
			EXPECT_TRUE(self->a.has_range) {
				TH_LOG("%s %u: no range in NLMSGERR_ATTR_POLICY",
				       p->key, bad[j]);
			}
			EXPECT_EQ((__u64)p->min, self->a.range_min) {
				TH_LOG("%s: policy min", p->key);
			}
			EXPECT_EQ((__u64)p->max, self->a.range_max) {
				TH_LOG("%s: policy max", p->key);
			}
			EXPECT_TRUE(self->a.has_offs) {
				TH_LOG("%s %u: no NLMSGERR_ATTR_OFFS", p->key,
				       bad[j]);
			}
			EXPECT_EQ(offset_of(nlh, a), self->a.offs) {
				TH_LOG("%s %u: offset", p->key, bad[j]);
			}
		}
	}
	expect_config(_metadata, self, want, "after rejected SETs");
}

/* Read-only attributes in a SET: -EINVAL, "... is read-only", pointed at. */
TEST_F(mrc, config_set_read_only)
{
	__u32 want[MRC_NR_CONFIG_PARAMS];
	struct nlmsghdr *nlh;
	struct nlattr *a;
	__u64 v64 = 1;

	defaults(want);

	nlh = mrc_req(self, MRC_CMD_CONFIG_SET);
	req_put_u32(nlh, MRC_A_MSS, 1000);
	a = req_put(nlh, MRC_A_BDP_BYTES, &v64, sizeof(v64));
	EXPECT_EQ(-EINVAL, mrc_talk(_metadata, self, nlh));
	EXPECT_STREQ("MRC_A_BDP_BYTES (bdp-bytes) is read-only", self->a.msg);
	EXPECT_TRUE(self->a.has_offs);
	EXPECT_EQ(offset_of(nlh, a), self->a.offs);

	nlh = mrc_req(self, MRC_CMD_CONFIG_SET);
	a = req_put_u32(nlh, MRC_A_ACTIVE_SET, 4);
	req_put_u32(nlh, MRC_A_MSS, 1000);
	EXPECT_EQ(-EINVAL, mrc_talk(_metadata, self, nlh));
	EXPECT_STREQ("MRC_A_ACTIVE_SET (active-set) is read-only", self->a.msg);
	EXPECT_TRUE(self->a.has_offs);
	EXPECT_EQ(offset_of(nlh, a), self->a.offs);

	nlh = mrc_req(self, MRC_CMD_CONFIG_SET);
	/* (Flagged NLA_F_NESTED, strict validation would object first.) */
	a = req_put(nlh, MRC_A_STATS, NULL, 0);
	EXPECT_EQ(-EINVAL, mrc_talk(_metadata, self, nlh));
	EXPECT_STREQ("MRC_A_STATS is read-only", self->a.msg);
	EXPECT_TRUE(self->a.has_offs);
	EXPECT_EQ(offset_of(nlh, a), self->a.offs);

	nlh = mrc_req(self, MRC_CMD_CONFIG_SET);
	req_put_u32(nlh, MRC_A_RETRY_LIMIT, 3);
	a = req_put(nlh, MRC_A_QP, NULL, 0);
	EXPECT_EQ(-EINVAL, mrc_talk(_metadata, self, nlh));
	EXPECT_STREQ("MRC_A_QP is read-only", self->a.msg);
	EXPECT_TRUE(self->a.has_offs);
	EXPECT_EQ(offset_of(nlh, a), self->a.offs);

	expect_config(_metadata, self, want, "after read-only SETs");
}

/* A u32 attribute sent as u8, u16 or u64: -EINVAL, pointed at. */
TEST_F(mrc, config_set_wrong_length)
{
	static const __u16 lens[] = { 0, 1, 2, 8 };
	__u32 want[MRC_NR_CONFIG_PARAMS];
	__u8 bytes[8] = { 100, 0, 0, 0, 0, 0, 0, 0 };
	size_t i;

	defaults(want);
	for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		struct nlmsghdr *nlh = mrc_req(self, MRC_CMD_CONFIG_SET);
		struct nlattr *a;

		req_put_u32(nlh, MRC_A_RTO_US, 5000);
		a = req_put(nlh, MRC_A_MSS, bytes, lens[i]);
		EXPECT_EQ(-EINVAL, mrc_talk(_metadata, self, nlh)) {
			TH_LOG("mss as %u bytes", lens[i]);
		}
		EXPECT_STREQ(MSG_BAD_LEN, self->a.msg);
		EXPECT_TRUE(self->a.has_offs);
		EXPECT_EQ(offset_of(nlh, a), self->a.offs);
	}
	expect_config(_metadata, self, want, "after wrong lengths");
}

/* Attribute types 0 and MRC_A_MAX + 1: -EINVAL, pointed at. */
TEST_F(mrc, config_set_unknown_attr)
{
	static const __u16 types[] = { MRC_A_UNSPEC, MRC_A_MAX + 1, 1000 };
	__u32 want[MRC_NR_CONFIG_PARAMS];
	size_t i;

	defaults(want);
	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		struct nlmsghdr *nlh = mrc_req(self, MRC_CMD_CONFIG_SET);
		struct nlattr *a;

		req_put_u32(nlh, MRC_A_MSS, 1000);
		a = req_put_u32(nlh, types[i], 1);
		EXPECT_EQ(-EINVAL, mrc_talk(_metadata, self, nlh)) {
			TH_LOG("attribute type %u", types[i]);
		}
		EXPECT_STREQ(MSG_UNKNOWN_ATTR, self->a.msg);
		EXPECT_TRUE(self->a.has_offs);
		EXPECT_EQ(offset_of(nlh, a), self->a.offs);
	}
	expect_config(_metadata, self, want, "after unknown attributes");
}

/* StartingPortOffset + 2^EntropyMaskBits - 1 <= 65535, atomically. */
TEST_F(mrc, config_set_port_rule)
{
	__u32 want[MRC_NR_CONFIG_PARAMS];
	struct nlmsghdr *nlh;
	struct nlattr *a, *b;

	defaults(want);

	/* 65409 + 127 = 65536 */
	nlh = mrc_req(self, MRC_CMD_CONFIG_SET);
	a = req_put_u32(nlh, MRC_A_STARTING_PORT_OFFSET, 65409);
	EXPECT_EQ(-EINVAL, mrc_talk(_metadata, self, nlh));
	EXPECT_STREQ(MRC_PORT_RULE_MSG, self->a.msg);
	EXPECT_TRUE(self->a.has_offs);
	EXPECT_EQ(offset_of(nlh, a), self->a.offs);
	expect_config(_metadata, self, want, "offset 65409");

	/* Each valid alone, together over the limit: nothing changes. */
	nlh = mrc_req(self, MRC_CMD_CONFIG_SET);
	a = req_put_u32(nlh, MRC_A_ENTROPY_MASK_BITS, 8);
	b = req_put_u32(nlh, MRC_A_STARTING_PORT_OFFSET, 65408);
	EXPECT_EQ(-EINVAL, mrc_talk(_metadata, self, nlh));
	EXPECT_STREQ(MRC_PORT_RULE_MSG, self->a.msg);
	EXPECT_TRUE(self->a.has_offs);
	EXPECT_TRUE(self->a.offs == offset_of(nlh, a) ||
		    self->a.offs == offset_of(nlh, b)) {
		TH_LOG("offset %u points at neither attribute", self->a.offs);
	}
	expect_config(_metadata, self, want, "bits 8 + offset 65408");

	/* 65408 + 127 = 65535 */
	nlh = mrc_req(self, MRC_CMD_CONFIG_SET);
	req_put_u32(nlh, MRC_A_STARTING_PORT_OFFSET, 65408);
	EXPECT_EQ(0, mrc_talk(_metadata, self, nlh)) {
		TH_LOG("%s", self->a.msg);
	}
	want[pidx(MRC_A_STARTING_PORT_OFFSET)] = 65408;
	expect_config(_metadata, self, want, "offset 65408");

	/* Now the bits alone break it, and are pointed at. */
	nlh = mrc_req(self, MRC_CMD_CONFIG_SET);
	req_put_u32(nlh, MRC_A_MSS, 1000);
	a = req_put_u32(nlh, MRC_A_ENTROPY_MASK_BITS, 8);
	EXPECT_EQ(-EINVAL, mrc_talk(_metadata, self, nlh));
	EXPECT_STREQ(MRC_PORT_RULE_MSG, self->a.msg);
	EXPECT_TRUE(self->a.has_offs);
	EXPECT_EQ(offset_of(nlh, a), self->a.offs);
	expect_config(_metadata, self, want, "bits 8 at offset 65408");

	/* Both moved together to a valid pair. */
	nlh = mrc_req(self, MRC_CMD_CONFIG_SET);
	req_put_u32(nlh, MRC_A_ENTROPY_MASK_BITS, 8);
	req_put_u32(nlh, MRC_A_STARTING_PORT_OFFSET, 65280);
	EXPECT_EQ(0, mrc_talk(_metadata, self, nlh)) {
		TH_LOG("%s", self->a.msg);
	}
	want[pidx(MRC_A_ENTROPY_MASK_BITS)] = 8;
	want[pidx(MRC_A_STARTING_PORT_OFFSET)] = 65280;
	expect_config(_metadata, self, want, "bits 8 offset 65280");
}

/* The read-only values follow the configuration. */
TEST_F(mrc, config_derived)
{
	static const struct {
		__u32 rate, rtt, mss, evs, bits;
		__u64 bdp;
		__u32 active;
	} c[] = {
		/* 400 Gbit/s x 6 us = 300000 B; / 4156 = 72 */
		{ 400000, 6, 4096, 0, 7, 300000, 72 },
		/* / 1496 = 200, capped at 100 */
		{ 400000, 6, 1436, 0, 7, 300000, 100 },
		/* BDP below one packet: at least 1 */
		{ 1000, 1, 4096, 0, 7, 125, 1 },
		{ 1, 1, 64, 0, 7, 0, 1 },
		/* at most 2^bits */
		{ 400000, 6, 4096, 0, 3, 300000, 8 },
		{ 400000, 6, 4096, 0, 0, 300000, 1 },
		/* ActiveEVSetSize wins, within 1..2^bits */
		{ 400000, 6, 4096, 200, 7, 300000, 128 },
		{ 400000, 6, 4096, 1, 7, 300000, 1 },
		{ 400000, 6, 4096, 65536, 8, 300000, 256 },
		/* a BDP beyond 32 bits */
		{ 10000000, 1000000, 4096, 0, 8, 1250000000000ULL, 100 },
	};
	size_t i;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct nlmsghdr *nlh = mrc_req(self, MRC_CMD_CONFIG_SET);

		req_put_u32(nlh, MRC_A_LINK_RATE_MBPS, c[i].rate);
		req_put_u32(nlh, MRC_A_BASE_RTT_US, c[i].rtt);
		req_put_u32(nlh, MRC_A_MSS, c[i].mss);
		req_put_u32(nlh, MRC_A_ACTIVE_EV_SET_SIZE, c[i].evs);
		req_put_u32(nlh, MRC_A_ENTROPY_MASK_BITS, c[i].bits);
		ASSERT_EQ(0, mrc_talk(_metadata, self, nlh)) {
			TH_LOG("case %zu: %s", i, self->a.msg);
		}
		config_get(_metadata, self);
		ASSERT_NE(NULL, self->tb[MRC_A_BDP_BYTES]);
		ASSERT_NE(NULL, self->tb[MRC_A_ACTIVE_SET]);
		EXPECT_EQ(c[i].bdp, attr_u64(self->tb[MRC_A_BDP_BYTES])) {
			TH_LOG("case %zu: bdp", i);
		}
		EXPECT_EQ(c[i].active, attr_u32(self->tb[MRC_A_ACTIVE_SET])) {
			TH_LOG("case %zu: active set", i);
		}
	}
}

/* STATS_GET: one MRC_A_STATS nest, every counter a u64, all zero here. */
TEST_F(mrc, stats_get)
{
	const struct nlattr *stb[MRC_STAT_MAX + 1];
	int scounts[MRC_STAT_MAX + 1];
	const struct nlattr *nest;
	int s;

	ASSERT_EQ(0, mrc_talk(_metadata, self,
			      mrc_req(self, MRC_CMD_STATS_GET)));
	ASSERT_EQ(1, self->a.nreplies);
	EXPECT_EQ(MRC_CMD_STATS_GET, self->a.cmd);
	ASSERT_EQ(0, attr_index(self->a.attrs, self->a.alen, self->tb,
				self->counts, MRC_A_MAX));
	nest = self->tb[MRC_A_STATS];
	ASSERT_NE(NULL, nest);
	EXPECT_EQ(1, self->counts[MRC_A_STATS]);
	EXPECT_TRUE(nest->nla_type & NLA_F_NESTED);
	for (s = MRC_A_UNSPEC; s <= MRC_A_MAX; s++)
		if (s != MRC_A_STATS && s != MRC_A_PAD)
			EXPECT_EQ(0, self->counts[s]);
	ASSERT_EQ(0, attr_index((const char *)nest + NLA_HDRLEN,
				attr_len(nest), stb, scounts, MRC_STAT_MAX)) {
		TH_LOG("counters of an unknown type, or a bad nest");
	}
	for (s = MRC_STAT_PAD + 1; s <= MRC_STAT_MAX; s++) {
		ASSERT_NE(NULL, stb[s]) {
			TH_LOG("counter %s missing", mrc_stat_names[s]);
		}
		EXPECT_EQ(1, scounts[s]);
		EXPECT_EQ(8, attr_len(stb[s]));
		EXPECT_EQ(0ULL, attr_u64(stb[s])) {
			TH_LOG("%s in a new netns", mrc_stat_names[s]);
		}
	}
}

/* Commands the family does not have, dumps of doits, doits of dumps. */
TEST_F(mrc, unknown_command)
{
	struct nlmsghdr *nlh;

	nlh = mrc_req(self, MRC_CMD_MAX + 1);
	EXPECT_EQ(-EOPNOTSUPP, mrc_talk(_metadata, self, nlh));
	nlh = mrc_req(self, MRC_CMD_UNSPEC);
	EXPECT_EQ(-EOPNOTSUPP, mrc_talk(_metadata, self, nlh));
	nlh = mrc_req(self, MRC_CMD_CONFIG_GET);
	nlh->nlmsg_flags |= NLM_F_DUMP;
	EXPECT_EQ(-EOPNOTSUPP, mrc_talk(_metadata, self, nlh));
	nlh = mrc_req(self, MRC_CMD_STATS_GET);
	nlh->nlmsg_flags |= NLM_F_DUMP;
	EXPECT_EQ(-EOPNOTSUPP, mrc_talk(_metadata, self, nlh));
	nlh = mrc_req(self, MRC_CMD_PEER_GET);
	EXPECT_EQ(-EOPNOTSUPP, mrc_talk(_metadata, self, nlh));
	EXPECT_EQ(0, self->a.nreplies);
}

/* Append @len bytes that are not an attribute: shorter than its header. */
static void req_put_trailing(struct nlmsghdr *nlh, __u16 len)
{
	memset((char *)nlh + nlh->nlmsg_len, 0xa5, len);
	nlh->nlmsg_len += len;
}

/* A refused request: -EINVAL, @msg, and the offset of @a if not NULL. */
static void expect_refused(struct __test_metadata *_metadata,
			   FIXTURE_DATA(mrc) *self, struct nlmsghdr *nlh,
			   const struct nlattr *a, const char *msg,
			   const char *what)
{
	__u32 off = a ? offset_of(nlh, a) : 0;

	EXPECT_EQ(-EINVAL, mrc_talk(_metadata, self, nlh)) {
		TH_LOG("%s", what);
	}
	EXPECT_STREQ(msg, self->a.msg) {
		TH_LOG("%s", what);
	}
	EXPECT_EQ(0, self->a.nreplies) {
		TH_LOG("%s: replied", what);
	}
	EXPECT_FALSE(self->a.done) {
		TH_LOG("%s: a dump started", what);
	}
	if (a) {
		EXPECT_TRUE(self->a.has_offs) {
			TH_LOG("%s: no NLMSGERR_ATTR_OFFS", what);
		}
		EXPECT_EQ(off, self->a.offs) {
			TH_LOG("%s: offset", what);
		}
	}
}

/*
 * Strict validation of every command (resv_start_op 0): those that take
 * no attribute refuse any with a message, every one refuses unknown
 * types, trailing bytes and a non-zero reserved field.
 */
TEST_F(mrc, strict_validation)
{
	static const struct {
		__u8 cmd;
		int dump;
	} c[] = {
		{ MRC_CMD_CONFIG_GET, 0 },
		{ MRC_CMD_CONFIG_SET, 0 },
		{ MRC_CMD_STATS_GET, 0 },
		{ MRC_CMD_QP_GET, 1 },
		{ MRC_CMD_PEER_GET, 1 },
	};
	__u32 want[MRC_NR_CONFIG_PARAMS];
	char what[64];
	size_t i;

	defaults(want);
	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct nlmsghdr *nlh;
		struct genlmsghdr *g;
		struct nlattr *a;

		/* A known attribute, a u32 the command does not take. */
		if (c[i].cmd != MRC_CMD_CONFIG_SET) {
			snprintf(what, sizeof(what), "cmd %u: mss", c[i].cmd);
			nlh = mrc_req(self, c[i].cmd);
			if (c[i].dump)
				nlh->nlmsg_flags |= NLM_F_DUMP;
			a = req_put_u32(nlh, MRC_A_MSS, 1000);
			expect_refused(_metadata, self, nlh, a,
				       c[i].cmd == MRC_CMD_QP_GET ?
				       MSG_QP_GET_ONLY : MSG_NO_ATTRS, what);
		}

		snprintf(what, sizeof(what), "cmd %u: type MRC_A_MAX + 1",
			 c[i].cmd);
		nlh = mrc_req(self, c[i].cmd);
		if (c[i].dump)
			nlh->nlmsg_flags |= NLM_F_DUMP;
		a = req_put_u32(nlh, MRC_A_MAX + 1, 1);
		expect_refused(_metadata, self, nlh, a, MSG_UNKNOWN_ATTR, what);

		snprintf(what, sizeof(what), "cmd %u: 3 trailing bytes",
			 c[i].cmd);
		nlh = mrc_req(self, c[i].cmd);
		if (c[i].dump)
			nlh->nlmsg_flags |= NLM_F_DUMP;
		if (c[i].cmd == MRC_CMD_CONFIG_SET)
			req_put_u32(nlh, MRC_A_MSS, 1000);
		req_put_trailing(nlh, 3);
		expect_refused(_metadata, self, nlh, NULL, MSG_TRAILING, what);

		snprintf(what, sizeof(what), "cmd %u: reserved 1", c[i].cmd);
		nlh = mrc_req(self, c[i].cmd);
		if (c[i].dump)
			nlh->nlmsg_flags |= NLM_F_DUMP;
		g = NLMSG_DATA(nlh);
		g->reserved = 1;
		expect_refused(_metadata, self, nlh, NULL, MSG_RESERVED, what);

		/* The same request, clean, works. */
		nlh = mrc_req(self, c[i].cmd);
		if (c[i].dump)
			nlh->nlmsg_flags |= NLM_F_DUMP;
		EXPECT_EQ(0, mrc_talk(_metadata, self, nlh)) {
			TH_LOG("cmd %u clean: %s", c[i].cmd, self->a.msg);
		}
		EXPECT_EQ(c[i].dump, self->a.done);
	}
	expect_config(_metadata, self, want, "after refused requests");
}

/* A new netns has no queue pair: the dump is NLMSG_DONE alone, errno 0. */
TEST_F(mrc, qp_dump_empty)
{
	struct nlmsghdr *nlh;

	nlh = mrc_req(self, MRC_CMD_QP_GET);
	nlh->nlmsg_flags |= NLM_F_DUMP;
	EXPECT_EQ(0, mrc_talk(_metadata, self, nlh));
	EXPECT_TRUE(self->a.done);
	EXPECT_EQ(0, self->a.nreplies);
	/* Without NLM_F_ACK too, as iproute2 and mrc(8) ask. */
	nlh = mrc_req(self, MRC_CMD_QP_GET);
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	EXPECT_EQ(0, mrc_talk(_metadata, self, nlh));
	EXPECT_TRUE(self->a.done);
	EXPECT_EQ(0, self->a.nreplies);
}

/* The length of each attribute of an MRC_A_QP nest; -1: nested. */
static int qp_attr_len(int type, int family)
{
	switch (type) {
	case MRC_QP_A_FAMILY:
	case MRC_QP_A_LOCAL_PORT:
	case MRC_QP_A_REMOTE_PORT:
	case MRC_QP_A_UDP_SPORT:
		return 2;
	case MRC_QP_A_REMOTE_ADDR:
	case MRC_QP_A_LOCAL_ADDR:
		return family == AF_INET ? 4 : 16;
	case MRC_QP_A_STATS:
		return -1;
	default:
		return 4;
	}
}

/* An mrc port of a peer that never answers. */
#define QP_PEER_PORT	4000

/*
 * One queue pair, byte by byte: a socket sends a message to a peer in a
 * black hole, so its queue pair opens and stays open with the message
 * unacknowledged (under a 10 s RTO) while the dump runs, and is the only
 * one (nothing answers, nothing opens one at the other end).
 */
/* The namespace's ip_local_port_range. */
static void port_range(struct __test_metadata *_metadata, int *lo, int *hi)
{
	FILE *f = fopen("/proc/sys/net/ipv4/ip_local_port_range", "r");

	ASSERT_NE(NULL, f);
	ASSERT_EQ(2, fscanf(f, "%d %d", lo, hi));
	fclose(f);
}

static void qp_dump_one(struct __test_metadata *_metadata,
			FIXTURE_DATA(mrc) *self, int family)
{
	const struct nlattr *qtb[MRC_QP_A_MAX + 1], *stb[MRC_STAT_MAX + 1];
	int qcounts[MRC_QP_A_MAX + 1], scounts[MRC_STAT_MAX + 1];
	struct linger abort_on_close = { .l_onoff = 1, .l_linger = 0 };
	struct in6_addr lo6;	/* the peer: HOLE6 */
	struct in_addr sin_hole;	/* ... or HOLE4 */
	struct sockaddr_storage to, me;
	const struct nlattr *nest;
	struct nlmsghdr *nlh;
	char msg[100] = { 0 };
	socklen_t tolen, melen = sizeof(me);
	__u16 lport;
	int sk, t, s, lo, hi;

	ASSERT_EQ(0, lo_up());
	ASSERT_EQ(NULL, hole_up());
	ASSERT_EQ(1, inet_pton(AF_INET6, HOLE6, &lo6));
	ASSERT_EQ(1, inet_pton(AF_INET, HOLE4, &sin_hole));
	/* No timeout, no failure while the test looks. */
	nlh = mrc_req(self, MRC_CMD_CONFIG_SET);
	req_put_u32(nlh, MRC_A_RTO_US, 10000000);
	ASSERT_EQ(0, mrc_talk(_metadata, self, nlh));

	memset(&to, 0, sizeof(to));
	if (family == AF_INET) {
		struct sockaddr_in *sin = (struct sockaddr_in *)&to;

		sin->sin_family = AF_INET;
		sin->sin_port = htons(QP_PEER_PORT);
		ASSERT_EQ(1, inet_pton(AF_INET, HOLE4, &sin->sin_addr));
		tolen = sizeof(*sin);
	} else {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&to;

		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(QP_PEER_PORT);
		sin6->sin6_addr = lo6;
		tolen = sizeof(*sin6);
	}
	sk = socket(family, SOCK_DGRAM | SOCK_CLOEXEC, IPPROTO_MRC);
	if (sk < 0 && (errno == EPROTONOSUPPORT || errno == ESOCKTNOSUPPORT))
		SKIP(return, "no IPPROTO_MRC sockets in this mrc.ko");
	ASSERT_LE(0, sk) {
		TH_LOG("socket(IPPROTO_MRC): %s", strerror(errno));
	}
	/* Closing drops the unacknowledged message instead of sending on. */
	ASSERT_EQ(0, setsockopt(sk, SOL_SOCKET, SO_LINGER, &abort_on_close,
				sizeof(abort_on_close)));
	ASSERT_EQ((ssize_t)sizeof(msg),
		  sendto(sk, msg, sizeof(msg), 0, (struct sockaddr *)&to,
			 tolen)) {
		TH_LOG("sendto: %s", strerror(errno));
	}
	ASSERT_EQ(0, getsockname(sk, (struct sockaddr *)&me, &melen));
	lport = ntohs(((struct sockaddr_in *)&me)->sin_port);

	nlh = mrc_req(self, MRC_CMD_QP_GET);
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	ASSERT_EQ(0, mrc_talk(_metadata, self, nlh));
	EXPECT_TRUE(self->a.done);
	ASSERT_EQ(1, self->a.nreplies);
	EXPECT_EQ(MRC_CMD_QP_GET, self->a.cmd);
	EXPECT_EQ(MRC_GENL_VERSION, self->a.version);
	EXPECT_TRUE(!!(self->a.flags & NLM_F_MULTI));

	/* One MRC_A_QP nest and nothing else. */
	ASSERT_EQ(0, attr_index(self->a.attrs, self->a.alen, self->tb,
				self->counts, MRC_A_MAX));
	for (t = MRC_A_UNSPEC; t <= MRC_A_MAX; t++) {
		EXPECT_EQ(t == MRC_A_QP, self->counts[t]) {
			TH_LOG("attribute %d", t);
		}
	}
	nest = self->tb[MRC_A_QP];
	ASSERT_NE(NULL, nest);
	EXPECT_TRUE(!!(nest->nla_type & NLA_F_NESTED));

	/* Every MRC_QP_A_* once, at its length, no other type. */
	ASSERT_EQ(0, attr_index((const char *)nest + NLA_HDRLEN,
				attr_len(nest), qtb, qcounts, MRC_QP_A_MAX));
	for (t = MRC_QP_A_PAD + 1; t <= MRC_QP_A_MAX; t++) {
		ASSERT_NE(NULL, qtb[t]) {
			TH_LOG("MRC_QP_A_* %d missing", t);
		}
		EXPECT_EQ(1, qcounts[t]);
		if (qp_attr_len(t, family) >= 0) {
			EXPECT_EQ(qp_attr_len(t, family), attr_len(qtb[t])) {
				TH_LOG("MRC_QP_A_* %d: length", t);
			}
		}
	}
	EXPECT_EQ(0, qcounts[MRC_QP_A_UNSPEC]);

	EXPECT_EQ(family, attr_u16(qtb[MRC_QP_A_FAMILY]));
	EXPECT_EQ(lport, attr_u16(qtb[MRC_QP_A_LOCAL_PORT]));
	EXPECT_EQ(QP_PEER_PORT, attr_u16(qtb[MRC_QP_A_REMOTE_PORT]));
	/* The local address: the source the route to the peer gives, the
	 * hole device's own (the socket is bound to none).
	 */
	if (family == AF_INET) {
		EXPECT_EQ(sin_hole.s_addr,
			  attr_u32(qtb[MRC_QP_A_REMOTE_ADDR]));
		EXPECT_EQ(htonl(0xc00002fe),
			  attr_u32(qtb[MRC_QP_A_LOCAL_ADDR]));
	} else {
		struct in6_addr hole_dev;

		ASSERT_EQ(1, inet_pton(AF_INET6, "2001:db8::fe", &hole_dev));
		EXPECT_EQ(0, memcmp(&lo6, (const char *)
				    qtb[MRC_QP_A_REMOTE_ADDR] + NLA_HDRLEN,
				    sizeof(lo6)));
		EXPECT_EQ(0, memcmp(&hole_dev, (const char *)
				    qtb[MRC_QP_A_LOCAL_ADDR] + NLA_HDRLEN,
				    sizeof(hole_dev)));
	}
	/* The QP's own port, for spraying none: from the namespace's
	 * ephemeral range, not the entropy range.
	 */
	port_range(_metadata, &lo, &hi);
	EXPECT_LE(lo, attr_u16(qtb[MRC_QP_A_UDP_SPORT]));
	EXPECT_GE(hi, attr_u16(qtb[MRC_QP_A_UDP_SPORT]));
	EXPECT_EQ((__u32)MRC_QP_STATE_OPEN, attr_u32(qtb[MRC_QP_A_STATE]));
	EXPECT_EQ(1U, attr_u32(qtb[MRC_QP_A_TX_QUEUED]));
	EXPECT_EQ(0U, attr_u32(qtb[MRC_QP_A_RX_PENDING]));

	/* The counters of this queue pair: every one, a u64 each. */
	nest = qtb[MRC_QP_A_STATS];
	EXPECT_TRUE(!!(nest->nla_type & NLA_F_NESTED));
	ASSERT_EQ(0, attr_index((const char *)nest + NLA_HDRLEN,
				attr_len(nest), stb, scounts, MRC_STAT_MAX));
	for (s = MRC_STAT_PAD + 1; s <= MRC_STAT_MAX; s++) {
		ASSERT_NE(NULL, stb[s]) {
			TH_LOG("counter %s missing", mrc_stat_names[s]);
		}
		EXPECT_EQ(1, scounts[s]);
		EXPECT_EQ(8, attr_len(stb[s]));
	}
	EXPECT_EQ(1ULL, attr_u64(stb[MRC_STAT_QP_OPENED]));
	EXPECT_EQ(0ULL, attr_u64(stb[MRC_STAT_QP_CLOSED]));
	EXPECT_EQ(0ULL, attr_u64(stb[MRC_STAT_QP_FAILED]));
	EXPECT_EQ(0ULL, attr_u64(stb[MRC_STAT_TX_MSGS]));
	EXPECT_EQ(0ULL, attr_u64(stb[MRC_STAT_RX_MSGS]));
	EXPECT_EQ(0ULL, attr_u64(stb[MRC_STAT_RX_DATA_PACKETS]));

	close(sk);
}

TEST_F(mrc, qp_dump_ipv4)
{
	qp_dump_one(_metadata, self, AF_INET);
}

TEST_F(mrc, qp_dump_ipv6)
{
	qp_dump_one(_metadata, self, AF_INET6);
}

/* Queue pairs of the many-QP tests: more than one dump part holds. */
#define QP_MANY		600

/* What a queue pair dump returned. */
struct qp_list {
	__u32 qpn[QP_MANY + 16];
	__u16 rport[QP_MANY + 16];
	int n;			/* queue pairs, in the kernel's order */
	int reads;		/* recv() calls that returned something */
	int intr;		/* a message was flagged NLM_F_DUMP_INTR */
	int done;		/* ended by NLMSG_DONE */
	int err;		/* its errno, or the ack's */
	int bad;		/* a reply without a QP number */
};

/*
 * Send the QP_GET request @nlh and read every answer into @l; after the
 * first read, call @between(@arg) if not NULL (to change the QPs while
 * the dump is under way).  Return: 0, or -errno if talking failed.
 */
static int qp_dump_read(int fd, struct nlmsghdr *nlh, struct qp_list *l,
			void (*between)(void *arg), void *arg)
{
	static char buf[BUF_SIZE] __attribute__((aligned(NLMSG_ALIGNTO)));
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	static __u32 seq = 100000;

	memset(l, 0, sizeof(*l));
	nlh->nlmsg_seq = ++seq;
	if (sendto(fd, nlh, nlh->nlmsg_len, 0, (struct sockaddr *)&sa,
		   sizeof(sa)) != (ssize_t)nlh->nlmsg_len)
		return -errno;
	for (;;) {
		ssize_t n = recv(fd, buf, sizeof(buf), 0);
		struct nlmsghdr *m;
		int rem;

		if (n < 0)
			return -errno;
		if (l->reads++ == 0 && between)
			between(arg);
		rem = (int)n;
		for (m = (struct nlmsghdr *)buf; NLMSG_OK(m, rem);
		     m = NLMSG_NEXT(m, rem)) {
			const struct nlattr *tb[MRC_A_MAX + 1];
			const struct nlattr *qtb[MRC_QP_A_MAX + 1];
			int counts[MRC_A_MAX + 1], qcounts[MRC_QP_A_MAX + 1];
			const struct nlattr *nest;

			if (m->nlmsg_seq != nlh->nlmsg_seq)
				continue;
			if (m->nlmsg_flags & NLM_F_DUMP_INTR)
				l->intr = 1;
			if (m->nlmsg_type == NLMSG_ERROR) {
				l->err = ((struct nlmsgerr *)NLMSG_DATA(m))->error;
				return 0;
			}
			if (m->nlmsg_type == NLMSG_DONE) {
				memcpy(&l->err, NLMSG_DATA(m), sizeof(int));
				l->done = 1;
				return 0;
			}
			if (attr_index((char *)NLMSG_DATA(m) + GENL_HDRLEN,
				       m->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN),
				       tb, counts, MRC_A_MAX) < 0 ||
			    !(nest = tb[MRC_A_QP]) ||
			    attr_index((const char *)nest + NLA_HDRLEN,
				       attr_len(nest), qtb, qcounts,
				       MRC_QP_A_MAX) < 0 ||
			    !qtb[MRC_QP_A_QPN] || !qtb[MRC_QP_A_REMOTE_PORT] ||
			    l->n == QP_MANY + 16) {
				l->bad++;
				continue;
			}
			l->qpn[l->n] = attr_u32(qtb[MRC_QP_A_QPN]);
			l->rport[l->n++] = attr_u16(qtb[MRC_QP_A_REMOTE_PORT]);
		}
	}
}

/* A socket and @n queue pairs of it, to HOLE4 ports @port0 on. */
static int qps_open(struct __test_metadata *_metadata,
		    FIXTURE_DATA(mrc) *self, const char *addr, int port0,
		    int n)
{
	struct linger abort_on_close = { .l_onoff = 1, .l_linger = 0 };
	struct sockaddr_in to = { .sin_family = AF_INET };
	struct nlmsghdr *nlh;
	char byte = 0;
	int sk, i;

	ASSERT_EQ(0, lo_up());
	/* No timeout, no failure while the test looks. */
	nlh = mrc_req(self, MRC_CMD_CONFIG_SET);
	req_put_u32(nlh, MRC_A_RTO_US, 10000000);
	EXPECT_EQ(0, mrc_talk(_metadata, self, nlh));
	sk = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, IPPROTO_MRC);
	if (sk < 0 && (errno == EPROTONOSUPPORT || errno == ESOCKTNOSUPPORT))
		SKIP(return -1, "no IPPROTO_MRC sockets in this mrc.ko");
	ASSERT_LE(0, sk);
	ASSERT_EQ(0, setsockopt(sk, SOL_SOCKET, SO_LINGER, &abort_on_close,
				sizeof(abort_on_close)));
	ASSERT_EQ(1, inet_pton(AF_INET, addr, &to.sin_addr));
	for (i = 0; i < n; i++) {
		to.sin_port = htons(port0 + i);
		ASSERT_EQ(1, sendto(sk, &byte, 1, 0, (struct sockaddr *)&to,
				    sizeof(to))) {
			TH_LOG("sendto port %d: %s", port0 + i, strerror(errno));
		}
	}
	return sk;
}

/* Each of @l's QPs once, in QP number order, their remote ports
 * exactly @port0..@port0 + @n - 1.
 */
static void expect_each_once(struct __test_metadata *_metadata,
			     const struct qp_list *l, int port0, int n)
{
	static unsigned char seen[65536];
	int i;

	EXPECT_EQ(0, l->bad);
	ASSERT_EQ(n, l->n);
	memset(seen, 0, sizeof(seen));
	for (i = 0; i < l->n; i++) {
		if (i) {
			EXPECT_LT(l->qpn[i - 1], l->qpn[i]) {
				TH_LOG("QP numbers out of order at %d", i);
			}
		}
		EXPECT_LE(port0, l->rport[i]);
		EXPECT_GT(port0 + n, l->rport[i]);
		EXPECT_EQ(0, seen[l->rport[i]]++) {
			TH_LOG("remote port %u twice", l->rport[i]);
		}
	}
}

/* More QPs than one part of the dump holds: each once, in order. */
TEST_F(mrc, qp_dump_many)
{
	struct nlmsghdr *nlh;
	struct qp_list *l;
	int sk;

	ASSERT_EQ(NULL, hole_up());
	sk = qps_open(_metadata, self, HOLE4, QP_PEER_PORT, QP_MANY);
	if (sk < 0)
		return;
	l = malloc(sizeof(*l));
	ASSERT_NE(NULL, l);
	nlh = mrc_req(self, MRC_CMD_QP_GET);
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	ASSERT_EQ(0, qp_dump_read(self->fd, nlh, l, NULL, NULL));
	EXPECT_TRUE(l->done);
	EXPECT_EQ(0, l->err);
	EXPECT_FALSE(l->intr);
	/* The point: the dump was resumed, more than once. */
	EXPECT_LT(3, l->reads) {
		TH_LOG("%d QPs in %d reads", l->n, l->reads);
	}
	expect_each_once(_metadata, l, QP_PEER_PORT, QP_MANY);
	free(l);
	close(sk);
}

struct qp_change {
	int sk;
	int port;
};

/* Open one more QP: the dump under way must be flagged. */
static void qp_add_one(void *arg)
{
	struct qp_change *c = arg;
	struct sockaddr_in to = { .sin_family = AF_INET };
	char byte = 0;

	inet_pton(AF_INET, HOLE4, &to.sin_addr);
	to.sin_port = htons(c->port);
	if (sendto(c->sk, &byte, 1, 0, (struct sockaddr *)&to,
		   sizeof(to)) != 1)
		c->port = -1;
}

/* A QP opened while the dump is under way: NLM_F_DUMP_INTR, and the
 * next dump, undisturbed, has every QP once and no flag.
 */
TEST_F(mrc, qp_dump_intr)
{
	struct qp_change c;
	struct nlmsghdr *nlh;
	struct qp_list *l;
	int sk;

	ASSERT_EQ(NULL, hole_up());
	sk = qps_open(_metadata, self, HOLE4, QP_PEER_PORT, QP_MANY);
	if (sk < 0)
		return;
	l = malloc(sizeof(*l));
	ASSERT_NE(NULL, l);
	c.sk = sk;
	c.port = QP_PEER_PORT + QP_MANY;
	nlh = mrc_req(self, MRC_CMD_QP_GET);
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	ASSERT_EQ(0, qp_dump_read(self->fd, nlh, l, qp_add_one, &c));
	ASSERT_EQ(QP_PEER_PORT + QP_MANY, c.port);
	EXPECT_TRUE(l->done);
	EXPECT_EQ(0, l->err);
	EXPECT_TRUE(l->intr) {
		TH_LOG("%d QPs in %d reads, none flagged", l->n, l->reads);
	}
	/* Resumed by number: none twice, though the flag says redo. */
	EXPECT_LE(QP_MANY, l->n);
	expect_each_once(_metadata, l, QP_PEER_PORT, l->n);

	nlh = mrc_req(self, MRC_CMD_QP_GET);
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	ASSERT_EQ(0, qp_dump_read(self->fd, nlh, l, NULL, NULL));
	EXPECT_FALSE(l->intr);
	EXPECT_EQ(0, l->err);
	expect_each_once(_metadata, l, QP_PEER_PORT, QP_MANY + 1);
	free(l);
	close(sk);
}

/* Open a nest of @type in @nlh; close it with nest_end(). */
static struct nlattr *nest_begin(struct nlmsghdr *nlh, __u16 type)
{
	return req_put(nlh, type | NLA_F_NESTED, NULL, 0);
}

static void nest_end(struct nlmsghdr *nlh, struct nlattr *nest)
{
	nest->nla_len = (__u16)((char *)nlh + nlh->nlmsg_len - (char *)nest);
}

/* A QP_GET request: a get (@dump 0) or a dump, MRC_A_QP { QPN @qpn if
 * not 0, REMOTE_ADDR @addr if not NULL }; the QPN attribute to @qpn_attr.
 */
static struct nlmsghdr *qp_req(FIXTURE_DATA(mrc) *self, int dump, __u32 qpn,
			       const char *addr, struct nlattr **qpn_attr)
{
	struct nlmsghdr *nlh = mrc_req(self, MRC_CMD_QP_GET);
	struct nlattr *nest, *a = NULL;
	unsigned char buf[16];

	if (dump)
		nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	nest = nest_begin(nlh, MRC_A_QP);
	if (qpn)
		a = req_put_u32(nlh, MRC_QP_A_QPN, qpn);
	if (addr && inet_pton(AF_INET, addr, buf) == 1)
		req_put(nlh, MRC_QP_A_REMOTE_ADDR, buf, 4);
	else if (addr && inet_pton(AF_INET6, addr, buf) == 1)
		req_put(nlh, MRC_QP_A_REMOTE_ADDR, buf, 16);
	nest_end(nlh, nest);
	if (qpn_attr)
		*qpn_attr = a;
	return nlh;
}

/* The QP number and remote port of the one reply of a get. */
static void qp_reply(struct __test_metadata *_metadata,
		     FIXTURE_DATA(mrc) *self, __u32 *qpn, __u16 *rport)
{
	const struct nlattr *qtb[MRC_QP_A_MAX + 1];
	int qcounts[MRC_QP_A_MAX + 1];
	const struct nlattr *nest;

	ASSERT_EQ(1, self->a.nreplies);
	EXPECT_EQ(MRC_CMD_QP_GET, self->a.cmd);
	EXPECT_FALSE(self->a.flags & NLM_F_MULTI);
	ASSERT_EQ(0, attr_index(self->a.attrs, self->a.alen, self->tb,
				self->counts, MRC_A_MAX));
	nest = self->tb[MRC_A_QP];
	ASSERT_NE(NULL, nest);
	ASSERT_EQ(0, attr_index((const char *)nest + NLA_HDRLEN,
				attr_len(nest), qtb, qcounts, MRC_QP_A_MAX));
	ASSERT_NE(NULL, qtb[MRC_QP_A_QPN]);
	ASSERT_NE(NULL, qtb[MRC_QP_A_REMOTE_PORT]);
	*qpn = attr_u32(qtb[MRC_QP_A_QPN]);
	*rport = attr_u16(qtb[MRC_QP_A_REMOTE_PORT]);
}

#define QP_FEW		40
#define HOLE4_OTHER	"192.0.2.2"

/*
 * A get by QP number returns that queue pair alone, for each of many;
 * an unknown number is ENOENT; the remote address must match too when
 * given; a dump by remote address has exactly the QPs to it.
 */
TEST_F(mrc, qp_get)
{
	struct nlattr *qa;
	struct nlmsghdr *nlh;
	struct qp_list *l;
	__u32 qpn, max = 0;
	__u16 rport;
	int sk, sk2, i;

	ASSERT_EQ(NULL, hole_up());
	sk = qps_open(_metadata, self, HOLE4, QP_PEER_PORT, QP_FEW);
	if (sk < 0)
		return;
	/* One more, to another address, on another socket. */
	sk2 = qps_open(_metadata, self, HOLE4_OTHER, QP_PEER_PORT + QP_FEW, 1);
	ASSERT_LE(0, sk2);
	l = malloc(sizeof(*l));
	ASSERT_NE(NULL, l);
	nlh = mrc_req(self, MRC_CMD_QP_GET);
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	ASSERT_EQ(0, qp_dump_read(self->fd, nlh, l, NULL, NULL));
	expect_each_once(_metadata, l, QP_PEER_PORT, QP_FEW + 1);

	/* Each by its number: exactly it. */
	for (i = 0; i < l->n; i++) {
		nlh = qp_req(self, 0, l->qpn[i], NULL, NULL);
		ASSERT_EQ(0, mrc_talk(_metadata, self, nlh)) {
			TH_LOG("qpn %u: %s", l->qpn[i], self->a.msg);
		}
		qp_reply(_metadata, self, &qpn, &rport);
		EXPECT_EQ(l->qpn[i], qpn);
		EXPECT_EQ(l->rport[i], rport);
		if (l->qpn[i] > max)
			max = l->qpn[i];
	}

	/* A number no QP has: ENOENT, pointed at. */
	nlh = qp_req(self, 0, max + 1000, NULL, &qa);
	EXPECT_EQ(-ENOENT, mrc_talk(_metadata, self, nlh));
	EXPECT_STREQ(MSG_QP_NONE, self->a.msg);
	EXPECT_EQ(0, self->a.nreplies);
	EXPECT_TRUE(self->a.has_offs);
	EXPECT_EQ(offset_of(nlh, qa), self->a.offs);
	/* ... and as a dump, nothing. */
	nlh = qp_req(self, 1, max + 1000, NULL, NULL);
	ASSERT_EQ(0, qp_dump_read(self->fd, nlh, l, NULL, NULL));
	EXPECT_TRUE(l->done);
	EXPECT_EQ(0, l->err);
	EXPECT_EQ(0, l->n);

	/* Number and address: both must match. */
	nlh = qp_req(self, 0, max, HOLE4_OTHER, NULL);
	ASSERT_EQ(0, mrc_talk(_metadata, self, nlh)) {
		TH_LOG("%s", self->a.msg);
	}
	qp_reply(_metadata, self, &qpn, &rport);
	EXPECT_EQ(max, qpn);
	EXPECT_EQ(QP_PEER_PORT + QP_FEW, rport);
	nlh = qp_req(self, 0, max, HOLE4, NULL);
	EXPECT_EQ(-ENOENT, mrc_talk(_metadata, self, nlh));
	EXPECT_STREQ(MSG_QP_NONE_ADDR, self->a.msg);

	/* A dump by address: the QPs to it, each once. */
	nlh = qp_req(self, 1, 0, HOLE4, NULL);
	ASSERT_EQ(0, qp_dump_read(self->fd, nlh, l, NULL, NULL));
	EXPECT_TRUE(l->done);
	expect_each_once(_metadata, l, QP_PEER_PORT, QP_FEW);
	nlh = qp_req(self, 1, 0, HOLE4_OTHER, NULL);
	ASSERT_EQ(0, qp_dump_read(self->fd, nlh, l, NULL, NULL));
	expect_each_once(_metadata, l, QP_PEER_PORT + QP_FEW, 1);
	/* As v4-mapped IPv6, the same. */
	nlh = qp_req(self, 1, 0, "::ffff:" HOLE4_OTHER, NULL);
	ASSERT_EQ(0, qp_dump_read(self->fd, nlh, l, NULL, NULL));
	expect_each_once(_metadata, l, QP_PEER_PORT + QP_FEW, 1);
	nlh = qp_req(self, 1, 0, "198.51.100.7", NULL);
	ASSERT_EQ(0, qp_dump_read(self->fd, nlh, l, NULL, NULL));
	EXPECT_TRUE(l->done);
	EXPECT_EQ(0, l->n);
	/* A dump by number: that one. */
	nlh = qp_req(self, 1, max, NULL, NULL);
	ASSERT_EQ(0, qp_dump_read(self->fd, nlh, l, NULL, NULL));
	ASSERT_EQ(1, l->n);
	EXPECT_EQ(max, l->qpn[0]);

	free(l);
	close(sk2);
	close(sk);
}

/* What a QP_GET request may hold, refused with the attribute named. */
TEST_F(mrc, qp_get_bad_requests)
{
	struct nlattr *a, *nest;
	struct nlmsghdr *nlh;
	__u8 five[5] = { 192, 0, 2, 1, 0 };
	__u32 v = 1;

	/* A get with nothing: the QP number is missing. */
	nlh = mrc_req(self, MRC_CMD_QP_GET);
	expect_refused(_metadata, self, nlh, NULL, MSG_QP_GET_QPN, "get");
	/* ... with only an address. */
	nlh = qp_req(self, 0, 0, HOLE4, NULL);
	expect_refused(_metadata, self, nlh, NULL, MSG_QP_GET_QPN,
		       "get by address");

	/* QP number 0 and 2^24: the policy's range, 1..2^24 - 1. */
	nlh = qp_req(self, 0, 0x1000000, NULL, &a);
	EXPECT_EQ(-ERANGE, mrc_talk(_metadata, self, nlh));
	EXPECT_STREQ(MSG_RANGE, self->a.msg);
	EXPECT_EQ(offset_of(nlh, a), self->a.offs);
	EXPECT_TRUE(self->a.has_range);
	EXPECT_EQ(1ULL, self->a.range_min);
	EXPECT_EQ(0xffffffULL, self->a.range_max);
	nlh = mrc_req(self, MRC_CMD_QP_GET);
	nest = nest_begin(nlh, MRC_A_QP);
	a = req_put_u32(nlh, MRC_QP_A_QPN, 0);
	nest_end(nlh, nest);
	EXPECT_EQ(-ERANGE, mrc_talk(_metadata, self, nlh));
	EXPECT_EQ(offset_of(nlh, a), self->a.offs);

	/* An attribute of the nest that selects nothing, in a dump too. */
	nlh = mrc_req(self, MRC_CMD_QP_GET);
	nlh->nlmsg_flags |= NLM_F_DUMP;
	nest = nest_begin(nlh, MRC_A_QP);
	a = req_put_u32(nlh, MRC_QP_A_STATE, 0);
	nest_end(nlh, nest);
	expect_refused(_metadata, self, nlh, a, MSG_QP_KEY_ONLY,
		       "dump by state");
	/* A type beyond the nest's. */
	nlh = mrc_req(self, MRC_CMD_QP_GET);
	nest = nest_begin(nlh, MRC_A_QP);
	req_put_u32(nlh, MRC_QP_A_QPN, 1);
	a = req_put_u32(nlh, MRC_QP_A_MAX + 1, 1);
	nest_end(nlh, nest);
	expect_refused(_metadata, self, nlh, a, MSG_UNKNOWN_ATTR,
		       "unknown type in the nest");
	/* An address of 5 bytes. */
	nlh = mrc_req(self, MRC_CMD_QP_GET);
	nlh->nlmsg_flags |= NLM_F_DUMP;
	nest = nest_begin(nlh, MRC_A_QP);
	a = req_put(nlh, MRC_QP_A_REMOTE_ADDR, five, sizeof(five));
	nest_end(nlh, nest);
	expect_refused(_metadata, self, nlh, a, MSG_QP_ADDR_LEN,
		       "5-byte address");
	/* A QP number of 2 bytes. */
	nlh = mrc_req(self, MRC_CMD_QP_GET);
	nest = nest_begin(nlh, MRC_A_QP);
	a = req_put(nlh, MRC_QP_A_QPN, &v, 2);
	nest_end(nlh, nest);
	expect_refused(_metadata, self, nlh, a, MSG_BAD_LEN, "2-byte qpn");
	/* The nest without NLA_F_NESTED. */
	nlh = mrc_req(self, MRC_CMD_QP_GET);
	a = req_put(nlh, MRC_A_QP, NULL, 0);
	req_put_u32(nlh, MRC_QP_A_QPN, 1);
	nest_end(nlh, a);
	expect_refused(_metadata, self, nlh, a, MSG_NESTED_MISSING,
		       "nest without NLA_F_NESTED");
	/* Trailing bytes after the nest. */
	nlh = qp_req(self, 0, 1, NULL, NULL);
	req_put_trailing(nlh, 3);
	expect_refused(_metadata, self, nlh, NULL, MSG_TRAILING,
		       "trailing bytes after the nest");
}

static int drop_net_admin(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];

	if (syscall(SYS_capget, &hdr, data))
		return -errno;
	data[CAP_TO_INDEX(CAP_NET_ADMIN)].effective &=
		~CAP_TO_MASK(CAP_NET_ADMIN);
	data[CAP_TO_INDEX(CAP_NET_ADMIN)].permitted &=
		~CAP_TO_MASK(CAP_NET_ADMIN);
	if (syscall(SYS_capset, &hdr, data))
		return -errno;
	return 0;
}

/* Without CAP_NET_ADMIN: GETs work, SET is -EPERM and changes nothing. */
TEST_F(mrc, permission)
{
	__u32 want[MRC_NR_CONFIG_PARAMS];
	struct nlmsghdr *nlh;
	int fds[2], i;

	defaults(want);
	ASSERT_EQ(0, drop_net_admin());
	/* The socket opened with the capability, and one opened without. */
	fds[0] = self->fd;
	fds[1] = nl_open();
	ASSERT_LE(0, fds[1]);
	for (i = 0; i < 2; i++) {
		self->fd = fds[i];
		nlh = mrc_req(self, MRC_CMD_CONFIG_SET);
		req_put_u32(nlh, MRC_A_MSS, 1000);
		EXPECT_EQ(-EPERM, mrc_talk(_metadata, self, nlh)) {
			TH_LOG("socket %d", i);
		}
		expect_config(_metadata, self, want, "unprivileged SET");
		EXPECT_EQ(0, mrc_talk(_metadata, self,
				      mrc_req(self, MRC_CMD_STATS_GET)));
		nlh = mrc_req(self, MRC_CMD_QP_GET);
		nlh->nlmsg_flags |= NLM_F_DUMP;
		EXPECT_EQ(0, mrc_talk(_metadata, self, nlh));
		EXPECT_TRUE(self->a.done);
	}
	close(fds[0]);
}

/*
 * Checking for the family here rather than in FIXTURE_SETUP: a SKIP() in
 * a fixture's setup still runs the test body with this harness.
 */
int main(int argc, char **argv)
{
	struct family fam;
	int fd, ret;

	fd = nl_open();
	if (fd < 0) {
		printf("1..0 # SKIP no generic netlink socket: %s\n",
		       strerror(-fd));
		return KSFT_SKIP;
	}
	ret = family_get(fd, &fam);
	close(fd);
	if (ret == -ENOENT) {
		printf("1..0 # SKIP generic netlink family \"%s\" absent: load mrc.ko (mrc_genl.sh does)\n",
		       MRC_GENL_NAME);
		return KSFT_SKIP;
	}
	if (ret) {
		printf("1..0 # looking up family \"%s\": %s\n", MRC_GENL_NAME,
		       strerror(-ret));
		return KSFT_FAIL;
	}
	return test_harness_run(argc, argv);
}
