/* SPDX-License-Identifier: MIT */
/*
 * The RISC-V harness as an S-mode kernel (build.sh HARNESS_SBI=1, in
 * place of harness_riscv.c): OpenSBI (-bios default) in M-mode, this
 * kernel in S-mode at 0x80200000, the triggers through hwbp's SBI glue
 * (arch/riscv/glue_sbi.c), breakpoint exceptions delegated to S-mode
 * (stvec).  What differs from the M-mode harness:
 *  - no raw trigger CSR: `set` is refused (-EOPNOTSUPP: the runner cuts
 *    the file at that line), and so is any instruction at priv 3
 *    (rv_priv_refused(), insn.c); a `get` from U/S runs (the CSR read is
 *    an illegal instruction, which OpenSBI redirects to S-mode);
 *  - the step over an access: every slot's SBI trigger disabled
 *    (disable_triggers) and enabled again afterwards one by one, in the
 *    order of their last changes (QEMU's watchpoint list: harness_riscv.c
 *    rv_rearm_all());
 *  - scause/stval are printed under the model's names mcause/mtval;
 *  - the boot probe prints what the firmware says (SBI version, DBTR).
 * UART, exit, arenas, memory: as harness_riscv.c (arena B 0x88000000,
 * C 0x88010000, every slot of C a `ret`); OpenSBI's PMP gives S and U all
 * of it.
 */
#include <errno.h>
#include <string.h>

#include "harness.h"
#include "glue.h"
#include "rv.h"

#define ALL_SLOTS 0xffffffffu

void rv_main(void);

struct rv_hart rv_harts[RV_MAX_HARTS];
unsigned rv_ntrig;

/* glue_sbi.c's primitives: this hart's number (tp), identity mapping. */
unsigned hwbp_rv_sbi_this_cpu(void)
{
	return rv_this_hart();
}

unsigned long hwbp_rv_sbi_pa(const void *p)
{
	return (unsigned long)p;
}

/* (the console, arch_exit and rv_moved: machine.c) */

/* No hit bits to capture (the firmware's copy has none). */
void rv_capture(void)
{
}

void rv_disarm_all(void)
{
	if (hwbp_rv_sbi_disable(ALL_SLOTS))
		rv_puts("\n# FATAL: riscv64-sbi: disable_triggers failed\n");
}

void rv_rearm_all(void)
{
	struct rv_hart *p = rv_me();
	unsigned order[HWBP_MAX_SLOTS], n = rv_ntrig;

	for (unsigned i = 0; i < n; i++) {
		unsigned j = i;

		while (j > 0 && p->seq[order[j - 1]] > p->seq[i]) {
			order[j] = order[j - 1];
			j--;
		}
		order[j] = i;
	}
	for (unsigned k = 0; k < n; k++)
		if (hwbp_rv_sbi_enable(1u << order[k]))
			rv_puts("\n# FATAL: riscv64-sbi: enable_triggers failed\n");
}

/* (the machine's answers, arch_arena_*, arch_ncpus, arch_on_cpu...: machine.c) */

int arch_write_regs(const struct hwbp_regs *regs)
{
	struct rv_hart *p = rv_me();
	struct hwbp_regs before, after;
	int ret;

	hwbp_glue_read_regs(&before);
	ret = hwbp_glue_write_regs(regs);
	hwbp_glue_read_regs(&after);
	for (unsigned n = 0; n < rv_ntrig; n++) {
		p->shadow1[n] = after.u.riscv.tdata1[n];
		if (after.u.riscv.tdata1[n] != before.u.riscv.tdata1[n] ||
		    after.u.riscv.tdata2[n] != before.u.riscv.tdata2[n])
			rv_moved(p, n);
	}
	if (ret == -EIO) {
		/* A refusal of the firmware's, not of hwbp's (the runner cuts
		 * the file at the watch that needed it). */
		harness_why = "riscv64-sbi: OpenSBI's install_triggers refused the trigger"
			      " (SBI_ERR_FAILED: the m bit of a kernel scope, or no free trigger)";
		return -EOPNOTSUPP;
	}
	return ret;
}

void arch_read_regs(struct hwbp_regs *regs)
{
	hwbp_glue_read_regs(regs);
}

/* Every slot empty (the glue uninstalls every SBI trigger), priv = M as
 * the model's reset (nothing runs there: the first instruction needs a
 * `mode priv=0|1`). */
void arch_reset(const struct hwbp_cpu *cpu)
{
	struct rv_hart *p = rv_me();
	struct hwbp_regs r;

	memset(&r, 0, sizeof(r));
	r.arch = HWBP_ARCH_RISCV;
	for (unsigned n = 0; n < rv_ntrig; n++)
		r.u.riscv.tdata1[n] = (uint64_t)HWBP_RISCV_TYPE_MCONTROL << HWBP_RISCV_TDATA1_TYPE_SHIFT;
	(void)cpu;
	arch_write_regs(&r);
	for (unsigned n = 0; n < rv_ntrig; n++)
		rv_moved(p, n);
	p->priv = 3;
	p->running = RUN_NONE;
}

