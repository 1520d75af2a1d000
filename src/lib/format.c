/* SPDX-License-Identifier: MIT */
/* Numbers for people and for machines: human sizes, percentages, integers. */
#include <config.h>

#include "lib/format.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

size_t fmt_u64(char buf[FMT_BUFSIZE], uint64_t v)
{
	char tmp[FMT_BUFSIZE];
	size_t n = 0;
	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	for (size_t i = 0; i < n; i++)
		buf[i] = tmp[n - 1 - i];
	buf[n] = '\0';
	return n;
}

/* "whole.tenth" followed by suffix; returns the length. */
static size_t fmt_tenths(char buf[FMT_BUFSIZE], uint64_t tenths, const char *suffix)
{
	size_t n = fmt_u64(buf, tenths / 10);
	buf[n++] = '.';
	buf[n++] = (char)('0' + tenths % 10);
	size_t s = strlen(suffix);
	memcpy(buf + n, suffix, s + 1);
	return n + s;
}

/* fmt_human and fmt_rate: the same units and digits, rounded up or to
 * the nearest. */
static size_t human(char buf[FMT_BUFSIZE], uint64_t bytes, bool nearest)
{
	static const char units[] = "KMGTPE";

	if (bytes < 1024) {
		size_t n = fmt_u64(buf, bytes);
		memcpy(buf + n, "B", 2);
		return n + 1;
	}
	/* The smallest unit that shows at most 1023 of it once rounded, so
	 * that no figure has more than four digits: below 1023.5 of it when
	 * rounded to the nearest (2047 << (10k - 1) fits for k <= 5). */
	unsigned k = 1;
	while (k < 6 && (nearest ? bytes >= UINT64_C(2047) << (10 * k - 1)
				 : bytes > UINT64_C(1023) << (10 * k)))
		k++;
	unsigned shift = 10 * k;
	uint64_t whole = bytes >> shift;
	uint64_t rest = bytes & ((UINT64_C(1) << shift) - 1);
	uint64_t unit = UINT64_C(1) << shift;
	char suffix[2] = { units[k - 1], '\0' };
	/* Up, as du and ls do: a size never shows less than it is; else half
	 * a tenth up.  rest < 2^60, so rest * 10 + unit cannot overflow. */
	uint64_t tenths = whole * 10 + ((rest * 10 + (nearest ? unit / 2 : unit - 1)) >> shift);
	if (tenths < 100)
		return fmt_tenths(buf, tenths, suffix);
	size_t n = fmt_u64(buf, whole + (nearest ? rest >= unit / 2 : rest != 0));
	memcpy(buf + n, suffix, 2);
	return n + 1;
}

size_t fmt_human(char buf[FMT_BUFSIZE], uint64_t bytes)
{
	return human(buf, bytes, false);
}

size_t fmt_rate(char buf[FMT_BUFSIZE], uint64_t bytes)
{
	return human(buf, bytes, true);
}

size_t fmt_percent(char buf[FMT_BUFSIZE], uint64_t part, uint64_t whole)
{
	if (whole == 0)
		return 0;
	uint64_t tenths = (uint64_t)((unsigned __int128)part * 1000 / whole);
	return fmt_tenths(buf, tenths, "");
}

bool fmt_parse_size(const char *s, uint64_t *out)
{
	static const char units[] = "KMGTPE";

	if (*s < '0' || *s > '9')
		return false;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno)
		return false;
	uint64_t factor = 1;
	if ((end[0] == 'b' || end[0] == 'B') && end[1] == '\0')
		return (*out = v), true; /* "512B": bytes */
	if (*end) {
		char letter = end[0];
		if (letter >= 'a' && letter <= 'z')
			letter = (char)(letter - 'a' + 'A');
		const char *unit = memchr(units, letter, sizeof units - 1);
		if (!unit)
			return false;
		uint64_t base = 1024;
		if (strcasecmp(end + 1, "B") == 0)
			base = 1000;
		else if (end[1] != '\0' && strcasecmp(end + 1, "iB") != 0)
			return false;
		for (long i = 0; i <= unit - units; i++)
			factor *= base;
	}
	uint64_t bytes;
	if (__builtin_mul_overflow((uint64_t)v, factor, &bytes))
		return false;
	*out = bytes;
	return true;
}
