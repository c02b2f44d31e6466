/* SPDX-License-Identifier: MIT */
/*
 * arm64 bare-metal harness for qemu-system-aarch64 -M virt -cpu cortex-a57:
 * boot at EL1, an identity map with Normal memory for RAM (the arenas need
 * it: unaligned accesses and DC ZVA fault on Device memory), PL011 output,
 * semihosting exit, the register shadow and the harness.h functions that
 * set up a scenario.  The scenario's instructions themselves (entered by
 * ERET, software step included), the debug-exception entry, and
 * arch_access(), arch_get_reg() and arch_resume() are insn.c's.
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
 * piece of state that describes a CPU (struct a64_pcpu, insn.h: the
 * register shadow, the last debug exception, the EL of the accesses) is
 * that CPU's own, indexed by a64_this_cpu(): the runner calls each arch_*
 * function on the CPU it acts on (arch_on_cpu), so a secondary's debug
 * exception is recorded where its arch_access() reads it.
 */
#include <errno.h>
#include <string.h>

#include "harness.h"
#include "glue.h"
#include "insn.h"
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

void a64_puts(const char *s)
{
	while (*s)
		arch_putc(*s++);
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

/* [addr, addr + len) meets the 2 MiB block at @blk. */
static int meets_block(uint64_t addr, uint64_t len, uint64_t blk)
{
	return addr < blk + BLOCK_2M && addr + len > blk;
}

/* arch_access() may make @a (insn.h). */
int a64_access_mapped(const struct hwbp_sim_access *a)
{
	/* Mapped: below 2^39 (data); exec only inside the code arena C. */
	if (a->addr >= VA_LIMIT ||
	    (a->op != HWBP_SIM_EXEC &&
	     VA_LIMIT - a->addr < (a->op == HWBP_SIM_ZERO ? 1 : a->size)))
		return 0;
	if (a->op == HWBP_SIM_EXEC &&
	    (a->addr < arch_arena_c() || a->addr - arch_arena_c() >= 0x10000))
		return 0;
	/* The GIC's and the PL011's registers are no scratch memory. */
	if (a->op != HWBP_SIM_EXEC &&
	    (meets_block(a->addr, a->op == HWBP_SIM_ZERO ? 64 : a->size, GIC_BLOCK) ||
	     meets_block(a->addr, a->op == HWBP_SIM_ZERO ? 64 : a->size, UART_BLOCK)))
		return 0;
	return 1;
}

/* ------------------------------------------------------------------ */
/* State: per CPU, the shadow of every debug register this harness     */
/* wrote (insn.h: struct a64_pcpu)                                     */
/* ------------------------------------------------------------------ */
/* The same on every CPU (one model, one -cpu): */
static unsigned hw_nb, hw_nw;      /* real counts (ID_AA64DFR0_EL1) */
static unsigned cpu_nb, cpu_nw;    /* the scenario CPU's counts */

/* Each CPU's own (insn.h). */
struct a64_pcpu a64_pcpu[A64_MAX_CPUS];

/* The ISBs after the control writes: the new E bits govern which later
 * instructions can generate debug events only after a context
 * synchronization event (Arm ARM D2, "Synchronization and debug
 * exceptions"; DDI 0487 "Synchronization requirements for AArch64
 * System registers"). */
void a64_disarm_all(void)
{
	struct a64_pcpu *p = a64_me();

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
	struct a64_pcpu *p = a64_me();

	if (n < HWBP_MAX_SLOTS)
		p->wp_seq[n] = ++p->wp_seq_now;
}

void a64_rearm_all(void)
{
	struct a64_pcpu *p = a64_me();
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
	struct a64_pcpu *p = a64_me();

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

/* parse_dbg(), and the slot exists on the scenario's CPU and this one (insn.h). */
int a64_dbg_slot(const char *name, enum hwbp_a64_dbg *kind, unsigned *n)
{
	if (parse_dbg(name, kind, n))
		return -ENOENT;
	if (*n >= ((*kind == HWBP_A64_BVR || *kind == HWBP_A64_BCR) ? cpu_nb : cpu_nw))
		return -ENOENT;
	if (*n >= ((*kind == HWBP_A64_BVR || *kind == HWBP_A64_BCR) ? hw_nb : hw_nw))
		return -EOPNOTSUPP;
	return 0;
}

int arch_set_reg(const char *name, uint64_t value, struct hwbp_sim_result *res)
{
	struct a64_pcpu *p = a64_me();
	enum hwbp_a64_dbg kind;
	unsigned n;
	int ret;

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
	ret = a64_dbg_slot(name, &kind, &n);
	if (ret)
		return ret;
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
		a64_me()->cur_el = (int)value;
		return 0;
	}
	return -EOPNOTSUPP;
}

int arch_write_regs(const struct hwbp_regs *regs)
{
	struct a64_pcpu *p = a64_me();
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
	 * shadow only (insn.c's run_insn()). */
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
		a64_puts("# FATAL: entered at EL");
		arch_putc((char)('0' + el));
		a64_puts(", this harness needs EL1 (no -M virt,virtualization=on/secure=on)\n");
		arch_exit(4);
	}
	hw_nb = hwbp_a64_nbrp();
	hw_nw = hwbp_a64_nwrp();
	a64_smp_init();
	smp_selftest();
	harness_main();
	arch_exit(0);
}
