/* SPDX-License-Identifier: MIT */
/*
 * The running kernel's symbols (tracer/symbols/ksyms.h), from files this test
 * writes into a temporary directory: kallsyms text as s_show() prints it
 * (modules after a tab, unsorted; per-CPU 'A' offsets; all zeros when
 * kptr_restrict hides the addresses), kallsyms of a CONFIG_KALLSYMS_ALL=n
 * kernel, System.maps (moved by a KASLR offset, of another kernel,
 * Debian's placeholder) and a vmlinux ELF written with libelf.  Then the
 * checks before arming (.init, per-CPU, user addresses), and one load of
 * this host's /proc/kallsyms against what the file shows.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <hwbp/trace.h>

#include "symbols/ksyms.h"

#ifdef HWBP_HAVE_LIBELF
#include <gelf.h>
#include <libelf.h>
#endif

/* The kernel of the fixtures: linked at LINK, running at LINK + OFF. */
#define LINK 0xffffffff81000000ull
#define OFF 0x2a000000ull
#define RUN(x) (LINK + OFF + (x))

#define N(a) (sizeof(a) / sizeof((a)[0]))

static char dir[64];

/* The path of file @name in the test's directory (one per name: the
 * pointer stays valid). */
static const char *path_of(const char *name)
{
	static struct {
		char name[32], path[128];
	} p[16];
	size_t i;

	for (i = 0; i < 16 && p[i].name[0]; i++)
		if (!strcmp(p[i].name, name))
			return p[i].path;
	assert_true(i < 16 && strlen(name) < sizeof(p[i].name));
	strcpy(p[i].name, name);
	snprintf(p[i].path, sizeof(p[i].path), "%s/%s", dir, name);
	return p[i].path;
}

static const char *put_file(const char *name, const char *text)
{
	const char *p = path_of(name);
	FILE *f = fopen(p, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, strlen(text), f), strlen(text));
	assert_int_equal(fclose(f), 0);
	return p;
}

/* ------------------------------------------------------------------ */
/* Fixtures.                                                           */
/* ------------------------------------------------------------------ */

/* The running kernel's kallsyms: vmlinux lines (sorted, with 'A'
 * per-CPU offsets first, as x86_64 prints them), then modules and
 * pseudo-modules, a tab before "[mod]", in module symtab order. */
static const char ks_head[] =
	"0000000000000000 A fixed_percpu_data\n"
	"0000000000001000 A cpu_number\n"
	"ffffffffab000000 T _stext\n"
	"ffffffffab000000 T _text\n"
	"ffffffffab000100 T do_one\n"
	"ffffffffab000200 t helper\n"
	"ffffffffab000300 T do_two\n"
	"ffffffffab200000 T _etext\n"
	"ffffffffac000000 D pid_max\n"
	"ffffffffac000004 D nr_threads\n"
	"ffffffffac000010 D jiffies\n"
	"ffffffffac000010 D jiffies_64\n";
/* then v01..v16: "ffffffffac0000XX d vNN" at 0x18 + 8 * (N - 1) */
static const char ks_tail[] =
	"ffffffffad000000 T _sinittext\n"
	"ffffffffad000000 D __init_begin\n"
	"ffffffffad000040 t init_fn\n"
	"ffffffffad001000 T _einittext\n"
	"ffffffffad002000 d init_data_x\n"
	"ffffffffad010000 D __init_end\n"
	"ffffffffad100000 B _end\n"
	"ffffffffc0002000 t mod_b\t[mymod]\n"
	"ffffffffc0001000 t mod_a\t[mymod]\n"
	"ffffffffc0003000 d mod_state\t[mymod]\n"
	"ffffffffc0201000 t ftrace_trampoline\t[__builtin__ftrace]\n"
	"ffffffffc0300000 t bpf_prog_6deef7357e7b4530_x\t[bpf]\n";
#define KS_CORE (12 + 16 + 7)
#define KS_MOD 5
#define KS_DATA (4 + 16 + 2)  /* pid_max nr_threads jiffies jiffies_64 v01..v16 init_data_x _end */

static char ks_text[4096];

static const char *kallsyms_text(void)
{
	size_t n = (size_t)snprintf(ks_text, sizeof(ks_text), "%s", ks_head);

	for (unsigned v = 1; v <= 16; v++)
		n += (size_t)snprintf(ks_text + n, sizeof(ks_text) - n, "%016llx d v%02u\n",
				      (unsigned long long)RUN(0x1000000 + 0x18 + 8 * (v - 1)), v);
	snprintf(ks_text + n, sizeof(ks_text) - n, "%s", ks_tail);
	return ks_text;
}

/* A kernel without CONFIG_KALLSYMS_ALL: its text ranges' symbols, the
 * linker's section markers ("__*": not counted) and one stray data
 * symbol inside a text range. */
static const char ks_text_only[] =
	"ffffffffab000000 T _stext\n"
	"ffffffffab000100 T do_one\n"
	"ffffffffab000180 d stray\n"
	"ffffffffab200000 T _etext\n"
	"ffffffffab400000 D __start_rodata\n"
	"ffffffffab400000 R __start___ksymtab\n"
	"ffffffffab400100 R __stop___ksymtab\n"
	"ffffffffab400100 R __start___kcrctab\n"
	"ffffffffab400200 R __stop___kcrctab\n"
	"ffffffffab400200 D __start___jump_table\n"
	"ffffffffab400300 D __stop___jump_table\n"
	"ffffffffab400300 D __start_static_call_sites\n"
	"ffffffffab400400 D __stop_static_call_sites\n"
	"ffffffffab400400 D __start___tracepoints_ptrs\n"
	"ffffffffab400500 D __stop___tracepoints_ptrs\n"
	"ffffffffab400500 R __start___param\n"
	"ffffffffab400600 R __stop___param\n"
	"ffffffffab400600 R __start___modver\n"
	"ffffffffab400700 R __stop___modver\n"
	"ffffffffab400700 R __start___ex_table\n"
	"ffffffffab400800 R __stop___ex_table\n"
	"ffffffffad000000 T _sinittext\n"
	"ffffffffad000000 B __init_begin\n"
	"ffffffffad001000 T _einittext\n"
	"ffffffffc0001000 t mod_a\t[mymod]\n";

