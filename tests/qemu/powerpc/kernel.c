/* SPDX-License-Identifier: MIT */
/*
 * ppc64 bare-metal harness: qemu-system-ppc64 -M powernv10 (POWER10 in
 * hypervisor state, under skiboot), big-endian, ELFv2.
 *
 * Memory: the first 1 GiB is mapped 1:1 by one radix 1 GiB page (read,
 * write, execute, not privileged), through both the process table (entry 0)
 * and the partition table (LPID 0 for hypervisor state, LPID 1 for the
 * MSR[HV] = 0 state the scenarios' `mode hv=0` asks for).  The harness runs
 * with MSR[IR|DR] = 1, as the simulator assumes (DAWRX[WT] is compared with
 * MSR[DR]); interrupts run in real mode (LPCR[AIL] = 0).
 *
 * Console and power-off through OPAL (skiboot's firmware calls).
 *
 * SMP: smp.c starts the other hardware threads (`-smp N`, HARNESS_SMP)
 * with OPAL_START_CPU; each runs thread_regs() (the same partition and
 * process tables, LPCR, DEC and MSR as CPU 0: those registers are per
 * thread) and waits in `stop` for a hypervisor doorbell.  arch_on_cpu()
 * is ppc_smp_call(): the runner's every command of a `mode cpu=N` section
 * runs on thread N.  The debug SPRs, the execution state (mode pr=/hv=),
 * the debug interrupt's record and ppc_mode_call's save area are each
 * thread's own (struct ppc_percpu, through SPRG0).
 */
#include <errno.h>
#include <string.h>

#include "harness.h"
#include "glue.h"
#include "smp.h"

/* OPAL tokens (skiboot include/opal-api.h). */
#define OPAL_CONSOLE_WRITE 1
#define OPAL_CEC_POWER_DOWN 5
#define OPAL_POLL_EVENTS 10
#define OPAL_CONSOLE_FLUSH 117
#define OPAL_SUCCESS 0
#define OPAL_BUSY (-2)
#define OPAL_BUSY_EVENT (-12)

/* MSR bits (LSB-0). */
#define MSR_SF (1ull << 63)
#define MSR_HV (1ull << 60)
#define MSR_VEC (1ull << 25)
#define MSR_VSX (1ull << 23)
#define MSR_EE (1ull << 15)
#define MSR_PR (1ull << 14)
#define MSR_FP (1ull << 13)
#define MSR_SE (1ull << 10)
#define MSR_BE (1ull << 9)
#define MSR_IR (1ull << 5)
#define MSR_DR (1ull << 4)

/* LPCR bits (Power ISA v3.1 Book III; QEMU target/ppc/cpu.h). */
#define LPCR_AIL (3ull << 23)   /* ISA 39:40 */
#define LPCR_UPRT (1ull << 22)  /* ISA 41 */
#define LPCR_HR (1ull << 20)    /* ISA 43 */
#define LPCR_HVICE (1ull << 1)  /* ISA 62 */
#define LPCR_HDICE (1ull << 0)  /* ISA 63 */

#define SPRN_PID 48
#define SPRN_DEC 22
#define SPRN_AMR 13
#define SPRN_IAMR 61
#define SPRN_LPCR 318
#define SPRN_LPID 319
#define SPRN_PTCR 464

#define mtspr(n, v) __asm__ volatile("mtspr " #n ", %0" : : "r"((uint64_t)(v)) : "memory")
#define mfspr(n) ({ uint64_t v__; __asm__ volatile("mfspr %0, " #n : "=r"(v__)); v__; })

/* start.S */
int64_t ppc_opal_call(uint64_t token, uint64_t a, uint64_t b, uint64_t c);
uint64_t ppc_mode_call(void (*fn)(uint64_t), uint64_t arg, uint64_t msr);
void ppc_ld1(uint64_t), ppc_ld2(uint64_t), ppc_ld4(uint64_t), ppc_ld8(uint64_t),
	ppc_ld16(uint64_t);
