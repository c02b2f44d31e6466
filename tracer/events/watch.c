/* SPDX-License-Identifier: MIT */
/*
 * Watches (events/events.h): filter entries resolved against a symbol
 * table (names, patterns, thread-local variables) into the watches a
 * backend arms, and whether a --cpu model fits a real kernel's.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "events/watch_int.h"

int hwbpi_model_fits(const char *backend, const struct hwbp_cpu *want,
		     const struct hwbp_cpu *native, char *err, size_t errlen)
{
	struct hwbp_caps w, n;

	if (hwbp_caps_get(want, &w) || hwbp_caps_get(native, &n))
		return -EINVAL;
	if (w.arch == n.arch && w.data_slots <= n.data_slots && w.inst_slots <= n.inst_slots &&
	    w.max_piece <= n.max_piece)
		return 0;
	hwbpi_say(err, errlen, "the %s backend needs a CPU model this kernel can program "
		  "(here %s with %u watchpoints and %u breakpoints), not %s", backend,
		  native->name[0] ? native->name : hwbp_arch_name(native->arch), n.data_slots,
		  n.inst_slots, want->name[0] ? want->name : hwbp_arch_name(want->arch));
	return -EINVAL;
}

/*
 * The watch entry @e makes of symbol @s, named @name (messages, the
 * histogram's Symbol column, and which watch a later entry replaces).
 * Errors: -ERANGE (the range wraps past 2^64), message in @err.
 */
static int watch_of(const struct hwbp_trace_entry *e, const struct hwbp_sym *s, const char *name,
		    struct hwbpi_watch *w, char *err, size_t errlen)
{
	memset(w, 0, sizeof(*w));
	w->req = -1;
	w->addr = s->addr + e->off;
	w->sym = s;
	w->len_given = e->len != 0;
	/* The default length is the symbol's own size (ksym_trace_filter
	 * used a fixed 4), less the offset; for execution, the
	 * instruction there (a breakpoint on entry: a whole function
	 * would take one hardware slot per instruction on x86). */
	w->entry = !e->len && e->type == HWBP_X;
	w->len = e->len ? e->len : w->entry ? 0 : (s->size > e->off ? s->size - e->off : 0);
	if (e->off)
		snprintf(w->name, sizeof(w->name), "%s+%" PRIu64, name, e->off);
	else
		snprintf(w->name, sizeof(w->name), "%s", name);
	w->type = e->type;
	/* The symbol's address + OFF (+ LEN) must stay below 2^64: a wrapped
	 * range would watch bytes at the bottom of the address space. */
	if (w->addr < e->off || (w->len && w->len - 1 > UINT64_MAX - w->addr)) {
		hwbpi_say(err, errlen, "%s: address range wraps past 2^64 (ERANGE)", w->name);
		return -ERANGE;
	}
	return 0;
}

/* The watch of thread-local variable @tv (tracer/tls.h): its address is
 * the offset in the executable's TLS block, placed per thread by the
 * backend (hwbpi_watch.tls). */
static int tls_watch_of(const struct hwbp_trace_entry *e, const struct hwbpi_tls_var *tv,
			struct hwbpi_watch *w)
{
	memset(w, 0, sizeof(*w));
	w->req = -1;
	w->addr = tv->off + e->off;
	w->tls = true;
	w->tls_memsz = tv->memsz;
	w->tls_align = tv->align;
	w->len_given = e->len != 0;
	w->len = e->len ? e->len : (tv->size > e->off ? tv->size - e->off : 0);
	if (e->off)
		snprintf(w->name, sizeof(w->name), "%s+%" PRIu64, e->sym, e->off);
	else
		snprintf(w->name, sizeof(w->name), "%s", e->sym);
	w->type = e->type;
	return 0;
}