/* The same kernel's System.map (link addresses; per-CPU variables from
 * 0, below the image, as on x86_64; an absolute symbol). */
static const char map_text[] =
	"0000000000000000 D __per_cpu_start\n"
	"0000000000000000 D fixed_percpu_data\n"
	"0000000000001000 D cpu_number\n"
	"0000000000002000 D __per_cpu_end\n"
	"0000000000003000 A some_abs\n"
	"ffffffff81000000 T _stext\n"
	"ffffffff81000000 T _text\n"
	"ffffffff81000100 T do_one\n"
	"ffffffff81000200 t helper\n"
	"ffffffff81000300 T do_two\n"
	"ffffffff81200000 T _etext\n"
	"ffffffff82000000 D pid_max\n"
	"ffffffff82000004 D nr_threads\n"
	"ffffffff82000010 D jiffies\n"
	"ffffffff82000010 D jiffies_64\n"
	"ffffffff82000018 d map_only\n"
	"ffffffff83000000 T _sinittext\n"
	"ffffffff83000000 D __init_begin\n"
	"ffffffff83001000 T _einittext\n"
	"ffffffff83010000 D __init_end\n"
	"ffffffff83100000 B _end\n";
#define MAP_CORE 21
#define MAP_DATA 6  /* pid_max nr_threads jiffies jiffies_64 map_only _end */

static const char placeholder[] =
	"ffffffffffffffff B The real System.map is in the linux-image-6.1.0-57-arm64-dbg package\n";

/* A map of another build: its _etext, or its do_one, at another offset. */
static char *map_variant(const char *from, const char *to)
{
	static char b[sizeof(map_text) + 64];
	const char *at = strstr(map_text, from);

	assert_non_null(at);
	snprintf(b, sizeof(b), "%.*s%s%s", (int)(at - map_text), map_text, to, at + strlen(from));
	return b;
}

/* Every address hidden: %px of NULL. */
static const char ks_hidden[] =
	"0000000000000000 T _stext\n"
	"0000000000000000 D pid_max\n"
	"0000000000000000 t mod_a\t[mymod]\n";

#ifdef HWBP_HAVE_LIBELF
/* A vmlinux: sections and symbols as the kernel's linker script makes
 * them (section markers NOTYPE, variables OBJECT with st_size). */
struct vsec {
	const char *name;
	uint64_t addr, flags;
};
static const struct vsec vsecs[] = {
	{ ".text", LINK, SHF_ALLOC | SHF_EXECINSTR },
	{ ".data", LINK + 0x1000000, SHF_ALLOC | SHF_WRITE },
	{ ".init.text", LINK + 0x2000000, SHF_ALLOC | SHF_EXECINSTR },
	{ ".init.data", LINK + 0x2002000, SHF_ALLOC | SHF_WRITE },
	{ ".data..percpu", 0, SHF_ALLOC | SHF_WRITE },
};
struct vsym {
	const char *name;
	unsigned sec;          /* index in vsecs + 1 */
	uint64_t addr, size;
	unsigned type;
};
static const struct vsym vsyms[] = {
	{ "_stext", 1, LINK, 0, STT_NOTYPE },
	{ "do_one", 1, LINK + 0x100, 0x80, STT_FUNC },
	{ "do_two", 1, LINK + 0x300, 0x40, STT_FUNC },
	{ "_etext", 1, LINK + 0x200000, 0, STT_NOTYPE },
	{ "pid_max", 2, LINK + 0x1000000, 4, STT_OBJECT },
	{ "nr_threads", 2, LINK + 0x1000004, 4, STT_OBJECT },
	{ "jiffies_64", 2, LINK + 0x1000010, 8, STT_OBJECT },
	/* a linker-script alias (jiffies = jiffies_64;): no type, no size */
	{ "jiffies", 2, LINK + 0x1000010, 0, STT_NOTYPE },
	/* a data symbol without a size and without a sized alias */
	{ "data_marker", 2, LINK + 0x1000020, 0, STT_NOTYPE },
	{ "_sinittext", 3, LINK + 0x2000000, 0, STT_NOTYPE },
	{ "__init_begin", 3, LINK + 0x2000000, 0, STT_NOTYPE },
	{ "_einittext", 3, LINK + 0x2001000, 0, STT_NOTYPE },
	{ "init_data_x", 4, LINK + 0x2002000, 16, STT_OBJECT },
	{ "__init_end", 4, LINK + 0x2010000, 0, STT_NOTYPE },
	{ "__per_cpu_start", 5, 0, 0, STT_NOTYPE },
	{ "cpu_number", 5, 0x1000, 4, STT_OBJECT },
	{ "__per_cpu_end", 5, 0x2000, 0, STT_NOTYPE },
};
#define NVSYM (sizeof(vsyms) / sizeof(vsyms[0]))

static Elf_Scn *new_scn(Elf *e, size_t name, unsigned type, uint64_t flags, uint64_t addr,
			void *buf, size_t size, size_t align)
{
	Elf_Scn *s = elf_newscn(e);
	Elf_Data *d;
	GElf_Shdr sh;

	assert_non_null(s);
	d = elf_newdata(s);
	assert_non_null(d);
	d->d_buf = buf;
	d->d_size = size;
	d->d_align = align;
	d->d_type = type == SHT_SYMTAB ? ELF_T_SYM : ELF_T_BYTE;
	assert_non_null(gelf_getshdr(s, &sh));
	sh.sh_name = name;
	sh.sh_type = type;
	sh.sh_flags = flags;
	sh.sh_addr = addr;
	sh.sh_addralign = align;
	assert_true(gelf_update_shdr(s, &sh));
	return s;
}

