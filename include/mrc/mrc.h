/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mrc internal API, shared by the files of net/mrc/.  Kernel only.
 */
#ifndef _MRC_MRC_H
#define _MRC_MRC_H

#include <linux/hashtable.h>
#include <linux/hrtimer.h>
#include <linux/in6.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/jiffies.h>
#include <linux/refcount.h>
#include <linux/siphash.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <net/inet_sock.h>
#include <net/ipv6.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>

#include <linux/mrc.h>
#include <mrc/cc.h>
#include <mrc/config.h>
#include <mrc/rxwin.h>
#include <mrc/sack.h>
#include <mrc/tag.h>
#include <mrc/spray.h>
#include <mrc/wire.h>

/* A configuration is replaced whole and freed after readers are done. */
struct mrc_net_config {
	struct mrc_config c;
	struct rcu_head rcu;
};

/* Per-cpu counters; this_cpu_add() keeps them safe from any context. */
struct mrc_stats {
	u64 c[__MRC_STAT_MAX];
};

#define MRC_PORT_HASH_BITS	6
#define MRC_PEER_HASH_BITS	8

/**
 * struct mrc_rate - a limit of events per second, for the data path
 * @start: jiffies when the current one-second window began
 * @n: events admitted or refused in that window
 *
 * Not __ratelimit(): it refuses whoever finds its lock taken, so two
 * CPUs at once lost an event far below the rate.  Nobody waits or is
 * refused for contention here (mrc_rate_admit()).
 */
struct mrc_rate {
	unsigned long start;
	atomic_t n;
};

/**
 * struct mrc_net - mrc's state in one network namespace
 * @cfg: configuration, read under RCU, replaced under @cfg_lock
 * @cfg_lock: serialises configuration changes
 * @udp_lock: guards @sock4, @sock6 and the opening and closing of
 *	the sockets; nests inside @cfg_lock and in nothing else
 * @udp_users: what needs the UDP/4791 sockets: each message socket, from
 *	its creation to its destruction, and the configuration while
 *	listen is set (see mrc_udp_get()); raised from 0 under @udp_lock
 *	alone, lowered anywhere
 * @udp_close: closes the sockets, in process context, once @udp_users
 *	fell to 0
 * @sock4: the UDP/4791 socket for IPv4, NULL while closed
 * @sock6: the UDP/4791 socket for IPv6, NULL while closed or where IPv6
 *	is disabled; neither is used to send (see mrc_xmit())
 * @stats: per-cpu counters, indexed by enum mrc_stat
 * @max_reorder: calc_max_reorder_depth of the namespace
 * @port_lock: guards @ports and @next_port
 * @ports: bound message sockets by port, read under RCU
 * @next_port: where the search for an ephemeral port starts
 * @qp_lock: guards the entries of @qps and @qp_gen
 * @qps: every queue pair of the namespace by QP number, for dumps, gets
 *	and the reaper.  A number is reserved first (a NULL entry, by the
 *	xarray's own lock alone), the QP stored at it under @qp_lock once
 *	it is on its socket's table, and erased under @qp_lock when killed
 * @next_qpn: where the cyclic search for a free QP number goes on; the
 *	xarray's own lock guards it
 * @qp_gen: bumped under @qp_lock whenever a QP is stored in @qps or
 *	erased from it, never 0: a dump that saw it change between two of
 *	its parts is flagged NLM_F_DUMP_INTR
 * @nr_qps: how many queue pairs exist
 * @reaper: closes idle queue pairs, in process context
 * @refuse_rate: rate limit of the NACKs for data no socket takes
 * @peer_lock: guards @peers and @nr_peers
 * @peers: destination states by remote address, read under RCU
 * @peer_key: siphash key of @peers: a remote address picks no bucket
 * @nr_peers: destination states in @peers
 * @srcs: how many queue pairs each source of packets opened (struct
 *	mrc_src, by IPv4 address or IPv6 /64), under @peer_lock
 * @probe_timer: sends probes while some destination has a value
 *	assumed bad (softirq context)
 * @probe_lock: guards @probe_armed, @probe_kick and @probe_stop
 * @probe_armed: the timer is queued or running and will decide itself
 *	whether to run again; only then may it be forwarded
 * @probe_kick: a value went bad while the timer ran: run again
 * @probe_stop: set at namespace exit: the timer is not armed again
 * @net: the namespace itself, for the monitor's multicast
 * @mon_rate: rate limit of monitor events
 */
struct mrc_net {
	struct mrc_net_config __rcu *cfg;
	struct mutex cfg_lock;	/* serialises configuration changes */
	struct mutex udp_lock;	/* guards sock4, sock6 */
	atomic_t udp_users;
	struct work_struct udp_close;
	struct socket *sock4;
	struct socket *sock6;
	struct mrc_stats __percpu *stats;
	atomic64_t max_reorder;
	spinlock_t port_lock;	/* guards ports, next_port */
	DECLARE_HASHTABLE(ports, MRC_PORT_HASH_BITS);
	u16 next_port;
	spinlock_t qp_lock;	/* guards qps' entries, qp_gen */
	struct xarray qps;
	u32 next_qpn;
	u32 qp_gen;
	atomic_t nr_qps;
	struct delayed_work reaper;
	/* NACKs for data no socket takes: a flood draws few. */
	struct mrc_rate refuse_rate;
	spinlock_t peer_lock;	/* guards peers, nr_peers */
	DECLARE_HASHTABLE(peers, MRC_PEER_HASH_BITS);
	siphash_key_t peer_key;
	u32 nr_peers;
	DECLARE_HASHTABLE(srcs, MRC_PEER_HASH_BITS);
	struct hrtimer probe_timer;
	spinlock_t probe_lock;	/* guards probe_armed, _kick, _stop */
	bool probe_armed;
	bool probe_kick;
	bool probe_stop;
	struct net *net;
	struct mrc_rate mon_rate;
};

