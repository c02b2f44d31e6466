/* SPDX-License-Identifier: MIT */
/*
 * The x86 harness's instructions run one at a time: every line while
 * RFLAGS.TF is on, INT3, INT1 (ICEBP), STI, MOV from DRn, a MOV to DRn
 * while TF is on or in a MOV SS shadow, and MOV SS together with the line
 * after it.  Each is generated here as bytes (the instruction, then a
 * `ret`) and entered through an IRETQ frame with TF as the line wants it
 * (boot.S x86_flags_call, x86_user_call), so that the instruction the
 * scenario names is the one that is stepped, and nothing of the harness
 * is.  Every exception of that code comes to x86_step_exception(), which
 * attributes it to its line by the saved RIP: at an instruction, a fault
 * (before); at the end of one, a trap (after) - which is what `expect ip`
 * and `timing` mean.  Intel SDM Vol. 3 §17.3.1.4 (single step), §6.8.3
 * (MOV SS: the next instruction runs in its shadow, so the two lines run
 * as one piece of code, the MOV SS first), §17.2.4 (general detect).
 *
 * Operands: the line's address in %rdi, MOV SS's (its word's address, or
 * the selector itself) in %rsi,
 * the port or the MOV-to-DR value in %rdx, the stores' 0xC3 bytes in %rcx
 * (stores keep the code arena all `ret`), set before the IRETQ.
 */
#include <errno.h>
#include <string.h>

#include <hwbp/x86.h>

#include "harness.h"
#include "platform.h"
#include "glue.h"
#include "smp.h"
#include "step.h"

#define RFLAGS_TF (1ull << 8)
#define RFLAGS_IOPL3 (3ull << 12)
#define RFLAGS_RF (1ull << 16)
#define SEL_KDATA 0x10

extern uint64_t x86_code_rsi, x86_code_rdx, x86_code_rcx;
extern char x86_flags_back[], x86_user_exit[];
uint64_t x86_flags_call(uint64_t target, uint64_t arg, uint64_t orflags);
uint64_t x86_user_call(uint64_t target, uint64_t arg, uint64_t rflags);

#define ARENA_B 0x10000000ull
#define ARENA_C 0x10010000ull
#define ARENA_SIZE 0x10000ull

/* This CPU's TF, and a MOV SS line held for the next line. */
static bool tf_cpu[X86_MAX_CPUS];
static struct {
	bool on;
	struct hwbp_sim_access a;
	unsigned cpl;
} held_cpu[X86_MAX_CPUS];
static struct hwbp_sim_result held_res;
static struct hwbp_sim_result resume_res;
static bool have_resume;
/* Bytes of the data arena a store line wrote (0xC3): a MOV SS loads a
 * selector, and only a null one (never stored to) is valid in ring 0. */
static uint8_t stored[ARENA_SIZE / 8];

/* The generated code (no NX in this kernel's page tables). */
static uint8_t code[64] __attribute__((aligned(64)));

/* One exception of the running code: its line (0, 1; -1: none of its
 * instructions) and whether it came before (a fault) or after. */
struct ev {
	uint64_t vec, rip, dr6;
	int line;
	bool before;
};

static volatile struct {
	bool active;
	unsigned n;                 /* instructions (lines): 1, or 2 after a MOV SS */
	uint64_t insn[2], next[2];  /* where each starts and where it ends */
	bool movdr[2];              /* a MOV DR: a #DB at it is general detect */
	uint64_t exec_target;       /* an `exec` line's instruction (RF on a fault) */
	uint64_t end;               /* where a skipped fault resumes: the `ret` */
	unsigned nev;
	struct ev ev[6];
} run;

void x86_step_set_tf(bool on)
{
	tf_cpu[x86_this_cpu()] = on;
}

bool x86_step_tf(void)
{
	return tf_cpu[x86_this_cpu()];
}

bool x86_step_holding(void)
{
	return held_cpu[x86_this_cpu()].on;
}

bool x86_step_busy(void)
{
	return tf_cpu[x86_this_cpu()] || held_cpu[x86_this_cpu()].on;
}

bool x86_step_wants(const struct hwbp_sim_access *a)
{
	return x86_step_busy() || a->op == HWBP_SIM_SWBP || a->op == HWBP_SIM_ICEBP || a->op == HWBP_SIM_STI ||
	       a->op == HWBP_SIM_MOVSS;
}

