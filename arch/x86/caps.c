/* placeholder until the x86 encoder lands */
#include "internal.h"
const struct hwbpi_arch_ops hwbpi_x86_ops = { .arch = HWBP_ARCH_X86 };
