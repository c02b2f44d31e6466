/* SPDX-License-Identifier: MIT */
/*
 * Symbols by name (tracer/symbols/symbols_names.c): the name as the table has
 * it, its demangled C++ and Rust forms (with and without the parameter
 * list, with a template function's return type or without), overloads
 * refused with their names, files and versions around demangled names,
 * when the index of demangled names is built (never for a name the
 * table has, nor for one the fast path finds; the same answers with and
 * without it), and glob patterns (kinds, address order, aliases once).
 * A build without libiberty checks instead that every demangled lookup
 * misses and names stay as they are.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <hwbp/trace.h>

#include "symbols/demangle.h"
#include "symbols/symtab.h"
#include "symbols/symbols_int.h"

/* The table: mangled names (what c++ -O0 and rustc emit for these
 * declarations: checked by test_demangled_names), insertion order not
 * address order. */
static const struct row {
	const char *name;
	uint64_t addr, size;
	char type;
	const char *demangled;   /* as libiberty prints it */
} rows[] = {
	{ "_ZN3app4hitsE", 0x1000, 8, 'D', "app::hits" },
	{ "_ZN12_GLOBAL__N_17counterE", 0x1010, 4, 'd', "(anonymous namespace)::counter" },
	{ "_ZN3app4bumpEi", 0x2000, 16, 'T', "app::bump(int)" },
	{ "_ZN3app4bumpEd", 0x2010, 16, 'T', "app::bump(double)" },
	{ "_ZN3app7CounterpLEi", 0x2020, 16, 'T', "app::Counter::operator+=(int)" },
	{ "_ZN3app5storeIlEEvT_", 0x2030, 16, 'T', "void app::store<long>(long)" },
	{ "_ZN3app3FooC1Ev", 0x2040, 16, 'T', "app::Foo::Foo()" },
	{ "_ZN3app3FooC2Ev", 0x2040, 16, 'T', "app::Foo::Foo()" },
	{ "_Z4bumpi", 0x2050, 16, 'T', "bump(int)" },
	{ "_ZN3app4nameB5cxx11Ev", 0x2060, 16, 'T', "app::name[abi:cxx11]()" },
	{ "_ZN4core3fmt5write17h0123456789abcdefE", 0x2070, 16, 'T', "core::fmt::write" },
	{ "_ZN3app3maxEii", 0x2080, 16, 'T', "app::max(int, int)" },
	{ "_ZN3app3maxEll", 0x2090, 16, 'T', "app::max(long, long)" },
	{ "_ZN3app3maxEdd", 0x20a0, 16, 'T', "app::max(double, double)" },
	{ "_ZN3app3maxEff", 0x20b0, 16, 'T', "app::max(float, float)" },
	{ "_ZN3app5stats5readsE", 0x3010, 8, 'B', "app::stats::reads" },
	{ "_ZN3app5stats6writesE", 0x3000, 8, 'B', "app::stats::writes" },
	{ "_ZN3app5stats6errorsE", 0x3020, 8, 'b', "app::stats::errors" },
	{ "_ZN3app5stats5aliasE", 0x3000, 8, 'B', "app::stats::alias" },   /* = writes */
	{ "_ZN3app5stats4tickEv", 0x2100, 16, 'T', "app::stats::tick()" },
	{ "pid_max", 0x4000, 4, 'D', "pid_max" },
	{ "bump_count", 0x4008, 4, 'D', "bump_count" },
};
#define NROWS (sizeof(rows) / sizeof(rows[0]))

static struct hwbp_symtab *table(void)
{
	int err = 1;
	struct hwbp_symtab *t = hwbp_symtab_new(&err);

	assert_non_null(t);
	for (size_t i = 0; i < NROWS; i++)
		assert_int_equal(hwbp_symtab_add(t, rows[i].name, rows[i].addr, rows[i].size,
						 rows[i].type), 0);
	assert_int_equal(hwbp_symtab_finish(t), 0);
	return t;
}

/* The mangled names are what the demangler says they are. */
static void test_demangled_names(void **state)
{
	char buf[256];

	(void)state;
	for (size_t i = 0; i < NROWS; i++) {
		assert_int_equal(hwbpi_demangle(rows[i].name, buf, sizeof(buf)), 0);
		assert_string_equal(buf, hwbpi_demangle_available() ? rows[i].demangled :
					 rows[i].name);
	}
}

