/* SPDX-License-Identifier: MIT */
/*
 * The pure side of the Linux ptrace glue (tracer/backends/linux/glue.h,
 * arch/<a>/linux_decode.c), on every host: what the kernel reports to a
 * tracer (dbg_info, siginfo, ppc_debug_info) as hwbp models and statuses.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <hwbp/hwbp.h>

#include "backends/linux/glue.h"
#ifdef __linux__
#include <hwbp/trace.h>

#include "backends/linux/linux.h"
#endif
#include "arm64/linux_decode.h"
#include "powerpc/linux_decode.h"
#include "x86/linux_decode.h"

/* ---- arm64: dbg_info -> model ------------------------------------- */
static const struct {
	uint32_t brk, wtch;
	int ret;
	unsigned nb, nw;
	const char *why;
} arm64_cpus[] = {
	/* QEMU -cpu max / Cortex-A57: 6 breakpoints, 4 watchpoints, debug
	 * arch 0x06 (Armv8) in bits 15:8. */
	{ 0x0606, 0x0604, 0, 6, 4, "Armv8, 6 + 4" },
	{ 0x0802, 0x0802, 0, 2, 2, "Armv8.2 debug, 2 + 2 (the minimum)" },
	{ 0x0610, 0x0610, 0, 16, 16, "16 + 16 (the architectural maximum)" },
	{ 0x0611, 0x0604, -EOPNOTSUPP, 0, 0, "17 breakpoints: more than hwbp's tables" },
	{ 0x0606, 0x0600, -EOPNOTSUPP, 0, 0, "no watchpoint" },
	{ 0x0006, 0x0004, -EOPNOTSUPP, 0, 0, "debug arch 0: no debug unit" },
};

static void test_arm64_cpu(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(arm64_cpus) / sizeof(arm64_cpus[0]); i++) {
		struct hwbp_cpu cpu;
		struct hwbp_caps caps;
		int ret = hwbpi_arm64_linux_cpu(arm64_cpus[i].brk, arm64_cpus[i].wtch, &cpu);

		print_message("arm64 cpu: %s\n", arm64_cpus[i].why);
		assert_int_equal(ret, arm64_cpus[i].ret);
		if (ret)
			continue;
		assert_int_equal(cpu.arch, HWBP_ARCH_ARM64);
		assert_string_equal(cpu.name, "arm64-linux");
		assert_int_equal(hwbp_caps_get(&cpu, &caps), 0);
		assert_int_equal(caps.inst_slots, arm64_cpus[i].nb);
		assert_int_equal(caps.data_slots, arm64_cpus[i].nw);
	}
	assert_int_equal(hwbpi_arm64_linux_cpu(0x0606, 0x0604, NULL), -EINVAL);
}

/* ---- arm64: siginfo -> status -------------------------------------- */
#define VAR 0x4010a8ull    /* an 8-byte variable */
#define VAR2 0x4010b2ull   /* a 2-byte one, in another doubleword */
#define FN 0x400800ull     /* a function's first instruction */

static void arm64_armed(struct hwbp_cpu *cpu, struct hwbp_regs *r, unsigned var_type)
{
	struct hwbp_piece p;

	assert_int_equal(hwbpi_arm64_linux_cpu(0x0606, 0x0604, cpu), 0);
	assert_int_equal(hwbp_regs_reset(cpu, r), 0);
	memset(&p, 0, sizeof(p));
	p.addr = p.cover_lo = VAR;
	p.len = p.cover_len = 8;
	p.type = var_type;
	assert_int_equal(hwbp_encode_piece(cpu, r, 0, false, &p, HWBP_SCOPE_USER, true), 0);
	p.addr = p.cover_lo = VAR2;
	p.len = p.cover_len = 2;
	p.type = HWBP_R;
	assert_int_equal(hwbp_encode_piece(cpu, r, 1, false, &p, HWBP_SCOPE_USER, true), 0);
	p.addr = p.cover_lo = FN;
	p.len = p.cover_len = 4;
	p.type = HWBP_X;
	assert_int_equal(hwbp_encode_piece(cpu, r, 0, true, &p, HWBP_SCOPE_USER, true), 0);
}

