/* SPDX-License-Identifier: MIT */
/*
 * The objects room (tracer/objects/): the entries' form and the release
 * point as users write them, and the table of objects: the same object
 * armed again, overflow when every entry is live, a released entry taken
 * by a newer object (counted), hits by function and kind with a full
 * list, the round robin over objects waiting for a slot, and the part of
 * each life spent in a slot (exact ns arithmetic).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "objects/objects.h"

static void test_parse(void **state)
{
	struct hwbpi_objspec o;
	const char *msg = "";
	unsigned col = 0;

	(void)state;
	assert_int_equal(hwbpi_objspec_parse("make_node():return->value", &o, &col, &msg), 1);
	assert_string_equal(o.arm.func, "make_node");
	assert_true(o.arm.ret);
	assert_string_equal(o.chain, "->value");
	assert_int_equal(hwbpi_objspec_parse("vfs_write(file)->f_pos", &o, &col, &msg), 1);
	assert_string_equal(o.arm.param, "file");
	assert_false(o.arm.ret);
	assert_int_equal(o.arm.col, 11);
	assert_string_equal(o.chain, "->f_pos");
	assert_int_equal(hwbpi_objspec_parse("ns::f(p)[2].x", &o, &col, &msg), 1);
	assert_string_equal(o.arm.func, "ns::f");
	assert_string_equal(o.chain, "[2].x");
	assert_int_equal(hwbpi_objspec_parse("f():return", &o, &col, &msg), 1);
	assert_string_equal(o.chain, "");
	/* Not this form: a plain name, an expression, a C++ name with more. */
	assert_int_equal(hwbpi_objspec_parse("pid_max", &o, &col, &msg), 0);
	assert_int_equal(hwbpi_objspec_parse("cfg->limits[2]", &o, &col, &msg), 0);
	assert_int_equal(hwbpi_objspec_parse("(struct net)init_net.x", &o, &col, &msg), 0);
	assert_int_equal(hwbpi_objspec_parse("f(int) const", &o, &col, &msg), 0);
	/* Malformed: each with its column. */
	assert_int_equal(hwbpi_objspec_parse("f(", &o, &col, &msg), -EINVAL);
	assert_int_equal(col, 3);
	assert_int_equal(hwbpi_objspec_parse("f()->x", &o, &col, &msg), -EINVAL);
	assert_int_equal(col, 4);
	assert_int_equal(hwbpi_objspec_parse("f(1)->x", &o, &col, &msg), -EINVAL);
	assert_int_equal(hwbpi_objspec_parse("f():return+x", &o, &col, &msg), -EINVAL);
	assert_int_equal(col, 11);
}

static void test_release(void **state)
{
	struct hwbpi_objspec o;
	const char *msg = "";

	(void)state;
	memset(&o, 0, sizeof(o));
	assert_int_equal(hwbpi_objspec_release("free_node(n)", &o, &msg), 0);
	assert_false(o.scope);
	assert_string_equal(o.rel.func, "free_node");
	assert_string_equal(o.rel.param, "n");
	assert_int_equal(hwbpi_objspec_release("scope", &o, &msg), 0);
	assert_true(o.scope);
	assert_int_equal(hwbpi_objspec_release("free_node()", &o, &msg), -EINVAL);
	assert_int_equal(hwbpi_objspec_release("free_node(n)x", &o, &msg), -EINVAL);
	assert_int_equal(hwbpi_objspec_release("free_node", &o, &msg), -EINVAL);
}

