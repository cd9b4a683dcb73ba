/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * mrc: Multipath Reliable Connection transport over UDP port 4791.
 *
 * This header is the whole userspace ABI of mrc.ko.
 *
 * Generic netlink family "mrc" (MRC_GENL_NAME), version MRC_GENL_VERSION.
 * The family is netns-aware: every command acts on the network namespace
 * of the requesting socket.
 *
 * Every request is validated strictly: the genetlink header's reserved
 * field must be 0, nothing may follow the last attribute, and an
 * attribute the command does not take, of an unknown type or of the
 * wrong length is refused with -EINVAL and an extended ack pointing at
 * it.  Commands below that take no attributes refuse any.
 *
 * MRC_CMD_CONFIG_GET (doit, any user in the netns)
 *   Request: no attributes.
 *   Reply:   every configuration attribute below, plus the read-only
 *            attributes derived from them.
 *
 * MRC_CMD_CONFIG_SET (doit, CAP_NET_ADMIN in the netns's user namespace)
 *   Request: any subset of the writable configuration attributes.
 *   The set is applied as a whole or not at all: nothing changes if
 *   - an attribute is out of its range: -ERANGE from the family's policy,
 *     the extended ack pointing at the attribute (NLMSGERR_ATTR_OFFS)
 *     and giving its range (NLMSGERR_ATTR_POLICY, the netlink core's
 *     NL_POLICY_TYPE_ATTR_MIN_VALUE_U and _MAX_VALUE_U);
 *   - the result would break a rule between attributes: -EINVAL, the
 *     extended ack's message naming the rule, the offending attribute
 *     pointed at.
 *   Reply:   none (an ack).
 *
 * MRC_CMD_STATS_GET (doit, any user in the netns)
 *   Request: no attributes.
 *   Reply:   MRC_A_STATS, a nest of MRC_STAT_* u64 counters for the netns.
 *
 * MRC_CMD_QP_GET (doit and dumpit, any user in the netns)
 *   Request: nothing, or an MRC_A_QP nest that selects queue pairs:
 *            MRC_QP_A_QPN (u32, 1..2^24 - 1) and/or MRC_QP_A_REMOTE_ADDR
 *            (4 or 16 bytes; an IPv4 address also matches its v4-mapped
 *            form), both to match when both are given; no other
 *            attribute.
 *   Doit:    needs MRC_QP_A_QPN: one reply, an MRC_A_QP nest as below,
 *            or -ENOENT ("no queue pair with this number") with the
 *            extended ack pointing at MRC_QP_A_QPN.
 *   Dump:    one message per open queue pair the request selects (every
 *            one without the nest), in QP number order, each
 *            an MRC_A_QP nest of MRC_QP_A_* attributes, its MRC_QP_A_STATS
 *            nest holding the same MRC_STAT_* counters for that queue pair
 *            alone.  A dump resumes after the last QP number it gave, so
 *            none is given twice; if queue pairs were opened or closed
 *            while it ran, its messages from then on (NLMSG_DONE at
 *            least) carry NLM_F_DUMP_INTR: dump again for a consistent
 *            list.
 *
 * MRC_CMD_PEER_GET (dumpit, any user in the netns)
 *   Request: no attributes.
 *   Reply:   one message per destination state ("peer": the spraying
 *            state every queue pair to one remote address shares), each
 *            an MRC_A_PEER nest of MRC_PEER_A_* attributes.
 *
 * MRC_CMD_MONITOR (notification, multicast group MRC_MCGRP_MONITOR)
 *   Never requested: while some socket of the netns listens to the group,
 *   each packet event (enum mrc_mon_event) is sent to it as one message
 *   holding an MRC_A_MON nest of MRC_MON_A_* attributes, the spec's
 *   mrc-monitor record.  At most MRC_MON_PER_SEC a second per netns; the
 *   rest, and whatever a full listener misses, is counted in
 *   MRC_STAT_MONITOR_DROPS, never waited for.  The same events are the
 *   tracepoint mrc:mrc_pkt.
 *
 * Configuration attributes (all NLA_U32; the names in brackets are the
 * spec's attribute names and the CLI's keys):
 *
 *   MRC_A_SPRAYING_TYPE          [PacketSprayingType, spraying]
 *        enum mrc_spraying_type; default MRC_SPRAYING_DEFAULT.
 *   MRC_A_ENTROPY_MASK_BITS      [EntropyMaskBits, entropy-mask-bits]
 *        0..8, default 7: the entropy range has 2^bits UDP source ports.
 *   MRC_A_STARTING_PORT_OFFSET   [StartingPortOffset, starting-port-offset]
 *        0..65535, default 256: first port of the entropy range.
 *        Rule: StartingPortOffset + 2^EntropyMaskBits - 1 <= 65535.
 *   MRC_A_ACTIVE_EV_SET_SIZE     [ActiveEVSetSize, active-ev-set-size]
 *        0..65536, default 0: 0 sizes the active set to one
 *        bandwidth-delay product of packets, capped at 100.
 *   MRC_A_PROBE_PERIOD_US        [ReliabilityProbePeriod, probe-period]
 *        1..1000000 microseconds, default 150.
 *   MRC_A_SACK_LOSS_MIN_RETX_PKTS [SACKLossMinRetxPkts,
 *        sack-loss-min-retx-pkts] 1..65535, default 8.
 *   MRC_A_MSS                    [MSS, mss] 64..65000 bytes, default 4096.
 *   MRC_A_BASE_RTT_US            [ConfigBaseRTT, base-rtt]
 *        1..1000000 microseconds, default 6.
 *   MRC_A_LINK_RATE_MBPS         [link rate, link-rate]
 *        1..10000000 Mbit/s, default 400000 (400 Gbit/s).
 *   MRC_A_QP_GROUPS              [QPGroupsEnabled, qp-groups] 0..1, default 0.
 *   MRC_A_TRIMMING               [TrimmingEnabled, trimming] 0..1, default 1.
 *   MRC_A_RTO_US                 [retransmission timeout, rto]
 *        100..10000000 microseconds, default 4000.
 *   MRC_A_MAX_MSG_SIZE           [maximum message size, max-msg-size]
 *        1..1073741824 bytes, default 67108864 (64 MiB): the largest
 *        message a socket sends or accepts.
 *   MRC_A_RETRY_LIMIT            [retry limit, retry-limit]
 *        1..255, default 7: retransmission timeouts in a row, without
 *        progress, after which a queue pair fails with ETIMEDOUT.
 *   MRC_A_LISTEN                 [listen, listen] 0..1, default 0: keep
 *        the namespace's UDP/4791 sockets open while no mrc socket is,
 *        so that probes are answered and data for a port no socket holds
 *        is refused with a NACK.  Otherwise the sockets open with the
 *        namespace's first mrc socket and close after its last, and port
 *        4791 stays free for others (rdma_rxe, say) while mrc is unused.
 *        Setting it opens the port: -EADDRINUSE, with an extended ack
 *        message, if another socket holds it.
 *   MRC_A_DSCP_NO_TRIM           [no-trim class, dscp-no-trim] 0..63,
 *        default 0: the DSCP of data packets, retransmissions and probes
 *        while trimming is off.
 *   MRC_A_DSCP_TRIMMABLE         [trimmable class, dscp-trimmable]
 *        0..63, default 4: data packets and probes while trimming is on.
 *   MRC_A_DSCP_TRIMMABLE_RTX     [trimmable retransmission class,
 *        dscp-trimmable-rtx] 0..63, default 8: retransmissions while
 *        trimming is on.
 *   MRC_A_DSCP_TRIMMED           [trimmed class, dscp-trimmed] 0..63,
 *        default 12: the codepoint a switch gives a data packet it
 *        trimmed on the way; the receiver answers it with NACK 0x01.
 *   MRC_A_DSCP_TRIMMED_LAST_HOP  [trimmed-on-last-hop class,
 *        dscp-trimmed-last-hop] 0..63, default 16: ... trimmed at the
 *        last hop; answered with NACK 0x02.
 *   MRC_A_DSCP_CONTROL           [control class, dscp-control] 0..63,
 *        default 46: ACKs, SACKs, NACKs and probe responses.
 *        The two trimmed codepoints must differ from each other and from
 *        the four classes mrc sends in.
 *   MRC_A_ECN_SKIP               [ecn-skip, ecn-skip] 0..1, default 0:
 *        the receiver marks the SACK of a CE-marked data packet
 *        skip-once, so that its sender passes over that packet's entropy
 *        value once, as after a trim (MRC 1.0's emulator; not the spec).
 *
 * Read-only attributes (CONFIG_GET replies; rejected in CONFIG_SET):
 *
 *   MRC_A_BDP_BYTES              NLA_U64: link rate x ConfigBaseRTT / 8.
 *   MRC_A_ACTIVE_SET             NLA_U32: the active set size a new
 *        destination gets under the current configuration (72 at the
 *        defaults).
 *
 * Socket API (queue pairs and messages; see mrc(7)):
 *   socket(AF_INET or AF_INET6, SOCK_DGRAM, IPPROTO_MRC); options at
 *   level SOL_MRC.  bind() takes a port (0 picks one), sendmsg() sends one
 *   whole message of 0..max-msg-size bytes, recvmsg() returns one whole
 *   message and its sender's address and port.
 */
#ifndef _UAPI_LINUX_MRC_H
#define _UAPI_LINUX_MRC_H

#include <linux/types.h>

#define MRC_GENL_NAME		"mrc"
#define MRC_GENL_VERSION	1
/* The multicast group of monitor events. */
#define MRC_MCGRP_MONITOR	"monitor"
/* Monitor events a namespace sends per second at most. */
#define MRC_MON_PER_SEC		20000

/* The UDP destination port of every mrc packet. */
#define MRC_UDP_PORT		4791

/* Protocol number of the message socket (from the experimental range). */
#define IPPROTO_MRC		253
/* Socket option level. */
#define SOL_MRC			288

/*
 * Socket options at level SOL_MRC:
 *
 * MRC_SO_UDP_SPORT (int, 0..65535): the UDP source port, the entropy value
 *   under spraying type None, of queue pairs this socket opens from now on;
 *   0, the default, lets mrc pick one at random from the namespace's
 *   ip_local_port_range.  Under Default Packet Spraying packets take the
 *   destination's entropy values instead.
 */
#define MRC_SO_UDP_SPORT	1

enum mrc_spraying_type {
	MRC_SPRAYING_NONE	= 0,
	MRC_SPRAYING_DEFAULT	= 1,
};

enum mrc_cmd {
	MRC_CMD_UNSPEC,
	MRC_CMD_CONFIG_GET,
	MRC_CMD_CONFIG_SET,
	MRC_CMD_STATS_GET,
	MRC_CMD_QP_GET,
	MRC_CMD_PEER_GET,
	MRC_CMD_MONITOR,

	__MRC_CMD_MAX,
};

#define MRC_CMD_MAX (__MRC_CMD_MAX - 1)

enum mrc_attr {
	MRC_A_UNSPEC,
	MRC_A_PAD,
	MRC_A_SPRAYING_TYPE,
	MRC_A_ENTROPY_MASK_BITS,
	MRC_A_STARTING_PORT_OFFSET,
	MRC_A_ACTIVE_EV_SET_SIZE,
	MRC_A_PROBE_PERIOD_US,
	MRC_A_SACK_LOSS_MIN_RETX_PKTS,
	MRC_A_MSS,
	MRC_A_BASE_RTT_US,
	MRC_A_LINK_RATE_MBPS,
	MRC_A_QP_GROUPS,
	MRC_A_TRIMMING,
	MRC_A_RTO_US,
	MRC_A_BDP_BYTES,
	MRC_A_ACTIVE_SET,
	MRC_A_STATS,
	MRC_A_MAX_MSG_SIZE,
	MRC_A_RETRY_LIMIT,
	MRC_A_QP,
	MRC_A_PEER,
	MRC_A_MON,
	MRC_A_LISTEN,
	MRC_A_DSCP_NO_TRIM,
	MRC_A_DSCP_TRIMMABLE,
	MRC_A_DSCP_TRIMMABLE_RTX,
	MRC_A_DSCP_TRIMMED,
	MRC_A_DSCP_TRIMMED_LAST_HOP,
	MRC_A_DSCP_CONTROL,
	MRC_A_ECN_SKIP,

	__MRC_A_MAX,
};

#define MRC_A_MAX (__MRC_A_MAX - 1)

/*
 * Counters in the MRC_A_STATS nest, each NLA_U64, per network namespace.
 * rx_* count packets that reached the UDP/4791 sockets; rx_drop_* count
 * why a received packet was dropped.
 */
enum mrc_stat {
	MRC_STAT_UNSPEC,
	MRC_STAT_PAD,
	MRC_STAT_RX_PACKETS,		/* every packet handed to mrc */
	MRC_STAT_RX_BYTES,		/* UDP payload bytes of those */
	MRC_STAT_RX_DROP_SHORT,		/* shorter than its headers */
	MRC_STAT_RX_DROP_BAD_VERSION,	/* BTH transport version not 0 */
	MRC_STAT_RX_DROP_BAD_OPCODE,	/* opcode mrc does not know */
	MRC_STAT_RX_DROP_NO_QP,		/* valid, but no socket bound to its
					 * port, or no queue pair for feedback
					 */
	MRC_STAT_RX_DROP_MALFORMED,	/* fields that contradict each other */
	MRC_STAT_RX_DROP_OUT_OF_WINDOW,	/* PSN or message outside the window,
					 * or from a closed QP incarnation
					 */
	MRC_STAT_RX_DROP_NO_MEM,	/* receive buffer full or no memory */
	MRC_STAT_RX_DUP_PACKETS,	/* data already received, discarded */
	MRC_STAT_TX_PACKETS,		/* every packet sent */
	MRC_STAT_TX_BYTES,		/* UDP payload bytes of those */
	MRC_STAT_TX_DATA_PACKETS,	/* data packets, retransmissions too */
	MRC_STAT_RX_DATA_PACKETS,	/* data packets accepted */
	MRC_STAT_TX_MSGS,		/* messages fully acknowledged */
	MRC_STAT_RX_MSGS,		/* messages completed for the reader */
	MRC_STAT_RTX_SACK,		/* retransmissions a SACK gap caused */
	MRC_STAT_RTX_TIMEOUT,		/* retransmissions a timeout caused */
	MRC_STAT_TIMEOUTS,		/* retransmission timeouts */
	MRC_STAT_ACK_TX,
	MRC_STAT_ACK_RX,
	MRC_STAT_SACK_TX,
	MRC_STAT_SACK_RX,
	MRC_STAT_NACK_TX,
	MRC_STAT_NACK_RX,
	MRC_STAT_OOO_EVENTS,		/* data ahead of the next expected PSN */
	MRC_STAT_REORDER_DEPTH_SUM,	/* PSNs held out of order, summed over
					 * those events
					 */
	MRC_STAT_CALC_MEAN_REORDER_DEPTH, /* sum / events, rounded down */
	MRC_STAT_CALC_MAX_REORDER_DEPTH,  /* largest PSNs held out of order */
	MRC_STAT_QP_OPENED,
	MRC_STAT_QP_CLOSED,
	MRC_STAT_QP_FAILED,		/* QPs whose sending side failed */
	MRC_STAT_TX_ERRORS,		/* no route, or the stack refused */
	MRC_STAT_PROBE_TX,		/* total_probe_pkts_tx: probes sent */
	MRC_STAT_PROBE_RX,		/* total_probe_pkts_rx: probes taken */
	MRC_STAT_PROBE_RESP_TX,		/* probe responses sent */
	MRC_STAT_PROBE_RESP_RX,		/* probe responses taken */
	MRC_STAT_SKIP_MARKED,		/* values marked to be passed over */
	MRC_STAT_SKIP_CLEARED,		/* ... passed over, mark cleared */
	MRC_STAT_EV_BAD,		/* values assumed bad after a timeout */
	MRC_STAT_EV_RESTORED,		/* ... back by a probe's response */
	MRC_STAT_PEER_OPENED,		/* destination states created */
	MRC_STAT_PEER_CLOSED,		/* ... freed, their last QP closed */
	MRC_STAT_MONITOR_EVENTS,	/* events sent to monitor listeners */
	MRC_STAT_MONITOR_DROPS,		/* ... not sent: over the rate limit,
					 * no memory, or a listener's buffer
					 * full
					 */
	MRC_STAT_PROBE_SKIP_QUEUE_STOPPED, /* probes not sent: every transmit
					    * queue of their egress device
					    * was stopped
					    */
	MRC_STAT_ACK_DELAYED_TX,	/* SACKs the delayed-ack timer sent */
	MRC_STAT_ICMP_TOO_BIG,		/* ICMP "fragmentation needed" or
					 * "packet too big" for a data packet
					 * in flight: packets cut smaller
					 */
	MRC_STAT_ICMP_UNREACH,		/* ICMP port or protocol unreachable
					 * for a data packet in flight: the
					 * QP failed with ECONNREFUSED
					 */
	MRC_STAT_ICMP_IGNORED,		/* ICMP errors quoting an mrc packet
					 * that is not in flight (stale or
					 * forged), or saying nothing mrc
					 * acts on
					 */
	MRC_STAT_RTX_MTU,		/* retransmissions of packets too
					 * large for the path, after an ICMP
					 * error said so
					 */
	MRC_STAT_RX_EVICTED,		/* partial messages dropped: their
					 * sender went silent with room for
					 * it while room was short or the
					 * QP table full; or went with their
					 * evicted QP
					 */
	MRC_STAT_UDP_SOCKETS,		/* UDP/4791 sockets open now: 0 while
					 * nothing uses mrc in the namespace,
					 * else 2 (1 without IPv6); a value,
					 * not a count
					 */
	MRC_STAT_RX_DROP_FILTER,	/* data a socket's filter, its
					 * cgroup's ingress BPF or the LSM
					 * refused
					 */
	MRC_STAT_RX_TRIMMED,		/* data packets trimmed by a switch
					 * (a trimmed codepoint): nothing
					 * placed; answered with a trim NACK,
					 * or refused as any data is
					 */
	MRC_STAT_ECN_SKIP_TX,		/* SACKs marked skip-once for a
					 * CE-marked packet (ecn-skip)
					 */
	MRC_STAT_RX_DROP_NO_START,	/* data for no queue pair that could
					 * not start an incarnation (no start
					 * flag, or beyond the first window):
					 * nothing allocated for it
					 */
	MRC_STAT_RX_DROP_ADDR_LIMIT,	/* data that would have opened a
					 * queue pair for a source (IPv4
					 * address, IPv6 /64) whose packets
					 * opened 64 of the namespace's
					 */
	MRC_STAT_RX_DROP_QP_LIMIT,	/* data that would have opened a
					 * queue pair with the socket's (or
					 * namespace's) table full and none
					 * of the socket's idle enough to go
					 */
	MRC_STAT_QP_EVICTED,		/* queue pairs closed, idle, never
					 * answered and receiving no message
					 * beyond its first packet (unless
					 * its sender stalled once), to make
					 * room for a new peer when the table
					 * was full
					 */
	MRC_STAT_TX_AMP_LIMITED,	/* times a queue pair a peer's packet
					 * opened held data back: it sends
					 * that peer at most 3 times the bytes
					 * it received from it until the peer
					 * acknowledges data of ours
					 */
	MRC_STAT_RX_DROP_PROTO_MEM,	/* data packets refused (NACK "no
					 * buffer") by the protocol's memory
					 * limits, net.mrc.mem: beyond its
					 * hard limit, or under pressure for
					 * a message not next in order
					 */
	MRC_STAT_RX_DROP_BAD_TAG,	/* packets to a queue pair whose
					 * incarnation tags were not its own
					 * (an acknowledgment not echoing its
					 * tag, data not from its peer's):
					 * forged, or of an incarnation gone
					 */
	MRC_STAT_RX_DROP_BLIND_RESET,	/* data that would start a new
					 * incarnation of the peer, with a tag
					 * of its own and not echoing the
					 * queue pair's: challenged (NACK
					 * 0x1A), taken only once echoed
					 */
	MRC_STAT_QP_REINCARNATED,	/* new incarnations of a peer taken,
					 * proven by the echo of the queue
					 * pair's tag: a restarted peer
					 */
	MRC_STAT_RTO_DEFERRED,		/* retransmission timers that ran out
					 * while the peer acknowledged data
					 * and every packet out had been sent
					 * less than an RTO before: waited
					 * for the oldest, no timeout
					 */
	MRC_STAT_SACK_BEYOND_TX,	/* SACKs sent at once for a data
					 * packet 64 PSNs or more above the
					 * next expected, beyond the bitmap,
					 * that nothing else acknowledged at
					 * once (also in sack_tx)
					 */

	__MRC_STAT_MAX,
};

#define MRC_STAT_MAX (__MRC_STAT_MAX - 1)

enum mrc_qp_state {
	MRC_QP_STATE_OPEN,		/* sending and receiving */
	MRC_QP_STATE_FAILED,		/* retry limit reached */
};

/* Attributes in an MRC_A_QP nest. */
enum mrc_qp_attr {
	MRC_QP_A_UNSPEC,
	MRC_QP_A_PAD,
	MRC_QP_A_QPN,			/* u32: local QP number */
	MRC_QP_A_FAMILY,		/* u16: AF_INET or AF_INET6 */
	MRC_QP_A_LOCAL_PORT,		/* u16: the socket's mrc port */
	MRC_QP_A_REMOTE_ADDR,		/* binary: 4 or 16 bytes */
	MRC_QP_A_REMOTE_PORT,		/* u16: the peer socket's mrc port */
	MRC_QP_A_UDP_SPORT,		/* u16: the QP's own UDP source port */
	MRC_QP_A_STATE,			/* u32: enum mrc_qp_state */
	MRC_QP_A_SND_NXT,		/* u32: next PSN to send */
	MRC_QP_A_SND_UNA,		/* u32: oldest PSN not acknowledged */
	MRC_QP_A_RCV_NXT,		/* u32: next PSN expected */
	MRC_QP_A_CWND,			/* u32: congestion window, bytes */
	MRC_QP_A_INFLIGHT,		/* u32: bytes sent, not acknowledged */
	MRC_QP_A_SRTT_US,		/* u32: smoothed RTT */
	MRC_QP_A_BASE_RTT_US,		/* u32: lowest RTT seen */
	MRC_QP_A_TX_QUEUED,		/* u32: messages not yet acknowledged */
	MRC_QP_A_RX_PENDING,		/* u32: messages being received */
	MRC_QP_A_STATS,			/* nest of MRC_STAT_* u64 */
	MRC_QP_A_REORDER,		/* u32: SACK gap depth taken as
					 * reordering (PSNs)
					 */
	MRC_QP_A_RTO_US,		/* u32: retransmission timeout */
	MRC_QP_A_LOCAL_ADDR,		/* binary: 4 or 16 bytes, the
					 * address the QP sends from and
					 * receives at; all zeros for any
					 */

	__MRC_QP_A_MAX,
};

#define MRC_QP_A_MAX (__MRC_QP_A_MAX - 1)

/* Attributes in an MRC_A_PEER nest. */
enum mrc_peer_attr {
	MRC_PEER_A_UNSPEC,
	MRC_PEER_A_PAD,
	MRC_PEER_A_FAMILY,		/* u16: AF_INET or AF_INET6 */
	MRC_PEER_A_ADDR,		/* binary: 4 or 16 bytes */
	MRC_PEER_A_SPRAYING_TYPE,	/* u32: enum mrc_spraying_type, fixed
					 * when the state was created
					 */
	MRC_PEER_A_RANGE_FIRST,		/* u32: first port of the range */
	MRC_PEER_A_RANGE_SIZE,		/* u32: ports in the range */
	MRC_PEER_A_POSITION,		/* u32: index in the active set of the
					 * value the rotation offers next
					 */
	MRC_PEER_A_NR_BAD,		/* u32: values assumed bad */
	MRC_PEER_A_VALUES,		/* binary: struct mrc_peer_value for
					 * each value of the active set, in
					 * rotation order
					 */
	MRC_PEER_A_QPS,			/* nest of MRC_PEER_A_QPN */
	MRC_PEER_A_QPN,			/* u32: a queue pair sharing it */
	MRC_PEER_A_REORDER,		/* u32: reordering depth learnt */
	MRC_PEER_A_SRTT_US,		/* u32: smoothed RTT learnt */
	MRC_PEER_A_BASE_RTT_US,		/* u32: lowest RTT seen, probes too */
	MRC_PEER_A_PROBE_TX,		/* u64: probes sent to it */
	MRC_PEER_A_PROBE_RESP_RX,	/* u64: their responses taken */

	__MRC_PEER_A_MAX,
};

#define MRC_PEER_A_MAX (__MRC_PEER_A_MAX - 1)

/* Packet events, in MRC_MON_A_EVENT and the mrc_pkt tracepoint. */
enum mrc_mon_event {
	MRC_MON_DATA_TX,		/* a data packet's first transmission */
	MRC_MON_DATA_RTX,		/* ... a retransmission */
	MRC_MON_DATA_RX,		/* ... accepted (placed) */
	MRC_MON_ACK_TX,
	MRC_MON_ACK_RX,
	MRC_MON_SACK_TX,
	MRC_MON_SACK_RX,
	MRC_MON_NACK_TX,
	MRC_MON_NACK_RX,
	MRC_MON_PROBE_TX,
	MRC_MON_PROBE_RX,
	MRC_MON_PROBE_RESP_TX,
	MRC_MON_PROBE_RESP_RX,

	__MRC_MON_MAX,
};

/* Attributes in an MRC_A_MON nest. */
enum mrc_mon_attr {
	MRC_MON_A_UNSPEC,
	MRC_MON_A_PAD,
	MRC_MON_A_EVENT,		/* u32: enum mrc_mon_event */
	MRC_MON_A_QPN,			/* u32: the local queue pair */
	MRC_MON_A_EV,			/* u16: the entropy value: sent on
					 * (data, ACK, probe), carried back
					 * (SACK, NACK, probe response sent),
					 * or the UDP source port received
					 */
	MRC_MON_A_PSN,			/* u32: the PSN (data; the cumulative
					 * PSN of an ACK or SACK; a NACK's);
					 * probe events: the probe number
					 */
	MRC_MON_A_ADDR,			/* binary: the remote address, 4 or
					 * 16 bytes
					 */
	MRC_MON_A_TIME_NS,		/* u64: CLOCK_MONOTONIC */

	__MRC_MON_A_MAX,
};

#define MRC_MON_A_MAX (__MRC_MON_A_MAX - 1)

/* The state of one entropy value, in struct mrc_peer_value. */
enum mrc_ev_state {
	MRC_EV_STATE_USABLE,		/* in the rotation */
	MRC_EV_STATE_SKIP_ONCE,		/* marked: passed over once */
	MRC_EV_STATE_BAD,		/* assumed bad: out until a probe is
					 * answered
					 */
};

/**
 * struct mrc_peer_value - one value of a destination's active set
 * @port: the entropy value, a UDP source port
 * @state: enum mrc_ev_state
 * @pad: zero
 * @tx_packets: data packets and retransmissions sent on it
 * @probes_tx: probes sent on it
 * @probes_rx: responses to those probes taken
 */
struct mrc_peer_value {
	__u16 port;
	__u8 state;
	__u8 pad;
	__u32 tx_packets;
	__u32 probes_tx;
	__u32 probes_rx;
};

#endif /* _UAPI_LINUX_MRC_H */
