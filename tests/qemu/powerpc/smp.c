// SPDX-License-Identifier: MIT
/*
 * The other hardware threads of qemu-system-ppc64 -M powernv10 (smp.h).
 *
 * Which threads: skiboot passes its flattened device tree in r3 at entry
 * (start.S keeps it); every /cpus/<name>@<pir> node with device_type
 * "cpu" is one core, whose "ibm,ppc-interrupt-server#s" lists the server
 * numbers (= PIRs on POWER9/10) of its threads.  The boot thread's own PIR
 * (mfspr PIR) is CPU 0, the others follow in ascending PIR order.
 *
 * Start: OPAL_START_CPU (token 41, opal_start_cpu(server_no,
 * start_address); skiboot's doc/opal-api/opal-start-cpu-41.rst) queues a
 * job on the thread skiboot holds; the thread enters start_address in
 * hypervisor real mode (MSR = SF|HV) with r3 = its PIR (skiboot
 * core/cpu.c opal_start_cpu_thread, asm/head.S start_kernel_secondary).
 * One thread at a time: ppc_secondary_entry takes its per-thread data from
 * `booting`, which CPU 0 sets before each start.
 *
 * Calls: a Directed Hypervisor Doorbell (msgsnd, message type 5 in
 * RB[32:36], RB[50:63] = the target's PIR; Power ISA v3.1 Book III,
 * "Processor Control"), taken at 0xE80 (Hypervisor Doorbell interrupt,
 * HSRR0/HSRR1) once the target has MSR[EE] = 1.  ISA v2.07 (POWER8)
 * addressed msgsnd by TIR, within one core; ISA v3.0 addresses it by PIR,
 * to any thread of the system.  QEMU implements the v3.0 rule for ISA 3.0
 * CPUs (target/ppc/tcg-excp_helper.c helper_book3s_msgsnd:
 * ppc_get_vcpu_by_pir() over the whole machine, "POWER9 and later msgsnd
 * is a global"), so with one thread per core (run.sh: cores=N,threads=1)
 * each doorbell goes to another core; siblings of an SMT core (threads=2,
 * 4) are reached the same way.  A waiting thread sits in `stop` with
 * PSSCR = 0 (EC = 0, ESL = 0: a doorbell wakes it at the instruction
 * after stop, then is taken; QEMU target/ppc/excp_helper.c
 * p9_next_unmasked_interrupt), so idle threads cost the host nothing.
 *
 * Ordering: the sender's stores to `call` are ordered before the doorbell
 * by a sync (msgsnd's programming note: stores, sync, msgsnd), the
 * receiver's loads after the interrupt by another sync; the call's result
 * is published with sync before `done`, read after `done` behind a sync.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "smp.h"

#define OPAL_START_CPU 41
#define OPAL_SUCCESS 0

#define SPRN_PIR 1023

#define DBELL_TYPE_HYP (5ull << 27)      /* RB[32:36] = 5 */
#define DBELL_PIR_MASK 0x3fffull         /* RB[50:63] */

_Static_assert(offsetof(struct ppc_percpu, hit_vec) == PCPU_HIT, "PCPU_HIT");
_Static_assert(offsetof(struct ppc_percpu, stack_top) == PCPU_STACK, "PCPU_STACK");
_Static_assert(offsetof(struct ppc_percpu, exc_stack_top) == PCPU_EXC_STACK, "PCPU_EXC_STACK");
_Static_assert(offsetof(struct ppc_percpu, index) == PCPU_INDEX, "PCPU_INDEX");
_Static_assert(offsetof(struct ppc_percpu, pir) == PCPU_PIR, "PCPU_PIR");
_Static_assert(offsetof(struct ppc_percpu, hit_cr) == PCPU_HIT_CR, "PCPU_HIT_CR");
_Static_assert(offsetof(struct ppc_percpu, mc_save) == PCPU_MC_SAVE, "PCPU_MC_SAVE");
_Static_assert(sizeof(struct ppc_percpu) == PCPU_SIZE, "PCPU_SIZE");

int64_t ppc_opal_call(uint64_t token, uint64_t a, uint64_t b, uint64_t c);

#define STACK_SIZE 32768
#define EXC_STACK_SIZE 8192

static struct ppc_percpu percpu[PPC_MAX_CPUS] __attribute__((aligned(128)));
static uint8_t stacks[PPC_MAX_CPUS][STACK_SIZE] __attribute__((aligned(16)));
static uint8_t exc_stacks[PPC_MAX_CPUS][EXC_STACK_SIZE] __attribute__((aligned(16)));

/* The threads' PIRs in CPU order (CPU 0 = the boot thread). */
static uint32_t pirs[PPC_MAX_CPUS];
static unsigned npirs = 1;
static unsigned ncpus = 1;

