/* SPDX-License-Identifier: MIT */
/*
 * What a sample's watch catches (race/race_int.h): the other thread's
 * access decoded where the hardware stopped it (after the access on x86,
 * before it on arm64: the CPU's data_timing), judged (two reads, an
 * atomic instruction, an atomic object or atomic code are no race), and
 * recorded with what names it while both threads are still stopped (its
 * bytes' owner, its typed name, each side's callers); and the reads of
 * the process and its synchronisation variables that the sample shares.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/uio.h>

#include "race/race_int.h"

/* @len bytes of process memory at @addr (code or data). */
int hwbpi_race_read_mem(pid_t pid, uint64_t addr, void *buf, size_t len)
{
	struct iovec l = { buf, len }, r = { (void *)(uintptr_t)addr, len };

	return process_vm_readv(pid, &l, 1, &r, 1, 0) == (ssize_t)len ? 0 : -EFAULT;
}

bool hwbpi_race_is_syncvar(const struct hwbpi_race_loop *L, uint64_t lo, uint64_t len)
{
	for (unsigned i = 0; i < L->nsync; i++)
		if (L->syncvar[i] >= lo && L->syncvar[i] < lo + len)
			return true;
	return false;
}

/* An address an atomic instruction was caught at: a synchronisation
 * variable, not sampled again (the oldest forgotten when full). */
void hwbpi_race_add_syncvar(struct hwbpi_race_loop *L, uint64_t addr)
{
	if (hwbpi_race_is_syncvar(L, addr, 1))
		return;
	if (L->nsync < HWBPI_RACE_SYNCVARS)
		L->syncvar[L->nsync++] = addr;
	else
		L->syncvar[L->sync_at++ % HWBPI_RACE_SYNCVARS] = addr;
}

static int read_fn(void *arg, uint64_t addr, void *buf, size_t len)
{
	return hwbpi_race_read_mem(*(pid_t *)arg, addr, buf, len);
}

/* Whether the object at @addr is atomic by its variable's type, or the
 * type a global pointer to it has (typed.c).  Then no access to it races
 * (C11 5.1.2.4p25). */
bool hwbpi_race_atomic_object(struct hwbpi_race_loop *L, uint64_t addr)
{
	char name[8];
	bool atomic = false;

	return hwbpi_race_typed(L->r, addr, read_fn, &L->pid, name, sizeof(name), &atomic) == 0 &&
	       atomic;
}

/* ---- what a watch catches ------------------------------------------------ */

/* The code read at @start (@len bytes) as the program has it: the other
 * traps planted there replaced by the bytes they hide, or a decoder
 * walking forward from the function's start would fall out of step at
 * the first one. */
static void untrap(const struct hwbpi_race_loop *L, uint8_t *code, uint64_t start, uint64_t len)
{
	for (unsigned i = 0; i < L->traps.n; i++) {
		const struct hwbpi_trap *t = &L->traps.t[i];

		if (t->refs && t->addr >= start && t->addr + hwbpi_linux_trap_len <= start + len)
			memcpy(code + (t->addr - start), t->orig, hwbpi_linux_trap_len);
	}
}

/* The instruction a data trap came after (x86: the one that ended at the
 * PC, decoded forward from its function's start), into @in[0..*@n). */
static int decode_after(struct hwbpi_race_loop *L, struct rthr *th, uint64_t pc,
			const struct hwbpi_insn_regs *regs, struct hwbpi_insn in[2], unsigned *n)
{
	const struct hwbp_sym *f;
	uint64_t len;

	if (!L->ia->at_trap)
		return -EOPNOTSUPP;
	if (!(f = hwbp_symtab_func(L->r->syms, pc - 1)) || pc - f->addr > sizeof(L->code) - 16)
		return -ENOENT;
	len = pc - f->addr + HWBPI_RACE_INSN_MAX;
	if (hwbpi_race_read_mem(th->tid, f->addr, L->code, (size_t)len) &&
	    hwbpi_race_read_mem(th->tid, f->addr, L->code, (size_t)(len = pc - f->addr)))
		return -EFAULT;
	untrap(L, L->code, f->addr, len);
	return L->ia->at_trap(L->dec, L->code, (size_t)len, f->addr, pc, regs, in, n);
}

/* The instruction a data exception came before (arm64: Arm ARM D2.10.5,
 * the watchpoint exception is taken before the access, ELR on the load
 * or store), decoded at the PC from the registers it has not changed yet,
 * into @in[0] (*@n 1).  The thread then runs it once the caller has taken
 * its watch away (one catch per window), as the ptrace backend steps over
 * a hit. */
static int decode_before(struct hwbpi_race_loop *L, struct rthr *th, uint64_t pc,
			 const struct hwbpi_insn_regs *regs, struct hwbpi_insn in[2], unsigned *n)
{
	uint8_t code[HWBPI_RACE_INSN_MAX];
	int ret;

	if (hwbpi_race_read_mem(th->tid, pc, code, sizeof(code)) &&
	    hwbpi_race_read_mem(th->tid, pc, code, hwbpi_linux_trap_len))
		return -EFAULT;
	untrap(L, code, pc, hwbpi_linux_trap_len);
	if ((ret = L->ia->at_pc(L->dec, code, sizeof(code), pc, regs, &in[0])))
		return ret;
	*n = 1;
	return 0;
}

