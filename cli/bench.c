/* SPDX-License-Identifier: MIT */
/*
 * hwbp bench: benchmarks, not tests: they print figures (a table and one
 * "bench NAME VALUE UNIT" line each) and assert nothing about speed.
 *
 *   sim    the simulator's hot path against a bare loop over the same
 *          access stream, in the same process;
 *   trace  the tracer's hit path (histogram, ring) against an empty hit
 *          callback, IP -> function lookups against elfutils' dwfl on the
 *          same table, and lackey replay against reading the lines.
 *
 * The machine is shared and its clock noisy: rows run in interleaved
 * slices and keep their fastest one.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <hwbp/hwbp.h>
#include <hwbp/sim.h>
#include <hwbp/trace.h>

#ifdef HWBP_HAVE_LIBELF
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#endif
#if defined(HWBP_HAVE_LIBDW) && defined(HWBP_HAVE_LIBELF)
#include <elfutils/libdwfl.h>
#endif

#include "cli.h"
#include "tracer.h"

#define STREAM (1u << 20)          /* accesses in the replayed stream */
#define REGION UINT64_C(0x40000000) /* where the stream's accesses fall */
#define REGION_SIZE (1u << 20)
#define FAR_AWAY UINT64_C(0x7f000000)
#define ROUNDS 10

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next(void)
{
	/* xorshift64*: deterministic, so every run replays the same stream. */
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 0x2545f4914f6cdd1dull;
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static volatile uint64_t sink;

/* The baseline: touch every access of the stream and nothing else. */
static double bare_loop(const struct hwbp_sim_access *a, uint64_t total)
{
	double t0 = now_ns();
	uint64_t acc = 0;

	for (uint64_t done = 0; done < total; done += STREAM)
		for (size_t i = 0; i < STREAM; i++)
			acc += a[i].addr + a[i].size + a[i].op;
	sink = acc;
	return (now_ns() - t0) / (double)total;
}

/* Arm @n watchpoints (8 bytes, read/write) at @where[] on slot 0.. */
static int arm(struct hwbp_sim *sim, const struct hwbp_cpu *cpu, unsigned n, const uint64_t *where)
{
	struct hwbp_sim_result r;
	char name[32];
	uint64_t dr7 = 0x400;
	int ret = 0;

	if (cpu->arch == HWBP_ARCH_X86) {
		for (unsigned i = 0; i < n; i++) {
			snprintf(name, sizeof(name), "dr%u", i);
			ret |= hwbp_sim_set_reg(sim, 0, name, where[i], &r);
			/* Gn, RW=11 (read or write), LEN=10 (8 bytes): SDM §17.2.4 */
			dr7 |= (2ull << (2 * i)) | (0xbull << (16 + 4 * i));
		}
		return ret | hwbp_sim_set_reg(sim, 0, "dr7", dr7, &r);
	}
	/* arm64: clear the OS lock, MDSCR.MDE|KDE, PSTATE.D = 0 (Arm ARM
	 * D2.4), then DBGWCR: E, PAC=11, LSC=11, BAS=0xff. */
	ret |= hwbp_sim_set_reg(sim, 0, "oslar", 0, &r);
	ret |= hwbp_sim_set_reg(sim, 0, "mdscr", (1u << 15) | (1u << 13), &r);
	ret |= hwbp_sim_set_reg(sim, 0, "daif_d", 0, &r);
	for (unsigned i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "dbgwvr%u", i);
		ret |= hwbp_sim_set_reg(sim, 0, name, where[i], &r);
		snprintf(name, sizeof(name), "dbgwcr%u", i);
		ret |= hwbp_sim_set_reg(sim, 0, name, 0x1fffu, &r);
	}
	return ret;
}

struct config {
	const char *name;
	const char *cpu;
	unsigned slots;
	bool far;
};

static const struct config configs[] = {
	{ "sim_slots0", "arm64-max16", 0, false },
	{ "sim_slots1", "arm64-max16", 1, false },
	{ "sim_slots4", "arm64-max16", 4, false },
	{ "sim_slots4_x86", "x86_64", 4, false },
	{ "sim_slots16", "arm64-max16", 16, false },
	{ "sim_far16", "arm64-max16", 16, true },
};

