/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: every decoder (x86, arm64, powerpc; all presets and
 * arm64 models from a raw ID_AA64DFR0_EL1) on arbitrary register contents
 * and arbitrary exception status, directly and through a context.
 *
 * Registers come from the input in one of three ways: every register the
 * CPU has set by name (hwbp_regs_list / hwbp_regs_set), the whole union
 * raw (including registers past the CPU's slot count, which no decoder may
 * look at), or a few pieces encoded and then one register XOR-ed (valid
 * settings one mutation away).  The status is raw or shaped like a real
 * debug event near an armed slot.  Properties checked (a violation traps):
 *
 *  - hwbp_decode_slot() returns 1, 0 or -EINVAL, -EINVAL exactly for slot
 *    numbers past the pool; an enabled slot is a non-empty, non-wrapping
 *    piece of a valid type (execute in the instruction pool) and scope;
 *    the output is written only when it returns 1;
 *  - what decode_slot accepts is a fixed point: encoding it into fresh
 *    registers and decoding again gives the same piece and scope;
 *  - hwbp_decode_status() returns 0, -EINVAL or -ENOENT and leaves the hit
 *    alone on error; a hit reports at least one slot, only slots that exist
 *    and that decode_slot reads as a piece (x86: as enabled, see
 *    check_status), a kind of R, W, X or 0, no request ids and
 *    filtered = false;
 *  - hwbp_decode() through a context with requests installed from the
 *    input returns what decode_status returns on hwbp_task_regs(), the
 *    same slots, only live request ids, filtered only when none is left,
 *    and (with an access record) only requests whose bytes, type and scope
 *    the access matches.
 */
#include <stdbool.h>

#include "fuzz_common.h"

static bool scope_ok(enum hwbp_scope s)
{
	return s == HWBP_SCOPE_BOTH || s == HWBP_SCOPE_USER || s == HWBP_SCOPE_KERNEL;
}

/* The per-slot properties; returns decode_slot's result. */
static int check_slot(const struct hwbp_cpu *cpu, const struct hwbp_caps *caps,
		      const struct hwbp_regs *regs, unsigned slot, bool inst, unsigned npool,
		      struct hwbp_piece *out)
{
	struct hwbp_piece p, before;
	enum hwbp_scope sc = (enum hwbp_scope)0x5a5a5a5a, sc_before = sc;
	int ret;

	memset(&p, 0xa5, sizeof(p));
	before = p;
	ret = hwbp_decode_slot(cpu, regs, slot, inst, &p, &sc);
	CHECK(ret == 1 || ret == 0 || ret == -EINVAL);
	if (slot >= npool && !(caps->shared && inst && slot < caps->data_slots))
		CHECK(ret == -EINVAL);
	if (ret != 1) {
		CHECK(memcmp(&p, &before, sizeof(p)) == 0 && sc == sc_before);
		return ret;
	}
	CHECK(p.len >= 1 && p.addr + (p.len - 1) >= p.addr && p.addr + (p.len - 1) <= caps->addr_max);
	CHECK(p.cover_lo == p.addr && p.cover_len == p.len);
	CHECK(p.type == HWBP_R || p.type == HWBP_W || p.type == HWBP_RW || p.type == HWBP_X);
	if (!caps->shared)
		CHECK((p.type == HWBP_X) == inst);
	CHECK(scope_ok(sc));

	/* Fixed point: encode what was read into fresh registers. */
	{
		struct hwbp_regs fresh;
		struct hwbp_piece q;
		enum hwbp_scope sq;

		CHECK(hwbp_regs_reset(cpu, &fresh) == 0);
		CHECK(hwbp_encode_piece(cpu, &fresh, slot, p.type == HWBP_X, &p, sc, false) == 0);
		CHECK(hwbp_decode_slot(cpu, &fresh, slot, inst, &q, &sq) == 1);
		CHECK(q.addr == p.addr && q.len == p.len && q.type == p.type && sq == sc);
	}
	if (out)
		*out = p;
	return ret;
}

