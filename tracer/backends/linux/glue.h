/* SPDX-License-Identifier: MIT */
/*
 * Linux ptrace glue between the arch-neutral ptrace and perf backends
 * (tracer/: processes, threads, stops, the event loop) and the debug
 * registers of one architecture (internal to libhwbp-trace).
 *
 * Two files per architecture, with the same names in every arch/<a>/:
 *   arch/<a>/linux.c         the hwbpi_linux_* functions below: ptrace(2)
 *                            calls on the traced threads' debug registers.
 *                            Built only for its own target (Linux on that
 *                            CPU family): exactly one is linked.
 *   arch/<a>/linux_decode.c  pure helpers (no system call): how the
 *                            kernel's view (slot counts, siginfo) maps to
 *                            hwbp's CPU models and status.  Built on every
 *                            host so that tests/unit/test_linux_decode.c
 *                            checks them everywhere; declared in the
 *                            arch's own linux_decode.h.
 * CPUs without a linux.c get tracer/backends/linux/linux_none.c.
 */
#ifndef HWBP_TRACER_LINUX_H
#define HWBP_TRACER_LINUX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <hwbp/hwbp.h>

/* ---- arch/<a>/linux.c: the running kernel's target only ------------ */
#if defined(__linux__)
#include <signal.h>
#include <sys/types.h>

/*
 * The debug registers as the kernel lets a tracer use them for the
 * stopped thread @tid: x86 the x86_64 preset (4 shared slots), la57
 * as the kernel runs;
 * arm64 a model with the kernel's slot counts (NT_ARM_HW_BREAK /
 * NT_ARM_HW_WATCH dbg_info); powerpc PPC_PTRACE_GETHWDBGINFO.
 * Errors: -EOPNOTSUPP (no debug registers for ptrace on this kernel or
 *         CPU), ptrace errors (-ESRCH: not a stopped tracee).
 */
int hwbpi_linux_cpu(pid_t tid, struct hwbp_cpu *cpu);

/*
 * Write every slot of stopped thread @tid from @regs (hwbp's encoding for
 * @cpu; hwbp_regs_reset() registers clear them all).  All or nothing as
 * far as the kernel allows: on an error the slots are left disabled.
 * Errors: -EINVAL/-ENOSPC/-EIO (the kernel refused a slot), -ESRCH.
 */
int hwbpi_linux_write(pid_t tid, const struct hwbp_cpu *cpu, const struct hwbp_regs *regs);

/*
 * Read back the slots of stopped thread @tid: 1 if any is still enabled,
 * 0 if none (the check after clearing them, before a detach).
 * Errors: ptrace errors (-ESRCH: not a stopped tracee).
 */
int hwbpi_linux_armed(pid_t tid, const struct hwbp_cpu *cpu);

/*
 * After a SIGTRAP signal-delivery stop of @tid with siginfo @si: is it a
 * hit of the debug registers @armed (the thread's)?  0 and *@st filled
 * (ip: the thread's PC), or -ENOENT (another SIGTRAP: the program's own,
 * a single step).  1: a debug exception that came without its status
 * (x86: DR6 with no B bit, which Linux takes for INT1) while data slots
 * are armed: *@st names every armed data slot, and the caller tells by
 * the watched bytes which was hit.  Errors: ptrace errors.
 */
int hwbpi_linux_hit(pid_t tid, const struct hwbp_cpu *cpu, const struct hwbp_regs *armed,
		    const siginfo_t *si, struct hwbp_status *st);

/* After a hit was handled: clear the sticky status (x86 DR6); 0 or -errno. */
int hwbpi_linux_hit_done(pid_t tid);

/*
 * Whether the kernel resumes a thread stopped by a ptrace breakpoint
 * at the same instruction with the breakpoint still armed, so that the
 * tracer must step over it (disable, PTRACE_SINGLESTEP, re-enable):
 * arm64 and powerpc (exceptions before the access, no step by the kernel
 * for ptrace's overflow handler); x86 false (data traps come after the
 * access; Linux sets RF after an execute breakpoint).
 */
extern const bool hwbpi_linux_step_over;