void ppc_st1(uint64_t), ppc_st2(uint64_t), ppc_st4(uint64_t), ppc_st8(uint64_t),
	ppc_st16(uint64_t);
void ppc_ld16q(uint64_t), ppc_st16q(uint64_t), ppc_ld32(uint64_t), ppc_st32(uint64_t);
void ppc_zero(uint64_t), ppc_exec(uint64_t);
/* the twins ending in `sc 1`, for ppc_mode_call with MSR[SE]/[BE] */
void ppc_ld1_s(uint64_t), ppc_ld2_s(uint64_t), ppc_ld4_s(uint64_t), ppc_ld8_s(uint64_t),
	ppc_ld16_s(uint64_t);
void ppc_st1_s(uint64_t), ppc_st2_s(uint64_t), ppc_st4_s(uint64_t), ppc_st8_s(uint64_t),
	ppc_st16_s(uint64_t);
void ppc_ld16q_s(uint64_t), ppc_st16q_s(uint64_t), ppc_ld32_s(uint64_t), ppc_st32_s(uint64_t);
void ppc_zero_s(uint64_t);
/* tw 31,0,0 and mfspr of a debug SPR, each then `sc 1` */
void ppc_trap_s(uint64_t), ppc_mfdawr0_s(uint64_t), ppc_mfdawr1_s(uint64_t),
	ppc_mfciabr_s(uint64_t), ppc_mfdawrx0_s(uint64_t), ppc_mfdawrx1_s(uint64_t);
void kmain(const void *fdt);
void ppc_bad_interrupt(uint64_t vec, uint64_t srr0, uint64_t srr1, uint64_t hsrr0,
		       uint64_t hsrr1, uint64_t dar, uint64_t dsisr);

/* Read by start.S. */
struct { uint64_t base, entry; } ppc_opal;
/* This thread's debug-interrupt record (start.S hit_common). */
#define hit_vec (ppc_this_percpu()->hit_vec)
#define hit_srr0 (ppc_this_percpu()->hit_srr0)
#define hit_srr1 (ppc_this_percpu()->hit_srr1)
#define hit_dsisr (ppc_this_percpu()->hit_dsisr)
#define hit_dar (ppc_this_percpu()->hit_dar)
#define hit_count (ppc_this_percpu()->hit_count)

/* CPU 0's stack (the other threads' and every unexpected-interrupt stack
 * are smp.c's), translation tables and the arenas (all in .bss, zeroed by
 * start.S). */
static uint8_t stack[65536] __attribute__((aligned(16), used));
static uint64_t radix_root[8192] __attribute__((aligned(65536)));   /* 13 bits */
static uint64_t radix_pud[512] __attribute__((aligned(4096)));      /* 9 bits */
static uint64_t part_table[512] __attribute__((aligned(4096)));     /* 256 x 16 B */
static uint64_t proc_table[512] __attribute__((aligned(4096)));     /* 256 x 16 B */
static uint8_t arena_b[65536] __attribute__((aligned(65536)));
static uint32_t arena_c[16384] __attribute__((aligned(65536)));

/* Symbols start.S takes the address of. */
extern uint8_t stack_top[];
__asm__(".globl stack_top\n.set stack_top, stack + 65536\n");

/* The MSR C runs with (every thread: start.S's doorbell entry reads it). */
uint64_t ppc_kernel_msr;
#define kernel_msr ppc_kernel_msr
/* HWBP_PPC_QUAD_SPLIT: 16-byte accesses always with lxvd2x/stxvd2x. */
#ifdef HWBP_PPC_QUAD_SPLIT
static const int quad_split = 1;
#else
static const int quad_split = 0;
#endif

/* ------------------------------------------------------------- console */

static char outbuf[256];
static unsigned outlen;

