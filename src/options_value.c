/* SPDX-License-Identifier: MIT */
/* The values the table's own readers (options.c) and the parse
 * (options_parse.c) both read, and the one way their arrays grow: below
 * both, so that neither calls the other back. */
#include <config.h>

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "lib/xalloc.h"
#include "options.h"
#include "options_int.h"

/* The array with room for element n + 1, n elements being held: the room
 * doubles each time n reaches a power of two. */
void *options_grow(void *array, size_t n, size_t size)
{
	if (n & (n - 1))
		return array;
	return xreallocarray(array, n ? 2 * n : 1, size);
}

/* A non-negative decimal integer up to INT_MAX, nothing else. */
bool options_parse_count(const char *s, long *out)
{
	if (*s < '0' || *s > '9')
		return false;
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || *end || v > INT_MAX)
		return false;
	*out = v;
	return true;
}

/* A plain decimal number, "12", "12.5" or ".5": no sign, exponent, hex,
 * inf or nan, which strtod would take. */
bool options_parse_decimal(const char *s, double *out)
{
	size_t digits = strspn(s, "0123456789");
	const char *rest = s + digits;
	if (*rest == '.') {
		size_t fraction = strspn(rest + 1, "0123456789");
		digits += fraction;
		rest += 1 + fraction;
	}
	if (digits == 0 || *rest)
		return false;
	*out = strtod(s, NULL);
	return true;
}