static int bench_sim(uint64_t total)
{
	struct hwbp_sim_access *a = malloc(STREAM * sizeof(*a));
	double bare, ns[sizeof(configs) / sizeof(configs[0])];
	size_t hits[sizeof(configs) / sizeof(configs[0])];

	if (!a) {
		fprintf(stderr, "hwbp: bench: out of memory\n");
		return 1;
	}
	total = (total + STREAM - 1) / STREAM * STREAM;
	for (size_t i = 0; i < STREAM; i++) {
		uint32_t size = 1u << (next() % 4);

		a[i].addr = REGION + ((next() % REGION_SIZE) & ~(uint64_t)(size - 1));
		a[i].size = size;
		a[i].op = (next() & 1) ? HWBP_SIM_READ : HWBP_SIM_WRITE;
	}
	/*
	 * The machine is shared and its clock noisy: every row, the bare loop
	 * included, runs in ROUNDS interleaved slices of total/ROUNDS accesses
	 * and keeps its fastest slice, so that a disturbance hits one slice
	 * of one row, not a whole row.
	 */
	struct hwbp_sim *sims[sizeof(configs) / sizeof(configs[0])];
	/* Round up: every row replays at least the accesses asked for. */
	uint64_t slice = (total + (uint64_t)ROUNDS * STREAM - 1) / ((uint64_t)ROUNDS * STREAM) * STREAM;

	total = slice * ROUNDS;
	bare = 1e30;
	for (size_t k = 0; k < sizeof(configs) / sizeof(configs[0]); k++) {
		const struct config *c = &configs[k];
		struct hwbp_cpu cpu;
		uint64_t where[16];
		int err;

		hwbp_cpu_preset(c->cpu, &cpu);
		sims[k] = hwbp_sim_new(&cpu, HWBP_SIM_SDM, 1, &err);
		if (!sims[k]) {
			fprintf(stderr, "hwbp: bench: %s\n", hwbp_errno_name(err));
			for (size_t j = 0; j < k; j++)
				hwbp_sim_free(sims[j]);
			free(a);
			return 1;
		}
		for (unsigned i = 0; i < c->slots; i++)
			where[i] = c->far ? FAR_AWAY + 64 * i
					  : REGION + ((next() % REGION_SIZE) & ~UINT64_C(7));
		if (arm(sims[k], &cpu, c->slots, where)) {
			fprintf(stderr, "hwbp: bench: arming %s failed\n", c->name);
			for (size_t j = 0; j <= k; j++)
				hwbp_sim_free(sims[j]);
			free(a);
			return 1;
		}
		ns[k] = 1e30;
		hits[k] = 0;
		hwbp_sim_run(sims[k], 0, a, STREAM); /* warm */
	}
	bare_loop(a, STREAM); /* warm */
	for (unsigned round = 0; round < ROUNDS; round++) {
		double b = bare_loop(a, slice);

		if (b < bare)
			bare = b;
		for (size_t k = 0; k < sizeof(configs) / sizeof(configs[0]); k++) {
			double t0 = now_ns(), t;

			for (uint64_t done = 0; done < slice; done += STREAM)
				hits[k] += hwbp_sim_run(sims[k], 0, a, STREAM);
			t = (now_ns() - t0) / (double)slice;
			if (t < ns[k])
				ns[k] = t;
		}
	}
	for (size_t k = 0; k < sizeof(configs) / sizeof(configs[0]); k++)
		hwbp_sim_free(sims[k]);
	free(a);

	printf("hwbp bench sim: %" PRIu64 " accesses per row (a %u-access stream replayed) in %d\n"
	       "interleaved slices, fastest slice kept; one core\n\n", total, STREAM, ROUNDS);
	printf("%-16s %-12s %6s %6s %12s %10s %10s\n", "row", "cpu", "slots", "near", "ns/access",
	       "x bare", "hits");
	printf("%-16s %-12s %6s %6s %12.3f %10.2f %10s\n", "bare_loop", "-", "-", "-", bare, 1.0, "-");
	for (size_t k = 0; k < sizeof(configs) / sizeof(configs[0]); k++)
		printf("%-16s %-12s %6u %6s %12.3f %10.2f %10zu\n", configs[k].name, configs[k].cpu,
		       configs[k].slots, configs[k].far ? "no" : "yes", ns[k], ns[k] / bare, hits[k]);
	printf("\n");
	printf("bench sim_bare_loop %.3f ns/access\n", bare);
	for (size_t k = 0; k < sizeof(configs) / sizeof(configs[0]); k++)
		printf("bench %s %.3f ns/access\n", configs[k].name, ns[k]);
	for (size_t k = 0; k < sizeof(configs) / sizeof(configs[0]); k++)
		printf("bench %s_ratio %.3f x_bare\n", configs[k].name, ns[k] / bare);
	return 0;
}

/* ================================================================== */
/* hwbp bench trace: the tracer's hit path, its IP -> function lookup  */
/* (next to elfutils' dwfl_module_addrsym on the same table) and the  */
/* lackey replay.                                                      */
/* ================================================================== */

struct trace_opts {
	uint64_t hits;          /* hits per hit-path row */
	uint64_t lookups;       /* hwbp_symtab_func lookups */
	uint64_t dwfl_lookups;  /* dwfl_module_addrsym lookups (it is much slower) */
	uint64_t symbols;       /* symbols in the lookup table */
	uint64_t lackey_mb;     /* size of the synthetic lackey trace */
	uint64_t buffer_kb;     /* the trace-mode ring */
};

#define TEXT_BASE UINT64_C(0x400000)
#define HIT_EVENTS 4096u        /* the replayed hit events (a power of two) */
#define HIT_FUNCS 8u            /* functions the hits come from */
#define HIT_BPS 4u              /* breakpoints they are spread over */
#define LOOKUP_IPS (1u << 16)   /* random IPs, replayed (a power of two) */
#define LACKEY_ROUNDS 3
#define WATCH_A UINT64_C(0x40000000)
#define WATCH_B UINT64_C(0x40000040)
#define AGREE_SAMPLE 1000u

/* Function starts and sizes of the synthetic table: contiguous functions
 * of 16..512 bytes from TEXT_BASE, like a kernel's text. */
struct fake_text {
	uint64_t *addr, *size;
	size_t n;
	uint64_t lo, hi;
};

static int fake_text_new(struct fake_text *ft, size_t n)
{
	uint64_t a = TEXT_BASE;

	ft->addr = malloc(n * sizeof(*ft->addr));
	ft->size = malloc(n * sizeof(*ft->size));
	if (!ft->addr || !ft->size) {
		free(ft->addr);
		free(ft->size);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		ft->addr[i] = a;
		ft->size[i] = 16 * (1 + next() % 32);
		a += ft->size[i];
	}
	ft->n = n;
	ft->lo = TEXT_BASE;
	ft->hi = a;
	return 0;
}

static void fake_text_free(struct fake_text *ft)
{
	free(ft->addr);
	free(ft->size);
}