/* Write the vmlinux of vsyms[] to @path. */
static void write_vmlinux(const char *path)
{
	static char body[64];
	char shstr[256] = "", str[512] = "";
	size_t shl = 1, sl = 1, secname[8], symname[NVSYM];
	Elf64_Sym sym[NVSYM + 1];
	GElf_Ehdr eh;
	Elf_Scn *symscn;
	GElf_Shdr sh;
	Elf *e;
	int fd;

	assert_int_not_equal(elf_version(EV_CURRENT), EV_NONE);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	e = elf_begin(fd, ELF_C_WRITE, NULL);
	assert_non_null(e);
	assert_non_null(gelf_newehdr(e, ELFCLASS64));
	assert_non_null(gelf_getehdr(e, &eh));
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_type = ET_EXEC;
	eh.e_machine = EM_NONE;
	eh.e_version = EV_CURRENT;
	/* Names: sections (vsecs, .symtab, .strtab, .shstrtab), symbols. */
	for (size_t i = 0; i < 8; i++) {
		static const char *more[] = { ".symtab", ".strtab", ".shstrtab" };
		const char *n = i < 5 ? vsecs[i].name : more[i - 5];

		secname[i] = shl;
		strcpy(shstr + shl, n);
		shl += strlen(n) + 1;
	}
	memset(sym, 0, sizeof(sym));
	for (size_t i = 0; i < NVSYM; i++) {
		symname[i] = sl;
		strcpy(str + sl, vsyms[i].name);
		sl += strlen(vsyms[i].name) + 1;
		sym[i + 1].st_name = (Elf64_Word)symname[i];
		sym[i + 1].st_info = ELF64_ST_INFO(STB_GLOBAL, vsyms[i].type);
		sym[i + 1].st_shndx = (Elf64_Section)vsyms[i].sec;
		sym[i + 1].st_value = vsyms[i].addr;
		sym[i + 1].st_size = vsyms[i].size;
	}
	for (size_t i = 0; i < 5; i++)
		new_scn(e, secname[i], SHT_PROGBITS, vsecs[i].flags, vsecs[i].addr, body,
			sizeof(body), 8);
	symscn = new_scn(e, secname[5], SHT_SYMTAB, 0, 0, sym, sizeof(sym), 8);
	new_scn(e, secname[6], SHT_STRTAB, 0, 0, str, sl, 1);
	new_scn(e, secname[7], SHT_STRTAB, 0, 0, shstr, shl, 1);
	assert_non_null(gelf_getshdr(symscn, &sh));
	sh.sh_link = 7;   /* .strtab */
	sh.sh_info = 1;   /* the first global */
	sh.sh_entsize = sizeof(Elf64_Sym);
	assert_true(gelf_update_shdr(symscn, &sh));
	eh.e_shstrndx = 8;
	assert_true(gelf_update_ehdr(e, &eh));
	assert_true(elf_update(e, ELF_C_WRITE) > 0);
	elf_end(e);
	close(fd);
}
#endif

/* ------------------------------------------------------------------ */
/* Loads.                                                              */
/* ------------------------------------------------------------------ */

struct loaded {
	struct hwbp_symtab *t;
	struct hwbpi_ksyms k;
	char err[512];
	int r;
};

static void load(struct loaded *l, const struct hwbpi_ksyms_opts *o)
{
	int e = 1;

	l->t = hwbp_symtab_new(&e);
	assert_non_null(l->t);
	/* A symbol loaded before: a failed load keeps it, and only it. */
	assert_int_equal(hwbp_symtab_add(l->t, "before", 0x10, 1, 'T'), 0);
	memset(&l->k, 0x5a, sizeof(l->k));
	l->err[0] = '\0';
	l->r = hwbpi_ksyms_load(l->t, o, &l->k, l->err, sizeof(l->err));
	if (l->r < 0)
		assert_int_equal(hwbp_symtab_count(l->t), 1);
	assert_int_equal(hwbp_symtab_finish(l->t), 0);
}

static const struct hwbp_sym *sym(const struct loaded *l, const char *name)
{
	return hwbp_symtab_find(l->t, name);
}

/* Symbol @name at @addr, of @size and @type, the size inferred or not. */
static void want_sym(const struct loaded *l, const char *name, uint64_t addr, uint64_t size,
		     char type, bool inferred)
{
	const struct hwbp_sym *s = sym(l, name);

	if (!s)
		fail_msg("%s: not loaded", name);
	assert_true(s->addr == addr);
	assert_true(s->size == size);
	assert_int_equal(s->type, type);
	assert_int_equal(hwbpi_symtab_size_inferred(l->t, s), inferred);
}

/* A symbol a load must give: want_sym()'s arguments. */
struct sym_row {
	const char *name;
	uint64_t addr, size;
	char type;
	bool inferred;
};

static void want_syms(const struct loaded *l, const struct sym_row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++)
		want_sym(l, rows[i].name, rows[i].addr, rows[i].size, rows[i].type, rows[i].inferred);
}

