/* SPDX-License-Identifier: MIT */
/*
 * The native runner for x86_64 Linux: the harness.h functions on this
 * machine's own CPU.  The runner (tests/qemu/common/runner.c) runs in this
 * process, the "CPU" is a child process it traces: the arenas are mapped
 * in the child at the simulator's addresses, DR0-DR3/DR6/DR7 are written
 * and read through PTRACE_POKEUSER/PEEKUSER (struct user's u_debugreg),
 * and every access is one instruction the child executes (a stub below,
 * or a `ret` of the code arena), with the child's registers set for it.
 *
 * What Linux's ptrace layer lets through, and what it does not, is the
 * point of the runner: Linux turns each DR7 slot into a perf breakpoint
 * (arch/x86/kernel/ptrace.c ptrace_write_dr7() -> ptrace_register_bp()),
 * so the hardware sees what hw_breakpoint_arch_parse() accepted, not the
 * raw value.  Lines it cannot express are refused here with the reason
 * (harness_why: the runner prints it and skips the file), never run in
 * some other way:
 *   - ring 0 (accesses at `mode cpl=0`, the files' default): the child is a
 *     user process (scripts/harness native runs each file from `mode cpl=3`);
 *   - DR7.GD: ptrace_write_dr7() decodes only the slots' enables, R/W and
 *     LEN, so a debugger's later MOV DRn would not fault.  (LE and GE pass:
 *     the processor ignores them since the P6 family, SDM Vol. 3 §17.2.4,
 *     and Linux sets GE itself; ptrace reads back the DR7 it was given.)
 *   - R/W = 10 (I/O): hw breakpoints of the generic layer have no such type;
 *   - DR4/DR5, CR4.DE = 1 (Linux runs with CR4.DE clear: cpu_init() in
 *     arch/x86/kernel/cpu/common.c), the AMD mask MSRs, I/O port accesses;
 *   - DR6 values with BD/BS/BT/RTM: the DR6 ptrace shows is the thread's
 *     virtual_dr6, rebuilt at each #DB from the real DR6's BS and the
 *     triggered slots (exc_debug_user() and ptrace_triggered());
 *   - an address or length Linux's parser refuses (unaligned, kernel).
 * Linux also keeps RF for us: hw_breakpoint_handler() sets RFLAGS.RF in
 * the frame of an execute breakpoint's fault, as a debugger's handler must.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include <hwbp/x86.h>

#include "harness.h"

/* The simulator's arenas (sim/scenario.c), so that B+/C+ print the same. */
#define ARENA_B 0x10000000ull
#define ARENA_C 0x10010000ull
#define ARENA_SIZE 0x10000ull
/* As in the x86 harness: the linear window 0xA0000-0xFFFFF is memory,
 * every byte a `ret` (above vm.mmap_min_addr's default of 64 KiB). */
#define LOWWIN_LO 0xa0000ull
#define LOWWIN_HI 0x100000ull

#define DR7_GD (1ull << 13)
/* DR6 BD, BS, BT: a tracer cannot set what only a #DB reports (ptrace's
 * DR6 is the thread's virtual_dr6, rebuilt at each #DB); bit 16 (RTM,
 * active low) reads as written (ptrace_set_debugreg() stores val ^
 * DR6_RESERVED, ptrace_get_debugreg() flips it back). */
#define DR6_STICKY ((1ull << 13) | (1ull << 14) | (1ull << 15))
#define RFLAGS_RF (1ull << 16)
#define TRAPS_MAX 8   /* #DBs one access can raise: a few, never a loop */

/* The access stubs, executed by the child with the address in RDI: one
 * access instruction, then INT3 that hands the child back.  Writes store
 * 0xC3 bytes (RAX, and XMM0 built from it), as the x86 harness's do: the
 * code arena and the low window stay all `ret`. */
