/* SPDX-License-Identifier: MIT */
/* Unit tests of escape.c: JSON, Prometheus, CSV, base64 and terminal escaping. */
#include <config.h>

#include <locale.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/escape.h"
#include "unit.h"

/* esc_json_string also says whether it had to repair the string. */
static bool json_valid;

static void json_string(FILE *out, const char *s, size_t n)
{
	json_valid = esc_json_string(out, s, n);
}

static void test_json(void)
{
	unit_expect_written("json plain", json_string, "a/b", 3, "\"a/b\"");
	unit_expect_written("json quote and backslash", json_string, "\"\\", 2, "\"\\\"\\\\\"");
	unit_expect_written("json controls", json_string, "\n\t\x01\x7f", 4,
			    "\"\\n\\t\\u0001\\u007f\"");
	unit_expect_written("json utf8 passes", json_string, "\xc3\xa9", 2, "\"\xc3\xa9\"");
	unit_expect_written("json invalid byte", json_string, "a\xff" "b", 3,
			    "\"a\xef\xbf\xbd" "b\"");
	unit_expect_written("json truncated sequence", json_string, "\xe2\x82", 2,
			    "\"\xef\xbf\xbd\xef\xbf\xbd\"");
	unit_expect_written("json overlong", json_string, "\xc0\xaf", 2,
			    "\"\xef\xbf\xbd\xef\xbf\xbd\"");
	unit_expect_written("json surrogate", json_string, "\xed\xa0\x80", 3,
			    "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"");
	unit_expect_written("json embedded NUL", json_string, "a\0b", 3, "\"a\\u0000b\"");

	unit_expect_written("json repaired", json_string, "a\xff", 2, "\"a\xef\xbf\xbd\"");
	unit_check(!json_valid, "esc_json_string must report a repaired string");
	unit_expect_written("json valid", json_string, "\xc3\xa9", 2, "\"\xc3\xa9\"");
	unit_check(json_valid, "esc_json_string must report a valid string");

	unit_check(esc_utf8_length((const unsigned char *)"\xf4\x90\x80\x80", 4) == 0 &&
			   esc_utf8_length((const unsigned char *)"\xf0\x9f\x98\x80", 4) == 4,
		   "esc_utf8_length: U+10FFFF bound");
}

static bool prom_valid;

static void prom_label(FILE *out, const char *s, size_t n)
{
	prom_valid = esc_prom_label(out, s, n);
}

static void test_prom(void)
{
	unit_expect_written("prom plain", prom_label, "a/b c", 5, "a/b c");
	unit_expect_written("prom quote, backslash, newline", prom_label, "\"\\\n", 3,
			    "\\\"\\\\\\n");
	/* a backslash then n stays two characters: \\n, not \n */
	unit_expect_written("prom backslash n", prom_label, "\\n", 2, "\\\\n");
	unit_expect_written("prom tab and CR as is", prom_label, "\t\r", 2, "\t\r");
	unit_expect_written("prom utf8 passes", prom_label, "\xc3\xa9", 2, "\xc3\xa9");
	unit_expect_written("prom invalid bytes", prom_label, "a\xff\xc0\xaf", 4,
			    "a\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
	unit_check(!prom_valid, "esc_prom_label must report a repaired value");
	unit_expect_written("prom valid", prom_label, "\xc3\xa9", 2, "\xc3\xa9");
	unit_check(prom_valid, "esc_prom_label must report a valid value");
}

static void test_base64(void)
{
	unit_expect_written("base64 empty", esc_base64, "", 0, "");
	unit_expect_written("base64 1", esc_base64, "f", 1, "Zg==");
	unit_expect_written("base64 2", esc_base64, "fo", 2, "Zm8=");
	unit_expect_written("base64 3", esc_base64, "foo", 3, "Zm9v");
	unit_expect_written("base64 6", esc_base64, "foobar", 6, "Zm9vYmFy");
	unit_expect_written("base64 binary", esc_base64, "\xff\n\x00", 3, "/woA");
}

static void test_csv(void)
{
	unit_expect_written("csv plain", esc_csv_field, "a/b", 3, "a/b");
	unit_expect_written("csv comma", esc_csv_field, "a,b", 3, "\"a,b\"");
	unit_expect_written("csv quote", esc_csv_field, "a\"b", 3, "\"a\"\"b\"");
	unit_expect_written("csv newline", esc_csv_field, "a\nb", 3, "\"a\nb\"");
	unit_expect_written("csv CR", esc_csv_field, "a\rb", 3, "\"a\rb\"");
	unit_expect_written("csv leading space", esc_csv_field, " a", 2, "\" a\"");
	unit_expect_written("csv empty", esc_csv_field, "", 0, "");
}

static void expect_terminal(const char *what, const char *in, size_t n, int utf8,
			    const char *want)
{
	char buf[256];
	size_t need = esc_terminal(buf, sizeof buf, in, n, utf8);
	unit_expect_str(what, buf, want);
	unit_check(need == strlen(want), "%s: length %zu, want %zu", what, need, strlen(want));
}

static void test_terminal(void)
{
	expect_terminal("term plain", "a b", 3, 1, "a b");
	expect_terminal("term newline", "a\nb", 3, 1, "a\\nb");
	expect_terminal("term escape char", "\x1b[31m", 5, 1, "\\x1b[31m");
	expect_terminal("term backslash", "a\\b", 3, 1, "a\\\\b");
	expect_terminal("term utf8 kept", "caf\xc3\xa9", 5, 1, "caf\xc3\xa9");
	expect_terminal("term utf8 on C locale", "caf\xc3\xa9", 5, 0, "caf\\xc3\\xa9");
	expect_terminal("term invalid", "a\xff", 2, 1, "a\\xff");
	expect_terminal("term C1 CSI", "\xc2\x9b", 2, 1, "\\u{009b}");
	/* NOLINTNEXTLINE(misc-misleading-bidirectional): the bytes are escaped, on purpose */
	expect_terminal("term bidi override", "\xe2\x80\xae", 3, 1, "\\u{202e}");

	/* Truncation keeps a NUL and reports the full length. */
	char small[4];
	size_t need = esc_terminal(small, sizeof small, "abcdef", 6, 1);
	unit_expect_str("term truncated", small, "abc");
	unit_check(need == 6, "term truncated length %zu", need);
}

/* esc_put_terminal: the same text as esc_terminal, short or long. */
static void term_short(FILE *out, const char *s, size_t n)
{
	esc_put_terminal(out, s, n, true);
}

static void test_put_terminal(void)
{
	char in[300], want[601];
	memset(in, '\n', sizeof in);
	for (size_t i = 0; i < sizeof in; i++)
		memcpy(want + 2 * i, "\\n", 2);
	want[600] = '\0';
	unit_expect_written("put_terminal short", term_short, "a\tb", 3, "a\\tb");
	unit_expect_written("put_terminal past the stack buffer", term_short, in, sizeof in, want);
}

static void expect_width(const char *what, const char *s, size_t want)
{
	size_t got = esc_display_width(s);
	unit_check(got == want, "%s: width %zu, want %zu", what, got, want);
}

/* esc_display_width: ASCII in any locale, each character's columns in a
 * UTF-8 one. */
static void test_display_width(void)
{
	expect_width("width empty", "", 0);
	expect_width("width ASCII", "PATH", 4);
	expect_width("width an escape", "a\\xffb", 6);

	/* the locale the program would read, first, so that C.UTF-8 stays */
	(void)esc_locale_is_utf8();
	char *was = strdup(setlocale(LC_CTYPE, NULL));
	if (!setlocale(LC_CTYPE, "C.UTF-8")) {
		printf("# esc_display_width in UTF-8 skipped: no C.UTF-8 locale\n");
		free(was);
		return;
	}
	expect_width("width wide (CJK)", "\xe6\x97\xa5\xe6\x9c\xac.bin", 8);
	expect_width("width emoji", "\xf0\x9f\x98\x80", 2);
	expect_width("width combining (e, U+0301)", "e\xcc\x81", 1);
	expect_width("width zero-width space", "a\xe2\x80\x8b" "b", 2);
	expect_width("width ASCII then wide", "n/\xe6\x97\xa5", 4);
	expect_width("width a block of the bar", "\xe2\x96\x88\xc2\xb7", 2);
	expect_width("width unassigned U+0378", "\xcd\xb8", 1);
	expect_width("width stray byte", "a\xff", 2);
	expect_width("width truncated sequence", "a\xe6\x97", 3);
	setlocale(LC_CTYPE, was);
	free(was);
}

void unit_escape(void)
{
	test_json();
	test_prom();
	test_base64();
	test_csv();
	test_terminal();
	test_put_terminal();
	test_display_width();
}
