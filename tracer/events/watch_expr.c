/* SPDX-License-Identifier: MIT */
/*
 * Watches of C expressions (events/watch_int.h): "cfg->limits[2]",
 * "init_net.ipv4.sysctl_ip_default_ttl", "(struct net)init_net.ipv4.x".
 * The base is found as a plain entry's symbol is (the symbol table, then
 * the thread-local variables), or by the type sources alone (a static
 * local "func::var", a per-CPU variable BTF knows); the rest is
 * types/'s walk.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "events/watch_int.h"

/* The base of @ex: a symbol, a thread-local variable, or (known false)
 * one for the type sources to find.  *@name: the symbol's name. */
static int find_base(struct hwbpi_tracer *t, const struct hwbpi_expr *ex, struct hwbpi_tbase *b,
		     char *err, size_t errlen)
{
	struct hwbpi_tls_var tv = { 0, 0, 0, 0 };
	const struct hwbp_sym *s = NULL;
	int ret;

	memset(b, 0, sizeof(*b));
	if (!ex->base[0]) {
		b->addr = ex->base_addr;
		b->known = true;
		return 0;
	}
	if (t->syms && hwbpi_symtab_resolve(t->syms, ex->base, &s, NULL) == 0) {
		b->addr = s->addr;
		b->known = true;
		/* The kernel's symbol table knows its per-CPU variables when
		 * a type source does not (a vmlinux's DWARF locates them as
		 * any global, a cast says nothing of where). */
		b->percpu = hwbpi_ksyms_percpu(t->ksyms, s);
		/* nm's upper case: a global, whose name is unique. */
		b->global = isupper((unsigned char)s->type) != 0;
		return 0;
	}
	ret = t->syms ? hwbpi_tls_find(t->syms, ex->base, &tv, err, errlen) : -ENOENT;
	if (ret == 0) {
		b->addr = tv.off;
		b->tls_memsz = tv.memsz;
		b->tls_align = tv.align;
		b->known = b->tls = b->global = true;
		return 0;
	}
	return ret == -ENOENT ? 0 : ret;
}

/* "cfg = 0x55.. -> watching 0x55..+0x18, 4 bytes (int)" */
static void note(const struct hwbpi_tbase *b,
		 const struct hwbpi_tres *r, const struct hwbpi_watch *w, const char *src,
		 char *out, size_t n)
{
	const char *where = b->tls ? " in each thread's TLS block" :
			    w->percpu ? " + each CPU's __per_cpu_offset" : "";
	size_t k = 0;

	const struct hwbpi_tstep *last = NULL;
	char at[64];

	for (unsigned i = 0; i < r->nsteps; i++)
		if (r->step[i].read)
			last = &r->step[i];
	/* After a pointer, where the watch is in what it points to. */
	if (last && w->addr >= last->value)
		snprintf(at, sizeof(at), "0x%" PRIx64 "+0x%" PRIx64, last->value,
			 w->addr - last->value);
	else
		snprintf(at, sizeof(at), "%s0x%" PRIx64, b->tls ? "offset " : "", w->addr);
	if (r->how[0])
		k = (size_t)snprintf(out, n, "%s -> ", r->how);
	if (k < n)
		k += (size_t)snprintf(out + k, n - k, "watching %s%s, %" PRIu64 " byte%s (%s, from %s)",
				      at, where, w->len, w->len == 1 ? "" : "s", r->type, src);
	if (r->bit_width && k < n)
		snprintf(out + k, n - k, ": the bitfield's bits %u..%u of them", r->bit_shift,
			 r->bit_shift + r->bit_width - 1);
}

/* Why no source typed the base (every source said -ENOENT): none to
 * ask (@asked empty), or none that has the variable, which a cast names
 * (the kernel's BTF types only per-CPU variables). */
static int no_type(const struct hwbpi_expr *ex, const char *asked, bool cast_missing,
		   const char *why, char *err, size_t errlen)
{
	const char *rest = ex->text + ex->base_col - 1 + strlen(ex->base);

	if (cast_missing)
		hwbpi_say(err, errlen, "column %u: no type '%s' in the %s (ENOENT)", ex->cast_col + 1,
			  ex->cast, asked);
	else if (!asked[0] && ex->cast[0])
		hwbpi_say(err, errlen, "column %u: no type '%s': %s (ENOENT)", ex->cast_col + 1,
			  ex->cast, why[0] ? why : "no DWARF or BTF describes this workload");
	else if (!asked[0])
		hwbpi_say(err, errlen, "column %u: no type for '%s': %s (ENOENT)", ex->base_col,
			  ex->base, why[0] ? why : "no DWARF or BTF describes this workload");
	else if (strstr(asked, "BTF"))
		hwbpi_say(err, errlen, "column %u: no type for '%s' in %s (the kernel's BTF types "
			  "only per-CPU variables; a vmlinux's DWARF, --vmlinux, types every one): "
			  "give its type as a cast, '(struct TYPE)%s%s' (ENOENT)", ex->base_col,
			  ex->base, asked, ex->base, rest);
	else
		hwbpi_say(err, errlen, "column %u: no type for '%s' in the %s of the file holding "
			  "it: give its type as a cast, '(struct TYPE)%s%s' (ENOENT)", ex->base_col,
			  ex->base, asked, ex->base, rest);
	return -ENOENT;
}