static const struct {
	unsigned var_type;     /* type of the watch on VAR */
	uint64_t pc, addr;     /* the stopped thread's PC, si_addr */
	int ret;
	uint32_t data_slots, inst_slots;
	unsigned kind;         /* the decoded kind */
	bool known;
	const char *why;
} arm64_hits[] = {
	{ HWBP_W, 0x400900, VAR, 0, 1, 0, HWBP_W, true, "store to a W watch: WnR 1 only" },
	{ HWBP_RW, 0x400900, VAR, 0, 1, 0, HWBP_W, false, "RW watch: either kind" },
	{ HWBP_W, 0x400900, VAR + 7, 0, 1, 0, HWBP_W, true, "its last byte" },
	{ HWBP_W, 0x400900, VAR2 + 1, 0, 2, 0, HWBP_R, true, "the R watch: a load" },
	{ HWBP_W, 0x400900, VAR - 8, 0, 1, 0, HWBP_W, false,
	  "FAR below both watches (an STP reaching into one): the nearest above as a store, "
	  "the kind unknown" },
	{ HWBP_W, FN, FN, 0, 0, 1, HWBP_X, true, "si_addr == PC at the breakpoint" },
	{ HWBP_W, FN + 4, FN + 4, -ENOENT, 0, 0, 0, false,
	  "si_addr == PC without a breakpoint there and no watch: nothing" },
	{ HWBP_W, 0x400900, 0x7fff0000, -ENOENT, 0, 0, 0, false, "far from every watch" },
};

static void test_arm64_status(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(arm64_hits) / sizeof(arm64_hits[0]); i++) {
		struct hwbp_cpu cpu;
		struct hwbp_regs r;
		struct hwbp_status st;
		struct hwbp_hit hit;
		bool known = !arm64_hits[i].known;
		int ret;

		print_message("arm64 status: %s\n", arm64_hits[i].why);
		arm64_armed(&cpu, &r, arm64_hits[i].var_type);
		ret = hwbpi_arm64_linux_status(&cpu, &r, arm64_hits[i].pc, arm64_hits[i].addr, &st,
					       &known);
		assert_int_equal(ret, arm64_hits[i].ret);
		if (ret)
			continue;
		assert_int_equal(st.ip, arm64_hits[i].pc);
		assert_int_equal(known, arm64_hits[i].known);
		/* What the synthesised ESR/FAR decode to: the slot hit. */
		memset(&hit, 0, sizeof(hit));
		assert_int_equal(hwbp_decode_status(&cpu, &r, &st, &hit), 0);
		assert_int_equal(hit.data_slots, arm64_hits[i].data_slots);
		assert_int_equal(hit.inst_slots, arm64_hits[i].inst_slots);
		assert_int_equal(hit.kind, arm64_hits[i].kind);
	}
	{
		struct hwbp_cpu cpu, x86;
		struct hwbp_regs r;
		struct hwbp_status st;
		bool known;

		arm64_armed(&cpu, &r, HWBP_W);
		assert_int_equal(hwbpi_arm64_linux_status(NULL, &r, 0, VAR, &st, &known), -EINVAL);
		assert_int_equal(hwbpi_arm64_linux_status(&cpu, &r, 0, VAR, NULL, &known), -EINVAL);
		assert_int_equal(hwbp_cpu_preset("x86_64", &x86), 0);
		assert_int_equal(hwbpi_arm64_linux_status(&x86, &r, 0, VAR, &st, &known), -EINVAL);
	}
}

/* ---- arm64: control words Linux's ptrace takes -------------------- */
static const struct {
	bool inst;
	uint64_t ctrl;
	int ret;
	const char *why;
} arm64_ctrls[] = {
	{ false, 0, 0, "disabled" },
	{ false, 0x1 | 2u << 1 | 2u << 3 | 0xffu << 5, 0, "8 bytes, store, EL0" },
	{ false, 0x1 | 2u << 1 | 3u << 3 | 0x0cu << 5, 0, "bytes 2-3" },
	{ false, 0x1 | 2u << 1 | 1u << 3 | 0x80u << 5, 0, "byte 7" },
	{ false, 0x1 | 2u << 1 | 2u << 3 | 0x05u << 5, -EOPNOTSUPP, "BAS 0b101: not contiguous" },
	{ false, 0x1 | 2u << 1 | 2u << 3 | 0x00u << 5, -EOPNOTSUPP, "no byte" },
	{ false, 0x1 | 2u << 1 | 0u << 3 | 0xffu << 5, -EOPNOTSUPP, "LSC 0" },
	{ false, 0x1 | 2u << 1 | 2u << 3 | 0xffu << 5 | 6u << 24, -EOPNOTSUPP,
	  "MASK 6: 64 bytes (the kernel would drop it)" },
	{ false, 0x1 | 2u << 1 | 2u << 3 | 0xffu << 5 | 1u << 20, -EOPNOTSUPP, "WT: linked" },
	{ true, 0x1 | 2u << 1 | 0xfu << 5, 0, "A64 instruction" },
	{ true, 0x1 | 2u << 1 | 0x3u << 5, -EOPNOTSUPP, "T32 halfword" },
	{ true, 0x1 | 2u << 1 | 0xfu << 5 | 2u << 20, -EOPNOTSUPP, "context breakpoint" },
};

