/* SPDX-License-Identifier: MIT */
/*
 * Run-time arch selection and the public entry points that forward to it.
 * Every arch is compiled on every host; the CPU model picks one.
 */

#include "internal.h"

/* The one table that lists the arches: each arch/<a>/caps.c defines its ops. */
extern const struct hwbpi_arch_ops hwbpi_x86_ops;
extern const struct hwbpi_arch_ops hwbpi_arm64_ops;
extern const struct hwbpi_arch_ops hwbpi_powerpc_ops;
extern const struct hwbpi_arch_ops hwbpi_riscv_ops;

/* Every arch, in the order presets are listed. */
static const struct hwbpi_arch_ops *const arches[] = {
	&hwbpi_x86_ops,
	&hwbpi_arm64_ops,
	&hwbpi_powerpc_ops,
	&hwbpi_riscv_ops,
};

const struct hwbpi_arch_ops *hwbpi_arch_ops(enum hwbp_arch arch)
{
	for (unsigned i = 0; i < sizeof(arches) / sizeof(arches[0]); i++)
		if (arches[i]->arch == arch)
			return arches[i];
	return NULL;
}

const struct hwbpi_arch_ops *hwbpi_arch_nth(unsigned i)
{
	return i < sizeof(arches) / sizeof(arches[0]) ? arches[i] : NULL;
}

static const struct hwbpi_arch_ops *ops_of(const struct hwbp_cpu *cpu)
{
	return cpu ? hwbpi_arch_ops(cpu->arch) : NULL;
}

