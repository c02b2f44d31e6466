/* SPDX-License-Identifier: MIT */
/*
 * Watches of objects (objects/objects.h) resolved: the arming function
 * and its parameter (or return value) by name, typed by the first source
 * that has the function's prototype (a program's DWARF, the kernel's
 * BTF: pahole encodes every function's FUNC_PROTO with its parameters'
 * names), the field chain walked once to an offset from the object's
 * address, and the release point.  Each object's address comes later,
 * when the backend sees the function run.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "events/watch_int.h"

/* Any nonzero pointer value: the chain's offset comes out the same. */
#define OBJ_BASE UINT64_C(0x100000)

/* The function of @f in the symbol table (its entry).  Errors: -ENOENT. */
static int obj_func(struct hwbpi_tracer *t, const char *what, struct hwbpi_objfn *f, char *err,
		    size_t errlen)
{
	const struct hwbp_sym *s = NULL;

	if (!t->syms || hwbpi_symtab_resolve(t->syms, f->func, &s, NULL) || !s) {
		hwbpi_say(err, errlen, "%s%sno function '%s' in the symbol table (ENOENT)", what, what[0] ? ": " : "",
			  f->func);
		return -ENOENT;
	}
	if (s->type != 'T' && s->type != 't' && s->type != 'W' && s->type != 'w') {
		hwbpi_say(err, errlen, "%s%s'%s' is not a function (EINVAL)", what, what[0] ? ": " : "", f->func);
		return -EINVAL;
	}
	f->addr = s->addr;
	return 0;
}

/* Parameter (or return value) of @f: its index, and its type in *@src,
 * *@p; it must be a pointer.  Errors (one line): -ENOENT (no prototype
 * anywhere, no such parameter: the function's are listed), -EINVAL (not
 * a pointer), -ENODATA (a function returning void). */
static int obj_param(struct hwbpi_tracer *t, const char *what, struct hwbpi_objfn *f,
		     struct hwbpi_tsrc **src, struct hwbpi_tparam *p, char *err, size_t errlen)
{
	char why[256] = "";
	unsigned pos = 0;
	struct hwbpi_tinfo ti;
	int ret = -ESRCH;

	while (ret == -ESRCH && t->typer &&
	       (*src = hwbpi_typer_next(t->typer, f->addr, false, &pos, why, sizeof(why))))
		ret = (*src)->ops->func_param ? (*src)->ops->func_param(*src, f->func,
									f->ret ? NULL : f->param, p)
					      : -ESRCH;
	if (ret == -ESRCH) {
		hwbpi_say(err, errlen, "%s%sno prototype of %s() in the type sources%s%s (ENOENT)",
			  what, what[0] ? ": " : "", f->func, why[0] ? ": " : "", why);
		return -ENOENT;
	}
	if (ret == -ENOENT) {
		hwbpi_say(err, errlen, "%s%scolumn %u: %s() has no parameter '%s' (it has: %s) (ENOENT)",
			  what, what[0] ? ": " : "", f->col, f->func, f->param, p->names[0] ? p->names : "none");
		return ret;
	}
	if (ret == -ENODATA) {
		hwbpi_say(err, errlen, "%s%s%s() returns nothing (EINVAL)", what, what[0] ? ": " : "", f->func);
		return -EINVAL;
	}
	if (ret || (ret = (*src)->ops->info(*src, p->type.id, &ti))) {
		hwbpi_say(err, errlen, "%s%s%s() is unreadable in the %s (%s)", what, what[0] ? ": " : "", f->func,
			  (*src)->ops->name, hwbp_errno_name(ret));
		return ret;
	}
	if (ti.kind != HWBPI_TK_PTR) {
		hwbpi_say(err, errlen, "%s%scolumn %u: %s of %s() is %s, not a pointer to an "
			  "object (EINVAL)", what, what[0] ? ": " : "", f->col, f->ret ? "the return value" : f->param,
			  f->func, ti.name);
		return -EINVAL;
	}
	f->index = p->index;
	snprintf(p->tname, sizeof(p->tname), "%s", ti.name);
	return 0;
}

