// SPDX-License-Identifier: GPL-2.0
/*
 * A stand-in for the kernel, for make check on machines without mrc.ko:
 * LD_PRELOADed into mrc, it replaces libmnl's socket calls and answers
 * requests the way the kernel's generic netlink does.
 *
 * MRC_FAKE selects the behaviour:
 *   nofamily	CTRL_CMD_GETFAMILY fails with ENOENT
 *   ok		every request succeeds, with made-up replies; CONFIG_SET
 *		checks ranges and the port rule as the kernel does (a value
 *		out of range: ERANGE, "integer out of range", its offset and
 *		its range in NLMSGERR_ATTR_POLICY); the QP
 *		dump has two queue pairs, IPv4 and IPv6, in two messages
 *		over two reads, the second read ending with NLMSG_DONE
 *   extack	CONFIG_SET fails with EINVAL, a message and the offset of
 *		the last attribute, in a capped ack
 *   extack-full	the same in an uncapped ack (request echoed)
 *   noext	CONFIG_SET fails with EINVAL and only an offset
 *   range	a value out of range is reported with a maximum of 12345
 *   norange	... with no NLMSGERR_ATTR_POLICY
 *   oldrange	... with the table's message, not the policy's
 *   eperm	CONFIG_SET fails with EPERM and nothing else
 *   noqp	the QP dump is empty: NLMSG_DONE alone
 *   (ok)	a QP_GET with MRC_QP_A_QPN in its MRC_A_QP nest (a doit)
 *		gets that queue pair, or ENOENT; a dump with
 *		MRC_QP_A_REMOTE_ADDR only those to that address
 *   oldqp	a module without MRC_CMD_QP_GET: the dump and the get are
 *		refused with EOPNOTSUPP, as genetlink refuses an unknown
 *		command
 *   qperr	the dump ends, after one queue pair, with ENOMEM and an
 *		extended ack message in its NLMSG_DONE
 *   qpintr	the first dump of the process is flagged NLM_F_DUMP_INTR
 *   qpintr-always	every dump is
 *   qpbad	a queue pair's remote address is 5 bytes long
 *   (ok)	the peer dump has three destinations in three reads:
 *		10.0.2.1 with 72 values (two bad, two marked), 2001:db8::2
 *		with 4, 10.0.2.9 under spraying none
 *   nopeer	the peer dump is empty
 *   oldpeer	a module without MRC_CMD_PEER_GET: the dump is refused
 *   peerbad	the first destination's MRC_PEER_A_VALUES is one byte short
 *		of a whole number of struct mrc_peer_value
 *   peerintr	the first dump of the process is flagged NLM_F_DUMP_INTR
 *   (ok)	the family has two multicast groups, "other" and "monitor";
 *		a socket that joins "monitor" reads the events of
 *		fake_mon_script[], one an ENOBUFS, then gets SIGTERM
 *   monsig	SIGTERM comes with the third event, the rest still queued
 *   nomon	a module without the group: only "other"
 *   monjoin	joining the group fails with EPERM
 *   monbad	the first event's address is 5 bytes long
 * MRC_FAKE_DUMP names a file to append each request's genl command and
 * attributes to, and the groups joined and left and the socket options
 * set on the socket's fd.  MRC_FAKE_STATE names a file that keeps the configuration
 * from one run to the next ("ATTR VALUE" lines); without it, or with the
 * file absent, the configuration is the defaults.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include <linux/mrc.h>
#include <mrc/config.h>

#define FAKE_FAMILY	0x42
#define FAKE_PORTID	4242
#define FAKE_MAX_READS	32
#define FAKE_MCGRP_OTHER	6
#define FAKE_MCGRP_MON	7

static struct mnl_socket *fake_sock = (struct mnl_socket *)&fake_sock;
static char fake_out[16384] __attribute__((aligned(8)));
static size_t fake_out_len;
/* The answer is handed out in reads of these lengths, in order. */
static size_t fake_reads[FAKE_MAX_READS];
static size_t fake_nr_reads;
/* Dumps answered so far by this process. */
static unsigned int fake_nr_dumps;

static const char *fake_mode(void)
{
	const char *m = getenv("MRC_FAKE");

	return m ? m : "ok";
}

struct mnl_socket *mnl_socket_open(int bus)
{
	(void)bus;
	return fake_sock;
}

int mnl_socket_bind(struct mnl_socket *nl, unsigned int groups, pid_t pid)
{
	(void)nl; (void)groups; (void)pid;
	return 0;
}

unsigned int mnl_socket_get_portid(const struct mnl_socket *nl)
{
	(void)nl;
	return FAKE_PORTID;
}

