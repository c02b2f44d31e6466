/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the scenario parser and runner.  Any input must either
 * parse and run or be refused with a FILE:LINE:COL message; never crash,
 * leak or hang.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <hwbp/sim.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hwbp_scenario_opts o = { HWBP_SIM_SDM, false, NULL };
	struct hwbp_scenario_stats st = { 0, 0, 0 };
	char err[256];
	int ret;

	/* Keep runs short: a scenario is a few KiB at most. */
	if (size > 16384)
		return 0;
	ret = hwbp_scenario_run("fuzz.hws", (const char *)data, size, &o, &st, err, sizeof(err));
	if (ret == -22 /* EINVAL */ && strncmp(err, "fuzz.hws:", 9) != 0)
		__builtin_trap(); /* a parse error must say where */
	o.profile = HWBP_SIM_QEMU;
	o.emit = true;
	hwbp_scenario_run("fuzz.hws", (const char *)data, size, &o, &st, err, sizeof(err));
	return 0;
}
