/* SPDX-License-Identifier: MIT */
/*
 * Typed names (tracer/types/): the expression parser's forms and errors
 * (columns), and expressions walked over this test's own DWARF, against
 * the compiler's addresses of the same objects: members, elements,
 * anonymous members, pointers read through a reader over this process's
 * memory, casts, bitfields, and each error of the walk with its errno and
 * column, the closest members named.  The running kernel's BTF when it is
 * readable (else that test is skipped, with the reason).
 */
#define _GNU_SOURCE   /* dl_iterate_phdr */
#include <errno.h>
#include <link.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "types/types.h"

struct pair {
	int lo, hi;
};

struct holder {
	long id;
	struct pair pairs[3];
	union {
		int whole;
		unsigned char bytes[4];
	};
	unsigned flag : 1, mode : 5, rest : 10;
	struct holder *next;
	int grid[2][3];
};

struct holder types_obj = { .id = 1 };
struct holder types_other;
struct holder *types_ptr = &types_other;
struct holder *types_null;

/* ------------------------------------------------------------ parsing */

static void test_parse(void **state)
{
	struct hwbpi_expr e;
	const char *msg;
	unsigned col;

	(void)state;
	assert_int_equal(hwbpi_expr_parse("a.b[3]->c", &e, &col, &msg), 1);
	assert_string_equal(e.base, "a");
	assert_int_equal(e.nstep, 3);
	assert_int_equal(e.step[0].op, '.');
	assert_string_equal(e.step[0].name, "b");
	assert_int_equal(e.step[1].op, '[');
	assert_int_equal(e.step[1].index, 3);
	assert_int_equal(e.step[2].op, '>');
	assert_int_equal(e.step[2].col, 7);
	assert_int_equal(hwbpi_expr_parse("(struct net)init_net.ipv4", &e, &col, &msg), 1);
	assert_string_equal(e.cast, "struct net");
	assert_int_equal(e.cast_ptr, 0);
	assert_string_equal(e.base, "init_net");
	assert_int_equal(hwbpi_expr_parse("(struct task_struct **)0x1000->comm", &e, &col, &msg), 1);
	assert_int_equal(e.cast_ptr, 2);
	assert_string_equal(e.base, "");
	assert_int_equal(e.base_addr, 0x1000);
	assert_int_equal(hwbpi_expr_parse("app::Config::instance.x", &e, &col, &msg), 1);
	assert_string_equal(e.base, "app::Config::instance");
	/* plain names: the symbol table's */
	assert_int_equal(hwbpi_expr_parse("pid_max", &e, &col, &msg), 0);
	assert_int_equal(hwbpi_expr_parse("app::f(int)", &e, &col, &msg), 0);
	assert_int_equal(hwbpi_expr_parse("cf?", &e, &col, &msg), 0);
	/* errors, with their columns */
	assert_int_equal(hwbpi_expr_parse("a.", &e, &col, &msg), -EINVAL);
	assert_int_equal(col, 3);
	assert_int_equal(hwbpi_expr_parse("a[x]", &e, &col, &msg), -EINVAL);
	assert_int_equal(col, 3);
	assert_string_equal(msg, "an index is a number");
	assert_int_equal(hwbpi_expr_parse("a[1", &e, &col, &msg), -EINVAL);
	assert_int_equal(col, 4);
	assert_int_equal(hwbpi_expr_parse("(struct x", &e, &col, &msg), -EINVAL);
	assert_int_equal(hwbpi_expr_parse("(struct x)", &e, &col, &msg), -EINVAL);
	assert_int_equal(hwbpi_expr_parse("a->", &e, &col, &msg), -EINVAL);
	assert_int_equal(col, 4);
}

/* ------------------------------------------------------------ DWARF */

static int main_bias(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	*(uint64_t *)arg = info->dlpi_addr;   /* the first: the executable */
	return 1;
}