/* kallsyms alone's symbols: sizes up to the next higher address. */
static const struct sym_row kallsyms_rows[] = {
	/* Aliases (jiffies = jiffies_64) both reach v01, not each other. */
	{ "pid_max", RUN(0x1000000), 4, 'D', true },
	{ "jiffies", RUN(0x1000010), 8, 'D', true },
	{ "jiffies_64", RUN(0x1000010), 8, 'D', true },
	{ "v16", RUN(0x1000018 + 8 * 15), RUN(0x2000000) - RUN(0x1000018 + 8 * 15), 'd', true },
	{ "do_one", RUN(0x100), 0x100, 'T', true },
	/* Modules, unsorted in the file: sorted before sizes are inferred. */
	{ "mod_a", 0xffffffffc0001000ull, 0x1000, 't', true },
	{ "mod_b", 0xffffffffc0002000ull, 0x1000, 't', true },
	{ "mod_state", 0xffffffffc0003000ull, 0xffffffffc0201000ull - 0xffffffffc0003000ull, 'd',
	  true },
	{ "ftrace_trampoline", 0xffffffffc0201000ull, 0xff000, 't', true },
	{ "bpf_prog_6deef7357e7b4530_x", 0xffffffffc0300000ull, 0, 't', true },
	{ "_end", RUN(0x2100000), 0xffffffffc0001000ull - RUN(0x2100000), 'B', true },
	/* Per-CPU offsets: no size inferred (the last would reach _stext). */
	{ "cpu_number", 0x1000, 0, 'A', false },
	/* Hand-added: its size is the source's. */
	{ "before", 0x10, 1, 'T', false },
};

/* kallsyms alone: every symbol, sizes up to the next higher address. */
static void test_kallsyms(void **state)
{
	struct hwbpi_ksyms_opts o = { put_file("kallsyms", kallsyms_text()), NULL, NULL, NULL,
				      NULL };
	struct loaded l;

	(void)state;
	load(&l, &o);
	assert_int_equal(l.r, 0);
	assert_string_equal(l.k.source, "kallsyms");
	assert_false(l.k.from_file);
	assert_false(l.k.sizes_exact);
	assert_true(l.k.kaslr == 0);
	assert_int_equal(l.k.nsyms, KS_CORE);
	assert_int_equal(l.k.nmodsyms, KS_MOD);
	assert_int_equal(l.k.ndata, KS_DATA);
	assert_int_equal(hwbp_symtab_count(l.t), 1 + KS_CORE + KS_MOD);
	assert_true(l.k.kernel_lo == RUN(0));
	assert_true(l.k.init[0][0] == RUN(0x2000000) && l.k.init[0][1] == RUN(0x2010000));
	assert_true(l.k.init[1][0] == RUN(0x2000000) && l.k.init[1][1] == RUN(0x2001000));
	assert_null(hwbpi_ksyms_missing_hint(&l.k));
	assert_true(l.k.percpu[0] == 0 && l.k.percpu[1] == 0);
	want_syms(&l, kallsyms_rows, N(kallsyms_rows));
	/* The next symbol at a higher address. */
	assert_ptr_equal(hwbpi_symtab_next(l.t, sym(&l, "pid_max")), sym(&l, "nr_threads"));
	assert_ptr_equal(hwbpi_symtab_next(l.t, sym(&l, "jiffies")), sym(&l, "v01"));
	assert_ptr_equal(hwbpi_symtab_next(l.t, sym(&l, "jiffies_64")), sym(&l, "v01"));
	assert_ptr_equal(hwbpi_symtab_next(l.t, sym(&l, "mod_a")), sym(&l, "mod_b"));
	assert_null(hwbpi_symtab_next(l.t, sym(&l, "bpf_prog_6deef7357e7b4530_x")));
	assert_null(hwbpi_symtab_next(l.t, NULL));
	assert_null(hwbpi_symtab_next(NULL, sym(&l, "pid_max")));
	assert_false(hwbpi_symtab_size_inferred(l.t, NULL));
	{
		struct hwbp_sym copy = *sym(&l, "pid_max");

		/* Not one of the table's symbols. */
		assert_null(hwbpi_symtab_next(l.t, &copy));
		assert_false(hwbpi_symtab_size_inferred(l.t, &copy));
	}
	hwbp_symtab_free(l.t);
}

/* CONFIG_KALLSYMS_ALL=n: the load works (functions are named), and a
 * missing data symbol gets the hint; a file with the data clears it. */
static void test_text_only(void **state)
{
	struct hwbpi_ksyms_opts o = { put_file("kallsyms_text", ks_text_only), NULL, NULL, NULL,
				      NULL };
	struct loaded l;

	(void)state;
	load(&l, &o);
	assert_int_equal(l.r, 0);
	assert_int_equal(l.k.nsyms, 24);
	assert_int_equal(l.k.nmodsyms, 1);
	assert_int_equal(l.k.ndata, 1);
	assert_null(sym(&l, "pid_max"));
	assert_string_equal(hwbpi_ksyms_missing_hint(&l.k),
			    "this kernel's kallsyms has no data symbols (CONFIG_KALLSYMS_ALL=n): "
			    "give --vmlinux FILE or a System.map");
	/* __init_end is missing: that range is unknown; the text one is not. */
	assert_true(l.k.init[0][0] == 0 && l.k.init[0][1] == 0);
	assert_true(l.k.init[1][0] == RUN(0x2000000) && l.k.init[1][1] == RUN(0x2001000));
	assert_null(hwbpi_ksyms_missing_hint(NULL));
	hwbp_symtab_free(l.t);

	o.sysmap = put_file("System.map", map_text);
	load(&l, &o);
	assert_int_equal(l.r, 0);
	assert_true(l.k.kaslr == (int64_t)OFF);
	assert_null(hwbpi_ksyms_missing_hint(&l.k));
	want_sym(&l, "pid_max", RUN(0x1000000), 4, 'D', true);
	hwbp_symtab_free(l.t);
}

