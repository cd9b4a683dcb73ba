// SPDX-License-Identifier: GPL-2.0
/*
 * mrc_trim: a packet-trimming switch port for Linux routers, as a tc BPF
 * program on a device's egress.
 *
 * A switch that trims forwards only the headers of a data packet it
 * would otherwise drop, marked with the "trimmed" codepoint, so that the
 * receiver can NACK it at once (MRC 1.0).  Linux routers do not trim; this
 * program does it to mrc data packets (UDP port 4791, opcodes
 * 0xC6..0xCB, IPv4 or IPv6) leaving the device it is attached to, on one
 * of four rules set in its configuration map (mrc_trimctl sets it):
 *
 *   every N     every Nth data packet;
 *   prob P      each data packet with probability P / 2^32;
 *   backlog B   when the queue of a link of rate R bytes/s, which the
 *               program keeps as a count of bytes drained at R since the
 *               last packet (set R to the rate of the device's own
 *               shaper, tbf or netem, so that the two queues agree),
 *               would hold more than B bytes with this packet in it.
 *   pace B      the program is the link's queue itself: it gives every
 *               packet leaving the device its departure time at rate R
 *               (EDT: the skb's delivery time, which the fq qdisc on the
 *               device keeps), mrc data packets one after the other, the
 *               rest (and the trimmed) at once, as a switch's priority
 *               class, their bytes charged to the link all the same; a
 *               data packet that would wait for more than B bytes ahead
 *               of it is trimmed.  Unlike backlog's model of a shaper's
 *               queue, nothing drifts: when the machine stalls, fq sends
 *               what is due as soon as it runs again, where a shaper
 *               (tbf) caps its tokens at its burst and its queue, grown
 *               during the stall, stays long.  A delay D adds D to
 *               every departure: the link's propagation delay, as netem
 *               would add it, but in the same queue.
 *
 * A trimmed packet keeps its IP, UDP and mrc headers and loses its
 * payload.  The mrc headers are the BTH, METH and RETH, 32 bytes; 4 more
 * with a TSETH (BTH flag 0x10), 8 more with an ITETH (flag 0x08, which
 * mrc sets on every packet: the receiver checks a trimmed packet's tags
 * before it NACKs it), 4 more with immediate data; 40 bytes from mrc.
 * Its IP and UDP lengths and checksums are made right again, and its DSCP
 * becomes the configured codepoint (12, trimmed, by default; 16,
 * trimmed on the last hop, where the program sits on the last router
 * before the receiver), its ECN bits unchanged.  Everything else passes
 * untouched, as do data packets with no payload to cut and IPv4 packets
 * with options or fragments.
 *
 * Attach: tc qdisc add dev DEV clsact
 *         (pace: tc qdisc add dev DEV root fq, too)
 *         tc filter add dev DEV egress bpf da obj mrc_trim.bpf.o sec tc
 * The maps are pinned by name (/sys/fs/bpf/tc/globals/mrc_trim_cfg and
 * mrc_trim_stats), one pair per network namespace's bpffs mount.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/pkt_cls.h>
#include <stddef.h>
#include <linux/udp.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#include "mrc_trim.h"

/* tc's own loader reads these definitions (iproute2's legacy ELF maps). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct mrc_trim_cfg);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} mrc_trim_cfg SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct mrc_trim_stats);
	__uint(pinning, LIBBPF_PIN_BY_NAME);
} mrc_trim_stats SEC(".maps");

#define MRC_UDP_PORT	4791
#define BTH_LEN		12
#define BTH_TSETH	0x10	/* BTH byte 8: a TSETH follows the METH */
#define BTH_TAGGED	0x08	/* ... an ITETH follows the RETH */
#define ITETH_LEN	8

/*
 * MRC_TRIM_PACE, under the lock: @len bytes on the link at rate, from
 * @start on (the link's time: no earlier than now, nor than the packet
 * before).
 */
static __always_inline void pace_charge(struct mrc_trim_cfg *cfg,
					struct mrc_trim_stats *st, __u64 start,
					__u32 len)
{
	st->next_ns = start + (__u64)len * 1000000000ULL / cfg->rate;
}

/*
 * Should this data packet be trimmed, by the configured rule?  With
 * MRC_TRIM_PACE, *@depart is when it is to leave if not (0: at once).
 */
