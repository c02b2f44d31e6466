// SPDX-License-Identifier: MIT
/*
 * The race detector in the kernel (hwbp race --kernel): DataCollider's
 * method (Erickson et al., OSDI 2010) on kernel code.  User space picks
 * the instructions (it has the decoder: the module has none) and writes
 * each one's access as a linear form of registers into race_ctl:
 *   add 0xIP KIND SIZE 0xDISP R1 C1 R2 C2   the access at IP is SIZE bytes at
 *                 DISP + C1*reg(R1) + C2*reg(R2) (R: a DWARF register
 *                 number, -1 none; a RIP-relative address is given
 *                 resolved in DISP); KIND r, w or rw
 *   start RATE DELAY_US   kprobes on every site added; at most RATE
 *                 samples a second, each holding its CPU DELAY_US
 *   stop          every kprobe and breakpoint unregistered, the sites kept
 *   clear         stop, and the sites and the records forgotten
 * A sample (the kprobe's pre-handler, atomic context, IRQs off on x86):
 * the address computed from pt_regs, its bytes read, a data watch armed
 * on every OTHER CPU (a read: writes only; a write: reads and writes),
 * a busy wait of DELAY_US, the watches disarmed, the bytes read again.
 * A watch that fired, or bytes that changed, is a race: one record in
 * race_reports ("A_IP A_CPU A_PID A_KIND B_IP B_EXACT B_KIND B_CPU B_PID
 * ADDR SIZE BEFORE AFTER A_COMM B_COMM", B_IP 0 when nobody was caught:
 * an unseen writer; B_EXACT 1: B_IP is a site's first byte and B_KIND
 * its kind, else B_IP is the hardware's, past the access on x86, and
 * B_KIND 0).
 *
 * The watches are one breakpoint per CPU, registered at start
 * (register_wide_hw_breakpoint()) on a placeholder no code touches, since
 * nothing may be registered from a kprobe handler; a sample re-points
 * each other CPU's slot from an IPI, sent with
 * smp_call_function_single_async() (kernel/smp.c: callable with IRQs
 * disabled, with a caller-owned csd; an async csd is unlocked before its
 * function runs, so a csd still queued will read the newest state), the
 * registers written by ksym_arch_race_arm() (ksym_model.c says why
 * directly).  race_seq is odd while a sample is armed; a CPU arms only
 * when it read the same odd value before and after reading race_cur.
 *
 * The bound: DELAY_US at most RACE_DELAY_MAX (500 us) and RATE *
 * DELAY_US at most RACE_DUTY_MAX (50 ms a second); a sample waits at
 * most DELAY_US for the other CPUs to arm, then DELAY_US: a CPU is held
 * with IRQs off (the int3 path: the post-handler keeps the kprobes from
 * being optimised) for at most 1 ms at a time and 10% of a second in all,
 * while
 * the soft-lockup detector wants 10 s without a schedule and RCU's stall
 * warning 21 s without a quiescent state; one sample at a time in the
 * whole system (race_busy).
 */
#include <linux/atomic.h>
#include <linux/delay.h>
#include <linux/hw_breakpoint.h>
#include <linux/kprobes.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/uaccess.h>

#include "ksym.h"
#include "ksym_race.h"

struct race_cpu {
	call_single_data_t csd;    /* initialised once (ksym_race_init()): never
				    * while it may still be queued */
	atomic_t pending;          /* async csds sent, not yet run */
	int slot;                  /* our breakpoint's debug slot, -1: none */
	unsigned long saved;       /* its registered type and length bits */
	int armed_seq;             /* the race_seq its slot was last armed for */
	struct race_site *stepping;   /* our kprobe's instruction runs out of line
				       * here now (pre- to post-handler) */
};

DEFINE_MUTEX(ksym_race_mutex);         /* every command and read */
static struct race_site *sites;
static unsigned nsites, nprobes;
static bool running;
static struct perf_event *__percpu *race_bp;
static DEFINE_PER_CPU(struct race_cpu, race_cpus);
/* (its own cache line: no access of ours or anyone's lands near it) */
static u64 race_placeholder ____cacheline_aligned_in_smp;