/* A per-CPU variable that only BTF knows: its offset in the section made
 * the value its symbol would have (__per_cpu_start + offset: 0-based on
 * x86_64, the boot copy's address on arm64). */
static int percpu_base(struct hwbpi_tracer *t, const struct hwbpi_expr *ex, struct hwbpi_tres *r,
		       char *err, size_t errlen)
{
	const struct hwbp_sym *start = t->syms ? hwbp_symtab_find(t->syms, "__per_cpu_start") : NULL;

	if (!start) {
		hwbpi_say(err, errlen, "column %u: per-CPU variable '%s' is in BTF, but neither it nor "
			  "__per_cpu_start is in the symbol table: give --vmlinux FILE or a System.map "
			  "(ENOENT)", ex->base_col, ex->base);
		return -ENOENT;
	}
	r->addr += start->addr;
	for (unsigned i = 0; i < r->nsteps; i++)
		r->step[i].addr += start->addr;
	return 0;
}

/* The watch of resolved @r. */
static int make_watch(const struct hwbp_trace_entry *e, const struct hwbpi_tbase *b,
		      const struct hwbpi_tres *r, struct hwbpi_watch *w, char *err, size_t errlen)
{
	memset(w, 0, sizeof(*w));
	w->req = -1;
	w->expr = true;
	w->addr = r->addr + e->off;
	w->tls = b->tls;
	/* The backend places the block from PT_TLS: without it, each
	 * thread's block would be computed from a size of zero. */
	w->tls_memsz = b->tls_memsz;
	w->tls_align = b->tls_align;
	w->percpu = r->percpu;
	w->len_given = e->len != 0;
	w->len = e->len ? e->len : r->size > e->off ? r->size - e->off : 0;
	w->type = e->type;
	w->bit_shift = (uint8_t)r->bit_shift;
	w->bit_width = (uint8_t)r->bit_width;
	snprintf(w->type_name, sizeof(w->type_name), "%s", r->type);
	if (e->off)
		snprintf(w->name, sizeof(w->name), "%s+%" PRIu64, e->sym, e->off);
	else
		snprintf(w->name, sizeof(w->name), "%s", e->sym);
	/* A bitfield's /LEN must still hold its bits. */
	if (r->bit_width && (e->off || (e->len && e->len < r->size))) {
		hwbpi_say(err, errlen, "%s: a bitfield of bits %u..%u in %" PRIu64 " byte%s: "
			  "+OFF/LEN that does not hold it (EINVAL)", w->name, r->bit_shift,
			  r->bit_shift + r->bit_width - 1, r->size, r->size == 1 ? "" : "s");
		return -EINVAL;
	}
	if (w->len && w->len - 1 > UINT64_MAX - w->addr) {
		hwbpi_say(err, errlen, "%s: address range wraps past 2^64 (ERANGE)", w->name);
		return -ERANGE;
	}
	return 0;
}

/* Type sources asked, for no_type(): "DWARF", "BTF", "DWARF and BTF". */
struct asked {
	char names[32];
	char why[300];
	bool cast_found;             /* a source has the cast's type */
};

/*
 * Expression @ex over base @b walked by the first type source that knows
 * it (another would type the same names the same way; a cast names its
 * type: any file's DWARF may have it) into watch @w, its note in @err.
 * Returns 0, -ENOENT with @err empty when no source knows the base (what
 * was asked in *@a), or an error with one line in @err.
 */
static int typed_watch(struct hwbpi_tracer *t, const struct hwbp_trace_entry *e,
		       const struct hwbpi_expr *ex, const struct hwbpi_tbase *b,
		       struct hwbpi_watch *w, struct asked *a, char *err, size_t errlen)
{
	struct hwbpi_tsrc *src;
	struct hwbpi_tres r;
	unsigned pos = 0;
	int ret = -ENOENT;

	while (ret == -ENOENT && t->typer &&
	       (src = hwbpi_typer_next(t->typer, b->known && !b->tls && !ex->cast[0] ? b->addr : 0,
				       ex->cast[0] != 0, &pos, a->why, sizeof(a->why)))) {
		size_t k = strlen(a->names);
		uint64_t id;

		if (!strstr(a->names, src->ops->name))
			snprintf(a->names + k, sizeof(a->names) - k, "%s%s", k ? " and " : "",
				 src->ops->name);
		/* A cast's type may be in any source (a library's DWARF, a
		 * module's BTF): the first that has it walks. */
		if (ex->cast[0] && src->ops->find_type(src, ex->cast, &id))
			continue;
		a->cast_found = true;
		err[0] = '\0';
		ret = hwbpi_types_resolve(src, ex, b, &t->mem, &r, err, errlen);
		if (ret == 0 && r.percpu && !b->known && (ret = percpu_base(t, ex, &r, err, errlen)))
			return ret;
		if (ret == 0) {
			if ((ret = make_watch(e, b, &r, w, err, errlen)))
				return ret;
			memcpy(w->step, r.step, sizeof(r.step));
			w->nsteps = (uint8_t)r.nsteps;
			note(b, &r, w, src->ops->name, err, errlen);
			return 0;
		}
		if (ret == -ENOENT && err[0])
			return ret;   /* a member, a type: the walk's own message */
	}
	if (ret == -ENOENT)
		err[0] = '\0';   /* no source knows the base: the caller says so */
	return ret;
}

