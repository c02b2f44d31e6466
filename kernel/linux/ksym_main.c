// SPDX-License-Identifier: MIT
/*
 * hwbp_ksym.ko: hwbp's core inside a Linux kernel, and the start of the
 * ksym tracer on it: /sys/kernel/debug/hwbp_ksym/ksym_trace_filter
 * (write a line of ksym.h's ksym_filter_write(), read the watches) and
 * ksym_trace_hist (each watch's hits).  In debugfs, not tracefs: Linux
 * 6.1 exports no tracefs_create_*() to modules (fs/tracefs/inode.c).  At load, the core
 * checks itself where it now runs: for every CPU preset it plans an
 * unaligned write watch (hwbp_plan(): split into naturally aligned
 * pieces), programs each piece into a register image (hwbp_encode_piece())
 * and reads it back (hwbp_decode_slot()); the pieces read back must be the
 * plan's and must cover the request exactly.  A failure refuses the load
 * (-EINVAL, with the preset and step in the kernel log), so that a core
 * miscompiled under the kernel's flags never arms a breakpoint.
 *
 * Context: module init only (process context, may sleep; nothing here
 * does).  The core allocates nothing and takes no lock.
 */
#include <linux/fs.h>
#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/debugfs.h>
#include <linux/uaccess.h>

#include <hwbp/hwbp.h>

#include "ksym.h"

/* 0x1003..0x1006: three pieces on every arch with byte-granular slots
 * (1 + 2 + 1 on x86; arm64's BAS and powerpc's DAWR cover it otherwise). */
#define CHECK_ADDR 0xffff800000001003ull
#define CHECK_LEN 4u

static int check_preset(const char *name)
{
	struct hwbp_request req = { CHECK_ADDR, CHECK_LEN, HWBP_W, HWBP_SCOPE_KERNEL, 0 };
	struct hwbp_plan plan;
	struct hwbp_regs regs;
	struct hwbp_cpu cpu;
	uint64_t covered = 0;
	unsigned i;
	int ret;

	ret = hwbp_cpu_preset(name, &cpu);
	if (ret)
		return ret;
	/* (a 32-bit CPU has no such address, -ERANGE: a kernel address of
	 * its own, 3G/1G split) */
	if (hwbp_request_check(&cpu, &req))
		req.addr = 0xc0001003u;
	ret = hwbp_plan(&cpu, &req, 0, &plan);
	if (ret == 0)
		ret = hwbp_regs_reset(&cpu, &regs);
	for (i = 0; ret == 0 && i < plan.n; i++)
		ret = hwbp_encode_piece(&cpu, &regs, i, plan.inst, &plan.piece[i], req.scope, false);
	for (i = 0; ret == 0 && i < plan.n; i++) {
		struct hwbp_piece back;
		enum hwbp_scope scope;

		ret = hwbp_decode_slot(&cpu, &regs, i, plan.inst, &back, &scope);
		if (ret != 1 || back.addr != plan.piece[i].addr || back.len != plan.piece[i].len) {
			pr_err("hwbp_ksym: %s: slot %u reads back %d 0x%llx/%llu, planned 0x%llx/%llu\n",
			       name, i, ret, (unsigned long long)back.addr,
			       (unsigned long long)back.len,
			       (unsigned long long)plan.piece[i].addr,
			       (unsigned long long)plan.piece[i].len);
			return -EINVAL;
		}
		covered += plan.piece[i].cover_len;
		ret = 0;
	}
	if (ret == 0 && (covered != req.len || (plan.exact && plan.extra_bytes))) {
		pr_err("hwbp_ksym: %s: the pieces cover %llu of %u bytes\n", name,
		       (unsigned long long)covered, CHECK_LEN);
		ret = -EINVAL;
	}
	if (ret)
		pr_err("hwbp_ksym: %s: %s\n", name, hwbp_errno_name(ret));
	return ret;
}

/* ------------------------------------------------------------ debugfs */

static struct dentry *dir;

/* One line per write(2), at most this long (a line of ksym.h's form). */
#define LINE_MAX_LEN 128

static ssize_t filter_write(struct file *f, const char __user *ubuf, size_t n, loff_t *pos)
{
	char buf[LINE_MAX_LEN];
	int ret;

	if (n == 0 || n >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, n))
		return -EFAULT;
	buf[n] = '\0';
	ret = ksym_filter_write(buf, n);
	return ret ? ret : (ssize_t)n;
}

static int filter_show(struct seq_file *m, void *v)
{
	ksym_filter_show(m);
	return 0;
}

static int filter_open(struct inode *inode, struct file *f)
{
	/* (a write-only open, "echo ... >", reads nothing) */
	if (!(f->f_mode & FMODE_READ))
		return 0;
	return single_open(f, filter_show, NULL);
}

static int filter_release(struct inode *inode, struct file *f)
{
	return f->f_mode & FMODE_READ ? single_release(inode, f) : 0;
}

static const struct file_operations filter_fops = {
	.owner = THIS_MODULE,
	.open = filter_open,
	.read = seq_read,
	.write = filter_write,
	.llseek = seq_lseek,
	.release = filter_release,
};

static int hist_show(struct seq_file *m, void *v)
{
	ksym_hist_show(m);
	return 0;
}

static int hist_open(struct inode *inode, struct file *f)
{
	return single_open(f, hist_show, NULL);
}

static const struct file_operations hist_fops = {
	.owner = THIS_MODULE,
	.open = hist_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
};

static int __init hwbp_ksym_init(void)
{
	struct dentry *f1, *f2;
	const char *name;
	unsigned i, n = 0;
	int ret;

	for (i = 0; (name = hwbp_cpu_preset_name(i)); i++) {
		ret = check_preset(name);
		if (ret)
			return -EINVAL;
		n++;
	}
	pr_info("hwbp_ksym: hwbp %s core: %u CPU presets planned, encoded and decoded back\n",
		hwbp_version(), n);
	ret = ksym_filter_init();
	if (ret) {
		pr_err("hwbp_ksym: no CPU model for this kernel's arch: %s\n", hwbp_errno_name(ret));
		return ret;
	}
	/* (debugfs' create calls return an ERR_PTR on failure, and take
	 * one as the parent, doing nothing: checked once, at the end) */
	dir = debugfs_create_dir("hwbp_ksym", NULL);
	f1 = debugfs_create_file("ksym_trace_filter", 0644, dir, NULL, &filter_fops);
	f2 = debugfs_create_file("ksym_trace_hist", 0444, dir, NULL, &hist_fops);
	if (IS_ERR(dir) || IS_ERR(f1) || IS_ERR(f2)) {
		ret = IS_ERR(dir) ? PTR_ERR(dir) : IS_ERR(f1) ? PTR_ERR(f1) : PTR_ERR(f2);
		debugfs_remove(dir);
		return ret;
	}
	return 0;
}

/* rmmod while watches are armed: every one unregistered first. */
static void __exit hwbp_ksym_exit(void)
{
	debugfs_remove(dir);   /* (recursive since Linux 5.6) */
	ksym_filter_clear();
}

module_init(hwbp_ksym_init);
module_exit(hwbp_ksym_exit);
MODULE_LICENSE("Dual MIT/GPL");
MODULE_DESCRIPTION("hwbp's core in the kernel: the ksym tracer's base");