static unsigned rate = 10, delay_us = 200;
static atomic_t race_busy, race_seq, budget_left;
static unsigned long budget_epoch;
static struct { unsigned long addr; unsigned len; bool rw; int cpu; } race_cur;
static struct {
	atomic_t taken;
	unsigned long ip;
	unsigned kind;
	bool exact;
	int cpu;
	pid_t pid;
	char comm[TASK_COMM_LEN];
} hit;

static DEFINE_RAW_SPINLOCK(recs_lock);
static struct race_rec recs[RACE_RECS];
static unsigned nrecs;
static atomic64_t n_hits, n_samples, n_races, n_unseen, n_busy, n_badaddr, n_lost;

/* ------------------------------------------------------------ hot path */

/* The IPI: this CPU's slot to race_cur, or back to the placeholder.
 * @info: non-NULL from the async csd (counted in pending), NULL from
 * on_each_cpu(). */
static void race_ipi(void *info)
{
	struct race_cpu *c = this_cpu_ptr(&race_cpus);
	unsigned long addr;
	unsigned len;
	bool rw;
	int s1, s2;

	if (c->slot >= 0) {
		s1 = atomic_read(&race_seq);
		smp_rmb();
		addr = READ_ONCE(race_cur.addr);
		len = READ_ONCE(race_cur.len);
		rw = READ_ONCE(race_cur.rw);
		smp_rmb();
		s2 = atomic_read(&race_seq);
		if (s1 == s2 && (s1 & 1) && READ_ONCE(race_cur.cpu) != smp_processor_id()) {
			ksym_arch_race_arm(c->slot, addr, len, rw);
			smp_wmb();
			WRITE_ONCE(c->armed_seq, s1);
		} else {
			ksym_arch_race_disarm(c->slot, (unsigned long)&race_placeholder, c->saved);
		}
	}
	if (info)
		atomic_dec(&c->pending);
}

/* Each other CPU's IPI sent; returns how many CPUs have a slot. */
static unsigned race_kick_others(void)
{
	int cpu, me = smp_processor_id();
	unsigned n = 0;

	/* (cpu_online_mask read with preemption off: a CPU going away
	 * meanwhile runs its queued csds in smpcfd_dying_cpu()) */
	for_each_online_cpu(cpu) {
		struct race_cpu *c = per_cpu_ptr(&race_cpus, cpu);

		if (cpu == me || c->slot < 0)
			continue;
		n++;
		atomic_inc(&c->pending);
		if (smp_call_function_single_async(cpu, &c->csd))
			atomic_dec(&c->pending);   /* -EBUSY: the queued one reads the state */
	}
	return n;
}

/* Whether every other CPU with a slot armed it for sample @seq. */
static bool race_all_armed(int seq)
{
	int cpu, me = smp_processor_id();

	for_each_online_cpu(cpu) {
		struct race_cpu *c = per_cpu_ptr(&race_cpus, cpu);

		if (cpu != me && c->slot >= 0 && READ_ONCE(c->armed_seq) != seq)
			return false;
	}
	return true;
}

/* One of RATE a second (jiffies' seconds). */
static bool budget_take(void)
{
	unsigned long now = jiffies / HZ, old = READ_ONCE(budget_epoch);

	if (old != now && cmpxchg(&budget_epoch, old, now) == old)
		atomic_set(&budget_left, rate);
	return atomic_dec_if_positive(&budget_left) >= 0;
}

/* perf's overflow handler of our breakpoint (the debug exception): the
 * first access caught during a sample, on another CPU. */
static void race_hit(struct perf_event *bp, struct perf_sample_data *data, struct pt_regs *regs)
{
	struct race_site *st = this_cpu_read(race_cpus.stepping);

	if (!(atomic_read(&race_seq) & 1) || READ_ONCE(race_cur.cpu) == smp_processor_id())
		return;
	atomic64_inc(&n_hits);
	if (atomic_cmpxchg(&hit.taken, 0, 1))
		return;
	/* An access by one of our sites' instructions runs out of line (a
	 * copy in kprobes' instruction slot, between our pre- and post-
	 * handler, IRQs off): its IP is the copy's, so the site names it. */
	hit.exact = st != NULL;
	hit.ip = st ? (unsigned long)st->kp.addr : instruction_pointer(regs);
	hit.kind = st ? st->kind : 0;
	hit.cpu = smp_processor_id();
	hit.pid = current->pid;
	memcpy(hit.comm, current->comm, TASK_COMM_LEN);
	smp_wmb();
	atomic_set(&hit.taken, 2);
}

