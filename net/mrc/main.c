// SPDX-License-Identifier: GPL-2.0
/* mrc: Multipath Reliable Connection transport over UDP port 4791.
 *
 * Module init and exit.  Each step is undone in exact reverse order.
 */
#include <linux/module.h>
#include <net/genetlink.h>

#include <mrc/mrc.h>

static int __init mrc_init(void)
{
	int ret;

	ret = mrc_netns_init();
	if (ret)
		goto err_netns;

	ret = mrc_genl_init();
	if (ret)
		goto err_genl;

	ret = mrc_sock_init();
	if (ret)
		goto err_sock;

	pr_info("mrc: Multipath Reliable Connection transport, UDP port %u\n",
		MRC_UDP_PORT);
	return 0;

err_sock:
	mrc_genl_exit();
err_genl:
	mrc_netns_exit();
err_netns:
	return ret;
}

static void __exit mrc_exit(void)
{
	mrc_sock_exit();
	mrc_genl_exit();
	mrc_netns_exit();
	/* Queue pairs and sockets are freed after a grace period. */
	rcu_barrier();
}

module_init(mrc_init);
module_exit(mrc_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Multipath Reliable Connection transport over UDP");
MODULE_AUTHOR("The mrc developers");
MODULE_ALIAS_GENL_FAMILY(MRC_GENL_NAME);
