/* SPDX-License-Identifier: MIT */
/*
 * CPU models: named presets and arm64 models built from ID_AA64DFR0_EL1.
 */

#include "internal.h"

/*
 * ID_AA64DFR0_EL1 (Arm ARM D19.2): DebugVer [3:0], BRPs [15:12] and WRPs
 * [23:20] hold the count minus one, CTX_CMPs [31:28].  Cortex-A57 and
 * Cortex-A53 read 0x10305106: Armv8 debug, 6 breakpoints, 4 watchpoints
 * (their TRMs; QEMU's cortex-a57 model uses the same value).
 */
#define DFR0_A57 0x10305106ull
#define DFR0_MAX16 0x10f0f006ull

struct preset {
	const char *name;
	struct hwbp_cpu cpu;
};

#define X86(n, m64, amd) { n, { .arch = HWBP_ARCH_X86, .u.x86 = { m64, amd } } }
#define A64(n, dfr0) { n, { .arch = HWBP_ARCH_ARM64, .u.arm64 = { dfr0 } } }
#define PPC(n, isa, units) { n, { .arch = HWBP_ARCH_POWERPC, .u.ppc = { isa, units } } }

/*
 * powerpc units per processor (Power ISA 2.06: DABR/DABRX; 2.07 (POWER8)
 * adds DAWR0/DAWRX0 and CIABR and drops DABR; 3.1 (POWER10) adds
 * DAWR1/DAWRX1 and lifts the 512-byte boundary rule).
 */
static const struct preset presets[] = {
	X86("x86_64", true, false),
	X86("i386", false, false),
	X86("x86_64-amd", true, true),
	A64("cortex-a57", DFR0_A57),
	A64("cortex-a53", DFR0_A57),
	A64("arm64-max16", DFR0_MAX16),
	PPC("power7", 206, HWBP_PPC_DABR),
	PPC("power8", 207, HWBP_PPC_DAWR0 | HWBP_PPC_CIABR),
	PPC("power9", 300, HWBP_PPC_DAWR0 | HWBP_PPC_CIABR),
	PPC("power10", 310, HWBP_PPC_DAWR0 | HWBP_PPC_DAWR1 | HWBP_PPC_CIABR),
};

#define NPRESETS (sizeof(presets) / sizeof(presets[0]))

const char *hwbp_cpu_preset_name(unsigned i)
{
	return i < NPRESETS ? presets[i].name : NULL;
}

int hwbp_cpu_preset(const char *name, struct hwbp_cpu *out)
{
	if (!name || !out)
		return -EINVAL;
	for (unsigned i = 0; i < NPRESETS; i++) {
		if (hwbpi_streq(presets[i].name, name)) {
			*out = presets[i].cpu;
			hwbpi_strlcpy(out->name, name, sizeof(out->name));
			return 0;
		}
	}
	return -ENOENT;
}

int hwbp_cpu_arm64_from_dfr0(uint64_t dfr0, struct hwbp_cpu *out)
{
	if (!out)
		return -EINVAL;
	/* DebugVer 6 is Armv8 debug; lower values are Armv7 or absent. */
	if ((dfr0 & 0xf) < 6)
		return -EINVAL;
	/*
	 * The 4-bit count fields cannot say more than 16.  From Armv8.9
	 * (DebugVer 0xb) a value of 0xf may mean "see ID_AA64DFR1_EL1" for
	 * up to 64; hwbp's fixed-size tables stop at 16, so refuse that
	 * reading rather than silently truncate.
	 */
	if ((dfr0 & 0xf) >= 0xb && (((dfr0 >> 12) & 0xf) == 0xf || ((dfr0 >> 20) & 0xf) == 0xf))
		return -EOPNOTSUPP;
	memset(out, 0, sizeof(*out));
	out->arch = HWBP_ARCH_ARM64;
	out->u.arm64.dfr0 = dfr0;
	hwbpi_strlcpy(out->name, "arm64-dfr0", sizeof(out->name));
	return 0;
}
