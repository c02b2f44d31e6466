/* SPDX-License-Identifier: MIT */
/*
 * arm64 bare-metal harness for qemu-system-aarch64 -M virt -cpu cortex-a57:
 * boot at EL1, an identity map with Normal memory for RAM (the arenas need
 * it: unaligned accesses and DC ZVA fault on Device memory), PL011 output,
 * semihosting exit, the debug-exception entry and the harness.h functions.
 *
 * Memory map (39-bit VA, 4 KiB granule, level 1 = 1 GiB, level 2 = 2 MiB):
 *   0x08000000..0x081fffff  Device-nGnRnE (the GICv2: GICD 0x08000000,
 *                           GICC 0x08010000; smp.c)
 *   0x09000000..0x091fffff  Device-nGnRnE (the PL011 at 0x09000000)
 *   0x40000000..0x4fffffff  RAM, identity, per 2 MiB block:
 *     0x40200000  kernel (EL1 read/write/execute), up to 0x48000000
 *     0x48000000  data arena B (EL0+EL1 read/write, execute never)
 *     0x48200000  code arena C + EL0 stubs (EL0+EL1 read-only, executable)
 *   every other 2 MiB block below 2^39 aliases the scratch block
 *     (PA 0x4fe00000, Normal, EL0+EL1 read/write, never executable), so
 *     that scenario accesses at absolute addresses (0x7ffffff8,
 *     0x80000000, 0xffffffff, 0x100000000, ...) complete.  Accesses at or
 *     above 2^39 are not made (the file is skipped), nor are those in
 *     the two Device blocks.
 *
 * SMP (smp.c): every CPU runs with the same tables and vectors; every
 * piece of state below that describes a CPU (the register shadow, the
 * last debug exception, the EL of the accesses) is that CPU's own,
 * indexed by a64_this_cpu(): the runner calls each arch_* function on
 * the CPU it acts on (arch_on_cpu), so a secondary's debug exception is
 * recorded where its arch_access() reads it.
 */
#include <errno.h>
#include <string.h>

#include "harness.h"
#include "glue.h"
#include "smp.h"

#define UART_BASE 0x09000000ul
#define UART_DR 0x00
#define UART_FR 0x18
#define UART_CR 0x30
#define UART_FR_TXFF (1u << 5)

#define RAM_BASE 0x40000000ull
#define RAM_END 0x50000000ull /* -m 256M */
#define SCRATCH_PA 0x4fe00000ull
#define BLOCK_2M 0x200000ull
#define GIC_BLOCK (A64_GICD & ~(BLOCK_2M - 1))
#define UART_BLOCK (UART_BASE & ~(BLOCK_2M - 1))

extern char __arena_b[];
extern char a64_arena_c[];
extern char a64_acc_el1[];
extern char a64_acc_el0[];
extern char a64_brk_table[];
extern char a64_mrs_table[];
extern void a64_el0_run(uint64_t addr, uint64_t pc, uint64_t spsr_bits, uint64_t lr,
			uint64_t mdscr);
extern uint64_t a64_el1_run(uint64_t addr, uint64_t pc, uint64_t spsr, uint64_t unused,
			    uint64_t mdscr);
extern uint64_t a64_semihost(uint64_t op, uint64_t param);
int a64_main(void);

/* ------------------------------------------------------------------ */
/* Serial and exit                                                     */
/* ------------------------------------------------------------------ */
static inline void mmio_w32(uint64_t a, uint32_t v)
{
	*(volatile uint32_t *)a = v;
}

static inline uint32_t mmio_r32(uint64_t a)
{
	return *(volatile uint32_t *)a;
}

void arch_putc(char c)
{
	if (c == '\n')
		arch_putc('\r');
	while (mmio_r32(UART_BASE + UART_FR) & UART_FR_TXFF)
		;
	mmio_w32(UART_BASE + UART_DR, (uint32_t)(unsigned char)c);
}

static void puts_(const char *s)
{
	while (*s)
		arch_putc(*s++);
}

static void puthex(uint64_t v)
{
	puts_("0x");
	for (int i = 60; i >= 0; i -= 4)
		arch_putc("0123456789abcdef"[(v >> i) & 0xf]);
}

__attribute__((noreturn)) void arch_exit(int code)
{
	/* SYS_EXIT (0x18), AArch64 form: x1 -> { reason, subcode }. */
	static volatile uint64_t block[2];

	block[0] = 0x20026; /* ADP_Stopped_ApplicationExit */
	block[1] = (uint64_t)(uint32_t)code;
	a64_semihost(0x18, (uint64_t)block);
	for (;;)
		__asm__ volatile("wfi");
}

/* ------------------------------------------------------------------ */
/* MMU                                                                 */
/* ------------------------------------------------------------------ */
#define D_BLOCK 0x1ull
#define D_TABLE 0x3ull
#define D_ATTR(n) ((uint64_t)(n) << 2)
#define D_AP_EL1_RW (0ull << 6)
#define D_AP_ALL_RW (1ull << 6)
#define D_AP_ALL_RO (3ull << 6)
#define D_SH_INNER (3ull << 8)
#define D_AF (1ull << 10)
#define D_PXN (1ull << 53)
#define D_UXN (1ull << 54)
#define D_NORMAL (D_ATTR(1) | D_SH_INNER | D_AF | D_BLOCK)