/* Append a line to MRC_FAKE_DUMP. */
static void fake_log(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
static void fake_log(const char *fmt, ...)
{
	const char *path = getenv("MRC_FAKE_DUMP");
	va_list ap;
	FILE *f;

	f = path ? fopen(path, "a") : NULL;
	if (!f)
		return;
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
	fclose(f);
}

/* The monitor group: joined, and where its events are. */
static int fake_mon_joined;
static int fake_mon_started;

int mnl_socket_setsockopt(const struct mnl_socket *nl, int type, void *buf,
			  socklen_t len)
{
	uint32_t grp;

	(void)nl;
	if (type != NETLINK_ADD_MEMBERSHIP && type != NETLINK_DROP_MEMBERSHIP)
		return 0;
	if (len != sizeof(grp)) {
		errno = EINVAL;
		return -1;
	}
	memcpy(&grp, buf, sizeof(grp));
	fake_log("%s %u", type == NETLINK_ADD_MEMBERSHIP ? "join" : "leave",
		 grp);
	if (type == NETLINK_DROP_MEMBERSHIP) {
		fake_mon_joined = 0;
		return 0;
	}
	if (!strcmp(fake_mode(), "monjoin")) {
		errno = EPERM;
		return -1;
	}
	if (grp != FAKE_MCGRP_MON && grp != FAKE_MCGRP_OTHER) {
		errno = EINVAL;
		return -1;
	}
	fake_mon_joined = grp == FAKE_MCGRP_MON;
	fake_mon_started |= fake_mon_joined;
	return 0;
}

/*
 * The socket's fd: /dev/null, always ready to read, so that poll() and
 * fcntl() work on it.
 */
static int fake_fd = -1;

int mnl_socket_get_fd(const struct mnl_socket *nl)
{
	(void)nl;
	if (fake_fd < 0)
		fake_fd = open("/dev/null", O_RDONLY);
	return fake_fd;
}

/* The socket options mrc sets on that fd itself: SO_RCVBUF(FORCE). */
int setsockopt(int fd, int level, int optname, const void *optval,
	       socklen_t optlen)
{
	int val = 0;

	if (fd != fake_fd || level != SOL_SOCKET ||
	    (optname != SO_RCVBUF && optname != SO_RCVBUFFORCE)) {
		errno = ENOTSOCK;
		return -1;
	}
	if (optlen == sizeof(val))
		memcpy(&val, optval, sizeof(val));
	fake_log("%s %d", optname == SO_RCVBUF ? "SO_RCVBUF" :
		 "SO_RCVBUFFORCE", val);
	/* As for a user without CAP_NET_ADMIN. */
	if (optname == SO_RCVBUFFORCE) {
		errno = EPERM;
		return -1;
	}
	return 0;
}

int mnl_socket_close(struct mnl_socket *nl)
{
	(void)nl;
	return 0;
}

static struct nlmsghdr *fake_put(uint16_t type, uint16_t flags,
				 const struct nlmsghdr *req)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(fake_out + fake_out_len);

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = flags;
	nlh->nlmsg_seq = req->nlmsg_seq;
	nlh->nlmsg_pid = FAKE_PORTID;
	return nlh;
}

/* End a message: it is read alone, or with those before it (@join). */
static void fake_end(struct nlmsghdr *nlh, int join)
{
	size_t len = NLMSG_ALIGN(nlh->nlmsg_len);

	fake_out_len += len;
	if (join && fake_nr_reads)
		fake_reads[fake_nr_reads - 1] += len;
	else if (fake_nr_reads < FAKE_MAX_READS)
		fake_reads[fake_nr_reads++] = len;
}

static void fake_done(struct nlmsghdr *nlh)
{
	fake_end(nlh, 0);
}

static void fake_reply(const struct nlmsghdr *req, uint16_t type,
		       void (*fill)(struct nlmsghdr *))
{
	struct nlmsghdr *nlh = fake_put(type, 0, req);
	struct genlmsghdr *genl = mnl_nlmsg_put_extra_header(nlh,
							     sizeof(*genl));

	genl->cmd = 1;
	genl->version = 1;
	fill(nlh);
	fake_done(nlh);
}

/*
 * An ack with @error, and as TLVs @msg and @offs if given, and, if @range
 * is not NULL, the policy of the attribute at @offs: its unsigned range
 * @range[0]..@range[1], as the kernel reports a value out of range.
 */
static void fake_ack_range(const struct nlmsghdr *req, int error,
			   const char *msg, int offs, int capped,
			   const uint64_t *range)
{
	struct nlmsghdr *nlh = fake_put(NLMSG_ERROR, 0, req);
	size_t echo = capped ? sizeof(*req) : req->nlmsg_len;
	struct nlmsgerr *err;

	err = mnl_nlmsg_put_extra_header(nlh, sizeof(*err) - sizeof(*req) +
					 NLMSG_ALIGN(echo));
	err->error = -error;
	memcpy(&err->msg, req, echo);
	if (capped)
		nlh->nlmsg_flags |= NLM_F_CAPPED;
	if (msg || offs >= 0)
		nlh->nlmsg_flags |= NLM_F_ACK_TLVS;
	if (msg)
		mnl_attr_put_strz(nlh, NLMSGERR_ATTR_MSG, msg);
	if (offs >= 0)
		mnl_attr_put_u32(nlh, NLMSGERR_ATTR_OFFS, (uint32_t)offs);
	if (range) {
		struct nlattr *pol = mnl_attr_nest_start(nlh,
							 NLMSGERR_ATTR_POLICY);

		mnl_attr_put_u32(nlh, NL_POLICY_TYPE_ATTR_TYPE,
				 NL_ATTR_TYPE_U32);
		mnl_attr_put_u64(nlh, NL_POLICY_TYPE_ATTR_MIN_VALUE_U,
				 range[0]);
		mnl_attr_put_u64(nlh, NL_POLICY_TYPE_ATTR_MAX_VALUE_U,
				 range[1]);
		mnl_attr_nest_end(nlh, pol);
	}
	fake_done(nlh);
}

/* An ack; @offs < 0 for none, @capped to leave the request out. */
static void fake_ack(const struct nlmsghdr *req, int error, const char *msg,
		     int offs, int capped)
{
	fake_ack_range(req, error, msg, offs, capped, NULL);
}

static void fill_mcgrp(struct nlmsghdr *nlh, uint16_t i, const char *name,
		       uint32_t id)
{
	struct nlattr *grp = mnl_attr_nest_start(nlh, i);

	mnl_attr_put_strz(nlh, CTRL_ATTR_MCAST_GRP_NAME, name);
	mnl_attr_put_u32(nlh, CTRL_ATTR_MCAST_GRP_ID, id);
	mnl_attr_nest_end(nlh, grp);
}