/* The System.map's symbols, moved by the KASLR offset. */
static const struct sym_row sysmap_rows[] = {
	{ "pid_max", RUN(0x1000000), 4, 'D', true },
	{ "jiffies", RUN(0x1000010), 8, 'D', true },
	{ "jiffies_64", RUN(0x1000010), 8, 'D', true },
	{ "map_only", RUN(0x1000018), RUN(0x2000000) - RUN(0x1000018), 'd', true },
	{ "mod_a", 0xffffffffc0001000ull, 0x1000, 't', true },
	/* Per-CPU variables and absolute symbols stay offsets, typed 'A'. */
	{ "cpu_number", 0x1000, 0, 'A', false },
	{ "some_abs", 0x3000, 0, 'A', false },
};

/* A System.map moved by the offset kallsyms shows; modules from kallsyms;
 * kallsyms' own vmlinux symbols not loaded a second time. */
static void test_sysmap(void **state)
{
	struct hwbpi_ksyms_opts o = { put_file("kallsyms", kallsyms_text()), NULL,
				      put_file("System.map", map_text), NULL, NULL };
	char src[256];
	struct loaded l;

	(void)state;
	load(&l, &o);
	assert_int_equal(l.r, 0);
	snprintf(src, sizeof(src), "System.map %s", o.sysmap);
	assert_string_equal(l.k.source, src);
	assert_true(l.k.from_file);
	assert_false(l.k.sizes_exact);
	assert_true(l.k.kaslr == (int64_t)OFF);
	assert_int_equal(l.k.nsyms, MAP_CORE);
	assert_int_equal(l.k.nmodsyms, KS_MOD);
	assert_int_equal(l.k.ndata, MAP_DATA);
	assert_int_equal(hwbp_symtab_count(l.t), 1 + MAP_CORE + KS_MOD);
	assert_true(l.k.kernel_lo == RUN(0));
	assert_true(l.k.init[0][0] == RUN(0x2000000) && l.k.init[0][1] == RUN(0x2010000));
	assert_true(l.k.init[1][0] == RUN(0x2000000) && l.k.init[1][1] == RUN(0x2001000));
	want_syms(&l, sysmap_rows, N(sysmap_rows));
	assert_true(l.k.percpu[0] == 0 && l.k.percpu[1] == 0);  /* offsets from 0 */
	assert_null(sym(&l, "v01"));            /* kallsyms' vmlinux line: not loaded */
	hwbp_symtab_free(l.t);
}

#ifdef HWBP_HAVE_LIBELF
/* The vmlinux's symbols: st_size where it has one. */
static const struct sym_row vmlinux_rows[] = {
	{ "pid_max", RUN(0x1000000), 4, 'D', false },
	/* the alias takes jiffies_64's size; the marker is sized up to the
	 * next symbol (none in its section: the init text at 0x2000000) */
	{ "jiffies", RUN(0x1000010), 8, 'D', false },
	{ "data_marker", RUN(0x1000020), 0x2000000 - 0x1000020, 'D', true },
	{ "do_one", RUN(0x100), 0x80, 'T', false },
	{ "cpu_number", 0x1000, 4, 'A', false },
	{ "mod_b", 0xffffffffc0002000ull, 0x1000, 't', true },
};
#endif

/* A vmlinux: st_size gives the lengths. */
static void test_vmlinux(void **state)
{
	struct hwbpi_ksyms_opts o = { put_file("kallsyms", kallsyms_text()), path_of("vmlinux"),
				      NULL, NULL, NULL };
	struct loaded l;

	(void)state;
#ifndef HWBP_HAVE_LIBELF
	put_file("vmlinux", "\x7f" "ELF");
	load(&l, &o);
	assert_int_equal(l.r, -EOPNOTSUPP);
	hwbp_symtab_free(l.t);
#else
	char src[256];

	write_vmlinux(o.vmlinux);
	load(&l, &o);
	assert_int_equal(l.r, 0);
	snprintf(src, sizeof(src), "vmlinux %s", o.vmlinux);
	assert_string_equal(l.k.source, src);
	assert_true(l.k.sizes_exact);
	assert_true(l.k.kaslr == (int64_t)OFF);
	assert_int_equal(l.k.nsyms, NVSYM);
	assert_int_equal(l.k.nmodsyms, KS_MOD);
	assert_int_equal(l.k.ndata, 6);  /* pid_max nr_threads jiffies_64 jiffies data_marker
					  * init_data_x */
	want_syms(&l, vmlinux_rows, N(vmlinux_rows));
	assert_true(l.k.kernel_lo == RUN(0));
	assert_true(l.k.init[0][0] == RUN(0x2000000) && l.k.init[0][1] == RUN(0x2010000));
	assert_true(l.k.init[1][0] == RUN(0x2000000) && l.k.init[1][1] == RUN(0x2001000));
	assert_null(hwbpi_ksyms_missing_hint(&l.k));
	hwbp_symtab_free(l.t);
#endif
}

