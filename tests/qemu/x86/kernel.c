/* SPDX-License-Identifier: MIT */
/*
 * x86_64 bare-metal harness kernel (QEMU -machine pc, TCG): IDT, COM1
 * serial, isa-debug-exit, and the harness.h functions that execute a
 * scenario on the real (emulated) debug registers.
 *
 * #DB handling (Intel SDM Vol. 3 §17.3.1): an execute breakpoint is a
 * fault (RIP = the breakpoint address; the handler sets RFLAGS.RF in the
 * frame so the instruction runs on return), a data or I/O breakpoint a trap
 * (RIP after the access).  The handler reads DR6 and leaves it alone: the
 * CPU rewrites B0-B3 on every breakpoint #DB and never clears BD/BS/BT,
 * which is what the simulator's model does too.
 *
 * `mode cpl=3` runs the accesses in ring 3 (x86_user_call in boot.S; `set`
 * stays the ring-0 debugger's MOV DRn): every page is a user page, a #DB
 * from ring 3 arrives on the TSS's RSP0 stack and returns to ring 3.
 *
 * Every MOV to/from DRn (and the WRMSR of the AMD mask MSRs) sits on a
 * fix-up (boot.S): a #DB (general detect), #UD or #GP it raises is reported
 * to arch_set_reg() instead of stopping the kernel.  Output to COM1 is held
 * back while an enabled I/O breakpoint is armed (it could trip on 0x3f8).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <hwbp/x86.h>

#include "harness.h"
#include "platform.h"
#include "glue.h"
#include "smp.h"
#include "step.h"

#define CR4_DE (1ull << 3)
#define RFLAGS_RF (1ull << 16)
#define RFLAGS_IOPL3 (3ull << 12)
#define DR6_B_MASK 0xfull

struct fixup {
	uint64_t insn, cont;
};

extern const struct fixup __start_x86_fixup[], __stop_x86_fixup[];
/*
 * The arenas (64 KiB each, 64 KiB aligned, identity mapped, outside the
 * image): at the very addresses the simulator gives them (sim/scenario.c
 * ARENA_B/ARENA_C), so that B/C print the same and any number the table
 * carries equals what the simulator saw.
 */
#define ARENA_B 0x10000000ull
#define ARENA_C 0x10010000ull
/* The linear window 0xA0000-0xFFFFF maps to RAM here (boot.S), all 0xC3. */
#define LOWWIN_LO 0xa0000ull
#define LOWWIN_HI 0x100000ull
#define LOWWIN_PHYS 0x1000000ull
#define x86_arena_b ((char *)(uintptr_t)ARENA_B)
#define x86_arena_c ((char *)(uintptr_t)ARENA_C)

int x86_fixup_vec;
void x86_exception(struct x86_frame *f);
void kmain(void);
uint64_t x86_flags_call(uint64_t target, uint64_t arg, uint64_t orflags);
uint64_t x86_user_call(uint64_t target, uint64_t arg, uint64_t rflags);
extern char x86_user_back[];
extern uint64_t x86_user_ret_rsp;
int x86_wrmsr_safe(uint32_t msr, uint64_t value);

uint64_t acc_read1(uint64_t), acc_read2(uint64_t), acc_read4(uint64_t), acc_read8(uint64_t);
uint64_t acc_read16(uint64_t);
void acc_write1(uint64_t), acc_write2(uint64_t), acc_write4(uint64_t), acc_write8(uint64_t);
void acc_write16(uint64_t);
uint64_t acc_in1(uint64_t), acc_in2(uint64_t), acc_in4(uint64_t);

/* ------------------------------------------------------------ ports */

static uint64_t read_cr4(void)
{
	uint64_t v;

	__asm__ volatile("mov %%cr4, %0" : "=r"(v));
	return v;
}

static void write_cr4(uint64_t v)
{
	__asm__ volatile("mov %0, %%cr4" : : "r"(v) : "memory");
}

/* ------------------------------------------------------------ serial */