static void flush_out(void)
{
	unsigned off = 0;
	int tries = 0;

	while (off < outlen && tries++ < 100000) {
		uint64_t len = outlen - off;   /* big-endian, as OPAL wants */
		int64_t rc = ppc_opal_call(OPAL_CONSOLE_WRITE, 0, (uint64_t)&len,
					   (uint64_t)(outbuf + off));

		if (rc == OPAL_SUCCESS)
			off += (unsigned)len;
		else if (rc != OPAL_BUSY && rc != OPAL_BUSY_EVENT)
			break;
		if (rc != OPAL_SUCCESS || len == 0)
			ppc_opal_call(OPAL_POLL_EVENTS, 0, 0, 0);
	}
	outlen = 0;
}

void arch_putc(char c)
{
	outbuf[outlen++] = c;
	if (c == '\n' || outlen == sizeof(outbuf))
		flush_out();
}

static void puts_(const char *s)
{
	while (*s)
		arch_putc(*s++);
}

static void putx(uint64_t v)
{
	puts_("0x");
	for (int i = 60; i >= 0; i -= 4)
		arch_putc("0123456789abcdef"[(v >> i) & 15]);
}

__attribute__((noreturn)) void arch_exit(int code)
{
	h_printf("hwbp-ppc64: exit %d\n", code);
	flush_out();
	for (int i = 0; i < 100; i++)
		if (ppc_opal_call(OPAL_CONSOLE_FLUSH, 0, 0, 0) != OPAL_BUSY)
			break;
	for (;;) {
		int64_t rc = ppc_opal_call(OPAL_CEC_POWER_DOWN, 0, 0, 0);

		if (rc != OPAL_BUSY && rc != OPAL_BUSY_EVENT && rc != OPAL_SUCCESS)
			break;
		ppc_opal_call(OPAL_POLL_EVENTS, 0, 0, 0);
	}
	for (;;)
		ppc_opal_call(OPAL_POLL_EVENTS, 0, 0, 0);
}

void ppc_bad_interrupt(uint64_t vec, uint64_t srr0, uint64_t srr1, uint64_t hsrr0,
		       uint64_t hsrr1, uint64_t dar, uint64_t dsisr)
{
	outlen = 0;
	puts_("\nhwbp-ppc64: unexpected interrupt ");
	putx(vec);
	puts_(" srr0=");
	putx(srr0);
	puts_(" srr1=");
	putx(srr1);
	puts_(" hsrr0=");
	putx(hsrr0);
	puts_(" hsrr1=");
	putx(hsrr1);
	puts_(" dar=");
	putx(dar);
	puts_(" dsisr=");
	putx(dsisr);
	/* which thread (its ppc_percpu: SPRG0 is set first thing in kmain) */
	puts_(" cpu=");
	putx(ppc_this_percpu()->index);
	puts_(" pir=");
	putx(mfspr(1023));
	puts_("\n");
	arch_exit(3);
}

/* ---------------------------------------------------------------- MMU */

/* Radix: RTS field of a 52-bit tree (RTS = 52 - 31), as Linux RTS_FIELD(). */
#define RTS_FIELD(x) ((((uint64_t)(x) >> 3) & 3) << 61 | ((uint64_t)(x) & 7) << 5)
#define PATB_HR (1ull << 63)
#define R_PTE_VALID (1ull << 63)
#define R_PTE_LEAF (1ull << 62)
#define R_PTE_R (1ull << 8)
#define R_PTE_C (1ull << 7)
#define R_PTE_RWX 7ull

/* The tables, once (CPU 0): shared by every thread. */
static void mmu_tables(void)
{
	uint64_t tree = RTS_FIELD(21) | (uint64_t)radix_root | 13;

	/* 1 GiB leaf at the PUD level: real 0..1 GiB, any state, RWX. */
	radix_pud[0] = R_PTE_VALID | R_PTE_LEAF | 0 | R_PTE_R | R_PTE_C | R_PTE_RWX;
	radix_root[0] = R_PTE_VALID | (uint64_t)radix_pud | 9;
	/* process table entry 0 (PID 0) */
	proc_table[0] = tree;
	proc_table[1] = 0;
	/* partition table entries: LPID 0 (hypervisor) and LPID 1 (HV = 0) */
	for (int l = 0; l < 2; l++) {
		part_table[2 * l] = PATB_HR | tree;
		part_table[2 * l + 1] = (uint64_t)proc_table | 0;  /* PRTS 0: 4 KiB */
	}
	__asm__ volatile("ptesync" ::: "memory");
	kernel_msr = MSR_SF | MSR_HV | (1ull << 12) /* ME */ | MSR_IR | MSR_DR | MSR_FP |
		     MSR_VEC | MSR_VSX;
}

