/* SPDX-License-Identifier: MIT */
/*
 * RISC-V (RV64) bare-metal harness for qemu-system-riscv64 -M virt -bios
 * none: every hart in M-mode from the ELF's entry (start.S), ns16550a
 * output, the sifive_test device's exit, PMP opened for S/U, the boot
 * probe of the trigger module, the smoke test of the trap path and of
 * U/S-mode entry, the SMP self-check, the register shadow and the
 * harness.h functions that set a scenario up.  The instructions
 * themselves (MRET into a stub, the trap handler), arch_access(),
 * arch_get_reg() and arch_resume() are insn.c's; the other harts and
 * arch_on_cpu() are smp.c's.
 *
 * Memory (M-mode has no translation: identity, everything RWX for M):
 *   0x80000000  kernel (text, data, .bss, stacks), up to 0x88000000
 *   0x88000000  arena B, 64 KiB (data)
 *   0x88010000  arena C, 64 KiB, every 4-byte slot `ret` (0x00008067),
 *               written at boot; writable, but a scenario's store there
 *               writes the bytes already there (insn.c store_value())
 * PMP entry 0 (NAPOT, all of the address space, RWX) lets S and U reach
 * the same memory (with no PMP entry QEMU denies S/U every access).
 */
#include <errno.h>
#include <string.h>

#include "harness.h"
#include "glue.h"
#include "rv.h"

/* Exit status of a harness that cannot run scenarios yet (run.sh). */
#define EXIT_NOT_INTEGRATED 5

void rv_main(void);

struct rv_hart rv_harts[RV_MAX_HARTS];
unsigned rv_ntrig;
/* Each trigger's tdata1..3 as hart 0 found them at boot (QEMU resets
 * every hart's the same way): what arch_reset() goes back to. */
static uint64_t boot1[HWBP_MAX_SLOTS], boot2[HWBP_MAX_SLOTS], boot3[HWBP_MAX_SLOTS];

/* (the console, arch_exit and rv_moved: machine.c) */

/* ------------------------------------------------------------------ */
/* The shadow: tdata1 of each trigger, and QEMU's list order           */
/* ------------------------------------------------------------------ */
/* tdata1 without its enables: mcontrol/mcontrol6 load, store, execute,
 * U, S, M (bits 6:0) and mcontrol6's VS, VU (24:23); 0 for any other type. */
static uint64_t disarmed(uint64_t t1)
{
	uint64_t type = (t1 >> HWBP_RISCV_TDATA1_TYPE_SHIFT) & HWBP_RISCV_TDATA1_TYPE_MASK;

	if (type == HWBP_RISCV_TYPE_MCONTROL || type == HWBP_RISCV_TYPE_MCONTROL6)
		return t1 & ~(0x7full | HWBP_RISCV_MC6_VU | HWBP_RISCV_MC6_VS);
	return 0;
}

void rv_capture(void)
{
	struct rv_hart *p = rv_me();
	uint64_t sel = rv_r_tselect();

	for (unsigned n = 0; n < rv_ntrig; n++) {
		rv_w_tselect(n);
		p->shadow1[n] = rv_r_tdata1();
	}
	rv_w_tselect(sel);
}

void rv_disarm_all(void)
{
	struct rv_hart *p = rv_me();
	uint64_t sel = rv_r_tselect();

	for (unsigned n = 0; n < rv_ntrig; n++) {
		rv_w_tselect(n);
		rv_w_tdata1(disarmed(p->shadow1[n]));
	}
	rv_w_tselect(sel);
}

/* QEMU keeps the triggers' watchpoints/breakpoints in a list in the order
 * of the last change of each (target/riscv/debug.c: every change of
 * tdata1 or tdata2 removes it and inserts it again, at the tail), and
 * with several matches the first decides mtval: re-arm in that order. */