struct mrc_src;

/**
 * struct mrc_peer_ev - what a destination keeps of one value of its
 * active set, besides its spraying state
 * @tx_packets: data packets sent on it
 * @probes_tx: probes sent on it
 * @probes_rx: responses taken to probes on it
 * @probe_us: when the last probe on it was sent (microseconds, 32 bit):
 *	only its response is timed, and the RTT is measured from here, not
 *	from the echo
 * @probe_id: number of the last probe sent on it
 */
struct mrc_peer_ev {
	u32 tx_packets;
	u32 probes_tx;
	u32 probes_rx;
	u32 probe_us;
	u16 probe_id;
};

/**
 * struct mrc_peer - the state every queue pair to one remote address
 * shares, in either direction: spraying, and what was learnt of the paths
 * @node: in the namespace's peer table, read under RCU
 * @rcu: frees the peer after lookups under RCU are done
 * @mn: the namespace
 * @addr: the remote address (IPv4 as v4-mapped)
 * @family: AF_INET or AF_INET6
 * @spraying: enum mrc_spraying_type in force when the state was created
 * @nr_qps: queue pairs attached, guarded by mrc_net.peer_lock; the peer
 *	goes with the last one
 * @lock: guards everything below; nests inside mrc_qp.lock
 * @qps: the attached queue pairs (mrc_qp.peer_node)
 * @spray: the active set, rotation, marks and bad values
 * @probe_seq: number of the next probe
 * @nr_probe_tx: probes sent to this destination
 * @nr_probe_rx: responses taken from it
 * @reorder: the deepest reordering a queue pair to it learnt
 * @srtt_us: the last smoothed RTT a queue pair to it had
 * @rttvar_us: its variation
 * @base_rtt_us: the lowest RTT seen to it, probes included
 * @max_rtt_us: the recent longest RTT a queue pair to it had
 * @ev: what is kept of each value of @spray.ev, @spray.n of them (none
 *	under None): allocated with the peer, sized by the active set the
 *	configuration gave it rather than by the largest range
 */
struct mrc_peer {
	struct hlist_node node;
	struct rcu_head rcu;
	struct mrc_net *mn;
	struct in6_addr addr;
	u16 family;
	u8 spraying;
	u32 nr_qps;

	spinlock_t lock;	/* guards the peer's state */
	struct list_head qps;
	struct mrc_spray spray;
	u16 probe_seq;
	u64 nr_probe_tx;
	u64 nr_probe_rx;
	u32 reorder;
	u32 srtt_us;
	u32 rttvar_us;
	u32 base_rtt_us;
	u32 max_rtt_us;
	struct mrc_peer_ev ev[];
};

/*
 * Locking.  Lookups from the receive path run under RCU alone: the port
 * table (sockets, SOCK_RCU_FREE) and each socket's QP table (QPs freed by
 * call_rcu).  Locks nest in this order, all taken with BHs off:
 *
 *	mrc_sock.lock > mrc_net.qp_lock > mrc_qp.lock > mrc_sock.rxq_lock
 *	mrc_net.qp_lock > the lock of the xarray mrc_net.qps
 *	mrc_qp.lock > mrc_peer.lock
 *	mrc_net.peer_lock > mrc_peer.lock
 *	mrc_qp.lock > mrc_net.probe_lock
 *
 * mrc_net.cfg_lock > mrc_net.udp_lock, two mutexes taken in process
 * context alone; a message socket takes udp_lock at its creation, before
 * it has any other state.
 *
 * mrc_net.port_lock nests with nothing; the xarray's
 * lock nests in nothing else, and is taken alone to reserve a QP number
 * and to release one never used.  The peer
 * table is read under RCU (peers freed by kfree_rcu); a QP's pointer to
 * its peer is valid while the QP is not dead, under the QP's lock or a
 * reference on it.  The probe timer runs in softirq context, walks the
 * peers under RCU and takes each peer's lock alone.  A QP's two
 * timers (retransmission and delayed acknowledgment) run in softirq
 * context (HRTIMER_MODE_REL_SOFT) and take only the QP's lock;
 * mrc_qp_kill() marks the QP dead under that lock first, so nothing
 * re-arms the timers it then cancels.
 */

/* MRC_WINDOW, the PSNs a sender may have in flight and the receiver's
 * window, is in include/mrc/rxwin.h.
 */
/* Queue pairs one socket, and one namespace, may have: a flood of
 * forged sources cannot allocate without end.  The socket's limit is
 * net.mrc.max_qps (this by default; MRC_MIN_QPS_PER_SOCK at least).
 */
