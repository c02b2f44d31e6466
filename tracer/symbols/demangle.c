/* SPDX-License-Identifier: MIT */
/*
 * Demangling C++ and Rust function names for the outputs (demangle.h).
 *
 * libiberty (Debian's libiberty-dev: a static libiberty.a, linked into
 * libhwbp-trace, whose version script keeps its symbols inside) is the
 * demangler binutils and gdb use.  Two of its entry points, directly:
 *
 *   rust_demangle() first: a legacy Rust name (_ZN...17h<16 hex>E) is
 *   also a valid Itanium name, which the C++ demangler would print with
 *   the hash as a last path element ("core::fmt::write::h0123...");
 *   the Rust demangler drops the hash and also knows v0 names (_R...).
 *
 *   cplus_demangle_v3() next, for C++.
 *
 * Not cplus_demangle() (its "auto" style would try both): it lives in
 * cplus-dem.o, which pulls in xmalloc(), and xmalloc() ends the process
 * when memory runs out - not something a library may do.  The two used
 * here keep their state on the stack and the heap (no globals, unlike
 * cplus_demangle_set_style) and return malloc'd strings, NULL when the
 * name is not theirs.
 *
 * Only names that start like a mangled name ("_Z", "_R") are passed to
 * them: the Itanium grammar also has type encodings, and a demangler
 * asked about a C function "f" or "i" could answer "float" or "int"
 * (__cxa_demangle does); a C name must come back as it is.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/demangle.h"

#ifdef HWBP_HAVE_LIBIBERTY
#include <libiberty/demangle.h>
#endif

/* Whether @name may be a mangled name: Itanium C++ and legacy Rust
 * "_Z...", Rust v0 "_R..." followed by a path tag (an uppercase letter)
 * or the optional encoding version (a digit), as the v0 grammar has it. */
static bool looks_mangled(const char *name)
{
	if (name[0] != '_')
		return false;
	if (name[1] == 'Z')
		return name[2] != '\0';
	return name[1] == 'R' && ((name[2] >= 'A' && name[2] <= 'Z') ||
				  (name[2] >= '0' && name[2] <= '9'));
}

/* @name demangled, malloc'd; NULL when it is not a mangled name we know,
 * or there was no memory (the demanglers do not say which). */
static char *demangle_dup(const char *name)
{
#ifdef HWBP_HAVE_LIBIBERTY
	/* DMGL_PARAMS: C++ functions with their parameter types, as
	 * overloads differ by them; DMGL_ANSI: const and volatile. */
	const int opts = DMGL_PARAMS | DMGL_ANSI;
	char *r;

	if (!looks_mangled(name))
		return NULL;
	r = rust_demangle(name, opts);
	if (!r && name[1] == 'Z')
		r = cplus_demangle_v3(name, opts);
	return r;
#else
	(void)name;
	return NULL;
#endif
}

bool hwbpi_demangle_available(void)
{
#ifdef HWBP_HAVE_LIBIBERTY
	return true;
#else
	return false;
#endif
}

int hwbpi_demangle(const char *name, char *buf, size_t size)
{
	char *d;
	const char *src;
	size_t n;
	int ret = 0;

	if (!name || !buf || size == 0)
		return -EINVAL;
	d = demangle_dup(name);
	src = d ? d : name;
	n = strlen(src);
	if (n >= size) {
		n = size - 1;
		ret = -ENOSPC;
	}
	memcpy(buf, src, n);
	buf[n] = '\0';
	free(d);
	return ret;
}

/* ------------------------------------------------------------------ */
/* The cache: open addressing on the name's address.                   */
/* ------------------------------------------------------------------ */

struct slot {
	const char *key;
	char *val; /* demangled, or NULL: the key is shown as it is */
};

struct hwbpi_demangler {
	struct slot *slot;
	size_t cap, used; /* cap: a power of two */
};

#define CACHE_FIRST 64

struct hwbpi_demangler *hwbpi_demangler_new(int *err)
{
	struct hwbpi_demangler *d = calloc(1, sizeof(*d));

	if (d)
		d->slot = calloc(CACHE_FIRST, sizeof(*d->slot));
	if (!d || !d->slot) {
		free(d);
		if (err)
			*err = -ENOMEM;
		return NULL;
	}
	d->cap = CACHE_FIRST;
	return d;
}

void hwbpi_demangler_free(struct hwbpi_demangler *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->cap; i++)
		free(d->slot[i].val);
	free(d->slot);
	free(d);
}

static size_t hash_ptr(const char *p, size_t cap)
{
	uint64_t h = (uint64_t)(uintptr_t)p;

	/* Strings are at least byte-aligned, often 8-byte: mix the low
	 * bits with the high ones (a 64-bit multiplicative hash). */
	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ull;
	h ^= h >> 32;
	return (size_t)h & (cap - 1);
}

static struct slot *find(struct slot *tab, size_t cap, const char *key)
{
	size_t i = hash_ptr(key, cap);

	while (tab[i].key && tab[i].key != key)
		i = (i + 1) & (cap - 1);
	return &tab[i];
}

/* Twice the slots, at most half of them used afterwards.  -ENOMEM
 * leaves @d as it was. */
static int grow(struct hwbpi_demangler *d)
{
	size_t cap = d->cap * 2;
	struct slot *tab;

	if (cap < d->cap || cap > SIZE_MAX / sizeof(*tab))
		return -ENOMEM;
	tab = calloc(cap, sizeof(*tab));
	if (!tab)
		return -ENOMEM;
	for (size_t i = 0; i < d->cap; i++)
		if (d->slot[i].key)
			*find(tab, cap, d->slot[i].key) = d->slot[i];
	free(d->slot);
	d->slot = tab;
	d->cap = cap;
	return 0;
}

const char *hwbpi_demangler_name(struct hwbpi_demangler *d, const char *name)
{
	struct slot *s;

	/* C names (most of a C program's) never reach the table. */
	if (!d || !name || !hwbpi_demangle_available() || !looks_mangled(name))
		return name;
	s = find(d->slot, d->cap, name);
	if (s->key)
		return s->val ? s->val : name;
	if ((d->used + 1) * 2 > d->cap) {
		if (grow(d))
			return name;
		s = find(d->slot, d->cap, name);
	}
	s->key = name;
	s->val = demangle_dup(name);
	d->used++;
	return s->val ? s->val : name;
}
