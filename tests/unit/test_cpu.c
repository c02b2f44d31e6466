/* SPDX-License-Identifier: MIT */
/*
 * CPU presets, arm64 models from ID_AA64DFR0_EL1, names and capabilities.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <hwbp/hwbp.h>

/* Every preset the issue and docs/scenarios.md name, with its slot counts. */
static const struct {
	const char *name;
	enum hwbp_arch arch;
	unsigned data, inst;
	bool shared;
	uint64_t max_piece;
	const char *source;
} presets[] = {
	{ "x86_64", HWBP_ARCH_X86, 4, 4, true, 8, "SDM Vol.3 §17.2: DR0-DR3; LEN=10 in 64-bit mode" },
	{ "i386", HWBP_ARCH_X86, 4, 4, true, 4, "SDM Vol.3 §17.2.5: LEN=10 undefined outside 64-bit mode" },
	{ "cortex-a57", HWBP_ARCH_ARM64, 4, 6, false, 1ull << 31, "Cortex-A57 TRM: 6 breakpoints, 4 watchpoints" },
	{ "arm64-max16", HWBP_ARCH_ARM64, 16, 16, false, 1ull << 31, "Arm ARM D19: BRPs/WRPs fields up to 16" },
	{ "power7", HWBP_ARCH_POWERPC, 1, 0, false, 8, "Power ISA 2.06: DABR only" },
	{ "power8", HWBP_ARCH_POWERPC, 1, 1, false, 512, "Power ISA 2.07: DAWR0, CIABR" },
	{ "power9", HWBP_ARCH_POWERPC, 1, 1, false, 512, "Power ISA 3.0: DAWR0, CIABR" },
	{ "power10", HWBP_ARCH_POWERPC, 2, 1, false, 512, "Power ISA 3.1: DAWR0, DAWR1, CIABR" },
	{ "rv64-qemu", HWBP_ARCH_RISCV, 2, 2, true, 8, "QEMU 10.0 target/riscv/debug.c: RV_MAX_TRIGGERS 2; size read as bytes" },
	{ "rv64-qemu-sbi", HWBP_ARCH_RISCV, 2, 2, true, 8, "rv64-qemu through OpenSBI's DBTR: kernel scope s alone" },
	{ "rv64-sdtrig", HWBP_ARCH_RISCV, 4, 4, true, UINT64_MAX, "Debug spec 1.0 §5.5: one pool; a chained pair holds any range" },
	{ "sifive-u74", HWBP_ARCH_RISCV, 4, 4, true, UINT64_MAX, "SiFive manuals, Debug: 4 breakpoint registers, chained ranges" },
};

static void test_presets(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(presets) / sizeof(presets[0]); i++) {
		struct hwbp_cpu cpu;
		struct hwbp_caps caps;
		bool listed = false;

		assert_int_equal(hwbp_cpu_preset(presets[i].name, &cpu), 0);
		assert_string_equal(cpu.name, presets[i].name);
		assert_int_equal(cpu.arch, presets[i].arch);
		assert_int_equal(hwbp_caps_get(&cpu, &caps), 0);
		if (caps.data_slots != presets[i].data || caps.inst_slots != presets[i].inst ||
		    caps.shared != presets[i].shared || caps.max_piece != presets[i].max_piece)
			fail_msg("%s (%s): %u data, %u inst, shared %d, max %llu", presets[i].name,
				 presets[i].source, caps.data_slots, caps.inst_slots, caps.shared,
				 (unsigned long long)caps.max_piece);
		for (unsigned k = 0; hwbp_cpu_preset_name(k); k++)
			listed |= strcmp(hwbp_cpu_preset_name(k), presets[i].name) == 0;
		assert_true(listed);
	}
}