static uint64_t pt_l1[512] __attribute__((aligned(4096)));
static uint64_t pt_l2_ram[512] __attribute__((aligned(4096)));
static uint64_t pt_l2_scratch[512] __attribute__((aligned(4096)));
static uint64_t pt_l2_low[512] __attribute__((aligned(4096)));
#define VA_LIMIT (1ull << 39)

/* CPU 0, MMU still off: the tables (written non-cacheable, so every
 * CPU's cacheable table walks see them), then its own registers. */
static void mmu_init(void)
{
	uint64_t b = (uint64_t)__arena_b & ~(BLOCK_2M - 1);
	uint64_t c = (uint64_t)a64_arena_c & ~(BLOCK_2M - 1);
	uint64_t scratch = SCRATCH_PA | D_NORMAL | D_AP_ALL_RW | D_PXN | D_UXN;

	pt_l1[0] = (uint64_t)pt_l2_low | D_TABLE;
	pt_l1[1] = (uint64_t)pt_l2_ram | D_TABLE;
	for (unsigned i = 2; i < 512; i++)
		pt_l1[i] = (uint64_t)pt_l2_scratch | D_TABLE;
	for (unsigned i = 0; i < 512; i++) {
		uint64_t va = i * BLOCK_2M;

		if (va == UART_BLOCK || va == GIC_BLOCK)
			pt_l2_low[i] = va | D_ATTR(0) | D_AF | D_PXN | D_UXN | D_BLOCK;
		else
			pt_l2_low[i] = scratch;
	}
	for (unsigned i = 0; i < 512; i++) {
		uint64_t pa = RAM_BASE + i * BLOCK_2M;

		pt_l2_scratch[i] = scratch;
		if (pa >= RAM_END)
			pt_l2_ram[i] = scratch;
		else if (pa == b)
			pt_l2_ram[i] = pa | D_NORMAL | D_AP_ALL_RW | D_PXN | D_UXN;
		else if (pa == c)
			pt_l2_ram[i] = pa | D_NORMAL | D_AP_ALL_RO;
		else
			pt_l2_ram[i] = pa | D_NORMAL | D_AP_EL1_RW | D_UXN;
	}
	__asm__ volatile("dsb sy" ::: "memory");
	a64_mmu_enable();
}

/*
 * This CPU's translation and its FP/SIMD access, the same on every CPU
 * (all of these are per-PE registers): CPU 0 from mmu_init(), each
 * secondary first thing (smp.c), on the tables CPU 0 built.
 */
void a64_mmu_enable(void)
{
	uint64_t v;

	/* MAIR: Attr0 Device-nGnRnE, Attr1 Normal write-back RW-allocate. */
	__asm__ volatile("msr mair_el1, %0" : : "r"(0xff00ull));
	/* TCR: T0SZ 25 (39-bit VA), IRGN0/ORGN0 WB-WA, SH0 inner, TG0 4K,
	 * EPD1 (no TTBR1 walks), IPS 40 bits. */
	v = 25ull | 1ull << 8 | 1ull << 10 | 3ull << 12 | 1ull << 23 | 2ull << 32;
	__asm__ volatile("msr tcr_el1, %0" : : "r"(v));
	__asm__ volatile("msr ttbr0_el1, %0" : : "r"((uint64_t)pt_l1));
	__asm__ volatile("isb; tlbi vmalle1; dsb nsh; isb" ::: "memory");
	/* CPACR_EL1.FPEN = 0b11: FP/SIMD (ld1/st1 of 32/64 bytes) at EL0/EL1. */
	__asm__ volatile("msr cpacr_el1, %0; isb" : : "r"(3ull << 20));
	__asm__ volatile("mrs %0, sctlr_el1" : "=r"(v));
	v |= 1ull << 0;   /* M: MMU on */
	v |= 1ull << 2;   /* C */
	v |= 1ull << 12;  /* I */
	v |= 1ull << 14;  /* DZE: DC ZVA at EL0 */
	v &= ~(1ull << 1);  /* A: no alignment checks */
	v &= ~(1ull << 19); /* WXN */
	v &= ~(1ull << 3);  /* SA: SP alignment check off */
	v &= ~(1ull << 4);  /* SA0 */
	__asm__ volatile("msr sctlr_el1, %0; isb" : : "r"(v) : "memory");
}

/* ------------------------------------------------------------------ */
/* State: per CPU, the shadow of every debug register this harness     */
/* wrote, and what its exception handler saw                           */
/* ------------------------------------------------------------------ */
/* The same on every CPU (one model, one -cpu): */
static unsigned hw_nb, hw_nw;      /* real counts (ID_AA64DFR0_EL1) */
static unsigned cpu_nb, cpu_nw;    /* the scenario CPU's counts */