/* As genetlink's: name, id, then the groups, "other" before "monitor". */
static void fill_family(struct nlmsghdr *nlh)
{
	struct nlattr *grps;

	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, MRC_GENL_NAME);
	mnl_attr_put_u16(nlh, CTRL_ATTR_FAMILY_ID, FAKE_FAMILY);
	mnl_attr_put_u32(nlh, CTRL_ATTR_VERSION, MRC_GENL_VERSION);
	grps = mnl_attr_nest_start(nlh, CTRL_ATTR_MCAST_GROUPS);
	fill_mcgrp(nlh, 1, "other", FAKE_MCGRP_OTHER);
	if (strcmp(fake_mode(), "nomon"))
		fill_mcgrp(nlh, 2, MRC_MCGRP_MONITOR, FAKE_MCGRP_MON);
	mnl_attr_nest_end(nlh, grps);
}

/* The configuration: the defaults, then what MRC_FAKE_STATE holds. */
static void fake_config_load(struct mrc_config *c)
{
	const char *path = getenv("MRC_FAKE_STATE");
	const struct mrc_config_param *p;
	unsigned int attr, val;
	FILE *f;

	mrc_config_defaults(c);
	f = path && *path ? fopen(path, "r") : NULL;
	if (!f)
		return;
	while (fscanf(f, "%u %u", &attr, &val) == 2) {
		p = mrc_config_param_by_attr((int)attr);
		if (p)
			*mrc_config_field(c, p) = val;
	}
	fclose(f);
}

static void fake_config_save(struct mrc_config *c)
{
	const char *path = getenv("MRC_FAKE_STATE");
	size_t i;
	FILE *f;

	f = path && *path ? fopen(path, "w") : NULL;
	if (!f)
		return;
	for (i = 0; i < MRC_NR_CONFIG_PARAMS; i++)
		fprintf(f, "%d %u\n", mrc_config_params[i].attr,
			*mrc_config_field(c, &mrc_config_params[i]));
	fclose(f);
}

/* As the kernel's reply: every writable attribute, then the derived. */
static void fill_config(struct nlmsghdr *nlh)
{
	struct mrc_config c;
	size_t i;

	fake_config_load(&c);
	for (i = 0; i < MRC_NR_CONFIG_PARAMS; i++)
		mnl_attr_put_u32(nlh, (uint16_t)mrc_config_params[i].attr,
				 *mrc_config_field(&c, &mrc_config_params[i]));
	mnl_attr_put_u64(nlh, MRC_A_BDP_BYTES, mrc_bdp_bytes(&c));
	mnl_attr_put_u32(nlh, MRC_A_ACTIVE_SET, mrc_active_set_size(&c));
	/* An attribute of a newer kernel, to be ignored. */
	mnl_attr_put_u32(nlh, 200, 99);
}

static void fill_stats(struct nlmsghdr *nlh)
{
	struct nlattr *nest = mnl_attr_nest_start(nlh, MRC_A_STATS);
	uint16_t s;

	for (s = MRC_STAT_RX_PACKETS; s <= MRC_STAT_MAX; s++)
		mnl_attr_put_u64(nlh, s, 1000ULL * s + 1);
	/* A counter of a newer kernel, to be ignored. */
	mnl_attr_put_u64(nlh, MRC_STAT_MAX + 5, 7);
	mnl_attr_nest_end(nlh, nest);
}

/* A made-up queue pair; the counters not listed are zero. */
struct fake_qp {
	uint32_t qpn;
	uint16_t family;
	uint16_t local_port;
	const char *addr;
	const char *laddr;	/* NULL: none, as from an older kernel */
	uint16_t remote_port;
	uint16_t udp_sport;
	uint32_t state;
	uint32_t nums[MRC_QP_A_RX_PENDING - MRC_QP_A_SND_NXT + 1];
	struct {
		uint16_t type;
		uint64_t val;
	} stats[6];
};

static const struct fake_qp fake_qps[] = {
	{
		.qpn = 1, .family = AF_INET, .local_port = 5000,
		.addr = "192.0.2.1", .laddr = "192.0.2.9",
		.remote_port = 6000, .udp_sport = 300,
		.state = MRC_QP_STATE_OPEN,
		/* snd_nxt .. rx_pending */
		.nums = { 1000, 990, 500, 300000, 40960, 12, 6, 2, 1 },
		.stats = {
			{ MRC_STAT_TX_PACKETS, 1000 },
			{ MRC_STAT_TX_BYTES, 4096000 },
			{ MRC_STAT_TX_DATA_PACKETS, 990 },
			{ MRC_STAT_ACK_RX, 10 },
			{ MRC_STAT_CALC_MEAN_REORDER_DEPTH, 3 },
		},
	},
	{
		.qpn = 2, .family = AF_INET6, .local_port = 5001,
		.addr = "2001:db8::2", .remote_port = 7000, .udp_sport = 301,
		.state = MRC_QP_STATE_FAILED,
		.nums = { 16777215, 16777208, 0, 8192, 8192, 4000, 9, 1, 0 },
		.stats = {
			{ MRC_STAT_TX_PACKETS, 80 },
			{ MRC_STAT_RTX_TIMEOUT, 7 },
			{ MRC_STAT_TIMEOUTS, 7 },
			{ MRC_STAT_QP_FAILED, 1 },
		},
	},
};