static void test_arm64_ctrl(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(arm64_ctrls) / sizeof(arm64_ctrls[0]); i++) {
		print_message("arm64 ctrl: %s\n", arm64_ctrls[i].why);
		assert_int_equal(hwbpi_arm64_linux_ctrl_ok(arm64_ctrls[i].inst, arm64_ctrls[i].ctrl),
				 arm64_ctrls[i].ret);
	}
}

/* hwbp's own encodings of the pieces Linux's ptrace can take pass. */
static void test_arm64_ctrl_of_encoder(void **state)
{
	static const struct { uint64_t addr, len; unsigned type; bool inst; int ret; } pieces[] = {
		{ 0x1000, 1, HWBP_W, false, 0 },
		{ 0x1003, 4, HWBP_RW, false, 0 },
		{ 0x1000, 8, HWBP_R, false, 0 },
		{ 0x1000, 4, HWBP_X, true, 0 },
		{ 0x1000, 64, HWBP_W, false, -EOPNOTSUPP },   /* a MASK block */
	};
	struct hwbp_cpu cpu;

	(void)state;
	assert_int_equal(hwbpi_arm64_linux_cpu(0x0606, 0x0604, &cpu), 0);
	for (size_t i = 0; i < sizeof(pieces) / sizeof(pieces[0]); i++) {
		struct hwbp_regs r;
		struct hwbp_piece p;

		memset(&p, 0, sizeof(p));
		p.addr = p.cover_lo = pieces[i].addr;
		p.len = p.cover_len = pieces[i].len;
		p.type = pieces[i].type;
		assert_int_equal(hwbp_regs_reset(&cpu, &r), 0);
		assert_int_equal(hwbp_encode_piece(&cpu, &r, 1, pieces[i].inst, &p, HWBP_SCOPE_USER,
						   true), 0);
		assert_int_equal(hwbpi_arm64_linux_ctrl_ok(pieces[i].inst, pieces[i].inst ?
							   r.u.arm64.bcr[1] : r.u.arm64.wcr[1]),
				 pieces[i].ret);
	}
}