static void test_preset_errors(void **state)
{
	struct hwbp_cpu cpu, before;

	(void)state;
	memset(&cpu, 0x5a, sizeof(cpu));
	before = cpu;
	assert_int_equal(hwbp_cpu_preset("pentium-pro", &cpu), -ENOENT);
	assert_int_equal(hwbp_cpu_preset("", &cpu), -ENOENT);
	assert_memory_equal(&cpu, &before, sizeof(cpu));
	assert_int_equal(hwbp_cpu_preset(NULL, &cpu), -EINVAL);
	assert_int_equal(hwbp_cpu_preset("x86_64", NULL), -EINVAL);
	assert_null(hwbp_cpu_preset_name(1000));
}

/* ID_AA64DFR0_EL1 (Arm ARM D19.2): BRPs [15:12] and WRPs [23:20] minus one. */
static void test_arm64_dfr0(void **state)
{
	static const struct {
		uint64_t dfr0;
		int err;
		unsigned bp, wp;
	} rows[] = {
		{ 0x10305106, 0, 6, 4 },   /* Cortex-A57/A53 */
		{ 0x00101006, 0, 2, 2 },   /* architectural minimum: 2 and 2 */
		{ 0x10f0f006, 0, 16, 16 },
		{ 0x10305108, 0, 6, 4 },   /* Armv8.2 debug */
		{ 0x10305105, -EINVAL, 0, 0 }, /* Armv7.1 debug: not an arm64 unit */
		{ 0x10305100, -EINVAL, 0, 0 },
		{ 0x10f0f00b, -EOPNOTSUPP, 0, 0 }, /* v8.9: 0xf may mean "more in DFR1" */
	};

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct hwbp_cpu cpu;
		struct hwbp_caps caps;

		assert_int_equal(hwbp_cpu_arm64_from_dfr0(rows[i].dfr0, &cpu), rows[i].err);
		if (rows[i].err)
			continue;
		assert_int_equal(hwbp_caps_get(&cpu, &caps), 0);
		assert_int_equal(caps.inst_slots, rows[i].bp);
		assert_int_equal(caps.data_slots, rows[i].wp);
	}
	assert_int_equal(hwbp_cpu_arm64_from_dfr0(0x10305106, NULL), -EINVAL);
}

/* The capability query answers "which types" without #ifdef. */
static void test_types(void **state)
{
	static const struct {
		const char *cpu;
		unsigned type;
		bool ok;
	} rows[] = {
		{ "x86_64", HWBP_R, false },  /* SDM §17.2.4: no read-only */
		{ "x86_64", HWBP_W, true },
		{ "x86_64", HWBP_RW, true },
		{ "x86_64", HWBP_X, true },
		{ "cortex-a57", HWBP_R, true },  /* LSC=01 */
		{ "cortex-a57", HWBP_X, true },
		{ "power7", HWBP_R, true },
		{ "power7", HWBP_X, false },  /* no CIABR */
		{ "power9", HWBP_X, true },
		{ "x86_64", 0, false },
		{ "x86_64", 9, false },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		struct hwbp_cpu cpu;

		assert_int_equal(hwbp_cpu_preset(rows[i].cpu, &cpu), 0);
		if (hwbp_type_supported(&cpu, rows[i].type) != rows[i].ok)
			fail_msg("row %zu: %s type %u", i, rows[i].cpu, rows[i].type);
	}
	assert_false(hwbp_type_supported(NULL, HWBP_W));
}