/* The chain from the object pointer: its offset, length and type. */
static int obj_chain(struct hwbpi_tracer *t, const struct hwbp_trace_entry *e,
		     struct hwbpi_tsrc *src, const struct hwbpi_tparam *p, struct hwbpi_watch *w,
		     char *err, size_t errlen)
{
	struct hwbpi_objspec *o = &w->obj;
	const char *base = o->arm.ret ? "return" : o->arm.param;
	struct hwbpi_tmem none = { NULL, NULL, "an object's chain is resolved to an offset "
				   "once: a pointer in it is not followed", NULL };
	struct hwbpi_tbase b = { .addr = OBJ_BASE, .known = true, .typed = true, .type = p->type };
	char text[HWBP_TRACE_SYM_LEN + 80], msg[400];
	struct hwbpi_expr ex;
	struct hwbpi_tres r;
	const char *why = "";
	unsigned col = 0;
	int ret;

	(void)t;
	snprintf(text, sizeof(text), "%s%s", base, o->chain[0] ? o->chain : "[0]");
	ret = hwbpi_expr_parse(text, &ex, &col, &why);
	if (ret < 0) {
		hwbpi_say(err, errlen, "%s in '%s' (EINVAL)", why, text);
		return -EINVAL;
	}
	ret = hwbpi_types_resolve(src, &ex, &b, &none, &r, msg, sizeof(msg));
	if (ret) {
		hwbpi_say(err, errlen, "in '%s': %s", text, msg);
		return ret;
	}
	o->off = r.addr - OBJ_BASE;
	w->len = e->len ? e->len : r.size;
	w->len_given = e->len != 0;
	w->bit_shift = (uint8_t)r.bit_shift;
	w->bit_width = (uint8_t)r.bit_width;
	snprintf(w->type_name, sizeof(w->type_name), "%s", r.type);
	return 0;
}

int hwbpi_watch_object_form(const struct hwbp_symtab *syms, const char *sym,
			    struct hwbpi_objspec *spec, unsigned *col, const char **msg)
{
	const struct hwbp_sym *named = NULL;
	int ret = hwbpi_objspec_parse(sym, spec, col, msg);

	if (ret != 0 && syms && hwbpi_symtab_resolve(syms, sym, &named, NULL) == 0)
		return 0;
	return ret;
}

int hwbpi_watch_object(struct hwbpi_tracer *t, const struct hwbp_trace_entry *e,
		       const struct hwbpi_objspec *spec, struct hwbpi_watch *w, char *err,
		       size_t errlen)
{
	struct hwbpi_objspec *o = &w->obj;
	struct hwbpi_tparam p, rp;
	struct hwbpi_tsrc *src = NULL, *rsrc = NULL;
	const char *msg = "";
	int ret;

	memset(w, 0, sizeof(*w));
	w->req = -1;
	w->object = true;
	w->obj = *spec;
	w->type = e->type;
	snprintf(w->name, sizeof(w->name), "%s", e->sym);
	if (!e->type)
		return 0;   /* a removal: the name is all it needs */
	if (e->type & HWBP_X) {
		hwbpi_say(err, errlen, "an object's field is watched for r and w, not x (EINVAL)");
		return -EINVAL;
	}
	if (e->off) {
		hwbpi_say(err, errlen, "+OFF does not apply to an object: name the field "
			  "(EINVAL)");
		return -EINVAL;
	}
	if (!t->release) {
		hwbpi_say(err, errlen, "an object needs its release point: --release "
			  "FUNC(PARAM) or --release scope (EINVAL)");
		return -EINVAL;
	}
	if (hwbpi_objspec_release(t->release, o, &msg)) {
		hwbpi_say(err, errlen, "--release '%s': %s (EINVAL)", t->release, msg);
		return -EINVAL;
	}
	if ((ret = obj_func(t, "", &o->arm, err, errlen)) ||
	    (ret = obj_param(t, "", &o->arm, &src, &p, err, errlen)) ||
	    (ret = obj_chain(t, e, src, &p, w, err, errlen)))
		return ret;
	if (!o->scope) {
		char what[HWBP_TRACE_SYM_LEN + 16];

		snprintf(what, sizeof(what), "--release '%s'", t->release);
		if ((ret = obj_func(t, what, &o->rel, err, errlen)) ||
		    (ret = obj_param(t, what, &o->rel, &rsrc, &rp, err, errlen)))
			return ret;
	}
	/* The note: what each object's watch will be. */
	hwbpi_say(err, errlen, "the object is %s of %s() (%s, from %s); watching +0x%" PRIx64
		  ", %" PRIu64 " bytes (%s) of each, released %s%s%s",
		  o->arm.ret ? "the return value" : o->arm.param, o->arm.func, p.tname,
		  src->ops->name, o->off, w->len, w->type_name, o->scope ? "when the call returns" :
		  "as ", o->scope ? "" : t->release, o->scope ? "" : " is called");
	return 0;
}