#define MRC_MAX_QPS_PER_SOCK	1024
#define MRC_MIN_QPS_PER_SOCK	16
#define MRC_MAX_QPS_PER_NET	16384

extern int sysctl_mrc_max_qps;

/* net.mrc.max_qps: the queue pairs a socket may have. */
static inline u32 mrc_max_qps(void)
{
	return READ_ONCE(sysctl_mrc_max_qps);
}

/* A socket's QP table: a bucket for every MRC_QP_HASH_LOAD queue pairs
 * net.mrc.max_qps allows it when it is created, so that a lookup, made
 * for every packet and every send, looks at a few QPs however many the
 * socket has (a table of 64 buckets with 10,000 QPs looked at 156 a
 * bucket); within bounds: 2 KiB a socket at the default limit, 32 KiB
 * at the largest.  Raising net.mrc.max_qps later leaves the tables of
 * open sockets as they are.
 */
#define MRC_QP_HASH_LOAD	4
#define MRC_QP_HASH_MIN_BITS	6
#define MRC_QP_HASH_MAX_BITS	12

static inline u8 mrc_qp_hash_bits(void)
{
	u32 want = max_t(u32, mrc_max_qps() / MRC_QP_HASH_LOAD, 1);

	return clamp_t(u32, order_base_2(want), MRC_QP_HASH_MIN_BITS,
		       MRC_QP_HASH_MAX_BITS);
}

/* Of a socket's queue pairs, those its unread messages may keep from
 * eviction (struct mrc_rx_msg's amp_qp): a quarter.
 */
static inline u32 mrc_amp_pinned_max(void)
{
	return mrc_max_qps() / 4;
}

/* Queue pairs the packets of one source may open in a namespace (the
 * remote mrc port is as free to choose as a UDP port): one source cannot
 * take a socket's whole table, even a small one (a quarter of it at
 * most, mrc_max_qps_per_addr()).  A source is an IPv4 address or an IPv6
 * /64, which one host may hold whole.  Those a local sender opens are
 * not counted.
 */
#define MRC_MAX_QPS_PER_ADDR	64

static inline u32 mrc_max_qps_per_addr(void)
{
	return min_t(u32, MRC_MAX_QPS_PER_ADDR, mrc_max_qps() / 4);
}

/* Queue pairs a full table looks at for one to evict (a bounded
 * sample, not the whole table, from softirq context).
 */
#define MRC_EVICT_SCAN		32
/* ... and the buckets of its table it looks in for them, at most. */
#define MRC_EVICT_BUCKETS	128
/* Packets of its incarnation a QP with a message half received must
 * have placed for a full table to keep it (until its sender stalls,
 * see mrc_qp_rx_evict()): a real sender's first window is more than
 * one packet, and a forged first packet of a long message that never
 * goes on must not hold a place cheaply.
 */
#define MRC_EVICT_PARTIAL_PKTS	2
/* NACKs a namespace sends per second for data to no socket. */
#define MRC_REFUSE_PER_SEC	1000
/* The least time between two challenges (NACK 0x1A) of a QP. */
#define MRC_CHALLENGE_GAP_MS	10

static inline unsigned long mrc_challenge_gap(void)
{
	return max(1UL, msecs_to_jiffies(MRC_CHALLENGE_GAP_MS));
}

/* The retransmission timeout before any RTT sample: long enough for the
 * slowest of paths of very different delays (a first window is sprayed
 * over all of them), as TCP's initial RTO is.
 */
#define MRC_RTO_INIT_US		50000
/* Backoff stops doubling the retransmission timeout here. */
#define MRC_RTO_MAX_US		1000000
/* A direction idle this long starts a new epoch at its next message. */
#define MRC_EPOCH_IDLE_MS	1000
/* A queue pair idle both ways this long is closed; one whose peer
 * proved itself ours, once that peer cannot be resending any more
 * (mrc_qp_idle()).
 */
#define MRC_QP_IDLE_MS		3000
/* Arrivals one ACK or SACK may cover, unless one must go at once. */
#define MRC_ACK_EVERY		4
/* The longest an arrival waits for its acknowledgment (less with an
 * RTO under 8 times as long).
 */
#define MRC_DELACK_MAX_US	500U

/* A message being sent: the sender's copy, freed once all acknowledged. */
struct mrc_tx_msg {
	struct list_head list;
	void *buf;		/* the payload */
	void *area;		/* its vmalloc area, or NULL: see mrc_msg_buf */
	u32 len;
	u32 sent;		/* bytes segmented at least once */
	u32 last_psn;		/* valid once sent == len */
	u32 charge;		/* bytes charged to the socket */
	u16 msn;
	bool segmented;
};

/* A message over a page lives in vmalloc'ed pages its packets point at,
 * after a head no packet covers: vfree() from softirq context (a message
 * acknowledged) links the area into a list through its first bytes while
 * packets may still be on their way.
 */
#define MRC_MSG_VHEAD		SMP_CACHE_BYTES

/* struct mrc_tx_pkt, the sender's state of one PSN in flight (indexed by
 * PSN % MRC_WINDOW), is in include/mrc/sack.h.
 */