/* Lookups that find one symbol: the name, then its address. */
static void test_find(void **state)
{
	static const struct {
		const char *q;
		uint64_t addr;
	} finds[] = {
		{ "_ZN3app4hitsE", 0x1000 },              /* as the table has it */
		{ "app::hits", 0x1000 },                  /* a variable */
		{ "(anonymous namespace)::counter", 0x1010 },
		{ "app::bump(int)", 0x2000 },
		{ "app::bump(double)", 0x2010 },
		{ "app::Counter::operator+=(int)", 0x2020 },
		{ "app::Counter::operator+=", 0x2020 },   /* one function of that name */
		{ "void app::store<long>(long)", 0x2030 },/* as the outputs print it */
		{ "app::store<long>(long)", 0x2030 },     /* without the return type */
		{ "app::store<long>", 0x2030 },
		{ "app::Foo::Foo()", 0x2040 },            /* C1 and C2: one function */
		{ "app::Foo::Foo", 0x2040 },
		{ "bump(int)", 0x2050 },
		{ "bump", 0x2050 },                       /* a C-like name that misses */
		{ "app::name[abi:cxx11]()", 0x2060 },
		{ "app::name[abi:cxx11]", 0x2060 },
		{ "core::fmt::write", 0x2070 },           /* Rust: no hash */
		{ "app::max(float, float)", 0x20b0 },
		{ "app::stats::alias", 0x3000 },
		{ "pid_max", 0x4000 },
	};
	static const char *const misses[] = {
		"app::hit", "app::hits(int)", "app::bump(long)", "app::", "app", "ap::hits",
		"app::bump(int", "core::fmt::write::h0123456789abcdef", "long app::store<long>(long)x",
		"", "app::store",
	};
	struct hwbp_symtab *t = table();
	bool dm = hwbpi_demangle_available();

	(void)state;
	/* Each name twice: on a table of its own, where the lookup may take
	 * the fast path (only the symbols spelling its identifier
	 * demangled), and on @t once its index exists: the same answer. */
	assert_null(hwbp_symtab_find(t, "no::such"));
	assert_true(hwbpi_symtab_demangled_built(t) == dm);
	for (size_t i = 0; i < sizeof(finds) / sizeof(finds[0]); i++) {
		struct hwbp_symtab *own = table();
		const struct hwbp_sym *s = hwbp_symtab_find(own, finds[i].q);
		const struct hwbp_sym *x = hwbp_symtab_find(t, finds[i].q);
		bool raw = !strcmp(finds[i].q, "_ZN3app4hitsE") || !strcmp(finds[i].q, "pid_max");

		if (!dm && !raw) {
			assert_null(s);
			assert_null(x);
			hwbp_symtab_free(own);
			continue;
		}
		if (!s || s->addr != finds[i].addr || !x || strcmp(x->name, s->name))
			print_error("'%s': %s, with the index %s\n", finds[i].q, s ? s->name : "(none)",
				    x ? x->name : "(none)");
		assert_non_null(s);
		assert_true(s->addr == finds[i].addr);
		assert_non_null(x);
		assert_string_equal(x->name, s->name);
		hwbp_symtab_free(own);
	}
	/* C1 was added first: it is the one found. */
	if (dm)
		assert_string_equal(hwbp_symtab_find(t, "app::Foo::Foo")->name, "_ZN3app3FooC1Ev");
	for (size_t i = 0; i < sizeof(misses) / sizeof(misses[0]); i++) {
		const struct hwbp_sym *s = NULL;

		if (hwbp_symtab_find(t, misses[i]))
			print_error("'%s' found\n", misses[i]);
		assert_null(hwbp_symtab_find(t, misses[i]));
		assert_int_equal(hwbpi_symtab_resolve(t, misses[i], &s, NULL), -ENOENT);
		assert_null(s);
	}
	hwbp_symtab_free(t);
}

