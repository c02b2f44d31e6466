/* SPDX-License-Identifier: MIT */
/*
 * /proc/kcore reads (tracer/symbols/kcore.c) on core files the test writes: an
 * ELF64 core of this byte order with two PT_LOAD segments (and a PT_NOTE,
 * which is skipped), read inside each, at a segment's last bytes, across
 * its end, outside every segment; files that are not such a core; bad
 * arguments.  The real /proc/kcore is read in the guests
 * (tests/trace/kernel_test.sh: the values of the first hit).
 */
#include <elf.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "symbols/kcore.h"

/* The segments: vaddr, offset in the file, size; the bytes of segment
 * k at offset i are (k + 1) * 16 + i % 16. */
#define SEG0 0xffffffff81000000ull
#define SEG1 0xffff888000000000ull
#define SEGSZ 64u

enum shape { GOOD, NOT_ELF, CLASS32, NOT_CORE, OTHER_ORDER, SHORT };

static char path[64];

static void write_core(enum shape shape)
{
	struct {
		Elf64_Ehdr eh;
		Elf64_Phdr ph[3];
		unsigned char seg[2][SEGSZ];
	} f;
	FILE *o;

	memset(&f, 0, sizeof(f));
	memcpy(f.eh.e_ident, ELFMAG, SELFMAG);
	f.eh.e_ident[EI_CLASS] = shape == CLASS32 ? ELFCLASS32 : ELFCLASS64;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	f.eh.e_ident[EI_DATA] = shape == OTHER_ORDER ? ELFDATA2LSB : ELFDATA2MSB;
#else
	f.eh.e_ident[EI_DATA] = shape == OTHER_ORDER ? ELFDATA2MSB : ELFDATA2LSB;
#endif
	f.eh.e_type = shape == NOT_CORE ? ET_EXEC : ET_CORE;
	f.eh.e_phoff = offsetof(__typeof__(f), ph);
	f.eh.e_phentsize = sizeof(Elf64_Phdr);
	f.eh.e_phnum = 3;
	f.ph[0].p_type = PT_NOTE;
	f.ph[0].p_vaddr = SEG0;   /* (a note's address means nothing) */
	for (int k = 0; k < 2; k++) {
		f.ph[k + 1].p_type = PT_LOAD;
		f.ph[k + 1].p_vaddr = k ? SEG1 : SEG0;
		f.ph[k + 1].p_offset = offsetof(__typeof__(f), seg) + (uint64_t)k * SEGSZ;
		f.ph[k + 1].p_filesz = f.ph[k + 1].p_memsz = SEGSZ;
		for (unsigned i = 0; i < SEGSZ; i++)
			f.seg[k][i] = (unsigned char)((k + 1) * 16 + i % 16);
	}
	if (shape == NOT_ELF)
		f.eh.e_ident[0] = 'X';
	o = fopen(path, "wb");
	assert_non_null(o);
	/* SHORT: the headers, not the segments' bytes */
	assert_int_equal(fwrite(&f, shape == SHORT ? offsetof(__typeof__(f), seg) : sizeof(f), 1, o), 1);
	assert_int_equal(fclose(o), 0);
}

static const struct {
	const char *name;
	enum shape shape;
	uint64_t addr;
	size_t len;
	int ret;
	unsigned char first;  /* ret 0: the first byte read */
} cases[] = {
	{ "text, start", GOOD, SEG0, 8, 0, 0x10 },
	{ "text, inside", GOOD, SEG0 + 17, 4, 0, 0x11 },
	{ "direct map", GOOD, SEG1 + 2, 8, 0, 0x22 },
	{ "a segment's last bytes", GOOD, SEG0 + SEGSZ - 4, 4, 0, 0x1c },
	{ "across a segment's end", GOOD, SEG0 + SEGSZ - 4, 8, -EFAULT, 0 },
	{ "below every segment", GOOD, SEG1 - 8, 8, -EFAULT, 0 },
	{ "past every segment", GOOD, SEG0 + SEGSZ, 1, -EFAULT, 0 },
	{ "not ELF", NOT_ELF, SEG0, 8, -ENOEXEC, 0 },
	{ "32-bit", CLASS32, SEG0, 8, -ENOEXEC, 0 },
	{ "not a core", NOT_CORE, SEG0, 8, -ENOEXEC, 0 },
	{ "the other byte order", OTHER_ORDER, SEG0, 8, -ENOEXEC, 0 },
	{ "segments cut off", SHORT, SEG0, 8, -EIO, 0 },
};

static void test_read(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		unsigned char buf[8];

		print_message("kcore: %s\n", cases[i].name);
		write_core(cases[i].shape);
		memset(buf, 0xee, sizeof(buf));
		assert_int_equal(hwbpi_kcore_read(path, cases[i].addr, buf, cases[i].len), cases[i].ret);
		if (cases[i].ret == 0) {
			for (size_t k = 0; k < cases[i].len; k++)
				assert_int_equal(buf[k], (cases[i].first & 0xf0) |
							 ((cases[i].first + k) & 0x0f));
		} else {
			assert_int_equal(buf[0], 0xee);   /* nothing written */
		}
	}
}

static void test_bad_args(void **state)
{
	unsigned char b[8];

	(void)state;
	write_core(GOOD);
	assert_int_equal(hwbpi_kcore_read(path, SEG0, NULL, 8), -EINVAL);
	assert_int_equal(hwbpi_kcore_read(path, SEG0, b, 0), -EINVAL);
	assert_int_equal(hwbpi_kcore_read("/nonexistent/kcore", SEG0, b, 8), -ENOENT);
}

static int setup(void **state)
{
	int fd;

	(void)state;
	snprintf(path, sizeof(path), "/tmp/hwbp-kcore-XXXXXX");
	fd = mkstemp(path);
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(path);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read),
		cmocka_unit_test(test_bad_args),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