/* A message being received, placed page by page as packets arrive. */
struct mrc_rx_msg {
	struct list_head list;	/* on the socket's queue once complete */
	struct xarray pages;
	u32 len;
	u32 rcvd;
	u32 charge;		/* bytes charged to the socket */
	bool over;		/* the socket's one message beyond SO_RCVBUF */
	u32 over_base;		/* ... bytes it had at the period's start */
	unsigned long over_since;	/* ... that period's start, jiffies */
	struct in6_addr saddr;	/* IPv4 as v4-mapped */
	int ifindex;		/* its link if link-local, else 0 */
	u16 sport;
	/* The queue pair it came on, held while it is unread, if that QP's
	 * peer is not validated: the reaper keeps the QP until the message
	 * is read and for an idle period after, so that a reply goes
	 * through it, under its cap (MRC_AMP_FACTOR), not through a new QP
	 * opened by the sender as a client's is.
	 */
	struct mrc_qp *amp_qp;
};

/**
 * struct mrc_local - the local end of a queue pair, or of a packet
 * @addr: the local address (IPv4 as v4-mapped); unspecified (all zeros,
 *	also for IPv4) for any
 * @ifindex: the link, where the local or the remote address is IPv6
 *	link-local (which names a host only on its link); else 0
 */
struct mrc_local {
	struct in6_addr addr;
	int ifindex;
};

/* Whether a local or a remote address is link-local: its link, the
 * ifindex, is then part of its name.  Never for IPv4 (v4-mapped).
 */
static inline bool mrc_addr_scoped(const struct in6_addr *a,
				   const struct in6_addr *b)
{
	return (ipv6_addr_type(a) | ipv6_addr_type(b)) & IPV6_ADDR_LINKLOCAL;
}

/* Two local ends match if their links are the same and their addresses
 * are, or either is unspecified: a lookup that leaves the address open
 * (sendmsg() on a socket bound to none) or a QP that opened with no
 * route and so has none of its own.
 */
static inline bool mrc_local_match(const struct mrc_local *a,
				   const struct mrc_local *b)
{
	return a->ifindex == b->ifindex &&
	       (ipv6_addr_any(&a->addr) || ipv6_addr_any(&b->addr) ||
		ipv6_addr_equal(&a->addr, &b->addr));
}

struct mrc_sock;
struct netlink_callback;
struct genl_family;

/**
 * struct mrc_qp - a queue pair: one socket's traffic with one remote socket
 * @node: in the socket's QP table, read under RCU
 * @rcu: frees the QP after lookups under RCU are done
 * @ref: held by the tables and by whoever uses the QP outside RCU
 * @lock: guards everything below; taken with BHs off
 * @ms: the socket; the QP holds a reference on it
 * @mn: the socket's namespace
 * @qpn: its number, unique in the namespace: its index in mrc_net.qps
 */
struct mrc_qp {
	struct hlist_node node;
	struct rcu_head rcu;
	refcount_t ref;
	spinlock_t lock;	/* guards the QP's state */
	struct mrc_sock *ms;
	struct mrc_net *mn;
	struct mrc_peer *peer;	/* NULL once closed */
	/* The count of the source whose packet opened it; NULL if a local
	 * send did.  Under mrc_net.peer_lock.
	 */
	struct mrc_src *src;
	struct list_head peer_node;	/* in peer->qps, under its lock */

	u32 qpn;
	u16 family;
	u16 lport;
	u16 rport;
	u16 udp_sport;
	struct in6_addr raddr;	/* IPv4 as v4-mapped */
	/* The local address the QP sends from and receives at, fixed for
	 * its life: the peer's first packet's destination, else the
	 * socket's bound address, else the route's source when it opened;
	 * unspecified (any) only if it opened with no route.  And the
	 * link, with a link-local end.  Part of its key with raddr, rport.
	 */
	struct mrc_local local;
	u8 state;		/* enum mrc_qp_state */
	bool dead;		/* unlinked: take no new work */
	bool xmitting;		/* some context is sending xq */
	bool rx_starved;	/* dropped data for room: owes a window update */
	bool peer_starved;	/* the peer dropped ours for room: wait */
	u32 starved_psn;	/* ... from this PSN on */
	/* When an acknowledgment last said the peer had room (ktime ns,
	 * the clock of mrc_tx_pkt.tx_ns): a "no buffer" NACK of a
	 * transmission sent before then may have been overtaken by it.
	 */
	u64 room_ns;
	struct sk_buff_head xq;	/* built, to be sent in order */
	unsigned long last_tx;	/* jiffies */
	unsigned long last_rx;
	bool lingering;		/* its socket closed, nothing left to send */
	unsigned long linger_since;	/* ... since then, jiffies */