static void fake_name(char *buf, size_t len, size_t i)
{
	snprintf(buf, len, "fn_%06zu", i);
}

#ifdef HWBP_HAVE_LIBELF
static Elf_Scn *new_section(Elf *e, const char *what, Elf64_Word name, Elf64_Word type,
			    Elf64_Xword flags, void *buf, size_t size, Elf_Type dtype, size_t align)
{
	Elf_Scn *scn = elf_newscn(e);
	Elf_Data *d = scn ? elf_newdata(scn) : NULL;
	Elf64_Shdr *sh = scn ? elf64_getshdr(scn) : NULL;

	if (!d || !sh) {
		fprintf(stderr, "hwbp: bench: libelf: %s: %s\n", what, elf_errmsg(-1));
		return NULL;
	}
	d->d_buf = buf;
	d->d_size = size;
	d->d_type = dtype;
	d->d_align = align;
	d->d_version = EV_CURRENT;
	sh->sh_name = name;
	sh->sh_type = type;
	sh->sh_flags = flags;
	sh->sh_addralign = align;
	return scn;
}

/*
 * The synthetic table as an ELF file, so that hwbp_symtab_load_elf and
 * dwfl read the very same symbols: an x86_64 ET_EXEC with one PT_LOAD over
 * .text (SHT_NOBITS: the bytes are not needed, and the file stays a few
 * MB), .symtab with one global STT_FUNC per function, .strtab, .shstrtab.
 */
static int write_elf(const char *path, const struct fake_text *ft)
{
	static char shstr[] = "\0.text\0.symtab\0.strtab\0.shstrtab";
	enum { N_TEXT = 1, N_SYMTAB = 7, N_STRTAB = 15, N_SHSTRTAB = 23 };
	Elf64_Sym *sym = calloc(ft->n + 1, sizeof(*sym));
	char *str = malloc(ft->n * 32 + 1), name[32];
	size_t strsz = 1;
	Elf *e = NULL;
	Elf64_Ehdr *eh;
	Elf64_Phdr *ph;
	Elf_Scn *text, *symtab, *strtab, *shstrtab;
	int fd = -1, ret = -EIO;

	if (!sym || !str) {
		ret = -ENOMEM;
		goto out;
	}
	if (elf_version(EV_CURRENT) == EV_NONE)
		goto out;
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0) {
		ret = -errno;
		goto out;
	}
	e = elf_begin(fd, ELF_C_WRITE, NULL);
	eh = e ? elf64_newehdr(e) : NULL;
	ph = eh ? elf64_newphdr(e, 1) : NULL;
	if (!ph) {
		fprintf(stderr, "hwbp: bench: libelf: headers: %s\n", elf_errmsg(-1));
		goto out;
	}
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_type = ET_EXEC;
	eh->e_machine = EM_X86_64;
	eh->e_version = EV_CURRENT;
	eh->e_entry = ft->lo;

	str[0] = '\0';
	for (size_t i = 0; i < ft->n; i++) {
		size_t len;

		fake_name(name, sizeof(name), i);
		len = strlen(name) + 1;
		memcpy(str + strsz, name, len);
		sym[i + 1].st_name = (Elf64_Word)strsz;
		sym[i + 1].st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC);
		sym[i + 1].st_shndx = 1; /* .text, the first section created */
		sym[i + 1].st_value = ft->addr[i];
		sym[i + 1].st_size = ft->size[i];
		strsz += len;
	}
	text = new_section(e, ".text", N_TEXT, SHT_NOBITS, SHF_ALLOC | SHF_EXECINSTR, NULL,
			   ft->hi - ft->lo, ELF_T_BYTE, 16);
	symtab = text ? new_section(e, ".symtab", N_SYMTAB, SHT_SYMTAB, 0, sym,
				    (ft->n + 1) * sizeof(*sym), ELF_T_SYM, 8) : NULL;
	strtab = symtab ? new_section(e, ".strtab", N_STRTAB, SHT_STRTAB, 0, str, strsz,
				      ELF_T_BYTE, 1) : NULL;
	shstrtab = strtab ? new_section(e, ".shstrtab", N_SHSTRTAB, SHT_STRTAB, 0, shstr,
					sizeof(shstr), ELF_T_BYTE, 1) : NULL;
	if (!shstrtab)
		goto out;
	elf64_getshdr(text)->sh_addr = ft->lo;
	elf64_getshdr(symtab)->sh_link = (Elf64_Word)elf_ndxscn(strtab);
	elf64_getshdr(symtab)->sh_info = 1;  /* the first global: all but the null symbol */
	elf64_getshdr(symtab)->sh_entsize = sizeof(Elf64_Sym);
	eh->e_shstrndx = (Elf64_Half)elf_ndxscn(shstrtab);
	/* Lay the file out first; the segment describes memory only (no file
	 * bytes: p_filesz 0), so offset 0 satisfies the alignment rule. */
	if (elf_update(e, ELF_C_NULL) < 0) {
		fprintf(stderr, "hwbp: bench: libelf: layout: %s\n", elf_errmsg(-1));
		goto out;
	}
	ph->p_type = PT_LOAD;
	ph->p_flags = PF_R | PF_X;
	ph->p_offset = 0;
	ph->p_vaddr = ph->p_paddr = ft->lo;
	ph->p_filesz = 0;
	ph->p_memsz = ft->hi - ft->lo;
	ph->p_align = 0x1000;
	elf_flagphdr(e, ELF_C_SET, ELF_F_DIRTY);
	if (elf_update(e, ELF_C_WRITE) < 0) {
		fprintf(stderr, "hwbp: bench: libelf: write: %s\n", elf_errmsg(-1));
		goto out;
	}
	ret = 0;