/* Why entry @e's symbol was not found (hwbpi_symtab_resolve's @ret). */
static int no_symbol(const struct hwbpi_tracer *t, const struct hwbp_trace_entry *e, int ret,
		     const struct hwbpi_symtab_amb *amb, char *err, size_t errlen)
{
	if (ret == -EINVAL && amb->n > 1) {
		/* Overloads: name up to three, as the outputs print them. */
		hwbpi_say(err, errlen, "'%s' is %zu functions: %s, %s%s%s%s; give its parameter list "
			  "(EINVAL)", e->sym, amb->n, amb->name[0], amb->name[1],
			  amb->n > 2 ? ", " : "", amb->n > 2 ? amb->name[2] : "",
			  amb->n > 3 ? ", ..." : "");
		return -EINVAL;
	}
	if (ret == -ENOMEM) {
		hwbpi_say(err, errlen, "'%s': cannot index the demangled names (ENOMEM)", e->sym);
		return ret;
	}
	hwbpi_say(err, errlen, "no symbol '%s' in the symbol table%s%s", e->sym,
		  t->missing_hint ? ": " : "", t->missing_hint ? t->missing_hint : "");
	return -ENOENT;
}

/* Does @a stand for the same watch as @b: the same name, or (@by_sym,
 * a pattern's watch) the same symbol and address? */
static bool same_watch(const struct hwbpi_watch *a, const struct hwbpi_watch *b, bool by_sym)
{
	return strcmp(a->name, b->name) == 0 ||
	       (by_sym && a->sym && a->sym == b->sym && a->addr == b->addr);
}

static int find_watch(const struct hwbpi_tracer *t, const struct hwbpi_watch *w, bool by_sym)
{
	for (unsigned i = 0; i < t->nw; i++)
		if (same_watch(&t->w[i], w, by_sym))
			return (int)i;
	return -1;
}

/* Removal: every watch standing for @w. */
static void drop_watch(struct hwbpi_tracer *t, const struct hwbpi_watch *w, bool by_sym)
{
	unsigned k = 0;

	for (unsigned i = 0; i < t->nw; i++)
		if (!same_watch(&t->w[i], w, by_sym))
			t->w[k++] = t->w[i];
	t->nw = k;
}

/*
 * A pattern (tracer/symtab.h hwbpi_symtab_glob): one watch per matching
 * symbol, in address order, data symbols unless the type has x (then
 * functions); "PAT:---" removes the watches of the symbols it matches.
 * All or nothing: a failure leaves the watches as they were.  On
 * success @err holds a note: how many matched.
 */
static int apply_pattern(struct hwbpi_tracer *t, const struct hwbp_trace_entry *e, char *err,
			 size_t errlen)
{
	const struct hwbp_sym *m[HWBP_MAX_REQUESTS];
	const char *name[HWBP_MAX_REQUESTS];
	unsigned kinds = !e->type ? HWBPI_SYM_DATA | HWBPI_SYM_FUNC :
		(e->type & HWBP_X) ? HWBPI_SYM_FUNC : HWBPI_SYM_DATA;
	const char *what = kinds == HWBPI_SYM_FUNC ? "function" : "data";
	struct hwbpi_watch *w;
	unsigned nw = 0, fresh = 0, sizeless = 0;
	int n = t->syms ? hwbpi_symtab_glob(t->syms, e->sym, kinds, m, name, HWBP_MAX_REQUESTS) : 0;
	int ret = 0;

	if (n < 0) {
		hwbpi_say(err, errlen, "pattern '%s': %s", e->sym, hwbp_errno_name(n));
		return n;
	}
	if (n == 0) {
		hwbpi_say(err, errlen, "no symbol matches '%s' (ENOENT)", e->sym);
		return -ENOENT;
	}
	if (n > HWBP_MAX_REQUESTS) {
		hwbpi_say(err, errlen, "pattern '%s' matches %d symbols, at most %d watches (ENOSPC)",
			  e->sym, n, HWBP_MAX_REQUESTS);
		return -ENOSPC;
	}
	if (!(w = malloc((size_t)n * sizeof(*w))))
		return -ENOMEM;
	for (int k = 0; k < n; k++) {
		ret = watch_of(e, m[k], name[k], &w[nw], err, errlen);
		w[nw].pattern = true;
		/* A symbol of no known size cannot be watched without /LEN:
		 * skipped (and said), rather than failing the whole pattern. */
		if (ret)
			break;
		if (e->type && !w[nw].len && !w[nw].entry) {
			sizeless++;
			continue;
		}
		if (e->type && find_watch(t, &w[nw], true) < 0)
			fresh++;
		nw++;
	}
	if (!ret && e->type && !nw) {
		hwbpi_say(err, errlen, "pattern '%s' matches %d symbol%s, none of a known size: add "
			  "/LEN (EINVAL)", e->sym, n, n == 1 ? "" : "s");
		ret = -EINVAL;
	} else if (!ret && t->nw + fresh > HWBP_MAX_REQUESTS) {
		hwbpi_say(err, errlen, "pattern '%s': %u more watches, %u already, at most %d (ENOSPC)",
			  e->sym, fresh, t->nw, HWBP_MAX_REQUESTS);
		ret = -ENOSPC;
	}
	for (unsigned k = 0; !ret && k < nw; k++) {
		int at = find_watch(t, &w[k], true);

		if (!e->type)
			drop_watch(t, &w[k], true);
		else if (at >= 0)
			t->w[at] = w[k];
		else
			t->w[t->nw++] = w[k];
	}
	if (!ret && e->type)
		hwbpi_say(err, errlen, "pattern '%s' matches %d %s symbol%s, watched in address "
			  "order%s", e->sym, n, what, n == 1 ? "" : "s",
			  sizeless ? " (those of no known size skipped: add /LEN)" : "");
	else if (!ret)
		hwbpi_say(err, errlen, "pattern '%s' matches %d symbol%s: their watches removed",
			  e->sym, n, n == 1 ? "" : "s");
	free(w);
	return ret;
}