/* This process's memory, as a tracee's would be read. */
static int read_self(void *arg, uint64_t addr, void *buf, size_t len)
{
	(void)arg;
	if (addr < 4096)
		return -EFAULT;
	memcpy(buf, (const void *)(uintptr_t)addr, len);
	return 0;
}

struct fix {
	struct hwbpi_tsrc *src;
	struct hwbpi_tmem mem;
	char err[512];
};

static int setup(void **state)
{
	struct fix *f = calloc(1, sizeof(*f));
	uint64_t bias = 0;
	int err;

	dl_iterate_phdr(main_bias, &bias);
	f->src = hwbpi_tsrc_dwarf("/proc/self/exe", (int64_t)bias, &err);
	f->mem.read = read_self;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fix *f = *state;

	hwbpi_tsrc_free(f->src);
	free(f);
	return 0;
}

/* Resolve @text with its base at @base (0: by name); the result's code. */
static int walk(struct fix *f, const char *text, const void *base, struct hwbpi_tres *r)
{
	struct hwbpi_tbase b = { .addr = (uint64_t)(uintptr_t)base, .known = base != NULL,
				 .global = true };
	struct hwbpi_expr e;
	const char *msg;
	unsigned col;

	f->err[0] = '\0';
	assert_int_equal(hwbpi_expr_parse(text, &e, &col, &msg), 1);
	return hwbpi_types_resolve(f->src, &e, &b, &f->mem, r, f->err, sizeof(f->err));
}

#define ADDR(x) ((uint64_t)(uintptr_t)&(x))

static void test_dwarf_walk(void **state)
{
	struct fix *f = *state;
	struct hwbpi_tres r;

#ifndef HWBP_HAVE_LIBDW
	skip();
#endif
	assert_non_null(f->src);
	assert_int_equal(walk(f, "types_obj.pairs[2].hi", &types_obj, &r), 0);
	assert_int_equal(r.addr, ADDR(types_obj.pairs[2].hi));
	assert_int_equal(r.size, sizeof(int));
	assert_string_equal(r.type, "int");
	assert_int_equal(walk(f, "types_obj.pairs", &types_obj, &r), 0);
	assert_int_equal(r.size, sizeof(types_obj.pairs));
	assert_string_equal(r.type, "struct pair[3]");
	/* an anonymous union's members are the struct's */
	assert_int_equal(walk(f, "types_obj.bytes[3]", &types_obj, &r), 0);
	assert_int_equal(r.addr, ADDR(types_obj.bytes[3]));
	/* two dimensions */
	assert_int_equal(walk(f, "types_obj.grid[1][2]", &types_obj, &r), 0);
	assert_int_equal(r.addr, ADDR(types_obj.grid[1][2]));
	assert_int_equal(walk(f, "types_obj.grid[1]", &types_obj, &r), 0);
	assert_int_equal(r.size, sizeof(types_obj.grid[1]));
	/* a pointer, read once; the base found by name and address */
	assert_int_equal(walk(f, "types_ptr->pairs[1].lo", &types_ptr, &r), 0);
	assert_int_equal(r.addr, ADDR(types_other.pairs[1].lo));
	assert_int_equal(r.nread, 1);
	assert_int_equal(r.nsteps, 4);
	assert_true(r.step[1].read);
	assert_int_equal(r.step[1].value, ADDR(types_other));
	/* a pointer indexed */
	assert_int_equal(walk(f, "types_ptr[0].id", &types_ptr, &r), 0);
	assert_int_equal(r.addr, ADDR(types_other.id));
	/* the bitfield: the bytes holding bits 1..5 */
	assert_int_equal(walk(f, "types_obj.mode", &types_obj, &r), 0);
	assert_int_equal(r.bit_width, 5);
	assert_int_equal(r.bit_shift, 1);
	assert_int_equal(r.size, 1);
	assert_int_equal(walk(f, "types_obj.rest", &types_obj, &r), 0);
	assert_int_equal(r.bit_shift, 6);
	assert_int_equal(r.size, 2);
	/* casts: of a variable, of a number */
	assert_int_equal(walk(f, "(struct pair)types_obj.hi", &types_obj, &r), 0);
	assert_int_equal(r.addr, ADDR(types_obj) + offsetof(struct pair, hi));
	{
		char text[96];

		snprintf(text, sizeof(text), "(struct holder *)%#llx->next",
			 (unsigned long long)ADDR(types_other));
		assert_int_equal(walk(f, text, NULL, &r), 0);
		assert_int_equal(r.addr, ADDR(types_other.next));
		assert_int_equal(r.nread, 0);
	}
}

