/* SPDX-License-Identifier: MIT */
/*
 * hwbp_errno_name: the symbolic name of an errno, for messages that must
 * say which error it was (the CLI, the simulator's and the tracer's
 * one-line reasons), without the C library's strerrorname_np(), which a
 * kernel or a freestanding build does not have.
 *
 * Hosted on Linux and in a Linux kernel, every errno <errno.h> (or
 * <linux/errno.h>) defines is named: the table is written with the
 * macros, so each name carries the platform's own number (powerpc's
 * EDEADLOCK differs, for one).  Where a value has two names (EAGAIN and
 * EWOULDBLOCK, EDEADLK and EDEADLOCK, EOPNOTSUPP and ENOTSUP) the first
 * listed wins, as glibc's strerrorname_np() chooses.  A freestanding build
 * defines only the errnos the core returns (hwbp_libc.h), so only those are
 * named there; elsewhere the name is "EUNKNOWN".
 */
#include "hwbp_libc.h"
#include "internal.h"

struct errname {
	int err;
	const char *name;
};

#define E(n) { n, #n }

static const struct errname names[] = {
#if (defined(__linux__) || defined(__KERNEL__)) && !defined(HWBP_FREESTANDING)
	E(EPERM),
	E(ENOENT),
	E(ESRCH),
	E(EINTR),
	E(EIO),
	E(ENXIO),
	E(E2BIG),
	E(ENOEXEC),
	E(EBADF),
	E(ECHILD),
	E(EAGAIN),
	E(ENOMEM),
	E(EACCES),
	E(EFAULT),
	E(ENOTBLK),
	E(EBUSY),
	E(EEXIST),
	E(EXDEV),
	E(ENODEV),
	E(ENOTDIR),
	E(EISDIR),
	E(EINVAL),
	E(ENFILE),
	E(EMFILE),
	E(ENOTTY),
	E(ETXTBSY),
	E(EFBIG),
	E(ENOSPC),
	E(ESPIPE),
	E(EROFS),
	E(EMLINK),
	E(EPIPE),
	E(EDOM),
	E(ERANGE),
	E(EDEADLK),
	E(ENAMETOOLONG),
	E(ENOLCK),
	E(ENOSYS),
	E(ENOTEMPTY),
	E(ELOOP),
	E(ENOMSG),
	E(EIDRM),
	E(ECHRNG),
	E(EL2NSYNC),
	E(EL3HLT),
	E(EL3RST),
	E(ELNRNG),
	E(EUNATCH),
	E(ENOCSI),
	E(EL2HLT),
	E(EBADE),
	E(EBADR),
	E(EXFULL),
	E(ENOANO),
	E(EBADRQC),
	E(EBADSLT),
	E(EBFONT),
	E(ENOSTR),
	E(ENODATA),
	E(ETIME),
	E(ENOSR),
	E(ENONET),
	E(ENOPKG),
	E(EREMOTE),
	E(ENOLINK),
	E(EADV),
	E(ESRMNT),
	E(ECOMM),
	E(EPROTO),
	E(EMULTIHOP),
	E(EDOTDOT),
	E(EBADMSG),
	E(EOVERFLOW),
	E(ENOTUNIQ),
	E(EBADFD),
	E(EREMCHG),
	E(ELIBACC),
	E(ELIBBAD),
	E(ELIBSCN),
	E(ELIBMAX),
	E(ELIBEXEC),
	E(EILSEQ),
	E(ERESTART),
	E(ESTRPIPE),
	E(EUSERS),
	E(ENOTSOCK),
	E(EDESTADDRREQ),
	E(EMSGSIZE),
	E(EPROTOTYPE),
	E(ENOPROTOOPT),
	E(EPROTONOSUPPORT),
	E(ESOCKTNOSUPPORT),
	E(EOPNOTSUPP),
	E(EPFNOSUPPORT),
	E(EAFNOSUPPORT),
	E(EADDRINUSE),
	E(EADDRNOTAVAIL),
	E(ENETDOWN),
	E(ENETUNREACH),
	E(ENETRESET),
	E(ECONNABORTED),
	E(ECONNRESET),
	E(ENOBUFS),
	E(EISCONN),
	E(ENOTCONN),
	E(ESHUTDOWN),
	E(ETOOMANYREFS),
	E(ETIMEDOUT),
	E(ECONNREFUSED),
	E(EHOSTDOWN),
	E(EHOSTUNREACH),
	E(EALREADY),
	E(EINPROGRESS),
	E(ESTALE),
	E(EUCLEAN),
	E(ENOTNAM),
	E(ENAVAIL),
	E(EISNAM),
	E(EREMOTEIO),
	E(EDQUOT),
	E(ENOMEDIUM),
	E(EMEDIUMTYPE),
	E(ECANCELED),
	E(ENOKEY),
	E(EKEYEXPIRED),
	E(EKEYREVOKED),
	E(EKEYREJECTED),
	E(EOWNERDEAD),
	E(ENOTRECOVERABLE),
	E(ERFKILL),
	E(EHWPOISON),
	/* Second names: the same value as one above on most arches (the
	 * first wins), a value of their own on some (powerpc's EDEADLOCK). */
	E(EDEADLOCK),
	E(EWOULDBLOCK),
	E(ENOTSUP),
#else
	E(ENOENT),
	E(EIO),
	E(ENOMEM),
	E(EFAULT),
	E(EBUSY),
	E(EINVAL),
	E(ENOSPC),
	E(ERANGE),
	E(EOPNOTSUPP),
#endif
};

const char *hwbp_errno_name(int err)
{
	if (err < 0)
		err = -err;
	if (err == 0)
		return "OK";
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].err == err)
			return names[i].name;
	return "EUNKNOWN";
}