static void test_caps_facts(void **state)
{
	struct hwbp_cpu cpu;
	struct hwbp_caps c;

	(void)state;
	/* x86: data breakpoints trap after the access, instruction
	 * breakpoints fault before (SDM §17.3.1.1/§17.3.1.2); DR6 names
	 * the slot, not the address. */
	hwbp_cpu_preset("x86_64", &cpu);
	hwbp_caps_get(&cpu, &c);
	assert_int_equal(c.data_timing, HWBP_TIMING_AFTER);
	assert_int_equal(c.inst_timing, HWBP_TIMING_BEFORE);
	assert_int_equal(c.precision, HWBP_ADDR_NONE);
	assert_false(c.kind_known);
	/* arm64: watchpoints before the access; FAR is a window. */
	hwbp_cpu_preset("cortex-a57", &cpu);
	hwbp_caps_get(&cpu, &c);
	assert_int_equal(c.data_timing, HWBP_TIMING_BEFORE);
	assert_int_equal(c.precision, HWBP_ADDR_WINDOW);
	assert_true(c.kind_known);
	assert_int_equal(c.inst_len, 4);
	/* powerpc: DSI before the access, DAR exact, 8-byte granule, 512-byte
	 * boundary before ISA 3.1 only. */
	hwbp_cpu_preset("power9", &cpu);
	hwbp_caps_get(&cpu, &c);
	assert_int_equal(c.data_timing, HWBP_TIMING_BEFORE);
	assert_int_equal(c.precision, HWBP_ADDR_EXACT);
	assert_true(c.granule == 8);
	assert_true(c.boundary == 512);
	hwbp_cpu_preset("power10", &cpu);
	hwbp_caps_get(&cpu, &c);
	assert_true(c.boundary == 0);
	assert_int_equal(hwbp_caps_get(NULL, &c), -EINVAL);
	assert_int_equal(hwbp_caps_get(&cpu, NULL), -EINVAL);
}

static void test_names(void **state)
{
	static const struct { const char *s; unsigned t; int err; } rows[] = {
		{ "r", HWBP_R, 0 }, { "w", HWBP_W, 0 }, { "rw", HWBP_RW, 0 }, { "x", HWBP_X, 0 },
		{ "RW", HWBP_RW, 0 }, { "wr", 0, -EINVAL }, { "", 0, -EINVAL }, { "rwx", 0, -EINVAL },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		unsigned t = 0;

		assert_int_equal(hwbp_type_parse(rows[i].s, &t), rows[i].err);
		if (!rows[i].err)
			assert_int_equal(t, rows[i].t);
	}
	assert_string_equal(hwbp_type_name(HWBP_RW), "RW");
	assert_string_equal(hwbp_type_name(99), "invalid");
	assert_string_equal(hwbp_errno_name(-ENOSPC), "ENOSPC");
	assert_string_equal(hwbp_errno_name(-EOPNOTSUPP), "EOPNOTSUPP");
	assert_string_equal(hwbp_errno_name(-EFAULT), "EFAULT");
	assert_string_equal(hwbp_errno_name(-ERANGE), "ERANGE");
	assert_string_equal(hwbp_arch_name(HWBP_ARCH_POWERPC), "powerpc");
	assert_int_equal(hwbp_type_parse(NULL, NULL), -EINVAL);
}

/* hwbp_parse_u64: the one number syntax (decimal, 0x hex, whole string). */
static void test_parse_u64(void **state)
{
	static const struct { const char *s; uint64_t v; int err; } rows[] = {
		{ "0", 0, 0 },
		{ "42", 42, 0 },
		{ "010", 10, 0 },                           /* not octal */
		{ "0x10", 16, 0 },
		{ "0XfF", 255, 0 },
		{ "18446744073709551615", UINT64_MAX, 0 },
		{ "0xffffffffffffffff", UINT64_MAX, 0 },
		{ "18446744073709551616", 0, -ERANGE },
		{ "0x10000000000000000", 0, -ERANGE },
		{ "", 0, -EINVAL },
		{ "0x", 0, -EINVAL },
		{ "-1", 0, -EINVAL },
		{ "+1", 0, -EINVAL },
		{ " 1", 0, -EINVAL },
		{ "1 ", 0, -EINVAL },
		{ "12a", 0, -EINVAL },                      /* hex digits need 0x */
		{ "0x1g", 0, -EINVAL },
		{ "1e3", 0, -EINVAL },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		uint64_t v = 7;
		int ret = hwbp_parse_u64(rows[i].s, &v);

		if (ret != rows[i].err)
			fail_msg("'%s': %d, want %d", rows[i].s, ret, rows[i].err);
		assert_int_equal(v, rows[i].err ? 7 : rows[i].v);   /* untouched on error */
	}
	assert_int_equal(hwbp_parse_u64(NULL, NULL), -EINVAL);
	assert_int_equal(hwbp_parse_u64("1", NULL), -EINVAL);
	/* Counted: only the @len bytes, whatever follows. */
	{
		static const struct { const char *s; size_t len; uint64_t v; int err; } n[] = {
			{ "12 34", 2, 12, 0 },
			{ "0x1fz", 4, 31, 0 },
			{ "0x10", 2, 0, -EINVAL },      /* "0x" */
			{ "0x10", 1, 0, 0 },            /* "0" */
			{ "5", 0, 0, -EINVAL },
			{ "1 2", 3, 0, -EINVAL },
		};

		for (size_t i = 0; i < sizeof(n) / sizeof(n[0]); i++) {
			uint64_t v = 7;

			assert_int_equal(hwbp_parse_u64n(n[i].s, n[i].len, &v), n[i].err);
			assert_int_equal(v, n[i].err ? 7 : n[i].v);
		}
		assert_int_equal(hwbp_parse_u64n(NULL, 1, &(uint64_t){ 0 }), -EINVAL);
	}
}