/* Overloads: refused, with their names in address order. */
static void test_overloads(void **state)
{
	struct hwbp_symtab *t = table();
	struct hwbpi_symtab_amb amb;
	const struct hwbp_sym *s = NULL;

	(void)state;
	if (!hwbpi_demangle_available()) {
		assert_int_equal(hwbpi_symtab_resolve(t, "app::bump", &s, &amb), -ENOENT);
		assert_int_equal(amb.n, 0);
		hwbp_symtab_free(t);
		return;
	}
	assert_null(hwbp_symtab_find(t, "app::bump"));
	assert_int_equal(hwbpi_symtab_resolve(t, "app::bump", &s, &amb), -EINVAL);
	assert_null(s);
	assert_int_equal(amb.n, 2);
	assert_string_equal(amb.name[0], "app::bump(int)");
	assert_string_equal(amb.name[1], "app::bump(double)");
	/* Four: the first three named. */
	assert_int_equal(hwbpi_symtab_resolve(t, "app::max", &s, &amb), -EINVAL);
	assert_int_equal(amb.n, 4);
	assert_string_equal(amb.name[0], "app::max(int, int)");
	assert_string_equal(amb.name[1], "app::max(long, long)");
	assert_string_equal(amb.name[2], "app::max(double, double)");
	/* NULL @amb is fine; a found name clears it. */
	assert_int_equal(hwbpi_symtab_resolve(t, "app::max", &s, NULL), -EINVAL);
	assert_int_equal(hwbpi_symtab_resolve(t, "app::bump(int)", &s, &amb), 0);
	assert_int_equal(amb.n, 0);
	assert_true(s->addr == 0x2000);
	/* Bad arguments. */
	assert_int_equal(hwbpi_symtab_resolve(NULL, "x", &s, &amb), -EINVAL);
	assert_int_equal(hwbpi_symtab_resolve(t, NULL, &s, &amb), -EINVAL);
	assert_int_equal(hwbpi_symtab_resolve(t, "x", NULL, &amb), -EINVAL);
	hwbp_symtab_free(t);
}

/* The index is built by the first lookup the table's own names do not
 * answer, never at load or finish. */
static void test_lazy(void **state)
{
	struct hwbp_symtab *t = table();

	(void)state;
	assert_false(hwbpi_symtab_demangled_built(t));
	assert_non_null(hwbp_symtab_find(t, "pid_max"));
	assert_non_null(hwbp_symtab_find(t, "_ZN3app4hitsE"));
	assert_non_null(hwbp_symtab_func(t, 0x2004));
	assert_false(hwbpi_symtab_demangled_built(t));
	/* A raw pattern needs no demangled names either. */
	assert_int_equal(hwbpi_symtab_glob(t, "pid_*", HWBPI_SYM_DATA, NULL, NULL, 0), 1);
	assert_false(hwbpi_symtab_demangled_built(t));
	/* A name whose own identifier its manglings spell: only the few
	 * symbols spelling it are demangled, no index. */
	assert_true(!hwbp_symtab_find(t, "app::hits") == !hwbpi_demangle_available());
	assert_true(!hwbp_symtab_find(t, "app::bump(int)") == !hwbpi_demangle_available());
	assert_true(!hwbp_symtab_find(t, "app::store<long>") == !hwbpi_demangle_available());
	assert_false(hwbpi_symtab_demangled_built(t));
	/* Overloads are named by the index. */
	assert_null(hwbp_symtab_find(t, "app::bump"));
	assert_true(hwbpi_symtab_demangled_built(t) == hwbpi_demangle_available());
	hwbp_symtab_free(t);
	/* So is an operator (no identifier), and a constructor (its class
	 * may be an abbreviation: std::allocator is "Sa"). */
	t = table();
	assert_true(!hwbp_symtab_find(t, "app::Counter::operator+=") == !hwbpi_demangle_available());
	assert_true(hwbpi_symtab_demangled_built(t) == hwbpi_demangle_available());
	hwbp_symtab_free(t);
	t = table();
	assert_true(!hwbp_symtab_find(t, "app::Foo::Foo()") == !hwbpi_demangle_available());
	assert_true(hwbpi_symtab_demangled_built(t) == hwbpi_demangle_available());
	hwbp_symtab_free(t);
	/* A plain name that misses builds it too (it may be a C++ function's). */
	t = table();
	assert_null(hwbp_symtab_find(t, "no_such_symbol"));
	assert_true(hwbpi_symtab_demangled_built(t) == hwbpi_demangle_available());
	hwbp_symtab_free(t);
	assert_false(hwbpi_symtab_demangled_built(NULL));
}

/* Files and versions around demangled names: two files with app::hits
 * (the first added wins), one with a version. */