/*
 * Each CPU's own: only that CPU reads or writes its entry (its arch_*
 * calls and its exception handler run on it), so no locking; `volatile`
 * for the fields the debug exception handler writes behind the back of
 * arch_access() on the same CPU.
 */
static struct pcpu {
	struct hwbp_regs shadow;     /* mdscr: with SS as the scenario has it */
	uint64_t wp_seq[HWBP_MAX_SLOTS], wp_seq_now;  /* wp_written() */
	int cur_el;                                   /* `mode el=` */
	/*
	 * Software step.  The real MDSCR_EL1.SS is 1 only from the ERET into
	 * the scenario's instruction to the first step exception (or the
	 * return to the harness): this code is never stepped.  pstate_ss is
	 * the PSTATE.SS the instruction is entered with (SPSR_EL1.SS); after
	 * every step exception the harness, a debugger, sets it to stepping
	 * (`step on`: it returns with SPSR.SS = 1, sim/arm64_step.c).
	 */
	int pstate_ss, stepping;
	uint64_t insn;               /* the instruction of this access */
	volatile unsigned exc_count;
	volatile uint64_t exc_esr, exc_far, exc_elr;
	volatile int exc_armed;
	volatile int stepped;        /* a step exception was taken */
	volatile int rs_valid;       /* ... after a watchpoint/breakpoint: resume's */
	volatile uint64_t rs_esr;
	/* For arch_resume(): the step exception due, or the instruction a
	 * step exception before it left to run (an access, or a get). */
	enum { LAST_NONE, LAST_STEP_DUE, LAST_REDO } last_kind;
	struct hwbp_sim_access last_acc;
	const char *last_get;
} pcpu[A64_MAX_CPUS];

#define me (&pcpu[a64_this_cpu()])

struct a64_frame {
	uint64_t x[31];
	uint64_t elr;
	uint64_t spsr;
	uint64_t pad;
};

/* The ISBs after the control writes: the new E bits govern which later
 * instructions can generate debug events only after a context
 * synchronization event (Arm ARM D2, "Synchronization and debug
 * exceptions"; DDI 0487 "Synchronization requirements for AArch64
 * System registers"). */
static void disarm_all(void)
{
	struct pcpu *p = me;

	for (unsigned i = 0; i < hw_nb; i++)
		hwbp_a64_write_dbg(HWBP_A64_BCR, i, p->shadow.u.arm64.bcr[i] & ~1ull);
	for (unsigned i = 0; i < hw_nw; i++)
		hwbp_a64_write_dbg(HWBP_A64_WCR, i, p->shadow.u.arm64.wcr[i] & ~1ull);
	__asm__ volatile("isb" ::: "memory");
}

/*
 * QEMU keeps its watchpoints in a list in the order of the last
 * DBGWVR/DBGWCR write of each slot (every write removes and re-inserts it
 * at the tail: hw_watchpoint_update()), and with several matches the
 * first of that list decides FAR (quirk HWBPI_Q_ARM64_FAR_FIRST_WP).  So
 * that stepping over an access does not reorder that list, re-arm the
 * watchpoints in the order they were last written.  (That list is each
 * CPU's own, CPUARMState's: so is the order kept here.)
 */
static void wp_written(unsigned n)
{
	struct pcpu *p = me;

	if (n < HWBP_MAX_SLOTS)
		p->wp_seq[n] = ++p->wp_seq_now;
}

static void rearm_all(void)
{
	struct pcpu *p = me;
	unsigned order[HWBP_MAX_SLOTS], n = hw_nw < HWBP_MAX_SLOTS ? hw_nw : HWBP_MAX_SLOTS;

	for (unsigned i = 0; i < hw_nb; i++)
		hwbp_a64_write_dbg(HWBP_A64_BCR, i, p->shadow.u.arm64.bcr[i]);
	for (unsigned i = 0; i < n; i++) {
		unsigned j = i;

		while (j > 0 && p->wp_seq[order[j - 1]] > p->wp_seq[i]) {
			order[j] = order[j - 1];
			j--;
		}
		order[j] = i;
	}
	for (unsigned k = 0; k < n; k++)
		hwbp_a64_write_dbg(HWBP_A64_WCR, order[k], p->shadow.u.arm64.wcr[order[k]]);
	__asm__ volatile("isb" ::: "memory");
}

/* The first exception of an access: what its line reports. */
static void record(struct pcpu *p, uint64_t esr, uint64_t far, uint64_t elr)
{
	if (p->exc_count++ == 0) {
		p->exc_esr = esr;
		p->exc_far = far;
		p->exc_elr = elr;
	}
}

/* MDSCR_EL1.SS = 0 (in the handler: PSTATE.D = 1, nothing is stepped). */
static void ss_off(void)
{
	hwbp_a64_write_mdscr(hwbp_a64_read_mdscr() & ~1ull);
	__asm__ volatile("isb" ::: "memory");
}