static void test_table(void **state)
{
	struct hwbpi_objtab t;
	int a, b, c;

	(void)state;
	assert_int_equal(hwbpi_objtab_init(&t, 0), -EINVAL);
	assert_int_equal(hwbpi_objtab_init(&t, 2), 0);
	a = hwbpi_objtab_arm(&t, 0x1000, 0x400, 10);
	b = hwbpi_objtab_arm(&t, 0x2000, 0x400, 20);
	assert_true(a >= 0 && b >= 0 && a != b);
	/* The same live object again: its armings, no new entry. */
	assert_int_equal(hwbpi_objtab_arm(&t, 0x1000, 0x500, 30), a);
	assert_int_equal(t.obj[a].armings, 2);
	/* Every entry live: overflow. */
	assert_int_equal(hwbpi_objtab_arm(&t, 0x3000, 0x400, 40), -ENOSPC);
	assert_int_equal(t.overflow, 1);
	/* A release frees nothing live: a newer object takes the released
	 * entry (counted), and the same address is a new object. */
	hwbpi_objtab_release(&t, a, 50);
	assert_int_equal(hwbpi_objtab_find(&t, 0x1000), -ENOENT);
	c = hwbpi_objtab_arm(&t, 0x1000, 0x400, 60);
	assert_int_equal(c, a);
	assert_int_equal(t.obj[c].seq, 3);
	assert_int_equal(t.forgotten, 1);
	assert_int_equal(t.released, 1);
	assert_int_equal(hwbpi_objtab_live(&t, NULL), 2);
	hwbpi_objtab_fini(&t);
}

static void test_hits(void **state)
{
	struct hwbpi_objtab t;
	int a;

	(void)state;
	assert_int_equal(hwbpi_objtab_init(&t, 1), 0);
	a = hwbpi_objtab_arm(&t, 0x1000, 0x400, 1);
	for (unsigned f = 0; f < HWBPI_OBJ_FUNCS + 2; f++)
		hwbpi_objtab_hit(&t, a, 0x100 * (f + 1), HWBP_W);
	hwbpi_objtab_hit(&t, a, 0x100, HWBP_W);
	hwbpi_objtab_hit(&t, a, 0x100, HWBP_R);
	assert_int_equal(t.obj[a].hits, HWBPI_OBJ_FUNCS + 4);
	assert_int_equal(t.obj[a].by[0].n, 2);        /* 0x100 W twice */
	assert_int_equal(t.obj[a].by_other, 3);       /* two functions, and 0x100 R: no room */
	hwbpi_objtab_fini(&t);
}

static void test_slots(void **state)
{
	struct hwbpi_objtab t;
	unsigned in = 0;
	int a, b, c;

	(void)state;
	assert_int_equal(hwbpi_objtab_init(&t, 4), 0);
	a = hwbpi_objtab_arm(&t, 0x1000, 0, 1000);
	b = hwbpi_objtab_arm(&t, 0x2000, 0, 1000);
	c = hwbpi_objtab_arm(&t, 0x3000, 0, 1000);
	/* One slot: a in it from 1000 to 1400, then b to 1800, then c. */
	hwbpi_objtab_slot(&t, a, 0, 1000);
	assert_int_equal(hwbpi_objtab_live(&t, &in), 3);
	assert_int_equal(in, 1);
	assert_int_equal(hwbpi_objtab_next_waiting(&t), b);
	hwbpi_objtab_slot(&t, a, -1, 1400);
	hwbpi_objtab_slot(&t, b, 0, 1400);
	assert_int_equal(hwbpi_objtab_next_waiting(&t), c);
	hwbpi_objtab_slot(&t, b, -1, 1800);
	hwbpi_objtab_slot(&t, c, 0, 1800);
	/* Round robin: a again after c. */
	assert_int_equal(hwbpi_objtab_next_waiting(&t), a);
	hwbpi_objtab_release(&t, c, 2200);   /* its spell closed with it */
	hwbpi_objtab_close(&t, 2200);
	/* Lives of 1200 ns: a and b 400 each, c 400 of its 1200. */
	assert_int_equal(hwbpi_objtab_coverage(&t, a, 9999), 333333);
	assert_int_equal(hwbpi_objtab_coverage(&t, b, 9999), 333333);
	assert_int_equal(hwbpi_objtab_coverage(&t, c, 9999), 333333);
	/* Watched from arming to release: all of it. */
	a = hwbpi_objtab_arm(&t, 0x4000, 0, 3000);
	hwbpi_objtab_slot(&t, a, 1, 3000);
	hwbpi_objtab_release(&t, a, 3500);
	assert_int_equal(hwbpi_objtab_coverage(&t, a, 9999), 1000000);
	hwbpi_objtab_fini(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_release),
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_hits),
		cmocka_unit_test(test_slots),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