/* ---- x86 ------------------------------------------------------------ */
static void test_x86_dr7(void **state)
{
	static const struct { uint64_t in, out; } t[] = {
		{ 0x1, 0x1 },                       /* L0 */
		{ 0x400, 0x0 },                     /* the fixed bit 10: the kernel's */
		{ 0xdd0f0155, 0xdd0f0055 },         /* LE (bit 8) dropped, the rest kept */
		{ 0x2000, 0x0 },                    /* GD */
		{ 0xffffffffffffffffull, 0xffff00ffull },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		assert_int_equal(hwbpi_x86_linux_dr7(t[i].in), t[i].out);
}

/* ---- powerpc: ppc_debug_info -> model ------------------------------- */
static void test_powerpc_cpu(void **state)
{
	static const struct {
		uint32_t ni, nd;
		uint64_t features;
		int ret;
		unsigned isa, units, data_slots;
	} t[] = {
		{ 0, 1, 0x10, 0, 300, HWBP_PPC_DAWR0, 1 },                    /* POWER8/9 */
		/* POWER10: 2 DAWRs, one for ptrace (ppc_set_hwdebug()) */
		{ 0, 2, 0x30, 0, 310, HWBP_PPC_DAWR0, 1 },
		{ 0, 1, 0x00, 0, 206, HWBP_PPC_DABR, 1 },                     /* POWER7 */
		{ 1, 1, 0x10, 0, 300, HWBP_PPC_DAWR0 | HWBP_PPC_CIABR, 1 },
		{ 0, 0, 0x10, -EOPNOTSUPP, 0, 0, 0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct hwbp_cpu cpu;
		struct hwbp_caps caps;

		assert_int_equal(hwbpi_powerpc_linux_cpu(t[i].ni, t[i].nd, t[i].features, &cpu),
				 t[i].ret);
		if (t[i].ret)
			continue;
		assert_int_equal(cpu.arch, HWBP_ARCH_POWERPC);
		assert_int_equal(cpu.u.ppc.isa, t[i].isa);
		assert_int_equal(cpu.u.ppc.units, t[i].units);
		assert_int_equal(hwbp_caps_get(&cpu, &caps), 0);
		assert_int_equal(caps.data_slots, t[i].data_slots);
	}
	assert_int_equal(hwbpi_powerpc_linux_cpu(0, 1, 0, NULL), -EINVAL);
}

/* ---- powerpc: siginfo -> status -------------------------------------- */
static void test_powerpc_status(void **state)
{
	struct hwbp_cpu cpu;
	struct hwbp_regs r;
	struct hwbp_piece p;
	struct hwbp_status st;
	struct hwbp_hit hit;

	(void)state;
	assert_int_equal(hwbpi_powerpc_linux_cpu(0, 1, 0x10, &cpu), 0);
	assert_int_equal(hwbp_regs_reset(&cpu, &r), 0);
	memset(&p, 0, sizeof(p));
	p.addr = p.cover_lo = 0x10020;
	p.len = p.cover_len = 16;
	p.type = HWBP_RW;
	assert_int_equal(hwbp_encode_piece(&cpu, &r, 0, false, &p, HWBP_SCOPE_USER, true), 0);
	/* A load of the second doubleword: slot 0, kind unknown to a tracer. */
	assert_int_equal(hwbpi_powerpc_linux_status(0x10000500, 0x1002c, &st), 0);
	assert_int_equal(st.ip, 0x10000500);
	memset(&hit, 0, sizeof(hit));
	assert_int_equal(hwbp_decode_status(&cpu, &r, &st, &hit), 0);
	assert_int_equal(hit.data_slots, 1);
	assert_int_equal(hit.addr, 0x1002c);
	/* Far from it: no slot. */
	assert_int_equal(hwbpi_powerpc_linux_status(0x10000500, 0x20000, &st), 0);
	assert_int_equal(hwbp_decode_status(&cpu, &r, &st, &hit), -ENOENT);
	assert_int_equal(hwbpi_powerpc_linux_status(0, 0, NULL), -EINVAL);
}

#ifdef __linux__
/*
 * The execute-breakpoint length Linux's hw_breakpoint accepts on this host
 * (arch_build_bp_info() of each arch): the build links the host's own
 * arch/<a>/linux.c, or tracer/backends/linux/linux_none.c.
 */
static void test_exec_len(void **state)
{
	static const struct { bool host; uint64_t len; const char *source; } rows[] = {
#if defined(HWBP_LINUX_NO_GLUE)
		{ true, sizeof(long), "no glue (linux_none.c): x86's rule" },
#elif defined(__x86_64__) || defined(__i386__)
		{ true, sizeof(long), "x86: bp_len must be sizeof(long)" },
#elif defined(__aarch64__) || defined(__powerpc64__)
		{ true, 4, "arm64/powerpc: HW_BREAKPOINT_LEN_4, one instruction" },
#endif
		{ false, 0, NULL },
	};
	bool checked = false;

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		if (!rows[i].host)
			continue;
		checked = true;
		if (hwbpi_linux_exec_len() != rows[i].len)
			fail_msg("%s: got %llu", rows[i].source,
				 (unsigned long long)hwbpi_linux_exec_len());
	}
	if (!checked) {
		print_message("SKIP: no expected execute length for this CPU's glue\n");
		skip();
	}
}

/*
 * The backends that program this host's debug registers (ptrace, perf,
 * bpf, module) and --cpu host ask hwbpi_linux_glue_check() first: 0 in a
 * build with its CPU's glue (arch/<a>/linux.c); in one without
 * (linux_none.c, compiled with HWBP_LINUX_NO_GLUE, the CPU family's name)
 * -EOPNOTSUPP and a line naming the family, which hwbp_trace_host_cpu()
 * says too, before any child is started.
 */
static void test_glue_check(void **state)
{
	char err[256] = "";

	(void)state;
#ifdef HWBP_LINUX_NO_GLUE
	struct hwbp_cpu cpu;

	assert_int_equal(hwbpi_linux_glue_check(err, sizeof(err)), -EOPNOTSUPP);
	assert_non_null(strstr(err, "no Linux debug-register support for this CPU (" HWBP_LINUX_NO_GLUE ")"));
	err[0] = '\0';
	assert_int_equal(hwbp_trace_host_cpu(&cpu, err, sizeof(err)), -EOPNOTSUPP);
	assert_non_null(strstr(err, "(" HWBP_LINUX_NO_GLUE ")"));
	assert_int_equal(hwbpi_linux_cpu(0, &cpu), -EOPNOTSUPP);
#else
	assert_int_equal(hwbpi_linux_glue_check(err, sizeof(err)), 0);
	assert_string_equal(err, "");
#endif
}
#endif

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_arm64_cpu),
		cmocka_unit_test(test_arm64_status),
		cmocka_unit_test(test_arm64_ctrl),
		cmocka_unit_test(test_arm64_ctrl_of_encoder),
		cmocka_unit_test(test_x86_dr7),
		cmocka_unit_test(test_powerpc_cpu),
		cmocka_unit_test(test_powerpc_status),
#ifdef __linux__
		cmocka_unit_test(test_exec_len),
		cmocka_unit_test(test_glue_check),
#endif
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