	/* sender */
	u16 tx_epoch;
	u16 tx_prev_epoch;
	u16 next_msn;
	struct list_head tx_queue;
	struct mrc_tx_msg *tx_cur;
	u32 tx_queued;		/* messages on tx_queue */
	u32 tx_held;		/* bytes charged to the socket for them and
				 * for a message a sender reserved room for
				 */
	unsigned long tx_progress;	/* jiffies: bytes last acknowledged,
					 * or messages queued after none
					 */
	u32 tx_fails;		/* failures of the sending direction */
	int tx_err;		/* ... the last one's errno, positive */
	u32 snd_una;
	u32 snd_nxt;
	u32 inflight;
	u32 nr_lost;
	u32 pmtu;		/* path MTU data is cut to, 0 before a route */
	u32 pmtu_low;		/* lowest route MTU seen since pmtu_since */
	unsigned long pmtu_since;	/* jiffies */
	u32 high_sacked;	/* one past the highest PSN known received */
	bool tx_synced;		/* the peer acknowledged data of the epoch */
	bool proven;		/* ... of any epoch: it receives what we
				 * send, and a full table keeps it
				 */
	/* Opened by a packet of the peer's, whose source address may be
	 * forged, and not yet acknowledging data of ours: what it is sent
	 * is capped at MRC_AMP_FACTOR times what came from it
	 * (mrc_qp_amp_room()).  Cleared by the first packet of its that
	 * echoes our tag, which only a receiver of ours knows
	 * (mrc_qp_validated()).  (No probe goes through a QP whose peer
	 * never acknowledged data: the probe timer reads proven, under
	 * the peer's lock alone.)
	 */
	bool unvalidated;
	/* Both ends' incarnation tags (include/mrc/tag.h): set under the
	 * lock; a probe reads them under the peer's lock alone.
	 */
	struct mrc_tags tags;
	/* jiffies of its last challenge (NACK 0x1A): one per
	 * MRC_CHALLENGE_GAP_MS at most, whatever a forger sends it, and
	 * from no budget it shares with another QP.
	 */
	unsigned long chal_last;
	bool amp_blocked;	/* data waiting for the cap; counted once */
	u64 amp_rx;		/* UDP payload bytes from it, unvalidated */
	u64 amp_tx;		/* ... to it, acknowledgments included */
	/* Its messages unread on its socket while it is unvalidated, and
	 * when one was last read (jiffies): struct mrc_rx_msg's amp_qp.
	 */
	atomic_t amp_unread;
	unsigned long amp_read;
	/* Senders waiting in mrc_sendmsg() for room on it: the reaper
	 * leaves it alone meanwhile, and their messages go on it, not on a
	 * new QP (which would not have its cap, say).
	 */
	atomic_t tx_waiters;
	u32 reorder;		/* SACK gap depth taken as reordering */
	u32 rto_floor_us;	/* least RTO, raised by spurious timeouts */
	u32 rto_lo, rto_hi;	/* PSNs in flight at the last timeout */
	struct mrc_tx_pkt *ring;	/* MRC_WINDOW entries, from the first
					 * send: NULL while tx_epoch is 0
					 */
	struct mrc_cc cc;	/* the window: include/mrc/cc.h */
	u32 srtt_us;
	u32 rttvar_us;
	u32 base_rtt_us;
	u32 max_rtt_us;		/* recent longest RTT, decaying */
	u8 backoff;
	u8 retries;
	bool feedback;		/* heard from the peer since the last timeout */
	struct hrtimer rto_timer;

	/* receiver */
	bool rx_open;
	u16 rx_epoch;
	u16 rx_prev_epoch;
	u16 rcv_msn;
	u32 rcv_nxt;		/* the first PSN not received */
	u32 rx_held;		/* PSNs received ahead of rcv_nxt */
	u32 rx_unacked;		/* arrivals no ACK or SACK has covered */
	u32 rx_ackreq;		/* highest PSN that asked for an ACK */
	u32 rx_last_psn;	/* the latest of those arrivals, */
	u16 rx_last_ts;		/* ... its timestamp */
	u16 rx_last_ev;		/* ... and entropy value */
	struct hrtimer ack_timer;	/* acknowledges them, at the latest */
	u32 rx_bytes;
	u32 rx_partial;		/* messages with a buffer, not complete */
	u32 rx_charge;		/* bytes those are charged */
	bool rx_wait;		/* its next message in order waits for room */
	/* Its place in its socket's line for room (mrc_sock.rx_waiters or
	 * .rx_called), and what it waits for or was granted there; under
	 * mrc_sock.rx_share_lock.  See rx.c, "Sharing a socket's room".
	 */
	struct list_head rx_turn;
	u16 rx_turn_msn;	/* the message it waits for room for */
	u16 rx_refused_msn;	/* the last refused for room, under its lock */
	u32 rx_want;		/* bytes that message needs */
	u32 rx_grant;		/* bytes kept for it, while called */
	u32 rx_grant_seq;	/* which call made the grant */
	unsigned long rx_grant_end;	/* jiffies: the grant lapses */
	unsigned long rx_progress;	/* jiffies: data last placed */
	/* jiffies: data last placed, or the QP opened; not moved by a
	 * window update or a duplicate, which anyone may replay: how
	 * recent its peer is, when a full table picks one to evict
	 */
	unsigned long rx_fresh;
	u32 rx_placed;		/* packets placed in this incarnation */
	bool rx_stalled;	/* its partial messages were dropped once,
				 * their sender stalled: a message half
				 * received keeps it no longer
				 */
	bool rx_delivered;	/* a message of the peer's completed: weak
				 * proof (a blind sender can complete one),
				 * which a full table evicts last
				 */
	unsigned long *rx_bitmap;	/* PSNs held: include/mrc/rxwin.h */
	struct mrc_rx_msg **rx_slots;

	u64 stats[__MRC_STAT_MAX];
};

