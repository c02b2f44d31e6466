/* SPDX-License-Identifier: MIT */
/*
 * tests/guest/exit.c: leave the guest through QEMU's isa-debug-exit device.
 *   exit CODE      (CODE 0..127; the guest's /init runs it as its last act)
 * QEMU's isa-debug-exit (-device isa-debug-exit,iobase=0xf4,iosize=0x04)
 * ends QEMU with status (VALUE << 1) | 1 for a VALUE written to its port,
 * so a guest verdict reaches the host as QEMU's exit status (1 for 0, 3 for
 * 1, ...), distinct from 0 (a reset or kernel panic under -no-reboot).
 * busybox has no port I/O, hence this helper: ioperm(2) grants the port to
 * a root process (the guest's init), outb(2) writes it (man 2 ioperm,
 * man 2 outb).  Returns 1 only if the write did not end the machine.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/io.h>

int main(int argc, char **argv)
{
	int code = argc > 1 ? atoi(argv[1]) : 0;

	if (code < 0 || code > 127)
		code = 127;
	if (ioperm(0xf4, 4, 1) != 0) {
		perror("exit: ioperm(0xf4)");
		return 1;
	}
	outb((unsigned char)code, 0xf4);
	fprintf(stderr, "exit: isa-debug-exit at 0xf4 did not end QEMU\n");
	return 1;
}
