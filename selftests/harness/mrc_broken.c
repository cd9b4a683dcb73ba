// SPDX-License-Identifier: GPL-2.0
/* A deliberately broken module: proof that the debug-kernel harness
 * catches what it exists to catch.  Built only by `make check-debug`,
 * never installed, never loaded outside that check.
 *
 *   insmod mrc_broken.ko bug=lockdep,leak,uaf
 *
 * commits the bugs named, in that order: lock-order inversion (lockdep),
 * unreferenced allocation (kmemleak), use-after-free (KASAN).  The module
 * stays loaded so that reports made later (kmemleak's scan) can still
 * name its functions.  Lockdep turns itself off when the kernel is
 * tainted, as a KASAN report does: name lockdep before uaf.
 */
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>

static char *bug[3];
static int nr_bugs;
module_param_array(bug, charp, &nr_bugs, 0444);
MODULE_PARM_DESC(bug, "bugs to commit, in order: lockdep, leak, uaf");

static DEFINE_MUTEX(mrc_broken_a);
static DEFINE_MUTEX(mrc_broken_b);

static noinline void mrc_broken_uaf(void)
{
	char *p = kmalloc(64, GFP_KERNEL);

	if (!p)
		return;
	kfree(p);
	pr_info("mrc_broken: read after free: %d\n", READ_ONCE(p[8]));
}

/* A then B, later B then A: lockdep needs no real deadlock to see it. */
static noinline void mrc_broken_lockdep(void)
{
	mutex_lock(&mrc_broken_a);
	mutex_lock(&mrc_broken_b);
	mutex_unlock(&mrc_broken_b);
	mutex_unlock(&mrc_broken_a);

	mutex_lock(&mrc_broken_b);
	mutex_lock(&mrc_broken_a);
	mutex_unlock(&mrc_broken_a);
	mutex_unlock(&mrc_broken_b);
}

static noinline void mrc_broken_leak(void)
{
	char *p = kmalloc(128, GFP_KERNEL);

	if (p)
		strscpy(p, "mrc_broken leaked this", 128);
	/* p goes out of scope: nothing refers to the object any more. */
}

static int __init mrc_broken_init(void)
{
	int i;

	for (i = 0; i < nr_bugs; i++) {
		if (!strcmp(bug[i], "uaf"))
			mrc_broken_uaf();
		else if (!strcmp(bug[i], "lockdep"))
			mrc_broken_lockdep();
		else if (!strcmp(bug[i], "leak"))
			mrc_broken_leak();
		else
			return -EINVAL;
	}
	return 0;
}

static void __exit mrc_broken_exit(void)
{
}

module_init(mrc_broken_init);
module_exit(mrc_broken_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("mrc debug-harness self-test: commits bugs on load");
