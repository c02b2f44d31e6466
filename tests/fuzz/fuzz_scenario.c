/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the scenario parser and runner.  Any input must either
 * parse and run or be refused with a FILE:LINE:COL message; never crash,
 * leak or hang; and read as a stream it must give what the text gives.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <hwbp/sim.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* hwbp_scenario_run_file() of the same bytes: the same return, message and
 * counts (a seekable stream: its buffer, refills and lookahead). */
static void same_as_stream(const uint8_t *data, size_t size)
{
	struct hwbp_scenario_opts o = { HWBP_SIM_SDM, false, NULL };
	struct hwbp_scenario_stats st = { 0, 0, 0 }, fst = { 0, 0, 0 };
	char err[256], ferr[256];
	FILE *f = fmemopen((void *)data, size, "r");
	int ret, fret;

	if (!f)
		return;
	ret = hwbp_scenario_run("fuzz.hws", (const char *)data, size, &o, &st, err, sizeof(err));
	fret = hwbp_scenario_run_file("fuzz.hws", f, &o, &fst, ferr, sizeof(ferr));
	fclose(f);
	if (ret != fret || strcmp(err, ferr) || memcmp(&st, &fst, sizeof(st)))
		__builtin_trap();
}

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
	if (size)
		same_as_stream(data, size);
	return 0;
}
