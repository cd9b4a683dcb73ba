// SPDX-License-Identifier: GPL-2.0
/*
 * A stand-in for the kernel, for make check on machines without mrc.ko:
 * LD_PRELOADed into mrc, it replaces libmnl's socket calls and answers
 * requests the way the kernel's generic netlink does.
 *
 * MRC_FAKE selects the behaviour:
 *   nofamily	CTRL_CMD_GETFAMILY fails with ENOENT
 *   ok		every request succeeds, with made-up replies
 *   extack	CONFIG_SET fails with EINVAL, a message and the offset of
 *		the last attribute, in a capped ack
 *   extack-full	the same in an uncapped ack (request echoed)
 *   noext	CONFIG_SET fails with EINVAL and only an offset
 *   eperm	CONFIG_SET fails with EPERM and nothing else
 * MRC_FAKE_DUMP names a file to append each request's genl command and
 * attributes to.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include <linux/mrc.h>

#define FAKE_FAMILY	0x42
#define FAKE_PORTID	4242

static struct mnl_socket *fake_sock = (struct mnl_socket *)&fake_sock;
static char fake_out[8192] __attribute__((aligned(8)));
static size_t fake_out_len;

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

int mnl_socket_setsockopt(const struct mnl_socket *nl, int type, void *buf,
			  socklen_t len)
{
	(void)nl; (void)type; (void)buf; (void)len;
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

static void fake_done(struct nlmsghdr *nlh)
{
	fake_out_len += NLMSG_ALIGN(nlh->nlmsg_len);
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

/* An ack; @offs < 0 for none, @capped to leave the request out. */
static void fake_ack(const struct nlmsghdr *req, int error, const char *msg,
		     int offs, int capped)
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
	fake_done(nlh);
}

static void fill_family(struct nlmsghdr *nlh)
{
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, MRC_GENL_NAME);
	mnl_attr_put_u16(nlh, CTRL_ATTR_FAMILY_ID, FAKE_FAMILY);
}

static void fill_config(struct nlmsghdr *nlh)
{
	static const uint32_t vals[] = {
		[MRC_A_SPRAYING_TYPE] = 1, [MRC_A_ENTROPY_MASK_BITS] = 7,
		[MRC_A_STARTING_PORT_OFFSET] = 256,
		[MRC_A_ACTIVE_EV_SET_SIZE] = 0, [MRC_A_PROBE_PERIOD_US] = 150,
		[MRC_A_SACK_LOSS_MIN_RETX_PKTS] = 8, [MRC_A_MSS] = 4096,
		[MRC_A_BASE_RTT_US] = 6, [MRC_A_LINK_RATE_MBPS] = 400000,
		[MRC_A_QP_GROUPS] = 0, [MRC_A_TRIMMING] = 1,
		[MRC_A_RTO_US] = 4000,
	};
	uint16_t a;

	for (a = MRC_A_SPRAYING_TYPE; a <= MRC_A_RTO_US; a++)
		mnl_attr_put_u32(nlh, a, vals[a]);
	mnl_attr_put_u64(nlh, MRC_A_BDP_BYTES, 300000);
	mnl_attr_put_u32(nlh, MRC_A_ACTIVE_SET, 72);
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
	mnl_attr_for_each(attr, req, sizeof(*genl))
		fprintf(f, " %u=%u", mnl_attr_get_type(attr),
			mnl_attr_get_u32(attr));
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
		fake_ack(req, 0, NULL, -1, 1);
}

ssize_t mnl_socket_sendto(const struct mnl_socket *nl, const void *buf,
			  size_t len)
{
	const struct nlmsghdr *req = buf;
	const struct genlmsghdr *genl = mnl_nlmsg_get_payload(req);

	(void)nl;
	fake_out_len = 0;
	fake_dump(req);
	if (req->nlmsg_type == GENL_ID_CTRL) {
		if (!strcmp(fake_mode(), "nofamily")) {
			fake_ack(req, ENOENT, NULL, -1, 1);
			return (ssize_t)len;
		}
		fake_reply(req, GENL_ID_CTRL, fill_family);
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

/* Hand out the reply and the ack in separate reads, as the kernel may. */
ssize_t mnl_socket_recvfrom(const struct mnl_socket *nl, void *buf,
			    size_t size)
{
	const struct nlmsghdr *nlh = (const struct nlmsghdr *)fake_out;
	size_t len;

	(void)nl;
	if (!fake_out_len) {
		errno = EAGAIN;
		return -1;
	}
	len = NLMSG_ALIGN(nlh->nlmsg_len);
	if (len > size) {
		errno = ENOSPC;
		return -1;
	}
	memcpy(buf, fake_out, len);
	fake_out_len -= len;
	memmove(fake_out, fake_out + len, fake_out_len);
	return (ssize_t)len;
}