/* The version the headers say is the version the library reports. */
static void test_version(void **state)
{
	char want[32];

	(void)state;
	snprintf(want, sizeof(want), "%d.%d.%d", HWBP_VERSION_MAJOR, HWBP_VERSION_MINOR,
		 HWBP_VERSION_PATCH);
	assert_string_equal(hwbp_version(), want);
	assert_string_equal(hwbp_version(), HWBP_VERSION_STRING);
	assert_int_equal(HWBP_VERSION, (HWBP_VERSION_MAJOR << 16) | (HWBP_VERSION_MINOR << 8) |
				       HWBP_VERSION_PATCH);
}

/* Errors of the name/status helpers that do not depend on the arch. */
static void test_names_errors(void **state)
{
	struct hwbp_cpu cpu, bad;
	struct hwbp_status st;
	char buf[8];

	(void)state;
	assert_int_equal(hwbp_cpu_preset("x86_64", &cpu), 0);
	memset(&bad, 0, sizeof(bad));
	bad.arch = (enum hwbp_arch)7;
	memset(&st, 0, sizeof(st));
	const struct {
		const struct hwbp_cpu *cpu;
		bool inst;
		unsigned slot;
		size_t n;
		bool buf;
		int err;
		const char *why;
	} rows[] = {
		{ &cpu, false, 0, sizeof(buf), true, 0, "dr0 fits" },
		{ &cpu, false, 0, 4, true, 0, "exactly the NUL's room" },
		{ &cpu, false, 0, 3, true, -EINVAL, "one byte short" },
		{ &cpu, false, 0, 0, true, -EINVAL, "no room at all" },
		{ &cpu, false, 4, sizeof(buf), true, -EINVAL, "x86 has DR0-DR3 only" },
		{ &cpu, true, 4, sizeof(buf), true, -EINVAL, "the shared pool, for execute too" },
		{ &cpu, false, 0, sizeof(buf), false, -EINVAL, "NULL buffer" },
		{ NULL, false, 0, sizeof(buf), true, -EINVAL, "NULL CPU" },
		{ &bad, false, 0, sizeof(buf), true, -EINVAL, "unknown arch" },
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		memset(buf, 'x', sizeof(buf));
		if (hwbp_slot_name(rows[i].cpu, rows[i].inst, rows[i].slot,
				   rows[i].buf ? buf : NULL, rows[i].n) != rows[i].err)
			fail_msg("row %zu (%s)", i, rows[i].why);
		if (rows[i].err == 0)
			assert_string_equal(buf, "dr0");
		else if (rows[i].buf && rows[i].n > 0)
			assert_string_equal(buf, "");
	}

	/* "ip" is every arch's; unknown names and NULLs are errors. */
	assert_int_equal(hwbp_status_set(&cpu, &st, "ip", 0x401000), 0);
	assert_true(st.ip == 0x401000);
	assert_int_equal(hwbp_status_set(&cpu, &st, "esr", 1), -ENOENT);
	assert_int_equal(hwbp_status_set(&cpu, &st, "", 1), -ENOENT);
	assert_int_equal(hwbp_status_set(&cpu, &st, NULL, 1), -EINVAL);
	assert_int_equal(hwbp_status_set(&cpu, NULL, "ip", 1), -EINVAL);
	assert_int_equal(hwbp_status_set(NULL, &st, "ip", 1), -EINVAL);
	assert_int_equal(hwbp_status_set(&bad, &st, "ip", 1), -EINVAL);
	assert_null(hwbp_status_field(NULL, 0));
	assert_null(hwbp_status_field(&bad, 0));
	assert_string_equal(hwbp_status_hint(NULL), "");
	assert_string_equal(hwbp_status_hint(&bad), "");
}