/**
 * struct mrc_sock - a message socket, socket(AF_INET*, SOCK_DGRAM, IPPROTO_MRC)
 * @inet: the inet socket; must be first
 * @port_node: in the namespace's port table
 * @mn: the namespace's mrc state
 * @lock: guards @qps, @nr_qps and @closing
 * @qps: the socket's queue pairs by remote address and port, a table of
 *	1 << @qp_hash_bits buckets (mrc_sock_qp_bucket())
 * @qp_hash_bits: the table's size, set at the socket's creation from
 *	net.mrc.max_qps then (mrc_qp_hash_bits())
 * @rxq_lock: guards @rxq
 * @rxq: complete messages waiting for recvmsg()
 * @tx_mem: bytes charged for messages queued, not yet acknowledged
 * @tx_busy: queue pairs holding some of @tx_mem (mrc_qp.tx_held not 0):
 *	the send buffer's fair share is divided among them
 * @rx_mem: bytes charged for messages being received or waiting
 * @rx_over: a message is admitted beyond SO_RCVBUF (at most one)
 * @rx_over_wanted: a message next in order was refused for want of it
 * @rx_share_lock: guards @rx_waiters, @rx_called, @rx_reserved, @rx_nturn,
 *	@rx_call_seq and the QPs' places in them (mrc_qp.rx_turn); nests
 *	inside a QP's lock, never the other way round
 * @rx_waiters: QPs refused data for want of room, first refused first
 * @rx_called: QPs told there is room, some kept for each (mrc_qp.rx_grant)
 * @rx_reserved: the room kept for @rx_called, bytes
 * @rx_nturn: QPs in @rx_waiters and @rx_called (read without the lock:
 *	none means the line is empty)
 * @rx_call_seq: numbers the calls, so that a grant is known by its call
 * @rx_share_tick: jiffies: the reaper last looked for lapsed grants
 * @port: the bound mrc port, 0 while unbound
 * @bound: the address bind() gave and, for a link-local one, its
 *	sin6_scope_id; unspecified for the wildcard.  Set under
 *	mrc_net.port_lock before the socket is on the port table, fixed
 *	from then on: the receive path reads it under RCU
 * @udp_sport: MRC_SO_UDP_SPORT
 * @closing: close() was called; the socket delivers what it has queued
 * @peer: connect()ed default destination, valid if @peer_port
 * @peer_port: 0 when not connected
 * @peer_ifindex: the link of a link-local @peer, else 0
 */
struct mrc_sock {
	struct inet_sock inet;
	struct hlist_node port_node;
	struct mrc_net *mn;
	spinlock_t lock;	/* guards qps, nr_qps, closing */
	struct hlist_head *qps;
	u8 qp_hash_bits;
	u32 nr_qps;
	spinlock_t rxq_lock;	/* guards rxq */
	struct list_head rxq;
	atomic64_t tx_mem;
	atomic_t tx_busy;
	atomic64_t rx_mem;
	atomic_t rx_over;
	atomic_t rx_over_wanted;	/* a message was refused it */
	spinlock_t rx_share_lock;
	struct list_head rx_waiters;
	struct list_head rx_called;
	u32 rx_reserved;
	u32 rx_nturn;
	u32 rx_call_seq;
	unsigned long rx_share_tick;
	/* Unread messages holding a QP not validated (mrc_rx_msg.amp_qp),
	 * at most mrc_amp_pinned_max(): a forger's empty messages could
	 * otherwise keep every QP of a full table from eviction.
	 */
	atomic_t amp_pinned;
	u16 port;
	u16 udp_sport;
	struct mrc_local bound;
	bool closing;
	bool superseded;	/* closed, its port bound again: see bind */
	struct in6_addr peer;
	u16 peer_port;
	int peer_ifindex;
	void (*orig_destruct)(struct sock *sk);
};

struct mrc6_sock {
	struct mrc_sock ms;
	struct ipv6_pinfo inet6;	/* must be last */
};

static inline struct mrc_sock *mrc_sk(const struct sock *sk)
{
	return (struct mrc_sock *)sk;
}

static inline struct sock *mrc_to_sk(struct mrc_sock *ms)
{
	return &ms->inet.sk;
}

/* How many buckets a socket's QP table has. */
static inline u32 mrc_sock_qp_buckets(const struct mrc_sock *ms)
{
	return 1U << ms->qp_hash_bits;
}

/* The bucket of a socket's QP table for a remote address and port,
 * keyed as the peer table is (mrc_net.peer_key): a remote end picks no
 * bucket.  The local address is not hashed (a send from a socket bound
 * to none looks for a QP at any), so a peer's QPs to several of our
 * addresses share a bucket: as many as its source may open (64).
 */
static inline struct hlist_head *
mrc_sock_qp_bucket(const struct mrc_sock *ms, const struct in6_addr *addr,
		   u16 port)
{
	const struct {
		struct in6_addr addr;
		u32 port;
	} k = { .addr = *addr, .port = port };
	u64 h;

	/* No padding: siphash reads every byte. */
	static_assert(sizeof(k) == sizeof(struct in6_addr) + sizeof(u32));
	h = siphash(&k, sizeof(k), &ms->mn->peer_key);

	return &ms->qps[h & (mrc_sock_qp_buckets(ms) - 1)];
}

extern unsigned int mrc_net_id;