/*
 * Output goes to COM1 (0x3f8-0x3ff).  While an enabled I/O breakpoint is
 * armed (R/W = 10: QEMU checks it whatever CR4.DE is) the port writes
 * could trip it, so the text is kept in a buffer until the slot is gone
 * (at the latest at the next file's reset or at exit).
 */
static char outbuf[1 << 18];
static size_t outlen;

static void serial_raw(char c)
{
	x86_serial_putc(c);
}

static bool io_slot_armed(void)
{
	uint64_t dr7 = hwbp_x86_dr7_shadow();

	for (unsigned i = 0; i < 4; i++)
		if (((dr7 >> (2 * i)) & 3) && ((dr7 >> (16 + 4 * i)) & 3) == 2)
			return true;
	return false;
}

static void flush_raw(void)
{
	for (size_t i = 0; i < outlen; i++) {
		serial_raw(outbuf[i]);
	}
	outlen = 0;
}

/* Flush now even with an I/O slot armed: DR7 off meanwhile (unless GD). */
static void flush_forced(void)
{
	uint64_t dr7 = hwbp_x86_dr7_shadow();

	if (!io_slot_armed() || (dr7 & HWBP_X86_GLUE_DR7_GD)) {
		flush_raw();
		return;
	}
	hwbp_x86_dr_write(7, 0, 0);
	flush_raw();
	hwbp_x86_dr_write(7, dr7, 0);
}

void arch_putc(char c)
{
	if (outlen == sizeof(outbuf))
		flush_forced();
	outbuf[outlen++] = c;
	if (c == '\n' && !io_slot_armed())
		flush_raw();
}

static void kputs(const char *s)
{
	while (*s)
		arch_putc(*s++);
}

__attribute__((noreturn)) void arch_exit(int code)
{
	/* Nothing armed while the buffer drains. */
	hwbp_x86_dr_reset();
	flush_raw();
	x86_debug_exit(code);
}

/* ------------------------------------------------------------ exceptions */

/* What the #DB handler saw during one access. */
static volatile struct {
	bool active;          /* an access is under way */
	uint64_t exec_target; /* the instruction an execute access runs */
	unsigned count;       /* #DBs taken */
	bool fault;           /* it was the execute fault (RIP = target) */
	uint64_t rip, dr6;
	uint64_t cs;          /* the interrupted code's CS (its RPL: the ring) */
} db;

static unsigned stray_db;
static uint64_t stray_rip, stray_dr6;

static void hex(uint64_t v)
{
	char b[19];

	b[0] = '0';
	b[1] = 'x';
	for (int i = 0; i < 16; i++)
		b[2 + i] = "0123456789abcdef"[(v >> (60 - 4 * i)) & 0xf];
	b[18] = '\0';
	kputs(b);
}

void x86_exception(struct x86_frame *f)
{
	/* A listed instruction (MOV DRn, WRMSR): report the vector, skip it. */
	for (const struct fixup *x = __start_x86_fixup; x < __stop_x86_fixup; x++) {
		if (x->insn == f->rip &&
		    (f->vector == HWBP_X86_GLUE_VEC_DB || f->vector == HWBP_X86_GLUE_VEC_UD || f->vector == HWBP_X86_GLUE_VEC_GP)) {
			x86_fixup_vec = (int)f->vector;
			f->rip = x->cont;
			return;
		}
	}
	/* step.c's generated instructions (TF, INT3, INT1, MOV SS...). */
	if (x86_step_exception(f))
		return;
	if (f->vector == X86_VEC_CALL) {
		x86_smp_ipi();   /* an AP asked to run the runner's call */
		return;
	}
	if (f->vector == X86_VEC_USER_EXIT && (f->cs & 3) == 3) {
		/* x86_user_exit's INT: back to ring 0 at x86_user_back, on the
		 * stack x86_user_call left (IRETQ in 64-bit mode always pops
		 * SS:RSP, to ring 0 as well). */
		f->rip = (uint64_t)(uintptr_t)x86_user_back;
		f->cs = 0x08;
		f->ss = 0x10;
		f->rsp = x86_user_ret_rsp;
		f->rflags = 0x2;
		return;
	}
	if (f->vector == HWBP_X86_GLUE_VEC_DB) {
		struct hwbp_status st;

		hwbp_x86_db_entry(f->rip, &st);
		if (!db.active) {
			stray_db++;
			stray_rip = f->rip;
			stray_dr6 = st.u.x86.dr6;
			return;
		}
		db.count++;
		db.rip = f->rip;
		db.cs = f->cs;
		db.dr6 = st.u.x86.dr6;
		db.fault = f->rip == db.exec_target;
		/* An instruction breakpoint: return with RF so that it runs. */
		if (db.fault)
			f->rflags |= RFLAGS_RF;
		return;
	}
	hwbp_x86_dr_reset();
	flush_raw();
	kputs("\n# x86 harness: unexpected exception vector ");
	hex(f->vector);
	kputs(" error ");
	hex(f->error);
	kputs(" rip ");
	hex(f->rip);
	kputs(" rsp ");
	hex(f->rsp);
	kputs("\n");
	flush_raw();
	arch_exit(3);
}

