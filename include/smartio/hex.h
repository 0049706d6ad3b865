/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Tiny hexadecimal helpers shared by the smartio parsers and formatters.
 *
 * Hand-written on purpose: they behave identically in the kernel and in
 * userspace, unlike strtoul()/kstrto*() and snprintf() whose corner cases
 * (whitespace, signs, prefixes) differ between the two.
 */
#ifndef _SMARTIO_HEX_H
#define _SMARTIO_HEX_H

#include <smartio/compat.h>

/**
 * smartio_hex_val() - Value of one hexadecimal digit.
 * @c: Character to convert, '0'-'9', 'a'-'f' or 'A'-'F'.
 *
 * Return: 0..15, or -1 if @c is not a hexadecimal digit.
 */
static inline int smartio_hex_val(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/**
 * smartio_hex_scan() - Scan a run of hexadecimal digits.
 * @s: Start of the run; scanning stops at the first non-hex character.
 * @val: Receives the value of the run, truncated to its low 32 bits.
 *
 * The caller must check the returned digit count: if it exceeds 8, *@val
 * holds only the value of the last 8 digits.
 *
 * Return: Number of hexadecimal digits scanned (0 if @s starts with a
 * non-hex character).
 */
static inline size_t smartio_hex_scan(const char *s, u32 *val)
{
	size_t n = 0;
	u32 v = 0;
	int d;

	while ((d = smartio_hex_val(s[n])) >= 0) {
		v = (v << 4) | (u32)d;
		n++;
	}
	*val = v;
	return n;
}

/**
 * smartio_hex_len() - Number of digits needed to print a value in hex.
 * @v: Value to print.
 * @min_digits: Minimum field width (zero padded), like the 4 in "%04x".
 *
 * Return: max(@min_digits, number of significant hex digits of @v), where
 * 0 has one significant digit.
 */
static inline size_t smartio_hex_len(u32 v, size_t min_digits)
{
	size_t n = 1;

	while (v >>= 4)
		n++;
	return n > min_digits ? n : min_digits;
}

/**
 * smartio_hex_put() - Write a value as zero-padded lowercase hex.
 * @buf: Destination; must have room for @ndigits characters.
 * @v: Value to write.
 * @ndigits: Exact number of digits to write, normally the result of
 *	smartio_hex_len().
 *
 * No NUL terminator is written.
 *
 * Return: @ndigits.
 */
static inline size_t smartio_hex_put(char *buf, u32 v, size_t ndigits)
{
	static const char digits[] = "0123456789abcdef";
	size_t i = ndigits;

	while (i) {
		buf[--i] = digits[v & 0xf];
		v >>= 4;
	}
	return ndigits;
}

#endif /* _SMARTIO_HEX_H */
