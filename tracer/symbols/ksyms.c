/* SPDX-License-Identifier: MIT */
/*
 * The running kernel's symbols (tracer/symbols/ksyms.h).
 *
 * /proc/kallsyms is printed by s_show() (kernel/kallsyms.c): "%px %c %s"
 * for vmlinux and "%px %c %s\t[%s]" for modules and the pseudo-modules
 * ([bpf], [__builtin__ftrace]).  Its addresses are the running ones, so
 * it is read even when a vmlinux or System.map gives the names: the file
 * holds link-time addresses, and KASLR moves the whole image by one
 * offset, found with _stext (the start of scripts/kallsyms.c's text
 * range, there with and without CONFIG_KALLSYMS_ALL).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "symbols/ksyms.h"
#include "symbols/symbols_int.h"
#include "util/util.h"

#define KALLSYMS "/proc/kallsyms"
#define KPTR_RESTRICT "/proc/sys/kernel/kptr_restrict"
#define PARANOID "/proc/sys/kernel/perf_event_paranoid"
/* kallsyms' global functions after _stext checked besides _etext. */
#define NCHECK 2

/* One kallsyms line; the name points into the file's text. */
struct kline {
	uint64_t addr;
	const char *name;
	size_t nlen;
	char type;
	bool mod;                 /* "[mod]": a module's or a pseudo-module's */
};

struct kscan {
	struct kline *l;
	size_t n, cap;
};

static bool is_name(const char *s, size_t len, const char *want)
{
	return strlen(want) == len && !memcmp(s, want, len);
}

static bool is_percpu_type(char c)
{
	return c == 'A' || c == 'a';
}

/*
 * A data symbol for the CONFIG_KALLSYMS_ALL test.  Names starting "__"
 * are left out: the linker's section markers (__start_rodata,
 * __init_begin, __stop___ksymtab ...) lie at the text ranges' edges or
 * are kept by scripts/kallsyms.c anyway; this host's 6.18 kernel without
 * KALLSYMS_ALL lists 74 of them and no other data symbol.
 */
static bool is_data_sym(char c, const char *name)
{
	return c && strchr("dDbBrR", c) && strncmp(name, "__", 2);
}

/* An integer sysctl file ("2\n"), or -1 on any failure; *e its errno. */
static int read_sysctl(const char *path, int *e)
{
	char *buf = NULL, *end;
	size_t len = 0;
	long v;

	*e = hwbpi_read_file(path, &buf, &len);
	if (*e < 0)
		return -1;
	buf[len < 32 ? len : 31] = '\0';
	v = strtol(buf, &end, 10);
	if (end == buf || (*end && *end != '\n') || v < -1 || v > 1000) {
		*e = -EINVAL;
		v = -1;
	}
	free(buf);
	return (int)v;
}

/*
 * Every address 0: kallsyms_show_value() (kernel/kallsyms.c) said no for
 * the opener's credentials, and %px of NULL printed zeros.  Which rule it
 * applied follows from kptr_restrict: 0 shows the addresses when
 * kallsyms_for_perf() (perf_event_paranoid <= 1) or with CAP_SYSLOG, 1
 * only with CAP_SYSLOG, 2 never.
 */
static int hidden(const struct hwbpi_ksyms_opts *o, const char *path, const char *file,
		  char *err, size_t errlen)
{
	int e = 0, kr = read_sysctl(o->kptr_restrict_path ? o->kptr_restrict_path : KPTR_RESTRICT,
				    &e);
	int pe = 0, p;
	/* "PATH shows every address as 0 (the KASLR offset of FILE needs them)" */
#define HIDDEN "%s shows every address as 0%s%s%s: "
#define WHY path, file ? " (the KASLR offset of " : "", file ? file : "", file ? " needs them)" : ""

	switch (kr) {
	case 0:
		p = read_sysctl(o->paranoid_path ? o->paranoid_path : PARANOID, &pe);
		hwbpi_say(err, errlen, HIDDEN "with kernel.kptr_restrict=0 they need CAP_SYSLOG or "
			  "kernel.perf_event_paranoid <= 1 (it is %d): run as root or sysctl "
			  "kernel.perf_event_paranoid=1 (EACCES)", WHY, p);
		break;
	case 1:
		hwbpi_say(err, errlen, HIDDEN "with kernel.kptr_restrict=1 they need CAP_SYSLOG: run "
			  "as root (EACCES)", WHY);
		break;
	case 2:
		hwbpi_say(err, errlen, HIDDEN "kernel.kptr_restrict=2 hides them even from root: "
			  "sysctl kernel.kptr_restrict=1 and run as root (EACCES)", WHY);
		break;
	default:
		hwbpi_say(err, errlen, HIDDEN "they need CAP_SYSLOG and kernel.kptr_restrict <= 1 "
			  "(kernel.kptr_restrict: %s) (EACCES)", WHY, hwbp_errno_name(e));
		break;
	}
#undef HIDDEN
#undef WHY
	return -EACCES;
}

