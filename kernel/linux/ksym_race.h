/* SPDX-License-Identifier: MIT */
/*
 * The race detector's two halves (kernel/linux/): ksym_race.c, the
 * sampling (kprobes, the watches, the records) and its start and stop;
 * ksym_race_files.c, race_ctl's commands and the debugfs files.  Every
 * call here but ksym_race_rec() is made with ksym_race_mutex held.
 */
#ifndef HWBP_KSYM_RACE_H
#define HWBP_KSYM_RACE_H

#include <linux/kprobes.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/types.h>

#define RACE_SITES_MAX 1024
#define RACE_RECS 256
#define RACE_DELAY_MAX 500u
#define RACE_DUTY_MAX 50000u

struct race_site {
	struct kprobe kp;
	u64 disp;
	s32 coef[2];
	s8 reg[2];
	u8 size, kind;             /* HWBP_R, HWBP_W, both */
	bool on;                   /* its kprobe registered */
};

struct race_rec {
	u64 a_ip, b_ip, addr, before, after;
	u32 size, a_kind, b_kind;
	bool b_exact;              /* b_ip is the instruction's first byte (a site's) */
	int a_cpu, b_cpu;
	pid_t a_pid, b_pid;
	char a_comm[TASK_COMM_LEN], b_comm[TASK_COMM_LEN];
};

extern struct mutex ksym_race_mutex;

/* A site added (its kprobe's address, access and kind filled; the rest
 * the sampler's).  Errors: -EBUSY (running), -E2BIG, -ENOMEM. */
int ksym_race_add(const struct race_site *s);
/* Kprobes on every site, at most @rate samples a second of @delay_us.
 * Errors: -EBUSY, -ENOENT (no site, or no kprobe placed), -ERANGE (the
 * bound), -ECHILD (one CPU online), -EOPNOTSUPP, -ENOSPC, Linux's
 * register_wide_hw_breakpoint() errors.  Context: process. */
int ksym_race_start(unsigned rate, unsigned delay_us);
/* Every kprobe and breakpoint unregistered, every IPI run; nothing when
 * stopped.  Context: process (sleeps). */
void ksym_race_stop(void);
/* Stop, and forget the sites, the records and the counts. */
void ksym_race_clear(void);
/* race_ctl's line: the state and the counts. */
void ksym_race_status(struct seq_file *m);
/* Record @i into *@out: false past the last.  Any context but NMI. */
bool ksym_race_rec(unsigned i, struct race_rec *out);

/* At load: the per-CPU IPIs' csds.  At exit: the sites freed. */
void ksym_race_csd_init(void);
void ksym_race_free(void);

#endif /* HWBP_KSYM_RACE_H */
