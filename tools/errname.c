// SPDX-License-Identifier: GPL-2.0
/*
 * Errno names for error messages: scripts and tests grep for "(ENOTCONN)",
 * which unlike strerror()'s text does not depend on the C library or the
 * locale.
 */
#include <ctype.h>
#include <errno.h>
#include <string.h>

#include "smartioctl.h"

#define E(e) [e] = #e

/* The errnos the smartio family, generic netlink and the socket return. */
static const char * const names[] = {
	E(EPERM), E(ENOENT), E(EINTR), E(EIO), E(EAGAIN), E(ENOMEM),
	E(EBUSY), E(EEXIST), E(ENODEV), E(EINVAL), E(ENOSPC), E(ERANGE),
	E(EPROTO), E(EMSGSIZE), E(EOPNOTSUPP), E(ENOBUFS), E(ENOTCONN),
	E(ETIMEDOUT), E(EHOSTUNREACH), E(ESRCH), E(EBADMSG), E(EAFNOSUPPORT),
	E(EPROTONOSUPPORT), E(ECONNREFUSED), E(EXDEV), E(EALREADY), E(EACCES),
	E(ENXIO),
};

#undef E

const char *errno_name(int err, char *buf, size_t len)
{
	if (err > 0 && (size_t)err < ARRAY_SIZE(names) && names[err])
		return names[err];
	snprintf(buf, len, "errno %d", err);
	return buf;
}

/*
 * strerror() in the lower case of the rest of our messages ("Operation not
 * permitted" -> "operation not permitted"), leaving acronyms alone.
 */
void describe_errno(int err, char *buf, size_t len)
{
	snprintf(buf, len, "%s", strerror(err));
	if (isupper((unsigned char)buf[0]) && islower((unsigned char)buf[1]))
		buf[0] = (char)tolower((unsigned char)buf[0]);
}
