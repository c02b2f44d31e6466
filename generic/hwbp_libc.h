/* SPDX-License-Identifier: MIT */
/*
 * The whole of the C library the core (generic/ and arch/<a>/{caps,encode,
 * decode}.c) uses, in one place, so that the core compiles three ways:
 *
 *  - hosted (the default): the C library's <errno.h> and <string.h>;
 *  - HWBP_FREESTANDING (-ffreestanding -nostdinc, scripts/core-check and
 *    meson -Dcore_only=true): the errno values are defined here with the
 *    Linux numbers, and the four memory functions are only declared: the
 *    environment (a kernel, a boot stub) provides memcpy, memset, memmove
 *    and memcmp, which compilers call for structure copies anyway;
 *  - __KERNEL__ (a Linux module): <linux/errno.h> and <linux/string.h>.
 *
 * No other libc function may be used by the core.  The string helpers
 * below are the few the core needs (names compare, bounded copy, a decimal
 * suffix), written here rather than taken from <string.h>/<stdio.h>.
 */
#ifndef HWBP_LIBC_H
#define HWBP_LIBC_H

#ifndef __KERNEL__
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#endif

#if defined(__KERNEL__)
#include <linux/errno.h>
#include <linux/limits.h>
#include <linux/string.h>
#include <linux/types.h>
#include <hwbp/hwbp.h>   /* the <stdint.h> macros, from the kernel's */
/* The C library's second name for EOPNOTSUPP (glibc's <bits/errno.h>),
 * which the kernel does not define. */
#ifndef ENOTSUP
#define ENOTSUP EOPNOTSUPP
#endif
#elif defined(HWBP_FREESTANDING)
/* Linux's values (include/uapi/asm-generic/errno-base.h and errno.h; the
 * same on x86, arm64, powerpc and riscv for these). */
#define EPERM 1
#define ENOENT 2
#define EIO 5
#define ENOMEM 12
#define EFAULT 14
#define EBUSY 16
#define ENODEV 19
#define EINVAL 22
#define ENOSPC 28
#define ERANGE 34
#define EOPNOTSUPP 95

void *memcpy(void *dst, const void *src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);
#else
#include <errno.h>
#include <string.h>
#endif


/* a and b are equal NUL-terminated strings. */
static inline bool hwbpi_streq(const char *a, const char *b)
{
	while (*a && *a == *b) {
		a++;
		b++;
	}
	return *a == *b;
}

static inline size_t hwbpi_strlen(const char *s)
{
	size_t n = 0;

	while (s[n])
		n++;
	return n;
}

/* s begins with prefix p. */
static inline bool hwbpi_starts(const char *s, const char *p)
{
	while (*p && *s == *p) {
		s++;
		p++;
	}
	return *p == '\0';
}

/*
 * Copy @src into @dst of @n bytes (n >= 1), always NUL-terminated.
 * Returns the length of @src, so a result >= n means it was cut short.
 */
static inline size_t hwbpi_strlcpy(char *dst, const char *src, size_t n)
{
	size_t i = 0, len = hwbpi_strlen(src);

	for (; i + 1 < n && src[i]; i++)
		dst[i] = src[i];
	dst[i] = '\0';
	return len;
}

/*
 * Write @prefix followed by @num in decimal into @dst of @n bytes (a
 * register or slot name such as "dbgwcr15").  Returns the length it needs
 * (without the NUL), so a result >= n means it did not fit (the buffer
 * then holds a cut-short, NUL-terminated string, or nothing if n is 0).
 */
static inline size_t hwbpi_fmt_name(char *dst, size_t n, const char *prefix, unsigned num,
				    bool with_num)
{
	char digits[10];
	size_t len = 0, nd = 0;

	if (with_num) {
		do {
			digits[nd++] = (char)('0' + num % 10);
			num /= 10;
		} while (num);
	}
	for (; *prefix; prefix++, len++)
		if (len + 1 < n)
			dst[len] = *prefix;
	while (nd) {
		if (len + 1 < n)
			dst[len] = digits[nd - 1];
		nd--;
		len++;
	}
	if (n)
		dst[len < n ? len : n - 1] = '\0';
	return len;
}

#endif /* HWBP_LIBC_H */
