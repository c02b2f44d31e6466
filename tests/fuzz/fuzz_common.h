/* SPDX-License-Identifier: MIT */
/*
 * Helpers shared by the libFuzzer targets: a byte reader that never runs
 * past the input (missing bytes read as 0, so every input is a valid
 * encoding), the CPU model selector, and CHECK().
 *
 * The targets also build with gcc, without libFuzzer, for tests/fuzz/replay.c:
 * nothing here is clang-specific.
 */
#ifndef HWBP_FUZZ_COMMON_H
#define HWBP_FUZZ_COMMON_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <hwbp/hwbp.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A violated property: stop here so the fuzzer (or the replay test) sees
 * a crash with this line in the backtrace. */
#define CHECK(c)                                                                          \
	do {                                                                              \
		if (!(c))                                                                 \
			__builtin_trap();                                                 \
	} while (0)

struct fz {
	const uint8_t *p;
	size_t n;
};

static inline uint8_t fz_u8(struct fz *f)
{
	uint8_t v = 0;

	if (f->n) {
		v = *f->p++;
		f->n--;
	}
	return v;
}

static inline uint16_t fz_u16(struct fz *f)
{
	uint16_t v = fz_u8(f);

	return (uint16_t)(v | fz_u8(f) << 8);
}

static inline uint32_t fz_u32(struct fz *f)
{
	uint32_t v = fz_u16(f);

	return v | (uint32_t)fz_u16(f) << 16;
}

static inline uint64_t fz_u64(struct fz *f)
{
	uint64_t v = fz_u32(f);

	return v | (uint64_t)fz_u32(f) << 32;
}

/* Number of named presets. */
static inline unsigned fz_npresets(void)
{
	unsigned n = 0;

	while (hwbp_cpu_preset_name(n))
		n++;
	return n;
}

/*
 * A CPU model from the input: one byte picks a preset, or (one value past
 * the last preset) an arm64 model from a raw ID_AA64DFR0_EL1 read next.
 * A DFR0 the library refuses must fail with one of its documented errors
 * and leave the output untouched; then the input is not interesting.
 * Returns 0 with *cpu set, or -1.
 */
static inline int fz_cpu(struct fz *f, struct hwbp_cpu *cpu)
{
	unsigned np = fz_npresets();
	unsigned sel = fz_u8(f) % (np + 1);

	if (sel < np) {
		CHECK(hwbp_cpu_preset(hwbp_cpu_preset_name(sel), cpu) == 0);
	} else {
		struct hwbp_cpu before;
		uint64_t dfr0 = fz_u64(f);
		int ret;

		memset(cpu, 0x5a, sizeof(*cpu));
		before = *cpu;
		ret = hwbp_cpu_arm64_from_dfr0(dfr0, cpu);
		if (ret) {
			CHECK(ret == -EINVAL || ret == -EOPNOTSUPP);
			CHECK(memcmp(cpu, &before, sizeof(before)) == 0);
			return -1;
		}
		CHECK(cpu->arch == HWBP_ARCH_ARM64 && cpu->u.arm64.dfr0 == dfr0);
	}
	return 0;
}

/* Slots of each pool as the decoders number them: x86 reports every slot
 * (execute or data) in the data mask, so its instruction pool is empty. */
static inline void fz_pools(const struct hwbp_caps *caps, unsigned *ndata, unsigned *ninst)
{
	*ndata = caps->data_slots;
	*ninst = caps->shared ? 0 : caps->inst_slots;
}

#endif /* HWBP_FUZZ_COMMON_H */
