// SPDX-License-Identifier: MIT
/*
 * hwbp_ksym.ko's function table (ksym.h): the sorted starts of the
 * kernel's functions, written by user space (hwbp trace --kernel
 * --backend module writes its symbol table's, as the BPF path loads them
 * into a map), so that a hit maps its IP to a function with a binary
 * search and no string.  A module cannot build it itself: Linux 6.1
 * exports neither kallsyms_lookup_name() nor kallsyms_on_each_symbol().
 *
 * The table changes only while no watch is registered (-EBUSY), under
 * ksym_mutex, so the hit path reads it with no lock: a handler runs only
 * between a piece's registration and its unregistration, which waits for
 * the event to leave every CPU (perf_event_release_kernel()).
 */
#include <linux/errno.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "ksym.h"

static uint64_t *starts;
static size_t nstart, cap;

size_t ksym_funcs_count(void)
{
	return nstart;
}

/* The index of the last start at or below @ip, or -1. */
static long last_at_or_below(uint64_t ip)
{
	size_t lo = 0, hi = nstart;

	if (nstart == 0 || ip < starts[0])
		return -1;
	/* Invariant: starts[lo] <= ip, and ip < starts[hi] if hi < nstart. */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (starts[mid] <= ip)
			lo = mid;
		else
			hi = mid;
	}
	return (long)lo;
}

bool ksym_funcs_lookup(uint64_t ip, uint64_t *start)
{
	long i = last_at_or_below(ip);

	if (i < 0)
		return false;
	*start = starts[i];
	return true;
}

bool ksym_funcs_has(uint64_t addr)
{
	long i = last_at_or_below(addr);

	return i >= 0 && starts[i] == addr;
}

void ksym_funcs_free(void)
{
	kvfree(starts);
	starts = NULL;
	nstart = cap = 0;
}

int ksym_funcs_reset(void)
{
	int ret = 0;

	mutex_lock(&ksym_mutex);
	if (ksym_filter_busy())
		ret = -EBUSY;
	else
		ksym_funcs_free();
	mutex_unlock(&ksym_mutex);
	return ret;
}

/* Room for @more starts past @nstart (kvmalloc: a kernel's 60,000
 * functions are half a megabyte). */
static int reserve(size_t more)
{
	size_t want = nstart + more, ncap = cap ? cap : 4096;
	uint64_t *n;

	if (want > KSYM_FUNCS_MAX)
		return -E2BIG;
	if (want <= cap)
		return 0;
	while (ncap < want)
		ncap *= 2;
	n = kvmalloc_array(ncap, sizeof(*n), GFP_KERNEL);
	if (!n)
		return -ENOMEM;
	if (nstart)
		memcpy(n, starts, nstart * sizeof(*n));
	kvfree(starts);
	starts = n;
	cap = ncap;
	return 0;
}

/* One line's start into *@v; -EINVAL unless 1 to 16 hex digits. */
static int parse_start(const char *s, size_t n, uint64_t *v)
{
	if (n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		s += 2;
		n -= 2;
	}
	if (n == 0 || n > 16)
		return -EINVAL;
	*v = 0;
	for (; n; s++, n--) {
		int d = hex_to_bin(*s);

		if (d < 0)
			return -EINVAL;
		*v = *v << 4 | (uint64_t)d;
	}
	return 0;
}

/* Append @s's line (no newline) at starts[*@k]; -EINVAL if malformed or
 * below the start before it. */
static int put(const char *s, size_t n, size_t *k)
{
	uint64_t v;
	int ret = parse_start(s, n, &v);

	if (ret)
		return ret;
	if (*k && starts[*k - 1] > v)
		return -EINVAL;
	ret = reserve(*k + 1 - nstart);
	if (ret)
		return ret;
	starts[(*k)++] = v;
	return 0;
}

/* The starts are written past nstart and kept (nstart moved) only when
 * the whole write parsed; the fragment likewise. */
static int append(struct ksym_frag *frag, const char *buf, size_t n)
{
	struct ksym_frag f = *frag;
	size_t k = nstart, i;
	int ret;

	for (i = 0; i < n; i++) {
		if (buf[i] != '\n') {
			if (f.n == sizeof(f.s))
				return -EINVAL;
			f.s[f.n++] = buf[i];
			continue;
		}
		if (f.n) {
			ret = put(f.s, f.n, &k);
			if (ret)
				return ret;
		}
		f.n = 0;
	}
	nstart = k;
	*frag = f;
	return 0;
}

int ksym_funcs_write(struct ksym_frag *frag, const char *buf, size_t n)
{
	int ret;

	mutex_lock(&ksym_mutex);
	ret = ksym_filter_busy() ? -EBUSY : append(frag, buf, n);
	mutex_unlock(&ksym_mutex);
	return ret;
}
