/* SPDX-License-Identifier: MIT */
/*
 * Types from DWARF (types/types.h), through elfutils' libdw.
 *
 * Reading only what a name needs: a variable or a type by name is found
 * by walking the top-level DIEs of each compile unit (and C++
 * namespaces), never their children, which libdw skips with
 * DW_AT_sibling; a global's first declaration with a type ends the walk
 * (an extern declaration of "init_net" in one CU has the type of its
 * definition in another).  GCC's .debug_aranges covers code only, so it
 * cannot name the CU of a data address; Debian's vmlinux has no
 * .debug_names.  On Debian's 6.1 amd64 vmlinux (2352 CUs, 3.9 million
 * top-level DIEs) the whole walk is about a third of a second.
 *
 * An id is a DIE offset in .debug_info; the top 8 bits count the
 * subranges of a multi-dimensional array already stepped over ("int
 * a[2][3]": a[1] is the DIE of a with one subrange used).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "types/types.h"

#ifndef HWBP_HAVE_LIBDW
struct hwbpi_tsrc *hwbpi_tsrc_dwarf(const char *path, int64_t bias, int *err)
{
	(void)path;
	(void)bias;
	*err = -EOPNOTSUPP;
	return NULL;
}
#else
#include <dwarf.h>
#include <elfutils/libdw.h>

#define DIM_SHIFT 56
#define OFF_MASK ((UINT64_C(1) << DIM_SHIFT) - 1)

struct tdwarf {
	struct hwbpi_tsrc src;       /* first: the source is this */
	Dwarf *dw;
	int fd;
	int64_t bias;
};

static struct tdwarf *of(struct hwbpi_tsrc *s)
{
	return (struct tdwarf *)(void *)s;
}

static bool die_at(struct tdwarf *t, uint64_t id, Dwarf_Die *d)
{
	return dwarf_offdie(t->dw, id & OFF_MASK, d) != NULL;
}

/* The DIE that @d's DW_AT_type names (following a specification or an
 * abstract origin); false for none (void). */
static bool type_of(Dwarf_Die *d, Dwarf_Die *out)
{
	Dwarf_Attribute a;

	return dwarf_attr_integrate(d, DW_AT_type, &a) && dwarf_formref_die(&a, out);
}

static const char *name_of(Dwarf_Die *d)
{
	Dwarf_Attribute a;

	return dwarf_formstring(dwarf_attr_integrate(d, DW_AT_name, &a));
}

static bool is_qualifier(int tag)
{
	return tag == DW_TAG_typedef || tag == DW_TAG_const_type || tag == DW_TAG_volatile_type ||
	       tag == DW_TAG_restrict_type || tag == DW_TAG_atomic_type;
}

/* @d with typedefs and qualifiers looked through; false: void. */
static bool strip(Dwarf_Die *d)
{
	for (int i = 0; i < 64 && is_qualifier(dwarf_tag(d)); i++)
		if (!type_of(d, d))
			return false;
	return true;
}

/* Whether an object of type @d (not stripped) is atomic: an _Atomic
 * qualifier on the way to the type (C11 6.7.3: every access to it is an
 * atomic operation, whatever the memory order, and a relaxed one compiles
 * to a plain load or store), or a C++ class of libstdc++'s <atomic>,
 * whose every member function is an atomic operation ([atomics.types.
 * generic]).  A C++ class is known by its name alone (DW_AT_name has no
 * namespace): "atomic<T>", "__atomic_base<T>" and the rest. */
static bool atomic_type(Dwarf_Die d)
{
	static const char *const cxx[] = { "atomic<", "__atomic_base<", "__atomic_float<",
					   "atomic_ref<", "__atomic_ref<", "atomic_flag" };
	const char *nm;
	int tag;

	for (int i = 0; i < 64; i++) {
		tag = dwarf_tag(&d);
		if (tag == DW_TAG_atomic_type)
			return true;
		if (!is_qualifier(tag))
			break;
		if (!type_of(&d, &d))
			return false;
	}
	if ((tag != DW_TAG_structure_type && tag != DW_TAG_class_type) || !(nm = name_of(&d)))
		return false;
	for (size_t k = 0; k < sizeof(cxx) / sizeof(cxx[0]); k++)
		if (strncmp(nm, cxx[k], strlen(cxx[k])) == 0)
			return true;
	return false;
}

