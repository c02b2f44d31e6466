/* SPDX-License-Identifier: MIT */
/*
 * Debian's riscv64 cross glibc headers are installed for the lp64d ABI
 * only: <gnu/stubs.h> includes <gnu/stubs-lp64.h> under -mabi=lp64 (no
 * hardware float) and finds none.  That header only lists the __stub_*
 * macros of functions glibc does not implement, which a freestanding
 * kernel never calls: empty here.  The harness takes nothing but
 * declarations and macros (errno values, memcpy, snprintf, PRIx64) from
 * the C library's headers, as the other harnesses do; tests/qemu/common/
 * libc.c defines the functions.
 */
