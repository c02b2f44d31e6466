/* SPDX-License-Identifier: MIT */
/*
 * Types from BTF (types/types.h), through libbpf's BTF API (btf.h): the
 * running kernel's /sys/kernel/btf/vmlinux, or any BTF file.
 *
 * What BTF holds decides what this source can answer: every struct,
 * union, enum and typedef of the kernel, but, as pahole encodes it for
 * Debian's 6.1 kernels, variables only of the per-CPU section
 * (".data..percpu"): a global's type then comes from a vmlinux's DWARF or
 * a cast, and find_var says -ENOENT.  A BTF id is the source's id.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "types/types.h"

#ifndef HWBP_HAVE_LIBBPF
struct hwbpi_tsrc *hwbpi_tsrc_btf(const char *path, int *err)
{
	(void)path;
	*err = -EOPNOTSUPP;
	return NULL;
}

struct hwbpi_tsrc *hwbpi_tsrc_btf_split(const char *path, struct hwbpi_tsrc *base, int *err)
{
	(void)path;
	(void)base;
	*err = -EOPNOTSUPP;
	return NULL;
}
#else
#include <bpf/btf.h>

#define PERCPU_SEC ".data..percpu"

struct tbtf {
	struct hwbpi_tsrc src;       /* first: the source is this */
	struct btf *btf;
};

static struct btf *btf_of(struct hwbpi_tsrc *s)
{
	return ((struct tbtf *)(void *)s)->btf;
}

static bool is_qualifier(const struct btf_type *t)
{
	return btf_is_typedef(t) || btf_is_const(t) || btf_is_volatile(t) || btf_is_restrict(t) ||
	       btf_is_type_tag(t);
}

/* @id with typedefs and qualifiers looked through (0: void). */
static uint32_t strip(const struct btf *b, uint32_t id)
{
	const struct btf_type *t;

	for (int i = 0; i < 64 && id && (t = btf__type_by_id(b, id)) && is_qualifier(t); i++)
		id = t->type;
	return id;
}

static const char *word(const struct btf_type *t)
{
	return btf_is_struct(t) ? "struct " : btf_is_union(t) ? "union " :
	       btf_is_any_enum(t) ? "enum " :
	       btf_is_fwd(t) ? (btf_kflag(t) ? "union " : "struct ") : "";
}

static void spell(const struct btf *b, uint32_t id, char *out, size_t n, int depth)
{
	const struct btf_type *t = id ? btf__type_by_id(b, id) : NULL;
	const char *nm = t ? btf__name_by_offset(b, t->name_off) : NULL;
	char inner[HWBPI_TYPE_NAME_LEN];

	if (!t) {
		snprintf(out, n, "void");
	} else if (depth > 8) {
		snprintf(out, n, "...");
	} else if (nm && nm[0]) {
		snprintf(out, n, "%s%s", word(t), nm);
	} else if (btf_is_ptr(t)) {
		spell(b, t->type, inner, sizeof(inner), depth + 1);
		snprintf(out, n, "%.100s *", inner);
	} else if (btf_is_array(t)) {
		spell(b, btf_array(t)->type, inner, sizeof(inner), depth + 1);
		snprintf(out, n, "%.100s[%u]", inner, btf_array(t)->nelems);
	} else if (is_qualifier(t)) {
		spell(b, t->type, out, n, depth + 1);
	} else {
		snprintf(out, n, "%s(anonymous)", word(t));
	}
}

static int find_type(struct hwbpi_tsrc *s, const char *name, uint64_t *id);