__asm__(".text\n"
	".globl nat_r1, nat_r2, nat_r4, nat_r8, nat_r16\n"
	".globl nat_w1, nat_w2, nat_w4, nat_w8, nat_w16, nat_w16s, nat_back\n"
	"nat_r1: movb (%rdi), %al\n int3\n"
	"nat_r2: movw (%rdi), %ax\n int3\n"
	"nat_r4: movl (%rdi), %eax\n int3\n"
	"nat_r8: movq (%rdi), %rax\n int3\n"
	"nat_r16: movdqu (%rdi), %xmm0\n int3\n"
	"nat_w1: movb %al, (%rdi)\n int3\n"
	"nat_w2: movw %ax, (%rdi)\n int3\n"
	"nat_w4: movl %eax, (%rdi)\n int3\n"
	"nat_w8: movq %rax, (%rdi)\n int3\n"
	"nat_w16: movq %rax, %xmm0\n movlhps %xmm0, %xmm0\n"
	/* (stepped, the store alone: XMM0 filled by nat_w16 run to here) */
	"nat_w16s: movdqu %xmm0, (%rdi)\n int3\n"
	/* where an executed `ret` of the code arena returns to */
	"nat_back: int3\n"
	/* the scenario's own INT3 and INT1, and MOV from DRn (#GP in ring 3) */
	".globl nat_int3, nat_icebp, nat_get0\n"
	"nat_int3: int3\n int3\n"
	"nat_icebp: .byte 0xf1\n int3\n"
	"nat_get0: mov %dr0, %rax\n int3\n mov %dr1, %rax\n int3\n"
	" mov %dr2, %rax\n int3\n mov %dr3, %rax\n int3\n"
	" mov %dr6, %rax\n int3\n mov %dr7, %rax\n int3\n");
extern char nat_r1[], nat_r2[], nat_r4[], nat_r8[], nat_r16[];
extern char nat_w1[], nat_w2[], nat_w4[], nat_w8[], nat_w16[], nat_w16s[], nat_back[];
extern char nat_int3[], nat_icebp[], nat_get0[];
/* Linux's SIGTRAP codes (asm-generic/siginfo.h), as the linux profile
 * prints them (sim/quirks_linux_x86.def HWBPI_Q_X86_LINUX_SIGINFO). */
#define NAT_TRAP_BRKPT 1
#define NAT_TRAP_TRACE 2
#define NAT_TRAP_HWBKPT 4

static pid_t child;
static struct user_regs_struct base;   /* the child at its stop */
static int rf_next;                    /* `set rf 1`: RF for the next access */
static int stepping;                   /* `step on`: PTRACE_SINGLESTEP each line */
static struct hwbp_sim_result resume_res;   /* the step after an execute fault */
static int have_resume;
static int cpl;                        /* `mode cpl=`: 0 at each file's start */

static const char *errname(int e)
{
	const char *n = strerrorname_np(e);

	return n ? n : "?";
}

static void die(const char *what)
{
	fprintf(stderr, "hwbp: native: %s: %s (%s)\n", what, strerror(errno), errname(errno));
	if (child > 0)
		kill(child, SIGKILL);
	exit(1);
}

static long dr_offset(unsigned n)
{
	return (long)(offsetof(struct user, u_debugreg) + n * sizeof(long));
}

static int dr_poke(unsigned n, uint64_t v)
{
	return ptrace(PTRACE_POKEUSER, child, dr_offset(n), (void *)(uintptr_t)v) ? -errno : 0;
}

static uint64_t dr_peek(unsigned n)
{
	long v;

	errno = 0;
	v = ptrace(PTRACE_PEEKUSER, child, dr_offset(n), NULL);
	if (errno)
		die("PTRACE_PEEKUSER");
	return (uint64_t)v;
}

/* Fill @len bytes of the child's memory at @addr: /proc/PID/mem writes
 * as the tracer may. */
static void child_fill(uint64_t addr, size_t len, int byte)
{
	static unsigned char buf[LOWWIN_HI - LOWWIN_LO];
	char path[64];
	int fd;

	memset(buf, byte, sizeof(buf));
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)child);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0 || len > sizeof(buf) || pwrite(fd, buf, len, (off_t)addr) != (ssize_t)len)
		die("writing the child's arena");
	close(fd);
}