/*
 * What to subtract from the IP a perf breakpoint event reports for a data
 * hit (the sample IP, and regs' IP in a BPF program on the event) to get
 * an address inside the accessing instruction, so that the IP maps to the
 * function that made the access: x86 1 (data breakpoints are traps, the
 * IP is the next instruction: arch/x86/kernel/hw_breakpoint.c
 * hw_breakpoint_handler()), powerpc 4 (the kernel emulates the access and
 * reports afterwards, the IP of the next instruction:
 * arch/powerpc/kernel/hw_breakpoint.c stepping_handler(), emulate_step()),
 * arm64 0 (the watchpoint exception comes before the access, the IP is
 * the load or store: arch/arm64/kernel/hw_breakpoint.c
 * watchpoint_handler()).
 */
extern const uint64_t hwbpi_linux_trap_ip_adjust;

/*
 * Whether the kernel can program @piece as a task's breakpoint (ptrace
 * or perf_event_open: both go through hw_breakpoint); 0, or -EOPNOTSUPP
 * with @why (one phrase) filled.  arm64: no MASK (len <= 8, inside one
 * doubleword); powerpc: no instruction breakpoint.
 */
int hwbpi_linux_piece_ok(const struct hwbp_cpu *cpu, bool inst, const struct hwbp_piece *piece,
			 char *why, size_t whylen);

/*
 * The bp_len Linux's hw_breakpoint wants for an execute breakpoint of this
 * host (perf_event_attr.bp_len, HW_BREAKPOINT_X): x86 sizeof(long)
 * (arch_build_bp_info() accepts nothing else), arm64 and powerpc 4 (one
 * instruction).
 */
uint64_t hwbpi_linux_exec_len(void);

/*
 * The trap instruction a tracer plants (PTRACE_POKETEXT) to stop a thread
 * at an address without a debug register: x86 INT3 (0xcc), arm64 BRK #0,
 * powerpc `trap` (tw 31,0,0), as GDB's breakpoints are; its bytes in
 * memory order and its length.  Executing it raises SIGTRAP.
 */
extern const uint8_t hwbpi_linux_trap[4];
extern const unsigned hwbpi_linux_trap_len;

/*
 * Where a call is, for watches of objects (tracer/objects/objects.h): at a
 * function's entry (a trap planted there), its integer arguments in the
 * ABI's argument registers (x86-64 System V: RDI, RSI, RDX, RCX, R8, R9;
 * AAPCS64: X0-X7; 64-bit ELFv2 Power: R3-R10), where it returns to (x86:
 * the word at RSP; arm64: X30; powerpc: LR) and the stack pointer; just
 * after it returned, the value it returns (RAX, X0, R3) and the stack
 * pointer.  A pointer argument passed on the stack (past the registers)
 * is not found: HWBPI_CALL_ARGS is the limit.
 */
#define HWBPI_CALL_ARGS 6
struct hwbpi_linux_call {
	uint64_t arg[HWBPI_CALL_ARGS];
	uint64_t ret;                /* the return value register */
	uint64_t ra;                 /* at entry: the return address */
	uint64_t sp;
};

/* The call of stopped thread @tid.  Errors: ptrace's (-ESRCH),
 * -EOPNOTSUPP (no glue). */
int hwbpi_linux_call(pid_t tid, struct hwbpi_linux_call *c);

/*
 * The same call seen in a perf sample (a kprobe's or uprobe's, at the
 * function's entry or just after its return): hwbpi_linux_perf_callregs
 * is the PERF_SAMPLE_REGS_INTR / REGS_USER mask of the registers it
 * needs (the arguments', the return value's, the stack pointer, the link
 * register where the arch has one), and hwbpi_linux_call_perf() reads
 * them from a sample's @nregs values (lowest bit first) and @stack0, the
 * word at the stack pointer (x86's return address, from
 * PERF_SAMPLE_STACK_USER; 0 when not known: a kernel stack).
 * Errors: -EINVAL (too few values), -EOPNOTSUPP (no glue).
 * Context: any; no system call.
 */
extern const uint64_t hwbpi_linux_perf_callregs;
int hwbpi_linux_call_perf(const uint64_t *regs, unsigned nregs, uint64_t stack0,
			  struct hwbpi_linux_call *c);