/* Refusals: the errno and the words of the one-line message. */
static void test_refusals(void **state)
{
	enum { KS, KS_HIDDEN, KS_TEXT, KS_NONE, KS_BAD, KS_EMPTY };
	static const struct {
		int kallsyms;
		const char *sysmap;          /* text of a System.map, or NULL */
		const char *vmlinux;         /* text of a "vmlinux", or NULL */
		const char *kptr, *paranoid; /* sysctl texts, NULL: no file */
		int want;
		const char *msg[3];
	} cases[] = {
		{ KS_HIDDEN, NULL, NULL, "0\n", "2\n", -EACCES,
		  { "shows every address as 0: with kernel.kptr_restrict=0 they need CAP_SYSLOG "
		    "or kernel.perf_event_paranoid <= 1 (it is 2): run as root or sysctl "
		    "kernel.perf_event_paranoid=1 (EACCES)" } },
		{ KS_HIDDEN, NULL, NULL, "1\n", "2\n", -EACCES,
		  { "shows every address as 0: with kernel.kptr_restrict=1 they need CAP_SYSLOG: "
		    "run as root (EACCES)" } },
		{ KS_HIDDEN, NULL, NULL, "2\n", "-1\n", -EACCES,
		  { "shows every address as 0: kernel.kptr_restrict=2 hides them even from root: "
		    "sysctl kernel.kptr_restrict=1 and run as root (EACCES)" } },
		{ KS_HIDDEN, NULL, NULL, NULL, NULL, -EACCES,
		  { "shows every address as 0: they need CAP_SYSLOG and kernel.kptr_restrict <= 1 "
		    "(kernel.kptr_restrict: ENOENT) (EACCES)" } },
		/* A file does not help: its offset would be unknown. */
		{ KS_HIDDEN, map_text, NULL, "2\n", NULL, -EACCES,
		  { "shows every address as 0 (the KASLR offset of ", "System.map needs them): "
		    "kernel.kptr_restrict=2 hides" } },
		{ KS, placeholder, NULL, NULL, NULL, -EINVAL,
		  { "System.map is Debian's placeholder, not a System.map: the real one is in the "
		    "linux-image-6.1.0-57-arm64-dbg package (EINVAL)" } },
		{ KS, "ffffffff81000000 T _stext\nffffffff81200000 T _etext\nzz\n", NULL, NULL, NULL,
		  -EINVAL, { "System.map line 3: not a System.map line (EINVAL)" } },
		{ KS, "\n", NULL, NULL, NULL, -EINVAL, { "System.map holds no symbols (EINVAL)" } },
		{ KS, "ffffffff82000000 D pid_max\n", NULL, NULL, NULL, -EINVAL,
		  { "System.map has no _stext: the KASLR offset cannot be found (EINVAL)" } },
		{ KS_TEXT, "ffffffff81000000 T _stext\nffffffff82000000 D pid_max\n", NULL, NULL,
		  NULL, -EINVAL,
		  { "System.map cannot be checked against the running kernel: it has none of "
		    "_etext and kallsyms' first functions after _stext (EINVAL)" } },
		{ KS_NONE, map_text, NULL, NULL, NULL, -ENOENT,
		  { "cannot read ", "kallsyms_none (ENOENT): without the running addresses the "
		    "KASLR offset is unknown" } },
		{ KS_NONE, NULL, NULL, NULL, NULL, -ENOENT, { "kallsyms_none (ENOENT)" } },
		{ KS_BAD, NULL, NULL, NULL, NULL, -EINVAL,
		  { "kallsyms_bad line 2: not a kallsyms line (EINVAL)" } },
		{ KS_EMPTY, NULL, NULL, NULL, NULL, -EINVAL,
		  { "kallsyms_empty holds no symbols (EINVAL)" } },
		{ KS, map_text, "x", NULL, NULL, -EINVAL,
		  { "--vmlinux ", "and System.map ", ": give one of them (EINVAL)" } },
		{ KS, NULL, "not an ELF file\n", NULL, NULL,
#ifdef HWBP_HAVE_LIBELF
		  -EINVAL, { "vmlinux is not an ELF file with a symbol table (EINVAL)" }
#else
		  -EOPNOTSUPP, { "built without libelf: give a System.map instead (EOPNOTSUPP)" }
#endif
		},
	};
	const char *ks_files[] = {
		put_file("kallsyms", kallsyms_text()), put_file("kallsyms_hidden", ks_hidden),
		put_file("kallsyms_text", ks_text_only), path_of("kallsyms_none"),
		put_file("kallsyms_bad", "ffffffffab000000 T _stext\nffffffffab000100 T\n"),
		put_file("kallsyms_empty", "\n\n"),
	};

	(void)state;
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct hwbpi_ksyms_opts o = { ks_files[cases[c].kallsyms], NULL, NULL,
					      path_of("kptr_restrict"), path_of("paranoid") };
		struct loaded l;

		unlink(path_of("kptr_restrict"));
		unlink(path_of("paranoid"));
		if (cases[c].kptr)
			put_file("kptr_restrict", cases[c].kptr);
		if (cases[c].paranoid)
			put_file("paranoid", cases[c].paranoid);
		if (cases[c].sysmap)
			o.sysmap = put_file("System.map", cases[c].sysmap);
		if (cases[c].vmlinux)
			o.vmlinux = put_file("vmlinux", cases[c].vmlinux);
		load(&l, &o);
		if (l.r != cases[c].want)
			fail_msg("case %zu: %d, want %d (%s)", c, l.r, cases[c].want, l.err);
		for (int i = 0; i < 3 && cases[c].msg[i]; i++)
			if (!strstr(l.err, cases[c].msg[i]))
				fail_msg("case %zu: '%s' lacks '%s'", c, l.err, cases[c].msg[i]);
		assert_null(strchr(l.err, '\n'));
		hwbp_symtab_free(l.t);
	}
}

/* A file of another kernel: the offsets of _stext and a second symbol
 * differ (_etext, or the first global function after _stext). */