/*
 * This thread's translation and interrupt state: PTCR, LPIDR, PIDR, AMR,
 * IAMR, LPCR and DEC are each thread's own in QEMU (CPUPPCState.spr[],
 * one per vCPU), and none of them is assumed to be shared by a core: every
 * thread writes them all, then turns translation on.  Its debug SPRs start
 * cleared, as a reset would leave them.
 */
static void thread_regs(void)
{
	struct hwbp_regs zero;
	uint64_t lpcr;

	mtspr(464, (uint64_t)part_table | 0);   /* PTCR: PATS 0: 4 KiB */
	mtspr(319, 1);                          /* LPIDR: HV = 0 runs LPID 1 */
	mtspr(48, 0);                           /* PIDR */
	mtspr(13, 0);                           /* AMR */
	mtspr(61, 0);                           /* IAMR */
	lpcr = mfspr(318);
	lpcr &= ~(LPCR_AIL | LPCR_HVICE | LPCR_HDICE);
	lpcr |= LPCR_HR | LPCR_UPRT;
	mtspr(318, lpcr);
	mtspr(22, 0x7fffffff);                  /* DEC */
	__asm__ volatile("isync; ptesync" ::: "memory");
	__asm__ volatile("mtmsrd %0; isync" : : "r"(kernel_msr) : "memory");
	memset(&zero, 0, sizeof(zero));
	zero.arch = HWBP_ARCH_POWERPC;
	hwbp_glue_write_regs(&zero);
}

/* ------------------------------------------------------------- harness */

static struct hwbp_cpu cur_cpu;   /* the file's model: the same on every CPU */
/*
 * Each thread's execution state, indexed by ppc_this_cpu() (every arch_*
 * function runs on the CPU it acts on): `mode pr=`, `mode hv=`, the
 * MSR[SE]/MSR[BE] a traced access runs with (`step`, `set msr_se`,
 * `set msr_be`), and the access whose interrupt came before it completed
 * (a DSI, QEMU's CIABR trace), which `resume` completes.
 */
static int st_pr_cpu[PPC_MAX_CPUS], st_hv_cpu[PPC_MAX_CPUS];
static int st_se_cpu[PPC_MAX_CPUS], st_be_cpu[PPC_MAX_CPUS];
static int redo_cpu[PPC_MAX_CPUS];
static struct hwbp_sim_access last_cpu[PPC_MAX_CPUS];
#define st_pr (st_pr_cpu[ppc_this_cpu()])
#define st_hv (st_hv_cpu[ppc_this_cpu()])
#define st_se (st_se_cpu[ppc_this_cpu()])
#define st_be (st_be_cpu[ppc_this_cpu()])
#define redo (redo_cpu[ppc_this_cpu()])
#define last_acc (last_cpu[ppc_this_cpu()])

uint64_t arch_arena_b(void)
{
	return (uint64_t)arena_b;
}

uint64_t arch_arena_c(void)
{
	return (uint64_t)arena_c;
}

const char *arch_machine_model(void)
{
	return "power10";   /* -M powernv10 (run.sh) */
}

const char *arch_cpu_unsupported(const struct hwbp_cpu *cpu)
{
	if (cpu->arch != HWBP_ARCH_POWERPC)
		return "not a powerpc cpu (this is the ppc64 harness)";
	if (!(cpu->u.ppc.units & (HWBP_PPC_DAWR0 | HWBP_PPC_DAWR1)) &&
	    (cpu->u.ppc.units & HWBP_PPC_DABR))
		return "DABR/DABRX (ISA 2.06) do not exist on the POWER10 the harness runs "
		       "on (-M powernv10)";
	return NULL;
}

