/* SPDX-License-Identifier: MIT */
/*
 * x86_64 bare-metal kernel of `hwbp trace --backend qemu-x86 --demo`: the
 * tracer demo (tracer/backends/replay/demo.c, generated into real code by gen_demo.py) runs
 * on QEMU's emulated debug registers, armed through libhwbp and the x86
 * glue, and every hit goes out on COM1 as one line for the host
 * (tracer/backends/qemu/qemu_x86.c):
 *
 *   W <bp> <addr> <len> <type> <errno>   a watch installed (errno 0) or not
 *   H <bp> <ip> <kind> <how>             a hit of watch <bp> (hex fields)
 *   E <hits> <dbs> <disagree>            the workload ended; disagree:
 *                                        loads (by the site table) after
 *                                        which the watched bytes changed
 *
 * The watch list comes from the host on the multiboot command line
 * ("hwbp.watch=ADDR,LEN,TYPE;..." in hex), resolved there from this
 * kernel's own ELF symbol table: the kernel knows no names.
 *
 * Access kind (x86 DR6 does not say whether a data breakpoint was a read
 * or a write, Intel SDM Vol. 3 §17.2.4), in this order:
 *   1. the instruction: data breakpoints trap after the access (RIP = the
 *      next instruction), and every access instruction of the workload is
 *      in the demo_sites table with its kind (load, store or
 *      read-modify-write), so RIP == site end names the instruction
 *      (how = 'I');
 *   2. the value: the handler keeps a shadow copy of each watch's bytes
 *      (taken at arming and after each hit); if they changed, the access
 *      was a write (how = 'V');
 *   3. the watch type: a write-only watch traps on writes only (how = 'T');
 *   4. otherwise unknown (kind 0, how = '?').
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <hwbp/hwbp.h>

#include "platform.h"
#include "trace_demo.h"
#include "glue.h"

#define SHADOW_MAX 64

struct x86_frame {
	uint64_t r15, r14, r13, r12, r11, r10, r9, r8;
	uint64_t rbp, rdi, rsi, rdx, rcx, rbx, rax;
	uint64_t vector, error;
	uint64_t rip, cs, rflags, rsp, ss;
};

struct fixup {
	uint64_t insn, cont;
};

extern const struct fixup __start_x86_fixup[], __stop_x86_fixup[];

int x86_fixup_vec;
void x86_exception(struct x86_frame *f);
void kmain(uint32_t mbi);

/* boot.S's access stubs and RF call are the scenario harness's: unused. */

/* ------------------------------------------------------------ serial */

static void putc_(char c)
{
	x86_serial_putc(c);
}

static void puts_(const char *s)
{
	while (*s)
		putc_(*s++);
}

/* Hex without leading zeros: the hit lines stay short. */
static void hex(uint64_t v)
{
	char b[17];
	int n = 0;

	do {
		b[n++] = "0123456789abcdef"[v & 0xf];
		v >>= 4;
	} while (v);
	putc_(' ');
	while (n)
		putc_(b[--n]);
}

__attribute__((noreturn)) static void kexit(int code)
{
	x86_debug_exit(code);
}

/* ------------------------------------------------------------ watches */

static int glue_write(void *arg, unsigned c, const struct hwbp_regs *regs)
{
	(void)arg;
	return c == 0 ? hwbp_glue_write_regs(regs) : -EINVAL;
}

static int glue_on_cpu(void *arg, unsigned c, int (*fn)(void *), void *fnarg)
{
	(void)arg;
	return c == 0 ? fn(fnarg) : -EINVAL;
}

static const struct hwbp_glue glue = { glue_write, glue_on_cpu, NULL };
static struct hwbp_cpu cpu;
static struct hwbp_ctx ctx;
static struct hwbp_slots percpu[1];

static struct watch {
	uint64_t addr, len;
	unsigned type;
	int req;
	uint8_t shadow[SHADOW_MAX];
} w[HWBP_MAX_REQUESTS];
static unsigned nw;
static uint64_t hits, dbs, disagree;
/* "hwbp.nosites" on the command line: ignore the site table (shows what
 * the value comparison alone tells). */
static bool no_sites;

/* The watched bytes now (only with DR7 off, or they would trap). */
static void snap(const struct watch *x, uint8_t *out)
{
	const volatile uint8_t *p = (const volatile uint8_t *)(uintptr_t)x->addr;

	for (uint64_t i = 0; i < x->len && i < SHADOW_MAX; i++)
		out[i] = p[i];
}

static const struct demo_site *find_site(uint64_t rip)
{
	for (const struct demo_site *s = __start_demo_sites; s < __stop_demo_sites; s++)
		if (s->end == rip)
			return s;
	return NULL;
}