/* Registers from the input (see the top of the file). */
static void fill_regs(struct fz *f, const struct hwbp_cpu *cpu, struct hwbp_regs *regs)
{
	struct hwbp_reg_nv nv[80];
	unsigned mode = fz_u8(f) % 3;
	int n;

	CHECK(hwbp_regs_reset(cpu, regs) == 0);
	n = hwbp_regs_list(cpu, regs, nv, 80);
	CHECK(n >= 1 && n < 80);
	if (mode == 0) {
		/* by name: a zero byte keeps the reset value */
		for (int i = 0; i < n; i++)
			if (fz_u8(f))
				CHECK(hwbp_regs_set(cpu, regs, nv[i].name, fz_u64(f)) == 0);
	} else if (mode == 1) {
		uint64_t raw[sizeof(regs->u) / sizeof(uint64_t)];

		for (size_t i = 0; i < sizeof(raw) / sizeof(raw[0]); i++)
			raw[i] = fz_u64(f);
		memcpy(&regs->u, raw, sizeof(raw));
	} else {
		static const uint64_t lens[] = { 1, 2, 3, 4, 8, 16, 64, 512, 4096, 1ull << 31 };
		static const unsigned types[] = { HWBP_R, HWBP_W, HWBP_RW, HWBP_X };
		unsigned k = fz_u8(f) % 5;

		for (unsigned i = 0; i < k; i++) {
			struct hwbp_piece p;
			unsigned b = fz_u8(f);

			memset(&p, 0, sizeof(p));
			p.len = lens[b % 10];
			p.addr = fz_u64(f) & ~(p.len - 1);
			p.type = types[(b >> 4) % 4];
			/* refused pieces just stay unarmed */
			(void)hwbp_encode_piece(cpu, regs, fz_u8(f) % HWBP_MAX_SLOTS,
						p.type == HWBP_X, &p, (enum hwbp_scope)((b >> 6) % 3),
						b & 1);
		}
		n = hwbp_regs_list(cpu, regs, nv, 80);
		k = fz_u8(f);
		if (k)
			CHECK(hwbp_regs_set(cpu, regs, nv[k % (unsigned)n].name,
					    nv[k % (unsigned)n].value ^ fz_u64(f)) == 0);
	}
}

/* A status: raw, or shaped like a debug event at or near @near. */
static void fill_status(struct fz *f, const struct hwbp_cpu *cpu, uint64_t near,
			struct hwbp_status *st)
{
	unsigned mode = fz_u8(f);
	uint64_t addr = near + (uint64_t)(int64_t)(int16_t)fz_u16(f);

	memset(st, 0, sizeof(*st));
	st->ip = (mode & 0x80) ? addr : fz_u64(f);
	if ((mode & 3) == 0) {
		st->u.arm64.esr = fz_u64(f);  /* the largest member, all raw */
		st->u.arm64.far = fz_u64(f);
		st->u.ppc.dar = fz_u64(f);
		st->u.ppc.srr1 = fz_u64(f);
		return;
	}
	switch (cpu->arch) {
	case HWBP_ARCH_X86:
		st->u.x86.dr6 = 0xffff0ff0u | (fz_u8(f) & 0xfu) | ((uint64_t)fz_u8(f) << 13);
		break;
	case HWBP_ARCH_ARM64: {
		static const unsigned ec[] = { 0x30, 0x31, 0x34, 0x35, 0x32, 0x3c };
		unsigned b = fz_u8(f);

		st->u.arm64.esr = (uint64_t)ec[b % 6] << 26 | 0x22 | (b & 0x40) |
				  (uint64_t)(fz_u8(f) & 0x7f) << 17 | (mode & 0x40 ? 1u << 10 : 0);
		st->u.arm64.far = addr;
		break;
	}
	case HWBP_ARCH_POWERPC:
		st->u.ppc.vector = (mode & 4) ? 0xd00 : 0x300;
		st->u.ppc.dsisr = 0x00400000 | ((mode & 8) ? 0x02000000 : 0);
		st->u.ppc.dar = addr;
		st->u.ppc.srr1 = (mode & 16) ? 0x00100000 : (mode & 32) ? fz_u64(f) : 0;
		break;
	case HWBP_ARCH_RISCV:
		/* mcause 3 (breakpoint) or another cause; mtval the address
		 * near an armed trigger, or 0 (none written: hit bits, then
		 * every armed trigger). */
		st->u.riscv.cause = (mode & 4) ? fz_u8(f) % 16 : 3;
		st->u.riscv.tval = (mode & 8) ? 0 : addr;
		break;
	}
}

static void check_status(const struct hwbp_cpu *cpu, const struct hwbp_caps *caps,
			 const struct hwbp_regs *regs, const struct hwbp_status *st,
			 struct hwbp_hit *out, int *rc)
{
	struct hwbp_hit h, before;
	unsigned ndata, ninst;
	int ret;