/* The harness's glue (harness.h) is the glue a kernel uses. */
int arch_write_regs(const struct hwbp_regs *regs)
{
	return hwbp_glue_write_regs(regs);
}

void arch_read_regs(struct hwbp_regs *regs)
{
	hwbp_glue_read_regs(regs);
}

unsigned arch_ncpus(void)
{
	return ppc_ncpus();
}

int arch_on_cpu(unsigned cpu, int (*fn)(void *), void *arg)
{
	return ppc_smp_call(cpu, fn, arg);
}

void arch_reset(const struct hwbp_cpu *cpu)
{
	struct hwbp_regs r;

	cur_cpu = *cpu;
	hwbp_regs_reset(cpu, &r);
	hwbp_glue_write_regs(&r);
	st_pr = 0;
	st_hv = 1;
	st_se = 0;
	st_be = 0;
	redo = 0;
}

int arch_set_reg(const char *name, uint64_t value, struct hwbp_sim_result *res)
{
	struct hwbp_regs r;
	int ret;

	memset(res, 0, sizeof(*res));
	/* The MSR bits a traced access runs with (`step` is MSR[SE]). */
	if (strcmp(name, "msr_se") == 0 || strcmp(name, "step") == 0) {
		st_se = value != 0;
		return 0;
	}
	if (strcmp(name, "msr_be") == 0) {
		st_be = value != 0;
		return 0;
	}
	hwbp_ppc_glue_shadow(&r);
	ret = hwbp_regs_set(&cur_cpu, &r, name, value);
	if (ret == -ENOENT)
		return -ENOENT;
	if (ret)
		return -EOPNOTSUPP;
	return hwbp_glue_write_regs(&r);
}

int arch_mode(const char *key, uint64_t value)
{
	if (value > 1)
		return -EOPNOTSUPP;
	if (strcmp(key, "pr") == 0)
		st_pr = (int)value;
	else if (strcmp(key, "hv") == 0)
		st_hv = (int)value;
	else
		return -EOPNOTSUPP;
	return 0;
}

static void status(struct hwbp_sim_result *res, const char *name, uint64_t v)
{
	if (res->nstatus >= HWBP_SIM_MAX_STATUS)
		return;
	strncpy(res->status[res->nstatus].name, name, sizeof(res->status[0].name) - 1);
	res->status[res->nstatus].value = v;
	res->nstatus++;
}

/* SRR1 bits 33:36 and 42:47 (IBM numbering): the interrupt's cause. */
#define SRR1_CAUSE 0x00000000783f0000ull
#define SRR1_CIABR 0x00100000ull        /* 43 */
#define SRR1_PROGRAM 0x00060000ull      /* 45 privileged, 46 trap */
#define DSISR_BITS 0x00000000ffffffffull

/*
 * Run fn(arg) in the thread's state: directly in the kernel's own
 * (hypervisor, PR = 0, untraced) when @direct, else through ppc_mode_call
 * with MSR[PR], [HV], [SE], [BE] as the state asks.  Returns fn's r3.
 */
static uint64_t run_in_state(void (*fn)(uint64_t), uint64_t arg, bool direct)
{
	uint64_t msr = kernel_msr;

	if (direct) {
		fn(arg);
		return 0;
	}
	if (st_pr)
		msr |= MSR_PR;
	if (!st_hv)
		msr &= ~MSR_HV;
	if (st_se)
		msr |= MSR_SE;
	if (st_be)
		msr |= MSR_BE;
	return ppc_mode_call(fn, arg, msr);
}