static void child_main(void)
{
	void *b, *c, *w;

	if (ptrace(PTRACE_TRACEME, 0, NULL, NULL))
		_exit(10);
	/* MAP_FIXED_NOREPLACE: fail rather than replace a mapping of ours. */
	b = mmap((void *)(uintptr_t)ARENA_B, ARENA_SIZE, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	c = mmap((void *)(uintptr_t)ARENA_C, ARENA_SIZE, PROT_READ | PROT_WRITE | PROT_EXEC,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	w = mmap((void *)(uintptr_t)LOWWIN_LO, LOWWIN_HI - LOWWIN_LO, PROT_READ | PROT_WRITE | PROT_EXEC,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (b != (void *)(uintptr_t)ARENA_B || c != (void *)(uintptr_t)ARENA_C ||
	    w != (void *)(uintptr_t)LOWWIN_LO)
		_exit(11);
	raise(SIGSTOP);
	/* Never reached: the tracer moves RIP to the stubs and kills us. */
	_exit(12);
}

static void start_child(void)
{
	int st;

	child = fork();
	if (child < 0)
		die("fork");
	if (child == 0)
		child_main();
	if (waitpid(child, &st, 0) != child || !WIFSTOPPED(st) || WSTOPSIG(st) != SIGSTOP) {
		errno = ECHILD;
		die("the child did not stop after mapping its arenas");
	}
	if (ptrace(PTRACE_SETOPTIONS, child, NULL, (void *)(long)PTRACE_O_EXITKILL))
		die("PTRACE_SETOPTIONS");
	if (ptrace(PTRACE_GETREGS, child, NULL, &base))
		die("PTRACE_GETREGS");
	/* Below the red zone of the frame the child stopped in. */
	base.rsp = (base.rsp - 4096) & ~0xfull;
}

/* ------------------------------------------------------------ harness.h */

void arch_putc(char c)
{
	putchar(c);
}

unsigned arch_ncpus(void)
{
	/* ptrace's debug registers are a thread's, not a CPU's. */
	return 1;
}

int arch_on_cpu(unsigned cpu, int (*fn)(void *), void *arg)
{
	return cpu == 0 ? fn(arg) : -EINVAL;
}

void arch_exit(int code)
{
	fflush(stdout);
	if (child > 0)
		kill(child, SIGKILL);
	exit(code);
}

uint64_t arch_arena_b(void)
{
	return ARENA_B;
}

uint64_t arch_arena_c(void)
{
	return ARENA_C;
}

const char *arch_machine_model(void)
{
	return "x86_64";   /* this machine's CPU as a 64-bit process sees it */
}

const char *arch_cpu_unsupported(const struct hwbp_cpu *cpu)
{
	if (cpu->arch != HWBP_ARCH_X86)
		return "not an x86 cpu";
	if (!cpu->u.x86.mode64)
		return "32-bit cpu (the runner is a 64-bit process)";
	return NULL;
}

void arch_reset(const struct hwbp_cpu *cpu)
{
	/* DR7 first: Linux checks each address against its slot's enable. */
	static const unsigned order[] = { 7, 0, 1, 2, 3, 6 };

	(void)cpu;
	for (unsigned i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		if (dr_poke(order[i], 0))
			die("resetting the debug registers");
	rf_next = 0;
	stepping = 0;
	have_resume = 0;
	cpl = 0;
	child_fill(ARENA_B, ARENA_SIZE, 0);
	child_fill(ARENA_C, ARENA_SIZE, 0xc3);
	child_fill(LOWWIN_LO, LOWWIN_HI - LOWWIN_LO, 0xc3);
}

/* Write DRn as `set` or the glue does; -EOPNOTSUPP with the reason when
 * Linux refuses it or would not pass it to the hardware as it is. */
static int write_dr(unsigned n, uint64_t v)
{
	int ret;

	if (n == 4 || n == 5) {
		harness_why = "DR4/DR5: Linux's ptrace has no such registers (and runs with CR4.DE clear)";
		return -EOPNOTSUPP;
	}
	if (n == 7) {
		if (v & DR7_GD) {
			harness_why = "DR7.GD: Linux's ptrace_write_dr7() passes only the slots' fields";
			return -EOPNOTSUPP;
		}
		for (unsigned s = 0; s < 4; s++)
			if (((v >> (16 + 4 * s)) & 3) == 2 && ((v >> (2 * s)) & 3)) {
				harness_why = "DR7 R/W=10 (I/O): Linux's hw breakpoints have no I/O type";
				return -EOPNOTSUPP;
			}
	}
	if (n == 6 && (v & DR6_STICKY)) {
		harness_why = "DR6 BD/BS/BT: ptrace's DR6 is the thread's virtual_dr6, rebuilt at each #DB";
		return -EOPNOTSUPP;
	}
	ret = dr_poke(n, v);
	if (ret) {
		/* The errno, for whoever reads the runner's stderr. */
		fprintf(stderr, "hwbp: native: ptrace refused DR%u = %#llx: %s (%s)\n", n,
			(unsigned long long)v, strerror(-ret), errname(-ret));
		harness_why = n == 7 ? "DR7: Linux's ptrace refuses this value (hw_breakpoint_arch_parse)"
				     : "DR0-DR3: Linux's ptrace refuses this address for its slot";
		return -EOPNOTSUPP;
	}
	return 0;
}

int arch_write_regs(const struct hwbp_regs *regs)
{
	int ret;

	if (regs->arch != HWBP_ARCH_X86)
		return -EINVAL;
	/* DR7 off, the addresses, then DR7: Linux validates an address
	 * against its slot's current R/W and LEN. */
	ret = write_dr(7, 0);
	for (unsigned n = 0; n < 4 && !ret; n++)
		ret = write_dr(n, regs->u.x86.dr[n]);
	return ret ? ret : write_dr(7, regs->u.x86.dr7);
}

void arch_read_regs(struct hwbp_regs *regs)
{
	memset(regs, 0, sizeof(*regs));
	regs->arch = HWBP_ARCH_X86;
	for (unsigned n = 0; n < 4; n++)
		regs->u.x86.dr[n] = dr_peek(n);
	regs->u.x86.dr6 = dr_peek(6);
	regs->u.x86.dr7 = dr_peek(7);
}

int arch_set_reg(const char *name, uint64_t value, struct hwbp_sim_result *res)
{
	memset(res, 0, sizeof(*res));
	res->cls = HWBP_SIM_NONE;
	if (strcmp(name, "rf") == 0) {
		/* RFLAGS.RF of the child's next instruction: ptrace may set it
		 * (FLAG_MASK in arch/x86/kernel/ptrace.c lets RF through). */
		rf_next = value != 0;
		return 0;
	}
	if (strcmp(name, "step") == 0 || strcmp(name, "tf") == 0) {
		/* A debugger's single step: PTRACE_SINGLESTEP, which sets TF
		 * in the child (user_enable_single_step()). */
		stepping = value != 0;
		return 0;
	}
	if (stepping && name[0] == 'd' && name[1] == 'r') {
		harness_why = "with step on, a MOV to DRn is the traced CPU's instruction; ptrace writes debug registers from outside";
		return -EOPNOTSUPP;
	}
	if (strcmp(name, "cr4") == 0) {
		if (value & (1ull << 3)) {
			harness_why = "CR4.DE=1: Linux runs with CR4.DE clear";
			return -EOPNOTSUPP;
		}
		return 0;
	}
	if (name[0] == 'd' && name[1] == 'r' && name[2] >= '0' && name[2] <= '7' && !name[3])
		return write_dr((unsigned)(name[2] - '0'), value);
	if (strncmp(name, "dr", 2) == 0 && strstr(name, "_mask")) {
		harness_why = "the AMD address-mask MSRs are not reachable through ptrace";
		return -EOPNOTSUPP;
	}
	return -ENOENT;
}

int arch_mode(const char *key, uint64_t value)
{
	if (strcmp(key, "cpl") == 0 && (value == 0 || value == 3)) {
		/* Ring 0 is refused at its first access, not here: a file
		 * may pass through it without touching anything. */
		cpl = (int)value;
		return 0;
	}
	harness_why = "no such mode here";
	return -EOPNOTSUPP;
}

static char *stub(const struct hwbp_sim_access *a)
{
	static char *const rd[5] = { nat_r1, nat_r2, nat_r4, nat_r8, nat_r16 };
	static char *const wr[5] = { nat_w1, nat_w2, nat_w4, nat_w8, nat_w16 };
	int k;

	switch (a->size) {
	case 1: k = 0; break;
	case 2: k = 1; break;
	case 4: k = 2; break;
	case 8: k = 3; break;
	case 16: k = 4; break;
	default: return NULL;
	}
	return a->op == HWBP_SIM_WRITE ? wr[k] : rd[k];
}

static int in_arena(uint64_t a, uint64_t n, uint64_t lo)
{
	return a >= lo && a - lo < ARENA_SIZE && n <= ARENA_SIZE - (a - lo);
}

static int in_window(uint64_t a, uint64_t n)
{
	return a >= LOWWIN_LO && a < LOWWIN_HI && n <= LOWWIN_HI - a;
}

/* Resume the child and wait for its next stop; the stop's siginfo. */
static void cont_wait(siginfo_t *si, int step)
{
	int st;

	if (ptrace(step ? PTRACE_SINGLESTEP : PTRACE_CONT, child, NULL, NULL))
		die(step ? "PTRACE_SINGLESTEP" : "PTRACE_CONT");
	if (waitpid(child, &st, 0) != child)
		die("waitpid");
	if (!WIFSTOPPED(st)) {
		errno = ECHILD;
		die("the child ended during an access");
	}
	if (ptrace(PTRACE_GETSIGINFO, child, NULL, si))
		die("PTRACE_GETSIGINFO");
}

/* One stop of the child during a line: a #DB (its si_code, DR6), the
 * scenario's INT3, or the #GP of a MOV DRn in ring 3. */
struct stop {
	enum hwbp_sim_class cls;
	bool before;
	int code;
	uint64_t dr6;
};

static void stop_result(const struct stop *e, uint64_t addr, struct hwbp_sim_result *res)
{
	memset(res, 0, sizeof(*res));
	res->cls = e->cls;
	res->timing = e->before ? HWBP_TIMING_BEFORE : HWBP_TIMING_AFTER;
	if (e->cls == HWBP_SIM_GP) {
		res->st.u.x86.dr6 = dr_peek(6);
		return;
	}
	if (e->cls == HWBP_SIM_DB) {
		res->data_slots = (uint32_t)(e->dr6 & 0xf) & hwbp_x86_enabled_slots(dr_peek(7));
		res->st.u.x86.dr6 = e->dr6;
		res->st.ip = e->before ? addr : 0;
		strncpy(res->status[res->nstatus].name, "dr6", sizeof(res->status[0].name));
		res->status[res->nstatus++].value = e->dr6;
	}
	/* What the tracer's PTRACE_GETSIGINFO said (the linux profile). */
	strncpy(res->status[res->nstatus].name, "si_code", sizeof(res->status[0].name));
	res->status[res->nstatus++].value = (uint64_t)e->code;
}

/*
 * Run the child's instruction at @insn (registers @r) to its end: the
 * stub's INT3, or, stepping, the one PTRACE_SINGLESTEP stop after it.
 * The first stop of the line is its result; a second (the step trap of
 * an instruction that ran after its execute fault) is `resume`'s.
 */
static void run_line(uint64_t insn, struct user_regs_struct *r, uint64_t addr, bool own_int3,
		     struct hwbp_sim_result *res)
{
	struct stop ev[2];
	unsigned n = 0, traps = 0;
	siginfo_t si;

	r->rip = insn;
	r->eflags = (r->eflags & ~RFLAGS_RF) | (rf_next ? RFLAGS_RF : 0);
	rf_next = 0;
	if (ptrace(PTRACE_SETREGS, child, NULL, r))
		die("PTRACE_SETREGS");
	for (;;) {
		struct user_regs_struct now;
		struct stop e = { HWBP_SIM_DB, false, 0, 0 };

		cont_wait(&si, stepping);
		if (ptrace(PTRACE_GETREGS, child, NULL, &now))
			die("PTRACE_GETREGS");
		if (si.si_signo == SIGTRAP && (si.si_code == TRAP_HWBKPT || si.si_code == TRAP_TRACE ||
					       si.si_code == TRAP_BRKPT)) {
			/* A #DB: before the instruction (execute fault) if RIP
			 * still points at it, else after it. */
			e.before = now.rip == insn;
			e.code = si.si_code;
			e.dr6 = dr_peek(6);
		} else if (si.si_signo == SIGTRAP && si.si_code == SI_KERNEL && own_int3 &&
			   now.rip == insn + 1) {
			e.cls = HWBP_SIM_BP;
			e.code = SI_KERNEL;
		} else if (si.si_signo == SIGTRAP && si.si_code == SI_KERNEL) {
			break;   /* the INT3 after the instruction: done */
		} else if (si.si_signo == SIGSEGV && now.rip == insn) {
			e.cls = HWBP_SIM_GP;   /* MOV DRn at CPL 3 (SI_KERNEL: #GP) */
			e.before = true;
		} else {
			fprintf(stderr, "hwbp: native: signal %d (code %d, address %p) at %#llx during an access\n",
				si.si_signo, si.si_code, si.si_addr, (unsigned long long)now.rip);
			errno = EFAULT;
			die("unexpected stop");
		}
		if (n < 2)
			ev[n++] = e;
		if (++traps > TRAPS_MAX) {
			errno = ELOOP;
			die("the child keeps trapping on one access");
		}
		/* Its own INT3 or #GP ends the line; so does, stepping, any
		 * stop after the instruction.  An execute fault: Linux sets RF
		 * and the instruction runs next (and is stepped). */
		if (e.cls != HWBP_SIM_DB || (stepping && !e.before))
			break;
	}
	memset(res, 0, sizeof(*res));
	res->cls = HWBP_SIM_NONE;
	if (n > 0)
		stop_result(&ev[0], addr, res);
	have_resume = n > 1;
	if (have_resume)
		stop_result(&ev[1], addr, &resume_res);
}

/* Single-step the child from @insn until it reaches @stop_at (a few
 * instructions that touch no memory: they can raise nothing). */
static void run_to(uint64_t insn, struct user_regs_struct *r, uint64_t stop_at)
{
	struct user_regs_struct now;
	siginfo_t si;

	r->rip = insn;
	if (ptrace(PTRACE_SETREGS, child, NULL, r))
		die("PTRACE_SETREGS");
	for (unsigned i = 0; i < 4; i++) {
		cont_wait(&si, 1);
		if (ptrace(PTRACE_GETREGS, child, NULL, &now))
			die("PTRACE_GETREGS");
		if (now.rip == stop_at)
			return;
	}
	errno = ELOOP;
	die("the child did not reach the stepped store");
}

int arch_access(const struct hwbp_sim_access *a, struct hwbp_sim_result *res)
{
	struct user_regs_struct r = base;
	uint64_t insn;

	memset(res, 0, sizeof(*res));
	res->cls = HWBP_SIM_NONE;
	have_resume = 0;
	if (cpl != 3) {
		harness_why = "an access in ring 0 (the native runner's CPU is a user process)";
		return -EOPNOTSUPP;
	}
	if (a->op == HWBP_SIM_READ || a->op == HWBP_SIM_WRITE) {
		char *s = stub(a);

		if (!s || !(in_arena(a->addr, a->size, ARENA_B) || in_arena(a->addr, a->size, ARENA_C) ||
			    in_window(a->addr, a->size))) {
			harness_why = "outside the arenas the child maps";
			return -EOPNOTSUPP;
		}
		insn = (uint64_t)(uintptr_t)s;
		r.rdi = a->addr;
		r.rax = 0xc3c3c3c3c3c3c3c3ull;
		if (stepping && s == nat_w16) {
			/* Only the store is the line's: XMM0 is filled first
			 * by the stub's first two instructions, run up to the
			 * store (they touch no memory). */
			run_to(insn, &r, (uint64_t)(uintptr_t)nat_w16s);
			if (ptrace(PTRACE_GETREGS, child, NULL, &r))
				die("PTRACE_GETREGS");
			insn = (uint64_t)(uintptr_t)nat_w16s;
		}
	} else if (a->op == HWBP_SIM_EXEC) {
		long back = (long)(uintptr_t)nat_back;

		if (!in_arena(a->addr, 1, ARENA_C) && !in_window(a->addr, 1)) {
			harness_why = "execute outside the code arena and the low window";
			return -EOPNOTSUPP;
		}
		/* The arena's `ret` returns to nat_back's INT3. */
		r.rsp -= 8;
		if (ptrace(PTRACE_POKEDATA, child, (void *)(uintptr_t)r.rsp, (void *)back))
			die("PTRACE_POKEDATA");
		insn = a->addr;
	} else if (a->op == HWBP_SIM_SWBP || a->op == HWBP_SIM_ICEBP) {
		insn = (uint64_t)(uintptr_t)(a->op == HWBP_SIM_SWBP ? nat_int3 : nat_icebp);
	} else {
		harness_why = a->op == HWBP_SIM_IO ? "I/O ports from a user process" :
			      a->op == HWBP_SIM_STI ? "STI in a Linux process (IOPL 0: #GP)" :
			      a->op == HWBP_SIM_MOVSS ? "MOV SS: its shadow would cover the runner's INT3" :
			      "not an x86 access";
		return -EOPNOTSUPP;
	}
	run_line(insn, &r, a->addr, a->op == HWBP_SIM_SWBP, res);
	return 0;
}

void arch_resume(struct hwbp_sim_result *res)
{
	/* Each access ran to its INT3 (or its step): nothing is left to
	 * complete, but the step trap after an execute fault. */
	memset(res, 0, sizeof(*res));
	res->cls = HWBP_SIM_NONE;
	if (have_resume)
		*res = resume_res;
	have_resume = 0;
}

int arch_get_reg(const char *name, struct hwbp_sim_result *res)
{
	static const char order[] = "012367";
	struct user_regs_struct r = base;
	const char *at;

	memset(res, 0, sizeof(*res));
	if (name[0] != 'd' || name[1] != 'r' || !name[2] || name[3] || name[2] < '0' || name[2] > '7')
		return -ENOENT;
	at = strchr(order, name[2]);
	if (!at) {
		harness_why = "MOV from DR4/DR5 (no stub of the runner's)";
		return -EOPNOTSUPP;
	}
	if (cpl != 3) {
		harness_why = "a MOV from DRn in ring 0 (the native runner's CPU is a user process)";
		return -EOPNOTSUPP;
	}
	/* In ring 3 it is #GP(0), whatever DR7.GD says (SDM Vol. 2B MOV DRn). */
	run_line((uint64_t)(uintptr_t)nat_get0 + 4 * (uint64_t)(at - order), &r, 0, false, res);
	return 0;
}

int main(void)
{
	int ret;

	setvbuf(stdout, NULL, _IOFBF, 1 << 16);
	/* A refusal is about one line: compare the file up to it. */
	harness_cut = 1;
	start_child();
	ret = harness_main();
	arch_exit(ret ? 1 : 0);
}

