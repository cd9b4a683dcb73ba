// SPDX-License-Identifier: GPL-2.0
/* Per-network-namespace state: configuration, counters and the UDP/4791
 * sockets.
 *
 * Lifetime: struct mrc_net is allocated by the pernet core with the
 * namespace.  The UDP/4791 sockets are not: they open with mrc's first
 * use in the namespace and close after its last (socket.c).  They point
 * at mrc_net through sk_user_data, read under RCU in the receive path,
 * so exit releases every socket of the batch, waits one grace period,
 * and only then frees what receivers can reach.
 */
#include <linux/netdevice.h>
#include <linux/math64.h>
#include <linux/slab.h>

#include <mrc/mrc.h>

unsigned int mrc_net_id __read_mostly;

/**
 * mrc_stat_read() - sum one counter over all CPUs
 * @mn: the namespace's state
 * @s: which counter
 *
 * Return: the counter's value.
 */
u64 mrc_stat_read(struct mrc_net *mn, enum mrc_stat s)
{
	u64 sum = 0, n;
	int cpu;

	if (s == MRC_STAT_UDP_SOCKETS)
		return mrc_udp_nr_open(mn);
	if (s == MRC_STAT_CALC_MAX_REORDER_DEPTH)
		return atomic64_read(&mn->max_reorder);
	if (s == MRC_STAT_CALC_MEAN_REORDER_DEPTH) {
		n = mrc_stat_read(mn, MRC_STAT_OOO_EVENTS);
		return n ? div64_u64(mrc_stat_read(mn,
				MRC_STAT_REORDER_DEPTH_SUM), n) : 0;
	}
	for_each_possible_cpu(cpu)
		sum += READ_ONCE(per_cpu_ptr(mn->stats, cpu)->c[s]);
	return sum;
}

static void mrc_net_free(struct mrc_net *mn)
{
	kfree(rcu_dereference_protected(mn->cfg, true));
	free_percpu(mn->stats);
}

static int __net_init mrc_net_init(struct net *net)
{
	struct mrc_net *mn = mrc_net(net);
	struct mrc_net_config *cfg;

	mutex_init(&mn->cfg_lock);
	mrc_socket_net_init(mn);
	spin_lock_init(&mn->port_lock);
	hash_init(mn->ports);
	spin_lock_init(&mn->qp_lock);
	xa_init_flags(&mn->qps, XA_FLAGS_ALLOC1 | XA_FLAGS_LOCK_BH);
	mn->qp_gen = 1;
	atomic_set(&mn->nr_qps, 0);
	atomic64_set(&mn->max_reorder, 0);
	INIT_DELAYED_WORK(&mn->reaper, mrc_reaper_work);
	mrc_rate_init(&mn->refuse_rate);
	mrc_peer_net_init(mn);
	mn->net = net;
	mrc_rate_init(&mn->mon_rate);

	cfg = kzalloc(sizeof(*cfg), GFP_KERNEL);
	if (!cfg)
		return -ENOMEM;
	mrc_config_defaults(&cfg->c);
	RCU_INIT_POINTER(mn->cfg, cfg);

	mn->stats = alloc_percpu(struct mrc_stats);
	if (!mn->stats) {
		mrc_net_free(mn);
		return -ENOMEM;
	}
	return 0;
}

static void __net_exit mrc_net_exit_batch(struct list_head *net_list)
{
	struct net *net;

	/* Message sockets hold their namespace: none is left, and no QP. */
	list_for_each_entry(net, net_list, exit_list) {
		cancel_delayed_work_sync(&mrc_net(net)->reaper);
		WARN_ON_ONCE(!xa_empty(&mrc_net(net)->qps));
		xa_destroy(&mrc_net(net)->qps);
		mrc_peer_net_exit(mrc_net(net));
		mrc_socket_net_exit(mrc_net(net));
	}

	/* Receivers that found a socket's mrc_net are done after this. */
	synchronize_net();

	list_for_each_entry(net, net_list, exit_list)
		mrc_net_free(mrc_net(net));
}

static struct pernet_operations mrc_net_ops = {
	.init = mrc_net_init,
	.exit_batch = mrc_net_exit_batch,
	.id = &mrc_net_id,
	.size = sizeof(struct mrc_net),
};

/**
 * mrc_netns_init() - set up mrc in every network namespace, now and later
 *
 * Return: 0 or a negative errno.
 */
int __init mrc_netns_init(void)
{
	return register_pernet_subsys(&mrc_net_ops);
}

/**
 * mrc_netns_exit() - tear mrc down in every network namespace
 */
void mrc_netns_exit(void)
{
	unregister_pernet_subsys(&mrc_net_ops);
}