/*
 * What the handler recorded for the instruction at @insn, into *res as
 * the simulator's model reports it.  @op is the line's (0 for `get`).
 * Only the interrupts a line can raise are accepted: a DSI with DSISR[41]
 * (DABR/DAWR match; else a storage fault), a Trace with SRR1[43] (CIABR)
 * or, while MSR[SE]/[BE] were set, without it; a Program interrupt of a
 * trap or a refused mfspr.
 */
static void take_result(uint64_t insn, uint32_t op, bool traced, struct hwbp_sim_result *res)
{
	bool prog_ok = op == HWBP_SIM_SWBP || op == 0;
	uint64_t srr1 = hit_srr1 & SRR1_CAUSE;

	if ((hit_vec == 0x300 && !(hit_dsisr & 0x00400000)) ||
	    (hit_vec == 0xd00 && !(hit_srr1 & SRR1_CIABR) && !traced) ||
	    (hit_vec == 0x700 && (!prog_ok || !(hit_srr1 & SRR1_PROGRAM)))) {
		h_printf("hwbp-ppc64: unexpected interrupt 0x%llx (not a debug match) "
			 "srr0=0x%llx srr1=0x%llx dsisr=0x%llx dar=0x%llx\n",
			 (unsigned long long)hit_vec, (unsigned long long)hit_srr0,
			 (unsigned long long)hit_srr1, (unsigned long long)hit_dsisr,
			 (unsigned long long)hit_dar);
		arch_exit(3);
	}
	/* SRR0 at the instruction: before it; past it: after. */
	res->timing = hit_srr0 == insn ? HWBP_TIMING_BEFORE : HWBP_TIMING_AFTER;
	res->st.u.ppc.vector = hit_vec;
	if (hit_vec == 0x300) {
		res->cls = HWBP_SIM_DSI;
		status(res, "dsisr", hit_dsisr & DSISR_BITS);
		status(res, "dar", hit_dar);
		res->addr = hit_dar;
		res->addr_known = true;
		res->st.ip = 0;   /* as the simulator: no instruction address for data */
		res->st.u.ppc.dsisr = hit_dsisr & DSISR_BITS;
		res->st.u.ppc.dar = hit_dar;
	} else {
		res->cls = hit_vec == 0xd00 ? HWBP_SIM_TRACE : HWBP_SIM_PROGRAM;
		status(res, "srr1", srr1);
		res->st.ip = op == HWBP_SIM_EXEC ? insn : 0;   /* as the simulator */
		res->st.u.ppc.srr1 = srr1;
	}
	if (hit_count > 1)
		h_printf("# note: %u interrupts for one line\n", (unsigned)hit_count);
}