/* The watch for @size bytes at @addr: itself where the hardware can (1,
 * 2, 4, 8 bytes, aligned), else the aligned 8 bytes holding its first. */
static void watch_of(unsigned long addr, unsigned size, unsigned long *lo, unsigned *len)
{
	if ((size == 1 || size == 2 || size == 4 || size == 8) && !(addr & (size - 1))) {
		*lo = addr;
		*len = size;
	} else {
		*lo = addr & ~7ul;
		*len = 8;
	}
}

static bool addr_ok(unsigned long a, unsigned n)
{
	/* (the direct map, the kernel image, vmalloc and modules; never
	 * the CPU entry area or user memory) */
	if (virt_addr_valid((void *)a) && virt_addr_valid((void *)(a + n - 1)))
		return true;
	if (is_vmalloc_addr((void *)a))
		return true;
#ifdef MODULES_VADDR
	/* (is_vmalloc_or_module_addr() is not exported) */
	return a >= MODULES_VADDR && a + n <= MODULES_END;
#else
	return false;
#endif
}

static void record(const struct race_site *s, unsigned long addr, u64 before, u64 after, bool seen)
{
	unsigned long flags;
	struct race_rec *r;

	raw_spin_lock_irqsave(&recs_lock, flags);
	if (nrecs == RACE_RECS) {
		raw_spin_unlock_irqrestore(&recs_lock, flags);
		atomic64_inc(&n_lost);
		return;
	}
	r = &recs[nrecs++];
	memset(r, 0, sizeof(*r));
	r->a_ip = (u64)(unsigned long)s->kp.addr;
	r->a_kind = s->kind;
	r->a_cpu = smp_processor_id();
	r->a_pid = current->pid;
	memcpy(r->a_comm, current->comm, TASK_COMM_LEN);
	r->addr = addr;
	r->size = s->size;
	r->before = before;
	r->after = after;
	if (seen) {
		r->b_ip = hit.ip;
		r->b_exact = hit.exact;
		r->b_kind = hit.kind;
		r->b_cpu = hit.cpu;
		r->b_pid = hit.pid;
		memcpy(r->b_comm, hit.comm, TASK_COMM_LEN);
	}
	raw_spin_unlock_irqrestore(&recs_lock, flags);
}

static unsigned long site_addr(const struct race_site *s, struct pt_regs *regs, bool *ok)
{
	unsigned long a = (unsigned long)s->disp, v;
	int i;

	*ok = true;
	for (i = 0; i < 2; i++) {
		if (s->reg[i] < 0)
			continue;
		if (ksym_arch_race_reg(regs, s->reg[i], &v)) {
			*ok = false;
			return 0;
		}
		a += v * (unsigned long)(long)s->coef[i];
	}
	return a;
}

/* The kprobe's pre-handler: one sample, or nothing (budget spent,
 * another sample running).  Allocates nothing, takes no sleeping lock. */