static int t_info(struct hwbpi_tsrc *s, uint64_t id, struct hwbpi_tinfo *o)
{
	const struct btf *b = btf_of(s);
	const struct btf_type *t;
	uint32_t in;
	__s64 sz;

	memset(o, 0, sizeof(*o));
	if (id > UINT32_MAX || (id && !btf__type_by_id(b, (uint32_t)id)))
		return -ENOENT;
	spell(b, (uint32_t)id, o->name, sizeof(o->name), 0);
	in = strip(b, (uint32_t)id);
	t = in ? btf__type_by_id(b, in) : NULL;
	if (t && btf_is_fwd(t)) {
		/* A forward declaration: its definition, by name. */
		uint64_t def;

		if (find_type(s, o->name, &def) == 0)
			in = (uint32_t)def, t = btf__type_by_id(b, in);
	}
	o->id = in;
	if (!t)
		return 0;
	sz = btf__resolve_size(b, in);
	o->size = sz > 0 ? (uint64_t)sz : 0;
	if (btf_is_composite(t)) {
		o->kind = btf_is_struct(t) ? HWBPI_TK_STRUCT : HWBPI_TK_UNION;
	} else if (btf_is_ptr(t)) {
		o->kind = HWBPI_TK_PTR;
		o->size = s->ptr_size;
		o->target = (struct hwbpi_type){ s, t->type };
	} else if (btf_is_array(t)) {
		o->kind = HWBPI_TK_ARRAY;
		o->nelem = btf_array(t)->nelems;
		o->target = (struct hwbpi_type){ s, btf_array(t)->type };
	} else if (btf_is_int(t) || btf_is_any_enum(t) || btf_is_float(t)) {
		o->kind = HWBPI_TK_SCALAR;
	}
	return 0;
}

/* Member @want (or the @want_i-th named, *@k counting) of composite @id
 * at bit @base; anonymous members flattened. */
static bool walk(const struct btf *b, uint32_t id, uint64_t base, const char *want,
		 unsigned want_i, unsigned *k, struct hwbpi_member *o, const char **got, int depth)
{
	const struct btf_type *t = btf__type_by_id(b, strip(b, id));
	const struct btf_member *m;

	if (!t || !btf_is_composite(t) || depth > 8)
		return false;
	m = btf_members(t);
	for (unsigned i = 0; i < btf_vlen(t); i++, m++) {
		const char *n = btf__name_by_offset(b, m->name_off);
		uint64_t bits = base + btf_member_bit_offset(t, i);

		if (n && n[0]) {
			if (want && strcmp(n, want) == 0) {
				o->bit_off = bits;
				o->bit_size = btf_member_bitfield_size(t, i);
				o->type.id = m->type;
				return true;
			}
			if (!want && (*k)++ == want_i) {
				*got = n;
				return true;
			}
		} else if (walk(b, m->type, bits, want, want_i, k, o, got, depth + 1)) {
			return true;
		}
	}
	return false;
}

static int t_member(struct hwbpi_tsrc *s, uint64_t id, const char *name, struct hwbpi_member *o)
{
	unsigned k = 0;
	const char *got;

	if (id > UINT32_MAX || !walk(btf_of(s), (uint32_t)id, 0, name, 0, &k, o, &got, 0))
		return -ENOENT;
	o->type.src = s;
	return 0;
}

static bool t_member_name(struct hwbpi_tsrc *s, uint64_t id, unsigned i, const char **name)
{
	struct hwbpi_member o;
	unsigned k = 0;

	return id <= UINT32_MAX && walk(btf_of(s), (uint32_t)id, 0, NULL, i, &k, &o, name, 0);
}

static int find_type(struct hwbpi_tsrc *s, const char *name, uint64_t *id)
{
	static const struct { const char *word; int kind; } words[] = {
		{ "struct ", BTF_KIND_STRUCT }, { "union ", BTF_KIND_UNION },
		{ "enum ", BTF_KIND_ENUM },
	};
	static const int plain[] = { BTF_KIND_TYPEDEF, BTF_KIND_STRUCT, BTF_KIND_UNION,
				     BTF_KIND_INT, BTF_KIND_ENUM, BTF_KIND_ENUM64 };
	const struct btf *b = btf_of(s);
	__s32 r = -ENOENT;

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strncmp(name, words[i].word, strlen(words[i].word)) == 0) {
			name += strlen(words[i].word);
			r = btf__find_by_name_kind(b, name, words[i].kind);
			if (r < 0 && words[i].kind == BTF_KIND_ENUM)
				r = btf__find_by_name_kind(b, name, BTF_KIND_ENUM64);
			goto out;
		}
	for (size_t i = 0; r < 0 && i < sizeof(plain) / sizeof(plain[0]); i++)
		r = btf__find_by_name_kind(b, name, plain[i]);
out:
	if (r < 0)
		return -ENOENT;
	*id = (uint64_t)r;
	return 0;
}

