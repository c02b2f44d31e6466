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
#ifdef HWBP_HAVE_LIBBPF
#include <bpf/btf.h>
#endif

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
	/* C's integer types in several words, named as GCC's DWARF (and
	 * pahole's BTF) name them */
	static const char *const ints[][2] = {
		{ "(unsigned long)x", "long unsigned int" },
		{ "(long unsigned)x", "long unsigned int" },
		{ "(unsigned long long)x", "long long unsigned int" },
		{ "(long long int)x", "long long int" },
		{ "(short)x", "short int" },
		{ "(unsigned short int)x", "short unsigned int" },
		{ "(unsigned)x", "unsigned int" },
		{ "(signed char)x", "signed char" },
		{ "(unsigned char *)x", "unsigned char" },
		{ "(u64)x", "u64" },
		{ "(int)x", "int" },
	};
	for (size_t i = 0; i < sizeof(ints) / sizeof(ints[0]); i++) {
		assert_int_equal(hwbpi_expr_parse(ints[i][0], &e, &col, &msg), 1);
		assert_string_equal(e.cast, ints[i][1]);
		assert_string_equal(e.base, "x");
	}
	assert_int_equal(e.cast_ptr, 0);
	assert_int_equal(hwbpi_expr_parse("(unsigned long long long)x", &e, &col, &msg), -EINVAL);
	assert_int_equal(col, 2);
	assert_int_equal(hwbpi_expr_parse("(short long)x", &e, &col, &msg), -EINVAL);
	assert_int_equal(hwbpi_expr_parse("(my type)x", &e, &col, &msg), -EINVAL);
	assert_int_equal(col, 2);
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

#ifdef HWBP_HAVE_LIBBPF
/* @b's raw BTF into @path. */
static void write_btf(const struct btf *b, const char *path)
{
	uint32_t n;
	const void *raw = btf__raw_data(b, &n);
	FILE *f = fopen(path, "wb");

	assert_non_null(raw);
	assert_non_null(f);
	assert_int_equal(fwrite(raw, 1, n, f), n);
	assert_int_equal(fclose(f), 0);
}

/*
 * A module's own struct, in its BTF split on the kernel's (as
 * /sys/kernel/btf/<module> is): a cast to it is typed there, after
 * vmlinux's BTF has not got it; a type in neither is no source's.  Files
 * written by libbpf's writer into a directory laid out as
 * /sys/kernel/btf.
 */
static void test_btf_modules(void **state)
{
	char dir[] = "/tmp/hwbp-btf-XXXXXX", path[64], base_path[64];
	struct btf *base, *mod;
	struct hwbpi_typer *ty;
	struct hwbpi_tsrc *src;
	struct hwbpi_expr e;
	struct hwbpi_tbase b = { .addr = 0x1000, .known = true };
	struct hwbpi_tmem mem = { NULL, NULL, "none", NULL };
	struct hwbpi_tres r;
	const char *msg;
	char why[256] = "", err[256];
	unsigned col, pos = 0, seen = 0;
	uint64_t id;
	int i32, i64, st;

	(void)state;
	assert_non_null(mkdtemp(dir));
	/* vmlinux: int, long; the module: struct modstate { int a; long b; } */
	base = btf__new_empty();
	assert_non_null(base);
	i32 = btf__add_int(base, "int", 4, BTF_INT_SIGNED);
	i64 = btf__add_int(base, "long int", 8, BTF_INT_SIGNED);
	assert_true(i32 > 0 && i64 > 0);
	snprintf(base_path, sizeof(base_path), "%s/vmlinux", dir);
	write_btf(base, base_path);
	mod = btf__new_empty_split(base);
	assert_non_null(mod);
	st = btf__add_struct(mod, "modstate", 16);
	assert_true(st > 0);
	assert_int_equal(btf__add_field(mod, "a", i32, 0, 0), 0);
	assert_int_equal(btf__add_field(mod, "b", i64, 64, 0), 0);
	snprintf(path, sizeof(path), "%s/hwbp_mod", dir);
	write_btf(mod, path);

	ty = hwbpi_typer_new(&(struct hwbpi_typer_opts){ .kernel = true, .btf = base_path,
							.btf_dir = dir });
	assert_non_null(ty);
	assert_int_equal(hwbpi_expr_parse("(struct modstate)x.b", &e, &col, &msg), 1);
	/* vmlinux's BTF first, then the module's: the second has it */
	while ((src = hwbpi_typer_next(ty, 0, true, &pos, why, sizeof(why)))) {
		seen++;
		if (src->ops->find_type(src, e.cast, &id) == 0)
			break;
	}
	assert_non_null(src);
	assert_int_equal(seen, 2);
	assert_int_equal(hwbpi_types_resolve(src, &e, &b, &mem, &r, err, sizeof(err)), 0);
	assert_int_equal(r.addr, 0x1008);
	assert_int_equal(r.size, 8);
	assert_string_equal(r.type, "long int");
	/* past the last module: no more sources */
	assert_null(hwbpi_typer_next(ty, 0, true, &pos, why, sizeof(why)));
	/* not a cast: vmlinux's BTF alone */
	pos = seen = 0;
	while (hwbpi_typer_next(ty, 0, false, &pos, why, sizeof(why)))
		seen++;
	assert_int_equal(seen, 1);
	hwbpi_typer_free(ty);
	btf__free(mod);
	btf__free(base);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(unlink(base_path), 0);
	assert_int_equal(rmdir(dir), 0);
}
#endif

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test_setup_teardown(test_dwarf_walk, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dwarf_errors, setup, teardown),
		cmocka_unit_test(test_btf),
#ifdef HWBP_HAVE_LIBBPF
		cmocka_unit_test(test_btf_modules),
#endif
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