/* The lines of kallsyms text into @ks.  Errors: -EINVAL (malformed: the
 * line in *@line; or no symbol at all), -ENOMEM. */
static int scan_kallsyms(const char *text, size_t len, struct kscan *ks, unsigned *line)
{
	struct hwbpi_map_line l;
	const char *p = text;
	int r;

	*line = 0;
	while ((r = hwbpi_map_next(&p, text + len, &l, line)) > 0) {
		if (ks->n == ks->cap) {
			size_t nc = ks->cap ? 2 * ks->cap : 4096;
			struct kline *nl = nc < SIZE_MAX / sizeof(*nl) ?
				realloc(ks->l, nc * sizeof(*nl)) : NULL;

			if (!nl)
				return -ENOMEM;
			ks->l = nl;
			ks->cap = nc;
		}
		ks->l[ks->n++] = (struct kline){ l.addr, l.name, l.nlen, l.type, l.mod != NULL };
	}
	if (r < 0)
		return r;
	*line = 0;
	return ks->n ? 0 : -EINVAL;
}

static bool all_zero(const struct kscan *ks)
{
	for (size_t i = 0; i < ks->n; i++)
		if (ks->l[i].addr)
			return false;
	return true;
}

/* kallsyms' vmlinux line @name, or NULL. */
static const struct kline *kfind(const struct kscan *ks, const char *name)
{
	for (size_t i = 0; i < ks->n; i++)
		if (!ks->l[i].mod && is_name(ks->l[i].name, ks->l[i].nlen, name))
			return &ks->l[i];
	return NULL;
}

/* The first entry named @name among t->ent[from, to), or NULL. */
static struct ent *efind(struct hwbp_symtab *t, size_t from, size_t to, const char *name)
{
	for (size_t i = from; i < to; i++)
		if (!strcmp(t->pool + t->ent[i].name, name))
			return &t->ent[i];
	return NULL;
}

/* The same, a global function only ('T': a local one may share the name). */
static struct ent *efind_T(struct hwbp_symtab *t, size_t from, const char *name)
{
	for (size_t i = from; i < t->n; i++)
		if (t->ent[i].type == 'T' && !strcmp(t->pool + t->ent[i].name, name))
			return &t->ent[i];
	return NULL;
}

/* Add kallsyms' lines of modules (@mod) or of vmlinux. */
static int add_lines(struct hwbp_symtab *t, const struct kscan *ks, bool mod)
{
	for (size_t i = 0; i < ks->n; i++) {
		const struct kline *l = &ks->l[i];
		int r;

		if (l->mod != mod)
			continue;
		/* A per-CPU offset has no extent to infer: the last one would
		 * reach up to the kernel's first address. */
		r = hwbpi_symtab_add_n(t, l->name, l->nlen, l->addr, 0, l->type,
				       !is_percpu_type(l->type));
		if (r < 0)
			return r;
	}
	return 0;
}

/*
 * Debian's image package ships a one-line stand-in: "ffffffffffffffff B
 * The real System.map is in the linux-image-<version>-dbg package".
 */
static int placeholder(const char *text, size_t len, const char *path, char *err, size_t errlen)
{
	static const char mark[] = "The real System.map is in the ";
	const char *nl = memchr(text, '\n', len), *m, *pkg;
	size_t line = nl ? (size_t)(nl - text) : len, plen = 0;

	if (line > 256)
		return 0;
	for (m = text; m + sizeof(mark) - 1 <= text + line; m++)
		if (!memcmp(m, mark, sizeof(mark) - 1))
			break;
	if (m + sizeof(mark) - 1 > text + line)
		return 0;
	pkg = m + sizeof(mark) - 1;
	while (pkg + plen < text + line && pkg[plen] != ' ' && pkg[plen] != '\r')
		plen++;
	hwbpi_say(err, errlen, "%s is Debian's placeholder, not a System.map: the real one is in the "
		  "%.*s package (EINVAL)", path, (int)plen, pkg);
	return -EINVAL;
}