void rv_rearm_all(void)
{
	struct rv_hart *p = rv_me();
	uint64_t sel = rv_r_tselect();
	unsigned order[HWBP_MAX_SLOTS], n = rv_ntrig;

	for (unsigned i = 0; i < n; i++) {
		unsigned j = i;

		while (j > 0 && p->seq[order[j - 1]] > p->seq[i]) {
			order[j] = order[j - 1];
			j--;
		}
		order[j] = i;
	}
	for (unsigned k = 0; k < n; k++) {
		rv_w_tselect(order[k]);
		rv_w_tdata1(p->shadow1[order[k]]);
	}
	rv_w_tselect(sel);
}

/* ------------------------------------------------------------------ */
/* harness.h                                                           */
/* ------------------------------------------------------------------ */
/* (the machine's answers, arch_arena_*, arch_ncpus, arch_on_cpu...: machine.c) */

/*
 * Every trigger of this hart: tdata1 = 0, tdata2 = tdata3 = 0; where
 * tdata1 does not then read as at boot (QEMU 10 ignores a tdata1 write
 * of type 0, the probe says), tdata1 = its boot value (QEMU: mcontrol,
 * nothing enabled).  tselect = 0, the shadow from the live registers,
 * the accesses' privilege back to S.
 */
void arch_reset(const struct hwbp_cpu *cpu)
{
	struct rv_hart *p = rv_me();

	(void)cpu;
	for (unsigned n = 0; n < rv_ntrig; n++) {
		rv_w_tselect(n);
		rv_w_tdata1(0);
		rv_w_tdata2(0);
		rv_w_tdata3(0);
		if (rv_r_tdata1() != boot1[n])
			rv_w_tdata1(boot1[n]);
		p->shadow1[n] = rv_r_tdata1();
		rv_moved(p, n);
	}
	rv_w_tselect(0);
	p->priv = 3;   /* M-mode at reset, as the simulator's model */
	p->running = RUN_NONE;
}

int arch_set_reg(const char *name, uint64_t value, struct hwbp_sim_result *res)
{
	struct rv_hart *p = rv_me();
	uint64_t n = rv_r_tselect(), old;

	memset(res, 0, sizeof(*res));
	if (strcmp(name, "tselect") == 0) {
		rv_w_tselect(value);
		return 0;
	}
	if (strcmp(name, "tdata1") == 0) {
		old = rv_r_tdata1();
		rv_w_tdata1(value);
		if (n < rv_ntrig) {
			p->shadow1[n] = rv_r_tdata1();
			if (p->shadow1[n] != old)
				rv_moved(p, (unsigned)n);
		}
		return 0;
	}
	if (strcmp(name, "tdata2") == 0) {
		old = rv_r_tdata2();
		rv_w_tdata2(value);
		if (n < rv_ntrig && rv_r_tdata2() != old)
			rv_moved(p, (unsigned)n);
		return 0;
	}
	if (strcmp(name, "tdata3") == 0) {
		rv_w_tdata3(value);
		return 0;
	}
	if (strcmp(name, "tcontrol") == 0) {
		if (rv_try_write(HWBP_RISCV_CSR_TCONTROL, value)) {
			harness_why = "riscv: csrw tcontrol is an illegal instruction on this hart";
			return -ENOENT;
		}
		return 0;
	}
	return -ENOENT;
}

/* `mode priv=0|1|3`: the privilege of the next accesses and gets. */
int arch_mode(const char *key, uint64_t value)
{
	if (strcmp(key, "priv") == 0 && (value == 0 || value == 1 || value == 3)) {
		rv_me()->priv = (unsigned)value;
		return 0;
	}
	return -EOPNOTSUPP;
}

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
	return ret ? -EINVAL : 0;
}

void arch_read_regs(struct hwbp_regs *regs)
{
	hwbp_glue_read_regs(regs);
}

