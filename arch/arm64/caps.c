/* placeholder until the arm64 encoder lands */
#include "internal.h"
const struct hwbpi_arch_ops hwbpi_arm64_ops = { .arch = HWBP_ARCH_ARM64 };