/*
 * The registers of stopped thread @tid by the arch's DWARF number, for
 * an instruction decoder (tracer/insn/insn.h): @v[0..@n), bit k of
 * *@known set where v[k] holds one (x86-64: the general registers, RIP,
 * RFLAGS, FS and GS bases).  Errors: ptrace's (-ESRCH), -EOPNOTSUPP (an
 * arch whose hardware reports the access: no decoder wants them).
 * Context: one ptrace call.
 */
int hwbpi_linux_dwarf_regs(pid_t tid, uint64_t *v, unsigned n, uint64_t *known);

/*
 * The same from a perf sample's trap frame: @vals, the @nvals values of
 * PERF_SAMPLE_REGS_INTR with mask hwbpi_linux_perf_iregs (in the order of
 * their bits), into @v[0..@n) by DWARF number, *@known as above (x86-64:
 * no FS or GS base: perf does not sample them).  Errors: -EINVAL (@nvals
 * short of the mask), -EOPNOTSUPP (as above).  Context: any; no system call.
 */
int hwbpi_linux_perf_dwarf_regs(const uint64_t *vals, unsigned nvals, uint64_t *v, unsigned n,
				uint64_t *known);

/* How far past a planted trap the PC is when its SIGTRAP stops the
 * thread: x86 1 (INT3 is a trap: RIP after it), arm64 and powerpc 0
 * (BRK and `trap` leave the PC on the instruction). */
extern const unsigned hwbpi_linux_trap_pc_after;

/* Whether a SIGTRAP with siginfo @si may be a planted trap's (its PC then
 * tells whose): x86 INT3 comes without a TRAP_ code, arm64 BRK and
 * powerpc `trap` with TRAP_BRKPT, which on x86 is a debug register's.
 * Never a hit's (TRAP_HWBKPT: on arm64 its PC is the accessing
 * instruction, which may be a sampled one). */
bool hwbpi_linux_trap_si(const siginfo_t *si);

/* The program counter of stopped thread @tid, and setting it (after a
 * trap: x86 leaves it past the INT3, the others on the trap).
 * Errors: ptrace errors (-ESRCH: not a stopped tracee). */
int hwbpi_linux_pc(pid_t tid, uint64_t *pc);
int hwbpi_linux_set_pc(pid_t tid, uint64_t pc);

/*
 * How an RW breakpoint's hits can be told apart by kind with more events
 * (tracer/backends/perf/perf.h, --kinds): PAIR, a load-only and a store-only event see
 * one access each (arm64 watchpoint_handler() matches the slot of the
 * access's kind, ESR WnR; powerpc the DAWR's RW bits); TWIN, a store-only
 * twin beside the RW event (x86: no load-only type, and a write sets
 * both slots' DR6 bits); NONE, no way.
 */
enum hwbpi_linux_split { HWBPI_SPLIT_NONE = 0, HWBPI_SPLIT_PAIR, HWBPI_SPLIT_TWIN };
extern const enum hwbpi_linux_split hwbpi_linux_kind_split;

/*
 * Whether Linux itself drops a hit whose access lies outside the event's
 * bp_addr/bp_len although the hardware matched a wider range (powerpc:
 * a DAWR watches whole doublewords, and hw_breakpoint_handler() does not
 * report a hit that check_constraints() marked HW_BRK_TYPE_EXTRANEOUS_IRQ).
 * Then a perf event is given only the watch's bytes of a wider piece and
 * its counts are exact; elsewhere the event's range is the piece's.
 */
extern const bool hwbpi_linux_exact_range;

/*
 * The model of the kernel's own breakpoint events, from the ptrace one in
 * @cpu and @nslots, the number of data breakpoint events the kernel let
 * one CPU open (powerpc: ptrace offers a task one DAWR, perf all of
 * nr_wp_slots()).  Returns 0 (the model changed or not) or -EINVAL.
 * Context: any; no system call.
 */
int hwbpi_linux_kernel_cpu(struct hwbp_cpu *cpu, unsigned nslots);