static inline struct mrc_net *mrc_net(const struct net *net)
{
	return net_generic(net, mrc_net_id);
}

static inline void mrc_rate_init(struct mrc_rate *r)
{
	r->start = jiffies;
	atomic_set(&r->n, 0);
}

/*
 * Whether one more event fits in @per_sec for this second.  The first
 * to see the window over starts the next one (unsigned arithmetic: a
 * window however old is over).  Events counted elsewhere between the
 * new start and the reset are judged by the old count and then
 * forgotten: the few a CPU makes in that instant may exceed the limit.
 * Once the window is full, a refusal only reads the count, which then
 * never grows past the limit by more than the callers racing for it.
 */
static inline bool mrc_rate_admit(struct mrc_rate *r, int per_sec)
{
	unsigned long start = READ_ONCE(r->start);
	unsigned long now = jiffies;

	if (now - start >= HZ && try_cmpxchg(&r->start, &start, now))
		atomic_set(&r->n, 0);
	if (atomic_read(&r->n) >= per_sec)
		return false;
	return atomic_inc_return(&r->n) <= per_sec;
}

static inline void mrc_stat_add(struct mrc_net *mn, enum mrc_stat s, u64 v)
{
	this_cpu_add(mn->stats->c[s], v);
}

static inline void mrc_stat_inc(struct mrc_net *mn, enum mrc_stat s)
{
	mrc_stat_add(mn, s, 1);
}

/* Count for the QP and its namespace; the QP's lock is held. */
static inline void mrc_qp_stat_add(struct mrc_qp *qp, enum mrc_stat s, u64 v)
{
	qp->stats[s] += v;
	mrc_stat_add(qp->mn, s, v);
}

static inline void mrc_qp_stat_inc(struct mrc_qp *qp, enum mrc_stat s)
{
	mrc_qp_stat_add(qp, s, 1);
}

static inline const struct mrc_config *mrc_cfg(struct mrc_net *mn)
{
	return &rcu_dereference(mn->cfg)->c;
}

u64 mrc_stat_read(struct mrc_net *mn, enum mrc_stat s);

int mrc_netns_init(void);
void mrc_netns_exit(void);

void mrc_socket_net_init(struct mrc_net *mn);
void mrc_socket_net_exit(struct mrc_net *mn);
int mrc_udp_get(struct mrc_net *mn);
void mrc_udp_put(struct mrc_net *mn);
u64 mrc_udp_nr_open(struct mrc_net *mn);

int mrc_udp_encap_recv(struct sock *sk, struct sk_buff *skb);
void mrc_rx_no_socket(struct mrc_net *mn, struct sk_buff *skb,
		      unsigned int len);

/* What an ICMP error about a data packet mrc sent says of the peer. */
enum mrc_icmp_kind {
	MRC_ICMP_TOO_BIG,	/* the path holds less: cut and resend */
	MRC_ICMP_REFUSED,	/* port or protocol unreachable: no mrc */
};

void mrc_rx_icmp(struct mrc_net *mn, int family, const struct mrc_local *l,
		 const struct in6_addr *daddr, const u8 *p, u16 entropy,
		 enum mrc_icmp_kind kind, u32 mtu);

/* sock.c */
int mrc_sock_init(void);
void mrc_sock_exit(void);
struct mrc_sock *mrc_sock_lookup(struct mrc_net *mn, int family, u16 port,
				 const struct mrc_local *l);
struct mrc_qp *mrc_superseded_qp(struct mrc_net *mn, int family, u16 port,
				 const struct mrc_local *l,
				 const struct in6_addr *addr, u16 rport,
				 u16 epoch);
void mrc_sock_deliver(struct mrc_sock *ms, struct mrc_rx_msg *m);
bool mrc_sock_filter(struct mrc_sock *ms, struct sk_buff *skb);
void mrc_sock_qp_failed(struct mrc_qp *qp, int err, u32 dropped);
void mrc_sock_unbind(struct mrc_sock *ms);

/* qp.c */
struct mrc_qp *mrc_qp_lookup(struct mrc_sock *ms, const struct mrc_local *l,
			     const struct in6_addr *addr, u16 port);
struct mrc_qp *mrc_qp_get_or_create(struct mrc_sock *ms,
				    const struct mrc_local *l,
				    const struct in6_addr *addr, u16 port,
				    gfp_t gfp);
struct mrc_qp *mrc_qp_rx_open(struct mrc_sock *ms,
			      const struct mrc_local *l,
			      const struct in6_addr *addr, u16 port);
struct mrc_tx_pkt *mrc_qp_ring_alloc(struct mrc_qp *qp);
bool mrc_qp_table_full(struct mrc_sock *ms);
void mrc_qp_put(struct mrc_qp *qp);
bool mrc_qp_kill(struct mrc_qp *qp, bool if_idle);
void mrc_qp_close_all(struct mrc_sock *ms);
void mrc_reaper_work(struct work_struct *work);
void mrc_qp_rx_purge(struct mrc_qp *qp);
void mrc_qp_rx_turn_end(struct mrc_qp *qp);
bool mrc_qp_rx_evict(struct mrc_qp *qp);
void mrc_rx_msg_free(struct mrc_sock *ms, struct mrc_rx_msg *m);
bool mrc_rx_mem_allow(struct mrc_sock *ms, u32 n, bool next);
void mrc_rx_mem_add(struct mrc_sock *ms, u32 n);
void mrc_rx_mem_sub(struct mrc_sock *ms, u32 n);