/*
 * A name that is a glob pattern and perhaps a malformed expression
 * ("x[0-9]", "cfg.limits[x]"): the pattern's matches; when there are
 * none, the expression's error (@later, its line in @err) if the name
 * starts with a variable's ("cfg"), else the pattern's.
 */
static int pattern_or_expr(struct hwbpi_tracer *t, const struct hwbp_trace_entry *e, int later,
			   char *err, size_t errlen)
{
	char expr_err[400], base[HWBP_TRACE_SYM_LEN];
	size_t n = strcspn(e->sym, ".[-");
	int ret;

	snprintf(expr_err, sizeof(expr_err), "%s", later ? err : "");
	err[0] = '\0';
	ret = apply_pattern(t, e, err, errlen);
	snprintf(base, sizeof(base), "%.*s", (int)n, e->sym);
	if (ret == -ENOENT && later == -EINVAL && t->syms && hwbpi_symtab_exact(t->syms, base)) {
		hwbpi_say(err, errlen, "%s", expr_err);
		return later;
	}
	return ret;
}

/* Whether the NAME of entry symbol @sym ("[LIB:]NAME[@QUAL]") is a
 * glob pattern. */
static bool is_pattern(const char *sym)
{
	struct hwbpi_name_parts p;

	hwbpi_name_split(sym, &p);
	return hwbpi_name_is_pattern(sym + p.name, p.name_len);
}