/* ------------------------------------------------------------------ */
/* Boot probe: QEMU's trigger module as this hart sees it              */
/* ------------------------------------------------------------------ */
#define T_MC (2ull << HWBP_RISCV_TDATA1_TYPE_SHIFT)
#define T_MC6 (6ull << HWBP_RISCV_TDATA1_TYPE_SHIFT)
#define MC_M HWBP_RISCV_MC_M
#define MC_S HWBP_RISCV_MC_S
#define MC_U HWBP_RISCV_MC_U
#define MC_LOAD HWBP_RISCV_MC_LOAD
#define MC_STORE HWBP_RISCV_MC_STORE
#define MC_EXEC HWBP_RISCV_MC_EXECUTE

/* tdata1 of trigger 0 after writing @v (from its boot value). */
static void probe_write(const char *what, uint64_t v)
{
	rv_w_tselect(0);
	rv_w_tdata1(boot1[0]);
	rv_w_tdata1(v);
	h_printf("# riscv probe: tdata1 <- 0x%llx (%s) reads 0x%llx\n", (unsigned long long)v,
		 what, (unsigned long long)rv_r_tdata1());
	rv_w_tdata1(boot1[0]);
}

static void probe(void)
{
	uint64_t v, sel;
	unsigned n;

	/* tselect is WARL: the first value that does not read back is the
	 * count (Debug spec 1.0 §5.5.1). */
	sel = rv_r_tselect();
	for (n = 0; n < HWBP_MAX_SLOTS; n++) {
		rv_w_tselect(n);
		v = rv_r_tselect();
		if (v != n)
			break;
	}
	rv_ntrig = n;
	h_printf("# riscv probe: tselect at boot 0x%llx; triggers %u (tselect <- %u reads 0x%llx)\n",
		 (unsigned long long)sel, n, n, (unsigned long long)v);
	for (n = 0; n < rv_ntrig; n++) {
		uint64_t info;
		int bad;

		rv_w_tselect(n);
		boot1[n] = rv_r_tdata1();
		boot2[n] = rv_r_tdata2();
		boot3[n] = rv_r_tdata3();
		bad = rv_try_read(HWBP_RISCV_CSR_TINFO, &info);
		h_printf("# riscv probe: trigger %u: tinfo %s0x%llx, tdata1 0x%llx tdata2 0x%llx"
			 " tdata3 0x%llx at boot\n", n, bad ? "illegal instruction " : "",
			 (unsigned long long)info, (unsigned long long)boot1[n],
			 (unsigned long long)boot2[n], (unsigned long long)boot3[n]);
	}
	if (rv_try_read(HWBP_RISCV_CSR_TCONTROL, &v))
		h_printf("# riscv probe: tcontrol: csrr is an illegal instruction\n");
	else
		h_printf("# riscv probe: tcontrol 0x%llx\n", (unsigned long long)v);
	if (rv_ntrig == 0)
		return;
	probe_write("0", 0);
	probe_write("type 15, disabled", 15ull << 60);
	probe_write("mcontrol6 match=1 NAPOT, chain, select, M, load",
		    T_MC6 | (1ull << HWBP_RISCV_MC_MATCH_SHIFT) | HWBP_RISCV_MC_CHAIN |
			    HWBP_RISCV_MC6_SELECT | MC_M | MC_LOAD);
	probe_write("mcontrol6 match=2 GE, M, load",
		    T_MC6 | (2ull << HWBP_RISCV_MC_MATCH_SHIFT) | MC_M | MC_LOAD);
	probe_write("mcontrol6 size=3 (4 bytes), hit0, hit1, uncertainen, M, store",
		    T_MC6 | (3ull << HWBP_RISCV_MC6_SIZE_SHIFT) | HWBP_RISCV_MC6_HIT0 |
			    HWBP_RISCV_MC6_HIT1 | HWBP_RISCV_MC6_UNCERTAINEN | MC_M | MC_STORE);
	probe_write("mcontrol6 VS, VU, U, S, M, action=1, execute",
		    T_MC6 | HWBP_RISCV_MC6_VS | HWBP_RISCV_MC6_VU | MC_U | MC_S | MC_M |
			    (1ull << HWBP_RISCV_MC_ACTION_SHIFT) | MC_EXEC);
	probe_write("mcontrol timing=1, M, load", T_MC | HWBP_RISCV_MC2_TIMING | MC_M | MC_LOAD);
	probe_write("mcontrol hit, select, chain, match=1, M, load",
		    T_MC | HWBP_RISCV_MC2_HIT | HWBP_RISCV_MC2_SELECT | HWBP_RISCV_MC_CHAIN |
			    (1ull << HWBP_RISCV_MC_MATCH_SHIFT) | MC_M | MC_LOAD);
	probe_write("mcontrol maskmax=63, sizelo=2, sizehi=1, bit 5, M, store",
		    T_MC | (63ull << HWBP_RISCV_MC2_MASKMAX_SHIFT) |
			    (2ull << HWBP_RISCV_MC2_SIZELO_SHIFT) |
			    (1ull << HWBP_RISCV_MC2_SIZEHI_SHIFT) | (1ull << 5) | MC_M | MC_STORE);
	probe_write("mcontrol dmode, M, load", T_MC | HWBP_RISCV_TDATA1_DMODE | MC_M | MC_LOAD);
	probe_write("icount (type 3) count=1, M", (3ull << 60) | (1ull << 10) | (1ull << 9));
	rv_w_tselect(0);
	rv_w_tdata3(0xffffffffffffffffull);
	h_printf("# riscv probe: tdata3 <- 0xffffffffffffffff reads 0x%llx\n",
		 (unsigned long long)rv_r_tdata3());
	rv_w_tdata3(boot3[0]);
	rv_w_tselect(sel);
}