static void fill_qp_nest(struct nlmsghdr *nlh, const struct fake_qp *q)
{
	struct nlattr *nest, *stats;
	unsigned char addr[16];
	uint16_t a, s;
	size_t i;
	uint64_t v;

	/* An attribute of a newer kernel, outside the nest: ignored. */
	mnl_attr_put_u32(nlh, 200, 99);
	nest = mnl_attr_nest_start(nlh, MRC_A_QP);
	mnl_attr_put_u32(nlh, MRC_QP_A_QPN, q->qpn);
	mnl_attr_put_u16(nlh, MRC_QP_A_FAMILY, q->family);
	mnl_attr_put_u16(nlh, MRC_QP_A_LOCAL_PORT, q->local_port);
	if (!strcmp(fake_mode(), "qpbad")) {
		mnl_attr_put(nlh, MRC_QP_A_REMOTE_ADDR, 5, "12345");
	} else {
		inet_pton(q->family, q->addr, addr);
		mnl_attr_put(nlh, MRC_QP_A_REMOTE_ADDR,
			     q->family == AF_INET ? 4 : 16, addr);
	}
	mnl_attr_put_u16(nlh, MRC_QP_A_REMOTE_PORT, q->remote_port);
	if (q->laddr) {
		inet_pton(q->family, q->laddr, addr);
		mnl_attr_put(nlh, MRC_QP_A_LOCAL_ADDR,
			     q->family == AF_INET ? 4 : 16, addr);
	}
	mnl_attr_put_u16(nlh, MRC_QP_A_UDP_SPORT, q->udp_sport);
	mnl_attr_put_u32(nlh, MRC_QP_A_STATE, q->state);
	for (a = MRC_QP_A_SND_NXT; a <= MRC_QP_A_RX_PENDING; a++)
		mnl_attr_put_u32(nlh, a, q->nums[a - MRC_QP_A_SND_NXT]);
	/* Every counter, as the kernel sends them, and a newer one. */
	stats = mnl_attr_nest_start(nlh, MRC_QP_A_STATS);
	for (s = MRC_STAT_RX_PACKETS; s <= MRC_STAT_MAX; s++) {
		v = 0;
		for (i = 0; i < ARRAY_SIZE(q->stats); i++)
			if (q->stats[i].type == s)
				v = q->stats[i].val;
		mnl_attr_put_u64(nlh, s, v);
	}
	mnl_attr_put_u64(nlh, MRC_STAT_MAX + 5, 7);
	mnl_attr_nest_end(nlh, stats);
	/* An attribute of a newer kernel, in the nest: ignored. */
	mnl_attr_put_u32(nlh, MRC_QP_A_MAX + 3, 42);
	mnl_attr_nest_end(nlh, nest);
}

/* The end of a dump, with @error and its extack @msg (may be NULL). */
static void fake_dump_done(const struct nlmsghdr *req, int error,
			   const char *msg, int join)
{
	struct nlmsghdr *nlh = fake_put(NLMSG_DONE, NLM_F_MULTI, req);
	int *err = mnl_nlmsg_put_extra_header(nlh, sizeof(*err));

	*err = -error;
	if (msg) {
		nlh->nlmsg_flags |= NLM_F_ACK_TLVS;
		mnl_attr_put_strz(nlh, NLMSGERR_ATTR_MSG, msg);
	}
	fake_end(nlh, join);
}

/* Offset of @attr in @req. */
static int fake_offset(const struct nlmsghdr *req, const struct nlattr *attr)
{
	return (int)((const char *)attr - (const char *)req);
}

/* What a QP_GET request selects, from its MRC_A_QP nest. */
struct fake_qp_select {
	const struct nlattr *qpn;	/* MRC_QP_A_QPN, or NULL */
	const struct nlattr *addr;	/* MRC_QP_A_REMOTE_ADDR, or NULL */
};

static void fake_qp_select(const struct nlmsghdr *req,
			   struct fake_qp_select *sel)
{
	const struct nlattr *attr, *a;

	memset(sel, 0, sizeof(*sel));
	mnl_attr_for_each(attr, req, sizeof(struct genlmsghdr)) {
		if (mnl_attr_get_type(attr) != MRC_A_QP)
			continue;
		mnl_attr_for_each_nested(a, attr) {
			if (mnl_attr_get_type(a) == MRC_QP_A_QPN)
				sel->qpn = a;
			else if (mnl_attr_get_type(a) == MRC_QP_A_REMOTE_ADDR)
				sel->addr = a;
		}
	}
}

/* Whether @q is one @sel selects. */
static int fake_qp_match(const struct fake_qp *q,
			 const struct fake_qp_select *sel)
{
	unsigned char addr[16];
	size_t len = q->family == AF_INET ? 4 : 16;

	if (sel->qpn && mnl_attr_get_u32(sel->qpn) != q->qpn)
		return 0;
	if (!sel->addr)
		return 1;
	inet_pton(q->family, q->addr, addr);
	return mnl_attr_get_payload_len(sel->addr) == len &&
	       !memcmp(mnl_attr_get_payload(sel->addr), addr, len);
}

/*
 * MRC_CMD_QP_GET's doit: the queue pair of the number in the request's
 * MRC_A_QP nest (with its address, if given), or ENOENT.
 */
static void fake_qp_get(const struct nlmsghdr *req)
{
	struct fake_qp_select sel;
	struct genlmsghdr *genl;
	struct nlmsghdr *nlh;
	size_t i;

	fake_qp_select(req, &sel);
	if (!sel.qpn) {
		fake_ack(req, EINVAL, "fake: no MRC_QP_A_QPN", -1, 1);
		return;
	}
	for (i = 0; i < ARRAY_SIZE(fake_qps); i++) {
		if (!fake_qp_match(&fake_qps[i], &sel))
			continue;
		nlh = fake_put(FAKE_FAMILY, 0, req);
		genl = mnl_nlmsg_put_extra_header(nlh, sizeof(*genl));
		genl->cmd = MRC_CMD_QP_GET;
		genl->version = MRC_GENL_VERSION;
		fill_qp_nest(nlh, &fake_qps[i]);
		fake_done(nlh);
		fake_ack(req, 0, NULL, -1, 1);
		return;
	}
	fake_ack(req, ENOENT, "no queue pair with this number",
		 fake_offset(req, sel.qpn), 1);
}

