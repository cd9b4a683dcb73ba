/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mrc internal API, shared by the files of net/mrc/.  Kernel only.
 */
#ifndef _MRC_MRC_H
#define _MRC_MRC_H

#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>

#include <linux/mrc.h>
#include <mrc/config.h>

/* A configuration is replaced whole and freed after readers are done. */
struct mrc_net_config {
	struct mrc_config c;
	struct rcu_head rcu;
};

/* Per-cpu counters; this_cpu_add() keeps them safe from any context. */
struct mrc_stats {
	u64 c[__MRC_STAT_MAX];
};

/**
 * struct mrc_net - mrc's state in one network namespace
 * @cfg: configuration, read under RCU, replaced under @cfg_lock
 * @cfg_lock: serialises configuration changes
 * @sock4: the UDP/4791 socket for IPv4
 * @sock6: the UDP/4791 socket for IPv6, NULL where IPv6 is disabled
 * @stats: per-cpu counters, indexed by enum mrc_stat
 */
struct mrc_net {
	struct mrc_net_config __rcu *cfg;
	struct mutex cfg_lock;	/* serialises configuration changes */
	struct socket *sock4;
	struct socket *sock6;
	struct mrc_stats __percpu *stats;
};

extern unsigned int mrc_net_id;

static inline struct mrc_net *mrc_net(const struct net *net)
{
	return net_generic(net, mrc_net_id);
}

static inline void mrc_stat_add(struct mrc_net *mn, enum mrc_stat s, u64 v)
{
	this_cpu_add(mn->stats->c[s], v);
}

static inline void mrc_stat_inc(struct mrc_net *mn, enum mrc_stat s)
{
	mrc_stat_add(mn, s, 1);
}

u64 mrc_stat_read(struct mrc_net *mn, enum mrc_stat s);

int mrc_netns_init(void);
void mrc_netns_exit(void);

int mrc_socket_init(struct net *net, struct mrc_net *mn);
void mrc_socket_release(struct mrc_net *mn);

int mrc_udp_encap_recv(struct sock *sk, struct sk_buff *skb);

int mrc_genl_init(void);
void mrc_genl_exit(void);

#endif /* _MRC_MRC_H */
