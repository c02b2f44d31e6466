/* SPDX-License-Identifier: MIT */
/*
 * The few C library functions that libhwbp and the runner use, for the
 * freestanding harness kernels (built with -ffreestanding -nostdlib).  The
 * compiler may also emit calls to memset/memcpy/memmove/memcmp for struct
 * copies, so these have their standard names.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

void *memset(void *s, int c, size_t n);
void *memcpy(void *restrict d, const void *restrict s, size_t n);
void *memmove(void *d, const void *s, size_t n);
int memcmp(const void *a, const void *b, size_t n);
size_t strlen(const char *s);
int strcmp(const char *a, const char *b);
int strncmp(const char *a, const char *b, size_t n);
char *strncpy(char *restrict d, const char *restrict s, size_t n);
int vsnprintf(char *restrict buf, size_t n, const char *restrict fmt, va_list ap);
int snprintf(char *restrict buf, size_t n, const char *restrict fmt, ...);

void *memset(void *s, int c, size_t n)
{
	unsigned char *p = s;

	while (n--)
		*p++ = (unsigned char)c;
	return s;
}

void *memcpy(void *restrict d, const void *restrict s, size_t n)
{
	unsigned char *dp = d;
	const unsigned char *sp = s;

	while (n--)
		*dp++ = *sp++;
	return d;
}

void *memmove(void *d, const void *s, size_t n)
{
	unsigned char *dp = d;
	const unsigned char *sp = s;

	if (dp < sp) {
		while (n--)
			*dp++ = *sp++;
	} else {
		while (n--)
			dp[n] = sp[n];
	}
	return d;
}

int memcmp(const void *a, const void *b, size_t n)
{
	const unsigned char *x = a, *y = b;

	for (; n; n--, x++, y++)
		if (*x != *y)
			return *x < *y ? -1 : 1;
	return 0;
}

size_t strlen(const char *s)
{
	size_t n = 0;

	while (s[n])
		n++;
	return n;
}

int strcmp(const char *a, const char *b)
{
	while (*a && *a == *b) {
		a++;
		b++;
	}
	return (unsigned char)*a - (unsigned char)*b;
}

int strncmp(const char *a, const char *b, size_t n)
{
	for (; n; n--, a++, b++) {
		if (*a != *b)
			return (unsigned char)*a - (unsigned char)*b;
		if (!*a)
			return 0;
	}
	return 0;
}

char *strncpy(char *restrict d, const char *restrict s, size_t n)
{
	size_t i = 0;

	for (; i < n && s[i]; i++)
		d[i] = s[i];
	for (; i < n; i++)
		d[i] = '\0';
	return d;
}

struct out {
	char *buf;
	size_t n, len;
};

static void put(struct out *o, char c)
{
	if (o->len + 1 < o->n)
		o->buf[o->len] = c;
	o->len++;
}

static void put_num(struct out *o, uint64_t v, unsigned base, bool neg, int width, char pad,
		    bool left)
{
	char tmp[24];
	int k = 0, len;

	do {
		unsigned d = (unsigned)(v % base);

		tmp[k++] = (char)(d < 10 ? '0' + d : 'a' + d - 10);
		v /= base;
	} while (v);
	if (neg)
		tmp[k++] = '-';
	len = k;
	if (!left)
		for (; width > len; width--)
			put(o, pad);
	while (k)
		put(o, tmp[--k]);
	if (left)
		for (; width > len; width--)
			put(o, ' ');
}

/* %s %c %d %i %u %x %p with l/ll/z/h modifiers, '-' and '0' flags, width
 * and %.*s: what libhwbp and the runner format. */
int vsnprintf(char *restrict buf, size_t n, const char *restrict fmt, va_list ap)
{
	struct out o = { buf, n, 0 };

	for (; *fmt; fmt++) {
		bool left = false;
		char pad = ' ';
		int width = 0, prec = -1, lng = 0;

		if (*fmt != '%') {
			put(&o, *fmt);
			continue;
		}
		fmt++;
		for (;; fmt++) {
			if (*fmt == '-')
				left = true;
			else if (*fmt == '0')
				pad = '0';
			else
				break;
		}
		if (*fmt == '*') {
			width = va_arg(ap, int);
			fmt++;
		}
		while (*fmt >= '0' && *fmt <= '9')
			width = width * 10 + (*fmt++ - '0');
		if (*fmt == '.') {
			fmt++;
			if (*fmt == '*') {
				prec = va_arg(ap, int);
				fmt++;
			} else {
				prec = 0;
				while (*fmt >= '0' && *fmt <= '9')
					prec = prec * 10 + (*fmt++ - '0');
			}
		}
		while (*fmt == 'l' || *fmt == 'z' || *fmt == 'h') {
			if (*fmt != 'h')
				lng++;
			fmt++;
		}
		switch (*fmt) {
		case 's': {
			const char *s = va_arg(ap, const char *);
			int len = 0;

			if (!s)
				s = "(null)";
			while (s[len] && (prec < 0 || len < prec))
				len++;
			if (!left)
				for (; width > len; width--)
					put(&o, ' ');
			for (int k = 0; k < len; k++)
				put(&o, s[k]);
			if (left)
				for (; width > len; width--)
					put(&o, ' ');
			break;
		}
		case 'c':
			put(&o, (char)va_arg(ap, int));
			break;
		case 'd':
		case 'i': {
			int64_t v = lng ? va_arg(ap, long long) : va_arg(ap, int);

			put_num(&o, v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v, 10, v < 0, width,
				pad, left);
			break;
		}
		case 'u':
		case 'x':
		case 'X': {
			uint64_t v = lng ? va_arg(ap, unsigned long long) : va_arg(ap, unsigned);

			put_num(&o, v, *fmt == 'u' ? 10 : 16, false, width, pad, left);
			break;
		}
		case 'p':
			put(&o, '0');
			put(&o, 'x');
			put_num(&o, (uint64_t)(uintptr_t)va_arg(ap, void *), 16, false, 0, ' ', false);
			break;
		case '%':
			put(&o, '%');
			break;
		default:
			put(&o, '%');
			if (*fmt)
				put(&o, *fmt);
			else
				fmt--;
			break;
		}
	}
	if (n)
		buf[o.len < n ? o.len : n - 1] = '\0';
	return (int)o.len;
}

int snprintf(char *restrict buf, size_t n, const char *restrict fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vsnprintf(buf, n, fmt, ap);
	va_end(ap);
	return r;
}