/*
 * MRC_CMD_QP_GET: one NLM_F_MULTI message per queue pair (those the
 * request selects); the first read has the first message, the second
 * read the rest and NLMSG_DONE.
 */
static void fake_qp_dump(const struct nlmsghdr *req)
{
	const char *m = fake_mode();
	struct fake_qp_select sel;
	struct genlmsghdr *genl;
	struct nlmsghdr *nlh;
	size_t i, n = ARRAY_SIZE(fake_qps), sent = 0;
	int intr;

	intr = !strcmp(m, "qpintr-always") ||
	       (!strcmp(m, "qpintr") && fake_nr_dumps == 0);
	fake_nr_dumps++;
	if (!strcmp(m, "noqp"))
		n = 0;
	if (!strcmp(m, "qperr"))
		n = 1;
	fake_qp_select(req, &sel);
	for (i = 0; i < n; i++) {
		if (!fake_qp_match(&fake_qps[i], &sel))
			continue;
		nlh = fake_put(FAKE_FAMILY, NLM_F_MULTI, req);
		if (intr)
			nlh->nlmsg_flags |= NLM_F_DUMP_INTR;
		genl = mnl_nlmsg_put_extra_header(nlh, sizeof(*genl));
		genl->cmd = MRC_CMD_QP_GET;
		genl->version = MRC_GENL_VERSION;
		fill_qp_nest(nlh, &fake_qps[i]);
		fake_end(nlh, sent++ > 1);
	}
	if (!strcmp(m, "qperr"))
		fake_dump_done(req, ENOMEM, "fake: no memory for the dump", 0);
	else
		fake_dump_done(req, 0, NULL, n > 1);
}

/* A made-up destination; nr_values 0 for spraying none. */
struct fake_peer {
	uint16_t family;
	const char *addr;
	uint32_t spraying;
	uint32_t nr_values;
	uint32_t position;
	uint32_t reorder, srtt_us, base_rtt_us;
	uint64_t probe_tx, probe_resp_rx;
	uint32_t qpns[3];
	unsigned int nr_qpns;
};

static const struct fake_peer fake_peers[] = {
	{
		.family = AF_INET, .addr = "10.0.2.1",
		.spraying = MRC_SPRAYING_DEFAULT, .nr_values = 72,
		.position = 5, .reorder = 16, .srtt_us = 4100,
		.base_rtt_us = 3900, .probe_tx = 12, .probe_resp_rx = 10,
		.qpns = { 3, 7 }, .nr_qpns = 2,
	},
	{
		.family = AF_INET6, .addr = "2001:db8::2",
		.spraying = MRC_SPRAYING_DEFAULT, .nr_values = 4,
		.position = 0, .reorder = 0, .srtt_us = 20, .base_rtt_us = 9,
		.probe_tx = 0, .probe_resp_rx = 0,
		.qpns = { 2 }, .nr_qpns = 1,
	},
	{
		.family = AF_INET, .addr = "10.0.2.9",
		.spraying = MRC_SPRAYING_NONE,
		.srtt_us = 7, .base_rtt_us = 6,
		.qpns = { 4 }, .nr_qpns = 1,
	},
};

/*
 * Value i of a destination's active set: port 256 + (37 i + 45) mod 128
 * (a permutation of the range), tx 40 - i % 3.  Of 10.0.2.1's, values 1
 * and 40 are bad, with probes; 3 and 10 marked to be skipped once.
 */
static void fake_peer_value(const struct fake_peer *p, uint32_t i,
			    struct mrc_peer_value *v)
{
	memset(v, 0, sizeof(*v));
	v->port = (uint16_t)(256 + (37 * i + 45) % 128);
	v->state = MRC_EV_STATE_USABLE;
	v->tx_packets = 40 - i % 3;
	if (p->nr_values != 72)
		return;
	if (i == 1 || i == 40) {
		v->state = MRC_EV_STATE_BAD;
		v->tx_packets = 12;
		v->probes_tx = 6;
		v->probes_rx = i == 1 ? 5 : 0;
	} else if (i == 3 || i == 10) {
		v->state = MRC_EV_STATE_SKIP_ONCE;
	}
}