static uint64_t udata(Dwarf_Die *d, int at, uint64_t dflt)
{
	Dwarf_Attribute a;
	Dwarf_Word w;

	return dwarf_attr_integrate(d, at, &a) && dwarf_formudata(&a, &w) == 0 ? w : dflt;
}

/* The @dim-th subrange of array @d: its element count (UINT64_MAX: no
 * bound); false when there is no such subrange. */
static bool subrange(Dwarf_Die *d, unsigned dim, uint64_t *n)
{
	Dwarf_Die c;
	unsigned k = 0;

	if (dwarf_child(d, &c))
		return false;
	do {
		if (dwarf_tag(&c) != DW_TAG_subrange_type || k++ != dim)
			continue;
		if (dwarf_hasattr(&c, DW_AT_count))
			*n = udata(&c, DW_AT_count, UINT64_MAX);
		else if (dwarf_hasattr(&c, DW_AT_upper_bound))
			*n = udata(&c, DW_AT_upper_bound, UINT64_MAX - 1) + 1;
		else
			*n = UINT64_MAX;
		return true;
	} while (dwarf_siblingof(&c, &c) == 0);
	return false;
}

static const char *tag_word(int tag)
{
	return tag == DW_TAG_structure_type || tag == DW_TAG_class_type ? "struct " :
	       tag == DW_TAG_union_type ? "union " : tag == DW_TAG_enumeration_type ? "enum " : "";
}

static int find_type(struct hwbpi_tsrc *s, const char *name, uint64_t *id);

/* A struct's complete definition where @d only declares it. */
static void complete(struct tdwarf *t, Dwarf_Die *d)
{
	char want[HWBPI_TYPE_NAME_LEN];
	const char *n = name_of(d);
	uint64_t id;

	if (!dwarf_hasattr(d, DW_AT_declaration) || !n)
		return;
	snprintf(want, sizeof(want), "%s%s", tag_word(dwarf_tag(d)), n);
	if (find_type(&t->src, want, &id) == 0)
		die_at(t, id, d);
}

/* C's spelling of type @d (not stripped: a typedef keeps its name). */
static void spell(struct tdwarf *t, Dwarf_Die *d, unsigned dim, char *out, size_t n, int depth)
{
	Dwarf_Die in;
	const char *nm = name_of(d);
	int tag = dwarf_tag(d);
	uint64_t cnt;

	if (depth > 8) {
		snprintf(out, n, "...");
	} else if (nm && !(tag == DW_TAG_const_type || tag == DW_TAG_volatile_type)) {
		snprintf(out, n, "%s%s", tag_word(tag), nm);
	} else if (tag == DW_TAG_pointer_type || tag == DW_TAG_reference_type ||
		   tag == DW_TAG_rvalue_reference_type) {
		char inner[HWBPI_TYPE_NAME_LEN];

		if (type_of(d, &in))
			spell(t, &in, 0, inner, sizeof(inner), depth + 1);
		else
			snprintf(inner, sizeof(inner), "void");
		snprintf(out, n, "%.100s *", inner);
	} else if (tag == DW_TAG_array_type && type_of(d, &in)) {
		char inner[HWBPI_TYPE_NAME_LEN];

		spell(t, &in, 0, inner, sizeof(inner), depth + 1);
		if (subrange(d, dim, &cnt) && cnt != UINT64_MAX)
			snprintf(out, n, "%.100s[%llu]", inner, (unsigned long long)cnt);
		else
			snprintf(out, n, "%.100s[]", inner);
	} else if (is_qualifier(tag) && type_of(d, &in)) {
		spell(t, &in, dim, out, n, depth + 1);
	} else {
		snprintf(out, n, "%s%s", tag_word(tag), tag == DW_TAG_structure_type ||
			 tag == DW_TAG_union_type ? "(anonymous)" : "void");
	}
}