static __always_inline int decide(struct mrc_trim_cfg *cfg,
				  struct mrc_trim_stats *st, __u32 len,
				  __u64 *depart)
{
	__u64 now = bpf_ktime_get_ns(), drained, start;
	__u32 r = bpf_get_prandom_u32();
	int trim = 0;

	*depart = 0;
	/* No helper may be called with the lock held. */
	bpf_spin_lock(&st->lock);
	st->data++;
	switch (cfg->rule) {
	case MRC_TRIM_EVERY:
		if (cfg->arg && ++st->n >= cfg->arg) {
			st->n = 0;
			trim = 1;
		}
		break;
	case MRC_TRIM_PROB:
		trim = r < cfg->arg;
		break;
	case MRC_TRIM_BACKLOG:
		if (st->last_ns && now > st->last_ns) {
			/* bytes/s x ns / 1e9; at most a second's worth. */
			drained = now - st->last_ns;
			if (drained > 1000000000ULL)
				drained = 1000000000ULL;
			drained = drained * cfg->rate / 1000000000ULL;
			st->queue = st->queue > drained ?
				    st->queue - drained : 0;
		}
		st->last_ns = now;
		if (st->queue + len > cfg->arg)
			trim = 1;
		else
			st->queue += len;
		break;
	case MRC_TRIM_PACE:
		if (!cfg->rate)
			break;
		start = st->next_ns > now ? st->next_ns : now;
		/* The bytes ahead of it: the wait at rate. */
		if ((start - now) * cfg->rate / 1000000000ULL + len >
		    cfg->arg) {
			/* Its headers go at once; the caller charges them. */
			trim = 1;
			break;
		}
		pace_charge(cfg, st, start, len);
		*depart = start + cfg->delay_us * 1000ULL;
		break;
	default:
		break;
	}
	if (trim)
		st->trimmed++;
	bpf_spin_unlock(&st->lock);
	return trim;
}

/*
 * The ones' complement sum of the payload about to be cut, bytes
 * [@from, @to) of @skb: whole chunks, then words, then the last bytes in
 * a word padded with zeros (which add nothing), every load of a size
 * the verifier knows.  @from is 4-byte aligned with the UDP header, so
 * the 16-bit words summed are those of the UDP checksum.  -1 if it
 * cannot be read.
 */
#define CHUNK	256
static __always_inline __s64 payload_sum(struct __sk_buff *skb, __u32 from,
					 __u32 to)
{
	__u8 buf[CHUNK], b[4];
	__s64 sum = 0;
	__u32 i;

	/* 9 KB jumbo frames at most: 36 chunks. */
	for (i = 0; i < 40 && to - from >= CHUNK && from < to; i++) {
		if (bpf_skb_load_bytes(skb, from, buf, CHUNK))
			return -1;
		sum = bpf_csum_diff(0, 0, (__be32 *)buf, CHUNK, sum);
		if (sum < 0)
			return -1;
		from += CHUNK;
	}
	for (i = 0; i < CHUNK / 4 && to - from >= 4 && from < to; i++) {
		if (bpf_skb_load_bytes(skb, from, b, 4))
			return -1;
		sum = bpf_csum_diff(0, 0, (__be32 *)b, 4, sum);
		if (sum < 0)
			return -1;
		from += 4;
	}
	if (from > to || to - from >= 4)
		return -1;
	__builtin_memset(b, 0, sizeof(b));
	if (to - from > 0 && bpf_skb_load_bytes(skb, from, &b[0], 1))
		return -1;
	if (to - from > 1 && bpf_skb_load_bytes(skb, from + 1, &b[1], 1))
		return -1;
	if (to - from > 2 && bpf_skb_load_bytes(skb, from + 2, &b[2], 1))
		return -1;
	return bpf_csum_diff(0, 0, (__be32 *)b, 4, sum);
}

/*
 * Cut @skb to @keep bytes and mend it: lengths, the DSCP, and the
 * checksums, with the csum helpers so that a packet whose UDP checksum
 * the device will finish (CHECKSUM_PARTIAL: the field holds only the
 * pseudo-header's sum) and one already summed in full both come out
 * right.  The payload's share of a full sum is taken out by difference;
 * where the checksum is left to the device, that difference and the UDP
 * header's own length are no concern of the field, and the helpers
 * leave it alone.
 */