/* As mrc_nl_put_peer(): the range, position, bad and values if spraying. */
static void fill_peer_nest(struct nlmsghdr *nlh, const struct fake_peer *p,
			   int bad)
{
	struct mrc_peer_value v[72];
	struct nlattr *nest, *qps;
	unsigned char addr[16];
	uint32_t i, nr_bad = 0;
	size_t len;

	nest = mnl_attr_nest_start(nlh, MRC_A_PEER);
	mnl_attr_put_u16(nlh, MRC_PEER_A_FAMILY, p->family);
	inet_pton(p->family, p->addr, addr);
	mnl_attr_put(nlh, MRC_PEER_A_ADDR, p->family == AF_INET ? 4 : 16,
		     addr);
	mnl_attr_put_u32(nlh, MRC_PEER_A_SPRAYING_TYPE, p->spraying);
	mnl_attr_put_u32(nlh, MRC_PEER_A_REORDER, p->reorder);
	mnl_attr_put_u32(nlh, MRC_PEER_A_SRTT_US, p->srtt_us);
	mnl_attr_put_u32(nlh, MRC_PEER_A_BASE_RTT_US, p->base_rtt_us);
	/* Padding before a u64, as nla_put_u64_64bit() may put it. */
	mnl_attr_put(nlh, MRC_PEER_A_PAD, 0, NULL);
	mnl_attr_put_u64(nlh, MRC_PEER_A_PROBE_TX, p->probe_tx);
	mnl_attr_put_u64(nlh, MRC_PEER_A_PROBE_RESP_RX, p->probe_resp_rx);
	if (p->nr_values) {
		for (i = 0; i < p->nr_values; i++) {
			fake_peer_value(p, i, &v[i]);
			nr_bad += v[i].state == MRC_EV_STATE_BAD;
		}
		mnl_attr_put_u32(nlh, MRC_PEER_A_RANGE_FIRST, 256);
		mnl_attr_put_u32(nlh, MRC_PEER_A_RANGE_SIZE, 128);
		mnl_attr_put_u32(nlh, MRC_PEER_A_POSITION, p->position);
		mnl_attr_put_u32(nlh, MRC_PEER_A_NR_BAD, nr_bad);
		len = p->nr_values * sizeof(v[0]);
		mnl_attr_put(nlh, MRC_PEER_A_VALUES, bad ? len - 1 : len, v);
	}
	qps = mnl_attr_nest_start(nlh, MRC_PEER_A_QPS);
	for (i = 0; i < p->nr_qpns; i++)
		mnl_attr_put_u32(nlh, MRC_PEER_A_QPN, p->qpns[i]);
	/* An attribute of a newer kernel, in the QPs: ignored. */
	mnl_attr_put_u32(nlh, MRC_PEER_A_MAX + 2, 42);
	mnl_attr_nest_end(nlh, qps);
	/* An attribute of a newer kernel, in the nest: ignored. */
	mnl_attr_put_u32(nlh, MRC_PEER_A_MAX + 3, 42);
	mnl_attr_nest_end(nlh, nest);
	/* And one outside it. */
	mnl_attr_put_u32(nlh, 200, 99);
}

/* MRC_CMD_PEER_GET: one NLM_F_MULTI message per destination, one a read. */
static void fake_peer_dump(const struct nlmsghdr *req)
{
	const char *m = fake_mode();
	struct genlmsghdr *genl;
	struct nlmsghdr *nlh;
	size_t i, n = ARRAY_SIZE(fake_peers);
	int intr = !strcmp(m, "peerintr") && fake_nr_dumps == 0;

	fake_nr_dumps++;
	if (!strcmp(m, "nopeer"))
		n = 0;
	for (i = 0; i < n; i++) {
		nlh = fake_put(FAKE_FAMILY, NLM_F_MULTI, req);
		if (intr)
			nlh->nlmsg_flags |= NLM_F_DUMP_INTR;
		genl = mnl_nlmsg_put_extra_header(nlh, sizeof(*genl));
		genl->cmd = MRC_CMD_PEER_GET;
		genl->version = MRC_GENL_VERSION;
		fill_peer_nest(nlh, &fake_peers[i],
			       i == 0 && !strcmp(m, "peerbad"));
		fake_end(nlh, 0);
	}
	fake_dump_done(req, 0, NULL, 1);
}

static void fake_dump(const struct nlmsghdr *req)
{
	const char *path = getenv("MRC_FAKE_DUMP");
	const struct genlmsghdr *genl = mnl_nlmsg_get_payload(req);
	const struct nlattr *attr;
	FILE *f;

	if (!path || req->nlmsg_type != FAKE_FAMILY)
		return;
	f = fopen(path, "a");
	if (!f)
		return;
	fprintf(f, "cmd %u flags %#x", genl->cmd, req->nlmsg_flags);
	mnl_attr_for_each(attr, req, sizeof(*genl)) {
		const struct nlattr *a;

		if (!(attr->nla_type & NLA_F_NESTED)) {
			fprintf(f, " %u=%u", mnl_attr_get_type(attr),
				mnl_attr_get_u32(attr));
			continue;
		}
		/* A nest: u32s as numbers, anything else by its length. */
		fprintf(f, " %u={", mnl_attr_get_type(attr));
		mnl_attr_for_each_nested(a, attr) {
			if (mnl_attr_get_payload_len(a) == 4 &&
			    mnl_attr_get_type(a) != MRC_QP_A_REMOTE_ADDR)
				fprintf(f, " %u=%u", mnl_attr_get_type(a),
					mnl_attr_get_u32(a));
			else
				fprintf(f, " %u=[%u]", mnl_attr_get_type(a),
					mnl_attr_get_payload_len(a));
		}
		fputs(" }", f);
	}
	fputc('\n', f);
	fclose(f);
}

/* Offset of the last attribute of @req. */
static int fake_last_attr(const struct nlmsghdr *req)
{
	const struct nlattr *attr;
	int off = -1;

	mnl_attr_for_each(attr, req, sizeof(struct genlmsghdr))
		off = (int)((const char *)attr - (const char *)req);
	return off;
}