int hwbp_caps_get(const struct hwbp_cpu *cpu, struct hwbp_caps *out)
{
	const struct hwbpi_arch_ops *ops = ops_of(cpu);

	if (!ops || !out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	ops->caps(cpu, out);
	out->arch = cpu->arch;
	return 0;
}

bool hwbp_type_supported(const struct hwbp_cpu *cpu, unsigned type)
{
	struct hwbp_caps caps;

	if (type == 0 || (type & ~HWBP_TYPE_MASK) || hwbp_caps_get(cpu, &caps))
		return false;
	return (caps.types >> type) & 1u;
}

int hwbp_regs_reset(const struct hwbp_cpu *cpu, struct hwbp_regs *regs)
{
	const struct hwbpi_arch_ops *ops = ops_of(cpu);

	if (!ops || !regs)
		return -EINVAL;
	memset(regs, 0, sizeof(*regs));
	regs->arch = cpu->arch;
	ops->reset(cpu, regs);
	return 0;
}

int hwbp_encode_piece(const struct hwbp_cpu *cpu, struct hwbp_regs *regs,
		      unsigned slot, bool inst, const struct hwbp_piece *piece,
		      enum hwbp_scope scope, bool local)
{
	const struct hwbpi_arch_ops *ops = ops_of(cpu);

	if (!ops || !regs || !piece || regs->arch != cpu->arch)
		return -EINVAL;
	return ops->encode(cpu, regs, slot, inst, piece, scope, local);
}

int hwbp_decode_slot(const struct hwbp_cpu *cpu, const struct hwbp_regs *regs,
		     unsigned slot, bool inst, struct hwbp_piece *piece,
		     enum hwbp_scope *scope)
{
	const struct hwbpi_arch_ops *ops = ops_of(cpu);

	if (!ops || !regs || !piece || !scope || regs->arch != cpu->arch)
		return -EINVAL;
	return ops->decode_slot(cpu, regs, slot, inst, piece, scope);
}

int hwbp_decode_status(const struct hwbp_cpu *cpu, const struct hwbp_regs *regs,
		       const struct hwbp_status *st, struct hwbp_hit *hit)
{
	const struct hwbpi_arch_ops *ops = ops_of(cpu);
	struct hwbp_hit h;
	int ret;

	if (!ops || !regs || !st || !hit || regs->arch != cpu->arch)
		return -EINVAL;
	memset(&h, 0, sizeof(h));
	ret = ops->decode_status(cpu, regs, st, &h);
	if (ret == 0)
		*hit = h;
	return ret;
}

int hwbp_regs_list(const struct hwbp_cpu *cpu, const struct hwbp_regs *regs,
		   struct hwbp_reg_nv *out, int max)
{
	const struct hwbpi_arch_ops *ops = ops_of(cpu);

	if (!ops || !regs || !out || max < 0 || regs->arch != cpu->arch)
		return -EINVAL;
	return ops->regs_list(cpu, regs, out, max);
}

int hwbp_regs_set(const struct hwbp_cpu *cpu, struct hwbp_regs *regs,
		  const char *name, uint64_t value)
{
	const struct hwbpi_arch_ops *ops = ops_of(cpu);

	if (!ops || !regs || !name || regs->arch != cpu->arch)
		return -EINVAL;
	return ops->regs_set(cpu, regs, name, value);
}

int hwbp_regs_apply(const struct hwbp_cpu *cpu, struct hwbp_regs *live,
		    const struct hwbp_regs *written)
{
	const struct hwbpi_arch_ops *ops = ops_of(cpu);

	if (!ops || !live || !written || live->arch != cpu->arch || written->arch != cpu->arch)
		return -EINVAL;
	ops->regs_apply(live, written);
	return 0;
}

int hwbp_slot_name(const struct hwbp_cpu *cpu, bool inst, unsigned slot, char *buf, size_t n)
{
	const struct hwbpi_arch_ops *ops = ops_of(cpu);
	struct hwbp_caps caps;

	if (!buf || n == 0)
		return -EINVAL;
	/* On any error @buf holds "", for callers that compare names. */
	buf[0] = '\0';
	if (!ops || hwbp_caps_get(cpu, &caps))
		return -EINVAL;
	if (slot >= ((inst && !caps.shared) ? caps.inst_slots : caps.data_slots))
		return -EINVAL;
	if (ops->slot_name(cpu, inst, slot, buf, n) >= n) {
		buf[0] = '\0';
		return -EINVAL;
	}
	return 0;
}

int hwbp_status_set(const struct hwbp_cpu *cpu, struct hwbp_status *st, const char *name,
		    uint64_t value)
{
	const struct hwbpi_arch_ops *ops = ops_of(cpu);

	if (!ops || !st || !name)
		return -EINVAL;
	/* The trapping instruction: every arch's handler knows it. */
	if (hwbpi_streq(name, "ip")) {
		st->ip = value;
		return 0;
	}
	return ops->status_set(st, name, value);
}

const char *hwbp_status_field(const struct hwbp_cpu *cpu, unsigned i)
{
	const struct hwbpi_arch_ops *ops = ops_of(cpu);

	if (!ops)
		return NULL;
	for (unsigned k = 0; ops->status_fields[k]; k++)
		if (k == i)
			return ops->status_fields[k];
	return NULL;
}

const char *hwbp_status_hint(const struct hwbp_cpu *cpu)
{
	const struct hwbpi_arch_ops *ops = ops_of(cpu);

	return ops ? ops->status_hint : "";
}

const char *hwbp_arch_name(enum hwbp_arch arch)
{
	const struct hwbpi_arch_ops *ops = hwbpi_arch_ops(arch);

	return ops ? ops->name : "unknown";
}

const char *hwbp_type_name(unsigned type)
{
	static const char *const names[] = {
		"none", "R", "W", "RW", "X", "RX", "WX", "RWX",
	};
	return type <= HWBP_TYPE_MASK ? names[type] : "invalid";
}

int hwbp_type_parse(const char *s, unsigned *type)
{
	static const struct { const char *s; unsigned t; } tab[] = {
		{ "r", HWBP_R }, { "w", HWBP_W }, { "rw", HWBP_RW }, { "x", HWBP_X },
		{ "R", HWBP_R }, { "W", HWBP_W }, { "RW", HWBP_RW }, { "X", HWBP_X },
	};

	if (!s || !type)
		return -EINVAL;
	for (unsigned i = 0; i < sizeof(tab) / sizeof(tab[0]); i++) {
		if (hwbpi_streq(s, tab[i].s)) {
			*type = tab[i].t;
			return 0;
		}
	}
	return -EINVAL;
}

/* A digit of @base (10 or 16), or -1. */
static int digit(char c, unsigned base)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (base == 16 && c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (base == 16 && c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int hwbp_parse_u64n(const char *s, size_t len, uint64_t *out)
{
	unsigned base = 10;
	uint64_t v = 0;
	size_t i = 0;

	if (!s || !out)
		return -EINVAL;
	/* strtoull() would take signs, blanks and octal, and say nothing
	 * of a wrap: one syntax everywhere instead (addresses, lengths,
	 * counts, pids, scenario numbers). */
	if (len >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		i = 2;
	}
	if (i == len)
		return -EINVAL;
	for (; i < len; i++) {
		int d = digit(s[i], base);

		if (d < 0)
			return -EINVAL;
		if (v > (UINT64_MAX - (uint64_t)d) / base)
			return -ERANGE;
		v = v * base + (uint64_t)d;
	}
	*out = v;
	return 0;
}

int hwbp_parse_u64(const char *s, uint64_t *out)
{
	return s ? hwbp_parse_u64n(s, hwbpi_strlen(s), out) : -EINVAL;
}

const char *hwbp_version(void)
{
	return HWBP_VERSION_STRING;
}