/* peer.c */
void mrc_peer_net_init(struct mrc_net *mn);
void mrc_peer_net_exit(struct mrc_net *mn);
int mrc_peer_attach(struct mrc_qp *qp, gfp_t gfp, bool rx);
void mrc_peer_detach(struct mrc_qp *qp);
u16 mrc_peer_entropy(struct mrc_qp *qp, bool data);
void mrc_peer_tx_value(struct mrc_qp *qp, u16 ev);
void mrc_peer_timed_out(struct mrc_qp *qp, u16 ev);
u32 mrc_peer_usable(struct mrc_qp *qp);
void mrc_peer_trimmed(struct mrc_qp *qp, u16 ev);
void mrc_peer_learn(struct mrc_qp *qp);
void mrc_peer_recall(struct mrc_qp *qp);
int mrc_nl_peer_dump(struct sk_buff *skb, struct netlink_callback *cb);

/* monitor.c */
void mrc_mon(struct mrc_net *mn, u32 qpn, u32 event, u16 ev, u32 psn,
	     const struct in6_addr *addr, int family);

/* Under the QP's lock, or with its fields fixed: an event of @qp. */
static inline void mrc_qp_mon(struct mrc_qp *qp, u32 event, u16 ev, u32 psn)
{
	mrc_mon(qp->mn, qp->qpn, event, ev, psn, &qp->raddr, qp->family);
}

/* probe.c */
void mrc_probe_arm(struct mrc_net *mn);
enum hrtimer_restart mrc_probe_fire(struct hrtimer *t);
u16 mrc_rx_probe(struct mrc_net *mn, const u8 *p, const struct in6_addr *saddr,
		 const struct mrc_local *l, int family, u16 entropy);
void mrc_rx_probe_resp(struct mrc_qp *qp, const struct mrc_ack_hdr *h);

/* tx.c */
int mrc_qp_tx_reserve(struct mrc_qp *qp, u32 charge, bool force);
void mrc_qp_tx_unreserve(struct mrc_qp *qp, u32 charge);
bool mrc_qp_tx_wait_over(struct mrc_qp *qp, u32 charge, u32 fails);
int mrc_qp_send(struct mrc_qp *qp, struct mrc_tx_msg *m);
void mrc_qp_push(struct mrc_qp *qp, struct sk_buff_head *out);
void mrc_qp_validated(struct mrc_qp *qp);
void mrc_qp_flush(struct mrc_qp *qp);
struct sk_buff *mrc_alloc_skb(unsigned int len);
void mrc_skb_set_sport(struct sk_buff *skb, u16 sport, u8 tos);
struct dst_entry *mrc_route(struct mrc_net *mn, struct sock *sk,
			    int family, const struct mrc_local *l,
			    const struct in6_addr *daddr, u16 sport,
			    u8 tos, struct flowi *fl);
int mrc_xmit_pmtu(struct mrc_net *mn, int family, const struct mrc_local *l,
		  const struct in6_addr *daddr, struct sk_buff *skb, u32 *mtu);
int mrc_xmit(struct mrc_net *mn, int family, const struct mrc_local *l,
	     const struct in6_addr *daddr, struct sk_buff *skb);
void mrc_qp_rx_ack(struct mrc_qp *qp, const struct mrc_ack_hdr *h,
		   bool fresh, struct sk_buff_head *out);
enum hrtimer_restart mrc_rto_fire(struct hrtimer *t);
enum hrtimer_restart mrc_ack_fire(struct hrtimer *t);
u8 mrc_control_tos(struct mrc_net *mn);
u32 mrc_qp_rto_us(struct mrc_qp *qp, const struct mrc_config *c);
void mrc_sock_rx_room(struct mrc_sock *ms);
void mrc_sock_rx_share_tick(struct mrc_sock *ms);
void mrc_qp_tx_reset(struct mrc_qp *qp);
void mrc_qp_tx_purge(struct mrc_qp *qp);
void mrc_qp_fail(struct mrc_qp *qp, int err);
unsigned long mrc_qp_persist(const struct mrc_config *c);
void mrc_qp_icmp(struct mrc_qp *qp, const struct mrc_data_hdr *h, u16 entropy,
		 enum mrc_icmp_kind kind, u32 mtu, struct sk_buff_head *out);

/* cc.c */
void mrc_cc_init(struct mrc_qp *qp, const struct mrc_config *c);
void mrc_cc_on_ack(struct mrc_qp *qp, const struct mrc_config *c, u32 acked,
		   u32 rtt_us, bool ecn);
void mrc_cc_on_nack(struct mrc_qp *qp, const struct mrc_config *c, u8 reason);
void mrc_cc_on_timeout(struct mrc_qp *qp, const struct mrc_config *c,
		       u32 usable, u32 left);

extern struct genl_family mrc_genl_family;
/* Index of the monitor group in the family's multicast groups. */
#define MRC_MCGRP_MON_ID	0
int mrc_genl_init(void);
void mrc_genl_exit(void);

#endif /* _MRC_MRC_H */