static int t_info(struct hwbpi_tsrc *s, uint64_t id, struct hwbpi_tinfo *o)
{
	struct tdwarf *t = of(s);
	unsigned dim = (unsigned)(id >> DIM_SHIFT);
	Dwarf_Die d, el;
	uint64_t cnt, total = 1;
	int tag;

	memset(o, 0, sizeof(*o));
	if (!die_at(t, id, &d))
		return -ENOENT;
	spell(t, &d, dim, o->name, sizeof(o->name), 0);
	o->atomic = !dim && atomic_type(d);
	if (!strip(&d)) {
		o->kind = HWBPI_TK_OTHER;
		return 0;
	}
	tag = dwarf_tag(&d);
	if (tag == DW_TAG_structure_type || tag == DW_TAG_class_type || tag == DW_TAG_union_type)
		complete(t, &d);
	o->id = dwarf_dieoffset(&d) | (dim ? (uint64_t)dim << DIM_SHIFT : 0);
	o->size = udata(&d, DW_AT_byte_size, 0);
	switch (tag) {
	case DW_TAG_structure_type:
	case DW_TAG_class_type:
		o->kind = HWBPI_TK_STRUCT;
		break;
	case DW_TAG_union_type:
		o->kind = HWBPI_TK_UNION;
		break;
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type:
		o->kind = HWBPI_TK_PTR;
		o->size = o->size ? o->size : s->ptr_size;
		if (type_of(&d, &el))
			o->target = (struct hwbpi_type){ s, dwarf_dieoffset(&el) };
		break;
	case DW_TAG_array_type:
		o->kind = HWBPI_TK_ARRAY;
		if (!type_of(&d, &el) || !subrange(&d, dim, &o->nelem))
			return -EIO;
		/* A further subrange: the element is this array one
		 * dimension down. */
		if (subrange(&d, dim + 1, &cnt))
			o->target = (struct hwbpi_type){ s, dwarf_dieoffset(&d) |
							     (uint64_t)(dim + 1) << DIM_SHIFT };
		else
			o->target = (struct hwbpi_type){ s, dwarf_dieoffset(&el) };
		if (o->nelem != UINT64_MAX) {
			struct hwbpi_tinfo e;

			if (t_info(s, o->target.id, &e) == 0)
				total = e.size;
			o->size = o->nelem * total;
		}
		break;
	case DW_TAG_base_type:
	case DW_TAG_enumeration_type:
		o->kind = HWBPI_TK_SCALAR;
		break;
	default:
		o->kind = HWBPI_TK_OTHER;
	}
	return 0;
}

/* Member @d's bit offset in its struct (DWARF 4's DW_AT_data_bit_offset,
 * or DWARF 2's DW_AT_bit_offset counted from the storage unit's most
 * significant bit, which on a little-endian target is the byte_size*8 -
 * bit_offset - bit_size-th bit from the unit's start). */
static uint64_t member_bits(Dwarf_Die *d, unsigned *bit_size)
{
	uint64_t loc = udata(d, DW_AT_data_member_location, 0) * 8;

	*bit_size = (unsigned)udata(d, DW_AT_bit_size, 0);
	if (dwarf_hasattr(d, DW_AT_data_bit_offset))
		return udata(d, DW_AT_data_bit_offset, 0);
	if (*bit_size && dwarf_hasattr(d, DW_AT_bit_offset))
		return loc + udata(d, DW_AT_byte_size, 0) * 8 - udata(d, DW_AT_bit_offset, 0) -
		       *bit_size;
	return loc;
}

/* Walk the members of @st (anonymous ones and C++ bases flattened):
 * @fn returns true to stop; *@k counts the named ones. */
struct mwalk {
	const char *want;            /* member(): the name */
	struct hwbpi_member *out;
	unsigned want_i, k;          /* member_name(): the index */
	const char *got;
};

static bool walk_members(struct tdwarf *t, Dwarf_Die *st, uint64_t base, struct mwalk *w,
			 int depth)
{
	Dwarf_Die c, ty;

	if (depth > 8 || dwarf_child(st, &c))
		return false;
	do {
		int tag = dwarf_tag(&c);
		const char *n = name_of(&c);
		unsigned bs;
		uint64_t bits;

		if (tag != DW_TAG_member && tag != DW_TAG_inheritance)
			continue;
		bits = base + member_bits(&c, &bs);
		if (n && tag == DW_TAG_member) {
			if (w->want && strcmp(n, w->want) == 0 && type_of(&c, &ty)) {
				w->out->bit_off = bits;
				w->out->bit_size = bs;
				w->out->type = (struct hwbpi_type){ &t->src, dwarf_dieoffset(&ty) };
				return true;
			}
			if (!w->want && w->k++ == w->want_i) {
				w->got = n;
				return true;
			}
			continue;
		}
		/* An anonymous struct or union, or a base class: its members
		 * are the outer type's. */
		if (type_of(&c, &ty) && strip(&ty) && walk_members(t, &ty, bits, w, depth + 1))
			return true;
	} while (dwarf_siblingof(&c, &c) == 0);
	return false;
}