static void test_qualified(void **state)
{
	int err;
	struct hwbp_symtab *t = hwbp_symtab_new(&err);
	struct mark m;

	(void)state;
	assert_non_null(t);
	m = hwbpi_symtab_mark_of(t);
	assert_int_equal(hwbp_symtab_add(t, "_ZN3app4hitsE", 0x1000, 8, 'B'), 0);
	assert_int_equal(hwbpi_symtab_add_obj(t, m, "/usr/bin/prog", NULL), 0);
	m = hwbpi_symtab_mark_of(t);
	assert_int_equal(hwbpi_symtab_add_v(t, "_ZN3app4hitsE", 13, "V2", 2, 0x9000, 8, 'D', false),
			 0);
	assert_int_equal(hwbp_symtab_add(t, "_ZN3app4bumpEi", 0x9100, 16, 'T'), 0);
	assert_int_equal(hwbpi_symtab_add_obj(t, m, "/lib/libapp.so.1", "libapp.so.1"), 0);
	assert_int_equal(hwbp_symtab_finish(t), 0);
	if (!hwbpi_demangle_available()) {
		assert_null(hwbp_symtab_find(t, "app::hits"));
		assert_null(hwbp_symtab_find(t, "libapp.so.1:app::hits"));
		assert_true(hwbp_symtab_find(t, "libapp.so.1:_ZN3app4hitsE")->addr == 0x9000);
		hwbp_symtab_free(t);
		return;
	}
	assert_true(hwbp_symtab_find(t, "app::hits")->addr == 0x1000);
	assert_true(hwbp_symtab_find(t, "libapp.so.1:app::hits")->addr == 0x9000);
	assert_true(hwbp_symtab_find(t, "/lib/libapp.so.1:app::hits")->addr == 0x9000);
	assert_true(hwbp_symtab_find(t, "app::hits@libapp.so.1")->addr == 0x9000);
	assert_true(hwbp_symtab_find(t, "prog:app::hits")->addr == 0x1000);
	assert_true(hwbp_symtab_find(t, "app::hits@V2")->addr == 0x9000);
	assert_true(hwbp_symtab_find(t, "app::hits@@V2")->addr == 0x9000);
	assert_true(hwbp_symtab_find(t, "libapp.so.1:app::hits@V2")->addr == 0x9000);
	assert_true(hwbp_symtab_find(t, "libapp.so.1:app::bump")->addr == 0x9100);
	assert_null(hwbp_symtab_find(t, "prog:app::bump"));
	assert_null(hwbp_symtab_find(t, "prog:app::hits@V2"));
	assert_null(hwbp_symtab_find(t, "app::hits@V3"));
	assert_null(hwbp_symtab_find(t, "libx.so:app::hits"));
	assert_null(hwbp_symtab_find(t, "prog:app::hits@libapp.so.1"));  /* two files */
	assert_null(hwbp_symtab_find(t, "app::hits@"));
	assert_null(hwbp_symtab_find(t, ":app::hits"));
	hwbp_symtab_free(t);
}

/* Patterns: matches in address order, one per address, of the kinds
 * asked; "::" patterns against demangled names, others raw. */