/* Back to the harness instead of the instruction: from EL0 through
 * a64_el0_back, at EL1 to a64_el1_run's label (x30 of the routine). */
static uint64_t leave(struct a64_frame *f, uint64_t kind)
{
	if (kind == 8)
		return 1;
	f->elr = f->x[30];
	return 0;
}

/*
 * Called from every vector with the saved frame, on the CPU that took
 * the exception.  kind: 4 = current EL (SPx) synchronous, 8 = lower EL
 * (AArch64) synchronous, 5 = current EL (SPx) IRQ (a secondary's call,
 * smp.c), others fatal.  Returns 0 to ERET to the frame, 1 to return
 * from a64_el0_run().
 */
uint64_t a64_exception(struct a64_frame *f, uint64_t kind);
uint64_t a64_exception(struct a64_frame *f, uint64_t kind)
{
	struct pcpu *p = me;
	struct hwbp_status st;
	uint64_t esr, far, ec;

	if (kind == 5) {
		a64_smp_irq(&f->spsr);
		return 0;
	}
	hwbp_glue_read_status(&st);
	esr = st.u.arm64.esr;
	far = st.u.arm64.far;
	ec = (esr >> 26) & 0x3f;
	if ((kind == 4 || kind == 8) &&
	    (ec == 0x30 || ec == 0x31 || ec == 0x34 || ec == 0x35) && p->exc_armed) {
		record(p, esr, far, f->elr);
		/* Step over: disable every breakpoint/watchpoint and return to
		 * the same instruction; arch_access() re-arms afterwards.  With
		 * SPSR.SS = 1 (stepped) the instruction completes and a step
		 * exception follows: resume's result. */
		disarm_all();
		return 0;
	}
	if ((kind == 4 || kind == 8) && (ec == 0x32 || ec == 0x33) && p->exc_armed) {
		/* Software step (Arm ARM D2.12): no more stepping of this code. */
		ss_off();
		p->stepped = 1;
		if (p->exc_count == 0) {
			record(p, esr, far, f->elr);
		} else if (!p->rs_valid) {
			p->rs_esr = esr;
			p->rs_valid = 1;
		}
		/* Before the instruction (ELR = it): it must not run. */
		return f->elr == p->insn ? leave(f, kind) : 0;
	}
	if ((kind == 4 || kind == 8) && (ec == 0x3c || ec == 0x00) && p->exc_armed) {
		/* BRK, or an UNDEFINED MRS from EL0: recorded, then skipped
		 * (back to the harness). */
		ss_off();
		record(p, esr, far, f->elr);
		return leave(f, kind);
	}
	if (kind == 8 && ec == 0x15)
		return 1; /* svc #0 from the EL0 stub: back to a64_el0_run's caller */
	if ((kind == 4 || kind == 8) && ec == 0x22 && p->exc_armed) {
		/* PC alignment fault of `exec` at a misaligned address: it has
		 * priority over breakpoints, no debug event, and is its own
		 * exception (not stepped).  Back to x30: the trampoline's
		 * label at EL1, the stub's `svc #0` at EL0. */
		ss_off();
		f->elr = f->x[30];
		return 0;
	}
	if ((kind == 4 || kind == 8) && (ec == 0x30 || ec == 0x31 || ec == 0x34 || ec == 0x35))
		puts_("\n# FATAL: debug exception outside a scenario access (does a watchpoint"
		      " or breakpoint cover the harness's own memory?)");
	puts_("\n# FATAL: unexpected exception on CPU ");
	arch_putc((char)('0' + a64_this_cpu()));
	puts_(" kind=");
	puthex(kind);
	puts_(" esr=");
	puthex(esr);
	puts_(" far=");
	puthex(far);
	puts_(" elr=");
	puthex(f->elr);
	puts_(" spsr=");
	puthex(f->spsr);
	puts_("\n");
	arch_exit(3);
}

/* ------------------------------------------------------------------ */
/* harness.h                                                           */
/* ------------------------------------------------------------------ */
uint64_t arch_arena_b(void)
{
	return (uint64_t)__arena_b;
}

uint64_t arch_arena_c(void)
{
	return (uint64_t)a64_arena_c;
}

const char *arch_machine_model(void)
{
	return "cortex-a57";   /* -cpu cortex-a57 (run.sh) */
}

const char *arch_cpu_unsupported(const struct hwbp_cpu *cpu)
{
	unsigned nb, nw;

	if (cpu->arch != HWBP_ARCH_ARM64)
		return "not an arm64 CPU";
	nb = (unsigned)((cpu->u.arm64.dfr0 >> 12) & 0xf) + 1;
	nw = (unsigned)((cpu->u.arm64.dfr0 >> 20) & 0xf) + 1;
	if (nb > hw_nb || nw > hw_nw)
		return "more breakpoints/watchpoints than this CPU (cortex-a57: 6/4)";
	return NULL;
}

/* The CPUs smp.c brought up (PSCI CPU_ON), 1..A64_MAX_CPUS. */
unsigned arch_ncpus(void)
{
	return a64_ncpus();
}

