// SPDX-License-Identifier: MIT
/*
 * hwbp_racy.ko: a planted data race for hwbp race --kernel
 * (tests/trace/race_kernel_test.sh).  Two kernel threads add 1 to one
 * counter: "hwbp_racy_a" always under the spinlock (racy_inc_locked()),
 * "hwbp_racy_b" without it (racy_inc_plain()) unless locked=1, when both
 * take it.  Unlocked, b's increment races with a's; locked, none does.
 * The counter sits alone in its cache line, the lock in another, so that
 * a watch of the counter's 8 bytes sees nothing but the increments.
 * Each thread works in bursts and sleeps between them (msleep(1) every
 * RACY_BURST increments), leaving the CPUs to the tracer too.
 */
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/spinlock.h>

static bool locked;
module_param(locked, bool, 0444);
MODULE_PARM_DESC(locked, "both threads take the lock (no race)");

#define RACY_BURST 20000

static DEFINE_SPINLOCK(racy_lock);
static unsigned long racy_counter ____cacheline_aligned_in_smp;
static struct task_struct *racy_thread[2];

/* (noinline: the functions hwbp race --kernel --only names) */
static noinline void racy_inc_locked(void)
{
	spin_lock(&racy_lock);
	racy_counter++;
	spin_unlock(&racy_lock);
}

static noinline void racy_inc_plain(void)
{
	racy_counter++;
}

static int racy_fn(void *arg)
{
	bool plain = arg != NULL && !locked;
	unsigned i;

	while (!kthread_should_stop()) {
		for (i = 0; i < RACY_BURST; i++) {
			if (plain)
				racy_inc_plain();
			else
				racy_inc_locked();
		}
		msleep(1);
	}
	return 0;
}

static int __init racy_init(void)
{
	racy_thread[0] = kthread_run(racy_fn, NULL, "hwbp_racy_a");
	if (IS_ERR(racy_thread[0]))
		return PTR_ERR(racy_thread[0]);
	racy_thread[1] = kthread_run(racy_fn, (void *)1, "hwbp_racy_b");
	if (IS_ERR(racy_thread[1])) {
		kthread_stop(racy_thread[0]);
		return PTR_ERR(racy_thread[1]);
	}
	pr_info("hwbp_racy: %s\n", locked ? "both threads take the lock" : "one thread takes no lock");
	return 0;
}

static void __exit racy_exit(void)
{
	kthread_stop(racy_thread[1]);
	kthread_stop(racy_thread[0]);
	pr_info("hwbp_racy: counter %lu\n", racy_counter);
}

module_init(racy_init);
module_exit(racy_exit);
MODULE_LICENSE("Dual MIT/GPL");
MODULE_DESCRIPTION("hwbp's planted kernel data race (a test)");
