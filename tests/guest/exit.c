/* SPDX-License-Identifier: MIT */
/*
 * tests/guest/exit.c: leave the guest with a verdict QEMU turns into its
 * own exit status.
 *   exit CODE      (CODE 0..127; the guest's /init runs it as its last act)
 * Either way the host sees (CODE << 1) | 1 (1 for 0, 3 for 1, ...), distinct
 * from 0 (a reset or kernel panic under -no-reboot), so scripts/guest reads
 * the verdict the same way on every arch.
 *
 * x86_64: QEMU's isa-debug-exit (-device isa-debug-exit,iobase=0xf4,
 * iosize=0x04) ends QEMU with status (VALUE << 1) | 1 for a VALUE written to
 * its port.  busybox has no port I/O, hence this helper: ioperm(2) grants
 * the port to a root process (the guest's init), outb(2) writes it (man 2
 * ioperm, man 2 outb).
 *
 * aarch64: -M virt has no such device; Arm semihosting's SYS_EXIT (0x18)
 * with the AArch64 parameter block {ADP_Stopped_ApplicationExit, status}
 * ends QEMU with that status ("Semihosting for AArch32 and AArch64",
 * SYS_EXIT).  QEMU honours a semihosting call made at EL0 only with
 * -semihosting-config enable=on,userspace=on, which scripts/guest passes;
 * the call is HLT #0xF000 with the operation in x0 and the block in x1.
 *
 * ppc64le: -M pseries has neither a debug-exit device nor semihosting, and
 * its power-off (RTAS "power-off", which reboot(2) with
 * LINUX_REBOOT_CMD_POWER_OFF reaches through pSeries_power_off() in
 * arch/powerpc/platforms/pseries/setup.c) ends QEMU with status 0 whatever
 * the guest wanted.  So the verdict goes over the console: the line
 * "GUEST: exit CODE", drained to the hvc line (tcdrain) before the power-off,
 * which scripts/guest reads back from the serial log and turns into the same
 * (CODE << 1) | 1; a power-off without that line stays 0.
 *
 * Returns 1 only if the machine did not end.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#if defined(__x86_64__)
#include <sys/io.h>
#elif defined(__powerpc64__)
#include <sys/reboot.h>
#include <termios.h>
#include <unistd.h>
#endif

static int leave(int code)
{
#if defined(__x86_64__)
	if (ioperm(0xf4, 4, 1) != 0) {
		perror("exit: ioperm(0xf4)");
		return 1;
	}
	outb((unsigned char)code, 0xf4);
	fprintf(stderr, "exit: isa-debug-exit at 0xf4 did not end QEMU\n");
#elif defined(__aarch64__)
	/* ADP_Stopped_ApplicationExit, then the status QEMU exits with. */
	static uint64_t block[2] = { 0x20026, 0 };
	register uint64_t x0 __asm__("x0") = 0x18;
	register uint64_t x1 __asm__("x1") = (uint64_t)(uintptr_t)block;

	block[1] = ((uint64_t)code << 1) | 1;
	__asm__ volatile("hlt #0xf000" : "+r"(x0) : "r"(x1) : "memory");
	fprintf(stderr, "exit: semihosting SYS_EXIT did not end QEMU "
		"(-semihosting-config enable=on,userspace=on missing?)\n");
#elif defined(__powerpc64__)
	printf("GUEST: exit %d\n", code);
	fflush(stdout);
	/* A console that is not a tty (a pipe) has nothing to drain. */
	if (isatty(STDOUT_FILENO))
		tcdrain(STDOUT_FILENO);
	sync();
	reboot(RB_POWER_OFF);
	perror("exit: reboot(RB_POWER_OFF)");
#else
	(void)code;
	fprintf(stderr, "exit: no way out of QEMU known on this arch\n");
#endif
	return 1;
}

int main(int argc, char **argv)
{
	int code = argc > 1 ? atoi(argv[1]) : 0;

	if (code < 0 || code > 127)
		code = 127;
	return leave(code);
}