/* A direct call on CPU 0, an SGI to any other (smp.c). */
int arch_on_cpu(unsigned cpu, int (*fn)(void *), void *arg)
{
	return a64_smp_call(cpu, fn, arg);
}

/* On every CPU at each file (the runner): that CPU's registers, its
 * OS lock and PSTATE.D, its shadow and EL. */
void arch_reset(const struct hwbp_cpu *cpu)
{
	struct pcpu *p = me;

	cpu_nb = (unsigned)((cpu->u.arm64.dfr0 >> 12) & 0xf) + 1;
	cpu_nw = (unsigned)((cpu->u.arm64.dfr0 >> 20) & 0xf) + 1;
	hwbp_a64_set_daif_d(1);
	hwbp_a64_write_mdscr(0);
	memset(&p->shadow, 0, sizeof(p->shadow));
	p->shadow.arch = HWBP_ARCH_ARM64;
	hwbp_a64_write_regs(&p->shadow, hw_nb, hw_nw);
	for (unsigned i = 0; i < hw_nw; i++)
		wp_written(i);
	hwbp_a64_write_oslar(1);
	p->cur_el = 1;
	p->pstate_ss = 0;
	p->stepping = 0;
	p->last_kind = LAST_NONE;
}

/* "dbgbvr12" -> kind, n; 0 or -ENOENT. */
static int parse_dbg(const char *name, enum hwbp_a64_dbg *kind, unsigned *n)
{
	const char *p;
	unsigned v = 0;

	if (strncmp(name, "dbg", 3) != 0 || (name[3] != 'b' && name[3] != 'w') ||
	    (name[4] != 'v' && name[4] != 'c') || name[5] != 'r')
		return -ENOENT;
	*kind = name[3] == 'b' ? (name[4] == 'v' ? HWBP_A64_BVR : HWBP_A64_BCR)
			       : (name[4] == 'v' ? HWBP_A64_WVR : HWBP_A64_WCR);
	p = name + 6;
	if (*p < '0' || *p > '9')
		return -ENOENT;
	while (*p >= '0' && *p <= '9') {
		v = v * 10 + (unsigned)(*p - '0');
		if (v > 99)
			return -ENOENT;
		p++;
	}
	if (*p)
		return -ENOENT;
	if (p - name > 7 && name[6] == '0')
		return -ENOENT; /* no leading zeros */
	*n = v;
	return 0;
}

int arch_set_reg(const char *name, uint64_t value, struct hwbp_sim_result *res)
{
	struct pcpu *p = me;
	enum hwbp_a64_dbg kind;
	unsigned n;

	memset(res, 0, sizeof(*res));
	if (strcmp(name, "oslar") == 0) {
		hwbp_a64_write_oslar(value);
		return 0;
	}
	if (strcmp(name, "daif_d") == 0) {
		hwbp_a64_set_daif_d(value != 0);
		return 0;
	}
	if (strcmp(name, "mdscr") == 0) {
		/* SS (bit 0) only in the shadow: set for real around the
		 * instruction (a64_el0_run, a64_el1_run). */
		p->shadow.u.arm64.mdscr = value;
		hwbp_a64_write_mdscr(value & ~1ull);
		return 0;
	}
	if (strcmp(name, "pstate_ss") == 0) {
		p->pstate_ss = value != 0;
		return 0;
	}
	if (strcmp(name, "step") == 0) {
		/* A debugger that single-steps: MDSCR_EL1.SS, and SPSR.SS = 1
		 * at every return (sim/arm64_regs.c, the same three). */
		p->shadow.u.arm64.mdscr = (p->shadow.u.arm64.mdscr & ~1ull) | (value != 0);
		p->pstate_ss = value != 0;
		p->stepping = value != 0;
		return 0;
	}
	if (parse_dbg(name, &kind, &n))
		return -ENOENT;
	if (n >= ((kind == HWBP_A64_BVR || kind == HWBP_A64_BCR) ? cpu_nb : cpu_nw))
		return -ENOENT;
	if (n >= ((kind == HWBP_A64_BVR || kind == HWBP_A64_BCR) ? hw_nb : hw_nw))
		return -EOPNOTSUPP;
	switch (kind) {
	case HWBP_A64_BVR: p->shadow.u.arm64.bvr[n] = value; break;
	case HWBP_A64_BCR: p->shadow.u.arm64.bcr[n] = value; break;
	case HWBP_A64_WVR: p->shadow.u.arm64.wvr[n] = value; wp_written(n); break;
	case HWBP_A64_WCR: p->shadow.u.arm64.wcr[n] = value; wp_written(n); break;
	}
	hwbp_a64_write_dbg(kind, n, value);
	__asm__ volatile("isb" ::: "memory");
	return 0;
}

int arch_mode(const char *key, uint64_t value)
{
	if (strcmp(key, "el") == 0 && value <= 1) {
		me->cur_el = (int)value;
		return 0;
	}
	return -EOPNOTSUPP;
}