int arch_access(const struct hwbp_sim_access *a, struct hwbp_sim_result *res)
{
	/* natural instructions: lbz..ld / stb..std; 16 bytes: lq/stq when
	 * quadword aligned, else lxvd2x/stxvd2x; 32 bytes: lxvp/stxvp; [1]
	 * the twins that end in `sc 1`, for a traced access */
	static void (*const ld[2][6])(uint64_t) = {
		{ ppc_ld1, ppc_ld2, ppc_ld4, ppc_ld8, ppc_ld16, ppc_ld32 },
		{ ppc_ld1_s, ppc_ld2_s, ppc_ld4_s, ppc_ld8_s, ppc_ld16_s, ppc_ld32_s },
	};
	static void (*const st[2][6])(uint64_t) = {
		{ ppc_st1, ppc_st2, ppc_st4, ppc_st8, ppc_st16, ppc_st32 },
		{ ppc_st1_s, ppc_st2_s, ppc_st4_s, ppc_st8_s, ppc_st16_s, ppc_st32_s },
	};
	static void (*const q16[2][2])(uint64_t) = {
		{ ppc_ld16q, ppc_st16q }, { ppc_ld16q_s, ppc_st16q_s },
	};
	bool traced = st_se || st_be, w = a->op == HWBP_SIM_WRITE;
	int t = traced, sz;
	void (*fn)(uint64_t);
	uint64_t insn;   /* the instruction that makes the access */

	memset(res, 0, sizeof(*res));
	switch (a->size) {
	case 1: sz = 0; break;
	case 2: sz = 1; break;
	case 4: sz = 2; break;
	case 8: sz = 3; break;
	case 16: sz = 4; break;
	case 32: sz = 5; break;
	default: sz = -1; break;
	}
	switch (a->op) {
	case HWBP_SIM_READ:
	case HWBP_SIM_WRITE:
		if (sz < 0)
			return -EOPNOTSUPP;
		fn = w ? st[t][sz] : ld[t][sz];
		if (sz == 4 && !(a->addr & 15) && !quad_split)
			fn = q16[t][w];
		insn = (uint64_t)fn;
		break;
	case HWBP_SIM_ZERO:
		fn = traced ? ppc_zero_s : ppc_zero;
		insn = (uint64_t)fn;
		break;
	case HWBP_SIM_EXEC:
		insn = a->addr & ~3ull;
		/* traced: the arena's blr itself, returning to `sc 1` */
		fn = traced ? (void (*)(uint64_t))insn : ppc_exec;
		break;
	case HWBP_SIM_SWBP:
		fn = ppc_trap_s;   /* `trap`: tw 31,0,0 */
		insn = (uint64_t)fn;
		t = 1;
		break;
	default:
		return -EOPNOTSUPP;
	}

	hit_count = 0;
	run_in_state(fn, a->addr, !t && !st_pr && st_hv);
	/* (as the simulator: a line that raises nothing leaves the last
	 * interrupt pending for `resume`) */
	if (!hit_count)
		return 0;
	take_result(insn, a->op, traced, res);
	/* Taken before the access completed: `resume` completes it. */
	redo = res->cls == HWBP_SIM_DSI ||
	       (res->cls == HWBP_SIM_TRACE && res->timing == HWBP_TIMING_BEFORE);
	last_acc = *a;
	return 0;
}

/*
 * `get NAME`: mfspr of the debug SPR in the thread's state (and traced, as
 * any instruction, with MSR[SE]): its value, or the interrupt it raised.
 */
int arch_get_reg(const char *name, struct hwbp_sim_result *res)
{
	static const struct {
		const char *name;
		void (*fn)(uint64_t);
	} spr[] = {
		{ "dawr0", ppc_mfdawr0_s }, { "dawr1", ppc_mfdawr1_s }, { "ciabr", ppc_mfciabr_s },
		{ "dawrx0", ppc_mfdawrx0_s }, { "dawrx1", ppc_mfdawrx1_s },
	};
	uint64_t v;

	memset(res, 0, sizeof(*res));
	for (unsigned i = 0; i < sizeof(spr) / sizeof(spr[0]); i++) {
		if (strcmp(spr[i].name, name) != 0)
			continue;
		hit_count = 0;
		/* r3 is the argument until mfspr writes it */
		v = run_in_state(spr[i].fn, 0, false);
		if (hit_count) {
			take_result((uint64_t)spr[i].fn, 0, st_se || st_be, res);
			redo = 0;   /* a Program interrupt or a trace: nothing owed */
			/* Traced: the mfspr completed, and its value follows
			 * the trace's status, as hwbp_sim_get_insn() gives it. */
			if (res->cls != HWBP_SIM_TRACE || res->timing != HWBP_TIMING_AFTER)
				return 0;
		}
		status(res, name, v);
		return 0;
	}
	harness_why = "no mfspr routine for this register on POWER10";
	return -EOPNOTSUPP;
}

/*
 * `resume`: after an interrupt taken before its access completed (a DSI,
 * QEMU's CIABR trace), the kernel steps the access with the debug
 * registers off and turns them on again (Linux hw_breakpoint_handler());
 * the step raises nothing of theirs, but with MSR[SE]/[BE] set the access
 * is traced when it completes: so it is run again, registers off, in the
 * thread's state, and what it raises is the result.  Otherwise the handler
 * already stepped over it (skipped it): nothing.
 */