static __always_inline int rewrite(struct __sk_buff *skb, int v6, __u32 l3,
				   __u32 l4, __u32 keep, __u8 dscp)
{
	__u32 csum_off = l4 + offsetof(struct udphdr, check);
	__u64 mangled0 = v6 ? 0 : BPF_F_MARK_MANGLED_0;
	__be16 olen, nlen, ow, nw;
	__s64 psum;

	psum = payload_sum(skb, keep, skb->len);
	if (psum < 0)
		return -1;
	if (bpf_skb_load_bytes(skb, l4 + offsetof(struct udphdr, len), &olen,
			       sizeof(olen)))
		return -1;
	if (bpf_skb_change_tail(skb, keep, 0))
		return -1;
	nlen = bpf_htons(keep - l4);
	/* The payload out of a full sum: add its complement. */
	if (bpf_l4_csum_replace(skb, csum_off, 0, ~(__u32)psum,
				mangled0))
		return -1;
	/* The UDP length, in the header and in the pseudo-header. */
	if (bpf_skb_store_bytes(skb, l4 + offsetof(struct udphdr, len), &nlen,
				sizeof(nlen), 0) ||
	    bpf_l4_csum_replace(skb, csum_off, olen, nlen,
				mangled0 | sizeof(nlen)) ||
	    bpf_l4_csum_replace(skb, csum_off, olen, nlen, mangled0 |
				BPF_F_PSEUDO_HDR | sizeof(nlen)))
		return -1;
	if (!v6) {
		__u32 tot = l3 + offsetof(struct iphdr, tot_len);
		__be16 otot, ntot = bpf_htons(keep - l3);

		/* tos shares a 16-bit word with version and ihl. */
		if (bpf_skb_load_bytes(skb, l3, &ow, sizeof(ow)) ||
		    bpf_skb_load_bytes(skb, tot, &otot, sizeof(otot)))
			return -1;
		nw = bpf_htons((bpf_ntohs(ow) & 0xff03) | (dscp << 2));
		if (bpf_skb_store_bytes(skb, l3, &nw, sizeof(nw), 0) ||
		    bpf_skb_store_bytes(skb, tot, &ntot, sizeof(ntot), 0) ||
		    bpf_l3_csum_replace(skb, l3 + offsetof(struct iphdr, check),
					ow, nw, sizeof(nw)) ||
		    bpf_l3_csum_replace(skb, l3 + offsetof(struct iphdr, check),
					otot, ntot, sizeof(ntot)))
			return -1;
		return 0;
	}
	/* IPv6: traffic class across the first two bytes; no IP sum. */
	nlen = bpf_htons(keep - l4);
	if (bpf_skb_load_bytes(skb, l3, &ow, sizeof(ow)))
		return -1;
	nw = bpf_htons((bpf_ntohs(ow) & 0xf03f) | ((__u16)dscp << 6));
	if (bpf_skb_store_bytes(skb, l3, &nw, sizeof(nw), 0) ||
	    bpf_skb_store_bytes(skb, l3 + offsetof(struct ipv6hdr, payload_len),
				&nlen, sizeof(nlen), 0))
		return -1;
	return 0;
}

/*
 * MRC_TRIM_PACE: a packet of @len bytes that leaves at once (not a data
 * packet, or one trimmed): stamped now, its bytes charged to the link
 * behind whatever is queued.  0, or what bpf_skb_set_tstamp() said.
 */
static __always_inline long pace_now(struct __sk_buff *skb,
				     struct mrc_trim_cfg *cfg,
				     struct mrc_trim_stats *st, __u32 len)
{
	__u64 now = bpf_ktime_get_ns();

	if (cfg->rule != MRC_TRIM_PACE || !cfg->rate)
		return 0;
	bpf_spin_lock(&st->lock);
	pace_charge(cfg, st, st->next_ns > now ? st->next_ns : now, len);
	bpf_spin_unlock(&st->lock);
	/* Another flow for fq than its own, whose data may wait: fq holds
	 * back a whole flow until its head's time, and one stamped now
	 * would wait behind it.  fq keys a packet of no socket, or of an
	 * unconnected one, by its hash.
	 */
	bpf_set_hash(skb, bpf_get_hash_recalc(skb) ^ 1);
	/* Not left to a stamp the skb came with: fq would take one of
	 * the wrong clock for a time far ahead.
	 */
	return bpf_skb_set_tstamp(skb, now + cfg->delay_us * 1000ULL,
				  BPF_SKB_TSTAMP_DELIVERY_MONO);
}

