/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: the valgrind lackey trace reader (tracer/backends/sim/lackey.c,
 * internal; this target links the non-installed static library).
 *
 * The input is read as a lackey trace through hwbpi_lackey_next() and
 * checked against an independent reading of the format valgrind's lackey
 * prints ("I  %08lx,%lu" for an instruction, " L/S/M %08lx,%lu" for a data
 * access; lackey.c's trace_instr/trace_load/...):
 *
 *   line     := instr | access, ending in "\n" (or at the end of input),
 *               at most 255 bytes before the "\n", no NUL byte
 *   instr    := "I" " "+ pair
 *   access   := " " ("L" | "S" | "M") " " pair
 *   pair     := hex{1,16} "," dec ["\r"]    with 1 <= dec <= 64
 *
 * Properties (a violation traps): every access returned comes from the
 * next well-formed access line, in order, with its address, size (> 0),
 * kind (L read, S/M write) and the address of the last well-formed
 * instruction line before it as ip; nothing else is returned; the line,
 * bad-line and byte counters match the input.  Then
 * hwbpi_lackey_guess_bias() on the input as a file, against a small PIE
 * and a fixed-address ELF of the seed corpus, must not crash and returns a
 * page-aligned bias (0 for the fixed-address one).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "fuzz_common.h"
#include "backends/sim/sim_int.h"
#include "output/output.h"

#ifndef HWBP_FUZZ_ELF_DIR
#define HWBP_FUZZ_ELF_DIR "tests/fuzz/corpus/elf"
#endif

struct expect {
	bool access;
	uint64_t ip, addr;
	uint32_t size, op;
};

static int hexval(uint8_t c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* pair at s[0..n): see the grammar above. */
static bool pair(const uint8_t *s, size_t n, uint64_t *addr, uint32_t *size)
{
	size_t i = 0, nd = 0;
	uint64_t a = 0, v = 0;

	while (i < n && hexval(s[i]) >= 0 && nd < 17) {
		a = a << 4 | (uint64_t)hexval(s[i++]);
		nd++;
	}
	if (nd == 0 || nd > 16 || i >= n || s[i++] != ',')
		return false;
	nd = 0;
	while (i < n && s[i] >= '0' && s[i] <= '9') {
		if (v <= 64)
			v = v * 10 + (uint64_t)(s[i] - '0');
		i++;
		nd++;
	}
	if (nd == 0 || v == 0 || v > 64)
		return false;
	if (i < n && s[i] == '\r')
		i++;
	if (i != n)
		return false;
	*addr = a;
	*size = (uint32_t)v;
	return true;
}

/* Classify one line (without its "\n"): 1 instruction, 2 access, 0 bad. */
static int classify(const uint8_t *s, size_t n, uint64_t *addr, uint32_t *size, uint32_t *op)
{
	size_t i;

	if (n > 255 || memchr(s, 0, n))
		return 0;
	if (n >= 2 && s[0] == 'I' && s[1] == ' ') {
		for (i = 1; i < n && s[i] == ' '; i++)
			;
		return pair(s + i, n - i, addr, size) ? 1 : 0;
	}
	if (n >= 3 && s[0] == ' ' && (s[1] == 'L' || s[1] == 'S' || s[1] == 'M') && s[2] == ' ' &&
	    pair(s + 3, n - 3, addr, size)) {
		*op = s[1] == 'L' ? HWBP_SIM_READ : HWBP_SIM_WRITE;
		return 2;
	}
	return 0;
}

/* A file holding @data, deleted already: reachable as /proc/self/fd/N. */
static int temp_file(const uint8_t *data, size_t size, char *path, size_t len)
{
	static int fd = -1;

	if (fd < 0) {
		char name[] = "/tmp/hwbp-fuzz-lackey-XXXXXX";

		fd = mkstemp(name);
		if (fd < 0)
			return -1;
		unlink(name);
	}
	if (ftruncate(fd, 0) != 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
		return -1;
	snprintf(path, len, "/proc/self/fd/%d", fd);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hwbpi_lackey s;
	struct hwbpi_work_access a;
	uint64_t ip = 0, lines = 0, bad = 0;
	size_t pos = 0;
	char path[64];
	FILE *in;

	if (size > 65536)
		return 0;
	/* fmemopen() may refuse a zero-sized buffer */
	in = size ? fmemopen((void *)data, size, "r") : fopen("/dev/null", "r");
	if (!in)
		return 0;
	memset(&s, 0, sizeof(s));
	s.in = in;
	for (;;) {
		bool got;

		memset(&a, 0xa5, sizeof(a));
		got = hwbpi_lackey_next(&s, &a);
		/* The next access line of the input, by the oracle. */
		while (pos < size) {
			const uint8_t *nl = memchr(data + pos, '\n', size - pos);
			size_t n = nl ? (size_t)(nl - (data + pos)) : size - pos;
			uint64_t addr;
			uint32_t sz, op = 0;
			int c = classify(data + pos, n, &addr, &sz, &op);

			pos += n + (nl != NULL);
			lines++;
			if (c == 1) {
				ip = addr;
			} else if (c == 2) {
				CHECK(got);
				CHECK(a.addr == addr && a.size == sz && a.size > 0 && a.op == op &&
				      a.ip == ip && a.cpu == 0);
				goto next;
			} else {
				bad++;
			}
		}
		/* No access line left: the reader must say so too. */
		CHECK(!got);
		break;
next:
		CHECK(s.lines == lines && s.bad == bad);
	}
	CHECK(s.lines == lines && s.bad == bad && s.bytes == size);
	if (size == 0)
		CHECK(lines == 0);
	fclose(in);

	/*
	 * The load-bias guess over the same trace: a PIE, then a fixed ELF.
	 * It loads the PIE's symbols every time (some 20 times the cost of
	 * the reader), so only one input size in four takes this path.
	 */
	if (size <= 4096 && (size & 3) == 0 && temp_file(data, size, path, sizeof(path)) == 0) {
		uint64_t b = hwbpi_lackey_guess_bias(path, HWBP_FUZZ_ELF_DIR "/pie-g");

		CHECK((b & 0xfff) == 0);
		CHECK(hwbpi_lackey_guess_bias(path, HWBP_FUZZ_ELF_DIR "/static-exec") == 0);
	}
	return 0;
}