void x86_step_reset(void)
{
	memset(tf_cpu, 0, sizeof(tf_cpu));
	memset(held_cpu, 0, sizeof(held_cpu));
	memset(stored, 0, sizeof(stored));
	have_resume = false;
}

void x86_step_stored(uint64_t addr, uint64_t len)
{
	for (uint64_t b = addr; b < addr + len; b++)
		if (b >= ARENA_B && b - ARENA_B < ARENA_SIZE)
			stored[(b - ARENA_B) / 8] |= (uint8_t)(1u << ((b - ARENA_B) % 8));
}

static bool null_selector_at(uint64_t addr)
{
	for (uint64_t b = addr; b < addr + 2; b++)
		if (b < ARENA_B || b - ARENA_B >= ARENA_SIZE ||
		    (stored[(b - ARENA_B) / 8] >> ((b - ARENA_B) % 8)) & 1)
			return false;
	return true;   /* the arena is zeroed at boot */
}

/*
 * The bytes of one instruction at @p (Intel SDM Vol. 2 encodings, operands
 * as in the file comment); its length, 0 when this harness has no such
 * instruction.  @dr >= 0: MOV from (or, @set, to) DR@dr.
 */
static unsigned encode(uint8_t *p, const struct hwbp_sim_access *a, int dr, bool set)
{
	static const uint8_t rd[5][4] = {
		{ 0x0f, 0xb6, 0x07 },          /* movzbl (%rdi), %eax */
		{ 0x0f, 0xb7, 0x07 },          /* movzwl (%rdi), %eax */
		{ 0x8b, 0x07 },                /* movl (%rdi), %eax */
		{ 0x48, 0x8b, 0x07 },          /* movq (%rdi), %rax */
		{ 0xf3, 0x0f, 0x6f, 0x07 },    /* movdqu (%rdi), %xmm0 */
	};
	static const uint8_t rdlen[5] = { 3, 3, 2, 3, 4 };
	static const uint8_t wr[4][3] = {
		{ 0x88, 0x0f },                /* movb %cl, (%rdi) */
		{ 0x66, 0x89, 0x0f },          /* movw %cx, (%rdi) */
		{ 0x89, 0x0f },                /* movl %ecx, (%rdi) */
		{ 0x48, 0x89, 0x0f },          /* movq %rcx, (%rdi) */
	};
	static const uint8_t wrlen[4] = { 2, 3, 2, 3 };
	int k = -1;

	if (dr >= 0) {
		/* 0F 21 /r mov %drN, %rax; 0F 23 /r mov %rdx, %drN */
		p[0] = 0x0f;
		p[1] = set ? 0x23 : 0x21;
		p[2] = (uint8_t)(0xc0 | (dr << 3) | (set ? 2 : 0));
		return 3;
	}
	switch (a->size) {
	case 1: k = 0; break;
	case 2: k = 1; break;
	case 4: k = 2; break;
	case 8: k = 3; break;
	case 16: k = 4; break;
	}
	switch (a->op) {
	case HWBP_SIM_READ:
		if (k < 0)
			return 0;
		memcpy(p, rd[k], rdlen[k]);
		return rdlen[k];
	case HWBP_SIM_WRITE:
		if (k < 0 || k > 3)
			return 0;
		memcpy(p, wr[k], wrlen[k]);
		return wrlen[k];
	case HWBP_SIM_IO:
		/* in (%dx), %al / %ax / %eax */
		if (a->size == 1) { p[0] = 0xec; return 1; }
		if (a->size == 2) { p[0] = 0x66; p[1] = 0xed; return 2; }
		if (a->size == 4) { p[0] = 0xed; return 1; }
		return 0;
	case HWBP_SIM_SWBP:
		p[0] = 0xcc;                   /* int3 */
		return 1;
	case HWBP_SIM_ICEBP:
		p[0] = 0xf1;                   /* int1 */
		return 1;
	case HWBP_SIM_STI:
		p[0] = 0xfb;                   /* sti */
		return 1;
	case HWBP_SIM_MOVSS:
		p[0] = 0x8e;                   /* mov (%rsi), %ss / mov %esi, %ss */
		p[1] = a->size ? 0x16 : 0xd6;
		return 2;
	}
	return 0;
}

