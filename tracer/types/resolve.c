/* SPDX-License-Identifier: MIT */
/*
 * An expression walked to the bytes it names (types/types.h): from its
 * base's address and type, each step adds a member's offset, an element's
 * or, through a pointer, starts again where the pointer points.  GDB does
 * the same to evaluate "&expr" (value_addr of a member chain); as with a
 * GDB watchpoint, a pointer is read once, when the watch is set, and the
 * watch stays on the bytes it pointed to then.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "types/types.h"

/* Where the walk is: an object at addr of type ty, under ptrs more levels
 * of pointer (a cast's "T *" that the source may have no id for), or,
 * with have_value, a pointer whose value is known (a cast number). */
struct at {
	uint64_t addr;
	struct hwbpi_type ty;
	unsigned ptrs;
	bool have_value;
	uint64_t value;
	unsigned bit_off, bit_size;  /* a bitfield: bits from addr */
};

struct walk {
	struct hwbpi_tsrc *src;
	const struct hwbpi_expr *e;
	const struct hwbpi_tbase *base;
	const struct hwbpi_tmem *mem;
	struct hwbpi_tres *r;
	char *err;
	size_t errlen;
	size_t how;                  /* bytes of r->how used */
	uint64_t last;               /* the last pointer read */
};

static int fail(struct walk *w, unsigned col, int ret, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int fail(struct walk *w, unsigned col, int ret, const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	hwbpi_say(w->err, w->errlen, "column %u: %s (%s)", col, msg, hwbp_errno_name(ret));
	return ret;
}

static int info(struct walk *w, const struct at *a, struct hwbpi_tinfo *ti)
{
	int ret;

	if (a->ptrs) {
		char in[HWBPI_TYPE_NAME_LEN];

		ret = w->src->ops->info(w->src, a->ty.id, ti);
		snprintf(in, sizeof(in), "%s", ti->name);
		memset(ti, 0, sizeof(*ti));
		ti->kind = HWBPI_TK_PTR;
		ti->size = w->src->ptr_size;
		snprintf(ti->name, sizeof(ti->name), "%.100s %.*s", in, (int)a->ptrs,
			 "****************");
		return ret;
	}
	return w->src->ops->info(w->src, a->ty.id, ti);
}

/* The expression's text before column @col (for the note's steps). */
static void add_how(struct walk *w, unsigned col, uint64_t value)
{
	size_t n = sizeof(w->r->how);

	if (w->how < n)
		w->how += (size_t)snprintf(w->r->how + w->how, n - w->how, "%s%.*s = 0x%" PRIx64,
					   w->how ? ", " : "", (int)(col - 1), w->e->text, value);
}

/* Follow the pointer at @a (its value read now, or known): @a becomes
 * the object it points to.  @col: the step's column. */
static int deref(struct walk *w, struct at *a, unsigned col, const struct hwbpi_tinfo *ti)
{
	uint64_t v = 0;
	int ret;

	if (w->base->tls || w->r->percpu)
		return fail(w, col, -EOPNOTSUPP, "a pointer in a %s variable has one value per %s: "
			    "not followed", w->base->tls ? "thread-local" : "per-CPU",
			    w->base->tls ? "thread" : "CPU");
	if (a->have_value) {
		v = a->value;
		a->have_value = false;
	} else {
		if (!w->mem->read)
			return fail(w, col, -EOPNOTSUPP, "cannot read the pointer %.*s: %s",
				    (int)(col - 1), w->e->text, w->mem->none);
		if (w->src->ptr_size > sizeof(v))
			return fail(w, col, -EIO, "pointers of %u bytes", w->src->ptr_size);
		ret = w->mem->read(w->mem->arg, a->addr, &v, w->src->ptr_size);
		if (ret)
			return fail(w, col, ret == -ENOMEM ? ret : -EFAULT, "cannot read the pointer "
				    "%.*s at 0x%" PRIx64 ": %s", (int)(col - 1), w->e->text, a->addr,
				    hwbp_errno_name(ret));
		w->r->nread++;
		w->last = v;
		add_how(w, col, v);
	}
	if (!v)
		return fail(w, col, -EFAULT, "%.*s is NULL%s%s", (int)(col - 1), w->e->text,
			    w->mem->hint ? ": " : "", w->mem->hint ? w->mem->hint : "");
	a->addr = v;
	if (a->ptrs)
		a->ptrs--;
	else
		a->ty = ti->target;
	return 0;
}

static int member(struct walk *w, struct at *a, const struct hwbpi_expr_step *st)
{
	struct hwbpi_tinfo ti;
	struct hwbpi_member m;
	char near[200];
	int ret = info(w, a, &ti);

	if (ret)
		return fail(w, st->col, ret, "the %s type of %.*s is unreadable", w->src->ops->name,
			    (int)(st->col - 1), w->e->text);
	if (st->op == '>') {
		if (ti.kind != HWBPI_TK_PTR)
			return fail(w, st->col, -EINVAL, "'->' on %.*s, a %s, not a pointer: use '.'",
				    (int)(st->col - 1), w->e->text, ti.name);
		if ((ret = deref(w, a, st->col, &ti)) || (ret = info(w, a, &ti)))
			return ret;
	} else if (ti.kind == HWBPI_TK_PTR) {
		return fail(w, st->col, -EINVAL, "'.' on %.*s, a pointer (%s): use '->'",
			    (int)(st->col - 1), w->e->text, ti.name);
	}
	if (ti.kind != HWBPI_TK_STRUCT && ti.kind != HWBPI_TK_UNION)
		return fail(w, st->col, -EINVAL, "%s has no members", ti.name);
	if (!ti.size)
		return fail(w, st->col, -ENOENT, "%s is incomplete in the %s here", ti.name,
			    w->src->ops->name);
	if (w->src->ops->member(w->src, ti.id, st->name, &m)) {
		hwbpi_types_suggest(w->src, ti.id, st->name, near, sizeof(near));
		return fail(w, st->col + (st->op == '>' ? 2 : 1), -ENOENT, "%s has no member '%s'%s",
			    ti.name, st->name, near);
	}
	a->addr += m.bit_off / 8;
	a->bit_off = (unsigned)(m.bit_off % 8);
	a->bit_size = m.bit_size;
	a->ty = m.type;
	return 0;
}

static int element(struct walk *w, struct at *a, const struct hwbpi_expr_step *st)
{
	struct hwbpi_tinfo ti, el;
	int ret = info(w, a, &ti);

	if (ret)
		return fail(w, st->col, ret, "the type is unreadable");
	if (ti.kind == HWBPI_TK_PTR) {
		if ((ret = deref(w, a, st->col, &ti)))
			return ret;
		ti.nelem = UINT64_MAX;   /* a pointer's elements have no bound */
	} else if (ti.kind == HWBPI_TK_ARRAY) {
		if (st->index >= ti.nelem)
			return fail(w, st->col + 1, -ERANGE, "index %" PRIu64 " past the bound of %s",
				    st->index, ti.name);
		a->ty = ti.target;
	} else {
		return fail(w, st->col, -EINVAL, "'[' on %.*s, a %s: neither an array nor a pointer",
			    (int)(st->col - 1), w->e->text, ti.name);
	}
	if ((ret = info(w, a, &el)))
		return fail(w, st->col, ret, "the element type is unreadable");
	if (!el.size && st->index)
		return fail(w, st->col, -EINVAL, "elements of %s have no size", el.name);
	if (st->index && el.size > (UINT64_MAX - a->addr) / st->index)
		return fail(w, st->col, -ERANGE, "the element's address wraps past 2^64");
	a->addr += st->index * el.size;
	return 0;
}

/* The base: its address and type. */
static int start(struct walk *w, struct at *a)
{
	const struct hwbpi_expr *e = w->e;
	struct hwbpi_tvar v;
	uint64_t id;
	int ret;

	memset(a, 0, sizeof(*a));
	a->addr = w->base->addr;
	if (w->base->typed) {
		a->ty = w->base->type;
		a->have_value = true;
		a->value = w->base->addr;
		return 0;
	}
	if (e->cast[0]) {
		if (w->src->ops->find_type(w->src, e->cast, &id))
			return fail(w, e->cast_col + 1, -ENOENT, "no type '%s' in the %s", e->cast,
				    w->src->ops->name);
		a->ty = (struct hwbpi_type){ w->src, id };
		a->ptrs = e->cast_ptr;
		/* A known per-CPU base stays per-CPU under a cast. */
		w->r->percpu = w->base->percpu;
		if (e->base[0] && !w->base->known) {
			/* Not in the symbol table: where the source says it
			 * is (a static local), or nowhere known. */
			if (w->src->ops->find_var(w->src, e->base, 0, &v) || (!v.addr && !v.percpu))
				return -ENOENT;
			a->addr = v.addr;
			w->r->percpu = v.percpu;
		}
		if (e->base[0])
			return 0;
		/* A number: "(T *)0xADDR->x" is a pointer of that value
		 * (its first step reads nothing); "(struct net)0xADDR.x" and
		 * "(T *)0xADDR" alone are the object there. */
		if (e->cast_ptr && e->nstep) {
			a->have_value = true;
			a->value = e->base_addr;
		} else {
			a->ptrs = e->cast_ptr ? e->cast_ptr - 1 : 0;
			a->addr = e->base_addr;
		}
		return 0;
	}
	ret = w->src->ops->find_var(w->src, e->base, w->base->known ? w->base->addr : 0, &v);
	if (ret)
		return ret;   /* the caller says what the sources lack */
	if (!w->base->known && !v.addr && !v.percpu)
		return -ENOENT;   /* a declaration: no address anywhere */
	a->ty = v.type;
	w->r->percpu = v.percpu || w->base->percpu;
	if (!w->base->known)
		a->addr = v.addr;
	return 0;
}

int hwbpi_types_resolve(struct hwbpi_tsrc *src, const struct hwbpi_expr *e,
			const struct hwbpi_tbase *base, const struct hwbpi_tmem *mem,
			struct hwbpi_tres *r, char *err, size_t errlen)
{
	struct walk w = { src, e, base, mem, r, err, errlen, 0, 0 };
	struct hwbpi_tinfo ti;
	struct at a;
	int ret;

	memset(r, 0, sizeof(*r));
	if ((ret = start(&w, &a)))
		return ret;
	r->step[r->nsteps++] = (struct hwbpi_tstep){
		.len = (uint16_t)(e->nstep ? e->step[0].col - 1 : strlen(e->text)), .addr = a.addr };
	for (unsigned i = 0; i < e->nstep; i++) {
		const struct hwbpi_expr_step *st = &e->step[i];
		unsigned nread = r->nread;

		/* A bitfield is a leaf: nothing steps into it. */
		if (a.bit_size)
			return fail(&w, st->col, -EINVAL, "%.*s is a bitfield", (int)(st->col - 1),
				    e->text);
		ret = st->op == '[' ? element(&w, &a, st) : member(&w, &a, st);
		if (ret)
			return ret;
		r->step[r->nsteps++] = (struct hwbpi_tstep){
			.len = (uint16_t)(i + 1 < e->nstep ? e->step[i + 1].col - 1 : strlen(e->text)),
			.read = r->nread != nread, .value = w.last, .addr = a.addr };
	}
	if (info(&w, &a, &ti))
		return fail(&w, 1, -EIO, "the %s type of %s is unreadable", src->ops->name, e->text);
	snprintf(r->type, sizeof(r->type), "%s", ti.name);
	r->addr = a.addr;
	r->size = ti.size;
	if (a.bit_size) {
		r->bit_shift = a.bit_off;
		r->bit_width = a.bit_size;
		r->size = (a.bit_off + a.bit_size + 7) / 8;
	}
	return 0;
}

/* Levenshtein distance of @a and @b (each under 128 bytes: longer ones
 * are far from anything). */
static unsigned distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	unsigned row[128];

	if (la >= 128 || lb >= 128)
		return 1000;
	for (size_t j = 0; j <= lb; j++)
		row[j] = (unsigned)j;
	for (size_t i = 1; i <= la; i++) {
		unsigned diag = row[0];

		row[0] = (unsigned)i;
		for (size_t j = 1; j <= lb; j++) {
			unsigned up = row[j], best = diag + (a[i - 1] != b[j - 1]);

			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			diag = up;
			row[j] = best;
		}
	}
	return row[lb];
}

void hwbpi_types_suggest(struct hwbpi_tsrc *src, uint64_t id, const char *name, char *out,
			 size_t n)
{
	const char *best[3] = { NULL, NULL, NULL }, *m;
	unsigned bd[3] = { 0, 0, 0 }, limit = (unsigned)strlen(name) / 3 + 1;
	size_t k = 0;

	out[0] = '\0';
	if (limit > 3)
		limit = 3;
	/* The three closest within the limit, closest first (GDB lists the
	 * near misses the same way for "There is no member named"). */
	for (unsigned i = 0; src->ops->member_name(src, id, i, &m); i++) {
		unsigned d = distance(name, m);

		if (d > limit)
			continue;
		for (int j = 0; j < 3; j++) {
			if (best[j] && bd[j] <= d)
				continue;
			for (int l = 2; l > j; l--)
				best[l] = best[l - 1], bd[l] = bd[l - 1];
			best[j] = m;
			bd[j] = d;
			break;
		}
	}
	for (int j = 0; j < 3 && best[j] && k < n; j++)
		k += (size_t)snprintf(out + k, n - k, "%s%s", j ? ", " : "; did you mean ", best[j]);
	if (best[0] && k < n)
		snprintf(out + k, n - k, "?");
}