out:
	if (e)
		elf_end(e);
	if (fd >= 0)
		close(fd);
	free(sym);
	free(str);
	return ret;
}
#endif /* HWBP_HAVE_LIBELF */

#if defined(HWBP_HAVE_LIBDW) && defined(HWBP_HAVE_LIBELF)
/* Offline: the file is a file, not a process's memory. */
static const Dwfl_Callbacks offline_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

static Dwfl *dwfl_open(const char *path)
{
	Dwfl *d = dwfl_begin(&offline_callbacks);

	if (!d)
		return NULL;
	if (!dwfl_report_offline(d, "bench", path, -1) || dwfl_report_end(d, NULL, NULL) != 0) {
		fprintf(stderr, "hwbp: bench: dwfl: %s\n", dwfl_errmsg(-1));
		dwfl_end(d);
		return NULL;
	}
	return d;
}

static const char *dwfl_lookup(Dwfl *d, uint64_t ip)
{
	Dwfl_Module *m = dwfl_addrmodule(d, ip);
	GElf_Sym sym;
	GElf_Word shndx;

	return m ? dwfl_module_addrsym(m, ip, &sym, &shndx) : NULL;
}
#define HAVE_DWFL 1
#else
#define HAVE_DWFL 0
#endif

/* ---------------------------------------------------------- hit path */

typedef void hit_fn(struct hwbpi_tracer *t, const struct hwbp_trace_event *ev);

/* The baseline: what any hit callback costs, doing nothing but touching
 * the event. */
static void empty_hit(struct hwbpi_tracer *t, const struct hwbp_trace_event *ev)
{
	t->hits += ev->ip ^ ev->bp;
}

/* A breakdown of the histogram row: its IP -> function lookup alone. */
static void lookup_hit(struct hwbpi_tracer *t, const struct hwbp_trace_event *ev)
{
	t->hits += (uintptr_t)hwbp_symtab_func(t->syms, ev->ip);
}

/*
 * Rows: the empty callback, the lookup alone, the histogram (lookup and
 * hwbp_hist_add, through hwbpi_tracer_hit itself) and the ring (the same
 * function in trace mode).  Read through a volatile pointer so that the
 * compiler cannot inline the callbacks: a backend reaches the tracer
 * through a pointer too.
 */
enum { HIT_EMPTY, HIT_LOOKUP, HIT_HIST, HIT_RING, HIT_ROWS };
static hit_fn *volatile hit_fns[HIT_ROWS] = { empty_hit, lookup_hit, hwbpi_tracer_hit,
					      hwbpi_tracer_hit };
static const char *const hit_names[HIT_ROWS] = { "trace_hit_empty", "trace_hit_lookup",
						 "trace_hit_hist", "trace_hit_ring" };

static size_t drain(struct hwbp_ring *r, struct hwbp_trace_event *buf, size_t cap)
{
	size_t got, all = 0;

	while ((got = hwbp_ring_pop(r, buf, cap)) > 0)
		all += got;
	return all;
}

struct hit_result {
	double ns[HIT_ROWS];
	uint64_t hits, overrun, produced, popped, lost;
	size_t chunk;
};

static int bench_hits(const struct trace_opts *o, const struct hwbp_symtab *tab,
		      const struct fake_text *ft, struct hit_result *res)
{
	struct hwbp_trace_event *ev = malloc(HIT_EVENTS * sizeof(*ev)), *buf = NULL;
	struct hwbpi_tracer *tr = calloc(HIT_ROWS, sizeof(*tr));
	uint64_t func[HIT_FUNCS], slice, idx = 0;
	int ret = -ENOMEM;

	memset(res, 0, sizeof(*res));
	if (!ev || !tr)
		goto out;
	/*
	 * A workload's hits come from a few functions (the demo: a dozen
	 * over all its variables): HIT_FUNCS spread over the big table, both
	 * kinds each, so 16 (function, kind) pairs per breakpoint, which the
	 * default 16 entries hold: no overrun, the scan of a full histogram.
	 */
	for (unsigned f = 0; f < HIT_FUNCS; f++)
		func[f] = (ft->n / HIT_FUNCS) * f + ft->n / (2 * HIT_FUNCS);
	for (unsigned i = 0; i < HIT_EVENTS; i++) {
		size_t s = func[next() % HIT_FUNCS];

		memset(&ev[i], 0, sizeof(ev[i]));
		ev[i].ts = i;
		/* A watchpoint is hit by a few load/store instructions of
		 * each function, not by arbitrary bytes of it: 4 sites each. */
		ev[i].ip = ft->addr[s] + (next() % 4) * (ft->size[s] / 4);
		ev[i].addr = WATCH_A;
		ev[i].bp = (uint16_t)(next() % HIT_BPS);
		ev[i].kind = (next() & 1) ? HWBP_R : HWBP_W;
		ev[i].kind_how = HWBP_KIND_SIM;
		ev[i].size = 8;
	}
	for (unsigned k = 0; k < HIT_ROWS; k++) {
		tr[k].syms = tab;
		tr[k].nw = HIT_BPS;   /* only the count matters to the hit path */
		tr[k].hist_entries = 16;
	}
	ret = hwbpi_tracer_start(&tr[HIT_HIST], 1, false, 0, false);
	if (ret == 0)
		ret = hwbpi_tracer_start(&tr[HIT_RING], 1, true, (size_t)o->buffer_kb * 1024, false);
	if (ret)
		goto out;
	/* The ring is drained between chunks of its capacity, as a consumer
	 * keeping up would: every push finds room and nothing is lost. */
	res->chunk = hwbp_ring_capacity(tr[HIT_RING].ring[0]);
	buf = malloc(res->chunk * sizeof(*buf));
	if (!buf) {
		ret = -ENOMEM;
		goto out;
	}
	slice = (o->hits + ROUNDS - 1) / ROUNDS;
	for (unsigned k = 0; k < HIT_ROWS; k++)
		res->ns[k] = 1e30;
	for (unsigned round = 0; round <= ROUNDS; round++) {
		for (unsigned k = 0; k < HIT_ROWS; k++) {
			double spent = 0;

			for (uint64_t left = slice; left > 0;) {
				uint64_t n = left < res->chunk ? left : res->chunk;
				hit_fn *fn = hit_fns[k];
				struct hwbpi_tracer *t = &tr[k];
				double t0 = now_ns();

				for (uint64_t i = 0; i < n; i++)
					fn(t, &ev[idx++ & (HIT_EVENTS - 1)]);
				spent += now_ns() - t0;
				left -= n;
				if (k == HIT_RING)
					res->popped += drain(t->ring[0], buf, res->chunk);
			}
			/* Round 0 warms caches and the histogram's entries. */
			if (round > 0 && spent / (double)slice < res->ns[k])
				res->ns[k] = spent / (double)slice;
		}
	}
	res->hits = slice * ROUNDS;
	for (unsigned b = 0; b < HIT_BPS; b++)
		res->overrun += tr[HIT_HIST].hist.overrun[b];
	hwbp_ring_stats(tr[HIT_RING].ring[0], &res->produced, &res->lost);
	sink = tr[HIT_EMPTY].hits + tr[HIT_LOOKUP].hits;
out:
	if (tr) {
		hwbpi_tracer_fini(&tr[HIT_HIST]);
		hwbpi_tracer_fini(&tr[HIT_RING]);
	}
	free(tr);
	free(ev);
	free(buf);
	return ret;
}

