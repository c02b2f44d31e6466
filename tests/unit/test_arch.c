/* SPDX-License-Identifier: MIT */
/*
 * generic/arch.c: the entry points every arch answers through its ops
 * table, for names a program prints or parses: hwbp_slot_name(),
 * hwbp_status_set(), hwbp_status_field(), hwbp_status_hint().  One table of
 * rows over the presets of all three arches, each with its source.  And
 * generic/errname.c: hwbp_errno_name() against glibc's strerrorname_np().
 */
#define _GNU_SOURCE /* strerrorname_np */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <hwbp/hwbp.h>

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const struct slot_name_row {
	const char *cpu;
	bool inst;
	unsigned slot;
	const char *name;   /* NULL: -EINVAL */
	const char *source;
} slot_name_rows[] = {
	/* x86 */
	{ "x86_64", false, 0, "dr0", "SDM Vol.3 §17.2.1: DR0" },
	{ "x86_64", false, 3, "dr3", "DR3, the last address register" },
	{ "x86_64", true, 2, "dr2", "execute breakpoints use the same DR0-DR3" },
	{ "i386", true, 3, "dr3", "the same four in 32-bit mode" },
	{ "x86_64", false, 4, NULL, "no DR4 address register (alias of DR6)" },
	{ "x86_64-amd", true, 4, NULL, "the AMD mask extension adds no slot" },
	/* arm64 */
	{ "cortex-a57", false, 0, "wp0", "DBGWVR0/DBGWCR0" },
	{ "cortex-a57", false, 3, "wp3", "A57 TRM: 4 watchpoints" },
	{ "cortex-a57", false, 4, NULL, "no fifth watchpoint" },
	{ "cortex-a57", true, 5, "bp5", "A57 TRM: 6 breakpoints" },
	{ "cortex-a57", true, 6, NULL, "no seventh breakpoint" },
	{ "arm64-max16", true, 15, "bp15", "BRPs = 15: 16 breakpoints" },
	{ "arm64-max16", false, 15, "wp15", "WRPs = 15: 16 watchpoints" },
	{ "arm64-max16", false, 16, NULL, "past the 4-bit field" },
	/* powerpc */
	{ "power7", false, 0, "dabr", "Power ISA 2.06: one DABR" },
	{ "power7", false, 1, NULL, "no second data unit" },
	{ "power7", true, 0, NULL, "no CIABR before 2.07" },
	{ "power8", false, 0, "dawr0", "Power ISA 2.07: DAWR0" },
	{ "power8", true, 0, "ciabr", "Power ISA 2.07: CIABR" },
	{ "power9", false, 1, NULL, "one DAWR before 3.1" },
	{ "power10", false, 1, "dawr1", "Power ISA 3.1: DAWR1" },
	{ "power10", true, 1, NULL, "one CIABR" },
};

static void test_slot_names(void **state)
{
	(void)state;
	for (size_t i = 0; i < N(slot_name_rows); i++) {
		const struct slot_name_row *r = &slot_name_rows[i];
		struct hwbp_cpu cpu;
		char buf[16];
		int ret;

		assert_int_equal(hwbp_cpu_preset(r->cpu, &cpu), 0);
		ret = hwbp_slot_name(&cpu, r->inst, r->slot, buf, sizeof(buf));
		if (ret != (r->name ? 0 : -EINVAL) || (r->name && strcmp(buf, r->name) != 0))
			fail_msg("row %zu (%s %s %u, %s): got %d \"%s\"", i, r->cpu,
				 r->inst ? "inst" : "data", r->slot, r->source, ret, ret ? "" : buf);
		/* A buffer one byte short of the name and its NUL fails, and
		 * leaves "" (callers compare names). */
		if (r->name) {
			assert_int_equal(hwbp_slot_name(&cpu, r->inst, r->slot, buf, strlen(r->name)),
					 -EINVAL);
			assert_string_equal(buf, "");
		}
	}
	assert_int_equal(hwbp_slot_name(NULL, false, 0, (char[8]){ 0 }, 8), -EINVAL);
}

static const struct status_field_row {
	const char *cpu;
	const char *field;
	uint64_t value;
	int ret;            /* 1 event field, 0 auxiliary, -ENOENT */
	struct hwbp_status want;
	const char *source;
} status_field_rows[] = {
	/* x86 */
	{ "x86_64", "dr6", 0xffff0ff1, 1, { .u.x86.dr6 = 0xffff0ff1 }, "SDM §17.2.3: DR6 B0" },
	{ "i386", "dr6", 0x4, 1, { .u.x86.dr6 = 0x4 }, "DR6 alone names the slot" },
	{ "x86_64", "ip", 0x401000, 0, { .ip = 0x401000 }, "the trapping instruction" },
	{ "x86_64", "dr7", 1, -ENOENT, { 0 }, "DR7 is control, not status" },
	{ "x86_64", "esr", 1, -ENOENT, { 0 }, "arm64's field" },
	{ "x86_64", "DR6", 1, -ENOENT, { 0 }, "names are lower case" },
	/* arm64 */
	{ "cortex-a57", "esr", 0xd4000022, 1, { .u.arm64.esr = 0xd4000022 }, "EC 0x35: watchpoint, same EL" },
	{ "cortex-a53", "far", 0x1000, 0, { .u.arm64.far = 0x1000 }, "FAR: address, not the event" },
	{ "cortex-a57", "ip", 0x400000, 0, { .ip = 0x400000 }, "ELR" },
	{ "cortex-a57", "dr6", 1, -ENOENT, { 0 }, "x86's field" },
	{ "cortex-a57", "elr", 1, -ENOENT, { 0 }, "ELR is given as ip" },
	/* powerpc */
	{ "power9", "vector", 0x300, 1, { .u.ppc.vector = 0x300 }, "DSI" },
	{ "power9", "vector", 0xd00, 1, { .u.ppc.vector = 0xd00 }, "trace (CIABR)" },
	{ "power9", "dsisr", 0x00400000, 1, { .u.ppc.vector = 0x300, .u.ppc.dsisr = 0x00400000 }, "DSISR implies a DSI" },
	{ "power7", "dar", 0x1000, 1, { .u.ppc.vector = 0x300, .u.ppc.dar = 0x1000 }, "so does DAR" },
	{ "power10", "srr1", 0x00100000, 0, { .u.ppc.srr1 = 0x00100000 }, "SRR1[43] only qualifies a trace" },
	{ "power10", "ip", 0x10000, 0, { .ip = 0x10000 }, "SIAR/SRR0" },
	{ "power9", "esr", 1, -ENOENT, { 0 }, "arm64's field" },
	{ "power9", "srr0", 1, -ENOENT, { 0 }, "SRR0 is given as ip" },
};