/* Index of the access routine (16 bytes each, order of start.S). */
static int routine_index(const struct hwbp_sim_access *a)
{
	int k;

	switch (a->op) {
	case HWBP_SIM_ZERO:
		return 14;
	case HWBP_SIM_EXEC:
		return 15;
	case HWBP_SIM_READ:
	case HWBP_SIM_WRITE:
		switch (a->size) {
		case 1: k = 0; break;
		case 2: k = 1; break;
		case 4: k = 2; break;
		case 8: k = 3; break;
		case 16: k = 4; break;
		case 32: k = 5; break;
		case 64: k = 6; break;
		default: return -1;
		}
		return a->op == HWBP_SIM_READ ? k : 7 + k;
	default:
		return -1;
	}
}

/* [addr, addr + len) meets the 2 MiB block at @blk. */
static int meets_block(uint64_t addr, uint64_t len, uint64_t blk)
{
	return addr < blk + BLOCK_2M && addr + len > blk;
}

/*
 * Run the scenario's instruction at @pc once, at the scenario's EL, with
 * the scenario's PSTATE.D and MDSCR_EL1 (SS included) and PSTATE.SS
 * entered through SPSR_EL1.SS; x0 = @operand.  What the exception handler
 * saw is in *p.  Returns x0 (an MRS's value at EL1).
 */
static uint64_t run_insn(struct pcpu *p, uint64_t operand, uint64_t pc)
{
	uint64_t ss = p->pstate_ss ? 1ull << 21 : 0, v = 0;
	/* EL0: x30 for an `exec` target's `ret` = the exec stub's `svc #0`. */
	uint64_t lr0 = (uint64_t)a64_acc_el0 + 15 * 16 + 12;

	p->insn = pc;
	p->exc_count = 0;
	p->stepped = 0;
	p->rs_valid = 0;
	p->exc_armed = 1;
	__asm__ volatile("" ::: "memory");
	if (p->cur_el == 0)
		a64_el0_run(operand, pc, ss, lr0, p->shadow.u.arm64.mdscr);
	else
		/* EL1h, A I F masked, D as the harness runs now. */
		v = a64_el1_run(operand, pc,
				0x1c5ull | (hwbp_a64_get_daif_d() ? 0x200ull : 0) | ss, 0,
				p->shadow.u.arm64.mdscr);
	__asm__ volatile("" ::: "memory");
	p->exc_armed = 0;
	/* The debugger's return from each step exception: SPSR.SS = stepping. */
	if (p->stepped)
		p->pstate_ss = p->stepping;
	return v;
}

/* *res from the first exception of the instruction at p->insn. */
static void fill_result(struct pcpu *p, struct hwbp_sim_result *res)
{
	uint64_t ec = (p->exc_esr >> 26) & 0x3f;

	switch (ec) {
	case 0x34: case 0x35: res->cls = HWBP_SIM_WATCHPOINT; break;
	case 0x30: case 0x31: res->cls = HWBP_SIM_BREAKPOINT; break;
	case 0x32: case 0x33: res->cls = HWBP_SIM_STEP; break;
	case 0x3c: res->cls = HWBP_SIM_BRK; break;
	default: res->cls = HWBP_SIM_UD; break;
	}
	/* Measured: ELR at the instruction = taken before it. */
	res->timing = p->exc_elr == p->insn ? HWBP_TIMING_BEFORE : HWBP_TIMING_AFTER;
	memcpy(res->status[0].name, "esr", 4);
	res->status[0].value = p->exc_esr;
	res->nstatus = 1;
	res->st.ip = p->exc_elr;
	res->st.u.arm64.esr = p->exc_esr;
	res->st.u.arm64.far = p->exc_far;
	/* FAR is written by watchpoints and breakpoints only (UNKNOWN for a
	 * step, BRK or UNDEFINED: not reported). */
	if (res->cls == HWBP_SIM_WATCHPOINT || res->cls == HWBP_SIM_BREAKPOINT) {
		memcpy(res->status[1].name, "far", 4);
		res->status[1].value = p->exc_far;
		res->nstatus = 2;
	}
	if (res->cls == HWBP_SIM_WATCHPOINT) {
		res->addr = p->exc_far;
		res->addr_known = true;
	}
}

/* What resume will do after this instruction (arch_resume). */
static void note_last(struct pcpu *p, const struct hwbp_sim_result *res)
{
	p->last_kind = LAST_NONE;
	if (p->rs_valid)
		p->last_kind = LAST_STEP_DUE;
	else if (res->cls == HWBP_SIM_STEP && res->timing == HWBP_TIMING_BEFORE)
		p->last_kind = LAST_REDO;
}