/* ------------------------------------------------------------ harness.h */

static struct hwbp_cpu cur_cpu;
/* Each CPU's execution state (the scenario language's, per CPU): RF for
 * its next access, and `mode cpl=` (0 or 3, the ring its accesses run
 * in).  Indexed by x86_this_cpu(): every arch_* function runs on the CPU
 * it acts on (the runner's arch_on_cpu()). */
static bool rf_pending_cpu[X86_MAX_CPUS];
static unsigned cpl_cpu[X86_MAX_CPUS];
#define rf_pending (rf_pending_cpu[x86_this_cpu()])
#define cur_cpl (cpl_cpu[x86_this_cpu()])

unsigned arch_ncpus(void)
{
	return x86_ncpus();
}

int arch_on_cpu(unsigned cpu, int (*fn)(void *), void *arg)
{
	return x86_smp_call(cpu, fn, arg);
}

uint64_t arch_arena_b(void)
{
	return (uint64_t)(uintptr_t)x86_arena_b;
}

uint64_t arch_arena_c(void)
{
	return (uint64_t)(uintptr_t)x86_arena_c;
}

const char *arch_machine_model(void)
{
	return "x86_64";   /* -cpu qemu64, long mode (run.sh) */
}

const char *arch_cpu_unsupported(const struct hwbp_cpu *cpu)
{
	if (cpu->arch != HWBP_ARCH_X86)
		return "not an x86 cpu";
	if (!cpu->u.x86.mode64)
		return "32-bit cpu (the harness runs in long mode)";
	return NULL;
}