static void test_glob(void **state)
{
	struct hwbp_symtab *t = table();
	const struct hwbp_sym *m[8];
	const char *name[8];
	bool dm = hwbpi_demangle_available();

	(void)state;
	/* writes and alias share 0x3000: writes was added first. */
	assert_int_equal(hwbpi_symtab_glob(t, "_ZN3app5stats*", HWBPI_SYM_DATA, m, name, 8), 3);
	assert_string_equal(name[0], "_ZN3app5stats6writesE");
	assert_string_equal(name[1], "_ZN3app5stats5readsE");
	assert_string_equal(name[2], "_ZN3app5stats6errorsE");
	assert_true(m[0]->addr == 0x3000 && m[1]->addr == 0x3010 && m[2]->addr == 0x3020);
	/* Functions only when asked for. */
	assert_int_equal(hwbpi_symtab_glob(t, "_ZN3app5stats*", HWBPI_SYM_FUNC, m, name, 8), 1);
	assert_string_equal(name[0], "_ZN3app5stats4tickEv");
	assert_int_equal(hwbpi_symtab_glob(t, "_ZN3app5stats*", HWBPI_SYM_DATA | HWBPI_SYM_FUNC, m,
					   name, 8), 4);
	assert_string_equal(name[0], "_ZN3app5stats4tickEv");  /* 0x2100 first */
	/* More matches than room: the count, the first ones. */
	assert_int_equal(hwbpi_symtab_glob(t, "_ZN3app5stats*", HWBPI_SYM_DATA, m, name, 2), 3);
	assert_string_equal(name[1], "_ZN3app5stats5readsE");
	assert_int_equal(hwbpi_symtab_glob(t, "*_*", HWBPI_SYM_DATA, NULL, NULL, 0), 7);
	assert_int_equal(hwbpi_symtab_glob(t, "[bp]*", HWBPI_SYM_DATA, m, name, 8), 2);
	assert_string_equal(name[0], "pid_max");
	assert_int_equal(hwbpi_symtab_glob(t, "zz*", HWBPI_SYM_DATA, m, name, 8), 0);
	/* Demangled. */
	assert_int_equal(hwbpi_symtab_glob(t, "app::stats::*", HWBPI_SYM_DATA, m, name, 8),
			 dm ? 3 : 0);
	if (dm) {
		assert_string_equal(name[0], "app::stats::writes");
		assert_string_equal(name[1], "app::stats::reads");
		assert_string_equal(name[2], "app::stats::errors");
		assert_int_equal(hwbpi_symtab_glob(t, "app::bump(*)", HWBPI_SYM_FUNC, m, name, 8), 2);
		assert_string_equal(name[1], "app::bump(double)");
		/* Past the return type: "app::store<long>(long)". */
		assert_int_equal(hwbpi_symtab_glob(t, "app::sto*", HWBPI_SYM_FUNC, m, name, 8), 1);
		assert_string_equal(name[0], "app::store<long>(long)");
		/* Escaped brackets are the name's own. */
		assert_int_equal(hwbpi_symtab_glob(t, "app::name\\[abi:cxx11\\]*", HWBPI_SYM_FUNC, m,
						   name, 8), 1);
		assert_int_equal(hwbpi_symtab_glob(t, "app::*", HWBPI_SYM_DATA, m, name, 8), 4);
		assert_string_equal(name[0], "app::hits");
		/* C names are their own demangled names. */
		assert_int_equal(hwbpi_symtab_glob(t, "*::*", HWBPI_SYM_DATA, NULL, NULL, 0), 5);
	}
	/* Bad arguments. */
	assert_int_equal(hwbpi_symtab_glob(NULL, "*", HWBPI_SYM_DATA, m, name, 8), -EINVAL);
	assert_int_equal(hwbpi_symtab_glob(t, NULL, HWBPI_SYM_DATA, m, name, 8), -EINVAL);
	assert_int_equal(hwbpi_symtab_glob(t, "", HWBPI_SYM_DATA, m, name, 8), -EINVAL);
	assert_int_equal(hwbpi_symtab_glob(t, "x*", HWBPI_SYM_DATA, NULL, name, 8), -EINVAL);
	hwbp_symtab_free(t);
}

/* Lookups from several threads at once: the index is built once
 * (whoever loses the race frees its copy), every answer is right. */
struct racer {
	const struct hwbp_symtab *t;
	int ok;
};

static void *race(void *arg)
{
	struct racer *r = arg;
	struct hwbpi_symtab_amb amb;
	const struct hwbp_sym *s = NULL;
	/* Overloads: the index is built (by one of the racers) to name them. */
	int ret = hwbpi_symtab_resolve(r->t, "app::max", &s, &amb);

	if (hwbpi_demangle_available())
		r->ok = ret == -EINVAL && amb.n == 4 && !strcmp(amb.name[2], "app::max(double, double)") &&
			(s = hwbp_symtab_find(r->t, "app::bump(double)")) && s->addr == 0x2010;
	else
		r->ok = ret == -ENOENT && !hwbp_symtab_find(r->t, "app::bump(double)");
	return NULL;
}

static void test_threads(void **state)
{
	struct hwbp_symtab *t = table();
	struct racer r[4];
	pthread_t th[4];

	(void)state;
	for (int i = 0; i < 4; i++) {
		r[i].t = t;
		r[i].ok = 0;
		assert_int_equal(pthread_create(&th[i], NULL, race, &r[i]), 0);
	}
	for (int i = 0; i < 4; i++) {
		assert_int_equal(pthread_join(th[i], NULL), 0);
		assert_int_equal(r[i].ok, 1);
	}
	assert_true(hwbpi_symtab_demangled_built(t) == hwbpi_demangle_available());
	hwbp_symtab_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_demangled_names),
		cmocka_unit_test(test_find),
		cmocka_unit_test(test_overloads),
		cmocka_unit_test(test_lazy),
		cmocka_unit_test(test_qualified),
		cmocka_unit_test(test_glob),
		cmocka_unit_test(test_threads),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
