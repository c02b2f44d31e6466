// SPDX-License-Identifier: MIT
/*
 * The race detector's files in /sys/kernel/debug/hwbp_ksym/ (ksym.h's
 * ksym_race_init()): race_ctl, whose commands ksym_race.c's header
 * comment lists, and race_reports, one line per record.  Each command
 * and each read holds ksym_race_mutex; the records are copied out one
 * at a time under their spinlock (the hot path appends to them).
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "ksym.h"
#include "ksym_race.h"

static int race_add(const char *line)
{
	unsigned long long ip, disp;
	char kind[4];
	int size, r1, c1, r2, c2;
	struct race_site site, *s = &site;

	if (sscanf(line, "add %llx %3s %d %llx %d %d %d %d", &ip, kind, &size, &disp,
		   &r1, &c1, &r2, &c2) != 8 || size < 1 || size > 64 || r1 < -1 || r1 > 63 ||
	    r2 < -1 || r2 > 63)
		return -EINVAL;
	memset(s, 0, sizeof(*s));
	if (!strcmp(kind, "r"))
		s->kind = HWBP_R;
	else if (!strcmp(kind, "w"))
		s->kind = HWBP_W;
	else if (!strcmp(kind, "rw"))
		s->kind = HWBP_R | HWBP_W;
	else
		return -EINVAL;
	s->kp.addr = (kprobe_opcode_t *)(unsigned long)ip;
	s->disp = disp;
	s->size = size;
	s->reg[0] = r1;
	s->coef[0] = c1;
	s->reg[1] = r2;
	s->coef[1] = c2;
	return ksym_race_add(s);
}

static int race_command(const char *line)
{
	unsigned r, d;
	int ret;

	mutex_lock(&ksym_race_mutex);
	if (!strncmp(line, "add ", 4)) {
		ret = race_add(line);
	} else if (sscanf(line, "start %u %u", &r, &d) == 2) {
		ret = ksym_race_start(r, d);
	} else if (!strcmp(line, "stop")) {
		ksym_race_stop();
		ret = 0;
	} else if (!strcmp(line, "clear")) {
		ksym_race_clear();
		ret = 0;
	} else {
		ret = -EINVAL;
	}
	mutex_unlock(&ksym_race_mutex);
	return ret;
}

static ssize_t ctl_write(struct file *f, const char __user *ubuf, size_t n, loff_t *pos)
{
	char buf[160];
	int ret;

	if (n == 0 || n >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, n))
		return -EFAULT;
	buf[n] = '\0';
	if (buf[n - 1] == '\n')
		buf[n - 1] = '\0';
	ret = race_command(buf);
	return ret ? ret : (ssize_t)n;
}

static int ctl_show(struct seq_file *m, void *v)
{
	mutex_lock(&ksym_race_mutex);
	ksym_race_status(m);
	mutex_unlock(&ksym_race_mutex);
	return 0;
}

static int ctl_open(struct inode *inode, struct file *f)
{
	return f->f_mode & FMODE_READ ? single_open(f, ctl_show, NULL) : 0;
}

static int ctl_release(struct inode *inode, struct file *f)
{
	return f->f_mode & FMODE_READ ? single_release(inode, f) : 0;
}

static const struct file_operations ctl_fops = {
	.owner = THIS_MODULE,
	.open = ctl_open,
	.read = seq_read,
	.write = ctl_write,
	.llseek = seq_lseek,
	.release = ctl_release,
};

/* (a comm's spaces would split the line: shown as '_') */
static void put_comm(struct seq_file *m, const char *c)
{
	char s[TASK_COMM_LEN];
	unsigned i;

	for (i = 0; i + 1 < TASK_COMM_LEN && c[i]; i++)
		s[i] = c[i] == ' ' || c[i] == '\t' ? '_' : c[i];
	s[i] = '\0';
	seq_printf(m, " %s", i ? s : "-");
}

static int reports_show(struct seq_file *m, void *v)
{
	struct race_rec r;
	unsigned i;

	mutex_lock(&ksym_race_mutex);
	for (i = 0; ksym_race_rec(i, &r); i++) {
		seq_printf(m, "0x%llx %d %d %u 0x%llx %d %u %d %d 0x%llx %u 0x%llx 0x%llx", r.a_ip,
			   r.a_cpu, r.a_pid, r.a_kind, r.b_ip, r.b_exact, r.b_kind, r.b_cpu, r.b_pid,
			   r.addr, r.size, r.before, r.after);
		put_comm(m, r.a_comm);
		put_comm(m, r.b_comm);
		seq_putc(m, '\n');
	}
	mutex_unlock(&ksym_race_mutex);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(reports);

int ksym_race_init(struct dentry *dir)
{
	struct dentry *a, *b;

	ksym_race_csd_init();
	a = debugfs_create_file("race_ctl", 0600, dir, NULL, &ctl_fops);
	b = debugfs_create_file("race_reports", 0400, dir, NULL, &reports_fops);
	return IS_ERR(a) ? PTR_ERR(a) : IS_ERR(b) ? PTR_ERR(b) : 0;
}

void ksym_race_exit(void)
{
	mutex_lock(&ksym_race_mutex);
	ksym_race_stop();
	mutex_unlock(&ksym_race_mutex);
	ksym_race_free();
}
