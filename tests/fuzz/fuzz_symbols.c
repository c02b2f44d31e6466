/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: hwbp_symtab_load_map_text.  Any input must either load
 * (count = the return value) or be refused with -EINVAL and a line number
 * inside the input, keeping nothing; then finish and lookups must agree
 * with what was loaded.  Never crash, leak or hang.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <hwbp/trace.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static unsigned count_lines(const uint8_t *data, size_t size)
{
	unsigned n = size ? 1 : 0;

	for (size_t i = 0; i + 1 < size; i++)
		n += data[i] == '\n';
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hwbp_symtab *t;
	unsigned line = 0;
	int ret;

	if (size > 65536)
		return 0;
	t = hwbp_symtab_new(NULL);
	if (!t)
		return 0;
	/* One symbol before: a failed load must keep it and add nothing. */
	if (hwbp_symtab_add(t, "fuzz_sentinel", 0x1000, 0x10, 'T') != 0)
		__builtin_trap();
	ret = hwbp_symtab_load_map_text(t, (const char *)data, size, &line);
	if (ret == -EINVAL) {
		if (line == 0 || line > count_lines(data, size) || hwbp_symtab_count(t) != 1)
			__builtin_trap();
	} else if (ret >= 0) {
		if (line != 0 || hwbp_symtab_count(t) != (size_t)ret + 1)
			__builtin_trap();
	} else if (ret != -ENOMEM) {
		__builtin_trap();
	}
	if (hwbp_symtab_finish(t) == 0) {
		const struct hwbp_sym *s = hwbp_symtab_find(t, "fuzz_sentinel");
		uint64_t probe[4] = { 0, 0x1000, 0x100f, UINT64_MAX };

		if (!s || s->addr != 0x1000)
			__builtin_trap();
		/* Probe around whatever addresses the input used. */
		if (size >= 8)
			memcpy(&probe[0], data, 8);
		for (size_t i = 0; i < 4; i++) {
			const struct hwbp_sym *f = hwbp_symtab_func(t, probe[i]);
			const struct hwbp_sym *a = hwbp_symtab_at(t, probe[i]);

			if (f && (probe[i] < f->addr || (probe[i] - f->addr >= f->size && probe[i] != f->addr)))
				__builtin_trap();
			if (a && (probe[i] < a->addr || (probe[i] - a->addr >= a->size && probe[i] != a->addr)))
				__builtin_trap();
			if (f && hwbp_symtab_find(t, f->name) == NULL)
				__builtin_trap();
		}
	}
	hwbp_symtab_free(t);
	return 0;
}