/*
 * Where stopped thread @tid keeps its copy of the executable's TLS block
 * (module 1, static TLS; a thread-local variable's copy is there plus
 * its st_value), from the thread pointer and the executable's PT_TLS
 * @memsz and @align (p_memsz, p_align; 0 is taken as 1), by the
 * architecture's TLS variant, as the linker resolves local-exec accesses:
 * x86_64 variant II, fs_base - roundup(memsz, align); aarch64 variant I,
 * TPIDR_EL0 + roundup(16, align) (the 16-byte TCB first); powerpc64
 * r13 - 0x7000 (the ABI's bias: r13 points 0x7000 past the block).
 * Errors: -ENXIO (the thread pointer is 0: not set up yet, e.g. a static
 *         executable at its entry point), ptrace errors (-ESRCH: not a
 *         stopped tracee), -EOPNOTSUPP (no glue for this CPU).
 * Context: one ptrace call; not on a hit path.
 */
int hwbpi_linux_tls_block(pid_t tid, uint64_t memsz, uint64_t align, uint64_t *block);

/* ---- call stacks (tracer/unwind*.c, --stack) ------------------------ */

/*
 * What an unwind of a user thread starts from: the PC, the stack pointer
 * (a stack dump begins there), where the frame-pointer chain begins
 * (hwbpi_linux_fp_chain) and the registers a DWARF unwinder is given, in
 * this arch's DWARF numbering: only those the call frame rules of
 * compiled code use to find the frames (SP, the frame pointer, on arm64
 * and powerpc the link register a leaf returns through), so that a
 * stack is a function of them and of the stack words it reads
 * (tracer/backends/linux/unwind_dwarf.c caches on that).
 */
#define HWBPI_UREGS_MAX 4
struct hwbpi_uregs {
	uint64_t pc, sp, fp;
	unsigned n;
	unsigned dwarf[HWBPI_UREGS_MAX];   /* DWARF register numbers */
	uint64_t val[HWBPI_UREGS_MAX];
};

/* The PERF_SAMPLE_REGS_USER mask of those registers (asm/perf_regs.h):
 * x86_64 BP, SP, IP; arm64 X29, LR, SP, PC; powerpc R1, NIP, LINK. */
extern const uint64_t hwbpi_linux_perf_uregs;

/* The PERF_SAMPLE_REGS_INTR mask of a trap frame's general registers and
 * its instruction pointer: two samples with the same values come from
 * one debug exception (the perf backend counts an access that several
 * pieces of one watch reported once); 0: none known (no glue). */
extern const uint64_t hwbpi_linux_perf_iregs;

/*
 * The registers of a sample: @abi its PERF_SAMPLE_REGS_ABI_*, @regs the
 * @nregs values of hwbpi_linux_perf_uregs' bits, lowest bit first (man 2
 * perf_event_open, PERF_SAMPLE_REGS_USER).  Returns 0, or -EOPNOTSUPP
 * (another ABI, e.g. a 32-bit process on a 64-bit kernel, or
 * PERF_SAMPLE_REGS_ABI_NONE: a kernel thread) or -EINVAL (too few).
 * Context: any; no system call.
 */
int hwbpi_linux_uregs_perf(uint64_t abi, const uint64_t *regs, unsigned nregs,
			   struct hwbpi_uregs *u);

/* The same from the stopped thread @tid (ptrace).  Errors: ptrace's
 * (-ESRCH: not a stopped tracee), -EOPNOTSUPP (no glue for this CPU). */
int hwbpi_linux_uregs(pid_t tid, struct hwbpi_uregs *u);

/*
 * How this ABI chains frames when code keeps a frame pointer: RECORD, a
 * frame pointer register holds the address of a {previous frame pointer,
 * return address} pair (x86_64 RBP, System V ABI 3.2.2; AArch64 X29,
 * AAPCS64 6.2.3); BACKCHAIN, the stack pointer's word is the caller's
 * stack pointer, and a function saves its return address 16 bytes into
 * its caller's frame (64-bit PowerPC ELF ABI: the LR save doubleword);
 * NONE, no glue.
 */
enum hwbpi_linux_fp { HWBPI_FP_NONE = 0, HWBPI_FP_RECORD, HWBPI_FP_BACKCHAIN };
extern const enum hwbpi_linux_fp hwbpi_linux_fp_chain;
#endif /* __linux__ */

#endif /* HWBP_TRACER_LINUX_H */