/* Whether VAR @var is in the per-CPU section, and its offset there. */
static bool percpu_offset(const struct btf *b, uint32_t var, uint64_t *off)
{
	__s32 sec = btf__find_by_name_kind(b, PERCPU_SEC, BTF_KIND_DATASEC);
	const struct btf_type *t = sec > 0 ? btf__type_by_id(b, (uint32_t)sec) : NULL;
	const struct btf_var_secinfo *v = t ? btf_var_secinfos(t) : NULL;

	for (unsigned i = 0; t && i < btf_vlen(t); i++, v++)
		if (v->type == var) {
			*off = v->offset;
			return true;
		}
	return false;
}

static int t_find_var(struct hwbpi_tsrc *s, const char *name, uint64_t addr,
		      struct hwbpi_tvar *o)
{
	const struct btf *b = btf_of(s);
	__s32 r = btf__find_by_name_kind(b, name, BTF_KIND_VAR);
	const struct btf_type *t = r > 0 ? btf__type_by_id(b, (uint32_t)r) : NULL;

	(void)addr;   /* BTF has no addresses: the name is the variable */
	memset(o, 0, sizeof(*o));
	if (!t)
		return -ENOENT;
	o->type = (struct hwbpi_type){ s, t->type };
	o->percpu = percpu_offset(b, (uint32_t)r, &o->addr);
	return 0;
}

/* A FUNC's FUNC_PROTO: its parameters' names and types, its return
 * type (pahole encodes every function it found in DWARF). */
static int t_func_param(struct hwbpi_tsrc *s, const char *func, const char *param,
			struct hwbpi_tparam *o)
{
	const struct btf *b = btf_of(s);
	__s32 r = btf__find_by_name_kind(b, func, BTF_KIND_FUNC);
	const struct btf_type *f = r > 0 ? btf__type_by_id(b, (uint32_t)r) : NULL;
	const struct btf_type *p = f ? btf__type_by_id(b, f->type) : NULL;
	const struct btf_param *a;
	size_t used = 0;

	memset(o, 0, sizeof(*o));
	if (!p || !btf_is_func_proto(p))
		return -ESRCH;
	if (!param) {
		if (!p->type)
			return -ENODATA;
		o->type = (struct hwbpi_type){ s, p->type };
		return 0;
	}
	a = btf_params(p);
	for (unsigned i = 0; i < btf_vlen(p); i++, a++) {
		const char *n = btf__name_by_offset(b, a->name_off);

		if (n && strcmp(n, param) == 0) {
			o->index = i;
			o->type = (struct hwbpi_type){ s, a->type };
			return 0;
		}
		if (used < sizeof(o->names))
			used += (size_t)snprintf(o->names + used, sizeof(o->names) - used, "%s%s",
						 i ? ", " : "", n && n[0] ? n : "?");
	}
	return -ENOENT;
}

static void t_free(struct hwbpi_tsrc *s)
{
	btf__free(btf_of(s));
	free(s);
}

static const struct hwbpi_tsrc_ops btf_ops = {
	.name = "BTF",
	.info = t_info,
	.member = t_member,
	.member_name = t_member_name,
	.find_type = find_type,
	.find_var = t_find_var,
	.func_param = t_func_param,
	.free = t_free,
};

/* A source over the BTF at @path, split on @base's (a module's) or not. */
static struct hwbpi_tsrc *open_at(const char *path, struct btf *base, int *err)
{
	struct tbtf *t = calloc(1, sizeof(*t));
	size_t psz;

	if (!t) {
		*err = -ENOMEM;
		return NULL;
	}
	/* A module's BTF holds only its own types and names the kernel's by
	 * the ids that follow vmlinux's (btf__parse_split(); the kernel's
	 * btf_parse_module()): lookups in it see both. */
	t->btf = base ? btf__parse_split(path, base) : btf__parse(path, NULL);
	if (!t->btf) {
		*err = -errno ? -errno : -ENOENT;
		free(t);
		return NULL;
	}
	psz = btf__pointer_size(t->btf);
	t->src.ops = &btf_ops;
	t->src.ptr_size = psz ? (unsigned)psz : (unsigned)sizeof(void *);
	*err = 0;
	return &t->src;
}
struct hwbpi_tsrc *hwbpi_tsrc_btf(const char *path, int *err)
{
	return open_at(path ? path : "/sys/kernel/btf/vmlinux", NULL, err);
}

struct hwbpi_tsrc *hwbpi_tsrc_btf_split(const char *path, struct hwbpi_tsrc *base, int *err)
{
	if (!base || base->ops != &btf_ops) {
		*err = -EINVAL;
		return NULL;
	}
	return open_at(path, btf_of(base), err);
}
#endif