static int race_pre(struct kprobe *p, struct pt_regs *regs)
{
	struct race_site *s = container_of(p, struct race_site, kp);
	struct race_cpu *me = this_cpu_ptr(&race_cpus);
	unsigned n = min_t(unsigned, s->size, 8), len;
	unsigned long addr, lo;
	u64 before = 0, after = 0;
	unsigned wait_us, i;
	bool ok, seen;
	int seq;

	me->stepping = s;
	if (!budget_take())
		return 0;
	if (atomic_cmpxchg(&race_busy, 0, 1)) {
		atomic64_inc(&n_busy);
		return 0;
	}
	addr = site_addr(s, regs, &ok);
	if (!ok || !addr_ok(addr, s->size) || copy_from_kernel_nofault(&before, (void *)addr, n)) {
		atomic64_inc(&n_badaddr);
		goto out;
	}
	atomic64_inc(&n_samples);
	/* (our own slot may still hold an earlier sample's watch, its
	 * disarming IPI waiting for IRQs on: no watch here) */
	if (me->slot >= 0)
		ksym_arch_race_disarm(me->slot, (unsigned long)&race_placeholder, me->saved);
	watch_of(addr, s->size, &lo, &len);
	atomic_set(&hit.taken, 0);
	WRITE_ONCE(race_cur.addr, lo);
	WRITE_ONCE(race_cur.len, len);
	WRITE_ONCE(race_cur.rw, !!(s->kind & HWBP_W));
	WRITE_ONCE(race_cur.cpu, smp_processor_id());
	smp_wmb();
	seq = atomic_inc_return(&race_seq);   /* odd: armed */
	race_kick_others();
	/* The delay runs once every other CPU is armed (their IPIs take a
	 * while), waiting for that at most the delay itself: the CPU is
	 * held at most twice the delay.  Counted in udelay()s, not read
	 * from local_clock(): with IRQs off and an unstable TSC (QEMU),
	 * sched_clock_local() (kernel/sched/clock.c) clamps it to the last
	 * tick's time + TICK_NSEC, so it stops advancing and a wait on it
	 * never ends (seen: a soft lockup in the x86_64 guest). */
	wait_us = READ_ONCE(delay_us);
	for (i = 0; i < wait_us && !race_all_armed(seq); i++)
		udelay(1);
	udelay(wait_us);
	atomic_inc(&race_seq);              /* even: disarmed */
	race_kick_others();
	if (copy_from_kernel_nofault(&after, (void *)addr, n))
		after = before;
	seen = atomic_read(&hit.taken) == 2;
	smp_rmb();
	if (seen || before != after) {
		atomic64_inc(seen ? &n_races : &n_unseen);
		record(s, addr, before, after, seen);
	}
out:
	atomic_set(&race_busy, 0);
	return 0;
}

/* The post-handler: the site's instruction has run out of line.  (Its
 * being there also keeps the kprobe from being optimised into a jump,
 * kernel/kprobes.c, which would run the pre-handler without the int3's
 * IRQs off and the copied instruction where we cannot name it.) */
static void race_post(struct kprobe *p, struct pt_regs *regs, unsigned long flags)
{
	this_cpu_write(race_cpus.stepping, NULL);
}

/* ------------------------------------------------------- start, stop */

static void race_find_slot(void *info)
{
	struct race_cpu *c = this_cpu_ptr(&race_cpus);
	int slot = ksym_arch_race_slot((unsigned long)&race_placeholder, &c->saved);

	c->slot = slot < 0 ? -1 : slot;
}

void ksym_race_stop(void)
{
	bool waiting;
	unsigned i;
	int cpu;

	if (!running)
		return;
	/* unregister_kprobe() returns once no handler runs (it waits for
	 * an RCU grace period, kernel/kprobes.c): no sample after this */
	for (i = 0; i < nsites; i++)
		if (sites[i].on)
			unregister_kprobe(&sites[i].kp);
	on_each_cpu(race_ipi, NULL, 1);   /* (race_seq is even: every slot disarmed) */
	do {
		waiting = false;
		for_each_possible_cpu(cpu)
			if (atomic_read(&per_cpu_ptr(&race_cpus, cpu)->pending) > 0)
				waiting = true;
		if (waiting)
			msleep(1);
	} while (waiting);
	/* (an IPI handler runs with IRQs off, an RCU read-side section:
	 * after a grace period none is still returning into our code) */
	synchronize_rcu();
	unregister_wide_hw_breakpoint(race_bp);
	race_bp = NULL;
	running = false;
}

