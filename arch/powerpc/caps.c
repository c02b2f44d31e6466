/* placeholder until the powerpc encoder lands */
#include "internal.h"
const struct hwbpi_arch_ops hwbpi_powerpc_ops = { .arch = HWBP_ARCH_POWERPC };