	fz_pools(caps, &ndata, &ninst);
	memset(&h, 0xa5, sizeof(h));
	before = h;
	ret = hwbp_decode_status(cpu, regs, st, &h);
	CHECK(ret == 0 || ret == -EINVAL || ret == -ENOENT);
	*rc = ret;
	if (ret) {
		CHECK(memcmp(&h, &before, sizeof(h)) == 0);
		return;
	}
	CHECK(h.data_slots || h.inst_slots);
	CHECK(ndata >= 32 || (h.data_slots >> ndata) == 0);
	CHECK(ninst >= 32 || (h.inst_slots >> ninst) == 0);
	CHECK(h.kind == 0 || h.kind == HWBP_R || h.kind == HWBP_W || h.kind == HWBP_X);
	CHECK(h.requests == 0 && !h.filtered);
	for (unsigned i = 0; i < 32; i++) {
		struct hwbp_piece p;
		enum hwbp_scope sc;

		/*
		 * A reported slot is enabled.  On arm64 and powerpc the slot
		 * is found by matching the address against what decode_slot
		 * reads, so it must read as a piece (1).  x86 reports DR6's
		 * B bits of the enabled (Ln/Gn) slots raw, including I/O
		 * breakpoints and undefined R/W-LEN pairs that decode_slot
		 * refuses as pieces (-EINVAL; tests/unit/test_sim_x86.c "io
		 * hit" relies on it): there, only "disabled" (0) is wrong.
		 */
		if ((h.data_slots >> i) & 1) {
			int r = hwbp_decode_slot(cpu, regs, i, false, &p, &sc);

			CHECK(r == 1 || (cpu->arch == HWBP_ARCH_X86 && r == -EINVAL));
		}
		if ((h.inst_slots >> i) & 1)
			CHECK(hwbp_decode_slot(cpu, regs, i, true, &p, &sc) == 1);
	}
	*out = h;
}

/* The direct decoders. */
static void fuzz_raw(struct fz *f, const struct hwbp_cpu *cpu, const struct hwbp_caps *caps)
{
	struct hwbp_regs regs;
	struct hwbp_status st;
	struct hwbp_hit h;
	struct hwbp_piece armed[2 * HWBP_MAX_SLOTS];
	unsigned ndata, ninst, narmed = 0;
	uint64_t near = 0;
	int rc;

	fz_pools(caps, &ndata, &ninst);
	fill_regs(f, cpu, &regs);
	for (unsigned pi = 0; pi < 2; pi++) {
		bool inst = pi == 1;
		unsigned npool = inst ? ninst : ndata;

		/* a few past the end too: those must be refused */
		for (unsigned s = 0; s < HWBP_MAX_SLOTS + 2; s++)
			if (check_slot(cpu, caps, &regs, s, inst, npool, &armed[narmed]) == 1 &&
			    narmed < 2 * HWBP_MAX_SLOTS - 1)
				narmed++;
	}
	if (narmed) {
		const struct hwbp_piece *p = &armed[fz_u8(f) % narmed];

		near = p->addr + fz_u8(f) % p->len;
	}
	fill_status(f, cpu, near, &st);
	check_status(cpu, caps, &regs, &st, &h, &rc);
}

static bool overlaps(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
	uint64_t alast = a + (alen - 1), blast = b + (blen - 1);

	if (alast < a)
		alast = UINT64_MAX; /* an access cannot wrap: clip it */
	return a <= blast && b <= alast;
}