int arch_set_reg(const char *name, uint64_t value, struct hwbp_sim_result *res)
{
	(void)name, (void)value;
	memset(res, 0, sizeof(*res));
	harness_why = "riscv64-sbi: the trigger CSRs are M-mode's (an S-mode kernel has SBI DBTR only)";
	return -EOPNOTSUPP;
}

/* `mode priv=0|1|3` (3 is accepted here: what runs there is refused). */
int arch_mode(const char *key, uint64_t value)
{
	if (strcmp(key, "priv") == 0 && (value == 0 || value == 1 || value == 3)) {
		rv_me()->priv = (unsigned)value;
		return 0;
	}
	return -EOPNOTSUPP;
}

/* ------------------------------------------------------------------ */
/* Boot: what the firmware says, and a smoke test through the glue     */
/* ------------------------------------------------------------------ */
struct sbiret {
	long error, value;
};

static struct sbiret sbi(unsigned long eid, unsigned long fid, unsigned long a0)
{
	register unsigned long r0 __asm__("a0") = a0, r1 __asm__("a1") = 0;
	register unsigned long r6 __asm__("a6") = fid, r7 __asm__("a7") = eid;

	__asm__ volatile("ecall" : "+r"(r0), "+r"(r1) : "r"(r6), "r"(r7) : "memory");
	return (struct sbiret){ (long)r0, (long)r1 };
}

#define DBTR 0x44425452ul

static void probe(void)
{
	struct sbiret v = sbi(0x10, 0, 0), id = sbi(0x10, 1, 0), iv = sbi(0x10, 2, 0);
	struct sbiret d = sbi(0x10, 3, DBTR), n = sbi(DBTR, 0, 0);
	struct sbiret n2 = sbi(DBTR, 0, 2ul << 60), n6 = sbi(DBTR, 0, 6ul << 60);

	h_printf("# riscv64-sbi probe: SBI spec 0x%lx, implementation %ld version 0x%lx; DBTR"
		 " probe %ld; num_triggers(0) %ld (error %ld), of type 2 %ld, of type 6 %ld\n",
		 v.value, id.value, iv.value, d.value, n.value, n.error, n2.value, n6.value);
	if (d.value == 0 || n.error || n.value <= 0) {
		h_printf("\n# FATAL: riscv64-sbi: the firmware offers no debug trigger (DBTR)\n");
		arch_exit(3);
	}
	rv_ntrig = (unsigned)(n.value < HWBP_MAX_SLOTS ? n.value : HWBP_MAX_SLOTS);
}

/* Slot 0 with @t1/@t2 through the glue, one access at @priv: 1 if it
 * trapped (printed).  The glue's error (negative) if it refused. */
static int smoke(const char *what, unsigned priv, uint64_t t1, uint64_t t2, enum hwbp_sim_op op,
		 uint64_t addr, uint32_t size)
{
	struct hwbp_sim_result res;
	struct hwbp_sim_access a;
	struct hwbp_regs r;
	int ret;

	arch_reset(NULL);
	hwbp_glue_read_regs(&r);
	r.u.riscv.tdata1[0] = t1;
	r.u.riscv.tdata2[0] = t2;
	ret = hwbp_glue_write_regs(&r);
	if (ret) {
		h_printf("# riscv64-sbi smoke: %s: the glue refused it (%d)\n", what, ret);
		return ret;
	}
	memset(&a, 0, sizeof(a));
	a.op = op;
	a.addr = addr;
	a.size = size;
	rv_me()->priv = priv;
	if (arch_access(&a, &res)) {
		h_printf("\n# FATAL: riscv64-sbi smoke: %s: the harness refused the access\n", what);
		arch_exit(3);
	}
	if (res.cls == HWBP_SIM_NONE)
		h_printf("# riscv64-sbi smoke: %s: no trap\n", what);
	else
		h_printf("# riscv64-sbi smoke: %s: scause 0x%llx stval 0x%llx sepc 0x%llx (%s)\n", what,
			 (unsigned long long)res.st.u.riscv.cause,
			 (unsigned long long)res.st.u.riscv.tval, (unsigned long long)res.st.ip,
			 res.timing == HWBP_TIMING_BEFORE ? "before" : "after");
	arch_reset(NULL);
	return res.cls != HWBP_SIM_NONE && res.st.u.riscv.cause == RV_CAUSE_BREAKPOINT;
}

#define T_MC (2ull << HWBP_RISCV_TDATA1_TYPE_SHIFT)
#define T_MC6 (6ull << HWBP_RISCV_TDATA1_TYPE_SHIFT)

