/* SPDX-License-Identifier: MIT */
/* Fuzz target "size": fmt_parse_size against a reference parser written
 * from format.h, and fmt_u64, fmt_human and fmt_percent against __int128
 * arithmetic.  The input is the SIZE string; its first 16 bytes are also
 * read as two numbers for the formatters. */
#include <config.h>

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

#include "lib/format.h"
#include "fuzz.h"

const char fuzz_target_name[] = "size";

typedef unsigned __int128 u128;

static const char units[] = "KMGTPE";

/* format.h, read on its own: digits, then B (bytes), or K, M, G, T, P or
 * E, alone or followed by "iB" (powers of 1024) or "B" (powers of 1000),
 * every letter in either case; refused when the bytes do not fit in 64
 * bits. */
static FUZZ_ORACLE bool reference_parse(const char *s, uint64_t *out)
{
	u128 value = 0;
	bool too_big = false;
	size_t i = 0;

	for (; s[i] >= '0' && s[i] <= '9'; i++) {
		value = value * 10 + (unsigned)(s[i] - '0');
		too_big |= value > UINT64_MAX;
		if (too_big)
			value = (u128)UINT64_MAX + 1; /* stays far from 2^128 */
	}
	if (i == 0)
		return false;

	u128 factor = 1;
	if ((s[i] == 'b' || s[i] == 'B') && s[i + 1] == '\0') {
		if (too_big)
			return false;
		*out = (uint64_t)value;
		return true;
	}
	if (s[i] != '\0') {
		char letter = s[i];
		if (letter >= 'a' && letter <= 'z')
			letter = (char)(letter - 'a' + 'A');
		const char *unit = letter ? strchr(units, letter) : NULL;
		if (!unit)
			return false;
		const char *rest = s + i + 1;
		unsigned base;
		if (*rest == '\0' || strcasecmp(rest, "iB") == 0)
			base = 1024;
		else if (strcasecmp(rest, "B") == 0)
			base = 1000;
		else
			return false;
		for (const char *u = units; u <= unit; u++)
			factor *= base;
	}
	if (too_big || value * factor > UINT64_MAX)
		return false;
	*out = (uint64_t)(value * factor);
	return true;
}

/* fmt_u64 gives the shortest decimal digits, and they parse back. */
static FUZZ_ORACLE void check_u64(uint64_t v)
{
	char buf[FMT_BUFSIZE];
	size_t len = fmt_u64(buf, v);

	FUZZ_CHECK(len > 0 && len < FMT_BUFSIZE && len == strlen(buf));
	FUZZ_CHECK(strspn(buf, "0123456789") == len);
	FUZZ_CHECK(buf[0] != '0' || len == 1);
	uint64_t back = 0;
	FUZZ_CHECK(reference_parse(buf, &back) && back == v);
	FUZZ_CHECK(fmt_parse_size(buf, &back) && back == v);
}

/* "W.T" then an optional suffix: the tenths, or false when malformed. */
static FUZZ_ORACLE bool read_tenths(const char *s, size_t len, u128 *tenths,
				    const char **suffix)
{
	size_t digits = strspn(s, "0123456789");
	if (digits == 0 || digits + 2 > len || s[digits] != '.' ||
	    s[digits + 1] < '0' || s[digits + 1] > '9')
		return false;
	u128 whole = 0;
	for (size_t i = 0; i < digits; i++)
		whole = whole * 10 + (unsigned)(s[i] - '0');
	*tenths = whole * 10 + (unsigned)(s[digits + 1] - '0');
	*suffix = s + digits + 2;
	return true;
}

/* The figure of a human size, "D.D" or digits, in tenths, and the
 * precision it was shown to (1 or 10 tenths); false when malformed. */
static FUZZ_ORACLE bool read_figure(const char *s, size_t len, u128 *tenths, u128 *step,
				    const char **suffix)
{
	if (read_tenths(s, len, tenths, suffix)) {
		*step = 1;
		return true;
	}
	size_t digits = strspn(s, "0123456789");
	if (digits == 0 || s[0] == '0')
		return false;
	u128 whole = 0;
	for (size_t i = 0; i < digits; i++)
		whole = whole * 10 + (unsigned)(s[i] - '0');
	*tenths = whole * 10;
	*step = 10;
	*suffix = s + digits;
	return true;
}

/* fmt_human, from format.h alone: below 1 KiB exact bytes; else the
 * smallest unit that shows at most 1023, one decimal below 10 and whole
 * from 10 on, always rounded up; never longer than FMT_HUMAN_MAX. */
