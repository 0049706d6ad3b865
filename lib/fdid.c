// SPDX-License-Identifier: GPL-2.0
/*
 * Fabric device id (fdid) parsing and formatting.
 *
 * Pure logic: no kernel headers, built both into the kernel module and into
 * the userspace unit tests.
 */
#include <smartio/compat.h>
#include <smartio/hex.h>
#include <smartio/fdid.h>

/* Maximum number of hex digits in an fdid string (32 bits). */
#define SMARTIO_FDID_MAX_DIGITS	8

/**
 * smartio_fdid_parse() - Parse a fabric device id.
 * @s: NUL-terminated string: 1 to 8 hex digits (either case), optionally
 *	prefixed by "0x" or "0X".  No whitespace or sign is accepted.
 * @fdid: Receives the parsed fdid on success; left untouched on error.
 *
 * Return: 0 on success, -EINVAL if @s or @fdid is NULL, @s is malformed or
 * the fdid has the reserved node id 0, -ERANGE if @s has more than 8 digits.
 */
int smartio_fdid_parse(const char *s, u32 *fdid)
{
	size_t n;
	u32 v;

	if (!s || !fdid)
		return -EINVAL;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;

	n = smartio_hex_scan(s, &v);
	if (n == 0 || s[n] != '\0')
		return -EINVAL;
	if (n > SMARTIO_FDID_MAX_DIGITS)
		return -ERANGE;
	if (!smartio_fdid_valid(v))
		return -EINVAL;

	*fdid = v;
	return 0;
}
EXPORT_SYMBOL_GPL(smartio_fdid_parse);

/**
 * smartio_fdid_format() - Format a fabric device id.
 * @fdid: Fabric device id to format (validity is not checked).
 * @buf: Destination buffer.
 * @len: Size of @buf in bytes; SMARTIO_FDID_STR_MAX is always enough.
 *
 * Writes lowercase hex without prefix or leading zeros, like "%x".  When
 * @len > 0, @buf is always NUL-terminated; on -ENOSPC it holds "".
 *
 * Return: Number of characters written, excluding the NUL, -ENOSPC if @buf
 * is too small, or -EINVAL if @buf is NULL while @len is not 0.
 */
int smartio_fdid_format(u32 fdid, char *buf, size_t len)
{
	size_t n = smartio_hex_len(fdid, 1);

	if (!buf && len)
		return -EINVAL;
	if (len < n + 1) {
		if (len)
			buf[0] = '\0';
		return -ENOSPC;
	}

	smartio_hex_put(buf, fdid, n);
	buf[n] = '\0';
	return (int)n;
}
EXPORT_SYMBOL_GPL(smartio_fdid_format);