/* CONFIG_SET as the kernel does it: all or nothing, ranges, the rule. */
static void fake_set_ok(const struct nlmsghdr *req)
{
	const struct nlattr *attr, *port = NULL, *bits = NULL, *bad;
	const struct mrc_config_param *p;
	struct mrc_config c;
	const char *rule;
	uint32_t v;

	fake_config_load(&c);
	mnl_attr_for_each(attr, req, sizeof(struct genlmsghdr)) {
		p = mrc_config_param_by_attr(mnl_attr_get_type(attr));
		if (!p || mnl_attr_get_payload_len(attr) != sizeof(v)) {
			fake_ack(req, EINVAL, "fake: unexpected attribute",
				 fake_offset(req, attr), 1);
			return;
		}
		v = mnl_attr_get_u32(attr);
		if ((v < p->min || v > p->max) && !strcmp(fake_mode(), "oldrange")) {
			/* mrc.ko before its policy had the ranges */
			fake_ack(req, ERANGE, p->range_msg,
				 fake_offset(req, attr), 1);
			return;
		}
		if (v < p->min || v > p->max) {
			/* the policy's check: the message names no attribute */
			uint64_t range[2] = { p->min, p->max };

			if (!strcmp(fake_mode(), "range"))
				range[1] = 12345;	/* from the kernel */
			fake_ack_range(req, ERANGE, "integer out of range",
				       fake_offset(req, attr), 1,
				       strcmp(fake_mode(), "norange") ?
				       range : NULL);
			return;
		}
		*mrc_config_field(&c, p) = v;
		if (p->attr == MRC_A_STARTING_PORT_OFFSET)
			port = attr;
		if (p->attr == MRC_A_ENTROPY_MASK_BITS)
			bits = attr;
	}
	rule = mrc_config_check(&c);
	if (rule) {
		bad = port ? port : bits;
		fake_ack(req, EINVAL, rule, bad ? fake_offset(req, bad) : -1,
			 1);
		return;
	}
	fake_config_save(&c);
	fake_ack(req, 0, NULL, -1, 1);
}

static void fake_set(const struct nlmsghdr *req)
{
	const char *m = fake_mode();

	if (!strcmp(m, "extack") || !strcmp(m, "extack-full"))
		fake_ack(req, EINVAL,
			 "EntropyMaskBits (entropy-mask-bits) must be in 0..8",
			 fake_last_attr(req), !strcmp(m, "extack"));
	else if (!strcmp(m, "noext"))
		fake_ack(req, EINVAL, NULL, fake_last_attr(req), 1);
	else if (!strcmp(m, "eperm"))
		fake_ack(req, EPERM, NULL, -1, 1);
	else
		fake_set_ok(req);
}

ssize_t mnl_socket_sendto(const struct mnl_socket *nl, const void *buf,
			  size_t len)
{
	const struct nlmsghdr *req = buf;
	const struct genlmsghdr *genl = mnl_nlmsg_get_payload(req);

	(void)nl;
	fake_out_len = 0;
	fake_nr_reads = 0;
	fake_dump(req);
	if (req->nlmsg_type == GENL_ID_CTRL) {
		if (!strcmp(fake_mode(), "nofamily")) {
			fake_ack(req, ENOENT, NULL, -1, 1);
			return (ssize_t)len;
		}
		fake_reply(req, GENL_ID_CTRL, fill_family);
	} else if ((req->nlmsg_flags & NLM_F_DUMP) == NLM_F_DUMP) {
		/* QP_GET and PEER_GET have a dumpit; others get an ack. */
		if (genl->cmd == MRC_CMD_QP_GET && strcmp(fake_mode(), "oldqp"))
			fake_qp_dump(req);
		else if (genl->cmd == MRC_CMD_PEER_GET &&
			 strcmp(fake_mode(), "oldpeer"))
			fake_peer_dump(req);
		else
			fake_ack(req, EOPNOTSUPP, NULL, -1, 1);
		return (ssize_t)len;
	} else if (genl->cmd == MRC_CMD_QP_GET) {
		if (strcmp(fake_mode(), "oldqp"))
			fake_qp_get(req);
		else
			fake_ack(req, EOPNOTSUPP, NULL, -1, 1);	/* no doit */
		return (ssize_t)len;
	} else if (genl->cmd == MRC_CMD_CONFIG_GET) {
		fake_reply(req, FAKE_FAMILY, fill_config);
	} else if (genl->cmd == MRC_CMD_STATS_GET) {
		fake_reply(req, FAKE_FAMILY, fill_stats);
	} else if (genl->cmd == MRC_CMD_CONFIG_SET) {
		fake_set(req);
		return (ssize_t)len;
	}
	fake_ack(req, 0, NULL, -1, 1);
	return (ssize_t)len;
}

/*
 * The events a monitor socket reads, in order.  Events 0 and 1 come in
 * one read; an ENOBUFS comes after event 2 (events lost); a message of
 * another command, and one without MRC_A_MON, are to be skipped.  Event
 * 5 is older than event 0, as one of another CPU may be.
 */
enum fake_mon_step {
	FAKE_MON_EVENT,
	FAKE_MON_ENOBUFS,
	FAKE_MON_OTHER_CMD,
	FAKE_MON_NO_NEST,
};

static const struct fake_mon_ev {
	enum fake_mon_step step;
	int join;		/* read with the step before */
	uint32_t event, qpn;
	uint16_t ev;
	uint32_t psn;
	const char *addr;
	uint64_t time_ns;
	int unknown_attr;	/* a newer kernel's attribute in the nest */
} fake_mon_script[] = {
	{ FAKE_MON_EVENT, 0, MRC_MON_DATA_TX, 1, 300, 1000, "192.0.2.1",
	  5000000000ULL, 0 },
	{ FAKE_MON_EVENT, 1, MRC_MON_SACK_RX, 1, 301, 990, "192.0.2.1",
	  5000001500ULL, 0 },
	{ FAKE_MON_EVENT, 0, MRC_MON_PROBE_RESP_RX, 2, 257, 12, "2001:db8::2",
	  5000250000ULL, 1 },
	{ FAKE_MON_ENOBUFS, 0, 0, 0, 0, 0, NULL, 0, 0 },
	{ FAKE_MON_EVENT, 0, 99, 2, 258, 7, "2001:db8::2", 5001000000ULL, 0 },
	{ FAKE_MON_OTHER_CMD, 0, 0, 0, 0, 0, NULL, 0, 0 },
	{ FAKE_MON_NO_NEST, 0, 0, 0, 0, 0, NULL, 0, 0 },
	{ FAKE_MON_EVENT, 0, MRC_MON_DATA_RX, 3, 49152, 0, "10.0.2.9",
	  4999999000ULL, 0 },
	{ FAKE_MON_EVENT, 0, MRC_MON_NACK_TX, 1, 302, 16777215, "192.0.2.1",
	  6234567890ULL, 0 },
};