/* Append the System.map or vmlinux of @o to @t, at their link addresses. */
static int load_file(struct hwbp_symtab *t, const struct hwbpi_ksyms_opts *o, char *err,
		     size_t errlen)
{
	char *buf = NULL;
	size_t len = 0;
	unsigned line = 0;
	int r;

	if (o->vmlinux) {
		r = hwbp_symtab_load_elf(t, o->vmlinux, 0);
		if (r == -EINVAL)
			hwbpi_say(err, errlen, "%s is not an ELF file with a symbol table (EINVAL)",
				  o->vmlinux);
		else if (r == -EOPNOTSUPP)
			hwbpi_say(err, errlen, "%s: this hwbp was built without libelf: give a "
				  "System.map instead (EOPNOTSUPP)", o->vmlinux);
		else if (r < 0)
			hwbpi_say(err, errlen, "cannot read %s (%s)", o->vmlinux, hwbp_errno_name(r));
		return r < 0 ? r : 0;
	}
	r = hwbpi_read_file(o->sysmap, &buf, &len);
	if (r < 0) {
		hwbpi_say(err, errlen, "cannot read %s (%s)", o->sysmap, hwbp_errno_name(r));
		return r;
	}
	r = placeholder(buf, len, o->sysmap, err, errlen);
	if (!r) {
		r = hwbp_symtab_load_map_text(t, buf, len, &line);
		if (r == 0) {
			hwbpi_say(err, errlen, "%s holds no symbols (EINVAL)", o->sysmap);
			r = -EINVAL;
		} else if (r == -EINVAL) {
			hwbpi_say(err, errlen, "%s line %u: not a System.map line (EINVAL)", o->sysmap,
				  line);
		} else if (r < 0) {
			hwbpi_say(err, errlen, "%s: %s", o->sysmap, hwbp_errno_name(r));
		}
	}
	free(buf);
	return r < 0 ? r : 0;
}

/* kallsyms' first NCHECK global functions after _stext, into @c. */
static size_t check_syms(const struct kscan *ks, uint64_t stext, const struct kline **c)
{
	size_t n = 0;

	for (size_t i = 0; i < ks->n; i++) {
		const struct kline *l = &ks->l[i];
		size_t at;

		if (l->mod || l->type != 'T' || l->addr <= stext)
			continue;
		if (n < NCHECK)
			n++;
		else if (l->addr >= c[NCHECK - 1]->addr)
			continue;
		for (at = n - 1; at > 0 && c[at - 1]->addr > l->addr; at--)
			c[at] = c[at - 1];
		c[at] = l;
	}
	return n;
}

/*
 * The file's offset from the running kernel: kallsyms(_stext) -
 * file(_stext), confirmed by _etext and kallsyms' first global functions
 * after _stext where the file has them too: a file of another build or
 * another kernel would arm the wrong addresses.
 */
static int find_offset(struct hwbp_symtab *t, size_t from, const struct kscan *ks,
		       const char *file, int64_t *off, char *err, size_t errlen)
{
	const struct kline *ks_stext = kfind(ks, "_stext"), *etext, *c[NCHECK + 1];
	const struct ent *f_stext = efind(t, from, t->n, "_stext");
	size_t n = 0, agree = 0;
	uint64_t d;

	if (!ks_stext || !f_stext) {
		hwbpi_say(err, errlen, "%s has no _stext: the KASLR offset cannot be found (EINVAL)",
			  ks_stext ? file : "kallsyms");
		return -EINVAL;
	}
	d = ks_stext->addr - f_stext->addr;
	if ((c[0] = etext = kfind(ks, "_etext")) != NULL)
		n = 1;
	n += check_syms(ks, ks_stext->addr, c + n);
	for (size_t i = 0; i < n; i++) {
		char name[128];
		const struct ent *e;

		snprintf(name, sizeof(name), "%.*s", (int)c[i]->nlen, c[i]->name);
		/* c[0] may be _etext, whichever section the file says it ends. */
		e = c[i] == etext ? efind(t, from, t->n, name) : efind_T(t, from, name);
		if (!e)
			continue;
		if (c[i]->addr - e->addr != d) {
			hwbpi_say(err, errlen, "%s is not the running kernel's (offsets differ: _stext "
				  "0x%" PRIx64 ", %s 0x%" PRIx64 ") (EINVAL)", file, d, name,
				  c[i]->addr - e->addr);
			return -EINVAL;
		}
		agree++;
	}
	if (!agree) {
		hwbpi_say(err, errlen, "%s cannot be checked against the running kernel: it has none "
			  "of _etext and kallsyms' first functions after _stext (EINVAL)", file);
		return -EINVAL;
	}
	*off = (int64_t)d;
	return 0;
}