/* ppc_secondary_entry's data: the thread being started (start.S). */
struct ppc_percpu *volatile ppc_smp_booting;
static void (*thread_setup)(void);
static volatile unsigned online = 1;

/* The one call in flight (CPU 0 sends, then waits for done). */
static struct {
	int (*volatile fn)(void *);
	void *volatile arg;
	volatile int ret;
	volatile int done;
} call;

static inline uint64_t mfsprg0(void)
{
	uint64_t v;

	__asm__ volatile("mfspr %0, %1" : "=r"(v) : "i"(PPC_SPRG_PERCPU));
	return v;
}

struct ppc_percpu *ppc_this_percpu(void)
{
	return (struct ppc_percpu *)(uintptr_t)mfsprg0();
}

struct ppc_percpu *ppc_percpu_of(unsigned cpu)
{
	return &percpu[cpu < PPC_MAX_CPUS ? cpu : 0];
}

unsigned ppc_this_cpu(void)
{
	return (unsigned)ppc_this_percpu()->index;
}

/* The glue's CPU number (arch/powerpc/glue.h). */
unsigned hwbp_ppc_this_cpu(void)
{
	return ppc_this_cpu();
}

unsigned ppc_ncpus(void)
{
	return ncpus;
}

static uint64_t mftb(void)
{
	uint64_t v;

	__asm__ volatile("mftb %0" : "=r"(v));
	return v;
}

/* POWER's timebase runs at 512 MHz (skiboot's tb_hz; QEMU pnv's too). */
#define TB_HZ 512000000ull

/* --------------------------------------------------------- device tree */

#define FDT_MAGIC 0xd00dfeedu
#define FDT_BEGIN_NODE 1
#define FDT_END_NODE 2
#define FDT_PROP 3
#define FDT_NOP 4
#define FDT_END 9