/* ------------------------------------------------------------------ */
/* Smoke test: raw triggers through the tdata CSRs, one access each     */
/* ------------------------------------------------------------------ */
/*
 * Arm trigger 0 with @t1/@t2 (raw, arch_set_reg), make the access at
 * privilege @priv (arch_access), and print what the handler saw.
 * Returns 1 if a breakpoint exception was taken.
 */
static int smoke(const char *what, unsigned priv, uint64_t t1, uint64_t t2,
		 enum hwbp_sim_op op, uint64_t addr, uint32_t size, struct hwbp_sim_result *res)
{
	struct rv_hart *p = rv_me();
	struct hwbp_sim_access a;
	uint64_t after;

	arch_reset(NULL);
	arch_set_reg("tselect", 0, res);
	arch_set_reg("tdata2", t2, res);
	arch_set_reg("tdata1", t1, res);
	memset(&a, 0, sizeof(a));
	a.op = op;
	a.addr = addr;
	a.size = size;
	p->priv = priv;
	if (arch_access(&a, res)) {
		h_printf("\n# FATAL: riscv smoke: %s: the harness refused the access\n", what);
		arch_exit(3);
	}
	rv_w_tselect(0);
	after = rv_r_tdata1();
	if (res->cls == HWBP_SIM_NONE)
		h_printf("# riscv smoke: %s: no trap\n", what);
	else
		h_printf("# riscv smoke: %s: mcause 0x%llx mtval 0x%llx mepc 0x%llx (the %s 0x%llx:"
			 " %s); tdata1 then 0x%llx\n", what,
			 (unsigned long long)res->st.u.riscv.cause,
			 (unsigned long long)res->st.u.riscv.tval, (unsigned long long)res->st.ip,
			 op == HWBP_SIM_EXEC ? "target" : "access",
			 (unsigned long long)p->insn,
			 res->timing == HWBP_TIMING_BEFORE ? "before" : "after",
			 (unsigned long long)after);
	arch_reset(NULL);
	return res->cls != HWBP_SIM_NONE;
}

__attribute__((noreturn)) static void smoke_fail(const char *what)
{
	h_printf("\n# FATAL: riscv smoke: %s\n", what);
	arch_exit(3);
}