/*
 * Move the file's symbols t->ent[from, n) to the running addresses.  On
 * x86_64 per-CPU variables are offsets into each CPU's area
 * (__per_cpu_start is 0, below the image: kallsyms prints them as 'A',
 * make_percpus_absolute() in scripts/kallsyms.c): they stay offsets,
 * typed 'A' as kallsyms has them, and so do a map's absolute symbols.
 */
static void relocate(struct hwbp_symtab *t, size_t from, uint64_t d)
{
	const struct ent *ps = efind(t, from, t->n, "__per_cpu_start");
	const struct ent *pe = efind(t, from, t->n, "__per_cpu_end");
	const struct ent *st = efind(t, from, t->n, "_stext");
	bool zero_based = ps && pe && st && ps->addr <= pe->addr && pe->addr <= st->addr;
	uint64_t lo = zero_based ? ps->addr : 1, hi = zero_based ? pe->addr : 0;

	for (size_t i = from; i < t->n; i++) {
		struct ent *e = &t->ent[i];

		if (is_percpu_type(e->type) || (e->addr >= lo && e->addr <= hi)) {
			e->type = 'A';
			e->infer = false;
			continue;
		}
		e->addr += d;
	}
	hwbpi_symtab_move_regions(t, d);   /* a vmlinux's region moves with it */
}

/* [begin, end) of two symbols among t->ent[from, to), or (0, 0). */
static void range_of(struct hwbp_symtab *t, size_t from, size_t to, const char *b,
		     const char *e, uint64_t r[2])
{
	const struct ent *x = efind(t, from, to, b), *y = efind(t, from, to, e);

	r[0] = r[1] = 0;
	if (x && y && x->addr < y->addr) {
		r[0] = x->addr;
		r[1] = y->addr;
	}
}

/* The counts, kernel_lo and .init ranges of the vmlinux symbols
 * t->ent[from, core) and the modules' [core, n). */
static void describe(struct hwbp_symtab *t, size_t from, size_t core, struct hwbpi_ksyms *k)
{
	k->nsyms = core - from;
	k->nmodsyms = t->n - core;
	k->kernel_lo = 0;
	for (size_t i = from; i < t->n; i++) {
		const struct ent *e = &t->ent[i];

		if (i < core && is_data_sym(e->type, t->pool + e->name))
			k->ndata++;
		if (!is_percpu_type(e->type) && (!k->kernel_lo || e->addr < k->kernel_lo))
			k->kernel_lo = e->addr;
	}
	range_of(t, from, core, "__init_begin", "__init_end", k->init[0]);
	range_of(t, from, core, "_sinittext", "_einittext", k->init[1]);
	/* Per-CPU variables at addresses in the image (arm64's vmlinux.lds.S
	 * puts PERCPU_SECTION in its init data), not x86_64's offsets from 0,
	 * are the boot-time copy that pcpu_embed_first_chunk() (mm/percpu.c)
	 * copies into each CPU's area; the CPUs use their copies. */
	range_of(t, from, core, "__per_cpu_start", "__per_cpu_end", k->percpu);
	if (k->percpu[0] < k->kernel_lo)
		k->percpu[0] = k->percpu[1] = 0;
}

/* Position order of entries, for sized_aliases(). */
static const struct hwbp_symtab *alias_t;