/* ----------------------------------------------------------- lookups */

struct lookup_result {
	double hwbp_ps, dwfl_ps;     /* lookups per second */
	uint64_t n, dwfl_n;
	unsigned agree, compared;
	bool have_dwfl;
	const char *dwfl_note;
};

static void bench_lookups(const struct trace_opts *o, const struct hwbp_symtab *tab,
			  const struct fake_text *ft, const char *elf_path, struct lookup_result *res)
{
	uint64_t *ip = malloc(LOOKUP_IPS * sizeof(*ip)), slice, dslice, j = 0, acc = 0;
	double best = 1e30, dbest = 1e30;

	memset(res, 0, sizeof(*res));
	res->dwfl_note = "not built with libdw (elfutils' libdw-dev)";
	if (!ip) {
		res->dwfl_note = "out of memory";
		return;
	}
	for (unsigned i = 0; i < LOOKUP_IPS; i++)
		ip[i] = ft->lo + next() % (ft->hi - ft->lo);
	slice = (o->lookups + ROUNDS - 1) / ROUNDS;
	dslice = (o->dwfl_lookups + ROUNDS - 1) / ROUNDS;
#if HAVE_DWFL
	Dwfl *d = elf_path ? dwfl_open(elf_path) : NULL;

	if (!elf_path)
		res->dwfl_note = "no ELF file to give it";
	else if (!d)
		res->dwfl_note = "dwfl could not load the table";
	if (d) {
		/* The same answers, or the comparison means nothing. */
		res->compared = LOOKUP_IPS < AGREE_SAMPLE ? LOOKUP_IPS : AGREE_SAMPLE;
		for (unsigned i = 0; i < res->compared; i++) {
			const struct hwbp_sym *s = hwbp_symtab_func(tab, ip[i]);
			const char *n = dwfl_lookup(d, ip[i]);

			res->agree += s && n && strcmp(s->name, n) == 0;
		}
		res->have_dwfl = true;
	}
#else
	(void)elf_path;
#endif
	for (unsigned i = 0; i < LOOKUP_IPS; i++) /* warm */
		acc += (uintptr_t)hwbp_symtab_func(tab, ip[i]);
	for (unsigned round = 0; round < ROUNDS; round++) {
		double t0 = now_ns(), t;

		for (uint64_t i = 0; i < slice; i++)
			acc += (uintptr_t)hwbp_symtab_func(tab, ip[j++ & (LOOKUP_IPS - 1)]);
		t = now_ns() - t0;
		if (t < best)
			best = t;
#if HAVE_DWFL
		if (d) {
			t0 = now_ns();
			for (uint64_t i = 0; i < dslice; i++)
				acc += (uintptr_t)dwfl_lookup(d, ip[j++ & (LOOKUP_IPS - 1)]);
			t = now_ns() - t0;
			if (t < dbest)
				dbest = t;
		}
#endif
	}
	sink = acc;
	res->n = slice * ROUNDS;
	res->dwfl_n = dslice * ROUNDS;
	res->hwbp_ps = (double)slice / best * 1e9;
	if (res->have_dwfl)
		res->dwfl_ps = (double)dslice / dbest * 1e9;
#if HAVE_DWFL
	if (d)
		dwfl_end(d);
#endif
	(void)dbest;
	(void)dslice;
	free(ip);
}

/* ------------------------------------------------------------ lackey */

/*
 * A synthetic lackey trace of about @bytes: instructions walking through
 * the table's functions (a jump now and then), 0-2 data accesses each,
 * most to a stack, 1 in 64 to one of two watched variables.  Returns the
 * watched accesses (the hits a replay must find), or 0 on error.
 */