static size_t fake_mon_pos;
/* Reads after the script's end: a loop that never ends is stopped. */
static unsigned int fake_mon_idle;

/* A notification: no sequence number, port id 0, as genetlink sends. */
static void fake_mon_msg(const struct fake_mon_ev *s)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(fake_out + fake_out_len);
	struct genlmsghdr *genl;
	unsigned char addr[16];
	struct nlattr *nest;
	uint16_t family;

	nlh->nlmsg_type = FAKE_FAMILY;
	genl = mnl_nlmsg_put_extra_header(nlh, sizeof(*genl));
	genl->cmd = s->step == FAKE_MON_OTHER_CMD ? MRC_CMD_MONITOR + 9 :
		    MRC_CMD_MONITOR;
	genl->version = MRC_GENL_VERSION;
	/* An attribute of a newer kernel, outside the nest: ignored. */
	mnl_attr_put_u32(nlh, 200, 99);
	if (s->step == FAKE_MON_EVENT || s->step == FAKE_MON_OTHER_CMD) {
		nest = mnl_attr_nest_start(nlh, MRC_A_MON);
		mnl_attr_put_u32(nlh, MRC_MON_A_EVENT, s->event);
		mnl_attr_put_u32(nlh, MRC_MON_A_QPN, s->qpn);
		mnl_attr_put_u16(nlh, MRC_MON_A_EV, s->ev);
		mnl_attr_put_u32(nlh, MRC_MON_A_PSN, s->psn);
		if (s->addr && !strcmp(fake_mode(), "monbad")) {
			mnl_attr_put(nlh, MRC_MON_A_ADDR, 5, "12345");
		} else if (s->addr) {
			family = strchr(s->addr, ':') ? AF_INET6 : AF_INET;
			inet_pton(family, s->addr, addr);
			mnl_attr_put(nlh, MRC_MON_A_ADDR,
				     family == AF_INET ? 4 : 16, addr);
		}
		/* Padding before a u64, as nla_put_u64_64bit() may put it. */
		mnl_attr_put(nlh, MRC_MON_A_PAD, 0, NULL);
		mnl_attr_put_u64(nlh, MRC_MON_A_TIME_NS, s->time_ns);
		if (s->unknown_attr)
			mnl_attr_put_u32(nlh, MRC_MON_A_MAX + 4, 42);
		mnl_attr_nest_end(nlh, nest);
	}
	fake_end(nlh, s->join);
}

/*
 * A monitor socket's next read: the script's next step; at its end
 * SIGTERM, and EAGAIN while mrc waits for it.  Not SIGINT: mrc keeps a
 * signal that was ignored when it started ignored, as SIGINT is for a
 * background job of a non-interactive shell, where make check may run.
 * Under
 * monsig SIGTERM comes with the third event instead: what follows was
 * queued before it, and is read after the group is left.
 */
static ssize_t fake_mon_recv(void *buf, size_t size)
{
	const struct fake_mon_ev *s;
	size_t len;

	if (fake_mon_pos >= ARRAY_SIZE(fake_mon_script)) {
		if (fake_mon_idle++ > 100) {
			fputs("fake: monitor: mrc never stopped\n", stderr);
			_exit(97);
		}
		if (fake_mon_idle == 1 && strcmp(fake_mode(), "monsig"))
			raise(SIGTERM);
		errno = EAGAIN;
		return -1;
	}
	s = &fake_mon_script[fake_mon_pos];
	if (s->step == FAKE_MON_ENOBUFS) {
		fake_mon_pos++;
		errno = ENOBUFS;
		return -1;
	}
	fake_out_len = 0;
	fake_nr_reads = 0;
	do
		fake_mon_msg(&fake_mon_script[fake_mon_pos++]);
	while (fake_mon_pos < ARRAY_SIZE(fake_mon_script) &&
	       fake_mon_script[fake_mon_pos].join);
	if (fake_mon_pos == 3 && !strcmp(fake_mode(), "monsig"))
		raise(SIGTERM);
	len = fake_out_len;
	if (len > size) {
		errno = ENOSPC;
		return -1;
	}
	memcpy(buf, fake_out, len);
	fake_out_len = 0;
	fake_nr_reads = 0;
	return (ssize_t)len;
}

/*
 * Hand out the answer in the reads fake_end() made: the reply and the
 * ack separately, as the kernel may; a dump's messages one or several at
 * a time.
 */
ssize_t mnl_socket_recvfrom(const struct mnl_socket *nl, void *buf,
			    size_t size)
{
	size_t len;

	(void)nl;
	if (fake_mon_started && !fake_out_len)
		return fake_mon_recv(buf, size);
	if (!fake_out_len || !fake_nr_reads) {
		errno = EAGAIN;
		return -1;
	}
	len = fake_reads[0];
	if (len > size) {
		errno = ENOSPC;
		return -1;
	}
	memcpy(buf, fake_out, len);
	fake_out_len -= len;
	memmove(fake_out, fake_out + len, fake_out_len);
	fake_nr_reads--;
	memmove(fake_reads, fake_reads + 1,
		fake_nr_reads * sizeof(fake_reads[0]));
	return (ssize_t)len;
}