int arch_access(const struct hwbp_sim_access *a, struct hwbp_sim_result *res)
{
	struct pcpu *p = me;
	int k = routine_index(a);
	uint64_t pc;

	memset(res, 0, sizeof(*res));
	if (a->op == HWBP_SIM_SWBP) {
		/* BRK #imm: its entry in the table. */
		pc = (uint64_t)a64_brk_table + 4 * (uint64_t)(a->size & 0xffffu);
	} else {
		if (k < 0)
			return -EOPNOTSUPP;
		/* Mapped: below 2^39 (data); exec only inside the code arena C. */
		if (a->addr >= VA_LIMIT ||
		    (a->op != HWBP_SIM_EXEC &&
		     VA_LIMIT - a->addr < (a->op == HWBP_SIM_ZERO ? 1 : a->size)))
			return -EOPNOTSUPP;
		if (a->op == HWBP_SIM_EXEC &&
		    (a->addr < arch_arena_c() || a->addr - arch_arena_c() >= 0x10000))
			return -EOPNOTSUPP;
		/* The GIC's and the PL011's registers are no scratch memory. */
		if (a->op != HWBP_SIM_EXEC &&
		    (meets_block(a->addr, a->op == HWBP_SIM_ZERO ? 64 : a->size, GIC_BLOCK) ||
		     meets_block(a->addr, a->op == HWBP_SIM_ZERO ? 64 : a->size, UART_BLOCK)))
			return -EOPNOTSUPP;
		/* The instruction that makes the access; exec: the target itself,
		 * entered directly (its `ret` comes back through x30). */
		pc = a->op == HWBP_SIM_EXEC ? a->addr
					    : (uint64_t)(p->cur_el == 0 ? a64_acc_el0 : a64_acc_el1) +
						      (uint64_t)k * 16;
	}
	p->last_acc = *a;
	p->last_get = NULL;
	run_insn(p, a->addr, pc);
	if (!p->exc_count) {
		p->last_kind = LAST_NONE;
		return 0;
	}
	rearm_all();
	fill_result(p, res);
	note_last(p, res);
	if (p->exc_count > 1)
		h_printf("# note: %u debug exceptions for one access\n", p->exc_count);
	return 0;
}

void arch_resume(struct hwbp_sim_result *res)
{
	struct pcpu *p = me;
	int kind = p->last_kind;

	memset(res, 0, sizeof(*res));
	p->last_kind = LAST_NONE;
	if (kind == LAST_STEP_DUE) {
		/* The step exception taken when the instruction completed after
		 * its watchpoint/breakpoint (measured in arch_access). */
		res->cls = HWBP_SIM_STEP;
		res->timing = HWBP_TIMING_AFTER;
		memcpy(res->status[0].name, "esr", 4);
		res->status[0].value = p->rs_esr;
		res->nstatus = 1;
		res->st.u.arm64.esr = p->rs_esr;
	} else if (kind == LAST_REDO) {
		/* A step exception before the instruction: the debugger returns
		 * to it, and it runs now. */
		if (p->last_get) {
			const char *name = p->last_get;

			arch_get_reg(name, res);
			/* `resume` reports the exception, not the value read
			 * (the simulator's resume knows no register). */
			if (res->nstatus && strcmp(res->status[res->nstatus - 1].name, name) == 0)
				res->nstatus--;
		} else
			arch_access(&p->last_acc, res);
	}
}

int arch_write_regs(const struct hwbp_regs *regs)
{
	struct pcpu *p = me;
	uint64_t ss;
	int ret;

	for (unsigned i = 0; i < HWBP_MAX_SLOTS; i++) {
		p->shadow.u.arm64.bvr[i] = i < hw_nb ? regs->u.arm64.bvr[i] : 0;
		p->shadow.u.arm64.bcr[i] = i < hw_nb ? regs->u.arm64.bcr[i] : 0;
		p->shadow.u.arm64.wvr[i] = i < hw_nw ? regs->u.arm64.wvr[i] : 0;
		p->shadow.u.arm64.wcr[i] = i < hw_nw ? regs->u.arm64.wcr[i] : 0;
	}
	/* As the simulator's glue (sim/sim.c glue_write) and a kernel: MDSCR
	 * only gains the enables (MDE/KDE) the slots need, never loses bits
	 * that `set mdscr` or an earlier install put there.  SS stays in the
	 * shadow only (run_insn()). */
	ss = p->shadow.u.arm64.mdscr & 1ull;
	p->shadow.u.arm64.mdscr = (hwbp_a64_read_mdscr() | regs->u.arm64.mdscr) & ~1ull;
	/* The glue a kernel uses: slot order, MDSCR last and OR-ed. */
	p->shadow.arch = HWBP_ARCH_ARM64;
	ret = hwbp_glue_write_regs(&p->shadow);
	p->shadow.u.arm64.mdscr |= ss;
	if (ret)
		return -EINVAL;
	for (unsigned i = 0; i < hw_nw; i++)
		wp_written(i);
	return 0;
}

void arch_read_regs(struct hwbp_regs *regs)
{
	hwbp_glue_read_regs(regs);
}