static void smoke_test(void)
{
	struct hwbp_sim_result res;
	uint64_t b = arch_arena_b() + 0x100, c = arch_arena_c() + 0x40;
	uint64_t ml = T_MC | MC_M | MC_LOAD;

	if (rv_ntrig == 0)
		smoke_fail("no trigger to test with");
	/* The trap path: a raw trigger on a load. */
	if (!smoke("mcontrol M load @B+0x100, M-mode ld @B+0x100", 3, ml, b, HWBP_SIM_READ, b, 8,
		   &res))
		smoke_fail("a load at a trigger's address took no breakpoint exception");
	if (res.st.u.riscv.cause != RV_CAUSE_BREAKPOINT || res.timing != HWBP_TIMING_BEFORE)
		smoke_fail("the load's trap was not a breakpoint exception before it");
	/* Measurements of the match (printed, not checked). */
	smoke("mcontrol M load @B+0x100, M-mode lw @B+0x104", 3, ml, b, HWBP_SIM_READ, b + 4, 4,
	      &res);
	smoke("mcontrol M load @B+0x100, M-mode ld @B+0xfc", 3, ml, b, HWBP_SIM_READ, b - 4, 8,
	      &res);
	smoke("mcontrol M load @B+0x100, M-mode lb @B+0xff", 3, ml, b, HWBP_SIM_READ, b - 1, 1,
	      &res);
	smoke("mcontrol M load @B+0x100, M-mode lb @B+0x107", 3, ml, b, HWBP_SIM_READ, b + 7, 1,
	      &res);
	smoke("mcontrol M load sizelo=2 (2 bytes) @B+0x100, M-mode lw @B+0x102", 3,
	      ml | (2ull << HWBP_RISCV_MC2_SIZELO_SHIFT), b, HWBP_SIM_READ, b + 2, 4, &res);
	smoke("mcontrol6 M load size=0 @B+0x100, M-mode lw @B+0x104", 3, T_MC6 | MC_M | MC_LOAD,
	      b, HWBP_SIM_READ, b + 4, 4, &res);
	smoke("mcontrol timing=1 M load @B+0x100, M-mode ld @B+0x100", 3,
	      ml | HWBP_RISCV_MC2_TIMING, b, HWBP_SIM_READ, b, 8, &res);
	smoke("mcontrol M store @B+0x100, M-mode sw @B+0x100", 3, T_MC | MC_M | MC_STORE, b,
	      HWBP_SIM_WRITE, b, 4, &res);
	smoke("mcontrol M load @B+0x100, M-mode sw @B+0x100", 3, ml, b, HWBP_SIM_WRITE, b, 4, &res);
	if (!smoke("mcontrol M execute @C+0x40, M-mode exec C+0x40", 3, T_MC | MC_M | MC_EXEC, c,
		   HWBP_SIM_EXEC, c, 4, &res))
		smoke_fail("an exec of a trigger's address took no breakpoint exception");
	/* U- and S-mode entry: a trigger that names only that privilege
	 * fires there, and not in M-mode. */
	if (!smoke("mcontrol U load @B+0x100, U-mode ld @B+0x100", 0, T_MC | MC_U | MC_LOAD, b,
		   HWBP_SIM_READ, b, 8, &res))
		smoke_fail("U-mode: a U-only trigger did not fire (not in U-mode?)");
	if (smoke("mcontrol U load @B+0x100, M-mode ld @B+0x100", 3, T_MC | MC_U | MC_LOAD, b,
		  HWBP_SIM_READ, b, 8, &res))
		smoke_fail("M-mode: a U-only trigger fired");
	if (!smoke("mcontrol S load @B+0x100, S-mode ld @B+0x100", 1, T_MC | MC_S | MC_LOAD, b,
		   HWBP_SIM_READ, b, 8, &res))
		smoke_fail("S-mode: an S-only trigger did not fire (not in S-mode?)");
	if (smoke("mcontrol S load @B+0x100, U-mode ld @B+0x100", 0, T_MC | MC_S | MC_LOAD, b,
		  HWBP_SIM_READ, b, 8, &res))
		smoke_fail("U-mode: an S-only trigger fired");
	smoke("mcontrol6 U store @C+0x40, U-mode sd @C+0x40", 0, T_MC6 | MC_U | MC_STORE, c,
	      HWBP_SIM_WRITE, c, 8, &res);
	smoke("mcontrol6 S execute @C+0x40, S-mode exec C+0x40", 1, T_MC6 | MC_S | MC_EXEC, c,
	      HWBP_SIM_EXEC, c, 4, &res);
	/* `get` from U-mode: the trigger CSRs are M-mode CSRs. */
	rv_me()->priv = 0;
	arch_get_reg("tdata1", &res);
	h_printf("# riscv smoke: get tdata1 from U-mode: %s mcause 0x%llx mtval 0x%llx\n",
		 res.cls == HWBP_SIM_NONE ? "no trap" : "trap", (unsigned long long)res.st.u.riscv.cause,
		 (unsigned long long)res.st.u.riscv.tval);
	if (res.cls == HWBP_SIM_NONE)
		smoke_fail("U-mode: csrr tdata1 did not trap");
	rv_me()->priv = 3;
	arch_get_reg("tinfo", &res);
	h_printf("# riscv smoke: get tinfo in M-mode: %s = 0x%llx\n", res.status[0].name,
		 (unsigned long long)res.status[0].value);
	arch_reset(NULL);
	/* Arena C is still `ret` in the slots the stores above hit. */
	if (*(volatile uint32_t *)c != RV_RET)
		smoke_fail("a store into arena C changed a `ret`");
}

