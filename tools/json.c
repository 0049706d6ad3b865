// SPDX-License-Identifier: GPL-2.0
/*
 * JSON output for -j. Only what the commands print: strings are escaped
 * per RFC 8259, keys are separated by commas, everything else is written
 * by the caller (nl.c writes netlink messages as objects).
 */
#include "smartioctl.h"

void json_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		switch (c) {
		case '"':
			fputs("\\\"", out);
			break;
		case '\\':
			fputs("\\\\", out);
			break;
		case '\n':
			fputs("\\n", out);
			break;
		case '\t':
			fputs("\\t", out);
			break;
		default:
			if (c < 0x20)
				fprintf(out, "\\u%04x", c);
			else
				fputc(c, out);
		}
	}
	fputc('"', out);
}

/* Writes KEY of an object's member, after a comma unless it is the first. */
void json_key(FILE *out, const char *key, bool *first)
{
	if (!*first)
		fputc(',', out);
	*first = false;
	json_string(out, key);
	fputc(':', out);
}

/*
 * Arrays are written as their elements arrive and may have none: the
 * first element opens the array, json_array_end() closes it or writes [].
 */
void json_elem(FILE *out, bool *first)
{
	fputc(*first ? '[' : ',', out);
	*first = false;
}

void json_array_end(FILE *out, bool first)
{
	fputs(first ? "[]" : "]", out);
}