static int cr4_de(void)
{
	return (read_cr4() & CR4_DE) != 0;
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

void arch_reset(const struct hwbp_cpu *cpu)
{
	cur_cpu = *cpu;
	hwbp_x86_dr_reset();
	write_cr4(read_cr4() & ~CR4_DE);
	rf_pending = false;
	cur_cpl = 0;
	x86_step_reset();
	memset(x86_arena_c, 0xc3, 0x10000);
	memset((void *)(uintptr_t)LOWWIN_PHYS, 0xc3, LOWWIN_HI - LOWWIN_LO);
	flush_raw();
}

static void fault_result(struct hwbp_sim_result *res, enum hwbp_sim_class cls)
{
	res->cls = cls;
	res->timing = HWBP_TIMING_BEFORE;
	res->st.u.x86.dr6 = hwbp_x86_dr_read(6);
}

static void status_dr6(struct hwbp_sim_result *res, uint64_t dr6)
{
	res->st.u.x86.dr6 = dr6;
	res->nstatus = 1;
	strncpy(res->status[0].name, "dr6", sizeof(res->status[0].name));
	res->status[0].value = dr6;
}

static int dr_index(const char *name)
{
	if (name[0] == 'd' && name[1] == 'r' && name[2] >= '0' && name[2] <= '7' && !name[3])
		return name[2] - '0';
	return -1;
}

int arch_set_reg(const char *name, uint64_t value, struct hwbp_sim_result *res)
{
	int n = dr_index(name), vec;

	memset(res, 0, sizeof(*res));
	res->cls = HWBP_SIM_NONE;
	if (x86_step_holding() && n < 0) {
		harness_why = "after a MOV SS only an instruction line can run";
		return -EOPNOTSUPP;
	}
	if (strcmp(name, "cr4") == 0) {
		/* Only DE (docs/scenarios.md); MOV to CR4 has no general detect. */
		write_cr4((read_cr4() & ~CR4_DE) | (value & CR4_DE));
		return 0;
	}
	if (strcmp(name, "rf") == 0) {
		/* RFLAGS.RF for the next instruction: the next access enters it
		 * through an IRETQ frame with RF set (x86_flags_call). */
		rf_pending = value != 0;
		return 0;
	}
	if (strcmp(name, "tf") == 0 || strcmp(name, "step") == 0) {
		/* RFLAGS.TF of the lines that follow (step.c enters them with it). */
		x86_step_set_tf(value != 0);
		return 0;
	}
	if (strncmp(name, "dr", 2) == 0 && name[2] >= '0' && name[2] <= '3' &&
	    strcmp(name + 3, "_mask") == 0) {
		/* AMD DRn_ADDR_MASK: DR0 C001_1027, DR1-DR3 C001_1019..101B. */
		static const uint32_t msr[4] = { 0xc0011027, 0xc0011019, 0xc001101a, 0xc001101b };

		if (!cur_cpu.u.x86.amd_addr_mask)
			return -ENOENT;
		vec = x86_wrmsr_safe(msr[name[2] - '0'], value);
		if (vec)
			fault_result(res, vec == HWBP_X86_GLUE_VEC_GP ? HWBP_SIM_GP : HWBP_SIM_UD);
		return 0;
	}
	if (n < 0)
		return -ENOENT;
	if (x86_step_busy())
		/* A stepped MOV to DRn, or the line after a MOV SS: always
		 * at CPL 0, as a `set` is (docs/scenarios.md). */
		return x86_step_run(NULL, n, true, value, 0, res);
	vec = hwbp_x86_dr_write((unsigned)n, value, cr4_de());
	switch (vec) {
	case 0:
		break;
	case HWBP_X86_GLUE_VEC_DB:
		/* General detect: a fault before the MOV, DR6.BD (§17.3.1.3). */
		res->cls = HWBP_SIM_DB;
		res->timing = HWBP_TIMING_BEFORE;
		status_dr6(res, hwbp_x86_dr_read(6));
		break;
	case HWBP_X86_GLUE_VEC_UD:
		fault_result(res, HWBP_SIM_UD);
		break;
	case HWBP_X86_GLUE_VEC_GP:
		fault_result(res, HWBP_SIM_GP);
		break;
	default:
		return -EOPNOTSUPP;
	}
	return 0;
}

int arch_get_reg(const char *name, struct hwbp_sim_result *res)
{
	int n = dr_index(name);

	if (n < 0)
		return -ENOENT;
	/* MOV from DRn in the current ring, generated (step.c). */
	return x86_step_run(NULL, n, false, 0, cur_cpl, res);
}

int arch_mode(const char *key, uint64_t value)
{
	if (strcmp(key, "cpl") == 0 && (value == 0 || value == 3)) {
		cur_cpl = (unsigned)value;
		return 0;
	}
	return -EOPNOTSUPP;
}

static bool in_arena(uint64_t a, uint64_t n, uint64_t base)
{
	return a >= base && a - base < 0x10000 && n <= 0x10000 - (a - base);
}

/* Writes: the arenas or low memory (below 1 MiB, under the kernel);
 * reads: anywhere below 4 GiB (identity mapped). */
static bool data_ok(uint64_t a, uint64_t n, bool write)
{
	if (a + n < a)
		return false;
	if (in_arena(a, n, arch_arena_b()) || in_arena(a, n, arch_arena_c()))
		return true;
	return a + n <= (write ? 0x100000ull : 0x100000000ull);
}

int arch_access(const struct hwbp_sim_access *a, struct hwbp_sim_result *res)
{
	uint64_t fn, arg = a->addr;

	memset(res, 0, sizeof(*res));
	res->cls = HWBP_SIM_NONE;
	if (x86_step_wants(a)) {
		int ret;

		if (rf_pending)
			return -EOPNOTSUPP;
		if ((a->op == HWBP_SIM_READ || a->op == HWBP_SIM_WRITE || a->op == HWBP_SIM_MOVSS) &&
		    a->size && !data_ok(a->addr, a->size, a->op == HWBP_SIM_WRITE))
			return -EOPNOTSUPP;
		if (a->op == HWBP_SIM_IO && (a->addr > 0xffff || a->addr == DEBUG_EXIT_PORT))
			return -EOPNOTSUPP;
		if (a->op == HWBP_SIM_EXEC && !in_arena(a->addr, 1, arch_arena_c()))
			return -EOPNOTSUPP;
		ret = x86_step_run(a, -1, false, 0, cur_cpl, res);
		return ret;
	}
	if (a->op == HWBP_SIM_WRITE)
		x86_step_stored(a->addr, a->size);
	switch (a->op) {
	case HWBP_SIM_READ:
	case HWBP_SIM_WRITE: {
		bool w = a->op == HWBP_SIM_WRITE;

		if (!data_ok(a->addr, a->size, w))
			return -EOPNOTSUPP;
		switch (a->size) {
		case 1:
			fn = w ? (uint64_t)(uintptr_t)acc_write1 : (uint64_t)(uintptr_t)acc_read1;
			break;
		case 2:
			fn = w ? (uint64_t)(uintptr_t)acc_write2 : (uint64_t)(uintptr_t)acc_read2;
			break;
		case 4:
			fn = w ? (uint64_t)(uintptr_t)acc_write4 : (uint64_t)(uintptr_t)acc_read4;
			break;
		case 8:
			fn = w ? (uint64_t)(uintptr_t)acc_write8 : (uint64_t)(uintptr_t)acc_read8;
			break;
		case 16:
			fn = w ? (uint64_t)(uintptr_t)acc_write16 : (uint64_t)(uintptr_t)acc_read16;
			break;
		default:
			return -EOPNOTSUPP;
		}
		break;
	}
	case HWBP_SIM_IO:
		if (a->addr > 0xffff || a->addr == DEBUG_EXIT_PORT)
			return -EOPNOTSUPP;
		/* IN (harmless on every port the scenarios use). */
		switch (a->size) {
		case 1:
			fn = (uint64_t)(uintptr_t)acc_in1;
			break;
		case 2:
			fn = (uint64_t)(uintptr_t)acc_in2;
			break;
		case 4:
			fn = (uint64_t)(uintptr_t)acc_in4;
			break;
		default:
			return -EOPNOTSUPP;
		}
		break;
	case HWBP_SIM_EXEC:
		/* Only the code arena and the low window are all `ret`. */
		if (!in_arena(a->addr, 1, arch_arena_c()) &&
		    !(a->addr >= LOWWIN_LO && a->addr < LOWWIN_HI))
			return -EOPNOTSUPP;
		fn = a->addr;
		break;
	default:
		return -EOPNOTSUPP;
	}

	db.count = 0;
	db.fault = false;
	db.exec_target = a->op == HWBP_SIM_EXEC ? a->addr : ~0ull;
	db.active = true;
	__asm__ volatile("" ::: "memory");
	if (cur_cpl == 3)
		/* Ring 3: RF through the IRETQ frame as in ring 0; IOPL 3 for
		 * IN (the TSS has no I/O bitmap: with IOPL 0 it is #GP in ring 3,
		 * before any I/O breakpoint could match). */
		x86_user_call(fn, arg, 0x2 | (rf_pending ? RFLAGS_RF : 0) |
				       (a->op == HWBP_SIM_IO ? RFLAGS_IOPL3 : 0));
	else if (rf_pending)
		x86_flags_call(fn, arg, RFLAGS_RF);
	else
		((void (*)(uint64_t))(uintptr_t)fn)(arg);
	__asm__ volatile("" ::: "memory");
	db.active = false;
	/* The instruction completed: RF is clear again either way. */
	rf_pending = false;

	if (db.count && (db.cs & 3) != cur_cpl) {
		/* The #DB came from another ring than the scenario's: the
		 * harness itself is wrong, no line of it can be trusted. */
		hwbp_x86_dr_reset();
		flush_raw();
		kputs("\n# x86 harness: #DB from ring ");
		hex(db.cs & 3);
		kputs(" during a cpl=");
		hex(cur_cpl);
		kputs(" access\n");
		arch_exit(3);
	}
	if (db.count) {
		res->cls = HWBP_SIM_DB;
		res->timing = db.fault ? HWBP_TIMING_BEFORE : HWBP_TIMING_AFTER;
		res->data_slots = (uint32_t)(db.dr6 & DR6_B_MASK) & hwbp_x86_enabled_slots(hwbp_x86_dr7_shadow());
		res->inst_slots = 0;
		status_dr6(res, db.dr6);
		/* The sim knows the IP of an execute fault only. */
		res->st.ip = db.fault ? a->addr : 0;
		res->addr = 0;
		res->addr_known = false;
	}
	return 0;
}

void arch_resume(struct hwbp_sim_result *res)
{
	/* The handler already stepped over (RF for an execute fault); with
	 * TF, the step trap of the instruction that then ran is this line's. */
	if (x86_step_resume(res))
		return;
	memset(res, 0, sizeof(*res));
	res->cls = HWBP_SIM_NONE;
}

void arch_held_result(struct hwbp_sim_result *res)
{
	x86_step_held(res);
}

/* ------------------------------------------------------------ main */

/*
 * Before any scenario: every CPU runs a call of its own (x86_smp_call by
 * IPI) that writes DR0 with a value naming it, then every CPU reads its
 * DR0 back and says who it is.  A CPU that answers for another, or whose
 * DR0 holds another's value, stops the kernel: per-CPU lines could not be
 * trusted.
 */
static int smp_reset(void *arg)
{
	(void)arg;
	hwbp_x86_dr_reset();
	return 0;
}

static int smp_mark(void *arg)
{
	hwbp_x86_dr_write(0, 0x10000000ull + 0x100 * (uintptr_t)arg, 0);
	return (int)x86_this_cpu();
}

static int smp_check(void *arg)
{
	uint64_t want = 0x10000000ull + 0x100 * (uintptr_t)arg;

	return hwbp_x86_dr_read(0) == want ? (int)x86_this_cpu() : -1;
}

static void smp_selftest(void)
{
	unsigned n = x86_ncpus(), c;

	for (c = 0; c < n; c++)
		if (x86_smp_call(c, smp_mark, (void *)(uintptr_t)c) != (int)c)
			goto bad;
	for (c = 0; c < n; c++)
		if (x86_smp_call(c, smp_check, (void *)(uintptr_t)c) != (int)c)
			goto bad;
	for (c = 0; c < n; c++)
		x86_smp_call(c, smp_reset, NULL);
	return;
bad:
	kputs("# x86 harness: CPU ");
	hex(c);
	kputs(" did not run its own call or keep its own DR0\n");
	arch_exit(3);
}

void kmain(void)
{
	/*
	 * Mask every 8259 line: a `sti` line enables interrupts for a few
	 * instructions, and the PIT's IRQ 0 would arrive on the PIC's
	 * power-on vector 8 (#DF's).  The IPIs are the local APIC's.
	 */
	outb(0x21, 0xff);
	outb(0xa1, 0xff);
	x86_serial_init();
	x86_idt_init();
	x86_user_init(0);
	x86_smp_init();
	smp_selftest();
	memset(x86_arena_b, 0, 0x10000);
	memset(x86_arena_c, 0xc3, 0x10000);
	memset((void *)(uintptr_t)LOWWIN_PHYS, 0xc3, LOWWIN_HI - LOWWIN_LO);
	harness_main();
	if (stray_db) {
		kputs("# x86 harness: stray #DB outside an access: ");
		hex(stray_db);
		kputs(" last rip ");
		hex(stray_rip);
		kputs(" dr6 ");
		hex(stray_dr6);
		kputs("\n");
	}
	arch_exit(0);
}