int hwbpi_watch_expr(struct hwbpi_tracer *t, const struct hwbp_trace_entry *e,
		     struct hwbpi_watch *w, int *later, char *err, size_t errlen)
{
	struct hwbpi_expr ex;
	struct hwbpi_tbase b;
	struct asked a = { "", "", false };
	const char *msg = "";
	unsigned col = 0;
	int ret = hwbpi_expr_parse(e->sym, &ex, &col, &msg);

	*later = 0;
	if (ret == 0 && t->ksyms && ex.base[0] && strcmp(ex.base, e->sym) == 0) {
		/* A plain name no kernel symbol has: a per-CPU variable that
		 * only BTF knows (kallsyms without data symbols), typed there
		 * and placed from __per_cpu_start; else the symbol table's. */
		if ((ret = find_base(t, &ex, &b, err, errlen)))
			return ret;
		if (!b.known && (ret = typed_watch(t, e, &ex, &b, w, &a, err, errlen)) != -ENOENT)
			return ret;
		if (err[0])
			return ret;
		return 1;
	}
	if (ret <= 0) {
		/* Not an expression; a malformed one may still be a name or
		 * a pattern ("x[0-9]"): its error is the caller's last word. */
		if (ret < 0)
			hwbpi_say(err, errlen, "column %u: %s (EINVAL)", col, msg);
		*later = ret;
		return 1;
	}
	if ((ret = find_base(t, &ex, &b, err, errlen)))
		return ret;
	ret = typed_watch(t, e, &ex, &b, w, &a, err, errlen);
	if (ret != -ENOENT || err[0])
		return ret;
	if (!b.known && ex.base[0]) {
		/* Nothing knows that name: said here, returned as "no
		 * expression" (the caller tries it as a pattern first). */
		hwbpi_say(err, errlen, "column %u: no symbol '%s' in the symbol table%s%s (ENOENT)",
			  ex.base_col, ex.base, t->missing_hint ? ": " : "",
			  t->missing_hint ? t->missing_hint : "");
		*later = -ENOENT;
		return 1;
	}
	return no_type(&ex, a.names, ex.cast[0] && a.names[0] && !a.cast_found, a.why, err,
		       errlen);
}

int hwbpi_watch_percpu(struct hwbpi_tracer *t, const struct hwbp_trace_entry *e,
		       const struct hwbp_sym *s, struct hwbpi_watch *w, char *err, size_t errlen)
{
	struct hwbpi_expr ex;
	struct hwbpi_tbase b = { .addr = s->addr, .known = true, .percpu = true, .global = true };
	struct asked a = { "", "", false };
	const char *msg = "";
	unsigned col = 0;
	bool sized = !hwbpi_symtab_size_inferred(t->syms, s) && s->size;
	int ret;

	/* A plain name is an expression without steps: its type, when a
	 * source has one, gives the length and the values' type. */
	if (hwbpi_expr_parse(e->sym, &ex, &col, &msg) != 0 || ex.nstep || !ex.base[0]) {
		hwbpi_say(err, errlen, "%s: not a per-CPU variable's name (EINVAL)", e->sym);
		return -EINVAL;
	}
	ret = typed_watch(t, e, &ex, &b, w, &a, err, errlen);
	if (ret != -ENOENT || err[0])
		return ret;
	/* No type: the symbol's own size (a vmlinux's st_size) or /LEN. */
	if (!e->len && !sized) {
		hwbpi_say(err, errlen, "%s: a per-CPU variable whose size nothing gives (%s): add /LEN, "
			  "or --vmlinux FILE with its st_size or DWARF (EINVAL)", e->sym,
			  a.names[0] ? "no type in the kernel's BTF" : a.why[0] ? a.why : "no BTF");
		return -EINVAL;
	}
	memset(w, 0, sizeof(*w));
	w->req = -1;
	w->addr = s->addr + e->off;
	w->percpu = true;
	w->len_given = e->len != 0;
	w->len = e->len ? e->len : s->size > e->off ? s->size - e->off : 0;
	w->type = e->type;
	if (e->off)
		snprintf(w->name, sizeof(w->name), "%s+%" PRIu64, e->sym, e->off);
	else
		snprintf(w->name, sizeof(w->name), "%s", e->sym);
	hwbpi_say(err, errlen, "watching 0x%" PRIx64 " + each CPU's __per_cpu_offset, %" PRIu64
		  " byte%s (untyped: %s)", w->addr, w->len, w->len == 1 ? "" : "s",
		  e->len ? "/LEN" : "the symbol's size");
	return 0;
}
