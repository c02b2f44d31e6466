// SPDX-License-Identifier: MIT
/*
 * hwbp_ksym.ko: hwbp's core inside a Linux kernel, and the ksym tracer
 * on it, in /sys/kernel/debug/hwbp_ksym/: ksym_trace_filter (write a line
 * of ksym.h's ksym_filter_write(), read the watches), ksym_trace_hist
 * (the histogram by function, in hwbp trace's layout), ksym_trace_hist_raw
 * (the same counts for programs), ksym_trace_functions (the function
 * table, written by user space) and hist_entries (the entries a watch
 * gets; written while no watch is set).  In debugfs, not tracefs: Linux
 * 6.1 exports no tracefs_create_*() to modules (fs/tracefs/inode.c).  At load, the core
 * checks itself where it now runs: for every CPU preset it plans an
 * unaligned write watch (hwbp_plan(): split into naturally aligned
 * pieces), programs each piece into a register image (hwbp_encode_piece())
 * and reads it back (hwbp_decode_slot()); the pieces read back must be the
 * plan's and must cover the request exactly.  A failure refuses the load
 * (-EINVAL, with the preset and step in the kernel log), so that a core
 * miscompiled under the kernel's flags never arms a breakpoint.
 *
 * Context: module init and the files' calls (process context).  The core
 * allocates nothing and takes no lock.
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
	return ksym_filter_hist(m, m->private != NULL);
}
/* hist_fops: single_open() with the inode's i_private as m->private */
DEFINE_SHOW_ATTRIBUTE(hist);

/* ksym_trace_functions: "> file" (O_TRUNC) empties the table, every
 * write(2) appends lines (ksym.h); read: how many starts it holds. */
static int funcs_show(struct seq_file *m, void *v)
{
	mutex_lock(&ksym_mutex);
	seq_printf(m, "%zu\n", ksym_funcs_count());
	mutex_unlock(&ksym_mutex);
	return 0;
}

static int funcs_open(struct inode *inode, struct file *f)
{
	int ret;

	if (f->f_mode & FMODE_READ)
		return single_open(f, funcs_show, NULL);
	if (f->f_flags & O_TRUNC) {
		ret = ksym_funcs_reset();
		if (ret)
			return ret;
	}
	f->private_data = kzalloc(sizeof(struct ksym_frag), GFP_KERNEL);
	return f->private_data ? 0 : -ENOMEM;
}

static ssize_t funcs_write(struct file *f, const char __user *ubuf, size_t n, loff_t *pos)
{
	char *buf;
	int ret;

	if (f->f_mode & FMODE_READ)
		return -EINVAL;   /* (opened for reading and writing) */
	n = min_t(size_t, n, PAGE_SIZE);
	buf = memdup_user(ubuf, n);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	ret = ksym_funcs_write(f->private_data, buf, n);
	kfree(buf);
	return ret ? ret : (ssize_t)n;
}

/* A last line with no newline is taken at close; refused, it is logged
 * (close(2) has no error of its own to give). */
static int funcs_release(struct inode *inode, struct file *f)
{
	struct ksym_frag *frag = f->private_data;
	int ret;

	if (f->f_mode & FMODE_READ)
		return single_release(inode, f);
	if (frag->n) {
		ret = ksym_funcs_write(frag, "\n", 1);
		if (ret)
			pr_warn("hwbp_ksym: ksym_trace_functions: the last line refused at close: %s\n",
				hwbp_errno_name(ret));
	}
	kfree(frag);
	return 0;
}

static const struct file_operations funcs_fops = {
	.owner = THIS_MODULE,
	.open = funcs_open,
	.read = seq_read,
	.write = funcs_write,
	.llseek = no_llseek,
	.release = funcs_release,
};

/* hist_entries: 1 to KSYM_HIST_ENTRIES_MAX, while no watch is set. */
static int entries_show(struct seq_file *m, void *v)
{
	mutex_lock(&ksym_mutex);
	seq_printf(m, "%u\n", ksym_hist_entries);
	mutex_unlock(&ksym_mutex);
	return 0;
}

static int entries_open(struct inode *inode, struct file *f)
{
	return single_open(f, entries_show, NULL);
}

static ssize_t entries_write(struct file *f, const char __user *ubuf, size_t n, loff_t *pos)
{
	unsigned v;
	int ret = kstrtouint_from_user(ubuf, n, 10, &v);

	if (ret)
		return ret;
	if (v == 0 || v > KSYM_HIST_ENTRIES_MAX)
		return -EINVAL;
	mutex_lock(&ksym_mutex);
	if (ksym_filter_busy())
		ret = -EBUSY;
	else
		ksym_hist_entries = v;
	mutex_unlock(&ksym_mutex);
	return ret ? ret : (ssize_t)n;
}

static const struct file_operations entries_fops = {
	.owner = THIS_MODULE,
	.open = entries_open,
	.read = seq_read,
	.write = entries_write,
	.llseek = seq_lseek,
	.release = single_release,
};

static int __init hwbp_ksym_init(void)
{
	struct dentry *f[5];
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
	f[0] = debugfs_create_file("ksym_trace_filter", 0644, dir, NULL, &filter_fops);
	f[1] = debugfs_create_file("ksym_trace_hist", 0444, dir, NULL, &hist_fops);
	/* (i_private non-NULL: the raw form) */
	f[2] = debugfs_create_file("ksym_trace_hist_raw", 0444, dir, (void *)1, &hist_fops);
	f[3] = debugfs_create_file("ksym_trace_functions", 0644, dir, NULL, &funcs_fops);
	f[4] = debugfs_create_file("hist_entries", 0644, dir, NULL, &entries_fops);
	ret = IS_ERR(dir) ? PTR_ERR(dir) : 0;
	for (i = 0; ret == 0 && i < ARRAY_SIZE(f); i++)
		ret = IS_ERR(f[i]) ? PTR_ERR(f[i]) : 0;
	if (ret == 0)
		ret = ksym_race_init(dir);
	if (ret)
		debugfs_remove(dir);
	return ret;
}

/* rmmod while watches are armed: every one unregistered first. */
static void __exit hwbp_ksym_exit(void)
{
	debugfs_remove(dir);   /* (recursive since Linux 5.6) */
	ksym_race_exit();
	ksym_filter_clear();
	ksym_funcs_free();
}

module_init(hwbp_ksym_init);
module_exit(hwbp_ksym_exit);
MODULE_LICENSE("Dual MIT/GPL");
MODULE_DESCRIPTION("hwbp's core in the kernel: the ksym tracer's base");