static uint64_t write_lackey(const char *path, uint64_t bytes, const struct fake_text *ft)
{
	static const char ops[] = "LLLSSM";
	FILE *f = fopen(path, "w");
	uint64_t written = 0, watched = 0, ip = ft->lo;
	char line[64];

	if (!f)
		return 0;
	while (written < bytes) {
		int n;

		if (next() % 24 == 0 || ip >= ft->hi)
			ip = ft->lo + next() % (ft->hi - ft->lo);
		n = snprintf(line, sizeof(line), "I  %08" PRIx64 ",%u\n", ip, 1 + (unsigned)(next() % 7));
		ip += 1 + next() % 7;
		fputs(line, f);
		written += (uint64_t)n;
		for (unsigned k = next() % 3; k > 0; k--) {
			char op = ops[next() % 6];
			uint64_t a;
			unsigned size;

			if (next() % 64 == 0) {
				a = (next() & 1) ? WATCH_A : WATCH_B;
				size = 8;
				watched++;
			} else {
				size = (next() & 1) ? 8 : 4;
				a = UINT64_C(0x1ffefff000) + (next() % 4096 & ~(uint64_t)7);
			}
			n = snprintf(line, sizeof(line), " %c %010" PRIx64 ",%u\n", op, a, size);
			fputs(line, f);
			written += (uint64_t)n;
		}
	}
	if (fclose(f) != 0)
		return 0;
	return watched;
}

struct lackey_result {
	double mbps[3];              /* read, parse, replay */
	uint64_t bytes, hits, expected, bad;
};

static int bench_lackey(const char *path, uint64_t expected, const struct hwbp_symtab *tab,
			struct lackey_result *res)
{
	static const char *const entries[] = { "0x40000000/8:rw-", "0x40000040/8:rw-" };
	struct hwbpi_tracer *t = calloc(1, sizeof(*t));
	struct hwbp_cpu cpu;
	char err[160];
	int ret = 0;

	memset(res, 0, sizeof(*res));
	res->expected = expected;
	if (!t)
		return -ENOMEM;
	t->syms = tab;
	t->hist_entries = 16;
	for (unsigned i = 0; i < 2; i++) {
		struct hwbp_trace_entry e;
		unsigned col;
		const char *msg;

		ret = hwbp_trace_filter_parse(entries[i], &e, &col, &msg);
		if (ret == 0)
			ret = hwbpi_tracer_apply(t, &e, err, sizeof(err));
		if (ret)
			goto out;
	}
	hwbp_cpu_preset("x86_64", &cpu);
	for (unsigned round = 0; round < LACKEY_ROUNDS; round++) {
		for (unsigned k = 0; k < 3; k++) {
			struct hwbpi_lackey s = { 0 };
			struct hwbpi_work_access a;
			char line[256];
			uint64_t bytes = 0;
			double t0;

			s.in = fopen(path, "r");
			if (!s.in) {
				ret = -errno;
				goto out;
			}
			t0 = now_ns();
			if (k == 0) {
				/* The baseline: only reading the lines. */
				while (fgets(line, sizeof(line), s.in))
					bytes += strlen(line);
			} else if (k == 1) {
				/* Parsing them, without the simulator. */
				while (hwbpi_lackey_next(&s, &a))
					;
				bytes = s.bytes;
			} else {
				ret = hwbpi_tracer_start(t, 1, false, 0, false);
				if (ret == 0)
					ret = hwbpi_trace_sim(t, &cpu, 1, hwbpi_lackey_next, &s, err,
							      sizeof(err));
				bytes = s.bytes;
				res->hits = hwbpi_tracer_hits(t);
				res->bad = s.bad;
				hwbpi_tracer_fini(t);
			}
			t0 = now_ns() - t0;
			fclose(s.in);
			if (ret)
				goto out;
			res->bytes = bytes;
			if ((double)bytes / t0 * 1e3 > res->mbps[k])
				res->mbps[k] = (double)bytes / t0 * 1e3;
		}
	}
out:
	if (ret)
		fprintf(stderr, "hwbp: bench: lackey replay: %s %s\n", hwbp_errno_name(ret), err);
	free(t);
	return ret;
}

/* ------------------------------------------------------------- main */

static int bench_trace(const struct trace_opts *o)
{
	const char *tmp = getenv("TMPDIR");
	char dir[512], elf_path[600], lackey_path[600];
	struct fake_text ft;
	struct hwbp_symtab *tab = NULL;
	struct hit_result hr;
	struct lookup_result lr;
	struct lackey_result kr;
	bool have_elf = false;
	uint64_t expected;
	int ret, err;

	snprintf(dir, sizeof(dir), "%s/hwbp-bench-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		fprintf(stderr, "hwbp: bench: cannot make a temp dir in %s: %s\n",
			tmp && *tmp ? tmp : "/tmp", strerror(errno));
		return 1;
	}
	snprintf(elf_path, sizeof(elf_path), "%s/table.elf", dir);
	snprintf(lackey_path, sizeof(lackey_path), "%s/trace.lackey", dir);
	if (fake_text_new(&ft, (size_t)o->symbols)) {
		fprintf(stderr, "hwbp: bench: out of memory\n");
		rmdir(dir);
		return 1;
	}
	tab = hwbp_symtab_new(&err);
	ret = tab ? 0 : err;
