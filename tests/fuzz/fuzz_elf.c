/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: hwbp_symtab_load_elf on arbitrary (mostly malformed)
 * ELF files.  The input is written to a deleted temporary file and loaded
 * through /proc/self/fd/N, with a load bias taken from the input's size.
 *
 * Properties (a violation traps):
 *  - the load returns a count or one of its documented errors for a file
 *    that exists (-EINVAL, -ENOMEM, -EIO; -EOPNOTSUPP without libelf); on
 *    error the table keeps exactly what it had (one sentinel symbol), on
 *    success it holds that many more;
 *  - loading the same file into a second table gives the same result
 *    (nothing depends on uninitialised memory or earlier inputs);
 *  - after hwbp_symtab_finish, the sentinel is still found by name and
 *    address, and lookups around the addresses the file names (symbol
 *    values read from the input, plus the bias) return symbols that
 *    contain the address and are found by their name;
 *  - a finished table refuses further loads with -EBUSY (-EOPNOTSUPP
 *    without libelf) and is unchanged.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <hwbp/trace.h>

#include "fuzz_common.h"

static int temp_file(const uint8_t *data, size_t size, char *path, size_t len)
{
	static int fd = -1;

	if (fd < 0) {
		char name[] = "/tmp/hwbp-fuzz-elf-XXXXXX";

		fd = mkstemp(name);
		if (fd < 0)
			return -1;
		unlink(name); /* nothing is left behind, even after a crash */
	}
	if (ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
		return -1;
	snprintf(path, len, "/proc/self/fd/%d", fd);
	return 0;
}

static bool contains(const struct hwbp_sym *s, uint64_t a)
{
	/* a symbol of size 0 contains its own address only */
	return a >= s->addr && (a - s->addr < s->size || a == s->addr);
}

static void probe(const struct hwbp_symtab *t, uint64_t a)
{
	const struct hwbp_sym *f = hwbp_symtab_func(t, a);
	const struct hwbp_sym *s = hwbp_symtab_at(t, a);

	if (f) {
		CHECK(contains(f, a));
		CHECK(f->type == 't' || f->type == 'T' || f->type == 'w' || f->type == 'W' ||
		      f->type == 'i');
		CHECK(f->name && f->name[0] && hwbp_symtab_find(t, f->name) != NULL);
	}
	if (s) {
		CHECK(contains(s, a));
		CHECK(s->name && s->name[0] && hwbp_symtab_find(t, s->name) != NULL);
	}
}

static int load(const char *path, uint64_t bias, struct hwbp_symtab **out)
{
	struct hwbp_symtab *t = hwbp_symtab_new(NULL);
	int ret;

	*out = t;
	if (!t)
		return -ENOMEM;
	CHECK(hwbp_symtab_add(t, "fuzz_sentinel", 0x1000, 0x10, 'T') == 0);
	ret = hwbp_symtab_load_elf(t, path, bias);
	if (ret < 0) {
		CHECK(ret == -EINVAL || ret == -ENOMEM || ret == -EIO || ret == -EOPNOTSUPP);
		CHECK(hwbp_symtab_count(t) == 1);
	} else {
		CHECK(hwbp_symtab_count(t) == (size_t)ret + 1);
	}
	return ret;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hwbp_symtab *t, *t2;
	uint64_t bias = (uint64_t)(size & 0xff) << 12;
	char path[64];
	int ret, ret2;

	if (size > 65536 || temp_file(data, size, path, sizeof(path)) != 0)
		return 0;
	ret = load(path, bias, &t);
	ret2 = load(path, bias, &t2);
	if (!t || !t2) {
		hwbp_symtab_free(t);
		hwbp_symtab_free(t2);
		return 0;
	}
	if (ret != -ENOMEM && ret2 != -ENOMEM)
		CHECK(ret == ret2);
	hwbp_symtab_free(t2);

	if (hwbp_symtab_finish(t) == 0) {
		const struct hwbp_sym *s = hwbp_symtab_find(t, "fuzz_sentinel");
		size_t n = hwbp_symtab_count(t);

		CHECK(s && s->addr == 0x1000);
		ret2 = hwbp_symtab_load_elf(t, path, bias);
		/* (a build without libelf refuses before looking at the table) */
		CHECK((ret2 == -EBUSY || ret2 == -EOPNOTSUPP) && hwbp_symtab_count(t) == n);
		probe(t, 0x1000);
		probe(t, 0x100f);
		probe(t, 0);
		probe(t, UINT64_MAX);
		/* Candidate symbol values: every aligned 8-byte (ELF64) and
		 * 4-byte (ELF32) word of the file, plus the bias; bounded. */
		for (size_t off = 0; off + 8 <= size && off < 4096 * 8; off += 8) {
			uint64_t v;
			uint32_t w;

			memcpy(&v, data + off, 8);
			memcpy(&w, data + off, 4);
			probe(t, v + bias);
			probe(t, (uint64_t)w + bias);
		}
	}
	hwbp_symtab_free(t);
	return 0;
}