static void test_dwarf_errors(void **state)
{
	struct fix *f = *state;
	struct hwbpi_tres r;

#ifndef HWBP_HAVE_LIBDW
	skip();
#endif
	assert_int_equal(walk(f, "types_obj.pairs[1].hj", &types_obj, &r), -ENOENT);
	assert_string_equal(f->err, "column 20: struct pair has no member 'hj'; did you mean hi? "
			    "(ENOENT)");
	assert_int_equal(walk(f, "types_obj->id", &types_obj, &r), -EINVAL);
	assert_int_equal(walk(f, "types_ptr.id", &types_ptr, &r), -EINVAL);
	assert_int_equal(walk(f, "types_obj.pairs[3]", &types_obj, &r), -ERANGE);
	assert_string_equal(f->err, "column 17: index 3 past the bound of struct pair[3] (ERANGE)");
	assert_int_equal(walk(f, "types_obj.id[0]", &types_obj, &r), -EINVAL);
	assert_int_equal(walk(f, "types_null->id", &types_null, &r), -EFAULT);
	assert_string_equal(f->err, "column 11: types_null is NULL (EFAULT)");
	assert_int_equal(walk(f, "types_obj.mode.x", &types_obj, &r), -EINVAL);
	assert_int_equal(walk(f, "(struct nope)types_obj.x", &types_obj, &r), -ENOENT);
	/* a pointer with nothing to read it from */
	f->mem.read = NULL;
	f->mem.none = "a recording";
	assert_int_equal(walk(f, "types_ptr->id", &types_ptr, &r), -EOPNOTSUPP);
	assert_string_equal(f->err, "column 10: cannot read the pointer types_ptr: a recording "
			    "(EOPNOTSUPP)");
	f->mem.read = read_self;
	/* a variable no DWARF knows: the caller's to say */
	assert_int_equal(walk(f, "types_nothere.x", NULL, &r), -ENOENT);
	assert_string_equal(f->err, "");
}

/* ------------------------------------------------------------ BTF */

static void test_btf(void **state)
{
	struct hwbpi_tsrc *s;
	struct hwbpi_expr e;
	struct hwbpi_tbase b = { .addr = 0x1000, .known = true };
	struct hwbpi_tmem mem = { NULL, NULL, "none", NULL };
	struct hwbpi_tres r;
	const char *msg;
	char err[256];
	unsigned col;
	int ret;

	(void)state;
	s = hwbpi_tsrc_btf(NULL, &ret);
	if (!s) {
		printf("SKIP: no BTF to read (/sys/kernel/btf/vmlinux: %s)\n", hwbp_errno_name(ret));
		skip();
	}
	/* struct list_head { next, prev }: in every kernel's BTF */
	assert_int_equal(hwbpi_expr_parse("(struct list_head)x.prev", &e, &col, &msg), 1);
	assert_int_equal(hwbpi_types_resolve(s, &e, &b, &mem, &r, err, sizeof(err)), 0);
	assert_int_equal(r.addr, 0x1000 + s->ptr_size);
	assert_int_equal(r.size, s->ptr_size);
	assert_int_equal(hwbpi_expr_parse("(struct list_head)x.prv", &e, &col, &msg), 1);
	assert_int_equal(hwbpi_types_resolve(s, &e, &b, &mem, &r, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "did you mean prev?"));
	hwbpi_tsrc_free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test_setup_teardown(test_dwarf_walk, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dwarf_errors, setup, teardown),
		cmocka_unit_test(test_btf),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