/* The rule's verdict on @skb, an IPv4 or IPv6 packet or not. */
static __always_inline int trim_skb(struct __sk_buff *skb,
				    struct mrc_trim_cfg *cfg,
				    struct mrc_trim_stats *st, __u64 *depart)
{
	__u32 l3, l4, hlen, keep;
	__u8 bth[BTH_LEN];
	struct udphdr uh;
	int v6 = 0, trim;

	*depart = 0;
	l3 = sizeof(struct ethhdr);
	if (skb->protocol == bpf_htons(ETH_P_IP)) {
		struct iphdr ip;

		if (bpf_skb_load_bytes(skb, l3, &ip, sizeof(ip)))
			return TC_ACT_OK;
		if (ip.ihl != 5 || ip.protocol != IPPROTO_UDP ||
		    (ip.frag_off & bpf_htons(0x3fff)))
			return TC_ACT_OK;
		l4 = l3 + sizeof(ip);
	} else if (skb->protocol == bpf_htons(ETH_P_IPV6)) {
		struct ipv6hdr ip6;

		if (bpf_skb_load_bytes(skb, l3, &ip6, sizeof(ip6)))
			return TC_ACT_OK;
		if (ip6.nexthdr != IPPROTO_UDP)
			return TC_ACT_OK;
		l4 = l3 + sizeof(ip6);
		v6 = 1;
	} else {
		return TC_ACT_OK;
	}
	if (bpf_skb_load_bytes(skb, l4, &uh, sizeof(uh)) ||
	    uh.dest != bpf_htons(MRC_UDP_PORT) ||
	    bpf_skb_load_bytes(skb, l4 + sizeof(uh), bth, sizeof(bth)))
		return TC_ACT_OK;
	if (bth[0] < 0xc6 || bth[0] > 0xcb || (bth[1] & 0x0f))
		return TC_ACT_OK;
	/* BTH, METH, [TSETH], RETH, [ITETH], [immediate] */
	hlen = BTH_LEN + 4 + 16;
	if (bth[8] & BTH_TSETH)
		hlen += 4;
	if (bth[8] & BTH_TAGGED)
		hlen += ITETH_LEN;
	if (bth[0] == 0xc9 || bth[0] == 0xcb)
		hlen += 4;
	keep = l4 + sizeof(uh) + hlen;
	if (skb->len <= keep)
		return TC_ACT_OK;

	trim = decide(cfg, st, skb->len, depart);
	if (!trim)
		return TC_ACT_OK;
	if (rewrite(skb, v6, l3, l4, keep, cfg->dscp))
		goto fail;
	return TC_ACT_OK;
fail:
	/* A packet half rewritten is worse than none: a switch drops it. */
	bpf_spin_lock(&st->lock);
	st->failed++;
	bpf_spin_unlock(&st->lock);
	return TC_ACT_SHOT;
}

SEC("tc")
int mrc_trim(struct __sk_buff *skb)
{
	struct mrc_trim_cfg *cfg;
	struct mrc_trim_stats *st;
	__u64 depart;
	__u32 key = 0;
	int ret;

	cfg = bpf_map_lookup_elem(&mrc_trim_cfg, &key);
	st = bpf_map_lookup_elem(&mrc_trim_stats, &key);
	if (!cfg || !st || cfg->rule == MRC_TRIM_OFF)
		return TC_ACT_OK;
	ret = trim_skb(skb, cfg, st, &depart);
	if (ret != TC_ACT_OK || cfg->rule != MRC_TRIM_PACE)
		return ret;
	/* A packet not IPv4 nor IPv6 cannot be stamped: it goes at once. */
	if (depart)
		bpf_skb_set_tstamp(skb, depart, BPF_SKB_TSTAMP_DELIVERY_MONO);
	else
		pace_now(skb, cfg, st, skb->len);
	return TC_ACT_OK;
}

char _license[] SEC("license") = "GPL";