#ifdef HWBP_HAVE_LIBELF
	/* Through an ELF file, so that dwfl can be given the same table. */
	if (ret == 0)
		ret = write_elf(elf_path, &ft);
	if (ret == 0) {
		ret = hwbp_symtab_load_elf(tab, elf_path, 0);
		have_elf = ret >= 0;
		if (ret >= 0 && (uint64_t)ret != o->symbols) {
			fprintf(stderr, "hwbp: bench: the ELF file gave %d symbols, not %" PRIu64 "\n",
				ret, o->symbols);
			ret = -EIO;
		}
	}
#else
	for (size_t i = 0; ret == 0 && i < ft.n; i++) {
		char name[32];

		fake_name(name, sizeof(name), i);
		ret = hwbp_symtab_add(tab, name, ft.addr[i], ft.size[i], 'T');
	}
#endif
	if (ret >= 0)
		ret = hwbp_symtab_finish(tab);
	if (ret < 0) {
		fprintf(stderr, "hwbp: bench: building the %" PRIu64 "-symbol table: %s\n", o->symbols,
			hwbp_errno_name(ret));
		goto out;
	}
	ret = bench_hits(o, tab, &ft, &hr);
	if (ret) {
		fprintf(stderr, "hwbp: bench: hit path setup: %s\n", hwbp_errno_name(ret));
		goto out;
	}
	bench_lookups(o, tab, &ft, have_elf ? elf_path : NULL, &lr);
	expected = write_lackey(lackey_path, o->lackey_mb * 1000000, &ft);
	if (expected == 0) {
		fprintf(stderr, "hwbp: bench: cannot write %s\n", lackey_path);
		ret = -EIO;
		goto out;
	}
	ret = bench_lackey(lackey_path, expected, tab, &kr);
	if (ret)
		goto out;

	printf("hwbp bench trace: one core; every row in %d interleaved slices (lackey: %d),\n"
	       "fastest slice kept\n\n", ROUNDS, LACKEY_ROUNDS);
	printf("hit path: %" PRIu64 " hits per row, an indirect call per hit; IPs: 4 access\n"
	       "sites in each of %u functions of the %zu-symbol table, in random order (the\n"
	       "branch predictors' worst case), R and W, %u breakpoints, 16 entries each;\n"
	       "the ring (%zu events) drained between chunks of its capacity\n",
	       hr.hits, HIT_FUNCS, ft.n, HIT_BPS, hr.chunk);
	printf("%-24s %10s %10s %10s\n", "row", "ns/hit", "x empty", "target");
	printf("%-24s %10.3f %10.2f %10s\n", "empty callback", hr.ns[HIT_EMPTY], 1.0, "-");
	printf("%-24s %10.3f %10.2f %10s\n", "histogram", hr.ns[HIT_HIST],
	       hr.ns[HIT_HIST] / hr.ns[HIT_EMPTY], "<= 10");
	printf("%-24s %10.3f %10.2f %10s\n", "  its lookup alone", hr.ns[HIT_LOOKUP],
	       hr.ns[HIT_LOOKUP] / hr.ns[HIT_EMPTY], "-");
	printf("%-24s %10.3f %10.2f %10s\n", "trace (ring)", hr.ns[HIT_RING],
	       hr.ns[HIT_RING] / hr.ns[HIT_EMPTY], "<= 20");
	printf("histogram overrun %" PRIu64 "; ring produced %" PRIu64 ", consumed %" PRIu64
	       ", lost %" PRIu64 "\n\n", hr.overrun, hr.produced, hr.popped, hr.lost);

	printf("IP -> function on a %zu-symbol table (%s),\n"
	       "random IPs in its range, warm\n", ft.n,
	       have_elf ? "both from the same ELF file" : "built in memory");
	printf("%-24s %10s %14s %12s %10s\n", "row", "lookups", "lookups/s", "ns/lookup", "target");
	printf("%-24s %10" PRIu64 " %14.0f %12.1f %10s\n", "hwbp_symtab_func", lr.n, lr.hwbp_ps,
	       1e9 / lr.hwbp_ps, ">= 30 M/s");
	if (lr.have_dwfl) {
		printf("%-24s %10" PRIu64 " %14.0f %12.1f %10s\n", "dwfl_module_addrsym", lr.dwfl_n,
		       lr.dwfl_ps, 1e9 / lr.dwfl_ps, "-");
		printf("hwbp / dwfl: %.0f x; the same function for %u of %u sampled IPs\n\n",
		       lr.hwbp_ps / lr.dwfl_ps, lr.agree, lr.compared);
	} else {
		printf("%-24s %10s %14s %12s %10s\n", "dwfl_module_addrsym", "-", "skipped", "-", "-");
		printf("dwfl skipped: %s\n\n", lr.dwfl_note);
	}

	printf("lackey replay: %.1f MB (10^6 bytes) of synthetic trace, 2 watches (8 bytes, rw),\n"
	       "x86_64 simulator, histogram mode\n", (double)kr.bytes / 1e6);
	printf("%-28s %12s %10s\n", "row", "MB/s", "x read");
	printf("%-28s %12.1f %10.2f\n", "read lines (fgets)", kr.mbps[0], 1.0);
	printf("%-28s %12.1f %10.2f\n", "parse (hwbpi_lackey_next)", kr.mbps[1], kr.mbps[1] / kr.mbps[0]);
	printf("%-28s %12.1f %10.2f\n", "replay (hwbpi_trace_sim)", kr.mbps[2], kr.mbps[2] / kr.mbps[0]);
	printf("hits %" PRIu64 " (expected %" PRIu64 "), bad lines %" PRIu64 "\n\n", kr.hits,
	       kr.expected, kr.bad);

	for (unsigned k = 0; k < HIT_ROWS; k++)
		printf("bench %s %.3f ns/hit\n", hit_names[k], hr.ns[k]);
	printf("bench trace_hit_hist_ratio %.3f x_empty\n", hr.ns[HIT_HIST] / hr.ns[HIT_EMPTY]);
	printf("bench trace_hit_ring_ratio %.3f x_empty\n", hr.ns[HIT_RING] / hr.ns[HIT_EMPTY]);
	printf("bench trace_lookup_hwbp %.0f lookups/s\n", lr.hwbp_ps);
	if (lr.have_dwfl) {
		printf("bench trace_lookup_dwfl %.0f lookups/s\n", lr.dwfl_ps);
		printf("bench trace_lookup_ratio %.1f x_dwfl\n", lr.hwbp_ps / lr.dwfl_ps);
	}
	printf("bench trace_lackey_read %.1f MB/s\n", kr.mbps[0]);
	printf("bench trace_lackey_parse %.1f MB/s\n", kr.mbps[1]);
	printf("bench trace_lackey_replay %.1f MB/s\n", kr.mbps[2]);
	printf("bench trace_lackey_replay_ratio %.3f x_read\n", kr.mbps[2] / kr.mbps[0]);
	/* Figures from a wrong run are worse than none. */
	if (hr.lost || hr.produced != hr.popped || kr.hits != kr.expected ||
	    (lr.have_dwfl && lr.agree != lr.compared)) {
		fprintf(stderr, "hwbp: bench: inconsistent results (see above)\n");
		ret = -EPROTO;
	}