int hwbpi_tracer_apply(struct hwbpi_tracer *t, const struct hwbp_trace_entry *e,
		       char *err, size_t errlen)
{
	struct hwbpi_watch w;
	int at, ret;

	if (err && errlen)
		err[0] = '\0';   /* no note */
	if (!t || !e)
		return -EINVAL;
	if (strcmp(e->sym, "*") == 0) {
		if (e->type) {
			hwbpi_say(err, errlen, "'*' takes only ---");
			return -EINVAL;
		}
		t->nw = 0;
		return 0;
	}
	if (e->sym[0]) {
		struct hwbpi_symtab_amb amb = { 0 };
		const struct hwbp_sym *s = NULL;

		/* A name some symbol has is that symbol, even when it holds
		 * '.' ("x.cold"); else a C expression over a variable something
		 * knows ("cfg->limits[2]"), decided before the lookup of
		 * demangled names, whose index a "." would make it build; then
		 * a symbol by any of its names; else a pattern. */
		int later = 0;

		/* The kernel's per-CPU variable by its plain name: each
		 * CPU's copy, not the symbol's value (an offset, or the boot
		 * copy no CPU uses). */
		s = t->ksyms && t->syms ? hwbp_symtab_find(t->syms, e->sym) : NULL;
		if (s && e->type && hwbpi_ksyms_percpu(t->ksyms, s)) {
			if ((ret = hwbpi_watch_percpu(t, e, s, &w, err, errlen)))
				return ret;
			goto add;
		}
		if (!t->syms || !hwbpi_symtab_exact(t->syms, e->sym)) {
			struct hwbpi_objspec spec;
			const char *msg = "";
			unsigned col = 0;
			/* An object a function is given: "f(arg)->x", "f():return->x". */
			int xr = hwbpi_watch_object_form(t->syms, e->sym, &spec, &col, &msg);

			if (xr < 0) {
				hwbpi_say(err, errlen, "%s: column %u: %s (EINVAL)", e->sym, col, msg);
				return xr;
			}
			if (xr > 0) {
				if ((ret = hwbpi_watch_object(t, e, &spec, &w, err, errlen)))
					return ret;
				goto add;
			}
			xr = hwbpi_watch_expr(t, e, &w, &later, err, errlen);

			if (xr < 0)
				return xr;
			if (xr == 0)
				goto add;
		}
		ret = t->syms ? hwbpi_symtab_resolve(t->syms, e->sym, &s, &amb) : -ENOENT;
		if (ret != -ENOENT)
			err[0] = '\0';   /* a demangled name after all */
		if (ret == -ENOENT && is_pattern(e->sym))
			return pattern_or_expr(t, e, later, err, errlen);
		/* An expression whose variable nothing knows, a malformed
		 * one: its message. */
		if (ret == -ENOENT && later)
			return later;
		/* Not in the table: perhaps a thread-local variable, which the
		 * table leaves out (its value is an offset: tracer/tls.h). */
		if (ret == -ENOENT) {
			struct hwbpi_tls_var tv = { 0, 0, 0, 0 };
			int tr = hwbpi_tls_find(t->syms, e->sym, &tv, err, errlen);

			if (tr == 0)
				ret = tls_watch_of(e, &tv, &w);
			else if (tr != -ENOENT)
				return tr;
			else
				return no_symbol(t, e, ret, &amb, err, errlen);
		} else if (ret) {
			return no_symbol(t, e, ret, &amb, err, errlen);
		} else if ((ret = watch_of(e, s, e->sym, &w, err, errlen))) {
			return ret;
		}
	} else {
		memset(&w, 0, sizeof(w));
		w.req = -1;
		w.addr = e->addr + e->off;
		w.len = e->len;
		w.type = e->type;
		snprintf(w.name, sizeof(w.name), "0x%" PRIx64, w.addr);
	}
add:
	/* Removal: every watch of that name, or of that symbol at that
	 * address (a pattern named it otherwise: "_ZN3app4hitsE" for
	 * "app::hits"). */
	if (!e->type) {
		drop_watch(t, &w, true);
		return 0;
	}
	if (w.len == 0 && !w.entry && !w.object) {
		hwbpi_say(err, errlen, "%s: the symbol table gives no size: add /LEN", w.name);
		return -EINVAL;
	}
	/* A second entry for the same name replaces the first. */
	if ((at = find_watch(t, &w, false)) >= 0) {
		t->w[at] = w;
		return 0;
	}
	if (t->nw == HWBP_MAX_REQUESTS) {
		hwbpi_say(err, errlen, "%s: too many watches", w.name);
		return -ENOSPC;
	}
	t->w[t->nw++] = w;
	return 0;
}

uint64_t hwbpi_watch_len(const struct hwbpi_watch *w, const struct hwbp_cpu *cpu)
{
	struct hwbp_caps caps;

	if (!w->entry)
		return w->len;
	/* An unknown model plans one byte; the planner then says why. */
	return hwbp_caps_get(cpu, &caps) == 0 && caps.inst_len ? caps.inst_len : 1;
}