/* ------------------------------------------------------------------ */
/* SMP self-check                                                      */
/* ------------------------------------------------------------------ */
/*
 * Every hart writes trigger 0's tdata2 with a value naming it (tdata1
 * as at boot: nothing armed), then every hart reads it back and says who
 * it is; then every hart takes a breakpoint exception of its own (a raw
 * load trigger at its own address), and writes and reads back its
 * triggers through the glue.  A hart that answers for another, holds
 * another's value or does not trap on its own stops the kernel.
 */
#define SELFTEST_T2(c) (0x10000000ull + 0x1000ull * (uint64_t)(c))

static int smp_mark(void *arg)
{
	rv_w_tselect(0);
	rv_w_tdata2(SELFTEST_T2((uintptr_t)arg));
	return (int)rv_this_hart();
}

static int smp_check(void *arg)
{
	rv_w_tselect(0);
	return rv_r_tdata2() == SELFTEST_T2((uintptr_t)arg) ? (int)rv_this_hart() : -1;
}

static int smp_trap(void *arg)
{
	struct hwbp_sim_result res;
	struct hwbp_sim_access a;
	uint64_t addr = arch_arena_b() + 0x800 + 8 * (uintptr_t)arg;

	arch_reset(NULL);
	arch_set_reg("tselect", 0, &res);
	arch_set_reg("tdata2", addr, &res);
	arch_set_reg("tdata1", T_MC | MC_M | MC_LOAD, &res);
	memset(&a, 0, sizeof(a));
	a.op = HWBP_SIM_READ;
	a.addr = addr;
	a.size = 8;
	rv_me()->priv = 3;
	if (arch_access(&a, &res) || res.st.u.riscv.cause != RV_CAUSE_BREAKPOINT ||
	    res.st.ip != (uint64_t)rv_acc + 24)
		return -1;
	arch_reset(NULL);
	return (int)rv_this_hart();
}