static void test_mismatch(void **state)
{
	static const struct {
		const char *from, *to, *msg;
	} cases[] = {
		{ "ffffffff81200000 T _etext", "ffffffff81201000 T _etext",
		  "is not the running kernel's (offsets differ: _stext 0x2a000000, _etext "
		  "0x29fff000) (EINVAL)" },
		{ "ffffffff81000100 T do_one", "ffffffff81000180 T do_one",
		  "is not the running kernel's (offsets differ: _stext 0x2a000000, do_one "
		  "0x29ffff80) (EINVAL)" },
		{ "ffffffff81000300 T do_two", "ffffffff81000340 T do_two",
		  "(offsets differ: _stext 0x2a000000, do_two 0x29ffffc0) (EINVAL)" },
		/* Only a local function moved: not one of the checks, loads. */
		{ "ffffffff81000200 t helper", "ffffffff81000280 t helper", NULL },
		/* Without _etext the functions still check it. */
		{ "ffffffff81200000 T _etext\n", "", NULL },
	};
	struct hwbpi_ksyms_opts o = { put_file("kallsyms", kallsyms_text()), NULL, NULL, NULL,
				      NULL };

	(void)state;
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct loaded l;

		o.sysmap = put_file("System.map", map_variant(cases[c].from, cases[c].to));
		load(&l, &o);
		if (cases[c].msg) {
			assert_int_equal(l.r, -EINVAL);
			if (!strstr(l.err, cases[c].msg))
				fail_msg("case %zu: '%s' lacks '%s'", c, l.err, cases[c].msg);
		} else {
			assert_int_equal(l.r, 0);
			assert_true(l.k.kaslr == (int64_t)OFF);
		}
		hwbp_symtab_free(l.t);
	}
}

/* ------------------------------------------------------------------ */
/* Checks before arming.                                               */
/* ------------------------------------------------------------------ */

/* hwbpi_ksyms_check() of an address (of a symbol, or a number) and a
 * length: its result and a part of its message. */
struct check_row {
	const char *name;        /* NULL: given as a number */
	uint64_t addr, len;
	int want;
	const char *msg;
};

static void run_checks(const struct loaded *l, const struct check_row *rows, size_t n)
{
	char err[512];

	for (size_t c = 0; c < n; c++) {
		int r;

		err[0] = '\0';
		r = hwbpi_ksyms_check(&l->k, l->t, rows[c].name, rows[c].addr, rows[c].len, err,
				      sizeof(err));
		if (r != rows[c].want)
			fail_msg("case %zu: %d, want %d (%s)", c, r, rows[c].want, err);
		if (rows[c].msg && !strstr(err, rows[c].msg))
			fail_msg("case %zu: '%s' lacks '%s'", c, err, rows[c].msg);
	}
}

/* The fixtures' kernel (x86_64's layout: per-CPU offsets from 0). */
static const struct check_row check_rows[] = {
	{ "pid_max", RUN(0x1000000), 4, 0, NULL },
	{ "jiffies", RUN(0x1000010), 8, 0, NULL },
	{ NULL, RUN(0x1000004), 4, 0, NULL },
	/* Below the image but in the kernel's half (the direct map). */
	{ NULL, 0xffff888000001000ull, 8, 0, NULL },
	{ "cpu_number", 0x1000, 4, -EINVAL,
	  "per-CPU variable cpu_number is an offset (0x1000), not an address: each CPU "
	  "has its own copy (EINVAL)" },
	{ "fixed_percpu_data", 0, 8, -EINVAL, "per-CPU variable fixed_percpu_data" },
	/* A symbol's address below every kernel symbol: an offset too. */
	{ "not_in_table", 0x2000, 4, -EINVAL, "per-CPU variable not_in_table" },
	{ NULL, 0x1000, 4, -EFAULT,
	  "0x1000 is a user-space address: --kernel watches kernel addresses (the "
	  "kernel's symbols start at 0xffffffffab000000) (EFAULT)" },
	{ NULL, 0x7ffffffff000ull, 8, -EFAULT, "0x7ffffffff000 is a user-space address" },
	{ "init_data_x", RUN(0x2002000), 8, -EINVAL,
	  "init_data_x (0xffffffffad002000) is in the kernel's .init [0xffffffffad000000, "
	  "0xffffffffad010000), freed after boot: hits there would come from whatever "
	  "reuses it (EINVAL)" },
	{ "init_fn", RUN(0x2000040), 1, -EINVAL, "init_fn (0xffffffffad000040) is in" },
	{ NULL, RUN(0x200fff8), 8, -EINVAL, "0xffffffffad00fff8 is in the kernel's .init" },
	/* Reaching into .init from below; starting at its end. */
	{ NULL, RUN(0x1fffffc), 8, -EINVAL, "is in the kernel's .init" },
	{ NULL, RUN(0x1fffff8), 8, 0, NULL },
	{ "__init_end", RUN(0x2010000), 8, 0, NULL },
	{ NULL, RUN(0x2010000), 0, 0, NULL },
};

static void test_check(void **state)
{
	struct hwbpi_ksyms_opts o = { put_file("kallsyms", kallsyms_text()), NULL, NULL, NULL,
				      NULL };
	struct loaded l;
	char err[512];

	(void)state;
	load(&l, &o);
	assert_int_equal(l.r, 0);
	run_checks(&l, check_rows, N(check_rows));
	assert_int_equal(hwbpi_ksyms_check(NULL, l.t, NULL, 0, 1, err, sizeof(err)), -EINVAL);
	/* .init unknown: nothing refused for it. */
	l.k.init[0][0] = l.k.init[0][1] = l.k.init[1][0] = l.k.init[1][1] = 0;
	assert_int_equal(hwbpi_ksyms_check(&l.k, l.t, "init_data_x", RUN(0x2002000), 8, err,
					   sizeof(err)), 0);
	hwbp_symtab_free(l.t);
}