static FUZZ_ORACLE void check_human(uint64_t v)
{
	char buf[FMT_BUFSIZE];
	size_t len = fmt_human(buf, v);

	FUZZ_CHECK(len > 0 && len <= FMT_HUMAN_MAX && len == strlen(buf));
	if (v < 1024) {
		char want[FMT_BUFSIZE];
		snprintf(want, sizeof want, "%uB", (unsigned)v);
		FUZZ_CHECK(strcmp(buf, want) == 0);
		return;
	}
	u128 tenths, step;
	const char *suffix;
	FUZZ_CHECK(read_figure(buf, len, &tenths, &step, &suffix));
	const char *unit = suffix[0] ? strchr(units, suffix[0]) : NULL;
	FUZZ_CHECK(unit != NULL && suffix[1] == '\0');
	u128 scale = (u128)1 << (10 * (unit - units + 1));
	u128 exact = (u128)v * 10; /* tenths of a byte */
	/* rounded up to the precision shown: not below v, less than a step above */
	FUZZ_CHECK(tenths * scale >= exact && (tenths - step) * scale < exact);
	/* a decimal for 1.0 to 9.9; whole for 10 to 1023, where the decimal
	 * rounded up would have shown 10.0 or more */
	if (step == 1)
		FUZZ_CHECK(tenths >= 10 && tenths < 100);
	else
		FUZZ_CHECK(tenths >= 100 && tenths <= 10230 && exact > 99 * scale);
	/* the unit below would have shown more than 1023 */
	if (scale > 1024)
		FUZZ_CHECK((u128)v > 1023 * (scale >> 10));
}

/* fmt_percent: undefined for whole 0; else 100 * part / whole truncated
 * to tenths, so 100.0 only when part == whole. */
static FUZZ_ORACLE void check_percent(uint64_t part, uint64_t whole)
{
	char buf[FMT_BUFSIZE];
	size_t len = fmt_percent(buf, part, whole);

	if (whole == 0) {
		FUZZ_CHECK(len == 0);
		return;
	}
	FUZZ_CHECK(len > 0 && len < FMT_BUFSIZE && len == strlen(buf));
	u128 tenths;
	const char *suffix;
	FUZZ_CHECK(read_tenths(buf, len, &tenths, &suffix) && *suffix == '\0');
	/* format.h states no bound on part; callers pass part <= whole
	 * (cached pages of a range), which is what is checked exactly */
	if (part > whole)
		return;
	u128 scaled = (u128)part * 1000;
	FUZZ_CHECK(tenths * whole <= scaled && scaled < (tenths + 1) * whole);
	FUZZ_CHECK((tenths == 1000) == (part == whole));
}

/* An accepted value, spelt again with each suffix that divides it,
 * parses to the same bytes. */
static FUZZ_ORACLE void check_respellings(uint64_t v)
{
	static const char *const spellings[] = { "", "iB", "B" };
	char buf[FMT_BUFSIZE + 4];

	for (unsigned k = 1; k <= 6; k++) {
		for (unsigned s = 0; s < 3; s++) {
			uint64_t factor = 1;
			for (unsigned i = 0; i < k; i++)
				factor *= s == 2 ? 1000 : 1024;
			if (v % factor)
				continue;
			size_t n = fmt_u64(buf, v / factor);
			buf[n] = (char)(s == 1 ? units[k - 1] : units[k - 1] - 'A' + 'a');
			memcpy(buf + n + 1, spellings[s], strlen(spellings[s]) + 1);
			uint64_t back = 0;
			FUZZ_CHECK(fmt_parse_size(buf, &back) && back == v);
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';

	uint64_t got = 0, again = 0, want = 0;
	bool ok = fmt_parse_size(s, &got);
	FUZZ_CHECK(ok == reference_parse(s, &want));
	if (ok) {
		FUZZ_CHECK(got == want);
		FUZZ_CHECK(fmt_parse_size(s, &again) && again == got);
		check_u64(got);
		check_human(got);
		check_respellings(got);
	}
	free(s);

	if (size >= 2 * sizeof(uint64_t)) {
		uint64_t part, whole;
		memcpy(&part, data, sizeof part);
		memcpy(&whole, data + sizeof part, sizeof whole);
		check_u64(part);
		check_human(part);
		check_human(whole);
		check_percent(part, whole);
		check_percent(part < whole ? part : whole, part < whole ? whole : part);
	}
	return 0;
}