/*
 * Before any scenario: every CPU writes DBGWVR0 with a value naming it
 * (a call of its own, by SGI for the secondaries), then every CPU reads
 * its DBGWVR0 back and says who it is.  A CPU that answers for another,
 * or whose DBGWVR0 holds another's value, stops the kernel: the per-CPU
 * lines could not be trusted.  (DBGWVR0 is written with DBGWCR0.E = 0:
 * nothing is armed.  A direct read after a direct write of the same
 * System register returns the written value without an ISB, but the
 * ISB keeps the write complete before the call reports back.)
 */
#define SELFTEST_WVR(c) (0x10000000ull + 0x1000ull * (uint64_t)(c))

static int smp_mark(void *arg)
{
	hwbp_a64_write_dbg(HWBP_A64_WVR, 0, SELFTEST_WVR((uintptr_t)arg));
	__asm__ volatile("isb" ::: "memory");
	return (int)a64_this_cpu();
}

static int smp_check(void *arg)
{
	return hwbp_a64_read_dbg(HWBP_A64_WVR, 0) == SELFTEST_WVR((uintptr_t)arg)
		       ? (int)a64_this_cpu() : -1;
}

static int smp_clear(void *arg)
{
	(void)arg;
	hwbp_a64_write_dbg(HWBP_A64_WVR, 0, 0);
	__asm__ volatile("isb" ::: "memory");
	return 0;
}

static void smp_selftest(void)
{
	unsigned n = a64_ncpus(), c;

	for (c = 0; c < n; c++)
		if (a64_smp_call(c, smp_mark, (void *)(uintptr_t)c) != (int)c)
			goto bad;
	for (c = 0; c < n; c++)
		if (a64_smp_call(c, smp_check, (void *)(uintptr_t)c) != (int)c)
			goto bad;
	for (c = 0; c < n; c++)
		a64_smp_call(c, smp_clear, NULL);
	return;
bad:
	h_printf("\n# FATAL: arm64 SMP self-check: CPU %u did not run its own call"
		 " or keep its own DBGWVR0\n", c);
	arch_exit(3);
}

int a64_main(void)
{
	uint64_t el;

	mmu_init();
	mmio_w32(UART_BASE + UART_CR, 0x301); /* UARTEN, TXE, RXE */
	__asm__ volatile("mrs %0, CurrentEL" : "=r"(el));
	el = (el >> 2) & 3;
	if (el != 1) {
		puts_("# FATAL: entered at EL");
		arch_putc((char)('0' + el));
		puts_(", this harness needs EL1 (no -M virt,virtualization=on/secure=on)\n");
		arch_exit(4);
	}
	hw_nb = hwbp_a64_nbrp();
	hw_nw = hwbp_a64_nwrp();
	a64_smp_init();
	smp_selftest();
	harness_main();
	arch_exit(0);
}

/*
 * `get NAME`: the MRS of the register from its routine in a64_mrs_table
 * (start.S), at the scenario's EL and stepped like any instruction: at
 * EL1 the value (status NAME=value), at EL0 the UNDEFINED exception
 * (class ud, EC 0x00).  The names of the simulator's get_insn
 * (sim/arm64_step.c): dbg[bw][vc]rN, mdscr, oslsr.
 */
static int mrs_index(const char *name)
{
	enum hwbp_a64_dbg kind;
	unsigned n;

	if (strcmp(name, "mdscr") == 0)
		return 64;
	if (strcmp(name, "oslsr") == 0)
		return 65;
	if (parse_dbg(name, &kind, &n))
		return -ENOENT;
	if (n >= ((kind == HWBP_A64_BVR || kind == HWBP_A64_BCR) ? cpu_nb : cpu_nw))
		return -ENOENT;
	if (n >= ((kind == HWBP_A64_BVR || kind == HWBP_A64_BCR) ? hw_nb : hw_nw))
		return -EOPNOTSUPP;
	/* The table's order: BVR, BCR, WVR, WCR (enum hwbp_a64_dbg). */
	return (int)kind * 16 + (int)n;
}

int arch_get_reg(const char *name, struct hwbp_sim_result *res)
{
	struct pcpu *p = me;
	int k = mrs_index(name);
	uint64_t v;
	unsigned i = 0;

	memset(res, 0, sizeof(*res));
	if (k < 0)
		return k;
	p->last_get = name;
	v = run_insn(p, 0, (uint64_t)a64_mrs_table + 8 * (uint64_t)k);
	if (p->exc_count) {
		rearm_all();
		fill_result(p, res);
		note_last(p, res);
		/* Stepped: the MRS completed, and its value follows the step's
		 * status, as the simulator's hwbp_sim_get_insn() gives it. */
		if (res->cls != HWBP_SIM_STEP || res->timing != HWBP_TIMING_AFTER)
			return 0;
	} else {
		p->last_kind = LAST_NONE;
	}
	if (res->nstatus >= HWBP_SIM_MAX_STATUS)
		return 0;
	for (; name[i] && i + 1 < sizeof(res->status[0].name); i++)
		res->status[res->nstatus].name[i] = name[i];
	res->status[res->nstatus].name[i] = '\0';
	res->status[res->nstatus++].value = v;
	return 0;
}