/* ------------------------------------------------------------ exceptions */

bool x86_step_exception(struct x86_frame *f)
{
	struct ev e = { f->vector, f->rip, 0, -1, false };
	struct hwbp_status st;

	if (!run.active || (f->vector != HWBP_X86_GLUE_VEC_DB && f->vector != X86_VEC_BP &&
			    f->vector != HWBP_X86_GLUE_VEC_UD && f->vector != HWBP_X86_GLUE_VEC_GP))
		return false;
	if (f->vector == HWBP_X86_GLUE_VEC_DB) {
		hwbp_x86_db_entry(f->rip, &st);
		e.dr6 = st.u.x86.dr6;
	}
	/* At an instruction: a fault, unless it is the trap that ends the
	 * one before (a MOV SS) - a #DB there is general detect only at a
	 * MOV DR, an execute breakpoint only at `exec`'s.  Faults first. */
	for (unsigned k = 0; k < run.n && e.line < 0; k++)
		if (f->rip == run.insn[k] &&
		    (f->vector != HWBP_X86_GLUE_VEC_DB || run.movdr[k] || f->rip == run.exec_target)) {
			e.line = (int)k;
			e.before = true;
		}
	for (unsigned k = 0; k < run.n && e.line < 0; k++)
		if (f->rip == run.next[k])
			e.line = (int)k;
	if (run.nev < sizeof(run.ev) / sizeof(run.ev[0]))
		run.ev[run.nev++] = e;
	if (e.before && f->rip == run.exec_target) {
		/* An execute breakpoint: return with RF so that it runs (and,
		 * with TF, is stepped: the trap after is `resume`'s line). */
		f->rflags |= RFLAGS_RF;
	} else if (e.before) {
		/* MOV DR general detect, #UD, #GP: the instruction is not run;
		 * nothing after it either, and nothing more is stepped. */
		f->rip = run.end;
		f->rflags &= ~RFLAGS_TF;
	} else if (e.line == (int)run.n - 1) {
		/* The last instruction is done: the `ret` is not stepped. */
		f->rflags &= ~RFLAGS_TF;
	}
	return true;
}

/* ------------------------------------------------------------ results */

static void status(struct hwbp_sim_result *res, const char *name, uint64_t v)
{
	if (res->nstatus < HWBP_SIM_MAX_STATUS) {
		strncpy(res->status[res->nstatus].name, name, sizeof(res->status[0].name) - 1);
		res->status[res->nstatus++].value = v;
	}
}

/* One exception as the simulator's x86 model reports it. */
static void fill(const struct ev *e, uint64_t insn, struct hwbp_sim_result *res)
{
	memset(res, 0, sizeof(*res));
	res->timing = e->before ? HWBP_TIMING_BEFORE : HWBP_TIMING_AFTER;
	switch (e->vec) {
	case HWBP_X86_GLUE_VEC_DB:
		res->cls = HWBP_SIM_DB;
		res->data_slots = (uint32_t)(e->dr6 & 0xf) & hwbp_x86_enabled_slots(hwbp_x86_dr7_shadow());
		res->st.u.x86.dr6 = e->dr6;
		res->st.ip = e->before && insn == run.exec_target ? insn : 0;
		status(res, "dr6", e->dr6);
		break;
	case X86_VEC_BP:
		res->cls = HWBP_SIM_BP;
		break;
	default:
		res->cls = e->vec == HWBP_X86_GLUE_VEC_UD ? HWBP_SIM_UD : HWBP_SIM_GP;
		res->st.u.x86.dr6 = hwbp_x86_dr_read(6);
		break;
	}
}

/* The exceptions of line @k, in order: the first is its result; a second
 * (the step trap after an execute fault) is `resume`'s. */
static void line_result(unsigned k, struct hwbp_sim_result *res)
{
	unsigned found = 0;

	memset(res, 0, sizeof(*res));
	for (unsigned i = 0; i < run.nev; i++) {
		const struct ev *e = (const struct ev *)&run.ev[i];

		if (e->line != (int)k)
			continue;
		if (found == 0)
			fill(e, run.insn[k], res);
		else if (found == 1)
			fill(e, run.insn[k], &resume_res), have_resume = true;
		found++;
	}
}