void arch_resume(struct hwbp_sim_result *res)
{
	struct hwbp_regs saved, off;
	struct hwbp_sim_access a = last_acc;

	memset(res, 0, sizeof(*res));
	if (!redo)
		return;
	redo = 0;
	if (!st_se && !st_be)
		return;
	hwbp_ppc_glue_shadow(&saved);
	memset(&off, 0, sizeof(off));
	off.arch = HWBP_ARCH_POWERPC;
	hwbp_glue_write_regs(&off);
	arch_access(&a, res);
	hwbp_glue_write_regs(&saved);
	redo = 0;
}

/*
 * Before any scenario: every CPU writes DAWR0 with a value naming it (by
 * its own call), then every CPU reads its DAWR0 back and says who it is.
 * A CPU that answers for another, or whose DAWR0 holds another's value
 * (the SPRs are per thread: Power ISA v3.1 Book III, "Debug Facilities"),
 * stops the kernel: per-CPU lines could not be trusted.  DAWRX0 stays 0,
 * so nothing can match.
 */
#define MARK(c) (0x10000000ull + 0x1000ull * (c))

static int smp_mark(void *arg)
{
	struct hwbp_regs r;

	memset(&r, 0, sizeof(r));
	r.arch = HWBP_ARCH_POWERPC;
	r.u.ppc.dawr[0] = MARK((uintptr_t)arg);
	hwbp_glue_write_regs(&r);
	return (int)ppc_this_cpu();
}

static int smp_check(void *arg)
{
	struct hwbp_regs r;

	hwbp_glue_read_regs(&r);
	if (r.u.ppc.dawr[0] != MARK((uintptr_t)arg))
		return -1;
	/* and the thread is the one its PIR says (not only its SPRG0) */
	if (mfspr(1023) != ppc_this_percpu()->pir)
		return -2;
	return (int)ppc_this_cpu();
}

static int smp_clear(void *arg)
{
	struct hwbp_regs r;

	(void)arg;
	memset(&r, 0, sizeof(r));
	r.arch = HWBP_ARCH_POWERPC;
	return hwbp_glue_write_regs(&r);
}

static void smp_selftest(void)
{
	unsigned n = ppc_ncpus(), c;
	int ret = 0;

	for (c = 0; c < n; c++)
		if ((ret = ppc_smp_call(c, smp_mark, (void *)(uintptr_t)c)) != (int)c)
			goto bad;
	for (c = 0; c < n; c++)
		if ((ret = ppc_smp_call(c, smp_check, (void *)(uintptr_t)c)) != (int)c)
			goto bad;
	for (c = 0; c < n; c++)
		ppc_smp_call(c, smp_clear, NULL);
	return;
bad:
	h_printf("# ppc64 harness: CPU %u did not run its own call or keep its own DAWR0 "
		 "(answer %d)\n", c, ret);
	arch_exit(3);
}

void kmain(const void *fdt)
{
	ppc_smp_early(fdt);   /* real mode: the tree may lie above the 1 GiB map */
	mmu_tables();
	thread_regs();
	ppc_smp_init(thread_regs);
	/* (before the start line: in the serial log only) */
	h_printf("hwbp-ppc64: %u threads online, PIRs", ppc_ncpus());
	for (unsigned c = 0; c < ppc_ncpus(); c++)
		h_printf(" 0x%x", (unsigned)ppc_percpu_of(c)->pir);
	h_printf("\n");
	for (unsigned i = 0; i < sizeof(arena_c) / sizeof(arena_c[0]); i++)
		arena_c[i] = 0x4e800020;   /* blr */
	for (uint64_t p = (uint64_t)arena_c; p < (uint64_t)arena_c + sizeof(arena_c); p += 128)
		__asm__ volatile("dcbst 0, %0; sync; icbi 0, %0" : : "r"(p) : "memory");
	__asm__ volatile("sync; isync" ::: "memory");
	puts_("hwbp-ppc64: harness start\n");
	smp_selftest();
	arch_exit(harness_main());
}