static int by_addr(const void *a, const void *b)
{
	const struct ent *x = &alias_t->ent[*(const uint32_t *)a];
	const struct ent *y = &alias_t->ent[*(const uint32_t *)b];

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/*
 * A vmlinux symbol without a size (st_size 0): a linker-script alias
 * (jiffies = jiffies_64 in every arch's vmlinux.lds.S) takes the size of
 * a sized symbol at its address; any other is sized up to the next
 * symbol, as kallsyms' are.  Entries [from, t->n) of @t.
 */
static int sized_aliases(struct hwbp_symtab *t, size_t from)
{
	size_t n = t->n - from;
	uint32_t *ix = malloc((n ? n : 1) * sizeof(*ix));

	if (!ix)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		ix[i] = (uint32_t)(from + i);
	alias_t = t;
	qsort(ix, n, sizeof(*ix), by_addr);
	for (size_t i = 0, j; i < n; i = j) {
		uint64_t size = 0;

		for (j = i; j < n && t->ent[ix[j]].addr == t->ent[ix[i]].addr; j++)
			if (t->ent[ix[j]].size > size && t->ent[ix[j]].type != 'A')
				size = t->ent[ix[j]].size;
		for (size_t k = i; k < j; k++) {
			struct ent *e = &t->ent[ix[k]];

			if (e->size || e->type == 'A')
				continue;
			e->size = size;
			e->infer = size == 0;
		}
	}
	free(ix);
	return 0;
}

/* The vmlinux symbols: from the file (moved by the KASLR offset) or from
 * kallsyms; then kallsyms' module symbols. */
static int load_all(struct hwbp_symtab *t, const struct hwbpi_ksyms_opts *o,
		    const struct kscan *ks, struct hwbpi_ksyms *k, char *err, size_t errlen)
{
	const char *file = o->vmlinux ? o->vmlinux : o->sysmap;
	size_t from = t->n, core;
	int r;

	if (file) {
		r = load_file(t, o, err, errlen);
		if (r < 0)
			return r;
		r = find_offset(t, from, ks, file, &k->kaslr, err, errlen);
		if (r < 0)
			return r;
		relocate(t, from, (uint64_t)k->kaslr);
		if (o->vmlinux && (r = sized_aliases(t, from)) < 0) {
			hwbpi_say(err, errlen, "%s: %s", o->vmlinux, hwbp_errno_name(r));
			return r;
		}
	} else if ((r = add_lines(t, ks, false)) < 0) {
		hwbpi_say(err, errlen, "kallsyms: %s", hwbp_errno_name(r));
		return r;
	}
	core = t->n;
	if ((r = add_lines(t, ks, true)) < 0) {
		hwbpi_say(err, errlen, "kallsyms: %s", hwbp_errno_name(r));
		return r;
	}
	describe(t, from, core, k);
	return 0;
}

int hwbpi_ksyms_load(struct hwbp_symtab *t, const struct hwbpi_ksyms_opts *o,
		     struct hwbpi_ksyms *k, char *err, size_t errlen)
{
	const char *path, *file;
	struct kscan ks = { NULL, 0, 0 };
	struct hwbpi_ksyms nk;
	struct mark m;
	char *text = NULL;
	size_t len = 0;
	unsigned line = 0;
	int r;

	if (!t || !o || !k) {
		hwbpi_say(err, errlen, "kernel symbols: missing argument (EINVAL)");
		return -EINVAL;
	}
	if (t->finished) {
		hwbpi_say(err, errlen, "kernel symbols: the symbol table is finished (EBUSY)");
		return -EBUSY;
	}
	if (o->vmlinux && o->sysmap) {
		hwbpi_say(err, errlen, "--vmlinux %s and System.map %s: give one of them (EINVAL)",
			  o->vmlinux, o->sysmap);
		return -EINVAL;
	}
	path = o->kallsyms ? o->kallsyms : KALLSYMS;
	file = o->vmlinux ? o->vmlinux : o->sysmap;
	memset(&nk, 0, sizeof(nk));
	r = hwbpi_read_file(path, &text, &len);
	if (r < 0) {
		hwbpi_say(err, errlen, "cannot read %s (%s)%s", path, hwbp_errno_name(r),
			  file ? ": without the running addresses the KASLR offset is unknown" : "");
		return r;
	}
	r = scan_kallsyms(text, len, &ks, &line);
	if (r == -EINVAL && line)
		hwbpi_say(err, errlen, "%s line %u: not a kallsyms line (EINVAL)", path, line);
	else if (r == -EINVAL)
		hwbpi_say(err, errlen, "%s holds no symbols (EINVAL)", path);
	else if (r < 0)
		hwbpi_say(err, errlen, "%s: %s", path, hwbp_errno_name(r));
	else if (all_zero(&ks))
		r = hidden(o, path, file, err, errlen);
	if (!r) {
		m = hwbpi_symtab_mark_of(t);
		r = load_all(t, o, &ks, &nk, err, errlen);
		if (r < 0)
			hwbpi_symtab_rollback(t, m);
	}
	if (!r) {
		nk.from_file = file != NULL;
		nk.sizes_exact = o->vmlinux != NULL;
		if (file)
			snprintf(nk.source, sizeof(nk.source), "%s %s",
				 o->vmlinux ? "vmlinux" : "System.map", file);
		else
			snprintf(nk.source, sizeof(nk.source), "kallsyms");
		*k = nk;
	}
	free(ks.l);
	free(text);
	return r;
}

const char *hwbpi_ksyms_missing_hint(const struct hwbpi_ksyms *k)
{
	if (!k || k->from_file || k->ndata >= HWBPI_KSYMS_MIN_DATA)
		return NULL;
	return "this kernel's kallsyms has no data symbols (CONFIG_KALLSYMS_ALL=n): give "
	       "--vmlinux FILE or a System.map";
}

/* Is @a in the other half of the address space than @lo (the top bit of
 * 64 bits, or of 32 for a kernel below 4 GiB)?  Linux puts the kernel in
 * the upper half and user space in the lower one. */
static bool other_half(uint64_t a, uint64_t lo)
{
	unsigned top = lo > UINT32_MAX ? 63 : 31;

	return ((a >> top) & 1) != ((lo >> top) & 1) || (top == 31 && a > UINT32_MAX);
}

bool hwbpi_ksyms_percpu(const struct hwbpi_ksyms *k, const struct hwbp_sym *s)
{
	if (!k || !s)
		return false;
	return is_percpu_type(s->type) || (k->kernel_lo && s->addr < k->kernel_lo) ||
	       (k->percpu[0] < k->percpu[1] && s->addr >= k->percpu[0] && s->addr < k->percpu[1]);
}

int hwbpi_ksyms_check(const struct hwbpi_ksyms *k, const struct hwbp_symtab *t,
		      const char *name, uint64_t addr, uint64_t len, char *err, size_t errlen)
{
	const struct hwbp_sym *s = name && t ? hwbp_symtab_find(t, name) : NULL;
	uint64_t last = addr + (len ? len - 1 : 0);
	char what[HWBP_TRACE_SYM_LEN + 32];

	if (!k) {
		hwbpi_say(err, errlen, "kernel symbols not loaded (EINVAL)");
		return -EINVAL;
	}
	if (last < addr)
		last = UINT64_MAX;
	if (name)
		snprintf(what, sizeof(what), "%s (0x%" PRIx64 ")", name, addr);
	else
		snprintf(what, sizeof(what), "0x%" PRIx64, addr);
	if (name && ((s && is_percpu_type(s->type)) || (k->kernel_lo && addr < k->kernel_lo))) {
		hwbpi_say(err, errlen, "per-CPU variable %s is an offset (0x%" PRIx64 "), not an "
			  "address: each CPU has its own copy (EINVAL)", name, addr);
		return -EINVAL;
	}
	if (k->percpu[0] < k->percpu[1] && addr < k->percpu[1] && last >= k->percpu[0]) {
		hwbpi_say(err, errlen, "%s is a per-CPU variable's boot-time copy [0x%" PRIx64
			  ", 0x%" PRIx64 "): each CPU uses its own copy elsewhere (EINVAL)", what,
			  k->percpu[0], k->percpu[1]);
		return -EINVAL;
	}
	if (!name && k->kernel_lo && other_half(addr, k->kernel_lo)) {
		hwbpi_say(err, errlen, "%s is a user-space address: --kernel watches kernel "
			  "addresses (the kernel's symbols start at 0x%" PRIx64 ") (EFAULT)", what,
			  k->kernel_lo);
		return -EFAULT;
	}
	for (int i = 0; i < 2; i++) {
		const uint64_t *r = k->init[i];

		if (r[0] < r[1] && addr < r[1] && last >= r[0]) {
			hwbpi_say(err, errlen, "%s is in the kernel's .init [0x%" PRIx64 ", 0x%" PRIx64
				  "), freed after boot: hits there would come from whatever reuses "
				  "it (EINVAL)", what, r[0], r[1]);
			return -EINVAL;
		}
	}
	return 0;
}