/* Every arch lists its status fields, each settable, none of them "ip". */
static void test_status_fields(void **state)
{
	const char *name;

	(void)state;
	for (unsigned p = 0; (name = hwbp_cpu_preset_name(p)) != NULL; p++) {
		struct hwbp_cpu cpu;
		unsigned n = 0, events = 0;
		const char *f;

		assert_int_equal(hwbp_cpu_preset(name, &cpu), 0);
		for (unsigned i = 0; (f = hwbp_status_field(&cpu, i)) != NULL; i++) {
			struct hwbp_status st;
			int r;

			memset(&st, 0, sizeof(st));
			assert_string_not_equal(f, "ip");
			r = hwbp_status_set(&cpu, &st, f, 1);
			assert_true(r == 0 || r == 1);
			events += r == 1;
			n++;
		}
		/* At least one field says which event it is. */
		assert_true(n >= 1 && events >= 1);
		assert_true(strlen(hwbp_status_hint(&cpu)) > 0);
		assert_null(hwbp_status_field(&cpu, n + 1));
	}
}

/* Sizes and sentinels a kernel caller relies on. */
static void test_ctx_size(void **state)
{
	struct hwbp_request req = { 0x1000, 8, HWBP_W, HWBP_SCOPE_USER, 0 };
	struct hwbp_ctx *ctx;
	struct hwbp_cpu cpu;
	int id;

	(void)state;
	assert_int_equal(HWBP_CPU_ALL, -1);
	assert_int_equal(HWBP_CPU_TASK, -2);
	assert_int_equal(HWBP_CTX_SIZE, sizeof(struct hwbp_ctx));
	assert_int_equal(hwbp_ctx_size(0), sizeof(struct hwbp_ctx));
	assert_int_equal(hwbp_ctx_size(3), sizeof(struct hwbp_ctx) + 3 * sizeof(struct hwbp_slots));
	/* One allocation holds a context and its per-CPU array. */
	ctx = malloc(hwbp_ctx_size(3));
	assert_non_null(ctx);
	assert_int_equal(hwbp_cpu_preset("cortex-a57", &cpu), 0);
	assert_int_equal(hwbp_ctx_init(ctx, &cpu, 3, hwbp_ctx_percpu(ctx), NULL), 0);
	assert_int_equal(hwbp_install(ctx, &req, HWBP_CPU_ALL, NULL, &id), 0);
	assert_int_equal(ctx->req[id].cpu, HWBP_CPU_ALL);
	assert_int_equal(hwbp_free_slots(ctx, 2, NULL, false), 3);
	assert_int_equal(hwbp_remove(ctx, id), 0);
	free(ctx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_presets),
		cmocka_unit_test(test_preset_errors),
		cmocka_unit_test(test_arm64_dfr0),
		cmocka_unit_test(test_types),
		cmocka_unit_test(test_caps_facts),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_parse_u64),
		cmocka_unit_test(test_version),
		cmocka_unit_test(test_names_errors),
		cmocka_unit_test(test_status_fields),
		cmocka_unit_test(test_ctx_size),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