/* The instruction that made a data hit of stopped @th and its access that
 * touched @win's bytes, into *@b; *@atomic set for an atomic instruction.
 * Errors: -ENOENT (no function, no instruction, or no access there). */
static int caught_access(struct hwbpi_race_loop *L, struct rthr *th, const struct window *win,
			 struct hwbpi_race_side *b, bool *atomic)
{
	struct hwbpi_insn_regs regs;
	struct hwbpi_insn in[2];
	unsigned n = 0;
	uint64_t pc;
	int ret;

	if ((ret = hwbpi_linux_dwarf_regs(th->tid, regs.v, HWBPI_INSN_REGS, &regs.known)) ||
	    (ret = hwbpi_linux_pc(th->tid, &pc)))
		return ret;
	ret = L->hit_before ? decode_before(L, th, pc, &regs, in, &n) :
			      decode_after(L, th, pc, &regs, in, &n);
	if (ret)
		return ret;
	for (unsigned i = 0; i < n; i++)
		for (unsigned k = 0; k < in[i].n; k++) {
			const struct hwbpi_insn_access *x = &in[i].acc[k];

			if (!x->addr_known || x->addr >= win->lo + win->len || win->lo >= x->addr + x->size)
				continue;
			*b = (struct hwbpi_race_side){ in[i].ip, x->addr, x->size, x->kind, th->tid };
			*atomic = in[i].atomic;
			return 0;
		}
	/* An access whose address the registers after it no longer give (a
	 * load into its own base register: "mov rax, [rax]", everywhere in
	 * -O0 code).  When the watch held exactly the window's bytes and the
	 * instruction that ended at the PC has one memory access, the
	 * hardware has said where it went: those bytes. */
	if (win->exact && n >= 1 && in[0].n == 1 && !in[0].acc[0].addr_known) {
		const struct hwbpi_insn_access *x = &in[0].acc[0];

		*b = (struct hwbpi_race_side){ in[0].ip, win->lo, x->size, x->kind, th->tid };
		*atomic = in[0].atomic;
		return 0;
	}
	return -ENOENT;
}

/* A race caught the first time: what holds its bytes, and the callers of
 * each side's function (@a held, @b stopped at its hit, 0: none), read
 * now, while both threads are stopped where they made their accesses. */
void hwbpi_race_first_seen(struct hwbpi_race_loop *L, struct hwbpi_race_pair *p, pid_t a, pid_t b,
		       uint64_t lo)
{
	unsigned depth = L->r->stack_depth;
	bool atomic;

	hwbpi_race_where(L->pid, lo, p->where, sizeof(p->where));
	/* a heap object's name needs the pointers' values: now */
	hwbpi_race_typed(L->r, lo, read_fn, &L->pid, p->expr, sizeof(p->expr), &atomic);
	if (!L->uw_ok || !depth)
		return;
	p->nstack[0] = hwbpi_unwind_thread(&L->uw, a, p->stack[0], depth);
	if (b)
		p->nstack[1] = hwbpi_unwind_thread(&L->uw, b, p->stack[1], depth);
}

/* Record the race of @win's access with @b. */
static void record(struct hwbpi_race_loop *L, const struct window *win,
		   const struct hwbpi_race_side *b)
{
	struct hwbpi_race_pair p;
	long i;

	memset(&p, 0, sizeof(p));
	p.a = win->a;
	p.b = *b;
	p.lo = win->lo;
	p.len = win->len;
	i = hwbpi_race_pairs_add(&L->r->pairs, &p);
	if (i >= 0 && L->r->pairs.p[i].count == 1)
		hwbpi_race_first_seen(L, &L->r->pairs.p[i], win->owner, b->tid, win->lo);
	L->r->counts.conflicts++;
}

void hwbpi_race_on_hit(struct hwbpi_race_loop *L, struct rthr *th)
{
	struct window *win = NULL;
	struct hwbpi_race_side b;
	bool atomic = false;

	/* A hit belongs to the window the thread was armed for: the one now,
	 * or (its trap delivered after its disarming stop) the one before,
	 * whose held thread had not run its instruction when it was made. */
	if (L->w.st != W_IDLE && th->win == L->w.id)
		win = &L->w;
	else if (th->win && th->win == L->last.id)
		win = &L->last;
	if (win) {
		int ret = caught_access(L, th, win, &b, &atomic);

		win->hit = true;
		if (ret == 0 && !((win->a.kind | b.kind) & HWBP_W))
			ret = -ENOENT;   /* two reads: no race (an RW watch's read of a write) */
		if (ret == 0 && !atomic && (hwbpi_race_atomic_code(L->r, b.ip) ||
					    hwbpi_race_atomic_object(L, b.addr))) {
			L->r->counts.atomic_objects++;
			hwbpi_race_add_syncvar(L, win->lo);
			win->caught = true;
		} else if (ret == 0 && atomic) {
			L->r->counts.atomic++;
			hwbpi_race_add_syncvar(L, win->lo);
			win->caught = true;
		} else if (ret == 0) {
			record(L, win, &b);
			win->caught = true;
		} else if (win->exact) {
			/* the hardware saw the bytes touched, the decoder not how */
			L->r->counts.undecoded++;
			win->caught = true;
		}
		/* One catch per thread and window: its watch off for the rest. */
		th->quiet_win = win->id;
		if (win == &L->w && th->armed && hwbpi_linux_write(th->tid, &L->cpu, &L->off) == 0)
			th->armed = false;
	}
	hwbpi_linux_hit_done(th->tid);
}