static void smoke_test(void)
{
	uint64_t b = arch_arena_b() + 0x100, c = arch_arena_c() + 0x40;
	int ok = 1;

	ok &= smoke("mcontrol S load @B+0x100, S-mode ld @B+0x100", 1,
		    T_MC | HWBP_RISCV_MC_S | HWBP_RISCV_MC_LOAD, b, HWBP_SIM_READ, b, 8) == 1;
	ok &= smoke("mcontrol S load @B+0x100, U-mode ld @B+0x100", 0,
		    T_MC | HWBP_RISCV_MC_S | HWBP_RISCV_MC_LOAD, b, HWBP_SIM_READ, b, 8) == 0;
	ok &= smoke("mcontrol6 U store @B+0x100, U-mode sw @B+0x100", 0,
		    T_MC6 | HWBP_RISCV_MC_U | HWBP_RISCV_MC_STORE, b, HWBP_SIM_WRITE, b, 4) == 1;
	ok &= smoke("mcontrol U|S execute @C+0x40, U-mode exec C+0x40", 0,
		    T_MC | HWBP_RISCV_MC_U | HWBP_RISCV_MC_S | HWBP_RISCV_MC_EXECUTE, c, HWBP_SIM_EXEC,
		    c, 4) == 1;
	/* The m bit (hwbp's kernel scope on rv64-qemu): refused (-EIO). */
	ok &= smoke("mcontrol M|S load @B+0x100", 1,
		    T_MC | HWBP_RISCV_MC_M | HWBP_RISCV_MC_S | HWBP_RISCV_MC_LOAD, b, HWBP_SIM_READ, b,
		    8) == -EIO;
	if (!ok) {
		h_printf("\n# FATAL: riscv64-sbi smoke: a result above is not the expected one\n");
		arch_exit(3);
	}
}

static int reset_call(void *arg)
{
	(void)arg;
	arch_reset(NULL);
	return 0;
}

/* Each hart: its own slots through the glue, and its own trap. */
static int smp_check(void *arg)
{
	uint64_t addr = arch_arena_b() + 0x800 + 0x40 * (uintptr_t)arg;
	struct hwbp_sim_result res;
	struct hwbp_sim_access a;
	struct hwbp_regs w, r;

	memset(&w, 0, sizeof(w));
	w.arch = HWBP_ARCH_RISCV;
	for (unsigned n = 0; n < rv_ntrig; n++) {
		w.u.riscv.tdata1[n] = T_MC | HWBP_RISCV_MC_S | HWBP_RISCV_MC_LOAD;
		w.u.riscv.tdata2[n] = addr + 8 * n;
	}
	if (arch_write_regs(&w))
		return -1;
	arch_read_regs(&r);
	if (memcmp(&r.u.riscv, &w.u.riscv, sizeof(r.u.riscv)))
		return -2;
	memset(&a, 0, sizeof(a));
	a.op = HWBP_SIM_READ;
	a.addr = addr;
	a.size = 8;
	rv_me()->priv = 1;
	if (arch_access(&a, &res) || res.st.u.riscv.cause != RV_CAUSE_BREAKPOINT ||
	    res.st.u.riscv.tval != addr)
		return -3;
	arch_reset(NULL);
	return (int)rv_this_hart();
}

void rv_main(void)
{
	uint32_t *cw = (uint32_t *)__arena_c;
	unsigned n, c;
	int ret;

	for (unsigned i = 0; i < RV_ARENA_SIZE / 4; i++)
		cw[i] = RV_RET;
	__asm__ volatile("fence rw, rw; fence.i" ::: "memory");
	h_printf("# riscv64-sbi: S-mode at entry (OpenSBI), arena B 0x%llx, arena C 0x%llx\n",
		 (unsigned long long)arch_arena_b(), (unsigned long long)arch_arena_c());
	probe();
	/* A line an S-mode kernel cannot express cuts its file there: the
	 * lines before it are still compared (harness.h harness_cut). */
	harness_cut = 1;
	n = rv_smp_init();
	h_printf("# riscv64-sbi: %u hart%s (SBI HSM), all up; %u triggers each\n", n,
		 n == 1 ? "" : "s", rv_ntrig);
	for (c = 0; c < n; c++)
		rv_smp_call(c, reset_call, NULL);
	for (c = 0; c < n; c++) {
		ret = rv_smp_call(c, smp_check, (void *)(uintptr_t)c);
		if (ret != (int)c) {
			h_printf("\n# FATAL: riscv64-sbi SMP self-check: hart %u (%d)\n", c, ret);
			arch_exit(3);
		}
	}
	h_printf("# riscv64-sbi: SMP self-check: %u hart%s each wrote and read its triggers"
		 " through the SBI glue and took its own breakpoint exception\n", n,
		 n == 1 ? "" : "s");
	smoke_test();
	harness_main();
	arch_exit(0);
}