static int smp_glue(void *arg)
{
	struct hwbp_regs w, r;
	uint64_t addr = arch_arena_b() + 0x900 + 8 * (uintptr_t)arg;

	memset(&w, 0, sizeof(w));
	w.arch = HWBP_ARCH_RISCV;
	for (unsigned n = 0; n < rv_ntrig; n++) {
		w.u.riscv.tdata1[n] = T_MC | MC_S | MC_STORE;
		w.u.riscv.tdata2[n] = addr + 0x40 * n;
	}
	if (arch_write_regs(&w))
		return -1;
	arch_read_regs(&r);
	for (unsigned n = 0; n < rv_ntrig; n++)
		if (r.u.riscv.tdata1[n] != w.u.riscv.tdata1[n] ||
		    r.u.riscv.tdata2[n] != w.u.riscv.tdata2[n])
			return -1;
	arch_reset(NULL);
	return (int)rv_this_hart();
}

static void smp_selftest(void)
{
	unsigned n = rv_ncpus(), c;
	const char *step = "mark";

	for (c = 0; c < n; c++)
		if (rv_smp_call(c, smp_mark, (void *)(uintptr_t)c) != (int)c)
			goto bad;
	step = "check";
	for (c = 0; c < n; c++)
		if (rv_smp_call(c, smp_check, (void *)(uintptr_t)c) != (int)c)
			goto bad;
	step = "trap";
	for (c = 0; c < n; c++)
		if (rv_smp_call(c, smp_trap, (void *)(uintptr_t)c) != (int)c)
			goto bad;
	step = "glue";
	for (c = 0; c < n; c++)
		if (rv_smp_call(c, smp_glue, (void *)(uintptr_t)c) != (int)c)
			goto bad;
	h_printf("# riscv: SMP self-check: %u hart%s each ran its own calls by IPI, kept its own"
		 " tdata2, took its own breakpoint exception, wrote and read its triggers"
		 " through the glue\n", n, n == 1 ? "" : "s");
	return;
bad:
	h_printf("\n# FATAL: riscv SMP self-check (%s): hart %u did not run its own call,"
		 " keep its own tdata2, trap on its own or hold what the glue wrote\n", step, c);
	arch_exit(3);
}

/* ------------------------------------------------------------------ */
/* Boot                                                                */
/* ------------------------------------------------------------------ */
static int reset_call(void *arg)
{
	(void)arg;
	arch_reset(NULL);
	return 0;
}

void rv_main(void)
{
	struct hwbp_cpu model;
	uint32_t *cw = (uint32_t *)__arena_c;
	uint64_t misa;

	__asm__ volatile("csrw pmpaddr0, %0; csrw pmpcfg0, %1; sfence.vma"
			 : : "r"(~0ull), "r"(0x1full) : "memory");
	for (unsigned i = 0; i < RV_ARENA_SIZE / 4; i++)
		cw[i] = RV_RET;
	__asm__ volatile("fence rw, rw; fence.i" ::: "memory");
	__asm__ volatile("csrr %0, misa" : "=r"(misa));
	h_printf("# riscv: M-mode at entry, misa 0x%llx, arena B 0x%llx, arena C 0x%llx\n",
		 (unsigned long long)misa, (unsigned long long)arch_arena_b(),
		 (unsigned long long)arch_arena_c());
	probe();
	{
		unsigned n = rv_smp_init();

		h_printf("# riscv: %u hart%s (CLINT msip probe), all up\n", n, n == 1 ? "" : "s");
	}
	for (unsigned c = 0; c < rv_ncpus(); c++)
		rv_smp_call(c, reset_call, NULL);
	smp_selftest();
	smoke_test();
	if (hwbp_cpu_preset(arch_machine_model(), &model) || arch_cpu_unsupported(&model)) {
		h_printf("# harness: riscv: libhwbp has no usable preset %s (arch/riscv/ is not"
			 " integrated yet): no on_cpu self-check, no scenario run\n",
			 arch_machine_model());
		arch_exit(EXIT_NOT_INTEGRATED);
	}
	harness_main();
	arch_exit(0);
}