/* Exceptions that belong to no instruction of the code (QEMU's second
 * #DB at the handler's first instruction after a watchpoint that was
 * also stepped): said, as a comment the comparison skips. */
static void report_strays(void)
{
	for (unsigned i = 0; i < run.nev; i++)
		if (run.ev[i].line < 0)
			h_printf("# note x86: the next line also took an exception outside its instruction (vector %lu at rip 0x%lx, dr6 0x%lx)\n",
				 (unsigned long)run.ev[i].vec, (unsigned long)run.ev[i].rip,
				 (unsigned long)run.ev[i].dr6);
}

/* ------------------------------------------------------------ running */

/* The glue's shadow of DR6/DR7 after the generated code's MOV DR (or a
 * general-detect fault, which cleared GD). */
static void resync(bool gd_fault)
{
	if (gd_fault)
		hwbp_x86_dr_write(7, hwbp_x86_dr7_shadow() & ~HWBP_X86_GLUE_DR7_GD, 0);
	for (unsigned n = 0; n < 8; n++)
		if (n != 4 && n != 5)
			hwbp_x86_dr_read(n);
}

static int unsupported(const char *why)
{
	harness_why = why;
	return -EOPNOTSUPP;
}

int x86_step_run(const struct hwbp_sim_access *a, int dr, bool set, uint64_t value,
		 unsigned cpl, struct hwbp_sim_result *res)
{
	unsigned c = x86_this_cpu(), len, k = 0;
	uint64_t target, rax, flags, arena_fix = 0, movss_addr = 0;
	bool io = a && (a->op == HWBP_SIM_IO || a->op == HWBP_SIM_STI);
	bool gd_fault = false, second_movss = false;

	memset(res, 0, sizeof(*res));
	have_resume = false;
	if (a && a->op == HWBP_SIM_MOVSS && !held_cpu[c].on) {
		/* Held until the next line: the two run as one piece of code. */
		if (a->size && (cpl != 0 || !null_selector_at(a->addr)))
			return unsupported("a MOV SS from memory loads a selector: only a never-stored word in ring 0 is a valid (null) one");
		held_cpu[c].on = true;
		held_cpu[c].a = *a;
		held_cpu[c].cpl = cpl;
		return 1;
	}
	memset((void *)&run, 0, sizeof(run));
	run.exec_target = ~0ull;
	if (held_cpu[c].on) {
		const struct hwbp_sim_access *m = &held_cpu[c].a;

		held_cpu[c].on = false;
		movss_addr = m->size ? m->addr : 0;
		if (held_cpu[c].cpl != cpl)
			return unsupported("a MOV SS and the next line in different rings");
		if (m->size && dr >= 0)
			return unsupported("a MOV SS from memory before a MOV DR (a #DB at the MOV DR would be ambiguous)");
		if (a && a->op == HWBP_SIM_EXEC) {
			/* The MOV SS goes right before the arena's instruction. */
			if (a->addr < ARENA_C + 2 || a->addr - ARENA_C >= ARENA_SIZE)
				return unsupported("exec after a MOV SS needs C+2 or above");
			for (unsigned i = 0; i < 4; i++)
				if (((hwbp_x86_dr7_shadow() >> (2 * i)) & 3) &&
				    !((hwbp_x86_dr7_shadow() >> (16 + 4 * i)) & 3) &&
				    hwbp_x86_dr_read(i) == a->addr)
					return unsupported("an execute breakpoint on the instruction after a MOV SS");
			arena_fix = a->addr - 2;
			encode((uint8_t *)(uintptr_t)arena_fix, m, -1, false);
			run.insn[0] = arena_fix;
			run.next[0] = run.insn[1] = a->addr;
			run.next[1] = cpl ? (uint64_t)(uintptr_t)x86_user_exit :
					    (uint64_t)(uintptr_t)x86_flags_back;
			run.n = 2;
			target = arena_fix;
			goto go;
		}
		len = encode(code, m, -1, false);
		run.insn[0] = (uint64_t)(uintptr_t)code;
		run.next[0] = run.insn[0] + len;
		k = 1;
	}
	if (a && a->op == HWBP_SIM_EXEC) {
		run.insn[0] = run.exec_target = a->addr;
		run.next[0] = cpl ? (uint64_t)(uintptr_t)x86_user_exit : (uint64_t)(uintptr_t)x86_flags_back;
		run.n = 1;
		target = a->addr;
		goto go;
	}
	run.insn[k] = k ? run.next[0] : (uint64_t)(uintptr_t)code;
	len = encode((uint8_t *)(uintptr_t)run.insn[k], a, dr, set);
	if (!len)
		return unsupported("no generated form of this access");
	if (k && a && a->op == HWBP_SIM_MOVSS) {
		/* A second MOV SS: its selector in %edx (%rsi is the first's). */
		if (a->size)
			return unsupported("two MOV SS from memory in a row");
		((uint8_t *)(uintptr_t)run.insn[k])[1] = 0xd2;   /* mov %edx, %ss */
		second_movss = true;
	}
	run.movdr[k] = dr >= 0;
	run.next[k] = run.insn[k] + len;
	run.n = k + 1;
	if (a && a->op == HWBP_SIM_STI) {
		/* STI, then CLI (not stepped: TF is off by then). */
		((uint8_t *)(uintptr_t)run.next[k])[0] = 0xfa;
		((uint8_t *)(uintptr_t)run.next[k])[1] = 0xc3;
		run.end = run.next[k] + 1;
	} else {
		((uint8_t *)(uintptr_t)run.next[k])[0] = 0xc3;
		run.end = run.next[k];
	}
	target = run.insn[0];
go:
	if (!run.end)
		run.end = run.next[run.n - 1];
	/* A MOV SS's operand: its word's address, or the ring's selector. */
	x86_code_rsi = movss_addr ? movss_addr : cpl ? X86_SEL_UDATA : SEL_KDATA;
	x86_code_rdx = set ? value : a && a->op == HWBP_SIM_IO ? a->addr :
		       second_movss ? (cpl ? X86_SEL_UDATA : SEL_KDATA) : 0;
	x86_code_rcx = 0xc3c3c3c3c3c3c3c3ull;
	flags = tf_cpu[c] ? RFLAGS_TF : 0;
	__asm__ volatile("" ::: "memory");
	run.active = true;
	__asm__ volatile("" ::: "memory");
	if (cpl == 3)
		/* Ring 3: IOPL 3 for IN and STI (as kvm-unit-tests runs them). */
		rax = x86_user_call(target, a ? a->addr : 0, 0x2 | flags | (io ? RFLAGS_IOPL3 : 0));
	else
		rax = x86_flags_call(target, a ? a->addr : 0, flags);
	__asm__ volatile("" ::: "memory");
	run.active = false;
	/* A MOV SS of a null selector: the kernel's SS again. */
	__asm__ volatile("mov %0, %%ss" : : "r"((uint64_t)SEL_KDATA));
	if (arena_fix) {
		((uint8_t *)(uintptr_t)arena_fix)[0] = 0xc3;
		((uint8_t *)(uintptr_t)arena_fix)[1] = 0xc3;
	}
	if (a && a->op == HWBP_SIM_WRITE)
		x86_step_stored(a->addr, a->size);
	for (unsigned i = 0; i < run.nev; i++)
		if (run.ev[i].before && run.ev[i].vec == HWBP_X86_GLUE_VEC_DB && run.movdr[run.ev[i].line])
			gd_fault = true;
	if (dr >= 0)
		resync(gd_fault);
	report_strays();
	if (run.n == 2)
		line_result(0, &held_res);
	line_result(run.n - 1, res);
	/* A MOV from DR that completed: the value, after any trap's DR6. */
	if (dr >= 0 && !set && (res->cls == HWBP_SIM_NONE || res->timing == HWBP_TIMING_AFTER)) {
		char nm[4] = { 'd', 'r', (char)('0' + dr), '\0' };

		status(res, nm, rax);
	}
	return 0;
}

void x86_step_held(struct hwbp_sim_result *res)
{
	*res = held_res;
}

bool x86_step_resume(struct hwbp_sim_result *res)
{
	if (!have_resume)
		return false;
	*res = resume_res;
	have_resume = false;
	return true;
}