static void test_status_set(void **state)
{
	(void)state;
	for (size_t i = 0; i < N(status_field_rows); i++) {
		const struct status_field_row *r = &status_field_rows[i];
		struct hwbp_cpu cpu;
		struct hwbp_status st;

		assert_int_equal(hwbp_cpu_preset(r->cpu, &cpu), 0);
		memset(&st, 0, sizeof(st));
		if (hwbp_status_set(&cpu, &st, r->field, r->value) != r->ret)
			fail_msg("row %zu (%s %s): %s", i, r->cpu, r->field, r->source);
		assert_memory_equal(&st, &r->want, sizeof(st));
	}
}

/* powerpc: dsisr/dar imply a DSI only while no vector is set, so a vector
 * given first stays. */
static void test_status_order(void **state)
{
	struct hwbp_cpu cpu;
	struct hwbp_status st;

	(void)state;
	assert_int_equal(hwbp_cpu_preset("power9", &cpu), 0);
	memset(&st, 0, sizeof(st));
	assert_int_equal(hwbp_status_set(&cpu, &st, "vector", 0xd00), 1);
	assert_int_equal(hwbp_status_set(&cpu, &st, "dar", 0x2000), 1);
	assert_true(st.u.ppc.vector == 0xd00 && st.u.ppc.dar == 0x2000);
}

/* Each arch's status fields, in order, and the hint for messages. */
static const struct field_list_row {
	const char *cpu;
	const char *fields[5];   /* NULL-terminated */
	const char *hint;
} field_list_rows[] = {
	{ "x86_64", { "dr6", NULL }, "dr6" },
	{ "i386", { "dr6", NULL }, "dr6" },
	{ "cortex-a57", { "esr", "far", NULL }, "esr (and far)" },
	{ "power9", { "vector", "dsisr", "dar", "srr1", NULL }, "dsisr and dar" },
	{ "power7", { "vector", "dsisr", "dar", "srr1", NULL }, "dsisr and dar" },
};

static void test_status_fields(void **state)
{
	(void)state;
	for (size_t i = 0; i < N(field_list_rows); i++) {
		const struct field_list_row *r = &field_list_rows[i];
		struct hwbp_cpu cpu;
		unsigned k;

		assert_int_equal(hwbp_cpu_preset(r->cpu, &cpu), 0);
		for (k = 0; r->fields[k]; k++)
			assert_string_equal(hwbp_status_field(&cpu, k), r->fields[k]);
		assert_null(hwbp_status_field(&cpu, k));
		assert_string_equal(hwbp_status_hint(&cpu), r->hint);
	}
}

static const struct errname_row {
	int err;
	const char *name;
} errname_rows[] = {
	{ 0, "OK" },
	{ -EINVAL, "EINVAL" },
	{ EINVAL, "EINVAL" },          /* the sign is ignored */
	{ -ENOSPC, "ENOSPC" },
	{ -EACCES, "EACCES" },         /* beyond what the core returns */
	{ -EISDIR, "EISDIR" },
	{ -ESRCH, "ESRCH" },
	{ -EAGAIN, "EAGAIN" },         /* not EWOULDBLOCK */
	{ -EOPNOTSUPP, "EOPNOTSUPP" }, /* not ENOTSUP */
	{ -EDEADLK, "EDEADLK" },       /* not EDEADLOCK */
	{ -4095, "EUNKNOWN" },
};

static void test_errno_names(void **state)
{
	(void)state;
	for (size_t i = 0; i < N(errname_rows); i++)
		assert_string_equal(hwbp_errno_name(errname_rows[i].err), errname_rows[i].name);
	/* Every errno glibc names, named alike (and none it does not). */
	for (int e = 1; e < 512; e++) {
		const char *want = strerrorname_np(e);

		/* powerpc's EDEADLOCK (58, its own value there) is one glibc
		 * 2.36's strerrorname_np() leaves unnamed; hwbp names it. */
		if (!want && e == EDEADLOCK && EDEADLOCK != EDEADLK)
			want = "EDEADLOCK";

		if (strcmp(hwbp_errno_name(-e), want ? want : "EUNKNOWN") != 0)
			fail_msg("errno %d: hwbp says %s, glibc %s", e, hwbp_errno_name(-e),
				 want ? want : "(none)");
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_slot_names),
		cmocka_unit_test(test_status_set),
		cmocka_unit_test(test_status_order),
		cmocka_unit_test(test_status_fields),
		cmocka_unit_test(test_errno_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