static void on_db(struct x86_frame *f)
{
	struct hwbp_status st;
	struct hwbp_hit hit;
	uint64_t dr7 = hwbp_x86_dr7_shadow();
	const struct demo_site *site;

	hwbp_x86_db_entry(f->rip, &st);
	/* Nothing armed while the handler reads the watched bytes. */
	hwbp_x86_dr_write(7, 0, 0);
	dbs++;
	site = no_sites ? NULL : find_site(f->rip);
	if (hwbp_decode(&ctx, 0, NULL, &st, NULL, &hit) == 0) {
		for (unsigned i = 0; i < nw; i++) {
			struct watch *x = &w[i];
			uint8_t now[SHADOW_MAX];
			unsigned kind = 0;
			char how = '?';

			if (x->req < 0 || !(hit.requests & (UINT64_C(1) << x->req)))
				continue;
			snap(x, now);
			if (site) {
				bool changed = x->len <= SHADOW_MAX &&
					       memcmp(now, x->shadow, x->len) != 0;

				kind = (unsigned)site->kind;
				how = 'I';
				/* Cross-check with the value: a load never changes
				 * the bytes (one CPU, nothing else writes).  A
				 * store may leave them as they were (jiffies+4/4:
				 * the high half of an increment), so no check. */
				if (changed && kind == HWBP_R)
					disagree++;
			} else if (x->len <= SHADOW_MAX && memcmp(now, x->shadow, x->len) != 0) {
				kind = HWBP_W;
				how = 'V';
			} else if (x->type == HWBP_W) {
				kind = HWBP_W;
				how = 'T';
			}
			memcpy(x->shadow, now, x->len < SHADOW_MAX ? x->len : SHADOW_MAX);
			/* A widened read watch (x86 has no read-only) traps on
			 * writes too: drop the writes it was not asked for. */
			if (kind && !(kind & x->type))
				continue;
			hits++;
			putc_('H');
			hex(i);
			/* The access instruction itself when known, as the
			 * simulator reports it; else the trap RIP (after it). */
			hex(site ? site->start : f->rip);
			hex(kind);
			putc_(' ');
			putc_(how);
			putc_('\n');
		}
	}
	hwbp_x86_dr_write(7, dr7, 0);
}

void x86_exception(struct x86_frame *f)
{
	for (const struct fixup *x = __start_x86_fixup; x < __stop_x86_fixup; x++) {
		if (x->insn == f->rip &&
		    (f->vector == HWBP_X86_GLUE_VEC_DB || f->vector == HWBP_X86_GLUE_VEC_UD || f->vector == HWBP_X86_GLUE_VEC_GP)) {
			x86_fixup_vec = (int)f->vector;
			f->rip = x->cont;
			return;
		}
	}
	if (f->vector == HWBP_X86_GLUE_VEC_DB) {
		on_db(f);
		return;
	}
	hwbp_x86_dr_reset();
	puts_("\nX exception");
	hex(f->vector);
	hex(f->error);
	hex(f->rip);
	puts_("\n");
	kexit(3);
}

/* ------------------------------------------------------------ cmdline */

static const char *parse_hex(const char *s, uint64_t *v)
{
	const char *p = s;

	*v = 0;
	for (;; p++) {
		char c = *p;
		unsigned d;

		if (c >= '0' && c <= '9')
			d = (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			d = (unsigned)(c - 'a' + 10);
		else
			break;
		*v = *v << 4 | d;
	}
	return p == s ? NULL : p;
}

static bool has_word(const char *s, const char *word)
{
	size_t n = strlen(word);

	for (; *s; s++)
		if ((s[n] == ' ' || s[n] == '\0') && strncmp(s, word, n) == 0)
			return true;
	return false;
}

/* "... hwbp.watch=ADDR,LEN,TYPE;ADDR,LEN,TYPE ..." */
static int parse_cmdline(const char *s)
{
	static const char key[] = "hwbp.watch=";
	const char *p = s;

	no_sites = has_word(s, "hwbp.nosites");
	while (*p && strncmp(p, key, sizeof(key) - 1) != 0)
		p++;
	if (!*p)
		return -EINVAL;
	p += sizeof(key) - 1;
	while (*p && *p != ' ') {
		uint64_t a, l, t;

		if (nw == HWBP_MAX_REQUESTS)
			return -ENOSPC;
		if (!(p = parse_hex(p, &a)) || *p++ != ',' || !(p = parse_hex(p, &l)) ||
		    *p++ != ',' || !(p = parse_hex(p, &t)))
			return -EINVAL;
		w[nw].addr = a;
		w[nw].len = l;
		w[nw].type = (unsigned)t;
		w[nw].req = -1;
		nw++;
		if (*p == ';')
			p++;
	}
	return nw ? 0 : -EINVAL;
}

/* ------------------------------------------------------------ main */

void kmain(uint32_t mbi)
{
	const uint32_t *info = (const uint32_t *)(uintptr_t)mbi;
	int ret;

	x86_serial_init();
	x86_idt_init();
	hwbp_x86_dr_reset();
	/* Multiboot v1 info: flags bit 2, the command line at offset 16. */
	if (!mbi || !(info[0] & 4) || parse_cmdline((const char *)(uintptr_t)info[4])) {
		puts_("X cmdline\n");
		kexit(2);
	}
	if (hwbp_cpu_preset("x86_64", &cpu) || hwbp_ctx_init(&ctx, &cpu, 1, percpu, &glue)) {
		puts_("X ctx\n");
		kexit(2);
	}
	for (unsigned i = 0; i < nw; i++) {
		struct hwbp_request q = { w[i].addr, w[i].len, w[i].type, HWBP_SCOPE_BOTH,
					  HWBP_REQ_WIDEN };

		snap(&w[i], w[i].shadow);
		ret = hwbp_install(&ctx, &q, 0, NULL, &w[i].req);
		putc_('W');
		hex(i);
		hex(w[i].addr);
		hex(w[i].len);
		hex(w[i].type);
		hex((uint64_t)-ret);
		putc_('\n');
		if (ret)
			kexit(1);
	}
	demo_run();
	hwbp_x86_dr_reset();
	putc_('E');
	hex(hits);
	hex(dbs);
	hex(disagree);
	putc_('\n');
	kexit(0);
}