static int t_member(struct hwbpi_tsrc *s, uint64_t id, const char *name, struct hwbpi_member *o)
{
	struct mwalk w = { .want = name, .out = o };
	Dwarf_Die d;

	if (!die_at(of(s), id, &d))
		return -ENOENT;
	return walk_members(of(s), &d, 0, &w, 0) ? 0 : -ENOENT;
}

static bool t_member_name(struct hwbpi_tsrc *s, uint64_t id, unsigned i, const char **name)
{
	struct mwalk w = { .want_i = i };
	Dwarf_Die d;

	if (!die_at(of(s), id, &d) || !walk_members(of(s), &d, 0, &w, 0))
		return false;
	*name = w.got;
	return true;
}

/* ------------------------------------------------------------- the walk */

/* What a walk of the top-level DIEs looks for. */
struct want {
	const char *name;            /* the last component */
	const char *scope;           /* "a::b" before it ("" none) */
	size_t scope_len;
	int kind;                    /* DW_TAG_variable, or a type: 0 any type, or the tag */
	uint64_t addr;               /* find_var: the file address, 0: any */
	bool any;                    /* find_var: a declaration with a type will do */
	Dwarf_Die found;
	bool have;
	Dwarf_Die decl;              /* the first declaration of that name */
	bool have_decl;
};

/* The address in @d's DW_AT_location when it is one DW_OP_addr. */
static bool var_addr(Dwarf_Die *d, uint64_t *addr)
{
	Dwarf_Attribute a;
	Dwarf_Op *ops;
	size_t n;

	if (!dwarf_attr(d, DW_AT_location, &a) || dwarf_getlocation(&a, &ops, &n) || n != 1 ||
	    ops[0].atom != DW_OP_addr)
		return false;
	*addr = ops[0].number;
	return true;
}

static bool type_tag_ok(int tag, int kind)
{
	if (kind)
		return tag == kind || (kind == DW_TAG_structure_type && tag == DW_TAG_class_type);
	return tag == DW_TAG_structure_type || tag == DW_TAG_class_type ||
	       tag == DW_TAG_union_type || tag == DW_TAG_enumeration_type ||
	       tag == DW_TAG_typedef || tag == DW_TAG_base_type;
}

/* Does @d satisfy @w?  Sets found/decl; true ends the walk. */
static bool match(Dwarf_Die *d, struct want *w)
{
	int tag = dwarf_tag(d);
	const char *n;
	uint64_t a;

	if (w->kind == DW_TAG_variable ? tag != DW_TAG_variable : !type_tag_ok(tag, w->kind))
		return false;
	if (!(n = name_of(d)) || strcmp(n, w->name) != 0)
		return false;
	if (w->kind != DW_TAG_variable) {
		if (dwarf_hasattr(d, DW_AT_declaration)) {
			if (!w->have_decl)
				w->decl = *d, w->have_decl = true;
			return false;
		}
		w->found = *d, w->have = true;
		return true;
	}
	if (!dwarf_hasattr_integrate(d, DW_AT_type))
		return false;
	if (!w->addr || (var_addr(d, &a) && a == w->addr)) {
		w->found = *d, w->have = true;
		return true;
	}
	/* Another variable of that name (a static elsewhere), or an extern
	 * declaration: the latter is the variable when its name is unique. */
	if (!w->have_decl && !dwarf_hasattr(d, DW_AT_location))
		w->decl = *d, w->have_decl = true;
	return w->any && w->have_decl;
}

/* Whether scope @d (a namespace, a class) is named @scope[0, @l). */
static bool scope_named(Dwarf_Die *d, const char *scope, size_t l)
{
	int tag = dwarf_tag(d);
	const char *n;

	if (tag != DW_TAG_namespace && tag != DW_TAG_structure_type && tag != DW_TAG_class_type)
		return false;
	n = name_of(d);
	return n && strlen(n) == l && strncmp(n, scope, l) == 0;
}

/* The children of @parent: matched against @w when @scope is entered
 * (@len 0), else the next component of the "::" path @scope[0, @len)
 * entered.  An unqualified name is looked for at the top level only: a
 * C++ name in a namespace comes qualified from the symbol table. */
static bool walk_scope(Dwarf_Die *parent, const char *scope, size_t len, struct want *w,
		       int depth)
{
	size_t l = strcspn(scope, ":");
	Dwarf_Die c;

	if (depth > 16 || dwarf_child(parent, &c))
		return false;
	if (l > len)
		l = len;
	do {
		if (!len) {
			if (match(&c, w))
				return true;
		} else if (scope_named(&c, scope, l) &&
			   walk_scope(&c, l < len ? scope + l + 2 : scope + l,
				      l < len ? len - l - 2 : 0, w, depth + 1)) {
			return true;
		}
	} while (dwarf_siblingof(&c, &c) == 0);
	return false;
}