int ksym_race_start(unsigned r, unsigned d)
{
	struct perf_event_attr attr;
	unsigned long dummy;
	unsigned i, slots;
	int cpu, ret = 0;

	if (running)
		return -EBUSY;
	if (!nsites)
		return -ENOENT;
	if (!r || !d || d > RACE_DELAY_MAX || r * d > RACE_DUTY_MAX)
		return -ERANGE;
	if (num_online_cpus() < 2)
		return -ECHILD;   /* (no other CPU to race with) */
	hw_breakpoint_init(&attr);
	attr.bp_addr = (unsigned long)&race_placeholder;
	attr.bp_len = HW_BREAKPOINT_LEN_8;
	attr.bp_type = HW_BREAKPOINT_RW;
	race_bp = register_wide_hw_breakpoint(&attr, race_hit, NULL);
	if (IS_ERR((void __force *)race_bp)) {
		ret = PTR_ERR((void __force *)race_bp);
		race_bp = NULL;
		return ret;
	}
	for_each_possible_cpu(cpu) {
		struct race_cpu *c = per_cpu_ptr(&race_cpus, cpu);

		c->slot = -1;
		c->armed_seq = -1;
		c->stepping = NULL;
	}
	on_each_cpu(race_find_slot, NULL, 1);
	slots = 0;
	for_each_online_cpu(cpu)
		slots += per_cpu_ptr(&race_cpus, cpu)->slot >= 0;
	if (slots < 2) {
		/* (an arch whose slots ksym_model.c cannot re-point: -EOPNOTSUPP
		 * there; else the breakpoint is not installed where it should) */
		unregister_wide_hw_breakpoint(race_bp);
		race_bp = NULL;
		return slots ? -ENOSPC : ksym_arch_race_slot(0, &dummy) == -EOPNOTSUPP ?
		       -EOPNOTSUPP : -ENOSPC;
	}
	rate = r;
	delay_us = d;
	atomic_set(&race_seq, 0);
	atomic_set(&race_busy, 0);
	running = true;
	nprobes = 0;
	for (i = 0; i < nsites; i++) {
		struct race_site *s = &sites[i];
		kprobe_opcode_t *at = s->kp.addr;

		memset(&s->kp, 0, sizeof(s->kp));
		s->kp.addr = at;
		s->kp.pre_handler = race_pre;
		s->kp.post_handler = race_post;
		s->on = register_kprobe(&s->kp) == 0;
		nprobes += s->on;
	}
	if (!nprobes) {
		ksym_race_stop();
		return -ENOENT;
	}
	return 0;
}

/* ------------------------------------------------ the files' calls */

int ksym_race_add(const struct race_site *s)
{
	if (running)
		return -EBUSY;
	if (nsites == RACE_SITES_MAX)
		return -E2BIG;
	if (!sites) {
		sites = kcalloc(RACE_SITES_MAX, sizeof(*sites), GFP_KERNEL);
		if (!sites)
			return -ENOMEM;
	}
	sites[nsites++] = *s;
	return 0;
}

void ksym_race_clear(void)
{
	unsigned long flags;

	ksym_race_stop();
	nsites = 0;
	nprobes = 0;
	raw_spin_lock_irqsave(&recs_lock, flags);
	nrecs = 0;
	raw_spin_unlock_irqrestore(&recs_lock, flags);
	atomic64_set(&n_hits, 0), atomic64_set(&n_samples, 0), atomic64_set(&n_races, 0);
	atomic64_set(&n_unseen, 0), atomic64_set(&n_busy, 0), atomic64_set(&n_badaddr, 0);
	atomic64_set(&n_lost, 0);
}

void ksym_race_status(struct seq_file *m)
{
	seq_printf(m, "running %d sites %u probes %u rate %u delay_us %u samples %lld races %lld "
		   "unseen %lld hits %lld busy %lld badaddr %lld lost %lld\n", running, nsites,
		   nprobes, rate, delay_us, atomic64_read(&n_samples), atomic64_read(&n_races),
		   atomic64_read(&n_unseen), atomic64_read(&n_hits), atomic64_read(&n_busy),
		   atomic64_read(&n_badaddr), atomic64_read(&n_lost));
}

bool ksym_race_rec(unsigned i, struct race_rec *out)
{
	unsigned long flags;
	bool ok;

	raw_spin_lock_irqsave(&recs_lock, flags);
	ok = i < nrecs;
	if (ok)
		*out = recs[i];
	raw_spin_unlock_irqrestore(&recs_lock, flags);
	return ok;
}

/* (module exit) */
void ksym_race_free(void)
{
	kfree(sites);
	sites = NULL;
}

/* The csds, once: never while one may still be queued. */
void ksym_race_csd_init(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct race_cpu *c = per_cpu_ptr(&race_cpus, cpu);

		INIT_CSD(&c->csd, race_ipi, c);
		atomic_set(&c->pending, 0);
		c->slot = -1;
	}
}