/* The same checks on test_check_in_image's kernel (arm64's layout). */
static const struct check_row in_image_rows[] = {
	{ "pid_max", 0xffff80000a000000ull, 4, 0, NULL },
	{ "mod_fn", 0xffff800000001000ull, 4, 0, NULL },
	{ NULL, 0xffff000012345678ull, 8, 0, NULL },
	{ "cpu_number", 0xffff80000b200040ull, 4, -EINVAL,
	  "cpu_number (0xffff80000b200040) is a per-CPU variable's boot-time copy "
	  "[0xffff80000b200000, 0xffff80000b210000): each CPU uses its own copy elsewhere "
	  "(EINVAL)" },
	{ NULL, 0xffff80000b20fffcull, 8, -EINVAL, "is a per-CPU variable's boot-time copy" },
	{ NULL, 0xffff80000b210000ull, 8, -EINVAL, "is in the kernel's .init" },
	{ NULL, 0x0000ffffdeadb000ull, 8, -EFAULT,
	  "0xffffdeadb000 is a user-space address: --kernel watches kernel addresses (the "
	  "kernel's symbols start at 0xffff800000001000) (EFAULT)" },
};

/* A kernel whose per-CPU variables are addresses in its init data (as
 * arm64's), with modules below the image and a linear map below them. */
static void test_check_in_image(void **state)
{
	static const char text[] =
		"ffff800008010000 T _stext\n"
		"ffff800008020000 T do_one\n"
		"ffff800009000000 T _etext\n"
		"ffff80000a000000 D pid_max\n"
		"ffff80000b000000 D __init_begin\n"
		"ffff80000b000000 T _sinittext\n"
		"ffff80000b100000 T _einittext\n"
		"ffff80000b200000 D __per_cpu_start\n"
		"ffff80000b200040 d cpu_number\n"
		"ffff80000b210000 D __per_cpu_end\n"
		"ffff80000b300000 D __init_end\n"
		"ffff800000001000 t mod_fn\t[m]\n";
	struct hwbpi_ksyms_opts o = { put_file("kallsyms", text), NULL, NULL, NULL, NULL };
	struct loaded l;

	(void)state;
	load(&l, &o);
	assert_int_equal(l.r, 0);
	assert_true(l.k.kernel_lo == 0xffff800000001000ull);
	assert_true(l.k.percpu[0] == 0xffff80000b200000ull && l.k.percpu[1] == 0xffff80000b210000ull);
	assert_true(l.k.init[0][0] == 0xffff80000b000000ull && l.k.init[0][1] == 0xffff80000b300000ull);
	run_checks(&l, in_image_rows, N(in_image_rows));
	hwbp_symtab_free(l.t);
}

/* This host's /proc/kallsyms: the load matches what the file shows,
 * hidden (every address 0) or not. */
static void test_host(void **state)
{
	struct hwbpi_ksyms_opts o = { NULL, NULL, NULL, NULL, NULL };
	unsigned long long stext = 0, a;
	bool any = false, hidden = true;
	char line[512], name[256], type;
	struct loaded l;
	FILE *f;

	(void)state;
	/* Read first: a module loaded in between changes nothing here. */
	f = fopen("/proc/kallsyms", "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %255s", &a, &type, name) != 3)
			continue;
		any = true;
		if (a)
			hidden = false;
		if (!stext && !strcmp(name, "_stext"))
			stext = a;
	}
	fclose(f);
	assert_true(any);
	load(&l, &o);
	if (hidden) {
		assert_int_equal(l.r, -EACCES);
		assert_non_null(strstr(l.err, "/proc/kallsyms shows every address as 0"));
	} else {
		assert_int_equal(l.r, 0);
		assert_true(l.k.nsyms > 0);
		assert_true(hwbp_symtab_count(l.t) == 1 + l.k.nsyms + l.k.nmodsyms);
		assert_string_equal(l.k.source, "kallsyms");
		assert_true(l.k.kernel_lo != 0);
		if (stext) {
			assert_non_null(sym(&l, "_stext"));
			assert_true(sym(&l, "_stext")->addr == stext);
			assert_true(l.k.kernel_lo <= stext);
		}
	}
	hwbp_symtab_free(l.t);
}

static void test_args(void **state)
{
	struct hwbpi_ksyms_opts o = { put_file("kallsyms", kallsyms_text()), NULL, NULL, NULL,
				      NULL };
	struct hwbpi_ksyms k;
	char err[256];
	int e;
	struct hwbp_symtab *t = hwbp_symtab_new(&e);

	(void)state;
	assert_int_equal(hwbpi_ksyms_load(NULL, &o, &k, err, sizeof(err)), -EINVAL);
	assert_int_equal(hwbpi_ksyms_load(t, NULL, &k, err, sizeof(err)), -EINVAL);
	assert_int_equal(hwbpi_ksyms_load(t, &o, NULL, err, sizeof(err)), -EINVAL);
	assert_int_equal(hwbp_symtab_finish(t), 0);
	assert_int_equal(hwbpi_ksyms_load(t, &o, &k, err, sizeof(err)), -EBUSY);
	assert_string_equal(err, "kernel symbols: the symbol table is finished (EBUSY)");
	/* No message buffer: the errno alone. */
	assert_int_equal(hwbpi_ksyms_load(t, &o, &k, NULL, 0), -EBUSY);
	hwbp_symtab_free(t);
}

static int setup(void **state)
{
	const char *tmp = getenv("TMPDIR");

	(void)state;
	snprintf(dir, sizeof(dir), "%s/hwbp_ksyms_XXXXXX", tmp && *tmp ? tmp : "/tmp");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	static const char *names[] = { "kallsyms", "kallsyms_hidden", "kallsyms_text",
				       "kallsyms_bad", "kallsyms_empty", "System.map", "vmlinux",
				       "kptr_restrict", "paranoid" };

	(void)state;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		unlink(path_of(names[i]));
	return rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kallsyms),
		cmocka_unit_test(test_text_only),
		cmocka_unit_test(test_sysmap),
		cmocka_unit_test(test_vmlinux),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_mismatch),
		cmocka_unit_test(test_check),
		cmocka_unit_test(test_check_in_image),
		cmocka_unit_test(test_host),
		cmocka_unit_test(test_args),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