/* Through a context: installed requests, then hwbp_decode. */
static void fuzz_ctx(struct fz *f, const struct hwbp_cpu *cpu, const struct hwbp_caps *caps)
{
	static const unsigned types[] = { HWBP_R, HWBP_W, HWBP_RW, HWBP_X };
	static struct hwbp_ctx ctx;
	static struct hwbp_slots percpu[2];
	static struct hwbp_task task;
	struct hwbp_access acc;
	struct hwbp_status st;
	struct hwbp_hit h, raw_h, before;
	struct hwbp_regs regs;
	uint64_t base = fz_u64(f), near = base;
	unsigned nreq = fz_u8(f) % 6, mode;
	unsigned cpuno;
	bool use_task, use_acc;
	int ret, raw_rc;

	memset(&ctx, 0, sizeof(ctx));
	memset(percpu, 0, sizeof(percpu));
	CHECK(hwbp_ctx_init(&ctx, cpu, 2, percpu, NULL) == 0);
	CHECK(hwbp_task_init(&ctx, &task) == 0);
	for (unsigned i = 0; i < nreq; i++) {
		struct hwbp_request r;
		unsigned b = fz_u8(f), c = fz_u8(f);
		int id;

		memset(&r, 0, sizeof(r));
		r.addr = base + (uint64_t)(int64_t)(int16_t)fz_u16(f);
		r.len = (uint64_t)fz_u8(f) % 64 + 1;
		r.type = types[b % 4];
		if (r.type == HWBP_X)
			r.len = caps->inst_len;
		r.scope = (enum hwbp_scope)((b >> 2) % 3);
		r.flags = (b >> 4) & HWBP_REQ_FLAGS_MASK;
		/* refused requests are simply not there */
		if (hwbp_install(&ctx, &r, c % 3 == 2 ? HWBP_CPU_ALL : (int)(c % 3), (c & 4) ? &task : NULL,
				 &id) == 0) {
			CHECK(id >= 0 && id < HWBP_MAX_REQUESTS && hwbp_plan_of(&ctx, id));
			if (c & 8)
				near = r.addr;
		}
	}
	mode = fz_u8(f);
	cpuno = mode & 1;
	use_task = (mode & 2) != 0;
	use_acc = (mode & 4) != 0;
	fill_status(f, cpu, near, &st);
	memset(&acc, 0, sizeof(acc));
	acc.addr = near + (uint64_t)(int64_t)(int8_t)fz_u8(f);
	acc.size = fz_u8(f) % 17;
	acc.kind = (unsigned[]){ 0, HWBP_R, HWBP_W, HWBP_X }[(mode >> 3) % 4];
	acc.priv = (int)((mode >> 5) % 3) - 1;

	CHECK(hwbp_task_regs(&ctx, cpuno, use_task ? &task : NULL, &regs) == 0);
	check_status(cpu, caps, &regs, &st, &raw_h, &raw_rc);

	memset(&h, 0xa5, sizeof(h));
	before = h;
	ret = hwbp_decode(&ctx, cpuno, use_task ? &task : NULL, &st, use_acc ? &acc : NULL, &h);
	CHECK(ret == raw_rc);
	if (ret) {
		CHECK(memcmp(&h, &before, sizeof(h)) == 0);
	} else {
		CHECK(h.data_slots == raw_h.data_slots && h.inst_slots == raw_h.inst_slots);
		CHECK(!h.filtered || h.requests == 0);
		for (unsigned id = 0; id < HWBP_MAX_REQUESTS; id++) {
			const struct hwbp_plan *pl;

			if (!((h.requests >> id) & 1))
				continue;
			pl = hwbp_plan_of(&ctx, id);
			CHECK(pl != NULL);
			if (!use_acc)
				continue;
			/* the access touched the request's own bytes ... */
			if (acc.size)
				CHECK(overlaps(acc.addr, acc.size, pl->req.addr, pl->req.len));
			/* ... with a kind it watches: a fetch only an execute
			 * request, a load or store only a data request of
			 * that direction (hwbp.h, hwbp_decode). */
			if (acc.kind) {
				CHECK((acc.kind == HWBP_X) == (pl->req.type == HWBP_X));
				if (acc.kind != HWBP_X)
					CHECK((acc.kind & pl->req.type) != 0);
			}
			/* ... at a privilege level it watches */
			if (acc.priv == 0)
				CHECK(pl->req.scope != HWBP_SCOPE_USER);
			if (acc.priv == 1)
				CHECK(pl->req.scope != HWBP_SCOPE_KERNEL);
		}
		if (use_acc && acc.kind)
			CHECK(h.kind == acc.kind);
	}
	/* Remove everything: the task can then go. */
	for (int id = 0; id < HWBP_MAX_REQUESTS; id++)
		if (hwbp_plan_of(&ctx, id))
			CHECK(hwbp_remove(&ctx, id) == 0);
	CHECK(hwbp_task_fini(&ctx, &task) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz f = { data, size };
	struct hwbp_cpu cpu;
	struct hwbp_caps caps;
	unsigned path;

	if (size > 1024)
		return 0;
	path = fz_u8(&f);
	if (fz_cpu(&f, &cpu))
		return 0;
	CHECK(hwbp_caps_get(&cpu, &caps) == 0);
	if (path & 1)
		fuzz_ctx(&f, &cpu, &caps);
	else
		fuzz_raw(&f, &cpu, &caps);
	return 0;
}