/* The tree is big-endian, as this kernel. */
static uint32_t be32(const void *p)
{
	const uint8_t *b = p;

	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

static void add_pir(uint32_t pir, uint32_t boot)
{
	unsigned i;

	if (pir == boot)
		return;
	for (i = 1; i < npirs; i++)
		if (pirs[i] == pir)
			return;
	if (npirs >= PPC_MAX_CPUS)
		return;
	/* keep pirs[1..] sorted */
	for (i = npirs; i > 1 && pirs[i - 1] > pir; i--)
		pirs[i] = pirs[i - 1];
	pirs[i] = pir;
	npirs++;
}

/*
 * Walk the structure block (devicetree specification v0.3 §5.4): at depth
 * 2 under /cpus, a node with device_type "cpu" gives its servers.
 */
static void scan_fdt(const uint8_t *fdt, uint32_t boot)
{
	const uint8_t *s, *strs, *end;
	int depth = 0, in_cpus = 0, is_cpu = 0;
	const uint8_t *servers = NULL, *reg = NULL;
	uint32_t nservers = 0;

	if (!fdt || be32(fdt) != FDT_MAGIC)
		return;
	s = fdt + be32(fdt + 8);
	strs = fdt + be32(fdt + 12);
	end = fdt + be32(fdt + 4);
	while (s + 4 <= end) {
		uint32_t tok = be32(s);

		s += 4;
		if (tok == FDT_BEGIN_NODE) {
			const char *name = (const char *)s;
			size_t n = strlen(name);

			depth++;
			if (depth == 2)
				in_cpus = strncmp(name, "cpus", 4) == 0 && (name[4] == 0 || name[4] == '@');
			if (depth == 3) {
				is_cpu = 0;
				servers = reg = NULL;
				nservers = 0;
			}
			s += (n + 1 + 3) & ~(size_t)3;
		} else if (tok == FDT_END_NODE) {
			if (depth == 3 && in_cpus && is_cpu) {
				if (servers)
					for (uint32_t k = 0; k < nservers; k++)
						add_pir(be32(servers + 4 * k), boot);
				else if (reg)
					add_pir(be32(reg), boot);
			}
			if (depth == 2)
				in_cpus = 0;
			depth--;
			if (depth <= 0)
				return;
		} else if (tok == FDT_PROP) {
			uint32_t len = be32(s), nameoff = be32(s + 4);
			const char *pname = (const char *)strs + nameoff;
			const uint8_t *val = s + 8;

			if (depth == 3 && in_cpus) {
				if (strcmp(pname, "device_type") == 0 && len >= 4 &&
				    strcmp((const char *)val, "cpu") == 0)
					is_cpu = 1;
				else if (strcmp(pname, "ibm,ppc-interrupt-server#s") == 0) {
					servers = val;
					nservers = len / 4;
				} else if (strcmp(pname, "reg") == 0 && len >= 4)
					reg = val;
			}
			s += 8 + ((len + 3) & ~3u);
		} else if (tok == FDT_NOP) {
			continue;
		} else {
			return;   /* FDT_END or garbage */
		}
	}
}

static void percpu_init(unsigned i, uint32_t pir)
{
	struct ppc_percpu *p = &percpu[i];

	memset(p, 0, sizeof(*p));
	p->index = i;
	p->pir = pir;
	/* 128 bytes below the top: the ABI's back chain and save area */
	p->stack_top = (uint64_t)(uintptr_t)&stacks[i][STACK_SIZE - 128];
	p->exc_stack_top = (uint64_t)(uintptr_t)&exc_stacks[i][EXC_STACK_SIZE - 128];
}

void ppc_smp_early(const void *fdt)
{
	uint32_t boot;

	__asm__ volatile("mfspr %0, %1" : "=r"(boot) : "i"(SPRN_PIR));
	pirs[0] = boot;
	npirs = 1;
	percpu_init(0, boot);
	__asm__ volatile("mtspr %0, %1" : : "i"(PPC_SPRG_PERCPU), "r"(&percpu[0]) : "memory");
	scan_fdt(fdt, boot);
}

/* -------------------------------------------------------------- start */

/* A started thread, on its own stack in real mode (start.S). */
void ppc_secondary_main(void)
{
	thread_setup();
	/* Everything this thread wrote before is visible before CPU 0 sees
	 * it online (sync: ISA Book II "Memory Barrier Instructions"). */
	__asm__ volatile("sync" ::: "memory");
	online = online + 1;   /* only this thread writes while CPU 0 waits */
	__asm__ volatile("sync" ::: "memory");
	ppc_idle();
}

unsigned ppc_smp_init(void (*thread_init)(void))
{
	thread_setup = thread_init;
	for (unsigned i = 1; i < npirs; i++) {
		uint64_t t0;
		int64_t rc;

		percpu_init(ncpus, pirs[i]);
		ppc_smp_booting = &percpu[ncpus];
		/* percpu[] and `booting` in memory before the thread can
		 * read them (it starts with its caches coherent, but the
		 * stores must be performed first). */
		__asm__ volatile("sync" ::: "memory");
		rc = ppc_opal_call(OPAL_START_CPU, pirs[i], (uint64_t)(uintptr_t)ppc_secondary_entry, 0);
		if (rc != OPAL_SUCCESS)
			continue;
		t0 = mftb();
		while (online == ncpus && mftb() - t0 < 5 * TB_HZ)
			__asm__ volatile("or 1,1,1; or 2,2,2" ::: "memory");   /* low, medium priority */
		__asm__ volatile("sync" ::: "memory");
		if (online != ncpus + 1)
			break;   /* it never came up: stop at the CPUs that did */
		ncpus++;
	}
	return ncpus;
}

/* -------------------------------------------------------------- calls */

/*
 * The 0xE80 entry (start.S) comes here on the thread's own stack with the
 * kernel's MSR (EE = 0): the thread was idle, so nothing it was doing
 * needs saving.  Runs the call (if any: a stale doorbell carries none)
 * and goes back to waiting.
 */
void ppc_smp_doorbell(void)
{
	int (*fn)(void *);

	/* The sender's sync before msgsnd ordered its stores to `call`
	 * before the doorbell; this sync keeps our loads after it. */
	__asm__ volatile("sync" ::: "memory");
	fn = call.fn;
	if (fn) {
		call.ret = fn(call.arg);
		call.fn = 0;
		__asm__ volatile("sync" ::: "memory");   /* ret before done */
		call.done = 1;
		__asm__ volatile("sync" ::: "memory");
	}
	ppc_idle();
}

int ppc_smp_call(unsigned cpu, int (*fn)(void *), void *arg)
{
	uint64_t t0;

	if (cpu >= ncpus)
		return -EINVAL;
	if (cpu == ppc_this_cpu())
		return fn(arg);
	call.arg = arg;
	call.done = 0;
	call.fn = fn;
	/* The call's stores performed before the doorbell can be taken:
	 * msgsnd is not ordered with storage by itself (ISA v3.1 Book III
	 * "msgsnd": software must precede it with sync). */
	__asm__ volatile("sync" ::: "memory");
	__asm__ volatile("msgsnd %0" : : "r"(DBELL_TYPE_HYP | (percpu[cpu].pir & DBELL_PIR_MASK))
			 : "memory");
	t0 = mftb();
	while (!call.done) {
		if (mftb() - t0 > 20 * TB_HZ)
			return -ETIMEDOUT;
	}
	/* done seen: the call's result (and everything it wrote) after */
	__asm__ volatile("sync" ::: "memory");
	return call.ret;
}