out:
	hwbp_symtab_free(tab);
	fake_text_free(&ft);
	unlink(elf_path);
	unlink(lackey_path);
	rmdir(dir);
	return ret ? 1 : 0;
}

static int bench_help(void)
{
	puts("usage: hwbp bench sim [--accesses N]\n"
	     "       hwbp bench trace [--hits N] [--lookups N] [--dwfl-lookups N] [--symbols N]\n"
	     "                        [--lackey-mb N] [--buffer-kb N]\n"
	     "sim: replay a synthetic access stream (default 100 million accesses) through\n"
	     "the simulator with 0, 1, 4 and 16 armed slots near the stream and 16 far from\n"
	     "it, next to a bare loop over the same stream; print ns per access and the\n"
	     "ratio to the bare loop.\n"
	     "trace: the tracer's hit path in histogram and trace mode next to an empty\n"
	     "callback (default 20 million hits per row), IP -> function lookups on a\n"
	     "150,000-symbol table (default 20 million) next to elfutils'\n"
	     "dwfl_module_addrsym on the same table (default 1,000: it scans the symbol\n"
	     "table linearly, milliseconds each), and lackey replay\n"
	     "throughput on a synthetic trace (default 50 MB).\n"
	     "Both print a table and one 'bench NAME VALUE UNIT' line per figure.");
	return 0;
}

static int num_opt(const char *opt, const char *v, uint64_t *out, uint64_t max)
{
	char *end;

	errno = 0;
	if (!v || !*v || *v == '-')
		return usage_error("bench: %s needs a number", opt);
	*out = strtoull(v, &end, 0);
	if (errno || *end || *out == 0 || *out > max) {
		fprintf(stderr, "hwbp: bench: bad %s '%s': expected 1..%" PRIu64 "\n", opt, v, max);
		return EXIT_USAGE;
	}
	return 0;
}

static int trace_main(int argc, char **argv)
{
	struct trace_opts o = { 20000000, 20000000, 1000, 150000, 50, 1024 };

	/* Every option but --help takes a value: two arguments a step. */
	for (int i = 2; i < argc; i += 2) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		uint64_t *dst = NULL, max = UINT64_C(1) << 40;
		int ret;

		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0)
			return bench_help();
		if (strcmp(a, "--hits") == 0)
			dst = &o.hits;
		else if (strcmp(a, "--lookups") == 0)
			dst = &o.lookups;
		else if (strcmp(a, "--dwfl-lookups") == 0)
			dst = &o.dwfl_lookups;
		else if (strcmp(a, "--symbols") == 0)
			dst = &o.symbols, max = 10000000;
		else if (strcmp(a, "--lackey-mb") == 0)
			dst = &o.lackey_mb, max = 100000;
		else if (strcmp(a, "--buffer-kb") == 0)
			dst = &o.buffer_kb, max = 1u << 20;
		else
			return usage_error("bench trace: unexpected argument '%s' (try --help)", a);
		ret = num_opt(a, v, dst, max);
		if (ret)
			return ret;
	}
	if (o.symbols < HIT_FUNCS)
		return usage_error("bench trace: --symbols must be at least %s", "8");
	return bench_trace(&o);
}

int hwbp_cli_bench(int argc, char **argv)
{
	uint64_t total = 100000000ull;

	if (argc < 2)
		return usage_error("%s", "bench: expected a benchmark name: sim, trace");
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)
		return bench_help();
	if (strcmp(argv[1], "trace") == 0)
		return trace_main(argc, argv);
	if (strcmp(argv[1], "sim") != 0)
		return usage_error("bench: unknown benchmark '%s' (sim, trace)", argv[1]);
	for (int i = 2; i < argc; i++) {
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
			return bench_help();
		if (strcmp(argv[i], "--accesses") == 0 && i + 1 < argc) {
			char *end;

			errno = 0;
			total = strtoull(argv[++i], &end, 0);
			if (errno || *end || total == 0 || argv[i][0] == '-')
				return usage_error("bad --accesses '%s': expected a positive number", argv[i]);
		} else {
			return usage_error("bench sim: unexpected argument '%s' (try --help)", argv[i]);
		}
	}
	return bench_sim(total);
}