/* Every CU's top level, until @w is satisfied. */
static void walk(struct tdwarf *t, struct want *w)
{
	Dwarf_Off off = 0, next;
	size_t hsz;

	while (dwarf_nextcu(t->dw, off, &next, &hsz, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;

		if (dwarf_offdie(t->dw, off + hsz, &cu) &&
		    walk_scope(&cu, w->scope, w->scope_len, w, 0))
			return;
		off = next;
	}
}

/* Split "a::b::name" into scope and last component. */
static void split(const char *name, struct want *w)
{
	const char *last = name;

	for (const char *p = strstr(name, "::"); p; p = strstr(p + 2, "::"))
		last = p + 2;
	w->name = last;
	w->scope = name;
	w->scope_len = last == name ? 0 : (size_t)(last - name - 2);
}

static int find_type(struct hwbpi_tsrc *s, const char *name, uint64_t *id)
{
	static const struct { const char *word; int tag; } words[] = {
		{ "struct ", DW_TAG_structure_type }, { "union ", DW_TAG_union_type },
		{ "enum ", DW_TAG_enumeration_type },
	};
	struct want w = { .kind = 0 };

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (strncmp(name, words[i].word, strlen(words[i].word)) == 0) {
			w.kind = words[i].tag;
			name += strlen(words[i].word);
		}
	split(name, &w);
	walk(of(s), &w);
	if (!w.have && !w.have_decl)
		return -ENOENT;
	*id = dwarf_dieoffset(w.have ? &w.found : &w.decl);
	return 0;
}

/* "FUNC::VAR": static local VAR of function FUNC (in a nested block too). */
static bool local_in(Dwarf_Die *d, const char *var, Dwarf_Die *out, int depth)
{
	Dwarf_Die c;
	const char *n;

	if (depth > 16 || dwarf_child(d, &c))
		return false;
	do {
		int tag = dwarf_tag(&c);
		uint64_t a;

		if (tag == DW_TAG_variable && (n = name_of(&c)) && strcmp(n, var) == 0 &&
		    var_addr(&c, &a)) {
			*out = c;
			return true;
		}
		if (tag == DW_TAG_lexical_block && local_in(&c, var, out, depth + 1))
			return true;
	} while (dwarf_siblingof(&c, &c) == 0);
	return false;
}

static int find_local(struct tdwarf *t, const char *name, struct hwbpi_tvar *o)
{
	char fn[HWBPI_TYPE_NAME_LEN];
	const char *sep = strstr(name, "::");
	Dwarf_Off off = 0, next;
	size_t hsz;

	if (!sep || strstr(sep + 2, "::") || (size_t)(sep - name) >= sizeof(fn))
		return -ENOENT;
	memcpy(fn, name, (size_t)(sep - name));
	fn[sep - name] = '\0';
	while (dwarf_nextcu(t->dw, off, &next, &hsz, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu, c, v, ty;
		const char *n;
		uint64_t a;

		Dwarf_Off die = off + hsz;

		off = next;
		if (!dwarf_offdie(t->dw, die, &cu) || dwarf_child(&cu, &c))
			continue;
		do {
			if (dwarf_tag(&c) != DW_TAG_subprogram || !(n = name_of(&c)) ||
			    strcmp(n, fn) != 0 || !local_in(&c, sep + 2, &v, 0))
				continue;
			if (!type_of(&v, &ty) || !var_addr(&v, &a))
				continue;
			o->type = (struct hwbpi_type){ &t->src, dwarf_dieoffset(&ty) };
			o->addr = a + (uint64_t)t->bias;
			return 0;
		} while (dwarf_siblingof(&c, &c) == 0);
	}
	return -ENOENT;
}

static int t_find_var(struct hwbpi_tsrc *s, const char *name, uint64_t addr,
		      struct hwbpi_tvar *o)
{
	struct tdwarf *t = of(s);
	struct want w = { .kind = DW_TAG_variable };
	Dwarf_Die *d, ty;
	uint64_t a;

	memset(o, 0, sizeof(*o));
	split(name, &w);
	w.addr = addr ? addr - (uint64_t)t->bias : 0;
	w.any = !addr;
	/* A C++ symbol's demangled name is qualified; its definition DIE may
	 * sit at the top level (DW_AT_specification to the class member):
	 * look there by its address first. */
	if (w.addr && w.scope_len) {
		struct want top = w;

		top.scope_len = 0;
		walk(t, &top);
		if (top.have)
			w = top;
	}
	if (!w.have)
		walk(t, &w);
	d = w.have ? &w.found : w.have_decl ? &w.decl : NULL;
	if (!d)
		return find_local(t, name, o);
	if (!type_of(d, &ty))
		return -ENOENT;
	o->type = (struct hwbpi_type){ s, dwarf_dieoffset(&ty) };
	if (var_addr(d, &a))
		o->addr = a + (uint64_t)t->bias;
	return 0;
}

/* Function @func's DIE: the first definition in any CU's top level,
 * else a declaration (both list the parameters). */
static bool find_func(struct tdwarf *t, const char *func, Dwarf_Die *out)
{
	Dwarf_Off off = 0, next;
	size_t hsz;
	bool have = false;

	while (dwarf_nextcu(t->dw, off, &next, &hsz, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu, c;
		const char *n;

		if (dwarf_offdie(t->dw, off + hsz, &cu) && dwarf_child(&cu, &c) == 0)
			do {
				if (dwarf_tag(&c) != DW_TAG_subprogram || !(n = name_of(&c)) ||
				    strcmp(n, func) != 0)
					continue;
				*out = c;
				have = true;
				if (!dwarf_hasattr(&c, DW_AT_declaration))
					return true;
			} while (dwarf_siblingof(&c, &c) == 0);
		off = next;
	}
	return have;
}

static int t_func_param(struct hwbpi_tsrc *s, const char *func, const char *param,
			struct hwbpi_tparam *o)
{
	struct tdwarf *t = of(s);
	Dwarf_Die fn, c, ty;
	size_t used = 0;
	unsigned i = 0;

	memset(o, 0, sizeof(*o));
	if (!find_func(t, func, &fn))
		return -ESRCH;
	if (!param) {
		if (!type_of(&fn, &ty))
			return -ENODATA;
		o->type = (struct hwbpi_type){ s, dwarf_dieoffset(&ty) };
		return 0;
	}
	/* The formal parameters in order (a definition's children may be an
	 * abstract origin's: dwarf_attr_integrate() follows it for names). */
	if (dwarf_child(&fn, &c) == 0)
		do {
			const char *n;

			if (dwarf_tag(&c) != DW_TAG_formal_parameter)
				continue;
			n = name_of(&c);
			if (n && strcmp(n, param) == 0 && type_of(&c, &ty)) {
				o->index = i;
				o->type = (struct hwbpi_type){ s, dwarf_dieoffset(&ty) };
				return 0;
			}
			if (used < sizeof(o->names))
				used += (size_t)snprintf(o->names + used, sizeof(o->names) - used, "%s%s",
							 i ? ", " : "", n ? n : "?");
			i++;
		} while (dwarf_siblingof(&c, &c) == 0);
	return -ENOENT;
}

static void t_free(struct hwbpi_tsrc *s)
{
	struct tdwarf *t = of(s);

	dwarf_end(t->dw);
	close(t->fd);
	free(t);
}

static const struct hwbpi_tsrc_ops dwarf_ops = {
	.name = "DWARF",
	.info = t_info,
	.member = t_member,
	.member_name = t_member_name,
	.find_type = find_type,
	.find_var = t_find_var,
	.func_param = t_func_param,
	.free = t_free,
};

struct hwbpi_tsrc *hwbpi_tsrc_dwarf(const char *path, int64_t bias, int *err)
{
	struct tdwarf *t = calloc(1, sizeof(*t));
	Dwarf_Off off = 0, next;
	size_t hsz;
	uint8_t asz = 8;

	if (!t) {
		*err = -ENOMEM;
		return NULL;
	}
	t->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (t->fd < 0) {
		*err = -errno;
		free(t);
		return NULL;
	}
	t->dw = dwarf_begin(t->fd, DWARF_C_READ);
	if (!t->dw || dwarf_nextcu(t->dw, off, &next, &hsz, NULL, &asz, NULL) != 0) {
		*err = -ENODATA;
		if (t->dw)
			dwarf_end(t->dw);
		close(t->fd);
		free(t);
		return NULL;
	}
	t->src.ops = &dwarf_ops;
	t->src.ptr_size = asz;
	t->bias = bias;
	*err = 0;
	return &t->src;
}
#endif
